/*
 * Records stamped with a given time (emit-at.h), and the records of steps
 * and of an op's node (OP_NODE), which the adapters emit as they go.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include "emit-at.h"
#include "sample.h"

void ggmlviz__emit_op_at(uint64_t ts, uint8_t type, uint64_t tensor, uint32_t op_type,
			 uint64_t size, uint64_t backend, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, label, GGMLVIZ__NAMES, ts);

	if (!pl)
		return;
	ggmlviz__put_op(pl, tensor, op_type, size, backend);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_op_info_at(uint64_t ts, uint64_t tensor, const int64_t ne[4], uint64_t flops,
			      const char *type_name)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_INFO, type_name, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_op_info(pl, tensor, ne, flops);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_op_node_at(uint64_t ts, uint64_t tensor, int32_t layer, uint8_t method,
			      uint8_t flags, const uint64_t src[2])
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, GGMLVIZ_EVENT_OP_NODE, NULL, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_op_node(pl, tensor, layer, method, flags, src[0], src[1]);
	ggmlviz__emit_close(&e);
}

void ggmlviz__emit_split_at(uint64_t ts, uint8_t type, const struct ggmlviz__split *s)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__OPS, type, NULL, 0, ts);

	if (!pl)
		return;
	ggmlviz__put_split(pl, s);
	ggmlviz__emit_close(&e);
}

void ggmlviz_op_node(const void *tensor, int32_t layer, uint8_t method, uint8_t flags,
		     const void *src0, const void *src1)
{
	const uint64_t src[2] = { ggmlviz__addr(src0), ggmlviz__addr(src1) };

	ggmlviz__emit_op_node_at(0, ggmlviz__addr(tensor), layer, method, flags, src);
}

static void emit_step(uint8_t type, const struct ggmlviz__step *s, const char *label)
{
	struct ggmlviz__emit e;
	uint8_t *pl = ggmlviz__emit_open(&e, GGMLVIZ__ACTIVE, type, label, 0, 0);

	if (!pl)
		return;
	ggmlviz__put_step(pl, s);
	ggmlviz__emit_close(&e);
}

void ggmlviz_step_begin(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
			const char *label)
{
	struct ggmlviz__step s = { ggmlviz__addr(ctx), n_tokens, n_outputs, phase, 0 };

	if (!(ggmlviz__mask_now() & GGMLVIZ__ACTIVE))
		return;
	ggmlviz__unit_begin();
	emit_step(GGMLVIZ_EVENT_STEP_BEGIN, &s, label);
}

void ggmlviz_step_end(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
		      int32_t status, const char *label)
{
	struct ggmlviz__step s = { ggmlviz__addr(ctx), n_tokens, n_outputs, phase, status };

	emit_step(GGMLVIZ_EVENT_STEP_END, &s, label);
	ggmlviz__unit_end();
}

int ggmlviz_ops_timing(void)
{
	unsigned mask = __atomic_load_n(&ggmlviz__mask, __ATOMIC_RELAXED);

	if ((mask & (GGMLVIZ__ACTIVE | GGMLVIZ__OPS)) != (GGMLVIZ__ACTIVE | GGMLVIZ__OPS) ||
	    !ggmlviz__unit_sampled())
		return GGMLVIZ_OP_TIMING_OFF;
	return mask & GGMLVIZ__SYNC ? GGMLVIZ_OP_TIMING_SYNC : GGMLVIZ_OP_TIMING_AUTO;
}
