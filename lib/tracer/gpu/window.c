/*
 * Sampled windows of GPU kernels (see gpu.h): which units (steps, or runs
 * of nodes in a program that marks no step) have their kernels recorded,
 * decided on the traced threads as units begin and end, and carried out
 * by the profiler's own thread, which attaches and detaches it.
 *
 * A cycle of n units, from one request to attach to the next: the first
 * unit that begins attached is CUPTI's warm-up (recorded, not sampled),
 * the k after it are sampled, and the end of the last one asks the
 * profiler to detach; the units after it run with no profiler at all,
 * until n units have ended since the request, which asks again. Attaching
 * takes the profiler's thread a while: a unit that begins before it is
 * done is outside the window, and the window begins with the next. A
 * unit outside the window that runs while the profiler is attached (the
 * attach ended inside it, or the detach after the window has not yet)
 * has its kernels recorded all the same, untied: its runs are not tagged.
 *
 * The traced threads only load and store atomics here (a unit is a step:
 * no lock on the way); the META GPU_WINDOW record that says a unit's state
 * is written only when the state changes, before the unit's own begin
 * record, so that a reader flags each step by the state read before it.
 * Several threads stepping at once share the count: a window holds k units
 * of any of them.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>
#include <stdio.h>

#include <ggmlviz/format.h>

#include "tracer/gpu/gpu.h"
#include "tracer/producer/producer.h"

/* Where the profiler stands, as the profiler's thread sets it. */
enum phase { DETACHED, ATTACHING, ATTACHED, DETACHING, ENDED };

static struct {
	int on;                    /* windows, not every unit's kernels */
	uint32_t k, n;
	void (*wake)(void);        /* rings the profiler's thread */
	_Atomic int phase;
	_Atomic int want_attach, want_detach;
	_Atomic int steps;         /* a step was seen: steps are the units, not runs */
	_Atomic uint32_t since;    /* units ended since the last request to attach */
	_Atomic uint32_t left;     /* sampled units left in this window */
	_Atomic int warmed;        /* this window's warm-up unit ended */
	_Atomic int unit;          /* the state of the unit open now (GGMLVIZ_GPU_WINDOW_*) */
	_Atomic int said;          /* the last state written (META GPU_WINDOW) */
	_Atomic uint64_t window;   /* windows attached so far */
	_Atomic uint64_t sampled, warmups, outside; /* units so far */
	_Atomic uint64_t detaches, kinds_off;       /* windows ended by a detach, or kinds off */
} w;

void ggmlviz__gpu_window_reset(uint32_t k, uint32_t n, void (*wake)(void))
{
	w.on = n != 0 && k < n;
	w.k = k, w.n = n;
	w.wake = wake;
	atomic_store(&w.want_attach, 0);
	atomic_store(&w.want_detach, 0);
	atomic_store(&w.steps, 0);
	atomic_store(&w.since, 0);
	atomic_store(&w.unit, GGMLVIZ_GPU_WINDOW_NONE);
	atomic_store(&w.said, GGMLVIZ_GPU_WINDOW_NONE);
	atomic_store(&w.window, 0);
	atomic_store(&w.sampled, 0);
	atomic_store(&w.warmups, 0);
	atomic_store(&w.outside, 0);
	atomic_store(&w.detaches, 0);
	atomic_store(&w.kinds_off, 0);
	atomic_store(&w.phase, DETACHED);
}

int ggmlviz__gpu_window_on(void)
{
	return w.on;
}

/* The META GPU_WINDOW of a unit whose state differs from the last one written. */
static void say(int state)
{
	char label[160];
	uint64_t window = atomic_load_explicit(&w.window, memory_order_relaxed);

	if (atomic_exchange_explicit(&w.said, state, memory_order_relaxed) == state)
		return;
	snprintf(label, sizeof label, "%s (GGML_VIZ_GPU_SAMPLE=%u/%u, window %llu)",
		 state == GGMLVIZ_GPU_WINDOW_IN ? "sampled: kernels recorded"
		 : state == GGMLVIZ_GPU_WINDOW_WARMUP ? "CUPTI's warm-up: kernels recorded, not sampled"
						      : "outside the windows: no kernel recorded",
		 w.k, w.n, (unsigned long long)window);
	ggmlviz__emit_meta_gpu_window(window, (uint64_t)state, (uint64_t)w.k << 32 | w.n, label);
}

/* The state of a unit that begins now. */
static int state_now(void)
{
	if (atomic_load(&w.phase) != ATTACHED)
		return GGMLVIZ_GPU_WINDOW_OUT;
	if (!atomic_load(&w.warmed))
		return GGMLVIZ_GPU_WINDOW_WARMUP;
	return atomic_load(&w.left) ? GGMLVIZ_GPU_WINDOW_IN : GGMLVIZ_GPU_WINDOW_OUT;
}

/* Whether a unit of this kind counts: steps once one was seen, else runs. */
static int counts(int step)
{
	if (!w.on)
		return 0;
	if (step && !atomic_load_explicit(&w.steps, memory_order_relaxed))
		atomic_store(&w.steps, 1);
	return step || !atomic_load_explicit(&w.steps, memory_order_relaxed);
}

void ggmlviz__gpu_window_unit_begin(int step)
{
	int state;

	if (!counts(step))
		return;
	state = state_now();
	atomic_store(&w.unit, state);
	say(state);
}

/* The request to attach, once n units ended since the last one and the profiler is off. */
static void maybe_attach(void)
{
	int phase = atomic_load(&w.phase);

	if (atomic_load(&w.since) < w.n || (phase != DETACHED && !atomic_load(&w.want_detach)))
		return;
	if (atomic_exchange(&w.want_attach, 1))
		return;
	atomic_store(&w.since, 0);
	w.wake();
}

void ggmlviz__gpu_window_unit_end(int step)
{
	int state;

	if (!counts(step))
		return;
	state = atomic_exchange(&w.unit, GGMLVIZ_GPU_WINDOW_OUT);
	if (state == GGMLVIZ_GPU_WINDOW_WARMUP) {
		atomic_store(&w.warmed, 1);
		atomic_fetch_add(&w.warmups, 1);
	} else if (state == GGMLVIZ_GPU_WINDOW_IN) {
		atomic_fetch_add(&w.sampled, 1);
		if (atomic_fetch_sub(&w.left, 1) == 1 && !atomic_exchange(&w.want_detach, 1))
			w.wake();
	} else {
		atomic_fetch_add(&w.outside, 1);
	}
	atomic_fetch_add(&w.since, 1);
	maybe_attach();
}

void ggmlviz__gpu_window_warmup_now(void)
{
	if (!w.on)
		return;
	atomic_store(&w.unit, GGMLVIZ_GPU_WINDOW_WARMUP);
	say(GGMLVIZ_GPU_WINDOW_WARMUP);
}

int ggmlviz__gpu_window_tagging(void)
{
	int unit;

	if (!w.on)
		return 1;
	unit = atomic_load(&w.unit);
	return unit == GGMLVIZ_GPU_WINDOW_IN || unit == GGMLVIZ_GPU_WINDOW_WARMUP;
}

enum ggmlviz__gpu_want ggmlviz__gpu_window_want(void)
{
	if (!w.on || atomic_load(&w.phase) == ENDED)
		return GGMLVIZ__GPU_WANT_NOTHING;
	if (atomic_exchange(&w.want_detach, 0)) {
		atomic_store(&w.phase, DETACHING);
		return GGMLVIZ__GPU_WANT_DETACH;
	}
	if (atomic_load(&w.phase) == DETACHED && atomic_exchange(&w.want_attach, 0)) {
		atomic_store(&w.phase, ATTACHING);
		return GGMLVIZ__GPU_WANT_ATTACH;
	}
	return GGMLVIZ__GPU_WANT_NOTHING;
}

void ggmlviz__gpu_window_attached(int ok)
{
	if (!ok) {
		atomic_store(&w.phase, ENDED);
		return;
	}
	atomic_store(&w.warmed, 0);
	atomic_store(&w.left, w.k);
	atomic_fetch_add(&w.window, 1);
	atomic_store(&w.phase, ATTACHED);
}

void ggmlviz__gpu_window_detached(int finalized)
{
	atomic_fetch_add(finalized ? &w.detaches : &w.kinds_off, 1);
	atomic_store(&w.phase, DETACHED);
	maybe_attach(); /* n units may have ended while it detached */
}

void ggmlviz__gpu_window_counts(struct ggmlviz__gpu_window_counts *out)
{
	*out = (struct ggmlviz__gpu_window_counts){
		w.k, w.n, atomic_load(&w.window), atomic_load(&w.sampled), atomic_load(&w.warmups),
		atomic_load(&w.outside), atomic_load(&w.detaches), atomic_load(&w.kinds_off),
		atomic_load(&w.steps), atomic_load(&w.phase) == ENDED
	};
}
