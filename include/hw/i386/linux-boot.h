/*
 * Direct Linux boot of a bzImage through the 64-bit boot protocol
 * (Documentation/arch/x86/boot.rst, "64-bit Boot Protocol"): the
 * protected-mode kernel is loaded at its preferred address, boot_params
 * (the "zero page") is filled, and vCPU 0 starts in long mode at the
 * kernel's 64-bit entry (load address + 0x200) with RSI = boot_params.
 *
 * Guest-physical layout (all in the first 1 MiB except the kernel and
 * initrd; every piece must lie in an e820 RAM entry):
 *   0x00500  GDT: 0x10 flat 64-bit code (__BOOT_CS), 0x18 flat data
 *            (__BOOT_DS), as the protocol asks
 *   0x07000  boot_params (4 KiB)
 *   0x08000  boot stack page; RSP starts at 0x8ff0
 *   0x09000  PML4; 0x0a000 PDPT; 0x0b000-0x0efff four page directories:
 *            the first 4 GiB identity mapped with 2 MiB pages (CR3 =
 *            0x9000), which covers the kernel's init_size, boot_params,
 *            the command line and the initrd
 *   0x20000  kernel command line (QEMU's address)
 *   pref_address (0x100000 when the header has none): the kernel,
 *            reserved up to max(file part, init_size)
 *   initrd   page aligned, as high as min(initrd_addr_max, end of the RAM
 *            from 1 MiB) allows (QEMU's rule)
 */
#ifndef HW_I386_LINUX_BOOT_H
#define HW_I386_LINUX_BOOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hw/i386/x86-boot.h"

#define LINUX_BOOT_GDT_ADDR         0x00500
#define LINUX_BOOT_PARAMS_ADDR      0x07000
#define LINUX_BOOT_STACK_ADDR       0x08000
#define LINUX_BOOT_STACK_TOP        0x08ff0
#define LINUX_BOOT_PML4_ADDR        0x09000
#define LINUX_BOOT_PDPT_ADDR        0x0a000
#define LINUX_BOOT_PD_ADDR          0x0b000
#define LINUX_BOOT_PAGE_TABLES_SIZE 0x06000
#define LINUX_BOOT_CMDLINE_ADDR     0x20000
#define LINUX_BOOT_CMDLINE_MAX      0x10000     /* bytes, with the NUL */
/* Where QEMU's linuxboot ROM puts the setup code (fw_cfg SETUP_ADDR). */
#define LINUX_BOOT_SETUP_ADDR       0x10000
#define LINUX_BOOT_KERNEL_ADDR      0x100000    /* without pref_address */
#define LINUX_BOOT_ENTRY64_OFFSET   0x200
#define LINUX_BOOT_MIN_PROTOCOL     0x020c      /* 2.12: xloadflags */
#define LINUX_BOOT_LOADER_TYPE      0xb0        /* QEMU's boot loader id */
#define LINUX_BOOT_SEL_CODE         0x10
#define LINUX_BOOT_SEL_DATA         0x18

/* The file has the "HdrS" signature of a Linux setup header. */
bool linux_boot_has_setup_header(const uint8_t *image, size_t size);

/*
 * Validate the bzImage (the whole file in image), load it, the initrd
 * (cfg->initrd_filename) and the command line, build boot_params, page
 * tables and GDT, and set st to the 64-bit entry state. With fw, also
 * the fw_cfg items QEMU publishes for a Linux boot (kernel, setup,
 * initrd, command line: address, size and data each).
 */
bool linux_boot_load(const X86BootConfig *cfg, const uint8_t *image,
                     size_t size, const GuestMemory *mem, X86BootState *st,
                     X86BootFwCfg *fw, Error **errp);

#endif
