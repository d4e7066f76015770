/*
 * qtest for virtio-blk-pci on a raw image through libqvirtio: config
 * (capacity, block size, features), reads and writes checked against
 * the image file, flush, GET_ID (serial), discard, write-zeroes, every
 * cache= mode, read-only drives, requests beyond the end or misaligned
 * (IOERR, the image untouched), unknown types (UNSUPP), a request with
 * no status byte (NEEDS_RESET), -drive if=virtio, -blockdev, the
 * counts of query-blockstats, query-named-block-nodes, block_resize (the
 * capacity and a config interrupt), aio=native, werror= on a full
 * tmpfs (stop holds the request until "cont", report and ignore),
 * blockdev-add and blockdev-del, request merging (wr_merged, rd_merged),
 * aio=io_uring completing at the kick, and the command line's errors for
 * bad images. Runs against QEMU 7.2 as well
 * (QTEST_ACCEL=tcg); the error wording checks are this emulator's.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libqvirtio.h"

#define BLK_DEVICE_ID   0x1042
#define IMG_SECTORS     2048
#define IMG_SIZE        (IMG_SECTORS * 512)
#define REQ_BASE        0x200000ull
#define DATA_BASE       0x300000ull

#define T_IN            0
#define T_OUT           1
#define T_FLUSH         4
#define T_GET_ID        8
#define T_DISCARD       11
#define T_WRITE_ZEROES  13

#define S_OK            0
#define S_IOERR         1
#define S_UNSUPP        2

#define F_RO            (1ULL << 5)
#define F_BLK_SIZE      (1ULL << 6)
#define F_FLUSH         (1ULL << 9)
#define F_DISCARD       (1ULL << 13)
#define F_WRITE_ZEROES  (1ULL << 14)

typedef struct Blk {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue vq;
    QGuestAlloc alloc;
    char *img;
} Blk;

/* An image whose byte i of sector n is (n * 7 + i) & 0xff. */
static char *make_image(void)
{
    char *path = g_strdup("virtio-blk-test-XXXXXX");
    int fd = g_mkstemp(path);
    g_autofree uint8_t *buf = g_malloc(IMG_SIZE);

    g_assert_cmpint(fd, >=, 0);
    for (int i = 0; i < IMG_SIZE; i++) {
        buf[i] = (i / 512 * 7 + i % 512) & 0xff;
    }
    g_assert_cmpint(write(fd, buf, IMG_SIZE), ==, IMG_SIZE);
    close(fd);
    return path;
}

/* fmt: the block and device options; the word IMG becomes img. */
static void blk_start_va(Blk *b, char *img, const char *fmt, va_list ap)
{
    g_autofree char *opts = NULL, *args = NULL;
    g_auto(GStrv) parts = NULL;

    memset(b, 0, sizeof(*b));
    b->img = img;
    opts = g_strdup_vprintf(fmt, ap);
    parts = g_strsplit(opts, "IMG", -1);
    g_free(opts);
    opts = g_strjoinv(b->img, parts);
    args = g_strdup_printf("-nodefaults %s", opts);
    qpci_alloc_reset();
    b->s = qtest_init(args);
    qalloc_init(&b->alloc, 0x100000, 0x200000);
    g_assert_true(qvirtio_pci_find(b->s, BLK_DEVICE_ID, &b->dev));
    g_assert_true(qvirtio_negotiate(&b->dev, QVIRTIO_F_VERSION_1 | F_FLUSH |
                                    F_BLK_SIZE | F_DISCARD |
                                    F_WRITE_ZEROES));
    qvirtqueue_setup(&b->dev, &b->vq, &b->alloc, 0, 0);
    qvirtio_set_driver_ok(&b->dev);
}

static void blk_start(Blk *b, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

/* On a new image of make_image()'s pattern. */
static void blk_start(Blk *b, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    blk_start_va(b, make_image(), fmt, ap);
    va_end(ap);
}

static void blk_start_on(Blk *b, const char *img, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);

/* On the image img (a path; blk_stop() removes it). */
static void blk_start_on(Blk *b, const char *img, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    blk_start_va(b, g_strdup(img), fmt, ap);
    va_end(ap);
}

static void blk_stop(Blk *b)
{
    qtest_quit(b->s);
    unlink(b->img);
    g_free(b->img);
}

static bool wait_used(Blk *b, uint32_t *len)
{
    for (int i = 0; i < 5000; i++) {
        if (qvirtqueue_get_buf(&b->dev, &b->vq, NULL, len)) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

/*
 * One request: header, then len bytes at DATA_BASE (written by the
 * device for IN and GET_ID), then the status byte (0xee until written).
 */
static void blk_req_send(Blk *b, uint32_t type, uint64_t sector,
                         uint32_t len)
{
    bool in = type == T_IN || type == T_GET_ID;
    uint16_t head;

    qtest_writel(b->s, REQ_BASE, type);
    qtest_writel(b->s, REQ_BASE + 4, 0);
    qtest_writeq(b->s, REQ_BASE + 8, sector);
    qtest_writeb(b->s, REQ_BASE + 16, 0xee);
    head = qvirtqueue_add(&b->dev, &b->vq, REQ_BASE, 16, false, true);
    if (len) {
        qvirtqueue_add(&b->dev, &b->vq, DATA_BASE, len, in, true);
    }
    qvirtqueue_add(&b->dev, &b->vq, REQ_BASE + 16, 1, true, false);
    qvirtqueue_kick(&b->dev, &b->vq, head);
}

/* blk_req_send(), and the status once the device is done. */
static uint8_t blk_req(Blk *b, uint32_t type, uint64_t sector, uint32_t len,
                       uint32_t *used_len)
{
    uint32_t ulen;

    blk_req_send(b, type, sector, len);
    g_assert_true(wait_used(b, &ulen));
    if (used_len) {
        *used_len = ulen;
    }
    return qtest_readb(b->s, REQ_BASE + 16);
}

static void image_read(Blk *b, uint64_t offset, void *buf, size_t len)
{
    int fd = open(b->img, O_RDONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pread(fd, buf, len, offset), ==, (ssize_t)len);
    close(fd);
}

static uint8_t pattern(uint64_t sector, unsigned i)
{
    return (sector * 7 + i) & 0xff;
}

static void test_config(void)
{
    Blk b;
    uint64_t f;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    g_assert_cmphex(qpci_config_readl(b.s, b.dev.devfn, 0x08), ==,
                    0x01000001);
    f = qvirtio_get_features(&b.dev);
    g_assert_cmphex(f & (F_BLK_SIZE | F_FLUSH | F_DISCARD | F_WRITE_ZEROES),
                    ==, F_BLK_SIZE | F_FLUSH | F_DISCARD | F_WRITE_ZEROES);
    g_assert_cmphex(f & F_RO, ==, 0);
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 0), ==, IMG_SECTORS);
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 4), ==, 0);
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 20), ==, 512);
    blk_stop(&b);
}

static void check_rw(Blk *b)
{
    uint8_t buf[1024], want[1024];
    uint32_t ulen;

    /* Read sectors 3-4: the image's bytes. */
    g_assert_cmpuint(blk_req(b, T_IN, 3, 1024, &ulen), ==, S_OK);
    g_assert_cmpuint(ulen, ==, 1025);
    qtest_memread(b->s, DATA_BASE, buf, sizeof(buf));
    for (unsigned i = 0; i < sizeof(want); i++) {
        want[i] = pattern(3 + i / 512, i % 512);
    }
    g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));
    /* Write sector 10, flush, and find it in the file. */
    memset(buf, 0x5c, 512);
    qtest_memwrite(b->s, DATA_BASE, buf, 512);
    g_assert_cmpuint(blk_req(b, T_OUT, 10, 512, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(b, T_FLUSH, 0, 0, NULL), ==, S_OK);
    image_read(b, 10 * 512, want, 512);
    g_assert_cmpmem(buf, 512, want, 512);
}

static void test_read_write(void)
{
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    check_rw(&b);
    blk_stop(&b);
}

/*
 * A write and a read of 100 sectors as 100 separate 512-byte buffers:
 * more segments than one host preadv/pwritev batch of the first version
 * took (64; the device offers seg_max = queue size - 2, 254 here), as a
 * Linux file system's writeback sends them.
 */
static void test_many_segments(void)
{
    enum { NSEG = 100, FIRST = 20 };
    uint8_t buf[512], want[512];
    uint16_t head;
    uint32_t ulen;
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    for (int write = 1; write >= 0; write--) {
        qtest_writel(b.s, REQ_BASE, write ? T_OUT : T_IN);
        qtest_writel(b.s, REQ_BASE + 4, 0);
        qtest_writeq(b.s, REQ_BASE + 8, FIRST);
        qtest_writeb(b.s, REQ_BASE + 16, 0xee);
        head = qvirtqueue_add(&b.dev, &b.vq, REQ_BASE, 16, false, true);
        for (unsigned i = 0; i < NSEG; i++) {
            /* Every other 4 KiB page: the buffers are not contiguous. */
            uint64_t at = DATA_BASE + i * 0x2000ull;

            if (write) {
                memset(buf, i + 1, sizeof(buf));
            } else {
                memset(buf, 0, sizeof(buf));
            }
            qtest_memwrite(b.s, at, buf, sizeof(buf));
            qvirtqueue_add(&b.dev, &b.vq, at, 512, !write, true);
        }
        qvirtqueue_add(&b.dev, &b.vq, REQ_BASE + 16, 1, true, false);
        qvirtqueue_kick(&b.dev, &b.vq, head);
        g_assert_true(wait_used(&b, &ulen));
        g_assert_cmpuint(qtest_readb(b.s, REQ_BASE + 16), ==, S_OK);
        g_assert_cmpuint(ulen, ==, write ? 1 : NSEG * 512 + 1);
    }
    for (unsigned i = 0; i < NSEG; i++) {
        memset(want, i + 1, sizeof(want));
        image_read(&b, (FIRST + i) * 512ull, buf, sizeof(buf));
        g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));
        qtest_memread(b.s, DATA_BASE + i * 0x2000ull, buf, sizeof(buf));
        g_assert_cmpmem(buf, sizeof(buf), want, sizeof(want));
    }
    blk_stop(&b);
}

static void test_cache_mode(const void *data)
{
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,cache=%s "
              "-device virtio-blk-pci,drive=d,disable-legacy=on",
              (const char *)data);
    check_rw(&b);
    blk_stop(&b);
}

/* Writes and reads of every size up to 64 sectors, back to back. */
static void check_sizes(Blk *b)
{
    for (unsigned n = 1; n <= 64; n++) {
        uint8_t buf[64 * 512], back[64 * 512];

        memset(buf, n, n * 512);
        qtest_memwrite(b->s, DATA_BASE, buf, n * 512);
        g_assert_cmpuint(blk_req(b, T_OUT, 100 + n, n * 512, NULL), ==,
                         S_OK);
        image_read(b, (100 + n) * 512, back, n * 512);
        g_assert_cmpmem(buf, n * 512, back, n * 512);
        g_assert_cmpuint(blk_req(b, T_IN, 100 + n, n * 512, NULL), ==,
                         S_OK);
        qtest_memread(b->s, DATA_BASE, back, n * 512);
        g_assert_cmpmem(buf, n * 512, back, n * 512);
    }
}

/* The emulator has an io_uring open (aio=io_uring really uses one). */
static bool has_io_uring(QTestState *s)
{
    g_autofree char *dir = g_strdup_printf("/proc/%d/fd", qtest_pid(s));
    GDir *d = g_dir_open(dir, 0, NULL);
    const char *name;
    bool found = false;

    g_assert_nonnull(d);
    while (!found && (name = g_dir_read_name(d))) {
        g_autofree char *link = g_build_filename(dir, name, NULL);
        g_autofree char *target = g_file_read_link(link, NULL);

        found = target && strstr(target, "io_uring");
    }
    g_dir_close(d);
    return found;
}

static void test_io_uring(const void *data)
{
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,cache=%s,"
              "aio=io_uring -device virtio-blk-pci,drive=d,"
              "disable-legacy=on", (const char *)data);
    g_assert_true(has_io_uring(b.s));
    check_rw(&b);
    check_sizes(&b);
    blk_stop(&b);
}

/*
 * A read the kernel completes inside io_uring_enter (page cache: the
 * image was just written) is in the used ring by the time the kick's
 * MMIO write is answered: no main loop pass between submission and
 * completion. The kernel may hand a read to a worker now and then, so
 * most, not all, of 32 reads must be done at once.
 */
static void test_io_uring_done_at_kick(void)
{
    unsigned at_once = 0;
    uint32_t len;
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,cache=writeback,"
              "aio=io_uring -device virtio-blk-pci,drive=d,"
              "disable-legacy=on");
    for (unsigned i = 0; i < 32; i++) {
        blk_req_send(&b, T_IN, i * 8, 4096);
        if (qvirtqueue_get_buf(&b.dev, &b.vq, NULL, &len)) {
            at_once++;
        } else {
            g_assert_true(wait_used(&b, &len));
        }
        g_assert_cmpuint(len, ==, 4096 + 1);
        g_assert_cmpuint(qtest_readb(b.s, REQ_BASE + 16), ==, S_OK);
        g_assert_cmphex(qtest_readb(b.s, DATA_BASE + 5), ==,
                        pattern(i * 8, 5));
    }
    blk_stop(&b);
    g_assert_cmpuint(at_once, >=, 24);
}

/* The emulator has a Linux AIO context ("[aio]" in its maps). */
static bool has_native_aio(QTestState *s)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/maps", qtest_pid(s));
    g_autofree char *maps = NULL;

    g_assert_true(g_file_get_contents(path, &maps, NULL, NULL));
    return strstr(maps, "/[aio]") != NULL;
}

static unsigned thread_count(QTestState *s)
{
    g_autofree char *dir = g_strdup_printf("/proc/%d/task", qtest_pid(s));
    GDir *d = g_dir_open(dir, 0, NULL);
    unsigned n = 0;

    g_assert_nonnull(d);
    while (g_dir_read_name(d)) {
        n++;
    }
    g_dir_close(d);
    return n;
}

/*
 * aio=native: with O_DIRECT (cache=none, directsync) only. Reads and
 * writes go to the kernel, not to the thread pool: with cache=none this
 * emulator starts no worker thread for them (directsync's flushes run in
 * the pool; QEMU has threads of its own).
 */
static void test_native_aio(const void *data)
{
    unsigned threads;
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,cache=%s,"
              "aio=native -device virtio-blk-pci,drive=d,"
              "disable-legacy=on", (const char *)data);
    g_assert_true(has_native_aio(b.s));
    threads = thread_count(b.s);
    check_sizes(&b);
    if (!g_getenv("QTEST_ACCEL") && !strcmp(data, "none")) {
        g_assert_cmpuint(thread_count(b.s), ==, threads);
    }
    check_rw(&b);
    g_assert_cmpuint(blk_req(&b, T_FLUSH, 0, 0, NULL), ==, S_OK);
    blk_stop(&b);
}

static void test_if_virtio(void)
{
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=virtio "
              "-global virtio-blk-pci.disable-legacy=on");
    check_rw(&b);
    blk_stop(&b);
}

static void test_blockdev(void)
{
    Blk b;

    blk_start(&b, "-blockdev driver=file,filename=IMG,node-name=f "
              "-blockdev driver=raw,file=f,node-name=r "
              "-device virtio-blk-pci,drive=r,disable-legacy=on");
    check_rw(&b);
    blk_stop(&b);
}

/*
 * The JSON forms (without spaces: libqtest splits there): libvirt's two
 * nodes, and one node with a nested file.
 */
static void test_blockdev_json(void)
{
    Blk b;

    blk_start(&b, "-blockdev {\"driver\":\"file\",\"filename\":\"IMG\","
              "\"node-name\":\"libvirt-1-storage\",\"auto-read-only\":true,"
              "\"discard\":\"unmap\"} -blockdev {\"node-name\":"
              "\"libvirt-1-format\",\"read-only\":false,\"driver\":\"raw\","
              "\"file\":\"libvirt-1-storage\"} -device {\"driver\":"
              "\"virtio-blk-pci\",\"drive\":\"libvirt-1-format\","
              "\"id\":\"virtio-disk0\",\"bootindex\":1,"
              "\"disable-legacy\":\"on\"}");
    check_rw(&b);
    blk_stop(&b);
    blk_start(&b, "-blockdev {\"driver\":\"raw\",\"node-name\":\"r\","
              "\"file\":{\"driver\":\"file\",\"filename\":\"IMG\"}} "
              "-device virtio-blk-pci,drive=r,disable-legacy=on");
    check_rw(&b);
    blk_stop(&b);
}

static void test_get_id(void)
{
    Blk b;
    char id[21] = { 0 };
    uint32_t ulen;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,serial=QM00042,"
              "disable-legacy=on");
    g_assert_cmpuint(blk_req(&b, T_GET_ID, 0, 20, &ulen), ==, S_OK);
    qtest_memread(b.s, DATA_BASE, id, 20);
    g_assert_cmpstr(id, ==, "QM00042");
    blk_stop(&b);
}

/* Out of range or misaligned: IOERR, and the image is as it was. */
static void test_bad_requests(void)
{
    Blk b;
    uint8_t buf[512], want[512];

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    memset(buf, 0x77, sizeof(buf));
    qtest_memwrite(b.s, DATA_BASE, buf, sizeof(buf));
    g_assert_cmpuint(blk_req(&b, T_OUT, IMG_SECTORS, 512, NULL), ==,
                     S_IOERR);
    g_assert_cmpuint(blk_req(&b, T_OUT, IMG_SECTORS - 1, 1024, NULL), ==,
                     S_IOERR);
    g_assert_cmpuint(blk_req(&b, T_IN, UINT64_MAX / 256, 512, NULL), ==,
                     S_IOERR);
    g_assert_cmpuint(blk_req(&b, T_OUT, 4, 100, NULL), ==, S_IOERR);
    image_read(&b, (IMG_SECTORS - 1) * 512, want, 512);
    for (int i = 0; i < 512; i++) {
        g_assert_cmpuint(want[i], ==, pattern(IMG_SECTORS - 1, i));
    }
    image_read(&b, 4 * 512, want, 512);
    g_assert_cmpuint(want[0], ==, pattern(4, 0));
    /* An unknown type. */
    g_assert_cmpuint(blk_req(&b, 99, 0, 0, NULL), ==, S_UNSUPP);
    /* The device still works. */
    g_assert_cmpuint(blk_req(&b, T_IN, 0, 512, NULL), ==, S_OK);
    blk_stop(&b);
}

static void dwz(Blk *b, uint32_t type, uint64_t sector, uint32_t n,
                uint8_t want_status)
{
    uint16_t head;

    qtest_writel(b->s, REQ_BASE, type);
    qtest_writel(b->s, REQ_BASE + 4, 0);
    qtest_writeq(b->s, REQ_BASE + 8, 0);
    qtest_writeq(b->s, DATA_BASE, sector);
    qtest_writel(b->s, DATA_BASE + 8, n);
    qtest_writel(b->s, DATA_BASE + 12, 0);
    head = qvirtqueue_add(&b->dev, &b->vq, REQ_BASE, 16, false, true);
    qvirtqueue_add(&b->dev, &b->vq, DATA_BASE, 16, false, true);
    qvirtqueue_add(&b->dev, &b->vq, REQ_BASE + 16, 1, true, false);
    qvirtqueue_kick(&b->dev, &b->vq, head);
    g_assert_true(wait_used(b, NULL));
    g_assert_cmpuint(qtest_readb(b->s, REQ_BASE + 16), ==, want_status);
}

static void test_discard_write_zeroes(void)
{
    Blk b;
    uint8_t buf[1024];

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    dwz(&b, T_WRITE_ZEROES, 20, 2, S_OK);
    image_read(&b, 20 * 512, buf, sizeof(buf));
    for (unsigned i = 0; i < sizeof(buf); i++) {
        g_assert_cmpuint(buf[i], ==, 0);
    }
    image_read(&b, 22 * 512, buf, 1);
    g_assert_cmpuint(buf[0], ==, pattern(22, 0));
    dwz(&b, T_DISCARD, 8, 8, S_OK);
    dwz(&b, T_WRITE_ZEROES, IMG_SECTORS - 1, 2, S_IOERR);
    blk_stop(&b);
}

/* Allocated bytes of the image file. */
static int64_t image_blocks(Blk *b)
{
    struct stat st;

    g_assert_cmpint(stat(b->img, &st), ==, 0);
    return (int64_t)st.st_blocks * 512;
}

/*
 * discard=ignore (the default) drops guest discards; discard=unmap
 * punches holes. detect-zeroes=unmap turns a write of zeroes into a
 * discard, detect-zeroes=on into write-zeroes.
 */
static void test_discard_modes(void)
{
    g_autofree uint8_t *zero = g_malloc0(64 * 1024);
    uint8_t buf[512];
    Blk b;
    int64_t before;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    before = image_blocks(&b);
    dwz(&b, T_DISCARD, 0, 128, S_OK);
    g_assert_cmpint(image_blocks(&b), ==, before);
    blk_stop(&b);

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,discard=unmap "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    before = image_blocks(&b);
    dwz(&b, T_DISCARD, 0, 128, S_OK);
    g_assert_cmpint(image_blocks(&b), <=, before - 64 * 1024);
    blk_stop(&b);

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,discard=unmap,"
              "detect-zeroes=unmap "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    before = image_blocks(&b);
    qtest_memwrite(b.s, DATA_BASE, zero, 64 * 1024);
    g_assert_cmpuint(blk_req(&b, T_OUT, 256, 64 * 1024, NULL), ==, S_OK);
    g_assert_cmpint(image_blocks(&b), <=, before - 64 * 1024);
    image_read(&b, 256 * 512, buf, sizeof(buf));
    for (unsigned i = 0; i < sizeof(buf); i++) {
        g_assert_cmpuint(buf[i], ==, 0);
    }
    blk_stop(&b);

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,detect-zeroes=on "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    qtest_memwrite(b.s, DATA_BASE, zero, 4096);
    g_assert_cmpuint(blk_req(&b, T_OUT, 40, 4096, NULL), ==, S_OK);
    image_read(&b, 40 * 512, buf, sizeof(buf));
    for (unsigned i = 0; i < sizeof(buf); i++) {
        g_assert_cmpuint(buf[i], ==, 0);
    }
    blk_stop(&b);
}

static void test_read_only(void)
{
    Blk b;
    uint8_t buf[512];

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,readonly=on "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    g_assert_cmphex(qvirtio_get_features(&b.dev) & F_RO, ==, F_RO);
    g_assert_cmpuint(blk_req(&b, T_IN, 1, 512, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(&b, T_OUT, 1, 512, NULL), ==, S_IOERR);
    image_read(&b, 512, buf, 1);
    g_assert_cmpuint(buf[0], ==, pattern(1, 0));
    blk_stop(&b);
}

/* No writable byte for the status: the device is broken. */
static void test_no_status(void)
{
    Blk b;
    uint16_t head;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    qtest_writel(b.s, REQ_BASE, T_IN);
    qtest_writeq(b.s, REQ_BASE + 8, 0);
    head = qvirtqueue_add(&b.dev, &b.vq, REQ_BASE, 16, false, false);
    qvirtqueue_kick(&b.dev, &b.vq, head);
    for (int i = 0; i < 2000 &&
         !(qvirtio_get_status(&b.dev) & QVIRTIO_NEEDS_RESET); i++) {
        g_usleep(1000);
    }
    g_assert_cmphex(qvirtio_get_status(&b.dev) & QVIRTIO_NEEDS_RESET, ==,
                    QVIRTIO_NEEDS_RESET);
    blk_stop(&b);
}

static void test_query_block(void)
{
    Blk b;
    JsonNode *reply;
    JsonArray *list;
    JsonObject *o, *ins, *img, *cache;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,cache=none "
              "-device virtio-blk-pci,drive=d,id=vb,disable-legacy=on");
    reply = qtest_qmp(b.s, "{\"execute\": \"query-block\"}");
    list = json_object_get_array_member(json_node_get_object(reply),
                                        "return");
    g_assert_cmpuint(json_array_get_length(list), ==, 1);
    o = json_array_get_object_element(list, 0);
    g_assert_cmpstr(json_object_get_string_member(o, "device"), ==, "d");
    /* The device's virtio-backend child, which libvirt looks for. */
    g_assert_cmpstr(json_object_get_string_member(o, "qdev"), ==,
                    "/machine/peripheral/vb/virtio-backend");
    ins = json_object_get_object_member(o, "inserted");
    g_assert_cmpstr(json_object_get_string_member(ins, "drv"), ==, "raw");
    g_assert_false(json_object_get_boolean_member(ins, "ro"));
    g_assert_cmpstr(json_object_get_string_member(ins, "file"), ==, b.img);
    cache = json_object_get_object_member(ins, "cache");
    g_assert_true(json_object_get_boolean_member(cache, "direct"));
    g_assert_true(json_object_get_boolean_member(cache, "writeback"));
    g_assert_false(json_object_get_boolean_member(cache, "no-flush"));
    img = json_object_get_object_member(ins, "image");
    g_assert_cmpint(json_object_get_int_member(img, "virtual-size"), ==,
                    IMG_SIZE);
    g_assert_cmpstr(json_object_get_string_member(img, "format"), ==, "raw");
    json_node_unref(reply);
    blk_stop(&b);
}

static JsonNode *qmp_ok(Blk *b, const char *cmd)
{
    JsonNode *reply = qtest_qmp(b->s, "%s", cmd);

    g_assert_false(qtest_qmp_has_error(reply));
    return reply;
}

static int64_t stat_of(JsonObject *stats, const char *name)
{
    return json_object_get_int_member(stats, name);
}

/*
 * Sequential I/O published together and kicked once: contiguous writes
 * (then reads) go to the image as one request each, as QEMU's request
 * merging does (wr_merged, rd_merged), and each guest request still
 * completes with its own status and data; the flush after them waits
 * for the writes (it is not merged).
 */
static void test_merge(void)
{
    /* Three contiguous writes, two contiguous reads, a flush. */
    static const struct { uint32_t type; uint64_t sector; } req[] = {
        { T_OUT, 16 }, { T_OUT, 24 }, { T_OUT, 32 },
        { T_IN, 200 }, { T_IN, 208 }, { T_FLUSH, 0 },
    };
    unsigned n = G_N_ELEMENTS(req), done = 0;
    uint8_t buf[4096], back[3 * 4096];
    JsonNode *reply;
    JsonObject *st;
    uint32_t len;
    Blk b;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    for (unsigned i = 0; i < n; i++) {
        uint64_t hdr = REQ_BASE + 32 * i, data = DATA_BASE + 4096 * i;
        uint16_t head;

        qtest_writel(b.s, hdr, req[i].type);
        qtest_writel(b.s, hdr + 4, 0);
        qtest_writeq(b.s, hdr + 8, req[i].sector);
        qtest_writeb(b.s, hdr + 16, 0xee);
        memset(buf, 0xa0 + i, sizeof(buf));
        qtest_memwrite(b.s, data, buf, sizeof(buf));
        head = qvirtqueue_add(&b.dev, &b.vq, hdr, 16, false, true);
        if (req[i].type != T_FLUSH) {
            qvirtqueue_add(&b.dev, &b.vq, data, 4096, req[i].type == T_IN,
                           true);
        }
        qvirtqueue_add(&b.dev, &b.vq, hdr + 16, 1, true, false);
        qtest_writew(b.s, b.vq.avail + 4 + 2 * ((b.vq.avail_idx + i) %
                                                b.vq.size), head);
    }
    /* All of them in the ring, then one notification. */
    b.vq.avail_idx += n;
    qtest_writew(b.s, b.vq.avail + 2, b.vq.avail_idx);
    qpci_bar_write(b.s, &b.dev.bar, b.dev.notify +
                   (uint64_t)b.vq.notify_off * b.dev.notify_mult,
                   b.vq.index, 2);
    while (done < n) {
        g_assert_true(wait_used(&b, &len));
        done++;
    }
    for (unsigned i = 0; i < n; i++) {
        g_assert_cmpuint(qtest_readb(b.s, REQ_BASE + 32 * i + 16), ==, S_OK);
    }
    image_read(&b, 16 * 512, back, sizeof(back));
    for (unsigned i = 0; i < 3; i++) {
        memset(buf, 0xa0 + i, sizeof(buf));
        g_assert_cmpmem(back + 4096 * i, 4096, buf, 4096);
    }
    for (unsigned i = 3; i < 5; i++) {
        qtest_memread(b.s, DATA_BASE + 4096 * i, buf, sizeof(buf));
        g_assert_cmphex(buf[0], ==, pattern(req[i].sector, 0));
        g_assert_cmphex(buf[4095], ==, pattern(req[i].sector + 7, 511));
    }
    reply = qmp_ok(&b, "{\"execute\": \"query-blockstats\"}");
    st = json_object_get_object_member(json_array_get_object_element(
             json_object_get_array_member(json_node_get_object(reply),
                                          "return"), 0), "stats");
    g_assert_cmpint(stat_of(st, "wr_operations"), ==, 3);
    g_assert_cmpint(stat_of(st, "wr_merged"), ==, 2);
    g_assert_cmpint(stat_of(st, "rd_operations"), ==, 2);
    g_assert_cmpint(stat_of(st, "rd_merged"), ==, 1);
    g_assert_cmpint(stat_of(st, "flush_operations"), ==, 1);
    json_node_unref(reply);
    blk_stop(&b);
}

static void test_blockstats(void)
{
    Blk b;
    JsonNode *reply;
    JsonObject *o, *st, *parent;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,id=vb,disable-legacy=on");
    reply = qmp_ok(&b, "{\"execute\": \"query-blockstats\"}");
    o = json_array_get_object_element(json_object_get_array_member(
            json_node_get_object(reply), "return"), 0);
    st = json_object_get_object_member(o, "stats");
    g_assert_cmpint(stat_of(st, "rd_operations"), ==, 0);
    g_assert_false(json_object_has_member(st, "idle_time_ns"));
    json_node_unref(reply);

    g_assert_cmpuint(blk_req(&b, T_IN, 0, 1024, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(&b, T_IN, 8, 512, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(&b, T_OUT, 100, 2048, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(&b, T_FLUSH, 0, 0, NULL), ==, S_OK);
    g_assert_cmpuint(blk_req(&b, T_OUT, IMG_SECTORS, 512, NULL), ==,
                     S_IOERR);
    dwz(&b, T_DISCARD, 8, 8, S_OK);

    reply = qmp_ok(&b, "{\"execute\": \"query-blockstats\"}");
    o = json_array_get_object_element(json_object_get_array_member(
            json_node_get_object(reply), "return"), 0);
    g_assert_cmpstr(json_object_get_string_member(o, "device"), ==, "d");
    g_assert_cmpstr(json_object_get_string_member(o, "qdev"), ==,
                    "/machine/peripheral/vb/virtio-backend");
    st = json_object_get_object_member(o, "stats");
    g_assert_cmpint(stat_of(st, "rd_operations"), ==, 2);
    g_assert_cmpint(stat_of(st, "rd_bytes"), ==, 1536);
    g_assert_cmpint(stat_of(st, "wr_operations"), ==, 1);
    g_assert_cmpint(stat_of(st, "wr_bytes"), ==, 2048);
    g_assert_cmpint(stat_of(st, "wr_highest_offset"), ==, 100 * 512 + 2048);
    g_assert_cmpint(stat_of(st, "flush_operations"), ==, 1);
    /* QEMU 7.2's virtio-blk does not count discards; ours does. */
    if (!g_getenv("QTEST_ACCEL")) {
        g_assert_cmpint(stat_of(st, "unmap_operations"), ==, 1);
        g_assert_cmpint(stat_of(st, "unmap_bytes"), ==, 8 * 512);
    }
    g_assert_cmpint(stat_of(st, "invalid_wr_operations"), ==, 1);
    g_assert_cmpint(stat_of(st, "failed_wr_operations"), ==, 0);
    g_assert_cmpint(stat_of(st, "rd_total_time_ns"), >, 0);
    g_assert_true(json_object_get_boolean_member(st, "account_invalid"));
    g_assert_cmpint(stat_of(st, "idle_time_ns"), >, 0);
    parent = json_object_get_object_member(o, "parent");
    g_assert_nonnull(json_object_get_string_member(parent, "node-name"));
    g_assert_cmpint(stat_of(json_object_get_object_member(parent, "stats"),
                            "rd_operations"), ==, 0);
    json_node_unref(reply);

    /* query-named-block-nodes: the raw node and the file node. */
    reply = qmp_ok(&b, "{\"execute\": \"query-named-block-nodes\"}");
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
                         json_node_get_object(reply), "return")), ==, 2);
    json_node_unref(reply);
    blk_stop(&b);
}

static void test_resize(void)
{
    Blk b;
    JsonNode *reply;
    struct stat st;
    uint8_t isr = 0;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 0), ==, IMG_SECTORS);
    qvirtio_read_isr(&b.dev);
    json_node_unref(qmp_ok(&b, "{\"execute\": \"block_resize\", "
                           "\"arguments\": {\"device\": \"d\", "
                           "\"size\": 2097152}}"));
    g_assert_cmpint(stat(b.img, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 2097152);
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 0), ==, 4096);
    /* The config change interrupt (ISR bit 1). */
    for (int i = 0; i < 1000 && !(isr & 2); i++) {
        isr |= qvirtio_read_isr(&b.dev);
    }
    g_assert_cmphex(isr & 2, ==, 2);
    /* The new sectors work. */
    g_assert_cmpuint(blk_req(&b, T_OUT, 4000, 512, NULL), ==, S_OK);

    /* device= names a backend, not a node, and makes none. */
    reply = qtest_qmp(b.s, "{\"execute\": \"block_resize\", "
                      "\"arguments\": {\"device\": \"#block000\", "
                      "\"size\": 4096}}");
    g_assert_true(qtest_qmp_has_error(reply));
    json_node_unref(reply);
    reply = qtest_qmp(b.s, "{\"execute\": \"query-block\"}");
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(
                         json_node_get_object(reply), "return")), ==, 1);
    json_node_unref(reply);
    reply = qtest_qmp(b.s, "{\"execute\": \"block_resize\", "
                      "\"arguments\": {\"node-name\": \"nope\", "
                      "\"size\": 4096}}");
    g_assert_true(qtest_qmp_has_error(reply));
    g_assert_cmpstr(json_object_get_string_member(
                        qdict_get_qdict(reply, "error"), "desc"), ==,
                    "Cannot find device='' nor node-name='nope'");
    json_node_unref(reply);
    blk_stop(&b);
}

static void test_resize_read_only(void)
{
    Blk b;
    JsonNode *reply;

    blk_start(&b, "-drive file=IMG,format=raw,if=none,id=d,readonly=on "
              "-device virtio-blk-pci,drive=d,disable-legacy=on");
    reply = qtest_qmp(b.s, "{\"execute\": \"block_resize\", "
                      "\"arguments\": {\"device\": \"d\", "
                      "\"size\": 2097152}}");
    g_assert_true(qtest_qmp_has_error(reply));
    json_node_unref(reply);
    g_assert_cmpuint(qvirtio_config_readl(&b.dev, 0), ==, IMG_SECTORS);
    blk_stop(&b);
}

/* --- werror on a full disk --- */

#define FULL_IMG_SIZE   (4 << 20)   /* sparse, larger than the tmpfs */

/*
 * A 1 MiB tmpfs mounted for the test, holding a sparse image and a
 * filler file that takes every free block, so a write into a hole of
 * the image fails with ENOSPC until the filler is removed.
 */
typedef struct FullDisk {
    char *dir, *img, *filler;
} FullDisk;

static bool full_disk_make(FullDisk *d)
{
    static const uint8_t chunk[4096];
    int fd;

    d->dir = g_strdup("/tmp/virtio-blk-enospc-XXXXXX");
    g_assert_nonnull(g_mkdtemp(d->dir));
    /*
     * In a mount namespace of the test's own, so the tmpfs goes away with
     * the test (and its emulator) even when an assertion ends it.
     */
    if (unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("tmpfs", d->dir, "tmpfs", 0, "size=1m") < 0) {
        g_autofree char *why = g_strdup_printf("mounting a tmpfs: %s",
                                               g_strerror(errno));

        rmdir(d->dir);
        g_free(d->dir);
        g_test_skip(why);
        return false;
    }
    d->img = g_build_filename(d->dir, "img", NULL);
    d->filler = g_build_filename(d->dir, "filler", NULL);
    fd = open(d->img, O_CREAT | O_WRONLY, 0644);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, FULL_IMG_SIZE), ==, 0);
    close(fd);
    fd = open(d->filler, O_CREAT | O_WRONLY, 0644);
    g_assert_cmpint(fd, >=, 0);
    while (write(fd, chunk, sizeof(chunk)) == sizeof(chunk)) {
    }
    g_assert_cmpint(errno, ==, ENOSPC);
    close(fd);
    return true;
}

static void full_disk_free(FullDisk *d)
{
    unlink(d->filler);
    unlink(d->img);
    g_assert_cmpint(umount2(d->dir, MNT_DETACH), ==, 0);
    rmdir(d->dir);
    g_free(d->filler);
    g_free(d->img);
    g_free(d->dir);
}

static JsonObject *qmp_return(JsonNode *reply)
{
    g_assert_false(qtest_qmp_has_error(reply));
    return json_node_get_object(reply);
}

static const char *run_status(Blk *b)
{
    static char status[32];
    JsonNode *reply = qtest_qmp(b->s, "{\"execute\": \"query-status\"}");
    JsonObject *o = json_object_get_object_member(qmp_return(reply),
                                                  "return");

    g_strlcpy(status, json_object_get_string_member(o, "status"),
              sizeof(status));
    json_node_unref(reply);
    return status;
}

/* query-block's io-status of the only device, or "" when absent. */
static const char *io_status(Blk *b)
{
    static char status[32];
    JsonNode *reply = qtest_qmp(b->s, "{\"execute\": \"query-block\"}");
    JsonObject *o = json_array_get_object_element(
        json_object_get_array_member(qmp_return(reply), "return"), 0);

    g_strlcpy(status, json_object_has_member(o, "io-status")
              ? json_object_get_string_member(o, "io-status") : "",
              sizeof(status));
    json_node_unref(reply);
    return status;
}

/* The next BLOCK_IO_ERROR: its data, checked for a write with ENOSPC. */
static JsonObject *wait_io_error(Blk *b, JsonNode **event,
                                 const char *action)
{
    JsonObject *data;

    *event = qtest_qmp_eventwait_ref(b->s, "BLOCK_IO_ERROR");
    data = json_object_get_object_member(json_node_get_object(*event),
                                         "data");
    g_assert_cmpstr(json_object_get_string_member(data, "device"), ==, "d");
    g_assert_true(json_object_has_member(data, "node-name"));
    g_assert_cmpstr(json_object_get_string_member(data, "operation"), ==,
                    "write");
    g_assert_cmpstr(json_object_get_string_member(data, "action"), ==,
                    action);
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    g_strerror(ENOSPC));
    return data;
}

/*
 * werror=stop (and enospc, the default): the write is held, the VM
 * stops in io-error with BLOCK_IO_ERROR then STOP, and the guest sees
 * nothing; with space again, "cont" retries it: OK, data on disk.
 */
static void test_werror_stop(const void *data)
{
    const char *werror = data;
    uint8_t buf[4096], back[4096];
    FullDisk d;
    JsonNode *ev;
    JsonObject *o;
    uint32_t len;
    Blk b;

    if (!full_disk_make(&d)) {
        return;
    }
    blk_start_on(&b, d.img, "-drive file=IMG,format=raw,if=none,id=d%s%s "
                 "-device virtio-blk-pci,drive=d,disable-legacy=on",
                 *werror ? ",werror=" : "", werror);
    g_assert_cmpstr(io_status(&b), ==, "ok");
    memset(buf, 0x5a, sizeof(buf));
    qtest_memwrite(b.s, DATA_BASE, buf, sizeof(buf));
    blk_req_send(&b, T_OUT, 8, sizeof(buf));
    o = wait_io_error(&b, &ev, "stop");
    g_assert_true(json_object_get_boolean_member(o, "nospace"));
    json_node_unref(ev);
    qtest_qmp_eventwait(b.s, "STOP");
    g_assert_cmpstr(run_status(&b), ==, "io-error");
    g_assert_cmpstr(io_status(&b), ==, "nospace");
    /* Held: no completion, the status byte untouched. */
    g_usleep(200 * 1000);
    g_assert_false(qvirtqueue_get_buf(&b.dev, &b.vq, NULL, &len));
    g_assert_cmphex(qtest_readb(b.s, REQ_BASE + 16), ==, 0xee);

    g_assert_cmpint(unlink(d.filler), ==, 0);
    json_node_unref(qmp_ok(&b, "{\"execute\": \"cont\"}"));
    g_assert_true(wait_used(&b, &len));
    g_assert_cmpuint(qtest_readb(b.s, REQ_BASE + 16), ==, S_OK);
    image_read(&b, 8 * 512, back, sizeof(back));
    g_assert_cmpmem(buf, sizeof(buf), back, sizeof(back));
    g_assert_cmpstr(run_status(&b), ==, "running");
    g_assert_cmpstr(io_status(&b), ==, "ok");
    blk_stop(&b);
    full_disk_free(&d);
}

/*
 * werror=report: IOERR and an event with action report (no io-status,
 * so no nospace); ignore: OK (nothing written). The device's werror
 * overrides the drive's.
 */
static const struct {
    const char *drive, *device, *action;
    uint8_t status;
} werror_cases[] = {
    { ",werror=report", "", "report", S_IOERR },
    { ",werror=ignore", "", "ignore", S_OK },
    { ",werror=stop", ",werror=report", "report", S_IOERR },
};

static void test_werror_no_stop(const void *data)
{
    const __typeof__(werror_cases[0]) *c = data;
    uint8_t buf[4096];
    FullDisk d;
    JsonNode *ev;
    Blk b;

    if (!full_disk_make(&d)) {
        return;
    }
    blk_start_on(&b, d.img, "-drive file=IMG,format=raw,if=none,id=d%s "
                 "-device virtio-blk-pci,drive=d,disable-legacy=on%s",
                 c->drive, c->device);
    g_assert_cmpstr(io_status(&b), ==, "");
    memset(buf, 0x5a, sizeof(buf));
    qtest_memwrite(b.s, DATA_BASE, buf, sizeof(buf));
    g_assert_cmpuint(blk_req(&b, T_OUT, 8, sizeof(buf), NULL), ==,
                     c->status);
    g_assert_false(json_object_has_member(wait_io_error(&b, &ev, c->action),
                                          "nospace"));
    json_node_unref(ev);
    g_assert_cmpstr(run_status(&b), ==, "running");
    blk_stop(&b);
    full_disk_free(&d);
}

/* --- blockdev-add, blockdev-del --- */

static JsonNode *qmp_fmt(Blk *b, const char *fmt, ...) G_GNUC_PRINTF(2, 3);

static JsonNode *qmp_fmt(Blk *b, const char *fmt, ...)
{
    va_list ap;
    g_autofree char *cmd = NULL;
    g_auto(GStrv) parts = NULL;

    va_start(ap, fmt);
    cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    parts = g_strsplit(cmd, "IMG", -1);
    g_free(cmd);
    cmd = g_strjoinv(b->img, parts);
    return qtest_qmp(b->s, "%s", cmd);
}

static void qmp_expect_error(Blk *b, const char *cmd, const char *desc)
{
    JsonNode *reply = qmp_fmt(b, "%s", cmd);
    JsonObject *err;

    g_assert_true(qtest_qmp_has_error(reply));
    err = json_object_get_object_member(json_node_get_object(reply),
                                        "error");
    g_assert_cmpstr(json_object_get_string_member(err, "desc"), ==, desc);
    json_node_unref(reply);
}

static void qmp_expect_ok(Blk *b, const char *cmd)
{
    JsonNode *reply = qmp_fmt(b, "%s", cmd);

    g_assert_false(qtest_qmp_has_error(reply));
    json_node_unref(reply);
}

/* query-named-block-nodes: how many, and whether name is among them. */
static unsigned block_nodes(Blk *b, const char *name, bool *found)
{
    JsonNode *reply = qtest_qmp(b->s, "{\"execute\": "
                                "\"query-named-block-nodes\"}");
    JsonArray *list = json_object_get_array_member(qmp_return(reply),
                                                   "return");
    unsigned n = json_array_get_length(list);

    *found = false;
    for (unsigned i = 0; i < n; i++) {
        JsonObject *o = json_array_get_object_element(list, i);

        *found |= !strcmp(json_object_get_string_member(o, "node-name"),
                          name);
    }
    json_node_unref(reply);
    return n;
}

#define ADD(args)   "{\"execute\": \"blockdev-add\", \"arguments\": " args "}"
#define DEL(name)   "{\"execute\": \"blockdev-del\", \"arguments\": " \
                    "{\"node-name\": \"" name "\"}}"

static void test_blockdev_add_del(void)
{
    unsigned before;
    bool found;
    Blk b;

    blk_start(&b, "-blockdev driver=file,filename=IMG,node-name=busy,"
              "locking=off -device virtio-blk-pci,drive=busy,share-rw=on,"
              "disable-legacy=on -drive file=IMG,format=raw,if=none,id=d,"
              "file.locking=off");
    before = block_nodes(&b, "n1", &found);
    g_assert_false(found);
    /* A raw node over a nested file node: two nodes, one named. */
    qmp_expect_ok(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n1\", "
                          "\"file\": {\"driver\": \"file\", \"filename\": "
                          "\"IMG\", \"locking\": \"off\"}}"));
    g_assert_cmpuint(block_nodes(&b, "n1", &found), ==, before + 2);
    g_assert_true(found);
    qmp_expect_error(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n1\", "
                             "\"file\": {\"driver\": \"file\", \"filename\":"
                             " \"IMG\", \"locking\": \"off\"}}"),
                     "Duplicate nodes with node-name='n1'");
    g_assert_cmpuint(block_nodes(&b, "n1", &found), ==, before + 2);
    qmp_expect_error(&b, ADD("{\"driver\": \"file\", \"node-name\": \"d\", "
                             "\"filename\": \"IMG\", \"locking\": \"off\"}"),
                     "node-name=d is conflicting with a device id");
    qmp_expect_error(&b, ADD("{\"driver\": \"file\", \"node-name\": \"n2\", "
                             "\"filename\": \"/nonexistent.img\"}"),
                     "Could not open '/nonexistent.img': No such file or "
                     "directory");
    qmp_expect_error(&b, ADD("{\"driver\": \"file\", \"node-name\": \"n2\", "
                             "\"filename\": \"IMG\", \"bogus\": 1}"),
                     "Parameter 'bogus' is unexpected");
    /* The inline file node's keys too (its schema type is any). */
    qmp_expect_error(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n2\", "
                             "\"file\": {\"driver\": \"file\", \"filename\":"
                             " \"IMG\", \"bogus\": 1}}"),
                     "Parameter 'file.bogus' is unexpected");
    qmp_expect_error(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n2\", "
                             "\"file\": {\"driver\": \"file\", \"filename\":"
                             " \"IMG\", \"cache\": {\"bogus\": 1}}}"),
                     "Parameter 'file.cache.bogus' is unexpected");
    qmp_expect_error(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n3\", "
                             "\"file\": \"nosuch\"}"),
                     "Cannot find device='nosuch' nor node-name='nosuch'");
    qmp_expect_error(&b, ADD("{\"driver\": \"file\", \"node-name\": \"n4\", "
                             "\"filename\": \"IMG\", \"aio\": \"native\"}"),
                     "aio=native was specified, but it requires "
                     "cache.direct=on, which was not specified.");
    /* A protocol node with the options of -blockdev, and raw over it. */
    qmp_expect_ok(&b, ADD("{\"driver\": \"file\", \"node-name\": \"n5\", "
                          "\"filename\": \"IMG\", \"aio\": \"native\", "
                          "\"cache\": {\"direct\": true, \"no-flush\": "
                          "false}, \"locking\": \"off\", \"read-only\": "
                          "true, \"discard\": \"unmap\", "
                          "\"detect-zeroes\": \"on\"}"));
    qmp_expect_ok(&b, ADD("{\"driver\": \"raw\", \"node-name\": \"n6\", "
                          "\"file\": \"n5\"}"));
    g_assert_cmpuint(block_nodes(&b, "n6", &found), ==, before + 4);

    qmp_expect_error(&b, DEL("nosuch"),
                     "Failed to find node with node-name='nosuch'");
    qmp_expect_error(&b, DEL("busy"), "Node busy is in use");
    qmp_expect_error(&b, DEL("n5"), "Block device n5 is in use");
    qmp_expect_ok(&b, DEL("n6"));
    qmp_expect_ok(&b, DEL("n5"));
    qmp_expect_ok(&b, DEL("n1"));
    /* The nested file node went with n1. */
    g_assert_cmpuint(block_nodes(&b, "n1", &found), ==, before);
    g_assert_false(found);
    /* The name is free again, and the device still works. */
    qmp_expect_ok(&b, ADD("{\"driver\": \"file\", \"node-name\": \"n1\", "
                          "\"filename\": \"IMG\", \"locking\": \"off\"}"));
    check_rw(&b);
    blk_stop(&b);
}

typedef struct BadImage {
    const char *args;
    const char *message;
} BadImage;

static const BadImage bad_images[] = {
    { "-drive file=/nonexistent.img,format=raw,if=none,id=d",
      "qemu-system-x86_64: -drive file=/nonexistent.img,format=raw,if=none,"
      "id=d: Could not open '/nonexistent.img': No such file or directory\n" },
    { "-drive file=/,format=raw,if=none,id=d",
      "qemu-system-x86_64: -drive file=/,format=raw,if=none,id=d: 'file' "
      "driver requires '/' to be a regular file\n" },
    { "-drive file=/dev/null,format=foo,if=none,id=d",
      "qemu-system-x86_64: -drive file=/dev/null,format=foo,if=none,id=d: "
      "Unknown driver 'foo'\n" },
    { "-drive file=/etc/os-release,format=qcow2,if=none,id=d,readonly=on",
      "qemu-system-x86_64: -drive file=/etc/os-release,format=qcow2,if=none,"
      "id=d,readonly=on: Image is not in qcow2 format\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,cache=bogus",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "cache=bogus: invalid cache option\n" },
    { "-device virtio-blk-pci,drive=nope",
      "qemu-system-x86_64: -device virtio-blk-pci,drive=nope: Property "
      "'virtio-blk-device.drive' can't find value 'nope'\n" },
    { "-device virtio-blk-pci",
      "qemu-system-x86_64: -device virtio-blk-pci: drive property not set\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,discard=bogus",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "discard=bogus: Invalid discard option\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,detect-zeroes=bogus",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "detect-zeroes=bogus: invalid parameter value: bogus\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,aio=bogus",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "aio=bogus: Parameter 'aio' does not accept value 'bogus'\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,aio=native",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "aio=native: aio=native was specified, but it requires "
      "cache.direct=on, which was not specified.\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,werror=bogus",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "werror=bogus: 'bogus' invalid write error action\n" },
    { "-drive file=/dev/null,format=raw,if=none,id=d,rerror=enospc",
      "qemu-system-x86_64: -drive file=/dev/null,format=raw,if=none,id=d,"
      "rerror=enospc: 'enospc' invalid read error action\n" },
    /* -blockdev keys outside the schema, refused as QEMU 7.2 does. */
    { "-blockdev driver=file,filename=/dev/null,node-name=f,bogus=1",
      "qemu-system-x86_64: -blockdev driver=file,filename=/dev/null,"
      "node-name=f,bogus=1: Parameter 'bogus' is unexpected\n" },
    /* Before the node-name's absence, as QEMU's schema check comes first. */
    { "-blockdev driver=file,filename=/dev/null,cache.bogus=1",
      "qemu-system-x86_64: -blockdev driver=file,filename=/dev/null,"
      "cache.bogus=1: Parameter 'cache.bogus' is unexpected\n" },
    { "-blockdev driver=raw,node-name=r,file.driver=file,"
      "file.filename=/dev/null,file.bogus=1",
      "qemu-system-x86_64: -blockdev driver=raw,node-name=r,file.driver=file,"
      "file.filename=/dev/null,file.bogus=1: Parameter 'file.bogus' is "
      "unexpected\n" },
    { "-blockdev driver=raw,node-name=r,file.driver=file,"
      "file.filename=/dev/null,file.cache.bogus=1",
      "qemu-system-x86_64: -blockdev driver=raw,node-name=r,file.driver=file,"
      "file.filename=/dev/null,file.cache.bogus=1: Parameter "
      "'file.cache.bogus' is unexpected\n" },
    { "-blockdev {\"driver\":\"raw\",\"node-name\":\"r\",\"file\":"
      "{\"driver\":\"file\",\"filename\":\"/dev/null\",\"bogus\":1}}",
      "qemu-system-x86_64: -blockdev {\"driver\":\"raw\",\"node-name\":"
      "\"r\",\"file\":{\"driver\":\"file\",\"filename\":\"/dev/null\","
      "\"bogus\":1}}: Parameter 'file.bogus' is unexpected\n" },
    { "-drive file=/etc/os-release,format=raw,if=none,id=d,readonly=on "
      "-device virtio-blk-pci,drive=d,werror=bogus",
      "qemu-system-x86_64: -device virtio-blk-pci,drive=d,werror=bogus: "
      "Parameter 'werror' does not accept value 'bogus'\n" },
};

static void test_bad_image(const void *data)
{
    const BadImage *c = data;
    g_autofree char *args = g_strdup_printf("-nodefaults %s", c->args);
    QTestState *s;
    int status;

    if (g_getenv("QTEST_ACCEL")) {
        g_test_skip("this emulator's wording");
        return;
    }
    s = qtest_init_without_qmp_handshake(args);
    status = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(qtest_stderr(s), ==, c->message);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    static const char *const caches[] = {
        "writeback", "none", "writethrough", "directsync", "unsafe",
    };
    static const char *const native_caches[] = { "none", "directsync" };

    g_test_init(&argc, &argv, NULL);
    qtest_add_func("virtio-blk/config", test_config);
    qtest_add_func("virtio-blk/read-write", test_read_write);
    qtest_add_func("virtio-blk/many-segments", test_many_segments);
    for (size_t i = 0; i < G_N_ELEMENTS(caches); i++) {
        char *path = g_strdup_printf("virtio-blk/cache/%s", caches[i]);

        qtest_add_data_func(path, caches[i], test_cache_mode);
        g_free(path);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(caches); i++) {
        char *path = g_strdup_printf("virtio-blk/io_uring/%s", caches[i]);

        qtest_add_data_func(path, caches[i], test_io_uring);
        g_free(path);
    }
    qtest_add_func("virtio-blk/io_uring/done-at-kick",
                   test_io_uring_done_at_kick);
    for (size_t i = 0; i < G_N_ELEMENTS(native_caches); i++) {
        char *path = g_strdup_printf("virtio-blk/native/%s",
                                     native_caches[i]);

        qtest_add_data_func(path, native_caches[i], test_native_aio);
        g_free(path);
    }
    qtest_add_data_func("virtio-blk/werror/stop", "stop", test_werror_stop);
    qtest_add_data_func("virtio-blk/werror/enospc", "enospc",
                        test_werror_stop);
    qtest_add_data_func("virtio-blk/werror/default", "", test_werror_stop);
    for (size_t i = 0; i < G_N_ELEMENTS(werror_cases); i++) {
        char *path = g_strdup_printf("virtio-blk/werror/no-stop/%zu", i);

        qtest_add_data_func(path, &werror_cases[i], test_werror_no_stop);
        g_free(path);
    }
    qtest_add_func("virtio-blk/blockdev-add-del", test_blockdev_add_del);
    qtest_add_func("virtio-blk/if-virtio", test_if_virtio);
    qtest_add_func("virtio-blk/blockdev", test_blockdev);
    qtest_add_func("virtio-blk/blockdev-json", test_blockdev_json);
    qtest_add_func("virtio-blk/get-id", test_get_id);
    qtest_add_func("virtio-blk/bad-requests", test_bad_requests);
    qtest_add_func("virtio-blk/discard-write-zeroes",
                   test_discard_write_zeroes);
    qtest_add_func("virtio-blk/discard-modes", test_discard_modes);
    qtest_add_func("virtio-blk/read-only", test_read_only);
    qtest_add_func("virtio-blk/no-status", test_no_status);
    qtest_add_func("virtio-blk/query-block", test_query_block);
    qtest_add_func("virtio-blk/query-blockstats", test_blockstats);
    qtest_add_func("virtio-blk/merge", test_merge);
    qtest_add_func("virtio-blk/block-resize", test_resize);
    qtest_add_func("virtio-blk/block-resize-read-only",
                   test_resize_read_only);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_images); i++) {
        char *path = g_strdup_printf("virtio-blk/bad-image/%zu", i);

        qtest_add_data_func(path, &bad_images[i], test_bad_image);
        g_free(path);
    }
    return g_test_run();
}
