/*
 * The RAM regions that migrate: a board registers each guest RAM region
 * it maps (by its unique name) and takes it back before finalizing it.
 */
#ifndef INCLUDE_MIGRATION_RAM_H
#define INCLUDE_MIGRATION_RAM_H

struct MemoryRegion;

void ram_migration_register(struct MemoryRegion *mr);
void ram_migration_unregister(struct MemoryRegion *mr);

#endif
