/*
 * qtest for QEMU's edu device (hw/misc/edu.c) and through it the PCI
 * interrupt paths: INTx per slot through the PIIX3's PIRQ routing to
 * the ISA IRQs (seen at the I/O APIC's inputs with irq_intercept_in),
 * INTx disable and sharing, MSI into CPU 0's local APIC and MSI as a
 * plain memory write (what libqos does), DMA. Runs against QEMU 7.2 too
 * (QTEST_ACCEL=tcg); the parts that need a qtest accelerator (virtual
 * time, the APIC page without a CPU) are skipped there.
 */
#include <string.h>

#include "libqpci.h"
#include "libqtest.h"

#define EDU_VENDOR      0x1234
#define EDU_DEVICE      0x11e8
#define EDU_ID          0x00
#define EDU_LIVENESS    0x04
#define EDU_FACT        0x08
#define EDU_STATUS      0x20
#define EDU_IRQ_STATUS  0x24
#define EDU_IRQ_RAISE   0x60
#define EDU_IRQ_ACK     0x64
#define EDU_DMA_SRC     0x80
#define EDU_DMA_DST     0x88
#define EDU_DMA_CNT     0x90
#define EDU_DMA_CMD     0x98
#define EDU_DMA_BUF     0x40000

#define PIIX3           QPCI_DEVFN(1, 0)
#define PIRQRC          0x60
#define MSI_CAP         0x40

#define APIC_BASE       0xfee00000ull
#define APIC_SVR        0x0f0
#define APIC_IRR        0x200

/* The ISA IRQs PIRQ A-D are steered to here. */
static const int pirq_irq[4] = { 5, 10, 11, 7 };

static bool against_qemu(void)
{
    return g_getenv("QTEST_ACCEL") != NULL;
}

static QTestState *start(const char *args)
{
    qpci_alloc_reset();
    return qtest_init(args);
}

static uint32_t edu_readl(QTestState *s, const QPCIBar *b, uint64_t off)
{
    return qpci_bar_read(s, b, off, 4);
}

static void edu_writel(QTestState *s, const QPCIBar *b, uint64_t off,
                       uint32_t v)
{
    qpci_bar_write(s, b, off, v, 4);
}

/* n! through the device; QEMU computes in a thread: wait for it. */
static uint32_t edu_factorial(QTestState *s, const QPCIBar *b, uint32_t n)
{
    edu_writel(s, b, EDU_FACT, n);
    for (int i = 0; edu_readl(s, b, EDU_STATUS) & 1; i++) {
        g_assert_cmpint(i, <, 100000);
        g_usleep(10);
    }
    return edu_readl(s, b, EDU_FACT);
}

static void test_registers(void)
{
    QTestState *s = start("-nodefaults -device edu");
    int d = qpci_find_device(s, EDU_VENDOR, EDU_DEVICE);
    QPCIBar bar;

    g_assert_cmpint(d, ==, QPCI_DEVFN(2, 0));
    g_assert_cmphex(qpci_config_readl(s, d, 0x08), ==, 0x00ff0010);
    g_assert_cmphex(qpci_config_readb(s, d, QPCI_INTERRUPT_PIN), ==, 1);
    /* Status: a capability list, the MSI capability at 0x40. */
    g_assert_cmphex(qpci_config_readw(s, d, QPCI_STATUS), ==, 0x0010);
    g_assert_cmphex(qpci_config_readb(s, d, 0x34), ==, MSI_CAP);
    g_assert_cmphex(qpci_config_readl(s, d, MSI_CAP), ==, 0x00800005);
    bar = qpci_bar_probe(s, d, 0);
    g_assert_cmphex(bar.size, ==, 1 << 20);
    bar = qpci_map_bar(s, d, 0);

    g_assert_cmphex(edu_readl(s, &bar, EDU_ID), ==, 0x010000ed);
    g_assert_cmphex(edu_readl(s, &bar, EDU_LIVENESS), ==, 0);
    edu_writel(s, &bar, EDU_LIVENESS, 0x12345678);
    g_assert_cmphex(edu_readl(s, &bar, EDU_LIVENESS), ==, 0xedcba987);
    g_assert_cmphex(edu_factorial(s, &bar, 5), ==, 120);
    g_assert_cmphex(edu_factorial(s, &bar, 12), ==, 479001600);
    g_assert_cmphex(edu_readl(s, &bar, EDU_STATUS), ==, 0);
    g_assert_cmphex(edu_readl(s, &bar, 0x100), ==, 0xffffffff);
    g_assert_cmphex(qpci_bar_read(s, &bar, EDU_ID, 8), ==, UINT64_MAX);
    qtest_quit(s);
}

static void route_pirqs(QTestState *s)
{
    for (int i = 0; i < 4; i++) {
        qpci_config_writeb(s, PIIX3, PIRQRC + i, pirq_irq[i]);
    }
}

static void assert_irqs(QTestState *s, int high)
{
    for (int i = 0; i < 4; i++) {
        g_assert_cmpint(qtest_get_irq(s, pirq_irq[i]), ==,
                        pirq_irq[i] == high);
    }
}

/*
 * INTA# of slot S reaches PIRQ (S - 1) mod 4 (QEMU's pc), so ISA IRQ
 * pirq_irq[(S + 3) % 4].
 */
static void test_intx_routing(void)
{
    QTestState *s = start("-nodefaults -device edu,addr=3 -device edu,addr=4 "
                          "-device edu,addr=5 -device edu,addr=6");

    qtest_irq_intercept_in(s, "ioapic");
    for (int slot = 3; slot <= 6; slot++) {
        int d = QPCI_DEVFN(slot, 0);
        QPCIBar bar = qpci_map_bar(s, d, 0);

        /* PIRQRC at reset (disabled): the line goes nowhere. */
        for (int i = 0; i < 4; i++) {
            qpci_config_writeb(s, PIIX3, PIRQRC + i, 0x80);
        }
        edu_writel(s, &bar, EDU_IRQ_RAISE, 1);
        assert_irqs(s, -1);
        g_assert_cmphex(qpci_config_readw(s, d, QPCI_STATUS) & 0x08, ==,
                        0x08);
        /* Routing it now raises the ISA IRQ. */
        route_pirqs(s);
        assert_irqs(s, pirq_irq[(slot + 3) % 4]);
        g_assert_cmphex(edu_readl(s, &bar, EDU_IRQ_STATUS), ==, 1);
        edu_writel(s, &bar, EDU_IRQ_ACK, 1);
        assert_irqs(s, -1);
        g_assert_cmphex(qpci_config_readw(s, d, QPCI_STATUS) & 0x08, ==, 0);
    }
    qtest_quit(s);
}

static void test_intx_disable_and_sharing(void)
{
    /* Slots 3 and 7 share PIRQ C. */
    QTestState *s = start("-nodefaults -device edu,addr=3 -device edu,addr=7");
    QPCIBar a = qpci_map_bar(s, QPCI_DEVFN(3, 0), 0);
    QPCIBar b = qpci_map_bar(s, QPCI_DEVFN(7, 0), 0);
    uint16_t cmd = qpci_config_readw(s, QPCI_DEVFN(3, 0), QPCI_COMMAND);

    qtest_irq_intercept_in(s, "ioapic");
    route_pirqs(s);
    edu_writel(s, &a, EDU_IRQ_RAISE, 1);
    edu_writel(s, &b, EDU_IRQ_RAISE, 2);
    assert_irqs(s, pirq_irq[2]);
    edu_writel(s, &a, EDU_IRQ_ACK, 1);
    assert_irqs(s, pirq_irq[2]);
    /* Interrupt Disable masks b's pin; the status bit stays. */
    qpci_config_writew(s, QPCI_DEVFN(7, 0), QPCI_COMMAND, cmd | 0x400);
    assert_irqs(s, -1);
    g_assert_cmphex(qpci_config_readw(s, QPCI_DEVFN(7, 0), QPCI_STATUS) &
                    0x08, ==, 0x08);
    qpci_config_writew(s, QPCI_DEVFN(7, 0), QPCI_COMMAND, cmd);
    assert_irqs(s, pirq_irq[2]);
    edu_writel(s, &b, EDU_IRQ_ACK, 2);
    assert_irqs(s, -1);
    /* A reset lowers what was raised. */
    edu_writel(s, &b, EDU_IRQ_RAISE, 2);
    assert_irqs(s, pirq_irq[2]);
    json_node_unref(qtest_qmp(s, "{\"execute\": \"system_reset\"}"));
    qtest_qmp_eventwait(s, "RESET");
    route_pirqs(s);
    assert_irqs(s, -1);
    qtest_quit(s);
}

static void msi_enable(QTestState *s, int d, uint64_t addr, uint16_t data)
{
    qpci_config_writel(s, d, MSI_CAP + 4, (uint32_t)addr);
    qpci_config_writel(s, d, MSI_CAP + 8, addr >> 32);
    qpci_config_writew(s, d, MSI_CAP + 12, data);
    qpci_config_writew(s, d, MSI_CAP + 2, 0x0001);
}

/* MSI as libqos uses it: the message is a dword written to memory. */
static void test_msi_to_memory(void)
{
    QTestState *s = start("-nodefaults -device edu");
    int d = qpci_find_device(s, EDU_VENDOR, EDU_DEVICE);
    QPCIBar bar = qpci_map_bar(s, d, 0);
    uint16_t cmd = qpci_config_readw(s, d, QPCI_COMMAND);

    qtest_irq_intercept_in(s, "ioapic");
    route_pirqs(s);
    qtest_writel(s, 0x10000, 0);
    msi_enable(s, d, 0x10000, 0x4321);
    g_assert_cmphex(qpci_config_readw(s, d, MSI_CAP + 2), ==, 0x0081);
    edu_writel(s, &bar, EDU_IRQ_RAISE, 1);
    g_assert_cmphex(qtest_readl(s, 0x10000), ==, 0x4321);
    /* No INTx while MSI is on. */
    assert_irqs(s, -1);
    /* Each raise is one message; without bus mastering none goes out. */
    qtest_writel(s, 0x10000, 0);
    qpci_config_writew(s, d, QPCI_COMMAND, cmd & ~QPCI_COMMAND_MASTER);
    edu_writel(s, &bar, EDU_IRQ_RAISE, 2);
    g_assert_cmphex(qtest_readl(s, 0x10000), ==, 0);
    qpci_config_writew(s, d, QPCI_COMMAND, cmd);
    edu_writel(s, &bar, EDU_IRQ_RAISE, 4);
    g_assert_cmphex(qtest_readl(s, 0x10000), ==, 0x4321);
    qtest_quit(s);
}

/* MSI to the APIC: CPU 0's IRR gets the vector. */
static void test_msi_to_apic(void)
{
    QTestState *s;
    QPCIBar bar;
    int d;

    if (against_qemu()) {
        g_test_skip("the APIC page answers only a CPU's accesses there");
        return;
    }
    s = start("-nodefaults -device edu");
    d = qpci_find_device(s, EDU_VENDOR, EDU_DEVICE);
    bar = qpci_map_bar(s, d, 0);
    qtest_writel(s, APIC_BASE + APIC_SVR, 0x1ff);
    /* Physical destination 0, fixed, edge, vector 0x53. */
    msi_enable(s, d, APIC_BASE, 0x0053);
    edu_writel(s, &bar, EDU_IRQ_RAISE, 1);
    g_assert_cmphex(qtest_readl(s, APIC_BASE + APIC_IRR + 0x20), ==,
                    1u << (0x53 - 64));
    /* Nothing reached memory at the APIC's address. */
    g_assert_cmphex(qtest_readl(s, APIC_BASE + APIC_IRR), ==, 0);
    qtest_quit(s);
}

static void test_dma(void)
{
    QTestState *s;
    QPCIBar bar;
    uint8_t in[64], out[64];
    int d;

    if (against_qemu()) {
        g_test_skip("virtual time needs the qtest accelerator");
        return;
    }
    s = start("-nodefaults -device edu");
    d = qpci_find_device(s, EDU_VENDOR, EDU_DEVICE);
    bar = qpci_map_bar(s, d, 0);
    for (size_t i = 0; i < sizeof(in); i++) {
        in[i] = i * 7 + 1;
    }
    qtest_memwrite(s, 0x20000, in, sizeof(in));
    /* RAM to the device's buffer, then back to another place. */
    qpci_bar_write(s, &bar, EDU_DMA_SRC, 0x20000, 8);
    qpci_bar_write(s, &bar, EDU_DMA_DST, EDU_DMA_BUF + 16, 8);
    qpci_bar_write(s, &bar, EDU_DMA_CNT, sizeof(in), 8);
    qpci_bar_write(s, &bar, EDU_DMA_CMD, 1, 8);
    g_assert_cmphex(qpci_bar_read(s, &bar, EDU_DMA_CMD, 8), ==, 1);
    qtest_clock_step(s, 100 * 1000 * 1000);
    g_assert_cmphex(qpci_bar_read(s, &bar, EDU_DMA_CMD, 8), ==, 0);
    qpci_bar_write(s, &bar, EDU_DMA_SRC, EDU_DMA_BUF + 16, 8);
    qpci_bar_write(s, &bar, EDU_DMA_DST, 0x30000, 8);
    qpci_bar_write(s, &bar, EDU_DMA_CMD, 1 | 2 | 4, 8);
    qtest_clock_step(s, 100 * 1000 * 1000);
    qtest_memread(s, 0x30000, out, sizeof(out));
    g_assert_cmpmem(in, sizeof(in), out, sizeof(out));
    g_assert_cmphex(edu_readl(s, &bar, EDU_IRQ_STATUS), ==, 0x100);
    /* Outside the buffer: dropped, and the device lives on. */
    qtest_memset(s, 0x30000, 0, sizeof(out));
    qpci_bar_write(s, &bar, EDU_DMA_SRC, EDU_DMA_BUF + 4090, 8);
    qpci_bar_write(s, &bar, EDU_DMA_CMD, 1 | 2, 8);
    qtest_clock_step(s, 100 * 1000 * 1000);
    g_assert_cmphex(qtest_readl(s, 0x30000), ==, 0);
    g_assert_cmphex(edu_readl(s, &bar, EDU_ID), ==, 0x010000ed);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("edu/registers", test_registers);
    qtest_add_func("edu/intx/routing", test_intx_routing);
    qtest_add_func("edu/intx/disable-and-sharing",
                   test_intx_disable_and_sharing);
    qtest_add_func("edu/msi/memory", test_msi_to_memory);
    qtest_add_func("edu/msi/apic", test_msi_to_apic);
    qtest_add_func("edu/dma", test_dma);
    return g_test_run();
}
