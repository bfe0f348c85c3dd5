#!/usr/bin/env python3
"""ggmlviz top (TAP): its batch tables against stats on a finished llama.cpp
trace; a trace followed while a writer appends it (cut mid-record), one
replaced under it, and one the tracer rotates (GGML_VIZ_ROTATE); its
memory while it follows a trace of a few hundred MB being written;
--replay; and the screen, in tmux: views, keys, a terminal too small,
resized, and given back on q and on SIGTERM.

Usage: tool-top.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip, wait_for  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')


def tables(out):
    """The batch output's tables, each a list of its lines."""
    return [t.splitlines() for t in out.split('ggmlviz top: ')[1:]]


def op_rows(table):
    """{OP: (COUNT, TIME)} of a table."""
    rows, on = {}, False
    for line in table:
        if line.startswith('OP '):
            on = True
            continue
        if on and line.startswith('('):
            break
        if on and line.strip():
            f = line.split()
            rows[f[0]] = (int(f[1]), f[2] + ' ' + f[3])
    return rows


def sanitized(program):
    """Whether program was built with ASan or TSan, whose allocators memory figures would measure."""
    with open(program, 'rb') as f:
        body = f.read()
    return b'__asan_init' in body or b'__tsan_init' in body


def field(table, name):
    m = re.search(r'steps +(\d+)', '\n'.join(table)) if name == 'steps' else None
    return int(m.group(1)) if m else None


# ---- a finished llama.cpp trace: the tables are stats' (as ticked) ----
model = os.path.join(TMP, 'tiny.gguf')
trace = os.path.join(TMP, 'llama.ggmlviz')
maker = os.path.join(BUILD, 'examples', 'make_tiny_llama')
rc, _, err = run(maker, model, '--layers', '2') if os.path.exists(maker) else (1, '', 'not built')
if rc == 0:
    rc, _, err = run(os.path.join(BUILD, 'examples', 'llama_trace'), '--model', model,
                     '--generate', '6', '--threads', '2', '--output', trace)
have_llama = rc == 0 and os.path.exists(trace)
if not have_llama:
    skip('top --batch on a finished llama.cpp trace', 'no GGML here: ' + err[-200:])
else:
    rc, out, err = run(G, 'top', '--batch', '1', trace)
    t = tables(out)
    rc2, sout, _ = run(G, 'stats', '--raw-ticks', '--by', 'op', '--top', '100', trace)
    want = {}
    for line in sout.splitlines()[2:]:
        f = line.split()
        if not f or f[0] == 'TOTAL':
            break
        want[f[0]] = (int(f[1]), f[2] + ' ' + f[3])
    ok(rc == 0 and len(t) == 1 and ': ended; trace +' in t[0][0] and op_rows(t[0]) == want,
       'top --batch on a finished trace: one table, "ended", every op\'s count and time as stats '
       '--raw-ticks gives them (the trace within the window)', (rc, err, op_rows(t[0]) if t else out,
                                                               want))
    rc3, pout, _ = run(G, 'stats', '--by', 'phase', trace)
    steps = sum(int(line.split()[1]) for line in pout.splitlines()
                if line.startswith(('prompt ', 'generation ')))
    ok(t and field(t[0], 'steps') == steps, 'top: the steps, as stats --by phase counts them',
       (t[0][:4] if t else out, steps))

# ---- tokens/s as stats --by phase gives them, and the wall time's over what the window covers ----
steady = os.path.join(TMP, 'steady.ggmlviz')
rc, _, err = run(os.path.join(BUILD, 'tests', 'gen-server'), steady, '--requests', '12', '--burst', '1',
                 '--gap-ms', '1150')
rc, out, err = run(G, 'top', '--batch', '1', steady) if rc == 0 else (rc, '', err)
rc2, pout, _ = run(G, 'stats', '--by', 'phase', '-f', 'json', steady)
by_phase = {g['name']: g for g in json.loads(pout)['groups']} if rc2 == 0 else {}
rc3, dout, _ = run(G, 'dump', '-f', 'jsonl', steady)
steady_recs = [json.loads(rate_line) for rate_line in dout.splitlines()]
stamps = [r['ts'] for r in steady_recs if r['type'] != 'META' and r['ts']]
first, now = min(stamps), max(stamps)
since = max(first, (now // 10**9 - 9) * 10**9)  # the window: the last 10 one-second buckets
begins, win = {}, {1: [0, 0], 2: [0, 0]}
for r in steady_recs:
    if r['type'] == 'STEP_BEGIN':
        begins[r['tid']] = r['ts']
    elif r['type'] == 'STEP_END' and r['ts'] >= (now // 10**9 - 9) * 10**9:
        win[r['phase']][0] += r['n_tokens']
        win[r['phase']][1] += r['ts'] - begins[r['tid']]
span = (now - since) / 1e9
rate_line = re.search(r'tokens/s +prompt ([0-9.]+) \(([0-9.]+) all\), generation ([0-9.]+) \(([0-9.]+) all\)', out)
wall = re.search(r'wall time +prompt ([0-9.]+), generation ([0-9.]+) tokens/s over the last ([0-9.]+) s', out)
rates = [float(x) for x in rate_line.groups()] if rate_line else []
expect = [win[1][0] * 1e9 / win[1][1], by_phase.get('prompt', {}).get('tokens_per_s', -1),
        win[2][0] * 1e9 / win[2][1], by_phase.get('generation', {}).get('tokens_per_s', -1)]
ok(rc == 0 and now - first > 12 * 10**9 and rates and all(abs(a - b) <= 0.05 + 1e-4 * b for a, b in zip(rates, expect)),
   'top on a trace of 13 s: tokens/s of prompts and generation over their steps\' time, as stats --by '
   'phase gives them (since the start), and in the window', (err, out[:300], rates, expect))
rates = [float(x) for x in wall.groups()] if wall else []
expect = [win[1][0] / span, win[2][0] / span, span]
ok(rates and all(abs(a - b) <= 0.05 + 1e-3 * b for a, b in zip(rates, expect)) and 9 < span < 10,
   'top: the wall time\'s tokens/s over the time the window\'s buckets cover (%.3f s, not 10)' % span,
   (out[:300], rates, expect))

# ---- a trace followed while it is written, cut mid-record ----
src = trace if have_llama else None
if src:
    data = open(src, 'rb').read()
    growing = os.path.join(TMP, 'growing.ggmlviz')
    cuts = [len(data) * k // 4 + 7 for k in range(1, 4)] + [len(data)]  # +7: inside a record
    with open(growing, 'wb') as f:
        f.write(data[:cuts[0]])
    p = subprocess.Popen([G, 'top', '--batch', '1', growing], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)

    def writer():
        for a, b in zip(cuts, cuts[1:]):
            time.sleep(1.3)
            with open(growing, 'ab') as f:
                f.write(data[a:b])
    w = threading.Thread(target=writer)
    w.start()
    try:
        out, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    w.join()
    t = tables(out)
    counts = [field(x, 'steps') for x in t]
    states = [x[0] for x in t]
    ok(p.returncode == 0 and len(t) >= 3 and counts == sorted(counts) and counts[0] < counts[-1] and
       'being written' in states[0] and states[-1].split(': ', 1)[1].startswith('ended') and
       op_rows(t[-1]) == want,
       'top follows a trace as it is written (cut mid-record between writes): the steps grow, '
       '"being written" then "ended", the last table the whole trace\'s', (p.returncode, err, counts,
                                                                           states))

    # replaced under it: the file shrinks, top says so and reads it again
    replaced = os.path.join(TMP, 'replaced.ggmlviz')
    with open(replaced, 'wb') as f:
        f.write(data[:len(data) * 2 // 3])  # no TRACE_END yet: top goes on following
    p = subprocess.Popen([G, 'top', '--batch', '1', '-n', '3', replaced], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    first = p.stdout.readline()  # its first table begun: the file read as it was
    with open(replaced, 'r+b') as f:
        f.truncate(len(data) // 3)
    out, err = p.communicate(timeout=60)
    out = first + out
    t = tables(out)
    ok(p.returncode == 0 and any('the file shrank (replaced or truncated): read again' in x[0]
                                 for x in t),
       'top: a file truncated under it is said, and read again from its start',
       (p.returncode, err, [x[0] for x in t]))

    # a new file at its name (rotated, or written elsewhere and renamed): read from its start
    rotated = os.path.join(TMP, 'rotated.ggmlviz')
    with open(rotated, 'wb') as f:
        f.write(data[:len(data) // 3])
    p = subprocess.Popen([G, 'top', '--batch', '1', '-n', '6', rotated], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    seen = [p.stdout.readline()]  # its first table begun: the file read as it was
    os.unlink(rotated)
    while seen[-1] and 'the file was removed' not in seen[-1]:
        seen.append(p.stdout.readline())  # until it says so (or its tables run out)
    with open(rotated + '.new', 'wb') as f:
        f.write(data)
    os.rename(rotated + '.new', rotated)
    out, err = p.communicate(timeout=60)
    out = ''.join(seen) + out
    t = tables(out)
    ok(p.returncode == 0 and any('the file was removed' in x[0] for x in t) and
       any('a new file at its name: read again from its start' in x[0] for x in t) and
       ': ended' in t[-1][0] and op_rows(t[-1]) == want,
       'top: a file removed, then a new one at its name: said, and the new one read whole',
       (p.returncode, err, [x[0] for x in t]))

    # a cut trace from a pipe: read to its end, said cut, and top ends
    cut = os.path.join(TMP, 'cut.ggmlviz')
    open(cut, 'wb').write(data[:len(data) // 2])
    rc, out, err = run('sh', '-c', 'cat "$1" | timeout 20 "$2" top --batch 1 /dev/stdin', 'sh', cut, G)
    t = tables(out)
    ok(rc == 0 and len(t) == 1 and 'read from a pipe to its end, no TRACE_END: cut short' in t[0][0],
       'top on a cut trace from a pipe: one table, the trace said cut short', (rc, err, out[:300]))

    # --replay: played at a chosen speed, its end reached
    rc, out, err = run(G, 'top', '--batch', '1', '--replay', '0.05', trace)
    t = tables(out)
    counts = [field(x, 'steps') for x in t]
    ok(rc == 0 and len(t) >= 2 and counts[0] < counts[-1] == steps and 'replayed at 0.05x' in t[0][0],
       'top --replay 0.05: the trace played slower than it ran, to its end', (rc, err, counts))

# ---- a trace in segments (GGML_VIZ_ROTATE), followed as the tracer rotates it ----
example = os.path.join(BUILD, 'examples', 'ggml_transformer')


def follow_rotated(trace, rotate, steps=500, **more_env):
    """examples/ggml_transformer traced with GGML_VIZ_ROTATE=rotate, top --batch 1 following it:
    (the example's exit status and stderr, top's exit status, its tables, its stderr)."""
    w = subprocess.Popen([example, '-s', str(steps), '-o', trace],
                         env=dict(os.environ, GGML_VIZ_ROTATE=rotate, **more_env),
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: os.path.exists(trace) or w.poll() is not None)
    p = subprocess.Popen([G, 'top', '--batch', '1', trace], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    _, werr = w.communicate(timeout=120)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return w.returncode, werr[-300:], p.returncode, tables(out), err[-300:]


def segments_of(trace):
    return len([n for n in os.listdir(TMP) if n.startswith(os.path.basename(trace) + '.')])


if not os.access(example, os.X_OK):
    skip('top follows a rotated trace from segment to segment', 'no examples/ggml_transformer here')
    skip('top on a rotated trace that keeps its newest 3', 'no examples/ggml_transformer here')
else:
    segs = os.path.join(TMP, 'segments.ggmlviz')
    # top's tables are of the trace's last 9 to 10 s: 300 steps (some 9 segments: a graph
    # computed again is described once) take 2 to 3 s alone; 500 took 12 s under make check
    # (when each step was described, some 150 segments), and top's last table left their first
    # seconds out, as it should
    wrc, werr, prc, t, err = follow_rotated(segs, '64K', 300)
    rc, sout, _ = run(G, 'stats', '--top', '50', segs)
    rows = sout.split('\nOP ', 1)[-1].split('\nTOTAL', 1)[0].splitlines()[1:]  # (run start) aside
    whole = {f[0]: int(f[1]) for f in (line.split() for line in rows)
             if len(f) > 2 and f[1].isdigit() and not f[0].startswith('(')}
    last = {k: v[0] for k, v in op_rows(t[-1]).items()} if t else {}
    n_segs = segments_of(segs)
    m = re.search(r'trace \+([0-9.]+) s', t[-1][0]) if t else None
    lasted = float(m.group(1)) if m else 0.0
    if lasted < 9.0:  # the last table's window holds the whole trace: every op in it
        counted = whole.get('MUL_MAT') and last.get('MUL_MAT') == whole['MUL_MAT'] and \
            last == {k: v for k, v in whole.items() if k in last}
        what = 'its last table counts the ops stats counts over all of them'
    else:  # a machine so slow the trace outlasted the window: its last seconds, no more
        counted = last.get('MUL_MAT') and all(v <= whole.get(k, -1) for k, v in last.items())
        what = 'its last table, of the last seconds of a trace of %.1f s, no op more than stats' % lasted
    ok(wrc == 0 and prc == 0 and n_segs >= 5 and len(t) >= 2 and
       not any('read again' in x[0] for x in t) and ': ended' in t[-1][0] and counted,
       'top follows a trace the tracer rotates (GGML_VIZ_ROTATE=64K, %d segments) from segment to '
       'segment, never from a start again: %s' % (n_segs, what),
       (wrc, werr, prc, err, [x[0] for x in t], last, whole))

    # merged: one trace of its own, every op, no segment's records
    merged = os.path.join(TMP, 'merged-segments.ggmlviz')
    rc, _, merr = run(G, 'merge', segs, '-o', merged)
    rc2, iout, _ = run(G, 'info', merged)
    rc3, mout, _ = run(G, 'stats', '--top', '50', merged)
    ok(rc == 0 and rc2 == 0 and 'segments:' not in iout and 'SEGMENT' not in iout and
       'status:     complete' in iout and
       re.search(r'^MUL_MAT +%d ' % whole.get('MUL_MAT', -1), mout, re.M),
       'merge of a rotated trace: one file of its own (no SEGMENT records), complete, every op',
       (merr, iout[:600], mout[:300]))

    # only the newest 3 kept: the segments removed before top reached them are said (every op
    # described, some 150 segments: with a graph described once they rotate too slowly for it)
    kept = os.path.join(TMP, 'kept3.ggmlviz')
    wrc, werr, prc, t, err = follow_rotated(kept, '64K:3', GGML_VIZ_DESCRIBE_ONCE='0')
    n_kept = segments_of(kept)
    ok(wrc == 0 and prc == 0 and n_kept == 2 and t and ': ended' in t[-1][0] and
       any(re.search(r'\d+ segments? removed before (it was|they were) read', x[0]) for x in t),
       'top on a rotated trace that keeps its newest 3: the segments removed before it read them '
       'are said, and it reads on to the end', (wrc, werr, prc, err, n_kept, [x[0] for x in t]))

# ---- memory: flat while following a trace of a few hundred MB being written ----
big = os.path.join(TMP, 'big.ggmlviz')
rc, _, err = run(os.path.join(BUILD, 'tests', 'gen-trace'), '--size-mb', '300', big)
rc2, out, err2 = run(G, 'top', '--batch', '1', big) if rc == 0 else (rc, '', err)
t = tables(out)
ok(rc2 == 0 and t and field(t[-1], 'steps') == 0 and 'MUL_MAT' in op_rows(t[-1]),
   'top on a trace with no steps (gen-trace\'s): what it has, its ops', (err2, out[:400]))
if sanitized(G):
    skip('top: memory flat while following a big trace being written',
         'sanitizer build: memory figures would measure the sanitizer')
elif rc != 0:
    ok(False, 'top: memory flat while following a big trace being written', err)
else:
    data_fd = open(big, 'rb')
    following = os.path.join(TMP, 'following.ggmlviz')
    open(following, 'wb').write(data_fd.read(16 << 20))
    p = subprocess.Popen([G, 'top', '--batch', '1', following], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    mem = []
    with open(following, 'ab') as f:
        while True:
            chunk = data_fd.read(16 << 20)
            if not chunk:
                break
            f.write(chunk)
            f.flush()
            time.sleep(0.4)
            mem.append(taplib.memory_kib(p.pid))
    p.wait(30)  # it ends with the trace (gen-trace writes a TRACE_END)
    size_mb = os.path.getsize(following) >> 20
    # bounded, and no trend: the reader maps windows of the file as it goes, so a sample may
    # catch one being replaced; its own memory (RssAnon) says the trend (taplib.memory_flat)
    ok(p.returncode == 0 and size_mb >= 290 and taplib.memory_flat(mem),
       'top: memory flat while following a trace of %d MB being written (RSS at most %d KiB, '
       'its own at most %d; its own in the last third of the run no more than in the first, '
       'give or take 4 MiB)' % (size_mb, max((r for r, _ in mem), default=0),
                                 max((a for _, a in mem), default=0)), (p.returncode, mem))

# ---- the screen, in tmux ----
if not shutil.which('tmux'):
    skip('top\'s screen in tmux', 'tmux is not installed (apt-get install tmux)')
elif not have_llama:
    skip('top\'s screen in tmux', 'no llama.cpp trace here')
else:
    sockets = [os.path.join(TMP, 'tmux.sock')]

    def tmux(*args):
        return run('tmux', '-S', sockets[-1], *args)

    def screen():
        return tmux('capture-pane', '-p', '-t', 'top')[1]
    done = os.path.join(TMP, 'top.done')

    def shows(text):
        return lambda: text in screen() and screen()
    tmux('new-session', '-d', '-s', 'top', '-x', '100', '-y', '30',
         "'%s' top '%s'; echo \"exit $?\" > '%s'; sleep 60" % (G, trace, done))
    s1 = wait_for(shows('MUL_MAT')) or screen()
    tmux('send-keys', '-t', 'top', 'l')
    s2 = wait_for(shows('LAYER')) or screen()
    tmux('send-keys', '-t', 'top', 'r')
    s3 = wait_for(shows('time to first token')) or screen()
    tmux('send-keys', '-t', 'top', 's')
    tmux('send-keys', '-t', 'top', 'o')
    s4 = wait_for(shows('sort (count)')) or screen()
    ok('ended' in s1 and 'MUL_MAT' in s1 and 'LAYER' in s2 and 'time to first token' in s3 and
       'sort (count)' in s4 and 'OP ' in s4,
       'top on a terminal: the ops, the layers (l), the requests (r), the sort (s), redrawn',
       '\n'.join([s1[:400], s2[:200], s3[:200], s4[-200:]]))
    tmux('resize-window', '-t', 'top', '-x', '40', '-y', '8')
    small = wait_for(shows('top needs 60x13')) or screen()
    tmux('resize-window', '-t', 'top', '-x', '100', '-y', '30')
    big_again = wait_for(shows('MUL_MAT')) or screen()
    ok('the terminal is 40x8:' in small and 'top needs 60x13' in small and 'MUL_MAT' in big_again,
       'top: a terminal too small says so, and a resize redraws the whole screen', small)
    tmux('send-keys', '-t', 'top', 'q')
    said = wait_for(lambda: os.path.exists(done) and open(done).read().strip())
    ok(said == 'exit 0' and 'MUL_MAT' not in screen(),
       'top: q quits (exit 0), the terminal given back (the shell\'s screen, not top\'s)',
       (said, screen()[:300]))
    tmux('kill-server')
    # SIGTERM while on the screen: the terminal given back all the same (a server of its own:
    # the last one may still be on its way out)
    os.unlink(done)
    sockets.append(os.path.join(TMP, 'tmux2.sock'))
    pidfile = os.path.join(TMP, 'top.pid')
    tmux('new-session', '-d', '-s', 'top', '-x', '100', '-y', '30',
         "sh -c 'echo $$ > \"$1\"; exec \"$2\" top \"$3\"' sh '%s' '%s' '%s'; "
         "echo \"exit $?\" > '%s.1'; stty -a | grep -o ' icanon\\| echo ' >> '%s.1'; "
         "mv '%s.1' '%s'; sleep 60" % (pidfile, G, trace, done, done, done, done))
    wait_for(shows('MUL_MAT'))
    pid = wait_for(lambda: os.path.exists(pidfile) and open(pidfile).read().split())  # top's own
    for x in pid or []:
        os.kill(int(x), signal.SIGTERM)
    said = wait_for(lambda: os.path.exists(done) and open(done).read()) or ''
    ok(pid and 'exit 0' in said and 'icanon' in said and 'echo' in said,
       'top: SIGTERM on the screen ends it cleanly, the terminal as it was (icanon, echo)',
       (pid, said))
    tmux('kill-server')
taplib.finish()
