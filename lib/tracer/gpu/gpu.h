/*
 * GPU kernels, timed by the GPU and recorded as KERNEL records: the
 * group's one header. The session starts and stops it (gpu.c); a GPU
 * profiler's glue (cupti.c: NVIDIA's CUPTI, loaded at run time) feeds the
 * sink (kernels.c), which knows nothing of the profiler: the clock points
 * that convert GPU time to the tracer's, the launches' runs, the kernels.
 *
 * Who writes what: the sink's state is written by the profiler's thread
 * (its buffer callback) and by the session's thread while no callback
 * runs (start, and stop after the last flush). The traced program's
 * threads only call the run hooks (ggmlviz__state.gpu_run_begin/end),
 * which the glue implements.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GPU_H
#define GGMLVIZ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "tracer/base/base.h"

/* ---- the session's side (gpu.c) ---- */

/*
 * At a session's start, before the writer opens: whether and when kernels
 * are recorded, as cfg asks (gpu_kernels, gpu_buffer_kib, cupti_path).
 * With GGMLVIZ_GPU_KERNELS_AT_START the profiler starts now; by default
 * it starts on the traced thread that first names a CUDA backend (META
 * BACKEND_NAME "CUDA0": the first CUDA split), so that a program that
 * never runs one never loads CUPTI. `what` says which (the writer's META
 * GPU record, the trace's first after PROCESS); said to sink when kernels
 * are recorded, or when a profiler was found but could not be used.
 * Returns 1 when kernels are recorded from the start, 0 when not (yet).
 */
int ggmlviz__gpu_start(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink,
		       char *what, size_t size);

/*
 * Before the mask closes: the profiler's records all delivered and
 * recorded, the profiler detached, a META GPU record with the figures.
 * Also at exit, before the profiler's own exit handlers (cupti.c).
 */
void ggmlviz__gpu_stop(void);

/*
 * In the child of a fork() (the session's fork handler): the child has
 * none of the parent's threads, so the GPU's locks may be held by a thread
 * that is not there, and the profiler's flush thread is gone; all of it is
 * forgotten, nothing of the profiler called, and the child records no
 * kernel (CUDA does not carry a context across fork()).
 */
void ggmlviz__gpu_after_fork_child(void);

/*
 * The library is unloaded (dlclose of the object that linked it), its
 * session stopped: the profiler keeps nothing of it (CUPTI detached).
 */
void ggmlviz__gpu_unload(void);

/* ---- the sink (kernels.c) ---- */

/* A GPU record as the profiler reports it: a kernel, or a copy or set. */
struct ggmlviz__gpu_launch {
	uint64_t start, end;          /* GPU time, ns */
	uint32_t device, stream, correlation;
	const char *name;             /* borrowed during the call; "[CUDA memcpy DtoD]" for a copy */
	int copy;                     /* a memory copy or set, not a kernel */
};

/* A new session: forgets every clock point, mapping, waiting kernel and count. */
void ggmlviz__gpu_sink_reset(void);

/* In a child after fork(): the sink as new, its lock fresh, the parent's memory left alone. */
void ggmlviz__gpu_sink_forget(void);

/* A calibration point: the GPU's clock and the trace's (ns since the epoch), read together. */
void ggmlviz__gpu_clock_point(uint64_t gpu_ns, uint64_t trace_ns);

/*
 * A calibration point read now: the GPU's clock (gpu_now: 0 and the time,
 * or -1) between two reads of the trace's clock, three times, the
 * narrowest bracket kept with its middle, so that a thread preempted
 * between two reads does not shift every kernel after it. -1 when the
 * GPU's clock could not be read.
 */
int ggmlviz__gpu_clock_read(int (*gpu_now)(uint64_t *ns));

/*
 * The trace's time of a GPU time: the nearest kept point's (of the last
 * 16), plus the distance from it, scaled only where the two clocks run at
 * rates apart by more than 2 ppm (measured over 1 to 60 s). A point off
 * the line of those before it by more than 1 ms (plus 1000 ppm of the
 * time between) is a step of a clock: the rate's anchors restart there.
 */
uint64_t ggmlviz__gpu_trace_ns(uint64_t gpu_ns);

/* The launch `correlation` was made inside run `run_id` (an external correlation). */
void ggmlviz__gpu_correlate(uint32_t correlation, uint64_t run_id);

/*
 * A kernel ran: queued, to be recorded by ggmlviz__gpu_settle() as KERNEL
 * on its device's and stream's GPU track (named once a session), with the
 * run that launched it once its launch's run is known. Recorded at once,
 * on the calling thread, only when the queue is full.
 */
void ggmlviz__gpu_kernel(const struct ggmlviz__gpu_launch *k);

/* What ggmlviz__gpu_settle does with the kernels waiting for their run. */
enum ggmlviz__gpu_settle {
	GGMLVIZ__GPU_TIE,   /* records those whose run is known */
	GGMLVIZ__GPU_PASS,  /* the same, at the end of a profiler's pass: those that waited 10 go without */
	GGMLVIZ__GPU_FINAL, /* records every one, without a run when none is known */
};

/* The queued kernels, in the order they came, as `how` says: call it from one thread at a time. */
void ggmlviz__gpu_settle(enum ggmlviz__gpu_settle how);

/* The profiler lost n records (its buffers were full): counted as dropped events. */
void ggmlviz__gpu_dropped(uint64_t n);

/* The profiler delivered n records without their times (a forced flush): left out. */
void ggmlviz__gpu_incomplete(uint64_t n);

/* What the sink did this session. */
struct ggmlviz__gpu_counts {
	uint64_t kernels;      /* KERNEL records written, copies and sets included */
	uint64_t copies;       /* of those, memory copies and sets */
	uint64_t without_run;  /* of those, without the run that launched them */
	uint64_t waited_out;   /* of those, because their run was not known in time */
	uint64_t incomplete;   /* records left out: no start or end */
	uint64_t dropped;      /* records the profiler lost */
	uint32_t waiting;      /* kernels waiting now */
	uint64_t clock_steps;  /* steps of the GPU's clock against the trace's: the anchors restarted */
};

void ggmlviz__gpu_counts(struct ggmlviz__gpu_counts *out);

/* ---- sampled windows (window.c) ---- */

/*
 * A session's windows: the kernels of k units (steps, or runs of nodes in
 * a program that marks no step) of every n recorded, the profiler detached
 * between (k < n; otherwise every unit's, and none of the below does
 * anything). wake rings the profiler's thread, which asks what it should
 * do (ggmlviz__gpu_window_want) and says when it is done. Called when the
 * profiler starts, which is the first attach: it then calls
 * ggmlviz__gpu_window_attached(1).
 */
void ggmlviz__gpu_window_reset(uint32_t k, uint32_t n, void (*wake)(void));

/* Whether this session records kernels in windows. */
int ggmlviz__gpu_window_on(void);

/*
 * A unit begins or ends on the calling (traced) thread: step 1 from
 * ggmlviz_step_begin/end, 0 from a run of nodes (counted only while no
 * step was seen). The begin writes the unit's state (META GPU_WINDOW,
 * enum ggmlviz_gpu_window) when it differs from the last one's; the end
 * of a window's last sampled unit asks the profiler to detach, and the end
 * of the cycle's n-th unit to attach. Atomics only.
 */
void ggmlviz__gpu_window_unit_begin(int step);
void ggmlviz__gpu_window_unit_end(int step);

/*
 * The profiler started inside a unit (the first CUDA split, on the traced
 * thread): that unit is the first window's warm-up, said now.
 */
void ggmlviz__gpu_window_warmup_now(void);

/* Whether a run begun now is to be tagged: its unit is a window's warm-up or sampled. */
int ggmlviz__gpu_window_tagging(void);

/* What the profiler's thread is asked to do; taking a request marks it begun. */
enum ggmlviz__gpu_want {
	GGMLVIZ__GPU_WANT_NOTHING,
	GGMLVIZ__GPU_WANT_DETACH,
	GGMLVIZ__GPU_WANT_ATTACH,
};

enum ggmlviz__gpu_want ggmlviz__gpu_window_want(void);

/* The profiler's thread attached (ok), or could not: then no window follows. */
void ggmlviz__gpu_window_attached(int ok);

/* The profiler's thread detached it (finalized), or turned its kinds off (kept attached). */
void ggmlviz__gpu_window_detached(int finalized);

/* What the windows did this session. */
struct ggmlviz__gpu_window_counts {
	uint32_t k, n;
	uint64_t windows;  /* attached: the first start and every attach after */
	uint64_t sampled;  /* units sampled */
	uint64_t warmups;  /* units that were CUPTI's warm-up */
	uint64_t outside;  /* units with no kernel recorded */
	uint64_t detaches; /* the profiler detached (cuptiFinalize) */
	uint64_t kinds_off; /* it kept attached, its kinds off (it would not detach) */
	int steps;         /* the units were steps (else runs of nodes) */
	int ended;         /* the profiler could not attach again: no window after */
};

void ggmlviz__gpu_window_counts(struct ggmlviz__gpu_window_counts *out);

/* ---- a GPU profiler's glue ---- */

/* How a session wants kernels recorded. */
struct ggmlviz__gpu_how {
	uint64_t buffer_bytes;  /* at most this many bytes of the profiler's buffers */
	const char *path;       /* where its library is, or NULL: where it usually is */
	uint32_t sample_k, sample_n; /* windows (ggmlviz__gpu_window_reset), or 0 and 0 */
};


/* What the session calls of a GPU profiler's glue. */
struct ggmlviz__gpu_profiler {
	/*
	 * Whether a profiler may be here, cheaply, without loading anything:
	 * 0, or -2 with why when it cannot be (no NVIDIA device: nothing
	 * worth saying unasked). path: where its library was named, or NULL.
	 */
	int (*available)(const char *path, char *why, size_t size);
	/*
	 * Subscribes to kernel records as how says, loading the profiler;
	 * resets the sink and gives it a first clock point; installs the run
	 * hooks; with windows, resets them (a glue that cannot detach records
	 * every unit's kernels, and says so). 0, or -1 with why (no library,
	 * another version, subscription refused), or -2 when no profiler is
	 * here at all (nothing worth saying unasked). what says through what
	 * kernels are recorded, or why not.
	 */
	int (*start)(const struct ggmlviz__gpu_how *how, char *what, size_t size);
	/*
	 * Delivers every buffered record to the sink and detaches: the run
	 * hooks stop tagging (a thread may still pop its run). said gets the
	 * profiler's own figures for the session's last word ("" if none).
	 */
	void (*stop)(char *said, size_t size);
	/*
	 * In the child of a fork(): the parent's profiler, its threads and
	 * locks, are not the child's; forgotten without a call into it.
	 */
	void (*after_fork_child)(void);
	/*
	 * The library is unloaded with the object that linked it, its session
	 * stopped: the profiler must call none of its code any more (CUPTI's
	 * buffer callbacks outlive a subscription: it is detached whole).
	 */
	void (*unload)(void);
};

/* NVIDIA's CUPTI, loaded at run time (cupti.c); without its headers, a start that says so. */
extern const struct ggmlviz__gpu_profiler ggmlviz__cupti;

/*
 * The profiler of the sessions started from now on (NULL: CUPTI's), set
 * while no session runs: the tests put a stand-in in CUPTI's place (and
 * another vendor's glue would go here).
 */
void ggmlviz__gpu_use(const struct ggmlviz__gpu_profiler *p);

#endif /* GGMLVIZ_GPU_H */
