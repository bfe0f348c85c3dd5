/*
 * Every tracing setting, one row each: its name (ggmlviz_setting_set()),
 * its GGML_VIZ_* variable, its kind, where it lives, its default, and what
 * it accepts. Adding a setting is adding a row (and its member: below
 * struct ggmlviz__settings's cfg in settings.h, as LATER(member) here), and
 * its documentation: doc/environment.md, ggmlviz_config_init(3),
 * libggmlviz(7) and tracer.h's ggmlviz_config_from_env()
 * (tests/test-doc-sync.sh checks them), and an example value in
 * tests/test-settings.c (which checks every row).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tracer/session/released.h"
#include "tracer/session/session.h"
#include "tracer/session/settings.h"

GGMLVIZ__ASSERT_CONFIG_0_2()

/* A member of 0.2's struct ggmlviz_config: where it lies in a session's settings, and its name. */
#define CONFIG(m) \
	.offset = offsetof(struct ggmlviz__settings, cfg.m), \
	.size = sizeof(((struct ggmlviz_config *)0)->m), .member = #m
/* gpu_sample_k and gpu_sample_n, the ratio's two halves. */
#define CONFIG_RATIO(k, n) \
	.offset = offsetof(struct ggmlviz__settings, cfg.k), \
	.size = sizeof(((struct ggmlviz_config *)0)->k) + sizeof(((struct ggmlviz_config *)0)->n), \
	.member = #k "/" #n
_Static_assert(offsetof(struct ggmlviz_config, gpu_sample_n) ==
		       offsetof(struct ggmlviz_config, gpu_sample_k) + sizeof(uint16_t),
	       "gpu_sample_n follows gpu_sample_k: the ratio is one setting");
/* A setting added since 0.2: a member of struct ggmlviz__settings after cfg. */
#define LATER(m) \
	.offset = offsetof(struct ggmlviz__settings, m), \
	.size = sizeof(((struct ggmlviz__settings *)0)->m), .member = NULL

#define BOOLEAN .kind = &ggmlviz__kind_choice, .flags = GGMLVIZ__SET_BOOLEAN, \
	.refusal = "is not a boolean (0/1, true/false, yes/no, on/off)"
#define BOOLEAN_OFF .kind = &ggmlviz__kind_choice, \
	.flags = GGMLVIZ__SET_BOOLEAN | GGMLVIZ__SET_NEGATED, \
	.refusal = "is not a boolean (0/1, true/false, yes/no, on/off)"
#define NUMBER .kind = &ggmlviz__kind_number

static const struct ggmlviz__choice timing_words[] = {
	{ "off", GGMLVIZ_OP_TIMING_OFF }, { "auto", GGMLVIZ_OP_TIMING_AUTO },
	{ "sync", GGMLVIZ_OP_TIMING_SYNC }, { NULL, 0 },
};
static const struct ggmlviz__choice gpu_words[] = {
	{ "start", GGMLVIZ_GPU_KERNELS_AT_START }, { NULL, 0 },
};
static const struct ggmlviz__choice preset_words[] = {
	{ "none", 0 }, { "server", 1 }, { NULL, 0 },
};
static const struct ggmlviz__choice overflow_words[] = {
	{ "drop", GGMLVIZ_OVERFLOW_DROP }, { "block", GGMLVIZ_OVERFLOW_BLOCK }, { NULL, 0 },
};

static int ring_max_against(const struct ggmlviz__settings *s, char *why, size_t size);

/* GGML_VIZ_VERBOSE first: it decides whether the others are said. */
static const struct ggmlviz__setting rows[] = {
	{ "verbose", "GGML_VIZ_VERBOSE", BOOLEAN, CONFIG(verbose), .def = "0" },
	{ "disable", "GGML_VIZ_DISABLE", BOOLEAN, CONFIG(disable), .def = "0" },
	{ "output", "GGML_VIZ_OUTPUT", .kind = &ggmlviz__kind_text, CONFIG(output),
	  .def = "ggmlviz-%p.ggmlviz", .flags = GGMLVIZ__SET_REQUIRED, .refusal = "is empty" },
	{ "max_events", "GGML_VIZ_MAX_EVENTS", NUMBER, CONFIG(max_events), .def = "10000000",
	  .max = UINT64_MAX, .refusal = "is not a decimal number of events (0 = no limit)" },
	{ "buffer_size", "GGML_VIZ_BUFFER_SIZE", NUMBER, CONFIG(buffer_events), .def = "65536",
	  .min = GGMLVIZ__MIN_BUFFER_EVENTS, .max = GGMLVIZ__MAX_BUFFER_EVENTS,
	  .flags = GGMLVIZ__SET_POW2, .refusal = "is not a power of two from {min} to {max}" },
	{ "buffer_max", "GGML_VIZ_BUFFER_MAX", NUMBER, CONFIG(buffer_events_max), .def = "0",
	  .min = GGMLVIZ__MIN_BUFFER_EVENTS, .max = GGMLVIZ__MAX_BUFFER_EVENTS,
	  .flags = GGMLVIZ__SET_POW2 | GGMLVIZ__SET_ZERO_OK,
	  .refusal = "is not 0 (the default) or a power of two from {min} to {max}",
	  .against = ring_max_against },
	{ "flush_interval", "GGML_VIZ_FLUSH_INTERVAL", NUMBER, CONFIG(flush_interval_ms),
	  .def = "100", .min = 1, .max = GGMLVIZ__MAX_FLUSH_MS,
	  .refusal = "is not a number of milliseconds from {min} to {max}" },
	{ "op_timing", "GGML_VIZ_OP_TIMING", .kind = &ggmlviz__kind_choice, CONFIG(op_timing),
	  .def = "auto", .choices = timing_words, .flags = GGMLVIZ__SET_BOOLEAN,
	  .refusal = "is not 0/off, 1/on/auto or sync" },
	{ "op_sample", "GGML_VIZ_OP_SAMPLE", NUMBER, CONFIG(op_sample), .def = "1",
	  .max = UINT32_MAX, .refusal = "is not a decimal number from {min} to {max}" },
	{ "op_slow", "GGML_VIZ_OP_SLOW", NUMBER, CONFIG(op_slow_us), .def = "0", .max = UINT64_MAX,
	  .refusal = "is not a decimal number of microseconds (0 = off)" },
	{ "tensor_names", "GGML_VIZ_TENSOR_NAMES", BOOLEAN, CONFIG(tensor_names), .def = "1" },
	{ "memory_tracking", "GGML_VIZ_MEMORY_TRACKING", BOOLEAN, CONFIG(memory_tracking),
	  .def = "0" },
	{ "thread_tracking", "GGML_VIZ_THREAD_TRACKING", BOOLEAN, CONFIG(thread_tracking),
	  .def = "0" },
	{ "crash_handler", "GGML_VIZ_CRASH_HANDLER", BOOLEAN, CONFIG(crash_handler), .def = "1" },
	{ "anonymize", "GGML_VIZ_ANONYMIZE", BOOLEAN, CONFIG(anonymize), .def = "0" },
	{ "gpu_kernels", "GGML_VIZ_GPU_KERNELS", .kind = &ggmlviz__kind_choice,
	  CONFIG(gpu_kernels), .def = "1", .choices = gpu_words, .flags = GGMLVIZ__SET_BOOLEAN,
	  .refusal = "is not 0/off, 1/on (from the first CUDA split) or start" },
	{ "gpu_sample", "GGML_VIZ_GPU_SAMPLE", .kind = &ggmlviz__kind_ratio,
	  CONFIG_RATIO(gpu_sample_k, gpu_sample_n), .max = UINT16_MAX,
	  .unset = "every step's kernels",
	  .refusal = "is not K/N, the kernels of K steps of every N recorded, 1 <= K <= N <= {max}" },
	{ "gpu_buffer", "GGML_VIZ_GPU_BUFFER", NUMBER, CONFIG(gpu_buffer_kib), .def = "0",
	  .min = 256, .max = 1048576, .flags = GGMLVIZ__SET_ZERO_OK,
	  .refusal = "is not 0 (the default) or a number of KiB from {min} to {max}" },
	{ "cupti", "GGML_VIZ_CUPTI", .kind = &ggmlviz__kind_text, CONFIG(cupti_path),
	  .refusal = "is empty" },
	{ "peak", "GGML_VIZ_PEAK", NUMBER, CONFIG(peak_threads), .def = "0", .min = 1,
	  .max = GGMLVIZ__PEAK_MAX_THREADS, .flags = GGMLVIZ__SET_ZERO_OK,
	  .refusal = "is not 0 (off, the default) or a number of threads from {min} to {max}" },
	{ "cpu_shares", "GGML_VIZ_CPU_SHARES", BOOLEAN_OFF, CONFIG(cpu_shares_off), .def = "1" },
	{ "describe_once", "GGML_VIZ_DESCRIBE_ONCE", BOOLEAN_OFF, CONFIG(describe_every),
	  .def = "1" },
	{ "nvtx", "GGML_VIZ_NVTX", NUMBER, CONFIG(nvtx), .def = "0",
	  .max = GGMLVIZ__NVTX_MAX_LEVEL,
	  .refusal = "is not 0 (no NVTX ranges), 1 (steps, graphs and runs) or 2 (and ops)" },
	{ "overflow", "GGML_VIZ_OVERFLOW", .kind = &ggmlviz__kind_choice, CONFIG(overflow),
	  .def = "drop", .choices = overflow_words, .refusal = "is not drop or block" },
	{ "rotate", "GGML_VIZ_ROTATE", .kind = &ggmlviz__kind_rotate, LATER(rotate),
	  .unset = "one file", .min = GGMLVIZ__ROTATE_MIN_BYTES, .max = GGMLVIZ__ROTATE_MAX_KEEP,
	  .refusal = "is not SIZE[:KEEP], segments of SIZE bytes (K, M, G or T: KiB to TiB) from "
		     "{min} on, the newest KEEP (0 to {max}) kept: 256M:8" },
	{ "preset", "GGML_VIZ_PRESET", .kind = &ggmlviz__kind_preset, LATER(preset), .def = "none",
	  .choices = preset_words, .flags = GGMLVIZ__SET_FIRST,
	  .refusal = "is not none or server (a llama-server traced all day: GGML_VIZ_OP_SAMPLE=1000, "
		     "GGML_VIZ_ROTATE=256M:8, GGML_VIZ_FLIGHT=60:8, GGML_VIZ_PACK=1, "
		     "GGML_VIZ_OP_WINDOW=5)" },
	{ "flight", "GGML_VIZ_FLIGHT", .kind = &ggmlviz__kind_flight, LATER(flight),
	  .unset = "no flight recorder", .min = 1, .max = GGMLVIZ__FLIGHT_MAX_SECONDS,
	  .refusal = "is not SECONDS[:KEEP[:MEMORY]]: the last SECONDS ({min} to {max}) of every "
		     "op kept in memory, in MEMORY bytes at most (K, M or G; 256M unless said, 1M "
		     "at least), the newest KEEP snapshots kept (0: all): 60:8" },
	{ "flight_on", "GGML_VIZ_FLIGHT_ON", .kind = &ggmlviz__kind_flight_on, LATER(flight_on),
	  .unset = "snapshots when asked only", .min = 1, .max = GGMLVIZ__FLIGHT_ON_MAX_MS,
	  .refusal = "is not ttft:MS,token:MS (either or both, MS from {min} to {max}): a snapshot "
		     "when a request's time to first token, or its time per output token, is over "
		     "MS milliseconds" },
	{ "pack", "GGML_VIZ_PACK", BOOLEAN, LATER(pack), .def = "0" },
	{ "op_window", "GGML_VIZ_OP_WINDOW", NUMBER, LATER(op_window), .def = "0", .min = 1,
	  .max = GGMLVIZ__OP_WINDOW_MAX_SECONDS, .flags = GGMLVIZ__SET_ZERO_OK,
	  .refusal = "is not 0 (each summed step's op sums written with it, the default) or a "
		     "number of seconds from {min} to {max} that the sums of a window span" },
};

#define N_ROWS (sizeof rows / sizeof rows[0])
_Static_assert(N_ROWS <= GGMLVIZ__SETTINGS_MAX, "GGMLVIZ__SETTINGS_MAX holds every row");

/* buffer_max below the ring's size, which ggmlviz_start() would refuse. */
static int ring_max_against(const struct ggmlviz__settings *s, char *why, size_t size)
{
	const struct ggmlviz_config *cfg = &s->cfg;

	if (!cfg->buffer_events_max || cfg->buffer_events_max >= cfg->buffer_events)
		return 0;
	snprintf(why, size, "is below the ring's size (%" PRIu32 " events, GGML_VIZ_BUFFER_SIZE)",
		 cfg->buffer_events);
	return 1;
}

const struct ggmlviz__setting *ggmlviz__setting_at(size_t i)
{
	return i < N_ROWS ? &rows[i] : NULL;
}

size_t ggmlviz__setting_index(const struct ggmlviz__setting *row)
{
	return (size_t)(row - rows);
}

const struct ggmlviz__setting *ggmlviz__setting_find(const char *name)
{
	for (size_t i = 0; name && i < N_ROWS; i++)
		if (!strcmp(rows[i].name, name) || !strcmp(rows[i].env, name))
			return &rows[i];
	return NULL;
}

int ggmlviz__setting_in_config(const struct ggmlviz__setting *row)
{
	return row->member != NULL;
}

void ggmlviz__setting_default(const struct ggmlviz__setting *row, struct ggmlviz__settings *s)
{
	if (!row->def || row->kind->parse(row, row->def, s) < 0)
		memset((char *)s + row->offset, 0, row->size);
}

void ggmlviz__settings_defaults(struct ggmlviz__settings *s)
{
	memset(s, 0, sizeof *s);
	for (size_t i = 0; i < N_ROWS; i++)
		ggmlviz__setting_default(&rows[i], s);
}

void ggmlviz__setting_refusal(const struct ggmlviz__setting *row, char *buf, size_t size)
{
	const char *from = row->refusal ? row->refusal : "is invalid";
	size_t n = 0;

	while (*from && n + 1 < size) {
		int is_min = !strncmp(from, "{min}", 5), is_max = !strncmp(from, "{max}", 5);
		int wrote;

		if (!is_min && !is_max) {
			buf[n++] = *from++;
			continue;
		}
		wrote = snprintf(buf + n, size - n, "%" PRIu64, is_min ? row->min : row->max);
		n = wrote > 0 && (size_t)wrote < size - n ? n + (size_t)wrote : size - 1;
		from += 5;
	}
	buf[n] = '\0';
}

void ggmlviz__setting_said(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			   char *buf, size_t size)
{
	char value[256];

	row->kind->format(row, s, value, sizeof value);
	if (row->kind->text)
		snprintf(buf, size, "\"%s\"", value);
	else
		snprintf(buf, size, "%s", *value || !row->unset ? value : row->unset);
}

int ggmlviz__setting_same(const struct ggmlviz__setting *row, const struct ggmlviz__settings *a,
			  const struct ggmlviz__settings *b)
{
	const char *ta, *tb;

	if (!row->kind->text)
		return !memcmp((const char *)a + row->offset, (const char *)b + row->offset, row->size);
	memcpy(&ta, (const char *)a + row->offset, sizeof ta);
	memcpy(&tb, (const char *)b + row->offset, sizeof tb);
	return ta == tb || (ta && tb && !strcmp(ta, tb));
}

/*
 * ---- GGML_VIZ_PRESET: a choice whose value also sets other settings ----
 *
 * A preset names the settings a use wants, each with its value; setting
 * it sets them (by their own kinds, as their variables would), and a
 * setting set after it, or its variable (which the environment's reading
 * takes after the preset's: GGMLVIZ__SET_FIRST), overrides it. `none`
 * sets nothing: the others keep their values. Here, beside the rows it
 * looks up.
 */

/* A preset's settings, by name, as their variables take them. */
struct preset_value {
	const char *name, *value;
};

/*
 * server: a llama-server traced all day (doc/llama-server.md). Every step
 * and request kept; ops op by op in 1 step in 1000, the others' summed by
 * op type, and those sums summed again over windows of 5 s; the records
 * packed (under 100 bytes a generated token on the quick start's model
 * and SmolLM2-135M's shape: doc/performance.md); the trace in segments of
 * 256 MiB, the newest 8 kept (2 GiB at most), with no hard stop; the last
 * 60 s of every op in memory (256 MiB at most) for snapshots, the newest
 * 8 of them kept. No GGML_VIZ_OP_SLOW: a step's time says little of a
 * request's (a prompt of many tokens takes long), and writing every slow
 * step op by op took 590 bytes a generated token where prompts are long;
 * the flight recorder keeps a slow request's steps whole instead.
 */
static const struct preset_value server[] = {
	{ "op_sample", "1000" }, { "rotate", "256M:8" },
	{ "flight", "60:8" }, { "pack", "1" }, { "op_window", "5" }, { NULL, NULL },
};

static const struct preset_value *const presets[] = { NULL, server };

/* The settings of preset v into s; 0 or GGMLVIZ_EVALUE (a preset of another value). */
static int apply(int64_t v, struct ggmlviz__settings *s)
{
	const struct preset_value *p;

	if (v < 0 || (size_t)v >= sizeof presets / sizeof presets[0])
		return GGMLVIZ_EVALUE;
	for (p = presets[v]; p && p->name; p++) {
		const struct ggmlviz__setting *row = ggmlviz__setting_find(p->name);

		if (!row || row->kind->parse(row, p->value, s) < 0)
			return GGMLVIZ_EVALUE; /* cannot happen: tests/test-settings.c sets each */
	}
	return 0;
}

static int64_t value_of(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	int v;

	memcpy(&v, (const char *)s + row->offset, sizeof v);
	return v;
}

/* The choice just set in with (rc: how that went), then its preset: all of it into s, or nothing. */
static int settle(const struct ggmlviz__setting *row, struct ggmlviz__settings *s,
		  struct ggmlviz__settings *with, int rc)
{
	if (rc == 0)
		rc = apply(value_of(row, with), with);
	if (rc == 0)
		*s = *with;
	return rc;
}

static int preset_parse(const struct ggmlviz__setting *row, const char *text,
			struct ggmlviz__settings *s)
{
	struct ggmlviz__settings with = *s;

	return settle(row, s, &with, ggmlviz__kind_choice.parse(row, text, &with));
}

static int preset_from_int(const struct ggmlviz__setting *row, int64_t value,
			   struct ggmlviz__settings *s)
{
	struct ggmlviz__settings with = *s;

	return settle(row, s, &with, ggmlviz__kind_choice.from_int(row, value, &with));
}

static int preset_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			 char *buf, size_t size)
{
	return ggmlviz__kind_choice.format(row, s, buf, size);
}

static int preset_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	return ggmlviz__kind_choice.valid(row, s);
}

const struct ggmlviz__setting_kind ggmlviz__kind_preset = {
	preset_parse, preset_from_int, preset_format, preset_valid, 0,
};
