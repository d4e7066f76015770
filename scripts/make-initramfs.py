#!/usr/bin/env python3
"""Write a busybox initramfs (cpio "newc") for the Linux test guest.

/init prints "init: started", mounts proc, sys and devtmpfs, runs a few real
programs and prints their results on lines starting with "init:" (the
sha256sum of a known string, awk floating-point output, a dd copy, the
number of CPUs), runs /bin/fpmath when an extra archive brought it
(tests/guest/linux/fpmath.c), loads the modules of an appended modules
archive (make-modules-cpio.py), and with a virtio disk prints its size
and serial and, with vda=format or vda=check on the command line, makes
a file system with a file on it or reads the file back; dirties N MiB
of RAM when the kernel command line has dirty=N ("init: dirtied N MiB"), waits N seconds with
hold=N ("init: holding N s"), then prints "init: poweroff" and powers
the machine off with poweroff -f. With libvirt=1 it instead watches the
ACPI power button ("init: power button on /dev/input/eventN"; a press
prints "init: power button pressed, poweroff" and powers off) and runs
a shell on the console ("init: shell", prompt "guest# ") for good.

The kernel unpacks concatenated archives in order, so an extra archive
appended to this one adds files:
  make-initramfs.py BUSYBOX OUT               the busybox initramfs
  make-initramfs.py --extra OUT SRC:DEST ...  an archive of just SRC files
                                              at DEST (mode 0755)
"""
import os
import sys

INIT = """#!/bin/busybox sh
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
if [ -f /lib/modules/load-order ]; then
    # An appended modules archive (make-modules-cpio.py): deps first.
    for m in $(cat /lib/modules/load-order); do
        insmod /lib/modules/$m.ko || echo "init: insmod $m failed"
    done
fi
echo "init: started"
echo "init: cpus $(grep -c ^processor /proc/cpuinfo)"
echo "init: sha256 $(printf 'The quick brown fox jumps over the lazy dog' |
    sha256sum)"
# Debian's busybox awk has no libm functions: arithmetic and printf.
echo "init: awk $(awk 'BEGIN { x = 1; for (i = 1; i <= 30; i++)
    x = x * 1.5 / 1.25 + 0.1; printf "%.10f %.6e %d", x, 1 / 7,
    355 / 113 * 1e6 }')"
echo "init: dd $(dd if=/dev/zero of=/dev/null bs=1M count=64 2>&1 |
    grep -o '^64+0 records out')"
if [ -x /bin/fpmath ]; then
    /bin/fpmath
fi
if [ -b /dev/vda ]; then
    # A virtio disk: vda=format makes a file system and writes a file,
    # vda=check reads it back.
    echo "init: vda $(cat /sys/block/vda/size) sectors, serial" \
        "$(cat /sys/block/vda/serial)"
    case " $(cat /proc/cmdline) " in
    *" vda=format "*)
        mke2fs -F /dev/vda >/dev/null &&
        mount -t ext4 /dev/vda /mnt &&
        echo "written by the Linux test guest" > /mnt/hello &&
        sync && umount /mnt && echo "init: vda formatted";;
    *" vda=check "*)
        mount -t ext4 -o ro /dev/vda /mnt &&
        echo "init: vda says: $(cat /mnt/hello)" && umount /mnt;;
    esac
fi
n=$(sed -n 's/.*\\bdirty=\\([0-9][0-9]*\\).*/\\1/p' /proc/cmdline)
if [ -n "$n" ]; then
    # rootfs is RAM: every page of this file is guest memory written.
    dd if=/dev/zero of=/dirty bs=1M count="$n" 2>/dev/null
    echo "init: dirtied $n MiB"
fi
n=$(sed -n 's/.*\\bhold=\\([0-9][0-9]*\\).*/\\1/p' /proc/cmdline)
if [ -n "$n" ]; then
    # Time for the host to read the emulator's memory figures.
    echo "init: holding $n s"
    sleep "$n"
fi
case " $(cat /proc/cmdline) " in
*" libvirt=1 "*)
    # Driven from outside (tests/functional/test-libvirt.py): the ACPI
    # power button (the button and evdev modules) powers off, and a shell
    # runs on the console instead of the poweroff below.
    for ev in /dev/input/event*; do
        [ "$(cat /sys/class/input/${ev##*/}/device/name 2>/dev/null)" = \
            "Power Button" ] || continue
        echo "init: power button on $ev"
        (
            # One struct input_event (24 bytes on x86-64) a read; the
            # press is type EV_KEY (1), code KEY_POWER (116), value 1.
            exec 3<"$ev"
            while :; do
                e=$(dd bs=24 count=1 <&3 2>/dev/null | od -An -tx1 |
                    tr -d ' \n')
                case "$e" in
                *0100740001000000)
                    echo "init: power button pressed, poweroff"
                    poweroff -f;;
                esac
            done
        ) &
    done
    echo "init: shell"
    export PS1='guest# '
    while :; do
        setsid cttyhack sh
    done;;
esac
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


def extra(out_path, pairs):
    with open(out_path, "wb") as out:
        ino = 1
        for pair in pairs:
            src, dest = pair.split(":", 1)
            with open(src, "rb") as f:
                entry(out, ino, dest.lstrip("/"), 0o100755, f.read())
            ino += 1
        entry(out, 0, "TRAILER!!!", 0)


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "--extra":
        extra(sys.argv[2], sys.argv[3:])
        return
    if len(sys.argv) != 3:
        sys.exit("usage: make-initramfs.py BUSYBOX OUT\n"
                 "       make-initramfs.py --extra OUT SRC:DEST ...")
    with open(sys.argv[1], "rb") as f:
        busybox = f.read()
    ino = 1
    with open(sys.argv[2], "wb") as out:
        for d in ("bin", "dev", "mnt", "proc", "sys", "tmp"):
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
