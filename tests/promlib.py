"""Reading `ggmlviz serve`'s metrics in the tests: the text exposition
parsed, an exporter started and scraped, and a real Prometheus (Debian's
`prometheus` package) started on a loopback port to scrape it.

SPDX-License-Identifier: MIT
"""
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

LINE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)",?')
UNESCAPE = re.compile(r'\\(.)')  # a label value's escapes: \\, \", \n


def parse(text):
    """(samples, families): samples a list of (name, {label: value}, float); families
    {name: {'help': ..., 'type': ...}} from the # HELP and # TYPE lines."""
    samples, families = [], {}
    for line in text.splitlines():
        if line.startswith('# HELP '):
            name, _, text_ = line[7:].partition(' ')
            families.setdefault(name, {})['help'] = text_
        elif line.startswith('# TYPE '):
            name, _, kind = line[7:].partition(' ')
            families.setdefault(name, {})['type'] = kind
        elif line and not line.startswith('#'):
            m = LINE.match(line)
            if not m:
                raise ValueError('not a sample: %r' % line)
            labels = {k: UNESCAPE.sub(lambda e: '\n' if e.group(1) == 'n' else e.group(1), v)
                      for k, v in LABEL.findall(m.group(2) or '')}
            samples.append((m.group(1), labels, float(m.group(3))))
    return samples, families


def value(samples, name, **want):
    """The sum of the samples of name whose labels include want."""
    return sum(v for n, lab, v in samples if n == name and all(lab.get(k) == str(x) for k, x in want.items()))


def buckets(samples, name, **want):
    """{le: cumulative count} of histogram name's buckets whose labels include want."""
    out = {}
    for n, lab, v in samples:
        if n == name + '_bucket' and all(lab.get(k) == str(x) for k, x in want.items()):
            le = float('inf') if lab['le'] == '+Inf' else float(lab['le'])
            out[le] = out.get(le, 0) + v
    return out


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def scrape(port, path='/metrics', timeout=10, method='GET'):
    """(status, headers, body) of a request to the exporter."""
    req = urllib.request.Request('http://127.0.0.1:%d%s' % (port, path), method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.status, dict(r.headers), r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, dict(e.headers), e.read().decode()


def start_exporter(ggmlviz, traces, *extra, timeout=20):
    """`ggmlviz serve --listen 127.0.0.1:0 TRACES`: (the process, its port, or None)."""
    p = subprocess.Popen([ggmlviz, 'serve', '--listen', '127.0.0.1:0', *extra, *traces],
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    line = p.stderr.readline()
    m = re.search(r'http://127\.0\.0\.1:(\d+)/metrics', line)
    return p, (int(m.group(1)) if m else None), line


def stop(p, timeout=20):
    """SIGTERM; (exit status, what it wrote to stderr after its first line)."""
    p.send_signal(signal.SIGTERM)
    try:
        err = p.communicate(timeout=timeout)[1]
    except subprocess.TimeoutExpired:
        p.kill()
        err = p.communicate()[1] + '\n(killed: SIGTERM did not end it)'
    return p.returncode, err


def promtool_check(text):
    """(None, why) without promtool; else (ok, what `promtool check metrics` said)."""
    if not shutil.which('promtool'):
        return None, 'promtool is not installed (apt-get install prometheus)'
    p = subprocess.run(['promtool', 'check', 'metrics'], input=text, capture_output=True, text=True)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


class Prometheus:
    """A real Prometheus scraping targets every second, on a loopback port, with its data in
    folder; stop() ends it. `why` says why it could not start (not installed, not ready)."""

    def __init__(self, folder, targets, timeout=60):
        self.p, self.port, self.why = None, None, None
        exe = shutil.which('prometheus')
        if not exe:
            self.why = 'prometheus is not installed (apt-get install prometheus)'
            return
        cfg = os.path.join(folder, 'prometheus.yml')
        with open(cfg, 'w') as f:
            f.write('global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\n'
                    'scrape_configs:\n  - job_name: ggmlviz\n    scrape_interval: 1s\n'
                    '    scrape_timeout: 1s\n    static_configs:\n      - targets: [%s]\n'
                    % ', '.join("'127.0.0.1:%d'" % t for t in targets))
        self.port = free_port()
        self.log = open(os.path.join(folder, 'prometheus.log'), 'w')
        self.p = subprocess.Popen([exe, '--config.file=' + cfg, '--storage.tsdb.path=' +
                                   os.path.join(folder, 'tsdb'), '--web.listen-address=127.0.0.1:%d'
                                   % self.port, '--log.level=warn'],
                                  stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline and self.p.poll() is None:
            try:
                with urllib.request.urlopen('http://127.0.0.1:%d/-/ready' % self.port, timeout=2) as r:
                    if r.status == 200:
                        return
            except OSError:
                time.sleep(0.3)
        self.why = 'prometheus did not get ready in %d s (see %s)' % (timeout, self.log.name)

    def api(self, path, **params):
        url = 'http://127.0.0.1:%d/api/v1/%s?%s' % (self.port, path, urllib.parse.urlencode(params))
        with urllib.request.urlopen(url, timeout=10) as r:
            return json.loads(r.read())

    def query(self, expr):
        """The instant vector of expr now: [(labels, float)]."""
        got = self.api('query', query=expr)
        return [(r['metric'], float(r['value'][1])) for r in got['data']['result']]

    def targets_up(self):
        got = self.api('targets')
        return [t['health'] for t in got['data']['activeTargets']]

    def stop(self):
        if self.p and self.p.poll() is None:
            self.p.send_signal(signal.SIGTERM)
            try:
                self.p.wait(30)
            except subprocess.TimeoutExpired:
                self.p.kill()
                self.p.wait()
        if self.p:
            self.log.close()
