/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the charge of io_uring's zerocopy sends (io_uring_notif
 * suite): io_notif_account_mem(), which IORING_OP_SEND_ZC and
 * IORING_OP_SENDMSG_ZC call each time they issue a send, for the
 * notification of the request (so a partial send issued again grows it),
 * and io_notif_unaccount_mem(), which the notification's completion calls
 * once the network let go of the pages.
 *
 * Included at the end of io_uring/notif.c.  A ring is a bare io_ring_ctx
 * made under the credentials of the row as io_uring_create() makes one
 * (charged to its user unless the task has CAP_IPC_LOCK), and a
 * notification a bare request of that ring.  A send of n pages is charged
 * n + 2: to the mm of the sending task through a pin, and, for
 * IORING_OP_SEND_ZC as in 6.1, to the ring's user; IORING_OP_SENDMSG_ZC
 * (the rows sendmsg_*) has no per-user charge in 6.1 and gets none.  The
 * test kthread sends from a private mm (the fixture of mm/mm_test_util.h),
 * whose window of MM_TEST_PAGES populated pages the rows mlock; it runs as
 * root, with CAP_IPC_LOCK unless a row sets a limit.
 *
 * The table, io_uring_notif_cases (run by io_uring_notif_sequence): a send
 * and its completion, a send issued again, both kinds of send, the limits
 * (the user's, the mm's shared with mlock both ways, CAP_IPC_LOCK, 0),
 * each refusal with every counter left as it was.  And the completion
 * after the owner exited.  The runner is mm/mm_test_zerocopy.h's.
 */

#ifdef CONFIG_IO_URING_NOTIF_KUNIT_TEST

#ifndef _IO_URING_NOTIF_TEST_H
#define _IO_URING_NOTIF_TEST_H

#include <kunit/test.h>
#include "../mm/mm_test_zerocopy.h"

enum { IO_NOTIF_TEST_SEND_ZC, IO_NOTIF_TEST_SENDMSG_ZC };

/* io_uring_create()'s rule for the per-user charge. */
static void *io_notif_test_open(struct kunit *test)
{
	struct io_ring_ctx *ctx = kzalloc(sizeof(*ctx), GFP_KERNEL);

	if (!ctx)
		return ERR_PTR(-ENOMEM);
	if (!ns_capable_noaudit(&init_user_ns, CAP_IPC_LOCK))
		ctx->user = get_uid(current_user());
	return ctx;
}

static void io_notif_test_close(void *ctx)
{
	free_uid(((struct io_ring_ctx *)ctx)->user);
	kfree(ctx);
}

/* A send issued: a new request's notification, or @last's issued again. */
static void *io_notif_test_send(void *ctx, void *last, unsigned int pages, int variant)
{
	struct io_kiocb *notif = last;
	int ret;

	if (!notif) {
		notif = kzalloc(sizeof(*notif), GFP_KERNEL);
		if (!notif)
			return ERR_PTR(-ENOMEM);
		notif->ctx = ctx;
	}
	ret = io_notif_account_mem(notif, pages * PAGE_SIZE,
				   variant == IO_NOTIF_TEST_SEND_ZC);
	if (ret && !last)
		kfree(notif);
	return ret ? ERR_PTR(ret) : notif;
}

/* The notification completes: what __io_notif_complete_tw() returns. */
static void io_notif_test_free(void *notif, bool irqs_off)
{
	io_notif_unaccount_mem(notif);
	kfree(notif);
}

static const struct mm_test_zerocopy io_notif_test_ops = {
	.open = io_notif_test_open,
	.close = io_notif_test_close,
	.send = io_notif_test_send,
	.free = io_notif_test_free,
};

#define SENDMSG(s, np)		SEND_V(s, np, IO_NOTIF_TEST_SENDMSG_ZC)
#define SENDMSG_ERR(s, np, e)	SEND_V_ERR(s, np, IO_NOTIF_TEST_SENDMSG_ZC, e)

static const struct mm_test_zerocopy_case io_uring_notif_cases[] = {
	/*
	 * name, steps (JOIN: the request's send issued again);
	 *   pinned_vm, locked_vm, the ring user's locked_vm; options
	 * A send of n pages is charged n + 2.  Without a limit the kthread
	 * has CAP_IPC_LOCK: the mm is charged, the ring's user is not.
	 */
	{ "send", { SEND(0, 4) },
	  6, 0, 0 },
	{ "send_completed", { SEND(0, 4), FREE(0) },
	  0, 0, 0 },
	/* a partial send issued again is charged again, as 6.1 charges the user */
	{ "send_issued_again", { SEND(0, 4), JOIN(0, 2) },
	  10, 0, 0 },
	{ "send_issued_again_completed", { SEND(0, 4), JOIN(0, 2), FREE(0) },
	  0, 0, 0 },
	{ "two_requests", { SEND(0, 4), SENDMSG(1, 2) },
	  10, 0, 0 },
	{ "sendmsg", { SENDMSG(0, 4) },
	  6, 0, 0 },
	/* under a limit, without CAP_IPC_LOCK: the ring's user is charged too */
	{ "limit_within", { SEND(0, 4) },
	  6, 0, 6, 6 },
	/* the user's charge refuses it first, -ENOMEM as in 6.1 */
	{ "limit_over_untouched", { SEND_ERR(0, 4, -ENOMEM) },
	  0, 0, 0, 5 },
	{ "sendmsg_limit_within", { SENDMSG(0, 4) },
	  6, 0, 0, 6 },
	/* 6.1 charged nothing: now the mm's limit refuses it */
	{ "sendmsg_limit_over_untouched", { SENDMSG_ERR(0, 4, -ENOMEM) },
	  0, 0, 0, 5 },
	{ "limit_shared_with_mlock_within", { ZOP(OP(MLOCK, 0, 4)), SEND(0, 3) },
	  5, 4, 5, 9 },
	/* within the user's limit (5 of 8), over the mm's (4 locked + 5) */
	{ "limit_shared_with_mlock_over", { ZOP(OP(MLOCK, 0, 4)),
	  SEND_ERR(0, 3, -ENOMEM) },
	  0, 4, 0, 8 },
	{ "mlock_after_send_over", { SEND(0, 2), ZOP(OP_ERR(MLOCK, 0, 5, -ENOMEM)) },
	  4, 0, 4, 8 },
	/* the user's part (4 + 5 of 10) is taken back when the mm refuses */
	{ "issued_again_over_mm_limit_untouched", { ZOP(OP(MLOCK, 0, 2)), SEND(0, 2),
	  JOIN_ERR(0, 3, -ENOMEM) },
	  4, 2, 4, 10 },
	/* CAP_IPC_LOCK (of the ring's creator) skips the user and exempts the pin */
	{ "cap_ipc_lock_over_limit", { SEND(0, 4) },
	  6, 0, 0, 2, true },
	{ "cap_ipc_lock_no_memlock", { SENDMSG(0, 4) },
	  6, 0, 0, MZ_NO_MEMLOCK, true },
	/* the user's charge refuses it first, -ENOMEM as in 6.1 */
	{ "no_memlock_refused", { SEND_ERR(0, 4, -ENOMEM) },
	  0, 0, 0, MZ_NO_MEMLOCK },
	/* no per-user charge: mm_mpin_charge()'s -EPERM */
	{ "sendmsg_no_memlock_eperm", { SENDMSG_ERR(0, 4, -EPERM) },
	  0, 0, 0, MZ_NO_MEMLOCK },
};

KUNIT_ARRAY_PARAM(io_uring_notif, io_uring_notif_cases, mm_test_zerocopy_desc);

static void io_uring_notif_sequence(struct kunit *test)
{
	mm_test_zerocopy_sequence(test, &io_notif_test_ops);
}

/* The notification completes after the sender exited. */
static void io_uring_notif_released_after_owner_exit(struct kunit *test)
{
	mm_test_zerocopy_owner_exits(test, &io_notif_test_ops);
}

static struct kunit_case io_uring_notif_test_cases[] = {
	KUNIT_CASE_PARAM(io_uring_notif_sequence, io_uring_notif_gen_params),
	KUNIT_CASE(io_uring_notif_released_after_owner_exit),
	{}
};

static struct kunit_suite io_uring_notif_test_suite = {
	.name = "io_uring_notif",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = io_uring_notif_test_cases,
};

kunit_test_suite(io_uring_notif_test_suite);

#endif /* _IO_URING_NOTIF_TEST_H */

#endif /* CONFIG_IO_URING_NOTIF_KUNIT_TEST */
