#!/usr/bin/env python3
"""Count test cases in meson testlog.json files and print the summary line.

TAP tests count each "ok"/"not ok" line (with "# SKIP" as skipped); a TAP
test that died without a plan adds one failure. Other tests count once by
meson's verdict. Prints "N passed, N failed[, N skipped]"; exits 1 on any
failure.
"""
import json
import re
import sys

TAP_LINE = re.compile(r"^(not ok|ok)\b[^#]*(#\s*(SKIP|TODO)\b)?", re.I)


def count(path, totals):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            entry = json.loads(line)
            result = entry.get("result", "")
            out = entry.get("stdout") or ""
            cases = [TAP_LINE.match(l) for l in out.splitlines()]
            cases = [m for m in cases if m]
            if cases:
                for m in cases:
                    directive = (m.group(3) or "").upper()
                    # TAP: a failing TODO case is a known gap, not a
                    # failure; it is counted with the skipped ones.
                    if directive == "SKIP" or \
                            (directive == "TODO" and m.group(1) != "ok"):
                        totals["skipped"] += 1
                    elif m.group(1) == "ok":
                        totals["passed"] += 1
                    else:
                        totals["failed"] += 1
                if result not in ("OK", "SKIP", "EXPECTEDFAIL") and \
                        not any(m.group(1) == "not ok" for m in cases):
                    totals["failed"] += 1     # crashed or timed out
            elif result == "OK" or result == "EXPECTEDFAIL":
                totals["passed"] += 1
            elif result == "SKIP":
                totals["skipped"] += 1
            else:
                totals["failed"] += 1


def main(paths):
    totals = {"passed": 0, "failed": 0, "skipped": 0}
    for p in paths:
        try:
            count(p, totals)
        except OSError as e:
            print("test-summary: %s: %s" % (p, e.strerror), file=sys.stderr)
            totals["failed"] += 1
    line = "%d passed, %d failed" % (totals["passed"], totals["failed"])
    if totals["skipped"]:
        line += ", %d skipped" % totals["skipped"]
    print(line)
    return 1 if totals["failed"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
