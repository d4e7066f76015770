/*
 * The "raw" format: the image is the guest's disk, byte for byte, so
 * every request goes to the protocol node below. (A qcow2 file opened
 * as raw is just bytes.)
 *
 * A raw image whose format was probed (no format=) refuses, as QEMU
 * does, a guest write that would make its first sector probe as
 * another format: the next start would otherwise open the guest's
 * bytes as a qcow2 image, backing file names and all.
 */
#include <errno.h>
#include <string.h>

#include "block/block.h"
#include "qemu/iov.h"

static int raw_preadv(BlockDriverState *bs, uint64_t offset,
                      const struct iovec *iov, int niov)
{
    return bs->file->drv->preadv(bs->file, offset, iov, niov);
}

static int raw_pwritev(BlockDriverState *bs, uint64_t offset,
                       const struct iovec *iov, int niov)
{
    if (bs->probed && offset < 512) {
        uint8_t first[512];
        size_t got = 0;

        /* Partial writes of sector 0 would need a read: refused. */
        if (offset) {
            return -EINVAL;
        }
        for (int i = 0; i < niov && got < sizeof(first); i++) {
            size_t n = MIN(iov[i].iov_len, sizeof(first) - got);

            memcpy(first + got, iov[i].iov_base, n);
            got += n;
        }
        if (got < sizeof(first)) {
            return -EINVAL;
        }
        if (bdrv_qcow2_probe(first, sizeof(first))) {
            return -EPERM;
        }
    }
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
