#!/usr/bin/env python3
"""Run a command as a child subreaper, reaping every orphan below it.

On a host without an init that reaps (a container whose PID 1 does not),
a daemonized process that exits stays a zombie, and libvirtd, which
waits for a killed probe process to be gone, waits out its timeout for
each: bench/libvirt.py's whole-call figures then measure that timeout.
Started as `python3 bench/reaper.py libvirtd`, the daemon and the
emulators it starts (which -daemonize re-parents to the nearest
subreaper) are reaped here, as systemd would reap them.

Usage: bench/reaper.py COMMAND [ARG...]   (ends when COMMAND ends)
"""
import ctypes
import os
import sys

PR_SET_CHILD_SUBREAPER = 36


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__.strip().splitlines()[-1])
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
        sys.exit("reaper.py: prctl: %s" % os.strerror(ctypes.get_errno()))
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(sys.argv[1], sys.argv[1:])
        finally:
            os._exit(127)
    status = 0
    while True:
        try:
            p, st = os.wait()
        except ChildProcessError:
            break
        if p == pid:
            status = os.waitstatus_to_exitcode(st)
            break
    sys.exit(status)


if __name__ == "__main__":
    main()
