#!/bin/sh
# Fetch Debian 12's x86-64 kernel and busybox-static with apt-get download
# (nothing is installed, nothing goes to /boot) and build the Linux guest:
#   build/guest-linux/vmlinux         the uncompressed ELF (PVH entry)
#   build/guest-linux/bzImage         the kernel as Debian ships it
#   build/guest-linux/initramfs.cpio  busybox, /init printing markers
#   build/guest-linux/busybox         busybox-static's binary (to remake
#                                     the initramfs when its script changes)
#   build/guest-linux/modules.cpio    the kernel's virtio, e1000, ext4, ACPI
#                                     button, evdev, pvpanic and IDE
#                                     (ata_piix, sd, sr) modules, to append
#                                     to the initramfs
#   build/guest-linux/MODULES         the module list modules.cpio was made
#                                     from
# Cached: a second run with all of them present (and the same module list)
# does nothing.
# Needs apt-get, dpkg-deb and python3 (its lzma module unpacks Debian 12's
# XZ-compressed kernel; zstd(1) is used only for a ZSTD one).
# Usage: scripts/fetch-linux-guest.sh [OUTDIR]
set -eu
cd "$(dirname "$0")/.."
out=${1:-build/guest-linux}
mkdir -p "$out"
out=$(cd "$out" && pwd)

# The kernel's own modules the tests load (with what they need), as an
# archive to append to the initramfs: virtio over PCI, its disk, network,
# console, rng and balloon drivers, the e1000 (the pc's default NIC), ext4
# and the crc32c it asks for, the ACPI power button and evdev (its
# /dev/input/event* for /init's handler), pvpanic's ACPI (pvpanic-mmio)
# and PCI drivers, the PIIX IDE controller (ata_piix, with libata and
# SCSI) and its disks (sd_mod) and CD-ROMs (sr_mod).
MODULES="virtio_pci virtio_blk virtio_net virtio_console virtio_rng
virtio_balloon e1000 ext4 crc32c_generic button evdev pvpanic_mmio
pvpanic_pci ata_piix sd_mod sr_mod"

if [ -s "$out/vmlinux" ] && [ -s "$out/bzImage" ] && [ -s "$out/busybox" ] &&
   [ -s "$out/modules.cpio" ] &&
   [ "$(cat "$out/MODULES" 2>/dev/null)" = "$(echo $MODULES)" ]; then
    # The init script changed since the initramfs was made: remake it.
    if ! [ "$out/initramfs.cpio" -nt scripts/make-initramfs.py ]; then
        python3 scripts/make-initramfs.py "$out/busybox" \
            "$out/initramfs.cpio.tmp"
        mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
    fi
    exit 0
fi

for tool in apt-get apt-cache dpkg-deb python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "fetch-linux-guest.sh: $tool is missing" >&2
        exit 1
    }
done

dl="$out/download"
rm -rf "$dl"
mkdir -p "$dl"
trap 'rm -rf "$dl"' EXIT

# One exact package: the versioned image the metapackage points at.
pkg=$(apt-cache depends linux-image-amd64 |
      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' |
      head -n 1)
if [ -z "$pkg" ]; then
    echo "fetch-linux-guest.sh: apt-cache does not know linux-image-amd64" \
         "(run apt-get update)" >&2
    exit 1
fi
(cd "$dl" && apt-get download -q "$pkg" busybox-static) >&2

dpkg-deb -x "$dl/$pkg"_*.deb "$dl/kernel"
dpkg-deb -x "$dl"/busybox-static_*.deb "$dl/busybox"

cp "$dl"/kernel/boot/vmlinuz-* "$out/bzImage.tmp"
python3 scripts/extract-vmlinux.py "$out/bzImage.tmp" "$out/vmlinux.tmp"
# shellcheck disable=SC2086
python3 scripts/make-modules-cpio.py "$dl/kernel" "$out/modules.cpio.tmp" \
    $MODULES >/dev/null
cp "$dl/busybox/bin/busybox" "$out/busybox.tmp"
python3 scripts/make-initramfs.py "$out/busybox.tmp" \
    "$out/initramfs.cpio.tmp"
echo "$pkg" > "$out/VERSION"
mv "$out/bzImage.tmp" "$out/bzImage"
mv "$out/vmlinux.tmp" "$out/vmlinux"
mv "$out/initramfs.cpio.tmp" "$out/initramfs.cpio"
mv "$out/busybox.tmp" "$out/busybox"
mv "$out/modules.cpio.tmp" "$out/modules.cpio"
# shellcheck disable=SC2086
echo $MODULES > "$out/MODULES"
echo "fetch-linux-guest.sh: $pkg in $out" >&2
