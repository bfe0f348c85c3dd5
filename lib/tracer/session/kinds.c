/*
 * The kinds of settings: how a value is read from text or a number,
 * written back as text, and checked. A choice (booleans among them), a
 * number with a range, a string, and a ratio K/N.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <ggmlviz/format.h>

#include "tracer/session/settings.h"

const struct ggmlviz__choice ggmlviz__bool_words[] = {
	{ "0", 0 },     { "1", 1 },    { "false", 0 }, { "true", 1 }, { "no", 0 },
	{ "yes", 1 },   { "off", 0 },  { "on", 1 },    { NULL, 0 },
};

static void *field_of(const struct ggmlviz__setting *row, struct ggmlviz__settings *s)
{
	return (char *)s + row->offset;
}

static const void *field_in(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	return (const char *)s + row->offset;
}

/* An unsigned member of 1, 2, 4 or 8 bytes; an int member reads as its 32 bits. */
static uint64_t load(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	const void *f = field_in(row, s);
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64;

	switch (row->size) {
	case 1:
		memcpy(&u8, f, 1);
		return u8;
	case 2:
		memcpy(&u16, f, 2);
		return u16;
	case 4:
		memcpy(&u32, f, 4);
		return u32;
	default:
		memcpy(&u64, f, 8);
		return u64;
	}
}

static void store(const struct ggmlviz__setting *row, struct ggmlviz__settings *s, uint64_t v)
{
	void *f = field_of(row, s);
	uint8_t u8 = (uint8_t)v;
	uint16_t u16 = (uint16_t)v;
	uint32_t u32 = (uint32_t)v;

	switch (row->size) {
	case 1:
		memcpy(f, &u8, 1);
		break;
	case 2:
		memcpy(f, &u16, 2);
		break;
	case 4:
		memcpy(f, &u32, 4);
		break;
	default:
		memcpy(f, &v, 8);
	}
}

/* Plain decimal digits only: no sign, no spaces, no suffix, no overflow. */
static int parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;

	if (!*s)
		return GGMLVIZ_EVALUE;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || v > (UINT64_MAX - d) / 10)
			return GGMLVIZ_EVALUE;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

/* ---- a choice: words that stand for values (a boolean is one) ---- */

static const struct ggmlviz__choice *word_of(const struct ggmlviz__choice *c, const char *word)
{
	for (; c && c->word; c++)
		if (!strcasecmp(c->word, word))
			return c;
	return NULL;
}

static const struct ggmlviz__choice *value_of(const struct ggmlviz__choice *c, int64_t value)
{
	for (; c && c->word; c++)
		if (c->value == value)
			return c;
	return NULL;
}

/* The row's own words, then the booleans where it takes them. */
static const struct ggmlviz__choice *choice_by_word(const struct ggmlviz__setting *row,
						    const char *word)
{
	const struct ggmlviz__choice *c = word_of(row->choices, word);

	if (!c && (row->flags & GGMLVIZ__SET_BOOLEAN))
		c = word_of(ggmlviz__bool_words, word);
	return c;
}

static const struct ggmlviz__choice *choice_by_value(const struct ggmlviz__setting *row,
						     int64_t value)
{
	const struct ggmlviz__choice *c = value_of(row->choices, value);

	if (!c && (row->flags & GGMLVIZ__SET_BOOLEAN))
		c = value_of(ggmlviz__bool_words, value);
	return c;
}

static void choice_store(const struct ggmlviz__setting *row, struct ggmlviz__settings *s, int v)
{
	store(row, s, (uint64_t)(uint32_t)((row->flags & GGMLVIZ__SET_NEGATED) ? !v : v));
}

/* The value a member stands for: a boolean's nonzero is 1, a negated one is turned back. */
static int64_t choice_load(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	uint64_t raw = load(row, s);

	if (row->flags & GGMLVIZ__SET_NEGATED)
		return raw == 0;
	if (!row->choices)
		return raw != 0;
	return (int64_t)(int32_t)(uint32_t)raw;
}

static int choice_parse(const struct ggmlviz__setting *row, const char *text,
			struct ggmlviz__settings *s)
{
	const struct ggmlviz__choice *c = choice_by_word(row, text);

	if (!c)
		return GGMLVIZ_EVALUE;
	choice_store(row, s, c->value);
	return 0;
}

static int choice_from_int(const struct ggmlviz__setting *row, int64_t value,
			   struct ggmlviz__settings *s)
{
	const struct ggmlviz__choice *c = choice_by_value(row, value);

	if (!c)
		return GGMLVIZ_EVALUE;
	choice_store(row, s, c->value);
	return 0;
}

static int choice_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			 char *buf, size_t size)
{
	int64_t v = choice_load(row, s);
	const struct ggmlviz__choice *c = choice_by_value(row, v);

	return c ? snprintf(buf, size, "%s", c->word) : snprintf(buf, size, "%" PRId64, v);
}

static int choice_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	return choice_by_value(row, choice_load(row, s)) != NULL;
}

const struct ggmlviz__setting_kind ggmlviz__kind_choice = {
	choice_parse, choice_from_int, choice_format, choice_valid, 0,
};

/* ---- a number, in a range ---- */

static int number_ok(const struct ggmlviz__setting *row, uint64_t v)
{
	if (v == 0 && (row->flags & GGMLVIZ__SET_ZERO_OK))
		return 1;
	if (row->size < 8 && v >> (8 * row->size))
		return 0;
	return v >= row->min && v <= row->max && (!(row->flags & GGMLVIZ__SET_POW2) || !(v & (v - 1)));
}

static int number_parse(const struct ggmlviz__setting *row, const char *text,
			struct ggmlviz__settings *s)
{
	uint64_t v;

	if (parse_u64(text, &v) < 0 || !number_ok(row, v))
		return GGMLVIZ_EVALUE;
	store(row, s, v);
	return 0;
}

static int number_from_int(const struct ggmlviz__setting *row, int64_t value,
			   struct ggmlviz__settings *s)
{
	if (value < 0 || !number_ok(row, (uint64_t)value))
		return GGMLVIZ_EVALUE;
	store(row, s, (uint64_t)value);
	return 0;
}

static int number_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			 char *buf, size_t size)
{
	return snprintf(buf, size, "%" PRIu64, load(row, s));
}

static int number_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	return number_ok(row, load(row, s));
}

const struct ggmlviz__setting_kind ggmlviz__kind_number = {
	number_parse, number_from_int, number_format, number_valid, 0,
};

/* ---- a string (borrowed here; the tracer's settings keep a copy) ---- */

static const char *text_load(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	const char *t;

	memcpy(&t, field_in(row, s), sizeof t);
	return t;
}

static int text_parse(const struct ggmlviz__setting *row, const char *text,
		      struct ggmlviz__settings *s)
{
	if (!*text)
		return GGMLVIZ_EVALUE;
	memcpy(field_of(row, s), &text, sizeof text);
	return 0;
}

static int text_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
		       char *buf, size_t size)
{
	const char *t = text_load(row, s);

	return snprintf(buf, size, "%s", t ? t : "");
}

static int text_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	const char *t = text_load(row, s);

	return !(row->flags & GGMLVIZ__SET_REQUIRED) || (t && *t);
}

const struct ggmlviz__setting_kind ggmlviz__kind_text = {
	text_parse, NULL, text_format, text_valid, 1,
};

/* ---- a ratio K/N: two uint16_t members, K first; 0/0 unset (row->max: N's most) ---- */

static void ratio_load(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
		       uint16_t kn[2])
{
	memcpy(kn, field_in(row, s), 2 * sizeof kn[0]);
}

static int ratio_ok(const struct ggmlviz__setting *row, uint64_t k, uint64_t n)
{
	return (k == 0 && n == 0) || (k >= 1 && k <= n && n <= row->max);
}

static int ratio_parse(const struct ggmlviz__setting *row, const char *text,
		       struct ggmlviz__settings *s)
{
	const char *slash = strchr(text, '/');
	char first[24];
	uint64_t k, n;
	uint16_t kn[2];

	if (!slash || (size_t)(slash - text) >= sizeof first)
		return GGMLVIZ_EVALUE;
	memcpy(first, text, (size_t)(slash - text));
	first[slash - text] = '\0';
	if (parse_u64(first, &k) < 0 || parse_u64(slash + 1, &n) < 0 || !k || !ratio_ok(row, k, n))
		return GGMLVIZ_EVALUE;
	kn[0] = (uint16_t)k, kn[1] = (uint16_t)n;
	memcpy(field_of(row, s), kn, sizeof kn);
	return 0;
}

static int ratio_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			char *buf, size_t size)
{
	uint16_t kn[2];

	ratio_load(row, s, kn);
	if (!kn[0] && !kn[1])
		return snprintf(buf, size, "%s", "");
	return snprintf(buf, size, "%u/%u", kn[0], kn[1]);
}

static int ratio_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	uint16_t kn[2];

	ratio_load(row, s, kn);
	return ratio_ok(row, kn[0], kn[1]);
}

const struct ggmlviz__setting_kind ggmlviz__kind_ratio = {
	ratio_parse, NULL, ratio_format, ratio_valid, 0,
};
