/*
 * Strict UTF-8 (RFC 3629): no overlong forms, no surrogates, nothing past
 * U+10FFFF. Labels come from the traced program and may hold any bytes;
 * JSON, CSV and text output replace what is not valid, one U+FFFD for each
 * maximal subpart of a sequence, as the WHATWG and Unicode decoders do.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "output/output.h"

static bool continuation(unsigned char c)
{
	return (c & 0xC0) == 0x80;
}

size_t cli_utf8_char(const unsigned char *s, size_t n, bool *valid)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xBF;
	size_t len, i;

	*valid = c < 0x80;
	if (c < 0xC2 || c > 0xF4)
		return 1;
	len = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
	if (c == 0xE0)
		lo = 0xA0; /* overlong */
	else if (c == 0xED)
		hi = 0x9F; /* surrogates */
	else if (c == 0xF0)
		lo = 0x90; /* overlong */
	else if (c == 0xF4)
		hi = 0x8F; /* past U+10FFFF */
	if (n < 2 || s[1] < lo || s[1] > hi)
		return 1;
	for (i = 2; i < len; i++)
		if (i >= n || !continuation(s[i]))
			return i; /* the maximal subpart of a sequence, replaced as one */
	*valid = true;
	return len;
}

size_t cli_utf8_cut(const char *s, size_t len, size_t max)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t at = 0;

	while (at < len) {
		bool valid;
		size_t n = cli_utf8_char(p + at, len - at, &valid);

		if (at + n > max)
			break;
		at += n;
	}
	return at;
}
