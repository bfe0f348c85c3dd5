/*
 * The flight recorder (GGML_VIZ_FLIGHT, GGML_VIZ_FLIGHT_ON) on the small
 * transformer of test-ggml-model, computed by a scheduler on the CPU
 * backend: in rolling mode the file keeps the sampled graphs' ops and the
 * others' sums while a snapshot holds every op; a slow request makes one,
 * an ask (TRACE.snapshot-ask, as `ggmlviz snapshot` makes it) makes one and
 * is answered; one a window at most; the newest KEEP kept; the memory
 * bound; no META ROUTE record ever reaches a file.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ggml.h>
#include <ggml-backend.h>
#define GGMLVIZ_GGML_IMPLEMENTATION /* this file holds the adapter's state */
#include <ggmlviz/ggml.h>
#include <ggmlviz/reader.h>

#include "check-compat.h"
#include "ggml-util.h"
#include "trace-util.h"
#include "../examples/transformer.h"

#ifndef GGMLVIZ_GGML_LIBDIR
#error "build with -DGGMLVIZ_GGML_LIBDIR=\"...\" (Makefile.am does)"
#endif

#define ROUTE_KIND 0x7f524f55u /* lib/tracer/base/base.h's GGMLVIZ__META_ROUTE */

struct model_run {
	ggml_backend_t backend;
	ggml_backend_sched_t sched;
	struct transformer m;
	uint32_t step;
};

static void model_init(struct model_run *mr)
{
	struct transformer_params p;

	transformer_params_init(&p);
	p.n_layer = 2, p.n_embd = 64, p.n_head = 2, p.n_ff = 128, p.n_tokens = 8, p.n_vocab = 96;
	mr->backend = gu_cpu_backend(GGMLVIZ_GGML_LIBDIR);
	ck_assert_int_eq(transformer_init(&mr->m, &p, mr->backend), 0);
	mr->sched = gu_new_sched(&mr->backend, transformer_graph_size(&p));
	mr->step = 0;
}

static void model_free(struct model_run *mr)
{
	ggml_backend_sched_free(mr->sched);
	transformer_free(&mr->m);
	ggml_backend_free(mr->backend);
}

/* One graph of the model, traced. */
static void graph(struct model_run *mr)
{
	ck_assert_int_eq(transformer_step(&mr->m, mr->sched, mr->step++,
					  ggmlviz_ggml_sched_graph_compute), GGML_STATUS_SUCCESS);
}

static void sleep_ms(unsigned ms)
{
	struct timespec ts = { (time_t)(ms / 1000u), (long)(ms % 1000u) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Request id: a graph for its prompt, first_ms later its first token, then tokens graphs. */
static void request(struct model_run *mr, uint64_t id, unsigned first_ms, int tokens)
{
	ggmlviz_request_begin(id, GGMLVIZ_REQUEST_COMPLETION, 8, NULL);
	graph(mr);
	sleep_ms(first_ms);
	ggmlviz_request_stage(id, 0, GGMLVIZ_REQUEST_FIRST_TOKEN, 8, 0);
	for (int i = 0; i < tokens; i++)
		graph(mr);
	ggmlviz_request_end(id, 0, GGMLVIZ_REQUEST_DONE, 8, 0, (uint32_t)tokens + 1, NULL);
}

/*
 * The trace's settings for the test: 1 graph in op_sample op by op (1000:
 * rolling mode), flight as given.
 */
static void start_sampled(struct model_run *mr, struct ggmlviz_config *cfg, const char *path,
			  uint32_t op_sample, const char *flight, const char *on)
{
	tu_config(cfg, path);
	cfg->op_sample = op_sample;
	ck_assert_int_eq(ggmlviz_setting_set("flight", flight), 0);
	ck_assert_int_eq(ggmlviz_setting_set("flight_on", on), 0);
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_ggml_trace_sched(mr->sched, GU_THREADS, NULL, NULL), 0);
}

static void start(struct model_run *mr, struct ggmlviz_config *cfg, const char *path,
		  const char *flight, const char *on)
{
	start_sampled(mr, cfg, path, 1000, flight, on);
}

static void stop(struct model_run *mr)
{
	ggmlviz_ggml_untrace_sched(mr->sched);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_setting_set("flight", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("flight_on", NULL), 0);
}

/* path less ".ggmlviz", then ".flight-N.ggmlviz". */
static void snapshot_path(const char *path, unsigned n, char *buf, size_t size)
{
	snprintf(buf, size, "%.*s.flight-%u.ggmlviz", (int)(strlen(path) - strlen(".ggmlviz")), path,
		 n);
}

/* The trace at path and its first snapshot (its path into snap_path), read back. */
static void read_both(const char *path, struct gu_trace *file, struct gu_trace *snap,
		      char *snap_path, size_t size)
{
	snapshot_path(path, 1, snap_path, size);
	gu_read(file, path);
	gu_read(snap, snap_path);
}

static int exists(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0;
}

/* How many META SNAPSHOT records of why (key >> 32); the last one's label and value. */
static size_t snapshots(const struct gu_trace *tr, uint32_t why, const char **label)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n_metas; i++)
		if (tr->metas[i].kind == GGMLVIZ_META_SNAPSHOT && tr->metas[i].key >> 32 == why) {
			n++;
			if (label)
				*label = tr->metas[i].label;
		}
	return n;
}

static size_t metas_of(const struct gu_trace *tr, uint32_t kind)
{
	size_t n = 0;

	for (size_t i = 0; i < tr->n_metas; i++)
		n += tr->metas[i].kind == kind;
	return n;
}

/* Whether a file in dir has a name that begins with prefix. */
static int any_named(const char *dir, const char *prefix)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d)))
		found = strncmp(e->d_name, prefix, strlen(prefix)) == 0;
	closedir(d);
	return found;
}

static void remove_snapshots(const char *path, unsigned upto)
{
	char p[300];

	for (unsigned n = 1; n <= upto; n++) {
		snapshot_path(path, n, p, sizeof p);
		unlink(p);
	}
}

/*
 * TRACE_END counts the events the file holds: the traced threads' records,
 * not the writer's own, and none of those the flight recorder alone got.
 */
static void check_end_counts(const char *path)
{
	static const uint32_t writers[] = { GGMLVIZ_META_PROCESS, GGMLVIZ_META_SAMPLE,
					    GGMLVIZ_META_CLOCK, GGMLVIZ_META_FLIGHT,
					    GGMLVIZ_META_USAGE, GGMLVIZ_META_GPU,
					    GGMLVIZ_META_THREAD_NAME, GGMLVIZ_META_DROPPED,
					    GGMLVIZ_META_SNAPSHOT, GGMLVIZ_META_TRACE_END };
	struct tu_summary sum;
	uint64_t own = 0;

	ck_assert_int_eq(tu_summarize(path, &sum), 0);
	for (size_t i = 0; i < sizeof writers / sizeof writers[0]; i++)
		own += sum.by_meta[writers[i]];
	ck_assert_uint_eq(sum.end_written, sum.records - own);
}

/*
 * A request slower to its first token than ttft's 1 ms: a snapshot with
 * every graph's ops one by one, where the file has the first graph's only
 * and the others summed; the trace names it, the snapshot says why.
 */
START_TEST(test_slow_request_snapshot_has_every_op)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace file, snap;
	char path[256], snap_path[300];
	const char *label = NULL;
	size_t per_graph;

	model_init(&mr);
	tu_path(path, sizeof path, "flight-slow");
	start(&mr, &cfg, path, "60", "ttft:1");
	request(&mr, 7, 20, 4);
	stop(&mr);
	read_both(path, &file, &snap, snap_path, sizeof snap_path);
	/* the file: 5 graphs, the first op by op, the others summed */
	ck_assert_uint_eq(file.n_graphs, 5);
	per_graph = file.splits[0].n_timed;
	ck_assert_uint_gt(per_graph, 0);
	ck_assert_uint_eq(file.n_ops, per_graph);
	ck_assert_uint_gt(file.n_sums, 0);
	ck_assert_uint_eq(snapshots(&file, GGMLVIZ_SNAPSHOT_TTFT, &label), 1);
	ck_assert_str_eq(label, strrchr(snap_path, '/') + 1);
	ck_assert_uint_eq(metas_of(&file, GGMLVIZ_META_FLIGHT), 1);
	ck_assert_uint_eq(metas_of(&file, ROUTE_KIND), 0);
	check_end_counts(path);
	/* the snapshot: every graph, every op, no sum, its why, the request whole */
	ck_assert_uint_eq(snap.n_graphs, 5);
	ck_assert_uint_eq(snap.n_ops, 5 * per_graph);
	ck_assert_uint_eq(snap.n_sums, 0);
	for (size_t i = 0; i < snap.n_splits; i++)
		ck_assert_uint_eq(snap.splits[i].n_timed, per_graph);
	ck_assert_uint_eq(snapshots(&snap, GGMLVIZ_SNAPSHOT_TTFT, NULL), 1);
	ck_assert_uint_eq(metas_of(&snap, GGMLVIZ_META_FLIGHT), 1);
	ck_assert_uint_eq(metas_of(&snap, GGMLVIZ_META_TRACE_END), 1);
	ck_assert_uint_eq(metas_of(&snap, ROUTE_KIND), 0);
	ck_assert_uint_eq(snap.counts.unclosed_begins + snap.counts.unmatched_ends, 0);
	gu_free(&file);
	gu_free(&snap);
	unlink(path);
	unlink(snap_path);
	model_free(&mr);
}
END_TEST

/* A fast request makes none; without GGML_VIZ_FLIGHT_ON, none either. */
START_TEST(test_fast_request_no_snapshot)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	char path[256], snap_path[300];

	model_init(&mr);
	for (int k = 0; k < 2; k++) {
		tu_path(path, sizeof path, "flight-fast");
		start(&mr, &cfg, path, "60", k == 0 ? "ttft:60000,token:60000" : NULL);
		request(&mr, 1, k == 0 ? 0 : 20, 2);
		stop(&mr);
		snapshot_path(path, 1, snap_path, sizeof snap_path);
		ck_assert(!exists(snap_path));
		unlink(path);
	}
	model_free(&mr);
}
END_TEST

/* Waits up to 10 s for the final reply to the ask of token ("taken" passed over); its line into buf. */
static void await_reply(const char *path, const char *token, char *buf, size_t size)
{
	char reply[300];
	int final = 0;

	snprintf(reply, sizeof reply, "%s.snapshot-reply.%s", path, token);
	for (int i = 0; i < 1000 && !final; i++) {
		FILE *f = fopen(reply, "r");

		if (f) {
			final = fgets(buf, (int)size, f) &&
				strncmp(buf + strlen(token), " taken ", 7) != 0;
			fclose(f);
		}
		if (!final)
			sleep_ms(10);
	}
	ck_assert_msg(final, "no final reply in %s", reply);
	unlink(reply);
}

/* An ask as ggmlviz snapshot makes it: written whole beside its name, then renamed to it. */
static void ask(const char *path, const char *token)
{
	char p[300], part[310];
	FILE *f;

	snprintf(p, sizeof p, "%s.snapshot-ask", path);
	snprintf(part, sizeof part, "%s.part", p);
	ck_assert_ptr_nonnull(f = fopen(part, "w"));
	fprintf(f, "%s\n", token);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(rename(part, p), 0);
}

/*
 * An ask is answered within a pass with the snapshot's name; a second
 * within the window is refused with why; the ask files are gone.
 */
START_TEST(test_ask_answered_one_a_window)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace file;
	char path[256], snap_path[300], line[600], want[700], ask_path[300];

	model_init(&mr);
	tu_path(path, sizeof path, "flight-ask");
	start(&mr, &cfg, path, "60", NULL);
	request(&mr, 3, 0, 2);
	ask(path, "tok-1");
	await_reply(path, "tok-1", line, sizeof line);
	snapshot_path(path, 1, snap_path, sizeof snap_path);
	snprintf(want, sizeof want, "tok-1 ok %s\n", snap_path);
	ck_assert_str_eq(line, want);
	ck_assert(exists(snap_path));
	ask(path, "tok-2");
	await_reply(path, "tok-2", line, sizeof line);
	ck_assert_msg(strncmp(line, "tok-2 error the last snapshot was taken", 39) == 0, "%s", line);
	snprintf(ask_path, sizeof ask_path, "%s.snapshot-ask", path);
	ck_assert(!exists(ask_path));
	stop(&mr);
	gu_read(&file, path);
	ck_assert_uint_eq(snapshots(&file, GGMLVIZ_SNAPSHOT_ASKED, NULL), 1);
	gu_free(&file);
	unlink(path);
	remove_snapshots(path, 2);
	model_free(&mr);
}
END_TEST

/* Slow requests a window apart: one snapshot each; the newest KEEP (2) kept. */
START_TEST(test_newest_kept)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	char path[256], p[300];

	model_init(&mr);
	tu_path(path, sizeof path, "flight-keep");
	start(&mr, &cfg, path, "1:2", "ttft:1");
	for (uint64_t id = 1; id <= 3; id++) {
		request(&mr, id, 20, 1);
		sleep_ms(1150); /* a window after: the next may make one */
	}
	stop(&mr);
	snapshot_path(path, 1, p, sizeof p);
	ck_assert(!exists(p));
	for (unsigned n = 2; n <= 3; n++) {
		snapshot_path(path, n, p, sizeof p);
		ck_assert_msg(exists(p), "%s", p);
	}
	unlink(path);
	remove_snapshots(path, 3);
	model_free(&mr);
}
END_TEST

/* The memory bound (1M): many graphs later, a snapshot holds about that much, not all. */
START_TEST(test_memory_bound)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace snap;
	char path[256], p[300];
	struct stat st;

	model_init(&mr);
	tu_path(path, sizeof path, "flight-memory");
	start(&mr, &cfg, path, "60:0:1M", "ttft:1");
	for (int i = 0; i < 400; i++)
		graph(&mr);
	request(&mr, 9, 20, 1);
	stop(&mr);
	snapshot_path(path, 1, p, sizeof p);
	ck_assert_int_eq(stat(p, &st), 0);
	ck_assert_int_le(st.st_size, (off_t)(1u << 20) + (64 << 10));
	gu_read(&snap, p);
	ck_assert_uint_gt(snap.n_ops, 0);
	ck_assert_uint_lt(snap.n_graphs, 402);
	gu_free(&snap);
	unlink(path);
	unlink(p);
	model_free(&mr);
}
END_TEST

/*
 * A snapshot the file system refuses (a file size limit, as a full disk
 * would): none left behind, the trace goes on to its end and says why in
 * its META SNAPSHOT.
 */
START_TEST(test_snapshot_refused_by_the_disk)
{
	struct rlimit lim = { 512u << 10, 512u << 10 };
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace file;
	char path[256], p[300], part[300];
	const char *label = NULL;

	model_init(&mr);
	tu_path(path, sizeof path, "flight-full");
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0); /* this test's process only (Check forks) */
	start(&mr, &cfg, path, "60:0:1M", "ttft:1");
	for (int i = 0; i < 200; i++)
		graph(&mr);
	request(&mr, 4, 20, 1);
	graph(&mr);
	stop(&mr);
	snapshot_path(path, 1, p, sizeof p);
	ck_assert(!exists(p));
	gu_read(&file, path);
	ck_assert_uint_eq(snapshots(&file, GGMLVIZ_SNAPSHOT_TTFT, &label), 1);
	ck_assert_msg(strstr(label, "not written: File too large"), "%s", label);
	ck_assert_uint_eq(metas_of(&file, GGMLVIZ_META_TRACE_END), 1);
	gu_free(&file);
	snprintf(part, sizeof part, "%s", p);
	*strrchr(part, '/') = '\0';
	ck_assert(!any_named(part, strrchr(p, '/') + 1)); /* no part of it left behind */
	unlink(path);
	model_free(&mr);
}
END_TEST

/* Every graph op by op (no rolling mode): the file as without a flight recorder, the snapshot too. */
START_TEST(test_every_op_mode)
{
	struct ggmlviz_config cfg;
	struct model_run mr;
	struct gu_trace file, snap;
	char path[256], p[300];

	model_init(&mr);
	tu_path(path, sizeof path, "flight-every");
	start_sampled(&mr, &cfg, path, 1, "60", "ttft:1");
	request(&mr, 5, 20, 2);
	stop(&mr);
	read_both(path, &file, &snap, p, sizeof p);
	ck_assert_uint_eq(file.n_graphs, 3);
	ck_assert_uint_eq(snap.n_graphs, 3);
	ck_assert_uint_eq(file.n_ops, snap.n_ops);
	ck_assert_uint_eq(file.n_sums + snap.n_sums, 0);
	gu_free(&file);
	gu_free(&snap);
	unlink(path);
	unlink(p);
	model_free(&mr);
}
END_TEST

/*
 * ---- the file made smaller beside it (GGML_VIZ_OP_WINDOW, GGML_VIZ_PACK;
 * tests/test-compact.c has packing on its own) ----
 */

/* Per op type: the ops its summaries sum, the steps, the summaries; the longest window. */
struct sums_by_type {
	uint64_t ops[256], steps[256], records[256];
	uint64_t longest_ns;
};

static void sum_up(const struct gu_trace *tr, struct sums_by_type *b)
{
	memset(b, 0, sizeof *b);
	for (size_t i = 0; i < tr->n_sums; i++) {
		const struct ggmlviz_timing *t = &tr->sums[i];
		uint32_t k = (t->op_type ^ t->op_type >> 16 ^ t->op_type >> 31) & 0xff; /* fused types too */

		b->ops[k] += t->n_nodes;
		b->steps[k] += t->n_threads;
		b->records[k]++;
		ck_assert_uint_le(t->begin_ns, t->end_ns);
		if (t->end_ns - t->begin_ns > b->longest_ns)
			b->longest_ns = t->end_ns - t->begin_ns;
	}
}

/* graphs graphs, ms apart, into path: op_window as given (NULL: none), the file packed or not. */
static void windows_run(struct model_run *mr, const char *path, const char *window, int pack,
			int graphs, unsigned ms, struct gu_trace *tr)
{
	struct ggmlviz_config cfg;

	ck_assert_int_eq(ggmlviz_setting_set("op_window", window), 0);
	ck_assert_int_eq(ggmlviz_setting_set("pack", pack ? "1" : "0"), 0);
	start(mr, &cfg, path, NULL, NULL);
	for (int i = 0; i < graphs; i++) {
		graph(mr);
		sleep_ms(ms);
	}
	stop(mr);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("pack", NULL), 0);
	gu_read(tr, path);
	check_end_counts(path);
}

/*
 * Windows of 60 s, a run far shorter: the stop writes them, one per op
 * type, each summing every summed graph (11 of 12), the same ops as the
 * steps' own summaries in a run without windows; packed, the same again.
 */
START_TEST(test_op_windows_written_at_the_stop)
{
	struct sums_by_type steps, windows, packed;
	struct gu_trace a, b, c;
	struct model_run mr;
	char path[256];
	size_t types = 0;

	model_init(&mr);
	tu_path(path, sizeof path, "windows-stop");
	windows_run(&mr, path, NULL, 0, 12, 0, &a);
	windows_run(&mr, path, "60", 0, 12, 0, &b);
	windows_run(&mr, path, "60", 1, 12, 0, &c);
	sum_up(&a, &steps);
	sum_up(&b, &windows);
	sum_up(&c, &packed);
	for (unsigned k = 0; k < 256; k++) {
		if (!steps.ops[k])
			continue;
		types++;
		ck_assert_uint_eq(steps.steps[k], 11);
		ck_assert_uint_eq(steps.records[k], 11);
		ck_assert_uint_eq(windows.ops[k], steps.ops[k]);
		ck_assert_uint_eq(windows.steps[k], 11);
		ck_assert_uint_eq(windows.records[k], 1);
		ck_assert_uint_eq(packed.ops[k], steps.ops[k]);
		ck_assert_uint_eq(packed.records[k], 1);
	}
	ck_assert_uint_gt(types, 2);
	ck_assert_uint_eq(b.n_sums, types);
	ck_assert_uint_eq(b.n_graphs, 12); /* the graphs kept as they were */
	ck_assert_uint_eq(c.n_graphs, 12);
	ck_assert_uint_eq(c.n_ops, a.n_ops); /* the first graph op by op */
	gu_free(&a);
	gu_free(&b);
	gu_free(&c);
	unlink(path);
	model_free(&mr);
}
END_TEST

/* Windows of 1 s over 2.5 s: written as they fall due, each within its length (and a pass). */
START_TEST(test_op_windows_written_as_they_fall_due)
{
	struct sums_by_type w;
	struct gu_trace tr;
	struct model_run mr;
	char path[256];

	model_init(&mr);
	tu_path(path, sizeof path, "windows-due");
	windows_run(&mr, path, "1", 0, 26, 100, &tr);
	sum_up(&tr, &w);
	for (unsigned k = 0; k < 256; k++) {
		if (!w.ops[k])
			continue;
		ck_assert_uint_eq(w.steps[k], 25);
		ck_assert_uint_ge(w.records[k], 2);
	}
	ck_assert_uint_lt(w.longest_ns, 1300000000u);
	gu_free(&tr);
	unlink(path);
	model_free(&mr);
}
END_TEST

/*
 * A disk that fills while windows sum, and then has room again: the file
 * ends with TRACE_END counting what it holds, and no summed step is
 * counted twice (the windows as they were before a failed write: the
 * salvage sums its summaries again).
 */
START_TEST(test_op_windows_through_a_full_disk)
{
	struct rlimit lim = { 96u << 10, RLIM_INFINITY };
	struct ggmlviz_config cfg;
	struct sums_by_type w;
	struct gu_trace tr;
	struct model_run mr;
	char path[256];
	int failed = 0, rc;

	model_init(&mr);
	tu_path(path, sizeof path, "windows-full");
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0); /* this test's process only (Check forks) */
	ck_assert_int_eq(ggmlviz_setting_set("op_window", "1"), 0);
	start(&mr, &cfg, path, NULL, NULL);
	/* no check a graph: Check's own file has the same limit; room again after 1.2 s */
	for (int i = 0; i < 1200; i++) {
		failed += transformer_step(&mr.m, mr.sched, mr.step++,
					   ggmlviz_ggml_sched_graph_compute) != GGML_STATUS_SUCCESS;
		sleep_ms(2);
		if (i == 600) {
			lim.rlim_cur = RLIM_INFINITY;
			failed += setrlimit(RLIMIT_FSIZE, &lim) != 0;
		}
	}
	ggmlviz_ggml_untrace_sched(mr.sched);
	rc = ggmlviz_stop();
	ck_assert_int_eq(failed, 0);
	ck_assert(rc == 0 || rc == -EFBIG);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", NULL), 0);
	gu_read(&tr, path);
	check_end_counts(path);
	ck_assert_uint_gt(metas_of(&tr, GGMLVIZ_META_DROPPED), 0); /* the disk did fill */
	sum_up(&tr, &w);
	ck_assert_uint_gt(tr.n_sums, 0);
	for (unsigned k = 0; k < 256; k++) /* no more steps than the graphs the file holds, less the first */
		ck_assert_uint_lt(w.steps[k], tr.n_graphs);
	gu_free(&tr);
	unlink(path);
	model_free(&mr);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("flight");
	TCase *tc = tcase_create("flight");

	tcase_add_test(tc, test_slow_request_snapshot_has_every_op);
	tcase_add_test(tc, test_fast_request_no_snapshot);
	tcase_add_test(tc, test_ask_answered_one_a_window);
	tcase_add_test(tc, test_newest_kept);
	tcase_add_test(tc, test_memory_bound);
	tcase_add_test(tc, test_every_op_mode);
	tcase_add_test(tc, test_snapshot_refused_by_the_disk);
	tcase_add_test(tc, test_op_windows_written_at_the_stop);
	tcase_add_test(tc, test_op_windows_written_as_they_fall_due);
	tcase_add_test(tc, test_op_windows_through_a_full_disk);
	tcase_set_timeout(tc, GU_TIMEOUT_S);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	/* GGML looks for its CPU backend beside the executable only */
	ggml_backend_load_all_from_path(GGMLVIZ_GGML_LIBDIR);
	return run_suite(make_suite());
}
