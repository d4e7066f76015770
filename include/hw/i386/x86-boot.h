/*
 * Direct kernel boot on x86: what the loaders (multiboot.c, linux-boot.c,
 * pvh.c)
 * take from the board and what they hand back.
 *
 * The loaders are pure functions of the kernel files and an
 * X86BootConfig. They write guest RAM only through a GuestMemory writer
 * (the board passes one over address_space_memory; unit tests pass a
 * plain buffer) and return the initial register state of vCPU 0 in an
 * X86BootState, plus, on request, the fw_cfg items QEMU publishes for
 * the same boot. Nothing here prints or exits: errors come back through
 * Error **errp and the board reports them.
 */
#ifndef HW_I386_X86_BOOT_H
#define HW_I386_X86_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "qemu/error.h"
#include "target/i386/boot-state.h"

/* e820 entry types (ACPI "Address Range Types"). */
#define E820_RAM            1
#define E820_RESERVED       2
#define E820_ACPI           3
#define E820_NVS            4
#define E820_UNUSABLE       5

/* Control register and EFER bits the loaders set. */
#define X86_CR0_PE          (1u << 0)
#define X86_CR0_ET          (1u << 4)
#define X86_CR0_PG          (1u << 31)
#define X86_CR4_PAE         (1u << 5)
#define X86_EFER_LME        (1u << 8)
#define X86_EFER_LMA        (1u << 10)

#define X86_BOOT_PAGE_SIZE  0x1000ULL

typedef struct X86BootE820Entry {
    uint64_t addr;
    uint64_t len;
    uint32_t type;                      /* E820_* */
} X86BootE820Entry;

/*
 * Guest RAM as the loaders see it: write copies len bytes of buf (or
 * zeros when buf is NULL) to guest-physical addr and returns false when
 * any byte of the range is not RAM.
 */
typedef struct GuestMemory {
    bool (*write)(void *opaque, uint64_t addr, const void *buf,
                  uint64_t len);
    void *opaque;
} GuestMemory;

/* What the board knows: the command line and the machine's memory map. */
typedef struct X86BootConfig {
    const char *kernel_filename;        /* -kernel */
    const char *initrd_filename;        /* -initrd, or NULL */
    const char *kernel_cmdline;         /* -append, or NULL (means "") */
    const X86BootE820Entry *e820;       /* the board's map, any order */
    unsigned e820_entries;
    uint64_t acpi_rsdp_addr;            /* 0: no RSDP to pass */
} X86BootConfig;

/* An fw_cfg item as QEMU adds it for the same boot (data is g_malloc'ed). */
typedef struct X86BootFwCfgItem {
    uint16_t key;                       /* FW_CFG_* from hw/nvram/fw_cfg.h */
    void *data;
    size_t len;
} X86BootFwCfgItem;

#define X86_BOOT_FW_CFG_MAX 16

typedef struct X86BootFwCfg {
    X86BootFwCfgItem items[X86_BOOT_FW_CFG_MAX];
    unsigned count;
} X86BootFwCfg;

/* Free the items' data that nobody took. */
void x86_boot_fw_cfg_free(X86BootFwCfg *fw);
/* The item with this key, or NULL. */
const X86BootFwCfgItem *x86_boot_fw_cfg_find(const X86BootFwCfg *fw,
                                             uint16_t key);

/*
 * Load cfg->kernel_filename: a bzImage (HdrS signature) through
 * linux_boot_load(), otherwise a multiboot v1 kernel through
 * multiboot_load(), otherwise an ELF with the Xen PVH entry note through
 * pvh_load() (QEMU's order: an ELF may carry both), otherwise an error.
 * st must be initialised; fw may be NULL when the board publishes nothing
 * in fw_cfg.
 */
bool x86_boot_load_kernel(const X86BootConfig *cfg, const GuestMemory *mem,
                          X86BootState *st, X86BootFwCfg *fw, Error **errp);

/* --- helpers shared by the loaders --- */

/* A file mapped read-only (data is NULL for an empty file). */
typedef struct X86BootFile {
    const uint8_t *data;
    size_t size;
} X86BootFile;

/* errno on failure (the caller words the message), 0 on success. */
int x86_boot_file_map(const char *path, X86BootFile *f);
void x86_boot_file_unmap(X86BootFile *f);

/*
 * Claim [addr, addr + len) for what: it must lie inside one e820 RAM
 * entry and not overlap anything claimed before. Errors name both.
 */
bool x86_boot_reserve(const X86BootConfig *cfg, X86BootState *st,
                      uint64_t addr, uint64_t len, const char *what,
                      Error **errp);
/* Write through mem (buf NULL: zeros); errors name what. */
bool x86_boot_write(const GuestMemory *mem, uint64_t addr, const void *buf,
                    uint64_t len, const char *what, Error **errp);
/* End of the RAM that runs without a hole from 1 MiB, below 4 GiB. */
uint64_t x86_boot_e820_high_ram_end(const X86BootConfig *cfg);
/* Bytes of RAM from address 0 (the "low memory" of real mode). */
uint64_t x86_boot_e820_low_ram_size(const X86BootConfig *cfg);
/*
 * A flat 4 GiB segment (base 0, page granular): code (type 0xb, 64-bit
 * when long is true, else 32-bit) or data (type 0x3).
 */
X86BootSegment x86_boot_flat_segment(uint16_t selector, uint8_t type,
                                     bool long_mode);
/*
 * TR and LDTR as after reset (TR a busy TSS at 0, LDTR empty) and an
 * empty IDT: interrupts are off at entry and an early exception then
 * ends in a shutdown instead of a jump through the real-mode IVT.
 */
void x86_boot_system_segments(X86BootState *st);
/*
 * The flat 32-bit protected-mode entry both multiboot and PVH ask for:
 * paging off, CS/DS-type segments covering 4 GiB from the loader's GDT
 * at gdt_base (three descriptors: null, code, data).
 */
void x86_boot_flat32_state(X86BootState *st, uint32_t entry,
                           uint16_t code_sel, uint16_t data_sel,
                           uint64_t gdt_base);
/* Append an item (takes data) / a little-endian 32-bit item. */
void x86_boot_fw_cfg_add(X86BootFwCfg *fw, uint16_t key, void *data,
                         size_t len);
void x86_boot_fw_cfg_add_i32(X86BootFwCfg *fw, uint16_t key,
                             uint32_t value);

static inline void x86_boot_stl(uint8_t *p, uint32_t v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

static inline void x86_boot_stq(uint8_t *p, uint64_t v)
{
    x86_boot_stl(p, (uint32_t)v);
    x86_boot_stl(p + 4, (uint32_t)(v >> 32));
}

static inline uint16_t x86_boot_lduw(const uint8_t *p)
{
    return p[0] | (p[1] << 8);
}

static inline uint32_t x86_boot_ldl(const uint8_t *p)
{
    return (uint32_t)p[0] | ((uint32_t)p[1] << 8) |
           ((uint32_t)p[2] << 16) | ((uint32_t)p[3] << 24);
}

static inline uint64_t x86_boot_ldq(const uint8_t *p)
{
    return x86_boot_ldl(p) | ((uint64_t)x86_boot_ldl(p + 4) << 32);
}

#endif
