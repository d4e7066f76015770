/*
 * The PC's firmware ROM (SeaBIOS's bios-256k.bin by default, -bios):
 * read-only at the top of the 4 GiB space, and its last 128 KiB also at
 * 0xe0000-0xfffff (the "isa-bios"), both in the PCI memory space, where
 * the chipset's PAM registers let the CPU see it or RAM.
 */
#ifndef HW_I386_PC_FIRMWARE_H
#define HW_I386_PC_FIRMWARE_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "system/memory.h"

/* QEMU's default for the pc machine. */
#define PC_FIRMWARE_DEFAULT     "bios-256k.bin"
#define PC_FIRMWARE_MAX_SIZE    (16u << 20)
#define PC_FIRMWARE_ALIGN       0x10000u
#define PC_ISA_BIOS_SIZE        0x20000u

typedef struct PCFirmware {
    char *path;                 /* the file found */
    uint8_t *host;              /* mapped read-only */
    uint64_t size;
    MemoryRegion rom;           /* "pc.bios" at 4 GiB - size */
    MemoryRegion isa_bios;      /* its last 128 KiB at 0xe0000 */
} PCFirmware;

/*
 * Find name (-bios, or PC_FIRMWARE_DEFAULT) in the firmware path and
 * check it: it must exist, be readable, not empty, at most
 * PC_FIRMWARE_MAX_SIZE and a multiple of PC_FIRMWARE_ALIGN bytes
 * ("could not load PC BIOS 'name': why"). Nothing is mapped yet.
 */
bool pc_firmware_load(PCFirmware *fw, const char *name, Error **errp);
/* Map it into the PCI memory space pci (below the PAM windows). */
bool pc_firmware_map(PCFirmware *fw, MemoryRegion *pci, Error **errp);
void pc_firmware_free(PCFirmware *fw);

#endif
