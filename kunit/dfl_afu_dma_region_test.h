/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of the DFL AFU's DMA regions (dfl_afu_dma
 * suite): afu_dma_pin_pages(), which DFL_FPGA_PORT_DMA_MAP calls for the
 * region's user range before it maps the pages for the device, and
 * afu_dma_unpin_pages(), which the unmap ioctl, the release of the file
 * and the removal of the device call for the whole region.
 *
 * Included at the end of drivers/fpga/dfl-afu-dma-region.c.  The two
 * functions only name the platform device in their debug messages: a
 * platform device that was never registered is enough.  Each case maps a
 * populated window of MM_TEST_PAGES anonymous pages in a private mm of the
 * test kthread (the fixture of mm/mm_test_util.h).
 *
 * 6.1 charged the regions to mm->locked_vm with account_locked_vm() of
 * current->mm, at the pin and at the unpin: a page both locked and in a
 * region was charged twice, and an unpin by another task (the release of
 * a file the owner passed on, the removal of the device, a release after
 * the owner's exit) gave the charge back to that task's mm, or to none.
 *
 * The tables:
 * - dfl_afu_dma_cases (run by dfl_afu_dma_sequence): a region and its
 *   unpin, from a workqueue, after munmap, after munmap and a new mapping
 *   at the same addresses; locked memory; RLIMIT_MEMLOCK shared with mlock
 *   both ways, CAP_IPC_LOCK, 0;
 * - dfl_afu_dma_mappings (run by dfl_afu_dma_mapping): one row per kind of
 *   mapping, with what the pristine afu_dma_pin_pages() does with it
 *   measured on the spot: after its limit check it is one
 *   pin_user_pages_fast() with the same flags, which the series does not
 *   change.  A region that pinned there must pin here, charged the same.
 * And the unpin after the owner exited, as the release of the file does
 * when the process that mapped the region was killed.
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_FPGA_DFL_AFU_KUNIT_TEST

#ifndef _DFL_AFU_DMA_REGION_TEST_H
#define _DFL_AFU_DMA_REGION_TEST_H

#include <kunit/test.h>
#include "../../mm/mm_test_pinner.h"

static struct platform_device afu_test_pdev = { .name = "dfl-afu-kunit" };
static struct dfl_feature_platform_data afu_test_pdata = { .dev = &afu_test_pdev };

static long afu_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			 unsigned int npages)
{
	struct dfl_afu_dma_region *region;
	int ret;

	region = kzalloc(sizeof(*region), GFP_KERNEL);
	if (!region)
		return -ENOMEM;
	region->user_addr = addr;
	region->length = (u64)npages << PAGE_SHIFT;
	ret = afu_dma_pin_pages(&afu_test_pdata, region);
	if (ret) {
		kfree(region);
		return ret;
	}
	slot->pin = region;
	return npages;
}

/* A region is unpinned whole: with the last page the runner puts. */
static void afu_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			 unsigned int n)
{
	if (bitmap_empty(slot->held, MM_TEST_PAGES)) {
		afu_dma_unpin_pages(&afu_test_pdata, slot->pin);
		kfree(slot->pin);
	}
}

/*
 * What the pristine afu_dma_pin_pages() returns for the range, measured:
 * after its limit check (the case has no limit) it is this one
 * pin_user_pages_fast() with the same flags, which this kernel runs as
 * 6.1 does, and -EFAULT when it pins fewer pages than asked.
 */
static long afu_test_pristine(unsigned long addr, unsigned long npages)
{
	struct page **pages;
	long got;

	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	got = pin_user_pages_fast(addr, npages, FOLL_WRITE, pages);
	if (got > 0)
		unpin_user_pages(pages, got);
	kfree(pages);
	return got >= 0 && got != npages ? -EFAULT : got;
}

static const struct mm_test_pinner afu_test_pinner = {
	.get = afu_test_get,
	.put = afu_test_put,
	.pristine = afu_test_pristine,
};

static const struct mm_test_pin_case dfl_afu_dma_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "map", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "map_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	{ "unmap", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* the release of the file by another task: 6.1 uncharged its mm */
	{ "unmap_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* charged once, to the pin: 6.1 charged locked_vm 16 */
	{ "locked_then_mapped", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
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
	{ "mlock_after_map_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* exempt, as account_locked_vm() made it */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* can_do_mlock(): 6.1 said -ENOMEM */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void afu_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(dfl_afu_dma, dfl_afu_dma_cases, afu_test_case_desc);

static void dfl_afu_dma_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &afu_test_pinner);
}

static const struct mm_test_pin_mapping dfl_afu_dma_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* FOLL_WRITE, not forced */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	/* the 4 pages before the hole are fewer than asked: -EFAULT */
	{ "hole",		MM_MAP_HOLE,		-EFAULT, -EFAULT, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void afu_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(dfl_afu_dma_mapping, dfl_afu_dma_mappings, afu_test_mapping_desc);

static void dfl_afu_dma_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &afu_test_pinner, "dfl-afu");
}

/* the release of the file, after the owner exited */
static void dfl_afu_dma_unpinned_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &afu_test_pinner);
}

static struct kunit_case dfl_afu_dma_test_cases[] = {
	KUNIT_CASE_PARAM(dfl_afu_dma_sequence, dfl_afu_dma_gen_params),
	KUNIT_CASE_PARAM(dfl_afu_dma_mapping, dfl_afu_dma_mapping_gen_params),
	KUNIT_CASE(dfl_afu_dma_unpinned_after_owner_exit),
	{}
};

static struct kunit_suite dfl_afu_dma_test_suite = {
	.name = "dfl_afu_dma",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = dfl_afu_dma_test_cases,
};

kunit_test_suite(dfl_afu_dma_test_suite);

#endif /* _DFL_AFU_DMA_REGION_TEST_H */

#endif /* CONFIG_FPGA_DFL_AFU_KUNIT_TEST */
