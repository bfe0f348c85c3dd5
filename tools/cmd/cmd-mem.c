/*
 * ggmlviz mem: tensor memory over a trace, from its TENSOR_ALLOC and
 * TENSOR_FREE records, in two reads: the first finds the time span, the
 * second follows the live bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "input/input.h"
#include "memory/memory.h"
#include "base/opts.h"
#include "output/output.h"

static const char help[] =
	"Usage: ggmlviz mem [OPTIONS] FILE\n"
	"\n"
	"Tensor memory of a trace, from its TENSOR_ALLOC and TENSOR_FREE records: the\n"
	"peak of live bytes and when it was reached, live bytes over time, the largest\n"
	"allocations with their labels, the distribution of sizes, and what was still\n"
	"allocated at the end.\n"
	"\n"
	"Options:\n"
	"  -n, --top N        list the N largest allocations (default 10)\n"
	"  -p, --points N     intervals of the timeline (default 20, at most 10000)\n"
	"  -f, --format FMT   text (default) or json (sizes in bytes, times in ns)\n"
	"  -h, --help         show this help\n"
	"\n"
	"A free gives back the size of the allocation at its pointer (in its process),\n"
	"whatever size the free record says; a free of a pointer not allocated in the\n"
	"trace is counted, not subtracted. Live bytes follow the records in file order,\n"
	"which is each thread's order. Times are given from the start of the trace.\n"
	"\n"
	"Exit status: 0 success, 1 damaged or unreadable trace (the records before the\n"
	"damage are used), 2 bad command line.\n";

struct mem_opts {
	uint64_t top, points;
	bool json;
};

static int option(void *ctx, int c, char *arg)
{
	struct mem_opts *m = ctx;
	int json = 0, rc;

	if (c == 'n')
		return cli_parse_count("mem", "--top", arg, &m->top);
	if (c == 'p') {
		rc = cli_parse_count("mem", "--points", arg, &m->points);
		if (!rc && (m->points < 1 || m->points > 10000))
			return cli_usage("mem", "--points: %s is not between 1 and 10000",
					      arg);
		return rc;
	}
	rc = cli_parse_choice("mem", "--format", arg, (const char *const[]){ "text", "json",
										 NULL }, &json);
	m->json = json == 1;
	return rc;
}

static const struct option longopts[] = {
	{ "top", required_argument, NULL, 'n' }, { "points", required_argument, NULL, 'p' },
	{ "format", required_argument, NULL, 'f' }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "mem", help, "n:p:f:", longopts, 1, 1, option };

static unsigned size_class(uint64_t size)
{
	return size ? 64u - (unsigned)__builtin_clzll(size) : 0;
}

/* Records the live bytes after an event at ts in its interval of the timeline. */
static void timeline_note(struct cli_mem *m, uint64_t ts)
{
	uint64_t i = ts > m->t0 ? (ts - m->t0) / m->width : 0;
	struct cli_mem_point *p = &m->timeline[i < m->points ? i : m->points - 1];

	p->max = p->seen && p->max > m->live.bytes ? p->max : m->live.bytes;
	p->last = m->live.bytes;
	p->seen = true;
}

static int on_alloc(struct cli_mem *m, const struct ggmlviz_event *ev, uint64_t pid)
{
	struct cli_alloc a = { pid, ev->data.memory.ptr, ev->data.memory.size,
				    ev->timestamp_ns, ev->offset, ev->label, ev->label_len };
	unsigned c = size_class(a.size);

	if (cli_live_alloc(&m->live, &a) < 0)
		return -ENOMEM;
	m->allocs++;
	m->alloc_bytes += a.size;
	m->class_count[c]++;
	m->class_bytes[c] += a.size;
	cli_top_offer(&m->largest, &a);
	if (m->live.bytes > m->peak_bytes || m->allocs == 1) {
		m->peak_bytes = m->live.bytes;
		m->peak_count = m->live.count;
		m->peak = a;
	}
	return 0;
}

static void on_free(struct cli_mem *m, const struct ggmlviz_event *ev, uint64_t pid)
{
	uint64_t size;

	if (cli_live_free(&m->live, pid, ev->data.memory.ptr, &size))
		m->frees++, m->freed_bytes += size;
}

static int follow(struct cli_mem *m, struct cli_input *in, uint64_t pid)
{
	struct ggmlviz_event ev;
	int rc = 0;

	while (rc == 0 && cli_input_next(in, &ev) == 1) {
		cli_track_pid(&pid, &ev);
		if (ev.type == GGMLVIZ_EVENT_TENSOR_ALLOC)
			rc = on_alloc(m, &ev, pid);
		else if (ev.type == GGMLVIZ_EVENT_TENSOR_FREE)
			on_free(m, &ev, pid);
		else
			continue;
		timeline_note(m, ev.timestamp_ns);
	}
	return rc;
}

static void still_live(struct cli_mem *m)
{
	const struct cli_alloc *a;
	size_t cursor = 0;

	m->end_bytes = m->live.bytes;
	m->end_count = m->live.count;
	while ((a = cli_live_next(&m->live, &cursor)))
		cli_top_offer(&m->still, a);
	cli_top_sort(&m->still);
	cli_top_sort(&m->largest);
}

static int setup(struct cli_mem *m, const struct mem_opts *opts,
		 const struct cli_scan *scan)
{
	uint64_t span = scan->t_max - scan->t_min;

	m->t0 = scan->t_min;
	m->t_end = scan->t_max;
	m->points = (size_t)opts->points;
	m->width = span / opts->points + 1; /* so (t - t0) / width < points */
	m->timeline = calloc(m->points, sizeof *m->timeline);
	if (!m->timeline || cli_top_init(&m->largest, (size_t)opts->top) < 0 ||
	    cli_top_init(&m->still, (size_t)opts->top) < 0)
		return -ENOMEM;
	return 0;
}

static void mem_release(struct cli_mem *m)
{
	cli_live_release(&m->live);
	cli_top_release(&m->largest);
	cli_top_release(&m->still);
	free(m->timeline);
}

int cli_cmd_mem(struct cli *cli, int argc, char **argv)
{
	struct mem_opts opts = { 10, 20, false };
	struct cli_mem m;
	struct cli_scan scan;
	struct cli_input in;
	struct cli_out o;
	int first, rc, status = cli_parse(&cmd, argc, argv, &opts, &first);

	if (status >= 0)
		return status;
	if (cli_input_open(&in, "mem", argv[first]) < 0)
		return CLI_EXIT_DAMAGED;
	memset(&m, 0, sizeof m);
	m.path = argv[first];
	cli_scan(&in, &scan, &cli->names);
	rc = setup(&m, &opts, &scan);
	if (rc == 0)
		rc = follow(&m, &in, scan.first_pid);
	still_live(&m);
	status = cli_input_report(&in);
	if (rc < 0)
		cli_error("%s: %s", m.path, ggmlviz_strerror(rc));
	else if (cli_out_open(&o, "mem", NULL) == 0) {
		(opts.json ? cli_mem_print_json : cli_mem_print_text)(&o, &m);
		status = cli_out_close(&o, "mem") ? CLI_EXIT_DAMAGED : status;
	}
	cli_input_close(&in);
	mem_release(&m);
	return rc < 0 ? CLI_EXIT_DAMAGED : status;
}
