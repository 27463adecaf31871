// SPDX-License-Identifier: GPL-2.0
/*
 * The perf ring buffer: the first long-term pinner a process reaches
 * without hardware (a software event, exclude_kernel, 1 + 16 pages).
 *
 * What the pristine tree does (kernel/events/core.c, perf_mmap()): the ring
 * buffer is charged to the user's perf_mlock up to perf_event_mlock_kb per
 * CPU, and only what exceeds that goes to mm->pinned_vm (VmPin), checked
 * against RLIMIT_MEMLOCK without the process's locked_vm.  So mlock and perf
 * together can exceed RLIMIT_MEMLOCK.
 *
 * What the series must do once perf pins its buffer with mm_mpin(): VmPin is
 * the whole ring buffer and smaps shows its vma "pn"; munmap returns the
 * charge; a child of fork has VmPin 0; mlock and perf together never exceed
 * RLIMIT_MEMLOCK.
 *
 * What the series already changes here (patch 2): mlock counts pinned_vm
 * against RLIMIT_MEMLOCK, so once the ring buffer has charged pages there,
 * mlock may lock that much less; the pristine kernel checks locked_vm
 * alone.  Which kernel this is comes from VM_KERNEL (patched or pristine),
 * which scripts/userspace puts on the kernel command line for init's
 * environment: each kernel is held to what it must do.
 *
 * Whether perf is converted is read from smaps ("pn" on the ring buffer), not
 * assumed.  Until it is, each expectation of the conversion that the kernel
 * does not meet is reported as a named expected failure (SKIP, never a pass);
 * one that holds while perf is not converted fails as an unexpected pass.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/perf_event.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest.h"
#include "vm_accounting.h"

#define DATA_PAGES	16
#define RING_PAGES	(1 + DATA_PAGES)

/* The cases, in the order they are reported. */
enum {
	RING_BUFFER_MAPS,
	VMPIN_BEYOND_PERF_EVENT_MLOCK_KB,
	VMPIN_IS_THE_RING_BUFFER,
	FORK_CHILD_HAS_NO_PIN,
	MUNMAP_RETURNS_THE_CHARGE,
	MLOCK_AFTER_PERF_COUNTS_PINNED_VM,
	MLOCK_AND_PERF_SHARE_THE_LIMIT,
};

static const char *const cases[] = {
	[RING_BUFFER_MAPS] = "ring_buffer_maps",
	[VMPIN_BEYOND_PERF_EVENT_MLOCK_KB] = "vmpin_beyond_perf_event_mlock_kb",
	[VMPIN_IS_THE_RING_BUFFER] = "vmpin_is_the_ring_buffer",
	[FORK_CHILD_HAS_NO_PIN] = "fork_child_has_no_pin",
	[MUNMAP_RETURNS_THE_CHARGE] = "munmap_returns_the_charge",
	[MLOCK_AFTER_PERF_COUNTS_PINNED_VM] = "mlock_after_perf_counts_pinned_vm",
	[MLOCK_AND_PERF_SHARE_THE_LIMIT] = "mlock_and_perf_share_the_limit",
};

static long kb(long pages)
{
	return pages * page_size / 1024;
}

static void pass_if(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s: %s\n", name, buf);
	ksft_test_result(ok, "%s\n", name);
}

/*
 * "ok N name # SKIP why", counted as kselftest.h counts a skip: 6.1's
 * ksft_test_result_skip() prints no name, and kunit.py would see a case
 * without one.
 */
static void skip(const char *name, const char *fmt, ...)
{
	va_list ap;
	char buf[256];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ksft_inc_xskip_cnt();
	printf("ok %u %s # SKIP %s\n", ksft_test_num(), name, buf);
}

/*
 * An expectation of the conversion: a pass once perf is converted; until
 * then an expected failure, or an unexpected pass if it already holds.
 */
static void converted_expectation(bool converted, bool holds, const char *name,
				  const char *seen)
{
	ksft_print_msg("%s: %s\n", name, seen);
	if (converted)
		ksft_test_result(holds, "%s\n", name);
	else if (holds)
		ksft_test_result_fail("%s # %s\n", name,
				      "unexpected pass: perf is not converted, yet this holds");
	else
		skip(name, "expected failure until perf pins with mm_mpin(): %s", seen);
}

static int perf_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

static long read_long(const char *path)
{
	FILE *f = fopen(path, "r");
	long v = -1;

	if (f) {
		if (fscanf(f, "%ld", &v) != 1)
			v = -1;
		fclose(f);
	}
	return v;
}

/* Is the vma at addr pinned ("pn") in smaps?  -1: no vma there. */
static int vma_pinned(pid_t pid, void *addr)
{
	static struct vma v[MAX_VMAS];
	int i, n = read_smaps(pid, v, MAX_VMAS);

	for (i = 0; i < n; i++)
		if (v[i].start <= (unsigned long)addr && (unsigned long)addr < v[i].end)
			return v[i].pinned;
	return -1;
}

static void *ring_map(int fd)
{
	return mmap(NULL, RING_PAGES * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

/* errno of mlock(2) of the first pages of mem, 0 if it locked them. */
static int mlock_err(void *mem, long pages)
{
	int err = mlock(mem, pages * page_size) ? errno : 0;

	munlock(mem, pages * page_size);
	return err;
}

/*
 * The ring buffer first, then mlock up to the limit: with the series,
 * what perf charged to pinned_vm leaves that much less for mlock (room
 * pages lock, room + 1 do not); the pristine kernel lets mlock take the
 * whole limit beside it.
 */
static void mlock_after_perf(int fd, long limit, const char *kernel)
{
	const char *name = cases[MLOCK_AFTER_PERF_COUNTS_PINNED_VM];
	long pinned, room;
	int within, over;
	struct totals t;
	void *ring, *mem;
	bool patched;

	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine"))) {
		pass_if(false, name, "VM_KERNEL is '%s': patched or pristine (scripts/userspace "
			"sets it)", kernel ? kernel : "");
		return;
	}
	patched = !strcmp(kernel, "patched");
	ring = ring_map(fd);
	if (ring == MAP_FAILED || read_totals(getpid(), &t)) {
		pass_if(false, name, "ring buffer mmap or /proc: %s", strerror(errno));
		return;
	}
	pinned = t.vmpin_kb * 1024 / page_size;
	room = limit - pinned;
	if (pinned < 1 || room < 1) {
		pass_if(false, name, "VmPin %ld kB under RLIMIT_MEMLOCK of %ld pages: the row "
			"needs perf to charge some pages, and fewer than the limit", t.vmpin_kb,
			limit);
		munmap(ring, RING_PAGES * page_size);
		return;
	}
	mem = mmap(NULL, (room + 1) * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED) {
		pass_if(false, name, "mmap of %ld pages: %s", room + 1, strerror(errno));
		munmap(ring, RING_PAGES * page_size);
		return;
	}
	within = mlock_err(mem, room);
	over = mlock_err(mem, room + 1);
	munmap(mem, (room + 1) * page_size);
	munmap(ring, RING_PAGES * page_size);
	pass_if(!within && over == (patched ? ENOMEM : 0), name,
		"%s kernel, VmPin %ld pages of RLIMIT_MEMLOCK %ld: mlock of %ld pages: %s, "
		"of %ld: %s (expected %s)", kernel, pinned, limit, room,
		within ? strerror(within) : "locked", room + 1,
		over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
}

int main(void)
{
	long mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), allowance, beyond, limit, hidden;
	bool converted, exceeded, refused;
	struct totals t;
	char seen[200];
	int fd, status = -1;
	void *ring, *locked;
	pid_t pid;

	/* Each line reaches init at once, and survives a crash or a kill. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	limit = memlock_limit_pages();
	allowance = mlock_kb * 1024 / page_size * cpus;
	beyond = allowance < RING_PAGES ? RING_PAGES - allowance : 0;
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	ksft_print_msg("%s, RLIMIT_MEMLOCK %ld pages, perf_event_mlock_kb %ld, %ld CPUs: "
		       "perf_mlock allowance %ld pages, ring buffer %d pages\n",
		       geteuid() ? "unprivileged" : "root", limit, mlock_kb, cpus, allowance,
		       RING_PAGES);

	fd = perf_open();
	ring = fd < 0 ? MAP_FAILED : ring_map(fd);
	if (ring == MAP_FAILED) {
		pass_if(false, cases[RING_BUFFER_MAPS],
			"perf_event_open or mmap: %s (paranoid %ld)",
			strerror(errno), read_long("/proc/sys/kernel/perf_event_paranoid"));
		return KSFT_FAIL;
	}
	pass_if(true, cases[RING_BUFFER_MAPS], "%d pages at %p", RING_PAGES, ring);
	converted = vma_pinned(getpid(), ring) == 1;
	if (read_totals(getpid(), &t)) {
		pass_if(false, cases[VMPIN_BEYOND_PERF_EVENT_MLOCK_KB], "/proc: %s",
			strerror(errno));
		return KSFT_FAIL;
	}

	if (converted)
		skip(cases[VMPIN_BEYOND_PERF_EVENT_MLOCK_KB],
		     "perf pins with mm_mpin(): the pristine rule no longer applies");
	else
		pass_if(t.vmpin_kb == kb(beyond), cases[VMPIN_BEYOND_PERF_EVENT_MLOCK_KB],
			"VmPin %ld kB, expected %ld kB (ring buffer beyond the allowance)",
			t.vmpin_kb, kb(beyond));

	snprintf(seen, sizeof(seen), "VmPin %ld kB, ring buffer %ld kB, vma %s",
		 t.vmpin_kb, kb(RING_PAGES), converted ? "pn" : "not pn");
	converted_expectation(converted, t.vmpin_kb == kb(RING_PAGES) &&
			      t.pn_kb == kb(RING_PAGES), cases[VMPIN_IS_THE_RING_BUFFER], seen);

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(read_totals(getpid(), &t) || t.vmpin_kb || t.pn_kb ||
		      vma_pinned(getpid(), ring) != -1);
	if (pid > 0)
		waitpid(pid, &status, 0);
	if (pid < 0)
		pass_if(false, cases[FORK_CHILD_HAS_NO_PIN], "fork: %s", strerror(errno));
	else
		pass_if(WIFEXITED(status) && !WEXITSTATUS(status), cases[FORK_CHILD_HAS_NO_PIN],
			"the child has VmPin 0 and no ring buffer (VM_DONTCOPY)");

	munmap(ring, RING_PAGES * page_size);
	pass_if(!read_totals(getpid(), &t) && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[MUNMAP_RETURNS_THE_CHARGE], "VmPin %ld kB after munmap", t.vmpin_kb);

	if (limit < 0) {
		skip(cases[MLOCK_AFTER_PERF_COUNTS_PINNED_VM],
		     "root has CAP_IPC_LOCK: no limit to share (see the unprivileged run)");
		skip(cases[MLOCK_AND_PERF_SHARE_THE_LIMIT],
		     "root has CAP_IPC_LOCK: no limit to share (see the unprivileged run)");
		close(fd);
		return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
	}
	mlock_after_perf(fd, limit, getenv("VM_KERNEL"));

	/* Lock all the limit but 8 pages, then map the ring buffer. */
	locked = mmap(NULL, (limit - 8) * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (locked == MAP_FAILED || mlock(locked, (limit - 8) * page_size)) {
		pass_if(false, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "mlock of %ld pages: %s",
			limit - 8, strerror(errno));
		return KSFT_FAIL;
	}
	ring = ring_map(fd);
	/* Refused for the limit (EPERM, as perf_mmap() says it), or mapped. */
	refused = ring == MAP_FAILED && errno == EPERM;
	snprintf(seen, sizeof(seen), "%s", ring == MAP_FAILED ? strerror(errno) : "succeeded");
	if (read_totals(getpid(), &t)) {
		pass_if(false, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "/proc: %s", strerror(errno));
		return KSFT_FAIL;
	}
	/* What perf charged to perf_mlock, outside VmLck and VmPin, counts too. */
	hidden = ring == MAP_FAILED || converted ? 0 : RING_PAGES - beyond;
	exceeded = ring != MAP_FAILED && t.vmlck_kb + t.vmpin_kb + kb(hidden) > kb(limit);
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
		 " (ring buffer mmap after %ld pages locked); VmLck %ld kB + VmPin %ld kB, "
		 "%ld kB in perf_mlock; RLIMIT_MEMLOCK %ld kB", limit - 8, t.vmlck_kb,
		 t.vmpin_kb, kb(hidden), kb(limit));
	if (ring == MAP_FAILED && !refused)
		pass_if(false, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "%s: not the limit's EPERM",
			seen);
	else
		converted_expectation(converted, !exceeded, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT],
				      seen);
	close(fd);
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
