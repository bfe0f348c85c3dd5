/*
 * PACK records (ggmlviz(5), "Packed records"): a run of one thread's
 * records, each written as what differs from the record of its type before
 * it in the run. The writer packs (GGML_VIZ_PACK), the reader unpacks:
 * every reader sees the records as they were, byte for byte.
 *
 * An inner record, in the PACK record's label (its body):
 *   u8      type (below GGMLVIZ__PACK_TYPES; never META, THREAD_BEGIN or
 *           PACK: a reader learns names from the first two as it reads)
 *   varint  its timestamp less the record's before it (the PACK's, for
 *           the first), zigzag-coded
 *   u8      mask: bit i set where payload word i (u32, at 4 * i) differs
 *           from the same word of the run's last record of its type
 *           (zero, for the first of a type)
 *   varint  for each bit set, low bit first: the word XOR that word
 *   varint  label: 0 none; 1 the label of the run's last record of its
 *           type; 2 + L: L bytes of label follow
 * Varints are LEB128: 7 bits a byte, low first, at most 10 bytes.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_PACK_H
#define GGMLVIZ_PACK_H

#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/format.h>

#define GGMLVIZ__PACK_TYPES 64u /* types a run may hold: those below */
#define GGMLVIZ__PACK_BODY_MAX ((uint32_t)64 << 10) /* the writer's runs: a body this long at most */
#define GGMLVIZ__PACK_WORDS (GGMLVIZ_PAYLOAD_SIZE / 4)
/* The most bytes an inner record takes beyond its label: type, time, mask, words, label's code. */
#define GGMLVIZ__PACK_INNER_MAX (1 + 10 + 1 + GGMLVIZ__PACK_WORDS * 5 + 5)
/* PACK payload: +0 u32 records in the body; the rest zero. */
enum { PACK_COUNT = 0, PACK_ZERO = 4 };

/* What the run's last record of a type was (payload, and its label as a place in the body). */
struct ggmlviz__pack_last {
	uint8_t payload[GGMLVIZ_PAYLOAD_SIZE];
	uint32_t label_at, label_len;
	uint8_t has_label;
};

/* A run being packed: the PACK record at rec, its body growing after it. */
struct ggmlviz__pack_enc {
	uint8_t *rec;    /* the PACK record's first byte */
	uint32_t len;    /* bytes of body so far */
	uint32_t n;      /* records packed */
	uint64_t ts;     /* the last record's timestamp */
	uint64_t seen;   /* bit t: the run has a record of type t */
	struct ggmlviz__pack_last last[GGMLVIZ__PACK_TYPES];
};

/* Whether a record of this type may be packed. */
static inline int ggmlviz__pack_packable(uint8_t type)
{
	return type < GGMLVIZ__PACK_TYPES && type != GGMLVIZ_EVENT_META &&
	       type != GGMLVIZ_EVENT_THREAD_BEGIN && type != GGMLVIZ_EVENT_PACK;
}

/*
 * Starts a run at out with the record rec (packable, whole): writes the
 * PACK record's fixed part and rec into it; returns the bytes taken.
 * out needs GGMLVIZ_LABELED_RECORD_SIZE + GGMLVIZ__PACK_INNER_MAX + rec's
 * label bytes.
 */
size_t ggmlviz__pack_open(struct ggmlviz__pack_enc *e, uint8_t *out, const uint8_t *rec);

/*
 * Adds rec (packable, whole, of the run's thread) at the run's end, which
 * needs GGMLVIZ__PACK_INNER_MAX + rec's label bytes; returns the bytes taken.
 */
size_t ggmlviz__pack_add(struct ggmlviz__pack_enc *e, const uint8_t *rec);

/*
 * Whether rec (n bytes, whole) joins e's open run: packable, of the run's
 * thread, and room left in a body of GGMLVIZ__PACK_BODY_MAX.
 */
int ggmlviz__pack_joins(const struct ggmlviz__pack_enc *e, const uint8_t *rec, size_t n);

/* Ends the run: its count and label length written; returns the PACK record's size. */
size_t ggmlviz__pack_close(struct ggmlviz__pack_enc *e);

/*
 * The records of a trace in data (size bytes, its header first) packed as
 * the writer packs a batch: each run of one thread's packable records (a
 * body of GGMLVIZ__PACK_BODY_MAX at most) as a PACK record, the others as
 * they are, into out (3 * size + 4096 bytes); returns the bytes written,
 * header included. For tests and benchmarks: a trace packed after the fact.
 */
size_t ggmlviz__pack_trace(const uint8_t *data, size_t size, uint8_t *out);

/* An inner record unpacked: its fixed part (has_label 0) and its label, in the body. */
struct ggmlviz__pack_inner {
	uint8_t fixed[GGMLVIZ_RECORD_SIZE];
	const char *label; /* NULL: none */
	uint32_t label_len;
	uint32_t at; /* where in the body it starts */
};

/* A PACK record being read. */
struct ggmlviz__pack_dec {
	struct ggmlviz__pack_inner in; /* the record given last: where a reader's event points */
	const uint8_t *body;
	uint32_t len, at;     /* body bytes, and the next inner record's place */
	uint32_t count, done; /* records the payload says, and read so far */
	uint64_t ts;
	uint32_t tid;
	uint64_t seen;
	struct ggmlviz__pack_last last[GGMLVIZ__PACK_TYPES];
	const char *why; /* when corrupt: what was wrong, at body byte `at` */
};

/* Starts reading the PACK record ev (its label is the body). */
void ggmlviz__pack_start(struct ggmlviz__pack_dec *d, const struct ggmlviz_event *ev);

/*
 * The next inner record into in: 1; 0 when the body has ended as its
 * count says; GGMLVIZ_ECORRUPT with d->why and d->at saying what and where.
 */
int ggmlviz__pack_next(struct ggmlviz__pack_dec *d, struct ggmlviz__pack_inner *in);

#endif /* GGMLVIZ_PACK_H */
