/*
 * NVTX ranges for Nsight users (see nvtx.h), through NVTX3's header-only
 * C API: its loader, inlined here, looks for a tool once a process, at the
 * first session that asks for ranges, and calls into nothing otherwise.
 *
 * What a range is called: a step "decode 1 token (generation)", its tokens
 * as its payload; a graph "graph (120 nodes)"; a run its backend's name
 * ("CPU", "CUDA0", from META BACKEND_NAME); an op "MUL_MAT Qcur-3", its
 * layer as its payload, inside a range "layer 3" that holds the layer's
 * consecutive ops. Names that recur are registered with the tool once
 * (backends, layers, the ops of a run kept for its graph id), so that
 * the tool need not copy them at each range.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>

#include "tracer/base/base.h"
#include "tracer/producer/nvtx.h"
#include "tracer/producer/producer.h"

#if HAVE_NVTX
#include <nvtx3/nvToolsExt.h>

#define DOMAIN "libggmlviz"
#define DEPTH 32u         /* ranges a thread keeps track of; deeper ones are counted */
#define NAMES 256u        /* op types and backends named, each: a power of two */
#define NAME_TEXT 40u
#define LAYERS 1024u      /* layers whose "layer N" is registered */
#define REGISTER_MAX 65536u /* op names registered for kept runs, in all (the tool keeps each) */
#define TEXT 160u

/* ARGB: NVIDIA green, blues, a grey, an orange. */
static const uint32_t colors[] = { 0, 0xFF76B900u, 0xFF4A90D9u, 0xFF2E6FB7u, 0xFF9B9B9Bu,
				   0xFFE8A33Du };
static const char *const category_names[] = { NULL, "step", "graph", "run", "layer", "op" };

/* Set once, at the first session that asks (the session's lock held), then only read. */
static _Atomic(nvtxDomainHandle_t) domain;
static int tried;

/* ---- names: op types' (for the text of ops) and backends' (registered, for runs) ---- */

struct name {
	_Atomic uint64_t key; /* key + 1; 0: free */
	_Atomic int ready;    /* text and handle written */
	nvtxStringHandle_t handle;
	char text[NAME_TEXT];
};

enum { OP_NAMES, BACKEND_NAMES };
static struct name names[2][NAMES];
static _Atomic(nvtxStringHandle_t) layer_names[LAYERS];
static _Atomic uint32_t registered;

static uint32_t slot_of(uint64_t key)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> 56) & (NAMES - 1);
}

/* The named slot of key in set, or NULL (not named, or being named). */
static const struct name *name_find(const struct name *set, uint64_t key)
{
	uint32_t at = slot_of(key);

	for (uint32_t i = 0; i < NAMES; i++, at = (at + 1) & (NAMES - 1)) {
		uint64_t seen = atomic_load_explicit(&set[at].key, memory_order_acquire);

		if (seen == 0)
			return NULL;
		if (seen == key + 1)
			return atomic_load_explicit(&set[at].ready, memory_order_acquire) ? &set[at]
											  : NULL;
	}
	return NULL;
}

/* Names key in set the first time (a key keeps its first name); NULL when full. */
static struct name *name_claim(struct name *set, uint64_t key)
{
	uint32_t at = slot_of(key);

	for (uint32_t i = 0; i < NAMES; i++, at = (at + 1) & (NAMES - 1)) {
		uint64_t seen = atomic_load_explicit(&set[at].key, memory_order_acquire);

		if (seen == 0 && atomic_compare_exchange_strong(&set[at].key, &seen, key + 1))
			return &set[at];
		if (seen == key + 1)
			return NULL; /* named already */
	}
	return NULL;
}

static nvtxDomainHandle_t domain_now(void)
{
	return atomic_load_explicit(&domain, memory_order_acquire);
}

void ggmlviz__nvtx_named(uint32_t kind, uint64_t key, const char *label)
{
	nvtxDomainHandle_t d = domain_now();
	struct name *n;

	if (!d || !label || (kind != GGMLVIZ_META_OP_NAME && kind != GGMLVIZ_META_BACKEND_NAME) ||
	    key + 1 == 0)
		return;
	n = name_claim(names[kind == GGMLVIZ_META_OP_NAME ? OP_NAMES : BACKEND_NAMES], key);
	if (!n)
		return;
	snprintf(n->text, sizeof n->text, "%s", label);
	n->handle = kind == GGMLVIZ_META_BACKEND_NAME ? nvtxDomainRegisterStringA(d, n->text) : NULL;
	atomic_store_explicit(&n->ready, 1, memory_order_release);
}

/* "layer N", registered the first time (two threads at once: one handle is kept). */
static nvtxStringHandle_t layer_name(nvtxDomainHandle_t d, int32_t layer)
{
	nvtxStringHandle_t h;
	char text[24];

	if (layer < 0 || (uint32_t)layer >= LAYERS)
		return NULL;
	h = atomic_load_explicit(&layer_names[layer], memory_order_acquire);
	if (h)
		return h;
	snprintf(text, sizeof text, "layer %d", (int)layer);
	h = nvtxDomainRegisterStringA(d, text);
	atomic_store_explicit(&layer_names[layer], h, memory_order_release);
	return h;
}

/* ---- a thread's ranges ---- */

struct frame {
	int32_t layer; /* a LAYER's */
	uint8_t kind;
};

struct stack {
	uint32_t depth; /* frames kept */
	uint32_t over;  /* ranges pushed past DEPTH: ended first, as the innermost */
	struct frame f[DEPTH];
};

static _Thread_local struct stack stack;

static nvtxEventAttributes_t attributes(enum ggmlviz__nvtx_kind kind)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof a);
	a.version = NVTX_VERSION;
	a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
	a.category = (uint32_t)kind;
	a.colorType = NVTX_COLOR_ARGB;
	a.color = colors[kind];
	return a;
}

static void text_message(nvtxEventAttributes_t *a, const char *text)
{
	a->messageType = NVTX_MESSAGE_TYPE_ASCII;
	a->message.ascii = text;
}

static void registered_message(nvtxEventAttributes_t *a, nvtxStringHandle_t h)
{
	a->messageType = NVTX_MESSAGE_TYPE_REGISTERED;
	a->message.registered = h;
}

static void push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a, int32_t layer)
{
	struct stack *st = &stack;

	if (st->depth == DEPTH) {
		st->over++;
		return;
	}
	nvtxDomainRangePushEx(d, a);
	st->f[st->depth++] = (struct frame){ layer, (uint8_t)a->category };
}

static void pop(nvtxDomainHandle_t d)
{
	nvtxDomainRangePop(d);
	stack.depth--;
}

void ggmlviz__nvtx_end(enum ggmlviz__nvtx_kind kind)
{
	nvtxDomainHandle_t d = domain_now();
	struct stack *st = &stack;
	uint32_t i = st->depth;

	if (st->over) {
		st->over--; /* past DEPTH: taken to be the innermost, whatever its kind */
		return;
	}
	while (i > 0 && st->f[i - 1].kind != kind)
		i--;
	while (d && i > 0 && st->depth >= i)
		pop(d);
}

void ggmlviz__nvtx_forget(void)
{
	stack.depth = stack.over = 0;
}

/*
 * An op of this layer is about to begin: inside a range that is not an op,
 * the layer's range is begun unless it is the one open, the one open
 * ended; an op of no layer ends it.
 */
static void enter_layer(nvtxDomainHandle_t d, int32_t layer)
{
	struct stack *st = &stack;
	const struct frame *top = st->depth && !st->over ? &st->f[st->depth - 1] : NULL;
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_LAYER);
	nvtxStringHandle_t h;
	char text[24];

	if (!top || top->kind == GGMLVIZ__NVTX_OP)
		return; /* no range to hold layers, or an op inside an op */
	if (top->kind == GGMLVIZ__NVTX_LAYER) {
		if (top->layer == layer)
			return;
		pop(d);
	}
	if (layer < 0)
		return;
	a.payloadType = NVTX_PAYLOAD_TYPE_INT32;
	a.payload.iValue = layer;
	if ((h = layer_name(d, layer))) {
		registered_message(&a, h);
	} else {
		snprintf(text, sizeof text, "layer %d", (int)layer);
		text_message(&a, text);
	}
	push(d, &a, layer);
}

/* ---- texts, built without printf: an op's is built for each op ---- */

struct text {
	char *buf;
	size_t len, size;
};

static void add(struct text *t, const char *s)
{
	size_t n = strnlen(s, t->size - 1 - t->len);

	memcpy(t->buf + t->len, s, n);
	t->len += n;
	t->buf[t->len] = '\0';
}

static void add_u32(struct text *t, uint32_t v)
{
	char digits[12];
	size_t n = 0;

	do
		digits[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < sizeof digits);
	while (n > 0 && t->len + 1 < t->size)
		t->buf[t->len++] = digits[--n];
	t->buf[t->len] = '\0';
}

/* "MUL_MAT Qcur-3"; a fused pair "RMS_NORM+MUL norm-0 + attn_norm-0". */
static void node_text(struct text *t, const struct ggmlviz_node_desc *d)
{
	if (d->op_name) {
		add(t, d->op_name);
	} else {
		add(t, "op ");
		add_u32(t, d->op_type);
	}
	if (d->flags & GGMLVIZ_NODE_FUSED) {
		add(t, "+");
		add(t, d->op_name2 ? d->op_name2 : "?");
	}
	if (d->name) {
		add(t, " ");
		add(t, d->name);
	}
	if ((d->flags & GGMLVIZ_NODE_FUSED) && d->name2) {
		add(t, " + ");
		add(t, d->name2);
	}
}

/* ---- the ranges ---- */

static const char *phase_name(uint32_t phase)
{
	return phase == GGMLVIZ_PHASE_PROMPT ? "prompt"
	       : phase == GGMLVIZ_PHASE_GENERATION ? "generation" : NULL;
}

void ggmlviz__nvtx_step(const struct ggmlviz__step *s, const char *label)
{
	nvtxDomainHandle_t d = domain_now();
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_STEP);
	const char *phase = phase_name(s->phase);
	char buf[TEXT];
	struct text t = { buf, 0, sizeof buf };

	if (!d)
		return;
	add(&t, label && *label ? label : "step");
	add(&t, " ");
	add_u32(&t, s->n_tokens);
	add(&t, s->n_tokens == 1 ? " token" : " tokens");
	if (phase) {
		add(&t, " (");
		add(&t, phase);
		add(&t, ")");
	}
	text_message(&a, buf);
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = s->n_tokens;
	push(d, &a, -1);
}

void ggmlviz__nvtx_graph(uint32_t n_nodes)
{
	nvtxDomainHandle_t d = domain_now();
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_GRAPH);
	char buf[48];
	struct text t = { buf, 0, sizeof buf };

	if (!d)
		return;
	add(&t, "graph (");
	add_u32(&t, n_nodes);
	add(&t, n_nodes == 1 ? " node)" : " nodes)");
	text_message(&a, buf);
	a.payloadType = NVTX_PAYLOAD_TYPE_UNSIGNED_INT64;
	a.payload.ullValue = n_nodes;
	push(d, &a, -1);
}

void ggmlviz__nvtx_run(uint64_t backend)
{
	nvtxDomainHandle_t d = domain_now();
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_RUN);
	const struct name *n = name_find(names[BACKEND_NAMES], backend);

	if (!d)
		return;
	if (n && n->handle)
		registered_message(&a, n->handle);
	else
		text_message(&a, n ? n->text : "run");
	push(d, &a, -1);
}

/* Pushes an op's range: its layer's range first, its payload the layer. */
static void push_op(nvtxDomainHandle_t d, nvtxEventAttributes_t *a, int32_t layer)
{
	enter_layer(d, layer);
	if (layer >= 0) {
		a->payloadType = NVTX_PAYLOAD_TYPE_INT32;
		a->payload.iValue = layer;
	}
	push(d, a, layer);
}

void ggmlviz__nvtx_node(const struct ggmlviz_node_desc *desc, void **name)
{
	nvtxDomainHandle_t d = domain_now();
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_OP);
	char buf[TEXT];
	struct text t = { buf, 0, sizeof buf };

	if (!d)
		return;
	if (name && *name) {
		registered_message(&a, (nvtxStringHandle_t)*name);
		push_op(d, &a, desc->layer);
		return;
	}
	node_text(&t, desc);
	if (name && atomic_load_explicit(&registered, memory_order_relaxed) < REGISTER_MAX &&
	    atomic_fetch_add_explicit(&registered, 1, memory_order_relaxed) < REGISTER_MAX &&
	    (*name = nvtxDomainRegisterStringA(d, buf)))
		registered_message(&a, (nvtxStringHandle_t)*name);
	else
		text_message(&a, buf);
	push_op(d, &a, desc->layer);
}

void ggmlviz__nvtx_op(uint32_t op_type, const char *label)
{
	nvtxDomainHandle_t d = domain_now();
	nvtxEventAttributes_t a = attributes(GGMLVIZ__NVTX_OP);
	const struct name *n = name_find(names[OP_NAMES], op_type);
	char buf[TEXT];
	struct text t = { buf, 0, sizeof buf };
	int32_t layer = -1;

	if (!d)
		return;
	if (n) {
		add(&t, n->text);
	} else {
		add(&t, "op ");
		add_u32(&t, op_type);
	}
	if (label) {
		add(&t, " ");
		add(&t, label);
		layer = ggmlviz_layer_of_name(label, strnlen(label, GGMLVIZ_LABEL_MAX));
	}
	text_message(&a, buf);
	push_op(d, &a, layer);
}

/* ---- the session ---- */

/* NVTX's loader looks for a tool now: the domain, and its categories named, if one is there. */
static void attach(void)
{
	nvtxDomainHandle_t d;

	tried = 1;
	d = nvtxDomainCreateA(DOMAIN);
	if (!d)
		return;
	for (uint32_t k = GGMLVIZ__NVTX_STEP; k <= GGMLVIZ__NVTX_OP; k++)
		nvtxDomainNameCategoryA(d, k, category_names[k]);
	atomic_store_explicit(&domain, d, memory_order_release);
}

unsigned ggmlviz__nvtx_open(uint32_t level, const struct ggmlviz__log_sink *sink)
{
	const char *path = getenv("NVTX_INJECTION64_PATH");

	if (!level)
		return 0;
	if (!tried)
		attach();
	if (!domain_now() && path) {
		ggmlviz__log(sink, GGMLVIZ_LOG_WARN, "nvtx=%u (GGML_VIZ_NVTX): NVTX_INJECTION64_PATH="
			     "\"%.200s\" attached no tool (it did not load, or did not initialize) "
			     "when NVTX first looked: no NVTX ranges; tracing goes on", level, path);
		return 0;
	}
	if (!domain_now()) {
		ggmlviz__log(sink, GGMLVIZ_LOG_INFO, "nvtx=%u (GGML_VIZ_NVTX): no NVTX tool is attached "
			     "(such as Nsight Systems, which sets NVTX_INJECTION64_PATH): no ranges",
			     level);
		return 0;
	}
	atomic_store_explicit(&ggmlviz__state.nvtx_used, 1, memory_order_release);
	ggmlviz__log(sink, GGMLVIZ_LOG_INFO, "NVTX ranges in domain \"" DOMAIN "\": steps, graphs "
		     "and runs%s", level >= 2 ? ", layers and ops" : "");
	return GGMLVIZ__NVTX | (level >= 2 ? GGMLVIZ__NVTX_OPS : 0u);
}

#else /* !HAVE_NVTX: no NVTX3 headers at build time; no mask bit is ever set */

unsigned ggmlviz__nvtx_open(uint32_t level, const struct ggmlviz__log_sink *sink)
{
	if (level)
		ggmlviz__log(sink, GGMLVIZ_LOG_WARN, "nvtx=%u (GGML_VIZ_NVTX): this libggmlviz was "
			     "built without NVTX's headers (configure --with-nvtx=DIR): no NVTX ranges; "
			     "tracing goes on", level);
	return 0;
}

void ggmlviz__nvtx_step(const struct ggmlviz__step *s, const char *label)
{
	(void)s, (void)label;
}

void ggmlviz__nvtx_graph(uint32_t n_nodes)
{
	(void)n_nodes;
}

void ggmlviz__nvtx_run(uint64_t backend)
{
	(void)backend;
}

void ggmlviz__nvtx_node(const struct ggmlviz_node_desc *d, void **name)
{
	(void)d, (void)name;
}

void ggmlviz__nvtx_op(uint32_t op_type, const char *label)
{
	(void)op_type, (void)label;
}

void ggmlviz__nvtx_end(enum ggmlviz__nvtx_kind kind)
{
	(void)kind;
}

void ggmlviz__nvtx_named(uint32_t kind, uint64_t key, const char *label)
{
	(void)kind, (void)key, (void)label;
}

void ggmlviz__nvtx_forget(void)
{
}

#endif
