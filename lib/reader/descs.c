/*
 * Descriptions given once: sets of op descriptions by thread, kept from
 * a DEFINE run and given to the ops of a REPEAT run (see descs.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "descs.h"
#include "pairing-open.h" /* ggmlviz__pairing_label_hash */

#define TYPE_NAMES_MAX 4096u /* distinct element type names kept (GGML has about 40) */
#define TYPE_NAME_MAX 64u

/* One op's descriptions in a set, by its tensor. */
struct entry {
	int64_t ne[4];
	uint64_t flops, bytes_read, bytes_written, src[2];
	const char *type_name; /* an interned copy (type_names), or NULL */
	uint32_t type_name_len;
	int32_t layer;
	uint8_t node_flags, has;
};

struct set {
	uint64_t id;               /* 0: empty */
	uint64_t used;             /* the clock when last used */
	struct ggmlviz__map index; /* tensor -> index in e */
	struct entry *e;
	uint32_t n, cap;
};

struct ggmlviz__desc_thread {
	uint32_t tid;
	uint32_t left; /* op timings of its run still to come under its set */
	uint8_t mode, method;
	uint8_t cur;   /* its set: sets[cur] (an index: the threads move when they grow) */
	struct set sets[GGMLVIZ__DESC_SETS];
};

/* ---- threads and their sets ---- */

/* Room for one more thread; 0 or -ENOMEM. */
static int threads_grow(struct ggmlviz__descs *d)
{
	uint32_t cap = d->cap_threads ? 2 * d->cap_threads : 4u;
	struct ggmlviz__desc_thread *th;

	if (d->n_threads < d->cap_threads)
		return 0;
	if (!(th = realloc(d->threads, cap * sizeof *th)))
		return -ENOMEM;
	d->threads = th;
	d->cap_threads = cap;
	return 0;
}

/* The thread's state; NULL if it has none and create is 0, or out of room or memory. */
static struct ggmlviz__desc_thread *thread_of(struct ggmlviz__descs *d, uint32_t tid, int create)
{
	struct ggmlviz__desc_thread *th;
	uint64_t *slot, i;
	bool created;

	if (d->last < d->n_threads && d->threads[d->last].tid == tid)
		return &d->threads[d->last];
	if (ggmlviz__map_get(&d->thread_index, tid, &i))
		return &d->threads[d->last = (uint32_t)i];
	if (!create || d->n_threads == GGMLVIZ__DESC_THREADS || threads_grow(d) < 0 ||
	    !(slot = ggmlviz__map_insert(&d->thread_index, tid, &created)))
		return NULL;
	*slot = d->n_threads;
	th = &d->threads[d->last = d->n_threads++];
	memset(th, 0, sizeof *th);
	th->tid = tid;
	return th;
}

/* Empties a set, its ops no longer counted. */
static void set_empty(struct ggmlviz__descs *d, struct set *s)
{
	d->ops -= s->n;
	s->n = 0;
	ggmlviz__map_clear(&s->index);
}

/* The index of the thread's set of that id, or of the one it replaces (empty, else used least recently). */
static uint8_t set_of(struct ggmlviz__descs *d, struct ggmlviz__desc_thread *th, uint64_t id)
{
	uint8_t best = 0;

	for (uint8_t k = 0; k < GGMLVIZ__DESC_SETS; k++) {
		if (th->sets[k].id == id)
			return k;
		if (th->sets[k].used < th->sets[best].used)
			best = k;
	}
	set_empty(d, &th->sets[best]);
	th->sets[best].id = id;
	return best;
}

int ggmlviz__descs_set(struct ggmlviz__descs *d, const struct ggmlviz_event *ev)
{
	struct ggmlviz__desc_thread *th;
	uint8_t mode = ev->data.desc_set.mode;

	if (!ev->data.desc_set.set ||
	    (mode != GGMLVIZ_DESC_SET_DEFINE && mode != GGMLVIZ_DESC_SET_REPEAT))
		return 0; /* not a set this reader knows: its ops stay as they come */
	if (!(th = thread_of(d, ev->thread_id, 1)))
		return d->n_threads == GGMLVIZ__DESC_THREADS ? 0 : -ENOMEM;
	th->cur = set_of(d, th, ev->data.desc_set.set);
	th->sets[th->cur].used = ++d->clock;
	if (mode == GGMLVIZ_DESC_SET_DEFINE)
		set_empty(d, &th->sets[th->cur]); /* defined anew: what it held is stale */
	th->mode = mode;
	th->method = ev->data.desc_set.method;
	th->left = ev->data.desc_set.n_ops;
	return 0;
}

void ggmlviz__descs_run_end(struct ggmlviz__descs *d, uint32_t tid)
{
	struct ggmlviz__desc_thread *th = d->n_threads ? thread_of(d, tid, 0) : NULL;

	if (th)
		th->left = 0;
}

/* ---- element type names, interned: a timing may point at one until the engine is freed ---- */

/* The kept copy of a type name (first byte its length); NULL if none could be kept. */
static const char *type_name_of(struct ggmlviz__descs *d, const char *s, uint32_t len)
{
	uint64_t h = s ? ggmlviz__pairing_label_hash(s, len) : 0, *slot;
	char *copy;
	bool created;

	if (!s || !len || len > TYPE_NAME_MAX)
		return NULL;
	if (ggmlviz__map_count(&d->type_names) >= TYPE_NAMES_MAX && !ggmlviz__map_find(&d->type_names, h))
		return NULL;
	if (!(slot = ggmlviz__map_insert(&d->type_names, h, &created)))
		return NULL;
	if (!created) {
		copy = (char *)(uintptr_t)*slot;
		return (uint8_t)copy[0] == len && !memcmp(copy + 1, s, len) ? copy : NULL;
	}
	if (!(copy = malloc(len + 1u))) {
		ggmlviz__map_remove(&d->type_names, h);
		return NULL;
	}
	copy[0] = (char)len;
	memcpy(copy + 1, s, len);
	*slot = (uint64_t)(uintptr_t)copy;
	return copy;
}

/* ---- an op of a set's run ---- */

/* The entry of tensor in s, made if absent; NULL if out of memory or room. */
static struct entry *entry_add(struct ggmlviz__descs *d, struct set *s, uint64_t tensor)
{
	bool created;
	uint64_t *slot = ggmlviz__map_find(&s->index, tensor);

	if (slot)
		return &s->e[*slot];
	if (d->ops >= GGMLVIZ__DESC_OPS || !(slot = ggmlviz__map_insert(&s->index, tensor, &created)))
		return NULL;
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64u;
		struct entry *e = realloc(s->e, cap * sizeof *e);

		if (!e) {
			ggmlviz__map_remove(&s->index, tensor);
			return NULL;
		}
		s->e = e;
		s->cap = cap;
	}
	*slot = s->n;
	d->ops++;
	return &s->e[s->n++];
}

/* DEFINE: the op's own descriptions kept in the set. */
static void keep(struct ggmlviz__descs *d, struct set *s, const struct ggmlviz_timing *t,
		 unsigned has)
{
	struct entry *e = entry_add(d, s, t->ptr);
	const char *name;

	if (!e)
		return;
	memset(e, 0, sizeof *e);
	e->has = (uint8_t)has;
	memcpy(e->ne, t->ne, sizeof e->ne);
	e->flops = t->flops;
	if ((name = type_name_of(d, t->type_name, t->type_name_len))) {
		e->type_name = name + 1;
		e->type_name_len = t->type_name_len;
	}
	e->bytes_read = t->bytes_read;
	e->bytes_written = t->bytes_written;
	e->layer = t->layer;
	e->node_flags = (uint8_t)(t->node_flags & ~GGMLVIZ_NODE_RUN_START); /* a run's, not the op's */
	memcpy(e->src, t->src, sizeof e->src);
}

/* REPEAT: what the op lacks, from the set. */
static void fill(const struct set *s, const struct ggmlviz__desc_thread *th,
		 struct ggmlviz_timing *t, unsigned has)
{
	uint64_t i;
	const struct entry *e;

	if (!(has & GGMLVIZ__DESC_NODE))
		t->method = th->method;
	if (!ggmlviz__map_get(&s->index, t->ptr, &i))
		return; /* the set never described it: as it came */
	e = &s->e[i];
	if ((e->has & GGMLVIZ__DESC_INFO) && !(has & GGMLVIZ__DESC_INFO)) {
		memcpy(t->ne, e->ne, sizeof t->ne);
		t->flops = e->flops;
		t->type_name = e->type_name;
		t->type_name_len = e->type_name ? e->type_name_len : 0;
	}
	if ((e->has & GGMLVIZ__DESC_BYTES) && !(has & GGMLVIZ__DESC_BYTES)) {
		t->bytes_read = e->bytes_read;
		t->bytes_written = e->bytes_written;
	}
	if ((e->has & GGMLVIZ__DESC_NODE) && !(has & GGMLVIZ__DESC_NODE)) {
		t->layer = e->layer;
		t->node_flags = e->node_flags;
		memcpy(t->src, e->src, sizeof t->src);
	}
}

void ggmlviz__descs_op(struct ggmlviz__descs *d, struct ggmlviz_timing *t, unsigned has)
{
	struct ggmlviz__desc_thread *th = d->n_threads ? thread_of(d, t->thread_id, 0) : NULL;

	if (!th || !th->left)
		return;
	th->left--;
	if (th->mode == GGMLVIZ_DESC_SET_DEFINE)
		keep(d, &th->sets[th->cur], t, has);
	else
		fill(&th->sets[th->cur], th, t, has);
}

/* ---- the whole ---- */

static void descs_clear(struct ggmlviz__descs *d)
{
	for (uint32_t i = 0; i < d->n_threads; i++)
		for (uint32_t k = 0; k < GGMLVIZ__DESC_SETS; k++) {
			ggmlviz__map_release(&d->threads[i].sets[k].index);
			free(d->threads[i].sets[k].e);
		}
	d->n_threads = 0;
	d->last = 0;
	d->ops = 0;
	ggmlviz__map_release(&d->thread_index);
}

void ggmlviz__descs_free(struct ggmlviz__descs *d)
{
	size_t cursor = 0;
	uint64_t key, value;

	descs_clear(d);
	free(d->threads);
	d->threads = NULL;
	d->cap_threads = 0;
	while (ggmlviz__map_next(&d->type_names, &cursor, &key, &value))
		free((void *)(uintptr_t)value);
	ggmlviz__map_release(&d->type_names);
}
