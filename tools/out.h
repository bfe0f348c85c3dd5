/*
 * Buffered output of the ggmlviz command (out.c): to a file or to memory,
 * counting bytes, keeping the first error.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_OUT_H
#define CLI_OUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opts.h"

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
void cli_out_u64(struct cli_out *o, uint64_t v);
void cli_out_i64(struct cli_out *o, int64_t v);
void cli_out_hex(struct cli_out *o, uint64_t v);
void cli_out_printf(struct cli_out *o, const char *fmt, ...) CLI_PRINTF(2, 3);
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

#endif /* CLI_OUT_H */
