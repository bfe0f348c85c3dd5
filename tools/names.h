/*
 * Names for what a trace identifies by number (names.c): ops, backends,
 * threads.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_NAMES_H
#define CLI_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

/* Remembers what ev names by number (op, backend, thread), during a first pass. */
void cli_names_note(const struct ggmlviz_event *ev);
/* Keeps the names r has for what was noted, for the readers that follow. */
void cli_names_learn(const struct ggmlviz_reader *r);
/* Frees the names kept. */
void cli_names_forget(void);

/*
 * The trace's OP_NAME for op_type (or one a first pass kept); for a trace
 * that names none of its ops (the original ggml-viz's), the name GGML's
 * numbering of mid-2025 gives it (cli_op_names_assumed() then says so);
 * else "op#N" in buf.
 */
const char *cli_op_name(const struct ggmlviz_reader *r, uint32_t op_type, char buf[24]);

/* Whether cli_op_name() gave a name from the assumed numbering. */
bool cli_op_names_assumed(void);

/*
 * For a command without a first pass: whether the trace names ops, as the
 * end of reading tells (any op of it has a name). A first pass decides
 * this by itself.
 */
void cli_names_decide(bool any_named);

/* GGML's op name for op_type in its numbering of mid-2025 (ggml-ops.c), or NULL. */
const char *cli_assumed_op_name(uint32_t op_type);

/* The trace's BACKEND_NAME, "CPU" for 0, or "0x..." in buf. */
const char *cli_backend_name(const struct ggmlviz_reader *r, uint64_t ptr, char buf[24]);

/* "name (tid)" or "tid" in buf. */
const char *cli_thread_label(const struct ggmlviz_reader *r, uint32_t tid, char *buf,
				  size_t size);


#endif /* CLI_NAMES_H */
