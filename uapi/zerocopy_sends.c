// SPDX-License-Identifier: GPL-2.0
/*
 * Zerocopy sends seen from a process, on TCP connections over loopback:
 * send(MSG_ZEROCOPY), which patch 23 converts, and io_uring's
 * IORING_OP_SEND_ZC and IORING_OP_SENDMSG_ZC (through Debian's liburing,
 * linked in statically), which patch 24 converts (the io_uring_ rows).
 *
 * A send of n pages takes a notification charged n + 2 pages (its ends)
 * until the notification is freed: when every skb that carried the pages
 * is acknowledged, or dropped when the socket is closed.  To hold one, the
 * receiver never reads and has a small receive buffer: its window closes,
 * and what does not fit waits in the sender's queue.
 *
 * Each kernel is held to what it must do (VM_KERNEL: patched or pristine).
 * Both charge a notification to the user (user->locked_vm) and refuse a
 * send past RLIMIT_MEMLOCK with ENOBUFS.  The patched kernel also charges
 * it to the mm: VmPin, marking no vma (no "pn" in smaps: the pages of a
 * send are any iovec's), under the RLIMIT_MEMLOCK the locked pages use,
 * so mlock and zerocopy sends share one limit; the pristine kernel charges
 * the mm nothing.  io_uring's sends are held the same way until their
 * notification's CQE; 6.1 charges IORING_OP_SEND_ZC to the ring's user
 * (-ENOMEM past the limit) and IORING_OP_SENDMSG_ZC to nothing, and the
 * patched kernel charges both to the mm as well.  The rows that need a
 * limit run as nobody in a child with RLIMIT_MEMLOCK of SHARE_LIMIT pages;
 * TCP over loopback needs no capability.
 *
 * uapi-ldlibs: -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/errqueue.h>
#include <liburing.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "uapi_case.h"

#define SEND_PAGES	8
#define SHARE_LIMIT	24	/* pages, for the rows of the shared limit */

enum {
	SEND_COMPLETES,
	VMPIN_IS_THE_QUEUED_SEND,
	CLOSE_RETURNS_THE_CHARGE,
	SEND_OVER_THE_LIMIT_REFUSED,
	MLOCK_AND_SENDS_SHARE_THE_LIMIT,
	MLOCK_AFTER_SEND_COUNTS_THE_SEND,
	IO_URING_SEND_ZC_IS_VMPIN,
	IO_URING_COMPLETION_RETURNS_THE_CHARGE,
	IO_URING_SEND_ZC_OVER_THE_LIMIT_REFUSED,
	IO_URING_SENDMSG_ZC_AND_MLOCK_SHARE_THE_LIMIT,
};

static const char *const cases[] = {
	[SEND_COMPLETES] = "send_completes",
	[VMPIN_IS_THE_QUEUED_SEND] = "vmpin_is_the_queued_send",
	[CLOSE_RETURNS_THE_CHARGE] = "close_returns_the_charge",
	[SEND_OVER_THE_LIMIT_REFUSED] = "send_over_the_limit_refused",
	[MLOCK_AND_SENDS_SHARE_THE_LIMIT] = "mlock_and_sends_share_the_limit",
	[MLOCK_AFTER_SEND_COUNTS_THE_SEND] = "mlock_after_send_counts_the_send",
	[IO_URING_SEND_ZC_IS_VMPIN] = "io_uring_send_zc_is_vmpin",
	[IO_URING_COMPLETION_RETURNS_THE_CHARGE] = "io_uring_completion_returns_the_charge",
	[IO_URING_SEND_ZC_OVER_THE_LIMIT_REFUSED] = "io_uring_send_zc_over_the_limit_refused",
	[IO_URING_SENDMSG_ZC_AND_MLOCK_SHARE_THE_LIMIT] =
		"io_uring_sendmsg_zc_and_mlock_share_the_limit",
};

static bool patched;

/* Wait up to 5 s for the notification of the send of id: 0, or -1. */
static int zc_completion(int fd, unsigned int id)
{
	char control[128];
	int i;

	for (i = 0; i < 50; i++) {
		struct msghdr msg = { .msg_control = control,
				      .msg_controllen = sizeof(control) };
		struct pollfd pfd = { .fd = fd };
		struct sock_extended_err *serr;
		struct cmsghdr *cm;

		poll(&pfd, 1, 100);
		if (recvmsg(fd, &msg, MSG_ERRQUEUE | MSG_DONTWAIT) < 0)
			continue;
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			serr = (void *)CMSG_DATA(cm);
			if (serr->ee_origin == SO_EE_ORIGIN_ZEROCOPY &&
			    serr->ee_info <= id && id <= serr->ee_data)
				return 0;
		}
	}
	return -1;
}

/* Read what the receiver has, until the sender's data is all in. */
static long drain(int fd, long bytes)
{
	char buf[4096];
	long got = 0;
	ssize_t n;

	while (got < bytes && (n = recv(fd, buf, sizeof(buf), 0)) > 0)
		got += n;
	return got;
}

/*
 * As nobody under SHARE_LIMIT: mlock, then a send within what is left,
 * then one of one page more.  Each within the user's limit alone; the
 * second over the mm's on the patched kernel.
 */
static int mlock_and_send(long limit)
{
	long locked = limit / 2, room = limit - locked - 2;
	int snd, rcv, within, over;
	char *mem;

	mem = map_pages(limit + 1);
	if (!mem || mlock(mem, locked * page_size) || tcp_pair(&snd, &rcv, 0)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	within = zc_send(snd, mem + locked * page_size, room);
	if (!within && (drain(rcv, room * page_size) != room * page_size ||
			zc_completion(snd, 0)))
		within = ETIMEDOUT;
	over = zc_send(snd, mem + locked * page_size, room + 1);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld locked: a send of %ld pages "
		       "(charged %ld): %s, then one of %ld: %s (expected %s)\n",
		       patched ? "patched" : "pristine", limit, locked, room, room + 2,
		       within ? strerror(within) : "sent", room + 1,
		       over ? strerror(over) : "sent", patched ? "ENOBUFS" : "sent");
	return within || over != (patched ? ENOBUFS : 0);
}

/* A send held first, then mlock: the send's pages count for mlock. */
static int mlock_after_send(long limit)
{
	long charged = SEND_PAGES + 2, room = limit - charged;
	int snd, rcv, err, over, within = -1;
	char *mem, *other;

	mem = map_pages(SEND_PAGES);
	other = map_pages(room + 1);
	err = mem && other ? zc_held(&snd, &rcv, mem, SEND_PAGES) : errno;
	if (err) {
		ksft_print_msg("a send of %d pages: %s\n", SEND_PAGES, strerror(err));
		return 1;
	}
	over = mlock_err(other, room + 1);
	if (!munlock(other, (room + 1) * page_size))
		within = mlock_err(other, room);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, a send of %d held (charged %ld): "
		       "mlock of %ld pages: %s, of %ld: %s (expected %s, then locked)\n",
		       patched ? "patched" : "pristine", limit, SEND_PAGES, charged, room + 1,
		       over ? strerror(over) : "locked", room, within ? strerror(within) : "locked",
		       patched ? "ENOMEM" : "locked");
	return within || over != (patched ? ENOMEM : 0);
}

/* A send whose charge alone is over the limit: refused on both kernels. */
static int send_over_limit(long limit)
{
	long pages = limit - 1;		/* charged limit + 1 */
	int snd, rcv, err;
	char *mem;

	mem = map_pages(pages);
	if (!mem || tcp_pair(&snd, &rcv, 0)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	err = zc_send(snd, mem, pages);
	ksft_print_msg("RLIMIT_MEMLOCK %ld pages: a send of %ld pages (charged %ld): %s, "
		       "VmPin %ld kB (expected ENOBUFS, 0 kB)\n", limit, pages, pages + 2,
		       err ? strerror(err) : "sent", vmpin_settled(0));
	return err != ENOBUFS || vmpin_settled(0);
}

/*
 * An io_uring zerocopy send (sendmsg if msg) of pages from mem on fd: the
 * result of the send (bytes sent, or -errno); its notification comes later.
 */
static int uring_zc(struct io_uring *ring, int fd, char *mem, long pages, bool msg)
{
	struct iovec iov = { .iov_base = mem, .iov_len = pages * page_size };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
	struct io_uring_cqe *cqe;
	int res;

	if (!sqe)
		return -EBUSY;
	if (msg)
		io_uring_prep_sendmsg_zc(sqe, fd, &mh, MSG_DONTWAIT);
	else
		io_uring_prep_send_zc(sqe, fd, mem, pages * page_size, MSG_DONTWAIT, 0);
	if (io_uring_submit(ring) != 1)
		return -EIO;
	do {
		if (io_uring_wait_cqe(ring, &cqe))
			return -EIO;
		res = cqe->flags & IORING_CQE_F_NOTIF ? 1 : cqe->res;
		if (cqe->flags & IORING_CQE_F_NOTIF) {
			io_uring_cqe_seen(ring, cqe);
			continue;
		}
		io_uring_cqe_seen(ring, cqe);
		return res;
	} while (1);
}

/* Wait up to 5 s for a notification's CQE: 0, or -1. */
static int uring_notified(struct io_uring *ring)
{
	struct __kernel_timespec ts = { .tv_sec = 5 };
	struct io_uring_cqe *cqe;
	bool notif;

	if (io_uring_wait_cqe_timeout(ring, &cqe, &ts))
		return -1;
	notif = cqe->flags & IORING_CQE_F_NOTIF;
	io_uring_cqe_seen(ring, cqe);
	return notif ? 0 : -1;
}

/* As nobody: an IORING_OP_SEND_ZC whose charge alone is over the limit. */
static int uring_over_limit(long limit)
{
	long pages = limit - 1;		/* charged limit + 1 */
	struct io_uring ring;
	int snd, rcv, res;
	char *mem;

	mem = map_pages(pages);
	if (!mem || tcp_pair(&snd, &rcv, 0) || io_uring_queue_init(4, &ring, 0)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	res = uring_zc(&ring, snd, mem, pages, false);
	ksft_print_msg("RLIMIT_MEMLOCK %ld pages: IORING_OP_SEND_ZC of %ld pages (charged %ld): "
		       "%s, VmPin %ld kB (expected ENOMEM, 0 kB)\n", limit, pages, pages + 2,
		       res < 0 ? strerror(-res) : "sent", vmpin_settled(0));
	return res != -ENOMEM || vmpin_settled(0);
}

/*
 * As nobody: mlock half the limit, then an IORING_OP_SENDMSG_ZC of what is
 * left, then one of one page more: 6.1 charges neither, the patched
 * kernel refuses the second for the mm's limit.
 */
static int uring_sendmsg_and_mlock(long limit)
{
	long locked = limit / 2, room = limit - locked - 2;
	struct io_uring ring;
	int snd, rcv, within, over;
	char *mem;

	mem = map_pages(limit + 1);
	if (!mem || mlock(mem, locked * page_size) || tcp_pair(&snd, &rcv, 0) ||
	    io_uring_queue_init(4, &ring, 0)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	within = uring_zc(&ring, snd, mem + locked * page_size, room, true);
	if (within > 0 && (drain(rcv, within) != within || uring_notified(&ring)))
		within = -ETIMEDOUT;
	over = uring_zc(&ring, snd, mem + locked * page_size, room + 1, true);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld locked: IORING_OP_SENDMSG_ZC of "
		       "%ld pages (charged %ld): %s, then of %ld: %s (expected %s)\n",
		       patched ? "patched" : "pristine", limit, locked, room, room + 2,
		       within < 0 ? strerror(-within) : "sent", room + 1,
		       over < 0 ? strerror(-over) : "sent", patched ? "ENOMEM" : "sent");
	return within != room * page_size ||
	       (patched ? over != -ENOMEM : over != (room + 1) * page_size);
}

/* The rows that run as nobody under SHARE_LIMIT pages, in this order. */
static const struct {
	int row;
	int (*fn)(long limit);
} unprivileged[] = {
	{ SEND_OVER_THE_LIMIT_REFUSED, send_over_limit },
	{ MLOCK_AND_SENDS_SHARE_THE_LIMIT, mlock_and_send },
	{ MLOCK_AFTER_SEND_COUNTS_THE_SEND, mlock_after_send },
	{ IO_URING_SEND_ZC_OVER_THE_LIMIT_REFUSED, uring_over_limit },
	{ IO_URING_SENDMSG_ZC_AND_MLOCK_SHARE_THE_LIMIT, uring_sendmsg_and_mlock },
};

int main(void)
{
	const char *kernel = getenv("VM_KERNEL");
	int snd, rcv, err, ret;
	struct io_uring ring;
	unsigned int i;
	struct totals t;
	long vmpin;
	char *mem;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine")))
		ksft_exit_fail_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
				   "sets it)\n", kernel ? kernel : "");
	patched = !strcmp(kernel, "patched");
	if (lo_up())
		ksft_exit_fail_msg("lo up: %s\n", strerror(errno));

	mem = map_pages(SEND_PAGES);
	err = !mem ? errno : tcp_pair(&snd, &rcv, 0) ? errno : zc_send(snd, mem, SEND_PAGES);
	ret = err ? -1 : drain(rcv, SEND_PAGES * page_size) == SEND_PAGES * page_size ?
	      zc_completion(snd, 0) : -1;
	pass_if(!err && !ret, cases[SEND_COMPLETES], "a send of %d pages: %s, %s", SEND_PAGES,
		err ? strerror(err) : "sent", ret ? "no notification in 5 s" : "notified");
	if (!err) {
		close(snd);
		close(rcv);
	}

	err = zc_held(&snd, &rcv, mem, SEND_PAGES);
	ret = read_totals(getpid(), &t);
	pass_if(!err && !ret && t.pn_kb == 0 && t.vmpin_kb == (patched ? kb(SEND_PAGES + 2) : 0),
		cases[VMPIN_IS_THE_QUEUED_SEND], "%s kernel, a send of %d pages waiting for "
		"the window: %s; VmPin %ld kB (expected %ld), pn %ld kB (expected 0)", kernel,
		SEND_PAGES, err ? strerror(err) : "queued", t.vmpin_kb,
		patched ? kb(SEND_PAGES + 2) : 0, t.pn_kb);

	if (!err) {
		close(snd);
		close(rcv);
	}
	vmpin = vmpin_settled(5);
	pass_if(!err && vmpin == 0, cases[CLOSE_RETURNS_THE_CHARGE],
		"close of both ends, the send unsent: VmPin %ld kB (waited up to 5 s)", vmpin);

	/* io_uring: a send held by a closed window, as above */
	ret = io_uring_queue_init(4, &ring, 0);
	err = ret ? -ret : tcp_pair(&snd, &rcv, 2048) ? errno : 0;
	ret = err ? -err : uring_zc(&ring, snd, mem, SEND_PAGES, false);
	err = ret > 0 ? read_totals(getpid(), &t) : -1;
	pass_if(!err && t.pn_kb == 0 && t.vmpin_kb == (patched ? kb(SEND_PAGES + 2) : 0),
		cases[IO_URING_SEND_ZC_IS_VMPIN], "%s kernel, IORING_OP_SEND_ZC of %d pages "
		"waiting for the window: %s; VmPin %ld kB (expected %ld), pn %ld kB (expected 0)",
		kernel, SEND_PAGES, ret < 0 ? strerror(-ret) : "queued", t.vmpin_kb,
		patched ? kb(SEND_PAGES + 2) : 0, t.pn_kb);
	if (ret > 0) {
		close(snd);
		close(rcv);
		ret = uring_notified(&ring);
	}
	vmpin = vmpin_settled(5);
	pass_if(!ret && vmpin == 0, cases[IO_URING_COMPLETION_RETURNS_THE_CHARGE],
		"close of both ends: %s, VmPin %ld kB (waited up to 5 s)",
		ret ? "no notification in 5 s" : "notified", vmpin);

	for (i = 0; i < ARRAY_SIZE(unprivileged); i++) {
		ret = as_nobody(SHARE_LIMIT, unprivileged[i].fn);
		pass_if(!ret, cases[unprivileged[i].row], "as nobody: %s",
			ret ? "failed (above)" : "as expected");
	}
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
