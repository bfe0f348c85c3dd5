#!/usr/bin/env python3
"""llama.cpp's tools built for GGML's Vulkan backend (TAP):
scripts/build-llama-tools.sh --vulkan, every layer on Vulkan0 (-ngl 99), on
Mesa's software device (GGML_VK_VISIBLE_DEVICES=0).

- llama-bench traced: the same results in shape as untraced; every
  computing node of each Vulkan run is an op timed on the GPU (method GPU,
  from the backend's timestamp queries, ggmlviz-vulkan.h), inside its run,
  longer than 0, none missing: a fused pair's op counts both nodes; stats,
  info and the report say the Vulkan ops were timed on the GPU;
- the ops ranked as sync mode (GGML_VIZ_OP_TIMING=sync, every node
  synchronized alone) ranks them, by phase. Sync mode's times are grouped
  as the GPU's fused ops group them in that phase, and each phase's first
  step (where pipelines are made) is left out. Judged:
  - the same three on top: an op of one ranking's top three that leads
    its fourth by more than 25% is among the other's top three, or within
    25% of its third (near-ties either way: one CI run's sync third and
    fourth were 0.8% apart);
  - no pair of the ops holding 5% of the time or more ordered the other
    way by both, each by more than 60%. Mesa's software device's
    timestamps move time between neighbouring nodes: an RMS_NORM+MUL after
    an unfused ADD read 52 us a token, after a MUL_MAT+ADD 1.3 to 1.9 ms,
    where sync mode gives RMS_NORM alone about 1 ms in every layer (that
    pair read 1.46 apart one way by timestamps and 1.56 the other by sync
    in one run). An op's time given to the next op is caught by the top
    three.
  A pair (the traced run and sync mode's) that does not hold is made
  again, up to twice (taplib.made_until), before it is judged: in one CI
  run the timestamps gave a prompt's RMS_NORM+MUL 779 ms against sync
  mode's 49.
  Spearman's rank correlation over all is printed, not judged: the small
  ops' sync times are mostly sync mode's own submission and wait per node
  (which is why sync mode is not the measure); a loaded machine made
  ROPE+SET_ROWS, 2.4% of the GPU's time, ten times longer in sync mode;
- the perf logger's table is printed only when GGML_VK_PERF_LOGGER asks
  for it (and then the ops are timed all the same);
- llama-server traced: two requests answered, each a request of the trace,
  its decodes' Vulkan ops timed on the GPU.

    llama-tools-vulkan.py BUILDDIR TMPDIR TOOLSDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llamaserver  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP, TOOLS = (os.path.abspath(a) for a in sys.argv[1:4])
G = os.path.join(BUILD, 'tools', 'ggmlviz')
BENCH = os.path.join(TOOLS, 'llama-bench')
SERVER = os.path.join(TOOLS, 'llama-server')
PLAIN = {k: v for k, v in os.environ.items()
         if not k.startswith('GGML_VIZ_') and not k.startswith('GGML_VK_PERF')}
PLAIN['GGML_VK_VISIBLE_DEVICES'] = '0'
FUSED = 0x80000000


def env_with(**kw):
    return dict(PLAIN, **kw)


def records(path):
    rc, out, err = run(G, 'dump', '-f', 'jsonl', path)
    return [json.loads(line) for line in out.splitlines()] if rc == 0 else []


def vulkan_runs(recs):
    """Each Vulkan run: its span, its ops (name, begin, end, op type, method, label), its
    computing nodes (ticks_expected), and the phase of the step it is in."""
    runs, open_runs, begins, phase = [], {}, {}, {}
    for r in recs:
        t, tid = r['type'], r.get('tid')
        if t == 'STEP_BEGIN':
            phase[tid] = r['phase']
        elif t == 'STEP_END':
            phase.pop(tid, None)
        elif t == 'SPLIT_BEGIN' and r['backend_name'].startswith('Vulkan'):
            open_runs[tid] = {'begin': r['ts'], 'ops': [], 'phase': phase.get(tid), 'methods': []}
        elif tid not in open_runs:
            continue
        elif t == 'OP_COMPUTE_BEGIN':
            begins[r['tensor']] = r['ts']
        elif t == 'OP_NODE':
            open_runs[tid]['methods'].append(r['method'])
        elif t == 'OP_COMPUTE_END':
            open_runs[tid]['ops'].append((r['op'], begins.get(r['tensor'], -1), r['ts'],
                                          r['op_type'], r['label']))
        elif t == 'SPLIT_END':
            run_ = open_runs.pop(tid)
            run_.update(end=r['ts'], expected=r['ticks_expected'], n_timed=r['n_timed'])
            runs.append(run_)
    return runs


def run_problems(runs):
    """What is wrong with the Vulkan runs' op times, in words (none: [])."""
    bad = []
    for i, r in enumerate(runs):
        nodes = sum(2 if op[3] & FUSED else 1 for op in r['ops'])
        if nodes != r['expected'] or r['n_timed'] != len(r['ops']):
            bad.append('run %d: %d nodes in %d ops, %d computing nodes' %
                       (i, nodes, len(r['ops']), r['expected']))
        if set(r['methods']) != {3}:
            bad.append('run %d: methods %s' % (i, sorted(set(r['methods']))))
        for op in r['ops']:
            if not r['begin'] <= op[1] < op[2] <= r['end']:
                bad.append('run %d: %s %s at %d..%d outside %d..%d or empty' %
                           (i, op[0], op[4], op[1], op[2], r['begin'], r['end']))
    return bad


def grouping(runs, phase):
    """The GPU trace's fused pairs in a phase: (tensor name, op name) of each half -> the
    pair's op name."""
    group = {}
    for r in (r for r in runs if r['phase'] == phase):
        for op, _, _, op_type, label in r['ops']:
            if op_type & FUSED and '+' in op and label and ' + ' in label:
                for name, half in zip(label.split(' + ', 1), op.split('+', 1)):
                    group[(name, half)] = op
    return group


def ranking(runs, phase, group=None):
    """Op groups of a phase by total time, biggest first: each phase's first step left out."""
    totals, first_seen = {}, set()
    # the first run of each shape (node count) is where the pipelines were made
    for r in (r for r in runs if r['phase'] == phase):
        if r['expected'] not in first_seen:
            first_seen.add(r['expected'])
            continue
        for op, b, e, _, label in r['ops']:
            key = (group or {}).get((label, op), op)
            totals[key] = totals.get(key, 0) + (e - b)
    return sorted(totals, key=lambda k: -totals[k]), totals


def on_top(rank, totals, margin=0.75):
    """The top three of a ranking, and every op within a margin of its third: where the third
    and fourth are as good as tied (0.6% apart in one CI run), either may be third."""
    if len(rank) < 3:
        return set(rank)
    return {k for k in rank if totals[k] >= margin * totals[rank[2]]}


def clearly_on_top(rank, totals, margin=0.75):
    """The ops of a ranking's top three that lead its fourth by more than a margin: where the
    third and fourth are as good as tied (0.8% apart in one CI run's sync mode), neither is."""
    if len(rank) < 4:
        return set(rank[:3])
    return {k for k in rank[:3] if margin * totals[k] > totals[rank[3]]}


def spearman(a, b):
    """Spearman's rank correlation of two rankings of the same names (-1: other names)."""
    if sorted(a) != sorted(b) or len(a) < 2:
        return -1.0
    n = len(a)
    d2 = sum((i - b.index(k)) ** 2 for i, k in enumerate(a))
    return 1.0 - 6.0 * d2 / (n * (n * n - 1))


def clear_inversions(gpu_tot, sync_tot, share=0.05, margin=1.6):
    """Pairs of the ops holding a share of the GPU time or more that the two rankings order
    the other way round, each by more than a margin: what neither noise nor near-ties explain."""
    total = sum(gpu_tot.values()) or 1
    big = [k for k in gpu_tot if gpu_tot[k] >= share * total and k in sync_tot]
    return ['%s/%s' % (a, b) for a in big for b in big
            if gpu_tot[a] > margin * gpu_tot[b] and sync_tot[b] > margin * sync_tot[a]]


def steps_as_runs(recs):
    """Sync mode makes each node a run of its own: each step's Vulkan runs as one."""
    steps, open_step = [], None
    for r in recs:
        if r['type'] == 'STEP_BEGIN':
            open_step = {'phase': r['phase'], 'ops': [], 'begin': r['ts']}
        elif r['type'] == 'STEP_END' and open_step:
            open_step['end'] = r['ts']
            steps.append(open_step)
            open_step = None
    for run_ in vulkan_runs(recs):
        for s in steps:
            if s['begin'] <= run_['begin'] <= s['end']:
                s['ops'].extend(run_['ops'])
                break
    for s in steps:
        s['expected'] = len(s['ops'])
    return steps


model = os.path.join(TMP, 'tiny-q8.gguf')
# 512 wide: the ops' work outweighs what sync mode adds to each node (a submission, a wait)
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '4',
                   '--embd', '512', '--heads', '8', '--kv-heads', '4', '--ff', '1408',
                   '--vocab', '1024', '--type', 'q8_0')
ok(rc == 0, 'make_tiny_llama writes a 4-layer, 512-wide q8_0 model', err)

BENCH_ARGS = ['-m', model, '-ngl', '99', '-p', '16', '-n', '4', '-r', '2', '-t', '2', '-o', 'json']
quiet_dir = os.path.join(TMP, 'untraced')
os.mkdir(quiet_dir)
rc, plain_out, err = run(BENCH, *BENCH_ARGS, env=env_with(), cwd=quiet_dir)
plain = json.loads(plain_out) if rc == 0 else []
if not plain or 'Vulkan' not in plain[0].get('backends', ''):
    skip('everything on Vulkan0', 'no Vulkan device here (mesa-vulkan-drivers): %s' % err[-300:])
    taplib.finish()
ok(len(plain) == 2 and os.listdir(quiet_dir) == [] and 'Vulkan Timings' not in err,
   'llama-bench -ngl 99 untraced on Vulkan0: its results, nothing written, nothing of the perf '
   'logger\'s', err[-400:])

trace = os.path.join(TMP, 'bench.ggmlviz')
rc, traced_out, err = run(BENCH, *BENCH_ARGS, env=env_with(GGML_VIZ_OUTPUT=trace))
traced = json.loads(traced_out) if rc == 0 else []
ok(rc == 0 and [sorted(r) for r in traced] == [sorted(r) for r in plain] and
   'Vulkan Timings' not in err,
   'llama-bench traced: the same results in shape, and the perf logger prints nothing', err[-400:])
runs = vulkan_runs(records(trace))
bad = run_problems(runs)
ok(len(runs) >= 8 and not bad,
   'every computing node of the %d Vulkan runs timed on the GPU by the backend\'s timestamps, '
   'inside its run (a fused pair\'s op counting both nodes)' % len(runs), bad[:10])
gpu_ns = sum(op[2] - op[1] for r in runs for op in r['ops'])
run_ns = sum(r['end'] - r['begin'] for r in runs)
ok(runs and 0.5 * run_ns < gpu_ns <= run_ns,
   'the ops\' GPU time is within their runs\' time: %.1f%% of it' % (100.0 * gpu_ns / max(run_ns, 1)))
rc, out, err = run(G, 'stats', '-f', 'json', trace)
splits = {s['backend']: s for s in json.loads(out).get('splits', [])} if rc == 0 else {}
vk = splits.get('Vulkan0', {})
ok(vk.get('ops_gpu', 0) == sum(len(r['ops']) for r in runs) and vk.get('ops_tick', 1) == 0 and
   vk.get('ops_sync', 1) == 0 and vk.get('gpu_ns', 0) == gpu_ns,
   'stats --format json: the Vulkan ops counted as timed on the GPU, their GPU time summed', vk)
rc, out, err = run(G, 'info', trace)
line = [l for l in out.splitlines() if l.strip().startswith('Vulkan0 ')]
ok(rc == 0 and line and 'ops timed on the GPU' in line[0] and 'runs only' not in line[0],
   'info says the Vulkan ops were timed on the GPU', out[-600:])
page = os.path.join(TMP, 'bench.html')
rc, out, err = run(G, 'report', trace, '-o', page)
html = open(page, encoding='utf-8').read() if rc == 0 else ''
ok('"ops_gpu":%d' % vk.get('ops_gpu', -1) in html, 'the report has the Vulkan ops timed on the GPU',
   err)

# ---- the ranking, against every node synchronized alone ----


def compare(gpu_runs, sync_trace):
    """Each phase's ranking by the GPU's timestamps against sync mode's, as
    (whether it holds, what it says, what it shows)."""
    steps_sync = steps_as_runs(records(sync_trace))
    got = []
    for phase, name in ((1, 'prompt'), (2, 'generation')):
        gpu_rank, gpu_tot = ranking(gpu_runs, phase)
        sync_rank, sync_tot = ranking(steps_sync, phase, grouping(gpu_runs, phase))
        rho = spearman(gpu_rank, sync_rank)
        # sync mode adds a submission and a wait to every node (0.3 ms and more on the software
        # device, more on a loaded machine): the small ops' ranks move with it, the big ones' do
        # not. The same three on top: each ranking's clear top among the other's (with near-ties)
        same_top = (clearly_on_top(gpu_rank, gpu_tot) <= on_top(sync_rank, sync_tot) and
                    clearly_on_top(sync_rank, sync_tot) <= on_top(gpu_rank, gpu_tot))
        inverted = clear_inversions(gpu_tot, sync_tot)
        got.append((len(gpu_rank) >= 5 and same_top and not inverted,
                    '%s: the ops ranked as sync mode ranks them: the same three on top (%s; '
                    'near-ties within 25%% either way), no op of 5%% of the time or more the other '
                    'way round by more than 60%% (%s); Spearman\'s rho %.2f over all %d' % (
                        name, ', '.join(gpu_rank[:3]), ', '.join(inverted) or 'none', rho,
                        len(gpu_rank)),
                    'timestamps: %s\nsync:       %s' % (
                        ', '.join('%s %.2f ms' % (k, gpu_tot[k] / 1e6) for k in gpu_rank),
                        ', '.join('%s %.2f ms' % (k, sync_tot[k] / 1e6) for k in sync_rank))))
    return got


def ranked(tag):
    """llama-bench traced (the first time: the runs checked above) and in sync mode, compared."""
    gpu_runs = runs
    if tag != 'ranking':
        again = os.path.join(TMP, tag + '.ggmlviz')
        run(BENCH, *BENCH_ARGS, env=env_with(GGML_VIZ_OUTPUT=again))
        gpu_runs = vulkan_runs(records(again))
    sync_trace = os.path.join(TMP, tag + '-sync.ggmlviz')
    rc, out, err = run(BENCH, *BENCH_ARGS, env=env_with(GGML_VIZ_OUTPUT=sync_trace,
                                                        GGML_VIZ_OP_TIMING='sync'))
    return rc, compare(gpu_runs, sync_trace)


# Mesa's software device's timestamps once gave a prompt's RMS_NORM+MUL 779 ms against sync
# mode's 49 (a CI run): such a pair is made again, up to twice, before it is judged
rc, phases = taplib.made_until(ranked, lambda m: m[0] == 0 and all(p[0] for p in m[1]), 'ranking')
for holds, says, shows in phases:
    ok(rc == 0 and holds, says, shows)

# ---- the user's own perf logger is kept ----
logged = os.path.join(TMP, 'logged.ggmlviz')
rc, out, err = run(BENCH, *BENCH_ARGS, env=env_with(GGML_VIZ_OUTPUT=logged,
                                                    GGML_VK_PERF_LOGGER='1'))
runs_logged = vulkan_runs(records(logged))
ok(rc == 0 and 'Vulkan Timings' in err and runs_logged and not run_problems(runs_logged),
   'with GGML_VK_PERF_LOGGER set too, its table is printed and the ops are timed all the same',
   err[-400:])


# ---- llama-server ----
server_trace = os.path.join(TMP, 'server.ggmlviz')
proc, port = llamaserver.start(SERVER, ['-m', model, '-ngl', '99', '-np', '2', '-c', '512',
                                        '-t', '2', '--no-webui'],
                               env_with(GGML_VIZ_OUTPUT=server_trace), timeout=120)
up = port is not None
answers = [None, None]
if up:
    threads = [threading.Thread(target=llamaserver.complete,
                                args=(port, {'prompt': p, 'n_predict': 6, 'temperature': 0,
                                             'cache_prompt': False, 'ignore_eos': True},
                                      answers, i, 180))
               for i, p in enumerate(['the model is a tensor graph', 'each token is a step'])]
    for t in threads:
        t.start()
    for t in threads:
        t.join(200)
server_err = llamaserver.stop(proc)
ok(up and all(a and a.get('content') is not None for a in answers),
   'llama-server -ngl 99 traced on Vulkan0: two requests at once, both answered',
   '%s %s' % (answers, server_err[-400:]))
rc, out, err = run(G, 'stats', '--by', 'request', '-f', 'json', server_trace)
reqs = [r for r in (json.loads(out).get('requests', []) if rc == 0 else []) if r['status'] == 'done']
server_runs = vulkan_runs(records(server_trace))
bad = run_problems(server_runs)
ok(len(reqs) == 2 and len(server_runs) >= 6 and not bad,
   'its trace: both requests, and every computing node of its %d Vulkan runs timed on the GPU'
   % len(server_runs), '%s %s' % (out[-400:], bad[:5]))
taplib.finish()
