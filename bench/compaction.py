#!/usr/bin/env python3
"""Does memory compaction leave a locked guest alone?  Ours and another
QEMU-compatible binary side by side, per -overcommit mem-lock mode.

Why: kcompactd (and /proc/sys/vm/compact_memory) migrates movable pages;
every migrated page of a running VM rewrites its page tables, sends TLB
shootdown IPIs and makes the vCPU fault the page back in.  Locked pages
are not migrated while /proc/sys/vm/compact_unevictable_allowed is 0, and
mem-lock=on-fault should give that protection without populating the
whole guest.

One run (per binary, mode and round; rounds interleave the binaries):
  1. fragment free memory: map --frag-gib GiB, populate it, give back
     every other 4 KiB page (the rest is held until the run ends);
  2. start the guest: the guest kit's dirty.elf -append "sweep=WS" under
     -accel kvm -smp 2 -m MEM; it makes WS MiB resident at CPL 3, then
     writes one word per 4 KiB page of it in a loop and prints the pages
     swept as MiB/s every 100 ms on serial;
  3. --before seconds of baseline; record the host PFN of every page of
     the guest RAM mapping from /proc/PID/pagemap and the TLB shootdown
     count from /proc/interrupts;
  4. write 1 to /proc/sys/vm/compact_memory --compactions times;
  5. record PFNs, TLB shootdowns, VmRSS and VmLck again; --after seconds
     more, then SIGTERM.
compact_unevictable_allowed is 0 for the whole bench and restored at the
end, also on failure or a signal.

Figures per binary and mode, medians over rounds: guest pages migrated
(resident before and after, PFN changed), TLB shootdowns host-wide during
the compactions (and in an equally long window before them), the guest's
mean throughput during the compactions over its mean in the baseline,
compaction time, VmRSS and VmLck.  --json FILE keeps every run (with the
throughput series) for bench/compaction-plot.py.

Usage (root): bench/compaction.py [--rounds N] [--ours BIN] [--qemu BIN]
              [--guest ELF] [--json FILE] [--max-minutes M]
"""
import argparse
import json
import mmap
import os
import signal
import statistics
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SYSCTL = "/proc/sys/vm/compact_unevictable_allowed"
THP = "/sys/kernel/mm/transparent_hugepage/enabled"
COMPACT = "/proc/sys/vm/compact_memory"
PAGE = 4096
MADV_POPULATE_WRITE = 23


def read(path):
    with open(path) as f:
        return f.read()


def write(path, text):
    with open(path, "w") as f:
        f.write(text)


def tlb_shootdowns():
    for line in read("/proc/interrupts").splitlines():
        fields = line.split()
        if fields and fields[0] == "TLB:":
            return sum(int(x) for x in fields[1:] if x.isdigit())
    return 0


def vmstat(key):
    for line in read("/proc/vmstat").splitlines():
        k, v = line.split()
        if k == key:
            return int(v)
    return 0


def thp_mode():
    text = read(THP)
    return text[text.index("[") + 1:text.index("]")]


def status_kib(pid, key):
    for line in read("/proc/%d/status" % pid).splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1])
    return 0


def version(binary):
    out = subprocess.run([binary, "-version"], capture_output=True,
                         text=True).stdout.splitlines()[0]
    if "qemu-lean" in out:
        return "qemu-lean " + out.split()[-1].rstrip(")")
    return "QEMU " + out.split()[3] + " (Debian)"


class Fragmenter:
    """gib GiB populated, then every other 4 KiB page given back."""

    def __init__(self, gib):
        size = gib << 30
        self.map = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE |
                             mmap.MAP_ANONYMOUS)
        self.map.madvise(mmap.MADV_NOHUGEPAGE)
        try:
            self.map.madvise(MADV_POPULATE_WRITE)
        except OSError:
            for off in range(0, size, PAGE):
                self.map[off] = 1
        for off in range(0, size, 2 * PAGE):
            self.map.madvise(mmap.MADV_DONTNEED, off, PAGE)

    def close(self):
        self.map.close()


def guest_ram_range(pid, mem_bytes):
    """The largest anonymous read-write mapping of at least mem_bytes."""
    best = None
    for line in read("/proc/%d/maps" % pid).splitlines():
        f = line.split()
        lo, hi = (int(x, 16) for x in f[0].split("-"))
        if not f[1].startswith("rw") or hi - lo < mem_bytes:
            continue
        if best is None or hi - lo > best[1] - best[0]:
            best = (lo, hi)
    if best is None:
        raise RuntimeError("pid %d: no guest RAM mapping of %d bytes"
                           % (pid, mem_bytes))
    return best


def pfns(pid, lo, hi):
    """Host PFN of each page in [lo, hi), None where not present."""
    with open("/proc/%d/pagemap" % pid, "rb") as f:
        f.seek(lo // PAGE * 8)
        raw = f.read((hi - lo) // PAGE * 8)
    out = []
    for i in range(0, len(raw), 8):
        e = int.from_bytes(raw[i:i + 8], "little")
        out.append(e & ((1 << 55) - 1) if e >> 63 else None)
    return out


class Guest:
    """The VM; a thread timestamps its serial lines."""

    def __init__(self, cmd):
        self.lines = []     # (monotonic, text)
        self.proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.PIPE,
                                     stderr=subprocess.PIPE)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self):
        for raw in self.proc.stdout:
            self.lines.append((time.monotonic(), raw.decode(errors="replace")
                               .rstrip("\n")))

    def wait_for(self, text, timeout):
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if any(text in l for _, l in self.lines):
                return
            if self.proc.poll() is not None:
                break
            time.sleep(0.05)
        err = self.proc.stderr.read().decode() if self.proc.poll() \
            is not None else ""
        raise RuntimeError("no %r from the guest in %d s (exit %s): %s %s"
                           % (text, timeout, self.proc.poll(),
                              [l for _, l in self.lines[-5:]], err.strip()))

    def samples(self):
        out = []
        for t, l in self.lines:
            if l.startswith("sweep: t=") and l.endswith(" MiB/s"):
                out.append((t, int(l.split()[-2])))
        return out

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.reader.join(5)


def mean_between(samples, t0, t1):
    vals = [v for t, v in samples if t0 <= t <= t1]
    return statistics.mean(vals) if vals else float("nan")


def one_run(args, binary, mode):
    cmd = [binary, "-M", "pc", "-accel", "kvm", "-smp", "2",
           "-m", "%dM" % args.mem_mib, "-display", "none",
           "-serial", "stdio", "-no-reboot",
           "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4",
           "-overcommit", "mem-lock=" + mode, "-kernel", args.guest,
           "-append", "sweep=%d seconds=%d" % (args.ws_mib, 120)]
    t_frag = time.monotonic()
    frag = Fragmenter(args.frag_gib)
    t_frag = time.monotonic() - t_frag
    guest = None
    try:
        guest = Guest(cmd)
        guest.wait_for("MiB resident", 90)
        t_before = time.monotonic()
        tlb_before = tlb_shootdowns()
        time.sleep(args.before)
        tlb_quiet = tlb_shootdowns() - tlb_before
        quiet_s = time.monotonic() - t_before
        lo, hi = guest_ram_range(guest.proc.pid, args.mem_mib << 20)
        first = pfns(guest.proc.pid, lo, hi)
        tlb0 = tlb_shootdowns()
        migrated0 = vmstat("pgmigrate_success")
        t0 = time.monotonic()
        for _ in range(args.compactions):
            write(COMPACT, "1")
        t1 = time.monotonic()
        tlb1 = tlb_shootdowns()
        migrated1 = vmstat("pgmigrate_success")
        second = pfns(guest.proc.pid, lo, hi)
        rss = status_kib(guest.proc.pid, "VmRSS")
        lck = status_kib(guest.proc.pid, "VmLck")
        time.sleep(args.after)
        if guest.proc.poll() is not None:
            raise RuntimeError("the guest ended early (exit %d)"
                               % guest.proc.returncode)
    finally:
        if guest:
            guest.stop()
        frag.close()
    both = [(a, b) for a, b in zip(first, second)
            if a is not None and b is not None]
    moved = sum(1 for a, b in both if a != b)
    samples = guest.samples()
    before = mean_between(samples, t_before, t0)
    during = mean_between(samples, t0, t1 + 0.1)
    return {
        "binary": version(binary), "mode": mode, "thp": thp_mode(),
        "host_migrated_pages": migrated1 - migrated0,
        "resident_pages": len(both), "migrated_pages": moved,
        "tlb_compaction": tlb1 - tlb0,
        "tlb_quiet_same_time": tlb_quiet * (t1 - t0) / quiet_s,
        "compaction_s": t1 - t0, "fragment_s": t_frag,
        "tput_before": before, "tput_during": during,
        "tput_ratio": during / before if before else float("nan"),
        "vmrss_kib": rss, "vmlck_kib": lck,
        "series": [(t - t0, v) for t, v in samples
                   if t_before - 1 <= t <= t1 + args.after],
        "compaction_end_s": t1 - t0,
    }


def med(runs, key):
    return statistics.median(r[key] for r in runs)


def rng(runs, key, fmt):
    vals = sorted(r[key] for r in runs)
    m = fmt % statistics.median(vals)
    if len(vals) > 1 and fmt % vals[0] != fmt % vals[-1]:
        m += " (%s–%s)" % (fmt % vals[0], fmt % vals[-1])
    return m


def table(results, failures):
    out = ["| THP | binary | mem-lock | guest pages migrated | TLB shootdowns "
           "during compaction (quiet window of the same length) | "
           "throughput during / before | compaction, s | VmRSS, MiB | "
           "VmLck, MiB |", "|---|---|---|---|---|---|---|---|---|"]
    for (thp, binary, mode), runs in results.items():
        if not runs:
            out.append("| %s | %s | %s | %s | | | | | |"
                       % (thp, binary, mode,
                          failures.get((thp, binary, mode), "")))
            continue
        pct = [100.0 * r["migrated_pages"] / max(r["resident_pages"], 1)
               for r in runs]
        out.append("| %s | %s | %s | %s of %s (%.1f%%) | %s (%s) | %s | %s | "
                   "%.0f | %.0f |" % (
                       thp, binary, mode, rng(runs, "migrated_pages", "%d"),
                       "%d" % med(runs, "resident_pages"),
                       statistics.median(pct),
                       rng(runs, "tlb_compaction", "%d"),
                       "%d" % med(runs, "tlb_quiet_same_time"),
                       rng(runs, "tput_ratio", "%.2f"),
                       rng(runs, "compaction_s", "%.1f"),
                       med(runs, "vmrss_kib") / 1024,
                       med(runs, "vmlck_kib") / 1024))
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ours", default=os.path.join(ROOT, "build",
                                                   "qemu-system-x86_64"))
    ap.add_argument("--qemu", default="/usr/bin/qemu-system-x86_64")
    ap.add_argument("--guest", default=os.path.join(
        ROOT, "build", "tests", "guest", "dirty.elf"))
    ap.add_argument("--mem-mib", type=int, default=1024)
    ap.add_argument("--ws-mib", type=int, default=512)
    ap.add_argument("--frag-gib", type=int, default=6)
    ap.add_argument("--compactions", type=int, default=3)
    ap.add_argument("--before", type=float, default=2.0)
    ap.add_argument("--after", type=float, default=1.5)
    ap.add_argument("--max-minutes", type=float, default=15)
    ap.add_argument("--thp", default="madvise,never",
                    help="transparent_hugepage/enabled settings to run "
                    "each round with (restored at the end)")
    ap.add_argument("--json")
    args = ap.parse_args()
    if os.geteuid() != 0:
        sys.exit("compaction.py: needs root (pagemap PFNs, sysctls)")

    configs = [(args.ours, m) for m in ("off", "on", "on-fault")] + \
              [(args.qemu, m) for m in ("off", "on")]
    names = {b: version(b) for b, _ in configs}
    thps = args.thp.split(",")
    results = {(t, names[b], m): [] for t in thps for b, m in configs}
    failures = {}
    deadline = time.monotonic() + args.max_minutes * 60
    started = time.strftime("%Y-%m-%d %H:%M")
    # A signal ends the bench through the finally below.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("compaction.py: "
                                                      "terminated"))
    saved = read(SYSCTL).strip()
    saved_thp = thp_mode()
    try:
        write(SYSCTL, "0")
        for rnd, thp, (binary, mode) in [(r, t, c) for r in range(
                args.rounds) for t in thps for c in configs]:
            if time.monotonic() > deadline:
                print("compaction.py: --max-minutes reached, stopping "
                      "after %d round(s)" % rnd, file=sys.stderr)
                break
            key = (thp, names[binary], mode)
            write(THP, thp)
            try:
                r = one_run(args, binary, mode)
            except RuntimeError as e:
                failures[key] = str(e).splitlines()[0][:200]
                print("round %d THP %s %s %s: %s" % (rnd + 1, *key, e),
                      file=sys.stderr)
                continue
            r["round"] = rnd + 1
            results[key].append(r)
            print("round %d THP %s %s %s: migrated %d/%d, TLB %d, "
                  "throughput %.2f, compaction %.1f s, RSS %d MiB"
                  % (rnd + 1, *key, r["migrated_pages"],
                     r["resident_pages"], r["tlb_compaction"],
                     r["tput_ratio"], r["compaction_s"],
                     r["vmrss_kib"] // 1024), file=sys.stderr)
    finally:
        write(SYSCTL, saved)
        write(THP, saved_thp)
    print("`bench/compaction.py --rounds %d` (%s; -m %dM -smp 2, sweep=%d "
          "MiB, %d GiB fragmented, %d compactions; THP %s; medians (min–max) "
          "of %d rounds)\n" % (args.rounds, started, args.mem_mib, args.ws_mib,
                            args.frag_gib, args.compactions, args.thp,
                            args.rounds))
    print(table(results, failures))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"started": started, "args": vars(args),
                       "runs": [r for rs in results.values() for r in rs],
                       "failures": {"|".join(k): v
                                    for k, v in failures.items()}},
                      f, indent=1)


if __name__ == "__main__":
    main()
