/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit characterization of what fork does to memory locking (mm_fork
 * suite).
 *
 * Included at the end of kernel/fork.c, so that the cases call dup_mm(), the
 * mm half of fork, on a private mm of the test kthread.  Each row maps a
 * window of MM_TEST_PAGES anonymous pages in the parent and makes it look
 * like the row's picture (locked, locked on fault, pinned with mm_mpin();
 * see mm_test_setup()), applies an madvise() to part of it, forks the mm
 * and states what the child must look like page by page, with its
 * total_vm and vma count.  A pin belongs to the pinner of the parent's
 * pages: the child inherits neither VM_PINNED nor a charge, as it inherits
 * no VM_LOCKED.
 * The parent must come out unchanged, and both mms' counters must equal
 * what their vmas (and the parent's pins) say; once the parent's pins are
 * released, its window and vma count are the row's last two columns.
 */

#ifdef CONFIG_MM_FORK_KUNIT_TEST

#ifndef _FORK_TEST_H
#define _FORK_TEST_H

#include <kunit/test.h>
#include "../mm/mm_test_util.h"

struct mm_fork_case {
	const char *name;
	const char *parent;	/* the parent's window, before and after */
	struct mm_test_op advice;	/* an madvise() before the fork */
	const char *child;	/* the child's window */
	unsigned long child_total;	/* the child's total_vm */
	int child_vmas;		/* the child's map_count */
	const char *released;	/* the parent's window once unpinned */
	int rvmas;		/* and its map_count */
};

#define NO_ADVICE	{ .kind = MM_OP_NONE }

static const struct mm_fork_case mm_fork_cases[] = {
	/*
	 * name                     parent      advice before the fork
	 *                          child       total_vm vmas; once unpinned:
	 *                          the parent's window, vmas
	 */
	/* upstream: the child inherits no lock; DONTFORK and WIPEONFORK */
	{ "unlocked",               "........", NO_ADVICE,
				    "........",  8, 1, "........", 1 },
	{ "locked",                 "LLLLLLLL", NO_ADVICE,
				    "........",  8, 1, "LLLLLLLL", 1 },
	{ "locked_onfault",         "FFFFFFFF", NO_ADVICE,
				    "........",  8, 1, "FFFFFFFF", 1 },
	{ "locked_dontfork",        "LLLLLLLL", MADV(0, 8, MADV_DONTFORK),
				    "--------",  0, 0, "LLLLLLLL", 1 },
	{ "locked_dontfork_middle", "LLLLLLLL", MADV(2, 4, MADV_DONTFORK),
				    "..----..",  4, 2, "LLLLLLLL", 3 },
	{ "locked_wipeonfork",      "LLLLLLLL", MADV(0, 8, MADV_WIPEONFORK),
				    "........",  8, 1, "LLLLLLLL", 1 },
	{ "unlocked_dontfork_tail", "........", MADV(4, 4, MADV_DONTFORK),
				    "....----",  4, 1, "........", 2 },
	/* the series: the child inherits neither VM_PINNED nor a charge */
	{ "pinned",                 "PPPPPPPP", NO_ADVICE,
				    "........",  8, 1, "........", 1 },
	{ "pinned_locked",          "BBBBBBBB", NO_ADVICE,
				    "........",  8, 1, "LLLLLLLL", 1 },
	{ "pinned_locked_middle",   "LLBBBBLL", NO_ADVICE,
				    "........",  8, 3, "LLLLLLLL", 1 },
	{ "pinned_onfault",         "OOOOOOOO", NO_ADVICE,
				    "........",  8, 1, "FFFFFFFF", 1 },
	{ "pinned_dontfork",        "PPPPPPPP", MADV(0, 8, MADV_DONTFORK),
				    "--------",  0, 0, "........", 1 },
	{ "pinned_dontfork_middle", "BBBBBBBB", MADV(2, 4, MADV_DONTFORK),
				    "..----..",  4, 2, "LLLLLLLL", 3 },
	{ "pinned_wipeonfork",      "PPPPPPPP", MADV(0, 8, MADV_WIPEONFORK),
				    "........",  8, 1, "........", 1 },

};

static void mm_fork_desc(const struct mm_fork_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_fork, mm_fork_cases, mm_fork_desc);

/* The pinned pages of a picture. */
static long mm_fork_pinned_in(const char *picture)
{
	long n = 0;

	for (; *picture; picture++)
		n += !!strchr("PBO", *picture);
	return n;
}

static void mm_fork_table(struct kunit *test)
{
	const struct mm_fork_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm, *child;
	unsigned long base, locked_before;
	char pages[MM_TEST_PAGES + 1];

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	mm_test_setup(test, base, c->parent);
	KUNIT_ASSERT_EQ(test, mm_test_do_op(test, &c->advice, base), 0L);
	KUNIT_ASSERT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->parent);
	locked_before = mm->locked_vm;

	child = dup_mm(current, mm);
	KUNIT_ASSERT_NOT_NULL(test, child);

	KUNIT_EXPECT_STREQ(test, mm_test_pages(child, base, MM_TEST_PAGES, pages),
			   c->child);
	KUNIT_EXPECT_EQ(test, child->locked_vm, 0UL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&child->pinned_vm), 0LL);
	KUNIT_EXPECT_EQ(test, child->total_vm, c->child_total);
	KUNIT_EXPECT_EQ(test, child->map_count, c->child_vmas);
	KUNIT_EXPECT_EQ(test, child->def_flags & (VM_LOCKED | VM_LOCKONFAULT), 0UL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&child->pins));
	mm_test_expect_counters(test, child);
	mm_test_expect_consistent(test, child);

	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->parent);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, locked_before);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, mm_test_locked_in(c->parent));
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm),
			mm_fork_pinned_in(c->parent));
	mmput(child);
	MM_TEST_EXPECT_RELEASED(test, base, c->released, c->rvmas);
}

/* mlockall(MCL_FUTURE) is not inherited: the child's def_flags lose it. */
static void mm_fork_future_not_inherited(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm, *child;

	mm->def_flags |= VM_LOCKED;
	child = dup_mm(current, mm);
	mm->def_flags &= ~VM_LOCKED;
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, child->def_flags & VM_LOCKED, 0UL);
	mmput(child);
}

static struct kunit_case mm_fork_test_cases[] = {
	KUNIT_CASE_PARAM(mm_fork_table, mm_fork_gen_params),
	KUNIT_CASE(mm_fork_future_not_inherited),
	{}
};

static struct kunit_suite mm_fork_test_suite = {
	.name = "mm_fork",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_fork_test_cases,
};

kunit_test_suite(mm_fork_test_suite);

#endif /* _FORK_TEST_H */

#endif /* CONFIG_MM_FORK_KUNIT_TEST */
