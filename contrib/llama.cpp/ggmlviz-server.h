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
// there, and nothing here names their members before. Each costs a check
// of the tracer's mask when tracing is off.
//
// SPDX-License-Identifier: MIT
#pragma once

#include <ggmlviz/tracer.h>

#include <cstdint>
#include <mutex>
#include <unordered_map>

// The requests begun and not ended yet: id -> the slot serving it (-1: queued).
inline std::unordered_map<int, int32_t> & ggmlviz_server_open(std::mutex ** lock) {
    static std::mutex m;
    static std::unordered_map<int, int32_t> open;
    *lock = &m;
    return open;
}

// Whether request id is open; its slot in *slot. Forgets it when end.
inline bool ggmlviz_server_take(int id, int32_t * slot, bool end) {
    std::mutex * m;
    auto & open = ggmlviz_server_open(&m);
    std::lock_guard<std::mutex> g(*m);
    auto it = open.find(id);
    if (it == open.end()) {
        return false;
    }
    *slot = it->second;
    if (end) {
        open.erase(it);
    }
    return true;
}

inline void ggmlviz_server_place(int id, int32_t slot) {
    std::mutex * m;
    auto & open = ggmlviz_server_open(&m);
    std::lock_guard<std::mutex> g(*m);
    open[id] = slot;
}

// server_queue::post(): a task arrives; those that answer a client are requests.
template <class Task>
inline void ggmlviz_server_arrived(const Task & task) {
    uint32_t kind;
    const char * what;

    if (!ggmlviz_is_active()) {
        return;
    }
    switch (task.type) {
        case SERVER_TASK_TYPE_COMPLETION: kind = GGMLVIZ_REQUEST_COMPLETION; what = "completion"; break;
        case SERVER_TASK_TYPE_INFILL:     kind = GGMLVIZ_REQUEST_INFILL;     what = "infill";     break;
        case SERVER_TASK_TYPE_EMBEDDING:  kind = GGMLVIZ_REQUEST_EMBEDDING;  what = "embedding";  break;
        case SERVER_TASK_TYPE_RERANK:     kind = GGMLVIZ_REQUEST_RERANK;     what = "rerank";     break;
        default: return;
    }
    ggmlviz_server_place(task.id, -1);
    ggmlviz_request_begin((uint64_t) task.id, kind, (uint32_t) task.n_tokens(), what);
}

// The slot starts its request's prompt (the server's own prompt clock starts).
template <class Slot>
inline void ggmlviz_server_prompt(const Slot & slot) {
    int32_t had;

    if (!slot.task || !ggmlviz_server_take(slot.task->id, &had, false)) {
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

    if (!slot.task || !ggmlviz_server_take(slot.task->id, &had, false)) {
        return;
    }
    ggmlviz_request_stage((uint64_t) slot.task->id, slot.id, GGMLVIZ_REQUEST_FIRST_TOKEN,
                          (uint32_t) slot.task->n_tokens(), (uint32_t) slot.stats.n_prompt_cached);
}

// Why a slot stopped, in words.
inline const char * ggmlviz_server_stop_name(int stop) {
    static const char * const names[] = { "none", "eos", "word", "limit" };
    return stop >= 0 && stop < 4 ? names[stop] : "other";
}

// Its slot ends it: answered, or cancelled (the server's cancel task).
template <class Slot>
inline void ggmlviz_server_end(const Slot & slot, uint32_t status) {
    int32_t had;

    if (!slot.task || !ggmlviz_server_take(slot.task->id, &had, true)) {
        return;
    }
    ggmlviz_request_end((uint64_t) slot.task->id, slot.id, status, (uint32_t) slot.task->n_tokens(),
                        (uint32_t) slot.stats.n_prompt_cached, (uint32_t) slot.stats.n_gen,
                        status == GGMLVIZ_REQUEST_DONE ? ggmlviz_server_stop_name((int) slot.stop)
                                                       : NULL);
}

// An error answers it (send_error(), with a slot or without one).
inline void ggmlviz_server_failed(int id) {
    int32_t slot;

    if (ggmlviz_server_take(id, &slot, true)) {
        ggmlviz_request_end((uint64_t) id, slot, GGMLVIZ_REQUEST_FAILED, 0, 0, 0, NULL);
    }
}

// A cancel reaches the queue: a request still queued is cancelled there (on a slot, its slot ends it).
inline void ggmlviz_server_cancel_queued(int id) {
    int32_t slot;

    if (ggmlviz_server_take(id, &slot, false) && slot < 0 && ggmlviz_server_take(id, &slot, true)) {
        ggmlviz_request_end((uint64_t) id, -1, GGMLVIZ_REQUEST_CANCELLED, 0, 0, 0, NULL);
    }
}
