/*
 * acpi-pm: ACPI fixed-hardware power management as PIIX4 lays it out
 * (the FADT built by hw/i386/acpi-build.c points at these blocks):
 *
 *   iobase + 0x00  PM1_STS   16 bits, write 1 to clear
 *   iobase + 0x02  PM1_EN    16 bits
 *   iobase + 0x04  PM1_CNT   16 bits: SCI_EN, SLP_TYP, SLP_EN
 *   iobase + 0x08  PM_TMR    24-bit count at 3.579545 MHz, read-only
 *   iobase + 0x0c  GPE0_STS  16 bits, write 1 to clear (no sources yet)
 *   iobase + 0x0e  GPE0_EN   16 bits
 *
 * The SCI (ISA IRQ sci-irq, level, active high) is asserted while
 * SCI_EN is set and an enabled status bit is set. There is no SMI_CMD
 * and no firmware, so the machine is in ACPI mode from reset: SCI_EN
 * resets to 1.
 *
 * The device also owns PIIX3's reset control register (port 0xcf9 by
 * default, reset-port=0 leaves it out), because the FADT names it as the
 * reset register: a write with RCPU (bit 2) set resets the machine. On
 * the pc the i440FX host bridge decodes 0xcf8-0xcff, so the board sets
 * reset-port=0 and lets the bridge forward 0xcf9 to acpi_pm_reset_ops.
 *
 * At realize the device becomes the machine's powerdown handler, so
 * QMP system_powerdown presses its power button.
 */
#include "hw/acpi/pm.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "vmstate/vmstate.h"

#define PM1_STS                 0x00
#define PM1_EN                  0x02
#define PM1_CNT                 0x04
#define PM_TMR                  0x08
#define GPE0_STS                0x0c
#define GPE0_EN                 0x0e

#define PM1_EN_MASK             (ACPI_PM1_TMR_EN | ACPI_PM1_GBL_EN | \
                                 ACPI_PM1_PWRBTN_EN | ACPI_PM1_RTC_EN)
/* Kept bits of PM1_CNT; SLP_EN and GBL_RLS are write-only. */
#define PM1_CNT_MASK            (ACPI_PM1_CNT_SCI_EN | ACPI_PM1_CNT_BM_RLD | \
                                 ACPI_PM1_CNT_SLP_TYP_MASK)

#define PM_TMR_MASK             ((1u << ACPI_PM_TIMER_BITS) - 1)
/* TMR_STS is set when this bit of the count changes. */
#define PM_TMR_STS_BIT          (1ull << (ACPI_PM_TIMER_BITS - 1))

/* PIIX3 RCR bits: SRST (hard reset) and FULL_RST are kept, RCPU acts. */
#define RCR_SRST                (1u << 1)
#define RCR_RCPU                (1u << 2)
#define RCR_FULL_RST            (1u << 3)

typedef struct AcpiPMState {
    DeviceState parent;
    uint32_t iobase;
    uint32_t sci_irq;
    uint32_t reset_port;

    MemoryRegion io;
    MemoryRegion reset_io;
    qemu_irq sci;
    QEMUTimer *tmr_timer;       /* armed while TMR_EN: raises the SCI */
    int64_t tmr_next_ns;        /* when TMR_STS is next set */

    uint16_t pm1_sts;
    uint16_t pm1_en;
    uint16_t pm1_cnt;
    uint16_t gpe0_sts;
    uint16_t gpe0_en;
    uint8_t rcr;
} AcpiPMState;

static uint64_t pm_tmr_ticks(int64_t ns)
{
    return (unsigned __int128)ns * ACPI_PM_TIMER_FREQUENCY /
           NANOSECONDS_PER_SECOND;
}

/* First nanosecond at which the count reaches ticks. */
static int64_t pm_tmr_ticks_to_ns(uint64_t ticks)
{
    unsigned __int128 n = (unsigned __int128)ticks * NANOSECONDS_PER_SECOND;

    return (n + ACPI_PM_TIMER_FREQUENCY - 1) / ACPI_PM_TIMER_FREQUENCY;
}

static int64_t pm_tmr_next_toggle(int64_t now)
{
    uint64_t ticks = pm_tmr_ticks(now);

    return pm_tmr_ticks_to_ns((ticks | (PM_TMR_STS_BIT - 1)) + 1);
}

/* Catch TMR_STS up with the clock: it is only looked at when needed. */
static void pm_tmr_update(AcpiPMState *s, int64_t now)
{
    if (now >= s->tmr_next_ns) {
        s->pm1_sts |= ACPI_PM1_TMR_STS;
        s->tmr_next_ns = pm_tmr_next_toggle(now);
    }
}

static void pm_update_sci(AcpiPMState *s)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    bool level;

    pm_tmr_update(s, now);
    level = (s->pm1_cnt & ACPI_PM1_CNT_SCI_EN) &&
            ((s->pm1_sts & s->pm1_en) || (s->gpe0_sts & s->gpe0_en));
    qemu_set_irq(s->sci, level);

    if (s->pm1_en & ACPI_PM1_TMR_EN) {
        timer_mod(s->tmr_timer, s->tmr_next_ns);
    } else {
        timer_del(s->tmr_timer);
    }
}

static void pm_tmr_timer_cb(void *opaque)
{
    pm_update_sci(opaque);
}

static void pm_sleep(AcpiPMState *s)
{
    unsigned typ = (s->pm1_cnt & ACPI_PM1_CNT_SLP_TYP_MASK) >>
                   ACPI_PM1_CNT_SLP_TYP_SHIFT;

    if (typ == ACPI_PM_SLP_TYP_S5) {
        qemu_system_guest_shutdown(0);
        return;
    }
    /* The DSDT offers no other sleep state; the guest stays awake. */
    qemu_log_mask(LOG_UNIMP, "acpi-pm: sleep type %u not implemented\n",
                  typ);
}

static uint8_t pm_read_byte(AcpiPMState *s, uint64_t addr)
{
    unsigned shift = (addr & 1) * 8;

    switch (addr & ~1ull) {
    case PM1_STS:
        return s->pm1_sts >> shift;
    case PM1_EN:
        return s->pm1_en >> shift;
    case PM1_CNT:
        return s->pm1_cnt >> shift;
    case GPE0_STS:
        return s->gpe0_sts >> shift;
    case GPE0_EN:
        return s->gpe0_en >> shift;
    default:
        return 0;               /* 0x06-0x07: reserved */
    }
}

static void pm_write_byte(AcpiPMState *s, uint64_t addr, uint8_t value)
{
    unsigned shift = (addr & 1) * 8;
    uint16_t bits = value << shift;
    uint16_t keep = 0xff00 >> shift;

    switch (addr & ~1ull) {
    case PM1_STS:
        s->pm1_sts &= ~bits;
        break;
    case PM1_EN:
        s->pm1_en = ((s->pm1_en & keep) | bits) & PM1_EN_MASK;
        break;
    case PM1_CNT:
        s->pm1_cnt = ((s->pm1_cnt & keep) | bits) & PM1_CNT_MASK;
        if (bits & ACPI_PM1_CNT_SLP_EN) {
            pm_sleep(s);
        }
        break;
    case GPE0_STS:
        s->gpe0_sts &= ~bits;
        break;
    case GPE0_EN:
        s->gpe0_en = (s->gpe0_en & keep) | bits;
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR,
                      "acpi-pm: write 0x%02x to reserved offset 0x%02x\n",
                      value, (unsigned)addr);
        break;
    }
}

static uint64_t pm_read(void *opaque, uint64_t addr, unsigned size)
{
    AcpiPMState *s = opaque;
    uint64_t value = 0;

    if (addr >= PM_TMR && addr < PM_TMR + ACPI_PM_TMR_LEN) {
        /* One read of the count, so a wide read never tears. */
        uint64_t ticks = pm_tmr_ticks(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));

        return ((ticks & PM_TMR_MASK) >> ((addr - PM_TMR) * 8));
    }
    if (addr < PM1_STS + 2) {
        pm_tmr_update(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
    for (unsigned i = 0; i < size; i++) {
        value |= (uint64_t)pm_read_byte(s, addr + i) << (8 * i);
    }
    return value;
}

static void pm_write(void *opaque, uint64_t addr, uint64_t value,
                     unsigned size)
{
    AcpiPMState *s = opaque;

    if (addr >= PM_TMR && addr < PM_TMR + ACPI_PM_TMR_LEN) {
        qemu_log_mask(LOG_GUEST_ERROR, "acpi-pm: write to the PM timer\n");
        return;
    }
    /* A status bit that came due must be there before it is cleared. */
    pm_tmr_update(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    for (unsigned i = 0; i < size; i++) {
        pm_write_byte(s, addr + i, value >> (8 * i));
    }
    pm_update_sci(s);
}

/*
 * The timer needs whole reads, the other registers any byte mix: the
 * callbacks see aligned 1, 2 or 4-byte accesses and take them apart.
 */
static const MemoryRegionOps pm_ops = {
    .read = pm_read,
    .write = pm_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static uint64_t reset_read(void *opaque, uint64_t addr, unsigned size)
{
    AcpiPMState *s = opaque;

    return s->rcr;
}

static void reset_write(void *opaque, uint64_t addr, uint64_t value,
                        unsigned size)
{
    AcpiPMState *s = opaque;

    if (value & RCR_RCPU) {
        qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
        return;
    }
    s->rcr = value & (RCR_SRST | RCR_FULL_RST);
}

const MemoryRegionOps acpi_pm_reset_ops = {
    .read = reset_read,
    .write = reset_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

void acpi_pm_power_button(DeviceState *dev)
{
    AcpiPMState *s = (AcpiPMState *)dev;

    s->pm1_sts |= ACPI_PM1_PWRBTN_STS;
    pm_update_sci(s);
}

static void pm_powerdown(void *opaque)
{
    acpi_pm_power_button(opaque);
}

static void pm_reset(DeviceState *dev)
{
    AcpiPMState *s = (AcpiPMState *)dev;

    s->pm1_sts = 0;
    s->pm1_en = 0;
    s->pm1_cnt = ACPI_PM1_CNT_SCI_EN;
    s->gpe0_sts = 0;
    s->gpe0_en = 0;
    s->rcr = 0;
    s->tmr_next_ns = pm_tmr_next_toggle(qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    pm_update_sci(s);
}

static bool pm_realize(DeviceState *dev, Error **errp)
{
    AcpiPMState *s = (AcpiPMState *)dev;

    if (s->iobase > 0x10000 - ACPI_PM_IO_SIZE) {
        error_setg(errp, "acpi-pm: iobase 0x%x: the %u ports must lie in "
                   "0-0xffff", s->iobase, ACPI_PM_IO_SIZE);
        return false;
    }
    if (s->sci_irq >= ISA_NUM_IRQS) {
        error_setg(errp, "acpi-pm: sci-irq %u: must be an ISA IRQ, 0-%d",
                   s->sci_irq, ISA_NUM_IRQS - 1);
        return false;
    }
    if (s->reset_port > 0xffff) {
        error_setg(errp, "acpi-pm: reset-port 0x%x: must be a port "
                   "0-0xffff (0: none)", s->reset_port);
        return false;
    }
    memory_region_init_io(&s->io, "acpi-pm", &pm_ops, s, ACPI_PM_IO_SIZE);
    if (!isa_register_ioport(dev, &s->io, s->iobase, errp)) {
        goto err_io;
    }
    if (s->reset_port) {
        memory_region_init_io(&s->reset_io, "acpi-pm-reset", &acpi_pm_reset_ops, s,
                              1);
        if (!isa_register_ioport(dev, &s->reset_io, s->reset_port, errp)) {
            goto err_reset_io;
        }
    }
    s->sci = isa_get_irq(s->sci_irq);
    /* qdev_realize() resets the registers next. */
    s->tmr_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, pm_tmr_timer_cb, s);
    qemu_register_powerdown_handler(pm_powerdown, dev);
    return true;

err_reset_io:
    memory_region_finalize(&s->reset_io);
err_io:
    memory_region_finalize(&s->io);
    return false;
}

static void pm_unrealize(DeviceState *dev)
{
    AcpiPMState *s = (AcpiPMState *)dev;

    qemu_register_powerdown_handler(NULL, NULL);
    timer_free(s->tmr_timer);
    if (s->reset_port) {
        memory_region_finalize(&s->reset_io);
    }
    memory_region_finalize(&s->io);
}

static const Property pm_props[] = {
    DEFINE_PROP_UINT32("iobase", AcpiPMState, iobase,
                       ACPI_PM_DEFAULT_IOBASE),
    DEFINE_PROP_UINT32("sci-irq", AcpiPMState, sci_irq,
                       ACPI_PM_DEFAULT_SCI_IRQ),
    DEFINE_PROP_UINT32("reset-port", AcpiPMState, reset_port,
                       ACPI_PM_RESET_PORT),
    PROP_END,
};

/* Migration: the PM1/GPE0 registers and the PM timer's overflow timer. */
static const VMStateDescription vmstate_acpi_pm = {
    .name = "acpi-pm",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_TIMER(AcpiPMState, tmr_timer),
        VMSTATE_I64(AcpiPMState, tmr_next_ns),
        VMSTATE_U16(AcpiPMState, pm1_sts),
        VMSTATE_U16(AcpiPMState, pm1_en),
        VMSTATE_U16(AcpiPMState, pm1_cnt),
        VMSTATE_U16(AcpiPMState, gpe0_sts),
        VMSTATE_U16(AcpiPMState, gpe0_en),
        VMSTATE_U8(AcpiPMState, rcr),
        VMSTATE_END
    },
};
const DeviceClass acpi_pm_device_class = {
    .name = "acpi-pm",
    .parent = "isa-device",
    .desc = "ACPI power management (PM1, PM timer, GPE0) and reset register",
    .category = "Misc devices",
    .instance_size = sizeof(AcpiPMState),
    .props = pm_props,
    .user_creatable = true,
    .realize = pm_realize,
    .reset = pm_reset,
    .vmsd = &vmstate_acpi_pm,
    .unrealize = pm_unrealize,
};

DEVICE_CLASS_REGISTER(acpi_pm_device_class)
