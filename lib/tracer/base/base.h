/*
 * The bottom of the tracer, shared by its three owners (producer/, the
 * traced program's threads; writer/, the writer thread; session/, start
 * and stop): the session's state, where messages go, and the bell that
 * wakes a sleeping thread. It calls nothing above it.
 *
 * Who writes what of struct ggmlviz__state:
 *   session/   everything but the counters, before the mask opens a session
 *              (and between sessions);
 *   producer/  lost (no ring could be made), mismatches (nodes.c),
 *              ring_mapped and ring_mapped_peak (as buffers are mapped),
 *              gpu_runs (nodes.c, as GPU runs begin);
 *   gpu/       lost (records the GPU's profiler dropped), the gpu hooks;
 *   producer/nvtx.c  nvtx_used, once a session began NVTX ranges;
 *   writer/    ended (max_events reached), ring_mapped as it grows rings,
 *              segments (a rotated trace's);
 *   anyone     reads it; the set-once members after the mask opens.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_BASE_H
#define GGMLVIZ_BASE_H

#include <stdatomic.h>
#include <stdint.h>

#include <ggmlviz/tracer.h>

/* ---- the session's state ---- */

#define GGMLVIZ__MIN_BUFFER_EVENTS 16u
#define GGMLVIZ__MAX_BUFFER_EVENTS (1u << 24)
#define GGMLVIZ__MAX_FLUSH_MS 60000u
/* Ring bytes per unit of buffer_events: a record with a label of 14 bytes. */
#define GGMLVIZ__EVENT_BYTES 64u

/* Mask bits beyond tracer.h's GGMLVIZ__ACTIVE, GGMLVIZ__OPS, GGMLVIZ__MEMORY. */
#define GGMLVIZ__NAMES 8u    /* keep op labels (tensor_names) */
#define GGMLVIZ__THREADS 16u /* THREAD_BEGIN / THREAD_FREE (thread_tracking) */
#define GGMLVIZ__SYNC 32u    /* op timing by synchronizing each node (GGMLVIZ_OP_TIMING_SYNC) */
#define GGMLVIZ__SHARES 64u  /* CPU workers' shares measured (not cpu_shares_off) */
#define GGMLVIZ__ONCE 128u   /* a graph run again is described once (DESC_SET; not describe_every) */
#define GGMLVIZ__NVTX 256u   /* NVTX ranges of steps, graphs and runs: a tool is attached (producer/nvtx.h) */
#define GGMLVIZ__NVTX_OPS 512u /* and of ops (ggmlviz_config::nvtx 2) */

struct ggmlviz__state {
	uint64_t clock_offset;  /* realtime - monotonic, in ns, fixed once per process */
	uint64_t ring_bytes;    /* size of each thread's ring, set before the mask opens */
	uint64_t ring_max_bytes; /* the most a busy thread's ring grows to (writer/grow.c) */
	int overflow_block;     /* GGMLVIZ_OVERFLOW_BLOCK chosen */
	int heavy_fence;        /* no membarrier(2): the emit path needs a real fence */
	int use_tsc;            /* records are stamped with the time-stamp counter (clock.h) */
	uint32_t op_sample;     /* ops timed in 1 step (or graph) in op_sample */
	/*
	 * Rolling mode (op_sample > 1 or op_slow_us, not sync): a step's runs
	 * are held until it ends (producer/stage.c), then recorded op by op
	 * if the step is sampled or took op_slow_stamps or more, else summed
	 * by op type (OP_SUMMARY).
	 */
	int rolling;
	uint64_t op_slow_stamps; /* op_slow_us in raw stamps (clock.h); 0: none */
	/*
	 * A flight recorder (GGML_VIZ_FLIGHT) keeps every op: a step that
	 * rolling mode sums is recorded op by op too, for the flight recorder
	 * only (producer/stage.c, writer/route.c).
	 */
	int flight;
	int anonymize;          /* the writer replaces addresses by ids (anonymize) */
	uint64_t anon_key;      /* the session's key of that permutation */
	_Atomic uint64_t lost;  /* events lost before a ring: none could be made, or the GPU's profiler dropped them */
	_Atomic uint64_t session; /* ggmlviz_session() */
	_Atomic uint64_t mismatches; /* runs whose ticks did not match their nodes */
	_Atomic uint64_t shares_unasked; /* nodes the CPU backend measured that no run asked about */
	_Atomic int ended;      /* recording ended on its own (max_events): not active */
	/*
	 * Segments a rotated trace began after its first (writer/rotate.c),
	 * and half windows of a flight recorder (writer/snapshot.c): a set of
	 * descriptions written before the last one began is not in the file
	 * (or the window) written now, and is defined again
	 * (ggmlviz__written_now()).
	 */
	_Atomic uint64_t segments;
	_Atomic uint64_t ring_mapped;      /* bytes of ring buffers mapped now */
	_Atomic uint64_t ring_mapped_peak; /* the most since the session started */
	/* Called on a thread that ends while its ring exists (records THREAD_FREE). */
	void (*thread_exit)(void);
	/*
	 * GPU kernels recorded (gpu/): a run of nodes begins and ends on the
	 * calling thread, which tags the launches in between with the run's id
	 * (set by the session while kernels are recorded, NULL otherwise).
	 * The begin returns 1 when the run is tagged, 0 when not (outside a
	 * sampled window); every run whose begin was called has its end
	 * called, tagged or not.
	 */
	int (*_Atomic gpu_run_begin)(uint64_t run_id);
	void (*_Atomic gpu_run_end)(void);
	/*
	 * Kernels recorded in sampled windows (gpu/window.c): a step begins
	 * (before its record) and ends (after it) on the calling thread (set
	 * while windows are on, NULL otherwise).
	 */
	void (*_Atomic gpu_step_begin)(void);
	void (*_Atomic gpu_step_end)(void);
	_Atomic uint64_t gpu_runs;  /* run ids given so far (ids start at 1) */
	/*
	 * Set while kernels are to be recorded from the first CUDA split on
	 * (gpu/): called with a backend's name the first time a session
	 * names it (ggmlviz_meta_once, BACKEND_NAME), on the naming thread.
	 */
	void (*_Atomic gpu_backend_named)(const char *name);
	/*
	 * A session of this process began NVTX ranges (producer/nvtx.h): from
	 * then on the hooks that end a range look at the calling thread's
	 * ranges, whether or not a session is open. Never cleared.
	 */
	_Atomic int nvtx_used;
};

extern struct ggmlviz__state ggmlviz__state __attribute__((visibility("hidden")));

/*
 * The library's own name for tracer.h's ggmlviz__mask (the call-site check
 * of programs reads the public symbol): a hidden alias of the same word,
 * which the archive's position-independent code reads directly rather than
 * through the global offset table (state.c).
 */
extern unsigned int ggmlviz__mask_here __attribute__((visibility("hidden")));

/* The mask as the emit path's first check reads it. */
static inline unsigned ggmlviz__mask_relaxed(void)
{
	return __atomic_load_n(&ggmlviz__mask_here, __ATOMIC_RELAXED);
}

/*
 * The session's sampling settings as the traced threads read them: set by
 * ggmlviz_start() while a thread of the last session may still be reading
 * them (outside an emit call), so relaxed atomics; plain loads on x86.
 */
static inline int ggmlviz__rolling(void)
{
	return __atomic_load_n(&ggmlviz__state.rolling, __ATOMIC_RELAXED);
}

static inline uint32_t ggmlviz__op_sample(void)
{
	return __atomic_load_n(&ggmlviz__state.op_sample, __ATOMIC_RELAXED);
}

static inline uint64_t ggmlviz__op_slow_stamps(void)
{
	return __atomic_load_n(&ggmlviz__state.op_slow_stamps, __ATOMIC_RELAXED);
}

static inline int ggmlviz__flight(void)
{
	return __atomic_load_n(&ggmlviz__state.flight, __ATOMIC_RELAXED);
}

/*
 * A META record of this kind is no event: it says where the records after
 * it on its thread go (enum ggmlviz__route in its key), and the writer
 * leaves it out of the file and of the flight recorder. ggmlviz_meta()
 * refuses it.
 */
#define GGMLVIZ__META_ROUTE 0x7f524f55u
enum ggmlviz__route {
	GGMLVIZ__ROUTE_BOTH = 0,   /* the file and the flight recorder: every record's */
	GGMLVIZ__ROUTE_FLIGHT = 1, /* the flight recorder only (its META records: both) */
	GGMLVIZ__ROUTE_FILE = 2    /* the file only */
};

/* seq_cst on both sides: see ggmlviz__ring_enter(). A plain load on x86. */
static inline unsigned ggmlviz__mask_now(void)
{
	return __atomic_load_n(&ggmlviz__mask_here, __ATOMIC_SEQ_CST);
}

static inline void ggmlviz__mask_set(unsigned m)
{
	__atomic_store_n(&ggmlviz__mask_here, m, __ATOMIC_SEQ_CST);
}

/* ---- messages (log.c) ---- */

/* Where a message goes: a copy of the config's log settings. */
struct ggmlviz__log_sink {
	ggmlviz_log_fn fn;
	void *user;
	int verbose;
};

/* The sink described by a config. */
struct ggmlviz__log_sink ggmlviz__log_sink_of(const struct ggmlviz_config *cfg);

/*
 * Says one line to sink at level: unasked (no log_fn, not verbose) only
 * warnings reach stderr, one write(2) per line.
 */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void ggmlviz__log(const struct ggmlviz__log_sink *sink, int level, const char *fmt, ...);

/* ---- bells (bell.c) ---- */

/*
 * A bell: a futex word that counts rings, and how many threads sleep on
 * it, so that ringing makes a system call only when someone sleeps.
 * Lock-free: ringing is an atomic increment.
 *
 * The writer sleeps on the doorbell between passes, and whoever needs a
 * pass sooner (a producer whose ring passed its bell, a producer waiting
 * for room, stop) rings it. The other way round, a producer in
 * GGMLVIZ_OVERFLOW_BLOCK mode sleeps on its ring's `room` bell, which the
 * writer rings as it gives room back, so that a full ring costs its thread
 * one sleep rather than a poll that takes the CPU the writer needs.
 */
struct ggmlviz__bell {
	_Atomic uint32_t word;
	_Atomic int sleepers;
};

/* Counts a ring, and wakes up to n sleepers (a system call only if there are any). */
void ggmlviz__bell_ring(struct ggmlviz__bell *b, int n);

/* What the bell says now: read it, then look for what you wait for, then wait with it. */
uint32_t ggmlviz__bell_token(struct ggmlviz__bell *b);

/* Sleeps up to ns unless the bell rang since token was read. */
void ggmlviz__bell_wait(struct ggmlviz__bell *b, uint32_t token, uint64_t ns);

/* The writer's doorbell: wakes the writer if it sleeps. */
void ggmlviz__doorbell_ring(void);

/* The doorbell's token, as ggmlviz__bell_token(). */
uint32_t ggmlviz__doorbell_token(void);

/* The writer sleeps up to ns unless the doorbell rang since token was read. */
void ggmlviz__doorbell_wait(uint32_t token, uint64_t ns);

/* Wake-ups of the writer so far (for the counters and the benchmark). */
uint64_t ggmlviz__doorbell_wakeups(void);

#endif /* GGMLVIZ_BASE_H */
