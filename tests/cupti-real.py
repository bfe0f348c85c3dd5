#!/usr/bin/env python3
"""Real GGML and real libllama traced through the stand-in libcupti (TAP).

The CUPTI client's whole path on real programs, without a GPU: the
programs run on GGML's CPU backend, and GGML_VIZ_GPU_KERNELS=start loads
tests/libcupti-standin.so (GGML_VIZ_CUPTI) at the start, so that every run
of nodes pushes its id and pops it as a CUDA run's would; the stand-in
launches a GPU's work at each pop (CUPTI_STANDIN_PER_RUN kernels, one run
in three as a CUDA graph, a copy and a set), on the program's own threads,
and logs each record it delivers. Each KERNEL record of the trace is then
checked against that log: the same launches, durations to the
nanosecond, each tied to the run that launched it (the run's id of a
SPLIT_BEGIN of the trace), none at the clock's origin; and the program's
own records as without the GPU's.

    cupti-real.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
STANDIN = os.path.abspath(os.path.join(BUILD, 'tests', 'libcupti-standin.so'))
EPOCH_2001 = 978307200000000000


def read_log(path):
    """The stand-in's complete GPU records: (correlation, external id, start, end, what)."""
    recs, dropped = [], 0
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == 'D':
                dropped += int(p[1])
            elif p[6] == '1':
                recs.append((int(p[1]), int(p[2]), int(p[3]), int(p[4]), p[0]))
    return recs, dropped


def check(name, argv, per_run):
    trace = os.path.join(TMP, name + '.ggmlviz')
    log = os.path.join(TMP, name + '.log')
    env = dict(os.environ, GGML_VIZ_CUPTI=STANDIN, GGML_VIZ_GPU_KERNELS='start',
               CUPTI_STANDIN_PER_RUN=str(per_run), CUPTI_STANDIN_LOG=log)
    rc, out, err = run(*argv, '--output', trace, env=env)
    ok(rc == 0 and os.path.exists(trace), '%s runs traced through the stand-in libcupti' % name,
       err[-600:])
    if rc != 0:
        return
    rc, out, err = run(G, 'dump', '-f', 'jsonl', trace)
    records = [json.loads(line) for line in out.splitlines()]
    kernels = sorted(((r['correlation'], r['ts'], r['duration_ns'], r['run_id'])
                      for r in records if r['type'] == 'KERNEL'))
    runs = {r['run_id'] for r in records if r['type'] == 'SPLIT_BEGIN'}
    logged, dropped = read_log(log)
    logged.sort(key=lambda x: (x[0], x[2]))
    gpu_notes = [r for r in records if r['type'] == 'META' and r['kind'] == 'GPU']
    ok(len(kernels) == len(logged) and dropped == 0 and len(kernels) >= per_run * len(runs),
       '%s: every GPU record the stand-in delivered is in the trace (%d, for %d runs)'
       % (name, len(logged), len(runs)), 'trace %d, log %d, dropped %d'
       % (len(kernels), len(logged), dropped))
    pairs = list(zip(kernels, logged))
    off = [k for k, l in pairs if k[2] != l[3] - l[2]]
    ok(not off, '%s: each kernel, copy and set lasts in the trace what it lasted on the GPU, '
       'to the ns' % name, off[:3])
    untied = [k for k, l in pairs if k[3] != l[1] or k[3] not in runs]
    ok(not untied, '%s: each tied to the run that launched it, a run of the trace' % name,
       untied[:3])
    far = [k for k, l in pairs if k[1] < EPOCH_2001 or abs(k[1] - l[2]) > 1000000]
    ok(not far, '%s: each starts where the GPU started it (within 1 ms on the realtime clock), '
       'none at the clock\'s origin' % name, far[:3])
    last = gpu_notes[-1]['label'] if gpu_notes else ''
    ok(gpu_notes and gpu_notes[-1]['key'] == len(kernels) and
       '%d KERNEL records' % len(kernels) in last and '0 without their run' in last,
       '%s: the last META GPU says what was recorded' % name, last)
    return records


if not os.path.exists(STANDIN):
    skip('real GGML and libllama through the stand-in libcupti',
         'built without CUPTI\'s headers (configure --with-cupti)')
    taplib.finish()

transformer = os.path.join(BUILD, 'examples', 'ggml_transformer')
if os.path.exists(transformer):
    check('ggml_transformer', [transformer, '--layers', '2', '--steps', '6'], 3)
else:
    skip('GGML through the stand-in libcupti', 'built without GGML')

llama = os.path.join(BUILD, 'examples', 'llama_trace')
if os.path.exists(llama):
    model = os.path.join(TMP, 'tiny.gguf')
    rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model,
                       '--layers', '2')
    ok(rc == 0, 'make_tiny_llama writes a model', err)
    records = check('llama_trace', [llama, '--model', model, '--generate', '8',
                                    '--threads', '2'], 4)
    if records:
        steps = sum(1 for r in records if r['type'] == 'STEP_END')
        ticked = sum(1 for r in records if r['type'] == 'OP_NODE' and r['method'] == 2)
        ok(steps == 9 and ticked > 0, 'llama_trace: its 9 steps and its CPU ops timed by '
           'ticks, as without a GPU\'s records', 'steps %d, ticked ops %d' % (steps, ticked))
else:
    skip('libllama through the stand-in libcupti', 'built without libllama')

taplib.finish()
