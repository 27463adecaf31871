// SPDX-License-Identifier: GPL-2.0
/*
 * AF_XDP umems seen from a process: setsockopt(XDP_UMEM_REG) on an AF_XDP
 * socket (no interface needed), the pinner patch 19 converts.
 *
 * Each kernel is held to what it must do (VM_KERNEL: patched or pristine).
 * Both charge a umem to the user (user->locked_vm) and refuse one past
 * RLIMIT_MEMLOCK with ENOBUFS.  The patched kernel also charges it to the
 * mm: VmPin and "pn" in smaps, under the RLIMIT_MEMLOCK the process's
 * locked pages use, so mlock and umems share one limit; the pristine
 * kernel charges the mm nothing (VmPin stays 0) and checks umems against
 * the user's limit alone.
 *
 * An AF_XDP socket needs CAP_NET_RAW.  The first rows run as root; the
 * rows that need a limit run in a child that becomes a user of its own
 * (uid 65534, then 65533: the release of a umem is deferred, and the user's
 * charge of one row must not meet the next) with CAP_NET_RAW alone and
 * its own RLIMIT_MEMLOCK.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "uapi_case.h"

#define UMEM_PAGES	16
#define SHARE_LIMIT	24	/* pages, for the rows of the shared limit */

enum {
	UMEM_REGISTERS,
	VMPIN_IS_THE_UMEM,
	FORK_CHILD_HAS_NO_PIN,
	CLOSE_RETURNS_THE_CHARGE,
	MLOCK_AND_UMEM_SHARE_THE_LIMIT,
	MLOCK_AFTER_UMEM_COUNTS_THE_UMEM,
};

static const char *const cases[] = {
	[UMEM_REGISTERS] = "umem_registers",
	[VMPIN_IS_THE_UMEM] = "vmpin_is_the_umem",
	[FORK_CHILD_HAS_NO_PIN] = "fork_child_has_no_pin",
	[CLOSE_RETURNS_THE_CHARGE] = "close_returns_the_charge",
	[MLOCK_AND_UMEM_SHARE_THE_LIMIT] = "mlock_and_umem_share_the_limit",
	[MLOCK_AFTER_UMEM_COUNTS_THE_UMEM] = "mlock_after_umem_counts_the_umem",
};

static bool patched;

/*
 * mlock half the limit, then a umem of the rest, then one of one page
 * more: each within the user's limit, the second over the mm's.
 */
static int mlock_and_umem(long limit)
{
	long locked = limit / 2, room = limit - locked;
	int within, over;
	char *mem;

	mem = map_pages(limit + 1);
	if (!mem || mlock(mem, locked * page_size)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	within = xdp_umem(mem + locked * page_size, room);
	over = xdp_umem(mem + limit * page_size, 1);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld locked: a umem of %ld pages: "
		       "%s, then one of 1 page more: %s (expected %s)\n",
		       patched ? "patched" : "pristine", limit, locked, room,
		       within < 0 ? strerror(-within) : "registered",
		       over < 0 ? strerror(-over) : "registered",
		       patched ? "ENOBUFS" : "registered");
	return within < 0 || (patched ? over != -ENOBUFS : over < 0);
}

/* A umem first, then mlock: the umem's pages count for mlock. */
static int mlock_after_umem(long limit)
{
	long registered = limit / 2, room = limit - registered;
	int fd, within, over;
	char *mem, *other;

	mem = map_pages(registered);
	other = map_pages(room + 1);
	fd = mem && other ? xdp_umem(mem, registered) : -errno;
	if (fd < 0) {
		ksft_print_msg("a umem of %ld pages: %s\n", registered, strerror(-fd));
		return 1;
	}
	within = mlock_err(other, room);
	over = mlock_err(other, room + 1);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, a umem of %ld: mlock of %ld pages: "
		       "%s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       limit, registered, room, within ? strerror(within) : "locked", room + 1,
		       over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
	return within || over != (patched ? ENOMEM : 0);
}

int main(void)
{
	const char *kernel = getenv("VM_KERNEL");
	struct totals t;
	int fd, ret, status = -1;
	long vmpin;
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

	mem = map_pages(UMEM_PAGES);
	fd = mem ? xdp_umem(mem, UMEM_PAGES) : -errno;
	pass_if(fd >= 0, cases[UMEM_REGISTERS], "a umem of %d pages at %p: %s", UMEM_PAGES, mem,
		fd < 0 ? strerror(-fd) : "registered");
	if (fd < 0)
		return KSFT_FAIL;

	ret = read_totals(getpid(), &t);
	pass_if(!ret && (patched ? t.vmpin_kb == kb(UMEM_PAGES) && t.pn_kb == kb(UMEM_PAGES) &&
			 vma_pinned(getpid(), mem) == 1 : t.vmpin_kb == 0 && t.pn_kb == 0),
		cases[VMPIN_IS_THE_UMEM], "%s kernel: VmPin %ld kB, pn %ld kB, expected %ld kB "
		"each", kernel, t.vmpin_kb, t.pn_kb, patched ? kb(UMEM_PAGES) : 0);

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

	close(fd);
	vmpin = vmpin_settled(5);
	ret = read_totals(getpid(), &t);
	pass_if(!ret && vmpin == 0 && t.pn_kb == 0, cases[CLOSE_RETURNS_THE_CHARGE],
		"close: VmPin %ld kB, pn %ld kB (the umem's release is deferred: waited up "
		"to 5 s)", vmpin, t.pn_kb);

	ret = as_user_net_raw(NOBODY, SHARE_LIMIT, mlock_and_umem);
	pass_if(!ret, cases[MLOCK_AND_UMEM_SHARE_THE_LIMIT], "as uid %d with CAP_NET_RAW: %s",
		NOBODY, ret ? "failed (above)" : "as expected");
	ret = as_user_net_raw(NOBODY - 1, SHARE_LIMIT, mlock_after_umem);
	pass_if(!ret, cases[MLOCK_AFTER_UMEM_COUNTS_THE_UMEM], "as uid %d with CAP_NET_RAW: %s",
		NOBODY - 1, ret ? "failed (above)" : "as expected");
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
