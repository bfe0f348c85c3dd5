/*
 * What the ggmlviz command writes, and how (tools/output/): buffered
 * output to a file or to memory (out.c), strings as JSON (json.c), text
 * and CSV (escape.c), UTF-8 (utf8.c), aligned tables (table.c), numbers
 * for people (fmt.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_OUTPUT_H
#define CLI_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/opts.h"

/* ---- Buffered output to a file or to memory (out.c) ---- */

/* Buffered output to a file descriptor, counting bytes, keeping the first error. */
struct cli_out {
	int fd;
	bool owned;
	const char *path; /* for messages, and the name the output takes at close */
	char *tmp;        /* the file written, renamed to path at close; NULL: path itself */
	char *buf;
	size_t len, cap;
	uint64_t bytes;
	int error;        /* 0 or -errno */
	bool json_html;   /* JSON strings also escape < > & (\u003c ...): JSON inside an HTML page */
};

/*
 * Opens path for writing ("-" or NULL: stdout); prints why on failure and
 * returns -1. A device or a FIFO is written as it is; any other path gets
 * a new file beside it that takes its name at close, when all went well:
 * an existing file is never truncated in place, a link at path is
 * replaced rather than followed, and a failed write leaves the old file.
 */
int cli_out_open(struct cli_out *o, const char *cmd, const char *path);
void cli_out_write(struct cli_out *o, const void *p, size_t n);
void cli_out_str(struct cli_out *o, const char *s);
/* "(N more groups not shown: --top)" under a table cut short; nothing when n is 0. */
void cli_out_not_shown(struct cli_out *o, size_t n);
void cli_out_u64(struct cli_out *o, uint64_t v);
void cli_out_i64(struct cli_out *o, int64_t v);
void cli_out_hex(struct cli_out *o, uint64_t v);
void cli_out_printf(struct cli_out *o, const char *fmt, ...) CLI_PRINTF(2, 3);
/* Writes out what is buffered (a file's output, not memory's); 0 or its error (-errno). */
int cli_out_flush(struct cli_out *o);
/* Output into a growing memory buffer (o->buf, o->len) instead of a file. */
void cli_out_memory(struct cli_out *o);
/* Flushes, closes and gives the file its name; prints a write error; returns 0 or CLI_EXIT_DAMAGED. */
int cli_out_close(struct cli_out *o, const char *cmd);

static inline void cli_out_char(struct cli_out *o, char c)
{
	if (o->len == o->cap)
		cli_out_write(o, &c, 1);
	else
		o->buf[o->len++] = c, o->bytes++;
}

/* Whether paths a and b name the same existing file. */
bool cli_same_file(const char *a, const char *b);

/* ---- Strings as JSON (json.c), text and CSV (escape.c); UTF-8 (utf8.c) ---- */

/*
 * Bytes of the UTF-8 character at s (n > 0 bytes there): 1 to 4 and *valid
 * true; or, for invalid bytes, *valid false and how many go together into
 * one U+FFFD (the maximal subpart of a sequence, or 1).
 */
size_t cli_utf8_char(const unsigned char *s, size_t n, bool *valid);
/*
 * How many of s's len bytes to keep so that at most max are kept and no
 * character is cut in two: a name put into a fixed room (an invalid byte
 * counts as one character).
 */
size_t cli_utf8_cut(const char *s, size_t len, size_t max);

/* A JSON string: quoted, escaped, invalid UTF-8 replaced by U+FFFD. NULL: null. */
void cli_json_str(struct cli_out *o, const char *s, size_t len);
void cli_json_cstr(struct cli_out *o, const char *s);
/* A finite JSON number ("null" for NaN or infinity). */
void cli_json_double(struct cli_out *o, double v);
/* ns as microseconds with 3 decimals (the Chrome trace unit), exactly. */
void cli_json_us(struct cli_out *o, uint64_t ns);

/* Text: printable UTF-8 as is, the rest as C escapes (\n, \xff). */
void cli_text_str(struct cli_out *o, const char *s, size_t len);
/* The same, quotes and backslashes as they are: sentences that hold names (advise's findings). */
void cli_term_str(struct cli_out *o, const char *s, size_t len);
/* The text form of a label as a new string (the caller frees it), or NULL. */
char *cli_text_dup(const char *s, size_t len);
/* A CSV field (RFC 4180): quoted when needed; invalid UTF-8 and control
 * characters but tab, CR and LF replaced by U+FFFD. */
void cli_csv_str(struct cli_out *o, const char *s, size_t len);

/* ---- Aligned text tables (table.c) ---- */

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

/* ---- Numbers for people: durations, sizes, dates (fmt.c) ---- */

/* "s" after a count of n things, unless n is 1: "1 token", "2 tokens". */
const char *cli_s(uint64_t n);
/* "12.345 ms": ns in the unit that suits it. */
const char *cli_fmt_ns(double ns, char buf[32]);
/* "1.500 MiB" (or "512 B"). */
const char *cli_fmt_bytes(uint64_t bytes, char buf[32]);
/*
 * Whether timestamps around ns come from a steady clock (time since boot,
 * as the original ggml-viz writer used) rather than the wall clock: they
 * fall before 2001.
 */
bool cli_clock_is_steady(uint64_t ns);
/* "2023-11-14T22:13:20.123456789Z" for epoch ns. */
const char *cli_fmt_epoch(uint64_t ns, char buf[40]);

/* ---- The terminal of an interactive command: ggmlviz top (term.c) ---- */

/*
 * Takes the terminal: the alternate screen, keys without echo, the
 * terminal restored at exit, on a signal that ends the program and on a
 * crash. 0, or -ENOTTY when standard input or output is no terminal.
 */
int cli_term_enter(void);
/* Gives the terminal back as it was (also done at exit). */
void cli_term_leave(void);
/* The signal that asked the program to end (INT, TERM, HUP, QUIT, PIPE), or 0. */
int cli_term_signal(void);
/* Whether the terminal was resized since the last call. */
bool cli_term_resized(void);
void cli_term_size(int *rows, int *cols);
/* A key pressed within timeout_ms, or -1. */
int cli_term_key(int timeout_ms);
/* Draws text (lines) from the top left, cut to rows and cols, the rest cleared. */
void cli_term_draw(const char *text, size_t len, int rows, int cols);

#endif /* CLI_OUTPUT_H */
