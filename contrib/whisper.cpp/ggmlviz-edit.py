#!/usr/bin/env python3
"""The edits scripts/build-whisper-tools.sh makes to its copy of whisper.cpp.

Tracing whisper.cpp's graphs needs none (ggmlviz.cmake forces
ggmlviz-whisper.h into src/whisper.cpp's compilation). What needs one is
named by an option:

  --whisper-stages  whisper.cpp's stages, each call wrapped where it is
                    made in src/whisper.cpp (ggmlviz-whisper.h): every
                    call of whisper_encode_internal() an encoder run, a
                    step of phase ENCODE; of whisper_decode_internal() a
                    decoder call, a step with its batch's sequences; of
                    log_mel_spectrogram() the mel spectrogram, a scope; of
                    whisper_model_load() the start of tracing, and the
                    weights named for it
  --server-requests whisper-server tells libggmlviz of each request to
                    /inference: its arrival, when it gets the model, its
                    end (contrib/whisper.cpp/ggmlviz-server.h); an #include
                    and two lines in the handler
  --cpu-shares, --sched-graph-ids, --sched-no-wait, --vulkan-guards,
  --vulkan-times
                    the edits of whisper.cpp's own GGML that llama.cpp's
                    get (contrib/llama.cpp/ggmlviz-edit.py: each worker
                    thread's share of every node, the split graphs' ids,
                    no wait for the device after a split, Vulkan's node
                    times and Debian 12's toolchain)

Every edit looks for its place first, in every file, before any is
written. Where one of whisper's own (--whisper-stages, --server-requests)
is not found, it says which file and what it looked for, and exits 1 with
the copy untouched: without them there is no step or no request to trace.
GGML's edits are made whole or left out, as for llama.cpp: a feature left
out is said with what the trace then lacks, and the others are made.

    ggmlviz-edit.py SRC [--whisper-stages] [--server-requests] [--cpu-shares]
                        [--sched-graph-ids] [--sched-no-wait] [--vulkan-guards]
                        [--vulkan-times]

SPDX-License-Identifier: MIT
"""
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def llama_edits():
    """contrib/llama.cpp/ggmlviz-edit.py, whose Edit, apply() and GGML edits these share."""
    path = os.path.join(HERE, '..', 'llama.cpp', 'ggmlviz-edit.py')
    spec = importlib.util.spec_from_file_location('ggmlviz_llama_edit', path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.PROJECT = 'whisper.cpp'
    return module


L = llama_edits()


def wrapped_calls(path, function, wrapper, what):
    """Every call of function in path (not its definition, "bool function(") made a
    call of wrapper with the function first."""
    return L.Edit(path, r'(?<![\w.>])(?<!bool )%s\(' % function, r'%s(%s, ' % (wrapper, function),
                  'the calls of %s() (%s)' % (function, what), every=True)


def whisper_stages():
    src = 'src/whisper.cpp'
    return [
        wrapped_calls(src, 'whisper_model_load', 'ggmlviz_whisper_load', 'the model load: tracing starts'),
        wrapped_calls(src, 'log_mel_spectrogram', 'ggmlviz_whisper_mel', 'the mel spectrogram: a scope'),
        wrapped_calls(src, 'whisper_encode_internal', 'ggmlviz_whisper_encode', 'an encoder run: a step'),
        wrapped_calls(src, 'whisper_decode_internal', 'ggmlviz_whisper_decode', 'a decoder call: a step'),
    ]


def server_requests():
    server = 'examples/server/server.cpp'
    header = '#include "%s" // libggmlviz: the requests (scripts/build-whisper-tools.sh)\n' % (
        os.path.join(HERE, 'ggmlviz-server.h'))
    return [
        L.Edit(server, r'(?m)^(#include "httplib\.h"\n)', r'\1' + header.replace('\\', '\\\\'),
               'its #include "httplib.h"'),
        L.Edit(server,
               r'(?m)^([ \t]*)(svr->Post\(sparams\.request_path \+ sparams\.inference_path, '
               r'\[&\]\(const Request &req, Response &res\)\{\n'
               r'(?:[ \t]*//[^\n]*\n)*)'
               r'([ \t]*)(std::lock_guard<std::mutex> lock\(whisper_mutex\);\n)',
               r'\1\2\3const uint64_t ggmlviz_id = ggmlviz_whisper_request_arrived(); // libggmlviz\n'
               r'\3\4'
               r'\3ggmlviz_whisper_request ggmlviz_request(ggmlviz_id, res, ctx); // its end at the return\n',
               'the handler of /inference and its lock (svr->Post(sparams.request_path + '
               'sparams.inference_path, [&](const Request &req, Response &res){ ... '
               'std::lock_guard<std::mutex> lock(whisper_mutex);)'),
    ]


def required(src, edits):
    """edits, each of which must fit: without whisper's stages a trace has no step, and
    whisper-server's handler without its request is no server traced; a misfit stops
    everything before any file is written, named with what was looked for."""
    texts = L.read_texts(src, edits)
    for e in edits:
        why = L.misfit(e, texts[e.path])
        if why:
            sys.exit('ggmlviz-edit: %s: %s: this whisper.cpp does not fit; nothing was changed'
                     % (e.path, why))
    return edits


def main():
    if len(sys.argv) < 2 or sys.argv[1].startswith('-'):
        sys.exit(__doc__.split('\n\n')[-2].strip())
    src, edits = sys.argv[1], []
    for opt in sys.argv[2:]:
        if opt == '--whisper-stages':
            edits += required(src, whisper_stages())
        elif opt == '--server-requests':
            edits += required(src, server_requests())
        elif opt == '--cpu-shares':
            edits += L.cpu_shares(src)
        elif opt == '--sched-graph-ids':
            edits += L.sched_graph_ids(src)
        elif opt == '--sched-no-wait':
            edits += L.sched_no_wait(src)
        elif opt == '--vulkan-guards':
            edits += L.vulkan_guards()
        elif opt == '--vulkan-times':
            edits += L.vulkan_times(src)
        else:
            sys.exit('ggmlviz-edit: unknown option %s' % opt)
    L.apply(src, edits)


if __name__ == '__main__':
    main()
