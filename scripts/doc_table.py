"""What scripts/check-layering.py and check-doc-map.py share: the rows
of a table of docs/internals.md between two marker lines, and the walk
over the source tree both check."""

import os
import sys

# Not source: read by neither check (tests/ and bench/ by check-doc-map
# through walk() on their own).
SKIP_DIRS = {"tests", "bench", "scripts", "docs"}


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


def table_rows(root, doc, begin, end, tool, what):
    """The cells of each row of the table between begin and end, less the
    header and the separator; exits with tool's message without them."""
    with open(os.path.join(root, doc), encoding="utf-8") as f:
        text = f.read()
    if begin not in text or end not in text:
        sys.exit(f"{tool}: no {what} in {doc} "
                 f"(the lines '{begin}' ... '{end}')")
    body = text.split(begin, 1)[1].split(end, 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")]
    return [cells(line) for line in rows[2:]]


def walk(root, top):
    """Files under top (relative to root), hidden ones and build dirs out;
    from the top, not SKIP_DIRS."""
    for dirpath, dirs, files in os.walk(os.path.join(root, top)):
        rel = os.path.relpath(dirpath, root)
        if rel == ".":
            dirs[:] = [d for d in dirs if d not in SKIP_DIRS]
        dirs[:] = sorted(d for d in dirs
                         if not d.startswith((".", "build", "__pycache__")))
        for name in sorted(files):
            if not name.startswith(".") and not name.endswith(".pyc"):
                yield os.path.normpath(os.path.join(rel, name))


def sources(root):
    """Every .c and .h of the source tree."""
    for path in walk(root, "."):
        if path.endswith((".c", ".h")):
            yield path
