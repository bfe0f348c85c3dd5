#!/usr/bin/env python3
"""export --format otlp (TAP) where the reader hands ops over late and where
a trace holds several processes, without llama.cpp:

- a CUDA trace of tests/gen-gpu (every kernel, and kernels in sampled
  windows): the reader hands a GPU run's ops over after its step ended;
  each step's span holds its ops all the same, as stats --by step sums
  them, MUL_MAT in every step of a GPU run, nothing said lost;
- two servers (tests/gen-server) merged: every span's parent a span of its
  trace, no (traceId, spanId) twice, each request and step under its own
  process's resource and ids, as many requests per process as stats gives
  each server;
- every line an ExportTraceServiceRequest of opentelemetry-proto
  (tests/otlp-check.js), where the definitions were fetched.

    tool-otlp.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import collections
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import otlplib  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')


def export(trace):
    """(exit status, spans, stderr) of export --format otlp."""
    out = trace + '.otlp.jsonl'
    rc, _, err = run(G, 'export', '-f', 'otlp', trace, '-o', out)
    return rc, (otlplib.spans(out) if rc == 0 else []), err, out


def repeats(spans):
    c = collections.Counter((s['traceId'], s['spanId']) for s in spans)
    return [k for k, n in c.items() if n > 1]


def proto_check(out, what):
    passed, said = otlplib.check(out)
    if passed is None:
        skip('%s: every line an ExportTraceServiceRequest of opentelemetry-proto' % what, said)
    else:
        ok(passed, '%s: every line an ExportTraceServiceRequest of opentelemetry-proto' % what, said)


# ---- GPU ops, handed over after their step ended ----
for what, extra in (('every kernel', []), ('kernels in sampled windows', ['--sample', '2/8'])):
    trace = os.path.join(TMP, 'gpu%s.ggmlviz' % ('-windows' if extra else ''))
    rc, _, err = run(os.path.join(BUILD, 'tests', 'gen-gpu'), trace, '40', *extra)
    rc2, out, _ = run(G, 'stats', '--by', 'step', '-f', 'json', '--top', '1000', trace)
    want = {g['name']: g['total_ns'] for g in json.loads(out)['groups']} if rc2 == 0 else {}
    rc, sp, err, out = export(trace)
    steps = [s for s in sp if 'ggmlviz.step' in otlplib.attrs(s)]
    got = {str(otlplib.attrs(s)['ggmlviz.step']): otlplib.attrs(s)['ggmlviz.step.op_ns'] for s in steps}
    gpu_steps = [s for s in steps if otlplib.attrs(s)['ggmlviz.step.op_ns'] > 20000]
    ok(rc == 0 and len(steps) == 40 and got == {k: v for k, v in want.items() if k in got} and
       len(want) == 40 and all('ggmlviz.op.MUL_MAT.ns' in otlplib.attrs(s) for s in gpu_steps) and
       gpu_steps and not err,
       'gen-gpu, %s: each of the 40 steps\' spans holds its ops as stats --by step sums them '
       '(%d with a GPU run\'s, each with its MUL_MAT), none said lost' % (what, len(gpu_steps)),
       (rc, err, len(steps), [(k, got.get(k), v) for k, v in want.items() if got.get(k) != v][:4]))
    ok(sp and not otlplib.tree_problems(sp) and not repeats(sp),
       'gen-gpu, %s: every span\'s parent is a span of its trace, no (traceId, spanId) twice' % what,
       (otlplib.tree_problems(sp)[:3], repeats(sp)[:3]))
proto_check(out, 'gen-gpu')

# ---- two servers merged ----
traces = [os.path.join(TMP, 'server-a.ggmlviz'), os.path.join(TMP, 'server-b.ggmlviz')]
run(os.path.join(BUILD, 'tests', 'gen-server'), traces[0], '--requests', '12')
run(os.path.join(BUILD, 'tests', 'gen-server'), traces[1], '--requests', '12', '--slots', '3')
merged = os.path.join(TMP, 'merged.ggmlviz')
rc, _, err = run(G, 'merge', *traces, '-o', merged)
per_pid = {}
for t in traces:
    rc2, out, _ = run(G, 'dump', '-f', 'jsonl', t)
    pid = next(json.loads(line)['key'] for line in out.splitlines() if '"PROCESS"' in line)
    rc2, out, _ = run(G, 'stats', '--by', 'request', '-f', 'json', t)
    per_pid[pid] = sorted(r['request'] for r in json.loads(out)['requests'])
rc, sp, err, out = export(merged)
roots = [s for s in sp if 'parentSpanId' not in s and 'ggmlviz.request.id' in otlplib.attrs(s)]
by_pid = collections.defaultdict(list)
for s in roots:
    by_pid[s['resource']['process.pid']].append(otlplib.attrs(s)['ggmlviz.request.id'])
ok(rc == 0 and len(per_pid) == 2 and {k: sorted(v) for k, v in by_pid.items()} == per_pid,
   'two servers merged: each request a trace under its own process\'s resource, as many as stats '
   'gives each server', (rc, err, {k: len(v) for k, v in by_pid.items()},
                         {k: len(v) for k, v in per_pid.items()}))
spans_of = {(s['traceId'], s['spanId']): s for s in sp}
orphans = [s['name'] for s in sp if 'parentSpanId' in s and
           (s['traceId'], s['parentSpanId']) not in spans_of]
mixed = [s['name'] for s in sp if 'parentSpanId' in s and (s['traceId'], s['parentSpanId']) in spans_of and
         spans_of[(s['traceId'], s['parentSpanId'])]['resource']['process.pid'] != s['resource']['process.pid']]
steps = [s for s in sp if 'ggmlviz.step' in otlplib.attrs(s)]
ok(sp and steps and not orphans and not repeats(sp) and not mixed and not otlplib.tree_problems(sp),
   'two servers merged: every span\'s parent a span of its trace and its process (%d steps), no '
   '(traceId, spanId) twice' % len(steps), (orphans[:4], repeats(sp)[:4], mixed[:4]))
proto_check(out, 'two servers merged')
taplib.finish()
