#!/usr/bin/env python3
"""What an exiting VM leaves for the disk to write, per guest RAM backend.

For each binary and backend row: start a 2 GiB guest (-machine pc under
qtest), dirty 1 GiB of its RAM through qtest memset, send QMP quit, then
report
  - the process's write_bytes / cancelled_write_bytes from /proc/PID/io of
    its zombie (read before reaping), and their difference (net),
  - the sectors the block device holding the backing file wrote from the
    start until SETTLE seconds after the exit, beside an idle baseline
    measured once over a window of the same length,
  - the exit latency: from sending quit until the process is a zombie.
Medians over RUNS runs (min-max beside them); runs are interleaved across
binaries and rows so drift in the host's load spreads evenly.

Environment: RUNS (3), SETTLE (35 s), ROWS (comma-separated row names,
default all), RAM_MIB (2048), DIRTY_MIB (1024), BENCH_DIR (a directory on
the disk to measure; default $TMPDIR or /var/tmp), EXIT (quit | sigterm).
Usage: bench/teardown.py BINARY [BINARY...]   (prints a markdown table)
"""
import ctypes
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

MIB = 1 << 20
CHUNK = 64 * MIB
DIRTY_BASE = 0x100000       # above the BIOS area, below the PCI hole
PATTERN = 0xA5
TMPFS_TYPES = ("tmpfs", "ramfs", "hugetlbfs")

# name -> (label, options; {size} {file} {dir} are filled in)
ROWS = {
    "file-keep": ("file, share=on, discard-data=off",
                  "-object memory-backend-file,id=m,size={size},"
                  "mem-path={file},share=on,discard-data=off "
                  "-machine memory-backend=m"),
    "file-discard": ("file, share=on, discard-data=on",
                     "-object memory-backend-file,id=m,size={size},"
                     "mem-path={file},share=on,discard-data=on "
                     "-machine memory-backend=m"),
    "file-private": ("file, share=off",
                     "-object memory-backend-file,id=m,size={size},"
                     "mem-path={file},share=off -machine memory-backend=m"),
    "mem-path": ("`-mem-path DIR`", "-mem-path {dir}"),
    "memfd": ("memfd",
              "-object memory-backend-memfd,id=m,size={size} "
              "-machine memory-backend=m"),
    "anon": ("anonymous", ""),
}


def env_int(name, default):
    return int(os.environ.get(name, default))


def log(msg):
    print(msg, file=sys.stderr, flush=True)


def fs_type(path):
    """The filesystem type of path from /proc/self/mountinfo."""
    best, kind = "", None
    real = os.path.realpath(path)
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            mnt = left.split()[4]
            if (real == mnt or real.startswith(mnt.rstrip("/") + "/")) \
                    and len(mnt) >= len(best):
                best, kind = mnt, right.split()[0]
    return kind


def block_stat_path(path):
    """/sys/dev/block/MAJ:MIN/stat of the device holding path."""
    st = os.stat(path)
    p = "/sys/dev/block/%d:%d/stat" % (os.major(st.st_dev),
                                        os.minor(st.st_dev))
    if not os.path.exists(p):
        sys.exit("teardown: %s is not on a block device (%s)" % (path, p))
    return p


def write_sectors(stat_path):
    # Field 7 of the block layer's stat file: sectors written (512 bytes).
    with open(stat_path) as f:
        return int(f.read().split()[6])


def proc_io(pid):
    io = {}
    with open("/proc/%d/io" % pid) as f:
        for line in f:
            key, value = line.split(":")
            io[key] = int(value)
    return io["write_bytes"], io["cancelled_write_bytes"]


def binary_name(binary):
    """"QEMU 7.2.22 (Debian)" or "qemu-lean 0.1.0" from -version."""
    out = subprocess.run([binary, "-version"], capture_output=True,
                         text=True).stdout.splitlines()
    m = re.match(r"QEMU emulator version (\S+)(?: \((.*)\))?",
                 out[0] if out else "")
    if not m:
        return binary
    version, build = m.groups()
    if build and not build.startswith("Debian"):
        return build
    return "QEMU %s%s" % (version, " (Debian)" if build else "")


def wants_accel_qtest(binary):
    # Ours needs -accel qtest; Debian's QEMU 7.2 rejects it and picks
    # qtest by itself once -qtest is given.
    out = subprocess.run([binary, "-accel", "help"], capture_output=True,
                         text=True).stdout.split()
    return "qtest" in out


class Emulator:
    """The binary under qtest, with its qtest and QMP sockets."""

    def __init__(self, binary, args, workdir, accel_qtest):
        self.qtest_path = os.path.join(workdir, "qtest.sock")
        self.qmp_path = os.path.join(workdir, "qmp.sock")
        listeners = []
        for path in (self.qtest_path, self.qmp_path):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.bind(path)
            s.listen(1)
            s.settimeout(30)
            listeners.append(s)
        argv = [binary, "-machine", "pc", "-display", "none",
                "-qtest", "unix:" + self.qtest_path,
                "-chardev", "socket,path=%s,id=qmp" % self.qmp_path,
                "-mon", "chardev=qmp,mode=control"] + args.split()
        if accel_qtest:
            argv += ["-accel", "qtest"]
        self.argv = argv
        self.err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(argv, stdin=subprocess.DEVNULL,
                                     stdout=self.err, stderr=self.err)
        try:
            self.qtest = listeners[0].accept()[0]
            self.qmp = listeners[1].accept()[0]
        except socket.timeout:
            self.proc.kill()
            self.proc.wait()
            self.fail("did not connect")
        finally:
            for s in listeners:
                s.close()
            os.unlink(self.qtest_path)
            os.unlink(self.qmp_path)
        self.qtest_file = self.qtest.makefile("rb")
        self.qmp_file = self.qmp.makefile("rb")
        self.qmp_file.readline()                        # greeting
        self.qmp.sendall(b'{"execute": "qmp_capabilities"}\n')
        self.qmp_file.readline()

    def fail(self, why):
        self.err.seek(0)
        sys.exit("teardown: %s %s:\n%s\n%s" % (
            self.argv[0], why, " ".join(self.argv),
            self.err.read().decode(errors="replace")))

    def qtest_cmd(self, line):
        self.qtest.sendall(line.encode() + b"\n")
        while True:
            reply = self.qtest_file.readline().decode().strip()
            if not reply:
                self.fail("closed qtest on '%s'" % line)
            if not reply.startswith("IRQ"):
                break
        if not reply.startswith("OK"):
            self.fail("answered '%s' to '%s'" % (reply, line))

    def dirty(self, mib):
        left, addr = mib * MIB, DIRTY_BASE
        while left:
            n = min(left, CHUNK)
            self.qtest_cmd("memset 0x%x 0x%x 0x%02x" % (addr, n, PATTERN))
            addr += n
            left -= n

    def exit(self, how):
        """Ask it to exit; returns (latency s, write, cancelled, status)."""
        pid = self.proc.pid
        t0 = time.monotonic()
        if how == "sigterm":
            os.kill(pid, signal.SIGTERM)
        else:
            self.qmp.sendall(b'{"execute": "quit"}\n')
        # A zombie keeps its I/O accounting until it is reaped.
        os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
        latency = time.monotonic() - t0
        written, cancelled = proc_io(pid)
        status = self.proc.wait()
        for f in (self.qtest_file, self.qmp_file, self.qtest, self.qmp):
            f.close()
        if status != 0:
            self.fail("exited with status %d" % status)
        # Children it left behind to discard RAM (ours does) are ours now
        # (subreaper): their cancelled bytes count for the emulator.
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT)
            except ChildProcessError:
                break
            w, c = proc_io(info.si_pid)
            written += w
            cancelled += c
            os.waitpid(info.si_pid, 0)
        return latency, written, cancelled


def measure(binary, accel_qtest, row, base, stat_path, cfg):
    workdir = tempfile.mkdtemp(prefix="teardown-", dir=base)
    ramdir = os.path.join(workdir, "ram")
    os.mkdir(ramdir)
    ramfile = os.path.join(workdir, "guest-ram")
    args = "-m %dM " % cfg["ram_mib"] + ROWS[row][1].format(
        size="%dM" % cfg["ram_mib"], file=ramfile, dir=ramdir)
    os.sync()                   # leave nobody's old dirty data in the window
    s0 = write_sectors(stat_path)
    vm = Emulator(binary, args, workdir, accel_qtest)
    vm.dirty(cfg["dirty_mib"])
    latency, written, cancelled = vm.exit(cfg["exit"])
    time.sleep(cfg["settle"])
    disk = (write_sectors(stat_path) - s0) * 512
    if os.listdir(ramdir):
        log("  note: %s left %s in the -mem-path directory"
            % (binary, os.listdir(ramdir)))
    for name in os.listdir(ramdir):
        os.unlink(os.path.join(ramdir, name))
    os.rmdir(ramdir)
    if os.path.exists(ramfile):
        os.unlink(ramfile)
    os.rmdir(workdir)
    return {"latency": latency, "written": written, "cancelled": cancelled,
            "disk": disk}


def baseline(stat_path, seconds):
    os.sync()
    s0 = write_sectors(stat_path)
    time.sleep(seconds)
    return (write_sectors(stat_path) - s0) * 512


def fmt_mib(values):
    med = statistics.median(values) / MIB
    lo, hi = min(values) / MIB, max(values) / MIB
    if hi - lo < 1:
        return "%.1f" % med if med < 10 else "%.0f" % med
    return "%.0f (%.0f–%.0f)" % (med, lo, hi)


def fmt_ms(values):
    ms = [v * 1000 for v in values]
    return "%.0f (%.0f–%.0f)" % (statistics.median(ms), min(ms), max(ms))


def main():
    # PR_SET_CHILD_SUBREAPER: orphaned discard helpers come to us.
    ctypes.CDLL(None, use_errno=True).prctl(36, 1, 0, 0, 0)
    binaries = sys.argv[1:]
    if not binaries:
        sys.exit(__doc__)
    cfg = {
        "runs": env_int("RUNS", 3),
        "settle": env_int("SETTLE", 35),
        "ram_mib": env_int("RAM_MIB", 2048),
        "dirty_mib": env_int("DIRTY_MIB", 1024),
        "exit": os.environ.get("EXIT", "quit"),
    }
    rows = [r for r in os.environ.get("ROWS", ",".join(ROWS)).split(",") if r]
    for r in rows:
        if r not in ROWS:
            sys.exit("teardown: unknown row %s; rows: %s"
                     % (r, ", ".join(ROWS)))
    base = os.environ.get("BENCH_DIR") or os.environ.get("TMPDIR") \
        or "/var/tmp"
    if fs_type(base) in TMPFS_TYPES:
        sys.exit("teardown: %s is on %s, which does no writeback; set "
                 "BENCH_DIR to a directory on a disk" % (base, fs_type(base)))
    stat_path = block_stat_path(base)
    accel = {b: wants_accel_qtest(b) for b in binaries}
    names = {b: binary_name(b) for b in binaries}

    # The window of a run: start to exit is a few seconds, then SETTLE.
    t0 = time.monotonic()
    results = {(b, r): [] for b in binaries for r in rows}
    for i in range(cfg["runs"]):
        for b in binaries:
            for r in rows:
                m = measure(b, accel[b], r, base, stat_path, cfg)
                results[(b, r)].append(m)
                log("run %d %s %s: %.1f ms, written %d, cancelled %d, "
                    "disk %d" % (i + 1, names[b], r, m["latency"] * 1000,
                                 m["written"], m["cancelled"], m["disk"]))
    count = cfg["runs"] * len(binaries) * len(rows)
    window = (time.monotonic() - t0) / max(count, 1)
    idle = [baseline(stat_path, window)]
    log("idle baseline: %d bytes over %.1f s" % (idle[0], window))

    print("%d MiB guest, %d MiB dirtied through qtest memset, exit by %s; "
          "medians of %d (min–max); files in %s (%s, %s)."
          % (cfg["ram_mib"], cfg["dirty_mib"],
             "QMP quit" if cfg["exit"] == "quit" else "SIGTERM",
             cfg["runs"], base, fs_type(base), stat_path))
    print("Idle baseline: %.1f MiB written by the device over %.0f s."
          % (idle[0] / MIB, window))
    print()
    print("| binary | backend | written / cancelled by the process, MiB "
          "| net, MiB | device writes, start to exit + %d s, MiB "
          "| exit latency, ms |" % cfg["settle"])
    print("|---|---|---|---|---|---|")
    for b in binaries:
        for r in rows:
            ms = results[(b, r)]
            w = [m["written"] for m in ms]
            c = [m["cancelled"] for m in ms]
            net = [m["written"] - m["cancelled"] for m in ms]
            print("| %s | %s | %s / %s | %s | %s | %s |" % (
                names[b], ROWS[r][0], fmt_mib(w), fmt_mib(c),
                fmt_mib(net), fmt_mib([m["disk"] for m in ms]),
                fmt_ms([m["latency"] for m in ms])))
    if "file-keep" in rows and "file-discard" in rows:
        print()
        for b in binaries:
            keep = statistics.median(
                m["latency"] for m in results[(b, "file-keep")])
            disc = statistics.median(
                m["latency"] for m in results[(b, "file-discard")])
            print("%s: exit latency with discard-data=on is %.2f× that with "
                  "discard-data=off (target: at most 1.10×)."
                  % (names[b], disc / keep))


if __name__ == "__main__":
    main()
