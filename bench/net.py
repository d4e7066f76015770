#!/usr/bin/env python3
"""virtio-net-pci on -netdev socket and -netdev user, driven by the qtest
virtio driver (build/bench/net-bench): packets per second and
throughput, guest to host (tx) and host to guest (rx), for ours (BINARY)
and REFERENCE
(default Debian's QEMU 7.2, driven under -accel tcg with a halt BIOS, as
the qtests do: QTEST_ACCEL=tcg), runs interleaved, medians.

The driver keeps a 256-entry ring published and republishes what the
device used (one avail write and one kick per round), so what is
measured is the device, the net layer and the socket backend, not the
qtest protocol. tx counts frames that reached the test's socket; on
user, the datagrams the kernel dropped there (receive buffer full: the
sender outran the bench's reader) are reported apart, so a binary is
not shown slower for sending faster than the bench reads.
With -netdev user the frames are UDP datagrams: guest to host through
slirp to a UDP socket of the bench on 127.0.0.1 (counted there), host
to guest from that socket to a hostfwd=udp port (counted in the guest),
the sender keeping at most 64 datagrams in flight: unpaced, a UDP sender
spins on one of the two CPUs the emulator needs and overflows slirp's
socket, so the row measured the scheduler more than the emulator.

Pinned (the default on a host with 2 or more CPUs; --no-pin to let the
scheduler place them): the emulator runs on CPU 0, the driver and its
reader thread on CPU 1. Unpinned, the user rows were bimodal on the
2-CPU host: a run that put the emulator beside the bench's reader took
twice the CPU per datagram (cross-CPU wakeups, which cost a VM exit on
this nested host), and which binary drew that placement decided the
ratio (ours 0.55x in one 5-run table, 1.29x in another).

Usage: bench/net.py [--runs N] [--seconds S] [--sizes 64,1500]
                    [--backends socket,user] [--driver PATH] [--no-pin]
                    [--write-doc] BINARY [REFERENCE]
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

import tcg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## Network: virtio-net on -netdev socket and user"
MODES = {"socket": ("tx", "rx"), "user": ("user-tx", "user-rx")}


def pinned(binary, tmp):
    """A wrapper that runs binary on CPU 0 (the driver gets CPU 1)."""
    path = os.path.join(tmp, "cpu0-%d" % len(os.listdir(tmp)))
    with open(path, "w") as f:
        f.write("#!/bin/sh\nexec taskset -c 0 %s \"$@\"\n"
                % shlex.quote(binary))
    os.chmod(path, 0o755)
    return path


def one_run(driver, binary, accel, mode, size, seconds, pin=False):
    env = dict(os.environ, QTEST_QEMU_BINARY=binary)
    env.pop("QTEST_ACCEL", None)
    if accel:
        env["QTEST_ACCEL"] = accel
    try:
        out = subprocess.run([driver, mode, str(size), str(seconds)],
                             env=env, capture_output=True, text=True,
                             timeout=seconds + 60,
                             preexec_fn=(lambda: os.sched_setaffinity(
                                 0, {1})) if pin else None)
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    words = out.stdout.split()
    if out.returncode != 0 or len(words) != 12:
        lines = (out.stderr or out.stdout or "no output").strip()
        return {"error": lines.splitlines()[-1][:120]}
    v = dict(zip(words[0::2], words[1::2]))
    packets, secs = int(v["packets"]), float(v["seconds"])
    r = {"pps": packets / secs, "mbps": int(v["bytes"]) / secs / 1e6,
         "dropped": int(v["dropped"])}
    if packets:
        r["cpu_us"] = float(v["cpu"]) / packets * 1e6
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=3)
    ap.add_argument("--sizes", default="64,1500")
    ap.add_argument("--backends", default="socket,user")
    ap.add_argument("--driver",
                    default=os.path.join(ROOT, "build/bench/net-bench"))
    ap.add_argument("--no-pin", action="store_true")
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    modes = [m for be in args.backends.split(",") for m in MODES[be]]
    binaries = [(args.binary, None), (args.reference, "tcg")]
    names = {b: tcg.version(b) for b, _ in binaries}
    pin = not args.no_pin and (os.cpu_count() or 1) >= 2
    tmp = tempfile.TemporaryDirectory(prefix="net-bench-")
    run_as = {b: pinned(b, tmp.name) if pin else b for b, _ in binaries}
    results = {}
    load0 = os.getloadavg()[0]
    for i in range(args.runs):
        for mode in modes:
            for size in sizes:
                for b, accel in binaries:
                    r = one_run(args.driver, run_as[b], accel, mode, size,
                                args.seconds, pin)
                    results.setdefault((b, mode, size), []).append(r)
                    print("run %d %s %s %d: %s" % (i + 1, names[b], mode,
                                                   size, r),
                          file=sys.stderr, flush=True)

    def median(b, mode, size, key):
        vals = [r[key] for r in results[(b, mode, size)] if key in r]
        return statistics.median(vals) if vals else None

    out = ["`%s`  " % shlex.join(["bench/net.py"] + sys.argv[1:]),
           "(%s; medians of %d runs of %g s each, interleaved; driver "
           "`build/bench/net-bench MODE SIZE SECONDS`; CPU = the "
           "emulator's utime + stime per delivered packet; dropped = "
           "datagrams the kernel dropped at the bench's socket, all runs; "
           "%s; host load average %.1f at the start, %.1f at the end, "
           "%d CPUs)"
           % (time.strftime("%Y-%m-%d %H:%M"), args.runs, args.seconds,
              "emulator pinned to CPU 0, driver to CPU 1" if pin else
              "not pinned", load0, os.getloadavg()[0], os.cpu_count()),
           "",
           "| netdev | direction | frame, bytes | %s pps | MB/s | CPU µs/pkt "
           "| %s pps | MB/s | CPU µs/pkt | pps ratio | CPU ratio "
           "| dropped |" % (names[args.binary], names[args.reference]),
           "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for mode in modes:
        for size in sizes:
            cells = []
            for b in (args.binary, args.reference):
                pps = median(b, mode, size, "pps")
                if pps is None:
                    err = results[(b, mode, size)][0].get("error", "?")
                    cells += [err.replace("|", "\\|"), "", ""]
                    continue
                cpu = median(b, mode, size, "cpu_us")
                cells += ["%.0f" % pps, "%.1f" % median(b, mode, size, "mbps"),
                          "%.2f" % cpu if cpu else "-"]
            for key in ("pps", "cpu_us"):
                o = median(args.binary, mode, size, key)
                r = median(args.reference, mode, size, key)
                cells.append("%.2f" % (o / r) if o and r else "-")
            cells.append(" / ".join(
                str(sum(r.get("dropped", 0) for r in results[(b, mode, size)]))
                for b in (args.binary, args.reference)))
            out.append("| %s | %s | %d | %s |" % (
                "user" if mode.startswith("user-") else "socket",
                "guest to host" if mode.endswith("tx") else "host to guest",
                size, " | ".join(cells)))
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.write_doc:
        tcg.write_doc(text, "net.py", SECTION)


if __name__ == "__main__":
    main()
