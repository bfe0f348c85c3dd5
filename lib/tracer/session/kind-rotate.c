/*
 * The kind of GGML_VIZ_ROTATE: SIZE[:KEEP], a trace written as segments of
 * at most SIZE bytes (a number, or a number and K, M, G or T for KiB, MiB,
 * GiB, TiB), the newest KEEP of them kept (0 or none: every one). Unset,
 * empty or 0: one file, no rotation.
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

static const char units[] = "KMGT";

int ggmlviz__size_parse(const char *s, const char *end, uint64_t *out)
{
	uint64_t v = 0;
	const char *unit;

	if (s == end || !isdigit((unsigned char)*s))
		return GGMLVIZ_EVALUE;
	for (; s < end && isdigit((unsigned char)*s); s++) {
		if (v > (UINT64_MAX - 9) / 10)
			return GGMLVIZ_EVALUE;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	if (s < end) {
		unit = strchr(units, toupper((unsigned char)*s));
		if (!unit || !*unit || s + 1 != end)
			return GGMLVIZ_EVALUE;
		for (const char *u = units; u <= unit; u++) {
			if (v > UINT64_MAX / 1024)
				return GGMLVIZ_EVALUE;
			v *= 1024;
		}
	}
	*out = v;
	return 0;
}

static int keep_parse(const char *s, uint32_t *out)
{
	uint32_t v = 0;

	if (!*s)
		return GGMLVIZ_EVALUE;
	for (; *s; s++) {
		if (!isdigit((unsigned char)*s))
			return GGMLVIZ_EVALUE;
		v = v * 10 + (uint32_t)(*s - '0');
		if (v > GGMLVIZ__ROTATE_MAX_KEEP)
			return GGMLVIZ_EVALUE;
	}
	*out = v;
	return 0;
}

static int rotate_ok(const struct ggmlviz__rotate *r)
{
	return (r->bytes == 0 && r->keep == 0) ||
	       (r->bytes >= GGMLVIZ__ROTATE_MIN_BYTES && r->keep <= GGMLVIZ__ROTATE_MAX_KEEP);
}

static int rotate_parse(const struct ggmlviz__setting *row, const char *text,
			struct ggmlviz__settings *s)
{
	const char *colon = strchr(text, ':');
	struct ggmlviz__rotate r = { 0, 0 };

	if (!*text) { /* as format() writes no rotation */
		memcpy((char *)s + row->offset, &r, sizeof r);
		return 0;
	}
	if (ggmlviz__size_parse(text, colon ? colon : text + strlen(text), &r.bytes) < 0 ||
	    (colon && keep_parse(colon + 1, &r.keep) < 0) || !rotate_ok(&r) ||
	    (r.bytes == 0 && colon))
		return GGMLVIZ_EVALUE;
	memcpy((char *)s + row->offset, &r, sizeof r);
	return 0;
}

static struct ggmlviz__rotate rotate_load(const struct ggmlviz__setting *row,
					  const struct ggmlviz__settings *s)
{
	struct ggmlviz__rotate r;

	memcpy(&r, (const char *)s + row->offset, sizeof r);
	return r;
}

int ggmlviz__size_format(uint64_t bytes, char *buf, size_t size)
{
	int unit = -1;

	while (unit + 1 < (int)strlen(units) && bytes && bytes % 1024 == 0) {
		bytes /= 1024;
		unit++;
	}
	if (unit < 0)
		return snprintf(buf, size, "%" PRIu64, bytes);
	return snprintf(buf, size, "%" PRIu64 "%c", bytes, units[unit]);
}

static int rotate_format(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s,
			 char *buf, size_t size)
{
	struct ggmlviz__rotate r = rotate_load(row, s);
	int n;

	if (!r.bytes)
		return snprintf(buf, size, "%s", "");
	n = ggmlviz__size_format(r.bytes, buf, size);
	if (!r.keep || n < 0 || (size_t)n >= size)
		return n;
	return n + snprintf(buf + n, size - (size_t)n, ":%" PRIu32, r.keep);
}

static int rotate_valid(const struct ggmlviz__setting *row, const struct ggmlviz__settings *s)
{
	struct ggmlviz__rotate r = rotate_load(row, s);

	return rotate_ok(&r);
}

const struct ggmlviz__setting_kind ggmlviz__kind_rotate = {
	rotate_parse, NULL, rotate_format, rotate_valid, 0,
};
