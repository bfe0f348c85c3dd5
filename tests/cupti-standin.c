/*
 * A stand-in for NVIDIA's libcupti, for the tests of the CUPTI client
 * without a GPU: what it does and why is in cupti-standin.h.
 *
 * One lock guards everything; the client's callbacks run without it (the
 * completion callback calls back into cuptiActivityGetNextRecord), except
 * the request callback, which CUPTI calls on the thread that needs a
 * buffer, in the middle of its own work.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <cupti.h>

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cupti-standin.h"

#define EXPORT __attribute__((visibility("default")))
#define SLOTS 256u          /* threads with buffers of their own */
#define PENDING 65536u      /* GPU records whose times are not known yet */
#define STREAMS 64u
#define EXT_DEPTH 16u
#define EXT_MAP 65536u      /* correlation -> external id, for the log */
#define WORKERS 2
#define WORKER_NS 5000000L  /* CUPTI's threads look for full buffers this often */
#define LAUNCH_NS 2000u     /* a launch reaches the GPU this long after the call */

/* A client's buffer, while CUPTI holds it. */
struct buf {
	uint8_t *p;
	size_t size, used, max_records;
	uint32_t records, incomplete;
	int full;    /* takes no more records */
	int slot;    /* the thread whose buffer it is, -1 the device's, -2 the only one */
	struct buf *next;
};

/* A GPU record written without its times, which the GPU gives later. */
struct pending {
	struct buf *b;
	size_t off;
	uint64_t start, end;
};

static struct {
	pthread_mutex_t lock;
	CUpti_BuffersCallbackRequestFunc request;
	CUpti_BuffersCallbackCompleteFunc complete;
	CUpti_CallbackFunc callback;   /* the subscriber's */
	void *callback_user;
	int domains[CUPTI_CB_DOMAIN_SIZE]; /* callbacks enabled by domain (cuptiEnableDomain) */
	int attached;         /* initialized: the first call, or the first after cuptiFinalize */
	uint32_t generation;  /* finalizations so far: a thread's correlation stack of an older one is gone */
	int refuse_finalize, refuse_reattach; /* CUPTI_STANDIN_FINALIZE, _REATTACH = refuse */
	uint32_t invalid_at;  /* CUPTI_STANDIN_INVALID: the GPU record written invalid (1: the first) */
	uint32_t gpu_records;
	int late;             /* CUPTI_STANDIN_LATE: a buffer held back at a forced flush, handed over at unsubscribe */
	struct buf *late_buf;
	const uint8_t *slow;  /* the buffer being read slowly (the late one) */
	int late_started;
	pthread_t late_thread;
	pthread_cond_t late_cond;
	pid_t pid;            /* of the process that loaded it: a forked child's calls abort */
	uint32_t version;
	CUptiResult refuse;
	const char *holder;
	uint32_t device_records; /* CUPTI_STANDIN_RECORDS */
	uint32_t per_run;
	uint64_t kernel_ns;
	FILE *log;
	int registered, per_thread, subscribed, torn_down, stopping;
	uint8_t kinds[64];
	uint8_t runtime_cbids[1024], driver_cbids[1024];
	struct buf *held;     /* every buffer CUPTI holds */
	struct buf *device, *only;
	struct buf *slots[SLOTS];
	uint32_t n_slots;
	struct pending pending[PENDING];
	uint32_t n_pending;
	uint64_t busy[STREAMS];
	int in_graph;         /* a graph's kernels are being scheduled: one after another */
	uint32_t correlation;
	uint64_t ext_of[EXT_MAP];
	uint32_t runs, graph_nodes;
	atomic_int completing;
	uint32_t in_flight;      /* buffers taken out and not yet handed back */
	pthread_cond_t delivered;
	struct cupti_standin_counts counts;
	uint64_t dropped_unread;
	pthread_t workers[WORKERS];
	int n_workers;
} S = { .lock = PTHREAD_MUTEX_INITIALIZER, .delivered = PTHREAD_COND_INITIALIZER,
	.late_cond = PTHREAD_COND_INITIALIZER, .per_thread = 1 };

static _Thread_local int my_slot = -1;
static _Thread_local uint64_t ext_stack[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE][EXT_DEPTH];
static _Thread_local uint32_t ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_SIZE];
static _Thread_local uint32_t ext_generation; /* the CUPTI the stack was pushed to */

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * A call into CUPTI: after the exit handler tore it down, what the real
 * one does is undefined; after cuptiFinalize(), it attaches CUPTI again
 * ("any subsequent CUPTI API call will reinitialize the CUPTI", as
 * NVIDIA's cupti_finalize sample says), which the counts show.
 */
static void alive(const char *fn)
{
	if (S.torn_down) {
		fprintf(stderr, "cupti-standin: %s called after CUPTI was torn down at exit\n", fn);
		abort();
	}
	if (getpid() != S.pid) {
		fprintf(stderr, "cupti-standin: %s called in a child of fork(), whose CUPTI is the "
				"parent's\n", fn);
		abort();
	}
	if (!__atomic_load_n(&S.attached, __ATOMIC_ACQUIRE)) {
		pthread_mutex_lock(&S.lock);
		if (!S.attached)
			S.attached = 1, S.counts.initializations++;
		pthread_mutex_unlock(&S.lock);
	}
}

/* This thread's correlation stack, emptied if CUPTI was finalized since it was pushed to. */
static uint32_t *ext_stack_depth(void)
{
	if (ext_generation != S.generation) {
		memset(ext_depth, 0, sizeof ext_depth);
		ext_generation = S.generation;
	}
	return ext_depth;
}

/* ---- records into buffers ---- */

static size_t record_size(CUpti_ActivityKind kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return sizeof(CUpti_ActivityAPI);
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	case CUPTI_ACTIVITY_KIND_GRAPH_TRACE:
		return sizeof(CUpti_ActivityGraphTrace2);
	default:
		return 0;
	}
}

/* A NULL buffer: records dropped from API version 27 (CUDA 12.9) on, a crash before. */
static void no_buffer(void)
{
	if (S.version < 27) {
		fprintf(stderr, "cupti-standin: the request callback gave no buffer: CUPTI of API "
				"version %u dereferences it\n", S.version);
		raise(SIGSEGV);
	}
	S.counts.null_buffers++;
}

static struct buf *new_buffer(int slot)
{
	struct buf *b = calloc(1, sizeof *b);

	if (!b)
		abort();
	S.request(&b->p, &b->size, &b->max_records);
	if (!b->p) {
		free(b);
		no_buffer();
		return NULL;
	}
	for (struct buf *h = S.held; h; h = h->next)
		if (h->p == b->p) {
			fprintf(stderr, "cupti-standin: the request callback gave a buffer CUPTI still "
					"holds (%p)\n", (void *)b->p);
			abort();
		}
	b->slot = slot;
	b->next = S.held;
	S.held = b;
	S.counts.buffers_given++;
	S.counts.buffers_held++;
	return b;
}

/* The buffer a record of `bytes` goes to now: the thread's, the device's or the only one. */
static struct buf **current(int gpu)
{
	if (!S.per_thread)
		return &S.only;
	if (gpu)
		return &S.device;
	if (my_slot < 0 && S.n_slots < SLOTS)
		my_slot = (int)S.n_slots++;
	return my_slot < 0 ? &S.device : &S.slots[my_slot];
}

/* Room for a record of `kind` in the current buffer; NULL when it was dropped. */
static void *append(CUpti_ActivityKind kind, int gpu, struct buf **where)
{
	size_t n = record_size(kind);
	struct buf **cur = current(gpu);
	struct buf *b = *cur;
	uint32_t cap = gpu && S.device_records ? S.device_records : UINT32_MAX;

	if (b && (b->used + n > b->size || b->records >= cap ||
		  (b->max_records && b->records >= b->max_records)))
		b->full = 1;
	if (!b || b->full) {
		*cur = b = new_buffer(cur == &S.device ? -1 : cur == &S.only ? -2 : my_slot);
		if (!b) {
			S.counts.records_dropped++;
			S.dropped_unread++;
			if (S.log)
				fprintf(S.log, "D 1\n");
			return NULL;
		}
	}
	*where = b;
	memset(b->p + b->used, 0, n);
	b->used += n;
	b->records++;
	return b->p + b->used - n;
}

/* ---- the API's records, and the GPU's ---- */

/*
 * Whether a call's API record is made. The header (cupti_activity.h, at
 * cuptiActivityEnableRuntimeApi) gives two ways: the kind whole, then
 * calls off; or calls on without the kind. CUPTI 13.0 on an H200 (driver
 * 580) made no API record, hence no external correlation record, the
 * second way; the stand-in does as it did: a call's record needs both.
 */
static int api_recorded(int driver, CUpti_CallbackId cbid)
{
	if (driver)
		return S.kinds[CUPTI_ACTIVITY_KIND_DRIVER] && (cbid >= 1024 || S.driver_cbids[cbid]);
	return S.kinds[CUPTI_ACTIVITY_KIND_RUNTIME] && (cbid >= 1024 || S.runtime_cbids[cbid]);
}

/* A runtime API call on this thread: its correlation id, and its records if wanted. */
static uint32_t api_call(CUpti_CallbackId cbid)
{
	uint32_t c = ++S.correlation;
	uint64_t t = now_ns();
	struct buf *b;

	(void)ext_stack_depth();
	S.ext_of[c % EXT_MAP] = ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0]
		? ext_stack[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0]
			   [ext_depth[CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0] - 1]
		: 0;
	if (!api_recorded(0, cbid))
		return c;
	for (int k = 0; k < CUPTI_EXTERNAL_CORRELATION_KIND_SIZE; k++) {
		CUpti_ActivityExternalCorrelation *x;

		if (!S.kinds[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION] || !ext_depth[k])
			continue;
		x = append(CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION, 0, &b);
		if (!x)
			continue;
		x->kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
		x->externalKind = (CUpti_ExternalCorrelationKind)k;
		x->externalId = ext_stack[k][ext_depth[k] - 1];
		x->correlationId = c;
	}
	CUpti_ActivityAPI *a = append(CUPTI_ACTIVITY_KIND_RUNTIME, 0, &b);
	S.counts.api_records++;
	if (a) {
		a->kind = CUPTI_ACTIVITY_KIND_RUNTIME;
		a->cbid = cbid;
		a->start = t;
		a->end = t + 1000;
		a->processId = (uint32_t)getpid();
		a->threadId = (uint32_t)syscall(SYS_gettid);
		a->correlationId = c;
	}
	return c;
}

/* When the GPU runs work of ns on stream, after what the stream has. */
static void schedule(uint32_t stream, uint64_t ns, uint64_t *start, uint64_t *end)
{
	uint64_t at = S.in_graph ? 0 : now_ns() + LAUNCH_NS; /* a graph's kernels: back to back */
	uint64_t *busy = &S.busy[stream % STREAMS];

	*start = at > *busy ? at : *busy;
	*end = *busy = *start + ns;
}

static void pend(struct buf *b, void *rec, uint64_t start, uint64_t end)
{
	if (S.n_pending == PENDING)
		abort(); /* a test launching this much without a flush is wrong */
	b->incomplete++;
	S.pending[S.n_pending++] = (struct pending){ b, (size_t)((uint8_t *)rec - b->p), start, end };
}

static void gpu_kernel(const char *name, uint64_t ns, uint32_t stream, uint32_t c, uint32_t graph)
{
	CUpti_ActivityKernel10 *k;
	uint64_t start, end;
	struct buf *b;

	schedule(stream, ns, &start, &end);
	if (!S.kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL] ||
	    !(k = append(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, 1, &b)))
		return;
	k->kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	k->deviceId = 0;
	k->contextId = 1;
	k->streamId = stream;
	k->correlationId = c;
	k->name = name;
	k->gridX = k->gridY = k->gridZ = k->blockX = k->blockY = k->blockZ = 1;
	k->graphId = graph;
	k->graphNodeId = graph ? (uint64_t)graph << 32 | ++S.graph_nodes : 0;
	if (++S.gpu_records == S.invalid_at) {
		/* a record CUPTI calls invalid, last of its buffer: the iterator stops at it */
		k->kind = CUPTI_ACTIVITY_KIND_INVALID;
		b->full = 1;
		return;
	}
	pend(b, k, start, end);
}

static void gpu_copy(int memset_, uint8_t copy_kind, uint64_t bytes, uint64_t ns, uint32_t stream,
		     uint32_t c)
{
	CUpti_ActivityKind kind = memset_ ? CUPTI_ACTIVITY_KIND_MEMSET : CUPTI_ACTIVITY_KIND_MEMCPY;
	uint64_t start, end;
	struct buf *b;
	void *rec;

	schedule(stream, ns, &start, &end);
	if (!S.kinds[kind] || !(rec = append(kind, 1, &b)))
		return;
	if (memset_) {
		CUpti_ActivityMemset4 *m = rec;
		*m = (CUpti_ActivityMemset4){ .kind = kind, .bytes = bytes, .deviceId = 0,
					      .contextId = 1, .streamId = stream, .correlationId = c };
	} else {
		CUpti_ActivityMemcpy6 *m = rec;
		*m = (CUpti_ActivityMemcpy6){ .kind = kind, .copyKind = copy_kind, .bytes = bytes,
					      .deviceId = 0, .contextId = 1, .streamId = stream,
					      .correlationId = c };
	}
	pend(b, rec, start, end);
}

/*
 * GRAPH_TRACE, where enabled (it and CONCURRENT_KERNEL exclude each other,
 * cuptiActivityEnable refuses the second): the graph's kernels just
 * scheduled as one record, from the first one's start to the last one's
 * end on its stream.
 */
static void gpu_graph(uint32_t stream, uint32_t c, uint32_t graph, uint64_t start)
{
	CUpti_ActivityGraphTrace2 *g;
	uint64_t end = S.busy[stream % STREAMS];
	struct buf *b;

	if (!S.kinds[CUPTI_ACTIVITY_KIND_GRAPH_TRACE] ||
	    !(g = append(CUPTI_ACTIVITY_KIND_GRAPH_TRACE, 1, &b)))
		return;
	g->kind = CUPTI_ACTIVITY_KIND_GRAPH_TRACE;
	g->correlationId = c;
	g->deviceId = 0;
	g->graphId = graph;
	g->contextId = 1;
	g->streamId = stream;
	pend(b, g, start, end);
}

/* Writes the times of a GPU record into it. */
static void set_times(const struct pending *p, uint64_t start, uint64_t end)
{
	CUpti_Activity *a = (CUpti_Activity *)(p->b->p + p->off);

	if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY)
		((CUpti_ActivityMemcpy6 *)a)->start = start, ((CUpti_ActivityMemcpy6 *)a)->end = end;
	else if (a->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE)
		((CUpti_ActivityGraphTrace2 *)a)->start = start, ((CUpti_ActivityGraphTrace2 *)a)->end = end;
	else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET)
		((CUpti_ActivityMemset4 *)a)->start = start, ((CUpti_ActivityMemset4 *)a)->end = end;
	else
		((CUpti_ActivityKernel10 *)a)->start = start, ((CUpti_ActivityKernel10 *)a)->end = end,
		((CUpti_ActivityKernel10 *)a)->completed = end;
}

/* The GPU finished what ended by now: those records get their times. */
static void complete_due(void)
{
	uint64_t now = now_ns();
	uint32_t kept = 0;

	for (uint32_t i = 0; i < S.n_pending; i++) {
		struct pending *p = &S.pending[i];

		if (p->end <= now) {
			set_times(p, p->start, p->end);
			p->b->incomplete--;
		} else {
			S.pending[kept++] = *p;
		}
	}
	S.n_pending = kept;
}

/* ---- delivery ---- */

enum handover { FULL_ONLY, COMPLETE, FORCED };

/* A forced flush: the records of b the GPU has not finished go as they are (start or end 0). */
static void force_out(struct buf *b)
{
	uint32_t kept = 0;
	uint64_t now = now_ns();

	for (uint32_t i = 0; i < S.n_pending; i++) {
		struct pending *p = &S.pending[i];

		if (p->b != b) {
			S.pending[kept++] = *p;
			continue;
		}
		set_times(p, p->start <= now ? p->start : 0, 0); /* running: a start; queued: none */
		S.counts.incomplete++;
	}
	S.n_pending = kept;
	b->incomplete = 0;
}

static void log_buffer(const struct buf *b)
{
	for (size_t off = 0; S.log && off < b->used;) {
		const CUpti_Activity *a = (const CUpti_Activity *)(b->p + off);
		uint64_t start = 0, end = 0;
		uint32_t c = 0, stream = 0;
		const char *name = "";
		char what = 0;

		if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			const CUpti_ActivityKernel10 *k = (const void *)a;
			what = 'K', start = k->start, end = k->end, c = k->correlationId;
			stream = k->streamId, name = k->name;
		} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			const CUpti_ActivityMemcpy6 *m = (const void *)a;
			what = 'M', start = m->start, end = m->end, c = m->correlationId;
			stream = m->streamId, name = "memcpy";
		} else if (a->kind == CUPTI_ACTIVITY_KIND_MEMSET) {
			const CUpti_ActivityMemset4 *m = (const void *)a;
			what = 'S', start = m->start, end = m->end, c = m->correlationId;
			stream = m->streamId, name = "memset";
		} else if (a->kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE) {
			const CUpti_ActivityGraphTrace2 *g = (const void *)a;
			what = 'G', start = g->start, end = g->end, c = g->correlationId;
			stream = g->streamId, name = "graph";
		}
		if (what)
			fprintf(S.log, "%c %u %llu %llu %llu %u %d %s\n", what, c,
				(unsigned long long)S.ext_of[c % EXT_MAP], (unsigned long long)start,
				(unsigned long long)end, stream, start && end >= start, name);
		if (!record_size(a->kind)) {
			fprintf(S.log, "I\n"); /* invalid: the last of its buffer */
			break;
		}
		off += record_size(a->kind);
	}
	if (S.log)
		fflush(S.log);
}

/* Takes out of CUPTI's hands one buffer `how` may hand over; NULL when none. */
static struct buf *take(enum handover how)
{
	complete_due();
	for (struct buf **pp = &S.held; *pp; pp = &(*pp)->next) {
		struct buf *b = *pp;
		int ok = how == FULL_ONLY ? b->full && !b->incomplete
		       : how == COMPLETE ? b->records && !b->incomplete
				       : b->records > 0 || b->full;

		if (!ok)
			continue;
		*pp = b->next;
		/* CUPTI keeps a device buffer ready: an empty one stays in its hands */
		if (S.device == b)
			S.device = new_buffer(-1);
		if (S.only == b)
			S.only = new_buffer(-2);
		if (b->slot >= 0 && S.slots[b->slot] == b)
			S.slots[b->slot] = NULL;
		if (how == FORCED)
			force_out(b);
		log_buffer(b);
		S.counts.buffers_held--;
		S.counts.delivered++;
		if (how == FORCED && S.late && !S.late_buf && b->records && b->slot < 0) {
			S.late_buf = b; /* its own thread took it out first: handed over later */
			return take(how);
		}
		S.in_flight++;
		return b;
	}
	return NULL;
}

/* Hands b to the client, without the lock (it reads the records back through the stand-in). */
static void deliver(struct buf *b)
{
	if (atomic_fetch_add(&S.completing, 1) > 0)
		__atomic_fetch_add(&S.counts.concurrent, 1, __ATOMIC_RELAXED);
	S.complete(NULL, 0, b->p, b->size, b->used);
	atomic_fetch_sub(&S.completing, 1);
	free(b);
	pthread_mutex_lock(&S.lock);
	S.in_flight--;
	pthread_cond_broadcast(&S.delivered);
	pthread_mutex_unlock(&S.lock);
}

/* CUPTI_STANDIN_LATE: the buffer held back, handed over slowly, on a thread of CUPTI's. */
static void *late_main(void *arg)
{
	struct buf *b = arg;
	CUpti_BuffersCallbackCompleteFunc complete;

	pthread_mutex_lock(&S.lock);
	complete = S.complete;
	S.slow = b->p;
	pthread_mutex_unlock(&S.lock);
	if (complete)
		complete(NULL, 0, b->p, b->size, b->used); /* its first read says it began */
	pthread_mutex_lock(&S.lock);
	S.late_started = 1; /* also when the client read nothing of it */
	pthread_cond_broadcast(&S.late_cond);
	pthread_mutex_unlock(&S.lock);
	pthread_mutex_lock(&S.lock);
	S.slow = NULL;
	S.counts.late_delivered++;
	pthread_cond_broadcast(&S.late_cond);
	pthread_mutex_unlock(&S.lock);
	free(b);
	return NULL;
}

/* Starts handing the late buffer over, and returns once its reading began. */
static void hand_over_late(void)
{
	struct buf *b;

	pthread_mutex_lock(&S.lock);
	b = S.late_buf;
	S.late_buf = NULL;
	if (b && pthread_create(&S.late_thread, NULL, late_main, b) == 0) {
		pthread_detach(S.late_thread); /* CUPTI's thread: nobody joins it */
		while (!S.late_started)
			pthread_cond_wait(&S.late_cond, &S.lock);
	}
	pthread_mutex_unlock(&S.lock);
}

static void deliver_all(enum handover how)
{
	for (;;) {
		struct buf *b;

		pthread_mutex_lock(&S.lock);
		b = S.complete && !S.torn_down ? take(how) : NULL;
		pthread_mutex_unlock(&S.lock);
		if (!b)
			return;
		deliver(b);
	}
}

/* CUPTI's own thread: full buffers whose records are complete, every few ms. */
static void *worker(void *arg)
{
	const struct timespec pause = { 0, WORKER_NS };

	(void)arg;
	while (!__atomic_load_n(&S.stopping, __ATOMIC_ACQUIRE)) {
		nanosleep(&pause, NULL);
		deliver_all(FULL_ONLY);
	}
	return NULL;
}

/* At exit, before the handlers registered earlier: CUPTI's static destructors. */
static void teardown(void)
{
	int n;

	__atomic_store_n(&S.stopping, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&S.lock);
	S.torn_down = 1;
	S.counts.torn_down = 1;
	n = S.n_workers;
	S.n_workers = 0;
	pthread_mutex_unlock(&S.lock);
	for (int i = 0; i < n; i++) /* CUPTI's threads end with it: none left running */
		pthread_join(S.workers[i], NULL);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
	const char *s = getenv(name);

	return s && *s ? strtoull(s, NULL, 0) : def;
}

/*
 * CUPTI_STANDIN_VERSIONS="libcupti.so.13=140000,libcupti.so.12=28": this
 * copy's version by the name it was loaded as (copies of the stand-in
 * under several names, for the search of a CUPTI this build can read).
 */
static uint32_t version_by_name(uint32_t dflt)
{
	const char *list = getenv("CUPTI_STANDIN_VERSIONS"), *base;
	Dl_info info;
	size_t n;

	if (!list || !dladdr(&S, &info) || !info.dli_fname)
		return dflt;
	base = strrchr(info.dli_fname, '/');
	base = base ? base + 1 : info.dli_fname;
	n = strlen(base);
	for (const char *p = list; (p = strstr(p, base)); p += n)
		if ((p == list || p[-1] == ',') && p[n] == '=')
			return (uint32_t)strtoul(p + n + 1, NULL, 0);
	return dflt;
}

/* In a child of fork(): CUPTI's threads are the parent's; its exit handler joins none. */
static void forked_child(void)
{
	S.n_workers = 0;
	S.late_started = 0;
	pthread_mutex_init(&S.lock, NULL);
}

static int env_is(const char *name, const char *value)
{
	const char *s = getenv(name);

	return s && !strcmp(s, value);
}

__attribute__((constructor)) static void loaded(void)
{
	const char *log = getenv("CUPTI_STANDIN_LOG");

	S.version = version_by_name((uint32_t)env_u64("CUPTI_STANDIN_VERSION", CUPTI_API_VERSION));
	S.refuse_finalize = env_is("CUPTI_STANDIN_FINALIZE", "refuse");
	S.refuse_reattach = env_is("CUPTI_STANDIN_REATTACH", "refuse");
	S.invalid_at = (uint32_t)env_u64("CUPTI_STANDIN_INVALID", 0);
	S.late = env_is("CUPTI_STANDIN_LATE", "1");
	S.pid = getpid();
	pthread_atfork(NULL, NULL, forked_child);
	S.refuse = (CUptiResult)env_u64("CUPTI_STANDIN_REFUSE", CUPTI_SUCCESS);
	S.holder = getenv("CUPTI_STANDIN_HOLDER");
	S.device_records = (uint32_t)env_u64("CUPTI_STANDIN_RECORDS", 0);
	S.per_run = (uint32_t)env_u64("CUPTI_STANDIN_PER_RUN", 0);
	S.kernel_ns = env_u64("CUPTI_STANDIN_KERNEL_NS", 1500);
	S.per_thread = S.version >= 130000; /* the attribute's default from CUDA 13 on */
	S.log = log && *log ? fopen(log, "a") : NULL;
	atexit(teardown);
}

/* ---- CUPTI's entry points ---- */

EXPORT CUptiResult cuptiGetVersion(uint32_t *version)
{
	if (S.torn_down)
		alive(__func__);
	if (!version)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*version = S.version;
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiGetResultString(CUptiResult result, const char **str)
{
	static const struct { CUptiResult r; const char *s; } names[] = {
		{ CUPTI_SUCCESS, "CUPTI_SUCCESS" },
		{ CUPTI_ERROR_INVALID_PARAMETER, "CUPTI_ERROR_INVALID_PARAMETER" },
		{ CUPTI_ERROR_INVALID_OPERATION, "CUPTI_ERROR_INVALID_OPERATION" },
		{ CUPTI_ERROR_NOT_INITIALIZED, "CUPTI_ERROR_NOT_INITIALIZED" },
		{ CUPTI_ERROR_INSUFFICIENT_PRIVILEGES, "CUPTI_ERROR_INSUFFICIENT_PRIVILEGES" },
		{ CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
		  "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED" },
		{ CUPTI_ERROR_MAX_LIMIT_REACHED, "CUPTI_ERROR_MAX_LIMIT_REACHED" },
		{ CUPTI_ERROR_QUEUE_EMPTY, "CUPTI_ERROR_QUEUE_EMPTY" },
		{ CUPTI_ERROR_INVALID_KIND, "CUPTI_ERROR_INVALID_KIND" },
		{ CUPTI_ERROR_NOT_SUPPORTED, "CUPTI_ERROR_NOT_SUPPORTED" },
		{ CUPTI_ERROR_UNKNOWN, "CUPTI_ERROR_UNKNOWN" },
	};

	for (size_t i = 0; str && i < sizeof names / sizeof names[0]; i++)
		if (names[i].r == result) {
			*str = names[i].s;
			return CUPTI_SUCCESS;
		}
	return CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiGetTimestamp(uint64_t *timestamp)
{
	alive(__func__);
	*timestamp = now_ns();
	return CUPTI_SUCCESS;
}

static CUptiResult subscribe(char *other, size_t other_size)
{
	CUptiResult rc = CUPTI_SUCCESS;

	pthread_mutex_lock(&S.lock);
	if (S.holder || S.subscribed) {
		if (other && other_size)
			snprintf(other, other_size, "%s", S.holder ? S.holder : "CUPTI for a client");
		rc = CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
	} else if (S.refuse != CUPTI_SUCCESS) {
		rc = S.refuse;
	} else if (S.refuse_reattach && S.generation) {
		rc = CUPTI_ERROR_NOT_INITIALIZED; /* CUPTI_STANDIN_REATTACH: not after a finalize */
	} else {
		S.subscribed = 1;
		S.counts.subscribers = 1;
	}
	pthread_mutex_unlock(&S.lock);
	return rc;
}

static CUptiResult subscribed_with(CUptiResult rc, CUpti_CallbackFunc callback, void *userdata)
{
	if (rc == CUPTI_SUCCESS) {
		pthread_mutex_lock(&S.lock);
		S.callback = callback;
		S.callback_user = userdata;
		pthread_mutex_unlock(&S.lock);
	}
	return rc;
}

EXPORT CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback,
				  void *userdata)
{
	alive(__func__);
	if (!subscriber)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*subscriber = (CUpti_SubscriberHandle)&S;
	return subscribed_with(subscribe(NULL, 0), callback, userdata);
}

EXPORT CUptiResult cuptiSubscribe_v2(CUpti_SubscriberHandle *subscriber,
				     CUpti_CallbackFunc callback, void *userdata,
				     CUpti_SubscriberParams *params)
{
	alive(__func__);
	if (!subscriber)
		return CUPTI_ERROR_INVALID_PARAMETER;
	*subscriber = (CUpti_SubscriberHandle)&S;
	return subscribed_with(subscribe(params ? params->oldSubscriberName : NULL,
					 params ? params->oldSubscriberSize : 0),
			       callback, userdata);
}

EXPORT CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber)
{
	alive(__func__);
	if (subscriber != (CUpti_SubscriberHandle)&S || !S.subscribed)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&S.lock);
	S.subscribed = 0;
	S.counts.subscribers = 0;
	S.callback = NULL;
	memset(S.domains, 0, sizeof S.domains);
	pthread_mutex_unlock(&S.lock);
	hand_over_late(); /* CUPTI_STANDIN_LATE: its thread hands over what it took out */
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber,
				     CUpti_CallbackDomain domain)
{
	alive(__func__);
	if (subscriber != (CUpti_SubscriberHandle)&S || !S.subscribed ||
	    (unsigned)domain >= CUPTI_CB_DOMAIN_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&S.lock);
	S.domains[domain] = enable != 0;
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber,
				       CUpti_CallbackDomain domain, CUpti_CallbackId cbid)
{
	(void)enable, (void)domain, (void)cbid;
	alive(__func__);
	return subscriber == (CUpti_SubscriberHandle)&S && S.subscribed
		       ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_PARAMETER;
}

EXPORT CUptiResult cuptiActivitySetAttribute(CUpti_ActivityAttribute attr, size_t *size,
					     void *value)
{
	alive(__func__);
	if (attr != CUPTI_ACTIVITY_ATTR_PER_THREAD_ACTIVITY_BUFFER)
		return CUPTI_SUCCESS; /* the others change nothing the tests look at */
	if (!size || *size != sizeof(uint8_t) || !value)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (S.held) /* "before registering the buffer callbacks and enabling any kind" */
		return CUPTI_ERROR_INVALID_OPERATION;
	pthread_mutex_lock(&S.lock);
	S.per_thread = *(uint8_t *)value != 0;
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc request,
						  CUpti_BuffersCallbackCompleteFunc complete)
{
	alive(__func__);
	if (!request || !complete)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&S.lock);
	S.request = request;
	S.complete = complete;
	for (; S.n_workers < WORKERS; S.n_workers++)
		if (pthread_create(&S.workers[S.n_workers], NULL, worker, NULL) != 0)
			abort();
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

/*
 * The header's rule for API records: RUNTIME (DRIVER) turns every call of
 * its domain on or off, over what cuptiActivityEnableRuntimeApi (...Driver-
 * Api) set before; a call's own setting, made after, holds for that call.
 */
static void set_every_call(uint8_t *set, uint8_t on)
{
	for (size_t i = 0; i < 1024; i++) {
		S.counts.api_cbids_enabled += (uint32_t)(on && !set[i]) - (uint32_t)(!on && set[i]);
		set[i] = on;
	}
}

static CUptiResult set_kind(CUpti_ActivityKind kind, uint8_t on)
{
	if ((unsigned)kind >= sizeof S.kinds || !record_size(kind) ||
	    kind == CUPTI_ACTIVITY_KIND_KERNEL)
		return CUPTI_ERROR_NOT_COMPATIBLE; /* nothing else is modelled */
	if (on && S.refuse != CUPTI_SUCCESS)
		return S.refuse;
	if (on && ((kind == CUPTI_ACTIVITY_KIND_GRAPH_TRACE && S.kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]) ||
		   (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && S.kinds[CUPTI_ACTIVITY_KIND_GRAPH_TRACE])))
		return CUPTI_ERROR_NOT_COMPATIBLE; /* a record a graph, or its kernels: one of the two */
	pthread_mutex_lock(&S.lock);
	S.counts.kinds_enabled += (uint32_t)(on && !S.kinds[kind]) - (uint32_t)(!on && S.kinds[kind]);
	S.kinds[kind] = on;
	if (kind == CUPTI_ACTIVITY_KIND_RUNTIME || kind == CUPTI_ACTIVITY_KIND_DRIVER)
		set_every_call(kind == CUPTI_ACTIVITY_KIND_RUNTIME ? S.runtime_cbids : S.driver_cbids, on);
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind)
{
	CUptiResult rc;

	alive(__func__);
	rc = set_kind(kind, 1);
	/*
	 * CUPTI asks for the device's buffer ahead; an empty one stays in its
	 * hands through every flush, forced or not, and into the next session.
	 */
	pthread_mutex_lock(&S.lock);
	if (rc == CUPTI_SUCCESS && kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL && S.request &&
	    !*current(1))
		*current(1) = new_buffer(S.per_thread ? -1 : -2);
	pthread_mutex_unlock(&S.lock);
	return rc;
}

EXPORT CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind)
{
	alive(__func__);
	return set_kind(kind, 0);
}

static CUptiResult set_cbid(uint8_t *set, CUpti_CallbackId cbid, uint8_t enable)
{
	if (cbid >= 1024)
		return CUPTI_ERROR_INVALID_PARAMETER;
	pthread_mutex_lock(&S.lock);
	S.counts.api_cbids_enabled += (uint32_t)(enable && !set[cbid]) - (uint32_t)(!enable && set[cbid]);
	set[cbid] = enable != 0;
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityEnableRuntimeApi(CUpti_CallbackId cbid, uint8_t enable)
{
	alive(__func__);
	return set_cbid(S.runtime_cbids, cbid, enable);
}

EXPORT CUptiResult cuptiActivityEnableDriverApi(CUpti_CallbackId cbid, uint8_t enable)
{
	alive(__func__);
	return set_cbid(S.driver_cbids, cbid, enable);
}

EXPORT CUptiResult cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, CUpti_Activity **record)
{
	size_t off;

	if (!buffer || !record)
		return CUPTI_ERROR_INVALID_PARAMETER;
	off = *record ? (size_t)((uint8_t *)*record - buffer) + record_size((*record)->kind) : 0;
	if (off >= valid)
		return CUPTI_ERROR_MAX_LIMIT_REACHED;
	if (buffer == S.slow) {
		const struct timespec pause = { 0, 2000000 }; /* the late buffer: read while it stops */
		pthread_mutex_lock(&S.lock);
		S.late_started = 1; /* the client reads it: unsubscribe returns */
		pthread_cond_broadcast(&S.late_cond);
		pthread_mutex_unlock(&S.lock);
		nanosleep(&pause, NULL);
	}
	*record = (CUpti_Activity *)(buffer + off);
	return record_size((*record)->kind) ? CUPTI_SUCCESS : CUPTI_ERROR_INVALID_KIND;
}

EXPORT CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t stream,
						     size_t *dropped)
{
	(void)context, (void)stream;
	alive(__func__);
	pthread_mutex_lock(&S.lock);
	*dropped = (size_t)S.dropped_unread;
	S.dropped_unread = 0;
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushAll(uint32_t flag)
{
	alive(__func__);
	if (!S.complete)
		return CUPTI_ERROR_INVALID_OPERATION;
	__atomic_fetch_add(&S.counts.flushes, 1, __ATOMIC_RELAXED);
	deliver_all(flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED ? FORCED : COMPLETE);
	/* a blocking call: buffers its own threads took out before are handed over too */
	pthread_mutex_lock(&S.lock);
	while (S.in_flight)
		pthread_cond_wait(&S.delivered, &S.lock);
	pthread_mutex_unlock(&S.lock);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityFlushPeriod(uint32_t time)
{
	(void)time; /* the periodic flush hands over full buffers only, whatever the period */
	alive(__func__);
	return CUPTI_SUCCESS;
}

EXPORT CUptiResult cuptiActivityPushExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							  uint64_t id)
{
	alive(__func__);
	if ((unsigned)kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE || ext_stack_depth()[kind] == EXT_DEPTH)
		return CUPTI_ERROR_INVALID_PARAMETER;
	ext_stack[kind][ext_depth[kind]++] = id;
	return CUPTI_SUCCESS;
}

/* CUPTI_STANDIN_PER_RUN: the GPU work a run launched, before its id is popped. */
static void run_work(void)
{
	static const char *const names[] = { "standin_k_bin_bcast", "standin_mul_mat_vec",
					     "standin_rms_norm", "standin_rope" };
	const char *graph[64];
	uint64_t ns[64];
	uint32_t n = S.per_run < 64 ? S.per_run : 64, run = S.runs++;

	for (uint32_t i = 0; i < n; i++)
		graph[i] = names[i % 4], ns[i] = S.kernel_ns;
	if (run % 3 == 0) {
		cupti_standin_graph(graph, ns, n, 7);
	} else {
		for (uint32_t i = 0; i < n; i++)
			cupti_standin_launch(graph[i], S.kernel_ns, 7);
	}
	cupti_standin_copy(0, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 4096, 700, 7);
	cupti_standin_copy(1, 0, 4096, 400, 7);
}

EXPORT CUptiResult cuptiActivityPopExternalCorrelationId(CUpti_ExternalCorrelationKind kind,
							 uint64_t *last)
{
	alive(__func__);
	if ((unsigned)kind >= CUPTI_EXTERNAL_CORRELATION_KIND_SIZE)
		return CUPTI_ERROR_INVALID_PARAMETER;
	if (!ext_stack_depth()[kind])
		return CUPTI_ERROR_QUEUE_EMPTY;
	if (S.per_run && kind == CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0)
		run_work();
	ext_depth[kind]--;
	if (last)
		*last = ext_stack[kind][ext_depth[kind]];
	return CUPTI_SUCCESS;
}

/*
 * cuptiFinalize(): CUPTI detaches from the process and destroys what it
 * had (cupti_activity.h): its threads end, the buffers it holds are
 * dropped (never handed back: the client flushed first, or loses them),
 * every kind, callback and subscription is gone; the next call attaches
 * it again. CUPTI_STANDIN_FINALIZE=refuse: a CUPTI that will not
 * (CUPTI_ERROR_NOT_SUPPORTED), as under some virtualizations.
 */
EXPORT CUptiResult cuptiFinalize(void)
{
	int n, late;

	alive(__func__);
	if (S.refuse_finalize)
		return CUPTI_ERROR_NOT_SUPPORTED;
	/* CUPTI_STANDIN_LATE: its thread hands over what it took out, and finishes first */
	late = S.late_buf != NULL;
	hand_over_late();
	pthread_mutex_lock(&S.lock);
	while (late && S.slow)
		pthread_cond_wait(&S.late_cond, &S.lock);
	S.late_started = 0;
	pthread_mutex_unlock(&S.lock);
	__atomic_store_n(&S.stopping, 1, __ATOMIC_RELEASE);
	pthread_mutex_lock(&S.lock);
	n = S.n_workers;
	S.n_workers = 0;
	pthread_mutex_unlock(&S.lock);
	for (int i = 0; i < n; i++)
		pthread_join(S.workers[i], NULL);
	pthread_mutex_lock(&S.lock);
	__atomic_store_n(&S.stopping, 0, __ATOMIC_RELEASE);
	for (struct buf *b = S.held, *next; b; b = next) {
		next = b->next;
		S.counts.records_abandoned += b->records;
		free(b); /* the client's memory: CUPTI never touches it again */
	}
	S.held = S.device = S.only = NULL;
	memset(S.slots, 0, sizeof S.slots);
	S.n_pending = 0;
	S.counts.buffers_held = 0;
	S.request = NULL;
	S.complete = NULL;
	S.callback = NULL;
	memset(S.domains, 0, sizeof S.domains);
	for (unsigned k = 0; k < sizeof S.kinds; k++)
		if (S.kinds[k])
			S.kinds[k] = 0, S.counts.kinds_enabled--;
	set_every_call(S.runtime_cbids, 0);
	set_every_call(S.driver_cbids, 0);
	S.subscribed = 0;
	S.counts.subscribers = 0;
	S.generation++;
	S.counts.finalized++;
	__atomic_store_n(&S.attached, 0, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&S.lock);
	if (S.log) {
		fprintf(S.log, "F %llu\n", (unsigned long long)now_ns());
		fflush(S.log);
	}
	return CUPTI_SUCCESS;
}

/*
 * The exit of a CUDA call of the program's: the subscriber's callback, if
 * it enabled the runtime API's domain (cuptiEnableDomain), without the lock.
 */
static void api_exit(CUpti_CallbackId cbid, const char *fn)
{
	CUpti_CallbackFunc cb;
	void *user;
	CUpti_CallbackData data = { 0 };

	pthread_mutex_lock(&S.lock);
	cb = S.domains[CUPTI_CB_DOMAIN_RUNTIME_API] ? S.callback : NULL;
	user = S.callback_user;
	pthread_mutex_unlock(&S.lock);
	if (!cb)
		return;
	data.callbackSite = CUPTI_API_EXIT;
	data.functionName = fn;
	data.correlationId = S.correlation;
	cb(user, CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &data);
}

/* ---- the tests' CUDA ---- */

/* A CUDA call of the program's: not a call into CUPTI, which it does not attach. */
static void cuda_alive(const char *fn)
{
	if (S.torn_down)
		alive(fn);
}

EXPORT uint32_t cupti_standin_launch(const char *name, uint64_t ns, uint32_t stream)
{
	uint32_t c;

	cuda_alive(__func__);
	pthread_mutex_lock(&S.lock);
	c = api_call(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
	gpu_kernel(name, ns, stream, c, 0);
	pthread_mutex_unlock(&S.lock);
	api_exit(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel");
	return c;
}

EXPORT uint32_t cupti_standin_graph(const char *const *names, const uint64_t *ns, size_t n,
				    uint32_t stream)
{
	static uint32_t graphs;
	uint64_t first = 0;
	uint32_t c;

	cuda_alive(__func__);
	pthread_mutex_lock(&S.lock);
	c = api_call(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000);
	graphs++;
	first = now_ns() + LAUNCH_NS; /* the graph reaches the GPU, then runs its kernels in a row */
	if (S.busy[stream % STREAMS] < first)
		S.busy[stream % STREAMS] = first;
	first = S.busy[stream % STREAMS];
	S.in_graph = 1;
	for (size_t i = 0; i < n; i++)
		gpu_kernel(names[i], ns[i], stream, c, graphs);
	S.in_graph = 0;
	gpu_graph(stream, c, graphs, first);
	pthread_mutex_unlock(&S.lock);
	api_exit(CUPTI_RUNTIME_TRACE_CBID_cudaGraphLaunch_v10000, "cudaGraphLaunch");
	return c;
}

EXPORT uint32_t cupti_standin_copy(int memset_, uint8_t copy_kind, uint64_t bytes, uint64_t ns,
				   uint32_t stream)
{
	uint32_t c;

	cuda_alive(__func__);
	pthread_mutex_lock(&S.lock);
	c = api_call(memset_ ? CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020
			     : CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020);
	gpu_copy(memset_, copy_kind, bytes, ns, stream, c);
	pthread_mutex_unlock(&S.lock);
	api_exit(memset_ ? CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020
			 : CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020,
		 memset_ ? "cudaMemsetAsync" : "cudaMemcpyAsync");
	return c;
}

EXPORT void cupti_standin_sync(void)
{
	uint64_t until = 0;
	const struct timespec pause = { 0, 20000 };

	pthread_mutex_lock(&S.lock);
	api_call(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020);
	for (uint32_t i = 0; i < STREAMS; i++)
		until = S.busy[i] > until ? S.busy[i] : until;
	pthread_mutex_unlock(&S.lock);
	while (now_ns() < until)
		nanosleep(&pause, NULL);
	api_exit(CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize");
}

EXPORT void cupti_standin_counts(struct cupti_standin_counts *out)
{
	pthread_mutex_lock(&S.lock);
	*out = S.counts;
	out->per_thread = S.per_thread;
	out->attached = S.attached;
	out->callbacks = S.complete != NULL;
	pthread_mutex_unlock(&S.lock);
}
