#!/usr/bin/env python3
"""NVTX ranges of real programs, received by the stand-in NVTX tool (TAP).

Each program runs with NVTX_INJECTION64_PATH naming tests/libnvtx-standin.so,
as `nsys profile` names its own tool, and GGML_VIZ_NVTX=1 or 2; the
stand-in writes each range it receives, with the ranges open around it
(tests/nvtx-standin.c). Checked: every range pushed is popped, on its
thread, in the "libggmlviz" domain; at level 1 the steps, graphs and runs
only; at level 2 the ops are those of the trace itself (`ggmlviz dump`),
in the same order, run by run, named "OP label" inside the range of their
layer, which is their payload too: every op but each run's first on
GGML's CPU backend, whose ticks show where an op ends (the first ends at
the first tick), and every op in sync mode. The programs: examples/threads
(no GGML: its own ops under its graphs), examples/ggml_transformer (a GGML
scheduler) and examples/llama_trace (libllama: its steps).

Without NVTX3's headers at configure time, the stand-in is not built: the
checks are skipped, and GGML_VIZ_NVTX=1 is checked to warn and trace on.

    nvtx-real.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
STANDIN = os.path.abspath(os.path.join(BUILD, 'tests', 'libnvtx-standin.so'))
THREADS = os.path.join(BUILD, 'examples', 'threads')
TRANSFORMER = os.path.join(BUILD, 'examples', 'ggml_transformer')
LLAMA = os.path.join(BUILD, 'examples', 'llama_trace')
CATEGORY = {'step': 1, 'graph': 2, 'run': 3, 'layer': 4, 'op': 5}


class Range:
    def __init__(self, tid, depth, category, registered, payload, path):
        self.tid, self.depth, self.category = tid, depth, category
        self.registered, self.payload, self.path = registered, payload, path
        self.name = path.split(' > ')[-1]


def traced(name, argv, level, **env_vars):
    """
    Runs argv traced to TMP/name.ggmlviz (its last option takes the path)
    with the stand-in: (rc, stderr, ranges, problems).
    """
    out = os.path.join(TMP, name + '.ranges')
    # every op with its own records (GGML_VIZ_DESCRIBE_ONCE=0): the ranges are checked against them
    env = dict(os.environ, NVTX_INJECTION64_PATH=STANDIN, NVTX_STANDIN_OUT=out,
               GGML_VIZ_NVTX=str(level), GGML_VIZ_DESCRIBE_ONCE='0', **env_vars)
    rc, _, err = run(*argv, os.path.join(TMP, name + '.ggmlviz'), env=env)
    ranges, problems, depth = [], [], {}
    if not os.path.exists(out):
        return rc, err, ranges, ['the stand-in wrote nothing']
    with open(out) as f:
        for line in f:
            p = line.rstrip('\n').split('\t')
            if p[0] == '+':
                r = Range(int(p[1]), int(p[2]), int(p[4]), p[5] == 'r', p[6], p[7])
                ranges.append(r)
                depth[r.tid] = depth.get(r.tid, 0) + 1
                if p[3] != 'libggmlviz' or r.depth != depth[r.tid]:
                    problems.append(line.strip())
            elif p[0] == '-':
                depth[int(p[1])] = depth.get(int(p[1]), 0) - 1
            elif p[0] == '!':
                problems.append(line.strip())
    problems += ['thread %d ends with %d ranges open' % (t, d) for t, d in depth.items() if d]
    return rc, err, ranges, problems


def trace_records(name):
    rc, out, err = run(G, 'dump', '-f', 'jsonl', os.path.join(TMP, name + '.ggmlviz'))
    return [json.loads(line) for line in out.splitlines()] if rc == 0 else []


def trace_runs(records):
    """Each thread's runs: its ops' texts ("OP label") and layers (OP_NODE's), per run."""
    runs = {}
    for r in records:
        if r['type'] == 'SPLIT_BEGIN':
            runs.setdefault(r['tid'], []).append([])
        elif r['type'] == 'OP_COMPUTE_BEGIN' and r['tid'] in runs:
            text = r['op'] + (' ' + r['label'] if r['label'] else '')
            runs[r['tid']][-1].append([text, -1, r['tensor']])
        elif r['type'] == 'OP_NODE' and r['tid'] in runs and runs[r['tid']][-1]:
            last = runs[r['tid']][-1][-1]
            if last[2] == r['tensor']:
                last[1] = r['layer']
    return {t: [[(o[0], o[1]) for o in run_] for run_ in rs] for t, rs in runs.items()}


def range_runs(ranges):
    """Each thread's runs, from the ranges: the ops' texts and payload layers, per run."""
    runs = {}
    for r in ranges:
        if r.category == CATEGORY['run']:
            runs.setdefault(r.tid, []).append([])
        elif r.category == CATEGORY['op'] and r.tid in runs:
            layer = int(r.payload[2:]) if r.payload.startswith('i:') else -1
            runs[r.tid][-1].append((r.name, layer))
    return runs


def layers_hold_their_ops(ranges):
    """Each op of a layer is inside that layer's range, its payload the layer."""
    bad = []
    for r in ranges:
        if r.category != CATEGORY['op']:
            continue
        parts = r.path.split(' > ')
        m = re.match(r'layer (\d+)$', parts[-2]) if len(parts) > 1 else None
        want = 'i:%s' % m.group(1) if m else None
        if m and r.payload != want:
            bad.append(r.path + ' ' + r.payload)
    return bad


def check_ops(name, ranges, records, first_op_has_range):
    """The op ranges are the trace's ops, run by run (less each run's first on ticks)."""
    got, want = range_runs(ranges), trace_runs(records)
    diffs = [] if want and set(got) == set(want) else \
        ['threads with runs: %s in the ranges, %s in the trace' % (sorted(got), sorted(want))]
    for tid, runs in want.items():
        mine = got.get(tid, [])
        if len(mine) != len(runs):
            diffs.append('thread %d: %d runs of ranges, %d in the trace' % (tid, len(mine), len(runs)))
            continue
        for i, (a, b) in enumerate(zip(mine, runs)):
            b = b if first_op_has_range else b[1:]
            if a != b:
                diffs.append('thread %d run %d: ranges %s, trace %s' % (tid, i, a[:4], b[:4]))
                break
    n_ops = sum(len(x) for rs in got.values() for x in rs)
    ok(not diffs and n_ops > 0, '%s: the op ranges are the trace\'s ops, in order, each with its '
       'layer (%d ranges%s)' % (name, n_ops, '' if first_op_has_range else
                                ', every op but the first of each run'), '\n'.join(diffs[:4]))
    bad = layers_hold_their_ops(ranges)
    ok(not bad, '%s: each op inside its layer\'s range' % name, '\n'.join(bad[:4]))


if not os.path.exists(STANDIN):
    rc, out, err = run(THREADS, os.path.join(TMP, 'no-nvtx.ggmlviz'),
                       env=dict(os.environ, GGML_VIZ_NVTX='1'))
    ok(rc == 0 and 'GGML_VIZ_NVTX' in err and 'built without NVTX' in err,
       'a build without NVTX: GGML_VIZ_NVTX=1 warns, and tracing goes on', err[-400:])
    skip('NVTX ranges of real programs through the stand-in NVTX tool',
         'built without NVTX3\'s headers (configure --with-nvtx=DIR)')
    taplib.finish()

# ---- examples/threads: no GGML, its own ops under its graphs ----
rc, err, ranges, problems = traced('threads-1', [THREADS], 1)
ok(rc == 0 and not problems, 'threads, level 1: every range popped on its thread, in the '
   'libggmlviz domain', err[-400:] + '\n'.join(problems[:4]))
names = sorted({r.path for r in ranges})
ok(names == ['graph (16 nodes)'] and len(ranges) == 4 * 6,
   'threads, level 1: a range for each of its 24 graphs, and nothing inside', names[:4])
rc, err, ranges, problems = traced('threads-2', [THREADS], 2)
ok(rc == 0 and not problems, 'threads, level 2: every range popped on its thread',
   err[-400:] + '\n'.join(problems[:4]))
ops = [r for r in ranges if r.category == CATEGORY['op']]
want = {'graph (16 nodes) > layer %d > %s' % (l, op % l) for l in range(4)
        for op in ('MUL_MAT Qcur-%d', 'SOFT_MAX kq_soft_max-%d', 'MUL_MAT ffn_out-%d', 'ADD l_out-%d')}
ok(len(ops) == 4 * 6 * 16 and {r.path for r in ops} == want and not layers_hold_their_ops(ranges),
   'threads, level 2: each of its 384 ops named by its META OP_NAME and label, inside its '
   'layer\'s range', sorted({r.path for r in ops} ^ want)[:4])

# ---- examples/ggml_transformer: a GGML scheduler on the CPU backend ----
if os.path.exists(TRANSFORMER):
    argv = [TRANSFORMER, '--layers', '3', '--steps', '4', '--threads', '2', '--output']
    rc, err, ranges, problems = traced('transformer-1', argv, 1)
    ok(rc == 0 and not problems, 'ggml_transformer, level 1: every range popped',
       err[-400:] + '\n'.join(problems[:4]))
    graphs = {'graph (%d nodes)' % r['n_nodes'] for r in trace_records('transformer-1')
              if r['type'] == 'GRAPH_COMPUTE_BEGIN'}
    ok(len(graphs) == 1 and {r.path for r in ranges} == graphs | {g + ' > CPU' for g in graphs} and
       all(r.registered for r in ranges if r.category == CATEGORY['run']) and
       sum(r.category == CATEGORY['graph'] for r in ranges) == 4,
       'ggml_transformer, level 1: its graphs, and their runs named by the backend, '
       'registered', sorted({r.path for r in ranges})[:4])
    rc, err, ranges, problems = traced('transformer-2', argv, 2)
    ok(rc == 0 and not problems, 'ggml_transformer, level 2: every range popped',
       err[-400:] + '\n'.join(problems[:4]))
    check_ops('ggml_transformer', ranges, trace_records('transformer-2'), False)
    rc, err, ranges, problems = traced('transformer-sync', argv, 2, GGML_VIZ_OP_TIMING='sync')
    ok(rc == 0 and not problems, 'ggml_transformer, sync mode: every range popped',
       err[-400:] + '\n'.join(problems[:4]))
    check_ops('ggml_transformer, sync mode', ranges, trace_records('transformer-sync'), True)
else:
    skip('NVTX ranges of a GGML scheduler', 'built without GGML (scripts/fetch-ggml.sh)')

# ---- examples/llama_trace: libllama, its steps ----
if os.path.exists(LLAMA):
    model = os.path.join(TMP, 'tiny.gguf')
    rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '2')
    ok(rc == 0, 'make_tiny_llama writes a model', err)
    argv = [LLAMA, '--model', model, '--generate', '4', '--threads', '2', '--prompt',
            'a tensor graph and a step', '--output']
    rc, err, ranges, problems = traced('llama-2', argv, 2)
    ok(rc == 0 and not problems, 'llama_trace, level 2: every range popped',
       err[-400:] + '\n'.join(problems[:4]))
    records = trace_records('llama-2')
    steps = [r for r in ranges if r.category == CATEGORY['step']]
    want = ['decode %d tokens (prompt)' % r['n_tokens'] for r in records
            if r['type'] == 'STEP_BEGIN' and r['phase'] == 1] + \
           ['decode 1 token (generation)'] * 4
    ok([r.path for r in steps] == want and len(want) == 5 and
       all(r.payload == 'u:%s' % r.path.split()[1] for r in steps),
       'llama_trace: a range for each step, its tokens and phase named and its payload',
       [r.path for r in steps])
    inside = [r for r in ranges if r.category != CATEGORY['step'] and r.depth < 2]
    ok(not inside, 'llama_trace: every run and op inside its step', [r.path for r in inside][:4])
    check_ops('llama_trace', ranges, records, False)
else:
    skip('NVTX ranges of libllama', 'built without libllama')

taplib.finish()
