/*
 * GGML's CPU backend measures every worker thread's share of every node for
 * libggmlviz: included by the copy of ggml/src/ggml-cpu/ggml-cpu.c that
 * scripts/build-llama-tools.sh builds (contrib/llama.cpp/ggmlviz-edit.py
 * --cpu-shares puts the include and the three calls into
 * ggml_graph_compute_thread).
 *
 * Each thread calls ggmlviz_cpu_share_begin() before its share of a node
 * (ggmlviz_cpu_share_next() at one thread: see ggmlviz_cpu_share_starts())
 * and ggmlviz_cpu_share_end() after it (two time reads and two stores into
 * its own slot, one read at one thread), and ggmlviz_cpu_graph_done()
 * after the graph's last barrier, where it writes its shares (OP_SHARE
 * records) and thread 0 gives each node its first begin and last end
 * (ggmlviz_cpu_share_begin(3)).
 * Nothing is done unless libggmlviz traces ops; the graph is computed as
 * without the edit.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_CPU_H
#define GGMLVIZ_CPU_H

#include <ggmlviz/nodes.h>

#ifdef GGMLVIZ_CPU_WEAK
/*
 * A shared GGML (scripts/build-ggml-cuda.sh): libggmlviz is not linked
 * into it but into the program, whose definitions the dynamic linker
 * binds to these references (ld exports them from a program that links
 * libggmlviz against this GGML). A program without libggmlviz leaves them
 * null, and nothing is called.
 */
#pragma weak ggmlviz_cpu_share_begin
#pragma weak ggmlviz_cpu_share_next
#pragma weak ggmlviz_cpu_share_end
#pragma weak ggmlviz_cpu_graph_done
#define ggmlviz_cpu_share_begin(...) \
	(ggmlviz_cpu_share_begin ? ggmlviz_cpu_share_begin(__VA_ARGS__) : (void)0)
/* a libggmlviz from before ggmlviz_cpu_share_next(): a time read at each begin */
#define ggmlviz_cpu_share_next(...) \
	(ggmlviz_cpu_share_next ? ggmlviz_cpu_share_next(__VA_ARGS__) \
				: ggmlviz_cpu_share_begin(__VA_ARGS__))
#define ggmlviz_cpu_share_end(...) \
	(ggmlviz_cpu_share_end ? ggmlviz_cpu_share_end(__VA_ARGS__) : (void)0)
#define ggmlviz_cpu_graph_done(...) \
	((void)(ggmlviz_cpu_graph_done ? ggmlviz_cpu_graph_done(__VA_ARGS__) : 0))
#endif

/*
 * A thread begins its share of a node. At one thread (nth 1) no barrier
 * stands between two shares, and the share begins where the thread's
 * last one ended, with no time read (ggmlviz_cpu_share_next()).
 */
static inline void ggmlviz_cpu_share_starts(const void *pool, int ith, int nth, int node)
{
	if (nth == 1)
		ggmlviz_cpu_share_next(pool, ith, node);
	else
		ggmlviz_cpu_share_begin(pool, ith, node);
}

/*
 * A node's op type as libggmlviz's GGML adapter records it
 * (ggmlviz_ggml_op_type()): GGML's op, and for the two ops whose
 * description is their sub-op's (UNARY, GLU: ggml_op_desc()), 1 + the
 * sub-op in bits 16 and up. Called for every share: no string compared.
 */
static uint32_t ggmlviz_cpu_op_of(const void *node)
{
	const struct ggml_tensor *t = (const struct ggml_tensor *)node;
	uint32_t op = (uint32_t)t->op & 0xffffu;

	if (t->op != GGML_OP_UNARY && t->op != GGML_OP_GLU)
		return op;
	return op | (((uint32_t)t->op_params[0] + 1u) & 0xffffu) << 16;
}

#endif /* GGMLVIZ_CPU_H */
