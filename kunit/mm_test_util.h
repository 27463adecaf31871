/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the mm accounting KUnit suites: a private mm for the
 * test kthread, a picture of the VMAs page by page, and the accounting
 * counters recomputed from the VMAs.
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
 * '-' not mapped, '.' mapped, 'L' VM_LOCKED, 'F' VM_LOCKED|VM_LOCKONFAULT.
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
		char c = '-';

		if (vma && (vma->vm_flags & VM_LOCKONFAULT))
			c = 'F';
		else if (vma && (vma->vm_flags & VM_LOCKED))
			c = 'L';
		else if (vma)
			c = '.';
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
 * locked_vm must equal the pages of the VM_LOCKED VMAs, total_vm the pages
 * of all VMAs, and map_count the number of VMAs.
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
		if (vma->vm_flags & VM_LOCKED)
			locked += vma_pages(vma);
	}
	KUNIT_EXPECT_EQ_MSG(test, mm->locked_vm, locked,
			    "locked_vm against the VM_LOCKED vmas");
	KUNIT_EXPECT_EQ_MSG(test, mm->total_vm, total,
			    "total_vm against the vmas");
	KUNIT_EXPECT_EQ_MSG(test, (unsigned long)mm->map_count, count,
			    "map_count against the vmas");
	mmap_read_unlock(mm);
}

#endif /* _MM_TEST_UTIL_H */
