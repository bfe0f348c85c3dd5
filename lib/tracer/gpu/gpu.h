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
 * Starts recording kernels as cfg asks (gpu_kernels, gpu_buffer_kib,
 * cupti_path), before the writer opens: what says whether they are
 * recorded, through what, or why not (the writer's META GPU record, the
 * trace's first after PROCESS); said to sink when kernels are recorded, or
 * when a profiler was found but could not be used. Returns 1 when kernels
 * are recorded, 0 when not.
 */
int ggmlviz__gpu_start(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink,
		       char *what, size_t size);

/* Before the mask closes: the kernels still buffered recorded, the profiler released. */
void ggmlviz__gpu_stop(void);

/* ---- the sink (kernels.c) ---- */

/* A kernel as the profiler reports it. */
struct ggmlviz__gpu_launch {
	uint64_t start, end;          /* GPU time, ns */
	uint32_t device, stream, correlation;
	const char *name;             /* borrowed during the call */
};

/* A new session: forgets every clock point, mapping and waiting kernel. */
void ggmlviz__gpu_sink_reset(void);

/* A calibration point: the GPU's clock (ns) and the tracer's raw stamp (clock.h), read together. */
void ggmlviz__gpu_clock_point(uint64_t gpu_ns, uint64_t stamp);

/*
 * A calibration point read now: the GPU's clock (gpu_now: 0 and the time,
 * or -1) between two raw stamps, three times, the narrowest bracket kept
 * with its middle stamp, so that a thread preempted between two reads
 * does not shift every kernel after it. -1 when the GPU's clock could not
 * be read.
 */
int ggmlviz__gpu_clock_read(int (*gpu_now)(uint64_t *ns));

/*
 * The raw stamp of a GPU time: from the newest point, at the rate between
 * the first and the newest point once they are 100 ms apart (before, at
 * the rate the clock measured at init).
 */
uint64_t ggmlviz__gpu_stamp_of(uint64_t gpu_ns);

/* The launch `correlation` was made inside run `run_id` (an external correlation). */
void ggmlviz__gpu_correlate(uint32_t correlation, uint64_t run_id);

/*
 * A kernel ran: recorded as KERNEL on its device's and stream's GPU track
 * (named once a session), with the run that launched it, once its launch's
 * run is known; until then it waits (a bounded number of kernels).
 */
void ggmlviz__gpu_kernel(const struct ggmlviz__gpu_launch *k);

/*
 * After a batch of the profiler's records: waiting kernels whose run is now
 * known are recorded; with final, every one is (without a run when none).
 */
void ggmlviz__gpu_settle(int final);

/* The profiler lost n kernel records (its buffers were full): counted as dropped events. */
void ggmlviz__gpu_dropped(uint64_t n);

/* ---- a GPU profiler's glue ---- */

/* What the session calls of a GPU profiler's glue. */
struct ggmlviz__gpu_profiler {
	/*
	 * Subscribes to kernel records with at most buffer_bytes of buffers,
	 * loading the profiler from path (NULL: where it usually is); resets
	 * the sink and gives it a first clock point; installs the run hooks.
	 * 0, or -1 with why (no library, another version, subscription
	 * refused), or -2 when no profiler is here at all (nothing worth
	 * saying unasked). what says through what kernels are recorded, or
	 * why not.
	 */
	int (*start)(uint64_t buffer_bytes, const char *path, char *what, size_t size);
	/* Delivers every buffered record to the sink (the session's end). */
	void (*flush)(void);
	/* Unsubscribes; the run hooks stop tagging (a thread may still pop its run). */
	void (*stop)(void);
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
