/*
 * pc-testdev, the device kvm-unit-tests uses: the scratch port at 0xe0
 * (and its byte-only twin at 0xe8), the page-flush port at 0xe4, the
 * IRQ lines at 0x2000 and the MMIO scratch area at 0xff000000.
 */
#include "libqtest.h"

#define MACHINE         "-machine pc -device pc-testdev"
#define PORT_IOPORT     0xe0
#define PORT_FLUSH      0xe4
#define PORT_BYTE       0xe8
#define PORT_IRQ        0x2000
#define IOMEM           0xff000000ull
#define RAM_ADDR        0x100000ull

static void test_ioport(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outl(s, PORT_IOPORT, 0x12345678);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0x12345678);
    g_assert_cmphex(qtest_inb(s, PORT_IOPORT), ==, 0x78);
    g_assert_cmphex(qtest_inb(s, PORT_IOPORT + 1), ==, 0x56);
    g_assert_cmphex(qtest_inb(s, PORT_IOPORT + 2), ==, 0x34);
    g_assert_cmphex(qtest_inb(s, PORT_IOPORT + 3), ==, 0x12);
    g_assert_cmphex(qtest_inw(s, PORT_IOPORT), ==, 0x5678);
    g_assert_cmphex(qtest_inw(s, PORT_IOPORT + 2), ==, 0x1234);
    /* Unaligned: the middle two bytes. */
    g_assert_cmphex(qtest_inw(s, PORT_IOPORT + 1), ==, 0x3456);

    qtest_outb(s, PORT_IOPORT + 2, 0xaa);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0x12aa5678);
    qtest_outw(s, PORT_IOPORT, 0xbeef);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0x12aabeef);
    qtest_outw(s, PORT_IOPORT + 1, 0xcafe);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0x12cafeef);
    qtest_quit(s);
}

/* 0xe8 is the same register, reached one byte at a time. */
static void test_ioport_byte(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_outl(s, PORT_BYTE, 0xdeadbeef);
    g_assert_cmphex(qtest_inl(s, PORT_BYTE), ==, 0xdeadbeef);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0xdeadbeef);
    g_assert_cmphex(qtest_inw(s, PORT_BYTE + 2), ==, 0xdead);
    g_assert_cmphex(qtest_inb(s, PORT_BYTE + 1), ==, 0xbe);
    qtest_outw(s, PORT_BYTE + 1, 0x1122);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0xde1122ef);
    qtest_outl(s, PORT_IOPORT, 0x01020304);
    g_assert_cmphex(qtest_inl(s, PORT_BYTE), ==, 0x01020304);
    qtest_quit(s);
}

/* A flush keeps the page's contents; reads give the last address. */
static void test_flush(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_writel(s, RAM_ADDR + 0x10, 0xfeedface);
    qtest_outl(s, PORT_FLUSH, RAM_ADDR + 0x10);
    g_assert_cmphex(qtest_readl(s, RAM_ADDR + 0x10), ==, 0xfeedface);
    g_assert_cmphex(qtest_inl(s, PORT_FLUSH), ==, RAM_ADDR + 0x10);
    qtest_writel(s, RAM_ADDR + 0x14, 0x01234567);
    g_assert_cmphex(qtest_readl(s, RAM_ADDR + 0x14), ==, 0x01234567);

    /* Not RAM: ignored (and logged), nothing breaks. */
    qtest_outl(s, PORT_FLUSH, 0x40000000);
    g_assert_cmphex(qtest_inl(s, PORT_FLUSH), ==, 0x40000000);
    g_assert_cmphex(qtest_readl(s, RAM_ADDR + 0x10), ==, 0xfeedface);
    qtest_quit(s);
}

static void test_irq(void)
{
    QTestState *s = qtest_init(MACHINE);
    static const int lines[] = { 3, 5, 10, 14, 15 };

    qtest_irq_intercept_in(s, "ioapic");
    for (size_t i = 0; i < G_N_ELEMENTS(lines); i++) {
        int n = lines[i];

        g_assert_false(qtest_get_irq(s, n));
        qtest_outb(s, PORT_IRQ + n, 1);
        g_assert_true(qtest_get_irq(s, n));
        /* Any non-zero value raises. */
        qtest_outb(s, PORT_IRQ + n, 0x80);
        g_assert_true(qtest_get_irq(s, n));
        qtest_outb(s, PORT_IRQ + n, 0);
        g_assert_false(qtest_get_irq(s, n));
    }
    /* Only byte writes count. */
    qtest_outw(s, PORT_IRQ + 6, 0x0101);
    g_assert_false(qtest_get_irq(s, 6));
    g_assert_false(qtest_get_irq(s, 7));
    /* Lines past the 16 ISA ones are ignored. */
    qtest_outb(s, PORT_IRQ + 20, 1);
    g_assert_cmphex(qtest_inb(s, PORT_IRQ + 20), ==, 0);
    qtest_quit(s);
}

static void test_iomem(void)
{
    QTestState *s = qtest_init(MACHINE);

    qtest_writel(s, IOMEM, 0x89abcdef);
    g_assert_cmphex(qtest_readl(s, IOMEM), ==, 0x89abcdef);
    g_assert_cmphex(qtest_readb(s, IOMEM + 1), ==, 0xcd);
    g_assert_cmphex(qtest_readw(s, IOMEM + 2), ==, 0x89ab);
    qtest_writeq(s, IOMEM + 0x100, 0x0011223344556677ull);
    g_assert_cmphex(qtest_readq(s, IOMEM + 0x100), ==,
                    0x0011223344556677ull);
    g_assert_cmphex(qtest_readl(s, IOMEM + 0x104), ==, 0x00112233);
    /* Last byte of the 64 KiB area, and the first byte past it. */
    qtest_writeb(s, IOMEM + 0xffff, 0x5a);
    g_assert_cmphex(qtest_readb(s, IOMEM + 0xffff), ==, 0x5a);
    g_assert_cmphex(qtest_readb(s, IOMEM + 0x10000), ==, 0xff);
    qtest_quit(s);
}

/* Without -device none of it is there. */
static void test_absent(void)
{
    QTestState *s = qtest_init("-machine pc");

    qtest_outl(s, PORT_IOPORT, 0x12345678);
    g_assert_cmphex(qtest_inl(s, PORT_IOPORT), ==, 0xffffffff);
    g_assert_cmphex(qtest_readl(s, IOMEM), ==, 0xffffffff);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("/pc-testdev/ioport", test_ioport);
    qtest_add_func("/pc-testdev/ioport-byte", test_ioport_byte);
    qtest_add_func("/pc-testdev/flush", test_flush);
    qtest_add_func("/pc-testdev/irq", test_irq);
    qtest_add_func("/pc-testdev/iomem", test_iomem);
    qtest_add_func("/pc-testdev/absent", test_absent);
    return g_test_run();
}
