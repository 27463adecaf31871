/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of long-term pins (mm_pin suite): mm_mpin() and mm_munpin()
 * and what they do to VM_PINNED, pinned_vm and locked_vm.
 *
 * Included at the end of mm/mlock.c.  Each case maps a populated window of
 * MM_TEST_PAGES anonymous pages in a private mm of the test kthread (the
 * fixture of mm_test_util.h) and runs operations of the shared vocabulary
 * on it (mm_test_ops.h).
 *
 * The tables:
 * - mm_pin_transitions: one row per (flags before -> operation -> flags
 *   after) over VM_PINNED, VM_LOCKED and VM_LOCKONFAULT, on the whole
 *   window and on its middle, with the change of pinned_vm and locked_vm;
 * - mm_pin_cases (run by mm_pin_sequence): pin lifetime (several pinners,
 *   munmap while pinned, a late release after the addresses were reused),
 *   RLIMIT_MEMLOCK shared by pins and locks, vm.max_map_count, and bad
 *   input.
 * - mm_pin_drv_cases (run by mm_pin_vma): a test driver that pins the vma
 *   it maps with mm_mpin_vma() and releases from its last close(), as perf
 *   does: mappings, munmap, mlock and the limit.
 * After every row the counters must equal what the vmas and the pins say,
 * by the suite's own count and by mm_check_locked_pages(); then every pin
 * is released, the counters must be exact again, and the window must look
 * as the row's last two columns say: the picture and the vma count.
 *
 * Pictures of the window, a letter a page (mm_test_pages()): '-' not
 * mapped, '.' mapped, 'L' locked, 'F' locked on fault, 'P' pinned, 'B'
 * pinned and locked, 'O' pinned and locked on fault.
 */

#ifdef CONFIG_MM_PIN_KUNIT_TEST

#ifndef _MPIN_TEST_H
#define _MPIN_TEST_H

#include <kunit/test.h>
#include <linux/anon_inodes.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/hugetlb.h>
#include <linux/syscalls.h>
#include <linux/workqueue.h>
#include "mm_test_util.h"

/* --- The transition table --- */

struct mm_pin_transition {
	const char *name;
	const char *from;	/* the window before; its pin in slot 0 */
	struct mm_test_op op;	/* the operation; a new pin goes in slot 1 */
	const char *to;		/* the window after */
	long pinned;		/* the change of pinned_vm */
	long locked;		/* the change of locked_vm */
	int vmas;		/* map_count after */
	const char *released;	/* the window once every pin is released */
	int rvmas;		/* and its map_count */
};

static const struct mm_pin_transition mm_pin_transitions[] = {
	/*
	 * name                     from        op (all: 0, 8;    to     pinned
	 *                                          mid: 2, 4)            locked vmas
	 *                          once every pin is released: the window, vmas
	 */
	/* pin: 00 -> 10, 01 -> 11; the pages' lock charge moves to the pin */
	{ "none_pin_all",           "........", PIN(1, 0, 8),      "PPPPPPPP",  8,  0, 1,
				    "........", 1 },
	{ "none_pin_mid",           "........", PIN(1, 2, 4),      "..PPPP..",  4,  0, 3,
				    "........", 1 },
	{ "locked_pin_all",         "LLLLLLLL", PIN(1, 0, 8),      "BBBBBBBB",  8, -8, 1,
				    "LLLLLLLL", 1 },
	{ "locked_pin_mid",         "LLLLLLLL", PIN(1, 2, 4),      "LLBBBBLL",  4, -4, 3,
				    "LLLLLLLL", 1 },
	{ "onfault_pin_all",        "FFFFFFFF", PIN(1, 0, 8),      "OOOOOOOO",  8, -8, 1,
				    "FFFFFFFF", 1 },
	{ "onfault_pin_mid",        "FFFFFFFF", PIN(1, 2, 4),      "FFOOOOFF",  4, -4, 3,
				    "FFFFFFFF", 1 },
	/* a second pin: charged again, and the vmas split at its ends */
	{ "pinned_pin_all",         "PPPPPPPP", PIN(1, 0, 8),      "PPPPPPPP",  8,  0, 1,
				    "........", 1 },
	{ "pinned_pin_mid",         "PPPPPPPP", PIN(1, 2, 4),      "PPPPPPPP",  4,  0, 3,
				    "........", 1 },
	{ "both_pin_mid",           "BBBBBBBB", PIN(1, 2, 4),      "BBBBBBBB",  4,  0, 3,
				    "LLLLLLLL", 1 },
	/* lock and unlock of pinned pages: 10 <-> 11, nothing charged */
	{ "pinned_mlock_all",       "PPPPPPPP", OP(MLOCK, 0, 8),   "BBBBBBBB",  0,  0, 1,
				    "LLLLLLLL", 1 },
	{ "pinned_mlock_mid",       "PPPPPPPP", OP(MLOCK, 2, 4),   "PPBBBBPP",  0,  0, 3,
				    "..LLLL..", 3 },
	{ "pinned_onfault_all",     "PPPPPPPP", OP(ONFAULT, 0, 8), "OOOOOOOO",  0,  0, 1,
				    "FFFFFFFF", 1 },
	{ "pinned_onfault_mid",     "PPPPPPPP", OP(ONFAULT, 2, 4), "PPOOOOPP",  0,  0, 3,
				    "..FFFF..", 3 },
	{ "both_munlock_all",       "BBBBBBBB", OP(MUNLOCK, 0, 8), "PPPPPPPP",  0,  0, 1,
				    "........", 1 },
	{ "both_munlock_mid",       "BBBBBBBB", OP(MUNLOCK, 2, 4), "BBPPPPBB",  0,  0, 3,
				    "LL....LL", 3 },
	{ "both_onfault_all",       "BBBBBBBB", OP(ONFAULT, 0, 8), "OOOOOOOO",  0,  0, 1,
				    "FFFFFFFF", 1 },
	{ "pinonfault_mlock_all",   "OOOOOOOO", OP(MLOCK, 0, 8),   "BBBBBBBB",  0,  0, 1,
				    "LLLLLLLL", 1 },
	{ "pinonfault_munlock_mid", "OOOOOOOO", OP(MUNLOCK, 2, 4), "OOPPPPOO",  0,  0, 3,
				    "FF....FF", 3 },
	{ "pinned_munlock_all",     "PPPPPPPP", OP(MUNLOCK, 0, 8), "PPPPPPPP",  0,  0, 1,
				    "........", 1 },
	/* release of the last pin: 10 -> 00, 11 -> 01, the lock charged again */
	{ "pinned_unpin",           "PPPPPPPP", UNPIN(0),          "........", -8,  0, 1,
				    "........", 1 },
	{ "both_unpin",             "BBBBBBBB", UNPIN(0),          "LLLLLLLL", -8,  8, 1,
				    "LLLLLLLL", 1 },
	{ "pinonfault_unpin",       "OOOOOOOO", UNPIN(0),          "FFFFFFFF", -8,  8, 1,
				    "FFFFFFFF", 1 },
	{ "mid_pinned_unpin",       "..PPPP..", UNPIN(0),          "........", -4,  0, 1,
				    "........", 1 },
	{ "mid_both_unpin",         "LLBBBBLL", UNPIN(0),          "LLLLLLLL", -4,  4, 1,
				    "LLLLLLLL", 1 },
	{ "mid_pinonfault_unpin",   "FFOOOOFF", UNPIN(0),          "FFFFFFFF", -4,  4, 1,
				    "FFFFFFFF", 1 },
	/* without a pin: 00 <-> 01, upstream behaviour, as mm_mlock shows in full */
	{ "none_mlock_all",         "........", OP(MLOCK, 0, 8),   "LLLLLLLL",  0,  8, 1,
				    "LLLLLLLL", 1 },
	{ "locked_munlock_mid",     "LLLLLLLL", OP(MUNLOCK, 2, 4), "LL....LL",  0, -4, 3,
				    "LL....LL", 3 },

};

static void mm_pin_transition_desc(const struct mm_pin_transition *t, char *desc)
{
	mm_test_desc(t->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_transition, mm_pin_transitions, mm_pin_transition_desc);

static const char *mm_pin_op_name(enum mm_test_op_kind kind)
{
	switch (kind) {
	case MM_OP_PIN:
		return "pin";
	case MM_OP_UNPIN:
		return "unpin";
	case MM_OP_MLOCK:
		return "mlock";
	case MM_OP_ONFAULT:
		return "mlock_onfault";
	case MM_OP_MUNLOCK:
		return "munlock";
	default:
		return "other";
	}
}

static void mm_pin_transition(struct kunit *test)
{
	const struct mm_pin_transition *t = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	char pages[MM_TEST_PAGES + 1];
	unsigned long base, locked;
	s64 pinned;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	mm_test_setup(test, base, t->from);
	pinned = atomic64_read(&mm->pinned_vm);
	locked = mm->locked_vm;

	KUNIT_EXPECT_EQ(test, mm_test_do_op(test, &t->op, base), 0L);
	mm_test_pages(mm, base, MM_TEST_PAGES, pages);
	pinned = atomic64_read(&mm->pinned_vm) - pinned;
	locked = mm->locked_vm - locked;
	/* What happened, for the review table of scripts/report. */
	kunit_info(test, "transition %s %s %s(%u,%u) %s %lld %ld %d\n", t->name,
		   t->from, mm_pin_op_name(t->op.kind), t->op.first, t->op.n,
		   pages, (long long)pinned, (long)locked, mm->map_count);

	KUNIT_EXPECT_STREQ(test, pages, t->to);
	KUNIT_EXPECT_EQ_MSG(test, pinned, (s64)t->pinned, "change of pinned_vm");
	KUNIT_EXPECT_EQ_MSG(test, (long)locked, t->locked, "change of locked_vm");
	KUNIT_EXPECT_EQ(test, mm->map_count, t->vmas);
	MM_TEST_EXPECT_RELEASED(test, base, t->released, t->rvmas);
}

/* --- Sequences: lifetime, limits, bad input --- */

struct mm_pin_case {
	const char *name;
	struct mm_test_op ops[5];
	const char *pages;	/* the window afterwards */
	unsigned long pinned;	/* pinned_vm afterwards */
	unsigned long locked;	/* locked_vm afterwards */
	int vmas;		/* map_count afterwards */
	const char *released;	/* the window once every pin is released */
	int rvmas;		/* and its map_count */
	long limit;		/* RLIMIT_MEMLOCK in pages, MP_NO_MEMLOCK for 0,
				 * without CAP_IPC_LOCK...
				 */
	bool cap;		/* ...unless this keeps CAP_IPC_LOCK */
	bool map_limit;		/* vm.max_map_count is map_count + map_room */
	int map_room;
};

#define MP_NO_MEMLOCK	(-1)

static const struct mm_pin_case mm_pin_cases[] = {
	/*
	 * name, operations;
	 *   window after, pinned_vm, locked_vm, vmas; released, vmas; options
	 */
	/* several pinners: each releases its own pages only */
	{ "overlap_release_outer", { PIN(0, 0, 8), PIN(1, 2, 4), UNPIN(0) },
	  "..PPPP..", 4, 0, 3, "........", 1 },
	{ "overlap_release_inner", { PIN(0, 0, 8), PIN(1, 2, 4), UNPIN(1) },
	  "PPPPPPPP", 8, 0, 3, "........", 1 },
	{ "same_range_twice", { PIN(0, 0, 8), PIN(1, 0, 8), UNPIN(0) },
	  "PPPPPPPP", 8, 0, 1, "........", 1 },
	{ "adjacent_pins", { PIN(0, 0, 4), PIN(1, 4, 4), UNPIN(0) },
	  "....PPPP", 4, 0, 2, "........", 1 },
	{ "overlap_locked_release_both", { OP(MLOCK, 0, 8), PIN(0, 0, 6),
	  PIN(1, 2, 6), UNPIN(1), UNPIN(0) },
	  "LLLLLLLL", 0, 8, 1, "LLLLLLLL", 1 },
	/* a pinned vma split by madvise does not merge back until released */
	{ "madvise_inside_pin_no_merge", { PIN(0, 0, 8),
	  MADV(2, 4, MADV_DONTFORK), MADV(2, 4, MADV_DOFORK) },
	  "PPPPPPPP", 8, 0, 3, "........", 1 },
	{ "madvise_inside_pin_merges_on_release", { PIN(0, 0, 8),
	  MADV(2, 4, MADV_DONTFORK), MADV(2, 4, MADV_DOFORK), UNPIN(0) },
	  "........", 0, 0, 1, "........", 1 },

	/*
	 * munmap while pinned: the charge stays with the pin until released,
	 * and what is left mapped of the range stays pinned, so a page is
	 * never charged twice (locked_vm counts only the pages not pinned)
	 */
	{ "munmap_pinned_all", { PIN(0, 0, 8), OP(MUNMAP, 0, 8) },
	  "--------", 8, 0, 0, "--------", 0 },
	{ "munmap_pinned_head", { PIN(0, 0, 8), OP(MUNMAP, 0, 2) },
	  "--PPPPPP", 8, 0, 1, "--......", 1 },
	{ "munmap_pinned_tail", { PIN(0, 0, 8), OP(MUNMAP, 6, 2) },
	  "PPPPPP--", 8, 0, 1, "......--", 1 },
	{ "munmap_pinned_middle", { PIN(0, 2, 4), OP(MUNMAP, 3, 2) },
	  "..P--P..", 4, 0, 4, "...--...", 2 },
	{ "munmap_pinned_middle_twice", { PIN(0, 0, 8), OP(MUNMAP, 2, 1),
	  OP(MUNMAP, 5, 1) },
	  "PP-PP-PP", 8, 0, 3, "..-..-..", 3 },
	{ "munmap_locked_pinned_tail", { OP(MLOCK, 0, 8), PIN(0, 4, 4),
	  OP(MUNMAP, 6, 2) },
	  "LLLLBB--", 4, 4, 2, "LLLLLL--", 1 },
	{ "munmap_locked_pinned_middle", { OP(MLOCK, 0, 8), PIN(0, 0, 8),
	  OP(MUNMAP, 3, 2) },
	  "BBB--BBB", 8, 0, 2, "LLL--LLL", 2 },
	/* ... so mlock of a new page fits: 8 pinned + 1 locked, not + 6 */
	{ "munmap_locked_pinned_mlock_within", { OP(MLOCK, 0, 8),
	  PIN(0, 0, 8), OP(MUNMAP, 6, 2), OP(MAP, 6, 1), OP(MLOCK, 6, 1) },
	  "BBBBBBL-", 8, 1, 2, "LLLLLLL-", 2, .limit = 9 },
	{ "munmap_spanning_mixed", { OP(MLOCK, 0, 4), PIN(0, 2, 4),
	  OP(MUNMAP, 1, 6) },
	  "L------.", 4, 1, 2, "L------.", 2 },
	{ "munmap_one_of_two_pins", { PIN(0, 0, 4), PIN(1, 4, 4),
	  OP(MUNMAP, 0, 4) },
	  "----PPPP", 8, 0, 1, "----....", 1 },
	/* pin, munmap, pin again: the first charge is still there */
	{ "repin_after_munmap_over", { PIN(0, 0, 8), OP(MUNMAP, 0, 8),
	  OP(MAP, 0, 8), PIN_ERR(1, 0, 8, -ENOMEM) },
	  "........", 8, 0, 1, "........", 1, .limit = 8 },
	{ "mlock_after_munmap_over", { PIN(0, 0, 8), OP(MUNMAP, 0, 8),
	  OP(MAP, 0, 8), OP_ERR(MLOCK, 0, 1, -ENOMEM) },
	  "........", 8, 0, 1, "........", 1, .limit = 8 },
	/* a late release touches no new mapping at the same addresses */
	{ "reused_late_unpin_pinned", { PIN(0, 0, 8), OP(MUNMAP, 0, 8),
	  OP(MAP, 0, 8), PIN(1, 0, 8), UNPIN(0) },
	  "PPPPPPPP", 8, 0, 1, "........", 1 },
	{ "reused_late_unpin_locked", { PIN(0, 0, 8), OP(MUNMAP, 0, 8),
	  OP(MAP, 0, 8), OP(MLOCK, 0, 8), UNPIN(0) },
	  "LLLLLLLL", 0, 8, 1, "LLLLLLLL", 1 },
	{ "reused_late_unpin_part", { PIN(0, 2, 4), OP(MUNMAP, 0, 8),
	  OP(MAP, 0, 8), PIN(1, 2, 2), UNPIN(0) },
	  "..PP....", 2, 0, 3, "........", 1 },

	/* one RLIMIT_MEMLOCK budget for pins and locks */
	{ "limit_pin_within", { PIN(0, 0, 4) },
	  "PPPP....", 4, 0, 2, "........", 1, .limit = 4 },
	{ "limit_pin_over", { PIN_ERR(0, 0, 5, -ENOMEM) },
	  "........", 0, 0, 1, "........", 1, .limit = 4 },
	{ "limit_pin_after_mlock_over", { OP(MLOCK, 0, 4),
	  PIN_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, 2, "LLLL....", 2, .limit = 6 },
	{ "limit_mlock_after_pin_over", { PIN(0, 0, 4),
	  OP_ERR(MLOCK, 4, 4, -ENOMEM) },
	  "PPPP....", 4, 0, 2, "........", 1, .limit = 6 },
	{ "limit_pin_locked_counts_once", { OP(MLOCK, 0, 4), PIN(0, 0, 4) },
	  "BBBB....", 4, 0, 2, "LLLL....", 2, .limit = 4 },
	{ "limit_mlock_pinned_counts_once", { PIN(0, 0, 4), OP(MLOCK, 0, 4) },
	  "BBBB....", 4, 0, 2, "LLLL....", 2, .limit = 4 },
	{ "limit_pin_onfault_counts_once", { OP(ONFAULT, 0, 4), PIN(0, 0, 4) },
	  "OOOO....", 4, 0, 2, "FFFF....", 2, .limit = 4 },
	{ "limit_two_pins_count_twice", { PIN(0, 0, 4),
	  PIN_ERR(1, 0, 4, -ENOMEM) },
	  "PPPP....", 4, 0, 2, "........", 1, .limit = 6 },
	/* a pinned page counts once: 4 pinned + 4 locked, not 8 + 4 */
	{ "limit_mlockall_pinned", { PIN(0, 0, 4), ALL(MLOCKALL, MCL_CURRENT) },
	  "BBBBLLLL", 4, 4, 2, "LLLLLLLL", 1, .limit = 8 },
	{ "limit_mlockall_unmapped_pin_over", { PIN(0, 0, 4), OP(MUNMAP, 0, 4),
	  ALL_ERR(MLOCKALL, MCL_CURRENT, -ENOMEM) },
	  "----....", 4, 0, 1, "----....", 1, .limit = 7 },
	{ "limit_release_frees", { PIN(0, 0, 4), UNPIN(0), PIN(1, 4, 4) },
	  "....PPPP", 4, 0, 2, "........", 1, .limit = 4 },
	{ "cap_ipc_lock_pin_over_limit", { PIN(0, 0, 8) },
	  "PPPPPPPP", 8, 0, 1, "........", 1, .limit = 4, .cap = true },
	{ "no_memlock_eperm", { PIN_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, 1, "........", 1, .limit = MP_NO_MEMLOCK },
	{ "no_memlock_cap_ipc_lock", { PIN(0, 0, 8) },
	  "PPPPPPPP", 8, 0, 1, "........", 1, .limit = MP_NO_MEMLOCK, .cap = true },

	/* vm.max_map_count: checked before anything changes */
	{ "map_count_two_splits_no_room", { PIN_ERR(0, 2, 4, -ENOMEM) },
	  "........", 0, 0, 1, "........", 1, .map_limit = true, .map_room = 1 },
	{ "map_count_two_splits_room", { PIN(0, 2, 4) },
	  "..PPPP..", 4, 0, 3, "........", 1, .map_limit = true, .map_room = 2 },
	{ "map_count_no_split", { PIN(0, 0, 8) },
	  "PPPPPPPP", 8, 0, 1, "........", 1, .map_limit = true, .map_room = 0 },

	/* bad input: a clear error, nothing changed */
	{ "bad_unaligned_start", { { .kind = MM_OP_PIN_BYTES, .first = 1,
	  .n = PAGE_SIZE, .ret = -EINVAL } },
	  "........", 0, 0, 1, "........", 1 },
	{ "bad_unaligned_len", { { .kind = MM_OP_PIN_BYTES, .first = 0,
	  .n = PAGE_SIZE + 1, .ret = -EINVAL } },
	  "........", 0, 0, 1, "........", 1 },
	{ "bad_empty", { PIN_ERR(0, 2, 0, -EINVAL) },
	  "........", 0, 0, 1, "........", 1 },
	{ "bad_wraps", { { .kind = MM_OP_PIN_WRAP, .ret = -EINVAL } },
	  "........", 0, 0, 1, "........", 1 },
	{ "bad_hole", { OP(MUNMAP, 3, 2), PIN_ERR(0, 0, 8, -ENOMEM) },
	  "...--...", 0, 0, 2, "...--...", 2 },
	{ "bad_unmapped", { OP(MUNMAP, 0, 8), PIN_ERR(0, 0, 8, -ENOMEM) },
	  "--------", 0, 0, 0, "--------", 0 },
	{ "bad_prot_none", { OP(MAP_NONE, 2, 4), PIN_ERR(0, 0, 8, -EINVAL) },
	  "........", 0, 0, 3, "........", 3 },
	{ "bad_special_mapping", { OP(MAP_SPECIAL, 4, 4),
	  PIN_ERR(0, 0, 8, -EINVAL) },
	  "........", 0, 0, 2, "........", 2 },
	{ "bad_growsdown", { OP(MAP_GROWSDOWN, 4, 4),
	  PIN_ERR(0, 4, 4, -EINVAL) },
	  "........", 0, 0, 2, "........", 2 },

	/*
	 * mm_mpin_charge(): the charge of pages mm_mpin() cannot mark, under
	 * the same limit; no vma marked, the charge kept through munmap
	 */
	{ "charge_marks_nothing", { CHARGE(0, 8) },
	  "........", 8, 0, 1, "........", 1 },
	{ "charge_beside_a_pin", { PIN(0, 2, 4), CHARGE(1, 4) },
	  "..PPPP..", 8, 0, 3, "........", 1 },
	{ "charge_kept_through_munmap", { CHARGE(0, 8), OP(MUNMAP, 0, 8) },
	  "--------", 8, 0, 0, "--------", 0 },
	{ "charge_limit_within", { OP(MLOCK, 0, 4), CHARGE(0, 4) },
	  "LLLL....", 4, 4, 2, "LLLL....", 2, .limit = 8 },
	{ "charge_limit_over", { OP(MLOCK, 0, 4), CHARGE_ERR(0, 5, -ENOMEM) },
	  "LLLL....", 0, 4, 2, "LLLL....", 2, .limit = 8 },
	{ "charge_then_mlock_over", { CHARGE(0, 4), OP_ERR(MLOCK, 0, 5, -ENOMEM) },
	  "........", 4, 0, 1, "........", 1, .limit = 8 },
	{ "charge_cap_ipc_lock", { CHARGE(0, 8) },
	  "........", 8, 0, 1, "........", 1, .limit = 4, .cap = true },
	{ "charge_no_memlock_eperm", { CHARGE_ERR(0, 8, -EPERM) },
	  "........", 0, 0, 1, "........", 1, .limit = MP_NO_MEMLOCK },
	{ "bad_charge_empty", { CHARGE_ERR(0, 0, -EINVAL) },
	  "........", 0, 0, 1, "........", 1 },

	/*
	 * mm_mpin_charge_more(): a detached pin grows, under the same limit;
	 * an attached one cannot (its charge is its ranges' pages)
	 */
	{ "charge_more_grows", { CHARGE(0, 4), MORE(0, 4) },
	  "........", 8, 0, 1, "........", 1 },
	{ "charge_more_limit_within", { OP(MLOCK, 0, 2), CHARGE(0, 4), MORE(0, 2) },
	  "LL......", 6, 2, 2, "LL......", 2, .limit = 8 },
	{ "charge_more_limit_over", { OP(MLOCK, 0, 2), CHARGE(0, 4),
	  MORE_ERR(0, 3, -ENOMEM) },
	  "LL......", 4, 2, 2, "LL......", 2, .limit = 8 },
	{ "charge_more_cap_ipc_lock", { CHARGE(0, 4), MORE(0, 4) },
	  "........", 8, 0, 1, "........", 1, .limit = 4, .cap = true },
	/* a pin mm_mpin() made is detached once its range is unmapped */
	{ "charge_more_unmapped_pin", { PIN(0, 0, 8), OP(MUNMAP, 0, 8), MORE(0, 2) },
	  "--------", 10, 0, 0, "--------", 0 },
	{ "bad_charge_more_attached", { PIN(0, 2, 4), MORE_ERR(0, 2, -EINVAL) },
	  "..PPPP..", 4, 0, 3, "........", 1 },
	{ "bad_charge_more_empty", { CHARGE(0, 4), MORE_ERR(0, 0, -EINVAL) },
	  "........", 4, 0, 1, "........", 1 },

	/*
	 * mm_mpin_empty() and mm_mpin_account(): a detached charge that goes
	 * up and down page by page, limited by the task and the bypass the
	 * pinner passes (what it recorded when its mapping was made), not by
	 * the calling task's limit or capability; a limit of 0 is -ENOMEM,
	 * as __account_locked_vm() says
	 */
	{ "empty_charges_nothing", { EMPTY(0) },
	  "........", 0, 0, 1, "........", 1 },
	{ "account_grows_and_shrinks", { EMPTY(0), GROW(0, 6), SHRINK(0, 2) },
	  "........", 4, 0, 1, "........", 1 },
	{ "account_shrinks_to_nothing", { EMPTY(0), GROW(0, 4), SHRINK(0, 4) },
	  "........", 0, 0, 1, "........", 1 },
	{ "account_limit_within", { OP(MLOCK, 0, 2), EMPTY(0), GROW(0, 6) },
	  "LL......", 6, 2, 2, "LL......", 2, .limit = 8 },
	{ "account_limit_over", { OP(MLOCK, 0, 2), EMPTY(0), GROW(0, 4),
	  GROW_ERR(0, 3, -ENOMEM) },
	  "LL......", 4, 2, 2, "LL......", 2, .limit = 8 },
	{ "account_room_after_shrink", { EMPTY(0), GROW(0, 8), SHRINK(0, 4),
	  GROW(0, 4) },
	  "........", 8, 0, 1, "........", 1, .limit = 8 },
	{ "account_bypass_rlim", { EMPTY(0), ACCT(0, 8, MM_ACCT_BYPASS, 0) },
	  "........", 8, 0, 1, "........", 1, .limit = 4 },
	{ "account_caller_cap_not_asked", { EMPTY(0), GROW_ERR(0, 8, -ENOMEM) },
	  "........", 0, 0, 1, "........", 1, .limit = 4, .cap = true },
	{ "account_limit_of_the_task", { EMPTY(0),
	  ACCT(0, 8, MM_ACCT_INIT_TASK, 0) },
	  "........", 8, 0, 1, "........", 1, .limit = 4 },
	{ "account_no_memlock_enomem", { EMPTY(0), GROW_ERR(0, 1, -ENOMEM) },
	  "........", 0, 0, 1, "........", 1, .limit = MP_NO_MEMLOCK },
	{ "account_charge_pin", { CHARGE(0, 4), SHRINK(0, 4), GROW(0, 2) },
	  "........", 2, 0, 1, "........", 1 },
	{ "account_unmapped_pin", { PIN(0, 0, 8), OP(MUNMAP, 0, 8), SHRINK(0, 3) },
	  "--------", 5, 0, 0, "--------", 0 },
	{ "bad_account_attached", { PIN(0, 2, 4), GROW_ERR(0, 2, -EINVAL),
	  SHRINK_ERR(0, 2, -EINVAL) },
	  "..PPPP..", 4, 0, 3, "........", 1 },
	{ "bad_account_empty", { EMPTY(0), GROW_ERR(0, 0, -EINVAL) },
	  "........", 0, 0, 1, "........", 1 },
	{ "bad_account_shrink_too_much", { EMPTY(0), GROW(0, 2),
	  SHRINK_ERR(0, 3, -EINVAL) },
	  "........", 2, 0, 1, "........", 1 },
};

static void mm_pin_desc(const struct mm_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin, mm_pin_cases, mm_pin_desc);

static void mm_pin_sequence(struct kunit *test)
{
	const struct mm_pin_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long base;
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->limit)
		mm_test_limit(test, c->limit > 0 ? c->limit : 0, c->cap);
	if (c->map_limit)
		mm_test_max_map_count(test, mm->map_count + c->map_room);
	for (i = 0; i < ARRAY_SIZE(c->ops) && c->ops[i].kind; i++)
		KUNIT_EXPECT_EQ_MSG(test, mm_test_do_op(test, &c->ops[i], base),
				    (long)c->ops[i].ret, "operation %d", i + 1);
	mm_test_unlimit(test);

	MM_TEST_EXPECT_PAGES(test, base, c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	KUNIT_EXPECT_EQ(test, mm->map_count, c->vmas);
	MM_TEST_EXPECT_RELEASED(test, base, c->released, c->rvmas);
}

/* --- Single cases --- */

/* mm_check_locked_pages() finds each kind of fault it is there to find. */
static void mm_pin_check_finds_faults(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin_range *range;
	struct vm_area_struct *vma;
	unsigned long base;
	struct mm_pin *pin;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	mm_test_setup(test, base, "LLBBBBLL");
	pin = mm_test(test)->pins[0];

	mmap_write_lock(mm);
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(mm), 0);
	mm->locked_vm++;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL, "locked_vm off");
	mm->locked_vm--;
	atomic64_inc(&mm->pinned_vm);
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL, "pinned_vm off");
	atomic64_dec(&mm->pinned_vm);
	vma = vma_lookup(mm, base);
	vma->vm_flags |= VM_PINNED;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "VM_PINNED where no pin is");
	vma->vm_flags &= ~VM_PINNED;
	vma = vma_lookup(mm, base + 2 * PAGE_SIZE);
	vma->vm_flags &= ~VM_PINNED;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "no VM_PINNED where a pin is");
	vma->vm_flags |= VM_PINNED;
	range = list_first_entry(&pin->ranges, struct mm_pin_range, node);
	range->end += PAGE_SIZE;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "a pin's range beyond its vmas");
	range->end -= PAGE_SIZE;
	pin->npages++;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "a pin's charge not in pinned_vm");
	pin->npages--;
	pin->detached = true;
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "a pin marked detached on the attached list");
	pin->detached = false;
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(mm), 0);
	mmap_write_unlock(mm);
	MM_TEST_EXPECT_RELEASED(test, base, "LLLLLLLL", 1);
}

/*
 * mm_mpin() faults the range in, the lock-on-fault part too;
 * mm_mpin_flags(MM_MPIN_NOPOPULATE) leaves that to the pinner's own
 * pin_user_pages(FOLL_LONGTERM), and changes nothing else: the same marks
 * and charge.  An unknown flag is refused before anything changes.  Each
 * row maps the window, not present, with its last 4 pages locked on
 * fault, pins it whole with @flags, and counts the anonymous pages present
 * after the pin and after the pinner's GUP of the whole window (with the
 * pin's error, no GUP).
 */
struct mm_pin_populate_case {
	const char *name;
	bool mm_mpin;		/* mm_mpin(), else mm_mpin_flags(flags) */
	unsigned int flags;
	long ret;		/* of mm_mpin_flags() */
	bool gup;		/* then pin_user_pages() the window */
	unsigned long present;	/* anonymous pages present after the pin */
	unsigned long after;	/* ... and after the GUP */
	const char *pages;	/* the window, pinned */
	s64 pinned;
	const char *released;
};

static const struct mm_pin_populate_case mm_pin_populate_cases[] = {
	/* name               mm_mpin flags               ret gup   present after */
	{ "mm_mpin",             true,  0,                  0, false, 8, 8,
	  "PPPPOOOO", 8, "....FFFF" },
	{ "flags_0",             false, 0,                  0, false, 8, 8,
	  "PPPPOOOO", 8, "....FFFF" },
	{ "nopopulate",          false, MM_MPIN_NOPOPULATE, 0, false, 0, 0,
	  "PPPPOOOO", 8, "....FFFF" },
	{ "nopopulate_then_gup", false, MM_MPIN_NOPOPULATE, 0, true,  0, 8,
	  "PPPPOOOO", 8, "....FFFF" },
	{ "bad_unknown_flag",    false, 0x02,         -EINVAL, false, 0, 0,
	  "....FFFF", 0, "....FFFF" },
	{ "bad_flag_beside_nopopulate", false, MM_MPIN_NOPOPULATE | 0x80,
	  -EINVAL, false, 0, 0, "....FFFF", 0, "....FFFF" },
};

static void mm_pin_populate_desc(const struct mm_pin_populate_case *c,
				 char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_populate, mm_pin_populate_cases,
		  mm_pin_populate_desc);

static unsigned long mm_pin_anon_present(struct mm_struct *mm)
{
	sync_mm_rss(mm);
	return get_mm_counter(mm, MM_ANONPAGES);
}

static void mm_pin_populates(struct kunit *test)
{
	const struct mm_pin_populate_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct page *pages[MM_TEST_PAGES];
	unsigned long base;
	struct mm_pin *pin;
	long n;

	base = mm_test_map(test, MM_TEST_PAGES, 0);
	KUNIT_ASSERT_EQ(test, __do_sys_mlock2(base + 4 * PAGE_SIZE, 4 * PAGE_SIZE,
					      MLOCK_ONFAULT), 0L);
	KUNIT_ASSERT_EQ(test, mm_pin_anon_present(mm), 0UL);

	pin = c->mm_mpin ? mm_mpin(mm, base, MM_TEST_PAGES * PAGE_SIZE) :
		mm_mpin_flags(mm, base, MM_TEST_PAGES * PAGE_SIZE, c->flags);
	KUNIT_EXPECT_EQ(test, IS_ERR(pin) ? PTR_ERR(pin) : 0L, c->ret);
	if (!IS_ERR(pin))
		mm_test(test)->pins[0] = pin;
	KUNIT_EXPECT_EQ(test, mm_pin_anon_present(mm), c->present);
	if (c->gup) {
		n = pin_user_pages_fast(base, MM_TEST_PAGES,
					FOLL_WRITE | FOLL_LONGTERM, pages);
		KUNIT_EXPECT_EQ(test, n, (long)MM_TEST_PAGES);
		if (n > 0)
			unpin_user_pages(pages, n);
	}
	KUNIT_EXPECT_EQ(test, mm_pin_anon_present(mm), c->after);
	MM_TEST_EXPECT_PAGES(test, base, c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), c->pinned);
	MM_TEST_EXPECT_RELEASED(test, base, c->released, 2);
}

/* --- hugetlb --- */

/*
 * RDMA, DPDK and MPI register hugetlbfs memory as a matter of course.  A
 * hugetlb vma splits only at huge page boundaries, so a pin marks the
 * whole huge pages its range touches, and is charged the base pages asked
 * for, as pinned_vm is charged today.  Each row maps two huge pages with
 * MAP_HUGETLB (a file of the kernel's hugetlbfs mount, populated; the
 * kernels boot with hugepages=4) followed by a hole, pins base pages of
 * them, and states the huge pages marked, the charge and the vmas; then
 * every pin is released, and no huge page may stay marked.  hugetlb vmas
 * never merge (VM_DONTEXPAND), so the vmas split stay split.
 *
 * Pages are counted as HP(huge, base): huge * H + base pages of the base
 * size, H the base pages of a huge page.  Pictures: a letter per huge page, '-' not
 * mapped, '.' mapped, 'P' VM_PINNED.
 */
struct mm_pin_hp {
	int huge;
	int base;
};

#define HP(h, b)	{ .huge = h, .base = b }

struct mm_pin_huge {
	const char *name;
	struct mm_pin_hp first, n;	/* pin 0 */
	struct mm_pin_hp first2, n2;	/* pin 1, if n2 is not 0 */
	bool unmap_second;		/* then munmap the second huge page */
	long limit;			/* RLIMIT_MEMLOCK in base pages, or 0 */
	int ret;			/* what pin 0 returns */
	const char *pages;		/* the huge pages afterwards */
	struct mm_pin_hp pinned;	/* pinned_vm afterwards */
	int vmas;			/* map_count afterwards */
	int rvmas;			/* and once every pin is released */
};

static const struct mm_pin_huge mm_pin_huges[] = {
	/*
	 * name, pin 0 (first, n), pin 1 (first, n);
	 *   options; huge pages after, pinned_vm, vmas, vmas once released
	 */
	{ "whole_huge_page", HP(0, 0), HP(1, 0), HP(0, 0), HP(0, 0),
	  .pages = "P.", .pinned = HP(1, 0), .vmas = 2, .rvmas = 2 },
	{ "both_huge_pages", HP(0, 0), HP(2, 0), HP(0, 0), HP(0, 0),
	  .pages = "PP", .pinned = HP(2, 0), .vmas = 1, .rvmas = 1 },
	/* unaligned: the huge pages it touches are marked, its pages charged */
	{ "one_base_page", HP(0, 1), HP(0, 1), HP(0, 0), HP(0, 0),
	  .pages = "P.", .pinned = HP(0, 1), .vmas = 2, .rvmas = 2 },
	{ "last_base_page", HP(2, -1), HP(0, 1), HP(0, 0), HP(0, 0),
	  .pages = ".P", .pinned = HP(0, 1), .vmas = 2, .rvmas = 2 },
	{ "across_huge_boundary", HP(1, -1), HP(0, 2), HP(0, 0), HP(0, 0),
	  .pages = "PP", .pinned = HP(0, 2), .vmas = 1, .rvmas = 1 },
	{ "two_pins_one_huge_page", HP(0, 1), HP(0, 1), HP(0, 3), HP(0, 1),
	  .pages = "P.", .pinned = HP(0, 2), .vmas = 2, .rvmas = 2 },
	{ "two_pins_two_huge_pages", HP(0, 1), HP(0, 1), HP(1, 3), HP(0, 1),
	  .pages = "PP", .pinned = HP(0, 2), .vmas = 2, .rvmas = 2 },
	/* munmap of a huge page keeps the charge, and the rest pinned */
	{ "unmap_half_of_pin", HP(0, 0), HP(2, 0), HP(0, 0), HP(0, 0),
	  .unmap_second = true,
	  .pages = "P-", .pinned = HP(2, 0), .vmas = 1, .rvmas = 1 },
	/* RLIMIT_MEMLOCK counts the base pages asked for */
	{ "limit_base_pages_within", HP(0, 1), HP(0, 4), HP(0, 0), HP(0, 0),
	  .limit = 4,
	  .pages = "P.", .pinned = HP(0, 4), .vmas = 2, .rvmas = 2 },
	{ "limit_base_pages_over", HP(0, 1), HP(0, 5), HP(0, 0), HP(0, 0),
	  .limit = 4, .ret = -ENOMEM,
	  .pages = "..", .pinned = HP(0, 0), .vmas = 1, .rvmas = 1 },
	/* the hole after the mapping: nothing changes */
	{ "bad_past_the_mapping", HP(1, 0), HP(1, 1), HP(0, 0), HP(0, 0),
	  .ret = -ENOMEM,
	  .pages = "..", .pinned = HP(0, 0), .vmas = 1, .rvmas = 1 },
};

static void mm_pin_huge_desc(const struct mm_pin_huge *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_huge, mm_pin_huges, mm_pin_huge_desc);

static unsigned long mm_pin_hp(struct mm_pin_hp hp)
{
	return hp.huge * (long)pages_per_huge_page(&default_hstate) + hp.base;
}

/* The huge pages from @addr, a letter each: '-', '.' or 'P'. */
static const char *mm_pin_huge_pages(struct mm_struct *mm, unsigned long addr,
				     unsigned int n, char *buf)
{
	unsigned long size = huge_page_size(&default_hstate);
	struct vm_area_struct *vma;
	unsigned int i;

	mmap_read_lock(mm);
	for (i = 0; i < n; i++) {
		vma = vma_lookup(mm, addr + i * size);
		buf[i] = !vma ? '-' : vma->vm_flags & VM_PINNED ? 'P' : '.';
	}
	buf[n] = '\0';
	mmap_read_unlock(mm);
	return buf;
}

static void mm_pin_hugetlb(struct kunit *test)
{
	const struct mm_pin_huge *c = test->param_value;
	unsigned long size = huge_page_size(&default_hstate), addr;
	struct mm_struct *mm = mm_test(test)->mm;
	struct vm_area_struct *vma;
	char pages[3];

	addr = ksys_mmap_pgoff(0, 3 * size, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			       MAP_POPULATE, -1, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr),
			       "hugetlb mmap: %ld (hugepages= on the command line?)",
			       (long)addr);
	KUNIT_ASSERT_EQ(test, vm_munmap(addr + 2 * size, size), 0);
	mmap_read_lock(mm);
	vma = vma_lookup(mm, addr);
	KUNIT_ASSERT_TRUE(test, vma && is_vm_hugetlb_page(vma) &&
			  (vma->vm_flags & VM_DONTEXPAND));
	mmap_read_unlock(mm);

	if (c->limit)
		mm_test_limit(test, c->limit, false);
	KUNIT_EXPECT_EQ(test, mm_test_pin(test, 0,
					  addr + mm_pin_hp(c->first) * PAGE_SIZE,
					  mm_pin_hp(c->n) * PAGE_SIZE),
			(long)c->ret);
	if (mm_pin_hp(c->n2)) {
		unsigned long second = addr + mm_pin_hp(c->first2) * PAGE_SIZE;

		KUNIT_EXPECT_EQ(test, mm_test_pin(test, 1, second,
						  mm_pin_hp(c->n2) * PAGE_SIZE),
				0L);
	}
	mm_test_unlimit(test);
	if (c->unmap_second)
		KUNIT_EXPECT_EQ(test, vm_munmap(addr + size, size), 0);

	KUNIT_EXPECT_STREQ(test, mm_pin_huge_pages(mm, addr, 2, pages), c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm),
			(s64)mm_pin_hp(c->pinned));
	KUNIT_EXPECT_EQ(test, mm->map_count, c->vmas);
	mm_test_expect_exact(test);
	KUNIT_EXPECT_STREQ(test, mm_pin_huge_pages(mm, addr, 2, pages),
			   c->unmap_second ? ".-" : "..");
	KUNIT_EXPECT_EQ(test, mm->map_count, c->rvmas);
}

/*
 * An mm of its own, not the test's, with MM_TEST_PAGES mapped and pinned
 * from the test kthread; the kthread is back on its own mm afterwards.
 */
static struct mm_struct *mm_pin_other_mm(struct kunit *test,
					 struct mm_pin **pin)
{
	struct mm_struct *mm = mm_test(test)->mm, *other;
	unsigned long addr;

	other = mm_test_new_mm();
	KUNIT_ASSERT_NOT_NULL(test, other);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(NULL, 0, MM_TEST_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	if (IS_ERR_VALUE(addr))
		mmput(other);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));

	*pin = mm_mpin(other, addr, MM_TEST_PAGES * PAGE_SIZE);
	if (IS_ERR(*pin))
		mmput(other);
	KUNIT_ASSERT_FALSE(test, IS_ERR(*pin));
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mmap_read_lock(other);
	KUNIT_EXPECT_TRUE(test, vma_lookup(other, addr)->vm_flags & VM_PINNED);
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(other), 0);
	mmap_read_unlock(other);
	return other;
}

struct mm_pin_work {
	struct work_struct work;
	struct mm_pin *pin;
	struct mm_struct *mm;
};

static void mm_pin_munpin_fn(struct work_struct *work)
{
	mm_munpin(container_of(work, struct mm_pin_work, work)->pin);
}

static void mm_pin_mmput_fn(struct work_struct *work)
{
	mmput(container_of(work, struct mm_pin_work, work)->mm);
}

/* Release @w's pin from a workqueue, and wait for it. */
static void mm_pin_munpin_in_workqueue(struct mm_pin_work *w)
{
	INIT_WORK_ONSTACK(&w->work, mm_pin_munpin_fn);
	schedule_work(&w->work);
	flush_work(&w->work);
	destroy_work_on_stack(&w->work);
}

/*
 * The pin of @other, whose owner exited, is released: no charge and no pin
 * left, and only this case's reference (mmgrab()) on the mm_struct, so that
 * a release missing its mmdrop() fails.  Drops that reference.
 */
static void mm_pin_expect_released_other(struct kunit *test,
					 struct mm_struct *other)
{
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	mm_test_drop_lazy(mm_test(test)->mm);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&other->mm_count), 1,
			    "mm_count once the pin is released: this case's alone");
	mmdrop(other);
}

/*
 * The owner exits, then a workqueue releases the pin: the charge stays with
 * the pin until then, and the pin's hold on the mm_struct is dropped (an
 * mmdrop() missing from the release would leave mm_count one too high).
 */
static void mm_pin_released_after_exit(struct kunit *test)
{
	struct mm_pin_work w = { .mm = NULL };
	struct mm_struct *other;
	int count;

	other = mm_pin_other_mm(test, &w.pin);
	mmgrab(other);			/* to look at it once it is gone */
	mmput(other);			/* the owner exits */
	KUNIT_EXPECT_TRUE(test, w.pin->detached);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);
	mm_test_drop_lazy(mm_test(test)->mm);
	count = atomic_read(&other->mm_count);
	KUNIT_EXPECT_EQ_MSG(test, count, 2, "mm_count: this case's and the pin's");

	mm_pin_munpin_in_workqueue(&w);
	mm_pin_expect_released_other(test, other);
}

/*
 * The release runs while the owner is inside exit_mmap(): this case holds
 * the mmap_lock for read until the owner's exit_mmap(), in a workqueue,
 * waits for it for write; then another workqueue releases the pin, whose
 * mmget_not_zero() fails, and the lock goes to them in turn.
 */
static void mm_pin_released_during_exit(struct kunit *test)
{
	struct mm_pin_work exit = { .mm = NULL }, release = { .mm = NULL };
	struct mm_struct *other;
	int i;

	other = mm_pin_other_mm(test, &release.pin);
	mmgrab(other);
	exit.mm = other;
	INIT_WORK_ONSTACK(&exit.work, mm_pin_mmput_fn);
	INIT_WORK_ONSTACK(&release.work, mm_pin_munpin_fn);

	mmap_read_lock(other);
	queue_work(system_unbound_wq, &exit.work);
	for (i = 0; i < 5000 && !rwsem_is_contended(&other->mmap_lock); i++)
		usleep_range(1000, 2000);
	KUNIT_EXPECT_TRUE_MSG(test, rwsem_is_contended(&other->mmap_lock),
			      "exit_mmap() never waited for the mmap_lock");
	KUNIT_EXPECT_EQ(test, atomic_read(&other->mm_users), 0);
	queue_work(system_unbound_wq, &release.work);
	msleep(20);
	mmap_read_unlock(other);
	flush_work(&exit.work);
	flush_work(&release.work);
	destroy_work_on_stack(&exit.work);
	destroy_work_on_stack(&release.work);

	mm_pin_expect_released_other(test, other);
}

/*
 * A workqueue releases a pin of an mm whose owner still runs: the vmas
 * lose VM_PINNED and merge back, and the counters are exact.
 */
static void mm_pin_released_by_another_task(struct kunit *test)
{
	struct mm_pin_work w = { .mm = NULL };
	unsigned long base;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	mm_test_setup(test, base, "LLBBBBLL");
	w.pin = mm_test(test)->pins[0];
	mm_test(test)->pins[0] = NULL;
	mm_pin_munpin_in_workqueue(&w);

	MM_TEST_EXPECT_PAGES(test, base, "LLLLLLLL");
	KUNIT_EXPECT_EQ(test, mm_test(test)->mm->map_count, 1);
	MM_TEST_EXPECT_RELEASED(test, base, "LLLLLLLL", 1);
}

/* --- Release from any context --- */

/*
 * The pinners release where they must: perf in vm_ops->close() under the
 * mmap_lock of the mm (read in munmap, write in exit_mmap() and mremap),
 * ib_umem at file close, from a process that may hold its own mmap_lock
 * or after the owner exited, drivers from a completion interrupt.  Each
 * row pins the window of an mm of its own, brings the pin to a state,
 * releases it with a lock held and from a context, and checks whether the
 * charge is back when the call returns.  A detached pin is always
 * released at once (pins_lock only); an attached one by mm_munpin(), or
 * by mm_pin_wq after mm_munpin_async(), which never waits for the
 * mmap_lock.  The rows of an attached pin hold its mm's mmap_lock until
 * they have looked, so the work cannot have run yet.  Then the workqueue
 * is flushed and the mm must be as if the window had never been pinned:
 * no charge, no pin on either list, no VM_PINNED, the counters agreeing
 * with the vmas, and the pin's hold on the mm_struct dropped.
 */
enum mm_pin_state {
	PIN_ATTACHED,		/* the window mapped as pinned */
	PIN_UNMAPPED,		/* the window unmapped: the pin is detached */
	PIN_EXITED,		/* the owner exited: detached by exit_mmap() */
};

enum mm_pin_lock {
	NO_LOCK,
	PIN_MM_READ,		/* the pinned mm's mmap_lock, for read */
	PIN_MM_WRITE,		/* the pinned mm's mmap_lock, for write */
	OWN_MM_WRITE,		/* the releasing task's own mmap_lock, for write */
};

enum mm_pin_where {
	IN_TASK,
	IN_IRQS_OFF,		/* a task with interrupts disabled */
	IN_HARDIRQ,		/* an hrtimer in hard interrupt context */
};

enum mm_pin_release_call {
	SYNC,			/* mm_munpin() */
	ASYNC,			/* mm_munpin_async() */
};

struct mm_pin_release {
	const char *name;
	enum mm_pin_state state;
	enum mm_pin_lock lock;
	enum mm_pin_where where;
	enum mm_pin_release_call call;
	bool returned;		/* the charge is back when the call returns */
};

static const struct mm_pin_release mm_pin_releases[] = {
	/* name                           pin           lock held     runs in      call   back */
	{ "attached_munpin",              PIN_ATTACHED, NO_LOCK,      IN_TASK,     SYNC,  true },
	{ "attached_async_read_locked",   PIN_ATTACHED, PIN_MM_READ,  IN_TASK,     ASYNC, false },
	{ "attached_async_write_locked",  PIN_ATTACHED, PIN_MM_WRITE, IN_TASK,     ASYNC, false },
	{ "attached_async_irqs_off",      PIN_ATTACHED, PIN_MM_READ,  IN_IRQS_OFF, ASYNC, false },
	{ "attached_async_hardirq",       PIN_ATTACHED, PIN_MM_READ,  IN_HARDIRQ,  ASYNC, false },
	{ "unmapped_munpin",              PIN_UNMAPPED, NO_LOCK,      IN_TASK,     SYNC,  true },
	{ "unmapped_munpin_read_locked",  PIN_UNMAPPED, PIN_MM_READ,  IN_TASK,     SYNC,  true },
	{ "unmapped_munpin_write_locked", PIN_UNMAPPED, PIN_MM_WRITE, IN_TASK,     SYNC,  true },
	{ "unmapped_munpin_own_locked",   PIN_UNMAPPED, OWN_MM_WRITE, IN_TASK,     SYNC,  true },
	{ "unmapped_async",               PIN_UNMAPPED, NO_LOCK,      IN_TASK,     ASYNC, true },
	{ "unmapped_async_read_locked",   PIN_UNMAPPED, PIN_MM_READ,  IN_TASK,     ASYNC, true },
	{ "unmapped_async_write_locked",  PIN_UNMAPPED, PIN_MM_WRITE, IN_TASK,     ASYNC, true },
	{ "unmapped_async_own_locked",    PIN_UNMAPPED, OWN_MM_WRITE, IN_TASK,     ASYNC, true },
	{ "unmapped_async_irqs_off",      PIN_UNMAPPED, NO_LOCK,      IN_IRQS_OFF, ASYNC, true },
	{ "unmapped_async_hardirq",       PIN_UNMAPPED, NO_LOCK,      IN_HARDIRQ,  ASYNC, true },
	{ "exited_munpin",                PIN_EXITED,   NO_LOCK,      IN_TASK,     SYNC,  true },
	{ "exited_munpin_own_locked",     PIN_EXITED,   OWN_MM_WRITE, IN_TASK,     SYNC,  true },
	{ "exited_async",                 PIN_EXITED,   NO_LOCK,      IN_TASK,     ASYNC, true },
	{ "exited_async_irqs_off",        PIN_EXITED,   NO_LOCK,      IN_IRQS_OFF, ASYNC, true },
	{ "exited_async_hardirq",         PIN_EXITED,   NO_LOCK,      IN_HARDIRQ,  ASYNC, true },
};

static void mm_pin_release_desc(const struct mm_pin_release *r, char *desc)
{
	mm_test_desc(r->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_release, mm_pin_releases, mm_pin_release_desc);

struct mm_pin_irq {
	struct hrtimer timer;
	struct mm_pin *pin;
	struct completion done;
	bool in_task;
};

static enum hrtimer_restart mm_pin_irq_fn(struct hrtimer *timer)
{
	struct mm_pin_irq *irq = container_of(timer, struct mm_pin_irq, timer);

	irq->in_task = in_task();
	mm_munpin_async(irq->pin);
	complete(&irq->done);
	return HRTIMER_NORESTART;
}

/* Release @pin as @r says, with its lock already held. */
static void mm_pin_release_in(struct kunit *test, const struct mm_pin_release *r,
			      struct mm_pin *pin)
{
	struct mm_pin_irq irq = { .pin = pin, .in_task = true };

	switch (r->where) {
	case IN_TASK:
		if (r->call == SYNC)
			mm_munpin(pin);
		else
			mm_munpin_async(pin);
		break;
	case IN_IRQS_OFF:
		local_irq_disable();
		mm_munpin_async(pin);
		local_irq_enable();
		break;
	case IN_HARDIRQ:
		init_completion(&irq.done);
		hrtimer_init_on_stack(&irq.timer, CLOCK_MONOTONIC,
				      HRTIMER_MODE_REL_HARD);
		irq.timer.function = mm_pin_irq_fn;
		hrtimer_start(&irq.timer, ns_to_ktime(1000),
			      HRTIMER_MODE_REL_HARD);
		wait_for_completion(&irq.done);
		destroy_hrtimer_on_stack(&irq.timer);
		KUNIT_EXPECT_FALSE_MSG(test, irq.in_task,
				       "the hrtimer ran in task context");
		break;
	}
}

static void mm_pin_release_context(struct kunit *test)
{
	const struct mm_pin_release *r = test->param_value;
	struct mm_struct *own = mm_test(test)->mm, *other;
	struct rw_semaphore *lock = NULL;
	struct vm_area_struct *vma;
	unsigned long addr;
	struct mm_pin *pin;
	int count;

	other = mm_pin_other_mm(test, &pin);
	addr = list_first_entry(&pin->ranges, struct mm_pin_range, node)->start;
	mmgrab(other);			/* to look at it to the end */
	if (r->state == PIN_UNMAPPED) {
		mmap_write_lock(other);
		KUNIT_EXPECT_EQ(test, do_munmap(other, addr,
						MM_TEST_PAGES * PAGE_SIZE, NULL), 0);
		mmap_write_unlock(other);
	} else if (r->state == PIN_EXITED) {
		mmput(other);
	}
	KUNIT_EXPECT_EQ(test, (int)pin->detached, (int)(r->state != PIN_ATTACHED));
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);
	mm_test_drop_lazy(own);
	count = atomic_read(&other->mm_count);

	if (r->lock == PIN_MM_READ || r->lock == PIN_MM_WRITE)
		lock = &other->mmap_lock;
	else if (r->lock == OWN_MM_WRITE)
		lock = &own->mmap_lock;
	if (r->lock == PIN_MM_READ)
		down_read(lock);
	else if (lock)
		down_write(lock);

	mm_pin_release_in(test, r, pin);
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&other->pinned_vm),
			    r->returned ? 0LL : (s64)MM_TEST_PAGES,
			    "pinned_vm when the release returns");
	if (r->state == PIN_ATTACHED && !r->returned) {
		vma = vma_lookup(other, addr);
		KUNIT_EXPECT_TRUE(test, vma && (vma->vm_flags & VM_PINNED));
	}

	if (r->lock == PIN_MM_READ)
		up_read(lock);
	else if (lock)
		up_write(lock);
	flush_workqueue(mm_pin_wq);

	if (r->state == PIN_EXITED) {
		mm_pin_expect_released_other(test, other);
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	mmap_read_lock(other);
	vma = vma_lookup(other, addr);
	if (r->state == PIN_ATTACHED)
		KUNIT_EXPECT_TRUE(test, vma && !(vma->vm_flags & VM_PINNED));
	else
		KUNIT_EXPECT_NULL(test, vma);
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(other), 0);
	mmap_read_unlock(other);
	mm_test_drop_lazy(own);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&other->mm_count), count - 1,
			    "mm_count once the pin is released: one less");
	mmput(other);
	mmdrop(other);
}

/* --- Many pins --- */

#define MM_PIN_MANY	64

/*
 * A process holds many registrations: 64 one-page pins on every other page
 * of 128, an munmap across 20 of them, and a pin over 20 pages that nests
 * 10 more.  The counters must be exact, the vmas marked as the pins say
 * (mm_check_locked_pages() also checks that the interval tree of the
 * ranges holds exactly the pins' ranges), and once every pin is released
 * nothing may stay marked and the vmas must merge back.
 */
static void mm_pin_many_pins(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin *pins[MM_PIN_MANY + 1] = { NULL };
	struct vm_area_struct *vma;
	unsigned long base, addr;
	int i, marked = 0;

	base = mm_test_map(test, 2 * MM_PIN_MANY, MAP_POPULATE);
	for (i = 0; i < MM_PIN_MANY; i++) {
		pins[i] = mm_mpin(mm, base + 2 * i * PAGE_SIZE, PAGE_SIZE);
		if (IS_ERR(pins[i])) {
			KUNIT_FAIL(test, "pin %d: %ld", i, PTR_ERR(pins[i]));
			pins[i] = NULL;
		}
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)MM_PIN_MANY);
	KUNIT_EXPECT_EQ(test, mm->map_count, 2 * MM_PIN_MANY);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);

	/* pages 20-59: the pins of pages 20, 22, ..., 58 lose their range */
	KUNIT_EXPECT_EQ(test, vm_munmap(base + 20 * PAGE_SIZE, 40 * PAGE_SIZE), 0);
	for (i = 10; i < 30; i++)
		KUNIT_EXPECT_TRUE(test, pins[i] && pins[i]->detached);
	/* pages 80-99, over the pins of pages 80, 82, ..., 98 */
	pins[MM_PIN_MANY] = mm_mpin(mm, base + 80 * PAGE_SIZE, 20 * PAGE_SIZE);
	KUNIT_EXPECT_FALSE(test, IS_ERR(pins[MM_PIN_MANY]));
	if (IS_ERR(pins[MM_PIN_MANY]))
		pins[MM_PIN_MANY] = NULL;
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm),
			(s64)MM_PIN_MANY + 20);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	mmap_read_lock(mm);
	for (addr = base; addr < base + 2 * MM_PIN_MANY * PAGE_SIZE;
	     addr += PAGE_SIZE) {
		vma = vma_lookup(mm, addr);
		marked += vma && (vma->vm_flags & VM_PINNED);
	}
	mmap_read_unlock(mm);
	/* 44 pins of a page left mapped, of which 10 inside the long pin */
	KUNIT_EXPECT_EQ(test, marked, 44 - 10 + 20);

	for (i = 0; i <= MM_PIN_MANY; i++)
		if (pins[i])
			mm_munpin(pins[i]);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&mm->pin_ranges.rb_root));
	KUNIT_EXPECT_EQ(test, mm->map_count, 2);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
}

/* --- A driver that pins the vma it maps: mm_mpin_vma() --- */

/*
 * What perf does with its ring buffer, in a test driver: the buffer's
 * first mapping is pinned by its f_op->mmap() with mm_mpin_vma(), further
 * mappings of the buffer are not charged again, and the last vm_ops->close()
 * releases the pin with mm_munpin_async(), under the mmap_lock.
 */
#define MM_PIN_DRV_PAGES	4

struct mm_pin_drv {
	atomic_t maps;
	struct mm_pin *pin;
	bool dontexpand;
	struct page *pages[MM_PIN_DRV_PAGES];
};

/* The buffer's pages, as perf_mmap_fault() gives them. */
static vm_fault_t mm_pin_drv_fault(struct vm_fault *vmf)
{
	struct mm_pin_drv *drv = vmf->vma->vm_file->private_data;
	struct page *page;

	if (vmf->pgoff >= MM_PIN_DRV_PAGES)
		return VM_FAULT_SIGBUS;
	page = drv->pages[vmf->pgoff];
	get_page(page);
	page->mapping = vmf->vma->vm_file->f_mapping;
	page->index = vmf->pgoff;
	vmf->page = page;
	return 0;
}

static void mm_pin_drv_open(struct vm_area_struct *vma)
{
	struct mm_pin_drv *drv = vma->vm_file->private_data;

	atomic_inc(&drv->maps);
}

static void mm_pin_drv_close(struct vm_area_struct *vma)
{
	struct mm_pin_drv *drv = vma->vm_file->private_data;

	if (atomic_dec_and_test(&drv->maps)) {
		mm_munpin_async(drv->pin);
		drv->pin = NULL;
	}
}

static int mm_pin_drv_may_split(struct vm_area_struct *vma, unsigned long addr)
{
	return -EINVAL;
}

static const struct vm_operations_struct mm_pin_drv_vmops = {
	.open = mm_pin_drv_open,
	.close = mm_pin_drv_close,
	.may_split = mm_pin_drv_may_split,
	.fault = mm_pin_drv_fault,
};

static int mm_pin_drv_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mm_pin_drv *drv = file->private_data;
	struct mm_pin *pin;

	vma->vm_flags |= VM_DONTCOPY | (drv->dontexpand ? VM_DONTEXPAND : 0);
	if (!drv->pin) {
		pin = mm_mpin_vma(vma);
		if (IS_ERR(pin))
			return PTR_ERR(pin);
		drv->pin = pin;
	}
	atomic_inc(&drv->maps);
	vma->vm_ops = &mm_pin_drv_vmops;
	return 0;
}

static const struct file_operations mm_pin_drv_fops = {
	.mmap = mm_pin_drv_mmap,
};

enum mm_pin_drv_step_kind {
	DRV_NONE,
	DRV_MAP,	/* map the buffer, as mapping .map */
	DRV_MUNMAP,	/* munmap mapping .map whole */
	DRV_MLOCK,	/* mlock mapping .map */
	DRV_WIN_MLOCK,	/* mlock .n pages of the window */
	DRV_WIN_PIN,	/* mm_mpin() .n pages of the window */
};

struct mm_pin_drv_step {
	enum mm_pin_drv_step_kind kind;
	int map;	/* which mapping of the buffer: 0 or 1 */
	int n;		/* pages of the window */
	int ret;	/* what the step must return */
};

#define DMAP(m)		{ .kind = DRV_MAP, .map = m }
#define DMAP_ERR(m, e)	{ .kind = DRV_MAP, .map = m, .ret = e }
#define DUNMAP(m)	{ .kind = DRV_MUNMAP, .map = m }
#define DMLOCK(m)	{ .kind = DRV_MLOCK, .map = m }
#define WMLOCK(np, e)	{ .kind = DRV_WIN_MLOCK, .n = np, .ret = e }
#define WPIN(np, e)	{ .kind = DRV_WIN_PIN, .n = np, .ret = e }

struct mm_pin_drv_case {
	const char *name;
	bool plain;			/* the driver forgets VM_DONTEXPAND */
	long limit;			/* RLIMIT_MEMLOCK in pages, or 0 */
	struct mm_pin_drv_step steps[4];
	const char *maps;		/* mapping 0 and 1: '-' not mapped,
					 * '.' mapped, 'P' pinned
					 */
	unsigned long pinned;		/* pinned_vm afterwards */
	unsigned long locked;		/* locked_vm afterwards */
};

static const struct mm_pin_drv_case mm_pin_drv_cases[] = {
	/*
	 * name, driver without VM_DONTEXPAND, RLIMIT_MEMLOCK;
	 *   steps; mappings after, pinned_vm, locked_vm
	 */
	{ "map_pins_the_vma", false, 0,
	  { DMAP(0) }, "P-", 4, 0 },
	{ "munmap_returns_the_charge", false, 0,
	  { DMAP(0), DUNMAP(0) }, "--", 0, 0 },
	{ "second_mapping_not_charged", false, 0,
	  { DMAP(0), DMAP(1) }, "P.", 4, 0 },
	{ "first_unmapped_charge_stays", false, 0,
	  { DMAP(0), DMAP(1), DUNMAP(0) }, "-.", 4, 0 },
	{ "both_unmapped", false, 0,
	  { DMAP(0), DMAP(1), DUNMAP(0), DUNMAP(1) }, "--", 0, 0 },
	{ "mlock_leaves_it_alone", false, 0,
	  { DMAP(0), DMLOCK(0) }, "P-", 4, 0 },
	{ "caller_checks_the_limit", false, 2,
	  { DMAP(0) }, "P-", 4, 0 },
	{ "counts_for_mlock_within", false, 6,
	  { DMAP(0), WMLOCK(2, 0) }, "P-", 4, 2 },
	{ "counts_for_mlock_over", false, 6,
	  { DMAP(0), WMLOCK(3, -ENOMEM) }, "P-", 4, 0 },
	{ "counts_for_mm_mpin_over", false, 6,
	  { DMAP(0), WPIN(3, -ENOMEM) }, "P-", 4, 0 },
	{ "without_dontexpand_refused", true, 0,
	  { DMAP_ERR(0, -EINVAL) }, "--", 0, 0 },
};

static void mm_pin_drv_desc(const struct mm_pin_drv_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_drv, mm_pin_drv_cases, mm_pin_drv_desc);

static long mm_pin_drv_step(struct kunit *test, struct file *file,
			    const struct mm_pin_drv_step *s,
			    unsigned long *maps, unsigned long base)
{
	unsigned long len = MM_PIN_DRV_PAGES * PAGE_SIZE, addr;
	struct mm_test *fx = mm_test(test);

	switch (s->kind) {
	case DRV_MAP:
		addr = vm_mmap(file, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
		if (IS_ERR_VALUE(addr))
			return (long)addr;
		maps[s->map] = addr;
		return 0;
	case DRV_MUNMAP:
		addr = maps[s->map];
		maps[s->map] = 0;
		return vm_munmap(addr, len);
	case DRV_MLOCK:
		return __do_sys_mlock(maps[s->map], len);
	case DRV_WIN_MLOCK:
		return __do_sys_mlock(base, s->n * PAGE_SIZE);
	case DRV_WIN_PIN:
		fx->pins[0] = mm_mpin(fx->mm, base, s->n * PAGE_SIZE);
		if (!IS_ERR(fx->pins[0]))
			return 0;
		addr = PTR_ERR(fx->pins[0]);
		fx->pins[0] = NULL;
		return (long)addr;
	default:
		return 0;
	}
}

/*
 * Each row runs its steps on the driver's buffer and the window, then
 * checks the counters against the vmas and the pins, and what the two
 * mappings of the buffer look like.  Then it unmaps what is left: the last
 * close must have released the pin, and pinned_vm must be 0.
 */
/* A driver's buffer behind an anon inode file; NULL if out of memory. */
static struct file *mm_pin_drv_file(struct mm_pin_drv *drv)
{
	struct file *file;
	int i;

	for (i = 0; i < MM_PIN_DRV_PAGES; i++)
		drv->pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
	file = anon_inode_getfile("[mm_pin_drv]", &mm_pin_drv_fops, drv, O_RDWR);
	for (i = 0; i < MM_PIN_DRV_PAGES && !IS_ERR(file); i++)
		if (!drv->pages[i]) {
			fput(file);
			file = ERR_PTR(-ENOMEM);
		}
	if (!IS_ERR(file))
		return file;
	for (i = 0; i < MM_PIN_DRV_PAGES; i++)
		if (drv->pages[i])
			__free_page(drv->pages[i]);
	return NULL;
}

/* Once nothing maps it, as rb_free_page() does. */
static void mm_pin_drv_put(struct mm_pin_drv *drv, struct file *file)
{
	int i;

	fput(file);
	for (i = 0; i < MM_PIN_DRV_PAGES; i++) {
		drv->pages[i]->mapping = NULL;
		__free_page(drv->pages[i]);
	}
}

static void mm_pin_vma(struct kunit *test)
{
	const struct mm_pin_drv_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin_drv drv = { .dontexpand = !c->plain };
	unsigned long maps[2] = { 0, 0 }, base;
	struct vm_area_struct *vma;
	struct file *file;
	char seen[3];
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	file = mm_pin_drv_file(&drv);
	KUNIT_ASSERT_NOT_NULL(test, file);
	if (c->limit)
		mm_test_limit(test, c->limit, false);
	for (i = 0; i < ARRAY_SIZE(c->steps) && c->steps[i].kind; i++)
		KUNIT_EXPECT_EQ_MSG(test, mm_pin_drv_step(test, file, &c->steps[i], maps, base),
				    (long)c->steps[i].ret, "step %d", i + 1);
	mm_test_unlimit(test);

	mmap_read_lock(mm);
	for (i = 0; i < 2; i++) {
		vma = maps[i] ? vma_lookup(mm, maps[i]) : NULL;
		seen[i] = !vma ? '-' : vma->vm_flags & VM_PINNED ? 'P' : '.';
	}
	mmap_read_unlock(mm);
	seen[2] = '\0';
	KUNIT_EXPECT_STREQ(test, seen, c->maps);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);

	for (i = 0; i < 2; i++)
		if (maps[i])
			KUNIT_EXPECT_EQ(test, vm_munmap(maps[i], MM_PIN_DRV_PAGES * PAGE_SIZE), 0);
	mm_test_release(test);
	KUNIT_EXPECT_NULL_MSG(test, drv.pin, "the last close releases the pin");
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	mm_pin_drv_put(&drv, file);
}

/*
 * The owner of a pinned driver mapping exits: exit_mmap() detaches the
 * pin, and the driver's close releases it there, under the mmap_lock,
 * with the charge back and the pin's hold on the mm_struct dropped.
 */
static void mm_pin_vma_owner_exits(struct kunit *test)
{
	struct mm_pin_drv drv = { .dontexpand = true };
	struct mm_struct *mm = mm_test(test)->mm, *other;
	unsigned long addr;
	struct file *file;

	file = mm_pin_drv_file(&drv);
	KUNIT_ASSERT_NOT_NULL(test, file);
	other = mm_test_new_mm();
	if (!other)
		mm_pin_drv_put(&drv, file);
	KUNIT_ASSERT_NOT_NULL(test, other);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(file, 0, MM_PIN_DRV_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_SHARED, 0);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	KUNIT_EXPECT_FALSE(test, IS_ERR_VALUE(addr));
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_PIN_DRV_PAGES);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);

	mmgrab(other);			/* to look at it once it is gone */
	mmput(other);			/* the owner exits */
	KUNIT_EXPECT_NULL_MSG(test, drv.pin, "the close in exit_mmap() releases the pin");
	mm_pin_expect_released_other(test, other);
	mm_pin_drv_put(&drv, file);
}

static struct kunit_case mm_pin_test_cases[] = {
	KUNIT_CASE_PARAM(mm_pin_transition, mm_pin_transition_gen_params),
	KUNIT_CASE_PARAM(mm_pin_sequence, mm_pin_gen_params),
	KUNIT_CASE(mm_pin_check_finds_faults),
	KUNIT_CASE_PARAM(mm_pin_populates, mm_pin_populate_gen_params),
	KUNIT_CASE_PARAM(mm_pin_hugetlb, mm_pin_huge_gen_params),
	KUNIT_CASE(mm_pin_released_after_exit),
	KUNIT_CASE(mm_pin_released_during_exit),
	KUNIT_CASE(mm_pin_released_by_another_task),
	KUNIT_CASE_PARAM(mm_pin_release_context, mm_pin_release_gen_params),
	KUNIT_CASE(mm_pin_many_pins),
	KUNIT_CASE_PARAM(mm_pin_vma, mm_pin_drv_gen_params),
	KUNIT_CASE(mm_pin_vma_owner_exits),
	{}
};

static struct kunit_suite mm_pin_test_suite = {
	.name = "mm_pin",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_pin_test_cases,
};

kunit_test_suite(mm_pin_test_suite);

#endif /* _MPIN_TEST_H */

#endif /* CONFIG_MM_PIN_KUNIT_TEST */
