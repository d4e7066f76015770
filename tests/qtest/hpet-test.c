/*
 * qtest for the HPET of the pc machine: capabilities, the main counter
 * on the virtual clock (which moves only with clock_step), one-shot and
 * periodic timers, level and edge interrupts through the I/O APIC's
 * inputs (intercepted), legacy replacement routing (timer 0 to IRQ 0,
 * timer 1 to IRQ 8, the PIT and the RTC silenced), its ACPI table, and
 * -no-hpet / -machine hpet=off.
 */
#include <string.h>

#include <glib.h>

#include "hw/timer/hpet.h"
#include "libqfw.h"
#include "libqtest.h"

#define MACHINE         "-machine pc"
#define TN_CFG(n)       (HPET_BASE + HPET_TN_BASE + (n) * HPET_TN_SIZE + \
                         HPET_TN_CFG)
#define TN_CMP(n)       (HPET_BASE + HPET_TN_BASE + (n) * HPET_TN_SIZE + \
                         HPET_TN_CMP)
#define NS_PER_TICK     10
#define ROUTE(pin)      ((pin) << HPET_TN_INT_ROUTE_SHIFT)

static uint32_t rd(QTestState *s, uint32_t reg)
{
    return qtest_readl(s, HPET_BASE + reg);
}

static void wr(QTestState *s, uint32_t reg, uint32_t val)
{
    qtest_writel(s, HPET_BASE + reg, val);
}

static uint64_t counter(QTestState *s)
{
    uint32_t lo = rd(s, HPET_COUNTER);

    return (uint64_t)rd(s, HPET_COUNTER + 4) << 32 | lo;
}

static void test_capabilities(void)
{
    QTestState *s = qtest_init(MACHINE);

    /* QEMU's: Intel, legacy capable, 64-bit, 3 timers, revision 1. */
    g_assert_cmphex(rd(s, HPET_ID), ==, 0x8086a201);
    g_assert_cmpuint(rd(s, HPET_PERIOD), ==, 10000000);
    g_assert_cmphex(rd(s, HPET_CFG), ==, 0);
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0);
    for (int n = 0; n < 3; n++) {
        /* Periodic capable, 64-bit; routable to IOAPIC pin 2 only. */
        g_assert_cmphex(qtest_readl(s, TN_CFG(n)), ==,
                        HPET_TN_PERIODIC_CAP | HPET_TN_SIZE_CAP);
        g_assert_cmphex(qtest_readl(s, TN_CFG(n) + 4), ==, 0x4);
        g_assert_cmphex(qtest_readq(s, TN_CMP(n)), ==, ~0ull);
    }
    /* A fourth timer does not exist. */
    g_assert_cmphex(qtest_readl(s, TN_CFG(3)), ==, 0);
    /*
     * Read-only bits stay; SETVAL reads back until a comparator write.
     * (FSB enable is left out: QEMU 7.2 takes it without FSB delivery.)
     */
    wr(s, HPET_ID, 0);
    g_assert_cmphex(rd(s, HPET_ID), ==, 0x8086a201);
    qtest_writel(s, TN_CFG(0), ~HPET_TN_FSB_ENABLE);
    g_assert_cmphex(qtest_readl(s, TN_CFG(0)), ==,
                    HPET_TN_CFG_WRITE_MASK |
                    HPET_TN_PERIODIC_CAP | HPET_TN_SIZE_CAP);
    qtest_quit(s);
}

static void test_counter(void)
{
    QTestState *s = qtest_init(MACHINE);

    /* Halted: the counter stands and takes writes. */
    qtest_clock_step(s, 1000000);
    g_assert_cmpuint(counter(s), ==, 0);
    wr(s, HPET_COUNTER, 0xfffffff0);
    wr(s, HPET_COUNTER + 4, 0x1);
    g_assert_cmphex(counter(s), ==, 0x1fffffff0ull);

    /* Running: 100 MHz of the virtual clock. */
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    qtest_clock_step(s, 1000);
    g_assert_cmphex(counter(s), ==, 0x1fffffff0ull + 100);
    qtest_clock_step(s, 1000000000);
    g_assert_cmphex(counter(s), ==, 0x1fffffff0ull + 100 + 100000000);
    /* Writes while running are ignored. */
    wr(s, HPET_COUNTER, 0);
    g_assert_cmphex(counter(s), ==, 0x1fffffff0ull + 100 + 100000000);

    /* Halting keeps the count. */
    wr(s, HPET_CFG, 0);
    qtest_clock_step(s, 5000);
    g_assert_cmphex(counter(s), ==, 0x1fffffff0ull + 100 + 100000000);
    /* A qword read is two dword reads. */
    g_assert_cmphex(qtest_readq(s, HPET_BASE + HPET_COUNTER), ==,
                    0x1fffffff0ull + 100 + 100000000);
    qtest_quit(s);
}

static void test_oneshot_level(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_irq_intercept_in(s, "ioapic");
    /* Timer 1 to IOAPIC pin 2, level, compare at 1000 ticks (10 us). */
    qtest_writel(s, TN_CMP(1), 1000);
    qtest_writel(s, TN_CMP(1) + 4, 0);
    qtest_writel(s, TN_CFG(1), HPET_TN_ENABLE | HPET_TN_TYPE_LEVEL |
                 ROUTE(2));
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    qtest_clock_step(s, 9990);
    g_assert_false(qtest_get_irq(s, 2));
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0);
    qtest_clock_step(s, 10);
    g_assert_true(qtest_get_irq(s, 2));
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0x2);

    /* Status is write-1-to-clear, and drops the line. */
    wr(s, HPET_STATUS, 0x1);
    g_assert_true(qtest_get_irq(s, 2));
    wr(s, HPET_STATUS, 0x2);
    g_assert_false(qtest_get_irq(s, 2));
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0);

    /* One-shot: nothing more while the counter goes on. */
    qtest_clock_step(s, 100000000);
    g_assert_false(qtest_get_irq(s, 2));
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 1);
    qtest_quit(s);
}

static void test_periodic_edge(void)
{
    QTestState *s = qtest_init(MACHINE);
    unsigned raises;

    qtest_irq_intercept_in(s, "ioapic");
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    qtest_clock_step(s, 500);   /* counter 50 */
    /* Linux's sequence: SETVAL, first match, then the period. */
    qtest_writel(s, TN_CFG(2), HPET_TN_ENABLE | HPET_TN_PERIODIC |
                 HPET_TN_SETVAL | HPET_TN_32BIT | ROUTE(2));
    qtest_writel(s, TN_CMP(2), 1050);
    qtest_writel(s, TN_CMP(2), 1000);
    g_assert_cmphex(qtest_readl(s, TN_CFG(2)) & HPET_TN_SETVAL, ==, 0);
    raises = qtest_get_irq_raises(s, 2);

    qtest_clock_step(s, 10000 - 10);    /* counter 1049 */
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, raises);
    qtest_clock_step(s, 10);            /* 1050: first match */
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, raises + 1);
    g_assert_false(qtest_get_irq(s, 2));    /* an edge */
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0);
    g_assert_cmpuint(qtest_readl(s, TN_CMP(2)), ==, 2050);
    qtest_clock_step(s, 10 * 1000 * 10);    /* ten more periods */
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, raises + 11);
    g_assert_cmpuint(qtest_readl(s, TN_CMP(2)), ==, 12050);

    /* Disabling the timer stops it. */
    qtest_writel(s, TN_CFG(2), HPET_TN_PERIODIC | HPET_TN_32BIT | ROUTE(2));
    qtest_clock_step(s, 10 * 1000 * 10);
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, raises + 11);
    qtest_quit(s);
}

/* A 32-bit one-shot timer also fires when the low half wraps. */
static void test_32bit_wrap(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_irq_intercept_in(s, "ioapic");
    wr(s, HPET_COUNTER, 0xffffff00);
    qtest_writel(s, TN_CFG(0), HPET_TN_32BIT | ROUTE(2));
    qtest_writel(s, TN_CMP(0), 0x100);
    qtest_writel(s, TN_CMP(0) + 4, 0x5);    /* ignored in 32-bit mode */
    g_assert_cmphex(qtest_readq(s, TN_CMP(0)), ==, 0x100);
    qtest_writel(s, TN_CFG(0), HPET_TN_32BIT | HPET_TN_ENABLE | ROUTE(2));
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    qtest_clock_step(s, 0xff * NS_PER_TICK);
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 0);
    qtest_clock_step(s, NS_PER_TICK);       /* wraps to 0 */
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 1);
    qtest_clock_step(s, 0xff * NS_PER_TICK);
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 1);
    qtest_clock_step(s, NS_PER_TICK);       /* the match */
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 2);
    qtest_quit(s);
}

/*
 * Legacy replacement: timer 0 on IRQ 0, timer 1 on IRQ 8, whatever
 * their route; the PIT's and the RTC's interrupts do not get through.
 */
static void test_legacy(void)
{
    QTestState *s = qtest_init(MACHINE);
    unsigned irq0, irq8;

    qtest_irq_intercept_in(s, "ioapic");
    /* The PIT: channel 0, mode 2, 1 kHz. Its ticks pass through. */
    qtest_outb(s, 0x43, 0x34);
    qtest_outb(s, 0x40, 1193 & 0xff);
    qtest_outb(s, 0x40, 1193 >> 8);
    /* The RTC: periodic interrupt at 1024 Hz. */
    qtest_outb(s, 0x70, 0x0b);
    qtest_outb(s, 0x71, 0x42);
    qtest_clock_step(s, 10000000);
    g_assert_cmpuint(qtest_get_irq_raises(s, 0), >=, 9);
    g_assert_true(qtest_get_irq(s, 8));

    wr(s, HPET_CFG, HPET_CFG_LEGACY);
    g_assert_false(qtest_get_irq(s, 0));
    g_assert_false(qtest_get_irq(s, 8));
    irq0 = qtest_get_irq_raises(s, 0);
    irq8 = qtest_get_irq_raises(s, 8);
    qtest_outb(s, 0x70, 0x0c);              /* ack the RTC */
    qtest_inb(s, 0x71);
    qtest_clock_step(s, 10000000);
    g_assert_cmpuint(qtest_get_irq_raises(s, 0), ==, irq0);
    g_assert_cmpuint(qtest_get_irq_raises(s, 8), ==, irq8);

    /* Timer 0 -> IRQ 0 (edge), timer 1 -> IRQ 8 (level). */
    qtest_writel(s, TN_CFG(0), HPET_TN_ENABLE | ROUTE(2));
    qtest_writel(s, TN_CMP(0), 100);
    qtest_writel(s, TN_CMP(0) + 4, 0);
    qtest_writel(s, TN_CFG(1), HPET_TN_ENABLE | HPET_TN_TYPE_LEVEL);
    qtest_writel(s, TN_CMP(1), 200);
    qtest_writel(s, TN_CMP(1) + 4, 0);
    wr(s, HPET_CFG, HPET_CFG_LEGACY | HPET_CFG_ENABLE);
    qtest_clock_step(s, 1000);
    g_assert_cmpuint(qtest_get_irq_raises(s, 0), ==, irq0 + 1);
    g_assert_cmpuint(qtest_get_irq_raises(s, 2), ==, 0);
    g_assert_false(qtest_get_irq(s, 8));
    qtest_clock_step(s, 1000);
    g_assert_true(qtest_get_irq(s, 8));
    g_assert_cmpuint(qtest_get_irq_raises(s, 8), ==, irq8 + 1);
    wr(s, HPET_STATUS, 0x2);
    g_assert_false(qtest_get_irq(s, 8));

    /* Legacy off: the RTC's line (still up, unacknowledged) is back. */
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    g_assert_true(qtest_get_irq(s, 8));
    qtest_clock_step(s, 10000000);
    g_assert_cmpuint(qtest_get_irq_raises(s, 0), >=, irq0 + 1 + 9);
    qtest_quit(s);
}

/* Halting the HPET lowers a level interrupt and clears its status. */
static void test_disable(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_irq_intercept_in(s, "ioapic");
    qtest_writel(s, TN_CFG(0), HPET_TN_ENABLE | HPET_TN_TYPE_LEVEL |
                 ROUTE(2));
    qtest_writel(s, TN_CMP(0), 10);
    qtest_writel(s, TN_CMP(0) + 4, 0);
    wr(s, HPET_CFG, HPET_CFG_ENABLE);
    qtest_clock_step(s, 100);
    g_assert_true(qtest_get_irq(s, 2));
    wr(s, HPET_CFG, 0);
    g_assert_false(qtest_get_irq(s, 2));
    g_assert_cmphex(rd(s, HPET_STATUS), ==, 0);
    qtest_quit(s);
}

/*
 * The table with signature sig among those the firmware gets in
 * etc/acpi/tables (each starts with its signature and length).
 */
static bool acpi_has_table(QTestState *s, const char *sig, uint8_t *out,
                           size_t out_len)
{
    size_t len;
    g_autofree uint8_t *blob = qfw_cfg_load_file(s, "etc/acpi/tables", &len);

    g_assert_nonnull(blob);
    for (size_t off = 0; off + 8 <= len; off++) {
        uint32_t tlen;

        memcpy(&tlen, blob + off + 4, 4);
        if (!memcmp(blob + off, sig, 4) && tlen >= 36 &&
            tlen <= len - off) {
            if (out) {
                memcpy(out, blob + off, MIN(out_len, tlen));
            }
            return true;
        }
    }
    return false;
}

static void test_acpi_table(void)
{
    QTestState *s = qtest_init(MACHINE);
    uint8_t t[56], sum = 0;
    uint32_t id, len;
    uint64_t base;

    g_assert_true(acpi_has_table(s, "HPET", t, sizeof(t)));
    memcpy(&len, t + 4, 4);
    g_assert_cmpuint(len, ==, 56);
    for (size_t i = 0; i < sizeof(t); i++) {
        sum += t[i];
    }
    g_assert_cmpuint(sum, ==, 0);
    memcpy(&id, t + 36, 4);
    g_assert_cmphex(id, ==, rd(s, HPET_ID));
    g_assert_cmpuint(t[40], ==, 0);         /* system memory */
    memcpy(&base, t + 44, 8);
    g_assert_cmphex(base, ==, HPET_BASE);
    qtest_quit(s);
}

static void check_no_hpet(const char *args)
{
    QTestState *s = qtest_init(args);
    char *qtree = qtest_hmp(s, "info qtree");

    g_assert_null(strstr(qtree, "dev: hpet"));
    g_free(qtree);
    g_assert_false(acpi_has_table(s, "HPET", NULL, 0));
    /* Nothing answers at 0xfed00000. */
    g_assert_cmphex(rd(s, HPET_ID), !=, 0x8086a201);
    /* The PIT and the RTC reach IRQ 0 and 8 directly. */
    qtest_irq_intercept_in(s, "ioapic");
    qtest_outb(s, 0x70, 0x0b);
    qtest_outb(s, 0x71, 0x42);
    qtest_clock_step(s, 10000000);
    g_assert_true(qtest_get_irq(s, 8));
    qtest_quit(s);
}

static void test_no_hpet(void)
{
    QTestState *s = qtest_init(MACHINE);
    char *qtree = qtest_hmp(s, "info qtree");

    g_assert_nonnull(strstr(qtree, "dev: hpet"));
    g_free(qtree);
    qtest_quit(s);
    check_no_hpet(MACHINE " -no-hpet");
    check_no_hpet(MACHINE ",hpet=off");
}

static const QTestStartError start_errors[] = {
    { MACHINE ",hpet=foo",
      "qemu-system-x86_64: -machine pc,hpet=foo: Parameter 'hpet' expects "
      "'on' or 'off'\n" },
    { "-machine none -no-hpet",
      "qemu-system-x86_64: -machine none: Property 'none-machine.hpet' "
      "not found\n" },
    { MACHINE ",vmport=on",
      "qemu-system-x86_64: -machine pc,vmport=on: vmport=on is not "
      "supported yet; off and auto (which is off) are\n" },
    { MACHINE ",vmport=foo",
      "qemu-system-x86_64: -machine pc,vmport=foo: Parameter 'vmport' does "
      "not accept value 'foo'\n" },
    { "-machine none,vmport=off",
      "qemu-system-x86_64: -machine none,vmport=off: Property "
      "'none-machine.vmport' not found\n" },
};

static void test_vmport_off(void)
{
    qtest_quit(qtest_init(MACHINE ",vmport=off"));
    qtest_quit(qtest_init(MACHINE ",vmport=auto"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/hpet/capabilities", test_capabilities);
    qtest_add_func("/hpet/counter", test_counter);
    qtest_add_func("/hpet/oneshot-level", test_oneshot_level);
    qtest_add_func("/hpet/periodic-edge", test_periodic_edge);
    qtest_add_func("/hpet/32bit-wrap", test_32bit_wrap);
    qtest_add_func("/hpet/legacy", test_legacy);
    qtest_add_func("/hpet/disable", test_disable);
    qtest_add_func("/hpet/acpi-table", test_acpi_table);
    qtest_add_func("/hpet/no-hpet", test_no_hpet);
    qtest_add_func("/hpet/vmport-off", test_vmport_off);
    qtest_add_start_errors("/hpet/start-error", start_errors,
                           G_N_ELEMENTS(start_errors));
    return g_test_run();
}
