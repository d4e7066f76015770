/*
 * The PC's pair of 8259A programmable interrupt controllers, used under
 * tcg and qtest (under kvm the in-kernel pair stays).
 *
 * Each chip ("isa-i8259") has 8 request inputs (unnamed GPIO in), one
 * INT output (unnamed GPIO out), a command port (iobase: ICW1, OCW2,
 * OCW3; reads IRR, ISR or a poll byte), a data port (iobase + 1: ICW2-4,
 * OCW1; reads IMR) and the PIIX's edge/level control register (ELCR,
 * one byte at elcr_addr, writable where elcr_mask has ones). The board
 * wires the pair (include/hw/intc/i8259.h): the slave's INT to the
 * master's input 2, the master's INT to the local APICs' LINT0, and
 * i8259_inta() as their INTA cycle. Each chip is an instance: nothing
 * here is global.
 *
 * Triggering: a line is level-sensitive when its ELCR bit or ICW1.LTIM
 * says so; its IRR bit then follows the line. An edge-sensitive IRR bit
 * is set by a rising edge and kept until acknowledged, even if the line
 * drops (QEMU's behaviour; devices may pulse a line). The master's
 * cascade input follows the slave's INT level, so a request the slave
 * still holds after an acknowledge or an EOI is never lost.
 */
#include "hw/intc/i8259.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define PIC_CASCADE_IRQ     2
#define PIC_SPURIOUS_IRQ    7

/* Command port writes: bit 4 set is ICW1, else bit 3 set is OCW3. */
#define ICW1_IC4            0x01    /* ICW4 follows */
#define ICW1_SNGL           0x02    /* single chip, no ICW3 */
#define ICW1_LTIM           0x08    /* every input level-sensitive */
#define ICW1_INIT           0x10
#define OCW3_SELECT         0x08
#define OCW3_RIS            0x01    /* read ISR (with RR) instead of IRR */
#define OCW3_RR             0x02
#define OCW3_POLL           0x04
#define OCW3_SMM            0x20    /* special mask mode (with ESMM) */
#define OCW3_ESMM           0x40
#define ICW4_UPM            0x01    /* 8086 mode; 8080 mode is not modelled */
#define ICW4_AEOI           0x02
#define ICW4_SFNM           0x10    /* special fully nested mode */

/* OCW2 commands (bits 7-5: R, SL, EOI). */
#define OCW2_ROTATE_AEOI_CLEAR  0x0
#define OCW2_EOI                0x1
#define OCW2_NOP                0x2
#define OCW2_SPECIFIC_EOI       0x3
#define OCW2_ROTATE_AEOI_SET    0x4
#define OCW2_ROTATE_EOI         0x5
#define OCW2_SET_PRIORITY       0x6
#define OCW2_ROTATE_SPECIFIC    0x7

/* Where the initialization sequence is: the next data port write. */
typedef enum PICInitState {
    PIC_READY,              /* OCW1 */
    PIC_WANT_ICW2,
    PIC_WANT_ICW3,
    PIC_WANT_ICW4,
} PICInitState;

typedef struct PICState PICState;

struct PICState {
    DeviceState parent;
    /* Properties. */
    uint16_t iobase;
    uint16_t elcr_addr;
    uint8_t elcr_mask;
    bool master;

    MemoryRegion io;
    MemoryRegion elcr_io;
    qemu_irq int_out;
    bool int_level;

    uint8_t lines;          /* input levels as the devices set them */
    uint8_t irr;
    uint8_t isr;
    uint8_t imr;
    uint8_t elcr;
    /* The lowest-priority level is (lowest_prio); rotation moves it. */
    uint8_t lowest_prio;
    uint8_t vector_base;    /* ICW2 & 0xf8 */
    PICInitState init_state;
    bool icw4_needed;
    bool single;
    bool ltim;
    bool auto_eoi;
    bool rotate_on_aeoi;
    bool sfnm;
    bool special_mask;
    bool read_isr;
    bool poll;
    PICState *slave;        /* a master's, set by i8259_cascade() */
};

static bool pic_is_cascade_input(PICState *s, int n)
{
    return s->master && !s->single && n == PIC_CASCADE_IRQ;
}

static bool pic_level_sensitive(PICState *s, int n)
{
    return s->ltim || (s->elcr & (1u << n)) || pic_is_cascade_input(s, n);
}

/*
 * The highest-priority level set in mask, counted from the top priority
 * (0) down to 7, or 8 when mask is empty. Level lowest_prio + 1 has
 * priority 0.
 */
static int pic_priority(PICState *s, uint8_t mask)
{
    for (int p = 0; p < 8; p++) {
        if (mask & (1u << ((s->lowest_prio + 1 + p) & 7))) {
            return p;
        }
    }
    return 8;
}

static int pic_level_of(PICState *s, int priority)
{
    return (s->lowest_prio + 1 + priority) & 7;
}

/* The level this chip would deliver now, or -1. */
static int pic_pending(PICState *s)
{
    int req = pic_priority(s, s->irr & ~s->imr);
    uint8_t in_service = s->isr;

    if (req == 8) {
        return -1;
    }
    if (s->special_mask) {
        /* Masked levels in service do not hold the others back. */
        in_service &= ~s->imr;
    }
    if (s->sfnm && pic_is_cascade_input(s, PIC_CASCADE_IRQ)) {
        /* Let the slave interrupt a slave request of lower priority. */
        in_service &= ~(1u << PIC_CASCADE_IRQ);
    }
    return req < pic_priority(s, in_service) ? pic_level_of(s, req) : -1;
}

static void pic_update(PICState *s)
{
    bool level = pic_pending(s) >= 0;

    if (level == s->int_level) {
        return;
    }
    s->int_level = level;
    qemu_set_irq(s->int_out, level);
}

/* The GPIO input handler: a device moved line n. */
static void pic_set_irq(void *opaque, int n, int level)
{
    PICState *s = opaque;
    uint8_t bit = 1u << n;
    bool was_high = s->lines & bit;

    if (level) {
        s->lines |= bit;
    } else {
        s->lines &= ~bit;
    }
    if (pic_level_sensitive(s, n)) {
        s->irr = level ? s->irr | bit : s->irr & ~bit;
    } else if (level && !was_high) {
        s->irr |= bit;
    }
    pic_update(s);
}

/* The INTA cycle's effect on one chip for the level it delivers. */
static void pic_acknowledge(PICState *s, int irq)
{
    if (s->auto_eoi) {
        if (s->rotate_on_aeoi) {
            s->lowest_prio = irq;
        }
    } else {
        s->isr |= 1u << irq;
    }
    if (!pic_level_sensitive(s, irq)) {
        s->irr &= ~(1u << irq);
    }
}

void i8259_cascade(DeviceState *master, DeviceState *slave)
{
    ((PICState *)master)->slave = (PICState *)slave;
    qdev_connect_gpio_out_named(slave, NULL, 0, qdev_get_gpio_in(master, 2));
}

int i8259_inta(void *master)
{
    PICState *m = master;
    PICState *sl = m->slave;
    int irq, irq2, vector;

    irq = pic_pending(m);
    if (irq < 0) {
        /* The request went away before INTA: a spurious IRQ 7. */
        return m->vector_base + PIC_SPURIOUS_IRQ;
    }
    pic_acknowledge(m, irq);
    if (pic_is_cascade_input(m, irq) && sl) {
        irq2 = pic_pending(sl);
        if (irq2 >= 0) {
            pic_acknowledge(sl, irq2);
        } else {
            /*
             * Spurious IRQ 15 (the slave's ISR untouched). The cascade
             * input follows the slave's INT, so this is only a guard.
             */
            irq2 = PIC_SPURIOUS_IRQ;
        }
        vector = sl->vector_base + irq2;
        pic_update(sl);
    } else {
        vector = m->vector_base + irq;
    }
    pic_update(m);
    return vector;
}

/* Poll command: the next read acknowledges like INTA and says what. */
static uint8_t pic_poll_read(PICState *s)
{
    int irq = pic_pending(s);

    s->poll = false;
    if (irq < 0) {
        return 0;
    }
    pic_acknowledge(s, irq);
    pic_update(s);
    return 0x80 | irq;
}

/* Clear the in-service level of highest priority; -1 when none. */
static int pic_eoi_highest(PICState *s)
{
    int p = pic_priority(s, s->isr);
    int irq;

    if (p == 8) {
        return -1;
    }
    irq = pic_level_of(s, p);
    s->isr &= ~(1u << irq);
    return irq;
}

static void pic_write_ocw2(PICState *s, uint8_t val)
{
    int level = val & 7;
    int irq;

    switch (val >> 5) {
    case OCW2_ROTATE_AEOI_CLEAR:
        s->rotate_on_aeoi = false;
        break;
    case OCW2_ROTATE_AEOI_SET:
        s->rotate_on_aeoi = true;
        break;
    case OCW2_EOI:
        pic_eoi_highest(s);
        break;
    case OCW2_ROTATE_EOI:
        irq = pic_eoi_highest(s);
        if (irq >= 0) {
            s->lowest_prio = irq;
        }
        break;
    case OCW2_SPECIFIC_EOI:
        s->isr &= ~(1u << level);
        break;
    case OCW2_ROTATE_SPECIFIC:
        s->isr &= ~(1u << level);
        s->lowest_prio = level;
        break;
    case OCW2_SET_PRIORITY:
        s->lowest_prio = level;
        break;
    case OCW2_NOP:
        break;
    }
}

/* The state ICW1 starts from (8259A datasheet, "Initialization"). */
static void pic_icw1(PICState *s, uint8_t val)
{
    s->init_state = PIC_WANT_ICW2;
    s->icw4_needed = val & ICW1_IC4;
    s->single = val & ICW1_SNGL;
    s->ltim = val & ICW1_LTIM;
    s->imr = 0;
    s->isr = 0;
    s->lowest_prio = 7;
    s->special_mask = false;
    s->read_isr = false;
    s->poll = false;
    /* Without ICW4 its functions are zero. */
    s->auto_eoi = false;
    s->rotate_on_aeoi = false;
    s->sfnm = false;
    /*
     * The edge sense circuit is reset: an edge-sensitive line already
     * high must fall and rise again to request.
     */
    s->irr = 0;
    for (int n = 0; n < 8; n++) {
        if (pic_level_sensitive(s, n) && (s->lines & (1u << n))) {
            s->irr |= 1u << n;
        }
    }
    if (val & 0x04) {
        qemu_log_mask(LOG_UNIMP, "i8259: ICW1 call address interval 4 "
                      "(8080 mode) ignored\n");
    }
}

static void pic_write_data(PICState *s, uint8_t val)
{
    switch (s->init_state) {
    case PIC_WANT_ICW2:
        s->vector_base = val & 0xf8;
        if (!s->single) {
            s->init_state = PIC_WANT_ICW3;
        } else {
            s->init_state = s->icw4_needed ? PIC_WANT_ICW4 : PIC_READY;
        }
        break;
    case PIC_WANT_ICW3:
        /* Which line cascades comes from the board ("master"), not ICW3. */
        s->init_state = s->icw4_needed ? PIC_WANT_ICW4 : PIC_READY;
        break;
    case PIC_WANT_ICW4:
        if (!(val & ICW4_UPM)) {
            qemu_log_mask(LOG_GUEST_ERROR, "i8259: ICW4 selects 8080 mode, "
                          "treated as 8086 mode\n");
        }
        s->auto_eoi = val & ICW4_AEOI;
        s->sfnm = val & ICW4_SFNM;
        s->init_state = PIC_READY;
        break;
    case PIC_READY:
        s->imr = val;
        break;
    }
}

static void pic_io_write(void *opaque, uint64_t addr, uint64_t value,
                         unsigned size)
{
    PICState *s = opaque;
    uint8_t val = value;

    if (addr == 1) {
        pic_write_data(s, val);
    } else if (val & ICW1_INIT) {
        pic_icw1(s, val);
    } else if (val & OCW3_SELECT) {
        if (val & OCW3_ESMM) {
            s->special_mask = val & OCW3_SMM;
        }
        if (val & OCW3_RR) {
            s->read_isr = val & OCW3_RIS;
        }
        s->poll = val & OCW3_POLL;
    } else {
        pic_write_ocw2(s, val);
    }
    pic_update(s);
}

static uint64_t pic_io_read(void *opaque, uint64_t addr, unsigned size)
{
    PICState *s = opaque;

    if (s->poll) {
        /* A poll is answered by whichever port is read next. */
        return pic_poll_read(s);
    }
    if (addr == 1) {
        return s->imr;
    }
    return s->read_isr ? s->isr : s->irr;
}

static const MemoryRegionOps pic_io_ops = {
    .read = pic_io_read,
    .write = pic_io_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static uint64_t pic_elcr_read(void *opaque, uint64_t addr, unsigned size)
{
    PICState *s = opaque;

    return s->elcr;
}

static void pic_elcr_write(void *opaque, uint64_t addr, uint64_t value,
                           unsigned size)
{
    PICState *s = opaque;

    s->elcr = value & s->elcr_mask;
    /* A line turned level-sensitive requests for as long as it is high. */
    for (int n = 0; n < 8; n++) {
        if (pic_level_sensitive(s, n)) {
            s->irr = (s->irr & ~(1u << n)) | (s->lines & (1u << n));
        }
    }
    pic_update(s);
}

static const MemoryRegionOps pic_elcr_ops = {
    .read = pic_elcr_read,
    .write = pic_elcr_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

/* Power-on and system reset: uninitialized, all edge-triggered. */
static void pic_reset(DeviceState *dev)
{
    PICState *s = (PICState *)dev;

    s->elcr = 0;
    pic_icw1(s, 0);
    s->init_state = PIC_READY;
    s->vector_base = 0;
    pic_update(s);
}

static bool pic_realize(DeviceState *dev, Error **errp)
{
    PICState *s = (PICState *)dev;

    memory_region_init_io(&s->io, "pic", &pic_io_ops, s, 2);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        memory_region_finalize(&s->io);
        return false;
    }
    memory_region_init_io(&s->elcr_io, "elcr", &pic_elcr_ops, s, 1);
    if (!isa_register_ioport(dev, &s->elcr_io, s->elcr_addr, errp)) {
        memory_region_finalize(&s->elcr_io);
        memory_region_finalize(&s->io);
        return false;
    }
    qdev_init_gpio_in_named(dev, pic_set_irq, NULL, 8);
    qdev_init_gpio_out_named(dev, &s->int_out, NULL, 1);
    pic_reset(dev);
    return true;
}

static void pic_unrealize(DeviceState *dev)
{
    PICState *s = (PICState *)dev;

    memory_region_finalize(&s->elcr_io);
    memory_region_finalize(&s->io);
}

static const Property pic_props[] = {
    DEFINE_PROP_UINT16("iobase", PICState, iobase, 0x20),
    DEFINE_PROP_UINT16("elcr_addr", PICState, elcr_addr, 0x4d0),
    DEFINE_PROP_UINT8("elcr_mask", PICState, elcr_mask, 0xff),
    DEFINE_PROP_BOOL("master", PICState, master, false),
    PROP_END,
};

/* Migration: the registers and the initialization sequence. */
static const VMStateDescription vmstate_i8259 = {
    .name = "isa-i8259",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(PICState, int_level),
        VMSTATE_U8(PICState, lines),
        VMSTATE_U8(PICState, irr),
        VMSTATE_U8(PICState, isr),
        VMSTATE_U8(PICState, imr),
        VMSTATE_U8(PICState, elcr),
        VMSTATE_U8(PICState, lowest_prio, VMS_RANGE(0, 7)),
        VMSTATE_U8(PICState, vector_base),
        VMS_SCALAR("init_state", PICState, init_state, VMS_U32, PICInitState,
                   VMS_RANGE(PIC_READY, PIC_WANT_ICW4)),
        VMSTATE_BOOL(PICState, icw4_needed),
        VMSTATE_BOOL(PICState, single),
        VMSTATE_BOOL(PICState, ltim),
        VMSTATE_BOOL(PICState, auto_eoi),
        VMSTATE_BOOL(PICState, rotate_on_aeoi),
        VMSTATE_BOOL(PICState, sfnm),
        VMSTATE_BOOL(PICState, special_mask),
        VMSTATE_BOOL(PICState, read_isr),
        VMSTATE_BOOL(PICState, poll),
        VMSTATE_END
    },
};
const DeviceClass i8259_device_class = {
    .name = "isa-i8259",
    .parent = "isa-device",
    .desc = "8259A programmable interrupt controller",
    .instance_size = sizeof(PICState),
    .props = pic_props,
    .user_creatable = false,
    .realize = pic_realize,
    .reset = pic_reset,
    .vmsd = &vmstate_i8259,
    .unrealize = pic_unrealize,
};

DEVICE_CLASS_REGISTER(i8259_device_class)
