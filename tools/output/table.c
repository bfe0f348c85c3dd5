/*
 * Aligned text tables: cells are collected (a table holds one row per
 * group, never one per event), then printed with each column as wide as
 * its widest cell.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "output/output.h"

void cli_table_init(struct cli_table *t, size_t ncols)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols < CLI_TABLE_MAX_COLS ? ncols : CLI_TABLE_MAX_COLS;
}

bool cli_table_add(struct cli_table *t, const char *fmt, ...)
{
	char *cell = NULL;
	va_list ap;
	int n;

	if (t->ncells == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char **cells = realloc(t->cells, cap * sizeof *cells);
		if (!cells)
			return false;
		t->cells = cells;
		t->cap = cap;
	}
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(cell = malloc((size_t)n + 1)))
		return false;
	va_start(ap, fmt);
	vsnprintf(cell, (size_t)n + 1, fmt, ap);
	va_end(ap);
	t->cells[t->ncells++] = cell;
	return true;
}

/* Display width: UTF-8 continuation bytes take no column. */
static size_t width(const char *s)
{
	size_t w = 0;

	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void pad(struct cli_out *o, size_t n)
{
	while (n--)
		cli_out_char(o, ' ');
}

void cli_table_print(const struct cli_table *t, struct cli_out *o,
			  const char *indent)
{
	size_t widths[CLI_TABLE_MAX_COLS] = { 0 };

	for (size_t i = 0; i < t->ncells; i++) {
		size_t w = width(t->cells[i]);
		if (w > widths[i % t->ncols])
			widths[i % t->ncols] = w;
	}
	for (size_t i = 0; i < t->ncells; i++) {
		size_t col = i % t->ncols, w = width(t->cells[i]);
		bool last = col + 1 == t->ncols;

		cli_out_str(o, col ? "  " : indent);
		if (col)
			pad(o, widths[col] - w);
		cli_out_str(o, t->cells[i]);
		if (!col && !last)
			pad(o, widths[0] - w);
		if (last)
			cli_out_char(o, '\n');
	}
}

void cli_table_free(struct cli_table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->ncells = t->cap = 0;
}
