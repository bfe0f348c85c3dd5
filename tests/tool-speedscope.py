#!/usr/bin/env python3
"""ggmlviz export --format speedscope, read as speedscope reads it (TAP).

A real llama.cpp trace (examples/llama_trace, where libllama was found;
else a GGML program's, else the generator's) and a GPU one (tests/gen-gpu)
are exported to speedscope's own format; each profile's events must open
and close frames in order (speedscope refuses a file where a frame closes
while another is on top), every slice of the JSON export must be there at
the same nanosecond and depth, and each op name must be one frame, whose
time is what `stats --by op` says. Then speedscope itself (npm
`speedscope`, which scripts/fetch-speedscope.sh fetches) opens the file in
headless chromium, in its sandwich view: each op once, MUL_MAT's total as
stats gives it.

    tool-speedscope.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import base64
import json
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import perfetto  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
SRC = os.environ.get('top_srcdir', os.path.join(os.path.dirname(__file__), '..'))
# absolute: make check gives top_srcdir as a relative path, and a file:// URL needs a whole one
VIEWER = os.path.abspath(os.path.join(
    os.environ.get('SPEEDSCOPE_DIR', os.path.join(SRC, 'third_party', 'speedscope')),
    'dist', 'release', 'index.html'))


def tool(name):
    return os.path.join(BUILD, *name.split('/'))


def a_trace():
    """A real trace: llama.cpp's, else a GGML program's, else the generator's."""
    path = os.path.join(TMP, 'real.ggmlviz')
    if os.access(tool('examples/llama_trace'), os.X_OK):
        model = os.path.join(TMP, 'tiny.gguf')
        run(tool('examples/make_tiny_llama'), model, '--layers', '3')
        rc, _, err = run(tool('examples/llama_trace'), '--model', model, '--generate', '6',
                         '--threads', '2', '--output', path)
        return path if rc == 0 else None, 'llama.cpp', err
    if os.access(tool('examples/ggml_transformer'), os.X_OK):
        rc, _, err = run(tool('examples/ggml_transformer'), '--layers', '2', '--steps', '4',
                         '--output', path)
        return path if rc == 0 else None, 'GGML', err
    rc, _, err = run(tool('tests/gen-trace'), path)
    return path if rc == 0 else None, 'generated', err


def profiles_of(doc):
    """Each profile's slices, as speedscope builds them: (begin, end, frame name, depth);
    and the errors speedscope would refuse the file for."""
    frames = [f['name'] for f in doc['shared']['frames']]
    out, errors = {}, []
    for p in doc['profiles']:
        stack, slices, last = [], [], -1
        for e in p['events']:
            if e['at'] < last:
                errors.append('%s: event at %d before %d' % (p['name'], e['at'], last))
            last = e['at']
            if e['type'] == 'O':
                stack.append((e['at'], e['frame']))
            elif not stack or stack[-1][1] != e['frame']:
                errors.append('%s: frame %s closed at %d while %s is on top' %
                              (p['name'], frames[e['frame']], e['at'],
                               frames[stack[-1][1]] if stack else 'nothing'))
            else:
                begin, f = stack.pop()
                slices.append((begin, e['at'], frames[f], len(stack)))
        if stack:
            errors.append('%s: %d frames never closed' % (p['name'], len(stack)))
        out[p['name']] = slices
    return out, frames, errors


# ---- a real trace ----
trace, what, err = a_trace()
ok(trace, 'a %s trace to export' % what, err)
if not trace:
    taplib.finish()
ss = os.path.join(TMP, 'real.speedscope.json')
rc, _, err = run(G, 'export', '--format', 'speedscope', trace, '-o', ss)
doc = json.load(open(ss)) if rc == 0 else {'profiles': [], 'shared': {'frames': []}}
ok(rc == 0 and doc.get('$schema', '').endswith('file-format-schema.json') and
   all(p['type'] == 'evented' and p['unit'] == 'nanoseconds' for p in doc['profiles']),
   'export --format speedscope: speedscope\'s own file, an evented profile a thread', err)
profiles, frames, errors = profiles_of(doc)
ok(profiles and not errors, 'each profile opens and closes its frames in order, in time order',
   errors[:3])
ok(len(frames) == len(set(frames)), 'a frame per name: every op of a name is one frame',
   [f for f in frames if frames.count(f) > 1][:3])

# the same slices as the JSON export, at the same nanosecond and depth
rc, out, err = run(G, 'export', trace, '-o', '-')
ex = json.loads(out) if rc == 0 else {'traceEvents': []}
want = perfetto.json_depths(ex['traceEvents'])
want = {(b, re.sub(r' \d+ \(', ' (', n), d) for (_, b, n), d in want.items()}  # steps unnumbered
got = {(b, n, d) for slices in profiles.values() for b, _, n, d in slices}
ok(got and got == want, 'the slices of the JSON export, at the same ns and nesting depth',
   (len(got), len(want), sorted(got ^ want)[:3]))

# each op's frame holds what stats says of it
rc, out, err = run(G, 'stats', '--by', 'op', '-f', 'json', trace)
st = {g['name']: g['total_ns'] for g in json.loads(out)['groups']} if rc == 0 else {}
total = {}
for slices in profiles.values():
    for b, e, n, _ in slices:
        if n in st and n != '(run start)':  # drawn up to its first op; stats adds the workers' wait
            total[n] = total.get(n, 0) + e - b
st.pop('(run start)', None)
ok(st and total == st, 'each op\'s frame: its time is stats --by op\'s, to the nanosecond',
   [(n, total.get(n), st[n]) for n in st if total.get(n) != st[n]][:3])

# ---- speedscope itself, in headless chromium: the sandwich view groups ops by name ----
browser = next((b for b in ('chromium', 'chromium-browser', 'google-chrome')
                if shutil.which(b)), None)
if not os.path.exists(VIEWER):
    skip('speedscope opens it in chromium', 'speedscope is not fetched (scripts/fetch-speedscope.sh)')
elif not browser:
    ok(False, 'speedscope opens it in chromium', 'chromium is needed (apt-get install chromium)')
else:
    js = os.path.abspath(os.path.join(TMP, 'profile.js'))
    with open(js, 'w') as f:  # what speedscope's own command line does
        f.write('speedscope.loadFileFromBase64(%s, %s)' % (
            json.dumps('real.speedscope.json'), json.dumps(base64.b64encode(open(ss, 'rb').read())
                                                           .decode())))
    # the page loads the profile, then draws: a loaded machine may need longer than the
    # first budget (virtual time), so the page is read again with more before failing
    for budget in (8000, 30000, 90000):
        rc, dom, err = run('timeout', '300', browser, '--headless=new', '--no-sandbox',
                           '--disable-gpu', '--user-data-dir=' + os.path.join(TMP, 'profile'),
                           '--allow-file-access-from-files', '--virtual-time-budget=%d' % budget,
                           '--dump-dom',
                           'file://%s#localProfilePath=%s&view=sandwich' % (VIEWER, js))
        cells = [c.strip() for c in re.sub('<[^>]+>', '\n', dom).split('\n') if c.strip()]
        if 'Symbol Name' in cells:  # the sandwich view's table is there
            break
        print('# speedscope not drawn after %d ms of virtual time: %s' % (budget, cells[:12]))
    ops = sorted(st)
    counts = {n: cells.count(n) for n in ops}
    ok(rc == 0 and 'Sandwich' in cells and all(c == 1 for c in counts.values()),
       'speedscope\'s sandwich view: each op once (grouped by name)', (rc, counts, err[-300:]))
    # its row: Total then Self, before the name; ms with 2 decimals from 10 ms up
    row = cells.index('MUL_MAT') if 'MUL_MAT' in cells else -1
    shown = re.match(r'([\d.]+)(ms|µs|s) ', cells[row - 2]) if row >= 2 else None
    scale = {'s': 1e9, 'ms': 1e6, 'µs': 1e3}
    value = float(shown.group(1)) * scale[shown.group(2)] if shown else -1
    ok('MUL_MAT' not in st or (shown and abs(value - st['MUL_MAT']) <= 0.01 * st['MUL_MAT']),
       'speedscope\'s sandwich view: MUL_MAT\'s total is stats\' (%s against %d ns)'
       % (cells[row - 2] if row >= 2 else '?', st.get('MUL_MAT', 0)))

# ---- a GPU trace: each kernel inside the op that launched it ----
gpu = os.path.join(TMP, 'gpu.ggmlviz')
run(tool('tests/gen-gpu'), gpu, '3')
rc, _, err = run(G, 'export', '--format', 'speedscope', gpu, '-o', ss)
doc = json.load(open(ss)) if rc == 0 else {'profiles': [], 'shared': {'frames': []}}
profiles, frames, errors = profiles_of(doc)
track = profiles.get('GPU 0 stream 7', [])
ops = [s for s in track if s[3] == 0]
kernels = [s for s in track if s[3] == 1]
ok(rc == 0 and not errors and ops and kernels and
   all(any(o[0] <= k[0] and k[1] <= o[1] for o in ops) for k in kernels),
   'GPU: the stream\'s profile, each kernel inside its op (which begins on the same ns)',
   (err, errors[:2], len(ops), len(kernels)))

# ---- a cut trace: what came before the cut, still a file speedscope reads ----
cut = os.path.join(TMP, 'cut.ggmlviz')
with open(trace, 'rb') as f, open(cut, 'wb') as g:
    g.write(f.read()[:os.path.getsize(trace) // 2])
rc, _, err = run(G, 'export', '--format', 'speedscope', cut, '-o', ss)
doc = json.load(open(ss)) if os.path.exists(ss) else {'profiles': [], 'shared': {'frames': []}}
_, _, errors = profiles_of(doc)
ok(rc == 1 and ('cut' in err.lower() or 'truncat' in err.lower()),
   'a cut trace: exit 1, the cut said', (rc, err))
ok(doc['profiles'] and not errors, 'a cut trace: what came before the cut, in order', errors[:2])

taplib.finish()
