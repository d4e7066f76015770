#!/usr/bin/env python3
"""Live migration (precopy) of a guest dirtying memory at a fixed rate,
over a unix socket, ours (BINARY) to ours and REFERENCE (default Debian's
QEMU 7.2) to itself, runs interleaved, medians.

The guest is the kit's dirty program in its sweep mode: it writes one word
in every page of --resident MiB once (the data a migration has to move),
then keeps rewriting pages of that range at --rate MiB/s (a budget per
100 ms slice, timed by the TSC, which it calibrates against the LAPIC
timer), printing a line per slice. Both sides run under -accel tcg with
the same command line; the source gets max-bandwidth and downtime-limit
through migrate-set-parameters, then `migrate unix:PATH`, and
query-migrate is polled until the migration ends.

  total, s       query-migrate's total-time
  downtime, ms   query-migrate's downtime (the guest stopped on the source
                 until it runs on the destination), as each emulator
                 reports it
  RAM sent, MiB  ram.transferred
  continued      the destination's serial shows new sweep lines after the
                 switch-over (the guest runs there)

With --local-update, instead: local live update of ours alone. A guest
in a share=on memfd (the kit's migrate program rewriting 16 MiB) moves to
a new process on the same host with x-ignore-shared over a unix: socket:
the memfd's descriptor is passed, no RAM page is copied. Reported per
guest size (--sizes): the time from sending `migrate` to the
destination's RESUME event (its QMP timestamp, the same clock), and the
source's query-migrate total-time and downtime; --copy adds the same runs
without x-ignore-shared (the pages copied) for comparison.

Usage: bench/migrate.py [--runs N] [--mem MiB] [--resident MiB]
                        [--rate MiB/s] [--bandwidth MiB/s]
                        [--downtime ms] [--guest-dir DIR] [--write-doc]
                        BINARY [REFERENCE]
       bench/migrate.py --local-update [--sizes 256M,1G,4G] [--copy]
                        [--runs N] [--guest-dir DIR] [--write-doc] BINARY
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import benchlib

SECTION = "## Live migration"
LOCAL_SECTION = "## Local live update"
START_TIMEOUT = 120
MIGRATE_TIMEOUT = 300


def guest_cmd(binary, args, kernel, serial, qmp, extra):
    return [binary, "-M", "pc", "-accel", "tcg", "-m", "%dM" % args.mem,
            "-nodefaults", "-display", "none", "-no-reboot",
            "-serial", "file:" + serial,
            "-qmp", "unix:%s,server=on,wait=off" % qmp,
            "-kernel", kernel,
            "-append", "sweep=%d rate=%d seconds=100000" % (
                args.resident, args.rate)] + extra


def read(path):
    try:
        with open(path, "rb") as f:
            return f.read()
    except OSError:
        return b""


def wait_for(path, text, deadline, proc):
    while text not in read(path):
        if proc.poll() is not None:
            raise RuntimeError("exited with status %d" % proc.returncode)
        if time.monotonic() > deadline:
            raise RuntimeError("no %r on the serial" % text.decode())
        time.sleep(0.05)


def one_run(binary, args, kernel, tmp):
    for name in os.listdir(tmp):
        os.unlink(os.path.join(tmp, name))
    paths = {n: os.path.join(tmp, n) for n in
             ("src.serial", "dst.serial", "src.qmp", "dst.qmp", "mig.sock",
              "src.err", "dst.err")}
    procs = []
    result = {}
    try:
        for side, extra in (("dst", ["-incoming",
                                     "unix:" + paths["mig.sock"]]),
                            ("src", [])):
            cmd = guest_cmd(binary, args, kernel, paths[side + ".serial"],
                            paths[side + ".qmp"], extra)
            with open(paths[side + ".err"], "wb") as err:
                procs.append(subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL,
                                              stderr=err))
        dst, src = procs
        result["cmd"] = cmd
        deadline = time.monotonic() + START_TIMEOUT
        wait_for(paths["src.serial"], b"sweep: at most", deadline, src)
        sq = benchlib.Qmp(paths["src.qmp"], deadline)
        sq.cmd("migrate-set-parameters",
               **{"max-bandwidth": args.bandwidth << 20,
                  "downtime-limit": args.downtime})
        sq.cmd("migrate", uri="unix:" + paths["mig.sock"])
        deadline = time.monotonic() + MIGRATE_TIMEOUT
        while True:
            info = sq.cmd("query-migrate")
            if info.get("status") in ("completed", "failed", "cancelled"):
                break
            if time.monotonic() > deadline:
                raise RuntimeError("not done in %d s (%s)" % (
                    MIGRATE_TIMEOUT, info.get("status")))
            time.sleep(0.02)
        if info["status"] != "completed":
            raise RuntimeError("migration %s: %s" % (
                info["status"], info.get("error-desc", "")))
        # The guest goes on: a sweep line the source never printed.
        before = read(paths["dst.serial"]).count(b"sweep: t=")
        lines = read(paths["src.serial"]).count(b"sweep: t=")
        wait_for(paths["dst.serial"], b"sweep: t=", time.monotonic() + 20,
                 dst)
        deadline = time.monotonic() + 20
        while read(paths["dst.serial"]).count(b"sweep: t=") <= max(before,
                                                                    lines):
            if time.monotonic() > deadline:
                raise RuntimeError("the guest did not go on on the "
                                   "destination")
            time.sleep(0.05)
        result.update({
            "total_s": info["total-time"] / 1000.0,
            "downtime_ms": info.get("downtime"),
            "sent_mib": info["ram"]["transferred"] / float(1 << 20),
            "dirty_sync": info["ram"].get("dirty-sync-count"),
        })
    except (RuntimeError, OSError, EOFError, KeyError) as e:
        err = read(paths["src.err"]) + read(paths["dst.err"])
        first = err.decode(errors="replace").strip().splitlines()
        result = {"error": "%s%s" % (e, (": " + benchlib.short_error(
            first[0])) if first else "")}
    finally:
        for p in procs:
            p.kill()
            p.wait()
    return result


def table(binaries, names, results, args):
    lines = ["| binary | total, s | downtime, ms | RAM sent, MiB | "
             "dirty syncs |", "|---|---|---|---|---|"]
    for b in binaries:
        runs = results[b]
        ok = [r for r in runs if "error" not in r]
        if not ok:
            lines.append("| %s | %s | | | |" % (names[b], runs[0]["error"]))
            continue
        note = "" if len(ok) == len(runs) else \
            " (%d of %d failed: %s)" % (len(runs) - len(ok), len(runs),
                                       [r for r in runs
                                        if "error" in r][0]["error"])
        lines.append("| %s%s | %.2f | %.0f | %.0f | %.0f |" % (
            names[b], note, benchlib.med(ok, "total_s"),
            benchlib.med(ok, "downtime_ms"), benchlib.med(ok, "sent_mib"),
            benchlib.med(ok, "dirty_sync") or 0))
    return lines


def verdict(binaries, results):
    ours, ref = binaries
    good = {b: [r for r in results[b] if "error" not in r] for b in binaries}
    if not good[ours] or not good[ref]:
        return "Target not measured: a binary failed every run."
    down = [benchlib.med(good[b], "downtime_ms") for b in binaries]
    sent = [benchlib.med(good[b], "sent_mib") for b in binaries]
    met = down[0] <= down[1] and sent[0] <= sent[1]
    return ("Ratios, ours / reference: downtime %.2f×, RAM sent %.2f×, total "
            "time %.2f×. Target (issue 16), downtime and bytes no higher than "
            "QEMU's: **%s**." % (
                down[0] / down[1] if down[1] else float("inf"),
                sent[0] / sent[1],
                benchlib.med(good[ours], "total_s") /
                benchlib.med(good[ref], "total_s"),
                "met" if met else "not met"))


def start_memfd_vm(binary, guest, workdir, name, size, incoming=None):
    qmp = os.path.join(workdir, name + ".qmp")
    serial = os.path.join(workdir, name + ".serial")
    args = [binary, "-M", "pc,memory-backend=mem", "-accel", "tcg",
            "-m", size, "-display", "none", "-nodefaults",
            "-object", "memory-backend-memfd,id=mem,size=%s,share=on" % size,
            "-kernel", guest, "-serial", "file:" + serial,
            "-qmp", "unix:%s,server=on,wait=off" % qmp]
    if incoming:
        args += ["-incoming", incoming]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    return proc, benchlib.Qmp(qmp, time.monotonic() + 20), serial


def stop_vm(proc, qmp):
    try:
        qmp.cmd("quit")
    except (OSError, ValueError, RuntimeError, EOFError):
        pass
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def local_update_once(binary, guest, size, handover):
    """One update; (ms to RESUME, total-time ms, downtime ms)."""
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as d:
        sock = os.path.join(d, "mig.sock")
        src, sq, src_serial = start_memfd_vm(binary, guest, d, "src", size)
        dst = dq = None
        try:
            wait_count(src_serial, b" ok ", 2, 30)
            dst, dq, dst_serial = start_memfd_vm(binary, guest, d, "dst",
                                                 size, "unix:" + sock)
            caps = [{"capability": "x-ignore-shared", "state": handover},
                    {"capability": "events", "state": True}]
            sq.cmd("migrate-set-capabilities", capabilities=caps)
            dq.cmd("migrate-set-capabilities", capabilities=caps)
            t0 = time.time()
            sq.cmd("migrate", uri="unix:" + sock)
            ts = dq.wait_event("RESUME")["timestamp"]
            resumed = ts["seconds"] + ts["microseconds"] / 1e6
            while True:
                info = sq.cmd("query-migrate")
                if info["status"] in ("completed", "failed"):
                    break
                time.sleep(0.01)
            if info["status"] != "completed":
                raise RuntimeError("migration %s: %s" % (
                    info["status"], info.get("error-desc")))
            have = read(dst_serial).count(b" ok ")
            wait_count(dst_serial, b" ok ", have + 1, 30)
            if b"BAD" in read(dst_serial):
                raise RuntimeError("the guest's checksum broke")
            return ((resumed - t0) * 1000, info["total-time"],
                    info["downtime"])
        finally:
            stop_vm(src, sq)
            if dst:
                stop_vm(dst, dq)


def wait_count(path, text, count, timeout):
    deadline = time.monotonic() + timeout
    while read(path).count(text) < count:
        if time.monotonic() > deadline:
            raise RuntimeError("%s: no %d x %r in %d s" % (path, count, text,
                                                          timeout))
        time.sleep(0.05)


def local_update(args):
    guest = os.path.join(args.guest_dir, "migrate.elf")
    modes = [("handed over (x-ignore-shared)", True)]
    if args.copy:
        modes.append(("copied", False))
    lines = ["`bench/migrate.py %s`  " % " ".join(shlex.quote(a)
                                                  for a in sys.argv[1:]),
             "(%s; %s, memfd share=on, tcg; medians of %d)" % (
                 time.strftime("%Y-%m-%d %H:%M"),
                 benchlib.version(args.binary), args.runs), "",
             "| guest | RAM | migrate to RESUME, ms (min-max) | "
             "total-time, ms | downtime, ms |", "|---|---|---|---|---|"]
    for label, handover in modes:
        for size in args.sizes.split(","):
            runs = [local_update_once(args.binary, guest, size, handover)
                    for _ in range(args.runs)]
            resume = [r[0] for r in runs]
            lines.append("| %s | %s | %.1f (%.1f-%.1f) | %g | %g |" % (
                size, label, statistics.median(resume), min(resume),
                max(resume), statistics.median(r[1] for r in runs),
                statistics.median(r[2] for r in runs)))
    text = "\n".join(lines) + "\n"
    print(text)
    if args.write_doc:
        benchlib.write_doc(text, "migrate.py local-update", LOCAL_SECTION)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--mem", type=int, default=1024)
    ap.add_argument("--resident", type=int, default=512)
    ap.add_argument("--rate", type=int, default=64)
    ap.add_argument("--bandwidth", type=int, default=1024)
    ap.add_argument("--downtime", type=int, default=300)
    ap.add_argument("--guest-dir", default=os.path.join(
        benchlib.ROOT, "build", "tests", "guest"))
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("--local-update", action="store_true")
    ap.add_argument("--sizes", default="256M,1G,4G")
    ap.add_argument("--copy", action="store_true")
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    args = ap.parse_args()
    if args.local_update:
        local_update(args)
        return
    kernel = os.path.join(args.guest_dir, "dirty.elf")
    binaries = [args.binary, args.reference]
    names = {b: benchlib.version(b) for b in binaries}
    results = {b: [] for b in binaries}
    with tempfile.TemporaryDirectory(prefix="bench-migrate-") as tmp:
        for i in range(args.runs):
            for b in binaries:
                r = one_run(b, args, kernel, tmp)
                results[b].append(r)
                print("run %d %s: %s" % (i + 1, names[b], {
                    k: v for k, v in r.items() if k != "cmd"}),
                    file=sys.stderr, flush=True)
    cmd = next((r["cmd"] for r in results[args.binary] if "cmd" in r), [])
    load = os.getloadavg()[0]
    text = "\n".join([
        "`bench/migrate.py %s`  " % " ".join(shlex.quote(a)
                                              for a in sys.argv[1:]),
        "(%s; %d MiB guest, %d MiB written once then rewritten at %d MiB/s; "
        "max-bandwidth %d MiB/s, downtime-limit %d ms; medians of %d runs, "
        "interleaved; load average %.1f at the end)" % (
            time.strftime("%Y-%m-%d %H:%M"), args.mem, args.resident,
            args.rate, args.bandwidth, args.downtime, args.runs, load),
        "",
        "Source command per run: `%s` (the destination adds `-incoming "
        "unix:PATH`)" % " ".join(shlex.quote(a) for a in cmd).replace(
            args.binary, "BINARY"),
        ""] + table(binaries, names, results, args) + [
        "", verdict(binaries, results)]) + "\n"
    print(text)
    if args.write_doc:
        benchlib.write_doc(text, "migrate.py", SECTION)


if __name__ == "__main__":
    main()
