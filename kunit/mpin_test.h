/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of long-term pins (mm_pin suite): mm_mpin() and mm_munpin()
 * and what they do to VM_PINNED, pinned_vm and locked_vm.
 *
 * Included at the end of mm/mlock.c, after mlock_test.h, whose operations
 * (the mlock, mlock2, munlock and mlockall system call bodies, munmap) the
 * cases use next to the pin operations.  Each case maps a populated window
 * of MM_TEST_PAGES anonymous pages in a private mm of the test kthread.
 *
 * The tables:
 * - mm_pin_transitions: one row per (flags before -> operation -> flags
 *   after) over VM_PINNED, VM_LOCKED and VM_LOCKONFAULT, on the whole
 *   window and on its middle, with the change of pinned_vm and locked_vm;
 * - mm_pin_cases (run by mm_pin_sequence): pin lifetime (several pinners, munmap while pinned,
 *   a late release after the addresses were reused), RLIMIT_MEMLOCK shared
 *   by pins and locks, vm.max_map_count, and bad input.
 * After every row the counters must equal what the vmas and the pins say,
 * by the suite's own count and by mm_check_locked_pages(), and they must
 * again once every pin is released.
 *
 * Pictures of the window, a letter a page (mm_test_pages()): '-' not
 * mapped, '.' mapped, 'L' locked, 'F' locked on fault, 'P' pinned, 'B'
 * pinned and locked, 'O' pinned and locked on fault.
 */

#ifdef CONFIG_MM_PIN_KUNIT_TEST

#ifndef _MPIN_TEST_H
#define _MPIN_TEST_H

#include <kunit/test.h>
#include <linux/syscalls.h>
#include <linux/workqueue.h>
#include "mm_test_util.h"

#define MM_PIN_SLOTS	2

/*
 * The pins a case holds, and vm.max_map_count while a case lowers it:
 * .exit releases and restores what an aborted case left.
 */
static struct mm_pin *mm_pin_held[MM_PIN_SLOTS];
static int mm_pin_saved_max_map_count;

enum mm_pin_op_kind {
	MP_MLOCK = OP_MLOCK,		/* mlock(first, n) */
	MP_ONFAULT = OP_MLOCK_ONFAULT,	/* mlock2(first, n, MLOCK_ONFAULT) */
	MP_MUNLOCK = OP_MUNLOCK,	/* munlock(first, n) */
	MP_MUNMAP = OP_MUNMAP,		/* munmap(first, n) */
	MP_MLOCKALL = OP_MLOCKALL,	/* mlockall(n) */
	MP_PIN = 100,			/* held[slot] = mm_mpin(first, n) */
	MP_UNPIN,			/* mm_munpin(held[slot]) */
	MP_PIN_BYTES,			/* mm_mpin(base + first, n), in bytes */
	MP_PIN_WRAP,			/* mm_mpin() of the last page and one more */
	MP_MAP,				/* mmap(first, n, MAP_FIXED), populated */
	MP_MAP_NONE,			/* mmap(first, n, MAP_FIXED), PROT_NONE */
	MP_MAP_SPECIAL,			/* a special mapping at first, n */
	MP_MADV_DONTFORK,		/* madvise(first, n, MADV_DONTFORK) */
	MP_MADV_DOFORK,			/* madvise(first, n, MADV_DOFORK) */
};

struct mm_pin_op {
	enum mm_pin_op_kind kind;
	unsigned int slot;	/* MP_PIN, MP_UNPIN: which of mm_pin_held */
	unsigned int first;	/* page of the window */
	unsigned int n;		/* pages */
	int ret;		/* what the call must return */
};

#define PIN(s, f, np)		{ .kind = MP_PIN, .slot = s, .first = f, .n = np }
#define PIN_ERR(s, f, np, e)	{ .kind = MP_PIN, .slot = s, .first = f, .n = np, \
				  .ret = e }
#define UNPIN(s)		{ .kind = MP_UNPIN, .slot = s }
#define DO(k, f, np)		{ .kind = MP_##k, .first = f, .n = np }
#define DO_ERR(k, f, np, e)	{ .kind = MP_##k, .first = f, .n = np, .ret = e }

static const struct vm_special_mapping mm_pin_special = {
	.name = "[mm_pin_test]",
};

static long mm_pin_do_op(struct kunit *test, const struct mm_pin_op *op,
			 unsigned long base)
{
	unsigned long start = base + op->first * PAGE_SIZE;
	unsigned long len = op->n * PAGE_SIZE, addr;
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	struct mm_pin *pin;

	switch (op->kind) {
	case MP_PIN:
	case MP_PIN_BYTES:
	case MP_PIN_WRAP:
		KUNIT_ASSERT_TRUE(test, op->slot < MM_PIN_SLOTS);
		KUNIT_ASSERT_TRUE(test, !mm_pin_held[op->slot]);
		if (op->kind == MP_PIN_BYTES)
			pin = mm_mpin(mm, base + op->first, op->n);
		else if (op->kind == MP_PIN_WRAP)
			pin = mm_mpin(mm, PAGE_MASK, 2 * PAGE_SIZE);
		else
			pin = mm_mpin(mm, start, len);
		if (IS_ERR(pin))
			return PTR_ERR(pin);
		mm_pin_held[op->slot] = pin;
		return 0;
	case MP_UNPIN:
		KUNIT_ASSERT_TRUE(test, op->slot < MM_PIN_SLOTS);
		KUNIT_ASSERT_NOT_NULL(test, mm_pin_held[op->slot]);
		mm_munpin(mm_pin_held[op->slot]);
		mm_pin_held[op->slot] = NULL;
		return 0;
	case MP_MAP:
	case MP_MAP_NONE:
		addr = vm_mmap(NULL, start, len,
			       op->kind == MP_MAP ? PROT_READ | PROT_WRITE : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
			       (op->kind == MP_MAP ? MAP_POPULATE : 0), 0);
		return IS_ERR_VALUE(addr) ? (long)addr : 0;
	case MP_MAP_SPECIAL:
		if (vm_munmap(start, len))
			return -EINVAL;
		mmap_write_lock(mm);
		vma = _install_special_mapping(mm, start, len,
					       VM_READ | VM_MAYREAD,
					       &mm_pin_special);
		mmap_write_unlock(mm);
		return IS_ERR(vma) ? PTR_ERR(vma) : 0;
	case MP_MADV_DONTFORK:
		return do_madvise(mm, start, len, MADV_DONTFORK);
	case MP_MADV_DOFORK:
		return do_madvise(mm, start, len, MADV_DOFORK);
	default: {
		struct mm_mlock_op mop = {
			.kind = (enum mm_mlock_op_kind)op->kind,
			.first = op->first, .n = op->n,
		};

		return mm_mlock_do_op(&mop, base);
	}
	}
}

static void mm_pin_restore_max_map_count(void)
{
	if (mm_pin_saved_max_map_count)
		sysctl_max_map_count = mm_pin_saved_max_map_count;
	mm_pin_saved_max_map_count = 0;
}

/* Everything exact, and exact again once every pin is released. */
static void mm_pin_expect_exact(struct kunit *test, struct mm_struct *mm)
{
	mm_test_expect_exact(test, mm, mm_pin_held, MM_PIN_SLOTS);
}

/* --- The transition table --- */

struct mm_pin_transition {
	const char *name;
	const char *from;	/* the window before */
	struct mm_pin_op op;	/* the operation (MP_UNPIN: the pin of @from) */
	const char *to;		/* the window after */
	long pinned;		/* the change of pinned_vm */
	long locked;		/* the change of locked_vm */
	int vmas;		/* map_count after */
};

static const struct mm_pin_transition mm_pin_transitions[] = {
	/* name                    from        op (all: 0, 8; mid: 2, 4) to   pinned locked vmas */
	/* pin: 00 -> 10, 01 -> 11; the pages' lock charge moves to the pin */
	{ "none_pin_all",           "........", PIN(1, 0, 8),       "PPPPPPPP",  8,  0, 1 },
	{ "none_pin_mid",           "........", PIN(1, 2, 4),       "..PPPP..",  4,  0, 3 },
	{ "locked_pin_all",         "LLLLLLLL", PIN(1, 0, 8),       "BBBBBBBB",  8, -8, 1 },
	{ "locked_pin_mid",         "LLLLLLLL", PIN(1, 2, 4),       "LLBBBBLL",  4, -4, 3 },
	{ "onfault_pin_all",        "FFFFFFFF", PIN(1, 0, 8),       "OOOOOOOO",  8, -8, 1 },
	{ "onfault_pin_mid",        "FFFFFFFF", PIN(1, 2, 4),       "FFOOOOFF",  4, -4, 3 },
	/* a second pin: charged again, and the vmas split at its ends */
	{ "pinned_pin_all",         "PPPPPPPP", PIN(1, 0, 8),       "PPPPPPPP",  8,  0, 1 },
	{ "pinned_pin_mid",         "PPPPPPPP", PIN(1, 2, 4),       "PPPPPPPP",  4,  0, 3 },
	{ "both_pin_mid",           "BBBBBBBB", PIN(1, 2, 4),       "BBBBBBBB",  4,  0, 3 },
	/* lock and unlock of pinned pages: 10 <-> 11, nothing charged */
	{ "pinned_mlock_all",       "PPPPPPPP", DO(MLOCK, 0, 8),    "BBBBBBBB",  0,  0, 1 },
	{ "pinned_mlock_mid",       "PPPPPPPP", DO(MLOCK, 2, 4),    "PPBBBBPP",  0,  0, 3 },
	{ "pinned_onfault_all",     "PPPPPPPP", DO(ONFAULT, 0, 8),  "OOOOOOOO",  0,  0, 1 },
	{ "pinned_onfault_mid",     "PPPPPPPP", DO(ONFAULT, 2, 4),  "PPOOOOPP",  0,  0, 3 },
	{ "both_munlock_all",       "BBBBBBBB", DO(MUNLOCK, 0, 8),  "PPPPPPPP",  0,  0, 1 },
	{ "both_munlock_mid",       "BBBBBBBB", DO(MUNLOCK, 2, 4),  "BBPPPPBB",  0,  0, 3 },
	{ "both_onfault_all",       "BBBBBBBB", DO(ONFAULT, 0, 8),  "OOOOOOOO",  0,  0, 1 },
	{ "pinonfault_mlock_all",   "OOOOOOOO", DO(MLOCK, 0, 8),    "BBBBBBBB",  0,  0, 1 },
	{ "pinonfault_munlock_mid", "OOOOOOOO", DO(MUNLOCK, 2, 4),  "OOPPPPOO",  0,  0, 3 },
	{ "pinned_munlock_all",     "PPPPPPPP", DO(MUNLOCK, 0, 8),  "PPPPPPPP",  0,  0, 1 },
	/* release of the last pin: 10 -> 00, 11 -> 01, the lock charged again */
	{ "pinned_unpin",           "PPPPPPPP", UNPIN(0),           "........", -8,  0, 1 },
	{ "both_unpin",             "BBBBBBBB", UNPIN(0),           "LLLLLLLL", -8,  8, 1 },
	{ "pinonfault_unpin",       "OOOOOOOO", UNPIN(0),           "FFFFFFFF", -8,  8, 1 },
	{ "mid_pinned_unpin",       "..PPPP..", UNPIN(0),           "........", -4,  0, 1 },
	{ "mid_both_unpin",         "LLBBBBLL", UNPIN(0),           "LLLLLLLL", -4,  4, 1 },
	{ "mid_pinonfault_unpin",   "FFOOOOFF", UNPIN(0),           "FFFFFFFF", -4,  4, 1 },
	/* without a pin: 00 <-> 01, as mm_mlock shows in full */
	{ "none_mlock_all",         "........", DO(MLOCK, 0, 8),    "LLLLLLLL",  0,  8, 1 },
	{ "locked_munlock_mid",     "LLLLLLLL", DO(MUNLOCK, 2, 4),  "LL....LL",  0, -4, 3 },
};

static void mm_pin_transition_desc(const struct mm_pin_transition *t,
				   char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mm_pin_transition, mm_pin_transitions,
		  mm_pin_transition_desc);

/*
 * Make the window look like @from: lock its runs of locked pages (L, B;
 * F, O on fault), then pin its run of pinned pages (P, B, O) into slot 0.
 */
static void mm_pin_setup(struct kunit *test, unsigned long base,
			 const char *from)
{
	struct mm_pin_op op = { .slot = 0 };
	char pages[MM_TEST_PAGES + 1];
	unsigned int i, j;

	for (i = 0; i < MM_TEST_PAGES; i = j) {
		bool onfault = strchr("FO", from[i]);

		for (j = i + 1; j < MM_TEST_PAGES && from[j] == from[i]; j++)
			;
		if (!strchr("LBFO", from[i]))
			continue;
		op.kind = onfault ? MP_ONFAULT : MP_MLOCK;
		op.first = i;
		op.n = j - i;
		KUNIT_ASSERT_EQ(test, mm_pin_do_op(test, &op, base), 0L);
	}
	for (i = 0; i < MM_TEST_PAGES && !strchr("PBO", from[i]); i++)
		;
	for (j = i; j < MM_TEST_PAGES && strchr("PBO", from[j]); j++)
		;
	if (j > i) {
		op.kind = MP_PIN;
		op.first = i;
		op.n = j - i;
		KUNIT_ASSERT_EQ(test, mm_pin_do_op(test, &op, base), 0L);
	}
	KUNIT_ASSERT_STREQ(test, mm_test_pages(current->mm, base, MM_TEST_PAGES,
					       pages), from);
}

static const char *mm_pin_op_name(enum mm_pin_op_kind kind)
{
	switch (kind) {
	case MP_PIN:
		return "pin";
	case MP_UNPIN:
		return "unpin";
	case MP_MLOCK:
		return "mlock";
	case MP_ONFAULT:
		return "mlock_onfault";
	case MP_MUNLOCK:
		return "munlock";
	default:
		return "other";
	}
}

static void mm_pin_transition(struct kunit *test)
{
	const struct mm_pin_transition *t = test->param_value;
	struct mm_struct *mm = current->mm;
	char pages[MM_TEST_PAGES + 1];
	unsigned long base, locked;
	s64 pinned;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	mm_pin_setup(test, base, t->from);
	pinned = atomic64_read(&mm->pinned_vm);
	locked = mm->locked_vm;

	KUNIT_EXPECT_EQ(test, mm_pin_do_op(test, &t->op, base), 0L);
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
	mm_pin_expect_exact(test, mm);
}

/* --- Sequences: lifetime, limits, bad input --- */

struct mm_pin_case {
	const char *name;
	struct mm_pin_op ops[5];
	const char *pages;	/* the window afterwards */
	unsigned long pinned;	/* pinned_vm afterwards */
	unsigned long locked;	/* locked_vm afterwards */
	int vmas;		/* map_count afterwards; -1: not guaranteed */
	long limit;		/* RLIMIT_MEMLOCK in pages, MP_NO_MEMLOCK for 0,
				 * without CAP_IPC_LOCK...
				 */
	bool cap;		/* ...unless this keeps CAP_IPC_LOCK */
	bool map_limit;		/* vm.max_map_count is map_count + map_room */
	int map_room;
};

#define MP_NO_MEMLOCK	(-1)

static const struct mm_pin_case mm_pin_cases[] = {
	/* several pinners: each releases its own pages only */
	{ "overlap_release_outer", { PIN(0, 0, 8), PIN(1, 2, 4), UNPIN(0) },
	  "..PPPP..", 4, 0, 3 },
	{ "overlap_release_inner", { PIN(0, 0, 8), PIN(1, 2, 4), UNPIN(1) },
	  "PPPPPPPP", 8, 0, 3 },
	{ "same_range_twice", { PIN(0, 0, 8), PIN(1, 0, 8), UNPIN(0) },
	  "PPPPPPPP", 8, 0, 1 },
	{ "adjacent_pins", { PIN(0, 0, 4), PIN(1, 4, 4), UNPIN(0) },
	  "....PPPP", 4, 0, 2 },
	{ "overlap_locked_release_both", { DO(MLOCK, 0, 8), PIN(0, 0, 6),
	  PIN(1, 2, 6), UNPIN(1), UNPIN(0) }, "LLLLLLLL", 0, 8, -1 },
	/* a pinned vma split by madvise does not merge back until released */
	{ "madvise_inside_pin_no_merge", { PIN(0, 0, 8),
	  DO(MADV_DONTFORK, 2, 4), DO(MADV_DOFORK, 2, 4) }, "PPPPPPPP", 8, 0, 3 },
	{ "madvise_inside_pin_merges_on_release", { PIN(0, 0, 8),
	  DO(MADV_DONTFORK, 2, 4), DO(MADV_DOFORK, 2, 4), UNPIN(0) },
	  "........", 0, 0, 1 },

	/* munmap while pinned: the charge stays with the pin */
	{ "munmap_pinned_all", { PIN(0, 0, 8), DO(MUNMAP, 0, 8) },
	  "--------", 8, 0, 0 },
	{ "munmap_pinned_head", { PIN(0, 0, 8), DO(MUNMAP, 0, 2) },
	  "--......", 8, 0, 1 },
	{ "munmap_pinned_middle", { PIN(0, 2, 4), DO(MUNMAP, 3, 2) },
	  "...--...", 4, 0, 4 },
	{ "munmap_locked_pinned_tail", { DO(MLOCK, 0, 8), PIN(0, 4, 4),
	  DO(MUNMAP, 6, 2) }, "LLLLLL--", 4, 6, 2 },
	{ "munmap_spanning_mixed", { DO(MLOCK, 0, 4), PIN(0, 2, 4),
	  DO(MUNMAP, 1, 6) }, "L------.", 4, 1, 2 },
	{ "munmap_one_of_two_pins", { PIN(0, 0, 4), PIN(1, 4, 4),
	  DO(MUNMAP, 0, 4) }, "----PPPP", 8, 0, 1 },
	/* pin, munmap, pin again: the first charge is still there */
	{ "repin_after_munmap_over", { PIN(0, 0, 8), DO(MUNMAP, 0, 8),
	  DO(MAP, 0, 8), PIN_ERR(1, 0, 8, -ENOMEM) }, "........", 8, 0, 1,
	  .limit = 8 },
	{ "mlock_after_munmap_over", { PIN(0, 0, 8), DO(MUNMAP, 0, 8),
	  DO(MAP, 0, 8), DO_ERR(MLOCK, 0, 1, -ENOMEM) }, "........", 8, 0, 1,
	  .limit = 8 },
	/* a late release touches no new mapping at the same addresses */
	{ "reused_late_unpin_pinned", { PIN(0, 0, 8), DO(MUNMAP, 0, 8),
	  DO(MAP, 0, 8), PIN(1, 0, 8), UNPIN(0) }, "PPPPPPPP", 8, 0, 1 },
	{ "reused_late_unpin_locked", { PIN(0, 0, 8), DO(MUNMAP, 0, 8),
	  DO(MAP, 0, 8), DO(MLOCK, 0, 8), UNPIN(0) }, "LLLLLLLL", 0, 8, 1 },
	{ "reused_late_unpin_part", { PIN(0, 2, 4), DO(MUNMAP, 0, 8),
	  DO(MAP, 0, 8), PIN(1, 2, 2), UNPIN(0) }, "..PP....", 2, 0, 3 },

	/* one RLIMIT_MEMLOCK budget for pins and locks */
	{ "limit_pin_within", { PIN(0, 0, 4) }, "PPPP....", 4, 0, 2, .limit = 4 },
	{ "limit_pin_over", { PIN_ERR(0, 0, 5, -ENOMEM) }, "........", 0, 0, 1,
	  .limit = 4 },
	{ "limit_pin_after_mlock_over", { DO(MLOCK, 0, 4),
	  PIN_ERR(0, 4, 4, -ENOMEM) }, "LLLL....", 0, 4, 2, .limit = 6 },
	{ "limit_mlock_after_pin_over", { PIN(0, 0, 4),
	  DO_ERR(MLOCK, 4, 4, -ENOMEM) }, "PPPP....", 4, 0, 2, .limit = 6 },
	{ "limit_pin_locked_counts_once", { DO(MLOCK, 0, 4), PIN(0, 0, 4) },
	  "BBBB....", 4, 0, 2, .limit = 4 },
	{ "limit_mlock_pinned_counts_once", { PIN(0, 0, 4), DO(MLOCK, 0, 4) },
	  "BBBB....", 4, 0, 2, .limit = 4 },
	{ "limit_two_pins_count_twice", { PIN(0, 0, 4),
	  PIN_ERR(1, 0, 4, -ENOMEM) }, "PPPP....", 4, 0, 2, .limit = 6 },
	/* a pinned page counts once: 4 pinned + 4 locked, not 8 + 4 */
	{ "limit_mlockall_pinned", { PIN(0, 0, 4), DO(MLOCKALL, 0, MCL_CURRENT) },
	  "BBBBLLLL", 4, 4, 2, .limit = 8 },
	{ "limit_mlockall_unmapped_pin_over", { PIN(0, 0, 4), DO(MUNMAP, 0, 4),
	  DO_ERR(MLOCKALL, 0, MCL_CURRENT, -ENOMEM) }, "----....", 4, 0, 1,
	  .limit = 7 },
	{ "limit_release_frees", { PIN(0, 0, 4), UNPIN(0), PIN(1, 4, 4) },
	  "....PPPP", 4, 0, 2, .limit = 4 },
	{ "cap_ipc_lock_pin_over_limit", { PIN(0, 0, 8) }, "PPPPPPPP", 8, 0, 1,
	  .limit = 4, .cap = true },
	{ "no_memlock_eperm", { PIN_ERR(0, 0, 8, -EPERM) }, "........", 0, 0, 1,
	  .limit = MP_NO_MEMLOCK },
	{ "no_memlock_cap_ipc_lock", { PIN(0, 0, 8) }, "PPPPPPPP", 8, 0, 1,
	  .limit = MP_NO_MEMLOCK, .cap = true },

	/* vm.max_map_count: checked before anything changes */
	{ "map_count_two_splits_no_room", { PIN_ERR(0, 2, 4, -ENOMEM) },
	  "........", 0, 0, 1, .map_limit = true, .map_room = 1 },
	{ "map_count_two_splits_room", { PIN(0, 2, 4) }, "..PPPP..", 4, 0, 3,
	  .map_limit = true, .map_room = 2 },
	{ "map_count_no_split", { PIN(0, 0, 8) }, "PPPPPPPP", 8, 0, 1,
	  .map_limit = true, .map_room = 0 },

	/* bad input: a clear error, nothing changed */
	{ "bad_unaligned_start", { { .kind = MP_PIN_BYTES, .first = 1,
	  .n = PAGE_SIZE, .ret = -EINVAL } }, "........", 0, 0, 1 },
	{ "bad_unaligned_len", { { .kind = MP_PIN_BYTES, .first = 0,
	  .n = PAGE_SIZE + 1, .ret = -EINVAL } }, "........", 0, 0, 1 },
	{ "bad_empty", { PIN_ERR(0, 2, 0, -EINVAL) }, "........", 0, 0, 1 },
	{ "bad_wraps", { { .kind = MP_PIN_WRAP, .ret = -EINVAL } }, "........",
	  0, 0, 1 },
	{ "bad_hole", { DO(MUNMAP, 3, 2), PIN_ERR(0, 0, 8, -ENOMEM) },
	  "...--...", 0, 0, 2 },
	{ "bad_unmapped", { DO(MUNMAP, 0, 8), PIN_ERR(0, 0, 8, -ENOMEM) },
	  "--------", 0, 0, 0 },
	{ "bad_prot_none", { DO(MAP_NONE, 2, 4), PIN_ERR(0, 0, 8, -EINVAL) },
	  "........", 0, 0, 3 },
	{ "bad_special_mapping", { DO(MAP_SPECIAL, 4, 4),
	  PIN_ERR(0, 0, 8, -EINVAL) }, "........", 0, 0, 2 },
};

static void mm_pin_case_desc(const struct mm_pin_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(mm_pin, mm_pin_cases, mm_pin_case_desc);

static void mm_pin_sequence(struct kunit *test)
{
	const struct mm_pin_case *c = test->param_value;
	struct mm_struct *mm = current->mm;
	char pages[MM_TEST_PAGES + 1];
	const struct cred *old = NULL;
	unsigned long base;
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->limit) {
		old = mm_mlock_limit(c->limit > 0 ? c->limit : 0, c->cap);
		KUNIT_ASSERT_NOT_NULL(test, old);
	}
	if (c->map_limit) {
		mm_pin_saved_max_map_count = sysctl_max_map_count;
		sysctl_max_map_count = mm->map_count + c->map_room;
	}
	for (i = 0; i < ARRAY_SIZE(c->ops) && c->ops[i].kind; i++)
		KUNIT_EXPECT_EQ_MSG(test, mm_pin_do_op(test, &c->ops[i], base),
				    (long)c->ops[i].ret, "operation %d", i + 1);
	mm_pin_restore_max_map_count();
	if (old) {
		struct cred *cred = (struct cred *)current_cred();

		revert_creds(old);
		put_cred(cred);
	}

	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   c->pages);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, c->locked);
	if (c->vmas >= 0)
		KUNIT_EXPECT_EQ(test, mm->map_count, c->vmas);
	mm_pin_expect_exact(test, mm);
}

/* --- Single cases --- */

/* mm_check_locked_pages() finds each kind of fault it is there to find. */
static void mm_pin_check_finds_faults(struct kunit *test)
{
	struct mm_struct *mm = current->mm;
	struct vm_area_struct *vma;
	unsigned long base;
	struct mm_pin *pin;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	KUNIT_ASSERT_EQ(test, __do_sys_mlock(base, MM_TEST_PAGES * PAGE_SIZE), 0L);
	pin = mm_mpin(mm, base + 2 * PAGE_SIZE, 4 * PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
	mm_pin_held[0] = pin;

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
	pin->npages++;
	atomic64_inc(&mm->pinned_vm);
	KUNIT_EXPECT_EQ_MSG(test, mm_check_locked_pages(mm), -EINVAL,
			    "a pin beyond its vmas");
	atomic64_dec(&mm->pinned_vm);
	pin->npages--;
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(mm), 0);
	mmap_write_unlock(mm);
	mm_pin_expect_exact(test, mm);
}

/* mm_mpin() faults the range in, the lock-on-fault part too. */
static void mm_pin_populates(struct kunit *test)
{
	struct mm_struct *mm = current->mm;
	char pages[MM_TEST_PAGES + 1];
	unsigned long base;
	struct mm_pin *pin;

	base = mm_test_map(test, MM_TEST_PAGES, 0);
	KUNIT_ASSERT_EQ(test, __do_sys_mlock2(base + 4 * PAGE_SIZE, 4 * PAGE_SIZE,
					      MLOCK_ONFAULT), 0L);
	sync_mm_rss(mm);
	KUNIT_ASSERT_EQ(test, get_mm_counter(mm, MM_ANONPAGES), 0UL);

	pin = mm_mpin(mm, base, MM_TEST_PAGES * PAGE_SIZE);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
	mm_pin_held[0] = pin;
	sync_mm_rss(mm);
	KUNIT_EXPECT_EQ(test, get_mm_counter(mm, MM_ANONPAGES),
			(unsigned long)MM_TEST_PAGES);
	KUNIT_EXPECT_STREQ(test, mm_test_pages(mm, base, MM_TEST_PAGES, pages),
			   "PPPPOOOO");
	mm_pin_expect_exact(test, mm);
}

/*
 * hugetlb cannot be pinned through mm_mpin(): refused, not left uncounted.
 * hugetlbfs_file_mmap() sets VM_DONTEXPAND, so the VM_SPECIAL test refuses
 * it before vma_pinnable()'s own is_vm_hugetlb_page() test: this case shows
 * the result, not which of the two tests gives it.
 */
static void mm_pin_refuses_hugetlb(struct kunit *test)
{
#ifdef CONFIG_HUGETLB_PAGE
	unsigned long len = huge_page_size(&default_hstate), addr;
	struct mm_struct *mm = current->mm;
	struct mm_pin *pin;

	addr = ksys_mmap_pgoff(0, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_HUGETLB |
			       MAP_NORESERVE, -1, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "hugetlb mmap: %ld",
			       (long)addr);
	pin = mm_mpin(mm, addr, len);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pin), -EINVAL);
	if (!IS_ERR(pin))
		mm_pin_held[0] = pin;
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mmap_read_lock(mm);
	KUNIT_EXPECT_FALSE(test, vma_lookup(mm, addr)->vm_flags & VM_PINNED);
	mmap_read_unlock(mm);
	mm_pin_expect_exact(test, mm);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, len), 0);
#else
	kunit_skip(test, "needs CONFIG_HUGETLB_PAGE (CONFIG_HUGETLBFS)");
#endif
}

struct mm_pin_release_work {
	struct work_struct work;
	struct mm_pin *pin;
};

static void mm_pin_release_fn(struct work_struct *work)
{
	struct mm_pin_release_work *w =
		container_of(work, struct mm_pin_release_work, work);

	mm_munpin(w->pin);
}

/*
 * A pin of another mm, held across that mm's exit and released from a
 * workqueue: the charge stays with the pin until then.
 */
static void mm_pin_other_mm_released_after_exit(struct kunit *test)
{
	struct mm_struct *mm = current->mm, *other;
	struct mm_pin_release_work w;
	unsigned long addr;
	struct mm_pin *pin;

	other = mm_alloc();
	KUNIT_ASSERT_NOT_NULL(test, other);
	other->task_size = TASK_SIZE;
	arch_pick_mmap_layout(other, &current->signal->rlim[RLIMIT_STACK]);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(NULL, 0, MM_TEST_PAGES * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, 0);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	if (IS_ERR_VALUE(addr))
		mmput(other);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));

	/* Pinned from this kthread, whose own mm is another. */
	pin = mm_mpin(other, addr, MM_TEST_PAGES * PAGE_SIZE);
	if (IS_ERR(pin))
		mmput(other);
	KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	mmap_read_lock(other);
	KUNIT_EXPECT_TRUE(test, vma_lookup(other, addr)->vm_flags & VM_PINNED);
	KUNIT_EXPECT_EQ(test, mm_check_locked_pages(other), 0);
	mmap_read_unlock(other);

	/* The mm exits; the pin holds the mm_struct and keeps its charge. */
	mmgrab(other);
	mmput(other);
	KUNIT_EXPECT_TRUE(test, pin->detached);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), (s64)MM_TEST_PAGES);

	INIT_WORK_ONSTACK(&w.work, mm_pin_release_fn);
	w.pin = pin;
	schedule_work(&w.work);
	flush_work(&w.work);
	destroy_work_on_stack(&w.work);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins));
	mmdrop(other);
}

static int mm_pin_init(struct kunit *test)
{
	return mm_test_attach_mm(test);
}

static void mm_pin_exit(struct kunit *test)
{
	mm_pin_restore_max_map_count();
	mm_test_release(mm_pin_held, MM_PIN_SLOTS);
	mm_test_detach_mm(test);
}

static struct kunit_case mm_pin_test_cases[] = {
	KUNIT_CASE_PARAM(mm_pin_transition, mm_pin_transition_gen_params),
	KUNIT_CASE_PARAM(mm_pin_sequence, mm_pin_gen_params),
	KUNIT_CASE(mm_pin_check_finds_faults),
	KUNIT_CASE(mm_pin_populates),
	KUNIT_CASE(mm_pin_refuses_hugetlb),
	KUNIT_CASE(mm_pin_other_mm_released_after_exit),
	{}
};

static struct kunit_suite mm_pin_test_suite = {
	.name = "mm_pin",
	.init = mm_pin_init,
	.exit = mm_pin_exit,
	.test_cases = mm_pin_test_cases,
};

kunit_test_suite(mm_pin_test_suite);

#endif /* _MPIN_TEST_H */

#endif /* CONFIG_MM_PIN_KUNIT_TEST */
