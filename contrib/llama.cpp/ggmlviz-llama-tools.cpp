// The wrappers that ggmlviz-llama-tools.h sends llama.cpp's tools to (see
// there), and the adapters' implementation, once in every program.
//
// Tracing starts at the first model load or context (before any decode)
// when GGML_VIZ_OUTPUT is set, with every GGML_VIZ_* variable read
// (ggmlviz_config_from_env()), and stops at exit, by the library's own
// exit handler (one for the session: ggmlviz_start(3)): a server stopped by
// SIGINT or SIGTERM ends normally, and its trace with it; a second
// SIGINT, whose handler calls exit() while that handler stops the session,
// ends the process at once, its trace as far as the stop had got (complete,
// or said incomplete by `ggmlviz validate`). Without GGML_VIZ_OUTPUT, or
// once tracing could not start, each wrapper is the plain call.
//
// Two defaults differ from the library's. Memory is tracked (the backend
// buffers by device and part, the scheduler's copies between devices:
// GGML_VIZ_MEMORY_TRACKING=0 turns it off): in callgrind's count it adds
// 0.08% to a decode's instructions. And on a CUDA GPU the tools record
// kernels in sampled windows, GGMLVIZ_TOOLS_GPU_SAMPLE_K of every
// GGMLVIZ_TOOLS_GPU_SAMPLE_N steps (GGML_VIZ_GPU_SAMPLE sets another,
// 1/1 every kernel): with every kernel recorded llama-bench decoded at
// 0.52 to 0.61 of its speed on an H100, so that the op times were those of
// another run. Why these figures: doc/performance.md, GPU.
//
// A decode is a step labelled by what made it: "warmup" for the decodes
// common_init_from_params() makes before the tool's own work, "probe" for
// common_context_can_seq_rm()'s, "decode" (or "encode") for every other.
//
// SPDX-License-Identifier: MIT
#define GGMLVIZ_LLAMA_TOOLS_IMPL
#include "llama.h"

#define GGMLVIZ_LLAMA_IMPLEMENTATION
#include <ggmlviz/llama.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>

static std::once_flag ggmlviz_tools_once;
static std::atomic<bool> ggmlviz_tools_started; // ggmlviz_tools_start() has returned

#ifndef GGMLVIZ_TOOLS_GPU_SAMPLE_K
#define GGMLVIZ_TOOLS_GPU_SAMPLE_K 8
#define GGMLVIZ_TOOLS_GPU_SAMPLE_N 256
#endif

static void ggmlviz_tools_start(void) {
    const char * out = getenv("GGML_VIZ_OUTPUT");
    struct ggmlviz_config cfg;

    if (!out || !*out) {
        return;
    }
    ggmlviz_config_init(&cfg);
    cfg.gpu_sample_k = GGMLVIZ_TOOLS_GPU_SAMPLE_K; // the tools' default: windows on a GPU
    cfg.gpu_sample_n = GGMLVIZ_TOOLS_GPU_SAMPLE_N;
    cfg.memory_tracking = 1; // the tools' default: memory by device, for ggmlviz info and advise
    (void) ggmlviz_config_from_env(&cfg); // every GGML_VIZ_* read; a bad one was warned of, kept
    int rc = ggmlviz_start(&cfg);
    if (rc < 0) {
        fprintf(stderr, "ggmlviz: not tracing to %s: %s\n", out, ggmlviz_strerror(rc));
    }
}

// After the first call, one load: std::call_once stores and clears two of libstdc++'s
// thread-local pointers and calls pthread_once() at every call, lines a decode's weights
// have pushed out of the caches by the next one.
static void ggmlviz_tools_maybe_start(void) {
    if (ggmlviz_tools_started.load(std::memory_order_acquire)) {
        return;
    }
    std::call_once(ggmlviz_tools_once, [] {
        ggmlviz_tools_start();
        ggmlviz_tools_started.store(true, std::memory_order_release);
    });
}

// The step's label: what the function that called llama_decode() does.
static const char * ggmlviz_tools_label_of(const char * site, const char * dflt) {
    if (site && strcmp(site, "common_init_from_params") == 0) {
        return "warmup";
    }
    if (site && strcmp(site, "common_context_can_seq_rm") == 0) {
        return "probe";
    }
    return dflt;
}

// The same, the thread's last one kept: a site is its caller's __func__, one array of the
// program's, so that a decode from the same function compares a pointer, not two strings.
static const char * ggmlviz_tools_label(const char * site, const char * dflt) {
    static thread_local const char * last_site, * last_dflt, * last;

    if (!last || site != last_site || dflt != last_dflt) {
        last = ggmlviz_tools_label_of(site, dflt);
        last_site = site;
        last_dflt = dflt;
    }
    return last;
}

static bool ggmlviz_tools_recordable(struct llama_context * ctx, struct llama_batch batch) {
    return ggmlviz_is_active() && ctx && batch.n_tokens > 0 && (batch.token || batch.embd);
}

// A decode or an encode (fn, named what), a step of the trace where one is recorded.
static int32_t ggmlviz_tools_step(const char * site, struct llama_context * ctx, struct llama_batch batch,
                                  int32_t (*fn)(struct llama_context *, struct llama_batch),
                                  const char * what) {
    ggmlviz_tools_maybe_start();
    if (!ggmlviz_tools_recordable(ctx, batch)) {
        return fn(ctx, batch);
    }
    return ggmlviz_llama__step(ctx, batch, fn, ggmlviz_tools_label(site, what));
}

extern "C" int32_t ggmlviz_tools_decode(const char * site, struct llama_context * ctx,
                                        struct llama_batch batch) {
    return ggmlviz_tools_step(site, ctx, batch, llama_decode, "decode");
}

extern "C" int32_t ggmlviz_tools_encode(const char * site, struct llama_context * ctx,
                                        struct llama_batch batch) {
    return ggmlviz_tools_step(site, ctx, batch, llama_encode, "encode");
}

extern "C" struct llama_context * ggmlviz_tools_init_from_model(struct llama_model * model,
                                                                struct llama_context_params params) {
    ggmlviz_tools_maybe_start();
    if (ggmlviz_is_active()) {
        ggmlviz_llama_context_params(&params); // its nodes timed, its own callbacks chained
    }
    return llama_init_from_model(model, params);
}

extern "C" struct llama_model * ggmlviz_tools_model_load_from_file(const char * path,
                                                                   struct llama_model_params params) {
    ggmlviz_tools_maybe_start();
    return llama_model_load_from_file(path, params);
}

// the frees of the buffers recorded for a context or a model (llama.h), where memory is tracked
extern "C" void ggmlviz_tools_free(struct llama_context * ctx) {
    ggmlviz_llama_free(ctx);
}

extern "C" void ggmlviz_tools_model_free(struct llama_model * model) {
    ggmlviz_llama_model_free(model);
}
