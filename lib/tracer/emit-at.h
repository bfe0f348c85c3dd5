/*
 * Records stamped with a time taken earlier: the node engine (nodes.c)
 * records a run's ops once the run has ended, at the times of its ticks.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_EMIT_AT_H
#define GGMLVIZ_EMIT_AT_H

#include <stdint.h>

#include "emit.h"

/* OP_COMPUTE_BEGIN or _END at ts. */
void ggmlviz__emit_op_at(uint64_t ts, uint8_t type, uint64_t tensor, uint32_t op_type,
			 uint64_t size, uint64_t backend, const char *label);
/* OP_INFO at ts. */
void ggmlviz__emit_op_info_at(uint64_t ts, uint64_t tensor, const int64_t ne[4], uint64_t flops,
			      const char *type_name);
/* OP_NODE at ts (src: two addresses). */
void ggmlviz__emit_op_node_at(uint64_t ts, uint64_t tensor, int32_t layer, uint8_t method,
			      uint8_t flags, const uint64_t src[2]);
/* SPLIT_BEGIN or _END at ts. */
void ggmlviz__emit_split_at(uint64_t ts, uint8_t type, const struct ggmlviz__split *s);

#endif /* GGMLVIZ_EMIT_AT_H */
