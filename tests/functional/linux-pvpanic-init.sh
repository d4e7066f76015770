#!/bin/busybox sh
# /init of the pvpanic Linux test (test-linux-pvpanic.c), put over the
# busybox initramfs's own: loads the kernel's pvpanic drivers, says which
# devices they bound (the DSDT's QEMU0001 for pvpanic-mmio, 1b36:0011 for
# pvpanic-pci), and panics the kernel with sysrq-c, which the drivers
# report to the host.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m.ko 2>/dev/null
done
echo "init: pvpanic-mmio bound" \
    $(ls /sys/bus/platform/drivers/pvpanic-mmio 2>/dev/null | grep QEMU)
echo "init: pvpanic-pci bound" \
    $(ls /sys/bus/pci/drivers/pvpanic-pci 2>/dev/null | grep 0000)
echo "init: panic"
echo c > /proc/sysrq-trigger
echo "init: still alive"
