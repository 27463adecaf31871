// SPDX-License-Identifier: GPL-2.0
/*
 * The perf ring buffer: the first long-term pinner a process reaches
 * without hardware (a software event, exclude_kernel, 1 + 16 pages).
 *
 * Each kernel is held to what it must do; which kernel this is comes from
 * VM_KERNEL (patched or pristine), which scripts/userspace puts on the
 * kernel command line for init's environment.
 *
 * The pristine tree (kernel/events/core.c, perf_mmap()) charges the ring
 * buffer to the user's perf_mlock up to perf_event_mlock_kb per CPU, and
 * only what exceeds that to mm->pinned_vm (VmPin), checked against
 * RLIMIT_MEMLOCK without the process's locked_vm; smaps shows nothing.  So
 * mlock and perf together exceed RLIMIT_MEMLOCK: the pristine rows measure
 * by how much.
 *
 * The series pins the whole buffer with mm_mpin_vma(): VmPin is the ring
 * buffer and smaps shows its vma "pn"; mremap moves the pin, munmap
 * returns the charge, the child of fork and the image exec starts have
 * none; mlock counts the buffer; and the part of the buffer beyond the
 * perf_event_mlock_kb allowance must fit in RLIMIT_MEMLOCK with the locked
 * pages, so locked and pinned pages stay within the limit plus the
 * allowance.
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

#define DATA_PAGES	16
#define RING_PAGES	(1 + DATA_PAGES)

/* The cases, in the order they are reported. */
enum {
	RING_BUFFER_MAPS,
	VMPIN_IS_THE_RING_BUFFER,
	FORK_CHILD_HAS_NO_PIN,
	EXEC_STARTS_WITH_NO_PIN,
	MREMAP_MOVES_THE_PIN,
	MUNMAP_RETURNS_THE_CHARGE,
	MLOCK_AFTER_PERF_COUNTS_PINNED_VM,
	MLOCK_AND_PERF_SHARE_THE_LIMIT,
	BEYOND_THE_ALLOWANCE_WITH_EARLIER_BUFFERS,
};

static const char *const cases[] = {
	[RING_BUFFER_MAPS] = "ring_buffer_maps",
	[VMPIN_IS_THE_RING_BUFFER] = "vmpin_is_the_ring_buffer",
	[FORK_CHILD_HAS_NO_PIN] = "fork_child_has_no_pin",
	[EXEC_STARTS_WITH_NO_PIN] = "exec_starts_with_no_pin",
	[MREMAP_MOVES_THE_PIN] = "mremap_moves_the_pin",
	[MUNMAP_RETURNS_THE_CHARGE] = "munmap_returns_the_charge",
	[MLOCK_AFTER_PERF_COUNTS_PINNED_VM] = "mlock_after_perf_counts_pinned_vm",
	[MLOCK_AND_PERF_SHARE_THE_LIMIT] = "mlock_and_perf_share_the_limit",
	[BEYOND_THE_ALLOWANCE_WITH_EARLIER_BUFFERS] = "beyond_the_allowance_with_earlier_buffers",
};

/* "ok N name # SKIP why": 6.1's ksft_test_result_skip() prints no name. */
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

static void *ring_map(int fd)
{
	return mmap(NULL, RING_PAGES * page_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
}

/*
 * The ring buffer first, then mlock up to the limit: with the series,
 * what perf charged to pinned_vm leaves that much less for mlock (room
 * pages lock, room + 1 do not); the pristine kernel lets mlock take the
 * whole limit beside it.
 */
static void mlock_after_perf(int fd, long limit, bool patched)
{
	const char *name = cases[MLOCK_AFTER_PERF_COUNTS_PINNED_VM];
	long pinned, room;
	int within, over;
	struct totals t;
	void *ring, *mem;

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
		"of %ld: %s (expected %s)", patched ? "patched" : "pristine", pinned, limit, room,
		within ? strerror(within) : "locked", room + 1,
		over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
}

#define SMALL_PAGES	5	/* 1 + 4 */

/*
 * Lock @locked pages, then map three buffers of SMALL_PAGES: the first
 * within the allowance, the second across its end, the third all beyond
 * it.  Return the errno of the third mmap (0: mapped); -1 if the setup
 * failed.  Everything is unmapped and unlocked again.
 */
static int third_buffer(long locked)
{
	int fd[3], i, err = -1;
	void *mem, *ring[3] = { MAP_FAILED, MAP_FAILED, MAP_FAILED };

	mem = mmap(NULL, locked * page_size, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -1;
	if (mlock(mem, locked * page_size))
		goto out;
	for (i = 0; i < 3; i++) {
		fd[i] = perf_open();
		if (fd[i] < 0)
			break;
		ring[i] = mmap(NULL, SMALL_PAGES * page_size, PROT_READ | PROT_WRITE,
			       MAP_SHARED, fd[i], 0);
		if (ring[i] == MAP_FAILED) {
			err = i == 2 ? errno : -1;
			close(fd[i]);
			break;
		}
	}
	if (i == 3)
		err = 0;
	while (i--) {
		munmap(ring[i], SMALL_PAGES * page_size);
		close(fd[i]);
	}
out:
	munmap(mem, locked * page_size);
	return err;
}

/*
 * The pages beyond the allowance are checked with the locked and pinned
 * pages, less the allowance the user holds: buffers mapped earlier within
 * the allowance do not count against them (as on the pristine kernel,
 * which counts neither they nor the locked pages).  With the patched
 * kernel the third buffer maps with exactly the room it needs and is
 * refused with one page less; the pristine kernel maps it both times.
 */
static void beyond_the_allowance(long limit, long allowance, bool patched)
{
	const char *name = cases[BEYOND_THE_ALLOWANCE_WITH_EARLIER_BUFFERS];
	long room, fits;
	int at, over;

	if (allowance < SMALL_PAGES || allowance >= 2 * SMALL_PAGES) {
		pass_if(false, name, "the allowance is %ld pages: the row needs %d to %d "
			"(the plan's perf_event_mlock_kb)", allowance, SMALL_PAGES,
			2 * SMALL_PAGES - 1);
		return;
	}
	/* at the third: locked + 2 buffers - allowance + a buffer <= limit */
	room = limit - 3 * SMALL_PAGES + allowance;
	at = third_buffer(room);
	over = third_buffer(room + 1);
	fits = patched ? over == EPERM : over == 0;
	pass_if(at == 0 && fits, name, "%s kernel, allowance %ld pages, buffers of %d: "
		"%ld pages locked, the third buffer %s; %ld locked: %s (expected %s)",
		patched ? "patched" : "pristine", allowance, SMALL_PAGES, room,
		at == 0 ? "mapped" : at < 0 ? "setup failed" : strerror(at), room + 1,
		over == 0 ? "mapped" : over < 0 ? "setup failed" : strerror(over),
		patched ? "mapped, then EPERM" : "mapped twice");
}

/* In the image exec started: no ring buffer and no pin. */
static int after_exec(void)
{
	struct totals t;

	return read_totals(getpid(), &t) || t.vmpin_kb || t.pn_kb;
}

/*
 * A child maps a ring buffer of its own and execs this program again: the
 * new image starts with VmPin 0 (the old mm's pin goes with it).
 */
static void exec_starts_with_no_pin(const char *self)
{
	const char *name = cases[EXEC_STARTS_WITH_NO_PIN];
	int status = -1;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		int fd = perf_open();

		if (fd < 0 || ring_map(fd) == MAP_FAILED)
			_exit(2);
		execl(self, self, "--after-exec", (char *)NULL);
		_exit(3);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	pass_if(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status), name,
		"the child mapped a ring buffer and exec'd: %s",
		pid < 0 ? strerror(errno) : !WIFEXITED(status) ? "killed" :
		WEXITSTATUS(status) == 0 ? "VmPin 0 in the new image" :
		WEXITSTATUS(status) == 1 ? "a pin in the new image" :
		WEXITSTATUS(status) == 2 ? "no ring buffer to map" : "exec failed");
}

/*
 * mremap moves the ring buffer: the charge stays the same and, on the
 * patched kernel, the pin moves with it ("pn" at the new place).
 */
static void *mremap_moves_the_pin(void *ring, bool patched)
{
	const char *name = cases[MREMAP_MOVES_THE_PIN];
	size_t len = RING_PAGES * page_size;
	struct totals before, after;
	void *dest, *moved;
	int pinned, old;

	dest = mmap(NULL, len, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (dest == MAP_FAILED || read_totals(getpid(), &before)) {
		pass_if(false, name, "mmap or /proc: %s", strerror(errno));
		return ring;
	}
	moved = mremap(ring, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dest);
	if (moved == MAP_FAILED || read_totals(getpid(), &after)) {
		pass_if(false, name, "mremap or /proc: %s", strerror(errno));
		munmap(dest, len);
		return ring;
	}
	pinned = vma_pinned(getpid(), moved);
	old = vma_pinned(getpid(), ring);
	pass_if(after.vmpin_kb == before.vmpin_kb && pinned == patched && old == -1, name,
		"VmPin %ld kB before, %ld kB after; the new place is %s, the old %s "
		"(expected %s)", before.vmpin_kb, after.vmpin_kb, pinned == 1 ? "pn" : "not pn",
		old == -1 ? "unmapped" : "still mapped", patched ? "pn" : "not pn");
	return moved;
}

int main(int argc, char **argv)
{
	long mlock_kb = read_long("/proc/sys/kernel/perf_event_mlock_kb");
	long cpus = sysconf(_SC_NPROCESSORS_ONLN), allowance, beyond, limit, hidden, bound;
	const char *kernel = getenv("VM_KERNEL");
	bool patched, exceeded, refused, holds;
	struct totals t;
	char seen[256];
	int fd, status = -1;
	void *ring, *locked;
	pid_t pid;

	if (argc > 1 && !strcmp(argv[1], "--after-exec"))
		return after_exec();
	/* Each line reaches init at once, and survives a crash or a kill. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	limit = memlock_limit_pages();
	allowance = mlock_kb * 1024 / page_size * cpus;
	beyond = allowance < RING_PAGES ? RING_PAGES - allowance : 0;
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	ksft_print_msg("%s kernel, %s, RLIMIT_MEMLOCK %ld pages, perf_event_mlock_kb %ld, "
		       "%ld CPUs: perf_mlock allowance %ld pages, ring buffer %d pages\n",
		       kernel ? kernel : "unknown", geteuid() ? "unprivileged" : "root", limit,
		       mlock_kb, cpus, allowance, RING_PAGES);
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine")))
		ksft_exit_fail_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
				   "sets it)\n", kernel ? kernel : "");
	patched = !strcmp(kernel, "patched");

	fd = perf_open();
	ring = fd < 0 ? MAP_FAILED : ring_map(fd);
	if (ring == MAP_FAILED) {
		pass_if(false, cases[RING_BUFFER_MAPS],
			"perf_event_open or mmap: %s (paranoid %ld)",
			strerror(errno), read_long("/proc/sys/kernel/perf_event_paranoid"));
		return KSFT_FAIL;
	}
	pass_if(true, cases[RING_BUFFER_MAPS], "%d pages at %p", RING_PAGES, ring);
	if (read_totals(getpid(), &t)) {
		pass_if(false, cases[VMPIN_IS_THE_RING_BUFFER], "/proc: %s", strerror(errno));
		return KSFT_FAIL;
	}

	/* Patched: the whole buffer, "pn".  Pristine: what is beyond the allowance. */
	pass_if(patched ? t.vmpin_kb == kb(RING_PAGES) && t.pn_kb == kb(RING_PAGES) &&
		vma_pinned(getpid(), ring) == 1 :
		t.vmpin_kb == kb(beyond) && t.pn_kb == 0,
		cases[VMPIN_IS_THE_RING_BUFFER], "%s kernel: VmPin %ld kB, pn %ld kB, expected "
		"%ld kB and %ld kB (ring buffer %ld kB, %ld kB of it beyond the allowance)",
		kernel, t.vmpin_kb, t.pn_kb, kb(patched ? RING_PAGES : beyond),
		patched ? kb(RING_PAGES) : 0, kb(RING_PAGES), kb(beyond));

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

	exec_starts_with_no_pin("/proc/self/exe");
	ring = mremap_moves_the_pin(ring, patched);

	munmap(ring, RING_PAGES * page_size);
	status = read_totals(getpid(), &t);
	pass_if(!status && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[MUNMAP_RETURNS_THE_CHARGE], "VmPin %ld kB after munmap", t.vmpin_kb);

	if (limit < 0) {
		skip(cases[MLOCK_AFTER_PERF_COUNTS_PINNED_VM],
		     "root has CAP_IPC_LOCK: no limit to share (see the unprivileged run)");
		skip(cases[MLOCK_AND_PERF_SHARE_THE_LIMIT],
		     "root has CAP_IPC_LOCK: no limit to share (see the unprivileged run)");
		skip(cases[BEYOND_THE_ALLOWANCE_WITH_EARLIER_BUFFERS],
		     "root has CAP_IPC_LOCK: no limit to share (see the unprivileged run)");
		close(fd);
		return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
	}
	mlock_after_perf(fd, limit, patched);

	/*
	 * Lock all the limit but 8 pages, then map the ring buffer.  Patched:
	 * refused for the limit (EPERM, as perf_mmap() says it), or mapped
	 * with locked and pinned pages within the limit plus the allowance.
	 * Pristine: mapped, past the limit, by as much as this prints.
	 */
	locked = mmap(NULL, (limit - 8) * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (locked == MAP_FAILED || mlock(locked, (limit - 8) * page_size)) {
		pass_if(false, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "mlock of %ld pages: %s",
			limit - 8, strerror(errno));
		return KSFT_FAIL;
	}
	ring = ring_map(fd);
	refused = ring == MAP_FAILED && errno == EPERM;
	snprintf(seen, sizeof(seen), "%s", ring == MAP_FAILED ? strerror(errno) : "mapped");
	if (read_totals(getpid(), &t)) {
		pass_if(false, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "/proc: %s", strerror(errno));
		return KSFT_FAIL;
	}
	/* What the pristine kernel charged to perf_mlock, outside VmLck and VmPin. */
	hidden = ring == MAP_FAILED || patched ? 0 : RING_PAGES - beyond;
	bound = kb(limit) + (patched ? kb(allowance) : 0);
	exceeded = ring != MAP_FAILED && t.vmlck_kb + t.vmpin_kb + kb(hidden) > kb(limit);
	holds = patched ? refused || (ring != MAP_FAILED &&
				      t.vmlck_kb + t.vmpin_kb <= bound) : exceeded;
	snprintf(seen + strlen(seen), sizeof(seen) - strlen(seen),
		 " (ring buffer mmap after %ld pages locked); VmLck %ld kB + VmPin %ld kB + "
		 "%ld kB in perf_mlock = %ld kB, %+ld kB against RLIMIT_MEMLOCK %ld kB (%s kernel: "
		 "expected %s)", limit - 8, t.vmlck_kb, t.vmpin_kb, kb(hidden),
		 t.vmlck_kb + t.vmpin_kb + kb(hidden),
		 t.vmlck_kb + t.vmpin_kb + kb(hidden) - kb(limit), kb(limit), kernel,
		 patched ? "refused, or within the limit plus the allowance" : "past the limit");
	pass_if(holds, cases[MLOCK_AND_PERF_SHARE_THE_LIMIT], "%s", seen);
	if (ring != MAP_FAILED)
		munmap(ring, RING_PAGES * page_size);
	munmap(locked, (limit - 8) * page_size);
	beyond_the_allowance(limit, allowance, patched);
	close(fd);
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
