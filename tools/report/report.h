/*
 * ggmlviz report: one self-contained HTML page of a trace (cmd-report.c),
 * its data (report-data.c: lanes, slices, what is too short to draw,
 * memory, names) and its page (report-page.c: the HTML, the embedded
 * style and script, report-assets.c generated from tools/report/).
 *
 * The data is one JSON object inside the page, written as the trace is
 * read: the slices first, streamed, then what only the end knows. Memory
 * stays bounded: at most CLI_REPORT_LANES lanes, CLI_REPORT_STRINGS names,
 * CLI_REPORT_BINS bins per lane; the ops too short to be seen past
 * max_slices are summed into the bins instead of drawn one by one.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_REPORT_H
#define CLI_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "stats/stats.h"
#include "base/htab.h"
#include "base/opts.h"
#include "memory/memory.h"
#include "output/output.h"

#define CLI_REPORT_LANES 256      /* threads drawn; the rest share the last lane */
#define CLI_REPORT_BINS 1000      /* time bins of the density strip and the memory curve */
#define CLI_REPORT_STRINGS 65536  /* distinct names; the rest show as "…" */
#define CLI_REPORT_STRING_MAX 160 /* bytes of a name kept */
#define CLI_REPORT_HOSTS 16       /* processes of GGML's RPC whose lanes are named by their host */
#define CLI_REPORT_RPC_OPEN 64    /* RPC commands open at once (one a connection's thread) */

/* GGML's RPC on the page: each process's host, and the commands open (drawn when they end). */
struct cli_report_rpc {
	struct {
		uint64_t pid;
		uint8_t side;
		char host[80];
	} hosts[CLI_REPORT_HOSTS];
	size_t n_hosts;
	struct {
		uint64_t pid, conn, begin_ns, request_bytes;
		uint32_t tid, seq;
		uint8_t cmd;
	} open[CLI_REPORT_RPC_OPEN];
	size_t n_open;
	uint64_t commands, failed;
};

/* The groupings the page shows, each as `stats --by` computes it. */
enum { CLI_REPORT_BY_OP, CLI_REPORT_BY_LAYER, CLI_REPORT_BY_PHASE, CLI_REPORT_BY_STEP,
       CLI_REPORT_BY_BACKEND, CLI_REPORT_BY_OP_PROMPT, CLI_REPORT_BY_OP_GENERATION,
       CLI_REPORT_BY_LAYER_PROMPT, CLI_REPORT_BY_LAYER_GENERATION, CLI_REPORT_BY_PART,
       CLI_REPORT_BY_PART_PROMPT, CLI_REPORT_BY_PART_GENERATION, CLI_REPORT_BY_COUNT };

struct cli_report {
	struct cli_out *o;
	const struct ggmlviz_reader *r;
	uint64_t t0, t1;        /* the time drawn: earliest and latest timestamp but META's,
				 * or with --steps the first chosen step's begin and the last's end */
	struct cli_window window; /* set with --steps: only what meets [t0, t1] is drawn */
	uint64_t threshold_ns;  /* ops shorter than this are summed into bins, not drawn */
	uint64_t max_slices;
	uint64_t slices, ops_binned;
	uint64_t kernels_hidden; /* GPU kernels too short to draw (their ops' time is binned) */
	uint64_t kernels;        /* GPU kernels read */
	char gpu_note[1536];     /* META GPU's: whether kernels were recorded, or why not (the writer's are under 1280) */
	bool has_gpu_note;
	uint64_t pid;           /* of the records being read (PROCESS records change it) */

	uint64_t lane_key[CLI_REPORT_LANES]; /* pid << 32 | tid */
	size_t n_lanes;
	uint64_t lanes_over;    /* timings of threads past the last lane */
	double *bins;           /* [lane][bin]: ns of binned ops */

	struct cli_htab strings; /* text -> id */
	char **string_list;      /* by id */
	size_t n_strings, strings_cap;

	struct cli_live live;
	uint64_t *mem_bins;      /* the most live bytes seen in each bin */
	uint64_t mem_peak, mem_peak_ts;
	uint64_t mem_before;     /* --steps: live bytes when the window opens */
	bool has_memory;

	struct cli_report_rpc rpc;

	struct cli_agg by[CLI_REPORT_BY_COUNT];
	struct cli_names *names; /* borrowed: the command's */
	int error;               /* -ENOMEM */
};

/*
 * Sets rep up for a trace spanning [t0, t1], writing to o, naming with
 * names and keeping its distributions within *dist_bytes (the command's,
 * struct cli); 0 or -ENOMEM.
 */
int cli_report_init(struct cli_report *rep, struct cli_out *o, struct cli_names *names,
		    uint64_t *dist_bytes, uint64_t t0, uint64_t t1, uint64_t threshold_ns,
		    uint64_t max_slices);
void cli_report_free(struct cli_report *rep);

/* One record of the second pass: the process, memory, GGML's RPC commands. */
void cli_report_record(struct cli_report *rep, const struct ggmlviz_event *ev);
/* One timing: to the groupings, and drawn as a slice or summed into a bin. */
/* Adds a timing, with what the estimate of op times from ticks says of it (a cli_timing_sink); 0. */
int cli_report_timing(void *rep, const struct ggmlviz_timing *t, const struct cli_tick_est *e);

/* What the end knows, as members of the data object: lanes, bins, strings, memory. */
void cli_report_tail(struct cli_report *rep);

/* The id of a name in the page's string table (cut to CLI_REPORT_STRING_MAX bytes). */
uint32_t cli_report_string(struct cli_report *rep, const char *s, size_t len);

/*
 * GGML's RPC (report-rpc.c): a record's part in it; 1 when it ended a
 * command, told in *done, which the page draws as a slice of kind
 * CLI_REPORT_KIND_RPC; a lane's name with its process's host in buf.
 */
#define CLI_REPORT_KIND_RPC 7
struct cli_report_rpc_done {
	uint64_t pid, begin_ns, end_ns, request_bytes, reply_bytes;
	uint32_t tid, seq;
	uint8_t cmd, side, status;
};
int cli_report_rpc_record(struct cli_report_rpc *x, uint64_t pid, const struct ggmlviz_event *ev,
			  struct cli_report_rpc_done *done);
const char *cli_report_lane_name(const struct cli_report_rpc *x, uint64_t pid, const char *thread,
				 char *buf, size_t size);

/* The page around the data (report-page.c). */
void cli_report_page_begin(struct cli_out *o, const char *title);
void cli_report_page_end(struct cli_out *o);

#endif /* CLI_REPORT_H */
