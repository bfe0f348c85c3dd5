#!/usr/bin/env python3
"""Checks that lib/ and tools/ are layers that only look down (TAP).

For each group of object files (the library's lib/libggmlviz.a, the
command's tools/libcli.a), reads their symbols with nm: a file that uses a
symbol another file defines depends on that file. The files and those
dependencies must form no circle: every cycle is printed as
"a.o -> b.o -> a.o", with the symbols that make each step.

A third check: no file of tools/ uses a library symbol that is not public
(ggmlviz_*): the command is built on the public API alone.

Usage: test-layers.py BUILDDIR   (NM from the environment, default nm)
"""
import os
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


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "."
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
    print("1..%d" % n)


main()
