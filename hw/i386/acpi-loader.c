/*
 * ACPI tables for the firmware's linker/loader (include/hw/i386/
 * acpi-loader.h). The tables are built at base 0, so every address in
 * them is an offset in "etc/acpi/tables"; the commands tell the
 * firmware to add the file's address to those fields and then fix the
 * checksums. The fields are found by following the pointers themselves
 * (RSDP -> RSDT/XSDT -> FADT -> FACS/DSDT), so the layout stays
 * acpi-build.c's alone.
 */
#include <string.h>

#include "hw/i386/acpi-loader.h"

/* ACPI 6.x offsets. */
#define HDR_LENGTH          4
#define HDR_CHECKSUM        9
#define HDR_SIZE            36
#define FADT_FIRMWARE_CTRL  36
#define FADT_DSDT           40
#define FADT_X_DSDT         140
#define RSDP_RSDT           16
#define RSDP_XSDT           24
#define RSDP_CHECKSUM       8
#define RSDP_EXT_CHECKSUM   32
#define RSDP_V1_SIZE        20

static uint32_t ld32(const GByteArray *a, size_t off)
{
    g_assert(off + 4 <= a->len);
    return a->data[off] | a->data[off + 1] << 8 | a->data[off + 2] << 16 |
           (uint32_t)a->data[off + 3] << 24;
}

static uint8_t *entry_new(GByteArray *loader, uint32_t command)
{
    uint8_t e[ACPI_LOADER_ENTRY_SIZE] = { 0 };
    size_t off = loader->len;

    e[0] = command;
    g_byte_array_append(loader, e, sizeof(e));
    return loader->data + off + 4;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = v;
    p[1] = v >> 8;
    p[2] = v >> 16;
    p[3] = v >> 24;
}

static void cmd_allocate(GByteArray *loader, const char *file,
                         uint32_t align, uint8_t zone)
{
    uint8_t *p = entry_new(loader, ACPI_LOADER_ALLOCATE);

    strncpy((char *)p, file, ACPI_LOADER_FILE_LEN - 1);
    put_le32(p + ACPI_LOADER_FILE_LEN, align);
    p[ACPI_LOADER_FILE_LEN + 4] = zone;
}

static void cmd_pointer(GByteArray *loader, const char *dest,
                        const char *src, uint32_t offset, uint8_t size)
{
    uint8_t *p = entry_new(loader, ACPI_LOADER_ADD_POINTER);

    strncpy((char *)p, dest, ACPI_LOADER_FILE_LEN - 1);
    strncpy((char *)p + ACPI_LOADER_FILE_LEN, src, ACPI_LOADER_FILE_LEN - 1);
    put_le32(p + 2 * ACPI_LOADER_FILE_LEN, offset);
    p[2 * ACPI_LOADER_FILE_LEN + 4] = size;
}

static void cmd_checksum(GByteArray *loader, const char *file,
                         uint32_t offset, uint32_t start, uint32_t length)
{
    uint8_t *p = entry_new(loader, ACPI_LOADER_ADD_CHECKSUM);

    strncpy((char *)p, file, ACPI_LOADER_FILE_LEN - 1);
    put_le32(p + ACPI_LOADER_FILE_LEN, offset);
    put_le32(p + ACPI_LOADER_FILE_LEN + 4, start);
    put_le32(p + ACPI_LOADER_FILE_LEN + 8, length);
}

/* A table's checksum, once its pointers are fixed. */
static void table_checksum(GByteArray *loader, const GByteArray *tables,
                           uint32_t table)
{
    cmd_checksum(loader, ACPI_LOADER_TABLES_FILE, table + HDR_CHECKSUM,
                 table, ld32(tables, table + HDR_LENGTH));
}

/* The RSDT (entry 4) or XSDT (8): its entries and its checksum. */
static void sdt_commands(GByteArray *loader, const GByteArray *tables,
                         uint32_t sdt, unsigned entry)
{
    uint32_t len = ld32(tables, sdt + HDR_LENGTH);

    for (uint32_t off = HDR_SIZE; off + entry <= len; off += entry) {
        cmd_pointer(loader, ACPI_LOADER_TABLES_FILE, ACPI_LOADER_TABLES_FILE,
                    sdt + off, entry);
    }
    table_checksum(loader, tables, sdt);
}

void acpi_loader_build(const AcpiBuildConfig *cfg, AcpiLoaderBlobs *out)
{
    uint64_t rsdp_off;
    GByteArray *all = acpi_build_tables(cfg, 0, &rsdp_off);
    GByteArray *loader = g_byte_array_new();
    uint32_t rsdt, xsdt, fadt, facs, dsdt, len;

    out->rsdp = g_byte_array_new();
    g_byte_array_append(out->rsdp, all->data + rsdp_off, ACPI_RSDP_SIZE);
    g_byte_array_set_size(all, rsdp_off);
    out->tables = all;
    out->loader = loader;

    rsdt = ld32(out->rsdp, RSDP_RSDT);
    xsdt = ld32(out->rsdp, RSDP_XSDT);
    fadt = ld32(all, rsdt + HDR_SIZE);      /* the RSDT's first entry */
    facs = ld32(all, fadt + FADT_FIRMWARE_CTRL);
    dsdt = ld32(all, fadt + FADT_DSDT);
    len = ld32(all, fadt + HDR_LENGTH);
    g_assert(facs == 0 && len >= FADT_X_DSDT + 8);

    cmd_allocate(loader, ACPI_LOADER_TABLES_FILE, ACPI_BUILD_ALIGN,
                 ACPI_LOADER_ZONE_HIGH);
    table_checksum(loader, all, dsdt);
    cmd_pointer(loader, ACPI_LOADER_TABLES_FILE, ACPI_LOADER_TABLES_FILE,
                fadt + FADT_FIRMWARE_CTRL, 4);
    cmd_pointer(loader, ACPI_LOADER_TABLES_FILE, ACPI_LOADER_TABLES_FILE,
                fadt + FADT_DSDT, 4);
    cmd_pointer(loader, ACPI_LOADER_TABLES_FILE, ACPI_LOADER_TABLES_FILE,
                fadt + FADT_X_DSDT, 8);
    table_checksum(loader, all, fadt);
    /* The MADT (and any other table) holds no pointers: checksums only. */
    for (uint32_t off = HDR_SIZE; off + 4 <= ld32(all, rsdt + HDR_LENGTH);
         off += 4) {
        uint32_t t = ld32(all, rsdt + off);

        if (t != fadt) {
            table_checksum(loader, all, t);
        }
    }
    sdt_commands(loader, all, rsdt, 4);
    sdt_commands(loader, all, xsdt, 8);

    cmd_allocate(loader, ACPI_LOADER_RSDP_FILE, 16, ACPI_LOADER_ZONE_FSEG);
    cmd_pointer(loader, ACPI_LOADER_RSDP_FILE, ACPI_LOADER_TABLES_FILE,
                RSDP_RSDT, 4);
    cmd_pointer(loader, ACPI_LOADER_RSDP_FILE, ACPI_LOADER_TABLES_FILE,
                RSDP_XSDT, 8);
    cmd_checksum(loader, ACPI_LOADER_RSDP_FILE, RSDP_CHECKSUM, 0,
                 RSDP_V1_SIZE);
    cmd_checksum(loader, ACPI_LOADER_RSDP_FILE, RSDP_EXT_CHECKSUM, 0,
                 ACPI_RSDP_SIZE);
}

void acpi_loader_free(AcpiLoaderBlobs *b)
{
    if (b->tables) {
        g_byte_array_unref(b->tables);
    }
    if (b->rsdp) {
        g_byte_array_unref(b->rsdp);
    }
    if (b->loader) {
        g_byte_array_unref(b->loader);
    }
    memset(b, 0, sizeof(*b));
}
