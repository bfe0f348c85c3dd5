/*
 * Pairing begins with ends (ops, graphs, user scopes) into timings: the
 * events and the public functions of the engine. The set of open begins is
 * pairing-open.c; ggmlviz_reader_next_timing over a reader is timings.c.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>

#include "format/record.h"
#include "pairing-open.h"

#define NIL GGMLVIZ__NIL

/* ---- events ---- */

static void timing_begin(struct ggmlviz_timing *t, const struct ggmlviz_event *ev,
			 const struct ggmlviz__identity *id)
{
	memset(t, 0, sizeof *t);
	t->kind = id->kind;
	t->ptr = id->ptr;
	t->thread_id = ev->thread_id;
	t->begin_ns = ev->timestamp_ns;
	t->label = ev->label;
	t->label_len = ev->label ? ev->label_len : 0;
	t->begin_offset = ev->offset;
	t->layer = -1;
	switch (id->kind) {
	case GGMLVIZ_TIMING_OP:
		t->op_type = ev->data.op.op_type;
		t->op_size = ev->data.op.op_size;
		t->backend_ptr = ev->data.op.backend_ptr;
		t->layer = ggmlviz_layer_of_name(t->label, t->label_len); /* until an OP_NODE says */
		break;
	case GGMLVIZ_TIMING_GRAPH:
		t->n_nodes = ev->data.graph.n_nodes;
		t->n_threads = ev->data.graph.n_threads;
		t->backend_ptr = ev->data.graph.backend_ptr;
		break;
	case GGMLVIZ_TIMING_STEP:
		t->n_tokens = ev->data.step.n_tokens;
		t->phase = ev->data.step.phase;
		break;
	case GGMLVIZ_TIMING_SPLIT:
		t->n_nodes = ev->data.split.n_nodes;
		t->backend_ptr = ev->data.split.backend_ptr;
		t->run_id = ev->data.split.run_id;
		break;
	default:
		t->value = ev->data.user.value;
		break;
	}
}

/* What only the end record tells. */
static void timing_end(struct ggmlviz_timing *t, const struct ggmlviz_event *ev)
{
	t->end_ns = ev->timestamp_ns;
	t->duration_ns = t->end_ns >= t->begin_ns ? t->end_ns - t->begin_ns : 0;
	t->end_offset = ev->offset;
	if (t->kind == GGMLVIZ_TIMING_STEP) {
		t->status = ev->data.step.status;
	} else if (t->kind == GGMLVIZ_TIMING_SPLIT) {
		t->n_nodes = ev->data.split.n_nodes;
		t->n_timed = ev->data.split.n_timed;
		t->ticks = ev->data.split.ticks;
		t->ticks_expected = ev->data.split.ticks_expected;
	}
}

static int on_begin(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
		    const struct ggmlviz__identity *id)
{
	uint32_t i = ggmlviz__open_insert(p, id);

	if (i == GGMLVIZ__OVER) {
		p->counts.over_limit++; /* not followed: its end will find no begin */
		return 0;
	}
	if (i == NIL)
		return -ENOMEM;
	timing_begin(&p->items[i].t, ev, id);
	p->items[i].has = 0;
	ggmlviz__open_place(p, i);
	if (id->kind == GGMLVIZ_TIMING_SPLIT && p->items[i].t.run_id)
		ggmlviz__ties_run_begin(&p->gpu, &p->items[i].t, &p->counts);
	return 0;
}

static int on_end(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
		  const struct ggmlviz__identity *id, struct ggmlviz_timing *t)
{
	uint32_t i = ggmlviz__open_find(p, id);
	unsigned has;

	if (i == NIL) {
		p->counts.unmatched_ends++;
		return 0;
	}
	*t = p->items[i].t;
	has = p->items[i].has;
	timing_end(t, ev);
	ggmlviz__open_close(p, i);
	p->counts.paired++;
	if (t->kind == GGMLVIZ_TIMING_OP)
		ggmlviz__descs_op(&p->descs, t, has); /* out of memory: the op as it came */
	if (t->kind == GGMLVIZ_TIMING_SPLIT && t->run_id)
		ggmlviz__ties_run_end(&p->gpu, t);
	if (t->kind == GGMLVIZ_TIMING_OP && t->method == GGMLVIZ_OP_METHOD_GPU) {
		if (ggmlviz__ties_node(&p->gpu, t, &p->counts))
			return 0; /* held until its kernels are in */
		t->gpu_ns = t->duration_ns; /* no kernels: the backend's own timestamps (Vulkan) */
	}
	return 1;
}

/*
 * The open op of the same tensor on the same thread, which OP_INFO,
 * OP_BYTES and OP_NODE describe: its timing, marked as having that
 * description of its own (what a DESC_SET REPEAT then leaves it).
 */
static struct ggmlviz_timing *open_op(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
				      uint64_t tensor, unsigned has)
{
	struct ggmlviz__identity id = ggmlviz__identity_of(GGMLVIZ_TIMING_OP, ev, tensor);
	uint32_t i = ggmlviz__open_find(p, &id);

	if (i == NIL)
		return NULL;
	p->items[i].has |= (uint8_t)has;
	return &p->items[i].t;
}

static void on_op_node(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev)
{
	struct ggmlviz_timing *t = open_op(p, ev, ev->data.op_node.tensor_ptr, GGMLVIZ__DESC_NODE);

	if (!t)
		return;
	t->layer = ev->data.op_node.layer < 0 ? -1 : ev->data.op_node.layer;
	t->method = ev->data.op_node.method;
	t->node_flags = ev->data.op_node.flags;
	t->src[0] = ev->data.op_node.src[0];
	t->src[1] = ev->data.op_node.src[1];
}

static void on_op_bytes(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev)
{
	struct ggmlviz_timing *t = open_op(p, ev, ev->data.op_bytes.tensor_ptr, GGMLVIZ__DESC_BYTES);

	if (!t)
		return;
	t->bytes_read = ev->data.op_bytes.bytes_read;
	t->bytes_written = ev->data.op_bytes.bytes_written;
}

/* A sequence of the open step of the same context on the same thread. */
static void on_step_seq(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev)
{
	struct ggmlviz__identity id =
		ggmlviz__identity_of(GGMLVIZ_TIMING_STEP, ev, ev->data.step_seq.ctx);
	uint32_t i = ggmlviz__open_find(p, &id);
	struct ggmlviz_timing *t = i == NIL ? NULL : &p->items[i].t;

	if (!t)
		return;
	if (!t->n_seqs++)
		t->seq_id = ev->data.step_seq.seq_id;
	if (ev->data.step_seq.context_tokens > t->context_tokens)
		t->context_tokens = ev->data.step_seq.context_tokens;
	t->context_cells = ev->data.step_seq.context_cells;
}

static void on_op_info(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev)
{
	struct ggmlviz_timing *t = open_op(p, ev, ev->data.op_info.tensor_ptr, GGMLVIZ__DESC_INFO);

	if (!t)
		return;
	memcpy(t->ne, ev->data.op_info.ne, sizeof t->ne);
	t->flops = ev->data.op_info.flops;
	t->type_name = ev->label;
	t->type_name_len = ev->label ? ev->label_len : 0;
}

static int on_pair_event(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev, int kind,
			 uint64_t ptr, bool begin, struct ggmlviz_timing *t)
{
	struct ggmlviz__identity id = ggmlviz__identity_of(kind, ev, ptr);

	return begin ? on_begin(p, ev, &id) : on_end(p, ev, &id, t);
}

/* A window's summary (GGML_VIZ_OP_WINDOW): its steps' span, their count and phase; no step around it. */
static void window_of(const struct ggmlviz_event *ev, struct ggmlviz_timing *t)
{
	const uint8_t *body = (const uint8_t *)ev->label;
	uint64_t first = get_u64(body + WINDOW_FIRST);

	t->begin_ns = first < t->end_ns ? first : t->end_ns;
	t->n_threads = get_u32(body + WINDOW_STEPS);
	t->phase = get_u32(body + WINDOW_PHASE);
}

/* An OP_SUMMARY as a timing of its own (GGMLVIZ_TIMING_OP_SUMMARY); 1. */
static int on_op_summary(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
			 struct ggmlviz_timing *t)
{
	memset(t, 0, sizeof *t);
	t->kind = GGMLVIZ_TIMING_OP_SUMMARY;
	t->op_type = ev->data.op_summary.op_type;
	t->thread_id = ev->thread_id;
	t->begin_ns = t->end_ns = ev->timestamp_ns;
	t->duration_ns = ev->data.op_summary.total_ns;
	t->backend_ptr = ev->data.op_summary.backend_ptr;
	t->n_nodes = ev->data.op_summary.count;
	t->value = ev->data.op_summary.max_ns;
	t->begin_offset = t->end_offset = ev->offset;
	t->layer = -1;
	t->method = GGMLVIZ_OP_METHOD_TICK; /* the tracer sums the ops the CPU backend ticked */
	t->n_threads = 1; /* the steps it sums */
	if (ev->label && ev->label_len == GGMLVIZ_OP_WINDOW_BODY)
		window_of(ev, t);
	else
		ggmlviz__open_step_around(p, ev->thread_id, t);
	p->counts.paired++;
	return 1;
}

/* An OP_SHARE record: a timing of its own, on the worker's thread. */
static int on_op_share(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
		       struct ggmlviz_timing *t)
{
	memset(t, 0, sizeof *t);
	t->kind = GGMLVIZ_TIMING_SHARE;
	t->ptr = ev->data.op_share.tensor_ptr;
	t->op_type = ev->data.op_share.op_type;
	t->thread_id = ev->thread_id;
	t->begin_ns = ev->timestamp_ns;
	t->duration_ns = ev->data.op_share.compute_ns;
	t->end_ns = t->begin_ns + t->duration_ns;
	t->value = ev->data.op_share.wait_ns;
	t->n_nodes = ev->data.op_share.node;
	t->n_threads = ev->data.op_share.n_threads;
	t->ticks = ev->data.op_share.thread_index;
	t->begin_offset = t->end_offset = ev->offset;
	t->layer = -1;
	t->method = GGMLVIZ_OP_METHOD_MEASURED;
	ggmlviz__open_step_around(p, ev->thread_id, t);
	p->counts.paired++;
	return 1;
}

/* The event's own pair, if it completed one; 1, 0, or -ENOMEM. */
static int add_event(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
		     struct ggmlviz_timing *t)
{
	bool begin = ev->type % 2 == 0; /* every begin type is even, its end the next */

	switch (ev->type) {
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_GRAPH_COMPUTE_END:
		return on_pair_event(p, ev, GGMLVIZ_TIMING_GRAPH, ev->data.graph.graph_ptr, begin,
				     t);
	case GGMLVIZ_EVENT_OP_COMPUTE_BEGIN:
	case GGMLVIZ_EVENT_OP_COMPUTE_END:
		return on_pair_event(p, ev, GGMLVIZ_TIMING_OP, ev->data.op.tensor_ptr, begin, t);
	case GGMLVIZ_EVENT_SCOPE_BEGIN:
	case GGMLVIZ_EVENT_SCOPE_END:
		return on_pair_event(p, ev, GGMLVIZ_TIMING_SCOPE, 0, begin, t);
	case GGMLVIZ_EVENT_STEP_BEGIN:
	case GGMLVIZ_EVENT_STEP_END:
		return on_pair_event(p, ev, GGMLVIZ_TIMING_STEP, ev->data.step.ctx, begin, t);
	case GGMLVIZ_EVENT_SPLIT_END:
		ggmlviz__descs_run_end(&p->descs, ev->thread_id); /* and pairs, as its begin */
		return on_pair_event(p, ev, GGMLVIZ_TIMING_SPLIT, ev->data.split.first_node, begin,
				     t);
	case GGMLVIZ_EVENT_SPLIT_BEGIN:
		return on_pair_event(p, ev, GGMLVIZ_TIMING_SPLIT, ev->data.split.first_node, begin,
				     t);
	case GGMLVIZ_EVENT_OP_INFO:
		on_op_info(p, ev);
		return 0;
	case GGMLVIZ_EVENT_OP_NODE:
		on_op_node(p, ev);
		return 0;
	case GGMLVIZ_EVENT_STEP_SEQ:
		on_step_seq(p, ev);
		return 0;
	case GGMLVIZ_EVENT_OP_BYTES:
		on_op_bytes(p, ev);
		return 0;
	case GGMLVIZ_EVENT_META:
		ggmlviz__ties_op_name(&p->gpu, ev);
		if (ev->data.meta.kind == GGMLVIZ_META_GPU_WINDOW && ev->data.meta.value <= UINT8_MAX)
			ggmlviz__open_gpu_window(p, ev->thread_id, (uint8_t)ev->data.meta.value);
		return 0;
	case GGMLVIZ_EVENT_THREAD_FREE:
		ggmlviz__descs_thread_end(&p->descs, ev->thread_id);
		return 0;
	case GGMLVIZ_EVENT_KERNEL:
		ggmlviz__ties_kernel(&p->gpu, ev, &p->counts);
		return 0;
	case GGMLVIZ_EVENT_OP_SUMMARY:
		return on_op_summary(p, ev, t);
	case GGMLVIZ_EVENT_OP_SHARE:
		return on_op_share(p, ev, t);
	case GGMLVIZ_EVENT_DESC_SET:
		return ggmlviz__descs_set(&p->descs, ev);
	case GGMLVIZ_EVENT_OP_TIMES:
	case GGMLVIZ_EVENT_SHARE_TIMES:
		return ggmlviz__unpack_add(p, ev, t);
	case GGMLVIZ_EVENT_REQUEST_BEGIN:
	case GGMLVIZ_EVENT_REQUEST_STAGE:
	case GGMLVIZ_EVENT_REQUEST_END:
		return ggmlviz__requests_add(&p->requests, ev, &p->counts, t);
	default:
		return 0;
	}
}

int ggmlviz_pairing_add(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
			struct ggmlviz_timing *t)
{
	int rc = add_event(p, ev, t);

	if (rc == 0)
		rc = ggmlviz__ties_take(&p->gpu, t); /* a GPU run it completed */
	return rc;
}

int ggmlviz_pairing_take(struct ggmlviz_pairing *p, struct ggmlviz_timing *t)
{
	return ggmlviz__unpack_take(p, t) || ggmlviz__ties_take(&p->gpu, t);
}

/* ---- the engine ---- */

int ggmlviz_pairing_new(struct ggmlviz_pairing **out)
{
	struct ggmlviz_pairing *p;

	if (!out)
		return -EINVAL;
	*out = p = calloc(1, sizeof *p);
	if (!p)
		return -ENOMEM;
	p->free_head = NIL;
	p->last_thread = NIL;
	p->free_thread = NIL;
	p->graphs = NIL;
	p->steps = NIL;
	ggmlviz__descs_init(&p->descs);
	return 0;
}

void ggmlviz__pairing_reset(struct ggmlviz_pairing *p)
{
	ggmlviz__open_clear(p);
	ggmlviz__ties_clear(&p->gpu);
	memset(&p->counts, 0, sizeof p->counts);
	ggmlviz__descs_free(&p->descs); /* and its count of ops left undescribed */
	ggmlviz__unpack_clear(&p->unpack);
	p->graph_seq = 0;
	p->step_seq = 0;
	p->gpu_window = GGMLVIZ_GPU_WINDOW_NONE;
}

void ggmlviz_pairing_finish(struct ggmlviz_pairing *p)
{
	p->counts.unclosed_begins += p->counts.open + ggmlviz__requests_open(&p->requests);
	p->counts.open = 0;
	ggmlviz__open_clear(p);
	ggmlviz__requests_clear(&p->requests);
	ggmlviz__ties_finish(&p->gpu, &p->counts);
}

void ggmlviz_pairing_counts(const struct ggmlviz_pairing *p, struct ggmlviz_pairing_counts *out)
{
	*out = p->counts;
	out->open += ggmlviz__requests_open(&p->requests);
}

uint64_t ggmlviz_pairing_undescribed(const struct ggmlviz_pairing *p)
{
	return ggmlviz__descs_undescribed(&p->descs);
}

void ggmlviz_pairing_free(struct ggmlviz_pairing *p)
{
	if (!p)
		return;
	ggmlviz__map_release(&p->open);
	ggmlviz__map_release(&p->thread_index);
	ggmlviz__ties_free(&p->gpu);
	ggmlviz__requests_free(&p->requests);
	ggmlviz__descs_free(&p->descs);
	ggmlviz__unpack_free(&p->unpack);
	free(p->items);
	free(p->threads);
	free(p);
}
