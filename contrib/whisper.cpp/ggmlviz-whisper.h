// Forced into the compilation of whisper.cpp's library (src/whisper.cpp) by
// ggmlviz.cmake (-include), never into GGML's: every graph whisper.cpp
// computes, wherever upstream puts the call, goes through
// ggmlviz-whisper.cpp, which traces its scheduler (each node timed, in its
// layer) when GGML_VIZ_OUTPUT asks for a trace, and is the plain call
// otherwise. whisper.cpp has no eval callback to give: the scheduler is
// traced where it computes. The build's check (scripts/check-whisper-tools.sh)
// fails on an object of whisper.cpp that still calls GGML's compute
// functions itself.
//
// The stages are whisper.cpp's own functions, wrapped where they are
// called: contrib/whisper.cpp/ggmlviz-edit.py --whisper-stages makes each
// call of whisper_encode_internal(), whisper_decode_internal(),
// log_mel_spectrogram() and whisper_model_load() in the copy of
// src/whisper.cpp a call of the template here of the same role, which
// records an encoder run as a step of phase ENCODE, a decoder call as a
// step (its batch's sequences: STEP_SEQ), and the mel spectrogram as a
// scope. Templates, instantiated where they are called: whisper.cpp's
// types (whisper_state, whisper_batch) are complete there, and nothing
// here names their members before.
//
// SPDX-License-Identifier: MIT
#pragma once

#if defined(__cplusplus) && !defined(GGMLVIZ_WHISPER_IMPL) && defined(__has_include)
#if __has_include("ggml-backend.h")
#include "ggml-backend.h"

#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include <cstdint>
#include <cstring>
#include <utility>

extern "C" {
enum ggml_status ggmlviz_whisper_sched_compute(ggml_backend_sched_t sched, struct ggml_cgraph * graph);
enum ggml_status ggmlviz_whisper_backend_compute(ggml_backend_t backend, struct ggml_cgraph * graph);
void ggmlviz_whisper_sched_free(ggml_backend_sched_t sched);
void ggmlviz_whisper_threads(const void * ctx, int n_threads);
void ggmlviz_whisper_start(void);
}

// variadic, so that whatever upstream passes passes whole
#define ggml_backend_sched_graph_compute(...) ggmlviz_whisper_sched_compute(__VA_ARGS__)
#define ggml_backend_graph_compute(...) ggmlviz_whisper_backend_compute(__VA_ARGS__)
#define ggml_backend_sched_free(...) ggmlviz_whisper_sched_free(__VA_ARGS__)

// ---- the model: tracing starts with its load, its weights named ----

// Each weight named as whisper.cpp's model file names it
// ("encoder.blocks.3.attn.query.weight"; whisper.cpp keeps the names in a
// map and leaves GGML's tensors unnamed), so that the GGML adapter places
// every node in its layer, the encoder's or the decoder's, from the
// weights it reads (<ggmlviz/ggml.h>). Only for a trace: nothing whisper.cpp
// computes reads a name.
template <class Ctx>
inline auto ggmlviz_whisper_name_weights(Ctx & wctx, int) -> decltype(wctx.model.tensors.begin(), void()) {
    for (auto & kv : wctx.model.tensors) {
        if (kv.second && !kv.second->name[0] && kv.first.size() < sizeof(kv.second->name)) {
            ggml_set_name(kv.second, kv.first.c_str());
        }
    }
}

template <class Ctx>
inline void ggmlviz_whisper_name_weights(Ctx &, long) {
    // a whisper.cpp without the map: its weights stay unnamed, its layers untold
}

template <class Fn, class Loader, class Ctx>
inline bool ggmlviz_whisper_load(Fn fn, Loader * loader, Ctx & wctx) {
    ggmlviz_whisper_start();
    const bool ok = fn(loader, wctx);
    if (ok && ggmlviz_is_active()) {
        ggmlviz_whisper_name_weights(wctx, 0);
    }
    return ok;
}

// ---- the mel spectrogram: a scope ----

template <class Fn, class State, class... Rest>
inline bool ggmlviz_whisper_mel(Fn fn, State & wstate, const float * samples, int n_samples, Rest &&... rest) {
    const uint64_t n = n_samples > 0 ? (uint64_t) n_samples : 0;

    ggmlviz_scope_begin("mel", n);
    const bool ok = fn(wstate, samples, n_samples, std::forward<Rest>(rest)...);
    ggmlviz_scope_end("mel", n);
    return ok;
}

// ---- an encoder run: a step of phase ENCODE ----

// Its conv front end, the encoder's layers and the cross-attention's keys
// and values (three graphs); its tokens are the audio positions it encodes.
template <class Fn, class Ctx, class State, class... Rest>
inline bool ggmlviz_whisper_encode(Fn fn, Ctx & wctx, State & wstate, int mel_offset, int n_threads,
                                   Rest &&... rest) {
    if (!ggmlviz_is_active()) {
        return fn(wctx, wstate, mel_offset, n_threads, std::forward<Rest>(rest)...);
    }
    const int ctx = wstate.exp_n_audio_ctx > 0 ? wstate.exp_n_audio_ctx : wctx.model.hparams.n_audio_ctx;
    const uint32_t n = ctx > 0 ? (uint32_t) ctx : 0;

    ggmlviz_whisper_threads(&wstate, n_threads);
    ggmlviz_step_begin(&wstate, n, n, GGMLVIZ_PHASE_ENCODE, "encode");
    const bool ok = fn(wctx, wstate, mel_offset, n_threads, std::forward<Rest>(rest)...);
    ggmlviz_nodes_flush();
    ggmlviz_step_end(&wstate, n, n, GGMLVIZ_PHASE_ENCODE, ok ? 0 : -1, "encode");
    ggmlviz_whisper_threads(nullptr, 0);
    return ok;
}

// ---- a decoder call: a step, its batch's sequences ----

// Whether token i of the batch gives logits (an output).
template <class Batch>
inline bool ggmlviz_whisper_output(const Batch & b, int i) {
    return b.logits ? b.logits[i] != 0 : i == b.n_tokens - 1;
}

// The context's cells in use before the step (every sequence's tokens in its KV cache).
template <class State>
inline auto ggmlviz_whisper_cells(const State & wstate, int) -> decltype(wstate.kv_self.cells[0].pos, uint32_t()) {
    uint32_t used = 0;

    for (const auto & cell : wstate.kv_self.cells) {
        used += cell.pos >= 0;
    }
    return used;
}

template <class State>
inline uint32_t ggmlviz_whisper_cells(const State &, long) {
    return 0; // not known
}

// STEP_SEQ for each sequence of the batch (a decoder of whisper_full: a beam, or one of best_of).
template <class State, class Batch>
inline void ggmlviz_whisper_seqs(const State & wstate, const Batch & b) {
    enum { MAX_SEQS = 64 };
    struct seq { int32_t id; uint32_t n_tokens, n_outputs; int32_t first_pos; } s[MAX_SEQS];
    const uint32_t cells = ggmlviz_whisper_cells(wstate, 0);
    int n = 0;

    for (int i = 0; i < b.n_tokens; i++) {
        const int k_n = b.n_seq_id ? b.n_seq_id[i] : 1;
        for (int k = 0; k < k_n; k++) {
            const int32_t id = b.seq_id ? b.seq_id[i][k] : 0;
            int j = 0;
            while (j < n && s[j].id != id) {
                j++;
            }
            if (j == n) {
                if (n == MAX_SEQS) {
                    continue;
                }
                s[n++] = { id, 0, 0, -1 };
            }
            s[j].n_tokens++;
            s[j].n_outputs += ggmlviz_whisper_output(b, i);
            if (b.pos && (s[j].first_pos < 0 || b.pos[i] < s[j].first_pos)) {
                s[j].first_pos = b.pos[i];
            }
        }
    }
    for (int j = 0; j < n; j++) {
        ggmlviz_step_seq(&wstate, s[j].id, s[j].n_tokens, s[j].n_outputs,
                         s[j].first_pos > 0 ? (uint32_t) s[j].first_pos : 0, cells);
    }
}

// A prompt when fewer of its tokens give logits than it holds (as
// ggmlviz_llama_batch_phase()), or when it begins its sequences (position
// 0: whisper.cpp's prompt of one token, <|startoftranscript|>); generation
// otherwise (each token of whisper_full's decoders, one a decoder, batched).
template <class Fn, class Ctx, class State, class Batch, class... Rest>
inline bool ggmlviz_whisper_decode(Fn fn, Ctx & wctx, State & wstate, const Batch & batch, int n_threads,
                                   Rest &&... rest) {
    if (!ggmlviz_is_active() || batch.n_tokens <= 0) {
        return fn(wctx, wstate, batch, n_threads, std::forward<Rest>(rest)...);
    }
    const uint32_t n = (uint32_t) batch.n_tokens;
    uint32_t outputs = 0;

    for (int i = 0; i < batch.n_tokens; i++) {
        outputs += ggmlviz_whisper_output(batch, i);
    }
    const bool begins = batch.pos && batch.pos[0] == 0;
    const uint32_t phase = outputs < n || begins ? GGMLVIZ_PHASE_PROMPT : GGMLVIZ_PHASE_GENERATION;

    ggmlviz_whisper_threads(&wstate, n_threads);
    ggmlviz_step_begin(&wstate, n, outputs, phase, "decode");
    ggmlviz_whisper_seqs(wstate, batch);
    const bool ok = fn(wctx, wstate, batch, n_threads, std::forward<Rest>(rest)...);
    ggmlviz_nodes_flush();
    ggmlviz_step_end(&wstate, n, outputs, phase, ok ? 0 : -1, "decode");
    ggmlviz_whisper_threads(nullptr, 0);
    return ok;
}

#endif
#endif
