/*
 * SMBIOS tables for the firmware (include/hw/i386/pc-smbios.h), with
 * QEMU 7.2's values for the pc machine, and -smbios type=0 and type=1.
 *
 * A structure is its formatted area (type, length, handle, fields) and
 * then its strings, each NUL-terminated, the set ended by one more NUL
 * (two NULs when there is none); a string field holds the string's
 * number, 0 for none. Handles as QEMU's: type T instance i at
 * T * 0x100 + i, except types 16 (0x1000), 17 (0x1100 + i), 19
 * (0x1300 + i), 32 (0x2000) and 127 (0x7f00).
 */
#include <stdio.h>
#include <string.h>

#include "hw/i386/pc-smbios.h"
#include "qemu/byte-array.h"
#include "qemu/option.h"

#define DIMM_MAX_SIZE       (16ULL << 30)   /* QEMU's per type 17 */
#define T16_MAX_KIB         0x80000000ULL
#define T17_MAX_MIB         0x7fff
#define CPU_SPEED_MHZ       2000

/* One structure being built. */
typedef struct Table {
    GByteArray *a;
    size_t start;
    unsigned nstrings;
    GString *strings;
} Table;

static void table_begin(Table *t, GByteArray *a, uint8_t type,
                        uint16_t handle)
{
    t->a = a;
    t->start = a->len;
    t->nstrings = 0;
    t->strings = g_string_new(NULL);
    byte_array_put8(a, type);
    byte_array_put8(a, 0);                 /* length, set by table_end() */
    byte_array_put16(a, handle);
}

/* A string field: its number, or 0 for NULL or "". */
static void put_str(Table *t, const char *s)
{
    if (!s || !*s) {
        byte_array_put8(t->a, 0);
        return;
    }
    g_string_append(t->strings, s);
    g_string_append_c(t->strings, '\0');
    byte_array_put8(t->a, ++t->nstrings);
}

/* Returns the structure's whole size. */
static size_t table_end(Table *t, unsigned *count)
{
    t->a->data[t->start + 1] = t->a->len - t->start;
    if (!t->nstrings) {
        g_string_append_c(t->strings, '\0');
    }
    g_string_append_c(t->strings, '\0');
    g_byte_array_append(t->a, (const guint8 *)t->strings->str,
                        t->strings->len);
    g_string_free(t->strings, true);
    (*count)++;
    return t->a->len - t->start;
}

/* --- -smbios -------------------------------------------------------- */

static const char *const type0_keys[] = {
    "type", "vendor", "version", "date", "release", "uefi", NULL,
};
static const char *const type1_keys[] = {
    "type", "manufacturer", "product", "version", "serial", "uuid", "sku",
    "family", NULL,
};

static bool key_known(const char *const *keys, const char *name)
{
    for (; *keys; keys++) {
        if (!strcmp(*keys, name)) {
            return true;
        }
    }
    return false;
}

/* "%d.%d", each 0-255. */
static bool parse_release(const char *s, uint8_t *major, uint8_t *minor)
{
    unsigned a, b;
    char end;

    if (sscanf(s, "%u.%u%c", &a, &b, &end) != 2 || a > 255 || b > 255) {
        return false;
    }
    *major = a;
    *minor = b;
    return true;
}

/* RFC 4122 text to bytes as written. */
static bool parse_uuid(const char *s, uint8_t out[16])
{
    unsigned n = 0;

    if (strlen(s) != 36) {
        return false;
    }
    for (unsigned i = 0; i < 36; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-') {
                return false;
            }
            continue;
        }
        if (!g_ascii_isxdigit(s[i]) || !g_ascii_isxdigit(s[i + 1])) {
            return false;
        }
        out[n++] = g_ascii_xdigit_value(s[i]) << 4 |
                   g_ascii_xdigit_value(s[i + 1]);
        i++;
    }
    return n == 16;
}

static QemuOpts *smbios_opts(const char *arg, unsigned *type, Error **errp)
{
    QemuOpts *opts = qemu_opts_parse(arg, NULL, errp);
    const char *t, *s;
    const char *const *keys;
    uint8_t u8a, u8b, uuid[16];
    bool b;

    if (!opts) {
        return NULL;
    }
    t = qemu_opt_get(opts, "type");
    if (!t) {
        error_setg(errp, qemu_opt_get(opts, "file")
                   ? "-smbios file= is not supported yet"
                   : "Must specify type= or file=");
        goto fail;
    }
    if (strcmp(t, "0") && strcmp(t, "1")) {
        error_setg(errp, "Don't know how to build fields for SMBIOS type "
                   "%s", t);
        goto fail;
    }
    *type = t[0] - '0';
    keys = *type ? type1_keys : type0_keys;
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const char *name = qemu_opts_nth(opts, i)->name;

        if (!key_known(keys, name)) {
            error_setg(errp, "Invalid parameter '%s'", name);
            goto fail;
        }
    }
    if ((s = qemu_opt_get(opts, "release")) &&
        !parse_release(s, &u8a, &u8b)) {
        error_setg(errp, "Invalid release");
        goto fail;
    }
    if ((s = qemu_opt_get(opts, "uuid")) && !parse_uuid(s, uuid)) {
        error_setg(errp, "Invalid UUID");
        goto fail;
    }
    if (!qemu_opt_get_bool(opts, "uefi", &b, errp)) {
        goto fail;
    }
    return opts;

fail:
    qemu_opts_free(opts);
    return NULL;
}

bool smbios_check_option(const char *arg, Error **errp)
{
    unsigned type;
    QemuOpts *opts = smbios_opts(arg, &type, errp);

    qemu_opts_free(opts);
    return opts != NULL;
}

/* The value of key for type: the last -smbios that sets it wins. */
static const char *smbios_field(QemuOpts *const *opts, const unsigned *types,
                                unsigned n, unsigned type, const char *key)
{
    const char *v = NULL;

    for (unsigned i = 0; i < n; i++) {
        if (types[i] == type && qemu_opt_get(opts[i], key)) {
            v = qemu_opt_get(opts[i], key);
        }
    }
    return v;
}

/* --- the tables ------------------------------------------------------ */

/* SMBIOS 2.6+: the first three UUID fields little-endian. */
static void put_uuid(GByteArray *a, const uint8_t *u)
{
    static const uint8_t order[16] = {
        3, 2, 1, 0, 5, 4, 7, 6, 8, 9, 10, 11, 12, 13, 14, 15,
    };

    for (unsigned i = 0; i < 16; i++) {
        byte_array_put8(a, u ? u[order[i]] : 0);
    }
}

typedef struct Builder {
    GByteArray *a;
    unsigned count;
    size_t max;
    QemuOpts **opts;
    unsigned *types;
    unsigned nopts;
} Builder;

static void done(Builder *b, Table *t)
{
    size_t len = table_end(t, &b->count);

    b->max = MAX(b->max, len);
}

static const char *field(Builder *b, unsigned type, const char *key,
                         const char *dflt)
{
    const char *v = smbios_field(b->opts, b->types, b->nopts, type, key);

    return v ? v : dflt;
}

static void build_type0(Builder *b)
{
    const char *vendor = field(b, 0, "vendor", NULL);
    const char *version = field(b, 0, "version", NULL);
    const char *date = field(b, 0, "date", NULL);
    const char *release = field(b, 0, "release", NULL);
    const char *uefi = field(b, 0, "uefi", NULL);
    uint8_t major = 0, minor = 0;
    bool efi = false;
    Table t;

    if (!vendor && !version && !date) {
        return;                 /* the firmware makes its own */
    }
    if (release) {
        parse_release(release, &major, &minor);
    }
    if (uefi) {
        qemu_parse_bool("uefi", uefi, &efi, NULL);
    }
    table_begin(&t, b->a, 0, 0x000);
    put_str(&t, vendor);
    put_str(&t, version);
    byte_array_put16(b->a, 0xe800);        /* BIOS starting address segment */
    put_str(&t, date);
    byte_array_put8(b->a, 0);              /* ROM size */
    byte_array_put64(b->a, 0x08);          /* characteristics: not supported */
    byte_array_put8(b->a, 0);              /* extension byte 1 */
    byte_array_put8(b->a, 0x14 | (efi ? 0x08 : 0));   /* TCD, VM; UEFI */
    byte_array_put8(b->a, major);
    byte_array_put8(b->a, minor);
    byte_array_put8(b->a, 0xff);           /* no embedded controller */
    byte_array_put8(b->a, 0xff);
    done(b, &t);
}

static void build_type1(Builder *b, const SmbiosConfig *cfg)
{
    const char *uuid_str = field(b, 1, "uuid", NULL);
    uint8_t uuid[16];
    const uint8_t *u = cfg->uuid;
    Table t;

    if (uuid_str && parse_uuid(uuid_str, uuid)) {
        u = uuid;
    }
    table_begin(&t, b->a, 1, 0x100);
    put_str(&t, field(b, 1, "manufacturer", "QEMU"));
    put_str(&t, field(b, 1, "product", cfg->machine_desc));
    put_str(&t, field(b, 1, "version", cfg->machine_name));
    put_str(&t, field(b, 1, "serial", NULL));
    put_uuid(b->a, u);
    byte_array_put8(b->a, 0x06);           /* wake-up: power switch */
    put_str(&t, field(b, 1, "sku", NULL));
    put_str(&t, field(b, 1, "family", NULL));
    done(b, &t);
}

static void build_type3(Builder *b, const SmbiosConfig *cfg)
{
    Table t;

    table_begin(&t, b->a, 3, 0x300);
    put_str(&t, "QEMU");
    byte_array_put8(b->a, 0x01);           /* type: other */
    put_str(&t, cfg->machine_name);
    put_str(&t, NULL);          /* serial */
    put_str(&t, NULL);          /* asset tag */
    byte_array_put8(b->a, 0x03);           /* boot-up state: safe */
    byte_array_put8(b->a, 0x03);           /* power supply state */
    byte_array_put8(b->a, 0x03);           /* thermal state */
    byte_array_put8(b->a, 0x02);           /* security: unknown */
    byte_array_put32(b->a, 0);             /* OEM defined */
    byte_array_put8(b->a, 0);              /* height */
    byte_array_put8(b->a, 0);              /* power cords */
    byte_array_put8(b->a, 0);              /* contained elements */
    byte_array_put8(b->a, 0);              /* their record length */
    put_str(&t, NULL);          /* SKU */
    done(b, &t);
}

static void build_type4(Builder *b, const SmbiosConfig *cfg, unsigned i)
{
    char socket[16];
    Table t;

    g_snprintf(socket, sizeof(socket), "CPU%2x", i);
    table_begin(&t, b->a, 4, 0x400 + i);
    put_str(&t, socket);
    byte_array_put8(b->a, 0x03);           /* central processor */
    byte_array_put8(b->a, 0x01);           /* family: other */
    put_str(&t, "QEMU");
    byte_array_put32(b->a, cfg->cpuid_1_eax);
    byte_array_put32(b->a, cfg->cpuid_1_edx);
    put_str(&t, cfg->machine_name);
    byte_array_put8(b->a, 0);              /* voltage */
    byte_array_put16(b->a, 0);             /* external clock: unknown */
    byte_array_put16(b->a, CPU_SPEED_MHZ);
    byte_array_put16(b->a, CPU_SPEED_MHZ);
    byte_array_put8(b->a, 0x41);           /* populated, enabled */
    byte_array_put8(b->a, 0x01);           /* upgrade: other */
    byte_array_put16(b->a, 0xffff);        /* no L1, L2, L3 structures */
    byte_array_put16(b->a, 0xffff);
    byte_array_put16(b->a, 0xffff);
    put_str(&t, NULL);          /* serial */
    put_str(&t, NULL);          /* asset tag */
    put_str(&t, NULL);          /* part number */
    byte_array_put8(b->a, MIN(cfg->cores, 0xffu));
    byte_array_put8(b->a, MIN(cfg->cores, 0xffu));
    byte_array_put8(b->a, MIN(cfg->threads, 0xffu));
    byte_array_put16(b->a, 0x02);          /* characteristics: unknown */
    byte_array_put16(b->a, 0x01);          /* family 2: other */
    done(b, &t);
}

static void build_memory(Builder *b, const SmbiosConfig *cfg)
{
    unsigned ndimms = (cfg->ram_size + DIMM_MAX_SIZE - 1) / DIMM_MAX_SIZE;
    uint64_t kib = (cfg->ram_size + 1023) / 1024;
    Table t;

    table_begin(&t, b->a, 16, 0x1000);
    byte_array_put8(b->a, 0x01);           /* location: other */
    byte_array_put8(b->a, 0x03);           /* use: system memory */
    byte_array_put8(b->a, 0x06);           /* error correction: multi-bit ECC */
    byte_array_put32(b->a, kib < T16_MAX_KIB ? kib : T16_MAX_KIB);
    byte_array_put16(b->a, 0xfffe);        /* no error information */
    byte_array_put16(b->a, ndimms);
    byte_array_put64(b->a, kib < T16_MAX_KIB ? 0 : cfg->ram_size);
    done(b, &t);

    for (unsigned i = 0; i < ndimms; i++) {
        uint64_t size = MIN(DIMM_MAX_SIZE, cfg->ram_size - i * DIMM_MAX_SIZE);
        uint64_t mib = (size + (1 << 20) - 1) >> 20;
        char loc[16];

        g_snprintf(loc, sizeof(loc), "DIMM %u", i);
        table_begin(&t, b->a, 17, 0x1100 + i);
        byte_array_put16(b->a, 0x1000);    /* the array */
        byte_array_put16(b->a, 0xfffe);
        byte_array_put16(b->a, 0xffff);    /* total width: unknown */
        byte_array_put16(b->a, 0xffff);    /* data width */
        byte_array_put16(b->a, mib < T17_MAX_MIB ? mib : T17_MAX_MIB);
        byte_array_put8(b->a, 0x09);       /* DIMM */
        byte_array_put8(b->a, 0);          /* device set */
        put_str(&t, loc);
        put_str(&t, NULL);      /* bank */
        byte_array_put8(b->a, 0x07);       /* RAM */
        byte_array_put16(b->a, 0x02);      /* type detail: other */
        byte_array_put16(b->a, 0);         /* speed */
        put_str(&t, "QEMU");
        put_str(&t, NULL);      /* serial */
        put_str(&t, NULL);      /* asset tag */
        put_str(&t, NULL);      /* part number */
        byte_array_put8(b->a, 0);          /* attributes */
        byte_array_put32(b->a, mib < T17_MAX_MIB ? 0 : mib);
        byte_array_put16(b->a, 0);         /* configured speed */
        byte_array_put16(b->a, 0);    /* minimum, maximum, configured voltage */
        byte_array_put16(b->a, 0);
        byte_array_put16(b->a, 0);
        done(b, &t);
    }

    for (unsigned i = 0; i < cfg->nram; i++) {
        uint64_t start = cfg->ram[i].start / 1024;
        uint64_t end = (cfg->ram[i].start + cfg->ram[i].size - 1) / 1024;
        bool ext = start > UINT32_MAX || end > UINT32_MAX;

        table_begin(&t, b->a, 19, 0x1300 + i);
        byte_array_put32(b->a, ext ? UINT32_MAX : start);
        byte_array_put32(b->a, ext ? UINT32_MAX : end);
        byte_array_put16(b->a, 0x1000);
        byte_array_put8(b->a, 1);          /* partition width */
        byte_array_put64(b->a, ext ? cfg->ram[i].start : 0);
        byte_array_put64(b->a, ext ? cfg->ram[i].start +
                         cfg->ram[i].size - 1 : 0);
        done(b, &t);
    }
}

bool smbios_build(const SmbiosConfig *cfg, GByteArray **tables,
                  GByteArray **anchor, Error **errp)
{
    unsigned nopts = cfg->options ? cfg->options->len : 0;
    Builder b = {
        .a = g_byte_array_new(),
        .opts = g_new0(QemuOpts *, nopts + 1),
        .types = g_new0(unsigned, nopts + 1),
    };
    GByteArray *ep;
    Table t;
    bool ok = true;

    for (unsigned i = 0; i < nopts; i++) {
        b.opts[i] = smbios_opts(g_ptr_array_index(cfg->options, i),
                                &b.types[i], errp);
        if (!b.opts[i]) {
            ok = false;
            goto out;
        }
        b.nopts++;
    }
    build_type0(&b);
    build_type1(&b, cfg);
    build_type3(&b, cfg);
    for (unsigned i = 0; i < MAX(cfg->sockets, 1u); i++) {
        build_type4(&b, cfg, i);
    }
    build_memory(&b, cfg);
    table_begin(&t, b.a, 32, 0x2000);
    byte_array_put32(b.a, 0);              /* reserved, 6 bytes */
    byte_array_put16(b.a, 0);
    byte_array_put8(b.a, 0);               /* boot status: no errors */
    done(&b, &t);
    table_begin(&t, b.a, 127, 0x7f00);
    done(&b, &t);

    /* The 2.1 (32-bit) entry point: the firmware fills address, sums. */
    ep = g_byte_array_new();
    g_byte_array_append(ep, (const guint8 *)"_SM_", 4);
    byte_array_put8(ep, 0);                /* checksum */
    byte_array_put8(ep, SMBIOS_ANCHOR_SIZE);
    byte_array_put8(ep, 2);                /* version 2.8 */
    byte_array_put8(ep, 8);
    byte_array_put16(ep, b.max);
    byte_array_put8(ep, 0);                /* entry point revision */
    byte_array_put32(ep, 0);               /* formatted area, 5 bytes */
    byte_array_put8(ep, 0);
    g_byte_array_append(ep, (const guint8 *)"_DMI_", 5);
    byte_array_put8(ep, 0);                /* intermediate checksum */
    byte_array_put16(ep, b.a->len);
    byte_array_put32(ep, 0);               /* structure table address */
    byte_array_put16(ep, b.count);
    byte_array_put8(ep, 0x28);             /* BCD revision */
    g_assert(ep->len == SMBIOS_ANCHOR_SIZE);
    *tables = b.a;
    *anchor = ep;
    b.a = NULL;

out:
    for (unsigned i = 0; i < b.nopts; i++) {
        qemu_opts_free(b.opts[i]);
    }
    g_free(b.opts);
    g_free(b.types);
    if (b.a) {
        g_byte_array_unref(b.a);
    }
    return ok;
}
