#!/usr/bin/env python3
"""Check that no lower layer includes a higher one.

The layers, the paths each holds and what each may include are the table
in docs/internals.md between the "layering table" markers: this script
reads that table, so the doc is the one source of the order.

Every .c and .h under the source tree (not tests/, bench/, scripts/,
docs/ or build directories) is read for its #include "..." lines. An
include is resolved as the compiler does with -Iinclude -I.: next to the
including file first, then under include/, then from the top. A file's
layer, and the layer of the header it includes, is the table's longest
matching path. A file may include its own layer and the layers its row
lists; anything else is a violation, unless scripts/layering-allowlist.txt
lists it ("file -> include as written  # why"): those are the known ones,
to be burnt down. Allowlist lines that match nothing any more are
reported (and fail the check with --strict).

The link follows the same table: meson.build builds one library per
layer from its "layers" list, linked with the layers that row names, so
an upward call fails to link. This script also checks that the list and
the table name the same layers in the same order, with the same lower
layers, so the doc, the include check and the linker describe one house.

Usage: scripts/check-layering.py [--root DIR] [--strict]
Exit status 0 when there is no new violation, 1 otherwise.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_table import sources, table_rows  # noqa: E402

DOC = "docs/internals.md"
ALLOWLIST = "scripts/layering-allowlist.txt"
BEGIN = "<!-- layering table: read by scripts/check-layering.py -->"
END = "<!-- end of layering table -->"
INCLUDE_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
# "edge" in the "may include" column: everything.
EVERYTHING = "everything"


class Layer:
    def __init__(self, name, paths, may_include):
        self.name = name
        self.paths = paths
        self.may_include = may_include


def read_table(root):
    """The layers of docs/internals.md's table, bottom first."""
    rows = table_rows(root, DOC, BEGIN, END, "check-layering",
                      "layering table")
    # One row per layer.
    layers = []
    for c in rows:
        if len(c) < 3:
            sys.exit(f"check-layering: {DOC}: bad table row: {c}")
        name = c[0].strip("`* ")
        paths = re.findall(r"`([^`]+)`", c[1])
        may = [m.strip("`* ") for m in re.split(r",\s*", c[2])
               if m.strip("`* ") and m.strip() != "-"]
        if not paths:
            sys.exit(f"check-layering: {DOC}: layer {name} has no paths")
        layers.append(Layer(name, paths, may))
    names = {l.name for l in layers}
    for l in layers:
        for m in l.may_include:
            if m != EVERYTHING and m not in names:
                sys.exit(f"check-layering: {DOC}: layer {l.name} may "
                         f"include '{m}', which is no layer of the table")
    return layers


def matches(pattern, path):
    """dir/ holds everything under it; '*' is one file name's part."""
    if pattern.endswith("/"):
        return path.startswith(pattern)
    if "*" in pattern:
        rx = "[^/]*".join(re.escape(p) for p in pattern.split("*"))
        return re.fullmatch(rx, path) is not None
    return path == pattern


def layer_of(layers, path):
    """The layer whose path is the longest match for path, or None."""
    best, best_len = None, -1
    for layer in layers:
        for p in layer.paths:
            if matches(p, path) and len(p) > best_len:
                best, best_len = layer, len(p)
    return best


def resolve(root, src, inc):
    for cand in (os.path.join(os.path.dirname(src), inc),
                 os.path.join("include", inc), inc):
        cand = os.path.normpath(cand)
        if os.path.isfile(os.path.join(root, cand)):
            return cand
    # Generated in the build directory (config-host.h, qemu-options.def):
    # the table names them as they are written.
    return os.path.normpath(inc)


def read_allowlist(root):
    allowed = {}
    path = os.path.join(root, ALLOWLIST)
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            entry = line.split("#", 1)[0].strip()
            if not entry:
                continue
            if "->" not in entry:
                sys.exit(f"{ALLOWLIST}:{n}: not 'file -> include': {line}")
            src, inc = (s.strip() for s in entry.split("->", 1))
            allowed[(src, inc)] = n
    return allowed


MESON_LAYER_RE = re.compile(r"\[\s*'([\w-]+)',\s*\w+,\s*\[([^\]]*)\]\s*\]",
                            re.S)


def check_meson(root, layers):
    """Differences between meson.build's layers list and the table."""
    with open(os.path.join(root, "meson.build"), encoding="utf-8") as f:
        text = f.read()
    if "layers = [" not in text:
        return ["meson.build: no 'layers = [' list"]
    body = text.split("layers = [", 1)[1].split("\n]\n", 1)[0]
    meson = [(m.group(1), re.findall(r"'([\w-]+)'", m.group(2)))
             for m in MESON_LAYER_RE.finditer(body)]
    table = [(l.name, l.may_include) for l in layers
             if EVERYTHING not in l.may_include]
    errors = []
    if [n for n, _ in meson] != [n for n, _ in table]:
        errors.append("meson.build's layers %s are not the table's %s" %
                      ([n for n, _ in meson], [n for n, _ in table]))
    for (name, lower), (_, may) in zip(meson, table):
        if sorted(lower) != sorted(may):
            errors.append(f"meson.build: layer {name} links {sorted(lower)}"
                          f", the table lets it include {sorted(may)}")
    return errors


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--strict", action="store_true",
                    help="fail on allowlist lines that match nothing")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    layers = read_table(root)
    allowed = read_allowlist(root)
    used = set()
    errors = check_meson(root, layers)
    checked = 0

    for src in sources(root):
        src_layer = layer_of(layers, src)
        if src_layer is None:
            errors.append(f"{src}: in no layer of the table in {DOC}; "
                          f"add its directory to a row")
            continue
        with open(os.path.join(root, src), encoding="utf-8",
                  errors="replace") as f:
            lines = f.readlines()
        for n, line in enumerate(lines, 1):
            m = INCLUDE_RE.match(line)
            if not m:
                continue
            checked += 1
            inc = m.group(1)
            target = resolve(root, src, inc)
            inc_layer = layer_of(layers, target)
            if inc_layer is None:
                errors.append(f"{src}:{n}: #include \"{inc}\" ({target}) "
                              f"is in no layer of the table in {DOC}")
                continue
            if (inc_layer is src_layer or
                    inc_layer.name in src_layer.may_include or
                    EVERYTHING in src_layer.may_include):
                continue
            if (src, inc) in allowed:
                used.add((src, inc))
                continue
            may = ", ".join([src_layer.name] + src_layer.may_include)
            errors.append(f"{src}:{n}: layer violation: {src_layer.name} "
                          f"includes {inc_layer.name} (#include \"{inc}\"); "
                          f"{src_layer.name} may include only: {may} "
                          f"(table in {DOC}; a known exception goes to "
                          f"{ALLOWLIST})")

    stale = [(n, s, i) for (s, i), n in allowed.items() if (s, i) not in used]
    for n, s, i in sorted(stale):
        print(f"{ALLOWLIST}:{n}: '{s} -> {i}' matches no violation any more: "
              f"remove the line", file=sys.stderr)
    for e in errors:
        print(e, file=sys.stderr)
    print(f"check-layering: {checked} includes checked, {len(used)} known "
          f"exceptions, {len(errors)} new violation(s)")
    return 1 if errors or (args.strict and stale) else 0


if __name__ == "__main__":
    sys.exit(main())
