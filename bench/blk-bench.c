/*
 * The benchmark driver of bench/blk.py (not a test; meson runs it once
 * briefly as a smoke test): the qtest virtio driver keeps DEPTH
 * virtio-blk requests of BS bytes in flight against a raw image for
 * SECONDS and prints what completed and the emulator's CPU time. The
 * same driver runs against any binary: QTEST_QEMU_BINARY names it,
 * QTEST_ACCEL=tcg for one without the qtest accelerator (Debian's QEMU
 * 7.2).
 *
 *   blk-bench IMAGE randread|randwrite|read|write BS DEPTH SECONDS AIO
 *             [FORMAT]
 *   -> "requests N bytes B seconds S cpu C"
 *
 * C is the emulator's user + system time over the measured interval,
 * in seconds (/proc/PID/stat). AIO is the -drive aio= value (threads,
 * io_uring); the drive has cache=none. FORMAT is raw (the default) or
 * qcow2 (the disk's size is then the header's). Request i always uses
 * descriptors 3i..3i+2 (header, data, status); the driver polls the
 * used index and per round re-publishes what completed (random: at a
 * new offset; sequential: at the next one) with one avail write and
 * one kick. Interrupts are suppressed (VRING_AVAIL_F_NO_INTERRUPT), so
 * the emulator's CPU time includes answering the polls, the same
 * protocol cost for both binaries.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "libqvirtio.h"

#define BLK_DEVICE_ID       0x1042
#define RING                128
#define MAX_DEPTH           (RING / 3)
#define T_IN                0
#define T_OUT               1
#define AVAIL_F_NO_INTERRUPT 1

typedef struct Bench {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue vq;
    QGuestAlloc alloc;
    uint64_t hdrs, statuses, data;
    uint32_t bs;
    unsigned depth;
    bool random, write;
    uint64_t sectors;           /* image size in 512-byte sectors */
    uint64_t next_sector;       /* sequential */
} Bench;

/* Aim request i at its next offset: header type and sector. */
static void aim(Bench *b, unsigned i)
{
    uint64_t per = b->bs / 512, sector;
    uint8_t hdr[16] = { 0 };

    if (b->random) {
        sector = (g_random_int() % (b->sectors / per)) * per;
    } else {
        sector = b->next_sector;
        b->next_sector = (b->next_sector + per) % (b->sectors / per * per);
    }
    hdr[0] = b->write ? T_OUT : T_IN;
    memcpy(hdr + 8, &sector, 8);
    qtest_memwrite(b->s, b->hdrs + 16 * i, hdr, sizeof(hdr));
}

static void chains_init(Bench *b)
{
    for (unsigned i = 0; i < b->depth; i++) {
        unsigned d = 3 * i;

        qvirtqueue_set_desc(&b->dev, &b->vq, d, b->hdrs + 16 * i, 16,
                            QVRING_DESC_F_NEXT, d + 1);
        qvirtqueue_set_desc(&b->dev, &b->vq, d + 1,
                            b->data + (uint64_t)b->bs * i, b->bs,
                            QVRING_DESC_F_NEXT |
                            (b->write ? 0 : QVRING_DESC_F_WRITE), d + 2);
        qvirtqueue_set_desc(&b->dev, &b->vq, d + 2, b->statuses + i, 1,
                            QVRING_DESC_F_WRITE, 0);
        aim(b, i);
    }
}

/* Put heads[0..n) in the avail ring, then one index write and a kick. */
static void publish(Bench *b, const uint16_t *heads, unsigned n)
{
    QVirtQueue *vq = &b->vq;

    for (unsigned k = 0; k < n;) {
        unsigned slot = (vq->avail_idx + k) % vq->size;
        unsigned run = MIN(n - k, vq->size - slot);

        qtest_memwrite(b->s, vq->avail + 4 + 2 * slot, heads + k, 2 * run);
        k += run;
    }
    vq->avail_idx += n;
    qtest_writew(b->s, vq->avail + 2, vq->avail_idx);
    qpci_bar_write(b->s, &b->dev.bar, b->dev.notify +
                   (uint64_t)vq->notify_off * b->dev.notify_mult,
                   vq->index, 2);
}

/* The heads of the chains used since the last call. */
static unsigned collect(Bench *b, uint16_t *heads)
{
    QVirtQueue *vq = &b->vq;
    uint16_t now = qtest_readw(b->s, vq->used + 2);
    unsigned n = (uint16_t)(now - vq->last_used);
    uint32_t ring[2 * RING];

    for (unsigned k = 0; k < n;) {
        unsigned slot = (vq->last_used + k) % vq->size;
        unsigned run = MIN(n - k, vq->size - slot);

        qtest_memread(b->s, vq->used + 4 + 8 * slot, ring, 8 * run);
        for (unsigned j = 0; j < run; j++) {
            heads[k + j] = ring[2 * j];
        }
        k += run;
    }
    vq->last_used = now;
    return n;
}

int main(int argc, char **argv)
{
    Bench b = { 0 };
    g_autofree char *args = NULL;
    g_autofree uint8_t *st = NULL;
    uint16_t heads[RING];
    uint64_t requests = 0, img_size;
    double seconds, cpu0, cpu1;
    gint64 t0, t1;
    const char *mode, *format = argc > 7 ? argv[7] : "raw";

    if (argc != 7 && argc != 8) {
        fprintf(stderr, "usage: blk-bench IMAGE randread|randwrite|read|"
                "write BS DEPTH SECONDS AIO [raw|qcow2]\n");
        return 2;
    }
    mode = argv[2];
    b.random = g_str_has_prefix(mode, "rand");
    b.write = g_str_has_suffix(mode, "write");
    b.bs = strtoul(argv[3], NULL, 0);
    b.depth = strtoul(argv[4], NULL, 0);
    seconds = strtod(argv[5], NULL);
    if (!g_file_test(argv[1], G_FILE_TEST_IS_REGULAR) ||
        (!b.write && !g_str_has_suffix(mode, "read")) ||
        b.bs < 512 || b.bs % 512 || b.bs > 4 << 20 ||
        b.depth < 1 || b.depth > MAX_DEPTH || seconds <= 0) {
        fprintf(stderr, "blk-bench: IMAGE a file, BS a multiple of 512 up "
                "to 4 MiB, DEPTH 1..%d, SECONDS > 0\n", MAX_DEPTH);
        return 2;
    }
    {
        g_autoptr(GMappedFile) f = g_mapped_file_new(argv[1], FALSE, NULL);

        img_size = f ? g_mapped_file_get_length(f) : 0;
        if (f && !strcmp(format, "qcow2") && img_size >= 32) {
            /* The virtual size: bytes 24-31 of the header, big-endian. */
            const uint8_t *h = (const uint8_t *)g_mapped_file_get_contents(f);

            img_size = 0;
            for (int i = 24; i < 32; i++) {
                img_size = img_size << 8 | h[i];
            }
        }
    }
    b.sectors = img_size / 512;
    if (b.sectors < (uint64_t)b.bs / 512) {
        fprintf(stderr, "blk-bench: the image is smaller than BS\n");
        return 2;
    }
    args = g_strdup_printf("-nodefaults -m 512 -drive file=%s,format=%s,"
                           "if=none,id=d0,cache=none,aio=%s -device "
                           "virtio-blk-pci,drive=d0,disable-legacy=on,"
                           "num-queues=1", argv[1], format, argv[6]);
    b.s = qtest_init(args);
    qalloc_init(&b.alloc, 0x100000, 0x1f000000);
    g_assert_true(qvirtio_pci_find(b.s, BLK_DEVICE_ID, &b.dev));
    g_assert_true(qvirtio_negotiate(&b.dev, QVIRTIO_F_VERSION_1));
    qvirtqueue_setup(&b.dev, &b.vq, &b.alloc, 0, RING);
    qvirtio_set_driver_ok(&b.dev);
    qtest_writew(b.s, b.vq.avail, AVAIL_F_NO_INTERRUPT);
    b.hdrs = qalloc(&b.alloc, 16 * b.depth, 16);
    b.statuses = qalloc(&b.alloc, b.depth, 16);
    b.data = qalloc(&b.alloc, (uint64_t)b.bs * b.depth, 4096);
    chains_init(&b);

    for (unsigned i = 0; i < b.depth; i++) {
        heads[i] = 3 * i;
    }
    cpu0 = qtest_cpu_seconds(b.s);
    t0 = g_get_monotonic_time();
    publish(&b, heads, b.depth);
    do {
        unsigned n = collect(&b, heads);

        if (n) {
            requests += n;
            for (unsigned k = 0; k < n; k++) {
                aim(&b, heads[k] / 3);
            }
            publish(&b, heads, n);
        }
        t1 = g_get_monotonic_time();
    } while (t1 - t0 < seconds * 1e6);
    cpu1 = qtest_cpu_seconds(b.s);
    /* Every request that completed said OK (0, also what RAM held). */
    st = g_malloc(b.depth);
    qtest_memread(b.s, b.statuses, st, b.depth);
    for (unsigned i = 0; i < b.depth; i++) {
        if (st[i] != 0) {
            fprintf(stderr, "blk-bench: request %u status %u\n", i, st[i]);
            return 1;
        }
    }
    printf("requests %" G_GUINT64_FORMAT " bytes %" G_GUINT64_FORMAT
           " seconds %.3f cpu %.3f\n", requests, requests * b.bs,
           (t1 - t0) / 1e6, cpu1 - cpu0);
    qtest_quit(b.s);
    return 0;
}
