/*
 * RAM blocks.
 */
#include <errno.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "system/ramblock.h"

RAMBlock *ram_block_new_anon(const char *name, uint64_t size, bool mergeable,
                             bool dump, Error **errp)
{
    RAMBlock *rb;
    void *host;

    if (size == 0 || size != (size_t)size) {
        error_setg(errp, "cannot allocate %" G_GUINT64_FORMAT " bytes of "
                   "guest RAM for '%s'", size, name);
        return NULL;
    }
    /* NORESERVE: guest RAM is overcommitted like QEMU's, touched lazily. */
    host = mmap(NULL, size, PROT_READ | PROT_WRITE,
                MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (host == MAP_FAILED) {
        error_setg_errno(errp, errno, "cannot set up guest memory '%s'",
                         name);
        return NULL;
    }
#ifdef MADV_HUGEPAGE
    madvise(host, size, MADV_HUGEPAGE);
#endif
    if (mergeable) {
        madvise(host, size, MADV_MERGEABLE);
    }
    if (!dump) {
        madvise(host, size, MADV_DONTDUMP);
    }
    rb = g_new0(RAMBlock, 1);
    rb->name = g_strdup(name);
    rb->host = host;
    rb->size = size;
    rb->page_size = getpagesize();
    rb->fd = -1;
    return rb;
}

void ram_block_free(RAMBlock *rb)
{
    if (!rb) {
        return;
    }
    /* Anonymous memory has nothing to write back: unmapping is enough. */
    munmap(rb->host, rb->size);
    g_free(rb->name);
    g_free(rb);
}
