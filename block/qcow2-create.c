/*
 * A new, empty qcow2 image (version 3, 64 KiB clusters, 16-bit
 * refcounts), as the temporary overlay of snapshot=on needs: the header
 * with its extensions and backing file name in cluster 0, the refcount
 * table in cluster 1, one refcount block in cluster 2, the L1 table
 * after it. Everything else is allocated as it is written.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "block/qcow2.h"

#define CREATE_CLUSTER_BITS 16

static void put32(uint8_t *p, uint32_t v)
{
    p[0] = v >> 24;
    p[1] = v >> 16;
    p[2] = v >> 8;
    p[3] = v;
}

static bool write_all(int fd, const void *buf, size_t len, uint64_t off,
                      Error **errp)
{
    const uint8_t *p = buf;

    while (len) {
        ssize_t r = pwrite(fd, p, len, off);

        if (r < 0 && errno == EINTR) {
            continue;
        }
        if (r <= 0) {
            error_setg_errno(errp, r < 0 ? errno : EIO,
                             "Could not write qcow2 header");
            return false;
        }
        p += r;
        off += r;
        len -= r;
    }
    return true;
}

bool bdrv_qcow2_create(int fd, uint64_t size, const char *backing,
                       const char *backing_fmt, Error **errp)
{
    const uint64_t cs = 1ull << CREATE_CLUSTER_BITS;
    uint64_t per_l1 = cs * (cs / 8);
    uint64_t l1_size = (size + per_l1 - 1) / per_l1;
    uint64_t l1_clusters = MAX(1, (l1_size * 8 + cs - 1) / cs);
    uint64_t meta = 3 + l1_clusters, ext = 112;
    g_autofree uint8_t *h = g_malloc0(cs);
    g_autofree uint8_t *rb = g_malloc0(cs);
    uint8_t rt[8];

    if (backing && strlen(backing) > QCOW2_MAX_BACKING_NAME) {
        error_setg(errp, "Backing file name too long");
        return false;
    }
    put32(h + 0, QCOW2_MAGIC);
    put32(h + 4, 3);
    put32(h + 20, CREATE_CLUSTER_BITS);
    qcow2_set_be64(h + 24, size);
    put32(h + 36, l1_size);
    qcow2_set_be64(h + 40, 3 * cs);
    qcow2_set_be64(h + 48, cs);
    put32(h + 56, 1);
    put32(h + 96, 4);
    put32(h + 100, 112);
    if (backing_fmt) {
        size_t n = strlen(backing_fmt);

        put32(h + ext, QCOW2_EXT_BACKING_FORMAT);
        put32(h + ext + 4, n);
        memcpy(h + ext + 8, backing_fmt, n);
        ext += 8 + ((n + 7) & ~7ul);
    }
    ext += 8;   /* the end marker: zeroes */
    if (backing) {
        qcow2_set_be64(h + 8, ext);
        put32(h + 16, strlen(backing));
        memcpy(h + ext, backing, strlen(backing));
    }
    for (uint64_t c = 0; c < meta; c++) {
        rb[2 * c + 1] = 1;
    }
    qcow2_set_be64(rt, 2 * cs);
    if (!write_all(fd, h, cs, 0, errp) || !write_all(fd, rt, 8, cs, errp) ||
        !write_all(fd, rb, cs, 2 * cs, errp)) {
        return false;
    }
    if (ftruncate(fd, meta * cs) < 0) {
        error_setg_errno(errp, errno, "Could not resize file");
        return false;
    }
    return true;
}
