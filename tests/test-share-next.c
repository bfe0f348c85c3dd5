/*
 * A graph computed by one thread, each share begun with
 * ggmlviz_cpu_share_next() as GGML's edit begins it where params.nth is 1
 * (contrib/llama.cpp/ggmlviz-cpu.h), with no time read:
 *   - each share after the graph's first begins where the one before
 *     ended: its wait is 0, and what ran between the two (here a sleep,
 *     in GGML its loop and the tick) is in the later share's compute and
 *     in its op's measured time, which follow on without a gap;
 *   - the graph's first share reads the time: a graph computed long after
 *     the one before does not begin at that one's last end;
 *   - a share after an end that was not kept (the session stopped inside
 *     the share before it, and started again) reads the time too;
 *   - a thread's first call for a pool takes its slot, as
 *     ggmlviz_cpu_share_begin() does, and that share is measured.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"

#define NODES 4
#define GRAPHS 2
#define WORK_NS 200000u     /* each share's own work */
#define BETWEEN_NS 1000000u /* between two shares of a graph */
#define APART_NS 40000000u  /* between the two graphs */
#define MAX_SEEN 64

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 6, "ADD", "ffn_inp-0", 0 },
};
static const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
static char cpu_backend, pool;

struct seen {
	struct ggmlviz_timing op[MAX_SEEN], share[MAX_SEEN];
	size_t ops, shares;
};

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (t->kind == GGMLVIZ_TIMING_OP && s->ops < MAX_SEEN)
		s->op[s->ops++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_SHARE && s->shares < MAX_SEEN)
		s->share[s->shares++] = *t;
}

/* One graph's run, asked and computed by this thread alone, as GGML's edit at one thread. */
static void one_thread_run(void)
{
	ggmlviz_nodes_graph_id(21);
	for (int i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
	for (int i = 0; i < NODES; i++) {
		ggmlviz_cpu_share_next(&pool, 0, i);
		tu_spin_ns(WORK_NS);
		ggmlviz_cpu_share_end(&pool, 0, i);
		ggmlviz_nodes_tick();
		tu_sleep_ns(BETWEEN_NS);
	}
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, nodes, NODES, NULL), NODES);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

/* Two graphs APART_NS apart, traced; their shares and ops read back. */
static struct seen *two_graphs(void)
{
	struct ggmlviz_config cfg;
	struct seen *s = calloc(1, sizeof *s);
	char path[256];

	ck_assert_ptr_nonnull(s);
	tu_config_cpu(&cfg, path, sizeof path, "share-next");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	one_thread_run();
	tu_sleep_ns(APART_NS);
	one_thread_run();
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	ck_assert_uint_eq(s->shares, (size_t)NODES * GRAPHS);
	ck_assert_uint_eq(s->ops, (size_t)NODES * GRAPHS);
	return s;
}

/*
 * Timing k of a graph (a share or an op) against the one before it: it
 * begins where that one ended, and holds the time between the two.
 */
static void assert_follows(const struct ggmlviz_timing *t, size_t k, const char *what)
{
	ck_assert_msg(t[k].begin_ns == t[k - 1].end_ns, "%s %zu begins at %llu, not at %llu", what,
		      k, (unsigned long long)t[k].begin_ns, (unsigned long long)t[k - 1].end_ns);
	ck_assert_msg(t[k].duration_ns >= WORK_NS + BETWEEN_NS, "%s %zu lasts %llu ns", what, k,
		      (unsigned long long)t[k].duration_ns);
}

START_TEST(a_share_begins_where_the_one_before_ended)
{
	struct seen *s = two_graphs();

	for (size_t g = 0; g < GRAPHS; g++) {
		const struct ggmlviz_timing *share = &s->share[g * NODES], *op = &s->op[g * NODES];

		for (size_t k = 0; k < NODES; k++) {
			ck_assert_int_eq(op[k].method, GGMLVIZ_OP_METHOD_MEASURED);
			if (k + 1 < NODES) /* the last share waits until the graph's end */
				ck_assert_uint_eq(share[k].value, 0);
			if (k == 0)
				continue;
			assert_follows(share, k, "share");
			assert_follows(op, k, "op");
		}
	}
	free(s);
}
END_TEST

/*
 * Timing `at` (a graph's first share or op) begins at least APART_NS / 2
 * after the one before it ended: the two graphs are APART_NS apart, and
 * a first share that took the graph before's last end would begin there.
 */
static void assert_apart(const struct ggmlviz_timing *t, size_t at, const char *what)
{
	ck_assert_msg(t[at].begin_ns >= t[at - 1].end_ns + APART_NS / 2,
		      "the second graph's first %s begins %lld ns after the first graph's last",
		      what, (long long)(t[at].begin_ns - t[at - 1].end_ns));
}

START_TEST(a_graphs_first_share_reads_the_time)
{
	struct seen *s = two_graphs();

	assert_apart(s->share, NODES, "share");
	assert_apart(s->op, NODES, "op");
	free(s);
}
END_TEST

/*
 * A session stops inside share 1 and starts again before share 2 begins:
 * share 1's end is not kept, and share 2 reads the time instead of
 * beginning at share 0's end, before the stop. Shares only, no run: the
 * second session's record of share 2 against the test's clock.
 */
START_TEST(a_share_after_an_end_not_kept_reads_the_time)
{
	struct ggmlviz_config cfg;
	struct seen *s = calloc(1, sizeof *s);
	char path[256];
	uint64_t before;
	size_t k;

	ck_assert_ptr_nonnull(s);
	tu_config_cpu(&cfg, path, sizeof path, "share-next-stop");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_cpu_share_next(&pool, 0, 0);
	tu_spin_ns(WORK_NS);
	ggmlviz_cpu_share_end(&pool, 0, 0);
	ggmlviz_cpu_share_next(&pool, 0, 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_cpu_share_end(&pool, 0, 1); /* not kept: nothing traced */
	tu_sleep_ns(APART_NS);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	before = tu_realtime_ns();
	ggmlviz_cpu_share_next(&pool, 0, 2);
	tu_spin_ns(WORK_NS);
	ggmlviz_cpu_share_end(&pool, 0, 2);
	ck_assert_int_ge(ggmlviz_cpu_graph_done(&pool, 0, 1, nodes, NODES, NULL), 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	for (k = 0; k < s->shares && s->share[k].ptr != (uint64_t)(uintptr_t)nodes[2]; k++)
		;
	ck_assert_msg(k < s->shares, "no share of node 2 in the second session");
	/* the clock's calibration places a stamp within 100 us; share 0 ended APART_NS before */
	ck_assert_msg(s->share[k].begin_ns + APART_NS / 2 >= before,
		      "share 2 begins %lld ns before its call", (long long)(before - s->share[k].begin_ns));
	free(s);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *suite = suite_create("share-next");
	TCase *c = tcase_create("share-next");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, a_share_begins_where_the_one_before_ended);
	tcase_add_test(c, a_graphs_first_share_reads_the_time);
	tcase_add_test(c, a_share_after_an_end_not_kept_reads_the_time);
	suite_add_tcase(suite, c);
	return suite;
}

int main(void)
{
	return run_suite(make_suite());
}
