/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of mremap() on pinned memory (mm_pin_mremap suite).
 *
 * Included at the end of mm/mremap.c, so that the cases call the body of
 * the mremap system call (__do_sys_mremap()) on a private mm of the test
 * kthread.  Each row maps 17 populated pages and unmaps the ninth: pages
 * 0-7 are the window, pages 9-16 the target, each a vma.  Every page gets
 * a byte of its own: '0'-'7' in the window, 'a'-'h' in the target.  The
 * window is made to look like the row's picture (locked, pinned with
 * mm_mpin(); see mm_test_setup()), the target stays unlocked; then the row
 * calls mremap() on part of the window (to the target, with MREMAP_FIXED),
 * and states the result: both ranges page by page, the byte each page
 * holds now ('-' not mapped, 'z' zero: a page that lost its contents), so
 * that pages that moved are told from pages that did not, pinned_vm,
 * locked_vm and the vma count.  A pin's range moves with its pages: a
 * whole range moves, and the part of a larger one that moves becomes a
 * range of its own, so the moved pages stay pinned and are never charged
 * to locked_vm besides; the pin keeps its charge; a pinned vma does not
 * grow.  The counters must then equal what the vmas and the pin
 * say, and again once the pin is released, when both ranges and the vma
 * count must be as the row's last three columns say.
 */

#ifdef CONFIG_MM_PIN_KUNIT_TEST

#ifndef _MREMAP_TEST_H
#define _MREMAP_TEST_H

#include <kunit/test.h>
#include <linux/uaccess.h>
#include "mm_test_util.h"

struct mm_pin_mremap_case {
	const char *name;
	const char *from;		/* the window before */
	unsigned int first, n, new_n;	/* mremap() of these pages to new_n */
	unsigned long flags;		/* MREMAP_*; MREMAP_FIXED: to the target */
	long ret;			/* the error mremap() returns, or 0:
					 * the target with MREMAP_FIXED, else
					 * the range
					 */
	const char *window, *target;	/* both ranges afterwards */
	const char *wdata, *tdata;	/* the bytes their pages hold */
	unsigned long pinned;		/* pinned_vm afterwards */
	unsigned long locked;		/* locked_vm afterwards */
	int vmas;			/* map_count afterwards */
	const char *rwindow, *rtarget;	/* both ranges once unpinned */
	int rvmas;			/* and map_count */
};

#define MOVE	(MREMAP_MAYMOVE | MREMAP_FIXED)
#define KEEP	(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)

static const struct mm_pin_mremap_case mm_pin_mremap_cases[] = {
	/*
	 * name, window before, mremap(first, n, new_n, flags), error;
	 *   window, target, their bytes, pinned_vm, locked_vm, vmas;
	 *   once unpinned: window, target, vmas
	 */
	/* a pin inside the moved range moves with its pages */
	{ "move_pinned_all", "PPPPPPPP", 0, 8, 8, MOVE, 0,
	  "--------", "PPPPPPPP", "--------", "01234567", 8, 0, 1,
	  "--------", "........", 1 },
	{ "move_pinned_locked_all", "BBBBBBBB", 0, 8, 8, MOVE, 0,
	  "--------", "BBBBBBBB", "--------", "01234567", 8, 0, 1,
	  "--------", "LLLLLLLL", 1 },
	{ "move_inner_pin", "..PPPP..", 2, 4, 4, MOVE, 0,
	  "..----..", "PPPP....", "01----67", "2345efgh", 4, 0, 4,
	  "..----..", "........", 4 },
	/* upstream: a locked range moves with its charge */
	{ "move_locked_unpinned", "LLLLLLLL", 0, 8, 8, MOVE, 0,
	  "--------", "LLLLLLLL", "--------", "01234567", 0, 8, 1,
	  "--------", "LLLLLLLL", 1 },
	/* part of a pin's range moves as a range of its own: charged once */
	{ "move_part_of_pin", "PPPPPPPP", 2, 4, 4, MOVE, 0,
	  "PP----PP", "PPPP....", "01----67", "2345efgh", 8, 0, 4,
	  "..----..", "........", 4 },
	{ "move_part_of_locked_pin", "BBBBBBBB", 2, 4, 4, MOVE, 0,
	  "BB----BB", "BBBB....", "01----67", "2345efgh", 8, 0, 4,
	  "LL----LL", "LLLL....", 4 },
	{ "move_head_of_locked_pin", "BBBBBBBB", 0, 4, 4, MOVE, 0,
	  "----BBBB", "BBBB....", "----4567", "0123efgh", 8, 0, 3,
	  "----LLLL", "LLLL....", 3 },
	/* MREMAP_DONTUNMAP: the pin goes with the pages, the old range empty */
	{ "dontunmap_pinned", "PPPPPPPP", 0, 8, 8, KEEP, 0,
	  "........", "PPPPPPPP", "zzzzzzzz", "01234567", 8, 0, 2,
	  "........", "........", 2 },
	{ "dontunmap_pinned_locked", "BBBBBBBB", 0, 8, 8, KEEP, 0,
	  "........", "BBBBBBBB", "zzzzzzzz", "01234567", 8, 0, 2,
	  "........", "LLLLLLLL", 2 },
	/* the old vma is split ahead when locked (6.1's move_vma()) or pinned */
	{ "dontunmap_part_of_pin", "PPPPPPPP", 2, 4, 4, KEEP, 0,
	  "PP....PP", "PPPP....", "01zzzz67", "2345efgh", 8, 0, 5,
	  "........", "........", 5 },
	{ "dontunmap_part_of_locked_pin", "BBBBBBBB", 2, 4, 4, KEEP, 0,
	  "BB....BB", "BBBB....", "01zzzz67", "2345efgh", 8, 0, 5,
	  "LL....LL", "LLLL....", 5 },
	/* a pinned vma does not grow; shrinking it is an munmap */
	{ "grow_pinned", "PPPP....", 0, 4, 6, 0, -EFAULT,
	  "PPPP....", "........", "01234567", "abcdefgh", 4, 0, 3,
	  "........", "........", 2 },
	{ "grow_pinned_maymove", "PPPP....", 0, 4, 6, MREMAP_MAYMOVE, -EFAULT,
	  "PPPP....", "........", "01234567", "abcdefgh", 4, 0, 3,
	  "........", "........", 2 },
	{ "shrink_pinned", "PPPPPPPP", 0, 8, 4, 0, 0,
	  "PPPP----", "........", "0123----", "abcdefgh", 8, 0, 2,
	  "....----", "........", 2 },
	{ "shrink_pinned_locked", "BBBBBBBB", 0, 8, 4, 0, 0,
	  "BBBB----", "........", "0123----", "abcdefgh", 8, 0, 2,
	  "LLLL----", "........", 2 },
};

static void mm_pin_mremap_desc(const struct mm_pin_mremap_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_mremap, mm_pin_mremap_cases, mm_pin_mremap_desc);

/* Give page i of the range at @addr the byte @first + i. */
static void mm_pin_mremap_mark(struct kunit *test, unsigned long addr,
			       char first)
{
	unsigned int i;

	for (i = 0; i < MM_TEST_PAGES; i++) {
		char c = first + i;

		KUNIT_ASSERT_EQ(test, copy_to_user((char __user *)addr +
						   i * PAGE_SIZE, &c, 1), 0UL);
	}
}

/* The bytes the pages of the range at @addr hold: '-' unmapped, 'z' zero. */
static const char *mm_pin_mremap_bytes(unsigned long addr, char *buf)
{
	unsigned int i;

	for (i = 0; i < MM_TEST_PAGES; i++) {
		char c;

		if (copy_from_user(&c, (char __user *)addr + i * PAGE_SIZE, 1))
			c = '-';
		else if (!c)
			c = 'z';
		buf[i] = c;
	}
	buf[i] = '\0';
	return buf;
}

static void mm_pin_mremap_table(struct kunit *test)
{
	const struct mm_pin_mremap_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long base, target, expect;
	char bytes[MM_TEST_PAGES + 1];
	long ret;

	base = mm_test_map(test, 2 * MM_TEST_PAGES + 1, MAP_POPULATE);
	target = base + (MM_TEST_PAGES + 1) * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, vm_munmap(base + MM_TEST_PAGES * PAGE_SIZE,
					PAGE_SIZE), 0);
	mm_pin_mremap_mark(test, base, '0');
	mm_pin_mremap_mark(test, target, 'a');
	mm_test_setup(test, base, c->from);

	ret = __do_sys_mremap(base + c->first * PAGE_SIZE, c->n * PAGE_SIZE,
			      c->new_n * PAGE_SIZE, c->flags, target);
	expect = c->flags & MREMAP_FIXED ? target : base + c->first * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, ret, c->ret ? c->ret : (long)expect);

	MM_TEST_EXPECT_PAGES(test, base, c->window);
	MM_TEST_EXPECT_PAGES(test, target, c->target);
	KUNIT_EXPECT_STREQ_MSG(test, mm_pin_mremap_bytes(base, bytes), c->wdata,
			       "the bytes of the window");
	KUNIT_EXPECT_STREQ_MSG(test, mm_pin_mremap_bytes(target, bytes), c->tdata,
			       "the bytes of the target");
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	KUNIT_EXPECT_EQ(test, mm->map_count, c->vmas);

	mm_test_expect_exact(test);
	MM_TEST_EXPECT_PAGES(test, base, c->rwindow);
	MM_TEST_EXPECT_PAGES(test, target, c->rtarget);
	KUNIT_EXPECT_EQ(test, mm->map_count, c->rvmas);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, mm_test_locked_in(c->rwindow) +
			mm_test_locked_in(c->rtarget));
}

static struct kunit_case mm_pin_mremap_test_cases[] = {
	KUNIT_CASE_PARAM(mm_pin_mremap_table, mm_pin_mremap_gen_params),
	{}
};

static struct kunit_suite mm_pin_mremap_test_suite = {
	.name = "mm_pin_mremap",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_pin_mremap_test_cases,
};

kunit_test_suite(mm_pin_mremap_test_suite);

#endif /* _MREMAP_TEST_H */

#endif /* CONFIG_MM_PIN_KUNIT_TEST */
