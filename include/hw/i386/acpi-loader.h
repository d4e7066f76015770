/*
 * The ACPI tables of acpi-build.h handed to the firmware as QEMU does:
 * through fw_cfg files the firmware places itself and a script of
 * linker/loader commands ("etc/table-loader") that tells it where each
 * file goes, which fields point into which file and which checksums to
 * fix afterwards (the format of QEMU's hw/acpi/bios-linker-loader.c,
 * which SeaBIOS and OVMF read).
 *
 * Each command is 128 bytes, little-endian:
 *   u32 command
 *   ALLOCATE      char file[56], u32 align, u8 zone (1 high, 2 f-segment)
 *   ADD_POINTER   char dest[56], char src[56], u32 offset, u8 size:
 *                 dest's size-byte field at offset += src's address
 *   ADD_CHECKSUM  char file[56], u32 offset, u32 start, u32 length:
 *                 file[offset] -= sum of file[start, start + length)
 */
#ifndef HW_I386_ACPI_LOADER_H
#define HW_I386_ACPI_LOADER_H

#include <glib.h>

#include "hw/i386/acpi-build.h"

#define ACPI_LOADER_ENTRY_SIZE      128
#define ACPI_LOADER_FILE_LEN        56
#define ACPI_LOADER_ALLOCATE        1
#define ACPI_LOADER_ADD_POINTER     2
#define ACPI_LOADER_ADD_CHECKSUM    3
#define ACPI_LOADER_ZONE_HIGH       1
#define ACPI_LOADER_ZONE_FSEG       2

#define ACPI_LOADER_TABLES_FILE     "etc/acpi/tables"
#define ACPI_LOADER_RSDP_FILE       "etc/acpi/rsdp"
#define ACPI_LOADER_FILE            "etc/table-loader"

typedef struct AcpiLoaderBlobs {
    GByteArray *tables;         /* FACS, DSDT, FADT, MADT, RSDT, XSDT */
    GByteArray *rsdp;
    GByteArray *loader;         /* the commands */
} AcpiLoaderBlobs;

/* Build the three files for cfg (free them with acpi_loader_free()). */
void acpi_loader_build(const AcpiBuildConfig *cfg, AcpiLoaderBlobs *out);
void acpi_loader_free(AcpiLoaderBlobs *b);

#endif
