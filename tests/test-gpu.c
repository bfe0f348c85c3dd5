/*
 * GPU op times without a GPU: the real node engine, kernel sink and
 * reader, with the test in CUPTI's place (gpu-sim.c). The node engine
 * records GPU runs (each with a run id, its nodes at its end); the sink
 * gets what CUPTI's glue would give it (the runs of the launches, kernels
 * with real ggml-cuda names on a GPU clock of its own, clock points); the
 * reader ties kernels to nodes:
 *   - each op timed by its kernels, on the trace's clock, inside its step;
 *   - a fused norm, kernels before their launches' runs were known, a
 *     kernel no op launches, a kernel of no run: each said, none lost.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "check-compat.h"
#include "gpu-sim.h"
#include "trace-util.h"
#include "tracer/base/base.h"
#include "tracer/gpu/gpu.h"

#define STEPS 4 /* the last one's kernels come before the runs of their launches */
#define KERNELS 6

static const struct gs_node layer[] = {
	{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 2, "MUL", "attn_norm-0 (w)", 0 },
	{ 3, "MUL_MAT", "Qcur-0", 0 },       { 3, "MUL_MAT", "Kcur-0", 0 },
	{ 4, "ROPE", "Qcur-0 (rope)", 0 },
};

static const struct gs_kernel kernels[KERNELS] = {
	{ GS_RMS_NORM_FUSED, 1000 }, { GS_QUANTIZE, 1000 }, { GS_MMVQ, 1000 },
	{ GS_QUANTIZE, 1000 },       { GS_MMVQ, 1000 },     { GS_ROPE, 1000 },
};

static char gpu_backend; /* its address names it */
static struct gs_ran ran[STEPS][KERNELS];

struct seen {
	size_t ops, kernels, tied, untied, fused, times_ok, inside_steps;
	uint64_t begin[STEPS][KERNELS], end[STEPS][KERNELS]; /* each launch's kernel, as read */
};

static void check_op(const struct ggmlviz_timing *t, struct seen *s,
		     const struct ggmlviz_timing *steps)
{
	s->ops++;
	ck_assert_int_eq(t->method, GGMLVIZ_OP_METHOD_GPU);
	ck_assert_uint_gt(t->n_kernels, 0);
	/*
	 * 1 us each on the GPU; both ends converted to the trace's clock, at
	 * a rate measured over at most the test's short life (a loaded
	 * machine read 1003 ns): within 1%, and the rounding of both ends
	 */
	ck_assert_uint_ge(t->gpu_ns, 1000u * t->n_kernels - 12u * t->n_kernels);
	ck_assert_uint_le(t->gpu_ns, 1000u * t->n_kernels + 12u * t->n_kernels);
	ck_assert_uint_eq(t->thread_id, GGMLVIZ_GPU_TRACK(0, 7)); /* where its time was spent */
	ck_assert_uint_eq(t->depth, 0); /* the host's step and run do not enclose it there */
	s->fused += (t->node_flags & GGMLVIZ_NODE_FUSED) ? 1u : 0u;
	if (t->node_flags & GGMLVIZ_NODE_FUSED)
		ck_assert_uint_eq(t->op_type, 0x80000000u | 1u | 2u << 16); /* RMS_NORM+MUL */
	ck_assert_uint_ge(t->step_seq, 1);
	/*
	 * GPU times reach the trace's clock through CLOCK_MONOTONIC, the
	 * host's records through the writer's calibration of the time-stamp
	 * counter against it: the two agree to a few microseconds
	 */
	s->inside_steps += t->begin_ns + 5000 >= steps[t->step_seq - 1].begin_ns ? 1u : 0u;
}

static void check_kernel(const struct ggmlviz_timing *t, struct seen *s)
{
	uint64_t offset = ggmlviz__state.clock_offset; /* the trace's clock: monotonic + offset */

	s->kernels++;
	ck_assert_uint_eq(t->thread_id, GGMLVIZ_GPU_TRACK(0, 7));
	ck_assert_uint_eq(t->depth, t->ptr ? 1 : 0); /* inside its op, if it has one */
	if (!t->ptr) {
		s->untied++;
		return;
	}
	s->tied++;
	ck_assert_uint_ge(t->step_seq, 1);
	size_t step = t->step_seq - 1, best = KERNELS;
	int64_t best_d = 50000; /* on the trace's clock within 50 us of where the GPU ran it */

	for (size_t k = 0; k < KERNELS; k++) {
		const struct gs_ran *e = &ran[step][k];
		int64_t d = (int64_t)(t->begin_ns - (e->trace_ns + offset));

		d = d < 0 ? -d : d;
		if (t->label_len == strlen(e->name) && !memcmp(t->label, e->name, t->label_len) &&
		    d < best_d)
			best = k, best_d = d;
	}
	if (best == KERNELS)
		return;
	s->times_ok++;
	s->begin[step][best] = t->begin_ns;
	s->end[step][best] = t->begin_ns + t->duration_ns;
}

/* Kernels back to back on the GPU are back to back in the trace: no rounding overlaps them. */
static void check_back_to_back(const struct seen *s)
{
	for (size_t i = 0; i < STEPS; i++)
		for (size_t k = 1; k < KERNELS; k++) {
			ck_assert_uint_ge(s->begin[i][k], s->end[i][k - 1]);
			ck_assert_uint_le(s->begin[i][k], s->end[i][k - 1] + 2);
		}
}

/* tu_each: META GPU's label, the session's word on kernels, counted where it says the stand-in's. */
static int gpu_note(const struct ggmlviz_event *ev, void *arg)
{
	static const char said[] = "recorded through the tests' stand-in for CUPTI";

	if (ev->type == GGMLVIZ_EVENT_META && ev->data.meta.kind == GGMLVIZ_META_GPU)
		*(int *)arg += ev->label_len >= sizeof said - 1 && !memcmp(ev->label, said, sizeof said - 1);
	return 0;
}

START_TEST(gpu_runs_tied_to_their_kernels)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t, steps[STEPS];
	struct ggmlviz_pairing_counts c;
	struct seen s = { 0 };
	char path[256];
	size_t n_steps = 0;
	uint64_t last_run = 0;
	int rc, notes = 0;

	tu_path(path, sizeof path, "gpu");
	tu_config(&cfg, path);
	cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_AT_START; /* no backend is named here */
	gs_install(); /* no CUPTI: the test stands in for it */
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	for (int i = 0; i < STEPS; i++) {
		ggmlviz_step_begin(&gpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
		last_run = gs_run(layer, sizeof layer / sizeof layer[0], &gpu_backend, kernels,
				  KERNELS, i == STEPS - 1, ran[i]);
		ck_assert_uint_gt(last_run, 0); /* the run's launches are tagged */
		ggmlviz_step_end(&gpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	}
	/* a kernel no op launches, in the last run; a kernel of no run at all */
	gs_correlate(9001, last_run);
	gs_kernel_now("_Z15my_custom_kernelPf", 9001);
	gs_kernel_now(GS_MMVQ, 9002);
	ck_assert_int_eq(ggmlviz_stop(), 0); /* the kernels still buffered recorded */
	gs_remove();

	ck_assert_int_eq(tu_each(path, gpu_note, &notes), 0);
	ck_assert_int_eq(notes, 2); /* the profiler's word at the start, and its figures at the end */
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		if (t.kind == GGMLVIZ_TIMING_STEP)
			steps[n_steps++] = t;
		else if (t.kind == GGMLVIZ_TIMING_OP)
			check_op(&t, &s, steps);
		else if (t.kind == GGMLVIZ_TIMING_KERNEL)
			check_kernel(&t, &s);
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_pairing_counts(r, &c);
	ggmlviz_reader_close(r);
	unlink(path);
	ck_assert_uint_eq(n_steps, STEPS);
	/* per step: RMS_NORM (MUL fused into it), two MUL_MATs, ROPE */
	ck_assert_uint_eq(s.ops, 4 * STEPS);
	ck_assert_uint_eq(s.fused, STEPS);
	ck_assert_uint_eq(s.inside_steps, s.ops);
	ck_assert_uint_eq(s.kernels, KERNELS * STEPS + 2);
	ck_assert_uint_eq(s.tied, KERNELS * STEPS);
	ck_assert_uint_eq(s.times_ok, KERNELS * STEPS); /* each on the trace's clock, within 50 us */
	check_back_to_back(&s);
	ck_assert_uint_eq(s.untied, 2);
	ck_assert_uint_eq(c.kernels_untied, 2);
	ck_assert_uint_eq(c.gpu_nodes_untimed, 0);
}
END_TEST

/* tu_each: KERNEL records that begin before the one before them ended (CUPTI's starts, kept). */
static int overlapping_records(const struct ggmlviz_event *ev, void *arg)
{
	static uint64_t end;
	size_t *n = arg;

	if (ev->type != GGMLVIZ_EVENT_KERNEL)
		return 0;
	*n += ev->timestamp_ns < end;
	end = ev->timestamp_ns + ev->data.kernel.duration_ns;
	return 0;
}

/*
 * Kernels launched with programmatic dependent launch (ggml-cuda on
 * Hopper, back to back in a CUDA graph) start 400 ns before the kernel
 * before them on the stream ends, and CUPTI's records of them are 400 ns
 * longer. Each is timed from the end of the one before it: its op holds
 * only its own 1 us, the ops follow one another without overlapping (their
 * times add up to the GPU's busy time), and the KERNEL records keep
 * CUPTI's starts. Without it every op but the first is 400 ns a kernel
 * longer and overlaps the op before.
 */
START_TEST(gpu_kernels_overlapping_timed_after_the_one_before)
{
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	uint64_t op_end = 0, kernel_end = 0;
	size_t ops = 0, timed = 0, raw_overlaps = 0;
	char path[256];
	int rc;

	tu_path(path, sizeof path, "gpu-pdl");
	tu_config(&cfg, path);
	cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_AT_START;
	gs_install();
	gs_pdl_ns = 400;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_step_begin(&gpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, "decode");
	gs_run(layer, sizeof layer / sizeof layer[0], &gpu_backend, kernels, KERNELS, 0, NULL);
	ggmlviz_step_end(&gpu_backend, 1, 1, GGMLVIZ_PHASE_GENERATION, 0, "decode");
	ck_assert_int_eq(ggmlviz_stop(), 0);
	gs_pdl_ns = 0;
	gs_remove();

	ck_assert_int_eq(tu_each(path, overlapping_records, &raw_overlaps), 0);
	ck_assert_uint_eq(raw_overlaps, KERNELS - 1);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		if (t.kind == GGMLVIZ_TIMING_OP && t.method == GGMLVIZ_OP_METHOD_GPU) {
			ops++;
			ck_assert_uint_ge(t.begin_ns, op_end);
			ck_assert_uint_le(t.gpu_ns, 1000u * t.n_kernels + 12u * t.n_kernels);
			ck_assert_uint_le(t.duration_ns, 1000u * t.n_kernels + 12u * t.n_kernels);
			op_end = t.end_ns;
		} else if (t.kind == GGMLVIZ_TIMING_KERNEL && t.ptr) {
			timed++;
			ck_assert_uint_ge(t.begin_ns, kernel_end);
			ck_assert_uint_le(t.duration_ns, 1012u);
			kernel_end = t.end_ns;
		}
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(r);
	unlink(path);
	ck_assert_uint_eq(ops, 4);
	ck_assert_uint_eq(timed, KERNELS);
}
END_TEST

/* tu_each: META GPU's value and label, copied. */
struct note {
	int seen;
	uint64_t value;
	char label[320];
};

static int copy_note(const struct ggmlviz_event *ev, void *arg)
{
	struct note *n = arg;

	if (ev->type != GGMLVIZ_EVENT_META || ev->data.meta.kind != GGMLVIZ_META_GPU)
		return 0;
	n->seen++;
	n->value = ev->data.meta.value;
	snprintf(n->label, sizeof n->label, "%.*s", (int)ev->label_len, ev->label ? ev->label : "");
	return 0;
}

/*
 * CUPTI that cannot be had: a path that does not exist, or no NVIDIA GPU
 * to reach. Tracing goes on, and the trace says why there are no kernels.
 */
START_TEST(gpu_kernels_said_why_not)
{
	struct ggmlviz_config cfg;
	struct note n = { 0 };
	char path[256];

	tu_path(path, sizeof path, "gpu-why");
	for (int at_start = 1; at_start >= 0; at_start--) {
		memset(&n, 0, sizeof n);
		tu_config(&cfg, path);
		cfg.cupti_path = "/nonexistent/libcupti.so";
		cfg.gpu_kernels = at_start ? GGMLVIZ_GPU_KERNELS_AT_START : GGMLVIZ_GPU_KERNELS_CUDA;
		ck_assert_int_eq(ggmlviz_start(&cfg), 0);
		/* by default CUPTI is loaded when a CUDA backend is first named */
		ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, 0xc0da, "CUDA0");
		ck_assert_int_eq(ggmlviz_stop(), 0);
		ck_assert_int_eq(tu_each(path, copy_note, &n), 0);
		ck_assert_int_eq(n.seen, HAVE_CUPTI && !at_start ? 2 : 1);
		ck_assert_uint_eq(n.value, 0);
		if (HAVE_CUPTI)
			ck_assert_msg(strstr(n.label, "/nonexistent/libcupti.so could not be loaded"),
				      "%s", n.label);
		else
			ck_assert_msg(strstr(n.label, "built without CUPTI's headers"), "%s", n.label);
	}
	if (HAVE_CUPTI && access("/dev/nvidiactl", F_OK) != 0 && access("/dev/dxg", F_OK) != 0) {
		memset(&n, 0, sizeof n);
		tu_config(&cfg, path);
		ck_assert_int_eq(ggmlviz_start(&cfg), 0);
		ck_assert_int_eq(ggmlviz_stop(), 0);
		ck_assert_int_eq(tu_each(path, copy_note, &n), 0);
		ck_assert_msg(strstr(n.label, "not recorded: no NVIDIA GPU here"), "%s", n.label);
	}
	unlink(path);
}
END_TEST

/*
 * A backend that times its nodes itself (Vulkan's timestamp queries,
 * ggmlviz_nodes_gpu_time()): each computing node's op at that time, one
 * given no time fused into the op before it; no kernels, no CUPTI.
 */
START_TEST(gpu_backend_own_times)
{
	static const struct gs_node run[] = {
		{ 1, "RMS_NORM", "attn_norm-0", 0 }, { 3, "MUL_MAT", "Qcur-0", 0 },
		{ 4, "ROPE", "Qcur-0 (rope)", 0 },   { 5, "ADD", "ffn_inp-0", 0 },
	};
	struct ggmlviz_config cfg;
	struct ggmlviz_reader *r;
	struct ggmlviz_timing t;
	char path[256];
	size_t ops = 0, fused = 0;
	uint64_t d[4] = { 0 };
	int rc;

	tu_config_cpu(&cfg, path, sizeof path, "gpu-own");
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&run[0], 10, 5), -ENOENT); /* no run yet */
	for (size_t i = 0; i < 4; i++)
		ck_assert_int_eq(ggmlviz_nodes_ask(&run[i], &gpu_backend, gs_describe, NULL), 0);
	/* as the backend reads its queries once the graph is done: back to back, 90 us in all */
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&run[0], 90000, 80000), 0);
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&run[1], 80000, 30000), 0); /* with ROPE fused */
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&run[3], 30000, 0), 0);
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&layer[0], 10, 5), -ENOENT); /* not of this run */
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(&run[3], 5, 10), -EINVAL);
	ck_assert_int_eq(ggmlviz_nodes_gpu_time(NULL, 10, 5), -EINVAL);
	ck_assert_int_eq(ggmlviz_nodes_flush(), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_reader_open(path, &r), 0);
	while ((rc = ggmlviz_reader_next_timing(r, &t)) == 1) {
		if (t.kind != GGMLVIZ_TIMING_OP)
			continue;
		ck_assert_int_eq(t.method, GGMLVIZ_OP_METHOD_GPU);
		d[ops++] = t.duration_ns;
		if (t.node_flags & GGMLVIZ_NODE_FUSED) {
			fused++;
			ck_assert_uint_eq(t.op_type, 0x80000000u | 3u | 4u << 16); /* MUL_MAT+ROPE */
		}
	}
	ck_assert_int_eq(rc, 0);
	ggmlviz_reader_close(r);
	unlink(path);
	ck_assert_uint_eq(ops, 3);
	ck_assert_uint_eq(fused, 1);
	/* the trace's clock converts the stamps: within 1% and a rounding */
	ck_assert_uint_ge(d[0], 9890);
	ck_assert_uint_le(d[0], 10110);
	ck_assert_uint_ge(d[1], 49490);
	ck_assert_uint_le(d[1], 50510);
	ck_assert_uint_ge(d[2], 29690);
	ck_assert_uint_le(d[2], 30310);
}
END_TEST

/*
 * A step of CUPTI's clock (CLOCK_REALTIME: NTP stepping it, a VM resumed)
 * against the trace's: every kernel keeps its GPU duration to the ns, the
 * minute after the step as before it, and one that ran before the step
 * but is converted after it lands where it ran. Points every 100 ms, as
 * the flush thread takes them; a second forward, then an hour back.
 */
static void clock_steps_by(int64_t step_ns)
{
	const uint64_t epoch = 1800000000000000000ull, off = 5000000000ull, ms = 1000000;
	uint64_t gpu = epoch, trace = epoch - off, before;
	struct ggmlviz__gpu_counts c;

	ggmlviz__gpu_sink_reset();
	for (int i = 0; i < 50; i++, gpu += 100 * ms, trace += 100 * ms)
		ggmlviz__gpu_clock_point(gpu, trace);
	before = gpu - 50 * ms; /* a kernel that ran before the step */
	gpu += (uint64_t)step_ns; /* the GPU's clock steps; the trace's does not */
	for (int i = 0; i < 450; i++, gpu += 100 * ms, trace += 100 * ms) {
		ggmlviz__gpu_clock_point(gpu, trace);
		/* a 1 ms kernel that ran just now: 1 ms on the trace's clock, where it ran */
		ck_assert_uint_eq(ggmlviz__gpu_trace_ns(gpu + ms) - ggmlviz__gpu_trace_ns(gpu), ms);
		ck_assert_uint_eq(ggmlviz__gpu_trace_ns(gpu), trace);
		if (i < 3) /* delivered just after the step: converted by the points before it */
			ck_assert_uint_eq(ggmlviz__gpu_trace_ns(before), before - off);
	}
	ggmlviz__gpu_counts(&c);
	ck_assert_uint_eq(c.clock_steps, 1);
}

START_TEST(gpu_clock_steps_keep_kernel_times)
{
	clock_steps_by(1000000000);
	clock_steps_by(-3600000000000);
	ggmlviz__gpu_sink_reset();
}
END_TEST

/* llama-server's handler of a second interrupt: exit() at once. */
static void exit_now(int sig)
{
	(void)sig;
	exit(1);
}

static void interrupt(void)
{
	raise(SIGINT);
}

static void atexit_stop(void)
{
	ggmlviz_stop();
}

/*
 * A second interrupt while the GPU's kernels are being collected at exit
 * (the GPU's lock held by the tools' atexit stop, the session's too): the
 * signal handler's exit() runs the GPU's exit handler and the session's,
 * which must not wait for locks their own thread holds (the old library
 * hung there). The process ends at once; its trace is cut before its
 * TRACE_END, and says so (incomplete, every record whole).
 */
START_TEST(gpu_exit_from_a_signal_while_stopping_never_hangs)
{
	char path[256];
	struct tu_summary s;
	int status = 0;
	pid_t pid;

	tu_path(path, sizeof path, "gpu-second-interrupt");
	pid = fork();
	if (pid == 0) {
		struct ggmlviz_config cfg;

		tu_config(&cfg, path);
		cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_AT_START;
		gs_install();
		gs_on_stop = interrupt;
		signal(SIGINT, exit_now);
		if (ggmlviz_start(&cfg) != 0)
			_exit(7);
		atexit(atexit_stop);
		for (int i = 0; i < 100; i++)
			ggmlviz_mark("served", (uint64_t)i);
		exit(0);
	}
	for (int i = 0; i < 2000 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(pid, &status, WNOHANG) == 0) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
		ck_abort_msg("the process hung at exit (killed after 20 s)");
	}
	ck_assert(WIFEXITED(status));
	ck_assert_int_eq(WEXITSTATUS(status), 1);
	ck_assert_int_eq(tu_summarize(path, &s), 0);
	ck_assert_int_eq(s.end_rc, 0);          /* every record whole */
	ck_assert_int_eq(s.trace_end_last, 0);  /* no TRACE_END: incomplete, as validate says */
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("GPU op times without a GPU");
	TCase *c = tcase_create("gpu");

	tcase_add_test(c, gpu_runs_tied_to_their_kernels);
	tcase_add_test(c, gpu_kernels_overlapping_timed_after_the_one_before);
	tcase_add_test(c, gpu_kernels_said_why_not);
	tcase_add_test(c, gpu_backend_own_times);
	tcase_add_test(c, gpu_clock_steps_keep_kernel_times);
	tcase_add_test(c, gpu_exit_from_a_signal_while_stopping_never_hangs);
	suite_add_tcase(s, c);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
