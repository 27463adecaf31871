// SPDX-License-Identifier: GPL-2.0
/*
 * VmLck, VmPin and the smaps VmFlags as a process sees them, one row a case.
 *
 * Each row runs a script of operations on the arena (vm_accounting.h) in a
 * process of its own, then checks:
 * - every operation but the last succeeded, and the last one returned the
 *   row's errno (as root, or unprivileged under RLIMIT_MEMLOCK of 8 pages);
 * - the arena reads as the row's letters in smaps ('-' unmapped, '.' mapped,
 *   'L' locked) and, where the row gives one, has that many vmas;
 * - VmLck is the size of the locked vmas of smaps and VmPin of the pinned
 *   ones (none: no system call pins); unless the row locked the whole
 *   process, VmLck is the row's 'L' count in pages;
 * - after munlockall() and unmapping the arena, VmLck and VmPin are 0.
 *
 * Run as root, or as an unprivileged user with RLIMIT_MEMLOCK of 8 pages:
 * rows that differ under the limit give both results.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "kselftest.h"
#include "vm_accounting.h"

#define LIMIT_PAGES	8

struct row {
	const char *name;
	const char *script;	/* ops separated by ';' */
	int err;		/* errno of the last op, as root */
	const char *after;	/* the arena after, as root */
	/*
	 * vmas in the arena, or 0: not checked, where the kernel does not
	 * promise it (split vmas that may not merge back after munlock or
	 * mprotect, or an arena with nothing mapped)
	 */
	int vmas;
	int user_err;		/* under LIMIT_PAGES, unprivileged ... */
	const char *user_after;	/* ... or NULL: as root */
};

static const struct row cases[] = {
	/* name			script				err	after (root) */
	{ "mlock",		"map 0 8; lock 2 4",		0,	"..LLLL..", 3 },
	{ "mlock2_onfault",	"map 0 8; lockonfault 2 4",	0,	"..LLLL..", 3 },
	{ "onfault_then_touch",	"map 0 8; lockonfault 0 8; touch 0 8", 0, "LLLLLLLL", 1 },
	{ "mlock_overlapping",	"map 0 8; lock 0 4; lock 2 4",	0,	"LLLLLL..", 2 },
	{ "mlock_twice",	"map 0 8; lock 0 8; lock 0 8",	0,	"LLLLLLLL", 1 },
	{ "mlock_across_hole",	"map 0 4; map 6 2; lock 0 8",	ENOMEM,	"LLLL--..", 0 },
	{ "mlock_unmapped",	"map 4 4; lock 0 4",		ENOMEM,	"----....", 1 },
	{ "munlock_middle",	"map 0 8; lock 0 8; unlock 3 2", 0,	"LLL..LLL", 3 },
	{ "munlock_all",	"map 0 8; lock 0 8; unlock 0 8", 0,	"........", 1 },
	{ "munlock_unlocked",	"map 0 8; unlock 0 8",		0,	"........", 1 },
	{ "munmap_locked_middle", "map 0 8; lock 0 8; unmap 2 2", 0,	"LL--LLLL", 2 },
	{ "munmap_locked_all",	"map 0 8; lock 0 8; unmap 0 8",	0,	"--------", 0 },
	{ "munmap_part_locked",	"map 0 8; lock 2 4; unmap 0 4",	0,	"----LL..", 2 },
	{ "mprotect_split_locked", "map 0 8; lock 0 8; protect 2 2 r", 0, "LLLLLLLL", 3 },
	{ "mprotect_then_munlock", "map 0 8; lock 0 8; protect 2 2 r; unlock 0 8",
	  0, "........", 0 },
	{ "mremap_move_locked",	"map 0 4; lock 0 4; mremap 0 4 4 8", 0, "--------LLLL", 1 },
	{ "mremap_move_part",	"map 0 8; lock 0 8; mremap 2 2 2 10", 0, "LL--LLLL--LL", 3 },
	{ "mremap_shrink_locked", "map 0 8; lock 0 8; mremap 0 8 3", 0,	"LLL-----", 1 },
	{ "mremap_grow_locked",	"map 0 4; lock 0 4; mremap 0 4 6", 0,	"LLLLLL", 1 },
	{ "mremap_grow_over_limit", "map 0 8; lock 0 8; mremap 0 8 10", 0, "LLLLLLLLLL", 1,
	  EAGAIN, "LLLLLLLL" },
	{ "mlock_over_limit",	"map 0 12; lock 0 12",		0,	"LLLLLLLLLLLL", 1,
	  ENOMEM, "............" },
	{ "mlock_overlap_over_limit", "map 0 16; lock 0 6; lock 4 6", 0, "LLLLLLLLLL......", 2,
	  ENOMEM, "LLLLLL.........." },
	{ "mlock_at_limit",	"map 0 12; lock 0 4; lock 2 6",	0,	"LLLLLLLL....", 2 },
	{ "onfault_over_limit",	"map 0 12; lockonfault 0 12",	0,	"LLLLLLLLLLLL", 1,
	  ENOMEM, "............" },
	{ "mlockall_current",	"map 0 8; mlockall current",	0,	"LLLLLLLL", 1,
	  ENOMEM, "........" },
	{ "mlockall_future",	"mlockall future; map 0 4",	0,	"LLLL", 1 },
	{ "mlockall_future_over_limit", "mlockall future; map 0 12", 0, "LLLLLLLLLLLL", 1,
	  EAGAIN, "------------" },
	{ "mlockall_future_onfault", "mlockall future onfault; map 0 4", 0, "LLLL", 1 },
	{ "munlockall",		"map 0 8; lock 2 4; munlockall", 0,	"........", 0 },
	{ "munlockall_ends_future", "mlockall future; munlockall; map 0 4", 0, "....", 1 },
	{ "fork_locked",	"map 0 8; lock 0 8; fork",	0,	"LLLLLLLL", 1 },
	{ "fork_mlockall_future", "mlockall future; map 0 4; fork", 0,	"LLLL", 1 },
};

/* Run a row's script in this process; 0 if every check held. */
static int check_row(const struct row *r, bool limited)
{
	const char *want = limited && r->user_after ? r->user_after : r->after;
	int want_err = limited && r->user_after ? r->user_err : r->err;
	char script[256], *s, *save, got[ARENA_PAGES + 1], expect[ARENA_PAGES + 1];
	int i, err = 0, vmas, step = 0, bad = 0;
	bool whole_process = strstr(r->script, "mlockall current");
	long locked = 0;
	struct totals t;
	char why[160];
	struct op op;

	snprintf(script, sizeof(script), "%s", r->script);
	for (s = strtok_r(script, ";", &save); s; s = strtok_r(NULL, ";", &save)) {
		if (!op_parse(s, &op)) {
			ksft_print_msg("%s: bad op '%s'\n", r->name, s);
			return 1;
		}
		if (err) {	/* an op before the last one failed */
			ksft_print_msg("%s: op %d failed: %s\n", r->name, step, strerror(err));
			return 1;
		}
		err = op_run(&op);
		step++;
	}
	if (err != want_err) {
		ksft_print_msg("%s: last op returned '%s', expected '%s'\n", r->name,
			       strerror(err), strerror(want_err));
		bad++;
	}
	memset(expect, '-', ARENA_PAGES);
	memcpy(expect, want, strlen(want));
	expect[ARENA_PAGES] = '\0';
	vmas = arena_letters(getpid(), got);
	if (strcmp(got, expect)) {
		ksft_print_msg("%s: arena is %s, expected %s\n", r->name, got, expect);
		bad++;
	}
	if (r->vmas && vmas != r->vmas && !(limited && r->user_after)) {
		ksft_print_msg("%s: %d vmas in the arena, expected %d\n", r->name, vmas, r->vmas);
		bad++;
	}
	for (i = 0; i < ARENA_PAGES; i++)
		locked += expect[i] == 'L';
	if (read_totals(getpid(), &t) || !totals_consistent(&t, why, sizeof(why))) {
		ksft_print_msg("%s: counters disagree with smaps: %s\n", r->name, why);
		bad++;
	} else if (!whole_process && t.vmlck_kb != locked * page_size / 1024) {
		ksft_print_msg("%s: VmLck %ld kB, expected %ld kB\n", r->name, t.vmlck_kb,
			       locked * page_size / 1024);
		bad++;
	} else if (t.vmpin_kb) {
		ksft_print_msg("%s: VmPin %ld kB, expected 0\n", r->name, t.vmpin_kb);
		bad++;
	}
	arena_reset();
	if (read_totals(getpid(), &t) || t.vmlck_kb || t.vmpin_kb || t.lo_kb) {
		ksft_print_msg("%s: after munlockall and munmap: VmLck %ld kB, VmPin %ld kB\n",
			       r->name, t.vmlck_kb, t.vmpin_kb);
		bad++;
	}
	return bad ? 1 : 0;
}

int main(void)
{
	size_t i, n = ARRAY_SIZE(cases);
	long limit;
	int status;
	pid_t pid;

	/* Each line reaches init at once, from a row's child (_exit()) too. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	arena_init();
	limit = memlock_limit_pages();
	ksft_print_header();
	ksft_set_plan(n);
	ksft_print_msg("%s, RLIMIT_MEMLOCK %ld pages, page size %ld\n",
		       geteuid() ? "unprivileged" : "root", limit, page_size);
	if (limit >= 0 && limit != LIMIT_PAGES) {
		ksft_print_msg("unprivileged runs need RLIMIT_MEMLOCK of %d pages: %s\n",
			       LIMIT_PAGES, "the rows assume it");
		return KSFT_FAIL;
	}
	for (i = 0; i < n; i++) {
		fflush(stdout);
		pid = fork();
		if (!pid)
			_exit(check_row(&cases[i], limit >= 0));
		status = -1;
		waitpid(pid, &status, 0);
		ksft_test_result(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
				 "%s\n", cases[i].name);
	}
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
