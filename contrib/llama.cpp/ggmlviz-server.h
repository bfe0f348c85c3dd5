// llama-server's requests told to libggmlviz: included by the copy of
// tools/server/server-context.cpp and server-queue.cpp that
// scripts/build-llama-tools.sh builds (contrib/llama.cpp/ggmlviz-edit.py
// --server-requests puts the include and a call at each place below), so
// that the trace holds each request (the server's task): its arrival in
// the queue, the start of its prompt on a slot, its first token, and its
// end, answered, cancelled or failed, with its prompt, cached and
// generated tokens. The places are the server's own measures: a request's
// prompt starts where the server starts its prompt's clock
// (slot.stats.update_prompt_start()), its first token where the server
// ends it (update_prompt_last(), when the first token is sampled), so that
// `ggmlviz stats --by request` gives what the server's `timings` say.
//
// Each hook is a template, instantiated where it is called: the server's
// types (server_slot is defined in server-context.cpp itself) are complete
// there, and nothing here names their members or enumerators before (a
// stop reason is found by its enumerator's name, STOP_TYPE_EOS, not by its
// place in the enum: an upstream that renames one fails to build here).
//
// When tracing is off each hook costs one load and a branch, inline: the
// arrival the tracer's mask (as every emit call), the others the count of
// requests open, which stays 0 while nothing is traced; the lock and the
// table are for traced requests only (bench/bench_server_hooks measures
// both).
//
// SPDX-License-Identifier: MIT
#pragma once

#include <ggmlviz/tracer.h>

#include <atomic>
#include <cstdint>
#include <mutex>
#include <unordered_map>

// The requests begun and not ended yet: id -> the slot serving it (-1: queued).
struct ggmlviz_server_requests {
    std::mutex                       lock;
    std::unordered_map<int, int32_t> open;
};

inline ggmlviz_server_requests & ggmlviz_server_state() {
    static ggmlviz_server_requests s;
    return s;
}

// How many requests are open, read without the lock (constant-initialized: no guard to test).
inline std::atomic<size_t> ggmlviz_server_n_open{ 0 };

// Whether a request may be open at all: one relaxed load.
inline bool ggmlviz_server_any_open() {
    return ggmlviz_server_n_open.load(std::memory_order_relaxed) != 0;
}

// Whether request id is open; its slot in *slot. Forgets it when end.
inline bool ggmlviz_server_take(int id, int32_t * slot, bool end) {
    auto & s = ggmlviz_server_state();
    std::lock_guard<std::mutex> g(s.lock);
    auto it = s.open.find(id);
    if (it == s.open.end()) {
        return false;
    }
    *slot = it->second;
    if (end) {
        s.open.erase(it);
        ggmlviz_server_n_open.store(s.open.size(), std::memory_order_relaxed);
    }
    return true;
}

inline void ggmlviz_server_place(int id, int32_t slot) {
    auto & s = ggmlviz_server_state();
    std::lock_guard<std::mutex> g(s.lock);
    s.open[id] = slot;
    ggmlviz_server_n_open.store(s.open.size(), std::memory_order_relaxed);
}

// A task enters the server's queue (server_queue::post()); those that answer a client are requests.
template <class Task>
inline void ggmlviz_server_arrived(const Task & task) {
    using Type = decltype(task.type);
    uint32_t kind;
    const char * what;

    if (!GGMLVIZ__ON(GGMLVIZ__ACTIVE)) {
        return;
    }
    switch (task.type) {
        case Type::SERVER_TASK_TYPE_COMPLETION: kind = GGMLVIZ_REQUEST_COMPLETION; what = "completion"; break;
        case Type::SERVER_TASK_TYPE_INFILL:     kind = GGMLVIZ_REQUEST_INFILL;     what = "infill";     break;
        case Type::SERVER_TASK_TYPE_EMBEDDING:  kind = GGMLVIZ_REQUEST_EMBEDDING;  what = "embedding";  break;
        case Type::SERVER_TASK_TYPE_RERANK:     kind = GGMLVIZ_REQUEST_RERANK;     what = "rerank";     break;
        default: return;
    }
    ggmlviz_server_place(task.id, -1);
    ggmlviz_request_begin((uint64_t) task.id, kind, (uint32_t) task.n_tokens(), what);
}

// The slot starts its request's prompt (the server's own prompt clock starts).
template <class Slot>
inline void ggmlviz_server_prompt(const Slot & slot) {
    int32_t had;

    if (!ggmlviz_server_any_open() || !slot.task || !ggmlviz_server_take(slot.task->id, &had, false)) {
        return;
    }
    ggmlviz_server_place(slot.task->id, slot.id);
    ggmlviz_request_stage((uint64_t) slot.task->id, slot.id, GGMLVIZ_REQUEST_PROMPT,
                          (uint32_t) slot.task->n_tokens(), 0);
}

// Its first token is sampled (the server's prompt clock stops).
template <class Slot>
inline void ggmlviz_server_first_token(const Slot & slot) {
    int32_t had;

    if (!ggmlviz_server_any_open() || !slot.task || !ggmlviz_server_take(slot.task->id, &had, false)) {
        return;
    }
    ggmlviz_request_stage((uint64_t) slot.task->id, slot.id, GGMLVIZ_REQUEST_FIRST_TOKEN,
                          (uint32_t) slot.task->n_tokens(), (uint32_t) slot.stats.n_prompt_cached);
}

// Why a slot stopped, in words: by the enumerator's name, wherever upstream puts it.
template <class Stop>
inline const char * ggmlviz_server_stop_name(Stop stop) {
    switch (stop) {
        case Stop::STOP_TYPE_NONE:  return "none";
        case Stop::STOP_TYPE_EOS:   return "eos";
        case Stop::STOP_TYPE_WORD:  return "word";
        case Stop::STOP_TYPE_LIMIT: return "limit";
        default:                    return "other";
    }
}

// Its slot ends it: answered, or cancelled (the server's cancel task).
template <class Slot>
inline void ggmlviz_server_end(const Slot & slot, uint32_t status) {
    int32_t had;

    if (!ggmlviz_server_any_open() || !slot.task || !ggmlviz_server_take(slot.task->id, &had, true)) {
        return;
    }
    ggmlviz_request_end((uint64_t) slot.task->id, slot.id, status, (uint32_t) slot.task->n_tokens(),
                        (uint32_t) slot.stats.n_prompt_cached, (uint32_t) slot.stats.n_gen,
                        status == GGMLVIZ_REQUEST_DONE ? ggmlviz_server_stop_name(slot.stop) : NULL);
}

// An error answers it (send_error(), with a slot or without one).
inline void ggmlviz_server_failed(int id) {
    int32_t slot;

    if (ggmlviz_server_any_open() && ggmlviz_server_take(id, &slot, true)) {
        ggmlviz_request_end((uint64_t) id, slot, GGMLVIZ_REQUEST_FAILED, 0, 0, 0, NULL);
    }
}

// A cancel reaches the queue: a request still queued is cancelled there (on a slot, its slot ends it).
inline void ggmlviz_server_cancel_queued(int id) {
    int32_t slot;

    if (ggmlviz_server_any_open() && ggmlviz_server_take(id, &slot, false) && slot < 0 &&
        ggmlviz_server_take(id, &slot, true)) {
        ggmlviz_request_end((uint64_t) id, -1, GGMLVIZ_REQUEST_CANCELLED, 0, 0, 0, NULL);
    }
}
