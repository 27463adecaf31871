/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit characterization of what fork does to memory locking (mm_fork
 * suite).
 *
 * Included at the end of kernel/fork.c, so that the cases call dup_mm(), the
 * mm half of fork, on a private mm of the test kthread.  Each row maps a
 * window of MM_TEST_PAGES anonymous pages in the parent, locked or not,
 * optionally pins part of it with mm_mpin() and applies an madvise() to
 * part of it, forks the mm and states what the child must look like page
 * by page.  A pin belongs to the pinner of the parent's pages: the child
 * inherits neither VM_PINNED nor a charge, as it inherits no VM_LOCKED.
 * The parent must come out unchanged, and both mms' counters must equal
 * what their vmas (and the parent's pins) say.
 */

#ifdef CONFIG_MM_FORK_KUNIT_TEST

#ifndef _FORK_TEST_H
#define _FORK_TEST_H

#include <kunit/test.h>
#include "../mm/mm_test_util.h"

struct mm_fork_case {
	const char *name;
	unsigned long map_flags;	/* MAP_LOCKED or 0 */
	unsigned long def_flags;	/* mm->def_flags while mapping */
	int advice;			/* MADV_* on pages [first, first + n) */
	unsigned int first, n;
	const char *parent;		/* the parent's window, before and after */
	const char *child;		/* the child's window */
	unsigned long child_total;	/* the child's total_vm */
	unsigned int pin_first, pin_n;	/* mm_mpin() of these pages first */
};

/* The parent's pin, released by .exit if a case aborts. */
static struct mm_pin *mm_fork_pin;

static const struct mm_fork_case mm_fork_cases[] = {
	{ "unlocked", 0, 0, 0, 0, 0, "........", "........", 8 },
	{ "locked", MAP_LOCKED, 0, 0, 0, 0, "LLLLLLLL", "........", 8 },
	{ "locked_onfault", 0, VM_LOCKED | VM_LOCKONFAULT, 0, 0, 0,
	  "FFFFFFFF", "........", 8 },
	{ "locked_dontfork", MAP_LOCKED, 0, MADV_DONTFORK, 0, 8,
	  "LLLLLLLL", "--------", 0 },
	{ "locked_dontfork_middle", MAP_LOCKED, 0, MADV_DONTFORK, 2, 4,
	  "LLLLLLLL", "..----..", 4 },
	{ "locked_wipeonfork", MAP_LOCKED, 0, MADV_WIPEONFORK, 0, 8,
	  "LLLLLLLL", "........", 8 },
	{ "unlocked_dontfork_tail", 0, 0, MADV_DONTFORK, 4, 4,
	  "........", "....----", 4 },
	{ "pinned", 0, 0, 0, 0, 0, "PPPPPPPP", "........", 8, .pin_n = 8 },
	{ "pinned_locked", MAP_LOCKED, 0, 0, 0, 0, "BBBBBBBB", "........", 8,
	  .pin_n = 8 },
	{ "pinned_locked_middle", MAP_LOCKED, 0, 0, 0, 0, "LLBBBBLL", "........",
	  8, .pin_first = 2, .pin_n = 4 },
	{ "pinned_onfault", 0, VM_LOCKED | VM_LOCKONFAULT, 0, 0, 0, "OOOOOOOO",
	  "........", 8, .pin_n = 8 },
	{ "pinned_dontfork", 0, 0, MADV_DONTFORK, 0, 8, "PPPPPPPP", "--------", 0,
	  .pin_n = 8 },
	{ "pinned_dontfork_middle", MAP_LOCKED, 0, MADV_DONTFORK, 2, 4,
	  "BBBBBBBB", "..----..", 4, .pin_n = 8 },
	{ "pinned_wipeonfork", 0, 0, MADV_WIPEONFORK, 0, 8, "PPPPPPPP",
	  "........", 8, .pin_n = 8 },
};

static void mm_fork_case_desc(const struct mm_fork_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mm_fork, mm_fork_cases, mm_fork_case_desc);

static void mm_fork_table(struct kunit *test)
{
	const struct mm_fork_case *c = test->param_value;
	struct mm_struct *mm = current->mm, *child;
	unsigned long base, locked_before;
	s64 pinned_before;
	char pages[MM_TEST_PAGES + 1];

	mm->def_flags |= c->def_flags;
	base = mm_test_map(test, MM_TEST_PAGES, c->map_flags | MAP_POPULATE);
	mm->def_flags &= ~c->def_flags;
	if (c->pin_n) {
		struct mm_pin *pin = mm_mpin(mm, base + c->pin_first * PAGE_SIZE,
					     c->pin_n * PAGE_SIZE);

		KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
		mm_fork_pin = pin;
	}
	if (c->advice)
		KUNIT_ASSERT_EQ(test, do_madvise(mm, base + c->first * PAGE_SIZE,
						 c->n * PAGE_SIZE, c->advice), 0);
	KUNIT_ASSERT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->parent);
	locked_before = mm->locked_vm;
	pinned_before = atomic64_read(&mm->pinned_vm);

	child = dup_mm(current, mm);
	KUNIT_ASSERT_NOT_NULL(test, child);

	KUNIT_EXPECT_STREQ(test, mm_test_pages(child, base, MM_TEST_PAGES, pages),
			   c->child);
	KUNIT_EXPECT_EQ(test, child->locked_vm, 0UL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&child->pinned_vm), 0LL);
	KUNIT_EXPECT_EQ(test, child->total_vm, c->child_total);
	KUNIT_EXPECT_EQ(test, child->def_flags & (VM_LOCKED | VM_LOCKONFAULT), 0UL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&child->pins));
	mm_test_expect_counters(test, child);
	mm_test_expect_consistent(test, child);

	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->parent);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, locked_before);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), pinned_before);
	KUNIT_EXPECT_EQ(test, pinned_before, (s64)c->pin_n);
	mmput(child);
	mm_test_expect_exact(test, mm, &mm_fork_pin, 1);
}

/* mlockall(MCL_FUTURE) is not inherited: the child's def_flags lose it. */
static void mm_fork_future_not_inherited(struct kunit *test)
{
	struct mm_struct *mm = current->mm, *child;

	mm->def_flags |= VM_LOCKED;
	child = dup_mm(current, mm);
	mm->def_flags &= ~VM_LOCKED;
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, child->def_flags & VM_LOCKED, 0UL);
	mmput(child);
}

static int mm_fork_init(struct kunit *test)
{
	return mm_test_attach_mm(test);
}

static void mm_fork_exit(struct kunit *test)
{
	mm_test_release(&mm_fork_pin, 1);
	mm_test_detach_mm(test);
}

static struct kunit_case mm_fork_test_cases[] = {
	KUNIT_CASE_PARAM(mm_fork_table, mm_fork_gen_params),
	KUNIT_CASE(mm_fork_future_not_inherited),
	{}
};

static struct kunit_suite mm_fork_test_suite = {
	.name = "mm_fork",
	.init = mm_fork_init,
	.exit = mm_fork_exit,
	.test_cases = mm_fork_test_cases,
};

kunit_test_suite(mm_fork_test_suite);

#endif /* _FORK_TEST_H */

#endif /* CONFIG_MM_FORK_KUNIT_TEST */
