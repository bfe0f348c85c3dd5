/*
 * GGML_VIZ_* environment variables: every variable, good values and bad
 * ones, the message a bad one gets, and what the library prints unasked.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

#include "check-compat.h"
#include "plain-util.h"
#include "trace-util.h"

static const char *const all_vars[] = {
	"GGML_VIZ_OUTPUT",	    "GGML_VIZ_DISABLE",	     "GGML_VIZ_VERBOSE",
	"GGML_VIZ_MAX_EVENTS",	    "GGML_VIZ_BUFFER_SIZE",  "GGML_VIZ_FLUSH_INTERVAL",
	"GGML_VIZ_OP_TIMING",	    "GGML_VIZ_MEMORY_TRACKING", "GGML_VIZ_THREAD_TRACKING",
	"GGML_VIZ_TENSOR_NAMES",   "GGML_VIZ_OP_SAMPLE",    "GGML_VIZ_CRASH_HANDLER",
	"GGML_VIZ_ANONYMIZE",	    "GGML_VIZ_BUFFER_MAX",   "GGML_VIZ_GPU_KERNELS",
	"GGML_VIZ_GPU_BUFFER",	    "GGML_VIZ_CUPTI",	     "GGML_VIZ_PEAK",
	"GGML_VIZ_GPU_SAMPLE",
	"GGML_VIZ_NVTX",
};

static void clear_env(void)
{
	for (size_t i = 0; i < sizeof all_vars / sizeof all_vars[0]; i++)
		unsetenv(all_vars[i]);
	tu_capture_clear();
}

static void init(struct ggmlviz_config *cfg)
{
	ggmlviz_config_init(cfg);
	cfg->log_fn = tu_capture;
}

START_TEST(defaults)
{
	struct ggmlviz_config cfg;

	clear_env();
	init(&cfg);
	ck_assert_str_eq(cfg.output, "ggmlviz-%p.ggmlviz");
	ck_assert_uint_eq(cfg.max_events, 10000000);
	ck_assert_uint_eq(cfg.buffer_events, 65536);
	ck_assert_uint_eq(cfg.buffer_events_max, 0);
	ck_assert_uint_eq(cfg.flush_interval_ms, 100);
	ck_assert_int_eq(cfg.op_timing, 1);
	ck_assert_int_eq(cfg.tensor_names, 1);
	ck_assert_int_eq(cfg.memory_tracking, 0);
	ck_assert_int_eq(cfg.thread_tracking, 0);
	ck_assert_int_eq(cfg.verbose, 0);
	ck_assert_int_eq(cfg.disable, 0);
	ck_assert_int_eq(cfg.overflow, GGMLVIZ_OVERFLOW_DROP);
	ck_assert_uint_eq(cfg.op_sample, 1);
	ck_assert_int_eq(cfg.crash_handler, 1);
	ck_assert_uint_eq(cfg.nvtx, 0);
	ck_assert_uint_eq(cfg.gpu_sample_k, 0);
	ck_assert_uint_eq(cfg.gpu_sample_n, 0);
	ck_assert_uint_eq(cfg.reserved3_u32, 0);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0); /* nothing set: nothing changes */
	ck_assert_uint_eq(cfg.buffer_events, 65536);
	ck_assert_int_eq(tu_n_messages, 0);
}
END_TEST

START_TEST(good_values)
{
	struct ggmlviz_config cfg;

	clear_env();
	setenv("GGML_VIZ_OUTPUT", "/tmp/x-%p.ggmlviz", 1);
	setenv("GGML_VIZ_DISABLE", "yes", 1);
	setenv("GGML_VIZ_VERBOSE", "TRUE", 1);
	setenv("GGML_VIZ_MAX_EVENTS", "0", 1);
	setenv("GGML_VIZ_BUFFER_SIZE", "16", 1);
	setenv("GGML_VIZ_BUFFER_MAX", "1024", 1);
	setenv("GGML_VIZ_FLUSH_INTERVAL", "60000", 1);
	setenv("GGML_VIZ_OP_TIMING", "off", 1);
	setenv("GGML_VIZ_MEMORY_TRACKING", "on", 1);
	setenv("GGML_VIZ_THREAD_TRACKING", "1", 1);
	setenv("GGML_VIZ_TENSOR_NAMES", "No", 1);
	setenv("GGML_VIZ_OP_SAMPLE", "16", 1);
	setenv("GGML_VIZ_CRASH_HANDLER", "off", 1);
	setenv("GGML_VIZ_ANONYMIZE", "yes", 1);
	setenv("GGML_VIZ_PEAK", "8", 1);
	setenv("GGML_VIZ_GPU_SAMPLE", "4/64", 1);
	setenv("GGML_VIZ_NVTX", "2", 1);
	init(&cfg);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_str_eq(cfg.output, "/tmp/x-%p.ggmlviz");
	ck_assert_int_eq(cfg.disable, 1);
	ck_assert_int_eq(cfg.verbose, 1);
	ck_assert_uint_eq(cfg.max_events, 0);
	ck_assert_uint_eq(cfg.buffer_events, 16);
	ck_assert_uint_eq(cfg.buffer_events_max, 1024);
	ck_assert_uint_eq(cfg.flush_interval_ms, 60000);
	ck_assert_int_eq(cfg.op_timing, 0);
	ck_assert_int_eq(cfg.memory_tracking, 1);
	ck_assert_int_eq(cfg.thread_tracking, 1);
	ck_assert_int_eq(cfg.tensor_names, 0);
	ck_assert_uint_eq(cfg.op_sample, 16);
	ck_assert_int_eq(cfg.crash_handler, 0);
	ck_assert_int_eq(cfg.anonymize, 1);
	ck_assert_uint_eq(cfg.peak_threads, 8);
	ck_assert_uint_eq(cfg.gpu_sample_k, 4);
	ck_assert_uint_eq(cfg.gpu_sample_n, 64);
	ck_assert_uint_eq(cfg.nvtx, 2);
	ck_assert_int_eq(tu_n_messages, 0);
	setenv("GGML_VIZ_OP_TIMING", "sync", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_int_eq(cfg.op_timing, GGMLVIZ_OP_TIMING_SYNC);
	setenv("GGML_VIZ_OP_TIMING", "Auto", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_int_eq(cfg.op_timing, GGMLVIZ_OP_TIMING_AUTO);
	setenv("GGML_VIZ_MAX_EVENTS", "18446744073709551615", 1); /* UINT64_MAX */
	setenv("GGML_VIZ_BUFFER_SIZE", "16777216", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_uint_eq(cfg.max_events, UINT64_MAX);
	ck_assert_uint_eq(cfg.buffer_events, 16777216);
}
END_TEST

/* Each bad value: -EINVAL, the member unchanged, a message naming variable, value and what is kept. */
struct bad {
	const char *var, *value, *kept;
};

static const struct bad bad_values[] = {
	{ "GGML_VIZ_MAX_EVENTS", "abc", "keeping 10000000" },
	{ "GGML_VIZ_MAX_EVENTS", "-5", "keeping 10000000" },
	{ "GGML_VIZ_MAX_EVENTS", "10x", "keeping 10000000" },
	{ "GGML_VIZ_MAX_EVENTS", "", "keeping 10000000" },
	{ "GGML_VIZ_MAX_EVENTS", " 10", "keeping 10000000" },
	{ "GGML_VIZ_MAX_EVENTS", "18446744073709551616", "keeping 10000000" },
	{ "GGML_VIZ_BUFFER_SIZE", "1000", "keeping 65536" },
	{ "GGML_VIZ_BUFFER_SIZE", "8", "keeping 65536" },
	{ "GGML_VIZ_BUFFER_SIZE", "33554432", "keeping 65536" },
	{ "GGML_VIZ_BUFFER_SIZE", "0", "keeping 65536" },
	{ "GGML_VIZ_BUFFER_SIZE", "64k", "keeping 65536" },
	{ "GGML_VIZ_BUFFER_MAX", "3000", "keeping 0" },
	{ "GGML_VIZ_BUFFER_MAX", "33554432", "keeping 0" },
	{ "GGML_VIZ_BUFFER_MAX", "1M", "keeping 0" },
	/* valid on its own, below the default ring of 65536: ggmlviz_start() would refuse it */
	{ "GGML_VIZ_BUFFER_MAX", "1024", "below the ring's size (65536 events, GGML_VIZ_BUFFER_SIZE); keeping 0" },
	{ "GGML_VIZ_FLUSH_INTERVAL", "0", "keeping 100" },
	{ "GGML_VIZ_FLUSH_INTERVAL", "60001", "keeping 100" },
	{ "GGML_VIZ_FLUSH_INTERVAL", "1.5", "keeping 100" },
	{ "GGML_VIZ_OP_TIMING", "2", "keeping auto" },
	{ "GGML_VIZ_OP_TIMING", "enabled", "keeping auto" },
	{ "GGML_VIZ_OP_TIMING", "synced", "keeping auto" },
	{ "GGML_VIZ_OP_SAMPLE", "-1", "keeping 1" },
	{ "GGML_VIZ_OP_SAMPLE", "4294967296", "keeping 1" },
	{ "GGML_VIZ_OP_SAMPLE", "1 in 8", "keeping 1" },
	{ "GGML_VIZ_OP_SLOW", "1.5", "is not a decimal number of microseconds (0 = off); keeping 0" },
	{ "GGML_VIZ_CRASH_HANDLER", "maybe", "keeping 1" },
	{ "GGML_VIZ_ANONYMIZE", "2", "keeping 0" },
	{ "GGML_VIZ_MEMORY_TRACKING", "", "keeping 0" },
	{ "GGML_VIZ_THREAD_TRACKING", "y", "keeping 0" },
	{ "GGML_VIZ_TENSOR_NAMES", "-1", "keeping 1" },
	{ "GGML_VIZ_DISABLE", "disable", "keeping 0" },
	{ "GGML_VIZ_VERBOSE", "3", "keeping 0" },
	{ "GGML_VIZ_OUTPUT", "", "keeping \"ggmlviz-%p.ggmlviz\"" },
	{ "GGML_VIZ_PEAK", "1025", "keeping 0" },
	{ "GGML_VIZ_PEAK", "all", "keeping 0" },
	{ "GGML_VIZ_GPU_SAMPLE", "0/0", "is not K/N, the kernels of K steps of every N recorded, "
					"1 <= K <= N <= 65535; keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "5/3", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "x", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "4", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "0/4", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "1/65536", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "4/64/2", "keeping every step's kernels" },
	{ "GGML_VIZ_GPU_SAMPLE", "-1/4", "keeping every step's kernels" },
	{ "GGML_VIZ_NVTX", "3", "is not 0 (no NVTX ranges), 1 (steps, graphs and runs) or 2 (and ops); keeping 0" },
	{ "GGML_VIZ_NVTX", "on", "keeping 0" },
	{ "GGML_VIZ_NVTX", "-1", "keeping 0" },
	{ "GGML_VIZ_NVTX", "", "keeping 0" },
};

START_TEST(bad_value)
{
	const struct bad *b = &bad_values[_i];
	struct ggmlviz_config cfg, before;
	char quoted[128];

	clear_env();
	setenv(b->var, b->value, 1);
	init(&cfg);
	before = cfg;
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), -EINVAL);
	ck_assert_int_eq(memcmp(&cfg, &before, sizeof cfg), 0);
	ck_assert_int_eq(tu_n_messages, 1);
	snprintf(quoted, sizeof quoted, "%s=\"%s\"", b->var, b->value);
	ck_assert_msg(strstr(tu_messages, quoted), "message lacks %s: %s", quoted, tu_messages);
	ck_assert_msg(strstr(tu_messages, b->kept), "message lacks %s: %s", b->kept, tu_messages);
}
END_TEST

/* One bad variable does not stop the good ones. */
START_TEST(bad_and_good_together)
{
	struct ggmlviz_config cfg;

	clear_env();
	setenv("GGML_VIZ_BUFFER_SIZE", "1000", 1);
	setenv("GGML_VIZ_FLUSH_INTERVAL", "7", 1);
	init(&cfg);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), -EINVAL);
	ck_assert_uint_eq(cfg.buffer_events, 65536);
	ck_assert_uint_eq(cfg.flush_interval_ms, 7);
}
END_TEST

/* Runs fn with stderr going to a pipe; returns what it printed. */
static void stderr_of(void (*fn)(void), char *out, size_t size)
{
	int fds[2], saved = dup(STDERR_FILENO);
	ssize_t n;

	ck_assert_int_eq(pipe(fds), 0);
	fcntl(fds[0], F_SETFL, O_NONBLOCK);
	dup2(fds[1], STDERR_FILENO);
	fn();
	dup2(saved, STDERR_FILENO);
	close(fds[1]);
	n = read(fds[0], out, size - 1);
	out[n > 0 ? n : 0] = '\0';
	close(fds[0]);
	close(saved);
}

static char trace[4096];

static void start_from_env(void)
{
	ck_assert_int_eq(ggmlviz_start(NULL), 0);
	ggmlviz_mark("x", 1);
	ck_assert_int_eq(ggmlviz_stop(), 0);
}

START_TEST(start_null_reads_env_and_is_quiet)
{
	char err[4096];
	struct tu_summary s;

	clear_env();
	tu_path(trace, sizeof trace, "env");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_MEMORY_TRACKING", "1", 1);
	stderr_of(start_from_env, err, sizeof err);
	ck_assert_str_eq(err, ""); /* unasked, the library says nothing */
	ck_assert_int_eq(tu_summarize(trace, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 1);
	unlink(trace);
}
END_TEST

START_TEST(verbose_speaks)
{
	char err[4096];

	clear_env();
	tu_path(trace, sizeof trace, "verbose");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_VERBOSE", "1", 1);
	stderr_of(start_from_env, err, sizeof err);
	ck_assert_msg(strstr(err, "ggmlviz: tracing to "), "got: %s", err);
	ck_assert_msg(strstr(err, "ggmlviz: stopped: 1 events emitted"), "got: %s", err);
	unlink(trace);
}
END_TEST

/* A bad variable is the one thing printed unasked: the user set it. */
START_TEST(bad_variable_warns_on_stderr)
{
	char err[4096];

	clear_env();
	tu_path(trace, sizeof trace, "warn");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_BUFFER_SIZE", "1000", 1);
	stderr_of(start_from_env, err, sizeof err);
	ck_assert_str_eq(err, "ggmlviz: GGML_VIZ_BUFFER_SIZE=\"1000\" is not a power of two from 16 "
			      "to 16777216; keeping 65536\n");
	unlink(trace);
}
END_TEST

/*
 * GGML_VIZ_NVTX=1 with no tool attached traces on, unchanged: in a build
 * without NVTX's headers a warning says so; in one with them, nothing is
 * said unasked (no tool is the usual case), and the same trace is written.
 */
START_TEST(nvtx_without_a_tool_traces_on)
{
	char err[4096];
	struct tu_summary s;

	clear_env();
	unsetenv("NVTX_INJECTION64_PATH");
	tu_path(trace, sizeof trace, "env-nvtx");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_NVTX", "1", 1);
	stderr_of(start_from_env, err, sizeof err);
#if HAVE_NVTX
	ck_assert_str_eq(err, "");
#else
	ck_assert_str_eq(err, "ggmlviz: nvtx=1 (GGML_VIZ_NVTX): this libggmlviz was built without "
			      "NVTX's headers (configure --with-nvtx=DIR): no NVTX ranges; tracing "
			      "goes on\n");
#endif
	ck_assert_int_eq(tu_summarize(trace, &s), 0);
	ck_assert_uint_eq(s.by_type[GGMLVIZ_EVENT_MARK], 1);
	ck_assert_int_eq(s.trace_end_last, 1);
	unlink(trace);
}
END_TEST

static void start_disabled(void)
{
	ck_assert_int_eq(ggmlviz_start(NULL), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
}

START_TEST(disable_from_env)
{
	char err[256];

	clear_env();
	tu_path(trace, sizeof trace, "env-disabled");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_DISABLE", "1", 1);
	stderr_of(start_disabled, err, sizeof err);
	ck_assert_int_eq(access(trace, F_OK), -1);
}
END_TEST

START_TEST(bad_programmatic_config_is_explained)
{
	struct ggmlviz_config cfg;

	clear_env();
	init(&cfg);
	cfg.buffer_events = 100;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	ck_assert_msg(strstr(tu_messages, "buffer_events is not a power of two"), "got: %s",
		      tu_messages);
	ck_assert_msg(strstr(tu_messages, "buffer_events=100"), "got: %s", tu_messages);
	clear_env();
	init(&cfg);
	cfg.buffer_events_max = 1024; /* less than the default ring of 65536 */
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	ck_assert_msg(strstr(tu_messages, "buffer_events_max is below the ring's size (65536 events"),
		      "got: %s", tu_messages);
	ck_assert_msg(strstr(tu_messages, "buffer_events_max=1024"), "got: %s", tu_messages);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("environment");
	TCase *tc = tcase_create("GGML_VIZ_*");

	tcase_add_test(tc, defaults);
	tcase_add_test(tc, good_values);
	tcase_add_loop_test(tc, bad_value, 0, (int)(sizeof bad_values / sizeof bad_values[0]));
	tcase_add_test(tc, bad_and_good_together);
	tcase_add_test(tc, start_null_reads_env_and_is_quiet);
	tcase_add_test(tc, verbose_speaks);
	tcase_add_test(tc, bad_variable_warns_on_stderr);
	tcase_add_test(tc, disable_from_env);
	tcase_add_test(tc, nvtx_without_a_tool_traces_on);
	tcase_add_test(tc, bad_programmatic_config_is_explained);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
