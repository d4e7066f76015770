#!/usr/bin/env python3
"""virtio-blk-pci on a raw image in tmpfs, driven by the qtest virtio
driver (build/bench/blk-bench): IOPS, MB/s and the emulator's CPU
time per request for 4 KiB random reads and writes and 1 MiB sequential
ones, at queue depth 1 and 32, with -drive aio=io_uring and aio=threads
(cache=none), for ours (BINARY) and REFERENCE (default Debian's QEMU
7.2, driven under -accel tcg with a halt BIOS, as the qtests do:
QTEST_ACCEL=tcg), runs interleaved, medians.

Both get the same command line (-drive file=IMG,format=raw,if=none,
id=d0,cache=none,aio=AIO -device virtio-blk-pci,drive=d0,
disable-legacy=on,num-queues=1). The driver polls the used ring with
interrupts suppressed, so the CPU time (utime + stime of the emulator
from /proc/PID/stat) includes answering those polls: the same protocol
cost for both.

With --format qcow2 the image is qcow2 (64 KiB clusters) and aio is
threads: "prealloc" is an image with every cluster allocated (qemu-img
convert of the raw pattern), "fresh" a new empty image of 4 GiB made
before every run, so that writes allocate clusters (writes only).

Usage: bench/blk.py [--runs N] [--seconds S] [--image PATH] [--size MiB]
                    [--driver PATH] [--format raw|qcow2] [--write-doc]
                    BINARY [REFERENCE]
"""
import argparse
import os
import shlex
import statistics
import subprocess
import sys
import time

import tcg

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECTION = "## Block: virtio-blk on a raw image in tmpfs"
SECTION_QCOW2 = "## Block: virtio-blk on a qcow2 image in tmpfs"
WORKLOADS = [("randread", 4096), ("randwrite", 4096),
             ("read", 1 << 20), ("write", 1 << 20)]
DEPTHS = [1, 32]
AIOS = ["io_uring", "threads"]


def one_run(driver, binary, accel, image, mode, bs, depth, seconds, aio,
            fmt="raw"):
    env = dict(os.environ, QTEST_QEMU_BINARY=binary)
    env.pop("QTEST_ACCEL", None)
    if accel:
        env["QTEST_ACCEL"] = accel
    try:
        out = subprocess.run([driver, image, mode, str(bs), str(depth),
                              str(seconds), aio, fmt],
                             env=env, capture_output=True, text=True,
                             timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        return {"error": "timed out"}
    words = out.stdout.split()
    if out.returncode != 0 or len(words) != 8:
        lines = (out.stderr or out.stdout or "no output").strip()
        return {"error": lines.splitlines()[-1][:120]}
    reqs, nbytes = int(words[1]), int(words[3])
    secs, cpu = float(words[5]), float(words[7])
    return {"iops": reqs / secs, "mbps": nbytes / secs / 1e6,
            "cpu_us": cpu / reqs * 1e6 if reqs else None}


def median_of(results, b, key, k):
    vals = [r[key] for r in results[(b,) + k] if r.get(key)]
    return statistics.median(vals) if vals else None


def cells(results, ours, ref, k):
    """A row's cells for ours and ref under key k, then the ratios."""
    out = []
    for b in (ours, ref):
        iops = median_of(results, b, "iops", k)
        if iops is None:
            err = results[(b,) + k][0].get("error", "?")
            out += [err.replace("|", "\\|"), "", ""]
            continue
        cpu = median_of(results, b, "cpu_us", k)
        out += ["%.0f" % iops, "%.1f" % median_of(results, b, "mbps", k),
                "%.1f" % cpu if cpu else "-"]
    io_o = median_of(results, ours, "iops", k)
    io_r = median_of(results, ref, "iops", k)
    cpu_o = median_of(results, ours, "cpu_us", k)
    cpu_r = median_of(results, ref, "cpu_us", k)
    out += ["%.2f" % (io_o / io_r) if io_o and io_r else "-",
            "%.2f" % (cpu_o / cpu_r) if cpu_o and cpu_r else "-"]
    return " | ".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=2)
    ap.add_argument("--image", default="/dev/shm/blk-bench.img")
    ap.add_argument("--size", type=int, default=256, help="image MiB")
    ap.add_argument("--driver",
                    default=os.path.join(ROOT, "build/bench/blk-bench"))
    ap.add_argument("--format", choices=["raw", "qcow2"], default="raw")
    ap.add_argument("--write-doc", action="store_true")
    ap.add_argument("binary")
    ap.add_argument("reference", nargs="?",
                    default="/usr/bin/qemu-system-x86_64")
    args = ap.parse_args()
    # Written through once, so reads find pages, not holes.
    with open(args.image, "wb") as f:
        chunk = bytes(range(256)) * 4096
        for _ in range(args.size):
            f.write(chunk)
    if args.format == "qcow2":
        return qcow2_main(args)
    binaries = [(args.binary, None), (args.reference, "tcg")]
    names = {b: tcg.version(b) for b, _ in binaries}
    results = {}
    load0 = os.getloadavg()[0]
    try:
        for i in range(args.runs):
            for mode, bs in WORKLOADS:
                for depth in DEPTHS:
                    for aio in AIOS:
                        for b, accel in binaries:
                            r = one_run(args.driver, b, accel, args.image,
                                        mode, bs, depth, args.seconds, aio)
                            results.setdefault((b, mode, depth, aio),
                                               []).append(r)
                            print("run %d %s %s %d qd%d %s: %s" % (
                                i + 1, names[b], mode, bs, depth, aio, r),
                                file=sys.stderr, flush=True)
    finally:
        os.unlink(args.image)

    ours, ref = args.binary, args.reference
    out = ["`%s`  " % shlex.join(["bench/blk.py"] + sys.argv[1:]),
           "(%s; medians of %d runs of %g s each, interleaved; image %d MiB "
           "in %s; driver `build/bench/blk-bench IMAGE MODE BS DEPTH "
           "SECONDS AIO`; CPU = the emulator's utime + stime per completed "
           "request; host load average %.1f at the start, %.1f at the "
           "end, %d CPUs)" % (time.strftime("%Y-%m-%d %H:%M"), args.runs,
                              args.seconds, args.size,
                              os.path.dirname(args.image), load0,
                              os.getloadavg()[0], os.cpu_count()),
           "",
           "| workload | depth | aio | %s IOPS | MB/s | CPU µs/req | "
           "%s IOPS | MB/s | CPU µs/req | IOPS ratio | CPU ratio |" % (
               names[ours], names[ref]),
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for mode, bs in WORKLOADS:
        for depth in DEPTHS:
            for aio in AIOS:
                out.append("| %s %s | %d | %s | %s |" % (
                    mode, "4 KiB" if bs == 4096 else "1 MiB", depth, aio,
                    cells(results, ours, ref, (mode, depth, aio))))
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.write_doc:
        tcg.write_doc(text, "blk.py", SECTION)


def qcow2_main(args):
    """The qcow2 rows: preallocated and freshly allocating images."""
    raw, image = args.image, args.image + ".qcow2"
    subprocess.run(["qemu-img", "convert", "-f", "raw", "-O", "qcow2", raw,
                    image], check=True)
    fresh = args.image + ".fresh.qcow2"
    binaries = [(args.binary, None), (args.reference, "tcg")]
    names = {b: tcg.version(b) for b, _ in binaries}
    kinds = [("prealloc", w) for w in WORKLOADS] + \
            [("fresh", w) for w in WORKLOADS if "write" in w[0]]
    results = {}
    load0 = os.getloadavg()[0]
    try:
        for i in range(args.runs):
            for kind, (mode, bs) in kinds:
                for depth in DEPTHS:
                    for b, accel in binaries:
                        img = image
                        if kind == "fresh":
                            subprocess.run(["qemu-img", "create", "-q", "-f",
                                            "qcow2", fresh, "4G"], check=True)
                            img = fresh
                        r = one_run(args.driver, b, accel, img, mode, bs,
                                    depth, args.seconds, "threads", "qcow2")
                        if kind == "fresh":
                            os.unlink(fresh)
                        results.setdefault((b, kind, mode, depth),
                                           []).append(r)
                        print("run %d %s %s %s %d qd%d: %s" % (
                            i + 1, names[b], kind, mode, bs, depth, r),
                            file=sys.stderr, flush=True)
    finally:
        for f in (raw, image, fresh):
            if os.path.exists(f):
                os.unlink(f)

    ours, ref = args.binary, args.reference
    out = ["`%s`  " % shlex.join(["bench/blk.py"] + sys.argv[1:]),
           "(%s; medians of %d runs of %g s each, interleaved; qcow2 of "
           "%d MiB (prealloc) or an empty 4 GiB one per run (fresh) in %s, "
           "64 KiB clusters, cache=none, aio=threads; CPU = the emulator's "
           "utime + stime per completed request; host load average %.1f at "
           "the start, %.1f at the end, %d CPUs)" % (
               time.strftime("%Y-%m-%d %H:%M"), args.runs, args.seconds,
               args.size, os.path.dirname(args.image), load0,
               os.getloadavg()[0], os.cpu_count()),
           "",
           "| image | workload | depth | %s IOPS | MB/s | CPU µs/req | "
           "%s IOPS | MB/s | CPU µs/req | IOPS ratio | CPU ratio |" % (
               names[ours], names[ref]),
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for kind, (mode, bs) in kinds:
        for depth in DEPTHS:
            out.append("| %s | %s %s | %d | %s |" % (
                kind, mode, "4 KiB" if bs == 4096 else "1 MiB", depth,
                cells(results, ours, ref, (kind, mode, depth))))
    text = "\n".join(out) + "\n"
    print(text, end="")
    if args.write_doc:
        tcg.write_doc(text, "blk.py --format qcow2", SECTION_QCOW2)


if __name__ == "__main__":
    main()
