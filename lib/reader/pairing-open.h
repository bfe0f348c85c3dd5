/*
 * The inside of a pairing engine and its set of open begins
 * (pairing-open.c), on which pairing.c (events, timings, the public
 * functions) builds.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PAIRING_INTERNAL_H
#define GGMLVIZ_PAIRING_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "reader/descs.h"
#include "reader/pairing-gpu.h"
#include "reader/requests.h"
#include "reader/unpack.h"
#include "util/map.h"

#define GGMLVIZ__NIL UINT32_MAX /* no entry */
#define GGMLVIZ__OVER (UINT32_MAX - 1) /* no entry: past a limit of <ggmlviz/reader.h> */

/* Links of an entry in a list kept newest first, whose head is the newest. */
struct links {
	uint32_t older, newer;
};

/* The lists an open entry may be on, besides the chain of its key. */
enum {
	LIST_GRAPHS = 0,   /* graph: all open graphs; step: all open steps */
	LIST_CHILDREN = 0, /* op: the ops of its parent graph (an op is on no graph list) */
	LIST_THREAD = 1,   /* graph (step): the open graphs (steps) of its thread */
	LIST_COUNT = 2
};

struct open_item {
	uint64_t key;            /* map key of its chain */
	struct links chain;      /* chain of its key; chain.older also links the free list */
	struct links list[LIST_COUNT];
	uint32_t thread;         /* index in ggmlviz_pairing::threads */
	uint32_t children;       /* graph: the newest op of its thread inside it, or GGMLVIZ__NIL */
	uint32_t parent;         /* op: the graph it is a child of, or GGMLVIZ__NIL */
	struct ggmlviz_timing t; /* what is known at the begin */
	uint8_t has;             /* op: its own descriptions (GGMLVIZ__DESC_INFO, ...) */
};

struct thread_state {
	uint32_t tid;
	uint32_t open;   /* open begins of this thread */
	uint32_t graphs; /* its innermost open graph, or GGMLVIZ__NIL */
	uint32_t steps;  /* its innermost open step, or GGMLVIZ__NIL */
};

struct ggmlviz_pairing {
	struct open_item *items;
	uint32_t capacity;
	uint32_t free_head;
	struct ggmlviz__map open; /* key -> newest item of the key */

	struct thread_state *threads;
	uint32_t n_threads, threads_capacity; /* slots made, room */
	uint32_t free_thread, sweep_at;   /* free slots, and when to look for more (pairing-open.c) */
	struct ggmlviz__map thread_index; /* tid -> index in threads */
	uint32_t last_thread;             /* the index found last: events come in runs */

	uint32_t graphs; /* the most recently begun open graph, or GGMLVIZ__NIL */
	uint64_t graph_seq;
	uint32_t steps;  /* the most recently begun open step, or GGMLVIZ__NIL */
	uint64_t step_seq;
	uint8_t gpu_window; /* the state of the steps begun now (META GPU_WINDOW) */
	struct ggmlviz_pairing_counts counts;
	struct ggmlviz__ties gpu; /* GPU runs waiting for their kernels, and what they completed */
	struct ggmlviz__requests requests; /* a server's open requests */
	struct ggmlviz__descs descs; /* descriptions given once (DESC_SET) */
	struct ggmlviz__unpack unpack; /* the packed record being given out (OP_TIMES, SHARE_TIMES) */
};

/* What an end must match: kind, thread, and address or scope label. */
struct ggmlviz__identity {
	int kind;
	uint32_t tid;
	uint64_t ptr;      /* tensor or graph address; 0 for scopes */
	const char *label; /* scopes: the label that names them */
	uint32_t label_len;
	uint64_t key; /* ggmlviz__pairing_key() of the above */
};

/* The identity of a begin or end event of that kind and address. */
struct ggmlviz__identity ggmlviz__identity_of(int kind, const struct ggmlviz_event *ev,
					      uint64_t ptr);

/*
 * A new open entry for a begin of this identity, the newest of its
 * identity; GGMLVIZ__NIL if out of memory, GGMLVIZ__OVER past the limits
 * of open begins and threads. Its key, chain and thread are
 * set; the caller fills its timing, then calls ggmlviz__open_place().
 */
uint32_t ggmlviz__open_insert(struct ggmlviz_pairing *p, const struct ggmlviz__identity *id);

/*
 * Counts a new entry as open, at its depth on its thread; numbers a new
 * graph, or ties an op or scope to the graph around it.
 */
void ggmlviz__open_place(struct ggmlviz_pairing *p, uint32_t i);

/* The most recent open begin of this identity, or GGMLVIZ__NIL. */
uint32_t ggmlviz__open_find(const struct ggmlviz_pairing *p, const struct ggmlviz__identity *id);

/*
 * Fills t's step_seq, n_tokens and phase from the step open around a
 * record of thread tid (its innermost, else the newest of any thread).
 */
void ggmlviz__open_step_around(struct ggmlviz_pairing *p, uint32_t tid, struct ggmlviz_timing *t);

/*
 * Fills t's depth, graph_seq and step fields as for an op that began and
 * ended on thread tid now (an op of an OP_TIMES record, which has no
 * begin record of its own).
 */
void ggmlviz__open_around(struct ggmlviz_pairing *p, uint32_t tid, struct ggmlviz_timing *t);

/*
 * A META GPU_WINDOW of thread tid: the steps begun from now on are in that
 * state, and so is the step open on tid (CUPTI attached inside it), for
 * what begins in it from now on and for itself.
 */
void ggmlviz__open_gpu_window(struct ggmlviz_pairing *p, uint32_t tid, uint8_t state);

/* Forgets an open entry, ended or abandoned (a graph abandons its open ops). */
void ggmlviz__open_close(struct ggmlviz_pairing *p, uint32_t i);

/* Forgets every open entry, keeping the memory for reuse. */
void ggmlviz__open_clear(struct ggmlviz_pairing *p);

/*
 * The map key of an open begin: kind, thread, and address (or, for a
 * scope, ggmlviz__pairing_label_hash() of its label). Different begins may
 * share a key: the engine compares them in full. Exposed for tests.
 */
uint64_t ggmlviz__pairing_key(int kind, uint32_t tid, uint64_t ptr);
uint64_t ggmlviz__pairing_label_hash(const char *label, uint32_t len);

/* Entries allocated by the engine's pool (for tests: memory follows what is open). */
uint32_t ggmlviz__pairing_pool_size(const struct ggmlviz_pairing *p);

/* Thread states allocated (for tests: threads that come and go take no more). */
uint32_t ggmlviz__pairing_thread_slots(const struct ggmlviz_pairing *p);

/* Forgets every open begin, every count and every set of descriptions, and numbers graphs from 1 again (pairing.c). */
void ggmlviz__pairing_reset(struct ggmlviz_pairing *p);

#endif /* GGMLVIZ_PAIRING_INTERNAL_H */
