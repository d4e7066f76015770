/*
 * The pc machine's ACPI tables (hw/i386/acpi-build.c), checked the way a
 * guest finds them: from the RSDP through the XSDT/RSDT and the FADT,
 * by guest-physical address. Then each table goes through ACPICA's
 * disassembler (iasl -d) when it is installed.
 */
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "hw/acpi/pm.h"
#include "hw/i386/acpi-build.h"

#define TEST_BASE           0x07fe0000ull   /* top of 128 MiB of low RAM */
#define HEADER_SIZE         36

/* Table offsets in the FADT (ACPI 6, table 5-34). */
#define FADT_FIRMWARE_CTRL  36
#define FADT_DSDT           40
#define FADT_SCI_INT        46
#define FADT_SMI_CMD        48
#define FADT_PM1A_EVT_BLK   56
#define FADT_PM1B_EVT_BLK   60
#define FADT_PM1A_CNT_BLK   64
#define FADT_PM_TMR_BLK     76
#define FADT_GPE0_BLK       80
#define FADT_PM1_EVT_LEN    88
#define FADT_PM1_CNT_LEN    89
#define FADT_PM_TMR_LEN     91
#define FADT_GPE0_BLK_LEN   92
#define FADT_P_LVL2_LAT     96
#define FADT_P_LVL3_LAT     98
#define FADT_CENTURY        108
#define FADT_IAPC_BOOT_ARCH 109
#define FADT_FLAGS          112
#define FADT_RESET_REG      116
#define FADT_RESET_VALUE    128
#define FADT_MINOR_VERSION  131
#define FADT_X_FIRMWARE_CTRL 132
#define FADT_X_DSDT         140
#define FADT_X_PM1A_EVT_BLK 148
#define FADT_X_PM1A_CNT_BLK 172
#define FADT_X_PM_TMR_BLK   208
#define FADT_X_GPE0_BLK     220
#define FADT_LENGTH         276

#define FADT_F_WBINVD           (1u << 0)
#define FADT_F_PROC_C1          (1u << 2)
#define FADT_F_PWR_BUTTON       (1u << 4)
#define FADT_F_SLP_BUTTON       (1u << 5)
#define FADT_F_TMR_VAL_EXT      (1u << 8)
#define FADT_F_RESET_REG_SUP    (1u << 10)
#define FADT_F_FORCE_APIC_PHYS  (1u << 19)
#define FADT_F_HW_REDUCED_ACPI  (1u << 20)

typedef struct Tables {
    GByteArray *blob;
    uint64_t base;
    uint64_t rsdp_offset;
} Tables;

static uint16_t ld16(const uint8_t *p)
{
    return p[0] | (p[1] << 8);
}

static uint32_t ld32(const uint8_t *p)
{
    return ld16(p) | ((uint32_t)ld16(p + 2) << 16);
}

static uint64_t ld64(const uint8_t *p)
{
    return ld32(p) | ((uint64_t)ld32(p + 4) << 32);
}

static Tables build(unsigned ncpus, const uint32_t *apic_ids, uint64_t base)
{
    AcpiBuildConfig cfg = {
        .ncpus = ncpus,
        .apic_ids = apic_ids,
        .pm_io_base = ACPI_PM_DEFAULT_IOBASE,
        .sci_irq = ACPI_PM_DEFAULT_SCI_IRQ,
        .reset_port = ACPI_PM_RESET_PORT,
        .has_i8042 = true,
    };
    Tables t = { .base = base };

    t.blob = acpi_build_tables(&cfg, base, &t.rsdp_offset);
    return t;
}

/*
 * The pc's PCI root bridge with 128 MiB of RAM (hole64 at 4 GiB), with
 * a pvpanic device at 0x505 and the HPET if asked.
 */
static Tables build_pci(bool pvpanic, bool hpet)
{
    uint32_t id = 0;
    AcpiBuildConfig cfg = {
        .ncpus = 1,
        .apic_ids = &id,
        .pm_io_base = ACPI_PM_DEFAULT_IOBASE,
        .sci_irq = ACPI_PM_DEFAULT_SCI_IRQ,
        .reset_port = ACPI_PM_RESET_PORT,
        .has_i8042 = true,
        .has_pci = true,
        .pci_hole_start = 0x08000000,
        .pci_hole_end = 0xfec00000,
        .pci_hole64_start = 0x100000000ull,
        .pci_hole64_end = 0x180000000ull,
        .pirq_irqs = { 10, 10, 11, 11 },
        .has_pvpanic = pvpanic,
        .pvpanic_port = 0x505,
        .has_hpet = hpet,
    };
    Tables t = { .base = TEST_BASE };

    t.blob = acpi_build_tables(&cfg, TEST_BASE, &t.rsdp_offset);
    return t;
}

static Tables build_n(unsigned ncpus)
{
    g_autofree uint32_t *ids = g_new(uint32_t, ncpus);

    for (unsigned i = 0; i < ncpus; i++) {
        ids[i] = i;
    }
    return build(ncpus, ids, TEST_BASE);
}

/* The blob's bytes at guest-physical addr, len bytes of them present. */
static const uint8_t *at(const Tables *t, uint64_t addr, size_t len)
{
    g_assert_cmphex(addr, >=, t->base);
    g_assert_cmphex(addr + len, <=, t->base + t->blob->len);
    return t->blob->data + (addr - t->base);
}

static const uint8_t *rsdp(const Tables *t)
{
    return at(t, t->base + t->rsdp_offset, ACPI_RSDP_SIZE);
}

/* A table at addr with a valid header: signature, length, checksum. */
static const uint8_t *table(const Tables *t, uint64_t addr, const char *sig,
                            uint8_t revision)
{
    const uint8_t *p = at(t, addr, HEADER_SIZE);
    uint32_t len = ld32(p + 4);

    g_assert_cmpmem(p, 4, sig, 4);
    g_assert_cmpuint(len, >=, HEADER_SIZE);
    p = at(t, addr, len);
    g_assert_cmpuint(acpi_checksum(p, len), ==, 0);
    g_assert_cmpuint(p[8], ==, revision);
    g_assert_cmpmem(p + 10, 6, ACPI_BUILD_OEM_ID, 6);
    g_assert_cmpmem(p + 16, 8, ACPI_BUILD_OEM_TABLE_ID, 8);
    g_assert_cmpmem(p + 28, 4, ACPI_BUILD_CREATOR_ID, 4);
    return p;
}

static uint64_t xsdt_addr(const Tables *t)
{
    return ld64(rsdp(t) + 24);
}

/* The table with this signature through the XSDT, or NULL. */
static const uint8_t *find_opt(const Tables *t, const char *sig, uint8_t rev)
{
    const uint8_t *x = table(t, xsdt_addr(t), "XSDT", 1);
    uint32_t len = ld32(x + 4);

    for (uint32_t off = HEADER_SIZE; off + 8 <= len; off += 8) {
        uint64_t addr = ld64(x + off);

        if (!memcmp(at(t, addr, 4), sig, 4)) {
            return table(t, addr, sig, rev);
        }
    }
    return NULL;
}

static const uint8_t *find(const Tables *t, const char *sig, uint8_t rev)
{
    const uint8_t *p = find_opt(t, sig, rev);

    g_assert_nonnull(p);
    return p;
}

static const uint8_t *fadt(const Tables *t)
{
    return find(t, "FACP", 6);
}

static const uint8_t *dsdt(const Tables *t)
{
    return table(t, ld64(fadt(t) + FADT_X_DSDT), "DSDT", 2);
}

static const uint8_t *madt(const Tables *t)
{
    return find(t, "APIC", 3);
}

static void test_rsdp(void)
{
    Tables t = build_n(1);
    const uint8_t *p = rsdp(&t);

    g_assert_cmpuint((t.base + t.rsdp_offset) % 16, ==, 0);
    g_assert_cmpmem(p, 8, "RSD PTR ", 8);
    g_assert_cmpuint(acpi_checksum(p, 20), ==, 0);
    g_assert_cmpuint(acpi_checksum(p, ACPI_RSDP_SIZE), ==, 0);
    g_assert_cmpmem(p + 9, 6, ACPI_BUILD_OEM_ID, 6);
    g_assert_cmpuint(p[15], ==, 2);
    g_assert_cmpuint(ld32(p + 20), ==, ACPI_RSDP_SIZE);
    table(&t, ld32(p + 16), "RSDT", 1);
    table(&t, ld64(p + 24), "XSDT", 1);
    /* The RSDP is the blob's last piece. */
    g_assert_cmpuint(t.rsdp_offset + ACPI_RSDP_SIZE, ==, t.blob->len);
    g_byte_array_unref(t.blob);
}

/* RSDT and XSDT list the same tables, the FADT first. */
static void test_rsdt_xsdt(void)
{
    Tables t = build_n(2);
    const uint8_t *r = table(&t, ld32(rsdp(&t) + 16), "RSDT", 1);
    const uint8_t *x = table(&t, xsdt_addr(&t), "XSDT", 1);
    static const char *const sigs[] = { "FACP", "APIC" };

    g_assert_cmpuint(ld32(r + 4), ==, HEADER_SIZE + 4 * 2);
    g_assert_cmpuint(ld32(x + 4), ==, HEADER_SIZE + 8 * 2);
    for (int i = 0; i < 2; i++) {
        uint64_t addr = ld64(x + HEADER_SIZE + 8 * i);

        g_assert_cmphex(ld32(r + HEADER_SIZE + 4 * i), ==, addr);
        g_assert_cmpuint(addr % 16, ==, 0);
        g_assert_cmpmem(at(&t, addr, 4), 4, sigs[i], 4);
    }
    g_byte_array_unref(t.blob);
}

static void test_fadt(void)
{
    Tables t = build_n(1);
    const uint8_t *f = fadt(&t);
    const uint8_t *reset = f + FADT_RESET_REG;
    uint32_t flags = ld32(f + FADT_FLAGS);
    uint64_t facs = ld32(f + FADT_FIRMWARE_CTRL);
    const uint8_t *fs;

    g_assert_cmpuint(ld32(f + 4), ==, FADT_LENGTH);
    g_assert_cmpuint(f[FADT_MINOR_VERSION], ==, 0);

    /* DSDT through both pointers, FACS through the 32-bit one. */
    g_assert_cmphex(ld32(f + FADT_DSDT), ==, ld64(f + FADT_X_DSDT));
    dsdt(&t);
    g_assert_cmphex(ld64(f + FADT_X_FIRMWARE_CTRL), ==, 0);
    g_assert_cmpuint(facs % 64, ==, 0);
    fs = at(&t, facs, ACPI_FACS_SIZE);
    g_assert_cmpmem(fs, 4, "FACS", 4);
    g_assert_cmpuint(ld32(fs + 4), ==, ACPI_FACS_SIZE);
    g_assert_cmpuint(fs[32], ==, 2);

    g_assert_cmpuint(ld16(f + FADT_SCI_INT), ==, 9);
    g_assert_cmpuint(ld32(f + FADT_SMI_CMD), ==, 0);
    g_assert_cmphex(ld32(f + FADT_PM1A_EVT_BLK), ==, 0x600);
    g_assert_cmphex(ld32(f + FADT_PM1B_EVT_BLK), ==, 0);
    g_assert_cmphex(ld32(f + FADT_PM1A_CNT_BLK), ==, 0x604);
    g_assert_cmphex(ld32(f + FADT_PM_TMR_BLK), ==, 0x608);
    g_assert_cmphex(ld32(f + FADT_GPE0_BLK), ==, 0x60c);
    g_assert_cmpuint(f[FADT_PM1_EVT_LEN], ==, 4);
    g_assert_cmpuint(f[FADT_PM1_CNT_LEN], ==, 2);
    g_assert_cmpuint(f[FADT_PM_TMR_LEN], ==, 4);
    g_assert_cmpuint(f[FADT_GPE0_BLK_LEN], ==, 4);
    g_assert_cmpuint(ld16(f + FADT_P_LVL2_LAT), >, 100);
    g_assert_cmpuint(ld16(f + FADT_P_LVL3_LAT), >, 1000);
    g_assert_cmphex(f[FADT_CENTURY], ==, 0x32);
    /* Legacy devices and an 8042. */
    g_assert_cmphex(ld16(f + FADT_IAPC_BOOT_ARCH), ==, 0x3);

    /* The extended blocks: System I/O, matching the 32-bit ones. */
    g_assert_cmpuint(f[FADT_X_PM1A_EVT_BLK], ==, 1);
    g_assert_cmpuint(f[FADT_X_PM1A_EVT_BLK + 1], ==, 32);
    g_assert_cmphex(ld64(f + FADT_X_PM1A_EVT_BLK + 4), ==, 0x600);
    g_assert_cmpuint(f[FADT_X_PM1A_CNT_BLK + 1], ==, 16);
    g_assert_cmphex(ld64(f + FADT_X_PM1A_CNT_BLK + 4), ==, 0x604);
    g_assert_cmpuint(f[FADT_X_PM_TMR_BLK + 1], ==, 32);
    g_assert_cmphex(ld64(f + FADT_X_PM_TMR_BLK + 4), ==, 0x608);
    g_assert_cmpuint(f[FADT_X_GPE0_BLK + 1], ==, 32);
    g_assert_cmphex(ld64(f + FADT_X_GPE0_BLK + 4), ==, 0x60c);

    /* Reset register: byte port 0xcf9, value 6. */
    g_assert_cmpuint(reset[0], ==, 1);
    g_assert_cmpuint(reset[1], ==, 8);
    g_assert_cmpuint(reset[2], ==, 0);
    g_assert_cmpuint(reset[3], ==, 1);
    g_assert_cmphex(ld64(reset + 4), ==, 0xcf9);
    g_assert_cmphex(f[FADT_RESET_VALUE], ==, 0x06);

    g_assert_true(flags & FADT_F_WBINVD);
    g_assert_true(flags & FADT_F_PROC_C1);
    g_assert_true(flags & FADT_F_SLP_BUTTON);
    g_assert_true(flags & FADT_F_RESET_REG_SUP);
    /* Fixed power button present; 24-bit timer; full ACPI hardware. */
    g_assert_false(flags & FADT_F_PWR_BUTTON);
    g_assert_false(flags & FADT_F_TMR_VAL_EXT);
    g_assert_false(flags & FADT_F_HW_REDUCED_ACPI);
    g_assert_false(flags & FADT_F_FORCE_APIC_PHYS);
    g_byte_array_unref(t.blob);
}

static void test_fadt_options(void)
{
    uint32_t ids[] = { 0, 2, 4, 8 };
    AcpiBuildConfig cfg = {
        .ncpus = 4, .apic_ids = ids, .pm_io_base = 0xb000, .sci_irq = 11,
    };
    Tables t = { .base = 0x100000 };
    const uint8_t *f;
    uint32_t flags;

    t.blob = acpi_build_tables(&cfg, t.base, &t.rsdp_offset);
    f = fadt(&t);
    flags = ld32(f + FADT_FLAGS);
    g_assert_cmpuint(ld16(f + FADT_SCI_INT), ==, 11);
    g_assert_cmphex(ld32(f + FADT_PM1A_EVT_BLK), ==, 0xb000);
    g_assert_cmphex(ld32(f + FADT_PM_TMR_BLK), ==, 0xb008);
    /* No reset port: no reset register. */
    g_assert_false(flags & FADT_F_RESET_REG_SUP);
    g_assert_cmphex(ld64(f + FADT_RESET_REG + 4), ==, 0);
    /* APIC ID 8 is out of flat logical mode's reach. */
    g_assert_true(flags & FADT_F_FORCE_APIC_PHYS);
    g_assert_cmphex(ld16(f + FADT_IAPC_BOOT_ARCH), ==, 0x1);
    g_byte_array_unref(t.blob);
}

/* Counts of the MADT's entries by type, with checks of each. */
typedef struct MadtSummary {
    unsigned lapics, x2apics, ioapics, overrides, nmis, x2apic_nmis;
    uint32_t apic_ids[256];
    uint32_t uids[256];
    uint16_t override_flags[16];
    uint32_t override_gsi[16];
    bool override_seen[16];
} MadtSummary;

static void madt_scan(const uint8_t *m, MadtSummary *s)
{
    uint32_t len = ld32(m + 4);
    uint32_t off = HEADER_SIZE + 8;

    memset(s, 0, sizeof(*s));
    g_assert_cmphex(ld32(m + 36), ==, 0xfee00000);
    g_assert_cmphex(ld32(m + 40), ==, 1);       /* PCAT_COMPAT */
    while (off < len) {
        const uint8_t *e = m + off;
        unsigned n;

        g_assert_cmpuint(off + 2, <=, len);
        g_assert_cmpuint(e[1], >=, 2);
        g_assert_cmpuint(off + e[1], <=, len);
        switch (e[0]) {
        case 0:
            g_assert_cmpuint(e[1], ==, 8);
            n = s->lapics + s->x2apics;
            s->uids[n] = e[2];
            s->apic_ids[n] = e[3];
            g_assert_cmphex(ld32(e + 4), ==, 1);
            s->lapics++;
            break;
        case 9:
            g_assert_cmpuint(e[1], ==, 16);
            n = s->lapics + s->x2apics;
            s->apic_ids[n] = ld32(e + 4);
            g_assert_cmphex(ld32(e + 8), ==, 1);
            s->uids[n] = ld32(e + 12);
            s->x2apics++;
            break;
        case 1:
            g_assert_cmpuint(e[1], ==, 12);
            g_assert_cmpuint(e[2], ==, 0);      /* IOAPIC ID */
            g_assert_cmphex(ld32(e + 4), ==, 0xfec00000);
            g_assert_cmpuint(ld32(e + 8), ==, 0);
            s->ioapics++;
            break;
        case 2:
            g_assert_cmpuint(e[1], ==, 10);
            g_assert_cmpuint(e[2], ==, 0);      /* ISA */
            g_assert_cmpuint(e[3], <, 16);
            g_assert_false(s->override_seen[e[3]]);
            s->override_seen[e[3]] = true;
            s->override_gsi[e[3]] = ld32(e + 4);
            s->override_flags[e[3]] = ld16(e + 8);
            s->overrides++;
            break;
        case 4:
            g_assert_cmpuint(e[1], ==, 6);
            g_assert_cmphex(e[2], ==, 0xff);
            g_assert_cmphex(ld16(e + 3), ==, 0);
            g_assert_cmpuint(e[5], ==, 1);      /* LINT1 */
            s->nmis++;
            break;
        case 10:
            g_assert_cmpuint(e[1], ==, 12);
            g_assert_cmphex(ld32(e + 4), ==, 0xffffffff);
            g_assert_cmpuint(e[8], ==, 1);
            s->x2apic_nmis++;
            break;
        default:
            g_assert_not_reached();
        }
        off += e[1];
    }
    g_assert_cmpuint(off, ==, len);
}

static void check_pc_overrides(const MadtSummary *s)
{
    g_assert_cmpuint(s->overrides, ==, 2);
    g_assert_true(s->override_seen[0]);
    g_assert_cmpuint(s->override_gsi[0], ==, 2);
    g_assert_cmphex(s->override_flags[0], ==, 0);
    /* SCI: level, active high. */
    g_assert_true(s->override_seen[9]);
    g_assert_cmpuint(s->override_gsi[9], ==, 9);
    g_assert_cmphex(s->override_flags[9], ==, 0xd);
}

static void test_madt(const void *data)
{
    unsigned ncpus = GPOINTER_TO_UINT(data);
    Tables t = build_n(ncpus);
    MadtSummary s;

    madt_scan(madt(&t), &s);
    g_assert_cmpuint(s.lapics, ==, ncpus);
    g_assert_cmpuint(s.x2apics, ==, 0);
    for (unsigned i = 0; i < ncpus; i++) {
        g_assert_cmpuint(s.uids[i], ==, i);
        g_assert_cmpuint(s.apic_ids[i], ==, i);
    }
    g_assert_cmpuint(s.ioapics, ==, 1);
    g_assert_cmpuint(s.nmis, ==, 1);
    g_assert_cmpuint(s.x2apic_nmis, ==, 0);
    check_pc_overrides(&s);
    g_byte_array_unref(t.blob);
}

/* APIC IDs are the caller's: sparse ones (topology gaps) kept as given. */
static void test_madt_apic_ids(void)
{
    uint32_t ids[] = { 0, 1, 4, 5, 300 };
    Tables t = build(G_N_ELEMENTS(ids), ids, TEST_BASE);
    MadtSummary s;

    madt_scan(madt(&t), &s);
    g_assert_cmpuint(s.lapics, ==, 4);
    g_assert_cmpuint(s.x2apics, ==, 1);
    for (unsigned i = 0; i < G_N_ELEMENTS(ids); i++) {
        g_assert_cmpuint(s.apic_ids[i], ==, ids[i]);
        g_assert_cmpuint(s.uids[i], ==, i);
    }
    g_assert_cmpuint(s.x2apic_nmis, ==, 1);
    g_byte_array_unref(t.blob);
}

/* PCI-style shared IRQs (QEMU's 5, 9, 10, 11) become level overrides. */
static void test_madt_level_irqs(void)
{
    uint32_t id = 0;
    AcpiBuildConfig cfg = {
        .ncpus = 1, .apic_ids = &id, .pm_io_base = 0x600, .sci_irq = 9,
        .level_irq_mask = (1 << 5) | (1 << 9) | (1 << 10) | (1 << 11),
    };
    Tables t = { .base = TEST_BASE };
    MadtSummary s;

    t.blob = acpi_build_tables(&cfg, t.base, &t.rsdp_offset);
    madt_scan(madt(&t), &s);
    g_assert_cmpuint(s.overrides, ==, 5);
    for (int irq = 5; irq <= 11; irq++) {
        bool want = irq == 5 || irq >= 9;

        g_assert_cmpint(s.override_seen[irq], ==, want);
        if (want) {
            g_assert_cmpuint(s.override_gsi[irq], ==, irq);
            g_assert_cmphex(s.override_flags[irq], ==, 0xd);
        }
    }
    g_byte_array_unref(t.blob);
}

/* --- AML --- */

/* Decode a PkgLength at *p; returns the length and moves *p past it. */
static size_t aml_pkg_length(const uint8_t **p, const uint8_t *end)
{
    const uint8_t *q = *p;
    unsigned follow = q[0] >> 6;
    size_t len;

    g_assert_true(q + 1 + follow <= end);
    if (!follow) {
        len = q[0] & 0x3f;
    } else {
        g_assert_cmpuint(q[0] & 0x30, ==, 0);
        len = q[0] & 0x0f;
        for (unsigned i = 0; i < follow; i++) {
            len |= (size_t)q[1 + i] << (4 + 8 * i);
        }
    }
    *p = q + 1 + follow;
    return len;
}

/* A DataRefObject integer: Zero, One or a Byte/Word/DWord constant. */
static uint64_t aml_integer(const uint8_t **p)
{
    const uint8_t *q = *p;

    switch (q[0]) {
    case 0x00:
        *p = q + 1;
        return 0;
    case 0x01:
        *p = q + 1;
        return 1;
    case 0x0a:
        *p = q + 2;
        return q[1];
    case 0x0b:
        *p = q + 3;
        return ld16(q + 1);
    case 0x0c:
        *p = q + 5;
        return ld32(q + 1);
    default:
        g_assert_not_reached();
    }
}

/* Device (Cxxx) { Name (_HID, "ACPI0007") Name (_UID, uid) } */
static void check_processor(const uint8_t **p, const uint8_t *end,
                            unsigned uid)
{
    const uint8_t *q = *p, *start, *dev_end;
    char name[5];
    size_t len;

    g_assert_cmphex(q[0], ==, 0x5b);
    g_assert_cmphex(q[1], ==, 0x82);
    q += 2;
    start = q;
    len = aml_pkg_length(&q, end);
    dev_end = start + len;
    g_assert_true(dev_end <= end);
    g_snprintf(name, sizeof(name), "C%03X", uid);
    g_assert_cmpmem(q, 4, name, 4);
    q += 4;
    g_assert_cmpmem(q, 5, "\x08_HID", 5);
    q += 5;
    g_assert_cmpmem(q, 10, "\x0d" "ACPI0007", 10);
    q += 10;
    g_assert_cmpmem(q, 5, "\x08_UID", 5);
    q += 5;
    g_assert_cmpuint(aml_integer(&q), ==, uid);
    g_assert_true(q == dev_end);
    *p = q;
}

static void check_dsdt(unsigned ncpus)
{
    Tables t = build_n(ncpus);
    const uint8_t *d = dsdt(&t);
    const uint8_t *end = d + ld32(d + 4);
    const uint8_t *p = d + HEADER_SIZE, *start, *scope_end, *pkg_end;
    size_t len;

    /* Scope (\_SB) { processors } */
    g_assert_cmphex(*p++, ==, 0x10);
    start = p;
    len = aml_pkg_length(&p, end);
    scope_end = start + len;
    g_assert_true(scope_end <= end);
    g_assert_cmpmem(p, 5, "\\_SB_", 5);
    p += 5;
    for (unsigned i = 0; i < ncpus; i++) {
        check_processor(&p, scope_end, i);
    }
    g_assert_true(p == scope_end);

    /* Name (_S5, Package (4) { 0, 0, 0, 0 }) */
    g_assert_cmpmem(p, 5, "\x08_S5_", 5);
    p += 5;
    g_assert_cmphex(*p++, ==, 0x12);
    start = p;
    len = aml_pkg_length(&p, end);
    pkg_end = start + len;
    g_assert_cmpuint(*p++, ==, 4);
    g_assert_cmpuint(aml_integer(&p), ==, ACPI_PM_SLP_TYP_S5);
    g_assert_cmpuint(aml_integer(&p), ==, ACPI_PM_SLP_TYP_S5);
    g_assert_cmpuint(aml_integer(&p), ==, 0);
    g_assert_cmpuint(aml_integer(&p), ==, 0);
    g_assert_true(p == pkg_end);
    /* Nothing else: no _S3, no _S4. */
    g_assert_true(p == end);
    g_byte_array_unref(t.blob);
}

static void test_dsdt(const void *data)
{
    check_dsdt(GPOINTER_TO_UINT(data));
}

/* Any base works; the FACS still lands on a 64-byte boundary. */
static void test_unaligned_base(void)
{
    uint32_t id = 0;
    Tables t = build(1, &id, 0x9f010);
    const uint8_t *f = fadt(&t);

    g_assert_cmpuint(ld32(f + FADT_FIRMWARE_CTRL) % 64, ==, 0);
    g_assert_cmpuint((t.base + t.rsdp_offset) % 16, ==, 0);
    dsdt(&t);
    madt(&t);
    g_byte_array_unref(t.blob);
}

/* --- iasl --- */

static void dump(const char *dir, const char *name, const uint8_t *p,
                 size_t len)
{
    g_autofree char *path = g_build_filename(dir, name, NULL);
    GError *err = NULL;

    g_assert_true(g_file_set_contents(path, (const char *)p, len, &err));
    g_assert_no_error(err);
}

/*
 * iasl -d NAME in dir: exit 0, no error lines, a .dsl without alarms.
 * (iasl cannot load an RSDP from a file; test_rsdp checks it.)
 */
static char *disassemble(const char *dir, const char *name)
{
    const char *argv[] = { "iasl", "-d", name, NULL };
    g_autofree char *out = NULL, *err_out = NULL;
    char *dsl = NULL;
    g_autofree char *all = NULL;
    g_autofree char *base = g_strndup(name, strlen(name) - 4);
    g_autofree char *dsl_name = g_strconcat(base, ".dsl", NULL);
    g_autofree char *dsl_path = g_build_filename(dir, dsl_name, NULL);
    g_auto(GStrv) lines = NULL;
    GError *err = NULL;
    int status;

    g_assert_true(g_spawn_sync(dir, (char **)argv, NULL, G_SPAWN_SEARCH_PATH,
                               NULL, NULL, &out, &err_out, &status, &err));
    g_assert_no_error(err);
    if (g_test_verbose()) {
        g_test_message("iasl -d %s:\n%s%s", name, out, err_out);
    }
    if (!g_spawn_check_wait_status(status, &err)) {
        g_test_message("iasl -d %s:\n%s%s", name, out, err_out);
        g_assert_no_error(err);
    }
    all = g_strconcat(out, err_out, NULL);
    lines = g_strsplit(all, "\n", -1);
    for (char **l = lines; *l; l++) {
        if (strstr(*l, "Error") || strstr(*l, "Warning")) {
            g_test_message("iasl -d %s: %s", name, *l);
            g_test_fail();
        }
    }
    g_assert_true(g_file_get_contents(dsl_path, &dsl, NULL, &err));
    g_assert_no_error(err);
    /* Checksum and length problems are reported inside the listing. */
    g_assert_null(strstr(dsl, "Incorrect"));
    g_assert_null(strstr(dsl, "****"));
    g_assert_null(strstr(dsl, "Invalid"));
    return dsl;
}

static void test_iasl(const void *data)
{
    unsigned ncpus = GPOINTER_TO_UINT(data);
    g_autofree char *iasl = g_find_program_in_path("iasl");
    g_autofree char *dir = NULL;
    GError *err = NULL;
    Tables t;
    const uint8_t *f;
    struct {
        const char *name;
        const uint8_t *p;
        size_t len;
    } files[6];

    if (!iasl) {
        g_test_skip("iasl not installed");
        return;
    }
    dir = g_dir_make_tmp("test-acpi-XXXXXX", &err);
    g_assert_no_error(err);

    t = build_n(ncpus);
    f = fadt(&t);
    files[0].name = "facp.dat";
    files[0].p = f;
    files[1].name = "dsdt.dat";
    files[1].p = dsdt(&t);
    files[2].name = "apic.dat";
    files[2].p = madt(&t);
    files[3].name = "rsdt.dat";
    files[3].p = table(&t, ld32(rsdp(&t) + 16), "RSDT", 1);
    files[4].name = "xsdt.dat";
    files[4].p = table(&t, xsdt_addr(&t), "XSDT", 1);
    for (int i = 0; i < 5; i++) {
        files[i].len = ld32(files[i].p + 4);
    }
    files[5].name = "facs.dat";
    files[5].p = at(&t, ld32(f + FADT_FIRMWARE_CTRL), ACPI_FACS_SIZE);
    files[5].len = ACPI_FACS_SIZE;

    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        dump(dir, files[i].name, files[i].p, files[i].len);
        g_free(disassemble(dir, files[i].name));
    }

    if (!g_test_failed()) {
        GDir *d = g_dir_open(dir, 0, NULL);
        const char *name;

        while ((name = g_dir_read_name(d))) {
            g_autofree char *path = g_build_filename(dir, name, NULL);

            g_unlink(path);
        }
        g_dir_close(d);
        g_rmdir(dir);
    } else {
        g_test_message("tables and listings kept in %s", dir);
    }
    g_byte_array_unref(t.blob);
}

/*
 * iasl's listing of the table at p (one of t's; the DSDT when p is NULL)
 * must hold every line of expect.
 */
static void check_listing(Tables t, const uint8_t *p,
                          const char *const *expect, size_t n)
{
    g_autofree char *iasl = g_find_program_in_path("iasl");
    g_autofree char *dir = NULL, *dsl = NULL;
    GError *err = NULL;

    if (!iasl) {
        g_byte_array_unref(t.blob);
        g_test_skip("iasl not installed");
        return;
    }
    dir = g_dir_make_tmp("test-acpi-XXXXXX", &err);
    g_assert_no_error(err);
    if (!p) {
        p = dsdt(&t);
    }
    dump(dir, "table.dat", p, ld32(p + 4));
    dsl = disassemble(dir, "table.dat");
    for (size_t i = 0; i < n; i++) {
        if (!strstr(dsl, expect[i])) {
            g_test_message("missing in the %.4s: %s", (const char *)p,
                           expect[i]);
            g_test_fail();
        }
    }
    if (g_test_failed()) {
        g_test_message("%s", dsl);
    } else {
        g_autofree char *dat = g_build_filename(dir, "table.dat", NULL);
        g_autofree char *dslp = g_build_filename(dir, "table.dsl", NULL);

        g_unlink(dat);
        g_unlink(dslp);
        g_rmdir(dir);
    }
    g_byte_array_unref(t.blob);
}

static void check_dsdt_listing(Tables t, const char *const *expect, size_t n)
{
    check_listing(t, NULL, expect, n);
}

/*
 * The root bridge as iasl reads it back: QEMU's _HID, windows and
 * routing (slot S pin P on link (S + P - 1) mod 4), and the links' IRQs.
 */
static void test_dsdt_pci(void)
{
    static const char *const expect[] = {
        "Device (PCI0)",
        "Name (_HID, EisaId (\"PNP0A03\")",
        "WordBusNumber (ResourceProducer, MinFixed, MaxFixed, PosDecode,",
        "0x0CF8,             // Range Minimum",
        "0x0CF7,             // Range Maximum",
        "0x0D00,             // Range Minimum",
        "0x000A0000,         // Range Minimum",
        "0x08000000,         // Range Minimum",
        "0xFEBFFFFF,         // Range Maximum",
        "0xF6C00000,         // Length",
        "0x0000000100000000, // Range Minimum",
        "0x000000017FFFFFFF, // Range Maximum",
        "Name (_PRT, Package (0x80)",
        "0x0002FFFF, \n                    0x03, \n                    "
        "LNKA, ",
        "Device (LNKD)",
        "Name (_HID, EisaId (\"PNP0C0F\")",
        "Interrupt (ResourceConsumer, Level, ActiveHigh, Shared, ,, )\n"
        "                {\n                    0x0000000B,",
        "Method (_SRS, 1, NotSerialized)",
    };

    check_dsdt_listing(build_pci(false, false), expect, G_N_ELEMENTS(expect));
}

/*
 * A pvpanic device as QEMU 7.2 declares it, which Linux's pvpanic driver
 * finds by its _HID: its port in _CRS, the register as a field, and the
 * methods that read and write it.
 */
static void test_dsdt_pvpanic(void)
{
    static const char *const expect[] = {
        "Device (PEVT)",
        "Name (_HID, \"QEMU0001\")",
        "IO (Decode16,\n                        0x0505,             "
        "// Range Minimum\n                        0x0505,             "
        "// Range Maximum\n                        0x01,               "
        "// Alignment\n                        0x01,               "
        "// Length",
        "OperationRegion (PEOR, SystemIO, 0x0505, One)",
        "Field (PEOR, ByteAcc, NoLock, Preserve)\n",
        "PEPT,   8",
        "Name (_STA, 0x0F)",
        "Method (RDPT, 0, NotSerialized)\n                {\n"
        "                    Local0 = PEPT /* \\_SB_.PCI0.PEVT.PEPT */\n"
        "                    Return (Local0)",
        "Method (WRPT, 1, NotSerialized)\n                {\n"
        "                    PEPT = Arg0",
    };

    check_dsdt_listing(build_pci(true, false), expect, G_N_ELEMENTS(expect));
}

/*
 * The HPET table as QEMU's: block ID 0x8086a201 (Intel, legacy capable,
 * 64-bit, 3 timers), the registers at 0xfed00000 in system memory, HPET
 * number 0; listed after the MADT in both RSDT and XSDT. None without
 * the HPET.
 */
static void test_hpet(void)
{
    Tables t = build_pci(false, true);
    const uint8_t *h = find(&t, "HPET", 1);
    const uint8_t *x = table(&t, xsdt_addr(&t), "XSDT", 1);
    const uint8_t *r = table(&t, ld32(rsdp(&t) + 16), "RSDT", 1);
    uint64_t addr = h - t.blob->data + t.base;

    g_assert_cmpuint(ld32(h + 4), ==, 56);
    g_assert_cmphex(ld32(h + 36), ==, 0x8086a201);
    g_assert_cmpuint(h[40], ==, 0);             /* system memory */
    g_assert_cmpuint(h[41], ==, 0);
    g_assert_cmpuint(h[42], ==, 0);
    g_assert_cmpuint(h[43], ==, 0);
    g_assert_cmphex(ld64(h + 44), ==, 0xfed00000);
    g_assert_cmpuint(h[52], ==, 0);             /* HPET number */
    g_assert_cmpuint(ld16(h + 53), ==, 0);      /* minimum tick */
    g_assert_cmpuint(h[55], ==, 0);             /* page protection */
    g_assert_cmpuint(ld32(x + 4), ==, HEADER_SIZE + 3 * 8);
    g_assert_cmphex(ld64(x + HEADER_SIZE + 16), ==, addr);
    g_assert_cmpuint(ld32(r + 4), ==, HEADER_SIZE + 3 * 4);
    g_assert_cmphex(ld32(r + HEADER_SIZE + 8), ==, addr);
    g_byte_array_unref(t.blob);

    t = build_pci(false, false);
    g_assert_null(find_opt(&t, "HPET", 1));
    g_byte_array_unref(t.blob);
}

/*
 * The i8042's keyboard and mouse under \\_SB.PCI0.ISA, as QEMU's pc has
 * them: Linux's i8042 driver finds the controller by their _HIDs.
 */
static void test_dsdt_i8042(void)
{
    static const char *const expect[] = {
        "Device (ISA)",
        "Name (_ADR, 0x00010000)",
        "Device (KBD)",
        "Name (_HID, EisaId (\"PNP0303\")",
        "0x0060,             // Range Minimum",
        "0x0064,             // Range Minimum",
        "IRQNoFlags ()\n                            {1}",
        "Device (MOU)",
        "Name (_HID, EisaId (\"PNP0F13\")",
        "IRQNoFlags ()\n                            {12}",
    };

    check_dsdt_listing(build_pci(false, false), expect,
                       G_N_ELEMENTS(expect));
}

/* iasl reads the HPET table back as QEMU's. */
static void test_iasl_hpet(void)
{
    static const char *const expect[] = {
        "Hardware Block ID : 8086A201",
        "Address : 00000000FED00000",
    };
    Tables t = build_pci(false, true);

    check_listing(t, find(&t, "HPET", 1), expect, G_N_ELEMENTS(expect));
}

/* Device (HPET) in \_SB as iasl reads it back. */
static void test_dsdt_hpet(void)
{
    static const char *const expect[] = {
        "Device (HPET)",
        "Name (_HID, EisaId (\"PNP0103\")",
        "Name (_UID, Zero)",
        "Name (_STA, 0x0F)",
        "Memory32Fixed (ReadOnly,\n                    0xFED00000,         "
        "// Address Base\n                    0x00000400,         "
        "// Address Length",
    };

    check_dsdt_listing(build_pci(false, true), expect, G_N_ELEMENTS(expect));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    g_test_add_func("/acpi/rsdp", test_rsdp);
    g_test_add_func("/acpi/rsdt-xsdt", test_rsdt_xsdt);
    g_test_add_func("/acpi/fadt", test_fadt);
    g_test_add_func("/acpi/fadt/options", test_fadt_options);
    g_test_add_data_func("/acpi/madt/1cpu", GUINT_TO_POINTER(1), test_madt);
    g_test_add_data_func("/acpi/madt/4cpu", GUINT_TO_POINTER(4), test_madt);
    g_test_add_func("/acpi/madt/apic-ids", test_madt_apic_ids);
    g_test_add_func("/acpi/madt/level-irqs", test_madt_level_irqs);
    g_test_add_data_func("/acpi/dsdt/1cpu", GUINT_TO_POINTER(1), test_dsdt);
    g_test_add_data_func("/acpi/dsdt/4cpu", GUINT_TO_POINTER(4), test_dsdt);
    /* Enough processors that the scope needs a multi-byte PkgLength. */
    g_test_add_data_func("/acpi/dsdt/255cpu", GUINT_TO_POINTER(255),
                         test_dsdt);
    g_test_add_func("/acpi/unaligned-base", test_unaligned_base);
    g_test_add_func("/acpi/dsdt/pci", test_dsdt_pci);
    g_test_add_func("/acpi/dsdt/pvpanic", test_dsdt_pvpanic);
    g_test_add_func("/acpi/hpet", test_hpet);
    g_test_add_func("/acpi/dsdt/hpet", test_dsdt_hpet);
    g_test_add_func("/acpi/dsdt/i8042", test_dsdt_i8042);
    g_test_add_func("/acpi/iasl/hpet", test_iasl_hpet);
    g_test_add_data_func("/acpi/iasl/1cpu", GUINT_TO_POINTER(1), test_iasl);
    g_test_add_data_func("/acpi/iasl/4cpu", GUINT_TO_POINTER(4), test_iasl);
    g_test_add_data_func("/acpi/iasl/255cpu", GUINT_TO_POINTER(255),
                         test_iasl);
    return g_test_run();
}
