/*
 * The CUPTI client (lib/tracer/gpu/cupti*.c) without a GPU: libggmlviz
 * loads the tests' stand-in libcupti (cupti-standin.h) through
 * GGML_VIZ_CUPTI, as it loads the real one, and this program plays a GPU
 * backend: it names a "CUDA0" backend, asks for its nodes as GGML's
 * scheduler does, and launches kernels, graphs, copies and sets through
 * the stand-in inside each run. The stand-in logs every GPU record it
 * delivers; each test compares the trace with that log.
 *
 * Each scenario runs in a child process of its own (a fresh stand-in, and
 * exit handlers that run), which reports through its exit status; the
 * checks of the trace run in the parent. One test per way the client
 * could fail on first contact with a GPU:
 *   kernel times exact to the ns (CUPTI's timestamps are ~1.8e18 ns),
 *   nothing at the clock's origin, every kernel tied to its run, copies
 *   tied to their nodes; API records asked for as CUPTI 13 makes them;
 *   kernels in the trace without a stop; correlation
 *   records in other buffers than their kernels, delivered later, by two
 *   threads at once; a CUPTI that cannot take a NULL buffer, and one that
 *   can; incomplete records at the end; another profiler, a refusal, a
 *   driver older than CUPTI, another major version, in words; a clean
 *   detach and a second session; an exit without ggmlviz_stop(); a CPU
 *   program, which never loads CUPTI.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cupti.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "cupti-standin.h"
#include "tracer/gpu/gpu.h"
#include "gpu-sim.h"
#include "trace-util.h"

#define MAX_LOGGED 8192

static char standin[512], driver[512], trace[256], logfile[256];
static char cuda0, cpu; /* their addresses name the backends */
static const char *scenario = ""; /* what the child runs, for its messages */

/* ---- the child: a GPU program ---- */

static struct {
	cupti_standin_launch_fn launch;
	cupti_standin_graph_fn graph;
	cupti_standin_copy_fn copy;
	cupti_standin_sync_fn sync;
	cupti_standin_counts_fn counts;
} gpu;

/* A failed expectation in the child: said, and the child's status says it. */
static void expect(int ok, const char *fmt, ...)
{
	va_list ap;

	if (ok)
		return;
	va_start(ap, fmt);
	fprintf(stderr, "test-cupti, %s: ", scenario);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	_exit(3);
}

/* The stand-in libggmlviz loaded (from path), found as the same library: its functions. */
static void bind_to(const char *path)
{
	void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);

	expect(h != NULL, "libggmlviz did not load %s", path);
	*(void **)&gpu.launch = dlsym(h, "cupti_standin_launch");
	*(void **)&gpu.graph = dlsym(h, "cupti_standin_graph");
	*(void **)&gpu.copy = dlsym(h, "cupti_standin_copy");
	*(void **)&gpu.sync = dlsym(h, "cupti_standin_sync");
	*(void **)&gpu.counts = dlsym(h, "cupti_standin_counts");
	expect(gpu.launch && gpu.graph && gpu.copy && gpu.sync && gpu.counts, "stand-in symbols");
}

static void bind(void)
{
	bind_to(standin);
}

static const struct gs_node layer[] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 2, "MUL", "attn_norm-0 (w)", 0 },
	{ 3, "MUL_MAT", "Qcur-0", 0 },       { 4, "CPY", "k_cache_view-0 (copy of Kcur-0)", 0 },
	{ 5, "ROPE", "Qcur-0 (rope)", 0 },
};

/*
 * One GPU run: its nodes asked, its work launched, waited for (GGML's
 * scheduler synchronizes after each split while an eval callback is set),
 * and ended. Odd durations, so that a rounding shows. A graph run launches
 * its kernels as one CUDA graph.
 */
static void gpu_run(int graph)
{
	static const char *const names[] = { GS_RMS_NORM_FUSED, GS_QUANTIZE, GS_MMVQ, GS_ROPE };
	static const uint64_t ns[] = { 1337, 2001, 4999, 1503 };

	for (size_t i = 0; i < sizeof layer / sizeof layer[0]; i++)
		ggmlviz_nodes_ask(&layer[i], &cuda0, gs_describe, NULL);
	if (graph) {
		gpu.graph(names, ns, 3, 7);
	} else {
		for (size_t k = 0; k < 3; k++)
			gpu.launch(names[k], ns[k], 7);
	}
	gpu.copy(0, CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 8192, 777, 7); /* the CPY node */
	gpu.launch(names[3], ns[3], 7);
	gpu.sync();
	ggmlviz_nodes_flush();
}

/* Starts tracing to `trace` through the stand-in; CUDA0 named, as the adapter names it. */
static void start(int at_start, uint32_t buffer_kib)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, trace);
	cfg.cupti_path = standin;
	cfg.gpu_kernels = at_start ? GGMLVIZ_GPU_KERNELS_AT_START : GGMLVIZ_GPU_KERNELS_CUDA;
	cfg.gpu_buffer_kib = buffer_kib;
	expect(ggmlviz_start(&cfg) == 0, "ggmlviz_start");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
}

static void steps(int n)
{
	for (int i = 0; i < n; i++) {
		ggmlviz_step_begin(&cuda0, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
		gpu_run(i % 3 == 0);
		ggmlviz_step_end(&cuda0, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	}
}

/* Runs fn in a child with the stand-in's settings env ("NAME=value", NULL-ended); its status. */
#define in_child(fn, env) in_child_named(fn, #fn, env)
static int in_child_named(void (*fn)(void), const char *name, const char *const *env)
{
	pid_t pid;
	int status = -1;

	scenario = name;
	unlink(trace);
	unlink(logfile);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		setenv("CUPTI_STANDIN_LOG", logfile, 1);
		for (; env && *env; env++)
			putenv((char *)*env);
		fn();
		_exit(0);
	}
	ck_assert_int_gt(pid, 0);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

/* The child's status says it ran to its end. */
#define CHILD_OK(call) child_ok(call)
static void child_ok(int status)
{
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s: the child %s %d (see its messages above)", scenario,
		      WIFSIGNALED(status) ? "died of signal" : "exited with",
		      WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
}

/* ---- the parent: the trace against the stand-in's log ---- */

struct gpu_rec {
	char what;
	uint32_t corr, stream;
	uint64_t ext, start, end, run;
	int complete;
	char name[160];
};

struct seen {
	struct gpu_rec k[MAX_LOGGED];
	size_t n;
	uint64_t at_origin;      /* KERNEL records before 2001: at the clock's origin */
	uint64_t gpu_notes, figures_kernels, figures_left_out;
	char note[2048];         /* the last META GPU's label */
	uint64_t note_value;
};

static int read_log(struct gpu_rec *out, size_t max, size_t *dropped)
{
	FILE *f = fopen(logfile, "r");
	char line[512];
	size_t n = 0;

	*dropped = 0;
	if (!f)
		return 0;
	while (fgets(line, sizeof line, f)) {
		struct gpu_rec r = { 0 };
		unsigned long long ext, start, end;
		size_t d;

		if (sscanf(line, "D %zu", &d) == 1) {
			*dropped += d;
			continue;
		}
		if (n < max && sscanf(line, "%c %u %llu %llu %llu %u %d %159s", &r.what, &r.corr, &ext,
				      &start, &end, &r.stream, &r.complete, r.name) == 8) {
			r.ext = ext, r.start = start, r.end = end;
			out[n++] = r;
		}
	}
	fclose(f);
	return (int)n;
}

static int on_event(const struct ggmlviz_event *ev, void *arg)
{
	struct seen *s = arg;

	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_GPU) {
		s->gpu_notes++;
		s->note_value = ev->data.meta.value;
		s->figures_kernels = ev->data.meta.key;
		s->figures_left_out = ev->data.meta.value2;
		snprintf(s->note, sizeof s->note, "%.*s", (int)ev->label_len,
			 ev->label ? ev->label : "");
	}
	if (ev->type != GGMLVIZ_EVENT_KERNEL || s->n == MAX_LOGGED)
		return 0;
	s->at_origin += ev->timestamp_ns < 978307200000000000ull; /* 2001-01-01 */
	s->k[s->n++] = (struct gpu_rec){ 'K', ev->data.kernel.correlation, ev->data.kernel.stream,
					 0, ev->timestamp_ns,
					 ev->timestamp_ns + ev->data.kernel.duration_ns,
					 ev->data.kernel.run_id, 1, "" };
	snprintf(s->k[s->n - 1].name, sizeof s->k[0].name, "%.*s", (int)ev->label_len,
		 ev->label ? ev->label : "");
	return 0;
}

static int by_launch(const void *a, const void *b)
{
	const struct gpu_rec *x = a, *y = b;

	if (x->corr != y->corr)
		return x->corr < y->corr ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

static struct seen *read_trace(void)
{
	struct seen *s = calloc(1, sizeof *s);

	ck_assert_ptr_nonnull(s);
	tu_each(trace, on_event, s);
	qsort(s->k, s->n, sizeof s->k[0], by_launch);
	return s;
}

/*
 * Every complete GPU record of the log is in the trace: the same launch,
 * its duration to the ns, its start within a millisecond (the trace's
 * clock is the realtime clock as it was when tracing began), its run;
 * nothing else is, and nothing sits at the clock's origin. Returns how
 * many were compared.
 */
static size_t same_as_log(const struct seen *s, int want_runs)
{
	static struct gpu_rec logged[MAX_LOGGED];
	size_t dropped, n = (size_t)read_log(logged, MAX_LOGGED, &dropped), m = 0;

	for (size_t i = 0; i < n; i++)
		if (logged[i].complete)
			logged[m++] = logged[i];
	qsort(logged, m, sizeof logged[0], by_launch);
	ck_assert_uint_eq(s->at_origin, 0);
	ck_assert_uint_eq(s->n, m);
	for (size_t i = 0; i < m; i++) {
		const struct gpu_rec *t = &s->k[i], *l = &logged[i];
		int64_t d = (int64_t)(t->end - t->start) - (int64_t)(l->end - l->start);
		int64_t at = (int64_t)(t->start - l->start);

		ck_assert_uint_eq(t->corr, l->corr);
		ck_assert_msg(d >= -1 && d <= 1, "launch %u: %llu ns in the trace, %llu on the GPU",
			      l->corr, (unsigned long long)(t->end - t->start),
			      (unsigned long long)(l->end - l->start));
		ck_assert_msg(at > -1000000 && at < 1000000, "launch %u starts %lld ns off", l->corr,
			      (long long)at);
		if (want_runs)
			ck_assert_msg(t->run == l->ext && t->run != 0,
				      "launch %u: run %llu in the trace, launched in run %llu", l->corr,
				      (unsigned long long)t->run, (unsigned long long)l->ext);
	}
	return m;
}

/* The ops of the trace, timed by their kernels: those of each op type, and untied kernels. */
struct ops {
	size_t gpu_ops, cpy_ops, cpy_memcpy;
	uint64_t untied, untimed;
};

static struct ops read_ops(void)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	struct ggmlviz_pairing_counts c;
	struct ops o = { 0 };
	int rc;

	ck_assert_int_eq(ggmlviz_reader_open(trace, &r), 0);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		if (t.kind != GGMLVIZ_TIMING_OP || t.method != GGMLVIZ_OP_METHOD_GPU)
			continue;
		o.gpu_ops++;
		if (t.op_type == 4) {
			o.cpy_ops++;
			o.cpy_memcpy += t.n_kernels == 1 && t.gpu_ns >= 776 && t.gpu_ns <= 778;
		}
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_pairing_counts(r, &c);
	o.untied = c.kernels_untied;
	o.untimed = c.gpu_nodes_untimed;
	ggmlviz_reader_close(r);
	return o;
}

/* ---- scenarios and their checks ---- */

static void twelve_steps(void)
{
	start(0, 0);
	bind();
	steps(12);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

START_TEST(kernels_exact_tied_and_copies_timed)
{
	int status = in_child(twelve_steps, NULL);
	struct seen *s;
	struct ops o;

	CHILD_OK(status);
	s = read_trace();
	/* 12 runs of 3 kernels, a copy and a kernel */
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5);
	ck_assert_msg(strstr(s->note, "recorded through CUPTI") &&
		      strstr(s->note, "60 KERNEL records (12 memory copies and sets), 0 without "
				      "their run, 0 incomplete"), "%s", s->note);
	ck_assert_uint_eq(s->figures_kernels, 60);
	o = read_ops();
	/* RMS_NORM+MUL (fused by its kernel), MUL_MAT, CPY, ROPE, each step */
	ck_assert_uint_eq(o.gpu_ops, 12 * 4);
	ck_assert_uint_eq(o.cpy_ops, 12);
	ck_assert_uint_eq(o.cpy_memcpy, 12); /* each CPY timed by its copy */
	ck_assert_uint_eq(o.untied, 0);
	ck_assert_uint_eq(o.untimed, 0);
	free(s);
}
END_TEST

/* Twelve steps; the stand-in's API records then: the launch calls' only, not the syncs'. */
static void twelve_steps_api_records(void)
{
	struct cupti_standin_counts c;

	twelve_steps();
	gpu.counts(&c);
	/* 8 runs of 4 launches and a copy, 4 of a graph launch, a copy and a launch */
	expect(c.api_records == 8 * 5 + 4 * 3, "%llu API records for 52 launch and copy calls "
	       "(the 12 syncs not recorded)", (unsigned long long)c.api_records);
}

/*
 * The launch calls' API records, which CUPTI's correlation records come
 * with: RUNTIME whole, then narrowed. Asked for the calls alone, without
 * the kind (GGML_VIZ_CUPTI_API=calls, the client's first way), CUPTI 13.0
 * on an H200 made none: every kernel was without its run. The stand-in
 * does as that CUPTI did, and the note says what came.
 */
START_TEST(api_records_narrowed_to_the_launch_calls)
{
	static const char *const calls[] = { "GGML_VIZ_CUPTI_API=calls", NULL };
	struct seen *s;

	CHILD_OK(in_child(twelve_steps_api_records, NULL));
	s = read_trace();
	ck_assert_msg(strstr(s->note, "0 without their run") &&
		      strstr(s->note, "CUPTI's correlation: 52 API records (narrowed), 52 of them "
				      "tied to a run"), "%s", s->note);
	free(s);
	CHILD_OK(in_child(twelve_steps, calls));
	s = read_trace();
	ck_assert_msg(strstr(s->note, "60 without their run") &&
		      strstr(s->note, "CUPTI's correlation: 0 API records (calls), 0 of them"),
		      "%s", s->note);
	free(s);
}
END_TEST

/* Kernels reach the file as the program runs: read before the stop. */
static void no_stop(void)
{
	struct tu_summary sum;

	start(0, 0);
	bind();
	steps(6);
	for (int i = 0; i < 40; i++) { /* up to 2 s */
		struct timespec pause = { 0, 50000000 };
		size_t kernels = 0;

		tu_summarize(trace, &sum);
		kernels = sum.by_type[GGMLVIZ_EVENT_KERNEL];
		if (kernels == 6 * 5) {
			ggmlviz_stop();
			return;
		}
		nanosleep(&pause, NULL);
	}
	expect(0, "%llu of 30 kernels in the trace 2 s after they ran, without a stop",
	       (unsigned long long)sum.by_type[GGMLVIZ_EVENT_KERNEL]);
}

START_TEST(kernels_in_the_trace_without_a_stop)
{
	CHILD_OK(in_child(no_stop, NULL));
}
END_TEST

/* Two threads each running steps on a backend of their own ("CUDA0" both: one stream). */
static void *thread_steps(void *arg)
{
	const struct timespec token = { 0, 300000 };

	(void)arg;
	for (int i = 0; i < 40; i++) {
		steps(1);
		nanosleep(&token, NULL);
	}
	return NULL;
}

static void two_threads(void)
{
	pthread_t t[2];
	struct cupti_standin_counts c;

	start(0, 65536); /* 64 buffers: none dropped while a loaded machine delays deliveries */
	bind();
	for (int i = 0; i < 2; i++)
		expect(pthread_create(&t[i], NULL, thread_steps, NULL) == 0, "pthread_create");
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
	gpu.counts(&c);
	expect(c.per_thread == 1, "per-thread buffers are CUDA 13's default");
	expect(c.delivered > 10, "%llu buffers delivered", (unsigned long long)c.delivered);
	fprintf(stderr, "# %llu buffers delivered, %llu while another was being read\n",
		(unsigned long long)c.delivered, (unsigned long long)c.concurrent);
}

START_TEST(correlation_in_other_buffers_later)
{
	/* the device's buffers fill after 20 records: the correlations come only with a flush */
	static const char *const env[] = { "CUPTI_STANDIN_RECORDS=20", NULL };
	struct seen *s;

	CHILD_OK(in_child(two_threads, env));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 80 * 5);
	ck_assert_uint_eq(read_ops().untied, 0);
	free(s);
}
END_TEST

/* A burst of 48 kernels, queued on the GPU faster than it runs them, through 2 buffers. */
static void burst(void)
{
	start(0, 256);
	bind();
	ggmlviz_nodes_ask(&layer[2], &cuda0, gs_describe, NULL);
	for (int i = 0; i < 48; i++)
		gpu.launch(GS_MMVQ, 20011, 7);
	gpu.sync();
	ggmlviz_nodes_flush();
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

START_TEST(full_pool_on_a_cupti_that_cannot_take_null)
{
	/* CUDA 12.8's CUPTI (API 26), one buffer for everything, full after 4 records */
	static const char *const env[] = { "CUPTI_STANDIN_VERSION=26", "CUPTI_STANDIN_RECORDS=4", NULL };
	struct seen *s;

	CHILD_OK(in_child(burst, env)); /* the stand-in crashes on a NULL buffer */
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 48); /* nothing lost: buffers made beyond the pool */
	ck_assert_msg(strstr(s->note, "0 lost"), "%s", s->note);
	free(s);
}
END_TEST

START_TEST(full_pool_on_a_cupti_that_drops)
{
	static const char *const env[] = { "CUPTI_STANDIN_RECORDS=4", NULL };
	static struct gpu_rec logged[MAX_LOGGED];
	size_t dropped;
	struct seen *s;
	char lost[64];

	CHILD_OK(in_child(burst, env));
	s = read_trace();
	read_log(logged, MAX_LOGGED, &dropped);
	ck_assert_uint_gt(dropped, 0); /* CUPTI dropped records, and said how many */
	ck_assert_uint_eq(same_as_log(s, 1), 48 - dropped);
	snprintf(lost, sizeof lost, "%zu lost", dropped);
	ck_assert_msg(strstr(s->note, lost), "%s (%s)", s->note, lost);
	free(s);
}
END_TEST

/* Kernels still running or queued when tracing stops. */
static void stop_while_running(void)
{
	start(0, 0);
	bind();
	steps(3);
	ggmlviz_nodes_ask(&layer[2], &cuda0, gs_describe, NULL);
	gpu.launch(GS_MMVQ, 3000000000ull, 7); /* 3 s: running at the stop */
	gpu.launch(GS_MMVQ, 1000, 7);           /* queued behind it */
	ggmlviz_nodes_flush();
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

START_TEST(incomplete_records_left_out)
{
	struct seen *s;

	CHILD_OK(in_child(stop_while_running, NULL));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 3 * 5); /* the two incomplete are not */
	ck_assert_uint_eq(s->figures_left_out, 2);
	ck_assert_msg(strstr(s->note, "2 incomplete records left out"), "%s", s->note);
	free(s);
}
END_TEST

/* A session that gets no kernels: its trace says why, and the program runs on. */
static void refused(void)
{
	void *cuda = getenv("WITH_DRIVER") ? dlopen(driver, RTLD_NOW | RTLD_GLOBAL) : NULL;

	expect(!getenv("WITH_DRIVER") || cuda, "%s: %s", driver, dlerror());
	start(0, 0);
	ggmlviz_step_begin(&cuda0, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	ggmlviz_nodes_ask(&layer[0], &cuda0, gs_describe, NULL);
	ggmlviz_nodes_flush();
	ggmlviz_step_end(&cuda0, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

static void refused_with(const char *const *env, const char *said)
{
	struct tu_summary sum;
	struct seen *s;

	CHILD_OK(in_child(refused, env));
	s = read_trace();
	ck_assert_uint_eq(s->note_value, 0);
	ck_assert_msg(strstr(s->note, said), "META GPU says \"%s\", not \"%s\"", s->note, said);
	ck_assert_int_eq(tu_summarize(trace, &sum), 0);
	ck_assert_uint_eq(sum.by_type[GGMLVIZ_EVENT_STEP_END], 1); /* traced all the same */
	free(s);
}

START_TEST(refusals_said_in_words)
{
	static const char *const holder[] = { "CUPTI_STANDIN_HOLDER=Nsight Systems", NULL };
	static const char *const no_driver[] = { "CUPTI_STANDIN_REFUSE=999", NULL };
	static const char *const old_driver[] = { "CUPTI_STANDIN_REFUSE=999", "WITH_DRIVER=1",
						  "CUDA_STANDIN_DRIVER=12040", NULL };
	static const char *const next_major[] = { "CUPTI_STANDIN_VERSION=140000", NULL };
	static const char *const too_old[] = { "CUPTI_STANDIN_VERSION=17", NULL };

	refused_with(holder, "another profiler holds CUPTI (Nsight Systems)");
	refused_with(no_driver, "CUPTI refused to subscribe (CUPTI_ERROR_UNKNOWN): no NVIDIA "
				"driver is loaded in this process");
	refused_with(old_driver, "the NVIDIA driver supports CUDA 12.4, older than this CUPTI's "
				 "CUDA 13.0");
	refused_with(next_major, "has CUPTI API version 140000 (CUDA 14)");
	refused_with(too_old, "has CUPTI API version 17 (CUDA 0)");
}
END_TEST

/* Two sessions in one process: the first detaches, the second records again. */
static void two_sessions(void)
{
	struct cupti_standin_counts c;

	start(0, 0);
	bind();
	steps(3);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
	gpu.counts(&c);
	expect(!c.subscribers && !c.kinds_enabled && !c.api_cbids_enabled,
	       "after the stop: %u subscribers, %u kinds and %u API calls enabled", c.subscribers,
	       c.kinds_enabled, c.api_cbids_enabled);
	/* the empty buffer CUPTI took ahead is still its own: never handed out twice */
	expect(c.buffers_held == 1, "%u buffers held after the stop", c.buffers_held);
	start(0, 0);
	steps(3);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

START_TEST(detached_at_stop_and_a_second_session)
{
	struct seen *s;

	CHILD_OK(in_child(two_sessions, NULL));
	s = read_trace(); /* the second session's trace */
	ck_assert_uint_eq(s->n, 3 * 5);
	for (size_t i = 0; i < s->n; i++)
		ck_assert_uint_ne(s->k[i].run, 0);
	free(s);
}
END_TEST

/* A program that exits with tracing on: CUPTI's exit handlers run too. */
static void exit_traced(void)
{
	start(0, 0);
	bind();
	steps(6);
	exit(0);
}

START_TEST(exit_without_stop)
{
	struct tu_summary sum;
	struct seen *s;

	CHILD_OK(in_child(exit_traced, NULL)); /* the stand-in aborts if used after its teardown */
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 6 * 5);
	ck_assert_msg(strstr(s->note, "30 KERNEL records"), "%s", s->note);
	ck_assert_int_eq(tu_summarize(trace, &sum), 0); /* ended as a stopped trace ends */
	free(s);
}
END_TEST

/* A program that runs no CUDA backend: CUPTI is never loaded. */
static void cpu_only(void)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, trace);
	cfg.cupti_path = standin;
	expect(ggmlviz_start(&cfg) == 0, "ggmlviz_start");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cpu, "CPU");
	for (int i = 0; i < 4; i++) {
		ggmlviz_nodes_ask(&layer[0], &cpu, gs_describe, NULL);
		ggmlviz_nodes_tick();
		ggmlviz_nodes_flush();
	}
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
	expect(dlopen(standin, RTLD_NOW | RTLD_NOLOAD) == NULL, "CUPTI was loaded");
}

START_TEST(cpu_program_never_loads_cupti)
{
	struct seen *s;

	CHILD_OK(in_child(cpu_only, NULL));
	s = read_trace();
	ck_assert_uint_eq(s->gpu_notes, 1);
	ck_assert_msg(strstr(s->note, "recorded from the first CUDA split on"), "%s", s->note);
	free(s);
}
END_TEST

/* ---- sampled windows (GGML_VIZ_GPU_SAMPLE): CUPTI detached between them ---- */

#define WINDOW_UNITS 19 /* the 20th would ask for a fifth window before the stop */
#define WINDOW_GAP_NS 100000000L /* between units (settle_window() waits for CUPTI's thread) */

/* The units' states, 2 of every 5 sampled after a warm-up: W I I O O, four times (the last cut). */
static const uint8_t window_pattern[5] = { GGMLVIZ_GPU_WINDOW_WARMUP, GGMLVIZ_GPU_WINDOW_IN,
					   GGMLVIZ_GPU_WINDOW_IN, GGMLVIZ_GPU_WINDOW_OUT,
					   GGMLVIZ_GPU_WINDOW_OUT };

static void start_windows(void)
{
	struct ggmlviz_config cfg;

	tu_config(&cfg, trace);
	cfg.cupti_path = standin;
	cfg.gpu_sample_k = 2, cfg.gpu_sample_n = 5;
	expect(ggmlviz_start(&cfg) == 0, "ggmlviz_start");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
	bind();
}

/* After the units: what CUPTI went through, from the stand-in's counts. */
static void windows_done(uint32_t attaches, uint32_t finalized)
{
	struct cupti_standin_counts c;

	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
	gpu.counts(&c);
	expect(c.initializations == attaches && c.finalized == finalized,
	       "CUPTI attached %u times and detached %u (want %u and %u): a call while detached "
	       "attaches it again", c.initializations, c.finalized, attaches, finalized);
	expect(!c.kinds_enabled && !c.subscribers && !c.api_cbids_enabled,
	       "after the stop: %u kinds, %u subscribers, %u API calls enabled", c.kinds_enabled,
	       c.subscribers, c.api_cbids_enabled);
}

/*
 * After unit u (from 1): what its end asked of CUPTI's thread is done, the
 * detach after a window's last sampled unit (u = 3, 8, ...), the attach n
 * units after the last one (u = 5, 10, ...), however long it takes. The
 * gap between units used to be all the time it had: on one CPU beside two
 * busy loops, a detach not done when the next unit (outside the window,
 * so untagged) launched left that unit's kernels recorded without their
 * run, 1 run in 10 (launch 13, unit 4's first: run 0, launched in run 0).
 */
static void settle_window(int u)
{
	const struct timespec poll = { 0, 1000000 };
	struct ggmlviz__gpu_window_counts c;
	uint64_t cycle = (uint64_t)(u - 1) / 5;

	for (;;) {
		ggmlviz__gpu_window_counts(&c);
		if (c.ended || (u % 5 != 3 && u % 5 != 0) ||
		    (u % 5 == 3 && c.detaches + c.kinds_off > cycle) ||
		    (u % 5 == 0 && c.windows > cycle + 1))
			return;
		nanosleep(&poll, NULL);
	}
}

static void windowed_steps_then(uint32_t attaches, uint32_t finalized)
{
	const struct timespec gap = { 0, WINDOW_GAP_NS };

	start_windows();
	for (int i = 0; i < WINDOW_UNITS; i++) {
		steps(1);
		settle_window(i + 1);
		nanosleep(&gap, NULL);
	}
	windows_done(attaches, finalized);
}

static void windowed_steps(void)
{
	windowed_steps_then(4, 4);
}

/* CUPTI_STANDIN_FINALIZE=refuse: attached once, never detached. */
static void windowed_steps_attached(void)
{
	windowed_steps_then(1, 0);
}

/* CUPTI_STANDIN_REATTACH=refuse: detached once; the refused subscription attached it again. */
static void windowed_steps_once(void)
{
	windowed_steps_then(2, 1);
}

/* A program that marks no step: its runs are the units. */
static void windowed_runs(void)
{
	const struct timespec gap = { 0, WINDOW_GAP_NS };

	start_windows();
	for (int i = 0; i < WINDOW_UNITS; i++) {
		gpu_run(i % 3 == 0);
		settle_window(i + 1);
		nanosleep(&gap, NULL);
	}
	windows_done(4, 4);
}

/* What the reader says of each unit of a windowed trace. */
struct windows_seen {
	uint8_t state[WINDOW_UNITS + 1];  /* by step (or run), from 1 */
	size_t units;
	size_t ops_by_state[4];           /* GPU ops, by their step's (or run's) state */
	size_t kernels_tied, kernels_outside;
	uint64_t tagged_runs[WINDOW_UNITS + 1];
};

static void read_windows(struct windows_seen *w, int by_runs)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	int rc;

	memset(w, 0, sizeof *w);
	ck_assert_int_eq(ggmlviz_reader_open(trace, &r), 0);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		if (!by_runs && t.kind == GGMLVIZ_TIMING_STEP && t.step_seq <= WINDOW_UNITS)
			w->state[t.step_seq] = t.gpu_window, w->units++;
		if (by_runs && t.kind == GGMLVIZ_TIMING_SPLIT && w->units < WINDOW_UNITS)
			w->tagged_runs[++w->units] = t.run_id;
		if (t.kind == GGMLVIZ_TIMING_OP && t.method == GGMLVIZ_OP_METHOD_GPU &&
		    t.gpu_window < 4)
			w->ops_by_state[t.gpu_window]++;
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(r);
}

/* The META GPU records that say CUPTI could not attach again. */
static int count_reattach_notes(const struct ggmlviz_event *ev, void *arg)
{
	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_GPU && ev->label &&
	    memmem(ev->label, ev->label_len, "CUPTI could not attach again for the next window", 48))
		++*(int *)arg;
	return 0;
}

/* The units' states in one word, for a message: "WIIOOWIIOO...". */
static const char *states_said(const struct windows_seen *w)
{
	static char out[WINDOW_UNITS + 1];

	for (int i = 1; i <= WINDOW_UNITS; i++)
		out[i - 1] = "-OWI"[w->state[i] & 3];
	return out;
}

/* The steps: 2 of every 5 sampled after a warm-up; kernels and ops of those only. */
START_TEST(windows_record_sampled_steps_only)
{
	struct windows_seen w;
	struct seen *s;

	CHILD_OK(in_child(windowed_steps, NULL));
	read_windows(&w, 0);
	ck_assert_uint_eq(w.units, WINDOW_UNITS);
	for (int i = 1; i <= WINDOW_UNITS; i++)
		ck_assert_msg(w.state[i] == window_pattern[(i - 1) % 5], "step %d: state %u, not %u "
			      "(the steps: %s)", i, w.state[i], window_pattern[(i - 1) % 5],
			      states_said(&w));
	/* 4 ops a step, in the 12 steps CUPTI was attached for, none outside */
	ck_assert_uint_eq(w.ops_by_state[GGMLVIZ_GPU_WINDOW_IN], 8 * 4);
	ck_assert_uint_eq(w.ops_by_state[GGMLVIZ_GPU_WINDOW_WARMUP], 4 * 4);
	ck_assert_uint_eq(w.ops_by_state[GGMLVIZ_GPU_WINDOW_OUT], 0);
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5); /* every kernel CUPTI gave, each of its run */
	ck_assert_msg(strstr(s->note, "in windows of 2 steps of every 5 (GGML_VIZ_GPU_SAMPLE): 4 "
				      "windows, 8 sampled, 4 warm-up, 7 outside; CUPTI detached 4 "
				      "times, kept attached with its kinds off 0 times"), "%s", s->note);
	free(s);
}
END_TEST

START_TEST(windows_count_runs_without_steps)
{
	struct windows_seen w;
	struct seen *s;

	CHILD_OK(in_child(windowed_runs, NULL));
	read_windows(&w, 1);
	ck_assert_uint_eq(w.units, WINDOW_UNITS);
	for (int i = 1; i <= WINDOW_UNITS; i++) /* tagged: the runs of a warm-up or sampled unit */
		ck_assert_msg((w.tagged_runs[i] != 0) ==
				      (window_pattern[(i - 1) % 5] != GGMLVIZ_GPU_WINDOW_OUT),
			      "run %d: id %llu", i, (unsigned long long)w.tagged_runs[i]);
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5);
	free(s);
}
END_TEST

/*
 * CUPTI's thread hands over a buffer it took out before a window's forced
 * flush, as CUPTI detaches: its kernels are in the trace all the same,
 * tied to their runs, and nothing of CUPTI is called after it detached.
 */
START_TEST(windows_take_records_handed_over_as_cupti_detaches)
{
	static const char *const env[] = { "CUPTI_STANDIN_LATE=1", NULL };
	struct seen *s;

	CHILD_OK(in_child(windowed_steps, env));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5);
	free(s);
}
END_TEST

/* A CUPTI that will not detach: kept attached, its kinds off between windows. */
START_TEST(windows_on_a_cupti_that_will_not_detach)
{
	static const char *const env[] = { "CUPTI_STANDIN_FINALIZE=refuse", NULL };
	struct windows_seen w;
	struct seen *s;

	CHILD_OK(in_child(windowed_steps_attached, env));
	read_windows(&w, 0);
	ck_assert_msg(w.ops_by_state[GGMLVIZ_GPU_WINDOW_IN] == 8 * 4, "%zu ops sampled, %zu warm-up, "
		      "%zu outside, %zu none (the steps: %s)", w.ops_by_state[GGMLVIZ_GPU_WINDOW_IN],
		      w.ops_by_state[2], w.ops_by_state[1], w.ops_by_state[0], states_said(&w));
	ck_assert_uint_eq(w.ops_by_state[GGMLVIZ_GPU_WINDOW_OUT], 0);
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5);
	ck_assert_msg(strstr(s->note, "CUPTI detached 0 times, kept attached with its kinds off 4 "
				      "times") &&
		      strstr(s->note, "CUPTI would not detach (CUPTI_ERROR_NOT_SUPPORTED): kept "
				      "attached with its kinds off between windows"), "%s", s->note);
	free(s);
}
END_TEST

/* A CUPTI that will not attach again: said, and the windows end; the program runs on. */
START_TEST(windows_end_where_cupti_will_not_attach_again)
{
	static const char *const env[] = { "CUPTI_STANDIN_REATTACH=refuse", NULL };
	struct windows_seen w;
	struct seen *s;
	int notes = 0;

	CHILD_OK(in_child(windowed_steps_once, env));
	read_windows(&w, 0);
	ck_assert_msg(w.ops_by_state[GGMLVIZ_GPU_WINDOW_IN] == 2 * 4, "%zu ops sampled (the steps: "
		      "%s)", w.ops_by_state[GGMLVIZ_GPU_WINDOW_IN], states_said(&w));
	ck_assert_uint_eq(w.ops_by_state[GGMLVIZ_GPU_WINDOW_WARMUP], 4);
	for (int i = 6; i <= WINDOW_UNITS; i++)
		ck_assert_uint_eq(w.state[i], GGMLVIZ_GPU_WINDOW_OUT);
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 3 * 5);
	ck_assert_msg(strstr(s->note, "it could not attach again, and the windows ended there"),
		      "%s", s->note);
	free(s);
	ck_assert_int_eq(tu_each(trace, count_reattach_notes, &notes), 0);
	ck_assert_int_eq(notes, 1);
}
END_TEST

/*
 * GGML_VIZ_CUPTI_GRAPHS=1: a record a CUDA graph launch (GRAPH_TRACE), its
 * first kernel's start to its last one's end, instead of its kernels: what
 * a graph takes on the GPU with no kernel recorded (bench/gpu-check.sh).
 */
START_TEST(graphs_recorded_whole)
{
	static const char *const env[] = { "GGML_VIZ_CUPTI_GRAPHS=1", NULL };
	struct seen *s;
	size_t graphs = 0;

	CHILD_OK(in_child(twelve_steps, env));
	s = read_trace();
	/* 4 graph launches and 12 copies; the launches outside graphs are not recorded */
	ck_assert_uint_eq(same_as_log(s, 1), 4 + 12);
	for (size_t i = 0; i < s->n; i++)
		if (!strcmp(s->k[i].name, "[CUDA graph]")) {
			graphs++;
			ck_assert_uint_eq(s->k[i].end - s->k[i].start, 1337 + 2001 + 4999);
		}
	ck_assert_uint_eq(graphs, 4);
	ck_assert_msg(strstr(s->note, "a record a CUDA graph launch, not its kernels"), "%s", s->note);
	free(s);
}
END_TEST

/* ---- faults a review of the client found ---- */

/* A record CUPTI calls invalid ends its buffer's reading there: counted, said. */
START_TEST(invalid_record_counted)
{
	static const char *const env[] = { "CUPTI_STANDIN_INVALID=7", NULL };
	struct seen *s;

	CHILD_OK(in_child(twelve_steps, env));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 12 * 5 - 1); /* all but the invalid one */
	ck_assert_msg(strstr(s->note, "1 buffers read up to a record CUPTI called incomplete or "
				      "invalid, the records after it lost"), "%s", s->note);
	free(s);
}
END_TEST

/* CUPTI's thread hands over a buffer as the session stops, read while it closes its log. */
static void late_buffer(void)
{
	const struct timespec tick = { 0, 10000000 };
	struct cupti_standin_counts c;

	start(0, 0);
	bind();
	steps(6);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
	/* the late buffer's reading ends (counted once its read returned): 10 s at most, a bound
	 * for a hang only, where a loaded machine under the sanitizers outran a fixed 400 ms */
	for (int i = 0; i < 1000 && (gpu.counts(&c), c.late_delivered == 0); i++)
		nanosleep(&tick, NULL);
	gpu.counts(&c);
	expect(c.late_delivered == 1, "%llu late buffers", (unsigned long long)c.late_delivered);
}

/* The GPU records of a CUPTI_LOG: K and C lines. */
static size_t raw_log_records(const char *path)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t n = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof line, f))
		n += (line[0] == 'K' || line[0] == 'C') && line[1] == ' ';
	fclose(f);
	return n;
}

/*
 * GGML_VIZ_CUPTI_LOG gets every record CUPTI gave, the late buffer's
 * whole: its file is closed once that buffer is read, never while it is
 * (before, it was closed under it: the rest of the buffer went nowhere,
 * or to a closed stream).
 */
START_TEST(late_buffer_written_whole_to_the_log)
{
	static char path[256], raw[300];
	static const char *env[3];
	static struct gpu_rec logged[MAX_LOGGED];
	size_t dropped, n;

	tu_path(path, sizeof path, "cupti-raw");
	snprintf(raw, sizeof raw, "GGML_VIZ_CUPTI_LOG=%s", path);
	env[0] = "CUPTI_STANDIN_LATE=1", env[1] = raw, env[2] = NULL;
	CHILD_OK(in_child(late_buffer, env));
	n = (size_t)read_log(logged, MAX_LOGGED, &dropped);
	ck_assert_uint_eq(n, 6 * 5);
	ck_assert_uint_eq(raw_log_records(path), n);
	unlink(path);
}
END_TEST

#if defined(__SANITIZE_ADDRESS__)
#define LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define LEAK_CHECKED 1
#endif
#endif

#ifdef LEAK_CHECKED
/*
 * LeakSanitizer's check at exit locks the whole allocator first. GCC 12's
 * AddressSanitizer does not take its allocator's locks around fork(), so
 * a child forked while another thread of the process held one of them
 * inherits that lock held by no one, and the check waits for it for
 * ever (caught with gdb in 2 runs of the program of 42: LockAllocator).
 * glibc's malloc, the plain build's, is made safe across fork(). The
 * forked child of fork_while_recording turns the check off: LeakSanitizer
 * asks this hook at its check, before it locks the allocator (its header
 * asks for a constant; the value is read only then, set before exit()).
 * Every other process of the suite keeps the check. The child's own exit
 * handlers could still meet that lock if they allocated from its size
 * class: narrower, not seen in 360 runs.
 */
static volatile sig_atomic_t leak_check_off;

int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
	return leak_check_off;
}
#endif

/* A child forked while kernels are recorded exits: it calls nothing of the parent's CUPTI. */
static void fork_while_recording(void)
{
	const struct timespec tick = { 0, 10000000 };
	int status = -1, i;
	pid_t pid;

	start(0, 0);
	bind();
	steps(3);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
#ifdef LEAK_CHECKED
		leak_check_off = 1;
#endif
		exit(0); /* the exit handlers of the tracer, and of CUPTI */
	}
	for (i = 0; i < 500 && waitpid(pid, &status, WNOHANG) == 0; i++)
		nanosleep(&tick, NULL);
	if (i == 500) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		expect(0, "the child forked while kernels were recorded hung at exit");
	}
	expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the forked child's status %d", status);
	steps(3);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

START_TEST(fork_while_kernels_are_recorded)
{
	struct seen *s;

	CHILD_OK(in_child(fork_while_recording, NULL));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 6 * 5); /* the parent goes on recording */
	free(s);
}
END_TEST

/* Copies of the stand-in under CUDA's names, each of its own version. */
static char search_dir[256], cupti13[320], cupti12[320];

static void copy_file(const char *from, const char *to)
{
	char cmd[1024];

	snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
	ck_assert_int_eq(system(cmd), 0);
}

/* Tracing with GGML_VIZ_CUPTI naming both copies, CUDA 13's first. */
static void start_searching(void)
{
	struct ggmlviz_config cfg;
	static char list[700];

	snprintf(list, sizeof list, "%s:%s", cupti13, cupti12);
	tu_config(&cfg, trace);
	cfg.cupti_path = list;
	expect(ggmlviz_start(&cfg) == 0, "ggmlviz_start");
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");
}

static void search_both(void)
{
	start_searching();
	bind_to(cupti12);
	steps(3);
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

static void search_none(void)
{
	start_searching();
	expect(ggmlviz_stop() == 0, "ggmlviz_stop");
}

/*
 * CUDA 13's CUPTI first, of a version this build does not read (a newer
 * major), then CUDA 12's: the search goes on past the first that loads,
 * and records through the second; when none can be used, the last one's
 * reason is said.
 */
START_TEST(search_goes_on_past_a_cupti_it_cannot_read)
{
	static const char *const env[] = {
		"CUPTI_STANDIN_VERSIONS=libcupti.so.13=140000,libcupti.so.12=28", NULL
	};
	static const char *const none[] = {
		"CUPTI_STANDIN_VERSIONS=libcupti.so.13=140000,libcupti.so.12=17", NULL
	};
	struct seen *s;

	tu_path(search_dir, sizeof search_dir, "cupti-search");
	ck_assert_int_eq(mkdir(search_dir, 0700), 0);
	snprintf(cupti13, sizeof cupti13, "%s/libcupti.so.13", search_dir);
	snprintf(cupti12, sizeof cupti12, "%s/libcupti.so.12", search_dir);
	copy_file(standin, cupti13);
	copy_file(standin, cupti12);
	CHILD_OK(in_child(search_both, env));
	s = read_trace();
	ck_assert_uint_eq(same_as_log(s, 1), 3 * 5);
	ck_assert_msg(strstr(s->note, "API version 28") && strstr(s->note, "libcupti.so.12"), "%s",
		      s->note);
	free(s);
	CHILD_OK(in_child(search_none, none));
	s = read_trace();
	ck_assert_msg(strstr(s->note, "libcupti.so.12 has CUPTI API version 17") &&
		      strstr(s->note, "the last of the CUPTIs tried"), "%s", s->note);
	free(s);
	unlink(cupti13), unlink(cupti12), rmdir(search_dir);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("the CUPTI client, against a stand-in libcupti");
	TCase *c = tcase_create("cupti");

	tcase_set_timeout(c, 120);
	tcase_add_test(c, kernels_exact_tied_and_copies_timed);
	tcase_add_test(c, api_records_narrowed_to_the_launch_calls);
	tcase_add_test(c, kernels_in_the_trace_without_a_stop);
	tcase_add_test(c, correlation_in_other_buffers_later);
	tcase_add_test(c, full_pool_on_a_cupti_that_cannot_take_null);
	tcase_add_test(c, full_pool_on_a_cupti_that_drops);
	tcase_add_test(c, incomplete_records_left_out);
	tcase_add_test(c, refusals_said_in_words);
	tcase_add_test(c, detached_at_stop_and_a_second_session);
	tcase_add_test(c, exit_without_stop);
	tcase_add_test(c, cpu_program_never_loads_cupti);
	tcase_add_test(c, windows_record_sampled_steps_only);
	tcase_add_test(c, windows_count_runs_without_steps);
	tcase_add_test(c, windows_take_records_handed_over_as_cupti_detaches);
	tcase_add_test(c, windows_on_a_cupti_that_will_not_detach);
	tcase_add_test(c, windows_end_where_cupti_will_not_attach_again);
	tcase_add_test(c, graphs_recorded_whole);
	tcase_add_test(c, invalid_record_counted);
	tcase_add_test(c, late_buffer_written_whole_to_the_log);
	tcase_add_test(c, fork_while_kernels_are_recorded);
	tcase_add_test(c, search_goes_on_past_a_cupti_it_cannot_read);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	const char *top = getenv("top_builddir");
	char dir[384];

	if (!getcwd(dir, sizeof dir))
		return 99;
	/* absolute: GGML_VIZ_CUPTI names a file, and the children's checks open it again */
	snprintf(standin, sizeof standin, "%s/%s/tests/libcupti-standin.so", dir, top ? top : ".");
	snprintf(driver, sizeof driver, "%s/%s/tests/standin-driver/libcuda.so.1", dir,
		 top ? top : ".");
	tu_path(trace, sizeof trace, "cupti");
	tu_path(logfile, sizeof logfile, "cupti-log");
	return run_suite(make_suite());
}
