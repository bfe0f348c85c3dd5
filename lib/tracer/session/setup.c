/*
 * The settings of a session, as rows (settings.c) make them: 0.2's config
 * (ggmlviz_config_init(), ggmlviz_config_from_env()), the GGML_VIZ_*
 * variables and their warnings, the checks ggmlviz_start() applies, and
 * what it says of them when verbose.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "tracer/session/settings.h"

#define DEFAULT_MAX_GROWN_EVENTS (1u << 20) /* 64 MiB: 250 ms at 4 M events/s */

void ggmlviz_config_init(struct ggmlviz_config *cfg)
{
	struct ggmlviz__settings s;

	ggmlviz__settings_defaults(&s);
	*cfg = s.cfg;
}

/* Says that text, the value of row's variable, was refused: why, and the value kept in s. */
static void refuse(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
		   const char *text, const char *why)
{
	struct ggmlviz__log_sink sink = ggmlviz__log_sink_of(&s->cfg);
	char kept[320];

	ggmlviz__setting_said(row, s, kept, sizeof kept);
	ggmlviz__log(&sink, GGMLVIZ_LOG_WARN, "%s=\"%.200s\" %s; keeping %s", row->env,
		     text ? text : "", why, kept);
}

/* The row's variable over s: 0, or -EINVAL (said; s unchanged). */
static int env_row(const struct ggmlviz__setting *row, struct ggmlviz__settings *s)
{
	const char *text = getenv(row->env);
	char why[200];

	if (!text || row->kind->parse(row, text, s) == 0)
		return 0;
	ggmlviz__setting_refusal(row, why, sizeof why);
	refuse(row, s, text, why);
	return -EINVAL;
}

/*
 * The checks against other settings, of the rows the variables changed
 * (buffer_max below the ring): a refused one keeps its value before.
 */
static int env_against(const struct ggmlviz__settings *before, struct ggmlviz__settings *s)
{
	const struct ggmlviz__setting *row;
	char why[200];
	int rc = 0;

	for (size_t i = 0; (row = ggmlviz__setting_at(i)); i++) {
		if (!row->against || ggmlviz__setting_same(row, before, s) ||
		    !row->against(s, why, sizeof why))
			continue;
		memcpy((char *)s + row->offset, (const char *)before + row->offset, row->size);
		refuse(row, s, getenv(row->env), why);
		rc = -EINVAL;
	}
	return rc;
}

int ggmlviz__settings_from_env(struct ggmlviz__settings *s)
{
	struct ggmlviz__settings before = *s;
	const struct ggmlviz__setting *row;
	int rc = 0;

	/* a preset's variable first: the variables of the settings it sets override it */
	for (int first = 1; first >= 0; first--)
		for (size_t i = 0; (row = ggmlviz__setting_at(i)); i++)
			if (!(row->flags & GGMLVIZ__SET_FIRST) == !first && env_row(row, s) < 0)
				rc = -EINVAL;
	return env_against(&before, s) < 0 ? -EINVAL : rc;
}

/*
 * The settings added since 0.2 that the variables changed: kept in the
 * tracer's settings, or, while a session holds them, refused (said).
 */
static int keep_later(const struct ggmlviz__settings *before, const struct ggmlviz__settings *s)
{
	const struct ggmlviz__setting *row;
	int rc = ggmlviz__settings_keep_later(s);

	if (rc != GGMLVIZ_EACTIVE)
		return rc;
	for (size_t i = 0; (row = ggmlviz__setting_at(i)); i++)
		if (!ggmlviz__setting_in_config(row) && !ggmlviz__setting_same(row, before, s))
			refuse(row, before, getenv(row->env),
			       "cannot be set while tracing is active (stop it first)");
	return -EINVAL;
}

int ggmlviz_config_from_env(struct ggmlviz_config *cfg)
{
	struct ggmlviz__settings s, before;
	int rc, kept;

	ggmlviz__settings_copy(&s);
	s.cfg = *cfg;
	before = s;
	rc = ggmlviz__settings_from_env(&s);
	*cfg = s.cfg;
	kept = keep_later(&before, &s);
	return kept < 0 ? kept : rc;
}

/* "cannot start: who why (who=value)", who its config member where it has one. */
static void say_unstartable(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			    const char *why, const struct ggmlviz__log_sink *sink)
{
	const char *who = row->member ? row->member : row->name;
	char value[320];

	row->kind->format(row, s, value, sizeof value);
	ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "cannot start: %s %s (%s=%s)", who, why, who, value);
}

int ggmlviz__settings_check(const struct ggmlviz__settings *s, const struct ggmlviz__log_sink *sink)
{
	const struct ggmlviz__setting *row;
	char why[200];

	for (size_t i = 0; (row = ggmlviz__setting_at(i)); i++) {
		if (!row->kind->valid(row, s))
			ggmlviz__setting_refusal(row, why, sizeof why);
		else if (!row->against || !row->against(s, why, sizeof why))
			continue;
		say_unstartable(row, s, why, sink);
		return -EINVAL;
	}
	if (s->cfg.reserved3_u32) {
		ggmlviz__log(sink, GGMLVIZ_LOG_ERROR, "cannot start: reserved3_u32 is not zero (fill "
			     "the config with ggmlviz_config_init())");
		return -EINVAL;
	}
	return 0;
}

void ggmlviz__settings_say(const struct ggmlviz__settings *s, const struct ggmlviz__log_sink *sink)
{
	const struct ggmlviz__setting *row;
	struct ggmlviz__settings def;
	char line[480], value[200];
	size_t n = 0;

	ggmlviz__settings_defaults(&def);
	line[0] = '\0';
	for (size_t i = 0; (row = ggmlviz__setting_at(i)) && n < sizeof line; i++) {
		if (ggmlviz__setting_same(row, s, &def))
			continue;
		row->kind->format(row, s, value, sizeof value);
		n += (size_t)snprintf(line + n, sizeof line - n, " %s=%s", row->name, value);
	}
	ggmlviz__log(sink, GGMLVIZ_LOG_INFO, "settings not at their default:%s", n ? line : " none");
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
