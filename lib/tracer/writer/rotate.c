/*
 * A trace in segments (GGML_VIZ_ROTATE=SIZE[:KEEP], see internal.h): the
 * live segment at the trace's name, NAME; each segment that another
 * followed renamed NAME.N (its number). A segment begins with the header,
 * META SEGMENT (its number, where what it repeats ends, the trace's id) and
 * what a reader needs to read it alone: the trace's start (PROCESS, PEAK,
 * SAMPLE, CLOCK, USAGE), META GPU and the names given so far (kept.c). Its last
 * record, before the next begins, is META SEGMENT_END. Sets of
 * descriptions are not repeated: the producers define them again once
 * they see the segments' count change (ggmlviz__written_now()), so that
 * only a run whose set was checked before the change and written after it
 * lacks its descriptions in a segment read alone (never in the segments
 * read in a row, as readers do).
 *
 * The order of a rotation keeps NAME a whole segment at every moment, for
 * a reader that opens it: SEGMENT_END ends the segment, NAME.N is made a
 * second name of it, the next segment is made beside NAME and renamed to
 * it, and only then is the oldest past KEEP removed.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

/* A segment ends when less than this is left for a batch's records (a batch is never smaller). */
#define ROOM_MIN ((uint64_t)16 << 10)
/* A new segment that could not be made is tried again after this long, and given up after so many. */
#define RETRY_NS 1000000000u
#define GIVE_UP 3u

/* NAME.N, into buf; 0, or -ENAMETOOLONG. */
static int segment_name(const struct ggmlviz__writer *w, uint32_t n, char *buf, size_t size)
{
	int len = snprintf(buf, size, "%s.%" PRIu32, w->path, n);

	return len > 0 && (size_t)len < size ? 0 : -ENAMETOOLONG;
}

/* Whether path names the file fd has open, as a file of its own (not through a link). */
static int named_file(const char *path, int fd)
{
	struct stat at, open_one;

	return lstat(path, &at) == 0 && S_ISREG(at.st_mode) && fstat(fd, &open_one) == 0 &&
	       at.st_dev == open_one.st_dev && at.st_ino == open_one.st_ino;
}

int ggmlviz__rotate_setup(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o)
{
	if (!o->rotate_bytes)
		return 0;
	if (!w->regular || w->file_base || !named_file(o->path, w->fd)) {
		ggmlviz__log(&w->sink, GGMLVIZ_LOG_WARN, "GGML_VIZ_ROTATE: %s is not a file of its "
			     "own (a descriptor's, a FIFO, a device): one file, no rotation", o->path);
		return 0;
	}
	w->path = ggmlviz__output_absolute(o->path);
	if (!w->path)
		return -ENOMEM;
	w->rotate_bytes = o->rotate_bytes;
	w->rotate_keep = o->rotate_keep;
	w->max_events_asked = w->max_events;
	w->max_events = 0; /* the segments' size and count bound the disk: no hard stop */
	w->trace_id = ggmlviz__now_ns() ^ ((uint64_t)getpid() << 40);
	w->keeping = 1;
	return 0;
}

/* The start of segment w->segment in the (new, empty) file: 0 or -errno; *metas its records. */
static int write_start(struct ggmlviz__writer *w, uint64_t *metas)
{
	uint64_t cap = GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + strlen(w->path) +
		       GGMLVIZ__START_MAX + GGMLVIZ_LABELED_RECORD_SIZE + sizeof w->gpu_note +
		       w->kept.bytes;
	uint8_t *buf = ggmlviz__pages_alloc(cap), *seg;
	uint32_t len = (uint32_t)strnlen(w->path, GGMLVIZ_LABEL_MAX);
	uint64_t n, now = w->segment > 1 ? ggmlviz__now_ns() : w->gpu_ts; /* the first: the session's start */
	struct iovec iov;
	int rc;

	if (!buf)
		return -ENOMEM;
	ggmlviz_encode_header(buf, cap);
	seg = buf + GGMLVIZ_HEADER_SIZE;
	n = GGMLVIZ_HEADER_SIZE + ggmlviz__encode_meta(seg, cap - GGMLVIZ_HEADER_SIZE,
						       now, w->start_tid,
						       &(struct ggmlviz__meta){ GGMLVIZ_META_SEGMENT,
										w->segment, 0,
										w->trace_id },
						       w->path, len);
	n += ggmlviz__records_start(w, buf + n, cap - n, now, metas, 1);
	n += ggmlviz__encode_meta(buf + n, cap - n, now, w->gpu_tid,
				  &(struct ggmlviz__meta){ GGMLVIZ_META_GPU, 0,
							   (uint64_t)w->gpu_recorded, 0 },
				  w->gpu_note, (uint32_t)strlen(w->gpu_note));
	*metas += 2 + ggmlviz__kept_copy(&w->kept, buf + n);
	n += w->kept.bytes;
	put_u64(seg + REC_PAYLOAD + META_VALUE, n); /* where the repeated records end */
	w->start_bytes = n;
	iov = (struct iovec){ buf, n };
	rc = ggmlviz__output_append(w, &iov, 1);
	ggmlviz__pages_free(buf);
	return rc;
}

static void count_metas(struct ggmlviz__writer *w, uint64_t metas)
{
	atomic_fetch_add_explicit(&w->meta_written, metas, memory_order_relaxed);
}

int ggmlviz__rotate_first(struct ggmlviz__writer *w)
{
	uint64_t metas;
	int rc;

	w->segment = 1;
	rc = write_start(w, &metas);
	if (rc == 0)
		count_metas(w, metas);
	return rc;
}

/* Whether a batch with reserve bytes of the writer's own has less than ROOM_MIN left. */
static int full(const struct ggmlviz__writer *w, uint64_t reserve)
{
	return w->file_size + reserve + ROOM_MIN > w->rotate_bytes;
}

/*
 * Whether a full segment may end: it holds ROOM_MIN bytes of its own at
 * least (a start that fills SIZE alone, thousands of names, would end
 * every segment at its first batch).
 */
static int may_end(const struct ggmlviz__writer *w)
{
	return w->file_size >= w->start_bytes + ROOM_MIN;
}

uint64_t ggmlviz__rotate_room(const struct ggmlviz__writer *w, uint64_t reserve)
{
	if (!w->rotate_bytes)
		return UINT64_MAX;
	/* full even so (a failed rotation, or a start larger than the room): a batch goes on */
	return full(w, reserve) ? ROOM_MIN : w->rotate_bytes - w->file_size - reserve;
}

/* SEGMENT_END at the end of the segment, naming the next one; 0 or -errno. */
static int write_end(struct ggmlviz__writer *w, uint32_t next)
{
	uint8_t rec[GGMLVIZ_RECORD_SIZE];
	struct iovec iov = { rec, 0 };
	uint64_t dropped = w->retired.dropped + atomic_load(&ggmlviz__state.lost);
	int rc;

	iov.iov_len = ggmlviz__encode_meta(rec, sizeof rec, ggmlviz__now_ns(), w->start_tid,
					   &(struct ggmlviz__meta){ GGMLVIZ_META_SEGMENT_END,
								    next, w->events,
								    dropped },
					   NULL, 0);
	rc = ggmlviz__output_append(w, &iov, 1);
	if (rc == 0)
		count_metas(w, 1);
	return rc;
}

/*
 * The segment written now also named NAME.N (where hard links are not
 * made, renamed: NAME is missing until the next segment takes it); 0 or
 * -errno. Another file at NAME (another run's) is left alone: -EEXIST.
 */
static int name_ended(struct ggmlviz__writer *w)
{
	char name[4096];
	int rc = segment_name(w, w->segment, name, sizeof name);

	if (rc < 0)
		return rc;
	if (!named_file(w->path, w->fd))
		return -EEXIST;
	(void)unlink(name); /* an older trace's segment of that name */
	if (link(w->path, name) == 0)
		return 0;
	rc = -errno;
	if (rc != -EPERM && rc != -ENOTSUP && rc != -EMLINK && rc != -ENOSYS)
		return rc;
	return rename(w->path, name) < 0 ? -errno : 0;
}

/* The segment past the newest rotate_keep, now that segment w->segment began. */
static void remove_oldest(struct ggmlviz__writer *w)
{
	char name[4096];

	if (!w->rotate_keep || w->segment <= w->rotate_keep)
		return;
	if (segment_name(w, w->segment - w->rotate_keep, name, sizeof name) == 0)
		(void)unlink(name);
}

/* Why a rotation failed, said; the segment goes on, and a later pass tries again. */
static void not_rotated(struct ggmlviz__writer *w, int rc)
{
	w->retry_ns = ggmlviz__monotonic_ns() + RETRY_NS;
	if (++w->failures < GIVE_UP && rc != -EEXIST) {
		ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "GGML_VIZ_ROTATE: segment %" PRIu32
			     " of %s could not begin (%s): segment %" PRIu32 " goes on past its size,"
			     " and it is tried again in a second", w->segment + 1, w->path,
			     strerror(-rc), w->segment);
		return;
	}
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "GGML_VIZ_ROTATE: segment %" PRIu32 " of %s could "
		     "not begin (%s): rotation given up, segment %" PRIu32 " goes on with "
		     "GGML_VIZ_MAX_EVENTS (%" PRIu64 ")", w->segment + 1, w->path,
		     rc == -EEXIST ? "another file took the trace's name" : strerror(-rc),
		     w->segment, w->max_events_asked);
	w->rotate_bytes = 0;
	w->max_events = w->max_events_asked && w->events < w->max_events_asked ? w->max_events_asked
		: w->max_events_asked ? w->events + 1 : 0;
}

/* The file the writer writes. */
struct file {
	int fd;
	uint64_t size, base, room_end;
};

/* Makes to the file w writes; returns the one it wrote. */
static struct file swap_file(struct ggmlviz__writer *w, struct file to)
{
	struct file was = { w->fd, w->file_size, w->file_base, w->room_end };

	w->fd = to.fd, w->file_size = to.size, w->file_base = to.base, w->room_end = to.room_end;
	return was;
}

/*
 * The next segment, made beside NAME, its start written, and renamed to
 * NAME: 0, with the old segment's file in *old; or -errno, nothing changed.
 */
static int begin_next(struct ggmlviz__writer *w, struct file *old, uint64_t *metas)
{
	char *tmp;
	int fd = ggmlviz__output_beside(w->path, &tmp), rc;

	if (fd < 0)
		return fd;
	*old = swap_file(w, (struct file){ fd, 0, 0, 0 });
	w->segment++;
	rc = write_start(w, metas);
	if (rc == 0 && rename(tmp, w->path) < 0)
		rc = -errno;
	if (rc < 0) {
		(void)unlink(tmp);
		close(fd);
		swap_file(w, *old);
		w->segment--;
	}
	ggmlviz__pages_free(tmp);
	return rc;
}

void ggmlviz__rotate_if_full(struct ggmlviz__writer *w, uint64_t reserve)
{
	struct file old = { -1, 0, 0, 0 }, next;
	uint64_t metas = 0;
	int rc;

	if (!w->rotate_bytes || !full(w, reserve) || !may_end(w) ||
	    ggmlviz__monotonic_ns() < w->retry_ns || ggmlviz__output_halted())
		return; /* halted: the process ends, and no file is named or made now */
	rc = name_ended(w);
	if (rc == 0)
		rc = begin_next(w, &old, &metas);
	if (rc < 0) {
		not_rotated(w, rc);
		return;
	}
	count_metas(w, metas);
	w->failures = 0;
	next = swap_file(w, old);
	(void)write_end(w, w->segment); /* a full disk: it reads as cut, and the next follows */
	w->ended_bytes += w->file_size - w->file_base;
	close(w->fd);
	swap_file(w, next);
	atomic_fetch_add_explicit(&ggmlviz__state.segments, 1, memory_order_release);
	remove_oldest(w);
}
