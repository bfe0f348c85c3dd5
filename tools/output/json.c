/*
 * Strict JSON output (RFC 8259): strings with every control character
 * escaped and invalid UTF-8 replaced by U+FFFD, numbers that are never
 * NaN or infinity, and microseconds written exactly from nanoseconds.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "output/output.h"

/*
 * Bytes written as they are: printable ASCII but the quote and the
 * backslash, and, for JSON inside an HTML page, < > & (so that no string
 * can close the script element that holds it).
 */
static bool plain(const struct cli_out *o, unsigned char c)
{
	return c >= 0x20 && c < 0x80 && c != '"' && c != '\\' &&
	       !(o->json_html && (c == '<' || c == '>' || c == '&'));
}

static void escape_char(struct cli_out *o, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	const char *short_form = NULL;
	char u[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };

	switch (c) {
	case '"': short_form = "\\\""; break;
	case '\\': short_form = "\\\\"; break;
	case '\b': short_form = "\\b"; break;
	case '\f': short_form = "\\f"; break;
	case '\n': short_form = "\\n"; break;
	case '\r': short_form = "\\r"; break;
	case '\t': short_form = "\\t"; break;
	default: break;
	}
	if (short_form)
		cli_out_write(o, short_form, 2);
	else
		cli_out_write(o, u, sizeof u);
}

void cli_json_str(struct cli_out *o, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end;

	if (!s) {
		cli_out_write(o, "null", 4);
		return;
	}
	end = p + len;
	cli_out_char(o, '"');
	while (p < end) {
		const unsigned char *run = p;
		bool valid;
		size_t n;

		while (p < end && plain(o, *p))
			p++;
		cli_out_write(o, run, (size_t)(p - run));
		if (p == end)
			break;
		n = cli_utf8_char(p, (size_t)(end - p), &valid);
		if (*p < 0x80)
			escape_char(o, *p);
		else if (valid)
			cli_out_write(o, p, n);
		else
			cli_out_write(o, "\\ufffd", 6);
		p += n;
	}
	cli_out_char(o, '"');
}

void cli_json_cstr(struct cli_out *o, const char *s)
{
	cli_json_str(o, s, s ? strlen(s) : 0);
}

void cli_json_double(struct cli_out *o, double v)
{
	if (!isfinite(v))
		cli_out_write(o, "null", 4);
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		cli_out_i64(o, (int64_t)v);
	else
		cli_out_printf(o, "%.10g", v);
}

void cli_json_us(struct cli_out *o, uint64_t ns)
{
	char frac[4] = { '.', (char)('0' + ns / 100 % 10), (char)('0' + ns / 10 % 10),
			 (char)('0' + ns % 10) };

	cli_out_u64(o, ns / 1000);
	cli_out_write(o, frac, sizeof frac);
}
