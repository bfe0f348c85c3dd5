#!/usr/bin/env python3
"""A traced llama-server soaked under a bounded, steady load, with
`ggmlviz top --batch` and `ggmlviz serve` following its trace: whether the
server's and the followers' memory stays flat, whether anything is dropped,
whether the trace is valid at the end, and whether the figures of the first
and last parts of the run agree (the server neither slows down nor speeds
up as its trace grows).

    soak-server.py --tools DIR [--ggmlviz G] [--model GGUF] [--minutes M]
                   [--clients N] [--tokens T] [--out DIR] [--env KEY=VALUE ...]
                   [--preset server] [--hog SECONDS]

--tools: the folder of the tools scripts/build-llama-tools.sh built
(llama-server); --ggmlviz: the command (default build/tools/ggmlviz);
--model: a GGUF (default: build/examples/make_tiny_llama writes a q8_0 one
of 2 layers); --minutes: how long the load lasts (default 20); --clients:
requests at once, each client sending its next as soon as its last is
answered (default 2, the server's slots); --tokens: tokens generated per
request (default 32); --env: GGML_VIZ_* settings for the server (default:
GGML_VIZ_MAX_EVENTS=0, no cap on the trace, every op kept); --preset:
GGML_VIZ_PRESET (server: sampled ops, a trace in segments; --env's
variables override it); --out: where the trace and the samples go
(default a temporary folder, removed). The summary gives the trace's disk
(every segment kept) and its bytes per generated token, the writer's
longest absences (the longest times between its META USAGE records: one
a flush interval, in a pass that writes records, which under the load's
steady records is every pass a flush interval or more apart; how long a
ring had to hold its thread's records) and when records were dropped,
if any (seconds from the trace's first USAGE record).

--hog SECONDS: halfway through the load, a busy loop on every CPU for
SECONDS, so that the requests served meanwhile are slow. With a flight
recorder (GGML_VIZ_FLIGHT, which --preset server sets) and
GGML_VIZ_FLIGHT_ON (--env), the run then checks that the slow requests
made a snapshot (NAME.flight-N.ggmlviz), that it says which request and
why, and that it holds the window's ops one by one; the summary gives
the snapshots and the first one's figures. The server's memory then
counts from the end of the flight recorder's first window on (it fills
its memory over that window).

The server runs with --cache-ram 0: its own prompt cache in host memory,
8 GiB at most by default, grows with the requests it serves (untraced as
traced), which would hide what tracing adds.

Every 10 s: the resident anonymous memory (RssAnon: not the trace's pages
a follower maps) of the server, the exporter and top, and the exporter's
counters (scraped). The parts compared are the
first and last minutes (for a run under 4 minutes, its first and last
quarters), after the first 10 s. Memory is flat when the median of the
last part is at most 5% plus 8 MiB above the median of the first; the
figures agree when the generation's time per token (the steps' time over
their tokens, as stats --by phase gives it) of the last part is within 25%
of the first's. The last line printed is a JSON summary; the exit status
is 0 when every check passed, 1 when one failed, 2 when the run could not
be made (no server, no exporter).

SPDX-License-Identifier: MIT
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(TOP, 'tests'))
import llamaserver  # noqa: E402
import promlib  # noqa: E402
from taplib import rss_kib  # noqa: E402

SAMPLE_S = 10


def client(port, tokens, stop, answered, failed, i):
    n = 0
    while not stop.is_set():
        got = [None]
        llamaserver.complete(port, {'prompt': 'client %d asks its question number %d' % (i, n),
                                    'n_predict': tokens, 'temperature': 0, 'ignore_eos': True,
                                    'cache_prompt': False}, got, 0)
        if got[0] and 'timings' in got[0]:
            answered[i] += 1
        else:
            failed[i] += 1
        n += 1


def part_of(samples, first, parts_s, t0, warm=SAMPLE_S):
    """The samples of the first (first=True) or last part, the first after warm seconds."""
    if first:
        return [s for s in samples if t0 + warm <= s['t'] <= t0 + warm + parts_s]
    end = samples[-1]['t'] if samples else 0
    return [s for s in samples if s['t'] >= end - parts_s]


def per_token(samples):
    """The generation's ns per token over a part: its steps' time over its tokens (counter deltas)."""
    if len(samples) < 2:
        return None
    a, b = samples[0], samples[-1]
    tokens = b['gen_tokens'] - a['gen_tokens']
    return (b['gen_step_s'] - a['gen_step_s']) * 1e9 / tokens if tokens else None


def segments(trace):
    """The trace's files: its name, and a rotated trace's segments that ended (NAME.N)."""
    d, base = os.path.split(trace)
    return [trace] + sorted(os.path.join(d or '.', n) for n in os.listdir(d or '.')
                            if n.startswith(base + '.') and n[len(base) + 1:].isdigit())


def disk_bytes(trace):
    """The disk the trace takes now: every segment kept."""
    return sum(os.path.getsize(p) for p in segments(trace) if os.path.exists(p))


def hog(seconds):
    """A busy loop on every CPU for seconds, started now; its processes."""
    return [subprocess.Popen(['timeout', str(seconds), 'sh', '-c', 'while :; do :; done'])
            for _ in range(os.cpu_count() or 1)]


def flight_seconds(env):
    """The flight recorder's window the server's environment asks for (the preset's 60), 0: none."""
    spec = env.get('GGML_VIZ_FLIGHT', '60' if env.get('GGML_VIZ_PRESET') == 'server' else '')
    head = spec.split(':')[0]
    return int(head) if head.isdigit() else 0


def snapshots(trace):
    """The flight recorder's snapshots beside the trace, oldest first."""
    d, base = os.path.split(trace)
    stem = base[:-len('.ggmlviz')] if base.endswith('.ggmlviz') else base
    found = [n for n in os.listdir(d or '.') if n.startswith(stem + '.flight-') and n.endswith('.ggmlviz')]
    return [os.path.join(d or '.', n) for n in
            sorted(found, key=lambda n: int(re.sub(r'\D', '', n[len(stem) + 8:]) or 0))]


def writer_gaps(G, trace):
    """The writer's longest absences: the longest times between its META USAGE records (one a
    flush interval while it keeps up), in ms, longest first, with when each began (s from the
    first); and the META DROPPED records' times. The gaps say how long a ring must hold."""
    dump = subprocess.Popen([G, 'dump', '-t', 'meta', trace], stdout=subprocess.PIPE, text=True)
    first = last = None
    gaps, dropped = [], []
    for line in dump.stdout:
        m = re.search(r' ts=(\d+) .*kind="(USAGE|DROPPED)"', line)
        if not m:
            continue
        ts = int(m.group(1))
        first = ts if first is None else first
        if m.group(2) == 'DROPPED':
            dropped.append(round((ts - first) / 1e9, 3))
            continue
        if last is not None:
            gaps.append(((ts - last) / 1e6, round((last - first) / 1e9, 1)))
        last = ts
    dump.wait()
    return sorted(gaps, reverse=True)[:5], dropped


def snapshot_figures(G, snap):
    """What info says made the snapshot, and how many ops it holds one by one."""
    info = subprocess.run([G, 'info', snap], capture_output=True, text=True).stdout
    why = re.search(r'taken because: (.*)', info)
    paired = re.search(r'paired: +(\d+) ops', info)
    return (why.group(1) if why else ''), (int(paired.group(1)) if paired else 0)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    ap.add_argument('--tools', required=True)
    ap.add_argument('--ggmlviz', default=os.path.join(TOP, 'build', 'tools', 'ggmlviz'))
    ap.add_argument('--model')
    ap.add_argument('--minutes', type=float, default=20)
    ap.add_argument('--clients', type=int, default=2)
    ap.add_argument('--tokens', type=int, default=32)
    ap.add_argument('--out')
    ap.add_argument('--env', action='append', default=[])
    ap.add_argument('--preset', help='GGML_VIZ_PRESET (server: a llama-server traced all day)')
    ap.add_argument('--hog', type=float, default=0,
                    help='seconds of a busy loop on every CPU, halfway through')
    a = ap.parse_args()
    out = a.out or tempfile.mkdtemp(prefix='ggmlviz-soak.')
    os.makedirs(out, exist_ok=True)
    G = a.ggmlviz
    model = a.model
    if not model:
        model = os.path.join(out, 'tiny-q8.gguf')
        subprocess.run([os.path.join(TOP, 'build', 'examples', 'make_tiny_llama'), model, '--layers', '2',
                        '--type', 'q8_0'], check=True, capture_output=True)
    trace = os.path.join(out, 'soak.ggmlviz')
    env = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}
    env['GGML_VIZ_MAX_EVENTS'] = '0'  # no cap: a soak records for as long as it runs
    if a.preset:
        env['GGML_VIZ_PRESET'] = a.preset
        del env['GGML_VIZ_MAX_EVENTS']  # the preset's own: it rotates, with no cap
    env.update(dict(kv.split('=', 1) for kv in a.env))
    env['GGML_VIZ_OUTPUT'] = trace
    log = open(os.path.join(out, 'server.log'), 'w')
    server, port = llamaserver.start(os.path.join(a.tools, 'llama-server'),
                                     ['-m', model, '-np', str(a.clients), '-c', '1024', '-t', '1',
                                      '--no-webui', '--cache-ram', '0'], env, log=log)
    if not port:
        log.close()
        print('soak: llama-server did not start (its log: %s)' % log.name)
        print(json.dumps({'passed': False, 'why': 'no server'}))
        return 2
    exporter, eport, said = promlib.start_exporter(G, [trace])
    top_out = open(os.path.join(out, 'top.txt'), 'w')
    top = subprocess.Popen([G, 'top', '--batch', '5', trace], stdout=top_out, stderr=subprocess.STDOUT)
    if not eport:
        print('soak: the exporter did not start:', said)
        llamaserver.stop(server)
        print(json.dumps({'passed': False, 'why': 'no exporter'}))
        return 2
    stop = threading.Event()
    answered, failed = [0] * a.clients, [0] * a.clients
    clients = [threading.Thread(target=client, args=(port, a.tokens, stop, answered, failed, i))
               for i in range(a.clients)]
    t0 = time.time()
    for c in clients:
        c.start()
    samples = []
    hogged = None
    while time.time() - t0 < a.minutes * 60:
        time.sleep(SAMPLE_S)
        if a.hog and hogged is None and time.time() - t0 >= a.minutes * 30:
            hogged = hog(a.hog)
        st, _, body = promlib.scrape(eport)
        s, _ = promlib.parse(body) if st == 200 else ([], {})
        samples.append({'t': time.time(), 'server_kib': rss_kib(server.pid),
                        'exporter_kib': rss_kib(exporter.pid), 'top_kib': rss_kib(top.pid),
                        'exporter_vmrss_kib': rss_kib(exporter.pid, 'VmRSS'),
                        'top_vmrss_kib': rss_kib(top.pid, 'VmRSS'),
                        'trace_mib': disk_bytes(trace) / 2**20,
                        'requests': promlib.value(s, 'ggmlviz_requests_total'),
                        'gen_tokens': promlib.value(s, 'ggmlviz_tokens_total', phase='generation'),
                        'gen_step_s': promlib.value(s, 'ggmlviz_step_seconds_total', phase='generation'),
                        'dropped': promlib.value(s, 'ggmlviz_dropped_events_total')})
        last = samples[-1]
        print('soak: +%4.0f s: server %6d KiB, exporter %6d KiB, top %6d KiB; trace %8.1f MiB; %5d requests'
              % (last['t'] - t0, last['server_kib'], last['exporter_kib'], last['top_kib'],
                 last['trace_mib'], last['requests']), flush=True)
    stop.set()
    for c in clients:
        c.join(300)
    for h in hogged or []:
        h.wait()
    llamaserver.stop(server)
    log.close()
    deadline = time.time() + 60
    while time.time() < deadline:
        st, _, body = promlib.scrape(eport)
        if 'state="ended"} 1' in body:
            break
        time.sleep(1)
    final, _ = promlib.parse(body) if st == 200 else ([], {})
    promlib.stop(exporter)
    top.send_signal(signal.SIGTERM)
    top.wait(30)
    top_out.close()
    rc = subprocess.run([G, 'validate', trace], capture_output=True, text=True)
    info = subprocess.run([G, 'info', trace], capture_output=True, text=True).stdout
    said = re.search(r'TRACE_END at byte \d+: (\d+) events written, (\d+) dropped', info)
    st = subprocess.run([G, 'stats', '--by', 'request', '-f', 'json', trace], capture_output=True, text=True)
    reqs = json.loads(st.stdout)['requests'] if st.returncode == 0 else []

    parts_s = 60 if a.minutes >= 4 else a.minutes * 60 / 4
    flight_s = flight_seconds(env)
    first = part_of(samples, True, parts_s, t0, SAMPLE_S + flight_s)
    lastp = part_of(samples, False, parts_s, t0)
    checks, figures = {}, {}
    for who in ('server', 'exporter', 'top'):
        f = statistics.median([s[who + '_kib'] for s in first]) if first else 0
        l = statistics.median([s[who + '_kib'] for s in lastp]) if lastp else 0
        figures[who + '_kib'] = [f, l]
        checks[who + ' memory flat'] = bool(first and lastp and l <= f * 1.05 + 8192)
    pf, pl = per_token(first), per_token(lastp)
    figures['generation_ns_per_token'] = [pf, pl]
    checks['first and last parts within noise'] = bool(pf and pl and abs(pl / pf - 1) <= 0.25)
    dropped = promlib.value(final, 'ggmlviz_dropped_events_total')
    checks['nothing dropped'] = bool(dropped == 0 and said and said.group(2) == '0')
    checks['trace valid and complete'] = rc.returncode == 0
    # serve followed every segment; stats reads those kept (all, unless KEEP removed some)
    removed = re.search(r'segments: +(\d+) to', info)
    whole = not removed or removed.group(1) == '1'
    counted = promlib.value(final, 'ggmlviz_requests_total')
    checks['every request answered'] = sum(failed) == 0 and sum(answered) > 0
    checks['every request counted (serve; stats where no segment was removed)'] = bool(
        counted == sum(answered) and (not whole or len(reqs) == sum(answered)))
    figures['followers_vmrss_kib_max'] = [max((x['exporter_vmrss_kib'] for x in samples), default=0),
                                          max((x['top_vmrss_kib'] for x in samples), default=0)]
    generated = sum(r.get('generated_tokens', 0) for r in reqs)
    figures.update({'requests': len(reqs), 'answered': sum(answered), 'failed': sum(failed),
                    'trace_mib': disk_bytes(trace) / 2**20, 'minutes': a.minutes,
                    'segments': len(segments(trace)), 'generated_tokens': generated,
                    'counted_by_serve': counted,
                    'bytes_per_generated_token': disk_bytes(trace) / generated if generated else None,
                    'dropped': dropped, 'events': int(said.group(1)) if said else None,
                    'validate': rc.stdout.strip().splitlines()[-1:]})
    gaps, dropped_at = writer_gaps(G, trace)
    figures['writer_longest_gaps_ms_at_s'] = [[round(g, 1), at] for g, at in gaps]
    figures['dropped_records_at_s'] = dropped_at[:20]
    if a.hog and flight_s and env.get('GGML_VIZ_FLIGHT_ON'):
        snaps = snapshots(trace)
        figures['snapshots'] = [os.path.basename(p) for p in snaps]
        said_why, ops = snapshot_figures(G, snaps[0]) if snaps else ('', 0)
        figures['first_snapshot'] = {'why': said_why, 'ops_one_by_one': ops}
        checks['the slow requests made a snapshot, op by op'] = bool(snaps and 'request ' in said_why
                                                                     and ops > 0)
    for name, good in checks.items():
        print('soak: %s: %s' % (name, 'yes' if good else 'NO'))
    print('soak: memory (KiB, median of the first and last parts): server %s, exporter %s, top %s'
          % (figures['server_kib'], figures['exporter_kib'], figures['top_kib']))
    print('soak: generation, ns per token over its steps\' time: first part %s, last part %s'
          % tuple('%.0f' % x if x else '-' for x in (pf, pl)))
    with open(os.path.join(out, 'samples.json'), 'w') as f:
        json.dump(samples, f)
    passed = all(checks.values())
    print(json.dumps({'passed': passed, 'checks': checks, 'figures': figures}))
    if not a.out:
        shutil.rmtree(out, ignore_errors=True)
    return 0 if passed else 1


if __name__ == '__main__':
    sys.exit(main())
