/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of ib_umem (ib_umem suite): ib_umem_get() and
 * ib_umem_release(), the functions every RDMA driver that registers user
 * memory calls (rxe among them), and what they do to VM_PINNED,
 * pinned_vm and locked_vm.
 *
 * Included at the end of drivers/infiniband/core/umem.c.  The device is
 * a bare struct ib_device without a dma_device, so the umem is mapped
 * with virtual DMA, as rxe's are.  Each case maps a populated
 * window of MM_TEST_PAGES anonymous pages in a private mm of the test
 * kthread (the fixture of mm/mm_test_util.h).
 *
 * The tables:
 * - ib_umem_cases (run by ib_umem_sequence): register and deregister,
 *   from a workqueue too, after munmap, after munmap and a new mapping at
 *   the same addresses, two registrations of one range, locked memory,
 *   RLIMIT_MEMLOCK shared with mlock, with and without CAP_IPC_LOCK;
 * - ib_umem_mappings (run by ib_umem_mapping): one row per kind of
 *   mapping, with what the pristine ib_umem_get() does with it, measured
 *   on the spot: its path after the limit check is pin_user_pages_fast()
 *   with the same flags, which the series does not change.  A
 *   registration that works there must work here, charged the same.
 * After every row the counters must equal what the vmas and the pins say
 * (mm_check_locked_pages()); then every umem is released, pinned_vm must
 * be 0 and the window as the row says.
 *
 * Pictures of the window, a letter a page: '-' not mapped, '.' mapped,
 * 'L' locked, 'P' pinned, 'B' pinned and locked.
 */

#ifdef CONFIG_IB_UMEM_KUNIT_TEST

#ifndef _UMEM_TEST_H
#define _UMEM_TEST_H

#include <kunit/test.h>
#include "../../../mm/mm_test_mappings.h"

/* No dma_device: ib_uses_virt_dma(), as for rxe. */
static struct ib_device ib_umem_test_dev;

#define IB_UMEM_SLOTS	2
#define RW		IB_ACCESS_LOCAL_WRITE

enum ib_umem_step_kind {
	UM_NONE,
	UM_OP,		/* .op, of the shared vocabulary */
	UM_REG,		/* umem[.slot] = ib_umem_get(base + .first, .len) */
	UM_DEREG,	/* ib_umem_release(umem[.slot]) */
	UM_DEREG_WQ,	/* the same, from a workqueue */
};

struct ib_umem_step {
	enum ib_umem_step_kind kind;
	struct mm_test_op op;
	unsigned int slot;
	unsigned long first;	/* bytes from the window's start */
	unsigned long len;	/* bytes */
	int ret;		/* what the step must return */
};

#define UOP(o)			{ .kind = UM_OP, .op = o }
#define REG(s, f, np)		{ .kind = UM_REG, .slot = s, \
				  .first = (f) * PAGE_SIZE, .len = (np) * PAGE_SIZE }
#define REG_ERR(s, f, np, e)	{ .kind = UM_REG, .slot = s, \
				  .first = (f) * PAGE_SIZE, .len = (np) * PAGE_SIZE, \
				  .ret = e }
#define REG_BYTES(s, off, l)	{ .kind = UM_REG, .slot = s, .first = off, .len = l }
#define DEREG(s)		{ .kind = UM_DEREG, .slot = s }
#define DEREG_WQ(s)		{ .kind = UM_DEREG_WQ, .slot = s }

#define UM_NO_MEMLOCK	(-1)

struct ib_umem_case {
	const char *name;
	struct ib_umem_step steps[4];
	const char *pages;	/* the window afterwards */
	unsigned long pinned;	/* pinned_vm afterwards */
	unsigned long locked;	/* locked_vm afterwards */
	const char *released;	/* the window once every umem is released */
	int rvmas;		/* and its map_count */
	long limit;		/* RLIMIT_MEMLOCK in pages, UM_NO_MEMLOCK
				 * for 0, without CAP_IPC_LOCK...
				 */
	bool cap;		/* ...unless this keeps it */
};

static const struct ib_umem_case ib_umem_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "register", { REG(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "register_part", { REG(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	/* 2 pages from byte 100: 3 pages, as pinned_vm was always charged */
	{ "register_unaligned", { REG_BYTES(0, 100, 2 * PAGE_SIZE) },
	  "PPP.....", 3, 0, "........", 1 },
	{ "deregister", { REG(0, 0, 8), DEREG(0) },
	  "........", 0, 0, "........", 1 },
	{ "deregister_in_workqueue", { REG(0, 0, 8), DEREG_WQ(0) },
	  "........", 0, 0, "........", 1 },
	/* the charge stays with the umem until it is released */
	{ "munmap_keeps_the_charge", { REG(0, 0, 8), UOP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_part_keeps_the_rest_pinned", { REG(0, 0, 8), UOP(OP(MUNMAP, 0, 2)) },
	  "--PPPPPP", 8, 0, "--......", 1 },
	/* a late release leaves the new mapping at the same place alone */
	{ "munmap_and_remap", { REG(0, 0, 8), UOP(OP(MUNMAP, 0, 8)),
	  UOP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	{ "munmap_remap_and_register", { REG(0, 0, 8), UOP(OP(MUNMAP, 0, 8)),
	  UOP(OP(MAP, 0, 8)), REG(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* each registration is charged: two of one range, twice */
	{ "two_registrations_one_range", { REG(0, 0, 8), REG(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	{ "two_registrations_release_outer", { REG(0, 0, 8), REG(1, 2, 4), DEREG(0) },
	  "..PPPP..", 4, 0, "........", 1 },
	/* a page locked and registered is charged once, to the umem */
	{ "locked_then_registered", { UOP(OP(MLOCK, 0, 8)), REG(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "limit_within", { REG(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { REG_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	/* mlock and the registrations share RLIMIT_MEMLOCK */
	{ "limit_shared_with_mlock_over", { UOP(OP(MLOCK, 0, 4)), REG_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { UOP(OP(MLOCK, 0, 4)), REG(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_register_over", { REG(0, 0, 4), UOP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	{ "cap_ipc_lock_over_limit", { REG(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	{ "no_memlock_refused", { REG_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, UM_NO_MEMLOCK },
};

static void ib_umem_case_desc(const struct ib_umem_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(ib_umem, ib_umem_cases, ib_umem_case_desc);

struct ib_umem_work {
	struct work_struct work;
	struct ib_umem *umem;
};

static void ib_umem_release_fn(struct work_struct *work)
{
	ib_umem_release(container_of(work, struct ib_umem_work, work)->umem);
}

static long ib_umem_test_reg(struct ib_umem **umem, unsigned long addr,
			     unsigned long len, int access)
{
	struct ib_umem *u = ib_umem_get(&ib_umem_test_dev, addr, len, access);

	if (IS_ERR(u))
		return PTR_ERR(u);
	*umem = u;
	return 0;
}

static long ib_umem_step(struct kunit *test, const struct ib_umem_step *s,
			 struct ib_umem **umems, unsigned long base)
{
	struct ib_umem_work w;

	switch (s->kind) {
	case UM_OP:
		return mm_test_do_op(test, &s->op, base);
	case UM_REG:
		if (umems[s->slot])
			return -EBUSY;
		return ib_umem_test_reg(&umems[s->slot], base + s->first, s->len, RW);
	case UM_DEREG:
		ib_umem_release(umems[s->slot]);
		umems[s->slot] = NULL;
		return 0;
	case UM_DEREG_WQ:
		w.umem = umems[s->slot];
		umems[s->slot] = NULL;
		INIT_WORK_ONSTACK(&w.work, ib_umem_release_fn);
		schedule_work(&w.work);
		flush_work(&w.work);
		destroy_work_on_stack(&w.work);
		return 0;
	default:
		return 0;
	}
}

static void ib_umem_release_all(struct ib_umem **umems)
{
	int i;

	for (i = 0; i < IB_UMEM_SLOTS; i++) {
		ib_umem_release(umems[i]);
		umems[i] = NULL;
	}
}

static void ib_umem_sequence(struct kunit *test)
{
	const struct ib_umem_case *c = test->param_value;
	struct ib_umem *umems[IB_UMEM_SLOTS] = { NULL };
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long base;
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->limit)
		mm_test_limit(test, c->limit > 0 ? c->limit : 0, c->cap);
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].kind; i++) {
		const struct ib_umem_step *s = &c->steps[i];

		KUNIT_EXPECT_EQ_MSG(test, ib_umem_step(test, s, umems, base),
				    (long)(s->kind == UM_OP ? s->op.ret : s->ret),
				    "step %d", i + 1);
	}
	mm_test_unlimit(test);

	MM_TEST_EXPECT_PAGES(test, base, c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	ib_umem_release_all(umems);
	MM_TEST_EXPECT_RELEASED(test, base, c->released, c->rvmas);
}

/* --- The kinds of mappings: nothing that registered before may fail --- */

struct ib_umem_mapping {
	const char *name;
	enum mm_test_map_kind kind;
	int access;		/* IB_ACCESS_* of the registration */
	int pristine;		/* what 6.1's ib_umem_get() returns */
	int patched;		/* and with the series */
	char marked;		/* the vmas: 'P' VM_PINNED, '.' not */
	unsigned long charged;	/* pinned_vm, in pages, while registered */
};

static const struct ib_umem_mapping ib_umem_mappings[] = {
	/*
	 * name                 mapping            access  pristine  patched
	 *                                                   marked  charged
	 */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	RW,	0,	0,
								'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	RW,	0,	0,
								'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		RW,	0,	0,
								'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	RW,	0,	0,
								'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	RW,	0,	0,
								'P',	8 },
	{ "read_only",		MM_MAP_READ_ONLY,		0,	0,	0,
								'P',	8 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		RW,	0,	0,
								'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		RW,	0,	0,
								'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,		RW,	-EFAULT, -EFAULT,
								'.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		RW,	-EFAULT, -EFAULT,
								'.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	RW,	0,	0,
								'.',	8 },
	{ "hole",		MM_MAP_HOLE,		RW,	-EFAULT, -EFAULT,
								'.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,		RW,	0,	0,
								'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		RW,	0,	0,
								'.',	8 },
};

static void ib_umem_mapping_desc(const struct ib_umem_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(ib_umem_mapping, ib_umem_mappings, ib_umem_mapping_desc);

/*
 * What the pristine ib_umem_get() returns for the range, measured: after
 * its limit check (the case has no limit) it is pin_user_pages_fast() of
 * the range with the same flags, in chunks, which this kernel runs as 6.1
 * does (the series changes no GUP code).
 */
static long ib_umem_pristine(unsigned long addr, unsigned long npages, int access)
{
	unsigned int gup_flags = FOLL_WRITE | FOLL_LONGTERM;
	struct page **pages;
	long got = 0, ret = 0;

	if (!ib_access_writable(access))
		gup_flags |= FOLL_FORCE;
	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	while (got < npages) {
		ret = pin_user_pages_fast(addr + got * PAGE_SIZE, npages - got,
					  gup_flags, pages + got);
		if (ret <= 0)
			break;
		got += ret;
	}
	unpin_user_pages(pages, got);
	kfree(pages);
	return got == npages ? 0 : ret ? ret : -EFAULT;
}

static void ib_umem_mapping(struct kunit *test)
{
	const struct ib_umem_mapping *m = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long len = MM_TEST_PAGES * PAGE_SIZE;
	struct mm_test_drv drv = { .pages = NULL };
	struct ib_umem *umem = NULL;
	long addr, pristine, ret;
	struct file *file;
	int marked;

	addr = mm_test_map_kind(m->kind, &drv, &file);
	KUNIT_ASSERT_GE_MSG(test, addr, 0L, "mapping the row's memory");

	pristine = ib_umem_pristine(addr, MM_TEST_PAGES, m->access);
	KUNIT_EXPECT_EQ_MSG(test, pristine, (long)m->pristine,
			    "the pristine path (pin_user_pages_fast())");
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);

	ret = ib_umem_test_reg(&umem, addr, len, m->access);
	KUNIT_EXPECT_EQ(test, ret, (long)m->patched);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)m->charged);
	/* 1: every vma of the range marked, 2: none, 3: some */
	marked = mm_test_marked(mm, addr, len);
	KUNIT_EXPECT_EQ_MSG(test, marked, m->marked == 'P' ? 1 : 2,
			    "VM_PINNED on the vmas of the range");
	kunit_info(test, "ib_umem %s: pristine %ld, patched %ld, %s, %lld pages charged\n",
		   m->name, pristine, ret, marked == 1 ? "pn" : "not pn",
		   (long long)atomic64_read(&mm->pinned_vm));
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);

	ib_umem_release(umem);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mm_test_expect_consistent(test, mm);
	mm_test_unmap_kind(m->kind, addr, &drv, file);
}

/* --- Lifetime --- */

/*
 * The owner exits with the registration held, as a process killed before
 * it closed its uverbs file; the file's release then deregisters from
 * another task: the charge stays until then, and the release takes it
 * back without the owner's mm (mm_count comes back to this case's).
 */
static void ib_umem_released_after_owner_exit(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm, *other;
	struct ib_umem *umem = NULL;
	struct ib_umem_work w;
	unsigned long addr;
	long ret;

	other = mm_test_new_mm();
	KUNIT_ASSERT_NOT_NULL(test, other);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(NULL, 0, MM_TEST_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, 0);
	ret = IS_ERR_VALUE(addr) ? (long)addr :
	      ib_umem_test_reg(&umem, addr, MM_TEST_PAGES * PAGE_SIZE, RW);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	KUNIT_EXPECT_EQ(test, ret, 0L);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);

	mmgrab(other);			/* to look at it once it is gone */
	mmput(other);			/* the owner exits */
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm),
			umem ? (s64)MM_TEST_PAGES : 0LL);
	w.umem = umem;
	INIT_WORK_ONSTACK(&w.work, ib_umem_release_fn);
	schedule_work(&w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	mm_test_drop_lazy(mm);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&other->mm_count), 1,
			    "mm_count once released: this case's alone");
	mmdrop(other);
}

static struct kunit_case ib_umem_test_cases[] = {
	KUNIT_CASE_PARAM(ib_umem_sequence, ib_umem_gen_params),
	KUNIT_CASE_PARAM(ib_umem_mapping, ib_umem_mapping_gen_params),
	KUNIT_CASE(ib_umem_released_after_owner_exit),
	{}
};

static struct kunit_suite ib_umem_test_suite = {
	.name = "ib_umem",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = ib_umem_test_cases,
};

kunit_test_suite(ib_umem_test_suite);

#endif /* _UMEM_TEST_H */

#endif /* CONFIG_IB_UMEM_KUNIT_TEST */
