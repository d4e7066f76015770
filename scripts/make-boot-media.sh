#!/bin/sh
# Make bootable media for the pc machine's firmware (SeaBIOS) holding a
# Linux kernel and initrd, without root or loop mounts.
#
#   make-boot-media.sh OUT.img KERNEL INITRD [APPEND]
#   make-boot-media.sh --iso OUT.iso KERNEL INITRD [APPEND]
#
# A raw disk image: one FAT partition made with mtools, SYSLINUX
# installed into it, syslinux's MBR in front. Debian packages: fdisk
# (sfdisk), mtools, syslinux, syslinux-common.
# With --iso, an El Torito CD image (no emulation) booting ISOLINUX,
# written by xorriso. Debian packages: isolinux, syslinux-common,
# xorriso. (scripts/setup-debian.sh installs them all.)
#
# INITRD may be several files joined with ':' (concatenated, as the
# kernel unpacks concatenated cpio archives). APPEND defaults to
# "console=ttyS0". Boot them with e.g.
#   qemu-system-x86_64 -nographic -hda OUT.img
#   qemu-system-x86_64 -nographic -cdrom OUT.iso -boot d
set -eu

iso=
if [ "${1:-}" = --iso ]; then
    iso=1
    shift
fi
if [ $# -lt 3 ]; then
    echo "usage: $0 [--iso] OUT KERNEL INITRD[:INITRD...] [APPEND]" >&2
    exit 1
fi
out=$1
kernel=$2
initrds=$3
append=${4:-console=ttyS0}
if [ -n "$iso" ]; then
    tools="xorriso"
    files="/usr/lib/ISOLINUX/isolinux.bin
/usr/lib/syslinux/modules/bios/ldlinux.c32"
    packages="isolinux syslinux-common xorriso"
else
    tools="sfdisk mformat mcopy syslinux"
    files=/usr/lib/syslinux/mbr/mbr.bin
    packages="fdisk mtools syslinux syslinux-common"
fi
for tool in $tools; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: $tool missing: apt-get install $packages" >&2
        exit 1
    }
done
for f in $files; do
    [ -r "$f" ] || {
        echo "$0: $f missing: apt-get install $packages" >&2
        exit 1
    }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The initrd: the parts in order, one file.
(
    IFS=:
    for f in $initrds; do
        cat "$f"
    done
) > "$tmp/initrd"
# The boot loader's configuration (SYSLINUX and ISOLINUX read the same).
cat > "$tmp/syslinux.cfg" <<CFG
SERIAL 0 115200
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL /bzImage
  INITRD /initrd
  APPEND $append
CFG

if [ -n "$iso" ]; then
    # isolinux.bin is patched by -boot-info-table, so it goes in as a copy.
    cp /usr/lib/ISOLINUX/isolinux.bin "$tmp/isolinux.bin"
    rm -f "$out"
    xorriso -as mkisofs -quiet -o "$out" -V BOOT -J -R -graft-points \
        -b isolinux/isolinux.bin -c isolinux/boot.cat \
        -no-emul-boot -boot-load-size 4 -boot-info-table \
        isolinux/isolinux.bin="$tmp/isolinux.bin" \
        isolinux/ldlinux.c32=/usr/lib/syslinux/modules/bios/ldlinux.c32 \
        isolinux/isolinux.cfg="$tmp/syslinux.cfg" \
        bzImage="$kernel" initrd="$tmp/initrd"
    exit 0
fi

# The partition: 1 MiB in, the files plus 4 MiB of room, in MiB.
bytes=$(( $(stat -c %s "$kernel") + $(stat -c %s "$tmp/initrd") ))
part_mib=$(( bytes / 1048576 + 5 ))
part_sectors=$(( part_mib * 2048 ))
dd if=/dev/zero of="$tmp/part.img" bs=1M count=0 seek=$part_mib 2>/dev/null
mformat -i "$tmp/part.img" -v BOOT -T $part_sectors -h 64 -s 32 -H 2048 ::
mcopy -i "$tmp/part.img" "$kernel" ::bzImage
mcopy -i "$tmp/part.img" "$tmp/initrd" ::initrd
mcopy -i "$tmp/part.img" "$tmp/syslinux.cfg" ::syslinux.cfg
# syslinux writes its boot sector and ldlinux.sys/.c32 through mtools.
syslinux --install "$tmp/part.img"

# The disk: an MBR with the partition (FAT16/32 LBA, active) at 1 MiB.
rm -f "$out"
dd if=/dev/zero of="$out" bs=1M count=0 seek=$(( part_mib + 1 )) 2>/dev/null
printf 'label: dos\nstart=2048, size=%d, type=c, bootable\n' \
    $part_sectors | sfdisk -q "$out"
dd if=/usr/lib/syslinux/mbr/mbr.bin of="$out" bs=440 count=1 conv=notrunc 2>/dev/null
dd if="$tmp/part.img" of="$out" bs=1M seek=1 conv=notrunc 2>/dev/null
