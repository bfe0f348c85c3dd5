// whisper.cpp's nodes named for a trace: included by ggmlviz-whisper.cpp
// after the GGML adapter's implementation, whose layer pass it uses
// (<ggmlviz/ggml-layers.h>).
//
// whisper.cpp names none of its graphs' nodes: GGML calls them "node_12",
// and the trace could tell neither what a node does nor where. Before a
// graph is computed, each node GGML named is named after the weight that
// places it (the nearest weight along the graph, as the adapter finds a
// node's layer: whisper.cpp's weights are named for the trace), in
// whisper.cpp's own words, with its stack and layer:
//   - a node that reads the weight: the weight's role, "enc.attn.query-3"
//     (encoder.blocks.3.attn.query.weight), "dec.mlp.0-1", "enc.conv1";
//   - one that reads none: its block, "enc.attn-3" (the attention itself,
//     the cache's writes, the residual), "dec.cross_attn-0", "dec.mlp-2",
//     "dec.ln" (the output norm);
// so that `ggmlviz stats` places it by layer (enc.3, dec.3), by part (the
// conv front end, each stack's self-attention, the cross-attention, the
// FFN, the output) and by name. Only a trace sees the names: nothing
// whisper.cpp computes reads a node's name, and a node it named itself
// ("mel", "embd", "KQ_mask") is left as it is.
//
// SPDX-License-Identifier: MIT
#pragma once

#include <cstdio>
#include <cstring>

// The stack of a weight's name ("enc" for "encoder.", "dec" for "decoder."), its rest in *rest.
static const char * ggmlviz_whisper_stack(const char * w, const char ** rest) {
    if (!strncmp(w, "encoder.", 8)) {
        *rest = w + 8;
        return "enc";
    }
    if (!strncmp(w, "decoder.", 8)) {
        *rest = w + 8;
        return "dec";
    }
    return nullptr;
}

// What a weight's name says a node does: its role ("attn.query", "mlp.0", "conv1"), or,
// for a node that does not read it (!direct), the role's block ("attn", "mlp"), a norm's
// with the block it normalizes for ("attn_ln" is "attn"'s).
static size_t ggmlviz_whisper_role(const char * rest, bool direct, char * out, size_t cap) {
    const char * end = rest + strlen(rest);
    size_t n;

    if (!strncmp(rest, "blocks.", 7)) {
        const char * dot = strchr(rest + 7, '.');
        rest = dot ? dot + 1 : end;
    }
    if (end - rest > 7 && !strcmp(end - 7, ".weight")) {
        end -= 7;
    } else if (end - rest > 5 && !strcmp(end - 5, ".bias")) {
        end -= 5;
    }
    if (!direct) {
        const char * dot = (const char *) memchr(rest, '.', (size_t) (end - rest));
        end = dot ? dot : end;
        if (end - rest > 3 && !strncmp(end - 3, "_ln", 3)) {
            end -= 3;
        }
    }
    n = (size_t) (end - rest);
    if (n == 0 || n >= cap) {
        return 0;
    }
    memcpy(out, rest, n);
    out[n] = '\0';
    return n;
}

// Node t's name from what placed it, into out; false to leave it as it is.
static bool ggmlviz_whisper_node_name(const struct ggml_tensor * t, const struct ggmlviz_ggml__said & s,
                                      bool direct, char * out, size_t cap) {
    const char * rest = nullptr;
    const char * stack = s.by ? ggmlviz_whisper_stack(s.by->name, &rest) : nullptr;
    char role[48];
    int n;

    (void) t;
    if (!stack || !ggmlviz_whisper_role(rest, direct, role, sizeof role)) {
        return false;
    }
    n = s.layer >= 0 ? snprintf(out, cap, "%s.%s-%d", stack, role, (int) s.layer)
                     : snprintf(out, cap, "%s.%s", stack, role);
    return n > 0 && (size_t) n < cap;
}

// Whether node t reads tensor w itself (through views).
static bool ggmlviz_whisper_reads(const struct ggml_tensor * t, const struct ggml_tensor * w) {
    for (int j = 0; j < GGML_MAX_SRC && t->src[j]; j++) {
        if (ggmlviz_ggml__seen_through(t->src[j]) == w) {
            return true;
        }
    }
    return false;
}

// Each node of g that GGML named, named after the weight that places it.
static void ggmlviz_whisper_name_nodes(struct ggml_cgraph * g) {
    const int n = ggml_graph_n_nodes(g);
    const size_t count = n > 0 ? (size_t) n : 0;
    const void ** at = count ? ggmlviz_ggml__lay_room(count) : nullptr; // the tracer's pages

    if (!at) {
        return;
    }
    for (size_t i = 0; i < count; i++) {
        at[i] = ggml_graph_node(g, (int) i);
    }
    const void * const * nodes = at;
    if (!ggmlviz_ggml__lay_run(nodes, count)) {
        return;
    }
    for (size_t i = 0; i < count; i++) {
        struct ggml_tensor * t = (struct ggml_tensor *) nodes[i];
        struct ggmlviz_ggml__said s;
        char name[GGML_MAX_NAME];

        if (!ggmlviz_ggml__unnamed(t) || ggmlviz_ggml__is_view(t) ||
            !ggmlviz_ggml__lay_of(nodes, count, i, &s) ||
            !ggmlviz_whisper_node_name(t, s, s.by && ggmlviz_whisper_reads(t, s.by), name, sizeof name)) {
            continue;
        }
        ggml_set_name(t, name);
    }
    ggmlviz_ggml__lay_forget(); // the names now say it: the adapter reads them
}
