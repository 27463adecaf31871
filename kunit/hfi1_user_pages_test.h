/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of hfi1 (hfi1_user_pages suite), the successor of
 * ipath in its driver family: hfi1_acquire_user_pages() and
 * hfi1_release_user_pages(), which the expected receive buffers
 * (user_exp_rcv.c) and the SDMA pin cache (user_sdma.c) call, and
 * hfi1_can_pin_pages(), the check that tells the SDMA cache when to evict.
 *
 * Included at the end of drivers/infiniband/hw/hfi1/user_pages.c; the
 * functions need no device, hfi1_can_pin_pages() only the count of user
 * contexts of one.  Each case maps a populated window of MM_TEST_PAGES
 * anonymous pages in a private mm of the test kthread (the fixture of
 * mm/mm_test_util.h).
 *
 * The tables:
 * - hfi1_user_pages_cases (run by hfi1_user_pages_sequence): a buffer and
 *   its TID nodes freed one by one, the pages no TID covers released at
 *   once, a node invalidated by the MMU notifier under the mmap_lock, an
 *   SDMA cache entry released by the handler's workqueue, after munmap,
 *   after munmap and a new mapping at the same addresses; two buffers of
 *   one range; locked memory; RLIMIT_MEMLOCK shared with mlock, with and
 *   without CAP_IPC_LOCK;
 * - hfi1_user_pages_mappings (run by hfi1_user_pages_mapping): one row per
 *   kind of mapping, with what the pristine hfi1_acquire_user_pages()
 *   does with it, measured on the spot: it is pin_user_pages_fast() with
 *   the same flags, which the series does not change, and a range that
 *   pins in part is accepted in part (user space programs what was
 *   pinned);
 * - hfi1_sdma_cases (run by hfi1_sdma_sequence): SDMA cache entries,
 *   charged and not marked, under the shared limit;
 * - hfi1_can_pin_cases (run by hfi1_can_pin): the cache's own limits, its
 *   share of RLIMIT_MEMLOCK and cache_size, which tell it when to evict.
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_INFINIBAND_HFI1_KUNIT_TEST

#ifndef _HFI1_USER_PAGES_TEST_H
#define _HFI1_USER_PAGES_TEST_H

#include <kunit/test.h>
#include "../../../../mm/mm_test_pinner.h"

/* An expected receive buffer: writable and marked, as pin_rcv_pages() asks. */
static long hfi1_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			  unsigned int npages)
{
	struct hfi1_user_pin *up = NULL;
	int ret;

	ret = hfi1_acquire_user_pages(current->mm, addr, npages, true, true,
				      slot->pages, &up);
	if (ret > 0)
		slot->pin = up;
	return ret;
}

/* An SDMA cache entry: read by the device, charged and not marked. */
static long hfi1_test_get_sdma(struct mm_test_pin_slot *slot, unsigned long addr,
			       unsigned int npages)
{
	struct hfi1_user_pin *up = NULL;
	int ret;

	ret = hfi1_acquire_user_pages(current->mm, addr, npages, false, false,
				      slot->pages, &up);
	if (ret > 0)
		slot->pin = up;
	return ret;
}

static void hfi1_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			  unsigned int n)
{
	hfi1_release_user_pages(slot->pin, slot->pages + first, n, true);
}

/* tid_rb_invalidate(): the pages unpinned, the pin put asynchronously. */
static void hfi1_test_put_async(struct mm_test_pin_slot *slot, unsigned int first,
				unsigned int n)
{
	if (hfi1_unpin_user_pages(slot->pin, slot->pages + first, n, true))
		hfi1_put_user_pin_async(slot->pin);
}

/*
 * What the pristine hfi1_acquire_user_pages() returns for a writable
 * buffer, measured: pin_user_pages_fast() with the same flags.
 */
static long hfi1_test_pristine(unsigned long addr, unsigned long npages)
{
	struct page **pages;
	int ret;

	pages = kcalloc(npages, sizeof(*pages), GFP_KERNEL);
	if (!pages)
		return -ENOMEM;
	ret = pin_user_pages_fast(addr, npages, FOLL_LONGTERM | FOLL_WRITE, pages);
	if (ret > 0)
		unpin_user_pages(pages, ret);
	kfree(pages);
	return ret;
}

static const struct mm_test_pinner hfi1_test_pinner = {
	.get = hfi1_test_get,
	.put = hfi1_test_put,
	.put_async = hfi1_test_put_async,
	.pristine = hfi1_test_pristine,
};

static const struct mm_test_pinner hfi1_test_sdma_pinner = {
	.get = hfi1_test_get_sdma,
	.put = hfi1_test_put,
};

static const struct mm_test_pin_case hfi1_user_pages_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "buffer", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "buffer_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	/* clear_tid_node(): a TID node at a time */
	{ "free_each_tid_node", { GET(0, 0, 8), PUT_EACH(0) },
	  "........", 0, 0, "........", 1 },
	/* the pages no TID covers go at once; the nodes keep the pin */
	{ "unprogrammed_pages_released", { GET(0, 0, 8), PUT(0, 4, 4) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	/* tid_rb_invalidate(): under the mmap_lock, mm_munpin_async() */
	{ "invalidated_under_mmap_lock", { GET(0, 0, 8), PUT_ASYNC(0) },
	  "........", 0, 0, "........", 1 },
	/* an SDMA cache entry, from the mmu_rb handler's workqueue */
	{ "sdma_entry_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	{ "two_buffers_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and pinned is charged once, to the pin */
	{ "locked_then_pinned", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "locked_buffer_at_the_limit", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1, 8 },
	{ "limit_within", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_pin_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void hfi1_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(hfi1_user_pages, hfi1_user_pages_cases, hfi1_test_case_desc);

static void hfi1_user_pages_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &hfi1_test_pinner);
}

/*
 * The SDMA pin cache's entries: charged under the shared limit, not
 * marked; so a locked page in an entry is charged twice, to locked_vm and
 * to the entry, at most the cache's share of the limit.
 */
static const struct mm_test_pin_case hfi1_sdma_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "entry", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1 },
	{ "entry_evicted_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "entry_of_locked_pages", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "LLLLLLLL", 8, 8, "LLLLLLLL", 1 },
	{ "entry_within_the_limit", { GET(0, 0, 8) },
	  "........", 8, 0, "........", 1, 8 },
	{ "entry_over_the_limit", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	{ "entry_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
};

KUNIT_ARRAY_PARAM(hfi1_sdma, hfi1_sdma_cases, hfi1_test_case_desc);

static void hfi1_sdma_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &hfi1_test_sdma_pinner);
}

static const struct mm_test_pin_mapping hfi1_user_pages_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* FOLL_WRITE without FOLL_FORCE: refused, the pin released */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	/* pinned up to the hole; the pin made again for those 4 pages */
	{ "hole",		MM_MAP_HOLE,		4,	4,	'P',	4 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void hfi1_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(hfi1_user_pages_mapping, hfi1_user_pages_mappings,
		  hfi1_test_mapping_desc);

static void hfi1_user_pages_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &hfi1_test_pinner, "hfi1");
}

/* hfi1_user_exp_rcv_free() at the file's release, after the owner exited */
static void hfi1_user_pages_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &hfi1_test_pinner);
}

/* --- hfi1_can_pin_pages(), one user context --- */

struct hfi1_can_pin_case {
	const char *name;
	unsigned long limit;	/* RLIMIT_MEMLOCK, pages */
	bool cap;		/* CAP_IPC_LOCK kept */
	unsigned int mlocked;	/* pages of the window mlocked first */
	u32 nlocked;		/* pages the cache holds */
	u32 npages;		/* pages to add */
	bool can;		/* what hfi1_can_pin_pages() says */
};

static const struct hfi1_can_pin_case hfi1_can_pin_cases[] = {
	/* name				limit cap mlocked nlocked npages can */
	{ "within_the_cache_share",	16, false, 0,	0,	4,	true },
	/* a quarter of the limit per user context */
	{ "over_the_cache_share",	16, false, 0,	2,	3,	false },
	/*
	 * RLIMIT_MEMLOCK is mm_mpin()'s to check, which counts a locked page
	 * of the range once: the locked pages do not count here
	 */
	{ "locked_pages_left_to_mm_mpin", 8, false, 8,	0,	1,	true },
	{ "cap_ipc_lock",		8,  true,  0,	4,	1,	true },
	/* the module's cache_size, 256 MiB, holds even with CAP_IPC_LOCK */
	{ "over_cache_size",		8,  true,  0,	SZ_256M / PAGE_SIZE, 1, false },
};

static void hfi1_can_pin_desc(const struct hfi1_can_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(hfi1_can_pin, hfi1_can_pin_cases, hfi1_can_pin_desc);

static void hfi1_can_pin(struct kunit *test)
{
	const struct hfi1_can_pin_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_test_op mlock = { .kind = MM_OP_MLOCK, .n = c->mlocked };
	struct hfi1_devdata *dd;
	unsigned long base;
	bool can;

	dd = kunit_kzalloc(test, sizeof(*dd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, dd);
	dd->num_rcv_contexts = 2;
	dd->first_dyn_alloc_ctxt = 1;
	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->mlocked)
		KUNIT_ASSERT_EQ(test, mm_test_do_op(test, &mlock, base), 0L);
	KUNIT_ASSERT_EQ(test, mm->locked_vm, (unsigned long)c->mlocked);

	mm_test_limit(test, c->limit, c->cap);
	can = hfi1_can_pin_pages(dd, mm, c->nlocked, c->npages);
	mm_test_unlimit(test);
	KUNIT_EXPECT_EQ(test, can, c->can);
	KUNIT_EXPECT_EQ(test, mm->locked_vm, (unsigned long)c->mlocked);
	mm_test_expect_counters(test, mm);
}

static struct kunit_case hfi1_user_pages_test_cases[] = {
	KUNIT_CASE_PARAM(hfi1_user_pages_sequence, hfi1_user_pages_gen_params),
	KUNIT_CASE_PARAM(hfi1_sdma_sequence, hfi1_sdma_gen_params),
	KUNIT_CASE_PARAM(hfi1_user_pages_mapping, hfi1_user_pages_mapping_gen_params),
	KUNIT_CASE(hfi1_user_pages_released_after_owner_exit),
	KUNIT_CASE_PARAM(hfi1_can_pin, hfi1_can_pin_gen_params),
	{}
};

static struct kunit_suite hfi1_user_pages_test_suite = {
	.name = "hfi1_user_pages",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = hfi1_user_pages_test_cases,
};

kunit_test_suite(hfi1_user_pages_test_suite);

#endif /* _HFI1_USER_PAGES_TEST_H */

#endif /* CONFIG_INFINIBAND_HFI1_KUNIT_TEST */
