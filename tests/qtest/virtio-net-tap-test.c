/*
 * qtest for virtio-net-pci on -netdev tap (virtio-net-rig.h): frames
 * both ways between the guest side and a packet socket on the interface,
 * the virtio-net header with offloads (features, the interface's
 * TUNSETOFFLOAD state through ethtool, TSO frames both ways, checksums),
 * multiqueue (queues=2 with mq=on, fds=) and the option errors. Skipped
 * where the container has no /dev/net/tun or cannot bring a tap up.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/ethtool.h>
#include <linux/if_packet.h>
#include <linux/if_tun.h>
#include <linux/sockios.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "virtio-net-rig.h"

/*
 * The interface up, and a packet socket on it for ethertype proto (with
 * a virtio-net header on each packet if vnet); -1 when not allowed.
 */
static int tap_host_side_for(const char *ifname, uint16_t proto, bool vnet,
                             int *ifindex)
{
    struct ifreq ifr = { 0 };
    struct sockaddr_ll sll = { .sll_family = AF_PACKET,
                               .sll_protocol = htons(proto) };
    int one = 1;
    int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int fd;

    g_autofree char *v6 = g_strdup_printf("/proc/sys/net/ipv6/conf/%s/"
                                          "disable_ipv6", ifname);

    /* No IPv6 chatter (router solicitations, MLD) into the guest. */
    g_file_set_contents(v6, "1", 1, NULL);
    g_strlcpy(ifr.ifr_name, ifname, IFNAMSIZ);
    if (ctl < 0 || ioctl(ctl, SIOCGIFFLAGS, &ifr) < 0) {
        return -1;
    }
    ifr.ifr_flags |= IFF_UP;
    if (ioctl(ctl, SIOCSIFFLAGS, &ifr) < 0) {
        close(ctl);
        return -1;
    }
    close(ctl);
    *ifindex = if_nametoindex(ifname);
    sll.sll_ifindex = *ifindex;
    fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, htons(proto));
    if (fd < 0 || bind(fd, (struct sockaddr *)&sll, sizeof(sll)) < 0 ||
        (vnet && setsockopt(fd, SOL_PACKET, PACKET_VNET_HDR, &one,
                            sizeof(one)) < 0)) {
        return -1;
    }
    return fd;
}

static int tap_host_side(const char *ifname, int *ifindex)
{
    return tap_host_side_for(ifname, 0x88b5, false, ifindex);
}

static void test_tap(void)
{
    g_autofree char *ifname = g_strdup_printf("qtap%d", getpid() % 100000);
    g_autofree char *netdev = g_strdup_printf("tap,id=n0,ifname=%s,"
                                              "script=no,downscript=no",
                                              ifname);
    struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
    uint8_t frame[300], got[2048];
    int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);
    int fd, ifindex;
    uint64_t buf;
    ssize_t n = -1;
    Rig r;

    if (tun < 0 || getuid() != 0) {
        g_test_skip("no /dev/net/tun, or not root");
        if (tun >= 0) {
            close(tun);
        }
        return;
    }
    close(tun);
    rig_init(&r, netdev, NULL, BASE_FEATURES);
    fd = tap_host_side(ifname, &ifindex);
    if (fd < 0) {
        g_test_skip("the tap interface cannot be brought up here");
        rig_end(&r);
        return;
    }
    /* Guest to host: the frame comes out of the interface. */
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 5);
    tx_frame(&r, NULL, frame, sizeof(frame));
    for (int i = 0; i < 100 && n != sizeof(frame); i++) {
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (poll(&p, 1, 50) == 1) {
            n = recv(fd, got, sizeof(got), 0);
        }
    }
    g_assert_cmpint(n, ==, sizeof(frame));
    g_assert_cmpmem(got, n, frame, sizeof(frame));
    /*
     * Host to guest; what else the host stack sends out of a new
     * interface goes to the guest too, so buffers are posted until ours
     * arrives.
     */
    make_frame(frame, sizeof(frame), MAC, 9);
    to.sll_ifindex = ifindex;
    memcpy(to.sll_addr, frame, 6);
    g_assert_cmpint(sendto(fd, frame, sizeof(frame), 0,
                           (struct sockaddr *)&to, sizeof(to)), ==,
                    sizeof(frame));
    for (int i = 0; i < 16; i++) {
        uint32_t ulen;

        buf = rx_post(&r, RX_BUF_LEN);
        g_assert_true(wait_used(&r, &r.rx, NULL, &ulen));
        qtest_memread(r.s, buf, got, MIN(ulen, sizeof(got)));
        if (ulen == HDR_LEN + sizeof(frame) &&
            !memcmp(got + HDR_LEN, frame, sizeof(frame))) {
            break;
        }
        g_assert_cmpint(i, <, 15);
    }
    close(fd);
    rig_end(&r);
    /* The interface went with the emulator. */
    g_assert_cmpuint(if_nametoindex(ifname), ==, 0);
}

/* --- tap with a virtio-net header, offloads, multiqueue --- */

#define VNET_HDR_LEN    10      /* struct virtio_net_hdr (packet socket) */
#define TCP_HDRS        (14 + 20 + 20)
#define GSO_PAYLOAD     3000
#define GSO_SIZE        1000

static bool tap_usable(void)
{
    int tun = open("/dev/net/tun", O_RDWR | O_CLOEXEC);

    if (tun < 0 || getuid() != 0) {
        g_test_skip("no /dev/net/tun, or not root");
    }
    if (tun >= 0) {
        close(tun);
    }
    return tun >= 0 && getuid() == 0;
}

/* "tap,id=n0,ifname=qtapPID,script=no,downscript=no" plus extra. */
static char *tap_netdev(char *ifname, const char *extra)
{
    g_snprintf(ifname, IFNAMSIZ, "qtap%d", getpid() % 100000);
    return g_strdup_printf("tap,id=n0,ifname=%s,script=no,downscript=no%s",
                           ifname, extra);
}

/* Whether the interface has an ethtool feature (ETHTOOL_GTSO, ...). */
static bool ethtool_get(const char *ifname, uint32_t cmd)
{
    struct ethtool_value v = { .cmd = cmd };
    struct ifreq ifr = { .ifr_data = (void *)&v };
    int ctl = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

    g_strlcpy(ifr.ifr_name, ifname, IFNAMSIZ);
    g_assert_cmpint(ioctl(ctl, SIOCETHTOOL, &ifr), ==, 0);
    close(ctl);
    return v.data;
}

/*
 * An Ethernet/IPv4 frame to MAC from 10.0.2.99:sport to 10.0.2.15:5001,
 * TCP (proto 6) or UDP (17) with payload bytes; the L4 checksum holds
 * the pseudo-header sum, as a partial checksum wants. Its length.
 */
static size_t make_ip_frame(uint8_t *f, uint8_t proto, size_t payload,
                            uint16_t sport)
{
    uint8_t *ip = f + 14, *l4 = ip + 20;
    size_t l4_len = (proto == 6 ? 20 : 8) + payload;
    uint32_t sum;
    uint16_t c;

    make_frame(f, 14 + 20 + l4_len, MAC, sport);
    f[12] = 0x08;
    f[13] = 0x00;
    memset(ip, 0, 20);
    ip[0] = 0x45;
    ip[2] = (20 + l4_len) >> 8;
    ip[3] = 20 + l4_len;
    ip[6] = 0x40;               /* DF */
    ip[8] = 64;
    ip[9] = proto;
    memcpy(ip + 12, (uint8_t[]){ 10, 0, 2, 99, 10, 0, 2, 15 }, 8);
    c = ip_csum(ip, 20);
    ip[10] = c >> 8;
    ip[11] = c;
    memset(l4, 0, proto == 6 ? 20 : 8);
    l4[0] = sport >> 8;
    l4[1] = sport;
    l4[2] = 5001 >> 8;
    l4[3] = 5001 & 0xff;
    if (proto == 6) {
        l4[4] = 1;              /* seq */
        l4[12] = 5 << 4;
        l4[13] = 0x18;          /* PSH, ACK */
        l4[14] = 0xff;          /* window */
    } else {
        l4[4] = l4_len >> 8;
        l4[5] = l4_len;
    }
    sum = (10 << 8) + (2 << 8) + 99 + (10 << 8) + (2 << 8) + 15 + proto +
          l4_len;
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    l4[proto == 6 ? 16 : 6] = sum >> 8;
    l4[proto == 6 ? 17 : 7] = sum;
    return 14 + 20 + l4_len;
}

/* Offered with a vnet header only; TUNSETOFFLOAD follows the driver. */
static void test_tap_vnet_hdr(void)
{
    char ifname[IFNAMSIZ];
    g_autofree char *on = tap_netdev(ifname, "");
    g_autofree char *off = tap_netdev(ifname, ",vnet_hdr=off");
    int fd, ifindex;
    Rig r;

    if (!tap_usable()) {
        return;
    }
    rig_init(&r, on, NULL, 0);
    g_assert_cmphex(qvirtio_get_features(&r.dev) & OFFLOADS, ==, OFFLOADS);
    fd = tap_host_side(ifname, &ifindex);
    if (fd < 0) {
        g_test_skip("the tap interface cannot be brought up here");
        rig_end(&r);
        return;
    }
    close(fd);
    /* Nothing accepted yet: the kernel finishes checksums and segments. */
    g_assert_false(ethtool_get(ifname, ETHTOOL_GTXCSUM));
    g_assert_false(ethtool_get(ifname, ETHTOOL_GTSO));
    g_assert_true(qvirtio_negotiate(&r.dev, BASE_FEATURES | F_GUEST_CSUM |
                                    F_GUEST_TSO4));
    g_assert_true(ethtool_get(ifname, ETHTOOL_GTXCSUM));
    g_assert_true(ethtool_get(ifname, ETHTOOL_GTSO));
    /* A reset takes the offloads back. */
    qvirtio_reset(&r.dev);
    g_assert_false(ethtool_get(ifname, ETHTOOL_GTSO));
    rig_end(&r);

    /* GUEST_OFFLOADS_SET: a subset of what was negotiated, no more. */
    rig_init(&r, on, NULL, BASE_FEATURES | F_GUEST_CSUM | F_GUEST_TSO4 |
             F_CTRL_GUEST_OFFLOADS);
    g_assert_true(ethtool_get(ifname, ETHTOOL_GTSO));
    g_assert_cmpuint(ctrl_cmd(&r, 5, 0, "\2\0\0\0\0\0\0\0", 8), ==, 0);
    g_assert_true(ethtool_get(ifname, ETHTOOL_GTXCSUM));
    g_assert_false(ethtool_get(ifname, ETHTOOL_GTSO));
    g_assert_cmpuint(ctrl_cmd(&r, 5, 0, "\0\1\0\0\0\0\0\0", 8), ==, 1);
    g_assert_cmpuint(ctrl_cmd(&r, 5, 0, "\x82\0\0\0\0\0\0\0", 8), ==,
                     0);
    g_assert_true(ethtool_get(ifname, ETHTOOL_GTSO));
    rig_end(&r);

    rig_init(&r, off, NULL, 0);
    g_assert_cmphex(qvirtio_get_features(&r.dev) & OFFLOADS, ==, 0);
    rig_end(&r);
}

/* A guest TSO frame leaves the interface whole, with its GSO header. */
static void test_tap_tx_tso(void)
{
    char ifname[IFNAMSIZ];
    g_autofree char *netdev = tap_netdev(ifname, "");
    uint8_t frame[TCP_HDRS + GSO_PAYLOAD], got[8192];
    uint8_t hdr[HDR_LEN] = { 1, 1 };    /* NEEDS_CSUM, GSO_TCPV4 */
    size_t len = make_ip_frame(frame, 6, GSO_PAYLOAD, 40000);
    int fd, ifindex;
    ssize_t n = -1;
    Rig r;

    if (!tap_usable()) {
        return;
    }
    rig_init(&r, netdev, NULL, BASE_FEATURES | F_HOST_TSO4);
    fd = tap_host_side_for(ifname, 0x0800, true, &ifindex);
    if (fd < 0) {
        g_test_skip("the tap interface cannot be brought up here");
        rig_end(&r);
        return;
    }
    hdr[2] = TCP_HDRS;          /* hdr_len */
    hdr[4] = GSO_SIZE & 0xff;
    hdr[5] = GSO_SIZE >> 8;
    hdr[6] = 34;                /* csum_start: the TCP header */
    hdr[8] = 16;                /* csum_offset: its checksum */
    tx_frame(&r, hdr, frame, len);
    for (int i = 0; i < 100; i++) {
        struct pollfd p = { .fd = fd, .events = POLLIN };

        if (poll(&p, 1, 50) == 1 &&
            (n = recv(fd, got, sizeof(got), 0)) > VNET_HDR_LEN + 34 &&
            got[VNET_HDR_LEN + 34] == 40000 >> 8) {
            break;
        }
    }
    g_assert_cmpint(n, ==, VNET_HDR_LEN + len);
    g_assert_cmphex(got[1] & 0x7f, ==, 1);                  /* TCPV4 */
    g_assert_cmpuint(got[4] | got[5] << 8, ==, GSO_SIZE);
    g_assert_cmpmem(got + VNET_HDR_LEN + 14, len - 14, frame + 14, len - 14);
    close(fd);
    rig_end(&r);
}

/* The TCP checksum over a frame's segment and pseudo-header: 0 if right. */
static uint16_t tcp_csum(const uint8_t *f, size_t len)
{
    g_autofree uint8_t *p = g_malloc0(12 + len - 34 + 1);
    size_t seg = len - 34;

    memcpy(p, f + 26, 8);       /* source, destination */
    p[9] = 6;
    p[10] = seg >> 8;
    p[11] = seg;
    memcpy(p + 12, f + 34, seg);
    return ip_csum(p, 12 + seg + (seg & 1));
}

/* Wait for one frame on vq posted at buf; its used length. */
static uint32_t rx_wait(Rig *r, QVirtQueue *vq)
{
    uint32_t ulen = 0;

    g_assert_true(wait_used(r, vq, NULL, &ulen));
    return ulen;
}

/*
 * A host GSO frame with a partial checksum: a driver with GUEST_TSO4
 * and GUEST_CSUM gets it whole, header and all; one without gets
 * finished segments of at most gso_size.
 */
static void test_tap_rx_offload(void)
{
    char ifname[IFNAMSIZ];
    g_autofree char *netdev = tap_netdev(ifname, "");
    uint8_t pkt[VNET_HDR_LEN + TCP_HDRS + GSO_PAYLOAD];
    uint8_t got[HDR_LEN + TCP_HDRS + GSO_PAYLOAD];
    size_t len = make_ip_frame(pkt + VNET_HDR_LEN, 6, GSO_PAYLOAD, 40001);
    struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6 };
    const uint64_t modes[] = { F_GUEST_CSUM | F_GUEST_TSO4, 0 };
    Rig r;

    if (!tap_usable()) {
        return;
    }
    memset(pkt, 0, VNET_HDR_LEN);
    pkt[0] = 1;                 /* NEEDS_CSUM */
    pkt[1] = 1;                 /* GSO_TCPV4 */
    pkt[2] = TCP_HDRS;
    pkt[4] = GSO_SIZE & 0xff;
    pkt[5] = GSO_SIZE >> 8;
    pkt[6] = 34;
    pkt[8] = 16;
    for (size_t m = 0; m < G_N_ELEMENTS(modes); m++) {
        unsigned frames = 0;
        size_t payload = 0;
        int fd, ifindex;

        rig_init(&r, netdev, NULL, BASE_FEATURES | modes[m]);
        fd = tap_host_side_for(ifname, 0x0800, true, &ifindex);
        if (fd < 0) {
            g_test_skip("the tap interface cannot be brought up here");
            rig_end(&r);
            return;
        }
        to.sll_ifindex = ifindex;
        memcpy(to.sll_addr, pkt + VNET_HDR_LEN, 6);
        g_assert_cmpint(sendto(fd, pkt, VNET_HDR_LEN + len, 0,
                               (struct sockaddr *)&to, sizeof(to)), ==,
                        VNET_HDR_LEN + len);
        /* Skip what else the host sends; ours is TCP from port 40001. */
        for (int i = 0; i < 32 && payload < GSO_PAYLOAD; i++) {
            uint64_t buf = rx_post(&r, sizeof(got));
            uint32_t ulen = rx_wait(&r, &r.rx);

            qtest_memread(r.s, buf, got, MIN(ulen, sizeof(got)));
            if (ulen < HDR_LEN + TCP_HDRS || got[HDR_LEN + 12] != 0x08 ||
                got[HDR_LEN + 23] != 6 ||
                (got[HDR_LEN + 34] << 8 | got[HDR_LEN + 35]) != 40001) {
                continue;
            }
            frames++;
            payload += ulen - HDR_LEN - TCP_HDRS;
            if (modes[m]) {
                g_assert_cmpuint(ulen, ==, HDR_LEN + len);
                g_assert_cmphex(got[1], ==, 1);     /* GSO_TCPV4 */
                g_assert_cmpuint(got[4] | got[5] << 8, ==, GSO_SIZE);
                g_assert_cmpmem(got + HDR_LEN + TCP_HDRS, GSO_PAYLOAD,
                                pkt + VNET_HDR_LEN + TCP_HDRS, GSO_PAYLOAD);
            } else {
                g_assert_cmphex(got[0] | got[1], ==, 0);
                g_assert_cmpuint(ulen, <=, HDR_LEN + TCP_HDRS + GSO_SIZE);
                g_assert_cmphex(tcp_csum(got + HDR_LEN, ulen - HDR_LEN), ==,
                                0);
            }
        }
        g_assert_cmpuint(payload, ==, GSO_PAYLOAD);
        g_assert_cmpuint(frames, ==, modes[m] ? 1 : 3);
        g_assert_cmphex(qvirtio_get_status(&r.dev) & 0x40, ==, 0);
        close(fd);
        rig_end(&r);
    }
}

/* Negotiate, then the queues of two pairs and the control queue at 4. */
static void rig_init_mq(Rig *r, const char *netdev)
{
    rig_init(r, netdev, ",mq=on", 0);
    g_assert_true(qvirtio_negotiate(&r->dev, BASE_FEATURES | F_MQ));
    qvirtqueue_setup(&r->dev, &r->rx, &r->alloc, 0, 0);
    qvirtqueue_setup(&r->dev, &r->tx, &r->alloc, 1, 0);
    qvirtqueue_setup(&r->dev, &r->rx1, &r->alloc, 2, 0);
    qvirtqueue_setup(&r->dev, &r->tx1, &r->alloc, 3, 0);
    qvirtqueue_setup(&r->dev, &r->ctrl, &r->alloc, 4, 0);
    qvirtio_set_driver_ok(&r->dev);
}

/*
 * 32 UDP flows from the host into the interface; how many reached each
 * receive queue. The kernel spreads flows over the attached queues.
 */
static void mq_flows(Rig *r, int nq, int fd, int ifindex,
                     uint64_t addr[2][256], unsigned got_on[2])
{
    struct sockaddr_ll to = { .sll_family = AF_PACKET, .sll_halen = 6,
                              .sll_ifindex = ifindex };
    uint8_t f[128], got[RX_BUF_LEN];
    QVirtQueue *vqs[2] = { &r->rx, &r->rx1 };
    unsigned seen = 0;

    /* 40 more buffers each; addr by head descriptor, across calls. */
    for (int q = 0; q < nq; q++) {
        for (int i = 0; i < 40; i++) {
            uint64_t a = buf_alloc(r, RX_BUF_LEN);
            uint16_t head = qvirtqueue_add(&r->dev, vqs[q], a, RX_BUF_LEN,
                                           true, false);

            addr[q][head % 256] = a;
            qvirtqueue_kick(&r->dev, vqs[q], head);
        }
    }
    got_on[0] = got_on[1] = 0;
    for (uint16_t port = 41000; port < 41032; port++) {
        size_t len = make_ip_frame(f, 17, 32, port);

        memcpy(to.sll_addr, f, 6);
        g_assert_cmpint(sendto(fd, f, len, 0, (struct sockaddr *)&to,
                               sizeof(to)), ==, len);
    }
    for (int i = 0; i < 3000 && seen < 32; i++) {
        for (int q = 0; q < nq; q++) {
            uint32_t id, ulen;

            while (qvirtqueue_get_buf(&r->dev, vqs[q], &id, &ulen)) {
                g_assert_cmphex(addr[q][id % 256], !=, 0);
                qtest_memread(r->s, addr[q][id % 256], got,
                              MIN(ulen, sizeof(got)));
                if (ulen > HDR_LEN + 36 && got[HDR_LEN + 23] == 17 &&
                    got[HDR_LEN + 36] == 5001 >> 8) {
                    got_on[q]++;
                    seen++;
                }
            }
        }
        g_usleep(1000);
    }
    g_assert_cmpuint(seen, ==, 32);
}

/*
 * queues=2 with mq=on: two pairs; with both in use traffic goes both
 * ways on pair 2 (the tap's second queue), with one the second queue is
 * detached and everything comes on the first; so without mq=on.
 */
static void test_tap_mq(void)
{
    char ifname[IFNAMSIZ];
    g_autofree char *netdev = tap_netdev(ifname, ",queues=2");
    uint8_t frame[100], got[2048];
    uint64_t addr[2][256] = { { 0 } };
    unsigned on[2];
    int fd, rx_fd, ifindex;
    ssize_t n = -1;
    Rig r;

    if (!tap_usable()) {
        return;
    }
    rig_init_mq(&r, netdev);
    g_assert_cmpuint(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 8, 2),
                     ==, 2);
    rx_fd = tap_host_side(ifname, &ifindex);
    fd = tap_host_side_for(ifname, 0x0800, false, &ifindex);
    if (fd < 0 || rx_fd < 0) {
        g_test_skip("the tap interface cannot be brought up here");
        rig_end(&r);
        return;
    }
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\2\0", 2), ==, 0);
    /* Guest to host on the second pair. */
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 11);
    tx_frame_on(&r, &r.tx1, NULL, frame, sizeof(frame));
    for (int i = 0; i < 100 && n != sizeof(frame); i++) {
        struct pollfd p = { .fd = rx_fd, .events = POLLIN };

        if (poll(&p, 1, 50) == 1) {
            n = recv(rx_fd, got, sizeof(got), 0);
        }
    }
    g_assert_cmpint(n, ==, sizeof(frame));
    g_assert_cmpmem(got, n, frame, sizeof(frame));
    /* Host to guest: spread over both pairs. */
    mq_flows(&r, 2, fd, ifindex, addr, on);
    g_assert_cmpuint(on[0], >, 0);
    g_assert_cmpuint(on[1], >, 0);
    /* One pair: the tap's second queue detached, all on the first. */
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\1\0", 2), ==, 0);
    mq_flows(&r, 2, fd, ifindex, addr, on);
    g_assert_cmpuint(on[1], ==, 0);
    close(fd);
    close(rx_fd);
    rig_end(&r);

    /* Without mq=on one pair, and the second queue gets no flows. */
    rig_init(&r, netdev, NULL, BASE_FEATURES);
    g_assert_cmpuint(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 8, 2),
                     ==, 1);
    fd = tap_host_side_for(ifname, 0x0800, false, &ifindex);
    g_assert_cmpint(fd, >=, 0);
    memset(addr, 0, sizeof(addr));
    mq_flows(&r, 1, fd, ifindex, addr, on);
    close(fd);
    rig_end(&r);
}

/* One queue of the multiqueue tap ifname, opened here (inherited). */
static int tap_queue_open(const char *ifname, short flags)
{
    struct ifreq ifr = { .ifr_flags = IFF_TAP | IFF_NO_PI | flags };
    int fd = open("/dev/net/tun", O_RDWR);

    g_assert_cmpint(fd, >=, 0);
    g_strlcpy(ifr.ifr_name, ifname, IFNAMSIZ);
    g_assert_cmpint(ioctl(fd, TUNSETIFF, &ifr), ==, 0);
    return fd;
}

/*
 * The emulator with args, fds inherited (libqtest closes them), QMP on
 * stdin given qmp; its exit status, stderr in *err.
 */
static int run_with_fds(const char *args, const char *qmp, char **err)
{
    g_autofree char *cmd = g_strdup_printf("%s %s -display none -qmp stdio",
                                           g_getenv("QTEST_QEMU_BINARY"),
                                           args);
    g_auto(GStrv) argv = g_strsplit(cmd, " ", 0);
    int in[2], errp[2], status;
    GString *out = g_string_new(NULL);
    char buf[512];
    ssize_t n;
    pid_t pid;

    g_assert_cmpint(pipe(in), ==, 0);
    g_assert_cmpint(pipe(errp), ==, 0);
    pid = fork();
    if (!pid) {
        dup2(in[0], 0);
        dup2(errp[1], 1);
        dup2(errp[1], 2);
        execv(argv[0], argv);
        _exit(127);
    }
    close(in[0]);
    close(errp[1]);
    g_assert_cmpint(write(in[1], qmp, strlen(qmp)), ==, strlen(qmp));
    while ((n = read(errp[0], buf, sizeof(buf))) > 0) {
        g_string_append_len(out, buf, n);
    }
    close(in[1]);
    close(errp[0]);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    *err = g_string_free(out, FALSE);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/*
 * fds=A:B, the caller's descriptors of one multiqueue tap (libvirt's
 * way): taken for the two queues of a mq=on NIC; descriptors that differ
 * in IFF_VNET_HDR refused as QEMU refuses them.
 */
static void test_tap_fds(void)
{
    char ifname[IFNAMSIZ];
    g_autofree char *unused = tap_netdev(ifname, "");
    g_autofree char *args = NULL, *want = NULL;
    char *out;
    int fds[3];

    if (!tap_usable()) {
        return;
    }
    if (!g_getenv("QTEST_QEMU_BINARY")) {
        g_test_skip("QTEST_QEMU_BINARY is not set");
        return;
    }
    fds[0] = tap_queue_open(ifname, IFF_MULTI_QUEUE | IFF_VNET_HDR);
    fds[1] = tap_queue_open(ifname, IFF_MULTI_QUEUE | IFF_VNET_HDR);
    /* IFF_VNET_HDR is the interface's: the odd one is another one. */
    ifname[0] = 'r';
    fds[2] = tap_queue_open(ifname, IFF_MULTI_QUEUE);
    args = g_strdup_printf("-nodefaults -machine pc,accel=qtest -netdev "
                           "tap,id=n0,fds=%d:%d -device virtio-net-pci,"
                           "netdev=n0,mq=on", fds[0], fds[1]);
    g_assert_cmpint(run_with_fds(args, "{\"execute\": \"qmp_capabilities\"}"
                                 "{\"execute\": \"quit\"}", &out), ==, 0);
    g_assert_null(strstr(out, "qemu-system-x86_64:"));
    g_assert_nonnull(strstr(out, "\"return\""));
    g_free(out);
    g_free(args);
    args = g_strdup_printf("-nodefaults -machine pc,accel=qtest -netdev "
                           "tap,id=n0,fds=%d:%d", fds[0], fds[2]);
    want = g_strdup_printf("qemu-system-x86_64: -netdev tap,id=n0,"
                           "fds=%d:%d: vnet_hdr not consistent across "
                           "given tap fds\n", fds[0], fds[2]);
    g_assert_cmpint(run_with_fds(args, "", &out), ==, 1);
    g_assert_nonnull(strstr(out, want));
    g_free(out);
    for (int i = 0; i < 3; i++) {
        close(fds[i]);
    }
}

static void test_tap_errors(void)
{
    static const char *const cases[][2] = {
        { "-netdev tap,id=n0,fd=3,ifname=x",
          "qemu-system-x86_64: -netdev tap,id=n0,fd=3,ifname=x: ifname=, "
          "script=, downscript=, vnet_hdr=, helper=, queues=, fds=, and "
          "vhostfds= are invalid with fd=\n" },
        { "-netdev tap,id=n0,vhost=on",
          "qemu-system-x86_64: -netdev tap,id=n0,vhost=on: vhost-net is not "
          "supported\n" },
        { "-netdev tap,id=n0,fd=9999",
          "qemu-system-x86_64: -netdev tap,id=n0,fd=9999: Invalid file "
          "descriptor number '9999'\n" },
        { "-netdev tap,id=n0,fd=3,vnet_hdr=on",
          "qemu-system-x86_64: -netdev tap,id=n0,fd=3,vnet_hdr=on: ifname=, "
          "script=, downscript=, vnet_hdr=, helper=, queues=, fds=, and "
          "vhostfds= are invalid with fd=\n" },
        { "-netdev tap,id=n0,fds=3:4,queues=2",
          "qemu-system-x86_64: -netdev tap,id=n0,fds=3:4,queues=2: ifname=, "
          "script=, downscript=, vnet_hdr=, helper=, queues=, and vhostfd= "
          "are invalid with fds=\n" },
        { "-netdev socket,id=n0,listen=:0,vnet_hdr=on",
          "qemu-system-x86_64: -netdev socket,id=n0,listen=:0,vnet_hdr=on: "
          "Invalid parameter 'vnet_hdr'\n" },
        { "-net tap,queues=2,script=no,downscript=no",
          "qemu-system-x86_64: -net tap,queues=2,script=no,downscript=no: "
          "Multiqueue tap cannot be used with hubs\n" },
        { "-netdev tap,id=n0,ifname=x,script=/nonexistent,downscript=no",
          NULL },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *args = g_strdup_printf("-nodefaults %s",
                                                cases[i][0]);
        QTestState *s = qtest_init_without_qmp_handshake(args);
        int status = qtest_wait_exit(s);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        if (cases[i][1]) {
            g_assert_cmpstr(qtest_stderr(s), ==, cases[i][1]);
        } else {
            g_assert_true(strstr(qtest_stderr(s), "network script "
                                 "/nonexistent") ||
                          strstr(qtest_stderr(s), "/dev/net/tun"));
        }
        qtest_quit(s);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/virtio-net/tap", test_tap);
    qtest_add_func("/virtio-net/tap-errors", test_tap_errors);
    qtest_add_func("/virtio-net/tap/vnet-hdr", test_tap_vnet_hdr);
    qtest_add_func("/virtio-net/tap/tx-tso", test_tap_tx_tso);
    qtest_add_func("/virtio-net/tap/rx-offload", test_tap_rx_offload);
    qtest_add_func("/virtio-net/tap/mq", test_tap_mq);
    qtest_add_func("/virtio-net/tap/fds", test_tap_fds);
    return g_test_run();
}
