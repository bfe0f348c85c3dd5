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
 *   Reading the buffers: cupti-records.c.
 * - Per-thread buffers (CUDA 13's default) are kept: the launching threads
 *   do not share a buffer. Completions may then run at once (the sink
 *   locks), and a kernel's correlation may come in another buffer than
 *   the kernel, later: a kernel waits for its run over ten passes of the
 *   flush thread (kernels.c), not over a number of buffers.
 * - Buffers, and a CUPTI that cannot take a NULL one: cupti-pool.c.
 * - Sampled windows (GGML_VIZ_GPU_SAMPLE, window.c): between windows CUPTI
 *   is detached, as Kineto detaches it, since a CUPTI merely told to record
 *   nothing still slows the program: runs are no longer tagged (a count of
 *   the tagged runs not yet popped tells when none is open), every kind is
 *   disabled, a forced flush hands over every buffer, and cuptiFinalize()
 *   is called where its header says it is safe, at the exit of the next
 *   CUDA call of the program's (a callback of the runtime's and driver's
 *   domains, enabled for that), or by the flush thread itself when none
 *   comes within 200 ms (no work then in flight). Before the next window
 *   the flush thread subscribes and enables again, as at the start. A
 *   CUPTI that refuses to detach is kept attached with its kinds off; one
 *   that refuses to attach again is said in the trace, and the windows end.
 *   While detached, nothing calls CUPTI: any call would attach it again.
 * - Lifecycle: cuptiSubscribe first (under Nsight Systems or another
 *   CUPTI client it says so, by name where cuptiSubscribe_v2 can), and a
 *   fatal error of CUPTI's (it then detaches itself) stops the passes. At
 *   stop everything enabled is disabled, a forced flush hands over every
 *   buffer, and the subscription ends; the library stays loaded (a thread
 *   may still pop a run, and CUPTI's threads run on). A later session
 *   subscribes again.
 * - fork(): the child has no flush thread and must not call the parent's
 *   CUPTI: it forgets both (ggmlviz__cupti_after_fork_child, gpu.c).
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
#include "tracer/producer/producer.h"

#define PASS_NS 100000000ull         /* a pass while runs are launched */
#define IDLE_PASS_NS 500000000ull    /* and while none are */
#define DETACHED_NS 1000000000ull    /* detached: only a request or the stop wakes it */
#define SETTLE_NS 10000000ull        /* a window's last kernels end on the GPU before its kinds go off */
#define FINALIZE_WAIT_NS 200000000ull /* for a CUDA call to detach at the exit of */

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

/*
 * The kinds recorded: kernels, or (GGML_VIZ_CUPTI_GRAPHS=1) a record a
 * CUDA graph launch instead, which CUPTI takes with kernels off only.
 */
static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
};
static const CUpti_ActivityKind graph_kinds[] = {
	CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, CUPTI_ACTIVITY_KIND_GRAPH_TRACE,
	CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET,
};
#define N_KINDS (sizeof kinds / sizeof *kinds)

/* How windows detach CUPTI. */
enum way { DETACH_FINALIZE, DETACH_KINDS_OFF };

static struct {
	CUpti_SubscriberHandle subscriber;
	int session;          /* a session started here and not stopped */
	int subscribed;       /* CUPTI attached: subscribed, not finalized */
	int api_mode;         /* how the launch calls' API records were asked for */
	int ever;             /* subscribed once: the library stays loaded */
	int attached;         /* CUPTI attached by this library: not finalized since it subscribed */
	int way;              /* how windows detach */
	int graphs;           /* GGML_VIZ_CUPTI_GRAPHS: a record a CUDA graph launch, not its kernels */
	char detach_note[200]; /* how they did, for the last word ("" while as planned) */
	pthread_t flusher;
	int flushing;         /* the flush thread runs */
	_Atomic int stopping;
	_Atomic int fatal;    /* CUPTI said it detached itself */
	_Atomic int tagging;  /* runs begun now are tagged: CUPTI attached, its kinds on */
	_Atomic int pushing;  /* runs tagged and not popped yet */
	_Atomic int finalize_wanted; /* the next CUDA call's exit detaches CUPTI */
	_Atomic int finalized;       /* it was done (and finalize_rc says how) */
	_Atomic int finalize_rc;
	struct ggmlviz__bell bell;
	_Atomic uint64_t refused;      /* pushes CUPTI refused */
	_Atomic int refused_rc;        /* the first refusal's result */
} cupti;

/* Whether this thread's run pushed its id: only then is it popped. */
static _Thread_local int tls_pushed;

static void wake(void)
{
	ggmlviz__bell_ring(&cupti.bell, 1);
}

/* Sleeps ns. */
static void nap(uint64_t ns)
{
	const struct timespec t = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&t, NULL);
}

/* ---- the run hooks, on the traced program's threads ---- */

/*
 * A run is tagged when CUPTI is attached and its unit is in a window.
 * The count of pushed runs goes up before tagging is read, and the
 * detach clears tagging before it reads the count (both sequentially
 * consistent): either the run sees it cleared, or the detach sees it.
 */
static int run_begin(uint64_t run_id)
{
	CUptiResult rc;

	ggmlviz__gpu_window_unit_begin(0);
	atomic_fetch_add(&cupti.pushing, 1);
	if (!atomic_load(&cupti.tagging) || !ggmlviz__gpu_window_tagging()) {
		atomic_fetch_sub(&cupti.pushing, 1);
		return 0;
	}
	rc = api.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, run_id);
	if (rc != CUPTI_SUCCESS && !atomic_fetch_add(&cupti.refused, 1))
		atomic_store(&cupti.refused_rc, (int)rc);
	tls_pushed = 1;
	return 1;
}

static void run_end(void)
{
	if (tls_pushed) {
		api.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, NULL);
		tls_pushed = 0;
		atomic_fetch_sub(&cupti.pushing, 1);
	}
	ggmlviz__gpu_window_unit_end(0);
}

/* ---- subscription ---- */

/* On the thread of a CUDA call's exit: CUPTI detached there, as its header advises. */
static void finalize_here(void)
{
	CUptiResult rc = api.finalize();

	atomic_store(&cupti.finalize_rc, (int)rc);
	atomic_store(&cupti.finalized, 1);
	wake();
}

/*
 * CUPTI's callbacks: its fatal error, after which it has detached itself;
 * and, while a window's detach waits for one, the exit of a CUDA call.
 */
static void CUPTIAPI on_callback(void *user, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
				 const void *data)
{
	const CUpti_CallbackData *call = data;
	int want = 1;

	(void)user;
	if (domain == CUPTI_CB_DOMAIN_STATE && cbid == CUPTI_CBID_STATE_FATAL_ERROR)
		atomic_store(&cupti.fatal, 1);
	if ((domain == CUPTI_CB_DOMAIN_RUNTIME_API || domain == CUPTI_CB_DOMAIN_DRIVER_API) &&
	    call && call->callbackSite == CUPTI_API_EXIT &&
	    atomic_compare_exchange_strong(&cupti.finalize_wanted, &want, 0))
		finalize_here();
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

/*
 * GGML_VIZ_CUPTI_GRAPHS=1: CUPTI's GRAPH_TRACE instead of its kernels, a
 * record a CUDA graph launch (its first kernel's start to its last one's
 * end), recorded as a KERNEL "[CUDA graph]": what a graph takes on the GPU
 * with no kernel recorded, against which recorded kernels' times are
 * judged (bench/gpu-check.sh). Launches outside graphs are not recorded.
 * A measuring aid, as GGML_VIZ_CUPTI_API is.
 */
static const CUpti_ActivityKind *kinds_of(void)
{
	return cupti.graphs ? graph_kinds : kinds;
}

static void disable_all(void)
{
	api_records_off();
	for (size_t i = 0; i < N_KINDS; i++)
		api.disable(kinds_of()[i]);
}

static CUptiResult enable_all(char *why, size_t size)
{
	CUptiResult rc = CUPTI_SUCCESS;

	for (size_t i = 0; rc == CUPTI_SUCCESS && i < N_KINDS; i++)
		rc = api.enable(kinds_of()[i]);
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

/*
 * Attaches: subscribed, the buffers' callbacks given, every kind enabled,
 * a first clock point. 0, or -1 with why (nothing left enabled).
 */
static int attach(char *why, size_t size)
{
	CUptiResult rc;

	if (subscribe(why, size) != CUPTI_SUCCESS)
		return -1;
	cupti.subscribed = cupti.ever = cupti.attached = 1;
	api.enable_callback(1, cupti.subscriber, CUPTI_CB_DOMAIN_STATE, CUPTI_CBID_STATE_FATAL_ERROR);
	ggmlviz__gpu_clock_read(ggmlviz__cupti_now);
	rc = api.register_callbacks(ggmlviz__cupti_on_request, ggmlviz__cupti_on_complete);
	if (rc != CUPTI_SUCCESS)
		ggmlviz__cupti_refused("take buffers", rc, why, size);
	else
		rc = enable_all(why, size);
	if (rc != CUPTI_SUCCESS) {
		unsubscribe();
		return -1;
	}
	atomic_store(&cupti.tagging, 1);
	return 0;
}

/* ---- sampled windows: detach and attach again, on the flush thread ---- */

static void said_on_detach(const char *what, CUptiResult rc)
{
	snprintf(cupti.detach_note, sizeof cupti.detach_note, "; %s (%s): kept attached with its "
		 "kinds off between windows", what, ggmlviz__cupti_error(rc));
}

/*
 * cuptiFinalize() at the exit of the program's next CUDA call, or from
 * here when none comes in time (no work is in flight then); 0, or -1 when
 * CUPTI refused (then still attached).
 */
static int finalize(void)
{
	uint64_t until = ggmlviz__now_ns() + FINALIZE_WAIT_NS;
	int want = 1;

	atomic_store(&cupti.finalized, 0);
	atomic_store(&cupti.finalize_wanted, 1);
	if (api.enable_domain) {
		api.enable_domain(1, cupti.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
		api.enable_domain(1, cupti.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
		while (!atomic_load(&cupti.finalized) && ggmlviz__now_ns() < until &&
		       !atomic_load(&cupti.stopping)) {
			uint32_t token = ggmlviz__bell_token(&cupti.bell);
			if (!atomic_load(&cupti.finalized))
				ggmlviz__bell_wait(&cupti.bell, token, 10000000u);
		}
	}
	if (atomic_compare_exchange_strong(&cupti.finalize_wanted, &want, 0))
		finalize_here(); /* no CUDA call came: from here */
	while (!atomic_load(&cupti.finalized))
		nap(100000u); /* a callback is finalizing now */
	if (atomic_load(&cupti.finalize_rc) == CUPTI_SUCCESS)
		return 0;
	if (api.enable_domain) {
		api.enable_domain(0, cupti.subscriber, CUPTI_CB_DOMAIN_RUNTIME_API);
		api.enable_domain(0, cupti.subscriber, CUPTI_CB_DOMAIN_DRIVER_API);
	}
	said_on_detach("CUPTI would not detach", (CUptiResult)atomic_load(&cupti.finalize_rc));
	return -1;
}

/*
 * The end of a window: no run is tagged any more, and once the tagged ones
 * ended and the GPU ran their work, every kind is disabled, every buffer
 * handed over and written, and CUPTI detached. 1 when it was (finalized),
 * 0 when it stays attached with its kinds off, -1 when the stop came first
 * (it finishes the job).
 */
static int detach(void)
{
	atomic_store(&cupti.tagging, 0);
	while (atomic_load(&cupti.pushing))
		if (atomic_load(&cupti.stopping))
			return -1;
		else
			nap(100000u);
	nap(SETTLE_NS);
	disable_all();
	api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	ggmlviz__cupti_quiesce();
	ggmlviz__gpu_clock_read(ggmlviz__cupti_now);
	ggmlviz__gpu_settle(GGMLVIZ__GPU_FINAL);
	if (cupti.way == DETACH_KINDS_OFF)
		return 0;
	if (!api.finalize) {
		cupti.way = DETACH_KINDS_OFF;
		said_on_detach("this CUPTI has no cuptiFinalize", CUPTI_ERROR_NOT_SUPPORTED);
		return 0;
	}
	if (finalize() < 0) {
		cupti.way = DETACH_KINDS_OFF;
		return 0;
	}
	cupti.subscribed = cupti.attached = 0;
	ggmlviz__cupti_pool_reclaim(); /* CUPTI holds none of them any more */
	return 1;
}

/* The next window: attached again (kinds on again, where it stayed attached). */
static void attach_again(void)
{
	char why[320] = "", label[480];
	int ok;

	if (cupti.subscribed) {
		ok = enable_all(why, sizeof why) == CUPTI_SUCCESS;
		if (ok)
			atomic_store(&cupti.tagging, 1);
	} else {
		ok = attach(why, sizeof why) == 0;
	}
	if (ok) {
		ggmlviz__gpu_clock_read(ggmlviz__cupti_now);
		ggmlviz__gpu_window_attached(1);
		return;
	}
	snprintf(label, sizeof label, "CUPTI could not attach again for the next window: %s; no "
		 "kernel is recorded from here on", why);
	ggmlviz__emit_meta_gpu(0, 0, 0, label);
	ggmlviz__gpu_window_attached(0);
}

/* What a window asks of this thread, done; 1 when there was something. */
static int serve_window(void)
{
	int finalized;

	switch (ggmlviz__gpu_window_want()) {
	case GGMLVIZ__GPU_WANT_DETACH:
		if ((finalized = detach()) >= 0)
			ggmlviz__gpu_window_detached(finalized);
		return 1;
	case GGMLVIZ__GPU_WANT_ATTACH:
		attach_again();
		return 1;
	default:
		return 0;
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

		if (serve_window())
			continue;
		if (!atomic_load(&cupti.stopping))
			ggmlviz__bell_wait(&cupti.bell, token,
					   !cupti.subscribed ? DETACHED_NS
					   : runs != runs_seen ? PASS_NS : IDLE_PASS_NS);
		runs_seen = runs;
		if (atomic_load(&cupti.stopping) || atomic_load(&cupti.fatal))
			break;
		if (!cupti.subscribed)
			continue; /* detached: a call would attach CUPTI again */
		api.flush_all(0);
		ggmlviz__gpu_clock_read(ggmlviz__cupti_now);
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
	wake();
	pthread_join(cupti.flusher, NULL);
	cupti.flushing = 0;
}

/* ---- the session's side ---- */

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
	ggmlviz__cupti_records_close();
	if (!cupti.ever)
		ggmlviz__cupti_unload();
	return rc;
}

/* How kernels are recorded, in words, for the trace's META GPU. */
static void say_how(const struct ggmlviz__gpu_how *how, char *what, size_t size)
{
	int n = snprintf(what, size, "recorded through CUPTI (API version %u, %s): %s, memory "
			 "copies and sets, %zu MiB of buffers, flushed every %llu ms",
			 ggmlviz__cupti_version, ggmlviz__cupti_path,
			 cupti.graphs ? "a record a CUDA graph launch, not its kernels "
					"(GGML_VIZ_CUPTI_GRAPHS=1)" : "kernels",
			 (size_t)(how->buffer_bytes >> 20), (unsigned long long)(PASS_NS / 1000000));

	if (ggmlviz__gpu_window_on() && n > 0 && (size_t)n < size)
		snprintf(what + n, size - (size_t)n, "; in windows of %u steps of every %u "
			 "(GGML_VIZ_GPU_SAMPLE), each after a warm-up step, CUPTI detached between "
			 "them", how->sample_k, how->sample_n);
}

static int cupti_start(const struct ggmlviz__gpu_how *how, char *what, size_t size)
{
	int rc;

	if ((rc = ggmlviz__cupti_load(how->path, what, size)) < 0)
		return give_up(rc);
	if (ggmlviz__cupti_pool_make(how->buffer_bytes) < 0) {
		snprintf(what, size, "not recorded: no memory for CUPTI's buffers");
		return give_up(-1);
	}
	ggmlviz__gpu_sink_reset();
	atomic_store(&cupti.fatal, 0);
	atomic_store(&cupti.refused, 0);
	atomic_store(&cupti.pushing, 0);
	cupti.api_mode = (int)api_mode();
	cupti.graphs = getenv("GGML_VIZ_CUPTI_GRAPHS") && !strcmp(getenv("GGML_VIZ_CUPTI_GRAPHS"), "1");
	cupti.way = DETACH_FINALIZE;
	cupti.detach_note[0] = '\0';
	ggmlviz__gpu_window_reset(how->sample_k, how->sample_n, wake);
	ggmlviz__cupti_records_open();
	what[0] = '\0';
	if (attach(what, size) < 0)
		return give_up(-1);
	if (start_flusher() < 0) {
		snprintf(what, size, "not recorded: no thread could be made to flush CUPTI");
		atomic_store(&cupti.tagging, 0);
		disable_all();
		unsubscribe();
		return give_up(-1);
	}
	cupti.session = 1;
	ggmlviz__gpu_window_attached(1);
	atomic_store_explicit(&ggmlviz__state.gpu_run_end, run_end, memory_order_release);
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, run_begin, memory_order_release);
	say_how(how, what, size);
	return 0;
}

/* CUPTI's side of the correlation, for the session's last word. */
static void say_correlation(char *said, size_t size)
{
	struct ggmlviz__cupti_records r;
	int n;

	ggmlviz__cupti_records_counts(&r);
	n = snprintf(said, size, "; CUPTI's correlation: %llu API records (%s), %llu of them tied "
		     "to a run", (unsigned long long)r.api_records, api_mode_names[cupti.api_mode],
		     (unsigned long long)r.correlations);
	if (atomic_load(&cupti.refused) && n > 0 && (size_t)n < size)
		n += snprintf(said + n, size - (size_t)n, ", %llu runs' ids refused (CUPTI error %d)",
			      (unsigned long long)atomic_load(&cupti.refused),
			      atomic_load(&cupti.refused_rc));
	if (r.cut && n > 0 && (size_t)n < size)
		n += snprintf(said + n, size - (size_t)n, "; %llu buffers read up to a record CUPTI "
			      "called incomplete or invalid, the records after it lost",
			      (unsigned long long)r.cut);
	if (n > 0 && (size_t)n < size)
		snprintf(said + n, size - (size_t)n, "%s", cupti.detach_note);
}

static void cupti_stop(char *said, size_t size)
{
	if (!cupti.session)
		return;
	/* runs begun now push nothing; a run still open pops through run_end */
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, NULL, memory_order_release);
	atomic_store(&cupti.tagging, 0);
	stop_flusher();
	if (cupti.subscribed && !atomic_load(&cupti.fatal)) {
		disable_all();
		api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); /* every buffer, through on_complete */
		ggmlviz__cupti_quiesce();
	}
	ggmlviz__gpu_settle(GGMLVIZ__GPU_FINAL);
	if (cupti.subscribed)
		unsubscribe();
	ggmlviz__cupti_records_close();
	cupti.session = 0;
	say_correlation(said, size);
}

/*
 * Unloaded with the object that linked the library: CUPTI keeps the
 * buffer callbacks it was given (cuptiActivityRegisterCallbacks) past
 * any unsubscribe, and would call them, unmapped, with its next buffer:
 * cuptiFinalize() drops everything it holds of this library. Its own
 * code stays loaded, as it may still be used by the program.
 */
static void cupti_unload(void)
{
	if (cupti.attached && api.finalize && api.finalize() == CUPTI_SUCCESS) {
		cupti.attached = 0;
		ggmlviz__cupti_pool_reclaim(); /* CUPTI holds none of them any more */
	}
	ggmlviz__cupti_pool_free(); /* those it still holds, were it kept, stay its */
}

static void cupti_after_fork_child(void)
{
	cupti.attached = 0; /* the parent's */
	cupti.session = cupti.subscribed = cupti.flushing = 0;
	atomic_store(&cupti.tagging, 0);
	atomic_store(&cupti.pushing, 0);
	tls_pushed = 0; /* the forking thread's run pops nothing here */
	ggmlviz__cupti_records_forget();
}

#else /* !HAVE_CUPTI */

static int cupti_available(const char *path, char *why, size_t size)
{
	(void)path;
	snprintf(why, size, "not recorded: this libggmlviz was built without CUPTI's headers "
		 "(configure --with-cupti=DIR, where include/cupti.h is)");
	return -2;
}

static int cupti_start(const struct ggmlviz__gpu_how *how, char *what, size_t size)
{
	return cupti_available(how->path, what, size);
}

static void cupti_stop(char *said, size_t size)
{
	(void)said, (void)size;
}

static void cupti_after_fork_child(void)
{
}

static void cupti_unload(void)
{
}

#endif /* HAVE_CUPTI */

const struct ggmlviz__gpu_profiler ggmlviz__cupti = { cupti_available, cupti_start, cupti_stop,
						      cupti_after_fork_child, cupti_unload };
