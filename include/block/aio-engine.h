/*
 * The engines of aio=io_uring (block/io-uring.c) and aio=native
 * (block/linux-aio.c) behind one table: the block layer submits through
 * it and never names an engine's functions. Requests an engine does not
 * carry (aio=threads, and flushes where .flush is false) go to the
 * thread pool (block/thread-pool.c).
 */
#ifndef BLOCK_AIO_ENGINE_H
#define BLOCK_AIO_ENGINE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "qemu/error.h"

typedef enum BlockAioOp {
    BLOCK_AIO_READ,
    BLOCK_AIO_WRITE,
    BLOCK_AIO_FLUSH,            /* fdatasync */
} BlockAioOp;

/* ret: 0, or -errno. */
typedef void BlockAioDone(void *opaque, int ret);

typedef struct BlockAioEngine {
    bool flush;                 /* carries flushes, not only transfers */
    /* Set up (once); false when the kernel or the build refuses. */
    bool (*init)(Error **errp);
    /* The whole transfer of iov (copied) at offset, then done(). */
    void (*submit)(int fd, BlockAioOp op, uint64_t offset,
                   const struct iovec *iov, int niov, BlockAioDone *done,
                   void *opaque);
    /*
     * Submissions between plug and unplug (nested) reach the kernel
     * together at the last unplug; NULL: each goes at once.
     */
    void (*plug)(void);
    void (*unplug)(void);
    /* Wait until every request has completed (its callback has run). */
    void (*drain)(void);
    void (*cleanup)(void);
} BlockAioEngine;

extern const BlockAioEngine block_aio_io_uring;
extern const BlockAioEngine block_aio_native;

#endif
