/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of qib's expected TIDs (qib_user_pages suite):
 * qib_get_user_pages(), which qib_tid_update() calls for the pages of one
 * update, and qib_release_user_pages(), which qib_tid_update()'s error
 * path calls for all of them and qib_tid_free(), unlock_expected_tids() and
 * the removal of the device call one TID, one page, at a time.
 *
 * Included at the end of drivers/infiniband/hw/qib/qib_user_pages.c; no
 * device is needed, the functions take none.  Each case maps a populated
 * window of MM_TEST_PAGES anonymous pages in a private mm of the test
 * kthread (the fixture of mm/mm_test_util.h).
 *
 * The tables:
 * - qib_user_pages_cases (run by qib_user_pages_sequence): an update and
 *   its TIDs freed all at once, one by one, some of them, from a
 *   workqueue, after munmap, after munmap and a new mapping at the same
 *   addresses; two updates of one range; locked memory; RLIMIT_MEMLOCK
 *   shared with mlock, with and without CAP_IPC_LOCK;
 * - qib_user_pages_mappings (run by qib_user_pages_mapping): one row per
 *   kind of mapping, with what the pristine qib_get_user_pages() does
 *   with it, measured on the spot: after its limit check it is
 *   pin_user_pages() with the same flags, which the series does not
 *   change.  An update that worked there must work here, charged the same.
 * After every row the counters must equal what the vmas and the pins say
 * (mm_check_locked_pages()); then every page is released, pinned_vm must
 * be 0 and the window as the row says.
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_INFINIBAND_QIB_KUNIT_TEST

#ifndef _QIB_USER_PAGES_TEST_H
#define _QIB_USER_PAGES_TEST_H

#include <kunit/test.h>
#include "../../../../mm/mm_test_pinner.h"

/* qib_tid_update() and qib_tid_free(), without a device. */
static long qib_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			 unsigned int npages)
{
	struct qib_user_pin *up = qib_get_user_pages(addr, npages, slot->pages);

	if (IS_ERR(up))
		return PTR_ERR(up);
	slot->pin = up;
	return npages;
}

static void qib_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			 unsigned int n)
{
	qib_release_user_pages(slot->pin, slot->pages + first, n);
}

/*
 * What the pristine qib_get_user_pages() returns for the range, measured:
 * after its limit check (the case has no limit) it is this loop of
 * pin_user_pages() with the same flags, which this kernel runs as 6.1 does.
 */
static long qib_test_pristine(unsigned long addr, unsigned long npages)
{
	struct mm_struct *mm = current->mm;
	struct page **pages;
	long got = 0, ret = 0;

	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	mmap_read_lock(mm);
	while (got < npages) {
		ret = pin_user_pages(addr + got * PAGE_SIZE, npages - got,
				     FOLL_LONGTERM | FOLL_WRITE | FOLL_FORCE,
				     pages + got, NULL);
		if (ret < 0)
			break;
		got += ret;
	}
	mmap_read_unlock(mm);
	unpin_user_pages(pages, got);
	kfree(pages);
	return ret < 0 ? ret : got;
}

static const struct mm_test_pinner qib_test_pinner = {
	.get = qib_test_get,
	.put = qib_test_put,
	.pristine = qib_test_pristine,
};

static const struct mm_test_pin_case qib_user_pages_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "update", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "update_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	/* qib_tid_update()'s error path: every page of the update at once */
	{ "free_all_at_once", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* qib_tid_free() and unlock_expected_tids(): a page a TID */
	{ "free_each_tid", { GET(0, 0, 8), PUT_EACH(0) },
	  "........", 0, 0, "........", 1 },
	/* the charge of an update returns with the last of its TIDs */
	{ "free_some_tids_keeps_the_pin", { GET(0, 0, 8), PUT(0, 0, 1),
	  PUT(0, 5, 3) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "free_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	{ "two_updates_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and pinned is charged once, to the pin */
	{ "locked_then_updated", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "limit_within", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_update_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* RLIMIT_MEMLOCK 0 is mlock()'s -EPERM (-ENOMEM before the series) */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void qib_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(qib_user_pages, qib_user_pages_cases, qib_test_case_desc);

static void qib_user_pages_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &qib_test_pinner);
}

static const struct mm_test_pin_mapping qib_user_pages_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* FOLL_FORCE writes a private read-only mapping's own copy */
	{ "read_only",		MM_MAP_READ_ONLY,	8,	8,	'P',	8 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	/* FOLL_FORCE pins PROT_NONE too; mm_mpin() refuses it: unmarked */
	{ "prot_none",		MM_MAP_PROT_NONE,	8,	8,	'.',	8 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	{ "hole",		MM_MAP_HOLE,		-EFAULT, -EFAULT, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void qib_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(qib_user_pages_mapping, qib_user_pages_mappings,
		  qib_test_mapping_desc);

static void qib_user_pages_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &qib_test_pinner, "qib");
}

/* unlock_expected_tids() at the file's release, after the owner exited */
static void qib_user_pages_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &qib_test_pinner);
}

static struct kunit_case qib_user_pages_test_cases[] = {
	KUNIT_CASE_PARAM(qib_user_pages_sequence, qib_user_pages_gen_params),
	KUNIT_CASE_PARAM(qib_user_pages_mapping, qib_user_pages_mapping_gen_params),
	KUNIT_CASE(qib_user_pages_released_after_owner_exit),
	{}
};

static struct kunit_suite qib_user_pages_test_suite = {
	.name = "qib_user_pages",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = qib_user_pages_test_cases,
};

kunit_test_suite(qib_user_pages_test_suite);

#endif /* _QIB_USER_PAGES_TEST_H */

#endif /* CONFIG_INFINIBAND_QIB_KUNIT_TEST */
