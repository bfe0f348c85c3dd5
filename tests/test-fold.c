/*
 * Each node's span over its workers, folded a slice per worker
 * (lib/tracer/producer/fold.h): every worker but thread 0 folds its
 * slice of the graph's places in its graph_done, and thread 0 takes a
 * worker's slice where the worker's mark lies in this graph.
 *   - the fold itself: first begin, last end, a share whose end came
 *     before its begin leaving its place without a span; slices of
 *     whole cache lines that cover the graph;
 *   - a pool of 3 threads computes 40 nodes (the two workers' slices of
 *     24 and 16), or 5 (16, 16, 8 and an empty one), its workers'
 *     graph_done before thread 0's: every op spans its shares, and every
 *     worker's slice was taken;
 *   - the same, the workers' graph_done after thread 0's (a worker
 *     still folding, as GGML's threadpool build allows): their slices of
 *     the graph before are marked, none is taken, and every op still
 *     spans its shares, read from the stamps;
 *   - worker 1's graph_done held until thread 0 began the next graph:
 *     its fold is not taken there, nor in the next graph, where thread
 *     0's graph_done comes first;
 *   - a graph of another size at each step, at 2, 3 and 5 threads: every
 *     op of every graph spans its shares, every slice taken;
 *   - 24 pools in turn, more than the boards their slots are found
 *     through: every pool's workers' slices are taken; so too where each
 *     pool's workers outlive thread 0's move to the next pool (the board
 *     emptied by a worker, not by thread 0), and where another pool
 *     computes on its own threads all the while (boards emptied and
 *     taken again beside a board in use: its slices still taken).
 *   - a worker that ends inside a graph, its slot taken by another thread
 *     there or not: that graph timed by the ticks, the graphs around it
 *     measured (ThreadSanitizer: thread 0's reads of that slot, its
 *     pool, place and stamps, raced the new thread's stores when they
 *     were plain loads).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"
#include "tracer/base/compat.h"
#include "tracer/producer/fold.h"
#include "tracer/producer/producer.h"

#define MAX_THREADS 5
#define NODES 40
#define MAX_SEEN 4096

static struct gs_node graph[NODES];
static const void *nodes[NODES];
static char cpu_backend;

static void make_graph(void)
{
	for (int i = 0; i < NODES; i++) {
		graph[i] = (struct gs_node){ (uint32_t)(1 + i % 7), "MUL_MAT", "node", 0 };
		nodes[i] = &graph[i];
	}
}

static uint32_t op_of(const void *node)
{
	return ((const struct gs_node *)node)->op;
}

/* How long thread t works on node i: every thread a different time. */
static uint64_t work_ns(int t, int i)
{
	return 2000u + (uint64_t)t * 3000u + (uint64_t)(i % 5) * 500u;
}

/* A graph's order of graph_done: thread 0's first, the workers' first, or worker 1's late. */
enum { THREAD_0_FIRST, WORKERS_FIRST, WORKER_1_LATE };

struct pool;

struct worker {
	struct pool *pool;
	int ith;
};

struct pool {
	pthread_barrier_t barrier;
	int threads;
	_Atomic int began; /* the last graph whose first share thread 0 began */
	const int *workers_first; /* each graph's order, as above */
	const int *sizes;         /* each graph's nodes (NULL: NODES each) */
	int graphs;
	pthread_t th[MAX_THREADS];
	struct worker w[MAX_THREADS];
	_Atomic uint32_t tid[MAX_THREADS]; /* each thread's, as the trace has it */
	_Atomic int leave;   /* the workers may end: until then they wait, their graphs done */
	int linger;          /* the workers not ended with the graphs: by another's run_graphs() */
	struct pool *before; /* whose workers end after this pool's first graph (NULL: none) */
};

static int nodes_of(const struct pool *p, int g)
{
	return p->sizes ? p->sizes[g] : NODES;
}

/* Worker 1's graph_done of the graph before, held until thread 0 began graph g. */
static void late_graph_done(struct worker *w, int g)
{
	struct pool *p = w->pool;

	if (w->ith != 1 || g == 0 || p->workers_first[g - 1] != WORKER_1_LATE)
		return;
	while (atomic_load(&p->began) < g)
		tu_spin_ns(1000);
	ck_assert_int_eq(ggmlviz_cpu_graph_done(p, 1, p->threads, nodes, nodes_of(p, g - 1), op_of),
			 nodes_of(p, g - 1));
}

/*
 * ggml_graph_compute_thread, for one thread, its graph_done in the order
 * asked; with WORKER_1_LATE, worker 1's after thread 0 began the next graph
 * (GGML's threadpool build has no barrier after graph_done).
 */
static void compute(struct worker *w, int g)
{
	struct pool *p = w->pool;
	const int order = p->workers_first[g], n = nodes_of(p, g);
	int first = w->ith == 0 ? order == THREAD_0_FIRST : order != THREAD_0_FIRST;

	late_graph_done(w, g);
	for (int i = 0; i < n; i++) {
		ggmlviz_cpu_share_begin(p, w->ith, i);
		if (w->ith == 0 && i == 0)
			atomic_store(&p->began, g);
		tu_spin_ns(work_ns(w->ith, i));
		ggmlviz_cpu_share_end(p, w->ith, i);
		if (w->ith == 0)
			ggmlviz_nodes_tick();
		pthread_barrier_wait(&p->barrier);
	}
	if (order == WORKER_1_LATE && w->ith == 1)
		first = -1; /* at the next graph's start */
	if (first == 1)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(p, w->ith, p->threads, nodes, n, op_of), n);
	pthread_barrier_wait(&p->barrier); /* the graph_done of one side, then the other's */
	if (first == 0)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(p, w->ith, p->threads, nodes, n, op_of), n);
}

/*
 * A worker through every graph, as a threadpool's: its slot and its marks
 * kept; then it waits until it may end (its slot given back then).
 */
static void *worker_main(void *arg)
{
	struct worker *w = arg;

	atomic_store(&w->pool->tid[w->ith], ggmlviz__os_gettid());
	for (int g = 0; g < w->pool->graphs; g++) {
		pthread_barrier_wait(&w->pool->barrier); /* thread 0 asked the graph's nodes */
		compute(w, g);
	}
	while (!atomic_load(&w->pool->leave))
		usleep(100);
	return NULL;
}

static void pool_init(struct pool *p, int threads, const int *workers_first, int n)
{
	*p = (struct pool){ .threads = threads, .workers_first = workers_first, .graphs = n };
	ck_assert_int_eq(pthread_barrier_init(&p->barrier, NULL, (unsigned)threads), 0);
	atomic_store(&p->tid[0], ggmlviz__os_gettid()); /* thread 0 is the caller of run_graphs() */
	for (int t = 0; t < threads; t++)
		p->w[t] = (struct worker){ p, t };
}

/* The pool's workers, each on a thread of its own. */
static void workers_start(struct pool *p)
{
	for (int t = 1; t < p->threads; t++)
		ck_assert_int_eq(pthread_create(&p->th[t], NULL, worker_main, &p->w[t]), 0);
}

/* The pool's workers told they may end, and joined: their slots leave its board. */
static void workers_end(struct pool *p)
{
	atomic_store(&p->leave, 1);
	for (int t = 1; t < p->threads; t++)
		pthread_join(p->th[t], NULL);
	pthread_barrier_destroy(&p->barrier); /* no worker is in it any more */
}

/* Graph g, its nodes asked on this thread (thread 0) and computed by the pool. */
static void graph_run(struct pool *p, int g)
{
	for (int i = 0; i < nodes_of(p, g); i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
	pthread_barrier_wait(&p->barrier);
	compute(&p->w[0], g);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

/*
 * The pool's graphs, its workers made first; after the first graph (thread
 * 0's slot has left the pool before's board), the pool before's workers end.
 */
static void run_graphs(struct pool *p)
{
	workers_start(p);
	for (int g = 0; g < p->graphs; g++) {
		graph_run(p, g);
		if (g == 0 && p->before)
			workers_end(p->before);
	}
	if (!p->linger)
		workers_end(p);
}

struct seen {
	struct ggmlviz_timing op[MAX_SEEN], share[MAX_SEEN];
	size_t ops, shares;
	uint64_t folds_taken; /* the workers' slices thread 0 took */
	const _Atomic uint32_t *only; /* the threads whose timings are kept (NULL: every one) */
	int n_only;
};

static int kept(const struct seen *s, uint32_t tid)
{
	for (int t = 0; t < s->n_only; t++)
		if (atomic_load(&s->only[t]) == tid)
			return 1;
	return !s->only;
}

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (!kept(s, t->thread_id))
		return;
	if (t->kind == GGMLVIZ_TIMING_OP && s->ops < MAX_SEEN)
		s->op[s->ops++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_SHARE && s->shares < MAX_SEEN)
		s->share[s->shares++] = *t;
}

/* The timings of the trace at path, of pool p's threads only (NULL: every thread's). */
static struct seen *read_back(const char *path, const struct pool *p)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	s->only = p ? p->tid : NULL;
	s->n_only = p ? p->threads : 0;
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	ck_assert_uint_lt(s->ops, MAX_SEEN); /* none left out */
	ck_assert_uint_lt(s->shares, MAX_SEEN);
	return s;
}

static void session_start(char *path, size_t size, const char *tag)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

/* Thread t's share of node i in op: the latest to end by the op's end (within the conversion). */
static const struct ggmlviz_timing *share_in(const struct seen *s, uint32_t t, uint32_t i,
					     const struct ggmlviz_timing *op)
{
	const struct ggmlviz_timing *best = NULL;

	for (size_t k = 0; k < s->shares; k++) {
		const struct ggmlviz_timing *sh = &s->share[k];

		if (sh->ticks == t && sh->n_nodes == i && sh->end_ns <= op->end_ns + 1000 &&
		    (!best || sh->end_ns > best->end_ns))
			best = sh;
	}
	return best;
}

static uint64_t apart(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * The n ops of a run, from the trace's op from: each measured, from its
 * shares' first begin (the run's first: the last begin) to their last
 * end, within the clock's conversion.
 */
static void assert_run_spans_its_shares(const struct seen *s, uint32_t threads, size_t from,
					uint32_t n)
{
	ck_assert_uint_ge(s->ops, from + n);
	for (uint32_t i = 0; i < n; i++) {
		const struct ggmlviz_timing *op = &s->op[from + i];
		uint64_t first = UINT64_MAX, latest = 0, last = 0;

		ck_assert_int_eq(op->method, GGMLVIZ_OP_METHOD_MEASURED);
		for (uint32_t t = 0; t < threads; t++) {
			const struct ggmlviz_timing *sh = share_in(s, t, i, op);

			ck_assert_msg(sh != NULL, "node %u: thread %u's share", i, t);
			first = sh->begin_ns < first ? sh->begin_ns : first;
			latest = sh->begin_ns > latest ? sh->begin_ns : latest;
			last = sh->end_ns > last ? sh->end_ns : last;
		}
		ck_assert_msg(apart(op->begin_ns, i ? first : latest) <= 1000,
			      "node %u begins at %llu, its shares at %llu", i,
			      (unsigned long long)op->begin_ns, (unsigned long long)(i ? first : latest));
		ck_assert_msg(apart(op->end_ns, last) <= 1000, "node %u ends at %llu, its shares at %llu",
			      i, (unsigned long long)op->end_ns, (unsigned long long)last);
	}
}

/* The last run's ops (the trace's last NODES), as above. */
static void assert_ops_span_their_shares(const struct seen *s, uint32_t threads)
{
	ck_assert_uint_ge(s->ops, NODES);
	assert_run_spans_its_shares(s, threads, s->ops - NODES, NODES);
}

/*
 * Graphs computed by pool pp (pool_init(); its address GGML's
 * threadpool's), in a session of their own, read back.
 */
static struct seen *graphs_in(struct pool *pp, const char *tag)
{
	char path[256];
	uint64_t taken;
	struct seen *s;

	make_graph();
	session_start(path, sizeof path, tag);
	taken = ggmlviz__shares_folds_taken();
	run_graphs(pp);
	taken = ggmlviz__shares_folds_taken() - taken;
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_back(path, NULL);
	s->folds_taken = taken;
	return s;
}

/* Graphs computed by one pool, the workers' graph_done first in those of workers_first[] that say so. */
static struct seen *graphs(const char *tag, int threads, const int *workers_first, int n)
{
	struct pool p;

	pool_init(&p, threads, workers_first, n);
	return graphs_in(&p, tag);
}

START_TEST(a_slice_folds_first_begins_and_last_ends)
{
	uint64_t b0[16] = { 0 }, e0[16] = { 0 }, b1[16] = { 0 }, e1[16] = { 0 };
	const uint64_t *begin[2] = { b0, b1 }, *end[2] = { e0, e1 };
	uint64_t first[16], latest[16], last[16];

	for (int i = 0; i < 16; i++) {
		b0[i] = 1000u + 100u * (uint64_t)i;
		e0[i] = b0[i] + 40u;
		b1[i] = b0[i] + (i % 2 ? 5u : 0u) - (i % 3 ? 0u : 3u);
		e1[i] = b1[i] + 60u - (uint64_t)(i % 4) * 10u;
	}
	e1[9] = b1[9] - 1; /* an end before its begin: no span */
	ggmlviz__fold_slice(first, latest, last, begin, end, 2, 8, 16);
	for (int i = 8; i < 16; i++) {
		uint64_t f = b0[i] < b1[i] ? b0[i] : b1[i], l = e0[i] > e1[i] ? e0[i] : e1[i];

		ck_assert_uint_eq(first[i], i == 9 ? 0 : f);
		ck_assert_uint_eq(latest[i], b0[i] > b1[i] ? b0[i] : b1[i]);
		if (i != 9)
			ck_assert_uint_eq(last[i], l);
	}
}
END_TEST

START_TEST(slices_are_whole_lines_and_cover_the_graph)
{
	static const uint32_t n[] = { 1, 7, 8, 40, 141, 1000, 16384 };

	for (size_t a = 0; a < sizeof n / sizeof *n; a++)
		for (uint32_t slices = 1; slices <= 64; slices++) {
			uint32_t chunk = ggmlviz__fold_chunk(n[a], slices);

			ck_assert_uint_eq(chunk % 8, 0);
			ck_assert_uint_ge((uint64_t)chunk * slices, n[a]);
			ck_assert_uint_lt(chunk - 8, (n[a] + slices - 1) / slices);
		}
}
END_TEST

/* _i: 3 threads (slices of 24 and 16 places), or 5 (16, 16, 8, and one empty). */
START_TEST(ops_span_their_shares_from_the_workers_folds)
{
	static const int order[] = { WORKERS_FIRST, WORKERS_FIRST, WORKERS_FIRST };
	const int threads = _i ? 5 : 3;
	struct seen *s = graphs("fold-first", threads, order, 3);

	assert_ops_span_their_shares(s, (uint32_t)threads);
	ck_assert_uint_eq(s->folds_taken, 3u * (uint64_t)(threads - 1)); /* every slice folded */
	free(s);
}
END_TEST

START_TEST(a_fold_of_the_graph_before_is_not_taken)
{
	static const int order[] = { WORKERS_FIRST, WORKERS_FIRST, THREAD_0_FIRST };
	const int threads = _i ? 5 : 3;
	struct seen *s = graphs("fold-late", threads, order, 3);

	assert_ops_span_their_shares(s, (uint32_t)threads);
	ck_assert_uint_eq(s->folds_taken, 2u * (uint64_t)(threads - 1)); /* none of the third */
	free(s);
}
END_TEST

/*
 * Worker 1 held in its graph_done of the second graph until thread 0 began
 * the third, then thread 0's graph_done of the third before the workers':
 * worker 1's fold of the second may hold the third's stamps (thread 0's
 * begin of its first node among them), and it is not taken; nor is the
 * second's slice, which it had not folded yet.
 */
START_TEST(a_fold_held_past_the_next_graphs_start_is_not_taken)
{
	static const int order[] = { WORKERS_FIRST, WORKER_1_LATE, THREAD_0_FIRST };
	const int threads = _i ? 5 : 3;
	struct seen *s = graphs("fold-held", threads, order, 3);

	assert_ops_span_their_shares(s, (uint32_t)threads);
	ck_assert_uint_eq(s->folds_taken, (uint64_t)(threads - 1) + (uint64_t)(threads - 2));
	free(s);
}
END_TEST

/*
 * _i: 2, 3 or 5 threads, each graph of another size (a chunk of its own at
 * every one; a slice of 8 places, or none): every op of every graph spans
 * its shares, and from 3 threads every worker's slice of every graph was
 * taken.
 */
START_TEST(a_graph_of_another_size_at_each_step)
{
	static const int order[] = { WORKERS_FIRST, WORKERS_FIRST, WORKERS_FIRST,
				     WORKERS_FIRST, WORKERS_FIRST, WORKERS_FIRST };
	static const int sizes[] = { 8, 40, 17, 33, 40, 25 };
	static const int threads_of[] = { 2, 3, 5 };
	const int threads = threads_of[_i], graphs_n = (int)(sizeof sizes / sizeof *sizes);
	struct pool p;
	struct seen *s;
	size_t from = 0;

	pool_init(&p, threads, order, graphs_n);
	p.sizes = sizes;
	s = graphs_in(&p, "fold-sizes");
	for (int g = 0; g < graphs_n; g++) {
		assert_run_spans_its_shares(s, (uint32_t)threads, from, (uint32_t)sizes[g]);
		if (g) /* its own graph's times, not the graph before's */
			ck_assert_uint_ge(s->op[from].begin_ns, s->op[from - 1].end_ns);
		from += (size_t)sizes[g];
	}
	ck_assert_uint_eq(s->ops, from);
	ck_assert_uint_eq(s->folds_taken, threads < 3 ? 0 : (uint64_t)graphs_n * (uint64_t)(threads - 1));
	free(s);
}
END_TEST

#define POOLS_IN_TURN 24

/*
 * POOLS_IN_TURN pools of 3 threads in turn, 2 graphs each, every pool's
 * slices taken; with linger, each pool's workers end only after the next
 * pool's first graph.
 */
static void pools_in_turn(const char *tag, int linger)
{
	static const int order[] = { WORKERS_FIRST, WORKERS_FIRST };
	static struct pool pools[POOLS_IN_TURN];

	for (size_t k = 0; k < POOLS_IN_TURN; k++) {
		struct seen *s;

		pool_init(&pools[k], 3, order, 2);
		pools[k].linger = linger && k + 1 < POOLS_IN_TURN;
		pools[k].before = linger && k ? &pools[k - 1] : NULL;
		s = graphs_in(&pools[k], tag);
		assert_ops_span_their_shares(s, 3);
		ck_assert_msg(s->folds_taken == 4, "pool %zu: %llu slices taken, not 4", k,
			      (unsigned long long)s->folds_taken);
		free(s);
	}
}

/*
 * Pool after pool, each of 3 threads that end with it, at addresses of
 * their own (llama-bench makes one at each test): more than the boards
 * the slots are found through. Each pool's board is emptied as its last
 * slot leaves, so that the later pools' workers still fold their slices
 * (a board taken again while its pool's threads may run folds none).
 */
START_TEST(folds_go_on_past_as_many_pools_as_boards)
{
	pools_in_turn("fold-pools", 0);
}
END_TEST

/*
 * The same, each pool's workers alive until thread 0 has computed the next
 * pool's first graph (as GGML's workers may outlive the graph's thread's
 * move to another pool): the last slot to leave a board is a worker's, in
 * its thread's end, and the board is empty again all the same.
 */
START_TEST(a_board_its_workers_leave_last_is_empty_again)
{
	pools_in_turn("fold-linger", 1);
}
END_TEST

#define QUIT_AT 5

/*
 * A pool of 3 whose worker 2 ends inside its second graph, after its share
 * of node QUIT_AT - 1 (GGML's workers end with their pool only: a program
 * of its own may do it). With take, another thread then takes a slot for
 * a pool of its own at once: the one the ended worker gave back, which the
 * board still names for thread 0 and worker 1.
 */
struct quit {
	pthread_barrier_t three, two; /* the pool's barrier, before and after worker 2 ends */
	int take;
	pthread_t worker[3], taker;
};

static char quit_pool, taker_pool;

/* Node i's share of thread ith, then the barrier of those still computing. */
static void quit_share(int ith, int i, pthread_barrier_t *b)
{
	ggmlviz_cpu_share_begin(&quit_pool, ith, i);
	tu_spin_ns(work_ns(ith, i));
	ggmlviz_cpu_share_end(&quit_pool, ith, i);
	if (ith == 0)
		ggmlviz_nodes_tick();
	pthread_barrier_wait(b);
}

static void *taker_main(void *arg)
{
	(void)arg;
	ggmlviz_cpu_share_begin(&taker_pool, 0, 0);
	ggmlviz_cpu_share_end(&taker_pool, 0, 0);
	return NULL;
}

/* Thread 0 where worker 2 ended: another thread takes a slot, if asked. */
static void quit_seen(struct quit *q)
{
	pthread_join(q->worker[2], NULL); /* its slot given back */
	if (q->take) /* as the graph goes on: joined after it */
		ck_assert_int_eq(pthread_create(&q->taker, NULL, taker_main, NULL), 0);
}

/*
 * Graph g on thread ith, the workers' graph_done before thread 0's; 0 where
 * the thread ends inside it (worker 2 of graph 1).
 */
static int quit_graph(struct quit *q, int ith, int g)
{
	pthread_barrier_t *b = &q->three;

	pthread_barrier_wait(b); /* thread 0 asked the graph's nodes */
	for (int i = 0; i < NODES; i++) {
		if (g == 1 && i == QUIT_AT) {
			if (ith == 2)
				return 0;
			if (ith == 0)
				quit_seen(q);
			b = &q->two;
		}
		quit_share(ith, i, b);
	}
	if (ith)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(&quit_pool, ith, 3, nodes, NODES, op_of), NODES);
	pthread_barrier_wait(b);
	if (!ith)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(&quit_pool, 0, 3, nodes, NODES, op_of), NODES);
	return 1;
}

struct quitter {
	struct quit *q;
	int ith, from, to; /* its graphs */
};

static void *quitter_main(void *arg)
{
	struct quitter *w = arg;

	for (int g = w->from; g < w->to && quit_graph(w->q, w->ith, g); g++)
		continue;
	return NULL;
}

/*
 * _i: worker 2 ends inside graph 1 of 3 (0), and a thread takes its slot
 * there (1), a new thread worker 2 from graph 2. Nothing crashes, and no
 * race (ThreadSanitizer): graphs 0 and 2 span their 3 shares, and each
 * of graph 1's ops is timed by the ticks, as a run with a node some
 * worker did not measure is (the ended worker's shares of it are not
 * written: its graph_done never came).
 */
START_TEST(a_worker_that_ends_inside_a_graph)
{
	static struct quit q;
	struct quitter w[4] = { { &q, 0, 0, 3 }, { &q, 1, 0, 3 }, { &q, 2, 0, 2 }, { &q, 2, 2, 3 } };
	char path[256];
	struct seen *s;

	make_graph();
	q.take = _i;
	ck_assert_int_eq(pthread_barrier_init(&q.three, NULL, 3), 0);
	ck_assert_int_eq(pthread_barrier_init(&q.two, NULL, 2), 0);
	session_start(path, sizeof path, "fold-quit");
	ck_assert_int_eq(pthread_create(&q.worker[1], NULL, quitter_main, &w[1]), 0);
	ck_assert_int_eq(pthread_create(&q.worker[2], NULL, quitter_main, &w[2]), 0);
	for (int g = 0; g < 3; g++) {
		if (g == 2) /* worker 2 again, a new thread */
			ck_assert_int_eq(pthread_create(&q.worker[2], NULL, quitter_main, &w[3]), 0);
		for (int i = 0; i < NODES; i++)
			ck_assert_int_eq(ggmlviz_nodes_ask(nodes[i], &cpu_backend, gs_describe, NULL), 0);
		ck_assert_int_eq(quit_graph(&q, 0, g), 1);
		ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
		if (g == 1 && q.take)
			pthread_join(q.taker, NULL);
	}
	pthread_join(q.worker[1], NULL);
	pthread_join(q.worker[2], NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	pthread_barrier_destroy(&q.three);
	pthread_barrier_destroy(&q.two);
	s = read_back(path, NULL);
	ck_assert_uint_eq(s->ops, 3u * NODES);
	assert_run_spans_its_shares(s, 3, 0, NODES);
	assert_run_spans_its_shares(s, 3, 2u * NODES, NODES);
	for (uint32_t i = 0; i < NODES; i++) {
		const struct ggmlviz_timing *op = &s->op[NODES + i];

		ck_assert_msg(op->method == GGMLVIZ_OP_METHOD_TICK, "node %u: method %d", i,
			      op->method);
		ck_assert_uint_gt(op->duration_ns, 0);
	}
	free(s);
}
END_TEST

#define BESIDE_GRAPHS 12
#define BESIDE_POOLS 24

/* A pool that computes beside the others, on a thread 0 of its own. */
struct beside {
	struct pool p;
	const _Atomic int *pools_done; /* of the others: its graph g waits for 2g */
	uint64_t folds_taken;
};

static void *beside_main(void *arg)
{
	struct beside *b = arg;
	uint64_t taken = ggmlviz__shares_folds_taken();

	atomic_store(&b->p.tid[0], ggmlviz__os_gettid());
	workers_start(&b->p);
	for (int g = 0; g < b->p.graphs; g++) {
		while (atomic_load(b->pools_done) < 2 * g)
			usleep(100);
		graph_run(&b->p, g);
	}
	workers_end(&b->p);
	b->folds_taken = ggmlviz__shares_folds_taken() - taken;
	return NULL;
}

/*
 * One pool of 3 threads computes its graphs while, on other threads, 24
 * pools are made in turn, each emptying a board as it ends and the next
 * taking one: the pool beside keeps its board and every slice of its
 * graphs, and every pool in turn its own (ThreadSanitizer: no race).
 */
START_TEST(boards_taken_again_beside_a_pool_computing)
{
	static const int order[] = { WORKERS_FIRST, WORKERS_FIRST };
	static int beside_order[BESIDE_GRAPHS];
	static struct pool pools[BESIDE_POOLS];
	static struct beside b;
	static _Atomic int done;
	uint64_t taken[BESIDE_POOLS];
	pthread_t th;
	char path[256];
	struct seen *s;

	for (int g = 0; g < BESIDE_GRAPHS; g++)
		beside_order[g] = WORKERS_FIRST;
	make_graph();
	atomic_store(&done, 0);
	pool_init(&b.p, 3, beside_order, BESIDE_GRAPHS);
	b.pools_done = &done;
	session_start(path, sizeof path, "fold-beside");
	ck_assert_int_eq(pthread_create(&th, NULL, beside_main, &b), 0);
	for (int k = 0; k < BESIDE_POOLS; k++) {
		taken[k] = ggmlviz__shares_folds_taken();
		pool_init(&pools[k], 3, order, 2);
		run_graphs(&pools[k]);
		taken[k] = ggmlviz__shares_folds_taken() - taken[k];
		atomic_fetch_add(&done, 1);
	}
	pthread_join(th, NULL);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	for (int k = 0; k < BESIDE_POOLS; k++)
		ck_assert_msg(taken[k] == 4, "pool %d: %llu slices taken, not 4", k,
			      (unsigned long long)taken[k]);
	ck_assert_uint_eq(b.folds_taken, 2u * BESIDE_GRAPHS);
	s = read_back(path, &b.p); /* the pool beside's last graph */
	ck_assert_uint_eq(s->ops, (size_t)BESIDE_GRAPHS * NODES);
	assert_ops_span_their_shares(s, 3);
	free(s);
	s = read_back(path, &pools[BESIDE_POOLS - 1]); /* the last pool's, and thread 0's every op */
	assert_ops_span_their_shares(s, 3);
	free(s);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("fold");
	TCase *c = tcase_create("fold");

	tcase_set_timeout(c, 60);
	tcase_add_test(c, a_slice_folds_first_begins_and_last_ends);
	tcase_add_test(c, slices_are_whole_lines_and_cover_the_graph);
	tcase_add_loop_test(c, ops_span_their_shares_from_the_workers_folds, 0, 2);
	tcase_add_loop_test(c, a_fold_of_the_graph_before_is_not_taken, 0, 2);
	tcase_add_loop_test(c, a_fold_held_past_the_next_graphs_start_is_not_taken, 0, 2);
	tcase_add_loop_test(c, a_graph_of_another_size_at_each_step, 0, 3);
	tcase_add_test(c, folds_go_on_past_as_many_pools_as_boards);
	tcase_add_test(c, a_board_its_workers_leave_last_is_empty_again);
	tcase_add_test(c, boards_taken_again_beside_a_pool_computing);
	tcase_add_loop_test(c, a_worker_that_ends_inside_a_graph, 0, 2);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
