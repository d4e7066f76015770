#!/usr/bin/env python3
"""Migration figures.

Local live update (bench_local_update): a guest in a share=on memfd
(-M pc, -accel tcg, the guest kit's migrate program rewriting 16 MiB)
moves to a new process on the same host with x-ignore-shared over a
unix: socket: the memfd's descriptor is passed, no RAM page is copied.
Reported per guest size: the time from sending `migrate` to the
destination's RESUME event (its QMP timestamp, the same clock), and the
source's query-migrate total-time and downtime. With COPY=1 the same
runs without x-ignore-shared (the pages copied) for comparison.

Environment: RUNS (5), SIZES (comma-separated -m values, default
256M,1G,4G), COPY (0), GUEST (default build/tests/guest/migrate.elf).
Usage: bench/migrate.py [BINARY]   (prints a markdown table)
"""
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)


class Qmp:
    """A QMP client on a unix socket; events are kept in order."""

    def __init__(self, path, timeout=20):
        deadline = time.time() + timeout
        while True:
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(path)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.01)
        self.file = self.sock.makefile("rw")
        self.events = []
        json.loads(self.file.readline())
        self.cmd("qmp_capabilities")

    def cmd(self, name, **args):
        self.file.write(json.dumps({"execute": name, "arguments": args}) +
                        "\n")
        self.file.flush()
        while True:
            reply = json.loads(self.file.readline())
            if "event" in reply:
                self.events.append(reply)
                continue
            if "error" in reply:
                raise RuntimeError(f"{name}: {reply['error']['desc']}")
            return reply["return"]

    def wait_event(self, name, timeout=60):
        self.sock.settimeout(timeout)
        while True:
            for i, ev in enumerate(self.events):
                if ev["event"] == name:
                    return self.events.pop(i)
            self.events.append(json.loads(self.file.readline()))


def start_vm(binary, guest, workdir, name, size, incoming=None):
    qmp = os.path.join(workdir, name + ".qmp")
    serial = os.path.join(workdir, name + ".serial")
    args = [binary, "-M", "pc,memory-backend=mem", "-accel", "tcg",
            "-m", size, "-display", "none", "-nodefaults",
            "-object", f"memory-backend-memfd,id=mem,size={size},share=on",
            "-kernel", guest, "-serial", f"file:{serial}",
            "-qmp", f"unix:{qmp},server=on,wait=off"]
    if incoming:
        args += ["-incoming", incoming]
    proc = subprocess.Popen(args, stdin=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    return proc, Qmp(qmp), serial


def wait_serial(path, text, count, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path) and open(path).read().count(text) >= count:
            return
        time.sleep(0.05)
    raise RuntimeError(f"{path}: no {count} x '{text}' in {timeout} s")


def stop_vm(proc, qmp):
    try:
        qmp.cmd("quit")
    except (OSError, ValueError, RuntimeError):
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
        src, sq, src_serial = start_vm(binary, guest, d, "src", size)
        dst = dq = None
        try:
            wait_serial(src_serial, " ok ", 2)
            dst, dq, dst_serial = start_vm(binary, guest, d, "dst", size,
                                           f"unix:{sock}")
            caps = [{"capability": "x-ignore-shared", "state": handover},
                    {"capability": "events", "state": True}]
            sq.cmd("migrate-set-capabilities", capabilities=caps)
            dq.cmd("migrate-set-capabilities", capabilities=caps)
            t0 = time.time()
            sq.cmd("migrate", uri=f"unix:{sock}")
            ev = dq.wait_event("RESUME")
            ts = ev["timestamp"]
            resumed = ts["seconds"] + ts["microseconds"] / 1e6
            while True:
                info = sq.cmd("query-migrate")
                if info["status"] in ("completed", "failed"):
                    break
                time.sleep(0.01)
            if info["status"] != "completed":
                raise RuntimeError(f"migration {info['status']}: "
                                   f"{info.get('error-desc')}")
            have = open(dst_serial).read().count(" ok ")
            wait_serial(dst_serial, " ok ", have + 1)
            if "BAD" in open(dst_serial).read():
                raise RuntimeError("the guest's checksum broke")
            return ((resumed - t0) * 1000, info["total-time"],
                    info["downtime"])
        finally:
            stop_vm(src, sq)
            if dst:
                stop_vm(dst, dq)


def bench_local_update(binary, guest, sizes, runs, handover=True):
    """Rows of (size, median ms to RESUME, min, max, total, downtime)."""
    rows = []
    for size in sizes:
        results = [local_update_once(binary, guest, size, handover)
                   for _ in range(runs)]
        to_resume = [r[0] for r in results]
        rows.append((size, statistics.median(to_resume), min(to_resume),
                     max(to_resume),
                     statistics.median(r[1] for r in results),
                     statistics.median(r[2] for r in results)))
    return rows


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        TOP, "build", "qemu-system-x86_64")
    guest = os.environ.get("GUEST", os.path.join(TOP, "build", "tests",
                                                 "guest", "migrate.elf"))
    runs = int(os.environ.get("RUNS", "5"))
    sizes = os.environ.get("SIZES", "256M,1G,4G").split(",")
    modes = [("handed over (x-ignore-shared)", True)]
    if os.environ.get("COPY") == "1":
        modes.append(("copied", False))
    print(f"Local live update, {binary}, memfd share=on, tcg, "
          f"medians of {runs}")
    print()
    print("| guest | RAM | migrate to RESUME, ms (min-max) | total-time ms "
          "| downtime ms |")
    print("|---|---|---|---|---|")
    for label, handover in modes:
        for size, med, lo, hi, total, down in bench_local_update(
                binary, guest, sizes, runs, handover):
            print(f"| {size} | {label} | {med:.1f} ({lo:.1f}-{hi:.1f}) | "
                  f"{total:g} | {down:g} |")


if __name__ == "__main__":
    main()
