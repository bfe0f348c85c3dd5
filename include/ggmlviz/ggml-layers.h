/*
 * libggmlviz: the GGML adapter's layers, part of its implementation
 * (<ggmlviz/ggml-impl.h> includes it); never include it yourself.
 *
 * The layer of each node of a run, in one pass over the run. llama.cpp
 * names its nodes ("Qcur-3"), and a node names its own layer. whisper.cpp
 * names none, only its weights ("encoder.blocks.3.attn.query.weight",
 * named for a trace by contrib/whisper.cpp): there a node GGML named
 * itself ("node_12") is in the layer of the nearest node that says one,
 * by its own name or by a weight it reads, going both ways along the
 * graph: to what it reads, and to what reads it. A norm that begins a
 * layer reads the last layer's output but feeds the MUL by its own
 * layer's weight (one step away, where the last layer's weights are two);
 * a flash attention is one step from its output projection's weight; the
 * final norm feeds the output norm's weight, in no layer. Only a weight
 * says "no layer" to the nodes around it: an input every layer reads
 * ("KQ_mask") says it of itself. At the same distance a layer is
 * preferred to none, and the higher layer to the lower (as
 * ggmlviz_ggml_layer() takes the highest of the sources). A
 * weight's first word says its stack: "encoder." or "enc." the encoder's
 * (GGMLVIZ_NODE_ENCODER), "decoder." or "dec." the decoder's.
 *
 * The table is the calling thread's, grown to the largest run it saw, and
 * freed when the thread exits.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_LAYERS_H
#define GGMLVIZ_GGML_LAYERS_H

#ifndef GGMLVIZ_GGML_IMPL_H
#error "include <ggmlviz/ggml.h> with GGMLVIZ_GGML_IMPLEMENTATION defined, not this file"
#endif

#include <pthread.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
#define GGMLVIZ_GGML__UNSAID 0xffu /* a level: no layer said yet */
#define GGMLVIZ_GGML__REACH 4u      /* the farthest a node looks for a layer */

/* What a node says of its layer: >= 0 its layer, -1 none; stack its stack's flag; by the
 * tensor whose name said it (the node, or the weight it reads nearest). */
struct ggmlviz_ggml__said {
	int32_t layer;
	uint32_t stack;
	const struct ggml_tensor *by;
};

struct ggmlviz_ggml__layers {
	const void *const *nodes; /* the run the table holds; NULL: none */
	size_t n, cap, slots;
	struct ggmlviz_ggml__said *said;
	uint8_t *level;           /* how far from the node its layer was said */
	const void **slot_node;   /* the run's nodes, hashed by address */
	uint32_t *slot_index;
	const void **room;        /* a graph's nodes copied by an adapter (ggmlviz_ggml__lay_room()) */
	size_t room_cap;
};

static __thread struct ggmlviz_ggml__layers *ggmlviz_ggml__lay;
static pthread_key_t ggmlviz_ggml__lay_key;
static pthread_once_t ggmlviz_ggml__lay_once = PTHREAD_ONCE_INIT;

static void ggmlviz_ggml__lay_free(void *p)
{
	struct ggmlviz_ggml__layers *l = (struct ggmlviz_ggml__layers *)p;

	if (!l)
		return;
	ggmlviz__pages_free(l->said);
	ggmlviz__pages_free(l->level);
	ggmlviz__pages_free((void *)l->slot_node);
	ggmlviz__pages_free(l->slot_index);
	ggmlviz__pages_free(l->room);
	ggmlviz__pages_free(l);
}

static void ggmlviz_ggml__lay_key_make(void)
{
	(void)pthread_key_create(&ggmlviz_ggml__lay_key, ggmlviz_ggml__lay_free);
}

/* The calling thread's table, holding n nodes; NULL when memory is short. */
static struct ggmlviz_ggml__layers *ggmlviz_ggml__lay_for(size_t n)
{
	struct ggmlviz_ggml__layers *l = ggmlviz_ggml__lay;
	size_t slots = 64;

	if (!l) {
		(void)pthread_once(&ggmlviz_ggml__lay_once, ggmlviz_ggml__lay_key_make);
		l = (struct ggmlviz_ggml__layers *)ggmlviz__pages_array(1, sizeof *l);
		if (!l || pthread_setspecific(ggmlviz_ggml__lay_key, l) != 0) {
			ggmlviz__pages_free(l);
			return NULL;
		}
		ggmlviz_ggml__lay = l;
	}
	if (n <= l->cap)
		return l;
	while (slots < 2 * n)
		slots *= 2;
	ggmlviz__pages_free(l->said);
	ggmlviz__pages_free(l->level);
	ggmlviz__pages_free((void *)l->slot_node);
	ggmlviz__pages_free(l->slot_index);
	l->said = (struct ggmlviz_ggml__said *)ggmlviz__pages_array(n, sizeof *l->said);
	l->level = (uint8_t *)ggmlviz__pages_array(n, 1);
	l->slot_node = (const void **)ggmlviz__pages_array(slots, sizeof *l->slot_node);
	l->slot_index = (uint32_t *)ggmlviz__pages_array(slots, sizeof *l->slot_index);
	l->cap = l->said && l->level && l->slot_node && l->slot_index ? n : 0;
	l->slots = l->cap ? slots : 0;
	l->nodes = NULL;
	return l->cap ? l : NULL;
}

/* The stack whose first word begins name: its flag, or 0. */
static uint32_t ggmlviz_ggml__stack_of(const char *name)
{
	if (!strncmp(name, "encoder.", 8) || !strncmp(name, "enc.", 4))
		return GGMLVIZ_NODE_ENCODER;
	if (!strncmp(name, "decoder.", 8) || !strncmp(name, "dec.", 4))
		return GGMLVIZ_NODE_DECODER;
	return 0;
}

/* What t's own name says (named by GGML: nothing, false). */
static bool ggmlviz_ggml__says(const struct ggml_tensor *t, struct ggmlviz_ggml__said *s)
{
	if (ggmlviz_ggml__unnamed(t))
		return false;
	s->layer = ggmlviz_layer_of_name(t->name, strlen(t->name));
	s->stack = s->layer >= 0 ? ggmlviz_ggml__stack_of(t->name) : 0;
	s->by = t;
	return true;
}

/* The better of two layers said at one distance: a layer over none, the higher over the lower. */
static void ggmlviz_ggml__prefer(struct ggmlviz_ggml__said *to, const struct ggmlviz_ggml__said *s)
{
	if (s->layer > to->layer)
		*to = *s;
}

static size_t ggmlviz_ggml__lay_slot(const struct ggmlviz_ggml__layers *l, const void *p)
{
	return (size_t)(((uint64_t)(uintptr_t)p * 0x9e3779b97f4a7c15ull) >> 20) & (l->slots - 1);
}

/* The index of node p in the run, or -1 (a weight, an input, another run's node). */
static int64_t ggmlviz_ggml__lay_index(const struct ggmlviz_ggml__layers *l, const void *p)
{
	for (size_t s = ggmlviz_ggml__lay_slot(l, p); l->slot_node[s]; s = (s + 1) & (l->slots - 1))
		if (l->slot_node[s] == p)
			return l->slot_index[s];
	return -1;
}

/*
 * Whether "no layer" said by t places its neighbours in none: a weight's
 * does ("decoder.ln.weight": the output norm is in no layer). An input's,
 * or a node's, does not ("KQ_mask", which every layer's attention reads,
 * "result_norm"): they say it of themselves only.
 */
static bool ggmlviz_ggml__none_spreads(const struct ggml_tensor *t)
{
	return t && t->op == GGML_OP_NONE && !(t->flags & GGML_TENSOR_FLAG_INPUT);
}

/* Layer s said at level for node i: kept if nothing was said nearer. */
static void ggmlviz_ggml__lay_offer(struct ggmlviz_ggml__layers *l, int64_t i, uint8_t level,
				    const struct ggmlviz_ggml__said *s)
{
	if (s->layer < 0 && !ggmlviz_ggml__none_spreads(s->by))
		return;
	if (l->level[i] == GGMLVIZ_GGML__UNSAID) {
		l->level[i] = level;
		l->said[i] = *s;
	} else if (l->level[i] == level) {
		ggmlviz_ggml__prefer(&l->said[i], s);
	}
}

/* Level 0, what each node's name says; level 1, the weights an unnamed node reads. */
static void ggmlviz_ggml__lay_seed(struct ggmlviz_ggml__layers *l)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ggml_tensor *t = (const struct ggml_tensor *)l->nodes[i];
		struct ggmlviz_ggml__said s;

		l->level[i] = GGMLVIZ_GGML__UNSAID;
		if (ggmlviz_ggml__says(t, &s)) {
			l->level[i] = 0, l->said[i] = s;
			continue;
		}
		for (int j = 0; j < GGML_MAX_SRC && t->src[j]; j++) {
			const struct ggml_tensor *src = ggmlviz_ggml__seen_through(t->src[j]);
			if (src && ggmlviz_ggml__lay_index(l, src) < 0 && ggmlviz_ggml__says(src, &s))
				ggmlviz_ggml__lay_offer(l, (int64_t)i, 1, &s);
		}
	}
}

/* Level `level`: each node next to one said at the level before, both ways. */
static void ggmlviz_ggml__lay_spread(struct ggmlviz_ggml__layers *l, uint8_t level)
{
	for (size_t i = 0; i < l->n; i++) {
		const struct ggml_tensor *t = (const struct ggml_tensor *)l->nodes[i];

		for (int j = 0; j < GGML_MAX_SRC && t->src[j]; j++) {
			int64_t k = ggmlviz_ggml__lay_index(l, ggmlviz_ggml__seen_through(t->src[j]));
			struct ggmlviz_ggml__said s;

			if (k < 0 || k == (int64_t)i)
				continue;
			if (l->level[k] == level - 1) {
				s = l->said[k];
				ggmlviz_ggml__lay_offer(l, (int64_t)i, level, &s);
			}
			if (l->level[i] == level - 1) {
				s = l->said[i];
				ggmlviz_ggml__lay_offer(l, k, level, &s);
			}
		}
	}
}

/* The run's layers, in one pass; false when memory is short (each node is then asked alone). */
static bool ggmlviz_ggml__lay_run(const void *const *nodes, size_t n)
{
	struct ggmlviz_ggml__layers *l = ggmlviz_ggml__lay_for(n);

	if (!l)
		return false;
	l->nodes = nodes;
	l->n = n;
	memset((void *)l->slot_node, 0, l->slots * sizeof *l->slot_node);
	for (size_t i = 0; i < n; i++) {
		size_t s = ggmlviz_ggml__lay_slot(l, nodes[i]);
		while (l->slot_node[s])
			s = (s + 1) & (l->slots - 1);
		l->slot_node[s] = nodes[i];
		l->slot_index[s] = (uint32_t)i;
	}
	ggmlviz_ggml__lay_seed(l);
	for (uint8_t level = 1; level <= GGMLVIZ_GGML__REACH; level++)
		ggmlviz_ggml__lay_spread(l, level);
	return true;
}

/* The run's table is stale: a new run begins (it may reuse the last one's array). */
static void ggmlviz_ggml__lay_forget(void)
{
	if (ggmlviz_ggml__lay)
		ggmlviz_ggml__lay->nodes = NULL;
}

/*
 * The calling thread's room for n node pointers, in the table's memory (the
 * tracer's own pages, given back as the thread ends): for an adapter whose
 * graph gives its nodes one by one (whisper.cpp's) to copy them into before
 * ggmlviz_ggml__lay_run(); NULL where memory is short.
 */
static inline const void **ggmlviz_ggml__lay_room(size_t n)
{
	struct ggmlviz_ggml__layers *l = ggmlviz_ggml__lay_for(0);

	if (l && n > l->room_cap) {
		ggmlviz__pages_free(l->room);
		l->room = (const void **)ggmlviz__pages_array(n, sizeof *l->room);
		l->room_cap = l->room ? n : 0;
	}
	return l && n <= l->room_cap ? l->room : NULL;
}

/* Node i's layer and stack from the run's table, made at its first unnamed node since the
 * run's node 0; false when memory is short (it is then asked alone). */
static bool ggmlviz_ggml__lay_of(const void *const *nodes, size_t n, size_t i,
				 struct ggmlviz_ggml__said *out)
{
	const struct ggmlviz_ggml__layers *l = ggmlviz_ggml__lay;

	if ((!l || l->nodes != nodes || l->n != n) && !ggmlviz_ggml__lay_run(nodes, n))
		return false;
	l = ggmlviz_ggml__lay;
	if (l->level[i] == GGMLVIZ_GGML__UNSAID) {
		out->layer = -1, out->stack = 0, out->by = NULL;
		return true;
	}
	*out = l->said[i];
	return true;
}
/** @endcond */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_LAYERS_H */
