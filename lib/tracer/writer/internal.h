/*
 * The writer's own header: its state and the functions its files share.
 * Nothing outside writer/ includes it; the session sees the writer through
 * writer.h only.
 *
 * The writer is one thread that drains every ring into the trace file. It
 * moves spans of finished records from the rings to the file with
 * writev(2), adding the records only it can write (records.c: PROCESS,
 * THREAD_NAME for each thread, DROPPED for losses it saw, TRACE_END at a
 * clean stop, CRASH from a crash handler). It counts records as it passes
 * them, which is what makes max_events exact and emitted == written +
 * dropped checkable.
 *
 * Who writes what: every field of struct ggmlviz__writer is written by the
 * writer's files only (tests/test-layers.py checks it), by the writer
 * thread, by the session's thread before the writer starts and after it
 * is joined (writer.c), or by a crash handler that took the writer over
 * for good (`busy`, crash.c). The session reads `meta_written`, `bytes`,
 * `error` and `retired` through ggmlviz__writer_figures(). Of a ring, the
 * writer writes the Consumer fields and the handed-over ones (ring.h).
 *
 * The files, bottom to top: output.c and path.c (the file), kept.c (the
 * names a segment repeats), span.c and anon.c (a ring's records on their
 * way), flight.c (the flight recorder's memory), route.c (where each
 * record goes), records.c (the writer's own records), snapshot.c (the
 * flight recorder's snapshots), rotate.c (a trace in segments), salvage.c (a failed batch), grow.c (rings that grow), pace.c
 * (when to drain), drain.c (a pass), crash.c (the last pass), writer.c
 * (the thread).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WRITER_INTERNAL_H
#define GGMLVIZ_WRITER_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include <ggmlviz/tracer.h>

#include "format/pack.h"
#include "tracer/base/base.h"
#include "tracer/producer/ring.h"
#include "tracer/writer/writer.h"
#include "util/map.h"

struct ggmlviz__flight_chunk;
struct ggmlviz__flight_request;
struct ggmlviz__snapshot_job;

/* The flight recorder's state (flight.c, snapshot.c); routing (route.c). */
struct ggmlviz__flight {
	int routing;      /* the producers route records (GGML_VIZ_FLIGHT): the writer sends each where it goes */
	int on;           /* and the flight recorder's go to memory, for snapshots */
	uint64_t window_ns, max_bytes, ttft_ns, token_ns;
	uint32_t seconds, keep;
	uint8_t *scratch; /* a batch's file records, copied one after the other */
	size_t scratch_len, scratch_cap;
	/* memory: chunks of records, oldest first */
	struct ggmlviz__flight_chunk *first, *last;
	uint64_t bytes, records; /* held */
	uint64_t newest_ns;      /* the newest record's time */
	int short_of_memory;     /* a chunk could not be made: records the flight recorder lost */
	/* requests open (their first records, for a snapshot that begins after them) */
	struct ggmlviz__flight_request *req;
	size_t n_req, req_cap;
	/* a snapshot due: why, the request, its figure */
	int due;
	uint32_t why;
	uint64_t request, figure;
	char ask_token[64]; /* an ask's, echoed in its reply ("" when no ask is due) */
	/* snapshots */
	char *base;         /* the trace's name, absolute, less ".ggmlviz": base.flight-N.ggmlviz */
	char *ask, *reply;  /* TRACE.snapshot-ask, and TRACE.snapshot-reply (.TOKEN: each ask's own) */
	uint32_t number;    /* the last snapshot's */
	uint64_t last_mono; /* when it was taken (monotonic ns; 0: none) */
	uint64_t skipped;   /* snapshots due within a window of the last: not taken */
	uint64_t defined_mono; /* when the producers were last made define their sets again */
	struct ggmlviz__snapshot_job *job; /* a snapshot being written (snapshot.c), or NULL */
	struct ggmlviz__flight_chunk *spent; /* a written snapshot's memory, freed by parts */
};

/*
 * The file's records made smaller (compact.c): runs packed (GGML_VIZ_PACK)
 * and op sums over windows (GGML_VIZ_OP_WINDOW), on a batch's scratch.
 */
struct ggmlviz__op_window {
	uint32_t tid, op_type, phase, steps; /* steps: 0 = the window is not open */
	uint64_t backend, count, total, max;
	uint64_t first_ns, last_ns; /* its first and last step's summary */
};

struct ggmlviz__compact {
	int pack;           /* runs of a thread's records packed */
	uint64_t window_ns; /* OP_SUMMARY records summed over this long (0: as written) */
	struct ggmlviz__pack_enc enc; /* the run being packed, in the scratch */
	int open;                     /* a run is open */
	const uint8_t *first;         /* its first record, where it lies (the ring) */
	struct ggmlviz__op_window *sums; /* the windows open */
	size_t n_sums;
	struct ggmlviz__op_window *saved; /* them as a batch began (ggmlviz__compact_save()) */
	size_t n_saved;
	uint64_t added; /* window records written since the caller zeroed it */
};

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
	uint8_t route0;     /* where the records at the ring's tail go (route.c) */
	uint64_t routed;    /* of the events written, those routed away from the file (route.c) */
	uint64_t added;     /* records the writer wrote for it: its op windows (compact.c) */
	int moved;          /* records wait in a larger buffer: the pass reads up to the move */
};

/*
 * The names a trace has given so far, the latest record of each kind and
 * key (kept.c), which each segment of a rotated trace says again at its
 * start. The writer thread's alone.
 */
struct ggmlviz__kept {
	struct ggmlviz__kept_rec {
		uint8_t *rec;  /* a copy of the record; NULL: forgotten */
		uint32_t size;
	} *recs;
	size_t n, cap, holes;       /* holes: forgotten ones among the n */
	struct ggmlviz__map index; /* (kind, key) hashed -> position in recs + 1 */
	uint64_t bytes;            /* the records' bytes, the forgotten ones' not */
	int short_of_memory;       /* a name could not be kept: said once */
};

struct ggmlviz__writer {
	int fd;
	pthread_t thread;
	_Atomic int stop;
	_Atomic int ended;   /* the thread has written the file's end and touches w no more */
	uint32_t closer_tid; /* set before `stop`: the thread that closes (TRACE_END's) */
	int parked;          /* set before `stop`: closed at exit, the thread stays, unjoined */
	uint64_t flush_ns;
	uint64_t max_events; /* 0 = no limit */
	struct ggmlviz__log_sink sink;

	uint64_t file_size;  /* where the file ends, after whole records only */
	uint64_t file_base;  /* where the trace began: 0, but for a file written through a descriptor */
	int regular;         /* the file is a regular file (one that a failed write can be cut back in) */
	uint64_t events;     /* events in the file */
	int capped;          /* max_events reached: the rest is discarded */
	_Atomic int error;   /* the -errno of the last write that failed, or 0 */
	int failing;         /* the last write failed */
	_Atomic int busy;    /* a pass is running (the writer's, or a crash handler's for good) */
	uint64_t room_end;   /* where the last failed write was stopped, or the file size limit
			      * a batch came near (0: none, or written past) */
	_Atomic uint64_t bytes;
	_Atomic uint64_t meta_written;
	_Atomic uint64_t thread_passes; /* the writer thread's passes, and its CPU time after the last */
	_Atomic uint64_t thread_cpu_ns;
	struct ggmlviz__retired retired;

	/* Scratch of one pass, grown as rings appear. */
	struct ggmlviz__pass_ring *pass;
	size_t n_pass, pass_cap;
	size_t clipped;      /* rings this pass drains only up to their move (grow.c) */
	int growth_capped;   /* said that rings may grow no further in all */
	struct iovec *iov;
	size_t n_iov, iov_cap;
	uint8_t *meta;
	size_t meta_len, meta_cap;
	uint64_t meta_records; /* writer records in this pass's batch */
	uint64_t last_pass_ns;
	uint64_t usage_ns;     /* when the last META USAGE was written (monotonic) */
	uint32_t start_tid;    /* the thread that started the session, PROCESS's */

	/* The session's META GPU, written by the first batch (of each segment). */
	char gpu_note[320];
	int gpu_recorded, gpu_note_due;
	uint32_t gpu_tid;
	uint64_t gpu_ts;

	/* What the trace's start says, for each segment's start to say again (records.c). */
	struct {
		uint64_t pid;
		char prog[256];
		struct ggmlviz__peak_figures peak; /* threads 0: none */
		char peak_how[160];
		struct ggmlviz__sample_figures sample;
		int has_sample;
	} start;

	/* A rotated trace (rotate.c): all 0 but while GGML_VIZ_ROTATE rotates this one. */
	uint64_t rotate_bytes; /* a segment's most */
	uint32_t rotate_keep;  /* segments kept, the live one among them (0: all) */
	uint32_t segment;      /* the number of the segment written now (1, 2, ...) */
	uint64_t trace_id;     /* SEGMENT's value2 */
	char *path;            /* the trace's name: the live segment's; segment N once ended: NAME.N */
	uint64_t retry_ns;     /* a new segment could not be made: not tried again before then */
	uint32_t failures;     /* rotations failed in a row: past a few, rotation is given up */
	uint64_t max_events_asked; /* GGML_VIZ_MAX_EVENTS, applied again where rotation is given up */
	uint64_t ended_bytes;  /* the bytes of the segments that ended (the session's bytes count them) */
	uint64_t start_bytes;  /* the start of the segment written now (what it repeats) */
	struct ggmlviz__kept kept; /* the names given so far (kept.c) */
	int keeping;           /* names pass into kept (not in a crash handler's pass) */

	struct ggmlviz__flight flight; /* GGML_VIZ_FLIGHT (route.c, flight.c, snapshot.c) */
	struct ggmlviz__compact compact; /* GGML_VIZ_PACK, GGML_VIZ_OP_WINDOW (compact.c) */
};

/*
 * For the tests that force an interleaving of the writer with a producer
 * (tests/test-races.c): set before a session starts, the writer thread
 * calls it at the top of each turn of its loop, before it reads the stop
 * flag, so that a test can hold the thread there until the stop and run
 * the passes itself, between its own events (ggmlviz__drain_pass() is the
 * same pass on either thread). NULL in a program: one load a turn.
 */
extern void (*ggmlviz__writer_turn_hook)(struct ggmlviz__writer *w);

/* ---- the file (output.c) ---- */

/*
 * Writes the bytes of iov[0..n) (modifying iov) at the end of the file;
 * 0, or -errno with the file cut back to its last whole record.
 */
int ggmlviz__output_append(struct ggmlviz__writer *w, struct iovec *iov, size_t n);

/*
 * output_append(), but for one case: after a failed write, what would end
 * the file within keep bytes before where the file system stopped it is
 * not tried (it would fit, and leave what must follow it no room): it
 * fails with the last write's -errno. A file size limit (RLIMIT_FSIZE)
 * counts as such a stop before any write meets it (-EFBIG). A drain's batch keeps
 * GGMLVIZ__END_ROOM (salvage.c then writes what fits below that room),
 * DROPPED records TRACE_END's. What goes past where the file system
 * stopped is tried whole: there may be room again.
 */
int ggmlviz__output_keeping(struct ggmlviz__writer *w, struct iovec *iov, size_t n, uint64_t keep);

/*
 * Opens the trace file at path for appending (path.c); the fd, or -errno,
 * the reason said to sink where errno's words would not tell it. A new
 * file is made next to path and renamed to it (an existing file is never
 * truncated in place, a link to a file is replaced, its target left
 * alone); a descriptor's file (/dev/stdout), a character device and a FIFO
 * are written as they are; a FIFO with no reader is waited for up to
 * GGMLVIZ__FIFO_WAIT_MS; a directory, a block device, a socket, a link to
 * nothing and a loop of links are refused.
 */
#define GGMLVIZ__FIFO_WAIT_MS 2000u
int ggmlviz__output_open(const char *path, const struct ggmlviz__log_sink *sink);

/*
 * A new file made next to path, open for appending: the fd, or -errno;
 * *name its name, which the caller frees with ggmlviz__pages_free().
 */
int ggmlviz__output_beside(const char *path, char **name);

/*
 * Writes iov[0..n) (modifying iov) whole to another file, fd (a snapshot),
 * through short writes, raising no SIGPIPE or SIGXFSZ on the calling
 * thread; 0 or -errno.
 */
int ggmlviz__output_write_to(int fd, struct iovec *iov, size_t n);

/*
 * A thread of the writer's (output.c): every signal blocked in it but the
 * faults, so that no handler of the application's runs there and a write
 * raises no SIGPIPE or SIGXFSZ; 0 or -errno.
 */
int ggmlviz__output_thread(pthread_t *t, void *(*fn)(void *), void *arg);

/*
 * path made absolute (the program may change its directory), NULL without
 * memory; the caller frees it with ggmlviz__pages_free().
 */
char *ggmlviz__output_absolute(const char *path);

/* The file w->fd just opened: where the trace begins in it, and its kind; 0 or -errno. */
int ggmlviz__output_start(struct ggmlviz__writer *w);

/* A write failed with rc: kept for the stats, said once per run of failures. */
void ggmlviz__output_failed(struct ggmlviz__writer *w, int rc);

/* A write worked: said if the last one had failed. */
void ggmlviz__output_works(struct ggmlviz__writer *w);

/* ---- a ring's records on their way (span.c, anon.c) ---- */

/* What a walk over records passed. */
struct ggmlviz__scan {
	uint64_t events; /* events passed */
	uint64_t notes;  /* DROPPED notes passed (not events) */
	uint64_t noted;  /* the losses those notes report */
};

/*
 * Walks the records in [from, to) and returns where it stopped: before the
 * event that would pass `limit` events, or before the record that would
 * pass `max_bytes` bytes (the first record is always passed). With
 * convert, each record's raw stamp becomes nanoseconds (clock.h), and its
 * addresses ids when the session anonymizes. With keep, the names among
 * them are kept in keep->kept (kept.c).
 */
uint64_t ggmlviz__span_scan(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			    uint64_t limit, uint64_t max_bytes, int convert,
			    struct ggmlviz__scan *sc, struct ggmlviz__writer *keep);

/* Queues [from, to) of r in w's batch: one iovec, or two across the end. */
void ggmlviz__span_add(struct ggmlviz__writer *w, const struct ggmlviz__ring *r, uint64_t from,
		       uint64_t to);

/* Queues len bytes at base in w's batch (nothing if len is 0). */
void ggmlviz__span_add_bytes(struct ggmlviz__writer *w, const void *base, size_t len);

/*
 * Every address of the record whole at rec becomes its id (GGML_VIZ_ANONYMIZE):
 * a keyed permutation of 64-bit values, 0 kept as 0 (anon.c).
 */
void ggmlviz__anon_record(uint8_t *rec);
/* The node addresses of a SHARE_TIMES DEFINE's body too: how many bytes of it changed (from its start). */
uint32_t ggmlviz__anon_body(uint8_t *rec);

/* ---- the writer's own records (records.c) ---- */

/*
 * What the trace's start says (the process, its peak, sampling, the
 * session's META GPU), kept from the session's opts for each start:
 * before ggmlviz__records_preamble() or ggmlviz__rotate_first().
 */
void ggmlviz__records_keep_start(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o);

/*
 * The header and the trace's start (PROCESS first), starting the file; 0
 * or -errno. The session's META GPU (whether GPU kernels are recorded) is
 * kept for the first batch (ggmlviz__records_gpu_note).
 */
int ggmlviz__records_preamble(struct ggmlviz__writer *w);

/* The most the start of a trace takes, header aside: PROCESS, PEAK, SAMPLE, CLOCK, FLIGHT, USAGE. */
#define GGMLVIZ__START_MAX (5 * GGMLVIZ_LABELED_RECORD_SIZE + 256 + 160 + 160 + 256 + 160 + \
			    GGMLVIZ_RECORD_SIZE)

/*
 * The records that start the trace, each of its segments and each
 * snapshot after the header, from what the session's start said, stamped
 * now, into buf (cap bytes, GGMLVIZ__START_MAX at least): their size;
 * *metas says how many. With usage_now, META USAGE read now too (not at
 * a snapshot's start: its window's own say the CPU time, in time order).
 */
uint32_t ggmlviz__records_start(struct ggmlviz__writer *w, uint8_t *buf, size_t cap,
				uint64_t now, uint64_t *metas, int usage_now);

/* META GPU in the batch, once a session (the first batch that has room for it). */
void ggmlviz__records_gpu_note(struct ggmlviz__writer *w);

/*
 * META USAGE in the batch, where a flush interval has passed since the
 * last one (records.c).
 */
void ggmlviz__records_usage(struct ggmlviz__writer *w);

/* THREAD_NAME for ring r in the batch, stamped with its record at position first. */
void ggmlviz__records_thread_name(struct ggmlviz__writer *w, struct ggmlviz__ring *r,
				  uint64_t first);

/*
 * DROPPED in the batch for p's losses not reported yet (its producer is
 * quiescent); they count as reported once the batch is written
 * (ggmlviz__records_drop_noted).
 */
void ggmlviz__records_drop_note(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p);
void ggmlviz__records_drop_noted(struct ggmlviz__pass_ring *p);

/* TRACE_END, after the final pass (also after a failed write: salvage kept its room). */
void ggmlviz__records_end(struct ggmlviz__writer *w, uint32_t tid);

/* CRASH (key: sig), from a crash handler after its pass: async-signal-safe. */
void ggmlviz__records_crash(struct ggmlviz__writer *w, int sig);

/* ---- a failed batch (salvage.c) ---- */

/*
 * What the writer keeps of a batch whose write failed (a full disk, a file
 * size limit, an I/O error): the batch's records written again in pieces
 * of whole records, as far as the file system takes them, keeping room
 * for the DROPPED and TRACE_END records that end the file: events stop
 * GGMLVIZ__END_ROOM bytes short of where the file system stopped the
 * failed write; the writer's own records (THREAD_NAME, DROPPED) may use
 * that room but for one record, TRACE_END's.
 */
#define GGMLVIZ__END_ROOM 4096u

/*
 * After output_append() failed on the batch of pass rings [first, end)
 * (and cut the file back to its start): writes the writer's records, then
 * each ring's records in pieces, while they fit below room_end -
 * GGMLVIZ__END_ROOM; sets each of those pass rings' written and
 * notes_written. Returns 1 if the writer's records were written.
 */
int ggmlviz__salvage(struct ggmlviz__writer *w, size_t first, size_t end);

/* ---- rings that grow (grow.c) ---- */

/*
 * A thread's ring is sized for a quiet thread (buffer_events), and one that
 * records faster than that ring can hold for GROW_HOLD_NS would lose events
 * whenever the writer is held up that long: the page cache stalls a
 * write(2), or a virtual machine takes the writer's CPU away for a few
 * milliseconds. So the writer measures each ring's rate and, for a busy
 * one, maps a buffer large enough to hold that long (up to the session's
 * ring_max_bytes), faults it in by parts between its passes (never on the
 * emit path, never for long), and offers it to the producer, which takes
 * it in its slow path (ring.c's take_offer; the protocol is in ring.h).
 */

/*
 * Where a pass may read ring r up to, given the head it read (head first,
 * then moved_at: a head past the move is seen with the move). When the
 * producer has moved to a larger buffer and everything before the move is
 * written, the writer's view follows it first. *clipped is 1 when records
 * may wait in the new buffer: another pass is due at once.
 */
uint64_t ggmlviz__grow_clip(struct ggmlviz__ring *r, uint64_t head, int *clipped);

/*
 * After a pass, for each ring it read (not those of threads that are gone):
 * takes the ring's rate, starts a larger buffer when the ring holds less
 * than GROW_HOLD_NS of it, faults in the next part of one being made, and
 * offers it once whole. Each ring grows to ring_max_bytes at most, and all
 * together by GGMLVIZ__GROW_RINGS times what one may (so that many busy
 * threads, which one writer could not keep up with anyway, do not take
 * gigabytes); reaching that is said once.
 */
#define GGMLVIZ__GROW_RINGS 4u
void ggmlviz__grow_rings(struct ggmlviz__writer *w);

/* ---- when to drain (pace.c) ---- */

/*
 * Every flush interval at the latest, and as soon as a producer rings the
 * doorbell because its ring passed its bell (about 1 MiB of records, or a
 * quarter of a smaller ring).
 */

/* Is a pass due (flush interval passed, a ring past its bell, a thread gone)? */
int ggmlviz__pace_due(const struct ggmlviz__writer *w);
/* A pass is done: the flush interval starts again. */
void ggmlviz__pace_passed(struct ggmlviz__writer *w);
/* How long to sleep, unless rung: until the flush interval ends. */
uint64_t ggmlviz__pace_sleep(const struct ggmlviz__writer *w);

/* ---- a pass (drain.c) ---- */

/* Scratch for the first passes (16 rings), before any thread registers; 0 or -ENOMEM. */
int ggmlviz__drain_prepare(struct ggmlviz__writer *w);

/*
 * The op windows still open (compact.c), written in a write of their own:
 * after the stop's last passes and a crash handler's, before TRACE_END or
 * CRASH (a ring those passes could not finish leaves its thread's).
 */
void ggmlviz__drain_windows(struct ggmlviz__writer *w);
/*
 * One pass over every ring; `final` when the rings are quiescent. Returns
 * how many rings it drained only up to their move to a larger buffer
 * (grow.c): another pass is due at once. 0 when a crash handler has the
 * writer.
 */
size_t ggmlviz__drain_pass(struct ggmlviz__writer *w, int final);

/*
 * A crash handler's final pass, on a writer it took over: the rings as
 * they are, without the registry's lock (the crashed thread may hold it),
 * in the room the scratch has, twice when a ring moved to a larger buffer.
 * No lock, no allocation.
 */
void ggmlviz__drain_unlocked(struct ggmlviz__writer *w);

/*
 * From a crash handler: takes the writer over for good (waiting a second at
 * most for its pass to end), drains every ring as a final pass, and ends
 * the file with META CRASH (crash.c). Async-signal-safe: no lock, no
 * allocation, no stdio (munmap(2) of a ring's old buffer: a system call).
 */
void ggmlviz__crash_save(struct ggmlviz__writer *w, int sig);

/* ---- the names kept for each segment's start (kept.c) ---- */

/* Whether the record whole at rec is a name that kept keeps (a META of those kinds). */
int ggmlviz__kept_takes(const uint8_t *rec);
/* A copy of the record at rec (size bytes) in k, in place of the one of its kind and key. */
void ggmlviz__kept_add(struct ggmlviz__kept *k, const uint8_t *rec, uint32_t size,
		       const struct ggmlviz__log_sink *sink);
/* Forgets the name of kind and key (a thread gone). */
void ggmlviz__kept_forget(struct ggmlviz__kept *k, uint32_t kind, uint64_t key);
/* The kept records, one after the other, into buf (k->bytes of room); their count. */
uint64_t ggmlviz__kept_copy(const struct ggmlviz__kept *k, uint8_t *buf);
void ggmlviz__kept_free(struct ggmlviz__kept *k);

/* ---- where records go (route.c), the flight recorder (flight.c, snapshot.c) ---- */

/*
 * With a flight recorder: the routes set up (scratch for a batch's file
 * records), and the flight recorder (flight.c) where o asks for one; 0 or
 * -ENOMEM. Without: 0, nothing done.
 */
int ggmlviz__route_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o);
void ggmlviz__route_free(struct ggmlviz__writer *w);

/*
 * Records [from, to) of r, whose route at from is *route: those that go to
 * the file into the batch's scratch, made smaller where asked (compact.c),
 * and queued; with GGMLVIZ__ROUTE_KEEP, those that go to the flight
 * recorder kept (ggmlviz__flight_add); META ROUTE records in neither, and
 * *route moved past them. With GGMLVIZ__ROUTE_FOLD (a batch's plan, not
 * its salvage), steps' OP_SUMMARY records summed into their windows, and
 * r's thread's windows that are due written after its records (all of
 * them with GGMLVIZ__ROUTE_ENDING). Returns how many records the file
 * does not get (the flight recorder's only, the META ROUTE records, the
 * summaries summed).
 */
#define GGMLVIZ__ROUTE_KEEP 1u
#define GGMLVIZ__ROUTE_FOLD 2u
#define GGMLVIZ__ROUTE_ENDING 4u
uint64_t ggmlviz__route_span(struct ggmlviz__writer *w, struct ggmlviz__ring *r, uint64_t from,
			     uint64_t to, uint8_t *route, unsigned how);
/* *route past [from, to) of r, the records thrown away. */
void ggmlviz__route_follow(const struct ggmlviz__ring *r, uint64_t from, uint64_t to,
			   uint8_t *route);
/* A new batch: its scratch empty. */
/* ---- the file's records made smaller (compact.c) ---- */

/* From o: the op windows' table where o asks for windows; 0 or -ENOMEM. */
int ggmlviz__compact_setup(struct ggmlviz__compact *c, const struct ggmlviz__writer_opts *o);
void ggmlviz__compact_free(struct ggmlviz__compact *c);
/*
 * rec (size bytes, whole, where it stays until the batch is settled) into
 * the scratch: into the open run, a new one, or as it is; 0, or -ENOBUFS
 * (never: the scratch holds a batch packed at its worst).
 */
int ggmlviz__compact_out(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			 const uint8_t *rec, uint32_t size);
/* The end of a ring's span: the open run ends. */
void ggmlviz__compact_span_end(struct ggmlviz__flight *f, struct ggmlviz__compact *c);
/*
 * A step's OP_SUMMARY record rec, of a step of this phase, summed into its
 * window: 1; 0 where it is not one to sum (no windows; another record).
 */
int ggmlviz__compact_fold(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			  const uint8_t *rec, uint32_t phase);
/*
 * Writes thread tid's windows that are due at now_ns (the trace's clock),
 * or all of them where it is ending, and any thread's twice as old; each
 * adds one to c->added. One the scratch has no room for stays in the table.
 */
void ggmlviz__compact_windows(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			      uint32_t tid, int ending, uint64_t now_ns);
/* Every thread's windows (the last ones, before the trace's end). */
void ggmlviz__compact_windows_all(struct ggmlviz__flight *f, struct ggmlviz__compact *c);
/* The windows as they are, kept; put back (a batch's write failed). */
void ggmlviz__compact_save(struct ggmlviz__compact *c);
void ggmlviz__compact_restore(struct ggmlviz__compact *c);

static inline void ggmlviz__route_batch(struct ggmlviz__writer *w)
{
	w->flight.scratch_len = 0;
}

/* The flight recorder (flight.c) from o (o->flight.seconds > 0); 0 or -ENOMEM. */
int ggmlviz__flight_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o);
void ggmlviz__flight_free(struct ggmlviz__flight *f);
/* Keeps the record whole at rec (size bytes, its stamp nanoseconds); a request's is followed. */
void ggmlviz__flight_add(struct ggmlviz__flight *f, const uint8_t *rec, uint32_t size);
/* What is older than the window let go of (the newest chunk stays). */
void ggmlviz__flight_evict(struct ggmlviz__flight *f);
/* The requests that ended let go of (after a snapshot they made repeated them). */
void ggmlviz__flight_requests_ended(struct ggmlviz__flight *f);
/* The oldest time a snapshot taken now holds: its oldest record's, or an open request's first. */
uint64_t ggmlviz__flight_oldest_ns(const struct ggmlviz__flight *f);
/* The memory, chunk after chunk (from ggmlviz__flight_detach()): each one's bytes, and the next (NULL: none). */
const struct ggmlviz__flight_chunk *ggmlviz__flight_next(const struct ggmlviz__flight_chunk *c,
							  const uint8_t **data, size_t *len);
/* META FLIGHT for a start (records.c): its size in buf (0 without a flight recorder). */
uint32_t ggmlviz__flight_record(const struct ggmlviz__writer *w, uint8_t *buf, size_t cap,
				uint64_t now);

/*
 * After a pass (snapshot.c): what is older than the window let go of; a
 * snapshot due (a slow request), or asked for (TRACE.snapshot-ask, by
 * `ggmlviz snapshot`), handed to a thread that writes it (the memory with
 * it: the flight recorder starts again empty), as base.flight-N.ggmlviz:
 * the trace's start, the requests open before the memory's oldest record,
 * the memory and TRACE_END; a snapshot written since the last pass noted
 * in the trace (META SNAPSHOT: its name, or why it was not made), the
 * oldest past keep removed, its ask answered (TRACE.snapshot-reply).
 * With final (the session's end), a snapshot being written is waited for.
 */
void ggmlviz__snapshot_pass(struct ggmlviz__writer *w, int final);
/* Bytes every snapshot of the process has written so far (progress while one is waited for). */
uint64_t ggmlviz__snapshot_written(void);
/* The requests (flight.c) to repeat at a snapshot's start: their records into buf, or their size if buf is NULL. */
size_t ggmlviz__flight_requests_copy(const struct ggmlviz__flight *f, uint8_t *buf,
				     uint64_t *records);
/* The memory handed over (the caller frees it with ggmlviz__flight_chunks_free()); *records its records. */
struct ggmlviz__flight_chunk *ggmlviz__flight_detach(struct ggmlviz__flight *f, uint64_t *records);
void ggmlviz__flight_chunks_free(struct ggmlviz__flight_chunk *c);
/*
 * A written snapshot's memory, given back by parts: ggmlviz__flight_spend()
 * takes it, and each ggmlviz__flight_give_back() frees n chunks of it at
 * most (a quarter of a gigabyte freed at once held the writer up).
 */
void ggmlviz__flight_spend(struct ggmlviz__flight *f, struct ggmlviz__flight_chunk *c);
void ggmlviz__flight_give_back(struct ggmlviz__flight *f, unsigned n);

/* ---- a trace in segments (rotate.c) ---- */

/*
 * Whether the trace at o->path rotates (o->rotate_bytes, and a file the
 * writer made at a name: not a descriptor's, a FIFO or a device); said to
 * the sink where rotation was asked for and cannot be. 0 or -ENOMEM.
 */
int ggmlviz__rotate_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o);
/* The first segment's start: the header, SEGMENT and the trace's start; 0 or -errno. */
int ggmlviz__rotate_first(struct ggmlviz__writer *w);
/*
 * The bytes of records the next batch may take before the segment is full,
 * the writer's own (at most reserve bytes) aside; UINT64_MAX when not
 * rotating.
 */
uint64_t ggmlviz__rotate_room(const struct ggmlviz__writer *w, uint64_t reserve);
/*
 * Before a batch: where the segment is full, ends it (SEGMENT_END), names
 * it NAME.N, begins the next at NAME and removes the segments past the
 * newest rotate_keep. The writer thread's (never a crash handler's).
 */
void ggmlviz__rotate_if_full(struct ggmlviz__writer *w, uint64_t reserve);

#endif /* GGMLVIZ_WRITER_INTERNAL_H */
