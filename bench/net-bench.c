/*
 * The benchmark driver of bench/net.py (not a test): the qtest virtio
 * driver moves frames through virtio-net-pci and -netdev socket (or
 * user) for a while and prints what it moved. The same driver runs
 * against any binary: QTEST_QEMU_BINARY names it, QTEST_ACCEL=tcg for
 * one without the qtest accelerator (Debian's QEMU 7.2).
 *
 *   net-bench tx|rx|user-tx|user-rx SIZE SECONDS
 *   -> "packets N bytes B seconds S cpu C taken T dropped D"
 *
 * packets: frames delivered (tx: counted at the socket; rx: used
 * receive buffers); cpu: the emulator's utime + stime over the run;
 * taken: tx chains the device used (0 for rx); dropped: datagrams the
 * kernel dropped at the bench's UDP socket for a full receive buffer
 * (user-tx; else 0), so a sender faster than the reader shows.
 *
 * tx: the guest side keeps the whole TX ring (256 chains, each the
 * 12-byte header and SIZE bytes) published, republishing every chain
 * the device has used, while a thread reads the socket. rx: a thread
 * writes SIZE-byte frames into the socket as fast as it takes them and
 * the guest side keeps 256 receive buffers posted. Per round the
 * driver writes one avail index and kicks once, so the qtest protocol
 * costs little next to the device and the backend.
 *
 * user-tx: the frames are UDP datagrams from 10.0.2.15 to 10.0.2.2,
 * which slirp sends from a host socket to the bench's UDP socket on
 * 127.0.0.1; what arrives there is counted. user-rx: after an ARP
 * request that tells slirp the guest's MAC, a thread sends datagrams to
 * a hostfwd=udp port, and slirp delivers them as SIZE-byte frames; the
 * sender keeps at most USER_RX_WINDOW of them in flight.
 */
#include <arpa/inet.h>
#include <linux/sock_diag.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "libqvirtio.h"

#define NET_DEVICE_ID   0x1041
#define HDR_LEN         12
#define RING            256
#define F_MAC           (1ULL << 5)
#define UDP_HDRS        (14 + 20 + 8)
/*
 * user-rx: datagrams sent but not yet seen by the guest side at most.
 * A UDP sender never blocks, so an unpaced one spins on a CPU the
 * emulator needs and overflows slirp's socket (its drops are counted
 * nowhere); 64 datagrams fit slirp's default receive buffer.
 */
#define USER_RX_WINDOW  64

static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t slirp_mac[6] = { 0x52, 0x55, 0x0a, 0x00, 0x02, 0x02 };

typedef struct Bench {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue rx, tx;
    QGuestAlloc alloc;
    int fd;
    bool user;                  /* -netdev user: UDP datagrams */
    size_t size;
    volatile bool stop;
    uint64_t frames;            /* counted by the socket thread */
    uint64_t delivered;         /* user-rx: frames the guest side saw */
} Bench;

/* A UDP socket on 127.0.0.1 (port 0: any); its port in *port. */
static int udp_loopback(int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    int rcvbuf = 64 << 20;

    /*
     * Beyond rmem_max where allowed (root): a sender that outruns the
     * reader for a while (the two share two CPUs with the driver) must
     * not lose datagrams: 64 MiB hold ~0.1 s of 1500-byte frames.
     */
    if (setsockopt(fd, SOL_SOCKET, SO_RCVBUFFORCE, &rcvbuf,
                   sizeof(rcvbuf)) < 0) {
        setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf));
    }
    g_assert_cmpint(bind(fd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&a, &len), ==, 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* Datagrams the kernel dropped at fd so far (receive buffer full). */
static uint32_t udp_drops(int fd)
{
    uint32_t info[SK_MEMINFO_VARS] = { 0 };
    socklen_t len = sizeof(info);

    if (getsockopt(fd, SOL_SOCKET, SO_MEMINFO, info, &len) < 0 ||
        len <= SK_MEMINFO_DROPS * sizeof(uint32_t)) {
        return 0;
    }
    return info[SK_MEMINFO_DROPS];
}

static uint16_t ip_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 0; i + 1 < len; i += 2) {
        sum += p[i] << 8 | p[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}

/* A SIZE-byte UDP frame from 10.0.2.15:5000 to 10.0.2.2:port. */
static void udp_frame(uint8_t *f, size_t size, int port)
{
    static const uint8_t addrs[8] = { 10, 0, 2, 15, 10, 0, 2, 2 };
    uint8_t *ip = f + 14, *udp = ip + 20;
    uint16_t c;

    memcpy(f, slirp_mac, 6);
    memcpy(f + 6, guest_mac, 6);
    f[12] = 0x08;
    ip[0] = 0x45;
    ip[2] = (size - 14) >> 8;
    ip[3] = size - 14;
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, addrs, 8);
    c = ip_csum(ip, 20);
    ip[10] = c >> 8;
    ip[11] = c;
    udp[0] = 5000 >> 8;
    udp[1] = 5000 & 0xff;
    udp[2] = port >> 8;
    udp[3] = port;
    udp[4] = (size - 34) >> 8;
    udp[5] = size - 34;         /* checksum 0: none */
}

/* ARP "who has 10.0.2.2, tell 10.0.2.15": slirp learns our MAC. */
static void arp_request(uint8_t *f)
{
    static const uint8_t head[8] = { 0, 1, 8, 0, 6, 4, 0, 1 };
    static const uint8_t ips[2][4] = { { 10, 0, 2, 15 }, { 10, 0, 2, 2 } };

    memset(f, 0xff, 6);
    memcpy(f + 6, guest_mac, 6);
    f[12] = 0x08;
    f[13] = 0x06;
    memcpy(f + 14, head, 8);
    memcpy(f + 22, guest_mac, 6);
    memcpy(f + 28, ips[0], 4);
    memcpy(f + 38, ips[1], 4);
}

static int listen_loopback(int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    g_assert_cmpint(bind(fd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    g_assert_cmpint(listen(fd, 1), ==, 0);
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&a, &len), ==, 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* The socket side of tx: count framed packets until told to stop. */
static gpointer reader(gpointer opaque)
{
    Bench *b = opaque;
    g_autofree uint8_t *buf = g_malloc(1 << 20);
    size_t have = 0;

    while (b->user && !b->stop) {
        /* Datagrams in batches: the reader costs little CPU. */
        struct mmsghdr msgs[64];
        struct iovec iov[64];
        int n;

        for (unsigned i = 0; i < 64; i++) {
            iov[i] = (struct iovec){ buf + i * 2048, 2048 };
            msgs[i] = (struct mmsghdr){ .msg_hdr = { .msg_iov = &iov[i],
                                                     .msg_iovlen = 1 } };
        }
        n = recvmmsg(b->fd, msgs, 64, MSG_WAITFORONE, NULL);
        if (n <= 0) {
            break;
        }
        __atomic_add_fetch(&b->frames, n, __ATOMIC_RELAXED);
    }
    while (!b->user && !b->stop) {
        ssize_t n = recv(b->fd, buf + have, (1 << 20) - have, 0);
        size_t off = 0;

        if (n <= 0) {
            break;
        }
        have += n;
        while (have - off >= 4) {
            uint32_t len = (uint32_t)buf[off] << 24 | buf[off + 1] << 16 |
                           buf[off + 2] << 8 | buf[off + 3];

            if (have - off - 4 < len) {
                break;
            }
            off += 4 + len;
            __atomic_add_fetch(&b->frames, 1, __ATOMIC_RELAXED);
        }
        memmove(buf, buf + off, have - off);
        have -= off;
    }
    return NULL;
}

/* The socket side of rx: frames as fast as the socket takes them. */
static gpointer writer(gpointer opaque)
{
    Bench *b = opaque;
    size_t one = 4 + b->size, n = 64;
    g_autofree uint8_t *buf = g_malloc0(one * n);

    for (uint64_t sent = 0, lost = 0, waited = 0; b->user && !b->stop;) {
        uint64_t seen = __atomic_load_n(&b->delivered, __ATOMIC_RELAXED);

        if (sent - lost - seen >= USER_RX_WINDOW) {
            if (waited++ < 50) {
                g_usleep(20);
                continue;
            }
            /* ~1 ms without progress: what is in flight got lost. */
            lost = sent - seen;
        }
        waited = 0;
        /* Datagrams to hostfwd; slirp adds the 42 bytes of headers. */
        if (send(b->fd, buf, b->size - UDP_HDRS, MSG_NOSIGNAL) < 0 &&
            errno != ENOBUFS && errno != EAGAIN) {
            break;
        }
        sent++;
    }
    for (size_t i = 0; i < n; i++) {
        uint8_t *f = buf + i * one;

        f[0] = b->size >> 24;
        f[1] = b->size >> 16;
        f[2] = b->size >> 8;
        f[3] = b->size;
        memset(f + 4, 0xff, 6);             /* broadcast */
        f[4 + 12] = 0x88;
        f[4 + 13] = 0xb5;
    }
    while (!b->stop) {
        if (send(b->fd, buf, one * n, MSG_NOSIGNAL) < 0) {
            break;
        }
    }
    return NULL;
}

/* Every descriptor i of vq is the buffer at base + i * stride. */
static void ring_fill(Bench *b, QVirtQueue *vq, uint64_t base,
                      uint32_t stride, uint32_t len, bool write)
{
    g_autofree uint8_t *desc = g_malloc0(16 * RING);
    g_autofree uint16_t *avail = g_malloc0(2 * RING);

    for (unsigned i = 0; i < RING; i++) {
        uint64_t addr = base + (uint64_t)i * stride;
        uint16_t flags = write ? QVRING_DESC_F_WRITE : 0;

        memcpy(desc + 16 * i, &addr, 8);
        memcpy(desc + 16 * i + 8, &len, 4);
        memcpy(desc + 16 * i + 12, &flags, 2);
        avail[i] = i;
    }
    qtest_memwrite(b->s, vq->desc, desc, 16 * RING);
    qtest_memwrite(b->s, vq->avail + 4, avail, 2 * RING);
}

static void ring_publish(Bench *b, QVirtQueue *vq, uint16_t n)
{
    vq->avail_idx += n;
    qtest_writew(b->s, vq->avail + 2, vq->avail_idx);
    qpci_bar_write(b->s, &b->dev.bar,
                   b->dev.notify + (uint64_t)vq->notify_off *
                   b->dev.notify_mult, vq->index, 2);
}

static uint16_t used_idx(Bench *b, QVirtQueue *vq)
{
    return qtest_readw(b->s, vq->used + 2);
}

int main(int argc, char **argv)
{
    Bench b = { 0 };
    g_autofree char *args = NULL;
    QVirtQueue *vq;
    GThread *thread;
    uint64_t packets = 0, taken = 0, base;
    uint32_t drops0 = 0, drops = 0;
    uint16_t seen;
    gint64 t0, t1;
    double seconds, cpu0, cpu1;
    const char *mode = argv[1];
    int port, lfd = -1;

    if (argc != 4 || (strcmp(mode, "tx") && strcmp(mode, "rx") &&
                      strcmp(mode, "user-tx") && strcmp(mode, "user-rx"))) {
        fprintf(stderr, "usage: net-bench tx|rx|user-tx|user-rx SIZE "
                "SECONDS\n");
        return 2;
    }
    b.size = strtoul(argv[2], NULL, 0);
    seconds = strtod(argv[3], NULL);
    b.user = g_str_has_prefix(mode, "user-");
    if (b.size < 60 || b.size > (b.user ? 1514 : 65536) || seconds <= 0) {
        fprintf(stderr, "net-bench: SIZE 60..65536 (user: ..1514), "
                "SECONDS > 0\n");
        return 2;
    }
    if (b.user) {
        mode += 5;
        b.fd = udp_loopback(&port);
        if (!strcmp(mode, "rx")) {
            /* A free port for hostfwd, then the sender's socket. */
            close(b.fd);
            b.fd = udp_loopback(&port);
            close(b.fd);
            args = g_strdup_printf("-netdev user,id=n0,hostfwd=udp:"
                                   "127.0.0.1:%d-10.0.2.15:7", port);
            b.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        } else {
            args = g_strdup("-netdev user,id=n0");
        }
    } else {
        lfd = listen_loopback(&port);
        args = g_strdup_printf("-netdev socket,id=n0,connect=127.0.0.1:%d",
                               port);
    }
    {
        g_autofree char *full = g_strdup_printf(
            "-nodefaults -m 256 %s -device virtio-net-pci,netdev=n0,"
            "disable-legacy=on,mac=52:54:00:12:34:56", args);

        b.s = qtest_init(full);
    }
    if (!b.user) {
        b.fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    } else if (!strcmp(mode, "rx")) {
        struct sockaddr_in to = { .sin_family = AF_INET,
                                  .sin_port = htons(port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };

        g_assert_cmpint(connect(b.fd, (struct sockaddr *)&to, sizeof(to)),
                        ==, 0);
    }
    g_assert_cmpint(b.fd, >=, 0);
    qalloc_init(&b.alloc, 0x100000, 0x8000000);
    g_assert_true(qvirtio_pci_find(b.s, NET_DEVICE_ID, &b.dev));
    g_assert_true(qvirtio_negotiate(&b.dev, QVIRTIO_F_VERSION_1 | F_MAC));
    qvirtqueue_setup(&b.dev, &b.rx, &b.alloc, 0, RING);
    qvirtqueue_setup(&b.dev, &b.tx, &b.alloc, 1, RING);
    qvirtio_set_driver_ok(&b.dev);

    base = qalloc(&b.alloc, (uint64_t)RING * (HDR_LEN + b.size), 4096);
    if (!strcmp(mode, "tx")) {
        g_autofree uint8_t *one = g_malloc0(HDR_LEN + b.size);

        vq = &b.tx;
        if (b.user) {
            udp_frame(one + HDR_LEN, b.size, port);
        } else {
            memset(one + HDR_LEN, 0xff, 6);
            one[HDR_LEN + 12] = 0x88;
            one[HDR_LEN + 13] = 0xb5;
        }
        for (unsigned i = 0; i < RING; i++) {
            qtest_memwrite(b.s, base + i * (HDR_LEN + b.size), one,
                           HDR_LEN + b.size);
        }
        ring_fill(&b, vq, base, HDR_LEN + b.size, HDR_LEN + b.size, false);
        thread = g_thread_new("reader", reader, &b);
    } else {
        vq = &b.rx;
        if (b.user) {
            uint8_t arp[HDR_LEN + 60] = { 0 };
            uint64_t a = qalloc(&b.alloc, sizeof(arp), 64);
            uint16_t head;

            arp_request(arp + HDR_LEN);
            qtest_memwrite(b.s, a, arp, sizeof(arp));
            head = qvirtqueue_add(&b.dev, &b.tx, a, sizeof(arp), false,
                                  false);
            qvirtqueue_kick(&b.dev, &b.tx, head);
        }
        ring_fill(&b, vq, base, HDR_LEN + b.size, HDR_LEN + b.size, true);
        thread = g_thread_new("writer", writer, &b);
    }

    seen = used_idx(&b, vq);
    if (b.user && vq == &b.tx) {
        drops0 = udp_drops(b.fd);
    }
    cpu0 = qtest_cpu_seconds(b.s);
    t0 = g_get_monotonic_time();
    ring_publish(&b, vq, RING);
    do {
        uint16_t now = used_idx(&b, vq);
        uint16_t done = now - seen;

        if (done) {
            packets += done;
            __atomic_store_n(&b.delivered, packets, __ATOMIC_RELAXED);
            seen = now;
            /* The used chains are free again: the same slots, in order. */
            ring_publish(&b, vq, done);
        }
        t1 = g_get_monotonic_time();
    } while (t1 - t0 < seconds * 1e6);
    cpu1 = qtest_cpu_seconds(b.s);
    if (b.user && vq == &b.tx) {
        drops = udp_drops(b.fd) - drops0;
    }
    b.stop = true;
    shutdown(b.fd, SHUT_RDWR);
    g_thread_join(thread);
    if (vq == &b.tx) {
        /* What reached the socket, not what the device took. */
        taken = packets;
        packets = __atomic_load_n(&b.frames, __ATOMIC_RELAXED);
    }
    printf("packets %" G_GUINT64_FORMAT " bytes %" G_GUINT64_FORMAT
           " seconds %.3f cpu %.3f taken %" G_GUINT64_FORMAT " dropped %u\n",
           packets, packets * b.size, (t1 - t0) / 1e6, cpu1 - cpu0, taken,
           drops);
    qtest_quit(b.s);
    close(b.fd);
    if (lfd >= 0) {
        close(lfd);
    }
    return 0;
}
