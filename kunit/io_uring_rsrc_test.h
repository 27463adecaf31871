/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the charge of io_uring's registered buffers (io_uring_rsrc
 * suite): io_sqe_buffer_register(), which IORING_REGISTER_BUFFERS and
 * IORING_REGISTER_BUFFERS_UPDATE call for each buffer, and
 * io_buffer_unmap(), which unregistration, an update and the ring's
 * release call for it, whole.
 *
 * Included at the end of io_uring/rsrc.c; a ring is a bare io_ring_ctx,
 * made under the credentials of the row as io_uring_create() makes one:
 * charged to its user unless the task has CAP_IPC_LOCK.  Each case maps a
 * populated window of MM_TEST_PAGES anonymous pages in a private mm of the
 * test kthread (the fixture of mm/mm_test_util.h).
 *
 * A buffer is charged twice, as in 6.1: to the ring's user (user->locked_vm,
 * which the rows check comes back to where it was) and to the mm its pages
 * come from, now through a pin under the RLIMIT_MEMLOCK the mm's locked
 * pages share.  The tables:
 * - io_uring_rsrc_cases (run by io_uring_rsrc_sequence): a buffer and its
 *   release, from a workqueue, after munmap, after munmap and a new mapping
 *   at the same addresses; two buffers of one range; locked memory;
 *   RLIMIT_MEMLOCK shared with mlock both ways, CAP_IPC_LOCK, 0;
 * - io_uring_rsrc_mappings (run by io_uring_rsrc_mapping): one row per kind
 *   of mapping, with what the pristine io_pin_pages() does with it measured
 *   on the spot (the series does not change it; the charge comes after):
 *   a buffer that registered there must register here.
 * And two cases: two processes of one user, each within its own limit,
 * which the per-user charge holds to one limit together; and the release
 * after the owner exited, as a ring freed after its creator's exit_mmap().
 *
 * The runners and the pictures of the window are mm/mm_test_pinner.h's.
 */

#ifdef CONFIG_IO_URING_RSRC_KUNIT_TEST

#ifndef _IO_URING_RSRC_TEST_H
#define _IO_URING_RSRC_TEST_H

#include <kunit/test.h>
#include "../mm/mm_test_pinner.h"

/* The ring of the case, made by its first registration. */
static struct io_ring_ctx *io_rsrc_test_ctx;
/* user->locked_vm of its user when it was made */
static long io_rsrc_test_user_vm;

/* io_uring_create()'s rule for the per-user charge. */
static struct io_ring_ctx *io_rsrc_test_new_ring(void)
{
	struct io_ring_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (ctx && !ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK))
		ctx->user = get_uid(current_user());
	return ctx;
}

static void io_rsrc_test_free_ring(struct io_ring_ctx *ctx)
{
	if (ctx)
		free_uid(ctx->user);
	kfree(ctx);
}

static int io_rsrc_test_register(struct io_ring_ctx *ctx, unsigned long addr,
				 unsigned int npages, struct io_mapped_ubuf **imu)
{
	struct iovec iov = {
		.iov_base = (void __user *)addr,
		.iov_len = npages * PAGE_SIZE,
	};
	struct page *last_hpage = NULL;

	return io_sqe_buffer_register(ctx, &iov, imu, &last_hpage);
}

static long io_rsrc_test_get(struct mm_test_pin_slot *slot, unsigned long addr,
			     unsigned int npages)
{
	struct io_mapped_ubuf *imu;
	int ret;

	if (!io_rsrc_test_ctx) {
		io_rsrc_test_ctx = io_rsrc_test_new_ring();
		if (!io_rsrc_test_ctx)
			return -ENOMEM;
		if (io_rsrc_test_ctx->user)
			io_rsrc_test_user_vm =
				atomic_long_read(&io_rsrc_test_ctx->user->locked_vm);
	}
	ret = io_rsrc_test_register(io_rsrc_test_ctx, addr, npages, &imu);
	if (ret)
		return ret;
	slot->pin = imu;
	return npages;
}

/* A buffer is released whole: with the last of its pages the runner puts. */
static void io_rsrc_test_put(struct mm_test_pin_slot *slot, unsigned int first,
			     unsigned int n)
{
	struct io_mapped_ubuf *imu = slot->pin;

	if (bitmap_empty(slot->held, MM_TEST_PAGES))
		io_buffer_unmap(io_rsrc_test_ctx, &imu);
}

/* The pristine io_sqe_buffer_register() up to its charge: io_pin_pages(). */
static long io_rsrc_test_pristine(unsigned long addr, unsigned long npages)
{
	struct page **pages;
	int got;

	pages = io_pin_pages(addr, npages * PAGE_SIZE, &got);
	if (IS_ERR(pages))
		return PTR_ERR(pages);
	unpin_user_pages(pages, got);
	kvfree(pages);
	return got;
}

static const struct mm_test_pinner io_rsrc_test_pinner = {
	.get = io_rsrc_test_get,
	.put = io_rsrc_test_put,
	.pristine = io_rsrc_test_pristine,
};

static void io_rsrc_test_exit(struct kunit *test)
{
	io_rsrc_test_free_ring(io_rsrc_test_ctx);
	io_rsrc_test_ctx = NULL;
	mm_test_exit(test);
}

/* After every buffer is released, the user's charge is what it was. */
static void io_rsrc_test_expect_user(struct kunit *test)
{
	struct io_ring_ctx *ctx = io_rsrc_test_ctx;

	if (ctx && ctx->user)
		KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&ctx->user->locked_vm),
				    io_rsrc_test_user_vm,
				    "user->locked_vm once every buffer is released");
}

static const struct mm_test_pin_case io_uring_rsrc_cases[] = {
	/*
	 * name, steps;
	 *   window after, pinned_vm, locked_vm; released, vmas; options
	 */
	{ "register", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1 },
	{ "register_part", { GET(0, 2, 4) },
	  "..PPPP..", 4, 0, "........", 1 },
	/* IORING_UNREGISTER_BUFFERS and an update that replaces the buffer */
	{ "unregister", { GET(0, 0, 8), PUT(0, 0, 8) },
	  "........", 0, 0, "........", 1 },
	/* io_rsrc_put_work(), and the ring's release in io_ring_exit_work() */
	{ "unregister_in_workqueue", { GET(0, 0, 8), PUT_WQ(0) },
	  "........", 0, 0, "........", 1 },
	{ "munmap_keeps_the_charge", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)) },
	  "--------", 8, 0, "--------", 0 },
	{ "munmap_and_remap", { GET(0, 0, 8), POP(OP(MUNMAP, 0, 8)),
	  POP(OP(MAP, 0, 8)) },
	  "........", 8, 0, "........", 1 },
	/* a page pinned twice is charged twice, once per pin, as in 6.1 */
	{ "two_buffers_one_range", { GET(0, 0, 8), GET(1, 0, 8) },
	  "PPPPPPPP", 16, 0, "........", 1 },
	/* a page locked and registered is charged once, to the pin */
	{ "locked_then_registered", { POP(OP(MLOCK, 0, 8)), GET(0, 0, 8) },
	  "BBBBBBBB", 8, 0, "LLLLLLLL", 1 },
	{ "limit_within", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 8 },
	/* the user's charge refuses it first, as in 6.1 */
	{ "limit_over_untouched", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, 7 },
	/* within the user's limit (4 of 7), over the mm's (4 + 4 locked) */
	{ "limit_shared_with_mlock_over", { POP(OP(MLOCK, 0, 4)),
	  GET_ERR(0, 4, 4, -ENOMEM) },
	  "LLLL....", 0, 4, "LLLL....", 2, 7 },
	{ "limit_shared_with_mlock_within", { POP(OP(MLOCK, 0, 4)), GET(0, 4, 4) },
	  "LLLLPPPP", 4, 4, "LLLL....", 2, 8 },
	{ "mlock_after_register_over", { GET(0, 0, 4), POP(OP_ERR(MLOCK, 4, 4, -ENOMEM)) },
	  "PPPP....", 4, 0, "........", 1, 6 },
	/* a ring made with CAP_IPC_LOCK charges no user, and the pin is exempt */
	{ "cap_ipc_lock_over_limit", { GET(0, 0, 8) },
	  "PPPPPPPP", 8, 0, "........", 1, 4, true },
	/* the user's charge refuses it, -ENOMEM as in 6.1 */
	{ "no_memlock_refused", { GET_ERR(0, 0, 8, -ENOMEM) },
	  "........", 0, 0, "........", 1, PT_NO_MEMLOCK },
};

static void io_rsrc_test_case_desc(const struct mm_test_pin_case *c, char *desc)
{
	mm_test_desc(c->name, desc);
}

KUNIT_ARRAY_PARAM(io_uring_rsrc, io_uring_rsrc_cases, io_rsrc_test_case_desc);

static void io_uring_rsrc_sequence(struct kunit *test)
{
	mm_test_pinner_sequence(test, &io_rsrc_test_pinner);
	io_rsrc_test_expect_user(test);
}

/*
 * io_pin_pages() takes anonymous memory, shmem and hugetlb only, all from
 * one vma or one file, for writing.
 */
static const struct mm_test_pin_mapping io_uring_rsrc_mappings[] = {
	/* name			mapping			pristine patched marked charged */
	{ "private_anon",	MM_MAP_PRIVATE_ANON,	8,	8,	'P',	8 },
	{ "shared_anon",	MM_MAP_SHARED_ANON,	8,	8,	'P',	8 },
	{ "memfd",		MM_MAP_MEMFD,		8,	8,	'P',	8 },
	{ "shared_file",	MM_MAP_SHARED_FILE,	-EOPNOTSUPP, -EOPNOTSUPP, '.', 0 },
	{ "private_file",	MM_MAP_PRIVATE_FILE,	-EOPNOTSUPP, -EOPNOTSUPP, '.', 0 },
	{ "read_only",		MM_MAP_READ_ONLY,	-EFAULT, -EFAULT, '.',	0 },
	/*
	 * 8 base pages of one 2 MiB page: the whole huge page is marked, the
	 * 8 pages charged to the mm (the user is charged the huge page)
	 */
	{ "hugetlb",		MM_MAP_HUGETLB,		8,	8,	'P',	8 },
	{ "map_locked",		MM_MAP_LOCKED,		8,	8,	'P',	8 },
	{ "prot_none",		MM_MAP_PROT_NONE,	-EFAULT, -EFAULT, '.',	0 },
	{ "vm_io_pfnmap",	MM_MAP_PFNMAP,		-EFAULT, -EFAULT, '.',	0 },
	/* pinned, then refused: a driver's file is neither shmem nor hugetlb */
	{ "driver_pages",	MM_MAP_DRIVER_PAGES,	-EOPNOTSUPP, -EOPNOTSUPP, '.', 0 },
	{ "hole",		MM_MAP_HOLE,		-EFAULT, -EFAULT, '.',	0 },
	/* private, then shared anonymous: two files (none, then shmem's) */
	{ "two_vmas",		MM_MAP_TWO_VMAS,	-EINVAL, -EINVAL, '.',	0 },
	/* mm_mpin() refuses a stack that grows: charged unmarked */
	{ "stack",		MM_MAP_STACK,		8,	8,	'.',	8 },
};

static void io_rsrc_test_mapping_desc(const struct mm_test_pin_mapping *m, char *desc)
{
	mm_test_desc(m->name, desc);
}

KUNIT_ARRAY_PARAM(io_uring_rsrc_mapping, io_uring_rsrc_mappings,
		  io_rsrc_test_mapping_desc);

static void io_uring_rsrc_mapping(struct kunit *test)
{
	mm_test_pinner_mapping(test, &io_rsrc_test_pinner, "io_uring");
	io_rsrc_test_expect_user(test);
}

/*
 * Two processes of one user, 4 pages each under RLIMIT_MEMLOCK 6: each mm
 * is within its limit, but the user's buffers would pass it, and the
 * per-user charge refuses the second, as in 6.1, with every counter left
 * as it was.  This is why the per-user charge stays.
 */
static void io_uring_rsrc_rings_of_one_user(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm, *other;
	struct io_mapped_ubuf *imu[2] = { NULL, NULL };
	struct io_ring_ctx *ring[2];
	unsigned long addr;
	s64 other_pinned;
	long user_vm;
	int ret;

	mm_test_limit(test, 6, false);
	ring[0] = io_rsrc_test_new_ring();
	ring[1] = io_rsrc_test_new_ring();
	other = mm_test_new_mm();
	if (!ring[0] || !ring[1] || !other) {
		io_rsrc_test_free_ring(ring[0]);
		io_rsrc_test_free_ring(ring[1]);
		if (other)
			mmput(other);
		KUNIT_FAIL(test, "out of memory");
		return;
	}
	KUNIT_ASSERT_NOT_NULL(test, ring[0]->user);
	user_vm = atomic_long_read(&ring[0]->user->locked_vm);

	addr = mm_test_map(test, 4, MAP_POPULATE);
	KUNIT_EXPECT_EQ(test, io_rsrc_test_register(ring[0], addr, 4, &imu[0]), 0);

	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	addr = vm_mmap(NULL, 0, 4 * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, 0);
	ret = IS_ERR_VALUE(addr) ? (int)addr :
	      io_rsrc_test_register(ring[1], addr, 4, &imu[1]);
	other_pinned = atomic64_read(&other->pinned_vm);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);

	KUNIT_EXPECT_EQ_MSG(test, ret, -ENOMEM, "the second process's buffer");
	KUNIT_EXPECT_EQ(test, other_pinned, 0LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 4LL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ring[0]->user->locked_vm),
			user_vm + 4);
	mm_test_expect_counters(test, mm);

	if (imu[0])
		io_buffer_unmap(ring[0], &imu[0]);
	if (imu[1])
		io_buffer_unmap(ring[1], &imu[1]);
	mmput(other);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	KUNIT_EXPECT_EQ(test, atomic_long_read(&ring[0]->user->locked_vm), user_vm);
	mm_test_unlimit(test);
	io_rsrc_test_free_ring(ring[0]);
	io_rsrc_test_free_ring(ring[1]);
}

/* The ring freed after its creator's exit_mmap(): io_ring_exit_work(). */
static void io_uring_rsrc_released_after_owner_exit(struct kunit *test)
{
	mm_test_pinner_owner_exits(test, &io_rsrc_test_pinner);
	io_rsrc_test_expect_user(test);
}

static struct kunit_case io_uring_rsrc_test_cases[] = {
	KUNIT_CASE_PARAM(io_uring_rsrc_sequence, io_uring_rsrc_gen_params),
	KUNIT_CASE_PARAM(io_uring_rsrc_mapping, io_uring_rsrc_mapping_gen_params),
	KUNIT_CASE(io_uring_rsrc_rings_of_one_user),
	KUNIT_CASE(io_uring_rsrc_released_after_owner_exit),
	{}
};

static struct kunit_suite io_uring_rsrc_test_suite = {
	.name = "io_uring_rsrc",
	.init = mm_test_init,
	.exit = io_rsrc_test_exit,
	.test_cases = io_uring_rsrc_test_cases,
};

kunit_test_suite(io_uring_rsrc_test_suite);

#endif /* _IO_URING_RSRC_TEST_H */

#endif /* CONFIG_IO_URING_RSRC_KUNIT_TEST */
