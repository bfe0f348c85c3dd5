/*
 * Tracing sessions: ggmlviz_start(), ggmlviz_stop(), their counters, and
 * what keeps a session safe at exit() and across fork().
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "tracer/base/base.h"
#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/gpu/gpu.h"
#include "tracer/producer/nvtx.h"
#include "tracer/producer/producer.h"
#include "tracer/session/session.h"
#include "tracer/session/settings.h"
#include "tracer/writer/writer.h"
#include "util/leaving.h"
#include "util/pages.h"

/* Held while a session starts, stops or is counted; at exit, never waited for by its holder. */
static struct ggmlviz__leave_lock session_lock = GGMLVIZ__LEAVE_LOCK_INIT;
static pthread_once_t process_once = PTHREAD_ONCE_INIT;
static struct ggmlviz__writer *writer; /* non-NULL while a session is open */
static struct ggmlviz__log_sink sink;
static struct ggmlviz_stats last_stats;

/* ---- the emit path's quiescence, without fences on the emit path ---- */

static void register_membarrier(void)
{
	if (ggmlviz__os_membarrier_register() < 0)
		ggmlviz__state.heavy_fence = 1;
}

/*
 * After the mask is cleared: every emitter either saw it cleared, or its
 * in_emit is visible here (membarrier runs a full barrier on every thread of
 * the process, standing in for the fence the emit path does not have);
 * wait for those to finish their record. This thread's own ring is not
 * waited for: a stop at exit() from a signal handler that interrupted an
 * emit of this thread would wait for ever (the record it was making is
 * not committed, so never read).
 */
/*
 * The registry's lock; at exit GGMLVIZ__EXIT_WAIT_MS at most, its holder
 * perhaps waiting on malloc's lock, which the thread exit() interrupted
 * holds (a thread ending frees its ring, the writer a dead thread's).
 * 1 when taken.
 */
static int registry_lock(int exiting)
{
	if (exiting)
		return ggmlviz__registry_lock_at_exit();
	ggmlviz__registry_lock();
	return 1;
}

static void quiesce(int exiting)
{
	if (!ggmlviz__state.heavy_fence)
		ggmlviz__os_membarrier();
	if (!registry_lock(exiting))
		return; /* at exit: the emitters' records may stay unfinished */
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		while (r != ggmlviz__tls_ring && atomic_load_explicit(&r->in_emit, memory_order_seq_cst))
			sched_yield();
	ggmlviz__registry_unlock();
}

/* ---- exit and fork ---- */

static int stop_locked(int exiting);

/*
 * At exit the session stops, its trace complete; but not by a thread that
 * holds its lock already: exit() called from a signal handler that
 * interrupted this thread's start or stop (a second Ctrl-C while the
 * program's own exit handler stops the session) runs this handler on that
 * thread, and the trace ends where that stop had got (without its
 * TRACE_END before the writer's last pass: validate says incomplete),
 * after a whole record: no write begins from then on, and the writer's
 * write in flight is waited for (ggmlviz__output_halt()), since the
 * process's end would cut it: GGMLVIZ__EXIT_WAIT_MS at most, after as
 * long for another thread's stop when that one holds the lock.
 * Nor by a thread that holds another of the library's locks, which the
 * stop takes too (the registry's, as the thread ends: leaving.h).
 * Another thread's stop is waited for GGMLVIZ__EXIT_WAIT_MS at most, and
 * so is the writer once it writes no more (stop_locked(1)). Nor does it
 * take a lock of the C library: no join, no free(), no munmap().
 */
static void at_exit(void)
{
	if (ggmlviz__inner_locks_held() || !ggmlviz__leave_lock_at_exit(&session_lock)) {
		ggmlviz__output_halt(GGMLVIZ__EXIT_WAIT_MS); /* the file ends after a whole record */
		return;
	}
	if (writer && stop_locked(1) == -ETIMEDOUT)
		ggmlviz__output_halt(0); /* the writer given up on begins no write the end would cut */
	ggmlviz__leave_unlock(&session_lock);
}

static void before_fork(void)
{
	ggmlviz__leave_lock(&session_lock);
	ggmlviz__registry_lock();
	ggmlviz__settings_before_fork();
}

static void after_fork_parent(void)
{
	ggmlviz__settings_after_fork(0);
	ggmlviz__registry_unlock();
	ggmlviz__leave_unlock(&session_lock);
}

/* The child has none of the parent's threads and must not touch its file. */
static void after_fork_child(void)
{
	ggmlviz__mask_set(0);
	ggmlviz__gpu_after_fork_child();
	ggmlviz__crash_forget();
	ggmlviz__registry_forget_all();
	ggmlviz__writer_abandon(writer);
	ggmlviz__output_after_fork_child();
	writer = NULL;
	ggmlviz__nvtx_forget();
	ggmlviz__claim_forget();
	ggmlviz__settings_after_fork(1);
	ggmlviz__registry_unlock();
	ggmlviz__leave_unlock(&session_lock);
}

static void once_per_process(void)
{
	ggmlviz__clock_init();
	__atomic_store_n(&ggmlviz__state.thread_exit, ggmlviz__emit_thread_free, __ATOMIC_RELEASE);
	register_membarrier();
	pthread_atfork(before_fork, after_fork_parent, after_fork_child);
	ggmlviz__at_exit(at_exit);
}

/* ---- start ---- */

/* The output path with each "%p" replaced by the pid; the caller frees it. */
static char *expand_path(const char *fmt)
{
	size_t cap = strlen(fmt) + 1, n = 0;
	char pid[24], *out;
	int pid_len = snprintf(pid, sizeof pid, "%ld", (long)getpid());

	for (const char *s = fmt; *s; s++)
		cap += (s[0] == '%' && s[1] == 'p') ? (size_t)pid_len : 0;
	out = ggmlviz__pages_alloc(cap);
	if (!out)
		return NULL;
	for (const char *s = fmt; *s; s++) {
		if (s[0] == '%' && s[1] == 'p') {
			memcpy(out + n, pid, (size_t)pid_len);
			n += (size_t)pid_len;
			s++;
		} else {
			out[n++] = *s;
		}
	}
	out[n] = '\0';
	return out;
}

static unsigned mask_for(const struct ggmlviz_config *cfg)
{
	return GGMLVIZ__ACTIVE | (cfg->op_timing ? GGMLVIZ__OPS : 0) |
	       (cfg->op_timing == GGMLVIZ_OP_TIMING_SYNC ? GGMLVIZ__SYNC : 0) |
	       (cfg->memory_tracking ? GGMLVIZ__MEMORY : 0) |
	       (cfg->tensor_names ? GGMLVIZ__NAMES : 0) |
	       (cfg->thread_tracking ? GGMLVIZ__THREADS : 0) |
	       (cfg->op_timing && !cfg->cpu_shares_off ? GGMLVIZ__SHARES : 0) |
	       (cfg->describe_every ? 0 : GGMLVIZ__ONCE);
}

/*
 * Existing rings, emptied and sized for the new session (emitters are
 * quiescent), and handed to the writer-to-be: from now on an exiting
 * thread leaves its ring for the writer to free, which must hold before
 * the writer's first look at the list.
 */
static int prepare_rings(const struct ggmlviz_config *cfg)
{
	uint64_t bytes = (uint64_t)cfg->buffer_events * GGMLVIZ__EVENT_BYTES;
	int rc = 0;

	ggmlviz__registry_lock();
	ggmlviz__state.ring_bytes = bytes;
	ggmlviz__state.overflow_block = cfg->overflow == GGMLVIZ_OVERFLOW_BLOCK;
	ggmlviz__state.ring_max_bytes = ggmlviz__ring_max_events(cfg) * GGMLVIZ__EVENT_BYTES;
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r && rc == 0; r = r->next) {
		rc = ggmlviz__ring_resize(r, bytes);
		ggmlviz__ring_reset(r);
	}
	ggmlviz__registry_set_draining(1);
	ggmlviz__registry_unlock();
	return rc;
}

/* No writer after all: threads free their rings themselves again. */
static void unprepare_rings(void)
{
	ggmlviz__registry_lock();
	ggmlviz__registry_set_draining(0);
	ggmlviz__registry_reap();
	ggmlviz__registry_unlock();
}

/* A key no file keeps: the time, the pid and an address of this run. */
static uint64_t anon_key(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return ((uint64_t)ts.tv_nsec << 32 ^ (uint64_t)ts.tv_sec ^ (uint64_t)getpid() << 17 ^
		(uint64_t)(uintptr_t)&ts) | 1;
}

/*
 * The machine's peak for cfg's thread count: measured once a process per
 * thread count, before the writer starts (its threads would be measured
 * too); NULL when not asked for, or when it could not be measured (said).
 */
static const struct ggmlviz__peak_figures *peak_of(const struct ggmlviz_config *cfg,
						   struct ggmlviz__peak_figures *f)
{
	static struct ggmlviz__peak measured;
	int rc = 0;

	if (!cfg->peak_threads)
		return NULL;
	if (measured.threads != cfg->peak_threads)
		rc = ggmlviz__peak_measure((int)cfg->peak_threads, &measured);
	if (rc < 0) {
		ggmlviz__log(&sink, GGMLVIZ_LOG_WARN, "the machine's peak was not measured "
			     "(GGML_VIZ_PEAK=%u): %s", cfg->peak_threads, ggmlviz_strerror(rc));
		return NULL;
	}
	ggmlviz__log(&sink, GGMLVIZ_LOG_INFO, "the machine's peak: %.1f GB/s read, %.1f GFLOP/s "
		     "(%s)", (double)measured.bytes_per_s / 1e9, (double)measured.flop_per_s / 1e9,
		     measured.how);
	*f = (struct ggmlviz__peak_figures){ measured.threads, measured.bytes_per_s,
					     measured.flop_per_s, measured.how };
	return f;
}

/*
 * Op sampling for the session (base.h's rolling mode); what META SAMPLE
 * says of it, or NULL when every step is timed op by op.
 */
static const struct ggmlviz__sample_figures *sampling(const struct ggmlviz_config *cfg,
						       struct ggmlviz__sample_figures *f)
{
	int sync = cfg->op_timing == GGMLVIZ_OP_TIMING_SYNC;
	int rolling = cfg->op_timing && !sync && (cfg->op_sample > 1 || cfg->op_slow_us);
	uint64_t slow = rolling && cfg->op_slow_us ?
		(uint64_t)((double)cfg->op_slow_us * 1e3 * ggmlviz__clock_stamps_per_ns()) : 0;

	/* a thread of the last session may still read them (base.h) */
	__atomic_store_n(&ggmlviz__state.op_sample, cfg->op_sample, __ATOMIC_RELAXED);
	__atomic_store_n(&ggmlviz__state.rolling, rolling, __ATOMIC_RELAXED);
	__atomic_store_n(&ggmlviz__state.op_slow_stamps, slow, __ATOMIC_RELAXED);
	if (cfg->op_sample <= 1 && !rolling)
		return NULL;
	*f = (struct ggmlviz__sample_figures){ cfg->op_sample > 1 ? cfg->op_sample : 1,
					       rolling ? cfg->op_slow_us : 0, rolling };
	return f;
}

static int open_session(const struct ggmlviz__settings *s, const char *path)
{
	const struct ggmlviz_config *cfg = &s->cfg;
	struct ggmlviz__writer_opts o = { path, cfg->max_events, cfg->flush_interval_ms,
					  ggmlviz__os_gettid(), sink, NULL, 0, NULL, NULL,
					  s->rotate.bytes, s->rotate.keep,
					  { s->flight.seconds, s->flight.keep, s->flight.bytes,
					    s->flight_on.ttft_ms, s->flight_on.token_ms },
					  s->pack, s->op_window };
	struct ggmlviz__sample_figures sample;
	struct ggmlviz__peak_figures peak;
	char gpu_note[320], limit[96];
	unsigned nvtx;
	int rc;

	ggmlviz__clock_calibrate(); /* before the writer: from then on only it calibrates */
	ggmlviz__state.anonymize = cfg->anonymize;
	ggmlviz__state.anon_key = anon_key();
	rc = prepare_rings(cfg);
	/* GPU kernels before the writer: its first records say whether they are recorded */
	o.gpu_recorded = ggmlviz__gpu_start(cfg, &sink, gpu_note, sizeof gpu_note);
	o.gpu_note = gpu_note;
	o.peak = rc == 0 ? peak_of(cfg, &peak) : NULL;
	o.sample = sampling(cfg, &sample);
	/* a thread of the last session may still read it (base.h) */
	__atomic_store_n(&ggmlviz__state.flight, s->flight.seconds > 0, __ATOMIC_RELAXED);
	if (rc == 0)
		rc = ggmlviz__writer_open(&o, &writer);
	if (rc < 0) {
		ggmlviz__gpu_stop();
		unprepare_rings();
		ggmlviz__log(&sink, GGMLVIZ_LOG_ERROR, "cannot start tracing to %s: %s", path,
			     ggmlviz_strerror(rc));
		return rc;
	}
	atomic_store(&ggmlviz__state.lost, 0);
	atomic_store(&ggmlviz__state.mismatches, 0);
	ggmlviz__shares_open();
	/* the rings as the session starts them: sized for it (prepare_rings) */
	atomic_store(&ggmlviz__state.ring_mapped_peak, atomic_load(&ggmlviz__state.ring_mapped));
	atomic_store(&ggmlviz__state.ended, 0);
	if (cfg->crash_handler && ggmlviz__crash_arm(writer) < 0)
		ggmlviz__log(&sink, GGMLVIZ_LOG_INFO, "no crash handler: the rings are lost on a crash");
	memset(&last_stats, 0, sizeof last_stats);
	atomic_fetch_add(&ggmlviz__state.session, 1);
	if (s->rotate.bytes)
		snprintf(limit, sizeof limit, "in segments of %" PRIu64 " bytes, the newest %" PRIu32
			 " kept (0: all)", s->rotate.bytes, s->rotate.keep);
	else
		snprintf(limit, sizeof limit, "max %" PRIu64 " events", cfg->max_events);
	ggmlviz__log(&sink, GGMLVIZ_LOG_INFO,
		     "tracing to %s (ring %" PRIu32 " events per thread, up to %" PRIu64
		     " when busy, flush every %" PRIu32 " ms, %s; timestamps from %s)", path,
		     cfg->buffer_events, ggmlviz__state.ring_max_bytes / GGMLVIZ__EVENT_BYTES,
		     cfg->flush_interval_ms, limit, ggmlviz__clock_name());
	nvtx = ggmlviz__nvtx_open(cfg->nvtx, &sink); /* where a tool is attached, once a process */
	ggmlviz__mask_set(mask_for(cfg) | nvtx);
	return 0;
}

static int start_locked(const struct ggmlviz__settings *s)
{
	char *path;
	int rc;

	if (writer && ggmlviz_is_active())
		return -EALREADY;
	if (writer)
		stop_locked(0); /* recording ended on its own (max_events, I/O error): close it */
	pthread_once(&process_once, once_per_process);
	rc = ggmlviz__claim(&sink);
	if (rc < 0)
		return rc;
	path = expand_path(s->cfg.output);
	if (!path)
		return -ENOMEM;
	rc = open_session(s, path);
	ggmlviz__pages_free(path);
	if (rc == 0)
		ggmlviz__settings_say(s, &sink);
	return rc;
}

/*
 * The session's settings: the tracer's (ggmlviz_setting_set()), taken,
 * with a config's members over them, or else the environment's. A start
 * that opens no session gives them back.
 */
int ggmlviz_start(const struct ggmlviz_config *cfg)
{
	struct ggmlviz__settings s;
	struct ggmlviz__log_sink cfg_sink;
	int rc;

	ggmlviz__settings_take(&s);
	if (cfg)
		s.cfg = *cfg;
	else
		ggmlviz__settings_from_env(&s);
	cfg_sink = ggmlviz__log_sink_of(&s.cfg);
	if (s.cfg.disable) {
		ggmlviz__log(&cfg_sink, GGMLVIZ_LOG_INFO, "tracing disabled (GGML_VIZ_DISABLE)");
		ggmlviz__settings_give_back();
		return 0;
	}
	rc = ggmlviz__settings_check(&s, &cfg_sink);
	if (rc == 0) {
		ggmlviz__leave_lock(&session_lock);
		sink = cfg_sink;
		rc = start_locked(&s);
		ggmlviz__leave_unlock(&session_lock);
	}
	if (rc < 0)
		ggmlviz__settings_give_back();
	return rc;
}

/* ---- counters ---- */

/* Adds one ring: what it lost and wrote is read before what it emitted. */
static void add_ring(struct ggmlviz_stats *st, struct ggmlviz__ring *r)
{
	uint64_t written = atomic_load_explicit(&r->written, memory_order_acquire);
	uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_acquire) +
			   atomic_load_explicit(&r->discarded, memory_order_acquire);
	uint64_t emitted = atomic_load_explicit(&r->emitted, memory_order_relaxed);

	st->written += written;
	st->dropped += dropped;
	st->emitted += emitted;
	st->labels_truncated += atomic_load_explicit(&r->labels_truncated, memory_order_relaxed);
	st->threads += emitted > 0;
}

static void collect(const struct ggmlviz__writer *w, struct ggmlviz_stats *st, int exiting)
{
	struct ggmlviz__writer_figures f;
	uint64_t lost;

	memset(st, 0, sizeof *st);
	if (!registry_lock(exiting))
		return; /* at exit, its holder stuck: the stats stay empty */
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		add_ring(st, r);
	ggmlviz__writer_figures(w, &f);
	ggmlviz__registry_unlock();
	st->emitted += f.retired.emitted;
	st->written += f.retired.written;
	st->dropped += f.retired.dropped;
	st->labels_truncated += f.retired.labels_truncated;
	st->threads += f.retired.threads;
	lost = atomic_load(&ggmlviz__state.lost);
	st->emitted += lost;
	st->dropped += lost;
	st->queued = st->emitted > st->written + st->dropped ?
			     st->emitted - st->written - st->dropped : 0;
	st->timing_mismatches = atomic_load(&ggmlviz__state.mismatches);
	st->shares_unattributed = ggmlviz__shares_unattributed();
	st->ring_bytes = atomic_load(&ggmlviz__state.ring_mapped);
	st->ring_bytes_peak = atomic_load(&ggmlviz__state.ring_mapped_peak);
	st->meta_written = f.meta_written;
	st->writer_passes = f.passes;
	st->writer_cpu_ns = f.cpu_ns;
	st->bytes_written = f.bytes;
	st->error = f.error;
}

void ggmlviz_get_stats(struct ggmlviz_stats *out)
{
	ggmlviz__leave_lock(&session_lock);
	if (writer)
		collect(writer, out, 0);
	else
		*out = last_stats;
	ggmlviz__leave_unlock(&session_lock);
}

/* ---- stop ---- */

/*
 * The writer of a session stopped at exit, kept reachable: its memory, the
 * rings' and the dead threads' are left to the exit (free() and munmap()
 * after a signal handler's exit() may wait on a lock of the C library
 * that the thread it interrupted holds).
 */
static struct ggmlviz__writer *volatile left_at_exit;

static void give_back_rings(void)
{
	ggmlviz__registry_lock();
	ggmlviz__registry_set_draining(0);
	ggmlviz__registry_reap();
	/* live threads keep their ring, but not its memory: the next start maps it again */
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		ggmlviz__ring_release_buffer(r);
	ggmlviz__registry_unlock();
}

static int stop_locked(int exiting)
{
	int rc;

	ggmlviz__gpu_stop(); /* before the mask closes: the kernels still buffered go in */
	if (!exiting || ggmlviz__tls_ring)
		ggmlviz__shares_say(); /* at exit, not into a ring made now (malloc) */
	ggmlviz__mask_set(0);
	quiesce(exiting);
	ggmlviz__crash_disarm();
	rc = ggmlviz__writer_close(writer, ggmlviz__os_gettid(),
				   exiting ? GGMLVIZ__EXIT_WAIT_MS : 0);
	collect(writer, &last_stats, exiting);
	if (rc < 0 && last_stats.error == 0)
		last_stats.error = rc; /* closing the file failed, or its end never came */
	if (exiting)
		left_at_exit = writer;
	else
		ggmlviz__writer_free(writer);
	writer = NULL;
	ggmlviz__settings_give_back();
	if (!exiting)
		give_back_rings();
	ggmlviz__log(&sink, GGMLVIZ_LOG_INFO,
		     "stopped: %" PRIu64 " events emitted, %" PRIu64 " written, %" PRIu64
		     " dropped, %" PRIu64 " bytes; rings took %" PRIu64 " KiB at most; the"
		     " writer: %" PRIu64 " passes, %" PRIu64 " us of CPU",
		     last_stats.emitted, last_stats.written, last_stats.dropped,
		     last_stats.bytes_written, last_stats.ring_bytes_peak >> 10,
		     last_stats.writer_passes, last_stats.writer_cpu_ns / 1000);
	return rc;
}

int ggmlviz_stop(void)
{
	int rc = 0;

	ggmlviz__leave_lock(&session_lock);
	if (writer)
		rc = stop_locked(0);
	ggmlviz__leave_unlock(&session_lock);
	return rc;
}

/*
 * This copy of the library is unloaded with the shared object that linked
 * it (dlclose): its session ends now (its writer thread runs its code), and
 * nothing of it may outlive it: thread keys whose destructors would run
 * unmapped code in every thread that ends later, the threads' memory, the
 * claim on the process (a copy loaded again may start). At exit nothing is
 * done here: at_exit() stopped the session, and threads may still run.
 */
__attribute__((destructor)) static void at_unload(void)
{
	if (ggmlviz__process_exiting())
		return;
	ggmlviz_stop();
	ggmlviz__gpu_unload(); /* CUPTI calls none of it any more */
	ggmlviz__leave_lock(&session_lock);
	ggmlviz__registry_unload();
	ggmlviz__nodes_unload();
	ggmlviz__stage_unload();
	ggmlviz__shares_unload();
	ggmlviz__claim_forget();
	ggmlviz__leave_unlock(&session_lock);
}

int ggmlviz_is_active(void)
{
	return (ggmlviz__mask_now() & GGMLVIZ__ACTIVE) != 0 && !atomic_load(&ggmlviz__state.ended);
}

uint64_t ggmlviz_session(void)
{
	return atomic_load(&ggmlviz__state.session);
}
