#!/usr/bin/env python3
"""What tracing adds to each op of a llama.cpp decode, in instructions,
counted by callgrind: deterministic where tokens a second on a shared
machine move by 10% from one round to the next, so that a change of 50
instructions an op shows.

llama-bench (built by scripts/build-llama-tools.sh: every worker's share
measured, each split graph named) generates tokens on the quick start's
model, untraced and traced, each under callgrind with a file per
thread. Printed, per op of the run: the instructions of the library's
and the adapter's functions on the thread that computes the graph (the
ask, the tick, the shares, the graph's end, the run recorded; the first
run's descriptions are in it, spread over the run's ops, unless
--steady), by function; at more than one thread the same for a GGML
worker (their mean: the shares and their records; the worker whose
graph end is shorter waits at the graph's end for the other); and the
other threads' whole count (the writer's). With --before DIR, the same
for the tools in DIR (an earlier build), side by side. GGML's own
functions that the adapter calls (ggml_nbytes, the scheduler's lookups)
are not counted: the untraced run calls them too.

    op-insns.py [--tools DIR] [--before DIR] [--tokens N] [--threads N] [--steady]
                [--ggmlviz G] [--rows N]

--tools: the tools' folder (default third_party/llama-tools/build/bin;
where valgrind stops at an instruction it does not know, AVX-512's,
build the tools with scripts/build-llama-tools.sh --portable and give
third_party/llama-tools-portable/build/bin); --tokens: tokens generated
(default 32); --threads: llama-bench's -t (default 1); --steady: the
instructions of the ops of 2 x N tokens more (a run of N tokens and one
of 3 x N, their difference): what every token's ops cost once the first
graph is described and each thread has its slot; --ggmlviz: the command
that counts the trace's ops (default build/tools/ggmlviz); --rows:
functions listed, the largest first (default 16). Needs valgrind.
Instructions are not time: a cache miss is one instruction, and a time
read one; the op's time is llama-bench.sh's and op-pair.sh's to
measure. At more than one thread callgrind runs the threads one at a
time, and the runs set OMP_WAIT_POLICY=passive, so that OpenMP's
workers sleep at a barrier instead of spinning for as long as they are
left to: GGML's own counts change with it, the library's do not.

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


def role(counts):
    """A thread's part, from its functions: a GGML worker's computes nodes."""
    if any('ggml_graph_compute_thread' in k for k in counts):
        return 'worker'
    return 'other'


def measure(tools, model, tokens, threads, tmp, tag, traced):
    """Runs llama-bench under callgrind; {role: [counts of each thread]}: the graph's thread
    (callgrind's first file: llama-bench's main thread, GGML's thread 0), its workers, and
    the others (the writer's)."""
    out = os.path.join(tmp, tag + '.cg')
    env = dict(os.environ)
    env.pop('GGML_VIZ_OUTPUT', None)
    env['OMP_WAIT_POLICY'] = 'passive'
    if traced:
        env['GGML_VIZ_OUTPUT'] = os.path.join(tmp, tag + '.ggmlviz')
    done = subprocess.run(['valgrind', '--tool=callgrind', '--separate-threads=yes',
                           '--callgrind-out-file=' + out, os.path.join(tools, 'llama-bench'),
                           '-m', model, '-p', '0', '-n', str(tokens), '-r', '1',
                           '-t', str(threads)],
                          env=env, cwd=tmp, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    if done.returncode == -4:
        sys.exit('op-insns: llama-bench in %s died of SIGILL under valgrind: an instruction '
                 'valgrind does not know (AVX-512\'s); build the tools with '
                 'scripts/build-llama-tools.sh --portable and give --tools '
                 'third_party/llama-tools-portable/build/bin' % tools)
    if done.returncode:
        sys.exit('op-insns: llama-bench under valgrind exited with %d' % done.returncode)
    files = sorted(glob.glob(out + '-*'))
    got = {'graph': [functions(files[0])], 'worker': [], 'other': []}
    for f in files[1:]:
        counts = functions(f)
        got[role(counts)].append(counts)
    return got


def ops_of(ggmlviz, trace):
    """The trace's ops (every step's, the warm-up's included)."""
    out = subprocess.run([ggmlviz, 'stats', '-f', 'json', trace], capture_output=True,
                         text=True, check=True).stdout
    return json.loads(out)['ops']


def own_less(traced, plain):
    """The library's and the adapter's functions of a traced thread, less the untraced one's."""
    own = collections.Counter()
    for name, n in traced.items():
        if is_own(name):
            own[short(name)] += n - plain.get(name, 0)
    return own


def one_run(tools, model, tokens, threads, tmp, tag, ggmlviz):
    """A build at one token count: ({role: own instructions, the workers' summed}, the other
    threads' whole count, the traced run's ops)."""
    plain = measure(tools, model, tokens, threads, tmp, tag + '-plain', False)
    traced = measure(tools, model, tokens, threads, tmp, tag, True)
    got = {'graph': own_less(traced['graph'][0], plain['graph'][0]), 'worker': collections.Counter()}
    for k, counts in enumerate(traced['worker']):
        got['worker'] += own_less(counts, plain['worker'][k] if k < len(plain['worker']) else {})
    others = sum(sum(c.values()) for c in traced['other'])
    return got, others, ops_of(ggmlviz, os.path.join(tmp, tag + '.ggmlviz'))


def account(tools, model, a, tmp, tag):
    """A build's instructions an op: ({role: by function}, {role: sum}, the writer's, ops)."""
    got, others, ops = one_run(tools, model, a.tokens, a.threads, tmp, tag, a.ggmlviz)
    if a.steady:
        more, others_more, ops_more = one_run(tools, model, 3 * a.tokens, a.threads, tmp,
                                              tag + '-more', a.ggmlviz)
        for r in got:
            more[r].subtract(got[r])
        got, others, ops = more, others_more - others, ops_more - ops
    workers = max(a.threads - 1, 1)
    per = {'graph': {k: v / ops for k, v in got['graph'].items()},
           'worker': {k: v / ops / workers for k, v in got['worker'].items()}}
    return per, {r: sum(per[r].values()) for r in per}, others / ops, ops


def table(title, role, got, tags, rows):
    """One thread's functions, the largest first, a column a build."""
    names = collections.Counter()
    for t in tags:
        for k, v in got[t][0][role].items():
            names[k] = max(names[k], abs(v))
    print('  %-64s %s' % (title + ', by function', '  '.join('%8s' % t for t in tags)))
    for k, _ in names.most_common(rows):
        print('  %-64s %s' % (k[:64], '  '.join('%8.1f' % got[t][0][role].get(k, 0.0)
                                                  for t in tags)))
    print('  %-64s %s' % ('in all, ' + title, '  '.join('%8.1f' % got[t][1][role] for t in tags)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tools', default=os.path.join(TOP, 'third_party/llama-tools/build/bin'))
    ap.add_argument('--before')
    ap.add_argument('--tokens', type=int, default=32)
    ap.add_argument('--threads', type=int, default=1)
    ap.add_argument('--steady', action='store_true')
    ap.add_argument('--ggmlviz', default=os.path.join(TOP, 'build/tools/ggmlviz'))
    ap.add_argument('--rows', type=int, default=16)
    a = ap.parse_args()
    a.tools = os.path.abspath(a.tools)
    a.before = a.before and os.path.abspath(a.before)
    if a.threads < 1 or a.tokens < 1:
        sys.exit('op-insns: --threads and --tokens want 1 or more')
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
        got = {tag: account(d, model, a, tmp, tag) for tag, d in builds}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    tags = [t for t, _ in builds][::-1]
    print('op-insns: llama-bench -p 0 -n %d -t %d on the quick start\'s model, under callgrind; '
          'instructions an op of %s (%s)' % (
              a.tokens, a.threads,
              'the ops of %d tokens more (--steady)' % (2 * a.tokens) if a.steady else 'the run',
              ', '.join('%s: %d ops' % (t, got[t][3]) for t in tags)))
    table('the graph\'s thread', 'graph', got, tags, a.rows)
    if a.threads > 1:
        table('a worker (their mean)', 'worker', got, tags, a.rows)
    print('  %-64s %s' % ('the other threads, the writer\'s (all of their instructions)',
                          '  '.join('%8.1f' % got[t][2] for t in tags)))


if __name__ == '__main__':
    main()
