#!/usr/bin/env python3
"""Check that docs/internals.md's map names every source file.

The map is the "Where things are" table of docs/internals.md between the
"source map" markers. Only its first column is read, and in it only what
stands in backticks:

- `dir/file.c` names that file; a path is from the top of the tree.
- `file.c` without a '/' is in the folder of the last path before it in
  the same cell: `target/i386/tcg/decode.c`, `decode-0f.c` names
  target/i386/tcg/decode-0f.c. Before any path, it is at the top.
- '*' stands for any part of one file name: `hw/misc/*.c`, `ops-sse*.c`.
- `dir/` (ending in '/') names the files directly in that folder, not
  those of its subfolders, and counts only under tests/ and bench/: the
  rest of the tree is named file by file or by pattern.

Every .c and .h under the source tree (not tests/, bench/, scripts/,
docs/ or build directories, as scripts/check-layering.py reads it) must
be named, and every file under tests/ and bench/ named or in a named
folder. Every name must exist: a path as a file, a folder as a folder, a
pattern matching at least one file.

Usage: scripts/check-doc-map.py [--root DIR]
Exit status 0 when the map and the tree agree, 1 otherwise.
"""

import argparse
import glob
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_table import sources, table_rows, walk  # noqa: E402

DOC = "docs/internals.md"
BEGIN = "<!-- source map: read by scripts/check-doc-map.py -->"
END = "<!-- end of source map -->"
# Named by folder as well as by file.
FOLDER_TREES = ("tests/", "bench/")


def read_map(root):
    """The names in the map's first column, as paths from the top."""
    names = []
    for c in table_rows(root, DOC, BEGIN, END, "check-doc-map",
                        "source map"):
        first = c[0]
        folder = ""
        for word in re.findall(r"`([^`]+)`", first):
            if word.endswith("/"):
                folder = word
                names.append(word)
            elif "/" in word:
                folder = word.rsplit("/", 1)[0] + "/"
                names.append(word)
            else:
                names.append(folder + word)
    return names


def others(root):
    for top in FOLDER_TREES:
        if os.path.isdir(os.path.join(root, top)):
            yield from walk(root, top)


def pattern_rx(name):
    return re.compile("[^/]*".join(re.escape(p) for p in name.split("*")))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), ".."))
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    names = read_map(root)
    errors = []

    files, patterns, folders = set(), [], set()
    for name in names:
        if name.endswith("/"):
            if not name.startswith(FOLDER_TREES):
                errors.append(f"{DOC}: `{name}`: a folder names files only "
                              f"under tests/ and bench/; name the files "
                              f"(`{name}*.c` for all)")
            elif not os.path.isdir(os.path.join(root, name)):
                errors.append(f"{DOC}: `{name}` is no folder of the tree")
            folders.add(name.rstrip("/"))
        elif "*" in name:
            patterns.append((name, pattern_rx(name)))
        else:
            if not os.path.isfile(os.path.join(root, name)):
                errors.append(f"{DOC}: `{name}` is no file of the tree")
            files.add(os.path.normpath(name))

    everything = list(sources(root)) + list(others(root))
    matched = set()
    for name, rx in patterns:
        # On disk, as a pattern may name files the walk does not read
        # (`qapi/*.json`).
        if not glob.glob(os.path.join(glob.escape(root), name)):
            errors.append(f"{DOC}: `{name}` matches no file of the tree")
        matched.update(p for p in everything if rx.fullmatch(p))

    def named(path, by_folder):
        if path in files or path in matched:
            return True
        return by_folder and os.path.dirname(path) in folders

    count = 0
    for path in sources(root):
        count += 1
        if not named(path, False):
            errors.append(f"{path}: not named in the map of {DOC} "
                          f"(\"Where things are\")")
    for path in others(root):
        count += 1
        if not named(path, True):
            errors.append(f"{path}: neither it nor its folder is named in "
                          f"the map of {DOC} (\"Where things are\")")

    for e in errors:
        print(e, file=sys.stderr)
    print(f"check-doc-map: {count} files, {len(names)} names in the map, "
          f"{len(errors)} problem(s)")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
