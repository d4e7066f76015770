/*
 * qtest for the 8254 PIT: the counter values and OUT of every mode
 * against clock_step, latch and read-back commands, BCD and the access
 * modes, channel 2 through port 0x61 (gate, OUT, refresh toggle), IRQ 0
 * as the I/O APIC and the i8259 see it, reset and -machine pit=off.
 *
 * The PIT counts at 1.193182 MHz on a fixed grid of the virtual clock:
 * CLK edge k falls at ceil(k * 10^9 / 1193182) ns. A count written
 * between edges k-1 and k is loaded into the counter at edge k (the
 * 8254's load pulse); the tests place writes and checks on those edges.
 */
#include <string.h>

#include <glib.h>

#include "libqtest.h"

#define PIT_FREQ        1193182
#define NS_PER_SEC      1000000000LL

#define PIT_CH(n)       (0x40 + (n))
#define PIT_CTRL        0x43
#define PORT_61         0x61

#define RW_LATCH        0x00
#define RW_LSB          0x10
#define RW_MSB          0x20
#define RW_LSB_MSB      0x30
#define MODE(m)         ((m) << 1)
#define CTRL_BCD        0x01
#define SEL(ch)         ((ch) << 6)
#define READ_BACK       0xc0
#define RB_NO_COUNT     0x20
#define RB_NO_STATUS    0x10
#define RB_CH(ch)       (2 << (ch))
#define STATUS_OUT      0x80
#define STATUS_NULL     0x40

#define P61_GATE2       0x01
#define P61_SPEAKER     0x02
#define P61_REFRESH     0x10
#define P61_OUT2        0x20

#define PIC_MASTER_CMD  0x20
#define PIC_MASTER_DATA 0x21
#define PIC_SLAVE_CMD   0xa0
#define PIC_SLAVE_DATA  0xa1

static QTestState *qts;

static int64_t tick_of(int64_t ns)
{
    return (int64_t)((__int128)ns * PIT_FREQ / NS_PER_SEC);
}

static int64_t ns_of(int64_t tick)
{
    return (int64_t)(((__int128)tick * NS_PER_SEC + PIT_FREQ - 1) /
                     PIT_FREQ);
}

static int64_t now_tick(void)
{
    return tick_of(qtest_clock_step(qts, 0));
}

/* Move the clock to CLK edge k (just after it). */
static void at_tick(int64_t k)
{
    g_assert_cmpint(qtest_clock_set(qts, ns_of(k)), ==, ns_of(k));
}

/* Mode word for channel ch. */
static void pit_mode(int ch, int rw, int mode)
{
    qtest_outb(qts, PIT_CTRL, SEL(ch) | rw | MODE(mode));
}

/* Write a 16-bit count (LSB, MSB); returns the edge it is loaded at. */
static int64_t pit_count(int ch, uint16_t count)
{
    qtest_outb(qts, PIT_CH(ch), count & 0xff);
    qtest_outb(qts, PIT_CH(ch), count >> 8);
    return now_tick() + 1;
}

static uint16_t pit_latched(int ch)
{
    uint16_t v;

    qtest_outb(qts, PIT_CTRL, SEL(ch) | RW_LATCH);
    v = qtest_inb(qts, PIT_CH(ch));
    return v | qtest_inb(qts, PIT_CH(ch)) << 8;
}

static uint8_t pit_status(int ch)
{
    qtest_outb(qts, PIT_CTRL, READ_BACK | RB_NO_COUNT | RB_CH(ch));
    return qtest_inb(qts, PIT_CH(ch));
}

static bool irq0(void)
{
    return qtest_get_irq(qts, 0);
}

static bool out2(void)
{
    return qtest_inb(qts, PORT_61) & P61_OUT2;
}

/*
 * Put channel 0 in mode 0: OUT goes low, so the level the intercepted
 * I/O APIC line last reported (0) is true again whatever ran before.
 */
static void irq0_low(void)
{
    pit_mode(0, RW_LSB_MSB, 0);
    g_assert_false(irq0());
}

/* Mode 0: OUT low, high N+1 edges after the write; the count wraps. */
static void test_mode0(void)
{
    int64_t k0;

    irq0_low();
    k0 = pit_count(0, 1000);
    g_assert_false(irq0());
    at_tick(k0);
    g_assert_cmpuint(pit_latched(0), ==, 1000);
    at_tick(k0 + 100);
    g_assert_cmpuint(pit_latched(0), ==, 900);
    g_assert_cmphex(pit_status(0), ==, RW_LSB_MSB | MODE(0));
    qtest_clock_set(qts, ns_of(k0 + 1000) - 1);
    g_assert_false(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 1);
    at_tick(k0 + 1000);
    g_assert_true(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 0);
    g_assert_cmphex(pit_status(0), ==, STATUS_OUT | RW_LSB_MSB | MODE(0));
    at_tick(k0 + 1001);
    g_assert_cmpuint(pit_latched(0), ==, 0xffff);
    /* OUT stays high while the counter wraps around. */
    at_tick(k0 + 1000 + 65536);
    g_assert_true(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 0);
}

/* Writing the first byte of a new count stops mode 0 with OUT low. */
static void test_mode0_rewrite(void)
{
    int64_t k0, k1;

    irq0_low();
    k0 = pit_count(0, 10);
    at_tick(k0 + 10);
    g_assert_true(irq0());
    qtest_outb(qts, PIT_CH(0), 50);
    g_assert_false(irq0());
    at_tick(k0 + 30);
    g_assert_false(irq0());
    qtest_outb(qts, PIT_CH(0), 0);
    k1 = now_tick() + 1;
    at_tick(k1 + 49);
    g_assert_false(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 1);
    at_tick(k1 + 50);
    g_assert_true(irq0());
}

/* Mode 2 with 1193: a one-CLK low pulse on IRQ 0 every ~1 ms. */
static void test_mode2_1ms(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 2);
    g_assert_true(irq0());
    k0 = pit_count(0, 1193);
    g_assert_cmpint(ns_of(1193) - ns_of(0), >=, 999000);
    g_assert_cmpint(ns_of(1193) - ns_of(0), <=, 1001000);
    for (int p = 0; p < 10; p++) {
        int64_t base = k0 + p * 1193;

        at_tick(base + 1);
        g_assert_cmpuint(pit_latched(0), ==, 1192);
        at_tick(base + 1191);
        g_assert_true(irq0());
        g_assert_cmpuint(pit_latched(0), ==, 2);
        at_tick(base + 1192);
        g_assert_false(irq0());
        g_assert_cmpuint(pit_latched(0), ==, 1);
        at_tick(base + 1193);
        g_assert_true(irq0());
        g_assert_cmpuint(pit_latched(0), ==, 1193);
    }
}

/* A new mode 2 count waits for the end of the current period. */
static void test_mode2_reload(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 2);
    k0 = pit_count(0, 100);
    at_tick(k0 + 30);
    pit_count(0, 40);
    g_assert_cmphex(pit_status(0) & STATUS_NULL, ==, STATUS_NULL);
    g_assert_cmpuint(pit_latched(0), ==, 70);
    at_tick(k0 + 99);
    g_assert_false(irq0());
    at_tick(k0 + 100);
    g_assert_true(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 40);
    g_assert_cmphex(pit_status(0) & STATUS_NULL, ==, 0);
    at_tick(k0 + 139);
    g_assert_false(irq0());
    at_tick(k0 + 140);
    g_assert_true(irq0());
}

/* Mode 3, even count: N/2 high, N/2 low, counting by two. */
static void test_mode3_even(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 3);
    k0 = pit_count(0, 1000);
    at_tick(k0);
    g_assert_cmpuint(pit_latched(0), ==, 1000);
    at_tick(k0 + 1);
    g_assert_cmpuint(pit_latched(0), ==, 998);
    for (int p = 0; p < 4; p++) {
        int64_t base = k0 + p * 1000;

        at_tick(base + 499);
        g_assert_true(irq0());
        g_assert_cmpuint(pit_latched(0), ==, 2);
        at_tick(base + 500);
        g_assert_false(irq0());
        g_assert_cmpuint(pit_latched(0), ==, 1000);
        at_tick(base + 999);
        g_assert_false(irq0());
        at_tick(base + 1000);
        g_assert_true(irq0());
    }
}

/* Mode 3, odd count: (N+1)/2 high and (N-1)/2 low (8254 datasheet). */
static void test_mode3_odd(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 3);
    k0 = pit_count(0, 5);
    at_tick(k0);
    g_assert_cmpuint(pit_latched(0), ==, 5);
    at_tick(k0 + 1);
    g_assert_cmpuint(pit_latched(0), ==, 4);
    at_tick(k0 + 2);
    g_assert_cmpuint(pit_latched(0), ==, 2);
    g_assert_true(irq0());
    at_tick(k0 + 3);
    g_assert_false(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 5);
    at_tick(k0 + 4);
    g_assert_cmpuint(pit_latched(0), ==, 2);
    g_assert_false(irq0());
    at_tick(k0 + 5);
    g_assert_true(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 5);
}

/* Mode 4: OUT low for one CLK when the count reaches zero, once. */
static void test_mode4(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 4);
    g_assert_true(irq0());
    k0 = pit_count(0, 100);
    at_tick(k0 + 99);
    g_assert_true(irq0());
    at_tick(k0 + 100);
    g_assert_false(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 0);
    at_tick(k0 + 101);
    g_assert_true(irq0());
    g_assert_cmpuint(pit_latched(0), ==, 0xffff);
    at_tick(k0 + 100 + 65536);
    g_assert_true(irq0());
}

/* Mode 1 on channel 2: the one-shot starts on a rising gate (port 0x61). */
static void test_mode1_gate(void)
{
    int64_t g;

    qtest_outb(qts, PORT_61, 0);
    pit_mode(2, RW_LSB_MSB, 1);
    pit_count(2, 50);
    g_assert_true(out2());
    g_assert_cmphex(pit_status(2) & STATUS_NULL, ==, STATUS_NULL);
    qtest_clock_step(qts, 100000);
    g_assert_true(out2());

    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    g_assert_true(out2());
    at_tick(g + 1);
    g_assert_false(out2());
    g_assert_cmpuint(pit_latched(2), ==, 50);
    g_assert_cmphex(pit_status(2) & STATUS_NULL, ==, 0);
    /* Once triggered, the gate level does not matter. */
    at_tick(g + 10);
    qtest_outb(qts, PORT_61, 0);
    at_tick(g + 50);
    g_assert_false(out2());
    g_assert_cmpuint(pit_latched(2), ==, 1);
    at_tick(g + 51);
    g_assert_true(out2());

    /* Retrigger during the pulse restarts it. */
    qtest_outb(qts, PORT_61, 0);
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 30);
    qtest_outb(qts, PORT_61, 0);
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 50);
    g_assert_false(out2());
    at_tick(g + 51);
    g_assert_true(out2());
}

/* Mode 5 on channel 2: a one-CLK strobe N edges after the trigger. */
static void test_mode5_gate(void)
{
    int64_t g;

    qtest_outb(qts, PORT_61, 0);
    pit_mode(2, RW_LSB_MSB, 5);
    pit_count(2, 20);
    qtest_clock_step(qts, 100000);
    g_assert_true(out2());
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 20);
    g_assert_true(out2());
    at_tick(g + 21);
    g_assert_false(out2());
    at_tick(g + 22);
    g_assert_true(out2());
    qtest_outb(qts, PORT_61, 0);
}

/* Mode 0 on channel 2: GATE low suspends the count. */
static void test_mode0_gate(void)
{
    int64_t k0, g;

    qtest_outb(qts, PORT_61, P61_GATE2);
    pit_mode(2, RW_LSB_MSB, 0);
    k0 = pit_count(2, 100);
    at_tick(k0 + 40);
    g_assert_cmpuint(pit_latched(2), ==, 60);
    qtest_outb(qts, PORT_61, 0);
    at_tick(k0 + 500);
    g_assert_cmpuint(pit_latched(2), ==, 60);
    g_assert_false(out2());
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 59);
    g_assert_cmpuint(pit_latched(2), ==, 1);
    g_assert_false(out2());
    at_tick(g + 60);
    g_assert_true(out2());
}

/* Modes 2 and 3 stop with OUT high on a low gate and restart on a high. */
static void test_mode3_gate(void)
{
    uint16_t v;
    int64_t g;

    qtest_outb(qts, PORT_61, 0);
    pit_mode(2, RW_LSB_MSB, 3);
    pit_count(2, 100);
    v = pit_latched(2);
    at_tick(now_tick() + 500);
    g_assert_true(out2());
    g_assert_cmpuint(pit_latched(2), ==, v);
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 50);
    g_assert_true(out2());
    at_tick(g + 51);
    g_assert_false(out2());
    /* Low gate in the low half: OUT goes high at once. */
    qtest_outb(qts, PORT_61, 0);
    g_assert_true(out2());
    qtest_outb(qts, PORT_61, P61_GATE2);
    g = now_tick();
    at_tick(g + 1);
    g_assert_cmpuint(pit_latched(2), ==, 100);
    at_tick(g + 51);
    g_assert_false(out2());
    qtest_outb(qts, PORT_61, 0);
}

/* A latched count holds until read; later latches are ignored. */
static void test_latch(void)
{
    int64_t k0;

    irq0_low();
    k0 = pit_count(0, 5000);
    at_tick(k0 + 10);
    qtest_outb(qts, PIT_CTRL, SEL(0) | RW_LATCH);
    at_tick(k0 + 20);
    qtest_outb(qts, PIT_CTRL, SEL(0) | RW_LATCH);
    g_assert_cmpuint(qtest_inb(qts, PIT_CH(0)), ==, (4990 & 0xff));
    at_tick(k0 + 30);
    g_assert_cmpuint(qtest_inb(qts, PIT_CH(0)), ==, 4990 >> 8);
    /* Released: unlatched reads follow the counter, LSB then MSB. */
    g_assert_cmpuint(qtest_inb(qts, PIT_CH(0)), ==, (4970 & 0xff));
    g_assert_cmpuint(qtest_inb(qts, PIT_CH(0)), ==, 4970 >> 8);
}

/* Read-back: status and count of several channels, status first. */
static void test_read_back(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(1, RW_LSB_MSB, 2);
    k0 = pit_count(1, 0x1234);
    pit_mode(0, RW_LSB_MSB, 3);
    g_assert_cmphex(pit_status(0), ==,
                    STATUS_OUT | STATUS_NULL | RW_LSB_MSB | MODE(3));
    at_tick(k0 + 4);
    qtest_outb(qts, PIT_CTRL, READ_BACK | RB_CH(1));
    at_tick(k0 + 100);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==,
                    STATUS_OUT | RW_LSB_MSB | MODE(2));
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==, 0x30);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==, 0x12);
    /* Status only, then count only. */
    qtest_outb(qts, PIT_CTRL, READ_BACK | RB_NO_COUNT | RB_CH(1));
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==,
                    STATUS_OUT | RW_LSB_MSB | MODE(2));
    qtest_outb(qts, PIT_CTRL, READ_BACK | RB_NO_STATUS | RB_CH(1));
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==, 0xd0);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(1)), ==, 0x11);
    /* Null count is set by a write and clears when the count loads. */
    pit_count(1, 0x100);
    g_assert_cmphex(pit_status(1) & STATUS_NULL, ==, STATUS_NULL);
    /* Mode 110 is mode 2; the status shows the bits as written. */
    qtest_outb(qts, PIT_CTRL, SEL(1) | RW_LSB_MSB | MODE(6));
    k0 = pit_count(1, 10);
    g_assert_cmphex(pit_status(1), ==,
                    STATUS_OUT | STATUS_NULL | RW_LSB_MSB | MODE(6));
    at_tick(k0);
    g_assert_cmphex(pit_status(1), ==, STATUS_OUT | RW_LSB_MSB | MODE(6));
    at_tick(k0 + 9);
    g_assert_cmphex(pit_status(1) & STATUS_OUT, ==, 0);
}

/* BCD counting and the LSB-only and MSB-only access modes. */
static void test_bcd_access(void)
{
    int64_t k0;

    irq0_low();
    qtest_outb(qts, PIT_CTRL, SEL(0) | RW_LSB_MSB | MODE(0) | CTRL_BCD);
    k0 = pit_count(0, 0x1000);
    at_tick(k0 + 1);
    g_assert_cmphex(pit_latched(0), ==, 0x0999);
    at_tick(k0 + 1000);
    g_assert_cmphex(pit_latched(0), ==, 0x0000);
    g_assert_true(irq0());
    at_tick(k0 + 1001);
    g_assert_cmphex(pit_latched(0), ==, 0x9999);

    /* BCD count 0 is 10000. */
    qtest_outb(qts, PIT_CTRL, SEL(0) | RW_LSB_MSB | MODE(0) | CTRL_BCD);
    k0 = pit_count(0, 0);
    at_tick(k0 + 9999);
    g_assert_cmphex(pit_latched(0), ==, 0x0001);
    g_assert_false(irq0());

    /* LSB only: the MSB is zero, and reads return the LSB. */
    pit_mode(0, RW_LSB, 0);
    qtest_outb(qts, PIT_CH(0), 0x80);
    k0 = now_tick() + 1;
    at_tick(k0 + 0x10);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x70);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x70);
    at_tick(k0 + 0x80);
    g_assert_true(irq0());

    /* MSB only: the LSB is zero. */
    pit_mode(0, RW_MSB, 0);
    qtest_outb(qts, PIT_CH(0), 0x02);
    k0 = now_tick() + 1;
    at_tick(k0 + 0x101);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x00);
    at_tick(k0 + 0x1ff);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x00);
    g_assert_false(irq0());
    at_tick(k0 + 0x200);
    g_assert_true(irq0());
    /* A latch in MSB-only mode is read as its MSB. */
    qtest_outb(qts, PIT_CH(0), 0x12);
    k0 = now_tick() + 1;
    at_tick(k0 + 0x100);
    qtest_outb(qts, PIT_CTRL, SEL(0) | RW_LATCH);
    at_tick(k0 + 0x300);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x11);
    g_assert_cmphex(qtest_inb(qts, PIT_CH(0)), ==, 0x0f);
}

/* Port 0x61: gate and speaker bits read back, refresh toggles. */
static void test_port61(void)
{
    int64_t t = qtest_clock_step(qts, 0);
    uint8_t a, b;

    qtest_outb(qts, PORT_61, P61_GATE2 | P61_SPEAKER);
    g_assert_cmphex(qtest_inb(qts, PORT_61) & 0x0f, ==,
                    P61_GATE2 | P61_SPEAKER);
    /* Parity and IOCHK enables read 0, as on QEMU's pcspk. */
    qtest_outb(qts, PORT_61, 0x0f);
    g_assert_cmphex(qtest_inb(qts, PORT_61) & 0x0f, ==,
                    P61_GATE2 | P61_SPEAKER);
    qtest_outb(qts, PORT_61, 0xf0);
    g_assert_cmphex(qtest_inb(qts, PORT_61) & 0xcf, ==, 0);
    /* The refresh bit flips every 15.085 us of virtual time. */
    qtest_clock_set(qts, (t / 15085 + 1) * 15085);
    a = qtest_inb(qts, PORT_61) & P61_REFRESH;
    g_assert_cmphex(qtest_inb(qts, PORT_61) & P61_REFRESH, ==, a);
    qtest_clock_step(qts, 15085);
    b = qtest_inb(qts, PORT_61) & P61_REFRESH;
    g_assert_cmphex(a ^ b, ==, P61_REFRESH);
}

/* IRQ 0 through the i8259: one edge per period, acknowledged by poll. */
static void test_pic_irr(void)
{
    int64_t k0;

    irq0_low();
    pit_mode(0, RW_LSB_MSB, 2);
    k0 = pit_count(0, 1193);
    /*
     * ICW1-4 and mask everything but IRQ 0. ICW1 resets the edge sense:
     * the line is already high, so only the next rising edge requests.
     */
    qtest_outb(qts, PIC_MASTER_CMD, 0x11);
    qtest_outb(qts, PIC_MASTER_DATA, 0x08);
    qtest_outb(qts, PIC_MASTER_DATA, 0x04);
    qtest_outb(qts, PIC_MASTER_DATA, 0x01);
    qtest_outb(qts, PIC_MASTER_DATA, 0xfe);
    qtest_outb(qts, PIC_MASTER_CMD, 0x0a);
    g_assert_cmphex(qtest_inb(qts, PIC_MASTER_CMD) & 1, ==, 0);
    for (int p = 1; p <= 5; p++) {
        at_tick(k0 + p * 1193 - 1);
        qtest_outb(qts, PIC_MASTER_CMD, 0x0c);
        g_assert_cmphex(qtest_inb(qts, PIC_MASTER_CMD), ==, 0x00);
        at_tick(k0 + p * 1193);
        qtest_outb(qts, PIC_MASTER_CMD, 0x0c);
        g_assert_cmphex(qtest_inb(qts, PIC_MASTER_CMD), ==, 0x80);
        qtest_outb(qts, PIC_MASTER_CMD, 0x20);
    }
}

/*
 * After reset nothing counts until programmed (as KVM's in-kernel PIT;
 * there is no firmware to program it): IRQ 0 stays low. system_reset
 * stops a running channel.
 */
static void test_reset_state(void)
{
    QTestState *s = qtest_init("-machine pc");

    qtest_irq_intercept_in(s, "ioapic");
    qtest_outb(s, PIT_CTRL, READ_BACK | RB_NO_COUNT | RB_CH(0));
    g_assert_cmphex(qtest_inb(s, PIT_CH(0)), ==, STATUS_NULL | RW_LSB_MSB);
    for (int i = 0; i < 10; i++) {
        qtest_clock_step(s, 10000000);
        g_assert_false(qtest_get_irq(s, 0));
    }
    /* Channel 2 waits for its gate; OUT low. */
    g_assert_cmphex(qtest_inb(s, PORT_61) & (P61_GATE2 | P61_OUT2), ==, 0);

    /* A 1 kHz rate generator, then system_reset. */
    qtest_outb(s, PIT_CTRL, SEL(0) | RW_LSB_MSB | MODE(2));
    qtest_outb(s, PIT_CH(0), 1193 & 0xff);
    qtest_outb(s, PIT_CH(0), 1193 >> 8);
    qtest_clock_step(s, 10000000);
    g_assert_true(qtest_get_irq(s, 0));
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    g_assert_false(qtest_get_irq(s, 0));
    qtest_clock_step(s, 10000000);
    g_assert_false(qtest_get_irq(s, 0));
    qtest_outb(s, PIT_CTRL, READ_BACK | RB_NO_COUNT | RB_CH(0));
    g_assert_cmphex(qtest_inb(s, PIT_CH(0)), ==, STATUS_NULL | RW_LSB_MSB);
    qtest_quit(s);
}

/* -machine pit=off: no PIT and no port 0x61. */
static void test_pit_off(void)
{
    QTestState *s = qtest_init("-machine pc,pit=off");

    for (int port = PIT_CH(0); port <= PIT_CTRL; port++) {
        g_assert_cmphex(qtest_inb(s, port), ==, 0xff);
    }
    g_assert_cmphex(qtest_inb(s, PORT_61), ==, 0xff);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qts = qtest_init("-machine pc");
    qtest_irq_intercept_in(qts, "ioapic");

    qtest_add_func("pit/mode0/count", test_mode0);
    qtest_add_func("pit/mode0/rewrite", test_mode0_rewrite);
    qtest_add_func("pit/mode0/gate", test_mode0_gate);
    qtest_add_func("pit/mode1/gate", test_mode1_gate);
    qtest_add_func("pit/mode2/1ms", test_mode2_1ms);
    qtest_add_func("pit/mode2/reload", test_mode2_reload);
    qtest_add_func("pit/mode3/even", test_mode3_even);
    qtest_add_func("pit/mode3/odd", test_mode3_odd);
    qtest_add_func("pit/mode3/gate", test_mode3_gate);
    qtest_add_func("pit/mode4/strobe", test_mode4);
    qtest_add_func("pit/mode5/gate", test_mode5_gate);
    qtest_add_func("pit/latch", test_latch);
    qtest_add_func("pit/read-back", test_read_back);
    qtest_add_func("pit/bcd-access", test_bcd_access);
    qtest_add_func("pit/port61", test_port61);
    qtest_add_func("pit/pic-irr", test_pic_irr);
    qtest_add_func("pit/reset", test_reset_state);
    qtest_add_func("pit/off", test_pit_off);
    ret = g_test_run();
    qtest_quit(qts);
    return ret;
}
