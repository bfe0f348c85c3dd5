/*
 * The records CUPTI hands back (see cupti.h): each buffer read on the
 * thread CUPTI completes it on, its kernels, copies and sets given to the
 * sink, its external correlation records to the map of launches to runs;
 * the counts the session's last word gives; and GGML_VIZ_CUPTI_LOG, the
 * records as they came.
 *
 * A completion may run on CUPTI's own thread at any time, even after the
 * session stopped (a buffer its thread took out before the last flush):
 * the raw log is written and closed under a lock, so that a late buffer
 * never writes to a closed file, and a buffer that comes after the stop is
 * counted, its records left out (the trace has ended).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>

#include "tracer/gpu/gpu.h"

#if HAVE_CUPTI

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "tracer/gpu/cupti.h"
#include "util/leaving.h"

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
SAME_AS_OLDEST(CUpti_ActivityGraphTrace2, CUpti_ActivityGraphTrace, start);
SAME_AS_OLDEST(CUpti_ActivityGraphTrace2, CUpti_ActivityGraphTrace, end);
SAME_AS_OLDEST(CUpti_ActivityGraphTrace2, CUpti_ActivityGraphTrace, correlationId);
SAME_AS_OLDEST(CUpti_ActivityGraphTrace2, CUpti_ActivityGraphTrace, deviceId);
SAME_AS_OLDEST(CUpti_ActivityGraphTrace2, CUpti_ActivityGraphTrace, streamId);
#else
typedef CUpti_ActivityKernel8 kernel_record;
typedef CUpti_ActivityMemcpy5 memcpy_record;
#endif
typedef CUpti_ActivityMemset4 memset_record;
/* GRAPH_TRACE's first layout, whose members GraphTrace2 keeps where they were. */
typedef CUpti_ActivityGraphTrace graph_record;

#define api ggmlviz__cupti_api

static pthread_mutex_t raw_lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	FILE *raw;                     /* GGML_VIZ_CUPTI_LOG, under raw_lock */
	_Atomic int open;              /* a session reads buffers: not stopped */
	_Atomic int completing;        /* buffers being read now */
	_Atomic uint64_t completed;    /* buffers read so far */
	_Atomic uint64_t api_records;  /* RUNTIME and DRIVER records delivered */
	_Atomic uint64_t correlations; /* external correlation records of ours delivered */
	_Atomic uint64_t cut;          /* buffers whose reading stopped at a record CUPTI called invalid */
	_Atomic uint64_t late;         /* buffers handed back after the stop: left out */
} rec;

int ggmlviz__cupti_now(uint64_t *ns)
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
	} else if (a->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) { /* GGML_VIZ_CUPTI_GRAPHS */
		const graph_record *g = (const graph_record *)a;
		*l = (struct ggmlviz__gpu_launch){ g->start, g->end, g->deviceId, g->streamId,
						   g->correlationId, "[CUDA graph]", 0 };
	} else {
		return -1;
	}
	return 0;
}

/* An external correlation record: the launch it precedes was made inside that run. */
static void correlation(const CUpti_ActivityExternalCorrelation *c)
{
	if (c->externalKind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
		atomic_fetch_add_explicit(&rec.correlations, 1, memory_order_relaxed);
		ggmlviz__gpu_correlate(c->correlationId, c->externalId);
	}
	if (rec.raw)
		fprintf(rec.raw, "E %u %llu %d\n", c->correlationId,
			(unsigned long long)c->externalId, (int)c->externalKind);
}

/* One record to the sink (raw_lock held); 1 when it was a GPU record without its times (left out). */
static int one_record(const CUpti_Activity *a)
{
	struct ggmlviz__gpu_launch l;

	if (a->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION) {
		correlation((const CUpti_ActivityExternalCorrelation *)a);
		return 0;
	}
	if (gpu_record(a, &l) < 0) { /* an API record: it only made the correlation */
		if (a->kind == CUPTI_ACTIVITY_KIND_RUNTIME || a->kind == CUPTI_ACTIVITY_KIND_DRIVER)
			atomic_fetch_add_explicit(&rec.api_records, 1, memory_order_relaxed);
		return 0;
	}
	if (rec.raw)
		fprintf(rec.raw, "%c %u %llu %llu %u %u %s\n", l.copy ? 'C' : 'K', l.correlation,
			(unsigned long long)l.start, (unsigned long long)l.end, l.stream, l.device,
			l.name ? l.name : "?");
	if (!l.start || l.end < l.start)
		return 1; /* delivered before the GPU gave its times: at the clock's origin otherwise */
	ggmlviz__gpu_kernel(&l);
	return 0;
}

/*
 * Every record of a buffer. CUPTI's iterator stops at a record it calls
 * incomplete or invalid (CUPTI_ERROR_INVALID_KIND), and so must its
 * client: what follows it in the buffer cannot be found. Counted, and said.
 */
static uint64_t read_buffer(uint8_t *buffer, size_t valid)
{
	CUpti_Activity *a = NULL;
	uint64_t incomplete = 0;
	CUptiResult rc = CUPTI_SUCCESS;

	ggmlviz__inner_lock(&raw_lock);
	while (valid && (rc = api.next_record(buffer, valid, &a)) == CUPTI_SUCCESS)
		incomplete += (uint64_t)one_record(a);
	if (valid && rc != CUPTI_ERROR_MAX_LIMIT_REACHED)
		atomic_fetch_add_explicit(&rec.cut, 1, memory_order_relaxed);
	ggmlviz__inner_unlock(&raw_lock);
	return incomplete;
}

void CUPTIAPI ggmlviz__cupti_on_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer,
					 size_t size, size_t valid)
{
	size_t dropped = 0;
	uint64_t incomplete = 0;

	(void)size;
	atomic_fetch_add(&rec.completing, 1);
	if (atomic_load(&rec.open)) {
		ggmlviz__gpu_clock_read(ggmlviz__cupti_now);
		incomplete = read_buffer(buffer, valid);
		if (api.dropped(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped)
			ggmlviz__gpu_dropped(dropped);
		if (incomplete)
			ggmlviz__gpu_incomplete(incomplete);
	} else {
		atomic_fetch_add(&rec.late, 1); /* after the stop: the trace has ended */
	}
	ggmlviz__cupti_pool_give_back(buffer); /* its kernels are written by the next pass */
	atomic_fetch_add(&rec.completed, 1);
	atomic_fetch_sub(&rec.completing, 1);
}

void ggmlviz__cupti_quiesce(void)
{
	const struct timespec tick = { 0, 5000000 };
	uint64_t seen = atomic_load(&rec.completed);
	int still = 0;

	for (int i = 0; i < 100 && still < 4; i++) {
		uint64_t now;

		nanosleep(&tick, NULL);
		now = atomic_load(&rec.completed);
		still = now == seen && !atomic_load(&rec.completing) ? still + 1 : 0;
		seen = now;
	}
}

/*
 * GGML_VIZ_CUPTI_LOG=FILE: a line for each kernel, copy and set as CUPTI
 * delivered it ("K|C correlation start end stream device name", CUPTI's
 * own nanoseconds), and one for each external correlation record
 * ("E correlation external-id external-kind"), for comparing a trace with
 * CUPTI's raw records (bench/gpu-check.sh) or reporting a GPU's records as
 * they came. Asked for by the environment only: a debugging aid, not a
 * setting.
 */
void ggmlviz__cupti_records_open(void)
{
	const char *path = getenv("GGML_VIZ_CUPTI_LOG");

	atomic_store(&rec.api_records, 0);
	atomic_store(&rec.correlations, 0);
	atomic_store(&rec.cut, 0);
	atomic_store(&rec.late, 0);
	ggmlviz__inner_lock(&raw_lock);
	if (rec.raw)
		fclose(rec.raw);
	rec.raw = path && *path ? fopen(path, "w") : NULL;
	ggmlviz__inner_unlock(&raw_lock);
	atomic_store(&rec.open, 1);
}

void ggmlviz__cupti_records_close(void)
{
	atomic_store(&rec.open, 0);
	ggmlviz__inner_lock(&raw_lock); /* a buffer being read finishes first */
	if (rec.raw)
		fclose(rec.raw);
	rec.raw = NULL;
	ggmlviz__inner_unlock(&raw_lock);
}

void ggmlviz__cupti_records_counts(struct ggmlviz__cupti_records *out)
{
	out->api_records = atomic_load(&rec.api_records);
	out->correlations = atomic_load(&rec.correlations);
	out->cut = atomic_load(&rec.cut);
	out->late = atomic_load(&rec.late);
}

/* After fork(), in the child: the lock may have been held by a thread that is not there. */
void ggmlviz__cupti_records_forget(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	raw_lock = fresh;
	rec.raw = NULL; /* the parent's stream: never flushed or closed here */
	atomic_store(&rec.open, 0);
	atomic_store(&rec.completing, 0);
}

#endif /* HAVE_CUPTI */
