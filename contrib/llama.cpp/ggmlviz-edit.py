#!/usr/bin/env python3
"""The few edits scripts/build-llama-tools.sh makes to its copy of llama.cpp.

Tracing the tools' decodes needs none (ggmlviz.cmake forces a header into
their compilation). What needs one is named by an option:

  --cpu-shares      GGML's CPU backend measures every worker thread's share
                    of every node and its wait at the barrier
                    (contrib/llama.cpp/ggmlviz-cpu.h): three calls in
                    ggml_graph_compute_thread, and an #include (left out:
                    the CPU's ops are timed by its ticks and estimated, as
                    in any GGML)
  --server-requests llama-server tells libggmlviz of each request: its
                    arrival, the start of its prompt on a slot, its first
                    token, its end (contrib/llama.cpp/ggmlviz-server.h);
                    a call at each of those places (an arrival where a task
                    is pushed into the queue), and an #include (left out:
                    the trace has no requests)
  --vulkan-times    GGML's Vulkan backend hands each node's GPU time, from
                    its perf logger's timestamp queries, to libggmlviz
                    (contrib/llama.cpp/ggmlviz-vulkan.h) (left out: a
                    Vulkan run is timed whole, by the host)
  --sched-graph-ids GGML's scheduler tells libggmlviz each split graph's id
                    and backend before it asks an eval callback about the
                    split's nodes (contrib/llama.cpp/ggmlviz-sched.h), so
                    that a graph llama.cpp reuses is described once
                    (ggmlviz_nodes_graph_id(3)) and the callback need not
                    look each node's backend up (ggmlviz_nodes_split(3));
                    and it gives the view of a
                    split it computes for an eval callback the split's id
                    when the view is the whole split (as it is when the
                    callback asks for no node's data, as libggmlviz's never
                    does): a CUDA backend then reuses the split's CUDA graph
                    on its id, as it does untraced, instead of comparing
                    every node's properties (about 1 KiB a node) at every
                    run; and after a split's first ask, it gives
                    libggmlviz the split's other nodes at once
                    (ggmlviz_nodes_ask_rest(3)), so that a split computed
                    again is not asked about node by node through the
                    callback. Not needed, and not made, in a llama.cpp whose
                    graphs have no id; not made, and said, where the
                    scheduler's code is not where it is looked for (it
                    saves work, and nothing needs it)
  --sched-no-wait   GGML's scheduler does not wait for the device after a
                    split of which an eval callback wanted no node's data
                    (as libggmlviz's never does): it computes the split as
                    a view of it and then synchronized its backend, every
                    split, every token (on a GPU, the host waited for the
                    device and queued the next split only then). Without
                    an eval callback it never waited; now a traced run
                    queues its splits as an untraced one does. A callback
                    that wants a node's data still gets it after the wait.
                    Only what saves time: where the scheduler's code is not
                    as expected, nothing is made, said, and the build goes
                    on without it
  --rpc-commands    GGML's RPC backend records each command of its protocol
                    on both sides, and the server times the graphs it
                    computes (contrib/llama.cpp/ggmlviz-rpc.h): on the
                    client, the dispatcher's two sends wrapped and the
                    connection's HELLO; on the server, its start, each
                    client served, its reads of a command byte, its
                    request and reply messages (send_msg and recv_msg
                    wrapped where they are defined) and its two graph
                    computes; and an #include. Compiled only where GGML_RPC
                    is on (left out: neither side records a command, and a
                    server's graphs are not timed)
  --vulkan-guards   GGML's Vulkan backend on Debian 12's toolchain: glslc
                    without GL_KHR_cooperative_matrix and Vulkan headers
                    older than vk::LayerSettingEXT (VK_HEADER_VERSION 268);
                    each use guarded by the test GGML has for it. Where the
                    code was changed upstream so that the guard is not
                    needed, nothing is done.

Every edit looks for its places first, in every file, before any is
written. A feature is made whole or not at all: where one of its places is
not found exactly once (or, for a place taken at each of its
occurrences, not at all), the feature is left out, said with the file and
what was looked for and what the trace then lacks, and the build goes on
with the others. A file that cannot be read leaves its features out the
same way.

    ggmlviz-edit.py SRC [--cpu-shares] [--sched-graph-ids] [--sched-no-wait] [--server-requests]
                        [--rpc-commands] [--vulkan-times] [--vulkan-guards]

SPDX-License-Identifier: MIT
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
PROJECT = 'llama.cpp'  # what the messages call the source (contrib/whisper.cpp/ggmlviz-edit.py: whisper.cpp)


class Edit:
    """In path, the text matching `find` (a regex) replaced by `repl`: at the
    one place it matches, or at each place with every=True; optional: none is
    fine (the code no longer needs it)."""

    def __init__(self, path, find, repl, what, optional=False, every=False):
        self.path, self.find, self.repl, self.what = path, find, repl, what
        self.optional, self.every = optional, every


def read_texts(src, edits):
    """{path: its text, or None when it cannot be read} of the files edits touch."""
    texts = {}
    for e in edits:
        if e.path not in texts:
            try:
                with open(os.path.join(src, e.path)) as f:
                    texts[e.path] = f.read()
            except OSError:
                texts[e.path] = None
    return texts


def misfit(e, text):
    """Why edit e does not fit text, or None when it does."""
    if text is None:
        return 'could not read the file for %s' % e.what
    n = len(re.findall(e.find, text))
    if n == 1 or (e.every and n > 1) or (e.optional and n == 0):
        return None
    return 'found no single place for %s%s' % (e.what, ' (%d found)' % n if n else '')


def feature(src, edits, without):
    """edits, when every one of them fits its file; else none, said (without: what is then
    lacking), so that the build goes on without the feature."""
    texts = read_texts(src, edits)
    for e in edits:
        why = misfit(e, texts[e.path])
        if why:
            print('ggmlviz-edit: %s: not made (%s): %s' % (e.path, why, without))
            return []
    return edits


def vulkan_guards():
    shaders = 'ggml/src/ggml-vulkan/vulkan-shaders/vulkan-shaders-gen.cpp'
    vk = 'ggml/src/ggml-vulkan/ggml-vulkan.cpp'
    coop = '#if defined(GGML_VULKAN_COOPMAT_GLSLC_SUPPORT)\n'
    return [
        Edit(shaders,
             r'(?m)^([ \t]*string_to_spv\("fa_decode_ph1"[^\n]*\n[ \t]*string_to_spv\("fa_decode_ph2"[^\n]*\n)',
             coop + r'\1#endif\n',
             'the coopmat flash-attention decode shaders (string_to_spv("fa_decode_ph1", ...))',
             optional=True),
        Edit(vk,
             r'(?m)^([ \t]*ggml_vk_create_pipeline\(device, pipelines\.first, "xe_fa_decode_ph1"[^\n]*\n'
             r'[ \t]*ggml_vk_create_pipeline\(device, pipelines\.second, "xe_fa_decode_ph2"[^\n]*\n)',
             coop + r'\1#endif\n',
             'their pipelines (ggml_vk_create_pipeline(..., "xe_fa_decode_ph1", ...))',
             optional=True),
        Edit(vk,
             r'(?ms)^([ \t]*)(VkBool32 enable_best_practice = layer_settings;\n.*?'
             r'vk::InstanceCreateInfo instance_create_info\(([^;]*?), &layer_setting_info\);\n)',
             r'#if VK_HEADER_VERSION >= 268\n\1\2#else\n'
             r'\1(void) layer_settings; // no vk::LayerSettingEXT in these headers\n'
             r'\1vk::InstanceCreateInfo instance_create_info(\3);\n#endif\n',
             'the validation layer settings (VkBool32 enable_best_practice = layer_settings; ... '
             'vk::InstanceCreateInfo instance_create_info(..., &layer_setting_info);)',
             optional=True),
    ]


def vulkan_times(src):
    vk = 'ggml/src/ggml-vulkan/ggml-vulkan.cpp'
    header = '#include "%s" // libggmlviz: each node\'s GPU time (scripts/build-llama-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-vulkan.h'))
    return feature(src, [
        Edit(vk, r'(?m)^(#include "ggml-vulkan-common.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "ggml-vulkan-common.h"'),
        Edit(vk, r'vk_perf_logger_enabled = getenv\("GGML_VK_PERF_LOGGER"\) != nullptr;',
             'vk_perf_logger_enabled = ggmlviz_vk_wanted() || getenv("GGML_VK_PERF_LOGGER") != nullptr;',
             'where the perf logger is turned on (vk_perf_logger_enabled = getenv("GGML_VK_PERF_LOGGER") '
             '!= nullptr;)'),
        # Room for a start stamp in every command buffer besides each node's end: the pool
        # holds 2 * n_nodes + 1 queries at least, all reset and all readable (the backend's
        # own logger wrote n_nodes + 1 at most: a buffer's start stamped beyond that spilt
        # the GPU's wait for the host into the buffer's first node, tests/llama-tools-vulkan.py 9)
        Edit(vk, r'if \(ctx->num_queries < cgraph->n_nodes \+ 1\) \{',
             'if (ctx->num_queries < 2 * cgraph->n_nodes + 1) { // libggmlviz: room for the buffers\' starts',
             'where the query pool is made again for a larger graph (if (ctx->num_queries < '
             'cgraph->n_nodes + 1) {)'),
        Edit(vk, r'query_create_info\.queryCount = cgraph->n_nodes \+ 100;',
             'query_create_info.queryCount = 2 * cgraph->n_nodes + 100;',
             'where the query pool is sized (query_create_info.queryCount = cgraph->n_nodes + 100;)'),
        Edit(vk, r'resetQueryPool\(ctx->query_pool, 0, cgraph->n_nodes ?\+ ?1\)',
             'resetQueryPool(ctx->query_pool, 0, ctx->num_queries)',
             'where the queries are reset (resetQueryPool(ctx->query_pool, 0, cgraph->n_nodes+1))'),
        Edit(vk, r'std::vector<uint64_t> timestamps\(cgraph->n_nodes \+ 1\);\n'
                 r'([ \t]*VK_CHECK\(ctx->device->device\.getQueryPoolResults\(ctx->query_pool, 0, ctx->query_idx, )'
                 r'\(cgraph->n_nodes \+ 1\)\*sizeof\(uint64_t\)',
             r'std::vector<uint64_t> timestamps(ctx->num_queries);\n\1ctx->num_queries * sizeof(uint64_t)',
             'where the queries are read (std::vector<uint64_t> timestamps(cgraph->n_nodes + 1); '
             'VK_CHECK(ctx->device->device.getQueryPoolResults(ctx->query_pool, 0, ctx->query_idx, '
             '(cgraph->n_nodes + 1)*sizeof(uint64_t), ...)'),
        # Each node's timestamps in its own command buffer (ggmlviz-vulkan.h): where a buffer
        # begins, its start; the node's end before the submit that may end the buffer
        Edit(vk, r'(?m)^([ \t]*)vk_context compute_ctx = ggml_vk_get_compute_ctx\(ctx\);\n'
                 r'(?=\n[ \t]*\{\n[ \t]*// This logic detects dependencies between )',
             r'\1vk_context compute_ctx = ggml_vk_get_compute_ctx(ctx);\n'
             r'\1if (vk_perf_logger_enabled && !vk_perf_logger_concurrent) {\n'
             r'\1    ggmlviz_vk_node_begins(ctx, compute_ctx, node_idx, cgraph->n_nodes);\n\1}\n',
             'where a node\'s recording begins (vk_context compute_ctx = ggml_vk_get_compute_ctx(ctx); '
             '{ // This logic detects dependencies between ...)'),
        Edit(vk, r'(?m)^([ \t]*)(if \(submit \|\| last_node\) \{\n[ \t]*ggml_vk_ctx_end\(compute_ctx\);\n)',
             r'\1if (vk_perf_logger_enabled && !vk_perf_logger_concurrent) {\n'
             r'\1    ggmlviz_vk_node_ends(ctx, compute_ctx, node);\n\1}\n\1\2',
             'where a node\'s command buffer may be submitted (if (submit || last_node) { '
             'ggml_vk_ctx_end(compute_ctx);)'),
        Edit(vk, r'(?m)^([ \t]*)// track a single node/fusion for the current query\n'
                 r'[ \t]*ctx->query_nodes\[ctx->query_idx\] = cgraph->nodes\[i\];\n'
                 r'[ \t]*ctx->query_fusion_names\[ctx->query_idx\] = fusion_string;\n'
                 r'[ \t]*compute_ctx->s->buffer->buf\.writeTimestamp\([^\n]*\n'
                 r'[ \t]*ggml_vk_sync_buffers\(ctx, compute_ctx\);\n',
             r'\1// libggmlviz: its timestamp is written in ggml_vk_build_graph (ggmlviz_vk_node_ends)\n'
             r'\1ctx->query_fusion_names[ctx->query_idx - 1] = fusion_string;\n',
             'where a node\'s timestamp was written after its recording (// track a single '
             'node/fusion for the current query ...)'),
        Edit(vk, r'(?m)^([ \t]*)(auto node = ctx->query_nodes\[i\];\n)',
             r'\1\2\1if (!node) {\n\1    continue; // libggmlviz: where a command buffer began\n\1}\n',
             'where the perf logger logs each node (auto node = ctx->query_nodes[i];)'),
        Edit(vk, r'(?m)^([ \t]*VK_CHECK\(ctx->device->device\.getQueryPoolResults\(ctx->query_pool, [^\n]*\n)'
                 r'([ \t]*)if \(!vk_perf_logger_concurrent\) \{\n',
             r'\1\2ggmlviz_vk_times(ctx->query_nodes.data(), timestamps.data(), ctx->query_idx, '
             r'ctx->device->properties.limits.timestampPeriod, vk_perf_logger_concurrent);\n'
             r'\2if (ggmlviz_vk_quiet()) {\n\2    // libggmlviz alone asked for the queries: nothing to log\n'
             r'\2} else if (!vk_perf_logger_concurrent) {\n',
             'where a graph\'s timestamps are read (VK_CHECK(ctx->device->device.getQueryPoolResults('
             'ctx->query_pool, ...)); if (!vk_perf_logger_concurrent) {)'),
    ], 'a Vulkan run\'s ops are timed as a whole, by the host')


def cpu_shares(src):
    cpu = 'ggml/src/ggml-cpu/ggml-cpu.c'
    header = '#include "%s" // libggmlviz: each worker thread\'s shares (scripts/build-llama-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-cpu.h'))
    return feature(src, [
        Edit(cpu, r'(?m)^(#include "ggml-cpu-impl.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "ggml-cpu-impl.h"'),
        Edit(cpu, r'(?m)^([ \t]*)(const int n_fused = ggml_cpu_try_fuse_ops\(cgraph, node_n, )',
             r'\1const int ggmlviz_first = node_n;\n\1ggmlviz_cpu_share_starts(tp, state->ith, params.nth, ggmlviz_first);\n\1\2',
             'where a thread begins its share of a node (const int n_fused = '
             'ggml_cpu_try_fuse_ops(cgraph, node_n, ...)'),
        Edit(cpu, r'(?m)^([ \t]*)(if \(state->ith == 0 && cplan->abort_callback &&\n)',
             r'\1ggmlviz_cpu_share_end(tp, state->ith, ggmlviz_first);\n\n\1\2',
             'where it ends it, before the abort callback (if (state->ith == 0 && '
             'cplan->abort_callback &&)'),
        Edit(cpu, r'(?m)(compute-done[^\n]*\n#endif\n[ \t]*\n)([ \t]*)(ggml_barrier\(state->threadpool\);\n)',
             r'\1\2\3\2ggmlviz_cpu_graph_done(tp, state->ith, params.nth, '
             r'(const void *const *) cgraph->nodes, cgraph->n_nodes, ggmlviz_cpu_op_of);\n',
             'the graph\'s last barrier (GGML_PRINT_DEBUG("... compute-done ..."); #endif '
             'ggml_barrier(state->threadpool);)'),
    ], 'GGML\'s CPU ops are timed by the backend\'s ticks and estimated, as in any GGML')


def sched_graph_ids(src):
    """Each split's id told to libggmlviz, and kept on the view of a whole split
    (ggml_graph_view() gives 0); and a repeated split's asks after its first
    given to libggmlviz at once (ggmlviz_nodes_ask_rest()), where they each
    went through the eval callback. Only what saves work: where the
    scheduler's code is not as expected, nothing is made (the asks' edit
    alone may be left out), and the build goes on without it."""
    sched = 'ggml/src/ggml-backend.cpp'
    header = '#include "%s" // libggmlviz: split graphs\' ids (scripts/build-llama-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-sched.h'))
    edits = [
        Edit(sched, r'(?m)^(#include "ggml-impl.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "ggml-impl.h"'),
        Edit(sched, r'(?m)^([ \t]*)(// similar to ggml_backend_compare_graph_backend\n)',
             r"\1ggmlviz_nodes_split(split->graph.uid, split_backend); // libggmlviz: the split's id and backend, before its asks\n\1\2",
             'where a split\'s nodes are asked about (// similar to ggml_backend_compare_graph_backend)'),
        Edit(sched, r'(?m)^([ \t]*)(struct ggml_cgraph gv = ggml_graph_view\(&split->graph, j0, j1 \+ 1\);\n)',
             r'\1\2\1if (j0 == 0 && j1 + 1 == split->graph.n_nodes) {\n'
             r'\1    gv.uid = split->graph.uid; // libggmlviz: the whole split, its id kept (ggmlviz-edit.py)\n'
             r'\1}\n',
             'the scheduler\'s view of a split for an eval callback (struct ggml_cgraph gv = '
             'ggml_graph_view(&split->graph, j0, j1 + 1);)'),
    ]
    rest = Edit(sched, r'(?m)^([ \t]*)(while \(!need && j1 < split->graph\.n_nodes - 1\) \{\n)',
                r'\1if (!need) { // libggmlviz: the next asks of a split computed again, taken at once (ggmlviz-edit.py)\n'
                r'\1    const int ggmlviz_to = ggmlviz_nodes_ask_rest(sched->callback_eval_user_data,\n'
                r'\1        (const void *const *) split->graph.nodes, j1 + 1, split->graph.n_nodes);\n'
                r'\1    if (ggmlviz_to > j1 + 1) {\n'
                r'\1        j1 = ggmlviz_to - 1;\n'
                r'\1        t = split->graph.nodes[j1];\n'
                r'\1    }\n'
                r'\1}\n\1\2',
                'where the scheduler asks about a split\'s next nodes (while (!need && j1 < '
                'split->graph.n_nodes - 1) {)')
    text = read_texts(src, edits[:1])[sched] or ''
    if 'splits[i].graph.uid' not in text:  # graphs without ids: a CUDA backend compares them, traced or not
        print('ggmlviz-edit: %s: not needed (its graphs have no id): the splits\' ids' % sched)
        return []
    made = feature(src, edits, 'every run is described, as without the edit')  # all or none: the call needs the include
    return made and made + feature(src, [rest], 'a split computed again is asked about node by node, '
                                   'each ask through the eval callback')


def sched_no_wait(src):
    """No wait for the device after a split none of whose nodes an eval callback
    wanted. Only what saves time: where the scheduler's code is not as expected,
    nothing is made, and the build goes on without it."""
    sched = 'ggml/src/ggml-backend.cpp'
    edit = Edit(sched,
                r'(?m)^([ \t]*)(// TODO: pass backend to the callback, then the user can decide if they '
                r'want to synchronize\n)\1ggml_backend_synchronize\(split_backend\);\n',
                r'\1\2\1if (need) { // libggmlviz: no data wanted, no wait (ggmlviz-edit.py --sched-no-wait)\n'
                r'\1    ggml_backend_synchronize(split_backend);\n\1}\n',
                'the wait after a split computed for an eval callback (// TODO: pass backend to the '
                'callback, ... ggml_backend_synchronize(split_backend);)')
    return feature(src, [edit], 'the scheduler waits for the device after each split of a traced run, '
                   'as without the edit')


def rpc_wrap(find_args, name, body):
    """An Edit that renames GGML's function `name` (its parameters matching find_args) to
    ggmlviz_NAME_untraced and defines `name` again after it as `body` (which calls it)."""
    return (r'(?ms)^static bool %s\((%s)\) \{\n(.*?)^\}\n' % (name, find_args),
            r'static bool ggmlviz_%s_untraced(\1) {\n\2}\n\n'
            r'static bool %s(\1) { // libggmlviz: the server' "'" r's commands (ggmlviz-edit.py --rpc-commands)\n'
            r'%s}\n' % (name, name, body))


def rpc_commands(src):
    rpc = 'ggml/src/ggml-rpc/ggml-rpc.cpp'
    header = '#include "%s" // libggmlviz: the RPC commands (scripts/build-llama-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-rpc.h'))
    send = rpc_wrap(r'socket_ptr sock, const void \* msg, size_t msg_size', 'send_msg',
                    r'    return ggmlviz_rpc_server_reply(msg_size, [&] { return ggmlviz_send_msg_untraced(sock, msg, '
                    r'msg_size); });\n')
    recv = rpc_wrap(r'socket_ptr sock, void \* msg, size_t msg_size', 'recv_msg',
                    r'    bool ok = ggmlviz_recv_msg_untraced(sock, msg, msg_size);\n'
                    r'    ggmlviz_rpc_server_request(ok, msg, msg_size);\n    return ok;\n')
    recv_vec = rpc_wrap(r'socket_ptr sock, std::vector<uint8_t> & input', 'recv_msg',
                        r'    bool ok = ggmlviz_recv_msg_untraced(sock, input);\n'
                        r'    ggmlviz_rpc_server_request(ok, input.data(), input.size());\n    return ok;\n')
    return feature(src, [
        Edit(rpc, r'(?m)^(#include "transport.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "transport.h"'),
        Edit(rpc, r'(?m)^([ \t]*)(std::thread[ \t]+thread;\n)(\};\n)',
             r'\1\2\1ggmlviz_rpc_conn ggmlviz_conn; // libggmlviz: the places of its commands, its name\n\3',
             'the dispatcher\'s members (std::thread thread; };)'),
        Edit(rpc, r'if \(!negotiate_hello\(sock\)\) \{',
             'if (!ggmlviz_rpc_client_hello(ggmlviz_conn, endpoint, sizeof(rpc_msg_hello_req), '
             'sizeof(rpc_msg_hello_rsp), [&] { return negotiate_hello(sock); })) {',
             'the client\'s HELLO (if (!negotiate_hello(sock)) {)'),
        Edit(rpc, r'send_rpc_cmd\(sock, msg_ptr->cmd, msg_ptr->input\.get\(\), msg_ptr->input_size'
                  r'(?:, msg_ptr->output, msg_ptr->output_size)?\)',
             r'ggmlviz_rpc_client_send(ggmlviz_conn, msg_ptr->cmd, msg_ptr->input.get(), msg_ptr->input_size, '
             r'msg_ptr->output != nullptr, msg_ptr->output_size, [&] { return \g<0>; })',
             'the dispatcher\'s sends (send_rpc_cmd(sock, msg_ptr->cmd, msg_ptr->input.get(), ...))', every=True),
        Edit(rpc, send[0], send[1], 'the server\'s replies (static bool send_msg(socket_ptr sock, const void * '
             'msg, size_t msg_size) {...})'),
        Edit(rpc, recv[0], recv[1], 'the server\'s requests (static bool recv_msg(socket_ptr sock, void * msg, '
             'size_t msg_size) {...})'),
        Edit(rpc, recv_vec[0], recv_vec[1], 'the server\'s requests (static bool recv_msg(socket_ptr sock, '
             'std::vector<uint8_t> & input) {...})'),
        Edit(rpc, r'sock->recv_data\(&cmd, 1\)', 'ggmlviz_rpc_server_recv_cmd(sock, &cmd)',
             'the server\'s reads of a command byte (sock->recv_data(&cmd, 1))', every=True),
        Edit(rpc, r'ggml_backend_graph_compute\(backends\[device\], graph\)',
             'ggmlviz_rpc_server_compute(backends[device], graph)',
             'the server\'s graph computes (ggml_backend_graph_compute(backends[device], graph))', every=True),
        Edit(rpc, r'(?m)^(void ggml_backend_rpc_start_server\(const char \* endpoint, [^)]*\) \{\n)',
             r'\1    ggmlviz_rpc_server_start(endpoint); // libggmlviz: tracing, when GGML_VIZ_OUTPUT asks\n',
             'the server\'s start (void ggml_backend_rpc_start_server(const char * endpoint, ...) {)'),
        Edit(rpc, r'(?m)^([ \t]*)(rpc_serve_client\(backends, cache_dir, client_socket\);\n)',
             r'\1ggmlviz_rpc_server_accepted();\n\1\2\1ggmlviz_rpc_server_closed();\n',
             'each client served (rpc_serve_client(backends, cache_dir, client_socket);)'),
    ], 'neither side of GGML\'s RPC backend records its commands')


def server_requests(src):
    ctx = 'tools/server/server-context.cpp'
    queue = 'tools/server/server-queue.cpp'
    header = '#include "%s" // libggmlviz: the requests (scripts/build-llama-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-server.h'))
    return feature(src, [
        Edit(queue, r'(?m)^(#include "server-queue.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "server-queue.h"'),
        Edit(queue, r'(?m)^([ \t]*)(if \(front\) \{\n[ \t]*queue_tasks\.push_front\(std::move\(task\)\);\n)',
             r'\1ggmlviz_server_arrived(task);\n\1\2',
             'where a task is pushed into the queue (if (front) { queue_tasks.push_front(std::move(task));)',
             every=True),
        Edit(queue, r'(?m)^(void server_queue::cleanup_pending_task\(int id_target\) \{\n)',
             r'\1    ggmlviz_server_cancel_queued(id_target);\n',
             'where a cancelled task leaves the queue (void server_queue::cleanup_pending_task(int id_target) {)'),
        Edit(ctx, r'(?m)^(#include "server-task.h"\n)', r'\1' + header.replace('\\', '\\\\'),
             'its #include "server-task.h"'),
        Edit(ctx, r'(?m)^([ \t]*)(slot\.stats\.update_prompt_start\(\);\n)',
             r'\1\2\1ggmlviz_server_prompt(slot);\n',
             'where a slot starts its prompt\'s clock (slot.stats.update_prompt_start();)'),
        Edit(ctx, r'(?m)^([ \t]*if \(slot\.stats\.n_gen == 1\) \{\n)([ \t]*)(slot\.stats\.update_prompt_last\(\);\n)',
             r'\1\2\3\2ggmlviz_server_first_token(slot);\n',
             'where its first token stops that clock (if (slot.stats.n_gen == 1) { '
             'slot.stats.update_prompt_last();)'),
        Edit(ctx, r'(?m)^([ \t]*)(void send_final_response\(server_slot & slot\) \{\n)',
             r'\1\2\1    ggmlviz_server_end(slot, GGMLVIZ_REQUEST_DONE);\n',
             'where a request is answered (void send_final_response(server_slot & slot) {)'),
        Edit(ctx, r'(?m)^([ \t]*)(void send_(?:embedding|rerank)\(const server_slot & slot, [^)]*\) \{\n)',
             r'\1\2\1    ggmlviz_server_end(slot, GGMLVIZ_REQUEST_DONE);\n',
             'where embeddings and rerankings are answered (void send_embedding(const server_slot & '
             'slot, ...) {)', optional=True, every=True),
        Edit(ctx, r'(?m)^([ \t]*)(void send_error\(const int id_task, [^)]*\) \{\n)',
             r'\1\2\1    ggmlviz_server_failed(id_task);\n',
             'where an error answers a request (void send_error(const int id_task, ...) {)'),
        Edit(ctx, r'(?m)^([ \t]*if \(slot\.task && slot\.task->id == task\.id_target\) \{\n)([ \t]*)(slot\.release\(\);\n)',
             r'\1\2ggmlviz_server_end(slot, GGMLVIZ_REQUEST_CANCELLED);\n\2\3',
             'where a cancel releases the slot of its request (if (slot.task && slot.task->id == '
             'task.id_target) { slot.release();)'),
    ], 'the trace has no requests (stats --by request finds none)')


def apply(src, edits):
    texts = {}
    for e in edits:
        p = os.path.join(src, e.path)
        if p not in texts:
            try:
                with open(p) as f:
                    texts[p] = f.read()
            except OSError as err:
                sys.exit('ggmlviz-edit: %s: %s (this %s does not fit: %s)'
                         % (e.path, err.strerror, PROJECT, e.what))
    plan, skipped = [], []
    for e in edits:
        p = os.path.join(src, e.path)
        n = len(re.findall(e.find, texts[p]))
        if n == 1 or (e.every and n > 1):
            texts[p] = re.sub(e.find, e.repl, texts[p], count=0 if e.every else 1)
            plan.append(e)
        elif e.optional and n == 0:
            skipped.append(e)
        else:  # fitted alone (feature()), not after an earlier edit of the same file
            sys.exit('ggmlviz-edit: %s: %s after the edits before it: this %s does not fit; '
                     'nothing was changed' % (e.path, misfit(e, texts[p]), PROJECT))
    for p, text in texts.items():
        with open(p, 'w') as f:
            f.write(text)
    for e in plan:
        print('ggmlviz-edit: %s: %s' % (e.path, e.what))
    for e in skipped:
        print('ggmlviz-edit: %s: not needed (no longer there): %s' % (e.path, e.what))


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        sys.exit(__doc__.split('\n\n')[-2].strip())
    src, edits = sys.argv[1], []
    for opt in sys.argv[2:]:
        if opt == '--vulkan-guards':
            edits += vulkan_guards()
        elif opt == '--vulkan-times':
            edits += vulkan_times(src)
        elif opt == '--cpu-shares':
            edits += cpu_shares(src)
        elif opt == '--sched-graph-ids':
            edits += sched_graph_ids(src)
        elif opt == '--sched-no-wait':
            edits += sched_no_wait(src)
        elif opt == '--server-requests':
            edits += server_requests(src)
        elif opt == '--rpc-commands':
            edits += rpc_commands(src)
        else:
            sys.exit('ggmlviz-edit: unknown option %s' % opt)
    apply(src, edits)


if __name__ == '__main__':
    main()
