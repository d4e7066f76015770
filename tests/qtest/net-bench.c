/*
 * The benchmark driver of bench/net.py (not a test): the qtest virtio
 * driver moves frames through virtio-net-pci and -netdev socket for a
 * while and prints what it moved. The same driver runs against any
 * binary: QTEST_QEMU_BINARY names it, QTEST_ACCEL=tcg for one without
 * the qtest accelerator (Debian's QEMU 7.2).
 *
 *   net-bench tx|rx SIZE SECONDS
 *   -> "packets N bytes B seconds S"
 *
 * tx: the guest side keeps the whole TX ring (256 chains, each the
 * 12-byte header and SIZE bytes) published, republishing every chain
 * the device has used, while a thread reads the socket. rx: a thread
 * writes SIZE-byte frames into the socket as fast as it takes them and
 * the guest side keeps 256 receive buffers posted. Per round the
 * driver writes one avail index and kicks once, so the qtest protocol
 * costs little next to the device and the backend.
 */
#include <arpa/inet.h>
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

typedef struct Bench {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue rx, tx;
    QGuestAlloc alloc;
    int fd;
    size_t size;
    volatile bool stop;
    uint64_t frames;            /* counted by the socket thread */
} Bench;

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

    while (!b->stop) {
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
    uint64_t packets = 0, base;
    uint16_t seen;
    gint64 t0, t1;
    double seconds;
    int port, lfd;

    if (argc != 4 || (strcmp(argv[1], "tx") && strcmp(argv[1], "rx"))) {
        fprintf(stderr, "usage: net-bench tx|rx SIZE SECONDS\n");
        return 2;
    }
    b.size = strtoul(argv[2], NULL, 0);
    seconds = strtod(argv[3], NULL);
    if (b.size < 60 || b.size > 65536 || seconds <= 0) {
        fprintf(stderr, "net-bench: SIZE 60..65536, SECONDS > 0\n");
        return 2;
    }
    lfd = listen_loopback(&port);
    args = g_strdup_printf("-nodefaults -m 256 -netdev socket,id=n0,"
                           "connect=127.0.0.1:%d -device virtio-net-pci,"
                           "netdev=n0,disable-legacy=on,"
                           "mac=52:54:00:12:34:56", port);
    b.s = qtest_init(args);
    b.fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
    g_assert_cmpint(b.fd, >=, 0);
    qalloc_init(&b.alloc, 0x100000, 0x8000000);
    g_assert_true(qvirtio_pci_find(b.s, NET_DEVICE_ID, &b.dev));
    g_assert_true(qvirtio_negotiate(&b.dev, QVIRTIO_F_VERSION_1 | F_MAC));
    qvirtqueue_setup(&b.dev, &b.rx, &b.alloc, 0, RING);
    qvirtqueue_setup(&b.dev, &b.tx, &b.alloc, 1, RING);
    qvirtio_set_driver_ok(&b.dev);

    base = qalloc(&b.alloc, (uint64_t)RING * (HDR_LEN + b.size), 4096);
    if (!strcmp(argv[1], "tx")) {
        g_autofree uint8_t *one = g_malloc0(HDR_LEN + b.size);

        vq = &b.tx;
        memset(one + HDR_LEN, 0xff, 6);
        one[HDR_LEN + 12] = 0x88;
        one[HDR_LEN + 13] = 0xb5;
        for (unsigned i = 0; i < RING; i++) {
            qtest_memwrite(b.s, base + i * (HDR_LEN + b.size), one,
                           HDR_LEN + b.size);
        }
        ring_fill(&b, vq, base, HDR_LEN + b.size, HDR_LEN + b.size, false);
        thread = g_thread_new("reader", reader, &b);
    } else {
        vq = &b.rx;
        ring_fill(&b, vq, base, HDR_LEN + b.size, HDR_LEN + b.size, true);
        thread = g_thread_new("writer", writer, &b);
    }

    seen = used_idx(&b, vq);
    t0 = g_get_monotonic_time();
    ring_publish(&b, vq, RING);
    do {
        uint16_t now = used_idx(&b, vq);
        uint16_t done = now - seen;

        if (done) {
            packets += done;
            seen = now;
            /* The used chains are free again: the same slots, in order. */
            ring_publish(&b, vq, done);
        }
        t1 = g_get_monotonic_time();
    } while (t1 - t0 < seconds * 1e6);
    b.stop = true;
    shutdown(b.fd, SHUT_RDWR);
    g_thread_join(thread);
    if (vq == &b.tx) {
        /* What reached the socket, not what the device took. */
        packets = __atomic_load_n(&b.frames, __ATOMIC_RELAXED);
    }
    printf("packets %" G_GUINT64_FORMAT " bytes %" G_GUINT64_FORMAT
           " seconds %.3f\n", packets, packets * b.size, (t1 - t0) / 1e6);
    qtest_quit(b.s);
    close(b.fd);
    close(lfd);
    return 0;
}
