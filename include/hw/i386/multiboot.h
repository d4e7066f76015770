/*
 * Multiboot v1 kernels (-kernel ELF32 or a.out-kludge image, -initrd
 * "mod1 args,mod2" as modules, -append as the command line), loaded the
 * way QEMU's multiboot option ROM leaves them.
 *
 * Guest-physical layout (QEMU's):
 *   0x0500  GDT: 0x08 flat 32-bit code, 0x10 flat data (as QEMU's ROM)
 *   0x9000  memory map (mmap_addr), 24-byte entries from the board's e820
 *   0x9500  multiboot information structure (EBX)
 *   load    the kernel image, BSS zeroed, then at the next page: the
 *           module structures, the module strings, the kernel command
 *           line and the boot loader name "qemu"; then each module at
 *           the next page boundary, in -initrd order.
 *
 * A kernel or module linked over 0x9000-0x95ff or over the strings' page
 * (QEMU 7.2 loads it there and its bytes replace the information) gets
 * the memory map, information structure, module list and strings moved
 * together, in that order (map, structure 0x500 bytes on, the rest right
 * after it), to the first free RAM from 0x9000 up to 640 KiB, else from
 * 0x1000 up, else from 1 MiB up. EBX and the pointers say where.
 */
#ifndef HW_I386_MULTIBOOT_H
#define HW_I386_MULTIBOOT_H

#include <stddef.h>
#include <stdint.h>

#include "hw/i386/x86-boot.h"

#define MULTIBOOT_HEADER_MAGIC      0x1BADB002u
#define MULTIBOOT_BOOTLOADER_MAGIC  0x2BADB002u
#define MULTIBOOT_SEARCH_LIMIT      8192    /* header within these bytes */

#define MULTIBOOT_GDT_ADDR          0x0500
#define MULTIBOOT_MMAP_ADDR         0x9000
#define MULTIBOOT_INFO_ADDR         0x9500
#define MULTIBOOT_INFO_SIZE         88
#define MULTIBOOT_MMAP_ENTRY_SIZE   24      /* size field + 20 bytes */

/* multiboot_info flags QEMU sets */
#define MULTIBOOT_INFO_MEMORY       (1u << 0)
#define MULTIBOOT_INFO_BOOTDEV      (1u << 1)
#define MULTIBOOT_INFO_CMDLINE      (1u << 2)
#define MULTIBOOT_INFO_MODS         (1u << 3)
#define MULTIBOOT_INFO_MEM_MAP      (1u << 6)
#define MULTIBOOT_INFO_BOOT_LOADER  (1u << 9)

/*
 * Offset of the first valid multiboot header (magic, flags, checksum
 * summing to 0, 32-bit aligned, within the first 8 KiB), or -1.
 */
long multiboot_find_header(const uint8_t *image, size_t size);

/*
 * Load the kernel image (the whole file) and its modules. Returns 1 when
 * loaded (st holds the 32-bit entry state: EAX = 0x2BADB002, EBX = the
 * info structure), 0 when the image has no multiboot header (the caller
 * tries the next loader; nothing was written), -1 with errp set.
 */
int multiboot_load(const X86BootConfig *cfg, const uint8_t *image,
                   size_t size, const GuestMemory *mem, X86BootState *st,
                   X86BootFwCfg *fw, Error **errp);

#endif
