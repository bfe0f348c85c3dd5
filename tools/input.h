/*
 * Reading a trace in the ggmlviz command (input.c): to its end or to its
 * damage, with progress, and a sentence on what stopped it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_INPUT_H
#define CLI_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "opts.h"
#include "progress.h"

/* An open trace, read to its end or to its damage. */
struct cli_input {
	const char *cmd, *path;
	struct ggmlviz_reader *r;
	struct cli_progress progress;
	int error;            /* 0, or why reading stopped early (GGMLVIZ_E*, -errno) */
	uint64_t error_offset; /* where it stopped */
	char what[256];        /* why, in one sentence (ggmlviz_reader_describe) */
	uint64_t records;      /* delivered so far */
	bool ended;            /* the last record delivered is a TRACE_END */
	bool crashed;          /* ... or a CRASH: the program died of crash_signal */
	uint64_t end_written, end_dropped, end_offset; /* of the last TRACE_END or CRASH */
	uint64_t crash_signal;
	char crash_name[16];   /* the signal's name, from the CRASH record */
};

/* Opens path: 0, or the reader's negative code (nothing printed). */
int cli_input_start(struct cli_input *in, const char *cmd, const char *path);

/* Opens path; on failure prints why and returns -1. */
int cli_input_open(struct cli_input *in, const char *cmd, const char *path);

/* The next record: 1, or 0 at the end or at damage (in->error says which). */
int cli_input_next(struct cli_input *in, struct ggmlviz_event *ev);

/* The next timing (ggmlviz_reader_next_timing): 1, or 0 as above. */
int cli_input_timing(struct cli_input *in, struct ggmlviz_timing *t);

/* One sentence on why reading stopped early, with the byte offset. */
void cli_input_describe(const struct cli_input *in, char *buf, size_t size);

/* Whether the input is a regular file (which a second reader can read again). */
bool cli_input_is_file(const struct cli_input *in);

/* Prints the damage, if any, on stderr; returns 0 or CLI_EXIT_DAMAGED. */
int cli_input_report(const struct cli_input *in);

void cli_input_close(struct cli_input *in);

#endif /* CLI_INPUT_H */
