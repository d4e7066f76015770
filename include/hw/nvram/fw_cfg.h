/*
 * QEMU's firmware configuration interface (fw_cfg): numbered items and
 * named files that firmware and boot loaders read through port I/O or
 * DMA. Keys are QEMU's (docs/specs/fw_cfg.rst); board code adds its own
 * items and files after the device is realized.
 */
#ifndef HW_NVRAM_FW_CFG_H
#define HW_NVRAM_FW_CFG_H

#include <stddef.h>
#include <stdint.h>

#define FW_CFG_SIGNATURE        0x00
#define FW_CFG_ID               0x01
#define FW_CFG_UUID             0x02
#define FW_CFG_RAM_SIZE         0x03
#define FW_CFG_NOGRAPHIC        0x04
#define FW_CFG_NB_CPUS          0x05
#define FW_CFG_MACHINE_ID       0x06
#define FW_CFG_KERNEL_ADDR      0x07
#define FW_CFG_KERNEL_SIZE      0x08
#define FW_CFG_KERNEL_CMDLINE   0x09
#define FW_CFG_INITRD_ADDR      0x0a
#define FW_CFG_INITRD_SIZE      0x0b
#define FW_CFG_BOOT_DEVICE      0x0c
#define FW_CFG_NUMA             0x0d
#define FW_CFG_BOOT_MENU        0x0e
#define FW_CFG_MAX_CPUS         0x0f
#define FW_CFG_KERNEL_ENTRY     0x10
#define FW_CFG_KERNEL_DATA      0x11
#define FW_CFG_INITRD_DATA      0x12
#define FW_CFG_CMDLINE_ADDR     0x13
#define FW_CFG_CMDLINE_SIZE     0x14
#define FW_CFG_CMDLINE_DATA     0x15
#define FW_CFG_SETUP_ADDR       0x16
#define FW_CFG_SETUP_SIZE       0x17
#define FW_CFG_SETUP_DATA       0x18
#define FW_CFG_FILE_DIR         0x19
#define FW_CFG_FILE_FIRST       0x20
#define FW_CFG_FILE_SLOTS       0x20    /* QEMU's default file_slots */

#define FW_CFG_WRITE_CHANNEL    0x4000
#define FW_CFG_ARCH_LOCAL       0x8000
#define FW_CFG_ENTRY_MASK       0x3fff
#define FW_CFG_INVALID          0xffff

/* x86 items in the arch-local range. */
#define FW_CFG_ACPI_TABLES      (FW_CFG_ARCH_LOCAL + 0)
#define FW_CFG_SMBIOS_ENTRIES   (FW_CFG_ARCH_LOCAL + 1)
#define FW_CFG_IRQ0_OVERRIDE    (FW_CFG_ARCH_LOCAL + 2)
#define FW_CFG_E820_TABLE       (FW_CFG_ARCH_LOCAL + 3)
#define FW_CFG_HPET             (FW_CFG_ARCH_LOCAL + 4)

/* FW_CFG_ID feature bits. */
#define FW_CFG_VERSION          0x01
#define FW_CFG_VERSION_DMA      0x02

/* The PC's ports. */
#define FW_CFG_IO_BASE          0x510   /* selector (16-bit write) */
#define FW_CFG_IO_DATA          0x511
#define FW_CFG_IO_DMA           0x514   /* DMA address, big-endian */

/* DMA control bits of FWCfgDmaAccess.control (big-endian in memory). */
#define FW_CFG_DMA_CTL_ERROR    0x01
#define FW_CFG_DMA_CTL_READ     0x02
#define FW_CFG_DMA_CTL_SKIP     0x04
#define FW_CFG_DMA_CTL_SELECT   0x08
#define FW_CFG_DMA_CTL_WRITE    0x10

#define FW_CFG_DMA_SIGNATURE    0x51454d5520434647ULL   /* "QEMU CFG" */

#define FW_CFG_MAX_FILE_PATH    56

/* A fw_cfg_io device (the board keeps the one it made). */
typedef struct FWCfgState FWCfgState;

/*
 * Add (or replace) an item; fw_cfg takes ownership of data, which must
 * come from g_malloc. Keys outside the item range are logged and the
 * data freed.
 */
void fw_cfg_add_bytes(FWCfgState *s, uint16_t key, void *data, size_t len);
/* Little-endian integers. */
void fw_cfg_add_i16(FWCfgState *s, uint16_t key, uint16_t value);
void fw_cfg_add_i32(FWCfgState *s, uint16_t key, uint32_t value);
void fw_cfg_add_i64(FWCfgState *s, uint16_t key, uint64_t value);
/*
 * Add a named file (ownership of data as above). The directory stays
 * sorted by name and selectors follow that order from FW_CFG_FILE_FIRST,
 * as in QEMU. A name already present has its data replaced.
 */
void fw_cfg_add_file(FWCfgState *s, const char *name, void *data,
                     size_t len);

#endif
