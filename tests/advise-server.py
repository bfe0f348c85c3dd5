#!/usr/bin/env python3
"""ggmlviz advise on llama-server (TAP): the llama-server that
scripts/build-llama-tools.sh builds, traced, on a model make_tiny_llama
writes. One slot and four requests at once, none taking its prompt from a
cache ("cache_prompt": false): the requests wait in the queue, and every
prompt is processed whole; server-queue-wait and server-prompt-cache fire.
Four slots, the same four requests at once, then the same prompt three
times more with the cache on: both rules applied and silent.

    advise-server.py BUILDDIR TMPDIR TOOLS

SPDX-License-Identifier: MIT
"""
import json
import os
import sys
import threading

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
rc, out, err = run(G, 'stats', '--by', 'request', busy)
ok(rc == 0 and out.count('\n') > 4, 'stats --by request reads the same requests', out[-400:] + err)
taplib.finish()
