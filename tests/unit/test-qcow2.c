/*
 * The qcow2 driver (block/qcow2*.c) against Debian's qemu-img: images
 * qemu-img makes (v2, v3, small clusters, other refcount widths, with a
 * backing file, compressed with zlib or zstd) are written through our
 * driver at random offsets and sizes, with write-zeroes and discards,
 * each change mirrored into a plain buffer; then what ours reads, what
 * `qemu-img compare` sees against the buffer, and `qemu-img check` must
 * all agree. Also: probing, the corrupt bit, backing loops, and damaged
 * headers refused with QEMU's messages. Skipped without qemu-img.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "block/block.h"
#include "qemu-img.h"

static char *dir;

static void no_error(Error *err)
{
    if (err) {
        g_error("%s", error_get_pretty(err));
    }
}

static char *path(const char *name)
{
    return g_build_filename(dir, name, NULL);
}

static BlockDriverState *open_image(const char *file, const char *format,
                                    bool read_only, Error **errp)
{
    BlockImageOptions o = {
        .filename = file, .format = format, .read_only = read_only,
        .locking = false, .qcow2 = BLOCK_QCOW2_OPTIONS_DEFAULT,
    };

    return bdrv_open_image(&o, errp);
}

static void do_write(BlockDriverState *bs, uint8_t *ref, uint64_t off,
                     uint64_t len, uint8_t seed)
{
    g_autofree uint8_t *buf = g_malloc(len);
    /* Two segments, so iovec splitting is exercised too. */
    struct iovec v[2] = {
        { buf, len / 3 }, { buf + len / 3, len - len / 3 },
    };

    for (uint64_t i = 0; i < len; i++) {
        buf[i] = seed + i * 7 + (i >> 9);
    }
    g_assert_cmpint(bs->drv->pwritev(bs, off, v, 2), ==, 0);
    memcpy(ref + off, buf, len);
}

static void check_read(BlockDriverState *bs, const uint8_t *ref,
                       uint64_t off, uint64_t len)
{
    g_autofree uint8_t *buf = g_malloc(len);
    struct iovec v = { buf, len };

    g_assert_cmpint(bs->drv->preadv(bs, off, &v, 1), ==, 0);
    g_assert_true(memcmp(buf, ref + off, len) == 0);
}

static void write_ref(const char *file, const uint8_t *ref, uint64_t size)
{
    g_assert_true(g_file_set_contents(file, (const char *)ref, size, NULL));
}

/*
 * Random writes, write-zeroes and discards on img (size bytes, the
 * content ref already has), then everything read back, compared by
 * qemu-img and checked.
 */
static void exercise(const char *img, uint8_t *ref, uint64_t size,
                     uint64_t cluster, unsigned rounds, bool discards)
{
    g_autofree char *raw = path("ref.raw");
    GRand *r = g_rand_new_with_seed(size ^ cluster ^ rounds);
    Error *err = NULL;
    BlockDriverState *bs = open_image(img, "qcow2", false, &err);

    no_error(err);
    g_assert_nonnull(bs);
    for (unsigned i = 0; i < rounds; i++) {
        uint64_t len = g_rand_int_range(r, 1, 5) * 512 *
                       g_rand_int_range(r, 1, 2 * cluster / 512 + 2);
        uint64_t off;
        int op = g_rand_int_range(r, 0, 10);

        len = MIN(len, size);
        off = (uint64_t)g_rand_int_range(r, 0, (size - len) / 512 + 1) * 512;
        if (op < 7) {
            do_write(bs, ref, off, len, i);
        } else if (op < 9) {
            g_assert_cmpint(bs->drv->write_zeroes(bs, off, len), ==, 0);
            memset(ref + off, 0, len);
        } else if (discards) {
            /* Whole clusters read as zeroes afterwards (no backing). */
            uint64_t a = (off + cluster - 1) / cluster * cluster;
            uint64_t b = (off + len) / cluster * cluster;

            g_assert_cmpint(bs->drv->discard(bs, off, len), ==, 0);
            if (a < b) {
                memset(ref + a, 0, b - a);
            }
        }
        if (i % 16 == 0) {
            check_read(bs, ref, 0, size);
        }
    }
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    g_rand_free(r);
    write_ref(raw, ref, size);
    g_assert_cmpint(qemu_img("check %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -f qcow2 -F raw %s %s", img, raw),
                    ==, 0);
}

static void test_rw(gconstpointer opts)
{
    g_autofree char *img = path("rw.qcow2");
    uint64_t size = 16 << 20, cluster = 65536;
    g_autofree uint8_t *ref = g_malloc0(size);
    const char *cs = strstr(opts, "cluster_size=");

    if (cs) {
        cluster = g_ascii_strtoull(cs + strlen("cluster_size="), NULL, 10);
    }
    g_assert_cmpint(qemu_img("create -q -f qcow2 -o %s %s 16M",
                        (const char *)opts, img), ==, 0);
    exercise(img, ref, size, cluster, 300, !strstr(opts, "compat=0.10"));
    g_unlink(img);
}

/*
 * Every cluster of a small-cluster image written in large chunks: the
 * refcount table (64 entries of 128 KiB each with 512-byte clusters)
 * must grow several times; with 1 KiB clusters and 64-bit refcounts a
 * refcount block covers 128 clusters, fewer than one write needs.
 */
typedef struct FillCase {
    const char *opts;
    uint64_t chunk;
} FillCase;

static void test_fill(gconstpointer data)
{
    const FillCase *fc = data;
    g_autofree char *img = path("fill.qcow2");
    g_autofree char *raw = path("ref.raw");
    uint64_t size = 16 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    Error *err = NULL;
    BlockDriverState *bs;

    g_assert_cmpint(qemu_img("create -q -f qcow2 -o %s %s 16M", fc->opts,
                             img), ==, 0);
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    for (uint64_t off = 0; off < size; off += fc->chunk) {
        do_write(bs, ref, off, fc->chunk, off / fc->chunk);
    }
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    write_ref(raw, ref, size);
    g_assert_cmpint(qemu_img("check %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -f qcow2 -F raw %s %s", img, raw), ==,
                    0);
    g_unlink(img);
}

static const FillCase fill_cases[] = {
    { "cluster_size=512", 65536 },
    { "cluster_size=1024,refcount_bits=64", 262144 },
};

/*
 * Four threads write 512-byte sectors (thread t the sectors n with
 * n % 4 == t) of the same clusters at once, as the worker threads of
 * the block layer do: allocations race, none may lose another's data.
 */
typedef struct Racer {
    BlockDriverState *bs;
    uint8_t *ref;
    unsigned t;
} Racer;

static gpointer racer(gpointer opaque)
{
    Racer *r = opaque;
    uint8_t buf[512];
    struct iovec v = { buf, sizeof(buf) };

    for (uint64_t n = r->t; n < 4096; n += 4) {
        uint64_t sector = (n * 97) % 4096;  /* scattered, still disjoint */

        if (sector % 4 != r->t) {
            sector = sector - sector % 4 + r->t;
        }
        memset(buf, (uint8_t)(sector + 1), sizeof(buf));
        g_assert_cmpint(r->bs->drv->pwritev(r->bs, sector * 512, &v, 1), ==,
                        0);
        memcpy(r->ref + sector * 512, buf, sizeof(buf));
    }
    return NULL;
}

static void test_threads(void)
{
    g_autofree char *img = path("threads.qcow2");
    g_autofree char *raw = path("ref.raw");
    uint64_t size = 2 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    Racer r[4];
    GThread *th[4];
    Error *err = NULL;

    g_assert_cmpint(qemu_img("create -q -f qcow2 -o cluster_size=4096 %s 2M",
                             img), ==, 0);
    for (unsigned round = 0; round < 2; round++) {
        BlockDriverState *bs = open_image(img, "qcow2", false, &err);

        no_error(err);
        for (unsigned t = 0; t < 4; t++) {
            r[t] = (Racer){ bs, ref, t };
            th[t] = g_thread_new("racer", racer, &r[t]);
        }
        for (unsigned t = 0; t < 4; t++) {
            g_thread_join(th[t]);
        }
        check_read(bs, ref, 0, size);
        bdrv_close_all();
    }
    write_ref(raw, ref, size);
    g_assert_cmpint(qemu_img("check %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -f qcow2 -F raw %s %s", img, raw), ==,
                    0);
    g_unlink(img);
}

/* A pattern file of size bytes, and the same in ref. */
static void make_pattern(const char *file, uint8_t *ref, uint64_t size)
{
    for (uint64_t i = 0; i < size; i++) {
        /* Compressible, yet no cluster like another. */
        ref[i] = (i / 4096) % 3 ? (uint8_t)(i >> 12) : (uint8_t)(i * 13);
    }
    write_ref(file, ref, size);
}

static void test_backing(void)
{
    g_autofree char *raw = path("base.raw");
    g_autofree char *base = path("base.qcow2");
    g_autofree char *top = path("top.qcow2");
    uint64_t size = 8 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    Error *err = NULL;
    BlockDriverState *bs;

    make_pattern(raw, ref, size);
    g_assert_cmpint(qemu_img("convert -f raw -O qcow2 %s %s", raw, base),
                    ==, 0);
    /* A relative name: from the overlay's directory. */
    g_assert_cmpint(qemu_img("create -q -f qcow2 -b base.qcow2 -F qcow2 "
                        "%s", top), ==, 0);
    /* No format: probed, and the chain below read-only. */
    bs = open_image(top, NULL, false, &err);
    no_error(err);
    g_assert_cmpstr(bs->drv->name, ==, "qcow2");
    g_assert_nonnull(bs->backing);
    g_assert_true(bs->backing->read_only);
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    /* Partial writes copy the rest of the cluster from the backing. */
    exercise(top, ref, size, 65536, 200, false);
    g_assert_cmpint(qemu_img("compare -f raw -F qcow2 %s %s", raw, base),
                    ==, 0);
    g_unlink(top);
    g_unlink(base);
    g_unlink(raw);
}

static void test_compressed(gconstpointer type)
{
    g_autofree char *raw = path("c.raw");
    g_autofree char *img = path("c.qcow2");
    uint64_t size = 4 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    Error *err = NULL;
    BlockDriverState *bs;

    make_pattern(raw, ref, size);
    g_assert_cmpint(qemu_img("convert -c -o compression_type=%s -f raw "
                        "-O qcow2 %s %s", (const char *)type, raw, img),
                    ==, 0);
    bs = open_image(img, "qcow2", true, &err);
    no_error(err);
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    /* Writes into compressed clusters: copy-on-write of their content. */
    exercise(img, ref, size, 65536, 100, true);
    g_unlink(img);
    g_unlink(raw);
}

/*
 * An image with an internal snapshot (qemu-img snapshot -c): our writes
 * copy the clusters and L2 tables the snapshot shares, so the image
 * checks clean and the snapshot still holds what it held.
 */
static void test_internal_snapshot(void)
{
    g_autofree char *raw = path("is.raw");
    g_autofree char *img = path("is.qcow2");
    uint64_t size = 4 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);

    make_pattern(raw, ref, size);
    g_assert_cmpint(qemu_img("convert -O qcow2 %s %s", raw, img), ==, 0);
    g_assert_cmpint(qemu_img("snapshot -c s1 %s", img), ==, 0);
    exercise(img, ref, size, 65536, 100, true);
    /* Back to the snapshot: the original pattern. */
    g_assert_cmpint(qemu_img("snapshot -a s1 %s", img), ==, 0);
    g_assert_cmpint(qemu_img("check %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -f qcow2 -F raw %s %s", img, raw), ==,
                    0);
    g_unlink(img);
    g_unlink(raw);
}

static void set_header_bytes(const char *img, off_t at, const void *bytes,
                             size_t len)
{
    int fd = open(img, O_WRONLY);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(pwrite(fd, bytes, len, at), ==, len);
    close(fd);
}

static void test_corrupt_bit(void)
{
    g_autofree char *img = path("corrupt.qcow2");
    static const uint8_t corrupt[8] = { 0, 0, 0, 0, 0, 0, 0, 2 };
    Error *err = NULL;
    BlockDriverState *bs;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1M", img), ==, 0);
    set_header_bytes(img, 72, corrupt, sizeof(corrupt));
    bs = open_image(img, "qcow2", false, &err);
    g_assert_null(bs);
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "qcow2: Image is corrupt; cannot be opened read/write");
    error_free(err);
    err = NULL;
    bs = open_image(img, "qcow2", true, &err);
    no_error(err);
    g_assert_nonnull(bs);
    bdrv_close_all();
    g_unlink(img);
}

static void test_probe(void)
{
    g_autofree char *img = path("p.qcow2");
    g_autofree char *raw = path("p.raw");
    static const uint8_t zero[4096];
    uint8_t sector[512] = { 0 };
    struct iovec v = { sector, sizeof(sector) };
    Error *err = NULL;
    BlockDriverState *bs;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1M", img), ==, 0);
    g_assert_true(g_file_set_contents(raw, "hello", 5, NULL));
    bs = open_image(img, NULL, true, &err);
    no_error(err);
    g_assert_cmpstr(bs->drv->name, ==, "qcow2");
    g_assert_cmpuint(bs->size, ==, 1 << 20);
    bdrv_close_all();
    /* Probed raw: sector 0 may not become a qcow2 header (QEMU's rule). */
    g_assert_true(g_file_set_contents(raw, (const char *)zero, 4096, NULL));
    bs = open_image(raw, NULL, false, &err);
    no_error(err);
    g_assert_cmpstr(bs->drv->name, ==, "raw");
    memcpy(sector, "QFI\xfb", 4);
    g_assert_cmpint(bs->drv->pwritev(bs, 0, &v, 1), ==, -EPERM);
    g_assert_cmpint(bs->drv->pwritev(bs, 512, &v, 1), ==, 0);
    sector[0] = 'X';
    g_assert_cmpint(bs->drv->pwritev(bs, 0, &v, 1), ==, 0);
    bdrv_close_all();
    /* format=raw: the guest's bytes are its own. */
    bs = open_image(raw, "raw", false, &err);
    no_error(err);
    sector[0] = 'Q';
    g_assert_cmpint(bs->drv->pwritev(bs, 0, &v, 1), ==, 0);
    bdrv_close_all();
    g_unlink(img);
    g_unlink(raw);
}

static void test_backing_loop(void)
{
    g_autofree char *a = path("a.qcow2");
    g_autofree char *b = path("b.qcow2");
    Error *err = NULL;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1M", a), ==, 0);
    g_assert_cmpint(qemu_img("create -q -f qcow2 -b a.qcow2 -F qcow2 "
                        "%s", b), ==, 0);
    g_assert_cmpint(qemu_img("rebase -u -b b.qcow2 -F qcow2 %s", a), ==,
                    0);
    g_assert_null(open_image(b, NULL, false, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "loop"));
    g_clear_pointer(&err, error_free);
    /* An image naming itself. */
    g_assert_cmpint(qemu_img("rebase -u -b a.qcow2 -F qcow2 %s", a), ==,
                    0);
    g_assert_null(open_image(a, NULL, false, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "loop"));
    g_clear_pointer(&err, error_free);
    bdrv_close_all();
    g_unlink(a);
    g_unlink(b);
}

/* snapshot=on: writes land in the overlay; the image stays as it was. */
static void test_temp_overlay(void)
{
    g_autofree char *raw = path("snap.raw");
    g_autofree char *img = path("snap.qcow2");
    uint64_t size = 2 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    g_autofree char *before = NULL, *after = NULL;
    gsize before_len, after_len;
    Error *err = NULL;
    BlockDriverState *base, *bs;

    make_pattern(raw, ref, size);
    g_assert_cmpint(qemu_img("convert -f raw -O qcow2 %s %s", raw, img),
                    ==, 0);
    g_assert_true(g_file_get_contents(img, &before, &before_len, NULL));
    base = open_image(img, NULL, true, &err);
    no_error(err);
    bs = bdrv_temp_overlay(base, &err);
    no_error(err);
    g_assert_false(bs->read_only);
    g_assert_true(bs->file->temporary);
    /* Unlinked at once. */
    g_assert_false(g_file_test(bs->file->filename, G_FILE_TEST_EXISTS));
    do_write(bs, ref, 1000 * 512, 100000, 3);
    g_assert_cmpint(bs->drv->write_zeroes(bs, 0, 65536), ==, 0);
    memset(ref, 0, 65536);
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    g_assert_true(g_file_get_contents(img, &after, &after_len, NULL));
    g_assert_cmpuint(before_len, ==, after_len);
    g_assert_true(memcmp(before, after, before_len) == 0);
    g_unlink(img);
    g_unlink(raw);
}

typedef struct BadHeader {
    off_t at;
    uint8_t bytes[8];
    size_t len;
    const char *message;
} BadHeader;

static const BadHeader bad_headers[] = {
    { 4, { 0, 0, 0, 4 }, 4, "Unsupported qcow2 version 4" },
    { 20, { 0, 0, 0, 30 }, 4, "Unsupported cluster size: 2^30" },
    { 36, { 0x7f, 0xff, 0xff, 0xff }, 4, "Active L1 table too large" },
    { 56, { 0, 0, 0x10, 0 }, 4, "Reference count table too large" },
    { 48, { 0, 0, 0, 0, 0, 0, 0x12, 0x34 }, 8,
      "Invalid reference count table offset" },
    { 40, { 0, 0, 0, 0, 0, 0, 0, 0 }, 8, "Invalid L1 table offset" },
    { 24, { 0, 0, 1, 0, 0, 0, 0, 0 }, 8, "L1 table is too small" },
    { 24, { 0x7f, 0, 0, 0, 0, 0, 0, 0 }, 8, "Image is too big" },
    { 100, { 0, 0, 0, 8 }, 4, "qcow2 header too short" },
    { 96, { 0, 0, 0, 7 }, 4,
      "Reference count entry width too large; may not exceed 64 bits" },
    { 72, { 0, 0, 0, 0, 0, 0, 0, 0x10 }, 8,
      "Unsupported qcow2 feature(s): extended L2 entries" },
    /* Aligned, but past the end of the file: entries are written there. */
    { 40, { 0, 0, 0x10, 0, 0, 0, 0, 0 }, 8, "Invalid L1 table offset" },
    { 48, { 0, 0, 0x10, 0, 0, 0, 0, 0 }, 8,
      "Invalid reference count table offset" },
};

static void test_bad_headers(void)
{
    g_autofree char *img = path("bad.qcow2");

    for (size_t i = 0; i < G_N_ELEMENTS(bad_headers); i++) {
        const BadHeader *h = &bad_headers[i];
        Error *err = NULL;

        g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1M", img), ==, 0);
        set_header_bytes(img, h->at, h->bytes, h->len);
        g_assert_null(open_image(img, "qcow2", false, &err));
        g_assert_cmpstr(error_get_pretty(err), ==, h->message);
        error_free(err);
    }
    bdrv_close_all();
    g_unlink(img);
}

/* An L2 entry pointing into the header: refused, the image marked. */
static void test_bad_l2_entry(void)
{
    g_autofree char *img = path("badl2.qcow2");
    /* COPIED, at cluster 3: the L1 table. */
    static const uint8_t entry[8] = { 0x80, 0, 0, 0, 0, 3, 0, 0 };
    Error *err = NULL;
    BlockDriverState *bs;
    uint8_t buf[512];
    struct iovec v = { buf, sizeof(buf) };

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1M", img), ==, 0);
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    g_assert_cmpint(bs->drv->pwritev(bs, 0, &v, 1), ==, 0);
    bdrv_close_all();
    /* The L2 table is the 5th cluster: point entry 0 at the L1 table. */
    set_header_bytes(img, 4 * 65536, entry, sizeof(entry));
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    g_assert_cmpint(bs->drv->preadv(bs, 0, &v, 1), ==, -EIO);
    g_assert_cmpint(bs->drv->pwritev(bs, 0, &v, 1), ==, -EIO);
    bdrv_close_all();
    /* Marked corrupt: only read-only from now on. */
    g_assert_null(open_image(img, "qcow2", false, &err));
    g_clear_pointer(&err, error_free);
    g_unlink(img);
}

/*
 * Refcount 0 on an active L2 table (a damaged image) that is not in the
 * cache: the allocator must not hand its cluster out for a new table.
 */
static void test_refcount_zero_in_use(void)
{
    g_autofree char *img = path("rc0.qcow2");
    static const uint8_t zero16[2];
    uint64_t second = 512 << 20;        /* the next L1 entry's range */
    g_autofree uint8_t *ref = g_malloc0(second + 65536);
    Error *err = NULL;
    BlockDriverState *bs;

    g_assert_cmpint(qemu_img("create -q -f qcow2 %s 1G", img), ==, 0);
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    do_write(bs, ref, 0, 65536, 1);     /* L2 table in cluster 4 */
    bdrv_close_all();
    /* The refcount block is cluster 2: entry 4 says 0. */
    set_header_bytes(img, 2 * 65536 + 4 * 2, zero16, sizeof(zero16));
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    do_write(bs, ref, second, 65536, 2);  /* a new L2 table */
    check_read(bs, ref, 0, 65536);
    check_read(bs, ref, second, 65536);
    bdrv_close_all();
    g_unlink(img);
}

/*
 * QEMU with lazy_refcounts=on killed (qemu-io's abort) after writes:
 * the dirty bit is set and the new clusters' refcounts are 0. Opened
 * writable, the refcounts are rebuilt and the bit cleared; the content
 * is intact and qemu-img check finds no error.
 */
static void test_dirty_repair(void)
{
    g_autofree char *img = path("dirty.qcow2");
    g_autofree char *raw = path("ref.raw");
    g_autofree char *cmd = NULL;
    uint64_t size = 4 << 20;
    g_autofree uint8_t *ref = g_malloc0(size);
    Error *err = NULL;
    BlockDriverState *bs;
    int status;

    g_assert_cmpint(qemu_img("create -q -f qcow2 -o lazy_refcounts=on %s 4M",
                             img), ==, 0);
    cmd = g_strdup_printf("qemu-io -f qcow2 -c 'write -P 0x33 0 256k' "
                          "-c 'write -P 0x44 1M 64k' -c abort %s", img);
    g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, &status, NULL));
    memset(ref, 0x33, 256 << 10);
    memset(ref + (1 << 20), 0x44, 64 << 10);
    /* Damaged as QEMU leaves it: not clean yet. */
    g_assert_cmpint(qemu_img("check -q %s", img), !=, 0);
    bs = open_image(img, "qcow2", false, &err);
    no_error(err);
    check_read(bs, ref, 0, size);
    do_write(bs, ref, 2 << 20, 100000, 5);
    check_read(bs, ref, 0, size);
    bdrv_close_all();
    write_ref(raw, ref, size);
    g_assert_cmpint(qemu_img("check %s", img), ==, 0);
    g_assert_cmpint(qemu_img("compare -f qcow2 -F raw %s %s", img, raw), ==,
                    0);
    g_unlink(img);
}

int main(int argc, char **argv)
{
        int ret;

    g_test_init(&argc, &argv, NULL);
    if (!qemu_img_available()) {
        g_test_skip("qemu-img is not installed");
        return g_test_run();
    }
    dir = g_dir_make_tmp("test-qcow2-XXXXXX", NULL);
    g_test_add_data_func("/qcow2/rw/v3", "compat=1.1", test_rw);
    g_test_add_data_func("/qcow2/rw/v2", "compat=0.10", test_rw);
    g_test_add_data_func("/qcow2/rw/small-clusters",
                         "cluster_size=512", test_rw);
    g_test_add_data_func("/qcow2/rw/refcount-bits-1",
                         "refcount_bits=1,cluster_size=4096", test_rw);
    g_test_add_data_func("/qcow2/rw/refcount-bits-64",
                         "refcount_bits=64,cluster_size=4096", test_rw);
    g_test_add_data_func("/qcow2/rw/lazy-refcounts", "lazy_refcounts=on",
                         test_rw);
    g_test_add_data_func("/qcow2/fill/512", &fill_cases[0], test_fill);
    g_test_add_data_func("/qcow2/fill/1k-refcount-64", &fill_cases[1],
                         test_fill);
    g_test_add_func("/qcow2/threads", test_threads);
    g_test_add_func("/qcow2/backing", test_backing);
    g_test_add_data_func("/qcow2/compressed/zlib", "zlib", test_compressed);
    g_test_add_data_func("/qcow2/compressed/zstd", "zstd", test_compressed);
    g_test_add_func("/qcow2/corrupt-bit", test_corrupt_bit);
    g_test_add_func("/qcow2/dirty-repair", test_dirty_repair);
    g_test_add_func("/qcow2/internal-snapshot", test_internal_snapshot);
    g_test_add_func("/qcow2/temp-overlay", test_temp_overlay);
    g_test_add_func("/qcow2/probe", test_probe);
    g_test_add_func("/qcow2/backing-loop", test_backing_loop);
    g_test_add_func("/qcow2/bad-headers", test_bad_headers);
    g_test_add_func("/qcow2/bad-l2-entry", test_bad_l2_entry);
    g_test_add_func("/qcow2/refcount-zero-in-use",
                    test_refcount_zero_in_use);
    ret = g_test_run();
    g_rmdir(dir);
    return ret;
}
