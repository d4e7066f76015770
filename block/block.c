/*
 * The block graph and the backends (include/block/block.h): node names,
 * request bounds, and requests through the thread pool.
 */
#include <errno.h>
#include <string.h>

#include "block/block.h"
#include "block/aio-engine.h"
#include "block/thread-pool.h"
#include "qemu/option.h"
#include "qemu/timer.h"
#include "system/runstate.h"

struct BlockBackend {
    char *name;
    BlockDriverState *root;
    void *dev;                      /* the attached device, or NULL */
    unsigned perm, shared;          /* what the device took (BLK_PERM_*) */
    bool anonymous;                 /* made for a -blockdev node */
    bool virtio;                    /* -drive if=virtio */
    bool ide;                       /* -drive if=ide: at ide_bus, ide_unit */
    int ide_bus, ide_unit;
    bool cdrom;                     /* media=cdrom */
    const BlockDevOps *dev_ops;     /* removable media, or NULL */
    void *dev_opaque;
    BlockdevOnError on_read_error;  /* rerror: report by default */
    BlockdevOnError on_write_error; /* werror: enospc by default */
    bool iostatus_enabled;          /* a device keeps an io-status */
    BlockDeviceIoStatus iostatus;
    BlockAcctStats stats;
    void (*resized)(void *opaque);
    void *resized_opaque;
};

static GPtrArray *nodes;            /* of BlockDriverState *, creation order */
static unsigned requests_in_flight; /* queued by blk_aio, not yet done */
static GPtrArray *backends;         /* of BlockBackend * */
static unsigned anonymous_nodes;

static void bdrv_free(BlockDriverState *bs)
{
    if (bs->drv->close) {
        bs->drv->close(bs);
    }
    g_free(bs->node_name);
    g_free(bs->filename);
    g_free(bs->backing_file);
    g_free(bs);
}

BlockDriverState *bdrv_find_node(const char *node_name)
{
    for (guint i = 0; nodes && i < nodes->len; i++) {
        BlockDriverState *bs = g_ptr_array_index(nodes, i);

        if (!strcmp(bs->node_name, node_name)) {
            return bs;
        }
    }
    return NULL;
}

bool bdrv_add(BlockDriverState *bs, Error **errp)
{
    if (!bs->node_name) {
        bs->node_name = g_strdup_printf("#block%03u", anonymous_nodes++);
        bs->anonymous = true;
    } else if (!id_wellformed(bs->node_name)) {
        error_setg(errp, "Invalid node-name: '%s'", bs->node_name);
        bdrv_free(bs);
        return false;
    } else if (bdrv_find_node(bs->node_name)) {
        error_setg(errp, "Duplicate nodes with node-name='%s'",
                   bs->node_name);
        bdrv_free(bs);
        return false;
    } else if (blk_find(bs->node_name)) {
        error_setg(errp, "node-name=%s is conflicting with a device id",
                   bs->node_name);
        bdrv_free(bs);
        return false;
    }
    if (bs->file) {
        bs->file->parents++;
    }
    if (bs->backing) {
        bs->backing->parents++;
    }
    if (!nodes) {
        nodes = g_ptr_array_new();
    }
    g_ptr_array_add(nodes, bs);
    return true;
}

BlockBackend *blk_new(const char *name, BlockDriverState *root,
                      Error **errp)
{
    BlockBackend *blk;

    for (guint i = 0; backends && i < backends->len; i++) {
        blk = g_ptr_array_index(backends, i);
        if (!strcmp(blk->name, name)) {
            error_setg(errp, "Duplicate ID '%s' for drive", name);
            return NULL;
        }
    }
    blk = g_new0(BlockBackend, 1);
    blk->name = g_strdup(name);
    blk->root = root;
    blk->on_read_error = BLOCKDEV_ON_ERROR_REPORT;
    blk->on_write_error = BLOCKDEV_ON_ERROR_ENOSPC;
    if (!backends) {
        backends = g_ptr_array_new();
    }
    g_ptr_array_add(backends, blk);
    runstate_set_drain_hook(blk_drain_flush_all);
    runstate_set_image_hooks(bdrv_inactivate_all, bdrv_activate_all);
    return blk;
}

BlockBackend *blk_find(const char *name)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (!strcmp(blk->name, name)) {
            return blk;
        }
    }
    return NULL;
}

BlockBackend *blk_find_for_device(const char *name)
{
    BlockBackend *blk = blk_find(name);
    BlockDriverState *bs;

    if (blk) {
        return blk;
    }
    /* A -blockdev node gets an unnamed backend when a device takes it. */
    bs = bdrv_find_node(name);
    if (!bs) {
        return NULL;
    }
    blk = blk_new(name, bs, NULL);
    blk->anonymous = true;
    return blk;
}

void bdrv_remove(BlockDriverState *bs)
{
    BlockDriverState *children[] = { bs->file, bs->backing };

    g_ptr_array_remove(nodes, bs);
    bdrv_free(bs);
    /* A child made for bs alone goes with it. */
    for (size_t i = 0; i < G_N_ELEMENTS(children); i++) {
        BlockDriverState *c = children[i];

        if (c && !--c->parents && !c->monitor_owned) {
            bdrv_remove(c);
        }
    }
}

bool bdrv_del(const char *node_name, Error **errp)
{
    BlockDriverState *bs = bdrv_find_node(node_name);
    BlockBackend *blk;

    if (!bs) {
        error_setg(errp, "Failed to find node with node-name='%s'",
                   node_name);
        return false;
    }
    blk = blk_by_root(bs);
    if (blk && (blk->dev || !blk->anonymous)) {
        error_setg(errp, "Node %s is in use", node_name);
        return false;
    }
    if (bs->parents) {
        error_setg(errp, "Block device %s is in use", node_name);
        return false;
    }
    if (!bs->monitor_owned) {
        error_setg(errp, "Node %s is not owned by the monitor", node_name);
        return false;
    }
    if (blk) {
        /* Made by a device that then failed to take it. */
        g_ptr_array_remove(backends, blk);
        g_free(blk->name);
        g_free(blk);
    }
    bdrv_remove(bs);
    return true;
}

/* Down the graph to the node that publishes permissions. */
static bool bdrv_set_perm(BlockDriverState *bs, unsigned perm,
                          unsigned shared, Error **errp)
{
    for (; bs; bs = bs->file) {
        if (bs->drv->set_perm) {
            return bs->drv->set_perm(bs, perm, shared, errp);
        }
    }
    return true;
}

/* Devices' permissions are recorded but not published (no locks). */
static bool images_inactive;

bool blk_attach(BlockBackend *blk, void *dev, unsigned perm,
                unsigned shared, Error **errp)
{
    if (blk->dev) {
        error_setg(errp, "Drive '%s' is already in use by another device",
                   blk->name);
        return false;
    }
    if (!images_inactive && blk->root &&
        !bdrv_set_perm(blk->root, perm, shared, errp)) {
        return false;
    }
    blk->dev = dev;
    blk->perm = perm;
    blk->shared = shared;
    return true;
}

void blk_detach(BlockBackend *blk)
{
    if (blk->dev && !images_inactive && blk->root) {
        bdrv_set_perm(blk->root, 0, BLK_PERM_ALL, NULL);
    }
    blk->dev = NULL;
    blk->dev_ops = NULL;
    blk->dev_opaque = NULL;
}

void bdrv_inactivate_all(void)
{
    for (guint i = 0; !images_inactive && backends && i < backends->len;
         i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (blk->dev && blk->root) {
            bdrv_set_perm(blk->root, 0, BLK_PERM_ALL, NULL);
        }
    }
    images_inactive = true;
}

bool bdrv_activate_all(Error **errp)
{
    guint i;

    for (i = 0; images_inactive && backends && i < backends->len; i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (blk->dev && blk->root &&
            !bdrv_set_perm(blk->root, blk->perm, blk->shared, errp)) {
            /* All or nothing: drop what this call took. */
            while (i--) {
                blk = g_ptr_array_index(backends, i);
                if (blk->dev && blk->root) {
                    bdrv_set_perm(blk->root, 0, BLK_PERM_ALL, NULL);
                }
            }
            return false;
        }
    }
    images_inactive = false;
    return true;
}

void *blk_attached_dev(const BlockBackend *blk)
{
    return blk->dev;
}

BlockDriverState *blk_root(const BlockBackend *blk)
{
    return blk->root;
}

void blk_foreach(void (*fn)(BlockBackend *blk, void *opaque), void *opaque)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        fn(g_ptr_array_index(backends, i), opaque);
    }
}

uint64_t blk_size(const BlockBackend *blk)
{
    return blk->root ? blk->root->size : 0;
}

bool blk_is_read_only(const BlockBackend *blk)
{
    /* An empty drive is a CD-ROM's: read-only whatever comes in. */
    return blk->root ? blk->root->read_only : true;
}

const char *blk_name(const BlockBackend *blk)
{
    return blk->anonymous ? "" : blk->name;
}

void blk_set_virtio(BlockBackend *blk)
{
    blk->virtio = true;
}

void blk_set_ide(BlockBackend *blk, int bus, int unit, bool cdrom)
{
    blk->ide = true;
    blk->ide_bus = bus;
    blk->ide_unit = unit;
    blk->cdrom = cdrom;
}

BlockBackend *blk_find_ide(int bus, int unit)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (blk->ide && blk->ide_bus == bus && blk->ide_unit == unit) {
            return blk;
        }
    }
    return NULL;
}

bool blk_is_ide(const BlockBackend *blk, int *bus, int *unit, bool *cdrom)
{
    if (blk->ide) {
        *bus = blk->ide_bus;
        *unit = blk->ide_unit;
        *cdrom = blk->cdrom;
    }
    return blk->ide;
}

BlockBackend *blk_new_empty(const char *name, Error **errp)
{
    static unsigned anonymous_empty;
    g_autofree char *auto_name = NULL;
    BlockBackend *blk;

    if (!name) {
        name = auto_name = g_strdup_printf("#empty%u", anonymous_empty++);
    }
    blk = blk_new(name, NULL, errp);
    if (blk && auto_name) {
        blk->anonymous = true;
    }
    return blk;
}

bool blk_is_inserted(const BlockBackend *blk)
{
    return blk->root != NULL;
}

void blk_insert_bs(BlockBackend *blk, BlockDriverState *bs)
{
    g_assert(!blk->root);
    blk->root = bs;
    if (blk->dev && !images_inactive) {
        bdrv_set_perm(bs, blk->perm & ~(bs->read_only ? BLK_PERM_WRITE : 0),
                      blk->shared, NULL);
    }
}

void blk_remove_bs(BlockBackend *blk)
{
    BlockDriverState *bs = blk->root;

    if (!bs) {
        return;
    }
    blk_drain_all();
    if (blk->dev && !images_inactive) {
        bdrv_set_perm(bs, 0, BLK_PERM_ALL, NULL);
    }
    blk->root = NULL;
    /* A node made for this drive goes with it; a -blockdev node stays. */
    if (!bs->monitor_owned) {
        bdrv_remove(bs);
    }
}

void blk_set_dev_ops(BlockBackend *blk, const BlockDevOps *ops, void *opaque)
{
    blk->dev_ops = ops;
    blk->dev_opaque = opaque;
}

bool blk_dev_has_removable_media(const BlockBackend *blk)
{
    return !blk->dev || (blk->dev_ops && blk->dev_ops->change_media_cb);
}

bool blk_dev_is_tray_open(const BlockBackend *blk)
{
    return blk->dev_ops && blk->dev_ops->is_tray_open &&
           blk->dev_ops->is_tray_open(blk->dev_opaque);
}

bool blk_dev_is_medium_locked(const BlockBackend *blk)
{
    return blk->dev_ops && blk->dev_ops->is_medium_locked &&
           blk->dev_ops->is_medium_locked(blk->dev_opaque);
}

void blk_dev_eject_request(BlockBackend *blk, bool force)
{
    if (blk->dev_ops && blk->dev_ops->eject_request_cb) {
        blk->dev_ops->eject_request_cb(blk->dev_opaque, force);
    }
}

bool blk_dev_change_media(BlockBackend *blk, bool load)
{
    bool was_open = blk_dev_is_tray_open(blk);

    if (blk->dev_ops && blk->dev_ops->change_media_cb) {
        blk->dev_ops->change_media_cb(blk->dev_opaque, load);
    }
    return was_open != blk_dev_is_tray_open(blk);
}

void blk_foreach_virtio(void (*fn)(BlockBackend *blk, void *opaque),
                        void *opaque)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (blk->virtio) {
            fn(blk, opaque);
        }
    }
}

/* --- error policy --- */

void blk_set_on_error(BlockBackend *blk, BlockdevOnError on_read_error,
                      BlockdevOnError on_write_error)
{
    blk->on_read_error = on_read_error;
    blk->on_write_error = on_write_error;
}

BlockdevOnError blk_get_on_error(const BlockBackend *blk, bool is_read)
{
    return is_read ? blk->on_read_error : blk->on_write_error;
}

BlockErrorAction blk_get_error_action(const BlockBackend *blk, bool is_read,
                                      int error)
{
    switch (blk_get_on_error(blk, is_read)) {
    case BLOCKDEV_ON_ERROR_ENOSPC:
        return error == ENOSPC ? BLOCK_ERROR_ACTION_STOP
                               : BLOCK_ERROR_ACTION_REPORT;
    case BLOCKDEV_ON_ERROR_STOP:
        return BLOCK_ERROR_ACTION_STOP;
    case BLOCKDEV_ON_ERROR_IGNORE:
        return BLOCK_ERROR_ACTION_IGNORE;
    default:
        return BLOCK_ERROR_ACTION_REPORT;
    }
}

void blk_iostatus_enable(BlockBackend *blk)
{
    blk->iostatus_enabled = true;
    blk->iostatus = BLOCK_DEVICE_IO_STATUS_OK;
}

bool blk_iostatus_is_enabled(const BlockBackend *blk)
{
    return blk->iostatus_enabled &&
           (blk->on_write_error == BLOCKDEV_ON_ERROR_ENOSPC ||
            blk->on_write_error == BLOCKDEV_ON_ERROR_STOP ||
            blk->on_read_error == BLOCKDEV_ON_ERROR_STOP);
}

BlockDeviceIoStatus blk_iostatus(const BlockBackend *blk)
{
    return blk->iostatus;
}

void blk_iostatus_set_err(BlockBackend *blk, int error)
{
    if (blk_iostatus_is_enabled(blk) &&
        blk->iostatus == BLOCK_DEVICE_IO_STATUS_OK) {
        blk->iostatus = error == ENOSPC ? BLOCK_DEVICE_IO_STATUS_NOSPACE
                                        : BLOCK_DEVICE_IO_STATUS_FAILED;
    }
}

void blk_iostatus_reset(BlockBackend *blk)
{
    blk->iostatus = BLOCK_DEVICE_IO_STATUS_OK;
}

/* --- requests --- */

typedef struct BlockRequest {
    BlockBackend *blk;
    BlockAcctType acct;             /* counted as (before detect-zeroes) */
    int64_t start_ns;
    BlockDriverState *bs;
    BlockRequestType type;
    uint64_t offset, len;
    struct iovec *iov;
    int niov;
    BlockCompletion *done;
    void *opaque;
    unsigned nreqs;                 /* guest requests merged into this */
} BlockRequest;

static bool no_flush(const BlockDriverState *bs)
{
    for (; bs; bs = bs->file) {
        if (bs->no_flush) {
            return true;
        }
    }
    return false;
}

/* discard=unmap somewhere down the chain: discards reach the file. */
static bool discard_unmap(const BlockDriverState *bs)
{
    for (; bs; bs = bs->file) {
        if (bs->discard_unmap) {
            return true;
        }
    }
    return false;
}

static bool iov_is_zero(const struct iovec *iov, int niov)
{
    for (int i = 0; i < niov; i++) {
        const uint8_t *p = iov[i].iov_base;
        size_t n = iov[i].iov_len;

        if (n && (p[0] || memcmp(p, p + 1, n - 1))) {
            return false;
        }
    }
    return true;
}

static int request_work(void *opaque)
{
    BlockRequest *r = opaque;
    const BlockDriver *drv = r->bs->drv;
    int ret;

    switch (r->type) {
    case BLOCK_READ:
        return drv->preadv(r->bs, r->offset, r->iov, r->niov);
    case BLOCK_WRITE:
        ret = drv->pwritev(r->bs, r->offset, r->iov, r->niov);
        if (!ret && r->bs->writethrough && !no_flush(r->bs)) {
            ret = drv->flush(r->bs);
        }
        return ret;
    case BLOCK_FLUSH:
        return no_flush(r->bs) ? 0 : drv->flush(r->bs);
    case BLOCK_DISCARD:
        /* discard=ignore (QEMU's default) drops guest discards. */
        return discard_unmap(r->bs) ? drv->discard(r->bs, r->offset, r->len)
                                    : 0;
    case BLOCK_WRITE_ZEROES:
        return drv->write_zeroes(r->bs, r->offset, r->len);
    }
    return -EINVAL;
}

static const BlockAcctType acct_type[] = {
    [BLOCK_READ] = BLOCK_ACCT_READ,
    [BLOCK_WRITE] = BLOCK_ACCT_WRITE,
    [BLOCK_FLUSH] = BLOCK_ACCT_FLUSH,
    [BLOCK_DISCARD] = BLOCK_ACCT_UNMAP,
    [BLOCK_WRITE_ZEROES] = BLOCK_ACCT_WRITE,
};

static void request_done(void *opaque, int ret)
{
    BlockRequest *r = opaque;
    BlockAcctStats *st = &r->blk->stats;
    BlockAcctType t = r->acct;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);

    st->in_flight--;
    if (ret < 0) {
        st->failed[t] += r->nreqs;
    } else {
        st->ops[t] += r->nreqs;
        st->merged[t] += r->nreqs - 1;
        st->bytes[t] += r->len;
        st->total_time_ns[t] += (now - r->start_ns) * r->nreqs;
        if (t == BLOCK_ACCT_WRITE && r->offset + r->len >
                                     st->wr_highest_offset) {
            st->wr_highest_offset = r->offset + r->len;
        }
    }
    st->last_done_ns = now;
    requests_in_flight--;
    r->done(r->opaque, ret);
    g_free(r);
}

/* The protocol node at the bottom of bs (raw passes requests down). */
static BlockDriverState *protocol_node(BlockDriverState *bs)
{
    while (bs->file) {
        bs = bs->file;
    }
    return bs;
}

/* Do requests reach the protocol node unchanged (raw over file)? */
static bool passthrough(const BlockDriverState *bs)
{
    for (; bs->file; bs = bs->file) {
        if (!bs->drv->passthrough) {
            return false;
        }
    }
    return true;
}

/* The engine of each aio= mode; aio=threads has none. */
static const BlockAioEngine *const aio_engines[] = {
    [BLOCK_AIO_IO_URING] = &block_aio_io_uring,
    [BLOCK_AIO_NATIVE] = &block_aio_native,
};

const BlockAioEngine *block_aio_engine(int aio)
{
    return aio >= 0 && aio < (int)G_N_ELEMENTS(aio_engines) ?
           aio_engines[aio] : NULL;
}

/*
 * A write done by an engine: writethrough flushes before completing,
 * through the engine where it carries flushes, else in the thread pool.
 */
static void engine_write_done(void *opaque, int ret)
{
    BlockRequest *r = opaque;
    BlockDriverState *proto = protocol_node(r->bs);
    const BlockAioEngine *e = block_aio_engine(proto->aio);

    if (ret || !r->bs->writethrough || no_flush(r->bs)) {
        request_done(r, ret);
    } else if (e->flush) {
        e->submit(proto->fd, BLOCK_AIO_FLUSH, 0, NULL, 0, request_done, r);
    } else {
        r->type = BLOCK_FLUSH;
        thread_pool_submit(request_work, request_done, r);
    }
}

/*
 * Requests the aio= engine carries (reads, writes, and flushes where it
 * can); the rest go to the thread pool.
 */
static bool engine_submit(BlockRequest *r)
{
    BlockDriverState *proto = protocol_node(r->bs);
    const BlockAioEngine *e = block_aio_engine(proto->aio);

    /*
     * A format that maps offsets (qcow2) runs in the thread pool, and
     * so does a write of a probed raw image's first sector (checked).
     */
    if (!e || !passthrough(r->bs) ||
        (r->bs->probed && r->type == BLOCK_WRITE && r->offset < 512)) {
        return false;
    }
    switch (r->type) {
    case BLOCK_READ:
        e->submit(proto->fd, BLOCK_AIO_READ, r->offset, r->iov, r->niov,
                  request_done, r);
        return true;
    case BLOCK_WRITE:
        e->submit(proto->fd, BLOCK_AIO_WRITE, r->offset, r->iov, r->niov,
                  engine_write_done, r);
        return true;
    case BLOCK_FLUSH:
        if (!e->flush || no_flush(r->bs)) {
            return false;
        }
        e->submit(proto->fd, BLOCK_AIO_FLUSH, 0, NULL, 0, request_done, r);
        return true;
    default:
        return false;
    }
}

const BlockAcctStats *blk_stats(const BlockBackend *blk)
{
    return &blk->stats;
}

void blk_account_invalid(BlockBackend *blk, BlockRequestType type)
{
    blk->stats.invalid[acct_type[type]]++;
}

static int request_check(const BlockDriverState *bs, BlockRequestType type,
                         uint64_t offset, uint64_t len)
{
    if (type != BLOCK_READ && type != BLOCK_FLUSH && bs->read_only) {
        return -EROFS;
    }
    if (type != BLOCK_FLUSH &&
        (offset > bs->size || len > bs->size - offset)) {
        return -EIO;
    }
    return 0;
}

static int error_work(void *opaque)
{
    return 0;
}

typedef struct BlockError {
    BlockCompletion *done;
    void *opaque;
    int ret;
} BlockError;

static void error_done(void *opaque, int ret)
{
    BlockError *e = opaque;

    e->done(e->opaque, e->ret);
    g_free(e);
}

void blk_aio(BlockBackend *blk, BlockRequestType type, uint64_t offset,
             uint64_t len, struct iovec *iov, int niov,
             BlockCompletion *done, void *opaque)
{
    blk_aio_merged(blk, type, offset, len, iov, niov, 1, done, opaque);
}

void blk_aio_merged(BlockBackend *blk, BlockRequestType type,
                    uint64_t offset, uint64_t len, struct iovec *iov,
                    int niov, unsigned nreqs, BlockCompletion *done,
                    void *opaque)
{
    int ret = blk->root ? request_check(blk->root, type, offset, len)
                        : -ENOMEDIUM;
    BlockAcctType acct = acct_type[type];
    BlockRequest *r;

    if (ret < 0) {
        /* Completions always come later, from the main loop. */
        BlockError *e = g_new0(BlockError, 1);

        for (unsigned i = 0; i < nreqs; i++) {
            blk_account_invalid(blk, type);
        }
        e->done = done;
        e->opaque = opaque;
        e->ret = ret;
        thread_pool_submit(error_work, error_done, e);
        return;
    }
    /*
     * detect-zeroes: a write of zeroes only is a write-zeroes, or with
     * unmap (and discard=unmap) a discard; it is still counted as the
     * write it was.
     */
    if (type == BLOCK_WRITE && blk->root->detect_zeroes &&
        iov_is_zero(iov, niov)) {
        type = blk->root->detect_zeroes == BDRV_DETECT_ZEROES_UNMAP &&
               discard_unmap(blk->root) ? BLOCK_DISCARD : BLOCK_WRITE_ZEROES;
        iov = NULL;
        niov = 0;
    }
    r = g_new0(BlockRequest, 1);
    r->blk = blk;
    r->acct = acct;
    r->start_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    blk->stats.in_flight++;
    r->bs = blk->root;
    r->type = type;
    r->offset = offset;
    r->len = len;
    r->iov = iov;
    r->niov = niov;
    r->done = done;
    r->opaque = opaque;
    r->nreqs = nreqs;
    requests_in_flight++;
    if (!engine_submit(r)) {
        thread_pool_submit(request_work, request_done, r);
    }
}

/* --- size --- */

bool blk_truncate(BlockBackend *blk, uint64_t size, Error **errp)
{
    BlockDriverState *proto = blk->root;
    int r;

    if (!proto) {
        error_setg(errp, "No medium inserted");
        return false;
    }
    while (proto->file) {
        proto = proto->file;
    }
    for (BlockDriverState *n = blk->root; n; n = n->file) {
        if (n->read_only) {
            error_setg(errp, "Block node is read-only");
            return false;
        }
    }
    if (!proto->drv->truncate || !passthrough(blk->root)) {
        error_setg(errp, "Cannot resize a '%s' node",
                   passthrough(blk->root) ? proto->drv->name
                                          : blk->root->drv->name);
        return false;
    }
    /* Requests in flight were checked against the old size. */
    blk_drain_all();
    r = proto->drv->truncate(proto, size);
    if (r < 0) {
        error_setg_errno(errp, -r, "Could not resize file");
        return false;
    }
    for (BlockDriverState *n = blk->root; n; n = n->file) {
        n->size = size;
    }
    if (blk->resized) {
        blk->resized(blk->resized_opaque);
    }
    return true;
}

bool blk_insert_overlay(BlockBackend *blk, BlockDriverState *overlay,
                        Error **errp)
{
    BlockDriverState *top = blk->root;

    /* Requests in flight went to the old top; new ones go above it. */
    blk_drain_all();
    if (blk->dev && !images_inactive &&
        !bdrv_set_perm(overlay, blk->perm, blk->shared, errp)) {
        return false;
    }
    if (blk->dev && !images_inactive) {
        /* A backing file is read, and not written by anyone else. */
        bdrv_set_perm(top, BLK_PERM_CONSISTENT_READ,
                      BLK_PERM_ALL & ~(BLK_PERM_WRITE | BLK_PERM_RESIZE),
                      NULL);
    }
    overlay->discard_unmap = top->discard_unmap;
    overlay->detect_zeroes = top->detect_zeroes;
    overlay->writethrough = top->writethrough;
    overlay->no_flush = top->no_flush;
    top->read_only = true;
    blk->root = overlay;
    return true;
}

void blk_set_resize_cb(BlockBackend *blk, void (*resized)(void *opaque),
                       void *opaque)
{
    blk->resized = resized;
    blk->resized_opaque = opaque;
}

BlockBackend *blk_by_root(const BlockDriverState *bs)
{
    for (guint i = 0; backends && i < backends->len; i++) {
        BlockBackend *blk = g_ptr_array_index(backends, i);

        if (blk->root == bs) {
            return blk;
        }
    }
    return NULL;
}

void bdrv_foreach(void (*fn)(BlockDriverState *bs, void *opaque),
                  void *opaque)
{
    for (guint i = 0; nodes && i < nodes->len; i++) {
        fn(g_ptr_array_index(nodes, i), opaque);
    }
}

void blk_io_plug(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(aio_engines); i++) {
        if (aio_engines[i] && aio_engines[i]->plug) {
            aio_engines[i]->plug();
        }
    }
}

void blk_io_unplug(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(aio_engines); i++) {
        if (aio_engines[i] && aio_engines[i]->unplug) {
            aio_engines[i]->unplug();
        }
    }
}

void blk_drain_all(void)
{
    /* A completion may queue more (in any engine). */
    do {
        thread_pool_drain();
        for (size_t i = 0; i < G_N_ELEMENTS(aio_engines); i++) {
            if (aio_engines[i]) {
                aio_engines[i]->drain();
            }
        }
    } while (requests_in_flight);
}

bool blk_drain_flush_all(Error **errp)
{
    blk_drain_all();
    for (guint i = 0; nodes && i < nodes->len; i++) {
        BlockDriverState *bs = g_ptr_array_index(nodes, i);
        int ret;

        /* The protocol nodes hold the data; formats pass flushes down. */
        if (bs->file || bs->read_only || !bs->drv->flush || no_flush(bs)) {
            continue;
        }
        ret = bs->drv->flush(bs);
        if (ret < 0) {
            error_setg_errno(errp, -ret, "flushing '%s' failed",
                             bs->node_name);
            return false;
        }
    }
    return true;
}

void bdrv_close_all(void)
{
    blk_drain_all();
    for (size_t i = 0; i < G_N_ELEMENTS(aio_engines); i++) {
        if (aio_engines[i]) {
            aio_engines[i]->cleanup();
        }
    }
    thread_pool_cleanup();
    while (backends && backends->len) {
        BlockBackend *blk = g_ptr_array_steal_index(backends,
                                                    backends->len - 1);

        g_free(blk->name);
        g_free(blk);
    }
    while (nodes && nodes->len) {
        bdrv_free(g_ptr_array_steal_index(nodes, nodes->len - 1));
    }
    g_clear_pointer(&backends, g_ptr_array_unref);
    g_clear_pointer(&nodes, g_ptr_array_unref);
    anonymous_nodes = 0;
}
