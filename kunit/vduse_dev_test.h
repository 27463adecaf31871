/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of VDUSE's user bounce pages (vduse_umem suite):
 * vduse_dev_reg_umem(), which ioctl(VDUSE_IOTLB_REG_UMEM) calls to put
 * user pages in place of the bounce buffer's, and vduse_dev_dereg_umem(),
 * which VDUSE_IOTLB_DEREG_UMEM and the release of the device's file call.
 *
 * Included at the end of drivers/vdpa/vdpa_user/vduse_dev.c.  Each
 * registration gets a device of its own, as far as the two functions look
 * at one: its mem_lock and an IOVA domain whose bounce buffer is the size
 * of the registration (6.1 registers the whole bounce buffer or nothing),
 * with the bounce map made by one streaming DMA mapping, as the first I/O
 * of the device's driver makes it.  Each case maps a populated window of
 * MM_TEST_PAGES anonymous pages in a private mm of the test kthread (the
 * fixture of mm/mm_test_util.h).
 *
 * The tables:
 * - vduse_umem_cases (run by vduse_umem_sequence): a registration and its
 *   release, from a workqueue, after munmap, after munmap and a new
 *   mapping at the same addresses; two devices on one range; locked
 *   memory; RLIMIT_MEMLOCK shared with mlock both ways, CAP_IPC_LOCK
 *   (which 6.1's VDUSE ignored), 0;
 * - vduse_umem_mappings (run by vduse_umem_mapping): one row per kind of
 *   mapping, with what the pristine vduse_dev_reg_umem() does with it
 *   measured on the spot: after its limit check it is one call of
 *   pin_user_pages() with the same flags, which the series does not
 *   change.  A registration that worked there must work here;
 * - vduse_umem_refusals (run by vduse_umem_refused): the registrations
 *   the ioctl refuses before charging anything.
 * And the release after the owner exited, as the device's file may be
 * closed by another process than the one that registered.
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_VDPA_USER_KUNIT_TEST

#ifndef _VDUSE_DEV_TEST_H
#define _VDUSE_DEV_TEST_H

#include <kunit/test.h>
#include "../../../mm/mm_test_pinner.h"

/* A VDUSE device, as much of one as the umem functions use. */
static struct vduse_dev *vduse_test_dev_create(unsigned long npages)
{
	struct vduse_dev *dev;
	struct page *page;
	dma_addr_t iova;

	dev = kzalloc(sizeof(*dev), GFP_KERNEL);
	if (!dev)
		return NULL;
	mutex_init(&dev->mem_lock);
	dev->domain = vduse_domain_create(VDUSE_IOVA_SIZE - 1,
					  npages << PAGE_SHIFT);
	page = alloc_page(GFP_KERNEL);
	if (!dev->domain || !page)
		goto err;
	/* the first streaming mapping makes the bounce map */
	iova = vduse_domain_map_page(dev->domain, page, 0, PAGE_SIZE,
				     DMA_TO_DEVICE, 0);
	if (iova == DMA_MAPPING_ERROR)
		goto err;
	vduse_domain_unmap_page(dev->domain, iova, PAGE_SIZE, DMA_TO_DEVICE, 0);
	__free_page(page);
	return dev;
err:
	if (page)
		__free_page(page);
	if (dev->domain)
		vduse_domain_destroy(dev->domain);
	kfree(dev);
	return NULL;
}

static void vduse_test_dev_destroy(struct vduse_dev *dev)
{
	vduse_domain_destroy(dev->domain);
	kfree(dev);
}

static long vduse_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			   unsigned int npages)
{
	struct vduse_dev *dev = vduse_test_dev_create(npages);
	int ret;

	if (!dev)
		return -ENOMEM;
	ret = vduse_dev_reg_umem(dev, 0, addr, (u64)npages << PAGE_SHIFT);
	if (ret) {
		vduse_test_dev_destroy(dev);
		return ret;
	}
	slot->pin = dev;
	return npages;
}

/* A umem is released whole: with the last page the runner puts. */
static void vduse_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			   unsigned int n)
{
	struct vduse_dev *dev = slot->pin;

	if (!bitmap_empty(slot->held, MM_TEST_PAGES))
		return;
	vduse_dev_dereg_umem(dev, 0, dev->domain->bounce_size);
	vduse_test_dev_destroy(dev);
}

/*
 * What the pristine vduse_dev_reg_umem() returns for the range, measured:
 * after its limit check (the case has no limit) it is this one call of
 * pin_user_pages() with the same flags, and -ENOMEM if it pinned fewer
 * pages than asked.
 */
static long vduse_test_pristine(unsigned long addr, unsigned long npages)
{
	return mm_test_pin_pristine_once(addr, npages, FOLL_LONGTERM | FOLL_WRITE);
}

static const struct mm_test_pinner vduse_test_pinner = {
	.get = vduse_test_get,
	.put = vduse_test_put,
	.pristine = vduse_test_pristine,
};

static const struct mm_test_pin_case vduse_umem_cases[] = {
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
	/* the file's release, from another task */
	{ "deregister_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* two devices on one range: each registration is charged */
	{ "two_devices_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and registered is charged once, to the pin */
	{ "locked_then_registered", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "limit_within", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	/* 6.1 let it through: its check left the locked pages out */
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_register_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* 6.1 refused it: its check did not look at CAP_IPC_LOCK */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* can_do_mlock(): -EPERM, where 6.1 said -ENOMEM */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void vduse_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(vduse_umem, vduse_umem_cases, vduse_test_case_desc);

static void vduse_umem_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &vduse_test_pinner);
}

static const struct mm_test_pin_mapping vduse_umem_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* the bounce pages are written: FOLL_WRITE, not forced */
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/* 8 base pages of one 2 MiB page: the whole huge page is marked */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* mm_mpin() refuses it: charged unmarked, as before */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	8,	8,	'.',	8 },
	/* pin_user_pages() pins the 4 pages before the hole: -ENOMEM */
	{ "hole",		MM_MAP_HOLE,		-ENOMEM, -ENOMEM, '.',	0 },
	{ "two_vmas",		MM_MAP_TWO_VMAS,	8,	8,	'P',	8 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void vduse_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(vduse_umem_mapping, vduse_umem_mappings, vduse_test_mapping_desc);

static void vduse_umem_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &vduse_test_pinner, "vduse");
}

/*
 * A registration the ioctl refuses, on a device of 8 bounce pages with
 * the window's first 8 pages registered or not: nothing is charged.
 */
struct vduse_umem_refusal {
	const char *name;
	bool registered;	/* a umem is in place already */
	u64 iova;
	unsigned long offset;	/* of uaddr, from the window's start, bytes */
	u64 size;		/* bytes */
	int ret;
};

static const struct vduse_umem_refusal vduse_umem_refusals[] = {
	/* name			registered iova	offset		size			ret */
	{ "second_umem",	true,	0,	0,		8 * PAGE_SIZE,		-EEXIST },
	{ "not_the_bounce_size", false,	0,	0,		4 * PAGE_SIZE,		-EINVAL },
	{ "iova_not_0",		false,	PAGE_SIZE, 0,		8 * PAGE_SIZE,		-EINVAL },
	{ "uaddr_not_aligned",	false,	0,	64,		8 * PAGE_SIZE,		-EINVAL },
};

static void vduse_test_refusal_desc(const struct vduse_umem_refusal *r, char *desc)
{
	mm_test_desc(r->name, desc);
}

KUNIT_ARRAY_PARAM(vduse_umem_refused, vduse_umem_refusals, vduse_test_refusal_desc);

static void vduse_umem_refused(struct kunit *test)
{
	const struct vduse_umem_refusal *r = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_test_pin_slot slot = { .pin = NULL };
	unsigned long base = mm_test_map(test, 2 * MM_TEST_PAGES, MAP_POPULATE);
	unsigned long charged = r->registered ? MM_TEST_PAGES : 0;
	struct vduse_dev *dev;

	if (r->registered) {
		KUNIT_ASSERT_EQ(test, mm_test_pin_get(&vduse_test_pinner, &slot,
						      base, MM_TEST_PAGES),
				(long)MM_TEST_PAGES);
		dev = slot.pin;
	} else {
		dev = vduse_test_dev_create(MM_TEST_PAGES);
		KUNIT_ASSERT_NOT_NULL(test, dev);
	}
	KUNIT_EXPECT_EQ(test, vduse_dev_reg_umem(dev, r->iova,
						 base + MM_TEST_PAGES * PAGE_SIZE + r->offset,
						 r->size), r->ret);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)charged);
	KUNIT_EXPECT_EQ(test, !!dev->umem, r->registered);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	if (r->registered) {
		mm_test_pin_put_each(&vduse_test_pinner, &slot, false);
	} else {
		KUNIT_EXPECT_EQ(test, vduse_dev_dereg_umem(dev, 0, dev->domain->bounce_size),
				-ENOENT);
		vduse_test_dev_destroy(dev);
	}
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	MM_TEST_EXPECT_RELEASED(test, base, "........", 1);
}

/* the device's file closed by another process, after the owner exited */
static void vduse_umem_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &vduse_test_pinner);
}

static struct kunit_case vduse_umem_test_cases[] = {
	KUNIT_CASE_PARAM(vduse_umem_sequence, vduse_umem_gen_params),
	KUNIT_CASE_PARAM(vduse_umem_mapping, vduse_umem_mapping_gen_params),
	KUNIT_CASE_PARAM(vduse_umem_refused, vduse_umem_refused_gen_params),
	KUNIT_CASE(vduse_umem_released_after_owner_exit),
	{}
};

static struct kunit_suite vduse_umem_test_suite = {
	.name = "vduse_umem",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = vduse_umem_test_cases,
};

kunit_test_suite(vduse_umem_test_suite);

#endif /* _VDUSE_DEV_TEST_H */

#endif /* CONFIG_VDPA_USER_KUNIT_TEST */
