/*
 * The flight recorder's snapshots (GGML_VIZ_FLIGHT, see internal.h). After
 * each pass the writer lets go of what is older than the window, looks
 * for an ask (a file TRACE.snapshot-ask, made by `ggmlviz snapshot`), and
 * takes the snapshot due: a slow request's (flight.c judged it) or the
 * ask's, at most one a window. A snapshot is a trace of its own,
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
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/writer/internal.h"

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

/* len bytes at p to fd, through short writes; 0 or -errno. */
static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return n < 0 ? -errno : -EIO;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* META SNAPSHOT's key, value and value2 for the snapshot due, numbered n. */
static struct ggmlviz__meta snapshot_meta(const struct ggmlviz__flight *f, uint32_t n)
{
	return (struct ggmlviz__meta){ GGMLVIZ_META_SNAPSHOT, (uint64_t)f->why << 32 | n,
				       f->request, f->figure };
}

/*
 * The snapshot's start, into memory the caller frees with free(): the
 * header, META SNAPSHOT, the trace's start, META GPU, the names, the open
 * requests' first records; *len its bytes, *records its records. NULL
 * without memory.
 */
static uint8_t *start_of(struct ggmlviz__writer *w, const char *name, uint32_t n, size_t *len,
			 uint64_t *records)
{
	const struct ggmlviz__flight *f = &w->flight;
	uint64_t req_records, metas, now = ggmlviz__flight_oldest_ns(f);
	size_t cap = GGMLVIZ_HEADER_SIZE + GGMLVIZ_LABELED_RECORD_SIZE + strlen(name) +
		     GGMLVIZ__START_MAX + GGMLVIZ_LABELED_RECORD_SIZE + sizeof w->gpu_note +
		     w->kept.bytes + ggmlviz__flight_requests_copy(f, NULL, &req_records);
	uint8_t *buf = malloc(cap);
	struct ggmlviz__meta m = snapshot_meta(f, n);
	size_t at;

	if (!buf)
		return NULL;
	ggmlviz_encode_header(buf, cap);
	at = GGMLVIZ_HEADER_SIZE;
	at += ggmlviz__encode_meta(buf + at, cap - at, now, w->start_tid,
				   &m, name,
				   (uint32_t)strnlen(name, GGMLVIZ_LABEL_MAX));
	at += ggmlviz__records_start(w, buf + at, cap - at, now, &metas);
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

/* The snapshot's records into fd: its start, the memory, TRACE_END; 0 or -errno. */
static int write_snapshot(struct ggmlviz__writer *w, int fd, const char *name, uint32_t n)
{
	const struct ggmlviz__flight_chunk *c = ggmlviz__flight_first(&w->flight);
	uint64_t records, dropped = w->retired.dropped + atomic_load(&ggmlviz__state.lost);
	uint8_t end[GGMLVIZ_RECORD_SIZE], *start;
	const uint8_t *data;
	size_t len;
	int rc;

	if (!(start = start_of(w, name, n, &len, &records)))
		return -ENOMEM;
	rc = write_all(fd, start, len);
	free(start);
	while (rc == 0 && c) {
		c = ggmlviz__flight_next(c, &data, &len);
		rc = write_all(fd, data, len);
	}
	records += w->flight.records;
	len = ggmlviz__encode_meta(end, sizeof end, w->flight.newest_ns, w->start_tid,
				   &(struct ggmlviz__meta){ GGMLVIZ_META_TRACE_END, 0, records,
							    dropped },
				   NULL, 0);
	return rc == 0 ? write_all(fd, end, len) : rc;
}

/* The snapshot numbered n made at path; 0 or -errno (nothing left behind). */
static int make_snapshot(struct ggmlviz__writer *w, const char *path, uint32_t n)
{
	char *part = NULL;
	int fd = ggmlviz__output_beside(path, &part), rc;

	if (fd < 0)
		return fd;
	rc = write_snapshot(w, fd, base_name(path), n);
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(part, path) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(part);
	free(part);
	return rc;
}

/* META SNAPSHOT in the trace: the snapshot's name, or why it was not made. */
static void note_in_trace(struct ggmlviz__writer *w, uint32_t n, const char *label)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + 512];
	struct ggmlviz__meta m = snapshot_meta(&w->flight, n);
	struct iovec iov = { rec, 0 };

	iov.iov_len = ggmlviz__encode_meta(rec, sizeof rec, ggmlviz__now_ns(), w->start_tid,
					   &m, label, (uint32_t)strnlen(label, 512));
	if (ggmlviz__output_append(w, &iov, 1) == 0)
		atomic_fetch_add_explicit(&w->meta_written, 1, memory_order_relaxed);
}

/* The snapshot past keep, removed. */
static void prune(const struct ggmlviz__flight *f, uint32_t n)
{
	char old[4096];

	if (f->keep && n > f->keep && snapshot_name(f, n - f->keep, old, sizeof old) == 0)
		unlink(old);
}

int ggmlviz__snapshot_take(struct ggmlviz__writer *w, char *name, size_t size)
{
	struct ggmlviz__flight *f = &w->flight;
	uint32_t n = f->number + 1;
	char why[600];
	int rc = snapshot_name(f, n, name, size);

	if (rc == 0)
		rc = make_snapshot(w, name, n);
	if (rc < 0) {
		snprintf(why, sizeof why, "%s.flight-%" PRIu32 ".ggmlviz: not written: %s",
			 base_name(f->base), n, strerror(-rc));
		note_in_trace(w, n, why);
		ggmlviz__log(&w->sink, GGMLVIZ_LOG_WARN, "flight recorder: %s", why);
		return rc;
	}
	f->number = n;
	note_in_trace(w, n, base_name(name));
	prune(f, n);
	return 0;
}

/* ---- after a pass ---- */

/* An ask there: its token kept, the file removed, a snapshot due; whether there was one. */
static int asked(struct ggmlviz__flight *f)
{
	int fd = open(f->ask, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, f->ask_token, sizeof f->ask_token - 1);
	close(fd);
	if (unlink(f->ask) < 0)
		return 0; /* another took it */
	f->ask_token[n > 0 ? (size_t)n : 0] = '\0';
	f->ask_token[strcspn(f->ask_token, " \n")] = '\0';
	if (!f->ask_token[0])
		snprintf(f->ask_token, sizeof f->ask_token, "-");
	if (!f->due)
		f->due = 1, f->why = GGMLVIZ_SNAPSHOT_ASKED, f->request = 0, f->figure = 0;
	return 1;
}

/* The ask's reply, made beside its name and renamed to it: "TOKEN ok NAME" or "TOKEN error WHY". */
static void reply(struct ggmlviz__flight *f, int ok, const char *text)
{
	char line[4200], *part = NULL;
	int fd, len;

	if (!f->ask_token[0])
		return;
	len = snprintf(line, sizeof line, "%s %s %s\n", f->ask_token, ok ? "ok" : "error", text);
	f->ask_token[0] = '\0';
	if ((fd = ggmlviz__output_beside(f->reply, &part)) < 0)
		return;
	if (write_all(fd, (const uint8_t *)line, len > 0 ? strnlen(line, sizeof line) : 0) < 0 ||
	    close(fd) < 0 || rename(part, f->reply) < 0)
		unlink(part);
	free(part);
}

/* The snapshot due, where the last one was a window ago or more. */
static void take_due(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;
	uint64_t now = ggmlviz__monotonic_ns();
	char name[4096], why[160];
	int rc;

	f->due = 0;
	if (f->last_mono && now - f->last_mono < f->window_ns) {
		f->skipped++;
		snprintf(why, sizeof why, "the last snapshot was taken %.1f s ago: one in %" PRIu32
			 " s at most (GGML_VIZ_FLIGHT)", (double)(now - f->last_mono) / 1e9,
			 f->seconds);
		reply(f, 0, why);
		return;
	}
	f->last_mono = now;
	rc = ggmlviz__snapshot_take(w, name, sizeof name);
	reply(f, rc == 0, rc == 0 ? name : strerror(-rc));
}

void ggmlviz__snapshot_pass(struct ggmlviz__writer *w)
{
	struct ggmlviz__flight *f = &w->flight;

	if (!f->on)
		return;
	ggmlviz__flight_evict(f);
	(void)asked(f);
	if (f->due)
		take_due(w);
	ggmlviz__flight_requests_ended(f);
}
