/*
 * The writer thread's life: open a trace file and start draining into it,
 * close it, and what a session asks of it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_WRITER_H
#define GGMLVIZ_WRITER_H

#include <stdint.h>

#include "writer-types.h"

/* What the session counts of the writer: its own records, bytes, error, retired rings. */
struct ggmlviz__writer_figures {
	uint64_t meta_written, bytes;
	int error;
	struct ggmlviz__retired retired;
};

/* Creates the file (header, PROCESS) and starts the thread. */
int ggmlviz__writer_open(const struct ggmlviz__writer_opts *o, struct ggmlviz__writer **out);
/* Rings quiescent: stops the thread, drains, writes TRACE_END, closes the file. */
int ggmlviz__writer_close(struct ggmlviz__writer *w, uint32_t tid);
/* Frees a closed writer; NULL is fine. */
void ggmlviz__writer_free(struct ggmlviz__writer *w);
/*
 * In a child after fork(): forget the parent's writer without touching its
 * file; only closes the descriptor (async-signal-safe), leaving its memory.
 */
void ggmlviz__writer_abandon(struct ggmlviz__writer *w);
/* Its figures (registry lock held, for the retired rings). */
void ggmlviz__writer_figures(const struct ggmlviz__writer *w, struct ggmlviz__writer_figures *f);

#endif /* GGMLVIZ_WRITER_H */
