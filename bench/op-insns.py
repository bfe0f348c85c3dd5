#!/usr/bin/env python3
"""What tracing adds to each op of a llama.cpp decode, in instructions,
counted by callgrind: deterministic where tokens a second on a shared
machine move by 10% from one round to the next, so that a change of 50
instructions an op shows.

llama-bench (built by scripts/build-llama-tools.sh: every worker's share
measured, each split graph named) generates tokens on the quick start's
model at one thread, untraced and traced, each under callgrind with a
file per thread. Printed, per op of the run: the instructions of the
library's and the adapter's functions on the thread that computes the
graph (the ask, the tick, the shares, the graph's end, the run recorded;
the first run's descriptions are in it, spread over the run's ops), by
function, and the other threads' whole count (the writer's: at one
thread GGML starts no worker); with --before DIR, the same for the tools
in DIR (an earlier build), side by side. GGML's own functions that the
adapter calls (ggml_nbytes, the scheduler's lookups) are not counted:
the untraced run calls them too.

    op-insns.py [--tools DIR] [--before DIR] [--tokens N] [--ggmlviz G] [--rows N]

--tools: the tools' folder (default third_party/llama-tools/build/bin);
--tokens: tokens generated (default 32); --ggmlviz: the command that
counts the trace's ops (default build/tools/ggmlviz); --rows: functions
listed, the largest first (default 16). Needs valgrind.
Instructions are not time: a cache miss is one instruction; the op's time
is llama-bench.sh's to measure. One thread only: with two, callgrind
runs the threads one at a time, and OpenMP's workers spin at each
barrier for as long as they are left to.

SPDX-License-Identifier: MIT
"""
import argparse
import collections
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# libggmlviz's sources (lib/, by their path in this checkout or another), the adapter's
# functions (ggmlviz in their name), and the C library's string searches its memory
# tracking made; judged on the function's file and name, not on where a clone lies
OWN_FILE = re.compile(r'(^|/)lib/(tracer|format|util|reader)/(.*/)?[^/]+\.[ch]$')
OWN_NAME = re.compile(r'ggmlviz|^__strr?chr_')


def is_own(name):
    """Whether callgrind's FILE:FUNCTION is the library's or the adapter's."""
    path, _, func = name.rpartition(':')
    return (bool(OWN_FILE.search(path)) and '/third_party/' not in path) or bool(OWN_NAME.search(func))


def functions(path):
    """Each function's own instructions in one of callgrind's files."""
    out = subprocess.run(['callgrind_annotate', '--threshold=100', '--auto=no', path],
                         capture_output=True, text=True, check=True).stdout
    counts = collections.Counter()
    for line in out.splitlines():
        m = re.match(r'^\s*([\d,]+) \([^)]*\)\s+(.*)$', line)
        if m and 'PROGRAM TOTALS' not in line:
            counts[re.sub(r' \[.*\]$', '', m.group(2))] += int(m.group(1).replace(',', ''))
    return counts


def short(name):
    """A function's name without its folder: lib's file and function, or the adapter's."""
    path, _, func = name.rpartition(':')
    if path == '???' and 'ggmlviz' in func:
        return 'adapter: ' + func
    return re.sub(r'^(.*/)?(lib|include)/', '', path) + ':' + func


def measure(tools, model, tokens, tmp, tag, traced):
    """Runs llama-bench under callgrind; (the graph's thread's counts, the other threads' sum:
    the writer's, and OpenMP's none at one thread)."""
    out = os.path.join(tmp, tag + '.cg')
    env = dict(os.environ)
    env.pop('GGML_VIZ_OUTPUT', None)
    if traced:
        env['GGML_VIZ_OUTPUT'] = os.path.join(tmp, tag + '.ggmlviz')
    subprocess.run(['valgrind', '--tool=callgrind', '--separate-threads=yes',
                    '--callgrind-out-file=' + out, os.path.join(tools, 'llama-bench'),
                    '-m', model, '-p', '0', '-n', str(tokens), '-r', '1', '-t', '1'],
                   env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   check=True)
    files = sorted(glob.glob(out + '-*'))
    main = functions(files[0])
    others = sum(sum(functions(f).values()) for f in files[1:])
    return main, others


def ops_of(ggmlviz, trace):
    """The trace's ops (every step's, the warm-up's included)."""
    out = subprocess.run([ggmlviz, 'stats', '-f', 'json', trace], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)['ops']


def account(tools, model, tokens, tmp, tag, ggmlviz):
    """A build's instructions an op: (by function on the graph's thread, its sum, the writer's)."""
    plain, _ = measure(tools, model, tokens, tmp, tag + '-plain', False)
    traced, writer = measure(tools, model, tokens, tmp, tag, True)
    ops = ops_of(ggmlviz, os.path.join(tmp, tag + '.ggmlviz'))
    own = collections.Counter()
    for name, n in traced.items():
        if is_own(name):
            own[short(name)] += (n - plain.get(name, 0)) / ops
    return own, sum(own.values()), writer / ops, ops


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tools', default=os.path.join(TOP, 'third_party/llama-tools/build/bin'))
    ap.add_argument('--before')
    ap.add_argument('--tokens', type=int, default=32)
    ap.add_argument('--ggmlviz', default=os.path.join(TOP, 'build/tools/ggmlviz'))
    ap.add_argument('--rows', type=int, default=16)
    a = ap.parse_args()
    a.tools = os.path.abspath(a.tools)
    a.before = a.before and os.path.abspath(a.before)
    if not shutil.which('valgrind'):
        sys.exit('op-insns: valgrind is not installed')
    for d in [a.tools] + ([a.before] if a.before else []):
        if not os.access(os.path.join(d, 'llama-bench'), os.X_OK):
            sys.exit('op-insns: no llama-bench in %s (scripts/build-llama-tools.sh builds it)' % d)
    tmp = tempfile.mkdtemp(prefix='op-insns.')
    try:
        model = os.path.join(tmp, 'model.gguf')
        subprocess.run([os.path.join(TOP, 'build/examples/make_tiny_llama'), model, '--layers', '8',
                        '--embd', '512', '--heads', '8', '--kv-heads', '4', '--ff', '1408',
                        '--vocab', '2048', '--type', 'q8_0'], stdout=subprocess.DEVNULL, check=True)
        builds = [('after', a.tools)] + ([('before', a.before)] if a.before else [])
        got = {tag: account(d, model, a.tokens, tmp, tag, a.ggmlviz) for tag, d in builds}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tags = [t for t, _ in builds][::-1]
    print('op-insns: llama-bench -p 0 -n %d -t 1 on the quick start\'s model, under callgrind; '
          'instructions an op of the run (%s)' % (a.tokens, ', '.join(
              '%s: %d ops' % (t, got[t][3]) for t in tags)))
    names = collections.Counter()
    for t in tags:
        for k, v in got[t][0].items():
            names[k] = max(names[k], abs(v))
    print('  %-64s %s' % ('on the graph\'s thread, by function', '  '.join('%8s' % t for t in tags)))
    for k, _ in names.most_common(a.rows):
        print('  %-64s %s' % (k[:64], '  '.join('%8.1f' % got[t][0].get(k, 0.0) for t in tags)))
    print('  %-64s %s' % ('in all, the graph\'s thread', '  '.join('%8.1f' % got[t][1] for t in tags)))
    print('  %-64s %s' % ('the other threads, the writer\'s (all of their instructions)',
                          '  '.join('%8.1f' % got[t][2] for t in tags)))


if __name__ == '__main__':
    main()
