/*
 * Each worker thread's share of each node that GGML's CPU backend computes,
 * measured by the backend itself: a GGML built with libggmlviz's edit
 * (contrib/llama.cpp/ggmlviz-cpu.h) calls ggmlviz_cpu_share_begin() and
 * _end() around every thread's share of every node (at one thread
 * ggmlviz_cpu_share_next() in place of the begin: no barrier stands
 * between two shares there), and ggmlviz_cpu_graph_done() on every
 * thread after the graph's last barrier.
 *
 * A share is two raw stamps stored in the thread's own slot, by the node's
 * place in its graph: no lock, syscall, allocation or division there once
 * the thread has its slot (its first call for a pool takes a lock and
 * maybe memory, as a thread's first event takes a ring). At the graph's
 * end each thread writes its shares as OP_SHARE records on its own ring:
 * the share's compute, and its wait at the barrier after it (until its
 * next share began, or the graph ended). Thread 0, the one that computes
 * the graph for the scheduler, also gives the node engine each node's
 * first begin and last end: the op's time, method MEASURED (measured.c).
 * From three threads on the other workers fold those first, a slice of
 * the graph each, and thread 0 reads their slices (fold.h); at two, or
 * where a slice was not folded for this graph, it reads every worker's
 * slot itself (after the last barrier, which orders their stores before
 * its loads, and before it starts the next graph, after which they store
 * again; or a thread takes the slot of a worker that ended inside the
 * graph, and clears it: every stamp is read and stored as a relaxed
 * atomic, fold.h). The graph's first node begins when its
 * last worker began it instead: until then the workers were being woken
 * (or made), which is the run's start, as the estimate of ticks.h has it.
 *
 * The slots of a pool (GGML's threadpool, by address) are found through a
 * small table of boards; a slot is never freed while the process runs, only handed
 * to a later thread when its own ends, so that a stale pointer in the
 * table never reads freed memory. A board is the pool's while a slot
 * names it: when the last one leaves (its thread ended, or took it for
 * another pool), the board is empty again, for any pool, so that a
 * program that makes pool after pool (llama-bench at each test, a server
 * at each context) keeps its folds. The stamps of one graph are told from
 * older ones by thread 0's previous graph_done: every share of a graph
 * begins after it, every share of the graphs before began before it. A
 * slot is cleared when a thread takes it, or takes it for another pool.
 *
 * Thread 0's tick right after its share takes that share's end and is
 * held (producer.h): graph_done gives the graph's held ticks to the run
 * in every mode (from the shares it found, where it holds as many, else
 * by the floor before this graph's end), and moves the thread's floor
 * even when nothing is traced, so that a share stored before a stop is
 * never taken for a later graph's.
 *
 * At one thread a node's time is its one share's, and the run's OP_TIMES
 * hold the same bytes as the thread's SHARE_TIMES REPEAT: those are
 * copied as they are written, and the run takes the copy (measured.c)
 * instead of the hand-over's stamps, which it would only pack again.
 *
 * What no op got is counted, never attributed by guess, and said at the
 * session's stop in a META SHARES record (as ggmlviz_stats says it).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/nodes.h>

#include "format/record.h"
#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/producer/emit.h"
#include "tracer/producer/fold.h"
#include "tracer/producer/packed.h"
#include "tracer/producer/producer.h"
#include "util/leaving.h"
#include "util/pages.h"

#define POOLS 16u
#define POOL_THREADS 1024u
/*
 * The fewest workers whose spans are folded by the workers (fold.h). At two
 * thread 0 reads the one worker's stamps as they would be folded, fetched
 * while it writes its own shares: no fewer lines, and sooner.
 */
#define FOLDED_FROM 3u

struct share_slot {
	struct ggmlviz__perthread_item item; /* first: listed while its thread runs */
	/*
	 * what the pool's other threads read, set when the slot is taken: a
	 * slot given back as its thread ended inside a graph may be taken by
	 * another while the pool's thread 0 reads it (relaxed atomics, plain
	 * loads and stores on the processors GGML runs on)
	 */
	_Atomic(const void *) pool;
	_Atomic uint32_t ith;
	uint64_t *begin, *end;   /* raw stamps, by the node's place in its graph */
	/* its slice of its last graph's spans, for thread 0 (fold.h): by place */
	uint64_t *fold_first, *fold_latest, *fold_last;
	struct board *board;     /* its pool's */
	/* the thread's own, written at every graph: on lines of their own */
	_Alignas(GGMLVIZ__CACHE_LINE) uint64_t prev_done; /* this thread's last graph_done */
	uint32_t *op;            /* the op type of each node with a share, at the graph's end */
	uint32_t *at;            /* the places of the graph's nodes with a share (at its end) */
	/* its set of shares (SHARE_TIMES): the nodes of its last DEFINE, and where it stands */
	uint64_t set;            /* its id; 0: none */
	uint32_t set_n;          /* shares in it */
	uint32_t *set_at;        /* their places in the graph */
	uint64_t *set_node;      /* and their nodes' addresses */
	struct ggmlviz__written set_written;
	struct ggmlviz__packed_copy copy; /* worker 0 of one: its SHARE_TIMES' times (packed.h) */
	uint32_t fold_n, fold_nth, chunk; /* the graph's places and workers the chunk is for */
	struct share_slot *next_free;
};

_Static_assert(GGMLVIZ__SHARE_NODES <= GGMLVIZ__COPY_RECORDS * GGMLVIZ__TIMES_PER_RECORD,
	       "a copy of a graph's shares has a stamp for each of its records");

/*
 * A worker's folded slice, marked (fold_own()): thread 0's begin of the
 * graph's first node, as the fold read it, and the worker's own begin of
 * it, which no fold of another graph has.
 */
struct fold_mark {
	_Atomic uint64_t id, key;
};

struct board {
	_Atomic(const void *) pool;
	_Atomic int reused; /* taken again for another pool while the first's threads may run: no folds */
	uint32_t named;     /* slots whose board it is (the lock held): at 0, empty again */
	_Atomic(struct share_slot *) slot[POOL_THREADS];
	/* worker t's marks of its last folded slice (fold_own()): four workers a line */
	_Alignas(GGMLVIZ__CACHE_LINE) struct fold_mark mark[POOL_THREADS];
};

static struct board boards[POOLS];
static struct share_slot *free_slots;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint64_t beyond; /* shares past GGMLVIZ__SHARE_NODES or POOL_THREADS, not kept */
/* What the session's META SHARES counts from, and whether a graph was measured in it. */
static struct {
	uint64_t unasked, beyond;
	_Atomic int measured;
} said;

static _Thread_local struct share_slot *tls_slot __attribute__((tls_model("initial-exec")));
static _Thread_local uint64_t tls_folds_taken; /* workers' slices taken, as thread 0 (for tests) */

/*
 * Slot s no longer names its board (the lock held). The last slot to leave
 * empties it: no thread of its pool, nor of a pool that took it again,
 * reads it any more, since each reads only its own slot's board.
 */
static void board_left(struct share_slot *s)
{
	struct board *b = s->board;

	s->board = NULL;
	if (!b || --b->named)
		return;
	for (uint32_t t = 0; t < POOL_THREADS; t++) {
		atomic_store_explicit(&b->slot[t], NULL, memory_order_relaxed);
		atomic_store_explicit(&b->mark[t].id, 0, memory_order_relaxed);
		atomic_store_explicit(&b->mark[t].key, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&b->reused, 0, memory_order_relaxed);
	atomic_store_explicit(&b->pool, NULL, memory_order_release);
}

/* A thread ends: its slot goes to a later thread (never freed: see above). */
static void slot_release(struct ggmlviz__perthread_item *it)
{
	struct share_slot *s = (struct share_slot *)(void *)it;

	ggmlviz__inner_lock(&lock);
	board_left(s);
	s->next_free = free_slots;
	free_slots = s;
	ggmlviz__inner_unlock(&lock);
}

static struct ggmlviz__perthread slots = { slot_release, 0, 0, NULL };

static void slot_free(struct share_slot *s)
{
	ggmlviz__pages_free(s->begin);
	ggmlviz__pages_free(s->end);
	ggmlviz__pages_free(s->op);
	ggmlviz__pages_free(s->at);
	ggmlviz__pages_free(s->set_at);
	ggmlviz__pages_free(s->set_node);
	ggmlviz__pages_free(s->copy.body);
	ggmlviz__pages_free(s->fold_first);
	ggmlviz__pages_free(s->fold_latest);
	ggmlviz__pages_free(s->fold_last);
	ggmlviz__pages_free(s);
}

static struct share_slot *slot_new(void)
{
	struct share_slot *s = free_slots;

	if (s) {
		free_slots = s->next_free;
		return s;
	}
	s = ggmlviz__pages_array(1, sizeof *s);
	if (!s)
		return NULL;
	s->begin = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->begin);
	s->end = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->end);
	s->op = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->op);
	s->at = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->at);
	s->set_at = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->set_at);
	s->set_node = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->set_node);
	s->fold_first = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->fold_first);
	s->fold_latest = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->fold_latest);
	s->fold_last = ggmlviz__pages_array(GGMLVIZ__SHARE_NODES, sizeof *s->fold_last);
	if (!s->begin || !s->end || !s->op || !s->at || !s->set_at || !s->set_node ||
	    !s->fold_first || !s->fold_latest || !s->fold_last) {
		slot_free(s);
		return NULL;
	}
	return s;
}

/* The board of pool, or NULL. */
static struct board *board_now(const void *pool)
{
	for (uint32_t i = 0; i < POOLS; i++)
		if (atomic_load_explicit(&boards[i].pool, memory_order_acquire) == pool)
			return &boards[i];
	return NULL;
}

/* The board of pool, taken if new (a pool's address may come back: the same board). */
static struct board *board_of(const void *pool)
{
	struct board *b = board_now(pool);

	if (b)
		return b;
	b = board_now(NULL); /* an empty one */
	if (!b) {
		b = &boards[(uintptr_t)pool / 64 % POOLS]; /* more pools than boards: one is reused */
		atomic_store_explicit(&b->reused, 1, memory_order_relaxed);
	}
	atomic_store_explicit(&b->pool, pool, memory_order_release);
	return b;
}

/* The thread's line for a node's calls (producer.h) takes its slot s (NULL: none). */
static void node_line_of(const struct share_slot *s)
{
	struct ggmlviz__tls_node *t = &ggmlviz__tls_node;

	t->pool = s ? s->pool : NULL;
	t->ith = s ? s->ith : 0;
	t->begin = s ? s->begin : NULL;
	t->end = s ? s->end : NULL;
	t->floor = s ? &s->prev_done : NULL;
	t->held = t->from = 0;
	t->last_end = 0;
}

/*
 * A slot's stamps cleared as it is taken: relaxed stores, since a worker of
 * the slot's last pool, held up in its fold, may still read them, and so
 * may its thread 0, where the slot's thread ended inside a graph.
 */
static void stamps_cleared(struct share_slot *s)
{
	for (uint32_t i = 0; i < GGMLVIZ__SHARE_NODES; i++) {
		ggmlviz__stamp_store(&s->begin[i], 0);
		ggmlviz__stamp_store(&s->end[i], 0);
	}
}

/* The slow path: the calling thread's slot, as worker ith of pool; NULL: not followed. */
static struct share_slot *slot_for(const void *pool, int ith)
{
	struct share_slot *s = tls_slot;
	struct board *b;

	if ((unsigned)ith >= POOL_THREADS) {
		atomic_fetch_add_explicit(&beyond, 1, memory_order_relaxed);
		return NULL;
	}
	if (ggmlviz__tls_node.held)
		ggmlviz__nodes_held_ticks(1); /* before their slot is cleared for another pool */
	ggmlviz__inner_lock(&lock);
	if (!s && (s = slot_new()))
		ggmlviz__perthread_keep(&slots, &s->item); /* handed on when the thread ends */
	if (s) {
		/* what it held was another thread's, or another pool's graphs': nothing of this one */
		stamps_cleared(s);
		board_left(s); /* first: emptied, it may be this pool's again */
		b = board_of(pool);
		b->named++;
		atomic_store_explicit(&s->pool, pool, memory_order_relaxed);
		atomic_store_explicit(&s->ith, (uint32_t)ith, memory_order_relaxed);
		s->board = b;
		s->fold_n = s->fold_nth = 0;
		s->prev_done = 0;
		s->set = 0; /* its shares are defined again, on this thread's ring */
		if (ith == 0 && !s->copy.body) /* a graph of one thread copies its times (copy_of()) */
			s->copy.body = ggmlviz__pages_alloc((size_t)GGMLVIZ__SHARE_NODES * GGMLVIZ_OP_TIMES_ENTRY);
		atomic_store_explicit(&b->slot[ith], s, memory_order_release);
	}
	ggmlviz__inner_unlock(&lock);
	tls_slot = s;
	node_line_of(s);
	return s;
}

static inline int shares_wanted(void)
{
	const unsigned want = GGMLVIZ__ACTIVE | GGMLVIZ__OPS | GGMLVIZ__SHARES;

	return (ggmlviz__mask_relaxed() & want) == want;
}

/* Node's begin, stamp, on the thread's line t, whose slot is taken. */
static inline void share_begin_at(struct ggmlviz__tls_node *t, int node, uint64_t stamp)
{
	if (GGMLVIZ__LIKELY((unsigned)node < GGMLVIZ__SHARE_NODES))
		ggmlviz__stamp_store(&t->begin[node], stamp);
	else
		atomic_fetch_add_explicit(&beyond, 1, memory_order_relaxed);
}

/*
 * The thread's first share for pool as worker ith: its slot taken first.
 * Out of line: inlined, it made every later share's call save six
 * registers and set up a frame; now that call saves one and sets up none.
 */
static __attribute__((noinline)) void share_begin_first(const void *pool, int ith, int node)
{
	if (slot_for(pool, ith))
		share_begin_at(&ggmlviz__tls_node, node, ggmlviz__stamp());
}

/*
 * The calling thread's line, where its share of node as pool's worker ith
 * is to begin; NULL where there is nothing to do: shares not traced, or
 * the thread's first share for the pool (begun here, its slot taken).
 */
static inline struct ggmlviz__tls_node *share_line(const void *pool, int ith, int node)
{
	struct ggmlviz__tls_node *t = &ggmlviz__tls_node;

	t->share_end = 0; /* the share before is over: no tick takes its end now */
	if (GGMLVIZ__UNLIKELY(!shares_wanted()))
		return NULL;
	if (GGMLVIZ__UNLIKELY(!t->begin || t->pool != pool || t->ith != (uint32_t)ith)) {
		share_begin_first(pool, ith, node);
		return NULL;
	}
	return t;
}

void ggmlviz_cpu_share_begin(const void *pool, int ith, int node)
{
	struct ggmlviz__tls_node *t = share_line(pool, ith, node);

	if (t)
		share_begin_at(t, node, ggmlviz__stamp());
}

/*
 * At one thread no barrier stands between two shares, only GGML's loop
 * (the views it skips) and thread 0's tick (with any abort callback the
 * program chained to it): the share begins where the thread's last share
 * of the graph ended (graph_done forgets it, and so does an end not kept),
 * and the graph's first reads the time. One time read an op less; what
 * ran between two shares, at one thread all of a share's wait, goes to
 * the later share instead.
 */
void ggmlviz_cpu_share_next(const void *pool, int ith, int node)
{
	struct ggmlviz__tls_node *t = share_line(pool, ith, node);

	if (t)
		share_begin_at(t, node, t->last_end ? t->last_end : ggmlviz__stamp());
}

void ggmlviz_cpu_share_end(const void *pool, int ith, int node)
{
	struct ggmlviz__tls_node *t = &ggmlviz__tls_node;

	if (GGMLVIZ__LIKELY(t->end && t->pool == pool && (unsigned)node < GGMLVIZ__SHARE_NODES &&
			    shares_wanted())) {
		uint64_t stamp = ggmlviz__stamp();

		ggmlviz__stamp_store(&t->end[node], stamp);
		t->share_end = t->last_end = stamp;
	} else {
		t->last_end = 0; /* an end not kept (a stop mid-share): the next begin reads the time */
	}
	(void)ith;
}

/*
 * A stamp difference in the record's 32 bits, shifted so that they reach
 * the field's 4.29 s (clock.h); the writer shifts it back and makes it ns.
 */
static uint32_t stamps32(uint64_t from, uint64_t to)
{
	uint64_t d = (to > from ? to - from : 0) >> ggmlviz__clock_share_shift;

	return d > UINT32_MAX ? UINT32_MAX : (uint32_t)d;
}

static void emit_share(uint64_t begin, uint64_t end, uint64_t next, const void *node,
		       uint32_t op_type, uint32_t index, uint32_t ith, uint32_t nth)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE | GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_SHARE,
					 NULL, 0, begin);

	if (!pl)
		return;
	put_u64(pl + SHARE_TENSOR, ggmlviz__addr(node));
	put_u32(pl + SHARE_COMPUTE, stamps32(begin, end));
	put_u32(pl + SHARE_WAIT, stamps32(end, next));
	put_u32(pl + SHARE_TYPE, op_type);
	put_u32(pl + SHARE_NODE, index);
	put_u32(pl + SHARE_ITH, ith);
	put_u32(pl + SHARE_NTH, nth);
	ggmlviz__emit_close(&e);
}

static inline int has_share(const struct share_slot *s, uint64_t floor, uint32_t i)
{
	return s->begin[i] > floor && s->end[i] >= s->begin[i];
}

/*
 * The op type of each of the thread's shares, before any record is
 * written: op_of reads the node's struct, a miss for each (the weights
 * streamed through the caches since), and in a loop of nothing else the
 * processor waits for many at once instead of one per record. Only when
 * the thread's set of shares is defined: a repeated graph's are known.
 */
static void op_types(struct share_slot *s, const void *const *nodes, uint32_t k,
		     ggmlviz_node_op_fn op_of)
{
	for (uint32_t j = 0; j < k; j++)
		s->op[j] = op_of ? op_of(nodes[s->at[j]]) : 0;
}

/* What one pass over a graph's places found of the thread's shares (shares_of()). */
struct found {
	uint32_t k;    /* shares: their places in s->at */
	int ordered;   /* each begins at or after the end of the one before */
	int as_set;    /* at the places and of the nodes of the thread's set, in its order */
	uint64_t last; /* the last one's end */
};

/*
 * Whether the k places in s->at, of nodes, are those of the thread's set,
 * in its order: the places compared at once, then each one's node.
 */
static int of_the_set(const struct share_slot *s, uint32_t k, const void *const *nodes)
{
	if (k != (s->set ? s->set_n : 0) || memcmp(s->at, s->set_at, k * sizeof *s->at))
		return 0;
	for (uint32_t j = 0; j < k; j++)
		if (s->set_node[j] != ggmlviz__addr(nodes[s->at[j]]))
			return 0;
	return 1;
}

/*
 * The places of the graph's nodes the thread has a share of, in s->at,
 * and in the same pass whether their times are in order
 * (ggmlviz__times_pack()'s rule); then whether they are its set's. One
 * pass over lines the weights pushed out of the caches since, where
 * three passes read them again; the set's places compared after it, at
 * once, where a compare at each share took 16 instructions a share.
 */
static struct found shares_of(struct share_slot *s, uint64_t floor, uint32_t n,
			      const void *const *nodes)
{
	struct found f = { 0, 1, 0, 0 };

	for (uint32_t i = 0; i < n; i++) {
		if (!has_share(s, floor, i))
			continue;
		f.ordered &= s->begin[i] >= f.last;
		f.last = s->end[i];
		s->at[f.k++] = i;
	}
	f.as_set = of_the_set(s, f.k, nodes);
	return f;
}

/* Whether the shares f found pack until done (ggmlviz__times_pack()'s rule, in one look). */
static int found_packs(const struct share_slot *s, const struct found *f, uint64_t done)
{
	return f->k && f->ordered && done >= f->last && ggmlviz__times_fit(s->begin[s->at[0]], done);
}

/* Whether the shares f found are those of the thread's set, which still stands. */
static int same_set(const struct share_slot *s, const struct found *f,
		    const struct ggmlviz__written *now)
{
	return s->set && f->as_set && ggmlviz__written_same(&s->set_written, now);
}

/* A new set of the graph's k shares, defined by the records about to be written. */
static void set_define(struct share_slot *s, const void *const *nodes, uint32_t k,
		       ggmlviz_node_op_fn op_of)
{
	static _Atomic uint64_t sets; /* ids unique in the process: a slot goes from thread to thread */

	s->set = atomic_fetch_add_explicit(&sets, 1, memory_order_relaxed) + 1;
	s->set_n = k;
	memcpy(s->set_at, s->at, k * sizeof *s->at);
	for (uint32_t j = 0; j < k; j++)
		s->set_node[j] = ggmlviz__addr(nodes[s->at[j]]);
	op_types(s, nodes, k, op_of);
}

/* The shares one by one, as OP_SHARE records (times that do not pack); how many. */
static uint32_t emit_each(const struct share_slot *s, uint64_t done, uint32_t nth,
			  const void *const *nodes, uint32_t k, ggmlviz_node_op_fn op_of)
{
	const uint32_t ith = atomic_load_explicit(&s->ith, memory_order_relaxed);

	for (uint32_t j = 0; j < k; j++) {
		uint32_t i = s->at[j];

		emit_share(s->begin[i], s->end[i], j + 1 < k ? s->begin[s->at[j + 1]] : done,
			   nodes[i], op_of ? op_of(nodes[i]) : 0, i, ith, nth);
	}
	return k;
}

/*
 * Where the thread's SHARE_TIMES REPEAT bodies are copied, as worker 0 of
 * one (NULL: none, or no memory for it: the hand-over then). Its memory
 * was taken with the slot's, when the thread took it as worker 0.
 */
static struct ggmlviz__packed_copy *copy_of(struct share_slot *s, uint32_t nth)
{
	return nth == 1 && s->ith == 0 && s->copy.body ? &s->copy : NULL;
}

/*
 * The calling thread's shares of the graph, those f found (shares_of()),
 * as SHARE_TIMES records on its ring: the times only when its set of
 * shares is that of the graph before (llama.cpp's, at every token), with
 * their nodes and op types when it is new. Returns how many shares.
 */
static int emit_shares(struct share_slot *s, const struct found *f, uint64_t done, uint32_t nth,
		       const void *const *nodes, ggmlviz_node_op_fn op_of)
{
	uint32_t k = f->k;
	uint64_t session = atomic_load_explicit(&ggmlviz__state.session, memory_order_relaxed);
	struct ggmlviz__written now = ggmlviz__written_now(session), after;
	struct ggmlviz__shares_pack sp = { 0, GGMLVIZ_DESC_SET_REPEAT, s->ith, nth,
					   { s->begin, s->end, s->at, k }, s->set_node, s->op,
					   done, NULL };

	s->copy.n = 0;
	if (!(ggmlviz__mask_relaxed() & GGMLVIZ__ONCE) || !found_packs(s, f, done))
		return (int)emit_each(s, done, nth, nodes, k, op_of); /* for older readers, or too long */
	if (!same_set(s, f, &now)) {
		set_define(s, nodes, k, op_of);
		sp.mode = GGMLVIZ_DESC_SET_DEFINE;
	} else {
		sp.copy = copy_of(s, nth);
	}
	sp.set = s->set;
	ggmlviz__emit_share_times(&sp);
	after = ggmlviz__written_now(session);
	if (sp.mode == GGMLVIZ_DESC_SET_DEFINE) /* defined if every record of it was written */
		s->set_written = ggmlviz__written_same(&now, &after) ? after
			: (struct ggmlviz__written){ 0, NULL, 0 };
	return (int)k;
}

/* Worker t's slot on board b, if it is still s0's pool's worker t; else NULL. */
static inline struct share_slot *worker_slot(const struct board *b, const struct share_slot *s0,
					     uint32_t t)
{
	struct share_slot *s = atomic_load_explicit(&b->slot[t], memory_order_acquire);

	return s && atomic_load_explicit(&s->pool, memory_order_relaxed) == s0->pool &&
			atomic_load_explicit(&s->ith, memory_order_relaxed) == t
		? s
		: NULL;
}

/*
 * The pool's workers' stamps, as worker s->ith reads them (its own from its
 * slot, the others' from the board): 0 where a worker's slot is not there
 * (it computed nothing of this graph: no op then has every share) or the
 * pool has more workers than are followed.
 */
static int stamps_of(const struct share_slot *s, uint32_t nth, struct ggmlviz__spans *sp)
{
	if (!s->board || nth > GGMLVIZ__FOLD_WORKERS)
		return 0;
	for (uint32_t t = 0; t < nth; t++) {
		const struct share_slot *w = t == s->ith ? s : worker_slot(s->board, s, t);

		if (!w)
			return 0;
		sp->begin[t] = w->begin;
		sp->end[t] = w->end;
	}
	sp->k = nth;
	return 1;
}

/*
 * The graph's slices: one for each worker but thread 0, whose own work
 * after the graph is the run's. Their size is worked out again only when
 * the graph's size or workers change: no division at every graph.
 */
static uint32_t chunk_of(struct share_slot *s, uint32_t nth, uint32_t n)
{
	if (s->fold_n != n || s->fold_nth != nth) {
		s->chunk = ggmlviz__fold_chunk(n, nth - 1);
		s->fold_n = n;
		s->fold_nth = nth;
	}
	return s->chunk;
}

/*
 * Worker ith (not 0): its slice of the graph's spans folded (fold.h), then
 * marked on the board: with thread 0's begin of the graph's first node as
 * the fold read it (thread 0 takes the slice only where that is its own:
 * the board may name another thread 0 since), and with the worker's own
 * begin of it, which no fold of another graph has, even one held up past
 * the next graph's start, where thread 0's begin it read may already be
 * that graph's. Release stores: thread 0's acquire loads of both then see
 * the fold's stores. A fold whose thread 0 begin is not before the
 * worker's own last end (`ended`) is not worth doing: that begin is a
 * later graph's, thread 0 is past this one.
 */
static void fold_own(struct share_slot *s, uint32_t nth, uint32_t n, uint64_t floor,
		     uint64_t ended)
{
	struct ggmlviz__spans sp;
	uint32_t chunk = chunk_of(s, nth, n), from = (s->ith - 1) * chunk, first = 0;
	struct fold_mark *m;
	uint64_t id;

	if (!s->board || atomic_load_explicit(&s->board->reused, memory_order_relaxed) ||
	    !stamps_of(s, nth, &sp))
		return;
	while (first < n && !has_share(s, floor, first))
		first++;
	id = first < n ? ggmlviz__stamp_load(&sp.begin[0][first]) : 0;
	if (!id || id >= ended)
		return;
	if (from < n)
		ggmlviz__fold_slice(s->fold_first, s->fold_latest, s->fold_last, sp.begin, sp.end, nth,
				    from, n - from > chunk ? from + chunk : n);
	m = &s->board->mark[s->ith];
	atomic_store_explicit(&m->key, s->begin[first], memory_order_release);
	atomic_store_explicit(&m->id, id, memory_order_release);
}

/* Every cache line of the n stamps at `at` asked for (a prefetch never faults). */
static inline void lines_ahead(const uint64_t *at, uint32_t n)
{
	uintptr_t line = (uintptr_t)at & ~(uintptr_t)(GGMLVIZ__CACHE_LINE - 1);

	for (; n && line <= (uintptr_t)&at[n - 1]; line += GGMLVIZ__CACHE_LINE)
		__builtin_prefetch((const void *)line);
}

/*
 * Thread 0 of two, as the graph ends: the worker's stamps of its n nodes
 * fetched into its cache while it writes its own shares, lines the
 * worker wrote in its own cache, each a transfer from another core:
 * fetched together, they overlap one another and the thread's own work.
 */
static void stamps_ahead(const struct share_slot *s0, uint32_t n)
{
	const struct share_slot *w = s0->board ? worker_slot(s0->board, s0, 1) : NULL;

	if (w) {
		lines_ahead(w->begin, n);
		lines_ahead(w->end, n);
	}
}

/*
 * Worker t's folded slice, if its marks are this graph's: thread 0's own
 * begin of its first node (id, at place p0) and the worker's own begin of
 * it; the acquire loads order the fold's stores before the slice's loads.
 * The worker's stamps are still (the graph's last barrier is behind it,
 * the next graph not begun), unless its thread ended and another took its
 * slot (a relaxed load); the marks, a worker still folding may store.
 */
static const struct share_slot *folded_slice(const struct board *b,
					     const struct share_slot *s0, uint32_t t,
					     uint64_t id, uint32_t p0)
{
	const struct fold_mark *m = &b->mark[t];
	const struct share_slot *w;

	if (atomic_load_explicit(&m->id, memory_order_acquire) != id || !(w = worker_slot(b, s0, t)))
		return NULL;
	return atomic_load_explicit(&m->key, memory_order_acquire) == ggmlviz__stamp_load(&w->begin[p0])
		? w
		: NULL;
}

/*
 * Thread 0: each worker's folded slice whose marks are this graph's, its
 * lines asked for at once. Returns whether every slice was taken; those
 * not taken are read from the stamps.
 */
static int folds_taken(struct share_slot *s0, uint32_t nth, uint32_t n, uint32_t p0,
		       struct ggmlviz__spans *sp)
{
	const struct board *b = s0->board;
	const uint64_t id = s0->begin[p0];
	uint32_t from = 0;
	int all = 1;

	if (atomic_load_explicit(&b->reused, memory_order_relaxed))
		return 0;
	sp->chunk = chunk_of(s0, nth, n);
	sp->slices = nth - 1;
	for (uint32_t t = 1; t < nth; t++, from += sp->chunk) {
		const struct share_slot *w = folded_slice(b, s0, t, id, p0);
		uint32_t len = from < n ? (n - from < sp->chunk ? n - from : sp->chunk) : 0;

		sp->first[t - 1] = w ? w->fold_first : NULL;
		sp->latest[t - 1] = w ? w->fold_latest : NULL;
		sp->last[t - 1] = w ? w->fold_last : NULL;
		if (w) {
			lines_ahead(w->fold_first + from, len);
			lines_ahead(w->fold_last + from, len);
		}
		all &= w != NULL;
		tls_folds_taken += w != NULL;
	}
	return all;
}

/*
 * Thread 0: each node's first begin and last end, over the pool's
 * workers, to the node engine; only the nodes of its own `own` shares
 * (emit_shares() left their places in s0->at): a node every worker
 * computed a share of is one of them, and a view, of no share, is not
 * looked at again. The workers' stamps are read only where a slice was
 * not folded for this graph, or where none is folded (one or two workers).
 */
static void hand_over(struct share_slot *s0, uint32_t nth, uint32_t n, uint64_t floor,
		      const void *const *nodes, uint32_t own)
{
	struct ggmlviz__spans sp;

	if (!own || nth > GGMLVIZ__FOLD_WORKERS)
		return; /* more workers than followed: the ticks' estimate stays */
	sp.floor = floor;
	sp.slices = sp.chunk = 0;
	if ((nth < FOLDED_FROM || !folds_taken(s0, nth, n, s0->at[0], &sp)) &&
	    !stamps_of(s0, nth, &sp))
		return; /* a worker computed nothing of this graph: no measure of every share */
	ggmlviz__nodes_measured_shares(nodes, s0->at, own, &sp);
}

int ggmlviz_cpu_graph_done(const void *pool, int ith, int nth, const void *const *nodes,
			   int n_nodes, ggmlviz_node_op_fn op_of)
{
	struct share_slot *s = tls_slot;
	uint64_t done, floor, ended = ggmlviz__tls_node.last_end; /* its last share's end */
	struct found f;
	uint32_t n;
	int count;

	ggmlviz__tls_node.last_end = 0; /* the next graph's first share_next() reads the time */
	if (!s || s->pool != pool || s->ith != (uint32_t)ith)
		return 0;
	if (!nodes || n_nodes < 0 || nth < 1)
		return shares_wanted() ? -EINVAL : 0;
	done = ggmlviz__stamp();
	floor = s->prev_done;
	s->prev_done = done; /* not tracing too: a share stored before a stop is an earlier graph's */
	if (!shares_wanted() || ggmlviz__rolling() ||
	    ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_AUTO) {
		ggmlviz__nodes_held_ticks_at(NULL, NULL, 0, floor); /* in every mode, as ticks are */
		return 0; /* rolling mode sums the ticks; sync mode times each node alone */
	}
	n = (uint32_t)n_nodes < GGMLVIZ__SHARE_NODES ? (uint32_t)n_nodes : GGMLVIZ__SHARE_NODES;
	if (nth >= (int)FOLDED_FROM && ith > 0 && nth <= (int)GGMLVIZ__FOLD_WORKERS)
		fold_own(s, (uint32_t)nth, n, floor, ended); /* first: thread 0 reads it soon */
	else if (nth == 2 && ith == 0)
		stamps_ahead(s, n);
	/* an earlier graph's copy, held by the thread's run, before this graph's end writes over
	 * it and its places: as whichever worker (a slot taken again for another pool) */
	ggmlviz__nodes_copy_settle();
	f = shares_of(s, floor, n, nodes);
	ggmlviz__nodes_held_ticks_at(s->end, s->at, f.k, floor);
	count = emit_shares(s, &f, done, (uint32_t)nth, nodes, op_of);
	if (ith == 0) {
		/* one worker: its shares' times are the ops', and the run takes their copy (n: 0
		 * where none was made, emit_shares()) */
		if (!ggmlviz__nodes_measured_copy(&s->copy, s->set_at, s->set_node, s->set))
			hand_over(s, (uint32_t)nth, n, floor, nodes, (uint32_t)count);
		if (GGMLVIZ__UNLIKELY(!atomic_load_explicit(&said.measured, memory_order_relaxed)))
			atomic_store_explicit(&said.measured, 1, memory_order_relaxed);
	}
	return count;
}

void ggmlviz__shares_unload(void)
{
	tls_slot = NULL;
	node_line_of(NULL);
	ggmlviz__perthread_unload(&slots); /* the live threads' slots join the free ones */
	ggmlviz__inner_lock(&lock);
	while (free_slots) {
		struct share_slot *s = free_slots;
		free_slots = s->next_free;
		slot_free(s);
	}
	memset(boards, 0, sizeof boards);
	ggmlviz__inner_unlock(&lock);
}

uint64_t ggmlviz__shares_folds_taken(void)
{
	return tls_folds_taken;
}

uint64_t ggmlviz__shares_unattributed(void)
{
	return atomic_load(&ggmlviz__state.shares_unasked) + atomic_load(&beyond);
}

void ggmlviz__shares_open(void)
{
	said.unasked = atomic_load(&ggmlviz__state.shares_unasked);
	said.beyond = atomic_load(&beyond);
	atomic_store(&said.measured, 0);
}

void ggmlviz__shares_say(void)
{
	uint64_t unasked = atomic_load(&ggmlviz__state.shares_unasked) - said.unasked;
	uint64_t past = atomic_load(&beyond) - said.beyond;
	char label[320];

	if (!atomic_load(&said.measured) && !unasked && !past)
		return; /* no GGML built with the edit in this session: nothing to say */
	if (!unasked && !past)
		snprintf(label, sizeof label, "every node measured inside GGML's CPU backend went "
			 "to its op");
	else
		snprintf(label, sizeof label, "%llu node shares measured inside GGML's CPU backend "
			 "went to no op: %llu in no run asked about on their graph's thread, "
			 "%llu past the %u nodes of a graph or the %u threads of a pool followed",
			 (unsigned long long)(unasked + past), (unsigned long long)unasked,
			 (unsigned long long)past, GGMLVIZ__SHARE_NODES, POOL_THREADS);
	ggmlviz__emit_meta_shares(unasked + past, past, label);
}
