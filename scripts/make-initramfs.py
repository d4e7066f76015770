#!/usr/bin/env python3
"""Write a busybox initramfs (cpio "newc") for the Linux test guest.

/init prints "init: started", mounts proc and sys, dirties N MiB of RAM
when the kernel command line has dirty=N ("init: dirtied N MiB"), then
prints "init: poweroff" and powers the machine off with poweroff -f.
Usage: make-initramfs.py BUSYBOX OUT
"""
import os
import sys

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
echo "init: started"
n=$(sed -n 's/.*\\bdirty=\\([0-9][0-9]*\\).*/\\1/p' /proc/cmdline)
if [ -n "$n" ]; then
    # rootfs is RAM: every page of this file is guest memory written.
    dd if=/dev/zero of=/dirty bs=1M count="$n" 2>/dev/null
    echo "init: dirtied $n MiB"
fi
echo "init: poweroff"
poweroff -f
"""


def entry(out, ino, name, mode, data=b"", rdev=(0, 0), nlink=1):
    name_b = name.encode() + b"\0"
    hdr = "070701" + "".join("%08X" % v for v in (
        ino, mode, 0, 0, nlink, 0, len(data), 0, 0, rdev[0], rdev[1],
        len(name_b), 0))
    out.write(hdr.encode() + name_b)
    out.write(b"\0" * (-(110 + len(name_b)) % 4))
    out.write(data)
    out.write(b"\0" * (-len(data) % 4))


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: make-initramfs.py BUSYBOX OUT")
    with open(sys.argv[1], "rb") as f:
        busybox = f.read()
    ino = 1
    with open(sys.argv[2], "wb") as out:
        for d in ("bin", "dev", "proc", "sys", "tmp"):
            entry(out, ino, d, 0o040755, nlink=2)
            ino += 1
        # The kernel opens /dev/console for init's stdio before init runs.
        entry(out, ino, "dev/console", 0o020600, rdev=(5, 1))
        ino += 1
        entry(out, ino, "bin/busybox", 0o100755, busybox)
        ino += 1
        entry(out, ino, "bin/sh", 0o120777, b"busybox")
        ino += 1
        entry(out, ino, "init", 0o100755, INIT.encode())
        ino += 1
        entry(out, 0, "TRAILER!!!", 0)


main()
