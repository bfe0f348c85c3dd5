/*
 * The ggmlviz command's command lines (opts.c): exit statuses, messages,
 * and the parsing of options and their values.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_OPTS_H
#define CLI_OPTS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>

#if defined(__GNUC__)
#define CLI_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define CLI_PRINTF(f, a)
#endif

/* Exit statuses of every subcommand but validate (which has its own). */
enum {
	CLI_EXIT_OK = 0,      /* done, every input read to its end */
	CLI_EXIT_DAMAGED = 1, /* an input is damaged or unreadable (what came before used) */
	CLI_EXIT_USAGE = 2    /* bad command line */
};

/* "ggmlviz: " + the message + newline, on stderr. */
void cli_error(const char *fmt, ...) CLI_PRINTF(1, 2);

/* A subcommand's command line. */
struct cli_cmd {
	const char *name;             /* "stats" */
	const char *help;             /* the --help text */
	const char *shortopts;        /* for getopt_long, without the leading ':' */
	const struct option *longopts;
	int min_args, max_args;       /* operands; max_args < 0: no limit */
	/* Takes one option (getopt's c and optarg); 0, or CLI_EXIT_USAGE. */
	int (*option)(void *ctx, int c, char *arg);
};

/*
 * Parses argv (argv[0] is the subcommand) with getopt_long; --help is
 * handled here. Returns -1 when the subcommand should run (its operands
 * are argv[*first] to argv[argc - 1]), or the exit status to end with: 0
 * after --help, CLI_EXIT_USAGE after a message on stderr.
 */
int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *ctx, int *first);

/* The option callback of a subcommand that has no option but --help. */
int cli_no_option(void *ctx, int c, char *arg);

/* Prints "ggmlviz CMD: ..." and the --help hint; returns CLI_EXIT_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) CLI_PRINTF(2, 3);

/* A decimal count; 0, or CLI_EXIT_USAGE after a message naming opt. */
int cli_parse_count(const char *cmd, const char *opt, const char *val, uint64_t *out);

/* A duration with an optional unit (ns, us, ms, s; ns by default). */
int cli_parse_duration(const char *cmd, const char *opt, const char *val, uint64_t *ns);

/* val's index in the NULL-terminated choices, into *out. */
int cli_parse_choice(const char *cmd, const char *opt, const char *val,
			  const char *const *choices, int *out);

/* --from / --to: a window of time relative to the start of the trace. */
struct cli_window {
	uint64_t from, to; /* ns after the start; to = UINT64_MAX: no end */
	bool set;          /* either bound was given */
};

/* Takes --from (c = 'F') or --to ('U') into w; 0 or CLI_EXIT_USAGE. */
int cli_window_option(const char *cmd, struct cli_window *w, int c, const char *arg);
/* -1 when w is a window, CLI_EXIT_USAGE after a message when --from is after --to. */
int cli_window_check(const char *cmd, const struct cli_window *w);
/* Whether a record at ts lies in the window (relative to t0, the trace's start). */
bool cli_in_window(const struct cli_window *w, uint64_t t0, uint64_t ts);
/* Whether [begin, end] meets the window (relative to t0): what export and report keep of a slice. */
bool cli_window_meets(const struct cli_window *w, uint64_t t0, uint64_t begin, uint64_t end);

#endif /* CLI_OPTS_H */
