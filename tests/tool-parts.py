#!/usr/bin/env python3
"""--by part on real llama.cpp graphs (TAP).

examples/make_tiny_llama writes three models that the prebuilt libllama
loads: a dense llama, a llama whose feed-forward is a mixture of experts
(--experts 4), and a gemma (--arch gemma: GELU, the output tied to the
token embedding, its attention's output projection unnamed);
examples/llama_trace runs each (a prompt, then tokens one by one). For
each trace this script places every op itself, from `ggmlviz dump`'s
records and a table of its own of the names llama.cpp's graph builder
gives, and checks that `stats --by part` (text, JSON, per layer, per
token), `diff --by part`, `top --view parts`, the SQL tables' part column
and the report's data place them the same; that (other) holds only what
no name places (the last layer's rows of the tokens that give logits);
and that a program of its own (ggml_transformer --own-names) and a trace
without names get (other) for all, said once.

    tool-parts.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import sqlite3
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
LAYERS = 3
GENERATE = 3

# The test's own statement of where llama.cpp's names go (base name, op): part.
NAMES = {
    'embd': 'embedding', 'inp_scaled': 'embedding',
    'Qcur': 'attention-projections', 'Kcur': 'attention-projections',
    'Vcur': 'attention-projections', 'Qcur_scaled': 'attention-projections',
    'attn_out': 'attention-output', 'ffn_inp': 'attention-output', 'sa_out': 'attention-output',
    'ffn_gate': 'ffn', 'ffn_up': 'ffn', 'ffn_out': 'ffn', 'ffn_swiglu': 'ffn', 'ffn_geglu': 'ffn',
    'l_out': 'ffn',
    'ffn_moe_logits': 'moe-router', 'ffn_moe_probs': 'moe-router',
    'ffn_moe_argsort': 'moe-router', 'ffn_moe_weights': 'moe-router',
    'ffn_moe_weights_sum': 'moe-router', 'ffn_moe_weights_sum_clamped': 'moe-router',
    'ffn_moe_weights_norm': 'moe-router', 'ffn_moe_topk': 'moe-router',
    'ffn_moe_gate': 'moe-experts', 'ffn_moe_up': 'moe-experts', 'ffn_moe_down': 'moe-experts',
    'ffn_moe_swiglu': 'moe-experts', 'ffn_moe_weighted': 'moe-experts',
    'ffn_moe_out': 'moe-experts',
    'result_output': 'output',
}


def ggmlviz(*args):
    return run(G, *args)


def truth(trace):
    """{part: ops}, {(part, layer): ops}, ops of (other) by op, from the records."""
    rc, out, err = ggmlviz('dump', '-f', 'jsonl', trace)
    ops, nodes = [], {}
    sets, filling = {}, {}  # a DESC_SET DEFINE's ops (set ids are a thread's), as its next records give them
    for line in out.splitlines():
        r = json.loads(line)
        if r['type'] == 'DESC_SET' and r['mode'] == 1:
            key = (r['tid'], r['set'])
            sets[key], filling[r['tid']] = [], (key, r['n_ops'])
        elif r['type'] == 'OP_COMPUTE_BEGIN':
            ops.append([r['tensor'], r['op'], r['label'] or '', None, None])
            s = filling.get(r['tid'])
            if s and len(sets[s[0]]) < s[1]:
                sets[s[0]].append(ops[-1])
        elif r['type'] == 'OP_TIMES':  # a repeated run's ops, packed: its set's, again
            ops.extend(list(o) for o in
                       sets.get((r['tid'], r['set']), [])[r['first']:r['first'] + r['n_ops']])
        elif r['type'] == 'OP_NODE':
            nodes[r['tensor']] = (r['layer'], r['src1'])
    parts, per_layer, other, placed = {}, {}, {}, {}
    for o in ops:
        tensor, op, label = o[0], o[1], o[2]
        layer, src1 = nodes.get(tensor, (-1, None))
        base = re.sub(r'-\d+$', '', label.split(' (')[0].split(' + ')[-1])
        if op == 'FLASH_ATTN_EXT':
            part = 'attention'
        elif label.startswith('cache_') and op == 'SET_ROWS':
            part = 'kv-cache-write'
        elif base in NAMES:
            part = NAMES[base]
        elif base.endswith('norm'):
            part = 'norm'
        elif op == 'MUL_MAT' and placed.get(src1) == 'attention':
            part = 'attention-output'  # gemma's unnamed output projection
        else:
            part = '(other)'
            other[op] = other.get(op, 0) + 1
        placed[tensor] = part
        parts[part] = parts.get(part, 0) + 1
        key = (part, layer if layer >= 0 else None)
        per_layer[key] = per_layer.get(key, 0) + 1
    return parts, per_layer, other, len(ops)


def stats_json(trace, *more):
    rc, out, err = ggmlviz('stats', '--by', 'part', '-f', 'json', trace, *more)
    return rc, (json.loads(out) if rc == 0 else {}), err


def traced(name, model_args, steps=GENERATE):
    model = os.path.join(TMP, name + '.gguf')
    trace = os.path.join(TMP, name + '.ggmlviz')
    rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers',
                       str(LAYERS), '--type', 'q8_0', *model_args)
    ok(rc == 0, '%s: make_tiny_llama writes it (%s)' % (name, out.strip()), err)
    rc, out, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                       '--generate', str(steps), '--threads', '2', '--output', trace)
    ok(rc == 0, '%s: llama.cpp (the prebuilt libllama) runs it traced' % name, err)
    return trace


def check_model(name, trace, must):
    parts, per_layer, other, n_ops = truth(trace)
    rc, j, err = stats_json(trace)
    got = {g['name']: g['count'] for g in j.get('groups', []) if g['name'] != '(run start)'}
    ok(rc == 0 and got == parts, '%s: stats --by part places every op as the records say '
       '(%d ops)' % (name, n_ops), 'stats %s\nrecords %s' % (sorted(got.items()), sorted(parts.items())))
    ok(all(p in got for p in must), '%s: it has %s' % (name, ', '.join(must)), sorted(got))
    ok(set(other) <= {'GET_ROWS'} and j.get('other', {}).get('ops') == parts.get('(other)', 0),
       '%s: (other) holds only the rows of the tokens that give logits (GET_ROWS), counted: %s'
       % (name, other), json.dumps(j.get('other')))
    # per layer: every layer has its attention and feed-forward; sums are the parts' totals
    layers = {(l['layer']): l for l in j.get('by_layer', [])}
    sums = {}
    for l in j.get('by_layer', []):
        for k, v in l.items():
            if k != 'layer':
                sums[k] = sums.get(k, 0) + v
    totals = {g['name']: g['total_ns'] for g in j.get('groups', []) if g['name'] != '(run start)'}
    ffn = 'moe-experts' if 'moe-experts' in must else 'ffn'
    ok(sums == totals and all(layers.get(i, {}).get('attention') and layers[i].get(ffn) and
                              layers[i].get('attention-projections') for i in range(LAYERS)),
       '%s: by layer: each of its %d layers has its attention and its %s; the layers add up to '
       'each part\'s total' % (name, LAYERS, ffn), json.dumps(j.get('by_layer'))[:600])
    tl = {k: v for k, v in per_layer.items()}
    want_none = sorted(p for (p, layer) in tl if layer is None)
    have_none = sorted(k for k in layers.get(None, {}) if k != 'layer')
    ok(want_none == have_none, '%s: outside every layer: %s' % (name, ', '.join(have_none)),
       '%s against %s' % (have_none, want_none))
    rc, out, err = ggmlviz('stats', '--by', 'part', '--phase', 'generation', trace)
    ok(rc == 0 and 'PER TOKEN' in out and 'by layer, per token:' in out,
       '%s: text with --phase generation: each part per token, and per layer per token' % name,
       out[-600:] + err)
    return j


taplib.count = 0
dense = traced('dense', [])
moe = traced('moe', ['--experts', '4', '--experts-used', '2'])
gemma = traced('gemma', ['--arch', 'gemma'])
if taplib.failed:
    taplib.finish()

jd = check_model('dense llama', dense, ['embedding', 'attention-projections', 'attention',
                                        'attention-output', 'kv-cache-write', 'norm', 'ffn',
                                        'output'])
jm = check_model('mixture of experts', moe, ['moe-router', 'moe-experts', 'attention', 'output'])
rc, out, _ = ggmlviz('stats', '--by', 'op', '-f', 'json', moe)
ids = sum(g['count'] for g in json.loads(out)['groups'] if g['name'] == 'MUL_MAT_ID') if rc == 0 else 0
gm = {g['name']: g for g in jm.get('groups', [])}
ok(ids > 0 and ids == (GENERATE + 1) * LAYERS * 3 and
   gm.get('moe-experts', {}).get('count', 0) >= ids,
   'mixture of experts: its %d MUL_MAT_IDs (3 a layer a step) are the experts\' ' % ids)
jg = check_model('gemma', gemma, ['embedding', 'attention-output', 'ffn', 'output'])
rc, out, _ = ggmlviz('stats', '--by', 'name', '-f', 'json', gemma)
unnamed_products = sum(g['count'] for g in json.loads(out)['groups']
                       if g['name'].startswith('node_') and g['name'] not in ('',))
gg = {g['name']: g['count'] for g in jg.get('groups', [])}
ok(gg.get('attention-output') == 2 * (GENERATE + 1) * LAYERS,
   'gemma: its unnamed output projections (a MUL_MAT of attention\'s output) are '
   'attention-output with its residual adds: %s' % gg.get('attention-output'))

# text: the notes, once
rc, out, err = ggmlviz('stats', '--by', 'part', dense)
ok(rc == 0 and out.count('(other): ') == 1 and 'never guessed' in out and 'by layer:' in out,
   'text: what (other) holds said once, with an example name, and the table by layer', out[-800:])

# diff, top, SQL, the report
rc, out, err = ggmlviz('diff', '--by', 'part', '-f', 'json', dense, moe)
rows = json.loads(out)['groups'] if rc == 0 else []
names = {r['name'] for r in rows}
ok(rc == 0 and {'ffn', 'moe-experts', 'moe-router', 'attention'} <= names,
   'diff --by part joins the parts of two traces (a dense model against its MoE)', out[-400:] + err)
rc, out, err = ggmlviz('top', '--view', 'parts', '-n', '1', gemma)
shown = re.findall(r'^(\S+)\s+(\d+)\s', out, re.M)
top_parts = {p: int(c) for p, c in shown if p in gg or p == '(other)'}
ok(rc == 0 and 'PART' in out and top_parts and
   all(top_parts[p] <= gg.get(p, 0) for p in top_parts) and 'attention-output' in top_parts,
   'top --view parts: the parts of the last seconds, as stats places them', out[-600:] + err)
db = os.path.join(TMP, 'parts.db')
rc, out, err = ggmlviz('export', '-f', 'sqlite', moe, '-o', db)
if rc == 0:
    con = sqlite3.connect(db)
    sql = dict(con.execute('SELECT part, COUNT(*) FROM ops GROUP BY part').fetchall())
    con.close()
else:
    sql = {}
want = {g['name']: g['count'] for g in jm.get('groups', []) if g['name'] != '(run start)'}
ok(sql == want, 'export -f sqlite: the ops table\'s part column counts as stats --by part',
   '%s against %s %s' % (sql, want, err))
html = os.path.join(TMP, 'parts.html')
rc, out, err = ggmlviz('report', moe, '-o', html)
page = open(html, encoding='utf-8').read() if rc == 0 else ''
m = re.search(r'<script id="data" type="application/json">(.*?)</script>', page, re.S)
data = json.loads(m.group(1)) if m else {}
rep = {g['name']: g['count'] for g in data.get('by_part', {}).get('groups', [])}
ok(rep == {g['name']: g['count'] for g in jm.get('groups', [])} and
   data.get('by_part_generation', {}).get('by_layer'),
   'report: its data holds stats --by part, and generation\'s by layer', str(rep)[:300])

# a program of its own, and the original ggml-viz's trace: (other) for all, said once
own = os.path.join(TMP, 'own.ggmlviz')
rc, out, err = run(os.path.join(BUILD, 'examples', 'ggml_transformer'), '--own-names',
                   '--layers', '2', '--steps', '2', '--output', own)
rc2, out, err2 = ggmlviz('stats', '--by', 'part', own)
ok(rc == 0 and rc2 == 0 and re.search(r'^\(other\)\s+76\s', out, re.M) and
   out.count('no op of this trace has a name that llama.cpp') == 1 and '(other): ' not in out,
   'a GGML program of its own names: every op (other), said once', out + err + err2)
orig = os.path.join(TMP, 'original.ggmlviz')
run(os.path.join(BUILD, 'tests', 'gen-trace'), '--original', '--graphs', '4', orig)
rc, out, err = ggmlviz('stats', '--by', 'part', orig)
rc2, outj, _ = ggmlviz('stats', '--by', 'part', '-f', 'json', orig)
jo = json.loads(outj) if rc2 == 0 else {}
ok(rc == 0 and out.count('no op of this trace has a tensor name') == 1 and
   jo.get('tensor_names') is False and jo.get('parts_named') is False and
   [g['name'] for g in jo.get('groups', [])] == ['(other)'],
   'the original ggml-viz\'s trace (no names): every op (other), said once, why', out + err)
taplib.finish()
