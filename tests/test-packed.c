/*
 * Packed times (ggmlviz(5), "Packed times"): a repeated run's ops as
 * OP_TIMES records, a worker's shares of a graph as SHARE_TIMES records.
 *   - the writer: a ticked run of a graph run again is one OP_TIMES, whose
 *     ops, read back, touch and run from the run's last ask (the DESC_SET's
 *     timestamp) to its last tick (the SPLIT_END's), within the packed
 *     stamps' quantum: the writer's conversion adds no rounding up;
 *   - a thread's shares: DEFINE at its first graph (with each node and op
 *     type), REPEAT after (times only), and every share read back as an
 *     OP_SHARE would give it: its node, op, place, begin, compute, and a
 *     wait that reaches the next share's begin;
 *   - a tick takes the end of the share just ended (no clock read of its
 *     own), and a measured graph's asks are stamped at its first only;
 *   - GGML_VIZ_DESCRIBE_ONCE=0 writes neither; GGML_VIZ_ANONYMIZE changes
 *     the node addresses a DEFINE's body holds as it does the OP records';
 *   - the reader alone, on records made here: a run cut into records (its
 *     `first`), a body that does not hold what its payload says, a REPEAT
 *     of a set never defined: counted, never guessed;
 *   - what does not pack (out of order, past 32 bits) is left to records
 *     op by op (packed.c's check).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ggmlviz/format.h>
#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"

#define NODES 5
#define GRAPHS 4
#define MAX_SEEN 256

/* packed.c's check (internal: the library's own name for it). */
struct ggmlviz__times {
	const uint64_t *begin, *end;
	const uint32_t *node;
	uint32_t n;
};
int ggmlviz__times_pack(const struct ggmlviz__times *t, uint64_t until);

static const struct gs_node graph[NODES] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },  { 3, "MUL_MAT", "ffn_up-0", 0 },
	{ 6, "ADD", "ffn_inp-1", 1 },
};
static char cpu_backend, pool;

static void spin_ns(uint64_t ns)
{
	uint64_t until = tu_realtime_ns() + ns;

	while (tu_realtime_ns() < until)
		;
}

static uint32_t op_of(const void *node)
{
	return ((const struct gs_node *)node)->op;
}

/*
 * One graph, as llama.cpp's step computes it on GGML's CPU backend with one
 * thread: its nodes asked, each computed (a share) and ticked, the graph
 * done; with shares, its ops are measured, without, ticked.
 */
static void cpu_graph(int shares)
{
	const void *nodes[NODES];

	ggmlviz_nodes_graph_id(11);
	for (int i = 0; i < NODES; i++) {
		nodes[i] = &graph[i];
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, gs_describe, NULL), 0);
	}
	for (int i = 0; i < NODES; i++) {
		if (shares)
			ggmlviz_cpu_share_begin(&pool, 0, i);
		spin_ns(20000u * (uint64_t)(i + 1));
		if (shares)
			ggmlviz_cpu_share_end(&pool, 0, i);
		ggmlviz_nodes_tick();
		spin_ns(3000);
	}
	if (shares)
		ck_assert_int_eq(ggmlviz_cpu_graph_done(&pool, 0, 1, nodes, NODES, op_of), NODES);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
}

static void trace_graphs(const char *path, int shares, int every, int anonymize)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, path);
	cfg.gpu_kernels = 0;
	cfg.describe_every = (uint32_t)every;
	cfg.anonymize = anonymize;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int g = 0; g < GRAPHS; g++)
		cpu_graph(shares);
	ck_assert_int_eq(ggmlviz_stop(), 0);
}

/* ---- what the file holds, and what the reader gives ---- */

struct seen {
	size_t op_times, share_times, defines, op_shares, op_records;
	uint64_t set_ts[GRAPHS], split_end_ts[GRAPHS], id_tensor[NODES], op_tensor[NODES];
	size_t sets, splits;
	struct ggmlviz_timing op[MAX_SEEN], share[MAX_SEEN];
	char name[MAX_SEEN][32]; /* each op's label: its pointer is valid during the call only */
	size_t ops, shares;
};

static uint64_t le(const char *p, unsigned bytes)
{
	uint64_t v = 0;

	for (unsigned i = bytes; i-- > 0;)
		v = v << 8 | (uint8_t)p[i];
	return v;
}

static void count_share_times(const struct ggmlviz_event *ev, struct seen *s)
{
	s->share_times++;
	ck_assert_uint_eq(ev->data.share_times.n_shares, NODES);
	ck_assert_uint_eq(ev->data.share_times.first, 0);
	if (ev->data.share_times.mode != GGMLVIZ_DESC_SET_DEFINE) {
		ck_assert_uint_eq(ev->label_len, NODES * GGMLVIZ_OP_TIMES_ENTRY);
		return;
	}
	s->defines++;
	ck_assert_uint_eq(ev->label_len,
			  NODES * (GGMLVIZ_OP_TIMES_ENTRY + GGMLVIZ_SHARE_TIMES_IDENTITY));
	for (int i = 0; i < NODES; i++)
		s->id_tensor[i] = le(ev->label + GGMLVIZ_SHARE_TIMES_IDENTITY * (unsigned)i, 8);
}

static int count(const struct ggmlviz_event *ev, void *arg)
{
	struct seen *s = arg;

	switch (ev->type) {
	case GGMLVIZ_EVENT_OP_TIMES:
		s->op_times++;
		break;
	case GGMLVIZ_EVENT_SHARE_TIMES:
		count_share_times(ev, s);
		break;
	case GGMLVIZ_EVENT_OP_SHARE:
		s->op_shares++;
		break;
	case GGMLVIZ_EVENT_OP_COMPUTE_BEGIN:
		if (s->op_records < NODES)
			s->op_tensor[s->op_records] = ev->data.op.tensor_ptr;
		s->op_records++;
		break;
	case GGMLVIZ_EVENT_DESC_SET:
		if (s->sets < GRAPHS)
			s->set_ts[s->sets++] = ev->timestamp_ns;
		break;
	case GGMLVIZ_EVENT_SPLIT_END:
		if (s->splits < GRAPHS)
			s->split_end_ts[s->splits++] = ev->timestamp_ns;
		break;
	default:
		break;
	}
	return 0;
}

static void note(const struct ggmlviz_timing *t, void *arg)
{
	struct seen *s = arg;

	if (t->kind == GGMLVIZ_TIMING_OP && s->ops < MAX_SEEN) {
		snprintf(s->name[s->ops], sizeof s->name[0], "%.*s", (int)t->label_len,
			 t->label ? t->label : "");
		s->op[s->ops++] = *t;
	}
	else if (t->kind == GGMLVIZ_TIMING_SHARE && s->shares < MAX_SEEN)
		s->share[s->shares++] = *t;
}

static struct seen *read_trace(const char *path)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	ck_assert_int_eq(tu_each(path, count, s), 0);
	ck_assert_int_eq(tu_each_timing(path, note, s), 0);
	unlink(path);
	return s;
}

/* Op k of the reader's is node k % NODES, named and typed as its first run wrote it. */
static void assert_op(const struct seen *s, size_t k, uint8_t method)
{
	const struct ggmlviz_timing *t = &s->op[k];
	const struct gs_node *nd = &graph[k % NODES];

	ck_assert_uint_eq(t->ptr, (uint64_t)(uintptr_t)nd);
	ck_assert_uint_eq(t->op_type, nd->op);
	ck_assert_str_eq(s->name[k], nd->name);
	ck_assert_int_eq(t->layer, nd->layer);
	ck_assert_int_eq(t->ne[0], 512);
	ck_assert_uint_eq(t->op_size, 4096);
	ck_assert_uint_eq(t->backend_ptr, (uint64_t)(uintptr_t)&cpu_backend);
	ck_assert_int_eq(t->method, method);
	ck_assert_uint_ge(t->end_ns, t->begin_ns);
	ck_assert_uint_ge(t->duration_ns, 20000u * (k % NODES + 1));
}

static uint64_t diff(uint64_t a, uint64_t b)
{
	return a > b ? a - b : b - a;
}

/*
 * Packed stamps keep 4 TSC ticks at the finest (clock.h's shift: 32 bits
 * reach 4.29 s), under 2 ns on a CPU of 2 GHz or more; two packed times
 * taken from one stamp may differ by that, once in each record.
 */
#define QUANTUM 4

START_TEST(ticked_runs_pack_to_the_nanosecond)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-ticks");
	trace_graphs(path, 0, 0, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->op_times, GRAPHS - 1); /* the first run defines, the others pack */
	ck_assert_uint_eq(s->op_records, NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++)
		assert_op(s, k, GGMLVIZ_OP_METHOD_TICK);
	for (size_t g = 0; g < GRAPHS; g++) {
		const struct ggmlviz_timing *first = &s->op[g * NODES], *last = &first[NODES - 1];

		ck_assert_int_eq(!!(first->node_flags & GGMLVIZ_NODE_RUN_START), 1);
		ck_assert_uint_le(diff(first->begin_ns, s->set_ts[g]), QUANTUM);
		ck_assert_uint_le(diff(last->end_ns, s->split_end_ts[g]), QUANTUM);
		for (size_t i = 1; i < NODES; i++) /* ticked ops touch */
			ck_assert_uint_le(diff(first[i].begin_ns, first[i - 1].end_ns), QUANTUM);
	}
	free(s);
}
END_TEST

/* Share k and the one after it of the same graph: compute, wait, and the next begin. */
static void assert_share(const struct seen *s, size_t k)
{
	const struct ggmlviz_timing *sh = &s->share[k];
	size_t i = k % NODES;

	ck_assert_int_eq(sh->kind, GGMLVIZ_TIMING_SHARE);
	ck_assert_uint_eq(sh->ptr, (uint64_t)(uintptr_t)&graph[i]);
	ck_assert_uint_eq(sh->op_type, graph[i].op);
	ck_assert_uint_eq(sh->n_nodes, i);
	ck_assert_uint_eq(sh->ticks, 0);
	ck_assert_uint_eq(sh->n_threads, 1);
	ck_assert_uint_ge(sh->duration_ns, 20000u * (i + 1));
	ck_assert_uint_ge(sh->value, 2000); /* the tick and the spin after it */
	if (i + 1 < NODES)
		ck_assert_uint_le(diff(sh->end_ns + sh->value, sh[1].begin_ns), QUANTUM);
}

START_TEST(shares_defined_once_then_times_only)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-shares");
	trace_graphs(path, 1, 0, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->share_times, GRAPHS);
	ck_assert_uint_eq(s->defines, 1);
	ck_assert_uint_eq(s->op_shares, 0);
	ck_assert_uint_eq(s->op_times, GRAPHS - 1);
	ck_assert_uint_eq(s->shares, GRAPHS * NODES);
	for (size_t k = 0; k < s->shares; k++)
		assert_share(s, k);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	for (size_t k = 0; k < s->ops; k++) { /* each op at its one thread's share */
		assert_op(s, k, GGMLVIZ_OP_METHOD_MEASURED);
		if (k % NODES) /* the first begins where its last thread began: the same here */
			ck_assert_uint_le(diff(s->op[k].begin_ns, s->share[k].begin_ns), QUANTUM);
		ck_assert_uint_le(diff(s->op[k].end_ns, s->share[k].end_ns), QUANTUM);
	}
	free(s);
}
END_TEST

/*
 * A graph whose shares are not every thread's (it says two, only thread 0
 * shares) is timed by its ticks: each tick took the end of the share
 * thread 0 had just ended, the time read there (no read of its own), so
 * each op ends where its share ended. And after a measured run of the
 * same graph, its asks were not stamped but the first: its first op
 * begins at its first ask (SPLIT_BEGIN), not its last.
 */
START_TEST(a_tick_takes_its_shares_end)
{
	const void *nodes[NODES];
	struct ggmlviz_config cfg;
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-tick");
	tu_config(&cfg, path);
	cfg.gpu_kernels = 0;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	cpu_graph(1); /* measured */
	ggmlviz_nodes_graph_id(11);
	for (int i = 0; i < NODES; i++) {
		nodes[i] = &graph[i];
		ck_assert_int_eq(ggmlviz_nodes_ask(&graph[i], &cpu_backend, gs_describe, NULL), 0);
		spin_ns(10000);
	}
	for (int i = 0; i < NODES; i++) {
		ggmlviz_cpu_share_begin(&pool, 0, i);
		spin_ns(20000u * (uint64_t)(i + 1));
		ggmlviz_cpu_share_end(&pool, 0, i);
		spin_ns(5000); /* a tick's own read would be this much later */
		ggmlviz_nodes_tick();
	}
	ggmlviz_cpu_graph_done(&pool, 0, 2, nodes, NODES, op_of); /* thread 1 shared nothing */
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->ops, 2 * NODES);
	ck_assert_uint_eq(s->shares, 2 * NODES);
	for (size_t k = NODES; k < 2 * NODES; k++) {
		ck_assert_int_eq(s->op[k].method, GGMLVIZ_OP_METHOD_TICK);
		ck_assert_uint_le(diff(s->op[k].end_ns, s->share[k].end_ns), QUANTUM);
	}
	ck_assert_uint_ge(s->share[NODES].begin_ns - s->op[NODES].begin_ns, 4 * 10000);
	free(s);
}
END_TEST

START_TEST(every_description_asked_packs_nothing)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-every");
	trace_graphs(path, 1, 1, 0);
	s = read_trace(path);
	ck_assert_uint_eq(s->op_times + s->share_times, 0);
	ck_assert_uint_eq(s->op_shares, GRAPHS * NODES);
	ck_assert_uint_eq(s->op_records, GRAPHS * NODES);
	ck_assert_uint_eq(s->ops, GRAPHS * NODES);
	ck_assert_uint_eq(s->shares, GRAPHS * NODES);
	free(s);
}
END_TEST

START_TEST(anonymized_like_the_op_records)
{
	char path[256];
	struct seen *s;

	tu_path(path, sizeof path, "packed-anon");
	trace_graphs(path, 1, 0, 1);
	s = read_trace(path);
	ck_assert_uint_eq(s->defines, 1);
	for (int i = 0; i < NODES; i++) {
		ck_assert_uint_ne(s->id_tensor[i], (uint64_t)(uintptr_t)&graph[i]);
		ck_assert_uint_eq(s->id_tensor[i], s->op_tensor[i]);
	}
	for (size_t k = 0; k < s->shares; k++)
		ck_assert_uint_eq(s->share[k].ptr, s->op[k].ptr);
	free(s);
}
END_TEST

START_TEST(what_does_not_pack)
{
	uint64_t b[3] = { 100, 300, 250 }, e[3] = { 200, 400, 500 };
	struct ggmlviz__times t = { b, e, NULL, 2 };

	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 1);
	ck_assert_int_eq(ggmlviz__times_pack(&t, 450), 1);
	ck_assert_int_eq(ggmlviz__times_pack(&t, 350), 0); /* ends before the last end */
	t.n = 3;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0); /* begins before the one before ended */
	b[2] = 400;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 1);
	e[1] = 299;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0); /* ends before it begins */
	e[1] = 400;
	e[2] = b[0] + ((uint64_t)UINT32_MAX << 2) + 100; /* past 32 bits, even shifted */
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0);
	t.n = 0;
	ck_assert_int_eq(ggmlviz__times_pack(&t, 0), 0);
}
END_TEST

/* ---- the reader alone ---- */

static struct ggmlviz_pairing *p;

static void setup(void)
{
	ck_assert_int_eq(ggmlviz_pairing_new(&p), 0);
}

static void teardown(void)
{
	ggmlviz_pairing_free(p);
	p = NULL;
}

/* Feeds ev; the timings it completes, into out (n at most); how many. */
static size_t feed(struct ggmlviz_event *ev, struct ggmlviz_timing *out, size_t n)
{
	struct ggmlviz_timing t;
	size_t got = 0;
	int rc;

	ev->thread_id = 7;
	for (rc = ggmlviz_pairing_add(p, ev, &t); rc == 1; rc = ggmlviz_pairing_take(p, &t))
		if (got < n)
			out[got++] = t;
	ck_assert_int_ge(rc, 0);
	return got;
}

static void op_record(uint8_t type, uint64_t tensor, uint64_t ts)
{
	struct ggmlviz_event ev = { 0 };
	struct ggmlviz_timing t;

	ev.type = type;
	ev.timestamp_ns = ts;
	ev.data.op.tensor_ptr = tensor;
	ev.data.op.op_type = (uint32_t)(tensor >> 4);
	ev.label = "n";
	ev.label_len = 1;
	feed(&ev, &t, 1);
}

static void desc_set(uint64_t id, uint32_t n_ops, uint8_t mode)
{
	struct ggmlviz_event ev = { 0 };
	struct ggmlviz_timing t;

	ev.type = GGMLVIZ_EVENT_DESC_SET;
	ev.data.desc_set.set = id;
	ev.data.desc_set.n_ops = n_ops;
	ev.data.desc_set.mode = mode;
	ev.data.desc_set.method = GGMLVIZ_OP_METHOD_TICK;
	feed(&ev, &t, 1);
}

static void put32(char *p32, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p32[i] = (char)(v >> (8 * i));
}

/* An OP_TIMES of set `id` from op `first`: n ops of 10 ns after gaps of 5, from ts. */
static size_t op_times(uint64_t id, uint32_t first, uint32_t n, uint32_t body_len, uint64_t ts,
		       struct ggmlviz_timing *out)
{
	static char body[64 * 8];
	struct ggmlviz_event ev = { 0 };

	for (uint32_t k = 0; k < 64; k++) {
		put32(body + 8 * k, 5);
		put32(body + 8 * k + 4, 10);
	}
	ev.type = GGMLVIZ_EVENT_OP_TIMES;
	ev.timestamp_ns = ts;
	ev.data.op_times.set = id;
	ev.data.op_times.first = first;
	ev.data.op_times.n_ops = n;
	ev.data.op_times.method = GGMLVIZ_OP_METHOD_TICK;
	ev.label = body;
	ev.label_len = body_len;
	return feed(&ev, out, 64);
}

/* A DEFINE run of 4 ops (tensors 0x100 to 0x400), then a REPEAT cut in two records. */
START_TEST(reader_a_run_in_parts)
{
	struct ggmlviz_timing out[64];

	desc_set(3, 4, GGMLVIZ_DESC_SET_DEFINE);
	for (uint64_t k = 1; k <= 4; k++) {
		op_record(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, 0x100 * k, 1000 * k);
		op_record(GGMLVIZ_EVENT_OP_COMPUTE_END, 0x100 * k, 1000 * k + 500);
	}
	desc_set(3, 4, GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(op_times(3, 0, 3, 3 * 8, 9000, out), 3);
	ck_assert_uint_eq(out[0].ptr, 0x100);
	ck_assert_uint_eq(out[0].begin_ns, 9005);
	ck_assert_uint_eq(out[0].end_ns, 9015);
	ck_assert_uint_eq(out[2].ptr, 0x300);
	ck_assert_uint_eq(out[2].begin_ns, 9035);
	ck_assert_uint_eq(out[2].op_type, 0x30);
	ck_assert_uint_eq(out[2].label_len, 1);
	ck_assert_uint_eq(op_times(3, 3, 1, 8, 9100, out), 1); /* its last op, from `first` */
	ck_assert_uint_eq(out[0].ptr, 0x400);
	ck_assert_uint_eq(out[0].duration_ns, 10);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 0);
}
END_TEST

START_TEST(reader_counts_what_it_cannot_read)
{
	struct ggmlviz_timing out[64];

	desc_set(3, 2, GGMLVIZ_DESC_SET_DEFINE);
	op_record(GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, 0x100, 1000);
	op_record(GGMLVIZ_EVENT_OP_COMPUTE_END, 0x100, 1500);
	desc_set(3, 2, GGMLVIZ_DESC_SET_REPEAT);
	ck_assert_uint_eq(op_times(3, 0, 2, 2 * 8 - 1, 9000, out), 0); /* body one byte short */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 2);
	ck_assert_uint_eq(op_times(3, 0, 2, 2 * 8, 9000, out), 1); /* the set has no op 1 */
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 3);
	desc_set(4, 2, GGMLVIZ_DESC_SET_REPEAT); /* never defined */
	ck_assert_uint_eq(op_times(4, 0, 2, 2 * 8, 9000, out), 0);
	ck_assert_uint_eq(ggmlviz_pairing_undescribed(p), 5);
	ck_assert_uint_eq(op_times(3, 0, 1, 8, 9000, out), 0); /* no REPEAT of set 3 open */
}
END_TEST

/* A SHARE_TIMES of set id: n shares (ids when define) of 10 ns after gaps of 5, last wait 7. */
static size_t share_times(uint64_t id, uint8_t mode, uint32_t first, uint32_t n,
			  struct ggmlviz_timing *out)
{
	static char body[64 * 24];
	uint32_t ids = mode == GGMLVIZ_DESC_SET_DEFINE ? n * 16 : 0;
	struct ggmlviz_event ev = { 0 };

	for (uint32_t k = 0; k < n; k++) {
		if (ids) {
			memset(body + 16 * k, 0, 16);
			put32(body + 16 * k, 0x1000 + first + k); /* tensor */
			put32(body + 16 * k + 8, 3);              /* op type */
			put32(body + 16 * k + 12, 2 * (first + k)); /* place */
		}
		put32(body + ids + 8 * k, 5);
		put32(body + ids + 8 * k + 4, 10);
	}
	ev.type = GGMLVIZ_EVENT_SHARE_TIMES;
	ev.timestamp_ns = 50000;
	ev.data.share_times.set = id;
	ev.data.share_times.first = first;
	ev.data.share_times.n_shares = n;
	ev.data.share_times.mode = mode;
	ev.data.share_times.thread_index = 1;
	ev.data.share_times.n_threads = 2;
	ev.data.share_times.last_wait_ns = 7;
	ev.label = body;
	ev.label_len = ids + 8 * n;
	return feed(&ev, out, 64);
}

START_TEST(reader_shares_defined_in_parts_then_repeated)
{
	struct ggmlviz_timing out[64];

	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_DEFINE, 0, 3, out), 3);
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_DEFINE, 3, 2, out), 2);
	ck_assert_uint_eq(out[1].ptr, 0x1004);
	ck_assert_uint_eq(out[1].n_nodes, 8);
	ck_assert_uint_eq(out[1].value, 7); /* the record's last share: its last wait */
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_REPEAT, 0, 5, out), 5);
	for (uint32_t k = 0; k < 5; k++) {
		ck_assert_int_eq(out[k].kind, GGMLVIZ_TIMING_SHARE);
		ck_assert_uint_eq(out[k].ptr, 0x1000 + k);
		ck_assert_uint_eq(out[k].op_type, 3);
		ck_assert_uint_eq(out[k].n_nodes, 2 * k);
		ck_assert_uint_eq(out[k].ticks, 1);
		ck_assert_uint_eq(out[k].n_threads, 2);
		ck_assert_uint_eq(out[k].begin_ns, 50000 + 15 * k + 5);
		ck_assert_uint_eq(out[k].duration_ns, 10);
		ck_assert_uint_eq(out[k].value, k < 4 ? 5 : 7);
	}
	ck_assert_uint_eq(share_times(10, GGMLVIZ_DESC_SET_REPEAT, 0, 5, out), 0); /* no such set */
	ck_assert_uint_eq(share_times(9, GGMLVIZ_DESC_SET_REPEAT, 4, 2, out), 1); /* past its end */
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("packed");
	TCase *tw = tcase_create("writer");
	TCase *tr = tcase_create("reader");

	tcase_set_timeout(tw, 60);
	tcase_add_test(tw, ticked_runs_pack_to_the_nanosecond);
	tcase_add_test(tw, shares_defined_once_then_times_only);
	tcase_add_test(tw, a_tick_takes_its_shares_end);
	tcase_add_test(tw, every_description_asked_packs_nothing);
	tcase_add_test(tw, anonymized_like_the_op_records);
	tcase_add_test(tw, what_does_not_pack);
	suite_add_tcase(s, tw);
	tcase_add_checked_fixture(tr, setup, teardown);
	tcase_add_test(tr, reader_a_run_in_parts);
	tcase_add_test(tr, reader_counts_what_it_cannot_read);
	tcase_add_test(tr, reader_shares_defined_in_parts_then_repeated);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
