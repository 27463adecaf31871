/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a process sees of its locked and pinned memory, and the operations
 * that change it, shared by the uapi tests:
 *
 * - KTAP output (KTAP version 1; the runner in initramfs/ names the suite);
 * - VmLck and VmPin of /proc/self/status, and the vmas of /proc/PID/smaps
 *   with their size, Rss and VmFlags ("lo" locked, "pn" pinned);
 * - an arena: ARENA_PAGES pages of address space at a fixed place, where
 *   scripts like "map 0 8; lock 2 4; protect 3 1 r" run, one operation a
 *   step, and where each page reads as a letter: '-' unmapped, '.' mapped,
 *   'L' locked (VmFlags lo), 'P' pinned (pn), 'B' both.
 */
#ifndef VM_ACCOUNTING_H
#define VM_ACCOUNTING_H

#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT	0x01
#endif
#ifndef MCL_ONFAULT
#define MCL_ONFAULT	4
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define ARENA_PAGES	32
#define MAX_VMAS	256

/* KTAP */

static int ktap_failed;

static inline void ktap_plan(int n)
{
	printf("KTAP version 1\n1..%d\n", n);
	fflush(stdout);
}

static inline void ktap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* One result line; directive is NULL or e.g. "SKIP why". */
static inline void ktap_result(int n, bool ok, const char *name, const char *directive)
{
	printf("%s %d %s%s%s\n", ok ? "ok" : "not ok", n, name,
	       directive ? " # " : "", directive ? directive : "");
	fflush(stdout);
	if (!ok)
		ktap_failed++;
}

/* /proc */

/* The value in kB of a "Name:   N kB" line of /proc/PID/status, or -1. */
static inline long status_kb(pid_t pid, const char *field)
{
	char path[64], line[256];
	size_t len = strlen(field);
	long kb = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (kb < 0 && fgets(line, sizeof(line), f))
		if (!strncmp(line, field, len) && line[len] == ':')
			kb = strtol(line + len + 1, NULL, 10);
	fclose(f);
	return kb;
}

struct vma {
	unsigned long start, end;
	long rss_kb;
	bool locked;		/* VmFlags lo */
	bool pinned;		/* VmFlags pn */
};

static inline bool has_flag(const char *flags, const char *flag)
{
	const char *p;

	for (p = strstr(flags, flag); p; p = strstr(p + 1, flag))
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\n'))
			return true;
	return false;
}

/* The vmas of /proc/PID/smaps, in address order; -1 if unreadable. */
static inline int read_smaps(pid_t pid, struct vma *v, int max)
{
	char path[64], line[1024];
	unsigned long s, e;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    n < max) {
			v[n].start = s;
			v[n].end = e;
			v[n].rss_kb = 0;
			v[n].locked = false;
			v[n].pinned = false;
			n++;
		} else if (n && !strncmp(line, "Rss:", 4)) {
			v[n - 1].rss_kb = strtol(line + 4, NULL, 10);
		} else if (n && !strncmp(line, "VmFlags:", 8)) {
			v[n - 1].locked = has_flag(line + 8, "lo");
			v[n - 1].pinned = has_flag(line + 8, "pn");
		}
	}
	fclose(f);
	return n;
}

struct totals {
	long vmlck_kb, vmpin_kb, vmsize_kb;	/* /proc/PID/status */
	long lo_kb, pn_kb;		/* sizes of the lo and pn vmas of smaps */
};

/* What the vmas v[0..n) say VmLck and VmPin must be. */
static inline void totals_of(const struct vma *v, int n, struct totals *t)
{
	int i;

	t->lo_kb = 0;
	t->pn_kb = 0;
	for (i = 0; i < n; i++) {
		if (v[i].locked && !v[i].pinned)
			t->lo_kb += (v[i].end - v[i].start) >> 10;
		if (v[i].pinned)
			t->pn_kb += (v[i].end - v[i].start) >> 10;
	}
}

/* VmLck, VmPin and VmSize of /proc/PID/status into t; -1 if unreadable. */
static inline int read_status(pid_t pid, struct totals *t)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	t->vmlck_kb = -1;
	t->vmpin_kb = -1;
	t->vmsize_kb = -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmLck:", 6))
			t->vmlck_kb = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmPin:", 6))
			t->vmpin_kb = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmSize:", 7))
			t->vmsize_kb = strtol(line + 7, NULL, 10);
	}
	fclose(f);
	return t->vmlck_kb < 0 || t->vmpin_kb < 0 ? -1 : 0;
}

/* VmLck and VmPin, and what the vmas of smaps say they must be. */
static inline int read_totals(pid_t pid, struct totals *t)
{
	static struct vma v[MAX_VMAS];
	int n = read_smaps(pid, v, MAX_VMAS);

	if (n < 0)
		return -1;
	totals_of(v, n, t);
	return read_status(pid, t);
}

/*
 * The counters agree with the vmas: VmLck is the size of the locked vmas
 * that are not pinned, VmPin at least the size of the pinned ones (a pin
 * keeps its charge after an munmap).  On failure, says why in buf.
 */
static inline bool totals_consistent(const struct totals *t, char *buf, size_t len)
{
	if (t->vmlck_kb == t->lo_kb && t->vmpin_kb >= t->pn_kb)
		return true;
	snprintf(buf, len, "VmLck %ld kB, VmPin %ld kB; smaps: lo %ld kB, pn %ld kB",
		 t->vmlck_kb, t->vmpin_kb, t->lo_kb, t->pn_kb);
	return false;
}

/* The arena */

static long page_size;
static char *arena;

/* Reserve ARENA_PAGES of address space, then give it back: ours to map. */
static inline void arena_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, (ARENA_PAGES + 2) * page_size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	munmap(arena, (ARENA_PAGES + 2) * page_size);
	arena += page_size;	/* a guard page either side stays unmapped */
}

/* The arena as letters, from the vmas v[0..n); the number of vmas in it. */
static inline int arena_letters_of(const struct vma *v, int n, char *out)
{
	unsigned long a0 = (unsigned long)arena;
	unsigned long a1 = a0 + ARENA_PAGES * page_size;
	int i, p, vmas = 0;

	memset(out, '-', ARENA_PAGES);
	out[ARENA_PAGES] = '\0';
	for (i = 0; i < n; i++) {
		if (v[i].end <= a0 || v[i].start >= a1)
			continue;
		vmas++;
		for (p = 0; p < ARENA_PAGES; p++) {
			unsigned long addr = a0 + p * page_size;

			if (addr < v[i].start || addr >= v[i].end)
				continue;
			out[p] = v[i].pinned ? (v[i].locked ? 'B' : 'P') :
				 v[i].locked ? 'L' : '.';
		}
	}
	return vmas;
}

/* The arena as letters, from smaps; the number of vmas in it, or -1. */
static inline int arena_letters(pid_t pid, char *out)
{
	static struct vma v[MAX_VMAS];
	int n = read_smaps(pid, v, MAX_VMAS);

	if (n < 0)
		return -1;
	return arena_letters_of(v, n, out);
}

/* Operations */

enum op_kind {
	OP_MAP, OP_UNMAP, OP_LOCK, OP_LOCK_ONFAULT, OP_UNLOCK, OP_PROTECT,
	OP_MREMAP, OP_MLOCKALL, OP_MUNLOCKALL, OP_FORK, OP_TOUCH,
};

struct op {
	enum op_kind kind;
	int a, n;	/* pages [a, a + n) of the arena */
	int b;		/* mremap: new size; protect: 1 for read-only */
	int to;		/* mremap: new place, or -1 to stay (grow or shrink) */
	int flags;	/* mlockall: MCL_* */
};

static const char *const op_names[] __attribute__((unused)) = {
	[OP_MAP] = "map", [OP_UNMAP] = "unmap", [OP_LOCK] = "lock",
	[OP_LOCK_ONFAULT] = "lockonfault", [OP_UNLOCK] = "unlock",
	[OP_PROTECT] = "protect", [OP_MREMAP] = "mremap",
	[OP_MLOCKALL] = "mlockall", [OP_MUNLOCKALL] = "munlockall",
	[OP_FORK] = "fork", [OP_TOUCH] = "touch",
};

/* The op as the script text that makes it, for messages and replays. */
static inline const char *op_text(const struct op *op)
{
	static char buf[96];

	switch (op->kind) {
	case OP_PROTECT:
		snprintf(buf, sizeof(buf), "protect %d %d %s", op->a, op->n,
			 op->b ? "r" : "rw");
		break;
	case OP_MREMAP:
		if (op->to < 0)
			snprintf(buf, sizeof(buf), "mremap %d %d %d", op->a, op->n, op->b);
		else
			snprintf(buf, sizeof(buf), "mremap %d %d %d %d", op->a, op->n,
				 op->b, op->to);
		break;
	case OP_MLOCKALL:
		snprintf(buf, sizeof(buf), "mlockall%s%s%s",
			 op->flags & MCL_CURRENT ? " current" : "",
			 op->flags & MCL_FUTURE ? " future" : "",
			 op->flags & MCL_ONFAULT ? " onfault" : "");
		break;
	case OP_MUNLOCKALL:
	case OP_FORK:
		snprintf(buf, sizeof(buf), "%s", op_names[op->kind]);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s %d %d", op_names[op->kind], op->a, op->n);
	}
	return buf;
}

/*
 * Parse one "kind args" of a script into op: "map A N", "unmap A N",
 * "lock A N", "lockonfault A N", "unlock A N", "touch A N",
 * "protect A N r|rw", "mremap A N NEWN [TO]", "mlockall [current] [future]
 * [onfault]", "munlockall", "fork".  Returns false on bad input.
 */
static inline bool op_parse(const char *s, struct op *op)
{
	char kind[16], w[3][16];
	int i, k, got;

	memset(op, 0, sizeof(*op));
	op->to = -1;
	got = sscanf(s, " %15s %d %d %d %d", kind, &op->a, &op->n, &op->b, &op->to);
	if (got < 1)
		return false;
	for (k = 0; k <= OP_TOUCH; k++)
		if (!strcmp(kind, op_names[k]))
			break;
	if (k > OP_TOUCH)
		return false;
	op->kind = k;
	switch (op->kind) {
	case OP_MLOCKALL:
		got = sscanf(s, " %*s %15s %15s %15s", w[0], w[1], w[2]);
		for (i = 0; i < got; i++)
			op->flags |= !strcmp(w[i], "current") ? MCL_CURRENT :
				     !strcmp(w[i], "future") ? MCL_FUTURE :
				     !strcmp(w[i], "onfault") ? MCL_ONFAULT : 0;
		return true;
	case OP_MUNLOCKALL:
	case OP_FORK:
		return true;
	case OP_PROTECT:
		if (sscanf(s, " %*s %*d %*d %15s", w[0]) != 1)
			return false;
		op->b = !strcmp(w[0], "r");
		op->to = -1;
		return got >= 3;
	case OP_MREMAP:
		if (got < 4)
			return false;
		if (got == 4)
			op->to = -1;
		return true;
	default:
		return got == 3;
	}
}

/*
 * The child of a fork: memory locks are not inherited, and neither is a pin.
 * Exits 0 when the child sees VmLck 0, VmPin 0 and no lo or pn vma.
 */
static inline int fork_child_check(void)
{
	struct totals t;

	if (read_totals(getpid(), &t))
		return 2;
	return t.vmlck_kb || t.vmpin_kb || t.lo_kb || t.pn_kb ? 1 : 0;
}

/* Run one op; 0 or the errno it failed with (EPROTO: the fork child saw locks). */
static inline int op_run(const struct op *op)
{
	char *p = arena + op->a * page_size;
	size_t len = op->n * page_size;
	int ret = 0, status;
	void *q;
	pid_t pid;

	switch (op->kind) {
	case OP_MAP:
		q = mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (q == MAP_FAILED)
			return errno;
		if (q != p) {	/* a kernel without MAP_FIXED_NOREPLACE */
			munmap(q, len);
			return EEXIST;
		}
		return 0;
	case OP_UNMAP:
		ret = munmap(p, len);
		break;
	case OP_LOCK:
		ret = mlock(p, len);
		break;
	case OP_LOCK_ONFAULT:
		ret = syscall(__NR_mlock2, p, len, MLOCK_ONFAULT);
		break;
	case OP_UNLOCK:
		ret = munlock(p, len);
		break;
	case OP_TOUCH:
		for (q = p; (char *)q < p + len; q = (char *)q + page_size)
			*(volatile char *)q = 1;
		return 0;
	case OP_PROTECT:
		ret = mprotect(p, len, op->b ? PROT_READ : PROT_READ | PROT_WRITE);
		break;
	case OP_MREMAP:
		if (op->to < 0)
			q = mremap(p, len, op->b * page_size, 0);
		else
			q = mremap(p, len, op->b * page_size,
				   MREMAP_MAYMOVE | MREMAP_FIXED,
				   arena + op->to * page_size);
		return q == MAP_FAILED ? errno : 0;
	case OP_MLOCKALL:
		ret = mlockall(op->flags);
		break;
	case OP_MUNLOCKALL:
		ret = munlockall();
		break;
	case OP_FORK:
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return errno;
		if (!pid)
			_exit(fork_child_check());
		if (waitpid(pid, &status, 0) != pid)
			return errno;
		return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : EPROTO;
	}
	return ret ? errno : 0;
}

/* Unmap the arena and drop every lock: VmLck must then be 0. */
static inline void arena_reset(void)
{
	munlockall();
	munmap(arena, ARENA_PAGES * page_size);
}

/* The pages RLIMIT_MEMLOCK allows, or -1 for no limit (or CAP_IPC_LOCK). */
static inline long memlock_limit_pages(void)
{
	struct rlimit r;

	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &r) ||
	    r.rlim_cur == RLIM_INFINITY)
		return -1;
	return r.rlim_cur / page_size;
}

#endif /* VM_ACCOUNTING_H */
