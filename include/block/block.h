/*
 * The block layer: a graph of nodes (a format node, "raw" or "qcow2",
 * over a protocol node, "file" or "host_device"; a qcow2 node may have
 * a backing node, opened read-only) and named backends that
 * devices attach to (the -drive id, or a -blockdev node-name). Requests
 * are bounds-checked against the node's size, run in the thread pool
 * and complete in the main loop.
 */
#ifndef BLOCK_BLOCK_H
#define BLOCK_BLOCK_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "qapi/qapi-types.h"
#include "qemu/error.h"

typedef struct BlockDriverState BlockDriverState;
typedef struct _JsonObject JsonObject;

/*
 * What a user of a node does with it (perm) and lets others do
 * (shared), as QEMU's permissions; image locking publishes them.
 */
#define BLK_PERM_CONSISTENT_READ    0x01u
#define BLK_PERM_WRITE              0x02u
#define BLK_PERM_WRITE_UNCHANGED    0x04u
#define BLK_PERM_RESIZE             0x08u
#define BLK_PERM_ALL                0x0fu

typedef enum BlockRequestType {
    BLOCK_READ,
    BLOCK_WRITE,
    BLOCK_FLUSH,
    BLOCK_DISCARD,
    BLOCK_WRITE_ZEROES,
} BlockRequestType;

/* A driver's operations; the I/O ones run in a worker thread. */
typedef struct BlockDriver {
    const char *name;               /* "file", "host_device", "raw", "qcow2" */
    /*
     * Requests reach the node below at the same offsets (raw), so the
     * aio= engines may carry them to the protocol node directly.
     */
    bool passthrough;
    int (*preadv)(BlockDriverState *bs, uint64_t offset,
                  const struct iovec *iov, int niov);
    int (*pwritev)(BlockDriverState *bs, uint64_t offset,
                   const struct iovec *iov, int niov);
    int (*flush)(BlockDriverState *bs);
    int (*discard)(BlockDriverState *bs, uint64_t offset, uint64_t len);
    int (*write_zeroes)(BlockDriverState *bs, uint64_t offset,
                        uint64_t len);
    void (*close)(BlockDriverState *bs);
    /* Change the image's size (protocol nodes); NULL: not possible. */
    int (*truncate)(BlockDriverState *bs, uint64_t size);
    /* Publish perm and shared (image locking); NULL: nothing to do. */
    bool (*set_perm)(BlockDriverState *bs, unsigned perm, unsigned shared,
                     Error **errp);
    /*
     * query-block's image members of the format (cluster-size,
     * format-specific, dirty-flag); NULL: none.
     */
    void (*image_info)(BlockDriverState *bs, JsonObject *image);
} BlockDriver;

struct BlockDriverState {
    char *node_name;
    const BlockDriver *drv;
    BlockDriverState *file;         /* a format node's child */
    BlockDriverState *backing;      /* qcow2: the image below, or NULL */
    char *backing_file;             /* its name as the image gives it */
    void *opaque;                   /* the driver's state */
    char *filename;
    int fd;                         /* protocol nodes */
    uint64_t size;
    bool read_only;
    bool direct;                    /* cache.direct: O_DIRECT */
    bool no_flush;                  /* cache.no-flush: flushes do nothing */
    bool writethrough;              /* flush after every write */
    bool anonymous;                 /* node-name was generated */
    bool locking;                   /* locking=on|auto: OFD byte locks */
    int aio;                        /* BLOCK_AIO_*: the I/O engine */
    bool discard_unmap;             /* discard=unmap: else ignored */
    int detect_zeroes;              /* BDRV_DETECT_ZEROES_* */
    bool monitor_owned;             /* a -blockdev/blockdev-add root */
    unsigned parents;               /* nodes that have it as file or backing */
    /*
     * An unlinked temporary file (snapshot=on): emptied before it is
     * closed, so its dirty page cache is dropped, never written back.
     */
    bool temporary;
    /* raw found by probing: sector 0 may not become another format's. */
    bool probed;
};

/*
 * aio=: the thread pool; io_uring (reads, writes, flushes); native
 * (Linux AIO, reads and writes with O_DIRECT; flushes in the pool).
 */
#define BLOCK_AIO_THREADS           0
#define BLOCK_AIO_IO_URING          1
#define BLOCK_AIO_NATIVE            2

/* detect-zeroes=: an all-zero write becomes write-zeroes (or a discard). */
#define BDRV_DETECT_ZEROES_OFF      0
#define BDRV_DETECT_ZEROES_ON       1
#define BDRV_DETECT_ZEROES_UNMAP    2

/*
 * Protocol nodes: a regular file ("file") or block device; locking:
 * publish users' permissions as QEMU's image locks (block/file-posix.c).
 */
BlockDriverState *bdrv_file_open(const char *driver, const char *filename,
                                 const char *node_name, bool read_only,
                                 bool direct, bool locking, Error **errp);
/* The raw format over file. */
BlockDriverState *bdrv_raw_open(BlockDriverState *file,
                                const char *node_name, Error **errp);

/*
 * The qcow2 format's run-time options (-1: QEMU's default): the L2 and
 * refcount caches in bytes, cache-clean-interval in seconds.
 */
typedef struct BlockQcow2Options {
    int64_t l2_cache_size;
    int64_t refcount_cache_size;
    int64_t cache_size;
    int64_t cache_clean_interval;
} BlockQcow2Options;

#define BLOCK_QCOW2_OPTIONS_DEFAULT { -1, -1, -1, -1 }

/*
 * The qcow2 format over file (block/qcow2.c), without its backing file:
 * *backing_name and *backing_fmt (NULL if none; g_free them) say what
 * bdrv_open_image() opens below it.
 */
BlockDriverState *bdrv_qcow2_open(BlockDriverState *file,
                                  const BlockQcow2Options *opts,
                                  const char *node_name, char **backing_name,
                                  char **backing_fmt, Error **errp);
/* Does the image start with the qcow2 magic (probing)? */
bool bdrv_qcow2_probe(const uint8_t *buf, size_t len);
/*
 * Write an empty qcow2 v3 image of size bytes into the empty file fd,
 * with backing (and backing_fmt) as its backing file if not NULL.
 */
bool bdrv_qcow2_create(int fd, uint64_t size, const char *backing,
                       const char *backing_fmt, Error **errp);

/*
 * Open an image as -drive does (block/image.c): a protocol node, the
 * format node on it (format NULL: probed, qcow2 by its magic, else raw
 * with QEMU's warning) and, for qcow2, its backing chain read-only
 * below it (relative names from the overlay's directory, loops
 * refused). Every node is entered in the graph; returns the top.
 */
typedef struct BlockImageOptions {
    const char *filename;
    const char *format;             /* NULL: probe */
    const char *node_name;          /* of the format node; NULL: generated */
    bool read_only;
    bool direct;
    bool locking;
    int aio;
    BlockQcow2Options qcow2;
} BlockImageOptions;

BlockDriverState *bdrv_open_image(const BlockImageOptions *o, Error **errp);
/*
 * The backing chain of the format node bs (not yet in the graph), from
 * the name (and format, NULL: probed) its image gives: -blockdev's
 * qcow2 without "backing".
 */
bool bdrv_open_backing_chain(BlockDriverState *bs, const char *name,
                             const char *fmt, Error **errp);
/*
 * snapshot=on, -snapshot: a temporary qcow2 overlay above bs (whose
 * writes it takes from now on), in an unlinked file of $TMPDIR whose
 * page cache is dropped, not written back, when it closes.
 */
BlockDriverState *bdrv_temp_overlay(BlockDriverState *bs, Error **errp);
/*
 * Enter a node in the graph under its node-name (NULL: a generated
 * "#blockNNN"), with QEMU's checks; on failure the node is closed.
 */
bool bdrv_add(BlockDriverState *bs, Error **errp);
BlockDriverState *bdrv_find_node(const char *node_name);
/*
 * blockdev-del: remove a -blockdev/blockdev-add root and the nodes it
 * made below itself; refused (QEMU's words) while it is in use.
 */
bool bdrv_del(const char *node_name, Error **errp);
/* Take a node nothing uses out of the graph, with the children it made. */
void bdrv_remove(BlockDriverState *bs);
/* Close every node and backend, newest first (at exit). */
void bdrv_close_all(void);

/*
 * Named backends: the root node a device uses. blk_find() looks up a
 * backend (a -drive id, or a node a device already took) and changes
 * nothing; blk_find_for_device() is what a device's drive= does: that,
 * or else a new unnamed backend over the node of that name.
 */
typedef struct BlockBackend BlockBackend;
BlockBackend *blk_new(const char *name, BlockDriverState *root,
                      Error **errp);
BlockBackend *blk_find(const char *name);
BlockBackend *blk_find_for_device(const char *name);
/*
 * A device takes the backend (dev: its DeviceState, kept for query-block)
 * with the permissions it needs and shares (BLK_PERM_*); false (with
 * QEMU's message) if another device has it or another process's lock
 * on the image refuses them. blk_detach() drops the permissions.
 */
bool blk_attach(BlockBackend *blk, void *dev, unsigned perm,
                unsigned shared, Error **errp);
void blk_detach(BlockBackend *blk);
/*
 * Migration's image handover (runstate_inactivate_images() and
 * runstate_activate_images() reach these): inactive, the devices'
 * permissions are recorded but no lock publishes them, so the other
 * side of a migration on the same host, or on shared storage, may hold
 * them. A -incoming destination is inactive from the start (before its
 * devices attach); bdrv_activate_all() takes every device's locks or,
 * with the error of the first it cannot take, none.
 */
void bdrv_inactivate_all(void);
bool bdrv_activate_all(Error **errp);
void *blk_attached_dev(const BlockBackend *blk);
BlockDriverState *blk_root(const BlockBackend *blk);
void blk_foreach(void (*fn)(BlockBackend *blk, void *opaque), void *opaque);
uint64_t blk_size(const BlockBackend *blk);
bool blk_is_read_only(const BlockBackend *blk);
/* -drive if=virtio drives, for the board to give devices. */
void blk_foreach_virtio(void (*fn)(BlockBackend *blk, void *opaque),
                        void *opaque);
void blk_set_virtio(BlockBackend *blk);
const char *blk_name(const BlockBackend *blk);

/*
 * -drive if=ide drives (and -hda.., -cdrom): where the board puts them
 * (bus 0-1, unit 0-1) and whether the drive is a CD-ROM (media=cdrom).
 * blk_find_ide() finds the drive of a slot, NULL when there is none.
 */
void blk_set_ide(BlockBackend *blk, int bus, int unit, bool cdrom);
BlockBackend *blk_find_ide(int bus, int unit);
bool blk_is_ide(const BlockBackend *blk, int *bus, int *unit, bool *cdrom);

/*
 * Backends without a medium: an empty CD-ROM drive (-drive media=cdrom
 * without file=, QEMU's default ide1-cd0). name NULL: an anonymous one
 * (an ide-cd without drive=). A backend's root may be taken out
 * (blk_remove_bs) and another node put in (blk_insert_bs); while it is
 * empty blk_size() is 0 and requests fail with -ENOMEDIUM.
 */
BlockBackend *blk_new_empty(const char *name, Error **errp);
bool blk_is_inserted(const BlockBackend *blk);
void blk_insert_bs(BlockBackend *blk, BlockDriverState *bs);
void blk_remove_bs(BlockBackend *blk);

/*
 * What a device with removable media tells the block layer (QEMU's
 * BlockDevOps): change_media_cb(opaque, load) opens (load false) or
 * closes the tray; eject_request_cb asks the guest to let go of the
 * medium (force: unlock it first).
 */
typedef struct BlockDevOps {
    void (*change_media_cb)(void *opaque, bool load);
    void (*eject_request_cb)(void *opaque, bool force);
    bool (*is_tray_open)(void *opaque);
    bool (*is_medium_locked)(void *opaque);
} BlockDevOps;
void blk_set_dev_ops(BlockBackend *blk, const BlockDevOps *ops,
                     void *opaque);
bool blk_dev_has_removable_media(const BlockBackend *blk);
bool blk_dev_is_tray_open(const BlockBackend *blk);
bool blk_dev_is_medium_locked(const BlockBackend *blk);
void blk_dev_eject_request(BlockBackend *blk, bool force);
/* Calls the device's change_media_cb; true if the tray moved. */
bool blk_dev_change_media(BlockBackend *blk, bool load);

/*
 * Queue a request of len bytes at offset (iov for reads and writes):
 * done(opaque, 0 or -errno) runs later in the main loop. A range beyond
 * the end, or a write to a read-only backend, completes with -EIO or
 * -EROFS without touching the image.
 */
typedef void BlockCompletion(void *opaque, int ret);
void blk_aio(BlockBackend *blk, BlockRequestType type, uint64_t offset,
             uint64_t len, struct iovec *iov, int niov,
             BlockCompletion *done, void *opaque);
/*
 * The same for nreqs guest requests of type that a device merged into
 * one (contiguous, in order): accounted as nreqs operations, nreqs - 1
 * of them merged (query-blockstats' rd_merged, wr_merged).
 */
void blk_aio_merged(BlockBackend *blk, BlockRequestType type,
                    uint64_t offset, uint64_t len, struct iovec *iov,
                    int niov, unsigned nreqs, BlockCompletion *done,
                    void *opaque);
/*
 * I/O accounting per backend, as QEMU's (query-blockstats): counted at
 * completion; write-zeroes counts as a write, discard as an unmap. A
 * request refused before it ran (beyond the end, read-only) is invalid.
 */
typedef enum BlockAcctType {
    BLOCK_ACCT_READ,
    BLOCK_ACCT_WRITE,
    BLOCK_ACCT_FLUSH,
    BLOCK_ACCT_UNMAP,
    BLOCK_ACCT_COUNT,
} BlockAcctType;

typedef struct BlockAcctStats {
    uint64_t bytes[BLOCK_ACCT_COUNT];
    uint64_t ops[BLOCK_ACCT_COUNT];
    uint64_t failed[BLOCK_ACCT_COUNT];
    uint64_t invalid[BLOCK_ACCT_COUNT];
    uint64_t total_time_ns[BLOCK_ACCT_COUNT];
    uint64_t merged[BLOCK_ACCT_COUNT];  /* merged into another request */
    uint64_t wr_highest_offset;
    int64_t last_done_ns;           /* 0: nothing completed yet */
    unsigned in_flight;
} BlockAcctStats;

const BlockAcctStats *blk_stats(const BlockBackend *blk);
/* A device refused a request of type itself (its own range checks). */
void blk_account_invalid(BlockBackend *blk, BlockRequestType type);

/*
 * Resize the node under blk (the protocol node's file and each node
 * above it) to size bytes; the attached device hears of it through
 * resized(dev_opaque).
 */
bool blk_truncate(BlockBackend *blk, uint64_t size, Error **errp);
void blk_set_resize_cb(BlockBackend *blk, void (*resized)(void *opaque),
                       void *opaque);
BlockBackend *blk_by_root(const BlockDriverState *bs);
/*
 * External snapshots: a qcow2 image in file (made over top with top's
 * absolute name as its backing file, unless existing) opened as a new
 * node, top below it as backing; then blk_insert_overlay() moves the
 * backend (and its device's permissions) to it, top becoming
 * read-only. bdrv_set_backing() is blockdev-snapshot's half.
 */
BlockDriverState *bdrv_snapshot_overlay(BlockDriverState *top,
                                        const char *file,
                                        const char *node_name, bool existing,
                                        Error **errp);
bool bdrv_set_backing(BlockDriverState *overlay, BlockDriverState *top,
                      Error **errp);
bool blk_insert_overlay(BlockBackend *blk, BlockDriverState *overlay,
                        Error **errp);
void bdrv_foreach(void (*fn)(BlockDriverState *bs, void *opaque),
                  void *opaque);

/*
 * Error policy (werror/rerror) and io-status, as QEMU's: a device asks
 * what to do about a failed request (error: a positive errno) and acts
 * on it; the backend keeps the io-status once a device enabled it.
 */
void blk_set_on_error(BlockBackend *blk, BlockdevOnError on_read_error,
                      BlockdevOnError on_write_error);
BlockdevOnError blk_get_on_error(const BlockBackend *blk, bool is_read);
BlockErrorAction blk_get_error_action(const BlockBackend *blk, bool is_read,
                                      int error);
void blk_iostatus_enable(BlockBackend *blk);
/* Enabled, and werror is enospc or stop, or rerror stop. */
bool blk_iostatus_is_enabled(const BlockBackend *blk);
BlockDeviceIoStatus blk_iostatus(const BlockBackend *blk);
/* The first error since the last reset: failed, or nospace (ENOSPC). */
void blk_iostatus_set_err(BlockBackend *blk, int error);
void blk_iostatus_reset(BlockBackend *blk);

/*
 * A device about to queue several requests (a pass over its virtqueue):
 * the I/O engines may hand them to the kernel together at the unplug.
 */
void blk_io_plug(void);
void blk_io_unplug(void);

/* Wait for every request in flight (device reset, exit). */
void blk_drain_all(void);
/*
 * Drain, then flush every writable image to stable storage (the VM
 * stopped for a migration's switch-over: the destination reads what
 * the guest wrote). Registered as the run state's drain hook when the
 * first backend is made.
 */
bool blk_drain_flush_all(Error **errp);

/* The engine of an aio= mode (BLOCK_AIO_*), NULL for threads. */
struct BlockAioEngine;
const struct BlockAioEngine *block_aio_engine(int aio);

#endif
