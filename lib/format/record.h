/*
 * The byte layout of a GGMLVIZ v1 record (man/ggmlviz.5), and little-endian
 * loads and stores that compile to single moves on little-endian hosts.
 * The bottom of the library: the reader and the tracer both build on it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_RECORD_H
#define GGMLVIZ_RECORD_H

#include <stdint.h>
#include <string.h>

#include <ggmlviz/format.h>

/* Offsets inside a record (ggmlviz(5), "Record"). */
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
	INFO_TENSOR = 0, INFO_NE = 8, INFO_FLOPS = 24,
	NODE_TENSOR = 0, NODE_LAYER = 8, NODE_METHOD = 12, NODE_FLAGS = 13, NODE_ZERO = 14,
	NODE_SRC0 = 16, NODE_SRC1 = 24,
	STEP_CTX = 0, STEP_TOKENS = 8, STEP_OUTPUTS = 12, STEP_PHASE = 16, STEP_STATUS = 20,
	STEP_ZERO = 24,
	SPLIT_FIRST = 0, SPLIT_NODES = 8, SPLIT_TIMED = 12, SPLIT_BACKEND = 16, SPLIT_TICKS = 24,
	SPLIT_EXPECTED = 28, SPLIT_RUN = 24 /* BEGIN: the run's id, over TICKS and EXPECTED */,
	KERN_DURATION = 0, KERN_RUN = 8, KERN_CORRELATION = 16, KERN_STREAM = 20, KERN_DEVICE = 24,
	KERN_ZERO = 28,
	SEQ_CTX = 0, SEQ_ID = 8, SEQ_TOKENS = 12, SEQ_OUTPUTS = 16, SEQ_CONTEXT = 20, SEQ_CELLS = 24,
	SEQ_ZERO = 28,
	BYTES_TENSOR = 0, BYTES_READ = 8, BYTES_WRITTEN = 16, BYTES_ZERO = 24,
	SUM_TYPE = 0, SUM_COUNT = 4, SUM_TOTAL = 8, SUM_BACKEND = 16, SUM_MAX = 24,
	REQ_ID = 0, REQ_SLOT = 8, REQ_WHAT = 12, REQ_PROMPT = 16, REQ_CACHED = 20, REQ_GENERATED = 24,
	REQ_ZERO = 28,
	SHARE_TENSOR = 0, SHARE_COMPUTE = 8, SHARE_WAIT = 12, SHARE_TYPE = 16, SHARE_NODE = 20,
	SHARE_ITH = 24, SHARE_NTH = 28,
	SET_ID = 0, SET_OPS = 8, SET_MODE = 12, SET_METHOD = 13, SET_ZERO = 14, SET_GRAPH = 16,
	SET_ZERO2 = 24,
	RPC_CONN = 0, RPC_SEQ = 8, RPC_CMD = 12, RPC_SIDE = 13, RPC_STATUS = 14, RPC_ZERO = 15,
	RPC_REQUEST = 16, RPC_REPLY = 24 /* END */, RPC_HASH = 24 /* BEGIN, STAGE */,
	RPC_ZERO2 = 28 /* BEGIN, STAGE */,
	TIMES_SET = 0, TIMES_FIRST = 8, TIMES_COUNT = 12, TIMES_METHOD = 16, TIMES_FLAGS = 17,
	TIMES_ZERO = 18,
	STIMES_SET = 0, STIMES_FIRST = 8, STIMES_COUNT = 12, STIMES_MODE = 16, STIMES_ZERO = 17,
	STIMES_ITH = 20, STIMES_NTH = 24, STIMES_LAST_WAIT = 28
};

/* An OP_SUMMARY window's label (GGMLVIZ_OP_WINDOW_BODY bytes). */
enum { WINDOW_FIRST = 0, WINDOW_STEPS = 8, WINDOW_PHASE = 12 };
/* A packed body's entry (OP_TIMES, SHARE_TIMES): its gap and duration, in ns on disk. */
enum { TIMES_GAP = 0, TIMES_DURATION = 4 };
/* A SHARE_TIMES DEFINE body's identity of a share. */
enum { STIMES_ID_TENSOR = 0, STIMES_ID_TYPE = 8, STIMES_ID_NODE = 12 };

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

/* Bytes the whole record at rec takes, its label included. */
static inline uint64_t record_size_at(const uint8_t *rec)
{
	return rec[REC_HAS_LABEL] ? record_size_labeled(get_u32(rec + REC_LABEL_LEN))
				  : GGMLVIZ_RECORD_SIZE;
}

/* The 12-byte file header. */
static inline void put_header(uint8_t out[GGMLVIZ_HEADER_SIZE])
{
	memcpy(out, GGMLVIZ_MAGIC, 8);
	put_u32(out + 8, GGMLVIZ_FORMAT_VERSION);
}

#endif /* GGMLVIZ_RECORD_H */
