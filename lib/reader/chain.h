/*
 * A rotated trace's segments read in a row as one trace (chain.c): the
 * trace's name holds its live segment, NAME.N the ones that ended.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_READER_CHAIN_H
#define GGMLVIZ_READER_CHAIN_H

#include <stdint.h>

#include <ggmlviz/reader.h>

struct ggmlviz__chain {
	char *name;         /* the trace's name (NAME) */
	uint64_t trace_id;  /* SEGMENT's value2, the same in each segment */
	uint32_t first;     /* the oldest segment found at the open (or the rewind) */
	uint32_t at;        /* the segment read now */
	uint32_t missing;   /* segments gone before the reader reached them */
	int ended;          /* the segment read now said SEGMENT_END */
	uint32_t held_from; /* the oldest segment whose mapping may still hold its file */
	int replaced;       /* the name holds another trace, or a file that is none */
};

/*
 * After the file at path opened as r: where it is the live segment of a
 * rotated trace, the reader goes to the oldest of its segments still
 * there, and reads them in a row. 0, or -errno (r then unchanged but for
 * what failed to open).
 */
int ggmlviz__chain_open(struct ggmlviz_reader *r, const char *path);

/*
 * At the end of the segment read now: the next one, when there is one (1),
 * its repeated start skipped; 0 when none is there yet; -errno.
 */
int ggmlviz__chain_next(struct ggmlviz_reader *r);

/* The reader's event ev just read: a SEGMENT_END is noted. */
void ggmlviz__chain_saw(struct ggmlviz_reader *r, const struct ggmlviz_event *ev);

/* Back to the oldest segment there now, from its start; 0 or -errno. */
int ggmlviz__chain_rewind(struct ggmlviz_reader *r);

void ggmlviz__chain_free(struct ggmlviz_reader *r);

#endif /* GGMLVIZ_READER_CHAIN_H */
