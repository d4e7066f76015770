/*
 * qtest for the I/O APIC register model (hw/intc/ioapic.c): ID, version
 * and redirection registers, then interrupts end to end: a device line
 * (pc-testdev's IRQ port, the RTC, the PIT) through a redirection entry
 * into CPU 0's local APIC, whose IRR, ISR and TMR the test reads through
 * the APIC page. Level-triggered entries exercise remote IRR with both
 * the IOAPIC's EOI register and the local APIC's EOI broadcast.
 */
#include <glib.h>

#include "libqtest.h"

#define IOAPIC_BASE     0xfec00000ull
#define IOREGSEL        0x00
#define IOWIN           0x10
#define IOAPIC_EOI      0x40
#define REG_ID          0x00
#define REG_VER         0x01
#define REG_ARB         0x02
#define REG_REDTBL(n)   (0x10 + 2 * (n))

#define RTE_LOGICAL     (1ull << 11)
#define RTE_REMOTE_IRR  (1ull << 14)
#define RTE_LEVEL       (1ull << 15)
#define RTE_MASKED      (1ull << 16)
#define RTE_DM_LOWPRI   (1ull << 8)
#define RTE_DM_INIT     (5ull << 8)
#define RTE_DEST(d)     ((uint64_t)(d) << 56)

#define APIC_BASE       0xfee00000ull
#define APIC_LAPIC0     "/machine/unattached/lapic[0]"
#define APIC_EOI        0x0b0
#define APIC_LDR        0x0d0
#define APIC_SVR        0x0f0
#define APIC_ISR        0x100
#define APIC_TMR        0x180
#define APIC_IRR        0x200

#define TESTDEV_IRQ     0x2000

#define RTC_INDEX       0x70
#define RTC_DATA        0x71

static uint32_t ioapic_read(QTestState *s, uint8_t reg)
{
    qtest_writel(s, IOAPIC_BASE + IOREGSEL, reg);
    return qtest_readl(s, IOAPIC_BASE + IOWIN);
}

static void ioapic_write(QTestState *s, uint8_t reg, uint32_t value)
{
    qtest_writel(s, IOAPIC_BASE + IOREGSEL, reg);
    qtest_writel(s, IOAPIC_BASE + IOWIN, value);
}

static uint64_t entry_get(QTestState *s, int pin)
{
    return ioapic_read(s, REG_REDTBL(pin)) |
           (uint64_t)ioapic_read(s, REG_REDTBL(pin) + 1) << 32;
}

static void entry_set(QTestState *s, int pin, uint64_t e)
{
    ioapic_write(s, REG_REDTBL(pin) + 1, e >> 32);
    ioapic_write(s, REG_REDTBL(pin), e);
}

static bool apic_bit(QTestState *s, unsigned reg, unsigned vector)
{
    return qtest_readl(s, APIC_BASE + reg + vector / 32 * 0x10) &
           (1u << (vector % 32));
}

/* CPU 0 takes its highest pending interrupt (IRR -> ISR). */
static void inta(QTestState *s)
{
    qtest_set_irq_in(s, APIC_LAPIC0, "inta", 0, 1);
    qtest_set_irq_in(s, APIC_LAPIC0, "inta", 0, 0);
}

static void lapic_eoi(QTestState *s)
{
    qtest_writel(s, APIC_BASE + APIC_EOI, 0);
}

/* Acknowledge and end vector's interrupt at CPU 0. */
static void take(QTestState *s, uint8_t vector)
{
    g_assert_true(apic_bit(s, APIC_IRR, vector));
    inta(s);
    g_assert_true(apic_bit(s, APIC_ISR, vector));
    lapic_eoi(s);
}

static void isa_irq(QTestState *s, int n, int level)
{
    qtest_outb(s, TESTDEV_IRQ + n, level);
}

/* The PC with pc-testdev's IRQ port and CPU 0's APIC enabled. */
static QTestState *start(const char *extra)
{
    QTestState *s = qtest_initf("-machine pc,pit=off -device pc-testdev %s",
                                extra ? extra : "");

    qtest_writel(s, APIC_BASE + APIC_SVR, 0x1ff);
    return s;
}

static void test_id_version(void)
{
    QTestState *s = start(NULL);

    g_assert_cmphex(ioapic_read(s, REG_ID), ==, 0);
    /* Version 0x20, 24 entries (the highest is 23). */
    g_assert_cmphex(ioapic_read(s, REG_VER), ==, 0x00170020);
    g_assert_cmphex(ioapic_read(s, REG_ARB), ==, 0);
    /* The ID is 4 bits wide; the arbitration ID follows it. */
    ioapic_write(s, REG_ID, 0xffffffff);
    g_assert_cmphex(ioapic_read(s, REG_ID), ==, 0x0f000000);
    g_assert_cmphex(ioapic_read(s, REG_ARB), ==, 0x0f000000);
    ioapic_write(s, REG_ID, 0x02000000);
    g_assert_cmphex(ioapic_read(s, REG_ID), ==, 0x02000000);
    /* Version and arbitration are read-only. */
    ioapic_write(s, REG_VER, 0);
    ioapic_write(s, REG_ARB, 0);
    g_assert_cmphex(ioapic_read(s, REG_VER), ==, 0x00170020);
    g_assert_cmphex(ioapic_read(s, REG_ARB), ==, 0x02000000);
    /* IOREGSEL reads back; unknown registers read 0. */
    qtest_writel(s, IOAPIC_BASE + IOREGSEL, 0xff);
    g_assert_cmphex(qtest_readl(s, IOAPIC_BASE + IOREGSEL), ==, 0xff);
    g_assert_cmphex(qtest_readl(s, IOAPIC_BASE + IOWIN), ==, 0);
    qtest_quit(s);
}

static void test_redirection_registers(void)
{
    QTestState *s = start(NULL);

    /* Reset: every entry masked, the rest 0. */
    for (int pin = 0; pin < 24; pin++) {
        g_assert_cmphex(entry_get(s, pin), ==, RTE_MASKED);
    }
    /* Delivery status and remote IRR are read-only. */
    for (int pin = 0; pin < 24; pin++) {
        ioapic_write(s, REG_REDTBL(pin), 0xffffffff);
        ioapic_write(s, REG_REDTBL(pin) + 1, 0xffffffff);
    }
    for (int pin = 0; pin < 24; pin++) {
        g_assert_cmphex(entry_get(s, pin), ==, 0xffffffffffffafffull);
    }
    /* Each entry is its own register. */
    for (int pin = 0; pin < 24; pin++) {
        entry_set(s, pin, RTE_MASKED | RTE_DEST(pin) | (0x20 + pin));
    }
    for (int pin = 0; pin < 24; pin++) {
        g_assert_cmphex(entry_get(s, pin), ==,
                        RTE_MASKED | RTE_DEST(pin) | (0x20 + pin));
    }
    /* The window takes whole dwords only; IOREGSEL takes a byte. */
    qtest_writeb(s, IOAPIC_BASE + IOREGSEL, REG_REDTBL(3));
    g_assert_cmphex(qtest_readl(s, IOAPIC_BASE + IOWIN), ==,
                    RTE_MASKED | 0x23);
    qtest_writeb(s, IOAPIC_BASE + IOWIN, 0x55);
    g_assert_cmphex(qtest_readl(s, IOAPIC_BASE + IOWIN), ==,
                    RTE_MASKED | 0x23);
    g_assert_cmphex(qtest_readb(s, IOAPIC_BASE + IOWIN), ==, 0);

    /* system_reset masks them all again. */
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    for (int pin = 0; pin < 24; pin++) {
        g_assert_cmphex(entry_get(s, pin), ==, RTE_MASKED);
    }
    qtest_quit(s);
}

static void test_edge(void)
{
    QTestState *s = start(NULL);

    entry_set(s, 5, 0x35);
    isa_irq(s, 5, 1);
    g_assert_true(apic_bit(s, APIC_IRR, 0x35));
    g_assert_false(apic_bit(s, APIC_TMR, 0x35));
    g_assert_cmphex(entry_get(s, 5), ==, 0x35);   /* no remote IRR */
    take(s, 0x35);
    /* Held high: no new edge, no new interrupt. */
    isa_irq(s, 5, 1);
    g_assert_false(apic_bit(s, APIC_IRR, 0x35));
    isa_irq(s, 5, 0);
    isa_irq(s, 5, 1);
    take(s, 0x35);
    isa_irq(s, 5, 0);

    /* An edge on a masked pin is lost, even once unmasked. */
    entry_set(s, 5, RTE_MASKED | 0x35);
    isa_irq(s, 5, 1);
    entry_set(s, 5, 0x35);
    g_assert_false(apic_bit(s, APIC_IRR, 0x35));
    isa_irq(s, 5, 0);
    /* Pins left masked deliver nothing. */
    isa_irq(s, 6, 1);
    isa_irq(s, 6, 0);
    for (unsigned i = 0; i < 8; i++) {
        g_assert_cmphex(qtest_readl(s, APIC_BASE + APIC_IRR + i * 0x10), ==,
                        0);
    }
    qtest_quit(s);
}

static void test_level(void)
{
    QTestState *s = start(NULL);

    entry_set(s, 10, RTE_LEVEL | 0x45);
    isa_irq(s, 10, 1);
    g_assert_true(apic_bit(s, APIC_IRR, 0x45));
    g_assert_true(apic_bit(s, APIC_TMR, 0x45));
    g_assert_cmphex(entry_get(s, 10), ==, RTE_REMOTE_IRR | RTE_LEVEL | 0x45);

    /* The EOI register, line still high: served again at once. */
    qtest_writel(s, IOAPIC_BASE + IOAPIC_EOI, 0x45);
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    /* Another vector's EOI does not touch it. */
    isa_irq(s, 10, 0);
    qtest_writel(s, IOAPIC_BASE + IOAPIC_EOI, 0x46);
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    qtest_writel(s, IOAPIC_BASE + IOAPIC_EOI, 0x45);
    g_assert_false(entry_get(s, 10) & RTE_REMOTE_IRR);
    take(s, 0x45);

    /* The local APIC's EOI of a level vector reaches the IOAPIC. */
    isa_irq(s, 10, 1);
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    inta(s);
    g_assert_true(apic_bit(s, APIC_ISR, 0x45));
    /* While remote IRR is set the line cannot interrupt again. */
    g_assert_false(apic_bit(s, APIC_IRR, 0x45));
    lapic_eoi(s);
    /* Still asserted: remote IRR clears and is set by a new delivery. */
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    g_assert_true(apic_bit(s, APIC_IRR, 0x45));
    isa_irq(s, 10, 0);
    inta(s);
    lapic_eoi(s);
    g_assert_false(entry_get(s, 10) & RTE_REMOTE_IRR);
    g_assert_false(apic_bit(s, APIC_IRR, 0x45));

    /* A level held while masked is delivered on unmasking. */
    entry_set(s, 10, RTE_MASKED | RTE_LEVEL | 0x45);
    isa_irq(s, 10, 1);
    g_assert_false(entry_get(s, 10) & RTE_REMOTE_IRR);
    g_assert_false(apic_bit(s, APIC_IRR, 0x45));
    entry_set(s, 10, RTE_LEVEL | 0x45);
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    take(s, 0x45);
    isa_irq(s, 10, 0);
    /* Turning the entry into an edge one drops remote IRR. */
    entry_set(s, 10, 0x45);
    g_assert_false(entry_get(s, 10) & RTE_REMOTE_IRR);
    qtest_quit(s);
}

/* Version 0x11 has no EOI register. */
static void test_version_11(void)
{
    QTestState *s = start("-global ioapic.version=0x11");

    g_assert_cmphex(ioapic_read(s, REG_VER), ==, 0x00170011);
    entry_set(s, 10, RTE_LEVEL | 0x45);
    isa_irq(s, 10, 1);
    isa_irq(s, 10, 0);
    qtest_writel(s, IOAPIC_BASE + IOAPIC_EOI, 0x45);
    g_assert_true(entry_get(s, 10) & RTE_REMOTE_IRR);
    take(s, 0x45);
    g_assert_false(entry_get(s, 10) & RTE_REMOTE_IRR);
    qtest_quit(s);
}

/* ISA IRQ 0 is pin 2 (the MADT's interrupt source override). */
static void test_irq0_pin2(void)
{
    QTestState *s = start(NULL);

    entry_set(s, 0, 0x30);
    entry_set(s, 2, 0x32);
    isa_irq(s, 0, 1);
    g_assert_true(apic_bit(s, APIC_IRR, 0x32));
    g_assert_false(apic_bit(s, APIC_IRR, 0x30));
    take(s, 0x32);
    isa_irq(s, 0, 0);
    qtest_quit(s);
}

/* The RTC's periodic interrupt, IRQ 8, lands in CPU 0's IRR. */
static void test_rtc(void)
{
    QTestState *s = start("-rtc clock=vm");
    int count = 0;

    entry_set(s, 8, 0x38);
    qtest_outb(s, RTC_INDEX, 0x0a);
    qtest_outb(s, RTC_DATA, 0x26);              /* 1024 Hz */
    qtest_outb(s, RTC_INDEX, 0x0b);
    qtest_outb(s, RTC_DATA, 0x42);              /* PIE, 24 h */
    for (int i = 0; i < 40; i++) {
        qtest_clock_step(s, 1000000000 / 1024 / 4);
        if (apic_bit(s, APIC_IRR, 0x38)) {
            take(s, 0x38);
            /* Reading C lowers the line for the next edge. */
            qtest_outb(s, RTC_INDEX, 0x0c);
            g_assert_cmphex(qtest_inb(s, RTC_DATA) & 0xc0, ==, 0xc0);
            count++;
        }
    }
    /* 40 quarter periods: 10 ticks, give or take the first's phase. */
    g_assert_cmpint(count, >=, 9);
    g_assert_cmpint(count, <=, 10);
    qtest_quit(s);
}

/* The PIT's channel 0 on ISA IRQ 0 arrives on pin 2. */
static void test_pit(void)
{
    QTestState *s = qtest_init("-machine pc");
    int count = 0;

    qtest_writel(s, APIC_BASE + APIC_SVR, 0x1ff);
    /* Channel 0, mode 2, 1193 clocks: one interrupt per ms. */
    qtest_outb(s, 0x43, 0x34);
    qtest_outb(s, 0x40, 1193 & 0xff);
    qtest_outb(s, 0x40, 1193 >> 8);
    entry_set(s, 0, 0x30);
    entry_set(s, 2, 0x32);
    for (int i = 0; i < 20; i++) {
        qtest_clock_step(s, 250000);
        g_assert_false(apic_bit(s, APIC_IRR, 0x30));
        if (apic_bit(s, APIC_IRR, 0x32)) {
            take(s, 0x32);
            count++;
        }
    }
    g_assert_cmpint(count, >=, 4);
    g_assert_cmpint(count, <=, 5);
    qtest_quit(s);
}

static void test_destinations(void)
{
    QTestState *s = start("-smp 2");

    /* Physical: CPU 0 is ID 0; ID 1 is CPU 1 (software-disabled). */
    entry_set(s, 3, RTE_DEST(1) | 0x53);
    isa_irq(s, 3, 1);
    isa_irq(s, 3, 0);
    g_assert_false(apic_bit(s, APIC_IRR, 0x53));
    /* Logical, flat: CPU 0's LDR has bit 0. */
    qtest_writel(s, APIC_BASE + APIC_LDR, 0x01000000);
    entry_set(s, 3, RTE_LOGICAL | RTE_DEST(0x03) | 0x54);
    isa_irq(s, 3, 1);
    isa_irq(s, 3, 0);
    take(s, 0x54);
    entry_set(s, 3, RTE_LOGICAL | RTE_DEST(0x02) | 0x55);
    isa_irq(s, 3, 1);
    isa_irq(s, 3, 0);
    g_assert_false(apic_bit(s, APIC_IRR, 0x55));
    /* Lowest priority to everyone: the one able to take it does. */
    entry_set(s, 3, RTE_DM_LOWPRI | RTE_LOGICAL | RTE_DEST(0xff) | 0x56);
    isa_irq(s, 3, 1);
    isa_irq(s, 3, 0);
    take(s, 0x56);
    /* INIT through the IOAPIC resets CPU 0's APIC. */
    entry_set(s, 3, RTE_DM_INIT | RTE_DEST(0));
    isa_irq(s, 3, 1);
    g_assert_cmphex(qtest_readl(s, APIC_BASE + APIC_SVR), ==, 0xff);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("ioapic/id-version", test_id_version);
    qtest_add_func("ioapic/redirection-registers",
                   test_redirection_registers);
    qtest_add_func("ioapic/edge", test_edge);
    qtest_add_func("ioapic/level", test_level);
    qtest_add_func("ioapic/version-0x11", test_version_11);
    qtest_add_func("ioapic/irq0-pin2", test_irq0_pin2);
    qtest_add_func("ioapic/rtc", test_rtc);
    qtest_add_func("ioapic/pit", test_pit);
    qtest_add_func("ioapic/destinations", test_destinations);
    return g_test_run();
}
