/*
 * The kernels' sink (see gpu.h): GPU time to the tracer's clock, launches
 * to runs, kernels to KERNEL records. It runs on the profiler's threads,
 * never on the traced program's, so it may lock, divide and allocate; one
 * mutex serializes it, since a profiler may hand over two buffers at once
 * (CUPTI's per-thread buffers).
 *
 * Kernels are queued as they come and written by ggmlviz__gpu_settle(),
 * which the profiler calls from one thread (its passes, and the stop): so
 * they reach the trace in the order they came, one launching thread's in
 * the order it launched them, which readers count on to know when a run
 * has all its kernels; a kernel whose run is not known yet stays queued.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/gpu/gpu.h"
#include "tracer/producer/producer.h"
#include "util/leaving.h"
#include "util/pages.h"

#define MAP_SLOTS 65536u      /* launches remembered: a power of two */
#define WAITING_MAX 262144u   /* kernels queued, at most */
#define WAIT_PASSES 10u       /* profiler passes a kernel waits before it goes without a run */
#define NAMES 4096u           /* names of waiting kernels, kept once each: a power of two */
#define RATE_SPAN_NS 1000000000ull     /* points this far apart measure the clocks' rates */
#define ANCHOR_NS 30000000000ull       /* the rate's older point is 30 to 60 s old, once it can be */
#define SAME_RATE 2e-6                 /* rates closer than this are the same clock's */
#define RECENT 16u                     /* points kept to convert kernels by: a power of two */
#define STEP_NS 1000000                /* a point this far off the others' line: a clock stepped */
#define STEP_PPM 1000                  /* ... plus this much of the time since (NTP slews 500 at most) */

/* A GPU clock point and the trace's clock read with it, of an epoch between two steps of a clock. */
struct point {
	uint64_t gpu, trace;
	uint64_t epoch;
};

/* A kernel whose launch's run is not known yet; its name is a kept copy. */
struct waiting {
	struct ggmlviz__gpu_launch k;
	uint32_t passes;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static struct {
	struct point anchor, next_anchor, newest;
	struct point recent[RECENT]; /* the newest points, to find a kernel's side of a step */
	int points;
	uint64_t steps;  /* clock steps seen: the anchors restarted, a new epoch */
	double rate;     /* trace ns per GPU ns, where the two clocks run apart; else 1 exactly */
	struct { uint32_t correlation; uint64_t run; } map[MAP_SLOTS];
	struct waiting *waiting;
	uint32_t n_waiting, cap_waiting;
	char *names[NAMES];
	struct ggmlviz__gpu_counts counts;
} sink;

void ggmlviz__gpu_sink_reset(void)
{
	ggmlviz__inner_lock(&lock);
	for (uint32_t i = 0; i < NAMES; i++)
		free(sink.names[i]);
	ggmlviz__pages_free(sink.waiting);
	memset(&sink, 0, sizeof sink);
	sink.rate = 1.0;
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__gpu_sink_forget(void)
{
	pthread_mutex_t fresh = PTHREAD_MUTEX_INITIALIZER;

	lock = fresh;
	memset(&sink, 0, sizeof sink); /* the parent's names and queue: not freed here */
	sink.rate = 1.0;
}

/* ---- the clock ---- */

/* Where the trace's clock would be at p's GPU time, by the newest point and the rate. */
static int64_t off_the_line(struct point p)
{
	int64_t d = (int64_t)(p.gpu - sink.newest.gpu);
	double predicted = (double)sink.newest.trace + (double)d * sink.rate;

	return (int64_t)((double)p.trace - predicted);
}

/*
 * A step of a clock (CUPTI's is CLOCK_REALTIME: NTP stepping it, a VM
 * resumed, the date set): p is off the line of the points before it by
 * more than a slew could make it.
 */
static int stepped(struct point p)
{
	int64_t off = off_the_line(p), d = (int64_t)(p.gpu - sink.newest.gpu);

	if (off < 0)
		off = -off;
	if (d < 0)
		d = -d;
	return off > STEP_NS + d / 1000000 * STEP_PPM;
}

/*
 * The rate between the two clocks over the last 30 to 60 s (once there is
 * a second's worth), so that a step of one of them ages out. CUPTI's clock
 * on Linux is CLOCK_REALTIME, which NTP slews exactly as the trace's
 * CLOCK_MONOTONIC: the rate is then 1, and kept 1 exactly, so that a
 * kernel's time is the GPU's to the nanosecond. Under WSL, CUPTI reads
 * CLOCK_MONOTONIC_RAW, which runs apart by NTP's correction: measured. A
 * step restarts the anchors at once, the rate kept as it was: measured
 * across a step, a rate would stretch every kernel by it for a minute.
 */
static void add_point(uint64_t gpu_ns, uint64_t trace_ns)
{
	struct point p = { gpu_ns, trace_ns, sink.steps };

	if (sink.points && stepped(p)) {
		p.epoch = ++sink.steps;
		sink.anchor = sink.next_anchor = p;
	}
	sink.recent[(uint32_t)sink.points % RECENT] = p;
	if (!sink.points++)
		sink.anchor = sink.next_anchor = p;
	if (gpu_ns >= sink.next_anchor.gpu + ANCHOR_NS) {
		sink.anchor = sink.next_anchor;
		sink.next_anchor = p;
	}
	sink.newest = p;
	if (sink.newest.gpu >= sink.anchor.gpu + RATE_SPAN_NS) {
		double r = (double)(sink.newest.trace - sink.anchor.trace) /
			   (double)(sink.newest.gpu - sink.anchor.gpu);
		sink.rate = r > 1 - SAME_RATE && r < 1 + SAME_RATE ? 1.0 : r;
	}
}

void ggmlviz__gpu_clock_point(uint64_t gpu_ns, uint64_t trace_ns)
{
	ggmlviz__inner_lock(&lock);
	add_point(gpu_ns, trace_ns);
	ggmlviz__inner_unlock(&lock);
}

int ggmlviz__gpu_clock_read(int (*gpu_now)(uint64_t *ns))
{
	uint64_t best_width = UINT64_MAX, best_gpu = 0, best_trace = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t gpu, t0 = ggmlviz__now_ns(), t1;

		if (gpu_now(&gpu) < 0)
			return -1;
		t1 = ggmlviz__now_ns();
		if (t1 - t0 < best_width)
			best_width = t1 - t0, best_gpu = gpu, best_trace = t0 + (t1 - t0) / 2;
	}
	ggmlviz__gpu_clock_point(best_gpu, best_trace);
	return 0;
}

/*
 * The point a GPU time is converted by: the newest, so that kernels back
 * to back on the GPU stay back to back in the trace; but a kernel that ran
 * before a step of the clock and was delivered after it takes the newest
 * point of its side of the step, the side of the kept point nearest to it
 * in GPU time (a step of a second, forward or back, leaves the two sides
 * far apart there).
 */
static struct point base_of(uint64_t gpu_ns)
{
	uint32_t n = (uint32_t)sink.points < RECENT ? (uint32_t)sink.points : RECENT;
	struct point best = sink.newest;
	uint64_t best_d = UINT64_MAX;

	if (!sink.steps)
		return sink.newest;
	for (uint32_t i = 0; i < n; i++) {
		uint64_t g = sink.recent[i].gpu, d = g > gpu_ns ? g - gpu_ns : gpu_ns - g;
		if (d < best_d)
			best_d = d, best = sink.recent[i];
	}
	if (best.epoch == sink.newest.epoch)
		return sink.newest;
	for (uint32_t k = 1; k <= n; k++) { /* the newest of its epoch: points in order, newest last */
		const struct point *p = &sink.recent[((uint32_t)sink.points - k) % RECENT];
		if (p->epoch == best.epoch)
			return *p;
	}
	return best;
}

/*
 * In integers: a GPU time is about 1.8e18 ns since the epoch, where a
 * double's step is 256 ns, so only the distance from a point is ever
 * scaled, and only where the clocks run apart.
 */
static uint64_t trace_of(uint64_t gpu_ns, struct point base)
{
	int64_t d = (int64_t)(gpu_ns - base.gpu);

	if (sink.rate != 1.0) {
		double x = (double)d * sink.rate;
		d = (int64_t)(x < 0 ? x - 0.5 : x + 0.5);
	}
	return (uint64_t)((int64_t)base.trace + d);
}

uint64_t ggmlviz__gpu_trace_ns(uint64_t gpu_ns)
{
	uint64_t t;

	ggmlviz__inner_lock(&lock);
	t = trace_of(gpu_ns, base_of(gpu_ns));
	ggmlviz__inner_unlock(&lock);
	return t;
}

/* ---- launches to runs ---- */

void ggmlviz__gpu_correlate(uint32_t correlation, uint64_t run_id)
{
	uint32_t i = correlation & (MAP_SLOTS - 1);

	ggmlviz__inner_lock(&lock);
	sink.map[i].correlation = correlation;
	sink.map[i].run = run_id;
	ggmlviz__inner_unlock(&lock);
}

/* The run of a launch: 1 and *run, or 0 when no mapping says it. */
static int run_of(uint32_t correlation, uint64_t *run)
{
	uint32_t i = correlation & (MAP_SLOTS - 1);

	if (sink.map[i].correlation != correlation || !sink.map[i].run)
		return 0;
	*run = sink.map[i].run;
	return 1;
}

/* ---- records ---- */

/* The GPU track's thread id, named the first time a session sees it. */
static uint32_t track_of(const struct ggmlviz__gpu_launch *k)
{
	uint32_t track = GGMLVIZ_GPU_TRACK(k->device, k->stream);
	char name[48];

	snprintf(name, sizeof name, "GPU %u stream %u", k->device, k->stream);
	ggmlviz_meta_once(GGMLVIZ_META_THREAD_NAME, track, name);
	return track;
}

/*
 * Both ends converted alike, so that kernels back to back on the GPU stay
 * back to back in the trace; with the clocks at one rate, each keeps its
 * GPU duration to the nanosecond.
 */
static void record(const struct ggmlviz__gpu_launch *k, uint64_t run)
{
	struct point base = base_of(k->start);
	uint64_t start = trace_of(k->start, base);
	uint64_t end = k->end > k->start ? trace_of(k->end, base) : start;
	struct ggmlviz__kernel_rec rec = { end > start ? end - start : 0, run, k->correlation,
					   k->stream, k->device };

	ggmlviz__emit_kernel_at(start, track_of(k), &rec, k->name);
	sink.counts.kernels++;
	sink.counts.copies += k->copy != 0;
	sink.counts.without_run += run == 0;
}

/* A kept copy of a waiting kernel's name (names repeat: a few hundred); NULL when full. */
static const char *kept_name(const char *name)
{
	uint32_t h = 2166136261u;

	for (const char *p = name; *p; p++)
		h = (h ^ (uint8_t)*p) * 16777619u;
	for (uint32_t i = 0; i < NAMES; i++) {
		char **slot = &sink.names[(h + i) & (NAMES - 1)];

		if (!*slot)
			return (*slot = strdup(name)); /* the C library's: a page a name would be 16 MiB */
		if (!strcmp(*slot, name))
			return *slot;
	}
	return NULL;
}

/* k joins the queue; 0, or -1 when it cannot (then it is recorded now). */
static int queue(const struct ggmlviz__gpu_launch *k)
{
	struct waiting *w;
	const char *name = kept_name(k->name ? k->name : "");

	if (!name)
		return -1;
	if (sink.n_waiting == sink.cap_waiting) {
		uint32_t cap = sink.cap_waiting ? sink.cap_waiting * 2 : 1024;
		void *p = cap <= WAITING_MAX
				  ? ggmlviz__pages_resize(sink.waiting, cap * sizeof *sink.waiting)
				  : NULL;
		if (!p)
			return -1;
		sink.waiting = p;
		sink.cap_waiting = cap;
	}
	w = &sink.waiting[sink.n_waiting++];
	w->k = *k;
	w->k.name = name;
	w->passes = 0;
	return 0;
}

void ggmlviz__gpu_kernel(const struct ggmlviz__gpu_launch *k)
{
	uint64_t run = 0;

	ggmlviz__inner_lock(&lock);
	if (queue(k) < 0) {
		run_of(k->correlation, &run);
		record(k, run); /* a full queue: now, with its run if known (the reader says so if not) */
	}
	ggmlviz__inner_unlock(&lock);
}

/* One of the kernels a settle writes: where it is queued, and its run. */
struct due {
	uint32_t at;
	uint64_t run;
};

static int by_start(const void *a, const void *b)
{
	const struct due *x = a, *y = b;
	uint64_t sx = sink.waiting[x->at].k.start, sy = sink.waiting[y->at].k.start;

	if (sx != sy)
		return sx < sy ? -1 : 1;
	return x->at < y->at ? -1 : x->at > y->at; /* launched together: in the order they came */
}

/*
 * Written in the order the GPU ran them: CUPTI may hand buffers over in
 * any order (two of its threads at once, a buffer held back for a record
 * not yet complete), and within a buffer a launch's kernels are in order.
 */
void ggmlviz__gpu_settle(enum ggmlviz__gpu_settle how)
{
	struct due *due;
	uint32_t kept = 0, n_due = 0;

	ggmlviz__inner_lock(&lock);
	/* the C library's: a pass's scratch, taken and given back at every pass */
	due = sink.n_waiting ? malloc(sink.n_waiting * sizeof *due) : NULL;
	for (uint32_t i = 0; i < sink.n_waiting; i++) {
		struct waiting *w = &sink.waiting[i];
		uint64_t run = 0;
		int known = run_of(w->k.correlation, &run);

		w->passes += how == GGMLVIZ__GPU_PASS;
		if (!known && how != GGMLVIZ__GPU_FINAL && w->passes <= WAIT_PASSES)
			continue;
		sink.counts.waited_out += !known;
		if (due)
			due[n_due++] = (struct due){ i, run };
		else
			record(&w->k, run), w->passes = UINT32_MAX; /* no memory to sort: as they came */
	}
	if (due)
		qsort(due, n_due, sizeof *due, by_start);
	for (uint32_t j = 0; j < n_due; j++) {
		record(&sink.waiting[due[j].at].k, due[j].run);
		sink.waiting[due[j].at].passes = UINT32_MAX; /* written */
	}
	for (uint32_t i = 0; i < sink.n_waiting; i++)
		if (sink.waiting[i].passes != UINT32_MAX)
			sink.waiting[kept++] = sink.waiting[i];
	sink.n_waiting = kept;
	free(due);
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__gpu_dropped(uint64_t n)
{
	atomic_fetch_add_explicit(&ggmlviz__state.lost, n, memory_order_relaxed);
	ggmlviz__inner_lock(&lock);
	sink.counts.dropped += n;
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__gpu_incomplete(uint64_t n)
{
	ggmlviz__inner_lock(&lock);
	sink.counts.incomplete += n;
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__gpu_counts(struct ggmlviz__gpu_counts *out)
{
	ggmlviz__inner_lock(&lock);
	*out = sink.counts;
	out->waiting = sink.n_waiting;
	out->clock_steps = sink.steps;
	ggmlviz__inner_unlock(&lock);
}
