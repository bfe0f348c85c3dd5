/*
 * libFuzzer target: every command of ggmlviz on any bytes, as a file: info,
 * dump (text and JSON Lines, anonymized), stats by each grouping, export
 * (JSON and Perfetto),
 * mem, diff, merge and validate. Their output goes to /dev/null; run it
 * with -close_fd_mask=3 to silence their messages. Built with
 * --enable-fuzzing (clang); tests/run-all.sh runs it for a bounded time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <fcntl.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "input/input.h"
#include "base/anon.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64], merged[80];

static void run(int (*cmd)(struct cli *, int, char **), const char *const *args)
{
	char *argv[16];
	struct cli cli;
	int argc = 0;

	while (args[argc] && argc < 15) {
		argv[argc] = (char *)(uintptr_t)args[argc];
		argc++;
	}
	argv[argc] = NULL;
	optind = 0; /* getopt starts over for each command */
	cli_init(&cli);
	cmd(&cli, argc, argv);
	cli_free(&cli);
}

static int write_input(const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	size_t done = 0;

	if (fd < 0)
		return -1;
	while (done < size) {
		ssize_t n = write(fd, data + done, size - done);
		if (n <= 0)
			break;
		done += (size_t)n;
	}
	return close(fd) == 0 && done == size ? 0 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const bys[] = { "op", "name", "layer", "thread", "backend",
					   "step", "phase", "method", "host", "command" };

	if (!path[0]) {
		snprintf(path, sizeof path, "/tmp/ggmlviz-fuzz-%ld.ggmlviz", (long)getpid());
		snprintf(merged, sizeof merged, "/tmp/ggmlviz-fuzz-%ld-merged.ggmlviz",
			 (long)getpid());
		if (!freopen("/dev/null", "w", stdout))
			abort();
	}
	if (write_input(data, size) < 0)
		return 0;
	run(cli_cmd_info, (const char *const[]){ "info", path, NULL });
	run(cli_cmd_validate, (const char *const[]){ "validate", path, NULL });
	run(cli_cmd_dump, (const char *const[]){ "dump", path, NULL });
	run(cli_cmd_dump, (const char *const[]){ "dump", "-f", "jsonl", "--anonymize", path, NULL });
	for (size_t i = 0; i < sizeof bys / sizeof bys[0]; i++)
		run(cli_cmd_stats, (const char *const[]){ "stats", "-f", "json", "-b", bys[i], path,
							 NULL });
	run(cli_cmd_export, (const char *const[]){ "export", path, "-o", "/dev/null", NULL });
	run(cli_cmd_export, (const char *const[]){ "export", "-f", "perfetto", path, "-o",
						  "/dev/null", NULL });
	run(cli_cmd_mem, (const char *const[]){ "mem", "-f", "json", path, NULL });
	run(cli_cmd_diff, (const char *const[]){ "diff", path, path, NULL });
	run(cli_cmd_advise, (const char *const[]){ "advise", "-f", "json", path, NULL });
	run(cli_cmd_merge, (const char *const[]){ "merge", path, path, "-o", merged, NULL });
	unlink(merged);
	return 0;
}
