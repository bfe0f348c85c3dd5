#!/usr/bin/env python3
"""GGML's RPC in the command (TAP), on tests/gen-rpc's client and two
servers, whose every time is known, each server on a clock of its own:

- merge ties each server connection to its client's and estimates each
  server's clock offset: within its uncertainty of the true skew (+0.5 s,
  -0.123 s), the uncertainty within the one-way delay; info says both; after
  merge, every server op lies inside its command's round trip (and in the
  servers' own traces, with their clocks, they do not: the check can fail);
- stats --by host: each step's client time, the servers' work and the wire
  add up to the step's time (within 5%; here exactly), the work and wire
  per token those of the model; text and JSON;
- stats --by command: the commands by kind, counts and bytes of the model;
- a connection dropped mid-command: the command failed on both sides;
- a server restarted during the run: its two traces tied to the client's
  two connections, each aligned, one after the other;
- bad input: a server trace without its client's, or one of another run:
  refused, said, nothing written.

    tool-rpc.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rpclib  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
GEN = os.path.join(BUILD, 'tests', 'gen-rpc')
SKEW_A, SKEW_B, DELAY = 500000000, -123456789, 200000


def gen(name, *args):
    d = os.path.join(TMP, name)
    os.mkdir(d)
    rc, out, err = run(GEN, d, *args)
    return d if rc == 0 else None


def signed(v):
    return v - (1 << 64) if v >= 1 << 63 else v


def clocks(recs):
    return {r['pid']: (signed(r['value']), r['value2']) for r in recs
            if r['type'] == 'META' and r.get('kind') == 'RPC_CLOCK'}


# ---- alignment ----
d = gen('skew', '--skew-a', str(SKEW_A), '--skew-b', str(SKEW_B), '--delay-us', str(DELAY // 1000))
client, a, b = (os.path.join(d, n) for n in ('client.ggmlviz', 'server-a.ggmlviz', 'server-b.ggmlviz'))
merged = os.path.join(d, 'all.ggmlviz')
rc, out, err = run(G, 'merge', client, a, b, '-o', merged)
ok(rc == 0 and err == '', 'merge: a client and its two servers, each on its own clock', err)
recs = rpclib.records(G, merged)
k = clocks(recs)
good = len(k) == 2 and all(abs(k[pid][0] - skew) <= k[pid][1] and k[pid][1] <= DELAY + 10000
                           for pid, skew in ((201, SKEW_A), (301, SKEW_B)))
ok(good, 'each server\'s offset within its uncertainty of the true skew, the uncertainty within'
   ' the one-way delay', k)
rc, out, err = run(G, 'info', merged)
ok(rc == 0 and out.count('clock +499.99') == 1 and out.count('clock -123.45') == 1,
   'info says each server\'s clock offset', out[-1500:])
checked, outside = rpclib.ops_outside(recs)
ok(checked == 2 * 8 * 4 and not outside, 'after merge, every server op (%d) lies inside its'
   ' command\'s round trip' % checked, outside[:4])
raw = rpclib.records(G, client) + rpclib.records(G, a) + rpclib.records(G, b)
checked, outside = rpclib.ops_outside(raw)
ok(len(outside) == checked == 64, 'the servers\' own traces, on their own clocks: no op inside'
   ' its round trip (what the check sees without alignment)', len(outside))

# ---- stats --by host ----
rc, out, err = run(G, 'stats', '--by', 'host', '-f', 'json', merged)
j = json.loads(out) if rc == 0 else {}
steps = j.get('steps', [])
sums = [s['client_ns'] + sum(h['compute_ns'] + h['wire_ns'] for h in s['hosts']) for s in steps]
ok(len(steps) == 8 and all(abs(x - s['time_ns']) <= 0.05 * s['time_ns'] for x, s in zip(sums, steps)),
   'stats --by host: client + work + wire is each step\'s time, within 5%',
   [(x, s['time_ns']) for x, s in zip(sums, steps)][:3])
ok(all(s['unaccounted_ns'] == 0 for s in steps), 'here exactly: nothing unaccounted',
   [s['unaccounted_ns'] for s in steps])
hosts = [h for s in steps for h in s['hosts']]
ok(len(hosts) == 16 and all(400000 <= h['compute_ns'] <= 420000 for h in hosts),
   'each host\'s work a step: its 4 ops of 100 us and its commands\' few us',
   [h['compute_ns'] for h in hosts][:4])
ok(all(2 * DELAY <= h['wire_ns'] <= 2 * DELAY + 30000 for h in hosts),
   'each host\'s wire a step: GET_TENSOR\'s two one-way delays and the sends\' time',
   [h['wire_ns'] for h in hosts][:4])
ok(all(s['client_ops_ns'] == 50000 for s in steps) and
   all(h['round_trips'] == 1 and h['commands'] == 3 and h['bytes_in'] == 4104 for h in hosts),
   'the client\'s own op, round trips, commands and bytes of the model', steps[:1])
rc, out, err = run(G, 'stats', '--by', 'host', merged)
ok(rc == 0 and 'generation: 8 steps, 8 tokens; per token:' in out and 'unaccounted +0 ns' in out and
   '127.0.0.1:50050 (pid 201)' in out, 'stats --by host as text', out)

# ---- the report ----
page = os.path.join(d, 'report.html')
rc, out, err = run(G, 'report', merged, '-o', page)
html = open(page).read() if rc == 0 else ''
ok(rc == 0 and '"name":"server 127.0.0.1:50050: 201"' in html and '"name":"client: 102"' in html and
   html.count('\n[7,') == 48 + 52, 'report: each host\'s lanes named by it, each command a slice on'
   ' the lane that sent or served it', err)

# ---- stats --by command ----
rc, out, err = run(G, 'stats', '--by', 'command', '-f', 'json', merged)
cmds = {c['command']: c for c in json.loads(out)['commands']} if rc == 0 else {}
ok({n: c['count'] for n, c in cmds.items()} ==
   {'SET_TENSOR': 16, 'GET_TENSOR': 16, 'GRAPH_COMPUTE': 2, 'GRAPH_RECOMPUTE': 14} and
   cmds['GET_TENSOR']['per_generation_step'] == 2.0 and cmds['GET_TENSOR']['bytes_in'] == 16 * 4104,
   'stats --by command: the commands of the model', cmds)
ok(all(2 * DELAY <= cmds['GET_TENSOR']['wire_ns'] / 16 <= 2 * DELAY + 10000 for _ in [0]),
   'GET_TENSOR\'s wire: its round trip less the work it waited for', cmds.get('GET_TENSOR'))
rc, out, err = run(G, 'stats', '--by', 'command', merged)
ok(rc == 0 and 'GRAPH_RECOMPUTE' in out and 'PER GEN STEP' in out, 'stats --by command as text', out)

# ---- advise ----
def advise(name, *args):
    d = gen(name, *args)
    paths = [os.path.join(d, n) for n in ('client.ggmlviz', 'server-a.ggmlviz', 'server-b.ggmlviz')]
    run(G, 'merge', *paths, '-o', os.path.join(d, 'all.ggmlviz'))
    rc, out, err = run(G, 'advise', '-f', 'json', os.path.join(d, 'all.ggmlviz'))
    j = json.loads(out) if out else {}
    return {x['id'] for x in j.get('findings', [])}, j


fired, j = advise('slow', '--delay-us', '2000')
ok({'rpc-network-bound', 'rpc-round-trips'} <= fired, 'advise on a link of 2 ms each way: the steps'
   ' wait on the network more than they compute, and their round trips', j.get('findings'))
fired, j = advise('fast', '--delay-us', '5')
ok(j and not fired & {'rpc-network-bound', 'rpc-round-trips'}, 'advise on a link of 5 us: neither',
   j.get('findings'))
rc, out, err = run(G, 'advise', client)
ok('rpc-network-bound: a server\'s trace is not merged in' in out, 'advise on a client alone: the'
   ' rules not applied, and why', out[-800:])

# ---- a connection dropped mid-command ----
d = gen('fail', '--fail')
rc, out, err = run(G, 'merge', *(os.path.join(d, n) for n in ('client.ggmlviz', 'server-a.ggmlviz',
                                                             'server-b.ggmlviz')),
                   '-o', os.path.join(d, 'all.ggmlviz'))
recs = rpclib.records(G, os.path.join(d, 'all.ggmlviz'))
failed = [r for r in recs if r['type'] == 'RPC_END' and r['status'] == 1]
ok(rc == 0 and len(failed) == 2 and {r['side'] for r in failed} == {1, 2} and
   len({(r['conn'], r['seq']) for r in failed}) == 1,
   'a connection dropped mid-command: the command failed on both sides, one command after merge',
   failed)
rc, out, err = run(G, 'stats', '--by', 'command', '-f', 'json', os.path.join(d, 'all.ggmlviz'))
cmds = {c['command']: c for c in json.loads(out)['commands']} if out else {}
ok(cmds.get('GET_TENSOR', {}).get('failed') == 1, 'stats --by command counts it failed', out)

# ---- a server restarted ----
d = gen('restart', '--restart', '--skew-a', str(SKEW_A))
paths = [os.path.join(d, n) for n in ('client.ggmlviz', 'server-a.ggmlviz', 'server-a2.ggmlviz',
                                      'server-b.ggmlviz')]
rc, out, err = run(G, 'merge', *paths, '-o', os.path.join(d, 'all.ggmlviz'))
recs = rpclib.records(G, os.path.join(d, 'all.ggmlviz'))
k = clocks(recs)
ok(rc == 0 and set(k) == {201, 202, 301} and all(abs(k[p][0] - SKEW_A) <= k[p][1] for p in (201, 202)),
   'a server restarted: both its traces tied and aligned', (err, k))
span = {p: [r['ts'] for r in recs if r['pid'] == p and r['type'] != 'META'] for p in (201, 202)}
ok(span[201] and span[202] and max(span[201]) < min(span[202]),
   'the first process\'s records all before the second\'s', {p: (min(v), max(v)) for p, v in span.items() if v})
checked, outside = rpclib.ops_outside(recs)
ok(checked == 64 and not outside, 'every op of both inside its command\'s round trip', outside[:3])

# ---- bad input ----
alone = os.path.join(TMP, 'alone.ggmlviz')
rc, out, err = run(G, 'merge', a, '-o', alone)
ok(rc == 1 and 'no client\'s trace is given' in err and a in err and not os.path.exists(alone),
   'a server trace without its client\'s: refused, said, nothing written', err)
d2 = gen('other', '--seed', '7')
rc, out, err = run(G, 'merge', client, os.path.join(d2, 'server-b.ggmlviz'), '-o', alone)
ok(rc == 1 and 'match those of no client trace given' in err and not os.path.exists(alone),
   'a server trace of another run: refused, said, nothing written', err)
rc, out, err = run(G, 'stats', '--by', 'host', client)
ok(rc == 0 and '(no trace)' in out, 'stats --by host of a client alone: its servers\' time is all'
   ' wire, said', out)
taplib.finish()
