/*
 * Descriptions given once (ggmlviz(5), DESC_SET): the sets of op
 * descriptions a trace's threads defined, and the ops of a run that
 * repeats one given theirs. pairing.c feeds it the DESC_SET records, the
 * ends of the threads' runs, and each op timing as it completes.
 *
 * Memory stays bounded, however many threads come and go: a thread keeps
 * the GGMLVIZ__DESC_SETS sets it used last (the tracer uses 4 at most),
 * GGMLVIZ__DESC_SETS_ALL sets and GGMLVIZ__DESC_OPS ops are kept in all
 * (about 40 MiB), the least recently used set of any thread going first
 * when room is needed, and a thread's state goes with its last set, its
 * run's end or its THREAD_FREE (GGMLVIZ__DESC_THREADS are followed at
 * once at most). A REPEAT run's op whose set or description was not kept
 * stays as it came, and is counted (ggmlviz__descs_undescribed()).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_DESCS_H
#define GGMLVIZ_DESCS_H

#include <stdint.h>

#include <ggmlviz/reader.h>

#include "util/map.h"

#define GGMLVIZ__DESC_SETS 16u
#define GGMLVIZ__DESC_SETS_ALL 16384u /* sets of every thread together */
#define GGMLVIZ__DESC_THREADS 65536u  /* threads followed at once (as the pairing engine's) */
#define GGMLVIZ__DESC_OPS 262144u /* ops described in all sets together (a llama.cpp graph: 500 to 3000) */

/* What a timing was described with by records of its own (OP_INFO, OP_BYTES, OP_NODE). */
enum {
	GGMLVIZ__DESC_INFO = 1,
	GGMLVIZ__DESC_BYTES = 2,
	GGMLVIZ__DESC_NODE = 4
};

struct ggmlviz__desc_thread;
struct set;

struct ggmlviz__descs {
	struct ggmlviz__desc_thread *threads;
	uint32_t n_threads, cap_threads, last; /* slots made, room, the last found */
	uint32_t free_thread, live_threads;    /* the free slots' list, the slots in use */
	struct ggmlviz__map thread_index;      /* tid -> index in threads */
	struct set *sets;
	uint32_t n_sets, cap_sets, free_set, live_sets;
	uint32_t oldest, newest;       /* the sets by last use, across threads */
	uint64_t clock;                /* sets used, for the least recently used */
	uint32_t ops;                  /* ops kept in all sets */
	uint64_t undescribed;          /* REPEAT runs' ops left without their descriptions */
	struct ggmlviz__map names;     /* hash of a name (type, tensor) -> its copy */
};

/* An empty engine (the lists' ends set). */
void ggmlviz__descs_init(struct ggmlviz__descs *d);

/* A DESC_SET record: the run that follows on its thread uses its set. 0 or -ENOMEM. */
int ggmlviz__descs_set(struct ggmlviz__descs *d, const struct ggmlviz_event *ev);

/* A SPLIT_END: the run of its thread ended, and with it any set's hold on its ops. */
void ggmlviz__descs_run_end(struct ggmlviz__descs *d, uint32_t tid);

/* A THREAD_FREE: the thread is gone, and its sets with it (its tid may come back: a new thread). */
void ggmlviz__descs_thread_end(struct ggmlviz__descs *d, uint32_t tid);

/* REPEAT runs' ops that were left without the descriptions they lacked. */
uint64_t ggmlviz__descs_undescribed(const struct ggmlviz__descs *d);

/*
 * An op timing just completed, which described itself with the `has`
 * bits: kept in its run's set (DEFINE), or given what it lacks from it
 * (REPEAT). Out of memory or room, the op is not kept.
 */
void ggmlviz__descs_op(struct ggmlviz__descs *d, struct ggmlviz_timing *t, unsigned has);

/*
 * Op k of the run of thread tid that repeats set `set` (an OP_TIMES
 * record's): t's identity (kind, tensor, op type, size, backend, label)
 * and descriptions as its op k had them in the set's DEFINE run; 1, or 0
 * when the set, or its op k, was not kept (the op is counted as
 * undescribed, and has no timing: nothing says which op it was).
 */
int ggmlviz__descs_times_op(struct ggmlviz__descs *d, uint32_t tid, uint64_t set, uint32_t k,
			    struct ggmlviz_timing *t);

/*
 * A SHARE_TIMES DEFINE of thread tid: shares [first, first + n) of its set
 * of shares `set`, their identities in ids (a DEFINE body); a set begins
 * at first 0, and a later part is kept only where the one before was.
 * 0 or -ENOMEM. Sets of shares are kept as sets of descriptions are.
 */
int ggmlviz__descs_share_define(struct ggmlviz__descs *d, uint32_t tid, uint64_t set,
				uint32_t first, uint32_t n, const uint8_t *ids);

/*
 * Share k of thread tid's set of shares: t's ptr, op_type and n_nodes (its
 * place); 1, or 0 if not kept.
 */
int ggmlviz__descs_share(struct ggmlviz__descs *d, uint32_t tid, uint64_t set, uint32_t k,
			 struct ggmlviz_timing *t);

/* n ops (or shares) of a packed record whose body does not hold them: counted as undescribed. */
void ggmlviz__descs_unread(struct ggmlviz__descs *d, uint64_t n);

/* Frees everything; the engine is empty again. */
void ggmlviz__descs_free(struct ggmlviz__descs *d);

#endif /* GGMLVIZ_DESCS_H */
