/*
 * Address spaces: guest-physical memory and port I/O. A region is RAM
 * (a host pointer) or a device (an ops table). Regions of one address
 * space never overlap; registration checks it.
 *
 * Access sizes: ops declare what the device accepts (valid sizes) and
 * what its callbacks handle (impl sizes). An access outside the valid
 * sizes is rejected (reads as all-ones, write ignored, logged under
 * -d guest_errors); a valid access wider than the impl maximum is split
 * into little-endian pieces, a narrower one is widened and shifted.
 * Accesses where no region is read as all-ones and writes vanish
 * (logged under -d guest_errors).
 */
#ifndef SYSTEM_MEMORY_H
#define SYSTEM_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

typedef struct MemoryRegionOps {
    uint64_t (*read)(void *opaque, uint64_t addr, unsigned size);
    void (*write)(void *opaque, uint64_t addr, uint64_t value, unsigned size);
    struct {
        unsigned min_access_size;   /* 0 means 1 */
        unsigned max_access_size;   /* 0 means 4 */
        bool unaligned;             /* accept misaligned accesses */
    } valid;
    struct {
        unsigned min_access_size;   /* 0 means 1 */
        unsigned max_access_size;   /* 0 means 4 */
    } impl;
} MemoryRegionOps;

typedef struct AddressSpace AddressSpace;

typedef struct MemoryRegion {
    char *name;
    uint64_t size;
    const MemoryRegionOps *ops;     /* NULL for RAM */
    void *opaque;
    uint8_t *ram;                   /* host pointer of RAM regions */
    bool readonly;                  /* ROM: guest writes are ignored */
    /* Set while mapped: */
    AddressSpace *as;
    uint64_t addr;
} MemoryRegion;

extern AddressSpace address_space_memory;
extern AddressSpace address_space_io;

void memory_region_init_io(MemoryRegion *mr, const char *name,
                           const MemoryRegionOps *ops, void *opaque,
                           uint64_t size);
/* RAM at host, owned by its RAM block (physmem.c), not by the region. */
void memory_region_init_ram_ptr(MemoryRegion *mr, const char *name,
                                uint64_t size, void *host);
void memory_region_finalize(MemoryRegion *mr);

/* Map mr at addr; fails when it would overlap another region. */
bool address_space_map_region(AddressSpace *as, MemoryRegion *mr,
                              uint64_t addr, Error **errp);
void address_space_unmap_region(MemoryRegion *mr);
/* The region containing addr, or NULL. */
MemoryRegion *address_space_lookup(AddressSpace *as, uint64_t addr);

/* Sized accesses as a CPU makes them; size is 1, 2, 4 or 8. */
uint64_t address_space_read_sized(AddressSpace *as, uint64_t addr,
                                  unsigned size);
void address_space_write_sized(AddressSpace *as, uint64_t addr,
                               uint64_t value, unsigned size);
/*
 * Bulk access (qtest read/write/memset, DMA): RAM is copied directly,
 * device regions get byte accesses. Returns false if any byte fell
 * where nothing is mapped (those read as 0xff).
 */
bool address_space_rw(AddressSpace *as, uint64_t addr, void *buf,
                      uint64_t len, bool is_write);
/*
 * Fill [addr, addr+len) with value: RAM directly, device regions byte by
 * byte, gaps skipped (their writes would vanish anyway), so the cost
 * follows what is mapped, not len.
 */
void address_space_set(AddressSpace *as, uint64_t addr, uint8_t value,
                       uint64_t len);
/* Host pointer for [addr, addr+len) when it lies in one RAM region. */
void *address_space_ram_ptr(AddressSpace *as, uint64_t addr, uint64_t len);
/* Call fn for each region in address order. */
void address_space_foreach(AddressSpace *as,
                           void (*fn)(MemoryRegion *mr, void *opaque),
                           void *opaque);
/* "info mtree" text for both address spaces. */
void memory_info_mtree(GString *out);
/* Unmap every region (at exit). */
void memory_cleanup(void);

#endif
