/*
 * A node's records: what the node engine (nodes.c) records of an op
 * timed at the end of its run, and what the stage (stage.c) records of
 * one held until its step ended: OP_COMPUTE_BEGIN, OP_INFO, OP_BYTES,
 * OP_NODE and OP_COMPUTE_END at the stamps taken, and the op type they
 * carry (a fused pair's, with its name recorded once). An op of a run
 * that repeats a set of descriptions (DESC_SET, nodes.c) is written
 * without its OP_INFO, OP_BYTES and OP_NODE: the set has them.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <ggmlviz/nodes.h>

#include "tracer/producer/emit.h"
#include "tracer/producer/producer.h"

/* What of a description's flags its OP_NODE carries: fused, and the stack of its layer. */
#define NODE_FLAGS (GGMLVIZ_NODE_FUSED | GGMLVIZ_NODE_ENCODER | GGMLVIZ_NODE_DECODER)

/* "a SEP b" into buf of cap bytes, cut to fit (as snprintf would, at a tenth of its cost:
 * every fused op of every run composes two). */
static void join(char *buf, size_t cap, const char *a, const char *sep, const char *b)
{
	const char *parts[3] = { a ? a : "?", sep, b ? b : "?" };
	size_t n = 0;

	for (size_t k = 0; k < 3; k++)
		for (const char *c = parts[k]; *c && n + 1 < cap; c++)
			buf[n++] = *c;
	buf[n] = '\0';
}

/* The op type and names of a fused pair; the label and op name composed into bufs. */
static uint32_t fused_names(const struct ggmlviz_node_desc *d, char label[160], char op[80],
			    const char **lp, const char **op_name)
{
	join(label, 160, d->name, " + ", d->name2);
	join(op, 80, d->op_name, "+", d->op_name2);
	*lp = label;
	*op_name = op;
	return GGMLVIZ_OP_TYPE_FUSE(d->op_type, d->op_type2);
}

/* The op type of a node's records, and its label; the op's name recorded once. */
static uint32_t op_identity(const struct ggmlviz_node_desc *d, char label_buf[160],
			    char op_buf[80], const char **label)
{
	const char *op_name = d->op_name;
	uint32_t op_type = d->op_type;

	*label = d->name;
	if (d->flags & GGMLVIZ_NODE_FUSED)
		op_type = fused_names(d, label_buf, op_buf, label, &op_name);
	if (op_name)
		ggmlviz_meta_once(GGMLVIZ_META_OP_NAME, op_type, op_name);
	return op_type;
}

uint32_t ggmlviz__nodes_op_type(const struct ggmlviz_node_desc *d)
{
	char label_buf[160], op_buf[80];
	const char *label;

	return op_identity(d, label_buf, op_buf, &label);
}

void ggmlviz__nodes_record_op(const void *backend_ptr, const struct ggmlviz_node_desc *d,
			      const void *node, uint64_t begin, uint64_t end, uint8_t method,
			      uint8_t flags, int described)
{
	char label_buf[160], op_buf[80];
	const char *label;
	uint64_t tensor = ggmlviz__addr(node), backend = ggmlviz__addr(backend_ptr);
	uint64_t src[2] = { ggmlviz__addr(d->src[0]), ggmlviz__addr(d->src[1]) };
	uint32_t op_type = op_identity(d, label_buf, op_buf, &label);

	ggmlviz__emit_op_at(begin, GGMLVIZ_EVENT_OP_COMPUTE_BEGIN, tensor, op_type, d->size, backend,
			    label);
	if (described) { /* the run repeats a set whose records have it (DESC_SET) */
		if (flags) /* what the set cannot say: the op began its run */
			ggmlviz__emit_op_node_at(begin, tensor, d->layer, method,
						 (uint8_t)((d->flags & NODE_FLAGS) | flags), src);
		ggmlviz__emit_op_at(end, GGMLVIZ_EVENT_OP_COMPUTE_END, tensor, op_type, d->size,
				    backend, label);
		return;
	}
	ggmlviz__emit_op_info_at(begin, tensor, d->ne, d->flops, d->type_name);
	if (d->bytes_read || d->bytes_written)
		ggmlviz__emit_op_bytes_at(begin, tensor, d->bytes_read, d->bytes_written);
	ggmlviz__emit_op_node_at(begin, tensor, d->layer, method,
				 (uint8_t)((d->flags & NODE_FLAGS) | flags), src);
	ggmlviz__emit_op_at(end, GGMLVIZ_EVENT_OP_COMPUTE_END, tensor, op_type, d->size, backend,
			    label);
}

