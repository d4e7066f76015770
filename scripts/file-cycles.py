#!/usr/bin/env python3
"""Import circles between source files, from the symbols of a build.

Reads the object files of every static library in BUILD (meson's
LIB.a.p/ folders) with nm, links each undefined symbol to the file that
defines it, and prints the strongly connected components of that graph
with more than one file (Tarjan), largest first: files that call each
other, directly or round a loop. A component inside one folder may be
one unit; one across folders is a layering fault.

Usage: scripts/file-cycles.py [BUILD]     (default: build)
Exit status 0 always; it reports.
"""

import collections
import os
import subprocess
import sys


def objects(build):
    for d in sorted(os.listdir(build)):
        if d.endswith(".a.p"):
            for f in sorted(os.listdir(os.path.join(build, d))):
                if f.endswith(".o"):
                    yield os.path.join(build, d, f)


def source_names(root):
    """meson's object names (dir_file.c.o) back to source paths."""
    names = {}
    for dirpath, dirs, files in os.walk(root):
        rel = os.path.relpath(dirpath, root)
        dirs[:] = [d for d in dirs if not d.startswith((".", "build"))]
        for f in files:
            if f.endswith(".c"):
                path = os.path.normpath(os.path.join(rel, f))
                names[path.replace("/", "_")] = path
    return names


def graph(build, root):
    names = source_names(root)
    defs, undefs = {}, collections.defaultdict(set)
    for o in objects(build):
        base = os.path.basename(o)[:-2]
        src = names.get(base, base)
        out = subprocess.run(["nm", o], capture_output=True, text=True,
                             check=True).stdout
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 2 and parts[0] == "U":
                undefs[src].add(parts[1])
            elif len(parts) == 3 and parts[1] in "TDBRCGSV":
                defs[parts[2]] = src
    edges = collections.defaultdict(set)
    for src, syms in undefs.items():
        for s in syms:
            if s in defs and defs[s] != src:
                edges[src].add(defs[s])
    return edges


def components(edges):
    index, low, stack, on, out = {}, {}, [], set(), []
    counter = [0]
    sys.setrecursionlimit(100000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges.get(v, ())):
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

    nodes = set(edges) | {t for ts in edges.values() for t in ts}
    for v in sorted(nodes):
        if v not in index:
            visit(v)
    return sorted(out, key=len, reverse=True)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    comps = components(graph(build, root))
    for comp in comps:
        folders = sorted({os.path.dirname(p) for p in comp})
        print(f"{len(comp)} files in {len(folders)} folder(s) "
              f"({', '.join(folders)}): {' '.join(comp)}")
    print(f"file-cycles: {len(comps)} circle(s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
