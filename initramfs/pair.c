// SPDX-License-Identifier: GPL-2.0
/*
 * A server and its client, as the tree's selftest scripts run them
 * ("server & sleep 0.2; client; wait"):
 *
 *   pair SERVER [ARG...] -- CLIENT [ARG...]
 *
 * runs SERVER (a program of /bin) in the background, CLIENT 200 ms later,
 * and waits for both.  Exit status 0 when both exit 0; otherwise 1, after
 * a line saying which did not and how it ended.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t start(char **argv)
{
	char path[256];
	pid_t pid = fork();

	if (pid)
		return pid;
	snprintf(path, sizeof(path), "/bin/%s", argv[0]);
	execv(path, argv);
	perror(path);
	_exit(127);
}

/* 0 if the program exited 0, else 1 after saying why. */
static int ended(const char *what, pid_t pid)
{
	int status;

	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		fprintf(stderr, "pair: %s: could not start or wait\n", what);
		return 1;
	}
	if (WIFEXITED(status) && !WEXITSTATUS(status))
		return 0;
	if (WIFEXITED(status))
		fprintf(stderr, "pair: %s exited %d\n", what, WEXITSTATUS(status));
	else
		fprintf(stderr, "pair: %s killed by signal %d\n", what, WTERMSIG(status));
	return 1;
}

int main(int argc, char **argv)
{
	pid_t server, client;
	int sep, bad;

	for (sep = 1; sep < argc && strcmp(argv[sep], "--"); sep++)
		;
	if (sep == 1 || sep >= argc - 1) {
		fprintf(stderr, "usage: pair SERVER [ARG...] -- CLIENT [ARG...]\n");
		return 2;
	}
	argv[sep] = NULL;
	fflush(stdout);
	server = start(argv + 1);
	usleep(200000);
	client = start(argv + sep + 1);
	bad = ended("the client", client);
	bad |= ended("the server", server);
	return bad;
}
