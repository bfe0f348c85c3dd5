/*
 * NVIDIA's CUPTI as libggmlviz uses it, inside gpu/: the library loaded at
 * run time and what it says in words (cupti-lib.c), the activity buffers
 * handed to it (cupti-pool.c), the records it hands back (cupti-records.c);
 * the client on top of them (cupti.c). Compiled only where CUPTI's headers
 * were found (configure --with-cupti).
 *
 * Bottom to top: cupti-lib.c calls nothing of gpu/; cupti-pool.c reads
 * the version cupti-lib.c loaded; cupti-records.c gives back to the pool
 * and feeds the sink; cupti.c calls them all and the windows.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CUPTI_H
#define GGMLVIZ_CUPTI_H

#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

/* ---- the library (cupti-lib.c) ---- */

/*
 * The functions of libcupti used here. The optional ones are NULL where
 * the library predates them: subscribe_v2 (names another profiler, CUDA
 * 12.9), enable_runtime_api and enable_driver_api (API records of single
 * calls, CUDA 12.5), set_attribute.
 */
struct ggmlviz__cupti_api {
	CUptiResult (*get_version)(uint32_t *);
	CUptiResult (*subscribe)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
	CUptiResult (*unsubscribe)(CUpti_SubscriberHandle);
	CUptiResult (*enable_callback)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain,
				       CUpti_CallbackId);
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
					  CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*enable)(CUpti_ActivityKind);
	CUptiResult (*disable)(CUpti_ActivityKind);
	CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t);
	CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t *);
	CUptiResult (*timestamp)(uint64_t *);
	CUptiResult (*result_string)(CUptiResult, const char **);
	CUptiResult (*subscribe_v2)(CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *,
				    CUpti_SubscriberParams *);
	CUptiResult (*enable_runtime_api)(CUpti_CallbackId, uint8_t);
	CUptiResult (*enable_driver_api)(CUpti_CallbackId, uint8_t);
	CUptiResult (*set_attribute)(CUpti_ActivityAttribute, size_t *, void *);
	CUptiResult (*finalize)(void);
	CUptiResult (*enable_domain)(uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain);
};

/* The loaded library's functions, version and path (set by ggmlviz__cupti_load). */
extern struct ggmlviz__cupti_api ggmlviz__cupti_api;
extern uint32_t ggmlviz__cupti_version;
extern char ggmlviz__cupti_path[256];

/*
 * Loads libcupti, once: from path, a list of candidates separated by ':'
 * (GGML_VIZ_CUPTI), or from where it usually is (CUDA 13's, 12's, 11.8's
 * where the dynamic loader finds them, then /usr/local/cuda's); the first
 * that loads, has every function and is of a version this build reads
 * is kept, the others closed again, so that a CUDA 12 build on a host that
 * also has CUDA 13's CUPTI records through the one it can read. A library
 * that was subscribed to stays loaded (its threads run). 0; -1 with why
 * (none would load, or each lacked a function or was of another version:
 * the last one's reason, and how many were tried); -2 when none was found
 * and none was named (a machine without CUDA's tools: nothing worth saying
 * unasked).
 */
int ggmlviz__cupti_load(const char *path, char *why, size_t size);

/* Unloads a library that was never subscribed to (a CUPTI that refused). */
void ggmlviz__cupti_unload(void);

/*
 * Whether the loaded CUPTI survives a request callback that gives no
 * buffer: from API version 27 (CUDA 12.9) on; before, it dereferences it.
 */
int ggmlviz__cupti_null_buffer_ok(void);

/* CUPTI's name for rc ("CUPTI_ERROR_UNKNOWN"). */
const char *ggmlviz__cupti_error(CUptiResult rc);

/*
 * Why CUPTI refused `what` with rc, in words, into why: the NVIDIA
 * driver missing from the process or older than this CUPTI (asked of
 * libcuda), else CUPTI's own word.
 */
void ggmlviz__cupti_refused(const char *what, CUptiResult rc, char *why, size_t size);

/* ---- the buffers (cupti-pool.c) ---- */

#define GGMLVIZ__CUPTI_BUFFER_BYTES ((size_t)1 << 20)

/*
 * A pool of buffers for this session, about bytes in all: buffers CUPTI
 * still holds from an earlier session stay out of it until it hands them
 * back. 0, or -1 when out of memory.
 */
int ggmlviz__cupti_pool_make(uint64_t bytes);

/*
 * CUPTI's request for a buffer: a free one of the pool; when none is free,
 * NULL where CUPTI then drops records (and counts them), and a buffer
 * allocated beyond the pool where a NULL would crash it.
 */
void CUPTIAPI ggmlviz__cupti_on_request(uint8_t **buffer, size_t *size, size_t *max_records);

/* A buffer CUPTI handed back: free again (or freed, if allocated beyond the pool). */
void ggmlviz__cupti_pool_give_back(uint8_t *buffer);

/* Buffers CUPTI holds now, and those it got beyond the pool so far. */
uint32_t ggmlviz__cupti_pool_held(void);
uint64_t ggmlviz__cupti_pool_beyond(void);

/*
 * After cuptiFinalize(): CUPTI holds nothing any more (it destroyed what
 * it had, and hands nothing back), so its buffers of the pool are free.
 * One it got beyond the pool is lost (CUPTI before API version 27 only).
 */
void ggmlviz__cupti_pool_reclaim(void);

/*
 * The library is unloaded: every buffer CUPTI does not hold is freed (a
 * later copy of the library makes its own).
 */
void ggmlviz__cupti_pool_free(void);

/* ---- the records (cupti-records.c) ---- */

/* CUPTI's clock now (cuptiGetTimestamp): 0 and ns, or -1. */
int ggmlviz__cupti_now(uint64_t *ns);

/*
 * CUPTI's completion callback: a buffer handed back, on CUPTI's thread or
 * the one that flushed, maybe two at once, maybe after the stop (then
 * counted and left out).
 */
void CUPTIAPI ggmlviz__cupti_on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer,
					 size_t size, size_t valid);

/*
 * After a forced flush: until no buffer has been handed back for 20 ms
 * and none is being read (at most half a second), since CUPTI's own
 * thread may have taken a full buffer out of its lists before the flush
 * and hand it over after it.
 */
void ggmlviz__cupti_quiesce(void);

/* A session's buffers are read from now on; GGML_VIZ_CUPTI_LOG opened; the counts zeroed. */
void ggmlviz__cupti_records_open(void);

/* Buffers are read no more (one being read finishes first); the log closed. */
void ggmlviz__cupti_records_close(void);

/* What the buffers held, for the session's last word. */
struct ggmlviz__cupti_records {
	uint64_t api_records;  /* RUNTIME and DRIVER records */
	uint64_t correlations; /* external correlation records of libggmlviz's runs */
	uint64_t cut;          /* buffers read up to a record CUPTI called invalid, the rest lost */
	uint64_t late;         /* buffers handed back after the stop, left out */
};

void ggmlviz__cupti_records_counts(struct ggmlviz__cupti_records *out);

/* In a child after fork(): the parent's log and lock forgotten, never touched. */
void ggmlviz__cupti_records_forget(void);

#endif /* GGMLVIZ_CUPTI_H */
