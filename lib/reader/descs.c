/*
 * Descriptions given once: sets of op descriptions, kept from a DEFINE run
 * and given to the ops of a REPEAT run (see descs.h).
 *
 * Sets belong to their thread (its DESC_SET records name them) but are
 * kept across threads: one list orders every set by its last use, and the
 * least recently used goes when room is needed, whoever's it is, so that
 * threads that come and go (a server's thread per request) leave room for
 * the ones that follow. A thread's state goes as soon as it has no set and
 * no run open, and at its THREAD_FREE. What a REPEAT run's op could not be
 * given is counted (ggmlviz_pairing_undescribed()).
 *
 * Sets and threads live in arrays, by index: an index stays while the
 * arrays grow or others go (free slots are reused).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>

#include "descs.h"
#include "format/record.h"
#include "pairing-open.h" /* ggmlviz__pairing_label_hash */

#define NIL UINT32_MAX
#define NAMES_MAX 65536u /* distinct names kept: element types (GGML has about 40) and tensors */
#define TYPE_NAME_MAX 64u
#define SHARE_SET (1ull << 63) /* a set of shares' id, told from a DESC_SET's on the same thread */
#define ALL_DESCRIBED (GGMLVIZ__DESC_INFO | GGMLVIZ__DESC_BYTES | GGMLVIZ__DESC_NODE)

/*
 * One op's descriptions in a set, by its tensor, and what its OP records
 * said of it, for an OP_TIMES op (which has only its times); or one
 * share's identity in a set of shares (SHARE_TIMES).
 */
struct entry {
	int64_t ne[4];
	uint64_t flops, bytes_read, bytes_written, src[2];
	const char *type_name; /* an interned copy (names), or NULL */
	uint32_t type_name_len;
	int32_t layer;
	uint8_t node_flags, has;
	uint32_t op_type, node; /* node: a share's place in its graph */
	uint64_t tensor, op_size, backend;
	const char *label;     /* an interned copy (names), or NULL */
	uint32_t label_len;
};

struct set {
	uint64_t id;               /* 0: a free slot (`newer` links the free ones) */
	uint64_t used;             /* the clock when last used */
	uint32_t thread;           /* its thread's index */
	uint32_t older, newer;     /* the list of every set by last use */
	struct ggmlviz__map index; /* tensor -> index in e */
	struct entry *e;
	uint32_t n, cap;
};

struct ggmlviz__desc_thread {
	uint32_t tid;
	uint32_t left;     /* op timings of its run still to come under its set */
	uint8_t mode, method;
	uint8_t n_sets;    /* 0 and no run: the state goes */
	uint8_t in_use;    /* 0: a free slot */
	uint32_t cur;      /* its run's set, or NIL (none kept: its ops as they come) */
	uint32_t sets[GGMLVIZ__DESC_SETS];
};

/* ---- the list of sets by last use ---- */

static void lru_unlink(struct ggmlviz__descs *d, uint32_t i)
{
	struct set *s = &d->sets[i];

	if (s->older != NIL)
		d->sets[s->older].newer = s->newer;
	else
		d->oldest = s->newer;
	if (s->newer != NIL)
		d->sets[s->newer].older = s->older;
	else
		d->newest = s->older;
	s->older = s->newer = NIL;
}

/* Set i used now: the newest. */
static void lru_touch(struct ggmlviz__descs *d, uint32_t i)
{
	struct set *s = &d->sets[i];

	if (d->newest == i)
		return;
	if (s->older != NIL || s->newer != NIL || d->oldest == i)
		lru_unlink(d, i);
	s->older = d->newest;
	s->newer = NIL;
	if (d->newest != NIL)
		d->sets[d->newest].newer = i;
	else
		d->oldest = i;
	d->newest = i;
	s->used = ++d->clock;
}

/* ---- threads ---- */

static void thread_free_slot(struct ggmlviz__descs *d, uint32_t i)
{
	struct ggmlviz__desc_thread *th = &d->threads[i];

	ggmlviz__map_remove(&d->thread_index, th->tid);
	th->in_use = 0;
	th->cur = d->free_thread; /* the free slots' list */
	d->free_thread = i;
	d->live_threads--;
}

/* A slot for a new thread; NIL if out of room or memory. */
static uint32_t thread_slot(struct ggmlviz__descs *d)
{
	struct ggmlviz__desc_thread *th;
	uint32_t cap;

	if (d->free_thread != NIL) {
		uint32_t i = d->free_thread;
		d->free_thread = d->threads[i].cur;
		return i;
	}
	if (d->n_threads == GGMLVIZ__DESC_THREADS)
		return NIL;
	if (d->n_threads == d->cap_threads) {
		cap = d->cap_threads ? 2 * d->cap_threads : 4u;
		if (!(th = realloc(d->threads, cap * sizeof *th)))
			return NIL;
		d->threads = th;
		d->cap_threads = cap;
	}
	return d->n_threads++;
}

/* The thread's index; NIL if it has no state and create is 0, or out of room or memory. */
static uint32_t thread_of(struct ggmlviz__descs *d, uint32_t tid, int create)
{
	struct ggmlviz__desc_thread *th;
	uint64_t *slot, i;
	bool created;

	if (d->last < d->n_threads && d->threads[d->last].in_use && d->threads[d->last].tid == tid)
		return d->last;
	if (ggmlviz__map_get(&d->thread_index, tid, &i))
		return d->last = (uint32_t)i;
	if (!create || (i = thread_slot(d)) == NIL)
		return NIL;
	if (!(slot = ggmlviz__map_insert(&d->thread_index, tid, &created))) {
		d->threads[i].cur = d->free_thread; /* the slot back */
		d->free_thread = (uint32_t)i;
		return NIL;
	}
	*slot = i;
	th = &d->threads[i];
	memset(th, 0, sizeof *th);
	th->tid = tid;
	th->in_use = 1;
	th->cur = NIL;
	d->live_threads++;
	return d->last = (uint32_t)i;
}

/* A thread with no set and no run open has nothing to keep: its state goes. */
static void thread_idle(struct ggmlviz__descs *d, uint32_t i)
{
	const struct ggmlviz__desc_thread *th = &d->threads[i];

	if (th->in_use && !th->n_sets && !th->left)
		thread_free_slot(d, i);
}

/* ---- sets ---- */

/* Empties a set, its ops no longer counted. */
static void set_empty(struct ggmlviz__descs *d, struct set *s)
{
	d->ops -= s->n;
	s->n = 0;
	ggmlviz__map_clear(&s->index);
}

/* Frees set i (its thread may go with it unless keep_thread). */
static void set_free(struct ggmlviz__descs *d, uint32_t i, int keep_thread)
{
	struct set *s = &d->sets[i];
	uint32_t t = s->thread;
	struct ggmlviz__desc_thread *th = &d->threads[t];

	for (uint8_t k = 0; k < th->n_sets; k++)
		if (th->sets[k] == i)
			th->sets[k] = th->sets[--th->n_sets];
	if (th->cur == i)
		th->cur = NIL; /* its run's ops come as they are, counted if they lack */
	lru_unlink(d, i);
	d->ops -= s->n;
	ggmlviz__map_release(&s->index);
	free(s->e);
	memset(s, 0, sizeof *s);
	s->older = NIL;
	s->newer = d->free_set;
	d->free_set = i;
	d->live_sets--;
	if (!keep_thread)
		thread_idle(d, t);
}

/* The least recently used set but `spare`, freed; 0 if there was none. */
static int evict(struct ggmlviz__descs *d, uint32_t spare, uint32_t keep_thread)
{
	uint32_t i = d->oldest;

	if (i != NIL && i == spare)
		i = d->sets[i].newer;
	if (i == NIL)
		return 0;
	set_free(d, i, d->sets[i].thread == keep_thread);
	return 1;
}

/* A slot for a new set of thread t (room made if none); NIL if out of memory. */
static uint32_t set_slot(struct ggmlviz__descs *d, uint32_t t)
{
	struct set *sets;
	uint32_t i, cap;

	if (d->live_sets >= GGMLVIZ__DESC_SETS_ALL)
		evict(d, NIL, t);
	if (d->free_set != NIL) {
		i = d->free_set;
		d->free_set = d->sets[i].newer;
		return i;
	}
	if (d->n_sets == d->cap_sets) {
		cap = d->cap_sets ? 2 * d->cap_sets : 16u;
		if (!(sets = realloc(d->sets, cap * sizeof *sets)))
			return NIL;
		d->sets = sets;
		d->cap_sets = cap;
	}
	return d->n_sets++;
}

/* Thread t's set of that id; made if create (the thread's least recently used goes past 16); NIL. */
static uint32_t set_of(struct ggmlviz__descs *d, uint32_t t, uint64_t id, int create)
{
	struct ggmlviz__desc_thread *th = &d->threads[t];
	uint32_t i, oldest = NIL;

	for (uint8_t k = 0; k < th->n_sets; k++) {
		if (d->sets[th->sets[k]].id == id)
			return th->sets[k];
		if (oldest == NIL || d->sets[th->sets[k]].used < d->sets[oldest].used)
			oldest = th->sets[k];
	}
	if (!create)
		return NIL;
	if (th->n_sets == GGMLVIZ__DESC_SETS)
		set_free(d, oldest, 1);
	if ((i = set_slot(d, t)) == NIL)
		return NIL;
	th = &d->threads[t];
	memset(&d->sets[i], 0, sizeof d->sets[i]);
	d->sets[i].id = id;
	d->sets[i].thread = t;
	d->sets[i].older = d->sets[i].newer = NIL;
	th->sets[th->n_sets++] = i;
	d->live_sets++;
	return i;
}

int ggmlviz__descs_set(struct ggmlviz__descs *d, const struct ggmlviz_event *ev)
{
	uint8_t mode = ev->data.desc_set.mode;
	int define = mode == GGMLVIZ_DESC_SET_DEFINE;
	struct ggmlviz__desc_thread *th;
	uint32_t t;

	if (!ev->data.desc_set.set || (!define && mode != GGMLVIZ_DESC_SET_REPEAT))
		return 0; /* not a set this reader knows: its ops stay as they come */
	if ((t = thread_of(d, ev->thread_id, 1)) == NIL) {
		if (!define) /* not followed: what its ops lack is counted now */
			d->undescribed += ev->data.desc_set.n_ops;
		return d->n_threads == GGMLVIZ__DESC_THREADS ? 0 : -ENOMEM;
	}
	th = &d->threads[t];
	th->cur = set_of(d, t, ev->data.desc_set.set, define);
	th->mode = mode;
	th->method = ev->data.desc_set.method;
	th->left = ev->data.desc_set.n_ops;
	if (th->cur == NIL)
		return define ? -ENOMEM : 0; /* a REPEAT of a set not kept: counted op by op */
	lru_touch(d, th->cur);
	if (define)
		set_empty(d, &d->sets[th->cur]); /* defined anew: what it held is stale */
	return 0;
}

void ggmlviz__descs_run_end(struct ggmlviz__descs *d, uint32_t tid)
{
	uint32_t t = d->live_threads ? thread_of(d, tid, 0) : NIL;

	if (t == NIL)
		return;
	d->threads[t].left = 0;
	thread_idle(d, t);
}

void ggmlviz__descs_thread_end(struct ggmlviz__descs *d, uint32_t tid)
{
	uint32_t t = d->live_threads ? thread_of(d, tid, 0) : NIL;

	if (t == NIL)
		return;
	d->threads[t].left = 0;
	while (d->threads[t].n_sets)
		set_free(d, d->threads[t].sets[0], 1);
	thread_idle(d, t);
}

/* ---- names, interned: a timing may point at one until the engine is freed ---- */

/* A kept name: its length, then its bytes. */
struct name {
	uint32_t len;
	char s[];
};

/* The kept copy of a name of at most max bytes; NULL if none could be kept. */
static const char *name_of(struct ggmlviz__descs *d, const char *s, uint32_t len, uint32_t max)
{
	uint64_t h = s ? ggmlviz__pairing_label_hash(s, len) : 0, *slot;
	struct name *copy;
	bool created;

	if (!s || !len || len > max)
		return NULL;
	if (ggmlviz__map_count(&d->names) >= NAMES_MAX && !ggmlviz__map_find(&d->names, h))
		return NULL;
	if (!(slot = ggmlviz__map_insert(&d->names, h, &created)))
		return NULL;
	if (!created) {
		copy = (struct name *)(uintptr_t)*slot;
		return copy->len == len && !memcmp(copy->s, s, len) ? copy->s : NULL;
	}
	if (!(copy = malloc(sizeof *copy + len))) {
		ggmlviz__map_remove(&d->names, h);
		return NULL;
	}
	copy->len = len;
	memcpy(copy->s, s, len);
	*slot = (uint64_t)(uintptr_t)copy;
	return copy->s;
}

/* ---- an op of a set's run ---- */

/* Room for one more entry in set i (others' sets give it room); 0 or -ENOMEM. */
static int entry_room(struct ggmlviz__descs *d, uint32_t i)
{
	struct set *s = &d->sets[i];

	while (d->ops >= GGMLVIZ__DESC_OPS && evict(d, i, s->thread))
		;
	if (d->ops >= GGMLVIZ__DESC_OPS)
		return -ENOMEM;
	if (s->n == s->cap) {
		uint32_t cap = s->cap ? 2 * s->cap : 64u;
		struct entry *e = realloc(s->e, cap * sizeof *e);

		if (!e)
			return -ENOMEM;
		s->e = e;
		s->cap = cap;
	}
	return 0;
}

/* A new entry at the end of set i (a share: by place, its node may come again); NULL. */
static struct entry *entry_append(struct ggmlviz__descs *d, uint32_t i)
{
	if (entry_room(d, i) < 0)
		return NULL;
	d->ops++;
	return &d->sets[i].e[d->sets[i].n++];
}

/* The entry of tensor in set i, made if absent; NULL. */
static struct entry *entry_add(struct ggmlviz__descs *d, uint32_t i, uint64_t tensor)
{
	struct set *s = &d->sets[i];
	uint64_t *slot = ggmlviz__map_find(&s->index, tensor);
	bool created;

	if (slot)
		return &s->e[*slot];
	if (entry_room(d, i) < 0 || !(slot = ggmlviz__map_insert(&s->index, tensor, &created)))
		return NULL;
	*slot = s->n;
	return entry_append(d, i);
}

/* DEFINE: the op's own descriptions kept in set i. */
static void keep(struct ggmlviz__descs *d, uint32_t i, const struct ggmlviz_timing *t,
		 unsigned has)
{
	struct entry *e = entry_add(d, i, t->ptr);
	const char *name;

	if (!e)
		return;
	memset(e, 0, sizeof *e);
	e->has = (uint8_t)has;
	memcpy(e->ne, t->ne, sizeof e->ne);
	e->flops = t->flops;
	if ((name = name_of(d, t->type_name, t->type_name_len, TYPE_NAME_MAX))) {
		e->type_name = name;
		e->type_name_len = t->type_name_len;
	}
	if ((name = name_of(d, t->label, t->label_len, GGMLVIZ_LABEL_MAX))) {
		e->label = name;
		e->label_len = t->label_len;
	}
	e->tensor = t->ptr;
	e->op_type = t->op_type;
	e->op_size = t->op_size;
	e->backend = t->backend_ptr;
	e->bytes_read = t->bytes_read;
	e->bytes_written = t->bytes_written;
	e->layer = t->layer;
	e->node_flags = (uint8_t)(t->node_flags & ~GGMLVIZ_NODE_RUN_START); /* a run's, not the op's */
	memcpy(e->src, t->src, sizeof e->src);
}

/* REPEAT: what the op lacks, from set i (NIL: none kept); 0 if it stays without. */
static int fill(const struct ggmlviz__descs *d, uint32_t i,
		const struct ggmlviz__desc_thread *th, struct ggmlviz_timing *t, unsigned has)
{
	const struct entry *e;
	uint64_t k;

	if (!(has & GGMLVIZ__DESC_NODE))
		t->method = th->method;
	if (i == NIL || !ggmlviz__map_get(&d->sets[i].index, t->ptr, &k))
		return 0; /* the set was not kept, or never described it: as it came */
	e = &d->sets[i].e[k];
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
	return 1;
}

void ggmlviz__descs_op(struct ggmlviz__descs *d, struct ggmlviz_timing *t, unsigned has)
{
	uint32_t i = d->live_threads ? thread_of(d, t->thread_id, 0) : NIL;
	struct ggmlviz__desc_thread *th;

	if (i == NIL || !d->threads[i].left)
		return;
	th = &d->threads[i];
	th->left--;
	if (th->mode == GGMLVIZ_DESC_SET_DEFINE) {
		if (th->cur != NIL)
			keep(d, th->cur, t, has);
	} else if (!fill(d, th->cur, th, t, has) && (has & ALL_DESCRIBED) != ALL_DESCRIBED) {
		d->undescribed++;
	}
}

/* The set of thread index i's open run if it repeats set `id`; NIL if not. */
static uint32_t repeated_set(const struct ggmlviz__descs *d, uint32_t i, uint64_t id)
{
	const struct ggmlviz__desc_thread *th = &d->threads[i];

	if (th->cur == NIL || th->mode != GGMLVIZ_DESC_SET_REPEAT || d->sets[th->cur].id != id)
		return NIL;
	return th->cur;
}

int ggmlviz__descs_times_op(struct ggmlviz__descs *d, uint32_t tid, uint64_t set, uint32_t k,
			    struct ggmlviz_timing *t)
{
	uint32_t i = d->live_threads ? thread_of(d, tid, 0) : NIL;
	uint32_t cur = i == NIL || !d->threads[i].left ? NIL : repeated_set(d, i, set);
	const struct entry *e;

	if (i != NIL && d->threads[i].left)
		d->threads[i].left--;
	if (cur == NIL || k >= d->sets[cur].n) {
		d->undescribed++; /* no identity: no timing */
		return 0;
	}
	e = &d->sets[cur].e[k];
	t->kind = GGMLVIZ_TIMING_OP;
	t->ptr = e->tensor;
	t->op_type = e->op_type;
	t->op_size = e->op_size;
	t->backend_ptr = e->backend;
	t->label = e->label;
	t->label_len = e->label ? e->label_len : 0;
	t->layer = ggmlviz_layer_of_name(t->label, t->label_len);
	fill(d, cur, &d->threads[i], t, 0);
	return 1;
}

/* ---- sets of shares (SHARE_TIMES) ---- */

int ggmlviz__descs_share_define(struct ggmlviz__descs *d, uint32_t tid, uint64_t set,
				uint32_t first, uint32_t n, const uint8_t *ids)
{
	uint32_t t = set ? thread_of(d, tid, 1) : NIL, i;
	struct entry *e;

	if (t == NIL)
		return set && d->n_threads < GGMLVIZ__DESC_THREADS ? -ENOMEM : 0;
	if ((i = set_of(d, t, set | SHARE_SET, first == 0)) == NIL)
		return first == 0 ? -ENOMEM : 0; /* a later part of a set not kept */
	lru_touch(d, i);
	if (first == 0)
		set_empty(d, &d->sets[i]);
	for (uint32_t j = 0; j < n && d->sets[i].n == first + j; j++) {
		const uint8_t *id = ids + GGMLVIZ_SHARE_TIMES_IDENTITY * j;

		if (!(e = entry_append(d, i)))
			return -ENOMEM;
		memset(e, 0, sizeof *e);
		e->tensor = get_u64(id + STIMES_ID_TENSOR);
		e->op_type = get_u32(id + STIMES_ID_TYPE);
		e->node = get_u32(id + STIMES_ID_NODE);
	}
	return 0;
}

int ggmlviz__descs_share(struct ggmlviz__descs *d, uint32_t tid, uint64_t set, uint32_t k,
			 struct ggmlviz_timing *t)
{
	uint32_t th = d->live_threads ? thread_of(d, tid, 0) : NIL;
	uint32_t i = th == NIL ? NIL : set_of(d, th, set | SHARE_SET, 0);
	const struct entry *e;

	if (i == NIL || k >= d->sets[i].n)
		return 0;
	lru_touch(d, i);
	e = &d->sets[i].e[k];
	t->ptr = e->tensor;
	t->op_type = e->op_type;
	t->n_nodes = e->node;
	return 1;
}

void ggmlviz__descs_unread(struct ggmlviz__descs *d, uint64_t n)
{
	d->undescribed += n;
}

uint64_t ggmlviz__descs_undescribed(const struct ggmlviz__descs *d)
{
	return d->undescribed;
}

/* ---- the whole ---- */

void ggmlviz__descs_init(struct ggmlviz__descs *d)
{
	memset(d, 0, sizeof *d);
	d->oldest = d->newest = d->free_set = d->free_thread = NIL;
}

void ggmlviz__descs_free(struct ggmlviz__descs *d)
{
	size_t cursor = 0;
	uint64_t key, value;

	for (uint32_t i = 0; i < d->n_sets; i++) {
		ggmlviz__map_release(&d->sets[i].index);
		free(d->sets[i].e);
	}
	free(d->sets);
	free(d->threads);
	ggmlviz__map_release(&d->thread_index);
	while (ggmlviz__map_next(&d->names, &cursor, &key, &value))
		free((void *)(uintptr_t)value);
	ggmlviz__map_release(&d->names);
	ggmlviz__descs_init(d);
}
