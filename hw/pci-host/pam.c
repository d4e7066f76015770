/*
 * PAM segments (include/hw/pci-host/pam.h). Each segment has four
 * windows over it, one enabled at a time:
 *   00  reads and writes go to PCI (the firmware ROM, option ROMs)
 *   01  reads from RAM, writes to PCI: RAM seen read-only (no PCI device
 *       decodes writes here on a PC, so they are dropped)
 *   10  reads from PCI, writes to RAM: how firmware copies itself while
 *       running from ROM (a device region: reads ask the PCI space)
 *   11  RAM
 * QEMU treats 10 as RAM; this follows the datasheet.
 */
#include <string.h>

#include "hw/pci-host/pam.h"

static uint64_t pam_wo_read(void *opaque, uint64_t addr, unsigned size)
{
    PAMSegment *seg = opaque;

    return memory_region_read_sized(seg->pci, seg->start + addr, size);
}

static void pam_wo_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    PAMSegment *seg = opaque;
    uint64_t off = seg->start + addr;

    /* A PC with less RAM than the segment's end: the write goes nowhere. */
    if (!seg->ram->ram || off >= seg->ram->size ||
        size > seg->ram->size - off) {
        return;
    }
    memcpy(seg->ram->ram + off, &value, size);
    if (seg->ram->log) {
        memory_region_set_dirty(seg->ram, off, size);
    }
}

static const MemoryRegionOps pam_wo_ops = {
    .read = pam_wo_read,
    .write = pam_wo_write,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static MemoryRegion *pam_window(PAMSegment *seg, unsigned mode)
{
    switch (mode & (PAM_RE | PAM_WE)) {
    case 0:
        return &seg->to_pci;
    case PAM_RE:
        return &seg->ram_ro;
    case PAM_WE:
        return &seg->ram_wo;
    default:
        return &seg->ram_rw;
    }
}

bool pam_segment_init(PAMSegment *seg, MemoryRegion *system,
                      MemoryRegion *ram, MemoryRegion *pci,
                      uint64_t start, uint64_t size, Error **errp)
{
    seg->ram = ram;
    seg->pci = pci;
    seg->start = start;
    seg->size = size;
    seg->mode = 0;
    memory_region_init_alias(&seg->to_pci, "pam-pci", pci, start, size);
    memory_region_init_alias(&seg->ram_ro, "pam-rom", ram, start, size);
    seg->ram_ro.readonly = true;
    memory_region_init_io(&seg->ram_wo, "pam-wo", &pam_wo_ops, seg, size);
    memory_region_init_alias(&seg->ram_rw, "pam-ram", ram, start, size);
    memory_region_init_container(&seg->container, "pam", size);
    for (unsigned m = 0; m < 4; m++) {
        MemoryRegion *w = pam_window(seg, m);
        bool added;

        w->enabled = m == 0;
        /* Distinct priorities: they overlap, and one shows at a time. */
        added = memory_region_add_subregion(&seg->container, 0, w, m, NULL);
        g_assert(added);
    }
    if (!memory_region_add_subregion(system, start, &seg->container, 1,
                                     errp)) {
        pam_segment_exit(seg);
        return false;
    }
    return true;
}

void pam_segment_set(PAMSegment *seg, unsigned mode)
{
    mode &= PAM_RE | PAM_WE;
    if (mode == seg->mode) {
        return;
    }
    memory_region_transaction_begin();
    memory_region_set_enabled(pam_window(seg, seg->mode), false);
    memory_region_set_enabled(pam_window(seg, mode), true);
    memory_region_transaction_commit();
    seg->mode = mode;
}

void pam_segment_exit(PAMSegment *seg)
{
    memory_region_transaction_begin();
    memory_region_finalize(&seg->container);
    for (unsigned m = 0; m < 4; m++) {
        memory_region_finalize(pam_window(seg, m));
    }
    memory_region_transaction_commit();
}
