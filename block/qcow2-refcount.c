/*
 * qcow2 refcounts: the refcount table points to refcount blocks, each
 * a cluster of refcount_bits-wide big-endian entries (narrower than a
 * byte: lowest bits first), one per host cluster. A cluster is free
 * when its refcount is 0, or when no refcount block covers it.
 *
 * A new refcount block goes into the first cluster of the range it
 * covers that is free (so it counts itself); a full refcount table is
 * copied into a larger one beyond everything it covers, with the
 * refcount blocks for its own clusters after it, and the header is
 * switched over in one write.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "block/qcow2.h"

static uint64_t entry_get(Qcow2State *s, const uint8_t *rb, uint64_t i)
{
    switch (s->refcount_order) {
    case 0: case 1: case 2: {
        unsigned w = s->refcount_bits, per = 8 / w;

        return (rb[i / per] >> (w * (i % per))) & ((1u << w) - 1);
    }
    case 3:
        return rb[i];
    case 4:
        return ((uint64_t)rb[2 * i] << 8) | rb[2 * i + 1];
    case 5:
        return ((uint64_t)rb[4 * i] << 24) | ((uint64_t)rb[4 * i + 1] << 16) |
               ((uint64_t)rb[4 * i + 2] << 8) | rb[4 * i + 3];
    default:
        return qcow2_be64(rb + 8 * i);
    }
}

/* Sets entry i; returns the byte it starts at (for the write-through). */
static uint64_t entry_set(Qcow2State *s, uint8_t *rb, uint64_t i,
                          uint64_t v)
{
    switch (s->refcount_order) {
    case 0: case 1: case 2: {
        unsigned w = s->refcount_bits, per = 8 / w;
        unsigned shift = w * (i % per), mask = ((1u << w) - 1) << shift;

        rb[i / per] = (rb[i / per] & ~mask) | ((v << shift) & mask);
        return i / per;
    }
    case 3:
        rb[i] = v;
        return i;
    case 4:
        rb[2 * i] = v >> 8;
        rb[2 * i + 1] = v;
        return 2 * i;
    case 5:
        for (int b = 0; b < 4; b++) {
            rb[4 * i + b] = v >> (24 - 8 * b);
        }
        return 4 * i;
    default:
        qcow2_set_be64(rb + 8 * i, v);
        return 8 * i;
    }
}

static unsigned entry_bytes(Qcow2State *s)
{
    return s->refcount_order <= 3 ? 1 : s->refcount_bits / 8;
}

/* The refcount block covering block index b, or NULL (none: *off 0). */
static int refblock(Qcow2State *s, uint64_t b, uint64_t *off, uint8_t **rb)
{
    uint64_t e;

    *rb = NULL;
    *off = 0;
    if (b >= s->reftable_size) {
        return 0;
    }
    e = GUINT64_FROM_BE(s->reftable[b]);
    *off = e & QCOW2_REFT_OFFSET_MASK;
    if (!*off) {
        return 0;
    }
    if ((*off & (s->cluster_size - 1)) || *off >= s->file_end ||
        *off < s->cluster_size) {
        uint64_t bad = *off;

        *off = 0;
        return qcow2_signal_corruption(s, "Refblock offset %#" G_GINT64_MODIFIER
                                       "x unaligned or outside the image "
                                       "(reftable index: %#" G_GINT64_MODIFIER
                                       "x)", bad, b);
    }
    return qcow2_cache_get(s, &s->refblock_cache, *off, rb);
}

int qcow2_refcount_get(Qcow2State *s, uint64_t cluster, uint64_t *ref)
{
    uint64_t off;
    uint8_t *rb;
    int ret = refblock(s, cluster >> s->refblock_bits, &off, &rb);

    *ref = 0;
    if (ret < 0) {
        return ret;
    }
    if (rb) {
        *ref = entry_get(s, rb, cluster & ((1ull << s->refblock_bits) - 1));
    }
    return 0;
}

static int write_reftable_entry(Qcow2State *s, uint64_t b)
{
    return qcow2_write_table_part(s, s->reftable_offset, s->reftable,
                                  (uint64_t)s->reftable_clusters <<
                                  s->cluster_bits, b * 8, 8);
}

/*
 * Clusters the allocator must never hand out even when their refcount
 * says free (a damaged image): the header, the tables, the active L2
 * tables and the cached refcount blocks, as QEMU's default overlap
 * check.
 */
static bool cluster_is_metadata(Qcow2State *s, uint64_t c)
{
    uint64_t off = c << s->cluster_bits;

    for (uint32_t i = 0; i < s->l1_size; i++) {
        if ((GUINT64_FROM_BE(s->l1[i]) & QCOW2_OFFSET_MASK) == off) {
            return true;
        }
    }

    for (unsigned i = 0; i < s->l2_cache.size; i++) {
        if (s->l2_cache.offset[i] == off) {
            return true;
        }
    }
    for (unsigned i = 0; i < s->refblock_cache.size; i++) {
        if (s->refblock_cache.offset[i] == off) {
            return true;
        }
    }
    return qcow2_overlaps_metadata(s, off, s->cluster_size);
}

static void grow_file_end(Qcow2State *s, uint64_t end)
{
    if (end > s->file_end) {
        s->file_end = end;
    }
}

/* Refcount 1 for clusters [first, end) in refcount block b at rb_off. */
static int count_new_range(Qcow2State *s, uint8_t *rb, uint64_t rb_off,
                           uint64_t b, uint64_t first, uint64_t end)
{
    uint64_t per_rb = 1ull << s->refblock_bits;

    for (uint64_t c = MAX(first, b * per_rb);
         c < MIN(end, (b + 1) * per_rb); c++) {
        entry_set(s, rb, c - b * per_rb, 1);
    }
    return qcow2_pwrite(s, rb_off, rb, s->cluster_size);
}

/*
 * A larger refcount table covering block index need, placed after
 * everything the old one covers, with the refcount blocks that count
 * its own clusters right after it.
 */
static int grow_reftable(Qcow2State *s, uint64_t need)
{
    uint64_t cs = s->cluster_size, per_rb = 1ull << s->refblock_bits;
    uint64_t pos = MAX(s->reftable_size * per_rb, s->file_end / cs);
    uint64_t entries = MAX(need + 1, s->reftable_size * 3 / 2);
    uint64_t n, k = 0, first_b, last_b, new_rbs;
    uint64_t old_off = s->reftable_offset, old_clusters;
    uint64_t *table;
    uint8_t hdr[12];
    int ret;

    /* Table clusters n and refblocks k that cover [pos, pos + n + k). */
    for (;;) {
        n = (entries * 8 + cs - 1) / cs;
        first_b = pos / per_rb;
        last_b = (pos + n + k - 1) / per_rb;
        new_rbs = 0;
        for (uint64_t b = first_b; b <= last_b; b++) {
            if (b >= s->reftable_size || !s->reftable[b]) {
                new_rbs++;
            }
        }
        if (last_b >= entries) {
            entries = last_b + 1;
            continue;
        }
        if (new_rbs == k) {
            break;
        }
        k = new_rbs;
    }
    if (n * cs > QCOW2_MAX_REFTABLE_BYTES) {
        return -EFBIG;
    }
    table = qcow2_alloc_aligned(n * cs);
    if (!table) {
        return -ENOMEM;
    }
    memcpy(table, s->reftable, s->reftable_size * 8);
    /* The new refblocks, each counting what of [pos, pos+n+k) it covers. */
    k = 0;
    for (uint64_t b = first_b; b <= last_b; b++) {
        g_autofree uint8_t *rb = NULL;
        uint64_t rb_off;

        if (b < s->reftable_size && s->reftable[b]) {
            continue;
        }
        rb = qcow2_alloc_aligned(cs);
        rb_off = (pos + n + k++) * cs;
        ret = count_new_range(s, rb, rb_off, b, pos, pos + n + new_rbs);
        if (ret < 0) {
            free(table);
            return ret;
        }
        table[b] = GUINT64_TO_BE(rb_off);
        free(g_steal_pointer(&rb));
    }
    /* Existing refblocks count the part of the range they cover. */
    for (uint64_t b = first_b; b <= last_b; b++) {
        uint64_t rb_off;
        uint8_t *rb;

        if (!(b < s->reftable_size && s->reftable[b])) {
            continue;
        }
        ret = refblock(s, b, &rb_off, &rb);
        if (ret < 0) {
            free(table);
            return ret;
        }
        ret = count_new_range(s, rb, rb_off, b, pos, pos + n + new_rbs);
        if (ret < 0) {
            free(table);
            return ret;
        }
    }
    ret = qcow2_pwrite(s, pos * cs, table, n * cs);
    if (ret == 0) {
        ret = s->file->drv->flush(s->file);
    }
    if (ret < 0) {
        free(table);
        return ret;
    }
    /* The switch: offset and size of the table in one header write. */
    qcow2_set_be64(hdr, pos * cs);
    hdr[8] = n >> 24;
    hdr[9] = n >> 16;
    hdr[10] = n >> 8;
    hdr[11] = n;
    memcpy(s->header + 48, hdr, sizeof(hdr));
    ret = qcow2_write_header_part(s, 48, sizeof(hdr));
    if (ret < 0) {
        free(table);
        return ret;
    }
    old_clusters = s->reftable_clusters;
    free(s->reftable);
    s->reftable = table;
    s->reftable_offset = pos * cs;
    s->reftable_clusters = n;
    s->reftable_size = n * cs / 8;
    grow_file_end(s, (pos + n + new_rbs) * cs);
    if (old_clusters) {
        return qcow2_free_clusters(s, old_off, old_clusters, false);
    }
    return 0;
}

/* A new refcount block for block index b, in cluster c of its range. */
static int new_refblock(Qcow2State *s, uint64_t b, uint64_t c)
{
    uint64_t off = c << s->cluster_bits;
    uint8_t *rb;
    int ret;

    if (b >= s->reftable_size) {
        ret = grow_reftable(s, b);
        if (ret < 0) {
            return ret;
        }
        if (s->reftable[b]) {
            return 0;   /* the growth made it */
        }
    }
    rb = qcow2_cache_get_empty(s, &s->refblock_cache, off);
    entry_set(s, rb, c & ((1ull << s->refblock_bits) - 1), 1);
    ret = qcow2_pwrite(s, off, rb, s->cluster_size);
    if (ret < 0) {
        qcow2_cache_forget(&s->refblock_cache, off);
        return ret;
    }
    grow_file_end(s, off + s->cluster_size);
    s->reftable[b] = GUINT64_TO_BE(off);
    return write_reftable_entry(s, b);
}

int qcow2_refcount_update(Qcow2State *s, uint64_t offset, uint64_t nb,
                          int delta)
{
    uint64_t c = offset >> s->cluster_bits, end = c + nb;
    uint64_t per_rb = 1ull << s->refblock_bits;

    while (c < end) {
        uint64_t b = c >> s->refblock_bits, rb_off, lo = UINT64_MAX, hi = 0;
        uint64_t stop = MIN(end, (b + 1) * per_rb);
        uint8_t *rb;
        int ret = refblock(s, b, &rb_off, &rb);

        if (ret < 0) {
            return ret;
        }
        if (!rb) {
            if (delta < 0) {
                return qcow2_signal_corruption(s, "Refcount of cluster %#"
                                               G_GINT64_MODIFIER "x is 0 "
                                               "but it is in use",
                                               c << s->cluster_bits);
            }
            return -EIO;    /* callers allocate through alloc_clusters */
        }
        for (; c < stop; c++) {
            uint64_t i = c & (per_rb - 1), v = entry_get(s, rb, i), at;

            if ((delta < 0 && v < (uint64_t)-delta) ||
                (delta > 0 && v > s->refcount_max - delta)) {
                if (hi) {
                    qcow2_write_table_part(s, rb_off, rb, s->cluster_size,
                                           lo, hi - lo);
                }
                if (delta > 0) {
                    return -ERANGE;
                }
                return qcow2_signal_corruption(s, "Refcount of cluster %#"
                                               G_GINT64_MODIFIER "x is 0 "
                                               "but it is in use",
                                               c << s->cluster_bits);
            }
            at = entry_set(s, rb, i, v + delta);
            lo = MIN(lo, at);
            hi = MAX(hi, at + entry_bytes(s));
            if (delta < 0 && v + delta == 0 && c < s->free_hint) {
                s->free_hint = c;
            }
        }
        ret = qcow2_write_table_part(s, rb_off, rb, s->cluster_size, lo,
                                     hi - lo);
        if (ret < 0) {
            return ret;
        }
    }
    return 0;
}

/* Is cluster c free (making its refcount block if it has none)? */
static int cluster_free(Qcow2State *s, uint64_t c, bool *is_free)
{
    uint64_t b = c >> s->refblock_bits, rb_off, ref;
    uint8_t *rb;
    int ret = refblock(s, b, &rb_off, &rb);

    *is_free = false;
    if (ret < 0) {
        return ret;
    }
    if (!rb) {
        /* Nothing in its range is counted: c holds the new block. */
        return cluster_is_metadata(s, c) ? 0 : new_refblock(s, b, c);
    }
    ref = entry_get(s, rb, c & ((1ull << s->refblock_bits) - 1));
    *is_free = ref == 0 && !cluster_is_metadata(s, c);
    return 0;
}

int64_t qcow2_alloc_clusters(Qcow2State *s, uint64_t nb)
{
    uint64_t start, c, run = 0;
    uint64_t limit = (1ull << 56) >> s->cluster_bits;
    int ret;

    uint64_t used_past_end = 0;

    /* Cluster 0 is the header's: the hint starts past it. */
    s->free_hint = MAX(s->free_hint, 1);
    start = c = s->free_hint;
    while (run < nb) {
        bool is_free;

        if (c >= limit) {
            return -EFBIG;
        }
        /*
         * Past the end of the file a few clusters may be counted (a
         * writer killed before its data landed); a long run of them is
         * a damaged refcount table, not something to search through.
         */
        if (used_past_end > 65536) {
            return qcow2_signal_corruption(s, "Refcounts of clusters past "
                                           "the end of the image");
        }
        ret = cluster_free(s, c, &is_free);
        if (ret < 0) {
            return ret;
        }
        if (is_free) {
            if (!run) {
                start = c;
            }
            run++;
        } else {
            run = 0;
            used_past_end += (c << s->cluster_bits) >= s->file_end;
            if (c == s->free_hint) {
                s->free_hint = c + 1;
            }
        }
        c++;
    }
    ret = qcow2_refcount_update(s, start << s->cluster_bits, nb, 1);
    if (ret < 0) {
        return ret;
    }
    if (start == s->free_hint) {
        s->free_hint = start + nb;
    }
    grow_file_end(s, (start + nb) << s->cluster_bits);
    return start << s->cluster_bits;
}

int qcow2_free_clusters(Qcow2State *s, uint64_t offset, uint64_t nb,
                        bool punch)
{
    int ret = qcow2_refcount_update(s, offset, nb, -1);

    if (ret < 0 || !punch) {
        return ret;
    }
    /* Freed clusters become holes in the file. */
    for (uint64_t c = offset >> s->cluster_bits;
         c < (offset >> s->cluster_bits) + nb; c++) {
        uint64_t ref;

        if (qcow2_refcount_get(s, c, &ref) == 0 && ref == 0 &&
            s->file->drv->discard) {
            s->file->drv->discard(s->file, c << s->cluster_bits,
                                  s->cluster_size);
        }
    }
    return 0;
}

void qcow2_compressed_range(Qcow2State *s, uint64_t l2e, uint64_t *offset,
                            uint64_t *bytes)
{
    uint64_t coffset = l2e & s->coffset_mask;
    uint64_t nb_sectors = ((l2e >> s->csize_shift) & s->csize_mask) + 1;

    *offset = coffset;
    *bytes = nb_sectors * 512 - (coffset & 511);
}

/* Set cluster c's refcount (its refcount block exists). */
static int refcount_set(Qcow2State *s, uint64_t c, uint64_t v)
{
    uint64_t rb_off, at;
    uint8_t *rb;
    int ret = refblock(s, c >> s->refblock_bits, &rb_off, &rb);

    if (ret < 0) {
        return ret;
    }
    if (!rb) {
        return -ENOSPC;
    }
    at = entry_set(s, rb, c & ((1ull << s->refblock_bits) - 1), v);
    return qcow2_write_table_part(s, rb_off, rb, s->cluster_size, at,
                                  entry_bytes(s));
}

static bool count_range(uint32_t *counts, uint64_t n, uint64_t first,
                        uint64_t nb)
{
    for (uint64_t c = first; c < first + nb; c++) {
        if (c >= n) {
            return false;
        }
        counts[c]++;
    }
    return true;
}

/* The references of one L2 table's entries. */
static bool count_l2(Qcow2State *s, const uint8_t *l2, uint32_t *counts,
                     uint64_t n)
{
    for (uint64_t j = 0; j < (1ull << s->l2_bits); j++) {
        uint64_t e = qcow2_be64(l2 + j * 8), off, bytes, first;

        if (e & QCOW2_OFLAG_COMPRESSED) {
            qcow2_compressed_range(s, e, &off, &bytes);
            first = off >> s->cluster_bits;
            if (!count_range(counts, n, first,
                             ((off + bytes - 1) >> s->cluster_bits) -
                             first + 1)) {
                return false;
            }
        } else if ((e & QCOW2_OFFSET_MASK) &&
                   !count_range(counts, n,
                                (e & QCOW2_OFFSET_MASK) >> s->cluster_bits,
                                1)) {
            return false;
        }
    }
    return true;
}

int qcow2_rebuild_refcounts(Qcow2State *s, Error **errp)
{
    uint64_t n = s->file_end >> s->cluster_bits, cs = s->cluster_size;
    g_autofree uint32_t *counts = NULL;
    g_autofree uint8_t *l2 = NULL;
    bool ok = true;
    int ret;

    if (s->nb_snapshots) {
        error_setg(errp, "qcow2: the image is dirty and has internal "
                   "snapshots; repair it with 'qemu-img check -r all'");
        return -ENOTSUP;
    }
    counts = g_try_new0(uint32_t, MAX(n, 1));
    l2 = g_malloc(cs);
    if (!counts) {
        error_setg(errp, "Could not allocate memory for refcount repair");
        return -ENOMEM;
    }
    ok = count_range(counts, n, 0, 1) &&
         count_range(counts, n, s->l1_offset >> s->cluster_bits,
                     ((uint64_t)s->l1_size * 8 + cs - 1) / cs) &&
         count_range(counts, n, s->reftable_offset >> s->cluster_bits,
                     s->reftable_clusters);
    for (uint64_t i = 0; ok && i < s->l1_size; i++) {
        uint64_t off = GUINT64_FROM_BE(s->l1[i]) & QCOW2_OFFSET_MASK;

        if (!off) {
            continue;
        }
        /* Without snapshots no L2 table is shared. */
        ok = (off & (cs - 1)) == 0 && off >> s->cluster_bits < n &&
             !counts[off >> s->cluster_bits] &&
             count_range(counts, n, off >> s->cluster_bits, 1) &&
             qcow2_pread(s, off, l2, cs) == 0 && count_l2(s, l2, counts, n);
    }
    for (uint64_t b = 0; ok && b < s->reftable_size; b++) {
        uint64_t off = GUINT64_FROM_BE(s->reftable[b]) &
                       QCOW2_REFT_OFFSET_MASK;

        ok = !off || ((off & (cs - 1)) == 0 &&
                      count_range(counts, n, off >> s->cluster_bits, 1));
    }
    for (uint64_t c = 0; ok && c < n; c++) {
        uint64_t ref;

        ret = qcow2_refcount_get(s, c, &ref);
        if (ret < 0) {
            ok = false;
        } else if (ref != counts[c]) {
            ok = counts[c] <= s->refcount_max &&
                 refcount_set(s, c, counts[c]) == 0;
        }
    }
    if (!ok) {
        error_setg(errp, "qcow2: the image is dirty and its refcounts "
                   "could not be repaired; use 'qemu-img check -r all'");
        return -EIO;
    }
    return 0;
}
