/*
 * ggmlviz merge: the traces of several processes into one GGMLVIZ v1
 * file. Each input is copied record by record (so each thread's order is
 * kept), its first PROCESS record moved to the front of its part, so that
 * every record after a PROCESS record belongs to that process until the
 * next one; the inputs' TRACE_END records are replaced by one at the end.
 *
 * The traces of GGML's RPC servers are aligned with their clients' (tools/
 * rpc/align.c): each server's records are moved by its clock's offset from
 * its clients' clock, a META RPC_CLOCK record at the front of its part
 * says by how much, and its connections take their clients' ids, so that
 * one command is one connection and place on both sides. A server trace
 * that no client trace given matches is refused.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "output/output.h"
#include "input/input.h"
#include "base/opts.h"
#include "export/export.h"
#include "rpc/rpc.h"

/* Linux pids are below 2^22 (PID_MAX_LIMIT): a made-up pid above never collides. */
#define MADE_UP_PID ((uint64_t)1 << 22)

static const char help[] =
	"Usage: ggmlviz merge [OPTIONS] A B... -o OUT\n"
	"\n"
	"Merge the traces of several processes into one GGMLVIZ v1 trace, which every\n"
	"ggmlviz command (and any v1 reader) reads as one run.\n"
	"\n"
	"Each input is copied whole, record by record, so every thread keeps its order.\n"
	"Its first PROCESS record comes first in its part of the output (an input\n"
	"without one gets one, with a made-up pid of 4194304 + its position and its file\n"
	"name): 'ggmlviz export' gives each process its own track. The inputs' TRACE_END\n"
	"records are dropped, and one is written at the end, counting the events written\n"
	"and dropped of all inputs, only when every input was complete.\n"
	"\n"
	"The traces of GGML's RPC servers (ggml-rpc-server built by build-llama-tools.sh\n"
	"--rpc) are aligned with their clients' (the tools run with --rpc): each server\n"
	"connection is tied to the client connection whose commands it served (both\n"
	"number them alike and see the same bytes), the server's clock offset is\n"
	"estimated from the commands' four times, as NTP does, and taken off every\n"
	"record of its part, and a META RPC_CLOCK record says it ('ggmlviz info').\n"
	"A server trace that no client trace given matches is refused, nothing written.\n"
	"\n"
	"Options:\n"
	"  -o, --output OUT   the merged trace (required; not one of the inputs)\n"
	"  -h, --help         show this help\n"
	"\n"
	"A damaged input is copied up to its damage, then merging goes on with the next\n"
	"input; the output then has no TRACE_END.\n"
	"\n"
	"Exit status: 0 success, 1 an input is damaged or unreadable (nothing is written\n"
	"when an input cannot be opened, or an RPC server's trace matches no client's)\n"
	"or a write error, 2 bad command line.\n";

struct merge {
	const char *output;
	const char *steady, *wall; /* an input of each clock, to warn that they differ */
	uint64_t written, dropped, end_ts; /* sums of the inputs' TRACE_END */
	uint32_t end_tid;
	bool complete;
	struct cli_recbuf rb; /* records are encoded here */
	struct cli_rpc_input *rpcs;      /* each input, as GGML's RPC sees it */
	const struct cli_rpc_input *rpc; /* of the input being copied: a server's moves, else NULL */
};

static int option(void *ctx, int c, char *arg)
{
	if (c != 'o')
		return CLI_EXIT_USAGE;
	((struct merge *)ctx)->output = arg;
	return 0;
}

static const struct option longopts[] = { { "output", required_argument, NULL, 'o' },
					  { "help", no_argument, NULL, 'h' },
					  { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "merge", help, "o:", longopts, 1, -1, option };

static bool is_meta(const struct ggmlviz_event *ev, uint32_t kind)
{
	return ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == kind;
}

/* ev as it goes into the output: an RPC server's moved onto its clients' clock, its connections theirs. */
static void write_record(struct merge *m, struct cli_out *o, const struct ggmlviz_event *ev)
{
	struct ggmlviz_event moved;
	const struct cli_rpc_input *ri = m->rpc;

	if (!ri) {
		cli_trace_record(o, &m->rb, ev);
		return;
	}
	moved = *ev;
	moved.timestamp_ns = ev->timestamp_ns - (uint64_t)ri->clock.offset;
	if (ev->type == GGMLVIZ_EVENT_RPC_BEGIN || ev->type == GGMLVIZ_EVENT_RPC_STAGE ||
	    ev->type == GGMLVIZ_EVENT_RPC_END)
		moved.data.rpc.conn = cli_rpc_map_conn(ri, ev->data.rpc.conn);
	else if (is_meta(ev, GGMLVIZ_META_RPC_CONNECTION))
		moved.data.meta.key = cli_rpc_map_conn(ri, ev->data.meta.key);
	cli_trace_record(o, &m->rb, &moved);
}

/* A server's META RPC_CLOCK: how far its clock was from its clients', taken off its records. */
static void write_clock(struct merge *m, struct cli_out *o, const struct cli_input *in,
			const struct ggmlviz_event *first)
{
	const struct cli_rpc_input *ri = m->rpc;
	const struct cli_rpc_proc *client = cli_rpc_proc_of(&m->rpcs[ri->client_input].rpc,
							     ri->client_pid);
	uint64_t kv[3] = { ri->client_pid, (uint64_t)ri->clock.offset, ri->clock.uncertainty };
	char words[256], off[96];
	int n;

	n = snprintf(words, sizeof words, "clock %s from its client's (pid %" PRIu64 "%s%s), taken"
		     " off its records; from %" PRIu64 " commands of both sides, %" PRIu64
		     " with a reply", cli_rpc_fmt_offset(ri->clock.offset, ri->clock.uncertainty, off,
							 sizeof off),
		     ri->client_pid, client && client->name[0] ? ", " : "", client ? client->name : "",
		     ri->clock.pairs, ri->clock.replied);
	(void)in;
	cli_trace_meta(o, &m->rb, first->timestamp_ns - (uint64_t)ri->clock.offset, first->thread_id,
		       GGMLVIZ_META_RPC_CLOCK, kv, words,
		       (uint32_t)(n < 0 ? 0 : n >= (int)sizeof words ? sizeof words - 1 : (size_t)n));
}

/*
 * Writes the first PROCESS record of in (or a made-up one) and returns its
 * offset in the input (0 when made up). Looks for it on a reader of its
 * own, which reads no further than that record.
 */
static uint64_t write_process(struct merge *m, struct cli_out *o, const struct cli_input *in,
			      size_t index)
{
	struct cli_input look;
	struct ggmlviz_event ev, first = { 0 };
	const char *base = strrchr(in->path, '/');
	uint64_t kv[3] = { MADE_UP_PID + index, 0, 0 }, offset = 0;
	bool any = false;

	if (cli_input_start(&look, in->cmd, in->path) == 0) {
		while (!offset && cli_input_next(&look, &ev) == 1) {
			if (is_meta(&ev, GGMLVIZ_META_PROCESS))
				write_record(m, o, &ev), offset = ev.offset;
			first = any ? first : ev;
			any = true;
		}
		cli_input_close(&look);
	}
	if (!offset) {
		base = base ? base + 1 : in->path;
		cli_trace_meta(o, &m->rb, first.timestamp_ns - (m->rpc ? (uint64_t)m->rpc->clock.offset : 0),
			       first.thread_id, GGMLVIZ_META_PROCESS, kv, base, (uint32_t)strlen(base));
	}
	if (m->rpc)
		write_clock(m, o, in, &first);
	return offset;
}

/*
 * Copies every record of in but its TRACE_END records, the PROCESS one
 * written, and a rotated trace's SEGMENT and SEGMENT_END (read in a row,
 * its segments are one trace in the merge: the records that say where
 * one ends would make the merged file look like a segment).
 */
static void copy(struct merge *m, struct cli_out *o, struct cli_input *in,
		 uint64_t process_offset)
{
	struct ggmlviz_event ev;

	bool clocked = false;

	while (cli_input_next(in, &ev) == 1) {
		if (!clocked && ev.type != GGMLVIZ_EVENT_META) {
			clocked = true; /* its clock, from its first record with a meaningful time */
			*(cli_clock_is_steady(ev.timestamp_ns) ? &m->steady : &m->wall) = in->path;
		}
		if (is_meta(&ev, GGMLVIZ_META_TRACE_END)) {
			uint64_t ts = ev.timestamp_ns - (m->rpc ? (uint64_t)m->rpc->clock.offset : 0);
			m->end_ts = ts > m->end_ts ? ts : m->end_ts;
			m->end_tid = ev.thread_id;
			continue;
		}
		if (is_meta(&ev, GGMLVIZ_META_SEGMENT) || is_meta(&ev, GGMLVIZ_META_SEGMENT_END))
			continue;
		if (ev.offset != process_offset)
			write_record(m, o, &ev);
	}
	if (in->ended && !in->error) {
		m->written += in->end_written;
		m->dropped += in->end_dropped;
	} else {
		m->complete = false;
	}
}

static int merge_all(struct merge *m, struct cli_input *ins, int n, struct cli_out *o)
{
	int status = CLI_EXIT_OK;
	uint64_t kv[3];

	cli_trace_header(o);
	m->complete = true;
	for (int i = 0; i < n; i++) {
		m->rpc = m->rpcs[i].server ? &m->rpcs[i] : NULL;
		copy(m, o, &ins[i], write_process(m, o, &ins[i], (size_t)i));
		if (cli_input_report(&ins[i]))
			status = CLI_EXIT_DAMAGED;
		else if (!ins[i].ended)
			cli_error("merge: %s has no TRACE_END at its end (incomplete)",
				       ins[i].path);
	}
	if (m->steady && m->wall)
		cli_error("merge: %s is timed by a steady clock (time since boot) and %s by the wall"
			  " clock: their events do not line up in time in %s (each keeps its own"
			  " times)", m->steady, m->wall, o->path);
	if (m->complete) {
		kv[0] = 0, kv[1] = m->written, kv[2] = m->dropped;
		cli_trace_meta(o, &m->rb, m->end_ts, m->end_tid, GGMLVIZ_META_TRACE_END, kv, NULL,
			       0);
	} else {
		cli_error("merge: %s holds every record read, but no TRACE_END: an input was"
			       " incomplete or damaged", o->path);
	}
	return status;
}

static int check_paths(const struct merge *m, int argc, char **argv, int first)
{
	if (!m->output)
		return cli_usage("merge", "no output: give -o OUT");
	for (int i = first; i < argc; i++)
		if (cli_same_file(argv[i], m->output))
			return cli_usage("merge", "the output %s is the input %s", m->output,
					      argv[i]);
	return -1;
}

int cli_cmd_merge(struct cli *cli, int argc, char **argv)
{
	struct merge m = { 0 };
	struct cli_input *ins;
	struct cli_out o;
	int first, n = 0, status = cli_parse(&cmd, argc, argv, &m, &first);

	(void)cli; /* merge copies records: it names nothing */

	if (status >= 0 || (status = check_paths(&m, argc, argv, first)) >= 0)
		return status;
	ins = calloc((size_t)(argc - first), sizeof *ins);
	m.rpcs = calloc((size_t)(argc - first), sizeof *m.rpcs);
	if (!ins || !m.rpcs) {
		free(ins), free(m.rpcs);
		return CLI_EXIT_DAMAGED;
	}
	while (n < argc - first && cli_input_open(&ins[n], "merge", argv[first + n]) == 0)
		n++;
	status = CLI_EXIT_DAMAGED;
	if (n == argc - first &&
	    cli_rpc_align("merge", m.rpcs, (const char *const *)argv + first, (size_t)n) == 0 &&
	    cli_out_open(&o, "merge", m.output) == 0) {
		status = merge_all(&m, ins, n, &o);
		status = cli_out_close(&o, "merge") ? CLI_EXIT_DAMAGED : status;
	}
	cli_rpc_inputs_free(m.rpcs, (size_t)(argc - first));
	free(m.rpcs);
	while (n--)
		cli_input_close(&ins[n]);
	free(ins);
	cli_recbuf_free(&m.rb);
	return status;
}
