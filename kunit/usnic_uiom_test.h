/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of usnic's memory registrations (usnic_uiom
 * suite): usnic_uiom_get_pages(), which usnic_uiom_reg_get() calls for
 * the registration's range before it maps the pages in the IOMMU domain,
 * and usnic_uiom_reg_release(), which the deregistration calls.
 *
 * Included at the end of drivers/infiniband/hw/usnic/usnic_uiom.c.  No
 * IOMMU is needed: the registrations are made by usnic_uiom_get_pages()
 * alone, so none is in the protection domain's interval tree, and
 * usnic_uiom_reg_release() unmaps nothing from the domain before it puts
 * the pages.  Registrations are writable, as usnic_uiom_reg_get() makes
 * them all.  Each case maps a populated window of MM_TEST_PAGES anonymous
 * pages in a private mm of the test kthread (the fixture of
 * mm/mm_test_util.h).
 *
 * The tables:
 * - usnic_uiom_cases (run by usnic_uiom_sequence): a registration and its
 *   release, from a workqueue, after munmap, after munmap and a new
 *   mapping at the same addresses; two registrations of one range; locked
 *   memory; RLIMIT_MEMLOCK shared with mlock both ways, CAP_IPC_LOCK, 0;
 * - usnic_uiom_mappings (run by usnic_uiom_mapping): one row per kind of
 *   mapping, with what the pristine usnic_uiom_get_pages() does with it
 *   measured on the spot: after its limit check it is a loop of
 *   pin_user_pages() with the same flags, which the series does not
 *   change.  A registration that worked there must work here, charged the
 *   same, and one that failed must leave nothing charged.
 * And the release after the owner exited, as the release of the uverbs
 * file does when the process that registered was killed.
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_INFINIBAND_USNIC_KUNIT_TEST

#ifndef _USNIC_UIOM_TEST_H
#define _USNIC_UIOM_TEST_H

#include <kunit/test.h>
#include "../../../../mm/mm_test_pinner.h"

/* A protection domain without an IOMMU domain, and so without intervals. */
static struct usnic_uiom_pd usnic_test_pd = {
	.lock = __SPIN_LOCK_UNLOCKED(usnic_test_pd.lock),
	.root = RB_ROOT_CACHED,
};

static long usnic_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			   unsigned int npages)
{
	struct usnic_uiom_reg *uiomr;
	int ret;

	uiomr = kzalloc(sizeof(*uiomr), GFP_KERNEL);
	if (!uiomr)
		return -ENOMEM;
	uiomr->pd = &usnic_test_pd;
	uiomr->va = addr;
	uiomr->length = (size_t)npages << PAGE_SHIFT;
	uiomr->writable = 1;
	ret = usnic_uiom_get_pages(addr, uiomr->length, 1, 0, uiomr);
	if (ret) {
		kfree(uiomr);
		return ret;
	}
	slot->pin = uiomr;
	return npages;
}

/* A registration is released whole: with the last page the runner puts. */
static void usnic_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			   unsigned int n)
{
	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		usnic_uiom_reg_release(slot->pin);
}

/*
 * What the pristine usnic_uiom_get_pages() returns for the range,
 * measured: after its limit check (the case has no limit) it is this loop
 * of pin_user_pages() with the same flags, which this kernel runs as 6.1
 * does.
 */
static long usnic_test_pristine(unsigned long addr, unsigned long npages)
{
	return mm_test_pin_pristine_loop(addr, npages, FOLL_WRITE | FOLL_LONGTERM);
}

static const struct mm_test_pinner usnic_test_pinner = {
	.get = usnic_test_get,
	.put = usnic_test_put,
	.pristine = usnic_test_pristine,
};

static const struct mm_test_pin_case usnic_uiom_cases[] = {
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
	/* exempt, as before */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* can_do_mlock(), as before */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void usnic_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(usnic_uiom, usnic_uiom_cases, usnic_test_case_desc);

static void usnic_uiom_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &usnic_test_pinner);
}

static const struct mm_test_pin_mapping usnic_uiom_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* writable registrations: FOLL_WRITE, not forced */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	/*
	 * GUP pins the 4 pages before the hole, then fails: 6.1 gave back
	 * only the 4 it had not pinned and kept 4 charged
	 */
	{ "hole",		MM_MAP_HOLE,		-EFAULT, -EFAULT, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void usnic_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(usnic_uiom_mapping, usnic_uiom_mappings, usnic_test_mapping_desc);

static void usnic_uiom_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &usnic_test_pinner, "usnic");
}

/* the release of the uverbs file, after the owner exited */
static void usnic_uiom_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &usnic_test_pinner);
}

static struct kunit_case usnic_uiom_test_cases[] = {
	KUNIT_CASE_PARAM(usnic_uiom_sequence, usnic_uiom_gen_params),
	KUNIT_CASE_PARAM(usnic_uiom_mapping, usnic_uiom_mapping_gen_params),
	KUNIT_CASE(usnic_uiom_released_after_owner_exit),
	{}
};

static struct kunit_suite usnic_uiom_test_suite = {
	.name = "usnic_uiom",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = usnic_uiom_test_cases,
};

kunit_test_suite(usnic_uiom_test_suite);

#endif /* _USNIC_UIOM_TEST_H */

#endif /* CONFIG_INFINIBAND_USNIC_KUNIT_TEST */
