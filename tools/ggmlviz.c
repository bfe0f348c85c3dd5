/*
 * ggmlviz: analyse GGMLVIZ traces. This file dispatches to the
 * subcommands (one file each) and answers --help and --version.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "base/anon.h"
#include "cmd/commands.h"
#include "input/input.h"
#include "base/opts.h"

static const char usage_text[] =
	"Usage: ggmlviz COMMAND [OPTIONS] FILE...\n"
	"       ggmlviz --help | --version\n"
	"\n"
	"Analyse GGMLVIZ traces written by libggmlviz (or by the original ggml-viz).\n"
	"\n"
	"Commands:\n"
	"  info      what a trace holds: events by type, threads, processes, time span,\n"
	"            dropped events, and whether it is complete\n"
	"  dump      one event per line, as text or JSON Lines (--format jsonl)\n"
	"  stats     per-op timing table: count, total, mean, min, p50, p95, max, share\n"
	"  export    Chrome Trace Event JSON or Perfetto's protobuf trace, or tables\n"
	"  diff      stats of two traces side by side, with the change per op\n"
	"  mem       tensor memory: peak, live bytes over time, largest allocations\n"
	"  merge     several traces (processes) into one\n"
	"  validate  check a trace: exit 0 complete, 1 incomplete, 2 damaged\n"
	"  report    one HTML page that shows where the time went (opens offline)\n"
	"  top       follow a trace as it is written: its last seconds, refreshed\n"
	"  advise    what slows the run: findings, with their figures and what to try\n"
	"  serve     follow traces and serve their figures as Prometheus metrics\n"
	"  snapshot  ask a running program for its flight recorder's last seconds\n"
	"\n"
	"Run 'ggmlviz COMMAND --help' for the options of a command.\n"
	"\n"
	"Every command streams: its memory does not grow with the size of the trace.\n"
	"Exit status (but validate): 0 success, 1 damaged or unreadable input (what\n"
	"came before the damage is still used), 2 bad command line.\n";

struct command {
	const char *name;
	int (*run)(struct cli *cli, int argc, char **argv);
};

static const struct command commands[] = {
	{ "info", cli_cmd_info },	       { "dump", cli_cmd_dump },
	{ "stats", cli_cmd_stats },       { "export", cli_cmd_export },
	{ "diff", cli_cmd_diff },	       { "mem", cli_cmd_mem },
	{ "merge", cli_cmd_merge },       { "validate", cli_cmd_validate },
	{ "report", cli_cmd_report },	       { "top", cli_cmd_top },
	{ "advise", cli_cmd_advise },
	{ "serve", cli_cmd_serve },
	{ "snapshot", cli_cmd_snapshot },
};

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct command *cmd;
	struct cli cli;
	int status;

	if (argc < 2) {
		fputs(usage_text, stderr);
		return CLI_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage_text, stdout);
		return fflush(stdout) ? CLI_EXIT_DAMAGED : CLI_EXIT_OK;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("ggmlviz %s (libggmlviz, GGMLVIZ format version %u)\n",
		       GGMLVIZ_VERSION_STRING, GGMLVIZ_FORMAT_VERSION);
		return fflush(stdout) ? CLI_EXIT_DAMAGED : CLI_EXIT_OK;
	}
	cmd = find_command(argv[1]);
	if (!cmd) {
		cli_error("'%s' is not a command (run 'ggmlviz --help' for the list)",
			       argv[1]);
		return CLI_EXIT_USAGE;
	}
	cli_init(&cli);
	status = cmd->run(&cli, argc - 1, argv + 1);
	cli_free(&cli);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		/* what validate and the help print goes through stdio: say when it was lost */
		cli_error("%s: writing standard output: %s", argv[1], strerror(errno));
		if (status == CLI_EXIT_OK)
			status = CLI_EXIT_DAMAGED;
	}
	return status;
}
