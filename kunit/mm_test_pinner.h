/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the suites of the drivers' user-pages functions share (qib's and
 * hfi1's): a driver pins the pages of one buffer at a time ("get"), and
 * releases them in parts, a TID at a time ("put"), or whole.  A suite
 * gives the two functions (struct mm_test_pinner) and its tables; this
 * runs them:
 * - mm_test_pinner_sequence(): a row of steps (the shared operations,
 *   gets and puts) in a populated window, then the window, pinned_vm and
 *   locked_vm the row says, the counters checked against the vmas and the
 *   pins, and after every page is released, the window and its map_count;
 * - mm_test_pinner_mapping(): one kind of mapping, with what the driver's
 *   pristine path returns for it measured beside what the series does;
 * - mm_test_pinner_owner_exits(): the pages released from a workqueue
 *   after the owner's mm exited.
 *
 * Pictures of the window, a letter a page: '-' not mapped, '.' mapped,
 * 'L' locked, 'P' pinned, 'B' pinned and locked.
 */

#ifndef _MM_TEST_PINNER_H
#define _MM_TEST_PINNER_H

#include <kunit/test.h>
#include "mm_test_mappings.h"

#define MM_TEST_PIN_SLOTS	2

/* The pages of one get and what is left of them to put. */
struct mm_test_pin_slot {
	void *pin;		/* the driver's, NULL once every page is put */
	struct page *pages[MM_TEST_PAGES];
	unsigned int npages;
	DECLARE_BITMAP(held, MM_TEST_PAGES);
};

/**
 * struct mm_test_pinner - the user-pages functions of a driver
 * @get: pin @npages pages from @addr of current->mm into @slot->pages and
 *	set @slot->pin; return how many were pinned, or -errno
 * @put: release @n of @slot's pages from @first
 * @put_async: the same from where the mmap_lock may be held (an MMU
 *	notifier), or NULL if the driver never releases there
 * @pristine: what the driver's pristine get returns for the range, after
 *	its limit check: its GUP call with the same flags, which the series
 *	does not change; the pages pinned, or -errno
 */
struct mm_test_pinner {
	long (*get)(struct mm_test_pin_slot *slot, unsigned long addr,
		    unsigned int npages);
	void (*put)(struct mm_test_pin_slot *slot, unsigned int first,
		    unsigned int n);
	void (*put_async)(struct mm_test_pin_slot *slot, unsigned int first,
			  unsigned int n);
	long (*pristine)(unsigned long addr, unsigned long npages);
};

enum mm_test_pin_step_kind {
	PS_NONE,
	PS_OP,		/* .op, of the shared vocabulary */
	PS_GET,		/* slot = get(base + .first pages, .n pages) */
	PS_PUT,		/* put pages .first to .first + .n of the slot at once */
	PS_PUT_EACH,	/* put the slot's pages left, one call a page */
	PS_PUT_WQ,	/* the same, from a workqueue */
	PS_PUT_ASYNC,	/* the same with put_async, under the mmap_lock */
};

struct mm_test_pin_step {
	enum mm_test_pin_step_kind kind;
	struct mm_test_op op;
	unsigned int slot;
	unsigned int first;	/* pages: from the window's start, or of the slot */
	unsigned int n;		/* pages */
	int ret;		/* what the step must return */
};

#define POP(o)			{ .kind = PS_OP, .op = o }
#define GET(s, f, np)		{ .kind = PS_GET, .slot = s, .first = f, .n = np, \
				  .ret = np }
#define GET_ERR(s, f, np, e)	{ .kind = PS_GET, .slot = s, .first = f, .n = np, \
				  .ret = e }
#define PUT(s, f, np)		{ .kind = PS_PUT, .slot = s, .first = f, .n = np }
#define PUT_EACH(s)		{ .kind = PS_PUT_EACH, .slot = s }
#define PUT_WQ(s)		{ .kind = PS_PUT_WQ, .slot = s }
#define PUT_ASYNC(s)		{ .kind = PS_PUT_ASYNC, .slot = s }

#define PT_NO_MEMLOCK	(-1)

struct mm_test_pin_case {
	const char *name;
	struct mm_test_pin_step steps[4];
	const char *pages;	/* the window afterwards */
	unsigned long pinned;	/* pinned_vm afterwards */
	unsigned long locked;	/* locked_vm afterwards */
	const char *released;	/* the window once every page is put */
	int rvmas;		/* and its map_count */
	long limit;		/* RLIMIT_MEMLOCK in pages, PT_NO_MEMLOCK
				 * for 0, without CAP_IPC_LOCK...
				 */
	bool cap;		/* ...unless this keeps it */
};

struct mm_test_pin_mapping {
	const char *name;
	enum mm_test_map_kind kind;
	int pristine;		/* pages 6.1's get pins, or -errno */
	int patched;		/* and with the series */
	char marked;		/* the vmas: 'P' VM_PINNED, '.' not */
	unsigned long charged;	/* pinned_vm, in pages, while pinned */
};

static inline long mm_test_pin_get(const struct mm_test_pinner *p,
				   struct mm_test_pin_slot *slot,
				   unsigned long addr, unsigned int npages)
{
	long ret;

	if (slot->pin)
		return -EBUSY;
	ret = p->get(slot, addr, npages);
	if (ret > 0) {
		slot->npages = ret;
		bitmap_set(slot->held, 0, ret);
	}
	return ret;
}

static inline long mm_test_pin_put(const struct mm_test_pinner *p,
				   struct mm_test_pin_slot *slot,
				   unsigned int first, unsigned int n, bool async)
{
	if (!slot->pin || first + n > slot->npages ||
	    find_next_zero_bit(slot->held, first + n, first) < first + n)
		return -EINVAL;
	bitmap_clear(slot->held, first, n);
	(async ? p->put_async : p->put)(slot, first, n);
	/* the last put released the pin */
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		slot->pin = NULL;
	return 0;
}

/* Put what is left of the slot, a page at a time. */
static inline void mm_test_pin_put_each(const struct mm_test_pinner *p,
					struct mm_test_pin_slot *slot, bool async)
{
	unsigned int i;

	for_each_set_bit(i, slot->held, MM_TEST_PAGES)
		mm_test_pin_put(p, slot, i, 1, async);
}

struct mm_test_pin_work {
	struct work_struct work;
	const struct mm_test_pinner *p;
	struct mm_test_pin_slot *slot;
};

static inline void mm_test_pin_put_fn(struct work_struct *work)
{
	struct mm_test_pin_work *w = container_of(work, struct mm_test_pin_work, work);

	mm_test_pin_put_each(w->p, w->slot, false);
}

static inline void mm_test_pin_put_wq(const struct mm_test_pinner *p,
				      struct mm_test_pin_slot *slot)
{
	struct mm_test_pin_work w = { .p = p, .slot = slot };

	INIT_WORK_ONSTACK(&w.work, mm_test_pin_put_fn);
	schedule_work(&w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
}

/*
 * put_async under the mmap_lock, as an MMU notifier calls it in munmap;
 * then wait for the pins' workqueue, so the row sees what it left.
 */
static inline long mm_test_pin_put_async(struct kunit *test,
					 const struct mm_test_pinner *p,
					 struct mm_test_pin_slot *slot)
{
	struct mm_struct *mm = mm_test(test)->mm;

	if (!p->put_async)
		return -EOPNOTSUPP;
	mmap_write_lock(mm);
	mm_test_pin_put_each(p, slot, true);
	mmap_write_unlock(mm);
	mm_test_flush_pins();
	return 0;
}

static inline long mm_test_pin_step(struct kunit *test,
				    const struct mm_test_pinner *p,
				    const struct mm_test_pin_step *s,
				    struct mm_test_pin_slot *slots,
				    unsigned long base)
{
	struct mm_test_pin_slot *slot = &slots[s->slot];

	switch (s->kind) {
	case PS_OP:
		return mm_test_do_op(test, &s->op, base);
	case PS_GET:
		return mm_test_pin_get(p, slot, base + s->first * PAGE_SIZE, s->n);
	case PS_PUT:
		return mm_test_pin_put(p, slot, s->first, s->n, false);
	case PS_PUT_EACH:
		mm_test_pin_put_each(p, slot, false);
		return 0;
	case PS_PUT_WQ:
		mm_test_pin_put_wq(p, slot);
		return 0;
	case PS_PUT_ASYNC:
		return mm_test_pin_put_async(test, p, slot);
	default:
		return 0;
	}
}

/*
 * What a pristine path that is one call of pin_user_pages() with
 * @gup_flags returns for the range, measured: the pages pinned, -ENOMEM
 * if fewer than asked (AF_XDP's, VDUSE's and vhost-vdpa's paths after
 * their limit checks), or GUP's -errno.  Nothing stays pinned.
 */
static inline long mm_test_pin_pristine_once(unsigned long addr,
					     unsigned long npages,
					     unsigned int gup_flags)
{
	struct mm_struct *mm = current->mm;
	struct page **pages;
	long got;

	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	mmap_read_lock(mm);
	got = pin_user_pages(addr, npages, gup_flags, pages, NULL);
	mmap_read_unlock(mm);
	if (got > 0)
		unpin_user_pages(pages, got);
	kfree(pages);
	return got >= 0 && got != npages ? -ENOMEM : got;
}

/*
 * What a pristine path that is a loop of pin_user_pages() with @gup_flags
 * until the range is pinned returns for it, measured: the pages pinned, or
 * the first -errno (siw's and usnic's paths after their limit checks).
 * Nothing stays pinned.
 */
static inline long mm_test_pin_pristine_loop(unsigned long addr,
					     unsigned long npages,
					     unsigned int gup_flags)
{
	struct mm_struct *mm = current->mm;
	struct page **pages;
	long got = 0, ret = 0;

	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	mmap_read_lock(mm);
	while (got < npages) {
		ret = pin_user_pages(addr + got * PAGE_SIZE, npages - got,
				     gup_flags, pages + got, NULL);
		if (ret < 0)
			break;
		got += ret;
	}
	mmap_read_unlock(mm);
	unpin_user_pages(pages, got);
	kfree(pages);
	return ret < 0 ? ret : got;
}

static inline void mm_test_pinner_sequence(struct kunit *test,
					   const struct mm_test_pinner *p)
{
	const struct mm_test_pin_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_test_pin_slot *slots;
	unsigned long base;
	int i;

	slots = kunit_kcalloc(test, MM_TEST_PIN_SLOTS, sizeof(*slots), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slots);
	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->limit)
		mm_test_limit(test, c->limit > 0 ? c->limit : 0, c->cap);
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].kind; i++) {
		const struct mm_test_pin_step *s = &c->steps[i];

		KUNIT_EXPECT_EQ_MSG(test, mm_test_pin_step(test, p, s, slots, base),
				    (long)(s->kind == PS_OP ? s->op.ret : s->ret),
				    "step %d", i + 1);
	}
	mm_test_unlimit(test);

	MM_TEST_EXPECT_PAGES(test, base, c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	for (i = 0; i < MM_TEST_PIN_SLOTS; i++)
		mm_test_pin_put_each(p, &slots[i], false);
	MM_TEST_EXPECT_RELEASED(test, base, c->released, c->rvmas);
}

static inline void mm_test_pinner_mapping(struct kunit *test,
					  const struct mm_test_pinner *p,
					  const char *driver)
{
	const struct mm_test_pin_mapping *m = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long len = MM_TEST_PAGES * PAGE_SIZE;
	struct mm_test_drv drv = { .pages = NULL };
	struct mm_test_pin_slot slot = { .pin = NULL };
	long addr, pristine, ret;
	struct file *file;
	int marked;

	addr = mm_test_map_kind(m->kind, &drv, &file);
	KUNIT_ASSERT_GE_MSG(test, addr, 0L, "mapping the row's memory");

	pristine = p->pristine(addr, MM_TEST_PAGES);
	KUNIT_EXPECT_EQ_MSG(test, pristine, (long)m->pristine,
			    "the pristine path (its GUP call)");
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);

	ret = mm_test_pin_get(p, &slot, addr, MM_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, ret, (long)m->patched);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)m->charged);
	/* 1: every vma of the range marked, 2: none, 3: some */
	marked = mm_test_marked(mm, addr, len);
	KUNIT_EXPECT_EQ_MSG(test, marked, m->marked == 'P' ? 1 : 2,
			    "VM_PINNED on the vmas of the range");
	kunit_info(test, "%s %s: pristine %ld, patched %ld, %s, %lld pages charged\n",
		   driver, m->name, pristine, ret, marked == 1 ? "pn" : "not pn",
		   (long long)atomic64_read(&mm->pinned_vm));
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);

	mm_test_pin_put_each(p, &slot, false);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mm_test_expect_consistent(test, mm);
	mm_test_unmap_kind(m->kind, addr, &drv, file);
}

/*
 * The owner exits with the pages pinned, as a process killed before it
 * closed the driver's file; the file's release then puts them from another
 * task: the charge stays until then, and the release takes it back without
 * the owner's mm (mm_count comes back to this case's).
 */
static inline void mm_test_pinner_owner_exits(struct kunit *test,
					      const struct mm_test_pinner *p)
{
	struct mm_struct *mm = mm_test(test)->mm, *other;
	struct mm_test_pin_slot slot = { .pin = NULL };
	unsigned long addr;
	long ret;

	other = mm_test_new_mm();
	KUNIT_ASSERT_NOT_NULL(test, other);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(NULL, 0, MM_TEST_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, 0);
	ret = IS_ERR_VALUE(addr) ? (long)addr :
	      mm_test_pin_get(p, &slot, addr, MM_TEST_PAGES);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	KUNIT_EXPECT_EQ(test, ret, (long)MM_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);

	mmgrab(other);			/* to look at it once it is gone */
	mmput(other);			/* the owner exits */
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm),
			slot.pin ? (s64)MM_TEST_PAGES : 0LL);
	mm_test_pin_put_wq(p, &slot);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	mm_test_drop_lazy(mm);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&other->mm_count), 1,
			    "mm_count once released: this case's alone");
	mmdrop(other);
}

#endif /* _MM_TEST_PINNER_H */
