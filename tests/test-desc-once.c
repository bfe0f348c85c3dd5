/*
 * Descriptions given once (ggmlviz(5), DESC_SET): a graph run again has
 * its ops' OP_INFO, OP_BYTES and OP_NODE written at its first run only,
 * its later runs' ops packed as OP_TIMES records, and the reader gives
 * every op of the later runs what the first had.
 *   - the writer: one DEFINE then REPEATs, the descriptions written once,
 *     the later runs one OP_TIMES each (RUN_START its flag); describe_every (and
 *     GGML_VIZ_DESCRIBE_ONCE=0) writes them all, and the reader gives the
 *     same ops either way;
 *   - two graphs over the same tensors, described differently, alternating:
 *     each run gets its own graph's descriptions, not the last written;
 *   - a new session defines again: nothing of the last file is leaned on;
 *   - the reader alone, on events made here: a REPEAT of a set never
 *     defined leaves ops as they came; an op's own records win; the hold
 *     ends at n_ops and at the thread's SPLIT_END; other threads untouched;
 *     sixteen sets a thread, and so many ops in all, are kept.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

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

#define NODES 4
#define MAX_OPS 64

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 6, "ADD", "ffn_inp-1", 1 },
};
static char cpu_backend;

/* gs_describe's, with bytes, sources, and a layer and width of the graph's own (user). */
static void describe(void *user, const void *const *nodes, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	int shift = *(const int *)user;

	gs_describe(NULL, nodes, n, i, out);
	out->layer += shift;
	out->ne[0] += shift;
	out->bytes_read = 1000u * (i + 1) + (uint64_t)shift;
	out->bytes_written = 4096;
	out->src[0] = i ? nodes[i - 1] : NULL;
}

static void cpu_run(uint64_t id, int *user)
{
	ggmlviz_nodes_graph_id(id);
	for (size_t i = 0; i < NODES; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, describe, user), 0);
	for (size_t i = 0; i < NODES; i++)
		ggmlviz_nodes_tick();
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

static void start(const char *tag, char *path, size_t size, int every)
{
	struct ggmlviz_config cfg;

	tu_config_cpu(&cfg, path, size, tag);
	cfg.describe_every = (uint32_t)every;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

/* ---- what the file holds ---- */

struct records {
	size_t info, bytes, node, run_start, define, repeat, times;
	uint64_t sets[8];
};

/* An OP_TIMES record: a REPEAT run's ops, packed, of the set its DESC_SET named. */
static void count_times(const struct ggmlviz_event *ev, struct records *r)
{
	size_t k = r->define + r->repeat;

	ck_assert_uint_eq(ev->data.op_times.n_ops, NODES);
	ck_assert_uint_eq(ev->data.op_times.first, 0);
	ck_assert_uint_eq(ev->data.op_times.method, GGMLVIZ_OP_METHOD_TICK);
	ck_assert_uint_eq(ev->label_len, NODES * GGMLVIZ_OP_TIMES_ENTRY);
	ck_assert(k > 0 && k <= 8 && r->sets[k - 1] == ev->data.op_times.set);
	r->times++;
	r->run_start += (ev->data.op_times.flags & GGMLVIZ_NODE_RUN_START) != 0;
}

static int count(const struct ggmlviz_event *ev, void *arg)
{
	struct records *r = arg;

	r->info += ev->type == GGMLVIZ_EVENT_OP_INFO;
	r->bytes += ev->type == GGMLVIZ_EVENT_OP_BYTES;
	r->node += ev->type == GGMLVIZ_EVENT_OP_NODE;
	r->run_start += ev->type == GGMLVIZ_EVENT_OP_NODE &&
			(ev->data.op_node.flags & GGMLVIZ_NODE_RUN_START);
	if (ev->type == GGMLVIZ_EVENT_OP_TIMES)
		count_times(ev, r);
	if (ev->type != GGMLVIZ_EVENT_DESC_SET)
		return 0;
	ck_assert_uint_eq(ev->data.desc_set.n_ops, NODES);
	ck_assert_uint_eq(ev->data.desc_set.method, GGMLVIZ_OP_METHOD_TICK);
	if (r->define + r->repeat < 8)
		r->sets[r->define + r->repeat] = ev->data.desc_set.set;
	r->define += ev->data.desc_set.mode == GGMLVIZ_DESC_SET_DEFINE;
	r->repeat += ev->data.desc_set.mode == GGMLVIZ_DESC_SET_REPEAT;
	return 0;
}

static struct records records_of(const char *path)
{
	struct records r = { 0 };

	ck_assert_int_eq(tu_each(path, count, &r), 0);
	return r;
}

/* ---- what the reader gives ---- */

struct seen {
	struct ggmlviz_timing op[MAX_OPS];
	char type[MAX_OPS][8];
	size_t ops;
};

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (t->kind != GGMLVIZ_TIMING_OP || s->ops == MAX_OPS)
		return;
	snprintf(s->type[s->ops], sizeof s->type[0], "%.*s", (int)t->type_name_len,
		 t->type_name ? t->type_name : "");
	s->op[s->ops++] = *t;
}

static struct seen *read_back(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	return s;
}

/* Op k of the reader's, as node k % NODES of a graph described with shift. */
static void assert_described(const struct seen *s, size_t k, int shift)
{
	size_t i = k % NODES;
	const struct ggmlviz_timing *t = &s->op[k];

	ck_assert_uint_eq(t->ptr, (uint64_t)(uintptr_t)&graph[i]);
	ck_assert_int_eq(t->layer, graph[i].layer + shift);
	ck_assert_int_eq(t->ne[0], 512 + shift);
	ck_assert_uint_eq(t->flops, graph[i].op == 3 ? 2u * 512u * 512u : 512u);
	ck_assert_str_eq(s->type[k], "f32");
	ck_assert_uint_eq(t->bytes_read, 1000u * (i + 1) + (uint64_t)shift);
	ck_assert_uint_eq(t->bytes_written, 4096);
	ck_assert_uint_eq(t->src[0], i ? (uint64_t)(uintptr_t)&graph[i - 1] : 0);
	ck_assert_int_eq(t->method, GGMLVIZ_OP_METHOD_TICK);
	ck_assert_int_eq(!!(t->node_flags & GGMLVIZ_NODE_RUN_START), i == 0);
}

/*
 * A session of runs: graph ids[k % n_ids] described with shifts[k % n_ids],
 * runs times; what its file holds, and what the reader gives (freed by
 * the caller), the file removed.
 */
static struct seen *traced(const char *tag, int every, const uint64_t *ids, int *shifts,
			   size_t n_ids, int runs, struct records *r)
{
	char path[256];
	struct seen *s;

	start(tag, path, sizeof path, every);
	for (int k = 0; k < runs; k++)
		cpu_run(ids[(size_t)k % n_ids], &shifts[(size_t)k % n_ids]);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	*r = records_of(path);
	s = read_back(path);
	ck_assert_uint_eq(s->ops, (size_t)runs * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_described(s, k, shifts[(k / NODES) % n_ids]);
	unlink(path);
	return s;
}

START_TEST(described_at_the_first_run_only)
{
	static const uint64_t id = 7;
	int shift = 0;
	struct records r;

	free(traced("once-three", 0, &id, &shift, 1, 3, &r));
	ck_assert_uint_eq(r.define, 1);
	ck_assert_uint_eq(r.repeat, 2);
	ck_assert_uint_eq(r.sets[0], r.sets[1]);
	ck_assert_uint_eq(r.sets[1], r.sets[2]);
	ck_assert_uint_eq(r.info, NODES);  /* the first run's */
	ck_assert_uint_eq(r.bytes, NODES);
	ck_assert_uint_eq(r.node, NODES); /* the later runs' ops are packed: */
	ck_assert_uint_eq(r.times, 2);     /* one OP_TIMES a run, RUN_START its flag */
	ck_assert_uint_eq(r.run_start, 3);
}
END_TEST

START_TEST(described_every_time_when_asked)
{
	static const uint64_t id = 7;
	int shift = 0;
	struct records r;

	free(traced("once-every", 1, &id, &shift, 1, 3, &r));
	ck_assert_uint_eq(r.define + r.repeat, 0);
	ck_assert_uint_eq(r.info, 3 * NODES);
	ck_assert_uint_eq(r.node, 3 * NODES);
}
END_TEST

START_TEST(the_environment_asks_for_every_description)
{
	struct ggmlviz_config cfg;

	setenv("GGML_VIZ_DESCRIBE_ONCE", "0", 1);
	ggmlviz_config_init(&cfg);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_uint_eq(cfg.describe_every, 1);
	setenv("GGML_VIZ_DESCRIBE_ONCE", "1", 1);
	ggmlviz_config_init(&cfg);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_uint_eq(cfg.describe_every, 0);
	unsetenv("GGML_VIZ_DESCRIBE_ONCE");
}
END_TEST

START_TEST(two_graphs_over_the_same_tensors)
{
	static const uint64_t ids[2] = { 7, 8 };
	int shifts[2] = { 0, 3 };
	struct records r;

	/* B's descriptions written last, A's runs still get A's */
	free(traced("once-two", 0, ids, shifts, 2, 6, &r));
	ck_assert_uint_eq(r.define, 2);
	ck_assert_uint_eq(r.repeat, 4);
	ck_assert_uint_ne(r.sets[0], r.sets[1]);
	ck_assert_uint_eq(r.info, 2 * NODES);
}
END_TEST

START_TEST(a_new_session_defines_again)
{
	static int no_shift;
	char path[256], path2[256];
	struct records r;
	struct seen *s;

	start("once-s1", path, sizeof path, 0);
	cpu_run(7, &no_shift);
	cpu_run(7, &no_shift);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	start("once-s2", path2, sizeof path2, 0);
	cpu_run(7, &no_shift); /* the descriptions are kept, but they are in the first file */
	cpu_run(7, &no_shift);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	r = records_of(path2);
	ck_assert_uint_eq(r.define, 1);
	ck_assert_uint_eq(r.repeat, 1);
	ck_assert_uint_eq(r.info, NODES);
	s = read_back(path2);
	ck_assert_uint_eq(s->ops, 2 * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_described(s, k, 0);
	free(s);
	unlink(path);
	unlink(path2);
}
END_TEST

/* ---- the reader alone ---- */

static struct ggmlviz_pairing *p;
static struct ggmlviz_timing t;

static int feed(uint8_t type, uint32_t tid, uint64_t tensor, void (*fill)(struct ggmlviz_event *))
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.thread_id = tid;
	ev.timestamp_ns = 1000;
	ev.data.op.tensor_ptr = tensor; /* the first member of every op layout */
	if (fill)
		fill(&ev);
	return ggmlviz_pairing_add(p, &ev, &t);
}

static uint64_t set_id;
static uint32_t set_ops;
static uint8_t set_mode, node_method;

static void as_set(struct ggmlviz_event *ev)
{
	ev->data.desc_set.set = set_id;
	ev->data.desc_set.n_ops = set_ops;
	ev->data.desc_set.mode = set_mode;
	ev->data.desc_set.method = GGMLVIZ_OP_METHOD_MEASURED;
}

static void as_info(struct ggmlviz_event *ev)
{
	ev->data.op_info.ne[0] = (int64_t)ev->data.op_info.tensor_ptr;
	ev->data.op_info.flops = 77;
	ev->label = "q8_0";
	ev->label_len = 4;
}

static void as_node(struct ggmlviz_event *ev)
{
	ev->data.op_node.layer = 5;
	ev->data.op_node.method = node_method;
	ev->data.op_node.flags = GGMLVIZ_NODE_RUN_START;
}

static void desc_set(uint32_t tid, uint64_t id, uint32_t n, uint8_t mode)
{
	set_id = id, set_ops = n, set_mode = mode;
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_DESC_SET, tid, 0, as_set), 0);
}

/* One op: begin, its own INFO and NODE if asked, end; the timing it made. */
static struct ggmlviz_timing one_op(uint32_t tid, uint64_t tensor, int info, int node)
{
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, tid, tensor, NULL), 0);
	if (info)
		feed(GGMLVIZ_EVENT_OP_INFO, tid, tensor, as_info);
	if (node)
		feed(GGMLVIZ_EVENT_OP_NODE, tid, tensor, as_node);
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_OP_COMPUTE_END, tid, tensor, NULL), 1);
	return t;
}

static void setup(void)
{
	ck_assert_int_eq(ggmlviz_pairing_new(&p), 0);
	node_method = GGMLVIZ_OP_METHOD_TICK;
}

static void teardown(void)
{
	ggmlviz_pairing_free(p);
	p = NULL;
}

START_TEST(reader_fills_what_an_op_lacks)
{
	struct ggmlviz_timing a;

	desc_set(1, 9, 2, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x100, 1, 1);
	one_op(1, 0x200, 1, 0); /* no OP_NODE: the set keeps none of it */
	desc_set(1, 9, 3, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x100);
	ck_assert_uint_eq(a.flops, 77);
	ck_assert_uint_eq(a.type_name_len, 4);
	ck_assert_int_eq(memcmp(a.type_name, "q8_0", 4), 0);
	ck_assert_int_eq(a.layer, 5);
	ck_assert_int_eq(a.method, GGMLVIZ_OP_METHOD_MEASURED); /* the DESC_SET's */
	ck_assert_uint_eq(a.node_flags, 0);                    /* RUN_START was the run's */
	a = one_op(1, 0x200, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x200);
	ck_assert_int_eq(a.method, GGMLVIZ_OP_METHOD_MEASURED);
	a = one_op(1, 0x300, 0, 0); /* never described in the set: as it came */
	ck_assert_int_eq(a.ne[0], 0);
	ck_assert_ptr_null(a.type_name);
	ck_assert_int_eq(a.method, GGMLVIZ_OP_METHOD_MEASURED);
}
END_TEST

START_TEST(reader_keeps_an_ops_own)
{
	struct ggmlviz_timing a;

	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x100, 1, 0);
	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_REPEAT);
	node_method = GGMLVIZ_OP_METHOD_SYNC;
	a = one_op(1, 0x100, 0, 1);
	ck_assert_int_eq(a.ne[0], 0x100);              /* from the set */
	ck_assert_int_eq(a.method, GGMLVIZ_OP_METHOD_SYNC); /* its own OP_NODE's */
	ck_assert_uint_eq(a.node_flags, GGMLVIZ_NODE_RUN_START);
}
END_TEST

START_TEST(reader_without_a_defined_set)
{
	struct ggmlviz_timing a;

	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x100, 1, 1);
	desc_set(1, 10, 1, GGMLVIZ_DESC_SET_REPEAT); /* set 10: never defined */
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0);
	ck_assert_int_eq(a.layer, -1);
	desc_set(2, 9, 1, GGMLVIZ_DESC_SET_REPEAT); /* set 9 of another thread */
	a = one_op(2, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0);
	set_id = 0; /* not a set: ignored */
	set_ops = 1, set_mode = GGMLVIZ_DESC_SET_REPEAT;
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_DESC_SET, 1, 0, as_set), 0);
	set_id = 9, set_mode = 7; /* a mode this reader does not know: ignored */
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_DESC_SET, 1, 0, as_set), 0);
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0);
}
END_TEST

START_TEST(reader_hold_ends)
{
	struct ggmlviz_timing a;

	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x100, 1, 1);
	one_op(1, 0x200, 1, 1); /* past n_ops: not kept */
	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x100);
	a = one_op(1, 0x100, 0, 0); /* past n_ops: not filled */
	ck_assert_int_eq(a.ne[0], 0);
	desc_set(1, 9, 2, GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_SPLIT_END, 2, 0x1, NULL), 0); /* another thread's */
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x100);
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_SPLIT_END, 1, 0x1, NULL), 0);
	a = one_op(1, 0x100, 0, 0); /* after its run's end: not filled */
	ck_assert_int_eq(a.ne[0], 0);
	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x200, 0, 0); /* it came past n_ops of the DEFINE: never kept */
	ck_assert_int_eq(a.ne[0], 0);
}
END_TEST

START_TEST(reader_keeps_sixteen_sets_a_thread)
{
	struct ggmlviz_timing a;

	for (uint64_t id = 1; id <= 17; id++) {
		desc_set(1, id, 1, GGMLVIZ_DESC_SET_DEFINE);
		one_op(1, 0x100 * id, 1, 1);
	}
	desc_set(1, 17, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x1100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x1100);
	desc_set(1, 2, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x200, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x200);
	desc_set(1, 1, 1, GGMLVIZ_DESC_SET_REPEAT); /* the least recently used: forgotten */
	a = one_op(1, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0);
}
END_TEST

START_TEST(reader_many_threads)
{
	struct ggmlviz_timing a;

	desc_set(1, 9, 2, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x100, 1, 1);
	for (uint32_t tid = 2; tid < 40; tid++) { /* others begin their runs meanwhile */
		desc_set(tid, 9, 1, GGMLVIZ_DESC_SET_DEFINE);
		one_op(tid, 0x100 * tid, 1, 1);
	}
	one_op(1, 0x200, 1, 1); /* still in thread 1's DEFINE */
	desc_set(1, 9, 2, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 0x200, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x200);
	desc_set(39, 9, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(39, 0x100 * 39, 0, 0);
	ck_assert_int_eq(a.ne[0], 0x100 * 39);
}
END_TEST

START_TEST(reader_memory_bounded)
{
	struct ggmlviz_timing a;
	const uint64_t n = 300000; /* more ops than the reader keeps in all (262144) */

	desc_set(1, 9, (uint32_t)n, GGMLVIZ_DESC_SET_DEFINE);
	for (uint64_t k = 1; k <= n; k++)
		one_op(1, k << 4, 1, 0);
	desc_set(1, 9, 2, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, 1 << 4, 0, 0);
	ck_assert_int_eq(a.ne[0], 1 << 4);
	a = one_op(1, n << 4, 0, 0); /* past the bound: not kept */
	ck_assert_int_eq(a.ne[0], 0);
	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_DEFINE); /* defined anew: its room back */
	one_op(1, n << 4, 1, 0);
	desc_set(1, 9, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(1, n << 4, 0, 0);
	ck_assert_int_eq(a.ne[0], (int64_t)(n << 4));
}
END_TEST

/*
 * Threads one after another, as a server's thread per request: each runs a
 * graph of 3000 nodes twice (DEFINE, then REPEAT), 120 threads, 360000
 * ops described in all, more than the reader keeps (262144): the sets of
 * the threads gone make room for the new ones, and every op of every
 * REPEAT run gets its descriptions. With ended (THREAD_FREE after each
 * thread, thread_tracking), a thread's sets go with it.
 */
static void threads_one_after_another(int ended)
{
	const uint32_t threads = 120, nodes = 3000;
	uint64_t lacking = 0;

	for (uint32_t tid = 1000; tid < 1000 + threads; tid++) {
		desc_set(tid, 1, nodes, GGMLVIZ_DESC_SET_DEFINE);
		for (uint32_t k = 1; k <= nodes; k++)
			one_op(tid, (uint64_t)k << 4, 1, 0);
		desc_set(tid, 1, nodes, GGMLVIZ_DESC_SET_REPEAT);
		for (uint32_t k = 1; k <= nodes; k++) {
			struct ggmlviz_timing a = one_op(tid, (uint64_t)k << 4, 0, 0);
			lacking += a.ne[0] != (int64_t)((uint64_t)k << 4) || a.flops != 77;
		}
		if (ended)
			ck_assert_int_eq(feed(GGMLVIZ_EVENT_THREAD_FREE, tid, 0, NULL), 0);
	}
	ck_assert_uint_eq(lacking, 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 0);
}

START_TEST(reader_threads_come_and_go)
{
	threads_one_after_another(0);
}
END_TEST

START_TEST(reader_threads_come_and_go_and_end)
{
	threads_one_after_another(1);
}
END_TEST

/* An ended thread's sets are gone: its tid, back as a new thread, repeats nothing of them. */
START_TEST(reader_thread_end_drops_its_sets)
{
	struct ggmlviz_timing a;

	desc_set(7, 1, 1, GGMLVIZ_DESC_SET_DEFINE);
	one_op(7, 0x100, 1, 1);
	ck_assert_int_eq(feed(GGMLVIZ_EVENT_THREAD_FREE, 7, 0, NULL), 0);
	desc_set(7, 1, 1, GGMLVIZ_DESC_SET_REPEAT);
	a = one_op(7, 0x100, 0, 0);
	ck_assert_int_eq(a.ne[0], 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 1);
}
END_TEST

/*
 * What is left without its descriptions is counted: a REPEAT of a set
 * never seen, and ops its set never described; an op with its own
 * records, or a run with descriptions of its own, counts nothing.
 */
START_TEST(reader_counts_ops_left_undescribed)
{
	desc_set(1, 5, 3, GGMLVIZ_DESC_SET_REPEAT); /* never defined */
	one_op(1, 0x100, 0, 0);
	one_op(1, 0x200, 0, 1); /* its own OP_NODE, but no OP_INFO or OP_BYTES: still lacks */
	one_op(1, 0x300, 0, 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 3);
	desc_set(1, 6, 1, GGMLVIZ_DESC_SET_DEFINE);
	one_op(1, 0x400, 1, 1);
	desc_set(1, 6, 2, GGMLVIZ_DESC_SET_REPEAT);
	one_op(1, 0x400, 0, 0);  /* described */
	one_op(1, 0x500, 0, 0);  /* not in the set */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 4);
	one_op(1, 0x600, 0, 0);  /* past the run's ops: not under a set */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 4);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("desc-once");
	TCase *tc = tcase_create("writer");
	TCase *tr = tcase_create("reader");

	tcase_add_test(tc, described_at_the_first_run_only);
	tcase_add_test(tc, described_every_time_when_asked);
	tcase_add_test(tc, the_environment_asks_for_every_description);
	tcase_add_test(tc, two_graphs_over_the_same_tensors);
	tcase_add_test(tc, a_new_session_defines_again);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, reader_fills_what_an_op_lacks);
	tcase_add_test(tr, reader_keeps_an_ops_own);
	tcase_add_test(tr, reader_without_a_defined_set);
	tcase_add_test(tr, reader_hold_ends);
	tcase_add_test(tr, reader_keeps_sixteen_sets_a_thread);
	tcase_add_test(tr, reader_many_threads);
	tcase_add_test(tr, reader_memory_bounded);
	tcase_add_test(tr, reader_threads_come_and_go);
	tcase_add_test(tr, reader_threads_come_and_go_and_end);
	tcase_add_test(tr, reader_thread_end_drops_its_sets);
	tcase_add_test(tr, reader_counts_ops_left_undescribed);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
