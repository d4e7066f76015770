#!/bin/busybox sh
# /init of the virtio-net functional test (tests/functional/
# test-linux-net.c), appended after the guest kit's initramfs and
# modules.cpio so it replaces their /init: loads the modules, takes an
# address from slirp's DHCP with udhcpc, fetches
# http://10.0.2.2:HTTP_PORT/hello (the test's server on the host's
# 127.0.0.1), prints what came back, then serves a page on port 8080
# (which the test reaches through hostfwd) until the test quits. With
# static_ip=A (and peer_ip=B) on the kernel command line it skips DHCP,
# takes address A, and fetches B's page.
/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mkdir -p /tmp
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
arg() {
    sed -n "s/.*\\b$1=\\([0-9.][0-9.]*\\).*/\\1/p" /proc/cmdline
}
ifconfig lo up
ifconfig eth0 up
static=$(arg static_ip)
if [ -n "$static" ]; then
    # Two guests on a -netdev socket wire: addresses from the command line.
    ifconfig eth0 "$static" netmask 255.255.255.0
    echo "init: net static $static"
else
    udhcpc -i eth0 -n -q -t 10 -s /bin/dhcp-event || echo "init: net no lease"
fi
port=$(arg http_port)
if [ -n "$port" ]; then
    echo "init: net got $(wget -q -O - http://10.0.2.2:$port/hello)"
fi
peer=$(arg peer_ip)
if [ -n "$peer" ]; then
    # The wire first (ARP, ICMP), then the peer's httpd, once it is up.
    for i in $(seq 60); do
        ping -c 1 -W 1 "$peer" >/dev/null 2>&1 && break
    done
    for i in $(seq 60); do
        page=$(wget -O - "http://$peer:8080/" 2>/tmp/wget.err)
        [ -n "$page" ] && break
        sleep 1
    done
    [ -n "$page" ] || echo "init: net peer failed: $(cat /tmp/wget.err)"
    echo "init: net peer says $page"
fi
mkdir -p /www
echo "served by the guest" > /www/index.html
httpd -p 8080 -h /www
echo "init: net serving"
sleep 600
poweroff -f
