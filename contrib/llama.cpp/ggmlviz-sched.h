/*
 * GGML's scheduler tells libggmlviz the id and the backend of each split
 * graph before it asks an eval callback about the split's nodes: included by the copy of
 * ggml/src/ggml-backend.cpp that scripts/build-llama-tools.sh and
 * scripts/build-ggml-cuda.sh build (contrib/llama.cpp/ggmlviz-edit.py
 * --sched-graph-ids puts the include and the call into
 * ggml_backend_sched_compute_splits). A run of an id recorded before, with
 * the same nodes, is then recorded with the descriptions kept from then
 * (ggmlviz_nodes_graph_id(3)): llama.cpp reuses its graph from token to
 * token, and its nodes are described once; and the eval callback takes
 * each node's backend from the split (ggmlviz_nodes_split(3)) instead of
 * the scheduler's hash table. After a split's first ask, the scheduler
 * gives libggmlviz the split's other nodes at once
 * (ggmlviz_nodes_ask_rest(3)): a split computed again, whose asks the
 * tracer would take alone, is then computed without a call of the eval
 * callback for each of them.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_SCHED_H
#define GGMLVIZ_SCHED_H

#include <ggmlviz/nodes.h>

#ifdef GGMLVIZ_CPU_WEAK
/*
 * A shared GGML (scripts/build-ggml-cuda.sh): libggmlviz is linked into
 * the program, not into GGML, and the dynamic linker binds this reference
 * to the program's definition; a program without libggmlviz leaves it
 * null, and nothing is called (as ggmlviz-cpu.h).
 */
#pragma weak ggmlviz_nodes_graph_id
#pragma weak ggmlviz_nodes_split
#pragma weak ggmlviz_nodes_ask_rest
#define ggmlviz_nodes_graph_id(id) \
	(ggmlviz_nodes_graph_id ? ggmlviz_nodes_graph_id(id) : (void)0)
#define ggmlviz_nodes_split(id, backend) \
	(ggmlviz_nodes_split ? ggmlviz_nodes_split(id, backend) : (void)0)
#define ggmlviz_nodes_ask_rest(user, nodes, from, n) \
	(ggmlviz_nodes_ask_rest ? ggmlviz_nodes_ask_rest(user, nodes, from, n) : (from))
#endif

#endif /* GGMLVIZ_SCHED_H */
