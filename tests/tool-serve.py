#!/usr/bin/env python3
"""ggmlviz serve (TAP): Prometheus metrics of a server's traces, against
stats, without llama.cpp (tests/gen-server records a simulated
llama-server with the tracer itself).

- the exposition: every family with its # HELP and # TYPE, names as
  Prometheus' conventions say, promtool check metrics passes;
- the histograms of the requests' five figures: each request in the
  bucket of its figure as stats --by request gives it, their sums and
  counts; requests by status, tokens, steps and step time by phase as
  stats gives them; memory by device;
- a trace followed while it is written: the figures grow, the state says
  writing then ended, the last values are stats'; the same through the
  tracer's rotations (GGML_VIZ_ROTATE), from segment to segment; a trace
  cut mid-record and truncated under it: every scrape answered, the trace
  read again;
- two traces, and their merge, told apart by pid and process;
- HTTP: 404, 405, HEAD, a client that sends nothing does not hold the
  others;
- memory flat while following a trace of a few hundred MB being written;
- bad input: not a trace, a port in use, a pipe, a bad --listen or
  --buckets, each with its message and exit status.

    tool-serve.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promlib  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
GEN = os.path.join(BUILD, 'tests', 'gen-server')
FIGURES = [('queue', 'ggmlviz_request_queue_time_seconds', 'queue_ns'),
           ('prompt', 'ggmlviz_request_prompt_time_seconds', 'prompt_ns'),
           ('ttft', 'ggmlviz_request_time_to_first_token_seconds', 'ttft_ns'),
           ('per_token', 'ggmlviz_request_time_per_output_token_seconds', 'per_token_ns'),
           ('total', 'ggmlviz_request_duration_seconds', 'total_ns')]


def requests_of(trace):
    rc, out, err = run(G, 'stats', '--by', 'request', '-f', 'json', trace)
    return json.loads(out)['requests'] if rc == 0 else []


def phases_of(trace):
    rc, out, err = run(G, 'stats', '--by', 'phase', '-f', 'json', trace)
    return {g['name']: g for g in json.loads(out)['groups']} if rc == 0 else {}


def agrees(samples, trace, reqs, phases, **who):
    """What the metrics of one process say unlike stats: [] when all agree."""
    bad = []
    for _, name, key in FIGURES:
        vals = [r[key] for r in reqs if r[key] is not None]
        b = promlib.buckets(samples, name, **who)
        for le, count in b.items():
            want = sum(1 for v in vals if v <= le * 1e9 + 0.5)
            if count != want:
                bad.append((name, 'le', le, count, want))
        if promlib.value(samples, name + '_count', **who) != len(vals):
            bad.append((name, 'count', promlib.value(samples, name + '_count', **who), len(vals)))
        if abs(promlib.value(samples, name + '_sum', **who) - sum(vals) / 1e9) > 1e-6:
            bad.append((name, 'sum', promlib.value(samples, name + '_sum', **who), sum(vals) / 1e9))
    for status in ('done', 'cancelled', 'failed'):
        want = sum(1 for r in reqs if r['status'] == status)
        got = promlib.value(samples, 'ggmlviz_requests_total', status=status, **who)
        if got != want:
            bad.append(('requests', status, got, want))
    for kind, key in (('prompt', 'prompt_tokens'), ('cached', 'cached_tokens'),
                      ('generated', 'generated_tokens')):
        want = sum(r[key] for r in reqs)
        got = promlib.value(samples, 'ggmlviz_request_tokens_total', kind=kind, **who)
        if got != want:
            bad.append(('request tokens', kind, got, want))
    for phase in ('prompt', 'generation'):
        g = phases.get(phase, {'tokens': 0, 'steps': 0, 'step_ns': 0})
        for name, want in (('ggmlviz_tokens_total', g['tokens']), ('ggmlviz_steps_total', g['steps']),
                           ('ggmlviz_step_seconds_total', g['step_ns'] / 1e9)):
            got = promlib.value(samples, name, phase=phase, **who)
            if abs(got - want) > 1e-6:
                bad.append((name, phase, got, want))
    return bad


def once(*traces):
    rc, out, err = run(G, 'serve', '--once', *traces)
    return rc, out, err


# ---- one trace, read whole: the figures are stats' ----
trace = os.path.join(TMP, 'server.ggmlviz')
rc, out, err = run(GEN, trace)
ok(rc == 0, 'gen-server records a simulated llama-server', err)
reqs, phases = requests_of(trace), phases_of(trace)
rc, text, err = once(trace)
samples, families = promlib.parse(text) if rc == 0 else ([], {})
names = {n for n, _, _ in samples}
ok(rc == 0 and reqs and any(r['queue_ns'] > 1000000 for r in reqs) and
   any(r['status'] == 'cancelled' for r in reqs) and any(r['status'] == 'failed' for r in reqs),
   'serve --once: the exposition of a server\'s trace whose requests waited, were cancelled, '
   'failed', (rc, err, [(r['status'], r['queue_ns']) for r in reqs][:6]))
bad = []
for fam, f in families.items():
    if not fam.startswith('ggmlviz_') or not f.get('help') or f.get('type') not in ('counter', 'gauge',
                                                                                     'histogram'):
        bad.append((fam, f))
    if (f.get('type') == 'counter') != fam.endswith('_total'):
        bad.append((fam, 'a counter ends in _total, nothing else does'))
    if re.search(r'_(ms|us|ns|milliseconds|microseconds|kib|mib)(_|$)', fam):
        bad.append((fam, 'not a base unit'))
for n in names:
    base = re.sub(r'_(bucket|sum|count)$', '', n)
    if base not in families and n not in families:
        bad.append((n, 'no # HELP/# TYPE'))
ok(rc == 0 and not bad and len(families) >= 15,
   'every family has # HELP and # TYPE, a ggmlviz_ name, seconds and bytes, _total on counters '
   '(%d families)' % len(families), bad)
passed, said = promlib.promtool_check(text) if rc == 0 else (False, err)
if passed is None:
    skip('promtool check metrics passes on the exposition', said)
else:
    ok(passed, 'promtool check metrics passes on the exposition', said)
pid = {lab.get('pid') for n, lab, _ in samples if 'pid' in lab}
proc = {lab.get('process') for n, lab, _ in samples if 'process' in lab}
ok(len(pid) == 1 and proc == {'gen-server'}, 'each sample labelled with the trace, the pid and '
   'the process\'s name', (pid, proc))
bad = agrees(samples, trace, reqs, phases)
ok(rc == 0 and reqs and not bad,
   'the histograms of queue, prompt, time to first token, time per output token and duration: '
   'each request in its bucket as stats --by request gives its figure, their count and sum; '
   'requests by status, their tokens, and tokens, steps and step time by phase as stats gives them',
   bad[:6])
mem = {(lab['device'], lab['kind']): v for n, lab, v in samples if n == 'ggmlviz_tensor_memory_bytes'}
peak = {lab['device']: v for n, lab, v in samples if n == 'ggmlviz_tensor_memory_peak_bytes'}
state = {lab['state']: v for n, lab, v in samples if n == 'ggmlviz_trace_state'}
ok(set(mem) >= {('CPU', 'weights'), ('CUDA0', 'kv_cache')} and not any(mem.values()) and
   peak == {'CPU': 27 << 20, 'CUDA0': 68 << 20} and state.get('ended') == 1 and sum(state.values()) == 1,
   'memory by device and kind (every buffer freed at the end), each device\'s peak, and the '
   'trace\'s state: ended', (mem, peak, state))
ratio = [v for n, lab, v in samples if n == 'ggmlviz_op_time_ratio']
parts = {lab['part']: v for n, lab, v in samples if n == 'ggmlviz_part_time_ratio'}
ok(ratio and abs(sum(ratio) - 1) < 1e-3 and {lab['op'] for n, lab, v in samples
                                               if n == 'ggmlviz_op_time_ratio'} ==
   {'RMS_NORM', 'MUL_MAT', 'ROPE', 'ADD'} and abs(sum(parts.values()) - 1) < 1e-3 and
   'norm' in parts,
   'op time share of the last window by op type and by model part, named, each summing to 1',
   (ratio, parts))

# ---- --buckets ----
rc, text2, err = run(G, 'serve', '--once', '--buckets', '0.0005,0.002,0.01', trace)
s2, _ = promlib.parse(text2) if rc == 0 else ([], {})
les = sorted(promlib.buckets(s2, 'ggmlviz_request_duration_seconds'))
ok(rc == 0 and les == [0.0005, 0.002, 0.01, float('inf')] and not agrees(s2, trace, reqs, phases),
   '--buckets sets the histograms\' bounds', (les, err))

# ---- followed while it is written ----
def follow_gen(trace, *args):
    """gen-server writing trace (args its options), serve following it, scraped every 0.5 s
    while it writes: (gen, the exporter, its port, what it said, [(status, requests_total,
    states)] of each scrape)."""
    gen = subprocess.Popen([GEN, trace, *args], stderr=subprocess.PIPE, text=True)
    while not os.path.exists(trace) and gen.poll() is None:
        time.sleep(0.05)
    p, port, said = promlib.start_exporter(G, [trace])
    seen = []
    while port and gen.poll() is None:
        st, _, body = promlib.scrape(port)
        s, _ = promlib.parse(body)
        seen.append((st, promlib.value(s, 'ggmlviz_requests_total'),
                     [lab['state'] for n, lab, v in s if n == 'ggmlviz_trace_state' and v == 1]))
        time.sleep(0.5)
    return gen, p, port, said, seen


# gen-server keeps to the wall clock, however busy the machine: 60 requests in bursts of 3,
# 150 ms apart, last about 3 s, for 3 scrapes 0.5 s apart after the exporter's start (40
# lasted 2 s here, and 1.3 s in the rotated trace's bursts 100 ms apart below)
LIVE_N, SEGS_N = 60, 80
live = os.path.join(TMP, 'live.ggmlviz')
gen, p, port, said, seen = follow_gen(live, '--requests', str(LIVE_N), '--gap-ms', '150',
                                      '--burst', '3')
gen.wait()
time.sleep(2.5)  # a refresh or two: the end read
st, _, body = promlib.scrape(port) if port else (0, {}, '')
final, _ = promlib.parse(body) if st == 200 else ([], {})
rc, err = promlib.stop(p)
growing = [n for _, n, _ in seen]
ok(port and len(seen) >= 3 and all(x[0] == 200 for x in seen) and growing == sorted(growing) and
   0 < growing[len(growing) // 2] < LIVE_N and any(x[2] == ['writing'] for x in seen),
   'a trace followed while it is written: every scrape answered, requests_total growing, the '
   'state writing', (said, seen))
live_reqs = requests_of(live)
bad = agrees(final, live, live_reqs, phases_of(live))
ok(len(live_reqs) == LIVE_N and not bad and promlib.value(final, 'ggmlviz_trace_state', state='ended') == 1,
   'once it ended: the state ended, the figures stats\'', bad[:6])
ok(rc == 0 and 'Traceback' not in err, 'SIGTERM stops the exporter: exit 0', (rc, err))

# ---- followed while the tracer rotates it (GGML_VIZ_ROTATE): from segment to segment ----
segs = os.path.join(TMP, 'segments.ggmlviz')
gen, p, port, said, scrapes = follow_gen(segs, '--requests', str(SEGS_N), '--gap-ms', '100',
                                         '--burst', '3', '--rotate', '64K')
seen = [n for _, n, _ in scrapes]
_, gerr = gen.communicate()
time.sleep(2.5)  # a refresh or two: the end read
st, _, body = promlib.scrape(port) if port else (0, {}, '')
final, _ = promlib.parse(body) if st == 200 else ([], {})
rc, err = promlib.stop(p)
n_segs = len([n for n in os.listdir(TMP) if n.startswith('segments.ggmlviz.')])
seg_reqs = requests_of(segs)
bad = agrees(final, segs, seg_reqs, phases_of(segs))
ok(port and gen.returncode == 0 and n_segs >= 2 and len(seen) >= 3 and seen == sorted(seen) and
   len(seg_reqs) == SEGS_N and not bad and
   promlib.value(final, 'ggmlviz_trace_state', state='ended') == 1,
   'a trace the tracer rotates (64K, %d segments), followed as it is written: the figures grow '
   'from segment to segment, and once it ended they are stats\' over all of them' % n_segs,
   (said, gerr[-300:], seen, bad[:6]))

# ---- a trace cut mid-record, then truncated under the exporter ----
data = open(trace, 'rb').read()
cut = os.path.join(TMP, 'cut.ggmlviz')
with open(cut, 'wb') as f:
    f.write(data[:len(data) // 2 + 5])  # inside a record
p, port, said = promlib.start_exporter(G, [cut])
answers = []
time.sleep(1.5)
answers.append(promlib.scrape(port)[0] if port else 0)
with open(cut, 'ab') as f:
    f.write(data[len(data) // 2 + 5:])
time.sleep(2.5)
st, _, body = promlib.scrape(port) if port else (0, {}, '')
answers.append(st)
whole, _ = promlib.parse(body) if st == 200 else ([], {})
with open(cut, 'r+b') as f:  # cut under it: truncated, then written again from the start
    f.truncate(0)
answers += [promlib.scrape(port)[0] if port else 0 for _ in range(3)]
with open(cut, 'wb') as f:
    f.write(data[:len(data) // 3])
time.sleep(2.5)
st, _, body = promlib.scrape(port) if port else (0, {}, '')
answers.append(st)
third, _ = promlib.parse(body) if st == 200 else ([], {})
rc, err = promlib.stop(p)
ok(answers == [200] * 6 and not agrees(whole, trace, reqs, phases) and
   0 < promlib.value(third, 'ggmlviz_trace_records_total') < promlib.value(whole, 'ggmlviz_trace_records_total')
   and rc == 0,
   'a trace cut mid-record and then truncated under the exporter: every scrape answered, the '
   'whole trace\'s figures once it was whole, read again from its start once rewritten',
   (answers, rc, err[-300:]))

# ---- two traces, and their merge: told apart ----
second = os.path.join(TMP, 'second.ggmlviz')
rc, out, err = run(GEN, second, '--requests', '10', '--slots', '3')
merged = os.path.join(TMP, 'merged.ggmlviz')
rc2, out, err2 = run(G, 'merge', trace, second, '-o', merged)
reqs2, phases2 = requests_of(second), phases_of(second)
pids = []
for t in (trace, second):
    rc3, out, _ = run(G, 'dump', '-f', 'jsonl', t)
    pids.append(next(json.loads(line)['key'] for line in out.splitlines() if '"PROCESS"' in line))
for what, traces in (('two traces', [trace, second]), ('their merge', [merged])):
    rc, text, err = once(*traces)
    s, _ = promlib.parse(text) if rc == 0 else ([], {})
    seen_pids = {lab['pid'] for n, lab, v in s if 'pid' in lab}
    bad = agrees(s, trace, reqs, phases, pid=pids[0]) + agrees(s, second, reqs2, phases2, pid=pids[1])
    ok(rc == 0 and seen_pids == {str(x) for x in pids} and pids[0] != pids[1] and not bad,
       'serve on %s: each process\'s samples under its pid, each with its own figures' % what,
       (rc, err, seen_pids, pids, bad[:4]))

# ---- HTTP ----
p, port, said = promlib.start_exporter(G, [trace])
idle = socket.create_connection(('127.0.0.1', port)) if port else None  # sends nothing
half = socket.create_connection(('127.0.0.1', port)) if port else None
if half:
    half.sendall(b'GET /metr')  # and no more
t0 = time.time()
st, hdr, body = promlib.scrape(port) if port else (0, {}, '')
took = time.time() - t0
nf = promlib.scrape(port, '/nope') if port else (0, {}, '')
post = promlib.scrape(port, method='POST') if port else (0, {}, '')
head = promlib.scrape(port, method='HEAD') if port else (0, {}, '')
root = promlib.scrape(port, '/') if port else (0, {}, '')
query = promlib.scrape(port, '/metrics?x=1') if port else (0, {}, '')
raw = socket.create_connection(('127.0.0.1', port)) if port else None
big_head = b''
if raw:
    raw.sendall(b'GET /metrics HTTP/1.1\r\nX: ' + b'a' * 9000 + b'\r\n\r\n')
    big_head = raw.recv(200)
    raw.close()
for s in (idle, half):
    if s:
        s.close()
rc, err = promlib.stop(p)
ok(st == 200 and took < 2 and hdr.get('Content-Type') == 'text/plain; version=0.0.4; charset=utf-8'
   and body.startswith('# HELP'),
   'GET /metrics: 200, Prometheus\' text format, at once beside a client that sends nothing and '
   'one that stopped mid-line', (st, took, hdr))
ok(nf[0] == 404 and post[0] == 405 and post[1].get('Allow') == 'GET, HEAD' and head[0] == 200 and
   head[2] == '' and int(head[1].get('Content-Length', 0)) == len(body.encode()) and root[0] == 200 and
   query[0] == 200 and query[2].startswith('# HELP') and big_head.startswith(b'HTTP/1.1 431'),
   'HTTP: 404 elsewhere, 405 for POST (Allow: GET, HEAD), HEAD without the body, a query ignored, '
   'a head over 8 KiB refused (431)', (nf[0], post[0], head[0], root[0], query[0], big_head[:40]))

# ---- bad input ----
notrace = os.path.join(TMP, 'notrace.txt')
open(notrace, 'w').write('this is no trace at all, but long enough\n')
rc, out, err = run(G, 'serve', '--listen', '127.0.0.1:0', notrace)
ok(rc == 1 and notrace in err and 'not a' in err.lower(), 'a file that is no trace: exit 1, said',
   (rc, err))
rc, out, err = run(G, 'serve', '--listen', '127.0.0.1:0', os.path.join(TMP, 'missing.ggmlviz'))
ok(rc == 1 and 'missing.ggmlviz' in err, 'a file that is not there: exit 1, said', (rc, err))
blocker = socket.socket()
blocker.bind(('127.0.0.1', 0))
blocker.listen(1)
busy = blocker.getsockname()[1]
rc, out, err = run(G, 'serve', '--listen', '127.0.0.1:%d' % busy, trace)
blocker.close()
ok(rc == 1 and 'in use' in err and str(busy) in err, 'a port in use: exit 1, said', (rc, err))
rc, out, err = run('sh', '-c', 'cat "$1" | "$2" serve --once /dev/stdin', 'sh', trace, G)
ok(rc == 2 and 'pipe' in err, 'a trace from a pipe: exit 2, said', (rc, err))
for args, word in ((['--listen', 'nohost'], 'HOST:PORT'), (['--listen', '127.0.0.1:99999'], 'HOST:PORT'),
                   (['--buckets', '0.1,0.05'], 'increase'), (['--buckets', 'x'], 'number')):
    rc, out, err = run(G, 'serve', *args, trace)
    ok(rc == 2 and word in err, 'serve %s: exit 2, said' % ' '.join(args), (rc, err))
empty = os.path.join(TMP, 'empty.ggmlviz')
open(empty, 'wb').close()
p, port, said = promlib.start_exporter(G, [empty])
st, _, body = promlib.scrape(port) if port else (0, {}, '')
with open(empty, 'wb') as f:
    f.write(data)
time.sleep(2.5)
st2, _, body2 = promlib.scrape(port) if port else (0, {}, '')
rc, err = promlib.stop(p)
s2, _ = promlib.parse(body2) if st2 == 200 else ([], {})
ok(st == 200 and 'ggmlviz_trace_state' in body and not agrees(s2, trace, reqs, phases),
   'an empty file (a tracer has just made it): waited for, then read', (st, st2, said))

# ---- memory flat while following a trace of a few hundred MB being written ----
with open(G, 'rb') as f:
    sanitized = b'__asan_init' in f.read() or False
big = os.path.join(TMP, 'big.ggmlviz')
rc, _, err = run(os.path.join(BUILD, 'tests', 'gen-trace'), '--size-mb', '300', big)
if sanitized:
    skip('serve: memory flat while following a big trace being written',
         'sanitizer build: memory figures would measure the sanitizer')
elif rc != 0:
    ok(False, 'serve: memory flat while following a big trace being written', err)
else:
    src = open(big, 'rb')
    following = os.path.join(TMP, 'following.ggmlviz')
    open(following, 'wb').write(src.read(16 << 20))
    p, port, said = promlib.start_exporter(G, [following])
    mem = []
    with open(following, 'ab') as f:
        while True:
            chunk = src.read(16 << 20)
            if not chunk:
                break
            f.write(chunk)
            f.flush()
            time.sleep(0.4)
            promlib.scrape(port)
            mem.append(taplib.memory_kib(p.pid))
    time.sleep(3)
    st, _, body = promlib.scrape(port)
    rc, err = promlib.stop(p)
    size_mb = os.path.getsize(following) >> 20
    ok(st == 200 and 'state="ended"} 1' in body and size_mb >= 290 and taplib.memory_flat(mem),
       'serve: memory flat while following a trace of %d MB being written (RSS at most %d KiB, '
       'its own at most %d; its own in the last third of the run no more than in the first, '
       'give or take 4 MiB)' % (size_mb, max((r for r, _ in mem), default=0),
                                 max((a for _, a in mem), default=0)), (st, mem))
taplib.finish()
