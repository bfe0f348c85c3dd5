/*
 * The writer: one thread that drains every ring into the trace file.
 *
 * It moves spans of finished records from the rings to the file with
 * writev(2), adding the records only it can write (THREAD_NAME for each
 * thread, DROPPED for losses it saw, TRACE_END at a clean stop). It counts
 * records as it passes them, which is what makes max_events exact and
 * emitted == written + dropped checkable.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WRITER_H
#define GGMLVIZ_WRITER_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ggmlviz/tracer.h>

#include "log.h"
#include "ring.h"

/* How often the writer looks at the rings' fill levels (drain.c). */
#define GGMLVIZ__POLL_NS 1000000u

/* One ring as seen by one pass. */
struct ggmlviz__pass_ring {
	struct ggmlviz__ring *ring;
	uint64_t head;      /* drained up to here */
	uint64_t events;    /* events to write */
	uint64_t discarded; /* events thrown away */
	uint64_t notes;     /* the producer's DROPPED records to write */
	int exited;         /* its thread was gone before head was read */
};

/* Counters of rings freed during the session (registry lock held). */
struct ggmlviz__retired {
	uint64_t emitted, written, dropped, labels_truncated;
	uint32_t threads;
};

struct ggmlviz__writer {
	int fd;
	pthread_t thread;
	_Atomic int stop;
	uint64_t flush_ns;
	uint64_t max_events; /* 0 = no limit */
	struct ggmlviz__log_sink sink;

	uint64_t file_size;  /* bytes in the file, all whole records */
	uint64_t events;     /* events in the file */
	int capped;          /* max_events reached: the rest is discarded */
	_Atomic int error;   /* the -errno that stopped recording, or 0 */
	_Atomic uint64_t bytes;
	_Atomic uint64_t meta_written;
	struct ggmlviz__retired retired;

	/* Scratch of one pass, grown as rings appear. */
	struct ggmlviz__pass_ring *pass;
	size_t n_pass, pass_cap;
	struct iovec *iov;
	size_t n_iov, iov_cap;
	uint8_t *meta;
	size_t meta_len, meta_cap;
	uint64_t meta_records; /* writer records in this pass's batch */
	uint64_t last_pass_ns;
	uint64_t next_sleep_ns;
};

/* What ggmlviz_start() hands the writer. */
struct ggmlviz__writer_opts {
	const char *path;
	uint64_t max_events;
	uint32_t flush_interval_ms;
	uint32_t tid; /* of the starting thread, for the PROCESS record */
	struct ggmlviz__log_sink sink;
};

/* writer.c: creates the file (header, PROCESS) and starts the thread. */
int ggmlviz__writer_open(const struct ggmlviz__writer_opts *o, struct ggmlviz__writer **out);
/* Rings quiescent: stops the thread, drains, writes TRACE_END, closes the file. */
int ggmlviz__writer_close(struct ggmlviz__writer *w, uint32_t tid);
/* Frees a closed writer; NULL is fine. */
void ggmlviz__writer_free(struct ggmlviz__writer *w);
/* In a child after fork(): forget the parent's writer without touching its file. */
void ggmlviz__writer_abandon(struct ggmlviz__writer *w);
/* Asks the writer to drain now (a full ring under GGMLVIZ_OVERFLOW_BLOCK). */
void ggmlviz__writer_wake(void);
/*
 * Writes the bytes of iov[0..n) (modifying iov) at the end of the file;
 * 0, or -errno with the file cut back to its last whole record.
 */
int ggmlviz__writer_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n);

/* drain.c: one pass over every ring; `final` when the rings are quiescent. */
void ggmlviz__writer_pass(struct ggmlviz__writer *w, int final);
/* pace.c: is a pass due (flush interval passed, or a ring filling up)? */
int ggmlviz__writer_due(const struct ggmlviz__writer *w);
/* pace.c: after a pass, how long to sleep before looking again. */
void ggmlviz__writer_plan_sleep(struct ggmlviz__writer *w);
/* drain.c: TRACE_END, after the final pass (unless recording failed). */
void ggmlviz__writer_end(struct ggmlviz__writer *w, uint32_t tid);

#endif /* GGMLVIZ_WRITER_H */
