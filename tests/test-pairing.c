/*
 * The pairing engine: ends meet their own begins (not the previous event),
 * addresses reused, nesting, threads, scopes, OP_INFO, graph numbering,
 * what is counted and never invented, bounded memory, and the same over a
 * reader (ggmlviz_reader_next_timing).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "reader/pairing-open.h" /* ggmlviz__pairing_pool_size */
#include "vectors.h"

static struct ggmlviz_pairing *p;
static struct ggmlviz_timing t;
static uint64_t offset; /* a fake byte offset per event, to check begin/end_offset */

static void setup(void)
{
	ck_assert_int_eq(ggmlviz_pairing_new(&p), 0);
	offset = 12;
}

static void teardown(void)
{
	ggmlviz_pairing_free(p);
	p = NULL;
}

static struct ggmlviz_event event(uint8_t type, uint32_t tid, uint64_t ts, const char *label)
{
	struct ggmlviz_event ev;

	memset(&ev, 0, sizeof ev);
	ev.type = type;
	ev.thread_id = tid;
	ev.timestamp_ns = ts;
	ev.label = label;
	ev.label_len = label ? (uint32_t)strlen(label) : 0;
	ev.offset = offset;
	offset += 100;
	return ev;
}

/* Feeds an op begin (begin = 1) or end; returns what ggmlviz_pairing_add() did. */
static int op(int begin, uint32_t tid, uint64_t tensor, uint64_t ts, const char *label)
{
	struct ggmlviz_event ev = event(begin ? 2 : 3, tid, ts, label);

	ev.data.op.tensor_ptr = tensor;
	ev.data.op.op_type = (uint32_t)(tensor & 0xff);
	ev.data.op.op_size = tensor * 4;
	ev.data.op.backend_ptr = 0xbac0;
	return ggmlviz_pairing_add(p, &ev, &t);
}

static int graph(int begin, uint32_t tid, uint64_t ptr, uint64_t ts)
{
	struct ggmlviz_event ev = event(begin ? 0 : 1, tid, ts, NULL);

	ev.data.graph.graph_ptr = ptr;
	ev.data.graph.n_nodes = (uint32_t)ptr + 100;
	ev.data.graph.n_threads = 4;
	ev.data.graph.backend_ptr = 0xbac1;
	return ggmlviz_pairing_add(p, &ev, &t);
}

static int scope(int begin, uint32_t tid, const char *label, uint64_t ts, uint64_t value)
{
	struct ggmlviz_event ev = event(begin ? 12 : 13, tid, ts, label);

	ev.data.user.value = value;
	return ggmlviz_pairing_add(p, &ev, &t);
}

static int info(uint32_t tid, uint64_t tensor, int64_t ne0, uint64_t flops, const char *type)
{
	struct ggmlviz_event ev = event(14, tid, 0, type);

	ev.data.op_info.tensor_ptr = tensor;
	ev.data.op_info.ne[0] = ne0;
	ev.data.op_info.ne[1] = 2;
	ev.data.op_info.ne[2] = 3;
	ev.data.op_info.ne[3] = 4;
	ev.data.op_info.flops = flops;
	return ggmlviz_pairing_add(p, &ev, &t);
}

static struct ggmlviz_pairing_counts counts(void)
{
	struct ggmlviz_pairing_counts c;

	ggmlviz_pairing_counts(p, &c);
	return c;
}

static void check_counts(uint64_t paired, uint64_t unmatched, uint64_t unclosed, uint64_t open)
{
	struct ggmlviz_pairing_counts c = counts();

	ck_assert_uint_eq(c.paired, paired);
	ck_assert_uint_eq(c.unmatched_ends, unmatched);
	ck_assert_uint_eq(c.unclosed_begins, unclosed);
	ck_assert_uint_eq(c.open, open);
}

static void check_op(uint64_t tensor, uint64_t begin, uint64_t end, const char *label)
{
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_OP);
	ck_assert_uint_eq(t.ptr, tensor);
	ck_assert_uint_eq(t.begin_ns, begin);
	ck_assert_uint_eq(t.end_ns, end);
	ck_assert_uint_eq(t.duration_ns, end - begin);
	ck_assert_uint_eq(t.label_len, strlen(label));
	ck_assert_mem_eq(t.label, label, t.label_len);
}

/* A REQUEST_BEGIN (24), _END (25) or _STAGE (26) of request id. */
static int request(uint8_t type, uint32_t tid, uint64_t id, uint64_t ts, int32_t slot,
		   uint32_t what, uint32_t prompt, uint32_t cached, uint32_t generated,
		   const char *label)
{
	struct ggmlviz_event ev = event(type, tid, ts, label);

	ev.data.request.request_id = id;
	ev.data.request.slot = slot;
	ev.data.request.what = what;
	ev.data.request.prompt_tokens = prompt;
	ev.data.request.cached_tokens = cached;
	ev.data.request.generated_tokens = generated;
	return ggmlviz_pairing_add(p, &ev, &t);
}

/* Two requests interleaved, each begun on one thread and staged and ended on another. */
START_TEST(test_requests_across_threads)
{
	ck_assert_int_eq(request(24, 7, 3, 100, -1, GGMLVIZ_REQUEST_COMPLETION, 12, 0, 0, "completion"), 0);
	ck_assert_int_eq(request(24, 8, 4, 110, -1, GGMLVIZ_REQUEST_EMBEDDING, 5, 0, 0, NULL), 0);
	ck_assert_int_eq(request(26, 9, 3, 150, 1, GGMLVIZ_REQUEST_PROMPT, 12, 0, 0, NULL), 0);
	ck_assert_int_eq(request(26, 9, 3, 400, 1, GGMLVIZ_REQUEST_FIRST_TOKEN, 12, 8, 0, NULL), 0);
	ck_assert_int_eq(request(26, 9, 3, 450, 1, GGMLVIZ_REQUEST_PROMPT, 12, 0, 0, NULL), 0);
	check_counts(0, 0, 0, 2);
	ck_assert_int_eq(request(25, 9, 3, 900, 1, GGMLVIZ_REQUEST_DONE, 12, 8, 6, "eos"), 1);
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_REQUEST);
	ck_assert_uint_eq(t.ptr, 3);
	ck_assert_uint_eq(t.op_type, GGMLVIZ_REQUEST_COMPLETION);
	ck_assert_uint_eq(t.thread_id, 7); /* its arrival's */
	ck_assert_uint_eq(t.begin_ns, 100);
	ck_assert_uint_eq(t.value, 150); /* its prompt's start, the first of two */
	ck_assert_uint_eq(t.first_token_ns, 400);
	ck_assert_uint_eq(t.end_ns, 900);
	ck_assert_uint_eq(t.duration_ns, 800);
	ck_assert_int_eq(t.seq_id, 1);
	ck_assert_int_eq(t.status, GGMLVIZ_REQUEST_DONE);
	ck_assert_uint_eq(t.n_tokens, 12);
	ck_assert_uint_eq(t.context_tokens, 8);
	ck_assert_uint_eq(t.n_nodes, 6);
	ck_assert_mem_eq(t.label, "completion", t.label_len);
	ck_assert_uint_eq(t.type_name_len, 3);
	ck_assert_mem_eq(t.type_name, "eos", 3);
	/* the other, cancelled while queued: no slot, no stage */
	ck_assert_int_eq(request(25, 7, 4, 950, -1, GGMLVIZ_REQUEST_CANCELLED, 0, 0, 0, NULL), 1);
	ck_assert_uint_eq(t.ptr, 4);
	ck_assert_int_eq(t.seq_id, -1);
	ck_assert_uint_eq(t.value, 0);
	ck_assert_uint_eq(t.first_token_ns, 0);
	ck_assert_uint_eq(t.n_tokens, 5); /* its arrival's count */
	ck_assert_int_eq(t.status, GGMLVIZ_REQUEST_CANCELLED);
	check_counts(2, 0, 0, 0);
}
END_TEST

/* An end or stage of no open request, an id begun twice, and one never ended. */
START_TEST(test_requests_unmatched)
{
	ck_assert_int_eq(request(25, 1, 9, 10, 0, 0, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(request(26, 1, 9, 10, 0, 1, 0, 0, 0, NULL), 0);
	check_counts(0, 1, 0, 0);
	ck_assert_int_eq(request(24, 1, 5, 20, -1, 1, 0, 0, 0, NULL), 0);
	ck_assert_int_eq(request(24, 1, 5, 30, -1, 1, 0, 0, 0, NULL), 0); /* the first never ended */
	check_counts(0, 1, 1, 1);
	ck_assert_int_eq(request(25, 1, 5, 40, 0, 0, 0, 0, 1, NULL), 1);
	ck_assert_uint_eq(t.begin_ns, 30);
	ck_assert_int_eq(request(24, 1, 6, 50, -1, 1, 0, 0, 0, NULL), 0);
	ggmlviz_pairing_finish(p);
	check_counts(1, 1, 2, 0);
}
END_TEST

START_TEST(test_interleaved_ends)
{
	ck_assert_int_eq(op(1, 1, 0xa0, 10, "A"), 0);
	ck_assert_int_eq(op(1, 1, 0xb0, 20, "B"), 0);
	ck_assert_int_eq(op(0, 1, 0xa0, 30, "A"), 1);
	check_op(0xa0, 10, 30, "A");
	ck_assert_uint_eq(t.op_type, 0xa0);
	ck_assert_uint_eq(t.op_size, 0xa0 * 4);
	ck_assert_uint_eq(t.backend_ptr, 0xbac0);
	ck_assert_uint_eq(t.thread_id, 1);
	ck_assert_uint_eq(t.begin_offset, 12);
	ck_assert_uint_eq(t.end_offset, 212);
	ck_assert_int_eq(op(0, 1, 0xb0, 45, "B"), 1);
	check_op(0xb0, 20, 45, "B");
	ck_assert_uint_eq(t.begin_offset, 112);
	check_counts(2, 0, 0, 0);
}
END_TEST

START_TEST(test_address_reused_across_graphs)
{
	for (uint64_t g = 1; g <= 3; g++) {
		ck_assert_int_eq(graph(1, 1, 0x9000, g * 1000), 0);
		ck_assert_int_eq(op(1, 1, 0x42, g * 1000 + 1, "x"), 0);
		ck_assert_int_eq(op(0, 1, 0x42, g * 1000 + 5, "x"), 1);
		check_op(0x42, g * 1000 + 1, g * 1000 + 5, "x");
		ck_assert_uint_eq(t.graph_seq, g);
		ck_assert_int_eq(graph(0, 1, 0x9000, g * 1000 + 9), 1);
		ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_GRAPH);
		ck_assert_uint_eq(t.graph_seq, g);
		ck_assert_uint_eq(t.duration_ns, 9);
	}
	check_counts(6, 0, 0, 0);
}
END_TEST

START_TEST(test_nested_same_address)
{
	ck_assert_int_eq(op(1, 1, 0x10, 1, "outer"), 0);
	ck_assert_int_eq(op(1, 1, 0x10, 2, "inner"), 0);
	ck_assert_int_eq(op(0, 1, 0x10, 3, "inner"), 1);
	check_op(0x10, 2, 3, "inner");
	ck_assert_uint_eq(t.depth, 1);
	ck_assert_int_eq(op(0, 1, 0x10, 4, "outer"), 1);
	check_op(0x10, 1, 4, "outer");
	ck_assert_uint_eq(t.depth, 0);
	check_counts(2, 0, 0, 0);
}
END_TEST

START_TEST(test_unmatched_ends_counted)
{
	ck_assert_int_eq(op(0, 1, 0x10, 1, "lonely"), 0);
	ck_assert_int_eq(graph(0, 1, 0x20, 2), 0);
	ck_assert_int_eq(scope(0, 1, "nobody", 3, 0), 0);
	ck_assert_int_eq(op(1, 1, 0x30, 4, "t1"), 0);
	ck_assert_int_eq(op(0, 2, 0x30, 5, "t1"), 0); /* another thread's end */
	ck_assert_int_eq(graph(1, 1, 0x30, 6), 0);    /* same address, other kind */
	ck_assert_int_eq(op(0, 1, 0x31, 7, "t1"), 0); /* other address */
	check_counts(0, 5, 0, 2);
	ck_assert_int_eq(op(0, 1, 0x30, 8, "t1"), 1);
	check_counts(1, 5, 0, 1);
}
END_TEST

START_TEST(test_unclosed_at_finish)
{
	ck_assert_int_eq(op(1, 1, 0x10, 1, "a"), 0);
	ck_assert_int_eq(op(1, 2, 0x10, 1, "b"), 0);
	ck_assert_int_eq(scope(1, 1, "s", 1, 0), 0);
	check_counts(0, 0, 0, 3);
	ggmlviz_pairing_finish(p);
	check_counts(0, 0, 3, 0);
	/* forgotten: their ends are now unmatched */
	ck_assert_int_eq(op(0, 1, 0x10, 2, "a"), 0);
	check_counts(0, 1, 3, 0);
	ggmlviz_pairing_finish(p);
	check_counts(0, 1, 3, 0);
}
END_TEST

/* A graph's end abandons the ops of its thread still open inside it, and only those. */
START_TEST(test_graph_end_abandons_its_ops)
{
	ck_assert_int_eq(op(1, 1, 0x01, 1, "before"), 0); /* outside the graph */
	ck_assert_int_eq(graph(1, 1, 0x900, 2), 0);
	ck_assert_int_eq(op(1, 1, 0x02, 3, "lost1"), 0);
	ck_assert_int_eq(op(1, 1, 0x03, 4, "lost2"), 0);
	ck_assert_int_eq(op(1, 1, 0x04, 5, "done"), 0);
	ck_assert_int_eq(op(1, 2, 0x05, 5, "worker"), 0); /* another thread */
	ck_assert_int_eq(scope(1, 1, "phase", 5, 0), 0);  /* not an op */
	ck_assert_int_eq(op(0, 1, 0x04, 6, "done"), 1);
	ck_assert_uint_eq(t.depth, 4);
	check_counts(1, 0, 0, 6);
	ck_assert_int_eq(graph(0, 1, 0x900, 7), 1);
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_GRAPH);
	check_counts(2, 0, 2, 3);
	ck_assert_int_eq(op(0, 1, 0x02, 8, "lost1"), 0); /* its begin was abandoned */
	ck_assert_int_eq(op(0, 2, 0x05, 9, "worker"), 1);
	ck_assert_uint_eq(t.graph_seq, 1);
	ck_assert_int_eq(op(0, 1, 0x01, 10, "before"), 1);
	ck_assert_uint_eq(t.graph_seq, 0);
	ck_assert_int_eq(scope(0, 1, "phase", 11, 0), 1);
	ck_assert_uint_eq(t.graph_seq, 1);
	check_counts(5, 1, 2, 0);
}
END_TEST

START_TEST(test_threads_kept_apart)
{
	ck_assert_int_eq(op(1, 1, 0x10, 100, "x"), 0);
	ck_assert_int_eq(op(1, 2, 0x10, 200, "x"), 0);
	ck_assert_int_eq(op(0, 1, 0x10, 300, "x"), 1);
	ck_assert_uint_eq(t.thread_id, 1);
	ck_assert_uint_eq(t.begin_ns, 100);
	ck_assert_uint_eq(t.depth, 0);
	ck_assert_int_eq(op(0, 2, 0x10, 400, "x"), 1);
	ck_assert_uint_eq(t.thread_id, 2);
	ck_assert_uint_eq(t.begin_ns, 200);
	ck_assert_uint_eq(t.depth, 0);
	/* thread id 0 is a thread like any other */
	ck_assert_int_eq(op(1, 0, 0, 1, "zero"), 0);
	ck_assert_int_eq(op(0, 0, 0, 2, "zero"), 1);
	ck_assert_uint_eq(t.thread_id, 0);
	check_counts(3, 0, 0, 0);
}
END_TEST

START_TEST(test_op_info)
{
	ck_assert_int_eq(info(1, 0x10, 99, 1, "early"), 0); /* nothing open: ignored */
	ck_assert_int_eq(op(1, 1, 0x10, 1, "outer"), 0);
	ck_assert_int_eq(op(1, 1, 0x10, 2, "inner"), 0);
	ck_assert_int_eq(info(1, 0x10, 4096, 123456789, "f16"), 0);
	ck_assert_int_eq(info(2, 0x10, 7, 7, "other thread"), 0);
	ck_assert_int_eq(op(0, 1, 0x10, 3, "inner"), 1);
	ck_assert_int_eq(t.ne[0], 4096);
	ck_assert_int_eq(t.ne[1], 2);
	ck_assert_int_eq(t.ne[3], 4);
	ck_assert_uint_eq(t.flops, 123456789);
	ck_assert_uint_eq(t.type_name_len, 3);
	ck_assert_mem_eq(t.type_name, "f16", 3);
	ck_assert_int_eq(op(0, 1, 0x10, 4, "outer"), 1);
	ck_assert_int_eq(t.ne[0], 0);
	ck_assert_uint_eq(t.flops, 0);
	ck_assert_ptr_null(t.type_name);
	check_counts(2, 0, 0, 0);
}
END_TEST

START_TEST(test_scopes_by_label)
{
	ck_assert_int_eq(scope(1, 1, "prefill", 10, 1), 0);
	ck_assert_int_eq(scope(1, 1, "decode", 20, 2), 0);
	ck_assert_int_eq(scope(1, 1, "decode", 30, 3), 0);
	ck_assert_int_eq(scope(1, 2, "prefill", 35, 4), 0);
	ck_assert_int_eq(scope(0, 1, "prefill", 40, 99), 1);
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_SCOPE);
	ck_assert_uint_eq(t.begin_ns, 10);
	ck_assert_uint_eq(t.value, 1);
	ck_assert_uint_eq(t.ptr, 0);
	ck_assert_mem_eq(t.label, "prefill", 7);
	ck_assert_int_eq(scope(0, 1, "decode", 50, 0), 1);
	ck_assert_uint_eq(t.begin_ns, 30);
	ck_assert_uint_eq(t.depth, 2);
	ck_assert_int_eq(scope(0, 1, "decode", 60, 0), 1);
	ck_assert_uint_eq(t.begin_ns, 20);
	ck_assert_int_eq(scope(0, 1, "prefil", 70, 0), 0); /* a prefix is another name */
	ck_assert_int_eq(scope(0, 2, "prefill", 80, 0), 1);
	ck_assert_uint_eq(t.value, 4);
	/* a scope without a label pairs with another without a label */
	ck_assert_int_eq(scope(1, 1, NULL, 90, 5), 0);
	ck_assert_int_eq(scope(0, 1, NULL, 95, 0), 1);
	ck_assert_uint_eq(t.value, 5);
	ck_assert_ptr_null(t.label);
	check_counts(5, 1, 0, 0);
}
END_TEST

START_TEST(test_depth_and_graph_fields)
{
	ck_assert_int_eq(scope(1, 1, "run", 1, 0), 0);
	ck_assert_int_eq(graph(1, 1, 0x77, 2), 0);
	ck_assert_int_eq(op(1, 1, 0x10, 3, "node"), 0);
	ck_assert_int_eq(op(1, 2, 0x11, 3, "elsewhere"), 0);
	ck_assert_int_eq(op(0, 1, 0x10, 4, "node"), 1);
	ck_assert_uint_eq(t.depth, 2);
	ck_assert_uint_eq(t.graph_seq, 1);
	ck_assert_int_eq(op(0, 2, 0x11, 4, "elsewhere"), 1);
	ck_assert_uint_eq(t.depth, 0);
	ck_assert_int_eq(graph(0, 1, 0x77, 10), 1);
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_GRAPH);
	ck_assert_uint_eq(t.ptr, 0x77);
	ck_assert_uint_eq(t.n_nodes, 0x77 + 100);
	ck_assert_uint_eq(t.n_threads, 4);
	ck_assert_uint_eq(t.backend_ptr, 0xbac1);
	ck_assert_uint_eq(t.op_type, 0);
	ck_assert_uint_eq(t.depth, 1);
	ck_assert_uint_eq(t.duration_ns, 8);
	ck_assert_ptr_null(t.label);
	ck_assert_int_eq(scope(0, 1, "run", 11, 0), 1);
	ck_assert_uint_eq(t.depth, 0);
	ck_assert_uint_eq(t.graph_seq, 0);
}
END_TEST

/* An op's graph: its thread's innermost open graph, else the newest open graph. */
START_TEST(test_graph_seq_rules)
{
	ck_assert_int_eq(op(1, 5, 0x1, 1, "none"), 0);
	ck_assert_int_eq(graph(1, 1, 0xa, 2), 0); /* seq 1, thread 1 */
	ck_assert_int_eq(graph(1, 3, 0xb, 3), 0); /* seq 2, thread 3 */
	ck_assert_int_eq(graph(1, 1, 0xc, 4), 0); /* seq 3, thread 1, inside seq 1 */
	ck_assert_int_eq(op(1, 3, 0x2, 5, "t3"), 0);
	ck_assert_int_eq(op(1, 2, 0x3, 5, "worker"), 0);
	ck_assert_int_eq(graph(0, 1, 0xc, 6), 1);
	ck_assert_uint_eq(t.graph_seq, 3);
	ck_assert_int_eq(op(1, 1, 0x4, 7, "t1"), 0);
	ck_assert_int_eq(op(1, 2, 0x5, 7, "worker2"), 0);
	ck_assert_int_eq(op(0, 5, 0x1, 8, "none"), 1);
	ck_assert_uint_eq(t.graph_seq, 0);
	ck_assert_int_eq(op(0, 3, 0x2, 8, "t3"), 1);
	ck_assert_uint_eq(t.graph_seq, 2);
	ck_assert_int_eq(op(0, 2, 0x3, 8, "worker"), 1);
	ck_assert_uint_eq(t.graph_seq, 3); /* the newest open graph when it began */
	ck_assert_int_eq(op(0, 1, 0x4, 8, "t1"), 1);
	ck_assert_uint_eq(t.graph_seq, 1); /* thread 1's own graph, not thread 3's */
	ck_assert_int_eq(op(0, 2, 0x5, 8, "worker2"), 1);
	ck_assert_uint_eq(t.graph_seq, 2); /* seq 3 had ended */
	ck_assert_int_eq(graph(0, 3, 0xb, 9), 1);
	ck_assert_uint_eq(t.graph_seq, 2);
	ck_assert_int_eq(graph(0, 1, 0xa, 9), 1);
	ck_assert_uint_eq(t.graph_seq, 1);
	check_counts(8, 0, 0, 0);
}
END_TEST

START_TEST(test_clock_backwards_and_ignored_events)
{
	uint8_t types[] = { 4, 5, 6, 7, 8, 9, 10, 11, 15, 200, 255 };

	for (size_t i = 0; i < sizeof types; i++) {
		struct ggmlviz_event ev = event(types[i], 1, 1, "x");
		ck_assert_int_eq(ggmlviz_pairing_add(p, &ev, &t), 0);
	}
	check_counts(0, 0, 0, 0);
	ck_assert_int_eq(op(1, 1, 0x10, 100, "x"), 0);
	ck_assert_int_eq(op(0, 1, 0x10, 40, "x"), 1);
	ck_assert_uint_eq(t.duration_ns, 0);
	ck_assert_uint_eq(t.end_ns, 40);
}
END_TEST

START_TEST(test_new_and_free_arguments)
{
	ck_assert_int_eq(ggmlviz_pairing_new(NULL), -EINVAL);
	ggmlviz_pairing_free(NULL);
}
END_TEST

/* ---- begins of different identities sharing a map key (white box) ---- */

struct candidate {
	uint64_t masked, key, n;
};

static int by_masked(const void *a, const void *b)
{
	const struct candidate *x = a, *y = b;

	return (x->masked > y->masked) - (x->masked < y->masked);
}

/* Scattered 16-byte aligned addresses (evenly spaced ones never collide). */
static uint64_t as_ptr(uint64_t n)
{
	uint64_t z = n * 0x9e3779b97f4a7c15ull;

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return (z ^ (z >> 31)) & 0x00007ffffffffff0ull;
}

static const char *scope_label(uint64_t n)
{
	static char label[32];

	snprintf(label, sizeof label, "scope-%llu", (unsigned long long)n);
	return label;
}

static uint64_t as_label_hash(uint64_t n)
{
	const char *label = scope_label(n);

	return ggmlviz__pairing_label_hash(label, (uint32_t)strlen(label));
}

/*
 * Finds a != b and a thread tid != 0 such that (kind, thread 0, value(a))
 * and (kind, thread tid, value(b)) get the same key, by a birthday search:
 * keys of thread 0 that agree outside bits 2..33 differ by a thread id.
 * (Written for the key of lib/pairing.c; the test fails if it changes.)
 */
static bool find_collision(int kind, uint64_t (*value)(uint64_t), uint64_t *a, uint64_t *b,
			   uint32_t *tid)
{
	const size_t n = 1u << 19;
	struct candidate *c = malloc(n * sizeof *c);
	bool found = false;

	ck_assert_ptr_nonnull(c);
	for (size_t i = 0; i < n; i++) {
		c[i].n = i + 1;
		c[i].key = ggmlviz__pairing_key(kind, 0, value(i + 1));
		c[i].masked = c[i].key & ~(0xffffffffull << 2);
	}
	qsort(c, n, sizeof *c, by_masked);
	for (size_t i = 0; i + 1 < n && !found; i++) {
		*tid = (uint32_t)((c[i].key ^ c[i + 1].key) >> 2);
		*a = c[i].n;
		*b = c[i + 1].n;
		found = c[i].masked == c[i + 1].masked && *tid != 0 &&
			ggmlviz__pairing_key(kind, 0, value(*a)) ==
				ggmlviz__pairing_key(kind, *tid, value(*b));
	}
	free(c);
	return found;
}

START_TEST(test_colliding_ops)
{
	uint64_t a, b;
	uint32_t tid;

	ck_assert(find_collision(GGMLVIZ_TIMING_OP, as_ptr, &a, &b, &tid));
	ck_assert_int_eq(op(1, 0, as_ptr(a), 10, "a"), 0);
	ck_assert_int_eq(op(1, tid, as_ptr(b), 20, "b"), 0);
	ck_assert_int_eq(op(1, 0, as_ptr(a), 25, "a2"), 0);
	ck_assert_int_eq(op(0, tid, as_ptr(b), 30, "b"), 1); /* not the newest of its key */
	check_op(as_ptr(b), 20, 30, "b");
	ck_assert_int_eq(op(0, 0, as_ptr(a), 40, "a2"), 1);
	check_op(as_ptr(a), 25, 40, "a2");
	ck_assert_int_eq(op(0, tid, as_ptr(b), 50, "b"), 0); /* its begin is gone */
	ck_assert_int_eq(op(0, 0, as_ptr(a), 60, "a"), 1);
	check_op(as_ptr(a), 10, 60, "a");
	check_counts(3, 1, 0, 0);
}
END_TEST

START_TEST(test_colliding_scopes)
{
	char la[32], lb[32];
	uint64_t a, b;
	uint32_t tid;

	ck_assert(find_collision(GGMLVIZ_TIMING_SCOPE, as_label_hash, &a, &b, &tid));
	snprintf(la, sizeof la, "%s", scope_label(a));
	snprintf(lb, sizeof lb, "%s", scope_label(b));
	ck_assert_int_eq(scope(1, 0, la, 10, 1), 0);
	ck_assert_int_eq(scope(1, tid, lb, 20, 2), 0);
	ck_assert_int_eq(scope(0, 0, la, 30, 0), 1);
	ck_assert_uint_eq(t.value, 1);
	ck_assert_int_eq(scope(0, tid, lb, 40, 0), 1);
	ck_assert_uint_eq(t.value, 2);
	check_counts(2, 0, 0, 0);
}
END_TEST

/* A million pairs, and a million ops abandoned: memory follows what is open. */
START_TEST(test_memory_bounded)
{
	uint32_t pool;

	for (uint64_t i = 0; i < 1000000; i++) {
		if (i % 1000 == 0)
			graph(1, 1, 0x900 + i, i);
		op(1, (uint32_t)(i % 7), 0x10000 + i * 64, i, "n");
		ck_assert_int_eq(op(0, (uint32_t)(i % 7), 0x10000 + i * 64, i + 1, "n"), 1);
		if (i % 1000 == 999)
			ck_assert_int_eq(graph(0, 1, 0x900 + i - 999, i), 1);
	}
	check_counts(1001000, 0, 0, 0);
	pool = ggmlviz__pairing_pool_size(p);
	ck_assert_uint_le(pool, 64);
	for (uint64_t i = 0; i < 1000000; i++) {
		if (i % 1000 == 0)
			graph(1, 1, 0x900 + i, i);
		op(1, 1, 0x10000 + i * 64, i, "never ended");
		if (i % 1000 == 999)
			graph(0, 1, 0x900 + i - 999, i);
	}
	check_counts(1002000, 0, 1000000, 0);
	ck_assert_uint_le(ggmlviz__pairing_pool_size(p), 2048);
}
END_TEST

/*
 * Threads one after another (a server's thread per request), 200000 of
 * them, more than the engine follows at once: each one's ops pair, none is
 * over the limit, and the engine keeps no more thread states than the
 * threads with begins open (a few). Then 65536 threads each with a begin
 * open are followed, and one more is over the limit.
 */
START_TEST(test_threads_come_and_go)
{
	const uint32_t n = 200000;
	struct ggmlviz_pairing_counts c;

	for (uint32_t tid = 1; tid <= n; tid++) {
		op(1, tid, 0x100, tid, "a");
		graph(1, tid, 0x900, tid);
		op(1, tid, 0x200, tid, "b");
		ck_assert_int_eq(op(0, tid, 0x200, tid + 1, "b"), 1);
		ck_assert_int_eq(graph(0, tid, 0x900, tid + 1), 1);
		ck_assert_int_eq(op(0, tid, 0x100, tid + 2, "a"), 1);
	}
	ggmlviz_pairing_counts(p, &c);
	ck_assert_uint_eq(c.paired, 3u * n);
	ck_assert_uint_eq(c.over_limit, 0);
	ck_assert_uint_eq(c.unmatched_ends, 0);
	ck_assert_uint_le(ggmlviz__pairing_thread_slots(p), 2048);
	for (uint32_t tid = n + 1; tid <= n + GGMLVIZ_PAIRING_MAX_THREADS + 1; tid++)
		op(1, tid, 0x300, tid, "open");
	ggmlviz_pairing_counts(p, &c);
	ck_assert_uint_eq(c.over_limit, 1);
	ck_assert_uint_eq(c.open, GGMLVIZ_PAIRING_MAX_THREADS);
}
END_TEST

/* A trace with graphs, ops, OP_INFO, a scope, an unmatched end and an unclosed begin. */
static void timing_trace(struct vbuf *b)
{
	static const uint32_t ne[4] = { 8, 4, 1, 1 };
	uint8_t pl[32];

	vec_header(b, 1);
	vec_graph(pl, 0xaaa, 2, 1, 0, 0);
	vec_record_s(b, 0, 100, 1, pl, NULL);
	vec_op(pl, 0x10, 29, 64, 0, 0);
	vec_record_s(b, 2, 110, 1, pl, "q");
	vec_op_info(pl, 0x10, ne, 1000);
	vec_record_s(b, 14, 111, 1, pl, "f32");
	vec_op(pl, 0x20, 30, 64, 0, 0);
	vec_record_s(b, 2, 120, 1, pl, "k");
	vec_op(pl, 0x10, 29, 64, 0, 0);
	vec_record_s(b, 3, 130, 1, pl, "q");
	vec_op(pl, 0x20, 30, 64, 0, 0);
	vec_record_s(b, 3, 150, 1, pl, "k");
	vec_op(pl, 0x30, 31, 64, 0, 0);
	vec_record_s(b, 3, 151, 1, pl, "never begun");
	vec_graph(pl, 0xaaa, 2, 1, 0, 0);
	vec_record_s(b, 1, 160, 1, pl, NULL);
	vec_user(pl, 3, 0);
	vec_record_s(b, 12, 170, 1, pl, "never ended");
}

static void check_trace_timings(struct ggmlviz_reader *r)
{
	struct ggmlviz_pairing_counts c;

	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 1);
	ck_assert_uint_eq(t.ptr, 0x10);
	ck_assert_uint_eq(t.duration_ns, 20);
	ck_assert_mem_eq(t.label, "q", 1);
	ck_assert_mem_eq(t.type_name, "f32", 3);
	ck_assert_int_eq(t.ne[0], 8);
	ck_assert_uint_eq(t.flops, 1000);
	ck_assert_uint_eq(t.graph_seq, 1);
	ck_assert_uint_eq(t.depth, 1);
	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 1);
	ck_assert_uint_eq(t.ptr, 0x20);
	ck_assert_uint_eq(t.duration_ns, 30);
	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 1);
	ck_assert_int_eq(t.kind, GGMLVIZ_TIMING_GRAPH);
	ck_assert_uint_eq(t.duration_ns, 60);
	ck_assert_uint_eq(t.n_nodes, 2);
	ggmlviz_reader_pairing_counts(r, &c);
	ck_assert_uint_eq(c.paired, 3);
	ck_assert_uint_eq(c.unmatched_ends, 1);
	ck_assert_uint_eq(c.unclosed_begins, 0);
	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 0);
	ggmlviz_reader_pairing_counts(r, &c);
	ck_assert_uint_eq(c.paired, 3);
	ck_assert_uint_eq(c.unclosed_begins, 1); /* the scope, counted at the end */
	ck_assert_uint_eq(c.open, 0);
	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 0);
	ggmlviz_reader_pairing_counts(r, &c);
	ck_assert_uint_eq(c.unclosed_begins, 1);
}

START_TEST(test_timings_over_reader)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;

	timing_trace(&b);
	ck_assert_int_eq(ggmlviz_reader_open_memory(b.bytes, b.len, &r), 0);
	check_trace_timings(r);
	ggmlviz_reader_rewind(r); /* counts and graph numbers start again */
	check_trace_timings(r);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

/* A cut trace: timings before the cut, then the reader's error, counts not final. */
START_TEST(test_timings_truncated)
{
	struct vbuf b = { 0 };
	struct ggmlviz_reader *r;
	struct ggmlviz_pairing_counts c;

	timing_trace(&b);
	ck_assert_int_eq(ggmlviz_reader_open_memory(b.bytes, b.len - 3, &r), 0);
	for (int i = 0; i < 3; i++)
		ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), 1);
	ck_assert_int_eq(ggmlviz_reader_next_timing(r, &t), GGMLVIZ_ETRUNCATED);
	ggmlviz_reader_pairing_counts(r, &c);
	ck_assert_uint_eq(c.unclosed_begins, 0);
	ggmlviz_reader_close(r);
	vbuf_free(&b);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("pairing");
	TCase *tc = tcase_create("engine");
	TCase *tr = tcase_create("reader");

	tcase_set_timeout(tc, 120);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_interleaved_ends);
	tcase_add_test(tc, test_address_reused_across_graphs);
	tcase_add_test(tc, test_nested_same_address);
	tcase_add_test(tc, test_unmatched_ends_counted);
	tcase_add_test(tc, test_unclosed_at_finish);
	tcase_add_test(tc, test_graph_end_abandons_its_ops);
	tcase_add_test(tc, test_threads_kept_apart);
	tcase_add_test(tc, test_op_info);
	tcase_add_test(tc, test_scopes_by_label);
	tcase_add_test(tc, test_depth_and_graph_fields);
	tcase_add_test(tc, test_graph_seq_rules);
	tcase_add_test(tc, test_clock_backwards_and_ignored_events);
	tcase_add_test(tc, test_new_and_free_arguments);
	tcase_add_test(tc, test_requests_across_threads);
	tcase_add_test(tc, test_requests_unmatched);
	tcase_add_test(tc, test_memory_bounded);
	tcase_add_test(tc, test_threads_come_and_go);
	tcase_add_test(tc, test_colliding_ops);
	tcase_add_test(tc, test_colliding_scopes);
	suite_add_tcase(s, tc);
	tcase_add_test(tr, test_timings_over_reader);
	tcase_add_test(tr, test_timings_truncated);
	suite_add_tcase(s, tr);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
