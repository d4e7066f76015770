/*
 * ACPI tables of the pc machine, written from the ACPI specification
 * (6.x): FACS, DSDT, FADT (revision 6), MADT, the HPET table when the
 * machine has one, RSDT, XSDT and an RSDP of revision 2, all in one blob. The DSDT's AML is hand-encoded with a few
 * helpers below; it only holds what a guest needs to boot and power off:
 * a processor device per vCPU, the PCI root bridge with its windows and
 * interrupt routing (through four PIRQ link devices), and the _S5
 * package.
 */
#include <assert.h>
#include <string.h>

#include "hw/acpi/pm.h"
#include "hw/i386/acpi-build.h"
#include "hw/timer/hpet.h"
#include "qemu/byte-array.h"

#define ACPI_HEADER_SIZE        36
#define ACPI_TABLE_ALIGN        16

/* Generic Address Structure: address space IDs and access sizes. */
#define ACPI_GAS_SYSTEM_IO      1
#define ACPI_GAS_ACCESS_ANY     0
#define ACPI_GAS_ACCESS_BYTE    1

/* FADT flags. */
#define FADT_F_WBINVD           (1u << 0)
#define FADT_F_PROC_C1          (1u << 2)
#define FADT_F_SLP_BUTTON       (1u << 5)   /* no fixed sleep button */
#define FADT_F_FIX_RTC          (1u << 6)   /* no RTC wake in PM1 */
#define FADT_F_RESET_REG_SUP    (1u << 10)
#define FADT_F_USE_PLATFORM_CLOCK (1u << 15)
#define FADT_F_FORCE_APIC_PHYS  (1u << 19)
/* IA-PC boot architecture flags. */
#define FADT_BOOT_LEGACY_DEVICES (1u << 0)
#define FADT_BOOT_8042          (1u << 1)
#define FADT_REVISION           6
#define FADT_MINOR_REVISION     0
#define FADT_SIZE               276
#define FADT_CENTURY            0x32        /* CMOS index of the century */
/* C2/C3 latencies beyond these limits mean "not supported". */
#define FADT_NO_C2_LATENCY      0x0fff
#define FADT_NO_C3_LATENCY      0x0fff

/* MADT entries. */
#define MADT_REVISION           3
#define MADT_PCAT_COMPAT        (1u << 0)
#define MADT_LOCAL_APIC         0
#define MADT_IO_APIC            1
#define MADT_INT_OVERRIDE       2
#define MADT_LOCAL_APIC_NMI     4
#define MADT_LOCAL_X2APIC       9
#define MADT_LOCAL_X2APIC_NMI   10
#define MADT_LAPIC_ENABLED      (1u << 0)
/* MPS INTI flags: polarity in bits 0-1, trigger mode in bits 2-3. */
#define MPS_INTI_CONFORMS       0x0
#define MPS_INTI_ACTIVE_HIGH    0x1
#define MPS_INTI_LEVEL          (0x3 << 2)
#define MADT_ALL_PROCESSORS     0xff
#define MADT_NMI_LINT           1           /* NMI is wired to LINT1 */

#define DSDT_REVISION           2           /* 64-bit AML integers */
#define FACS_VERSION            2

/* AML opcodes (ACPI 6, chapter 20). */
#define AML_ZERO_OP             0x00
#define AML_ONE_OP              0x01
#define AML_NAME_OP             0x08
#define AML_BYTE_PREFIX         0x0a
#define AML_WORD_PREFIX         0x0b
#define AML_DWORD_PREFIX        0x0c
#define AML_STRING_PREFIX       0x0d
#define AML_QWORD_PREFIX        0x0e
#define AML_SCOPE_OP            0x10
#define AML_BUFFER_OP           0x11
#define AML_PACKAGE_OP          0x12
#define AML_METHOD_OP           0x14
#define AML_STORE_OP            0x70
#define AML_RETURN_OP           0xa4
#define AML_LOCAL0_OP           0x60
#define AML_ARG0_OP             0x68
#define AML_EXT_OP_PREFIX       0x5b
#define AML_OPREGION_OP         0x80        /* after AML_EXT_OP_PREFIX */
#define AML_FIELD_OP            0x81        /* after AML_EXT_OP_PREFIX */
#define AML_DEVICE_OP           0x82        /* after AML_EXT_OP_PREFIX */
#define AML_SYSTEM_IO           0x01        /* OperationRegion space */
#define AML_FIELD_BYTE_ACC      0x01        /* NoLock, Preserve */
#define AML_ROOT_CHAR           0x5c        /* '\' */

/* Resource descriptors (ACPI 6, 6.4). */
#define RES_IRQ_NO_FLAGS        0x22        /* small: IRQ mask, 2 bytes */
#define RES_IO_PORT             0x47        /* small: I/O, 7 bytes of data */
#define RES_MEMORY32_FIXED      0x86
#define RES_END_TAG             0x79
#define RES_DWORD_ADDRESS       0x87
#define RES_WORD_ADDRESS        0x88
#define RES_EXT_IRQ             0x89
#define RES_QWORD_ADDRESS       0x8a
#define RES_TYPE_MEMORY         0
#define RES_TYPE_IO             1
#define RES_TYPE_BUS            2
/* General flags: producer, positive decode, min and max fixed. */
#define RES_PRODUCER_FIXED      0x0c
#define RES_IO_ENTIRE_RANGE     0x03
#define RES_MEM_RW              0x01
#define RES_MEM_CACHEABLE       0x02
/* Extended interrupt flags: consumer, level, active high, shared. */
#define RES_IRQ_LEVEL_HIGH_SHARED 0x09

/* EisaId ("PNP0A03"), the PCI host bridge, and ("PNP0C0F"), a link. */
#define EISA_PNP0A03            0x030ad041u
#define EISA_PNP0C0F            0x0f0cd041u
#define EISA_PNP0103            0x0301d041u /* the HPET */
#define EISA_PNP0303            0x0303d041u /* PS/2 keyboard (i8042) */
#define EISA_PNP0F13            0x130fd041u /* PS/2 mouse */
#define PC_ISA_ADR              0x00010000u /* the PIIX3 at 01.0 */

/* HPET table: the block ID is QEMU's (its hpet's 3 timers, 64-bit). */
#define HPET_TABLE_REVISION     1
#define HPET_TABLE_BLOCK_ID     (HPET_ID_VENDOR | HPET_ID_LEG_RT_CAP | \
                                 HPET_ID_COUNT_SIZE_CAP | \
                                 (HPET_DEFAULT_TIMERS - 1) << \
                                 HPET_ID_NUM_TIM_SHIFT | HPET_ID_REV)
#define ACPI_GAS_SYSTEM_MEMORY  0
#define PCI_SLOTS               32

/* --- little-endian bytes --- */

static void put_bytes(GByteArray *a, const char *s, size_t len)
{
    g_byte_array_append(a, (const guint8 *)s, len);
}

static void put_zeros(GByteArray *a, size_t len)
{
    while (len--) {
        byte_array_put8(a, 0);
    }
}

static void patch32(GByteArray *a, size_t off, uint32_t v)
{
    for (int i = 0; i < 4; i++) {
        a->data[off + i] = v >> (8 * i);
    }
}

/* Generic Address Structure (12 bytes). */
static void put_gas(GByteArray *a, uint8_t space, uint8_t bit_width,
                    uint8_t access, uint64_t addr)
{
    byte_array_put8(a, space);
    byte_array_put8(a, bit_width);
    byte_array_put8(a, 0);                 /* bit offset */
    byte_array_put8(a, access);
    byte_array_put64(a, addr);
}

uint8_t acpi_checksum(const uint8_t *data, size_t len)
{
    uint8_t sum = 0;

    while (len--) {
        sum += *data++;
    }
    return sum;
}

/*
 * Pad the blob so the next table starts at an absolute address that is
 * a multiple of align (a power of two).
 */
static void align_blob(GByteArray *blob, uint64_t base, uint64_t align)
{
    while ((base + blob->len) & (align - 1)) {
        byte_array_put8(blob, 0);
    }
}

/* Start a table with the common header; returns its offset. */
static size_t table_begin(GByteArray *blob, const char *sig, uint8_t rev)
{
    size_t off = blob->len;

    put_bytes(blob, sig, 4);
    byte_array_put32(blob, 0);             /* length, set by table_end() */
    byte_array_put8(blob, rev);
    byte_array_put8(blob, 0);              /* checksum, set by table_end() */
    put_bytes(blob, ACPI_BUILD_OEM_ID, 6);
    put_bytes(blob, ACPI_BUILD_OEM_TABLE_ID, 8);
    byte_array_put32(blob, 1);             /* OEM revision */
    put_bytes(blob, ACPI_BUILD_CREATOR_ID, 4);
    byte_array_put32(blob, 1);             /* creator revision */
    return off;
}

static void table_end(GByteArray *blob, size_t off)
{
    patch32(blob, off + 4, blob->len - off);
    blob->data[off + 9] = -acpi_checksum(blob->data + off, blob->len - off);
}

/* --- AML --- */

static void aml_nameseg(GByteArray *a, const char *seg)
{
    assert(strlen(seg) == 4);
    put_bytes(a, seg, 4);
}

static void aml_integer(GByteArray *a, uint64_t v)
{
    if (v == 0) {
        byte_array_put8(a, AML_ZERO_OP);
    } else if (v == 1) {
        byte_array_put8(a, AML_ONE_OP);
    } else if (v <= 0xff) {
        byte_array_put8(a, AML_BYTE_PREFIX);
        byte_array_put8(a, v);
    } else if (v <= 0xffff) {
        byte_array_put8(a, AML_WORD_PREFIX);
        byte_array_put16(a, v);
    } else if (v <= 0xffffffff) {
        byte_array_put8(a, AML_DWORD_PREFIX);
        byte_array_put32(a, v);
    } else {
        byte_array_put8(a, AML_QWORD_PREFIX);
        byte_array_put64(a, v);
    }
}

static void aml_string(GByteArray *a, const char *s)
{
    byte_array_put8(a, AML_STRING_PREFIX);
    g_byte_array_append(a, (const guint8 *)s, strlen(s) + 1);
}

/* Name (seg, ...): the caller appends the data object. */
static void aml_name(GByteArray *a, const char *seg)
{
    byte_array_put8(a, AML_NAME_OP);
    aml_nameseg(a, seg);
}

/*
 * PkgLength counts itself: one byte holds up to 63; otherwise the low
 * nibble goes in the lead byte (whose bits 6-7 count the bytes that
 * follow) and the rest in whole bytes.
 */
static void aml_pkg_length(GByteArray *a, size_t body_len)
{
    size_t follow, total;

    if (body_len + 1 <= 0x3f) {
        byte_array_put8(a, body_len + 1);
        return;
    }
    for (follow = 1; follow <= 3; follow++) {
        total = body_len + 1 + follow;
        if (total < (1u << (4 + 8 * follow))) {
            break;
        }
    }
    assert(follow <= 3);
    byte_array_put8(a, (follow << 6) | (total & 0x0f));
    for (size_t i = 0; i < follow; i++) {
        byte_array_put8(a, total >> (4 + 8 * i));
    }
}

/* op [ext] PkgLength body: Scope, Device and Package all look so. */
static void aml_wrap(GByteArray *a, const uint8_t *op, size_t op_len,
                     GByteArray *body)
{
    g_byte_array_append(a, op, op_len);
    aml_pkg_length(a, body->len);
    g_byte_array_append(a, body->data, body->len);
    g_byte_array_unref(body);
}

/* Device (NAME) { Name (_HID, "ACPI0007") Name (_UID, uid) } */
static void aml_processor_device(GByteArray *a, unsigned uid)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    GByteArray *body = g_byte_array_new();
    char seg[8];

    g_snprintf(seg, sizeof(seg), "C%03X", uid);
    aml_nameseg(body, seg);
    aml_name(body, "_HID");
    aml_string(body, "ACPI0007");
    aml_name(body, "_UID");
    aml_integer(body, uid);
    aml_wrap(a, op, sizeof(op), body);
}

/* Name (_S5, Package (4) { SLP_TYP a, SLP_TYP b, 0, 0 }) */
static void aml_sleep_state(GByteArray *a, const char *seg, uint8_t slp_typ)
{
    static const uint8_t op[] = { AML_PACKAGE_OP };
    GByteArray *body = g_byte_array_new();

    byte_array_put8(body, 4);              /* NumElements */
    aml_integer(body, slp_typ); /* PM1a_CNT.SLP_TYP */
    aml_integer(body, slp_typ); /* PM1b_CNT.SLP_TYP (no PM1b block) */
    aml_integer(body, 0);
    aml_integer(body, 0);
    aml_name(a, seg);
    aml_wrap(a, op, sizeof(op), body);
}

/* --- the PCI root bridge --- */

/* Word/DWord/QWord Address Space Descriptor: producer, fixed window. */
static void res_address(GByteArray *a, unsigned width, uint8_t type,
                        uint8_t type_flags, uint64_t min, uint64_t max)
{
    static const uint8_t tags[] = {
        [2] = RES_WORD_ADDRESS, [4] = RES_DWORD_ADDRESS,
        [8] = RES_QWORD_ADDRESS,
    };
    const uint64_t fields[] = { 0, min, max, 0, max - min + 1 };

    byte_array_put8(a, tags[width]);
    byte_array_put16(a, 3 + 5 * width);
    byte_array_put8(a, type);
    byte_array_put8(a, RES_PRODUCER_FIXED);
    byte_array_put8(a, type_flags);
    /* Granularity, minimum, maximum, translation offset, length. */
    for (size_t i = 0; i < G_N_ELEMENTS(fields); i++) {
        for (unsigned b = 0; b < width; b++) {
            byte_array_put8(a, fields[i] >> (8 * b));
        }
    }
}

/* Name (seg, ResourceTemplate () { ... EndTag }): takes res. */
static void aml_resource_template(GByteArray *a, const char *seg,
                                  GByteArray *res)
{
    static const uint8_t op[] = { AML_BUFFER_OP };
    GByteArray *body = g_byte_array_new();

    byte_array_put8(res, RES_END_TAG);
    byte_array_put8(res, 0);               /* checksum 0: "treat as correct" */
    aml_integer(body, res->len);
    g_byte_array_append(body, res->data, res->len);
    g_byte_array_unref(res);
    aml_name(a, seg);
    aml_wrap(a, op, sizeof(op), body);
}

/*
 * The root bridge's windows, as QEMU's pc declares them: bus numbers
 * 0-255, the config ports, the ports below and above them, the VGA
 * window, the 32-bit hole and the 64-bit one.
 */
static void aml_pci_crs(GByteArray *a, const AcpiBuildConfig *cfg)
{
    GByteArray *res = g_byte_array_new();

    res_address(res, 2, RES_TYPE_BUS, 0, 0, 0xff);
    byte_array_put8(res, RES_IO_PORT);
    byte_array_put8(res, 0x01);            /* 16-bit decode */
    byte_array_put16(res, 0xcf8);
    byte_array_put16(res, 0xcf8);
    byte_array_put8(res, 0x01);            /* alignment */
    byte_array_put8(res, 0x08);            /* length */
    res_address(res, 2, RES_TYPE_IO, RES_IO_ENTIRE_RANGE, 0, 0xcf7);
    res_address(res, 2, RES_TYPE_IO, RES_IO_ENTIRE_RANGE, 0xd00, 0xffff);
    res_address(res, 4, RES_TYPE_MEMORY, RES_MEM_RW | RES_MEM_CACHEABLE,
                0xa0000, 0xbffff);
    res_address(res, 4, RES_TYPE_MEMORY, RES_MEM_RW, cfg->pci_hole_start,
                cfg->pci_hole_end - 1);
    if (cfg->pci_hole64_end > cfg->pci_hole64_start) {
        res_address(res, 8, RES_TYPE_MEMORY, RES_MEM_RW | RES_MEM_CACHEABLE,
                    cfg->pci_hole64_start, cfg->pci_hole64_end - 1);
    }
    aml_resource_template(a, "_CRS", res);
}

/*
 * Name (_PRT, Package () { Package () { 0xSSSSFFFF, pin, LNKx, 0 } ... }):
 * slot S pin P is PIRQ (S + P - 1) mod 4, the pc's swizzle.
 */
static void aml_pci_prt(GByteArray *a)
{
    static const uint8_t op[] = { AML_PACKAGE_OP };
    GByteArray *body = g_byte_array_new();

    byte_array_put8(body, PCI_SLOTS * 4);
    for (unsigned slot = 0; slot < PCI_SLOTS; slot++) {
        for (unsigned pin = 0; pin < 4; pin++) {
            GByteArray *e = g_byte_array_new();
            char link[5];

            g_snprintf(link, sizeof(link), "LNK%c", 'A' + (slot + pin + 3) % 4);
            byte_array_put8(e, 4);
            byte_array_put8(e, AML_DWORD_PREFIX);
            byte_array_put32(e, slot << 16 | 0xffff);
            aml_integer(e, pin);
            aml_nameseg(e, link);
            aml_integer(e, 0);
            aml_wrap(body, op, sizeof(op), e);
        }
    }
    aml_name(a, "_PRT");
    aml_wrap(a, op, sizeof(op), body);
}

/* Method (seg, nargs, NotSerialized) { body } */
static void aml_method(GByteArray *a, const char *seg, unsigned nargs,
                       const uint8_t *code, size_t len)
{
    GByteArray *body = g_byte_array_new();

    aml_nameseg(body, seg);
    byte_array_put8(body, nargs);
    g_byte_array_append(body, code, len);
    aml_wrap(a, (const uint8_t[]){ AML_METHOD_OP }, 1, body);
}

/*
 * Device (PEVT): the ISA pvpanic device as QEMU 7.2 declares it: _HID
 * "QEMU0001", its port in _CRS, the port as the field PEPT of region
 * PEOR with the methods RDPT (read) and WRPT (write), _STA 0x0F.
 */
/* IO (Decode16, port, port, 1, len) */
static void res_io(GByteArray *res, uint16_t port, uint8_t len)
{
    byte_array_put8(res, RES_IO_PORT);
    byte_array_put8(res, 0x01);            /* 16-bit decode */
    byte_array_put16(res, port);
    byte_array_put16(res, port);
    byte_array_put8(res, 0x01);            /* alignment */
    byte_array_put8(res, len);
}

/* IRQNoFlags () { irq } */
static void res_irq(GByteArray *res, unsigned irq)
{
    byte_array_put8(res, RES_IRQ_NO_FLAGS);
    byte_array_put16(res, 1u << irq);
}

/* Device (seg) { _HID hid, _STA 0x0F, _CRS res }: takes res. */
static void aml_isa_device(GByteArray *a, const char *seg, uint32_t hid,
                           GByteArray *res)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    GByteArray *body = g_byte_array_new();

    aml_nameseg(body, seg);
    aml_name(body, "_HID");
    aml_integer(body, hid);
    aml_name(body, "_STA");
    aml_integer(body, 0x0f);
    aml_resource_template(body, "_CRS", res);
    aml_wrap(a, op, sizeof(op), body);
}

/*
 * Device (ISA) at the PIIX3 with the i8042's two devices as QEMU's pc
 * declares them: KBD (PNP0303: ports 0x60 and 0x64, IRQ 1) and MOU
 * (PNP0F13: IRQ 12), which Linux's i8042 driver finds by PNP.
 */
static void aml_isa_bridge(GByteArray *a)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    GByteArray *body = g_byte_array_new(), *kbd = g_byte_array_new();
    GByteArray *mou = g_byte_array_new();

    aml_nameseg(body, "ISA_");
    aml_name(body, "_ADR");
    aml_integer(body, PC_ISA_ADR);
    res_io(kbd, 0x60, 1);
    res_io(kbd, 0x64, 1);
    res_irq(kbd, 1);
    aml_isa_device(body, "KBD_", EISA_PNP0303, kbd);
    res_irq(mou, 12);
    aml_isa_device(body, "MOU_", EISA_PNP0F13, mou);
    aml_wrap(a, op, sizeof(op), body);
}

static void aml_pvpanic(GByteArray *a, uint16_t port)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    static const uint8_t field_op[] = { AML_EXT_OP_PREFIX, AML_FIELD_OP };
    static const uint8_t rdpt[] = {
        AML_STORE_OP, 'P', 'E', 'P', 'T', AML_LOCAL0_OP,
        AML_RETURN_OP, AML_LOCAL0_OP,
    };
    static const uint8_t wrpt[] = {
        AML_STORE_OP, AML_ARG0_OP, 'P', 'E', 'P', 'T',
    };
    GByteArray *body = g_byte_array_new(), *res = g_byte_array_new();
    GByteArray *field = g_byte_array_new();

    aml_nameseg(body, "PEVT");
    aml_name(body, "_HID");
    aml_string(body, "QEMU0001");
    res_io(res, port, 1);
    aml_resource_template(body, "_CRS", res);
    /* OperationRegion (PEOR, SystemIO, port, 1) */
    byte_array_put8(body, AML_EXT_OP_PREFIX);
    byte_array_put8(body, AML_OPREGION_OP);
    aml_nameseg(body, "PEOR");
    byte_array_put8(body, AML_SYSTEM_IO);
    aml_integer(body, port);
    aml_integer(body, 1);
    /* Field (PEOR, ByteAcc, NoLock, Preserve) { PEPT, 8 } */
    aml_nameseg(field, "PEOR");
    byte_array_put8(field, AML_FIELD_BYTE_ACC);
    aml_nameseg(field, "PEPT");
    byte_array_put8(field, 8);
    aml_wrap(body, field_op, sizeof(field_op), field);
    aml_name(body, "_STA");
    aml_integer(body, 0x0f);    /* present, enabled, shown, functioning */
    aml_method(body, "RDPT", 0, rdpt, sizeof(rdpt));
    aml_method(body, "WRPT", 1, wrpt, sizeof(wrpt));
    aml_wrap(a, op, sizeof(op), body);
}

static void aml_pci_root(GByteArray *a, const AcpiBuildConfig *cfg)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    GByteArray *body = g_byte_array_new();

    aml_nameseg(body, "PCI0");
    aml_name(body, "_HID");
    aml_integer(body, EISA_PNP0A03);
    aml_name(body, "_ADR");
    aml_integer(body, 0);
    aml_name(body, "_UID");
    aml_integer(body, 0);
    aml_pci_crs(body, cfg);
    aml_pci_prt(body);
    if (cfg->has_i8042) {
        aml_isa_bridge(body);
    }
    if (cfg->has_pvpanic) {
        aml_pvpanic(body, cfg->pvpanic_port);
    }
    aml_wrap(a, op, sizeof(op), body);
}

/*
 * Device (LNKx): the PIRQ link, its IRQ the one the board programmed
 * into PIRQRC (there is no firmware to offer others): _PRS and _CRS
 * name it, _SRS accepts it.
 */
static void aml_pci_link(GByteArray *a, unsigned n, uint8_t irq)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    static const char *const res_names[] = { "_PRS", "_CRS" };
    GByteArray *body = g_byte_array_new();
    char seg[5];

    g_snprintf(seg, sizeof(seg), "LNK%c", 'A' + n);
    aml_nameseg(body, seg);
    aml_name(body, "_HID");
    aml_integer(body, EISA_PNP0C0F);
    aml_name(body, "_UID");
    aml_integer(body, n);
    aml_name(body, "_STA");
    aml_integer(body, 0x0b);    /* present, enabled, functioning */
    for (size_t i = 0; i < G_N_ELEMENTS(res_names); i++) {
        GByteArray *res = g_byte_array_new();

        byte_array_put8(res, RES_EXT_IRQ);
        byte_array_put16(res, 6);
        byte_array_put8(res, RES_IRQ_LEVEL_HIGH_SHARED);
        byte_array_put8(res, 1);
        byte_array_put32(res, irq);
        aml_resource_template(body, res_names[i], res);
    }
    /* Method (_SRS, 1) { }: the one IRQ offered stays. */
    aml_method(body, "_SRS", 1, NULL, 0);
    aml_wrap(a, op, sizeof(op), body);
}

/*
 * Device (HPET) { _HID PNP0103, _UID 0, _STA 0x0F, _CRS Memory32Fixed
 * (ReadOnly, 0xfed00000, 0x400) }: QEMU's pc has it in \_SB when its
 * HPET exists (its _STA reads the registers; here the device is only
 * declared when it is there).
 */
static void aml_hpet(GByteArray *a)
{
    static const uint8_t op[] = { AML_EXT_OP_PREFIX, AML_DEVICE_OP };
    GByteArray *body = g_byte_array_new(), *res = g_byte_array_new();

    aml_nameseg(body, "HPET");
    aml_name(body, "_HID");
    aml_integer(body, EISA_PNP0103);
    aml_name(body, "_UID");
    aml_integer(body, 0);
    aml_name(body, "_STA");
    aml_integer(body, 0x0f);    /* present, enabled, shown, functioning */
    byte_array_put8(res, RES_MEMORY32_FIXED);
    byte_array_put16(res, 9);
    byte_array_put8(res, 0x00);            /* read-only */
    byte_array_put32(res, HPET_BASE);
    byte_array_put32(res, HPET_LEN);
    aml_resource_template(body, "_CRS", res);
    aml_wrap(a, op, sizeof(op), body);
}

static void build_dsdt(GByteArray *blob, const AcpiBuildConfig *cfg)
{
    static const uint8_t scope_op[] = { AML_SCOPE_OP };
    size_t off = table_begin(blob, "DSDT", DSDT_REVISION);
    GByteArray *sb = g_byte_array_new();

    /* Scope (\_SB): processors with the UIDs the MADT gives them. */
    byte_array_put8(sb, AML_ROOT_CHAR);
    aml_nameseg(sb, "_SB_");
    for (unsigned i = 0; i < cfg->ncpus; i++) {
        aml_processor_device(sb, i);
    }
    if (!cfg->has_pci && cfg->has_pvpanic) {
        aml_pvpanic(sb, cfg->pvpanic_port);
    }
    if (cfg->has_pci) {
        aml_pci_root(sb, cfg);
        for (unsigned i = 0; i < 4; i++) {
            aml_pci_link(sb, i, cfg->pirq_irqs[i]);
        }
    }
    if (cfg->has_hpet) {
        aml_hpet(sb);
    }
    aml_wrap(blob, scope_op, sizeof(scope_op), sb);
    /*
     * Only S5: without _S3/_S4 a guest never tries a sleep state the
     * PM device cannot do.
     */
    aml_sleep_state(blob, "_S5_", ACPI_PM_SLP_TYP_S5);
    table_end(blob, off);
}

static void build_facs(GByteArray *blob)
{
    put_bytes(blob, "FACS", 4);
    byte_array_put32(blob, ACPI_FACS_SIZE);
    byte_array_put32(blob, 0);             /* hardware signature */
    byte_array_put32(blob, 0);             /* firmware waking vector */
    byte_array_put32(blob, 0);             /* global lock */
    byte_array_put32(blob, 0);            /* flags: no S4BIOS, no 64-bit wake */
    byte_array_put64(blob, 0);             /* X firmware waking vector */
    byte_array_put8(blob, FACS_VERSION);
    put_zeros(blob, 3);
    byte_array_put32(blob, 0);             /* OSPM flags */
    put_zeros(blob, 24);
}

static uint32_t max_apic_id(const AcpiBuildConfig *cfg)
{
    uint32_t max = 0;

    for (unsigned i = 0; i < cfg->ncpus; i++) {
        max = MAX(max, cfg->apic_ids[i]);
    }
    return max;
}

static void build_fadt(GByteArray *blob, const AcpiBuildConfig *cfg,
                       uint64_t facs, uint64_t dsdt)
{
    size_t off = table_begin(blob, "FACP", FADT_REVISION);
    uint32_t io = cfg->pm_io_base;
    uint32_t flags = FADT_F_WBINVD | FADT_F_PROC_C1 | FADT_F_SLP_BUTTON |
                     FADT_F_FIX_RTC | FADT_F_USE_PLATFORM_CLOCK;
    uint16_t boot_arch = FADT_BOOT_LEGACY_DEVICES;

    /* Flat logical APIC mode only reaches APIC IDs 0-7. */
    if (max_apic_id(cfg) >= 8) {
        flags |= FADT_F_FORCE_APIC_PHYS;
    }
    if (cfg->reset_port) {
        flags |= FADT_F_RESET_REG_SUP;
    }
    if (cfg->has_i8042) {
        boot_arch |= FADT_BOOT_8042;
    }

    byte_array_put32(blob, facs);         /* FIRMWARE_CTRL (X_ field stays 0) */
    byte_array_put32(blob, dsdt);
    byte_array_put8(blob, 0);             /* reserved (INT_MODEL of ACPI 1.0) */
    byte_array_put8(blob, 0);            /* preferred PM profile: unspecified */
    byte_array_put16(blob, cfg->sci_irq);
    /*
     * No SMI_CMD: there is no firmware to hand over, the machine is in
     * ACPI mode from reset (SCI_EN reads 1).
     */
    byte_array_put32(blob, 0);             /* SMI_CMD */
    byte_array_put8(blob, 0);              /* ACPI_ENABLE */
    byte_array_put8(blob, 0);              /* ACPI_DISABLE */
    byte_array_put8(blob, 0);              /* S4BIOS_REQ */
    byte_array_put8(blob, 0);              /* PSTATE_CNT */
    byte_array_put32(blob, io + ACPI_PM1_EVT_OFFSET);  /* PM1a_EVT_BLK */
    byte_array_put32(blob, 0);                         /* PM1b_EVT_BLK */
    byte_array_put32(blob, io + ACPI_PM1_CNT_OFFSET);  /* PM1a_CNT_BLK */
    byte_array_put32(blob, 0);                         /* PM1b_CNT_BLK */
    byte_array_put32(blob, 0);                         /* PM2_CNT_BLK */
    byte_array_put32(blob, io + ACPI_PM_TMR_OFFSET);   /* PM_TMR_BLK */
    byte_array_put32(blob, io + ACPI_GPE0_OFFSET);     /* GPE0_BLK */
    byte_array_put32(blob, 0);                         /* GPE1_BLK */
    byte_array_put8(blob, ACPI_PM1_EVT_LEN);
    byte_array_put8(blob, ACPI_PM1_CNT_LEN);
    byte_array_put8(blob, 0);              /* PM2_CNT_LEN */
    byte_array_put8(blob, ACPI_PM_TMR_LEN);
    byte_array_put8(blob, ACPI_GPE0_LEN);
    byte_array_put8(blob, 0);              /* GPE1_BLK_LEN */
    byte_array_put8(blob, 0);              /* GPE1_BASE */
    byte_array_put8(blob, 0);              /* CST_CNT */
    byte_array_put16(blob, FADT_NO_C2_LATENCY);
    byte_array_put16(blob, FADT_NO_C3_LATENCY);
    byte_array_put16(blob, 0);             /* FLUSH_SIZE */
    byte_array_put16(blob, 0);             /* FLUSH_STRIDE */
    byte_array_put8(blob, 0);              /* DUTY_OFFSET */
    byte_array_put8(blob, 0);              /* DUTY_WIDTH */
    byte_array_put8(blob, 0);              /* DAY_ALRM */
    byte_array_put8(blob, 0);              /* MON_ALRM */
    byte_array_put8(blob, FADT_CENTURY);
    byte_array_put16(blob, boot_arch);
    byte_array_put8(blob, 0);              /* reserved */
    byte_array_put32(blob, flags);
    put_gas(blob, cfg->reset_port ? ACPI_GAS_SYSTEM_IO : 0,
            cfg->reset_port ? 8 : 0,
            cfg->reset_port ? ACPI_GAS_ACCESS_BYTE : 0, cfg->reset_port);
    byte_array_put8(blob, cfg->reset_port ? ACPI_PM_RESET_VALUE : 0);
    byte_array_put16(blob, 0);             /* ARM boot architecture flags */
    byte_array_put8(blob, FADT_MINOR_REVISION);
    byte_array_put64(blob, 0);       /* X_FIRMWARE_CTRL: FIRMWARE_CTRL is set */
    byte_array_put64(blob, dsdt);          /* X_DSDT */
    put_gas(blob, ACPI_GAS_SYSTEM_IO, ACPI_PM1_EVT_LEN * 8,
            ACPI_GAS_ACCESS_ANY, io + ACPI_PM1_EVT_OFFSET);
    put_gas(blob, 0, 0, 0, 0);  /* X_PM1b_EVT_BLK */
    put_gas(blob, ACPI_GAS_SYSTEM_IO, ACPI_PM1_CNT_LEN * 8,
            ACPI_GAS_ACCESS_ANY, io + ACPI_PM1_CNT_OFFSET);
    put_gas(blob, 0, 0, 0, 0);  /* X_PM1b_CNT_BLK */
    put_gas(blob, 0, 0, 0, 0);  /* X_PM2_CNT_BLK */
    put_gas(blob, ACPI_GAS_SYSTEM_IO, ACPI_PM_TMR_LEN * 8,
            ACPI_GAS_ACCESS_ANY, io + ACPI_PM_TMR_OFFSET);
    put_gas(blob, ACPI_GAS_SYSTEM_IO, ACPI_GPE0_LEN * 8,
            ACPI_GAS_ACCESS_ANY, io + ACPI_GPE0_OFFSET);
    put_gas(blob, 0, 0, 0, 0);  /* X_GPE1_BLK */
    put_gas(blob, 0, 0, 0, 0);  /* SLEEP_CONTROL_REG (hardware-reduced) */
    put_gas(blob, 0, 0, 0, 0);  /* SLEEP_STATUS_REG */
    byte_array_put64(blob, 0);             /* hypervisor vendor identity */
    assert(blob->len - off == FADT_SIZE);
    table_end(blob, off);
}

static void madt_interrupt_override(GByteArray *blob, uint8_t irq,
                                    uint32_t gsi, uint16_t flags)
{
    byte_array_put8(blob, MADT_INT_OVERRIDE);
    byte_array_put8(blob, 10);
    byte_array_put8(blob, 0);              /* bus: ISA */
    byte_array_put8(blob, irq);
    byte_array_put32(blob, gsi);
    byte_array_put16(blob, flags);
}

static void build_madt(GByteArray *blob, const AcpiBuildConfig *cfg)
{
    size_t off = table_begin(blob, "APIC", MADT_REVISION);
    uint16_t level_irqs = cfg->level_irq_mask | (1u << cfg->sci_irq);
    bool x2apic = false;

    byte_array_put32(blob, ACPI_LAPIC_ADDR);
    byte_array_put32(blob, MADT_PCAT_COMPAT);
    /*
     * One entry per vCPU, its processor UID being its index (the DSDT's
     * Cxxx devices use the same). IDs that do not fit a byte (0xff is
     * the broadcast ID) need the x2APIC form.
     */
    for (unsigned i = 0; i < cfg->ncpus; i++) {
        uint32_t id = cfg->apic_ids[i];

        if (id < 0xff && i < 0xff) {
            byte_array_put8(blob, MADT_LOCAL_APIC);
            byte_array_put8(blob, 8);
            byte_array_put8(blob, i);
            byte_array_put8(blob, id);
            byte_array_put32(blob, MADT_LAPIC_ENABLED);
        } else {
            byte_array_put8(blob, MADT_LOCAL_X2APIC);
            byte_array_put8(blob, 16);
            byte_array_put16(blob, 0);
            byte_array_put32(blob, id);
            byte_array_put32(blob, MADT_LAPIC_ENABLED);
            byte_array_put32(blob, i);
            x2apic = true;
        }
    }

    byte_array_put8(blob, MADT_IO_APIC);
    byte_array_put8(blob, 12);
    byte_array_put8(blob, cfg->ioapic_id);
    byte_array_put8(blob, 0);
    byte_array_put32(blob, ACPI_IOAPIC_ADDR);
    byte_array_put32(blob, 0);             /* GSI base */

    /* The PIT's IRQ 0 is wired to IOAPIC pin 2 on a PC. */
    madt_interrupt_override(blob, 0, ACPI_PC_IRQ0_GSI, MPS_INTI_CONFORMS);
    /* ISA defaults to edge/high: level lines need saying so. */
    for (unsigned irq = 1; irq < 16; irq++) {
        if (level_irqs & (1u << irq)) {
            madt_interrupt_override(blob, irq, irq,
                                    MPS_INTI_ACTIVE_HIGH | MPS_INTI_LEVEL);
        }
    }

    byte_array_put8(blob, MADT_LOCAL_APIC_NMI);
    byte_array_put8(blob, 6);
    byte_array_put8(blob, MADT_ALL_PROCESSORS);
    byte_array_put16(blob, MPS_INTI_CONFORMS);
    byte_array_put8(blob, MADT_NMI_LINT);
    if (x2apic) {
        byte_array_put8(blob, MADT_LOCAL_X2APIC_NMI);
        byte_array_put8(blob, 12);
        byte_array_put16(blob, MPS_INTI_CONFORMS);
        byte_array_put32(blob, 0xffffffff); /* all processors */
        byte_array_put8(blob, MADT_NMI_LINT);
        put_zeros(blob, 3);
    }
    table_end(blob, off);
}

/* The HPET table (IA-PC HPET specification 1.0a, 3.2.4), as QEMU's. */
static void build_hpet(GByteArray *blob)
{
    size_t off = table_begin(blob, "HPET", HPET_TABLE_REVISION);

    byte_array_put32(blob, HPET_TABLE_BLOCK_ID);
    put_gas(blob, ACPI_GAS_SYSTEM_MEMORY, 0, 0, HPET_BASE);
    byte_array_put8(blob, 0);              /* HPET number */
    byte_array_put16(blob, 0);             /* minimum periodic tick */
    byte_array_put8(blob, 0);              /* page protection: none */
    table_end(blob, off);
}

/* RSDT (4-byte entries) or XSDT (8-byte entries). */
static void build_sdt(GByteArray *blob, const char *sig, unsigned entry_size,
                      const uint64_t *addrs, unsigned n)
{
    size_t off = table_begin(blob, sig, 1);

    for (unsigned i = 0; i < n; i++) {
        if (entry_size == 4) {
            byte_array_put32(blob, addrs[i]);
        } else {
            byte_array_put64(blob, addrs[i]);
        }
    }
    table_end(blob, off);
}

static void build_rsdp(GByteArray *blob, uint64_t rsdt, uint64_t xsdt)
{
    size_t off = blob->len;

    put_bytes(blob, "RSD PTR ", 8);
    byte_array_put8(blob, 0);              /* checksum of the first 20 bytes */
    put_bytes(blob, ACPI_BUILD_OEM_ID, 6);
    byte_array_put8(blob, 2);            /* revision: ACPI 2.0+, has the XSDT */
    byte_array_put32(blob, rsdt);
    byte_array_put32(blob, ACPI_RSDP_SIZE);
    byte_array_put64(blob, xsdt);
    byte_array_put8(blob, 0);              /* extended checksum, all 36 bytes */
    put_zeros(blob, 3);
    blob->data[off + 8] = -acpi_checksum(blob->data + off, 20);
    blob->data[off + 32] = -acpi_checksum(blob->data + off, ACPI_RSDP_SIZE);
}

GByteArray *acpi_build_tables(const AcpiBuildConfig *cfg, uint64_t base,
                              uint64_t *rsdp_offset)
{
    GByteArray *blob = g_byte_array_new();
    uint64_t facs, dsdt, fadt, madt, rsdt, xsdt;
    uint64_t tables[3];
    unsigned ntables = 0;

    assert(cfg->ncpus >= 1 && cfg->apic_ids);
    assert(cfg->sci_irq < 16);
    assert(cfg->ncpus <= 0xfff);    /* the DSDT names CPUs C000-CFFF */

    align_blob(blob, base, ACPI_FACS_SIZE);
    facs = base + blob->len;
    build_facs(blob);

    align_blob(blob, base, ACPI_TABLE_ALIGN);
    dsdt = base + blob->len;
    build_dsdt(blob, cfg);

    align_blob(blob, base, ACPI_TABLE_ALIGN);
    fadt = base + blob->len;
    build_fadt(blob, cfg, facs, dsdt);

    align_blob(blob, base, ACPI_TABLE_ALIGN);
    madt = base + blob->len;
    build_madt(blob, cfg);

    /* The FADT leads the RSDT/XSDT, as ACPI asks of the first entry. */
    tables[ntables++] = fadt;
    tables[ntables++] = madt;
    if (cfg->has_hpet) {
        align_blob(blob, base, ACPI_TABLE_ALIGN);
        tables[ntables++] = base + blob->len;
        build_hpet(blob);
    }
    align_blob(blob, base, ACPI_TABLE_ALIGN);
    rsdt = base + blob->len;
    build_sdt(blob, "RSDT", 4, tables, ntables);

    align_blob(blob, base, ACPI_TABLE_ALIGN);
    xsdt = base + blob->len;
    build_sdt(blob, "XSDT", 8, tables, ntables);

    align_blob(blob, base, ACPI_TABLE_ALIGN);
    *rsdp_offset = blob->len;
    build_rsdp(blob, rsdt, xsdt);

    /* Every address above went into a 32-bit field somewhere. */
    assert(base + blob->len <= 0x100000000ULL);
    return blob;
}
