/*
 * Helpers of the tests on real GGML (see ggml-util.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "trace-util.h"
#include "../examples/transformer.h"

static int add_meta(const struct ggmlviz_event *ev, void *arg)
{
	struct gu_trace *tr = arg;
	struct gu_meta *m = &tr->metas[tr->n_metas];

	tr->events++;
	if (ev->type != GGMLVIZ_EVENT_META)
		return 0;
	ck_assert_uint_lt(tr->n_metas, GU_MAX_RECORDS);
	m->kind = ev->data.meta.kind;
	m->key = ev->data.meta.key;
	snprintf(m->label, sizeof m->label, "%.*s", (int)ev->label_len, ev->label ? ev->label : "");
	tr->n_metas++;
	return 0;
}

static void add_timing(struct gu_trace *tr, const struct ggmlviz_timing *t)
{
	ck_assert_uint_lt(tr->n_ops + tr->n_graphs + tr->n_splits + tr->n_steps + tr->n_sums,
			  GU_MAX_RECORDS);
	if (t->kind == GGMLVIZ_TIMING_OP)
		tr->ops[tr->n_ops++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_GRAPH)
		tr->graphs[tr->n_graphs++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_SPLIT)
		tr->splits[tr->n_splits++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_STEP)
		tr->steps[tr->n_steps++] = *t;
	else if (t->kind == GGMLVIZ_TIMING_OP_SUMMARY)
		tr->sums[tr->n_sums++] = *t;
}

void gu_read(struct gu_trace *tr, const char *path)
{
	struct ggmlviz_timing t;
	int rc;

	memset(tr, 0, sizeof *tr);
	tr->ops = calloc(GU_MAX_RECORDS, sizeof *tr->ops);
	tr->graphs = calloc(GU_MAX_RECORDS, sizeof *tr->graphs);
	tr->splits = calloc(GU_MAX_RECORDS, sizeof *tr->splits);
	tr->steps = calloc(GU_MAX_RECORDS, sizeof *tr->steps);
	tr->sums = calloc(GU_MAX_RECORDS, sizeof *tr->sums);
	tr->metas = calloc(GU_MAX_RECORDS, sizeof *tr->metas);
	ck_assert(tr->ops && tr->graphs && tr->splits && tr->steps && tr->sums && tr->metas);
	ck_assert_int_eq(ggmlviz_reader_open(path, &tr->r), 0);
	while ((rc = ggmlviz_reader_next_timing(tr->r, &t)) == 1)
		add_timing(tr, &t);
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_pairing_counts(tr->r, &tr->counts);
	ck_assert_int_eq(tu_each(path, add_meta, tr), 0);
}

void gu_free(struct gu_trace *tr)
{
	ggmlviz_reader_close(tr->r);
	free(tr->ops);
	free(tr->graphs);
	free(tr->splits);
	free(tr->steps);
	free(tr->sums);
	free(tr->metas);
}

size_t gu_count_meta(const struct gu_trace *tr, uint32_t kind, uint64_t key, const char **label)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n_metas; i++) {
		if (tr->metas[i].kind != kind || tr->metas[i].key != key)
			continue;
		n++;
		if (label)
			*label = tr->metas[i].label;
	}
	return n;
}

int gu_label_is(const struct ggmlviz_timing *t, const char *name)
{
	return t->label && t->label_len == strlen(name) &&
	       memcmp(t->label, name, t->label_len) == 0;
}

int gu_has_label(const struct gu_trace *tr, const char *label)
{
	for (size_t i = 0; i < tr->n_ops; i++)
		if (gu_label_is(&tr->ops[i], label))
			return 1;
	return 0;
}

void gu_start(char path[256], int op_timing)
{
	struct ggmlviz_config cfg;

	tu_path(path, 256, "ggml");
	tu_config(&cfg, path);
	cfg.op_timing = op_timing;
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK; /* lossless: the tests count every record */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
}

void gu_stop_and_read(const char *path, struct gu_trace *tr)
{
	ck_assert_int_eq(ggmlviz_stop(), 0);
	gu_read(tr, path);
	unlink(path);
}

ggml_backend_t gu_cpu_backend(const char *libdir)
{
	ggml_backend_t b = transformer_cpu_backend(libdir, GU_THREADS);

	ck_assert_msg(b != NULL, "no CPU backend in %s", libdir);
	return b;
}

ggml_backend_sched_t gu_new_sched(ggml_backend_t *backend, size_t graph_size)
{
	return ggml_backend_sched_new(backend, NULL, 1, graph_size, false, false);
}

void gu_set_cpu_abort(ggml_backend_t cpu, ggml_abort_callback cb, void *data)
{
	ggml_backend_reg_t reg = ggml_backend_dev_backend_reg(ggml_backend_get_device(cpu));
	void *proc = ggml_backend_reg_get_proc_address(reg, "ggml_backend_set_abort_callback");
	ggml_backend_set_abort_callback_t set;

	ck_assert_ptr_nonnull(proc);
	memcpy(&set, &proc, sizeof set);
	set(cpu, cb, data);
}

static struct ggml_tensor *name(struct ggml_tensor *t, const char *n)
{
	return ggml_set_name(t, n);
}

static void fill(struct ggml_tensor *t, float seed)
{
	size_t n = (size_t)ggml_nelements(t);
	float *v = malloc(n * sizeof *v);

	ck_assert_ptr_nonnull(v);
	for (size_t i = 0; i < n; i++)
		v[i] = (float)((i * 7 + (size_t)seed) % 13) / 13.0f - 0.5f;
	ggml_backend_tensor_set(t, v, 0, n * sizeof *v);
	free(v);
}

static void known_params(struct gu_known *k, ggml_backend_t backend)
{
	struct ggml_init_params ip = { 2 * ggml_tensor_overhead(), NULL, true };

	k->params_ctx = ggml_init(ip);
	k->x = name(ggml_new_tensor_2d(k->params_ctx, GGML_TYPE_F32, 64, 8), "x");
	k->w = name(ggml_new_tensor_2d(k->params_ctx, GGML_TYPE_F32, 64, 48), "w");
	k->params = ggml_backend_alloc_ctx_tensors(k->params_ctx, backend);
	ck_assert_ptr_nonnull(k->params);
	fill(k->x, 1);
	fill(k->w, 2);
}

void gu_known_init(struct gu_known *k, ggml_backend_t backend)
{
	struct ggml_init_params ip = {
		16 * ggml_tensor_overhead() + ggml_graph_overhead_custom(64, false), NULL, true
	};
	struct ggml_context *ctx;

	memset(k, 0, sizeof *k);
	known_params(k, backend);
	ctx = k->ctx = ggml_init(ip);
	k->y = name(ggml_mul_mat(ctx, k->w, k->x), "y");
	k->yt = name(ggml_transpose(ctx, k->y), "yt");
	k->yc = name(ggml_cont(ctx, k->yt), "yc");
	k->r = name(ggml_reshape_2d(ctx, k->yc, 48, 8), "r");
	k->s = name(ggml_silu(ctx, k->r), "s");
	k->v = name(ggml_view_2d(ctx, k->s, 48, 4, k->s->nb[1], 0), "v");
	k->out = name(ggml_soft_max(ctx, k->v), "out");
	ggml_set_output(k->out);
	k->g = ggml_new_graph_custom(ctx, 64, false);
	ggml_build_forward_expand(k->g, k->out);
	ck_assert_int_eq(ggml_graph_n_nodes(k->g), 7);
}

void gu_known_free(struct gu_known *k)
{
	ggml_free(k->ctx);
	ggml_backend_buffer_free(k->params);
	ggml_free(k->params_ctx);
}

void gu_known_expected(struct gu_expected_op e[4])
{
	/* sizes are f32 elements x 4; MUL_MAT work is 2 x 64 x 48 x 8 */
	const struct gu_expected_op ops[4] = {
		{ "y", GGML_OP_MUL_MAT, "MUL_MAT", 48 * 8 * 4, { 48, 8, 1, 1 }, 2 * 64 * 48 * 8 },
		{ "yc", GGML_OP_CONT, "CONT", 8 * 48 * 4, { 8, 48, 1, 1 }, 8 * 48 },
		{ "s", GGML_OP_UNARY | (GGML_UNARY_OP_SILU + 1u) << 16, "SILU", 48 * 8 * 4,
		  { 48, 8, 1, 1 }, 48 * 8 },
		{ "out", GGML_OP_SOFT_MAX, "SOFT_MAX", 48 * 4 * 4, { 48, 4, 1, 1 }, 48 * 4 },
	};

	memcpy(e, ops, sizeof ops);
}

void gu_silent_log(enum ggml_log_level level, const char *text, void *data)
{
	(void)data;
	if (level == GGML_LOG_LEVEL_ERROR)
		fputs(text, stderr);
}

int32_t gu_argmax(const float *v, int n)
{
	int32_t best = 0;

	for (int32_t t = 1; t < n; t++)
		if (v[t] > v[best])
			best = t;
	return best;
}
