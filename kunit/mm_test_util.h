/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mm accounting KUnit suites: a private mm for the
 * test kthread, a picture of the VMAs page by page, and the accounting
 * counters recomputed from the VMAs and checked by mm_check_locked_pages().
 *
 * The suites are built in and included at the end of the file they test,
 * so they may call its static functions (see mm/damon/vaddr-test.h).
 */

#ifndef _MM_TEST_UTIL_H
#define _MM_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>

/* Pages in the window each case maps and inspects. */
#define MM_TEST_PAGES	8

/**
 * mm_test_attach_mm() - give the test kthread an empty mm of its own
 * @test: the test case; test->priv records the mm for mm_test_detach_mm()
 *
 * What newer kernels' kunit_attach_mm() does: a fresh mm with the arch's
 * mmap layout, used by the kthread so that vm_mmap() and the mlock system
 * calls act on it as they would on a process's own mm.
 *
 * Return: 0 or -errno.
 */
static inline int mm_test_attach_mm(struct kunit *test)
{
	struct mm_struct *mm;

	if (current->mm)
		return -EBUSY;
	mm = mm_alloc();
	if (!mm)
		return -ENOMEM;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	kthread_use_mm(mm);
	test->priv = mm;
	return 0;
}

/**
 * mm_test_detach_mm() - drop the mm of mm_test_attach_mm()
 * @test: the test case
 *
 * Does nothing unless called by the kthread that uses the mm: when a case
 * aborts, its kthread exits (and releases the mm) and .exit runs in another
 * task.
 */
static inline void mm_test_detach_mm(struct kunit *test)
{
	struct mm_struct *mm = test->priv;

	if (!mm || current->mm != mm)
		return;
	kthread_unuse_mm(mm);
	mmput(mm);
	test->priv = NULL;
}

/**
 * mm_test_map() - map anonymous private memory in the test's mm
 * @test: the test case
 * @npages: size in pages
 * @flags: extra MAP_* flags (MAP_POPULATE, MAP_LOCKED, ...)
 *
 * Return: the start address; the case fails here if the mapping fails.
 */
static inline unsigned long mm_test_map(struct kunit *test,
					unsigned long npages,
					unsigned long flags)
{
	unsigned long addr;

	addr = vm_mmap(NULL, 0, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "vm_mmap: %ld",
			       (long)addr);
	return addr;
}

/**
 * mm_test_pages() - describe @npages pages from @start, one letter a page
 * @mm: the mm to look at
 * @start: page-aligned address
 * @npages: pages to describe, at most MM_TEST_PAGES
 * @buf: MM_TEST_PAGES + 1 bytes
 *
 * '-' not mapped, '.' mapped, 'L' VM_LOCKED, 'F' VM_LOCKED|VM_LOCKONFAULT;
 * pinned (VM_PINNED): 'P' alone, 'B' with VM_LOCKED, 'O' with
 * VM_LOCKED|VM_LOCKONFAULT.
 *
 * Return: @buf.
 */
static inline const char *mm_test_pages(struct mm_struct *mm,
					unsigned long start,
					unsigned long npages, char *buf)
{
	unsigned long i;

	mmap_read_lock(mm);
	for (i = 0; i < npages && i < MM_TEST_PAGES; i++) {
		unsigned long addr = start + i * PAGE_SIZE;
		struct vm_area_struct *vma = vma_lookup(mm, addr);
		bool pinned = vma && (vma->vm_flags & VM_PINNED);
		char c = '-';

		if (vma && (vma->vm_flags & VM_LOCKONFAULT))
			c = pinned ? 'O' : 'F';
		else if (vma && (vma->vm_flags & VM_LOCKED))
			c = pinned ? 'B' : 'L';
		else if (vma)
			c = pinned ? 'P' : '.';
		buf[i] = c;
	}
	buf[i] = '\0';
	mmap_read_unlock(mm);
	return buf;
}

/**
 * mm_test_expect_counters() - compare an mm's counters with its VMAs
 * @test: the test case
 * @mm: the mm to check
 *
 * locked_vm must equal the pages of the VMAs that are VM_LOCKED and not
 * VM_PINNED (a pinned page is charged to its pin), total_vm the pages of
 * all VMAs, and map_count the number of VMAs.  Where no one but mm charged
 * the counters (no raw pinned_vm or account_locked_vm() charge is
 * outstanding), mm_check_locked_pages() must agree as well.
 */
static inline void mm_test_expect_counters(struct kunit *test,
					   struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	unsigned long locked = 0, total = 0, count = 0;
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		count++;
		total += vma_pages(vma);
		if ((vma->vm_flags & (VM_LOCKED | VM_PINNED)) == VM_LOCKED)
			locked += vma_pages(vma);
	}
	KUNIT_EXPECT_EQ_MSG(test, mm->locked_vm, locked,
			    "locked_vm against the VM_LOCKED, !VM_PINNED vmas");
	KUNIT_EXPECT_EQ_MSG(test, mm->total_vm, total,
			    "total_vm against the vmas");
	KUNIT_EXPECT_EQ_MSG(test, (unsigned long)mm->map_count, count,
			    "map_count against the vmas");
	mmap_read_unlock(mm);
}

/**
 * mm_test_expect_consistent() - mm_check_locked_pages() must find no fault
 * @test: the test case
 * @mm: the mm, with no charge outstanding but mm's own
 *
 * The kernel's own check, under CONFIG_DEBUG_VM: pinned_vm against the pins
 * held, locked_vm against the vmas, VM_PINNED against the attached pins.
 */
static inline void mm_test_expect_consistent(struct kunit *test,
					     struct mm_struct *mm)
{
	int ret;

	mmap_read_lock(mm);
	ret = mm_check_locked_pages(mm);
	mmap_read_unlock(mm);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "mm_check_locked_pages(), see the console");
}

/**
 * mm_test_release() - release the pins a case still holds
 * @pins: the case's pin slots; each held one is released and cleared
 * @n: how many slots
 *
 * Works in any task: .exit calls it for a case that aborted.
 */
static inline void mm_test_release(struct mm_pin **pins, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		if (pins[i])
			mm_munpin(pins[i]);
		pins[i] = NULL;
	}
}

/**
 * mm_test_expect_exact() - the counters exact, and again once unpinned
 * @test: the test case
 * @mm: the mm, with no charge outstanding but mm's own and @pins
 * @pins: the case's pin slots, released here
 * @n: how many slots
 */
static inline void mm_test_expect_exact(struct kunit *test,
					struct mm_struct *mm,
					struct mm_pin **pins, int n)
{
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	mm_test_release(pins, n);
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&mm->pinned_vm), 0LL,
			    "pinned_vm once every pin is released");
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
}

#endif /* _MM_TEST_UTIL_H */
