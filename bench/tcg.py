#!/usr/bin/env python3
"""Software CPU speed and memory: the guest kit's cpubench under -accel tcg,
run by BINARY (ours) and REFERENCE (default Debian's QEMU) in one run,
runs interleaved so that drift in the host's load hits both alike.

  guest work, s   from the first serial line ("cpubench: N rounds") to the
                  last ("cpubench: PASS"): the CPU work alone, without
                  firmware or start-up
  total, s        from launch to process exit (status 1: the guest's PASS)
  MIPS            guest instructions per second of guest work, where the
                  count is known: a binary may print a line matching
                  ICOUNT_RE on stderr at exit (--ours-args can ask for
                  it); the guest program is deterministic, so the same
                  count also gives the reference's MIPS (marked ~: firmware
                  instructions are not in it)
  peak RSS, MiB   ru_maxrss of the child (os.wait4), per -overcommit
                  mem-lock mode: off, on, on-fault

A binary or mode that cannot run (tcg not built yet, a mode rejected) gets
its first error line in the table instead of figures. The two binaries'
serial outputs are compared: a checksum mismatch is reported, since speed
on a wrong answer means nothing.

Usage: bench/tcg.py [--runs N] [--iters N] [--mem SIZE] [--guest-dir DIR]
                    [--ours-args ARGS] [--write-doc] BINARY [REFERENCE]
"""
import argparse
import os
import re
import select
import shlex
import subprocess
import sys
import time

import benchlib
from benchlib import med, short_error, version  # the other benches use tcg.*

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## Software CPU"
MODES = ["off", "on", "on-fault"]
ICOUNT_RE = re.compile(r"(\d+) instructions? (?:retired|executed)")
FIRST_LINE = b"cpubench: "
PASS_LINE = b"cpubench: PASS\n"


def guest_cmd(binary, kernel, iters, mem, mode, extra):
    return [binary, "-M", "pc", "-accel", "tcg", "-m", mem,
            "-display", "none", "-serial", "stdio", "-no-reboot",
            "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
            "-overcommit", "mem-lock=" + mode,
            "-kernel", kernel, "-append", "iters=%d" % iters] + extra


def one_run(cmd, timeout):
    """A dict of figures, or {"error": first stderr line}."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = err = b""
    first = last = None
    fds = {p.stdout.fileno(): "out", p.stderr.fileno(): "err"}
    while fds:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            p.kill()
            break
        ready, _, _ = select.select(list(fds), [], [], left)
        for fd in ready:
            chunk = os.read(fd, 65536)
            now = time.monotonic()
            if not chunk:
                del fds[fd]
                continue
            if fds[fd] == "err":
                err += chunk
                continue
            out += chunk
            if first is None and FIRST_LINE in out:
                first = now
            if last is None and PASS_LINE in out:
                last = now
    _, status, usage = os.wait4(p.pid, 0)
    end = time.monotonic()
    code = os.waitstatus_to_exitcode(status)
    text = err.decode(errors="replace")
    if code != 1 or first is None or last is None:
        lines = [l for l in text.splitlines() if l.strip()]
        why = lines[0] if lines else "exit %d, serial %r" % (code, out[-200:])
        if time.monotonic() - t0 >= timeout:
            why = "timed out after %d s" % timeout
        return {"error": why}
    m = ICOUNT_RE.search(text)
    return {
        "work": last - first,
        "total": end - t0,
        "rss": usage.ru_maxrss / 1024.0,
        "icount": int(m.group(1)) if m else None,
        "serial": out,
    }





def table(binaries, results):
    out = []
    out.append("| binary | mem-lock | guest work, s | total, s | MIPS | "
               "peak RSS, MiB |")
    out.append("|---|---|---|---|---|---|")
    ours_icount = med([r for m in MODES
                       for r in results[(binaries[0]["name"], m)]],
                      "icount")
    for b in binaries:
        errors = {m: [r["error"] for r in results[(b["name"], m)]
                      if "error" in r] for m in MODES}
        if all(errors.values()) and \
                len({e[0] for e in errors.values()}) == 1:
            # The binary cannot run at all (e.g. tcg not built yet).
            out.append("| %s | all | not available: %s | | | |" % (
                b["label"], short_error(errors["off"][0])))
            continue
        for mode in MODES:
            runs = results[(b["name"], mode)]
            if errors[mode]:
                why = short_error(errors[mode][0])
                kind = "rejected" if "mem-lock" in why else "not available"
                out.append("| %s | %s | %s: %s | | | |" % (
                    b["label"], mode, kind, why))
                continue
            work = med(runs, "work")
            ic = med(runs, "icount")
            if ic:
                mips = "%.0f" % (ic / work / 1e6)
            elif ours_icount:
                mips = "~%.0f" % (ours_icount / work / 1e6)
            else:
                mips = "n/a"
            out.append("| %s | %s | %.2f | %.2f | %s | %.1f |" % (
                b["label"], mode, work, med(runs, "total"), mips,
                med(runs, "rss")))
    return out


def ratios(binaries, results):
    ours, ref = binaries
    out = []
    parts = []
    for mode in MODES:
        a = results[(ours["name"], mode)]
        r = results[(ref["name"], mode)]
        if any("error" in x for x in a + r):
            continue
        parts.append("mem-lock=%s: time %.2f× (speed %.2f of QEMU's), "
                     "peak RSS %.2f×" % (
                         mode, med(a, "work") / med(r, "work"),
                         med(r, "work") / med(a, "work"),
                         med(a, "rss") / med(r, "rss")))
    if parts:
        out.append("Ratios, ours / reference: " + "; ".join(parts) + ".")
        a = results[(ours["name"], "off")]
        r = results[(ref["name"], "off")]
        if not any("error" in x for x in a + r):
            speed = med(r, "work") / med(a, "work")
            out.append("")
            out.append("Stage-1 target (issue 6), at least a quarter of "
                       "QEMU TCG's speed: %.2f: **%s**." % (
                           speed, "met" if speed >= 0.25 else "not met"))
    else:
        out.append("Ratios: not available (%s has no figures yet)."
                   % ours["label"])
    return out


def check_outputs(binaries, results):
    """Lines where the binaries' serial outputs differ, if any."""
    serials = {}
    for b in binaries:
        for mode in MODES:
            for r in results[(b["name"], mode)]:
                if "serial" in r:
                    serials.setdefault(b["label"], set()).add(r["serial"])
    distinct = set()
    for s in serials.values():
        distinct |= s
    if len(distinct) <= 1:
        return []
    return ["**Serial outputs differ** between runs or binaries: %s." %
            "; ".join("%s: %d distinct" % (k, len(v))
                      for k, v in serials.items())]



def write_doc(text, script="tcg.py", section=SECTION):
    benchlib.write_doc(text, script, section)


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--iters", type=int, default=32,
                    help="cpubench rounds (default 32: ~3 s of QEMU TCG "
                    "here)")
    ap.add_argument("--mem", default="512M")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--guest-dir", default=os.path.join(
        ROOT, "build", "tests", "guest"))
    ap.add_argument("--ours-args", default="-d tcg_stats",
                    help="extra arguments for BINARY only (e.g. what makes "
                    "it print its instruction count)")
    ap.add_argument("--write-doc", action="store_true",
                    help="replace the measured block of the '%s' section "
                    "of docs/performance.md" % SECTION)
    args = ap.parse_args()

    kernel = os.path.join(args.guest_dir, "cpubench.elf")
    if not os.path.exists(kernel):
        sys.exit("%s: not built (ninja -C build, or tests/guest/build.sh)"
                 % kernel)
    binaries = [
        {"name": "ours", "path": args.binary,
         "label": version(args.binary), "extra": shlex.split(args.ours_args)},
        {"name": "ref", "path": args.reference,
         "label": version(args.reference), "extra": []},
    ]
    results = {(b["name"], m): [] for b in binaries for m in MODES}
    broken = set()
    for i in range(args.runs):
        for mode in MODES:
            for b in binaries:
                key = (b["name"], mode)
                if key in broken:
                    continue
                cmd = guest_cmd(b["path"], kernel, args.iters, args.mem,
                                mode, b["extra"])
                r = one_run(cmd, args.timeout)
                results[key].append(r)
                if "error" in r:
                    broken.add(key)     # a failure repeats: run it once
                print("run %d %s mem-lock=%s: %s" % (
                    i + 1, b["name"], mode, r.get("error") or
                    "work %.2f s, total %.2f s, RSS %.1f MiB" % (
                        r["work"], r["total"], r["rss"])), file=sys.stderr)

    out = []
    out.append("`%s`  " % shlex.join(["bench/tcg.py"] + sys.argv[1:]))
    out.append("(%s; cpubench `iters=%d`, `-m %s`; medians of %d runs, "
               "interleaved)" % (time.strftime("%Y-%m-%d %H:%M"), args.iters,
                                 args.mem, args.runs))
    out.append("")
    out.append("Command per run: `%s` (ours adds `%s`)" % (
        shlex.join(guest_cmd("BINARY", "cpubench.elf", args.iters, args.mem,
                             "MODE", [])),
        shlex.join(binaries[0]["extra"])))
    out.append("")
    out += table(binaries, results)
    out.append("")
    out += ratios(binaries, results)
    mismatch = check_outputs(binaries, results)
    if mismatch:
        out.append("")
        out += mismatch
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.write_doc:
        write_doc(text)


if __name__ == "__main__":
    main()
