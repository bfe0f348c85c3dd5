/*
 * The tracer on one thread: every event type round-tripped field by field,
 * labels, settings that switch events off, the ring wrapping with labels
 * across its end, overflow and max_events (I/O errors: test-io-errors.c;
 * the trace's clock and CPU use: test-clock.c).
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check-compat.h"
#include "trace-util.h"

static char path[4096];

static void start_with(struct ggmlviz_config *cfg)
{
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 1);
}

/* Reads the file and hands back its events (skipping PROCESS / THREAD_NAME by the writer). */
struct collected {
	struct ggmlviz_event ev[64];
	char labels[64][64];
	int n;
	uint64_t first_ts, last_ts;
	int ts_backwards;
};

static int collect_fn(const struct ggmlviz_event *ev, void *arg)
{
	struct collected *c = arg;

	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_USAGE)
		return 0; /* stamped when the writer read it: out of its thread's time order */
	if (c->n && ev->timestamp_ns < c->last_ts)
		c->ts_backwards = 1;
	if (!c->n)
		c->first_ts = ev->timestamp_ns;
	c->last_ts = ev->timestamp_ns;
	if (c->n < 64) {
		c->ev[c->n] = *ev;
		if (ev->label && ev->label_len < 64) {
			memcpy(c->labels[c->n], ev->label, ev->label_len);
			c->labels[c->n][ev->label_len] = '\0';
		}
		c->n++;
	}
	return 0;
}

static int find(const struct collected *c, uint8_t type, int from)
{
	for (int i = from; i < c->n; i++)
		if (c->ev[i].type == type)
			return i;
	return -1;
}

START_TEST(every_type_round_trips)
{
	struct ggmlviz_config cfg;
	struct collected c = { .n = 0 };
	const int64_t ne[4] = { 4096, 32, 1, 5000000000ll };
	uint64_t t0, t1;
	uint32_t tid = tu_gettid();
	int i;

	tu_path(path, sizeof path, "types");
	tu_config(&cfg, path);
	cfg.memory_tracking = 1;
	cfg.thread_tracking = 1;
	t0 = tu_realtime_ns();
	start_with(&cfg);
	ggmlviz_graph_begin((void *)0x1000, 7, 4, (void *)0xb0);
	ggmlviz_op_begin((void *)0x2000, 26, 65536, (void *)0xb0, "Qcur-0");
	ggmlviz_op_info((void *)0x2000, ne, 123456789, "f16");
	ggmlviz_op_end((void *)0x2000, 26, 65536, (void *)0xb0, "Qcur-0");
	ggmlviz_graph_end((void *)0x1000, 7, 4, (void *)0xb0);
	ggmlviz_tensor_alloc((void *)0x3000, 1024, "kv_cache");
	ggmlviz_tensor_free((void *)0x3000, 1024, NULL);
	ggmlviz_barrier_wait((void *)0x42, 777);
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, 26, 0, 0, "MUL_MAT");
	ggmlviz_mark("token", 12);
	ggmlviz_counter("kv_used", -5);
	ggmlviz_scope_begin("prefill", 3);
	ggmlviz_scope_end("prefill", 4);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	t1 = tu_realtime_ns();

	ck_assert_int_eq(tu_each(path, collect_fn, &c), 0);
	ck_assert_int_eq(c.ts_backwards, 0);
	ck_assert_uint_ge(c.first_ts + 1000000000u, t0); /* epoch ns, within a second */
	ck_assert_uint_le(c.last_ts, t1 + 1000000000u);

	/* PROCESS first, with this pid and program name. */
	ck_assert_int_eq(c.ev[0].type, GGMLVIZ_EVENT_META);
	ck_assert_uint_eq(c.ev[0].data.meta.kind, GGMLVIZ_META_PROCESS);
	ck_assert_uint_eq(c.ev[0].data.meta.key, (uint64_t)getpid());
	ck_assert_str_eq(c.labels[0], "test-tracer");

	i = find(&c, GGMLVIZ_EVENT_THREAD_BEGIN, 0);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].thread_id, tid);

	i = find(&c, GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN, 0);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].thread_id, tid);
	ck_assert_uint_eq(c.ev[i].data.graph.graph_ptr, 0x1000);
	ck_assert_uint_eq(c.ev[i].data.graph.n_nodes, 7);
	ck_assert_uint_eq(c.ev[i].data.graph.n_threads, 4);
	ck_assert_uint_eq(c.ev[i].data.graph.backend_ptr, 0xb0);
	ck_assert_ptr_null(c.ev[i].label);

	i = find(&c, GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.op.tensor_ptr, 0x2000);
	ck_assert_uint_eq(c.ev[i].data.op.op_type, 26);
	ck_assert_uint_eq(c.ev[i].data.op.op_size, 65536);
	ck_assert_uint_eq(c.ev[i].data.op.backend_ptr, 0xb0);
	ck_assert_str_eq(c.labels[i], "Qcur-0");

	i = find(&c, GGMLVIZ_EVENT_OP_INFO, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.op_info.tensor_ptr, 0x2000);
	ck_assert_int_eq(c.ev[i].data.op_info.ne[0], 4096);
	ck_assert_int_eq(c.ev[i].data.op_info.ne[1], 32);
	ck_assert_int_eq(c.ev[i].data.op_info.ne[2], 1);
	ck_assert_int_eq(c.ev[i].data.op_info.ne[3], 4294967295ll); /* cut to UINT32_MAX */
	ck_assert_uint_eq(c.ev[i].data.op_info.flops, 123456789);
	ck_assert_str_eq(c.labels[i], "f16");

	i = find(&c, GGMLVIZ_EVENT_OP_COMPUTE_END, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.op.tensor_ptr, 0x2000);
	ck_assert_str_eq(c.labels[i], "Qcur-0");
	ck_assert_int_ge(find(&c, GGMLVIZ_EVENT_GRAPH_COMPUTE_END, i), 0);

	i = find(&c, GGMLVIZ_EVENT_TENSOR_ALLOC, 0);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.memory.ptr, 0x3000);
	ck_assert_uint_eq(c.ev[i].data.memory.size, 1024);
	ck_assert_str_eq(c.labels[i], "kv_cache");
	i = find(&c, GGMLVIZ_EVENT_TENSOR_FREE, i);
	ck_assert_int_ge(i, 0);
	ck_assert_ptr_null(c.ev[i].label);
	i = find(&c, GGMLVIZ_EVENT_BARRIER_WAIT, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.memory.ptr, 0x42);
	ck_assert_uint_eq(c.ev[i].data.memory.size, 777);

	i = find(&c, GGMLVIZ_EVENT_META, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.meta.kind, GGMLVIZ_META_OP_NAME);
	ck_assert_uint_eq(c.ev[i].data.meta.key, 26);
	ck_assert_str_eq(c.labels[i], "MUL_MAT");

	i = find(&c, GGMLVIZ_EVENT_MARK, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.user.value, 12);
	ck_assert_str_eq(c.labels[i], "token");
	i = find(&c, GGMLVIZ_EVENT_COUNTER, i);
	ck_assert_int_ge(i, 0);
	ck_assert_int_eq(c.ev[i].data.user.svalue, -5);
	ck_assert_str_eq(c.labels[i], "kv_used");
	i = find(&c, GGMLVIZ_EVENT_SCOPE_BEGIN, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.user.value, 3);
	i = find(&c, GGMLVIZ_EVENT_SCOPE_END, i);
	ck_assert_int_ge(i, 0);
	ck_assert_uint_eq(c.ev[i].data.user.value, 4);
	ck_assert_str_eq(c.labels[i], "prefill");

	/* TRACE_END last. */
	ck_assert_int_eq(c.ev[c.n - 1].type, GGMLVIZ_EVENT_META);
	ck_assert_uint_eq(c.ev[c.n - 1].data.meta.kind, GGMLVIZ_META_TRACE_END);
	unlink(path);
}
END_TEST

/* The bytes our writer leaves in the format's "zero" holes are zero. */
START_TEST(zero_holes_are_zero)
{
	struct ggmlviz_config cfg;
	unsigned char buf[4096];
	ssize_t n;
	size_t off = 12;
	int fd, ops = 0, graphs = 0;

	tu_path(path, sizeof path, "holes");
	tu_config(&cfg, path);
	start_with(&cfg);
	ggmlviz_graph_begin((void *)-1, 1, 1, (void *)-1);
	ggmlviz_op_begin((void *)-1, 0xffffffffu, UINT64_MAX, (void *)-1, NULL);
	ggmlviz_stop();
	fd = open(path, O_RDONLY);
	n = read(fd, buf, sizeof buf);
	close(fd);
	while (off + 46 <= (size_t)n) {
		const unsigned char *rec = buf + off, *pl = rec + 13;
		uint32_t len;
		if (rec[0] == GGMLVIZ_EVENT_OP_COMPUTE_BEGIN) {
			ops++;
			for (int i = 12; i < 16; i++)
				ck_assert_int_eq(pl[i], 0);
		}
		if (rec[0] == GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN) {
			graphs++;
			for (int i = 24; i < 32; i++)
				ck_assert_int_eq(pl[i], 0);
		}
		memcpy(&len, rec + 46, 4);
		off += rec[45] ? 50 + len : 46;
	}
	ck_assert_int_eq(ops, 1);
	ck_assert_int_eq(graphs, 1);
	unlink(path);
}
END_TEST

static int first_mark(const struct ggmlviz_event *ev, void *arg)
{
	struct ggmlviz_event *out = arg;

	if (ev->type != GGMLVIZ_EVENT_MARK && ev->type != GGMLVIZ_EVENT_OP_COMPUTE_BEGIN)
		return 0;
	*out = *ev;
	return 1;
}

START_TEST(labels_are_copied_and_cut)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	char *big = malloc(GGMLVIZ_LABEL_MAX + 100);
	char word[8] = "before";
	int marks = 0;

	/* "é" is 2 bytes: a cut at 4096 would split the one straddling it. */
	memset(big, 'a', GGMLVIZ_LABEL_MAX + 99);
	big[GGMLVIZ_LABEL_MAX - 1] = (char)0xc3;
	big[GGMLVIZ_LABEL_MAX] = (char)0xa9;
	big[GGMLVIZ_LABEL_MAX + 99] = '\0';
	tu_path(path, sizeof path, "labels");
	tu_config(&cfg, path);
	start_with(&cfg);
	ggmlviz_mark(word, 0);
	strcpy(word, "after"); /* the tracer kept its own copy */
	ggmlviz_mark("", 1);
	ggmlviz_mark(NULL, 2);
	ggmlviz_mark(big, 3);
	ggmlviz_stop();
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.labels_truncated, 1);

	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while (ggmlviz_reader_next(r, &ev) == 1) {
		if (ev.type != GGMLVIZ_EVENT_MARK)
			continue;
		switch (ev.data.user.value) {
		case 0:
			ck_assert_uint_eq(ev.label_len, 6);
			ck_assert_int_eq(memcmp(ev.label, "before", 6), 0);
			break;
		case 1:
			ck_assert_ptr_nonnull(ev.label);
			ck_assert_uint_eq(ev.label_len, 0);
			break;
		case 2:
			ck_assert_ptr_null(ev.label);
			break;
		case 3:
			ck_assert_uint_eq(ev.label_len, GGMLVIZ_LABEL_MAX - 1);
			ck_assert_int_eq(ev.label[ev.label_len - 1], 'a');
			break;
		}
		marks++;
	}
	ck_assert_int_eq(marks, 4);
	ggmlviz_reader_close(r);
	free(big);
	unlink(path);
}
END_TEST

START_TEST(settings_switch_events_off)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	struct ggmlviz_event ev = { 0 };

	tu_path(path, sizeof path, "off");
	tu_config(&cfg, path);
	cfg.op_timing = 0; /* memory_tracking and thread_tracking are off by default */
	start_with(&cfg);
	ggmlviz_op_begin((void *)1, 1, 1, NULL, "x");
	ggmlviz_op_info((void *)1, NULL, 1, "f32");
	ggmlviz_tensor_alloc((void *)1, 1, "x");
	ggmlviz_tensor_free((void *)1, 1, "x");
	ggmlviz_graph_begin((void *)1, 1, 1, NULL);
	ggmlviz_stop();
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_OP_COMPUTE_BEGIN], 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_OP_INFO], 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_TENSOR_ALLOC], 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_TENSOR_FREE], 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_THREAD_BEGIN], 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN], 1);
	unlink(path);

	tu_config(&cfg, path);
	cfg.tensor_names = 0;
	start_with(&cfg);
	ggmlviz_op_begin((void *)1, 1, 1, NULL, "name-dropped");
	ggmlviz_stop();
	ck_assert_int_eq(tu_each(path, first_mark, &ev), 0);
	ck_assert_int_eq(ev.type, GGMLVIZ_EVENT_OP_COMPUTE_BEGIN);
	ck_assert_ptr_null(ev.label);
	unlink(path);
}
END_TEST

/*
 * A ring of 1 KiB that wraps hundreds of times, with labels of every length
 * from 0 to 150 so records straddle its end at every offset; blocking
 * overflow makes it lossless, so every record must come back intact.
 */
#define WRAP_EVENTS 20000

static void wrap_label(char *buf, unsigned seq)
{
	unsigned len = seq % 151;

	for (unsigned i = 0; i < len; i++)
		buf[i] = (char)('a' + (seq + i) % 26);
	buf[len] = '\0';
}

struct wrap_check {
	unsigned next;
	int bad;
};

static int check_wrap(const struct ggmlviz_event *ev, void *arg)
{
	struct wrap_check *w = arg;
	char want[160];

	if (ev->type != GGMLVIZ_EVENT_MARK)
		return 0;
	wrap_label(want, w->next);
	if (ev->data.user.value != w->next || ev->label_len != strlen(want) ||
	    memcmp(ev->label, want, ev->label_len) != 0)
		w->bad++;
	w->next++;
	return 0;
}

/* Starts a session at path (named after tag) with memory tracking on. */
static void start_tracking_memory(const char *tag)
{
	struct ggmlviz_config cfg;

	tu_path(path, sizeof path, tag);
	tu_config(&cfg, path);
	cfg.memory_tracking = 1;
	start_with(&cfg);
}

/* ggmlviz_tensor_free_once(): a free of what alloc_once recorded, after which the address is new */
START_TEST(free_once_frees_what_alloc_once_recorded)
{
	struct tu_summary s;

	start_tracking_memory("free-once");
	ck_assert_int_eq(ggmlviz_tensor_free_once((void *)0x5000, 64, "never seen"), 0);
	ck_assert_int_eq(ggmlviz_tensor_alloc_once((void *)0x5000, 64, "buffer"), 1);
	ck_assert_int_eq(ggmlviz_tensor_alloc_once((void *)0x5000, 64, "buffer"), 0);
	ck_assert_int_eq(ggmlviz_tensor_free_once((void *)0x5000, 64, "freed"), 1);
	ck_assert_int_eq(ggmlviz_tensor_free_once((void *)0x5000, 64, "freed twice"), 0);
	/* the same address, allocated again: a new allocation, recorded */
	ck_assert_int_eq(ggmlviz_tensor_alloc_once((void *)0x5000, 128, "again"), 1);
	ggmlviz_stop();
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_TENSOR_ALLOC], 2);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_TENSOR_FREE], 1);
	unlink(path);

	/* a new session: what the last one recorded is not this one's to free */
	start_tracking_memory("free-once");
	ck_assert_int_eq(ggmlviz_tensor_free_once((void *)0x5000, 128, "last session's"), 0);
	ggmlviz_stop();
	ck_assert_int_eq(ggmlviz_tensor_free_once((void *)0x5000, 128, "not tracing"), 0);
	unlink(path);
}
END_TEST

START_TEST(ring_wraps_with_labels_across_the_end)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct wrap_check w = { 0, 0 };
	char label[160];

	tu_path(path, sizeof path, "wrap");
	tu_config(&cfg, path);
	cfg.buffer_events = 16; /* 1024 bytes */
	cfg.overflow = GGMLVIZ_OVERFLOW_BLOCK;
	cfg.flush_interval_ms = 1;
	start_with(&cfg);
	for (unsigned i = 0; i < WRAP_EVENTS; i++) {
		wrap_label(label, i);
		ggmlviz_mark(label, i);
	}
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, WRAP_EVENTS);
	ck_assert_uint_eq(st.written, WRAP_EVENTS);
	ck_assert_uint_eq(st.dropped, 0);
	ck_assert_int_eq(tu_each(path, check_wrap, &w), 0);
	ck_assert_int_eq(w.bad, 0);
	ck_assert_uint_eq(w.next, WRAP_EVENTS);
	unlink(path);
}
END_TEST

/* Dropping: the file says where and how much; every count agrees. */
START_TEST(overflow_drops_and_says_so)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;

	tu_path(path, sizeof path, "overflow");
	tu_config(&cfg, path);
	cfg.buffer_events = 16;
	cfg.flush_interval_ms = 60000; /* the writer wakes only when the rate says so */
	start_with(&cfg);
	for (int i = 0; i < 100000; i++)
		ggmlviz_mark("drop-me-maybe", (uint64_t)i);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, 100000);
	ck_assert_uint_gt(st.dropped, 0);
	ck_assert_uint_eq(st.emitted, st.written + st.dropped);
	ck_assert_uint_eq(st.queued, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], st.written);
	ck_assert_uint_eq(s.dropped_noted, st.dropped);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_uint_eq(s.end_written, st.written);
	ck_assert_uint_eq(s.end_dropped, st.dropped);
	ck_assert_uint_eq(s.size, st.bytes_written);
	unlink(path);
}
END_TEST

/*
 * Waits for the writer to end recording by itself: up to 30 s, a bound for
 * a hang only (a writer's pass is a few ms; a loaded machine under the
 * sanitizers may hold it off for seconds).
 */
static void wait_until_recording_ends(void)
{
	for (int i = 0; i < 6000 && ggmlviz_is_active(); i++)
		usleep(5000);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
}

START_TEST(max_events_is_exact)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st, later;
	struct tu_summary s;

	tu_path(path, sizeof path, "max");
	tu_config(&cfg, path);
	cfg.max_events = 100;
	start_with(&cfg);
	for (int i = 0; i < 1000; i++)
		ggmlviz_mark(NULL, (uint64_t)i);
	wait_until_recording_ends(); /* the writer ends it once it counts 100 */
	ggmlviz_get_stats(&st);
	for (int i = 0; i < 4000; i++)
		ggmlviz_mark(NULL, 1000); /* accepted still, and counted: as dropped */
	ggmlviz_get_stats(&later);
	ck_assert_uint_eq(later.emitted, st.emitted + 4000);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	/* Every call is counted: exactly 100 written, the others dropped, and the file says so. */
	ck_assert_uint_eq(st.emitted, 5000);
	ck_assert_uint_eq(st.written, 100);
	ck_assert_uint_eq(st.dropped, 4900);
	ck_assert_uint_eq(st.queued, 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 100);
	ck_assert_uint_eq(s.dropped_noted, st.dropped);
	ck_assert_uint_eq(s.end_written, 100);
	ck_assert_uint_eq(s.end_dropped, st.dropped);
	unlink(path);
}
END_TEST

/* What the anonymize test reads back. */
struct anon_seen {
	uint64_t tensors[4], backend_of_op, backend_named, graph, zero_backend;
	int n_tensors, raw_seen;
};

static int look_anon(const struct ggmlviz_event *ev, void *arg)
{
	struct anon_seen *a = arg;

	if (ev->type == GGMLVIZ_EVENT_OP_COMPUTE_BEGIN || ev->type == GGMLVIZ_EVENT_OP_COMPUTE_END) {
		if (a->n_tensors < 4)
			a->tensors[a->n_tensors++] = ev->data.op.tensor_ptr;
		a->backend_of_op = ev->data.op.backend_ptr;
		a->raw_seen |= ev->data.op.tensor_ptr == 0x7f0012345678u;
	} else if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_BACKEND_NAME) {
		a->backend_named = ev->data.meta.key;
	} else if (ev->type == GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN) {
		a->graph = ev->data.graph.graph_ptr;
		a->zero_backend = ev->data.graph.backend_ptr;
	}
	return 0;
}

/* Addresses become ids: not the addresses, the same id for the same address, 0 kept. */
START_TEST(anonymize_hides_addresses)
{
	const void *tensor = (const void *)(uintptr_t)0x7f0012345678u;
	const void *backend = (const void *)(uintptr_t)0x55aa00001000u;
	struct ggmlviz_config cfg;
	struct anon_seen a = { { 0 }, 0, 0, 0, 1, 0, 0 };

	tu_path(path, sizeof path, "anon");
	tu_config(&cfg, path);
	cfg.anonymize = 1;
	start_with(&cfg);
	ggmlviz_meta(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)backend, 0, 0, "CPU");
	ggmlviz_graph_begin((const void *)(uintptr_t)0x1000, 1, 1, NULL);
	ggmlviz_op_begin(tensor, 1, 4, backend, "t");
	ggmlviz_op_end(tensor, 1, 4, backend, "t");
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_each(path, look_anon, &a), 0);
	ck_assert_int_eq(a.n_tensors, 2);
	ck_assert_int_eq(a.raw_seen, 0);
	ck_assert_uint_ne(a.tensors[0], 0);
	ck_assert_uint_eq(a.tensors[0], a.tensors[1]);          /* begin and end still pair */
	ck_assert_uint_ne(a.backend_of_op, (uint64_t)(uintptr_t)backend);
	ck_assert_uint_eq(a.backend_named, a.backend_of_op);   /* its name still names it */
	ck_assert_uint_ne(a.graph, 0x1000);
	ck_assert_uint_eq(a.zero_backend, 0);                  /* 0 (CPU, none) stays 0 */
	unlink(path);
}
END_TEST

/* Once recording ended on its own, start closes that session and opens a new one. */
START_TEST(start_after_recording_ended_on_its_own)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;
	char second[4096];

	tu_path(path, sizeof path, "ended");
	tu_path(second, sizeof second, "after-ended");
	tu_config(&cfg, path);
	cfg.max_events = 10;
	start_with(&cfg);
	for (int i = 0; i < 100; i++)
		ggmlviz_mark(NULL, (uint64_t)i);
	wait_until_recording_ends();
	tu_config(&cfg, second);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0); /* not -EALREADY */
	ggmlviz_mark(NULL, 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 1); /* the first file was closed properly */
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 10);
	ck_assert_int_eq(tu_summarize(second, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 1);
	unlink(path);
	unlink(second);
}
END_TEST

START_TEST(start_errors)
{
	struct ggmlviz_config cfg;

	tu_path(path, sizeof path, "errors");
	tu_config(&cfg, "/nonexistent-dir/x.ggmlviz");
	ck_assert_int_eq(ggmlviz_start(&cfg), -ENOENT);
	tu_config(&cfg, "/dev/full");
	ck_assert_int_eq(ggmlviz_start(&cfg), -ENOSPC);
	tu_config(&cfg, path);
	cfg.buffer_events = 1000;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.flush_interval_ms = 0;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.overflow = 7;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.op_timing = 3;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	/* room to grow must be zero: a later member is never read from garbage */
	tu_config(&cfg, path);
	cfg.reserved3_u32 = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.gpu_sample_k = 5, cfg.gpu_sample_n = 3; /* more sampled steps than steps */
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.gpu_sample_k = 0, cfg.gpu_sample_n = 4; /* none sampled */
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.nvtx = 3;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.buffer_events_max = 3000; /* not a power of two */
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.buffer_events = 1024;
	cfg.buffer_events_max = 512; /* less than the ring it would grow from */
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, path);
	cfg.buffer_events_max = 1u << 25;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	tu_config(&cfg, NULL);
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
	ck_assert_int_eq(access(path, F_OK), -1); /* nothing created */

	tu_config(&cfg, path);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_start(&cfg), -EALREADY);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0); /* not active: nothing to do */
	unlink(path);
}
END_TEST

START_TEST(disable_starts_nothing)
{
	struct ggmlviz_config cfg;

	tu_path(path, sizeof path, "disabled");
	tu_config(&cfg, path);
	cfg.disable = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
	ck_assert_uint_eq(ggmlviz_session(), 0);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(pid_in_path)
{
	struct ggmlviz_config cfg;
	char pattern[4096], expect[4096];
	const char *dir = getenv("TMPDIR");

	snprintf(pattern, sizeof pattern, "%s/ggmlviz-pid-%%p-%%p.ggmlviz", dir ? dir : "/tmp");
	snprintf(expect, sizeof expect, "%s/ggmlviz-pid-%ld-%ld.ggmlviz", dir ? dir : "/tmp",
		 (long)getpid(), (long)getpid());
	tu_config(&cfg, pattern);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(access(expect, F_OK), 0);
	unlink(expect);
}
END_TEST

START_TEST(stats_match_the_file)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct stat sb;

	tu_path(path, sizeof path, "stats");
	tu_config(&cfg, path);
	start_with(&cfg);
	for (int i = 0; i < 1000; i++)
		ggmlviz_op_begin((void *)(uintptr_t)i, 1, 2, NULL, "abc");
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, st.written + st.dropped + st.queued);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(stat(path, &sb), 0);
	ck_assert_uint_eq(st.bytes_written, (uint64_t)sb.st_size);
	/* The writer's THREAD_NAME is metadata, not an event. */
	ck_assert_uint_eq(st.written, s.events - s.by_meta[GGMLVIZ_META_THREAD_NAME]);
	ck_assert_uint_eq(st.meta_written, s.records - s.events + s.by_meta[GGMLVIZ_META_THREAD_NAME]);
	ck_assert_uint_eq(st.threads, 1);
	ck_assert_uint_eq(st.queued, 0);
	unlink(path);
}
END_TEST

/* The writer's own passes and CPU time, counted (what the trace costs beside the emit calls). */
START_TEST(the_writers_cost_is_counted)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st, later;
	struct timespec pause = { 0, 30 * 1000 * 1000 };

	tu_path(path, sizeof path, "writer-cost");
	tu_config(&cfg, path);
	start_with(&cfg);
	for (int i = 0; i < 3; i++) {
		for (int k = 0; k < 1000; k++)
			ggmlviz_op_begin((void *)(uintptr_t)k, 1, 2, NULL, "abc");
		nanosleep(&pause, NULL); /* a few flush intervals: passes, each counted */
	}
	ggmlviz_get_stats(&st);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&later);
	ck_assert_uint_ge(st.writer_passes, 1);
	ck_assert_uint_gt(st.writer_cpu_ns, 0);
	ck_assert_uint_ge(later.writer_passes, st.writer_passes);
	ck_assert_uint_ge(later.writer_cpu_ns, st.writer_cpu_ns);
	ck_assert_uint_eq(later.reserved[0] | later.reserved[1], 0);
	unlink(path);
}
END_TEST

START_TEST(nothing_before_start_or_after_stop)
{
	struct ggmlviz_config cfg;
	struct tu_summary s;

	ggmlviz_mark("before", 0);
	ggmlviz_op_begin((void *)1, 1, 1, NULL, "before");
	tu_path(path, sizeof path, "outside");
	tu_config(&cfg, path);
	start_with(&cfg);
	ggmlviz_mark("inside", 0);
	ggmlviz_stop();
	ggmlviz_mark("after", 0);
	(ggmlviz_mark)("after, through the function itself", 0);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 1);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_OP_COMPUTE_BEGIN], 0);
	unlink(path);
}
END_TEST

/* What a session's META records of the tracer's own kinds were. */
struct own_kinds {
	int forged;  /* records with the application's figures */
	int process; /* PROCESS records */
};

static int own_kinds_fn(const struct ggmlviz_event *ev, void *arg)
{
	struct own_kinds *k = arg;

	if (ev->type != GGMLVIZ_EVENT_META)
		return 0;
	k->forged += ev->data.meta.key == 4242 || ev->data.meta.value2 == 4242;
	k->process += ev->data.meta.kind == GGMLVIZ_META_PROCESS;
	return 0;
}

/*
 * ggmlviz_meta() refuses the kinds the tracer writes itself, which the
 * reader, the accounting and the findings rely on (ggmlviz_meta(3)): a
 * call records nothing and counts nothing.
 */
START_TEST(the_tracers_own_kinds_are_refused)
{
	static const uint32_t own[] = {
		GGMLVIZ_META_PROCESS, GGMLVIZ_META_DROPPED, GGMLVIZ_META_TRACE_END,
		GGMLVIZ_META_CRASH,   GGMLVIZ_META_GPU,     GGMLVIZ_META_SHARES,
		GGMLVIZ_META_CLOCK,   GGMLVIZ_META_GPU_WINDOW, GGMLVIZ_META_USAGE,
	};
	struct ggmlviz_config cfg;
	struct ggmlviz_stats st;
	struct tu_summary s;
	struct own_kinds k = { 0, 0 };

	tu_path(path, sizeof path, "own-kinds");
	tu_config(&cfg, path);
	start_with(&cfg);
	for (size_t i = 0; i < sizeof own / sizeof own[0]; i++)
		ggmlviz_meta(own[i], 4242, 1, 4242, "forged");
	ggmlviz_meta(GGMLVIZ_META_OP_NAME, 4242, 0, 0, "taken"); /* a kind of the application's */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(&st);
	ck_assert_uint_eq(st.emitted, 1);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	ck_assert_int_eq(tu_each(path, own_kinds_fn, &k), 0);
	ck_assert_int_eq(k.forged, 1); /* the OP_NAME alone */
	ck_assert_int_eq(k.process, 1);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("tracer");
	TCase *tc = tcase_create("single thread");

	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, every_type_round_trips);
	tcase_add_test(tc, zero_holes_are_zero);
	tcase_add_test(tc, labels_are_copied_and_cut);
	tcase_add_test(tc, settings_switch_events_off);
	tcase_add_test(tc, free_once_frees_what_alloc_once_recorded);
	tcase_add_test(tc, ring_wraps_with_labels_across_the_end);
	tcase_add_test(tc, overflow_drops_and_says_so);
	tcase_add_test(tc, max_events_is_exact);
	tcase_add_test(tc, start_after_recording_ended_on_its_own);
	tcase_add_test(tc, start_errors);
	tcase_add_test(tc, disable_starts_nothing);
	tcase_add_test(tc, pid_in_path);
	tcase_add_test(tc, anonymize_hides_addresses);
	tcase_add_test(tc, stats_match_the_file);
	tcase_add_test(tc, the_writers_cost_is_counted);
	tcase_add_test(tc, nothing_before_start_or_after_stop);
	tcase_add_test(tc, the_tracers_own_kinds_are_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
