/*
 * I/O vectors (include/qemu/iov.h).
 */
#include <errno.h>
#include <string.h>

#include "qemu/iov.h"

int iov_progress(struct iovec *iov, int *niov, size_t done, bool write)
{
    size_t left = done;

    while (*niov && left >= iov[0].iov_len) {
        left -= iov[0].iov_len;
        memmove(iov, iov + 1, (*niov - 1) * sizeof(*iov));
        (*niov)--;
    }
    if (!*niov) {
        return 0;
    }
    if (!done) {
        /* End of file: reads see zeroes, a write cannot go on. */
        if (write) {
            return -EIO;
        }
        for (int i = 0; i < *niov; i++) {
            memset(iov[i].iov_base, 0, iov[i].iov_len);
        }
        return 0;
    }
    iov[0].iov_base = (char *)iov[0].iov_base + left;
    iov[0].iov_len -= left;
    return 1;
}
