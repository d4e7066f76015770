/*
 * qtest for the MC146818 RTC: time formats, setting the time, the
 * update cycle (UIP, UF), alarms, the periodic interrupt on IRQ 8
 * (intercepted at the I/O APIC) and the PC's CMOS memory bytes.
 *
 * Most cases share one emulator with -rtc clock=vm, as QEMU's test does,
 * so the clock moves only with clock_step.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <glib.h>

#include "hw/rtc/mc146818rtc-regs.h"
#include "libqtest.h"

#define RTC_INDEX           RTC_ISA_BASE
#define RTC_DATA            (RTC_ISA_BASE + 1)

#define NS_PER_SEC          1000000000LL
#define UIP_HOLD_NS         (8 * NS_PER_SEC / 32768)

static QTestState *qts;     /* the shared -rtc clock=vm emulator */

static uint8_t cmos_read_on(QTestState *s, uint8_t reg)
{
    qtest_outb(s, RTC_INDEX, reg);
    return qtest_inb(s, RTC_DATA);
}

static void cmos_write_on(QTestState *s, uint8_t reg, uint8_t val)
{
    qtest_outb(s, RTC_INDEX, reg);
    qtest_outb(s, RTC_DATA, val);
}

static uint8_t cmos_read(uint8_t reg)
{
    return cmos_read_on(qts, reg);
}

static void cmos_write(uint8_t reg, uint8_t val)
{
    cmos_write_on(qts, reg, val);
}

static int bcd2dec(int v)
{
    return (v >> 4) * 10 + (v & 0x0f);
}

/* Set the time with the divider held in reset; it restarts at x.5 s. */
static void set_time(int mode, int h, int m, int s)
{
    cmos_write(RTC_REG_B, mode);
    cmos_write(RTC_REG_A, 0x76);
    cmos_write(RTC_HOURS, h);
    cmos_write(RTC_MINUTES, m);
    cmos_write(RTC_SECONDS, s);
    cmos_write(RTC_REG_A, 0x26);
}

static void set_date(int day, int month, int year, int century)
{
    cmos_write(RTC_REG_A, 0x76);
    cmos_write(RTC_DAY_OF_MONTH, day);
    cmos_write(RTC_MONTH, month);
    cmos_write(RTC_YEAR, year);
    cmos_write(RTC_CENTURY, century);
    cmos_write(RTC_REG_A, 0x26);
}

#define assert_time(h, m, s) \
    do { \
        g_assert_cmphex(cmos_read(RTC_HOURS), ==, h); \
        g_assert_cmphex(cmos_read(RTC_MINUTES), ==, m); \
        g_assert_cmphex(cmos_read(RTC_SECONDS), ==, s); \
    } while (0)

#define assert_date(d, m, y, c) \
    do { \
        g_assert_cmphex(cmos_read(RTC_DAY_OF_MONTH), ==, d); \
        g_assert_cmphex(cmos_read(RTC_MONTH), ==, m); \
        g_assert_cmphex(cmos_read(RTC_YEAR), ==, y); \
        g_assert_cmphex(cmos_read(RTC_CENTURY), ==, c); \
    } while (0)

/* Turn all interrupts off and acknowledge whatever is pending. */
static void quiesce(void)
{
    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) &
               ~(REG_B_PIE | REG_B_AIE | REG_B_UIE));
    cmos_read(RTC_REG_C);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
}

/*
 * The RTC's time in seconds since the epoch, read twice until two
 * readings agree (an update may land between the reads).
 */
static time_t rtc_time_on(QTestState *s)
{
    for (int tries = 0; tries < 4; tries++) {
        struct tm tm = { 0 };
        time_t t[2];

        for (int i = 0; i < 2; i++) {
            bool bcd = !(cmos_read_on(s, RTC_REG_B) & REG_B_DM);
            int v[7] = {
                cmos_read_on(s, RTC_SECONDS), cmos_read_on(s, RTC_MINUTES),
                cmos_read_on(s, RTC_HOURS),
                cmos_read_on(s, RTC_DAY_OF_MONTH),
                cmos_read_on(s, RTC_MONTH), cmos_read_on(s, RTC_YEAR),
                cmos_read_on(s, RTC_CENTURY),
            };

            for (int j = 0; bcd && j < 7; j++) {
                v[j] = bcd2dec(v[j]);
            }
            tm.tm_sec = v[0];
            tm.tm_min = v[1];
            tm.tm_hour = v[2];
            tm.tm_mday = v[3];
            tm.tm_mon = v[4] - 1;
            tm.tm_year = v[6] * 100 + v[5] - 1900;
            t[i] = timegm(&tm);
        }
        if (t[0] == t[1]) {
            return t[0];
        }
    }
    g_assert_not_reached();
}

static void check_host_time(int mode)
{
    QTestState *s = qtest_init("-machine pc");
    time_t before, rtc, after;

    cmos_write_on(s, RTC_REG_B, mode);
    before = time(NULL);
    rtc = rtc_time_on(s);
    after = time(NULL);
    /* The RTC starts on a whole second, so it may lag by up to one. */
    g_assert_cmpint(rtc, >=, before - 2);
    g_assert_cmpint(rtc, <=, after + 1);
    qtest_quit(s);
}

static void test_check_time_bcd(void)
{
    check_host_time(REG_B_24H);
}

static void test_check_time_dec(void)
{
    check_host_time(REG_B_24H | REG_B_DM);
}

static void test_base_date(void)
{
    QTestState *s = qtest_init("-machine pc -rtc base=2006-06-17T16:01:21,"
                               "clock=vm");

    /* Defaults: BCD, 24 hours; 17 June 2006 was a Saturday (day 7). */
    g_assert_cmphex(cmos_read_on(s, RTC_REG_B), ==, REG_B_24H);
    g_assert_cmphex(cmos_read_on(s, RTC_SECONDS), ==, 0x21);
    g_assert_cmphex(cmos_read_on(s, RTC_MINUTES), ==, 0x01);
    g_assert_cmphex(cmos_read_on(s, RTC_HOURS), ==, 0x16);
    g_assert_cmphex(cmos_read_on(s, RTC_DAY_OF_WEEK), ==, 7);
    g_assert_cmphex(cmos_read_on(s, RTC_DAY_OF_MONTH), ==, 0x17);
    g_assert_cmphex(cmos_read_on(s, RTC_MONTH), ==, 0x06);
    g_assert_cmphex(cmos_read_on(s, RTC_YEAR), ==, 0x06);
    g_assert_cmphex(cmos_read_on(s, RTC_CENTURY), ==, 0x20);
    g_assert_cmphex(cmos_read_on(s, RTC_REG_A), ==, 0x26);
    g_assert_cmphex(cmos_read_on(s, RTC_REG_D), ==, 0x80);

    /* The virtual clock drives it. */
    qtest_clock_step(s, 60 * NS_PER_SEC);
    g_assert_cmphex(cmos_read_on(s, RTC_MINUTES), ==, 0x02);
    g_assert_cmphex(cmos_read_on(s, RTC_SECONDS), ==, 0x21);
    qtest_quit(s);
}

/* A date before the epoch: the board hands it over as a negative second. */
static void test_base_date_before_1970(void)
{
    QTestState *s = qtest_init("-machine pc -rtc base=1960-02-29T12:34:56,"
                               "clock=vm");

    g_assert_cmphex(cmos_read_on(s, RTC_SECONDS), ==, 0x56);
    g_assert_cmphex(cmos_read_on(s, RTC_MINUTES), ==, 0x34);
    g_assert_cmphex(cmos_read_on(s, RTC_HOURS), ==, 0x12);
    g_assert_cmphex(cmos_read_on(s, RTC_DAY_OF_MONTH), ==, 0x29);
    g_assert_cmphex(cmos_read_on(s, RTC_MONTH), ==, 0x02);
    g_assert_cmphex(cmos_read_on(s, RTC_YEAR), ==, 0x60);
    g_assert_cmphex(cmos_read_on(s, RTC_CENTURY), ==, 0x19);
    qtest_quit(s);
}

static void test_base_localtime(void)
{
    QTestState *s;
    time_t utc;

    /* main() set TZ=UTC-3 (POSIX: three hours east of Greenwich). */
    s = qtest_init("-machine pc -rtc base=localtime,clock=vm");
    utc = time(NULL);
    g_assert_cmpint(llabs((long long)(rtc_time_on(s) - utc) - 3 * 3600), <=,
                    2);
    qtest_quit(s);
}

static void test_basic_24h_bcd(void)
{
    set_time(REG_B_24H, 0x09, 0x59, 0x00);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x09, 0x59, 0x01);
    qtest_clock_step(qts, 59 * NS_PER_SEC);
    assert_time(0x10, 0x00, 0x00);

    set_time(REG_B_24H, 0x23, 0x59, 0x00);
    qtest_clock_step(qts, 60 * NS_PER_SEC);
    assert_time(0x00, 0x00, 0x00);
}

static void test_basic_24h_dec(void)
{
    set_time(REG_B_24H | REG_B_DM, 9, 59, 0);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(9, 59, 1);
    qtest_clock_step(qts, 59 * NS_PER_SEC);
    assert_time(10, 0, 0);

    set_time(REG_B_24H | REG_B_DM, 23, 59, 0);
    qtest_clock_step(qts, 60 * NS_PER_SEC);
    assert_time(0, 0, 0);
}

static void test_basic_12h_bcd(void)
{
    /* Hours: bit 7 is PM, 12 is noon or midnight. */
    set_time(0, 0x81, 0x59, 0x00);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x81, 0x59, 0x01);
    qtest_clock_step(qts, 59 * NS_PER_SEC);
    assert_time(0x82, 0x00, 0x00);

    set_time(0, 0x12, 0x59, 0x59);      /* 12 AM -> 1 AM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x01, 0x00, 0x00);

    set_time(0, 0x92, 0x59, 0x59);      /* 12 PM -> 1 PM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x81, 0x00, 0x00);

    set_time(0, 0x11, 0x59, 0x59);      /* 11 AM -> 12 PM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x92, 0x00, 0x00);

    set_time(0, 0x91, 0x59, 0x59);      /* 11 PM -> 12 AM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x12, 0x00, 0x00);
}

static void test_basic_12h_dec(void)
{
    set_time(REG_B_DM, 0x81, 59, 0);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x81, 59, 1);
    qtest_clock_step(qts, 59 * NS_PER_SEC);
    assert_time(0x82, 0, 0);

    set_time(REG_B_DM, 0x8c, 59, 59);   /* 12 PM -> 1 PM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x81, 0, 0);

    set_time(REG_B_DM, 0x0b, 59, 59);   /* 11 AM -> 12 PM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x8c, 0, 0);

    set_time(REG_B_DM, 0x8b, 59, 59);   /* 11 PM -> 12 AM */
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x0c, 0, 0);
}

static void test_format_switch(void)
{
    /* The same running time reads in whatever format B selects. */
    set_time(REG_B_24H, 0x15, 0x30, 0x00);
    cmos_write(RTC_REG_B, REG_B_24H | REG_B_DM);
    assert_time(15, 30, 0);
    cmos_write(RTC_REG_B, 0);
    assert_time(0x83, 0x30, 0x00);
    cmos_write(RTC_REG_B, REG_B_DM);
    assert_time(0x83, 30, 0);
}

static void test_date_rollover(void)
{
    /* 28 Feb 2100 is not followed by a leap day; 2000's was. */
    set_time(REG_B_24H, 0x23, 0x59, 0x59);
    set_date(0x28, 0x02, 0x00, 0x21);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x00, 0x00, 0x00);
    assert_date(0x01, 0x03, 0x00, 0x21);

    set_time(REG_B_24H, 0x23, 0x59, 0x59);
    set_date(0x28, 0x02, 0x00, 0x20);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_date(0x29, 0x02, 0x00, 0x20);

    /* New year's eve 1999 rolls the century byte. */
    set_time(REG_B_24H, 0x23, 0x59, 0x59);
    set_date(0x31, 0x12, 0x99, 0x19);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_date(0x01, 0x01, 0x00, 0x20);
}

static void test_set_year(void)
{
    set_time(REG_B_24H, 0x02, 0x04, 0x58);
    set_date(0x02, 0x02, 0x11, 0x20);
    assert_date(0x02, 0x02, 0x11, 0x20);
    /* Past 2038 (64-bit time). */
    set_date(0x02, 0x02, 0x80, 0x20);
    assert_date(0x02, 0x02, 0x80, 0x20);
    set_date(0x02, 0x02, 0x80, 0x19);
    assert_date(0x02, 0x02, 0x80, 0x19);
    g_assert_cmphex(cmos_read(RTC_HOURS), ==, 0x02);
}

static void test_set_flag(void)
{
    if (cmos_read(RTC_REG_A) & REG_A_UIP) {
        qtest_clock_step(qts, UIP_HOLD_NS + NS_PER_SEC / 5);
    }
    /* SET stops updates so the guest can write the time. */
    cmos_write(RTC_REG_B, REG_B_24H | REG_B_SET);
    cmos_write(RTC_HOURS, 0x02);
    cmos_write(RTC_MINUTES, 0x04);
    cmos_write(RTC_SECONDS, 0x58);
    cmos_write(RTC_DAY_OF_MONTH, 0x02);
    cmos_write(RTC_MONTH, 0x02);
    cmos_write(RTC_YEAR, 0x11);
    cmos_write(RTC_CENTURY, 0x20);
    assert_time(0x02, 0x04, 0x58);
    g_assert_cmphex(cmos_read(RTC_REG_A) & REG_A_UIP, ==, 0);

    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x02, 0x04, 0x58);
    assert_date(0x02, 0x02, 0x11, 0x20);

    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) & ~REG_B_SET);
    assert_time(0x02, 0x04, 0x58);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x02, 0x04, 0x59);
    assert_date(0x02, 0x02, 0x11, 0x20);
}

static void test_write_while_running(void)
{
    /* Writing one register moves the running clock; the rest stays. */
    set_time(REG_B_24H, 0x10, 0x20, 0x30);
    cmos_write(RTC_MINUTES, 0x45);
    assert_time(0x10, 0x45, 0x30);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x10, 0x45, 0x31);
}

static void test_divider_reset_uip(void)
{
    cmos_write(RTC_REG_B, REG_B_24H);
    cmos_write(RTC_REG_A, 0x76);
    cmos_write(RTC_HOURS, 0x02);
    cmos_write(RTC_MINUTES, 0x04);
    cmos_write(RTC_SECONDS, 0x58);
    qtest_clock_step(qts, NS_PER_SEC);
    assert_time(0x02, 0x04, 0x58);      /* held in reset */

    /* The first update ends 500 ms after the reset is released. */
    cmos_write(RTC_REG_A, 0x26);
    qtest_clock_step(qts, NS_PER_SEC / 2 - UIP_HOLD_NS - 1);
    g_assert_cmphex(cmos_read(RTC_REG_A), ==, 0x26);
    assert_time(0x02, 0x04, 0x58);
    qtest_clock_step(qts, 1);
    g_assert_cmphex(cmos_read(RTC_REG_A), ==, 0x26 | REG_A_UIP);
    assert_time(0x02, 0x04, 0x58);
    qtest_clock_step(qts, UIP_HOLD_NS);
    g_assert_cmphex(cmos_read(RTC_REG_A), ==, 0x26);
    assert_time(0x02, 0x04, 0x59);

    /* UIP is read-only. */
    cmos_write(RTC_REG_A, 0x26 | REG_A_UIP);
    g_assert_cmphex(cmos_read(RTC_REG_A), ==, 0x26);
}

static void test_update_interrupt(void)
{
    quiesce();
    cmos_write(RTC_HOURS_ALARM, 0x23);  /* keep AF out of the way */
    cmos_write(RTC_MINUTES_ALARM, 0);
    cmos_write(RTC_SECONDS_ALARM, 0);
    set_time(REG_B_24H, 0x02, 0x04, 0x58);
    cmos_read(RTC_REG_C);
    cmos_write(RTC_REG_B, REG_B_24H | REG_B_UIE);

    qtest_clock_step(qts, NS_PER_SEC / 2 - 1);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    qtest_clock_step(qts, 1);
    g_assert_true(qtest_get_irq(qts, RTC_ISA_IRQ));

    /* Reading C returns and clears the flags and lowers the IRQ. */
    g_assert_cmphex(cmos_read(RTC_REG_C), ==, REG_C_IRQF | REG_C_UF);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    g_assert_cmphex(cmos_read(RTC_REG_C), ==, 0);

    /* Once a second. */
    qtest_clock_step(qts, NS_PER_SEC - 1);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    qtest_clock_step(qts, 1);
    g_assert_true(qtest_get_irq(qts, RTC_ISA_IRQ));
    cmos_read(RTC_REG_C);

    /* UF is set without UIE; enabling UIE then fires at once. */
    cmos_write(RTC_REG_B, REG_B_24H);
    qtest_clock_step(qts, NS_PER_SEC);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    cmos_write(RTC_REG_B, REG_B_24H | REG_B_UIE);
    g_assert_true(qtest_get_irq(qts, RTC_ISA_IRQ));
    /* Disabling it lowers the line again. */
    cmos_write(RTC_REG_B, REG_B_24H);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    g_assert_cmphex(cmos_read(RTC_REG_C), ==, REG_C_UF);
    quiesce();
}

/* With the default clock=host the update cycle follows the wall clock. */
static void test_update_host_clock(void)
{
    QTestState *s = qtest_init("-machine pc");
    int64_t deadline = g_get_monotonic_time() + 3 * G_USEC_PER_SEC;

    qtest_irq_intercept_in(s, "ioapic");
    cmos_write_on(s, RTC_REG_B, REG_B_24H | REG_B_UIE);
    cmos_read_on(s, RTC_REG_C);
    /* Reading D picks up the asynchronous IRQ messages. */
    while (!(cmos_read_on(s, RTC_REG_D) && qtest_get_irq(s, RTC_ISA_IRQ)) &&
           g_get_monotonic_time() < deadline) {
        g_usleep(10 * 1000);
    }
    g_assert_true(qtest_get_irq(s, RTC_ISA_IRQ));
    g_assert_cmphex(cmos_read_on(s, RTC_REG_C) & REG_C_UF, ==, REG_C_UF);
    qtest_quit(s);
}

static void test_alarm_interrupt(void)
{
    quiesce();
    set_time(REG_B_24H, 0x02, 0x04, 0x58);
    cmos_write(RTC_HOURS_ALARM, 0x02);
    cmos_write(RTC_MINUTES_ALARM, 0x05);
    cmos_write(RTC_SECONDS_ALARM, 0x00);
    cmos_read(RTC_REG_C);
    cmos_write(RTC_REG_B, REG_B_24H | REG_B_AIE);

    /* 02:04:59 at +0.5 s (no alarm), 02:05:00 at +1.5 s. */
    qtest_clock_step(qts, NS_PER_SEC * 3 / 2 - 1);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
    qtest_clock_step(qts, 1);
    g_assert_true(qtest_get_irq(qts, RTC_ISA_IRQ));
    g_assert_cmphex(cmos_read(RTC_REG_C), ==,
                    REG_C_IRQF | REG_C_AF | REG_C_UF);
    g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));

    /* Don't-care values match every second. */
    cmos_write(RTC_HOURS_ALARM, RTC_ALARM_DONT_CARE);
    cmos_write(RTC_MINUTES_ALARM, 0xff);
    cmos_write(RTC_SECONDS_ALARM, RTC_ALARM_DONT_CARE);
    qtest_clock_step(qts, NS_PER_SEC);
    g_assert_true(qtest_get_irq(qts, RTC_ISA_IRQ));
    g_assert_cmphex(cmos_read(RTC_REG_C) & REG_C_AF, ==, REG_C_AF);
    quiesce();
}

static void test_alarm_am_pm(void)
{
    quiesce();
    cmos_write(RTC_MINUTES_ALARM, RTC_ALARM_DONT_CARE);
    cmos_write(RTC_SECONDS_ALARM, RTC_ALARM_DONT_CARE);

    /* 12-hour BCD: 1:59 PM, alarm at 2 PM. */
    cmos_write(RTC_REG_B, 0);
    cmos_write(RTC_REG_A, 0x76);
    cmos_write(RTC_HOURS_ALARM, 0x82);
    cmos_write(RTC_HOURS, 0x81);
    cmos_write(RTC_MINUTES, 0x59);
    cmos_write(RTC_SECONDS, 0x00);
    cmos_read(RTC_REG_C);
    cmos_write(RTC_REG_A, 0x26);
    qtest_clock_step(qts, 60 * NS_PER_SEC);
    g_assert_cmphex(cmos_read(RTC_HOURS), ==, 0x82);
    g_assert_cmphex(cmos_read(RTC_REG_C) & REG_C_AF, ==, REG_C_AF);

    /* 2 AM does not match 2 PM. */
    cmos_write(RTC_REG_A, 0x76);
    cmos_write(RTC_HOURS_ALARM, 0x02);
    cmos_write(RTC_HOURS, 0x81);
    cmos_write(RTC_MINUTES, 0x59);
    cmos_write(RTC_SECONDS, 0x00);
    cmos_read(RTC_REG_C);
    cmos_write(RTC_REG_A, 0x26);
    qtest_clock_step(qts, 60 * NS_PER_SEC);
    g_assert_cmphex(cmos_read(RTC_HOURS), ==, 0x82);
    g_assert_cmphex(cmos_read(RTC_REG_C) & REG_C_AF, ==, 0);
    cmos_write(RTC_REG_B, REG_B_24H);
}

/*
 * Count periodic interrupts over window_ns, acknowledging each; the
 * clock moves in quarter periods so no tick is missed.
 */
static int count_periodic(int rate, int64_t period_ns, int64_t window_ns)
{
    int count = 0;

    quiesce();
    cmos_write(RTC_REG_A, 0x20 | rate);
    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) | REG_B_PIE);
    for (int64_t t = 0; t < window_ns; t += period_ns / 4) {
        qtest_clock_step(qts, period_ns / 4);
        if (qtest_get_irq(qts, RTC_ISA_IRQ)) {
            g_assert_cmphex(cmos_read(RTC_REG_C) & (REG_C_IRQF | REG_C_PF),
                            ==, REG_C_IRQF | REG_C_PF);
            g_assert_false(qtest_get_irq(qts, RTC_ISA_IRQ));
            count++;
        }
    }
    quiesce();
    cmos_write(RTC_REG_A, 0x26);
    return count;
}

static void test_periodic_rates(void)
{
    /* RS >= 3: 32768 >> (RS - 1) Hz; RS 1 and 2: 256 and 128 Hz. */
    g_assert_cmpint(count_periodic(13, NS_PER_SEC / 8, 2 * NS_PER_SEC),
                    ==, 16);
    g_assert_cmpint(count_periodic(15, NS_PER_SEC / 2, 4 * NS_PER_SEC),
                    ==, 8);
    g_assert_cmpint(count_periodic(6, NS_PER_SEC / 1024, NS_PER_SEC / 4),
                    ==, 256);
    g_assert_cmpint(count_periodic(1, NS_PER_SEC / 256, NS_PER_SEC / 2),
                    ==, 128);
    g_assert_cmpint(count_periodic(2, NS_PER_SEC / 128, NS_PER_SEC / 2),
                    ==, 64);
    /* 8192 Hz over 10 ms: 81.92 periods. */
    g_assert_cmpint(count_periodic(3, NS_PER_SEC / 8192, NS_PER_SEC / 100),
                    >=, 81);

    /* Rate 0 or PIE off: nothing. */
    g_assert_cmpint(count_periodic(0, NS_PER_SEC / 8, NS_PER_SEC), ==, 0);
}

/* QEMU's check: alternating rates right after each tick keep time. */
static void test_periodic_switch(void)
{
    int64_t start, now = 0;

    quiesce();
    cmos_write(RTC_REG_A, 13);
    cmos_write(RTC_REG_B, cmos_read(RTC_REG_B) | REG_B_PIE);
    start = qtest_clock_step(qts, 0);
    for (int i = 0; i < 20; i++) {
        for (int rate = 13; rate <= 15; rate += 2) {
            cmos_write(RTC_REG_A, rate);
            while (!qtest_get_irq(qts, RTC_ISA_IRQ)) {
                now = qtest_clock_step_next(qts);
            }
            g_assert_cmphex(cmos_read(RTC_REG_C) & REG_C_PF, ==, REG_C_PF);
        }
    }
    /* 20 * (1/8 + 1/2) s. */
    g_assert_cmpint(llabs(now - start - 12500000000LL), <=, NS_PER_SEC / 2);
    quiesce();
    cmos_write(RTC_REG_A, 0x26);
}

static void test_index_nmi_bit(void)
{
    /* Bit 7 of the index masks NMIs; the register is the low 7 bits. */
    qtest_outb(qts, RTC_INDEX, 0x80 | RTC_REG_D);
    g_assert_cmphex(qtest_inb(qts, RTC_DATA), ==, 0x80);
    qtest_outb(qts, RTC_INDEX, 0x80 | 0x40);
    qtest_outb(qts, RTC_DATA, 0x5a);
    g_assert_cmphex(cmos_read(0x40), ==, 0x5a);
    cmos_write(0x7f, 0xa5);
    g_assert_cmphex(cmos_read(0xff), ==, 0xa5);
    /* The index port is write-only; C and D ignore writes. */
    g_assert_cmphex(qtest_inb(qts, RTC_INDEX), ==, 0xff);
    cmos_write(RTC_REG_D, 0);
    g_assert_cmphex(cmos_read(RTC_REG_D), ==, 0x80);
    cmos_write(RTC_REG_C, 0xff);
    g_assert_cmphex(cmos_read(RTC_REG_C), ==, 0);
}

static void test_fuzz_registers(void)
{
    for (int i = 0; i < 1000; i++) {
        uint8_t reg = g_test_rand_int_range(0, 16);
        uint8_t val = g_test_rand_int_range(0, 256);

        cmos_write(reg, val);
        cmos_read(reg);
        if (i % 50 == 0) {
            qtest_clock_step(qts, NS_PER_SEC / 3);
        }
    }
    /* Still alive and sane afterwards. */
    quiesce();
    set_time(REG_B_24H, 0x12, 0x00, 0x00);
    assert_time(0x12, 0x00, 0x00);
}

static void check_memory(const char *args, const uint8_t expect[][2],
                         size_t n)
{
    QTestState *s = qtest_init(args);

    for (size_t i = 0; i < n; i++) {
        g_assert_cmphex(cmos_read_on(s, expect[i][0]), ==, expect[i][1]);
    }
    qtest_quit(s);
}

static void test_cmos_memory(void)
{
    /* 640 KiB base; extended KiB capped at 0xffff; 64 KiB units. */
    static const uint8_t m512[][2] = {
        { 0x15, 0x80 }, { 0x16, 0x02 },
        { 0x17, 0xff }, { 0x18, 0xff }, { 0x30, 0xff }, { 0x31, 0xff },
        { 0x34, 0x00 }, { 0x35, 0x1f },             /* 496 MiB */
        { 0x5b, 0x00 }, { 0x5c, 0x00 }, { 0x5d, 0x00 },
        { 0x5f, 0x00 },
    };
    /* 5 GiB: 3 GiB below the PCI hole, 2 GiB above 4 GiB. */
    static const uint8_t m5g[][2] = {
        { 0x15, 0x80 }, { 0x16, 0x02 },
        { 0x17, 0xff }, { 0x18, 0xff }, { 0x30, 0xff }, { 0x31, 0xff },
        { 0x34, 0x00 }, { 0x35, 0xbf },             /* 3 GiB - 16 MiB */
        { 0x5b, 0x00 }, { 0x5c, 0x80 }, { 0x5d, 0x00 },
        { 0x5f, 0x03 },
    };
    /* 8 MiB: 7 MiB extended, nothing above 16 MiB. */
    static const uint8_t m8[][2] = {
        { 0x17, 0x00 }, { 0x18, 0x1c }, { 0x30, 0x00 }, { 0x31, 0x1c },
        { 0x34, 0x00 }, { 0x35, 0x00 },
    };

    check_memory("-machine pc -m 512M", m512, G_N_ELEMENTS(m512));
    check_memory("-machine pc -m 5G -smp 4", m5g, G_N_ELEMENTS(m5g));
    check_memory("-machine pc -m 8M", m8, G_N_ELEMENTS(m8));
}

/*
 * -boot order= in CMOS 0x3d (first device, second in the high nibble)
 * and 0x38 (third, high nibble): 1 floppy, 2 disk, 3 CD-ROM, 4 network.
 * The values are QEMU 7.2's pc, read on it with HMP "i /b 0x71".
 */
static void test_cmos_boot_order(void)
{
    static const struct {
        const char *boot;
        uint8_t r3d, r38;
    } cases[] = {
        { "", 0x12, 0x30 },             /* QEMU's default: cad */
        { "-boot order=c", 0x02, 0x00 },
        { "-boot order=d", 0x03, 0x00 },
        { "-boot order=n", 0x04, 0x00 },
        { "-boot order=a", 0x01, 0x00 },
        { "-boot order=b", 0x01, 0x00 },
        { "-boot order=ncd", 0x24, 0x30 },
        { "-boot once=d", 0x03, 0x00 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *args = g_strdup_printf("-machine pc %s", cases[i].boot);
        const uint8_t expect[][2] = {
            { 0x3d, cases[i].r3d }, { 0x38, cases[i].r38 },
        };

        check_memory(args, expect, G_N_ELEMENTS(expect));
        g_free(args);
    }
}

static void system_reset(QTestState *s)
{
    JsonNode *r = qtest_qmp(s, "{\"execute\": \"system_reset\"}");

    g_assert_false(qtest_qmp_has_error(r));
    json_node_unref(r);
}

/* once= is the order until the first system_reset, as on QEMU 7.2. */
static void test_cmos_boot_once(void)
{
    QTestState *s = qtest_init("-machine pc -boot order=dc,once=n");

    g_assert_cmphex(cmos_read_on(s, 0x3d), ==, 0x04);
    system_reset(s);
    g_assert_cmphex(cmos_read_on(s, 0x3d), ==, 0x23);
    system_reset(s);
    g_assert_cmphex(cmos_read_on(s, 0x3d), ==, 0x23);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    int ret;

    /* Before any thread exists; only base=localtime looks at it. */
    g_setenv("TZ", "UTC-3", TRUE);
    g_test_init(&argc, &argv, NULL);
    qts = qtest_init("-machine pc -rtc clock=vm");
    qtest_irq_intercept_in(qts, "ioapic");

    qtest_add_func("rtc/check-time/bcd", test_check_time_bcd);
    qtest_add_func("rtc/check-time/dec", test_check_time_dec);
    qtest_add_func("rtc/base/date", test_base_date);
    qtest_add_func("rtc/base/date-before-1970", test_base_date_before_1970);
    qtest_add_func("rtc/base/localtime", test_base_localtime);
    qtest_add_func("rtc/basic/bcd-24h", test_basic_24h_bcd);
    qtest_add_func("rtc/basic/dec-24h", test_basic_24h_dec);
    qtest_add_func("rtc/basic/bcd-12h", test_basic_12h_bcd);
    qtest_add_func("rtc/basic/dec-12h", test_basic_12h_dec);
    qtest_add_func("rtc/basic/format-switch", test_format_switch);
    qtest_add_func("rtc/basic/date-rollover", test_date_rollover);
    qtest_add_func("rtc/set-year", test_set_year);
    qtest_add_func("rtc/update/register_b_set_flag", test_set_flag);
    qtest_add_func("rtc/update/write-while-running",
                   test_write_while_running);
    qtest_add_func("rtc/update/divider-reset", test_divider_reset_uip);
    qtest_add_func("rtc/update/interrupt", test_update_interrupt);
    qtest_add_func("rtc/update/host-clock", test_update_host_clock);
    qtest_add_func("rtc/alarm/interrupt", test_alarm_interrupt);
    qtest_add_func("rtc/alarm/am-pm", test_alarm_am_pm);
    qtest_add_func("rtc/periodic/rates", test_periodic_rates);
    qtest_add_func("rtc/periodic/switch", test_periodic_switch);
    qtest_add_func("rtc/misc/index-nmi-bit", test_index_nmi_bit);
    qtest_add_func("rtc/misc/fuzz-registers", test_fuzz_registers);
    qtest_add_func("rtc/cmos-memory", test_cmos_memory);
    qtest_add_func("rtc/cmos-boot-order", test_cmos_boot_order);
    qtest_add_func("rtc/cmos-boot-once", test_cmos_boot_once);

    ret = g_test_run();
    qtest_quit(qts);
    return ret;
}
