/*
 * The layer a tensor name says it belongs to (ggmlviz_layer_of_name):
 * llama.cpp names a layer's tensors "Qcur-3", its KV cache "cache_k_l3",
 * GGUF names weights "blk.3.attn_q.weight", and whisper.cpp's model file
 * "encoder.blocks.3.attn.query.weight". Shared by the adapters,
 * which record layers, and the command, which reads older traces.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <ggmlviz/nodes.h>

#define MAX_DIGITS 9 /* what fits an int32_t */

/* len without trailing " (...)" groups, as in "Kcur-0 (view) (permuted)". */
static size_t strip_suffixes(const char *s, size_t len)
{
	while (len > 3 && s[len - 1] == ')') {
		size_t open = len - 1;
		while (open > 0 && s[open] != '(')
			open--;
		if (open == 0 || s[open - 1] != ' ')
			break;
		len = open - 1;
	}
	return len;
}

static int is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static int32_t number(const char *s, size_t n)
{
	int32_t v = 0;

	for (size_t i = 0; i < n; i++)
		v = v * 10 + (s[i] - '0');
	return v;
}

/* The trailing number of s[0..end), after "-" or "_l"; -1 if none. */
static int32_t trailing(const char *s, size_t end)
{
	size_t start = end;

	while (start > 0 && is_digit(s[start - 1]))
		start--;
	if (start == end || end - start > MAX_DIGITS)
		return -1;
	if (start >= 2 && s[start - 1] == '-')
		return number(s + start, end - start);
	if (start >= 3 && s[start - 1] == 'l' && s[start - 2] == '_')
		return number(s + start, end - start);
	return -1;
}

/* N of a "WORD.N." (w of k bytes: "blk.", "blocks.") in s[0..len), at its start or after a dot; -1 if none. */
static int32_t block(const char *s, size_t len, const char *w, size_t k)
{
	for (size_t i = 0; i + k < len; i++) {
		size_t d = i + k, e = d;
		if (memcmp(s + i, w, k) != 0 || (i > 0 && s[i - 1] != '.'))
			continue;
		while (e < len && is_digit(s[e]))
			e++;
		if (e > d && e - d <= MAX_DIGITS && e < len && s[e] == '.')
			return number(s + d, e - d);
	}
	return -1;
}

int32_t ggmlviz_layer_of_name(const char *name, size_t len)
{
	int32_t layer;

	if (!name || len == 0)
		return -1;
	len = strip_suffixes(name, len);
	layer = trailing(name, len);
	if (layer < 0)
		layer = block(name, len, "blk.", 4);
	return layer >= 0 ? layer : block(name, len, "blocks.", 7);
}
