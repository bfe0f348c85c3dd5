// GGML's Vulkan backend hands each node's GPU time to libggmlviz: included
// by the copy of ggml/src/ggml-vulkan/ggml-vulkan.cpp that
// scripts/build-llama-tools.sh --vulkan builds (contrib/llama.cpp/
// ggmlviz-edit.py --vulkan-times puts the include and the two calls).
//
// The backend's perf logger (GGML_VK_PERF_LOGGER) already writes a
// timestamp query after each node and reads them all after one wait per
// graph. While libggmlviz traces, its queries are turned on (without its
// printing, unless GGML_VK_PERF_LOGGER asks for that too), and each node's
// time goes to the node engine as how long before the read it began and
// ended (ggmlviz_nodes_gpu_time()): the node's op is recorded at that time,
// method GPU, as a CUDA node's is by its kernels. Nothing is synchronized
// per node on the host; on the GPU, the logger's barrier after each
// timestamp keeps the nodes one after the other.
//
// SPDX-License-Identifier: MIT
#pragma once

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include <cstdint>
#include <cstdlib>

// The perf logger's queries were turned on for libggmlviz alone: nothing of its own to print.
inline bool & ggmlviz_vk_quiet_flag() {
    static bool quiet = false;
    return quiet;
}

inline bool ggmlviz_vk_quiet() {
    return ggmlviz_vk_quiet_flag();
}

// At the instance's init: whether libggmlviz wants each node's time. The
// instance is made when GGML's backends are registered, which may come
// before the tools' start (ggmlviz-llama-tools.cpp starts a session when
// GGML_VIZ_OUTPUT is set): a graph computed while no session runs hands
// nothing over (ggmlviz_vk_times()).
inline bool ggmlviz_vk_wanted() {
    bool want = ggmlviz_is_active() || getenv("GGML_VIZ_OUTPUT") != nullptr;
    ggmlviz_vk_quiet_flag() = want && getenv("GGML_VK_PERF_LOGGER") == nullptr;
    return want;
}

// The queries of a graph, read: query i is stamped after node i's work (query 0 before the first).
template <class Tensor>
inline void ggmlviz_vk_times(Tensor * const * nodes, const uint64_t * ts, int n, float period,
                             bool concurrent) {
    if (concurrent || n < 2 || !ggmlviz_is_active()) {
        return; // concurrent mode stamps groups of nodes, not nodes
    }
    const uint64_t last = ts[n - 1];
    for (int i = 1; i < n; i++) {
        if (ts[i] < ts[i - 1] || last < ts[i]) {
            continue; // a counter that wrapped: no time rather than a wrong one
        }
        ggmlviz_nodes_gpu_time(nodes[i], (uint64_t) ((double) (last - ts[i - 1]) * period),
                               (uint64_t) ((double) (last - ts[i]) * period));
    }
}
