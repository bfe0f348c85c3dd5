/*
 * ggmlviz advise: what slows the run, each finding with its figures from
 * the trace, the threshold it crossed, why it costs and what to try
 * (tools/advise/); exit status 3 where --fail-on names one that fired.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "advise/advise.h"
#include "advise/slow.h"
#include "base/opts.h"
#include "cmd/commands.h"
#include "output/output.h"

#define CLI_EXIT_FINDING 3

static const char help[] =
	"Usage: ggmlviz advise [OPTIONS] FILE\n"
	"\n"
	"What slows the run, found in the trace: each finding says what was seen with\n"
	"its figures, the threshold it crossed, why it costs and what to try (a flag of\n"
	"llama.cpp's or of the program, a build option); then the rules that found\n"
	"nothing, and those not applied with why (a trace without names, steps, a\n"
	"measured peak, kernels, requests: no rule fires on a guess). The rules, by\n"
	"their ids:\n"
	"  threads-over-cpus            more compute threads than the CPUs it may use\n"
	"  cpus-taken                   other work taking the process's CPUs\n"
	"  run-start-share              the CPU runs' starts, a share of the token\n"
	"  memory-bound-below-peak      a memory-bound op far below the measured peak\n"
	"  model-split                  layers on the CPU while a GPU computes others\n"
	"  gpu-fallback                 ops of the GPU's layers computed on the CPU\n"
	"  gpu-idle                     the GPU idle between its runs (kernels)\n"
	"  device-memory-near-full      a device's memory near full\n"
	"  attention-grows-with-context attention's share growing with the context\n"
	"  server-queue-wait            llama-server: requests waiting for a slot\n"
	"  server-prompt-cache          llama-server: no prompt taken from a cache\n"
	"  rpc-network-bound            GGML's RPC: steps waiting on the wire more than\n"
	"                               they compute (a client and its servers merged)\n"
	"  rpc-round-trips              GGML's RPC: the replies a step waits for\n"
	"  trace-incomplete, trace-dropped, trace-sampled, trace-estimated,\n"
	"  trace-gpu-windows            what the trace itself lets its figures say\n"
	"\n"
	"Why a server's request was slow: --request ID or --slow judges the window of\n"
	"those requests (each one's arrival to its end) against the run's normal (the\n"
	"rest of the run where steps ran), each finding with both sides' figures:\n"
	"  slow-cpus-taken              other work took the CPUs in the window\n"
	"  slow-queue                   a wait for a slot, or another request's long\n"
	"                               prompt, before the first token\n"
	"  slow-batch                   steps grown by other slots' tokens\n"
	"  slow-context                 tokens generated over a longer context\n"
	"  slow-gpu-fallback            ops computed on the CPU instead of the GPU\n"
	"  slow-trace-cost              the trace's own records, or events dropped\n"
	"\n"
	"Options:\n"
	"  -f, --format FMT    text (default) or json (every finding with its id and\n"
	"                      figures, and every rule: applied, fired, why not)\n"
	"      --fail-on IDS   exit 3 when a finding of these ids fired: a comma-\n"
	"                      separated list, \"warn\" (every finding but the trace's\n"
	"                      own notes) or \"any\"\n"
	"      --request ID    why request ID (stats --by request's) was slow\n"
	"      --slow          why the slow requests were: those whose time to first\n"
	"                      token or per generated token is over twice the run's\n"
	"                      median (5 requests or more with the figure)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 success (--slow: also when no request is slow), 1 damaged or\n"
	"unreadable trace (what came before is weighed), 2 bad command line, or no\n"
	"request ID in the trace, 3 a finding --fail-on names fired.\n";

#define OPT_FAIL_ON 0x100
#define OPT_REQUEST 0x101
#define OPT_SLOW 0x102

struct advise_opts {
	int format;          /* 0 text, 1 json */
	const char *fail_on; /* --fail-on, or NULL */
	bool window;         /* --request or --slow */
	struct cli_slow_ask ask;
};

/* Whether the n bytes at p are the id of one of ids (NULL-terminated). */
static bool one_of(const char *const *ids, const char *p, size_t n)
{
	for (size_t k = 0; ids[k]; k++)
		if (strlen(ids[k]) == n && !memcmp(p, ids[k], n))
			return true;
	return false;
}

/* Whether --fail-on's list is made of known ids (or warn, any); names the first that is not. */
static int check_ids(const char *list)
{
	const char *p = list;

	while (*p) {
		size_t n = strcspn(p, ",");
		bool known = (n == 4 && !memcmp(p, "warn", 4)) || (n == 3 && !memcmp(p, "any", 3)) ||
			     one_of(cli_advise_ids, p, n) || one_of(cli_slow_ids, p, n);

		if (!known)
			return cli_usage("advise", "--fail-on: '%.*s' is no finding's id (ggmlviz advise"
					 " --help lists them)", (int)n, p);
		p += n + (p[n] == ',');
	}
	return 0;
}

static int option(void *ctx, int c, char *arg)
{
	struct advise_opts *x = ctx;

	switch (c) {
	case 'f':
		return cli_parse_choice("advise", "--format", arg,
					(const char *const[]){ "text", "json", NULL }, &x->format);
	case OPT_FAIL_ON:
		x->fail_on = arg;
		return check_ids(arg);
	case OPT_REQUEST:
		if (x->window && x->ask.slow)
			return cli_usage("advise", "--request and --slow: one or the other");
		x->window = true;
		return cli_parse_count("advise", "--request", arg, &x->ask.id);
	case OPT_SLOW:
		if (x->window && !x->ask.slow)
			return cli_usage("advise", "--request and --slow: one or the other");
		x->window = x->ask.slow = true;
		return 0;
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "format", required_argument, NULL, 'f' }, { "fail-on", required_argument, NULL, OPT_FAIL_ON },
	{ "request", required_argument, NULL, OPT_REQUEST }, { "slow", no_argument, NULL, OPT_SLOW },
	{ "help", no_argument, NULL, 'h' },	   { NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "advise", help, "f:", longopts, 1, 1, option };

/* Whether finding x is one --fail-on names. */
static bool failing(const char *list, const struct cli_finding *x)
{
	size_t idn = strlen(x->id);

	for (const char *p = list; list && *p;) {
		size_t n = strcspn(p, ",");
		if ((n == 3 && !memcmp(p, "any", 3)) ||
		    (n == 4 && !memcmp(p, "warn", 4) && x->level == CLI_ADVISE_WARN) ||
		    (n == idn && !memcmp(p, x->id, n)))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/* The exit status --fail-on gives the findings of a: 0 or CLI_EXIT_FINDING. */
static int fail_status(const struct advise_opts *opts, const struct cli_advice *a)
{
	for (size_t i = 0; i < a->n; i++)
		if (failing(opts->fail_on, &a->f[i]))
			return CLI_EXIT_FINDING;
	return CLI_EXIT_OK;
}

/* advise --request or --slow: the window's findings, after which requests were judged. */
static int judge_window(struct cli *cli, const struct advise_opts *opts, const char *path,
			struct cli_out *o, struct cli_advice *a)
{
	struct cli_slow *w = calloc(1, sizeof *w);
	int status = w ? cli_slow_read("advise", path, cli, &opts->ask, w) : CLI_EXIT_DAMAGED;

	if (status < 0 || !w) {
		free(w);
		return CLI_EXIT_DAMAGED;
	}
	if (!w->n_chosen && !opts->ask.slow) {
		cli_error("advise: %s: no request %" PRIu64 " in it (ggmlviz stats --by request lists"
			  " them)", path, opts->ask.id);
		status = status ? status : CLI_EXIT_USAGE;
	}
	if (w->n_chosen)
		cli_slow_rules(w, a); /* else a holds nothing: no finding, no rule */
	if (opts->format) {
		cli_out_str(o, "{\"file\":"), cli_json_cstr(o, path), cli_out_char(o, ',');
		cli_slow_json(o, w), cli_advise_json_members(o, a), cli_out_str(o, "}\n");
	} else if (w->n_chosen || opts->ask.slow) {
		cli_slow_text(o, path, w, &opts->ask);
		if (w->n_chosen)
			cli_advise_text(o, path, a);
	}
	cli_slow_free(w);
	free(w);
	return status == CLI_EXIT_OK ? fail_status(opts, a) : status;
}

int cli_cmd_advise(struct cli *cli, int argc, char **argv)
{
	struct advise_opts opts = { .fail_on = NULL };
	struct cli_facts *f = calloc(1, sizeof *f);
	struct cli_advice *a = calloc(1, sizeof *a);
	struct cli_out o;
	int first, status = cli_parse(&cmd, argc, argv, &opts, &first);

	if (status >= 0 || !f || !a) {
		free(f), free(a);
		return status >= 0 ? status : CLI_EXIT_DAMAGED;
	}
	if (cli_out_open(&o, "advise", NULL) < 0) {
		free(f), free(a);
		return CLI_EXIT_DAMAGED;
	}
	if (opts.window) {
		status = judge_window(cli, &opts, argv[first], &o, a);
		free(f), free(a);
		return cli_out_close(&o, "advise") ? CLI_EXIT_DAMAGED : status;
	}
	status = cli_facts_read("advise", argv[first], cli, f, NULL);
	if (status >= 0) { /* damaged: what came before is weighed */
		cli_advise(f, a);
		if (opts.format)
			cli_advise_json(&o, argv[first], a), cli_out_char(&o, '\n');
		else
			cli_advise_text(&o, argv[first], a);
		for (size_t i = 0; status == CLI_EXIT_OK && i < a->n; i++)
			if (failing(opts.fail_on, &a->f[i]))
				status = CLI_EXIT_FINDING;
	}
	cli_facts_free(f);
	free(f), free(a);
	if (status < 0)
		status = CLI_EXIT_DAMAGED;
	return cli_out_close(&o, "advise") ? CLI_EXIT_DAMAGED : status;
}
