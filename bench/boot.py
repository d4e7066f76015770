#!/usr/bin/env python3
"""Boot figures against QEMU: ours (-M pc) and QEMU (-M pc and -M microvm),
same guest and options, medians of --runs (default 5) in one run,
interleaved so that drift in the host's load hits every machine alike.

  first byte / first guest line / exit
      the guest kit's hello.elf under KVM (multiboot, -serial stdio,
      isa-debug-exit): ms from starting the process to its first serial
      byte, to the first line the guest prints ("hello: ..."), and to
      process exit (status 1: the guest's PASS).
  QMP ready
      -machine none -accel kvm -qmp unix:SOCK,server=on,wait=off: ms from
      starting the process until the QMP greeting has been read.
  VMM RSS overhead
      dirty.elf dirty=256 in a 1 GiB guest, no debug-exit so it idles
      after "dirty: PASS": VmRSS then, minus the 256 MiB the guest dirtied.
      The guest's few other pages (image, page tables, stack: well under
      2 MiB) and the firmware's are charged to the VMM, so the figure is
      an upper bound on the VMM's own RSS.

Targets (issue 5): faster than QEMU microvm to the first guest line, and
less than a quarter of QEMU microvm's VMM RSS overhead.

Usage: bench/boot.py [--runs N] [--ours BIN] [--qemu BIN] [--guest-dir DIR]
                     [--out FILE]
"""
import argparse
import os
import shlex
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
TOUCHED_MIB = 256
TIMEOUT = 60


def guest_cmd(binary, machine, kernel, extra):
    return [binary, "-M", machine, "-accel", "kvm", "-display", "none",
            "-kernel", kernel] + extra


def boot_run(cmd):
    """ms to the first serial byte, the first guest line, and exit."""
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    first_byte = first_line = None
    buf = b""
    fd = p.stdout.fileno()
    while True:
        chunk = os.read(fd, 65536)
        now = time.monotonic()
        if not chunk:
            break
        if first_byte is None:
            first_byte = now
        buf += chunk
        if first_line is None and b"hello:" in buf and \
                b"\n" in buf[buf.index(b"hello:"):]:
            first_line = now
    status = p.wait()
    end = time.monotonic()
    if status != 1 or first_line is None:
        sys.exit("%s: exit %d, serial %r" % (shlex.join(cmd), status, buf))
    return [(t - t0) * 1000 for t in (first_byte, first_line, end)]


def qmp_run(binary, tmp):
    """ms from exec to the QMP greeting read."""
    sock = os.path.join(tmp, "qmp.sock")
    if os.path.exists(sock):
        os.unlink(sock)
    cmd = [binary, "-machine", "none", "-accel", "kvm", "-display", "none",
           "-nodefaults", "-qmp", "unix:%s,server=on,wait=off" % sock]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    while True:
        try:
            s.connect(sock)
            break
        except (FileNotFoundError, ConnectionRefusedError):
            if time.monotonic() - t0 > TIMEOUT or p.poll() is not None:
                sys.exit("%s: no QMP socket" % shlex.join(cmd))
            time.sleep(0.0005)
    greeting = b""
    while b"\n" not in greeting:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("%s: QMP closed" % shlex.join(cmd))
        greeting += chunk
    ready = (time.monotonic() - t0) * 1000
    if b"QMP" not in greeting:
        sys.exit("%s: greeting %r" % (shlex.join(cmd), greeting))
    s.close()
    p.send_signal(signal.SIGTERM)
    p.wait(TIMEOUT)
    return ready


def rss_run(cmd, log):
    """VmRSS in KiB once the dirty guest has reported PASS."""
    if os.path.exists(log):
        os.unlink(log)
    p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.monotonic()
    while True:
        text = open(log).read() if os.path.exists(log) else ""
        if "dirty: PASS" in text:
            break
        if "FAIL" in text or p.poll() is not None or \
                time.monotonic() - t0 > TIMEOUT:
            p.kill()
            sys.exit("%s: no PASS; serial %r" % (shlex.join(cmd), text))
        time.sleep(0.01)
    rss = None
    for line in open("/proc/%d/status" % p.pid):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    p.send_signal(signal.SIGTERM)
    p.wait(TIMEOUT)
    return rss


def version(binary):
    out = subprocess.run([binary, "-version"], capture_output=True,
                         text=True).stdout
    return out.splitlines()[0] if out else binary


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--ours", default=os.path.join(
        ROOT, "build", "qemu-system-x86_64"))
    ap.add_argument("--qemu", default="/usr/bin/qemu-system-x86_64")
    ap.add_argument("--guest-dir", default=os.path.join(
        ROOT, "build", "tests", "guest"))
    ap.add_argument("--out", default="/tmp/boot-figures.md")
    args = ap.parse_args()

    hello = os.path.join(args.guest_dir, "hello.elf")
    dirty = os.path.join(args.guest_dir, "dirty.elf")
    boot_extra = ["-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
                  "-serial", "stdio", "-m", "256M"]
    tmp = tempfile.mkdtemp(prefix="bench-boot-")
    log = os.path.join(tmp, "serial.log")
    rss_extra = ["-m", "1G", "-serial", "file:" + log, "-append", "dirty=256"]
    vmms = [("ours -M pc", args.ours, "pc"),
            ("QEMU -M pc", args.qemu, "pc"),
            ("QEMU -M microvm", args.qemu, "microvm")]

    boots = {name: [] for name, _, _ in vmms}
    rss = {name: [] for name, _, _ in vmms}
    qmp = {args.ours: [], args.qemu: []}
    for _ in range(args.runs):
        for name, binary, machine in vmms:
            boots[name].append(boot_run(
                guest_cmd(binary, machine, hello, boot_extra)))
            rss[name].append(rss_run(
                guest_cmd(binary, machine, dirty, rss_extra), log))
        for binary in qmp:
            qmp[binary].append(qmp_run(binary, tmp))
    shutil.rmtree(tmp)

    def med(name, i):
        return statistics.median(r[i] for r in boots[name])

    def overhead(name):
        return statistics.median(rss[name]) / 1024 - TOUCHED_MIB

    out = []
    out.append("# Boot figures: ours vs %s\n" % version(args.qemu))
    out.append("Command: `%s`  \n" % shlex.join(sys.argv))
    out.append("Ours: %s (%s). Medians of %d runs, interleaved; KVM "
               "(this host: kvm_pvm).\n" % (version(args.ours), args.ours,
                                            args.runs))
    out.append("Boot: `%s`; RSS: `%s` (idles after `dirty: PASS`).\n" % (
        shlex.join(guest_cmd("BIN", "MACHINE", hello, boot_extra)),
        shlex.join(guest_cmd("BIN", "MACHINE", dirty, rss_extra)).replace(
            log, "LOG")))
    out.append("| VMM | first serial byte, ms | first guest line, ms | "
               "exit, ms | VmRSS, MiB | VMM RSS overhead, MiB |")
    out.append("|---|---|---|---|---|---|")
    for name, _, _ in vmms:
        out.append("| %s | %.1f | %.1f | %.1f | %.1f | %.1f |" % (
            name, med(name, 0), med(name, 1), med(name, 2),
            statistics.median(rss[name]) / 1024, overhead(name)))
    out.append("")
    out.append("VMM RSS overhead = VmRSS - %d MiB (what the guest dirtied; "
               "its image, page tables and stack, under 2 MiB, and the "
               "firmware's pages count as overhead: an upper bound)."
               % TOUCHED_MIB)
    out.append("")
    out.append("| startup to QMP ready, `-machine none -accel kvm` | ms |")
    out.append("|---|---|")
    out.append("| ours | %.1f |" % statistics.median(qmp[args.ours]))
    out.append("| QEMU | %.1f |" % statistics.median(qmp[args.qemu]))
    out.append("")

    ours, mvm, qpc = "ours -M pc", "QEMU -M microvm", "QEMU -M pc"
    line_ratio = med(ours, 1) / med(mvm, 1)
    rss_ratio = overhead(ours) / overhead(mvm)
    out.append("Ratios (ours / QEMU): first guest line %.2f of microvm, "
               "%.3f of pc; exit %.2f of microvm, %.3f of pc; VMM RSS "
               "overhead %.2f of microvm, %.2f of pc; QMP ready %.2f." % (
                   line_ratio, med(ours, 1) / med(qpc, 1),
                   med(ours, 2) / med(mvm, 2), med(ours, 2) / med(qpc, 2),
                   rss_ratio, overhead(ours) / overhead(qpc),
                   statistics.median(qmp[args.ours]) /
                   statistics.median(qmp[args.qemu])))
    out.append("")
    out.append("Targets (issue 5):")
    out.append("- faster than QEMU microvm to the first guest line: "
               "%.1f vs %.1f ms: **%s**" % (
                   med(ours, 1), med(mvm, 1),
                   "met" if line_ratio < 1 else "not met"))
    out.append("- VMM RSS overhead under a quarter of QEMU microvm's: "
               "%.1f vs %.1f MiB (limit %.1f): **%s**" % (
                   overhead(ours), overhead(mvm), overhead(mvm) / 4,
                   "met" if rss_ratio < 0.25 else "not met"))
    text = "\n".join(out) + "\n"
    with open(args.out, "w") as f:
        f.write(text)
    print(text, end="")


if __name__ == "__main__":
    main()
