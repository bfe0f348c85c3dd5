/*
 * The kind of GGML_VIZ_PRESET: a choice whose value also sets others. A
 * preset names the settings a use wants, each with its value; setting it
 * sets them (by their own kinds, as their variables would), and a setting
 * set after it, or its variable (which the environment's reading takes
 * after the preset's: GGMLVIZ__SET_FIRST), overrides it. `none` sets
 * nothing: the others keep their values.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stddef.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "tracer/session/settings.h"

/* A preset's settings, by name, as their variables take them. */
struct preset_value {
	const char *name, *value;
};

/*
 * server: a llama-server traced all day (doc/llama-server.md). Every step
 * and request kept; ops op by op in 1 step in 100 and in every step of
 * 20 ms or more, the others' summed by op type; the trace in segments of
 * 256 MiB, the newest 8 kept (2 GiB at most), with no hard stop.
 */
static const struct preset_value server[] = {
	{ "op_sample", "100" }, { "op_slow", "20000" }, { "rotate", "256M:8" }, { NULL, NULL },
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
