#!/usr/bin/env python3
"""The pc machine with its firmware (SeaBIOS), ours beside a reference
(Debian's QEMU 7.2), same options, medians of --runs, interleaved.

  RSS per mem-lock mode
      the default machine, nothing else: BINARY -accel ACCEL -display none
      -overcommit mem-lock=MODE (no -kernel: the firmware runs, finds
      nothing to boot and waits). VmRSS and VmLck once RSS has settled
      (--settle seconds at least), under tcg and, where /dev/kvm opens,
      kvm. QEMU's default machine has more devices (VGA, IDE, e1000 with
      its iPXE ROM, which tries the network); ours has what exists today.
  time to the banner (tcg, and kvm where it opens)
      BINARY -accel ACCEL -nographic: s from starting the process to
      "SeaBIOS (version" on the serial console, and to "Booting from Hard
      Disk..." (the firmware's POST done; QEMU with -net none).
  Linux from a disk (tcg), with --linux-dir DIR
      a scripts/make-boot-media.sh image of the Debian guest on
      -drive if=virtio, -m 512M: s to "init: started" (the guest's
      userspace), through SeaBIOS and SYSLINUX.

Targets (issue 28): RSS under mem-lock=on-fault within 2 MiB of off, and
under on below QEMU's; to userspace under tcg within 2.0x QEMU's time,
the firmware phase no slower than QEMU's.

Usage: bench/firmware.py [--runs N] [--linux-dir DIR] [--write-doc]
                         BINARY [REFERENCE]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

BANNER = b"SeaBIOS (version"
POST_DONE = b"Booting from Hard Disk..."
USERSPACE = b"init: started"


def kvm_usable():
    try:
        os.close(os.open("/dev/kvm", os.O_RDWR))
        return True
    except OSError:
        return False


def rss_run(binary, accel, mode, settle):
    """VmRSS/VmLck (MiB) of the idle default machine, or an error."""
    p = subprocess.Popen([binary, "-accel", accel, "-display", "none",
                          "-overcommit", "mem-lock=" + mode],
                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE)
    try:
        time.sleep(settle)
        if p.poll() is not None:
            return {"error": p.stderr.read().decode().splitlines()[0]}
        prev, fig = None, benchlib.status(p.pid)
        while fig["VmRSS"] != prev:
            prev = fig["VmRSS"]
            time.sleep(0.5)
            fig = benchlib.status(p.pid)
        return fig
    finally:
        if p.poll() is None:
            p.terminate()
            p.wait(30)


def serial_run(cmd, marks, timeout):
    """s from start to the first of each mark on stdout (None: never)."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL)
    got = {}
    buf = b""
    os.set_blocking(p.stdout.fileno(), False)
    try:
        while len(got) < len(marks) and time.monotonic() - t0 < timeout:
            try:
                chunk = os.read(p.stdout.fileno(), 65536)
            except BlockingIOError:
                chunk = None
            now = time.monotonic() - t0
            if chunk == b"":
                break
            if chunk:
                buf += chunk
                for m in marks:
                    if m not in got and m in buf:
                        got[m] = now
            else:
                time.sleep(0.005)
    finally:
        p.terminate()
        p.wait(30)
    return [got.get(m) for m in marks]


def fmt(v, scale=1.0, digits=1):
    return "%.*f" % (digits, v * scale) if v is not None else "-"


def ratio(a, b):
    return "%.2fx" % (a / b) if a and b else "-"


def main():
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--settle", type=float, default=3.0)
    ap.add_argument("--linux-dir",
                    default=os.environ.get("LINUX_GUEST_DIR",
                                           os.path.join(benchlib.ROOT,
                                                        "build",
                                                        "guest-linux")))
    ap.add_argument("--write-doc", action="store_true")
    a = ap.parse_args()
    bins = [a.binary] + ([a.reference] if os.access(a.reference, os.X_OK)
                         else [])
    names = {b: benchlib.version(b) for b in bins}
    ours = a.binary
    out = []
    stamp = time.strftime("%Y-%m-%d %H:%M")
    out.append("`bench/firmware.py --runs %d%s %s`  " %
               (a.runs, " --write-doc" if a.write_doc else "",
                " ".join(os.path.relpath(b, benchlib.ROOT)
                         if b.startswith(benchlib.ROOT) else b
                         for b in bins)))
    out.append("(%s; medians of %d runs, interleaved; SeaBIOS %s)" %
               (stamp, a.runs, "1.16.2 (Debian)"))
    out.append("")

    # RSS per mem-lock mode.
    accels = ["tcg"] + (["kvm"] if kvm_usable() else [])
    out.append("RSS of the idle default machine: `BINARY -accel ACCEL "
               "-display none -overcommit mem-lock=MODE` (the firmware "
               "runs and waits)")
    out.append("")
    out.append("| binary | accel | mem-lock | VmRSS, MiB | VmLck, MiB |")
    out.append("|---|---|---|---|---|")
    rss = {}
    for accel in accels:
        for mode in ("off", "on", "on-fault"):
            runs = {b: [] for b in bins}
            for _ in range(a.runs):
                for b in bins:
                    runs[b].append(rss_run(b, accel, mode, a.settle))
            for b in bins:
                err = [r["error"] for r in runs[b] if "error" in r]
                if err:
                    out.append("| %s | %s | %s | rejected: %s | |" %
                               (names[b], accel, mode,
                                benchlib.short_error(err[0])))
                    continue
                r, l = benchlib.med(runs[b], "VmRSS"), \
                    benchlib.med(runs[b], "VmLck")
                rss[(b, accel, mode)] = r
                out.append("| %s | %s | %s | %.1f | %.1f |" %
                           (names[b], accel, mode, r, l))
    out.append("")
    for accel in accels:
        off, onf, on = (rss.get((ours, accel, m))
                        for m in ("off", "on-fault", "on"))
        ref_on = rss.get((a.reference, accel, "on"))
        line = "%s: ours on-fault - off = %s MiB (target within 2 MiB: %s)" \
            % (accel, fmt(onf - off if onf and off else None),
               "**met**" if onf and off and onf - off <= 2 else "not met")
        if ref_on:
            line += "; on: %s QEMU's (target below: %s)" % (
                ratio(on, ref_on), "**met**" if on < ref_on else "not met")
        out.append(line + ".  ")
    out.append("")

    # Time to the banner.
    med = {}
    out.append("Firmware: `BINARY -accel ACCEL -nographic` (QEMU adds "
               "`-net none`), s from the start of the process")
    out.append("")
    out.append("| binary | accel | to the banner, s | to \"Booting from "
               "Hard Disk\", s |")
    out.append("|---|---|---|---|")
    for accel in accels:
        times = {b: [] for b in bins}
        for _ in range(a.runs):
            for b in bins:
                extra = [] if b == ours else ["-net", "none"]
                times[b].append(serial_run([b, "-accel", accel,
                                            "-nographic"] + extra,
                                           [BANNER, POST_DONE], 120))
        for b in bins:
            banner = statistics.median(t[0] for t in times[b] if t[0])
            post = statistics.median(t[1] for t in times[b] if t[1])
            if accel == "tcg":
                med[b] = (banner, post)
            out.append("| %s | %s | %.3f | %.3f |" % (names[b], accel,
                                                       banner, post))
    if a.reference in med:
        out.append("")
        out.append("Ours / QEMU's under tcg: banner %s, firmware phase %s "
                   "(target: no slower).  " % (ratio(med[ours][0], med[a.reference][0]),
                                      ratio(med[ours][1],
                                            med[a.reference][1])))
    out.append("")

    # Linux from a disk image.
    need = [os.path.join(a.linux_dir, f) for f in ("bzImage",
                                                    "initramfs.cpio")]
    if all(os.path.exists(p) for p in need):
        with tempfile.TemporaryDirectory() as tmp:
            img = os.path.join(tmp, "disk.img")
            subprocess.run(["sh", os.path.join(benchlib.ROOT, "scripts",
                                               "make-boot-media.sh"),
                            img, need[0], need[1],
                            "console=ttyS0 panic=-1"], check=True)
            out.append("Linux from a disk through the firmware under tcg: "
                       "`BINARY -accel tcg -nographic -m 512M -drive "
                       "file=disk.img,format=raw,if=virtio,snapshot=on` "
                       "(scripts/make-boot-media.sh; QEMU adds `-net "
                       "none`; ours without snapshot=on, which it lacks: "
                       "the guest does not write the disk)")
            out.append("")
            out.append("| binary | to the banner, s | to userspace "
                       "(\"init: started\"), s |")
            out.append("|---|---|---|")
            lt = {b: [] for b in bins}
            for _ in range(a.runs):
                for b in bins:
                    drive = "file=%s,format=raw,if=virtio" % img
                    extra = []
                    if b != ours:
                        drive += ",snapshot=on"
                        extra = ["-net", "none"]
                    lt[b].append(serial_run(
                        [b, "-accel", "tcg", "-nographic", "-m", "512M",
                         "-drive", drive] + extra, [BANNER, USERSPACE], 300))
            lmed = {}
            for b in bins:
                ok = [t for t in lt[b] if t[1]]
                lmed[b] = statistics.median(t[1] for t in ok) if ok else None
                out.append("| %s | %s | %s |" % (
                    names[b],
                    fmt(statistics.median(t[0] for t in ok) if ok else None,
                        digits=3),
                    fmt(lmed[b], digits=2)))
            if lmed.get(a.reference):
                r = lmed[ours] / lmed[a.reference] if lmed[ours] else None
                out.append("")
                out.append("Ours / QEMU's to userspace: %s (target at most "
                           "2.0x: %s).  " % (
                               "%.2fx" % r if r else "-",
                               "**met**" if r and r <= 2.0 else "not met"))
    text = "\n".join(out) + "\n"
    print(text)
    if a.write_doc:
        benchlib.write_doc(text, "firmware.py", "## Firmware")
    return 0


if __name__ == "__main__":
    sys.exit(main())
