/*
 * The flight recorder's snapshots (GGML_VIZ_FLIGHT, see internal.h). After
 * each pass the writer lets go of what is older than the window, looks
 * for an ask (a file TRACE.snapshot-ask, made by `ggmlviz snapshot`), and
 * takes the snapshot due: a slow request's (flight.c judged it) or the
 * ask's, at most one a window. Taking it is a job: the writer builds the
 * snapshot's start and hands it the flight recorder's memory (which
 * starts again empty), and a thread of the job's own writes it, so that
 * the writer goes on draining the rings meanwhile (a quarter of a
 * gigabyte written in the writer's pass would fill them: events lost);
 * the pass after it ended notes it in the trace. A snapshot is a trace of its own,
 * BASE.flight-N.ggmlviz: the header, META SNAPSHOT (why), the trace's start
 * (PROCESS ... FLIGHT, META GPU, the names given so far), the first
 * records of the requests open before its oldest record, the memory's
 * records, and TRACE_END. It is made beside its name and renamed to it,
 * so that a reader never sees it half written; the trace gets a META
 * SNAPSHOT that names it, and the ask a reply (TRACE.snapshot-reply:
 * "TOKEN ok NAME" or "TOKEN error WHY").
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

/*
 * A snapshot being written: what its thread needs, all its own (it never
 * reads the writer), and what it did.
 */
struct ggmlviz__snapshot_job {
	pthread_t thread;
	int threaded;           /* written by a thread of its own (else by the writer, at once) */
	_Atomic int done;
	int rc;                 /* 0 or -errno, once done */
	uint32_t number;
	struct ggmlviz__meta meta;  /* its META SNAPSHOT */
	char path[4096];
	char token[64];         /* the ask's it answers ("" if none) */
	uint8_t *start;         /* header to the open requests' first records */
	size_t start_len;
	struct ggmlviz__flight_chunk *chunks; /* the memory, handed over */
	uint8_t end[GGMLVIZ_RECORD_SIZE];     /* TRACE_END */
	size_t end_len;
};

/* BASE.flight-N.ggmlviz into buf; 0 or -ENAMETOOLONG. */
static int snapshot_name(const struct ggmlviz__flight *f, uint32_t n, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s.flight-%" PRIu32 ".ggmlviz", f->base, n);

	return len > 0 && (size_t)len < size ? 0 : -ENAMETOOLONG;
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

/* len bytes at p to fd, whole (ggmlviz__output_write_to); 0 or -errno. */
/* Bytes the snapshots have written, for a close at exit that waits while they grow. */
static _Atomic uint64_t jobs_written;

uint64_t ggmlviz__snapshot_written(void)
{
	return atomic_load_explicit(&jobs_written, memory_order_relaxed);
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
	struct iovec iov = { (void *)(uintptr_t)p, len };
	int rc = ggmlviz__output_write_to(fd, &iov, 1);

	atomic_fetch_add_explicit(&jobs_written, len, memory_order_relaxed);
	return rc;
}

/* META SNAPSHOT's key, value and value2 for the snapshot due, numbered n. */
static struct ggmlviz__meta snapshot_meta(const struct ggmlviz__flight *f, uint32_t n)
{
	return (struct ggmlviz__meta){ GGMLVIZ_META_SNAPSHOT, (uint64_t)f->why << 32 | n,
				       f->request, f->figure };
}

/*
 * The snapshot's start, into memory the caller frees with ggmlviz__pages_free(): the
 * header, META SNAPSHOT, the trace's start, META GPU, the names, the open
 * requests' first records; *len its bytes, *records its records. NULL
 * without memory.
 */
static uint8_t *start_of(struct ggmlviz__writer *w, const struct ggmlviz__meta *m,
			 const char *name, size_t *len, uint64_t *records)
{
	const struct ggmlviz__flight *f = &w->flight;
	uint64_t req_records, metas, now = ggmlviz__flight_oldest_ns(f);
	size_t cap = GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + strlen(name) +
		     GGMLVIZ__START_MAX + GGMLVIZ_LABELED_RECORD_SIZE + sizeof w->gpu_note +
		     w->kept.bytes + ggmlviz__flight_requests_copy(f, NULL, &req_records);
	uint8_t *buf = ggmlviz__pages_alloc(cap);
	size_t at;

	if (!buf)
		return NULL;
	ggmlviz_encode_header(buf, cap);
	at = GGMLVIZ_HEADER_SIZE;
	at += ggmlviz__encode_meta(buf + at, cap - at, now, w->start_tid, m, name,
				   (uint32_t)strnlen(name, GGMLVIZ_LABEL_MAX));
	/* no USAGE stamped now at its start: the memory's say the CPU time, in order */
	at += ggmlviz__records_start(w, buf + at, cap - at, now, &metas, 0);
	at += ggmlviz__encode_meta(buf + at, cap - at, now, w->gpu_tid,
				   &(struct ggmlviz__meta){ GGMLVIZ_META_GPU, 0,
							    (uint64_t)w->gpu_recorded, 0 },
				   w->gpu_note, (uint32_t)strlen(w->gpu_note));
	metas += 2 + ggmlviz__kept_copy(&w->kept, buf + at);
	at += w->kept.bytes;
	at += ggmlviz__flight_requests_copy(f, buf + at, &req_records);
	*len = at;
	*records = metas + req_records;
	return buf;
}

/* The job's records into fd: its start, the memory, TRACE_END; 0 or -errno. */
static int write_snapshot(const struct ggmlviz__snapshot_job *j, int fd)
{
	const struct ggmlviz__flight_chunk *c = j->chunks;
	const uint8_t *data;
	size_t len;
	int rc = write_all(fd, j->start, j->start_len);

	while (rc == 0 && c) {
		c = ggmlviz__flight_next(c, &data, &len);
		rc = write_all(fd, data, len);
	}
	return rc == 0 ? write_all(fd, j->end, j->end_len) : rc;
}

/* The job's snapshot made at its path: 0 or -errno (nothing left behind). */
static int make_snapshot(const struct ggmlviz__snapshot_job *j)
{
	char *part = NULL;
	int fd = ggmlviz__output_beside(j->path, &part), rc;

	if (fd < 0)
		return fd;
	rc = write_snapshot(j, fd);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(part, j->path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(part);
	ggmlviz__pages_free(part);
	return rc;
}

/*
 * The calling thread niced by SNAPSHOT_NICE: a quarter of a gigabyte
 * copied into the page cache yields its CPU to the writer, which drains
 * the rings meanwhile, and to the traced program's threads. Linux's
 * setpriority(2) takes a thread's id; elsewhere it would nice the whole
 * process, so it is not done there.
 */
#define SNAPSHOT_NICE 10
static void yield_to_others(void)
{
#ifdef __linux__
	id_t tid = (id_t)ggmlviz__os_gettid();
	int nice;

	errno = 0;
	nice = getpriority(PRIO_PROCESS, tid);
	if (errno == 0)
		(void)setpriority(PRIO_PROCESS, tid, nice + SNAPSHOT_NICE);
#endif
}

/*
 * The job's thread (ggmlviz__output_thread: SIGXFSZ blocked, a file too
 * large is EFBIG). It frees none of the memory: a niced thread that free()
 * preempted while it held the allocator's lock would hold up the writer,
 * which allocates the flight recorder's memory (priority inversion).
 */
static void *job_main(void *arg)
{
	struct ggmlviz__snapshot_job *j = arg;

	pthread_setname_np(pthread_self(), "ggmlviz-snap");
	yield_to_others();
	j->rc = make_snapshot(j);
	atomic_store_explicit(&j->done, 1, memory_order_release);
	return NULL;
}

/*
 * The job of the snapshot due, numbered f->number + 1: its name, its start
 * and its end built, the memory handed over (*records: the snapshot's);
 * NULL without memory (the snapshot is then not taken).
 */
static struct ggmlviz__snapshot_job *job_new(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;
	struct ggmlviz__snapshot_job *j = ggmlviz__pages_array(1, sizeof *j);
	uint64_t records, held, last_ns = f->newest_ns;
	uint64_t dropped = w->retired.dropped + atomic_load(&ggmlviz__state.lost);

	if (!j)
		return NULL;
	j->number = f->number + 1;
	j->meta = snapshot_meta(f, j->number);
	if (snapshot_name(f, j->number, j->path, sizeof j->path) < 0 ||
	    !(j->start = start_of(w, &j->meta, base_name(j->path), &j->start_len, &records))) {
		ggmlviz__pages_free(j);
		return NULL;
	}
	j->chunks = ggmlviz__flight_detach(f, &held);
	j->end_len = ggmlviz__encode_meta(j->end, sizeof j->end, last_ns, w->start_tid,
					  &(struct ggmlviz__meta){ GGMLVIZ_META_TRACE_END, 0,
								   records + held, dropped },
					  NULL, 0);
	snprintf(j->token, sizeof j->token, "%s", f->ask_token);
	f->ask_token[0] = '\0';
	return j;
}

static void job_free(struct ggmlviz__snapshot_job *j)
{
	ggmlviz__flight_chunks_free(j->chunks);
	ggmlviz__pages_free(j->start);
	ggmlviz__pages_free(j);
}

/* META SNAPSHOT in the trace: the snapshot's name, or why it was not made. */
static void note_in_trace(struct ggmlviz__writer *w, const struct ggmlviz__meta *m,
			  const char *label)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + 512];
	struct iovec iov = { rec, 0 };

	iov.iov_len = ggmlviz__encode_meta(rec, sizeof rec, ggmlviz__now_ns(), w->start_tid, m,
					   label, (uint32_t)strnlen(label, 512));
	/* never into the room a failed write left for TRACE_END */
	if (ggmlviz__output_keeping(w, &iov, 1, GGMLVIZ__END_ROOM) == 0)
		atomic_fetch_add_explicit(&w->meta_written, 1, memory_order_relaxed);
}

/* The snapshot past keep, removed. */
static void prune(const struct ggmlviz__flight *f, uint32_t n)
{
	char old[4096];

	if (f->keep && n > f->keep && snapshot_name(f, n - f->keep, old, sizeof old) == 0)
		unlink(old);
}

/*
 * An ask's reply, TRACE.snapshot-reply.TOKEN (each ask its own), made
 * beside its name and renamed to it: "TOKEN taken PATH" when the job
 * starts, then "TOKEN ok PATH" or "TOKEN error WHY".
 */
static void reply(const struct ggmlviz__flight *f, const char *token, const char *word,
		  const char *text)
{
	char line[4200], path[4200], *part = NULL;
	int fd, len;

	if (!token[0])
		return;
	len = snprintf(path, sizeof path, "%s.%s", f->reply, token);
	if (len < 0 || (size_t)len >= sizeof path)
		return;
	snprintf(line, sizeof line, "%s %s %s\n", token, word, text);
	if ((fd = ggmlviz__output_beside(path, &part)) < 0)
		return;
	if (write_all(fd, (const uint8_t *)line, strnlen(line, sizeof line)) < 0 || close(fd) < 0 ||
	    rename(part, path) < 0)
		unlink(part);
	ggmlviz__pages_free(part);
}

/* The job ended (waited for): noted in the trace, the oldest past KEEP removed, its ask answered. */
static void job_finish(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;
	struct ggmlviz__snapshot_job *j = f->job;
	char why[600];

	if (j->threaded)
		pthread_join(j->thread, NULL);
	f->job = NULL;
	ggmlviz__flight_spend(f, j->chunks); /* freed by parts, pass after pass */
	j->chunks = NULL;
	if (j->rc < 0) {
		snprintf(why, sizeof why, "%.400s: not written: %s", base_name(j->path),
			 strerror(-j->rc));
		note_in_trace(w, &j->meta, why);
		ggmlviz__log(&w->sink, GGMLVIZ_LOG_WARN, "flight recorder: %s", why);
		reply(f, j->token, "error", why);
	} else {
		f->number = j->number;
		note_in_trace(w, &j->meta, base_name(j->path));
		prune(f, j->number);
		reply(f, j->token, "ok", j->path);
	}
	job_free(j);
}

/* The snapshot due, handed to a job of its own (written here where no thread can be made). */
static void job_start(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;
	struct ggmlviz__snapshot_job *j = job_new(w);

	if (!j) {
		reply(f, f->ask_token, "error", strerror(ENOMEM));
		f->ask_token[0] = '\0';
		return;
	}
	f->job = j;
	reply(f, j->token, "taken", j->path); /* the asker waits on while it is written */
	j->threaded = ggmlviz__output_thread(&j->thread, job_main, j) == 0;
	if (!j->threaded) {
		j->rc = make_snapshot(j);
		atomic_store(&j->done, 1);
	}
}

/* ---- after a pass ---- */

/* Whether an ask's token can name its reply: letters, digits, '-' and '_'. */
static int token_ok(const char *t)
{
	return t[0] && t[0] != '-' && strspn(t, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
					  "0123456789-_") == strlen(t);
}

/* An ask there: its token kept, the file removed, a snapshot due; whether there was one. */
static int asked(struct ggmlviz__flight *f)
{
	int fd;
	ssize_t n;

	if (f->ask_token[0])
		return 0; /* an ask waits to be served: the next one stays in its file */
	if ((fd = open(f->ask, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, f->ask_token, sizeof f->ask_token - 1);
	close(fd);
	f->ask_token[n > 0 ? (size_t)n : 0] = '\0';
	f->ask_token[strcspn(f->ask_token, "\n")] = '\0';
	if (!f->ask_token[0])
		return 0; /* no token yet: a file still being written (ggmlviz snapshot links it whole) */
	if (unlink(f->ask) < 0 || !token_ok(f->ask_token)) {
		f->ask_token[0] = '\0';
		return 0; /* another took it, or no reply can be named after it */
	}
	if (!f->due)
		f->due = 1, f->why = GGMLVIZ_SNAPSHOT_ASKED, f->request = 0, f->figure = 0;
	return 1;
}

/*
 * The snapshot due, where the last one was a window ago or more; while
 * one is being written, an ask gets that one, and a slow request waits.
 */
static void take_due(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;
	uint64_t now = ggmlviz__monotonic_ns();
	char why[160];

	if (f->job) { /* one written at a time: an ask gets it, a slow request waits for its end */
		if (f->ask_token[0] && !f->job->token[0]) {
			snprintf(f->job->token, sizeof f->job->token, "%s", f->ask_token);
			reply(f, f->job->token, "taken", f->job->path);
			f->ask_token[0] = '\0';
			f->due = f->why != GGMLVIZ_SNAPSHOT_ASKED;
		}
		return;
	}
	f->due = 0;
	if (f->last_mono && now - f->last_mono < f->window_ns) {
		f->skipped++;
		snprintf(why, sizeof why, "the last snapshot was taken %.1f s ago: one in %" PRIu32
			 " s at most (GGML_VIZ_FLIGHT)", (double)(now - f->last_mono) / 1e9,
			 f->seconds);
		reply(f, f->ask_token, "error", why);
		f->ask_token[0] = '\0';
		return;
	}
	f->last_mono = now;
	job_start(w);
}

/*
 * Sets of descriptions (DESC_SET, SHARE_TIMES DEFINE) defined again every
 * half window: a snapshot's runs that repeat a set find it in its window,
 * but for those of its first half window (as a rotated trace's segments
 * do: ggmlviz__written_now()).
 */
static void define_again(struct ggmlviz__flight *f)
{
	uint64_t now = ggmlviz__monotonic_ns();

	if (now - f->defined_mono < f->window_ns / 2)
		return;
	f->defined_mono = now;
	atomic_fetch_add_explicit(&ggmlviz__state.segments, 1, memory_order_release);
}

/* Chunks of a written snapshot's memory freed a pass: 8 MiB, well under a millisecond. */
#define SPENT_PER_PASS 8u

void ggmlviz__snapshot_pass(struct ggmlviz__writer *w, int final)
{
	struct ggmlviz__flight *f = &w->flight;

	if (!f->on)
		return;
	define_again(f);
	ggmlviz__flight_give_back(f, SPENT_PER_PASS);
	if (f->job && (final || atomic_load_explicit(&f->job->done, memory_order_acquire)))
		job_finish(w);
	ggmlviz__flight_evict(f);
	(void)asked(f);
	if (f->due)
		take_due(w);
	if (final && f->job) /* due at the end: written before the trace's TRACE_END */
		job_finish(w);
	ggmlviz__flight_requests_ended(f);
}
