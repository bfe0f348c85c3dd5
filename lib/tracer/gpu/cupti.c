/*
 * NVIDIA's CUPTI as the GPU profiler (see gpu.h): loaded at run time with
 * dlopen(3), so that libggmlviz links nothing of CUDA, and compiled only
 * where CUPTI's headers were found (configure --with-cupti).
 *
 * Kernels are recorded by CUPTI's activity API as CONCURRENT_KERNEL
 * records (which leave kernels concurrent and CUDA graphs as they are),
 * with each launch's run from an external correlation id the node engine
 * pushes at a run's first ask and pops at its end (gpu_run_begin/end):
 * every launch in between, a cudaGraphLaunch too, carries it. Buffers come
 * from a pool of the session's size, allocated at start: a full pool
 * makes CUPTI drop records, which it counts, and so does the trace.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "tracer/gpu/gpu.h"

#if HAVE_CUPTI

#include <dlfcn.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

#include "tracer/base/clock.h"
#include "tracer/base/compat.h"

/*
 * The kernel record: CUPTI writes the newest version its library knows;
 * the members read here (start, end, deviceId, streamId, correlationId,
 * name) sit at the same offsets in every version since Kernel4.
 */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 kernel_record;
#else
typedef CUpti_ActivityKernel8 kernel_record;
#endif

#define BUFFER_BYTES ((size_t)1 << 20)
#define MAX_BUFFERS 1024
#define FLUSH_MS 100u /* CUPTI hands buffers over at least this often */

/* The functions of libcupti used here. */
static struct {
	CUptiResult (*get_version)(uint32_t *);
	CUptiResult (*register_callbacks)(CUpti_BuffersCallbackRequestFunc,
					  CUpti_BuffersCallbackCompleteFunc);
	CUptiResult (*enable)(CUpti_ActivityKind);
	CUptiResult (*disable)(CUpti_ActivityKind);
	CUptiResult (*next_record)(uint8_t *, size_t, CUpti_Activity **);
	CUptiResult (*dropped)(CUcontext, uint32_t, size_t *);
	CUptiResult (*flush_all)(uint32_t);
	CUptiResult (*flush_period)(uint32_t);
	CUptiResult (*push)(CUpti_ExternalCorrelationKind, uint64_t);
	CUptiResult (*pop)(CUpti_ExternalCorrelationKind, uint64_t *);
	CUptiResult (*timestamp)(uint64_t *);
	CUptiResult (*result_string)(CUptiResult, const char **);
} api;

static void *lib;
static char lib_path[256];
static int subscribed; /* once, the library stays: a thread may still pop its run */

/* The pool: buffers, and which are free (a bit each). */
static uint8_t *pool[MAX_BUFFERS];
static size_t n_pool;
static _Atomic uint64_t free_bits[MAX_BUFFERS / 64];

/* ---- the library ---- */

#define LOAD(field, symbol) \
	(*(void **)&api.field = dlsym(lib, symbol)) != NULL

static int load_symbols(void)
{
	return LOAD(get_version, "cuptiGetVersion") &&
	       LOAD(register_callbacks, "cuptiActivityRegisterCallbacks") &&
	       LOAD(enable, "cuptiActivityEnable") && LOAD(disable, "cuptiActivityDisable") &&
	       LOAD(next_record, "cuptiActivityGetNextRecord") &&
	       LOAD(dropped, "cuptiActivityGetNumDroppedRecords") &&
	       LOAD(flush_all, "cuptiActivityFlushAll") &&
	       LOAD(flush_period, "cuptiActivityFlushPeriod") &&
	       LOAD(push, "cuptiActivityPushExternalCorrelationId") &&
	       LOAD(pop, "cuptiActivityPopExternalCorrelationId") &&
	       LOAD(timestamp, "cuptiGetTimestamp") &&
	       LOAD(result_string, "cuptiGetResultString");
}

/* Loads libcupti from path, or from where it usually is; 0, or -1 with why. */
static int load(const char *path, char *why, size_t size)
{
	static const char *const places[] = {
		"libcupti.so.13", "libcupti.so.12", "libcupti.so.11.8", "libcupti.so",
		"/usr/local/cuda/extras/CUPTI/lib64/libcupti.so",
		"/usr/local/cuda/lib64/libcupti.so",
	};

	for (size_t i = 0; !lib && i < (path ? 1 : sizeof places / sizeof places[0]); i++) {
		const char *p = path ? path : places[i];
		if ((lib = dlopen(p, RTLD_NOW | RTLD_LOCAL)))
			snprintf(lib_path, sizeof lib_path, "%s", p);
	}
	if (!lib) {
		snprintf(why, size, "not recorded: %s could not be loaded (%s); GGML_VIZ_CUPTI=PATH "
			 "names it", path ? path : "libcupti (CUDA's profiling library)",
			 path ? dlerror() : "not found where the dynamic loader and /usr/local/cuda look");
		return path ? -1 : -2; /* none here: a CPU machine, nothing to say */
	}
	if (!load_symbols()) {
		snprintf(why, size, "not recorded: %s lacks a function of CUPTI's activity API",
			 lib_path);
		return -1;
	}
	return 0;
}

/* The API generation: 13 for CUDA 13's CUPTI, 0 for the older numbering (CUDA 11 and 12). */
static uint32_t generation(uint32_t version)
{
	return version >= 10000 ? version / 10000 : 0;
}

static const char *cupti_error(CUptiResult rc)
{
	const char *s = NULL;

	if (api.result_string && api.result_string(rc, &s) == CUPTI_SUCCESS && s)
		return s;
	return "unknown error";
}

/* ---- buffers ---- */

static uint8_t *take_buffer(void)
{
	for (size_t w = 0; w < (n_pool + 63) / 64; w++) {
		uint64_t bits = atomic_load(&free_bits[w]);

		while (bits) {
			unsigned b = (unsigned)__builtin_ctzll(bits);
			if (atomic_compare_exchange_weak(&free_bits[w], &bits, bits & ~(1ull << b)))
				return pool[w * 64 + b];
		}
	}
	return NULL; /* all in CUPTI's hands: it drops, and counts */
}

static void give_back(uint8_t *buffer)
{
	for (size_t i = 0; i < n_pool; i++)
		if (pool[i] == buffer)
			atomic_fetch_or(&free_bits[i / 64], 1ull << (i % 64));
}

static void CUPTIAPI on_request(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = take_buffer();
	*size = *buffer ? BUFFER_BYTES : 0;
	*max_records = 0;
}

static int cupti_now(uint64_t *ns)
{
	return api.timestamp(ns) == CUPTI_SUCCESS ? 0 : -1;
}

/* A clock point now: CUPTI's timestamp and the tracer's stamp, read together. */
static void clock_point(void)
{
	ggmlviz__gpu_clock_read(cupti_now);
}

static void one_record(const CUpti_Activity *a)
{
	if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
		const kernel_record *k = (const kernel_record *)a;
		struct ggmlviz__gpu_launch l = { k->start, k->end, k->deviceId, k->streamId,
						 k->correlationId, k->name };
		ggmlviz__gpu_kernel(&l);
	} else if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
		const CUpti_ActivityExternalCorrelation *c = (const CUpti_ActivityExternalCorrelation *)a;
		if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
			ggmlviz__gpu_correlate(c->correlationId, c->externalId);
	}
}

static void CUPTIAPI on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size,
				 size_t valid)
{
	CUpti_Activity *a = NULL;
	size_t dropped = 0;

	(void)size;
	clock_point();
	while (valid && api.next_record(buffer, valid, &a) == CUPTI_SUCCESS)
		one_record(a);
	if (api.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
		ggmlviz__gpu_dropped(dropped);
	ggmlviz__gpu_settle(0);
	give_back(buffer);
}

static int make_pool(uint64_t bytes)
{
	n_pool = (size_t)(bytes / BUFFER_BYTES);
	n_pool = n_pool < 2 ? 2 : n_pool > MAX_BUFFERS ? MAX_BUFFERS : n_pool;
	for (size_t i = 0; i < n_pool; i++)
		if (!pool[i] && !(pool[i] = aligned_alloc(8, BUFFER_BYTES)))
			return -1;
	for (size_t w = 0; w < MAX_BUFFERS / 64; w++)
		atomic_store(&free_bits[w], 0);
	for (size_t i = 0; i < n_pool; i++)
		atomic_fetch_or(&free_bits[i / 64], 1ull << (i % 64));
	return 0;
}

/* ---- the run hooks, on the traced program's threads ---- */

static void run_begin(uint64_t run_id)
{
	api.push(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, run_id);
}

static void run_end(void)
{
	uint64_t last;

	api.pop(CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0, &last);
}

/* ---- the session's side ---- */

static int subscribe(char *why, size_t size)
{
	CUptiResult rc = api.register_callbacks(on_request, on_complete);

	if (rc == CUPTI_SUCCESS)
		rc = api.enable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	if (rc == CUPTI_SUCCESS)
		rc = api.enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	if (rc != CUPTI_SUCCESS) {
		api.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
		snprintf(why, size, "not recorded: CUPTI refused to record kernels (%s): no NVIDIA "
			 "driver or GPU here, or another profiler holds CUPTI", cupti_error(rc));
		return -1;
	}
	api.flush_period(FLUSH_MS);
	return 0;
}

/*
 * A CUPTI that cannot be used is unloaded: nothing of it was installed,
 * and a loaded CUPTI without a driver has threads and handlers of its own
 * (LeakSanitizer's stop of every thread at exit crashed on one).
 */
static int unload(int rc)
{
	if (lib && !subscribed) {
		dlclose(lib);
		lib = NULL;
	}
	return rc;
}

static int cupti_start(uint64_t buffer_bytes, const char *path, char *what, size_t size)
{
	uint32_t version = 0;

	int rc;

	if (!lib && !path && !ggmlviz__os_nvidia_device()) {
		snprintf(what, size, "not recorded: no NVIDIA GPU here (neither /dev/nvidiactl nor "
			 "/dev/dxg), so CUPTI was not loaded");
		return -2; /* a machine without an NVIDIA GPU: nothing to say unasked */
	}
	if (!lib && (rc = load(path, what, size)) < 0)
		return unload(rc);
	if (api.get_version(&version) != CUPTI_SUCCESS ||
	    generation(version) != generation(CUPTI_API_VERSION)) {
		snprintf(what, size, "not recorded: %s has CUPTI API version %u, this libggmlviz "
			 "was built with CUPTI's headers of version %u", lib_path, version,
			 (unsigned)CUPTI_API_VERSION);
		return unload(-1);
	}
	if (make_pool(buffer_bytes) < 0) {
		snprintf(what, size, "not recorded: no memory for CUPTI's buffers");
		return unload(-1);
	}
	ggmlviz__gpu_sink_reset();
	clock_point();
	if (subscribe(what, size) < 0)
		return unload(-1);
	subscribed = 1;
	atomic_store_explicit(&ggmlviz__state.gpu_run_end, run_end, memory_order_release);
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, run_begin, memory_order_release);
	snprintf(what, size, "recorded through CUPTI (API version %u, %s), %zu MiB of buffers",
		 version, lib_path, n_pool * BUFFER_BYTES >> 20);
	return 0;
}

static void cupti_flush(void)
{
	if (lib)
		api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

static void cupti_stop(void)
{
	if (!lib)
		return;
	/* runs begun now push nothing; a run still open pops through run_end */
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, NULL, memory_order_release);
	api.disable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	api.disable(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
	api.flush_all(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
}

#else /* !HAVE_CUPTI */

static int cupti_start(uint64_t buffer_bytes, const char *path, char *what, size_t size)
{
	(void)buffer_bytes;
	(void)path;
	snprintf(what, size, "not recorded: this libggmlviz was built without CUPTI's headers "
		 "(configure --with-cupti=DIR, where include/cupti.h is)");
	return -2;
}

static void cupti_flush(void)
{
}

static void cupti_stop(void)
{
}

#endif /* HAVE_CUPTI */

const struct ggmlviz__gpu_profiler ggmlviz__cupti = { cupti_start, cupti_flush, cupti_stop };
