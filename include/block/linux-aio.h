/*
 * The Linux native AIO engine of aio=native (block/linux-aio.c): one
 * context per process, completions signalled on an eventfd that the
 * main loop watches.
 */
#ifndef BLOCK_LINUX_AIO_H
#define BLOCK_LINUX_AIO_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "qemu/error.h"

/* ret: 0, or -errno. */
typedef void LaioDone(void *opaque, int ret);

/* Set up the context (once); false when the kernel refuses. */
bool laio_init(Error **errp);
/* A read or write of the whole of iov (copied) at offset, then done(). */
void laio_submit(int fd, bool write, uint64_t offset,
                 const struct iovec *iov, int niov, LaioDone *done,
                 void *opaque);
/* Wait until every request has completed (its callback has run). */
void laio_drain(void);
void laio_cleanup(void);

#endif
