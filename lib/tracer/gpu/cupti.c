/*
 * NVIDIA's CUPTI as the GPU profiler (see gpu.h and cupti.h), used as its
 * headers (cupti_activity.h, cupti_callbacks.h) and long-lived clients
 * (PyTorch's Kineto) use it. Where a choice had to be made:
 *
 * - What is recorded: CONCURRENT_KERNEL (kernels stay concurrent, CUDA
 *   graphs stay graphs), MEMCPY and MEMSET (ggml-cuda's contiguous copy
 *   of one type is a cudaMemcpyAsync: without its record the node has no
 *   GPU time), and EXTERNAL_CORRELATION: the node engine pushes a run's id
 *   at its first ask and pops it at its end (gpu_run_begin/end), and CUPTI
 *   writes the id before every API record made in between.
 * - API records: an external correlation record precedes an API record
 *   only, so the launch and copy calls' API records are enabled: RUNTIME
 *   and DRIVER whole, then every other call off (cuptiActivityEnable-
 *   RuntimeApi and ...DriverApi, CUDA 12.5 on), as NVIDIA's own clients
 *   narrow them (GGML_VIZ_CUPTI_API, api_mode()); before 12.5, RUNTIME
 *   and DRIVER whole. A CUDA graph's kernels share their cudaGraphLaunch's
 *   correlation id.
 * - Timestamps: CUPTI's own clock (CLOCK_REALTIME), tied to the tracer's
 *   by clock points at every buffer and every pass, and subtracted in
 *   integers (kernels.c). Not cuptiActivityRegisterTimestampCallback: it
 *   must come before any kind is enabled and stays for the process, so
 *   CUPTI would go on calling libggmlviz after its session (and into freed
 *   code, were libggmlviz unloaded with a plugin that linked it).
 * - Delivery: CUPTI's periodic flush hands over full buffers only, so a
 *   thread of the tracer's own (ggmlviz-cupti) calls
 *   cuptiActivityFlushAll(0), which hands over every buffer whose records
 *   are complete, every 100 ms while runs are launched and every 500 ms
 *   when none were: kernels reach the trace within about a second, and a
 *   crash loses one pass of them. The last pass, at stop, is forced.
 * - Per-thread buffers (CUDA 13's default) are kept: the launching threads
 *   do not share a buffer. Completions may then run at once (the sink
 *   locks), and a kernel's correlation may come in another buffer than
 *   the kernel, later: a kernel waits for its run over ten passes of the
 *   flush thread (kernels.c), not over a number of buffers.
 * - Buffers, and a CUPTI that cannot take a NULL one: cupti-pool.c.
 * - Incomplete records (no start, or an end before the start, as a forced
 *   flush hands over kernels still running) are left out and counted.
 * - Lifecycle: cuptiSubscribe first (under Nsight Systems or another
 *   CUPTI client it says so, by name where cuptiSubscribe_v2 can), and a
 *   fatal error of CUPTI's (it then detaches itself) stops the passes. At
 *   stop everything enabled is disabled, a forced flush hands over every
 *   buffer, and the subscription ends; the library stays loaded (a thread
 *   may still pop a run, and CUPTI's threads run on). A later session
 *   subscribes again.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "tracer/gpu/gpu.h"

#if HAVE_CUPTI

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/gpu/cupti.h"

#define PASS_NS 100000000ull       /* a pass while runs are launched */
#define IDLE_PASS_NS 500000000ull  /* and while none are */

/*
 * The records as read here: the newest layouts of the headers. The members
 * read sit where they sat in every layout since CUDA 11's (checked below),
 * so that a CUPTI from 11.8 on is read alike.
 */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
typedef CUpti_ActivityMemcpy6 memcpy_record;
#define SAME_AS_OLDEST(type, oldest, m) \
	_Static_assert(offsetof(type, m) == offsetof(oldest, m), #type " moved " #m)
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, start);
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, end);
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, deviceId);
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, streamId);
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, correlationId);
SAME_AS_OLDEST(kernel_record, CUpti_ActivityKernel4, name);
SAME_AS_OLDEST(memcpy_record, CUpti_ActivityMemcpy4, copyKind);
SAME_AS_OLDEST(memcpy_record, CUpti_ActivityMemcpy4, start);
SAME_AS_OLDEST(memcpy_record, CUpti_ActivityMemcpy4, end);
SAME_AS_OLDEST(memcpy_record, CUpti_ActivityMemcpy4, streamId);
SAME_AS_OLDEST(memcpy_record, CUpti_ActivityMemcpy4, correlationId);
SAME_AS_OLDEST(CUpti_ActivityMemset4, CUpti_ActivityMemset3, start);
SAME_AS_OLDEST(CUpti_ActivityMemset4, CUpti_ActivityMemset3, correlationId);
#else
typedef CUpti_ActivityKernel8 kernel_record;
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif
typedef CUpti_ActivityMemset4 memset_record;

#define api ggmlviz__cupti_api

/* The calls whose API records carry the run's id: launches, graph launches, copies, sets. */
static const CUpti_CallbackId runtime_calls[] = {
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_ptsz_v10000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy2DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy3DAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyPeerAsync_v4000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_ptsz_v7000,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_v3020,
	CUPTI_RUNTIME_TRACE_CBID_cudaMemset2DAsync_ptsz_v7000,
};

/* The same made through the driver's API directly (libraries that launch with cuLaunchKernel). */
static const CUpti_CallbackId driver_calls[] = {
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
	CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch,
	CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyAsync_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoHAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2,
	CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoDAsync_v2_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD8Async_ptsz,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async,
	CUPTI_DRIVER_TRACE_CBID_cuMemsetD32Async_ptsz,
};

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
};

static struct {
	CUpti_SubscriberHandle subscriber;
	int subscribed;       /* this session's subscription */
	int api_mode;         /* how the launch calls' API records were asked for */
	int ever;             /* subscribed once: the library stays loaded */
	pthread_t flusher;
	int flushing;         /* the flush thread runs */
	_Atomic int stopping;
	_Atomic int fatal;    /* CUPTI said it detached itself */
	_Atomic int completing; /* buffers being read now */
	_Atomic uint64_t completed;
	struct ggmlviz__bell bell;
	_Atomic uint64_t api_records;  /* RUNTIME and DRIVER records delivered */
	_Atomic uint64_t correlations; /* external correlation records of ours delivered */
	_Atomic uint64_t refused;      /* pushes CUPTI refused */
	_Atomic int refused_rc;        /* the first refusal's result */
	FILE *raw;            /* GGML_VIZ_CUPTI_LOG: each GPU record as CUPTI delivered it */
} cupti;

/* ---- records ---- */

static int cupti_now(uint64_t *ns)
{
	return api.timestamp(ns) == CUPTI_SUCCESS ? 0 : -1;
}

/* As Nsight Systems names them. */
static const char *copy_name(uint8_t kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD: return "[CUDA memcpy HtoD]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH: return "[CUDA memcpy DtoH]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD: return "[CUDA memcpy DtoD]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return "[CUDA memcpy HtoH]";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return "[CUDA memcpy PtoP]";
	default: return "[CUDA memcpy]";
	}
}

/* The GPU record a, if it is one; 0, or -1 when it is not. */
static int gpu_record(const CUpti_Activity *a, struct ggmlviz__gpu_launch *l)
{
	if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
		const kernel_record *k = (const kernel_record *)a;
		*l = (struct ggmlviz__gpu_launch){ k->start, k->end, k->deviceId, k->streamId,
						   k->correlationId, k->name, 0 };
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
		const memcpy_record *m = (const memcpy_record *)a;
		*l = (struct ggmlviz__gpu_launch){ m->start, m->end, m->deviceId, m->streamId,
						   m->correlationId, copy_name(m->copyKind), 1 };
	} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
		const memset_record *m = (const memset_record *)a;
		*l = (struct ggmlviz__gpu_launch){ m->start, m->end, m->deviceId, m->streamId,
						   m->correlationId, "[CUDA memset]", 1 };
	} else {
		return -1;
	}
	return 0;
}

/* One record to the sink; 1 when it was a GPU record without its times (left out). */
static int one_record(const CUpti_Activity *a)
{
	struct ggmlviz__gpu_launch l;

	if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
		const CUpti_ActivityExternalCorrelation *c = (const CUpti_ActivityExternalCorrelation *)a;
		if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
			atomic_fetch_add_explicit(&cupti.correlations, 1, memory_order_relaxed);
			ggmlviz__gpu_correlate(c->correlationId, c->externalId);
		}
		if (cupti.raw)
			fprintf(cupti.raw, "E %u %llu %d\n", c->correlationId,
				(unsigned long long)c->externalId, (int)c->externalKind);
		return 0;
	}
	if (gpu_record(a, &l) < 0) { /* an API record: it only made the correlation */
		if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME || a->kind == CUPTI_ACTIVITY_KIND_DRIVER)
			atomic_fetch_add_explicit(&cupti.api_records, 1, memory_order_relaxed);
		return 0;
	}
	if (cupti.raw)
		fprintf(cupti.raw, "%c %u %llu %llu %u %u %s\n", l.copy ? 'C' : 'K', l.correlation,
			(unsigned long long)l.start, (unsigned long long)l.end, l.stream, l.device,
			l.name ? l.name : "?");
	if (!l.start || l.end < l.start)
		return 1; /* delivered before the GPU gave its times: at the clock's origin otherwise */
	ggmlviz__gpu_kernel(&l);
	return 0;
}

/* A buffer handed back, on CUPTI's thread or the one that flushed; maybe two at once. */
static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				 size_t valid)
{
	CUpti_Activity *a = NULL;
	size_t dropped = 0;
	uint64_t incomplete = 0;

	(void)size;
	atomic_fetch_add(&cupti.completing, 1);
	ggmlviz__gpu_clock_read(cupti_now);
	while (valid && api.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
		incomplete += (uint64_t)one_record(a);
	if (api.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		ggmlviz__gpu_dropped(dropped);
	if (incomplete)
		ggmlviz__gpu_incomplete(incomplete);
	ggmlviz__cupti_pool_give_back(buffer); /* its kernels are written by the next pass */
	atomic_fetch_add(&cupti.completed, 1);
	atomic_fetch_sub(&cupti.completing, 1);
}

/*
 * After the forced flush: until no buffer has been handed back for 20 ms
 * and none is being read (at most half a second), since CUPTI's own
 * thread may have taken a full buffer out of its lists before the flush
 * and hand it over after it.
 */
static void quiesce(void)
{
	const struct timespec tick = { 0, 5000000 };
	uint64_t seen = atomic_load(&cupti.completed);
	int still = 0;

	for (int i = 0; i < 100 && still < 4; i++) {
		uint64_t now;

		nanosleep(&tick, NULL);
		now = atomic_load(&cupti.completed);
		still = now == seen && !atomic_load(&cupti.completing) ? still + 1 : 0;
		seen = now;
	}
}

/* ---- the flush thread ---- */

static void *flusher_main(void *arg)
{
	uint64_t runs_seen = atomic_load(&ggmlviz__state.gpu_runs);

	(void)arg;
	pthread_setname_np(pthread_self(), "ggmlviz-cupti");
	while (!atomic_load(&cupti.stopping) && !atomic_load(&cupti.fatal)) {
		uint64_t runs = atomic_load(&ggmlviz__state.gpu_runs);
		uint32_t token = ggmlviz__bell_token(&cupti.bell);

		if (!atomic_load(&cupti.stopping))
			ggmlviz__bell_wait(&cupti.bell, token,
					   runs != runs_seen ? PASS_NS : IDLE_PASS_NS);
		runs_seen = runs;
		if (atomic_load(&cupti.stopping) || atomic_load(&cupti.fatal))
			break;
		api.flush_all(0);
		ggmlviz__gpu_clock_read(cupti_now);
		ggmlviz__gpu_settle(GGMLVIZ__GPU_PASS);
	}
	return NULL;
}

static int start_flusher(void)
{
	sigset_t all, old;
	int rc;

	atomic_store(&cupti.stopping, 0);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&cupti.flusher, NULL, flusher_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	cupti.flushing = rc == 0;
	return rc == 0 ? 0 : -1;
}

static void stop_flusher(void)
{
	if (!cupti.flushing)
		return;
	atomic_store(&cupti.stopping, 1);
	ggmlviz__bell_ring(&cupti.bell, 1);
	pthread_join(cupti.flusher, NULL);
	cupti.flushing = 0;
}

/* ---- the run hooks, on the traced program's threads ---- */

static void run_begin(uint64_t run_id)
{
	CUptiResult rc = api.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, run_id);

	if (rc != CUPTI_SUCCESS && !atomic_fetch_add(&cupti.refused, 1))
		atomic_store(&cupti.refused_rc, (int)rc);
}

static void run_end(void)
{
	api.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
}

/* ---- subscription ---- */

/* CUPTI's callbacks: only its fatal error, after which it has detached itself. */
static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	(void)user, (void)data;
	if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR)
		atomic_store(&cupti.fatal, 1);
}

static CUptiResult subscribe(char *why, size_t size)
{
	char other[CUPTI_OLD_SUBSCRIBER_NAME_MIN_LEN + 1] = "";
	CUpti_SubscriberParams p = { CUpti_SubscriberParams_STRUCT_SIZE, "libggmlviz", other,
				     sizeof other - 1 };
	CUptiResult rc = api.subscribe_v2
				 ? api.subscribe_v2(&cupti.subscriber,
						    (CUpti_CallbackFunc)on_callback, NULL, &p)
				 : api.subscribe(&cupti.subscriber, (CUpti_CallbackFunc)on_callback,
						 NULL);

	if (rc == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
		snprintf(why, size, "not recorded: another profiler holds CUPTI (%s), and CUPTI takes "
			 "one at a time", other[0] ? other
			 : "Nsight Systems, Nsight Compute, cuda-gdb, compute-sanitizer or another "
			   "CUPTI client; this CUPTI does not say which");
	else if (rc != CUPTI_SUCCESS)
		ggmlviz__cupti_refused("subscribe", rc, why, size);
	return rc;
}

/*
 * How the launch calls' API records are asked for, GGML_VIZ_CUPTI_API:
 * - "narrowed" (the default): RUNTIME and DRIVER whole, then every call
 *   off but the launch calls, the first of the two ways the header gives,
 *   and NVIDIA's own (Aerial's cupti_helper) with external correlation;
 * - "calls": the launch calls alone, without the kinds (the header's
 *   second way);
 * - "whole": RUNTIME and DRIVER whole, every call recorded.
 * A debugging aid, as GGML_VIZ_CUPTI_LOG is: the note says which was used.
 */
enum api_mode { API_NARROWED, API_CALLS, API_WHOLE };

static enum api_mode api_mode(void)
{
	const char *m = getenv("GGML_VIZ_CUPTI_API");

	if (!api.enable_runtime_api || !api.enable_driver_api)
		return API_WHOLE;
	if (m && !strcmp(m, "calls"))
		return API_CALLS;
	if (m && !strcmp(m, "whole"))
		return API_WHOLE;
	return API_NARROWED;
}

static const char *const api_mode_names[] = { "narrowed", "calls", "whole" };

/* Every call of both domains off; some ids are gaps, and are refused. */
static void every_call_off(void)
{
	for (CUpti_CallbackId i = 1; i < CUPTI_RUNTIME_TRACE_CBID_SIZE; i++)
		api.enable_runtime_api(i, 0);
	for (CUpti_CallbackId i = 1; i < CUPTI_DRIVER_TRACE_CBID_SIZE; i++)
		api.enable_driver_api(i, 0);
}

static CUptiResult launch_calls(uint8_t on)
{
	CUptiResult rc = CUPTI_SUCCESS;

	for (size_t i = 0; rc == CUPTI_SUCCESS && i < sizeof runtime_calls / sizeof *runtime_calls; i++)
		rc = api.enable_runtime_api(runtime_calls[i], on);
	for (size_t i = 0; rc == CUPTI_SUCCESS && i < sizeof driver_calls / sizeof *driver_calls; i++)
		rc = api.enable_driver_api(driver_calls[i], on);
	return rc;
}

/* The launch calls' API records, which the external correlation records precede. */
static CUptiResult api_records_on(void)
{
	CUptiResult rc = CUPTI_SUCCESS;

	if (cupti.api_mode != API_CALLS) {
		rc = api.enable(CUPTI_ACTIVITY_KIND_RUNTIME);
		if (rc == CUPTI_SUCCESS)
			rc = api.enable(CUPTI_ACTIVITY_KIND_DRIVER);
	}
	if (rc != CUPTI_SUCCESS || cupti.api_mode == API_WHOLE)
		return rc;
	if (cupti.api_mode == API_NARROWED)
		every_call_off();
	return launch_calls(1);
}

static void api_records_off(void)
{
	api.disable(CUPTI_ACTIVITY_KIND_RUNTIME);
	api.disable(CUPTI_ACTIVITY_KIND_DRIVER);
	if (cupti.api_mode != API_WHOLE)
		launch_calls(0);
}

static void disable_all(void)
{
	api_records_off();
	for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++)
		api.disable(kinds[i]);
}

static CUptiResult enable_all(char *why, size_t size)
{
	CUptiResult rc = api.register_callbacks(ggmlviz__cupti_on_request, on_complete);

	cupti.api_mode = (int)api_mode();
	for (size_t i = 0; rc == CUPTI_SUCCESS && i < sizeof kinds / sizeof *kinds; i++)
		rc = api.enable(kinds[i]);
	if (rc == CUPTI_SUCCESS)
		rc = api_records_on();
	if (rc != CUPTI_SUCCESS) {
		disable_all();
		ggmlviz__cupti_refused("record kernels", rc, why, size);
	}
	return rc;
}

static void unsubscribe(void)
{
	api.unsubscribe(cupti.subscriber);
	cupti.subscribed = 0;
}

/* ---- the session's side ---- */

/*
 * GGML_VIZ_CUPTI_LOG=FILE: a line for each kernel, copy and set as CUPTI
 * delivered it ("K|C correlation start end stream device name", CUPTI's
 * own nanoseconds), and one for each external correlation record
 * ("E correlation external-id external-kind"), for comparing a trace with CUPTI's raw records
 * (bench/gpu-check.sh) or reporting a GPU's records as they came. Asked
 * for by the environment only: a debugging aid, not a setting.
 */
static void open_raw_log(void)
{
	const char *path = getenv("GGML_VIZ_CUPTI_LOG");

	if (cupti.raw)
		fclose(cupti.raw);
	cupti.raw = path && *path ? fopen(path, "w") : NULL;
}

static void close_raw_log(void)
{
	if (cupti.raw)
		fclose(cupti.raw);
	cupti.raw = NULL;
}

static int cupti_available(const char *path, char *why, size_t size)
{
	if (path || ggmlviz__os_nvidia_device())
		return 0;
	snprintf(why, size, "not recorded: no NVIDIA GPU here (neither /dev/nvidiactl nor /dev/dxg), "
		 "so CUPTI was not loaded");
	return -2;
}

/*
 * A CUPTI that cannot be used is unloaded: nothing of it was installed,
 * and a loaded CUPTI without a driver has threads and handlers of its own
 * (LeakSanitizer's stop of every thread at exit crashed on one).
 */
static int give_up(int rc)
{
	if (!cupti.ever)
		ggmlviz__cupti_unload();
	return rc;
}

static int cupti_start(uint64_t buffer_bytes, const char *path, char *what, size_t size)
{
	int rc;

	if ((rc = ggmlviz__cupti_load(path, what, size)) < 0)
		return give_up(rc);
	if (ggmlviz__cupti_pool_make(buffer_bytes) < 0) {
		snprintf(what, size, "not recorded: no memory for CUPTI's buffers");
		return give_up(-1);
	}
	ggmlviz__gpu_sink_reset();
	atomic_store(&cupti.fatal, 0);
	atomic_store(&cupti.api_records, 0);
	atomic_store(&cupti.correlations, 0);
	atomic_store(&cupti.refused, 0);
	what[0] = '\0';
	if (subscribe(what, size) != CUPTI_SUCCESS)
		return give_up(-1);
	cupti.subscribed = cupti.ever = 1;
	api.enable_callback(1, cupti.subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR);
	ggmlviz__gpu_clock_read(cupti_now);
	open_raw_log();
	if (enable_all(what, size) != CUPTI_SUCCESS || start_flusher() < 0) {
		if (!what[0])
			snprintf(what, size, "not recorded: no thread could be made to flush CUPTI");
		disable_all();
		unsubscribe();
		close_raw_log();
		return -1;
	}
	atomic_store_explicit(&ggmlviz__state.gpu_run_end, run_end, memory_order_release);
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, run_begin, memory_order_release);
	snprintf(what, size, "recorded through CUPTI (API version %u, %s): kernels, memory copies and "
		 "sets, %zu MiB of buffers, flushed every %llu ms", ggmlviz__cupti_version,
		 ggmlviz__cupti_path, (size_t)(buffer_bytes >> 20),
		 (unsigned long long)(PASS_NS / 1000000));
	return 0;
}

/* CUPTI's side of the correlation, for the session's last word. */
static void say_correlation(char *said, size_t size)
{
	int n = snprintf(said, size, "; CUPTI's correlation: %llu API records (%s), %llu of them "
			 "tied to a run", (unsigned long long)atomic_load(&cupti.api_records),
			 api_mode_names[cupti.api_mode],
			 (unsigned long long)atomic_load(&cupti.correlations));

	if (atomic_load(&cupti.refused) && n > 0 && (size_t)n < size)
		snprintf(said + n, size - (size_t)n, ", %llu runs' ids refused (CUPTI error %d)",
			 (unsigned long long)atomic_load(&cupti.refused), atomic_load(&cupti.refused_rc));
}

static void cupti_stop(char *said, size_t size)
{
	if (!cupti.subscribed)
		return;
	/* runs begun now push nothing; a run still open pops through run_end */
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, NULL, memory_order_release);
	stop_flusher();
	if (!atomic_load(&cupti.fatal)) {
		disable_all();
		api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); /* every buffer, through on_complete */
		quiesce();
	}
	ggmlviz__gpu_settle(GGMLVIZ__GPU_FINAL);
	unsubscribe();
	close_raw_log();
	say_correlation(said, size);
}

#else /* !HAVE_CUPTI */

static int cupti_available(const char *path, char *why, size_t size)
{
	(void)path;
	snprintf(why, size, "not recorded: this libggmlviz was built without CUPTI's headers "
		 "(configure --with-cupti=DIR, where include/cupti.h is)");
	return -2;
}

static int cupti_start(uint64_t buffer_bytes, const char *path, char *what, size_t size)
{
	(void)buffer_bytes;
	return cupti_available(path, what, size);
}

static void cupti_stop(char *said, size_t size)
{
	(void)said, (void)size;
}

#endif /* HAVE_CUPTI */

const struct ggmlviz__gpu_profiler ggmlviz__cupti = { cupti_available, cupti_start, cupti_stop };
