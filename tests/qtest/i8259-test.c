/*
 * qtest for the i8259 pair: reset state, the ICW1-4 sequence, OCW1-3
 * (mask, EOIs, rotation, special mask mode, IRR/ISR reads, poll), edge
 * and level triggering through the ELCR, the cascade, auto-EOI, and
 * real requests from the RTC (IRQ 8) seen by both the i8259 and the
 * I/O APIC.
 *
 * With no CPU under qtest, the poll command (OCW3 P) stands in for the
 * INTA cycle: it acknowledges the highest request and says which it was.
 * Lines are driven with set_irq_in on the chips' inputs; -machine
 * pit=off keeps the PIT's IRQ 0 out of the way.
 */
#include <string.h>

#include <glib.h>

#include "hw/rtc/mc146818rtc-regs.h"
#include "libqtest.h"

#define MASTER_CMD      0x20
#define MASTER_DATA     0x21
#define SLAVE_CMD       0xa0
#define SLAVE_DATA      0xa1
#define ELCR_MASTER     0x4d0
#define ELCR_SLAVE      0x4d1

#define OCW3_READ_IRR   0x0a
#define OCW3_READ_ISR   0x0b
#define OCW3_POLL       0x0c
#define OCW3_SET_SMM    0x68
#define OCW3_CLEAR_SMM  0x48
#define OCW2_EOI        0x20
#define OCW2_SPECIFIC   0x60
#define OCW2_ROTATE_EOI 0xa0
#define OCW2_SET_PRIO   0xc0

#define RTC_INDEX       RTC_ISA_BASE
#define RTC_DATA        (RTC_ISA_BASE + 1)

static QTestState *qts;
static char *master_path, *slave_path;

/* Find the two isa-i8259 devices and tell them apart by "master". */
static void find_pics(QTestState *s)
{
    JsonNode *reply = qtest_qmp(s, "{\"execute\": \"qom-list\", "
                                "\"arguments\": {\"path\": "
                                "\"/machine/unattached\"}}");
    JsonArray *list = json_object_get_array_member(
        json_node_get_object(reply), "return");

    g_clear_pointer(&master_path, g_free);
    g_clear_pointer(&slave_path, g_free);
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *o = json_array_get_object_element(list, i);
        char *path;
        JsonNode *r;

        if (strcmp(json_object_get_string_member(o, "type"),
                   "child<isa-i8259>")) {
            continue;
        }
        path = g_strdup_printf("/machine/unattached/%s",
                               json_object_get_string_member(o, "name"));
        r = qtest_qmp(s, "{\"execute\": \"qom-get\", \"arguments\": "
                      "{\"path\": \"%s\", \"property\": \"master\"}}", path);
        if (json_object_get_boolean_member(json_node_get_object(r),
                                           "return")) {
            master_path = path;
        } else {
            slave_path = path;
        }
        json_node_unref(r);
    }
    json_node_unref(reply);
    g_assert_nonnull(master_path);
    g_assert_nonnull(slave_path);
}

/* ISA IRQ n straight into the chip's input. */
static void set_line(int irq, int level)
{
    qtest_set_irq_in(qts, irq < 8 ? master_path : slave_path, NULL, irq % 8,
                     level);
}

static void pulse_line(int irq)
{
    set_line(irq, 1);
    set_line(irq, 0);
}

static uint8_t read_irr(uint16_t cmd)
{
    qtest_outb(qts, cmd, OCW3_READ_IRR);
    return qtest_inb(qts, cmd);
}

static uint8_t read_isr(uint16_t cmd)
{
    uint8_t v;

    qtest_outb(qts, cmd, OCW3_READ_ISR);
    v = qtest_inb(qts, cmd);
    qtest_outb(qts, cmd, OCW3_READ_IRR);
    return v;
}

static uint8_t poll(uint16_t cmd)
{
    qtest_outb(qts, cmd, OCW3_POLL);
    return qtest_inb(qts, cmd);
}

/* The PC BIOS's programming: vectors 0x08 and 0x70, cascade on IR2. */
static void init_pair(uint8_t icw4)
{
    qtest_outb(qts, MASTER_CMD, 0x11);
    qtest_outb(qts, MASTER_DATA, 0x08);
    qtest_outb(qts, MASTER_DATA, 0x04);
    qtest_outb(qts, MASTER_DATA, icw4);
    qtest_outb(qts, SLAVE_CMD, 0x11);
    qtest_outb(qts, SLAVE_DATA, 0x70);
    qtest_outb(qts, SLAVE_DATA, 0x02);
    qtest_outb(qts, SLAVE_DATA, icw4);
}

/* Every line low, every chip initialized, everything edge-triggered. */
static void setup(void)
{
    for (int irq = 0; irq < 16; irq++) {
        if (irq != 2) {
            set_line(irq, 0);
        }
    }
    qtest_outb(qts, ELCR_MASTER, 0);
    qtest_outb(qts, ELCR_SLAVE, 0);
    init_pair(0x01);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    g_assert_cmphex(read_irr(SLAVE_CMD), ==, 0);
}

static void test_reset_state(void)
{
    QTestState *s = qtest_init("-machine pc,pit=off");

    for (int i = 0; i < 2; i++) {
        uint16_t cmd = i ? SLAVE_CMD : MASTER_CMD;

        qtest_outb(s, cmd, OCW3_READ_ISR);
        g_assert_cmphex(qtest_inb(s, cmd), ==, 0);
        qtest_outb(s, cmd, OCW3_READ_IRR);
        g_assert_cmphex(qtest_inb(s, cmd), ==, 0);
        g_assert_cmphex(qtest_inb(s, cmd + 1), ==, 0);
    }
    g_assert_cmphex(qtest_inb(s, ELCR_MASTER), ==, 0);
    g_assert_cmphex(qtest_inb(s, ELCR_SLAVE), ==, 0);
    /* Only the PIIX's writable ELCR bits stick (IRQ 0-2, 8 and 13 not). */
    qtest_outb(s, ELCR_MASTER, 0xff);
    qtest_outb(s, ELCR_SLAVE, 0xff);
    g_assert_cmphex(qtest_inb(s, ELCR_MASTER), ==, 0xf8);
    g_assert_cmphex(qtest_inb(s, ELCR_SLAVE), ==, 0xde);
    qtest_outb(s, MASTER_DATA, 0x5a);
    g_assert_cmphex(qtest_inb(s, MASTER_DATA), ==, 0x5a);

    /* system_reset brings it all back. */
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    g_assert_cmphex(qtest_inb(s, ELCR_MASTER), ==, 0);
    g_assert_cmphex(qtest_inb(s, ELCR_SLAVE), ==, 0);
    g_assert_cmphex(qtest_inb(s, MASTER_DATA), ==, 0);
    qtest_quit(s);
}

static void test_init_sequence(void)
{
    setup();
    qtest_outb(qts, MASTER_DATA, 0xff);
    g_assert_cmphex(qtest_inb(qts, MASTER_DATA), ==, 0xff);
    /* ICW1 clears the mask; ICW2-4 go to their own registers. */
    qtest_outb(qts, MASTER_CMD, 0x11);
    g_assert_cmphex(qtest_inb(qts, MASTER_DATA), ==, 0);
    qtest_outb(qts, MASTER_DATA, 0x08);
    qtest_outb(qts, MASTER_DATA, 0x04);
    qtest_outb(qts, MASTER_DATA, 0x01);
    g_assert_cmphex(qtest_inb(qts, MASTER_DATA), ==, 0);
    qtest_outb(qts, MASTER_DATA, 0xfb);
    g_assert_cmphex(qtest_inb(qts, MASTER_DATA), ==, 0xfb);

    /* Single mode without ICW4: ICW2 alone, then OCW1. */
    qtest_outb(qts, MASTER_CMD, 0x12);
    qtest_outb(qts, MASTER_DATA, 0x20);
    qtest_outb(qts, MASTER_DATA, 0x5a);
    g_assert_cmphex(qtest_inb(qts, MASTER_DATA), ==, 0x5a);

    /* ICW1 forgets what was in service and resets the edge sense. */
    init_pair(0x01);
    set_line(3, 1);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    set_line(5, 1);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0x08);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x20);
    init_pair(0x01);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    set_line(5, 1);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    set_line(5, 0);
    set_line(5, 1);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x20);
    set_line(3, 0);
    set_line(5, 0);
}

static void test_edge(void)
{
    setup();
    set_line(3, 1);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    /* An edge request stays latched when the line falls. */
    set_line(3, 0);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0x08);
    /* In service: a new edge is latched but not delivered. */
    pulse_line(3);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    /* A line held high requests once. */
    set_line(3, 1);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    set_line(3, 0);
    /* Nothing pending: the poll byte has I = 0. */
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
}

static void test_level(void)
{
    setup();
    qtest_outb(qts, ELCR_MASTER, 0x08);
    g_assert_cmphex(qtest_inb(qts, ELCR_MASTER), ==, 0x08);
    set_line(3, 1);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    /* A level request goes away with the line. */
    set_line(3, 0);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    set_line(3, 1);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    /* Acknowledged, the request stays while the line is high... */
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    qtest_outb(qts, MASTER_CMD, OCW2_SPECIFIC | 3);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
    /* ... and is delivered again after the EOI. */
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    qtest_outb(qts, MASTER_CMD, OCW2_SPECIFIC | 3);
    set_line(3, 0);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);

    /* A line made level-triggered while high requests at once. */
    set_line(4, 1);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x84);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    qtest_outb(qts, ELCR_MASTER, 0x18);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x10);
    set_line(4, 0);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);

    /* ICW1.LTIM makes every line level-triggered. */
    qtest_outb(qts, ELCR_MASTER, 0);
    qtest_outb(qts, MASTER_CMD, 0x19);
    qtest_outb(qts, MASTER_DATA, 0x08);
    qtest_outb(qts, MASTER_DATA, 0x04);
    qtest_outb(qts, MASTER_DATA, 0x01);
    set_line(6, 1);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x40);
    set_line(6, 0);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    g_assert_cmphex(qtest_inb(qts, ELCR_MASTER), ==, 0);
}

static void test_mask(void)
{
    setup();
    qtest_outb(qts, MASTER_DATA, 0x08);
    pulse_line(3);
    /* Masked: requested (IRR) but not delivered. */
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x08);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    pulse_line(5);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x85);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    qtest_outb(qts, MASTER_DATA, 0x00);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
}

static void test_priority(void)
{
    setup();
    pulse_line(5);
    pulse_line(3);
    /* Fully nested: IR3 before IR5; IR5 waits while IR3 is in service. */
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    /* A higher level still gets through. */
    pulse_line(1);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x81);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0x0a);
    /* Non-specific EOI ends the highest level in service (IR1). */
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0x08);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x85);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);

    /* Set priority: IR4 lowest, so IR5 is now the highest. */
    qtest_outb(qts, MASTER_CMD, OCW2_SET_PRIO | 4);
    pulse_line(3);
    pulse_line(5);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x85);
    /* Rotate on EOI: IR5 becomes the lowest, IR6 the highest. */
    qtest_outb(qts, MASTER_CMD, OCW2_ROTATE_EOI);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
    pulse_line(5);
    pulse_line(7);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x87);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x85);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);
    qtest_outb(qts, MASTER_CMD, OCW2_SET_PRIO | 7);
}

static void test_special_mask(void)
{
    setup();
    pulse_line(3);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x83);
    pulse_line(5);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    /* The handler masks its own level and enables lower ones. */
    qtest_outb(qts, MASTER_DATA, 0x08);
    qtest_outb(qts, MASTER_CMD, OCW3_SET_SMM);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x85);
    qtest_outb(qts, MASTER_CMD, OCW2_SPECIFIC | 5);
    qtest_outb(qts, MASTER_CMD, OCW3_CLEAR_SMM);
    qtest_outb(qts, MASTER_DATA, 0x00);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0x08);
    qtest_outb(qts, MASTER_CMD, OCW2_SPECIFIC | 3);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
}

static void test_cascade(void)
{
    setup();
    pulse_line(10);
    g_assert_cmphex(read_irr(SLAVE_CMD), ==, 0x04);
    /* The slave's INT is the master's IR2. */
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x04);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x82);
    g_assert_cmphex(poll(SLAVE_CMD), ==, 0x82);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0);
    g_assert_cmphex(read_isr(SLAVE_CMD), ==, 0x04);
    qtest_outb(qts, SLAVE_CMD, OCW2_EOI);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);

    /* Masking the cascade line holds every slave request. */
    qtest_outb(qts, MASTER_DATA, 0x04);
    pulse_line(12);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x00);
    qtest_outb(qts, MASTER_DATA, 0x00);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x82);
    g_assert_cmphex(poll(SLAVE_CMD), ==, 0x84);
    qtest_outb(qts, SLAVE_CMD, OCW2_EOI);
    qtest_outb(qts, MASTER_CMD, OCW2_EOI);

    /* A request masked on the slave leaves the master's IR2 idle. */
    qtest_outb(qts, SLAVE_DATA, 0x08);
    pulse_line(11);
    g_assert_cmphex(read_irr(SLAVE_CMD), ==, 0x08);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x00);
    qtest_outb(qts, SLAVE_DATA, 0x00);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x04);
    g_assert_cmphex(poll(SLAVE_CMD), ==, 0x83);
    qtest_outb(qts, SLAVE_CMD, OCW2_EOI);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x00);
}

static void test_auto_eoi(void)
{
    setup();
    init_pair(0x03);
    pulse_line(4);
    pulse_line(6);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x84);
    /* Nothing stays in service, so the lower level comes next. */
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x86);
    g_assert_cmphex(read_isr(MASTER_CMD), ==, 0);
}

/* The RTC's periodic interrupt: IRQ 8 at both controllers. */
static void test_rtc(void)
{
    QTestState *saved = qts;
    QTestState *s = qtest_init("-machine pc,pit=off -rtc clock=vm");

    qts = s;
    find_pics(s);
    qtest_irq_intercept_in(s, "ioapic");
    setup();
    qtest_outb(s, RTC_INDEX, RTC_REG_A);
    qtest_outb(s, RTC_DATA, 0x26);              /* 1024 Hz */
    qtest_outb(s, RTC_INDEX, RTC_REG_B);
    qtest_outb(s, RTC_DATA, REG_B_24H | REG_B_PIE);
    qtest_clock_step(s, 1000000);
    g_assert_true(qtest_get_irq(s, 8));
    g_assert_cmphex(read_irr(SLAVE_CMD), ==, 0x01);
    g_assert_cmphex(read_irr(MASTER_CMD), ==, 0x04);
    /* Reading C lowers the line; the edge stays latched in IRR. */
    qtest_outb(s, RTC_INDEX, RTC_REG_C);
    g_assert_cmphex(qtest_inb(s, RTC_DATA) & (REG_C_IRQF | REG_C_PF), ==,
                    REG_C_IRQF | REG_C_PF);
    g_assert_false(qtest_get_irq(s, 8));
    g_assert_cmphex(read_irr(SLAVE_CMD), ==, 0x01);
    g_assert_cmphex(poll(MASTER_CMD), ==, 0x82);
    g_assert_cmphex(poll(SLAVE_CMD), ==, 0x80);
    qtest_outb(s, SLAVE_CMD, OCW2_EOI);
    qtest_outb(s, MASTER_CMD, OCW2_EOI);
    /* Each tick is a new edge. */
    for (int i = 0; i < 4; i++) {
        qtest_clock_step(s, 1000000);
        g_assert_cmphex(poll(MASTER_CMD), ==, 0x82);
        g_assert_cmphex(poll(SLAVE_CMD), ==, 0x80);
        qtest_outb(s, SLAVE_CMD, OCW2_EOI);
        qtest_outb(s, MASTER_CMD, OCW2_EOI);
        qtest_outb(s, RTC_INDEX, RTC_REG_C);
        qtest_inb(s, RTC_DATA);
    }
    qts = saved;
    find_pics(qts);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    qts = qtest_init("-machine pc,pit=off");
    find_pics(qts);

    qtest_add_func("i8259/reset", test_reset_state);
    qtest_add_func("i8259/init", test_init_sequence);
    qtest_add_func("i8259/edge", test_edge);
    qtest_add_func("i8259/level", test_level);
    qtest_add_func("i8259/mask", test_mask);
    qtest_add_func("i8259/priority", test_priority);
    qtest_add_func("i8259/special-mask", test_special_mask);
    qtest_add_func("i8259/cascade", test_cascade);
    qtest_add_func("i8259/auto-eoi", test_auto_eoi);
    qtest_add_func("i8259/rtc", test_rtc);
    ret = g_test_run();
    qtest_quit(qts);
    g_free(master_path);
    g_free(slave_path);
    return ret;
}
