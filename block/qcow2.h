/*
 * The qcow2 format driver's shared state (block/qcow2*.c). The layout
 * is QEMU's docs/interop/qcow2.txt: a big-endian header, a one-level
 * refcount table of refcount blocks, and a two-level L1/L2 map from
 * guest clusters to host clusters.
 *
 * Tables are kept in memory as they are on disk (big-endian) and every
 * change to them is written through at once, in the order QEMU's cache
 * dependencies give: a refcount before the L2 entry that uses the
 * cluster, the data before the L2 entry that maps it, a new L2 table
 * before the L1 entry that points to it. A process killed between two
 * of those writes leaves at most leaked clusters. One mutex guards the
 * metadata; reads and writes of allocated clusters run outside it.
 */
#ifndef BLOCK_QCOW2_H
#define BLOCK_QCOW2_H

#include <glib.h>
#include <stdbool.h>
#include <stdint.h>

#include "block/block.h"

#define QCOW2_MAGIC                 0x514649fbu     /* "QFI\xfb" */
#define QCOW2_MIN_CLUSTER_BITS      9
#define QCOW2_MAX_CLUSTER_BITS      21
#define QCOW2_MAX_L1_BYTES          (32 * 1024 * 1024)
#define QCOW2_MAX_REFTABLE_BYTES    (8 * 1024 * 1024)
#define QCOW2_MAX_SNAPSHOTS         65536
#define QCOW2_MAX_BACKING_NAME      1023
#define QCOW2_V2_HEADER_LEN         72
#define QCOW2_V3_HEADER_LEN         104

/* incompatible_features */
#define QCOW2_INCOMPAT_DIRTY        (UINT64_C(1) << 0)
#define QCOW2_INCOMPAT_CORRUPT      (UINT64_C(1) << 1)
#define QCOW2_INCOMPAT_DATA_FILE    (UINT64_C(1) << 2)
#define QCOW2_INCOMPAT_COMPRESSION  (UINT64_C(1) << 3)
#define QCOW2_INCOMPAT_EXTL2        (UINT64_C(1) << 4)
#define QCOW2_INCOMPAT_SUPPORTED    (QCOW2_INCOMPAT_DIRTY | \
                                     QCOW2_INCOMPAT_CORRUPT | \
                                     QCOW2_INCOMPAT_COMPRESSION)
/* compatible_features */
#define QCOW2_COMPAT_LAZY_REFCOUNTS (UINT64_C(1) << 0)

/* Header extension types */
#define QCOW2_EXT_END               0
#define QCOW2_EXT_BACKING_FORMAT    0xe2792acau
#define QCOW2_EXT_FEATURE_TABLE     0x6803f857u

/* L1 and L2 entries */
#define QCOW2_OFLAG_COPIED          (UINT64_C(1) << 63)
#define QCOW2_OFLAG_COMPRESSED      (UINT64_C(1) << 62)
#define QCOW2_OFLAG_ZERO            (UINT64_C(1) << 0)
#define QCOW2_OFFSET_MASK           UINT64_C(0x00fffffffffffe00)
#define QCOW2_REFT_OFFSET_MASK      UINT64_C(0xfffffffffffffe00)

#define QCOW2_COMPRESSION_ZLIB      0
#define QCOW2_COMPRESSION_ZSTD      1

/* QEMU's defaults: the L2 cache covers the disk up to 32 MiB. */
#define QCOW2_DEFAULT_L2_CACHE_MAX  (32 * 1024 * 1024)
#define QCOW2_DEFAULT_CLEAN_SECONDS 600

/* What a guest cluster is (from its L2 entry). */
typedef enum Qcow2ClusterType {
    QCOW2_CLUSTER_UNALLOCATED,      /* the backing file, or zeroes */
    QCOW2_CLUSTER_ZERO_PLAIN,       /* reads as zeroes, no host cluster */
    QCOW2_CLUSTER_ZERO_ALLOC,       /* reads as zeroes, host cluster kept */
    QCOW2_CLUSTER_NORMAL,
    QCOW2_CLUSTER_COMPRESSED,
} Qcow2ClusterType;

/* A table cache (L2 tables, refcount blocks): clean entries only. */
typedef struct Qcow2Cache {
    unsigned size;                  /* entries */
    uint8_t *buf;                   /* size * cluster_size, mapped */
    uint64_t bytes;
    uint64_t *offset;               /* host offset of each entry, 0: free */
    uint64_t *lru;                  /* last use (tick) */
    bool *used;                     /* used since the last clean */
    uint64_t tick;
    int64_t last_clean_ns;
} Qcow2Cache;

typedef struct Qcow2State {
    BlockDriverState *file;
    GMutex lock;
    GCond inflight_cond;            /* an allocating write finished */
    GArray *inflight;               /* of Qcow2Inflight (qcow2-cluster.c) */

    int version;
    unsigned cluster_bits;
    uint64_t cluster_size;
    unsigned l2_bits;               /* entries per L2 table: 1 << l2_bits */
    unsigned refcount_order;
    unsigned refcount_bits;
    unsigned refblock_bits;         /* entries per refcount block, log2 */
    uint64_t refcount_max;
    unsigned csize_shift;
    uint64_t csize_mask;
    uint64_t coffset_mask;
    unsigned header_length;
    uint64_t incompat, compat, autoclear;
    int compression_type;

    uint8_t *header;                /* the first cluster as read, aligned */
    uint64_t *l1;                   /* big-endian, whole clusters */
    uint32_t l1_size;
    uint64_t l1_offset;
    uint64_t *reftable;             /* big-endian, whole clusters */
    uint64_t reftable_size;         /* entries */
    uint64_t reftable_offset;
    uint32_t reftable_clusters;
    uint64_t snapshots_offset;
    uint32_t nb_snapshots;

    Qcow2Cache l2_cache;
    Qcow2Cache refblock_cache;
    int64_t clean_interval_ns;      /* 0: never */

    uint64_t file_end;              /* bytes: nothing is mapped beyond */
    uint64_t free_hint;             /* first cluster that may be free */
    unsigned io_align;              /* metadata I/O granularity */
    bool discard_unmap;             /* freed clusters become holes */
    bool corrupt_reported;
    bool read_only;
} Qcow2State;

/* qcow2.c */
uint64_t qcow2_be64(const void *p);
void qcow2_set_be64(void *p, uint64_t v);
/* Read or write [offset, offset + len) of the image file. */
int qcow2_pread(Qcow2State *s, uint64_t offset, void *buf, uint64_t len);
int qcow2_pwrite(Qcow2State *s, uint64_t offset, const void *buf,
                 uint64_t len);
/*
 * Write back bytes [start, start + len) of a table of table_len bytes
 * kept in memory at buf and in the file at table_offset, widened to
 * s->io_align within the table.
 */
int qcow2_write_table_part(Qcow2State *s, uint64_t table_offset,
                           const void *buf, uint64_t table_len,
                           uint64_t start, uint64_t len);
/* Header field updates, written through. */
int qcow2_write_header_part(Qcow2State *s, unsigned start, unsigned len);
/*
 * Metadata the image should not have: QEMU's corruption event. Marks
 * the image corrupt (when it is writable) and returns -EIO.
 */
int qcow2_signal_corruption(Qcow2State *s, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);
void *qcow2_alloc_aligned(uint64_t size);
/* A host range that holds the header or a table of the image. */
bool qcow2_overlaps_metadata(Qcow2State *s, uint64_t offset, uint64_t len);

/* qcow2-cache.c */
void qcow2_cache_init(Qcow2State *s, Qcow2Cache *c, unsigned entries);
void qcow2_cache_destroy(Qcow2Cache *c);
/* The table at offset, read from the file if it is not cached. */
int qcow2_cache_get(Qcow2State *s, Qcow2Cache *c, uint64_t offset,
                    uint8_t **table);
/* A cache entry for a new table at offset, filled with zeroes. */
uint8_t *qcow2_cache_get_empty(Qcow2State *s, Qcow2Cache *c,
                               uint64_t offset);
void qcow2_cache_forget(Qcow2Cache *c, uint64_t offset);

/* qcow2-refcount.c */
int qcow2_refcount_get(Qcow2State *s, uint64_t cluster, uint64_t *ref);
/* Add delta to the refcounts of nb clusters from host offset. */
int qcow2_refcount_update(Qcow2State *s, uint64_t offset, uint64_t nb,
                          int delta);
/* nb contiguous new clusters with refcount 1; returns the host offset. */
int64_t qcow2_alloc_clusters(Qcow2State *s, uint64_t nb);
/* Drop a reference to nb clusters from offset; punch: holes if freed. */
int qcow2_free_clusters(Qcow2State *s, uint64_t offset, uint64_t nb,
                        bool punch);
/* The host clusters a compressed L2 entry covers. */
void qcow2_compressed_range(Qcow2State *s, uint64_t l2e, uint64_t *offset,
                            uint64_t *bytes);
/* Rebuild every refcount from the tables (a dirty image). */
int qcow2_rebuild_refcounts(Qcow2State *s, Error **errp);

/* qcow2-cluster.c */
Qcow2ClusterType qcow2_cluster_type(Qcow2State *s, uint64_t l2e);
/*
 * The L2 entry of the guest cluster at offset (0 when the L1 entry is
 * empty); -EIO for a damaged table.
 */
int qcow2_get_l2_entry(Qcow2State *s, uint64_t offset, uint64_t *l2e);
int qcow2_co_read(BlockDriverState *bs, uint64_t offset,
                  const struct iovec *iov, int niov);
int qcow2_co_write(BlockDriverState *bs, uint64_t offset,
                   const struct iovec *iov, int niov);
int qcow2_co_zero_or_discard(BlockDriverState *bs, uint64_t offset,
                             uint64_t len, bool discard);

/* qcow2-compress.c: a compressed cluster's bytes into a cluster. */
int qcow2_decompress(int type, const uint8_t *src, size_t src_len,
                     uint8_t *dst, size_t dst_len);
bool qcow2_compression_supported(int type);

/* iovec helpers shared by the read and write paths */
void qcow2_iov_to_buf(const struct iovec *iov, int niov, uint64_t skip,
                      void *buf, uint64_t len);
void qcow2_iov_from_buf(const struct iovec *iov, int niov, uint64_t skip,
                        const void *buf, uint64_t len);
void qcow2_iov_memset(const struct iovec *iov, int niov, uint64_t skip,
                      uint64_t len);
/* The iovec of bytes [skip, skip + len) of iov (g_free it). */
struct iovec *qcow2_iov_slice(const struct iovec *iov, int niov,
                              uint64_t skip, uint64_t len, int *n);

#endif
