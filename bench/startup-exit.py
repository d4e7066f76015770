#!/usr/bin/env python3
"""Start-up and exit latency of "-machine none" for each binary given.

start-up: from exec until "-daemonize" returns (the VM is set up);
exit: from SIGTERM until the daemon is gone (pidfd poll).
Medians of --runs (default 5); prints a markdown table.
Usage: bench/startup-exit.py [--runs N] [--accel kvm] BINARY...
"""
import argparse
import os
import select
import signal
import statistics
import subprocess
import tempfile
import time


def one_run(binary, accel, tmp):
    pidfile = os.path.join(tmp, "vm.pid")
    if os.path.exists(pidfile):
        os.unlink(pidfile)
    t0 = time.monotonic()
    subprocess.run([binary, "-machine", "none", "-accel", accel,
                    "-display", "none", "-daemonize", "-pidfile", pidfile],
                   check=True)
    started = time.monotonic() - t0
    pid = int(open(pidfile).read())
    fd = os.pidfd_open(pid)
    time.sleep(0.1)
    t1 = time.monotonic()
    os.kill(pid, signal.SIGTERM)
    select.select([fd], [], [], 10)
    exited = time.monotonic() - t1
    os.close(fd)
    return started * 1000, exited * 1000


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--accel", default="kvm")
    ap.add_argument("binaries", nargs="+")
    args = ap.parse_args()
    print("| binary | start-up to ready, ms | SIGTERM to exit, ms |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        for b in args.binaries:
            name = subprocess.run([b, "-version"], capture_output=True,
                                  text=True).stdout.splitlines()[0]
            runs = [one_run(b, args.accel, tmp) for _ in range(args.runs)]
            print("| %s | %.1f | %.1f |" % (
                name, statistics.median(r[0] for r in runs),
                statistics.median(r[1] for r in runs)))


if __name__ == "__main__":
    main()
