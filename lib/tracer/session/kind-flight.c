/*
 * The kinds of the flight recorder's settings.
 *
 * GGML_VIZ_FLIGHT: SECONDS[:KEEP[:MEMORY]], the last SECONDS of every op
 * kept in memory (at most MEMORY bytes: a number, or a number and K, M or
 * G; 256M unless said), the newest KEEP snapshots kept (0 or none: every
 * one). Unset, empty or 0: no flight recorder.
 *
 * GGML_VIZ_FLIGHT_ON: ttft:MS,token:MS, either or both: a snapshot when a
 * request's time to first token, or its time per output token after the
 * first, is over MS milliseconds. Unset or empty: snapshots only when
 * asked (`ggmlviz snapshot`).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include <ggmlviz/format.h>

#include "tracer/session/settings.h"

/* Decimal digits [s, end), at most max: *out; 0 or GGMLVIZ_EVALUE. */
static int number(const char *s, const char *end, uint32_t max, uint32_t *out)
{
	uint64_t v = 0;

	if (s == end)
		return GGMLVIZ_EVALUE;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s))
			return GGMLVIZ_EVALUE;
		v = v * 10 + (uint64_t)(*s - '0');
		if (v > max)
			return GGMLVIZ_EVALUE;
	}
	*out = (uint32_t)v;
	return 0;
}

/* The end of the field that starts at s: the next sep, or the string's end. */
static const char *field_end(const char *s, char sep)
{
	const char *e = strchr(s, sep);

	return e ? e : s + strlen(s);
}

static int flight_ok(const struct ggmlviz__flight *f)
{
	if (f->seconds == 0)
		return f->keep == 0 && f->bytes == 0;
	return f->seconds <= GGMLVIZ__FLIGHT_MAX_SECONDS && f->keep <= GGMLVIZ__FLIGHT_MAX_KEEP &&
	       f->bytes >= GGMLVIZ__FLIGHT_MIN_BYTES;
}

/* SECONDS[:KEEP[:MEMORY]] into f; 0 or GGMLVIZ_EVALUE. */
static int flight_fields(const char *text, struct ggmlviz__flight *f)
{
	const char *end = field_end(text, ':');

	if (number(text, end, GGMLVIZ__FLIGHT_MAX_SECONDS, &f->seconds) < 0)
		return GGMLVIZ_EVALUE;
	if (!*end)
		return 0;
	text = end + 1;
	end = field_end(text, ':');
	if (number(text, end, GGMLVIZ__FLIGHT_MAX_KEEP, &f->keep) < 0)
		return GGMLVIZ_EVALUE;
	if (!*end)
		return 0;
	return ggmlviz__size_parse(end + 1, end + 1 + strlen(end + 1), &f->bytes);
}

static int flight_parse(const struct ggmlviz__setting *row, const char *text,
			struct ggmlviz__settings *s)
{
	struct ggmlviz__flight f = { 0, 0, GGMLVIZ__FLIGHT_BYTES };

	if (!*text || strcmp(text, "0") == 0)
		f.bytes = 0;
	else if (flight_fields(text, &f) < 0 || f.seconds == 0 || !flight_ok(&f))
		return GGMLVIZ_EVALUE;
	memcpy((char *)s + row->offset, &f, sizeof f);
	return 0;
}

static struct ggmlviz__flight flight_load(const struct ggmlviz__setting *row,
					  const struct ggmlviz__settings *s)
{
	struct ggmlviz__flight f;

	memcpy(&f, (const char *)s + row->offset, sizeof f);
	return f;
}

static int flight_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			 char *buf, size_t size)
{
	struct ggmlviz__flight f = flight_load(row, s);
	int n;

	if (!f.seconds)
		return snprintf(buf, size, "%s", "");
	n = snprintf(buf, size, "%" PRIu32 ":%" PRIu32 ":", f.seconds, f.keep);
	if (n < 0 || (size_t)n >= size)
		return n;
	return n + ggmlviz__size_format(f.bytes, buf + n, size - (size_t)n);
}

static int flight_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	struct ggmlviz__flight f = flight_load(row, s);

	return flight_ok(&f);
}

const struct ggmlviz__setting_kind ggmlviz__kind_flight = {
	flight_parse, NULL, flight_format, flight_valid, 0,
};

/* One "NAME:MS" of GGML_VIZ_FLIGHT_ON, [s, end), into o; 0 or GGMLVIZ_EVALUE. */
static int trigger_parse(const char *s, const char *end, struct ggmlviz__flight_on *o)
{
	const char *colon = memchr(s, ':', (size_t)(end - s));
	uint32_t ms, *into;

	if (!colon)
		return GGMLVIZ_EVALUE;
	if ((size_t)(colon - s) == 4 && memcmp(s, "ttft", 4) == 0)
		into = &o->ttft_ms;
	else if ((size_t)(colon - s) == 5 && memcmp(s, "token", 5) == 0)
		into = &o->token_ms;
	else
		return GGMLVIZ_EVALUE;
	if (*into || number(colon + 1, end, GGMLVIZ__FLIGHT_ON_MAX_MS, &ms) < 0 || ms == 0)
		return GGMLVIZ_EVALUE; /* said twice, or not a number of ms */
	*into = ms;
	return 0;
}

static int flight_on_parse(const struct ggmlviz__setting *row, const char *text,
			   struct ggmlviz__settings *s)
{
	struct ggmlviz__flight_on o = { 0, 0 };

	while (*text) {
		const char *end = field_end(text, ',');

		if (trigger_parse(text, end, &o) < 0)
			return GGMLVIZ_EVALUE;
		text = *end ? end + 1 : end;
		if (end[0] == ',' && !*text)
			return GGMLVIZ_EVALUE; /* a comma with nothing after it */
	}
	memcpy((char *)s + row->offset, &o, sizeof o);
	return 0;
}

static struct ggmlviz__flight_on flight_on_load(const struct ggmlviz__setting *row,
						const struct ggmlviz__settings *s)
{
	struct ggmlviz__flight_on o;

	memcpy(&o, (const char *)s + row->offset, sizeof o);
	return o;
}

static int flight_on_format(const struct ggmlviz__setting *row,
			    const struct ggmlviz__settings *s, char *buf, size_t size)
{
	struct ggmlviz__flight_on o = flight_on_load(row, s);

	if (o.ttft_ms && o.token_ms)
		return snprintf(buf, size, "ttft:%" PRIu32 ",token:%" PRIu32, o.ttft_ms,
				o.token_ms);
	if (o.ttft_ms)
		return snprintf(buf, size, "ttft:%" PRIu32, o.ttft_ms);
	if (o.token_ms)
		return snprintf(buf, size, "token:%" PRIu32, o.token_ms);
	return snprintf(buf, size, "%s", "");
}

static int flight_on_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	struct ggmlviz__flight_on o = flight_on_load(row, s);

	return o.ttft_ms <= GGMLVIZ__FLIGHT_ON_MAX_MS && o.token_ms <= GGMLVIZ__FLIGHT_ON_MAX_MS;
}

const struct ggmlviz__setting_kind ggmlviz__kind_flight_on = {
	flight_on_parse, NULL, flight_on_format, flight_on_valid, 0,
};
