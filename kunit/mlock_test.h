/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit characterization of mlock accounting (mm_mlock suite).
 *
 * Included at the end of mm/mlock.c, so that the cases go through the very
 * bodies of the mlock, mlock2, munlock, mlockall and munlockall system calls
 * (__do_sys_*), on a private mm of the test kthread.
 *
 * Each row of the table is one case: a window of MM_TEST_PAGES anonymous
 * pages is mapped (populated, so that split vmas share one anon_vma and can
 * merge back), the row's operations run in order, each with the result it
 * must return, and then the window must look as the row says, page by page,
 * with mm->locked_vm equal to its locked pages and every counter equal to
 * what the vmas say.  Rows with a limit run with that RLIMIT_MEMLOCK and
 * without CAP_IPC_LOCK, unless the row keeps it (.cap).
 */

#ifdef CONFIG_MM_MLOCK_KUNIT_TEST

#ifndef _MLOCK_TEST_H
#define _MLOCK_TEST_H

#include <kunit/test.h>
#include "mm_test_util.h"

struct mm_mlock_case {
	const char *name;
	struct mm_test_op ops[3];
	unsigned long limit;	/* RLIMIT_MEMLOCK in pages, no CAP_IPC_LOCK... */
	unsigned long pinned;	/* pages a long-term pinner charged before */
	const char *pages;	/* the window afterwards, see mm_test_pages() */
	int vmas;		/* map_count afterwards; -1: not guaranteed */
	bool cap;		/* ...unless this keeps CAP_IPC_LOCK */
};

static const struct mm_mlock_case mm_mlock_cases[] = {
	/* mlock and mlock2 */
	{ "mlock_whole", { OP(MLOCK, 0, 8) }, 0, 0, "LLLLLLLL", 1 },
	{ "mlock_head", { OP(MLOCK, 0, 3) }, 0, 0, "LLL.....", 2 },
	{ "mlock_tail", { OP(MLOCK, 5, 3) }, 0, 0, ".....LLL", 2 },
	{ "mlock_middle", { OP(MLOCK, 2, 4) }, 0, 0, "..LLLL..", 3 },
	{ "mlock_twice", { OP(MLOCK, 2, 4), OP(MLOCK, 2, 4) }, 0, 0, "..LLLL..", 3 },
	{ "mlock_overlap", { OP(MLOCK, 0, 4), OP(MLOCK, 2, 4) }, 0, 0, "LLLLLL..", 2 },
	{ "mlock_zero_len", { OP(MLOCK, 2, 0) }, 0, 0, "........", 1 },
	{ "mlock_across_hole", { OP(MUNMAP, 3, 2), OP_ERR(MLOCK, 0, 8, -ENOMEM) },
	  0, 0, "LLL--...", 2 },
	{ "mlock_unmapped", { OP(MUNMAP, 0, 8), OP_ERR(MLOCK, 0, 8, -ENOMEM) },
	  0, 0, "--------", 0 },
	{ "mlock2_onfault_middle", { OP(ONFAULT, 2, 4) }, 0, 0, "..FFFF..", 3 },
	{ "mlock2_bad_flags", { OP_ERR(MLOCK2_BAD, 0, 8, -EINVAL) }, 0, 0,
	  "........", 1 },
	{ "mlock_over_onfault", { OP(ONFAULT, 0, 8), OP(MLOCK, 2, 4) }, 0, 0,
	  "FFLLLLFF", 3 },
	{ "onfault_over_mlock", { OP(MLOCK, 0, 8), OP(ONFAULT, 0, 4) }, 0, 0,
	  "FFFFLLLL", 2 },

	/* munlock */
	{ "munlock_whole", { OP(MLOCK, 0, 8), OP(MUNLOCK, 0, 8) }, 0, 0,
	  "........", 1 },
	{ "munlock_middle", { OP(MLOCK, 0, 8), OP(MUNLOCK, 2, 4) }, 0, 0,
	  "LL....LL", 3 },
	{ "munlock_merges_back", { OP(MLOCK, 2, 4), OP(MUNLOCK, 2, 4) }, 0, 0,
	  "........", 1 },
	{ "munlock_unlocked", { OP(MUNLOCK, 0, 8) }, 0, 0, "........", 1 },
	{ "munlock_onfault_head", { OP(ONFAULT, 0, 8), OP(MUNLOCK, 0, 4) },
	  0, 0, "....FFFF", 2 },

	/* mlockall and munlockall */
	{ "mlockall_current", { ALL(MLOCKALL, MCL_CURRENT) }, 0, 0, "LLLLLLLL", 1 },
	{ "mlockall_current_onfault",
	  { ALL(MLOCKALL, MCL_CURRENT | MCL_ONFAULT) }, 0, 0, "FFFFFFFF", 1 },
	{ "mlockall_future_only", { ALL(MLOCKALL, MCL_FUTURE) }, 0, 0, "........", 1 },
	{ "mlockall_onfault_alone",
	  { ALL_ERR(MLOCKALL, MCL_ONFAULT, -EINVAL) }, 0, 0, "........", 1 },
	{ "munlockall", { OP(MLOCK, 2, 2), OP(ONFAULT, 5, 2),
	  ALL(MUNLOCKALL, 0) }, 0, 0, "........", -1 },

	/* munmap of locked and unlocked vmas */
	{ "munmap_head_locked", { OP(MLOCK, 0, 8), OP(MUNMAP, 0, 2) }, 0, 0,
	  "--LLLLLL", 1 },
	{ "munmap_tail_locked", { OP(MLOCK, 0, 8), OP(MUNMAP, 6, 2) }, 0, 0,
	  "LLLLLL--", 1 },
	{ "munmap_middle_locked", { OP(MLOCK, 0, 8), OP(MUNMAP, 3, 2) }, 0, 0,
	  "LLL--LLL", 2 },
	{ "munmap_head_across", { OP(MLOCK, 2, 4), OP(MUNMAP, 0, 4) }, 0, 0,
	  "----LL..", 2 },
	{ "munmap_tail_across", { OP(MLOCK, 2, 4), OP(MUNMAP, 4, 4) }, 0, 0,
	  "..LL----", 2 },
	{ "munmap_spanning", { OP(MLOCK, 2, 4), OP(MUNMAP, 1, 6) }, 0, 0,
	  ".------.", 2 },
	{ "munmap_mixed_onfault", { OP(MLOCK, 0, 4), OP(ONFAULT, 4, 4),
	  OP(MUNMAP, 2, 4) }, 0, 0, "LL----FF", 2 },
	{ "munmap_unlocked_part", { OP(MLOCK, 0, 4), OP(MUNMAP, 5, 2) }, 0, 0,
	  "LLLL.--.", 3 },
	{ "munmap_all", { OP(MLOCK, 2, 4), OP(MUNMAP, 0, 8) }, 0, 0, "--------", 0 },

	/* RLIMIT_MEMLOCK without CAP_IPC_LOCK */
	{ "limit_mlock_within", { OP(MLOCK, 0, 4) }, 4, 0, "LLLL....", 2 },
	{ "limit_mlock_over", { OP_ERR(MLOCK, 0, 5, -ENOMEM) }, 4, 0, "........", 1 },
	{ "limit_relock_counts_once", { OP(MLOCK, 0, 4), OP(MLOCK, 2, 2) }, 4, 0,
	  "LLLL....", 2 },
	{ "limit_overlap_over", { OP(MLOCK, 0, 4), OP_ERR(MLOCK, 2, 4, -ENOMEM) },
	  4, 0, "LLLL....", 2 },
	{ "limit_onfault_counts", { OP(ONFAULT, 0, 4),
	  OP_ERR(MLOCK, 4, 1, -ENOMEM) }, 4, 0, "FFFF....", 2 },
	{ "limit_mlockall_over", { ALL_ERR(MLOCKALL, MCL_CURRENT, -ENOMEM) }, 4, 0,
	  "........", 1 },
	{ "limit_mlockall_future", { ALL(MLOCKALL, MCL_FUTURE) }, 4, 0, "........", 1 },
	{ "limit_munlock_frees", { OP(MLOCK, 0, 4), OP(MUNLOCK, 0, 4),
	  OP(MLOCK, 4, 4) }, 4, 0, "....LLLL", 2 },

	/* pinned and locked pages share one RLIMIT_MEMLOCK budget */
	{ "limit_pinned_leaves_room", { OP(MLOCK, 0, 2) }, 4, 2, "LL......", 2 },
	{ "limit_pinned_mlock_over", { OP_ERR(MLOCK, 0, 3, -ENOMEM) }, 4, 2,
	  "........", 1 },
	{ "limit_pinned_onfault_over", { OP_ERR(ONFAULT, 0, 3, -ENOMEM) },
	  4, 2, "........", 1 },
	{ "limit_pinned_map_locked_over",
	  { OP_ERR(MAP_LOCKED, 0, 3, -EAGAIN) }, 4, 2, "........", 1 },
	{ "limit_pinned_account_within", { OP(ACCOUNT, 0, 2),
	  OP(UNACCOUNT, 0, 2) }, 4, 2, "........", 1 },
	{ "limit_pinned_account_over", { OP_ERR(ACCOUNT, 0, 3, -ENOMEM) }, 4, 2,
	  "........", 1 },
	{ "limit_all_pinned", { OP_ERR(MLOCK, 0, 1, -ENOMEM) }, 4, 4,
	  "........", 1 },
	{ "cap_ipc_lock_ignores_limit", { OP(MLOCK, 0, 8) }, 4, 0, "LLLLLLLL",
	  1, .cap = true },
	{ "cap_ipc_lock_ignores_pinned", { OP(MLOCK, 0, 8) }, 4, 8, "LLLLLLLL",
	  1, .cap = true },
};

static void mm_mlock_desc(const struct mm_mlock_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_mlock, mm_mlock_cases, mm_mlock_desc);

static void mm_mlock_table(struct kunit *test)
{
	const struct mm_mlock_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long base;
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	atomic64_add(c->pinned, &mm->pinned_vm);
	if (c->limit)
		mm_test_limit(test, c->limit, c->cap);
	for (i = 0; i < ARRAY_SIZE(c->ops) && c->ops[i].kind; i++)
		KUNIT_EXPECT_EQ_MSG(test, mm_test_do_op(test, &c->ops[i], base),
				    (long)c->ops[i].ret, "operation %d", i + 1);
	mm_test_unlimit(test);

	MM_TEST_EXPECT_PAGES(test, base, c->pages);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, mm_test_locked_in(c->pages));
	if (c->vmas >= 0)
		KUNIT_EXPECT_EQ(test, mm->map_count, c->vmas);
	mm_test_expect_counters(test, mm);
	KUNIT_EXPECT_EQ(test, atomic64_sub_return(c->pinned, &mm->pinned_vm), 0LL);
	mm_test_expect_consistent(test, mm);
}

/* MCL_FUTURE: later mappings are locked and counted from the start. */
static void mm_mlock_future_mappings(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long addr;

	KUNIT_ASSERT_EQ(test, __do_sys_mlockall(MCL_FUTURE | MCL_ONFAULT), 0L);
	addr = mm_test_map(test, 4, 0);
	MM_TEST_EXPECT_PAGES(test, addr, "FFFF");
	KUNIT_EXPECT_EQ(test, mm->locked_vm, 4UL);

	KUNIT_ASSERT_EQ(test, __do_sys_mlockall(MCL_FUTURE), 0L);
	addr = mm_test_map(test, 2, 0);
	MM_TEST_EXPECT_PAGES(test, addr, "LL");
	KUNIT_EXPECT_EQ(test, mm->locked_vm, 6UL);
	mm_test_expect_counters(test, mm);

	KUNIT_ASSERT_EQ(test, mm_test_munlockall(), 0L);
	KUNIT_EXPECT_EQ(test, mm->def_flags & (VM_LOCKED | VM_LOCKONFAULT), 0UL);
	addr = mm_test_map(test, 2, 0);
	MM_TEST_EXPECT_PAGES(test, addr, "..");
	KUNIT_EXPECT_EQ(test, mm->locked_vm, 0UL);
	mm_test_expect_counters(test, mm);
}

static struct kunit_case mm_mlock_test_cases[] = {
	KUNIT_CASE_PARAM(mm_mlock_table, mm_mlock_gen_params),
	KUNIT_CASE(mm_mlock_future_mappings),
	{}
};

static struct kunit_suite mm_mlock_test_suite = {
	.name = "mm_mlock",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_mlock_test_cases,
};

kunit_test_suite(mm_mlock_test_suite);

#endif /* _MLOCK_TEST_H */

#endif /* CONFIG_MM_MLOCK_KUNIT_TEST */
