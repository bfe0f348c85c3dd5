/*
 * One pass of the writer: snapshot the rings, count and plan what each
 * holds, write it all with one writev(2) batch, then release the rings of
 * threads that are gone. Also the closing TRACE_END.
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

#include "clock.h"
#include "drain.h"
#include "format/codec.h"
#include "format/record.h"
#include "log.h"
#include "output.h"
#include "pace.h"
#include "registry.h"
#include "state.h"

/* Bytes of writer records per ring per pass: THREAD_NAME and DROPPED. */
#define META_PER_RING (GGMLVIZ_LABELED_RECORD_SIZE + 16 + GGMLVIZ_RECORD_SIZE)
#define IOV_PER_RING 4
static int grow(void **p, size_t *cap, size_t want, size_t elem)
{
	void *q;

	if (want <= *cap)
		return 0;
	q = realloc(*p, want * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = want;
	return 0;
}

/* Scratch for n rings; 0 or -ENOMEM (then the pass covers fewer rings). */
static int grow_scratch(struct ggmlviz__writer *w, size_t n)
{
	if (grow((void **)&w->pass, &w->pass_cap, n, sizeof *w->pass) < 0 ||
	    grow((void **)&w->iov, &w->iov_cap, n * IOV_PER_RING + 1, sizeof *w->iov) < 0 ||
	    grow((void **)&w->meta, &w->meta_cap, n * META_PER_RING, 1) < 0)
		return -ENOMEM;
	return 0;
}

/* How many rings the scratch holds now. */
static size_t capacity(const struct ggmlviz__writer *w)
{
	size_t n = w->pass_cap;

	if (w->iov_cap < n * IOV_PER_RING + 1)
		n = w->iov_cap ? (w->iov_cap - 1) / IOV_PER_RING : 0;
	if (w->meta_cap < n * META_PER_RING)
		n = w->meta_cap / META_PER_RING;
	return n;
}

/* Which rings to drain, and how far: exited is read before head. */
static void snapshot(struct ggmlviz__writer *w)
{
	size_t n = 0;

	ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		n++;
	if (grow_scratch(w, n) < 0)
		n = capacity(w); /* out of memory: the other rings wait for a later pass */
	w->n_pass = 0;
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r && w->n_pass < n; r = r->next) {
		struct ggmlviz__pass_ring *p = &w->pass[w->n_pass++];
		p->ring = r;
		p->exited = atomic_load_explicit(&r->exited, memory_order_acquire);
		p->head = atomic_load_explicit(&r->head, memory_order_acquire);
		p->events = p->discarded = 0;
	}
	ggmlviz__registry_unlock();
}

static int is_drop_note(const uint8_t *rec)
{
	return rec[REC_TYPE] == GGMLVIZ_EVENT_META &&
	       get_u32(rec + REC_PAYLOAD + META_KIND) == GGMLVIZ_META_DROPPED;
}

/*
 * Walks the records in [from, to), counting events and DROPPED notes (which
 * are not events), and stopping before the event that would pass `limit`;
 * returns where it stopped. A record that runs past the buffer's end is
 * whole in the slack after it. With convert, each record's raw stamp
 * becomes nanoseconds (clock.h), where the writer reads it: at its place
 * in the buffer, and at the start for the part copied there.
 */
struct scan {
	uint64_t events; /* events passed */
	uint64_t notes;  /* DROPPED notes passed */
	uint64_t noted;  /* the losses those notes report */
};

static void convert_stamp(const struct ggmlviz__ring *r, uint64_t pos)
{
	uint8_t *whole = r->buf + (pos & r->mask) + REC_TIMESTAMP; /* the record as scanned */
	uint8_t ns[8];

	put_u64(ns, ggmlviz__clock_to_ns(get_u64(whole)));
	memcpy(whole, ns, 8);
	if ((pos & r->mask) + REC_TIMESTAMP + 8 > r->mask + 1) /* bytes past the end: sent from the start */
		for (unsigned k = 0; k < 8; k++)
			r->buf[(pos + REC_TIMESTAMP + k) & r->mask] = ns[k];
}

static uint64_t scan(const struct ggmlviz__ring *r, uint64_t from, uint64_t to, uint64_t limit,
		     int convert, struct scan *sc)
{
	uint64_t pos = from;

	memset(sc, 0, sizeof *sc);
	while (pos < to) {
		const uint8_t *rec = r->buf + (pos & r->mask);
		int note = is_drop_note(rec);
		if (!note && sc->events == limit)
			break;
		if (convert)
			convert_stamp(r, pos);
		sc->events += (uint64_t)!note;
		sc->notes += (uint64_t)note;
		if (note)
			sc->noted += get_u64(rec + REC_PAYLOAD + META_VALUE);
		pos += rec[REC_HAS_LABEL] ? record_size_labeled(get_u32(rec + REC_LABEL_LEN))
					  : GGMLVIZ_RECORD_SIZE;
	}
	return pos;
}

static void add_iov(struct ggmlviz__writer *w, const void *base, size_t len)
{
	if (len == 0)
		return;
	w->iov[w->n_iov].iov_base = (void *)(uintptr_t)base;
	w->iov[w->n_iov].iov_len = len;
	w->n_iov++;
}

/* The bytes of [from, to) as one or two spans of the buffer. */
static void add_span(struct ggmlviz__writer *w, const struct ggmlviz__ring *r, uint64_t from,
		     uint64_t to)
{
	uint64_t off = from & r->mask, len = to - from, size = r->mask + 1;

	if (off + len <= size) {
		add_iov(w, r->buf + off, (size_t)len);
	} else {
		add_iov(w, r->buf + off, (size_t)(size - off));
		add_iov(w, r->buf, (size_t)(len - (size - off)));
	}
}

/* Appends a writer record to the pass's meta area and to the batch. */
static void meta_add(struct ggmlviz__writer *w, uint64_t ts, uint32_t tid,
		     const struct ggmlviz__meta *m, const char *label, uint32_t len)
{
	uint8_t *slot = w->meta + w->meta_len;
	uint32_t n = ggmlviz__encode_meta(slot, w->meta_cap - w->meta_len, ts, tid, m, label, len);

	if (n == 0)
		return; /* cannot happen: the area is sized for every ring's records */
	add_iov(w, slot, n);
	w->meta_len += n;
	w->meta_records++; /* counted as written once the batch is */
}

/* The thread's current name, from /proc; the name at its first event otherwise. */
static uint32_t read_thread_name(const struct ggmlviz__ring *r, char name[16])
{
	char path[64];
	ssize_t n = -1;
	int fd;

	snprintf(path, sizeof path, "/proc/self/task/%" PRIu32 "/comm", r->tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		n = read(fd, name, 15);
		close(fd);
	}
	if (n <= 0) {
		memcpy(name, r->name, 16);
		return (uint32_t)strnlen(name, 15);
	}
	while (n > 0 && (name[n - 1] == '\n' || name[n - 1] == '\0'))
		n--;
	return (uint32_t)n;
}

/* THREAD_NAME, stamped with the thread's first record of the session. */
static void add_thread_name(struct ggmlviz__writer *w, struct ggmlviz__ring *r, uint64_t first)
{
	char name[16];
	uint32_t len = read_thread_name(r, name);
	uint64_t ts = get_u64(r->buf + (first & r->mask) + REC_TIMESTAMP);

	r->named = 1;
	if (len == 0)
		return;
	meta_add(w, ts, r->tid, &(struct ggmlviz__meta){ GGMLVIZ_META_THREAD_NAME, r->tid, 0, 0 },
		 name, len);
}

/* DROPPED for the losses not reported yet; the producer is quiescent. */
static void add_drop_note(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p)
{
	struct ggmlviz__ring *r = p->ring;
	uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_acquire);
	uint64_t noted = atomic_load_explicit(&r->dropped_noted, memory_order_relaxed);
	uint64_t discarded = atomic_load_explicit(&r->discarded, memory_order_relaxed) + p->discarded;
	uint64_t lost = (dropped - noted) + (discarded - r->discarded_noted) + r->unnoted;

	if (lost == 0)
		return;
	r->unnoted = 0;
	meta_add(w, ggmlviz__now_ns(), r->tid,
		 &(struct ggmlviz__meta){ GGMLVIZ_META_DROPPED, r->tid, lost, 0 }, NULL, 0);
	atomic_store_explicit(&r->dropped_noted, dropped, memory_order_relaxed);
	r->discarded_noted = discarded;
}

/* How many more events the file may take. */
static uint64_t allowance(const struct ggmlviz__writer *w, uint64_t planned)
{
	if (w->capped || atomic_load(&w->error))
		return 0;
	if (w->max_events == 0)
		return UINT64_MAX;
	return w->max_events - (w->events + planned);
}

static void reach_cap(struct ggmlviz__writer *w)
{
	w->capped = 1;
	ggmlviz__mask_set(0);
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_INFO,
		     "max_events (%" PRIu64 ") reached: recording stopped", w->max_events);
}

/* Counts one ring's records and queues what goes to the file. */
static uint64_t plan_ring(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p, int final,
			  uint64_t planned)
{
	struct ggmlviz__ring *r = p->ring;
	uint64_t tail = atomic_load_explicit(&r->tail, memory_order_relaxed);
	struct scan kept, thrown;
	uint64_t cut = scan(r, tail, p->head, allowance(w, planned), 1, &kept);

	scan(r, cut, p->head, UINT64_MAX, 0, &thrown);
	p->events = kept.events;
	p->notes = kept.notes;
	p->discarded = thrown.events;
	r->unnoted += thrown.noted; /* their DROPPED records are thrown away too */
	if (p->discarded && !w->capped && !atomic_load(&w->error))
		reach_cap(w);
	if (atomic_load(&w->error))
		return 0;
	if (cut > tail && !r->named)
		add_thread_name(w, r, tail);
	add_span(w, r, tail, cut);
	if (p->exited || final)
		add_drop_note(w, p);
	return p->events;
}

static void fail(struct ggmlviz__writer *w, int rc)
{
	atomic_store(&w->error, rc);
	ggmlviz__mask_set(0);
	ggmlviz__log(&w->sink, GGMLVIZ_LOG_ERROR, "writing the trace failed (%s): recording "
		     "stopped; the file keeps every record written before", strerror(-rc));
}

/* Moves tails and counters once the batch is written (ok) or lost. */
static void settle(struct ggmlviz__writer *w, int ok)
{
	if (ok)
		atomic_fetch_add_explicit(&w->meta_written, w->meta_records, memory_order_relaxed);
	for (size_t i = 0; i < w->n_pass; i++) {
		struct ggmlviz__pass_ring *p = &w->pass[i];
		struct ggmlviz__ring *r = p->ring;
		uint64_t lost = p->discarded + (ok ? 0 : p->events);

		if (ok) {
			atomic_fetch_add_explicit(&r->written, p->events, memory_order_release);
			atomic_fetch_add_explicit(&w->meta_written, p->notes, memory_order_relaxed);
			w->events += p->events;
		}
		if (lost)
			atomic_fetch_add_explicit(&r->discarded, lost, memory_order_release);
		atomic_store_explicit(&r->tail, p->head, memory_order_release);
	}
}

static void retire(struct ggmlviz__writer *w, struct ggmlviz__ring *r)
{
	w->retired.emitted += atomic_load(&r->emitted);
	w->retired.written += atomic_load(&r->written);
	w->retired.dropped += atomic_load(&r->dropped) + atomic_load(&r->discarded);
	w->retired.labels_truncated += atomic_load(&r->labels_truncated);
	w->retired.threads += atomic_load(&r->emitted) > 0;
	ggmlviz__registry_release(r);
}

/* Frees the rings of threads that were gone before this pass read them. */
static void release_exited(struct ggmlviz__writer *w)
{
	ggmlviz__registry_lock();
	for (size_t i = 0; i < w->n_pass; i++)
		if (w->pass[i].exited)
			retire(w, w->pass[i].ring);
	ggmlviz__registry_unlock();
}

void ggmlviz__drain_pass(struct ggmlviz__writer *w, int final)
{
	uint64_t planned = 0;
	int ok = 1, rc;

	snapshot(w);
	ggmlviz__clock_calibrate(); /* after the heads: every stamp drained is older */
	w->n_iov = 0;
	w->meta_len = 0;
	w->meta_records = 0;
	for (size_t i = 0; i < w->n_pass; i++)
		planned += plan_ring(w, &w->pass[i], final, planned);
	if (w->n_iov > 0 && (rc = ggmlviz__output_append(w, w->iov, w->n_iov)) < 0) {
		fail(w, rc);
		ok = 0;
	}
	settle(w, ok);
	ggmlviz__pace_passed(w);
	release_exited(w);
}

static uint64_t dropped_total(const struct ggmlviz__writer *w)
{
	uint64_t n = w->retired.dropped + atomic_load(&ggmlviz__state.lost);

	ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = ggmlviz__registry_first(); r; r = r->next)
		n += atomic_load(&r->dropped) + atomic_load(&r->discarded);
	ggmlviz__registry_unlock();
	return n;
}

void ggmlviz__drain_end(struct ggmlviz__writer *w, uint32_t tid)
{
	uint8_t rec[GGMLVIZ_RECORD_SIZE];
	struct iovec iov = { rec, 0 };
	int rc;

	if (atomic_load(&w->error))
		return; /* the file stays incomplete, as it is */
	iov.iov_len = ggmlviz__encode_meta(rec, sizeof rec, ggmlviz__now_ns(), tid,
					   &(struct ggmlviz__meta){ GGMLVIZ_META_TRACE_END, 0,
								    w->events, dropped_total(w) },
					   NULL, 0);
	rc = ggmlviz__output_append(w, &iov, 1);
	if (rc < 0)
		fail(w, rc);
	else
		atomic_fetch_add_explicit(&w->meta_written, 1, memory_order_relaxed);
}
