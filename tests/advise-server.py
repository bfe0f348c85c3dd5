#!/usr/bin/env python3
"""ggmlviz advise on llama-server (TAP): the llama-server that
scripts/build-llama-tools.sh builds, traced, on a model make_tiny_llama
writes. One slot and four requests at once, none taking its prompt from a
cache ("cache_prompt": false): the requests wait in the queue, and every
prompt is processed whole; server-queue-wait and server-prompt-cache fire.
Four slots, the same four requests at once, then the same prompt three
times more with the cache on: both rules applied and silent. Two slots,
two clients sending one request after another, and four busy loops a
CPU for 5 s in the middle (the issue's reproduction): advise --slow judges
the slow requests' window against the run's normal, and finds
slow-cpus-taken there.

    advise-server.py BUILDDIR TMPDIR TOOLS

SPDX-License-Identifier: MIT
"""
import json
import os
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llamaserver  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run  # noqa: E402

BUILD, TMP, TOOLS = sys.argv[1], sys.argv[2], sys.argv[3]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
SERVER = os.path.join(TOOLS, 'llama-server')
PROMPT = ('the model is a tensor graph and each token is a step of the graph that the '
          'tracer records with its ops')

model = os.path.join(TMP, 'tiny.gguf')
rc, _, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--type', 'q8_0')
ok(rc == 0, 'make_tiny_llama writes a model', err)


def serve(name, slots, rounds):
    """A traced llama-server of that many slots; each round a list of (prompt, cache) sent at once."""
    trace = os.path.join(TMP, name + '.ggmlviz')
    proc, port = llamaserver.start(SERVER, ['-m', model, '-np', str(slots), '-c', str(512 * slots),
                                            '-t', '2', '--no-webui'],
                                   dict(os.environ, GGML_VIZ_OUTPUT=trace))
    answers = []
    for requests in rounds if port else []:
        got = [None] * len(requests)
        threads = [threading.Thread(target=llamaserver.complete,
                                    args=(port, {'prompt': p, 'n_predict': 24, 'temperature': 0,
                                                 'cache_prompt': cache, 'ignore_eos': True}, got, i))
                   for i, (p, cache) in enumerate(requests)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        answers += got
    llamaserver.stop(proc)
    ok(port is not None and answers and all(a and a.get('content') is not None for a in answers),
       '%s: llama-server with %d slot%s answers %d requests' % (name, slots, 's' if slots > 1 else '',
                                                                  len(answers)), str(answers)[:400])
    return trace


def advise(trace):
    rc, out, err = run(G, 'advise', '-f', 'json', trace)
    j = json.loads(out) if rc == 0 else {'findings': [], 'rules': []}
    return {f['id']: f for f in j['findings']}, {r['id']: r for r in j['rules']}


four = [(PROMPT + ' %d' % i, False) for i in range(4)]
busy = serve('one-slot', 1, [four])
found, rules = advise(busy)
x = found.get('server-queue-wait')
ok(x and x['figures']['median_queue_share'] >= 0.5 and x['figures']['requests'] == 4,
   'one slot, four requests at once: server-queue-wait fires (%s)' % (x and x['title']),
   json.dumps(x or rules.get('server-queue-wait'))[:600])
x = found.get('server-prompt-cache')
ok(x and x['figures']['requests'] == 4 and 'cannot say' in x['seen'],
   'prompts sent with "cache_prompt": false: server-prompt-cache fires, and says what it cannot '
   'tell (%s)' % (x and x['title']), json.dumps(x or rules.get('server-prompt-cache'))[:600])

roomy = serve('four-slots', 4, [[(p, True) for p, _ in four], [(PROMPT, True)], [(PROMPT, True)],
                                [(PROMPT, True)]])
found, rules = advise(roomy)
for rule in ('server-queue-wait', 'server-prompt-cache'):
    ok(rule not in found and rules.get(rule, {}).get('applied'),
       'four slots, prompts cached: %s applied and silent' % rule,
       json.dumps(found.get(rule) or rules.get(rule))[:600])


def clients(port, seconds, n=2):
    """n clients, each sending one request after another for seconds; their answers."""
    end, got = time.time() + seconds, []

    def client():
        while time.time() < end:
            out = [None]
            llamaserver.complete(port, {'prompt': PROMPT, 'n_predict': 32, 'temperature': 0}, out, 0)
            got.append(out[0])
    threads = [threading.Thread(target=client) for _ in range(n)]
    for t in threads:
        t.start()
    return threads, got


# ---- other work on every CPU for 5 s while two clients are served ----
shared = os.path.join(TMP, 'shared.ggmlviz')
log = open(os.path.join(TMP, 'shared.log'), 'w')  # a hundred requests log more than a pipe holds
proc, port = llamaserver.start(SERVER, ['-m', model, '-np', '2', '-c', '1024', '-t', '1', '--no-webui'],
                               dict(os.environ, GGML_VIZ_OUTPUT=shared, GGML_VIZ_FLUSH_INTERVAL='20'),
                               log=log)
threads, answers = clients(port, 14) if port else ([], [])
time.sleep(4)
loops_at = time.time_ns()
# four loops a CPU: the window's share well under the normal's, whatever else runs beside the test
loops = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
         for _ in range(4 * (os.cpu_count() or 2))]
time.sleep(5)
for p in loops:
    p.kill()
    p.wait()
loops_end = time.time_ns()
for t in threads:
    t.join(120)
llamaserver.stop(proc)
log.close()
ok(port and len(answers) > 20 and all(a and a.get('content') is not None for a in answers),
   'two clients on two slots, busy loops for 5 s in the middle: %d requests answered' % len(answers),
   str([a for a in answers if not a or a.get('content') is None])[:300])
rc, out, err = run(G, 'advise', '-f', 'json', '--slow', shared)
j = json.loads(out) if rc == 0 else {'findings': [], 'rules': [], 'judged': []}
x = {f['id']: f for f in j['findings']}.get('slow-cpus-taken')
rc2, rout, _ = run(G, 'stats', '--by', 'request', '-f', 'json', shared)
reqs = {r['request']: r for r in json.loads(rout)['requests']} if rc2 == 0 else {}
during = [r for r in j['judged'] if r['request'] in reqs]
fig = x['figures'] if x else {}
ok(x and during and (fig['window_cpu_per_s'] < 0.5 * fig['normal_cpu_per_s'] or
                     fig['window_cpu_share'] < 0.75 * fig['normal_cpu_share']),
   'advise --slow: slow-cpus-taken, the window\'s CPU time a second (%s) and share (%s) against the'
   ' normal\'s (%s, %s), %d requests judged'
   % tuple([round(fig.get(k, -1), 2) for k in ('window_cpu_per_s', 'window_cpu_share', 'normal_cpu_per_s',
                                               'normal_cpu_share')] + [len(during)]),
   json.dumps(x or j)[:800])
rc, out, err = run(G, 'advise', '--slow', shared)
print('# ' + '\n# '.join(out.splitlines()[:4]))
print('# the busy loops: from +%.1f s for %.1f s' % ((loops_at - min([r['arrival_ns'] for r in reqs.values()] or
                                                                   [loops_at])) / 1e9,
                                                    (loops_end - loops_at) / 1e9))

rc, out, err = run(G, 'stats', '--by', 'request', busy)
ok(rc == 0 and out.count('\n') > 4, 'stats --by request reads the same requests', out[-400:] + err)
taplib.finish()
