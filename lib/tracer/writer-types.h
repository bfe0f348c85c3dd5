/*
 * The writer's state, shared by its parts: output.c (the file), drain.c
 * (one pass over the rings), pace.c (when to drain) and writer.c (the
 * thread). Types only.
 *
 * The writer is one thread that drains every ring into the trace file. It
 * moves spans of finished records from the rings to the file with
 * writev(2), adding the records only it can write (THREAD_NAME for each
 * thread, DROPPED for losses it saw, TRACE_END at a clean stop). It counts
 * records as it passes them, which is what makes max_events exact and
 * emitted == written + dropped checkable.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WRITER_TYPES_H
#define GGMLVIZ_WRITER_TYPES_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ggmlviz/tracer.h>

#include "log.h"
#include "ring.h"


/* One ring as seen by one pass. */
struct ggmlviz__pass_ring {
	struct ggmlviz__ring *ring;
	uint64_t head;      /* the pass drains up to here */
	uint64_t upto;      /* this batch drains up to here (head, unless the ring takes more batches) */
	uint64_t cut;       /* written up to here; [cut, upto) is thrown away */
	uint64_t events;    /* events to write */
	uint64_t written;   /* of those, written (all, unless a write failed) */
	uint64_t discarded; /* events thrown away */
	uint64_t notes;     /* the producer's DROPPED records to write */
	uint64_t notes_written;
	int noting;         /* a DROPPED record for this ring is in the batch, saying: */
	uint64_t note_dropped, note_discarded, note_unnoted; /* what it reports, once written */
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
	_Atomic int error;   /* the -errno of the last write that failed, or 0 */
	int failing;         /* the last write failed */
	_Atomic int busy;    /* a pass is running (the writer's, or a crash handler's for good) */
	uint64_t room_end;   /* where the last failed write was stopped (0: none failed) */
	_Atomic uint64_t bytes;
	_Atomic uint64_t meta_written;
	struct ggmlviz__retired retired;

	/* Scratch of one pass, grown as rings appear. */
	struct ggmlviz__pass_ring *pass;
	size_t n_pass, pass_cap;
	size_t clipped;      /* rings this pass drains only up to their move (grow.h) */
	int growth_capped;   /* said that rings may grow no further in all */
	struct iovec *iov;
	size_t n_iov, iov_cap;
	uint8_t *meta;
	size_t meta_len, meta_cap;
	uint64_t meta_records; /* writer records in this pass's batch */
	uint64_t last_pass_ns;
};

/* What ggmlviz_start() hands the writer. */
struct ggmlviz__writer_opts {
	const char *path;
	uint64_t max_events;
	uint32_t flush_interval_ms;
	uint32_t tid; /* of the starting thread, for the PROCESS record */
	struct ggmlviz__log_sink sink;
};

#endif /* GGMLVIZ_WRITER_TYPES_H */
