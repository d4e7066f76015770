#!/bin/sh
# Make a bootable raw disk image for the pc machine's firmware (SeaBIOS)
# holding a Linux kernel and initrd, without root or loop mounts: one
# FAT partition made with mtools, SYSLINUX installed into it, syslinux's
# MBR in front. Debian packages: fdisk (sfdisk), mtools, syslinux,
# syslinux-common (scripts/setup-debian.sh installs them).
#
#   make-boot-media.sh OUT.img KERNEL INITRD [APPEND]
#
# INITRD may be several files joined with ':' (concatenated, as the
# kernel unpacks concatenated cpio archives). APPEND defaults to
# "console=ttyS0". Boot it with e.g.
#   qemu-system-x86_64 -nographic -drive file=OUT.img,format=raw,if=virtio
set -eu

if [ $# -lt 3 ]; then
    echo "usage: $0 OUT.img KERNEL INITRD[:INITRD...] [APPEND]" >&2
    exit 1
fi
out=$1
kernel=$2
initrds=$3
append=${4:-console=ttyS0}
mbr=/usr/lib/syslinux/mbr/mbr.bin
for tool in sfdisk mformat mcopy syslinux; do
    command -v $tool >/dev/null 2>&1 || {
        echo "$0: $tool missing: apt-get install fdisk mtools syslinux" \
             "syslinux-common" >&2
        exit 1
    }
done
[ -r "$mbr" ] || { echo "$0: $mbr missing (syslinux-common)" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The initrd: the parts in order, one file.
(
    IFS=:
    for f in $initrds; do
        cat "$f"
    done
) > "$tmp/initrd"

# The partition: 1 MiB in, the files plus 4 MiB of room, in MiB.
bytes=$(( $(stat -c %s "$kernel") + $(stat -c %s "$tmp/initrd") ))
part_mib=$(( bytes / 1048576 + 5 ))
part_sectors=$(( part_mib * 2048 ))
dd if=/dev/zero of="$tmp/part.img" bs=1M count=0 seek=$part_mib 2>/dev/null
mformat -i "$tmp/part.img" -v BOOT -T $part_sectors -h 64 -s 32 -H 2048 ::
cat > "$tmp/syslinux.cfg" <<CFG
SERIAL 0 115200
DEFAULT linux
PROMPT 0
TIMEOUT 0
LABEL linux
  KERNEL bzImage
  INITRD initrd
  APPEND $append
CFG
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
dd if="$mbr" of="$out" bs=440 count=1 conv=notrunc 2>/dev/null
dd if="$tmp/part.img" of="$out" bs=1M seek=1 conv=notrunc 2>/dev/null
