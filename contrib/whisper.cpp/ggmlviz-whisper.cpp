// What ggmlviz-whisper.h sends whisper.cpp's graphs to (see there), and the
// GGML adapter's implementation, once in every program.
//
// Tracing starts at the first model load when GGML_VIZ_OUTPUT is set, with
// every GGML_VIZ_* variable read (ggmlviz_config_from_env()), and stops at
// exit. Without GGML_VIZ_OUTPUT, or once tracing could not start, each
// wrapper is the plain call, and no scheduler gets a callback.
//
// Defaults that differ from the library's, as for llama.cpp's tools
// (contrib/llama.cpp/ggmlviz-llama-tools.cpp): memory is tracked (the
// weights, the KV caches and the compute buffers, by device), and on a
// CUDA GPU kernels are recorded in sampled windows.
//
// A scheduler is traced (ggmlviz_ggml_trace_sched()) at its first graph of
// a session, with the threads of the step computing it, and again when
// they change; untraced before whisper.cpp frees it.
//
// SPDX-License-Identifier: MIT
#define GGMLVIZ_WHISPER_IMPL
#include "ggml.h"
#include "ggml-backend.h"

#define GGMLVIZ_GGML_MAX_SCHEDS 64 // four a whisper_state, one more state per whisper_full_parallel processor
#define GGMLVIZ_GGML_IMPLEMENTATION
#include <ggmlviz/ggml.h>

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <sched.h>
#include <unistd.h>

#include "ggmlviz-whisper-names.h"

#ifndef GGMLVIZ_TOOLS_GPU_SAMPLE_K
#define GGMLVIZ_TOOLS_GPU_SAMPLE_K 8
#define GGMLVIZ_TOOLS_GPU_SAMPLE_N 256
#endif

static std::once_flag ggmlviz_whisper_once;

static void ggmlviz_whisper_stop(void) {
    ggmlviz_stop();
}

static void ggmlviz_whisper_begin(void) {
    const char * out = getenv("GGML_VIZ_OUTPUT");
    struct ggmlviz_config cfg;

    if (!out || !*out) {
        return;
    }
    ggmlviz_config_init(&cfg);
    cfg.gpu_sample_k = GGMLVIZ_TOOLS_GPU_SAMPLE_K; // the tools' default: windows on a GPU
    cfg.gpu_sample_n = GGMLVIZ_TOOLS_GPU_SAMPLE_N;
    cfg.memory_tracking = 1; // the tools' default: the model's, caches' and compute buffers' memory
    (void) ggmlviz_config_from_env(&cfg); // every GGML_VIZ_* read; a bad one was warned of, kept
    int rc = ggmlviz_start(&cfg);
    if (rc < 0) {
        fprintf(stderr, "ggmlviz: not tracing to %s: %s\n", out, ggmlviz_strerror(rc));
        return;
    }
    atexit(ggmlviz_whisper_stop);
}

extern "C" void ggmlviz_whisper_start(void) {
    std::call_once(ggmlviz_whisper_once, ggmlviz_whisper_begin);
}

// ---- the schedulers traced ----

// The threads the step open on this thread computes with (0 outside steps: not known).
static thread_local int ggmlviz_whisper_n_threads;

// META THREADS, as the llama.cpp adapter writes it (`ggmlviz advise` compares): the
// threads a whisper_state computes with, and the CPUs for them, at its first step of a
// session and when they change.
static void ggmlviz_whisper_say_threads(const void * ctx, int n_threads) {
    static thread_local const void * said_ctx;
    static thread_local uint64_t said_session;
    static thread_local int said_threads;
    const uint64_t session = ggmlviz_session();
    const uint64_t threads = (uint64_t) (uint32_t) n_threads | (uint64_t) (uint32_t) n_threads << 32;
    long online;
    cpu_set_t set;
    uint32_t allowed = 0;
    char label[160];

    if (said_ctx == ctx && said_session == session && said_threads == n_threads) {
        return;
    }
    said_ctx = ctx, said_session = session, said_threads = n_threads;
    online = sysconf(_SC_NPROCESSORS_ONLN);
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        allowed = (uint32_t) CPU_COUNT(&set);
    }
    snprintf(label, sizeof label, "%d threads encoding and decoding; this process may run on %u of %ld CPUs online",
             n_threads, (unsigned) allowed, online > 0 ? online : 0L);
    ggmlviz_meta(GGMLVIZ_META_THREADS, (uint64_t) (uintptr_t) ctx, threads,
                 (uint64_t) allowed | (uint64_t) (online > 0 ? (uint32_t) online : 0u) << 32, label);
}

extern "C" void ggmlviz_whisper_threads(const void * ctx, int n_threads) {
    ggmlviz_whisper_n_threads = n_threads;
    if (ctx && n_threads > 0) {
        ggmlviz_whisper_say_threads(ctx, n_threads);
    }
}

struct ggmlviz_whisper_traced {
    ggml_backend_sched_t sched;
    int n_threads;  // as told to the adapter; -1: to tell again
    uint64_t session;
};

static std::mutex ggmlviz_whisper_lock;
static ggmlviz_whisper_traced ggmlviz_whisper_scheds[GGMLVIZ_GGML_MAX_SCHEDS];

// The scheduler traced in this session with this thread's threads: told the adapter when new or changed.
static void ggmlviz_whisper_trace(ggml_backend_sched_t sched) {
    const int n_threads = ggmlviz_whisper_n_threads;
    const uint64_t session = ggmlviz_session();
    std::lock_guard<std::mutex> g(ggmlviz_whisper_lock);
    ggmlviz_whisper_traced * t = nullptr, * free_one = nullptr;

    for (auto & s : ggmlviz_whisper_scheds) {
        if (s.sched == sched) {
            t = &s;
        } else if (!s.sched && !free_one) {
            free_one = &s;
        }
    }
    if (t && t->n_threads == n_threads && t->session == session) {
        return;
    }
    if (!t && !(t = free_one)) {
        return; // every slot taken: the adapter times its runs as a whole, and says so
    }
    if (ggmlviz_ggml_trace_sched(sched, n_threads, nullptr, nullptr) == 0) {
        *t = { sched, n_threads, session };
    }
}

extern "C" enum ggml_status ggmlviz_whisper_sched_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph) {
    ggmlviz_whisper_start(); // a program that computed before any model load
    if (!ggmlviz_is_active()) {
        return ggml_backend_sched_graph_compute(sched, graph);
    }
    ggmlviz_whisper_trace(sched);
    if (ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_OFF) {
        ggmlviz_whisper_name_nodes(graph); // what each node does, for the trace
    }
    return ggmlviz_ggml_sched_graph_compute(sched, graph);
}

extern "C" enum ggml_status ggmlviz_whisper_backend_compute(ggml_backend_t backend, struct ggml_cgraph * graph) {
    ggmlviz_whisper_start();
    if (!ggmlviz_is_active()) {
        return ggml_backend_graph_compute(backend, graph);
    }
    return ggmlviz_ggml_backend_graph_compute(backend, graph, ggmlviz_whisper_n_threads);
}

// Untraced before it is freed. Its CPU backend may be another traced
// scheduler's too (a whisper_state's four share theirs), whose ticks the
// untrace took away: those are told again at their next graph.
extern "C" void ggmlviz_whisper_sched_free(ggml_backend_sched_t sched) {
    {
        std::lock_guard<std::mutex> g(ggmlviz_whisper_lock);
        bool was = false;

        for (auto & s : ggmlviz_whisper_scheds) {
            if (s.sched == sched) {
                s = { nullptr, 0, 0 };
                was = true;
            }
        }
        if (was) {
            ggmlviz_ggml_untrace_sched(sched);
            for (auto & s : ggmlviz_whisper_scheds) {
                s.n_threads = s.sched ? -1 : 0;
            }
        }
    }
    ggml_backend_sched_free(sched);
}
