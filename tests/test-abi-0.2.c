/*
 * A program built against libggmlviz 0.2's header, run against this
 * library: built with tests/abi/v0.2/ (0.2's tracer.h and format.h) ahead
 * of include/ on its path, it sees the struct ggmlviz_config and struct
 * ggmlviz_stats that 0.2 programs hold, and none of what came after. (The
 * headers are main's at 26fe56b, the last before the settings moved to
 * names: 0.2.0 has no tag, configure.ac has said 0.2.0 since 2e2cf71, and
 * the config has been 136 bytes, its members carved out of reserved room,
 * all along.)
 *
 * - The 0.2 header's layout is what lib/tracer/session/released.h says
 *   (static asserts), which the library asserts of its own header.
 * - Its config and stats lie at a page's end, before a page that cannot be
 *   read or written: the library touching a byte past them crashes here.
 * - ggmlviz_config_init() gives 0.2's defaults; every 0.2 variable is read
 *   by ggmlviz_config_from_env() as 0.2 read it, and a bad one is refused
 *   with its name and value; ggmlviz_start() with that config, and with
 *   NULL, records what the program emits through 0.2's inline macros; a
 *   config 0.2 refused is refused.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <ggmlviz/tracer.h>

#include "config.h"

#include "check-compat.h"
#include "plain-util.h"
#include "tracer/session/released.h"

GGMLVIZ__ASSERT_CONFIG_0_2()
_Static_assert(sizeof(struct ggmlviz_stats) == 128, "struct ggmlviz_stats is 0.2's: 128 bytes");
_Static_assert(GGMLVIZ_VERSION_MAJOR == 0 && GGMLVIZ_VERSION_MINOR == 2,
	       "built against 0.2's header, not the current one");

/* 0.2's variables: a value it took, and one it refused. */
static const struct {
	const char *var, *good, *bad;
} vars_0_2[] = {
	{ "GGML_VIZ_OUTPUT", "/tmp/abi-%p.ggmlviz", "" },
	{ "GGML_VIZ_DISABLE", "yes", "disable" },
	{ "GGML_VIZ_VERBOSE", "TRUE", "3" },
	{ "GGML_VIZ_MAX_EVENTS", "0", "1e6" },
	{ "GGML_VIZ_BUFFER_SIZE", "16", "1000" },
	{ "GGML_VIZ_BUFFER_MAX", "1024", "3000" },
	{ "GGML_VIZ_FLUSH_INTERVAL", "60000", "0" },
	{ "GGML_VIZ_OP_TIMING", "sync", "2" },
	{ "GGML_VIZ_OP_SAMPLE", "16", "-1" },
	{ "GGML_VIZ_OP_SLOW", "2500", "1.5" },
	{ "GGML_VIZ_MEMORY_TRACKING", "on", "" },
	{ "GGML_VIZ_THREAD_TRACKING", "1", "y" },
	{ "GGML_VIZ_TENSOR_NAMES", "No", "-1" },
	{ "GGML_VIZ_CRASH_HANDLER", "off", "maybe" },
	{ "GGML_VIZ_ANONYMIZE", "yes", "2" },
	{ "GGML_VIZ_GPU_KERNELS", "start", "2" },
	{ "GGML_VIZ_GPU_SAMPLE", "4/64", "5/3" },
	{ "GGML_VIZ_GPU_BUFFER", "256", "255" },
	{ "GGML_VIZ_CUPTI", "/opt/cupti/libcupti.so", "" },
	{ "GGML_VIZ_PEAK", "8", "1025" },
	{ "GGML_VIZ_CPU_SHARES", "0", "maybe" },
	{ "GGML_VIZ_DESCRIBE_ONCE", "0", "x" },
	{ "GGML_VIZ_NVTX", "2", "3" },
};
#define N_VARS (sizeof vars_0_2 / sizeof vars_0_2[0])

static void clear_env(void)
{
	for (size_t i = 0; i < N_VARS; i++)
		unsetenv(vars_0_2[i].var);
	tu_capture_clear();
}

/* size bytes at the very end of a page, the next page PROT_NONE (never unmapped: a test). */
static void *at_page_end(size_t size)
{
	long page = sysconf(_SC_PAGESIZE);
	char *base = mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert_ptr_ne(base, MAP_FAILED);
	ck_assert_int_eq(mprotect(base + page, (size_t)page, PROT_NONE), 0);
	memset(base, 0xa5, (size_t)page); /* what a program's stack might hold */
	return base + page - size;
}

static struct ggmlviz_config *config_at_page_end(void)
{
	struct ggmlviz_config *cfg = at_page_end(sizeof *cfg);

	ggmlviz_config_init(cfg);
	cfg->log_fn = tu_capture;
	return cfg;
}

static char trace[4096];

static void trace_path(const char *tag)
{
	const char *dir = getenv("TMPDIR");

	snprintf(trace, sizeof trace, "%s/ggmlviz-abi-%ld-%s.ggmlviz", dir ? dir : "/tmp",
		 (long)getpid(), tag);
	unlink(trace);
}

START_TEST(init_gives_0_2_defaults)
{
	struct ggmlviz_config *cfg;

	clear_env();
	cfg = config_at_page_end();
	ck_assert_str_eq(cfg->output, "ggmlviz-%p.ggmlviz");
	ck_assert_uint_eq(cfg->max_events, 10000000);
	ck_assert_uint_eq(cfg->buffer_events, 65536);
	ck_assert_uint_eq(cfg->flush_interval_ms, 100);
	ck_assert_int_eq(cfg->op_timing, GGMLVIZ_OP_TIMING_AUTO);
	ck_assert_int_eq(cfg->tensor_names, 1);
	ck_assert_int_eq(cfg->memory_tracking, 0);
	ck_assert_int_eq(cfg->thread_tracking, 0);
	ck_assert_int_eq(cfg->overflow, GGMLVIZ_OVERFLOW_DROP);
	ck_assert_int_eq(cfg->verbose, 0);
	ck_assert_int_eq(cfg->disable, 0);
	ck_assert_ptr_eq(cfg->log_user, NULL);
	ck_assert_uint_eq(cfg->op_sample, 1);
	ck_assert_int_eq(cfg->crash_handler, 1);
	ck_assert_int_eq(cfg->anonymize, 0);
	ck_assert_uint_eq(cfg->buffer_events_max, 0);
	ck_assert_int_eq(cfg->gpu_kernels, GGMLVIZ_GPU_KERNELS_CUDA);
	ck_assert_uint_eq(cfg->gpu_buffer_kib, 0);
	ck_assert_ptr_eq(cfg->cupti_path, NULL);
	ck_assert_uint_eq(cfg->peak_threads, 0);
	ck_assert_uint_eq(cfg->cpu_shares_off, 0);
	ck_assert_uint_eq(cfg->op_slow_us, 0);
	ck_assert_uint_eq(cfg->describe_every, 0);
	ck_assert_uint_eq(cfg->gpu_sample_k, 0);
	ck_assert_uint_eq(cfg->gpu_sample_n, 0);
	ck_assert_uint_eq(cfg->nvtx, 0);
	ck_assert_uint_eq(cfg->reserved3_u32, 0);
	ck_assert_int_eq(ggmlviz_config_from_env(cfg), 0); /* nothing set: nothing changes */
	ck_assert_int_eq(tu_n_messages, 0);
}
END_TEST

START_TEST(from_env_reads_0_2_variables)
{
	struct ggmlviz_config *cfg;

	clear_env();
	for (size_t i = 0; i < N_VARS; i++)
		setenv(vars_0_2[i].var, vars_0_2[i].good, 1);
	cfg = config_at_page_end();
	ck_assert_int_eq(ggmlviz_config_from_env(cfg), 0);
	ck_assert_int_eq(tu_n_messages, 0);
	ck_assert_str_eq(cfg->output, "/tmp/abi-%p.ggmlviz");
	ck_assert_int_eq(cfg->disable, 1);
	ck_assert_int_eq(cfg->verbose, 1);
	ck_assert_uint_eq(cfg->max_events, 0);
	ck_assert_uint_eq(cfg->buffer_events, 16);
	ck_assert_uint_eq(cfg->buffer_events_max, 1024);
	ck_assert_uint_eq(cfg->flush_interval_ms, 60000);
	ck_assert_int_eq(cfg->op_timing, GGMLVIZ_OP_TIMING_SYNC);
	ck_assert_uint_eq(cfg->op_sample, 16);
	ck_assert_uint_eq(cfg->op_slow_us, 2500);
	ck_assert_int_eq(cfg->memory_tracking, 1);
	ck_assert_int_eq(cfg->thread_tracking, 1);
	ck_assert_int_eq(cfg->tensor_names, 0);
	ck_assert_int_eq(cfg->crash_handler, 0);
	ck_assert_int_eq(cfg->anonymize, 1);
	ck_assert_int_eq(cfg->gpu_kernels, GGMLVIZ_GPU_KERNELS_AT_START);
	ck_assert_uint_eq(cfg->gpu_sample_k, 4);
	ck_assert_uint_eq(cfg->gpu_sample_n, 64);
	ck_assert_uint_eq(cfg->gpu_buffer_kib, 256);
	ck_assert_str_eq(cfg->cupti_path, "/opt/cupti/libcupti.so");
	ck_assert_uint_eq(cfg->peak_threads, 8);
	ck_assert_uint_eq(cfg->cpu_shares_off, 1);
	ck_assert_uint_eq(cfg->describe_every, 1);
	ck_assert_uint_eq(cfg->nvtx, 2);
	ck_assert_uint_eq(cfg->reserved3_u32, 0);
}
END_TEST

/* Each 0.2 variable's bad value: -EINVAL, the config unchanged, a warning naming it and it. */
START_TEST(from_env_refuses_as_0_2_did)
{
	struct ggmlviz_config *cfg, before;
	char quoted[128];

	clear_env();
	setenv(vars_0_2[_i].var, vars_0_2[_i].bad, 1);
	cfg = config_at_page_end();
	before = *cfg;
	ck_assert_int_eq(ggmlviz_config_from_env(cfg), -EINVAL);
	ck_assert_int_eq(memcmp(cfg, &before, sizeof before), 0);
	ck_assert_int_eq(tu_n_messages, 1);
	snprintf(quoted, sizeof quoted, "%s=\"%s\" ", vars_0_2[_i].var, vars_0_2[_i].bad);
	ck_assert_msg(strstr(tu_messages, quoted), "message lacks %s: %s", quoted, tu_messages);
	ck_assert_msg(strstr(tu_messages, "; keeping "), "no value kept in: %s", tu_messages);
}
END_TEST

/* What the program emits, through 0.2's macros (inline mask check) and functions. */
static void emit_some(void)
{
	static float tensor[64];

	ggmlviz_graph_begin(tensor, 1, 1, NULL);
	ggmlviz_op_begin(tensor, 29, sizeof tensor, NULL, "Qcur-0");
	ggmlviz_op_end(tensor, 29, sizeof tensor, NULL, "Qcur-0");
	ggmlviz_graph_end(tensor, 1, 1, NULL);
	ggmlviz_tensor_alloc(tensor, sizeof tensor, "kv");
	ggmlviz_tensor_free(tensor, sizeof tensor, "kv");
	ggmlviz_mark("token", 12);
	ggmlviz_counter("kv_used", 34);
	ggmlviz_scope_begin("prefill", 0);
	ggmlviz_scope_end("prefill", 0);
}

static void check_trace(int memory)
{
	uint64_t by_type[256];

	ck_assert_int_eq(tu_type_counts(trace, by_type), 0);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_OP_COMPUTE_BEGIN], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_OP_COMPUTE_END], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_TENSOR_ALLOC], (uint64_t)memory);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_TENSOR_FREE], (uint64_t)memory);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_MARK], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_COUNTER], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_SCOPE_BEGIN], 1);
	ck_assert_uint_eq(by_type[GGMLVIZ_EVENT_SCOPE_END], 1);
	unlink(trace);
}

START_TEST(start_with_a_config_at_page_end)
{
	struct ggmlviz_config *cfg;
	struct ggmlviz_stats *st = at_page_end(sizeof *st);
	const uint64_t emitted = 10; /* emit_some()'s events */

	clear_env();
	trace_path("config");
	cfg = config_at_page_end();
	cfg->output = trace;
	cfg->memory_tracking = 1;
	cfg->flush_interval_ms = 5;
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 1);
	emit_some();
	ggmlviz_get_stats(st);
	ck_assert_uint_eq(st->emitted, emitted);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ggmlviz_get_stats(st);
	ck_assert_uint_eq(st->written, emitted);
	ck_assert_uint_eq(st->dropped, 0);
	ck_assert_uint_eq(st->queued, 0);
	ck_assert_int_eq(st->error, 0);
	ck_assert_uint_eq(st->reserved[3], 0);
	ck_assert_int_eq(tu_n_messages, 0);
	check_trace(1);
}
END_TEST

START_TEST(start_null_reads_the_environment)
{
	clear_env();
	trace_path("env");
	setenv("GGML_VIZ_OUTPUT", trace, 1);
	setenv("GGML_VIZ_MEMORY_TRACKING", "0", 1);
	ck_assert_int_eq(ggmlviz_start(NULL), 0);
	emit_some();
	ck_assert_int_eq(ggmlviz_stop(), 0);
	check_trace(0);
}
END_TEST

START_TEST(refused_configs_stay_refused)
{
	struct ggmlviz_config *cfg;

	clear_env();
	trace_path("refused");
	cfg = config_at_page_end();
	cfg->output = trace;
	cfg->reserved3_u32 = 1;
	ck_assert_int_eq(ggmlviz_start(cfg), -EINVAL);
	ck_assert_msg(strstr(tu_messages, "reserved"), "got: %s", tu_messages);
	cfg = config_at_page_end();
	cfg->output = trace;
	cfg->buffer_events = 100;
	ck_assert_int_eq(ggmlviz_start(cfg), -EINVAL);
	ck_assert_msg(strstr(tu_messages, "buffer_events=100"), "got: %s", tu_messages);
	cfg = config_at_page_end();
	cfg->output = trace;
	cfg->disable = 1;
	ck_assert_int_eq(ggmlviz_start(cfg), 0);
	ck_assert_int_eq(ggmlviz_is_active(), 0);
	ck_assert_int_eq(access(trace, F_OK), -1);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("abi-0.2");
	TCase *tc = tcase_create("0.2 header");

	tcase_add_test(tc, init_gives_0_2_defaults);
	tcase_add_test(tc, from_env_reads_0_2_variables);
	tcase_add_loop_test(tc, from_env_refuses_as_0_2_did, 0, (int)N_VARS);
	tcase_add_test(tc, start_with_a_config_at_page_end);
	tcase_add_test(tc, start_null_reads_the_environment);
	tcase_add_test(tc, refused_configs_stay_refused);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
