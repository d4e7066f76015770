#!/bin/busybox sh
# /init of the virtio-blk migration case (test-migration.c
# /migration/linux-virtio-blk), put over the busybox initramfs's own:
# makes an ext4 file system on /dev/vda, writes a known file, then
# rewrites four 256 KiB files in a loop, each pass synced (the host
# migrates the machine in the middle of it). After the last pass it
# drops the page cache and compares what the disk gives back with what
# it wrote, reads 64 bytes of /dev/hwrng (virtio-rng), unmounts and
# powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m.ko 2>/dev/null
done
echo "init: started"
passes=$(sed -n 's/.*\bpasses=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
if ! mke2fs -F /dev/vda >/dev/null 2>&1 ||
   ! mount -t ext4 /dev/vda /mnt; then
    echo "init: no file system on vda"
    poweroff -f
fi
echo "known content of the migration test" > /mnt/known
sync
echo "init: writing"
i=0
while [ "$i" -lt "$passes" ]; do
    yes "pass $i" | head -c 262144 > /mnt/f$((i % 4))
    sync
    echo "init: wrote $i"
    i=$((i + 1))
done
echo 3 > /proc/sys/vm/drop_caches
bad=0
for j in 1 2 3 4; do
    k=$((passes - j))
    yes "pass $k" | head -c 262144 | cmp -s - /mnt/f$((k % 4)) || bad=$((bad + 1))
done
echo "init: $bad files differ"
echo "init: hwrng $(dd if=/dev/hwrng bs=64 count=1 2>/dev/null | wc -c) bytes"
umount /mnt && echo "init: unmounted"
echo "init: poweroff"
poweroff -f
