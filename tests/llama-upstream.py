#!/usr/bin/env python3
"""The llama.cpp integration on a llama.cpp changed as upstream changes it (TAP).

scripts/build-llama-tools.sh --source on a copy of the fetched release
where a call site moved and was reworded (llama-bench's decodes through a
helper of its own, its batch built in braces) and a new tool calls
llama_decode() and llama_encode(), in a folder of its own that no file of
libggmlviz names: every decode of both is a step, and the build's check
passes. The check itself fails on an object that calls llama_decode()
through a pointer, naming it. Bad input: a folder that is not llama.cpp,
one whose CPU backend the shares' edit does not fit and one whose
server's edits do not (each feature left out, said with what the trace
then lacks, the build gone on), and one the integration does not fit
(no libllama target), said in words.

    llama-upstream.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import BUILD_LIMIT_S, ok, run, skip  # noqa: E402

BUILD, TMP = (os.path.abspath(a) for a in sys.argv[1:3])
TOP = os.path.abspath(os.path.join(os.path.dirname(__file__), '..'))
G = os.path.join(BUILD, 'tools', 'ggmlviz')
SCRIPT = os.path.join(TOP, 'scripts', 'build-llama-tools.sh')
RELEASE = os.path.join(TOP, 'third_party', 'ggml', 'src')
PLAIN = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}

NEW_TOOL = r'''// A tool upstream might add: it calls llama_decode() and llama_encode() itself.
#include "llama.h"
#include <cstdio>
#include <vector>

int main(int argc, char ** argv) {
    if (argc != 2) { fprintf(stderr, "usage: llama-new-tool MODEL\n"); return 2; }
    llama_backend_init();
    llama_model * model = llama_model_load_from_file(argv[1], llama_model_default_params());
    if (!model) { return 1; }
    llama_context_params cp = llama_context_default_params();
    cp.n_ctx = 128;
    llama_context * ctx = llama_init_from_model(model, cp);
    std::vector<llama_token> toks = { 1, 2, 3, 4 };
    int rc = llama_decode(ctx, llama_batch_get_one(toks.data(), (int32_t) toks.size()));
    llama_token next = 5;
    rc |= llama_decode(ctx, { 1, &next, nullptr, nullptr, nullptr, nullptr, nullptr });
    // a batch libllama refuses before computing (a decoder-only model's encode would crash it)
    llama_batch bad = llama_batch_init(1, 0, 1);
    bad.n_tokens = 1; bad.token[0] = 1; bad.pos[0] = 0; bad.n_seq_id[0] = 1; bad.seq_id[0][0] = 9999;
    int enc = llama_encode(ctx, bad);
    llama_batch_free(bad);
    printf("new-tool: decode %d, encode %d\n", rc, enc);
    llama_free(ctx);
    llama_model_free(model);
    return 0;
}
'''

HELPER = r'''
// moved: every decode of the bench through this helper, its batch rebuilt in braces
static int32_t bench_decode_moved(llama_context * c, llama_batch b) {
    return llama_decode(c, { b.n_tokens, b.token, b.embd, b.pos, b.n_seq_id, b.seq_id, b.logits });
}
'''


def steps_of(trace):
    rc, out, err = run(G, 'dump', '-f', 'jsonl', '-t', 'step', trace)
    return [json.loads(line) for line in out.splitlines() if '"STEP_BEGIN"' in line]


if not os.path.exists(os.path.join(RELEASE, 'CMakeLists.txt')):
    skip('the integration on a changed llama.cpp', 'no fetched source (scripts/fetch-ggml.sh --source)')
    taplib.finish()

# ---- the changed copy ----
copy = os.path.join(TMP, 'llama.cpp')
shutil.copytree(RELEASE, copy, symlinks=True)
bench = os.path.join(copy, 'tools', 'llama-bench', 'llama-bench.cpp')
text = open(bench).read()
n_calls = len(re.findall(r'\bllama_decode\(', text))
text = re.sub(r'\bllama_decode\(', 'bench_decode_moved(', text)
last_include = [m.end() for m in re.finditer(r'(?m)^#include [^\n]*\n', text)][-1]
text = text[:last_include] + HELPER + text[last_include:]
open(bench, 'w').write(text)
os.makedirs(os.path.join(copy, 'tools', 'new-tool'))
open(os.path.join(copy, 'tools', 'new-tool', 'new-tool.cpp'), 'w').write(NEW_TOOL)
open(os.path.join(copy, 'tools', 'new-tool', 'CMakeLists.txt'), 'w').write(
    'add_executable(llama-new-tool new-tool.cpp)\n'
    'target_link_libraries(llama-new-tool PRIVATE llama)\n')
with open(os.path.join(copy, 'tools', 'CMakeLists.txt'), 'a') as f:
    f.write('add_subdirectory(new-tool)\n')
ok(n_calls >= 2, 'a copy of the release changed: llama-bench\'s %d decode calls moved into a '
   'helper that rebuilds the batch in braces, a new tool calling llama_decode and llama_encode'
   % n_calls)

out_dir = os.path.join(TMP, 'tools')
rc, out, err = run('sh', SCRIPT, '--source', copy, '--tools', 'llama-bench,llama-new-tool', out_dir,
                  limit_s=BUILD_LIMIT_S)
bin_dir = out.strip().splitlines()[-1] if out.strip() else ''
ok(rc == 0 and os.path.isdir(bin_dir) and 'no call of llama_decode() or llama_encode() past the '
   'tracer' in err, 'build-llama-tools.sh --source builds them, and its check finds no call '
   'past the tracer', err[-800:])
ok(not os.path.exists(os.path.join(copy, 'build')) and
   not os.path.exists(os.path.join(copy, '.ggmlviz-copy')),
   'nothing was written into the checkout')
if rc != 0:
    taplib.finish()

model = os.path.join(TMP, 'tiny.gguf')
run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '2')
trace = os.path.join(TMP, 'new-tool.ggmlviz')
rc, out, err = run(os.path.join(bin_dir, 'llama-new-tool'), model,
                   env=dict(PLAIN, GGML_VIZ_OUTPUT=trace))
steps = steps_of(trace)
labels = sorted(s['label'] for s in steps)
ok(rc == 0 and labels == ['decode', 'decode', 'encode'] and 'decode 0,' in out,
   'the new tool, traced: its two decodes and its encode are steps, none of it edited',
   '%s %s %s' % (labels, out, err[-300:]))
quiet = os.path.join(TMP, 'quiet')
os.mkdir(quiet)
rc, out, err = run(os.path.join(bin_dir, 'llama-new-tool'), model, env=PLAIN, cwd=quiet)
ok(rc == 0 and 'decode 0,' in out and os.listdir(quiet) == [], 'untraced (no '
   'GGML_VIZ_OUTPUT), it runs as the original and writes nothing', out + err[-300:])
trace = os.path.join(TMP, 'bench.ggmlviz')
rc, out, err = run(os.path.join(bin_dir, 'llama-bench'), '-m', model, '-p', '8', '-n', '3',
                   '-r', '1', '-t', '2', env=dict(PLAIN, GGML_VIZ_OUTPUT=trace))
steps = steps_of(trace)
ok(rc == 0 and len([s for s in steps if s['n_tokens'] == 8]) >= 1 and
   len([s for s in steps if s['n_tokens'] == 1]) >= 3,
   'llama-bench\'s moved decodes are steps: the 8-token prompt and each generated token',
   '%d steps; %s' % (len(steps), err[-300:]))

# ---- the check can fail ----
escape_dir = os.path.join(out_dir, 'build', 'tools', 'escape')
os.makedirs(escape_dir, exist_ok=True)
src = os.path.join(escape_dir, 'escape.cpp')
open(src, 'w').write('#include "llama.h"\n'
                     'int (*decode_ptr)(llama_context *, llama_batch) = &llama_decode;\n'
                     'int use(llama_context * c, llama_batch b) { return decode_ptr(c, b); }\n')
rc, out, err = run('c++', '-c', '-include', os.path.join(TOP, 'contrib', 'llama.cpp',
                                                         'ggmlviz-llama-tools.h'),
                   '-I', os.path.join(copy, 'include'), '-I', os.path.join(copy, 'ggml', 'include'),
                   src, '-o', os.path.join(escape_dir, 'escape.o'))
rc2, out2, err2 = run('sh', os.path.join(TOP, 'scripts', 'check-llama-tools.sh'),
                      os.path.join(out_dir, 'build'))
ok(rc == 0 and rc2 == 1 and 'tools/escape/escape.o calls llama_decode() past the tracer' in out2,
   'check-llama-tools.sh fails on an object that calls llama_decode through a pointer, naming it',
   out2[-400:] + err)
shutil.rmtree(escape_dir)

# ---- the proposal for upstream ----
rc, out, err = run('patch', '--dry-run', '-p1', '-d', RELEASE, '-i',
                   os.path.join(TOP, 'contrib', 'llama.cpp', 'llama-cpp-ggmlviz.patch'))
ok(rc == 0, 'contrib/llama.cpp/llama-cpp-ggmlviz.patch (option LLAMA_GGMLVIZ) applies to the '
   'release', out + err)

# ---- bad input ----
rc, out, err = run('sh', SCRIPT, '--source', TMP, os.path.join(TMP, 'x'))
ok(rc != 0 and 'is not a llama.cpp checkout (no include/llama.h' in err,
   'a folder that is not llama.cpp: said, nothing built', err[-300:])
odd = os.path.join(TMP, 'odd')
os.makedirs(os.path.join(odd, 'include'))
os.makedirs(os.path.join(odd, 'ggml'))
open(os.path.join(odd, 'include', 'llama.h'), 'w').write('')
open(os.path.join(odd, 'CMakeLists.txt'), 'w').write(
    'cmake_minimum_required(VERSION 3.14)\nproject("llama.cpp" C CXX)\n')
rc, out, err = run('sh', SCRIPT, '--source', odd, '--tools', 'llama-bench',
                   os.path.join(TMP, 'odd-out'))
# an edit that does not fit leaves its feature out, said with what the trace then lacks, and
# the build goes on (this one then stops at CMake: it has no libllama)
ok(rc != 0 and 'ggml/src/ggml-cpu/ggml-cpu.c: not made' in err and
   "timed by the backend's ticks and estimated" in err and 'cmake could not configure' in err,
   'a llama.cpp whose CPU backend the shares\' edit does not fit: the file said, the feature left '
   'out with what the trace lacks, the build gone on', err[-600:])
# a ggml-cpu.c with the places the shares' edit looks for, so that the next edits are tried
os.makedirs(os.path.join(odd, 'ggml', 'src', 'ggml-cpu'))
open(os.path.join(odd, 'ggml', 'src', 'ggml-cpu', 'ggml-cpu.c'), 'w').write(
    '#include "ggml-cpu-impl.h"\n'
    '        const int n_fused = ggml_cpu_try_fuse_ops(cgraph, node_n, &params, cplan);\n'
    '        if (state->ith == 0 && cplan->abort_callback &&\n'
    '    GGML_PRINT_DEBUG("thread #%d compute-done cplan %p\\n", state->ith, cplan);\n'
    '#endif\n\n    ggml_barrier(state->threadpool);\n')
rc, out, err = run('sh', SCRIPT, '--source', odd, os.path.join(TMP, 'odd-out'))
ok(rc != 0 and 'not made' in err and 'the trace has no requests' in err and
   'ggml-cpu.c: not made' not in err and 'cmake could not configure' in err,
   'a llama.cpp where llama-server\'s edits do not fit: the file and the place said, the requests '
   'left out, the CPU shares made, the build gone on', err[-600:])
rc, out, err = run('sh', SCRIPT, '--source', odd, '--tools', 'llama-bench',
                   os.path.join(TMP, 'odd-out'))
ok(rc != 0 and "ggmlviz.cmake: this project has no target 'llama'" in open(
    os.path.join(TMP, 'odd-out', 'build.log')).read() and 'cmake could not configure' in err,
   'a llama.cpp the integration does not fit (no libllama target): said, nothing built',
   err[-300:])
taplib.finish()
