/*
 * Test vectors for the reader: GGMLVIZ v1 bytes written by hand from the
 * tables of ggmlviz(5) (man/ggmlviz.5), with a little-endian writer of their own (shifts,
 * never lib/record.h nor the tracer), so that the reader is checked
 * against an independent encoding.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TEST_VECTORS_H
#define GGMLVIZ_TEST_VECTORS_H

#include <stddef.h>
#include <stdint.h>

#include <ggmlviz/reader.h>

/* A growing byte buffer. */
struct vbuf {
	uint8_t *bytes;
	size_t len, cap;
};

void vbuf_free(struct vbuf *b);
void vbuf_bytes(struct vbuf *b, const void *p, size_t n);
void vbuf_u8(struct vbuf *b, uint8_t v);
void vbuf_u32(struct vbuf *b, uint32_t v);
void vbuf_u64(struct vbuf *b, uint64_t v);

/* Little-endian stores into a fixed array (payloads). */
void le32(uint8_t *p, uint32_t v);
void le64(uint8_t *p, uint64_t v);

/* The 12-byte header: magic "GGMLVIZ1", then version (1 for a good file). */
void vec_header(struct vbuf *b, uint32_t version);

/*
 * Appends a record: type, timestamp, thread, the 32 payload bytes, and
 * has_label = 0 when label is NULL, else 1, label_len and the label.
 * Returns the record's offset.
 */
size_t vec_record(struct vbuf *b, uint8_t type, uint64_t ts, uint32_t tid,
		  const uint8_t payload[32], const char *label, uint32_t label_len);

/* Same, with a NUL-terminated label (or NULL). */
size_t vec_record_s(struct vbuf *b, uint8_t type, uint64_t ts, uint32_t tid,
		    const uint8_t payload[32], const char *label);

/*
 * Payloads, per the layouts of ggmlviz(5); every "zero" byte is set to
 * hole (pass non-zero garbage: readers must ignore it).
 */
void vec_op(uint8_t p[32], uint64_t tensor, uint32_t op_type, uint64_t op_size,
	    uint64_t backend, uint8_t hole);
void vec_graph(uint8_t p[32], uint64_t graph, uint32_t n_nodes, uint32_t n_threads,
	       uint64_t backend, uint8_t hole);
void vec_memory(uint8_t p[32], uint64_t ptr, uint64_t size, uint8_t hole);
void vec_meta(uint8_t p[32], uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
	      uint8_t hole);
void vec_user(uint8_t p[32], uint64_t value, uint8_t hole);
void vec_op_info(uint8_t p[32], uint64_t tensor, const uint32_t ne[4], uint64_t flops);

/* One record of the "every type" set, and the event a reader must give. */
struct vector {
	const char *name;
	struct ggmlviz_event expect; /* payload pointer left NULL */
	uint8_t payload[32];         /* the bytes as stored, holes included */
};

#define VECTORS_MAX 32

/*
 * Writes a whole trace (header, then one record of each type 0..14 with
 * distinct values, garbage in every hole, unknown types with and without a
 * label, an empty label) into b, and what each record must decode to into
 * v. Returns the number of records.
 */
size_t vectors_build(struct vbuf *b, struct vector v[VECTORS_MAX]);

/*
 * An OP_COMPUTE_BEGIN record typed byte by byte from the ggmlviz(5) tables
 * (no writer involved at all), and its size.
 */
extern const uint8_t vec_literal_op[];
extern const size_t vec_literal_op_size;

/* Writes n bytes to path (created or truncated); 0 or -errno. */
int vec_write_file(const char *path, const void *bytes, size_t n);

/* Appends n bytes to path; 0 or -errno. */
int vec_append_file(const char *path, const void *bytes, size_t n);

#endif /* GGMLVIZ_TEST_VECTORS_H */
