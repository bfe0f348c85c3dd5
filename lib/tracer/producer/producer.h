/*
 * What runs on the traced program's threads, beyond the inline fast paths
 * of ring.h and emit.h: the registry of thread rings (registry.c), op
 * sampling (sample.c), and the records the node engine stamps with times
 * taken earlier (emit.c). The writer and the session call the registry;
 * nothing here calls them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PRODUCER_H
#define GGMLVIZ_PRODUCER_H

#include <pthread.h>
#include <stdint.h>

#include "tracer/producer/ring.h"

/* ---- the registry of thread rings (registry.c) ---- */

/*
 * Each thread's ring is made on its first event, found through a
 * thread-local pointer, and listed so that the writer can drain it; it is
 * freed after its thread exits.
 */

/* The calling thread's ring, or NULL before its first event. */
extern _Thread_local struct ggmlviz__ring *ggmlviz__tls_ring
	__attribute__((tls_model("initial-exec")));

/* Makes the calling thread's ring (its first event); NULL if out of memory. */
struct ggmlviz__ring *ggmlviz__ring_register(void);

/* The calling thread's ring, made on first use. */
static inline struct ggmlviz__ring *ggmlviz__thread_ring(void)
{
	struct ggmlviz__ring *r = ggmlviz__tls_ring;

	return GGMLVIZ__LIKELY(r != NULL) ? r : ggmlviz__ring_register();
}

/* The list, walked with the lock held. */
void ggmlviz__registry_lock(void);
void ggmlviz__registry_unlock(void);
/* At exit: 1 with the lock, 0 when another thread held it too long (leaving.h). */
int ggmlviz__registry_lock_at_exit(void);
struct ggmlviz__ring *ggmlviz__registry_first(void);

/*
 * The list without the lock, for a crash handler (the lock may be held by
 * the crashed thread): rings are published whole, and freed only by the
 * writer's pass, which the handler has taken over.
 */
struct ggmlviz__ring *ggmlviz__registry_first_unlocked(void);

/*
 * Whether a writer is draining: if so, a thread that exits leaves its ring
 * to the writer (marked exited); if not, the ring is freed at once.
 * Called with the lock held.
 */
void ggmlviz__registry_set_draining(int draining);

/* Removes an exited ring from the list and frees it (lock held). */
void ggmlviz__registry_release(struct ggmlviz__ring *r);

/* Frees the rings of exited threads (lock held, no writer running). */
void ggmlviz__registry_reap(void);

/*
 * In a child after fork(): forget every ring (their threads are not here),
 * unmapping their buffers but calling no free() (async-signal-safe).
 */
void ggmlviz__registry_forget_all(void);

/*
 * The library leaves the process (a plugin that linked it is unloaded; not
 * at the process's exit, where threads may still run): the thread key is
 * deleted, so that no thread that ends later calls into unmapped code, and
 * every ring is freed. The session is stopped already.
 */
void ggmlviz__registry_unload(void);

/* ---- what a node's calls read on its thread, one line (shares.c, nodes.c) ---- */

#define GGMLVIZ__SHARE_NODES 16384u /* nodes of a graph whose shares are followed */

/*
 * A node's work (a decode's weights going through) leaves none of the
 * tracer's lines in the first caches, so each line that a node's calls
 * read is a miss: what they read on the calling thread is on this one.
 *
 * share_end: the stamp of the thread's last ggmlviz_cpu_share_end(),
 * until its next share begins or a tick takes it (0: none). GGML's CPU
 * backend ticks from thread 0 right after that thread's share of the node
 * ends, so the tick needs no time read of its own.
 *
 * last_end: the same stamp, kept until the thread's next share ends (0:
 * none since the slot was taken): where ggmlviz_cpu_share_next() begins
 * a share, with no time read, at one thread.
 *
 * pool, ith, begin, end, floor: the thread's share slot (shares.c), as
 * it was last taken: its pool and index there, its stamps by node, and
 * where its previous graph's end is (NULL: no slot).
 *
 * held, from: ticks held. A tick that takes a measured share's end leaves
 * its stamp where that share's end is: end[i] of the graph's nodes from
 * <= i < GGMLVIZ__SHARE_NODES ended after *floor, the first held of them
 * (from: past those given already this graph). The graph's end gives
 * them to the run in one pass (ggmlviz__nodes_held_ticks_at()), so that a
 * node's tick touches no line of the run; a tick that cannot be held (no
 * share ended) gives those before it first, to keep their order.
 */
struct ggmlviz__tls_node {
	_Alignas(64) uint64_t share_end;
	uint64_t last_end;
	const void *pool;
	uint64_t *begin, *end;
	const uint64_t *floor;
	uint32_t ith, held, from;
};
extern _Thread_local struct ggmlviz__tls_node ggmlviz__tls_node
	__attribute__((tls_model("initial-exec")));

/* ---- what a thread's records stand on (DESC_SET, SHARE_TIMES REPEAT) ---- */

/*
 * A set of descriptions (or of shares) written once and referred to later
 * stands on the session, the thread's ring and the losses when it was
 * written (with the segments a rotated trace began: a new segment holds
 * no set of the one before): while the three are unchanged, no record of
 * the thread was lost since, so the set is still in the file written now.
 * All zero: not written.
 */
struct ggmlviz__written {
	uint64_t session;
	const struct ggmlviz__ring *ring;
	uint64_t lost;
};

/* What the calling thread's records stand on now, in session `session`. */
static inline struct ggmlviz__written ggmlviz__written_now(uint64_t session)
{
	const struct ggmlviz__ring *ring = ggmlviz__thread_ring();

	if (!ring)
		return (struct ggmlviz__written){ 0, NULL, 0 };
	return (struct ggmlviz__written){
		session, ring,
		atomic_load_explicit(&ring->dropped, memory_order_relaxed) +
			atomic_load_explicit(&ring->discarded, memory_order_relaxed) +
			atomic_load_explicit(&ggmlviz__state.lost, memory_order_relaxed) +
			atomic_load_explicit(&ggmlviz__state.segments, memory_order_acquire)
	};
}

static inline int ggmlviz__written_same(const struct ggmlviz__written *a,
					const struct ggmlviz__written *b)
{
	return a->ring && a->session == b->session && a->ring == b->ring && a->lost == b->lost;
}

/* ---- memory a thread makes for itself (perthread.c) ---- */

/*
 * A thread's own state (its run of nodes, its held records, its shares'
 * slot) begins with an item, which lists it: a thread key's destructor
 * frees it when its thread ends, and ggmlviz__perthread_unload() frees
 * every thread's when the library leaves the process.
 */
struct ggmlviz__perthread;
struct ggmlviz__perthread_item {
	struct ggmlviz__perthread_item *next, *prev;
	struct ggmlviz__perthread *owner;
};

/* A kind of state: how to free one (its item), and where they are listed. */
struct ggmlviz__perthread {
	void (*free)(struct ggmlviz__perthread_item *it);
	pthread_key_t key;
	int made; /* the key: 0 not yet, 1 made, -1 could not be made (freed at unload only) */
	struct ggmlviz__perthread_item *all;
};

/* The calling thread's new state of kind pt, freed when the thread ends (a lock: once a thread). */
void ggmlviz__perthread_keep(struct ggmlviz__perthread *pt, struct ggmlviz__perthread_item *it);

/* The library leaves: the key deleted, every thread's state of kind pt freed. */
void ggmlviz__perthread_unload(struct ggmlviz__perthread *pt);

/* The library leaves: the node engine's, the stage's and the shares' state (nodes.c, stage.c, shares.c). */
void ggmlviz__nodes_unload(void);
void ggmlviz__stage_unload(void);
void ggmlviz__shares_unload(void);

/* ---- op sampling (sample.c) ---- */

/*
 * The ops of 1 step (or graph) in op_sample are timed, per thread, counted
 * down without a division. A unit is the outermost step or graph open on a
 * thread; ops outside any unit are always timed.
 */

/* A step or graph begins on the calling thread. */
void ggmlviz__unit_begin(void);
/* It ends. */
void ggmlviz__unit_end(void);
/* Whether the calling thread's current unit has its ops timed one by one. */
int ggmlviz__unit_sampled(void);
/* Whether a step or graph is open on the calling thread. */
int ggmlviz__unit_open(void);
/*
 * Rolling mode (base.h): whether the calling thread's runs are held now
 * (stage.c), a unit being open.
 */
int ggmlviz__unit_staged(void);
/*
 * The calling thread's unit is about to end (before its END record): if
 * it is the outermost, its held runs are recorded, op by op where it is
 * sampled or slow, else summed. Returns 1 when it is inside an outer one
 * in rolling mode (its END record is to be held too), else 0.
 */
int ggmlviz__unit_closing(void);

/* ---- a unit's runs, held until it ends (stage.c) ---- */

/*
 * In rolling mode the node engine hands a unit's SPLIT and nested GRAPH
 * records and its ops to the stage, in the order it would record them;
 * at the unit's end they are recorded as they were (keep), or the SPLIT
 * and GRAPH records with one OP_SUMMARY per op type and backend in place
 * of the ops. Memory: up to GGMLVIZ__STAGE_MAX ops a thread, made off
 * the emit path (as the node engine's own arrays); past it the unit is
 * summed.
 */
#define GGMLVIZ__STAGE_MAX 65536u

struct ggmlviz_node_desc;
struct ggmlviz__split;

void ggmlviz__stage_split(uint64_t ts, uint8_t type, const struct ggmlviz__split *s);
void ggmlviz__stage_graph(uint64_t ts, uint8_t type, uint64_t graph, uint32_t n_nodes,
			  uint32_t n_threads, uint64_t backend);
void ggmlviz__stage_op(const void *backend, const struct ggmlviz_node_desc *d, const void *node,
		       uint64_t begin, uint64_t end, uint8_t method, uint8_t flags);
/* Records what the calling thread holds (keep: op by op) and empties it. */
void ggmlviz__stage_flush(int keep);

/* ---- a node's records (node-records.c), for the node engine and the stage ---- */

/*
 * An op's records (begin, info, bytes, node, end) at the stamps begin and
 * end; only begin and end (and its node if flags) when described: a
 * DESC_SET REPEAT before it says where its descriptions are.
 */
void ggmlviz__nodes_record_op(const void *backend, const struct ggmlviz_node_desc *d,
			      const void *node, uint64_t begin, uint64_t end, uint8_t method,
			      uint8_t flags, int described);
/* The op type a node's records carry (a fused pair's), its name recorded once. */
uint32_t ggmlviz__nodes_op_type(const struct ggmlviz_node_desc *d);

/* ---- records stamped with a time taken earlier (emit.c) ---- */

/*
 * The node engine (nodes.c) records a run's ops once the run has ended, at
 * the raw stamps (clock.h) of its ticks.
 */

/* What a STEP record holds (both begin and end). */
struct ggmlviz__step {
	uint64_t ctx;
	uint32_t n_tokens, n_outputs, phase;
	int32_t status;
};

/* What a SPLIT record holds (both begin and end; run_id at the begin only). */
struct ggmlviz__split {
	uint64_t first, backend;
	uint32_t n_nodes, n_timed, ticks, expected;
	uint64_t run_id;
};

/*
 * What a KERNEL record holds. Its times are the trace's nanoseconds
 * already, converted by the GPU's sink from the GPU's clock: the writer
 * leaves them as they are (span.c).
 */
struct ggmlviz__kernel_rec {
	uint64_t duration_ns, run_id;
	uint32_t correlation, stream, device;
};

/*
 * The CPU backend's measured times of a graph's nodes (shares.c's
 * hand-over), on the thread that computes the graph: the n places of
 * its own shares, in order (a node it began no share of is no node of
 * this graph, and is not looked at), their spans over the graph's
 * workers read from sp (fold.h: the workers' folded slices where they
 * are this graph's, else their stamps). Each node that every worker
 * computed a share of gets its shares' first begin and last end, the
 * graph's first such node its last worker's begin (their start is the
 * run's), and a begin read before the end of the node before it (two
 * cores' counters) that end. A node of no open run is counted
 * (ggmlviz__state.shares_unasked).
 */
struct ggmlviz__spans;
void ggmlviz__nodes_measured_shares(const void *const *nodes, const uint32_t *places, uint32_t n,
				    const struct ggmlviz__spans *sp);
struct ggmlviz__packed_copy;
/*
 * The same at one thread, from the n times c holds (packed.h): the
 * graph's nodes of the thread's shares at places[j], node[j] (their
 * addresses), of its share set `set`, in place of the hand-over. The
 * open run keeps c, to write its OP_TIMES from it at its end (or its
 * times by place, ggmlviz__run_copy_settle()), until the thread's next
 * graph's end, as whichever worker, which first gives them by place
 * (ggmlviz__nodes_copy_settle()): only a graph's end writes over places,
 * node and c. Returns 1 if the run took them; 0 (no times in c, none
 * open, or one holding measured times already): the hand-over then
 * gives them.
 */
int ggmlviz__nodes_measured_copy(const struct ggmlviz__packed_copy *c, const uint32_t *places,
				 const uint64_t *node, uint64_t set);
/*
 * A session of steps alone, or none (steps-asks.c): the splits a thread saw asked
 * in full, whose repeats ggmlviz_nodes_ask_rest() takes at once, kept in
 * the thread's run state (run.h; its static TLS stays small: the library
 * may be loaded twice into a process, each copy's TLS in its static block).
 */
#define GGMLVIZ__SPLITS_SEEN 8u /* llama.cpp's: a decode's split or two a backend */
struct ggmlviz__split_seen {
	uint64_t session, id;
	const void *user, *first, *last;
	uint32_t n;
	unsigned mask; /* the mask's ACTIVE and MEMORY bits: asked in full again when they change */
};
struct ggmlviz__steps_seen {
	struct ggmlviz__split_seen seen[GGMLVIZ__SPLITS_SEEN];
	uint32_t next; /* where the next split seen goes */
};
/* A new split is being asked (ggmlviz_nodes_split()); */
void ggmlviz__steps_split(void);
/* its asks each have work to do (ggmlviz_nodes_ask_always(), no run open): not kept in t; */
void ggmlviz__steps_ask_always(struct ggmlviz__steps_seen *t);
/*
 * the asks from `from` of split id's n nodes: n if t holds it, seen asked
 * in full, else from (t NULL: no memory for it, from).
 */
int ggmlviz__steps_ask_rest(struct ggmlviz__steps_seen *t, uint64_t id, const void *user,
			    const void *const *nodes, int from, int n);
/* The calling thread's run's copy of an earlier graph's times, given by place (none: nothing). */
void ggmlviz__nodes_copy_settle(void);
/*
 * The ticks the calling thread holds (ggmlviz__tls_node), given to its
 * open run in their order, each at its share's end, as each tick would
 * have taken it; none held after. graph_end: the graph's last (the next
 * graph's are looked for from its first node), else a tick that could not
 * be held follows.
 */
void ggmlviz__nodes_held_ticks(int graph_end);
/*
 * The same at a graph's end, from the places at[0, k) of the thread's k
 * shares of it (end: their stamps), which the graph's end found anyway:
 * where k ticks are held, the first since the graph began, each is one
 * of those shares' end; else as ggmlviz__nodes_held_ticks(1) does, past
 * floor. A tick is held only right after a share's end, so a share whose
 * begin was not kept (a session started inside it), and whose end the
 * held ticks take too, makes them more than the shares. A second pass
 * over the graph's places, views too, took 22 instructions an op on the
 * graph's thread.
 */
void ggmlviz__nodes_held_ticks_at(const uint64_t *end, const uint32_t *at, uint32_t k,
				  uint64_t floor);
/* Shares no op got since the process started: no run asked, or past what a slot holds. */
uint64_t ggmlviz__shares_unattributed(void);
/* The workers' folded slices the calling thread took as thread 0 (fold.h), for tests. */
uint64_t ggmlviz__shares_folds_taken(void);
/* A session starts: what META SHARES will count from (the session's lock held). */
void ggmlviz__shares_open(void);
/* A session stops, still active: its META SHARES, where shares were measured or lost. */
void ggmlviz__shares_say(void);

/* OP_COMPUTE_BEGIN or _END at ts. */
void ggmlviz__emit_op_at(uint64_t ts, uint8_t type, uint64_t tensor, uint32_t op_type,
			 uint64_t size, uint64_t backend, const char *label);
/* OP_INFO at ts. */
void ggmlviz__emit_op_info_at(uint64_t ts, uint64_t tensor, const int64_t ne[4], uint64_t flops,
			      const char *type_name);
/* OP_BYTES at ts. */
void ggmlviz__emit_op_bytes_at(uint64_t ts, uint64_t tensor, uint64_t bytes_read,
			       uint64_t bytes_written);
/* OP_NODE at ts (src: two addresses). */
void ggmlviz__emit_op_node_at(uint64_t ts, uint64_t tensor, int32_t layer, uint8_t method,
			      uint8_t flags, const uint64_t src[2]);
/* DESC_SET at ts (nodes.c); 1 if written, 0 if not (not recording ops, or dropped). */
int ggmlviz__emit_desc_set_at(uint64_t ts, uint64_t set, uint32_t n_ops, uint8_t mode,
			      uint8_t method, uint64_t graph_id);
/* SPLIT_BEGIN or _END at ts. */
void ggmlviz__emit_split_at(uint64_t ts, uint8_t type, const struct ggmlviz__split *s);
/* STEP_BEGIN or _END at ts, labelled label (may be NULL). */
struct ggmlviz__step;
void ggmlviz__emit_step_at(uint64_t ts, uint8_t type, const struct ggmlviz__step *s,
			   const char *label);
/* GRAPH_COMPUTE_BEGIN or _END at ts. */
void ggmlviz__emit_graph_at(uint64_t ts, uint8_t type, uint64_t graph, uint32_t n_nodes,
			    uint32_t n_threads, uint64_t backend);

/*
 * What an OP_SUMMARY record holds. In the ring total and max are raw stamp
 * differences: the writer makes them nanoseconds at the rate of the
 * record's own stretch of the clock (span.c).
 */
struct ggmlviz__op_summary {
	uint32_t op_type, count;
	uint64_t total_stamps, backend, max_stamps;
};

/* OP_SUMMARY at ts. */
void ggmlviz__emit_op_summary_at(uint64_t ts, const struct ggmlviz__op_summary *s);
/* KERNEL at start_ns (the trace's nanoseconds, not a stamp) on the GPU track `track`, named name. */
void ggmlviz__emit_kernel_at(uint64_t start_ns, uint32_t track,
			     const struct ggmlviz__kernel_rec *k, const char *name);

/* A META ROUTE record (base.h): the calling thread's records after it go to `route`. */
void ggmlviz__emit_route(uint32_t route);

/* META SHARES: the session's unattributed shares (shares.c), of which beyond the slots. */
void ggmlviz__emit_meta_shares(uint64_t unattributed, uint64_t beyond, const char *label);

/*
 * A META GPU record from the calling thread: what became of GPU kernels
 * after the session's start (CUPTI loaded at the first CUDA split, or not,
 * and why; at the end, the figures): key = KERNEL records so far, value =
 * 1 if kernels are recorded, value2 = GPU records left out (incomplete).
 */
void ggmlviz__emit_meta_gpu(uint64_t kernels, uint64_t recorded, uint64_t left_out,
			    const char *label);

/*
 * A META GPU_WINDOW record from the calling thread (gpu/window.c): the
 * state (enum ggmlviz_gpu_window) of the units that begin from here on,
 * in window `window`; sample = K << 32 | N.
 */
void ggmlviz__emit_meta_gpu_window(uint64_t window, uint64_t state, uint64_t sample,
				   const char *label);

/* THREAD_FREE for the calling thread, if thread tracking is on (the thread-exit hook). */
void ggmlviz__emit_thread_free(void);

#endif /* GGMLVIZ_PRODUCER_H */
