/*
 * qtest for qcow2 images under virtio-blk-pci (libqvirtio): the guest's
 * writes allocate clusters (the format probed, no format=), partial
 * writes copy the rest of the cluster from a backing file that stays
 * unchanged, discard=unmap frees clusters, write-zeroes makes zero
 * clusters, compressed images (qemu-img convert -c) read back, an image
 * with the corrupt bit opens only read-only, and snapshot=on leaves the
 * image as it was. After each run `qemu-img check` finds no error and
 * `qemu-img compare` agrees with what the guest wrote. Needs qemu-img.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libqvirtio.h"
#include "qemu-img.h"

#define BLK_DEVICE_ID   0x1042
#define DISK_SIZE       (4 << 20)
#define REQ_BASE        0x200000ull
#define DATA_BASE       0x300000ull
#define CLUSTER         65536

#define T_IN            0
#define T_OUT           1
#define T_FLUSH         4
#define T_DISCARD       11
#define T_WRITE_ZEROES  13

#define F_FLUSH         (1ULL << 9)
#define F_DISCARD       (1ULL << 13)
#define F_WRITE_ZEROES  (1ULL << 14)

typedef struct Disk {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue vq;
    QGuestAlloc alloc;
} Disk;

static char *dir;

static char *path(const char *name)
{
    return g_build_filename(dir, name, NULL);
}

/* The emulator with args and a virtio-blk-pci on drive (or node) d. */
static void disk_start_args(Disk *d, const char *extra)
{
    g_autofree char *args = g_strdup_printf(
        "-nodefaults %s -device virtio-blk-pci,drive=d,disable-legacy=on",
        extra);

    memset(d, 0, sizeof(*d));
    qpci_alloc_reset();
    d->s = qtest_init(args);
    qalloc_init(&d->alloc, 0x100000, 0x200000);
    g_assert_true(qvirtio_pci_find(d->s, BLK_DEVICE_ID, &d->dev));
    g_assert_true(qvirtio_negotiate(&d->dev, QVIRTIO_F_VERSION_1 | F_FLUSH |
                                    F_DISCARD | F_WRITE_ZEROES));
    qvirtqueue_setup(&d->dev, &d->vq, &d->alloc, 0, 0);
    qvirtio_set_driver_ok(&d->dev);
}

static void disk_start(Disk *d, const char *drive_opts)
{
    g_autofree char *args = g_strdup_printf("-drive %s,if=none,id=d",
                                            drive_opts);

    disk_start_args(d, args);
}

/* One request of len bytes at DATA_BASE; returns its status. */
static uint8_t disk_req(Disk *d, uint32_t type, uint64_t sector,
                        uint32_t len)
{
    uint16_t head;
    uint32_t ulen;

    qtest_writel(d->s, REQ_BASE, type);
    qtest_writel(d->s, REQ_BASE + 4, 0);
    qtest_writeq(d->s, REQ_BASE + 8, sector);
    qtest_writeb(d->s, REQ_BASE + 16, 0xee);
    head = qvirtqueue_add(&d->dev, &d->vq, REQ_BASE, 16, false, true);
    if (len) {
        qvirtqueue_add(&d->dev, &d->vq, DATA_BASE, len, type == T_IN, true);
    }
    qvirtqueue_add(&d->dev, &d->vq, REQ_BASE + 16, 1, true, false);
    qvirtqueue_kick(&d->dev, &d->vq, head);
    for (int i = 0; i < 10000; i++) {
        if (qvirtqueue_get_buf(&d->dev, &d->vq, NULL, &ulen)) {
            return qtest_readb(d->s, REQ_BASE + 16);
        }
        g_usleep(1000);
    }
    g_assert_not_reached();
}

/* Write buf at byte offset (sectors) and mirror it into ref. */
static void disk_write(Disk *d, uint8_t *ref, uint64_t offset,
                       const uint8_t *buf, uint32_t len)
{
    qtest_memwrite(d->s, DATA_BASE, buf, len);
    g_assert_cmpuint(disk_req(d, T_OUT, offset / 512, len), ==, 0);
    memcpy(ref + offset, buf, len);
}

/* A discard or write-zeroes segment: sector, count, flags. */
static void disk_range_req(Disk *d, uint32_t type, uint64_t offset,
                           uint32_t len)
{
    qtest_writeq(d->s, DATA_BASE, offset / 512);
    qtest_writel(d->s, DATA_BASE + 8, len / 512);
    qtest_writel(d->s, DATA_BASE + 12, 0);
    g_assert_cmpuint(disk_req(d, type, 0, 16), ==, 0);
}

/* The whole disk as the guest reads it equals ref. */
static void disk_check(Disk *d, const uint8_t *ref)
{
    g_autofree uint8_t *buf = g_malloc(256 * 1024);

    for (uint64_t off = 0; off < DISK_SIZE; off += 256 * 1024) {
        g_assert_cmpuint(disk_req(d, T_IN, off / 512, 256 * 1024), ==, 0);
        qtest_memread(d->s, DATA_BASE, buf, 256 * 1024);
        g_assert_cmpmem(buf, 256 * 1024, ref + off, 256 * 1024);
    }
}

static void disk_stop(Disk *d)
{
    g_assert_cmpuint(disk_req(d, T_FLUSH, 0, 0), ==, 0);
    qtest_quit(d->s);
}

/* qemu-img check is clean and img holds what ref says. */
static void image_check(const char *img, const uint8_t *ref)
{
    g_autofree char *raw = path("ref.raw");

    g_assert_true(g_file_set_contents(raw, (const char *)ref, DISK_SIZE,
                                      NULL));
    g_assert_cmpint(qemu_img("check -q %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -q -F raw %s %s", img, raw), ==, 0);
}

static void fill(uint8_t *buf, size_t len, uint8_t seed)
{
    for (size_t i = 0; i < len; i++) {
        buf[i] = seed + i * 3 + (i >> 9);
    }
}

/* make_pattern: a raw image, compressible, no two clusters alike. */
static void make_pattern(const char *file, uint8_t *ref)
{
    for (uint64_t i = 0; i < DISK_SIZE; i++) {
        ref[i] = (i / 4096) % 3 ? (uint8_t)(i >> 12) : (uint8_t)(i * 13);
    }
    g_assert_true(g_file_set_contents(file, (const char *)ref, DISK_SIZE,
                                      NULL));
}

static void test_allocate(void)
{
    g_autofree char *img = path("alloc.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    uint8_t buf[8192];
    Disk d;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", img), ==, 0);
    disk_start(&d, opts);
    fill(buf, sizeof(buf), 1);
    disk_write(&d, ref, 0, buf, 512);
    disk_write(&d, ref, 3 * CLUSTER - 4096, buf, 8192);   /* two clusters */
    disk_write(&d, ref, DISK_SIZE - 512, buf, 512);
    fill(buf, sizeof(buf), 9);
    disk_write(&d, ref, 512, buf, 1024);                   /* in place */
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(img, ref);
}

/* query-block shows the chain as QEMU 7.2 does. */
static void check_query_block(Disk *d, const char *top, const char *base)
{
    JsonNode *reply = qtest_qmp(d->s, "{\"execute\": \"query-block\"}");
    JsonArray *list = json_object_get_array_member(
        json_node_get_object(reply), "return");
    JsonObject *ins = json_object_get_object_member(
        json_array_get_object_element(list, 0), "inserted");
    JsonObject *img = json_object_get_object_member(ins, "image");
    JsonObject *bimg = json_object_get_object_member(img, "backing-image");
    JsonObject *fs = json_object_get_object_member(img, "format-specific");

    g_assert_cmpstr(json_object_get_string_member(ins, "drv"), ==, "qcow2");
    g_assert_cmpint(json_object_get_int_member(ins, "backing_file_depth"),
                    ==, 1);
    g_assert_cmpstr(json_object_get_string_member(ins, "backing_file"), ==,
                    base);
    g_assert_cmpstr(json_object_get_string_member(img, "filename"), ==, top);
    g_assert_cmpint(json_object_get_int_member(img, "cluster-size"), ==,
                    CLUSTER);
    g_assert_cmpstr(json_object_get_string_member(img, "backing-filename"),
                    ==, "base.qcow2");
    g_assert_cmpstr(json_object_get_string_member(img,
                    "backing-filename-format"), ==, "qcow2");
    g_assert_cmpstr(json_object_get_string_member(bimg, "filename"), ==,
                    base);
    g_assert_cmpstr(json_object_get_string_member(fs, "type"), ==, "qcow2");
    g_assert_cmpstr(json_object_get_string_member(
        json_object_get_object_member(fs, "data"), "compat"), ==, "1.1");
    json_node_unref(reply);
}

static void test_cow_backing(void)
{
    g_autofree char *raw = path("base.raw");
    g_autofree char *base = path("base.qcow2");
    g_autofree char *top = path("top.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s", top);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    uint8_t buf[1024];
    Disk d;

    make_pattern(raw, ref);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, base), ==, 0);
    g_assert_cmpint(qemu_img("create -q -f qcow2 -b base.qcow2 -F qcow2 "
                        "%s", top), ==, 0);
    disk_start(&d, opts);
    check_query_block(&d, top, base);
    fill(buf, sizeof(buf), 5);
    /* Mid-cluster: the rest of the cluster comes from the base. */
    disk_write(&d, ref, 5 * CLUSTER + 3 * 512, buf, sizeof(buf));
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(top, ref);
    /* The base is what it was. */
    g_assert_cmpint(qemu_img("compare -q -F raw %s %s", base, raw), ==, 0);
}

/* The JSON of qemu-img map says [offset, offset + len) holds no data. */
static bool unallocated(const char *img, uint64_t offset)
{
    g_autofree char *out = qemu_img_output("map --output=json %s", img);
    g_auto(GStrv) lines = NULL;

    g_assert_nonnull(out);
    lines = g_strsplit(out, "\n", -1);
    for (int i = 0; lines[i]; i++) {
        uint64_t start, len;
        const char *s = strstr(lines[i], "\"start\": ");
        const char *l = strstr(lines[i], "\"length\": ");

        if (!s || !l) {
            continue;
        }
        start = g_ascii_strtoull(s + 9, NULL, 10);
        len = g_ascii_strtoull(l + 10, NULL, 10);
        if (offset >= start && offset < start + len) {
            return strstr(lines[i], "\"data\": false") != NULL;
        }
    }
    return false;
}

static void test_discard(void)
{
    g_autofree char *img = path("discard.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s,discard=unmap", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    g_autofree uint8_t *buf = g_malloc(4 * CLUSTER);
    Disk d;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", img), ==, 0);
    disk_start(&d, opts);
    fill(buf, 4 * CLUSTER, 7);
    disk_write(&d, ref, 8 * CLUSTER, buf, 4 * CLUSTER);
    disk_range_req(&d, T_DISCARD, 9 * CLUSTER, 2 * CLUSTER);
    memset(ref + 9 * CLUSTER, 0, 2 * CLUSTER);
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(img, ref);
    g_assert_false(unallocated(img, 8 * CLUSTER));
    g_assert_true(unallocated(img, 9 * CLUSTER));
}

static void test_write_zeroes(void)
{
    g_autofree char *raw = path("z.raw");
    g_autofree char *img = path("z.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    g_autofree char *out = NULL;
    Disk d;

    make_pattern(raw, ref);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, img), ==, 0);
    disk_start(&d, opts);
    /* Whole clusters become zero clusters; the partial one is data. */
    disk_range_req(&d, T_WRITE_ZEROES, 2 * CLUSTER, 3 * CLUSTER + 1024);
    memset(ref + 2 * CLUSTER, 0, 3 * CLUSTER + 1024);
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(img, ref);
    out = qemu_img_output("map --output=json %s", img);
    g_assert_nonnull(out);
    g_assert_nonnull(strstr(out, "\"start\": 131072, \"length\": 196608, "
                                 "\"depth\": 0, \"present\": true, "
                                 "\"zero\": true"));
}

static void test_compressed(const void *type)
{
    g_autofree char *raw = path("c.raw");
    g_autofree char *img = path("c.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s,format=qcow2", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    uint8_t buf[4096];
    Disk d;

    make_pattern(raw, ref);
    g_assert_cmpint(qemu_img("convert -c -o compression_type=%s -O "
                        "qcow2 %s %s", (const char *)type, raw, img), ==, 0);
    disk_start(&d, opts);
    disk_check(&d, ref);
    /* A write into a compressed cluster keeps the rest of it. */
    fill(buf, sizeof(buf), 3);
    disk_write(&d, ref, 7 * CLUSTER + 8192, buf, sizeof(buf));
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(img, ref);
}

static void test_corrupt_bit(void)
{
    g_autofree char *img = path("corrupt.qcow2");
    g_autofree char *args = g_strdup_printf(
        "-nodefaults -drive file=%s,if=none,id=d", img);
    g_autofree char *want = g_strdup_printf(
        "qemu-system-x86_64: -drive file=%s,if=none,id=d: qcow2: Image is "
        "corrupt; cannot be opened read/write\n", img);
    g_autofree char *opts = g_strdup_printf("file=%s,readonly=on", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    static const uint8_t corrupt = 2;
    QTestState *s;
    int fd, status;
    Disk d;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", img), ==, 0);
    fd = open(img, O_WRONLY);
    g_assert_cmpint(pwrite(fd, &corrupt, 1, 79), ==, 1);
    close(fd);
    s = qtest_init_without_qmp_handshake(args);
    status = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(qtest_stderr(s), ==, want);
    qtest_quit(s);
    disk_start(&d, opts);
    disk_check(&d, ref);
    qtest_quit(d.s);
}

/* -blockdev as libvirt gives it: qcow2 over file nodes, backing named. */
static void test_blockdev(void)
{
    g_autofree char *raw = path("bd.raw");
    g_autofree char *base = path("bd-base.qcow2");
    g_autofree char *top = path("bd-top.qcow2");
    g_autofree char *args = NULL, *base_sum = NULL, *sum = NULL;
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    uint8_t buf[4096];
    Disk d;

    make_pattern(raw, ref);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, base), ==, 0);
    /* The overlay names no backing file: -blockdev gives it. */
    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", top), ==, 0);
    args = g_strdup_printf(
        "-blockdev {\"driver\":\"file\",\"filename\":\"%s\","
        "\"node-name\":\"bf\",\"read-only\":true} "
        "-blockdev {\"driver\":\"qcow2\",\"file\":\"bf\",\"backing\":null,"
        "\"node-name\":\"b\",\"read-only\":true} "
        "-blockdev driver=file,filename=%s,node-name=tf "
        "-blockdev driver=qcow2,file=tf,backing=b,node-name=d,"
        "l2-cache-size=65536,cache-clean-interval=1", base, top);
    disk_start_args(&d, args);
    disk_check(&d, ref);
    fill(buf, sizeof(buf), 13);
    disk_write(&d, ref, 2 * CLUSTER + 1536, buf, sizeof(buf));
    disk_check(&d, ref);
    disk_stop(&d);
    g_assert_cmpint(qemu_img("check -q %s", top), ==, 0);
    g_assert_cmpint(qemu_img("compare -q -F raw %s %s", base, raw), ==, 0);
    /* What the overlay holds, over the base it was given. */
    g_assert_cmpint(qemu_img("rebase -u -b bd-base.qcow2 -F qcow2 %s", top),
                    ==, 0);
    image_check(top, ref);
}

/*
 * The emulator killed with SIGKILL while 32 allocating writes are in
 * flight: qemu-img check finds at most leaked clusters (exit status 0,
 * or 3 for leaks), never corruption. Kills at several moments.
 */
static void test_sigkill(void)
{
    g_autofree char *img = path("kill.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s", img);
    g_autofree uint8_t *buf = g_malloc(16384);

    for (unsigned delay_us = 0; delay_us <= 4000; delay_us += 1000) {
        int status;
        Disk d;

        g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", img), ==, 0);
        disk_start(&d, opts);
        fill(buf, 16384, delay_us / 1000);
        for (unsigned i = 0; i < 32; i++) {
            uint64_t hdr = REQ_BASE + i * 32, data = DATA_BASE + i * 16384;
            uint16_t head;

            qtest_writel(d.s, hdr, T_OUT);
            qtest_writel(d.s, hdr + 4, 0);
            /* Scattered and unaligned: partial clusters, COW of zeroes. */
            qtest_writeq(d.s, hdr + 8, (i * 37 % 64) * CLUSTER / 512 + 3);
            qtest_memwrite(d.s, data, buf, 16384);
            head = qvirtqueue_add(&d.dev, &d.vq, hdr, 16, false, true);
            qvirtqueue_add(&d.dev, &d.vq, data, 16384, false, true);
            qvirtqueue_add(&d.dev, &d.vq, hdr + 16, 1, true, false);
            qvirtqueue_kick(&d.dev, &d.vq, head);
        }
        g_usleep(delay_us);
        kill(qtest_pid(d.s), SIGKILL);
        status = qtest_wait_exit(d.s);
        g_assert_true(WIFSIGNALED(status));
        qtest_quit(d.s);
        status = qemu_img("check -q %s", img);
        g_test_message("kill after %u us: qemu-img check status %d", delay_us,
                       status);
        g_assert_true(status == 0 || status == 3);
    }
}

/*
 * A full disk while clusters are allocated, werror=stop: the VM stops in
 * io-error with a nospace event; with space again, cont completes the
 * write, and the image has neither errors nor leaks.
 */
static void test_enospc(void)
{
    g_autofree char *mnt = g_strdup("/tmp/qcow2-enospc-XXXXXX");
    g_autofree char *img = NULL, *filler = NULL, *opts = NULL;
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    static const uint8_t chunk[4096];
    uint8_t buf[4096];
    uint16_t head;
    uint32_t len;
    Disk d;
    int fd;

    g_assert_nonnull(g_mkdtemp(mnt));
    /* A tmpfs of the test's own mount namespace: gone with the test. */
    if (unshare(CLONE_NEWNS) < 0 ||
        mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0 ||
        mount("tmpfs", mnt, "tmpfs", 0, "size=1m") < 0) {
        g_test_skip("cannot mount a tmpfs");
        rmdir(mnt);
        return;
    }
    img = g_build_filename(mnt, "img.qcow2", NULL);
    filler = g_build_filename(mnt, "filler", NULL);
    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", img), ==, 0);
    fd = open(filler, O_CREAT | O_WRONLY, 0644);
    g_assert_cmpint(fd, >=, 0);
    while (write(fd, chunk, sizeof(chunk)) == sizeof(chunk)) {
    }
    close(fd);
    opts = g_strdup_printf("file=%s,werror=stop", img);
    disk_start(&d, opts);
    fill(buf, sizeof(buf), 17);
    qtest_memwrite(d.s, DATA_BASE, buf, sizeof(buf));
    qtest_writel(d.s, REQ_BASE, T_OUT);
    qtest_writel(d.s, REQ_BASE + 4, 0);
    qtest_writeq(d.s, REQ_BASE + 8, (3 * CLUSTER + 1024) / 512);
    qtest_writeb(d.s, REQ_BASE + 16, 0xee);
    head = qvirtqueue_add(&d.dev, &d.vq, REQ_BASE, 16, false, true);
    qvirtqueue_add(&d.dev, &d.vq, DATA_BASE, sizeof(buf), false, true);
    qvirtqueue_add(&d.dev, &d.vq, REQ_BASE + 16, 1, true, false);
    qvirtqueue_kick(&d.dev, &d.vq, head);
    qtest_qmp_eventwait(d.s, "STOP");
    g_assert_false(qvirtqueue_get_buf(&d.dev, &d.vq, NULL, &len));
    g_assert_cmpint(unlink(filler), ==, 0);
    json_node_unref(qtest_qmp(d.s, "{\"execute\": \"cont\"}"));
    for (int i = 0; i < 5000 && !qvirtqueue_get_buf(&d.dev, &d.vq, NULL,
                                                     &len); i++) {
        g_usleep(1000);
    }
    g_assert_cmpuint(qtest_readb(d.s, REQ_BASE + 16), ==, 0);
    memcpy(ref + 3 * CLUSTER + 1024, buf, sizeof(buf));
    disk_check(&d, ref);
    disk_stop(&d);
    image_check(img, ref);
    unlink(img);
    umount2(mnt, MNT_DETACH);
    rmdir(mnt);
}

static void qmp_ok(Disk *d, const char *cmd)
{
    JsonNode *reply = qtest_qmp(d->s, "%s", cmd);

    if (qtest_qmp_has_error(reply)) {
        g_autofree char *text = json_to_string(reply, FALSE);

        g_error("%s: %s", cmd, text);
    }
    json_node_unref(reply);
}

/*
 * External snapshots on a running drive, as libvirt takes them: the
 * guest writes, blockdev-snapshot-sync puts a new image on top, the
 * guest writes again; then blockdev-add of a pre-made overlay and
 * blockdev-snapshot put a third on top. Each image below holds what
 * was written before its snapshot, the chain all of it.
 */
static void test_external_snapshots(void)
{
    g_autofree char *base = path("ext-base.qcow2");
    g_autofree char *mid = path("ext-mid.qcow2");
    g_autofree char *top = path("ext-top.qcow2");
    g_autofree char *raw = path("ext.raw");
    g_autofree char *opts = g_strdup_printf("file=%s,format=qcow2", base);
    g_autofree char *cmd = NULL;
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    uint8_t buf[8192];
    JsonNode *reply;
    JsonObject *ins;
    Disk d;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", base), ==, 0);
    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 4M", top), ==, 0);
    disk_start(&d, opts);
    fill(buf, sizeof(buf), 21);
    disk_write(&d, ref, CLUSTER - 4096, buf, sizeof(buf));
    g_assert_true(g_file_set_contents(raw, (const char *)ref, DISK_SIZE,
                                      NULL));
    cmd = g_strdup_printf("{\"execute\": \"blockdev-snapshot-sync\", "
                          "\"arguments\": {\"device\": \"d\", "
                          "\"snapshot-file\": \"%s\", "
                          "\"snapshot-node-name\": \"mid\"}}", mid);
    qmp_ok(&d, cmd);
    fill(buf, sizeof(buf), 22);
    disk_write(&d, ref, CLUSTER + 512, buf, sizeof(buf));
    disk_check(&d, ref);
    g_free(cmd);
    cmd = g_strdup_printf("{\"execute\": \"blockdev-add\", \"arguments\": "
                          "{\"driver\": \"qcow2\", \"node-name\": \"top\", "
                          "\"backing\": null, \"file\": {\"driver\": "
                          "\"file\", \"filename\": \"%s\"}}}", top);
    qmp_ok(&d, cmd);
    qmp_ok(&d, "{\"execute\": \"blockdev-snapshot\", \"arguments\": "
           "{\"node\": \"mid\", \"overlay\": \"top\"}}");
    fill(buf, sizeof(buf), 23);
    disk_write(&d, ref, 7 * CLUSTER, buf, sizeof(buf));
    disk_check(&d, ref);
    reply = qtest_qmp(d.s, "{\"execute\": \"query-block\"}");
    ins = json_object_get_object_member(json_array_get_object_element(
        json_object_get_array_member(json_node_get_object(reply), "return"),
        0), "inserted");
    g_assert_cmpstr(json_object_get_string_member(ins, "node-name"), ==,
                    "top");
    g_assert_cmpint(json_object_get_int_member(ins, "backing_file_depth"),
                    ==, 2);
    json_node_unref(reply);
    disk_stop(&d);

    /* The base has only the first write; the chain has all three. */
    g_assert_cmpint(qemu_img("check -q %s", base), ==, 0);
    g_assert_cmpint(qemu_img("compare -q -F raw %s %s", base, raw), ==, 0);
    g_assert_cmpint(qemu_img("check -q %s", mid), ==, 0);
    g_assert_cmpint(qemu_img("rebase -u -b ext-mid.qcow2 -F qcow2 %s", top),
                    ==, 0);
    image_check(top, ref);
}

static void test_snapshot(void)
{
    g_autofree char *raw = path("s.raw");
    g_autofree char *img = path("s.qcow2");
    g_autofree char *opts = g_strdup_printf("file=%s,snapshot=on", img);
    g_autofree uint8_t *ref = g_malloc0(DISK_SIZE);
    g_autofree char *before = NULL, *after = NULL;
    gsize before_len, after_len;
    uint8_t buf[4096];
    Disk d;

    make_pattern(raw, ref);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, img), ==, 0);
    g_assert_true(g_file_get_contents(img, &before, &before_len, NULL));
    disk_start(&d, opts);
    fill(buf, sizeof(buf), 11);
    disk_write(&d, ref, CLUSTER + 512, buf, sizeof(buf));
    disk_range_req(&d, T_WRITE_ZEROES, 4 * CLUSTER, CLUSTER);
    memset(ref + 4 * CLUSTER, 0, CLUSTER);
    disk_check(&d, ref);
    disk_stop(&d);
    g_assert_true(g_file_get_contents(img, &after, &after_len, NULL));
    g_assert_cmpmem(before, before_len, after, after_len);
}

int main(int argc, char **argv)
{
        int ret;

    g_test_init(&argc, &argv, NULL);
    if (!qemu_img_available()) {
        g_test_skip("qemu-img is not installed");
        return g_test_run();
    }
    dir = g_dir_make_tmp("virtio-blk-qcow2-XXXXXX", NULL);
    qtest_add_func("virtio-blk-qcow2/allocate", test_allocate);
    qtest_add_func("virtio-blk-qcow2/cow-backing", test_cow_backing);
    qtest_add_func("virtio-blk-qcow2/discard", test_discard);
    qtest_add_func("virtio-blk-qcow2/write-zeroes", test_write_zeroes);
    qtest_add_data_func("virtio-blk-qcow2/compressed/zlib", "zlib",
                        test_compressed);
    qtest_add_data_func("virtio-blk-qcow2/compressed/zstd", "zstd",
                        test_compressed);
    qtest_add_func("virtio-blk-qcow2/corrupt-bit", test_corrupt_bit);
    qtest_add_func("virtio-blk-qcow2/snapshot", test_snapshot);
    qtest_add_func("virtio-blk-qcow2/blockdev", test_blockdev);
    qtest_add_func("virtio-blk-qcow2/sigkill", test_sigkill);
    qtest_add_func("virtio-blk-qcow2/enospc", test_enospc);
    qtest_add_func("virtio-blk-qcow2/external-snapshots",
                   test_external_snapshots);
    ret = g_test_run();
    g_autofree char *rm = g_strdup_printf("rm -rf %s", dir);
    g_spawn_command_line_sync(rm, NULL, NULL, NULL, NULL);
    return ret;
}
