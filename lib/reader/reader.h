/*
 * The inside of a ggmlviz_reader: types only, shared by open.c (opening,
 * refreshing), window.c (mappings), next.c (records), names.c (name
 * tables) and timings.c (ggmlviz_reader_next_timing). Each of those files
 * declares its functions in its own header.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_READER_INTERNAL_H
#define GGMLVIZ_READER_INTERNAL_H

#include <stdatomic.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

#include "util/map.h"

struct ggmlviz__chain;
struct ggmlviz__pack_dec;

/* A mapping of the file kept alive until close, so old labels stay valid. */
struct ggmlviz__window {
	struct ggmlviz__window *older;
	void *base;
	size_t length;
	uint32_t segment; /* the rotated trace's segment it maps (0: not one), chain.c */
	int forgotten;    /* its file let go of: zeros (ggmlviz__window_forget_segment()) */
};

/* Bytes all of a reader's names may hold: a trace naming far more is hostile. */
#define GGMLVIZ__NAME_BYTES ((uint64_t)32 << 20)

/* A name owned by the reader; replaced ones stay on a list until close. */
struct ggmlviz__name {
	struct ggmlviz__name *replaced_next;
	uint32_t length; /* bytes of text before the added NUL */
	char text[];
};

enum ggmlviz__name_table {
	GGMLVIZ__NAMES_OP,
	GGMLVIZ__NAMES_BACKEND,
	GGMLVIZ__NAMES_THREAD,
	GGMLVIZ__NAMES_COUNT
};

struct ggmlviz_reader {
	const uint8_t *data; /* byte 0 of the file, in the newest window or the caller's buffer */
	uint64_t size;       /* bytes known: file size at open or the last refresh */
	uint64_t pos;        /* offset of the next record */
	int error;           /* sticky: GGMLVIZ_ECORRUPT, -ESTALE; 0 if none */
	_Atomic int shrunk;  /* a page of the file was gone when read (guard.h) */

	int fd;                         /* -1 for a reader on memory */
	struct ggmlviz__window *window; /* newest first; NULL for memory */
	uint64_t release_from;          /* pages below this offset were given back */
	uint64_t release_at;            /* give pages back when pos reaches this */
	int spooled;                    /* fd is a copy of a stream (spool.h): nothing more comes */
	struct ggmlviz__chain *chain;   /* a rotated trace's segments read in a row, or NULL */
	uint64_t base;                  /* the bytes of the segments read before this one */
	uint32_t segment_now;           /* the segment mapped now (0: not a rotated trace) */

	struct ggmlviz__map names[GGMLVIZ__NAMES_COUNT]; /* key -> struct ggmlviz__name * */
	struct ggmlviz__name *replaced;                  /* older names, freed at close */
	uint64_t name_bytes;    /* held by names, the replaced ones too */
	uint64_t names_dropped; /* names not kept: past the limits */

	struct ggmlviz_pairing *pairing; /* the engine of ggmlviz_reader_next_timing() */

	/* a PACK record being read (next.c): its records come before pos moves past it */
	struct ggmlviz__pack_dec *pack; /* allocated at the first PACK; NULL before */
	int unpacking;                  /* pos is at a PACK whose records are being returned */
	uint64_t pack_size;             /* that PACK record's bytes */
};

#endif /* GGMLVIZ_READER_INTERNAL_H */
