#!/bin/sh
# Install what building and testing need on a fresh Debian 12 machine.
# Runs as root (or through sudo); a no-op when everything is present.
set -eu

# clang and libclang-rt-14-dev (libFuzzer, only recommended by clang) for
# the fuzz build; libc6-dev for static Linux test programs (libc.a, libm.a);
# libcapstone-dev for -d in_asm disassembly and the decoder oracle test;
# libseccomp-dev for -sandbox; liburing-dev for aio=io_uring; libslirp-dev
# for -netdev user; libvirt for
# tests/functional/test-libvirt.py;
# qemu-system-x86 (Debian's QEMU 7.2), the peer some tests and bench/ use;
# zlib1g-dev and libzstd-dev for qcow2's compressed clusters; qemu-utils
# (qemu-img) makes and checks the qcow2 images of the tests.
# seabios for the pc machine's firmware (bios-256k.bin); fdisk, mtools,
# syslinux and syslinux-common for scripts/make-boot-media.sh's disk
# images, isolinux and xorriso for its CD images (--iso); ipxe-qemu
# for the NICs' option ROMs (efi-e1000.rom, the default e1000's).
PACKAGES="meson ninja-build gcc binutils pkg-config python3 libglib2.0-dev
zlib1g-dev libzstd-dev qemu-utils libjson-glib-dev linux-libc-dev libc6-dev acpica-tools clang libclang-rt-14-dev
libcapstone-dev libseccomp-dev liburing-dev libvirt-daemon-system libvirt-clients
qemu-system-x86 libslirp-dev seabios fdisk mtools syslinux syslinux-common
isolinux xorriso ipxe-qemu"

missing=""
for p in $PACKAGES; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
        missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" -ne 0 ]; then
    echo "setup-debian.sh: missing packages:$missing; run as root" >&2
    exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq $missing
