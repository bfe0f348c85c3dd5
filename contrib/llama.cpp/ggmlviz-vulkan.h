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
// A graph goes to the GPU in several command buffers, each submitted once
// the host has recorded it, and the GPU may wait between two of them for
// the host to record the next. The logger wrote a node's timestamp after
// the node was recorded, which is after the submit that ends its buffer
// when the node is that buffer's last: the stamp went into the next
// buffer, and the node's time held the GPU's wait for the host (842 ms of
// RMS_NORM+MUL where sync mode measured 120, on Mesa's software device
// under load: tests/llama-tools-vulkan.py). So each node's end is stamped
// in its own buffer, before the submit (ggmlviz_vk_node_ends()), and a
// buffer's start is stamped before its first node (ggmlviz_vk_node_begins()):
// the wait between two buffers is no node's. The backend's pool held
// n_nodes + 1 queries, reset and read no more: room for the starts only
// where fused nodes had left some, so most buffers' starts went unwritten
// and the wait stayed in their first node (a layer's RMS_NORM+MUL: 896 ms
// against 75 ms in sync mode, on a loaded machine); the edits make it twice
// that.
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

// The command buffer of the last timestamp this thread wrote for a node (a
// graph is recorded on one thread; within a graph no buffer is used twice).
inline VkCommandBuffer & ggmlviz_vk_stamped_in() {
    static thread_local VkCommandBuffer buffer = VK_NULL_HANDLE;
    return buffer;
}

// A timestamp in sub's command buffer after what it holds, for node (nullptr:
// where a buffer begins), and the barrier that keeps what follows after it.
template <class Ctx, class Sub>
inline void ggmlviz_vk_stamp(Ctx * ctx, Sub & sub, ggml_tensor * node) {
    ctx->query_nodes[ctx->query_idx] = node;
    sub->s->buffer->buf.writeTimestamp(vk::PipelineStageFlagBits::eAllCommands, ctx->query_pool,
                                       ctx->query_idx++);
    ggml_vk_sync_buffers(ctx, sub);
    ggmlviz_vk_stamped_in() = static_cast<VkCommandBuffer>(sub->s->buffer->buf);
}

// Before node_idx of a graph of n_nodes is recorded into sub: the start of a
// command buffer that holds no timestamp yet, so that the GPU's wait for the
// host between two buffers is no node's. ggmlviz-edit.py makes the pool
// 2 * n_nodes + 1 queries at least (a start and an end a node, and the
// graph's first); a start that would leave no room for each node still to
// come to stamp its end is not written (that node's time then holds the
// wait): a pool made some other way is never written past.
template <class Ctx, class Sub>
inline void ggmlviz_vk_node_begins(Ctx * ctx, Sub & sub, int node_idx, int n_nodes) {
    const int64_t ends_to_come = (int64_t) n_nodes - node_idx;
    if (static_cast<VkCommandBuffer>(sub->s->buffer->buf) != ggmlviz_vk_stamped_in() &&
        (int64_t) ctx->query_idx + 1 + ends_to_come <= (int64_t) ctx->num_queries) {
        ggmlviz_vk_stamp(ctx, sub, nullptr);
    }
}

// After node (and the nodes fused into it) is recorded into sub, before the
// buffer may be submitted: its end.
template <class Ctx, class Sub>
inline void ggmlviz_vk_node_ends(Ctx * ctx, Sub & sub, ggml_tensor * node) {
    ggmlviz_vk_stamp(ctx, sub, node);
}

// The queries of a graph, read: query i is stamped after node i's work (query 0 before the first),
// or where a command buffer began (no node): each node's time runs from the stamp before it.
template <class Tensor>
inline void ggmlviz_vk_times(Tensor * const * nodes, const uint64_t * ts, int n, float period,
                             bool concurrent) {
    if (concurrent || n < 2 || !ggmlviz_is_active()) {
        return; // concurrent mode stamps groups of nodes, not nodes
    }
    const uint64_t last = ts[n - 1];
    for (int i = 1; i < n; i++) {
        if (!nodes[i]) {
            continue; // where a command buffer began
        }
        if (ts[i] < ts[i - 1] || last < ts[i]) {
            continue; // a counter that wrapped: no time rather than a wrong one
        }
        ggmlviz_nodes_gpu_time(nodes[i], (uint64_t) ((double) (last - ts[i - 1]) * period),
                               (uint64_t) ((double) (last - ts[i]) * period));
    }
}
