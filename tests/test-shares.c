/*
 * Every worker thread's share of every node, measured as GGML's CPU backend
 * built with libggmlviz's edit measures it (ggmlviz_cpu_share_begin(3)),
 * without GGML: a pool of threads computes a run's nodes as
 * ggml_graph_compute_thread does (each thread its share, a barrier after
 * each node, a last barrier, then graph_done), thread 0 the one that asked
 * the nodes and ticks after its share. Each thread works a known time on
 * each node, so that the records can be checked against it:
 *   - one OP_SHARE per thread and node, on that thread, its compute at
 *     least its work, its wait until its next share began, which is after
 *     the node's last thread ended;
 *   - each op measured (method MEASURED) from the first begin to the last
 *     end (the run's first op: from the last begin), at least the slowest
 *     thread's work, not the ticks' time;
 *   - the same over graph after graph of workers that live through them,
 *     their shares' later graphs written as times only, every one read;
 *   - a run with a node some thread did not measure: timed by the ticks,
 *     those held to the graph's end and those not in their order, and
 *     none from a share stored before the session stopped mid-graph
 *     (after a node's tick, or inside its shares);
 *   - nodes no run asked about: counted in shares_unattributed, and said
 *     in the session's META SHARES (a session whose every share went to
 *     its op says that; one that measured nothing says nothing);
 *   - not tracing, rolling mode: nothing written;
 *   - a split computed again, its asks taken alone
 *     (ggmlviz_nodes_ask_again()), with a view among its nodes: each op
 *     measured as the first run's, the view in none;
 *   - a run computed as two graphs (again, 17 times, as a view of its
 *     nodes, or in two views timed by ticks): each op the time of the
 *     graph that computed it last;
 *   - a pool whose thread 0 was another thread for a run: the first
 *     thread's next run measured by its own shares, after that run.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"

/*
 * The pool's threads: 3 (folded from three on: fold.h), and 2 for
 * test-shares-2 (the same tests built with -DTHREADS=2), whose hand-over
 * reads the one worker's stamps in a loop of its own (measured.c).
 */
#ifndef THREADS
#define THREADS 3
#endif
#define NODES 4
#define MAX_SEEN 256

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 6, "ADD", "ffn_inp-0", 0 },
};
static const void *nodes[NODES] = { &graph[0], &graph[1], &graph[2], &graph[3] };
static char cpu_backend;

/* How long thread t works on node i: the last thread the longest. */
static uint64_t work_ns(int t, int i)
{
	return (uint64_t)(t + 1) * 150000u + (uint64_t)i * 20000u;
}

static uint32_t op_of(const void *node)
{
	return ((const struct gs_node *)node)->op;
}

/* A call's time: the clock read before and after it. */
struct call {
	uint64_t before, after;
};

struct pool {
	pthread_barrier_t barrier;
	int skip_thread, skip_node; /* a share not measured: -1 none */
	int n_nodes;                /* nodes the graph has */
	int view;                   /* a node no thread computes (a view: no share, no tick); 0: none */
	int from;                   /* the graph is GGML's view of the nodes from this one on (0: all) */
	struct call ticked[NODES];  /* thread 0's share end and tick of each node, the last graph's */
	int stop_after;             /* thread 0 stops the session after this node's tick; -1: never */
	int stop_inside;            /* or inside its shares of this node, before their ends; 0: never */
};

struct worker {
	struct pool *pool;
	int ith;
	int written;
};

/* ggml_graph_compute_thread, for one thread. */
static void compute(struct worker *w)
{
	struct pool *p = w->pool;

	for (int i = 0; i < p->n_nodes; i++) {
		int measured = !(w->ith == p->skip_thread && i == p->skip_node);

		if (p->view && i == p->view) {
			pthread_barrier_wait(&p->barrier); /* nothing to compute: every thread goes on */
			continue;
		}
		if (measured)
			ggmlviz_cpu_share_begin(p, w->ith, i);
		tu_spin_ns(work_ns(w->ith, i));
		if (w->ith == 0 && p->stop_inside && i == p->stop_inside)
			ck_assert_int_eq(ggmlviz_stop(), 0); /* the shares' begins stored, not all ends */
		if (w->ith == 0)
			p->ticked[i].before = tu_monotonic_ns();
		if (measured)
			ggmlviz_cpu_share_end(p, w->ith, i);
		if (w->ith == 0) {
			ggmlviz_nodes_tick(); /* at its share's end, else at the clock now */
			p->ticked[i].after = tu_monotonic_ns();
			if (i == p->stop_after)
				ck_assert_int_eq(ggmlviz_stop(), 0);
		}
		if (i + 1 < p->n_nodes)
			pthread_barrier_wait(&p->barrier);
	}
	pthread_barrier_wait(&p->barrier);
	w->written = ggmlviz_cpu_graph_done(p, w->ith, THREADS, nodes + p->from, p->n_nodes, op_of);
}

static void *worker_main(void *arg)
{
	compute(arg);
	return NULL;
}

/* The pool computes the graph, this thread as thread 0; each thread's graph_done in written. */
static void compute_graph(struct pool *p, int written[THREADS])
{
	pthread_t th[THREADS];
	struct worker w[THREADS];

	for (int t = 0; t < THREADS; t++)
		w[t] = (struct worker){ p, t, 0 };
	for (int t = 1; t < THREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker_main, &w[t]), 0);
	compute(&w[0]);
	for (int t = 1; t < THREADS; t++)
		pthread_join(th[t], NULL);
	for (int t = 0; t < THREADS; t++)
		written[t] = w[t].written;
}

/* The same, and the run ends. */
static void compute_all(struct pool *p, int written[THREADS])
{
	compute_graph(p, written);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

/* One run of the graph's nodes, asked on this thread (thread 0), computed by the pool. */
static void run_graph(struct pool *p, int ask, int written[THREADS])
{
	for (int i = 0; ask && i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
	compute_all(p, written);
}

struct seen {
	struct ggmlviz_timing op[MAX_SEEN], share[MAX_SEEN];
	size_t ops, shares;
	int said;                       /* META SHARES records */
	uint64_t unattributed, beyond;  /* the last one's */
	char said_label[320];
};

/* META SHARES: the session's word on the shares no op got. */
static void read_said(const char *path, struct seen *s)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int rc;

	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		if (ev.type != GGMLVIZ_EVENT_META || ev.data.meta.kind != GGMLVIZ_META_SHARES)
			continue;
		s->said++;
		s->unattributed = ev.data.meta.value;
		s->beyond = ev.data.meta.value2;
		snprintf(s->said_label, sizeof s->said_label, "%.*s", (int)ev.label_len,
			 ev.label ? ev.label : "");
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(r);
}

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (t->kind == GGMLVIZ_TIMING_OP && s->ops < MAX_SEEN)
		s->op[s->ops++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_SHARE && s->shares < MAX_SEEN)
		s->share[s->shares++] = *t;
}

static struct seen *read_back(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	read_said(path, s);
	return s;
}

static void start(const char *tag, char *path, size_t size, uint32_t op_sample)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	cfg.op_sample = op_sample;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

/*
 * The share of thread t (its index in the pool) of node i in the op that
 * ended at op_end: the latest to end by then (the op ends with its last
 * share, within the clock's conversion). Not the nearest to the op's
 * begin: a thread preempted for longer than a graph (a loaded machine
 * saw 168 ms) begins its share nearer an earlier graph's op than its own.
 * The records of each thread come a ring at a time, so runs' shares may
 * interleave in the file.
 */
static const struct ggmlviz_timing *share_of(const struct seen *s, uint32_t t, uint32_t i,
					     uint64_t op_end)
{
	const struct ggmlviz_timing *best = NULL;

	for (size_t k = 0; k < s->shares; k++) {
		const struct ggmlviz_timing *sh = &s->share[k];

		if (sh->ticks == t && sh->n_nodes == i && sh->end_ns <= op_end + 1000 &&
		    (!best || sh->end_ns > best->end_ns))
			best = sh;
	}
	return best;
}

/* Thread t's first share of node i that began at or after at (its next one, in time). */
static const struct ggmlviz_timing *next_share(const struct seen *s, uint32_t t, uint32_t i,
					       uint64_t at)
{
	const struct ggmlviz_timing *best = NULL;

	for (size_t k = 0; k < s->shares; k++) {
		const struct ggmlviz_timing *sh = &s->share[k];

		if (sh->ticks == t && sh->n_nodes == i && sh->begin_ns + 16 >= at &&
		    (!best || sh->begin_ns < best->begin_ns))
			best = sh;
	}
	return best;
}

/*
 * Op k of the trace, node i of its run, measured and spanning its THREADS
 * threads' shares (within the clock's conversion): from when the first
 * began it (the last, for the run's first node: the threads' start is
 * the run's) to when the last ended it.
 */
static void assert_op_spans_its_shares(const struct seen *s, size_t k, uint32_t i)
{
	const struct ggmlviz_timing *op = &s->op[k];
	uint64_t first = UINT64_MAX, latest = 0, last = 0;

	ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_MEASURED);
	for (uint32_t t = 0; t < THREADS; t++) {
		const struct ggmlviz_timing *sh = share_of(s, t, i, op->end_ns);

		ck_assert_ptr_nonnull(sh);
		first = sh->begin_ns < first ? sh->begin_ns : first;
		latest = sh->begin_ns > latest ? sh->begin_ns : latest;
		last = sh->end_ns > last ? sh->end_ns : last;
	}
	if (i == 0)
		first = latest;
	ck_assert_uint_le(op->begin_ns > first ? op->begin_ns - first : first - op->begin_ns, 1000);
	ck_assert_uint_le(op->end_ns > last ? op->end_ns - last : last - op->end_ns, 1000);
}

START_TEST(shares_measure_every_thread)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares", path, sizeof path, 0);
	run_graph(&p, 1, written); /* the threads' first graph: their slots are made */
	run_graph(&p, 1, written);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	for (int t = 0; t < THREADS; t++)
		ck_assert_int_eq(written[t], NODES);
	s = read_back(path);
	/* the second run: every op measured, every thread's share of every node */
	ck_assert_uint_ge(s->ops, NODES);
	ck_assert_uint_ge(s->shares, THREADS * NODES);
	for (size_t k = s->ops - NODES; k < s->ops; k++) {
		const struct ggmlviz_timing *op = &s->op[k];
		uint32_t i = (uint32_t)(k - (s->ops - NODES));
		uint32_t tids[THREADS];

		assert_op_spans_its_shares(s, k, i);
		ck_assert_uint_eq(op->node_flags & GGMLVIZ_NODE_RUN_START, 0);
		if (i > 0) /* the first begins with its last thread, which need not be the slowest */
			ck_assert_uint_ge(op->duration_ns, work_ns(THREADS - 1, (int)i));
		for (uint32_t t = 0; t < THREADS; t++) {
			const struct ggmlviz_timing *sh = share_of(s, t, i, op->end_ns);

			ck_assert_ptr_nonnull(sh);
			ck_assert_uint_eq(sh->ptr, (uint64_t)(uintptr_t)nodes[i]);
			ck_assert_uint_eq(sh->op_type, graph[i].op);
			ck_assert_uint_eq(sh->n_threads, THREADS);
			ck_assert_uint_ge(sh->duration_ns, work_ns((int)t, (int)i));
			/* its wait lasts until its next share, after the barrier's last thread */
			if (i + 1 < NODES) {
				const struct ggmlviz_timing *next = next_share(s, t, i + 1, sh->end_ns);
				uint64_t to = sh->end_ns + sh->value;

				ck_assert_ptr_nonnull(next);
				/*
				 * three times converted from stamps apart: a few ns of
				 * rounding, and where a calibration point falls between
				 * them the wait is converted at its end's rate, the next
				 * begin at its own (TSan's CI run saw 18 ns): 0.1% of it
				 */
				ck_assert_uint_le(to > next->begin_ns ? to - next->begin_ns
								       : next->begin_ns - to,
						  16 + sh->value / 1000);
				ck_assert_uint_ge(next->begin_ns + 1000, op->end_ns);
			}
			tids[t] = sh->thread_id;
		}
		for (uint32_t t = 1; t < THREADS; t++)
			ck_assert_uint_ne(tids[t - 1], tids[t]);
		ck_assert_uint_eq(tids[0], op->thread_id); /* thread 0 is the one that asked */
	}
	/* the stop says every share went to its op */
	ck_assert_int_eq(s->said, 1);
	ck_assert_uint_eq(s->unattributed, 0);
	ck_assert_ptr_nonnull(strstr(s->said_label, "went to its op"));
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

#define GRAPHS 5

/* A worker of the pool that computes GRAPHS graphs, each begun at the pool's barrier. */
static void *worker_graphs(void *arg)
{
	struct worker *w = arg;

	for (int g = 0; g < GRAPHS; g++) {
		pthread_barrier_wait(&w->pool->barrier); /* thread 0 asked: GGML's graph start */
		compute(w);
	}
	return NULL;
}

/*
 * Workers that live through many graphs, as GGML's threadpool keeps them
 * (the other tests make new ones for each graph, whose slots define their
 * sets again), each graph begun once thread 0 has asked about it: from
 * the second graph on each worker writes its times only (SHARE_TIMES
 * REPEAT), and every one of them must still be read back, every run
 * measured, each op spanning its shares of that graph. It fails with a
 * worker's REPEAT naming another set (its shares come out unread), and
 * it failed a build not kept whose thread 0 read the wrong one of a
 * worker's two pairs of stamp arrays (doc/cost.md).
 */
START_TEST(workers_kept_through_graphs_measure_every_run)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	pthread_t th[THREADS];
	struct worker w[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-kept", path, sizeof path, 0);
	for (int t = 0; t < THREADS; t++)
		w[t] = (struct worker){ &p, t, 0 };
	for (int t = 1; t < THREADS; t++)
		ck_assert_int_eq(pthread_create(&th[t], NULL, worker_graphs, &w[t]), 0);
	for (int g = 0; g < GRAPHS; g++) {
		for (int i = 0; i < NODES; i++)
			ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
		pthread_barrier_wait(&p.barrier);
		compute(&w[0]);
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
		ck_assert_int_eq(w[0].written, NODES);
	}
	for (int t = 1; t < THREADS; t++)
		pthread_join(th[t], NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	for (int t = 1; t < THREADS; t++)
		ck_assert_int_eq(w[t].written, NODES);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	ck_assert_uint_eq(s->shares, GRAPHS * THREADS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_op_spans_its_shares(s, k, (uint32_t)(k % NODES));
	ck_assert_uint_eq(s->unattributed, 0);
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/* How many records of type the trace at path holds. */
static int records_of(const char *path, uint8_t type)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int rc, n = 0;

	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
		n += ev.type == type;
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(r);
	return n;
}

/* gs_describe, but node 1 is a view: it gives no tick, and has no op. */
static void describe_view(void *user, const void *const *ns, size_t n, size_t i,
			  struct ggmlviz_node_desc *out)
{
	gs_describe(user, ns, n, i, out);
	if (ns[i] == nodes[1])
		out->ticks = 0;
}

/* One run of split id asked as the GGML adapter asks; how many asks were taken alone. */
static int run_split(struct pool *p, uint64_t id, int written[THREADS])
{
	int alone = 0;

	ggmlviz_nodes_split(id, &cpu_backend);
	for (int i = 0; i < NODES; i++) {
		int again = ggmlviz_nodes_ask_again(nodes[i], NULL);

		alone += again;
		if (!again)
			ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, describe_view, NULL), 0);
	}
	compute_all(p, written);
	return alone;
}

/* A run of split id, every node asked in full (no ask taken alone). */
static void ask_split(uint64_t id)
{
	ggmlviz_nodes_split(id, &cpu_backend);
	for (int i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
}

/*
 * A split computed again has its asks taken alone but its first, and a
 * view among its nodes: every run's ops are the computing nodes', each
 * measured from its shares (the kept run's list of its ops' places), as
 * in the first run, which was asked in full.
 */
START_TEST(a_repeat_asked_alone_with_a_view_is_measured)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .view = 1,
			  .stop_after = -1 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-again", path, sizeof path, 0);
	ck_assert_int_eq(run_split(&p, 81, written), 0);
	ck_assert_int_eq(run_split(&p, 81, written), NODES - 1);
	ck_assert_int_eq(run_split(&p, 81, written), NODES - 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	for (int t = 0; t < THREADS; t++)
		ck_assert_int_eq(written[t], NODES - 1);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3 * (NODES - 1));
	for (size_t k = 0; k < s->ops; k++) {
		const struct ggmlviz_timing *op = &s->op[k];
		uint32_t i = (uint32_t)(k % (NODES - 1)) ? (uint32_t)(k % (NODES - 1)) + 1 : 0;

		ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_MEASURED);
		ck_assert_uint_eq(op->ptr, (uint64_t)(uintptr_t)nodes[i]);
		ck_assert_uint_eq(op->op_type, graph[i].op);
		if (i > 0) /* its own time, not the view's (none) nor another node's */
			ck_assert_uint_ge(op->duration_ns, work_ns(THREADS - 1, (int)i));
	}
	ck_assert_uint_eq(s->unattributed, 0);
	/* the repeats' ops packed (OP_TIMES), not written one by one for times that did not pack */
	ck_assert_int_eq(records_of(path, GGMLVIZ_EVENT_OP_TIMES), 2);
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/*
 * A repeat whose graph computes another node than its kept run's (node 1,
 * a view when the run was kept, computed; node 2 not), as many as it
 * expects: the measured times are not at its ops' places, so no op is
 * given another node's measured time; the ticks, as many as expected,
 * time the run instead, as for any run whose shares do not match.
 */
START_TEST(a_repeat_measured_at_other_places_is_not_measured)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .view = 1,
			  .stop_after = -1 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-elsewhere", path, sizeof path, 0);
	ck_assert_int_eq(run_split(&p, 82, written), 0);
	ck_assert_int_eq(run_split(&p, 82, written), NODES - 1);
	p.view = 2;
	ck_assert_int_eq(run_split(&p, 82, written), NODES - 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3 * (NODES - 1));
	for (size_t k = 0; k < s->ops; k++)
		ck_assert_int_eq(s->op[k].method, k < 2 * (NODES - 1) ? GGMLVIZ_OP_METHOD_MEASURED
								 : GGMLVIZ_OP_METHOD_TICK);
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/*
 * A run whose graph is computed again before the run ends (two graphs of
 * one split, or 17): each op is measured once, by the last graph, as a
 * node measured again takes its later time.
 */
START_TEST(a_run_computed_again_takes_the_last_graph)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-twice", path, sizeof path, 0);
	for (int run = 0; run < 3; run++) {
		/* the last run 17 times: more than its room for times in order (64, run.h) */
		int graphs = run == 2 ? 17 : 2;

		ask_split(83); /* a kept run from the second on */
		for (int g = 0; g < graphs; g++) {
			if (g == graphs - 1)
				tu_spin_ns(50000000u); /* its last graph begins 50 ms after the one before ended */
			compute_graph(&p, written);
		}
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3 * NODES);
	for (size_t k = 0; k < s->ops; k++)
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_MEASURED);
	/* each run's after the first: its last graph's, not one that began as the run before ended */
	for (size_t run = 1; run < 3; run++)
		ck_assert_uint_ge(s->op[run * NODES].begin_ns, s->op[run * NODES - 1].end_ns + 50000000u);
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/*
 * runs runs of split id, each computed by p as two graphs 50 ms apart:
 * its nodes from the first, first_n of them, then GGML's view of them
 * from node `second` on, in a session of its own (tag). Returns its
 * records read back, one op a node a run; the caller frees them.
 */
static struct seen *two_graphs_a_run(struct pool *p, const char *tag, uint64_t id, int runs,
				     int first_n, int second)
{
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p->barrier, NULL, THREADS), 0);
	start(tag, path, sizeof path, 0);
	for (int run = 0; run < runs; run++) {
		ask_split(id);
		p->from = 0;
		p->n_nodes = first_n;
		compute_graph(p, written);
		tu_spin_ns(50000000u);
		p->from = second;
		p->n_nodes = NODES - second;
		compute_graph(p, written);
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	unlink(path);
	pthread_barrier_destroy(&p->barrier);
	ck_assert_uint_eq(s->ops, (size_t)runs * NODES);
	return s;
}

/*
 * A run whose graph is computed again as a view of its nodes from its
 * second on (its nodes not at their own places, found by a search): the
 * first op keeps the first graph's time, the others take the second's.
 */
START_TEST(a_view_computed_after_its_run_takes_its_nodes)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .stop_after = -1 };
	struct seen *s = two_graphs_a_run(&p, "shares-view-after", 84, 3, NODES, 1);

	for (size_t run = 0; run < 3; run++) {
		const struct ggmlviz_timing *op = &s->op[run * NODES];

		for (int i = 0; i < NODES; i++)
			ck_assert_int_eq(op[i].method, GGMLVIZ_OP_METHOD_MEASURED);
		ck_assert_uint_ge(op[1].begin_ns, op[0].end_ns + 50000000u);
	}
	ck_assert_uint_eq(s->unattributed, 0);
	free(s);
}
END_TEST

START_TEST(nodes_no_run_asked_about_are_counted)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	struct ggmlviz_stats before, after;
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-unasked", path, sizeof path, 0);
	run_graph(&p, 1, written);
	ggmlviz_get_stats(&before);
	run_graph(&p, 0, written); /* computed, never asked: no run to give them to */
	ggmlviz_get_stats(&after);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_uint_eq(after.shares_unattributed - before.shares_unattributed, NODES);
	s = read_back(path);
	ck_assert_uint_eq(s->shares, 2 * THREADS * NODES); /* written all the same */
	ck_assert_uint_eq(s->ops, NODES);
	/* and the trace says so, for this session only */
	ck_assert_int_eq(s->said, 1);
	ck_assert_uint_eq(s->unattributed, NODES);
	ck_assert_uint_eq(s->beyond, 0);
	ck_assert_ptr_nonnull(strstr(s->said_label, "went to no op: 4 in no run asked about"));
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/* Another thread runs the graph as the pool's thread 0 (its slot takes the board's first place). */
static void *run_graph_elsewhere(void *arg)
{
	int written[THREADS];

	run_graph(arg, 1, written);
	return NULL;
}

/*
 * A pool whose thread 0 is one thread, then another, then the first
 * again (a program that calls GGML from whichever thread holds its
 * context): the first thread's last run is timed by its own shares, not
 * by the other thread's, which the board's first place still names.
 */
START_TEST(thread_0_taken_by_another_thread_times_its_own_shares)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];
	uint64_t other_ended = 0;
	size_t after_it = 0;
	pthread_t other;
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-thread0", path, sizeof path, 0);
	run_graph(&p, 1, written);
	run_graph(&p, 1, written);
	ck_assert_int_eq(pthread_create(&other, NULL, run_graph_elsewhere, &p), 0);
	pthread_join(other, NULL);
	run_graph(&p, 1, written);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 4 * NODES); /* every run's every op */
	for (size_t k = 0; k < s->ops; k++) /* the other thread's run, the third */
		if (s->op[k].thread_id != s->op[0].thread_id && s->op[k].end_ns > other_ended)
			other_ended = s->op[k].end_ns;
	ck_assert_uint_gt(other_ended, 0);
	for (size_t k = 0; k < s->ops; k++)
		after_it += s->op[k].thread_id == s->op[0].thread_id &&
			    s->op[k].method == GGMLVIZ_OP_METHOD_MEASURED &&
			    s->op[k].begin_ns >= other_ended;
	ck_assert_uint_eq(after_it, NODES); /* the first thread's last run, measured, after it */
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

START_TEST(nothing_when_not_tracing_or_rolling)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	run_graph(&p, 0, written); /* no session */
	for (int t = 0; t < THREADS; t++)
		ck_assert_int_eq(written[t], 0);
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&p, 0, THREADS, NULL, 1, NULL), 0);
	start("shares-rolling", path, sizeof path, 4);
	ggmlviz_step_begin(&cpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	run_graph(&p, 1, written);
	ggmlviz_step_end(&cpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&p, 0, THREADS, NULL, 1, NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	for (int t = 0; t < THREADS; t++)
		ck_assert_int_eq(written[t], 0);
	s = read_back(path);
	ck_assert_uint_eq(s->shares, 0);
	ck_assert_int_eq(s->said, 0); /* no graph measured: nothing to say */
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/*
 * A run computed as two views of its nodes (nodes 0 and 1, then 2 and 3,
 * each at places 0 and 1 of its own graph), a worker's share of each
 * view's second node not measured: the ticks time the run. The first
 * view's ticks were held at thread 0's share ends, places 0 and 1, where
 * the second view's shares end too: each op still ends at its own view's
 * tick, so that ops 0 and 1 end at least 50 ms before ops 2 and 3 (lower
 * bounds only: a thread paused in an op makes them longer, never shorter).
 */
START_TEST(ticks_of_a_view_are_kept_from_the_next_view)
{
	struct pool p = { .skip_thread = THREADS - 1, .skip_node = 1, .stop_after = -1 };
	struct seen *s = two_graphs_a_run(&p, "shares-views-ticked", 85, 2, 2, 2);

	for (size_t run = 0; run < 2; run++) {
		const struct ggmlviz_timing *op = &s->op[run * NODES];

		for (int i = 0; i < NODES; i++)
			ck_assert_int_eq(op[i].method, GGMLVIZ_OP_METHOD_TICK);
		for (int i = 0; i < 2; i++) /* its own view's end, not the next view's */
			ck_assert_msg(op[i + 2].end_ns >= op[i].end_ns + 50000000u,
				      "run %zu: op %d ends at %llu ns, op %d at %llu", run, i,
				      (unsigned long long)op[i].end_ns, i + 2,
				      (unsigned long long)op[i + 2].end_ns);
		ck_assert_uint_ge(op[2].duration_ns, 50000000u); /* from the first view's last tick */
	}
	free(s);
}
END_TEST

/* ---- shares of long graphs, and long shares ---- */

static struct seen *long_seen;

/* one_thread_graph()'s calls, the test's clock around each: each share's
 * begin and end, and the graph's end. */
static struct call begun[MAX_SEEN], ended[MAX_SEEN], graph_end;

static void note_long(const struct ggmlviz_timing *t, void *arg)
{
	(void)arg;
	if (t->kind == GGMLVIZ_TIMING_SHARE && long_seen->shares < MAX_SEEN)
		long_seen->share[long_seen->shares++] = *t;
}

/*
 * A graph of n nodes computed by one thread, each share work_ns long, then
 * gap_ns before the next share (its wait), in a session that flushes
 * every flush_ms; its shares read back, in order.
 */
static struct seen *one_thread_graph(uint32_t flush_ms, int n, uint64_t work, uint64_t gap)
{
	static const struct gs_node node = { 3, "MUL_MAT", "long", 0 };
	const void *graph_nodes[MAX_SEEN];
	struct ggmlviz_config cfg;
	char path[256];
	char pool;

	for (int i = 0; i < n; i++)
		graph_nodes[i] = &node;
	tu_config_cpu(&cfg, path, sizeof path, "shares-long");
	cfg.flush_interval_ms = flush_ms;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < n; i++) {
		begun[i].before = tu_monotonic_ns();
		ggmlviz_cpu_share_begin(&pool, 0, i);
		begun[i].after = tu_monotonic_ns();
		tu_sleep_ns(work);
		ended[i].before = tu_monotonic_ns();
		ggmlviz_cpu_share_end(&pool, 0, i);
		ended[i].after = tu_monotonic_ns();
		tu_sleep_ns(gap);
	}
	graph_end.before = tu_monotonic_ns();
	ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, graph_nodes, n, op_of), n);
	graph_end.after = tu_monotonic_ns();
	ck_assert_int_eq(ggmlviz_stop(), 0);
	long_seen = calloc(1, sizeof *long_seen);
	ck_assert_ptr_nonnull(long_seen);
	ck_assert_int_eq(tu_each_timing(path, note_long, NULL), 0);
	unlink(path);
	ck_assert_uint_eq(long_seen->shares, (size_t)n);
	return long_seen;
}

/*
 * A time read back against the test's own clock around the calls that
 * stamped it, from..to: at least what lay between them (held to the
 * field's 32 bits of ns), at most what lay around them, within 1% and 100
 * us (the clock's calibration). Not against the sleeps asked for: a loaded
 * machine wakes a sleeper late (one CPU beside two busy loops: a share of
 * 20 ms read 36 to 65 ms, rightly).
 */
static void assert_between(uint64_t got, const struct call *from, const struct call *to,
			   const char *what, size_t i)
{
	uint64_t least = to->before - from->after, most = to->after - from->before;

	if (least > UINT32_MAX)
		least = UINT32_MAX;

	ck_assert_msg(got + least / 100 + 100000 >= least && got <= most + most / 100 + 100000,
		      "share %zu: %s %llu ns, not from %llu to %llu ns", i, what,
		      (unsigned long long)got, (unsigned long long)least, (unsigned long long)most);
}

/* Share i's compute and wait (until the next share began, or the graph ended). */
static void assert_share(const struct seen *s, size_t i)
{
	const struct call *next = i + 1 < s->shares ? &begun[i + 1] : &graph_end;

	assert_between(s->share[i].duration_ns, &begun[i], &ended[i], "compute", i);
	assert_between(s->share[i].value, &ended[i], next, "wait", i);
}

/*
 * Pool p computes its graph twice, asked in full, in a session of its own
 * (tag); the session's records read back. Every op of the second run is
 * timed by ticks (a share of p is not measured) and lasts from one of
 * thread 0's ticks to the next, in order, against the test's clock.
 */
static void assert_ticked_twice(struct pool *p, const char *tag, int written[THREADS])
{
	char path[256];
	struct seen *s;

	ck_assert_int_eq(pthread_barrier_init(&p->barrier, NULL, THREADS), 0);
	start(tag, path, sizeof path, 0);
	run_graph(p, 1, written);
	run_graph(p, 1, written);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_ge(s->ops, NODES);
	for (size_t k = 0; k < NODES; k++) {
		const struct ggmlviz_timing *op = &s->op[s->ops - NODES + k];

		ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_TICK);
		if (k > 0)
			assert_between(op->duration_ns, &p->ticked[k - 1], &p->ticked[k], "op", k);
	}
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p->barrier);
}

/* A worker's share of node 1 not measured: the run is timed by the ticks, all held. */
START_TEST(a_share_not_measured_leaves_the_ticks)
{
	struct pool p = { .skip_thread = THREADS - 1, .skip_node = 1, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];

	assert_ticked_twice(&p, "shares-skip", written);
	ck_assert_int_eq(written[THREADS - 1], NODES - 1);
}
END_TEST

/*
 * Thread 0's tick right after its share takes that share's end, and is
 * held to the graph's end (ggmlviz__tls_node); one with no share (thread
 * 0's of node 2 not measured) reads the clock and is recorded at once,
 * after those held before it.
 */
START_TEST(ticks_held_and_not_keep_their_order)
{
	struct pool p = { .skip_thread = 0, .skip_node = 2, .n_nodes = NODES, .stop_after = -1 };
	int written[THREADS];

	assert_ticked_twice(&p, "shares-held", written);
}
END_TEST

/*
 * A session stopped in the middle of a graph, after thread 0's share of
 * node 1 ended (or inside the threads' shares of node 1, their begins
 * stored): that share's end stays in its slot. In the next session
 * node 1 is a view (no share, no tick) and a worker's share of node 2 is
 * not measured, so the ticks time the run; the stale end of node 1 is no
 * tick of the new graph (the stopped graph's end moved the thread's
 * floor past it), and each op lasts from one tick to the next.
 */
START_TEST(a_share_before_a_stop_is_no_later_graphs)
{
	struct pool p = { .skip_thread = -1, .skip_node = -1, .n_nodes = NODES, .stop_after = -1 };
	const int op_node[] = { 0, 2, 3 };
	int written[THREADS];
	char path[256];
	struct seen *s;

	if (_i == 0)
		p.stop_after = 1;
	else
		p.stop_inside = 1;
	ck_assert_int_eq(pthread_barrier_init(&p.barrier, NULL, THREADS), 0);
	start("shares-stopped", path, sizeof path, 0);
	run_graph(&p, 1, written); /* stopped after node 1's tick, or inside its share */
	p.stop_inside = 0;
	unlink(path);
	p.skip_thread = THREADS - 1;
	p.skip_node = 2;
	p.view = 1;
	p.stop_after = -1;
	start("shares-after-stop", path, sizeof path, 0);
	for (int i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, describe_view, NULL), 0);
	compute_all(&p, written);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, 3);
	for (size_t k = 1; k < 3; k++) {
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_TICK);
		assert_between(s->op[k].duration_ns, &p.ticked[op_node[k - 1]], &p.ticked[op_node[k]],
			       "op", k);
	}
	free(s);
	unlink(path);
	pthread_barrier_destroy(&p.barrier);
}
END_TEST

/*
 * A graph longer than the clock's history of calibration points (128 of
 * the writer's passes, 1 ms apart here): the first shares began before the
 * oldest point when the writer converts them, and keep their times.
 */
START_TEST(shares_of_a_graph_longer_than_the_calibration)
{
	const uint64_t work = 20000000, gap = 2000000; /* 22 ms a node: 330 ms in all */
	struct seen *s = one_thread_graph(1, 15, work, gap);

	for (size_t i = 0; i < s->shares; i++)
		assert_share(s, i);
	free(s);
}
END_TEST

/*
 * A share of 4.2 s, up to the field's 4.29 s (a stamp difference past 2^32
 * TSC ticks, 1.4 to 2 s), and its wait.
 */
START_TEST(a_share_up_to_the_fields_limit)
{
	const uint64_t work = 4200000000u, gap = 100000000;
	struct seen *s = one_thread_graph(100, 1, work, gap);

	assert_share(s, 0);
	free(s);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *suite = suite_create("shares");
	TCase *c = tcase_create("shares");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, shares_measure_every_thread);
	tcase_add_test(c, workers_kept_through_graphs_measure_every_run);
	tcase_add_test(c, a_share_not_measured_leaves_the_ticks);
	tcase_add_test(c, ticks_held_and_not_keep_their_order);
	tcase_add_loop_test(c, a_share_before_a_stop_is_no_later_graphs, 0, 2);
	tcase_add_test(c, a_repeat_asked_alone_with_a_view_is_measured);
	tcase_add_test(c, a_repeat_measured_at_other_places_is_not_measured);
	tcase_add_test(c, a_run_computed_again_takes_the_last_graph);
	tcase_add_test(c, a_view_computed_after_its_run_takes_its_nodes);
	tcase_add_test(c, ticks_of_a_view_are_kept_from_the_next_view);
	tcase_add_test(c, nodes_no_run_asked_about_are_counted);
	tcase_add_test(c, thread_0_taken_by_another_thread_times_its_own_shares);
	tcase_add_test(c, nothing_when_not_tracing_or_rolling);
	tcase_add_test(c, shares_of_a_graph_longer_than_the_calibration);
	tcase_add_test(c, a_share_up_to_the_fields_limit);
	suite_add_tcase(suite, c);
	return suite;
}

int main(void)
{
	return run_suite(make_suite());
}
