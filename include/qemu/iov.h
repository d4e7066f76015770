/*
 * I/O vectors.
 */
#ifndef QEMU_IOV_H
#define QEMU_IOV_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/uio.h>

/*
 * The kernel did done bytes of a read or write of iov (a working copy,
 * *niov segments), which drops them from its front. Returns 1 when
 * bytes remain (submit the rest), 0 when it is complete (a read that met
 * the end of the file sees zeroes for the rest), -EIO for a write that
 * could not go on. The aio= engines (block/) resubmit with it.
 */
int iov_progress(struct iovec *iov, int *niov, size_t done, bool write);

#endif
