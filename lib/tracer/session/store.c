/*
 * The tracer's own settings: one set a process, as the tracer is one a
 * process. ggmlviz_setting_set() sets them by name; ggmlviz_start()
 * begins from them (a config given to it brings 0.2's members over them,
 * the environment over them when it is given none). While a session holds
 * them (and while a start is under way) they are frozen.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include <ggmlviz/format.h>
#include <ggmlviz/tracer.h>

#include "tracer/session/settings.h"
#include "util/leaving.h"
#include "util/pages.h"

/* Guards everything below. Taken after the session's lock where both are held. */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ggmlviz__settings settings;
static int made;                            /* settings hold their defaults at least */
static char *owned[GGMLVIZ__SETTINGS_MAX];  /* the copies of text values, by row */
/*
 * Starts under way and sessions open that hold the settings: while
 * nonzero, nothing may change them (and no text copy is freed under a
 * start that reads it).
 */
static int holders;

static void made_locked(void)
{
	if (!made)
		ggmlviz__settings_defaults(&settings);
	made = 1;
}

/* The row's value in from, into the settings (a text value copied); 0 or -ENOMEM. */
static int keep_row(const struct ggmlviz__setting *row, const struct ggmlviz__settings *from)
{
	size_t i = ggmlviz__setting_index(row);
	const char *text;
	char *copy = NULL;

	if (ggmlviz__setting_same(row, &settings, from))
		return 0;
	if (!row->kind->text) {
		memcpy((char *)&settings + row->offset, (const char *)from + row->offset, row->size);
		return 0;
	}
	memcpy(&text, (const char *)from + row->offset, sizeof text);
	if (text && !(copy = ggmlviz__pages_copy(text)))
		return -ENOMEM;
	text = copy;
	memcpy((char *)&settings + row->offset, &text, sizeof text);
	ggmlviz__pages_free(owned[i]);
	owned[i] = copy;
	return 0;
}

/* Every row of from that differs, into the settings: 0 or -ENOMEM (the rows before kept). */
static int keep_rows(const struct ggmlviz__settings *from)
{
	const struct ggmlviz__setting *row;
	int rc = 0;

	for (size_t i = 0; rc == 0 && (row = ggmlviz__setting_at(i)); i++)
		rc = keep_row(row, from);
	return rc;
}

/*
 * value (NULL: the default) or number into the row, as ggmlviz_setting_set*()
 * do; every row it changed kept (one setting may set others: a preset).
 */
static int set_row(const struct ggmlviz__setting *row, const char *value, const int64_t *number)
{
	struct ggmlviz__settings next;
	int rc = 0;

	ggmlviz__inner_lock(&lock);
	made_locked();
	next = settings;
	if (holders)
		rc = GGMLVIZ_EACTIVE;
	else if (number)
		rc = row->kind->from_int(row, *number, &next);
	else if (value)
		rc = row->kind->parse(row, value, &next);
	else
		ggmlviz__setting_default(row, &next);
	if (rc == 0)
		rc = keep_rows(&next);
	ggmlviz__inner_unlock(&lock);
	return rc;
}

int ggmlviz_setting_set(const char *name, const char *value)
{
	const struct ggmlviz__setting *row = ggmlviz__setting_find(name);

	return row ? set_row(row, value, NULL) : GGMLVIZ_ESETTING;
}

int ggmlviz_setting_set_int(const char *name, int64_t value)
{
	const struct ggmlviz__setting *row = ggmlviz__setting_find(name);

	if (!row)
		return GGMLVIZ_ESETTING;
	return row->kind->from_int ? set_row(row, NULL, &value) : GGMLVIZ_ETYPE;
}

int ggmlviz_setting_get(const char *name, char *buf, size_t size)
{
	const struct ggmlviz__setting *row = ggmlviz__setting_find(name);
	int n;

	if (!row)
		return GGMLVIZ_ESETTING;
	ggmlviz__inner_lock(&lock);
	made_locked();
	n = row->kind->format(row, &settings, buf, size);
	ggmlviz__inner_unlock(&lock);
	return n < 0 ? -EINVAL : n;
}

const char *ggmlviz_setting_name(size_t index)
{
	const struct ggmlviz__setting *row = ggmlviz__setting_at(index);

	return row ? row->name : NULL;
}

void ggmlviz__settings_copy(struct ggmlviz__settings *out)
{
	ggmlviz__inner_lock(&lock);
	made_locked();
	*out = settings;
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__settings_take(struct ggmlviz__settings *out)
{
	ggmlviz__inner_lock(&lock);
	made_locked();
	holders++;
	*out = settings;
	ggmlviz__inner_unlock(&lock);
}

void ggmlviz__settings_give_back(void)
{
	ggmlviz__inner_lock(&lock);
	if (holders > 0)
		holders--;
	ggmlviz__inner_unlock(&lock);
}

/* Whether s differs from the settings in a row added since 0.2. */
static int later_differ_locked(const struct ggmlviz__settings *s)
{
	const struct ggmlviz__setting *row;

	for (size_t i = 0; (row = ggmlviz__setting_at(i)); i++)
		if (!ggmlviz__setting_in_config(row) && !ggmlviz__setting_same(row, &settings, s))
			return 1;
	return 0;
}

int ggmlviz__settings_keep_later(const struct ggmlviz__settings *s)
{
	const struct ggmlviz__setting *row;
	int rc = 0;

	ggmlviz__inner_lock(&lock);
	made_locked();
	if (holders)
		rc = later_differ_locked(s) ? GGMLVIZ_EACTIVE : 0;
	for (size_t i = 0; !holders && rc == 0 && (row = ggmlviz__setting_at(i)); i++)
		if (!ggmlviz__setting_in_config(row))
			rc = keep_row(row, s);
	ggmlviz__inner_unlock(&lock);
	return rc;
}

void ggmlviz__settings_before_fork(void)
{
	ggmlviz__inner_lock(&lock);
}

void ggmlviz__settings_after_fork(int child)
{
	if (child)
		holders = 0; /* no session, and no start under way, in the child */
	ggmlviz__inner_unlock(&lock);
}
