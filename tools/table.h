/*
 * Aligned text tables (table.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_TABLE_H
#define CLI_TABLE_H

#include <stddef.h>
#include <stdbool.h>

#include "opts.h"
#include "out.h"

#define CLI_TABLE_MAX_COLS 16

struct cli_table {
	size_t ncols, ncells, cap;
	char **cells;
};

void cli_table_init(struct cli_table *t, size_t ncols);
/* Appends a cell, row by row; false when out of memory. */
bool cli_table_add(struct cli_table *t, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Prints the rows: first column left-aligned, the others right-aligned. */
void cli_table_print(const struct cli_table *t, struct cli_out *o,
			  const char *indent);
void cli_table_free(struct cli_table *t);

#endif /* CLI_TABLE_H */
