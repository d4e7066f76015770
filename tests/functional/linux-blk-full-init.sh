#!/bin/busybox sh
# /init of test-linux-virtio's full-disk case, appended after the guest
# kit's initramfs and modules.cpio so it replaces their /init: loads the
# modules, prints the sha256 of 2 MiB of module bytes, writes them to
# /dev/vda with dd and fsync (the test's image is on a full tmpfs, so
# the VM stops with werror=stop until the test frees space and says
# cont), then drops the page cache, reads the disk back and prints that
# sha256 too.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m.ko || echo "init: insmod $m failed"
done
echo "init: started"
cat /lib/modules/*.ko | head -c 2097152 > /data
echo "init: data $(sha256sum < /data)"
dd if=/data of=/dev/vda bs=64k conv=fsync 2>/dev/null &&
    echo "init: vda written"
echo 3 > /proc/sys/vm/drop_caches
echo "init: readback $(head -c 2097152 /dev/vda | sha256sum)"
echo "init: poweroff"
poweroff -f
