/*
 * The writer as the session sees it: open a trace file and start draining
 * the rings into it, close it, its figures, and the handlers that save the
 * rings when the program crashes. The writer's state is its own
 * (internal.h).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WRITER_H
#define GGMLVIZ_WRITER_H

#include <stdint.h>

#include "tracer/base/base.h"

struct ggmlviz__writer;

/* Counters of rings freed during the session (registry lock held). */
struct ggmlviz__retired {
	uint64_t emitted, written, dropped, labels_truncated;
	uint32_t threads;
};

/* What ggmlviz_start() hands the writer. */
struct ggmlviz__writer_opts {
	const char *path;
	uint64_t max_events;
	uint32_t flush_interval_ms;
	uint32_t tid; /* of the starting thread, for the PROCESS record */
	struct ggmlviz__log_sink sink;
	const char *gpu_note; /* META GPU's label: whether GPU kernels are recorded, or why not */
	int gpu_recorded;     /* its value */
	const struct ggmlviz__peak_figures *peak; /* the machine's peak (META PEAK), or NULL */
	const struct ggmlviz__sample_figures *sample; /* op sampling (META SAMPLE), or NULL: none */
	uint64_t rotate_bytes; /* GGML_VIZ_ROTATE: segments of this many bytes at most (0: one file) */
	uint32_t rotate_keep;  /* the newest this many kept (0: all) */
	struct ggmlviz__flight_opts {
		uint32_t seconds; /* GGML_VIZ_FLIGHT: the last this many kept (0: no flight recorder) */
		uint32_t keep;    /* the newest this many snapshots kept (0: all) */
		uint64_t bytes;   /* in this much memory at most */
		uint32_t ttft_ms, token_ms; /* GGML_VIZ_FLIGHT_ON (0: not judged) */
	} flight;
	int pack;              /* GGML_VIZ_PACK: runs of a thread's records packed */
	uint32_t op_window_s;  /* GGML_VIZ_OP_WINDOW: steps' op sums summed over this long (0: not) */
};

/* How the session samples ops (META SAMPLE). */
struct ggmlviz__sample_figures {
	uint32_t op_sample;
	uint64_t op_slow_us;
	int summed; /* the other steps' ops are summed (rolling mode) */
};

/* The machine's peak, as the session measured it (META PEAK). */
struct ggmlviz__peak_figures {
	uint32_t threads;
	uint64_t bytes_per_s, flop_per_s;
	const char *how;
};

/* What the session counts of the writer: its own records, bytes, error, retired rings. */
struct ggmlviz__writer_figures {
	uint64_t meta_written, bytes;
	uint64_t passes, cpu_ns; /* the writer thread's passes, its CPU time (what tracing costs) */
	int error;
	struct ggmlviz__retired retired;
};

/* Creates the file (header, PROCESS) and starts the thread; 0 or -errno. */
int ggmlviz__writer_open(const struct ggmlviz__writer_opts *o, struct ggmlviz__writer **out);
/*
 * Rings quiescent: stops the thread, which drains and writes TRACE_END,
 * and closes the file. exit_idle_ms 0 waits for the thread as long as it
 * takes, and joins it. At exit, exit_idle_ms: the thread is given up after
 * exit_idle_ms without a byte written (-ETIMEDOUT; the file is left open,
 * incomplete, the writer not to be freed), and never joined: it stays,
 * parked, until the process ends. Then the closing thread takes no lock
 * of the C library and allocates nothing: it may be exit() called from a
 * signal handler that interrupted malloc() or pthread_join().
 */
int ggmlviz__writer_close(struct ggmlviz__writer *w, uint32_t tid, unsigned exit_idle_ms);
/*
 * The process exits, and its session is not stopped (the exiting thread
 * holds the session's lock: exit() from a signal handler that interrupted
 * the stop): no write to a trace begins from now on, and those in flight
 * on other threads (the writer's pass) are waited for, wait_ms at most,
 * so that the trace ends after a whole record. Takes no lock and
 * allocates nothing.
 */
void ggmlviz__output_halt(unsigned wait_ms);
/* Whether the writes are halted (ggmlviz__output_halt()). */
int ggmlviz__output_halted(void);
/* In a child after fork(): no write in flight (the parent's threads are not in it), none halted. */
void ggmlviz__output_after_fork_child(void);
/* Frees a closed writer; NULL is fine. */
void ggmlviz__writer_free(struct ggmlviz__writer *w);
/*
 * In a child after fork(): forget the parent's writer without touching its
 * file; only closes the descriptor (async-signal-safe), leaving its memory.
 */
void ggmlviz__writer_abandon(struct ggmlviz__writer *w);
/* Its figures (registry lock held, for the retired rings). */
void ggmlviz__writer_figures(const struct ggmlviz__writer *w, struct ggmlviz__writer_figures *f);

/*
 * Saving the rings when the program crashes (crash.c): handlers for
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that drain every ring into
 * w's file with async-signal-safe calls, end it with a META CRASH record,
 * and give the signal back to the action the program had before.
 */

/* Installs the handlers for w's session (start); 0 or -errno. */
int ggmlviz__crash_arm(struct ggmlviz__writer *w);

/* Puts the program's actions back, once no handler runs (stop). */
void ggmlviz__crash_disarm(void);

/* In a child after fork(): the parent's writer is not ours. */
void ggmlviz__crash_forget(void);

#endif /* GGMLVIZ_WRITER_H */
