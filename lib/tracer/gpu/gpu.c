/*
 * GPU kernels in a session (see gpu.h): armed at the start, before the
 * writer opens, so that its first records say whether and when they are
 * recorded; the profiler started then, or by the first CUDA split; stopped
 * before the mask closes, and at exit before the profiler's own exit
 * handlers run, so that the records still buffered go in too.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/tracer.h>

#include "tracer/gpu/gpu.h"
#include "tracer/producer/producer.h"
#include "util/leaving.h"

#define DEFAULT_BUFFER_KIB 8192u

/* At exit, never waited for by its holder (util/leaving.h). */
static struct ggmlviz__leave_lock lock = GGMLVIZ__LEAVE_LOCK_INIT;
static const struct ggmlviz__gpu_profiler *profiler = &ggmlviz__cupti;

/* This session's, set at its start. */
static struct {
	int recording;     /* the profiler runs */
	int armed;         /* it starts with the first CUDA split */
	struct ggmlviz__gpu_how how;
	char path[512];
	struct ggmlviz__log_sink log;
	char note[320];    /* how kernels are recorded, for the last META GPU */
} gpu;

void ggmlviz__gpu_use(const struct ggmlviz__gpu_profiler *p)
{
	profiler = p ? p : &ggmlviz__cupti;
}

static void stop_locked(void);

/*
 * At exit, before the handlers of a profiler loaded after the session's
 * own; not on a thread that holds the lock (exit() from a signal handler
 * that interrupted this thread's stop: the kernels still buffered are
 * left out, and the session's own exit handler leaves the trace there
 * too), nor on one that holds another of the library's locks, and
 * after GGMLVIZ__EXIT_WAIT_MS at most for another thread's.
 */
static void at_exit(void)
{
	if (ggmlviz__inner_locks_held() || !ggmlviz__leave_lock_at_exit(&lock))
		return;
	stop_locked();
	ggmlviz__leave_unlock(&lock);
}

/* Sampled windows: a step is a unit (window.c). */
static void step_begin(void)
{
	ggmlviz__gpu_window_unit_begin(1);
}

static void step_end(void)
{
	ggmlviz__gpu_window_unit_end(1);
}

/*
 * Windows, once the profiler started: the steps say their state from now
 * on; started inside one (its first CUDA split), that one is the first
 * window's warm-up.
 */
static void windows_on(int in_unit)
{
	if (!ggmlviz__gpu_window_on())
		return;
	atomic_store_explicit(&ggmlviz__state.gpu_step_end, step_end, memory_order_release);
	atomic_store_explicit(&ggmlviz__state.gpu_step_begin, step_begin, memory_order_release);
	if (in_unit)
		ggmlviz__gpu_window_warmup_now();
}

static void windows_off(void)
{
	atomic_store_explicit(&ggmlviz__state.gpu_step_begin, NULL, memory_order_release);
	atomic_store_explicit(&ggmlviz__state.gpu_step_end, NULL, memory_order_release);
}

/*
 * Starts the profiler now (in_unit: on a traced thread inside a step or
 * graph); 1 when kernels are recorded. Called with the lock held.
 */
static int start_now(int in_unit, char *what, size_t size)
{
	static int exit_hook;
	int rc;

	what[0] = '\0';
	rc = profiler->start(&gpu.how, what, size);
	if (rc == -1)
		ggmlviz__log(&gpu.log, GGMLVIZ_LOG_INFO, "GPU kernels %s", what);
	if (rc < 0)
		return 0;
	if (!exit_hook)
		exit_hook = atexit(at_exit) == 0; /* after the profiler's library was loaded */
	gpu.recording = 1;
	windows_on(in_unit);
	snprintf(gpu.note, sizeof gpu.note, "%s", what);
	ggmlviz__log(&gpu.log, GGMLVIZ_LOG_INFO, "GPU kernels %s", what);
	return 1;
}

/*
 * A backend was named for the first time this session (META BACKEND_NAME,
 * on the traced thread about to run it): a CUDA one starts the profiler.
 */
static void backend_named(const char *name)
{
	char what[320];
	int ok;

	if (!name || strncmp(name, "CUDA", 4) != 0)
		return;
	ggmlviz__leave_lock(&lock);
	if (gpu.armed) {
		gpu.armed = 0;
		atomic_store_explicit(&ggmlviz__state.gpu_backend_named, NULL, memory_order_relaxed);
		ok = start_now(ggmlviz__unit_open(), what, sizeof what);
		ggmlviz__emit_meta_gpu(0, (uint64_t)ok, 0, what);
	}
	ggmlviz__leave_unlock(&lock);
}

static int arm(const struct ggmlviz_config *cfg, char *what, size_t size)
{
	gpu.how.buffer_bytes = (uint64_t)(cfg->gpu_buffer_kib ? cfg->gpu_buffer_kib
							      : DEFAULT_BUFFER_KIB) << 10;
	snprintf(gpu.path, sizeof gpu.path, "%s", cfg->cupti_path ? cfg->cupti_path : "");
	gpu.how.path = cfg->cupti_path ? gpu.path : NULL;
	gpu.how.sample_k = cfg->gpu_sample_k;
	gpu.how.sample_n = cfg->gpu_sample_n;
	if (profiler->available(gpu.how.path, what, size) < 0)
		return 0;
	if (cfg->gpu_kernels == GGMLVIZ_GPU_KERNELS_AT_START)
		return start_now(0, what, size);
	gpu.armed = 1;
	atomic_store_explicit(&ggmlviz__state.gpu_backend_named, backend_named,
			      memory_order_release);
	snprintf(what, size, "recorded from the first CUDA split on: CUPTI is loaded then "
		 "(GGML_VIZ_GPU_KERNELS=start loads it at the start)");
	return 0;
}

int ggmlviz__gpu_start(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink,
		       char *what, size_t size)
{
	int rc;

	ggmlviz__leave_lock(&lock);
	gpu.recording = gpu.armed = 0;
	gpu.log = *sink;
	ggmlviz__gpu_window_reset(0, 0, NULL); /* a profiler with windows sets its own */
	if (!cfg->op_timing || !cfg->gpu_kernels) {
		snprintf(what, size, "not recorded: %s",
			 cfg->op_timing ? "GGML_VIZ_GPU_KERNELS=0" : "op timing is off");
		rc = 0;
	} else {
		rc = arm(cfg, what, size);
	}
	ggmlviz__leave_unlock(&lock);
	return rc;
}

/* What the windows did, for the last word: "" without windows. */
static void windows_said(char *out, size_t size)
{
	struct ggmlviz__gpu_window_counts w;

	out[0] = '\0';
	if (!ggmlviz__gpu_window_on())
		return;
	ggmlviz__gpu_window_counts(&w);
	snprintf(out, size, "; in windows of %u %s of every %u (GGML_VIZ_GPU_SAMPLE): %llu "
		 "windows, %llu sampled, %llu warm-up, %llu outside; CUPTI detached %llu times, "
		 "kept attached with its kinds off %llu times%s", w.k, w.steps ? "steps" : "runs",
		 w.n, (unsigned long long)w.windows, (unsigned long long)w.sampled,
		 (unsigned long long)w.warmups, (unsigned long long)w.outside,
		 (unsigned long long)w.detaches, (unsigned long long)w.kinds_off,
		 w.ended ? "; it could not attach again, and the windows ended there" : "");
}

/* The session's last word on kernels: the note it started with, and the figures. */
static void say_figures(const char *said)
{
	struct ggmlviz__gpu_counts c;
	char label[1280];

	char windows[320];
	int n;

	ggmlviz__gpu_counts(&c);
	windows_said(windows, sizeof windows);
	n = (int)strlen(windows);
	if (c.clock_steps)
		snprintf(windows + n, sizeof windows - (size_t)n, "; the GPU's clock stepped %llu "
			 "times against the trace's (NTP, a VM resumed): each kernel is converted by "
			 "the clock points of its side of the step", (unsigned long long)c.clock_steps);
	snprintf(label, sizeof label, "%s; %llu KERNEL records (%llu memory copies and sets), %llu "
		 "without their run, %llu incomplete records left out (no GPU time), %llu lost "
		 "(the profiler's buffers were full)%s%s", gpu.note, (unsigned long long)c.kernels,
		 (unsigned long long)c.copies, (unsigned long long)c.without_run,
		 (unsigned long long)c.incomplete, (unsigned long long)c.dropped, windows, said);
	ggmlviz__emit_meta_gpu(c.kernels, 1, c.incomplete, label);
}

void ggmlviz__gpu_after_fork_child(void)
{
	ggmlviz__leave_lock_reset(&lock);
	atomic_store_explicit(&ggmlviz__state.gpu_backend_named, NULL, memory_order_relaxed);
	atomic_store_explicit(&ggmlviz__state.gpu_run_begin, NULL, memory_order_relaxed);
	atomic_store_explicit(&ggmlviz__state.gpu_run_end, NULL, memory_order_relaxed);
	windows_off();
	gpu.recording = gpu.armed = 0;
	profiler->after_fork_child();
	ggmlviz__gpu_sink_forget();
}

void ggmlviz__gpu_unload(void)
{
	ggmlviz__gpu_stop();
	ggmlviz__leave_lock(&lock);
	profiler->unload();
	ggmlviz__gpu_sink_reset(); /* its queue's and names' memory */
	ggmlviz__leave_unlock(&lock);
}

/* Every record of the session's kernels in, the figures said; the lock held. */
static void stop_locked(void)
{
	atomic_store_explicit(&ggmlviz__state.gpu_backend_named, NULL, memory_order_release);
	gpu.armed = 0;
	windows_off();
	if (gpu.recording) {
		char said[256] = "";

		profiler->stop(said, sizeof said); /* every buffer handed over: the records written */
		ggmlviz__gpu_settle(GGMLVIZ__GPU_FINAL); /* those whose run never came, without one */
		say_figures(said);
		gpu.recording = 0;
	}
}

void ggmlviz__gpu_stop(void)
{
	if (ggmlviz__leave_lock_mine(&lock))
		return; /* an exit() that interrupted this thread's stop: see at_exit() */
	ggmlviz__leave_lock(&lock);
	stop_locked();
	ggmlviz__leave_unlock(&lock);
}
