/*
 * qtest for acpi-pm: the PM1 event and control blocks (write-1-to-clear
 * status, enables, S5 through SLP_EN), the 3.579545 MHz PM timer and its
 * TMR_STS, the SCI on ISA IRQ 9 (intercepted at the I/O APIC), the power
 * button pressed by QMP system_powerdown, and the reset register 0xcf9.
 */
#include <string.h>
#include <sys/wait.h>

#include <glib.h>

#include "libqtest.h"

/*
 * The device comes from -device until the pc board creates it; then
 * this becomes "" (a second acpi-pm would collide at 0x600).
 */
#define PM_ARGS             "-machine pc"

#define PM_BASE             0x600
#define PM1_STS             (PM_BASE + 0x00)
#define PM1_EN              (PM_BASE + 0x02)
#define PM1_CNT             (PM_BASE + 0x04)
#define PM_TMR              (PM_BASE + 0x08)
#define GPE0_STS            (PM_BASE + 0x0c)
#define GPE0_EN             (PM_BASE + 0x0e)
#define RESET_PORT          0xcf9

#define TMR_STS             (1u << 0)
#define PWRBTN_STS          (1u << 8)
#define TMR_EN              (1u << 0)
#define PWRBTN_EN           (1u << 8)
#define SCI_EN              (1u << 0)
#define SLP_TYP(t)          ((t) << 10)
#define SLP_EN              (1u << 13)

#define SCI_IRQ             9
#define PM_TIMER_HZ         3579545
#define NS_PER_SEC          1000000000LL

static void check_event(QTestState *s, const char *name, const char *reason)
{
    JsonNode *event = qtest_qmp_eventwait_ref(s, name);
    JsonObject *data = qdict_get_qdict(event, "data");

    g_assert_nonnull(data);
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    reason);
    g_assert_true(json_object_get_boolean_member(data, "guest"));
    json_node_unref(event);
}

/* Press the button and wait until the handler has run. */
static void powerdown(QTestState *s)
{
    JsonNode *reply = qtest_qmp(s, "{\"execute\": \"system_powerdown\"}");

    g_assert_false(qtest_qmp_has_error(reply));
    json_node_unref(reply);
    qtest_qmp_eventwait(s, "POWERDOWN");
}

static void test_reset_values(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    g_assert_cmphex(qtest_inw(s, PM1_STS), ==, 0);
    g_assert_cmphex(qtest_inw(s, PM1_EN), ==, 0);
    /* No firmware to switch modes: ACPI mode from reset. */
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, SCI_EN);
    g_assert_cmphex(qtest_inl(s, GPE0_STS), ==, 0);
    g_assert_cmphex(qtest_inw(s, PM_BASE + 0x06), ==, 0);
    g_assert_cmphex(qtest_inb(s, RESET_PORT), ==, 0);
    /* The 16-port window ends at 0x60f. */
    g_assert_cmphex(qtest_inb(s, PM_BASE + 0x10), ==, 0xff);
    qtest_quit(s);
}

static void test_enable(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    /* TMR_EN, GBL_EN, PWRBTN_EN, RTC_EN exist; the rest read 0. */
    qtest_outw(s, PM1_EN, 0xffff);
    g_assert_cmphex(qtest_inw(s, PM1_EN), ==, 0x0521);
    /* A byte write leaves the other byte alone. */
    qtest_outb(s, PM1_EN + 1, 0x00);
    g_assert_cmphex(qtest_inw(s, PM1_EN), ==, 0x0021);
    /* A dword write at PM1a_EVT_BLK reaches both halves. */
    qtest_outl(s, PM1_STS, (uint32_t)PWRBTN_EN << 16);
    g_assert_cmphex(qtest_inl(s, PM1_STS), ==, (uint32_t)PWRBTN_EN << 16);
    qtest_outw(s, GPE0_EN, 0x00ff);
    g_assert_cmphex(qtest_inw(s, GPE0_EN), ==, 0x00ff);
    /* SLP_EN reads 0; SLP_TYP is kept. */
    qtest_outw(s, PM1_CNT, SCI_EN | SLP_TYP(5));
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, SCI_EN | SLP_TYP(5));
    qtest_quit(s);
}

/* PWRBTN_STS: set by the button, cleared only by writing 1. */
static void test_status_w1c(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    powerdown(s);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, PWRBTN_STS);
    qtest_outw(s, PM1_STS, 0);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, PWRBTN_STS);
    qtest_outb(s, PM1_STS, 0xff);           /* the other byte */
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, PWRBTN_STS);
    qtest_outb(s, PM1_STS + 1, PWRBTN_STS >> 8);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, 0);
    /* GPE0_STS is read-only 0 without sources, and writable-to-clear. */
    qtest_outw(s, GPE0_STS, 0xffff);
    g_assert_cmphex(qtest_inw(s, GPE0_STS), ==, 0);
    qtest_quit(s);
}

static uint32_t timer_delta(uint32_t t0, uint32_t t1)
{
    return (t1 - t0) & 0xffffff;
}

static void test_timer(void)
{
    QTestState *s = qtest_init(PM_ARGS);
    uint32_t t0, t1;

    t0 = qtest_inl(s, PM_TMR);
    g_assert_cmphex(t0 >> 24, ==, 0);       /* 24-bit timer */
    g_assert_cmphex(qtest_inl(s, PM_TMR), ==, t0);  /* time stands */

    qtest_clock_step(s, NS_PER_SEC);
    t1 = qtest_inl(s, PM_TMR);
    g_assert_cmpuint(t1 >> 24, ==, 0);
    g_assert_cmpint(labs((long)timer_delta(t0, t1) - PM_TIMER_HZ), <=, 1);

    /* 1 ms, and narrow reads of the same count. */
    t0 = t1;
    qtest_clock_step(s, NS_PER_SEC / 1000);
    t1 = qtest_inl(s, PM_TMR);
    g_assert_cmpint(labs((long)timer_delta(t0, t1) - PM_TIMER_HZ / 1000),
                    <=, 1);
    g_assert_cmphex(qtest_inw(s, PM_TMR), ==, t1 & 0xffff);
    g_assert_cmphex(qtest_inb(s, PM_TMR + 2), ==, (t1 >> 16) & 0xff);
    g_assert_cmphex(qtest_inb(s, PM_TMR + 3), ==, 0);

    /* Read-only. */
    qtest_outl(s, PM_TMR, 0);
    g_assert_cmphex(qtest_inl(s, PM_TMR), ==, t1);
    qtest_quit(s);
}

/* Nanoseconds until bit 23 of the count next changes. */
static int64_t ns_to_toggle(QTestState *s)
{
    uint32_t t = qtest_inl(s, PM_TMR);
    uint64_t ticks = 0x800000 - (t & 0x7fffff);

    return ticks * NS_PER_SEC / PM_TIMER_HZ;
}

/* The virtual time at which bit 23 of the count next changes. */
static int64_t next_toggle(QTestState *s)
{
    int64_t now = qtest_clock_step(s, 0);
    uint64_t ticks = (unsigned __int128)now * PM_TIMER_HZ / NS_PER_SEC;
    uint64_t toggle = (ticks | 0x7fffff) + 1;

    return ((unsigned __int128)toggle * NS_PER_SEC + PM_TIMER_HZ - 1) /
           PM_TIMER_HZ;
}

/* TMR_STS each 2^23 ticks; with TMR_EN it raises the SCI. */
static void test_timer_sci(void)
{
    QTestState *s = qtest_init(PM_ARGS);
    int64_t toggle;

    qtest_irq_intercept_in(s, "ioapic");
    /* Whatever came due before the test: clear it. */
    qtest_outw(s, PM1_STS, TMR_STS);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & TMR_STS, ==, 0);

    /* Without TMR_EN: status only. */
    qtest_clock_step(s, ns_to_toggle(s) + 1000);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & TMR_STS, ==, TMR_STS);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));
    qtest_outw(s, PM1_STS, TMR_STS);

    /* With TMR_EN: the SCI comes at the toggle, to the nanosecond. */
    qtest_outw(s, PM1_EN, TMR_EN);
    toggle = next_toggle(s);
    g_assert_cmpint(toggle - qtest_clock_step(s, 0), >, 2 * NS_PER_SEC);
    qtest_clock_set(s, toggle - 1);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));
    g_assert_cmphex(qtest_inw(s, PM1_STS) & TMR_STS, ==, 0);
    g_assert_cmphex(qtest_inl(s, PM_TMR) & 0x7fffff, ==, 0x7fffff);
    qtest_clock_set(s, toggle);
    g_assert_true(qtest_get_irq(s, SCI_IRQ));
    g_assert_cmphex(qtest_inl(s, PM_TMR) & 0x7fffff, ==, 0);
    qtest_outw(s, PM1_STS, TMR_STS);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));

    /* Disabling the enable drops a pending SCI too. */
    qtest_clock_step(s, ns_to_toggle(s) + 1000);
    g_assert_true(qtest_get_irq(s, SCI_IRQ));
    qtest_outw(s, PM1_EN, 0);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));
    qtest_quit(s);
}

static void test_power_button_sci(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    qtest_irq_intercept_in(s, "ioapic");
    qtest_outw(s, PM1_EN, PWRBTN_EN);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));
    powerdown(s);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, PWRBTN_STS);
    g_assert_true(qtest_get_irq(s, SCI_IRQ));
    qtest_outw(s, PM1_STS, PWRBTN_STS);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));

    /* SCI_EN clear: the status is set but no SCI. */
    qtest_outw(s, PM1_CNT, 0);
    powerdown(s);
    g_assert_cmphex(qtest_inw(s, PM1_STS) & PWRBTN_STS, ==, PWRBTN_STS);
    g_assert_false(qtest_get_irq(s, SCI_IRQ));
    /* Setting SCI_EN again delivers it. */
    qtest_outw(s, PM1_CNT, SCI_EN);
    g_assert_true(qtest_get_irq(s, SCI_IRQ));
    qtest_quit(s);
}

/* Writing SLP_TYP of _S5 with SLP_EN powers off: exit 0. */
static void test_s5(void)
{
    QTestState *s = qtest_init(PM_ARGS);
    int wstatus;

    qtest_outw(s, PM1_CNT, SCI_EN | SLP_TYP(0) | SLP_EN);
    check_event(s, "SHUTDOWN", "guest-shutdown");
    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
    qtest_quit(s);
}

/* Other sleep types are not offered; the machine keeps running. */
static void test_other_sleep_types(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    for (unsigned typ = 1; typ < 8; typ++) {
        qtest_outw(s, PM1_CNT, SCI_EN | SLP_TYP(typ) | SLP_EN);
        g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, SCI_EN | SLP_TYP(typ));
    }
    qtest_quit(s);
}

/* 0xcf9 with RCPU set resets; -no-reboot turns that into an exit 0. */
static void test_reset_no_reboot(void)
{
    QTestState *s = qtest_init(PM_ARGS " -no-reboot");
    int wstatus;

    qtest_outb(s, RESET_PORT, 0x06);
    check_event(s, "SHUTDOWN", "guest-reset");
    wstatus = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(wstatus));
    g_assert_cmpint(WEXITSTATUS(wstatus), ==, 0);
    qtest_quit(s);
}

static void test_reset(void)
{
    QTestState *s = qtest_init(PM_ARGS);

    /* SRST alone only selects the reset type, as Linux writes it first. */
    qtest_outb(s, RESET_PORT, 0x02);
    g_assert_cmphex(qtest_inb(s, RESET_PORT), ==, 0x02);
    qtest_outw(s, PM1_EN, PWRBTN_EN);
    qtest_outw(s, PM1_CNT, 0);

    qtest_outb(s, RESET_PORT, 0x06);
    check_event(s, "RESET", "guest-reset");
    /* The registers are back at their reset values. */
    g_assert_cmphex(qtest_inb(s, RESET_PORT), ==, 0);
    g_assert_cmphex(qtest_inw(s, PM1_EN), ==, 0);
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, SCI_EN);
    qtest_quit(s);
}

/* -machine none: no board acpi-pm to tell apart from this one. */
static void test_properties(void)
{
    QTestState *s = qtest_init("-machine none -device acpi-pm,"
                               "iobase=0xb000,reset-port=0");

    g_assert_cmphex(qtest_inw(s, 0xb004), ==, SCI_EN);
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, 0xffff);
    g_assert_cmphex(qtest_inb(s, RESET_PORT), ==, 0xff);
    qtest_quit(s);
}

/*
 * -no-acpi (libvirt's default for a domain without <acpi/>): no PM
 * device, so its ports are unassigned; usb=off is accepted on the way.
 */
static void test_no_acpi(void)
{
    QTestState *s = qtest_init(PM_ARGS ",usb=off -no-acpi");
    char *qtree = qtest_hmp(s, "info qtree");

    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, 0xffff);
    g_assert_cmphex(qtest_inw(s, PM1_STS), ==, 0xffff);
    g_assert_null(strstr(qtree, "acpi-pm"));
    g_assert_nonnull(strstr(qtree, "i8042"));
    g_free(qtree);
    qtest_quit(s);
    s = qtest_init(PM_ARGS ",acpi=off");
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, 0xffff);
    qtest_quit(s);
    s = qtest_init(PM_ARGS ",acpi=auto");
    g_assert_cmphex(qtest_inw(s, PM1_CNT), ==, SCI_EN);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/acpi-pm/reset-values", test_reset_values);
    qtest_add_func("/acpi-pm/enable", test_enable);
    qtest_add_func("/acpi-pm/status-w1c", test_status_w1c);
    qtest_add_func("/acpi-pm/timer", test_timer);
    qtest_add_func("/acpi-pm/timer-sci", test_timer_sci);
    qtest_add_func("/acpi-pm/power-button-sci", test_power_button_sci);
    qtest_add_func("/acpi-pm/s5", test_s5);
    qtest_add_func("/acpi-pm/other-sleep-types", test_other_sleep_types);
    qtest_add_func("/acpi-pm/reset-no-reboot", test_reset_no_reboot);
    qtest_add_func("/acpi-pm/reset", test_reset);
    qtest_add_func("/acpi-pm/properties", test_properties);
    qtest_add_func("/acpi-pm/no-acpi", test_no_acpi);
    return g_test_run();
}
