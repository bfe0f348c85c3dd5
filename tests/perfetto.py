"""Reads what `ggmlviz export --format perfetto` wrote, as Perfetto would.

decode() runs `protoc --decode` against the schema the project keeps
(tests/data/perfetto_trace.proto, Perfetto's own field numbers) and parses
its text into packets; slices() then does what Trace Processor does with
them: interned strings looked up as the file defines them, packets sorted
by time (the file's order breaking ties), each track's begins and ends
paired on a stack. A SLICE_END with no open slice, a slice left open, or
an interned number never defined is an error it reports.

SPDX-License-Identifier: MIT
"""
import os
import re
import shutil
import subprocess

SCHEMA = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data',
                      'perfetto_trace.proto')
_TOKEN = re.compile(r'\s*(?:(\w+)\s*\{|(\w+):\s*("(?:[^"\\]|\\.)*"|\S+)|(\}))')


def have_protoc():
    return shutil.which('protoc') is not None


def _value(text):
    if text.startswith('"'):
        return bytes(text[1:-1], 'utf-8').decode('unicode_escape').encode('latin-1') \
            .decode('utf-8', 'replace')
    try:
        return int(text)
    except ValueError:
        try:
            return float(text)
        except ValueError:
            return text  # an enum's name


def _parse(text):
    """protoc's text format as nested dicts: every field a list of values."""
    stack = [{}]
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if not m:
            if text[pos:].strip():
                raise ValueError('protoc text at %d: %r' % (pos, text[pos:pos + 40]))
            break
        pos = m.end()
        if m.group(1):
            child = {}
            stack[-1].setdefault(m.group(1), []).append(child)
            stack.append(child)
        elif m.group(2):
            stack[-1].setdefault(m.group(2), []).append(_value(m.group(3)))
        else:
            stack.pop()
    return stack[0]


def decode(path):
    """(packets, error): the Trace's packets as dicts, or protoc's complaint."""
    with open(path, 'rb') as f:
        p = subprocess.run(['protoc', '-I', os.path.dirname(SCHEMA),
                            '--decode=perfetto.protos.Trace', os.path.basename(SCHEMA)],
                           stdin=f, capture_output=True)
    if p.returncode != 0:
        return None, p.stderr.decode('utf-8', 'replace')
    return _parse(p.stdout.decode('utf-8', 'replace')).get('packet', []), ''


def one(msg, field, default=None):
    return msg.get(field, [default])[0]


def slices(packets):
    """(slices, tracks, counters, errors) as Trace Processor would build them.

    slices: dicts of track, name, category, ts, end, depth, args (by name);
    tracks: uuid -> descriptor; counters: (track name, ts, value)."""
    interned = {}
    tracks = {}
    events = []
    errors = []
    tables = {'event_names': 'name', 'event_categories': 'name',
              'debug_annotation_names': 'name', 'debug_annotation_string_values': 'str'}
    for i, p in enumerate(packets):
        for data in p.get('interned_data', []):
            for table, key in tables.items():
                for e in data.get(table, []):
                    if (table, one(e, 'iid')) in interned:
                        errors.append('iid %s of %s defined twice' % (one(e, 'iid'), table))
                    interned[(table, one(e, 'iid'))] = one(e, key, '')
        for d in p.get('track_descriptor', []):
            tracks[one(d, 'uuid')] = d
        for te in p.get('track_event', []):
            events.append((one(p, 'timestamp', 0), i, te))

    def lookup(table, iid):
        if (table, iid) not in interned:
            errors.append('%s %s used but never defined' % (table, iid))
        return interned.get((table, iid))

    def args_of(te):
        args = {}
        for a in te.get('debug_annotations', []):
            name = one(a, 'name') or lookup('debug_annotation_names', one(a, 'name_iid'))
            if 'string_value_iid' in a:
                v = lookup('debug_annotation_string_values', one(a, 'string_value_iid'))
            else:
                v = next((one(a, k) for k in ('string_value', 'uint_value', 'int_value',
                                              'pointer_value', 'double_value') if k in a), None)
            args[name] = v
        return args

    events.sort(key=lambda e: (e[0], e[1]))
    open_slices = {}
    out = []
    counters = []
    for ts, _, te in events:
        track = one(te, 'track_uuid', 0)
        kind = one(te, 'type')
        if track not in tracks:
            errors.append('track %s used but never described' % track)
        if kind == 'TYPE_COUNTER':
            v = one(te, 'counter_value', one(te, 'double_counter_value'))
            counters.append((one(tracks.get(track, {}), 'name'), ts, v))
            continue
        if kind == 'TYPE_SLICE_END':
            stack = open_slices.get(track, [])
            if not stack:
                errors.append('SLICE_END at %d on track %s with no open slice' % (ts, track))
                continue
            s = stack.pop()
            s['end'] = ts
            continue
        name = one(te, 'name') if 'name' in te else lookup('event_names', one(te, 'name_iid'))
        cat = one(te, 'categories') if 'categories' in te else \
            (lookup('event_categories', one(te, 'category_iids'))
             if 'category_iids' in te else None)
        stack = open_slices.setdefault(track, [])
        s = {'track': track, 'name': name, 'category': cat, 'ts': ts,
             'end': ts if kind == 'TYPE_INSTANT' else None,
             'depth': len(stack), 'args': args_of(te), 'instant': kind == 'TYPE_INSTANT'}
        out.append(s)
        if kind == 'TYPE_SLICE_BEGIN':
            stack.append(s)
    for track, stack in open_slices.items():
        for s in stack:
            errors.append('slice %s at %d on track %s never ends' % (s['name'], s['ts'], track))
    return out, tracks, counters, errors


def json_depths(events):
    """Each X event of a Chrome JSON export with its depth on its thread, its
    times taken in whole ns: {(tid, begin ns, name): depth}."""
    by_tid = {}
    for e in events:
        if e.get('ph') == 'X':
            by_tid.setdefault((e['pid'], e['tid']), []).append(e)
    depth = {}
    for (pid, tid), evs in by_tid.items():
        ns = sorted((round(e['ts'] * 1000), round((e['ts'] + e['dur']) * 1000), e['name'])
                    for e in evs)
        ns.sort(key=lambda e: (e[0], -e[1]))
        stack = []
        for begin, end, name in ns:
            while stack and stack[-1] <= begin:
                stack.pop()
            depth[(tid, begin, name)] = len(stack)
            stack.append(end)
    return depth
