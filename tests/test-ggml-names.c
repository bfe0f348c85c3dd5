/*
 * A GGML that gives its graphs no id (one built without libggmlviz's edit,
 * as this one is): the adapter names each run by what its descriptions are
 * made of (<ggmlviz/ggml-name.h>), and a graph computed again unchanged is
 * described once and written once, as an edited GGML's is:
 *   - the known graph computed five times: its ops described in full at
 *     the first two runs (a name is kept at its second), then DESC_SET
 *     REPEAT, every op of every run with the descriptions of the first;
 *   - a node renamed between two runs: described again, its new name in
 *     the runs after, the others as they were;
 *   - a node reshaped (a view of fewer rows): described again, with the
 *     new shape;
 *   - the names the DESC_SET records carry are the adapter's (the top bit
 *     set), never 0, and one a graph;
 *   - every field a description reads, changed alone, is another name.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "trace-util.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define MAX_SETS 16

static ggml_backend_t cpu;
static ggml_backend_sched_t ksched;
static struct gu_known kg;

static void known_setup(void)
{
	cpu = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	gu_known_init(&kg, cpu);
	ksched = gu_new_sched(&cpu, 64);
}

static void known_teardown(void)
{
	ggml_backend_sched_free(ksched);
	gu_known_free(&kg);
	ggml_backend_free(cpu);
}

/* The DESC_SET records of a trace, in order. */
struct sets {
	uint8_t mode[MAX_SETS];
	uint64_t graph_id[MAX_SETS];
	size_t n;
};

static int note_set(const struct ggmlviz_event *ev, void *arg)
{
	struct sets *s = arg;

	if (ev->type == GGMLVIZ_EVENT_DESC_SET && s->n < MAX_SETS) {
		s->mode[s->n] = ev->data.desc_set.mode;
		s->graph_id[s->n++] = ev->data.desc_set.graph_id;
	}
	return 0;
}

/* Tracing into a fresh file, the scheduler traced. */
static void start(char path[256])
{
	gu_start(path, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(ksched, GU_THREADS, NULL, NULL), 0);
}

static void compute(int runs)
{
	for (int i = 0; i < runs; i++)
		ck_assert_int_eq(ggmlviz_ggml_sched_graph_compute(ksched, kg.g), GGML_STATUS_SUCCESS);
}

/* Stops; the trace's DESC_SET records in *s and its timings in *tr; the file removed. */
static void stop_and_read(const char *path, struct sets *s, struct gu_trace *tr)
{
	ggmlviz_ggml_untrace_sched(ksched);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	memset(s, 0, sizeof *s);
	ck_assert_int_eq(tu_each(path, note_set, s), 0);
	gu_read(tr, path);
	unlink(path);
}

static size_t sets_of(const struct sets *s, uint8_t mode)
{
	size_t k = 0;

	for (size_t i = 0; i < s->n; i++)
		k += s->mode[i] == mode;
	return k;
}

/* Op k of the trace is the known graph's op i, as gu_known_expected() has it. */
static void check_op(const struct gu_trace *tr, size_t k, const struct gu_expected_op *e)
{
	const struct ggmlviz_timing *t = &tr->ops[k];

	ck_assert_msg(gu_label_is(t, e->label), "op %zu labelled %.*s, expected %s", k,
		      (int)t->label_len, t->label, e->label);
	ck_assert_uint_eq(t->op_type, e->op_type);
	ck_assert_uint_eq(t->op_size, e->size);
	for (int d = 0; d < 4; d++)
		ck_assert_int_eq(t->ne[d], e->ne[d]);
	ck_assert_uint_eq(t->flops, e->flops);
	ck_assert_uint_eq(t->type_name_len, 3);
}

START_TEST(a_graph_computed_again_is_described_once)
{
	struct gu_expected_op e[4];
	struct gu_trace tr;
	struct sets s;
	char path[256];

	gu_known_expected(e);
	start(path);
	compute(5);
	stop_and_read(path, &s, &tr);
	ck_assert_uint_eq(tr.n_ops, 5 * 4);
	for (size_t k = 0; k < tr.n_ops; k++)
		check_op(&tr, k, &e[k % 4]);
	/* the first run described, not kept; the second kept (DEFINE); the others REPEAT */
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_DEFINE), 1);
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_REPEAT), 3);
	for (size_t i = 0; i < s.n; i++) {
		ck_assert_uint_ne(s.graph_id[i] >> 63, 0); /* the adapter's name, not GGML's id */
		ck_assert_uint_eq(s.graph_id[i], s.graph_id[0]);
	}
	ck_assert_uint_eq(tr.counts.unmatched_ends + tr.counts.unclosed_begins, 0);
	gu_free(&tr);
}
END_TEST

START_TEST(a_renamed_node_is_described_again)
{
	struct gu_expected_op e[4];
	struct gu_trace tr;
	struct sets s;
	char path[256], name[sizeof kg.s->name];

	gu_known_expected(e);
	snprintf(name, sizeof name, "%s", kg.s->name);
	start(path);
	compute(3);
	ggml_set_name(kg.s, "silu-renamed");
	compute(3);
	ggml_set_name(kg.s, name);
	stop_and_read(path, &s, &tr);
	ck_assert_uint_eq(tr.n_ops, 6 * 4);
	for (size_t k = 0; k < tr.n_ops; k++) {
		size_t i = k % 4;

		if (k >= 3 * 4 && tr.ops[k].op_type == e[i].op_type && !strcmp(e[i].label, name))
			ck_assert_msg(gu_label_is(&tr.ops[k], "silu-renamed"),
				      "op %zu after the rename labelled %.*s", k,
				      (int)tr.ops[k].label_len, tr.ops[k].label);
		else
			check_op(&tr, k, &e[i]);
	}
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_DEFINE), 2); /* one a name */
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_REPEAT), 2);
	ck_assert_uint_ne(s.graph_id[0], s.graph_id[s.n - 1]);
	gu_free(&tr);
}
END_TEST

START_TEST(a_reshaped_node_is_described_again)
{
	struct gu_expected_op e[4];
	struct gu_trace tr;
	struct sets s;
	char path[256];
	const int64_t rows = kg.v->ne[1];

	gu_known_expected(e);
	start(path);
	compute(2);
	/* the view and the softmax that reads it: one row fewer, at the same addresses */
	kg.v->ne[1] = rows - 1;
	kg.out->ne[1] = rows - 1;
	kg.out->nb[2] = kg.out->nb[3] = kg.out->nb[1] * (size_t)(rows - 1);
	compute(2);
	kg.v->ne[1] = kg.out->ne[1] = rows;
	kg.out->nb[2] = kg.out->nb[3] = kg.out->nb[1] * (size_t)rows;
	stop_and_read(path, &s, &tr);
	ck_assert_uint_eq(tr.n_ops, 4 * 4);
	for (size_t k = 0; k < tr.n_ops; k++) {
		const struct ggmlviz_timing *t = &tr.ops[k];

		if (k >= 2 * 4 && t->op_type == GGML_OP_SOFT_MAX)
			ck_assert_int_eq(t->ne[1], rows - 1);
		else
			check_op(&tr, k, &e[k % 4]);
	}
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_DEFINE), 2);
	ck_assert_uint_eq(sets_of(&s, GGMLVIZ_DESC_SET_REPEAT), 0);
	gu_free(&tr);
}
END_TEST

/*
 * What a description reads, each changed alone, names the run otherwise:
 * the node's op parameters, type, shape, strides, flags, view, the end of
 * a long name, a source after an empty slot (softmax's sinks, src[2] with
 * src[1] empty), a source's shape and type; the same nodes unchanged name
 * it the same.
 */
START_TEST(every_field_a_description_reads_is_in_the_name)
{
	struct ggml_init_params ip = { 16 * ggml_tensor_overhead(), NULL, true };
	struct ggml_context *ctx = ggml_init(ip);
	struct ggml_tensor *a, *sinks, *other, *t, keep_t, keep_a;
	const void *nodes[2];
	uint64_t base;

	ck_assert_ptr_nonnull(ctx);
	a = ggml_new_tensor_3d(ctx, GGML_TYPE_F32, 8, 4, 2);
	sinks = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 2); /* one a head */
	other = ggml_new_tensor_1d(ctx, GGML_TYPE_F32, 8);
	t = ggml_soft_max_ext(ctx, a, NULL, 1.0f, 0.0f);
	ggml_soft_max_add_sinks(t, sinks);
	ggml_set_name(t, "kq_soft_max_ext_a_long_name-3");
	ck_assert_ptr_null(t->src[1]);
	ck_assert_ptr_eq(t->src[2], sinks);
	nodes[0] = t; /* a run of t alone: a is a source only, as a weight is */
	nodes[1] = a;
	base = ggmlviz_ggml__run_name(nodes, 1);
	ck_assert_uint_ne(base >> 63, 0);
	ck_assert_uint_eq(ggmlviz_ggml__run_name(nodes, 1), base);
	ck_assert_uint_ne(ggmlviz_ggml__run_name(nodes, 2), base); /* another run */
	keep_t = *t;
	keep_a = *a;
#define CHANGED(what, change)                                                              \
	do {                                                                               \
		change;                                                                    \
		ck_assert_msg(ggmlviz_ggml__run_name(nodes, 1) != base, "%s: the same name", \
			      what);                                                       \
		*t = keep_t;                                                               \
		*a = keep_a;                                                               \
		ck_assert_uint_eq(ggmlviz_ggml__run_name(nodes, 1), base);                 \
	} while (0)
	CHANGED("op parameter", t->op_params[1] ^= 1);
	CHANGED("type", t->type = GGML_TYPE_F16);
	CHANGED("shape", t->ne[1] = 3);
	CHANGED("strides", t->nb[2] *= 2);
	CHANGED("flags", t->flags |= GGML_TENSOR_FLAG_OUTPUT);
	CHANGED("view", t->view_src = a);
	CHANGED("view offset", t->view_offs = 64);
	CHANGED("the name's end", t->name[27] = '4');
	CHANGED("a source after an empty slot", t->src[2] = other);
	CHANGED("a source moved to another slot", (t->src[1] = t->src[2], t->src[2] = NULL));
	CHANGED("a source's shape", a->ne[1] = 2);
	CHANGED("a source's type", a->type = GGML_TYPE_F16);
	CHANGED("the op", t->op = GGML_OP_SOFT_MAX_BACK);
#undef CHANGED
	ggml_free(ctx);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *suite = suite_create("ggml names");
	TCase *c = tcase_create("runs named by the adapter");

	tcase_set_timeout(c, GU_TIMEOUT_S);
	tcase_add_checked_fixture(c, known_setup, known_teardown);
	tcase_add_test(c, a_graph_computed_again_is_described_once);
	tcase_add_test(c, a_renamed_node_is_described_again);
	tcase_add_test(c, a_reshaped_node_is_described_again);
	suite_add_tcase(suite, c);
	c = tcase_create("a run's name");
	tcase_add_test(c, every_field_a_description_reads_is_in_the_name);
	suite_add_tcase(suite, c);
	return suite;
}

int main(void)
{
	return run_suite(make_suite());
}
