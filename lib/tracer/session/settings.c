/*
 * Tracing settings: defaults, GGML_VIZ_* environment variables, and the
 * range checks ggmlviz_start() applies.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "tracer/base/base.h"
#include "tracer/session/session.h"

#define DEFAULT_OUTPUT "ggmlviz-%p.ggmlviz"
#define DEFAULT_MAX_EVENTS 10000000u
#define DEFAULT_BUFFER_EVENTS 65536u
#define DEFAULT_MAX_GROWN_EVENTS (1u << 20) /* 64 MiB: 50 ms at 20 M events/s */
#define DEFAULT_FLUSH_MS 100u

enum var_kind { VAR_BOOL, VAR_OFF, VAR_U64, VAR_POW2, VAR_MS, VAR_PATH, VAR_TIMING, VAR_U32, VAR_KIB,
		VAR_THREADS, VAR_GPU, VAR_US, VAR_SAMPLE, VAR_NVTX };

/* One GGML_VIZ_* variable: where it goes in the config and what it accepts. */
struct env_var {
	const char *name;
	enum var_kind kind;
	size_t offset;
};

/* GGML_VIZ_VERBOSE first: it decides whether the others are chatty. */
static const struct env_var env_vars[] = {
	{ "GGML_VIZ_VERBOSE", VAR_BOOL, offsetof(struct ggmlviz_config, verbose) },
	{ "GGML_VIZ_DISABLE", VAR_BOOL, offsetof(struct ggmlviz_config, disable) },
	{ "GGML_VIZ_OUTPUT", VAR_PATH, offsetof(struct ggmlviz_config, output) },
	{ "GGML_VIZ_MAX_EVENTS", VAR_U64, offsetof(struct ggmlviz_config, max_events) },
	{ "GGML_VIZ_BUFFER_SIZE", VAR_POW2, offsetof(struct ggmlviz_config, buffer_events) },
	{ "GGML_VIZ_BUFFER_MAX", VAR_POW2, offsetof(struct ggmlviz_config, buffer_events_max) },
	{ "GGML_VIZ_FLUSH_INTERVAL", VAR_MS, offsetof(struct ggmlviz_config, flush_interval_ms) },
	{ "GGML_VIZ_OP_TIMING", VAR_TIMING, offsetof(struct ggmlviz_config, op_timing) },
	{ "GGML_VIZ_OP_SAMPLE", VAR_U32, offsetof(struct ggmlviz_config, op_sample) },
	{ "GGML_VIZ_OP_SLOW", VAR_US, offsetof(struct ggmlviz_config, op_slow_us) },
	{ "GGML_VIZ_TENSOR_NAMES", VAR_BOOL, offsetof(struct ggmlviz_config, tensor_names) },
	{ "GGML_VIZ_MEMORY_TRACKING", VAR_BOOL, offsetof(struct ggmlviz_config, memory_tracking) },
	{ "GGML_VIZ_THREAD_TRACKING", VAR_BOOL, offsetof(struct ggmlviz_config, thread_tracking) },
	{ "GGML_VIZ_CRASH_HANDLER", VAR_BOOL, offsetof(struct ggmlviz_config, crash_handler) },
	{ "GGML_VIZ_ANONYMIZE", VAR_BOOL, offsetof(struct ggmlviz_config, anonymize) },
	{ "GGML_VIZ_GPU_KERNELS", VAR_GPU, offsetof(struct ggmlviz_config, gpu_kernels) },
	{ "GGML_VIZ_GPU_SAMPLE", VAR_SAMPLE, offsetof(struct ggmlviz_config, gpu_sample_k) },
	{ "GGML_VIZ_GPU_BUFFER", VAR_KIB, offsetof(struct ggmlviz_config, gpu_buffer_kib) },
	{ "GGML_VIZ_CUPTI", VAR_PATH, offsetof(struct ggmlviz_config, cupti_path) },
	{ "GGML_VIZ_PEAK", VAR_THREADS, offsetof(struct ggmlviz_config, peak_threads) },
	{ "GGML_VIZ_CPU_SHARES", VAR_OFF, offsetof(struct ggmlviz_config, cpu_shares_off) },
	{ "GGML_VIZ_DESCRIBE_ONCE", VAR_OFF, offsetof(struct ggmlviz_config, describe_every) },
	{ "GGML_VIZ_NVTX", VAR_NVTX, offsetof(struct ggmlviz_config, nvtx) },
};

void ggmlviz_config_init(struct ggmlviz_config *cfg)
{
	memset(cfg, 0, sizeof *cfg);
	cfg->output = DEFAULT_OUTPUT;
	cfg->max_events = DEFAULT_MAX_EVENTS;
	cfg->buffer_events = DEFAULT_BUFFER_EVENTS;
	cfg->flush_interval_ms = DEFAULT_FLUSH_MS;
	cfg->op_timing = 1;
	cfg->tensor_names = 1;
	cfg->overflow = GGMLVIZ_OVERFLOW_DROP;
	cfg->op_sample = 1;
	cfg->crash_handler = 1;
	cfg->gpu_kernels = 1;
}

static int parse_bool(const char *s, int *out)
{
	static const char *const yes[] = { "1", "true", "yes", "on" };
	static const char *const no[] = { "0", "false", "no", "off" };

	for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++) {
		if (!strcasecmp(s, yes[i]) || !strcasecmp(s, no[i])) {
			*out = !strcasecmp(s, yes[i]);
			return 0;
		}
	}
	return -EINVAL;
}

/* A boolean, or "auto" (1) or "sync" (2): enum ggmlviz_op_timing. */
static int parse_timing(const char *s, int *out)
{
	if (!strcasecmp(s, "auto")) {
		*out = GGMLVIZ_OP_TIMING_AUTO;
		return 0;
	}
	if (!strcasecmp(s, "sync")) {
		*out = GGMLVIZ_OP_TIMING_SYNC;
		return 0;
	}
	return parse_bool(s, out);
}

/* A boolean, or "start" (2): enum ggmlviz_gpu_kernels. */
static int parse_gpu(const char *s, int *out)
{
	if (!strcasecmp(s, "start")) {
		*out = GGMLVIZ_GPU_KERNELS_AT_START;
		return 0;
	}
	return parse_bool(s, out);
}

/* Plain decimal digits only: no sign, no spaces, no suffix, no overflow. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int ggmlviz__gpu_sample_ok(uint64_t k, uint64_t n)
{
	return (k == 0 && n == 0) || (k >= 1 && k <= n && n <= UINT16_MAX);
}

/* "K/N", K steps of every N (GGML_VIZ_GPU_SAMPLE), into k and n. */
static int parse_sample(const char *s, uint16_t *k, uint16_t *n)
{
	const char *slash = strchr(s, '/');
	char first[24];
	uint64_t a, b;

	if (!slash || (size_t)(slash - s) >= sizeof first)
		return -EINVAL;
	memcpy(first, s, (size_t)(slash - s));
	first[slash - s] = '\0';
	if (parse_u64(first, &a) < 0 || parse_u64(slash + 1, &b) < 0 || !a ||
	    !ggmlviz__gpu_sample_ok(a, b))
		return -EINVAL;
	*k = (uint16_t)a, *n = (uint16_t)b;
	return 0;
}

int ggmlviz__buffer_events_ok(uint64_t n)
{
	return n >= GGMLVIZ__MIN_BUFFER_EVENTS && n <= GGMLVIZ__MAX_BUFFER_EVENTS && !(n & (n - 1));
}

uint64_t ggmlviz__ring_max_events(const struct ggmlviz_config *cfg)
{
	uint64_t n = (uint64_t)cfg->buffer_events * 16;

	if (cfg->buffer_events_max)
		return cfg->buffer_events_max;
	/* block mode loses nothing to a stall, and larger rings slow a writer that is behind */
	if (cfg->overflow == GGMLVIZ_OVERFLOW_BLOCK)
		return cfg->buffer_events;
	if (n > DEFAULT_MAX_GROWN_EVENTS)
		n = DEFAULT_MAX_GROWN_EVENTS;
	return n > cfg->buffer_events ? n : cfg->buffer_events;
}

int ggmlviz__gpu_buffer_ok(uint64_t kib)
{
	return kib == 0 || (kib >= 256 && kib <= 1048576);
}

int ggmlviz__flush_ms_ok(uint64_t ms)
{
	return ms >= 1 && ms <= GGMLVIZ__MAX_FLUSH_MS;
}

/* What a variable accepts, for the warning. */
static const char *expected(enum var_kind kind)
{
	switch (kind) {
	case VAR_BOOL:
	case VAR_OFF:
		return "is not a boolean (0/1, true/false, yes/no, on/off)";
	case VAR_U64:
		return "is not a decimal number of events (0 = no limit)";
	case VAR_US:
		return "is not a decimal number of microseconds (0 = off)";
	case VAR_POW2:
		return "is not a power of two from 16 to 16777216";
	case VAR_MS:
		return "is not a number of milliseconds from 1 to 60000";
	case VAR_PATH:
		return "is empty";
	case VAR_TIMING:
		return "is not 0/off, 1/on/auto or sync";
	case VAR_GPU:
		return "is not 0/off, 1/on (from the first CUDA split) or start";
	case VAR_U32:
		return "is not a decimal number from 0 to 4294967295";
	case VAR_KIB:
		return "is not 0 (the default) or a number of KiB from 256 to 1048576";
	case VAR_THREADS:
		return "is not 0 (off, the default) or a number of threads from 1 to 1024";
	case VAR_SAMPLE:
		return "is not K/N, the kernels of K steps of every N recorded, 1 <= K <= N <= 65535";
	case VAR_NVTX:
		return "is not 0 (no NVTX ranges), 1 (steps, graphs and runs) or 2 (and ops)";
	}
	return "is invalid";
}

/* Stores s into the member; 0, or -EINVAL leaving it unchanged. */
static int apply(const struct env_var *v, const char *s, struct ggmlviz_config *cfg)
{
	char *field = (char *)cfg + v->offset;
	uint64_t n;
	int b;

	switch (v->kind) {
	case VAR_OFF: { /* a boolean that turns a default on off: stored negated, as a u32 */
		uint32_t off;
		if (parse_bool(s, &b) < 0)
			return -EINVAL;
		off = !b;
		memcpy(field, &off, sizeof off);
		return 0;
	}
	case VAR_BOOL:
	case VAR_TIMING:
	case VAR_GPU:
		if ((v->kind == VAR_BOOL ? parse_bool(s, &b)
		     : v->kind == VAR_GPU ? parse_gpu(s, &b) : parse_timing(s, &b)) < 0)
			return -EINVAL;
		memcpy(field, &b, sizeof b);
		return 0;
	case VAR_U64:
	case VAR_US:
		if (parse_u64(s, &n) < 0)
			return -EINVAL;
		memcpy(field, &n, sizeof n);
		return 0;
	case VAR_POW2:
	case VAR_MS:
	case VAR_KIB:
	case VAR_THREADS:
	case VAR_NVTX:
	case VAR_U32: {
		int ok = parse_u64(s, &n) == 0 &&
			 (v->kind == VAR_POW2 ? ggmlviz__buffer_events_ok(n)
			  : v->kind == VAR_MS ? ggmlviz__flush_ms_ok(n)
			  : v->kind == VAR_KIB ? ggmlviz__gpu_buffer_ok(n)
			  : v->kind == VAR_THREADS ? n <= GGMLVIZ__PEAK_MAX_THREADS
			  : v->kind == VAR_NVTX ? n <= GGMLVIZ__NVTX_MAX_LEVEL : n <= UINT32_MAX);
		uint32_t n32 = (uint32_t)n;
		if (!ok)
			return -EINVAL;
		memcpy(field, &n32, sizeof n32);
		return 0;
	}
	case VAR_PATH:
		if (!*s)
			return -EINVAL;
		memcpy(field, &s, sizeof s);
		return 0;
	case VAR_SAMPLE:
		return parse_sample(s, &cfg->gpu_sample_k, &cfg->gpu_sample_n);
	}
	return -EINVAL;
}

/* The member's current value as text, for "keeping ..." in a warning. */
static void current_value(const struct env_var *v, const struct ggmlviz_config *cfg,
			  char *buf, size_t size)
{
	const char *field = (const char *)cfg + v->offset;
	uint64_t n = 0;
	uint32_t n32;
	int b;
	const char *s;

	switch (v->kind) {
	case VAR_BOOL:
		memcpy(&b, field, sizeof b);
		n = (uint64_t)(b != 0);
		break;
	case VAR_OFF:
		memcpy(&n32, field, sizeof n32);
		n = (uint64_t)(n32 == 0);
		break;
	case VAR_TIMING:
		memcpy(&b, field, sizeof b);
		snprintf(buf, size, "%s", b == GGMLVIZ_OP_TIMING_SYNC ? "sync" : b ? "auto" : "off");
		return;
	case VAR_GPU:
		memcpy(&b, field, sizeof b);
		snprintf(buf, size, "%s", b == GGMLVIZ_GPU_KERNELS_AT_START ? "start" : b ? "1" : "0");
		return;
	case VAR_U64:
	case VAR_US:
		memcpy(&n, field, sizeof n);
		break;
	case VAR_POW2:
	case VAR_MS:
	case VAR_KIB:
	case VAR_THREADS:
	case VAR_NVTX:
	case VAR_U32:
		memcpy(&n32, field, sizeof n32);
		n = n32;
		break;
	case VAR_PATH:
		memcpy(&s, field, sizeof s);
		snprintf(buf, size, "\"%s\"", s ? s : "");
		return;
	case VAR_SAMPLE:
		if (cfg->gpu_sample_k < cfg->gpu_sample_n)
			snprintf(buf, size, "%u/%u", cfg->gpu_sample_k, cfg->gpu_sample_n);
		else
			snprintf(buf, size, "every step's kernels");
		return;
	}
	snprintf(buf, size, "%" PRIu64, n);
}

/*
 * GGML_VIZ_BUFFER_MAX below the ring's size (its own or GGML_VIZ_BUFFER_SIZE's),
 * which ggmlviz_start() would refuse: warned of here, the value before kept.
 */
static int check_ring_max(struct ggmlviz_config *cfg, uint32_t max_before)
{
	struct ggmlviz__log_sink sink;

	if (!cfg->buffer_events_max || cfg->buffer_events_max >= cfg->buffer_events ||
	    cfg->buffer_events_max == max_before)
		return 0;
	sink = ggmlviz__log_sink_of(cfg);
	ggmlviz__log(&sink, GGMLVIZ_LOG_WARN, "GGML_VIZ_BUFFER_MAX=\"%.200s\" is below the ring's size"
		     " (%" PRIu32 " events, GGML_VIZ_BUFFER_SIZE); keeping %" PRIu32,
		     getenv("GGML_VIZ_BUFFER_MAX"), cfg->buffer_events, max_before);
	cfg->buffer_events_max = max_before;
	return -EINVAL;
}

int ggmlviz_config_from_env(struct ggmlviz_config *cfg)
{
	uint32_t max_before = cfg->buffer_events_max;
	int rc = 0;

	for (size_t i = 0; i < sizeof env_vars / sizeof env_vars[0]; i++) {
		const struct env_var *v = &env_vars[i];
		const char *s = getenv(v->name);
		struct ggmlviz__log_sink sink;
		char kept[64];

		if (!s || apply(v, s, cfg) == 0)
			continue;
		current_value(v, cfg, kept, sizeof kept);
		sink = ggmlviz__log_sink_of(cfg);
		ggmlviz__log(&sink, GGMLVIZ_LOG_WARN, "%s=\"%.200s\" %s; keeping %s", v->name, s,
			     expected(v->kind), kept);
		rc = -EINVAL;
	}
	return check_ring_max(cfg, max_before) < 0 ? -EINVAL : rc;
}

static int reserved_zero(const struct ggmlviz_config *cfg)
{
	return !cfg->reserved3_u32;
}

/* Range checks of a config given to ggmlviz_start(); 0 or -EINVAL. */
int ggmlviz__config_check(const struct ggmlviz_config *cfg, const struct ggmlviz__log_sink *sink)
{
	const char *what = NULL;

	if (!cfg->output || !*cfg->output)
		what = "output is NULL or empty";
	else if (!ggmlviz__buffer_events_ok(cfg->buffer_events))
		what = "buffer_events is not a power of two from 16 to 16777216";
	else if (cfg->buffer_events_max != 0 && (!ggmlviz__buffer_events_ok(cfg->buffer_events_max) ||
						 cfg->buffer_events_max < cfg->buffer_events))
		what = "buffer_events_max is neither 0 nor a power of two from buffer_events to 16777216";
	else if (!ggmlviz__flush_ms_ok(cfg->flush_interval_ms))
		what = "flush_interval_ms is not from 1 to 60000";
	else if (cfg->overflow != GGMLVIZ_OVERFLOW_DROP && cfg->overflow != GGMLVIZ_OVERFLOW_BLOCK)
		what = "overflow is neither GGMLVIZ_OVERFLOW_DROP nor GGMLVIZ_OVERFLOW_BLOCK";
	else if (cfg->op_timing < GGMLVIZ_OP_TIMING_OFF || cfg->op_timing > GGMLVIZ_OP_TIMING_SYNC)
		what = "op_timing is not a value of enum ggmlviz_op_timing";
	else if (cfg->gpu_kernels < GGMLVIZ_GPU_KERNELS_OFF ||
		 cfg->gpu_kernels > GGMLVIZ_GPU_KERNELS_AT_START)
		what = "gpu_kernels is not a value of enum ggmlviz_gpu_kernels";
	else if (!ggmlviz__gpu_buffer_ok(cfg->gpu_buffer_kib))
		what = "gpu_buffer_kib is neither 0 nor from 256 to 1048576";
	else if (cfg->peak_threads > GGMLVIZ__PEAK_MAX_THREADS)
		what = "peak_threads is not from 0 to 1024";
	else if (!ggmlviz__gpu_sample_ok(cfg->gpu_sample_k, cfg->gpu_sample_n))
		what = "gpu_sample_k and gpu_sample_n are neither 0 and 0 nor 1 <= k <= n";
	else if (cfg->nvtx > GGMLVIZ__NVTX_MAX_LEVEL)
		what = "nvtx is not 0, 1 or 2";
	else if (!reserved_zero(cfg))
		what = "reserved is not all zero (fill the config with ggmlviz_config_init())";
	if (!what)
		return 0;
	ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "cannot start: %s (buffer_events=%" PRIu32
		     ", buffer_events_max=%" PRIu32 ", flush_interval_ms=%" PRIu32
		     ", overflow=%d, op_timing=%d)", what, cfg->buffer_events,
		     cfg->buffer_events_max, cfg->flush_interval_ms, cfg->overflow, cfg->op_timing);
	return -EINVAL;
}
