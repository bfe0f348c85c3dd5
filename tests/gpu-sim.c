/*
 * CUPTI's place, for the tests of the GPU path without a GPU (see gpu-sim.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#include <ggmlviz/nodes.h>

#include "gpu-sim.h"
#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/gpu/gpu.h"

#define GPU_EPOCH 5000000000000ull /* the GPU clock's zero is not the host's */

static _Atomic uint64_t current_run;
static uint32_t next_correlation = 100;
static uint64_t mono0;
static uint64_t busy_until; /* the stream runs one kernel at a time: when it is free */

/* A run's launches tagged, in a window (window.c) when the session samples them. */
static int run_begin(uint64_t id)
{
	ggmlviz__gpu_window_unit_begin(0);
	if (!ggmlviz__gpu_window_tagging())
		return 0;
	atomic_store(&current_run, id);
	return 1;
}

static void run_end(void)
{
	atomic_store(&current_run, 0);
	ggmlviz__gpu_window_unit_end(0);
}

static void clock_point(void);

static void no_thread_to_wake(void)
{
}

void gs_serve_windows(void)
{
	switch (ggmlviz__gpu_window_want()) {
	case GGMLVIZ__GPU_WANT_DETACH:
		ggmlviz__gpu_window_detached(1);
		break;
	case GGMLVIZ__GPU_WANT_ATTACH:
		clock_point();
		ggmlviz__gpu_window_attached(1);
		break;
	default:
		break;
	}
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t gpu_of(uint64_t mono)
{
	return GPU_EPOCH + (mono - mono0);
}

static int gpu_now(uint64_t *ns)
{
	*ns = gpu_of(mono_ns());
	return 0;
}

static void clock_point(void)
{
	ggmlviz__gpu_clock_read(gpu_now);
}

/* Waits until the GPU has run every kernel launched, as ggml_backend_synchronize does. */
static void gs_sync(void)
{
	while (mono_ns() < busy_until)
		;
}

void gs_describe(void *user, const void *const *nodes, size_t n, size_t i,
		 struct ggmlviz_node_desc *out)
{
	const struct gs_node *nd = nodes[i];

	(void)user, (void)n;
	out->op_type = nd->op;
	out->op_name = nd->op_name;
	out->name = nd->name;
	out->ticks = 1; /* computes: a GPU backend gives no tick, so the run is a GPU run */
	out->layer = nd->layer;
	out->size = 4096;
	out->ne[0] = 512, out->ne[1] = 1, out->ne[2] = 1, out->ne[3] = 1;
	out->flops = nd->op == 3 ? 2u * 512u * 512u : 512u;
	out->type_name = "f32";
}

/* The session's start, as CUPTI's glue starts (see gpu.h). */
static int sim_start(const struct ggmlviz__gpu_how *how, char *what, size_t size)
{
	ggmlviz__gpu_sink_reset();
	mono0 = mono_ns();
	busy_until = 0;
	clock_point();
	ggmlviz__gpu_window_reset(how->sample_k, how->sample_n, no_thread_to_wake);
	ggmlviz__gpu_window_attached(1);
	atomic_store(&ggmlviz__state.gpu_run_end, run_end);
	atomic_store(&ggmlviz__state.gpu_run_begin, run_begin);
	snprintf(what, size, "recorded through the tests' stand-in for CUPTI (tests/gpu-sim.c)");
	return 0;
}

void (*gs_on_stop)(void);

static void sim_stop(char *said, size_t size)
{
	(void)said, (void)size;
	if (gs_on_stop)
		gs_on_stop();
	clock_point(); /* as a buffer's completion takes one */
	atomic_store(&ggmlviz__state.gpu_run_begin, NULL);
}

static int sim_available(const char *path, char *why, size_t size)
{
	(void)path, (void)why, (void)size;
	return 0;
}

static void sim_after_fork_child(void)
{
}

static const struct ggmlviz__gpu_profiler sim = { sim_available, sim_start, sim_stop,
						  sim_after_fork_child, sim_after_fork_child };

void gs_install(void)
{
	ggmlviz__gpu_use(&sim);
}

void gs_remove(void)
{
	ggmlviz__gpu_use(NULL);
}

void gs_correlate(uint32_t correlation, uint64_t run_id)
{
	ggmlviz__gpu_correlate(correlation, run_id);
}

static void ran(const char *name, uint32_t correlation, uint64_t start, uint64_t ns)
{
	struct ggmlviz__gpu_launch k = { start, start + ns, 0, 7, correlation, name, 0 };

	ggmlviz__gpu_kernel(&k);
}

void gs_kernel_now(const char *name, uint32_t correlation)
{
	ran(name, correlation, gpu_of(mono_ns()), 1000);
}

uint64_t gs_pdl_ns;

uint64_t gs_run(const struct gs_node *nodes, size_t n, const void *backend,
		const struct gs_kernel *kernels, size_t m, int late, struct gs_ran *out)
{
	uint32_t first = next_correlation;
	uint64_t launch, run, at, start[64];

	for (size_t i = 0; i < n; i++)
		ggmlviz_nodes_ask(&nodes[i], backend, gs_describe, NULL);
	run = atomic_load(&current_run);
	if (!run && ggmlviz__gpu_window_on()) { /* outside a window: CUPTI detached, no record */
		ggmlviz_nodes_flush();
		return 0;
	}
	launch = mono_ns();
	next_correlation += (uint32_t)m;
	for (uint32_t k = 0; k < m && !late; k++) /* CUPTI's external correlation records */
		gs_correlate(first + k, run);
	at = launch > busy_until ? launch : busy_until;
	for (uint32_t k = 0; k < m && k < 64; k++)
		start[k] = at - (k ? gs_pdl_ns : 0), at += kernels[k].ns;
	busy_until = at;
	gs_sync(); /* the scheduler waits for the GPU after a run while an eval callback is set */
	ggmlviz_nodes_flush();
	clock_point(); /* CUPTI delivers the buffer: a clock point, then its kernels */
	for (uint32_t k = 0; k < m && k < 64; k++) {
		ran(kernels[k].name, first + k, gpu_of(start[k]), kernels[k].ns + (k ? gs_pdl_ns : 0));
		if (out)
			out[k] = (struct gs_ran){ kernels[k].name, start[k] };
	}
	for (uint32_t k = 0; k < m && late; k++) /* they waited: now their runs are known */
		gs_correlate(first + k, run);
	ggmlviz__gpu_settle(GGMLVIZ__GPU_TIE);
	return run;
}


