/*
 * A stand-in for NVIDIA's libcupti (tests/cupti-standin.c), built by the
 * tests as tests/libcupti-standin.so and loaded by libggmlviz through
 * GGML_VIZ_CUPTI as the real one is, so that lib/tracer/gpu/cupti*.c runs
 * whole without a GPU: its loading, subscription, buffers, records,
 * correlation, flushes and detach.
 *
 * It implements the entry points libggmlviz calls with the signatures and
 * record layouts of the CUDA toolkit's own headers (<cupti.h>), and behaves
 * as those headers document, including what a client gets wrong easily:
 *   - timestamps are CLOCK_REALTIME nanoseconds (about 1.8e18);
 *   - records are delivered by CUPTI's own threads (two, so completions
 *     can run at once), which hand over only full buffers whose records
 *     are all complete; cuptiActivityFlushAll(0) hands over every buffer
 *     whose records are complete, full or not, on the calling thread;
 *     CUPTI_ACTIVITY_FLAG_FLUSH_FORCED every buffer, kernels still running
 *     included, with start or end 0 (incomplete records);
 *   - per-thread buffers (CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER,
 *     1 by default as in CUDA 13): a thread's API and external correlation
 *     records go to its own buffer, the GPU's records (kernels, copies,
 *     sets) to the device's, so that a kernel's correlation comes in
 *     another buffer than the kernel, often later;
 *   - an external correlation record precedes an API record only: with
 *     neither CUPTI_ACTIVITY_KIND_RUNTIME nor the launch's callback id
 *     enabled (cuptiActivityEnableRuntimeApi), none is written;
 *   - a CUDA graph launch is one API call whose kernels share its
 *     correlation id;
 *   - a NULL buffer from the request callback drops the records (counted
 *     by cuptiActivityGetNumDroppedRecords) from API version 27 on, and
 *     crashes (SIGSEGV) before it, as CUPTI did up to CUDA 12.8;
 *   - one subscriber at a time: cuptiSubscribe returns
 *     CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED while another holds
 *     CUPTI (cuptiSubscribe_v2 names it);
 *   - at exit, its own handler (registered when it is loaded, as CUPTI's
 *     static destructors are) tears it down: a call after that aborts;
 *   - a call in a child of fork() aborts: CUDA does not carry a context
 *     or CUPTI's threads into a child, and a client must not call it there.
 *
 * What it does is set by environment variables, read when it is loaded:
 *   CUPTI_STANDIN_VERSION  the API version it reports (default: the
 *                          headers' CUPTI_API_VERSION)
 *   CUPTI_STANDIN_HOLDER   another profiler holds CUPTI, by that name
 *   CUPTI_STANDIN_REFUSE   a CUptiResult that cuptiSubscribe and
 *                          cuptiActivityEnable return (999: as the real
 *                          one without a driver)
 *   CUPTI_STANDIN_RECORDS  records a device buffer takes before it is full
 *                          (default: as many as fit)
 *   CUPTI_STANDIN_PER_RUN  at each pop of an external correlation id (the
 *                          end of a run of libggmlviz's), that many kernels
 *                          launched first on the popping thread, one in
 *                          three runs as a CUDA graph, plus a device copy
 *                          and a set: real GGML programs' runs get a GPU's
 *                          records
 *   CUPTI_STANDIN_KERNEL_NS  how long each of those runs (default 1500)
 *   CUPTI_STANDIN_LOG      a file: a line for each GPU record as delivered
 *                          ("K|M|S correlation external start end stream
 *                          complete name"), a line "D n" for records
 *                          dropped, "I" for a record written invalid,
 *                          "F time" for each cuptiFinalize, what tests
 *                          compare a trace with
 *   CUPTI_STANDIN_VERSIONS "NAME=version,...": the version of the copy
 *                          loaded under that file name (libcupti.so.13)
 *   CUPTI_STANDIN_FINALIZE "refuse": cuptiFinalize returns
 *                          CUPTI_ERROR_NOT_SUPPORTED and detaches nothing
 *   CUPTI_STANDIN_REATTACH "refuse": after a cuptiFinalize, subscribing
 *                          again returns CUPTI_ERROR_NOT_INITIALIZED
 *   CUPTI_STANDIN_INVALID  n: the n-th kernel record is written with an
 *                          invalid kind, last of its buffer, so that
 *                          cuptiActivityGetNextRecord stops there with
 *                          CUPTI_ERROR_INVALID_KIND
 *   CUPTI_STANDIN_LATE     "1": a forced flush holds one buffer back, and
 *                          cuptiUnsubscribe (or cuptiFinalize, which waits
 *                          for its reading to end) hands it over on a
 *                          thread of its own, read slowly (2 ms a record),
 *                          as CUPTI's own thread hands over a buffer it
 *                          took out before the flush
 *
 * Detaching, as cupti_activity.h and NVIDIA's cupti_finalize sample say:
 * cuptiFinalize ends CUPTI's threads, drops the buffers it holds (never
 * handed back), every kind, callback and subscription; any CUPTI call
 * after it attaches CUPTI again (counted: initializations).
 * cuptiEnableDomain(RUNTIME_API) makes the tests' CUDA calls call the
 * subscriber's callback at their exit (CUPTI_API_EXIT), without its lock,
 * where a client may call cuptiFinalize.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CUPTI_STANDIN_H
#define GGMLVIZ_CUPTI_STANDIN_H

#include <stddef.h>
#include <stdint.h>

/* What the stand-in has seen and holds, for the tests' checks. */
struct cupti_standin_counts {
	uint32_t subscribers;      /* 1 while a client is subscribed */
	uint32_t kinds_enabled;    /* activity kinds enabled now */
	uint32_t api_cbids_enabled; /* runtime and driver callback ids enabled now */
	uint32_t buffers_held;     /* buffers the client gave and did not get back yet */
	uint64_t buffers_given;    /* buffers the client's request callback gave */
	uint64_t null_buffers;     /* requests answered with NULL */
	uint64_t delivered;        /* buffers handed back through the completion callback */
	uint64_t concurrent;       /* completions that ran while another was running */
	uint64_t records_dropped;  /* records dropped for want of a buffer */
	uint64_t incomplete;       /* GPU records delivered without their times */
	uint64_t flushes;          /* cuptiActivityFlushAll calls */
	uint64_t api_records;      /* API records made (RUNTIME) */
	int32_t per_thread;        /* per-thread buffers in use (the attribute's value) */
	int32_t torn_down;         /* its exit handler ran */
	uint32_t initializations;  /* times CUPTI attached: the first call, and the first after each finalize */
	uint32_t finalized;        /* cuptiFinalize calls that detached it */
	int32_t attached;          /* attached now */
	uint64_t records_abandoned; /* records in buffers a finalize dropped */
	uint64_t late_delivered;   /* CUPTI_STANDIN_LATE: buffers handed over at unsubscribe */
	int32_t callbacks;         /* the client's buffer callbacks are registered (and would be called) */
};

/* The functions a test finds with dlsym() in the stand-in it loaded. */
typedef uint32_t (*cupti_standin_launch_fn)(const char *name, uint64_t ns, uint32_t stream);
typedef uint32_t (*cupti_standin_graph_fn)(const char *const *names, const uint64_t *ns,
					   size_t n, uint32_t stream);
typedef uint32_t (*cupti_standin_copy_fn)(int memset, uint8_t copy_kind, uint64_t bytes,
					  uint64_t ns, uint32_t stream);
typedef void (*cupti_standin_sync_fn)(void);
typedef void (*cupti_standin_counts_fn)(struct cupti_standin_counts *out);

/*
 * cudaLaunchKernel: a kernel `name` on `stream`, run for ns on the GPU
 * after the stream's earlier work; returns the launch's correlation id.
 */
uint32_t cupti_standin_launch(const char *name, uint64_t ns, uint32_t stream);

/* cudaGraphLaunch: n kernels one after another, one correlation id. */
uint32_t cupti_standin_graph(const char *const *names, const uint64_t *ns, size_t n,
			     uint32_t stream);

/* cudaMemcpyAsync (copy_kind: CUpti_ActivityMemcpyKind) or, with memset, cudaMemsetAsync. */
uint32_t cupti_standin_copy(int memset, uint8_t copy_kind, uint64_t bytes, uint64_t ns,
			    uint32_t stream);

/* cudaDeviceSynchronize: returns once the GPU ran everything launched. */
void cupti_standin_sync(void);

/* The counts now. */
void cupti_standin_counts(struct cupti_standin_counts *out);

#endif /* GGMLVIZ_CUPTI_STANDIN_H */
