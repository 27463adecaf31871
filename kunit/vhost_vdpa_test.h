/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the pins of vhost-vdpa's IOTLB updates (vhost_vdpa_iotlb
 * suite): vhost_vdpa_process_iotlb_update(), which a VHOST_IOTLB_UPDATE
 * message written to /dev/vhost-vdpa-N calls, and vhost_vdpa_unmap(),
 * which VHOST_IOTLB_INVALIDATE and the release of the file call.
 *
 * Included at the end of drivers/vhost/vdpa.c.  Each update gets a vhost
 * device of its own, as far as the two functions look at one: the owner's
 * mm, one address space (asid 0) and a vDPA device of physical addresses
 * (use_va false, as vdpa_sim's and the hardware's) whose DMA map and unmap
 * only say yes.  The update maps the window's addresses at the same IOVA.
 * Each case maps a populated window of MM_TEST_PAGES anonymous pages in a
 * private mm of the test kthread (the fixture of mm/mm_test_util.h).
 *
 * The tables:
 * - vhost_vdpa_iotlb_cases (run by vhost_vdpa_iotlb_sequence): an update
 *   and its invalidation (also from a workqueue), after munmap, after
 *   munmap and a new mapping at the same addresses; two devices on one
 *   range; locked memory; RLIMIT_MEMLOCK shared with mlock both ways,
 *   CAP_IPC_LOCK (which 6.1's vhost-vdpa ignored), 0;
 * - vhost_vdpa_iotlb_mappings (run by vhost_vdpa_iotlb_mapping): one row
 *   per kind of mapping, with what the pristine vhost_vdpa_pa_map() does
 *   with it measured on the spot: after its limit check it is one call of
 *   pin_user_pages() per 512 pages with the same flags, which the series
 *   does not change.  An update that mapped there must map here;
 * - vhost_vdpa_iotlb_refusals (run by vhost_vdpa_iotlb_refused): the
 *   updates refused before anything is charged.
 * No case has the owner exit first: the vhost device holds the owner's
 * mm_users from VHOST_SET_OWNER to its release, so the release of the
 * file always comes before the owner's exit_mmap().
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_VHOST_VDPA_KUNIT_TEST

#ifndef _VHOST_VDPA_TEST_H
#define _VHOST_VDPA_TEST_H

#include <kunit/test.h>
#include "../../mm/mm_test_pinner.h"

static int vhost_vdpa_test_dma_map(struct vdpa_device *vdpa, unsigned int asid,
				   u64 iova, u64 size, u64 pa, u32 perm,
				   void *opaque)
{
	return 0;
}

static int vhost_vdpa_test_dma_unmap(struct vdpa_device *vdpa, unsigned int asid,
				     u64 iova, u64 size)
{
	return 0;
}

static const struct vdpa_config_ops vhost_vdpa_test_ops = {
	.dma_map = vhost_vdpa_test_dma_map,
	.dma_unmap = vhost_vdpa_test_dma_unmap,
};

/* A vhost-vdpa device, as much of one as the IOTLB functions use. */
struct vhost_vdpa_test_dev {
	struct vdpa_device vdpa;
	struct vhost_vdpa v;
	struct vhost_vdpa_as as;
	struct vhost_iotlb_msg msg;	/* the update made */
};

static struct vhost_vdpa_test_dev *vhost_vdpa_test_dev_create(void)
{
	struct vhost_vdpa_test_dev *t = kzalloc(sizeof(*t), GFP_KERNEL);

	if (!t)
		return NULL;
	t->vdpa.config = &vhost_vdpa_test_ops;
	t->vdpa.use_va = false;
	t->v.vdpa = &t->vdpa;
	t->v.vdev.mm = current->mm;	/* VHOST_SET_OWNER */
	t->v.range.first = 0;
	t->v.range.last = ULLONG_MAX;
	vhost_iotlb_init(&t->as.iotlb, max_iotlb_entries, 0);	/* as vhost_vdpa_alloc_as() */
	t->as.id = 0;
	return t;
}

/* A VHOST_IOTLB_UPDATE of @size bytes from @addr at @iova into @msg. */
static int vhost_vdpa_test_update(struct vhost_vdpa_test_dev *t,
				  struct vhost_iotlb_msg *msg, u64 iova,
				  unsigned long addr, u64 size)
{
	*msg = (struct vhost_iotlb_msg) {
		.iova = iova,
		.size = size,
		.uaddr = addr,
		.perm = VHOST_ACCESS_RW,
		.type = VHOST_IOTLB_UPDATE,
	};
	return vhost_vdpa_process_iotlb_update(&t->v, &t->as.iotlb, msg);
}

static long vhost_vdpa_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
				unsigned int npages)
{
	struct vhost_vdpa_test_dev *t = vhost_vdpa_test_dev_create();
	int ret;

	if (!t)
		return -ENOMEM;
	ret = vhost_vdpa_test_update(t, &t->msg, addr, addr, (u64)npages << PAGE_SHIFT);
	if (ret) {
		kfree(t);
		return ret;
	}
	slot->pin = t;
	return npages;
}

/*
 * The update is invalidated whole, with the last page the runner puts:
 * where its maps fall (one per physically contiguous run of pages) is the
 * page allocator's choice, not the case's.
 */
static void vhost_vdpa_test_put(struct mm_test_pin_slot *slot, unsigned int first,
				unsigned int n)
{
	struct vhost_vdpa_test_dev *t = slot->pin;

	if (!bitmap_empty(slot->held, MM_TEST_PAGES))
		return;
	vhost_vdpa_unmap(&t->v, &t->as.iotlb, t->msg.iova, t->msg.size);
	kfree(t);
}

/*
 * What the pristine vhost_vdpa_pa_map() returns for the range, measured:
 * after its limit check (the case has no limit) it is this call of
 * pin_user_pages() (one per 512 pages), and -ENOMEM if it pinned fewer
 * pages than asked.
 */
static long vhost_vdpa_test_pristine(unsigned long addr, unsigned long npages)
{
	return mm_test_pin_pristine_once(addr, npages, FOLL_LONGTERM | FOLL_WRITE);
}

static const struct mm_test_pinner vhost_vdpa_test_pinner = {
	.get = vhost_vdpa_test_get,
	.put = vhost_vdpa_test_put,
	.pristine = vhost_vdpa_test_pristine,
};

static const struct mm_test_pin_case vhost_vdpa_iotlb_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "update", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "update_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	{ "invalidate", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* the file's release, from another task */
	{ "invalidate_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* two devices on one range: each update is charged */
	{ "two_devices_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and mapped is charged once, to the pin */
	{ "locked_then_updated", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
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
	{ "mlock_after_update_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* 6.1 refused it: its check did not look at CAP_IPC_LOCK */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* can_do_mlock(): -EPERM, where 6.1 said -ENOMEM */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -EPERM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void vhost_vdpa_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(vhost_vdpa_iotlb, vhost_vdpa_iotlb_cases, vhost_vdpa_test_case_desc);

static void vhost_vdpa_iotlb_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &vhost_vdpa_test_pinner);
}

static const struct mm_test_pin_mapping vhost_vdpa_iotlb_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	8,	8,	'P',	8 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	8,	8,	'P',	8 },
	/* VHOST_ACCESS_RW: FOLL_WRITE, not forced */
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

static void vhost_vdpa_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(vhost_vdpa_iotlb_mapping, vhost_vdpa_iotlb_mappings,
		  vhost_vdpa_test_mapping_desc);

static void vhost_vdpa_iotlb_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &vhost_vdpa_test_pinner, "vhost-vdpa");
}

/*
 * An update refused before it pins, on a device with the window's first 8
 * pages mapped at their IOVA or nothing: nothing more is charged.
 */
struct vhost_vdpa_iotlb_refusal {
	const char *name;
	bool updated;		/* the first 8 pages are mapped already */
	unsigned long iova;	/* pages from the window's start */
	u64 size;		/* bytes */
	int ret;
};

static const struct vhost_vdpa_iotlb_refusal vhost_vdpa_iotlb_refusals[] = {
	/* name			updated	iova	size			ret */
	{ "iova_mapped",	true,	4,	8 * PAGE_SIZE,		-EEXIST },
	{ "size_0",		false,	8,	0,			-EINVAL },
	{ "iova_wraps",		false,	8,	-PAGE_SIZE,		-EINVAL },
};

static void vhost_vdpa_test_refusal_desc(const struct vhost_vdpa_iotlb_refusal *r,
					 char *desc)
{
	mm_test_desc(r->name, desc);
}

KUNIT_ARRAY_PARAM(vhost_vdpa_iotlb_refused, vhost_vdpa_iotlb_refusals,
		  vhost_vdpa_test_refusal_desc);

static void vhost_vdpa_iotlb_refused(struct kunit *test)
{
	const struct vhost_vdpa_iotlb_refusal *r = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_test_pin_slot slot = { .pin = NULL };
	unsigned long base = mm_test_map(test, 2 * MM_TEST_PAGES, MAP_POPULATE);
	unsigned long charged = r->updated ? MM_TEST_PAGES : 0;
	struct vhost_vdpa_test_dev *t;
	struct vhost_iotlb_msg msg;

	if (r->updated) {
		KUNIT_ASSERT_EQ(test, mm_test_pin_get(&vhost_vdpa_test_pinner, &slot,
						      base, MM_TEST_PAGES),
				(long)MM_TEST_PAGES);
		t = slot.pin;
	} else {
		t = vhost_vdpa_test_dev_create();
		KUNIT_ASSERT_NOT_NULL(test, t);
	}
	KUNIT_EXPECT_EQ(test, vhost_vdpa_test_update(t, &msg, base + r->iova * PAGE_SIZE,
						     base + MM_TEST_PAGES * PAGE_SIZE,
						     r->size), r->ret);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), (s64)charged);
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	if (r->updated)
		mm_test_pin_put_each(&vhost_vdpa_test_pinner, &slot, false);
	else
		kfree(t);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	MM_TEST_EXPECT_RELEASED(test, base, "........", 1);
}

static struct kunit_case vhost_vdpa_iotlb_test_cases[] = {
	KUNIT_CASE_PARAM(vhost_vdpa_iotlb_sequence, vhost_vdpa_iotlb_gen_params),
	KUNIT_CASE_PARAM(vhost_vdpa_iotlb_mapping, vhost_vdpa_iotlb_mapping_gen_params),
	KUNIT_CASE_PARAM(vhost_vdpa_iotlb_refused, vhost_vdpa_iotlb_refused_gen_params),
	{}
};

static struct kunit_suite vhost_vdpa_iotlb_test_suite = {
	.name = "vhost_vdpa_iotlb",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = vhost_vdpa_iotlb_test_cases,
};

kunit_test_suite(vhost_vdpa_iotlb_test_suite);

#endif /* _VHOST_VDPA_TEST_H */

#endif /* CONFIG_VHOST_VDPA_KUNIT_TEST */
