#!/usr/bin/env python3
"""The ggmlviz command on GPU op times (TAP), without a GPU.

tests/gen-gpu writes a trace as libggmlviz writes it for llama.cpp on a
CUDA GPU: the real node engine, kernel sink and writer, with the tests'
stand-in in CUPTI's place (tests/gpu-sim.c) feeding real ggml-cuda kernel
names. Each answer of the command is checked against what this script
computes from the records themselves (`ggmlviz dump -f jsonl`): the
kernels and their time, by function; ops of the GPU run timed by their
kernels (a fused norm once, a MUL_MAT by its quantize and matrix-vector
kernels); per backend how its ops were timed; the export's kernels on
their GPU stream's track, each inside the op that launched it, none
overlapping; the report's kernel slices; info's GPU lines; and a trace
without kernels told so.

    tool-gpu.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import collections
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
STEPS = 5  # one prompt of 16 tokens, 4 generated


def stats_json(*args):
    rc, out, err = run(G, 'stats', '-f', 'json', *args, trace)
    return json.loads(out) if rc == 0 else {'groups': [], 'splits': [], 'error': err}


def short_name(mangled):
    """A kernel's function name from its Itanium mangled name (_Z[L]<len><name>...)."""
    m = re.match(r'_ZL?(\d+)', mangled)
    return mangled[m.end():m.end() + int(m.group(1))] if m else mangled


GPU_TRACK = 0x80000000 | 7  # GGMLVIZ_GPU_TRACK(0, 7): device 0, stream 7

trace = os.path.join(TMP, 'gpu.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-gpu'), trace, str(STEPS))
ok(rc == 0 and os.path.exists(trace), 'gen-gpu writes a GPU trace', err)
rc, out, err = run(G, 'dump', '-f', 'jsonl', trace)
records = [json.loads(line) for line in out.splitlines()]
kernels = [r for r in records if r['type'] == 'KERNEL']
ok(rc == 0 and len(kernels) == STEPS * 14, 'dump shows the KERNEL records (14 per step)',
   '%d kernels' % len(kernels))
ok(all(k['tid'] == GPU_TRACK and k['stream'] == 7 and k['device'] == 0 and k['run_id'] > 0
       and k['label'].startswith('_Z') for k in kernels),
   'each KERNEL on its GPU track, with its stream, device, run and mangled name')
kernel_ns = sum(k['duration_ns'] for k in kernels)

# ---- info ----
rc, out, err = run(G, 'info', trace)
gpu = re.search(r'^GPU: +kernels (.*)\n +(\d+) kernels, (\d+) tied .*?, (\d+) untied', out, re.M)
ok(rc == 0 and gpu and 'stand-in for CUPTI' in gpu.group(1),
   'info: the session says how kernels were recorded', out)
ok(gpu and int(gpu.group(2)) == len(kernels) and int(gpu.group(3)) == len(kernels) and
   gpu.group(4) == '0', 'info: every kernel tied to the node that launched it', out)
ok(re.search(r'^ +%d +%d +GPU 0 stream 7$' % (GPU_TRACK, len(kernels)), out, re.M) is not None,
   'info: the GPU track is named by device and stream', out)

# ---- stats by kernel: the records' kernels, by function ----
s = stats_json('--by', 'kernel')
want = collections.Counter(short_name(k['label']) for k in kernels)
got = {g['name']: g['count'] for g in s['groups']}
ok(got == dict(want), 'stats --by kernel: each kernel function and its count', '%s\n%s' % (got, want))
ok(s.get('op_ns') == kernel_ns, 'stats --by kernel: their total is the records\' durations',
   '%s vs %d' % (s.get('op_ns'), kernel_ns))
mmvq = [k['duration_ns'] for k in kernels if short_name(k['label']) == 'mul_mat_vec_q']
g = [x for x in s['groups'] if x['name'] == 'mul_mat_vec_q']
ok(g and g[0]['total_ns'] == sum(mmvq) and g[0]['min_ns'] == min(mmvq) and
   g[0]['max_ns'] == max(mmvq), 'stats --by kernel: a function\'s total, min and max exact')

# ---- stats by op and method: ops of the GPU run timed by their kernels ----
s = stats_json('--by', 'method')
methods = {x['name']: x for x in s['groups']}
ok(methods.get('gpu', {}).get('count') == STEPS * 10 and methods.get('tick', {}).get('count') == STEPS,
   'stats --by method: 10 ops of each GPU run timed by kernels, the CPU\'s one by ticks', methods)
ok(methods.get('gpu', {}).get('total_ns') == kernel_ns,
   'stats --by method: the GPU ops\' time is their kernels\' (back to back, none lost)',
   '%s vs %d' % (methods.get('gpu', {}).get('total_ns'), kernel_ns))
splits = {x['backend']: x for x in s['splits']}
cuda = splits.get('CUDA0', {})
ok(cuda.get('runs') == STEPS and cuda.get('ops_gpu') == STEPS * 10 and cuda.get('ops_tick') == 0
   and cuda.get('gpu_ns') == kernel_ns, 'stats: CUDA0\'s runs and their ops timed by kernels', cuda)
ok(splits.get('CPU', {}).get('ops_tick') == STEPS, 'stats: the CPU\'s ops timed by ticks', splits)
s = stats_json('--by', 'op')
ops = {x['name']: x for x in s['groups']}
ok('MUL' not in ops and ops.get('RMS_NORM+MUL', {}).get('count') == 2 * STEPS,
   'stats: the norm and the MUL its kernel computes are one op, RMS_NORM+MUL', sorted(ops))
norm = sum(k['duration_ns'] for k in kernels if short_name(k['label']) == 'rms_norm_f32')
ok(ops.get('RMS_NORM+MUL', {}).get('total_ns') == norm, 'stats: RMS_NORM+MUL is its kernel\'s time')
mm = sum(k['duration_ns'] for k in kernels if short_name(k['label']) in ('quantize_q8_1', 'mul_mat_vec_q'))
ok(ops.get('MUL_MAT', {}).get('count') == 4 * STEPS and ops['MUL_MAT']['total_ns'] == mm,
   'stats: each MUL_MAT timed by its quantize and matrix-vector kernels',
   '%s vs %d' % (ops.get('MUL_MAT'), mm))
rc, out, err = run(G, 'stats', trace)
ok(re.search(r'CUDA0 +5 runs, [0-9.]+ [mu]?s, 60 nodes: 50 ops timed on the GPU \(its '
             r'kernels, or the backend\'s timestamps\): [0-9.]+ us', out) is not None and
   'a GPU run\'s time is the host\'s: its launches' in out,
   'stats: the GPU runs, their ops\' GPU time beside them, said what a run\'s time holds', out)
s = stats_json('--by', 'layer')
layers = {x['name']: x['count'] for x in s['groups']}
ok(layers == {'(none)': STEPS, '(run start)': STEPS, '0': 5 * STEPS, '1': 5 * STEPS},
   'stats --by layer: GPU ops keep their layers', layers)

# ---- export: kernels on the GPU track, inside the ops that launched them ----
chrome = os.path.join(TMP, 'gpu.json')
rc, out, err = run(G, 'export', trace, '-o', chrome)
events = json.load(open(chrome))['traceEvents'] if rc == 0 else []
xs = [e for e in events if e.get('ph') == 'X']
ek = [e for e in xs if e.get('cat') == 'kernel']
gpu_ops = sorted((e for e in xs if e.get('cat') == 'op' and e['tid'] == GPU_TRACK),
                 key=lambda e: e['ts'])
ok(len(ek) == len(kernels) and all(e['tid'] == GPU_TRACK for e in ek),
   'export: every kernel a slice on its GPU stream\'s track', '%d slices' % len(ek))
ok(len(gpu_ops) == STEPS * 10 and all(e['args'].get('timed_by') == 'gpu' and
                                      e['args'].get('kernels', 0) >= 1 for e in gpu_ops),
   'export: the GPU run\'s ops on that track, with their kernels and GPU time')


# A slice that encloses others may end a few ns past its end in the JSON, where no
# duration lands on it in a viewer's doubles (ggmlviz(1), export): at most 64 ns.
SLACK_US = 0.064


def inside(k):
    return any(o['ts'] <= k['ts'] + 1e-9 and k['ts'] + k['dur'] <= o['ts'] + o['dur'] + SLACK_US
               and o['name'] == k['args'].get('op') for o in gpu_ops)


ok(all(inside(k) for k in ek), 'export: each kernel inside the op that launched it')
runs = [e for e in xs if e.get('cat') == 'split' and e['args'].get('backend') == 'CUDA0']
ok(len(runs) == STEPS and all(any(r['ts'] <= o['ts'] and o['ts'] + o['dur'] <= r['ts'] + r['dur'] + SLACK_US
                                  for r in runs) for o in gpu_ops),
   'export: each GPU op inside its run (the scheduler waits for the GPU after a run)')
track = sorted(ek, key=lambda e: e['ts'])
overlaps = [(a['name'], b['name']) for a, b in zip(track, track[1:])
            if round((a['ts'] + a['dur']) * 1000) > round(b['ts'] * 1000)]
ok(not overlaps and not any('overlapping' in str(e.get('args', {}).get('name', ''))
                            for e in events if e.get('ph') == 'M'),
   'export: kernels back to back, none overlapping the next', overlaps[:3])
names = {e['args']['name'] for e in events if e.get('ph') == 'M' and e['name'] == 'thread_name'}
ok('GPU 0 stream 7' in names, 'export: the GPU track named', names)

# ---- export --format perfetto: kernels under their ops on the GPU stream's track ----
pf = os.path.join(TMP, 'gpu.pftrace')
rc, out, err = run(G, 'export', '--format', 'perfetto', trace, '-o', pf)
if perfetto.have_protoc():
    packets, why = perfetto.decode(pf) if rc == 0 else (None, err)
    pslices, ptracks, _, perrors = perfetto.slices(packets or [])
    ok(packets and not perrors, 'export --format perfetto: decoded, every slice paired',
       (why, perrors[:3]))
    gpu_tracks = {u for u, d in ptracks.items() if perfetto.one(d, 'name') == 'GPU 0 stream 7'}
    pk = [s for s in pslices if s['category'] == 'kernel']
    pops = {(s['track'], s['ts']): s for s in pslices if s['category'] == 'op'}
    # each kernel one level below the op that launched it, which begins with its first kernel
    parent_ok = [k for k in pk if any(o['name'] == k['args'].get('op') and o['depth'] + 1 == k['depth']
                                      and o['ts'] <= k['ts'] and k['end'] <= o['end']
                                      for o in pops.values() if o['track'] == k['track'])]
    ok(len(gpu_tracks) == 1 and len(pk) == len(kernels) and
       all(k['track'] in gpu_tracks for k in pk) and len(parent_ok) == len(pk),
       'export --format perfetto: every kernel on the named GPU track, nested in its op '
       '(which begins on the same nanosecond)', (len(pk), len(parent_ok), len(gpu_tracks)))
else:
    taplib.skip('export --format perfetto', 'protoc is missing (apt-get install protobuf-compiler)')

# ---- report: kernel slices in the GPU stream's lane ----
page = os.path.join(TMP, 'gpu.html')
rc, out, err = run(G, 'report', trace, '-o', page)
data = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                            open(page, encoding='utf-8').read(), re.S).group(1)) if rc == 0 else {}
lanes = [l['name'] for l in data.get('lanes', [])]
kslices = [x for x in data.get('slices', []) if x[0] == 6]
ok(rc == 0 and data.get('kernels') == len(kernels) and
   len(kslices) + data.get('hidden_kernels', -1) == len(kernels),
   'report: every kernel read, drawn or counted as too short', data.get('kernels'))
ok(kslices and all(lanes[x[1]] == 'GPU 0 stream 7' for x in kslices) and
   {data['strings'][x[5]] for x in kslices} <= set(want),
   'report: kernel slices in the GPU stream\'s lane, named by function', lanes)
ok('stand-in for CUPTI' in (data.get('gpu_note') or ''), 'report: the session\'s word on kernels')

# ---- CPU runs without ticks: what to call ----
noticks = os.path.join(TMP, 'noticks.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-gpu'), noticks, str(STEPS), '--no-ticks')
rc, out, err = run(G, 'stats', noticks)
ok(rc == 0 and re.search(r'CPU +5 runs, .*: runs only', out) and
   'pass the scheduler as the eval callback\'s user_data' in out and
   'ggmlviz_ggml_trace_sched()' in out,
   'stats: CPU runs without ticks say what to call to time every node', out)

# ---- kernels in sampled windows (GGML_VIZ_GPU_SAMPLE=2/5): the sampled steps' ops only ----
W_STEPS = 21  # W I I O O, four times over, and a warm-up
windowed = os.path.join(TMP, 'windows.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-gpu'), windowed, str(W_STEPS), '--sample', '2/5')
ok(rc == 0, 'gen-gpu --sample 2/5 writes a trace', err)
rc, out, err = run(G, 'dump', '-f', 'jsonl', windowed)
w_records = [json.loads(line) for line in out.splitlines()]
w_marks = [r for r in w_records if r['type'] == 'META' and r.get('kind') == 'GPU_WINDOW']
# each step's state is the last GPU_WINDOW before its begin (one thread: the file's order)
state, w_steps = 0, []
for r in w_records:
    if r['type'] == 'META' and r.get('kind') == 'GPU_WINDOW':
        state = r['value']
    elif r['type'] == 'STEP_BEGIN':
        w_steps.append(state)
ok(len(w_steps) == W_STEPS and w_steps == ([2, 3, 3, 1, 1] * 5)[:W_STEPS],
   'the GPU_WINDOW records put the steps in windows of 2 sampled of every 5, each after a '
   'warm-up', w_steps)
w_kernels = [r for r in w_records if r['type'] == 'KERNEL']
ok(len(w_kernels) == 13 * 14, 'kernels of the 13 steps of the windows only (8 sampled, 5 warm-up)',
   len(w_kernels))
rc, out, err = run(G, 'stats', '-f', 'json', windowed)
js = json.loads(out) if rc == 0 else {}
# left out: each warm-up step's 10 GPU ops, its CPU op and its run's start; each outside
# step's CPU op and run start
ok(js.get('gpu_windows') == {'sampled_steps': 8, 'warmup_steps': 5, 'outside_steps': 8,
                             'ops_left_out': 5 * 12 + 8 * 2},
   'stats -f json: the windows\' steps, and the op timings left out', js.get('gpu_windows'))
ok(js.get('steps') == 8 and js.get('tokens') == 8 and js.get('ops') == 8 * 11,
   'stats: the ops, steps and tokens of the 8 sampled steps only (per token over their 8)',
   (js.get('steps'), js.get('tokens'), js.get('ops')))
rc, out, err = run(G, 'stats', '--by', 'op', windowed)
ok(rc == 0 and 'of the 8 sampled steps only; 5 steps of CUPTI\'s warm-up and 8 outside the '
   'windows are left out' in out, 'stats: the table says which steps it holds', out)
rc, out, err = run(G, 'stats', '--by', 'step', '-f', 'json', windowed)
by_step = json.loads(out) if rc == 0 else {}
ok(by_step.get('steps') == W_STEPS, 'stats --by step: every step keeps its time',
   by_step.get('steps'))
rc, out, err = run(G, 'info', windowed)
ok(rc == 0 and 'in sampled windows of 2 steps of every 5 (GGML_VIZ_GPU_SAMPLE): 5 windows; 8 '
   'steps sampled, 5 of CUPTI\'s warm-up, 8 outside' in out, 'info: the windows', out)
page = os.path.join(TMP, 'windows.html')
rc, out, err = run(G, 'report', windowed, '-o', page)
wdata = json.loads(re.search(r'<script id="data" type="application/json">(.*?)</script>',
                             open(page, encoding='utf-8').read(), re.S).group(1)) if rc == 0 else {}
ok(wdata.get('by_op', {}).get('gpu_windows', {}).get('sampled_steps') == 8,
   'report: its op table of the sampled steps, said in its health list',
   wdata.get('by_op', {}).get('gpu_windows'))
steps_csv = os.path.join(TMP, 'windows-steps.csv')
rc, out, err = run(G, 'export', '-f', 'csv', '--table', 'steps', '--force', windowed, '-o', steps_csv)
col = []
if rc == 0 and os.path.exists(steps_csv):
    import csv
    with open(steps_csv, encoding='utf-8') as f:
        col = [row['gpu_window'] for row in csv.DictReader(f)]
ok(col == (['warmup', 'sampled', 'sampled', 'outside', 'outside'] * 5)[:W_STEPS],
   'export -f csv --table steps: each step\'s window', col or err)

wjson = os.path.join(TMP, 'windows.json')
rc, out, err = run(G, 'export', windowed, '-o', wjson)
wsteps = [e['args'].get('gpu_window') for e in (json.load(open(wjson))['traceEvents'] if rc == 0 else [])
          if e.get('ph') == 'X' and 'tokens' in e.get('args', {})]
ok(wsteps == (['warmup', 'sampled', 'sampled', 'outside', 'outside'] * 5)[:W_STEPS],
   'export: each step slice says its window (args.gpu_window)', wsteps or err)

# ---- a trace without kernels ----
cpu = os.path.join(TMP, 'cpu.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-trace'), cpu)
rc, out, err = run(G, 'stats', '--by', 'kernel', cpu)
ok(rc == 0 and 'no GPU kernels in this trace' in out,
   'stats --by kernel: a trace without kernels says so', out + err)
rc, out, err = run(G, 'info', cpu)
ok(rc == 0 and '\nGPU:' not in out, 'info: no GPU line where no GPU ran', out)

taplib.finish()
