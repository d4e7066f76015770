/*
 * Little-endian values appended to a GByteArray: what builders of
 * firmware tables (ACPI, SMBIOS) write field by field.
 */
#ifndef QEMU_BYTE_ARRAY_H
#define QEMU_BYTE_ARRAY_H

#include <stdint.h>

#include <glib.h>

static inline void byte_array_put8(GByteArray *a, uint8_t v)
{
    g_byte_array_append(a, &v, 1);
}

static inline void byte_array_put16(GByteArray *a, uint16_t v)
{
    byte_array_put8(a, v);
    byte_array_put8(a, v >> 8);
}

static inline void byte_array_put32(GByteArray *a, uint32_t v)
{
    byte_array_put16(a, v);
    byte_array_put16(a, v >> 16);
}

static inline void byte_array_put64(GByteArray *a, uint64_t v)
{
    byte_array_put32(a, v);
    byte_array_put32(a, v >> 32);
}

#endif
