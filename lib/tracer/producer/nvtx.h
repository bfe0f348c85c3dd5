/*
 * NVTX ranges for Nsight users (nvtx.c): with GGML_VIZ_NVTX=1 each step,
 * graph and run of nodes is pushed as a range of the "libggmlviz" domain,
 * with 2 each op too, where the tracer sees it run, grouped by layer, so
 * that `nsys profile` shows tokens, layers and ops over the kernels.
 *
 * Through NVTX3's header-only C API: nothing is called into unless a tool
 * injected itself (NVTX_INJECTION64_PATH, or a statically linked
 * InitializeInjectionNvtx2_fnptr) when the first session asked for ranges;
 * without one the mask bits stay clear and every hook is its one branch.
 *
 * Ranges are pushed and popped on the calling thread, which keeps a stack
 * of what it pushed: ending a kind pops the innermost range of that kind
 * and every range inside it, so that a step that ends with a run still
 * open, or a session stopped inside a step, leaves the tool's stack as it
 * found it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_NVTX_H
#define GGMLVIZ_NVTX_H

#include <stdint.h>

#include "tracer/base/base.h"

struct ggmlviz_node_desc;
struct ggmlviz__step;

/* The kinds of range, outermost first; also their NVTX categories. */
enum ggmlviz__nvtx_kind {
	GGMLVIZ__NVTX_STEP = 1,
	GGMLVIZ__NVTX_GRAPH = 2,
	GGMLVIZ__NVTX_RUN = 3,
	GGMLVIZ__NVTX_LAYER = 4,
	GGMLVIZ__NVTX_OP = 5
};

/*
 * A session starts with ggmlviz_config::nvtx = level (0 to 2), the
 * session's lock held: the mask bits to add (GGMLVIZ__NVTX, and
 * GGMLVIZ__NVTX_OPS at 2). 0 when level is 0; when this build has no NVTX
 * (a warning says so); or when no tool is attached (said when verbose).
 * NVTX is initialized at the first session that asks, once a process.
 */
unsigned ggmlviz__nvtx_open(uint32_t level, const struct ggmlviz__log_sink *sink);

/* Ranges begun (mask bit GGMLVIZ__NVTX, or GGMLVIZ__NVTX_OPS for ops). */
void ggmlviz__nvtx_step(const struct ggmlviz__step *s, const char *label);
void ggmlviz__nvtx_graph(uint32_t n_nodes);
void ggmlviz__nvtx_run(uint64_t backend);
/*
 * An op of the node engine, from its description. name: where the
 * registered string of its message is kept between runs of the same
 * nodes (NULL: none kept; its text is copied by the tool each time).
 */
void ggmlviz__nvtx_node(const struct ggmlviz_node_desc *d, void **name);
/* An op of ggmlviz_op_begin(): its type's name (from META OP_NAME) and label. */
void ggmlviz__nvtx_op(uint32_t op_type, const char *label);

/*
 * Pops the calling thread's innermost range of kind and every range
 * inside it; nothing when it has none. Called where a range would end
 * whether or not the session goes on (ggmlviz__state.nvtx_used says
 * whether any was ever begun).
 */
void ggmlviz__nvtx_end(enum ggmlviz__nvtx_kind kind);

/* META OP_NAME or BACKEND_NAME: a name the ranges take (mask bit GGMLVIZ__NVTX). */
void ggmlviz__nvtx_named(uint32_t kind, uint64_t key, const char *label);

/* In a child after fork(): the forking thread's ranges are the parent's. */
void ggmlviz__nvtx_forget(void);

/* Whether a range may be open on some thread: the check of the hooks that end them. */
static inline int ggmlviz__nvtx_maybe_open(void)
{
	return atomic_load_explicit(&ggmlviz__state.nvtx_used, memory_order_relaxed) != 0;
}

#endif /* GGMLVIZ_NVTX_H */
