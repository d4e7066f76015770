/*
 * The x86/HVM direct boot ABI ("PVH"): an uncompressed ELF kernel (Linux's
 * vmlinux, FreeBSD, ...) whose Xen ELF note XEN_ELFNOTE_PHYS32_ENTRY
 * names a 32-bit entry point. The loader places the PT_LOAD segments at
 * their physical addresses, builds an hvm_start_info structure (version
 * 1: with the memory map) and starts vCPU 0 in flat 32-bit protected
 * mode, paging off, EBX = the start_info address, as Xen's
 * docs/misc/pvh.pandoc and QEMU's PVH option ROM do.
 *
 * Guest-physical layout (every piece must lie in an e820 RAM entry):
 *   0x00500  GDT: 0x08 flat 32-bit code, 0x10 flat data
 *   0x06000  hvm_start_info (56 bytes), then the module list (one entry
 *            for the initrd)
 *   0x07000  memory map: 24-byte hvm_memmap_table_entry items from the
 *            board's e820 (at most 170 in the page)
 *   0x20000  kernel command line (as for a bzImage)
 *   p_paddr  each PT_LOAD segment, zero filled to p_memsz
 *   initrd   page aligned, as high as the RAM from 1 MiB allows
 */
#ifndef HW_I386_PVH_H
#define HW_I386_PVH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/i386/x86-boot.h"

#define PVH_START_INFO_MAGIC        0x336ec578u
#define PVH_START_INFO_VERSION      1
#define XEN_ELFNOTE_PHYS32_ENTRY    18

#define PVH_GDT_ADDR                0x00500
#define PVH_START_INFO_ADDR         0x06000
#define PVH_START_INFO_SIZE         56
#define PVH_MODLIST_ADDR            0x06040
#define PVH_MODLIST_ENTRY_SIZE      32
#define PVH_MEMMAP_ADDR             0x07000
#define PVH_MEMMAP_ENTRY_SIZE       24
#define PVH_MEMMAP_MAX              (0x1000 / PVH_MEMMAP_ENTRY_SIZE)
#define PVH_CMDLINE_ADDR            0x20000
#define PVH_CMDLINE_MAX             0x10000     /* bytes, with the NUL */
#define PVH_SEL_CODE32              0x08
#define PVH_SEL_DATA                0x10

/* hvm_start_info fields (all little-endian) */
#define PVH_SI_MAGIC                0
#define PVH_SI_VERSION              4
#define PVH_SI_FLAGS                8
#define PVH_SI_NR_MODULES           12
#define PVH_SI_MODLIST_PADDR        16
#define PVH_SI_CMDLINE_PADDR        24
#define PVH_SI_RSDP_PADDR           32
#define PVH_SI_MEMMAP_PADDR         40
#define PVH_SI_MEMMAP_ENTRIES       48

/*
 * The PVH entry of an ELF32/ELF64 little-endian x86 image: true with
 * *entry set when its PT_NOTE segments hold a Xen PHYS32_ENTRY note.
 * False for anything else (not ELF, no note, malformed notes).
 */
bool pvh_find_entry(const uint8_t *image, size_t size, uint32_t *entry);

/*
 * Load the kernel (the whole file in image), cfg->initrd_filename as the
 * one module and the command line; fill start_info, the memory map and
 * the GDT; set st to the 32-bit entry state. Returns 1 when loaded, 0
 * when the image has no PVH note (the caller tries the next loader;
 * nothing was written), -1 with errp set. With fw, also the fw_cfg items
 * QEMU publishes for a PVH boot (command line, initrd).
 */
int pvh_load(const X86BootConfig *cfg, const uint8_t *image, size_t size,
             const GuestMemory *mem, X86BootState *st, X86BootFwCfg *fw,
             Error **errp);

#endif
