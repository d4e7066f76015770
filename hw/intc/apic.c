/*
 * The local APIC of each vCPU in xAPIC mode (Intel SDM vol. 3A ch. 10),
 * version 0x14 with six LVT entries as QEMU's; x2APIC is not offered.
 * Used under tcg and qtest; under kvm the in-kernel APIC stays.
 *
 * One 4 KiB page at APIC_DEFAULT_ADDRESS serves every APIC: an access
 * reaches the APIC of the vCPU making it (the access's attributes give
 * its index: system/memory.h MemTxAttrs), or CPU 0's when no vCPU does
 * (qtest, DMA). Registers sit 16 bytes apart and take
 * 32-bit accesses; narrower reads see part of the register, other
 * writes are ignored (as KVM does).
 *
 * The timer counts at 1 GHz / divide on QEMU_CLOCK_VIRTUAL (QEMU's and
 * KVM's bus clock), so under qtest clock_step moves it exactly. A
 * periodic timer is only armed while its interrupt could be taken (LVT
 * unmasked, vector not already in the IRR): a short period cannot flood
 * the timer list, and ticks that would be lost anyway are skipped.
 *
 * Each APIC is also a device, /machine/unattached/lapic[N], with the
 * pins a board or a qtest can drive: inputs "lint" (LINT0, LINT1) and
 * "inta" (a rising edge is the CPU's interrupt acknowledge, what a vCPU
 * does with apic_get_interrupt(); a qtest stands in for the CPU with
 * it), and output "intr" (apic_has_interrupt(), what hooks->interrupt
 * is told).
 *
 * Everything here runs with the big lock held.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/intc/apic.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "target/i386/cpu.h"
#include "vmstate/vmstate.h"

/* Register offsets. */
#define APIC_REG_ID         0x020
#define APIC_REG_VERSION    0x030
#define APIC_REG_TPR        0x080
#define APIC_REG_APR        0x090
#define APIC_REG_PPR        0x0a0
#define APIC_REG_EOI        0x0b0
#define APIC_REG_RRD        0x0c0
#define APIC_REG_LDR        0x0d0
#define APIC_REG_DFR        0x0e0
#define APIC_REG_SVR        0x0f0
#define APIC_REG_ISR        0x100
#define APIC_REG_TMR        0x180
#define APIC_REG_IRR        0x200
#define APIC_REG_ESR        0x280
#define APIC_REG_ICR_LO     0x300
#define APIC_REG_ICR_HI     0x310
#define APIC_REG_LVT        0x320       /* six entries, 0x320..0x370 */
#define APIC_REG_TIMER_ICR  0x380
#define APIC_REG_TIMER_CCR  0x390
#define APIC_REG_TIMER_DCR  0x3e0

#define APIC_VERSION        0x00050014  /* max LVT entry 5, version 0x14 */

enum {
    APIC_LVT_TIMER, APIC_LVT_THERMAL, APIC_LVT_PERF, APIC_LVT_LINT0,
    APIC_LVT_LINT1, APIC_LVT_ERROR, APIC_LVT_NB,
};

#define APIC_VECTOR_MASK    0xffu
#define APIC_LVT_DM_SHIFT   8
#define APIC_LVT_DM_MASK    7u
#define APIC_LVT_MASKED     (1u << 16)
#define APIC_LVT_TIMER_MODE_SHIFT 17
#define APIC_TIMER_ONESHOT  0
#define APIC_TIMER_PERIODIC 1
#define APIC_TIMER_DEADLINE 2

/* Writable bits of each LVT entry (delivery status is read-only). */
static const uint32_t apic_lvt_writable[APIC_LVT_NB] = {
    [APIC_LVT_TIMER] = 0x000700ff,      /* vector, mask, mode */
    [APIC_LVT_THERMAL] = 0x000107ff,    /* vector, delivery mode, mask */
    [APIC_LVT_PERF] = 0x000107ff,
    [APIC_LVT_LINT0] = 0x0001a7ff,      /* + polarity, trigger mode */
    [APIC_LVT_LINT1] = 0x0001a7ff,
    [APIC_LVT_ERROR] = 0x000100ff,      /* vector, mask */
};

#define APIC_SVR_ENABLE     (1u << 8)
#define APIC_SVR_NO_FOCUS   (1u << 9)
#define APIC_SVR_WRITABLE   0x3ffu
#define APIC_DFR_FLAT       0xfu
#define APIC_DFR_CLUSTER    0x0u

#define APIC_ICR_DM_SHIFT   8
#define APIC_ICR_LOGICAL    (1u << 11)
#define APIC_ICR_BUSY       (1u << 12)
#define APIC_ICR_ASSERT     (1u << 14)
#define APIC_ICR_LEVEL      (1u << 15)
#define APIC_ICR_SHORT_SHIFT 18
enum { APIC_SH_NONE, APIC_SH_SELF, APIC_SH_ALL, APIC_SH_OTHERS };

#define APIC_ESR_SEND_ILLEGAL_VECTOR    (1u << 5)
#define APIC_ESR_RECV_ILLEGAL_VECTOR    (1u << 6)
#define APIC_ESR_ILLEGAL_REGISTER       (1u << 7)

#define APIC_BASE_RESERVED  (0xfff0000000000000ull | 0x2ffull)
#define APIC_BASE_X2APIC    (1ull << 10)
#define APIC_BASE_ADDR_MASK 0x000ffffffffff000ull

#define APIC_BROADCAST      0xff

typedef struct APICDevice APICDevice;

struct APICState {
    unsigned index;                 /* creation order: CPU index */
    bool bsp;
    uint8_t initial_id;
    const APICCpuHooks *hooks;      /* may be NULL, as may any hook */
    void *cpu;
    APICDevice *dev;

    uint64_t base;                  /* IA32_APIC_BASE */
    uint8_t id;
    uint8_t tpr;
    uint8_t ldr;                    /* LDR bits 31:24 */
    uint32_t dfr;
    uint32_t svr;
    uint32_t isr[8], tmr[8], irr[8];
    uint32_t esr;                   /* what the last ESR write latched */
    uint32_t esr_pending;           /* errors seen since */
    uint32_t icr_lo, icr_hi;
    uint32_t lvt[APIC_LVT_NB];
    int lint_level[2];
    bool extint_pending;            /* an ExtINT message awaits INTA */
    /* Who answers the INTA cycle of an ExtINT (the board's i8259). */
    int (*extint_ack)(void *opaque);
    void *extint_opaque;
    /* Who learns of level-triggered EOIs (the board's I/O APIC). */
    void (*eoi_notify)(void *opaque, uint8_t vector);
    void *eoi_opaque;

    uint32_t divide;                /* divide configuration register */
    uint32_t initial_count;
    int64_t load_ns;                /* when the count was (re)loaded */
    uint64_t tsc_deadline;
    QEMUTimer *timer;
};

struct APICDevice {
    DeviceState parent;
    APICState *apic;
    qemu_irq intr;                  /* output: apic_has_interrupt() */
};

static GPtrArray *apics;            /* of APICState *, creation order */
static MemoryRegion apic_mmio;

static void apic_update_irq(APICState *s);
static void apic_timer_resume(APICState *s);

/* 256-bit registers (ISR, TMR, IRR). */
static bool apic_bit_test(const uint32_t *r, unsigned v)
{
    return r[v / 32] & (1u << (v % 32));
}

static void apic_bit_set(uint32_t *r, unsigned v)
{
    r[v / 32] |= 1u << (v % 32);
}

static void apic_bit_clear(uint32_t *r, unsigned v)
{
    r[v / 32] &= ~(1u << (v % 32));
}

static int apic_bit_highest(const uint32_t *r)
{
    for (int i = 7; i >= 0; i--) {
        if (r[i]) {
            return i * 32 + 31 - __builtin_clz(r[i]);
        }
    }
    return -1;
}

static bool apic_hw_enabled(const APICState *s)
{
    return s->base & MSR_IA32_APICBASE_ENABLE;
}

static bool apic_sw_enabled(const APICState *s)
{
    return s->svr & APIC_SVR_ENABLE;
}

static unsigned apic_lvt_mode(uint32_t lvt)
{
    return (lvt >> APIC_LVT_DM_SHIFT) & APIC_LVT_DM_MASK;
}

static unsigned apic_timer_mode(const APICState *s)
{
    return (s->lvt[APIC_LVT_TIMER] >> APIC_LVT_TIMER_MODE_SHIFT) & 3;
}

/* The i8259's INT line and INTA cycle, if the PIC is built in. */
/* PPR: the TPR, or the class of the highest in-service vector. */
static uint8_t apic_ppr(const APICState *s)
{
    int isrv = apic_bit_highest(s->isr);
    uint8_t isr_class = isrv < 0 ? 0 : isrv & 0xf0;

    return (s->tpr & 0xf0) >= isr_class ? s->tpr : isr_class;
}

/* The vector the APIC would hand the CPU now, or -1. */
static int apic_deliverable_vector(const APICState *s)
{
    int irrv;

    if (!apic_sw_enabled(s)) {
        return -1;
    }
    irrv = apic_bit_highest(s->irr);
    if (irrv < 0 || (irrv & 0xf0) <= (apic_ppr(s) & 0xf0)) {
        return -1;
    }
    return irrv;
}

/* LINT0 in ExtINT mode passes the PIC's INT line through. */
static bool apic_extint_pending(const APICState *s)
{
    uint32_t lvt = s->lvt[APIC_LVT_LINT0];

    if (s->extint_pending) {
        return true;
    }
    return !(lvt & APIC_LVT_MASKED) && apic_lvt_mode(lvt) == APIC_DM_EXTINT &&
           s->lint_level[0];
}

bool apic_has_interrupt(APICState *s)
{
    if (!apic_hw_enabled(s)) {
        /* A disabled APIC is not there: the PIC drives INTR directly. */
        return s->lint_level[0];
    }
    return apic_deliverable_vector(s) >= 0 || apic_extint_pending(s);
}

/* The INTA cycle of ExtINT: the vector the PIC gives, -1 without one. */
static int apic_extint_ack(APICState *s)
{
    return s->extint_ack ? s->extint_ack(s->extint_opaque) : -1;
}

int apic_get_interrupt(APICState *s)
{
    int v;

    if (!apic_hw_enabled(s)) {
        v = s->lint_level[0] ? apic_extint_ack(s) : -1;
        apic_update_irq(s);
        return v;
    }
    v = apic_deliverable_vector(s);
    if (v >= 0) {
        apic_bit_clear(s->irr, v);
        apic_bit_set(s->isr, v);
        /* The timer may have been holding back a tick for this slot. */
        apic_timer_resume(s);
    } else if (apic_extint_pending(s)) {
        s->extint_pending = false;
        v = apic_extint_ack(s);
    }
    apic_update_irq(s);
    return v;
}

static void apic_update_irq(APICState *s)
{
    bool level = apic_has_interrupt(s);

    if (s->hooks && s->hooks->interrupt) {
        s->hooks->interrupt(s->cpu, level);
    }
    if (s->dev) {
        qemu_set_irq(s->dev->intr, level);
    }
}

static void apic_accept_fixed(APICState *s, uint8_t vector, bool level);

/* Record an error; the error LVT entry may interrupt about it. */
static void apic_error(APICState *s, uint32_t bits)
{
    uint32_t lvt = s->lvt[APIC_LVT_ERROR];

    s->esr_pending |= bits;
    if (lvt & APIC_LVT_MASKED) {
        return;
    }
    if ((lvt & APIC_VECTOR_MASK) < 16) {
        /* No error interrupt about the error interrupt. */
        s->esr_pending |= APIC_ESR_RECV_ILLEGAL_VECTOR;
        return;
    }
    apic_accept_fixed(s, lvt & APIC_VECTOR_MASK, false);
}

/* A fixed interrupt arrives: into the IRR, with its trigger mode. */
static void apic_accept_fixed(APICState *s, uint8_t vector, bool level)
{
    if (vector < 16) {
        apic_error(s, APIC_ESR_RECV_ILLEGAL_VECTOR);
        return;
    }
    if (!apic_sw_enabled(s)) {
        /* A software-disabled APIC takes no fixed interrupts (KVM too). */
        return;
    }
    apic_bit_set(s->irr, vector);
    if (level) {
        apic_bit_set(s->tmr, vector);
    } else {
        apic_bit_clear(s->tmr, vector);
    }
    apic_update_irq(s);
}

/* An LVT entry fires (timer, LINT pins): per its delivery mode. */
static void apic_lvt_fire(APICState *s, int n)
{
    uint32_t lvt = s->lvt[n];

    if (lvt & APIC_LVT_MASKED) {
        return;
    }
    switch (apic_lvt_mode(lvt)) {
    case APIC_DM_FIXED:
        apic_accept_fixed(s, lvt & APIC_VECTOR_MASK,
                          (n == APIC_LVT_LINT0 || n == APIC_LVT_LINT1) &&
                          (lvt & APIC_ICR_LEVEL));
        break;
    case APIC_DM_NMI:
        if (s->hooks && s->hooks->nmi) {
            s->hooks->nmi(s->cpu);
        }
        break;
    case APIC_DM_EXTINT:
        apic_update_irq(s);
        break;
    default:
        qemu_log_mask(LOG_UNIMP, "apic: LVT entry %d delivery mode %u\n",
                      n, apic_lvt_mode(lvt));
        break;
    }
}

static void apic_set_lint(APICState *s, int n, int level)
{
    bool rising = level && !s->lint_level[n];

    s->lint_level[n] = level;
    if (rising) {
        apic_lvt_fire(s, APIC_LVT_LINT0 + n);
    }
    /* ExtINT follows the level; a disabled APIC passes LINT0 through. */
    apic_update_irq(s);
}

void apic_set_extint_ack(DeviceState *dev, int (*ack)(void *opaque),
                         void *opaque)
{
    APICState *s = ((APICDevice *)dev)->apic;

    s->extint_ack = ack;
    s->extint_opaque = opaque;
}

void apic_set_eoi_notify(DeviceState *dev,
                         void (*notify)(void *opaque, uint8_t vector),
                         void *opaque)
{
    APICState *s = ((APICDevice *)dev)->apic;

    s->eoi_notify = notify;
    s->eoi_opaque = opaque;
}

DeviceState *apic_device(unsigned index)
{
    APICState *s = apics && index < apics->len
                   ? g_ptr_array_index(apics, index) : NULL;

    return s && s->dev ? &s->dev->parent : NULL;
}

/* --- Timer -------------------------------------------------------- */

static uint32_t apic_divisor(const APICState *s)
{
    unsigned v = ((s->divide >> 1) & 4) | (s->divide & 3);

    return 1u << ((v + 1) & 7);
}

static bool apic_timer_counting(const APICState *s)
{
    return s->initial_count && apic_timer_mode(s) != APIC_TIMER_DEADLINE;
}

static uint32_t apic_current_count(const APICState *s)
{
    uint64_t ticks;

    if (!apic_timer_counting(s)) {
        return 0;
    }
    ticks = (qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) - s->load_ns) /
            apic_divisor(s);
    if (apic_timer_mode(s) == APIC_TIMER_PERIODIC) {
        return s->initial_count - ticks % s->initial_count;
    }
    return ticks >= s->initial_count ? 0 : s->initial_count - ticks;
}

static int64_t apic_tsc_to_ns(APICState *s, uint64_t tsc)
{
    if (s->hooks && s->hooks->tsc_to_ns) {
        return s->hooks->tsc_to_ns(s->cpu, tsc);
    }
    /* No CPU (qtest): a 1 GHz TSC that is the virtual clock. */
    return tsc > INT64_MAX ? INT64_MAX : (int64_t)tsc;
}

static uint64_t apic_get_tsc(APICState *s)
{
    if (s->hooks && s->hooks->get_tsc) {
        return s->hooks->get_tsc(s->cpu);
    }
    return qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
}

static void apic_timer_expired(APICState *s)
{
    if (apic_timer_mode(s) == APIC_TIMER_DEADLINE) {
        /* The deadline MSR reads 0 once it has passed. */
        s->tsc_deadline = 0;
    }
    apic_lvt_fire(s, APIC_LVT_TIMER);
}

static void apic_timer_cb(void *opaque)
{
    APICState *s = opaque;

    apic_timer_expired(s);
    if (apic_timer_mode(s) == APIC_TIMER_PERIODIC) {
        apic_timer_resume(s);
    }
}

/*
 * Arm the timer for its next expiry unless it is armed already (so a
 * due tick the main loop has not run yet is kept).
 */
static void apic_timer_resume(APICState *s)
{
    uint32_t lvt = s->lvt[APIC_LVT_TIMER];
    int64_t now, period, next;

    if (timer_pending(s->timer)) {
        return;
    }
    if (apic_timer_mode(s) == APIC_TIMER_DEADLINE) {
        if (s->tsc_deadline) {
            timer_mod(s->timer, apic_tsc_to_ns(s, s->tsc_deadline));
        }
        return;
    }
    if (!s->initial_count) {
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    period = (int64_t)s->initial_count * apic_divisor(s);
    if (apic_timer_mode(s) != APIC_TIMER_PERIODIC) {
        /* One-shot: fires once; an expiry while masked is lost. */
        next = s->load_ns + period;
        if (next > now) {
            timer_mod(s->timer, next);
        }
        return;
    }
    if ((lvt & APIC_LVT_MASKED) || (lvt & APIC_VECTOR_MASK) < 16 ||
        apic_bit_test(s->irr, lvt & APIC_VECTOR_MASK)) {
        /*
         * Ticks now would be lost (masked, an illegal vector, or one
         * already pending): rearmed when they would not be. A short
         * period must not become a timer storm the guest can cause.
         */
        return;
    }
    next = s->load_ns + ((now - s->load_ns) / period + 1) * period;
    timer_mod(s->timer, next);
}

static void apic_timer_restart(APICState *s)
{
    timer_del(s->timer);
    apic_timer_resume(s);
}

static void apic_write_lvt(APICState *s, int n, uint32_t value)
{
    unsigned old_mode = apic_timer_mode(s);

    value &= apic_lvt_writable[n];
    if (!apic_sw_enabled(s)) {
        /* Software-disabled: the entries stay masked (SDM 10.4.7.2). */
        value |= APIC_LVT_MASKED;
    }
    s->lvt[n] = value;
    if (n == APIC_LVT_TIMER) {
        if ((old_mode == APIC_TIMER_DEADLINE) !=
            (apic_timer_mode(s) == APIC_TIMER_DEADLINE)) {
            /* Entering or leaving TSC-deadline mode stops the timer. */
            s->initial_count = 0;
            s->tsc_deadline = 0;
            timer_del(s->timer);
        } else if (old_mode != apic_timer_mode(s)) {
            apic_timer_restart(s);
        } else {
            apic_timer_resume(s);
        }
    }
    apic_update_irq(s);
}

static void apic_write_divide(APICState *s, uint32_t value)
{
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    int64_t ticks = (now - s->load_ns) / apic_divisor(s);

    s->divide = value & 0xb;
    /* The count goes on from where it is, at the new rate. */
    s->load_ns = now - ticks * apic_divisor(s);
    if (apic_timer_counting(s)) {
        apic_timer_restart(s);
    }
}

static void apic_write_initial_count(APICState *s, uint32_t value)
{
    if (apic_timer_mode(s) == APIC_TIMER_DEADLINE) {
        return;     /* ignored in TSC-deadline mode (SDM 10.5.4.1) */
    }
    s->initial_count = value;
    s->load_ns = qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL);
    timer_del(s->timer);
    if (value && apic_timer_mode(s) == APIC_TIMER_ONESHOT) {
        /*
         * Counting starts now, so the expiry is ahead even when the
         * clock has passed it by the time the timer is armed (a count
         * of a few ticks): armed here, not by apic_timer_resume(), which
         * drops one-shot expiries already in the past.
         */
        timer_mod(s->timer, s->load_ns + (int64_t)value * apic_divisor(s));
        return;
    }
    apic_timer_resume(s);
}

uint64_t apic_get_tsc_deadline(APICState *s)
{
    return apic_timer_mode(s) == APIC_TIMER_DEADLINE ? s->tsc_deadline : 0;
}

void apic_set_tsc_deadline(APICState *s, uint64_t tsc)
{
    if (apic_timer_mode(s) != APIC_TIMER_DEADLINE) {
        return;     /* ignored outside TSC-deadline mode */
    }
    timer_del(s->timer);
    s->tsc_deadline = tsc;
    if (!tsc) {
        return;
    }
    if (tsc <= apic_get_tsc(s)) {
        apic_timer_expired(s);
        return;
    }
    apic_timer_resume(s);
}

/* --- Destinations and IPIs ---------------------------------------- */

static bool apic_match_logical(const APICState *s, uint8_t mda)
{
    unsigned model = s->dfr >> 28;

    if (mda == APIC_BROADCAST) {
        return true;
    }
    if (model == APIC_DFR_FLAT) {
        return s->ldr & mda;
    }
    if (model == APIC_DFR_CLUSTER) {
        return (s->ldr >> 4) == (mda >> 4) && (s->ldr & mda & 0xf);
    }
    qemu_log_mask(LOG_GUEST_ERROR, "apic: DFR model 0x%x is reserved\n",
                  model);
    return false;
}

static bool apic_match_dest(const APICState *s, uint8_t dest, bool logical)
{
    if (!apic_hw_enabled(s)) {
        return false;
    }
    if (logical) {
        return apic_match_logical(s, dest);
    }
    return dest == APIC_BROADCAST || dest == s->id;
}

/*
 * Lowest priority: the focus processor (the vector already in its IRR
 * or ISR) if it has focus checking on, else the lowest processor
 * priority, ties to the lowest-numbered CPU; enabled APICs first.
 */
static APICState *apic_lowest_priority(GPtrArray *targets, uint8_t vector)
{
    APICState *best = NULL;

    for (guint i = 0; i < targets->len; i++) {
        APICState *t = g_ptr_array_index(targets, i);

        if (apic_sw_enabled(t) && !(t->svr & APIC_SVR_NO_FOCUS) &&
            (apic_bit_test(t->irr, vector) || apic_bit_test(t->isr, vector))) {
            return t;
        }
    }
    for (guint i = 0; i < targets->len; i++) {
        APICState *t = g_ptr_array_index(targets, i);

        if (!best || (apic_sw_enabled(t) && !apic_sw_enabled(best)) ||
            (apic_sw_enabled(t) == apic_sw_enabled(best) &&
             (apic_ppr(t) & 0xf0) < (apic_ppr(best) & 0xf0))) {
            best = t;
        }
    }
    return best;
}

static void apic_deliver_one(APICState *t, uint8_t mode, uint8_t vector,
                             bool level)
{
    switch (mode) {
    case APIC_DM_FIXED:
    case APIC_DM_LOWPRI:
        apic_accept_fixed(t, vector, level);
        break;
    case APIC_DM_NMI:
        if (t->hooks && t->hooks->nmi) {
            t->hooks->nmi(t->cpu);
        }
        break;
    case APIC_DM_INIT:
        /* The APIC takes INIT at once; the hook resets the CPU. */
        apic_reset(t, true);
        if (t->hooks && t->hooks->init) {
            t->hooks->init(t->cpu);
        }
        break;
    case APIC_DM_SIPI:
        if (t->hooks && t->hooks->sipi) {
            t->hooks->sipi(t->cpu, vector);
        }
        break;
    case APIC_DM_EXTINT:
        t->extint_pending = true;
        apic_update_irq(t);
        break;
    case APIC_DM_SMI:
        qemu_log_mask(LOG_UNIMP, "apic: SMI is not supported\n");
        break;
    default:
        qemu_log_mask(LOG_GUEST_ERROR, "apic: reserved delivery mode %u\n",
                      mode);
        break;
    }
}

static void apic_deliver(GPtrArray *targets, uint8_t mode, uint8_t vector,
                         bool level)
{
    if (mode == APIC_DM_LOWPRI && targets->len) {
        apic_deliver_one(apic_lowest_priority(targets, vector), mode,
                         vector, level);
        return;
    }
    for (guint i = 0; i < targets->len; i++) {
        apic_deliver_one(g_ptr_array_index(targets, i), mode, vector,
                         level);
    }
}

static GPtrArray *apic_find_dest(uint8_t dest, bool logical)
{
    GPtrArray *targets = g_ptr_array_new();

    for (guint i = 0; apics && i < apics->len; i++) {
        APICState *t = g_ptr_array_index(apics, i);

        if (apic_match_dest(t, dest, logical)) {
            g_ptr_array_add(targets, t);
        }
    }
    return targets;
}

void apic_deliver_irq(uint8_t dest, bool logical, uint8_t delivery_mode,
                      uint8_t vector, bool level_triggered)
{
    GPtrArray *targets = apic_find_dest(dest, logical);

    apic_deliver(targets, delivery_mode, vector, level_triggered);
    g_ptr_array_free(targets, TRUE);
}

void apic_deliver_msi(uint64_t addr, uint32_t data)
{
    if ((addr & ~(APIC_MSI_SIZE - 1)) != APIC_MSI_BASE) {
        qemu_log_mask(LOG_GUEST_ERROR, "apic: MSI to 0x%" PRIx64 " outside "
                      "the APIC window\n", addr);
        return;
    }
    apic_deliver_irq((addr >> 12) & 0xff, addr & (1u << 2), (data >> 8) & 7,
                     data & 0xff, data & (1u << 15));
}

/* A write to ICR low sends the IPI it describes. */
static void apic_send_ipi(APICState *s)
{
    uint32_t lo = s->icr_lo;
    uint8_t vector = lo & APIC_VECTOR_MASK;
    uint8_t mode = (lo >> APIC_ICR_DM_SHIFT) & 7;
    unsigned shorthand = (lo >> APIC_ICR_SHORT_SHIFT) & 3;
    GPtrArray *targets;

    if (mode == APIC_DM_INIT && (lo & APIC_ICR_LEVEL) &&
        !(lo & APIC_ICR_ASSERT)) {
        return;     /* INIT level de-assert: nothing to do since P4 */
    }
    if ((mode == APIC_DM_FIXED || mode == APIC_DM_LOWPRI) && vector < 16) {
        apic_error(s, APIC_ESR_SEND_ILLEGAL_VECTOR);
        return;
    }
    if (shorthand == APIC_SH_NONE) {
        targets = apic_find_dest(s->icr_hi >> 24, lo & APIC_ICR_LOGICAL);
    } else {
        targets = g_ptr_array_new();
        for (guint i = 0; i < apics->len; i++) {
            APICState *t = g_ptr_array_index(apics, i);

            if ((shorthand == APIC_SH_SELF && t != s) ||
                (shorthand == APIC_SH_OTHERS && t == s) ||
                (shorthand != APIC_SH_SELF && !apic_hw_enabled(t))) {
                continue;
            }
            g_ptr_array_add(targets, t);
        }
    }
    apic_deliver(targets, mode, vector, lo & APIC_ICR_LEVEL);
    g_ptr_array_free(targets, TRUE);
}

static void apic_eoi(APICState *s)
{
    int v = apic_bit_highest(s->isr);

    if (v < 0) {
        return;
    }
    apic_bit_clear(s->isr, v);
    if (apic_bit_test(s->tmr, v) && s->eoi_notify) {
        s->eoi_notify(s->eoi_opaque, v);
    }
    apic_update_irq(s);
}

/* --- Registers ---------------------------------------------------- */

static void apic_write_svr(APICState *s, uint32_t value)
{
    s->svr = value & APIC_SVR_WRITABLE;
    if (!apic_sw_enabled(s)) {
        for (int n = 0; n < APIC_LVT_NB; n++) {
            s->lvt[n] |= APIC_LVT_MASKED;
        }
    }
    apic_update_irq(s);
}

static uint32_t apic_reg_read(APICState *s, unsigned reg)
{
    switch (reg) {
    case APIC_REG_ID:
        return (uint32_t)s->id << 24;
    case APIC_REG_VERSION:
        return APIC_VERSION;
    case APIC_REG_TPR:
        return s->tpr;
    case APIC_REG_APR:
        /* Not kept since the Pentium 4 (SDM table 10-1): 0 as on KVM. */
        return 0;
    case APIC_REG_PPR:
        return apic_ppr(s);
    case APIC_REG_EOI:
    case APIC_REG_RRD:
        return 0;
    case APIC_REG_LDR:
        return (uint32_t)s->ldr << 24;
    case APIC_REG_DFR:
        return s->dfr;
    case APIC_REG_SVR:
        return s->svr;
    case APIC_REG_ESR:
        return s->esr;
    case APIC_REG_ICR_LO:
        return s->icr_lo;
    case APIC_REG_ICR_HI:
        return s->icr_hi;
    case APIC_REG_TIMER_ICR:
        return s->initial_count;
    case APIC_REG_TIMER_CCR:
        return apic_current_count(s);
    case APIC_REG_TIMER_DCR:
        return s->divide;
    }
    if (reg >= APIC_REG_ISR && reg < APIC_REG_ISR + 0x80) {
        return s->isr[(reg - APIC_REG_ISR) >> 4];
    }
    if (reg >= APIC_REG_TMR && reg < APIC_REG_TMR + 0x80) {
        return s->tmr[(reg - APIC_REG_TMR) >> 4];
    }
    if (reg >= APIC_REG_IRR && reg < APIC_REG_IRR + 0x80) {
        return s->irr[(reg - APIC_REG_IRR) >> 4];
    }
    if (reg >= APIC_REG_LVT && reg < APIC_REG_LVT + APIC_LVT_NB * 0x10) {
        return s->lvt[(reg - APIC_REG_LVT) >> 4];
    }
    qemu_log_mask(LOG_GUEST_ERROR, "apic: read of reserved register "
                  "0x%03x\n", reg);
    apic_error(s, APIC_ESR_ILLEGAL_REGISTER);
    return 0;
}

static void apic_reg_write(APICState *s, unsigned reg, uint32_t value)
{
    switch (reg) {
    case APIC_REG_ID:
        s->id = value >> 24;
        return;
    case APIC_REG_TPR:
        s->tpr = value;
        apic_update_irq(s);
        return;
    case APIC_REG_EOI:
        apic_eoi(s);
        return;
    case APIC_REG_LDR:
        s->ldr = value >> 24;
        return;
    case APIC_REG_DFR:
        s->dfr = value | 0x0fffffff;
        return;
    case APIC_REG_SVR:
        apic_write_svr(s, value);
        return;
    case APIC_REG_ESR:
        /* A write latches the errors seen since the last one. */
        s->esr = s->esr_pending;
        s->esr_pending = 0;
        return;
    case APIC_REG_ICR_LO:
        s->icr_lo = value & ~APIC_ICR_BUSY;
        apic_send_ipi(s);
        return;
    case APIC_REG_ICR_HI:
        s->icr_hi = value & 0xff000000;
        return;
    case APIC_REG_TIMER_ICR:
        apic_write_initial_count(s, value);
        return;
    case APIC_REG_TIMER_DCR:
        apic_write_divide(s, value);
        return;
    }
    if (reg >= APIC_REG_LVT && reg < APIC_REG_LVT + APIC_LVT_NB * 0x10) {
        apic_write_lvt(s, (reg - APIC_REG_LVT) >> 4, value);
        return;
    }
    if (reg == APIC_REG_VERSION || reg == APIC_REG_APR ||
        reg == APIC_REG_PPR || reg == APIC_REG_RRD ||
        reg == APIC_REG_TIMER_CCR ||
        (reg >= APIC_REG_ISR && reg < APIC_REG_ESR)) {
        qemu_log_mask(LOG_GUEST_ERROR, "apic: write of 0x%08x to read-only "
                      "register 0x%03x ignored\n", value, reg);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "apic: write of 0x%08x to reserved "
                  "register 0x%03x\n", value, reg);
    apic_error(s, APIC_ESR_ILLEGAL_REGISTER);
}

/*
 * The APIC of the vCPU that makes the access (its index, which is its
 * APIC's), or CPU 0's when no vCPU does (qtest, DMA).
 */
static APICState *apic_for_access(MemTxAttrs attrs)
{
    unsigned i = attrs.from_cpu ? attrs.cpu_index : 0;

    return apics && i < apics->len ? g_ptr_array_index(apics, i) : NULL;
}

static uint64_t apic_mmio_read(void *opaque, uint64_t addr, unsigned size,
                               MemTxAttrs attrs)
{
    APICState *s = apic_for_access(attrs);
    unsigned lane = addr & 0xf;
    uint32_t v;

    if (!s || lane + size > 4) {
        qemu_log_mask(LOG_GUEST_ERROR, "apic: %u-byte read at +0x%03x\n",
                      size, (unsigned)addr);
        return 0;
    }
    v = apic_reg_read(s, addr & 0xff0);
    return (v >> (lane * 8)) & (size == 4 ? UINT32_MAX : (1u << size * 8) - 1);
}

static void apic_mmio_write(void *opaque, uint64_t addr, uint64_t value,
                            unsigned size, MemTxAttrs attrs)
{
    APICState *s = apic_for_access(attrs);

    if (!s || size != 4 || (addr & 0xf)) {
        qemu_log_mask(LOG_GUEST_ERROR, "apic: %u-byte write at +0x%03x "
                      "ignored\n", size, (unsigned)addr);
        return;
    }
    apic_reg_write(s, addr, value);
}

static const MemoryRegionOps apic_mmio_ops = {
    .read_with_attrs = apic_mmio_read,
    .write_with_attrs = apic_mmio_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

/* --- The CPU side ------------------------------------------------- */

uint64_t apic_get_base(APICState *s)
{
    return s->base;
}

bool apic_set_base(APICState *s, uint64_t value)
{
    bool was_enabled = apic_hw_enabled(s);

    if (value & (APIC_BASE_RESERVED | APIC_BASE_X2APIC)) {
        return false;
    }
    if ((value & APIC_BASE_ADDR_MASK) != (s->base & APIC_BASE_ADDR_MASK)) {
        qemu_log_mask(LOG_UNIMP, "apic: relocation to 0x%" PRIx64 " is not "
                      "supported; the APIC stays at 0x%" PRIx64 "\n",
                      (uint64_t)(value & APIC_BASE_ADDR_MASK),
                      (uint64_t)(s->base & APIC_BASE_ADDR_MASK));
    }
    /* The BSP flag is the hardware's to set. */
    s->base = (s->base & (APIC_BASE_ADDR_MASK | MSR_IA32_APICBASE_BSP)) |
              (value & MSR_IA32_APICBASE_ENABLE);
    if (was_enabled && !apic_hw_enabled(s)) {
        /* As a software disable: the LVT entries are masked too. */
        apic_write_svr(s, s->svr & ~APIC_SVR_ENABLE);
        timer_del(s->timer);
    } else if (!was_enabled && apic_hw_enabled(s)) {
        /* Back from disabled: the xAPIC ID is the initial one (KVM). */
        s->id = s->initial_id;
    }
    apic_update_irq(s);
    return true;
}

uint8_t apic_get_cr8(APICState *s)
{
    return s->tpr >> 4;
}

void apic_set_cr8(APICState *s, uint8_t value)
{
    s->tpr = (value & 0xf) << 4;
    apic_update_irq(s);
}

/* --- Life cycle --------------------------------------------------- */

void apic_reset(APICState *s, bool init)
{
    timer_del(s->timer);
    if (!init) {
        s->id = s->initial_id;
        s->base = APIC_DEFAULT_ADDRESS | MSR_IA32_APICBASE_ENABLE |
                  (s->bsp ? MSR_IA32_APICBASE_BSP : 0);
    }
    s->tpr = 0;
    s->ldr = 0;
    s->dfr = 0xffffffff;
    s->svr = 0xff;
    memset(s->isr, 0, sizeof(s->isr));
    memset(s->tmr, 0, sizeof(s->tmr));
    memset(s->irr, 0, sizeof(s->irr));
    s->esr = s->esr_pending = 0;
    s->icr_lo = s->icr_hi = 0;
    for (int n = 0; n < APIC_LVT_NB; n++) {
        s->lvt[n] = APIC_LVT_MASKED;
    }
    if (!init && s->bsp) {
        /*
         * At power-on the BSP's LINT0 takes the PIC (virtual wire), as
         * firmware would leave it; QEMU and KVM do the same.
         */
        s->lvt[APIC_LVT_LINT0] = APIC_DM_EXTINT << APIC_LVT_DM_SHIFT;
    }
    s->extint_pending = false;
    s->divide = 0;
    s->initial_count = 0;
    s->load_ns = 0;
    s->tsc_deadline = 0;
    apic_update_irq(s);
}

static void apic_dev_set_lint(void *opaque, int n, int level)
{
    APICDevice *d = opaque;

    if (d->apic) {
        apic_set_lint(d->apic, n, level);
    }
}

static void apic_dev_inta(void *opaque, int n, int level)
{
    APICDevice *d = opaque;

    if (d->apic && level) {
        apic_get_interrupt(d->apic);
    }
}

static bool apic_dev_realize(DeviceState *dev, Error **errp)
{
    APICDevice *d = (APICDevice *)dev;

    qdev_init_gpio_in_named(dev, apic_dev_set_lint, "lint", 2);
    qdev_init_gpio_in_named(dev, apic_dev_inta, "inta", 1);
    qdev_init_gpio_out_named(dev, &d->intr, "intr", 1);
    return true;
}

/* system_reset: the APIC as at power-on. */
static void apic_dev_reset(DeviceState *dev)
{
    APICDevice *d = (APICDevice *)dev;

    if (d->apic) {
        apic_reset(d->apic, false);
    }
}

static void apic_dev_unrealize(DeviceState *dev)
{
    APICDevice *d = (APICDevice *)dev;

    if (d->apic) {
        d->apic->dev = NULL;
        d->apic = NULL;
    }
}

/* Migration: the registers and the timer of a local APIC. */
static const VMStateDescription vmstate_apic_state = {
    .name = "apic-state",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U64(APICState, base),
        VMSTATE_U8(APICState, id),
        VMSTATE_U8(APICState, tpr),
        VMSTATE_U8(APICState, ldr),
        VMSTATE_U32(APICState, dfr),
        VMSTATE_U32(APICState, svr),
        VMSTATE_U32_ARRAY(APICState, isr, 8),
        VMSTATE_U32_ARRAY(APICState, tmr, 8),
        VMSTATE_U32_ARRAY(APICState, irr, 8),
        VMSTATE_U32(APICState, esr),
        VMSTATE_U32(APICState, esr_pending),
        VMSTATE_U32(APICState, icr_lo),
        VMSTATE_U32(APICState, icr_hi),
        VMSTATE_U32_ARRAY(APICState, lvt, APIC_LVT_NB),
        VMS_ARRAY("lint_level", APICState, lint_level, VMS_U32, int, 2,
                  VMS_RANGE(0, 1)),
        VMSTATE_BOOL(APICState, extint_pending),
        VMSTATE_U32(APICState, divide, VMS_RANGE(0, 0xf)),
        VMSTATE_U32(APICState, initial_count),
        VMSTATE_I64(APICState, load_ns),
        VMSTATE_U64(APICState, tsc_deadline),
        VMSTATE_TIMER(APICState, timer),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_apic = {
    .name = "apic",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(APICDevice, apic, APICState,
                               vmstate_apic_state),
        VMSTATE_END
    },
};
const DeviceClass apic_device_class = {
    .name = "apic",
    .parent = "sys-bus-device",
    .desc = "Local APIC",
    .instance_size = sizeof(APICDevice),
    .realize = apic_dev_realize,
    .reset = apic_dev_reset,
    .vmsd = &vmstate_apic,
    .unrealize = apic_dev_unrealize,
};

APICState *apic_new(uint32_t apic_id, bool bsp, const APICCpuHooks *hooks,
                    void *cpu, Error **errp)
{
    APICState *s;
    DeviceState *dev;
    char *name;

    if (apic_id > 0xfe) {
        error_setg(errp, "APIC ID %u needs x2APIC, which is not supported",
                   apic_id);
        return NULL;
    }
    if (!apics || !apics->len) {
        memory_region_init_io(&apic_mmio, "apic", &apic_mmio_ops, NULL,
                              APIC_SPACE_SIZE);
        if (!address_space_map_region(&address_space_memory, &apic_mmio,
                                      APIC_DEFAULT_ADDRESS, errp)) {
            memory_region_finalize(&apic_mmio);
            return NULL;
        }
    }
    if (!apics) {
        apics = g_ptr_array_new();
    }
    s = g_new0(APICState, 1);
    s->index = apics->len;
    s->bsp = bsp;
    s->initial_id = apic_id;
    s->hooks = hooks;
    s->cpu = cpu;
    s->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, apic_timer_cb, s);
    g_ptr_array_add(apics, s);

    dev = qdev_new(apic_device_class.name, errp);
    if (!dev) {
        apic_free(s);
        return NULL;
    }
    ((APICDevice *)dev)->apic = s;
    s->dev = (APICDevice *)dev;
    name = g_strdup_printf("lapic[%u]", s->index);
    qdev_set_parent(dev, object_get_container("/machine/unattached"), name);
    g_free(name);
    /* Realizing resets the device, which resets the APIC. */
    if (!qdev_realize(dev, errp)) {
        /*
         * qdev_realize() has freed the device (after unrealizing it if
         * the name was taken): only the APIC's pointer to it is left.
         */
        s->dev = NULL;
        apic_free(s);
        return NULL;
    }
    return s;
}

void apic_free(APICState *s)
{
    if (!s) {
        return;
    }
    if (s->dev) {
        /* The device stays in the tree until teardown, detached. */
        s->dev->apic = NULL;
    }
    timer_free(s->timer);
    g_ptr_array_remove(apics, s);
    g_free(s);
    if (!apics->len) {
        memory_region_finalize(&apic_mmio);
    }
}

void apic_free_all(void)
{
    while (apics && apics->len) {
        apic_free(g_ptr_array_index(apics, apics->len - 1));
    }
    if (apics) {
        g_ptr_array_free(apics, TRUE);
        apics = NULL;
    }
}


DEVICE_CLASS_REGISTER(apic_device_class)
