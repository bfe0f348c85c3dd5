/*
 * The kernels' sink (see gpu.h): GPU time to the tracer's clock, launches
 * to runs, kernels to KERNEL records. It runs on the profiler's thread,
 * never on the traced program's, so it may divide, allocate nothing and
 * wait for nothing all the same.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/gpu/gpu.h"
#include "tracer/producer/producer.h"

#define MAP_SLOTS 65536u  /* launches remembered: a power of two */
#define WAITING 2048u     /* kernels waiting for their launch's run */
#define WAIT_NAME 512u    /* of a waiting kernel's name, the bytes kept */
#define WAIT_ROUNDS 4u    /* batches a kernel waits at most before it goes without a run */
#define RATE_SPAN_NS 100000000u /* clock points this far apart measure the GPU clock's rate */

/* A GPU clock point and the stamp read with it. */
struct point {
	uint64_t gpu, stamp;
};

/* A kernel whose launch's run is not known yet. */
struct waiting {
	struct ggmlviz__gpu_launch k;
	uint32_t rounds;
	char name[WAIT_NAME];
};

static struct {
	struct point first, newest;
	int points;
	struct { uint32_t correlation; uint64_t run; } map[MAP_SLOTS];
	struct waiting waiting[WAITING];
	uint32_t n_waiting;
} sink;

void ggmlviz__gpu_sink_reset(void)
{
	memset(&sink, 0, sizeof sink);
}

void ggmlviz__gpu_clock_point(uint64_t gpu_ns, uint64_t stamp)
{
	struct point p = { gpu_ns, stamp };

	if (!sink.points++)
		sink.first = p;
	sink.newest = p;
}

int ggmlviz__gpu_clock_read(int (*gpu_now)(uint64_t *ns))
{
	uint64_t best_width = UINT64_MAX, best_gpu = 0, best_stamp = 0;

	for (int i = 0; i < 3; i++) {
		uint64_t gpu, s0 = ggmlviz__stamp(), s1;

		if (gpu_now(&gpu) < 0)
			return -1;
		s1 = ggmlviz__stamp();
		if (s1 - s0 < best_width)
			best_width = s1 - s0, best_gpu = gpu, best_stamp = s0 + (s1 - s0) / 2;
	}
	ggmlviz__gpu_clock_point(best_gpu, best_stamp);
	return 0;
}

uint64_t ggmlviz__gpu_stamp_of(uint64_t gpu_ns)
{
	double rate = ggmlviz__clock_stamps_per_ns(), d;

	/* two points close together say little of the rate: the clock's own until then */
	if (sink.newest.gpu >= sink.first.gpu + RATE_SPAN_NS)
		rate = (double)(sink.newest.stamp - sink.first.stamp) /
		       (double)(sink.newest.gpu - sink.first.gpu);
	d = ((double)gpu_ns - (double)sink.newest.gpu) * rate + (double)sink.newest.stamp;
	return d > 0 ? (uint64_t)d : 0;
}

void ggmlviz__gpu_correlate(uint32_t correlation, uint64_t run_id)
{
	uint32_t i = correlation & (MAP_SLOTS - 1);

	sink.map[i].correlation = correlation;
	sink.map[i].run = run_id;
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
 * Both ends converted (the conversion is monotonic), so that kernels back
 * to back on the GPU stay back to back on the trace's clock, where the
 * start converted alone plus the GPU's duration could overlap the next
 * kernel by a rounding.
 */
static void record(const struct ggmlviz__gpu_launch *k, uint64_t run)
{
	uint64_t start = ggmlviz__gpu_stamp_of(k->start);
	uint64_t end = k->end > k->start ? ggmlviz__gpu_stamp_of(k->end) : start;
	struct ggmlviz__kernel_rec rec = {
		end > start ? end : start, run, k->correlation, k->stream, k->device
	};

	ggmlviz__emit_kernel_at(start, track_of(k), &rec, k->name);
}

void ggmlviz__gpu_kernel(const struct ggmlviz__gpu_launch *k)
{
	struct waiting *w;
	uint64_t run;

	if (run_of(k->correlation, &run)) {
		record(k, run);
		return;
	}
	if (sink.n_waiting == WAITING) {
		record(k, 0); /* too many waiting: it goes without its run (the reader says so) */
		return;
	}
	w = &sink.waiting[sink.n_waiting++];
	w->k = *k;
	w->rounds = 0;
	snprintf(w->name, sizeof w->name, "%s", k->name ? k->name : "");
	w->k.name = w->name;
}

void ggmlviz__gpu_settle(int final)
{
	uint32_t kept = 0;

	for (uint32_t i = 0; i < sink.n_waiting; i++) {
		struct waiting *w = &sink.waiting[i];
		uint64_t run = 0;

		if (run_of(w->k.correlation, &run) || final || ++w->rounds >= WAIT_ROUNDS) {
			record(&w->k, run);
			continue;
		}
		if (kept != i) {
			sink.waiting[kept] = *w;
			sink.waiting[kept].k.name = sink.waiting[kept].name;
		}
		kept++;
	}
	sink.n_waiting = kept;
}

void ggmlviz__gpu_dropped(uint64_t n)
{
	atomic_fetch_add_explicit(&ggmlviz__state.lost, n, memory_order_relaxed);
}
