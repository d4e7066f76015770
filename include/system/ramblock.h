/*
 * RAM blocks: host memory that backs guest RAM. Each block remembers
 * how it was obtained; ram_block_free() is the one place that decides
 * how it is released (the discard-at-exit policy).
 */
#ifndef SYSTEM_RAMBLOCK_H
#define SYSTEM_RAMBLOCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"

typedef struct RAMBlock {
    char *name;
    uint8_t *host;
    uint64_t size;
    size_t page_size;
    int fd;                     /* -1 for anonymous memory */
} RAMBlock;

/*
 * Anonymous guest RAM. mergeable and dump map to MADV_MERGEABLE and
 * MADV_DONTDUMP (when false); THP is requested where available.
 */
RAMBlock *ram_block_new_anon(const char *name, uint64_t size, bool mergeable,
                             bool dump, Error **errp);
/* Release a block according to how it was obtained. */
void ram_block_free(RAMBlock *rb);

#endif
