#!/usr/bin/env python3
"""The documents agree with the code (TAP): one source of truth, checked.

- Every environment variable the code reads (a "GGML_VIZ_..." string in
  lib/, tools/, include/ or contrib/, and every getenv() there) is in
  doc/environment.md's tables; a GGML_VIZ_* one also in tracer.h's
  ggmlviz_config_from_env() documentation, in ggmlviz_config_init(3) and in
  libggmlviz(7)'s ENVIRONMENT; another one read by the library (lib/,
  include/) in libggmlviz(7)'s ENVIRONMENT too. Every GGML_VIZ_* name that
  the README, doc/ or a man page mentions is one the code reads.
- Every command of `ggmlviz --help` has its section in ggmlviz(1), is named
  in its DESCRIPTION, and is run in the README's command block; every
  option of `ggmlviz CMD --help` is in CMD's lines of ggmlviz(1)'s
  SYNOPSIS; every export format (tools/cmd/cmd-export.c) is named in the
  DESCRIPTION and in `export --help`.
- Every `stats --by` key (tools/stats/agg.c) is in `stats --help`, in
  ggmlviz(1)'s stats section, and in the README's list of keys, which
  names no other.
- quickstart.sh, the README and doc/llama-cpp.md say the same time for
  the first build of llama.cpp's tools.
- The README quotes no measured figure (a ratio such as 0.947 outside
  its sample outputs; 0.97, the target, is no measure): the figures are
  kept in performance.md, the latest of each, and in cost.md, so that no
  stale copy of one is left in the first page a user reads.
- The README is at most 400 lines with at most 3 dated lines, and the
  guides in doc/ hold no date outside their sample outputs (the dated
  results are in performance.md and cost.md).

    doc-sync.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run  # noqa: E402

BUILD = sys.argv[1]
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = os.path.join(BUILD, 'tools', 'ggmlviz')


def read(rel):
    with open(os.path.join(TOP, rel), encoding='utf-8') as f:
        return f.read()


def roff_text(s):
    """A roff source as plain words: fonts and escapes out, requests' names out."""
    s = re.sub(r'\\f[BIRP]', '', s)
    s = s.replace('\\-', '-').replace('\\(em', '-').replace('\\&', '')
    s = re.sub(r'^\.(B|BR|RB|BI|IR|I|RI)\s+', '', s, flags=re.M)
    return s.replace('"', '')


def roff_section(page, name):
    """The lines of .SH name, up to the next .SH."""
    m = re.search(r'^\.SH "?' + re.escape(name) + r'"?\n(.*?)(?=^\.SH )', page, re.M | re.S)
    return m.group(1) if m else ''


# ---- the variables the code reads ----
SOURCES = [p for d in ('lib', 'tools', 'include', 'contrib')
           for p in glob.glob(os.path.join(TOP, d, '**', '*'), recursive=True)
           if os.path.isfile(p) and re.search(r'\.(c|h|cc|cpp)$', p)]
viz = {}     # GGML_VIZ_* name -> the first file reading it
other = {}   # another getenv() name -> the first file reading it
for path in sorted(SOURCES):
    rel = os.path.relpath(path, TOP)
    with open(path, encoding='utf-8', errors='replace') as f:
        text = f.read()
    for name in re.findall(r'"(GGML_VIZ_[A-Z0-9_]+)"', text):
        viz.setdefault(name, rel)
    for name in re.findall(r'getenv\(\s*"([A-Za-z_][A-Za-z0-9_]*)"\s*\)', text):
        if not name.startswith('GGML_VIZ_'):
            other.setdefault(name, rel)
ok(len(viz) >= 20 and 'GGML_VIZ_OUTPUT' in viz,
   'the code reads %d GGML_VIZ_* variables and %d others (%s)' % (len(viz), len(other), ', '.join(sorted(other))),
   'found: %s' % sorted(viz))

env_md = read('doc/environment.md')
tracer_h = read('include/ggmlviz/tracer.h')
m = re.search(r'/\*\*((?:(?!\*/).)*?)\*/\s*int ggmlviz_config_from_env\(', tracer_h, re.S)
from_env = m.group(1) if m else ''
config_init = read('man/ggmlviz_config_init.3')
overview_env = roff_section(read('man/libggmlviz.7'), 'ENVIRONMENT')
rows = set(re.findall(r'^\| `([A-Za-z_][A-Za-z0-9_]*)` \|', env_md, re.M))


def missing_viz(name):
    where = []
    if name not in rows:
        where.append("doc/environment.md's tables have no row for it")
    if not re.search(r'\b%s\b' % name, from_env):
        where.append("tracer.h's ggmlviz_config_from_env() does not name it")
    if not re.search(r'^\.B %s$' % name, config_init, re.M):
        where.append('man/ggmlviz_config_init.3 does not describe it (.B %s)' % name)
    if not re.search(r'^\.BR? %s( ,)?$' % name, overview_env, re.M):
        where.append("man/libggmlviz.7's ENVIRONMENT does not list it")
    return where


problems = ['%s (read in %s): %s' % (n, viz[n], w) for n in sorted(viz) for w in missing_viz(n)]
ok(not problems, 'every GGML_VIZ_* variable the code reads is in doc/environment.md, tracer.h, '
   'ggmlviz_config_init(3) and libggmlviz(7)', '\n'.join(problems))

problems = []
for name in sorted(other):
    if name not in rows:
        problems.append("%s (read in %s): doc/environment.md's tables have no row for it" % (name, other[name]))
    if re.match(r'(lib|include)/', other[name]) and not re.search(r'^\.BR? %s( ,)?$' % name, overview_env, re.M):
        problems.append("%s (read in %s): man/libggmlviz.7's ENVIRONMENT does not name it" % (name, other[name]))
ok(not problems, 'every other variable the code reads is in doc/environment.md (and libggmlviz(7) for the library)',
   '\n'.join(problems))

# no document names a variable the code does not read
docs = ['README.md'] + sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, 'doc', '*.md')))
docs += sorted(os.path.relpath(p, TOP) for p in glob.glob(os.path.join(TOP, 'man', '*.[1-8]')))
docs += ['include/ggmlviz/tracer.h']
problems = []
for rel in docs:
    for name in sorted(set(re.findall(r'\bGGML_VIZ_[A-Z0-9_]*[A-Z0-9]\b', read(rel)))):
        if name not in viz:
            problems.append('%s names %s, which no code reads' % (rel, name))
for name in sorted(rows):
    if name not in viz and name not in other:
        problems.append("doc/environment.md has a row for %s, which no code reads" % name)
ok(not problems, 'every GGML_VIZ_* name in the README, doc/, the man pages and tracer.h is one the code reads',
   '\n'.join(problems))

# ---- the command, its options and ggmlviz(1) ----
rc, out, err = run(G, '--help')
cmds = re.findall(r'^  ([a-z]+)  ', out.split('Commands:')[1].split('\n\n')[0], re.M) if 'Commands:' in out else []
ok(rc == 0 and len(cmds) >= 10, 'ggmlviz --help lists %d commands: %s' % (len(cmds), ' '.join(cmds)), out + err)

man1 = read('man/ggmlviz.1')
synopsis = roff_text(roff_section(man1, 'SYNOPSIS'))
syn = {}     # command -> its SYNOPSIS lines, continuations joined
last = None
for line in synopsis.splitlines():
    m = re.match(r'ggmlviz (\w+)\b', line)
    if m:
        last = m.group(1)
        syn[last] = syn.get(last, '') + ' ' + line
    elif line.startswith(' ') and last:
        syn[last] += ' ' + line
    else:
        last = None

problems = []
for cmd in cmds:
    rc, out, err = run(G, cmd, '--help')
    if rc != 0:
        problems.append('ggmlviz %s --help: exit status %d' % (cmd, rc))
        continue
    opts = out.split('Options:')[1] if 'Options:' in out else ''
    for m in re.finditer(r'^ {2,6}(-[A-Za-z])?,? ?(--[a-z][a-z-]*)?', opts, re.M):
        short, long_ = m.group(1), m.group(2)
        if not (short or long_) or long_ == '--help':
            continue
        words = syn.get(cmd, '')
        if not any(o and re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(o), words) for o in (short, long_)):
            problems.append("ggmlviz %s's option %s is not in ggmlviz(1)'s SYNOPSIS (%s)" %
                            (cmd, ', '.join(o for o in (short, long_) if o), words.strip() or 'no line for it'))
ok(not problems, "every option of every command's --help is in ggmlviz(1)'s SYNOPSIS", '\n'.join(problems))

description = man1.split('.SH DESCRIPTION\n')[1].split('\n.PP\n')[0]
sections = re.findall(r'^\.SS "?(\w+)', man1, re.M)
readme = read('README.md')
problems = []
for cmd in cmds:
    if not re.search(r'^\.BR? %s\b' % cmd, description, re.M):
        problems.append("ggmlviz(1)'s DESCRIPTION does not name %s" % cmd)
    if cmd not in sections:
        problems.append('ggmlviz(1) has no section (.SS) for %s' % cmd)
    if not re.search(r'^build/tools/ggmlviz %s\b' % cmd, readme, re.M):
        problems.append("README.md's command block does not run %s" % cmd)
ok(not problems, 'every command is described in ggmlviz(1) and run in the README', '\n'.join(problems))

m = re.search(r'formats\[\] = \{([^}]*)\}', read('tools/cmd/cmd-export.c'))
formats = re.findall(r'"([a-z-]+)"', m.group(1)) if m else []
rc, out, err = run(G, 'export', '--help')
words = roff_text(description)
problems = ['ggmlviz(1)\'s DESCRIPTION does not name the export format %s' % f
            for f in formats if not re.search(r'(?<![\w-])%s(?![\w-])' % re.escape(f), words)]
problems += ['export --help does not name the format %s' % f for f in formats if f not in out]
ok(len(formats) >= 7 and not problems, 'every export format (%s) is in ggmlviz(1) and export --help' % ', '.join(formats),
   '\n'.join(problems))

# ---- stats --by ----
m = re.search(r'cli_by_names\[\] = \{([^}]*)\}', read('tools/stats/agg.c'))
keys = re.findall(r'"(\w+)"', m.group(1)) if m else []
rc, out, err = run(G, 'stats', '--help')
stats_help = out
stats_man = man1.split('.SS stats FILE')[1].split('\n.SS ')[0] if '.SS stats FILE' in man1 else ''
problems = []
for key in keys:
    if not re.search(r'\b%s\b' % key, stats_help.split('-s, --sort')[0]):
        problems.append('stats --help does not name the --by key %s' % key)
    if not re.search(r'^\.BR? %s\b' % key, stats_man, re.M):
        problems.append("ggmlviz(1)'s stats section does not describe the --by key %s" % key)
listed = re.search(r'\b(op(?:\|[a-z]+)+)\b', readme)
listed = listed.group(1).split('|') if listed else []
if set(listed) != set(keys):
    problems.append("README.md's list of --by keys is %s; the code's: %s" % ('|'.join(listed) or 'missing', '|'.join(keys)))
ok(len(keys) >= 11 and not problems, 'every stats --by key (%s) is in stats --help, ggmlviz(1) and the README' %
   ', '.join(keys), '\n'.join(problems))

# ---- no measured figure in the README: performance.md keeps them ----
TARGETS = {'0.97'}
prose, fenced = [], False
for number, line in enumerate(readme.splitlines(), 1):
    fenced ^= line.startswith('```')
    if not fenced and not line.startswith('```'):
        prose += ['%d: %s' % (number, f) for f in re.findall(r'(?<![\d.])[01]\.\d{2,3}(?![\d.])', line)
                  if f not in TARGETS]
ok('## What tracing costs' in readme and 'doc/performance.md' in readme and not prose,
   'README.md quotes no measured figure (performance.md keeps them) and links to them', '\n'.join(prose))

# ---- the tools' build time, as the quick start and the README say it ----
times = {rel: re.findall(r'about (\d+) minutes on 2 cores', ' '.join(read(rel).split()))
         for rel in ('README.md', 'quickstart.sh', 'doc/llama-cpp.md')}
ok(all(times.values()) and len({t for v in times.values() for t in v}) == 1,
   "the quick start, the README and llama-cpp.md give the tools' first build one time", times)

# ---- the README's shape, and no dates in the guides ----
DATE = r'\b20\d\d-\d\d-\d\d\b'
lines = readme.splitlines()
dated = [line for line in lines if re.search(DATE, re.sub(r'\]\([^)]*\)', '](...)', line))]
ok(len(lines) <= 400 and len(dated) <= 3, 'README.md: %d lines (at most 400), %d dated (at most 3)' %
   (len(lines), len(dated)), '\n'.join(dated))
problems = []
for rel in docs:
    if not rel.startswith('doc/') or rel in ('doc/performance.md', 'doc/cost.md', 'doc/cost-gpu.md'):
        continue
    fenced = False
    for i, line in enumerate(read(rel).splitlines(), 1):
        fenced ^= line.startswith('```')
        # a time a sample output prints is no dated result; a link's target may name a section's date
        if not fenced and re.search(DATE, re.sub(r'\]\([^)]*\)', '](...)', line)):
            problems.append('%s:%d: %s' % (rel, i, line.strip()))
ok(not problems, 'the guides in doc/ hold no dated result (those are in performance.md and cost*.md)',
   '\n'.join(problems))

taplib.finish()
