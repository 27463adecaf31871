// SPDX-License-Identifier: GPL-2.0
/*
 * io_uring's registered buffers seen from a process (IORING_REGISTER_BUFFERS
 * through Debian's liburing, linked in statically): io_sqe_buffer_register(),
 * the pinner patch 17 converts.
 *
 * Each kernel is held to what it must do (VM_KERNEL: patched or pristine).
 * Both charge the buffers to VmPin and give the charge back when they are
 * unregistered; neither gives the child of fork any.  Both charge the
 * ring's user as well (user->locked_vm), so that two processes of one
 * unprivileged user share one RLIMIT_MEMLOCK for their buffers.  The
 * patched kernel also marks the buffers "pn" in smaps and charges them
 * under the RLIMIT_MEMLOCK the process's locked pages use, so mlock and
 * buffers share one limit; the pristine kernel checks the buffers against
 * the user's limit alone, whatever the process has locked.
 *
 * It runs as root; the rows that need a limit run in a child that becomes
 * nobody (uid 65534, no capabilities) with its own RLIMIT_MEMLOCK.
 *
 * uapi-ldlibs: -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>
#include <liburing.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "uapi_case.h"

#define BUF_PAGES	8	/* a buffer; two are registered */
#define SHARE_LIMIT	24	/* pages, for the rows of the shared limit */

enum {
	BUFFERS_REGISTER,
	VMPIN_IS_THE_BUFFERS,
	FORK_CHILD_HAS_NO_PIN,
	UNREGISTER_RETURNS_THE_CHARGE,
	EXIT_WITH_THE_BUFFERS_REGISTERED,
	MLOCK_AND_BUFFERS_SHARE_THE_LIMIT,
	MLOCK_AFTER_BUFFERS_COUNTS_THE_BUFFERS,
	TWO_PROCESSES_OF_ONE_USER_SHARE_THE_LIMIT,
};

static const char *const cases[] = {
	[BUFFERS_REGISTER] = "buffers_register",
	[VMPIN_IS_THE_BUFFERS] = "vmpin_is_the_buffers",
	[FORK_CHILD_HAS_NO_PIN] = "fork_child_has_no_pin",
	[UNREGISTER_RETURNS_THE_CHARGE] = "unregister_returns_the_charge",
	[EXIT_WITH_THE_BUFFERS_REGISTERED] = "exit_with_the_buffers_registered",
	[MLOCK_AND_BUFFERS_SHARE_THE_LIMIT] = "mlock_and_buffers_share_the_limit",
	[MLOCK_AFTER_BUFFERS_COUNTS_THE_BUFFERS] = "mlock_after_buffers_counts_the_buffers",
	[TWO_PROCESSES_OF_ONE_USER_SHARE_THE_LIMIT] =
		"two_processes_of_one_user_share_the_limit",
};

static bool patched;

/*
 * Register n buffers of pages each, one after the other from mem, on a
 * ring of its own.  Return: 0, or the errno of io_uring_queue_init() or
 * io_uring_register_buffers().
 */
static int reg(struct io_uring *ring, char *mem, int n, long pages)
{
	struct iovec iov[2];
	int i, ret;

	ret = io_uring_queue_init(4, ring, 0);
	if (ret)
		return -ret;
	for (i = 0; i < n; i++) {
		iov[i].iov_base = mem + i * pages * page_size;
		iov[i].iov_len = pages * page_size;
	}
	ret = io_uring_register_buffers(ring, iov, n);
	if (ret)
		io_uring_queue_exit(ring);
	return -ret;
}

static void unreg(struct io_uring *ring)
{
	io_uring_unregister_buffers(ring);
	io_uring_queue_exit(ring);
}

/* errno of registering one buffer of pages from mem, 0 if it registered. */
static int reg_err(char *mem, long pages)
{
	struct io_uring ring;
	int err = reg(&ring, mem, 1, pages);

	if (!err)
		unreg(&ring);
	return err;
}

/* Half the limit locked, then a buffer of the rest, and one page more. */
static int mlock_and_buffers(long limit)
{
	long locked = limit / 2, room = limit - locked;
	int within, over;
	char *mem;

	mem = map_pages(limit + 1);
	if (!mem || mlock(mem, locked * page_size)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	within = reg_err(mem + locked * page_size, room);
	over = reg_err(mem + locked * page_size, room + 1);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld locked: a buffer of %ld "
		       "pages: %s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       limit, locked, room, within ? strerror(within) : "registered",
		       room + 1, over ? strerror(over) : "registered",
		       patched ? "ENOMEM" : "registered");
	return within || over != (patched ? ENOMEM : 0);
}

/* A buffer first, then mlock: the buffer's pages count for mlock. */
static int mlock_after_buffers(long limit)
{
	long registered = limit / 2, room = limit - registered;
	struct io_uring ring;
	int err, within, over;
	char *mem, *other;

	mem = map_pages(registered);
	other = map_pages(room + 1);
	if (!mem || !other) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	err = reg(&ring, mem, 1, registered);
	if (err) {
		ksft_print_msg("a buffer of %ld pages: %s\n", registered, strerror(err));
		return 1;
	}
	within = mlock_err(other, room);
	over = mlock_err(other, room + 1);
	unreg(&ring);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld registered: mlock of %ld "
		       "pages: %s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       limit, registered, room, within ? strerror(within) : "locked", room + 1,
		       over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
	return within || over != (patched ? ENOMEM : 0);
}

/*
 * Two processes of one user: this one registers two thirds of the limit,
 * a child (an mm of its own) as much again: each is within the limit, the
 * two are not, and the user's charge refuses the child's, on both kernels.
 */
static int two_processes(long limit)
{
	long pages = limit * 2 / 3;
	struct io_uring ring;
	int err, status = -1;
	char *mem;
	pid_t pid;

	mem = map_pages(pages);
	err = mem ? reg(&ring, mem, 1, pages) : errno;
	if (err) {
		ksft_print_msg("a buffer of %ld pages: %s\n", pages, strerror(err));
		return 1;
	}
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *cmem = map_pages(pages);

		_exit(cmem ? reg_err(cmem, pages) : 255);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	unreg(&ring);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages: a buffer of %ld pages here, then "
		       "one of %ld in a child: %s (expected ENOMEM)\n",
		       patched ? "patched" : "pristine", limit, pages, pages,
		       !WIFEXITED(status) ? "the child failed" :
		       WEXITSTATUS(status) ? strerror(WEXITSTATUS(status)) : "registered");
	return !WIFEXITED(status) || WEXITSTATUS(status) != ENOMEM;
}

int main(void)
{
	const char *kernel = getenv("VM_KERNEL");
	long both = 2 * BUF_PAGES;
	struct io_uring ring;
	struct totals t;
	int ret, status = -1;
	char *mem;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine")))
		ksft_exit_fail_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
				   "sets it)\n", kernel ? kernel : "");
	patched = !strcmp(kernel, "patched");

	mem = map_pages(both);
	ret = mem ? reg(&ring, mem, 2, BUF_PAGES) : errno;
	pass_if(!ret, cases[BUFFERS_REGISTER], "two buffers of %d pages at %p: %s", BUF_PAGES,
		mem, ret ? strerror(ret) : "registered");
	if (ret)
		return KSFT_FAIL;

	ret = read_totals(getpid(), &t);
	pass_if(!ret && t.vmpin_kb == kb(both) &&
		(patched ? t.pn_kb == kb(both) && vma_pinned(getpid(), mem) == 1 : t.pn_kb == 0),
		cases[VMPIN_IS_THE_BUFFERS], "%s kernel: VmPin %ld kB, pn %ld kB, expected %ld kB "
		"and %ld kB", kernel, t.vmpin_kb, t.pn_kb, kb(both), patched ? kb(both) : 0);

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(read_totals(getpid(), &t) || t.vmpin_kb || t.pn_kb);
	if (pid > 0)
		waitpid(pid, &status, 0);
	pass_if(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		cases[FORK_CHILD_HAS_NO_PIN], "the child of fork: %s",
		pid < 0 ? strerror(errno) : WIFEXITED(status) && !WEXITSTATUS(status) ?
		"VmPin 0, no pn" : "a pin, or killed");

	ret = io_uring_unregister_buffers(&ring);
	status = read_totals(getpid(), &t);
	pass_if(!ret && !status && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[UNREGISTER_RETURNS_THE_CHARGE], "io_uring_unregister_buffers: %s; "
		"VmPin %ld kB, pn %ld kB", ret ? strerror(-ret) : "ok", t.vmpin_kb, t.pn_kb);
	io_uring_queue_exit(&ring);

	/*
	 * A child registers and exits with the ring open: the ring is freed
	 * from io_ring_exit_work() after the child's exit_mmap(), against the
	 * pin (the KUnit suite io_uring_rsrc checks the charge; here, that the
	 * kernel does it from a real process without complaint, which the
	 * console check would report).
	 */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		char *cmem = map_pages(both);

		if (!cmem || reg(&ring, cmem, 2, BUF_PAGES) || read_totals(getpid(), &t) ||
		    t.vmpin_kb != kb(both) || (patched && t.pn_kb != kb(both)))
			_exit(1);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	pass_if(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		cases[EXIT_WITH_THE_BUFFERS_REGISTERED], "the child registered %ld pages "
		"(VmPin %ld kB%s) and exited with its ring open: %s", both, kb(both),
		patched ? ", pn" : "", pid < 0 ? strerror(errno) :
		WIFEXITED(status) && !WEXITSTATUS(status) ? "released with the ring" :
		"the child failed");

	ret = as_nobody(SHARE_LIMIT, mlock_and_buffers);
	pass_if(!ret, cases[MLOCK_AND_BUFFERS_SHARE_THE_LIMIT], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	ret = as_nobody(SHARE_LIMIT, mlock_after_buffers);
	pass_if(!ret, cases[MLOCK_AFTER_BUFFERS_COUNTS_THE_BUFFERS], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	ret = as_nobody(SHARE_LIMIT, two_processes);
	pass_if(!ret, cases[TWO_PROCESSES_OF_ONE_USER_SHARE_THE_LIMIT], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
