/*
 * Helpers of the tracer tests: temporary trace paths, a test config, and a
 * summary of a trace read back through the public reader API.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TRACE_UTIL_H
#define GGMLVIZ_TRACE_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

/* A fresh path for a trace in $TMPDIR (or /tmp), unique to process and tag. */
void tu_path(char *buf, size_t size, const char *tag);

/* Defaults, output = path, a short flush interval so tests run fast. */
void tu_config(struct ggmlviz_config *cfg, const char *path);

/* tu_path() for tag, then tu_config() for it, GPU kernels not followed: a CPU test's session. */
void tu_config_cpu(struct ggmlviz_config *cfg, char *path, size_t size, const char *tag);

/*
 * Until the writer has written an event (emit one first): the emitting
 * threads and the writer are past their start. A thread being born may
 * hold the allocator of AddressSanitizer (GCC 12's, whose fork() does not
 * make it safe) while a test forks, and the child then hangs in the
 * sanitizer itself; the tests fork from a tracing process, not from one
 * starting threads.
 */
void tu_wait_for_a_pass(void);

/* Until the writer has written more than written events (the pass after an emit). */
void tu_wait_written_past(uint64_t written);

/* What a trace holds. */
struct tu_summary {
	int end_rc;                /* what ggmlviz_reader_next returned last (0 = clean end) */
	uint64_t records;          /* every record */
	uint64_t events;           /* records that are events (not PROCESS/DROPPED/TRACE_END) */
	uint64_t by_type[256];
	uint64_t by_meta[32];
	uint64_t dropped_noted;    /* sum of DROPPED values */
	int trace_end_last;        /* the last record is TRACE_END */
	uint64_t end_written, end_dropped; /* its values */
	uint64_t size;             /* bytes */
};

/* Reads path whole; 0, or the open error. */
int tu_summarize(const char *path, struct tu_summary *s);

/* Calls fn for every event until it returns nonzero; 0, or the reader's error. */
int tu_each(const char *path, int (*fn)(const struct ggmlviz_event *ev, void *arg), void *arg);

/* Calls fn for every timing (its pointers valid during the call); 0 at a clean end, or the error. */
int tu_each_timing(const char *path, void (*fn)(const struct ggmlviz_timing *t, void *arg),
		   void *arg);

/* The calling thread's OS id. */
uint32_t tu_gettid(void);

/* CLOCK_REALTIME in ns, the clock the tracer's timestamps follow. */
uint64_t tu_realtime_ns(void);

/* CLOCK_MONOTONIC in ns. */
uint64_t tu_monotonic_ns(void);

/* Busy for ns on the monotonic clock (a thread at work, never off its CPU by choice). */
void tu_spin_ns(uint64_t ns);

/* Asleep for ns at least (a nanosleep that a signal cuts short goes on). */
void tu_sleep_ns(uint64_t ns);

#endif
