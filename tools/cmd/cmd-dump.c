/*
 * ggmlviz dump: the records of a trace, one per line, as text or JSON
 * Lines, filtered by type, thread and time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/anon.h"
#include "cmd/commands.h"
#include "export/export.h"
#include "input/input.h"
#include "base/opts.h"
#include "output/output.h"

static const char help[] =
	"Usage: ggmlviz dump [OPTIONS] FILE\n"
	"\n"
	"Print the records of a trace, one per line, in file order.\n"
	"\n"
	"Options:\n"
	"  -t, --type LIST     only these types (comma-separated, repeatable): names\n"
	"                      such as OP_COMPUTE_BEGIN (any case), numbers, or groups:\n"
	"                      op, graph, mem (TENSOR_ALLOC/FREE), thread, scope, meta,\n"
	"                      mark, counter, info (OP_INFO), barrier, node (OP_NODE),\n"
	"                      step (STEP_BEGIN/END), split (SPLIT_BEGIN/END)\n"
	"  -T, --thread LIST   only these threads: ids, or names from THREAD_NAME records\n"
	"      --from TIME     only records at or after TIME, --to TIME at or before it:\n"
	"      --to TIME       durations (ns, us, ms, s; ns by default) from the start of\n"
	"                      the trace (its earliest timestamp but META records')\n"
	"  -f, --format FMT    text (default) or jsonl\n"
	"      --anonymize     addresses (tensors, graphs, backends, allocations) as ids\n"
	"                      0x1, 0x2, ... in the order first seen, to share a trace\n"
	"                      without the program's memory layout\n"
	"  -h, --help          show this help\n"
	"\n"
	"Text lines read '@OFFSET TYPE ts=... tid=... fields label=\"...\"'; labels show\n"
	"control characters and invalid UTF-8 as C escapes. JSON Lines hold one object\n"
	"per record with the keys offset, type, type_id, ts, tid, the fields of the type,\n"
	"and label (null when none); pointers are \"0x...\" strings, other numbers are\n"
	"JSON integers (ts needs 64 bits: tools that read numbers as doubles round it).\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (the records before the\n"
	"damage are printed), 2 bad command line.\n";

#define MAX_THREADS 64

struct dump {
	struct cli *cli;
	bool types_set, json;
	bool types[256];
	const char *threads[MAX_THREADS];
	size_t nthreads;
	struct cli_window window;
};

static const struct {
	const char *name;
	uint8_t first, last;
} type_groups[] = {
	{ "graph", 0, 1 }, { "op", 2, 3 },	 { "mem", 4, 5 },     { "barrier", 6, 6 },
	{ "thread", 7, 8 }, { "meta", 9, 9 },	 { "mark", 10, 10 }, { "counter", 11, 11 },
	{ "scope", 12, 13 }, { "info", 14, 14 },   { "node", 15, 15 }, { "step", 16, 17 },
	{ "split", 18, 19 },
};

/* Marks the types named by one item of --type; false if it names none. */
static bool add_type(struct dump *d, const char *item)
{
	char *end;
	unsigned long n = strtoul(item, &end, 10);

	if (*item >= '0' && *item <= '9' && !*end && n < 256)
		return d->types[n] = true;
	for (size_t i = 0; i < sizeof type_groups / sizeof type_groups[0]; i++) {
		if (strcasecmp(item, type_groups[i].name))
			continue;
		for (unsigned t = type_groups[i].first; t <= type_groups[i].last; t++)
			d->types[t] = true;
		return true;
	}
	for (unsigned t = 0; t < GGMLVIZ_EVENT_TYPE_COUNT; t++)
		if (!strcasecmp(item, ggmlviz_event_type_name((uint8_t)t)))
			return d->types[t] = true;
	return false;
}

static int parse_types(struct dump *d, char *list)
{
	char *save = NULL;

	d->types_set = true;
	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save))
		if (!add_type(d, item))
			return cli_usage("dump", "--type: '%s' is not a record type (try"
					      " op, graph, mem, or OP_COMPUTE_BEGIN)", item);
	return 0;
}

static int parse_threads(struct dump *d, char *list)
{
	char *save = NULL;

	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		if (d->nthreads == MAX_THREADS)
			return cli_usage("dump", "--thread: more than %d threads",
					      MAX_THREADS);
		d->threads[d->nthreads++] = item;
	}
	return 0;
}

static int option(void *ctx, int c, char *arg)
{
	struct dump *d = ctx;
	int format = 0, rc;

	switch (c) {
	case 't':
		return parse_types(d, arg);
	case 'T':
		return parse_threads(d, arg);
	case 'F':
	case 'U':
		return cli_window_option("dump", &d->window, c, arg);
	case 'N':
		cli_anon_enable(&d->cli->anon);
		return 0;
	case 'f':
		rc = cli_parse_choice("dump", "--format", arg,
					   (const char *const[]){ "text", "jsonl", NULL }, &format);
		d->json = format == 1;
		return rc;
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "type", required_argument, NULL, 't' }, { "thread", required_argument, NULL, 'T' },
	{ "from", required_argument, NULL, 'F' }, { "to", required_argument, NULL, 'U' },
	{ "format", required_argument, NULL, 'f' }, { "anonymize", no_argument, NULL, 'N' },
	{ "help", no_argument, NULL, 'h' },	    { NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "dump", help, "t:T:f:", longopts, 1, 1, option };

static bool thread_wanted(const struct dump *d, const struct ggmlviz_reader *r, uint32_t tid)
{
	const char *name = NULL;
	bool named = false;

	if (!d->nthreads)
		return true;
	for (size_t i = 0; i < d->nthreads; i++) {
		char *end;
		unsigned long n = strtoul(d->threads[i], &end, 10);

		if (!*end && end != d->threads[i] && n == tid)
			return true;
		if (!named)
			name = ggmlviz_reader_thread_name(r, tid), named = true;
		if (name && !strcmp(name, d->threads[i]))
			return true;
	}
	return false;
}

static bool wanted(const struct dump *d, const struct ggmlviz_reader *r, uint64_t t0,
		   const struct ggmlviz_event *ev)
{
	return (!d->types_set || d->types[ev->type]) &&
	       cli_in_window(&d->window, t0, ev->timestamp_ns) &&
	       thread_wanted(d, r, ev->thread_id);
}

int cli_cmd_dump(struct cli *cli, int argc, char **argv)
{
	struct dump d = { .cli = cli, .window = { 0, UINT64_MAX, false } };
	struct cli_scan scan = { 0 };
	struct cli_input in;
	struct ggmlviz_event ev;
	struct cli_out o;
	int first, status = cli_parse(&cmd, argc, argv, &d, &first);

	if (status >= 0 || (status = cli_window_check("dump", &d.window)) >= 0)
		return status;
	if (cli_input_open(&in, "dump", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	if (cli_out_open(&o, "dump", NULL) < 0) {
		cli_input_close(&in);
		return CLI_EXIT_DAMAGED;
	}
	/* a first pass, for the start of --from/--to and for the names of ops whose
	 * OP_NAME comes later in the file (a pipe is copied to be read twice: stream.c) */
	if (d.window.set || cli_input_is_file(&in))
		cli_scan(&in, &scan, &cli->names);
	while (cli_input_next(&in, &ev) == 1)
		if (wanted(&d, in.r, scan.t_min, &ev))
			cli_event_print(&o, &cli->names, in.r, &ev, d.json);
	status = cli_input_report(&in);
	if (cli->names.assumed)
		cli_error("dump: %s names none of its ops: their names are assumed from GGML's "
			  "numbering of mid-2025, which the original ggml-viz wrote", argv[first]);
	cli_input_close(&in);
	return cli_out_close(&o, "dump") ? CLI_EXIT_DAMAGED : status;
}
