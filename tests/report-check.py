#!/usr/bin/env python3
"""Checks a report as a browser drew it (TAP lines, numbered after N).

    report-check.py TESTS_SO_FAR NAME DOM_FILE STATS_JSON_FILE [EXPECT...]

DOM_FILE is what `chromium --headless --dump-dom` printed after the page's
script ran; STATS_JSON_FILE is `ggmlviz stats -f json` of the same trace.
Checked: the script ran to its end with no JavaScript error; the op table
holds exactly the groups of stats, each number equal to stats' (data-v)
and written as ggmlviz writes it (the cell's text); every EXPECT text is
in the health list. Prints the TAP lines and, last, the number of the last one.

SPDX-License-Identifier: MIT
"""
import html
import json
import re
import sys

n = int(sys.argv[1])
name, dom_path, stats_path = sys.argv[2:5]
expect = sys.argv[5:]
dom = open(dom_path, encoding='utf-8', errors='replace').read()
stats = json.load(open(stats_path))


def ok(cond, what, detail=''):
    global n
    n += 1
    print('%s %d - report of %s: %s' % ('ok' if cond else 'not ok', n, name, what))
    if not cond and detail:
        for line in str(detail).splitlines()[:6]:
            print('# ' + line)


def fmt_ns(ns):
    if ns < 1e3:
        return '%.0f ns' % ns
    if ns < 1e6:
        return '%.3f us' % (ns / 1e3)
    if ns < 1e9:
        return '%.3f ms' % (ns / 1e6)
    return '%.3f s' % (ns / 1e9)


body = re.search(r'<body([^>]*)>', dom)
attrs = body.group(1) if body else ''
ok('data-rendered="yes"' in attrs, 'the script drew the whole page', attrs)
ok('data-js-errors="0"' in attrs, 'no JavaScript error',
   re.sub(r'<[^>]+>', '', (re.search(r'<div id="errors".*?</div>', dom, re.S) or
                           re.search('', '')).group(0)))

table = re.search(r'<table id="ops">(.*?)</table>', dom, re.S)
rows = re.findall(r'<tr data-name="([^"]*)">(.*?)</tr>', table.group(1) if table else '', re.S)
groups = {g['name']: g for g in stats['groups']}
ok(sorted(html.unescape(r[0]) for r in rows) == sorted(groups),
   'the op table has the groups of ggmlviz stats (%d)' % len(groups),
   '%s against %s' % (sorted(html.unescape(r[0]) for r in rows)[:8], sorted(groups)[:8]))
exact, texts = [], []
for row_name, cells in rows:
    g = groups.get(html.unescape(row_name))
    if not g:
        continue
    for key, v, text in re.findall(r'<td data-key="([^"]*)" data-v="([^"]*)">([^<]*)</td>', cells):
        text = html.unescape(text)
        if key in ('count', 'total_ns', 'min_ns', 'p50_ns', 'p95_ns', 'max_ns'):
            if int(float(v)) != g[key]:
                exact.append('%s %s: %s against %s' % (g['name'], key, v, g[key]))
            want = str(g[key]) if key == 'count' else fmt_ns(g[key])
            if text != want:
                texts.append('%s %s: "%s" against "%s"' % (g['name'], key, text, want))
        elif key == 'mean_ns' and text != fmt_ns(g['mean_ns']):
            texts.append('%s mean: "%s" against "%s"' % (g['name'], text, fmt_ns(g['mean_ns'])))
        elif key == 'share' and text != '%.1f%%' % (g['share'] * 100):
            texts.append('%s share: "%s"' % (g['name'], text))
        elif key == 'gbps' and text != ('-' if g['gbps'] is None else '%.2f' % g['gbps']):
            texts.append('%s GB/s: "%s" against %s' % (g['name'], text, g['gbps']))
ok(rows and not exact, 'every count and time equals ggmlviz stats', '\n'.join(exact))
ok(rows and not texts, 'every figure is written as ggmlviz stats writes it', '\n'.join(texts))

health = html.unescape(re.sub(r'<[^>]+>', ' ', (re.search(r'<ul id="health-list">(.*?)</ul>',
                                                          dom, re.S) or re.search('', '')).group(0)))
for text in expect:
    ok(text in health, 'the health list says "%s"' % text, health[:400])
print(n)
