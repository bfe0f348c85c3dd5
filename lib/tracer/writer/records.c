/*
 * The records only the writer writes (see internal.h): PROCESS at the
 * start, THREAD_NAME and DROPPED in the batches, TRACE_END at a clean
 * stop, CRASH from a crash handler. Each counts as written (meta_written)
 * once the write that carries it succeeded.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "format/codec.h"
#include "format/record.h"
#include "tracer/base/clock.h"
#include "tracer/base/compat.h"
#include "tracer/producer/producer.h"
#include "tracer/writer/internal.h"

static uint64_t timeval_ns(const struct timeval *tv)
{
	return (uint64_t)tv->tv_sec * 1000000000u + (uint64_t)tv->tv_usec * 1000u;
}

/*
 * META USAGE: the process's CPU time and context switches so far, read
 * where no application thread pays for it: at the session's start and
 * end, and by the writer once per flush interval between; its size, 0 if
 * getrusage(2) failed.
 */
static uint32_t usage_record(uint8_t *buf, size_t cap, uint64_t now, uint32_t tid)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru) != 0)
		return 0;
	return ggmlviz__encode_meta(buf, cap, now, tid,
				    &(struct ggmlviz__meta){ GGMLVIZ_META_USAGE,
							     (uint64_t)ru.ru_nivcsw,
							     timeval_ns(&ru.ru_utime) +
								     timeval_ns(&ru.ru_stime),
							     (uint64_t)ru.ru_nvcsw },
				    NULL, 0);
}

/* META SAMPLE: how ops are sampled, with its words; its size. */
static uint32_t sample_record(uint8_t *buf, size_t cap, uint64_t now, uint32_t tid,
			      const struct ggmlviz__sample_figures *sf)
{
	char how[160];
	int n = snprintf(how, sizeof how, "1 step in %" PRIu32 " op by op", sf->op_sample);

	if (sf->op_slow_us)
		n += snprintf(how + n, sizeof how - (size_t)n, ", and every step of %" PRIu64
			      " us or more", sf->op_slow_us);
	if (sf->summed)
		snprintf(how + n, sizeof how - (size_t)n, "; the others' CPU ops summed by op type");
	return ggmlviz__encode_meta(buf, cap, now, tid,
				    &(struct ggmlviz__meta){ GGMLVIZ_META_SAMPLE, sf->op_sample,
							     sf->op_slow_us, (uint64_t)sf->summed },
				    how, (uint32_t)strnlen(how, sizeof how));
}

/* META CLOCK: what stamps the records; its size. */
static uint32_t clock_record(uint8_t *buf, size_t cap, uint64_t now, uint32_t tid)
{
	char how[256];
	uint64_t hz;
	uint32_t kind = ggmlviz__clock_describe(&hz, how, sizeof how);

	return ggmlviz__encode_meta(buf, cap, now, tid,
				    &(struct ggmlviz__meta){ GGMLVIZ_META_CLOCK, kind, hz, 0 }, how,
				    (uint32_t)strnlen(how, sizeof how));
}

void ggmlviz__records_keep_start(struct ggmlviz__writer *w, const struct ggmlviz__writer_opts *o)
{
	const struct ggmlviz__peak_figures *pk = o->peak;

	w->start.peak = pk && pk->threads ? *pk : (struct ggmlviz__peak_figures){ 0, 0, 0, NULL };
	snprintf(w->start.peak_how, sizeof w->start.peak_how, "%s", pk && pk->how ? pk->how : "");
	w->start.peak.how = w->start.peak_how;
	w->start.has_sample = o->sample != NULL;
	if (o->sample)
		w->start.sample = *o->sample;
	w->start.pid = (uint64_t)getpid();
	snprintf(w->start.prog, sizeof w->start.prog, "%s", ggmlviz__os_program_name());
	w->start_tid = o->tid;
	snprintf(w->gpu_note, sizeof w->gpu_note, "%s", o->gpu_note ? o->gpu_note : "");
	w->gpu_recorded = o->gpu_recorded;
	w->gpu_tid = o->tid;
	w->usage_ns = ggmlviz__monotonic_ns();
	w->gpu_ts = ggmlviz__now_ns(); /* the session's start, as PROCESS: before the thread's first event */
	w->gpu_note_due = !w->rotate_bytes; /* a rotated trace's segments begin with it */
}

uint32_t ggmlviz__records_start(struct ggmlviz__writer *w, uint8_t *buf, size_t cap,
				uint64_t now, uint64_t *metas, int usage_now)
{
	const struct ggmlviz__peak_figures *pk = &w->start.peak;
	uint32_t n, usage, flight;

	n = ggmlviz__encode_meta(buf, cap, now, w->start_tid,
				 &(struct ggmlviz__meta){ GGMLVIZ_META_PROCESS, w->start.pid, 0, 0 },
				 w->start.prog, (uint32_t)strnlen(w->start.prog, sizeof w->start.prog));
	*metas = 2;
	if (pk->threads) { /* measured before the file was opened: said at its start */
		n += ggmlviz__encode_meta(buf + n, cap - n, now, w->start_tid,
					  &(struct ggmlviz__meta){ GGMLVIZ_META_PEAK, pk->threads,
								   pk->bytes_per_s, pk->flop_per_s },
					  pk->how, (uint32_t)strnlen(pk->how, sizeof w->start.peak_how));
		(*metas)++;
	}
	if (w->start.has_sample) {
		n += sample_record(buf + n, cap - n, now, w->start_tid, &w->start.sample);
		(*metas)++;
	}
	n += clock_record(buf + n, cap - n, now, w->start_tid);
	if ((flight = ggmlviz__flight_record(w, buf + n, cap - n, now)) > 0) {
		n += flight;
		(*metas)++;
	}
	usage = usage_now ? usage_record(buf + n, cap - n, now, w->start_tid) : 0;
	*metas += usage != 0;
	return n + usage;
}

int ggmlviz__records_preamble(struct ggmlviz__writer *w)
{
	uint8_t buf[GGMLVIZ_HEADER_SIZE + GGMLVIZ__START_MAX];
	uint64_t metas;
	struct iovec iov;

	ggmlviz_encode_header(buf, sizeof buf);
	iov.iov_base = buf;
	iov.iov_len = GGMLVIZ_HEADER_SIZE +
		      ggmlviz__records_start(w, buf + GGMLVIZ_HEADER_SIZE, GGMLVIZ__START_MAX, w->gpu_ts,
					     &metas, 1);
	atomic_store_explicit(&w->meta_written, metas, memory_order_relaxed);
	return ggmlviz__output_append(w, &iov, 1);
}

/* Appends a writer record to the pass's meta area and to the batch. */
static void meta_add(struct ggmlviz__writer *w, uint64_t ts, uint32_t tid,
		     const struct ggmlviz__meta *m, const char *label, uint32_t len)
{
	uint8_t *slot = w->meta + w->meta_len;
	uint32_t n = ggmlviz__encode_meta(slot, w->meta_cap - w->meta_len, ts, tid, m, label, len);

	if (n == 0)
		return; /* cannot happen: the area is sized for every ring's records */
	if (w->keeping && ggmlviz__kept_takes(slot))
		ggmlviz__kept_add(&w->kept, slot, n, &w->sink);
	ggmlviz__span_add_bytes(w, slot, n);
	w->meta_len += n;
	w->meta_records++; /* counted as written once the batch is */
}

void ggmlviz__records_usage(struct ggmlviz__writer *w)
{
	uint64_t now = ggmlviz__monotonic_ns();
	uint8_t *slot = w->meta + w->meta_len;
	uint32_t n;

	if (now - w->usage_ns < w->flush_ns)
		return;
	n = usage_record(slot, w->meta_cap - w->meta_len, ggmlviz__now_ns(), w->start_tid);
	if (n == 0)
		return;
	w->usage_ns = now;
	if (w->keeping && w->flight.on) /* a snapshot's window says its CPU time too */
		ggmlviz__flight_add(&w->flight, slot, n);
	ggmlviz__span_add_bytes(w, slot, n);
	w->meta_len += n;
	w->meta_records++; /* counted as written once the batch is */
}

void ggmlviz__records_gpu_note(struct ggmlviz__writer *w)
{
	if (!w->gpu_note_due)
		return;
	w->gpu_note_due = 0;
	meta_add(w, w->gpu_ts, w->gpu_tid,
		 &(struct ggmlviz__meta){ GGMLVIZ_META_GPU, 0, (uint64_t)w->gpu_recorded, 0 },
		 w->gpu_note, (uint32_t)strlen(w->gpu_note));
}

void ggmlviz__records_thread_name(struct ggmlviz__writer *w, struct ggmlviz__ring *r,
				  uint64_t first)
{
	char name[16];
	uint32_t len = ggmlviz__os_thread_comm(r->tid, r->name, name);
	uint64_t ts = get_u64(r->cbuf + (first & r->cmask) + REC_TIMESTAMP);

	r->named = 1;
	if (len == 0)
		return;
	meta_add(w, ts, r->tid, &(struct ggmlviz__meta){ GGMLVIZ_META_THREAD_NAME, r->tid, 0, 0 },
		 name, len);
}

void ggmlviz__records_drop_note(struct ggmlviz__writer *w, struct ggmlviz__pass_ring *p)
{
	struct ggmlviz__ring *r = p->ring;
	uint64_t dropped = atomic_load_explicit(&r->dropped, memory_order_acquire);
	uint64_t noted = atomic_load_explicit(&r->dropped_noted, memory_order_relaxed);
	uint64_t discarded = atomic_load_explicit(&r->discarded, memory_order_relaxed) + p->discarded;
	uint64_t lost = (dropped - noted) + (discarded - r->discarded_noted) + r->unnoted;

	p->noting = lost != 0;
	if (lost == 0)
		return;
	p->note_dropped = dropped;
	p->note_discarded = discarded;
	p->note_unnoted = r->unnoted;
	meta_add(w, ggmlviz__now_ns(), r->tid,
		 &(struct ggmlviz__meta){ GGMLVIZ_META_DROPPED, r->tid, lost, 0 }, NULL, 0);
}

void ggmlviz__records_drop_noted(struct ggmlviz__pass_ring *p)
{
	struct ggmlviz__ring *r = p->ring;

	if (!p->noting)
		return;
	atomic_store_explicit(&r->dropped_noted, p->note_dropped, memory_order_relaxed);
	r->discarded_noted = p->note_discarded;
	r->unnoted -= p->note_unnoted;
	p->noting = 0;
}

/* A writer record of RECORD_SIZE + 16 label bytes at most, written now. */
static int write_record(struct ggmlviz__writer *w, uint32_t tid, const struct ggmlviz__meta *m,
			const char *label)
{
	uint8_t rec[GGMLVIZ_LABELED_RECORD_SIZE + 16];
	struct iovec iov = { rec, 0 };
	int rc;

	iov.iov_len = ggmlviz__encode_meta(rec, sizeof rec, ggmlviz__now_ns(), tid, m, label,
					   label ? (uint32_t)strlen(label) : 0);
	rc = ggmlviz__output_append(w, &iov, 1);
	if (rc == 0)
		atomic_fetch_add_explicit(&w->meta_written, 1, memory_order_relaxed);
	return rc;
}

/* What every ring lost in the session so far, without the registry's lock when unlocked. */
static uint64_t dropped(const struct ggmlviz__writer *w, int unlocked)
{
	uint64_t n = w->retired.dropped + atomic_load(&ggmlviz__state.lost);

	if (!unlocked)
		ggmlviz__registry_lock();
	for (struct ggmlviz__ring *r = unlocked ? ggmlviz__registry_first_unlocked()
						: ggmlviz__registry_first(); r; r = r->next)
		n += atomic_load(&r->dropped) + atomic_load(&r->discarded);
	if (!unlocked)
		ggmlviz__registry_unlock();
	return n;
}

void ggmlviz__records_end(struct ggmlviz__writer *w, uint32_t tid)
{
	uint8_t rec[2 * GGMLVIZ_RECORD_SIZE];
	struct ggmlviz__meta end = { GGMLVIZ_META_TRACE_END, 0, w->events, dropped(w, 0) };
	/* the last word on the CPUs, but not in the room a failed write left for the end */
	uint32_t usage = w->room_end ? 0 : usage_record(rec, sizeof rec, ggmlviz__now_ns(),
							   w->start_tid);
	struct iovec iov = { rec, 0 };
	int rc;

	/*
	 * USAGE and TRACE_END in one write: where both do not fit, the file is
	 * cut back and TRACE_END goes alone (USAGE is the tracer's own, no
	 * event is lost with it).
	 */
	iov.iov_len = usage + ggmlviz__encode_meta(rec + usage, sizeof rec - usage,
						   ggmlviz__now_ns(), tid, &end, NULL, 0);
	if (usage && ggmlviz__output_append(w, &iov, 1) == 0) {
		atomic_fetch_add_explicit(&w->meta_written, 2, memory_order_relaxed);
		return;
	}
	rc = write_record(w, tid, &end, NULL);
	if (rc < 0)
		ggmlviz__output_failed(w, rc); /* the file stays incomplete */
}

static const char *signal_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGABRT: return "SIGABRT";
	default: return "signal";
	}
}

void ggmlviz__records_crash(struct ggmlviz__writer *w, int sig)
{
	write_record(w, ggmlviz__os_gettid(),
		     &(struct ggmlviz__meta){ GGMLVIZ_META_CRASH, (uint64_t)sig, w->events,
					      dropped(w, 1) },
		     signal_name(sig));
}
