/*
 * The decoded-block cache of the software CPU (target/i386/tcg/tb.c) as the
 * accelerator sees it. Invalidation by guest-physical range and the
 * code-page query are in include/target/i386/cpu-state.h.
 */
#ifndef ACCEL_TCG_TB_CACHE_H
#define ACCEL_TCG_TB_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

/*
 * Bound the cache to bytes (-accel tcg,tb-size=MiB). Memory is taken in
 * chunks as blocks are decoded, never up front; when the bound is
 * reached every block is dropped and decoding starts over.
 */
bool tb_cache_init(uint64_t bytes, Error **errp);
void tb_cache_cleanup(void);
/*
 * Who drops every vCPU's fast-path write tags for a guest-physical page
 * that has just started to hold decoded code (the accelerator, which
 * knows its vCPUs); NULL: nobody but the decoding vCPU itself.
 */
void tb_set_code_page_notify(void (*notify)(uint64_t paddr));
/* Drop every decoded block (with the vCPUs stopped or between blocks). */
void tb_flush_all(void);

/* Counters for tests: blocks decoded, full flushes, invalidated blocks,
 * bytes of cache memory mapped now. */
void tb_cache_stats(uint64_t *ntbs, uint64_t *nflushes,
                    uint64_t *ninvalidated, uint64_t *mapped);

#endif
