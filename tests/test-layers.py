#!/usr/bin/env python3
"""Checks that lib/ and tools/ are layers that only look down (TAP).

For each group of object files (the library's lib/libggmlviz.a, the
command's tools/libcli.a), reads their symbols with nm: a file that uses a
symbol another file defines depends on that file. The files and those
dependencies must form no circle: every cycle is printed as
"a.o -> b.o -> a.o", with the symbols that make each step.

A third check: no file of tools/ uses a library symbol that is not public
(ggmlviz_*): the command is built on the public API alone.

Then who writes what, where grep can tell (lib/tracer is grouped by owner:
producer/, writer/, session/ on base/): the ring's Producer fields are
written only in producer/, its Consumer fields only in writer/, the
fields it hands over (so marked in ring.h) in either, and the writer's
struct only in writer/; ring.c's lifecycle functions (made, resized,
reset, released, freed where neither side runs) may set any field. A
write is an assignment, an increment, or an atomic store, add, exchange
or compare-exchange on the field through the names the tracer always
gives these structs: `r->` or `ring->` (a ring), `w->` (the writer), `p->`
or `pass[i].` (a pass ring).

Usage: test-layers.py BUILDDIR [SRCDIR]   (NM from the environment, default nm)
"""
import os
import re
import subprocess
import sys

NM = os.environ.get("NM") or "nm"
n = 0


def ok(good, what, detail=""):
    global n
    n += 1
    print(("ok" if good else "not ok") + " %d - %s" % (n, what))
    for line in detail.splitlines():
        print("# " + line)


def members(archive):
    """{object name: (defined symbols, undefined symbols)} of an archive."""
    out = subprocess.run([NM, "-A", archive], capture_output=True, text=True, check=True).stdout
    objs = {}
    for line in out.splitlines():
        # "lib/libggmlviz.a:libggmlviz_a-ring.o:0000000000000000 T ggmlviz__ring_new"
        # or "lib/libggmlviz.a:libggmlviz_a-ring.o:                 U memcpy"
        head, _, rest = line.rpartition(":")
        obj = head.split(":")[-1]
        parts = rest.split()
        if len(parts) < 2:
            continue
        kind, sym = parts[-2], parts[-1]
        d, u = objs.setdefault(obj, (set(), set()))
        if kind == "U":
            u.add(sym)
        elif kind in "TDBRCVWGS" or kind in "tdbr" and False:
            d.add(sym)
    return objs


def graph(objs):
    owner = {}
    for obj, (d, _) in objs.items():
        for s in d:
            owner[s] = obj
    edges = {obj: {} for obj in objs}
    for obj, (_, u) in objs.items():
        for s in u:
            o = owner.get(s)
            if o and o != obj:
                edges[obj].setdefault(o, []).append(s)
    return edges


def cycles(edges):
    """Strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return out


def show(comp, edges):
    lines = []
    for a in comp:
        for b, syms in sorted(edges[a].items()):
            if b in comp:
                lines.append("%s -> %s (%s)" % (a, b, ", ".join(sorted(syms)[:4])))
    return "\n".join(lines)


def check_group(name, archive):
    if not os.path.exists(archive):
        ok(False, "%s: %s exists" % (name, archive))
        return None
    objs = members(archive)
    edges = graph(objs)
    comps = cycles(edges)
    ok(not comps, "%s: no circle among its %d files" % (name, len(objs)),
       "\n\n".join(show(c, edges) for c in comps))
    return objs


# ---- who writes which fields ----

LIFECYCLE = {"ggmlviz__ring_new", "ggmlviz__ring_resize", "ggmlviz__ring_reset",
             "ggmlviz__ring_release_buffer", "ggmlviz__ring_free", "unmap_buffer"}
POINTER = {"ring": r"\b(r|ring)\s*->\s*", "writer": r"\bw\s*->\s*",
           "pass": r"(\bp\s*->\s*|\bpass\s*\[[^]]*\]\s*\.\s*)"}
WRITE = (r"{p}{f}\b(\s*\[[^]]*\])?\s*(=(?!=)|\+=|-=|\|=|&=|\+\+|--)"
         r"|(\+\+|--)\s*{p}{f}\b"
         r"|(atomic_(store|fetch_\w+|exchange|compare_exchange_\w+)(_explicit)?"
         r"|__atomic_(store|fetch_\w+|exchange|compare_exchange)\w*)\s*\(\s*&\s*{p}{f}\b")


def struct_fields(path, name):
    """[(field, section comment, field comment)] of struct name in path."""
    text = open(path).read()
    body = text[text.index("struct %s {" % name):]
    body = body[:body.index("\n};")]
    out, section = [], ""
    for line in body.splitlines()[1:]:
        m = re.match(r"\s*/\* (.*?)[:.]", line)
        if m and not re.search(r";", line.split("/*")[0]):
            section = m.group(1)
            continue
        code, _, comment = line.partition("/*")
        for decl in code.split(";")[:-1]:
            for part in decl.split(","):
                m = re.search(r"(\w+)\s*(\[[^]]*\])?\s*$", part.strip())
                if m and m.group(1) not in ("uint64_t",):
                    out.append((m.group(1), section, comment))
    return out


def functions_of(path):
    """[(line number, line, enclosing top-level function or '')] of a C file."""
    fn, out = "", []
    for i, line in enumerate(open(path), 1):
        m = re.match(r"^[a-z_][\w\s\*]*?\b(\w+)\(", line)
        if m and not line.rstrip().endswith(";"):
            fn = m.group(1)
        out.append((i, line, fn))
        if line.startswith("}"):
            fn = ""
    return out


def owners(src):
    """{field: set of folders that may write it} for the ring and the writer."""
    ring_h = os.path.join(src, "lib/tracer/producer/ring.h")
    own = {}
    for f, section, comment in struct_fields(ring_h, "ggmlviz__ring"):
        if "handed over" in comment or "handed over" in section:
            own[("ring", f)] = {"producer", "writer"}
        elif section.startswith("Producer"):
            own[("ring", f)] = {"producer"}
        elif section.startswith("Consumer"):
            own[("ring", f)] = {"writer"}
    internal = os.path.join(src, "lib/tracer/writer/internal.h")
    for st, kind in (("ggmlviz__writer", "writer"), ("ggmlviz__pass_ring", "pass")):
        for f, _, _ in struct_fields(internal, st):
            own[(kind, f)] = {"writer"}
    return own


def check_owners(src):
    own = owners(src)
    tracer = os.path.join(src, "lib/tracer")
    bad, seen = [], 0
    names = {}
    for (kind, f), folders in own.items():
        names.setdefault(f, []).append((kind, folders))
    for folder in sorted(os.listdir(tracer)):
        for name in sorted(os.listdir(os.path.join(tracer, folder))):
            path = os.path.join(tracer, folder, name)
            if not name.endswith((".c", ".h")):
                continue
            for lineno, line, fn in functions_of(path):
                code = line.split("/*")[0].split("//")[0]
                for f, kinds in names.items():
                    if f not in code:
                        continue
                    hit = [fs for k, fs in kinds
                           if re.search(WRITE.format(p=POINTER[k], f=re.escape(f)), code)]
                    if not hit:
                        continue
                    allowed = set().union(*hit)
                    seen += 1
                    if folder in allowed or (name == "ring.c" and fn in LIFECYCLE):
                        continue
                    bad.append("%s/%s:%d (%s): writes %s, owned by %s" %
                               (folder, name, lineno, fn or "?", f, "/".join(sorted(allowed))))
    ring = sum(1 for k, _ in own if k == "ring")
    ok(ring >= 30 and len(own) - ring >= 30,
       "the ownership lists were read: %d ring fields, %d of the writer" % (ring, len(own) - ring))
    ok(seen >= 100, "the grep sees the owners' own writes (%d), so it can see a stray one" % seen)
    ok(not bad, "ring and writer fields are written only by their owners", "\n".join(bad))


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "."
    src = sys.argv[2] if len(sys.argv) > 2 else os.path.join(os.path.dirname(__file__), "..")
    lib = check_group("lib/", os.path.join(build, "lib/libggmlviz.a"))
    cli = check_group("tools/", os.path.join(build, "tools/libcli.a"))
    if lib is not None and cli is not None:
        internal = set()
        for d, _ in lib.values():
            internal |= {s for s in d if not s.startswith("ggmlviz_") or s.startswith("ggmlviz__")}
        used = {}
        for obj, (_, u) in cli.items():
            for s in u & internal:
                used.setdefault(obj, []).append(s)
        ok(not used, "tools/ uses only the library's public symbols",
           "\n".join("%s: %s" % (o, ", ".join(sorted(s))) for o, s in sorted(used.items())))
    check_owners(src)
    print("1..%d" % n)


main()
