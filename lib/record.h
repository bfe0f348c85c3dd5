/*
 * The byte layout of a GGMLVIZ v1 record, and little-endian loads and
 * stores that compile to single moves on little-endian hosts.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_RECORD_H
#define GGMLVIZ_RECORD_H

#include <stdint.h>
#include <string.h>

#include <ggmlviz/format.h>

/* Offsets inside a record (FORMAT.md, "Event record"). */
enum {
	REC_TYPE = 0,
	REC_TIMESTAMP = 1,
	REC_THREAD = 9,
	REC_PAYLOAD = 13,
	REC_HAS_LABEL = 45,
	REC_LABEL_LEN = 46,
	REC_LABEL = 50
};

/* Offsets inside the 32-byte payload, by payload layout. */
enum {
	OP_TENSOR = 0, OP_TYPE = 8, OP_HOLE = 12, OP_SIZE = 16, OP_BACKEND = 24,
	GRAPH_PTR = 0, GRAPH_NODES = 8, GRAPH_THREADS = 12, GRAPH_BACKEND = 16, GRAPH_ZERO = 24,
	MEM_PTR = 0, MEM_SIZE = 8, MEM_ZERO = 16,
	META_KIND = 0, META_ZERO = 4, META_KEY = 8, META_VALUE = 16, META_VALUE2 = 24,
	USER_VALUE = 0, USER_ZERO = 8,
	INFO_TENSOR = 0, INFO_NE = 8, INFO_FLOPS = 24
};

#if defined(WORDS_BIGENDIAN) || \
	(defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
#define GGMLVIZ__LE16(x) __builtin_bswap16(x)
#define GGMLVIZ__LE32(x) __builtin_bswap32(x)
#define GGMLVIZ__LE64(x) __builtin_bswap64(x)
#else
#define GGMLVIZ__LE16(x) (x)
#define GGMLVIZ__LE32(x) (x)
#define GGMLVIZ__LE64(x) (x)
#endif

static inline void put_u32(uint8_t *p, uint32_t v)
{
	v = GGMLVIZ__LE32(v);
	memcpy(p, &v, sizeof v);
}

static inline void put_u64(uint8_t *p, uint64_t v)
{
	v = GGMLVIZ__LE64(v);
	memcpy(p, &v, sizeof v);
}

static inline uint32_t get_u32(const uint8_t *p)
{
	uint32_t v;
	memcpy(&v, p, sizeof v);
	return GGMLVIZ__LE32(v);
}

static inline uint64_t get_u64(const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, sizeof v);
	return GGMLVIZ__LE64(v);
}

/* Bytes a record with a label of label_len bytes takes (has_label = 1). */
static inline uint64_t record_size_labeled(uint32_t label_len)
{
	return (uint64_t)GGMLVIZ_LABELED_RECORD_SIZE + label_len;
}

/* The 12-byte file header. */
static inline void put_header(uint8_t out[GGMLVIZ_HEADER_SIZE])
{
	memcpy(out, GGMLVIZ_MAGIC, 8);
	put_u32(out + 8, GGMLVIZ_FORMAT_VERSION);
}

/*
 * Writes the fixed part of a record (type, timestamp, thread, the payload
 * zeroed) and, when label is not NULL, its length; returns the record size.
 * Used off the hot path (writer metadata, tests); the emit path writes its
 * fields straight into the ring instead.
 */
static inline uint32_t put_record(uint8_t *p, uint8_t type, uint64_t ts, uint32_t tid,
				  const char *label, uint32_t label_len)
{
	p[REC_TYPE] = type;
	put_u64(p + REC_TIMESTAMP, ts);
	put_u32(p + REC_THREAD, tid);
	memset(p + REC_PAYLOAD, 0, GGMLVIZ_PAYLOAD_SIZE);
	if (!label) {
		p[REC_HAS_LABEL] = 0;
		return GGMLVIZ_RECORD_SIZE;
	}
	p[REC_HAS_LABEL] = 1;
	put_u32(p + REC_LABEL_LEN, label_len);
	memcpy(p + REC_LABEL, label, label_len);
	return GGMLVIZ_LABELED_RECORD_SIZE + label_len;
}

/* Writes a whole META record into p; returns its size. */
static inline uint32_t put_meta(uint8_t *p, uint64_t ts, uint32_t tid, uint32_t kind,
				uint64_t key, uint64_t value, uint64_t value2,
				const char *label, uint32_t label_len)
{
	uint32_t n = put_record(p, GGMLVIZ_EVENT_META, ts, tid, label, label_len);
	uint8_t *pl = p + REC_PAYLOAD;

	put_u32(pl + META_KIND, kind);
	put_u64(pl + META_KEY, key);
	put_u64(pl + META_VALUE, value);
	put_u64(pl + META_VALUE2, value2);
	return n;
}

#endif /* GGMLVIZ_RECORD_H */
