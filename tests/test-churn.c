/*
 * Threads that come and go (a server's thread per request), with sessions
 * started and stopped beside them: 10000 short-lived threads (4 at a
 * time), each emitting marks, a run of nodes described once and repeated,
 * and a CPU graph's shares, then exiting.
 *   - churn: a thread starts and stops a session every few milliseconds
 *     meanwhile; every session's file is complete, its marks are what its
 *     stats say were written, nothing is dropped, and emitted = written +
 *     dropped; the library's memory (heap in use, rings mapped) is the
 *     same after the last thread as after the first half;
 *   - one trace of them all: read back, every thread's ops pair and every
 *     op of a repeated run gets its descriptions; the reader's memory
 *     grows by the threads' names only (its pairing engine and its sets
 *     of descriptions stay flat).
 * GGMLVIZ_CHURN_THREADS sets the count (bench/churn.sh runs it long).
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <pthread.h>
#include <stdatomic.h>
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
#include "trace-util.h"

#define AT_ONCE 4    /* threads alive at once */
#define MARKS 10     /* marks a thread emits */
#define NODES 3      /* nodes of its run, run twice (described once) */
#define WARM 1000    /* threads before the first measure */
#define RING_EVENTS 256 /* a ring of 16 KiB: a short life's events fit (the default, 4 MiB, costs its faults) */

static unsigned n_threads = 10000;

/* ---- what a thread does ---- */

static const char node[NODES] = { 0 };
static char pools[AT_ONCE];
static char backend;

static void describe(void *user, const void *const *nodes, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	(void)user;
	(void)nodes;
	(void)n;
	out->op_type = 3;
	out->ticks = 1; /* the backend computes it: a tick */
	out->name = "node";
	out->ne[0] = (int64_t)i + 1;
	out->flops = 100;
}

static uint32_t op_of(const void *n)
{
	(void)n;
	return 3;
}

/* One run of the nodes, computed by the calling thread alone as worker 0 of its pool. */
static void run(const void *pool)
{
	const void *nodes[NODES] = { &node[0], &node[1], &node[2] };

	ggmlviz_nodes_graph_id(7);
	for (int i = 0; i < NODES; i++)
		ggmlviz_nodes_ask(nodes[i], &backend, describe, NULL);
	for (int i = 0; i < NODES; i++) {
		ggmlviz_cpu_share_begin(pool, 0, i);
		ggmlviz_cpu_share_end(pool, 0, i);
		ggmlviz_nodes_tick();
	}
	ggmlviz_cpu_graph_done(pool, 0, 1, nodes, NODES, op_of);
	ggmlviz_nodes_flush();
}

static void *short_life(void *arg)
{
	const void *pool = arg;

	for (int i = 0; i < MARKS; i++)
		ggmlviz_mark("request", (uint64_t)i);
	run(pool);
	run(pool);
	return NULL;
}

/* Threads [from, to), AT_ONCE at a time. */
static void churn(unsigned from, unsigned to)
{
	pthread_t th[AT_ONCE];

	for (unsigned i = from; i < to; i += AT_ONCE) {
		unsigned k = to - i < AT_ONCE ? to - i : AT_ONCE;

		for (unsigned j = 0; j < k; j++)
			ck_assert_int_eq(pthread_create(&th[j], NULL, short_life, &pools[j]), 0);
		for (unsigned j = 0; j < k; j++)
			pthread_join(th[j], NULL);
	}
}

/* The library's memory now: heap in use (0 where a sanitizer's allocator says nothing). */
static uint64_t heap_in_use(void)
{
	struct mallinfo2 mi = mallinfo2();

	return mi.uordblks;
}

/* ---- sessions beside them ---- */

struct cycler {
	pthread_t thread;
	_Atomic int stop;
	unsigned sessions;
	uint64_t emitted, written, dropped, marks; /* summed over the sessions */
	int bad;                                    /* a session whose file or stats did not add up */
	char why[256];
};

/* The tests' config: small rings, no GPU. */
static void config(struct ggmlviz_config *cfg, const char *path)
{
	tu_config(cfg, path);
	cfg->gpu_kernels = 0;
	cfg->buffer_events = RING_EVENTS;
}

static void session_checked(struct cycler *c, unsigned k)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct timespec pause = { 0, 3000000 };
	char path[256];

	tu_path(path, sizeof path, "churn");
	config(&cfg, path);
	cfg.flush_interval_ms = 1 + k % 5;
	if (ggmlviz_start(&cfg) < 0) {
		c->bad = 1, snprintf(c->why, sizeof c->why, "session %u did not start", k);
		return;
	}
	nanosleep(&pause, NULL);
	if (ggmlviz_stop() < 0)
		c->bad = 1, snprintf(c->why, sizeof c->why, "session %u: stop failed", k);
	ggmlviz_get_stats(&st);
	if (tu_summarize(path, &s) < 0 || s.end_rc != 0 || !s.trace_end_last ||
	    st.emitted != st.written + st.dropped || st.dropped || s.dropped_noted ||
	    s.end_written != st.written || s.end_dropped != st.dropped) {
		c->bad = 1;
		snprintf(c->why, sizeof c->why, "session %u: rc %d, end %d, emitted %llu, written "
			 "%llu, dropped %llu, TRACE_END %llu/%llu", k, s.end_rc, s.trace_end_last,
			 (unsigned long long)st.emitted, (unsigned long long)st.written,
			 (unsigned long long)st.dropped, (unsigned long long)s.end_written,
			 (unsigned long long)s.end_dropped);
	}
	c->emitted += st.emitted;
	c->written += st.written;
	c->dropped += st.dropped;
	c->marks += s.by_type[GGMLVIZ_EVENT_MARK];
	unlink(path);
}

static void *cycle(void *arg)
{
	struct cycler *c = arg;

	while (!atomic_load(&c->stop) && !c->bad)
		session_checked(c, c->sessions++);
	return NULL;
}

/* Threads [from, to) with sessions started and stopped beside them; no session after. */
static void churn_beside_sessions(struct cycler *c, unsigned from, unsigned to)
{
	atomic_store(&c->stop, 0);
	ck_assert_int_eq(pthread_create(&c->thread, NULL, cycle, c), 0);
	churn(from, to);
	atomic_store(&c->stop, 1);
	pthread_join(c->thread, NULL);
	ck_assert_msg(!c->bad, "%s", c->why);
}

/*
 * A session beside nothing but threads [from, to) (none: started and
 * stopped at once); the ring memory mapped as it started.
 */
static uint64_t session_over(unsigned from, unsigned to)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	char path[256];

	tu_path(path, sizeof path, "churn-one-session");
	config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_get_stats(&st);
	churn(from, to);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(path);
	return st.ring_bytes;
}

/* Ring memory mapped now: that of the threads alive (a session's start maps them). */
static uint64_t rings_mapped(void)
{
	return session_over(0, 0);
}

/* Half the warm-up's threads under one session: each kind of memory a traced thread takes. */
static void warm_up(void)
{
	session_over(0, WARM / 2);
}

START_TEST(threads_churn_beside_sessions)
{
	struct cycler c = { 0 };
	uint64_t heap_warm, heap_end, rings_warm, rings_end;

	/*
	 * The first half takes every allocator's and the tracer's memory for
	 * good (under one session, then beside many: as many threads' slots as
	 * ever live at once); the second must take nothing more.
	 */
	warm_up();
	churn_beside_sessions(&c, WARM / 2, n_threads / 2);
	rings_warm = rings_mapped();
	heap_warm = heap_in_use();
	churn_beside_sessions(&c, n_threads / 2, n_threads);
	rings_end = rings_mapped();
	heap_end = heap_in_use();
	fprintf(stderr, "churn: %u threads beside %u sessions: %llu events emitted, %llu written, "
		"%llu dropped; heap in use %llu bytes after %u threads, %llu after all; rings "
		"mapped %llu and %llu bytes\n", n_threads, c.sessions,
		(unsigned long long)c.emitted, (unsigned long long)c.written,
		(unsigned long long)c.dropped, (unsigned long long)heap_warm, n_threads / 2,
		(unsigned long long)heap_end, (unsigned long long)rings_warm,
		(unsigned long long)rings_end);
	ck_assert_uint_ge(c.sessions, 2);
	ck_assert_uint_eq(c.emitted, c.written + c.dropped);
	ck_assert_uint_eq(c.dropped, 0);
	ck_assert_uint_gt(c.marks, 0);
	/* every thread is gone, and its ring with it: this thread's own is left (it said SHARES) */
	ck_assert_uint_eq(rings_end, rings_warm);
	ck_assert_uint_le(rings_end, 64u << 10);
	/* flat: what the library holds does not grow with the threads that came and went */
	ck_assert_msg(heap_end <= heap_warm + (256u << 10), "heap in use grew from %llu to %llu",
		      (unsigned long long)heap_warm, (unsigned long long)heap_end);
}
END_TEST

/* ---- one trace of them all, read back ---- */

struct reading {
	uint64_t ops, shares, marks_seen, records;
	uint64_t lacking;              /* ops of a repeated run without their shape */
	uint64_t heap_at_warm, heap_max;
	uint64_t threads_seen;
};

START_TEST(one_trace_of_every_thread_reads_flat)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct ggmlviz_reader *r;
	struct ggmlviz_pairing *p;
	struct ggmlviz_pairing_counts pc;
	struct ggmlviz_event ev;
	struct ggmlviz_timing t;
	struct reading rd = { 0 };
	uint64_t names_before = 0;
	char path[256];
	int rc;

	tu_path(path, sizeof path, "churn-one");
	config(&cfg, path);
	cfg.thread_tracking = 1; /* THREAD_FREE: the reader drops an ended thread's sets */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	churn(0, n_threads);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_uint_eq(st.emitted, st.written);
	ck_assert_uint_ge(st.threads, n_threads); /* and the one that stops, if it said SHARES */
	ck_assert_uint_le(st.threads, n_threads + 1);

	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	ck_assert_int_eq(ggmlviz_pairing_new(&p), 0);
	while ((rc = ggmlviz_reader_next(r, &ev)) == 1) {
		rd.records++;
		rd.marks_seen += ev.type == GGMLVIZ_EVENT_MARK;
		if (ev.type == GGMLVIZ_EVENT_THREAD_FREE && ++rd.threads_seen == WARM) {
			rd.heap_at_warm = heap_in_use();
			names_before = rd.threads_seen;
		}
		if (rd.heap_at_warm && rd.records % 1024 == 0) {
			uint64_t h = heap_in_use();
			rd.heap_max = h > rd.heap_max ? h : rd.heap_max;
		}
		for (rc = ggmlviz_pairing_add(p, &ev, &t); rc == 1; rc = ggmlviz_pairing_take(p, &t)) {
			rd.ops += t.kind == GGMLVIZ_TIMING_OP;
			rd.shares += t.kind == GGMLVIZ_TIMING_SHARE;
			rd.lacking += t.kind == GGMLVIZ_TIMING_OP && t.ne[0] == 0;
		}
		ck_assert_int_ge(rc, 0);
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_pairing_finish(p);
	ggmlviz_pairing_counts(p, &pc);
	fprintf(stderr, "churn: one trace of %u threads, %llu records: %llu ops, %llu shares; "
		"heap in use %llu bytes at thread %u's end, %llu at most after\n", n_threads,
		(unsigned long long)rd.records, (unsigned long long)rd.ops,
		(unsigned long long)rd.shares, (unsigned long long)rd.heap_at_warm, WARM,
		(unsigned long long)rd.heap_max);
	ck_assert_uint_eq(rd.marks_seen, (uint64_t)n_threads * MARKS);
	ck_assert_uint_eq(rd.ops, (uint64_t)n_threads * 2 * NODES);
	ck_assert_uint_eq(rd.shares, (uint64_t)n_threads * 2 * NODES);
	ck_assert_uint_eq(rd.lacking, 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 0);
	ck_assert_uint_eq(pc.over_limit, 0);
	ck_assert_uint_eq(pc.unmatched_ends, 0);
	ck_assert_uint_eq(pc.unclosed_begins, 0);
	ck_assert_uint_eq(rd.threads_seen, n_threads);
	/* flat but for the threads' names (THREAD_NAME: 16 bytes each, and the map) */
	ck_assert_msg(rd.heap_max <= rd.heap_at_warm + (n_threads - names_before) * 96u +
					     (256u << 10),
		      "heap in use grew from %llu to %llu while reading",
		      (unsigned long long)rd.heap_at_warm, (unsigned long long)rd.heap_max);
	ggmlviz_pairing_free(p);
	ggmlviz_reader_close(r);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("churn");
	TCase *tc = tcase_create("churn");
	const char *n = getenv("GGMLVIZ_CHURN_THREADS");

	if (n && atoi(n) >= 2 * WARM)
		n_threads = (unsigned)atoi(n);
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, threads_churn_beside_sessions);
	tcase_add_test(tc, one_trace_of_every_thread_reads_flat);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
