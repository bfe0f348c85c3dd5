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

#include "cli.h"

void ggmlviz__table_init(struct ggmlviz__table *t, size_t ncols)
{
	memset(t, 0, sizeof *t);
	t->ncols = ncols < GGMLVIZ__TABLE_MAX_COLS ? ncols : GGMLVIZ__TABLE_MAX_COLS;
}

bool ggmlviz__table_add(struct ggmlviz__table *t, const char *fmt, ...)
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

static void pad(struct ggmlviz__out *o, size_t n)
{
	while (n--)
		ggmlviz__out_char(o, ' ');
}

void ggmlviz__table_print(const struct ggmlviz__table *t, struct ggmlviz__out *o,
			  const char *indent)
{
	size_t widths[GGMLVIZ__TABLE_MAX_COLS] = { 0 };

	for (size_t i = 0; i < t->ncells; i++) {
		size_t w = width(t->cells[i]);
		if (w > widths[i % t->ncols])
			widths[i % t->ncols] = w;
	}
	for (size_t i = 0; i < t->ncells; i++) {
		size_t col = i % t->ncols, w = width(t->cells[i]);
		bool last = col + 1 == t->ncols;

		ggmlviz__out_str(o, col ? "  " : indent);
		if (col)
			pad(o, widths[col] - w);
		ggmlviz__out_str(o, t->cells[i]);
		if (!col && !last)
			pad(o, widths[0] - w);
		if (last)
			ggmlviz__out_char(o, '\n');
	}
}

void ggmlviz__table_free(struct ggmlviz__table *t)
{
	for (size_t i = 0; i < t->ncells; i++)
		free(t->cells[i]);
	free(t->cells);
	t->cells = NULL;
	t->ncells = t->cap = 0;
}
