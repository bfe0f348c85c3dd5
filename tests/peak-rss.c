/*
 * peak-rss: runs a command and reports its peak memory, for the test that
 * shows the ggmlviz command keeps flat memory on big traces.
 *
 *   peak-rss RESULT_FILE COMMAND [ARGS...]
 *
 * Writes "maxrss_kib=N anon_kib=N" to RESULT_FILE: the peak resident set
 * of the command (getrusage through wait4: it counts the pages of a mapped
 * trace too), and the peak of its anonymous memory (heap, stacks; polled
 * from /proc/PID/status every millisecond, Linux only, 0 elsewhere).
 * Exits with the command's status (128 + signal if it was killed).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* RssAnon of pid in KiB, or 0 when it cannot be read. */
static long anon_kib(pid_t pid)
{
	char path[64], line[256];
	long kib = 0;
	FILE *f;

	snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "RssAnon: %ld", &kib) == 1)
			break;
	fclose(f);
	return kib;
}

static pid_t start(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execvp(argv[0], argv);
		fprintf(stderr, "peak-rss: %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	return pid;
}

int main(int argc, char **argv)
{
	const struct timespec period = { 0, 1000000 };
	struct rusage ru;
	long anon = 0, now;
	int status = 0;
	pid_t pid, done = 0;
	FILE *out;

	if (argc == 1) {
		/* run by make check as a test: it is a helper of tests/test-tool-big.sh */
		puts("1..0 # SKIP helper of tests/test-tool-big.sh, not a test by itself");
		return 0;
	}
	if (argc < 3) {
		fputs("usage: peak-rss RESULT_FILE COMMAND [ARGS...]\n", stderr);
		return 2;
	}
	pid = start(argv + 2);
	if (pid < 0) {
		perror("peak-rss: fork");
		return 1;
	}
	while (done == 0) {
		now = anon_kib(pid);
		anon = now > anon ? now : anon;
		nanosleep(&period, NULL);
		done = wait4(pid, &status, WNOHANG, &ru);
	}
	out = fopen(argv[1], "w");
	if (done < 0 || !out ||
	    fprintf(out, "maxrss_kib=%ld anon_kib=%ld\n", ru.ru_maxrss, anon) < 0 || fclose(out)) {
		perror("peak-rss");
		return 1;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
