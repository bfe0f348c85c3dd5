/*
 * Settings by name (ggmlviz_setting_set(), _set_int(), _get(), _name()):
 * every setting the library has, each through its name, its variable and
 * its default; each error its own code; and what a session takes of them.
 *
 * Every setting needs a row of examples below: a setting added without
 * one fails every_setting_has_examples.
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config.h"

#include "check-compat.h"
#include "plain-util.h"
#include "trace-util.h"

#define NO_INT INT64_MIN

static char trace[4096];

/*
 * A value each setting takes, and what ggmlviz_setting_get() shows of it;
 * a number it takes (NO_INT: it takes text only) and what that shows; a
 * value it refuses; and whether it is a member of 0.2's struct ggmlviz_config.
 */
static const struct example {
	const char *name, *value, *shown;
	int64_t number;
	const char *number_shown, *bad;
	int in_0_2;
} examples[] = {
	{ "verbose", "yes", "1", 1, "1", "3", 1 },
	{ "disable", "On", "1", 0, "0", "disable", 1 },
	{ "output", "/tmp/x-%p.ggmlviz", "/tmp/x-%p.ggmlviz", NO_INT, NULL, "", 1 },
	{ "max_events", "5", "5", 0, "0", "1e6", 1 },
	{ "buffer_size", "1024", "1024", 16, "16", "1000", 1 },
	{ "buffer_max", "1048576", "1048576", 0, "0", "3000", 1 },
	{ "flush_interval", "7", "7", 60000, "60000", "0", 1 },
	{ "op_timing", "sync", "sync", GGMLVIZ_OP_TIMING_OFF, "off", "2", 1 },
	{ "op_sample", "8", "8", 4294967295, "4294967295", "-1", 1 },
	{ "op_slow", "500", "500", 7, "7", "1.5", 1 },
	{ "tensor_names", "no", "0", 0, "0", "-1", 1 },
	{ "memory_tracking", "1", "1", 1, "1", "y", 1 },
	{ "thread_tracking", "true", "1", 1, "1", "2", 1 },
	{ "crash_handler", "off", "0", 0, "0", "maybe", 1 },
	{ "anonymize", "1", "1", 1, "1", "2", 1 },
	{ "gpu_kernels", "start", "start", GGMLVIZ_GPU_KERNELS_OFF, "0", "2", 1 },
	{ "gpu_sample", "4/64", "4/64", NO_INT, NULL, "5/3", 1 },
	{ "gpu_buffer", "256", "256", 1048576, "1048576", "255", 1 },
	{ "cupti", "/opt/cupti/libcupti.so", "/opt/cupti/libcupti.so", NO_INT, NULL, "", 1 },
	{ "peak", "2", "2", 1024, "1024", "1025", 1 },
	{ "cpu_shares", "0", "0", 0, "0", "maybe", 1 },
	{ "describe_once", "no", "0", 0, "0", "x", 1 },
	{ "nvtx", "2", "2", 1, "1", "3", 1 },
	{ "overflow", "block", "block", GGMLVIZ_OVERFLOW_BLOCK, "block", "wait", 1 },
	{ "rotate", "256m:8", "256M:8", NO_INT, NULL, "1M:x", 0 },
	{ "preset", "server", "server", 0, "none", "laptop", 0 }, /* its variable: preset_* below */
	{ "flight", "60:8", "60:8:256M", NO_INT, NULL, "0:8", 0 },
	{ "flight_on", "token:50,ttft:500", "ttft:500,token:50", NO_INT, NULL, "ttft:0", 0 },
	{ "pack", "on", "1", 0, "0", "2", 0 },
	{ "op_window", "5", "5", 3600, "3600", "3601", 0 },
};
#define N_EXAMPLES (sizeof examples / sizeof examples[0])

static const struct example *example_of(const char *name)
{
	for (size_t i = 0; i < N_EXAMPLES; i++)
		if (!strcmp(examples[i].name, name))
			return &examples[i];
	return NULL;
}

/* GGML_VIZ_ and the name in upper case. */
static void variable_of(const char *name, char *var, size_t size)
{
	size_t n = (size_t)snprintf(var, size, "GGML_VIZ_%s", name);

	for (size_t i = strlen("GGML_VIZ_"); i < n && i < size; i++)
		var[i] = (char)toupper((unsigned char)var[i]);
}

static void clear_env(void)
{
	char var[64];

	for (size_t i = 0; ggmlviz_setting_name(i); i++) {
		variable_of(ggmlviz_setting_name(i), var, sizeof var);
		unsetenv(var);
	}
	tu_capture_clear();
}

static const char *got(const char *name)
{
	static char buf[4096];

	ck_assert_int_ge(ggmlviz_setting_get(name, buf, sizeof buf), 0);
	return buf;
}

START_TEST(every_setting_has_examples)
{
	size_t n = 0;

	for (const char *name; (name = ggmlviz_setting_name(n)); n++)
		ck_assert_msg(example_of(name), "setting %s has no examples in tests/test-settings.c",
			      name);
	ck_assert_uint_eq(n, N_EXAMPLES); /* and every example is a setting */
	ck_assert_ptr_eq(ggmlviz_setting_name(n + 1000), NULL);
}
END_TEST

/* Its default: set back with NULL, shown as set takes it back; by name and by variable. */
START_TEST(defaults_round_trip)
{
	const char *name = examples[_i].name;
	char var[64], def[4096];

	variable_of(name, var, sizeof var);
	snprintf(def, sizeof def, "%s", got(name));
	ck_assert_int_eq(ggmlviz_setting_set(name, NULL), 0);
	ck_assert_str_eq(got(name), def);
	if (*def) /* "" is an unset text or ratio, which only NULL sets */
		ck_assert_int_eq(ggmlviz_setting_set(var, def), 0);
	ck_assert_str_eq(got(var), def);
	ck_assert_int_eq(ggmlviz_setting_set(name, examples[_i].value), 0);
	ck_assert_str_ne(got(name), def);
	ck_assert_int_eq(ggmlviz_setting_set(var, NULL), 0);
	ck_assert_str_eq(got(name), def);
}
END_TEST

START_TEST(values_and_refusals)
{
	const struct example *e = &examples[_i];

	ck_assert_int_eq(ggmlviz_setting_set(e->name, e->value), 0);
	ck_assert_str_eq(got(e->name), e->shown);
	ck_assert_int_eq(ggmlviz_setting_set(e->name, e->bad), GGMLVIZ_EVALUE);
	ck_assert_str_eq(got(e->name), e->shown); /* refused: kept */
	if (e->number == NO_INT) {
		ck_assert_int_eq(ggmlviz_setting_set_int(e->name, 1), GGMLVIZ_ETYPE);
		ck_assert_str_eq(got(e->name), e->shown);
		return;
	}
	ck_assert_int_eq(ggmlviz_setting_set_int(e->name, e->number), 0);
	ck_assert_str_eq(got(e->name), e->number_shown);
	ck_assert_int_eq(ggmlviz_setting_set_int(e->name, -1), GGMLVIZ_EVALUE);
	ck_assert_str_eq(got(e->name), e->number_shown);
	if (!strcmp(e->name, "max_events") || !strcmp(e->name, "op_slow")) { /* 64-bit counts */
		ck_assert_int_eq(ggmlviz_setting_set_int(e->name, INT64_MAX), 0);
		ck_assert_str_eq(got(e->name), "9223372036854775807");
		return;
	}
	ck_assert_int_eq(ggmlviz_setting_set_int(e->name, INT64_MAX), GGMLVIZ_EVALUE);
	ck_assert_str_eq(got(e->name), e->number_shown);
}
END_TEST

/* A variable's test: no variable set, its name, the setting's value now, a config's defaults. */
struct var_test {
	char var[64], def[4096];
	struct ggmlviz_config fresh;
};

static void var_test_begin(const struct example *e, struct var_test *t)
{
	clear_env();
	variable_of(e->name, t->var, sizeof t->var);
	snprintf(t->def, sizeof t->def, "%s", got(e->name));
	ggmlviz_config_init(&t->fresh);
	t->fresh.log_fn = tu_capture;
}

/*
 * Its variable: a 0.2 setting's into the config that ggmlviz_config_from_env()
 * is given (the tracer's own untouched); a later one's into the tracer's
 * (the config untouched). A bad value is said, naming variable and value.
 */
START_TEST(each_variable_reaches_its_setting)
{
	const struct example *e = &examples[_i];
	struct ggmlviz_config cfg;
	struct var_test t;
	char quoted[256];

	if (!strcmp(e->name, "preset"))
		return; /* it sets others: preset_variable_is_read_first */
	var_test_begin(e, &t);
	cfg = t.fresh;
	setenv(t.var, e->value, 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_int_eq(memcmp(&cfg, &t.fresh, sizeof cfg) != 0, e->in_0_2);
	ck_assert_str_eq(got(e->name), e->in_0_2 ? t.def : e->shown);
	cfg = t.fresh;
	setenv(t.var, e->bad, 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), -EINVAL);
	ck_assert_int_eq(memcmp(&cfg, &t.fresh, sizeof cfg), 0);
	snprintf(quoted, sizeof quoted, "%s=\"%s\" ", t.var, e->bad);
	ck_assert_msg(tu_n_messages == 1 && strstr(tu_messages, quoted), "%s: got %s", quoted,
		      tu_messages);
	unsetenv(t.var);
}
END_TEST

/*
 * Its variable while a session runs: a 0.2 setting's still reaches the
 * config given; a later one's would change the tracer's settings, which
 * the session holds: refused, said, and taken after the stop.
 */
START_TEST(each_variable_while_a_session_runs)
{
	const struct example *e = &examples[_i];
	struct ggmlviz_config cfg;
	struct var_test t;
	char said[256];

	if (!strcmp(e->name, "preset"))
		return; /* it sets others: preset_variable_is_read_first */
	var_test_begin(e, &t);
	tu_path(trace, sizeof trace, "settings-running");
	tu_config(&cfg, trace);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	cfg = t.fresh;
	setenv(t.var, e->value, 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), e->in_0_2 ? 0 : -EINVAL);
	ck_assert_int_eq(memcmp(&cfg, &t.fresh, sizeof cfg) != 0, e->in_0_2);
	snprintf(said, sizeof said, "%s=\"%s\" cannot be set while tracing is active", t.var,
		 e->value);
	ck_assert_msg(e->in_0_2 ? !tu_n_messages : strstr(tu_messages, said) != NULL, "got %s",
		      tu_messages);
	ck_assert_str_eq(got(e->name), t.def);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_str_eq(got(e->name), e->in_0_2 ? t.def : e->shown);
	unsetenv(t.var);
	unlink(trace);
}
END_TEST

START_TEST(unknown_names)
{
	char buf[8] = "x";

	ck_assert_int_eq(ggmlviz_setting_set("no_such_setting", "1"), GGMLVIZ_ESETTING);
	ck_assert_int_eq(ggmlviz_setting_set_int("no_such_setting", 1), GGMLVIZ_ESETTING);
	ck_assert_int_eq(ggmlviz_setting_get("no_such_setting", buf, sizeof buf), GGMLVIZ_ESETTING);
	ck_assert_int_eq(ggmlviz_setting_set(NULL, "1"), GGMLVIZ_ESETTING);
	ck_assert_int_eq(ggmlviz_setting_set("Verbose", "1"), GGMLVIZ_ESETTING); /* names are exact */
	ck_assert_int_eq(ggmlviz_setting_set("GGML_VIZ_verbose", "1"), GGMLVIZ_ESETTING);
	ck_assert_int_eq(ggmlviz_setting_set("buffer_events", "16"), GGMLVIZ_ESETTING); /* a member's */
	ck_assert_str_eq(buf, "x");
}
END_TEST

START_TEST(each_error_has_its_words)
{
	static const int codes[] = { GGMLVIZ_ESETTING, GGMLVIZ_ETYPE, GGMLVIZ_EVALUE,
				     GGMLVIZ_EACTIVE };

	for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
		ck_assert_int_lt(codes[i], -4095); /* no errno value */
		ck_assert_str_ne(ggmlviz_strerror(codes[i]), "unknown error");
		for (size_t j = 0; j < i; j++) {
			ck_assert_int_ne(codes[i], codes[j]);
			ck_assert_str_ne(ggmlviz_strerror(codes[i]), ggmlviz_strerror(codes[j]));
		}
	}
}
END_TEST

START_TEST(get_cuts_as_snprintf_does)
{
	char buf[8];

	ck_assert_int_eq(ggmlviz_setting_set("output", "0123456789.ggmlviz"), 0);
	ck_assert_int_eq(ggmlviz_setting_get("output", buf, sizeof buf), 18);
	ck_assert_str_eq(buf, "0123456");
	ck_assert_int_eq(ggmlviz_setting_get("output", NULL, 0), 18);
	ck_assert_int_eq(ggmlviz_setting_get("cupti", buf, sizeof buf), 0); /* unset */
	ck_assert_str_eq(buf, "");
}
END_TEST

/* The tracer keeps its own copy of a text: the caller's may go. */
START_TEST(text_is_copied)
{
	char *path = strdup("/tmp/copied.ggmlviz");

	ck_assert_int_eq(ggmlviz_setting_set("output", path), 0);
	memset(path, 'x', strlen(path));
	free(path);
	ck_assert_str_eq(got("output"), "/tmp/copied.ggmlviz");
	ck_assert_int_eq(ggmlviz_setting_set("output", "/tmp/again.ggmlviz"), 0);
	ck_assert_str_eq(got("output"), "/tmp/again.ggmlviz");
}
END_TEST

static uint64_t count_of(uint8_t type)
{
	struct tu_summary s;

	ck_assert_int_eq(tu_summarize(trace, &s), 0);
	ck_assert_int_eq(s.trace_end_last, 1);
	return s.by_type[type];
}

static void record_one_alloc(void)
{
	static char buf[16];

	ggmlviz_tensor_alloc(buf, sizeof buf, "buf");
	ck_assert_int_eq(ggmlviz_stop(), 0);
}

/* ggmlviz_start(NULL) begins from the tracer's settings, the environment over them. */
START_TEST(start_null_takes_them)
{
	char other[4096];

	clear_env();
	tu_path(trace, sizeof trace, "settings");
	ck_assert_int_eq(ggmlviz_setting_set("output", trace), 0);
	ck_assert_int_eq(ggmlviz_setting_set("memory_tracking", "1"), 0);
	ck_assert_int_eq(ggmlviz_setting_set_int("flush_interval", 5), 0);
	ck_assert_int_eq(ggmlviz_start(NULL), 0);
	record_one_alloc();
	ck_assert_uint_eq(count_of(GGMLVIZ_EVENT_TENSOR_ALLOC), 1);
	unlink(trace);
	tu_path(other, sizeof other, "settings-env");
	setenv("GGML_VIZ_OUTPUT", other, 1);
	setenv("GGML_VIZ_MEMORY_TRACKING", "0", 1);
	ck_assert_int_eq(ggmlviz_start(NULL), 0);
	record_one_alloc();
	ck_assert_int_eq(access(trace, F_OK), -1);
	snprintf(trace, sizeof trace, "%s", other);
	ck_assert_uint_eq(count_of(GGMLVIZ_EVENT_TENSOR_ALLOC), 0);
	ck_assert_str_eq(got("memory_tracking"), "1"); /* the environment changed no setting */
	unlink(trace);
}
END_TEST

/* With a config, its members win over the tracer's settings. */
START_TEST(a_config_brings_its_members)
{
	struct ggmlviz_config cfg;

	clear_env();
	tu_path(trace, sizeof trace, "settings-cfg");
	ck_assert_int_eq(ggmlviz_setting_set("memory_tracking", "1"), 0);
	ck_assert_int_eq(ggmlviz_setting_set("output", "/nonexistent/dir/x.ggmlviz"), 0);
	tu_config(&cfg, trace);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	record_one_alloc();
	ck_assert_uint_eq(count_of(GGMLVIZ_EVENT_TENSOR_ALLOC), 0);
	unlink(trace);
}
END_TEST

/* Set while a session runs: refused, each way; after the stop: set again. */
START_TEST(set_after_start_is_refused)
{
	struct ggmlviz_config cfg;

	clear_env();
	tu_path(trace, sizeof trace, "settings-active");
	tu_config(&cfg, trace);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "4"), GGMLVIZ_EACTIVE);
	ck_assert_int_eq(ggmlviz_setting_set_int("op_sample", 4), GGMLVIZ_EACTIVE);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", NULL), GGMLVIZ_EACTIVE);
	ck_assert_str_eq(got("op_sample"), "1");
	ck_assert_int_eq(ggmlviz_start(&cfg), -EALREADY);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "4"), GGMLVIZ_EACTIVE); /* still held */
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "4"), 0);
	ck_assert_str_eq(got("op_sample"), "4");
	unlink(trace);
}
END_TEST

/* A start that opens no session (disabled, refused, failed) leaves them free. */
START_TEST(a_start_without_a_session_gives_them_back)
{
	struct ggmlviz_config cfg;

	clear_env();
	tu_path(trace, sizeof trace, "settings-none");
	tu_config(&cfg, trace);
	cfg.disable = 1;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "2"), 0);
	tu_config(&cfg, trace);
	cfg.buffer_events = 100;
	cfg.log_fn = tu_capture;
	ck_assert_int_eq(ggmlviz_start(&cfg), -EINVAL);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "3"), 0);
	ck_assert_int_eq(ggmlviz_setting_set("buffer_max", "1024"), 0); /* below the ring: at start */
	ck_assert_int_eq(ggmlviz_setting_set("output", trace), 0);
	ck_assert_int_eq(ggmlviz_start(NULL), -EINVAL);
	ck_assert_int_eq(ggmlviz_setting_set("buffer_max", NULL), 0);
	tu_config(&cfg, "/nonexistent/dir/x.ggmlviz");
	ck_assert_int_eq(ggmlviz_start(&cfg), -ENOENT);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "5"), 0);
}
END_TEST

/* A child of a fork has no session: its settings are free. */
START_TEST(a_forked_child_may_set)
{
	struct ggmlviz_config cfg;
	int status;
	pid_t pid;

	clear_env();
	tu_path(trace, sizeof trace, "settings-fork");
	tu_config(&cfg, trace);
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ggmlviz_mark("before the fork", 0);
	tu_wait_for_a_pass(); /* the writer thread past its start (trace-util.h) */
	pid = fork();
	if (pid == 0)
		_exit(ggmlviz_setting_set("op_sample", "4") == 0 ? 0 : 1);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "4"), GGMLVIZ_EACTIVE);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	unlink(trace);
}
END_TEST

/* Verbose, the start says the settings that are not their defaults, by name. */
START_TEST(verbose_says_the_settings)
{
	struct ggmlviz_config cfg;

	clear_env();
	tu_path(trace, sizeof trace, "settings-said");
	tu_config(&cfg, trace);
	cfg.verbose = 1;
	cfg.log_fn = tu_capture;
	cfg.op_sample = 8;
	ck_assert_int_eq(ggmlviz_start(&cfg), 0);
	ck_assert_int_eq(ggmlviz_stop(), 0);
	ck_assert_msg(strstr(tu_messages, "settings not at their default: verbose=1 output="),
		      "got: %s", tu_messages);
	ck_assert_msg(strstr(tu_messages, " op_sample=8"), "got: %s", tu_messages);
	ck_assert_msg(!strstr(tu_messages, "max_events="), "got: %s", tu_messages);
	unlink(trace);
}
END_TEST

/* A preset sets its settings; one set after it overrides it, and none undoes nothing. */
START_TEST(preset_sets_its_settings)
{
	ck_assert_int_eq(ggmlviz_setting_set("preset", "server"), 0);
	ck_assert_str_eq(got("preset"), "server");
	ck_assert_str_eq(got("op_sample"), "1000");
	ck_assert_str_eq(got("op_slow"), "0");
	ck_assert_str_eq(got("rotate"), "256M:8");
	ck_assert_str_eq(got("flight"), "60:8:256M");
	ck_assert_str_eq(got("pack"), "1");
	ck_assert_str_eq(got("op_window"), "5");
	ck_assert_int_eq(ggmlviz_setting_set("op_sample", "7"), 0);
	ck_assert_str_eq(got("op_sample"), "7");
	ck_assert_int_eq(ggmlviz_setting_set("preset", "none"), 0);
	ck_assert_str_eq(got("op_sample"), "7");
	ck_assert_str_eq(got("rotate"), "256M:8");
	ck_assert_int_eq(ggmlviz_setting_set("preset", "laptop"), GGMLVIZ_EVALUE);
	ck_assert_str_eq(got("preset"), "none");
	ck_assert_int_eq(ggmlviz_setting_set_int("preset", 1), 0);
	ck_assert_str_eq(got("op_sample"), "1000");
	for (const char *const *n = (const char *const[]){ "preset", "op_sample", "op_slow", "rotate",
							 "flight", "pack", "op_window", NULL };
	     *n; n++)
		ck_assert_int_eq(ggmlviz_setting_set(*n, NULL), 0);
}
END_TEST

/* Its variable is read before the others': a setting's own variable beside it overrides it. */
START_TEST(preset_variable_is_read_first)
{
	struct ggmlviz_config cfg;

	clear_env();
	ggmlviz_config_init(&cfg);
	cfg.log_fn = tu_capture;
	setenv("GGML_VIZ_PRESET", "server", 1);
	setenv("GGML_VIZ_OP_SAMPLE", "7", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), 0);
	ck_assert_uint_eq(cfg.op_sample, 7);
	ck_assert_uint_eq(cfg.op_slow_us, 0);
	ck_assert_str_eq(got("rotate"), "256M:8");
	ck_assert_str_eq(got("pack"), "1");
	ck_assert_str_eq(got("preset"), "server");
	ck_assert_int_eq(tu_n_messages, 0);
	setenv("GGML_VIZ_PRESET", "laptop", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), -EINVAL);
	ck_assert_msg(tu_n_messages == 1 && strstr(tu_messages, "GGML_VIZ_PRESET=\"laptop\" is not "
						      "none or server"), "got %s", tu_messages);
	clear_env();
	ck_assert_int_eq(ggmlviz_setting_set("preset", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("rotate", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("flight", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("pack", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("op_window", NULL), 0);
}
END_TEST

/* GGML_VIZ_FLIGHT and GGML_VIZ_FLIGHT_ON: what each takes, how it shows it, what it refuses. */
START_TEST(flight_values)
{
	static const struct { const char *name, *value, *shown; } good[] = {
		{ "flight", "60", "60:0:256M" },	   { "flight", "1:2:1G", "1:2:1G" },
		{ "flight", "3600:0:1M", "3600:0:1M" }, { "flight", "0", "" },
		{ "flight", "", "" },		   { "flight_on", "ttft:500", "ttft:500" },
		{ "flight_on", "token:7", "token:7" },  { "flight_on", "", "" },
	};
	static const struct { const char *name, *value; } bad[] = {
		{ "flight", "3601" },	    { "flight", "0:5" },	   { "flight", "60:8:512K" },
		{ "flight", "60:x" },	    { "flight", "60:" },	   { "flight", "-1" },
		{ "flight", "60:8:1M:2" },  { "flight_on", "ttft:500,ttft:400" },
		{ "flight_on", "ttft:" },   { "flight_on", "fast:1" }, { "flight_on", "ttft:500," },
		{ "flight_on", "token:0" }, { "flight_on", "ttft:3600001" },
	};

	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
		ck_assert_int_eq(ggmlviz_setting_set(good[i].name, good[i].value), 0);
		ck_assert_str_eq(got(good[i].name), good[i].shown);
	}
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		ck_assert_msg(ggmlviz_setting_set(bad[i].name, bad[i].value) == GGMLVIZ_EVALUE,
			      "%s=%s taken", bad[i].name, bad[i].value);
	ck_assert_int_eq(ggmlviz_setting_set("flight", NULL), 0);
	ck_assert_int_eq(ggmlviz_setting_set("flight_on", NULL), 0);
}
END_TEST

/* A bad variable: refused with its name, its value and what it takes; the setting kept. */
START_TEST(flight_variable_refused)
{
	struct ggmlviz_config cfg;

	clear_env();
	ggmlviz_config_init(&cfg);
	cfg.log_fn = tu_capture;
	ck_assert_int_eq(ggmlviz_setting_set("flight", "30"), 0);
	setenv("GGML_VIZ_FLIGHT", "1m", 1);
	setenv("GGML_VIZ_FLIGHT_ON", "ttft=500", 1);
	ck_assert_int_eq(ggmlviz_config_from_env(&cfg), -EINVAL);
	ck_assert_msg(strstr(tu_messages, "GGML_VIZ_FLIGHT=\"1m\" is not SECONDS[:KEEP[:MEMORY]]"),
		      "got %s", tu_messages);
	ck_assert_msg(strstr(tu_messages, "GGML_VIZ_FLIGHT_ON=\"ttft=500\" is not ttft:MS,token:MS"),
		      "got %s", tu_messages);
	ck_assert_str_eq(got("flight"), "30:0:256M");
	ck_assert_str_eq(got("flight_on"), "");
	clear_env();
	ck_assert_int_eq(ggmlviz_setting_set("flight", NULL), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("settings");
	TCase *tc = tcase_create("by name");

	tcase_add_test(tc, every_setting_has_examples);
	tcase_add_test(tc, flight_values);
	tcase_add_test(tc, flight_variable_refused);
	tcase_add_loop_test(tc, defaults_round_trip, 0, (int)N_EXAMPLES);
	tcase_add_loop_test(tc, values_and_refusals, 0, (int)N_EXAMPLES);
	tcase_add_loop_test(tc, each_variable_reaches_its_setting, 0, (int)N_EXAMPLES);
	tcase_add_loop_test(tc, each_variable_while_a_session_runs, 0, (int)N_EXAMPLES);
	tcase_add_test(tc, unknown_names);
	tcase_add_test(tc, each_error_has_its_words);
	tcase_add_test(tc, get_cuts_as_snprintf_does);
	tcase_add_test(tc, text_is_copied);
	tcase_add_test(tc, start_null_takes_them);
	tcase_add_test(tc, a_config_brings_its_members);
	tcase_add_test(tc, set_after_start_is_refused);
	tcase_add_test(tc, a_start_without_a_session_gives_them_back);
	tcase_add_test(tc, a_forked_child_may_set);
	tcase_add_test(tc, verbose_says_the_settings);
	tcase_add_test(tc, preset_sets_its_settings);
	tcase_add_test(tc, preset_variable_is_read_first);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return run_suite(make_suite());
}
