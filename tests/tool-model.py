#!/usr/bin/env python3
"""What the ggmlviz command must print for the traces of tests/gen-trace.c.

model() rebuilds, record by record, the trace that gen-trace writes for the
same options (the header comment of gen-trace.c is the spec of both), and
each check compares one output of the command with what follows from those
records, printing "ok - ..." or "not ok - ..." lines that tests/test-tool.sh
numbers as TAP. Every JSON output is parsed strictly: valid UTF-8, no NaN or
Infinity, numbers read as exact decimals.

    tool-model.py CHECK --trace "GEN-TRACE OPTIONS" [--upto N] [options] FILE...
"""
import argparse
import csv
import json
import math
import re
import shlex
import sys
from decimal import Decimal

T0 = 1700000000000000000
GPU = 0xB1
MADE_UP_PID = 1 << 22
WEIRD = (b'we"ird\\\n\t\x01\x7f\xff\xc3\xa9 \xe2\x82\xac/\xc0\xaf\xe0\x80\xaf\xed\xa0\x80'
         b'\xf4\x90\x80\x80\xf0\x9f\x98\x80\xe2\x82')
KINDS = [  # op_type, op name, label prefix, base duration (ns), on GPU, has OP_INFO
    (20, 'RMS_NORM', 'attn_norm', 2000, False, False),
    (26, 'MUL_MAT', 'Qcur', 10000, True, True),
    (40, 'SOFT_MAX', 'kq_soft_max', 3000, False, False),
    (2, 'ADD', 'ffn_out', 1000, False, False),
]
OP_NAMES = {k[0]: k[1] for k in KINDS}
TYPES = ['GRAPH_COMPUTE_BEGIN', 'GRAPH_COMPUTE_END', 'OP_COMPUTE_BEGIN', 'OP_COMPUTE_END',
         'TENSOR_ALLOC', 'TENSOR_FREE', 'BARRIER_WAIT', 'THREAD_BEGIN', 'THREAD_FREE', 'META',
         'MARK', 'COUNTER', 'SCOPE_BEGIN', 'SCOPE_END', 'OP_INFO']
META_KINDS = ['UNKNOWN', 'OP_NAME', 'THREAD_NAME', 'BACKEND_NAME', 'PROCESS', 'DROPPED',
              'TRACE_END']
failures = 0


def check(cond, what, detail=''):
    global failures
    if cond:
        print('ok - ' + what)
    else:
        failures += 1
        print('not ok - ' + what)
        if detail:
            for line in str(detail).splitlines()[:20]:
                print('# ' + line)


def gen_options(s):
    p = argparse.ArgumentParser(prog='gen-trace')
    p.add_argument('--graphs', type=int, default=4)
    p.add_argument('--layers', type=int, default=2)
    p.add_argument('--pid', type=int, default=4242)
    p.add_argument('--tid-base', type=int, default=1001)
    p.add_argument('--t0', type=int, default=T0)
    p.add_argument('--process', default='gen-trace')
    p.add_argument('--no-end', action='store_true')
    p.add_argument('--unknown', action='store_true')
    p.add_argument('--no-process', action='store_true')
    p.add_argument('--corrupt', type=int)
    p.add_argument('--cut-bytes', type=int)
    return p.parse_args(shlex.split(s))


def model(o):
    """The records of gen-trace's trace for options o, in file order."""
    R = []
    m, w = o.tid_base, o.tid_base + 1

    def rec(type, ts, tid, label=None, **kw):
        R.append(dict(type=type, ts=ts, tid=tid, label=label, **kw))

    def meta(kind, key, label=None, value=0, value2=0, ts=o.t0, tid=m):
        rec(9, ts, tid, label, kind=kind, key=key, value=value, value2=value2)

    def op(c, tid, tensor, op_type, size, backend, dur, flops, label):
        common = dict(tensor=tensor, op_type=op_type, size=size, backend=backend)
        rec(2, c, tid, label, **common)
        if flops:
            rec(14, c + 1, tid, b'f32', tensor=tensor, ne=[4096, 32, 1, 1], flops=flops)
        rec(3, c + dur, tid, label, dur=dur, flops=flops, **common)
        return c + dur + 10

    if not o.no_process:
        meta(4, o.pid, o.process.encode())
    meta(2, m, b'main')
    meta(2, w, b'worker-1')
    for k in KINDS:
        meta(1, k[0], k[1].encode())
    meta(3, GPU, b'CUDA0')
    rec(7, o.t0, w, ptr=0, size=0)
    for l in range(o.layers):
        rec(4, o.t0 + 100 + l, m, b'blk.%d.weight' % l, ptr=0x200000 + l * 0x1000,
            size=(l + 1) << 20)
    t, dropped = o.t0 + 1000, 0
    for g in range(o.graphs):
        tid, f = m + g % 2, g % 10 + 1
        c = t + 30
        graph = dict(graph=0x6000, n_nodes=4 * o.layers + 1, n_threads=1, backend=0)
        rec(12, t, tid, b'decode', value=g)
        rec(10, t, tid, b'token', value=g)
        rec(11, t, tid, b'kv_used', value=g * 10 - 5)
        rec(0, t + 10, tid, **graph)
        rec(4, t + 20, tid, b'scratch', ptr=0x900000, size=4096 * f)
        for l in range(o.layers):
            for k, (op_type, _, prefix, base, gpu, info) in enumerate(KINDS):
                c = op(c, tid, 0x100000 + (l * 8 + k) * 0x100, op_type, 4096 * (k + 1),
                       GPU if gpu else 0, base * f, 2000000 * f if info else 0,
                       b'%s-%d' % (prefix.encode(), l))
        if g == 0:
            c = op(c, tid, 0x1E0000, 99, 1, 0, 500, 0, WEIRD)
            c = op(c, tid, 0x1E0100, 31, 2, 0, 700, 0, b'Kcur-3 (view)')
            c = op(c, tid, 0x1E0200, 31, 3, 0, 300, 0, b'-7')
        c = op(c, tid, 0x1F0000, 26, 65536, GPU, 10000 * f, 0, b'result_output')
        rec(5, c, tid, ptr=0x900000, size=0)
        rec(1, c + 10, tid, **graph)
        rec(13, c + 20, tid, b'decode', value=g)
        if g == 1:
            meta(5, w, value=7, ts=c + 30, tid=w)
            dropped = 7
        t = c + 1000
    rec(6, t, w, ptr=0xBA, size=500)
    for l in range(1, o.layers):
        rec(5, t + l, m, ptr=0x200000 + l * 0x1000, size=(l + 1) << 20)
    rec(8, t + 100, w, ptr=0, size=0)
    if o.unknown:
        rec(200, t + 200, m, b'future')
    if not o.no_end:
        meta(6, 0, value=len(R), value2=dropped, ts=t + 300)
    offset = 12
    for r in R:
        r['offset'] = offset
        offset += 46 if r['label'] is None else 50 + len(r['label'])
    return R


def is_meta(r, kind):
    return r['type'] == 9 and r['kind'] == kind


def text(label):
    return None if label is None else label.decode('utf-8', 'replace')


def op_name(op_type):
    return OP_NAMES.get(op_type, 'op#%d' % op_type)


def t_min(R):
    return min((r['ts'] for r in R if r['type'] != 9), default=0)


def t_max(R):
    return max((r['ts'] for r in R if r['type'] != 9), default=0)


def timings(R):
    """(kind, tid, begin, end, record of the end) of every begin/end pair."""
    out, open_ = [], {}
    for r in R:
        if r['type'] in (0, 12):
            open_[(r['type'], r['tid'])] = r
        elif r['type'] in (1, 13) and (r['type'] - 1, r['tid']) in open_:
            b = open_.pop((r['type'] - 1, r['tid']))
            out.append(('graph' if r['type'] == 1 else 'scope', r['tid'], b['ts'], r['ts'], r))
        elif r['type'] == 3:
            out.append(('op', r['tid'], r['ts'] - r['dur'], r['ts'], r))
    return out


def layer(label):
    s = label
    while True:
        m = re.match(rb'^(.*[^ ]) \([^()]*\)$', s)
        if not m:
            break
        s = m.group(1)
    m = re.search(rb'.-(\d+)$', s)
    return str(int(m.group(1))) if m and len(m.group(1)) <= 18 else '(none)'


def group_name(by, r, names):
    if by == 'op':
        return op_name(r['op_type'])
    if by == 'name':
        return text(r['label']) if r['label'] else '(no name)'
    if by == 'layer':
        return layer(r['label'] or b'')
    if by == 'thread':
        return '%s (%d)' % (names[r['tid']], r['tid']) if r['tid'] in names else str(r['tid'])
    return 'CUDA0' if r['backend'] == GPU else 'CPU' if r['backend'] == 0 else hex(r['backend'])


def groups(R, by):
    names = {r['key']: r['label'].decode() for r in R if is_meta(r, 2)}
    out = {}
    for kind, tid, b, e, r in timings(R):
        if kind == 'op':
            g = out.setdefault(group_name(by, r, names), dict(durs=[], flops=0, flops_ns=0))
            g['durs'].append(e - b)
            if r['flops']:
                g['flops'] += r['flops']
                g['flops_ns'] += e - b
    return out


def nearest_rank(durs, q):
    s = sorted(durs)
    return s[max(1, math.ceil(q * len(s))) - 1]


def strict_json(path, lines=False):
    def no_constant(name):
        raise ValueError('not JSON: ' + name)
    with open(path, 'rb') as f:
        raw = f.read().decode('utf-8')  # strict: invalid UTF-8 raises
    if lines:
        return [json.loads(l, parse_float=Decimal, parse_constant=no_constant)
                for l in raw.splitlines()]
    return json.loads(raw, parse_float=Decimal, parse_constant=no_constant)


def close(a, b, rel=1e-9):
    return a is not None and abs(float(a) - b) <= rel * max(1.0, abs(b))


def check_stats(R, a, path):
    d = strict_json(path)
    exp = groups(R, a.by)
    got = {g['name']: g for g in d['groups']}
    check(set(got) == set(exp), 'stats --by %s: the groups are the ops of the trace' % a.by,
          'got %s\nexpected %s' % (sorted(got), sorted(exp)))
    op_ns = sum(sum(g['durs']) for g in exp.values())
    tims = timings(R)
    check(d['ops'] == sum(len(g['durs']) for g in exp.values()) and d['op_ns'] == op_ns,
          'stats --by %s: op count and op time' % a.by, (d['ops'], d['op_ns'], op_ns))
    graphs = [e - b for k, _, b, e, _ in tims if k == 'graph']
    check(d['graphs'] == len(graphs) and d['graph_ns'] == sum(graphs),
          'stats --by %s: graph count and time' % a.by)
    span = max(e for _, _, _, e, _ in tims) - min(b for _, _, b, _, _ in tims)
    check(d['span_ns'] == span, 'stats --by %s: span %d ns' % (a.by, span), d['span_ns'])
    bad = []
    for name, e in exp.items():
        g, durs = got.get(name), e['durs']
        if not g:
            continue
        n, tot = len(durs), sum(durs)
        exact = [g['count'] == n, g['total_ns'] == tot, g['min_ns'] == min(durs),
                 g['max_ns'] == max(durs), close(g['mean_ns'], tot / n),
                 close(g['share'], tot / op_ns), g['flops'] == e['flops']]
        q = [abs(g['p%d_ns' % p] - nearest_rank(durs, p / 100)) < nearest_rank(durs, p / 100) / 64
             for p in (50, 95)]
        gf = e['flops'] / e['flops_ns'] if e['flops_ns'] else None
        gf_ok = g['gflops'] is None if gf is None else close(g['gflops'], gf)
        if not all(exact + q) or not gf_ok:
            bad.append('%s: %s expected n=%d total=%d min=%d max=%d p50=%d p95=%d gflops=%s' % (
                name, g, n, tot, min(durs), max(durs), nearest_rank(durs, .5),
                nearest_rank(durs, .95), gf))
    check(not bad, 'stats --by %s: count, total, min, max, mean, share, GFLOP/s exact; p50 and'
          ' p95 within 1/64' % a.by, '\n'.join(bad))
    if a.by == 'layer':
        # layers in their own order, those of no layer first
        order = [-1 if g['name'] == '(none)' else int(g['name']) for g in d['groups']]
        check(order == sorted(order), 'stats --by layer: sorted by layer', order)
    else:
        totals = [g['total_ns'] for g in d['groups']]
        check(totals == sorted(totals, reverse=True), 'stats --by %s: sorted by total' % a.by)


def check_stats_csv(R, a, path):
    with open(path, newline='', encoding='utf-8') as f:
        rows = list(csv.DictReader(f))
    exp = groups(R, a.by)
    ctrl = re.compile('[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]')
    got = {r['group']: r for r in rows}
    want = {ctrl.sub('\ufffd', k): v for k, v in exp.items()}
    check(set(got) == set(want), 'stats csv --by %s: one row per group, names round-trip' % a.by,
          '%s\n%s' % (sorted(got), sorted(want)))
    check(all(int(got[k]['count']) == len(v['durs']) and int(got[k]['total_ns']) == sum(v['durs'])
              for k, v in want.items() if k in got),
          'stats csv --by %s: counts and totals' % a.by)


def check_dump(R, a, path):
    got = strict_json(path, lines=True)
    exp = R
    if a.types:
        exp = [r for r in exp if r['type'] in a.types]
    if a.tids:
        exp = [r for r in exp if r['tid'] in a.tids]
    if a.window:
        lo, hi = a.window
        exp = [r for r in exp if lo <= max(r['ts'] - t_min(R), 0) <= hi]
    check(len(got) == len(exp), 'dump jsonl: %d records' % len(exp), len(got))
    bad = []
    for g, r in zip(got, exp):
        want = dict(offset=r['offset'], type_id=r['type'], ts=r['ts'], tid=r['tid'],
                    label=text(r['label']),
                    type=TYPES[r['type']] if r['type'] < len(TYPES) else 'UNKNOWN')
        if r['type'] in (2, 3):
            want.update(op=op_name(r['op_type']), op_type=r['op_type'], size=r['size'],
                        tensor=hex(r['tensor']), backend=hex(r['backend']))
        elif r['type'] == 9:
            want.update(kind=META_KINDS[r['kind']], key=r['key'], value=r['value'],
                        value2=r['value2'])
        elif r['type'] == 11:
            want.update(value=r['value'])
        elif r['type'] == 14:
            want.update(ne=r['ne'], flops=r['flops'])
        elif r['type'] >= len(TYPES):
            want.update(payload='00' * 32)
        if any(g.get(k) != v for k, v in want.items()):
            bad.append('%s\nexpected %s' % (g, want))
    check(not bad, 'dump jsonl: offsets, types, times, threads, fields and labels', '\n'.join(bad))


def live_model(R, pid_of=lambda r: 0):
    """(record, live bytes of its process after it, live allocations then, the live
    set (as it is at the end)) for each alloc and free."""
    live, per_pid, out = {}, {}, []
    for r in R:
        pid = pid_of(r)
        if r['type'] == 4:
            old = live.pop((pid, r['ptr']), None)
            per_pid[pid] = per_pid.get(pid, 0) - (old['size'] if old else 0) + r['size']
            live[(pid, r['ptr'])] = r
        elif r['type'] == 5:
            old = live.pop((pid, r['ptr']), None)
            per_pid[pid] = per_pid.get(pid, 0) - (old['size'] if old else 0)
        else:
            continue
        out.append((r, per_pid[pid], len(live), live))
    return out


def us_to_ns(v):
    ns = Decimal(v) * 1000
    return int(ns) if ns == int(ns) else None


def as_read(ns):
    """Microseconds as a viewer reads the export's decimal: the nearest double."""
    return float('%d.%03d' % (ns // 1000, ns % 1000))


def viewer_dur(ts, ns, encloses):
    """The dur the export writes: its sum with ts, in doubles, the end's ts (ggmlviz(1))."""
    if ts + ns + 64 > 2**64 - 1:
        return ns
    start, end = as_read(ts), as_read(ts + ns)
    for k in range(4):
        if start + as_read(ns + k) == end:
            return ns + k
        if k <= ns and start + as_read(ns - k) == end:
            return ns - k
    d = ns
    while encloses and start + as_read(d) < end and d - ns < 64:
        d += 1
    while not encloses and d > 0 and start + as_read(d) > end and ns - d < 64:
        d -= 1
    return ns if abs(d - ns) == 64 else d


def expected_slices(R, a, t0):
    out = []
    for kind, tid, b, e, r in timings(R):
        if a.window and not (b - t0 <= a.window[1] and e - t0 >= a.window[0]):
            continue
        name = op_name(r['op_type']) if kind == 'op' else 'graph' if kind == 'graph' else 'decode'
        out.append((kind, name, tid, b - t0, viewer_dur(b - t0, e - b, kind != 'op')))
    return sorted(out)


def check_export(R, a, path):
    d = strict_json(path)
    ev = d['traceEvents']
    t0 = t_min(R)
    pid = next((r['key'] for r in R if is_meta(r, 4)), 0)
    xs = [e for e in ev if e['ph'] == 'X']
    got = sorted((e['cat'], e['name'], e['tid'], us_to_ns(e['ts']), us_to_ns(e['dur'])) for e in xs)
    exp = expected_slices(R, a, t0)
    check(got == exp, 'export: one X event per op, graph and scope, exact ts and dur (%d)'
          % len(exp), 'got %d, expected %d; first difference: %s' % (
              len(got), len(exp), next(((g, x) for g, x in zip(got, exp) if g != x), None)))
    graphs = [e for e in xs if e['cat'] == 'graph']
    closed = [(tid, b, e) for k, tid, b, e, _ in timings(R) if k == 'graph']
    inside = [x for x in xs if x['cat'] == 'op' and  # ops whose graph ended in what was read
              any(t == x['tid'] and b - t0 <= us_to_ns(x['ts']) <= e - t0 for t, b, e in closed)]
    nested = all(any(g['tid'] == x['tid'] and g['ts'] <= x['ts'] and
                     x['ts'] + x['dur'] <= g['ts'] + g['dur'] for g in graphs) for x in inside)
    check(nested and (inside or not closed),
          'export: every op of a graph lies inside the graph slice of its thread')
    check(all(e['pid'] == pid for e in ev), 'export: every event has the PROCESS pid %d' % pid)
    weird = [e for e in xs if e['cat'] == 'op' and e['args'].get('op_type') == 99]
    if not a.window or weird:
        check(len(weird) == 1 and weird[0]['args']['tensor'] == text(WEIRD),
              'export: a label with quotes, controls and invalid UTF-8 round-trips escaped',
              weird)
    mm = [e for e in xs if e['name'] == 'MUL_MAT' and e['args']['tensor'].startswith('Qcur')]
    check(all(e['args']['flops'] > 0 and e['args']['shape'] == [4096, 32, 1, 1] and
              e['args']['type'] == 'f32' and e['args']['backend'] == 'CUDA0' for e in mm),
          'export: op args hold flops, shape, type and backend')
    names = {(e['pid'], e['tid'], e['name'], e['args']['name']) for e in ev if e['ph'] == 'M'}
    exp_names = {(pid, r['key'], 'thread_name', text(r['label'])) for r in R if is_meta(r, 2)}
    exp_names |= {(pid, 0, 'process_name', text(r['label'])) for r in R if is_meta(r, 4)}
    check(names == exp_names, 'export: process and thread names as metadata', names)
    live = [(us_to_ns(e['ts']), e['args']['bytes']) for e in ev
            if e['ph'] == 'C' and e['name'] == 'live tensor bytes']
    exp_live = [(r['ts'] - t0, b) for r, b, _, _ in live_model(R)
                if not a.window or a.window[0] <= r['ts'] - t0 <= a.window[1]]
    check(live == exp_live, 'export: live tensor bytes as a counter track', live[:5])
    kv = [e['args']['value'] for e in ev if e['ph'] == 'C' and e['name'] == 'kv_used']
    exp_kv = [r['value'] for r in R if r['type'] == 11 and
              (not a.window or a.window[0] <= r['ts'] - t0 <= a.window[1])]
    check(kv == exp_kv, 'export: COUNTER records as counters (signed)', kv)
    marks = [e['args']['value'] for e in ev if e['ph'] == 'i' and e['name'] == 'token']
    check(marks == [r['value'] for r in R if r['type'] == 10 and
                    (not a.window or a.window[0] <= r['ts'] - t0 <= a.window[1])],
          'export: MARK records as instants')
    check(d['otherData']['complete'] == any(is_meta(r, 6) for r in R[-1:]),
          'export: otherData says whether the trace is complete')


def check_mem(R, a, path):
    d = strict_json(path)
    events = live_model(R)
    allocs = [r for r in R if r['type'] == 4]
    frees = [r for r, _, _, _ in events if r['type'] == 5]
    peak_r, peak_b, peak_n = None, -1, 0
    for r, b, n, _ in events:
        if r['type'] == 4 and b > peak_b:
            peak_r, peak_b, peak_n = r, b, n
    end_live = events[-1][3] if events else {}
    end_bytes = sum(r['size'] for r in end_live.values())
    check(d['allocations'] == len(allocs) and d['allocated_bytes'] == sum(r['size'] for r in allocs),
          'mem: %d allocations' % len(allocs), d)
    check(d['frees'] == len(frees), 'mem: %d frees of live pointers' % len(frees), d['frees'])
    check(d['peak']['bytes'] == peak_b and d['peak']['allocations'] == peak_n and
          d['peak']['by']['ts'] == peak_r['ts'] and d['peak']['by']['label'] == text(peak_r['label']),
          'mem: peak %d bytes, when and by what' % peak_b, d['peak'])
    check(d['end'] == dict(bytes=end_bytes, allocations=len(end_live)),
          'mem: %d bytes still allocated at the end' % end_bytes, d['end'])
    still = [(x['size'], x['label']) for x in d['still_allocated']]
    exp_still = sorted(((r['size'], text(r['label'])) for r in end_live.values()), reverse=True)
    check(still == exp_still[:a.top], 'mem: what is still allocated, largest first', still)
    largest = [(x['size'], x['offset']) for x in d['largest']]
    exp_largest = sorted(((r['size'], r['offset']) for r in allocs),
                         key=lambda s: (-s[0], s[1]))[:a.top]
    check(largest == exp_largest, 'mem: the %d largest allocations' % a.top, largest)
    t0, span = t_min(R), t_max(R) - t_min(R)
    width, points = span // a.points + 1, [None] * a.points
    for r, b, _, _ in events:
        i = (r['ts'] - t0) // width
        points[i] = b if points[i] is None else max(points[i], b)
    carry, exp_tl = 0, []
    for i, v in enumerate(points):
        if v is not None:
            last = [b for r, b, _, _ in events if (r['ts'] - t0) // width == i][-1]
        exp_tl.append(carry if v is None else v)
        carry = carry if v is None else last
    check(d['timeline']['interval_ns'] == width and d['timeline']['max_bytes'] == exp_tl,
          'mem: live bytes over %d intervals' % a.points, d['timeline'])
    classes = {}
    for r in allocs:
        c = r['size'].bit_length()
        classes[c] = classes.get(c, 0) + 1
    check({x['max'].bit_length(): x['count'] for x in d['sizes']} == classes,
          'mem: size distribution by power of two', d['sizes'])


def check_info(R, a, path):
    with open(path, encoding='utf-8') as f:
        out = f.read()
    check('records:    %d\n' % len(R) in out, 'info: %d records' % len(R), out[:300])
    bad = []
    for t in sorted({r['type'] for r in R}):
        n = sum(r['type'] == t for r in R)
        pat = (r'\n  %s +%d' % (TYPES[t], n)) if t < len(TYPES) else r'\n  type %d +%d' % (t, n)
        if not re.search(pat, out):
            bad.append(pat)
    check(not bad, 'info: records by type', '\n'.join(bad))
    kinds = ', '.join('%s %d' % (META_KINDS[k], sum(is_meta(r, k) for r in R))
                      for k in range(1, 7) if any(is_meta(r, k) for r in R))
    check('(%s)' % kinds in out, 'info: META records by kind', kinds)
    names = {r['key']: r['label'].decode() for r in R if is_meta(r, 2)}
    tids = sorted({r['tid'] for r in R})
    lines = all(re.search(r'\n  %d +%d  %s\n' % (t, sum(r['tid'] == t for r in R),
                                                 names.get(t, '')), out) for t in tids)
    check(lines and 'threads:    %d\n' % len(tids) in out,
          'info: threads with their names and records')
    procs = [r for r in R if is_meta(r, 4)]
    check('processes:  %d\n' % len(procs) in out and
          all('pid %d  %s' % (r['key'], text(r['label'])) in out for r in procs),
          'info: processes')
    tims = timings(R)
    pairs = 'paired:     %d ops, %d graphs, 0 steps, 0 splits, %d scopes; 0 ends without a' \
            ' begin, 0 begins never ended' % tuple(sum(k == x for k, *_ in tims)
                                                   for x in ('op', 'graph', 'scope'))
    check(pairs in out, 'info: begins and ends paired', pairs)
    drops = [r for r in R if is_meta(r, 5)]
    dropped = 'dropped:    %d events in %d DROPPED records' % (sum(r['value'] for r in drops),
                                                              len(drops))
    where = all('thread %d: %d lost before byte %d' % (r['key'], r['value'], r['offset']) in out
                for r in drops)
    check(dropped in out and where, 'info: dropped events and where', dropped)
    end = R[-1] if R and is_meta(R[-1], 6) else None
    status = ('status:     complete (TRACE_END at byte %d: %d events written, %d dropped)' % (
        end['offset'], end['value'], end['value2'])) if end else 'status:     incomplete'
    check(status in out, 'info: ' + status.split(':', 1)[1].strip())
    span = (t_max(R) - t_min(R)) / 1000
    check('(%.3f us)' % span in out or '(%.3f ms)' % (span / 1000) in out, 'info: time span')


def check_diff(R, a, path):
    Rb = model(gen_options(a.trace_b))
    d = strict_json(path)
    ga, gb = groups(R, a.by), groups(Rb, a.by)
    bad = []
    for g in d['groups']:
        x, y = ga.get(g['name'], dict(durs=[])), gb.get(g['name'], dict(durs=[]))
        want = dict(count_a=len(x['durs']), count_b=len(y['durs']), total_a_ns=sum(x['durs']),
                    total_b_ns=sum(y['durs']), total_change_ns=sum(y['durs']) - sum(x['durs']))
        if any(g[k] != v for k, v in want.items()):
            bad.append('%s expected %s' % (g, want))
        if x['durs'] and not close(g['total_change_pct'],
                                   (sum(y['durs']) - sum(x['durs'])) / sum(x['durs']) * 100):
            bad.append('%s: change in percent' % g['name'])
    check({g['name'] for g in d['groups']} == set(ga) | set(gb) and not bad,
          'diff --by %s: every group of both traces, counts, totals and changes' % a.by,
          '\n'.join(bad))
    moved = [abs(g['total_change_ns']) for g in d['groups']]
    check(moved == sorted(moved, reverse=True), 'diff: sorted by what moved most')
    ta = sum(sum(g['durs']) for g in ga.values())
    tb = sum(sum(g['durs']) for g in gb.values())
    check(d['total']['total_a_ns'] == ta and d['total']['total_change_ns'] == tb - ta,
          'diff: total change %d ns' % (tb - ta), d['total'])


def check_merge(R, a, path):
    inputs = [model(gen_options(s)) for s in a.inputs]
    exp = []
    for i, Ri in enumerate(inputs):
        part = [r for r in Ri if not is_meta(r, 6)]
        procs = [r for r in part if is_meta(r, 4)]
        if procs:
            part.remove(procs[0])
            head = procs[0]
        else:
            head = dict(type=9, ts=part[0]['ts'], tid=part[0]['tid'], kind=4,
                        key=MADE_UP_PID + i, value=0, value2=0, label=a.names[i].encode())
        exp += [head] + part
    if all(Ri and is_meta(Ri[-1], 6) for Ri in inputs):
        exp.append(dict(type=9, ts=max(Ri[-1]['ts'] for Ri in inputs), tid=inputs[-1][-1]['tid'],
                        kind=6, key=0, value=sum(Ri[-1]['value'] for Ri in inputs),
                        value2=sum(Ri[-1]['value2'] for Ri in inputs), label=None))
    got = strict_json(path, lines=True)
    diff = [(g, r) for g, r in zip(got, exp)
            if (g['type_id'], g['ts'], g['tid'], g['label']) != (r['type'], r['ts'], r['tid'],
                                                                  text(r['label'])) or
            (r['type'] == 9 and (g['key'], g['value'], g['value2']) !=
             (r['key'], r['value'], r['value2']))]
    check(len(got) == len(exp) and not diff,
          'merge: every record of every input, its PROCESS first, one TRACE_END (%d)' % len(exp),
          'got %d records, expected %d; %s' % (len(got), len(exp), diff[:2]))


def main():
    p = argparse.ArgumentParser()
    p.add_argument('check')
    p.add_argument('--trace', default='')
    p.add_argument('--trace-b', default='')
    p.add_argument('--upto', type=int, help='only the first N records were read (damage)')
    p.add_argument('--by', default='op')
    p.add_argument('--types', type=lambda s: [int(x) for x in s.split(',')])
    p.add_argument('--tids', type=lambda s: [int(x) for x in s.split(',')])
    p.add_argument('--window', type=lambda s: [int(x) for x in s.split(',')])
    p.add_argument('--top', type=int, default=10)
    p.add_argument('--points', type=int, default=20)
    p.add_argument('--input', dest='inputs', action='append', default=[])
    p.add_argument('--name', dest='names', action='append', default=[])
    p.add_argument('file')
    a = p.parse_args()
    R = model(gen_options(a.trace))
    if a.upto is not None:
        R = R[:a.upto]
    try:
        globals()['check_' + a.check.replace('-', '_')](R, a, a.file)
    except Exception as e:  # a parse error is a failed check, with its reason
        check(False, '%s: %s parses' % (a.check, a.file), repr(e))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
