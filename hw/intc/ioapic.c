/*
 * The I/O APIC (Intel 82093AA) as QEMU's pc has it: 24 pins, each with a
 * redirection entry that turns an input into an APIC message.
 *
 * Used under tcg and qtest; under kvm the board creates the front of
 * the in-kernel one instead (hw/i386/kvm/ioapic.c). At
 * IOAPIC_DEFAULT_ADDRESS:
 *
 *   +0x00  IOREGSEL  index of the register IOWIN shows
 *   +0x10  IOWIN     32-bit window on that register
 *   +0x40  EOI       (version 0x20) a write of V clears the remote IRR
 *                    of the level-triggered entries with vector V
 *
 * Registers: 0x00 ID (bits 27:24), 0x01 version (bits 23:16 the highest
 * entry, 23), 0x02 arbitration ID, 0x10 + 2n / 0x11 + 2n the low and
 * high halves of entry n:
 *
 *   7:0 vector, 10:8 delivery mode, 11 logical destination, 12 delivery
 *   status (RO), 13 active low, 14 remote IRR (RO), 15 level triggered,
 *   16 masked, 63:56 destination
 *
 * The inputs are numbered as the ISA IRQs, as qtest's irq_intercept_in
 * ioapic sees them in QEMU: input n drives pin n, except input 0 (ISA
 * IRQ 0, the PIT), which drives the pin the irq0-pin property names: the
 * board sets it from its MADT's interrupt source override (2 on a PC;
 * QEMU's ioapic hard-codes that). The lines carry the asserted state, so polarity is stored but not applied
 * (QEMU does the same). Messages leave at once: delivery status reads 0.
 */
#include "hw/intc/apic.h"
#include "hw/intc/ioapic.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define IOAPIC_IOREGSEL         0x00
#define IOAPIC_IOWIN            0x10
#define IOAPIC_EOI              0x40
#define IOAPIC_MMIO_SIZE        0x1000

#define IOAPIC_REG_ID           0x00
#define IOAPIC_REG_VER          0x01
#define IOAPIC_REG_ARB          0x02
#define IOAPIC_REG_REDTBL       0x10
#define IOAPIC_ID_SHIFT         24
#define IOAPIC_ID_MASK          0x0f
#define IOAPIC_VER_ENTRIES_SHIFT 16

#define IOREDTBL_VECTOR_MASK    0xffull
#define IOREDTBL_DM_SHIFT       8
#define IOREDTBL_DM_MASK        7
#define IOREDTBL_DEST_LOGICAL   (1ull << 11)
#define IOREDTBL_DELIVS         (1ull << 12)
#define IOREDTBL_REMOTE_IRR     (1ull << 14)
#define IOREDTBL_LEVEL          (1ull << 15)
#define IOREDTBL_MASKED         (1ull << 16)
#define IOREDTBL_DEST_SHIFT     56
#define IOREDTBL_RO_BITS        (IOREDTBL_DELIVS | IOREDTBL_REMOTE_IRR)

typedef struct IOAPICState {
    DeviceState parent;
    uint8_t version;                /* property: 0x11 or 0x20 */
    uint8_t irq0_pin;               /* property: where input 0 goes */
    MemoryRegion mmio;
    uint8_t id;
    uint8_t ioregsel;
    uint32_t pin_level;             /* bit n: pin n asserted */
    uint64_t redtbl[IOAPIC_NUM_PINS];
} IOAPICState;


static bool ioapic_entry_level(uint64_t e)
{
    unsigned dm = (e >> IOREDTBL_DM_SHIFT) & IOREDTBL_DM_MASK;

    /* NMI, INIT and ExtINT are edge-only (82093AA): no remote IRR. */
    return (e & IOREDTBL_LEVEL) &&
           (dm == APIC_DM_FIXED || dm == APIC_DM_LOWPRI);
}

/* Send pin's message if the entry lets it through. */
static void ioapic_service(IOAPICState *s, int pin)
{
    uint64_t e = s->redtbl[pin];
    unsigned dm = (e >> IOREDTBL_DM_SHIFT) & IOREDTBL_DM_MASK;
    bool level = ioapic_entry_level(e);

    if (e & IOREDTBL_MASKED) {
        return;
    }
    if (dm == 3 || dm == APIC_DM_SIPI) {
        /* Before Remote IRR: nothing delivered, no EOI would clear it. */
        qemu_log_mask(LOG_GUEST_ERROR, "ioapic: pin %d has reserved "
                      "delivery mode %u\n", pin, dm);
        return;
    }
    if (level) {
        if (!(s->pin_level & (1u << pin)) || (e & IOREDTBL_REMOTE_IRR)) {
            return;
        }
        /* Set before delivery: an EOI can only follow it. */
        s->redtbl[pin] |= IOREDTBL_REMOTE_IRR;
    }
    apic_deliver_irq(e >> IOREDTBL_DEST_SHIFT, e & IOREDTBL_DEST_LOGICAL,
                     dm, e & IOREDTBL_VECTOR_MASK, level);
}

static void ioapic_set_irq(void *opaque, int gsi, int level)
{
    IOAPICState *s = opaque;
    int pin = gsi == 0 ? s->irq0_pin : gsi;
    uint32_t bit;
    bool was;

    if (gsi < 0 || gsi >= IOAPIC_NUM_PINS) {
        return;
    }
    bit = 1u << pin;
    was = s->pin_level & bit;
    if (level) {
        s->pin_level |= bit;
    } else {
        s->pin_level &= ~bit;
    }
    if (ioapic_entry_level(s->redtbl[pin])) {
        ioapic_service(s, pin);
    } else if (level && !was) {
        /* Edge: only a rising edge counts; one on a masked pin is lost. */
        ioapic_service(s, pin);
    }
}

static void ioapic_eoi(IOAPICState *s, uint8_t vector)
{
    for (int pin = 0; pin < IOAPIC_NUM_PINS; pin++) {
        uint64_t e = s->redtbl[pin];

        if (!(e & IOREDTBL_REMOTE_IRR) ||
            (e & IOREDTBL_VECTOR_MASK) != vector) {
            continue;
        }
        s->redtbl[pin] &= ~IOREDTBL_REMOTE_IRR;
        /* Still asserted: the device wants service again. */
        ioapic_service(s, pin);
    }
}

void ioapic_eoi_notify(void *ioapic, uint8_t vector)
{
    ioapic_eoi(ioapic, vector);
}

static uint32_t ioapic_reg_read(IOAPICState *s)
{
    uint8_t reg = s->ioregsel;

    switch (reg) {
    case IOAPIC_REG_ID:
    case IOAPIC_REG_ARB:
        /* The arbitration ID is loaded from the ID (82093AA). */
        return (uint32_t)s->id << IOAPIC_ID_SHIFT;
    case IOAPIC_REG_VER:
        return s->version |
               ((IOAPIC_NUM_PINS - 1) << IOAPIC_VER_ENTRIES_SHIFT);
    default:
        if (reg >= IOAPIC_REG_REDTBL &&
            reg < IOAPIC_REG_REDTBL + 2 * IOAPIC_NUM_PINS) {
            uint64_t e = s->redtbl[(reg - IOAPIC_REG_REDTBL) / 2];

            return reg & 1 ? e >> 32 : (uint32_t)e;
        }
        qemu_log_mask(LOG_GUEST_ERROR, "ioapic: read of register 0x%02x\n",
                      reg);
        return 0;
    }
}

static void ioapic_redtbl_write(IOAPICState *s, int pin, bool high,
                                uint32_t value)
{
    uint64_t e = s->redtbl[pin];

    if (high) {
        e = (e & 0xffffffffull) | ((uint64_t)value << 32);
    } else {
        e = (e & ~0xffffffffull) | (e & IOREDTBL_RO_BITS) |
            (value & ~IOREDTBL_RO_BITS);
        if (!ioapic_entry_level(e)) {
            /* Remote IRR has no meaning for edge entries. */
            e &= ~IOREDTBL_REMOTE_IRR;
        }
    }
    s->redtbl[pin] = e;
    /* A level input held while masked is delivered once unmasked. */
    if (ioapic_entry_level(e)) {
        ioapic_service(s, pin);
    }
}

static void ioapic_reg_write(IOAPICState *s, uint32_t value)
{
    uint8_t reg = s->ioregsel;

    if (reg == IOAPIC_REG_ID) {
        s->id = (value >> IOAPIC_ID_SHIFT) & IOAPIC_ID_MASK;
    } else if (reg >= IOAPIC_REG_REDTBL &&
               reg < IOAPIC_REG_REDTBL + 2 * IOAPIC_NUM_PINS) {
        ioapic_redtbl_write(s, (reg - IOAPIC_REG_REDTBL) / 2, reg & 1,
                            value);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "ioapic: write of 0x%08x to "
                      "register 0x%02x ignored\n", value, reg);
    }
}

static uint64_t ioapic_mmio_read(void *opaque, uint64_t addr, unsigned size)
{
    IOAPICState *s = opaque;

    if (addr == IOAPIC_IOREGSEL) {
        return s->ioregsel;
    }
    if (addr == IOAPIC_IOWIN && size == 4) {
        return ioapic_reg_read(s);
    }
    qemu_log_mask(LOG_GUEST_ERROR, "ioapic: %u-byte read at +0x%03x\n",
                  size, (unsigned)addr);
    return 0;
}

static void ioapic_mmio_write(void *opaque, uint64_t addr, uint64_t value,
                              unsigned size)
{
    IOAPICState *s = opaque;

    if (addr == IOAPIC_IOREGSEL) {
        s->ioregsel = value;
    } else if (addr == IOAPIC_IOWIN && size == 4) {
        ioapic_reg_write(s, value);
    } else if (addr == IOAPIC_EOI && size == 4 && s->version >= 0x20) {
        ioapic_eoi(s, value);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "ioapic: %u-byte write of 0x%x at "
                      "+0x%03x ignored\n", size, (unsigned)value,
                      (unsigned)addr);
    }
}

/* Window accesses must be whole dwords; IOREGSEL takes any width. */
static const MemoryRegionOps ioapic_mmio_ops = {
    .read = ioapic_mmio_read,
    .write = ioapic_mmio_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static bool ioapic_realize(DeviceState *dev, Error **errp)
{
    IOAPICState *s = (IOAPICState *)dev;

    if (s->irq0_pin >= IOAPIC_NUM_PINS) {
        error_setg(errp, "ioapic: irq0-pin %u does not exist",
                   s->irq0_pin);
        return false;
    }
    if (s->version != 0x11 && s->version != 0x20) {
        error_setg(errp, "ioapic: version 0x%x is not supported (0x11 or "
                   "0x20)", s->version);
        return false;
    }
    qdev_init_gpio_in_named(dev, ioapic_set_irq, NULL, IOAPIC_NUM_PINS);
    memory_region_init_io(&s->mmio, "ioapic", &ioapic_mmio_ops, s,
                          IOAPIC_MMIO_SIZE);
    if (!address_space_map_region(&address_space_memory, &s->mmio,
                                  IOAPIC_DEFAULT_ADDRESS, errp)) {
        memory_region_finalize(&s->mmio);
        return false;
    }
    return true;
}

/* The pins keep their levels: they are wires, not state. */
static void ioapic_reset(DeviceState *dev)
{
    IOAPICState *s = (IOAPICState *)dev;

    s->id = 0;
    s->ioregsel = 0;
    for (int pin = 0; pin < IOAPIC_NUM_PINS; pin++) {
        s->redtbl[pin] = IOREDTBL_MASKED;
    }
}

static void ioapic_unrealize(DeviceState *dev)
{
    IOAPICState *s = (IOAPICState *)dev;

    memory_region_finalize(&s->mmio);
}

static const Property ioapic_props[] = {
    DEFINE_PROP_UINT8("version", IOAPICState, version, 0x20),
    DEFINE_PROP_UINT8("irq0-pin", IOAPICState, irq0_pin, 0),
    PROP_END,
};

/* Migration: the registers; ioregsel indexes them. */
static const VMStateDescription vmstate_ioapic = {
    .name = "ioapic",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(IOAPICState, id, VMS_RANGE(0, 15)),
        VMSTATE_U8(IOAPICState, ioregsel),
        VMSTATE_U32(IOAPICState, pin_level,
                    VMS_RANGE(0, (1u << IOAPIC_NUM_PINS) - 1)),
        VMSTATE_U64_ARRAY(IOAPICState, redtbl, IOAPIC_NUM_PINS),
        VMSTATE_END
    },
};
const DeviceClass ioapic_device_class = {
    .name = "ioapic",
    .parent = "sys-bus-device",
    .desc = "I/O APIC",
    .instance_size = sizeof(IOAPICState),
    .props = ioapic_props,
    .realize = ioapic_realize,
    .reset = ioapic_reset,
    .vmsd = &vmstate_ioapic,
    .unrealize = ioapic_unrealize,
};

DEVICE_CLASS_REGISTER(ioapic_device_class)
