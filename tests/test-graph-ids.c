/*
 * Runs named by their split graph's id (ggmlviz_nodes_graph_id(), as a
 * GGML built with libggmlviz's edit calls it before it asks about a
 * split's nodes): a run of an id recorded before, with the same nodes in
 * the same order and the same describe function and user, is recorded with
 * the descriptions kept from then, not described again; anything else is
 * described, as every run of a GGML without the edit is:
 *   - the same id and nodes three times: described once, recorded three
 *     times the same;
 *   - the same id with other nodes, another order or another user: described;
 *   - no id: described each time; an id is its next run's only;
 *   - two splits a step alternating (a CPU and a GPU run): each described once;
 *     more graphs than are kept: the least used described again;
 *   - an id begins a split: a run still open is ended there;
 *   - a split says its backend (ggmlviz_nodes_split()) until the next
 *     split or a flush;
 *   - a node asked before (ggmlviz_nodes_asked_before()): the same node at
 *     the same place of the same split id, in the same session, only;
 *   - an ask taken alone (ggmlviz_nodes_ask_again()): only a node at its
 *     place in a split's repeat, with the same user, not the run's first,
 *     not after ticks, not where the last run or this one was asked in
 *     full (ggmlviz_nodes_ask_always()), not in sync mode or with
 *     tracing off; what it records is what the full asks record;
 *   - a split's asks after its first taken at once
 *     (ggmlviz_nodes_ask_rest()), as an edited GGML's scheduler gives
 *     them: the nodes that would each be taken alone, up to the first that
 *     would not, recorded as the asks one by one record them; nothing
 *     where the run is not the split's as asked so far (its first ask not
 *     passed on, another place, another user), nor where an ask alone
 *     takes nothing; -EINVAL for a missing array or places out of order;
 *     the run stamped at its last ask, as the asks one by one stamp it;
 *   - a GPU run's times are its own: not its next run's.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"

#define NODES 4
#define MAX_OPS 256

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 6, "ADD", "ffn_inp-1", 1 },
};
static char cpu_backend, gpu_backend, user_a, user_b;
static int described; /* nodes described since the test began */

static void counting_describe(void *user, const void *const *nodes, size_t n, size_t i,
			      struct ggmlviz_node_desc *out)
{
	described++;
	gs_describe(user, nodes, n, i, out);
}

/* One CPU run of nodes (each ticks once), named id (0: none), asked with user. */
static void cpu_run(uint64_t id, const int *order, size_t n, void *user)
{
	if (id)
		ggmlviz_nodes_graph_id(id);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[order[i]], &cpu_backend, counting_describe,
						   user), 0);
	for (size_t i = 0; i < n; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

static const int in_order[NODES] = { 0, 1, 2, 3 }, swapped[NODES] = { 0, 2, 1, 3 };

struct seen {
	struct ggmlviz_timing op[MAX_OPS];
	char label[MAX_OPS][32];
	size_t ops, splits;
};

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	s->splits += t->kind == GGMLVIZ_TIMING_SPLIT;
	if (t->kind != GGMLVIZ_TIMING_OP || s->ops == MAX_OPS)
		return;
	snprintf(s->label[s->ops], sizeof s->label[0], "%.*s", (int)t->label_len,
		 t->label ? t->label : "");
	s->op[s->ops++] = *t;
}

static struct seen *read_back(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	return s;
}

/* Tracing into a fresh file named by tag, op timing as given (sync: the adapter times each node). */
static void start_timing(const char *tag, char *path, size_t size, int op_timing)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	cfg.op_timing = op_timing;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	described = 0;
}

static void start(const char *tag, char *path, size_t size)
{
	start_timing(tag, path, size, GGMLVIZ_OP_TIMING_AUTO);
}

START_TEST(same_graph_described_once)
{
	char path[256];
	struct seen *s;

	start("ids-once", path, sizeof path);
	for (int k = 0; k < 3; k++)
		cpu_run(7, in_order, NODES, &user_a);
	ck_assert_int_eq(described, NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3 * NODES);
	for (size_t k = 0; k < s->ops; k++) { /* every run recorded as the first was */
		const struct gs_node *g = &graph[k % NODES];

		ck_assert_uint_eq(s->op[k].op_type, g->op);
		ck_assert_str_eq(s->label[k], g->name);
		ck_assert_int_eq(s->op[k].layer, g->layer);
		ck_assert_uint_eq(s->op[k].flops, g->op == 3 ? 2u * 512u * 512u : 512u);
		ck_assert_uint_eq(s->op[k].ptr, (uint64_t)(uintptr_t)g);
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_TICK);
	}
	free(s);
	unlink(path);
}
END_TEST

START_TEST(other_nodes_or_user_described_again)
{
	char path[256];
	struct seen *s;

	start("ids-other", path, sizeof path);
	cpu_run(7, in_order, NODES, &user_a);
	cpu_run(7, swapped, NODES, &user_a); /* the same id, another order */
	ck_assert_int_eq(described, 2 * NODES);
	cpu_run(7, swapped, NODES - 1, &user_a); /* fewer nodes */
	ck_assert_int_eq(described, 3 * NODES - 1);
	cpu_run(7, swapped, NODES - 1, &user_b); /* another user */
	ck_assert_int_eq(described, 4 * NODES - 2);
	cpu_run(8, swapped, NODES - 1, &user_b); /* another id */
	ck_assert_int_eq(described, 5 * NODES - 3);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 5 * NODES - 3);
	/* the second run's, described in its own order */
	ck_assert_uint_eq(s->op[NODES + 1].op_type, graph[2].op);
	ck_assert_str_eq(s->label[NODES + 1], graph[2].name);
	free(s);
	unlink(path);
}
END_TEST

START_TEST(no_id_described_each_time)
{
	char path[256];

	start("ids-none", path, sizeof path);
	cpu_run(0, in_order, NODES, &user_a);
	cpu_run(0, in_order, NODES, &user_a);
	ck_assert_int_eq(described, 2 * NODES);
	cpu_run(9, in_order, NODES, &user_a);
	cpu_run(0, in_order, NODES, &user_a); /* the id was the run before's only */
	ck_assert_int_eq(described, 4 * NODES);
	cpu_run(9, in_order, NODES, &user_a); /* kept from the run of id 9 */
	ck_assert_int_eq(described, 4 * NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
}
END_TEST

START_TEST(splits_alternating_and_more_than_kept)
{
	static const int first[2] = { 0, 1 }, second[2] = { 2, 3 };
	char path[256];

	start("ids-alternate", path, sizeof path);
	for (int k = 0; k < 3; k++) { /* a step's two splits, again and again */
		cpu_run(11, first, 2, &user_a);
		cpu_run(12, second, 2, &user_a);
	}
	ck_assert_int_eq(described, 4);
	/* five graphs, one run each, then the first again: four are kept, the least used went */
	for (uint64_t id = 21; id <= 25; id++)
		cpu_run(id, in_order, NODES, &user_a);
	ck_assert_int_eq(described, 4 + 5 * NODES);
	cpu_run(25, in_order, NODES, &user_a);
	ck_assert_int_eq(described, 4 + 5 * NODES);
	cpu_run(21, in_order, NODES, &user_a);
	ck_assert_int_eq(described, 4 + 6 * NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
}
END_TEST

/* GPU runs (no tick) of one backend, one after the other without a flush: an id ends the first. */
START_TEST(an_id_begins_a_split)
{
	char path[256];
	struct seen *s;

	start("ids-split", path, sizeof path);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe, NULL), 0);
	for (int i = 2; i < 4; i++) /* no id: the same run goes on */
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe, NULL), 0);
	ggmlviz_nodes_graph_id(31);
	for (int i = 0; i < 2; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe, NULL), 0);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->splits, 2);
	ck_assert_int_eq(described, NODES + 2);
	free(s);
	unlink(path);
}
END_TEST

/*
 * ggmlviz_nodes_split(): the id as ggmlviz_nodes_graph_id() takes it, and
 * the split's backend said to the eval callback until the next split or
 * a flush (a graph id alone says none).
 */
START_TEST(a_split_says_its_backend)
{
	char path[256];
	struct seen *s;

	start("ids-backend", path, sizeof path);
	ck_assert_ptr_null(ggmlviz_nodes_split_backend());
	ggmlviz_nodes_split(41, &gpu_backend);
	ck_assert_ptr_eq(ggmlviz_nodes_split_backend(), &gpu_backend);
	for (int i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe, NULL), 0);
	ck_assert_ptr_eq(ggmlviz_nodes_split_backend(), &gpu_backend); /* all its asks */
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_ptr_null(ggmlviz_nodes_split_backend());
	ggmlviz_nodes_split(41, &gpu_backend);
	ggmlviz_nodes_graph_id(42);
	ck_assert_ptr_null(ggmlviz_nodes_split_backend());
	ggmlviz_nodes_split(41, &gpu_backend); /* the same id and nodes: described once */
	for (int i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe, NULL), 0);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->splits, 2);
	ck_assert_int_eq(described, NODES);
	free(s);
	unlink(path);
}
END_TEST

/* One run of split id with nodes in order; each ask's ggmlviz_nodes_asked_before() into before[]. */
static void split_run(uint64_t id, const int *order, void *user, int *before)
{
	ggmlviz_nodes_split(id, &cpu_backend);
	for (int i = 0; i < NODES; i++) {
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[order[i]], &cpu_backend, counting_describe,
						   user), 0);
		before[i] = ggmlviz_nodes_asked_before();
	}
	for (int i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

static int all_of(const int *before, int want)
{
	for (int i = 0; i < NODES; i++)
		if (before[i] != want)
			return 0;
	return 1;
}

/*
 * What the GGML adapter's memory tracking skips: a node asked before is
 * the same node at the same place of the same split's last run in this
 * session. Not the first run, not another id (a new allocation), not
 * another order or user, not in the next session, not with tracing off.
 */
START_TEST(a_node_asked_before_is_said)
{
	char path[256], path2[256];
	int before[NODES];

	ck_assert_int_eq(ggmlviz_nodes_asked_before(), 0);
	start("ids-asked", path, sizeof path);
	split_run(51, in_order, &user_a, before);
	ck_assert(all_of(before, 0)); /* the first run */
	split_run(51, in_order, &user_a, before);
	ck_assert(all_of(before, 1));
	split_run(52, in_order, &user_a, before);
	ck_assert(all_of(before, 0)); /* another id: the scheduler allocated again */
	split_run(51, swapped, &user_a, before);
	ck_assert(before[0] == 1 && before[1] == 0 && before[2] == 0 && before[3] == 1);
	split_run(51, in_order, &user_b, before);
	ck_assert(all_of(before, 0)); /* another user */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_nodes_ask(&graph[0], &cpu_backend, counting_describe, &user_b), 0);
	ck_assert_int_eq(ggmlviz_nodes_asked_before(), 0); /* not tracing: not recorded */
	start("ids-asked-2", path2, sizeof path2);
	split_run(51, in_order, &user_b, before);
	ck_assert(all_of(before, 0)); /* a new session: its trace has seen nothing yet */
	split_run(51, in_order, &user_b, before);
	ck_assert(all_of(before, 1));
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
	unlink(path2);
}
END_TEST

/*
 * A run of split id asked as the GGML adapter asks: ggmlviz_nodes_ask_again()
 * first, the full ask where it says 0, and ggmlviz_nodes_ask_always() after
 * the ask of place always_at (-1: none); which asks were taken alone, in
 * again[].
 */
static void split_run_again(uint64_t id, const int *order, void *user, int always_at, int *again)
{
	ggmlviz_nodes_split(id, &cpu_backend);
	for (int i = 0; i < NODES; i++) {
		again[i] = ggmlviz_nodes_ask_again(&graph[order[i]], user);
		ck_assert(again[i] == 0 || again[i] == 1);
		if (!again[i])
			ck_assert_int_eq(ggmlviz_nodes_ask(&graph[order[i]], &cpu_backend,
							   counting_describe, user), 0);
		else
			ck_assert_int_eq(ggmlviz_nodes_asked_before(), 1);
		if (i == always_at)
			ggmlviz_nodes_ask_always();
	}
	for (int i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

/* Whether again[] is "the first ask in full, every other taken alone". */
static int all_but_first(const int *again)
{
	return again[0] == 0 && again[1] == 1 && again[2] == 1 && again[3] == 1;
}

/* The first three runs read back: each the graph's nodes in order, as a run asked in full records them. */
static void three_runs_as_the_first(const struct seen *s)
{
	for (size_t k = 0; k < 3 * NODES; k++) {
		const struct gs_node *g = &graph[k % NODES];

		ck_assert_uint_eq(s->op[k].op_type, g->op);
		ck_assert_str_eq(s->label[k], g->name);
		ck_assert_int_eq(s->op[k].layer, g->layer);
		ck_assert_uint_eq(s->op[k].ptr, (uint64_t)(uintptr_t)g);
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_TICK);
		ck_assert_uint_le(s->op[k].begin_ns, s->op[k].end_ns);
	}
}

/*
 * A split's repeat is asked alone but for its first node: what is
 * recorded is what full asks record (every op, its description kept, its
 * times); and not where it must not be.
 */
START_TEST(a_repeat_is_asked_alone_where_it_can_be)
{
	char path[256];
	int again[NODES];
	struct seen *s;

	ck_assert_int_eq(ggmlviz_nodes_ask_again(&graph[1], &user_a), 0); /* no run */
	start("ids-again", path, sizeof path);
	split_run_again(61, in_order, &user_a, -1, again);
	ck_assert(all_of(again, 0)); /* the first run: nothing kept */
	split_run_again(61, in_order, &user_a, -1, again);
	ck_assert(all_but_first(again));
	split_run_again(61, in_order, &user_a, -1, again);
	ck_assert(all_but_first(again));
	ck_assert_int_eq(described, NODES);
	split_run_again(61, swapped, &user_a, -1, again); /* places 1 and 2 moved */
	ck_assert(again[0] == 0 && again[1] == 0 && again[2] == 0 && again[3] == 1);
	split_run_again(61, in_order, &user_b, -1, again);
	ck_assert(all_of(again, 0)); /* another user: nothing of its own kept */
	split_run_again(62, in_order, &user_a, -1, again);
	ck_assert(all_of(again, 0)); /* another id */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 6 * NODES);
	ck_assert_uint_eq(s->splits, 6);
	three_runs_as_the_first(s); /* the runs asked alone are recorded as the first */
	free(s);
	unlink(path);
}
END_TEST

/*
 * A run whose adapter asked a node in full, and said so, has its next run
 * asked in full (and says it again there, or its next one is asked alone);
 * a run ends at a tick, sync mode and a stop take nothing alone.
 */
START_TEST(a_run_asked_always_is_asked_in_full)
{
	char path[256], path2[256];
	int again[NODES];

	start("ids-always", path, sizeof path);
	split_run_again(71, in_order, &user_a, -1, again);
	split_run_again(71, in_order, &user_a, 2, again);
	/* said at place 2: the rest of this run and all of its next one in full */
	ck_assert(again[0] == 0 && again[1] == 1 && again[2] == 1 && again[3] == 0);
	split_run_again(71, in_order, &user_a, 2, again);
	ck_assert(all_of(again, 0));
	split_run_again(71, in_order, &user_a, -1, again);
	ck_assert(all_of(again, 0)); /* the run before was asked always */
	split_run_again(71, in_order, &user_a, -1, again);
	ck_assert(all_but_first(again));
	/* a tick ends the run: the next ask is a new run's, not a repeat's */
	ggmlviz_nodes_split(71, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask(&graph[0], &cpu_backend, counting_describe, &user_a), 0);
	ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_ask_again(&graph[1], &user_a), 0);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_nodes_ask_again(&graph[1], &user_a), 0); /* not tracing */
	unlink(path);

	start_timing("ids-always-sync", path2, sizeof path2, GGMLVIZ_OP_TIMING_SYNC);
	split_run_again(72, in_order, &user_a, -1, again);
	split_run_again(72, in_order, &user_a, -1, again);
	ck_assert(all_of(again, 0)); /* sync mode: the adapter times each node itself */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path2);
}
END_TEST

/*
 * A run of split id as GGML's scheduler with libggmlviz's edit asks it:
 * its first node through the adapter's callback (ask_again, the full ask
 * where it says 0), ggmlviz_nodes_ask_rest() for the next ones, and the
 * callback again from where it stopped. How many it took at once; how
 * many were asked in full, in *full.
 */
static int split_run_rest(uint64_t id, const int *order, void *user, int *full)
{
	const void *nodes[NODES];
	int rest = 0;

	for (int i = 0; i < NODES; i++)
		nodes[i] = &graph[order[i]];
	*full = 0;
	ggmlviz_nodes_split(id, &cpu_backend);
	for (int j = 0; j < NODES; j++) {
		if (!ggmlviz_nodes_ask_again(nodes[j], user)) {
			ck_assert_int_eq(ggmlviz_nodes_ask(nodes[j], &cpu_backend, counting_describe,
							   user), 0);
			(*full)++;
		}
		if (j == 0) {
			int to = ggmlviz_nodes_ask_rest(user, nodes, 1, NODES);

			ck_assert_int_ge(to, 1);
			ck_assert_int_le(to, NODES);
			rest = to - 1;
			j = to - 1;
			if (rest)
				ck_assert_int_eq(ggmlviz_nodes_asked_before(), 1);
		}
	}
	for (int i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	return rest;
}

/*
 * A split's repeat is asked once: every node after its first taken at
 * once, recorded as the asks one by one record them; up to a node that
 * moved, the rest asked one by one; not where the run is another's.
 */
START_TEST(a_repeat_is_asked_at_once)
{
	static const int last_two_swapped[NODES] = { 0, 1, 3, 2 };
	char path[256];
	int full;
	struct seen *s;

	start("ids-rest", path, sizeof path);
	ck_assert_int_eq(split_run_rest(81, in_order, &user_a, &full), 0);
	ck_assert_int_eq(full, NODES); /* the first run: nothing kept */
	ck_assert_int_eq(split_run_rest(81, in_order, &user_a, &full), NODES - 1);
	ck_assert_int_eq(full, 1);
	ck_assert_int_eq(split_run_rest(81, in_order, &user_a, &full), NODES - 1);
	ck_assert_int_eq(described, NODES);
	/* places 2 and 3 moved: place 1 taken, the rest asked, in full */
	ck_assert_int_eq(split_run_rest(81, last_two_swapped, &user_a, &full), 1);
	ck_assert_int_eq(full, 3);
	ck_assert_int_eq(split_run_rest(81, in_order, &user_b, &full), 0); /* another user */
	ck_assert_int_eq(full, NODES);
	ck_assert_int_eq(split_run_rest(82, in_order, &user_a, &full), 0); /* another id */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 6 * NODES);
	ck_assert_uint_eq(s->splits, 6);
	three_runs_as_the_first(s); /* the runs taken at once too */
	for (size_t k = 3 * NODES; k < 4 * NODES; k++) /* the moved run, in its own order */
		ck_assert_uint_eq(s->op[k].ptr,
				  (uint64_t)(uintptr_t)&graph[last_two_swapped[k % NODES]]);
	free(s);
	unlink(path);
}
END_TEST

/* A split's first ask passed over (op timing off), then the asks at once of its others. */
static int steps_rest(uint64_t id, const void *user, const void *const *nodes, int n)
{
	ggmlviz_nodes_split(id, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask_again(nodes[0], user), 0);
	return ggmlviz_nodes_ask_rest(user, nodes, 1, n);
}

/* The first ask of a repeat, in full: through the callback, as split_run_rest() asks it. */
static void first_ask(uint64_t id, void *user)
{
	ggmlviz_nodes_split(id, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask_again(&graph[0], user), 0);
	ck_assert_int_eq(ggmlviz_nodes_ask(&graph[0], &cpu_backend, counting_describe, user), 0);
}

/* Where the asks at once must take nothing, they take nothing, and say where to go on. */
START_TEST(asks_at_once_only_where_each_would_be_taken)
{
	const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
	const void *other[NODES] = { &graph[1], &graph[1], &graph[2], &graph[3] };
	char path[256], path2[256];
	int full;

	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1); /* no run */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, NULL, 1, NODES), -EINVAL);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 0, NODES), -EINVAL);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 3, 2), -EINVAL);
	start("ids-rest-not", path, sizeof path);
	split_run_rest(91, in_order, &user_a, &full);
	split_run_rest(91, in_order, &user_a, &full); /* kept, and taken at once */
	/* the split's first ask not passed on (an application's own callback): its id waits */
	ggmlviz_nodes_split(91, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	first_ask(91, &user_a);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_b, nodes, 1, NODES), 1); /* another user */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 2, NODES), 2); /* not as asked so far */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, other, 1, NODES), 1); /* another first node */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, 1), 1);     /* nothing after it */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, 3), 3);     /* as far as asked */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 3, NODES), NODES);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, NODES, NODES), NODES);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	/* a tick: the run computed, the next ask is another run's */
	first_ask(91, &user_a);
	ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	/* said at the first ask (a chained callback sees every ask): nothing, now and next time */
	first_ask(91, &user_a);
	ggmlviz_nodes_ask_always();
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(split_run_rest(91, in_order, &user_a, &full), 0);
	ck_assert_int_eq(split_run_rest(91, in_order, &user_a, &full), NODES - 1);
	first_ask(91, &user_a);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1); /* not tracing */
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	unlink(path);

	start_timing("ids-rest-sync", path2, sizeof path2, GGMLVIZ_OP_TIMING_SYNC);
	split_run_rest(92, in_order, &user_a, &full);
	ck_assert_int_eq(split_run_rest(92, in_order, &user_a, &full), 0); /* sync mode */
	ck_assert_int_eq(full, NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path2);
}
END_TEST

/*
 * A session of steps alone (op timing off): a split asked in full once is
 * taken at once from then on, by its id, user, size and first and last
 * nodes; one whose asks have work to do (ggmlviz_nodes_ask_always()) is
 * asked in full every time; a new session asks it in full again.
 */
START_TEST(a_session_of_steps_takes_a_split_seen_at_once)
{
	const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
	const void *other[NODES] = { &graph[0], &graph[1], &graph[2], &graph[2] };
	char path[256], path2[256];

	start_timing("ids-steps", path, sizeof path, GGMLVIZ_OP_TIMING_OFF);
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), 1); /* the first time: in full */
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), NODES); /* seen: at once */
	ck_assert_int_eq(steps_rest(93, &user_b, nodes, NODES), 1);  /* another user */
	ck_assert_int_eq(steps_rest(93, &user_a, other, NODES), 1);  /* another last node */
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, 3), 1);      /* another size */
	ck_assert_int_eq(steps_rest(94, &user_a, nodes, NODES), 1);  /* another id */
	ck_assert_int_eq(steps_rest(0, &user_a, nodes, NODES), 1);   /* no id */
	ck_assert_int_eq(steps_rest(0, &user_a, nodes, NODES), 1);
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), NODES); /* still seen */
	/* asks with work to do, said at the split's first ask */
	ggmlviz_nodes_split(95, &cpu_backend);
	ggmlviz_nodes_ask_always();
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	/* or at a later ask of the pass that kept it: not kept */
	ck_assert_int_eq(steps_rest(95, &user_a, nodes, NODES), 1);
	ggmlviz_nodes_ask_always();
	ck_assert_int_eq(steps_rest(95, &user_a, nodes, NODES), 1);
	ck_assert_int_eq(steps_rest(95, &user_a, nodes, NODES), NODES); /* a pass with none */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	/* not tracing: asked in full once (the mask is another), then nothing to do at its asks */
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), 1);
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), NODES);
	unlink(path);

	start_timing("ids-steps-again", path2, sizeof path2, GGMLVIZ_OP_TIMING_OFF);
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), 1); /* a new session */
	ck_assert_int_eq(steps_rest(93, &user_a, nodes, NODES), NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path2);
}
END_TEST

/*
 * Three passes over split id whose first ask goes to a chained callback
 * (ggmlviz_nodes_ask_always(), as the adapter says it): each asked in full.
 */
static void chained_passes(uint64_t id, const void *const *nodes)
{
	for (int pass = 0; pass < 3; pass++) {
		ggmlviz_nodes_split(id, &cpu_backend);
		ck_assert_int_eq(ggmlviz_nodes_ask_again(nodes[0], &user_a), 0);
		ggmlviz_nodes_ask_always();
		ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	}
}

/*
 * After a session that timed every op, the callbacks still on the context
 * (a program that traces in windows): a split seen asked in full through
 * the adapter is taken at once; one whose asks have work to do (a chained
 * callback) is asked in full every time, as is one asked through another
 * callback (no ggmlviz_nodes_ask_again() for its node before), and one
 * asked as a run a stop left open; a new session asks again.
 */
START_TEST(after_the_stop_a_split_seen_is_taken_at_once)
{
	const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
	char path[256], path2[256];
	int full;

	start("ids-stopped", path, sizeof path);
	ck_assert_int_eq(split_run_rest(96, in_order, &user_a, &full), 0);
	ck_assert_int_eq(split_run_rest(96, in_order, &user_a, &full), NODES - 1); /* the run's */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
	ck_assert_int_eq(steps_rest(96, &user_a, nodes, NODES), 1); /* the first time: in full */
	ck_assert_int_eq(steps_rest(96, &user_a, nodes, NODES), NODES);
	ck_assert_int_eq(steps_rest(96, &user_b, nodes, NODES), 1); /* another user */
	/* another callback than the adapter's: no ask of the node before went to the library */
	ggmlviz_nodes_split(96, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), 1);
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 3, NODES), 3); /* after one it wanted */
	chained_passes(97, nodes); /* a chained callback sees every ask */
	start_timing("ids-stopped-steps", path2, sizeof path2, GGMLVIZ_OP_TIMING_OFF);
	ck_assert_int_eq(steps_rest(96, &user_a, nodes, NODES), 1); /* a new session: in full */
	ck_assert_int_eq(steps_rest(96, &user_a, nodes, NODES), NODES);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path2);
}
END_TEST

/*
 * A stop between a split's first ask and the run's end leaves the run
 * open: a chained callback's asks after it still go to every node.
 */
START_TEST(a_run_a_stop_left_open_asks_a_chain_every_time)
{
	const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
	char path[256];

	start("ids-stopped-open", path, sizeof path);
	ggmlviz_nodes_split(98, &cpu_backend);
	ck_assert_int_eq(ggmlviz_nodes_ask(nodes[0], &cpu_backend, counting_describe, &user_a), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0); /* no flush: the run stays open */
	unlink(path);
	chained_passes(98, nodes);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}
END_TEST

/*
 * A run timed by ticks begins at its last ask: the asks at once stamp it,
 * so that a pause after the first ask is not the first op's.
 */
START_TEST(asks_at_once_stamp_the_last_ask)
{
	const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
	const struct timespec pause = { 0, 200 * 1000 * 1000 };
	char path[256];
	int full;
	struct seen *s;

	start("ids-rest-stamp", path, sizeof path);
	split_run_rest(95, in_order, &user_a, &full);
	split_run_rest(95, in_order, &user_a, &full);
	first_ask(95, &user_a);
	nanosleep(&pause, NULL); /* 200 ms between the first ask and the rest */
	ck_assert_int_eq(ggmlviz_nodes_ask_rest(&user_a, nodes, 1, NODES), NODES);
	for (int i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3 * NODES);
	ck_assert_int_eq(s->op[2 * NODES].method, GGMLVIZ_OP_METHOD_TICK);
	/* the first op ran from the last ask to its tick: microseconds, far less than the pause */
	ck_assert_uint_lt(s->op[2 * NODES].end_ns - s->op[2 * NODES].begin_ns, 100u * 1000 * 1000);
	free(s);
	unlink(path);
}
END_TEST

/*
 * A GPU run's times are its own: the next run of the same nodes, given
 * its first node's time only, has that one, the third none.
 */
START_TEST(a_gpu_run_s_times_are_its_own)
{
	char path[256];
	struct seen *s;
	size_t gpu = 0;

	start("ids-gpu-own", path, sizeof path);
	for (int run = 0; run < 3; run++) {
		for (int i = 0; i < NODES; i++)
			ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &gpu_backend, counting_describe,
							   &user_a), 0);
		for (int i = 0; i < (run == 0 ? NODES : run == 1 ? 1 : 0); i++)
			ck_assert_int_eq(ggmlviz_nodes_gpu_time(&graph[i], 4000u - 1000u * (unsigned)i,
								3500u - 1000u * (unsigned)i), 0);
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->splits, 3);
	for (size_t k = 0; k < s->ops; k++)
		gpu += s->op[k].method == GGMLVIZ_OP_METHOD_GPU;
	ck_assert_uint_eq(gpu, NODES + 1); /* the first run's, and the second's first */
	free(s);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *suite = suite_create("graph ids");
	TCase *c = tcase_create("graph ids");

	tcase_add_test(c, same_graph_described_once);
	tcase_add_test(c, other_nodes_or_user_described_again);
	tcase_add_test(c, no_id_described_each_time);
	tcase_add_test(c, splits_alternating_and_more_than_kept);
	tcase_add_test(c, an_id_begins_a_split);
	tcase_add_test(c, a_split_says_its_backend);
	tcase_add_test(c, a_node_asked_before_is_said);
	tcase_add_test(c, a_repeat_is_asked_alone_where_it_can_be);
	tcase_add_test(c, a_run_asked_always_is_asked_in_full);
	tcase_add_test(c, a_repeat_is_asked_at_once);
	tcase_add_test(c, asks_at_once_only_where_each_would_be_taken);
	tcase_add_test(c, asks_at_once_stamp_the_last_ask);
	tcase_add_test(c, a_session_of_steps_takes_a_split_seen_at_once);
	tcase_add_test(c, after_the_stop_a_split_seen_is_taken_at_once);
	tcase_add_test(c, a_run_a_stop_left_open_asks_a_chain_every_time);
	tcase_add_test(c, a_gpu_run_s_times_are_its_own);
	suite_add_tcase(suite, c);
	return suite;
}

int main(void)
{
	return run_suite(make_suite());
}
