/*
 * Packed times in the pairing engine (unpack.c): an OP_TIMES record gives
 * the timings its ops' OP_COMPUTE_BEGIN and _END records would have given,
 * a SHARE_TIMES record those of its OP_SHARE records (ggmlviz(5), "Packed
 * times"). One record gives many timings: ggmlviz_pairing_add() returns
 * the first, ggmlviz_pairing_take() the others, one at a time, from a copy
 * of the record's body kept until then.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_UNPACK_H
#define GGMLVIZ_UNPACK_H

#include <stdint.h>

#include <ggmlviz/reader.h>

struct ggmlviz_pairing;

struct ggmlviz__unpack {
	struct ggmlviz_event ev; /* the record being given out (its label: body, below) */
	uint8_t *body;           /* a copy of its body */
	uint32_t cap;            /* its room */
	uint32_t next, n;        /* the next entry to give, and how many */
	uint64_t end_ns;         /* the end of the entry before (the record's timestamp, first) */
};

/* An OP_TIMES or SHARE_TIMES record: its first timing in t (1), or 0; -ENOMEM. */
int ggmlviz__unpack_add(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
			struct ggmlviz_timing *t);

/* The record's next timing: 1, or 0 when it has given them all. */
int ggmlviz__unpack_take(struct ggmlviz_pairing *p, struct ggmlviz_timing *t);

/* Forgets the record being given out; ..._free also its memory. */
void ggmlviz__unpack_clear(struct ggmlviz__unpack *u);
void ggmlviz__unpack_free(struct ggmlviz__unpack *u);

#endif /* GGMLVIZ_UNPACK_H */
