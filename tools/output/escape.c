/*
 * Labels in text and CSV output. A label is whatever bytes the traced
 * program gave: text output shows control characters and invalid UTF-8
 * as C escapes (so a line stays a line, and an escape sequence in a name
 * never drives the terminal), CSV quotes per RFC 4180 and replaces
 * invalid UTF-8 with U+FFFD.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>

#include "output/output.h"

static void text_escape(struct cli_out *o, unsigned char c)
{
	char buf[5];

	switch (c) {
	case '\n': cli_out_write(o, "\\n", 2); return;
	case '\t': cli_out_write(o, "\\t", 2); return;
	case '\r': cli_out_write(o, "\\r", 2); return;
	case '\\': cli_out_write(o, "\\\\", 2); return;
	case '"': cli_out_write(o, "\\\"", 2); return;
	default: break;
	}
	snprintf(buf, sizeof buf, "\\x%02x", c);
	cli_out_write(o, buf, 4);
}

/* s as text: printable UTF-8 as is, the rest as C escapes; quotes and backslashes too where quoted. */
static void text_out(struct cli_out *o, const char *s, size_t len, bool quoted)
{
	const unsigned char *p = (const unsigned char *)s, *end;

	if (!s)
		return; /* no label: nothing to write (and NULL + 0 is undefined) */
	end = p + len;
	while (p < end) {
		bool valid;
		size_t n = cli_utf8_char(p, (size_t)(end - p), &valid);

		if (valid && *p >= 0x20 && *p != 0x7f && (!quoted || (*p != '\\' && *p != '"')))
			cli_out_write(o, p, n);
		else
			for (size_t i = 0; i < n; i++)
				text_escape(o, p[i]);
		p += n;
	}
}

void cli_text_str(struct cli_out *o, const char *s, size_t len)
{
	text_out(o, s, len, true);
}

void cli_term_str(struct cli_out *o, const char *s, size_t len)
{
	text_out(o, s, len, false);
}

/* Control characters RFC 4180 has no room for (tabs and line ends are kept, quoted). */
static bool csv_control(unsigned char c)
{
	return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
}

static bool csv_needs_quotes(const char *s, size_t len)
{
	if (len && (s[0] == ' ' || s[len - 1] == ' '))
		return true;
	for (size_t i = 0; i < len; i++)
		if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r')
			return true;
	return false;
}

void cli_csv_str(struct cli_out *o, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	bool quote = csv_needs_quotes(s, len);

	if (quote)
		cli_out_char(o, '"');
	while (p < end) {
		bool valid;
		size_t n = cli_utf8_char(p, (size_t)(end - p), &valid);

		if (!valid || csv_control(*p))
			cli_out_write(o, "\xef\xbf\xbd", 3);
		else if (*p == '"')
			cli_out_write(o, "\"\"", 2);
		else
			cli_out_write(o, p, n);
		p += n;
	}
	if (quote)
		cli_out_char(o, '"');
}

char *cli_text_dup(const char *s, size_t len)
{
	struct cli_out o;

	cli_out_memory(&o);
	cli_text_str(&o, s, len);
	cli_out_char(&o, '\0');
	if (o.error) {
		free(o.buf);
		return NULL;
	}
	return o.buf;
}
