/*
 * "hpet": the High Precision Event Timer of QEMU's pc (IA-PC HPET
 * specification 1.0a), at 0xfed00000: a 64-bit main counter at 100 MHz
 * and three timers (property "timers", 3-32), each with a comparator,
 * one-shot or periodic, 64- or 32-bit, edge or level, routed to the
 * IOAPIC pins its capability names ("hpet-intcap": pin 2 on pc, as
 * QEMU's). There is no FSB (MSI) delivery, as QEMU's default; its
 * enable bit reads 0 (QEMU 7.2 lets a guest set it all the same).
 *
 * Outputs: the unnamed GPIOs 0-23 are the GSIs (the board wires 0-15
 * to the ISA lines, PIC and IOAPIC, 16-23 to the IOAPIC). Legacy
 * replacement (HPET_CFG bit 1) routes timer 0 to IRQ 0 (IOAPIC pin 2)
 * and timer 1 to IRQ 8, and silences the PIT and the RTC: their outputs
 * come in on the "legacy" inputs and pass through only while it is off;
 * the "pit-enable" output tells the PIT (KVM's in-kernel one counts on
 * regardless) to stop.
 *
 * Time: the counter is counter + (now - start_ns) / 10 while enabled,
 * now being QEMU_CLOCK_VIRTUAL, so under qtest clock_step moves it
 * exactly. A timer arms a virtual-clock timer for its next match. As in
 * QEMU, a comparator at or behind the counter (half the counter's range
 * back) fires at the next tick, a periodic timer catches up without
 * replaying missed periods, and a 32-bit one-shot timer also fires when
 * the counter's low half wraps.
 *
 * Accesses are dwords (QEMU 7.2 takes nothing else); a qword is split
 * into two, low half first.
 */
#include <inttypes.h>

#include "hw/irq.h"
#include "hw/qdev.h"
#include "hw/timer/hpet.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define HPET_NS_PER_TICK    (HPET_PERIOD_FS / 1000000)
#define HPET_RTC_ISA_IRQ    8

typedef struct HPETState HPETState;

typedef struct HPETTimer {
    HPETState *hpet;
    unsigned index;
    QEMUTimer *timer;
    uint64_t config;            /* low: Tn_CONF; high: Tn_INT_ROUTE_CAP */
    uint64_t cmp;
    uint64_t period;            /* periodic mode: the last value written */
    bool wrap_pending;          /* 32-bit one-shot: armed for the wrap */
} HPETTimer;

struct HPETState {
    DeviceState parent;
    MemoryRegion mmio;
    qemu_irq irqs[HPET_NUM_IRQ_ROUTES];
    qemu_irq pit_enable;
    uint8_t num_timers_prop;
    uint32_t intcap;
    unsigned num_timers;
    HPETTimer *timers;

    uint64_t capability;
    uint64_t config;
    uint64_t isr;
    uint64_t counter;           /* the count at start_ns (or when halted) */
    int64_t start_ns;
    bool rtc_level;             /* the RTC's line, held for legacy off */
};

static bool hpet_enabled(HPETState *s)
{
    return s->config & HPET_CFG_ENABLE;
}

static bool hpet_legacy(HPETState *s)
{
    return s->config & HPET_CFG_LEGACY;
}

static bool timer_enabled(HPETTimer *t)
{
    return t->config & HPET_TN_ENABLE;
}

static bool timer_periodic(HPETTimer *t)
{
    return t->config & HPET_TN_PERIODIC;
}

static bool timer_32bit(HPETTimer *t)
{
    return t->config & HPET_TN_32BIT;
}

static uint64_t hpet_ticks(HPETState *s, int64_t now)
{
    if (!hpet_enabled(s)) {
        return s->counter;
    }
    return s->counter + (uint64_t)(now - s->start_ns) / HPET_NS_PER_TICK;
}

/* When the running counter reaches cur + d (cur: its value at now). */
static int64_t hpet_deadline(HPETState *s, uint64_t cur, uint64_t d)
{
    uint64_t k = cur - s->counter + d;

    if (k > (uint64_t)(INT64_MAX - s->start_ns) / HPET_NS_PER_TICK) {
        return INT64_MAX;
    }
    return s->start_ns + (int64_t)(k * HPET_NS_PER_TICK);
}

/* Ticks from cur to the comparator's match, 1 if it is not ahead. */
static uint64_t timer_diff(HPETTimer *t, uint64_t cur)
{
    if (timer_32bit(t)) {
        uint32_t d = (uint32_t)t->cmp - (uint32_t)cur;

        return (int32_t)d > 0 ? d : 1;
    } else {
        uint64_t d = t->cmp - cur;

        return (int64_t)d > 0 ? d : 1;
    }
}

/* GSI of the timer's interrupt. */
static unsigned timer_route(HPETTimer *t)
{
    if (t->index <= 1 && hpet_legacy(t->hpet)) {
        return t->index == 0 ? 0 : HPET_RTC_ISA_IRQ;
    }
    return (t->config & HPET_TN_INT_ROUTE_MASK) >> HPET_TN_INT_ROUTE_SHIFT;
}

static void timer_set_line(HPETTimer *t, unsigned route, int level)
{
    if (route >= HPET_NUM_IRQ_ROUTES) {
        qemu_log_mask(LOG_GUEST_ERROR, "hpet: timer %u routed to GSI %u, "
                      "which does not exist\n", t->index, route);
        return;
    }
    qemu_set_irq(t->hpet->irqs[route], level);
}

/* Raise (fire) or lower the timer's interrupt, as QEMU's update_irq. */
static void timer_update_irq(HPETTimer *t, bool fire)
{
    HPETState *s = t->hpet;
    uint64_t mask = 1ull << t->index;
    unsigned route = timer_route(t);

    if (!fire || !timer_enabled(t) || !hpet_enabled(s)) {
        s->isr &= ~mask;
        timer_set_line(t, route, 0);
    } else if (t->config & HPET_TN_TYPE_LEVEL) {
        s->isr |= mask;
        timer_set_line(t, route, 1);
    } else {
        s->isr &= ~mask;
        timer_set_line(t, route, 1);
        timer_set_line(t, route, 0);
    }
}

/* Arm the virtual-clock timer for the next match (or wrap). */
static void timer_arm(HPETTimer *t)
{
    HPETState *s = t->hpet;
    uint64_t cur, d;

    if (!hpet_enabled(s) || !timer_enabled(t)) {
        timer_del(t->timer);
        return;
    }
    cur = hpet_ticks(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    d = timer_diff(t, cur);
    t->wrap_pending = false;
    if (timer_32bit(t) && !timer_periodic(t)) {
        uint64_t to_wrap = (1ull << 32) - (uint32_t)cur;

        if (to_wrap < d) {
            d = to_wrap;
            t->wrap_pending = true;
        }
    }
    timer_mod(t->timer, hpet_deadline(s, cur, d));
}

static void timer_stop(HPETTimer *t)
{
    timer_del(t->timer);
    timer_update_irq(t, false);
}

/* Move a periodic comparator past cur, by whole periods. */
static void timer_advance(HPETTimer *t, uint64_t cur)
{
    if (timer_32bit(t)) {
        uint32_t behind = (uint32_t)cur - (uint32_t)t->cmp;

        if ((int32_t)behind >= 0) {
            uint64_t n = behind / (uint32_t)t->period + 1;

            t->cmp = (uint32_t)(t->cmp + n * t->period);
        }
    } else {
        uint64_t behind = cur - t->cmp;

        if ((int64_t)behind >= 0) {
            t->cmp += (behind / t->period + 1) * t->period;
        }
    }
}

static void timer_expired(void *opaque)
{
    HPETTimer *t = opaque;
    HPETState *s = t->hpet;
    uint64_t cur = hpet_ticks(s, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));

    if (timer_periodic(t) && t->period) {
        timer_advance(t, cur);
        timer_arm(t);
    } else if (t->wrap_pending) {
        timer_arm(t);
    }
    timer_update_irq(t, true);
}

/* --- registers ---------------------------------------------------------- */

static uint64_t hpet_timer_read(HPETState *s, uint64_t addr)
{
    unsigned n = (addr - HPET_TN_BASE) / HPET_TN_SIZE;
    HPETTimer *t;

    if (n >= s->num_timers) {
        return 0;
    }
    t = &s->timers[n];
    switch ((addr - HPET_TN_BASE) % HPET_TN_SIZE) {
    case HPET_TN_CFG:
        return (uint32_t)t->config;
    case HPET_TN_CFG + 4:
        return t->config >> 32;
    case HPET_TN_CMP:
        return (uint32_t)t->cmp;
    case HPET_TN_CMP + 4:
        return t->cmp >> 32;
    default:
        return 0;       /* FSB route: no FSB delivery */
    }
}

static uint64_t hpet_read(void *opaque, uint64_t addr, unsigned size)
{
    HPETState *s = opaque;
    uint64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);

    if (addr >= HPET_TN_BASE) {
        return hpet_timer_read(s, addr);
    }
    switch (addr) {
    case HPET_ID:
        return (uint32_t)s->capability;
    case HPET_PERIOD:
        return s->capability >> 32;
    case HPET_CFG:
        return s->config;
    case HPET_STATUS:
        return s->isr;
    case HPET_COUNTER:
        return (uint32_t)hpet_ticks(s, now);
    case HPET_COUNTER + 4:
        return hpet_ticks(s, now) >> 32;
    default:
        return 0;
    }
}

static void hpet_timer_write_cfg(HPETTimer *t, uint32_t val)
{
    uint32_t old = t->config;

    t->config = (t->config & ~(uint64_t)HPET_TN_CFG_WRITE_MASK) |
                (val & HPET_TN_CFG_WRITE_MASK);
    if (t->config & HPET_TN_32BIT) {
        t->cmp = (uint32_t)t->cmp;
        t->period = (uint32_t)t->period;
    }
    if (!(old & HPET_TN_ENABLE) && (val & HPET_TN_ENABLE)) {
        timer_arm(t);
    } else if ((old & HPET_TN_ENABLE) && !(val & HPET_TN_ENABLE)) {
        timer_stop(t);
    }
}

/*
 * The comparator: a one-shot timer (or a periodic one with SETVAL)
 * takes the value; a periodic timer takes it as its period, clamped to
 * half the counter's range as QEMU does.
 */
static void hpet_timer_write_cmp(HPETTimer *t, bool high, uint32_t val)
{
    unsigned shift = high ? 32 : 0;
    uint64_t keep = high ? 0xffffffffull : ~0xffffffffull;

    if (high && timer_32bit(t)) {
        val = 0;
    }
    if (!timer_periodic(t) || (t->config & HPET_TN_SETVAL)) {
        t->cmp = (t->cmp & keep) | (uint64_t)val << shift;
    }
    if (timer_periodic(t)) {
        uint64_t limit = timer_32bit(t) ? INT32_MAX : INT64_MAX;

        t->period = ((t->period & keep) | (uint64_t)val << shift) & limit;
    }
    t->config &= ~(uint64_t)HPET_TN_SETVAL;
    if (hpet_enabled(t->hpet)) {
        timer_arm(t);
    }
}

static void hpet_timer_write(HPETState *s, uint64_t addr, uint32_t val)
{
    unsigned n = (addr - HPET_TN_BASE) / HPET_TN_SIZE;
    HPETTimer *t;

    if (n >= s->num_timers) {
        return;
    }
    t = &s->timers[n];
    switch ((addr - HPET_TN_BASE) % HPET_TN_SIZE) {
    case HPET_TN_CFG:
        hpet_timer_write_cfg(t, val);
        break;
    case HPET_TN_CMP:
        hpet_timer_write_cmp(t, false, val);
        break;
    case HPET_TN_CMP + 4:
        hpet_timer_write_cmp(t, true, val);
        break;
    default:
        break;          /* capabilities and FSB route: read-only here */
    }
}

static void hpet_write_cfg(HPETState *s, uint32_t val)
{
    uint64_t old = s->config;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    uint64_t cur = hpet_ticks(s, now);

    s->config = val & (HPET_CFG_ENABLE | HPET_CFG_LEGACY);
    if (!(old & HPET_CFG_ENABLE) && hpet_enabled(s)) {
        s->start_ns = now;
        for (unsigned i = 0; i < s->num_timers; i++) {
            if (s->timers[i].cmp != ~0ull) {
                timer_arm(&s->timers[i]);
            }
        }
    } else if ((old & HPET_CFG_ENABLE) && !hpet_enabled(s)) {
        s->counter = cur;
        for (unsigned i = 0; i < s->num_timers; i++) {
            timer_stop(&s->timers[i]);
        }
    }
    if (!(old & HPET_CFG_LEGACY) && hpet_legacy(s)) {
        qemu_set_irq(s->pit_enable, 0);
        qemu_irq_lower(s->irqs[0]);
        qemu_irq_lower(s->irqs[HPET_RTC_ISA_IRQ]);
    } else if ((old & HPET_CFG_LEGACY) && !hpet_legacy(s)) {
        qemu_irq_lower(s->irqs[0]);
        qemu_set_irq(s->pit_enable, 1);
        qemu_set_irq(s->irqs[HPET_RTC_ISA_IRQ], s->rtc_level);
    }
}

static void hpet_write(void *opaque, uint64_t addr, uint64_t value,
                       unsigned size)
{
    HPETState *s = opaque;
    uint32_t val = value;

    if (addr >= HPET_TN_BASE) {
        hpet_timer_write(s, addr, val);
        return;
    }
    switch (addr) {
    case HPET_CFG:
        hpet_write_cfg(s, val);
        break;
    case HPET_STATUS:
        /* Write 1 to clear a level-triggered timer's status (and line). */
        for (unsigned i = 0; i < s->num_timers; i++) {
            if (val & s->isr & (1ull << i)) {
                timer_update_irq(&s->timers[i], false);
            }
        }
        break;
    case HPET_COUNTER:
    case HPET_COUNTER + 4:
        if (hpet_enabled(s)) {
            qemu_log_mask(LOG_GUEST_ERROR, "hpet: counter written while "
                          "running: ignored\n");
        } else if (addr == HPET_COUNTER) {
            s->counter = (s->counter & ~0xffffffffull) | val;
        } else {
            s->counter = (s->counter & 0xffffffffull) | (uint64_t)val << 32;
        }
        break;
    default:
        break;          /* capabilities: read-only */
    }
}

static const MemoryRegionOps hpet_mmio_ops = {
    .read = hpet_read,
    .write = hpet_write,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* The PIT's (0) and the RTC's (1) lines, silenced by legacy routing. */
static void hpet_legacy_in(void *opaque, int n, int level)
{
    HPETState *s = opaque;

    if (n == HPET_LEGACY_RTC_INT) {
        s->rtc_level = level;
    }
    if (!hpet_legacy(s)) {
        qemu_set_irq(s->irqs[n == HPET_LEGACY_PIT_INT ? 0 : HPET_RTC_ISA_IRQ],
                     level);
    }
}

static void hpet_reset(DeviceState *dev)
{
    HPETState *s = (HPETState *)dev;

    for (unsigned i = 0; i < s->num_timers; i++) {
        HPETTimer *t = &s->timers[i];

        timer_stop(t);
        t->cmp = ~0ull;
        t->config = HPET_TN_PERIODIC_CAP | HPET_TN_SIZE_CAP |
                    (uint64_t)s->intcap << 32;
        t->period = 0;
        t->wrap_pending = false;
    }
    qemu_set_irq(s->pit_enable, 1);
    s->counter = 0;
    s->start_ns = 0;
    s->config = 0;
    s->isr = 0;
    s->rtc_level = false;
}

static bool hpet_realize(DeviceState *dev, Error **errp)
{
    HPETState *s = (HPETState *)dev;

    if (s->num_timers_prop < HPET_DEFAULT_TIMERS ||
        s->num_timers_prop > HPET_MAX_TIMERS) {
        error_setg(errp, "hpet: timers=%u is out of range (%d-%d)",
                   s->num_timers_prop, HPET_DEFAULT_TIMERS, HPET_MAX_TIMERS);
        return false;
    }
    s->num_timers = s->num_timers_prop;
    s->capability = HPET_ID_VENDOR | HPET_ID_LEG_RT_CAP |
                    HPET_ID_COUNT_SIZE_CAP |
                    (s->num_timers - 1) << HPET_ID_NUM_TIM_SHIFT |
                    HPET_ID_REV | (uint64_t)HPET_PERIOD_FS << 32;
    memory_region_init_io(&s->mmio, "hpet", &hpet_mmio_ops, s, HPET_LEN);
    if (!address_space_map_region(&address_space_memory, &s->mmio,
                                  HPET_BASE, errp)) {
        memory_region_finalize(&s->mmio);
        return false;
    }
    s->timers = g_new0(HPETTimer, s->num_timers);
    for (unsigned i = 0; i < s->num_timers; i++) {
        s->timers[i].hpet = s;
        s->timers[i].index = i;
        s->timers[i].timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, timer_expired,
                                          &s->timers[i]);
    }
    qdev_init_gpio_out_named(dev, s->irqs, NULL, HPET_NUM_IRQ_ROUTES);
    qdev_init_gpio_out_named(dev, &s->pit_enable, "pit-enable", 1);
    qdev_init_gpio_in_named(dev, hpet_legacy_in, "legacy", 2);
    hpet_reset(dev);
    return true;
}

static void hpet_unrealize(DeviceState *dev)
{
    HPETState *s = (HPETState *)dev;

    for (unsigned i = 0; i < s->num_timers; i++) {
        timer_free(s->timers[i].timer);
    }
    g_free(s->timers);
    s->timers = NULL;
    memory_region_finalize(&s->mmio);
}

static const Property hpet_props[] = {
    DEFINE_PROP_UINT8("timers", HPETState, num_timers_prop,
                      HPET_DEFAULT_TIMERS),
    DEFINE_PROP_UINT32("hpet-intcap", HPETState, intcap, HPET_PC_INTCAP),
    PROP_END,
};

/* Migration: registers, the counter's base on the guest clock, timers. */
static bool hpet_timer_check(void *opaque, const VMStateField *f,
                             Error **errp)
{
    HPETTimer *t = opaque;

    if (t->config & ~(HPET_TN_CFG_WRITE_MASK | HPET_TN_PERIODIC_CAP |
                      HPET_TN_SIZE_CAP | 0xffffffff00000000ull)) {
        error_setg(errp, "timer configuration 0x%" PRIx64 " has bits no "
                   "guest can set", t->config);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_hpet_timer = {
    .name = "hpet-timer",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U64(HPETTimer, config, .check = hpet_timer_check),
        VMSTATE_U64(HPETTimer, cmp),
        VMSTATE_U64(HPETTimer, period),
        VMSTATE_BOOL(HPETTimer, wrap_pending),
        VMSTATE_TIMER(HPETTimer, timer),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_hpet = {
    .name = "hpet",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U64(HPETState, config, VMS_RANGE(0, 3)),
        VMSTATE_U64(HPETState, isr),
        VMSTATE_U64(HPETState, counter),
        VMSTATE_I64(HPETState, start_ns),
        VMSTATE_BOOL(HPETState, rtc_level),
        VMSTATE_STRUCT_VARRAY_POINTER(HPETState, timers, num_timers,
                                      HPETTimer, vmstate_hpet_timer),
        VMSTATE_END
    },
};

const DeviceClass hpet_device_class = {
    .name = "hpet",
    .parent = "sys-bus-device",
    .desc = "HPET",
    .instance_size = sizeof(HPETState),
    .props = hpet_props,
    .realize = hpet_realize,
    .reset = hpet_reset,
    .vmsd = &vmstate_hpet,
    .unrealize = hpet_unrealize,
};

DEVICE_CLASS_REGISTER(hpet_device_class)
