#!/usr/bin/env python3
"""The ggmlviz command on a real llama.cpp trace (TAP).

examples/make_tiny_llama writes a small model, examples/llama_trace runs
llama.cpp on it (a prompt, then tokens generated one by one) traced with
memory tracking; then each answer of the command about steps, phases,
tokens and methods is checked against what this script computes itself
from the records (`ggmlviz dump -f jsonl`, whose bytes test-tool.sh checks
against a model): steps and their tokens, the ops inside each step, the
phases, the methods; export nests every op inside its step; dump names
every op; mem shows the model's buffers. Then the same model on GGML's
Vulkan backend (Mesa's software device, where there is one): info, stats
and the report say per backend how its ops were timed.

    tool-llama.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
PROMPT_WORDS = 'the model is a tensor graph and each token is a step'
GENERATE = 6


def ggmlviz(*args):
    return run(G, *args)


# ---- the trace ----
model = os.path.join(TMP, 'tiny.gguf')
trace = os.path.join(TMP, 'llama.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '3')
ok(rc == 0, 'make_tiny_llama writes a model', err)
# every op with its own records (GGML_VIZ_DESCRIBE_ONCE=0), the truth this script reads; the
# default, a graph computed again described once, is checked against it below
env = dict(os.environ, GGML_VIZ_MEMORY_TRACKING='1', GGML_VIZ_DESCRIBE_ONCE='0')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', str(GENERATE), '--threads', '2', '--output', trace,
                   '--prompt', PROMPT_WORDS, env=env)
ok(rc == 0 and os.path.exists(trace), 'llama_trace traces llama.cpp', err)
if taplib.failed:
    taplib.finish()


def ops_by(path, by):
    """{group: ops} of stats --by BY, and the whole's ops."""
    rc, out, _ = ggmlviz('stats', '-f', 'json', '--by', by, path)
    j = json.loads(out) if rc == 0 else {}
    return {g['name']: g['count'] for g in j.get('groups', [])}, j.get('ops')


# The same run as by default: this GGML gives its graphs no id, so the adapter names each run
# (<ggmlviz/ggml-name.h>), and the generated tokens' graph, the same at each, is described at its
# second run and taken from there after (DESC_SET REPEAT): every op read back the same.
once = os.path.join(TMP, 'llama-once.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', str(GENERATE), '--threads', '2', '--output', once,
                   '--prompt', PROMPT_WORDS, env=dict(os.environ, GGML_VIZ_MEMORY_TRACKING='1'))
rc2, info_once, _ = ggmlviz('info', once) if rc == 0 else (1, '', '')
same = [(by, ops_by(trace, by), ops_by(once, by)) for by in ('op', 'layer', 'phase')]
ok(rc == 0 and rc2 == 0 and 'given once: 1 runs described' in info_once and
   'runs of' in info_once and all(a == b and a[1] for _, a, b in same) and
   os.path.getsize(once) * 2 < os.path.getsize(trace),
   "a generated token's graph described once by default: stats reads every op by op, layer and "
   'phase as with every op described, from a trace less than half as large',
   (err[-300:], [l for l in info_once.splitlines() if 'given once' in l], same,
    os.path.getsize(once) if rc == 0 else 0, os.path.getsize(trace)))

# a prompt and a generation that do not fit the context: the message says which, and what fits
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model, '--generate', '2000',
                   '--output', os.path.join(TMP, 'too-long.ggmlviz'))
ok(rc == 1 and 'tokens and --generate 2000 need' in err and 'more than --ctx 256' in err and
   'too long' not in err and 'next:' not in out,
   'llama_trace --generate 2000: the prompt and the generation, not the prompt, are too long for --ctx 256',
   out + err)

# ---- the truth, from the records ----
rc, out, err = ggmlviz('dump', '-f', 'jsonl', trace)
records = [json.loads(line) for line in out.splitlines()]
ok(rc == 0 and records, 'dump -f jsonl reads the trace', err)
steps = []         # [begin_ts, end_ts, n_tokens, phase]
ops = []           # [begin_ts, end_ts, index of the step open at its begin, op name, method]
open_step = None
open_ops = {}
ops_outside_steps = 0
for r in records:
    t = r['type']
    if t == 'STEP_BEGIN':
        open_step = [r['ts'], None, r['n_tokens'], r['phase']]
    elif t == 'STEP_END':
        open_step[1] = r['ts']
        steps.append(open_step)
        open_step = None
    elif t == 'OP_COMPUTE_BEGIN':
        open_ops[(r['tid'], r['tensor'])] = [r['ts'], None, len(steps), r['op'], 0]
        ops_outside_steps += open_step is None
    elif t == 'OP_NODE':
        open_ops[(r['tid'], r['tensor'])][4] = r['method']
    elif t == 'OP_COMPUTE_END':
        o = open_ops.pop((r['tid'], r['tensor']))
        o[1] = r['ts']
        ops.append(o)
prompt_steps = [s for s in steps if s[3] == 1]
gen_steps = [s for s in steps if s[3] == 2]
ok(len(prompt_steps) == 1 and len(gen_steps) == GENERATE,
   'the records hold 1 prompt step and %d generation steps' % GENERATE,
   '%d and %d' % (len(prompt_steps), len(gen_steps)))
ok(all(s[2] == 1 for s in gen_steps) and prompt_steps and prompt_steps[0][2] > 1,
   'each generation step is 1 token, the prompt more', steps)
ok(ops and not open_ops, 'every op begun ends', len(open_ops))
ok(ops_outside_steps == 0, 'every op begins inside a step', ops_outside_steps)

# ---- stats --by phase ----
rc, out, err = ggmlviz('stats', '--by', 'phase', '-f', 'json', trace)
js = json.loads(out) if rc == 0 else {}
groups = {g['name']: g for g in js.get('groups', [])}
ok(rc == 0 and set(groups) == {'prompt', 'generation'}, 'stats --by phase: prompt and generation',
   out[:300])
for name, ss in (('prompt', prompt_steps), ('generation', gen_steps)):
    g = groups.get(name, {})
    tokens = sum(s[2] for s in ss)
    step_ns = sum(s[1] - s[0] for s in ss)
    ok(g.get('steps') == len(ss) and g.get('tokens') == tokens,
       'stats --by phase: %s has %d steps and %d tokens' % (name, len(ss), tokens), g)
    ok(g.get('step_ns') == step_ns, 'stats --by phase: %s step_ns is the sum of its steps' % name,
       '%s against %d' % (g.get('step_ns'), step_ns))
    ok(g and abs(g['ns_per_token'] - step_ns / tokens) < 1e-3 * step_ns / tokens,
       'stats --by phase: %s ns_per_token is step time over tokens' % name, g)
    n_ops = sum(1 for o in ops if o[2] < len(steps) and steps[o[2]][3] ==
                (1 if name == 'prompt' else 2) and steps[o[2]][0] <= o[0] <= steps[o[2]][1])
    ok(g.get('count') == n_ops, 'stats --by phase: %s counts the ops inside its steps' % name,
       '%s against %d' % (g.get('count'), n_ops))
ok(js.get('steps') == len(steps) and js.get('tokens') == sum(s[2] for s in steps),
   'stats json: steps and tokens of the whole trace', js.get('steps'))
rc, out, err = ggmlviz('stats', '--by', 'phase', trace)
ok(rc == 0 and 'PER TOKEN' in out and 'TOKENS/S' in out and 'generation' in out,
   'stats --by phase text: per token and tokens/s', out[:400])

# ---- stats --phase: only one phase's steps and ops ----
for name, phase in (('prompt', 1), ('generation', 2)):
    rc, out, err = ggmlviz('stats', '--phase', name, '-f', 'json', trace)
    js = json.loads(out) if rc == 0 else {}
    want_ops = sum(1 for o in ops if o[2] < len(steps) and steps[o[2]][3] == phase)
    want_steps = [s for s in steps if s[3] == phase]
    ok(js.get('ops') == want_ops and js.get('steps') == len(want_steps) and
       js.get('tokens') == sum(s[2] for s in want_steps),
       'stats --phase %s: its steps, tokens and ops only' % name,
       '%s/%s ops, %s/%s steps' % (js.get('ops'), want_ops, js.get('steps'), len(want_steps)))
rc, out, err = ggmlviz('stats', '--phase', 'generation', trace)
ok(rc == 0 and '(generation)' in out and 'per token' in out,
   'stats --phase generation: says so, with op time per token', out[:300])


def fmt_ns(ns):
    for unit, div in (('s', 1e9), ('ms', 1e6), ('us', 1e3)):
        if ns >= div:
            return '%.3f %s' % (ns / div, unit)
    return '%.0f ns' % ns


# each group's PER TOKEN is its total over the phase's tokens (the json's figures)
rc, out, err = ggmlviz('stats', '--phase', 'generation', '--by', 'layer', trace)
rcj, outj, _ = ggmlviz('stats', '--phase', 'generation', '--by', 'layer', '-f', 'json', trace)
js = json.loads(outj) if rcj == 0 else {}
lines = out.splitlines()
head = next((l for l in lines if l.startswith('LAYER')), '')
at = head.find('PER TOKEN')
want = {g['name']: fmt_ns(g['total_ns'] / js['tokens']) for g in js.get('groups', [])}
got = {}
for l in lines[lines.index(head) + 1:] if head else []:
    name = next((n for n in want if l.startswith(n + ' ')), None)  # '(run start)' has a space
    if name is None:
        break
    cols = l[len(name):].split()
    got[name] = ' '.join(cols[3:5])  # LAYER COUNT TOTAL(2) PER TOKEN(2)
ok(at > 0 and want and got == want,
   'stats --phase generation --by layer: PER TOKEN is each layer\'s total over the phase\'s tokens',
   '%s against %s' % (sorted(got.items())[:3], sorted(want.items())[:3]))
rc, out, err = ggmlviz('stats', '--by', 'layer', trace)
ok(rc == 0 and 'PER TOKEN' not in out,
   'stats --by layer over both phases: no PER TOKEN (prompt and generation tokens differ)', out[:200])
# what (none) holds, said under the table, and true of the records: the ops
# of no layer are the token embedding, the output norm and the output projection
label_of, no_layer = {}, set()
for r in records:
    if r['type'] == 'OP_COMPUTE_BEGIN':
        label_of[(r['tid'], r['tensor'])] = r.get('label') or ''
    elif r['type'] == 'OP_NODE' and r.get('layer', 0) < 0:
        no_layer.add(label_of.get((r['tid'], r['tensor']), '?'))
said = 'in llama.cpp the token embedding, the output norm and the output projection'
ok(rc == 0 and '(none)' in out and said in out and no_layer and
   all(any(k in lbl for k in ('embd', 'result_norm', 'result_output')) for lbl in no_layer),
   'stats --by layer: says what the (none) group is, as the records have it',
   '%s; %s' % (sorted(no_layer), out[-300:]))

# ---- stats --by step ----
rc, out, err = ggmlviz('stats', '--by', 'step', '-f', 'json', trace)
js = json.loads(out) if rc == 0 else {}
names = [g['name'] for g in js.get('groups', [])]
ok(names == [str(i + 1) for i in range(len(steps))], 'stats --by step: one group per step, in order',
   names)
ok([g.get('tokens') for g in js.get('groups', [])] == [s[2] for s in steps],
   'stats --by step: each step\'s tokens')
ok(all(g['total_ns'] <= g['step_ns'] for g in js.get('groups', [])),
   'stats --by step: a step\'s ops take no more than the step')
per_step = [0] * len(steps)
for o in ops:
    per_step[o[2]] += 1
ok([g['count'] for g in js.get('groups', [])] == per_step, 'stats --by step: each step\'s ops',
   '%s against %s' % ([g['count'] for g in js.get('groups', [])], per_step))
# the context of each step: the tokens of the steps before it (one sequence),
# as its STEP_SEQ record says, and as the records' own sums say
seq_recs = [r for r in records if r['type'] == 'STEP_SEQ']
before = [sum(s[2] for s in steps[:i]) for i in range(len(steps))]
ok(len(seq_recs) == len(steps) and [r['context_tokens'] for r in seq_recs] == before and
   all(r['seq_id'] == 0 for r in seq_recs),
   'dump: one STEP_SEQ a step, sequence 0, its context the tokens decoded before it',
   [r.get('context_tokens') for r in seq_recs][:8])
ok([g.get('context_tokens') for g in js.get('groups', [])] == before and
   all(g.get('sequences') == 1 for g in js.get('groups', [])) and
   [g.get('phase') for g in js.get('groups', [])] ==
   ['prompt' if s[3] == 1 else 'generation' for s in steps],
   'stats --by step: each step\'s context and phase', [g.get('context_tokens') for g in js.get('groups', [])])
rc, out, err = ggmlviz('stats', '--by', 'step', trace)
ok(rc == 0 and 'CONTEXT' in out.splitlines()[1] and
   out.splitlines()[3].split()[-1] == str(before[1]), 'stats --by step: a CONTEXT column', out[:400])

# ---- bytes moved: OP_BYTES ----
# a generated token's MUL_MATs read the model's matmul weights (make_tiny_llama's:
# 3 layers of 256 wide, 2 of 4 heads for K and V, 688 ffn; the output 512 x 256;
# all f32), plus their small activations
E, KV, FF, VOCAB, LAYERS = 256, 128, 688, 512, 3
weights = 4 * (LAYERS * (2 * E * E + 2 * E * KV + 3 * E * FF) + E * VOCAB)


def matmul_bytes(recs):
    """Each step's MUL_MAT bytes read (by step number), and all their bytes moved."""
    op_of, step_no, read, moved = {}, 0, {}, 0
    for r in recs:
        if r['type'] == 'STEP_BEGIN':
            step_no += 1
        elif r['type'] == 'OP_COMPUTE_BEGIN':
            op_of[(r['tid'], r['tensor'])] = r.get('op')
        elif r['type'] == 'OP_BYTES' and op_of.get((r['tid'], r['tensor'])) == 'MUL_MAT':
            read[step_no] = read.get(step_no, 0) + r['bytes_read']
            moved += r['bytes_read'] + r['bytes_written']
    return read, moved


mm_read, mm_bytes = matmul_bytes(records)
gen_read = [mm_read.get(i + 1, 0) for i, s in enumerate(steps) if s[3] == 2]
ok(gen_read and all(weights <= b <= weights * 1.03 for b in gen_read),
   'OP_BYTES: a generated token\'s MUL_MATs read the model\'s matmul weights (within 3%)',
   '%s against %d' % (gen_read[:4], weights))
rc, out, err = ggmlviz('stats', '-f', 'json', trace)
js = json.loads(out) if rc == 0 else {}
mm = [g for g in js.get('groups', []) if g['name'] == 'MUL_MAT']
ok(mm and mm[0]['bytes'] == mm_bytes and mm[0]['gbps'] and
   abs(mm[0]['gbps'] - mm_bytes / mm[0]['total_ns']) < 1e-6 * mm[0]['gbps'],
   'stats: MUL_MAT\'s bytes are its records\' and its GB/s their bytes over its time',
   '%s against %d' % (mm[:1], mm_bytes))
rc, out, err = ggmlviz('stats', trace)
ok(rc == 0 and 'GB/S' in out.splitlines()[1], 'stats: a GB/S column beside GFLOP/S', out[:300])

# ---- the ops that began a CPU run (OP_NODE flag 2): one a timed run, said by stats ----
flagged = sum(1 for r in records if r['type'] == 'OP_NODE' and r.get('flags', 0) & 2)
timed_runs = sum(1 for r in records if r['type'] == 'SPLIT_END' and r.get('n_timed', 0) > 0)
ok(flagged == timed_runs > 0, 'OP_NODE: the first op of each timed run says it began the run',
   '%d flagged, %d runs' % (flagged, timed_runs))
rc, out, err = ggmlviz('stats', '-f', 'json', trace)
js = json.loads(out) if rc == 0 else {}
ok(sum(g.get('run_start_ops', 0) for g in js.get('groups', [])) == flagged,
   'stats: each group\'s ops that began a run', [(g['name'], g.get('run_start_ops'))
                                                   for g in js.get('groups', [])][:5])
rc, out, err = ggmlviz('stats', '--raw-ticks', trace)
ok(rc == 0 and '%d ops began a CPU run' % flagged in out and 'waited for at GGML\'s barrier' in out,
   'stats --raw-ticks: says what the first op of a run and the op after a barrier hold', out[-900:])
rc, out, err = ggmlviz('stats', trace)
ok(rc == 0 and '((run start): in each of %d CPU runs' % flagged in out and
   'moved back to the op that caused them' in out and '\n(run start) ' in out,
   'stats: the runs\' start is a line of its own, and says how the waits were read', out[-1200:])

# ---- several sequences in one batch, as llama-server decodes its requests ----
seq_trace = os.path.join(TMP, 'seqs.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', '3', '--sequences', '2', '--output', seq_trace,
                   '--prompt', PROMPT_WORDS)
rc2, out, err2 = ggmlviz('stats', '--by', 'sequence', '-f', 'json', seq_trace)
js = json.loads(out) if rc == 0 and rc2 == 0 else {}
groups = js.get('groups', [])
rcs, steps_out, _ = ggmlviz('stats', '--by', 'step', '-f', 'json', seq_trace)
step_js = json.loads(steps_out) if rcs == 0 else {}
prompt_tokens = [g.get('prompt_tokens') for g in groups]
ok(len(groups) == 2 and prompt_tokens[0] == prompt_tokens[1] + 1 and
   all(g['generated_tokens'] == 3 and g['steps'] == 4 for g in groups),
   'stats --by sequence: two requests, each its prompt and its 3 generated tokens', groups)
ok(groups and abs(sum(g['ns'] for g in groups) - step_js.get('step_ns', -1)) < 1e-6 * step_js.get('step_ns', 1)
   and [g.get('sequences') for g in step_js.get('groups', [])] == [2] * 4,
   'stats --by sequence: the steps\' time shared among the requests, nothing lost',
   (sum(g['ns'] for g in groups), step_js.get('step_ns')))

page = os.path.join(TMP, 'seqs.html')
rc, out, err = ggmlviz('report', seq_trace, '-o', page)
data = {}
if rc == 0:
    text = open(page, encoding='utf-8').read()
    data = json.loads(text.split('<script id="data" type="application/json">', 1)[1]
                      .split('</script>', 1)[0])
ok((data.get('by_sequence') or {}).get('groups') == groups,
   'report: the requests, as stats --by sequence gives them', data.get('by_sequence'))

# ---- report --steps: a page of some steps only ----
def page_data(path):
    text = open(path, encoding='utf-8').read()
    return json.loads(text.split('<script id="data" type="application/json">', 1)[1]
                      .split('</script>', 1)[0])


page = os.path.join(TMP, 'steps.html')
rc, out, err = ggmlviz('report', '--steps', '2-3', trace, '-o', page)
data = page_data(page) if rc == 0 else {}
rc2, out2, _ = ggmlviz('stats', '-f', 'json', '--steps', '2-3', trace)
want = json.loads(out2) if rc2 == 0 else {}
keys = ('name', 'count', 'total_ns', 'min_ns', 'p50_ns', 'p95_ns', 'max_ns')
table = lambda js: [[g[k] for k in keys] for g in js.get('groups', [])]
ok(rc == 0 and table(want) and table(data.get('by_op', {})) == table(want),
   "report --steps 2-3: the op table is stats --steps 2-3's", (rc, err))
ok([g['name'] for g in data.get('by_step', {}).get('groups', [])] == ['2', '3'] and
   data.get('summary', {}).get('steps') == [2, 3],
   'report --steps 2-3: the steps table has steps 2 and 3, and the page says which',
   data.get('summary'))
# the timeline: from step 2's begin to step 3's end, as the records have them
t0, t1 = steps[1][0], steps[2][1]
in_steps = sum(1 for o in ops if o[2] in (1, 2) and steps[o[2]][0] <= o[0] <= steps[o[2]][1])
summ = data.get('summary', {})
ok(summ.get('t0_ns') == t0 and summ.get('span_ns') == t1 - t0 and data['slices'] and
   all(sl[3] + sl[4] >= 0 and sl[3] <= t1 - t0 for sl in data['slices']),
   'report --steps 2-3: the timeline spans those steps, every slice overlaps them',
   (summ.get('t0_ns'), summ.get('span_ns'), t0, t1 - t0))
ok(data.get('by_op', {}).get('ops') == in_steps > 0,
   'report --steps 2-3: its ops are those the records put in steps 2 and 3',
   (data.get('by_op', {}).get('ops'), in_steps))
# memory: what was live when step 2 began stays drawn (allocated before it)
live = {}
for r in records:
    if r['ts'] > t1:
        break
    if r['type'] == 'TENSOR_ALLOC':
        live[r['ptr']] = r['size']
    elif r['type'] == 'TENSOR_FREE':
        live.pop(r['ptr'], None)
memory = data.get('memory') or {}
ok(live and memory.get('end') == sum(live.values()) and
   memory.get('max_per_bin', [0])[0] == sum(live.values()),
   'report --steps 2-3: memory as it was live then (the buffers allocated before step 2)',
   (memory.get('end'), memory.get('max_per_bin', [None])[:2], sum(live.values())))
ok(data.get('by_sequence') is None and data.get('by_request') is None,
   "report --steps 2-3: the requests' tables, of the whole trace, left out")
rc, out, err = ggmlviz('report', '--steps', '99-', trace, '-o', page + '.2')
ok(rc == 2 and 'has steps 1 to %d' % len(steps) in err and not os.path.exists(page + '.2'),
   'report --steps past the last step: refused, with the steps the trace has', (rc, err))
rc, out, err = ggmlviz('report', '--steps', '3-2', trace, '-o', page + '.2')
ok(rc == 2 and "'3-2'" in err and not os.path.exists(page + '.2'),
   'report --steps 3-2: refused, naming the value', (rc, err))
# export --steps: the viewers' file of those steps' time, as --from/--to would cut it
chrome = os.path.join(TMP, 'steps.json')
rc, out, err = ggmlviz('export', '--steps', '2-3', trace, '-o', chrome)
events = json.load(open(chrome))['traceEvents'] if rc == 0 else []
start = json.load(open(chrome))['otherData']['start_ts_ns'] if rc == 0 else 0
slices = [e for e in events if e.get('ph') == 'X']
decodes = sorted(e['name'] for e in slices if e['name'].startswith('decode'))
lo, hi = (t0 - start) / 1e3, (t1 - start) / 1e3
ok(rc == 0 and len(decodes) == 2 and slices and
   all(e['ts'] <= hi + 1e-3 and e['ts'] + e['dur'] >= lo - 1e-3 for e in slices),
   'export --steps 2-3: two steps, every slice in their time', (rc, err, decodes))
rc2, out, err2 = ggmlviz('export', '--from', '%dns' % (t0 - start), '--to', '%dns' % (t1 - start),
                         trace, '-o', chrome + '.2')
same = rc2 == 0 and [e for e in json.load(open(chrome + '.2'))['traceEvents'] if e.get('ph') == 'X'] == slices
ok(same, "export --steps 2-3: the same slices as --from and --to at those steps' begin and end",
   (rc2, err2))
rc, out, err = run('sh', '-c', 'cat "$1" | "$2" export --steps 2-3 /dev/stdin -o "$3"', 'sh', trace,
                   G, chrome + '.4')
piped = json.load(open(chrome + '.4'))['traceEvents'] if rc == 0 else None
ok(piped is not None and [e for e in piped if e.get('ph') == 'X'] == slices,
   'export --steps 2-3 of a pipe: the same slices as of the file (the pipe read twice)', (rc, err))
for args, what in ((['--steps', '99'], 'has steps 1 to %d' % len(steps)),
                   (['--steps', '2', '--from', '1ms'], 'not both'),
                   (['-f', 'csv', '--steps', '2'], 'are for --format chrome')):
    rc, out, err = ggmlviz('export', *args, trace, '-o', chrome + '.3')
    ok(rc == 2 and what in err and not os.path.exists(chrome + '.3'),
       'export %s: refused (%s)' % (' '.join(args), what), (rc, err))

# ---- a quantized model: MUL_MATs read its quantized weights ----
q8 = os.path.join(TMP, 'tiny-q8.gguf')
q8_trace = os.path.join(TMP, 'q8.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), q8, '--layers', '3',
                   '--type', 'q8_0')
rc2, out2, err2 = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', q8, '--generate', '2',
                      '--output', q8_trace, '--prompt', PROMPT_WORDS)
ok(rc == 0 and rc2 == 0 and 'q8_0' in out, 'make_tiny_llama --type q8_0: a model libllama runs',
   err + err2)
# q8_0 is 34 bytes a block of 32; ffn_down's rows (688) are not whole blocks: f16
q8_bytes = lambda n: n // 32 * 34
mm = LAYERS * (q8_bytes(2 * E * E + 2 * E * KV + 2 * E * FF) + 2 * FF * E) + q8_bytes(E * VOCAB)
rc, out, err = ggmlviz('dump', '-f', 'jsonl', q8_trace)
read, _ = matmul_bytes([json.loads(line) for line in out.splitlines()] if rc == 0 else [])
ok(read.get(2) and mm <= read[2] <= mm * 1.05,
   'a generated token\'s MUL_MATs read the quantized weights (q8_0, and f16 where blocks do not fit)',
   '%s against %d' % (read, mm))

# ---- the machine's peak (GGML_VIZ_PEAK) and what bounds each op ----
peak_trace = os.path.join(TMP, 'peak.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', '2', '--threads', '2', '--output', peak_trace,
                   env=dict(os.environ, GGML_VIZ_PEAK='2'))
rc, out, err = ggmlviz('stats', '-f', 'json', peak_trace)
js = json.loads(out) if rc == 0 else {}
pk = js.get('peak') or {}
ok(pk.get('threads') == 2 and pk.get('bytes_per_s', 0) > 1e8 and pk.get('flop_per_s', 0) > 1e8,
   'GGML_VIZ_PEAK=2: the trace holds the machine\'s peak, measured with 2 threads', pk)
bad = []
for g in js.get('groups', []):
    if not g.get('bytes') or g.get('gflops') is None or g.get('gbps') is None:
        continue
    memory = g['flops'] / g['bytes'] < pk['flop_per_s'] / pk['bytes_per_s']
    share = g['gbps'] * 1e9 / pk['bytes_per_s'] if memory else g['gflops'] * 1e9 / pk['flop_per_s']
    if g.get('bound') != ('memory' if memory else 'compute') or \
            abs(g.get('peak_share', -1) - share) > 1e-6 * max(share, 1e-9):
        bad.append((g['name'], g.get('bound'), g.get('peak_share'), share))
ok(js.get('groups') and not bad, 'stats: each op group\'s bound and share of the peak, by the roofline',
   bad[:4])
rc, out, err = ggmlviz('stats', '--by', 'kernel', peak_trace)
ok(rc == 0 and 'no GPU kernels in this trace' in out and '(BOUND:' not in out,
   'stats --by kernel on a CPU trace: no BOUND note under a table without a BOUND column', out)
rc, out, err = ggmlviz('info', peak_trace)
meta = [l for l in out.splitlines() if l.strip().startswith('META ')]
ok(rc == 0 and meta and 'PEAK 1' in meta[0] and 'other' not in meta[0],
   'info names the META PEAK record among the META kinds', meta)
rc, out, err = ggmlviz('stats', peak_trace)
ok(rc == 0 and out.splitlines()[1].rstrip().endswith('BOUND') and 'the machine\'s peak' in out,
   'stats: a BOUND column, and what the peak is under the table', out[:600])

# a trace on a pipe reads as the same file would: the peak, the estimate, the report's too
rc, out, err = run('sh', '-c', 'cat "$1" | "$2" stats -f json /dev/stdin', 'sh', peak_trace, G)
piped = json.loads(out) if rc == 0 else {}
ok(piped.get('peak') == js.get('peak') and piped.get('groups') == js.get('groups') and
   (piped.get('ticks') or {}).get('estimated') is True,
   'stats of a pipe: the peak (BOUND) and the estimated op times, as from the file',
   (rc, err, piped.get('peak'), (piped.get('ticks') or {}).get('estimated')))
page = os.path.join(TMP, 'piped.html')
rc, out, err = run('sh', '-c', 'cat "$1" | "$2" report -o "$3" /dev/stdin', 'sh', peak_trace, G, page)
html = open(page).read() if rc == 0 and os.path.exists(page) else ''
ok('"peak":null' not in html and '"estimated":true' in html and '"by_sequence":{' in html,
   'report of a pipe: the peak, the estimate and the sequences, as from the file', (rc, err))

# ---- one of a kind, said so: "1 step (1 token)" ----
one = os.path.join(TMP, 'one.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', '1', '--threads', '2', '--output', one)
rc1, stats_out, _ = ggmlviz('stats', '--phase', 'generation', one)
rc2, info_out, _ = ggmlviz('info', one)
rc3, _, _ = ggmlviz('export', one, '-o', one + '.json')
names = [e.get('name') for e in json.load(open(one + '.json'))['traceEvents']] if rc3 == 0 else []
ok(rc == rc1 == rc2 == 0 and ' in 1 step (1 token); 1 run\'s start;' in stats_out and
   'generation  1 step, 1 token,' in info_out and 'decode 2 (1 token)' in names,
   'one step of one token is said "1 step (1 token)" by stats, info and export',
   stats_out[:200] + info_out[-400:])

# ---- stats --by method ----
rc, out, err = ggmlviz('stats', '--by', 'method', '-f', 'json', trace)
js = json.loads(out) if rc == 0 else {}
ok([g['name'] for g in js.get('groups', [])] == ['tick', '(run start)'] and
   all(o[4] == 2 for o in ops) and js['groups'][0]['count'] == len(ops),
   'stats --by method: every op timed from the ticks, the runs\' starts apart', out[:300])
splits = js.get('splits', [])
ok(len(splits) == 1 and splits[0]['backend'] == 'CPU' and splits[0]['mismatched'] == 0 and
   splits[0]['timed'] == len(ops), 'stats json: the CPU splits, every op timed, none mismatched',
   splits)

# ---- info ----
rc, out, err = ggmlviz('info', trace)
ok(rc == 0 and ('steps:      %d (%d tokens)' % (len(steps), sum(s[2] for s in steps))) in out,
   'info: steps and tokens', out[-800:])
ok('%d from the backend\'s ticks' % len(ops) in out, 'info: how the ops were timed', out[-600:])

# ---- export: ops inside their step ----
rc, out, err = ggmlviz('export', trace, '-o', '-')
ex = json.loads(out) if rc == 0 else {'traceEvents': []}
xs = [e for e in ex['traceEvents'] if e.get('ph') == 'X']
step_x = {e['args']['step']: e for e in xs if e.get('cat') == 'step'}
op_x = [e for e in xs if e.get('cat') == 'op' and e['name'] != '(run start)']
start_x = [e for e in xs if e.get('cat') == 'op' and e['name'] == '(run start)']
ok(len(step_x) == len(steps) and len(op_x) == len(ops), 'export: every step and op is a slice',
   '%d steps, %d ops' % (len(step_x), len(op_x)))
ok(len(start_x) == flagged and all(e['args'].get('estimated') == 1 for e in start_x),
   'export: each CPU run\'s start is a slice of its own, said estimated', len(start_x))
outside = [e for e in op_x if e['args'].get('step') not in step_x or
           e['ts'] < step_x[e['args']['step']]['ts'] - 0.0005 or
           e['ts'] + e['dur'] > step_x[e['args']['step']]['ts'] + step_x[e['args']['step']]['dur']
           + 0.0005]
ok(not outside, 'export: every op slice lies inside its step\'s', outside[:2])
ok(all(e['args'].get('timed_by') == 'tick' for e in op_x), 'export: ops say how they were timed')
# a viewer adds ts and dur in doubles (speedscope, chrome://tracing): no slice may then
# end past the start of a slice of its thread that begins inside it and ends after it
by_thread = {}
for e in xs:
    by_thread.setdefault((e['pid'], e['tid']), []).append(e)
crossed = []
for slices in by_thread.values():
    slices.sort(key=lambda e: (e['ts'], -e['dur']))
    open_ends = []  # the ends of the slices that enclose the current one
    for e in slices:
        while open_ends and open_ends[-1] <= e['ts']:
            open_ends.pop()
        if open_ends and e['ts'] + e['dur'] > open_ends[-1]:
            crossed.append(e['name'])
        open_ends.append(e['ts'] + e['dur'])
ok(not crossed, 'export: summed in doubles, every slice ends before the next begins or inside its parent',
   crossed[:5])

# ---- export --format perfetto: the same slices, nested the same, read as Perfetto reads ----
pf = os.path.join(TMP, 'trace.pftrace')
rc, out, err = ggmlviz('export', '--format', 'perfetto', trace, '-o', pf)
if not perfetto.have_protoc():
    skip('export --format perfetto', 'protoc is missing (apt-get install protobuf-compiler)')
else:
    packets, why = perfetto.decode(pf) if rc == 0 else (None, err)
    ok(packets, 'export --format perfetto: protoc decodes it against Perfetto\'s schema', why)
    pslices, ptracks, pcounters, perrors = perfetto.slices(packets or [])
    ok(packets and not perrors, 'export --format perfetto: every name, track and slice end '
       'defined before use, every slice ended', perrors[:5])
    tid_of = {u: perfetto.one(perfetto.one(d, 'thread', {}), 'tid') for u, d in ptracks.items()}
    want_depth = perfetto.json_depths(ex['traceEvents'])
    got_depth = {(tid_of[s['track']], s['ts'], s['name']): s['depth']
                 for s in pslices if not s['instant']}
    ok(got_depth and got_depth == want_depth, 'export --format perfetto: every slice of the JSON '
       'export, at the same nanosecond and nested the same', (len(got_depth), len(want_depth)))
    pops = [s for s in pslices if s['category'] == 'op' and s['name'] != '(run start)']
    jops = {(round(e['ts'] * 1000), e['name']): e['args'] for e in op_x}
    runs_p = [s for s in pslices if s['category'] == 'split']

    def run_of(op):  # the run slice around an op, on its track
        return next((r for r in runs_p if r['track'] == op['track'] and r['ts'] <= op['ts']
                     and op['end'] <= r['end']), {'args': {}})

    # backend and timed_by: the op's own, or (timed by its run's ticks) its run's
    bad = [s for s in pops if any(
        s['args'].get(k, run_of(s)['args'].get(k)) != jops.get((s['ts'], s['name']), {}).get(k)
        for k in ('tensor', 'layer', 'timed_by', 'type', 'flops', 'backend'))]
    ok(len(pops) == len(op_x) and not bad, 'export --format perfetto: each op\'s args as the '
       'JSON\'s (backend and timed_by said once by the run around it)', bad[:2])
    rc_j, jout, _ = ggmlviz('export', trace, '-o', '-')
    json_size = len(jout.encode()) if rc_j == 0 else 0
    ratio = json_size / max(os.path.getsize(pf), 1)
    # a small trace: its interned strings weigh more (3.26x on 2.8 M records, README)
    ok(ratio >= 2.75, 'export --format perfetto: %.2fx smaller than the JSON' % ratio,
       (json_size, os.path.getsize(pf)))
    tps = [c for c in pcounters if c[0] == 'tokens/s']
    ok(len(tps) == len(steps) and all(c[2] > 0 for c in tps),
       'export --format perfetto: a tokens/s counter per step', tps[:3])
    about = [s for s in pslices if s['name'] == 'ggmlviz export']
    ok(about and about[0]['args'].get('complete') == 1 and
       about[0]['args'].get('start_ts_ns') == ex['otherData']['start_ts_ns'],
       'export --format perfetto: says where the trace starts and that it is complete',
       about[:1])
    cut = os.path.join(TMP, 'cut.ggmlviz')
    with open(trace, 'rb') as f, open(cut, 'wb') as g:
        g.write(f.read()[:os.path.getsize(trace) // 2])
    rc, out, err = ggmlviz('export', '--format', 'perfetto', cut, '-o', pf)
    packets, why = perfetto.decode(pf)
    cslices, _, _, cerrors = perfetto.slices(packets or [])
    cabout = [s for s in cslices if s['name'] == 'ggmlviz export']
    ok(rc == 1 and packets and not cerrors and cabout and cabout[0]['args'].get('complete') == 0
       and 'damage' in cabout[0]['args'] and 0 < len(cslices) < len(pslices),
       'export --format perfetto: a cut trace exported up to the cut, the damage said',
       (rc, err, why, cerrors[:2]))

# ---- tables for SQL engines: sqlite, csv, jsonl-ops ----
db = os.path.join(TMP, 'trace.db')
rc, out, err = ggmlviz('export', '--format', 'sqlite', trace, '-o', db)
has_sqlite = 'without SQLite' not in err
if rc == 0 and has_sqlite:
    import sqlite3
    con = sqlite3.connect(db)
    bad = []
    queries = {
        'op': 'SELECT op, COUNT(*), SUM(duration_ns) FROM ops GROUP BY op',
        'layer': "SELECT COALESCE(CAST(layer AS TEXT), '(none)'), COUNT(*), SUM(duration_ns) "
                 'FROM ops GROUP BY layer',
        'step': 'SELECT CAST(step AS TEXT), COUNT(*), SUM(duration_ns) FROM ops GROUP BY step',
        'phase': 'SELECT phase, COUNT(*), SUM(duration_ns) FROM ops GROUP BY phase',
    }
    for by, q in queries.items():
        rc2, out2, _ = ggmlviz('stats', '--raw-ticks', '--by', by, '-f', 'json', trace)
        want = {g['name']: (g['count'], g['total_ns']) for g in json.loads(out2)['groups']
                if g['count']} if rc2 == 0 else {}
        got = {str(n): (c, s) for n, c, s in con.execute(q)}
        if got != want:
            bad.append((by, sorted(got.items())[:3], sorted(want.items())[:3]))
    ok(not bad, 'export --format sqlite: SQL sums by op, layer, step and phase are stats\' '
       'number for number', bad)
    rc2, out2, _ = ggmlviz('stats', '--by', 'step', '-f', 'json', trace)
    want = {g['name']: g['total_ns'] for g in json.loads(out2)['groups']} if rc2 == 0 else {}
    got = {str(n): s for n, c, s in con.execute(queries['step'])}
    ok(want and all(got.get(k, 0) == v or (k not in got and v == 0) for k, v in want.items()),
       'export --format sqlite: a step\'s SQL sum is plain stats --by step\'s too (the '
       'estimates move time within a run)', (sorted(got.items())[:3], sorted(want.items())[:3]))
    # plain stats (the estimate): compute_ns, and the runs' starts as rows of their own
    est_queries = {
        'op': 'SELECT op, COUNT(*), SUM(compute_ns) FROM ops GROUP BY op '
              "UNION ALL SELECT '(run start)', COUNT(*), SUM(duration_ns) FROM run_starts",
        'layer': "SELECT COALESCE(CAST(layer AS TEXT), '(none)'), COUNT(*), SUM(compute_ns) "
                 'FROM ops GROUP BY layer '
                 "UNION ALL SELECT '(run start)', COUNT(*), SUM(duration_ns) FROM run_starts",
    }
    bad = []
    for by, q in est_queries.items():
        rc2, out2, _ = ggmlviz('stats', '--by', by, '-f', 'json', trace)
        js2 = json.loads(out2) if rc2 == 0 else {'groups': [], 'ticks': {}}
        want = {g['name']: (g['count'], g['total_ns']) for g in js2['groups'] if g['count']}
        got = {str(n): (c, s) for n, c, s in con.execute(q) if c}
        if not js2['ticks'].get('estimated') or got != want:
            bad.append((by, sorted(set(got.items()) ^ set(want.items()))[:4]))
    ok(not bad, 'export --format sqlite: compute_ns summed by op and by layer, with the '
       'run_starts table, is plain stats (the estimate) to the ns', bad)
    moved = con.execute('SELECT SUM(wait_moved_ns), SUM(above_floor_ns), '
                        'SUM(compute_ns) - SUM(duration_ns) FROM ops').fetchone()
    starts = con.execute('SELECT SUM(duration_ns) FROM run_starts').fetchone()[0] or 0
    ticks = json.loads(ggmlviz('stats', '-f', 'json', trace)[1])['ticks']
    ok(moved[0] == ticks.get('wait_ns_moved') and moved[1] == ticks.get('above_floor_ns') and
       moved[2] == -starts,
       'export --format sqlite: the waits moved and the time above the floors are stats\', and '
       'the ops lose to the runs\' starts just what those hold', (moved, starts, ticks))
    rc2, out2, err2 = ggmlviz('export', '-f', 'jsonl-ops', '--raw-ticks', trace, '-o', '-')
    raw_rows = [json.loads(line) for line in out2.splitlines()] if rc2 == 0 else []
    rc3, out3, _ = ggmlviz('export', '-f', 'csv', '--table', 'run_starts', '--raw-ticks', trace, '-o', '-')
    ok(raw_rows and all(r['compute_ns'] == r['duration_ns'] and r['wait_moved_ns'] == 0
                        for r in raw_rows) and rc3 == 0 and len(out3.splitlines()) == 1,
       'export --raw-ticks to tables: compute_ns as ticked, and no run_starts rows',
       (rc2, err2, raw_rows[:1], out3[:300]))
    steps_db = [r[0] for r in con.execute('SELECT tokens FROM steps ORDER BY step')]
    ok(steps_db == [s[2] for s in steps], 'export --format sqlite: a row a step, with its tokens',
       steps_db)
    indexes = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='index'")}
    ok({'idx_ops_op', 'idx_ops_layer', 'idx_ops_step', 'idx_ops_phase'} <= indexes,
       'export --format sqlite: indexes on what people filter by', indexes)
    con.close()
    again = os.path.join(TMP, 'again.ggmlviz')  # a second trace, by its name
    shutil.copyfile(trace, again)
    rc0, _, err0 = ggmlviz('export', '--format', 'sqlite', again, '-o', db)
    rc, out, err = ggmlviz('export', '--format', 'sqlite', '--append', again, '-o', db)
    con = sqlite3.connect(db)
    per_trace = dict(con.execute('SELECT trace, COUNT(*) FROM ops GROUP BY trace'))
    con.close()
    ok(rc0 == 2 and 'exists' in err0 and rc == 0 and
       per_trace == {os.path.basename(trace): len(ops), 'again.ggmlviz': len(ops)},
       'export --format sqlite: a database that exists is refused, --append adds a second '
       'trace, told apart', (rc0, err0, rc, err, per_trace))
    rc, out, err = ggmlviz('export', '--format', 'sqlite', '--append', again, '-o', db)
    con = sqlite3.connect(db)
    per_trace2 = dict(con.execute('SELECT trace, COUNT(*) FROM ops GROUP BY trace'))
    con.close()
    ok(rc == 1 and 'already holds' in err and 'again.ggmlviz' in err and per_trace2 == per_trace,
       'export --format sqlite --append: the same trace twice is refused, nothing added',
       (rc, err, per_trace2))
    rc, out, err = ggmlviz('export', '--format', 'sqlite', '--force', again, '-o', db)
    con = sqlite3.connect(db)
    per_trace3 = dict(con.execute('SELECT trace, COUNT(*) FROM ops GROUP BY trace'))
    con.close()
    ok(rc == 0 and per_trace3 == {'again.ggmlviz': len(ops)} and
       not [f for f in os.listdir(TMP) if f.startswith('trace.db.')],
       'export --format sqlite --force: the database replaced, no file left beside it',
       (rc, err, per_trace3))
    rc, out, err = ggmlviz('mem', '-f', 'json', trace)
    mem = json.loads(out) if rc == 0 else {}
    con = sqlite3.connect(db)
    got = dict((e, (c, b)) for e, c, b in con.execute(
        'SELECT event, COUNT(*), SUM(bytes) FROM memory GROUP BY event'))
    peak = con.execute('SELECT MAX(live_bytes) FROM memory').fetchone()[0]
    con.close()
    want = {'alloc': (mem.get('allocations'), mem.get('allocated_bytes'))}
    if mem.get('frees'):
        want['free'] = (mem['frees'], mem['freed_bytes'])
    ok(mem.get('allocations') and got == want and peak == mem['peak']['bytes'],
       'export --format sqlite: the memory table\'s allocations, frees and peak are mem\'s',
       (got, want, peak))
else:
    skip('export --format sqlite: SQL sums by op, layer, step and phase are stats\'',
         'built without SQLite')
rc, out, err = ggmlviz('export', '--format', 'csv', trace, '-o', '-')
import csv  # noqa: E402
import io  # noqa: E402
rows = list(csv.DictReader(io.StringIO(out))) if rc == 0 else []
ok(len(rows) == len(ops) and sum(int(r['duration_ns']) for r in rows) ==
   sum(g['total_ns'] for g in json.loads(ggmlviz('stats', '-f', 'json', trace)[1])['groups']),
   'export --format csv: a row an op, their time the ops\' time', len(rows))
rc, out, err = ggmlviz('export', '--format', 'jsonl-ops', '--table', 'splits', trace, '-o', '-')
splits_rows = [json.loads(line) for line in out.splitlines()] if rc == 0 else []
ok(splits_rows and all(r['backend'] == 'CPU' and r['timed'] > 0 for r in splits_rows),
   'export --format jsonl-ops --table splits: each run, its backend and its timed nodes',
   splits_rows[:2])
refused = []
for args in (['--table', 'ops'], ['--force'], ['-f', 'csv', '--append'],
             ['-f', 'sqlite', '--append', '--force'], ['-f', 'sqlite', '--append'],
             ['-f', 'csv', '--from', '1ms'], ['-f', 'csv', '--no-args'],
             ['-f', 'jsonl-ops', '--anonymize'], ['-f', 'sqlite', '--table', 'ops'],
             ['-f', 'sqlite', '-o', '-']):
    out_arg = [] if '-o' in args else ['-o', os.path.join(TMP, 'refused.out')]
    rc, out, err = ggmlviz('export', *args, trace, *out_arg)
    if rc != 2 or 'ggmlviz export: ' not in err or os.path.exists(os.path.join(TMP, 'refused.out')):
        refused.append((args, rc, err.strip()))
ok(not refused, 'export: an option the format does not take is refused (exit 2), not ignored',
   refused)
csv_out = os.path.join(TMP, 'steps.csv')
rc0, _, _ = ggmlviz('export', '-f', 'csv', '--table', 'steps', trace, '-o', csv_out)
rc1, _, err1 = ggmlviz('export', '-f', 'csv', '--table', 'memory', trace, '-o', csv_out)
kept = open(csv_out).readline() if os.path.exists(csv_out) else ''
rc2, _, _ = ggmlviz('export', '-f', 'csv', '--table', 'memory', '--force', trace, '-o', csv_out)
replaced = open(csv_out).readline() if os.path.exists(csv_out) else ''
ok(rc0 == 0 and rc1 == 2 and 'steps.csv exists' in err1 and kept.startswith('trace,pid,thread,step,label')
   and rc2 == 0 and replaced.startswith('trace,pid,thread,ts_ns,event'),
   'export --format csv: an output that exists is kept unless --force', (rc0, rc1, err1, kept, replaced))


def small_disk():
    """A disk that fills at 8 KiB: writes past it fail (EFBIG), as on a full disk."""
    import resource
    import signal
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (8192, 8192))


import subprocess  # noqa: E402
left = []
for fmt in ('sqlite', 'csv'):
    if fmt == 'sqlite' and not has_sqlite:
        continue
    full = os.path.join(TMP, 'full-disk.' + fmt)
    p = subprocess.run([G, 'export', '-f', fmt, trace, '-o', full], preexec_fn=small_disk,
                       capture_output=True, text=True)
    stray = [f for f in os.listdir(TMP) if f.startswith('full-disk')]
    if p.returncode != 1 or 'full-disk.' + fmt not in p.stderr or stray:
        left.append((fmt, p.returncode, p.stderr.strip(), stray))
ok(not left, 'export --format sqlite|csv: a full disk is said, naming the output, and nothing is '
   'left behind', left)
not_db = os.path.join(TMP, 'not-a.db')
with open(not_db, 'w') as f:
    f.write('notes, not a database\n')
rc, out, err = ggmlviz('export', '-f', 'sqlite', '--append', trace, '-o', not_db)
ok(not has_sqlite or rc == 1 and 'not-a.db' in err and 'not a database' in err and
   open(not_db).read() == 'notes, not a database\n',
   'export --format sqlite: a file that is not a database is named and left as it was',
   (rc, err))
if has_sqlite:
    import sqlite3
    old_db = os.path.join(TMP, 'older.db')  # a database an older ggmlviz made: fewer columns
    con = sqlite3.connect(old_db)
    con.execute('CREATE TABLE ops(trace TEXT, pid INTEGER)')
    con.commit()
    con.close()
    rc, out, err = ggmlviz('export', '-f', 'sqlite', '--append', trace, '-o', old_db)
    con = sqlite3.connect(old_db)
    rows = con.execute('SELECT COUNT(*) FROM ops').fetchone()[0]
    con.close()
    ok(rc == 1 and 'older.db' in err and 'another ggmlviz' in err and rows == 0,
       'export --format sqlite --append: a database of other columns is named and said, '
       'nothing added', (rc, err, rows))

# ---- export --format otlp: each step a span, checked against OpenTelemetry's definitions ----
import otlplib  # noqa: E402
otlp = os.path.join(TMP, 'trace.otlp.jsonl')
rc, out, err = ggmlviz('export', '-f', 'otlp', trace, '-o', otlp)
sp = otlplib.spans(otlp) if rc == 0 else []
roots = [s for s in sp if 'parentSpanId' not in s]
step_spans = [s for s in sp if 'ggmlviz.step' in otlplib.attrs(s)]
rc2, out2, _ = ggmlviz('stats', '--by', 'step', '-f', 'json', trace)
want = {g['name']: g['total_ns'] for g in json.loads(out2)['groups']} if rc2 == 0 else {}
got = {str(otlplib.attrs(s)['ggmlviz.step']): otlplib.attrs(s)['ggmlviz.step.op_ns'] for s in step_spans}
ok(rc == 0 and len(roots) == 1 and roots[0]['name'] == 'llama_trace' and not otlplib.tree_problems(sp) and
   all(s['parentSpanId'] == roots[0]['spanId'] and s['traceId'] == roots[0]['traceId']
       for s in step_spans) and got == want and len(step_spans) == len(steps),
   'export --format otlp: a span a step under its process\'s, each step\'s op time as stats --by '
   'step gives it', (rc, err, len(roots), sorted(set(got.items()) ^ set(want.items()))[:3]))
first = otlplib.attrs(step_spans[0]) if step_spans else {}
ops_ns = sum(v for k, v in first.items() if k.startswith('ggmlviz.op.') and k.endswith('.ns'))
ok(first.get('ggmlviz.op.MUL_MAT.count', 0) > 0 and ops_ns == first.get('ggmlviz.step.op_ns') and
   step_spans[0]['resource'].get('process.pid', 0) > 0,
   'export --format otlp: a step\'s ops summed by op type in its attributes, never a span an op',
   first)
passed, said = otlplib.check(otlp) if rc == 0 else (False, err)
if passed is None:
    skip('export --format otlp: every line an ExportTraceServiceRequest of opentelemetry-proto', said)
else:
    ok(passed, 'export --format otlp: every line an ExportTraceServiceRequest of opentelemetry-proto '
       '(tests/otlp-check.js)', said)
cut_otlp = os.path.join(TMP, 'cut-for-otlp.ggmlviz')
with open(trace, 'rb') as f, open(cut_otlp, 'wb') as g:
    g.write(f.read()[:os.path.getsize(trace) * 2 // 3 + 5])
rc, out, err = ggmlviz('export', '-f', 'otlp', cut_otlp, '-o', otlp + '.cut')
cut_spans = otlplib.spans(otlp + '.cut') if os.path.exists(otlp + '.cut') else []
ok(rc == 1 and err.count('cut-for-otlp.ggmlviz: truncated at byte') == 1 and
   0 < len([x for x in cut_spans if x['name'] == 'decode']) < len(step_spans),
   'export --format otlp of a cut trace: the steps before the cut, the damage said once',
   (rc, err, len(cut_spans)))
rc, out, err = ggmlviz('export', '-f', 'otlp', '--table', 'ops', trace, '-o', otlp + '.2')
ok(rc == 2 and '--raw-ticks only' in err and not os.path.exists(otlp + '.2'),
   'export --format otlp: an option it does not take is refused', (rc, err))

# ---- dump names every op ----
rc, out, err = ggmlviz('dump', '-t', 'op', trace)
ok(rc == 0 and out and 'op#' not in out, 'dump: every op has its name',
   [line for line in out.splitlines() if 'op#' in line][:2])

# ---- mem: the model's buffers ----
rc, out, err = ggmlviz('mem', '-f', 'json', trace)
labels = json.dumps(json.loads(out)) if rc == 0 else ''
ok('weights' in labels and 'kv_cache' in labels and 'compute' in labels,
   'mem: the weights, the KV cache and the compute buffer', out[:400])
mem = json.loads(out) if rc == 0 else {}
rc, out, err = ggmlviz('dump', '-t', 'mem', '-f', 'jsonl', trace)
recs = [json.loads(line) for line in out.splitlines()] if rc == 0 else []
allocs = {r['ptr']: r for r in recs if r['type'] == 'TENSOR_ALLOC'}
frees = {r['ptr']: r for r in recs if r['type'] == 'TENSOR_FREE'}
want = {p: ('llama_model_free' if a['label'].startswith('weights') else 'llama_free', a['size'])
        for p, a in allocs.items()}
got = {p: (f['label'], f['size']) for p, f in frees.items()}
ok(allocs and got == want and mem.get('still_allocated') == [] and
   mem.get('allocated_bytes') == mem.get('freed_bytes'),
   'mem: each backend buffer freed where the program freed its context (KV cache, compute) '
   'and its model (weights), with its size: none still allocated at the end',
   (want, got, mem.get('still_allocated')))
rc, out, err = ggmlviz('mem', trace)
ok(rc == 0 and 'still allocated at the end (largest first): none' in out and 'not leaks' not in out,
   'mem: nothing listed at the end, and no note about backend buffers', out[-600:])
# a GGML program frees its buffers where no adapter sees it: listed, and said not to be leaks
ggml_trace = os.path.join(TMP, 'ggml-mem.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'ggml_transformer'), '--steps', '2',
                   '--output', ggml_trace, env=env)
rc, out, err = ggmlviz('mem', ggml_trace) if rc == 0 else (rc, out, err)
ok(rc == 0 and 'ggmlviz_llama_free()' in out and 'does not make them leaks' in out,
   'mem: the backend buffers of a GGML program still listed at the end are said not to be leaks',
   out[-600:])

# ---- diff --phase generation: runs of different lengths compared per token ----
short = os.path.join(TMP, 'short.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', str(GENERATE // 2), '--threads', '2', '--output', short,
                   '--prompt', PROMPT_WORDS)
per_token = []
for path in (trace, short):
    rcj, outj, _ = ggmlviz('stats', '--phase', 'generation', '-f', 'json', path)
    js = json.loads(outj) if rcj == 0 else {}
    per_token.append((js.get('tokens', 0), js.get('op_ns', 0) / max(js.get('tokens', 0), 1)))
rc, out, err = ggmlviz('diff', '--phase', 'generation', trace, short)
want = ['A: %s (' % trace, 'B: %s (' % short]
lines = out.splitlines()
heads = [l for l in lines[:2] if l.startswith(('A: ', 'B: '))]
ok(rc == 0 and len(heads) == 2 and all(
    h.startswith(w) and h.endswith('; %d tokens, %s per token)' % (t, fmt_ns(e)))
    for h, w, (t, e) in zip(heads, want, per_token)),
   'diff --phase generation: each run\'s tokens and op time per token (stats\' json)',
   '%s against %s' % (heads, per_token))
change = (per_token[1][1] - per_token[0][1]) / per_token[0][1] * 100 if per_token[0][1] else 0
ok(len(lines) > 2 and lines[2] == 'op time per token: %+.1f%%' % change,
   'diff --phase generation: the change of op time per token', lines[2:3])
rc, out, err = ggmlviz('diff', trace, short)
ok(rc == 0 and 'per token' not in out, 'diff over both phases: no per-token line', out[:200])
totals = {}
for name, args in (('diff', ('diff', trace, short)), ('stats A', ('stats', trace)),
                   ('stats B', ('stats', short))):
    _, text, _ = ggmlviz(*args)
    row = [l.split() for l in text.splitlines() if l.startswith('TOTAL ')]
    totals[name] = row[0][1:3] if row and name == 'diff' else row[0][1:2] if row else None
ok(totals['diff'] and totals['diff'] == totals['stats A'] + totals['stats B'],
   'diff\'s TOTAL counts what stats\'s TOTAL counts, the runs\' starts with the ops', totals)

# ---- long runs: 1 step in N op by op, the slow ones too, the others summed by op type ----
def trace_with(name, generate, **env_vars):
    path = os.path.join(TMP, name)
    rc, _, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                     '--generate', str(generate), '--threads', '2', '--output', path,
                     '--prompt', PROMPT_WORDS, env=dict(os.environ, **env_vars))
    return path if rc == 0 else None, err


ROLL_GENERATE = 12
roll, err = trace_with('roll.ggmlviz', ROLL_GENERATE, GGML_VIZ_OP_SAMPLE='3')
rc, out, _ = ggmlviz('dump', '-f', 'jsonl', roll) if roll else (1, '', '')
rrecs = [json.loads(line) for line in out.splitlines()]
step_no, per_step = 0, {}  # step number -> {'ops': {op: n}, 'sums': {op: (n, total, max)}}
open_ops = {}
for r in rrecs:
    if r['type'] == 'STEP_BEGIN':
        step_no += 1
        per_step[step_no] = {'ops': {}, 'sums': {}, 'ns': 0, 'begin': r['ts']}
    elif r['type'] == 'STEP_END' and step_no:
        per_step[step_no]['end'] = r['ts']
    elif r['type'] == 'OP_COMPUTE_BEGIN':
        open_ops[r['tensor']] = r['ts']
    elif r['type'] == 'OP_COMPUTE_END' and step_no:
        d = per_step[step_no]['ops']
        d[r['op']] = d.get(r['op'], 0) + 1
        per_step[step_no]['ns'] += r['ts'] - open_ops.pop(r['tensor'])
    elif r['type'] == 'OP_SUMMARY' and step_no:
        per_step[step_no]['sums'][r['op']] = (r['count'], r['total_ns'], r['max_ns'])
        per_step[step_no]['ns'] += r['total_ns']
kept = [n for n, d in per_step.items() if d['ops']]
summed = [n for n, d in per_step.items() if d['sums']]
ok(roll and kept == list(range(1, len(per_step) + 1, 3)) and
   summed == [n for n in per_step if n not in kept] and
   not any(per_step[n]['ops'] and per_step[n]['sums'] for n in per_step),
   'GGML_VIZ_OP_SAMPLE=3: steps 1, 4, 7... op by op, every other step summed by op type',
   (err, kept, summed))
rc, out, _ = ggmlviz('stats', roll) if roll else (1, '', '')
rc2, out2, _ = ggmlviz('stats', '--raw-ticks', roll) if roll else (1, '', '')
ok(rc == rc2 == 0 and 'those sums are as ticked' in out and 'those sums are as ticked' not in out2
   and 'kept op by op (not those of the summed steps)' in out,
   'stats on a rolling trace says its summed ops are as ticked, the kept ones estimated',
   out[-700:])
rc, out, _ = ggmlviz('info', roll) if roll else (1, '', '')
meta = [l for l in out.splitlines() if l.strip().startswith('META ')]
ok(rc == 0 and meta and 'SAMPLE 1' in meta[0] and 'other' not in meta[0],
   'info names the META SAMPLE record among the META kinds', meta)
# a generated token's graph is the same at every step: its sums count what a kept one ran
shape = per_step[kept[-1]]['ops'] if kept else {}
ok(summed and all({op: c[0] for op, c in per_step[n]['sums'].items()} == shape for n in summed)
   and all(0 < m <= t for n in summed for _, t, m in per_step[n]['sums'].values()),
   'OP_SUMMARY: each summed step counts every op a kept step ran, by op type; longest <= total',
   (shape, per_step[summed[0]]['sums'] if summed else None))
# the writer made the sums nanoseconds (the tracer holds clock ticks): they fit in their step
ok(summed and all(0 < per_step[n]['ns'] <= per_step[n]['end'] - per_step[n]['begin']
                  for n in summed),
   'OP_SUMMARY: a step\'s summed op time, in ns, within the step\'s own time',
   [(per_step[n]['ns'], per_step[n]['end'] - per_step[n]['begin']) for n in summed[:3]])
rc, out, _ = ggmlviz('info', roll)
ok(rc == 0 and 'sampling:   1 step in 3 op by op; the others\' CPU ops summed by op type' in out
   and '%d steps summed' % len(summed) in out, 'info: how ops were sampled, how many steps summed',
   out[-700:])
rc, out, _ = ggmlviz('stats', '--by', 'step', '-f', 'json', roll)
groups = {int(g['name']): g for g in json.loads(out)['groups']} if rc == 0 else {}
ok(groups and all(groups[n]['count'] == sum(d['ops'].values()) + sum(c[0] for c in d['sums'].values())
                  and groups[n]['total_ns'] == d['ns'] for n, d in per_step.items()),
   'stats --by step: every step\'s ops and op time, summed or not, as the records say',
   [(n, groups.get(n, {}).get('count')) for n in list(per_step)[:4]])
ok(groups and all((groups[n]['min_ns'] is None) == (n in summed) and
                  (groups[n]['p50_ns'] is None) == (n in summed) for n in per_step),
   'stats --by step: a summed step has no min, p50 or p95 (null), a kept one has them',
   [(n, groups.get(n, {}).get('min_ns')) for n in list(per_step)[:4]])
rc, out, _ = ggmlviz('stats', '--by', 'op', '-f', 'json', roll)
sj = json.loads(out) if rc == 0 else {}
want = {}
for d in per_step.values():
    for op, c in d['ops'].items():
        want[op] = want.get(op, 0) + c
    for op, c in d['sums'].items():
        want[op] = want.get(op, 0) + c[0]
ok(sj and {g['name']: g['count'] for g in sj['groups'] if g['name'] != '(run start)'} == want and
   sj['summed_ops'] == sum(c[0] for d in per_step.values() for c in d['sums'].values()),
   'stats --by op: the summed ops in their op\'s COUNT, and said in JSON', sj.get('summed_ops'))
rc, out, _ = ggmlviz('stats', roll)
ok(rc == 0 and 'known by their sums per op type' in out and 'MIN, P50 and P95 are of the ops'
   in out, 'stats: says which columns hold the summed ops', out[-900:])
rc, out, _ = ggmlviz('stats', '--by', 'layer', roll)
ok(rc == 0 and 'not in this table' in out, 'stats --by layer: says the summed ops have no layer',
   out[-500:])
db = os.path.join(TMP, 'roll.db')
rc, out, err = ggmlviz('export', '--format', 'sqlite', roll, '-o', db)
if rc == 0 and has_sqlite:
    import sqlite3
    con = sqlite3.connect(db)
    rows = dict((op, n) for op, n in con.execute('SELECT op, SUM(count) FROM summaries GROUP BY op'))
    con.close()
    sums_by_op = {}
    for d in per_step.values():
        for op, c in d['sums'].items():
            sums_by_op[op] = sums_by_op.get(op, 0) + c[0]
    ok(rows == sums_by_op, 'export --format sqlite: a summaries table, a row per op type and step',
       rows)
else:
    skip('export --format sqlite: a summaries table', 'built without SQLite' if rc == 0 else err)
# GGML_VIZ_OP_WINDOW and GGML_VIZ_PACK: the same run, its summaries summed again over one
# window (written at the stop) and its records packed: the same ops by op and by phase
win, err = trace_with('win.ggmlviz', ROLL_GENERATE, GGML_VIZ_OP_SAMPLE='3', GGML_VIZ_OP_WINDOW='60',
                      GGML_VIZ_PACK='1')
def counts_by(path, by):
    rc, out, _ = ggmlviz('stats', '--by', by, '-f', 'json', path) if path else (1, '', '')
    return {g['name']: g['count'] for g in json.loads(out)['groups']} if rc == 0 else None
rc, out, _ = ggmlviz('dump', '-f', 'jsonl', win) if win else (1, '', '')
wrecs = [json.loads(line) for line in out.splitlines()]
wsums = [r for r in wrecs if r['type'] == 'OP_SUMMARY']
wcount = {}
for r in wsums:
    wcount[r['op']] = wcount.get(r['op'], 0) + r['count']
ok(win and wsums and all(1 <= r.get('window_steps', 0) <= len(summed) for r in wsums) and
   max(r['window_steps'] for r in wsums) == len(summed) and
   wcount == {op: sum(per_step[n]['sums'].get(op, (0,))[0] for n in summed)
                                           for op in {r['op'] for r in wsums}},
   'GGML_VIZ_OP_WINDOW: the OP_SUMMARY records sum every summed step (dump shows the window)',
   (err, wsums[:2]))
ok(win and counts_by(win, 'op') == counts_by(roll, 'op') and
   counts_by(win, 'phase') == counts_by(roll, 'phase') and
   [r['type'] for r in wrecs if r['type'] != 'OP_SUMMARY' and r['type'] != 'META'] ==
   [r['type'] for r in rrecs if r['type'] != 'OP_SUMMARY' and r['type'] != 'META'],
   'windows and packed records: stats --by op and --by phase as without, every other record there',
   (counts_by(win, 'phase'), counts_by(roll, 'phase')))
rc, out, _ = ggmlviz('info', win) if win else (1, '', '')
ok(rc == 0 and 'summed again over windows' in out and 'PACK' not in out and
   os.path.getsize(win) * 2 < os.path.getsize(roll),
   'info on windows: says them; packed, the trace is less than half as large',
   (out[-600:], win and os.path.getsize(win), roll and os.path.getsize(roll)))
# GGML_VIZ_OP_SLOW: every step of at least 1 us is slow, so kept op by op, sampled or not
slow, err = trace_with('slow.ggmlviz', 4, GGML_VIZ_OP_SAMPLE='1000', GGML_VIZ_OP_SLOW='1')
rc, out, _ = ggmlviz('dump', '-f', 'jsonl', slow) if slow else (1, '', '')
types = [json.loads(line)['type'] for line in out.splitlines()]
ops_per_step = []
for t in types:
    if t == 'STEP_BEGIN':
        ops_per_step.append(0)
    elif t == 'OP_COMPUTE_END' and ops_per_step:
        ops_per_step[-1] += 1
ok(slow and 'OP_SUMMARY' not in types and len(ops_per_step) == 5 and min(ops_per_step) > 0,
   'GGML_VIZ_OP_SLOW=1: every step slow enough, kept op by op, sampled or not',
   (err, ops_per_step))
slow2, err = trace_with('slow2.ggmlviz', 4, GGML_VIZ_OP_SAMPLE='1000', GGML_VIZ_OP_SLOW='60000000')
rc, out, _ = ggmlviz('info', slow2) if slow2 else (1, '', '')
ok(rc == 0 and '4 steps summed' in out and 'every step of 60000000 us or more' in out,
   'GGML_VIZ_OP_SLOW of a minute: only the sampled step kept, the 4 others summed', out[-600:])
per_step_full = os.path.getsize(trace) / len(steps)
per_step_roll = os.path.getsize(roll) / len(per_step) if roll and per_step else 0
ok(0 < per_step_roll < per_step_full * 0.6,
   'a rolling trace takes less per step: %d bytes a step against %d with every op kept'
   % (per_step_roll, per_step_full))

# ---- a GPU backend: GGML's Vulkan backend on Mesa's software device ----
vk_trace = os.path.join(TMP, 'vulkan.ggmlviz')
vk_env = dict(os.environ, GGML_VK_VISIBLE_DEVICES='0')
rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                   '--generate', '2', '--threads', '2', '--output', vk_trace, '--gpu-layers', '99',
                   '--prompt', 'a tensor graph', env=vk_env)
rcj, outj, _ = ggmlviz('stats', '-f', 'json', vk_trace)
vk = {s['backend']: s for s in json.loads(outj).get('splits', [])} if rc == 0 and rcj == 0 else {}
GPU_CHECKS = ['info says the CPU runs\' ops were timed by ticks, the Vulkan runs as wholes',
              'stats --format json: each backend\'s runs and its ops by method',
              'stats: the runs-only backend and what else times ops, said under the table',
              'report: the runs by backend say how their ops were timed',
              'sync mode: stats says the Vulkan ops were synchronized one by one']
if 'Vulkan0' not in vk:
    for what in GPU_CHECKS:
        skip(what, 'no Vulkan device here (scripts/fetch-ggml.sh, mesa-vulkan-drivers)')
else:
    rc, out, err = ggmlviz('info', vk_trace)
    cpu_line = [l for l in out.splitlines() if l.strip().startswith('CPU ')]
    vk_line = [l for l in out.splitlines() if l.strip().startswith('Vulkan0 ')]
    ok(rc == 0 and cpu_line and 'ops timed by the backend\'s ticks' in cpu_line[0] and vk_line and
       'runs only, each timed as a whole' in vk_line[0], GPU_CHECKS[0], out[-800:])
    cpu = vk.get('CPU', {})
    ok(vk['Vulkan0']['runs'] > 0 and vk['Vulkan0']['ops_tick'] == vk['Vulkan0']['ops_gpu'] ==
       vk['Vulkan0']['ops_sync'] == 0 and cpu.get('ops_tick', 0) > 0 and
       cpu.get('ops_tick') == json.loads(outj).get('ops'), GPU_CHECKS[1], outj[-600:])
    rc, out, err = ggmlviz('stats', vk_trace)
    ok(rc == 0 and 'runs only' in out and 'GGML_VIZ_OP_TIMING=sync' in out, GPU_CHECKS[2],
       out[-600:])
    html = os.path.join(TMP, 'vulkan.html')
    rc, out, err = ggmlviz('report', vk_trace, '-o', html)
    page = open(html, encoding='utf-8').read() if rc == 0 else ''
    ok('"ops_tick":' in page and 'how their ops were timed' in page, GPU_CHECKS[3], err)
    sync_env = dict(vk_env, GGML_VIZ_OP_TIMING='sync')
    rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                       '--generate', '1', '--threads', '2', '--output', vk_trace,
                       '--gpu-layers', '99', '--prompt', 'a tensor graph', env=sync_env)
    rc2, out, err2 = ggmlviz('stats', vk_trace)
    vk_line = [l for l in out.splitlines() if l.strip().startswith('Vulkan0 ')]
    ok(rc == 0 and rc2 == 0 and vk_line and 'ops timed synchronized one by one' in vk_line[0],
       GPU_CHECKS[4], err + out[-600:])

taplib.finish()
