// whisper-server's requests told to libggmlviz: included by the copy of
// examples/server/server.cpp that scripts/build-whisper-tools.sh builds
// (contrib/whisper.cpp/ggmlviz-edit.py --server-requests puts the include
// and two lines into its handler of /inference), so that the trace holds
// each transcription: its arrival, when it got the model (the server
// serves one request at a time, behind a lock: the wait before is its
// queue), and its end, answered, cancelled (its client went away: 499) or
// failed, with the tokens of the text it answered. `ggmlviz stats --by request` then
// gives each request's wait and work; its encoder runs and decoder calls
// are the steps between.
//
// Included after whisper.h and httplib.h.
//
// SPDX-License-Identifier: MIT
#pragma once

#include <ggmlviz/tracer.h>

#include <atomic>
#include <cstdint>

// A request arrives at the handler (before the lock): its id.
inline uint64_t ggmlviz_whisper_request_arrived(void) {
    static std::atomic<uint64_t> next{1};
    const uint64_t id = next.fetch_add(1);

    ggmlviz_request_begin(id, GGMLVIZ_REQUEST_TRANSCRIPTION, 0, "transcription");
    return id;
}

// Made once the handler holds the lock (the model is the request's), and
// gone when the handler returns, before the lock is let go: its end. A
// status the handler left unset (-1) is httplib's 200.
struct ggmlviz_whisper_request {
    uint64_t id;
    const httplib::Response & res;
    whisper_context * ctx;

    ggmlviz_whisper_request(uint64_t id_, const httplib::Response & res_, whisper_context * ctx_)
        : id(id_), res(res_), ctx(ctx_) {
        ggmlviz_request_stage(id, 0, GGMLVIZ_REQUEST_PROMPT, 0, 0);
    }

    ~ggmlviz_whisper_request() {
        const bool done = res.status < 0 || (res.status >= 200 && res.status < 300);
        const uint32_t status = done ? GGMLVIZ_REQUEST_DONE
                                : res.status == 499 ? GGMLVIZ_REQUEST_CANCELLED : GGMLVIZ_REQUEST_FAILED;
        uint32_t generated = 0;

        if (done && ctx && ggmlviz_is_active()) { // its text's tokens (the answer's "tokens"), no timestamp
            for (int i = 0; i < whisper_full_n_segments(ctx); i++) {
                for (int j = 0; j < whisper_full_n_tokens(ctx, i); j++) {
                    generated += whisper_full_get_token_id(ctx, i, j) < whisper_token_eot(ctx);
                }
            }
        }
        ggmlviz_request_end(id, 0, status, 0, 0, generated, NULL);
    }

    ggmlviz_whisper_request(const ggmlviz_whisper_request &) = delete;
    ggmlviz_whisper_request & operator=(const ggmlviz_whisper_request &) = delete;
};
