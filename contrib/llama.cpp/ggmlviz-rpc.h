// GGML's RPC backend traced on both sides: included by the copy of
// ggml/src/ggml-rpc/ggml-rpc.cpp that scripts/build-llama-tools.sh builds
// (contrib/llama.cpp/ggmlviz-edit.py --rpc-commands puts the include and
// the calls below into it). Nothing of the protocol changes: what ties a
// server's command to its client's is what both already see, the
// command's place on its connection (HELLO is 0) and its request's bytes
// (a hash of the first 64 of its payload), so that `ggmlviz merge` finds
// which client's connection a server's is, and how far apart their
// clocks are.
//
// The client (llama.cpp's tools with --rpc): each connection's dispatcher
// thread records every command it sends, from just before its request
// goes out to the arrival of its reply (or, for a command without one,
// the request sent), with its bytes each way; a command whose connection
// fails ends as failed before GGML aborts, and the crash handler saves it.
//
// The server (ggml-rpc-server): tracing starts where the server starts
// when GGML_VIZ_OUTPUT is set (GGML_VIZ_OUTPUT=server-%p.ggmlviz gives a
// restarted server a file of its own), and SIGINT and SIGTERM end the
// trace whole before they end the server as they would have. Each command
// it serves is recorded from its command byte's arrival to its reply sent
// (or its work done), with the two stages between which it works (its
// request read whole, its reply begun); a command cut by the connection
// ends as failed. The graphs it computes are runs of nodes for the node
// engine (<ggmlviz/nodes.h>): on GGML's CPU backend, every op measured by
// the CPU backend's own edit (ggmlviz-cpu.h), named and in its layer as
// on any CPU; a graph computed again (GRAPH_RECOMPUTE) is described once.
//
// Traced, neither side dies of SIGPIPE when its peer drops the connection:
// the send fails instead, and is recorded (ggmlviz_rpc_no_sigpipe()).
//
// Untraced, each hook costs a call of ggmlviz_is_active() per command.
//
// SPDX-License-Identifier: MIT
#pragma once

#include <ggmlviz/ggml.h>
#include <ggmlviz/nodes.h>
#include <ggmlviz/tracer.h>

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>

// The tools' implementation of the GGML adapter describes the server's
// nodes (ggmlviz-llama-tools.cpp); ggmlviz.cmake makes ggml-rpc-server
// link it. A program without it computes its graphs untimed.
#pragma weak ggmlviz_ggml_describe

// GGML's commands this file names (enum rpc_cmd of ggml-rpc.cpp).
enum { GGMLVIZ_RPC_HELLO = 14, GGMLVIZ_RPC_GRAPH_COMPUTE = 10, GGMLVIZ_RPC_GRAPH_RECOMPUTE = 16 };

// FNV-1a over the first 64 bytes of a request's payload: what both sides hash alike (ggmlviz(5)).
inline uint32_t ggmlviz_rpc_hash(const void * data, size_t size) {
    const unsigned char * p = static_cast<const unsigned char *>(data);
    uint32_t h = 2166136261u;

    for (size_t i = 0; p && i < size && i < 64; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h ? h : 1; // 0 says "not known"
}

// A connection's id: a count in its 16 low bits over a base of the process's (its pid and start
// time, mixed), so that two processes' connections in a merged trace are not taken for one.
inline uint64_t ggmlviz_rpc_new_conn() {
    static std::atomic<uint64_t> count{ 0 };
    static const uint64_t base = [] {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = ((uint64_t) getpid() << 32) ^ (uint64_t) ts.tv_sec * 1000000007u ^ (uint64_t) ts.tv_nsec;
        x ^= x >> 33, x *= 0xff51afd7ed558ccdull, x ^= x >> 33; // a mix: every bit of the input moves many
        return x & ~0xffffull;
    }();
    return base | ((count.fetch_add(1, std::memory_order_relaxed) + 1) & 0xffff);
}

// ---- the client: one per connection, a member of GGML's dispatcher ----

struct ggmlviz_rpc_conn {
    uint64_t    id    = 0;
    uint32_t    next  = 0; // the next command's place
    uint64_t    named = 0, thread_named = 0; // the sessions the connection and its thread were named in
    std::string endpoint;
};

// The connection's name, and its dispatcher thread's (every command but HELLO, which the thread
// that connects sends), once per session.
inline void ggmlviz_rpc_client_name(ggmlviz_rpc_conn & c, int cmd) {
    uint64_t session = ggmlviz_session();
    if (c.named != session) {
        c.named = session;
        ggmlviz_meta_once(GGMLVIZ_META_RPC_CONNECTION, c.id, c.endpoint.c_str());
    }
    if (c.thread_named != session && cmd != GGMLVIZ_RPC_HELLO) {
        c.thread_named = session;
        ggmlviz_thread_name(("rpc " + c.endpoint).c_str());
    }
}

// SIGPIPE blocked on the calling thread, once: a send on a connection the peer dropped then
// fails (EPIPE) instead of killing the process, so that the command is recorded failed (a
// traced client then ends by GGML's abort, whose crash handler saves the trace; a traced
// server goes on to its next client).
inline void ggmlviz_rpc_no_sigpipe() {
    static thread_local bool done = false;
    sigset_t                 set;

    if (done) {
        return;
    }
    done = true;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

// One command sent by send(): recorded when tracing, counted always (both sides count from 0).
template <class Send>
inline bool ggmlviz_rpc_client_send(ggmlviz_rpc_conn & c, int cmd, const void * input, size_t input_size,
                                    bool has_reply, size_t output_size, Send send) {
    struct ggmlviz_rpc_command k = {};

    k.seq = c.next++;
    if (!ggmlviz_is_active()) {
        return send();
    }
    ggmlviz_rpc_client_name(c, cmd);
    ggmlviz_rpc_no_sigpipe();
    k.conn          = c.id;
    k.cmd           = (uint8_t) cmd;
    k.side          = GGMLVIZ_RPC_CLIENT;
    k.request_bytes = 1 + 8 + input_size;
    k.request_hash  = cmd == GGMLVIZ_RPC_HELLO ? 0 : ggmlviz_rpc_hash(input, input_size);
    ggmlviz_rpc_begin(&k);
    bool ok       = send();
    k.status      = ok ? GGMLVIZ_RPC_OK : GGMLVIZ_RPC_FAILED;
    k.reply_bytes = has_reply ? 8 + output_size : 0;
    ggmlviz_rpc_end(&k);
    return ok;
}

// The connection's first command, HELLO (negotiated by hello()): its id is made here.
template <class Hello>
inline bool ggmlviz_rpc_client_hello(ggmlviz_rpc_conn & c, const std::string & endpoint, size_t request_size,
                                     size_t reply_size, Hello hello) {
    c.id       = ggmlviz_rpc_new_conn();
    c.next     = 0;
    c.named    = c.thread_named = 0;
    c.endpoint = endpoint;
    return ggmlviz_rpc_client_send(c, GGMLVIZ_RPC_HELLO, nullptr, request_size, true, reply_size, hello);
}

// ---- the server: one connection served at a time, on its main thread ----

struct ggmlviz_rpc_server_state {
    std::string                endpoint;
    struct ggmlviz_rpc_command k = {};  // the command open, if open
    bool                       open = false;
    uint32_t                   next = 0;
    const void *               graph = nullptr; // the graph computed last, and its id for the node engine
    uint64_t                   graph_id = 0, graph_ids = 0;
};

inline ggmlviz_rpc_server_state & ggmlviz_rpc_server() {
    static ggmlviz_rpc_server_state s;
    return s;
}

// SIGINT and SIGTERM, blocked in every thread but this one, end the trace whole, then the server.
inline void * ggmlviz_rpc_server_signals(void * arg) {
    sigset_t * set = static_cast<sigset_t *>(arg);
    int        sig = 0;

    if (sigwait(set, &sig) != 0) {
        return nullptr;
    }
    ggmlviz_stop();
    signal(sig, SIG_DFL);
    pthread_sigmask(SIG_UNBLOCK, set, nullptr);
    raise(sig); // as the signal would have ended it
    return nullptr;
}

inline void ggmlviz_rpc_server_catch_signals() {
    static sigset_t set;
    pthread_t       t;

    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    if (pthread_sigmask(SIG_BLOCK, &set, nullptr) != 0) {
        return;
    }
    if (pthread_create(&t, nullptr, ggmlviz_rpc_server_signals, &set) != 0) {
        pthread_sigmask(SIG_UNBLOCK, &set, nullptr); // as without tracing
        return;
    }
    pthread_detach(t);
}

// The server starts (ggml_backend_rpc_start_server): tracing too, when GGML_VIZ_OUTPUT asks.
inline void ggmlviz_rpc_server_start(const char * endpoint) {
    const char * out = getenv("GGML_VIZ_OUTPUT");
    struct ggmlviz_config cfg;

    ggmlviz_rpc_server().endpoint = std::string("serving ") + (endpoint ? endpoint : "?");
    if (!out || !*out || ggmlviz_is_active()) {
        return;
    }
    ggmlviz_config_init(&cfg);
    (void) ggmlviz_config_from_env(&cfg); // every GGML_VIZ_* read; a bad one was warned of, kept
    int rc = ggmlviz_start(&cfg);
    if (rc < 0) {
        fprintf(stderr, "ggmlviz: not tracing to %s: %s\n", out, ggmlviz_strerror(rc));
        return;
    }
    ggmlviz_rpc_server_catch_signals();
}

// A client connected: its commands count from 0 again.
inline void ggmlviz_rpc_server_accepted() {
    auto & s = ggmlviz_rpc_server();
    s.k      = {};
    s.k.conn = ggmlviz_rpc_new_conn();
    s.k.side = GGMLVIZ_RPC_SERVER;
    s.open   = false;
    s.next   = 0;
    if (ggmlviz_is_active()) {
        ggmlviz_meta_once(GGMLVIZ_META_RPC_CONNECTION, s.k.conn, s.endpoint.c_str());
        ggmlviz_rpc_no_sigpipe();
    }
}

// The open command ends (status: enum ggmlviz_rpc_status).
inline void ggmlviz_rpc_server_end(uint8_t status) {
    auto & s = ggmlviz_rpc_server();
    if (!s.open) {
        return;
    }
    s.open     = false;
    s.k.status = status;
    ggmlviz_rpc_end(&s.k);
}

// The server reads the next command byte: the command before is done.
template <class Socket>
inline bool ggmlviz_rpc_server_recv_cmd(Socket & sock, uint8_t * cmd) {
    auto & s = ggmlviz_rpc_server();

    ggmlviz_rpc_server_end(GGMLVIZ_RPC_OK);
    if (!sock->recv_data(cmd, 1)) {
        return false; // the connection ended between commands
    }
    s.k.seq           = s.next++;
    s.k.cmd           = *cmd;
    s.k.request_bytes = s.k.reply_bytes = 0;
    s.k.request_hash  = 0;
    s.open            = ggmlviz_is_active();
    if (s.open) {
        ggmlviz_rpc_begin(&s.k);
    }
    return true;
}

// A request's payload was read (ok) into data: the server's work begins.
inline void ggmlviz_rpc_server_request(bool ok, const void * data, size_t size) {
    auto & s = ggmlviz_rpc_server();
    if (!ok || !s.open) {
        return; // a request cut short: the command fails when the connection ends
    }
    s.k.request_bytes = 1 + 8 + size;
    s.k.request_hash  = ggmlviz_rpc_hash(data, size);
    ggmlviz_rpc_stage(&s.k, GGMLVIZ_RPC_REQUEST_IN);
}

// The reply of size bytes, sent by send(): the work is done before it, the command after it.
template <class Send>
inline bool ggmlviz_rpc_server_reply(size_t size, Send send) {
    auto & s = ggmlviz_rpc_server();
    if (!s.open) {
        return send();
    }
    s.k.reply_bytes = 8 + size;
    ggmlviz_rpc_stage(&s.k, GGMLVIZ_RPC_REPLY);
    bool ok = send();
    ggmlviz_rpc_server_end(ok ? GGMLVIZ_RPC_OK : GGMLVIZ_RPC_FAILED);
    return ok;
}

// The connection ended: a command still open was cut (or refused by the server).
inline void ggmlviz_rpc_server_closed() {
    ggmlviz_rpc_server_end(GGMLVIZ_RPC_FAILED);
}

// A graph the server computes: a run of its backend's nodes for the node engine, its ops
// measured by the CPU backend (or by what times the backend's nodes); GRAPH_RECOMPUTE's
// graph is the one computed last, described once.
inline enum ggml_status ggmlviz_rpc_server_compute(ggml_backend_t backend, struct ggml_cgraph * graph) {
    auto & s = ggmlviz_rpc_server();
    if (!ggmlviz_ggml_describe || ggmlviz_ops_timing() != GGMLVIZ_OP_TIMING_AUTO) {
        return ggml_backend_graph_compute(backend, graph); // sync mode has no place here: no callback
    }
    if (s.k.cmd != GGMLVIZ_RPC_GRAPH_RECOMPUTE || s.graph != graph) {
        s.graph    = graph;
        s.graph_id = ++s.graph_ids;
    }
    ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t) (uintptr_t) backend, ggml_backend_name(backend));
    ggmlviz_nodes_graph_id(s.graph_id);
    const int n = ggml_graph_n_nodes(graph);
    for (int i = 0; i < n; i++) {
        const struct ggml_tensor * node = ggml_graph_node(graph, i);
        if (!ggmlviz_nodes_ask_again(node, nullptr)) {
            ggmlviz_nodes_ask(node, backend, ggmlviz_ggml_describe, nullptr);
        }
        if (i == 0) { // a graph computed again (GRAPH_RECOMPUTE): the rest taken at once, a few stores
            const int to = ggmlviz_nodes_ask_rest(nullptr, (const void * const *) graph->nodes, 1, n);
            i = to > 1 ? to - 1 : i;
        }
    }
    enum ggml_status status = ggml_backend_graph_compute(backend, graph);
    ggmlviz_nodes_flush();
    return status;
}
