// SPDX-License-Identifier: GPL-2.0
/*
 * PID 1 of the project's initramfs: runs the lines of /plan (see
 * initramfs/plan) and prints their results on the console as one KTAP
 * document, which kunit.py parse reads; then reboots, and QEMU, started with
 * -no-reboot, exits.
 *
 * Each suite of the plan is a subtest of the document.  A "suite" line is a
 * program that prints KTAP itself: its lines are passed through, indented,
 * and init supplies the "# Subtest:" header.  Its exit status is part of
 * its last result: kunit.py counts a suite by its cases alone, so when the
 * program crashed, hung or exited non-zero after printing its results, init
 * turns its last case into "not ok", with the reason; a program that stops
 * before printing all the cases it planned leaves them missing, which
 * kunit.py and scripts/report count as failed.  "case" lines are
 * programs that report by exit status, one case each: 0 passes, anything
 * else fails, 4 (KSFT_SKIP, the test skipped itself) included, since a test
 * that cannot run here belongs on a "skip" line with the reason; their
 * output becomes diagnostic lines.  A program still running after its
 * timeout is killed and fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/reboot.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_LINES	64
#define MAX_ARGS	32
#define NOBODY		65534
#define KSFT_SKIP	4

struct line {
	char kind[8];		/* suite, case, skip */
	char suite[48];
	char name[48];		/* case and skip lines */
	char user[16];		/* root or nobody */
	char memlock[16];	/* "-" or N pages */
	int timeout;		/* seconds */
	char sysctl[128];	/* "-" or path=value,... under /proc/sys */
	char *argv[MAX_ARGS];	/* case and suite lines */
	char reason[160];	/* skip lines */
};

static struct line plan[MAX_LINES];
static int nlines;

static void die(const char *fmt, ...)
{
	va_list ap;

	printf("init: ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	reboot(RB_AUTOBOOT);
	exit(1);
}

static void read_plan(const char *path)
{
	char buf[512];
	FILE *f = fopen(path, "r");
	int lineno = 0;

	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		struct line *l = &plan[nlines];
		char *tok, *save, *p = buf;
		int n = 0;

		lineno++;
		buf[strcspn(buf, "\n")] = '\0';
		p += strspn(p, " \t");
		if (!*p || *p == '#')
			continue;
		if (nlines == MAX_LINES)
			die("%s: more than %d lines", path, MAX_LINES);
		if (sscanf(p, "%7s %47s", l->kind, l->suite) != 2)
			die("%s:%d: want KIND SUITE ...", path, lineno);
		tok = strtok_r(p, " \t", &save);
		tok = strtok_r(NULL, " \t", &save);
		if (!strcmp(l->kind, "skip")) {
			tok = strtok_r(NULL, " \t", &save);
			p = strtok_r(NULL, "", &save);
			if (!tok || !p)
				die("%s:%d: want skip SUITE NAME REASON", path, lineno);
			snprintf(l->name, sizeof(l->name), "%s", tok);
			snprintf(l->reason, sizeof(l->reason), "%s", p);
			nlines++;
			continue;
		}
		if (!strcmp(l->kind, "case")) {
			tok = strtok_r(NULL, " \t", &save);
			if (!tok)
				die("%s:%d: want case SUITE NAME ...", path, lineno);
			snprintf(l->name, sizeof(l->name), "%s", tok);
		} else if (strcmp(l->kind, "suite")) {
			die("%s:%d: unknown kind '%s'", path, lineno, l->kind);
		}
		p = strtok_r(NULL, "", &save);
		if (!p || sscanf(p, "%15s %15s %d %127s%n", l->user, l->memlock,
				 &l->timeout, l->sysctl, &n) != 4)
			die("%s:%d: want USER MEMLOCK TIMEOUT SYSCTL COMMAND...", path, lineno);
		p = strdup(p + n);
		n = 0;
		for (tok = strtok_r(p, " \t", &save); tok;
		     tok = strtok_r(NULL, " \t", &save)) {
			if (n == MAX_ARGS - 1)
				die("%s:%d: more than %d words in the command", path, lineno,
				    MAX_ARGS - 1);
			l->argv[n++] = tok;
		}
		if (!n)
			die("%s:%d: no command", path, lineno);
		nlines++;
	}
	fclose(f);
}

/* Write value to /proc/sys/path; the old value goes to old (if given). */
static void set_sysctl(const char *path, const char *value, char *old, size_t len)
{
	char file[160];
	ssize_t r;
	int fd;

	snprintf(file, sizeof(file), "/proc/sys/%s", path);
	fd = open(file, O_RDWR);
	if (fd < 0)
		die("cannot open %s: %s", file, strerror(errno));
	if (old) {
		r = read(fd, old, len - 1);
		old[r > 0 ? r : 0] = '\0';
		old[strcspn(old, "\n")] = '\0';
		lseek(fd, 0, SEEK_SET);
	}
	if (write(fd, value, strlen(value)) < 0)
		die("cannot write %s to %s: %s", value, file, strerror(errno));
	close(fd);
}

/* Apply (or, with restore, undo) a line's sysctl settings. */
static void sysctls(struct line *l, bool restore)
{
	static char old[8][64];
	char buf[128], *item, *save, *eq;
	int i = 0;

	if (!strcmp(l->sysctl, "-"))
		return;
	snprintf(buf, sizeof(buf), "%s", l->sysctl);
	for (item = strtok_r(buf, ",", &save); item && i < 8;
	     item = strtok_r(NULL, ",", &save), i++) {
		eq = strchr(item, '=');
		if (!eq)
			die("sysctl '%s': want path=value", item);
		*eq = '\0';
		if (restore)
			set_sysctl(item, old[i], NULL, 0);
		else
			set_sysctl(item, eq + 1, old[i], sizeof(old[i]));
	}
}

/* In the child: limits, identity, output to the pipe, then the program. */
static void child(struct line *l, int out)
{
	char path[128];

	setpgid(0, 0);
	dup2(out, 1);
	dup2(out, 2);
	close(out);
	if (strcmp(l->memlock, "-")) {
		struct rlimit r;

		r.rlim_cur = strtoul(l->memlock, NULL, 10) * sysconf(_SC_PAGESIZE);
		r.rlim_max = r.rlim_cur;
		if (setrlimit(RLIMIT_MEMLOCK, &r))
			_exit(111);
	}
	if (!strcmp(l->user, "nobody")) {
		if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
			_exit(112);
	} else if (strcmp(l->user, "root")) {
		fprintf(stderr, "init: unknown user %s\n", l->user);
		_exit(113);
	}
	if (chdir("/tmp"))
		_exit(114);
	snprintf(path, sizeof(path), "/bin/%s", l->argv[0]);
	execv(path, l->argv);
	fprintf(stderr, "init: cannot run %s: %s\n", path, strerror(errno));
	_exit(115);
}

static double now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/*
 * The KTAP program running: its last result line, held back (with the
 * lines after it) until the next result or its exit, which may turn it
 * into a failure.
 */
static char held[512], after[4096];

static void flush_held(const char *prefix, const char *reason)
{
	char *desc = held + (held[0] == 'n' ? 7 : 3), *directive;

	if (!held[0])
		return;
	if (reason) {
		/* "ok 3 name # SKIP why" becomes "not ok 3 name # reason" */
		printf("%s# %s\n", prefix, reason);
		directive = strstr(desc, " #");
		if (directive)
			*directive = '\0';
		printf("%snot ok %s # %s\n", prefix, desc, reason);
	} else {
		printf("%s%s\n", prefix, held);
	}
	fputs(after, stdout);
	held[0] = '\0';
	after[0] = '\0';
}

/* One line of a program's output. */
static void emit(struct line *l, const char *prefix, bool ktap, const char *text)
{
	const char *t = text + strspn(text, " \t");
	size_t used = strlen(after);

	if (!ktap) {
		printf("%s%s\n", prefix, text);
	} else if (!strncmp(t, "KTAP version ", 13) || !strncmp(t, "TAP version ", 12)) {
		printf("%sKTAP version 1\n%s# Subtest: %s\n", prefix, prefix, l->suite);
	} else if (!strncmp(text, "ok ", 3) || !strncmp(text, "not ok ", 7)) {
		flush_held(prefix, NULL);
		snprintf(held, sizeof(held), "%s", text);
	} else if (!held[0]) {
		printf("%s%s\n", prefix, text);
	} else if (used + strlen(prefix) + strlen(text) + 2 < sizeof(after)) {
		snprintf(after + used, sizeof(after) - used, "%s%s\n", prefix, text);
	} else {
		/* too much after the last result to hold: keep the order */
		flush_held(prefix, NULL);
		printf("%s%s\n", prefix, text);
	}
}

static pid_t running;
static volatile sig_atomic_t timed_out;

/* The timeout: kill the program and everything it started. */
static void alarm_handler(int sig)
{
	(void)sig;
	timed_out = 1;
	kill(-running, SIGKILL);
	kill(running, SIGKILL);
}

/*
 * Run one line; its output lines are printed with prefix before them (and,
 * for a KTAP program, its version line becomes the suite's header).  Returns
 * the exit status, or -1 when it timed out; *secs gets how long it ran.
 */
static int run(struct line *l, const char *prefix, bool ktap, double *secs)
{
	struct sigaction sa = { .sa_handler = alarm_handler };
	double t0 = now();
	size_t size = 0;
	char *text = NULL;
	int fds[2], status = 0;
	ssize_t len;
	FILE *out;

	sysctls(l, false);
	if (pipe(fds))
		die("pipe: %s", strerror(errno));
	fflush(stdout);
	held[0] = '\0';
	after[0] = '\0';
	running = fork();
	if (running < 0)
		die("fork: %s", strerror(errno));
	if (!running) {
		close(fds[0]);
		child(l, fds[1]);
	}
	close(fds[1]);
	timed_out = 0;
	sigaction(SIGALRM, &sa, NULL);
	alarm(l->timeout);
	out = fdopen(fds[0], "r");
	while ((len = getline(&text, &size, out)) >= 0) {
		if (len && text[len - 1] == '\n')
			text[len - 1] = '\0';
		emit(l, prefix, ktap, text);
	}
	fclose(out);
	free(text);
	while (waitpid(running, &status, 0) < 0 && errno == EINTR)
		;
	alarm(0);
	*secs = now() - t0;
	sysctls(l, true);
	if (timed_out)
		return -1;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static void why(char *buf, size_t len, int status, struct line *l)
{
	if (status < 0)
		snprintf(buf, len, "timed out after %d s", l->timeout);
	else if (status > 128)
		snprintf(buf, len, "killed by signal %d", status - 128);
	else if (status == KSFT_SKIP)
		snprintf(buf, len, "exit status 4: it skipped itself (see its output); "
			 "a test that cannot run here belongs on a skip line");
	else
		snprintf(buf, len, "exit status %d", status);
}

/* A suite of "case" and "skip" lines, starting at plan[first]. */
static int run_cases(int first, int number)
{
	char prefix[64], reason[200];
	int i, n = 0, failed = 0;
	double secs;

	for (i = first; i < nlines && !strcmp(plan[i].suite, plan[first].suite) &&
	     strcmp(plan[i].kind, "suite"); i++)
		n++;
	printf("    KTAP version 1\n    # Subtest: %s\n    1..%d\n", plan[first].suite, n);
	for (i = 0; i < n; i++) {
		struct line *l = &plan[first + i];
		int status;

		if (!strcmp(l->kind, "skip")) {
			printf("    ok %d %s # SKIP %s\n", i + 1, l->name, l->reason);
			continue;
		}
		snprintf(prefix, sizeof(prefix), "    # %s: ", l->name);
		status = run(l, prefix, false, &secs);
		printf("    # %s: %.1f s as %s\n", l->name, secs, l->user);
		if (status == 0) {
			printf("    ok %d %s\n", i + 1, l->name);
		} else {
			why(reason, sizeof(reason), status, l);
			printf("    not ok %d %s # %s\n", i + 1, l->name, reason);
			failed++;
		}
	}
	printf("%sok %d %s\n", failed ? "not " : "", number, plan[first].suite);
	return n;
}

/* A program that prints KTAP; a failed exit fails its last case. */
static void run_suite(struct line *l, int number)
{
	char reason[200];
	double secs;
	int status = run(l, "    ", true, &secs);

	if (status)
		why(reason, sizeof(reason), status, l);
	flush_held("    ", status ? reason : NULL);
	printf("    # %s: %.1f s as %s\n", l->suite, secs, l->user);
	if (status == 0)
		printf("ok %d %s\n", number, l->suite);
	else
		printf("not ok %d %s # %s\n", number, l->suite, reason);
}

int main(void)
{
	int i, suites = 0;

	if (mount("proc", "/proc", "proc", 0, NULL))
		die("mount /proc: %s", strerror(errno));
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_plan("/plan");
	for (i = 0; i < nlines; i++)
		if (!strcmp(plan[i].kind, "suite") || !i ||
		    strcmp(plan[i].suite, plan[i - 1].suite) ||
		    !strcmp(plan[i - 1].kind, "suite"))
			suites++;
	printf("KTAP version 1\n1..%d\n", suites);
	suites = 0;
	for (i = 0; i < nlines;) {
		if (!strcmp(plan[i].kind, "suite"))
			run_suite(&plan[i++], ++suites);
		else
			i += run_cases(i, ++suites);
	}
	printf("# init: plan done\n");
	fflush(stdout);
	sync();
	reboot(RB_AUTOBOOT);
	return 0;
}
