/*
 * qcow2 guest clusters: the L1/L2 map, reads (data, zeroes, the backing
 * file, compressed clusters), writes (in place, or into new clusters
 * with the rest of a partial cluster copied from what it held before),
 * write-zeroes as zero clusters and discard.
 *
 * Order of an allocating write: the new clusters' refcounts, the data,
 * the L2 entries, then the old clusters' refcounts drop.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block/qcow2.h"

/* --- iovec helpers --- */

struct iovec *qcow2_iov_slice(const struct iovec *iov, int niov,
                              uint64_t skip, uint64_t len, int *n)
{
    struct iovec *out = g_new(struct iovec, MAX(niov, 1));
    int k = 0;

    for (int i = 0; i < niov && len; i++) {
        uint64_t l = iov[i].iov_len;

        if (skip >= l) {
            skip -= l;
            continue;
        }
        out[k].iov_base = (uint8_t *)iov[i].iov_base + skip;
        out[k].iov_len = MIN(l - skip, len);
        len -= out[k].iov_len;
        skip = 0;
        k++;
    }
    *n = k;
    return out;
}

static void iov_copy(const struct iovec *iov, int niov, uint64_t skip,
                     void *buf, const void *src, uint64_t len)
{
    uint8_t *b = buf;
    const uint8_t *from = src;

    for (int i = 0; i < niov && len; i++) {
        uint64_t l = iov[i].iov_len, now;

        if (skip >= l) {
            skip -= l;
            continue;
        }
        now = MIN(l - skip, len);
        if (b) {
            memcpy(b, (uint8_t *)iov[i].iov_base + skip, now);
            b += now;
        } else if (from) {
            memcpy((uint8_t *)iov[i].iov_base + skip, from, now);
            from += now;
        } else {
            memset((uint8_t *)iov[i].iov_base + skip, 0, now);
        }
        len -= now;
        skip = 0;
    }
}

void qcow2_iov_to_buf(const struct iovec *iov, int niov, uint64_t skip,
                      void *buf, uint64_t len)
{
    iov_copy(iov, niov, skip, buf, NULL, len);
}

void qcow2_iov_from_buf(const struct iovec *iov, int niov, uint64_t skip,
                        const void *buf, uint64_t len)
{
    iov_copy(iov, niov, skip, NULL, buf, len);
}

void qcow2_iov_memset(const struct iovec *iov, int niov, uint64_t skip,
                      uint64_t len)
{
    iov_copy(iov, niov, skip, NULL, NULL, len);
}

static uint64_t iov_size(const struct iovec *iov, int niov)
{
    uint64_t n = 0;

    for (int i = 0; i < niov; i++) {
        n += iov[i].iov_len;
    }
    return n;
}

/* --- the map --- */

Qcow2ClusterType qcow2_cluster_type(Qcow2State *s, uint64_t l2e)
{
    if (l2e & QCOW2_OFLAG_COMPRESSED) {
        return QCOW2_CLUSTER_COMPRESSED;
    }
    if (l2e & QCOW2_OFLAG_ZERO) {
        return l2e & QCOW2_OFFSET_MASK ? QCOW2_CLUSTER_ZERO_ALLOC
                                       : QCOW2_CLUSTER_ZERO_PLAIN;
    }
    return l2e & QCOW2_OFFSET_MASK ? QCOW2_CLUSTER_NORMAL
                                   : QCOW2_CLUSTER_UNALLOCATED;
}

static uint64_t l1_entry(Qcow2State *s, uint64_t i)
{
    return GUINT64_FROM_BE(s->l1[i]);
}

/* A host cluster offset from a table that must lie inside the image. */
static bool host_cluster_ok(Qcow2State *s, uint64_t off)
{
    return !(off & (s->cluster_size - 1)) && off >= s->cluster_size &&
           off < s->file_end;
}

/* The L2 table of L1 index i (NULL, 0 when there is none). */
static int l2_table(Qcow2State *s, uint64_t i, uint8_t **table,
                    uint64_t *l2_off)
{
    uint64_t off = l1_entry(s, i) & QCOW2_OFFSET_MASK;

    *table = NULL;
    *l2_off = off;
    if (!off) {
        return 0;
    }
    if (!host_cluster_ok(s, off) ||
        qcow2_overlaps_metadata(s, off, s->cluster_size)) {
        return qcow2_signal_corruption(s, "L2 table offset %#"
                                       G_GINT64_MODIFIER "x unaligned or "
                                       "outside the image (L1 index: %#"
                                       G_GINT64_MODIFIER "x)", off, i);
    }
    return qcow2_cache_get(s, &s->l2_cache, off, table);
}

int qcow2_get_l2_entry(Qcow2State *s, uint64_t offset, uint64_t *l2e)
{
    uint64_t i = offset >> (s->cluster_bits + s->l2_bits);
    uint64_t j = (offset >> s->cluster_bits) & ((1ull << s->l2_bits) - 1);
    uint64_t l2_off;
    uint8_t *table;
    Qcow2ClusterType t;
    int ret;

    *l2e = 0;
    if (i >= s->l1_size) {
        return -EIO;
    }
    ret = l2_table(s, i, &table, &l2_off);
    if (ret < 0 || !table) {
        return ret;
    }
    *l2e = qcow2_be64(table + j * 8);
    t = qcow2_cluster_type(s, *l2e);
    if ((t == QCOW2_CLUSTER_ZERO_PLAIN || t == QCOW2_CLUSTER_ZERO_ALLOC) &&
        s->version < 3) {
        return qcow2_signal_corruption(s, "Zero cluster entry found in "
                                       "pre-v3 image (L2 offset: %#"
                                       G_GINT64_MODIFIER "x, L2 index: %#"
                                       G_GINT64_MODIFIER "x)", l2_off, j);
    }
    if ((t == QCOW2_CLUSTER_NORMAL || t == QCOW2_CLUSTER_ZERO_ALLOC) &&
        (!host_cluster_ok(s, *l2e & QCOW2_OFFSET_MASK) ||
         qcow2_overlaps_metadata(s, *l2e & QCOW2_OFFSET_MASK,
                                 s->cluster_size))) {
        return qcow2_signal_corruption(s, "Cluster allocation offset %#"
                                       G_GINT64_MODIFIER "x unaligned or "
                                       "outside the image (L2 offset: %#"
                                       G_GINT64_MODIFIER "x, L2 index: %#"
                                       G_GINT64_MODIFIER "x)",
                                       *l2e & QCOW2_OFFSET_MASK, l2_off, j);
    }
    if (t == QCOW2_CLUSTER_COMPRESSED) {
        uint64_t coff, cbytes;

        qcow2_compressed_range(s, *l2e, &coff, &cbytes);
        if (coff < s->cluster_size || coff + cbytes > s->file_end) {
            return qcow2_signal_corruption(s, "Compressed cluster at %#"
                                           G_GINT64_MODIFIER "x outside the "
                                           "image (L2 offset: %#"
                                           G_GINT64_MODIFIER "x)", coff,
                                           l2_off);
        }
    }
    return 0;
}

/* --- reads --- */

static int read_backing(BlockDriverState *bs, uint64_t offset,
                        const struct iovec *iov, int niov, uint64_t len)
{
    BlockDriverState *backing = bs->backing;
    uint64_t in = 0;
    int ret = 0;

    if (backing && offset < backing->size) {
        in = MIN(len, backing->size - offset);
    }
    if (in) {
        int n;
        g_autofree struct iovec *part = qcow2_iov_slice(iov, niov, 0, in, &n);

        ret = backing->drv->preadv(backing, offset, part, n);
    }
    if (in < len) {
        qcow2_iov_memset(iov, niov, in, len - in);
    }
    return ret;
}

/* A compressed cluster's content, inflated into buf (a cluster). */
static int read_compressed(Qcow2State *s, uint64_t l2e, uint8_t *buf)
{
    uint64_t coff, cbytes;
    g_autofree uint8_t *in = NULL;
    int ret;

    qcow2_compressed_range(s, l2e, &coff, &cbytes);
    in = g_malloc(cbytes);
    ret = qcow2_pread(s, coff, in, cbytes);
    if (ret < 0) {
        return ret;
    }
    if (qcow2_decompress(s->compression_type, in, cbytes, buf,
                         s->cluster_size) < 0) {
        return -EIO;
    }
    return 0;
}

/*
 * How many bytes from offset (up to max) share l2e's kind of mapping:
 * contiguous host clusters, or unallocated or zero clusters.
 */
static uint64_t extent(Qcow2State *s, uint64_t offset, uint64_t l2e,
                       uint64_t max, bool need_copied)
{
    uint64_t cs = s->cluster_size, n = cs - (offset & (cs - 1));
    Qcow2ClusterType t = qcow2_cluster_type(s, l2e);

    if (t == QCOW2_CLUSTER_COMPRESSED) {
        return MIN(n, max);
    }
    while (n < max) {
        uint64_t next;
        uint64_t want = (l2e & QCOW2_OFFSET_MASK) +
                        ((offset + n) & ~(cs - 1)) - (offset & ~(cs - 1));

        if (qcow2_get_l2_entry(s, offset + n, &next) < 0) {
            break;
        }
        if (t == QCOW2_CLUSTER_NORMAL) {
            if (qcow2_cluster_type(s, next) != t ||
                (next & QCOW2_OFFSET_MASK) != want ||
                (need_copied && !(next & QCOW2_OFLAG_COPIED))) {
                break;
            }
        } else if (qcow2_cluster_type(s, next) != t ||
                   t == QCOW2_CLUSTER_ZERO_ALLOC) {
            break;
        }
        n += cs;
    }
    return MIN(n, max);
}

int qcow2_co_read(BlockDriverState *bs, uint64_t offset,
                  const struct iovec *iov, int niov)
{
    Qcow2State *s = bs->opaque;
    uint64_t total = iov_size(iov, niov), done = 0;

    while (done < total) {
        uint64_t cur = offset + done, ci = cur & (s->cluster_size - 1);
        uint64_t l2e, n;
        g_autofree struct iovec *part = NULL;
        int np, ret;

        g_mutex_lock(&s->lock);
        ret = qcow2_get_l2_entry(s, cur, &l2e);
        n = ret < 0 ? 0 : extent(s, cur, l2e, total - done, false);
        g_mutex_unlock(&s->lock);
        if (ret < 0) {
            return ret;
        }
        part = qcow2_iov_slice(iov, niov, done, n, &np);
        switch (qcow2_cluster_type(s, l2e)) {
        case QCOW2_CLUSTER_NORMAL:
            ret = s->file->drv->preadv(s->file,
                                       (l2e & QCOW2_OFFSET_MASK) + ci, part,
                                       np);
            break;
        case QCOW2_CLUSTER_UNALLOCATED:
            ret = read_backing(bs, cur, part, np, n);
            break;
        case QCOW2_CLUSTER_COMPRESSED: {
            uint8_t *buf = qcow2_alloc_aligned(s->cluster_size);

            ret = buf ? read_compressed(s, l2e, buf) : -ENOMEM;
            if (!ret) {
                qcow2_iov_from_buf(part, np, 0, buf + ci, n);
            }
            free(buf);
            break;
        }
        default:
            qcow2_iov_memset(part, np, 0, n);
            break;
        }
        if (ret < 0) {
            return ret;
        }
        done += n;
    }
    return 0;
}

/* --- writes --- */

static int write_l1_entry(Qcow2State *s, uint64_t i, uint64_t v)
{
    s->l1[i] = GUINT64_TO_BE(v);
    return qcow2_write_table_part(s, s->l1_offset, s->l1,
                                  (uint64_t)s->l1_size * 8, i * 8, 8);
}

/*
 * The L2 table of L1 index i, ready to be changed: a new one when there
 * is none, a copy when it is shared (with a snapshot).
 */
static int l2_table_for_write(Qcow2State *s, uint64_t i, uint8_t **table,
                              uint64_t *l2_off)
{
    uint64_t old = l1_entry(s, i);
    uint8_t *old_table = NULL, *t;
    g_autofree uint8_t *copy = NULL;
    int64_t off;
    int ret;

    if (old & QCOW2_OFLAG_COPIED) {
        ret = l2_table(s, i, table, l2_off);
        if (ret < 0 || *table) {
            return ret;
        }
    }
    ret = l2_table(s, i, &old_table, l2_off);
    if (ret < 0) {
        return ret;
    }
    if (old_table) {
        copy = g_memdup2(old_table, s->cluster_size);
    }
    off = qcow2_alloc_clusters(s, 1);
    if (off < 0) {
        return off;
    }
    t = qcow2_cache_get_empty(s, &s->l2_cache, off);
    if (copy) {
        memcpy(t, copy, s->cluster_size);
    }
    ret = qcow2_pwrite(s, off, t, s->cluster_size);
    if (ret == 0) {
        ret = write_l1_entry(s, i, off | QCOW2_OFLAG_COPIED);
    }
    if (ret < 0) {
        qcow2_cache_forget(&s->l2_cache, off);
        if (!(l1_entry(s, i) & QCOW2_OFFSET_MASK) ||
            (l1_entry(s, i) & QCOW2_OFFSET_MASK) != (uint64_t)off) {
            qcow2_free_clusters(s, off, 1, false);
        }
        return ret;
    }
    if (old & QCOW2_OFFSET_MASK) {
        qcow2_cache_forget(&s->l2_cache, old & QCOW2_OFFSET_MASK);
        ret = qcow2_free_clusters(s, old & QCOW2_OFFSET_MASK, 1, false);
    }
    *table = t;
    *l2_off = off;
    return ret;
}

/* What the guest cluster at offset (entry l2e) reads as, into buf. */
static int read_old_cluster(BlockDriverState *bs, uint64_t offset,
                            uint64_t l2e, uint8_t *buf)
{
    Qcow2State *s = bs->opaque;
    struct iovec v = { .iov_base = buf, .iov_len = s->cluster_size };

    switch (qcow2_cluster_type(s, l2e)) {
    case QCOW2_CLUSTER_NORMAL:
        return qcow2_pread(s, l2e & QCOW2_OFFSET_MASK, buf, s->cluster_size);
    case QCOW2_CLUSTER_COMPRESSED:
        return read_compressed(s, l2e, buf);
    case QCOW2_CLUSTER_UNALLOCATED:
        return read_backing(bs, offset, &v, 1, s->cluster_size);
    default:
        memset(buf, 0, s->cluster_size);
        return 0;
    }
}

/* Drop the reference l2e held on host clusters. */
static int release_entry(Qcow2State *s, uint64_t l2e, bool punch)
{
    uint64_t off, bytes, first, last;

    switch (qcow2_cluster_type(s, l2e)) {
    case QCOW2_CLUSTER_NORMAL:
    case QCOW2_CLUSTER_ZERO_ALLOC:
        return qcow2_free_clusters(s, l2e & QCOW2_OFFSET_MASK, 1, punch);
    case QCOW2_CLUSTER_COMPRESSED:
        qcow2_compressed_range(s, l2e, &off, &bytes);
        first = off >> s->cluster_bits;
        last = (off + bytes - 1) >> s->cluster_bits;
        return qcow2_free_clusters(s, first << s->cluster_bits,
                                   last - first + 1, punch);
    default:
        return 0;
    }
}

static bool reads_as_zero(BlockDriverState *bs, uint64_t l2e)
{
    Qcow2State *s = bs->opaque;
    Qcow2ClusterType t = qcow2_cluster_type(s, l2e);

    return t == QCOW2_CLUSTER_ZERO_PLAIN || t == QCOW2_CLUSTER_ZERO_ALLOC ||
           (t == QCOW2_CLUSTER_UNALLOCATED && !bs->backing);
}

/* Can a write skip the zeroes of a fresh cluster (a hole in a file)? */
static bool reads_zero_fresh(Qcow2State *s, uint64_t host,
                             uint64_t old_end)
{
    return host >= old_end && !strcmp(s->file->drv->name, "file");
}

/*
 * Guest clusters whose new host clusters are being written with the
 * lock dropped: other writes, zeroes and discards of them wait.
 */
typedef struct Qcow2Inflight {
    uint64_t first, nb;             /* guest clusters */
} Qcow2Inflight;

static bool inflight_overlaps(Qcow2State *s, uint64_t first, uint64_t nb)
{
    for (guint i = 0; s->inflight && i < s->inflight->len; i++) {
        Qcow2Inflight *f = &g_array_index(s->inflight, Qcow2Inflight, i);

        if (first < f->first + f->nb && f->first < first + nb) {
            return true;
        }
    }
    return false;
}

/* Wait (lock held) until no allocation covers [offset, offset + len). */
static void inflight_wait(Qcow2State *s, uint64_t offset, uint64_t len)
{
    uint64_t first = offset >> s->cluster_bits;
    uint64_t last = (offset + MAX(len, 1) - 1) >> s->cluster_bits;

    while (inflight_overlaps(s, first, last - first + 1)) {
        g_cond_wait(&s->inflight_cond, &s->lock);
    }
}

static void inflight_remove(Qcow2State *s, uint64_t first)
{
    for (guint i = 0; i < s->inflight->len; i++) {
        if (g_array_index(s->inflight, Qcow2Inflight, i).first == first) {
            g_array_remove_index_fast(s->inflight, i);
            break;
        }
    }
    g_cond_broadcast(&s->inflight_cond);
}

/*
 * The data of an allocating write with what the new clusters keep of
 * the old content around it, at host (lock not held).
 */
static int write_cow_data(BlockDriverState *bs, uint64_t start,
                          uint64_t host, uint64_t nb, uint64_t head,
                          uint64_t tail, const uint64_t *old, bool fresh,
                          const struct iovec *iov, int niov)
{
    Qcow2State *s = bs->opaque;
    uint64_t cs = s->cluster_size;
    g_autofree struct iovec *v = g_new(struct iovec, niov + 2);
    uint8_t *hbuf = NULL, *tbuf = NULL;
    int ret = 0, nv = 0;
    /* Holes read as the zeroes the clusters would hold. */
    bool head_zero = fresh && !bs->backing && reads_as_zero(bs, old[0]);
    bool tail_zero = fresh && !bs->backing && reads_as_zero(bs, old[nb - 1]);

    if (head && !head_zero) {
        hbuf = qcow2_alloc_aligned(cs);
        ret = hbuf ? read_old_cluster(bs, start, old[0], hbuf) : -ENOMEM;
        v[nv].iov_base = hbuf;
        v[nv++].iov_len = head;
    }
    for (int i = 0; i < niov; i++) {
        v[nv++] = iov[i];
    }
    if (tail && !tail_zero && ret == 0) {
        tbuf = qcow2_alloc_aligned(cs);
        ret = tbuf ? read_old_cluster(bs, start + (nb - 1) * cs,
                                      old[nb - 1], tbuf) : -ENOMEM;
        v[nv].iov_base = tbuf + cs - tail;
        v[nv++].iov_len = tail;
    }
    if (ret == 0) {
        ret = s->file->drv->pwritev(s->file,
                                    host + (head_zero ? head : 0), v, nv);
    }
    free(hbuf);
    free(tbuf);
    return ret;
}

/*
 * An allocating write of bytes [cur, cur + len) that stays within one
 * L2 table: new contiguous clusters hold the old content around the
 * data; then the L2 entries point there. Called with the lock held,
 * which it drops while the data is written.
 */
static int write_new_clusters(BlockDriverState *bs, uint64_t cur,
                              uint64_t len, const struct iovec *iov,
                              int niov)
{
    Qcow2State *s = bs->opaque;
    uint64_t cs = s->cluster_size, start = cur & ~(cs - 1);
    uint64_t nb = (cur + len - start + cs - 1) >> s->cluster_bits;
    uint64_t head = cur - start, tail = nb * cs - head - len;
    uint64_t i1 = cur >> (s->cluster_bits + s->l2_bits);
    uint64_t j = (cur >> s->cluster_bits) & ((1ull << s->l2_bits) - 1);
    uint64_t old_end = s->file_end, l2_off;
    Qcow2Inflight me = { .first = start >> s->cluster_bits, .nb = nb };
    g_autofree uint64_t *old = g_new(uint64_t, nb);
    uint8_t *table;
    int64_t host;
    int ret;

    ret = l2_table_for_write(s, i1, &table, &l2_off);
    if (ret < 0) {
        return ret;
    }
    for (uint64_t k = 0; k < nb; k++) {
        old[k] = qcow2_be64(table + (j + k) * 8);
    }
    host = qcow2_alloc_clusters(s, nb);
    if (host < 0) {
        return host;
    }
    if (!s->inflight) {
        s->inflight = g_array_new(FALSE, FALSE, sizeof(Qcow2Inflight));
    }
    g_array_append_val(s->inflight, me);
    g_mutex_unlock(&s->lock);
    ret = write_cow_data(bs, start, host, nb, head, tail, old,
                         reads_zero_fresh(s, host, old_end), iov, niov);
    g_mutex_lock(&s->lock);
    /* The table again: it may have left the cache meanwhile. */
    if (ret == 0) {
        ret = l2_table(s, i1, &table, &l2_off);
    }
    if (ret < 0 || !table) {
        /* Not mapped (a full disk, say): give them back, best effort. */
        qcow2_free_clusters(s, host, nb, false);
    }
    if (ret == 0 && table) {
        for (uint64_t k = 0; k < nb; k++) {
            qcow2_set_be64(table + (j + k) * 8,
                           (host + k * cs) | QCOW2_OFLAG_COPIED);
        }
        ret = qcow2_write_table_part(s, l2_off, table, cs, j * 8, nb * 8);
        for (uint64_t k = 0; ret == 0 && k < nb; k++) {
            ret = release_entry(s, old[k], false);
        }
    } else if (ret == 0) {
        ret = -EIO;
    }
    inflight_remove(s, me.first);
    return ret;
}

int qcow2_co_write(BlockDriverState *bs, uint64_t offset,
                   const struct iovec *iov, int niov)
{
    Qcow2State *s = bs->opaque;
    uint64_t total = iov_size(iov, niov), done = 0, cs = s->cluster_size;

    while (done < total) {
        uint64_t cur = offset + done, l2e, n;
        g_autofree struct iovec *part = NULL;
        int np, ret;

        g_mutex_lock(&s->lock);
        if (s->read_only) {
            g_mutex_unlock(&s->lock);
            return -EIO;
        }
        inflight_wait(s, cur, total - done);
        ret = qcow2_get_l2_entry(s, cur, &l2e);
        if (ret < 0) {
            g_mutex_unlock(&s->lock);
            return ret;
        }
        if (qcow2_cluster_type(s, l2e) == QCOW2_CLUSTER_NORMAL &&
            (l2e & QCOW2_OFLAG_COPIED)) {
            uint64_t host = (l2e & QCOW2_OFFSET_MASK) + (cur & (cs - 1));

            n = extent(s, cur, l2e, total - done, true);
            g_mutex_unlock(&s->lock);
            part = qcow2_iov_slice(iov, niov, done, n, &np);
            ret = s->file->drv->pwritev(s->file, host, part, np);
        } else {
            /* Clusters to allocate, to the end of this L2 table. */
            uint64_t table_end = ((cur >> (s->cluster_bits + s->l2_bits)) +
                                  1) << (s->cluster_bits + s->l2_bits);
            uint64_t next = (cur & ~(cs - 1)) + cs;

            /*
             * At most half a refcount block's clusters at once: a run
             * that long is free in any new block's range (its first
             * cluster holds the block itself).
             */
            uint64_t max_run = MAX(1, (1ull << s->refblock_bits) / 2) <<
                               s->cluster_bits;

            n = MIN(total - done, table_end - cur);
            n = MIN(n, max_run - (cur & (cs - 1)));
            while (next < cur + n) {
                uint64_t e;

                if (qcow2_get_l2_entry(s, next, &e) < 0 ||
                    (qcow2_cluster_type(s, e) == QCOW2_CLUSTER_NORMAL &&
                     (e & QCOW2_OFLAG_COPIED))) {
                    n = next - cur;
                    break;
                }
                next += cs;
            }
            part = qcow2_iov_slice(iov, niov, done, n, &np);
            ret = write_new_clusters(bs, cur, n, part, np);
            g_mutex_unlock(&s->lock);
        }
        if (ret < 0) {
            return ret;
        }
        done += n;
    }
    return 0;
}

/* --- write-zeroes and discard --- */


/* Zeroes written as data: a partial cluster, or a v2 image. */
static int write_zero_bytes(BlockDriverState *bs, uint64_t offset,
                            uint64_t len)
{
    Qcow2State *s = bs->opaque;
    uint8_t *zero = qcow2_alloc_aligned(MIN(len, 1u << 20));
    int ret = 0;

    if (!zero) {
        return -ENOMEM;
    }
    while (len && ret == 0) {
        uint64_t now = MIN(len, 1u << 20), l2e;
        struct iovec v = { .iov_base = zero, .iov_len = now };

        now = MIN(now, s->cluster_size - (offset & (s->cluster_size - 1)));
        v.iov_len = now;
        g_mutex_lock(&s->lock);
        ret = qcow2_get_l2_entry(s, offset, &l2e);
        g_mutex_unlock(&s->lock);
        if (ret == 0 && !reads_as_zero(bs, l2e)) {
            ret = qcow2_co_write(bs, offset, &v, 1);
        }
        offset += now;
        len -= now;
    }
    free(zero);
    return ret;
}

/* Whole clusters [offset, offset + nb clusters) in one L2 table. */
static int zero_or_discard_clusters(BlockDriverState *bs, uint64_t offset,
                                    uint64_t nb, bool discard)
{
    Qcow2State *s = bs->opaque;
    uint64_t i1 = offset >> (s->cluster_bits + s->l2_bits);
    uint64_t j = (offset >> s->cluster_bits) & ((1ull << s->l2_bits) - 1);
    uint64_t l2_off;
    g_autofree uint64_t *old = g_new(uint64_t, nb);
    uint8_t *table;
    int ret;

    if (!(l1_entry(s, i1) & QCOW2_OFFSET_MASK) &&
        (discard || !bs->backing)) {
        return 0;   /* nothing mapped: reads as zeroes or backing */
    }
    ret = l2_table_for_write(s, i1, &table, &l2_off);
    if (ret < 0) {
        return ret;
    }
    for (uint64_t k = 0; k < nb; k++) {
        uint64_t e = qcow2_be64(table + (j + k) * 8), nv;
        Qcow2ClusterType t = qcow2_cluster_type(s, e);

        if (discard) {
            nv = bs->backing ? QCOW2_OFLAG_ZERO : 0;
        } else if ((t == QCOW2_CLUSTER_NORMAL ||
                    t == QCOW2_CLUSTER_ZERO_ALLOC) &&
                   (e & QCOW2_OFLAG_COPIED)) {
            /* Keep the host cluster (preallocation), mark it zero. */
            nv = e | QCOW2_OFLAG_ZERO;
        } else {
            nv = QCOW2_OFLAG_ZERO;
        }
        old[k] = nv & QCOW2_OFFSET_MASK ? 0 : e;
        qcow2_set_be64(table + (j + k) * 8, nv);
    }
    ret = qcow2_write_table_part(s, l2_off, table, s->cluster_size, j * 8,
                                 nb * 8);
    for (uint64_t k = 0; ret == 0 && k < nb; k++) {
        ret = release_entry(s, old[k], discard);
    }
    return ret;
}

int qcow2_co_zero_or_discard(BlockDriverState *bs, uint64_t offset,
                             uint64_t len, bool discard)
{
    Qcow2State *s = bs->opaque;
    uint64_t cs = s->cluster_size, end = offset + len;
    uint64_t a = (offset + cs - 1) & ~(cs - 1), b = end & ~(cs - 1);
    int ret = 0;

    if (s->read_only) {
        return -EIO;
    }
    /* v2 has no zero clusters; a discard there could show the backing. */
    if (s->version < 3 && (!discard || bs->backing)) {
        return discard ? 0 : write_zero_bytes(bs, offset, len);
    }
    if (a >= b) {
        /* No whole cluster: partial ones are data (or ignored). */
        return discard ? 0 : write_zero_bytes(bs, offset, len);
    }
    if (!discard && a > offset) {
        ret = write_zero_bytes(bs, offset, a - offset);
    }
    while (ret == 0 && a < b) {
        uint64_t table_end = ((a >> (s->cluster_bits + s->l2_bits)) + 1) <<
                             (s->cluster_bits + s->l2_bits);
        uint64_t n = MIN(b, table_end) - a;

        g_mutex_lock(&s->lock);
        inflight_wait(s, a, n);
        ret = s->read_only ? -EIO :
              zero_or_discard_clusters(bs, a, n >> s->cluster_bits,
                                       discard);
        g_mutex_unlock(&s->lock);
        a += n;
    }
    if (ret == 0 && !discard && end > b) {
        ret = write_zero_bytes(bs, b, end - b);
    }
    return ret;
}
