/*
 * Shorthands over the public encoder for the records the tracer writes
 * off its emit path (thread names, drops, the end of a trace).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CODEC_H
#define GGMLVIZ_CODEC_H

#include <stddef.h>
#include <stdint.h>

/* Values of a META record: kind, key, value, value2. */
struct ggmlviz__meta {
	uint32_t kind;
	uint64_t key, value, value2;
};

/*
 * Encodes a META record into out (size bytes; a record with a label of len
 * bytes takes 50 + len); returns its size, or 0 if it does not fit.
 */
uint32_t ggmlviz__encode_meta(uint8_t *out, size_t size, uint64_t ts, uint32_t tid,
			      const struct ggmlviz__meta *m, const char *label, uint32_t len);

/* Encodes a record of type with an all-zero payload; its size, or 0. */
uint32_t ggmlviz__encode_plain(uint8_t *out, size_t size, uint8_t type, uint64_t ts,
			       uint32_t tid, const char *label, uint32_t len);

#endif /* GGMLVIZ_CODEC_H */
