/*
 * Address spaces: guest-physical memory and port I/O, each the flat view
 * of a tree of regions (QEMU's memory API, without its object model).
 *
 * A region is RAM (a host pointer), a device (an ops table), a container
 * (it holds subregions at offsets and has no contents of its own) or an
 * alias (a window onto part of another region). Subregions carry a
 * priority: where two overlap the higher one is seen; two of the same
 * priority that overlap are refused when added, unless one is a
 * container. Moving a region or enabling it is never refused: there the
 * later-added of equal priority wins (guest-programmed PCI BARs may
 * overlap). Each change re-renders the flat view that accesses use and
 * tells the listeners which flat ranges appeared and went.
 *
 * Access sizes: ops declare what the device accepts (valid sizes) and
 * what its callbacks handle (impl sizes). An access outside the valid
 * sizes is rejected (reads as all-ones, write ignored, logged under
 * -d guest_errors); a valid access wider than the impl maximum is split
 * into little-endian pieces, a narrower one is widened and shifted.
 * Accesses where no region is read as all-ones and writes vanish
 * (logged under -d guest_errors).
 *
 * Threads: the tree changes with the big lock held; lookups and accesses
 * may run without it (the software CPU's thread): an old flat view is
 * freed only once no lookup uses it.
 */
#ifndef SYSTEM_MEMORY_H
#define SYSTEM_MEMORY_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

/*
 * Who makes an access: a vCPU (its index), or nobody in particular (DMA,
 * qtest, loaders). Devices that answer per CPU (the local APIC's page)
 * read it through the _with_attrs callbacks.
 */
typedef struct MemTxAttrs {
    bool from_cpu;
    unsigned cpu_index;
} MemTxAttrs;

#define MEMTXATTRS_UNSPECIFIED  ((MemTxAttrs) { .from_cpu = false })
#define MEMTXATTRS_CPU(i)       ((MemTxAttrs) { .from_cpu = true, \
                                                .cpu_index = (i) })

typedef struct MemoryRegionOps {
    uint64_t (*read)(void *opaque, uint64_t addr, unsigned size);
    void (*write)(void *opaque, uint64_t addr, uint64_t value, unsigned size);
    /* Instead of read/write, for devices that ask who accesses them. */
    uint64_t (*read_with_attrs)(void *opaque, uint64_t addr, unsigned size,
                                MemTxAttrs attrs);
    void (*write_with_attrs)(void *opaque, uint64_t addr, uint64_t value,
                             unsigned size, MemTxAttrs attrs);
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
typedef struct MemoryRegion MemoryRegion;

/* Dirty logging works in pages of this size. */
#define MEMORY_DIRTY_PAGE_SIZE  4096u

struct MemoryRegion {
    char *name;
    uint64_t size;
    const MemoryRegionOps *ops;     /* devices only */
    void *opaque;
    uint8_t *ram;                   /* host pointer of RAM regions */
    bool readonly;                  /* ROM; an alias or container: what it
                                     * shows is read-only */
    bool enabled;                   /* memory_region_set_enabled() */
    bool is_container;
    MemoryRegion *alias;            /* aliases: the region looked into */
    uint64_t alias_offset;          /* ... from this offset of it */
    GPtrArray *subregions;          /* containers: highest priority first */
    /* Set while a subregion: */
    MemoryRegion *container;
    uint64_t addr;                  /* offset in the container */
    int priority;
    /* Dirty logging (RAM): one bit per page, set by writes. */
    bool log;
    uint64_t *dirty;
    /* Devices: writes an accelerator may turn into eventfd signals. */
    GArray *ioeventfds;             /* of MemoryRegionIoeventfd */
};

/*
 * A write of size bytes (0: any size) at offset signals fd; with
 * match_data only a write of data (size must not be 0).
 */
typedef struct MemoryRegionIoeventfd {
    uint64_t offset;
    unsigned size;
    bool match_data;
    uint64_t data;
    int fd;
} MemoryRegionIoeventfd;

/*
 * A piece of the flat view: [offset_within_address_space, + size) shows
 * mr (RAM or a device, never a container or an alias) from
 * offset_within_region on.
 */
typedef struct MemoryRegionSection {
    MemoryRegion *mr;
    AddressSpace *as;
    uint64_t offset_within_region;
    uint64_t offset_within_address_space;
    uint64_t size;
    bool readonly;
    bool log;                       /* mr logs dirty pages */
} MemoryRegionSection;

/*
 * Told about the flat view of one address space: region_add/region_del
 * for each range that appears or goes (a move is a del then an add; all
 * dels of a change come before its adds), log_start/log_stop when dirty
 * logging of a range that stays starts or stops (a range that appears
 * says it in s->log), log_sync to bring what the accelerator logged into
 * the region's bitmap, ram_written when RAM was written other than by a
 * vCPU (DMA, qtest, loaders; from any thread), eventfd_add/eventfd_del
 * for each ioeventfd of a device region as it becomes visible at addr
 * of the space and stops being (with its range's region_add/region_del,
 * or when the region gains or loses it while mapped; a listener that
 * cannot take one leaves the write to the region's ops, which is where
 * it goes without listeners). Any callback may be NULL.
 * Registering replays region_add for what is mapped, unregistering
 * region_del; both happen with the vCPUs stopped.
 */
typedef struct MemoryListener MemoryListener;
struct MemoryListener {
    void (*region_add)(MemoryListener *l, const MemoryRegionSection *s);
    void (*region_del)(MemoryListener *l, const MemoryRegionSection *s);
    void (*log_start)(MemoryListener *l, const MemoryRegionSection *s);
    void (*log_stop)(MemoryListener *l, const MemoryRegionSection *s);
    void (*log_sync)(MemoryListener *l, const MemoryRegionSection *s);
    void (*ram_written)(MemoryListener *l, uint64_t addr, uint64_t len);
    void (*eventfd_add)(MemoryListener *l, uint64_t addr,
                        const MemoryRegionIoeventfd *e);
    void (*eventfd_del)(MemoryListener *l, uint64_t addr,
                        const MemoryRegionIoeventfd *e);
    AddressSpace *as;               /* set while registered */
};

extern AddressSpace address_space_memory;
extern AddressSpace address_space_io;

void memory_region_init_io(MemoryRegion *mr, const char *name,
                           const MemoryRegionOps *ops, void *opaque,
                           uint64_t size);
/* RAM at host, owned by its RAM block (physmem.c), not by the region. */
void memory_region_init_ram_ptr(MemoryRegion *mr, const char *name,
                                uint64_t size, void *host);
void memory_region_init_container(MemoryRegion *mr, const char *name,
                                  uint64_t size);
/* [offset, offset + size) of target, wherever the alias is placed. */
void memory_region_init_alias(MemoryRegion *mr, const char *name,
                              MemoryRegion *target, uint64_t offset,
                              uint64_t size);
/* Takes it out of its container (and its subregions out of it). */
void memory_region_finalize(MemoryRegion *mr);

/*
 * Place sub at offset in container with priority. Fails when sub does
 * not fit, is already placed, or overlaps a subregion of the same
 * priority where neither is a container.
 */
bool memory_region_add_subregion(MemoryRegion *container, uint64_t offset,
                                 MemoryRegion *sub, int priority,
                                 Error **errp);
void memory_region_del_subregion(MemoryRegion *container,
                                 MemoryRegion *sub);
/* A disabled region (and all it holds) is not seen; regions start enabled. */
void memory_region_set_enabled(MemoryRegion *mr, bool enabled);
/*
 * ROM: guest writes to the RAM mr shows (itself, or through an alias or
 * container marked so) are ignored; under KVM its slots are read-only,
 * so a write exits as MMIO and is dropped there.
 */
void memory_region_set_readonly(MemoryRegion *mr, bool readonly);
/*
 * Changes between begin and commit reach the flat views and the
 * listeners once, at the outermost commit (a chipset remapping many
 * windows at once). They nest.
 */
void memory_region_transaction_begin(void);
void memory_region_transaction_commit(void);
/*
 * A read of size bytes at offset addr of mr as the guest would see it if
 * mr were mapped (RAM copied, devices asked; all-ones where nothing is).
 * For a chipset whose reads and writes of one range go different ways.
 */
uint64_t memory_region_read_sized(MemoryRegion *mr, uint64_t addr,
                                  unsigned size);
/* Move a subregion within its container. */
void memory_region_set_address(MemoryRegion *mr, uint64_t offset);
void memory_region_set_alias_offset(MemoryRegion *mr, uint64_t offset);

/*
 * Dirty logging of a RAM region, for migration: while on, every write
 * (vCPUs under either accelerator, DMA, qtest, loaders) marks its page.
 * fetch returns the pages written since the last fetch, one bit per
 * MEMORY_DIRTY_PAGE_SIZE page from the region's start (g_free it), and
 * clears them; NULL when logging is off.
 */
void memory_region_set_log(MemoryRegion *mr, bool log);
uint64_t *memory_region_fetch_dirty_log(MemoryRegion *mr);
/* Mark [offset, offset + len) of a logged RAM region written. */
void memory_region_set_dirty(MemoryRegion *mr, uint64_t offset,
                             uint64_t len);

/*
 * Let a write of size bytes (0: any) at offset of device region mr
 * (with match_data: only one of data) signal fd instead of reaching its
 * ops, where a listener of the space it is mapped in (the accelerator)
 * can do that; the ops still see the writes of every accelerator that
 * cannot. del undoes the add with the same arguments.
 */
void memory_region_add_eventfd(MemoryRegion *mr, uint64_t offset,
                               unsigned size, bool match_data,
                               uint64_t data, int fd);
void memory_region_del_eventfd(MemoryRegion *mr, uint64_t offset,
                               unsigned size, bool match_data,
                               uint64_t data, int fd);

/* The root container of an address space. */
MemoryRegion *address_space_root(AddressSpace *as);
/* Map mr at addr with priority 0 in the root; refuses overlaps. */
bool address_space_map_region(AddressSpace *as, MemoryRegion *mr,
                              uint64_t addr, Error **errp);
void address_space_unmap_region(MemoryRegion *mr);
/* The region (RAM or device) seen at addr, or NULL. */
MemoryRegion *address_space_lookup(AddressSpace *as, uint64_t addr);
/* The flat range holding addr; false where nothing is mapped. */
bool address_space_find(AddressSpace *as, uint64_t addr,
                        MemoryRegionSection *s);
/*
 * Bumped by every change of what any address space shows (a flat view,
 * a log state): a soft TLB filled across a change must drop the entry.
 */
uint64_t memory_generation(void);

void memory_listener_register(MemoryListener *l, AddressSpace *as);
void memory_listener_unregister(MemoryListener *l);
/*
 * Guest RAM [addr, addr + len) was written through a host pointer other
 * than by a vCPU: marks logged pages and tells the listeners. The
 * address_space_* writers below call it themselves.
 */
void address_space_ram_written(AddressSpace *as, uint64_t addr,
                               uint64_t len);

/* Sized accesses as a CPU makes them; size is 1, 2, 4 or 8. */
/* The same with the access's attributes (a vCPU's index). */
uint64_t address_space_read_sized_attrs(AddressSpace *as, uint64_t addr,
                                        unsigned size, MemTxAttrs attrs);
void address_space_write_sized_attrs(AddressSpace *as, uint64_t addr,
                                     uint64_t value, unsigned size,
                                     MemTxAttrs attrs);
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
/* Host pointer for [addr, addr+len) when it lies in one RAM range. */
void *address_space_ram_ptr(AddressSpace *as, uint64_t addr, uint64_t len);
/* "info mtree" text for both address spaces. */
void memory_info_mtree(GString *out);
/* Unmap every region (at exit). */
void memory_cleanup(void);

#endif
