/*
 * The inside of a ggmlviz_reader, shared by reader.c (opening, mapping),
 * decode.c (records), names.c (name tables) and pairing.c
 * (ggmlviz_timings_next).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_READER_INTERNAL_H
#define GGMLVIZ_READER_INTERNAL_H

#include <stdint.h>

#include <ggmlviz/reader.h>

#include "map.h"

/* A mapping of the file kept alive until close, so old labels stay valid. */
struct ggmlviz__window {
	struct ggmlviz__window *older;
	void *base;
	size_t length;
};

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

	int fd;                         /* -1 for a reader on memory */
	struct ggmlviz__window *window; /* newest first; NULL for memory */
	uint64_t release_from;          /* pages below this offset were given back */
	uint64_t release_at;            /* give pages back when pos reaches this */
	void *owned;                    /* a buffer read from a pipe, freed at close */

	struct ggmlviz__map names[GGMLVIZ__NAMES_COUNT]; /* key -> struct ggmlviz__name * */
	struct ggmlviz__name *replaced;                  /* older names, freed at close */

	struct ggmlviz_pairing *pairing; /* the engine of ggmlviz_timings_next() */
};

/*
 * Gives back to the kernel the pages of the file below keep_from (the
 * record being returned); called by ggmlviz_reader_next() when r->pos
 * reaches r->release_at.
 */
void ggmlviz__reader_release(struct ggmlviz_reader *r, uint64_t keep_from);

/*
 * Records the name carried by a META OP_NAME, BACKEND_NAME or THREAD_NAME
 * record, or by a THREAD_BEGIN's label (how the original writer named threads).
 */
int ggmlviz__names_update(struct ggmlviz_reader *r, const struct ggmlviz_event *ev);

/* Looks a name up; NULL if unknown. */
const char *ggmlviz__names_get(const struct ggmlviz_reader *r, enum ggmlviz__name_table table,
			       uint64_t key);

/* Frees every name, current and replaced. */
void ggmlviz__names_release(struct ggmlviz_reader *r);

/* Forgets every open begin and every count, and numbers graphs from 1 again. */
void ggmlviz__pairing_reset(struct ggmlviz_pairing *p);

/*
 * The map key of an open begin: kind, thread, and address (or, for a
 * scope, ggmlviz__pairing_label_hash() of its label). Different begins may
 * share a key: the engine compares them in full. Exposed for tests.
 */
uint64_t ggmlviz__pairing_key(int kind, uint32_t tid, uint64_t ptr);
uint64_t ggmlviz__pairing_label_hash(const char *label, uint32_t len);

/* Entries allocated by the engine's pool (for tests: memory follows what is open). */
uint32_t ggmlviz__pairing_pool_size(const struct ggmlviz_pairing *p);

#endif /* GGMLVIZ_READER_INTERNAL_H */
