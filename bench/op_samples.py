"""What libggmlviz's code takes of each thread of a traced llama.cpp decode,
from perf's samples (bench/op-samples.sh runs perf and calls this).

A sample is the tracer's when the first frame of its call chain, from the
leaf, that is not in the kernel or a system library (libc, libm, the
dynamic linker, the vDSO) is a function named ggmlviz*: the library's
own code, the adapters' (compiled into the program, named ggmlviz_ggml_*
and ggmlviz_llama_*), and what they call in the C library or the kernel
(a memcpy, a page fault of a ring). A sample in GGML or llama.cpp code is
theirs, whatever called it: ggmlviz_llama__step() calls llama_decode(),
and the decode's samples are the decode's. Not counted: the few lines of
GGML's edits inlined into GGML's own functions, and GGML's or
llama.cpp's code that the adapters call (llama_n_threads(), the memory's
positions: a step's).

Only the run's steady state is counted: the samples from 20% to 90% of
its time, so that what a thread and a session pay once (a ring mapped
and faulted in, a few ms on a virtual machine whose memory is touched
for the first time; the first descriptions; the model's load; the
context's and the model's frees at the end) is left out. A
thread's share there, times the time an op of the run's generated tokens
(their steps' time over their ops, from the trace), is the tracer's time
an op on that thread: the graph's thread, and each worker, are on the
CPU through a token (computing, or waiting at GGML's barriers, which
spin). The writer is not: its CPU time (every sample of it, the start
too) over the run's ops.

    op_samples.py TMP THREADS RUNS [MODES]

reads TMP/T.R.M.script (`perf script --no-inline -F comm,pid,tid,time,
period,ip,sym,dso` of a traced run at T threads, run R, by build M:
"after", and "before" where MODES names it) and TMP/T.R.M.stats (`ggmlviz
stats -f json --phase generation` of its trace), and prints, a thread
count and a thread, the tracer's time an op: the median of the runs with
its 95% interval, and the functions it was in; with a before, the after
less the before, run by run.

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import statistics
import sys

from median_interval import interval

SYSTEM = re.compile(r'\[kernel\.kallsyms\]|\[vdso\]|\[unknown\]|/libc\.so|/libm\.so|'
                    r'/ld-linux|/libstdc\+\+\.so|/libgcc_s\.so|/libpthread\.so')
HEADER = re.compile(r'^(\S.*?)\s+(\d+)/(\d+)\s+([\d.]+):\s+(\d+)\s*$')
FRAME = re.compile(r'^\s+[0-9a-f]+ (.+) \((.*)\)$')
STEADY = (0.2, 0.9)  # the part of a run, by time, counted: its start and end left out


def owner(frames):
    """The function that a sample's time is charged to: the first of its frames
    (leaf first) outside the kernel and the system libraries; None if none."""
    for sym, dso in frames:
        if not SYSTEM.search(dso):
            return sym
    return None


def samples(path):
    """Each sample of a perf script file: (pid, tid, comm, time s, period ns, owner)."""
    head, frames = None, []
    for line in open(path, errors='replace'):
        m = HEADER.match(line)
        if m:
            if head:
                yield head + (owner(frames),)
            head = (int(m.group(2)), int(m.group(3)), m.group(1), float(m.group(4)),
                    int(m.group(5)))
            frames = []
            continue
        m = FRAME.match(line)
        if m and head:
            frames.append((m.group(1).split('+')[0], m.group(2)))
    if head:
        yield head + (owner(frames),)


def role(pid, tid, comm):
    """'0': the process's first thread (llama-bench's, which computes as GGML's
    worker 0); 'writer'; 'worker': the others."""
    return 'writer' if comm.startswith('ggmlviz-writer') else '0' if tid == pid else 'worker'


def run_cost(base):
    """{thread: (tracer ns an op, {function: ns an op}, threads)} of one run (TMP/T.R.M.):
    the workers' figures each."""
    stats = json.load(open(base + 'stats'))
    if not stats.get('ops') or not stats.get('step_ns'):
        sys.exit('op_samples.py: %sstats: no generated tokens' % base)
    ns_an_op = stats['step_ns'] / stats['ops']
    got = list(samples(base + 'script'))
    times = [s[3] for s in got if role(*s[:3]) == '0']
    if not times:
        sys.exit('op_samples.py: %sscript: no sample of the graph\'s thread' % base)
    span = max(times) - min(times)
    start, end = (min(times) + f * span for f in STEADY)
    totals, ours, funcs, tids = {}, {}, {}, {}
    for pid, tid, comm, t, period, fn in got:
        who = role(pid, tid, comm)
        if who != 'writer' and not start <= t < end:
            continue
        tids.setdefault(who, set()).add(tid)
        totals[who] = totals.get(who, 0) + period
        if fn and fn.startswith('ggmlviz'):
            ours[who] = ours.get(who, 0) + period
            f = funcs.setdefault(who, {})
            f[fn] = f.get(fn, 0) + period
    cost = {}
    for who, total in totals.items():
        # a computing thread: its share of its time, times the time an op; the writer: its time
        scale = ns_an_op / total if who != 'writer' else 1.0 / stats['ops']
        cost[who] = (ours.get(who, 0) * scale,
                     {f: ns * scale for f, ns in funcs.get(who, {}).items()}, len(tids[who]))
    return cost


def said(xs):
    ci = interval(xs)
    return '%6.1f  %s' % (statistics.median(xs),
                          '(%.1f to %.1f)' % ci if ci else '(too few runs for an interval)')


def medians(got):
    """{function: median ns an op} over runs, a run without a sample of it counting 0."""
    funcs = {}
    for _, add, _ in got:
        for f, v in add.items():
            funcs.setdefault(f, []).append(v)
    return {f: statistics.median(v + [0.0] * (len(got) - len(v))) for f, v in funcs.items()}


def line(t, name, xs, funcs, sign=''):
    top = sorted(funcs, key=lambda f: -abs(funcs[f]))[:12]
    print('%-8s %-14s %22s   %s' % (t, name, said(xs), ', '.join(
        '%s %%%s.1f' % (f.replace('ggmlviz_', ''), sign) % funcs[f] for f in top)))


def main():
    tmp, counts, runs = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
    modes = sys.argv[4].split() if len(sys.argv) > 4 else ['after']
    print('%-8s %-14s %22s  %s' % ('THREADS', 'THREAD', 'TRACER NS AN OP', '(RUNS)   functions, ns an op'))
    for t in counts:
        per = {m: {} for m in modes}
        for m in modes:
            for r in range(1, runs + 1):
                for who, v in run_cost(os.path.join(tmp, '%s.%d.%s.' % (t, r, m))).items():
                    per[m].setdefault(who, []).append(v)
        for who in ('0', 'worker', 'writer'):
            for m in modes:
                got = per[m].get(who)
                if not got or not any(g[0] for g in got):
                    continue  # a thread of the program's own that runs nothing traced
                name = who if who != 'worker' else 'worker' + ('s, each' if got[0][2] > 1 else '')
                line(t, name + ('' if m == 'after' else ' ' + m), [g[0] for g in got], medians(got))
            a, b = per[modes[0]].get(who), per[modes[-1]].get(who)
            if len(modes) > 1 and a and b and len(a) == len(b) and any(g[0] for g in a + b):
                diff = [(x[0] - y[0], {f: x[1].get(f, 0.0) - y[1].get(f, 0.0)
                                      for f in set(x[1]) | set(y[1])}, x[2])
                        for x, y in zip(a, b)]
                line(t, 'after-bef', [d[0] for d in diff], medians(diff), '+')


if __name__ == '__main__':
    main()
