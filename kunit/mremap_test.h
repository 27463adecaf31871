/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of mremap() on pinned memory (mm_pin_mremap suite).
 *
 * Included at the end of mm/mremap.c, so that the cases call the body of
 * the mremap system call (__do_sys_mremap()) on a private mm of the test
 * kthread.  Each row maps 17 populated pages, locked or not, and unmaps the
 * ninth: pages 0-7 are the window, pages 9-16 the target.  It pins part of
 * the window with mm_mpin(), calls mremap() on part of the window (to the
 * target, with MREMAP_FIXED), and states the result, both windows page by
 * page (see mm_test_pages()) and pinned_vm and locked_vm.  A pin inside the
 * moved range moves with it; one partly inside is detached and keeps its
 * charge; a pinned vma does not grow.  The counters must then equal what
 * the vmas and the pin say, and again once the pin is released.
 */

#ifdef CONFIG_MM_PIN_KUNIT_TEST

#ifndef _MREMAP_TEST_H
#define _MREMAP_TEST_H

#include <kunit/test.h>
#include "mm_test_util.h"

struct mm_pin_mremap_case {
	const char *name;
	unsigned long map_flags;	/* MAP_LOCKED or 0 */
	unsigned int pin_first, pin_n;	/* mm_mpin() of these pages */
	unsigned int first, n;		/* mremap() of these pages... */
	unsigned int new_n;		/* ...to this many */
	unsigned long flags;		/* MREMAP_*; MREMAP_FIXED: to the target */
	long ret;			/* the error mremap() returns, or 0:
					 * it returns the target with
					 * MREMAP_FIXED, else the range
					 */
	const char *window;		/* the window afterwards */
	const char *target;		/* the target afterwards */
	unsigned long pinned;		/* pinned_vm afterwards */
	unsigned long locked;		/* locked_vm afterwards */
};

#define MOVE	(MREMAP_MAYMOVE | MREMAP_FIXED)
#define KEEP	(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)

static const struct mm_pin_mremap_case mm_pin_mremap_cases[] = {
	/* a pin inside the moved range moves with its pages */
	{ "move_pinned_all", 0, 0, 8, 0, 8, 8, MOVE, 0,
	  "--------", "PPPPPPPP", 8, 0 },
	{ "move_pinned_locked_all", MAP_LOCKED, 0, 8, 0, 8, 8, MOVE, 0,
	  "--------", "BBBBBBBB", 8, 0 },
	{ "move_inner_pin", 0, 2, 4, 2, 4, 4, MOVE, 0,
	  "..----..", "PPPP....", 4, 0 },
	{ "move_locked_unpinned", MAP_LOCKED, 0, 0, 0, 8, 8, MOVE, 0,
	  "--------", "LLLLLLLL", 0, 8 },
	/* a pin partly inside is detached: its charge stays, no vma shows it */
	{ "move_part_of_pin", 0, 0, 8, 2, 4, 4, MOVE, 0,
	  "..----..", "........", 8, 0 },
	{ "move_part_of_locked_pin", MAP_LOCKED, 0, 8, 2, 4, 4, MOVE, 0,
	  "LL----LL", "LLLLLLLL", 8, 12 },
	/* MREMAP_DONTUNMAP: the pin goes with the pages, the old range empty */
	{ "dontunmap_pinned", 0, 0, 8, 0, 8, 8, KEEP, 0,
	  "........", "PPPPPPPP", 8, 0 },
	{ "dontunmap_pinned_locked", MAP_LOCKED, 0, 8, 0, 8, 8, KEEP, 0,
	  "........", "BBBBBBBB", 8, 0 },
	{ "dontunmap_part_of_pin", 0, 0, 8, 2, 4, 4, KEEP, 0,
	  "........", "........", 8, 0 },
	{ "dontunmap_part_of_locked_pin", MAP_LOCKED, 0, 8, 2, 4, 4, KEEP, 0,
	  "LL....LL", "LLLLLLLL", 8, 12 },
	/* a pinned vma does not grow; shrinking it is an munmap */
	{ "grow_pinned", 0, 0, 4, 0, 4, 6, 0, -EFAULT,
	  "PPPP....", "........", 4, 0 },
	{ "grow_pinned_maymove", 0, 0, 4, 0, 4, 6, MREMAP_MAYMOVE, -EFAULT,
	  "PPPP....", "........", 4, 0 },
	{ "shrink_pinned", 0, 0, 8, 0, 8, 4, 0, 0,
	  "....----", "........", 8, 0 },
	{ "shrink_pinned_locked", MAP_LOCKED, 0, 8, 0, 8, 4, 0, 0,
	  "LLLL----", "LLLLLLLL", 8, 12 },
};

static void mm_pin_mremap_desc(const struct mm_pin_mremap_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mm_pin_mremap, mm_pin_mremap_cases, mm_pin_mremap_desc);

/* The case's pin, released by .exit if the case aborts. */
static struct mm_pin *mm_pin_mremap_pin;

static void mm_pin_mremap_table(struct kunit *test)
{
	const struct mm_pin_mremap_case *c = test->param_value;
	struct mm_struct *mm = current->mm;
	char pages[MM_TEST_PAGES + 1];
	unsigned long base, target, expect;
	long ret;

	base = mm_test_map(test, 2 * MM_TEST_PAGES + 1,
			   c->map_flags | MAP_POPULATE);
	target = base + (MM_TEST_PAGES + 1) * PAGE_SIZE;
	KUNIT_ASSERT_EQ(test, vm_munmap(base + MM_TEST_PAGES * PAGE_SIZE,
					PAGE_SIZE), 0);
	if (c->pin_n) {
		struct mm_pin *pin = mm_mpin(mm, base + c->pin_first * PAGE_SIZE,
					     c->pin_n * PAGE_SIZE);

		KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
		mm_pin_mremap_pin = pin;
	}

	ret = __do_sys_mremap(base + c->first * PAGE_SIZE, c->n * PAGE_SIZE,
			      c->new_n * PAGE_SIZE, c->flags, target);
	expect = c->flags & MREMAP_FIXED ? target : base + c->first * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, ret, c->ret ? c->ret : (long)expect);

	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->window);
	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, target, MM_TEST_PAGES, pages),
			   c->target);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	mm_test_expect_exact(test, mm, &mm_pin_mremap_pin, 1);
}

static int mm_pin_mremap_init(struct kunit *test)
{
	return mm_test_attach_mm(test);
}

static void mm_pin_mremap_exit(struct kunit *test)
{
	mm_test_release(&mm_pin_mremap_pin, 1);
	mm_test_detach_mm(test);
}

static struct kunit_case mm_pin_mremap_test_cases[] = {
	KUNIT_CASE_PARAM(mm_pin_mremap_table, mm_pin_mremap_gen_params),
	{}
};

static struct kunit_suite mm_pin_mremap_test_suite = {
	.name = "mm_pin_mremap",
	.init = mm_pin_mremap_init,
	.exit = mm_pin_mremap_exit,
	.test_cases = mm_pin_mremap_test_cases,
};

kunit_test_suite(mm_pin_mremap_test_suite);

#endif /* _MREMAP_TEST_H */

#endif /* CONFIG_MM_PIN_KUNIT_TEST */
