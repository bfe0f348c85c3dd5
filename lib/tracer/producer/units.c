/*
 * Steps and graphs, the units op sampling counts (sample.c) and rolling
 * mode holds runs for (stage.c): their public begin and end calls, which
 * open and close a unit around their records, and ggmlviz_ops_timing(),
 * which says how the open unit's ops are timed. Their records are made by
 * emit.c, the layer below; their NVTX ranges by nvtx.c, when asked for.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdatomic.h>

#include "tracer/producer/emit.h"
#include "tracer/producer/nvtx.h"
#include "tracer/producer/producer.h"

/*
 * In rolling mode a graph inside a step is held with the step's runs
 * (stage.c), so that its records keep their order around them.
 */
void ggmlviz_graph_begin(const void *graph, uint32_t n_nodes, uint32_t n_threads,
			 const void *backend)
{
	unsigned mask = ggmlviz__mask_now();
	int staged = 0;

	if (mask & GGMLVIZ__ACTIVE) {
		staged = ggmlviz__unit_staged();
		ggmlviz__unit_begin();
	}
	if (staged)
		ggmlviz__stage_graph(ggmlviz__stamp(), GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN,
				     ggmlviz__addr(graph), n_nodes, n_threads, ggmlviz__addr(backend));
	else
		ggmlviz__emit_graph_at(0, GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN, ggmlviz__addr(graph),
				       n_nodes, n_threads, ggmlviz__addr(backend));
	if (GGMLVIZ__UNLIKELY(mask & GGMLVIZ__NVTX))
		ggmlviz__nvtx_graph(n_nodes);
}

void ggmlviz_graph_end(const void *graph, uint32_t n_nodes, uint32_t n_threads,
		       const void *backend)
{
	if (GGMLVIZ__UNLIKELY(ggmlviz__nvtx_maybe_open()))
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_GRAPH);
	if (ggmlviz__unit_closing()) /* a graph inside a step */
		ggmlviz__stage_graph(ggmlviz__stamp(), GGMLVIZ_EVENT_GRAPH_COMPUTE_END,
				     ggmlviz__addr(graph), n_nodes, n_threads, ggmlviz__addr(backend));
	else
		ggmlviz__emit_graph_at(0, GGMLVIZ_EVENT_GRAPH_COMPUTE_END, ggmlviz__addr(graph),
				       n_nodes, n_threads, ggmlviz__addr(backend));
	ggmlviz__unit_end();
}

void ggmlviz_step_begin(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
			const char *label)
{
	struct ggmlviz__step s = { ggmlviz__addr(ctx), n_tokens, n_outputs, phase, 0 };
	unsigned mask = ggmlviz__mask_now();
	void (*gpu)(void);

	if (!(mask & GGMLVIZ__ACTIVE))
		return;
	ggmlviz__unit_begin();
	if ((gpu = atomic_load_explicit(&ggmlviz__state.gpu_step_begin, memory_order_acquire)))
		gpu(); /* its window's state, said before its record */
	ggmlviz__emit_step_at(0, GGMLVIZ_EVENT_STEP_BEGIN, &s, label);
	if (GGMLVIZ__UNLIKELY(mask & GGMLVIZ__NVTX))
		ggmlviz__nvtx_step(&s, label);
}

void ggmlviz_step_end(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
		      int32_t status, const char *label)
{
	struct ggmlviz__step s = { ggmlviz__addr(ctx), n_tokens, n_outputs, phase, status };
	void (*gpu)(void);

	if (GGMLVIZ__UNLIKELY(ggmlviz__nvtx_maybe_open()))
		ggmlviz__nvtx_end(GGMLVIZ__NVTX_STEP);
	(void)ggmlviz__unit_closing(); /* its held runs before its end */
	ggmlviz__emit_step_at(0, GGMLVIZ_EVENT_STEP_END, &s, label);
	ggmlviz__unit_end();
	if ((gpu = atomic_load_explicit(&ggmlviz__state.gpu_step_end, memory_order_acquire)))
		gpu();
}

int ggmlviz_ops_timing(void)
{
	unsigned mask = ggmlviz__mask_relaxed();

	if ((mask & (GGMLVIZ__ACTIVE | GGMLVIZ__OPS)) != (GGMLVIZ__ACTIVE | GGMLVIZ__OPS))
		return GGMLVIZ_OP_TIMING_OFF;
	if (mask & GGMLVIZ__SYNC)
		return ggmlviz__unit_sampled() ? GGMLVIZ_OP_TIMING_SYNC : GGMLVIZ_OP_TIMING_OFF;
	/* rolling mode: a step not sampled is timed too, to be summed at its end */
	return ggmlviz__unit_sampled() || ggmlviz__rolling() ? GGMLVIZ_OP_TIMING_AUTO
								 : GGMLVIZ_OP_TIMING_OFF;
}
