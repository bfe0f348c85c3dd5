/*
 * llama-server's types as far as contrib/llama.cpp/ggmlviz-server.h reads
 * them, declared before it as server-task.h declares upstream's; the
 * enums in an order of their own, which the header must not assume. For
 * tests/test-server-hooks.cc and bench/bench_server_hooks.cc.
 *
 * SPDX-License-Identifier: MIT
 */
#pragma once

#include <cstdint>
#include <memory>

// llama-server's types, as far as the hooks read them; the enums in an order of their own
enum server_task_type {
    SERVER_TASK_TYPE_METRICS,
    SERVER_TASK_TYPE_RERANK,
    SERVER_TASK_TYPE_COMPLETION,
    SERVER_TASK_TYPE_CANCEL,
    SERVER_TASK_TYPE_EMBEDDING,
    SERVER_TASK_TYPE_INFILL,
};

enum stop_type {
    STOP_TYPE_LIMIT,
    STOP_TYPE_WORD,
    STOP_TYPE_EOS,
    STOP_TYPE_NONE,
};

struct server_task {
    int id;
    server_task_type type;
    int prompt;

    int n_tokens() const { return prompt; }
};

struct slot_stats {
    uint64_t n_prompt_cached = 0;
    int32_t n_gen = 0;
};

struct server_slot {
    int id;
    std::unique_ptr<server_task> task;
    slot_stats stats;
    stop_type stop = STOP_TYPE_NONE;
};
