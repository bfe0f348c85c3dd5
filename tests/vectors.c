/*
 * Test vectors for the reader, encoded by hand from ggmlviz(5), man/ggmlviz.5 (see vectors.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "vectors.h"

void vbuf_free(struct vbuf *b)
{
	free(b->bytes);
	*b = (struct vbuf){ 0 };
}

void vbuf_bytes(struct vbuf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		while (cap < b->len + n)
			cap *= 2;
		b->bytes = realloc(b->bytes, cap);
		if (!b->bytes) {
			fprintf(stderr, "vectors: out of memory\n");
			exit(99);
		}
		b->cap = cap;
	}
	if (n)
		memcpy(b->bytes + b->len, p, n);
	b->len += n;
}

void le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

void vbuf_u8(struct vbuf *b, uint8_t v)
{
	vbuf_bytes(b, &v, 1);
}

void vbuf_u32(struct vbuf *b, uint32_t v)
{
	uint8_t p[4];

	le32(p, v);
	vbuf_bytes(b, p, 4);
}

void vbuf_u64(struct vbuf *b, uint64_t v)
{
	uint8_t p[8];

	le64(p, v);
	vbuf_bytes(b, p, 8);
}

void vec_header(struct vbuf *b, uint32_t version)
{
	vbuf_bytes(b, "GGMLVIZ1", 8);
	vbuf_u32(b, version);
}

/* ggmlviz(5), "Record": offsets 0, 1, 9, 13, 45, 46, 50. */
size_t vec_record(struct vbuf *b, uint8_t type, uint64_t ts, uint32_t tid,
		  const uint8_t payload[32], const char *label, uint32_t label_len)
{
	size_t offset = b->len;

	vbuf_u8(b, type);
	vbuf_u64(b, ts);
	vbuf_u32(b, tid);
	vbuf_bytes(b, payload, 32);
	vbuf_u8(b, label ? 1 : 0);
	if (label) {
		vbuf_u32(b, label_len);
		vbuf_bytes(b, label, label_len);
	}
	return offset;
}

size_t vec_record_s(struct vbuf *b, uint8_t type, uint64_t ts, uint32_t tid,
		    const uint8_t payload[32], const char *label)
{
	return vec_record(b, type, ts, tid, payload, label,
			  label ? (uint32_t)strlen(label) : 0);
}

/* OP: +0 tensor_ptr, +8 op_type, +12 zero, +16 op_size, +24 backend_ptr. */
void vec_op(uint8_t p[32], uint64_t tensor, uint32_t op_type, uint64_t op_size,
	    uint64_t backend, uint8_t hole)
{
	le64(p + 0, tensor);
	le32(p + 8, op_type);
	memset(p + 12, hole, 4);
	le64(p + 16, op_size);
	le64(p + 24, backend);
}

/* GRAPH: +0 graph_ptr, +8 n_nodes, +12 n_threads, +16 backend_ptr, +24 zero. */
void vec_graph(uint8_t p[32], uint64_t graph, uint32_t n_nodes, uint32_t n_threads,
	       uint64_t backend, uint8_t hole)
{
	le64(p + 0, graph);
	le32(p + 8, n_nodes);
	le32(p + 12, n_threads);
	le64(p + 16, backend);
	memset(p + 24, hole, 8);
}

/* MEMORY: +0 ptr, +8 size, +16 zero (16 bytes). */
void vec_memory(uint8_t p[32], uint64_t ptr, uint64_t size, uint8_t hole)
{
	le64(p + 0, ptr);
	le64(p + 8, size);
	memset(p + 16, hole, 16);
}

/* META: +0 kind, +4 zero, +8 key, +16 value, +24 value2. */
void vec_meta(uint8_t p[32], uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
	      uint8_t hole)
{
	le32(p + 0, kind);
	memset(p + 4, hole, 4);
	le64(p + 8, key);
	le64(p + 16, value);
	le64(p + 24, value2);
}

/* MARK, COUNTER, SCOPE_BEGIN, SCOPE_END: +0 value, the rest zero. */
void vec_user(uint8_t p[32], uint64_t value, uint8_t hole)
{
	le64(p + 0, value);
	memset(p + 8, hole, 24);
}

/* OP_INFO: +0 tensor_ptr, +8 u32 ne[4], +24 flops. */
void vec_op_info(uint8_t p[32], uint64_t tensor, const uint32_t ne[4], uint64_t flops)
{
	le64(p + 0, tensor);
	for (int i = 0; i < 4; i++)
		le32(p + 8 + 4 * i, ne[i]);
	le64(p + 24, flops);
}

/* Appends v's record to b: v's payload, type, times and label are set. */
static void add(struct vbuf *b, struct vector *v, const char *label, uint32_t label_len)
{
	struct ggmlviz_event *e = &v->expect;

	e->offset = vec_record(b, e->type, e->timestamp_ns, e->thread_id, v->payload, label,
			       label_len);
	e->label = label;
	e->label_len = label_len;
	e->size = label ? 50 + label_len : 46;
}

static struct vector *start(struct vector *v, const char *name, uint8_t type, unsigned i)
{
	memset(v, 0, sizeof *v);
	v->name = name;
	v->expect.type = type;
	/* every byte differs, so a misplaced or byte-swapped field shows */
	v->expect.timestamp_ns = 0x1817161514131211ull + ((uint64_t)i << 56);
	v->expect.thread_id = 0x0d0c0b0au + i;
	return v;
}

/* A GRAPH vector: what is encoded is what must be decoded. */
static void graph_vector(struct vector *x, uint64_t graph, uint32_t n_nodes,
			 uint32_t n_threads, uint64_t backend, uint8_t hole)
{
	x->expect.data.graph.graph_ptr = graph;
	x->expect.data.graph.n_nodes = n_nodes;
	x->expect.data.graph.n_threads = n_threads;
	x->expect.data.graph.backend_ptr = backend;
	vec_graph(x->payload, graph, n_nodes, n_threads, backend, hole);
}

static void op_vector(struct vector *x, uint64_t tensor, uint32_t op_type, uint64_t op_size,
		      uint64_t backend, uint8_t hole)
{
	x->expect.data.op.tensor_ptr = tensor;
	x->expect.data.op.op_type = op_type;
	x->expect.data.op.op_size = op_size;
	x->expect.data.op.backend_ptr = backend;
	vec_op(x->payload, tensor, op_type, op_size, backend, hole);
}

static void build_graphs_and_ops(struct vbuf *b, struct vector *v)
{
	struct vector *x;

	x = start(&v[0], "GRAPH_COMPUTE_BEGIN", 0, 0);
	graph_vector(x, 0x0000558d3c2a1f00ull, 0x00012345u, 0x08070605u,
		     0x00007f11aabbcc00ull, 0xa5);
	add(b, x, NULL, 0);

	x = start(&v[1], "GRAPH_COMPUTE_END", 1, 1);
	graph_vector(x, 0xfedcba9876543210ull, 0xffffffffu, 1, 0, 0xff);
	add(b, x, "graph", 5);

	x = start(&v[2], "OP_COMPUTE_BEGIN", 2, 2);
	op_vector(x, 0x00007f0102030405ull, 0x1a2b3c4du, 0x0000000123456789ull,
		  0x8899aabbccddeeffull, 0x5a);
	add(b, x, "blk.0.attn_q", 12);

	x = start(&v[3], "OP_COMPUTE_END", 3, 3);
	op_vector(x, 1, 27, 0xffffffffffffffffull, 0x0102030405060708ull, 0xff);
	add(b, x, "blk.0.attn_q", 12);
}

static void build_memory(struct vbuf *b, struct vector *v)
{
	static const char *const names[5] = {
		"TENSOR_ALLOC", "TENSOR_FREE", "BARRIER_WAIT", "THREAD_BEGIN", "THREAD_FREE"
	};
	static const char *const labels[5] = { "cache_k_l0", NULL, NULL, "worker 3", NULL };

	for (unsigned i = 0; i < 5; i++) {
		struct vector *x = start(&v[i], names[i], (uint8_t)(4 + i), 4 + i);
		uint64_t ptr = 0x0000600000001000ull * (i + 1) + i;
		uint64_t size = 0x0102030405060708ull ^ ((uint64_t)i << 60);
		x->expect.data.memory.ptr = ptr;
		x->expect.data.memory.size = size;
		vec_memory(x->payload, ptr, size, (uint8_t)(0xc0 + i));
		add(b, x, labels[i], labels[i] ? (uint32_t)strlen(labels[i]) : 0);
	}
}

static void build_meta_and_user(struct vbuf *b, struct vector *v)
{
	static const char *const names[4] = { "MARK", "COUNTER", "SCOPE_BEGIN", "SCOPE_END" };
	static const uint64_t values[4] = {
		0x0000000100000002ull, 0xfffffffffffffffbull /* -5 */, 42, 0x8000000000000000ull
	};
	static const char *const labels[4] = { "token", "kv_used", "prefill", "prefill" };
	struct vector *x = start(&v[0], "META", 9, 9);

	x->expect.data.meta.kind = GGMLVIZ_META_OP_NAME;
	x->expect.data.meta.key = 0x1122334455667788ull;
	x->expect.data.meta.value = 0x99aabbccddeeff00ull;
	x->expect.data.meta.value2 = 0x0f0e0d0c0b0a0908ull;
	vec_meta(x->payload, GGMLVIZ_META_OP_NAME, 0x1122334455667788ull, 0x99aabbccddeeff00ull,
		 0x0f0e0d0c0b0a0908ull, 0x77);
	add(b, x, "MUL_MAT", 7);

	for (unsigned i = 0; i < 4; i++) {
		x = start(&v[1 + i], names[i], (uint8_t)(10 + i), 10 + i);
		x->expect.data.user.value = values[i];
		memcpy(&x->expect.data.user.svalue, &values[i], 8);
		vec_user(x->payload, values[i], (uint8_t)(0x90 + i));
		add(b, x, labels[i], (uint32_t)strlen(labels[i]));
	}
}

static void build_op_info(struct vbuf *b, struct vector *v)
{
	static const uint32_t ne[4] = { 4096, 0x7fffffffu, 0xffffffffu, 1 };
	struct vector *x = start(v, "OP_INFO", 14, 14);

	x->expect.data.op_info.tensor_ptr = 0x00007f0102030405ull;
	x->expect.data.op_info.ne[0] = 4096;
	x->expect.data.op_info.ne[1] = 0x7fffffff;
	x->expect.data.op_info.ne[2] = 0xffffffffll; /* widened, never negative */
	x->expect.data.op_info.ne[3] = 1;
	x->expect.data.op_info.flops = 0x0000123456789abcull;
	vec_op_info(x->payload, 0x00007f0102030405ull, ne, 0x0000123456789abcull);
	add(b, x, "q4_0", 4);
}

/* Types this library does not know: only the common fields and payload. */
static void build_unknown(struct vbuf *b, struct vector *v)
{
	static const char long_label[] = "a label of a type from the future";
	struct vector *x;

	x = start(&v[0], "unknown 200 with label", 200, 15);
	memset(x->payload, 0xe7, 32);
	add(b, x, long_label, (uint32_t)strlen(long_label));

	x = start(&v[1], "unknown 99 without label", 99, 16);
	for (int i = 0; i < 32; i++)
		x->payload[i] = (uint8_t)(0x40 + i);
	add(b, x, NULL, 0);

	x = start(&v[2], "unknown 255 empty label", 255, 17);
	add(b, x, "", 0);

	/* has_label = 1 with label_length 0: an empty label, not no label */
	x = start(&v[3], "MARK with empty label", 10, 18);
	x->expect.data.user.value = 7;
	x->expect.data.user.svalue = 7;
	vec_user(x->payload, 7, 0);
	add(b, x, "", 0);
}

size_t vectors_build(struct vbuf *b, struct vector v[VECTORS_MAX])
{
	vec_header(b, 1);
	build_graphs_and_ops(b, &v[0]);
	build_memory(b, &v[4]);
	build_meta_and_user(b, &v[9]);
	build_op_info(b, &v[14]);
	build_unknown(b, &v[15]);
	return 19;
}

/* clang-format off */
const uint8_t vec_literal_op[] = {
	0x02,                                           /* type: OP_COMPUTE_BEGIN */
	0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01, /* timestamp 0x0102030405060708 */
	0x39, 0x30, 0x00, 0x00,                         /* thread 12345 */
	0x00, 0x10, 0x20, 0x30, 0x40, 0x7f, 0x00, 0x00, /* tensor_ptr 0x7f4030201000 */
	0x1d, 0x00, 0x00, 0x00,                         /* op_type 29 */
	0xde, 0xad, 0xbe, 0xef,                         /* hole: garbage */
	0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, /* op_size 65536 */
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, /* backend_ptr 0 (CPU) */
	0x01,                                           /* has_label */
	0x04, 0x00, 0x00, 0x00,                         /* label_length 4 */
	'n', 'o', 'd', 'e',                             /* label */
};
/* clang-format on */
const size_t vec_literal_op_size = sizeof vec_literal_op;

static int write_fd(int fd, const void *bytes, size_t n)
{
	const uint8_t *p = bytes;

	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -errno;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

static int write_flags(const char *path, const void *bytes, size_t n, int flags)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | flags, 0644);
	int rc;

	if (fd < 0)
		return -errno;
	rc = write_fd(fd, bytes, n);
	close(fd);
	return rc;
}

int vec_write_file(const char *path, const void *bytes, size_t n)
{
	return write_flags(path, bytes, n, O_TRUNC);
}

int vec_append_file(const char *path, const void *bytes, size_t n)
{
	return write_flags(path, bytes, n, O_APPEND);
}
