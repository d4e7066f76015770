#!/usr/bin/env python3
"""Debian's Linux under the software CPU: time to userspace and to exit,
ours (BINARY) against REFERENCE (default Debian's QEMU 7.2) with the
same kernel, initramfs and command line, runs interleaved, per
-overcommit mem-lock mode.

  userspace, s   from launch to /init's first line ("init: started")
  exit, s        from launch to the emulator's exit after the guest's
                 ACPI poweroff (status 0)
  peak RSS, MiB  ru_maxrss of the child (os.wait4)

The guest is scripts/fetch-linux-guest.sh's (build/guest-linux): the
bzImage by default (--kernel vmlinux for the PVH entry), which QEMU
boots through SeaBIOS and its linuxboot (or PVH) option ROM, so its
time includes the firmware, and ours directly. A binary or mode
that cannot run gets its first error line instead of figures.

Usage: bench/linux-boot.py [--runs N] [--mem SIZE] [--smp N]
                           [--kernel bzImage|vmlinux] [--guest-dir DIR]
                           [--write-doc] BINARY [REFERENCE]
"""
import argparse
import os
import select
import shlex
import subprocess
import sys
import time

import tcg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## Linux under the software CPU"
MODES = ["off", "on", "on-fault"]
FIRST_LINE = b"init: started"
APPEND = "console=ttyS0 panic=-1 quiet"


def guest_cmd(binary, kernel, initrd, mem, smp, mode):
    return [binary, "-M", "pc", "-accel", "tcg", "-m", mem,
            "-smp", str(smp), "-display", "none", "-serial", "stdio",
            "-no-reboot", "-overcommit", "mem-lock=" + mode,
            "-kernel", kernel, "-initrd", initrd, "-append", APPEND]


def one_run(cmd, timeout):
    """A dict of figures, or {"error": why}."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    out = err = b""
    first = None
    fds = {p.stdout.fileno(): "out", p.stderr.fileno(): "err"}
    timed_out = False
    while fds:
        left = timeout - (time.monotonic() - t0)
        if left <= 0:
            p.kill()
            timed_out = True
            break
        ready, _, _ = select.select(list(fds), [], [], left)
        for fd in ready:
            chunk = os.read(fd, 65536)
            if not chunk:
                del fds[fd]
                continue
            if fds[fd] == "err":
                err += chunk
                continue
            out += chunk
            if first is None and FIRST_LINE in out:
                first = time.monotonic()
    _, status, usage = os.wait4(p.pid, 0)
    end = time.monotonic()
    code = os.waitstatus_to_exitcode(status)
    if timed_out or code != 0 or first is None:
        lines = [l for l in err.decode(errors="replace").splitlines()
                 if l.strip()]
        why = lines[0] if lines else "exit %d, serial ...%r" % (
            code, out[-120:])
        if timed_out:
            why = "timed out after %d s" % timeout
        return {"error": why}
    return {"user": first - t0, "exit": end - t0,
            "rss": usage.ru_maxrss / 1024.0}


def table(binaries, results):
    out = ["| binary | mem-lock | userspace, s | exit, s | peak RSS, MiB |",
           "|---|---|---|---|---|"]
    for b in binaries:
        for mode in MODES:
            runs = results[(b["name"], mode)]
            errors = [r["error"] for r in runs if "error" in r]
            if errors:
                why = tcg.short_error(errors[0])
                kind = "rejected" if "mem-lock" in why else "failed"
                out.append("| %s | %s | %s: %s | | |" % (
                    b["label"], mode, kind, why))
                continue
            out.append("| %s | %s | %.2f | %.2f | %.1f |" % (
                b["label"], mode, tcg.med(runs, "user"),
                tcg.med(runs, "exit"), tcg.med(runs, "rss")))
    return out


def ratios(binaries, results):
    ours, ref = binaries
    parts = []
    for mode in MODES:
        a = results[(ours["name"], mode)]
        r = results[(ref["name"], mode)]
        if not a or not r or any("error" in x for x in a + r):
            continue
        parts.append("mem-lock=%s: to userspace %.2f×, to exit %.2f×, "
                     "peak RSS %.2f×" % (
                         mode, tcg.med(a, "user") / tcg.med(r, "user"),
                         tcg.med(a, "exit") / tcg.med(r, "exit"),
                         tcg.med(a, "rss") / tcg.med(r, "rss")))
    if not parts:
        return ["Ratios: not available (a binary has no figures)."]
    out = ["Ratios, ours / reference: " + "; ".join(parts) + "."]
    a = results[(ours["name"], "off")]
    r = results[(ref["name"], "off")]
    if a and r and not any("error" in x for x in a + r):
        ratio = tcg.med(a, "user") / tcg.med(r, "user")
        out += ["", "Stage-2 target (issue 12), at most 2.0× QEMU's time to "
                "userspace: %.2f×: **%s**." % (
                    ratio, "met" if ratio <= 2.0 else "not met")]
    return out


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mem", default="1G")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--kernel", choices=["bzImage", "vmlinux"],
                    default="bzImage")
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--guest-dir", default=os.path.join(
        ROOT, "build", "guest-linux"))
    ap.add_argument("--write-doc", action="store_true",
                    help="replace the measured block of the '%s' section "
                    "of docs/performance.md" % SECTION)
    args = ap.parse_args()

    kernel = os.path.join(args.guest_dir, args.kernel)
    initrd = os.path.join(args.guest_dir, "initramfs.cpio")
    for f in (kernel, initrd):
        if not os.path.exists(f):
            sys.exit("%s: missing (run scripts/fetch-linux-guest.sh)" % f)
    binaries = [
        {"name": "ours", "path": args.binary,
         "label": tcg.version(args.binary)},
        {"name": "ref", "path": args.reference,
         "label": tcg.version(args.reference)},
    ]
    results = {(b["name"], m): [] for b in binaries for m in MODES}
    broken = set()
    for i in range(args.runs):
        for mode in MODES:
            for b in binaries:
                key = (b["name"], mode)
                if key in broken:
                    continue
                r = one_run(guest_cmd(b["path"], kernel, initrd, args.mem,
                                      args.smp, mode), args.timeout)
                results[key].append(r)
                if "error" in r:
                    broken.add(key)     # a failure repeats: run it once
                print("run %d %s mem-lock=%s: %s" % (
                    i + 1, b["name"], mode, r.get("error") or
                    "userspace %.2f s, exit %.2f s, RSS %.1f MiB" % (
                        r["user"], r["exit"], r["rss"])), file=sys.stderr)

    out = ["`%s`  " % shlex.join(["bench/linux-boot.py"] + sys.argv[1:]),
           "(%s; %s; medians of %d runs, interleaved)" % (
               time.strftime("%Y-%m-%d %H:%M"),
               open(os.path.join(args.guest_dir, "VERSION")).read().strip()
               if os.path.exists(os.path.join(args.guest_dir, "VERSION"))
               else "kernel", args.runs),
           "",
           "Command per run: `%s`" % shlex.join(guest_cmd(
               "BINARY", args.kernel, "initramfs.cpio", args.mem, args.smp,
               "MODE")),
           ""]
    out += table(binaries, results)
    out.append("")
    out += ratios(binaries, results)
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.write_doc:
        tcg.write_doc(text, "linux-boot.py " + args.kernel, SECTION)


if __name__ == "__main__":
    main()
