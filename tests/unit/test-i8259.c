/*
 * The i8259 pair's CPU side, which qtest cannot reach (no CPU): the INTA
 * cycle i8259_inta() with its vectors, the cascade and spurious IRQ 7,
 * and the master's INT output (its GPIO pin) that the local APICs see as
 * LINT0. Two pairs live side by side: the chips keep no global state.
 */
#include <glib.h>

#include "hw/intc/i8259.h"
#include "hw/qdev.h"
#include "system/memory.h"

static DeviceState *master, *slave;
static int int_level = -1;
static int int_changes;

static void int_sink(void *opaque, int n, int level)
{
    int_level = level;
    int_changes++;
}

static void outb(uint16_t port, uint8_t val)
{
    address_space_write_sized(&address_space_io, port, val, 1);
}

static uint8_t inb(uint16_t port)
{
    return address_space_read_sized(&address_space_io, port, 1);
}

static DeviceState *make_pic(const char *iobase, const char *elcr,
                             const char *mask, const char *is_master)
{
    Error *err = NULL;
    DeviceState *dev = qdev_new("isa-i8259", &err);

    g_assert_nonnull(dev);
    g_assert_true(qdev_prop_set(dev, "iobase", iobase, &err));
    g_assert_true(qdev_prop_set(dev, "elcr_addr", elcr, &err));
    g_assert_true(qdev_prop_set(dev, "elcr_mask", mask, &err));
    g_assert_true(qdev_prop_set(dev, "master", is_master, &err));
    g_assert_true(qdev_realize(dev, &err));
    g_assert_null(err);
    return dev;
}

/* The PC's pair, programmed as a BIOS does: vectors 0x08 and 0x70. */
static void setup(uint8_t icw4)
{
    qemu_irq sink = qemu_allocate_irq(int_sink, NULL, 0);

    master = make_pic("0x20", "0x4d0", "0xf8", "true");
    slave = make_pic("0xa0", "0x4d1", "0xde", "false");
    i8259_cascade(master, slave);
    qdev_connect_gpio_out_named(master, NULL, 0, sink);
    int_level = -1;
    int_changes = 0;
    outb(0x20, 0x11);
    outb(0x21, 0x08);
    outb(0x21, 0x04);
    outb(0x21, icw4);
    outb(0xa0, 0x11);
    outb(0xa1, 0x70);
    outb(0xa1, 0x02);
    outb(0xa1, icw4);
    g_test_queue_destroy((GDestroyNotify)qemu_free_irq, sink);
}

static void teardown(void)
{
    qdev_destroy_all();
    master = slave = NULL;
}

/* The master's INT as the APICs' LINT0 sees it. */
static int pic_output(void)
{
    return int_level > 0;
}

static int pic_inta(void)
{
    return i8259_inta(master);
}

static void set_line(int irq, int level)
{
    qemu_set_irq(qdev_get_gpio_in(irq < 8 ? master : slave, irq % 8),
                 level);
}

static uint8_t read_isr(uint16_t cmd)
{
    uint8_t v;

    outb(cmd, 0x0b);
    v = inb(cmd);
    outb(cmd, 0x0a);
    return v;
}

static void test_vectors(void)
{
    setup(0x01);
    g_assert_cmpint(pic_output(), ==, 0);
    set_line(1, 1);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(int_level, ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x09);
    /* In service: INT drops until the EOI. */
    g_assert_cmpint(pic_output(), ==, 0);
    g_assert_cmpint(int_level, ==, 0);
    g_assert_cmphex(read_isr(0x20), ==, 0x02);
    set_line(1, 0);
    set_line(4, 1);
    g_assert_cmpint(pic_output(), ==, 0);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x0c);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_output(), ==, 0);
    /* A new vector base takes effect with the next ICW2. */
    outb(0x20, 0x11);
    outb(0x21, 0x20);
    outb(0x21, 0x04);
    outb(0x21, 0x01);
    set_line(4, 0);
    set_line(4, 1);
    g_assert_cmpint(pic_inta(), ==, 0x24);
    teardown();
}

static void test_cascade(void)
{
    setup(0x01);
    set_line(12, 1);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x74);
    g_assert_cmphex(read_isr(0x20), ==, 0x04);
    g_assert_cmphex(read_isr(0xa0), ==, 0x10);
    g_assert_cmpint(pic_output(), ==, 0);
    /* A second slave request waits for both EOIs. */
    set_line(9, 1);
    g_assert_cmpint(pic_output(), ==, 0);
    outb(0xa0, 0x20);
    g_assert_cmpint(pic_output(), ==, 0);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x71);
    outb(0xa0, 0x20);
    outb(0x20, 0x20);
    /* Master requests above and below the cascade. */
    set_line(13, 1);
    set_line(0, 1);
    set_line(5, 1);
    g_assert_cmpint(pic_inta(), ==, 0x08);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_inta(), ==, 0x75);
    outb(0xa0, 0x20);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_inta(), ==, 0x0d);
    outb(0x20, 0x20);
    g_assert_cmpint(pic_output(), ==, 0);
    teardown();
}

static void test_spurious(void)
{
    setup(0x01);
    /* A level request that goes away before INTA: spurious IRQ 7. */
    outb(0x4d0, 0x08);
    set_line(3, 1);
    g_assert_cmpint(pic_output(), ==, 1);
    set_line(3, 0);
    g_assert_cmpint(pic_output(), ==, 0);
    g_assert_cmpint(pic_inta(), ==, 0x0f);
    g_assert_cmphex(read_isr(0x20), ==, 0);
    /* A masked request is not delivered either. */
    set_line(5, 1);
    outb(0x21, 0x20);
    g_assert_cmpint(pic_output(), ==, 0);
    g_assert_cmpint(pic_inta(), ==, 0x0f);
    outb(0x21, 0x00);
    g_assert_cmpint(pic_inta(), ==, 0x0d);
    teardown();
}

static void test_auto_eoi(void)
{
    setup(0x03);
    set_line(10, 1);
    set_line(6, 1);
    g_assert_cmpint(pic_inta(), ==, 0x72);
    g_assert_cmphex(read_isr(0x20), ==, 0);
    g_assert_cmphex(read_isr(0xa0), ==, 0);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x0e);
    g_assert_cmpint(pic_output(), ==, 0);
    teardown();
}

/* INT is a level: one change per transition, none for repeats. */
static void test_int_pin(void)
{
    setup(0x01);
    set_line(3, 1);
    set_line(4, 1);
    g_assert_cmpint(int_changes, ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x0b);
    g_assert_cmpint(int_changes, ==, 2);
    outb(0x20, 0x20);
    g_assert_cmpint(int_changes, ==, 3);
    g_assert_cmpint(int_level, ==, 1);
    teardown();
}

/*
 * A second pair at other ports (two machines' worth of chips in one
 * process): each answers for its own lines only.
 */
static void test_two_pairs(void)
{
    DeviceState *m2, *s2;

    setup(0x01);
    m2 = make_pic("0x120", "0x4d2", "0xf8", "true");
    s2 = make_pic("0x1a0", "0x4d3", "0xde", "false");
    i8259_cascade(m2, s2);
    outb(0x120, 0x11);
    outb(0x121, 0x20);
    outb(0x121, 0x04);
    outb(0x121, 0x01);
    outb(0x1a0, 0x11);
    outb(0x1a1, 0x28);
    outb(0x1a1, 0x02);
    outb(0x1a1, 0x01);
    qemu_set_irq(qdev_get_gpio_in(s2, 1), 1);
    g_assert_cmpint(pic_output(), ==, 0);
    g_assert_cmpint(i8259_inta(m2), ==, 0x29);
    /* The first pair saw nothing: its INTA is spurious IRQ 7. */
    g_assert_cmpint(pic_inta(), ==, 0x0f);
    set_line(5, 1);
    g_assert_cmpint(pic_output(), ==, 1);
    g_assert_cmpint(pic_inta(), ==, 0x0d);
    g_assert_cmphex(read_isr(0x120), ==, 0x04);
    teardown();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/i8259/inta/vectors", test_vectors);
    g_test_add_func("/i8259/inta/cascade", test_cascade);
    g_test_add_func("/i8259/inta/spurious", test_spurious);
    g_test_add_func("/i8259/inta/auto-eoi", test_auto_eoi);
    g_test_add_func("/i8259/inta/int-pin", test_int_pin);
    g_test_add_func("/i8259/instances/two-pairs", test_two_pairs);
    return g_test_run();
}
