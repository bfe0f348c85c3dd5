/*
 * The file's records made smaller on their way (see internal.h): runs of
 * a thread's records packed into PACK records (GGML_VIZ_PACK,
 * format/pack.h), and OP_SUMMARY records summed over windows of seconds
 * per thread, op type, backend and phase (GGML_VIZ_OP_WINDOW). Both work
 * on a batch's scratch (route.c), which the file's records reach one by
 * one: nothing here allocates once set up (a crash handler's pass comes
 * here too).
 *
 * A window is written when it is older than its length, looked at in
 * every pass (plan_ring routes every ring, an empty one too), after its
 * thread's records, or after any thread's once twice as old (its thread
 * gone, or a failed write that took its thread's end); when its thread's
 * ring is at its end (the thread gone, the session ending); when the table
 * is full; and, any left, just before TRACE_END or CRASH (drain.c). The
 * table is saved before a batch is planned and put back if the batch's
 * write fails, so that a window is neither lost nor written twice
 * (salvage.c sums the summaries again, piece by piece).
 *
 * A window's record: OP_SUMMARY, the sums; timestamp = its last step's
 * summary, thread = the steps'; label = #GGMLVIZ_OP_WINDOW_BODY bytes: u64
 * the first step's summary time, u32 steps, u32 phase. It is written after
 * records of its thread that are newer than it (ggmlviz(5) says so).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/pack.h"
#include "format/record.h"
#include "tracer/writer/internal.h"
#include "util/pages.h"

#define SUMS_MAX 256u /* windows open at once: op types x backends x phases x threads */

int ggmlviz__compact_setup(struct ggmlviz__compact *c, const struct ggmlviz__writer_opts *o)
{
	c->pack = o->pack;
	c->window_ns = (uint64_t)o->op_window_s * 1000000000u;
	if (!c->window_ns)
		return 0;
	c->sums = ggmlviz__pages_array(2 * SUMS_MAX, sizeof *c->sums);
	c->saved = c->sums + SUMS_MAX;
	return c->sums ? 0 : -ENOMEM;
}

void ggmlviz__compact_free(struct ggmlviz__compact *c)
{
	ggmlviz__pages_free(c->sums);
	c->sums = c->saved = NULL;
	c->n_sums = c->n_saved = 0;
}

void ggmlviz__compact_save(struct ggmlviz__compact *c)
{
	if (c->sums)
		memcpy(c->saved, c->sums, c->n_sums * sizeof *c->sums);
	c->n_saved = c->n_sums;
}

void ggmlviz__compact_restore(struct ggmlviz__compact *c)
{
	if (c->sums)
		memcpy(c->sums, c->saved, c->n_saved * sizeof *c->sums);
	c->n_sums = c->n_saved;
}

/* ---- packed runs ---- */

/* Ends the open run; one record alone goes as it was (smaller so). */
static void run_close(struct ggmlviz__flight *f, struct ggmlviz__compact *c)
{
	size_t size;

	if (!c->open)
		return;
	c->open = 0;
	size = ggmlviz__pack_close(&c->enc);
	if (c->enc.n == 1) {
		size_t raw = (size_t)record_size_at(c->first);

		memcpy(c->enc.rec, c->first, raw); /* never the same bytes: the ring's */
		f->scratch_len -= size - raw;
	}
}

int ggmlviz__compact_out(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			 const uint8_t *rec, uint32_t size)
{
	size_t room = f->scratch_cap - f->scratch_len;

	if (room < (size_t)size + GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ__PACK_INNER_MAX)
		return -ENOBUFS; /* never: the scratch holds a batch packed at its worst */
	if (!c->pack || !ggmlviz__pack_packable(rec[REC_TYPE])) {
		run_close(f, c);
		memcpy(f->scratch + f->scratch_len, rec, size);
		f->scratch_len += size;
		return 0;
	}
	if (c->open && ggmlviz__pack_joins(&c->enc, rec, size)) {
		f->scratch_len += ggmlviz__pack_add(&c->enc, rec);
		return 0;
	}
	run_close(f, c);
	c->open = 1;
	c->first = rec;
	f->scratch_len += ggmlviz__pack_open(&c->enc, f->scratch + f->scratch_len, rec);
	return 0;
}

void ggmlviz__compact_span_end(struct ggmlviz__flight *f, struct ggmlviz__compact *c)
{
	run_close(f, c);
}

/* ---- op sums over windows ---- */

static struct ggmlviz__op_window *window_of(struct ggmlviz__compact *c, uint32_t tid,
					    const uint8_t *pl, uint32_t phase)
{
	uint32_t op_type = get_u32(pl + SUM_TYPE);
	uint64_t backend = get_u64(pl + SUM_BACKEND);

	for (size_t i = 0; i < c->n_sums; i++) {
		struct ggmlviz__op_window *s = &c->sums[i];

		if (s->tid == tid && s->op_type == op_type && s->backend == backend &&
		    s->phase == phase)
			return s;
	}
	if (c->n_sums == SUMS_MAX)
		return NULL;
	c->sums[c->n_sums].steps = 0; /* a new window (the slot may hold one written) */
	return &c->sums[c->n_sums++];
}

/* A window's record, as the file takes it; 0, or -ENOBUFS (never: route.c's room). */
static int window_out(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
		      const struct ggmlviz__op_window *s)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ_OP_WINDOW_BODY] = { 0 };
	uint8_t *pl = rec + REC_PAYLOAD, *body = rec + REC_LABEL;

	rec[REC_TYPE] = GGMLVIZ_EVENT_OP_SUMMARY;
	put_u64(rec + REC_TIMESTAMP, s->last_ns);
	put_u32(rec + REC_THREAD, s->tid);
	put_u32(pl + SUM_TYPE, s->op_type);
	put_u32(pl + SUM_COUNT, s->count > UINT32_MAX ? UINT32_MAX : (uint32_t)s->count);
	put_u64(pl + SUM_TOTAL, s->total);
	put_u64(pl + SUM_BACKEND, s->backend);
	put_u64(pl + SUM_MAX, s->max);
	rec[REC_HAS_LABEL] = 1;
	put_u32(rec + REC_LABEL_LEN, GGMLVIZ_OP_WINDOW_BODY);
	put_u64(body + WINDOW_FIRST, s->first_ns);
	put_u32(body + WINDOW_STEPS, s->steps);
	put_u32(body + WINDOW_PHASE, s->phase);
	run_close(f, c); /* as it is, never packed: the run would point at rec, gone by its end */
	if (f->scratch_cap - f->scratch_len < sizeof rec)
		return -ENOBUFS; /* the window stays in the table */
	memcpy(f->scratch + f->scratch_len, rec, sizeof rec);
	f->scratch_len += sizeof rec;
	c->added++;
	return 0;
}

/*
 * Writes the windows of thread tid (or of every thread) that began before
 * due_before, and any thread's that began before stale_before (a thread
 * whose ring is gone: no span of its own comes again).
 */
static void windows_out(struct ggmlviz__flight *f, struct ggmlviz__compact *c, uint32_t tid,
			int all_threads, uint64_t due_before, uint64_t stale_before)
{
	size_t kept = 0;

	for (size_t i = 0; i < c->n_sums; i++) {
		struct ggmlviz__op_window *s = &c->sums[i];
		int due = ((all_threads || s->tid == tid) && s->first_ns < due_before) ||
			  s->first_ns < stale_before;

		if (!due || window_out(f, c, s) < 0)
			c->sums[kept++] = *s;
	}
	c->n_sums = kept;
}

int ggmlviz__compact_fold(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			  const uint8_t *rec, uint32_t phase)
{
	uint32_t tid = get_u32(rec + REC_THREAD);
	const uint8_t *pl = rec + REC_PAYLOAD;
	uint64_t ts = get_u64(rec + REC_TIMESTAMP), max = get_u64(pl + SUM_MAX);
	struct ggmlviz__op_window *s;

	if (!c->window_ns || rec[REC_TYPE] != GGMLVIZ_EVENT_OP_SUMMARY || rec[REC_HAS_LABEL])
		return 0; /* not a step's summary (a window's, from a merge, goes as it is) */
	if (!(s = window_of(c, tid, pl, phase))) {
		windows_out(f, c, 0, 1, UINT64_MAX, 0); /* the table is full: every window ends */
		if (!(s = window_of(c, tid, pl, phase)))
			return 0; /* no room to write them (never): the summary goes as it is */
	}
	if (!s->steps)
		*s = (struct ggmlviz__op_window){ tid, get_u32(pl + SUM_TYPE), phase, 0,
						  get_u64(pl + SUM_BACKEND), 0, 0, 0, ts, ts };
	s->steps++;
	s->count += get_u32(pl + SUM_COUNT);
	s->total += get_u64(pl + SUM_TOTAL);
	s->max = max > s->max ? max : s->max;
	s->last_ns = ts > s->last_ns ? ts : s->last_ns;
	return 1;
}

void ggmlviz__compact_windows(struct ggmlviz__flight *f, struct ggmlviz__compact *c,
			      uint32_t tid, int ending, uint64_t now_ns)
{
	uint64_t due = now_ns > c->window_ns ? now_ns - c->window_ns : 0;

	if (!c->n_sums)
		return;
	windows_out(f, c, tid, 0, ending ? UINT64_MAX : due, due > c->window_ns ? due - c->window_ns : 0);
}

void ggmlviz__compact_windows_all(struct ggmlviz__flight *f, struct ggmlviz__compact *c)
{
	windows_out(f, c, 0, 1, UINT64_MAX, 0);
}
