/*
 * The qcow2 format driver (block/qcow2.h): the header and its
 * extensions, the checks an image must pass to be opened (QEMU's limits
 * and messages), the caches' sizes, and the driver's operations.
 * qcow2-cluster.c maps guest clusters, qcow2-refcount.c counts host
 * clusters, qcow2-cache.c keeps tables, qcow2-compress.c inflates.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "block/qcow2.h"
#include "qemu/error.h"

/* Header field offsets */
#define HDR_MAGIC               0
#define HDR_VERSION             4
#define HDR_BACKING_OFFSET      8
#define HDR_BACKING_SIZE        16
#define HDR_CLUSTER_BITS        20
#define HDR_SIZE                24
#define HDR_CRYPT               32
#define HDR_L1_SIZE             36
#define HDR_L1_OFFSET           40
#define HDR_REFT_OFFSET         48
#define HDR_REFT_CLUSTERS       56
#define HDR_NB_SNAPSHOTS        60
#define HDR_SNAPSHOTS_OFFSET    64
#define HDR_INCOMPAT            72
#define HDR_COMPAT              80
#define HDR_AUTOCLEAR           88
#define HDR_REFCOUNT_ORDER      96
#define HDR_HEADER_LENGTH       100
#define HDR_COMPRESSION_TYPE    104

#define SNAPSHOT_HEADER_MIN     40

uint64_t qcow2_be64(const void *p)
{
    uint64_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT64_FROM_BE(v);
}

void qcow2_set_be64(void *p, uint64_t v)
{
    v = GUINT64_TO_BE(v);
    memcpy(p, &v, sizeof(v));
}

static uint32_t be32(const void *p)
{
    uint32_t v;

    memcpy(&v, p, sizeof(v));
    return GUINT32_FROM_BE(v);
}

void *qcow2_alloc_aligned(uint64_t size)
{
    void *p = NULL;

    if (posix_memalign(&p, 4096, MAX(size, 1)) != 0) {
        return NULL;
    }
    memset(p, 0, size);
    return p;
}

/* O_DIRECT needs aligned buffers, offsets and lengths. */
static bool io_aligned(Qcow2State *s, uint64_t offset, const void *buf,
                       uint64_t len)
{
    return !s->file->direct ||
           !((offset | len | (uintptr_t)buf) & 4095);
}

/*
 * A transfer O_DIRECT cannot take as it is: through an aligned buffer
 * covering it (a write reads the blocks around it first).
 */
static int bounce_rw(Qcow2State *s, uint64_t offset, void *buf,
                     uint64_t len, bool write)
{
    uint64_t start = offset & ~4095ull;
    uint64_t end = (offset + len + 4095) & ~4095ull;
    uint8_t *bounce = qcow2_alloc_aligned(end - start);
    struct iovec v = { .iov_base = bounce, .iov_len = end - start };
    int ret;

    if (!bounce) {
        return -ENOMEM;
    }
    ret = s->file->drv->preadv(s->file, start, &v, 1);
    if (!ret && write) {
        memcpy(bounce + (offset - start), buf, len);
        ret = s->file->drv->pwritev(s->file, start, &v, 1);
    } else if (!ret) {
        memcpy(buf, bounce + (offset - start), len);
    }
    free(bounce);
    return ret;
}

int qcow2_pread(Qcow2State *s, uint64_t offset, void *buf, uint64_t len)
{
    struct iovec v = { .iov_base = buf, .iov_len = len };

    if (!io_aligned(s, offset, buf, len)) {
        return bounce_rw(s, offset, buf, len, false);
    }
    return s->file->drv->preadv(s->file, offset, &v, 1);
}

int qcow2_pwrite(Qcow2State *s, uint64_t offset, const void *buf,
                 uint64_t len)
{
    struct iovec v = { .iov_base = (void *)buf, .iov_len = len };

    if (!io_aligned(s, offset, buf, len)) {
        return bounce_rw(s, offset, (void *)buf, len, true);
    }
    return s->file->drv->pwritev(s->file, offset, &v, 1);
}

int qcow2_write_table_part(Qcow2State *s, uint64_t table_offset,
                           const void *buf, uint64_t table_len,
                           uint64_t start, uint64_t len)
{
    uint64_t a = s->io_align;
    uint64_t end = MIN(table_len, (start + len + a - 1) / a * a);

    start = start / a * a;
    return qcow2_pwrite(s, table_offset + start, (const uint8_t *)buf + start,
                        end - start);
}

int qcow2_write_header_part(Qcow2State *s, unsigned start, unsigned len)
{
    return qcow2_write_table_part(s, 0, s->header, s->cluster_size, start,
                                  len);
}

int qcow2_signal_corruption(Qcow2State *s, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (s->corrupt_reported) {
        return -EIO;
    }
    s->corrupt_reported = true;
    if (s->read_only) {
        error_report("qcow2: Image is corrupt: %s", msg);
        return -EIO;
    }
    error_report("qcow2: Marking image as corrupt: %s; further corruption "
                 "events will be suppressed", msg);
    s->incompat |= QCOW2_INCOMPAT_CORRUPT;
    qcow2_set_be64(s->header + HDR_INCOMPAT, s->incompat);
    qcow2_write_header_part(s, HDR_INCOMPAT, 8);
    /* Nothing more is written to it from now on. */
    s->read_only = true;
    return -EIO;
}

static bool ranges_overlap(uint64_t a, uint64_t alen, uint64_t b,
                           uint64_t blen)
{
    return alen && blen && a < b + blen && b < a + alen;
}

bool qcow2_overlaps_metadata(Qcow2State *s, uint64_t offset, uint64_t len)
{
    return ranges_overlap(offset, len, 0, s->cluster_size) ||
           ranges_overlap(offset, len, s->l1_offset,
                          (uint64_t)s->l1_size * 8) ||
           ranges_overlap(offset, len, s->reftable_offset,
                          (uint64_t)s->reftable_clusters << s->cluster_bits);
}

/* QEMU's validate_table_offset(), and not in the header's cluster. */
static bool table_ok(Qcow2State *s, uint64_t offset, uint64_t entries,
                     uint64_t entry_len)
{
    uint64_t size;

    if (entries > INT64_MAX / entry_len) {
        return false;
    }
    size = entries * entry_len;
    if (INT64_MAX - size < offset || (offset & (s->cluster_size - 1))) {
        return false;
    }
    return !size || offset >= s->cluster_size;
}

/* A feature's name from the image's feature table, for messages. */
static char *feature_names(const uint8_t *table, size_t table_len,
                           uint64_t mask)
{
    GString *str = g_string_new(NULL);

    for (unsigned bit = 0; bit < 64; bit++) {
        const char *name = NULL;
        char buf[47];

        if (!(mask & (1ull << bit))) {
            continue;
        }
        for (size_t i = 0; table && i + 48 <= table_len; i += 48) {
            if (table[i] == 0 && table[i + 1] == bit) {
                memcpy(buf, table + i + 2, 46);
                buf[46] = 0;
                name = buf;
                break;
            }
        }
        if (str->len) {
            g_string_append(str, ", ");
        }
        if (name) {
            g_string_append(str, name);
        } else {
            g_string_append_printf(str, "Unknown incompatible feature: %"
                                   G_GINT64_MODIFIER "x", (uint64_t)1 << bit);
        }
    }
    return g_string_free(str, FALSE);
}

/*
 * The header extensions between start and end: the backing format and
 * the feature name table; unknown ones are skipped.
 */
static bool read_extensions(Qcow2State *s, uint64_t start, uint64_t end,
                            char **backing_fmt, uint8_t **ftable,
                            size_t *ftable_len, Error **errp)
{
    uint64_t off = start;

    while (off + 8 <= end) {
        uint32_t type = be32(s->header + off);
        uint32_t len = be32(s->header + off + 4);

        off += 8;
        if (len > end - off) {
            error_setg(errp, "Header extension too large");
            return false;
        }
        switch (type) {
        case QCOW2_EXT_END:
            return true;
        case QCOW2_EXT_BACKING_FORMAT:
            if (len >= 16) {
                error_setg(errp, "ERROR: ext_backing_format: len=%u too "
                           "large (>=16)", len);
                return false;
            }
            if (backing_fmt) {
                g_free(*backing_fmt);
                *backing_fmt = g_strndup((char *)s->header + off, len);
            }
            break;
        case QCOW2_EXT_FEATURE_TABLE:
            if (ftable && !*ftable) {
                *ftable = g_memdup2(s->header + off, len);
                *ftable_len = len;
            }
            break;
        default:
            break;
        }
        off += ((uint64_t)len + 7) & ~7ull;
    }
    return true;
}

/* QEMU's read_cache_sizes(): the caches' sizes in bytes. */
static bool cache_sizes(Qcow2State *s, uint64_t disk_size,
                        const BlockQcow2Options *o, uint64_t *l2,
                        uint64_t *refcount, Error **errp)
{
    uint64_t max_l2 = ((disk_size + s->cluster_size - 1) >> s->cluster_bits)
                      * 8;
    uint64_t min_refcount = 4 * s->cluster_size;

    max_l2 = (max_l2 + s->cluster_size - 1) & ~(s->cluster_size - 1);
    if (o->cache_size >= 0) {
        uint64_t combined = o->cache_size;

        if (o->l2_cache_size >= 0 && o->refcount_cache_size >= 0) {
            error_setg(errp, "cache-size, l2-cache-size and "
                       "refcount-cache-size may not be set at the same time");
            return false;
        } else if (o->l2_cache_size >= 0) {
            if ((uint64_t)o->l2_cache_size > combined) {
                error_setg(errp, "l2-cache-size may not exceed cache-size");
                return false;
            }
            *l2 = o->l2_cache_size;
            *refcount = combined - *l2;
        } else if (o->refcount_cache_size >= 0) {
            if ((uint64_t)o->refcount_cache_size > combined) {
                error_setg(errp, "refcount-cache-size may not exceed "
                           "cache-size");
                return false;
            }
            *refcount = o->refcount_cache_size;
            *l2 = combined - *refcount;
        } else if (combined >= max_l2 + min_refcount) {
            *l2 = max_l2;
            *refcount = combined - *l2;
        } else {
            *refcount = MIN(combined, min_refcount);
            *l2 = combined - *refcount;
        }
    } else {
        *l2 = o->l2_cache_size >= 0 ? (uint64_t)o->l2_cache_size
                                    : MIN(max_l2, QCOW2_DEFAULT_L2_CACHE_MAX);
        *refcount = o->refcount_cache_size >= 0 ?
                    (uint64_t)o->refcount_cache_size : min_refcount;
    }
    if (*l2 > INT_MAX) {
        error_setg(errp, "L2 cache size too big");
        return false;
    }
    if (*refcount > INT_MAX) {
        error_setg(errp, "Refcount cache size too big");
        return false;
    }
    if (o->cache_clean_interval > (int64_t)UINT_MAX) {
        error_setg(errp, "Cache clean interval too big");
        return false;
    }
    return true;
}

/* The checks of QEMU's qcow2_do_open(), with its messages. */
static bool parse_header(Qcow2State *s, BlockDriverState *bs,
                         char **backing_name, char **backing_fmt,
                         Error **errp)
{
    const uint8_t *h = s->header;
    uint32_t cluster_bits = be32(h + HDR_CLUSTER_BITS);
    uint64_t backing_offset, size, l1_needed, ext_end;
    uint32_t backing_size, crypt;
    g_autofree uint8_t *ftable = NULL;
    size_t ftable_len = 0;

    if (be32(h + HDR_MAGIC) != QCOW2_MAGIC) {
        error_setg(errp, "Image is not in qcow2 format");
        return false;
    }
    s->version = be32(h + HDR_VERSION);
    if (s->version < 2 || s->version > 3) {
        error_setg(errp, "Unsupported qcow2 version %u", be32(h + 4));
        return false;
    }
    if (cluster_bits < QCOW2_MIN_CLUSTER_BITS ||
        cluster_bits > QCOW2_MAX_CLUSTER_BITS) {
        error_setg(errp, "Unsupported cluster size: 2^%u", cluster_bits);
        return false;
    }
    s->cluster_bits = cluster_bits;
    s->cluster_size = 1ull << cluster_bits;
    if (s->version == 2) {
        s->incompat = s->compat = s->autoclear = 0;
        s->refcount_order = 4;
        s->header_length = QCOW2_V2_HEADER_LEN;
    } else {
        s->incompat = qcow2_be64(h + HDR_INCOMPAT);
        s->compat = qcow2_be64(h + HDR_COMPAT);
        s->autoclear = qcow2_be64(h + HDR_AUTOCLEAR);
        s->refcount_order = be32(h + HDR_REFCOUNT_ORDER);
        s->header_length = be32(h + HDR_HEADER_LENGTH);
        if (s->header_length < QCOW2_V3_HEADER_LEN) {
            error_setg(errp, "qcow2 header too short");
            return false;
        }
    }
    if (s->header_length > s->cluster_size) {
        error_setg(errp, "qcow2 header exceeds cluster size");
        return false;
    }
    backing_offset = qcow2_be64(h + HDR_BACKING_OFFSET);
    if (backing_offset > s->cluster_size) {
        error_setg(errp, "Invalid backing file offset");
        return false;
    }
    ext_end = backing_offset ? backing_offset : s->cluster_size;
    if (s->incompat & ~QCOW2_INCOMPAT_SUPPORTED) {
        g_autofree char *names = NULL;

        read_extensions(s, s->header_length, ext_end, NULL, &ftable,
                        &ftable_len, NULL);
        names = feature_names(ftable, ftable_len,
                              s->incompat & ~QCOW2_INCOMPAT_SUPPORTED);
        error_setg(errp, "Unsupported qcow2 feature(s): %s", names);
        return false;
    }
    if ((s->incompat & QCOW2_INCOMPAT_CORRUPT) && !bs->read_only) {
        error_setg(errp, "qcow2: Image is corrupt; cannot be opened "
                   "read/write");
        return false;
    }
    if (s->refcount_order > 6) {
        error_setg(errp, "Reference count entry width too large; may not "
                   "exceed 64 bits");
        return false;
    }
    s->refcount_bits = 1u << s->refcount_order;
    s->refcount_max = s->refcount_bits == 64 ? UINT64_MAX
                      : (1ull << s->refcount_bits) - 1;
    crypt = be32(h + HDR_CRYPT);
    if (crypt == 1) {
        error_setg(errp, "Use of AES-CBC encrypted qcow2 images is no "
                   "longer supported in system emulators");
        return false;
    } else if (crypt) {
        error_setg(errp, "Parameter 'encrypt.key-secret' is required for "
                   "cipher");
        return false;
    }
    s->l2_bits = cluster_bits - 3;
    /* refcount_bits may exceed a cluster's bits only in theory. */
    if (cluster_bits + 3 < s->refcount_order) {
        error_setg(errp, "Reference count entry width too large; may not "
                   "exceed 64 bits");
        return false;
    }
    s->refblock_bits = cluster_bits + 3 - s->refcount_order;
    s->csize_shift = 62 - (cluster_bits - 8);
    s->csize_mask = (1ull << (cluster_bits - 8)) - 1;
    s->coffset_mask = (1ull << s->csize_shift) - 1;

    s->reftable_offset = qcow2_be64(h + HDR_REFT_OFFSET);
    s->reftable_clusters = be32(h + HDR_REFT_CLUSTERS);
    if (s->reftable_clusters >
        (uint32_t)(QCOW2_MAX_REFTABLE_BYTES >> cluster_bits)) {
        error_setg(errp, "Reference count table too large");
        return false;
    }
    s->reftable_size = (uint64_t)s->reftable_clusters << (cluster_bits - 3);
    if (!table_ok(s, s->reftable_offset, s->reftable_size, 8)) {
        error_setg(errp, "Invalid reference count table offset");
        return false;
    }
    s->nb_snapshots = be32(h + HDR_NB_SNAPSHOTS);
    s->snapshots_offset = qcow2_be64(h + HDR_SNAPSHOTS_OFFSET);
    if (s->nb_snapshots > QCOW2_MAX_SNAPSHOTS) {
        error_setg(errp, "Too many snapshots");
        return false;
    }
    if (!table_ok(s, s->snapshots_offset, s->nb_snapshots,
                  SNAPSHOT_HEADER_MIN)) {
        error_setg(errp, "Invalid snapshot table offset");
        return false;
    }
    s->l1_size = be32(h + HDR_L1_SIZE);
    if (s->l1_size > QCOW2_MAX_L1_BYTES / 8) {
        error_setg(errp, "Active L1 table too large");
        return false;
    }
    size = qcow2_be64(h + HDR_SIZE);
    l1_needed = size >> (cluster_bits + s->l2_bits);
    if (size & ((1ull << (cluster_bits + s->l2_bits)) - 1)) {
        l1_needed++;
    }
    if (size > INT64_MAX || l1_needed > INT_MAX) {
        error_setg(errp, "Image is too big");
        return false;
    }
    if (s->l1_size < l1_needed) {
        error_setg(errp, "L1 table is too small");
        return false;
    }
    s->l1_offset = qcow2_be64(h + HDR_L1_OFFSET);
    if (!table_ok(s, s->l1_offset, s->l1_size, 8)) {
        error_setg(errp, "Invalid L1 table offset");
        return false;
    }
    if (ranges_overlap(s->l1_offset, (uint64_t)s->l1_size * 8,
                       s->reftable_offset, s->reftable_size * 8)) {
        error_setg(errp, "Invalid L1 table offset");
        return false;
    }
    bs->size = size;

    s->compression_type = QCOW2_COMPRESSION_ZLIB;
    if (s->header_length > HDR_COMPRESSION_TYPE) {
        s->compression_type = h[HDR_COMPRESSION_TYPE];
    }
    if (s->compression_type > QCOW2_COMPRESSION_ZSTD) {
        error_setg(errp, "qcow2: unknown compression type: %u",
                   s->compression_type);
        return false;
    }
    if (!!(s->incompat & QCOW2_INCOMPAT_COMPRESSION) !=
        (s->compression_type != QCOW2_COMPRESSION_ZLIB)) {
        error_setg(errp, "qcow2: Compression type incompatible feature bit "
                   "does not match the compression type");
        return false;
    }
    if (!read_extensions(s, s->version == 2 ? QCOW2_V2_HEADER_LEN
                                            : s->header_length,
                         ext_end, backing_fmt, NULL, NULL, errp)) {
        return false;
    }
    backing_size = be32(h + HDR_BACKING_SIZE);
    if (backing_offset) {
        if (backing_size > QCOW2_MAX_BACKING_NAME ||
            backing_size > s->cluster_size - backing_offset) {
            error_setg(errp, "Backing file name too long");
            return false;
        }
        *backing_name = g_strndup((char *)h + backing_offset, backing_size);
    }
    return true;
}

static bool read_tables(Qcow2State *s, Error **errp)
{
    uint64_t l1_bytes = ((uint64_t)s->l1_size * 8 + s->cluster_size - 1) &
                        ~(s->cluster_size - 1);
    uint64_t rt_bytes = (uint64_t)s->reftable_clusters << s->cluster_bits;
    int ret;

    s->l1 = qcow2_alloc_aligned(l1_bytes);
    s->reftable = qcow2_alloc_aligned(rt_bytes);
    if (!s->l1 || !s->reftable) {
        error_setg(errp, "Could not allocate L1 table");
        return false;
    }
    if (l1_bytes && (ret = qcow2_pread(s, s->l1_offset, s->l1,
                                       l1_bytes)) < 0) {
        error_setg_errno(errp, -ret, "Could not read L1 table");
        return false;
    }
    if (rt_bytes && (ret = qcow2_pread(s, s->reftable_offset, s->reftable,
                                       rt_bytes)) < 0) {
        error_setg_errno(errp, -ret, "Could not initialize refcount "
                         "handling");
        return false;
    }
    return true;
}

static void qcow2_state_free(Qcow2State *s)
{
    qcow2_cache_destroy(&s->l2_cache);
    qcow2_cache_destroy(&s->refblock_cache);
    free(s->header);
    free(s->l1);
    free(s->reftable);
    g_mutex_clear(&s->lock);
    g_cond_clear(&s->inflight_cond);
    if (s->inflight) {
        g_array_free(s->inflight, TRUE);
    }
    g_free(s);
}

static int qcow2_preadv(BlockDriverState *bs, uint64_t offset,
                        const struct iovec *iov, int niov)
{
    return qcow2_co_read(bs, offset, iov, niov);
}

static int qcow2_pwritev(BlockDriverState *bs, uint64_t offset,
                         const struct iovec *iov, int niov)
{
    return qcow2_co_write(bs, offset, iov, niov);
}

/* Metadata is written through: the file's flush covers it. */
static int qcow2_flush(BlockDriverState *bs)
{
    return bs->file->drv->flush(bs->file);
}

static int qcow2_discard(BlockDriverState *bs, uint64_t offset,
                         uint64_t len)
{
    return qcow2_co_zero_or_discard(bs, offset, len, true);
}

static int qcow2_write_zeroes(BlockDriverState *bs, uint64_t offset,
                              uint64_t len)
{
    return qcow2_co_zero_or_discard(bs, offset, len, false);
}

static void qcow2_close(BlockDriverState *bs)
{
    if (bs->opaque) {
        qcow2_state_free(bs->opaque);
        bs->opaque = NULL;
    }
}

static void qcow2_image_info(BlockDriverState *bs, JsonObject *image)
{
    Qcow2State *s = bs->opaque;
    JsonObject *fs = json_object_new(), *data = json_object_new();

    json_object_set_int_member(image, "cluster-size", s->cluster_size);
    json_object_set_boolean_member(image, "dirty-flag",
                                   !!(s->incompat & QCOW2_INCOMPAT_DIRTY));
    json_object_set_string_member(data, "compat",
                                  s->version == 2 ? "0.10" : "1.1");
    if (s->version >= 3) {
        json_object_set_string_member(data, "compression-type",
                                      s->compression_type ? "zstd" : "zlib");
        json_object_set_boolean_member(data, "lazy-refcounts",
                                       !!(s->compat &
                                          QCOW2_COMPAT_LAZY_REFCOUNTS));
    }
    json_object_set_int_member(data, "refcount-bits", s->refcount_bits);
    if (s->version >= 3) {
        json_object_set_boolean_member(data, "corrupt",
                                       !!(s->incompat &
                                          QCOW2_INCOMPAT_CORRUPT));
        json_object_set_boolean_member(data, "extended-l2", false);
    }
    json_object_set_string_member(fs, "type", "qcow2");
    json_object_set_object_member(fs, "data", data);
    json_object_set_object_member(image, "format-specific", fs);
}

static const BlockDriver bdrv_qcow2 = {
    .name = "qcow2",
    .preadv = qcow2_preadv,
    .pwritev = qcow2_pwritev,
    .flush = qcow2_flush,
    .discard = qcow2_discard,
    .write_zeroes = qcow2_write_zeroes,
    .close = qcow2_close,
    .image_info = qcow2_image_info,
};

bool bdrv_qcow2_probe(const uint8_t *buf, size_t len)
{
    return len >= 4 && be32(buf) == QCOW2_MAGIC;
}

/* Opened writable: the state a writer leaves (autoclear, dirty). */
static bool prepare_for_writes(Qcow2State *s, Error **errp)
{
    int ret;

    if (s->incompat & QCOW2_INCOMPAT_DIRTY) {
        /* Lazy refcounts left by a process that did not close it. */
        if (qcow2_rebuild_refcounts(s, errp) < 0) {
            return false;
        }
        s->incompat &= ~QCOW2_INCOMPAT_DIRTY;
        qcow2_set_be64(s->header + HDR_INCOMPAT, s->incompat);
        ret = qcow2_write_header_part(s, HDR_INCOMPAT, 8);
        if (ret < 0) {
            error_setg_errno(errp, -ret, "Could not update qcow2 header");
            return false;
        }
    }
    if (s->autoclear) {
        /* Bitmaps and the like: ours would not keep them up to date. */
        s->autoclear = 0;
        qcow2_set_be64(s->header + HDR_AUTOCLEAR, 0);
        ret = qcow2_write_header_part(s, HDR_AUTOCLEAR, 8);
        if (ret < 0) {
            error_setg_errno(errp, -ret, "Could not update qcow2 header");
            return false;
        }
    }
    return true;
}

BlockDriverState *bdrv_qcow2_open(BlockDriverState *file,
                                  const BlockQcow2Options *opts,
                                  const char *node_name, char **backing_name,
                                  char **backing_fmt, Error **errp)
{
    BlockQcow2Options defaults = BLOCK_QCOW2_OPTIONS_DEFAULT;
    BlockDriverState *bs = g_new0(BlockDriverState, 1);
    Qcow2State *s = g_new0(Qcow2State, 1);
    uint8_t first[512];
    uint64_t l2_bytes, rc_bytes;
    int ret;

    *backing_name = NULL;
    *backing_fmt = NULL;
    if (!opts) {
        opts = &defaults;
    }
    g_mutex_init(&s->lock);
    g_cond_init(&s->inflight_cond);
    s->file = file;
    s->read_only = file->read_only;
    bs->drv = &bdrv_qcow2;
    bs->opaque = s;
    bs->file = file;
    bs->fd = -1;
    bs->read_only = file->read_only;
    bs->filename = g_strdup(file->filename);
    bs->node_name = g_strdup(node_name);

    ret = qcow2_pread(s, 0, first, sizeof(first));
    if (ret < 0) {
        error_setg_errno(errp, -ret, "Could not read qcow2 header");
        goto fail;
    }
    /* The whole first cluster: header, extensions, backing file name. */
    if (be32(first) == QCOW2_MAGIC &&
        be32(first + HDR_CLUSTER_BITS) >= QCOW2_MIN_CLUSTER_BITS &&
        be32(first + HDR_CLUSTER_BITS) <= QCOW2_MAX_CLUSTER_BITS) {
        s->cluster_size = 1ull << be32(first + HDR_CLUSTER_BITS);
    } else {
        s->cluster_size = sizeof(first);
    }
    s->header = qcow2_alloc_aligned(s->cluster_size);
    ret = qcow2_pread(s, 0, s->header, s->cluster_size);
    if (ret < 0) {
        error_setg_errno(errp, -ret, "Could not read qcow2 header");
        goto fail;
    }
    if (!parse_header(s, bs, backing_name, backing_fmt, errp) ||
        !cache_sizes(s, bs->size, opts, &l2_bytes, &rc_bytes, errp) ||
        !read_tables(s, errp)) {
        goto fail;
    }
    s->io_align = file->direct ? MIN(4096, s->cluster_size) : 1;
    s->file_end = (file->size + s->cluster_size - 1) &
                  ~(s->cluster_size - 1);
    /* Entries are written in place: the tables must be in the file. */
    if (!s->read_only &&
        s->l1_offset + (uint64_t)s->l1_size * 8 > s->file_end) {
        error_setg(errp, "Invalid L1 table offset");
        goto fail;
    }
    if (!s->read_only && s->reftable_offset +
        ((uint64_t)s->reftable_clusters << s->cluster_bits) > s->file_end) {
        error_setg(errp, "Invalid reference count table offset");
        goto fail;
    }
    s->free_hint = 0;
    s->clean_interval_ns = (opts->cache_clean_interval >= 0 ?
                            opts->cache_clean_interval :
                            QCOW2_DEFAULT_CLEAN_SECONDS) * 1000000000ll;
    qcow2_cache_init(s, &s->l2_cache, MAX(2, l2_bytes >> s->cluster_bits));
    qcow2_cache_init(s, &s->refblock_cache,
                     MAX(4, rc_bytes >> s->cluster_bits));
    if (!s->l2_cache.size || !s->refblock_cache.size) {
        error_setg(errp, "Could not allocate metadata caches");
        goto fail;
    }
    if (!s->read_only && !prepare_for_writes(s, errp)) {
        goto fail;
    }
    return bs;

fail:
    g_clear_pointer(backing_name, g_free);
    g_clear_pointer(backing_fmt, g_free);
    qcow2_state_free(s);
    g_free(bs->filename);
    g_free(bs->node_name);
    g_free(bs);
    return NULL;
}
