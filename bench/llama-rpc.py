#!/usr/bin/env python3
"""What tracing both sides of GGML's RPC costs llama-bench's generation:
llama-bench with its layers on two ggml-rpc-servers on 127.0.0.1, traced
(the client and both servers: GGML_VIZ_OUTPUT set for all three) against
untraced, in rounds that alternate the modes (the order rotating), each
round its own servers and its own llama-bench run of -r repetitions.
Printed: each mode's median tg t/s (and pp's), the median of the per-round
ratios traced / untraced with their spread (target: tg 0.97 or more), and,
from the last traced round merged (ggmlviz merge), each server's clock
offset and where a generated token's time went (stats --by host).

    bench/llama-rpc.py [TOOLS] [-- LLAMA-BENCH ARGS...]

TOOLS: the folder of scripts/build-llama-tools.sh --rpc's tools (default:
third_party/llama-tools/build/bin). The model: make_tiny_llama's, 8 layers
512 wide (MODEL_WIDTH=1024 for a wider one), unless -m is given; ROUNDS (7)
rounds of each mode; llama-bench's own arguments default to -p 64 -n 32
-r 3 -t 1, each server -t 1 (SERVER_THREADS).

SPDX-License-Identifier: MIT
"""
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(TOP, 'tests'))
from llamaserver import free_port  # noqa: E402
from rpclib import listening  # noqa: E402

args = sys.argv[1:]
tools = os.path.join(TOP, 'third_party', 'llama-tools', 'build', 'bin')
if args and args[0] != '--':
    tools = args.pop(0)
bench_args = args[1:] if args and args[0] == '--' else ['-p', '64', '-n', '32', '-r', '3', '-t', '1']
G = os.path.join(TOP, 'build', 'tools', 'ggmlviz')
PLAIN = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}
ROUNDS = int(os.environ.get('ROUNDS', '7'))
TMP = tempfile.mkdtemp(prefix='llama-rpc-bench.')


def model():
    if '-m' in bench_args:
        return []
    path = os.path.join(TMP, 'model.gguf')
    width = os.environ.get('MODEL_WIDTH', '512')
    subprocess.run([os.path.join(TOP, 'build', 'examples', 'make_tiny_llama'), path, '--layers', '8',
                    '--embd', width, '--type', 'q8_0'], check=True, capture_output=True)
    return ['-m', path]


def server(traced, name):
    port = free_port()
    env = dict(PLAIN, **({'GGML_VIZ_OUTPUT': os.path.join(TMP, name + '-%p.ggmlviz')} if traced else {}))
    p = subprocess.Popen([os.path.join(tools, 'ggml-rpc-server'), '-H', '127.0.0.1', '-p', str(port),
                          '-t', os.environ.get('SERVER_THREADS', '1')], env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    while not listening(port) and p.poll() is None:
        time.sleep(0.05)
    return p, port, os.path.join(TMP, '%s-%d.ggmlviz' % (name, p.pid))


def one_round(traced, m):
    servers = [server(traced, n) for n in ('a', 'b')]
    trace = os.path.join(TMP, 'client.ggmlviz')
    env = dict(PLAIN, **({'GGML_VIZ_OUTPUT': trace} if traced else {}))
    out = subprocess.run([os.path.join(tools, 'llama-bench'), *m, '-ngl', '99', '--rpc',
                          ','.join('127.0.0.1:%d' % s[1] for s in servers), *bench_args, '-o', 'json'],
                         env=env, capture_output=True, text=True, check=True).stdout
    for p, _, _ in servers:
        p.send_signal(signal.SIGTERM)
        p.wait()
    ts = {('pp' if r['n_prompt'] else 'tg'): r['avg_ts'] for r in json.loads(out)}
    return ts, [trace] + [s[2] for s in servers]


def main():
    m = model()
    res = {False: [], True: []}
    last = None
    for r in range(ROUNDS):
        for traced in ((False, True) if r % 2 == 0 else (True, False)):
            ts, files = one_round(traced, m)
            res[traced].append(ts)
            last = files if traced else last
            print('round %d %-8s %s' % (r + 1, 'traced' if traced else 'untraced',
                                        ' '.join('%s %.1f t/s' % kv for kv in sorted(ts.items()))),
                  flush=True)
    for kind in ('pp', 'tg'):
        plain = [x[kind] for x in res[False] if kind in x]
        traced = [x[kind] for x in res[True] if kind in x]
        if not plain:
            continue
        ratios = sorted(t / p for p, t in zip(plain, traced))
        print('%s: untraced %.1f t/s, traced %.1f t/s (medians of %d rounds); traced / untraced: median'
              ' %.3f (rounds %.3f to %.3f)%s' % (kind, statistics.median(plain), statistics.median(traced),
                                                 len(plain), statistics.median(ratios), ratios[0], ratios[-1],
                                                 ', target 0.97: ' + ('met' if statistics.median(ratios) >= 0.97
                                                                      else 'missed') if kind == 'tg' else ''))
    merged = os.path.join(TMP, 'all.ggmlviz')
    subprocess.run([G, 'merge', *last, '-o', merged], check=True)
    info = subprocess.run([G, 'info', merged], capture_output=True, text=True).stdout
    print('\n'.join(ln for ln in info.splitlines() if 'clock ' in ln and 'pid' in ln))
    print(subprocess.run([G, 'stats', '--by', 'host', merged], capture_output=True, text=True).stdout)


if __name__ == '__main__':
    main()
