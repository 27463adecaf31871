/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of siw's memory registrations (siw_umem suite):
 * siw_umem_get(), which siw_reg_user_mr() calls for the registration's
 * range, and siw_umem_release(), which siw_free_mem() calls when the last
 * reference to the memory object goes, for all its pages at once.
 *
 * Included at the end of drivers/infiniband/sw/siw/siw_mem.c; no device is
 * needed, the functions take none.  Registrations are for local writes, as
 * siw_reg_user_mr() makes them with IB_ACCESS_LOCAL_WRITE.  Each case maps
 * a populated window of MM_TEST_PAGES anonymous pages in a private mm of
 * the test kthread (the fixture of mm/mm_test_util.h).
 *
 * The tables:
 * - siw_umem_cases (run by siw_umem_sequence): a registration and its
 *   release, from a workqueue, after munmap, after munmap and a new mapping
 *   at the same addresses; two registrations of one range; locked memory;
 *   RLIMIT_MEMLOCK shared with mlock both ways, CAP_IPC_LOCK (which 6.1's
 *   siw ignored), 0;
 * - siw_umem_mappings (run by siw_umem_mapping): one row per kind of
 *   mapping, with what the pristine siw_umem_get() does with it measured
 *   on the spot: after its limit check it is a loop of pin_user_pages()
 *   with the same flags, which the series does not change.  A registration
 *   that worked there must work here, charged the same.
 * And the release after the owner exited, as the device's teardown frees
 * what a killed process left registered.
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_RDMA_SIW_KUNIT_TEST

#ifndef _SIW_MEM_TEST_H
#define _SIW_MEM_TEST_H

#include <kunit/test.h>
#include "../../../../mm/mm_test_pinner.h"

static long siw_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			 unsigned int npages)
{
	struct siw_umem *umem = siw_umem_get(addr, npages * PAGE_SIZE, true);

	if (IS_ERR(umem))
		return PTR_ERR(umem);
	slot->pin = umem;
	return npages;
}

/* A registration is released whole: with the last page the runner puts. */
static void siw_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			 unsigned int n)
{
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		siw_umem_release(slot->pin, false);
}

/*
 * What the pristine siw_umem_get() returns for the range, measured: after
 * its limit check (the case has no limit) it is this loop of
 * pin_user_pages() with the same flags, which this kernel runs as 6.1 does.
 */
static long siw_test_pristine(unsigned long addr, unsigned long npages)
{
	return mm_test_pin_pristine_loop(addr, npages, FOLL_WRITE | FOLL_LONGTERM);
}

static const struct mm_test_pinner siw_test_pinner = {
	.get = siw_test_get,
	.put = siw_test_put,
	.pristine = siw_test_pristine,
};

static const struct mm_test_pin_case siw_umem_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "register", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "register_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	{ "deregister", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	{ "deregister_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* each registration is charged: two of one range, twice */
	{ "two_registrations_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and registered is charged once, to the pin */
	{ "locked_then_registered", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
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
	{ "mlock_after_register_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* 6.1's siw refused it: its check did not look at CAP_IPC_LOCK */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* can_do_mlock(), as before */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void siw_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(siw_umem, siw_umem_cases, siw_test_case_desc);

static void siw_umem_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &siw_test_pinner);
}

static const struct mm_test_pin_mapping siw_umem_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* a registration for local writes does not force them */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	{ "hole",		MM_MAP_HOLE,		-EFAULT, -EFAULT, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void siw_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(siw_umem_mapping, siw_umem_mappings, siw_test_mapping_desc);

static void siw_umem_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &siw_test_pinner, "siw");
}

/* siw_free_mem() at the teardown, after the owner exited */
static void siw_umem_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &siw_test_pinner);
}

static struct kunit_case siw_umem_test_cases[] = {
	KUNIT_CASE_PARAM(siw_umem_sequence, siw_umem_gen_params),
	KUNIT_CASE_PARAM(siw_umem_mapping, siw_umem_mapping_gen_params),
	KUNIT_CASE(siw_umem_released_after_owner_exit),
	{}
};

static struct kunit_suite siw_umem_test_suite = {
	.name = "siw_umem",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = siw_umem_test_cases,
};

kunit_test_suite(siw_umem_test_suite);

#endif /* _SIW_MEM_TEST_H */

#endif /* CONFIG_RDMA_SIW_KUNIT_TEST */
