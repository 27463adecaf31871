/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit tests of the charge of MSG_ZEROCOPY sends (msg_zerocopy suite):
 * msg_zerocopy_realloc(), which a send with MSG_ZEROCOPY calls for its
 * notification (a new one, or the last one of the socket, which the send
 * joins), and the notification's callback, whose last reference releases
 * it when the skbs that carried its pages are freed.
 *
 * Included at the end of net/core/skbuff.c, on a UDP socket of the kernel
 * that sends nothing: the charge is made when the notification is taken,
 * before any page is, and returned when it is released.  A send of n
 * pages is charged n + 2 (the worst case of its ends), to the mm of the
 * sending task through a pin, and to its user's locked_vm unless it has
 * CAP_IPC_LOCK, as in 6.1.  The test kthread sends from a private mm (the
 * fixture of mm/mm_test_util.h), whose window of MM_TEST_PAGES populated
 * pages the rows mlock; it runs as root, with CAP_IPC_LOCK unless a row
 * sets a limit.
 *
 * The table, msg_zerocopy_cases (run by msg_zerocopy_sequence): a send and
 * its release, with interrupts off too; a send that joins the last one,
 * released with it; two notifications; RLIMIT_MEMLOCK shared with mlock
 * both ways, a join over either limit refused with both counters left as
 * they were, CAP_IPC_LOCK, 0.  And the release after the owner exited.
 * The runner is mm/mm_test_zerocopy.h's.
 */

#ifdef CONFIG_MSG_ZEROCOPY_KUNIT_TEST

#ifndef _SKBUFF_ZEROCOPY_TEST_H
#define _SKBUFF_ZEROCOPY_TEST_H

#include <kunit/test.h>
#include <linux/net.h>
#include <linux/in.h>
#include "../../mm/mm_test_zerocopy.h"

/* A UDP socket of the kernel's, flagged for zerocopy sends. */
static void *msg_zerocopy_test_open(struct kunit *test)
{
	struct socket *sock;
	int ret;

	ret = sock_create_kern(&init_net, AF_INET, SOCK_DGRAM, IPPROTO_UDP, &sock);
	if (ret)
		return ERR_PTR(ret);
	sock_set_flag(sock->sk, SOCK_ZEROCOPY);
	return sock;
}

static void msg_zerocopy_test_close(void *sock)
{
	sock_release(sock);
}

/*
 * What a send does: the socket locked, as a corked UDP send holds it; no
 * notification fails the send with -ENOBUFS.
 */
static void *msg_zerocopy_test_send(void *through, void *last, unsigned int pages,
				    int variant)
{
	struct sock *sk = ((struct socket *)through)->sk;
	struct ubuf_info *uarg;

	lock_sock(sk);
	uarg = msg_zerocopy_realloc(sk, pages * PAGE_SIZE, last);
	release_sock(sk);
	return uarg ? : ERR_PTR(-ENOBUFS);
}

/* The last reference: net_zcopy_put(), as the last skb's free does. */
static void msg_zerocopy_test_free(void *uarg, bool irqs_off)
{
	unsigned long flags;

	if (irqs_off)
		local_irq_save(flags);
	net_zcopy_put(uarg);
	if (irqs_off)
		local_irq_restore(flags);
}

static const struct mm_test_zerocopy msg_zerocopy_test_ops = {
	.open = msg_zerocopy_test_open,
	.close = msg_zerocopy_test_close,
	.send = msg_zerocopy_test_send,
	.free = msg_zerocopy_test_free,
	.irqs_off = true,
};

static const struct mm_test_zerocopy_case msg_zerocopy_cases[] = {
	/*
	 * name, steps;
	 *   pinned_vm, locked_vm, the user's locked_vm; options
	 * A send of n pages is charged n + 2.  Without a limit the kthread
	 * has CAP_IPC_LOCK: the mm is charged, the user is not.
	 */
	{ "send", { SEND(0, 4) },
	  6, 0, 0 },
	{ "send_released", { SEND(0, 4), FREE(0) },
	  0, 0, 0 },
	/* the charge comes back at once; the mm is let go by a workqueue */
	{ "send_released_irqs_off", { SEND(0, 4), FREE_IRQ(0) },
	  0, 0, 0 },
	{ "join", { SEND(0, 4), JOIN(0, 2) },
	  10, 0, 0 },
	{ "join_released_whole", { SEND(0, 4), JOIN(0, 2), FREE(0) },
	  0, 0, 0 },
	{ "two_notifications", { SEND(0, 4), SEND(1, 2) },
	  10, 0, 0 },
	/* under a limit, without CAP_IPC_LOCK: the user is charged too */
	{ "limit_within", { SEND(0, 4) },
	  6, 0, 6, 6 },
	{ "limit_join_within", { SEND(0, 2), JOIN(0, 1) },
	  7, 0, 7, 8 },
	{ "limit_released_irqs_off", { SEND(0, 4), FREE_IRQ(0) },
	  0, 0, 0, 6 },
	/* the user's charge refuses it first, as in 6.1 */
	{ "limit_over_untouched", { SEND_ERR(0, 4, -ENOBUFS) },
	  0, 0, 0, 5 },
	{ "limit_shared_with_mlock_within", { ZOP(OP(MLOCK, 0, 4)), SEND(0, 3) },
	  5, 4, 5, 9 },
	/* within the user's limit (5 of 8), over the mm's (4 locked + 5) */
	{ "limit_shared_with_mlock_over", { ZOP(OP(MLOCK, 0, 4)),
	  SEND_ERR(0, 3, -ENOBUFS) },
	  0, 4, 0, 8 },
	{ "mlock_after_send_over", { SEND(0, 2), ZOP(OP_ERR(MLOCK, 0, 5, -ENOMEM)) },
	  4, 0, 4, 8 },
	/* over both limits: the notification keeps what it had */
	{ "join_over_limit_untouched", { SEND(0, 2), JOIN_ERR(0, 3, -ENOBUFS) },
	  4, 0, 4, 8 },
	/* the user's part (4 + 5 of 10) is taken back when the mm refuses */
	{ "join_over_mm_limit_untouched", { ZOP(OP(MLOCK, 0, 2)), SEND(0, 2),
	  JOIN_ERR(0, 3, -ENOBUFS) },
	  4, 2, 4, 10 },
	/* CAP_IPC_LOCK skips the user's charge and exempts the pin */
	{ "cap_ipc_lock_over_limit", { SEND(0, 4) },
	  6, 0, 0, 2, true },
	{ "cap_ipc_lock_join", { SEND(0, 4), JOIN(0, 2) },
	  10, 0, 0, 2, true },
	{ "cap_ipc_lock_no_memlock", { SEND(0, 4) },
	  6, 0, 0, MZ_NO_MEMLOCK, true },
	{ "no_memlock_refused", { SEND_ERR(0, 4, -ENOBUFS) },
	  0, 0, 0, MZ_NO_MEMLOCK },
};

KUNIT_ARRAY_PARAM(msg_zerocopy, msg_zerocopy_cases, mm_test_zerocopy_desc);

static void msg_zerocopy_sequence(struct kunit *test)
{
	mm_test_zerocopy_sequence(test, &msg_zerocopy_test_ops);
}

/* The last skb freed, interrupts off, after the sender exited. */
static void msg_zerocopy_released_after_owner_exit(struct kunit *test)
{
	mm_test_zerocopy_owner_exits(test, &msg_zerocopy_test_ops);
}

static struct kunit_case msg_zerocopy_test_cases[] = {
	KUNIT_CASE_PARAM(msg_zerocopy_sequence, msg_zerocopy_gen_params),
	KUNIT_CASE(msg_zerocopy_released_after_owner_exit),
	{}
};

static struct kunit_suite msg_zerocopy_test_suite = {
	.name = "msg_zerocopy",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = msg_zerocopy_test_cases,
};

kunit_test_suite(msg_zerocopy_test_suite);

#endif /* _SKBUFF_ZEROCOPY_TEST_H */

#endif /* CONFIG_MSG_ZEROCOPY_KUNIT_TEST */
