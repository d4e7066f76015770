/*
 * The "raw" format: the image is the guest's disk, byte for byte, so
 * every request goes to the protocol node below. (A qcow2 file opened
 * as raw is just bytes.)
 */
#include "block/block.h"

static int raw_preadv(BlockDriverState *bs, uint64_t offset,
                      const struct iovec *iov, int niov)
{
    return bs->file->drv->preadv(bs->file, offset, iov, niov);
}

static int raw_pwritev(BlockDriverState *bs, uint64_t offset,
                       const struct iovec *iov, int niov)
{
    return bs->file->drv->pwritev(bs->file, offset, iov, niov);
}

static int raw_flush(BlockDriverState *bs)
{
    return bs->file->drv->flush(bs->file);
}

static int raw_discard(BlockDriverState *bs, uint64_t offset, uint64_t len)
{
    return bs->file->drv->discard(bs->file, offset, len);
}

static int raw_write_zeroes(BlockDriverState *bs, uint64_t offset,
                            uint64_t len)
{
    return bs->file->drv->write_zeroes(bs->file, offset, len);
}

static const BlockDriver bdrv_raw = {
    .name = "raw",
    .passthrough = true,
    .preadv = raw_preadv,
    .pwritev = raw_pwritev,
    .flush = raw_flush,
    .discard = raw_discard,
    .write_zeroes = raw_write_zeroes,
};

BlockDriverState *bdrv_raw_open(BlockDriverState *file,
                                const char *node_name, Error **errp)
{
    BlockDriverState *bs = g_new0(BlockDriverState, 1);

    bs->drv = &bdrv_raw;
    bs->file = file;
    bs->fd = -1;
    bs->size = file->size;
    bs->read_only = file->read_only;
    bs->filename = g_strdup(file->filename);
    bs->node_name = g_strdup(node_name);
    return bs;
}
