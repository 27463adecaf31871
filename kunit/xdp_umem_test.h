/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the charge of AF_XDP umems (xdp_umem suite):
 * xdp_umem_create(), which setsockopt(XDP_UMEM_REG) calls, and
 * xdp_put_umem(), whose last call releases the umem whole, from a socket's
 * or a pool's release.
 *
 * Included at the end of net/xdp/xdp_umem.c; no socket is needed.  A umem
 * is registered with chunks of XDP_UMEM_MIN_CHUNK_SIZE.  Each case maps a
 * populated window of MM_TEST_PAGES anonymous pages in a private mm of the
 * test kthread (the fixture of mm/mm_test_util.h).
 *
 * A umem is charged twice: to the user (user->locked_vm, as in 6.1, which
 * each row checks comes back to where it was) and to the mm its pages come
 * from, now through a pin under the RLIMIT_MEMLOCK the mm's locked pages
 * share.  The tables:
 * - xdp_umem_cases (run by xdp_umem_sequence): a umem and its release,
 *   from a workqueue, after munmap, after munmap and a new mapping at the
 *   same addresses; two umems of one range; locked memory; RLIMIT_MEMLOCK
 *   shared with mlock both ways, CAP_IPC_LOCK, 0;
 * - xdp_umem_mappings (run by xdp_umem_mapping): one row per kind of
 *   mapping, with what the pristine xdp_umem_pin_pages() does with it
 *   measured on the spot (after the user's charge it is one call of
 *   pin_user_pages() with the same flags, which the series does not
 *   change): a umem that registered there must register here.
 * And the release after the owner exited, as a pool's workqueue frees a
 * umem after its process's exit_mmap().
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_XDP_UMEM_KUNIT_TEST

#ifndef _XDP_UMEM_TEST_H
#define _XDP_UMEM_TEST_H

#include <kunit/test.h>
#include "../../mm/mm_test_pinner.h"

static long xdp_umem_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			      unsigned int npages)
{
	struct xdp_umem_reg mr = {
		.addr = addr,
		.len = npages * PAGE_SIZE,
		.chunk_size = XDP_UMEM_MIN_CHUNK_SIZE,
	};
	struct xdp_umem *umem = xdp_umem_create(&mr);

	if (IS_ERR(umem))
		return PTR_ERR(umem);
	slot->pin = umem;
	return npages;
}

/* A umem is released whole: with the last page the runner puts. */
static void xdp_umem_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			      unsigned int n)
{
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		xdp_put_umem(slot->pin, false);
}

/*
 * What the pristine xdp_umem_pin_pages() returns for the range, measured:
 * this call of pin_user_pages() with the same flags, and -ENOMEM if it
 * pinned fewer pages than asked.
 */
static long xdp_umem_test_pristine(unsigned long addr, unsigned long npages)
{
	return mm_test_pin_pristine_once(addr, npages, FOLL_WRITE | FOLL_LONGTERM);
}

static const struct mm_test_pinner xdp_umem_test_pinner = {
	.get = xdp_umem_test_get,
	.put = xdp_umem_test_put,
	.pristine = xdp_umem_test_pristine,
};

static const struct mm_test_pin_case xdp_umem_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "register", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "register_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	{ "release", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* xp_release_deferred() and xdp_umem_release_deferred() */
	{ "release_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* a page pinned twice is charged twice, once per pin, as in 6.1 */
	{ "two_umems_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and registered is charged once to the mm, to the pin */
	{ "locked_then_registered", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "limit_within", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	/* the user's charge refuses it first, -ENOBUFS as in 6.1 */
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOBUFS) },
	  "........", 0, 0, "........", 1, 7 },
	/* within the user's limit (4 of 7), over the mm's (4 + 4 locked) */
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOBUFS) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_register_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* CAP_IPC_LOCK skips the user's charge and exempts the pin */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* the user's charge refuses it, -ENOBUFS as in 6.1 */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -ENOBUFS) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void xdp_umem_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(xdp_umem, xdp_umem_cases, xdp_umem_test_case_desc);

/* Every row runs as root: the user is root's, whatever the credentials. */
static void xdp_umem_sequence(struct kunit *test)
{
	long user_vm = atomic_long_read(&current_user()->locked_vm);

	mm_test_pinner_sequence(test, &xdp_umem_test_pinner);
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&current_user()->locked_vm), user_vm,
			    "user->locked_vm once every umem is released");
}

static const struct mm_test_pin_mapping xdp_umem_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* a umem is written by the kernel: FOLL_WRITE, not forced */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	/* pin_user_pages() pins the 4 pages before the hole: -ENOMEM */
	{ "hole",		MM_MAP_HOLE,		-ENOMEM, -ENOMEM, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void xdp_umem_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(xdp_umem_mapping, xdp_umem_mappings, xdp_umem_test_mapping_desc);

static void xdp_umem_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &xdp_umem_test_pinner, "xdp");
}

/* The last xdp_put_umem() from a workqueue, after the owner exited. */
static void xdp_umem_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &xdp_umem_test_pinner);
}

static struct kunit_case xdp_umem_test_cases[] = {
	KUNIT_CASE_PARAM(xdp_umem_sequence, xdp_umem_gen_params),
	KUNIT_CASE_PARAM(xdp_umem_mapping, xdp_umem_mapping_gen_params),
	KUNIT_CASE(xdp_umem_released_after_owner_exit),
	{}
};

static struct kunit_suite xdp_umem_test_suite = {
	.name = "xdp_umem",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = xdp_umem_test_cases,
};

kunit_test_suite(xdp_umem_test_suite);

#endif /* _XDP_UMEM_TEST_H */

#endif /* CONFIG_XDP_UMEM_KUNIT_TEST */
