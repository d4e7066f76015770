/*
 * qtest for the local APIC (hw/intc/apic.c) through its MMIO page, as
 * CPU 0 sees it: reset values, register masks, TPR/PPR, self-IPIs and
 * destinations, EOI, LVT masking, LINT0, errors and the timer against
 * clock_step (1 GHz / divide).
 *
 * No CPU runs under qtest; the test stands in for CPU 0 with the APIC
 * device's pins: "inta" is the CPU's interrupt acknowledge (IRR -> ISR)
 * and the "intr" output (intercepted) is what the CPU would be told.
 */
#include <glib.h>

#include "libqtest.h"

#define APIC_BASE       0xfee00000ull
#define LAPIC0          "/machine/unattached/lapic[0]"

#define REG_ID          0x020
#define REG_VERSION     0x030
#ifndef NANOSECONDS_PER_SECOND
#define NANOSECONDS_PER_SECOND 1000000000LL
#endif
#define REG_TPR         0x080
#define REG_APR         0x090
#define REG_PPR         0x0a0
#define REG_EOI         0x0b0
#define REG_LDR         0x0d0
#define REG_DFR         0x0e0
#define REG_SVR         0x0f0
#define REG_ISR         0x100
#define REG_TMR         0x180
#define REG_IRR         0x200
#define REG_ESR         0x280
#define REG_ICR_LO      0x300
#define REG_ICR_HI      0x310
#define REG_LVT_TIMER   0x320
#define REG_LVT_THERMAL 0x330
#define REG_LVT_PERF    0x340
#define REG_LVT_LINT0   0x350
#define REG_LVT_LINT1   0x360
#define REG_LVT_ERROR   0x370
#define REG_TIMER_ICR   0x380
#define REG_TIMER_CCR   0x390
#define REG_TIMER_DCR   0x3e0

#define LVT_MASKED      0x10000u
#define LVT_PERIODIC    0x20000u
#define SVR_ENABLE      0x100u
#define ICR_LOGICAL     0x800u
#define ICR_ASSERT      0x4000u
#define ICR_LEVEL       0x8000u
#define ICR_SELF        (1u << 18)
#define ICR_ALL         (2u << 18)
#define ICR_OTHERS      (3u << 18)
#define DM_FIXED        0x000u
#define DM_EXTINT       0x700u
#define ESR_SEND_ILLEGAL_VECTOR 0x20u
#define ESR_RECV_ILLEGAL_VECTOR 0x40u
#define ESR_ILLEGAL_REGISTER    0x80u

static uint32_t apic_read(QTestState *s, unsigned reg)
{
    return qtest_readl(s, APIC_BASE + reg);
}

static void apic_write(QTestState *s, unsigned reg, uint32_t value)
{
    qtest_writel(s, APIC_BASE + reg, value);
}

static bool apic_bit(QTestState *s, unsigned reg, unsigned vector)
{
    return apic_read(s, reg + vector / 32 * 0x10) & (1u << (vector % 32));
}

static void assert_256_clear(QTestState *s, unsigned reg)
{
    for (unsigned i = 0; i < 8; i++) {
        g_assert_cmphex(apic_read(s, reg + i * 0x10), ==, 0);
    }
}

/* The CPU takes the interrupt: the highest deliverable IRR -> ISR. */
static void inta(QTestState *s)
{
    qtest_set_irq_in(s, LAPIC0, "inta", 0, 1);
    qtest_set_irq_in(s, LAPIC0, "inta", 0, 0);
}

/* pit=off: nothing else drives the PIC, so LINT0 stays quiet. */
static QTestState *start(const char *extra)
{
    QTestState *s = qtest_initf("-machine pc,pit=off %s", extra ? extra : "");

    qtest_irq_intercept_out(s, LAPIC0);
    return s;
}

static QTestState *start_enabled(void)
{
    QTestState *s = start(NULL);

    apic_write(s, REG_SVR, SVR_ENABLE | 0xff);
    return s;
}

static void self_ipi(QTestState *s, uint8_t vector)
{
    apic_write(s, REG_ICR_LO, ICR_SELF | DM_FIXED | vector);
}

static void test_reset_values(void)
{
    QTestState *s = start("-smp 2");
    static const struct { unsigned reg; uint32_t value; } regs[] = {
        { REG_ID, 0 }, { REG_VERSION, 0x00050014 }, { REG_TPR, 0 },
        { REG_APR, 0 }, { REG_PPR, 0 }, { REG_LDR, 0 },
        { REG_DFR, 0xffffffff }, { REG_SVR, 0xff }, { REG_ESR, 0 },
        { REG_ICR_LO, 0 }, { REG_ICR_HI, 0 },
        { REG_LVT_TIMER, LVT_MASKED }, { REG_LVT_THERMAL, LVT_MASKED },
        { REG_LVT_PERF, LVT_MASKED },
        /* The BSP's LINT0 takes the PIC (virtual wire), as QEMU's. */
        { REG_LVT_LINT0, DM_EXTINT }, { REG_LVT_LINT1, LVT_MASKED },
        { REG_LVT_ERROR, LVT_MASKED }, { REG_TIMER_ICR, 0 },
        { REG_TIMER_CCR, 0 }, { REG_TIMER_DCR, 0 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(regs); i++) {
        g_assert_cmphex(apic_read(s, regs[i].reg), ==, regs[i].value);
    }
    assert_256_clear(s, REG_ISR);
    assert_256_clear(s, REG_TMR);
    assert_256_clear(s, REG_IRR);
    g_assert_false(qtest_get_irq(s, 0));

    /* system_reset brings the power-on values back. */
    apic_write(s, REG_SVR, 0x1ff);
    apic_write(s, REG_TPR, 0x20);
    apic_write(s, REG_LVT_LINT0, LVT_MASKED);
    apic_write(s, REG_ID, 0x05000000);
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    g_assert_cmphex(apic_read(s, REG_SVR), ==, 0xff);
    g_assert_cmphex(apic_read(s, REG_TPR), ==, 0);
    g_assert_cmphex(apic_read(s, REG_LVT_LINT0), ==, DM_EXTINT);
    g_assert_cmphex(apic_read(s, REG_ID), ==, 0);
    qtest_quit(s);
}

static void test_register_masks(void)
{
    QTestState *s = start_enabled();

    apic_write(s, REG_ID, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_ID), ==, 0xff000000);
    apic_write(s, REG_ID, 0);
    apic_write(s, REG_TPR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_TPR), ==, 0xff);
    apic_write(s, REG_TPR, 0);
    apic_write(s, REG_LDR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LDR), ==, 0xff000000);
    /* DFR: the model in 31:28, the rest reads as ones. */
    apic_write(s, REG_DFR, 0);
    g_assert_cmphex(apic_read(s, REG_DFR), ==, 0x0fffffff);
    apic_write(s, REG_DFR, 0xffffffff);
    /* SVR: vector, enable, focus check; EOI suppression not offered. */
    apic_write(s, REG_SVR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_SVR), ==, 0x3ff);
    apic_write(s, REG_ICR_HI, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_ICR_HI), ==, 0xff000000);
    apic_write(s, REG_ICR_HI, 0);
    apic_write(s, REG_TIMER_DCR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_TIMER_DCR), ==, 0xb);

    /* LVT entries keep their defined bits; delivery status is 0. */
    apic_write(s, REG_LVT_TIMER, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_TIMER), ==, 0x000700ff);
    apic_write(s, REG_LVT_THERMAL, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_THERMAL), ==, 0x000107ff);
    apic_write(s, REG_LVT_PERF, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_PERF), ==, 0x000107ff);
    apic_write(s, REG_LVT_LINT0, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_LINT0), ==, 0x0001a7ff);
    apic_write(s, REG_LVT_LINT1, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_LINT1), ==, 0x0001a7ff);
    apic_write(s, REG_LVT_ERROR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_LVT_ERROR), ==, 0x000100ff);

    /* Read-only registers ignore writes. */
    apic_write(s, REG_VERSION, 0);
    g_assert_cmphex(apic_read(s, REG_VERSION), ==, 0x00050014);
    apic_write(s, REG_PPR, 0xff);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0);
    apic_write(s, REG_IRR, 0xffffffff);
    g_assert_cmphex(apic_read(s, REG_IRR), ==, 0);
    apic_write(s, REG_TIMER_CCR, 1234);
    g_assert_cmphex(apic_read(s, REG_TIMER_CCR), ==, 0);

    /* Narrow reads see part of a register; narrow writes are dropped. */
    g_assert_cmphex(qtest_readb(s, APIC_BASE + REG_VERSION), ==, 0x14);
    g_assert_cmphex(qtest_readw(s, APIC_BASE + REG_VERSION + 2), ==, 5);
    qtest_writeb(s, APIC_BASE + REG_TPR, 0x30);
    g_assert_cmphex(apic_read(s, REG_TPR), ==, 0);
    /* Only the first dword of each 16-byte slot is the register. */
    g_assert_cmphex(qtest_readl(s, APIC_BASE + REG_VERSION + 4), ==, 0);
    qtest_quit(s);
}

static void test_self_ipi(void)
{
    QTestState *s = start_enabled();

    g_assert_false(qtest_get_irq(s, 0));
    self_ipi(s, 0x40);
    /* Sent at once: the delivery status bit reads idle. */
    g_assert_cmphex(apic_read(s, REG_ICR_LO), ==, ICR_SELF | 0x40);
    g_assert_true(apic_bit(s, REG_IRR, 0x40));
    g_assert_false(apic_bit(s, REG_TMR, 0x40));
    g_assert_true(qtest_get_irq(s, 0));

    inta(s);
    g_assert_false(apic_bit(s, REG_IRR, 0x40));
    g_assert_true(apic_bit(s, REG_ISR, 0x40));
    g_assert_false(qtest_get_irq(s, 0));
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x40);

    apic_write(s, REG_EOI, 0);
    assert_256_clear(s, REG_ISR);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0);
    /* An EOI with nothing in service changes nothing. */
    apic_write(s, REG_EOI, 0);
    assert_256_clear(s, REG_ISR);

    /* Level-triggered IPIs are remembered in the TMR. */
    apic_write(s, REG_ICR_LO, ICR_SELF | ICR_LEVEL | ICR_ASSERT | 0x91);
    g_assert_true(apic_bit(s, REG_IRR, 0x91));
    g_assert_true(apic_bit(s, REG_TMR, 0x91));
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, 0x91));
    apic_write(s, REG_EOI, 0);
    assert_256_clear(s, REG_ISR);
    qtest_quit(s);
}

/* Nested service: a higher class preempts, EOI ends the highest. */
static void test_nesting(void)
{
    QTestState *s = start_enabled();

    self_ipi(s, 0x31);
    self_ipi(s, 0x72);
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, 0x72));
    g_assert_true(apic_bit(s, REG_IRR, 0x31));
    /* 0x31 is below the in-service class: no interrupt for the CPU. */
    g_assert_false(qtest_get_irq(s, 0));
    self_ipi(s, 0x85);
    g_assert_true(qtest_get_irq(s, 0));
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, 0x85));
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x80);
    apic_write(s, REG_EOI, 0);
    g_assert_false(apic_bit(s, REG_ISR, 0x85));
    g_assert_true(apic_bit(s, REG_ISR, 0x72));
    g_assert_false(qtest_get_irq(s, 0));
    apic_write(s, REG_EOI, 0);
    assert_256_clear(s, REG_ISR);
    g_assert_true(qtest_get_irq(s, 0));
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, 0x31));
    apic_write(s, REG_EOI, 0);
    assert_256_clear(s, REG_ISR);
    assert_256_clear(s, REG_IRR);
    qtest_quit(s);
}

static void test_tpr_ppr(void)
{
    QTestState *s = start_enabled();

    /* Nothing in service: PPR is the TPR. */
    apic_write(s, REG_TPR, 0x5a);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x5a);

    /* A pending vector reaches the CPU only above the TPR's class. */
    self_ipi(s, 0x55);
    g_assert_true(apic_bit(s, REG_IRR, 0x55));
    g_assert_false(qtest_get_irq(s, 0));
    inta(s);        /* nothing deliverable: the IRR stays */
    g_assert_true(apic_bit(s, REG_IRR, 0x55));
    assert_256_clear(s, REG_ISR);
    apic_write(s, REG_TPR, 0x4f);
    g_assert_true(qtest_get_irq(s, 0));
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, 0x55));

    /* In service 0x55: PPR is its class unless the TPR is higher. */
    apic_write(s, REG_TPR, 0x30);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x50);
    apic_write(s, REG_TPR, 0x52);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x52);
    apic_write(s, REG_TPR, 0x61);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x61);
    apic_write(s, REG_EOI, 0);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0x61);
    apic_write(s, REG_TPR, 0);
    g_assert_cmphex(apic_read(s, REG_PPR), ==, 0);
    qtest_quit(s);
}

static void test_destinations(void)
{
    QTestState *s = start_enabled();

    /* Physical: our ID 0, the broadcast 0xff; not another ID. */
    apic_write(s, REG_ICR_HI, 0x00000000);
    apic_write(s, REG_ICR_LO, 0x41);
    g_assert_true(apic_bit(s, REG_IRR, 0x41));
    apic_write(s, REG_ICR_HI, 0xff000000);
    apic_write(s, REG_ICR_LO, 0x42);
    g_assert_true(apic_bit(s, REG_IRR, 0x42));
    apic_write(s, REG_ICR_HI, 0x07000000);
    apic_write(s, REG_ICR_LO, 0x43);
    g_assert_false(apic_bit(s, REG_IRR, 0x43));

    /* Logical, flat model: any common bit of LDR and the MDA. */
    apic_write(s, REG_LDR, 0x04000000);
    apic_write(s, REG_ICR_HI, 0x06000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x51);
    g_assert_true(apic_bit(s, REG_IRR, 0x51));
    apic_write(s, REG_ICR_HI, 0x0b000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x52);
    g_assert_false(apic_bit(s, REG_IRR, 0x52));

    /* Logical, cluster model: same cluster and a common member bit. */
    apic_write(s, REG_DFR, 0x0fffffff);
    apic_write(s, REG_LDR, 0x21000000);
    apic_write(s, REG_ICR_HI, 0x23000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x61);
    g_assert_true(apic_bit(s, REG_IRR, 0x61));
    apic_write(s, REG_ICR_HI, 0x31000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x62);
    g_assert_false(apic_bit(s, REG_IRR, 0x62));
    apic_write(s, REG_ICR_HI, 0x22000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x63);
    g_assert_false(apic_bit(s, REG_IRR, 0x63));
    apic_write(s, REG_ICR_HI, 0xff000000);
    apic_write(s, REG_ICR_LO, ICR_LOGICAL | 0x64);
    g_assert_true(apic_bit(s, REG_IRR, 0x64));

    /* Shorthands: all includes us, all-but-self does not. */
    apic_write(s, REG_ICR_HI, 0x07000000);
    apic_write(s, REG_ICR_LO, ICR_ALL | 0x71);
    g_assert_true(apic_bit(s, REG_IRR, 0x71));
    apic_write(s, REG_ICR_LO, ICR_OTHERS | 0x72);
    g_assert_false(apic_bit(s, REG_IRR, 0x72));

    /* Lowest priority with one candidate: like fixed. */
    apic_write(s, REG_ICR_HI, 0x00000000);
    apic_write(s, REG_ICR_LO, 0x100 | 0x81);
    g_assert_true(apic_bit(s, REG_IRR, 0x81));
    qtest_quit(s);
}

/* Our ID may change: physical destinations follow it. */
static void test_id_change(void)
{
    QTestState *s = start_enabled();

    apic_write(s, REG_ID, 0x03000000);
    apic_write(s, REG_ICR_HI, 0x00000000);
    apic_write(s, REG_ICR_LO, 0x44);
    g_assert_false(apic_bit(s, REG_IRR, 0x44));
    apic_write(s, REG_ICR_HI, 0x03000000);
    apic_write(s, REG_ICR_LO, 0x45);
    g_assert_true(apic_bit(s, REG_IRR, 0x45));
    qtest_quit(s);
}

static void test_sw_disable(void)
{
    QTestState *s = start(NULL);

    /* Software-disabled at reset: LVT entries cannot be unmasked. */
    apic_write(s, REG_LVT_TIMER, 0x30);
    g_assert_cmphex(apic_read(s, REG_LVT_TIMER), ==, LVT_MASKED | 0x30);
    /* ... and fixed interrupts are not accepted. */
    self_ipi(s, 0x40);
    g_assert_false(apic_bit(s, REG_IRR, 0x40));

    apic_write(s, REG_SVR, SVR_ENABLE | 0xff);
    apic_write(s, REG_LVT_TIMER, 0x30);
    apic_write(s, REG_LVT_ERROR, 0xfe);
    g_assert_cmphex(apic_read(s, REG_LVT_TIMER), ==, 0x30);
    self_ipi(s, 0x40);
    g_assert_true(apic_bit(s, REG_IRR, 0x40));
    g_assert_true(qtest_get_irq(s, 0));

    /* Disabling masks every entry; pending vectors wait, unseen. */
    apic_write(s, REG_SVR, 0xff);
    g_assert_cmphex(apic_read(s, REG_LVT_TIMER), ==, LVT_MASKED | 0x30);
    g_assert_cmphex(apic_read(s, REG_LVT_ERROR), ==, LVT_MASKED | 0xfe);
    g_assert_cmphex(apic_read(s, REG_LVT_LINT0), ==, LVT_MASKED | DM_EXTINT);
    g_assert_true(apic_bit(s, REG_IRR, 0x40));
    g_assert_false(qtest_get_irq(s, 0));
    apic_write(s, REG_SVR, SVR_ENABLE | 0xff);
    g_assert_true(qtest_get_irq(s, 0));
    qtest_quit(s);
}

static void test_errors(void)
{
    QTestState *s = start_enabled();

    /* Vectors 0-15 are illegal: not sent, the ESR says why. */
    self_ipi(s, 0x05);
    assert_256_clear(s, REG_IRR);
    g_assert_cmphex(apic_read(s, REG_ESR), ==, 0);
    apic_write(s, REG_ESR, 0);
    g_assert_cmphex(apic_read(s, REG_ESR), ==, ESR_SEND_ILLEGAL_VECTOR);
    apic_write(s, REG_ESR, 0);
    g_assert_cmphex(apic_read(s, REG_ESR), ==, 0);

    /* With the error entry unmasked, errors interrupt. */
    apic_write(s, REG_LVT_ERROR, 0xe0);
    apic_read(s, 0x2c0);                    /* reserved */
    g_assert_true(apic_bit(s, REG_IRR, 0xe0));
    apic_write(s, REG_ESR, 0);
    g_assert_cmphex(apic_read(s, REG_ESR), ==, ESR_ILLEGAL_REGISTER);

    /* A timer with an illegal vector: a receive error. */
    apic_write(s, REG_LVT_TIMER, 0x0a);
    apic_write(s, REG_TIMER_ICR, 10);
    qtest_clock_step(s, 100);
    apic_write(s, REG_ESR, 0);
    g_assert_cmphex(apic_read(s, REG_ESR), ==, ESR_RECV_ILLEGAL_VECTOR);
    qtest_quit(s);
}

static void test_lint0(void)
{
    QTestState *s = start_enabled();

    /* ExtINT (the reset value): LINT0's level reaches the CPU. */
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 1);
    g_assert_true(qtest_get_irq(s, 0));
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 0);
    g_assert_false(qtest_get_irq(s, 0));

    /* Masked: nothing. */
    apic_write(s, REG_LVT_LINT0, LVT_MASKED | DM_EXTINT);
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 1);
    g_assert_false(qtest_get_irq(s, 0));
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 0);

    /* Fixed: a rising edge is an interrupt with the entry's vector. */
    apic_write(s, REG_LVT_LINT0, 0x66);
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 1);
    g_assert_true(apic_bit(s, REG_IRR, 0x66));
    inta(s);
    apic_write(s, REG_EOI, 0);
    qtest_set_irq_in(s, LAPIC0, "lint", 0, 1);
    g_assert_false(apic_bit(s, REG_IRR, 0x66));
    qtest_quit(s);
}

/* The master i8259 at vectors 0x20-0x27 with only IRQ 3 unmasked. */
static void pic_init(QTestState *s)
{
    qtest_outb(s, 0x20, 0x11);
    qtest_outb(s, 0x21, 0x20);
    qtest_outb(s, 0x21, 0x04);
    qtest_outb(s, 0x21, 0x01);
    qtest_outb(s, 0x21, 0xf7);
}

static uint8_t pic_isr(QTestState *s)
{
    qtest_outb(s, 0x20, 0x0b);          /* OCW3: read the ISR */
    return qtest_inb(s, 0x20);
}

/* LINT0 in ExtINT mode: the PIC's INT reaches the CPU, INTA reads it. */
static void test_extint_pic(void)
{
    QTestState *s = start("-device pc-testdev");

    pic_init(s);
    qtest_outb(s, 0x2003, 1);           /* pc-testdev: ISA IRQ 3 high */
    g_assert_true(qtest_get_irq(s, 0));
    inta(s);
    g_assert_cmphex(pic_isr(s), ==, 0x08);
    g_assert_false(qtest_get_irq(s, 0));
    /* The APIC's own vectors are untouched by it. */
    assert_256_clear(s, REG_ISR);
    qtest_outb(s, 0x2003, 0);
    qtest_outb(s, 0x20, 0x20);          /* non-specific EOI */
    g_assert_cmphex(pic_isr(s), ==, 0);

    /* LINT0 masked: the PIC's INT goes nowhere. */
    apic_write(s, REG_SVR, SVR_ENABLE | 0xff);
    apic_write(s, REG_LVT_LINT0, LVT_MASKED | DM_EXTINT);
    qtest_outb(s, 0x2003, 1);
    g_assert_false(qtest_get_irq(s, 0));
    apic_write(s, REG_LVT_LINT0, DM_EXTINT);
    g_assert_true(qtest_get_irq(s, 0));
    qtest_quit(s);
}

/* The divide configuration encodings and what they divide by. */
static const struct {
    uint32_t dcr;
    unsigned div;
} dividers[] = {
    { 0x0, 2 }, { 0x1, 4 }, { 0x2, 8 }, { 0x3, 16 },
    { 0x8, 32 }, { 0x9, 64 }, { 0xa, 128 }, { 0xb, 1 },
};

/* Acknowledge and end vector's interrupt. */
static void take(QTestState *s, uint8_t vector)
{
    g_assert_true(apic_bit(s, REG_IRR, vector));
    inta(s);
    g_assert_true(apic_bit(s, REG_ISR, vector));
    apic_write(s, REG_EOI, 0);
}

static void test_timer_oneshot(void)
{
    QTestState *s = start_enabled();

    for (size_t i = 0; i < G_N_ELEMENTS(dividers); i++) {
        int64_t div = dividers[i].div;

        apic_write(s, REG_TIMER_DCR, dividers[i].dcr);
        apic_write(s, REG_LVT_TIMER, 0x60);
        apic_write(s, REG_TIMER_ICR, 1000);
        g_assert_cmpuint(apic_read(s, REG_TIMER_ICR), ==, 1000);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 1000);
        qtest_clock_step(s, 250 * div);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 750);
        if (div > 1) {
            qtest_clock_step(s, div - 1);
            g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 750);
        }
        qtest_clock_step(s, 1);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 749);
        qtest_clock_step(s, 749 * div - 1);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 1);
        g_assert_false(apic_bit(s, REG_IRR, 0x60));
        qtest_clock_step(s, 1);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 0);
        take(s, 0x60);
        /* Once only. */
        qtest_clock_step(s, 3000 * div);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 0);
        g_assert_false(apic_bit(s, REG_IRR, 0x60));
    }

    /* A new initial count restarts; 0 stops. */
    apic_write(s, REG_TIMER_DCR, 0xb);
    apic_write(s, REG_TIMER_ICR, 500);
    qtest_clock_step(s, 300);
    apic_write(s, REG_TIMER_ICR, 500);
    qtest_clock_step(s, 300);
    g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 200);
    g_assert_false(apic_bit(s, REG_IRR, 0x60));
    apic_write(s, REG_TIMER_ICR, 0);
    g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 0);
    qtest_clock_step(s, 1000);
    g_assert_false(apic_bit(s, REG_IRR, 0x60));
    qtest_quit(s);
}

static void test_timer_periodic(void)
{
    QTestState *s = start_enabled();

    for (size_t i = 0; i < G_N_ELEMENTS(dividers); i++) {
        int64_t div = dividers[i].div;

        apic_write(s, REG_TIMER_DCR, dividers[i].dcr);
        apic_write(s, REG_LVT_TIMER, LVT_PERIODIC | 0x61);
        apic_write(s, REG_TIMER_ICR, 400);
        qtest_clock_step(s, 100 * div);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 300);
        for (int n = 0; n < 5; n++) {
            qtest_clock_step(s, 300 * div - 1);
            g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 1);
            g_assert_false(apic_bit(s, REG_IRR, 0x61));
            qtest_clock_step(s, 1);
            /* Reloaded at 0: the count starts over. */
            g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 400);
            take(s, 0x61);
            qtest_clock_step(s, 100 * div);
            g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 300);
        }
        /* Untaken ticks coalesce into one pending interrupt. */
        qtest_clock_step(s, 4000 * div);
        g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 300);
        take(s, 0x61);
        g_assert_false(apic_bit(s, REG_IRR, 0x61));
        qtest_clock_step(s, 400 * div);
        take(s, 0x61);
        apic_write(s, REG_TIMER_ICR, 0);
        qtest_clock_step(s, 4000 * div);
        g_assert_false(apic_bit(s, REG_IRR, 0x61));
    }
    qtest_quit(s);
}

static void test_timer_masked(void)
{
    QTestState *s = start_enabled();

    /* Masked: the count runs, no interrupt; unmasking later is late. */
    apic_write(s, REG_TIMER_DCR, 0xb);
    apic_write(s, REG_LVT_TIMER, LVT_MASKED | 0x62);
    apic_write(s, REG_TIMER_ICR, 1000);
    qtest_clock_step(s, 600);
    g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 400);
    qtest_clock_step(s, 600);
    g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 0);
    apic_write(s, REG_LVT_TIMER, 0x62);
    qtest_clock_step(s, 5000);
    g_assert_false(apic_bit(s, REG_IRR, 0x62));

    /* Periodic: ticks while masked are lost, the next one is not. */
    apic_write(s, REG_LVT_TIMER, LVT_MASKED | LVT_PERIODIC | 0x62);
    apic_write(s, REG_TIMER_ICR, 1000);
    qtest_clock_step(s, 2500);
    g_assert_false(apic_bit(s, REG_IRR, 0x62));
    apic_write(s, REG_LVT_TIMER, LVT_PERIODIC | 0x62);
    qtest_clock_step(s, 499);
    g_assert_false(apic_bit(s, REG_IRR, 0x62));
    qtest_clock_step(s, 1);
    take(s, 0x62);

    /* A divide change keeps the ticks counted so far. */
    apic_write(s, REG_LVT_TIMER, 0x62);
    apic_write(s, REG_TIMER_ICR, 1000);
    qtest_clock_step(s, 400);
    apic_write(s, REG_TIMER_DCR, 0x0);      /* divide by 2 */
    g_assert_cmpuint(apic_read(s, REG_TIMER_CCR), ==, 600);
    qtest_clock_step(s, 1199);
    g_assert_false(apic_bit(s, REG_IRR, 0x62));
    qtest_clock_step(s, 1);
    take(s, 0x62);
    qtest_quit(s);
}

/*
 * A periodic timer whose ticks cannot be delivered (an illegal vector)
 * with the shortest period must not fire once per nanosecond: a second
 * of guest time would then be a billion timer callbacks, a hang.
 */
static void test_timer_no_storm(void)
{
    QTestState *s = start_enabled();

    apic_write(s, REG_TIMER_DCR, 0xb);      /* divide by 1 */
    apic_write(s, REG_LVT_TIMER, LVT_PERIODIC | 0x05);
    apic_write(s, REG_TIMER_ICR, 1);
    qtest_clock_step(s, NANOSECONDS_PER_SECOND);
    g_assert_cmphex(apic_read(s, REG_LVT_TIMER), ==, LVT_PERIODIC | 0x05);
    qtest_quit(s);
}

/* The MMIO page answers with CPU 0's APIC whatever -smp says. */
static void test_smp(void)
{
    QTestState *s = start("-smp 4");

    apic_write(s, REG_SVR, SVR_ENABLE | 0xff);
    g_assert_cmphex(apic_read(s, REG_ID), ==, 0);
    /* Another CPU's APIC (ID 2) is software-disabled: nothing for us. */
    apic_write(s, REG_ICR_HI, 0x02000000);
    apic_write(s, REG_ICR_LO, 0x47);
    g_assert_false(apic_bit(s, REG_IRR, 0x47));
    apic_write(s, REG_ICR_LO, ICR_ALL | 0x48);
    g_assert_true(apic_bit(s, REG_IRR, 0x48));
    /* INIT and SIPI to the others leave CPU 0 alone. */
    apic_write(s, REG_ICR_LO, ICR_OTHERS | 0x500);
    apic_write(s, REG_ICR_LO, ICR_OTHERS | 0x600 | 0x10);
    g_assert_cmphex(apic_read(s, REG_SVR), ==, SVR_ENABLE | 0xff);
    g_assert_true(apic_bit(s, REG_IRR, 0x48));
    /* INIT to ourselves: the APIC starts over, keeping its ID. */
    apic_write(s, REG_ID, 0x09000000);
    apic_write(s, REG_ICR_LO, ICR_SELF | 0x500);
    g_assert_cmphex(apic_read(s, REG_SVR), ==, 0xff);
    g_assert_cmphex(apic_read(s, REG_ID), ==, 0x09000000);
    g_assert_cmphex(apic_read(s, REG_LVT_LINT0), ==, LVT_MASKED);
    assert_256_clear(s, REG_IRR);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("apic/reset-values", test_reset_values);
    qtest_add_func("apic/register-masks", test_register_masks);
    qtest_add_func("apic/self-ipi", test_self_ipi);
    qtest_add_func("apic/nesting", test_nesting);
    qtest_add_func("apic/tpr-ppr", test_tpr_ppr);
    qtest_add_func("apic/destinations", test_destinations);
    qtest_add_func("apic/id-change", test_id_change);
    qtest_add_func("apic/sw-disable", test_sw_disable);
    qtest_add_func("apic/errors", test_errors);
    qtest_add_func("apic/lint0", test_lint0);
    qtest_add_func("apic/extint-pic", test_extint_pic);
    qtest_add_func("apic/timer/oneshot", test_timer_oneshot);
    qtest_add_func("apic/timer/periodic", test_timer_periodic);
    qtest_add_func("apic/timer/masked", test_timer_masked);
    qtest_add_func("apic/timer/no-storm", test_timer_no_storm);
    qtest_add_func("apic/smp", test_smp);
    return g_test_run();
}
