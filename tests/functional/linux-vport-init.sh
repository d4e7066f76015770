#!/bin/busybox sh
# /init of the virtio-serial and virtio-rng Linux test
# (test-linux-virtio-serial.c), put over the busybox initramfs's own:
# loads the virtio modules, finds the port named org.qemu.guest_agent.0,
# writes to hvc0 (virtconsole), echoes one line the host sends on the
# port, reads the hardware RNG, and powers off.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m.ko 2>/dev/null
done
echo "init: started"
# The ports are named once the device's control messages are through.
agent=
for i in 1 2 3 4 5 6 7 8 9 10; do
    for p in /sys/class/virtio-ports/*; do
        if [ "$(cat "$p/name" 2>/dev/null)" = org.qemu.guest_agent.0 ]; then
            agent=${p##*/}
        fi
    done
    if [ -n "$agent" ] && [ -c /dev/hvc0 ]; then
        break
    fi
    sleep 1
done
echo "init: vport /dev/$agent name $(cat /sys/class/virtio-ports/$agent/name)"
echo "hello from hvc0" > /dev/hvc0
read -r line < "/dev/$agent"
echo "init: vport got $line"
echo "guest echo: $line" > "/dev/$agent"
echo "init: rng available $(cat /sys/class/misc/hw_random/rng_available)"
echo "init: hwrng $(dd if=/dev/hwrng bs=16 count=1 2>/dev/null | wc -c) bytes"
echo "init: poweroff"
poweroff -f
