#!/usr/bin/env python3
"""GGML's RPC backend traced on both sides (TAP): llama-bench with its
layers on two traced ggml-rpc-servers on 127.0.0.1, built by
scripts/build-llama-tools.sh --rpc, on a model make_tiny_llama writes.

Server A runs as it is; server B with its clocks shifted, as on a host
whose NTP is off: its wall clock half a second ahead (libfaketime,
FAKETIME=+0.5), its monotonic clock 1000 s ahead (unshare -T --monotonic:
root only, else said and left out), behind a TCP relay of the test's own
that holds each message 1 ms each way (tests/tcprelay.py).

- each trace complete: the servers' ended by SIGTERM;
- the client's commands inside its steps, the servers' ops named and in
  their layers; the scheduler's copies into the client's runs counted
  alike at every step of a size (a run that reads one is asked in full
  every time: ggmlviz_nodes_ask_always(3));
- merge: A's offset within 1 ms of 0, B's within 1 ms of +500 ms; every
  server op inside its command's round trip;
- stats --by host: each generation token's client time, servers' work and
  wire add up to its time within 5%; stats --by command; advise's RPC
  rules applied;
- faults: server A restarted between two runs (its two traces tied to
  the two runs, aligned, one after the other); a connection dropped in the
  middle of the model's upload (the client aborts: its command failed, as
  the server's).

    llama-rpc.py BUILDDIR TMPDIR TOOLSDIR

SPDX-License-Identifier: MIT
"""
import glob
import json
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import llamaserver  # noqa: E402
import rpclib  # noqa: E402
import taplib  # noqa: E402
from tcprelay import Relay  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP, TOOLS = (os.path.abspath(a) for a in sys.argv[1:4])
G = os.path.join(BUILD, 'tools', 'ggmlviz')
BENCH = os.path.join(TOOLS, 'llama-bench')
SERVER = os.path.join(TOOLS, 'ggml-rpc-server')
PLAIN = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}
FAKETIME = (glob.glob('/usr/lib/*/faketime/libfaketime.so.1') + [None])[0]
SHIFT_NS = 500000000
BENCH_ARGS = ['-ngl', '99', '-p', '8', '-n', '8', '-r', '2', '-t', '1', '-o', 'json']


def monotonic_shift():
    """unshare's prefix for a monotonic clock 1000 s ahead, or (None, why not)."""
    if os.geteuid() != 0:
        return None, 'not root: unshare -T needs it (CI runs as root)'
    rc, out, err = run('unshare', '-T', '--monotonic', '1000', 'true')
    if rc != 0:
        return None, 'unshare -T --monotonic fails here: ' + err.strip()
    return ['unshare', '-T', '--monotonic', '1000'], None


class Server:
    def __init__(self, name, env=None, prefix=()):
        self.port = llamaserver.free_port()
        self.log = open(os.path.join(TMP, name + '.log'), 'w')
        self.out = os.path.join(TMP, name + '-%p.ggmlviz')
        e = dict(PLAIN, GGML_VIZ_OUTPUT=self.out, **(env or {}))
        self.p = subprocess.Popen([*prefix, SERVER, '-H', '127.0.0.1', '-p', str(self.port), '-t', '1'],
                                  env=e, stdout=self.log, stderr=subprocess.STDOUT)
        for _ in range(600):
            if rpclib.listening(self.port) or self.p.poll() is not None:
                break
            time.sleep(0.1)
        self.trace = self.out.replace('%p', str(self.p.pid))

    def idle(self, timeout=20):
        """Waits until the server is done with every client it accepted (its own messages say)."""
        for _ in range(timeout * 10):
            with open(self.log.name) as f:
                text = f.read()
            if text.count('Accepted client connection') == text.count('Client connection closed'):
                return True
            time.sleep(0.1)
        return False

    def stop(self):
        self.log.flush()
        self.p.send_signal(signal.SIGTERM)
        try:
            self.p.wait(60)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
        self.log.close()
        return self.p.returncode


def bench(name, *endpoints, args=BENCH_ARGS):
    trace = os.path.join(TMP, name + '.ggmlviz')
    rc, out, err = run(BENCH, '-m', model, '--rpc', ','.join('127.0.0.1:%d' % p for p in endpoints),
                       *args, env=dict(PLAIN, GGML_VIZ_OUTPUT=trace))
    return rc, trace, out, err


def stats(by, path):
    rc, out, err = run(G, 'stats', '--by', by, '-f', 'json', path)
    return json.loads(out) if rc == 0 and out else {}


model = os.path.join(TMP, 'tiny.gguf')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_llama'), model, '--layers', '4')
ok(rc == 0, 'make_tiny_llama writes a 4-layer model', err)

# ---- the run: A as it is, B shifted behind the relay ----
prefix, why = monotonic_shift()
shifted = {'LD_PRELOAD': FAKETIME, 'FAKETIME': '+0.5', 'FAKETIME_DONT_FAKE_MONOTONIC': '1'} if FAKETIME else {}
a = Server('a')
b = Server('b', shifted, prefix or ())
relay = Relay(llamaserver.free_port(), b.port, delay_s=0.001)
ok(rpclib.listening(a.port) and rpclib.listening(b.port), 'two traced ggml-rpc-servers listen, B\'s clocks shifted'
   + ('' if FAKETIME else ' (no libfaketime: scripts/install-deps.sh installs it)'))
if not prefix:
    skip('B\'s monotonic clock shifted too', why)
rc, client1, out, err = bench('client1', a.port, relay.sock.getsockname()[1])
results = json.loads(out) if rc == 0 else []
ok(rc == 0 and len(results) == 2 and all(r.get('backends') == 'RPC' for r in results),
   'llama-bench --rpc A,B (B through the relay): its results, on RPC', err[-600:])
a1 = a.trace
a.stop()  # A restarts: its second process serves the second run
a = Server('a2')
rc, client2, out, err = bench('client2', a.port, relay.sock.getsockname()[1],
                              args=['-ngl', '99', '-p', '0', '-n', '4', '-r', '1', '-t', '1'])
ok(rc == 0, 'a second run, after A restarted', err[-400:])
rcs = [a.stop(), b.stop()]
relay.close()
traces = [client1, client2, a1, a.trace, b.trace]
valid = [run(G, 'validate', t) for t in traces]
ok(all(v[0] == 0 and 'complete' in v[1] for v in valid) and rcs == [-signal.SIGTERM] * 2,
   'every trace complete; the servers, stopped by SIGTERM, end as SIGTERM ends them',
   [v[1] + v[2] for v in valid] + [rcs])

# ---- each side alone ----
recs = rpclib.records(G, client1)
steps = [r for r in recs if r['type'] in ('STEP_BEGIN', 'STEP_END')]
ends = [r for r in recs if r['type'] == 'RPC_END' and r['side'] == 1]
ok(ends and steps and all(e['status'] == 0 for e in ends) and
   {e['cmd'] for e in ends} >= {6, 8, 16} and
   any(r['type'] == 'META' and r.get('kind') == 'THREAD_NAME' and 'rpc 127.0.0.1:' in (r['label'] or '')
       for r in recs),
   'the client records its commands (SET_TENSOR, GET_TENSOR, GRAPH_RECOMPUTE), each on its'
   ' connection\'s thread "rpc HOST:PORT"', {e['cmd'] for e in ends})
# the scheduler's copies into the client's runs, counted at every step (memory tracking): a run
# that reads one is asked in full every time (ggmlviz_nodes_ask_always), the others' repeats alone
copies, step = {}, None
for r in recs:
    if r['type'] == 'STEP_BEGIN':
        step = [0, 0]
    elif r['type'] == 'STEP_END' and step is not None:
        copies.setdefault(r.get('n_tokens'), set()).add(tuple(step))
        step = None
    elif r['type'] == 'COUNTER' and r.get('label') == 'sched_copy_bytes' and step is not None:
        step[0] += 1
        step[1] += r['value']
ok(copies and all(len(v) == 1 and min(v)[0] > 0 for v in copies.values()),
   'the client counts the same copies into its runs at every step of a size (sched_copy_bytes)',
   copies)
layers = stats('layer', b.trace)
named = [g for g in layers.get('groups', []) if g.get('name') not in (None, '(none)')]
ok(len(named) >= 1 and all(g['count'] > 0 for g in named), 'server B\'s ops named and in their'
   ' layers', layers.get('groups'))
rc, out, err = run(G, 'info', b.trace)
ok(rc == 0 and 'its clock is its own (not aligned' in out and 'measured' in out,
   'info on a server trace alone: its ops measured, its clock its own', out[-1200:])

# ---- merged ----
merged = os.path.join(TMP, 'all.ggmlviz')
rc, out, err = run(G, 'merge', *traces, '-o', merged)
ok(rc == 0, 'merge: two runs of the client, A\'s two processes and B', err)
recs = rpclib.records(G, merged)
clock = {r['pid']: (r['value'] - (1 << 64) if r['value'] >= 1 << 63 else r['value'], r['value2'])
         for r in recs if r['type'] == 'META' and r.get('kind') == 'RPC_CLOCK'}
pids = {t: int(t.rsplit('-', 1)[1].split('.')[0]) for t in (a1, a.trace, b.trace)}
off = {t: clock.get(p, (None, None)) for t, p in pids.items()}
ok(len(clock) == 3 and all(abs(off[t][0]) <= 1000000 for t in (a1, a.trace)),
   'A\'s offset within 1 ms of 0 (its two processes, each on its own)', off)
ok(FAKETIME and off[b.trace][0] is not None and abs(off[b.trace][0] - SHIFT_NS) <= 1000000,
   'B\'s offset within 1 ms of the +500 ms its wall clock was shifted by', off[b.trace])
checked, outside = rpclib.ops_outside(recs)
ok(checked > 100 and not outside, 'every server op (%d) inside its command\'s round trip' % checked,
   outside[:3])
span = {t: [r['ts'] for r in recs if r['pid'] == p and r['type'] != 'META'] for t, p in pids.items()}
ok(span[a1] and span[a.trace] and max(span[a1]) < min(span[a.trace]),
   'A restarted: its first process\'s records all before its second\'s', [len(v) for v in span.values()])

# ---- where the tokens' time went ----
hosts = stats('host', merged)
gen = [s for s in hosts.get('steps', []) if s['phase'] == 'generation']
bad = [s for s in gen if abs(s['unaccounted_ns']) > 0.05 * s['time_ns']]
ok(len(gen) >= 16 and not bad and all(sum(h['commands'] > 0 for h in s['hosts']) == 2 for s in gen),
   'stats --by host: each token\'s client time, servers\' work and wire its time within 5%% (%d'
   ' tokens, the worst %.2f%%)' % (len(gen), max([100.0 * abs(s['unaccounted_ns']) / s['time_ns']
                                               for s in gen] or [0])), bad[:2])
b_host = [i for i, x in enumerate(hosts.get('hosts', [])) if x['pid'] == pids[b.trace]]
ok(b_host and all(s['hosts'][b_host[0]]['wire_ns'] >= 2000000 for s in gen),
   'B\'s wire a token: its round trip through the relay, 2 ms or more', [s['hosts'] for s in gen[:1]])
cmds = {c['command']: c for c in stats('command', merged).get('commands', [])}
ok({'SET_TENSOR', 'GET_TENSOR', 'GRAPH_COMPUTE', 'GRAPH_RECOMPUTE'} <= set(cmds) and
   all(c['served'] == c['count'] for n, c in cmds.items() if n in ('GET_TENSOR', 'GRAPH_RECOMPUTE')),
   'stats --by command: every generation command served by a server traced', sorted(cmds))
rc, out, err = run(G, 'advise', '-f', 'json', merged)
rules = {r['id']: r for r in json.loads(out).get('rules', [])} if out else {}
ok(all(rules.get(i, {}).get('applied') for i in ('rpc-network-bound', 'rpc-round-trips')),
   'advise weighs the RPC rules on the merged run', {i: rules.get(i) for i in ('rpc-network-bound',
                                                                            'rpc-round-trips')})

# ---- a connection dropped in the middle of the upload ----
c = Server('c')
relay = Relay(llamaserver.free_port(), c.port, drop_after=1 << 20)
rc, client3, out, err = bench('client3', relay.sock.getsockname()[1])
relay.dropped.wait(10)
c.idle()  # the server saw the connection end, and recorded the command it cut
c.stop()
relay.close()
merged3 = os.path.join(TMP, 'dropped.ggmlviz')
run(G, 'merge', client3, c.trace, '-o', merged3)
recs = rpclib.records(G, merged3)
failed = {r['side'] for r in recs if r['type'] == 'RPC_END' and r['status'] == 1}
crash = [r for r in recs if r['type'] == 'META' and r.get('kind') == 'CRASH']
ok(rc != 0 and relay.dropped.is_set() and failed == {1, 2} and crash,
   'a connection dropped mid-upload: the client aborts, its command and the server\'s recorded'
   ' failed, its trace ends with the crash', (rc, failed, len(crash), err[-300:]))
taplib.finish()
