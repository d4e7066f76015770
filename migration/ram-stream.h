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

typedef struct RamStats {
    uint64_t total;             /* bytes of guest RAM */
    uint64_t remaining;         /* dirty bytes not sent yet */
    uint64_t transferred;       /* RAM bytes put in the stream */
    uint64_t duplicate;         /* zero pages (sent as markers) */
    uint64_t normal;            /* pages sent whole */
    uint64_t dirty_sync_count;
    uint64_t dirty_pages_rate;  /* pages dirtied per second, last pass */
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

/* Destination: check the layout, then store each RAM section's pages. */
void ram_load_begin(void);
bool ram_load_layout(const MigSection *sec, Error **errp);
bool ram_load_pages(const MigSection *sec, Error **errp);
/* Every region was described by the layout (else the stream is short). */
bool ram_load_complete(Error **errp);

#endif
