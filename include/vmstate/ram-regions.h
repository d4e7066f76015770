/*
 * The RAM regions that migrate: a board registers each guest RAM region
 * it maps (by its unique name) and takes it back before finalizing it;
 * migration (migration/ram.c) walks them and keeps its per-region state
 * in their records.
 */
#ifndef VMSTATE_RAM_REGIONS_H
#define VMSTATE_RAM_REGIONS_H

#include <stdbool.h>
#include <stdint.h>

struct MemoryRegion;

/* The unit RAM migrates in: regions are counted in these pages. */
#define RAM_REGION_PAGE_SIZE 4096u

typedef struct RamRegion {
    struct MemoryRegion *mr;
    uint64_t pages;
    uint64_t *todo;             /* source: pages still to send */
    bool handed_over;           /* its block is handed over, not sent */
    bool seen;                  /* destination: in the layout */
} RamRegion;

void ram_migration_register(struct MemoryRegion *mr);
void ram_migration_unregister(struct MemoryRegion *mr);
/* The registered regions, in registration order. */
unsigned ram_regions_count(void);
RamRegion *ram_region_at(unsigned i);

#endif
