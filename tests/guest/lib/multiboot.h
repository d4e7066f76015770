/*
 * Multiboot v1 as the loader hands it over (specification 0.6.96, section
 * 3.3): only the fields the guest kit reads.
 */
#ifndef GUEST_MULTIBOOT_H
#define GUEST_MULTIBOOT_H

#include <stdint.h>

#define MB_BOOTLOADER_MAGIC     0x2badb002

#define MB_INFO_MEMORY          (1u << 0)
#define MB_INFO_BOOTDEV         (1u << 1)
#define MB_INFO_CMDLINE         (1u << 2)
#define MB_INFO_MODS            (1u << 3)
#define MB_INFO_MEM_MAP         (1u << 6)
#define MB_INFO_LOADER_NAME     (1u << 9)

struct mb_info {
    uint32_t flags;
    uint32_t mem_lower, mem_upper;      /* KiB below 640K, above 1 MiB */
    uint32_t boot_device;
    uint32_t cmdline;
    uint32_t mods_count, mods_addr;
    uint32_t syms[4];
    uint32_t mmap_length, mmap_addr;
    uint32_t drives_length, drives_addr;
    uint32_t config_table;
    uint32_t boot_loader_name;
} __attribute__((packed));

/* "size" does not count itself: the next entry is at +size+4. */
struct mb_mmap_entry {
    uint32_t size;
    uint64_t addr, len;
    uint32_t type;
} __attribute__((packed));

#define MB_MEMORY_AVAILABLE     1

struct mb_module {
    uint32_t mod_start, mod_end;
    uint32_t cmdline;
    uint32_t reserved;
} __attribute__((packed));

#endif
