#!/bin/busybox sh
# /init of the virtio-net functional test (tests/functional/
# test-linux-net.c), appended after the guest kit's initramfs and
# modules.cpio so it replaces their /init: loads the modules, takes an
# address from slirp's DHCP with udhcpc, fetches
# http://10.0.2.2:HTTP_PORT/hello (the test's server on the host's
# 127.0.0.1), prints what came back, then serves a page on port 8080
# (which the test reaches through hostfwd) until the test quits.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
for m in $(cat /lib/modules/load-order); do
    insmod /lib/modules/$m.ko || echo "init: insmod $m failed"
done
echo "init: started"
cat > /bin/dhcp-event <<'SCRIPT'
#!/bin/sh
case "$1" in
bound|renew)
    ifconfig "$interface" "$ip" netmask "${subnet:-255.255.255.0}"
    route add default gw "$router"
    echo "init: net lease $ip router $router";;
esac
SCRIPT
chmod 755 /bin/dhcp-event
ifconfig lo up
ifconfig eth0 up
udhcpc -i eth0 -n -q -t 10 -s /bin/dhcp-event || echo "init: net no lease"
port=$(sed -n 's/.*\bhttp_port=\([0-9][0-9]*\).*/\1/p' /proc/cmdline)
echo "init: net got $(wget -q -O - http://10.0.2.2:$port/hello)"
mkdir -p /www
echo "served by the guest" > /www/index.html
httpd -p 8080 -h /www
echo "init: net serving"
sleep 600
poweroff -f
