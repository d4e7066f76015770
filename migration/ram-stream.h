/*
 * Guest RAM in the migration stream (precopy): the regions a board
 * registered, their dirty logs, pages sent as RAM sections.
 */
#ifndef MIGRATION_RAM_STREAM_H
#define MIGRATION_RAM_STREAM_H

#include <stdbool.h>
#include <stdint.h>

#include "migration/stream.h"
#include "qemu/error.h"

typedef struct MemoryRegion MemoryRegion;

typedef struct RamStats {
    uint64_t total;             /* bytes of guest RAM */
    uint64_t remaining;         /* dirty bytes not sent yet */
    uint64_t transferred;       /* RAM bytes put in the stream */
    uint64_t duplicate;         /* zero pages (sent as markers) */
    uint64_t normal;            /* pages sent whole */
    uint64_t dirty_sync_count;
    uint64_t dirty_pages_rate;  /* pages dirtied per second, last pass */
    uint64_t postcopy_requests; /* pages the destination asked for */
} RamStats;

/*
 * Source. setup (with the big lock) starts dirty logging and marks every
 * page to send; sync (with the big lock) adds what was written since;
 * send_pass sends the marked pages, asking throttle after each section
 * whether to go on; cleanup (with the big lock) stops logging.
 */
bool ram_save_setup(MigStream *s, RamStats *st);
void ram_save_sync(RamStats *st);
bool ram_save_pass(MigStream *s, RamStats *st,
                   bool (*throttle)(void *opaque), void *opaque);
void ram_save_cleanup(void);
/* Postcopy: DISCARD sections of the pages still to send. */
bool ram_save_discard(MigStream *s);
/* Postcopy: the page the destination asked for, now (false: not sent). */
bool ram_save_page(MigStream *s, RamStats *st, const char *name,
                   uint64_t offset);

/* Destination: check the layout, then store each RAM section's pages. */
void ram_load_begin(void);
bool ram_load_layout(const MigSection *sec, Error **errp);
bool ram_load_pages(const MigSection *sec, Error **errp);
/* Postcopy: drop the stale pages a DISCARD section lists. */
bool ram_load_discard(const MigSection *sec, Error **errp);
/* Every region was described by the layout (else the stream is short). */
bool ram_load_complete(Error **errp);

/* The i-th registered RAM region, NULL past the last. */
MemoryRegion *ram_region_nth(unsigned i);
/* The region holding host and host's offset in it. */
bool ram_region_of_host(const void *host, const char **name,
                        uint64_t *offset);

#endif
