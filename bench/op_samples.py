"""What libggmlviz's code takes of each thread of a traced llama.cpp decode,
from perf's samples (bench/op-samples.sh runs perf and calls this).

A sample is the tracer's when the first frame of its call chain, from the
leaf, that is not in the kernel or a system library (libc, libm, the
dynamic linker, the vDSO) is a function named ggmlviz*: the library's
own code, the adapters' (compiled into the program, named ggmlviz_ggml_*,
ggmlviz_llama_* and, in llama.cpp's tools, ggmlviz_tools_*), and what
they call in the C library or the kernel
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
context's and the model's frees at the end) is left out. The tracer's
samples of a computing thread there (the graph's thread; the workers,
each) over the ops computed in that window is its time an op: the ops
are the run's generated tokens' (from the trace), taken at an even rate
over their span, of which the window is a part. Where a thread was on
the CPU in the window is printed beside (a share of it): a thread that
another program took the CPU from is not charged for that time, but a
run slowed so is not the machine's usual. The library's own threads
(the writer; any other named ggmlviz-*) are counted whole: every sample
of theirs is the tracer's, their CPU time over the whole run (its start
too) over the ops of its tokens.

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
    """Each sample of a perf script file: (pid, tid, comm, time s, period ns, owner).
    A line that is neither a sample's nor a frame's is said on stderr (counted)."""
    head, frames, odd = None, [], 0
    for line in open(path, errors='replace'):
        m, f = HEADER.match(line), FRAME.match(line)
        if m:
            if head:
                yield head + (owner(frames),)
            head = (int(m.group(2)), int(m.group(3)), m.group(1), float(m.group(4)),
                    int(m.group(5)))
            frames = []
        elif f and head:
            frames.append((f.group(1).split('+')[0], f.group(2)))
        elif line.strip():
            odd += 1
    if head:
        yield head + (owner(frames),)
    if odd:
        print('op_samples.py: %s: %d lines neither a sample nor a frame, left out' % (path, odd),
              file=sys.stderr)


LIBRARY = ('writer', 'helper')  # the library's own threads: their every sample is the tracer's


def role(pid, tid, comm):
    """'0': the process's first thread (llama-bench's, which computes as GGML's
    worker 0); 'writer'; 'helper': the library's other threads (ggmlviz-*);
    'worker': the others (GGML's)."""
    if comm.startswith('ggmlviz-writer'):
        return 'writer'
    if comm.startswith('ggmlviz'):
        return 'helper'
    return '0' if tid == pid else 'worker'


def run_cost(base):
    """{thread: (tracer ns an op, {function: ns an op}, threads, share of the window on
    the CPU)} of one run (TMP/T.R.M.): the workers' figures each."""
    stats = json.load(open(base + 'stats'))
    if not stats.get('ops') or not stats.get('span_ns'):
        sys.exit('op_samples.py: %sstats: no generated tokens' % base)
    got = list(samples(base + 'script'))
    times = [s[3] for s in got if role(*s[:3]) == '0']
    if not times:
        sys.exit('op_samples.py: %sscript: no sample of the graph\'s thread' % base)
    span = max(times) - min(times)
    start, end = (min(times) + f * span for f in STEADY)
    window_ns = (end - start) * 1e9
    if window_ns > stats['span_ns']:
        sys.exit('op_samples.py: %s: the window (%.0f ms) is longer than the tokens\' span (%.0f ms):'
                 ' more repetitions (REPS) or tokens' % (base, window_ns / 1e6, stats['span_ns'] / 1e6))
    ops_in_window = stats['ops'] * window_ns / stats['span_ns']
    totals, ours, funcs, tids = {}, {}, {}, {}
    for pid, tid, comm, t, period, fn in got:
        who = role(pid, tid, comm)
        if who not in LIBRARY and not start <= t < end:
            continue
        tids.setdefault(who, set()).add(tid)
        totals[who] = totals.get(who, 0) + period
        if who in LIBRARY or fn and fn.startswith('ggmlviz'):
            fn = fn or '(the kernel)'
            ours[who] = ours.get(who, 0) + period
            f = funcs.setdefault(who, {})
            f[fn] = f.get(fn, 0) + period
    cost = {}
    for who, total in totals.items():
        # a computing thread: over the ops of the window, each; the library's: over every op
        n = len(tids[who])
        scale = 1.0 / (ops_in_window * n) if who not in LIBRARY else 1.0 / stats['ops']
        cost[who] = (ours.get(who, 0) * scale,
                     {f: ns * scale for f, ns in funcs.get(who, {}).items()}, n,
                     total / (window_ns * n) if who not in LIBRARY else None)
    return cost


def said(xs):
    ci = interval(xs)
    return '%6.1f  %s' % (statistics.median(xs),
                          '(%.1f to %.1f)' % ci if ci else '(too few runs for an interval)')


def medians(got):
    """{function: median ns an op} over runs, a run without a sample of it counting 0."""
    funcs = {}
    for v in got:
        for f, ns in v[1].items():
            funcs.setdefault(f, []).append(ns)
    return {f: statistics.median(v + [0.0] * (len(got) - len(v))) for f, v in funcs.items()}


def line(t, name, got, sign=''):
    """A thread's line: the median of its runs' figures, where it was on the CPU, its functions."""
    funcs = medians(got)
    top = [f for f in sorted(funcs, key=lambda f: -abs(funcs[f]))[:12] if abs(funcs[f]) >= 0.05]
    on = [v[3] for v in got if v[3] is not None]
    print('%-8s %-14s %22s   %s%s' % (
        t, name, said([v[0] for v in got]),
        'on the CPU %.0f%% of the window; ' % (100 * statistics.median(on)) if on else '',
        ', '.join('%s %%%s.1f' % (f.replace('ggmlviz_', ''), sign) % funcs[f] for f in top)))


def main():
    tmp, counts, runs = sys.argv[1], sys.argv[2].split(), int(sys.argv[3])
    modes = sys.argv[4].split() if len(sys.argv) > 4 else ['after']
    print('%-8s %-14s %22s  %s' % ('THREADS', 'THREAD', 'TRACER NS AN OP', '(RUNS)   functions, ns an op'))
    for t in counts:
        per = {m: {} for m in modes}  # {mode: {thread: {run: figures}}}
        for m in modes:
            for r in range(1, runs + 1):
                for who, v in run_cost(os.path.join(tmp, '%s.%d.%s.' % (t, r, m))).items():
                    per[m].setdefault(who, {})[r] = v
        for who in ('0', 'worker', 'writer', 'helper'):
            for m in modes:
                got = list(per[m].get(who, {}).values())
                if not got or not any(g[0] for g in got):
                    continue  # a thread of the program's own that runs nothing traced
                many = max(g[2] for g in got) > 1
                name = {'worker': 'workers, each' if many else 'worker',
                        'helper': 'other ggmlviz'}.get(who, who)
                line(t, name + ('' if m == 'after' else ' ' + m), got)
            a, b = per[modes[0]].get(who, {}), per[modes[-1]].get(who, {})
            both = sorted(set(a) & set(b))  # the runs with the thread in both builds, paired
            if len(modes) > 1 and both and any(a[r][0] or b[r][0] for r in both):
                line(t, 'after-bef', [(a[r][0] - b[r][0],
                                       {f: a[r][1].get(f, 0.0) - b[r][1].get(f, 0.0)
                                        for f in set(a[r][1]) | set(b[r][1])}, a[r][2], None)
                                      for r in both], '+')


if __name__ == '__main__':
    main()
