"""Reading `ggmlviz export --format otlp` in the tests, and checking it
against OpenTelemetry's definitions (tests/otlp-check.js, on what
scripts/fetch-otlp-proto.sh fetched).

SPDX-License-Identifier: MIT
"""
import json
import os
import shutil
import subprocess

SRC = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT_JS = os.path.join(SRC, 'third_party', 'otlp-proto', 'node_modules', '@opentelemetry',
                       'otlp-proto-exporter-base', 'build', 'src', 'generated', 'root.js')


def spans(path):
    """Every span of the file, with its line's resource attributes under 'resource'."""
    out = []
    with open(path) as f:
        for line in f:
            for rs in json.loads(line)['resourceSpans']:
                resource = attrs(rs['resource'])
                for ss in rs['scopeSpans']:
                    for sp in ss['spans']:
                        out.append(dict(sp, resource=resource))
    return out


def attrs(obj):
    """A span's (or resource's) attributes as a dict: ints as ints, arrays as lists."""
    def value(v):
        if 'intValue' in v:
            return int(v['intValue'])
        if 'arrayValue' in v:
            return [value(x) for x in v['arrayValue'].get('values', [])]
        return list(v.values())[0]
    return {a['key']: value(a['value']) for a in obj.get('attributes', [])}


def duration(span):
    return int(span['endTimeUnixNano']) - int(span['startTimeUnixNano'])


def check(path):
    """(None, why) where the check cannot run here; else (ok, what the checker said)."""
    if not shutil.which('node'):
        return None, 'node is not installed (apt-get install npm)'
    if not os.path.exists(ROOT_JS):
        return None, 'the OTLP definitions were not fetched (scripts/fetch-otlp-proto.sh)'
    p = subprocess.run(['node', os.path.join(SRC, 'tests', 'otlp-check.js'), ROOT_JS, path],
                       capture_output=True, text=True)
    return p.returncode == 0, (p.stdout + p.stderr).strip()


def tree_problems(spans):
    """What is wrong with the spans as trees: ids used twice, parents not in their trace,
    two roots in one trace."""
    seen, bad = {}, []
    for s in spans:
        if s['spanId'] in seen:
            bad.append(('span id used twice', s['spanId'], s['name']))
        seen[s['spanId']] = s
    for s in spans:
        p = seen.get(s.get('parentSpanId'))
        if 'parentSpanId' in s and (not p or p['traceId'] != s['traceId']):
            bad.append(('parent not a span of its trace', s['name'], s['parentSpanId']))
    roots = [s['traceId'] for s in spans if 'parentSpanId' not in s]
    if len(set(roots)) != len(roots):
        bad.append(('two root spans in one trace', len(roots), len(set(roots))))
    return bad
