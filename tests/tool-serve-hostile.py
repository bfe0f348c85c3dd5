#!/usr/bin/env python3
"""ggmlviz serve and top against hostile clients and hostile traces (TAP):
what a review of the exporter found, each a test.

- HTTP: clients that keep sending after their request do not hold the
  scrapes; 32 idle connections (every slot) and 1000 of them do not
  either (the oldest idle one is let go), nor do 100 made while a
  scraper waits 50 ms to send its request (a new connection's grace);
- the file at the trace's name: a FIFO put there after the start hangs
  neither serve nor top (never opened: a follower reads regular files),
  a name that was once a FIFO does not read "cut" after; a link to
  /dev/zero is not copied; advise /dev/zero says it is no trace at once;
- labels: a process name cut inside a character, "llama\\xff", a trace
  path in Latin-1: the exposition passes promtool; two op types of one
  name, a trace named twice: no series twice;
- names from the trace never reach the terminal raw (top, stats, advise);
- top --batch with an interval whose nanoseconds do not fit 64 bits.

    tool-serve-hostile.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import os
import re
import resource
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import promlib  # noqa: E402
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
GEN = os.path.join(BUILD, 'tests', 'gen-server')
HOSTILE = os.path.join(BUILD, 'tests', 'gen-hostile')
SCRAPE_S = 5  # a scrape answered within this: Prometheus's default timeout is 10 s


def timed_scrape(port, timeout=SCRAPE_S):
    """(status, seconds) of a scrape; status 0 when it failed or timed out."""
    t0 = time.time()
    try:
        st, _, body = promlib.scrape(port, timeout=timeout)
    except OSError:
        st = 0
    return st, time.time() - t0


def slow_scrape(port, burst, delay):
    """A scrape whose request is sent DELAY s after its connect, BURST idle
    connections made meanwhile: the status line it got, or what went wrong;
    None for an answer other than 200 to a request this process sent 150 ms
    or more after it began to connect (the exporter's grace is 200 ms from
    its accept: the test's delay, not the exporter's fault)."""
    began = time.monotonic()
    scraper = socket.create_connection(('127.0.0.1', port))
    crowd = []
    for _ in range(burst):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(('127.0.0.1', port))
        crowd.append(s)
    time.sleep(delay)
    sent = time.monotonic() - began
    try:
        scraper.settimeout(SCRAPE_S)
        scraper.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
        line = scraper.recv(64).split(b'\r\n')[0].decode(errors='replace') or 'closed'
    except OSError as e:
        line = str(e)
    finally:
        scraper.close()
        for s in crowd:
            s.close()
    if not line.startswith('HTTP/1.1 200') and sent >= 0.15:
        print('# the scrape was sent %d ms after its connect began (%s): made again'
              % (sent * 1000, line))
        return None
    return line


def series_twice(text):
    """The series (name and labels) written more than once."""
    seen, twice = set(), []
    for line in text.splitlines():
        if line and not line.startswith('#'):
            key = line.rsplit(' ', 1)[0]
            if key in seen:
                twice.append(key)
            seen.add(key)
    return twice


def raw_controls(data):
    """The control bytes (ESC, BEL, ...) and invalid UTF-8 in a command's output."""
    bad = [c for c in set(data) if (c < 0x20 and c not in (9, 10)) or c == 0x7f]
    try:
        data.decode('utf-8')
    except UnicodeDecodeError as e:
        bad.append('invalid UTF-8 at %d' % e.start)
    return bad


def no_fsize_signal():
    """In the child: a file past RLIMIT_FSIZE fails its write (EFBIG) rather than killing."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (256 << 20, 256 << 20))


def start(args, env=None):
    """`ggmlviz serve` on its own port: (process, port, first line)."""
    p = subprocess.Popen([G, 'serve', '--listen', '127.0.0.1:0', *args], stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True, env=env, preexec_fn=no_fsize_signal)
    line = p.stderr.readline()
    m = re.search(r'http://127\.0\.0\.1:(\d+)/metrics', line)
    return p, (int(m.group(1)) if m else None), line


def written(pid):
    """The bytes process pid wrote so far (/proc/PID/io's wchar: files and sockets alike)."""
    try:
        with open('/proc/%d/io' % pid) as f:
            return int(re.search(r'wchar: (\d+)', f.read()).group(1))
    except (OSError, AttributeError):
        return -1


trace = os.path.join(TMP, 'server.ggmlviz')
rc, _, err = run(GEN, trace, '--requests', '12')
ok(rc == 0, 'gen-server records a simulated llama-server', err)
data = open(trace, 'rb').read()

# ---- HTTP: clients that keep sending after their request ----
p, port, said = start([trace])


def flood(stop):
    """A client that sends a request and then keeps sending, as fast as it can."""
    try:
        s = socket.create_connection(('127.0.0.1', port))
        s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
        junk = b'x' * 65536
        while not stop.is_set():
            s.sendall(junk)
    except OSError:
        pass  # the server closed it: what it should do, sooner or later


for n in (1, 5):
    stop = threading.Event()
    floods = [threading.Thread(target=flood, args=(stop,), daemon=True) for _ in range(n)]
    for t in floods:
        t.start()
    time.sleep(0.5)
    got = [timed_scrape(port) for _ in range(3)]
    stop.set()
    ok(port and all(st == 200 for st, _ in got),
       '%d client%s sending without end after %s request: every scrape answered within %d s'
       % (n, 's' if n > 1 else '', 'their' if n > 1 else 'its', SCRAPE_S),
       [(st, round(s, 2)) for st, s in got])
    for t in floods:
        t.join(10)

# ---- HTTP: every slot held by an idle connection, then 1000 ----
idle = [socket.create_connection(('127.0.0.1', port)) for _ in range(32)] if port else []
time.sleep(0.3)
st, took = timed_scrape(port) if port else (0, 0)
ok(st == 200, '32 idle connections (every slot): a scrape answered within %d s (%.2f s)'
   % (SCRAPE_S, took), (st, took))
for s in idle:
    s.close()
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
if hard != resource.RLIM_INFINITY and hard < 1200:
    skip('1000 idle connections: a scrape answered', 'at most %d files open here' % hard)
else:
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1200), hard))
    idle = []
    for _ in range(1000):
        s = socket.socket()
        s.setblocking(False)
        s.connect_ex(('127.0.0.1', port))  # no wait: those past the listen queue are not taken yet
        idle.append(s)
    time.sleep(1)
    got = [timed_scrape(port) for _ in range(3)]
    ok(port and all(st == 200 for st, _ in got),
       '1000 idle connections: every scrape answered within %d s' % SCRAPE_S,
       [(st, round(s, 2)) for st, s in got])
    for s in idle:
        s.close()


# a busy machine delays a scraper's request after its connect: idle
# connections that come meanwhile do not take its slot (200 ms of grace)
time.sleep(0.5)
got = None
for _ in range(5 if port else 0):  # a failed try the busy machine held 150 ms, made again
    got = slow_scrape(port, 100, 0.05)
    if got is not None:
        break
got = got or ('no port' if not port else 'each of 5 tries failed, sent 150 ms or more after its connect')
ok(got.startswith('HTTP/1.1 200'), 'a scrape sent 50 ms after its connect, 100 idle connections'
   ' made meanwhile: answered', got)
rc, err = promlib.stop(p)
ok(rc == 0, 'serve stops on SIGTERM after them', (rc, err[-300:]))

# ---- a link to /dev/zero at the trace's name ----
served = os.path.join(TMP, 'served')
os.mkdir(served)
env = dict(os.environ, TMPDIR=served)
zero = os.path.join(TMP, 'zero.ggmlviz')
open(zero, 'wb').write(data)
p, port, said = start([zero], env=env)
time.sleep(1.5)
os.remove(zero)
os.symlink('/dev/zero', zero)
time.sleep(2.5)
st, took = timed_scrape(port) if port else (0, 0)
wrote = written(p.pid)
rc, err = promlib.stop(p)
ok(st == 200 and 0 <= wrote < 4 << 20 and rc == 0, 'a link to /dev/zero at the trace\'s name: '
   'never copied (%d bytes written in all), every scrape answered (%.2f s)' % (wrote, took),
   (st, rc, err[-300:]))

# ---- the file at the trace's name: a FIFO, then a trace again ----
name = os.path.join(TMP, 'named.ggmlviz')
open(name, 'wb').write(data)
p, port, said = start([name], env=env)
time.sleep(1.5)
fifo = os.path.join(TMP, 'fifo.tmp')
os.mkfifo(fifo)
os.rename(fifo, name)  # a FIFO at its name: no writer ever comes
time.sleep(2.5)
st, took = timed_scrape(port) if port else (0, 0)
state = []
if st == 200:
    s, _ = promlib.parse(promlib.scrape(port)[2])
    state = [lab['state'] for n, lab, v in s if n == 'ggmlviz_trace_state' and v == 1]
ok(st == 200 and state == ['gone'], 'a FIFO put at the trace\'s name: serve answers (%.2f s), the '
   'trace "gone" (not readable now)' % took, (st, state))


def feed_fifo(path, payload, seconds):
    """Writes payload into the FIFO at path if a reader opens it within seconds."""
    end = time.time() + seconds
    while time.time() < end:
        try:
            fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
        except OSError:  # ENXIO: no reader
            time.sleep(0.05)
            continue
        os.set_blocking(fd, True)
        try:
            os.write(fd, payload)
        except OSError:
            pass
        os.close(fd)
        return


feeder = threading.Thread(target=feed_fifo, args=(name, data, 3), daemon=True)
feeder.start()
feeder.join(10)
time.sleep(1)
open(fifo, 'wb').write(data[:len(data) // 2])  # a trace being written again: no end yet
os.rename(fifo, name)
time.sleep(2.5)
st, _, body = promlib.scrape(port) if port else (0, {}, '')
s, _ = promlib.parse(body) if st == 200 else ([], {})
state = [lab['state'] for n, lab, v in s if n == 'ggmlviz_trace_state' and v == 1]
rc, err = promlib.stop(p)
ok(st == 200 and state in (['writing'], ['idle']), 'a trace being written at that name again: '
   '"writing", not "cut" (read from a pipe) as a name that was once a FIFO read forever',
   (st, state))
os.remove(name)

# ---- top: a FIFO at the name it follows ----
open(name, 'wb').write(data[:len(data) // 2])  # being written: top follows it
top = subprocess.Popen([G, 'top', '--batch', '1', name], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, text=True)
lines = []
reader = threading.Thread(target=lambda: lines.extend(top.stdout), daemon=True)
reader.start()
time.sleep(1.5)
os.mkfifo(fifo)
os.rename(fifo, name)
time.sleep(0.2)
before = sum(1 for line in lines if line.startswith('ggmlviz top: '))
time.sleep(3.5)
after = [line for line in lines if line.startswith('ggmlviz top: ')]
top.kill()
top.wait()
os.remove(name)
ok(len(after) >= before + 2 and 'not a regular file' in after[-1], 'top: a FIFO put at the '
   'name it follows: tables go on, saying so (%d tables in 3.5 s)' % (len(after) - before),
   after[-1:] if after else lines[-3:])

# ---- advise /dev/zero ----
t0 = time.time()
try:
    pr = subprocess.run([G, 'advise', '/dev/zero'], capture_output=True, text=True, timeout=30,
                        env=env, preexec_fn=no_fsize_signal)
    rc, err = pr.returncode, pr.stderr
except subprocess.TimeoutExpired:
    rc, err = None, 'still running after 30 s'
ok(rc == 1 and 'not a ggmlviz trace' in err.lower() and time.time() - t0 < 10,
   'advise /dev/zero: no trace, said at once (%.1f s), not copied first' % (time.time() - t0),
   (rc, err))

# ---- labels that are not UTF-8, names that would drive a terminal ----
labels = os.path.join(TMP, 'labels.ggmlviz')
rc, _, err = run(HOSTILE, 'labels', '20', labels)
latin1 = os.path.join(TMP.encode(), b'caf\xe9.ggmlviz')
open(latin1, 'wb').write(data)
pr = subprocess.run([G, 'serve', '--once', labels], capture_output=True)
rc, out, err = pr.returncode, pr.stdout.decode('utf-8', 'replace'), pr.stderr.decode('utf-8', 'replace')
passed, said = promlib.promtool_check(out) if rc == 0 else (False, err)
procs = {lab['process'] for n, lab, _ in promlib.parse(out)[0] if 'process' in lab} if rc == 0 else set()
if passed is None:
    skip('labels not UTF-8: promtool check metrics passes', said)
else:
    ok(passed and procs == {'a' * 62, 'llama\ufffd'},
       'a process name cut inside a character, "llama\\xff": promtool check metrics passes, the '
       'name cut before the character, the byte replaced', (said, procs))
ok(rc == 0 and not series_twice(out), 'two op types of one name, a device name not UTF-8: no '
   'series twice', series_twice(out)[:4])
pl = subprocess.run([G.encode(), b'serve', b'--once', latin1], capture_output=True)
passed, said = promlib.promtool_check(pl.stdout.decode('utf-8', 'replace')) \
    if pl.returncode == 0 else (False, pl.stderr)
if passed is None:
    skip('a trace path in Latin-1: promtool check metrics passes', said)
else:
    try:
        pl.stdout.decode('utf-8')
        utf8 = True
    except UnicodeDecodeError:
        utf8 = False
    ok(passed and utf8, 'a trace path in Latin-1: the exposition is UTF-8, promtool check metrics '
       'passes', said)
rc, out, err = run(G, 'serve', '--once', trace, trace, './' + os.path.relpath(trace))
ok(rc == 0 and not series_twice(out) and 'twice' in err,
   'a trace named twice (and as ./PATH): followed once, said; no series twice',
   (rc, err, series_twice(out)[:3]))

outputs = []
for args in (['top', '--batch', '1', '-n', '1', labels], ['stats', '--by', 'op', labels],
             ['stats', '--by', 'backend', labels], ['stats', '--by', 'thread', labels],
             ['advise', labels], ['info', labels]):
    pr = subprocess.run([G, *args], capture_output=True)
    outputs.append((' '.join(args[:-1]), pr.returncode, raw_controls(pr.stdout + pr.stderr)))
ok(all(rc in (0, 1) and not bad for _, rc, bad in outputs),
   'op, process, backend, thread and device names holding escape sequences and bytes not '
   'UTF-8: top, stats, advise and info print them escaped', [o for o in outputs if o[2]])

# ---- top --batch N: N seconds whose nanoseconds do not fit 64 bits ----
try:
    pr = subprocess.run([G, 'top', '--batch', '18446744074', '-n', '2', trace], capture_output=True,
                        text=True, timeout=20)
    rc, err = pr.returncode, pr.stderr
except subprocess.TimeoutExpired:
    rc, err = None, 'slept (it should refuse the interval)'
ok(rc == 2 and '--batch' in err, 'top --batch 18446744074 (ns past 64 bits): refused, exit 2',
   (rc, err))
taplib.finish()
