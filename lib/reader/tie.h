/*
 * Tying a GPU run's kernels to its nodes (tie.c): GGML-free, from names
 * alone. The scheduler asked about a run's nodes in graph order, and the
 * backend launched their kernels in that order; a node may launch several
 * (activation quantization, then the matmul, then a fix-up), several nodes
 * may share one (fusion), views launch none, and with concurrent streams
 * kernels of independent nodes may come out of order. A kernel's name says
 * which ops can launch it and in what role; what cannot be tied is said,
 * never guessed.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TIE_H
#define GGMLVIZ_TIE_H

#include <stddef.h>
#include <stdint.h>

/* A node of the run: its op's name, as GGML names it ("MUL_MAT", "SILU"). */
struct ggmlviz__tie_node {
	const char *op;  /* NULL: not known, ties nothing */
	size_t op_len;
};

/* A kernel of the run, in launch order: its name as the GPU's profiler gives it (mangled). */
struct ggmlviz__tie_kernel {
	const char *name;
	size_t len;
};

/* owner[k] of a kernel that could not be tied to any node. */
#define GGMLVIZ__TIE_NONE UINT32_MAX

/*
 * Ties each kernel to a node: owner[k] = the node's index, or
 * GGMLVIZ__TIE_NONE for a kernel whose name no op of the run can launch
 * (unknown, or launched outside the run's order). Returns how many were
 * tied.
 */
size_t ggmlviz__tie(const struct ggmlviz__tie_node *nodes, size_t n,
		    const struct ggmlviz__tie_kernel *kernels, size_t m, uint32_t *owner);

/* Whether a kernel of that name may be launched by op (for tests and tools). */
int ggmlviz__tie_can_launch(const char *kernel, size_t len, const char *op, size_t op_len);

#endif /* GGMLVIZ_TIE_H */
