/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a pinner converted to mm_mpin() pays (mm_pin_cost suite).
 *
 * Registration and release the way a pinner does them before the series
 * (ib_umem_get(): pin_user_pages_fast() with FOLL_LONGTERM, then pinned_vm
 * charged and checked against RLIMIT_MEMLOCK; unpin_user_pages() and
 * uncharge) and after it (mm_mpin_flags() with MM_MPIN_NOPOPULATE, as the
 * converted pinners call it, then the same pin_user_pages_fast();
 * unpin_user_pages() and mm_munpin()), in one run, on the same kernel, of
 * 1 page, 2 MiB and 64 MiB, on memory the registration faults in (fresh)
 * and on memory already present (populated); and the cost of one
 * registration and release while 10 and while 1,000 pins are held in the
 * mm.  Each measurement is the median of its repetitions, with the two
 * ways alternating in each repetition, each on a mapping of its own.
 *
 * Each row also prints the medians of the converted pinner's mm_mpin_flags()
 * and mm_munpin() alone, which say where its time goes.
 *
 * It measures, it does not judge: each row prints its times as a KTAP
 * diagnostic line ("# cost: ...") that scripts/cost tabulates, and fails
 * only if a registration fails or leaves a charge behind.  It is not in
 * the kunitconfigs of the test command: scripts/cost builds it with
 * kunitconfigs/cost/mm_pin_cost.kunitconfig, without KASAN, lockdep and
 * DEBUG_VM, so that the code is measured rather than its checkers.
 */

#ifdef CONFIG_MM_PIN_COST_KUNIT_TEST

#ifndef _MPIN_COST_TEST_H
#define _MPIN_COST_TEST_H

#include <kunit/test.h>
#include <linux/ktime.h>
#include <linux/sort.h>
#include "mm_test_util.h"

struct mm_pin_cost_case {
	const char *name;
	unsigned long pages;	/* the registration */
	bool populated;		/* its memory present before it */
	int reps;		/* repetitions, odd: the median is one of them */
};

static const struct mm_pin_cost_case mm_pin_cost_cases[] = {
	/* name                  pages  populated  reps */
	{ "fresh_1_page",            1, false,     101 },
	{ "fresh_2_MiB",           512, false,      21 },
	{ "fresh_64_MiB",        16384, false,       5 },
	{ "populated_1_page",        1, true,      101 },
	{ "populated_2_MiB",       512, true,       21 },
	{ "populated_64_MiB",    16384, true,        5 },
};

static void mm_pin_cost_desc(const struct mm_pin_cost_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(mm_pin_cost, mm_pin_cost_cases, mm_pin_cost_desc);

/* The times of one way of registering: per repetition, then the median. */
struct mm_pin_cost_times {
	u64 *reg, *rel;
	u64 *core_reg, *core_rel;	/* of which the charge or the pin */
};

static int mm_pin_cost_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static u64 mm_pin_cost_median(u64 *t, int n)
{
	sort(t, n, sizeof(*t), mm_pin_cost_cmp, NULL);
	return t[n / 2];
}

/* A mapping of @pages anonymous pages, present or not. */
static unsigned long mm_pin_cost_map(struct kunit *test, unsigned long pages,
				     bool populated)
{
	unsigned long addr;

	addr = vm_mmap(NULL, 0, pages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS |
		       (populated ? MAP_POPULATE : 0), 0);
	KUNIT_ASSERT_FALSE(test, IS_ERR_VALUE(addr));
	return addr;
}

/*
 * Register @pages pages at @addr and release them, as a pinner does before
 * the series (@converted false) or after it; record both times.
 */
static void mm_pin_cost_once(struct kunit *test, unsigned long addr,
			     unsigned long pages, struct page **pagev,
			     bool converted, u64 *reg, u64 *rel,
			     u64 *core_reg, u64 *core_rel)
{
	struct mm_struct *mm = mm_test(test)->mm;
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	struct mm_pin *pin = NULL;
	u64 t0, t1, t2, ta, tb;
	long n;

	t0 = ktime_get_ns();
	if (converted) {
		pin = mm_mpin_flags(mm, addr, pages * PAGE_SIZE,
				    MM_MPIN_NOPOPULATE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pin));
	} else if (atomic64_add_return(pages, &mm->pinned_vm) > limit &&
		   !capable(CAP_IPC_LOCK)) {
		atomic64_sub(pages, &mm->pinned_vm);
		KUNIT_FAIL(test, "over RLIMIT_MEMLOCK");
		return;
	}
	tb = ktime_get_ns();
	n = pin_user_pages_fast(addr, pages, FOLL_WRITE | FOLL_LONGTERM, pagev);
	t1 = ktime_get_ns();
	KUNIT_EXPECT_EQ(test, n, (long)pages);
	if (n > 0)
		unpin_user_pages(pagev, n);
	ta = ktime_get_ns();
	if (converted)
		mm_munpin(pin);
	else
		atomic64_sub(pages, &mm->pinned_vm);
	t2 = ktime_get_ns();
	*reg = t1 - t0;
	*rel = t2 - t1;
	*core_reg = tb - t0;
	*core_rel = t2 - ta;
}

/* ratio in hundredths */
static u64 mm_pin_cost_ratio(u64 converted, u64 pristine)
{
	return pristine ? div64_u64(converted * 100, pristine) : 0;
}

static void mm_pin_cost(struct kunit *test)
{
	const struct mm_pin_cost_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin_cost_times t[2];
	unsigned long addr[2];
	struct page **pagev;
	u64 reg[2], rel[2], core_reg, core_rel;
	int i, way;

	pagev = kunit_kcalloc(test, c->pages, sizeof(*pagev), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, pagev);
	for (way = 0; way < 2; way++) {
		t[way].reg = kunit_kcalloc(test, c->reps, sizeof(u64), GFP_KERNEL);
		t[way].rel = kunit_kcalloc(test, c->reps, sizeof(u64), GFP_KERNEL);
		t[way].core_reg = kunit_kcalloc(test, c->reps, sizeof(u64),
						GFP_KERNEL);
		t[way].core_rel = kunit_kcalloc(test, c->reps, sizeof(u64),
						GFP_KERNEL);
		KUNIT_ASSERT_TRUE(test, t[way].reg && t[way].rel &&
				  t[way].core_reg && t[way].core_rel);
	}

	for (i = 0; i < c->reps; i++) {
		for (way = 0; way < 2; way++)
			addr[way] = mm_pin_cost_map(test, c->pages, c->populated);
		/* way 0 the pristine pinner, way 1 the converted one */
		for (way = 0; way < 2; way++) {
			int w = (i & 1) ? 1 - way : way;

			mm_pin_cost_once(test, addr[w], c->pages, pagev, w,
					 &t[w].reg[i], &t[w].rel[i],
					 &t[w].core_reg[i], &t[w].core_rel[i]);
		}
		for (way = 0; way < 2; way++)
			vm_munmap(addr[way], c->pages * PAGE_SIZE);
	}
	for (way = 0; way < 2; way++) {
		reg[way] = mm_pin_cost_median(t[way].reg, c->reps);
		rel[way] = mm_pin_cost_median(t[way].rel, c->reps);
	}
	core_reg = mm_pin_cost_median(t[1].core_reg, c->reps);
	core_rel = mm_pin_cost_median(t[1].core_rel, c->reps);
	kunit_info(test, "cost: %s register pristine %llu ns converted %llu ns ratio %llu%% release pristine %llu ns converted %llu ns ratio %llu%% mm_mpin %llu ns mm_munpin %llu ns\n",
		   c->name, reg[0], reg[1], mm_pin_cost_ratio(reg[1], reg[0]),
		   rel[0], rel[1], mm_pin_cost_ratio(rel[1], rel[0]),
		   core_reg, core_rel);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&mm->pins));
}

/*
 * One more registration and its release while @held one-page pins are
 * held, each its own vma (every other page of a mapping), so that every
 * walk of the pins and the vmas has them all to go through.
 */
static void mm_pin_cost_held(struct kunit *test, int held, u64 *reg, u64 *rel)
{
	const int reps = 51;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin **pins;
	struct page *page;
	u64 *treg, *trel, core_reg, core_rel;
	unsigned long base;
	int i;

	pins = kunit_kcalloc(test, held, sizeof(*pins), GFP_KERNEL);
	treg = kunit_kcalloc(test, reps, sizeof(u64), GFP_KERNEL);
	trel = kunit_kcalloc(test, reps, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, pins && treg && trel);
	base = mm_pin_cost_map(test, 2 * held + 2, true);
	for (i = 0; i < held; i++) {
		pins[i] = mm_mpin(mm, base + 2 * i * PAGE_SIZE, PAGE_SIZE);
		KUNIT_ASSERT_FALSE(test, IS_ERR(pins[i]));
	}
	for (i = 0; i < reps; i++)
		mm_pin_cost_once(test, base + 2 * held * PAGE_SIZE, 1, &page,
				 true, &treg[i], &trel[i], &core_reg, &core_rel);
	for (i = 0; i < held; i++)
		mm_munpin(pins[i]);
	vm_munmap(base, (2 * held + 2) * PAGE_SIZE);
	*reg = mm_pin_cost_median(treg, reps);
	*rel = mm_pin_cost_median(trel, reps);
}

static void mm_pin_cost_many_pins(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm;
	u64 reg10, rel10, reg1000, rel1000;

	mm_pin_cost_held(test, 10, &reg10, &rel10);
	mm_pin_cost_held(test, 1000, &reg1000, &rel1000);
	kunit_info(test, "cost: held_pins register at 10 %llu ns at 1000 %llu ns ratio %llu%% release at 10 %llu ns at 1000 %llu ns ratio %llu%%\n",
		   reg10, reg1000, mm_pin_cost_ratio(reg1000, reg10),
		   rel10, rel1000, mm_pin_cost_ratio(rel1000, rel10));
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&mm->pins));
}

static struct kunit_case mm_pin_cost_test_cases[] = {
	KUNIT_CASE_PARAM(mm_pin_cost, mm_pin_cost_gen_params),
	KUNIT_CASE(mm_pin_cost_many_pins),
	{}
};

static struct kunit_suite mm_pin_cost_test_suite = {
	.name = "mm_pin_cost",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_pin_cost_test_cases,
};

kunit_test_suite(mm_pin_cost_test_suite);

#endif /* _MPIN_COST_TEST_H */

#endif /* CONFIG_MM_PIN_COST_KUNIT_TEST */
