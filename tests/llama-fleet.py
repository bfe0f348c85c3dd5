#!/usr/bin/env python3
"""llama-server fleets (TAP), on the tools scripts/build-llama-tools.sh built:

- two llama-servers traced, one exporter (ggmlviz serve) following both
  traces, a real Prometheus (Debian's prometheus package) scraping it every
  second on a loopback port; a bounded load of requests on 2 slots each,
  some waiting in the queue; then Prometheus' HTTP API:
  histogram_quantile(0.95, ...) of the time to the first token within the
  bucket that holds stats --by request's p95, requests by status and
  tokens by phase equal to stats', the two servers told apart by pid;
  promtool check metrics on the exposition;
- the two traces merged and exported as OTLP: every span's parent a span of
  its trace, no (traceId, spanId) twice, each request under its own
  process;
- a second SIGINT while the server stops (its handler calls exit()): the
  server never hangs in libggmlviz's code (gdb tells a hang in the C
  library's own exit apart: llama-server's, which untraced has too), its
  trace complete or said incomplete, never damaged;
- bench/soak-server.py for a minute: the server's and the exporter's
  memory flat, nothing dropped, the trace valid, the first and last
  parts' figures within noise.

    llama-fleet.py BUILDDIR TMPDIR TOOLSDIR

SPDX-License-Identifier: MIT
"""
import collections
import json
import math
import os
import signal
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llamaserver  # noqa: E402
import otlplib  # noqa: E402
import promlib  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP, TOOLS = (os.path.abspath(a) for a in sys.argv[1:4])
G = os.path.join(BUILD, 'tools', 'ggmlviz')
SERVER = os.path.join(TOOLS, 'llama-server')
SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PLAIN = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}

model = os.path.join(TMP, 'tiny-q8.gguf')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '2',
                   '--type', 'q8_0')
ok(rc == 0, 'make_tiny_llama writes a q8_0 model', err)


def start_server(trace):
    return llamaserver.start(SERVER, ['-m', model, '-np', '2', '-c', '512', '-t', '1', '--no-webui'],
                             dict(PLAIN, GGML_VIZ_OUTPUT=trace))


def load(port, rounds, at_once, answers):
    """rounds of at_once requests at the same time: on 2 slots, some wait in the queue (48 to
    64 tokens each, so that a third arrives while both slots still decode: requests of under
    10 ms no longer overlapped in llama-tools.py once a busy machine spread their starts)."""
    for r in range(rounds):
        threads = []
        for i in range(at_once):
            body = {'prompt': 'the model is a tensor graph and step %d is %d' % (r, i),
                    'n_predict': 48 + 8 * i, 'temperature': 0, 'ignore_eos': True, 'cache_prompt': False}
            threads.append(threading.Thread(target=llamaserver.complete,
                                            args=(port, body, answers, len(answers))))
            answers.append(None)
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)


def stats_json(*args):
    rc, out, err = run(G, 'stats', '-f', 'json', *args)
    return json.loads(out) if rc == 0 else {}


def pid_of(trace):
    rc, out, err = run(G, 'dump', '-f', 'jsonl', trace)
    for line in out.splitlines():
        if '"PROCESS"' in line:
            return json.loads(line)['key']
    return None


# ---- two servers, one exporter, a real Prometheus ----
traces = [os.path.join(TMP, 'server-a.ggmlviz'), os.path.join(TMP, 'server-b.ggmlviz')]
servers = [start_server(t) for t in traces]
ok(all(port for _, port in servers), 'two llama-servers traced start and answer /health',
   [p.stderr.read()[-300:] if p.poll() is not None else 'no answer' for p, port in servers if not port])
exporter, eport, said = promlib.start_exporter(G, traces)
ok(eport is not None, 'ggmlviz serve follows both traces', said)
prom = promlib.Prometheus(TMP, [eport] if eport else [])
if prom.why:
    skip('a real Prometheus scrapes the exporter', prom.why)
answers = []
if all(port for _, port in servers):
    loads = [threading.Thread(target=load, args=(servers[0][1], 3, 3, answers)),
             threading.Thread(target=load, args=(servers[1][1], 2, 2, answers))]
    for t in loads:
        t.start()
    for t in loads:
        t.join(300)
ok(answers and all(a and 'timings' in a for a in answers),
   'a bounded load: 3 rounds of 3 requests at once on one server, 2 of 2 on the other, all answered',
   [a.get('error') if a else None for a in answers])
stopped = [llamaserver.stop(p) for p, _ in servers]
rcs = [run(G, 'validate', t)[0] for t in traces]
ok(rcs == [0, 0], 'both servers stopped by SIGTERM: their traces complete', (rcs, [s[-300:] for s in stopped]))
pids = [pid_of(t) for t in traces]
reqs = [stats_json('--by', 'request', t) for t in traces]
phases = [{g['name']: g for g in stats_json('--by', 'phase', t).get('groups', [])} for t in traces]
ttft = [sorted(r['ttft_ns'] for r in q.get('requests', []) if r['ttft_ns'] is not None) for q in reqs]
queued = [r['queue_ns'] for r in reqs[0].get('requests', [])]
ok(len(ttft[0]) == 9 and len(ttft[1]) == 4 and max(queued or [0]) > 1000000,
   'stats --by request: 9 and 4 requests, some of the first server\'s waited in the queue',
   ([len(x) for x in ttft], queued))

text = promlib.scrape(eport)[2] if eport else ''
passed, said = promlib.promtool_check(text)
if passed is None:
    skip('promtool check metrics passes on the exposition of two llama-servers', said)
else:
    ok(passed and 'ggmlviz_request_time_to_first_token_seconds_bucket' in text,
       'promtool check metrics passes on the exposition of two llama-servers', said)

if not prom.why:
    def ended():
        got = prom.query('ggmlviz_trace_state{state="ended"} == 1')
        return len(got) == 2 and all(v == 1 for _, v in got)
    deadline = time.time() + 30
    while time.time() < deadline and not ended():
        time.sleep(0.5)
    time.sleep(2.5)  # a scrape or two after the ends were read
    ok(ended() and prom.targets_up() == ['up'],
       'Prometheus scrapes the exporter every second: both traces ended', prom.targets_up())
    bounds = sorted(promlib.buckets(promlib.parse(text)[0], 'ggmlviz_request_time_to_first_token_seconds'))
    bad = []
    for i, pid in enumerate(pids):
        if not ttft[i]:
            bad.append((pid, 'no requests'))
            continue
        p95 = reqs[i]['percentiles']['ttft_ns']['p95'] / 1e9
        rank = ttft[i][math.ceil(0.95 * len(ttft[i])) - 1] / 1e9
        got = prom.query('histogram_quantile(0.95, sum by (le) '
                         '(ggmlviz_request_time_to_first_token_seconds_bucket{pid="%d"}))' % pid)
        v = got[0][1] if got else None
        hi = next((b for b in bounds if p95 <= b), float('inf'))
        lo = max([0.0] + [b for b in bounds if b < hi])
        if v is None or not (lo <= v <= min(hi, bounds[-2] if hi == float('inf') else hi)) or \
                abs(rank - p95) > 1e-9:
            bad.append((pid, 'p95', p95, 'in', (lo, hi), 'prometheus', v))
    ok(not bad, 'histogram_quantile(0.95, ...) of the time to the first token lies in the bucket '
       'that holds stats --by request\'s p95, for each server', bad)
    bad = []
    for i, pid in enumerate(pids):
        for status in ('done', 'cancelled', 'failed'):
            want = sum(1 for r in reqs[i]['requests'] if r['status'] == status)
            got = prom.query('ggmlviz_requests_total{pid="%d",status="%s"}' % (pid, status))
            if not got or got[0][1] != want:
                bad.append((pid, status, got, want))
        for phase in ('prompt', 'generation'):
            want = phases[i].get(phase, {}).get('tokens', 0)
            got = prom.query('ggmlviz_tokens_total{pid="%d",phase="%s"}' % (pid, phase))
            if not got or got[0][1] != want:
                bad.append((pid, phase, got, want))
        want = sum(r['generated_tokens'] for r in reqs[i]['requests'])
        got = prom.query('ggmlviz_request_tokens_total{pid="%d",kind="generated"}' % pid)
        if not got or got[0][1] != want:
            bad.append((pid, 'generated', got, want))
    ok(not bad, 'Prometheus: requests by status, tokens by phase and generated tokens equal stats\' '
       'for each server', bad)
    got = prom.query('sum by (pid, process) (ggmlviz_requests_total)')
    told = {lab['pid']: v for lab, v in got}
    ok(told == {str(pids[0]): 9, str(pids[1]): 4} and all(lab.get('process') == 'llama-server' for lab, _ in got),
       'Prometheus tells the two servers apart by pid (process llama-server): 9 and 4 requests', got)
prom.stop()
rc, err = promlib.stop(exporter) if exporter else (1, 'not started')
ok(rc == 0, 'the exporter stops on SIGTERM', err)

# ---- the two traces merged, as OTLP ----
merged = os.path.join(TMP, 'merged.ggmlviz')
rc, out, err = run(G, 'merge', *traces, '-o', merged)
otlp = os.path.join(TMP, 'merged.otlp.jsonl')
rc2, out, err2 = run(G, 'export', '-f', 'otlp', merged, '-o', otlp)
sp = otlplib.spans(otlp) if rc == 0 and rc2 == 0 else []
keys = collections.Counter((s['traceId'], s['spanId']) for s in sp)
by_key = {k: s for s in sp for k in [(s['traceId'], s['spanId'])]}
orphans = [s['name'] for s in sp if 'parentSpanId' in s and (s['traceId'], s['parentSpanId']) not in by_key]
roots = collections.Counter(s['resource']['process.pid'] for s in sp
                            if 'parentSpanId' not in s and 'ggmlviz.request.id' in otlplib.attrs(s))
ok(sp and not orphans and max(keys.values()) == 1 and roots == {pids[0]: 9, pids[1]: 4},
   'two llama-servers merged and exported as OTLP: every span\'s parent in its trace, no (traceId, '
   'spanId) twice, each request under its own process', (rc, rc2, err + err2, orphans[:4], roots))

# ---- a second interrupt while the server stops ----
results = []
for delay in (0.0, 0.01, 0.05, 0.2):
    trace = os.path.join(TMP, 'second-%g.ggmlviz' % delay)
    p, port = start_server(trace)
    if port:
        answers = []
        load(port, 1, 2, answers)
    p.send_signal(signal.SIGINT)
    time.sleep(delay)
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    try:
        p.communicate(timeout=20)
        ended = p.returncode
    except subprocess.TimeoutExpired:
        where, frames = llamaserver.hang_in_exit(p.pid)
        ended = 'hung in the %s' % where if where else 'hung'
        p.kill()
        p.communicate()
        if where == 'c library':
            print('# delay %g: llama-server\'s handler called exit() where the C library\'s exit '
                  'waits on a lock the interrupted code holds (as untraced), none of libggmlviz\'s '
                  'frames above exit():' % delay)
            print('\n'.join('#   ' + f for f in frames.splitlines()))
        elif where is None:
            print('# delay %g: hung, not told where: %s' % (delay, frames.splitlines()[-3:]))
    rc, out, err = run(G, 'validate', trace)
    results.append((delay, ended, rc, out.strip().splitlines()[-1:] if out else err[-200:]))
# ended: its status (llama-server's own: 0, 1, or a signal it raised, as untraced), or where it hung
ok(all(not str(r[1]).startswith('hung') or r[1] == 'hung in the c library' for r in results) and
   all(r[2] in (0, 1) for r in results),
   'a second SIGINT 0 to 200 ms after the first: the server never hangs in libggmlviz (ends at '
   'once, or hangs where its own handler\'s exit() would untraced: the C library\'s exit, told by '
   'gdb), its trace complete or said incomplete (validate 0 or 1), never damaged', results)

# ---- a short soak ----
rc, out, err = run(sys.executable, os.path.join(SRC, 'bench', 'soak-server.py'), '--tools', TOOLS,
                   '--ggmlviz', G, '--model', model, '--minutes', '1', '--out', os.path.join(TMP, 'soak'),
                   env=PLAIN)
summary = json.loads(out.strip().splitlines()[-1]) if rc in (0, 1) and out.strip() else {}
# A minute on two shared cores (the server, its clients, the exporter and top on them)
# says whether memory stays flat and nothing is lost; whether the server keeps its speed
# is the long soak's to say (a benchmark: bench/soak-server.py --minutes 20), so that
# figure is printed here, not judged.
checks = summary.get('checks', {})
speed = 'first and last parts within noise'
ok(rc in (0, 1) and checks and all(v for k, v in checks.items() if k != speed),
   'bench/soak-server.py for a minute: memory flat (server, exporter, top), nothing dropped, '
   'every request answered, the trace valid and complete', (rc, err[-600:], out[-1500:]))
print('# the minute\'s generation, ns per token over its steps\' time, first and last parts: %s'
      % summary.get('figures', {}).get('generation_ns_per_token'))
taplib.finish()
