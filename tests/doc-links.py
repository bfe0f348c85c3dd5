#!/usr/bin/env python3
"""Every link of the documents reaches what it names (TAP).

In README.md and doc/*.md (outside code):
- a link [text](path) reaches a file or folder of the source tree, and a
  link [text](path#anchor) or [text](#anchor) a heading of that page (as
  GitHub makes anchors of headings);
- a `path` in backquotes under one of the source tree's folders (scripts/,
  tests/, lib/, ...) names a file or folder there (a program built from
  NAME.c, NAME.sh, ... counts);
- a man page named as name(N), for libggmlviz's own pages, is man/name.N.
In the man pages: every page of libggmlviz's that one names, in SEE ALSO
or elsewhere (.BR name (N)), is in man/.

    doc-links.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok  # noqa: E402

TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FOLDERS = ('scripts', 'bench', 'tests', 'contrib', 'examples', 'lib', 'tools', 'include', 'man', 'doc',
           'cmake', '.ci')
SOURCES = ('', '.c', '.cc', '.cu', '.sh', '.py', '.in')


def read(rel):
    with open(os.path.join(TOP, rel), encoding='utf-8') as f:
        return f.read()


def prose(text):
    """The page without its fenced blocks and inline code, lines kept in place."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.startswith('```'):
            fenced = not fenced
            out.append('')
        else:
            out.append('' if fenced else line)
    return out


def anchors(text):
    """The anchors GitHub gives the page's headings."""
    seen, result = {}, set()
    for line in prose(text):
        m = re.match(r'#{1,6} +(.*?) *#* *$', line)
        if not m:
            continue
        slug = re.sub(r'[^\w\- ]', '', m.group(1).lower()).replace(' ', '-')
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        result.add(slug if n == 0 else '%s-%d' % (slug, n))
    return result


def exists(rel):
    path = os.path.normpath(os.path.join(TOP, rel))
    return any(os.path.exists(path.rstrip('/') + ext) for ext in SOURCES)


pages = ['README.md'] + sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, 'doc', '*.md')))
mans = sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, 'man', '*.[1-8]')))
man_pages = {os.path.basename(p) for p in mans}

links = 0
problems = []
for page in pages:
    text = read(page)
    here = os.path.dirname(page)
    for i, line in enumerate(prose(text), 1):
        for target in re.findall(r'\]\(([^)\s]+)\)', re.sub(r'`[^`]*`', '', line)):
            links += 1
            if re.match(r'[a-z]+:', target):        # https:, mailto:: not fetched here
                continue
            path, _, anchor = target.partition('#')
            rel = os.path.normpath(os.path.join(here, path)) if path else page
            if path and not os.path.exists(os.path.join(TOP, rel)):
                problems.append('%s:%d: [..](%s): no file %s' % (page, i, target, rel))
            elif anchor and rel.endswith('.md') and anchor not in anchors(read(rel)):
                problems.append('%s:%d: [..](%s): %s has no heading #%s' % (page, i, target, rel, anchor))
ok(links > 50 and not problems, 'every link of README.md and doc/*.md reaches its file and heading (%d links)' % links,
   '\n'.join(problems))

paths = 0
problems = []
for page in pages:
    for i, line in enumerate(read(page).splitlines(), 1):
        for word in re.findall(r'`([^`\s]+)`', line):
            word = word.split('#')[0]
            if not re.match(r'(%s)/[\w./+-]*$' % '|'.join(re.escape(f) for f in FOLDERS), word) or \
                    word.endswith(('.a', '.so')):
                continue
            paths += 1
            if not exists(word):
                problems.append('%s:%d: `%s`: no such file or folder' % (page, i, word))
ok(paths > 50 and not problems, 'every path of the source tree that README.md and doc/*.md name is there (%d)' % paths,
   '\n'.join(problems))

refs = 0
problems = []
for page in pages:
    for i, line in enumerate(prose(read(page)), 1):
        for name, section in re.findall(r'\b((?:lib)?ggmlviz\w*)\((\d)\)', line):
            refs += 1
            if '%s.%s' % (name, section) not in man_pages:
                problems.append('%s:%d: %s(%s): no man/%s.%s' % (page, i, name, section, name, section))
for man in mans:
    for i, line in enumerate(read(man).splitlines(), 1):
        for name, section in re.findall(r'^\.BR? \\?"?((?:lib)?ggmlviz\w*)"? \((\d)\)', line):
            refs += 1
            if '%s.%s' % (name, section) not in man_pages:
                problems.append('%s:%d: %s(%s): no man/%s.%s' % (man, i, name, section, name, section))
ok(refs > 100 and not problems, 'every man page that the documents and the man pages name is in man/ (%d names)' % refs,
   '\n'.join(problems))

see_also = [m for m in mans if not re.search(r'^\.so ', read(m), re.M) and '.SH SEE ALSO' not in read(m)]
ok(not see_also, 'every man page has a SEE ALSO section', ', '.join(see_also))

taplib.finish()
