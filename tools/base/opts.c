/*
 * Messages, and command-line parsing shared by the subcommands:
 * getopt_long with our own messages (naming the option and the value),
 * and the value types (counts, durations, choices, time windows).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/opts.h"

/*
 * A message said once: a command that reads a trace in several passes
 * (report, export -f otlp) meets its damage in each, and a sentence said
 * again tells the user nothing more, even with another said in between
 * (a pass's own finding comes before the next pass's end). The last
 * SAID_KEPT sentences are remembered.
 */
#define SAID_KEPT 8
void cli_error(const char *fmt, ...)
{
	static char said[SAID_KEPT][1024];
	static unsigned next;
	char now[sizeof said[0]];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(now, sizeof now, fmt, ap);
	va_end(ap);
	for (unsigned i = 0; i < SAID_KEPT; i++)
		if (strcmp(now, said[i]) == 0)
			return;
	memcpy(said[next], now, sizeof now);
	next = (next + 1) % SAID_KEPT;
	fprintf(stderr, "ggmlviz: %s\n", now);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "ggmlviz %s: ", cmd);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'ggmlviz %s --help'.\n", cmd);
	va_end(ap);
	return CLI_EXIT_USAGE;
}

static int bad_option(const struct cli_cmd *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':')
		return cli_usage(cmd->name, "option '%s' needs a value", arg);
	if (optopt && optopt != '?')
		return cli_usage(cmd->name, "unknown option '-%c'", optopt);
	return cli_usage(cmd->name, "unknown or ambiguous option '%s'", arg);
}

static int check_operands(const struct cli_cmd *cmd, int n, char **extra)
{
	if (n < cmd->min_args)
		return cli_usage(cmd->name, "%s",
				      n ? "too few FILE operands" : "no FILE given");
	if (cmd->max_args >= 0 && n > cmd->max_args)
		return cli_usage(cmd->name, "unexpected operand '%s'", extra[cmd->max_args]);
	return -1;
}

int cli_parse(const struct cli_cmd *cmd, int argc, char **argv, void *ctx, int *first)
{
	char shortopts[64];
	int c, rc;

	snprintf(shortopts, sizeof shortopts, ":h%s", cmd->shortopts);
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shortopts, cmd->longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(cmd->help, stdout);
			return fflush(stdout) ? CLI_EXIT_DAMAGED : CLI_EXIT_OK;
		}
		if (c == '?' || c == ':')
			return bad_option(cmd, c, argv);
		rc = cmd->option(ctx, c, optarg);
		if (rc)
			return rc;
	}
	*first = optind;
	return check_operands(cmd, argc - optind, argv + optind);
}

int cli_no_option(void *ctx, int c, char *arg)
{
	(void)ctx, (void)c, (void)arg;
	return CLI_EXIT_USAGE; /* getopt_long only returns the options listed */
}

int cli_parse_count(const char *cmd, const char *opt, const char *val, uint64_t *out)
{
	uint64_t v = 0;
	const char *p = val;

	if (!*p)
		return cli_usage(cmd, "%s: an empty value is not a number", opt);
	for (; *p; p++) {
		unsigned d = (unsigned)(*p - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return cli_usage(cmd, "%s: '%s' is not a whole number (0 to 2^64-1)",
					      opt, val);
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

static uint64_t unit_ns(const char *unit)
{
	static const struct {
		const char *name;
		uint64_t ns;
	} units[] = { { "", 1 }, { "ns", 1 }, { "us", 1000 }, { "ms", 1000000 },
		      { "s", 1000000000 } };

	for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
		if (!strcmp(unit, units[i].name))
			return units[i].ns;
	return 0;
}

/* The fraction digits [p, end) of a unit, in ns (digits below 1 ns are dropped). */
static uint64_t fraction_ns(const char *p, const char *end, uint64_t unit)
{
	uint64_t ns = 0;

	for (uint64_t scale = unit / 10; p < end && scale; p++, scale /= 10)
		ns += (uint64_t)(*p - '0') * scale;
	return ns;
}

int cli_parse_duration(const char *cmd, const char *opt, const char *val, uint64_t *ns)
{
	const char *p = val, *frac = "";
	uint64_t whole = 0, unit, part;
	bool digits = false;

	for (; isdigit((unsigned char)*p); p++, digits = true) {
		uint64_t d = (uint64_t)(*p - '0');
		if (whole > (UINT64_MAX - d) / 10)
			return cli_usage(cmd, "%s: '%s' is too long a duration", opt, val);
		whole = whole * 10 + d;
	}
	if (*p == '.')
		for (frac = ++p; isdigit((unsigned char)*p); p++)
			digits = true;
	unit = unit_ns(p);
	if (!digits || !unit)
		return cli_usage(cmd, "%s: '%s' is not a duration (a number with an optional"
				      " unit: ns, us, ms, s)", opt, val);
	part = *frac ? fraction_ns(frac, p, unit) : 0;
	if (whole > (UINT64_MAX - part) / unit)
		return cli_usage(cmd, "%s: '%s' is too long a duration", opt, val);
	*ns = whole * unit + part;
	return 0;
}

int cli_window_option(const char *cmd, struct cli_window *w, int c, const char *arg)
{
	w->set = true;
	if (c == 'F')
		return cli_parse_duration(cmd, "--from", arg, &w->from);
	return cli_parse_duration(cmd, "--to", arg, &w->to);
}

int cli_window_check(const char *cmd, const struct cli_window *w)
{
	return w->from > w->to ? cli_usage(cmd, "--from is after --to") : -1;
}

int cli_parse_choice(const char *cmd, const char *opt, const char *val,
			  const char *const *choices, int *out)
{
	char list[256] = "";

	for (int i = 0; choices[i]; i++) {
		if (!strcmp(val, choices[i])) {
			*out = i;
			return 0;
		}
		snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", i ? ", " : "",
			 choices[i]);
	}
	return cli_usage(cmd, "%s: '%s' is not one of %s", opt, val, list);
}

bool cli_in_window(const struct cli_window *w, uint64_t t0, uint64_t ts)
{
	uint64_t rel;

	if (!w->set)
		return true;
	rel = ts > t0 ? ts - t0 : 0;
	return rel >= w->from && rel <= w->to;
}

bool cli_window_meets(const struct cli_window *w, uint64_t t0, uint64_t begin, uint64_t end)
{
	/* ended before t0: out, even with from 0 (report's t0 is its first step's begin) */
	return !w->set ||
	       (end >= t0 && end - t0 >= w->from && (begin <= t0 || begin - t0 <= w->to));
}
