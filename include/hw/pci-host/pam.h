/*
 * Programmable Attribute Map: a chipset's switch of one segment of the
 * legacy BIOS area (0xc0000-0xfffff) between RAM and the PCI bus (where
 * the firmware ROM is seen), with read and write enables of their own
 * (Intel 82441FX datasheet, PAM0-PAM6; the same on the Q35 MCH).
 */
#ifndef HW_PCI_HOST_PAM_H
#define HW_PCI_HOST_PAM_H

#include <stdbool.h>
#include <stdint.h>

#include "system/memory.h"

/* One PAM nibble: bit 0 reads from RAM, bit 1 writes to RAM. */
#define PAM_RE          1u
#define PAM_WE          2u

typedef struct PAMSegment {
    MemoryRegion *ram;          /* guest RAM from address 0 */
    MemoryRegion *pci;          /* the PCI memory space */
    uint64_t start;
    uint64_t size;
    unsigned mode;              /* PAM_RE | PAM_WE */
    /* Over the segment at priority 1, holding one window per mode. */
    MemoryRegion container;
    MemoryRegion to_pci;        /* 0: reads and writes go to PCI */
    MemoryRegion ram_ro;        /* RE: RAM read-only (writes to PCI) */
    MemoryRegion ram_wo;        /* WE: reads from PCI, writes to RAM */
    MemoryRegion ram_rw;        /* RE | WE: RAM */
} PAMSegment;

/* Map the segment's windows in system, PCI first (the reset state). */
bool pam_segment_init(PAMSegment *seg, MemoryRegion *system,
                      MemoryRegion *ram, MemoryRegion *pci,
                      uint64_t start, uint64_t size, Error **errp);
/* Switch to mode (PAM_RE | PAM_WE bits). */
void pam_segment_set(PAMSegment *seg, unsigned mode);
void pam_segment_exit(PAMSegment *seg);

#endif
