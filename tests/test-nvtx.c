/*
 * NVTX ranges for Nsight users (GGML_VIZ_NVTX, lib/tracer/producer/nvtx.c)
 * against a stand-in NVTX tool (tests/nvtx-standin.c): NVTX's loader,
 * inlined in libggmlviz, loads it from NVTX_INJECTION64_PATH as it loads
 * Nsight Systems' own, and it writes each range it receives to a file,
 * with the path of the ranges open around it. Each test runs in a child
 * of its own (Check's fork mode): NVTX looks for a tool once a process.
 *
 * The ranges are compared whole, in order: steps, graphs and runs at level
 * 1; at level 2 the ops, where the ticks show them compute, inside a range
 * for their layer (the first op of a run from its last ask where the run
 * is known, a kept graph id's); the ops of ggmlviz_op_begin() (sync mode,
 * and programs that record their own); registered names used where they
 * recur; nothing loaded or called at level 0; no tool, or a tool that does
 * not load, said and traced on; a session stopped inside a step; threads.
 *
 * Without NVTX3's headers at configure time the stand-in is not built and
 * the test is skipped (test-env checks the warning such a build gives).
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "trace-util.h"

#define MAX_LINES 16384

static char standin[512], trace[256], out[256];
static char *lines[MAX_LINES];
static int n_lines;

/* ---- a CPU backend's run, as the GGML adapter hands it over ---- */

struct node {
	uint32_t op;
	const char *op_name, *name;
	int32_t layer;
	uint32_t ticks, fused; /* fused: with the next node, which then gives no tick */
};

static const struct node nodes[] = {
	{ 13, "GET_ROWS", "inp_embd", -1, 1, 0 },
	{ 34, "VIEW", "inp_embd (view)", -1, 0, 0 },
	{ 24, "RMS_NORM", "norm-0", 0, 1, 1 },
	{ 7, "MUL", "attn_norm-0", 0, 0, 0 },
	{ 29, "MUL_MAT", "Qcur-0", 0, 1, 0 },
	{ 29, "MUL_MAT", "Qcur-1", 1, 1, 0 },
	{ 2, "ADD", "l_out-1", 1, 1, 0 },
	{ 29, "MUL_MAT", "result_output", -1, 1, 0 },
};
#define N_NODES (sizeof nodes / sizeof nodes[0])

static char cpu; /* its address names the backend */

static void describe(void *user, const void *const *ns, size_t n, size_t i,
		     struct ggmlviz_node_desc *d)
{
	const struct node *nd = ns[i];

	(void)user, (void)n;
	d->ticks = nd->ticks;
	if (!nd->ticks)
		return;
	d->op_type = nd->op;
	d->op_name = nd->op_name;
	d->name = nd->name;
	d->layer = nd->layer;
	if (nd->fused) {
		const struct node *b = ns[i + 1];
		d->flags = GGMLVIZ_NODE_FUSED;
		d->op_type2 = b->op;
		d->op_name2 = b->op_name;
		d->name2 = b->name;
	}
}

/* One run: every node asked, then a tick after each computing node, as GGML's CPU backend. */
static void cpu_run(uint64_t graph_id)
{
	if (graph_id)
		ggmlviz_nodes_graph_id(graph_id);
	for (size_t i = 0; i < N_NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&nodes[i], &cpu, describe, NULL), 0);
	for (size_t i = 0; i < N_NODES; i++)
		if (nodes[i].ticks)
			ggmlviz_nodes_tick();
	ggmlviz_nodes_flush();
}

/* The same in sync mode: each computing node timed by the adapter, begin to end. */
static void sync_run(void)
{
	for (size_t i = 0; i < N_NODES; i++) {
		ck_assert_int_eq(ggmlviz_nodes_ask(&nodes[i], &cpu, describe, NULL), 0);
		if (!nodes[i].ticks)
			continue;
		ggmlviz_op_begin(&nodes[i], nodes[i].op, 64, &cpu, nodes[i].name);
		ggmlviz_op_end(&nodes[i], nodes[i].op, 64, &cpu, nodes[i].name);
	}
	ggmlviz_nodes_flush();
}

static void step(uint64_t graph_id, int sync)
{
	static char ctx;

	ggmlviz_step_begin(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	if (sync)
		sync_run();
	else
		cpu_run(graph_id);
	ggmlviz_step_end(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
}

/* ---- the stand-in tool, and what it wrote ---- */

static void attach_standin(void)
{
	setenv("NVTX_INJECTION64_PATH", standin, 1);
	setenv("NVTX_STANDIN_OUT", out, 1);
	unlink(out);
}

static char said[4096]; /* the messages of a session started with log = capture */

static void capture(void *user, int level, const char *msg)
{
	(void)user;
	snprintf(said + strlen(said), sizeof said - strlen(said), "%d %s\n", level, msg);
}

/* A session at NVTX level; its messages to log (verbose), or unasked to stderr (NULL). */
static int start_with(uint32_t level, int timing, ggmlviz_log_fn log)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, trace);
	cfg.nvtx = level;
	cfg.op_timing = timing;
	cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_OFF;
	cfg.crash_handler = 0;
	cfg.log_fn = log;
	cfg.verbose = log != NULL;
	said[0] = '\0';
	return ggmlviz_start(&cfg);
}

static int start(uint32_t level, int timing)
{
	return start_with(level, timing, NULL);
}

/* The stand-in attached, a session at level, its CPU backend named. */
static void begin(uint32_t level, int timing)
{
	attach_standin();
	ck_assert_int_eq(start(level, timing), 0);
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
}

static void load(void)
{
	FILE *f = fopen(out, "r");
	char buf[4096];

	for (int i = 0; i < n_lines; i++)
		free(lines[i]);
	n_lines = 0;
	if (!f)
		return;
	while (n_lines < MAX_LINES && fgets(buf, sizeof buf, f)) {
		buf[strcspn(buf, "\n")] = '\0';
		lines[n_lines++] = strdup(buf);
	}
	fclose(f);
}

/* Field k (0-based, tab-separated) of line: copied into buf. */
static const char *field(const char *line, int k, char *buf, size_t size)
{
	const char *p = line;
	size_t n;

	for (int i = 0; i < k && p; i++)
		if ((p = strchr(p, '\t')))
			p++;
	if (!p)
		return "";
	n = strcspn(p, "\t");
	if (n >= size)
		n = size - 1;
	memcpy(buf, p, n);
	buf[n] = '\0';
	return buf;
}

/*
 * The ranges pushed by thread tid (0: any), "depth path" a line, each
 * after the first separated by a newline; r: with "r " before a
 * registered message's.
 */
static void pushes(long tid, int with_r, char *buf, size_t size)
{
	size_t len = 0;
	char f[2048], t[32], d[16], r[4];

	buf[0] = '\0';
	for (int i = 0; i < n_lines; i++) {
		if (lines[i][0] != '+' || (tid && atol(field(lines[i], 1, t, sizeof t)) != tid))
			continue;
		ck_assert_str_eq(field(lines[i], 3, f, sizeof f), "libggmlviz");
		len += (size_t)snprintf(buf + len, size - len, "%s%s %s%s", len ? "\n" : "",
					field(lines[i], 2, d, sizeof d),
					with_r && !strcmp(field(lines[i], 5, r, sizeof r), "r") ? "r " : "",
					field(lines[i], 7, f, sizeof f));
		ck_assert_uint_lt(len, size);
	}
}

static int count(char kind)
{
	int n = 0;

	for (int i = 0; i < n_lines; i++)
		n += lines[i][0] == kind;
	return n;
}

/* Every range pushed was popped, on its thread, and nothing else was asked. */
static void balanced(void)
{
	ck_assert_int_eq(count('!'), 0);
	ck_assert_int_eq(count('+'), count('-'));
	for (int i = 0; i < n_lines; i++) {
		char t[32];
		long tid;
		int depth = 0;

		if (lines[i][0] != '+')
			continue;
		tid = atol(field(lines[i], 1, t, sizeof t));
		for (int j = 0; j < n_lines; j++) {
			if ((lines[j][0] != '+' && lines[j][0] != '-') ||
			    atol(field(lines[j], 1, t, sizeof t)) != tid)
				continue;
			depth += lines[j][0] == '+' ? 1 : -1;
			ck_assert_int_ge(depth, 0);
		}
		ck_assert_int_eq(depth, 0);
	}
}

static int has(const char *line)
{
	for (int i = 0; i < n_lines; i++)
		if (!strcmp(lines[i], line))
			return 1;
	return 0;
}

#define STEP "decode 1 token (generation)"
#define RUN STEP " > CPU"
#define OPS0 RUN " > layer 0"
#define OPS1 RUN " > layer 1"

/* The ranges of a CPU run's ops whose first op has no range (ticks start after it). */
#define TICKED_OPS \
	"3 " OPS0 "\n" \
	"4 " OPS0 " > RMS_NORM+MUL norm-0 + attn_norm-0\n" \
	"4 " OPS0 " > MUL_MAT Qcur-0\n" \
	"3 " OPS1 "\n" \
	"4 " OPS1 " > MUL_MAT Qcur-1\n" \
	"4 " OPS1 " > ADD l_out-1\n" \
	"3 " RUN " > MUL_MAT result_output"

/* ---- the tests ---- */

/* Level 1: a step and its run, named; the categories and the domain said once. */
START_TEST(steps_and_runs)
{
	char got[8192];

	begin(1, GGMLVIZ_OP_TIMING_AUTO);
	step(0, 0);
	step(0, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 1, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 r " RUN "\n1 " STEP "\n2 r " RUN);
	ck_assert(has("D\tlibggmlviz"));
	ck_assert(has("C\tlibggmlviz\t1\tstep") && has("C\tlibggmlviz\t5\top"));
	ck_assert(has("R\tlibggmlviz\tCPU"));
	ck_assert_int_eq(count('D'), 1);
	ck_assert_int_eq(count('R'), 1); /* the backend's name, once */
	balanced();
}
END_TEST

/* Level 2 on ticks: each op from the tick before it, inside its layer; the first op has none. */
START_TEST(ops_from_ticks_in_layers)
{
	char got[8192];

	begin(2, GGMLVIZ_OP_TIMING_AUTO);
	step(0, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 " RUN "\n" TICKED_OPS);
	balanced();
}
END_TEST

/*
 * A run whose graph id was kept: known before it computes, its first op
 * has a range from its last ask, and its ops' names are registered once
 * (the first run, not kept yet, is as without an id).
 */
START_TEST(kept_runs_have_every_op_and_registered_names)
{
	char got[16384], want[16384];
	int op_names = 0;

	begin(2, GGMLVIZ_OP_TIMING_AUTO);
	for (int i = 0; i < 3; i++)
		step(42, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 1, got, sizeof got);
#define KEPT_RUN \
	"1 " STEP "\n2 r " RUN "\n" \
	"3 r " RUN " > GET_ROWS inp_embd\n" \
	"3 r " OPS0 "\n" \
	"4 r " OPS0 " > RMS_NORM+MUL norm-0 + attn_norm-0\n" \
	"4 r " OPS0 " > MUL_MAT Qcur-0\n" \
	"3 r " OPS1 "\n" \
	"4 r " OPS1 " > MUL_MAT Qcur-1\n" \
	"4 r " OPS1 " > ADD l_out-1\n" \
	"3 r " RUN " > MUL_MAT result_output"
	snprintf(want, sizeof want,
		 "1 " STEP "\n2 r " RUN "\n"
		 "3 r " OPS0 "\n"
		 "4 " OPS0 " > RMS_NORM+MUL norm-0 + attn_norm-0\n"
		 "4 " OPS0 " > MUL_MAT Qcur-0\n"
		 "3 r " OPS1 "\n"
		 "4 " OPS1 " > MUL_MAT Qcur-1\n"
		 "4 " OPS1 " > ADD l_out-1\n"
		 "3 " RUN " > MUL_MAT result_output\n%s\n%s", KEPT_RUN, KEPT_RUN);
	ck_assert_str_eq(got, want);
	for (int i = 0; i < n_lines; i++)
		op_names += lines[i][0] == 'R' && !strstr(lines[i], "\tlayer ") &&
			    strcmp(lines[i], "R\tlibggmlviz\tCPU");
	ck_assert_int_eq(op_names, 6); /* each op of the kept run, once */
	ck_assert(has("R\tlibggmlviz\tlayer 0") && has("R\tlibggmlviz\tlayer 1"));
	ck_assert_int_eq(count('R'), 6 + 2 + 1);
	balanced();
}
END_TEST

/* A GPU's run gives no tick: the run is its range, its ops have none, kept or not. */
START_TEST(gpu_runs_have_no_op_ranges)
{
	static char ctx, cuda0;
	char got[8192];

	attach_standin();
	ck_assert_int_eq(start(2, GGMLVIZ_OP_TIMING_AUTO), 0);
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
	for (int k = 0; k < 3; k++) {
		ggmlviz_step_begin(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
		ggmlviz_nodes_graph_id(7);
		for (size_t i = 0; i < N_NODES; i++)
			ggmlviz_nodes_ask(&nodes[i], &cuda0, describe, NULL);
		ggmlviz_nodes_flush();
		ggmlviz_step_end(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 " STEP " > CUDA0\n1 " STEP "\n2 " STEP " > CUDA0\n"
			      "1 " STEP "\n2 " STEP " > CUDA0");
	balanced();
}
END_TEST

/*
 * A run of a kept graph id that goes on past the kept nodes was not that
 * run: the range begun at what looked like its last ask ends at the next
 * ask, and its ops are then as a run not known (the first without one).
 */
START_TEST(run_longer_than_its_kept_one)
{
	static const struct node extra = { 29, "MUL_MAT", "extra-1", 1, 1, 0 };
	static char ctx;
	char got[16384];

	begin(2, GGMLVIZ_OP_TIMING_AUTO);
	step(9, 0);
	ggmlviz_step_begin(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	ggmlviz_nodes_graph_id(9);
	for (size_t i = 0; i < N_NODES; i++)
		ggmlviz_nodes_ask(&nodes[i], &cpu, describe, NULL);
	ggmlviz_nodes_ask(&extra, &cpu, describe, NULL);
	for (size_t i = 0; i < N_NODES; i++)
		if (nodes[i].ticks)
			ggmlviz_nodes_tick();
	ggmlviz_nodes_tick();
	ggmlviz_nodes_flush();
	ggmlviz_step_end(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	balanced();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 " RUN "\n" TICKED_OPS "\n"
			      "1 " STEP "\n2 " RUN "\n"
			      "3 " RUN " > GET_ROWS inp_embd\n" /* ended at the extra ask */
			      TICKED_OPS "\n"
			      "3 " OPS1 "\n"
			      "4 " OPS1 " > MUL_MAT extra-1");
}
END_TEST

/* Sync mode: ggmlviz_op_begin() and _end() are each op's range, its first included. */
START_TEST(sync_mode_ops_from_op_begin)
{
	char got[8192];

	begin(2, GGMLVIZ_OP_TIMING_SYNC);
	for (size_t i = 0; i < N_NODES; i++)
		ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, nodes[i].op, nodes[i].op_name);
	step(0, 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 " RUN "\n"
			      "3 " RUN " > GET_ROWS inp_embd\n"
			      "3 " OPS0 "\n"
			      "4 " OPS0 " > RMS_NORM norm-0\n"
			      "4 " OPS0 " > MUL_MAT Qcur-0\n"
			      "3 " OPS1 "\n"
			      "4 " OPS1 " > MUL_MAT Qcur-1\n"
			      "4 " OPS1 " > ADD l_out-1\n"
			      "3 " RUN " > MUL_MAT result_output");
	balanced();
}
END_TEST

/* A program's own ops under its graphs (examples/threads.c), named by its META OP_NAME. */
START_TEST(own_ops_under_graphs)
{
	char got[8192];
	static char g, t;

	attach_standin();
	ck_assert_int_eq(start(2, GGMLVIZ_OP_TIMING_AUTO), 0);
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, 26, 0, 0, "MUL_MAT");
	ggmlviz_graph_begin(&g, 3, 1, NULL);
	ggmlviz_op_begin(&t, 26, 64, NULL, "Qcur-0");
	ggmlviz_op_end(&t, 26, 64, NULL, "Qcur-0");
	ggmlviz_op_begin(&t, 40, 64, NULL, "kq_soft_max-1");
	ggmlviz_op_end(&t, 40, 64, NULL, "kq_soft_max-1");
	ggmlviz_op_begin(&t, 26, 64, NULL, NULL);
	ggmlviz_op_end(&t, 26, 64, NULL, NULL);
	ggmlviz_graph_end(&g, 3, 1, NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 graph (3 nodes)\n"
			      "2 graph (3 nodes) > layer 0\n"
			      "3 graph (3 nodes) > layer 0 > MUL_MAT Qcur-0\n"
			      "2 graph (3 nodes) > layer 1\n"
			      "3 graph (3 nodes) > layer 1 > op 40 kq_soft_max-1\n"
			      "2 graph (3 nodes) > MUL_MAT");
	balanced();
}
END_TEST

/* Level 0, the default, with a tool attached: NVTX is never called, the tool never loaded. */
START_TEST(level_0_calls_nothing)
{
	struct tu_summary s;

	begin(0, GGMLVIZ_OP_TIMING_AUTO);
	step(42, 0);
	step(42, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_ptr_null(dlopen(standin, RTLD_NOW | RTLD_NOLOAD));
	ck_assert_int_eq(access(out, F_OK), -1);
	ck_assert_int_eq(tu_summarize(trace, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_STEP_BEGIN], 2);
}
END_TEST

static int start_said(uint32_t level)
{
	return start_with(level, GGMLVIZ_OP_TIMING_AUTO, capture);
}

/*
 * Records by type and META kind, but META USAGE: the writer adds one a
 * flush interval (5 ms here), as many as a session lasts, which a loaded
 * machine (or a sanitizer) draws out.
 */
static void same_records_but_usage(struct tu_summary *a, struct tu_summary *b)
{
	a->by_type[GGMLVIZ_EVENT_META] = b->by_type[GGMLVIZ_EVENT_META] = 0;
	a->by_meta[GGMLVIZ_META_USAGE] = b->by_meta[GGMLVIZ_META_USAGE] = 0;
	ck_assert_int_eq(memcmp(a->by_type, b->by_type, sizeof a->by_type), 0);
	ck_assert_int_eq(memcmp(a->by_meta, b->by_meta, sizeof a->by_meta), 0);
}

/*
 * No tool: said when verbose, and the trace is the same as without
 * ranges. The session with ranges lasts two flush intervals longer, as a
 * slow machine may make it: it has a META USAGE record more, and no other
 * record more or less (counting USAGE, the test failed under ASan and
 * TSan now and then).
 */
START_TEST(no_tool_traces_the_same)
{
	struct tu_summary with, without;

	unsetenv("NVTX_INJECTION64_PATH");
	ck_assert_int_eq(start_said(0), 0);
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	step(42, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(trace, &without), 0);
	ck_assert_int_eq(start_said(2), 0);
	ck_assert_msg(strstr(said, "2 nvtx=2 (GGML_VIZ_NVTX): no NVTX tool is attached"), "%s", said);
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	usleep(12000); /* a pass drains the step more than a flush interval after */
	step(42, 0);   /* the last META USAGE, and adds one */
	usleep(12000);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(trace, &with), 0);
	ck_assert_uint_eq(with.events, without.events);
	same_records_but_usage(&with, &without);
}
END_TEST

/* A tool that does not load: a warning names it, and tracing goes on. */
START_TEST(tool_that_does_not_load_is_said)
{
	struct tu_summary s;

	setenv("NVTX_INJECTION64_PATH", "/nonexistent/libnvtx-tool.so", 1);
	ck_assert_int_eq(start_said(1), 0);
	ck_assert_msg(strstr(said, "1 nvtx=1 (GGML_VIZ_NVTX): NVTX_INJECTION64_PATH="
			      "\"/nonexistent/libnvtx-tool.so\" attached no tool"), "%s", said);
	step(0, 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(trace, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_STEP_END], 1);
}
END_TEST

/* A session stopped inside a step: its ranges end with the step, the next session's nest anew. */
START_TEST(stopped_inside_a_step)
{
	static char ctx;
	char got[8192];

	begin(2, GGMLVIZ_OP_TIMING_AUTO);
	ggmlviz_step_begin(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	for (size_t i = 0; i < N_NODES; i++)
		ggmlviz_nodes_ask(&nodes[i], &cpu, describe, NULL);
	ggmlviz_nodes_tick();
	ggmlviz_nodes_tick(); /* inside "MUL_MAT Qcur-0", in layer 0, in the run */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_step_end(&ctx, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	load();
	balanced();
	ck_assert_int_eq(start(2, GGMLVIZ_OP_TIMING_AUTO), 0);
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	step(0, 0); /* its first ask ends the run of the last session */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	balanced();
	pushes(0, 0, got, sizeof got);
	ck_assert_str_eq(got, "1 " STEP "\n2 " RUN "\n"
			      "3 " OPS0 "\n"
			      "4 " OPS0 " > RMS_NORM+MUL norm-0 + attn_norm-0\n"
			      "4 " OPS0 " > MUL_MAT Qcur-0\n"
			      "1 " STEP "\n2 " RUN "\n" TICKED_OPS);
}
END_TEST

/* Threads: each thread's ranges nest on their own, as one thread's. */
static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 50; i++)
		step(0, 0);
	return (void *)(uintptr_t)tu_gettid();
}

START_TEST(threads_nest_apart)
{
	pthread_t th[4];
	long tids[4];
	char got[65536], want[65536];
	size_t len = 0;

	begin(2, GGMLVIZ_OP_TIMING_AUTO);
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker, NULL), 0);
	for (int i = 0; i < 4; i++) {
		void *tid;
		pthread_join(th[i], &tid);
		tids[i] = (long)(uintptr_t)tid;
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	load();
	balanced();
	want[0] = '\0';
	for (int i = 0; i < 50; i++)
		len += (size_t)snprintf(want + len, sizeof want - len, "%s1 " STEP "\n2 " RUN "\n"
					TICKED_OPS, i ? "\n" : "");
	for (int i = 0; i < 4; i++) {
		pushes(tids[i], 0, got, sizeof got);
		ck_assert_str_eq(got, want);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("NVTX ranges");
	TCase *c = tcase_create("stand-in tool");

	tcase_set_timeout(c, 120);
	tcase_add_test(c, steps_and_runs);
	tcase_add_test(c, ops_from_ticks_in_layers);
	tcase_add_test(c, kept_runs_have_every_op_and_registered_names);
	tcase_add_test(c, gpu_runs_have_no_op_ranges);
	tcase_add_test(c, run_longer_than_its_kept_one);
	tcase_add_test(c, sync_mode_ops_from_op_begin);
	tcase_add_test(c, own_ops_under_graphs);
	tcase_add_test(c, level_0_calls_nothing);
	tcase_add_test(c, no_tool_traces_the_same);
	tcase_add_test(c, tool_that_does_not_load_is_said);
	tcase_add_test(c, stopped_inside_a_step);
	tcase_add_test(c, threads_nest_apart);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char dir[384];

	if (!HAVE_NVTX) {
		printf("1..0 # SKIP this libggmlviz was built without NVTX3's headers (configure looks "
		       "in /usr/local/cuda/include/nvtx3, or --with-nvtx=DIR)\n");
		return 0;
	}
	if (!getcwd(dir, sizeof dir))
		return 99;
	/* absolute: NVTX's loader dlopens it as given */
	snprintf(standin, sizeof standin, "%s/%s/tests/libnvtx-standin.so", dir, top ? top : ".");
	tu_path(trace, sizeof trace, "nvtx");
	tu_path(out, sizeof out, "nvtx-ranges");
	return run_suite(make_suite());
}
