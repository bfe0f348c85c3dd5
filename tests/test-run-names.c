/*
 * Runs named by their describer (ggmlviz_nodes_graph_id() called while
 * the run's first node is described: the GGML adapter's way with a GGML
 * that gives no graph ids, <ggmlviz/ggml-name.h>):
 *   - a name given again: the run's descriptions are kept at its second
 *     run, and a later run of that name and nodes is described at its
 *     first node only, recorded as the kept one (DESC_SET REPEAT);
 *   - a name never given again: every run described, none kept;
 *   - GGML's own id wins: no name is asked for then; a name is the run's
 *     only: the thread's next run keeps the id (and the split's backend)
 *     that was set for it, before or after;
 *   - ggmlviz_nodes_naming() says 1 at a first node that can be named, 2
 *     once its name was given and kept, 0 elsewhere;
 *   - a name is seen among the thread's last 8 named runs (a ring of the
 *     runs, not of new names);
 *   - GGML_VIZ_DESCRIBE_ONCE=0, sync mode: no name asked for, every run
 *     described;
 *   - a describer that names a run where no name is asked for leaves the
 *     thread's next run as it was.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"

#define NODES 4
#define MAX_SETS 16

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 6, "ADD", "ffn_inp-1", 1 },
};
static char cpu_backend, gpu_backend, user;
static int described;     /* nodes described since the test began */
static uint64_t name_now; /* what the describer names the run's first node with (0: nothing) */
static int naming_said[2]; /* ggmlviz_nodes_naming() at the last node 0: before and after naming */
static int naming_later;   /* the most it said at a later node */
static int name_anyway;    /* the describer gives name_now even where no name is asked for */

/* As the GGML adapter does: a name where one can be taken, nothing more where it was kept. */
static void naming_describe(void *u, const void *const *nodes, size_t n, size_t i,
			    struct ggmlviz_node_desc *out)
{
	described++;
	if (i == 0) {
		naming_said[0] = naming_said[1] = ggmlviz_nodes_naming();
		if (name_now && !naming_said[0] && name_anyway)
			ggmlviz_nodes_graph_id(name_now); /* a describer that does not ask */
		if (name_now && naming_said[0]) {
			ggmlviz_nodes_graph_id(name_now);
			naming_said[1] = ggmlviz_nodes_naming();
			if (naming_said[1] == 2)
				return;
		}
	} else if (ggmlviz_nodes_naming() > naming_later) {
		naming_later = ggmlviz_nodes_naming();
	}
	gs_describe(u, nodes, n, i, out);
	out->ticks = 1; /* a CPU node: one tick each */
}

/* One CPU run of the graph's nodes, named by the describer as name (0: not), GGML's id id. */
static void cpu_run(uint64_t id, uint64_t name)
{
	name_now = name;
	if (id)
		ggmlviz_nodes_graph_id(id);
	for (size_t i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, naming_describe, &user), 0);
	for (size_t i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

struct sets {
	uint8_t mode[MAX_SETS];
	uint64_t graph_id[MAX_SETS];
	size_t n, ops;
};

static int note(const struct ggmlviz_event *ev, void *arg)
{
	struct sets *s = arg;

	if (ev->type == GGMLVIZ_EVENT_DESC_SET && s->n < MAX_SETS) {
		s->mode[s->n] = ev->data.desc_set.mode;
		s->graph_id[s->n++] = ev->data.desc_set.graph_id;
	}
	return 0;
}

static void count_op(const struct ggmlviz_timing *t, void *arg)
{
	struct sets *s = arg;

	if (t->kind == GGMLVIZ_TIMING_OP) {
		ck_assert_msg(t->label_len > 0, "an op without its description");
		s->ops++;
	}
}

static void start_with(const char *tag, char *path, size_t size, int describe_every, int op_timing)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	cfg.describe_every = (uint32_t)describe_every;
	cfg.op_timing = op_timing;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	described = naming_later = name_anyway = 0;
}

static void start(const char *tag, char *path, size_t size)
{
	start_with(tag, path, size, 0, GGMLVIZ_OP_TIMING_AUTO);
}

static void stop_and_read(const char *path, struct sets *s)
{
	ck_assert_int_eq(ggmlviz_stop(), 0);
	memset(s, 0, sizeof *s);
	ck_assert_int_eq(tu_each(path, note, s), 0);
	ck_assert_int_eq(tu_each_timing(path, count_op, s), 0);
	unlink(path);
}

START_TEST(a_name_given_again_is_described_once)
{
	char path[256];
	struct sets s;

	start("names-again", path, sizeof path);
	ck_assert_int_eq(ggmlviz_nodes_naming(), 0); /* outside a describe function */
	cpu_run(0, 42);
	ck_assert_int_eq(described, NODES); /* a name seen once: described */
	ck_assert_int_eq(naming_said[0], 1);
	ck_assert_int_eq(naming_said[1], 1);
	cpu_run(0, 42);
	ck_assert_int_eq(described, 2 * NODES); /* seen before: described, and kept */
	ck_assert_int_eq(naming_said[1], 1);
	cpu_run(0, 42);
	ck_assert_int_eq(naming_said[1], 2); /* kept: the describer may stop there */
	cpu_run(0, 42);
	ck_assert_int_eq(described, 2 * NODES + 2); /* the first node only: it names the run */
	ck_assert_int_eq(naming_later, 0); /* only a first node may name its run */
	ck_assert_int_eq(ggmlviz_nodes_naming(), 0);
	stop_and_read(path, &s);
	ck_assert_uint_eq(s.ops, 4 * NODES);
	ck_assert_uint_eq(s.n, 3);
	ck_assert_uint_eq(s.mode[0], GGMLVIZ_DESC_SET_DEFINE);
	ck_assert_uint_eq(s.mode[1], GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(s.mode[2], GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(s.graph_id[0], 42);
}
END_TEST

START_TEST(a_name_never_given_again_is_not_kept)
{
	char path[256];
	struct sets s;

	start("names-new", path, sizeof path);
	for (uint64_t k = 0; k < 12; k++)
		cpu_run(0, 100 + k);
	ck_assert_int_eq(described, 12 * NODES);
	stop_and_read(path, &s);
	ck_assert_uint_eq(s.ops, 12 * NODES);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

START_TEST(ggml_s_id_wins_and_a_name_is_its_run_s_only)
{
	char path[256];
	struct sets s;

	start("names-id", path, sizeof path);
	cpu_run(7, 99); /* described, kept by GGML's 7: no name asked for */
	ck_assert_int_eq(naming_said[0], 0);
	cpu_run(0, 0);  /* no id, no name */
	cpu_run(7, 99); /* kept by 7: not described */
	ck_assert_int_eq(described, 2 * NODES);
	cpu_run(0, 99);
	cpu_run(0, 99); /* 99 seen before: kept now, from its own description */
	ck_assert_int_eq(described, 4 * NODES);
	/* a run closed by the next split's first ask: the split's id and backend stay */
	name_now = 55;
	for (size_t i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, naming_describe, &user), 0);
	ggmlviz_nodes_split(7, &gpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask(&graph[0], &cpu_backend, naming_describe, &user), 0);
	ck_assert_ptr_eq(ggmlviz_nodes_split_backend(), &gpu_backend);
	for (size_t i = 1; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, naming_describe, &user), 0);
	for (size_t i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(described, 5 * NODES); /* the closed run; the split's was kept by 7 */
	stop_and_read(path, &s);
	ck_assert_uint_eq(s.ops, 6 * NODES); /* the run closed by the split gave no ticks */
	for (size_t i = 0; i < s.n; i++)
		ck_assert_msg(s.graph_id[i] == 7 || s.graph_id[i] == 99, "a set of graph %llu",
			      (unsigned long long)s.graph_id[i]);
}
END_TEST

/* A name is seen among the thread's last 8 named runs, each of them, not its last 8 new names. */
START_TEST(a_name_is_seen_among_the_last_named_runs)
{
	char path[256];

	start("names-ring", path, sizeof path);
	cpu_run(0, 1);
	for (int k = 0; k < 9; k++)
		cpu_run(0, 2);
	ck_assert_int_eq(described, 3 * NODES + 7); /* 2 kept at its second run, then taken */
	cpu_run(0, 1); /* the last 8 named runs were all 2's: 1 not seen, described, not kept */
	ck_assert_int_eq(described, 4 * NODES + 7);
	ck_assert_int_eq(naming_said[1], 1);
	cpu_run(0, 1); /* seen now: kept */
	cpu_run(0, 1);
	ck_assert_int_eq(described, 5 * NODES + 8);
	ck_assert_int_eq(naming_said[1], 2);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
}
END_TEST

/* GGML_VIZ_DESCRIBE_ONCE=0 (describe_every): no name asked for, every run described. */
START_TEST(describing_every_run_asks_no_name)
{
	char path[256];
	struct sets s;

	start_with("names-every", path, sizeof path, 1, GGMLVIZ_OP_TIMING_AUTO);
	for (int k = 0; k < 3; k++)
		cpu_run(0, 42);
	ck_assert_int_eq(described, 3 * NODES);
	ck_assert_int_eq(naming_said[0], 0);
	stop_and_read(path, &s);
	ck_assert_uint_eq(s.ops, 3 * NODES);
	ck_assert_uint_eq(s.n, 0);
}
END_TEST

/* Sync mode (each node timed by the adapter): no name asked for. */
START_TEST(sync_mode_asks_no_name)
{
	char path[256];

	start_with("names-sync", path, sizeof path, 0, GGMLVIZ_OP_TIMING_SYNC);
	cpu_run(0, 42);
	cpu_run(0, 42);
	ck_assert_int_eq(naming_said[0], 0);
	ck_assert_int_eq(described, 2 * NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
}
END_TEST

/* A describer that names a run where none is asked for leaves the thread's next run as it was. */
START_TEST(a_name_not_asked_for_changes_nothing)
{
	char path[256];
	struct sets s;

	start("names-unasked", path, sizeof path);
	name_anyway = 1;
	cpu_run(7, 99); /* GGML's id: no name asked for, 99 given all the same */
	ck_assert_int_eq(naming_said[0], 0);
	cpu_run(0, 0); /* 99 left for it would be its GGML id: kept, a DEFINE of 99 */
	stop_and_read(path, &s);
	ck_assert_uint_eq(s.n, 1);
	ck_assert_uint_eq(s.graph_id[0], 7);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *suite = suite_create("run names");
	TCase *c = tcase_create("run names");

	tcase_add_test(c, a_name_given_again_is_described_once);
	tcase_add_test(c, a_name_never_given_again_is_not_kept);
	tcase_add_test(c, ggml_s_id_wins_and_a_name_is_its_run_s_only);
	tcase_add_test(c, a_name_is_seen_among_the_last_named_runs);
	tcase_add_test(c, describing_every_run_asks_no_name);
	tcase_add_test(c, sync_mode_asks_no_name);
	tcase_add_test(c, a_name_not_asked_for_changes_nothing);
	suite_add_tcase(suite, c);
	return suite;
}

int main(void)
{
	return run_suite(make_suite());
}
