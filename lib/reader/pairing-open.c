/*
 * The set of open begins of a pairing engine.
 *
 * Every open begin is an entry of a pool, found through a hash map whose
 * key mixes kind, thread and address (or scope label); entries of one key
 * form a chain, newest first, so an end takes the most recent open begin
 * of its own identity whatever came in between. Open graphs are also kept
 * newest first, globally and per thread (to number the ops inside them),
 * and each graph lists the ops of its thread attributed to it (to abandon
 * them when it ends). Entries are recycled through a free list: the set
 * allocates only when more begins are open at once than ever before.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "pairing-open.h"

#define NIL GGMLVIZ__NIL
#define POOL_MIN 64u

/* ---- the pool of entries ---- */

static void pool_free_all(struct ggmlviz_pairing *p)
{
	for (uint32_t i = 0; i < p->capacity; i++)
		p->items[i].chain.older = i + 1 < p->capacity ? i + 1 : NIL;
	p->free_head = p->capacity ? 0 : NIL;
}

static int pool_grow(struct ggmlviz_pairing *p)
{
	uint32_t n = p->capacity ? p->capacity * 2 : POOL_MIN;
	struct open_item *items;

	if (p->capacity >= NIL / 2)
		return -ENOMEM;
	items = realloc(p->items, (size_t)n * sizeof *items);
	if (!items)
		return -ENOMEM;
	for (uint32_t i = p->capacity; i < n; i++)
		items[i].chain.older = i + 1 < n ? i + 1 : p->free_head;
	p->free_head = p->capacity;
	p->items = items;
	p->capacity = n;
	return 0;
}

static uint32_t item_alloc(struct ggmlviz_pairing *p)
{
	uint32_t i;

	if (p->free_head == NIL && pool_grow(p) < 0)
		return NIL;
	i = p->free_head;
	p->free_head = p->items[i].chain.older;
	return i;
}

static void item_free(struct ggmlviz_pairing *p, uint32_t i)
{
	p->items[i].chain.older = p->free_head;
	p->free_head = i;
}

uint32_t ggmlviz__pairing_pool_size(const struct ggmlviz_pairing *p)
{
	return p->capacity;
}

uint32_t ggmlviz__pairing_thread_slots(const struct ggmlviz_pairing *p)
{
	return p->threads_capacity;
}

/* ---- threads ---- */

/*
 * A thread's state is kept while it has begins open; past THREADS_SWEEP
 * states, those with nothing open are forgotten (their slots reused), so
 * that threads that come and go (a server's thread per request) take no
 * more memory than the threads open at one time, and the limit of
 * GGMLVIZ_PAIRING_MAX_THREADS is on those.
 */
#define THREADS_SWEEP 1024u
#define FREE_SLOT UINT32_MAX /* a free slot's open; its steps links the free slots */

static void threads_sweep(struct ggmlviz_pairing *p)
{
	uint32_t live = 0;

	for (uint32_t i = 0; i < p->n_threads; i++) {
		struct thread_state *t = &p->threads[i];

		if (t->open == FREE_SLOT)
			continue;
		if (t->open) {
			live++;
			continue;
		}
		ggmlviz__map_remove(&p->thread_index, t->tid);
		t->open = FREE_SLOT;
		t->steps = p->free_thread;
		p->free_thread = i;
	}
	p->last_thread = NIL;
	p->sweep_at = live * 2 > THREADS_SWEEP ? live * 2 : THREADS_SWEEP;
}

static uint32_t thread_add(struct ggmlviz_pairing *p, uint32_t tid)
{
	uint32_t i;

	if (p->free_thread == NIL && p->n_threads >= p->sweep_at)
		threads_sweep(p);
	if (p->free_thread != NIL) {
		i = p->free_thread;
		p->free_thread = p->threads[i].steps;
	} else if (p->n_threads >= GGMLVIZ_PAIRING_MAX_THREADS) {
		return GGMLVIZ__OVER;
	} else {
		if (p->n_threads == p->threads_capacity) {
			uint32_t n = p->threads_capacity ? p->threads_capacity * 2 : 16u;
			struct thread_state *t = realloc(p->threads, (size_t)n * sizeof *t);

			if (!t)
				return NIL;
			p->threads = t;
			p->threads_capacity = n;
		}
		i = p->n_threads++;
	}
	p->threads[i] = (struct thread_state){ .tid = tid, .open = 0, .graphs = NIL, .steps = NIL };
	return i;
}

/* Index of the state of thread tid, created on first sight; NIL if out of memory, OVER. */
static uint32_t thread_of(struct ggmlviz_pairing *p, uint32_t tid)
{
	uint64_t *slot, found;
	uint32_t i;
	bool created;

	if (p->last_thread != NIL && p->threads[p->last_thread].tid == tid)
		return p->last_thread;
	if (ggmlviz__map_get(&p->thread_index, tid, &found))
		return p->last_thread = (uint32_t)found;
	i = thread_add(p, tid); /* may sweep the map: before the insert */
	if (i == NIL || i == GGMLVIZ__OVER)
		return i;
	slot = ggmlviz__map_insert(&p->thread_index, tid, &created);
	if (!slot) {
		p->threads[i].open = FREE_SLOT;
		p->threads[i].steps = p->free_thread;
		p->free_thread = i;
		return NIL;
	}
	*slot = i;
	return p->last_thread = i;
}

/* ---- identity of a begin: kind, thread, address or scope label ---- */

uint64_t ggmlviz__pairing_label_hash(const char *label, uint32_t len)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */

	for (uint32_t i = 0; i < len; i++)
		h = (h ^ (uint8_t)label[i]) * 0x100000001b3ull;
	return h;
}

uint64_t ggmlviz__pairing_key(int kind, uint32_t tid, uint64_t ptr)
{
	return ptr * 0x9e3779b97f4a7c15ull ^ ((uint64_t)tid << 2 | (uint64_t)(unsigned)kind);
}

struct ggmlviz__identity ggmlviz__identity_of(int kind, const struct ggmlviz_event *ev,
					      uint64_t ptr)
{
	struct ggmlviz__identity id = { .kind = kind, .tid = ev->thread_id, .ptr = ptr };

	if (kind == GGMLVIZ_TIMING_SCOPE) {
		id.label = ev->label;
		id.label_len = ev->label ? ev->label_len : 0;
		ptr = ggmlviz__pairing_label_hash(ev->label, id.label_len);
	}
	id.key = ggmlviz__pairing_key(kind, ev->thread_id, ptr);
	return id;
}

static bool item_is(const struct open_item *it, const struct ggmlviz__identity *id)
{
	const struct ggmlviz_timing *t = &it->t;

	if (t->kind != id->kind || t->thread_id != id->tid || t->ptr != id->ptr)
		return false;
	return id->kind != GGMLVIZ_TIMING_SCOPE ||
	       (t->label_len == id->label_len &&
		(id->label_len == 0 || memcmp(t->label, id->label, id->label_len) == 0));
}

uint32_t ggmlviz__open_find(const struct ggmlviz_pairing *p, const struct ggmlviz__identity *id)
{
	uint64_t head;

	if (!ggmlviz__map_get(&p->open, id->key, &head))
		return NIL;
	for (uint32_t i = (uint32_t)head; i != NIL; i = p->items[i].chain.older)
		if (item_is(&p->items[i], id))
			return i;
	return NIL;
}

/* ---- linking and unlinking open entries ---- */

/* Puts item i at the head of its key's chain; false if out of memory. */
static bool chain_link(struct ggmlviz_pairing *p, uint32_t i, uint64_t key)
{
	bool created;
	uint64_t *head = ggmlviz__map_insert(&p->open, key, &created);

	if (!head)
		return false;
	p->items[i].key = key;
	p->items[i].chain.newer = NIL;
	p->items[i].chain.older = created ? NIL : (uint32_t)*head;
	if (!created)
		p->items[*head].chain.newer = i;
	*head = i;
	return true;
}

static void chain_unlink(struct ggmlviz_pairing *p, uint32_t i)
{
	struct open_item *it = &p->items[i];

	if (it->chain.older != NIL)
		p->items[it->chain.older].chain.newer = it->chain.newer;
	if (it->chain.newer != NIL)
		p->items[it->chain.newer].chain.older = it->chain.older;
	else if (it->chain.older != NIL)
		*ggmlviz__map_find(&p->open, it->key) = it->chain.older;
	else
		ggmlviz__map_remove(&p->open, it->key);
}

/* Puts entry i at the head of a list of kind l whose head is *head. */
static void list_push(struct ggmlviz_pairing *p, int l, uint32_t *head, uint32_t i)
{
	p->items[i].list[l] = (struct links){ .older = *head, .newer = NIL };
	if (*head != NIL)
		p->items[*head].list[l].newer = i;
	*head = i;
}

static void list_unlink(struct ggmlviz_pairing *p, int l, uint32_t *head, uint32_t i)
{
	struct links k = p->items[i].list[l];

	if (k.older != NIL)
		p->items[k.older].list[l].newer = k.newer;
	if (k.newer != NIL)
		p->items[k.newer].list[l].older = k.older;
	else
		*head = k.older;
}

/* ---- entering and leaving the set ---- */

uint32_t ggmlviz__open_insert(struct ggmlviz_pairing *p, const struct ggmlviz__identity *id)
{
	uint32_t th = thread_of(p, id->tid);
	uint32_t i;

	if (th == GGMLVIZ__OVER || p->counts.open >= GGMLVIZ_PAIRING_MAX_OPEN)
		return GGMLVIZ__OVER;
	i = th != NIL ? item_alloc(p) : NIL;
	if (i == NIL)
		return NIL;
	if (!chain_link(p, i, id->key)) {
		item_free(p, i);
		return NIL;
	}
	p->items[i].thread = th;
	return i;
}

/* The ops a graph's end leaves open on its thread will never be paired. */
static void abandon_children(struct ggmlviz_pairing *p, uint32_t g)
{
	uint32_t c = p->items[g].children, next;

	for (; c != NIL; c = next) {
		next = p->items[c].list[LIST_CHILDREN].older;
		p->items[c].parent = NIL; /* the list goes with the graph */
		ggmlviz__open_close(p, c);
		p->counts.unclosed_begins++;
	}
}

void ggmlviz__open_close(struct ggmlviz_pairing *p, uint32_t i)
{
	struct open_item *it = &p->items[i];

	chain_unlink(p, i);
	p->threads[it->thread].open--;
	p->counts.open--;
	if (it->t.kind == GGMLVIZ_TIMING_GRAPH) {
		list_unlink(p, LIST_GRAPHS, &p->graphs, i);
		list_unlink(p, LIST_THREAD, &p->threads[it->thread].graphs, i);
		abandon_children(p, i);
	} else if (it->t.kind == GGMLVIZ_TIMING_STEP) {
		list_unlink(p, LIST_GRAPHS, &p->steps, i);
		list_unlink(p, LIST_THREAD, &p->threads[it->thread].steps, i);
	} else if (it->parent != NIL) {
		list_unlink(p, LIST_CHILDREN, &p->items[it->parent].children, i);
	}
	item_free(p, i);
}

/* What t inherits from the step open around it: that of thread index th, else the newest. */
static void inherit_step_of(struct ggmlviz_pairing *p, uint32_t th, struct ggmlviz_timing *t)
{
	uint32_t s = th < p->n_threads ? p->threads[th].steps : NIL;
	const struct ggmlviz_timing *st;

	if (s == NIL)
		s = p->steps;
	if (s == NIL)
		return;
	st = &p->items[s].t;
	t->step_seq = st->step_seq;
	t->n_tokens = st->n_tokens;
	t->phase = st->phase;
	t->gpu_window = st->gpu_window;
}

static void inherit_step(struct ggmlviz_pairing *p, struct open_item *it)
{
	inherit_step_of(p, it->thread, &it->t);
}

void ggmlviz__open_step_around(struct ggmlviz_pairing *p, uint32_t tid, struct ggmlviz_timing *t)
{
	inherit_step_of(p, thread_of(p, tid), t);
}

void ggmlviz__open_around(struct ggmlviz_pairing *p, uint32_t tid, struct ggmlviz_timing *t)
{
	uint32_t th = thread_of(p, tid), g;

	if (th >= p->n_threads)
		return; /* past the threads followed: no context */
	g = p->threads[th].graphs;
	if (g == NIL)
		g = p->graphs; /* as ggmlviz__open_place() */
	t->depth = p->threads[th].open;
	t->graph_seq = g != NIL ? p->items[g].t.graph_seq : 0;
	inherit_step_of(p, th, t);
}

void ggmlviz__open_gpu_window(struct ggmlviz_pairing *p, uint32_t tid, uint8_t state)
{
	uint32_t th = thread_of(p, tid);
	uint32_t s = th < p->n_threads ? p->threads[th].steps : NIL;

	p->gpu_window = state;
	if (s != NIL)
		p->items[s].t.gpu_window = state;
}

void ggmlviz__open_place(struct ggmlviz_pairing *p, uint32_t i)
{
	struct open_item *it = &p->items[i];
	uint32_t g = p->threads[it->thread].graphs;

	it->t.depth = p->threads[it->thread].open++;
	p->counts.open++;
	it->parent = NIL;
	it->children = NIL;
	if (it->t.kind == GGMLVIZ_TIMING_STEP) {
		it->t.step_seq = ++p->step_seq;
		it->t.gpu_window = p->gpu_window;
		list_push(p, LIST_GRAPHS, &p->steps, i);
		list_push(p, LIST_THREAD, &p->threads[it->thread].steps, i);
		return;
	}
	inherit_step(p, it);
	if (it->t.kind == GGMLVIZ_TIMING_GRAPH) {
		it->t.graph_seq = ++p->graph_seq;
		list_push(p, LIST_GRAPHS, &p->graphs, i);
		list_push(p, LIST_THREAD, &p->threads[it->thread].graphs, i);
		return;
	}
	if (g != NIL && it->t.kind == GGMLVIZ_TIMING_OP) {
		it->parent = g;
		list_push(p, LIST_CHILDREN, &p->items[g].children, i);
	}
	if (g == NIL)
		g = p->graphs; /* a worker thread: the newest graph of any thread */
	it->t.graph_seq = g != NIL ? p->items[g].t.graph_seq : 0;
}

void ggmlviz__open_clear(struct ggmlviz_pairing *p)
{
	ggmlviz__map_clear(&p->open);
	pool_free_all(p);
	for (uint32_t i = 0; i < p->n_threads; i++) {
		if (p->threads[i].open == FREE_SLOT)
			continue;
		p->threads[i].open = 0;
		p->threads[i].graphs = NIL;
		p->threads[i].steps = NIL;
	}
	p->graphs = NIL;
	p->steps = NIL;
}

