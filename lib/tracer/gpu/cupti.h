/*
 * NVIDIA's CUPTI as libggmlviz uses it, inside gpu/: the library loaded at
 * run time and what it says in words (cupti-lib.c), the activity buffers
 * handed to it (cupti-pool.c); the client on top of both (cupti.c).
 * Compiled only where CUPTI's headers were found (configure --with-cupti).
 *
 * Bottom to top: cupti-lib.c calls nothing of gpu/; cupti-pool.c reads
 * the version cupti-lib.c loaded; cupti.c calls both and the sink.
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
};

/* The loaded library's functions, version and path (set by ggmlviz__cupti_load). */
extern struct ggmlviz__cupti_api ggmlviz__cupti_api;
extern uint32_t ggmlviz__cupti_version;
extern char ggmlviz__cupti_path[256];

/*
 * Loads libcupti from path, or from where it usually is, once: a library
 * that was subscribed to stays loaded (its threads run). 0; -1 with why
 * (it would not load, lacks a function, or is of a version this build
 * cannot read); -2 when none was found and none was named (a machine
 * without CUDA's tools: nothing worth saying unasked).
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

#endif /* GGMLVIZ_CUPTI_H */
