/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the charge of vfio type1's DMA mappings (vfio_type1_map,
 * vfio_type1_external and vfio_type1_owner suites).
 *
 * A DMA mapping (struct vfio_dma) charges the pages it pins to the mm of
 * the task that made it, through a pin of its own (mm_mpin_empty(), whose
 * charge vfio_lock_acct() moves with mm_mpin_account()):
 * - VFIO_IOMMU_MAP_DMA on a container with an IOMMU domain pins the range
 *   chunk by chunk, vfio_pin_pages_remote() charging each chunk, and the
 *   unmap gives the pages back with vfio_unpin_pages_remote();
 * - without an IOMMU domain, a mediated device's driver pins pages of the
 *   mapping one at a time, from its own context, through
 *   vfio_pin_page_external(), limited by the limit and the capability of
 *   the task that made the mapping; vfio_unpin_page_external() releases;
 * - VFIO_DMA_MAP_FLAG_VADDR from another process (after exec, say) moves
 *   the charge to the new mm: vfio_change_dma_owner().
 * 6.1 charged the same pages to locked_vm with __account_locked_vm(), and
 * from another task only while the owner's mm was alive.
 *
 * Included at the end of drivers/vfio/vfio_iommu_type1.c.  No container,
 * IOMMU or device: each case makes a struct vfio_dma by hand as
 * vfio_dma_do_map() does, over a populated window of MM_TEST_PAGES
 * anonymous pages of a private mm of the test kthread (the fixture of
 * mm/mm_test_util.h), and calls the functions above, which are all of
 * vfio type1's pinning and accounting; what it leaves out is the IOMMU's
 * page tables.  The runners and the pictures of the window are
 * mm/mm_test_pinner.h's: the charge marks no vma, so the pictures show
 * '.' for pinned pages.
 */

#ifdef CONFIG_VFIO_IOMMU_TYPE1_KUNIT_TEST

#ifndef _VFIO_IOMMU_TYPE1_TEST_H
#define _VFIO_IOMMU_TYPE1_TEST_H

#include <kunit/test.h>
#include "../../mm/mm_test_pinner.h"

#define VFIO_TEST_IOVA	0x100000

/* A mapping of the range as vfio_dma_do_map() makes it, charging nothing. */
static struct vfio_dma *vfio_test_dma(unsigned long addr, unsigned int npages)
{
	struct vfio_dma *dma;

	dma = kzalloc(sizeof(*dma), GFP_KERNEL);
	if (!dma)
		return NULL;
	dma->pin = mm_mpin_empty(current->mm);
	if (IS_ERR(dma->pin)) {
		kfree(dma);
		return NULL;
	}
	dma->iova = VFIO_TEST_IOVA;
	dma->vaddr = addr;
	dma->size = (size_t)npages << PAGE_SHIFT;
	dma->prot = IOMMU_READ | IOMMU_WRITE;
	dma->task = get_task_struct(current->group_leader);
	dma->lock_cap = capable(CAP_IPC_LOCK);
	dma->mm = current->mm;
	mmgrab(dma->mm);
	dma->pfn_list = RB_ROOT;
	return dma;
}

/* What vfio_remove_dma() does once the pages are unpinned. */
static void vfio_test_free_dma(struct vfio_dma *dma)
{
	WARN_ON(dma->locked_vm);
	mm_munpin(dma->pin);
	put_task_struct(dma->task);
	mmdrop(dma->mm);
	kfree(dma);
}

static void vfio_test_unpin_remote(struct mm_test_pin_slot *slot,
				   unsigned int first, unsigned int n)
{
	struct vfio_dma *dma = slot->pin;
	unsigned int i;

	for (i = first; i < first + n; i++)
		vfio_unpin_pages_remote(dma, dma->iova + i * PAGE_SIZE,
					page_to_pfn(slot->pages[i]), 1, true);
}

/*
 * VFIO_IOMMU_MAP_DMA with an IOMMU domain: vfio_pin_map_dma()'s loop, a
 * contiguous chunk at a time, without the IOMMU's vfio_iommu_map().  On
 * error it gives back what it pinned, as vfio_remove_dma() does.
 */
static long vfio_test_map_get(struct mm_test_pin_slot *slot,
			      unsigned long addr, unsigned int npages)
{
	unsigned long pfn, limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct vfio_batch batch;
	struct vfio_dma *dma;
	unsigned int done = 0;
	long got = 0, i;

	dma = vfio_test_dma(addr, npages);
	if (!dma)
		return -ENOMEM;
	slot->pin = dma;
	vfio_batch_init(&batch);
	while (done < npages) {
		got = vfio_pin_pages_remote(dma, addr + done * PAGE_SIZE,
					    npages - done, &pfn, limit, &batch);
		if (got <= 0)
			break;
		for (i = 0; i < got; i++)
			slot->pages[done + i] = pfn_to_page(pfn + i);
		done += got;
	}
	vfio_batch_fini(&batch);
	if (got <= 0) {
		vfio_test_unpin_remote(slot, 0, done);
		vfio_test_free_dma(dma);
		slot->pin = NULL;
		return got ? got : -EFAULT;
	}
	return npages;
}

/* The unmap, in the parts the runner asks for; the last frees the mapping. */
static void vfio_test_map_put(struct mm_test_pin_slot *slot, unsigned int first,
			      unsigned int n)
{
	vfio_test_unpin_remote(slot, first, n);
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		vfio_test_free_dma(slot->pin);
}

static const struct mm_test_pinner vfio_test_map_pinner = {
	.get = vfio_test_map_get,
	.put = vfio_test_map_put,
};

/*
 * The external pins of a mediated device's driver, made from a workqueue
 * as from the driver's own context: its limit and capability (a kworker
 * has CAP_IPC_LOCK) must not be the ones that count.
 */
struct vfio_test_ext_work {
	struct work_struct work;
	struct mm_test_pin_slot *slot;
	unsigned int npages;
	long ret;
};

static void vfio_test_ext_pin_fn(struct work_struct *work)
{
	struct vfio_test_ext_work *w = container_of(work, struct vfio_test_ext_work,
						    work);
	struct vfio_dma *dma = w->slot->pin;
	unsigned long pfn;
	unsigned int i;

	for (i = 0; i < w->npages; i++) {
		w->ret = vfio_pin_page_external(dma, dma->vaddr + i * PAGE_SIZE,
						&pfn, true);
		if (w->ret)
			break;
		w->ret = vfio_add_to_pfn_list(dma, dma->iova + i * PAGE_SIZE, pfn);
		if (w->ret) {
			if (put_pfn(pfn, dma->prot))
				vfio_lock_acct(dma, -1);
			break;
		}
		w->slot->pages[i] = pfn_to_page(pfn);
	}
	/* what vfio_iommu_type1_pin_pages() unwinds on error */
	while (w->ret && i--)
		vfio_unpin_page_external(dma, dma->iova + i * PAGE_SIZE, true);
}

static long vfio_test_ext_get(struct mm_test_pin_slot *slot,
			      unsigned long addr, unsigned int npages)
{
	struct vfio_test_ext_work w = { .slot = slot, .npages = npages };

	slot->pin = vfio_test_dma(addr, npages);
	if (!slot->pin)
		return -ENOMEM;
	INIT_WORK_ONSTACK(&w.work, vfio_test_ext_pin_fn);
	schedule_work(&w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	if (w.ret) {
		vfio_test_free_dma(slot->pin);
		slot->pin = NULL;
		return w.ret;
	}
	return npages;
}

static void vfio_test_ext_put(struct mm_test_pin_slot *slot, unsigned int first,
			      unsigned int n)
{
	struct vfio_dma *dma = slot->pin;
	unsigned int i;

	for (i = first; i < first + n; i++)
		vfio_unpin_page_external(dma, dma->iova + i * PAGE_SIZE, true);
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		vfio_test_free_dma(dma);
}

static const struct mm_test_pinner vfio_test_ext_pinner = {
	.get = vfio_test_ext_get,
	.put = vfio_test_ext_put,
};

static void vfio_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

static const struct mm_test_pin_case vfio_type1_map_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "map", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1 },
	{ "map_part", { GET(0, 2, 4) },
	  "........", 4, 0, "........", 1 },
	{ "unmap", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* vfio_unmap_unpin() gives the pages back a run at a time */
	{ "unmap_first_half", { GET(0, 0, 8), PUT(0, 0, 4) },
	  "........", 4, 0, "........", 1 },
	{ "unmap_page_by_page", { GET(0, 0, 8), PUT_EACH(0) },
	  "........", 0, 0, "........", 1 },
	/* the container's release by another task: no mmap_lock needed */
	{ "unmap_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "two_mappings", { GET(0, 0, 4), GET(1, 4, 4) },
	  "........", 8, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	/*
	 * Charged twice, as 6.1 did (there locked_vm 16): the mapping's
	 * charge counts pages, not a range the mlock accounting could see.
	 */
	{ "locked_then_mapped", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "LLLLLLLL", 8, 8, "LLLLLLLL", 1, 16 },
	{ "limit_within", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	/* 6.1's early check read locked_vm alone */
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLL....", 4, 4, "LLLL....", 2, 8 },
	{ "limit_shared_with_another_mapping", { GET(0, 0, 4),
	  GET_ERR(1, 4, 4, -ENOMEM) },
	  "........", 4, 0, "........", 1, 7 },
	{ "mlock_after_map_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "........", 4, 0, "........", 1, 6 },
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1, 4, true },
	/* vfio's errno, as in 6.1: a limit of 0 is over it */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

KUNIT_ARRAY_PARAM(vfio_type1_map, vfio_type1_map_cases, vfio_test_case_desc);

static void vfio_type1_map_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &vfio_test_map_pinner);
}

/* the container's release after the owner exited */
static void vfio_type1_map_unmapped_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &vfio_test_map_pinner);
}

static struct kunit_case vfio_type1_map_test_cases[] = {
	KUNIT_CASE_PARAM(vfio_type1_map_sequence, vfio_type1_map_gen_params),
	KUNIT_CASE(vfio_type1_map_unmapped_after_owner_exit),
	{}
};

static struct kunit_suite vfio_type1_map_test_suite = {
	.name = "vfio_type1_map",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = vfio_type1_map_test_cases,
};

static const struct mm_test_pin_case vfio_type1_external_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "pin", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1 },
	{ "unpin_one", { GET(0, 0, 8), PUT(0, 3, 1) },
	  "........", 7, 0, "........", 1 },
	{ "unpin_each", { GET(0, 0, 8), PUT_EACH(0) },
	  "........", 0, 0, "........", 1 },
	{ "unpin_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "locked_then_pinned", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "LLLLLLLL", 8, 8, "LLLLLLLL", 1, 16 },
	/*
	 * The limit and the capability of the task that made the mapping,
	 * though the pins come from a kworker, which has CAP_IPC_LOCK
	 */
	{ "limit_within", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "mlock_after_pin_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "........", 4, 0, "........", 1, 6 },
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1, 4, true },
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

KUNIT_ARRAY_PARAM(vfio_type1_external, vfio_type1_external_cases,
		  vfio_test_case_desc);

static void vfio_type1_external_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &vfio_test_ext_pinner);
}

/* 6.1 gave nothing back once the owner's mm had no users (-ESRCH) */
static void vfio_type1_external_unpinned_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &vfio_test_ext_pinner);
}

static struct kunit_case vfio_type1_external_test_cases[] = {
	KUNIT_CASE_PARAM(vfio_type1_external_sequence,
			 vfio_type1_external_gen_params),
	KUNIT_CASE(vfio_type1_external_unpinned_after_owner_exit),
	{}
};

static struct kunit_suite vfio_type1_external_test_suite = {
	.name = "vfio_type1_external",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = vfio_type1_external_test_cases,
};

/*
 * vfio_change_dma_owner(): VFIO_DMA_MAP_FLAG_VADDR from a task of another
 * mm.  A mapping of the window charges its 8 pages to the case's mm; the
 * new owner is a second mm, with its own locked pages, limit and
 * capability.
 */
struct vfio_test_owner_case {
	const char *name;
	bool same_mm;		/* the new owner is the mapping's own mm */
	bool old_exited;	/* the old owner exited first */
	unsigned int locked;	/* pages the new owner has locked */
	long limit;		/* the new owner's RLIMIT_MEMLOCK, pages... */
	bool cap;		/* ...unless it has CAP_IPC_LOCK */
	int ret;		/* vfio_change_dma_owner() */
	s64 old_pinned;		/* pinned_vm of the old mm afterwards */
	s64 new_pinned;		/* and of the new one */
};

static const struct vfio_test_owner_case vfio_type1_owner_cases[] = {
	/* name			same  exited locked limit cap  ret   old new */
	{ "moves_the_charge",	false, false, 0, 0,  false, 0,       0, 8 },
	{ "same_mm_unchanged",	true,  false, 0, 0,  false, 0,       8, 8 },
	{ "old_owner_exited",	false, true,  0, 0,  false, 0,       0, 8 },
	{ "new_owner_within",	false, false, 0, 8,  false, 0,       0, 8 },
	{ "new_owner_over",	false, false, 0, 7,  false, -ENOMEM, 8, 0 },
	{ "new_owner_mlock_over", false, false, 2, 9, false, -ENOMEM, 8, 0 },
	{ "new_owner_mlock_within", false, false, 2, 10, false, 0,   0, 8 },
	{ "new_owner_cap_ipc_lock", false, false, 0, 4, true, 0,     0, 8 },
};

static void vfio_test_owner_desc(const struct vfio_test_owner_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(vfio_type1_owner, vfio_type1_owner_cases, vfio_test_owner_desc);

static void vfio_type1_owner_change(struct kunit *test)
{
	const struct vfio_test_owner_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm, *other;
	struct mm_test_pin_slot slot = { .pin = NULL };
	unsigned long base, addr = 0;
	struct vfio_dma *dma;
	long ret;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	KUNIT_ASSERT_EQ(test, mm_test_pin_get(&vfio_test_map_pinner, &slot, base,
					      MM_TEST_PAGES), (long)MM_TEST_PAGES);
	dma = slot.pin;
	KUNIT_ASSERT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)MM_TEST_PAGES);

	other = c->same_mm ? mm : mm_test_new_mm();
	KUNIT_ASSERT_NOT_NULL(test, other);
	mmgrab(mm);			/* to look at it if it exits */
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	if (c->locked) {
		addr = vm_mmap(NULL, 0, c->locked * PAGE_SIZE, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, 0);
		KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(addr));
	}
	if (c->old_exited)
		mmput(mm);
	if (c->limit)
		mm_test_limit(test, c->limit, c->cap);
	ret = vfio_change_dma_owner(dma);
	mm_test_unlimit(test);
	KUNIT_EXPECT_EQ(test, ret, (long)c->ret);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), c->old_pinned);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), c->new_pinned);
	KUNIT_EXPECT_PTR_EQ(test, dma->mm, c->ret ? mm : other);
	KUNIT_EXPECT_EQ(test, (long)dma->locked_vm, (long)MM_TEST_PAGES);
	mm_test_expect_counters(test, other);

	/* the unmap, after which neither mm is charged */
	mm_test_pin_put_each(&vfio_test_map_pinner, &slot, false);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	if (c->locked)
		vm_munmap(addr, c->locked * PAGE_SIZE);
	kthread_unuse_mm(other);
	if (c->old_exited) {
		/* the fixture's mm is gone: the case goes on in the other */
		mm_test(test)->mm = other;
		kthread_use_mm(other);
		mm_test_drop_lazy(other);
		KUNIT_EXPECT_EQ(test, atomic_read(&mm->mm_count), 1);
		mmdrop(mm);
		return;
	}
	kthread_use_mm(mm);
	mmdrop(mm);
	if (other != mm)
		mmput(other);
}

static struct kunit_case vfio_type1_owner_test_cases[] = {
	KUNIT_CASE_PARAM(vfio_type1_owner_change, vfio_type1_owner_gen_params),
	{}
};

static struct kunit_suite vfio_type1_owner_test_suite = {
	.name = "vfio_type1_owner",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = vfio_type1_owner_test_cases,
};

kunit_test_suites(&vfio_type1_map_test_suite, &vfio_type1_external_test_suite,
		  &vfio_type1_owner_test_suite);

#endif /* _VFIO_IOMMU_TYPE1_TEST_H */

#endif /* CONFIG_VFIO_IOMMU_TYPE1_KUNIT_TEST */
