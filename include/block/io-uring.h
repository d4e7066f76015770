/*
 * The io_uring engine of aio=io_uring (block/io-uring.c): one ring per
 * process, completions run in the main loop.
 */
#ifndef BLOCK_IO_URING_H
#define BLOCK_IO_URING_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "qemu/error.h"

typedef enum LuringOp {
    LURING_READ,
    LURING_WRITE,
    LURING_FLUSH,               /* fdatasync */
} LuringOp;

/* ret: 0, or -errno. */
typedef void LuringDone(void *opaque, int ret);

/* Set up the ring (once); false when the kernel or the build refuses. */
bool luring_init(Error **errp);
/* The whole transfer of iov (copied) at offset, then done(). */
void luring_submit(int fd, LuringOp op, uint64_t offset,
                   const struct iovec *iov, int niov, LuringDone *done,
                   void *opaque);
/*
 * Submissions between plug and unplug (nested) reach the kernel
 * together at the last unplug.
 */
void luring_plug(void);
void luring_unplug(void);
/* Wait until every request has completed (its callback has run). */
void luring_drain(void);
void luring_cleanup(void);

#endif
