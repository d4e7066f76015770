/*
 * SMBIOS tables of the pc machine as QEMU 7.2 gives them to its firmware
 * (fw_cfg "etc/smbios/smbios-tables" and "etc/smbios/smbios-anchor", a
 * 2.8 32-bit entry point whose table address and checksums the firmware
 * fills in): types 1, 3, 4 (one per socket), 16, 17 (one per 16 GiB of
 * RAM), 19 (one per RAM range), 32 and 127, and type 0 once -smbios
 * type=0 names its vendor, version or date (else SeaBIOS adds its own).
 * Field layouts: DMTF DSP0134.
 */
#ifndef HW_I386_PC_SMBIOS_H
#define HW_I386_PC_SMBIOS_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

#define SMBIOS_TABLES_FILE  "etc/smbios/smbios-tables"
#define SMBIOS_ANCHOR_FILE  "etc/smbios/smbios-anchor"
#define SMBIOS_ANCHOR_SIZE  31

typedef struct SmbiosRange {
    uint64_t start, size;
} SmbiosRange;

typedef struct SmbiosConfig {
    const char *machine_desc;       /* type 1 product */
    const char *machine_name;       /* versions: "pc-i440fx-7.2" */
    const uint8_t *uuid;            /* -uuid, 16 bytes as written, or NULL */
    unsigned sockets, cores, threads;
    uint32_t cpuid_1_eax, cpuid_1_edx;
    uint64_t ram_size;
    const SmbiosRange *ram;         /* the RAM ranges, for type 19 */
    unsigned nram;
    const GPtrArray *options;       /* -smbios arguments (char *) */
} SmbiosConfig;

/* One -smbios argument as QEMU 7.2 checks it (type=0 and 1 only). */
bool smbios_check_option(const char *arg, Error **errp);
/* The two files; false (errp set) on a bad -smbios argument. */
bool smbios_build(const SmbiosConfig *cfg, GByteArray **tables,
                  GByteArray **anchor, Error **errp);

#endif
