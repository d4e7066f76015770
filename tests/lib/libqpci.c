/*
 * libqpci (libqpci.h): configuration mechanism #1 over qtest port
 * commands, BAR sizing and a bump allocator for BAR addresses.
 */
#include "libqpci.h"

#define CONFADD         0xcf8
#define CONFDATA        0xcfc
#define MEM_BASE        0xe0000000ull
#define IO_BASE         0xc000

static void select_reg(QTestState *s, int devfn, uint8_t off)
{
    qtest_outl(s, CONFADD, 0x80000000u | (uint32_t)devfn << 8 | (off & 0xfc));
}

uint8_t qpci_config_readb(QTestState *s, int devfn, uint8_t off)
{
    select_reg(s, devfn, off);
    return qtest_inb(s, CONFDATA + (off & 3));
}

uint16_t qpci_config_readw(QTestState *s, int devfn, uint8_t off)
{
    select_reg(s, devfn, off);
    return qtest_inw(s, CONFDATA + (off & 2));
}

uint32_t qpci_config_readl(QTestState *s, int devfn, uint8_t off)
{
    select_reg(s, devfn, off);
    return qtest_inl(s, CONFDATA);
}

void qpci_config_writeb(QTestState *s, int devfn, uint8_t off, uint8_t v)
{
    select_reg(s, devfn, off);
    qtest_outb(s, CONFDATA + (off & 3), v);
}

void qpci_config_writew(QTestState *s, int devfn, uint8_t off, uint16_t v)
{
    select_reg(s, devfn, off);
    qtest_outw(s, CONFDATA + (off & 2), v);
}

void qpci_config_writel(QTestState *s, int devfn, uint8_t off, uint32_t v)
{
    select_reg(s, devfn, off);
    qtest_outl(s, CONFDATA, v);
}

int qpci_find_device(QTestState *s, uint16_t vendor, uint16_t device)
{
    for (int devfn = 0; devfn < 256; devfn++) {
        uint32_t id = qpci_config_readl(s, devfn, QPCI_VENDOR_ID);

        if (id == ((uint32_t)device << 16 | vendor)) {
            return devfn;
        }
    }
    return -1;
}

QPCIBar qpci_bar_probe(QTestState *s, int devfn, int n)
{
    uint8_t off = QPCI_BASE_ADDRESS_0 + 4 * n;
    uint32_t old = qpci_config_readl(s, devfn, off), lo, hi = 0xffffffff;
    QPCIBar bar = { .io = old & 1 };
    uint64_t mask;

    qpci_config_writel(s, devfn, off, 0xffffffff);
    lo = qpci_config_readl(s, devfn, off);
    qpci_config_writel(s, devfn, off, old);
    bar.is64 = !bar.io && (old & 6) == 4;
    if (bar.is64) {
        uint32_t old_hi = qpci_config_readl(s, devfn, off + 4);

        qpci_config_writel(s, devfn, off + 4, 0xffffffff);
        hi = qpci_config_readl(s, devfn, off + 4);
        qpci_config_writel(s, devfn, off + 4, old_hi);
    }
    mask = (uint64_t)hi << 32 | (lo & (bar.io ? ~3u : ~15u));
    if (!bar.is64) {
        mask |= 0xffffffff00000000ull;
    }
    if (bar.io) {
        mask |= 0xffff0000ull;
    }
    bar.size = (lo & (bar.io ? ~3u : ~15u)) ? ~mask + 1 : 0;
    return bar;
}

void qpci_bar_set(QTestState *s, int devfn, int n, const QPCIBar *bar,
                  uint64_t addr)
{
    uint8_t off = QPCI_BASE_ADDRESS_0 + 4 * n;

    qpci_config_writel(s, devfn, off, (uint32_t)addr);
    if (bar->is64) {
        qpci_config_writel(s, devfn, off + 4, addr >> 32);
    }
}

static uint64_t next_mem = MEM_BASE;
static uint64_t next_io = IO_BASE;

void qpci_alloc_reset(void)
{
    next_mem = MEM_BASE;
    next_io = IO_BASE;
}

QPCIBar qpci_map_bar(QTestState *s, int devfn, int n)
{
    QPCIBar bar = qpci_bar_probe(s, devfn, n);
    uint64_t *next = bar.io ? &next_io : &next_mem;
    uint16_t cmd;

    g_assert_cmpuint(bar.size, !=, 0);
    bar.addr = (*next + bar.size - 1) & ~(bar.size - 1);
    *next = bar.addr + bar.size;
    qpci_bar_set(s, devfn, n, &bar, bar.addr);
    cmd = qpci_config_readw(s, devfn, QPCI_COMMAND);
    cmd |= (bar.io ? QPCI_COMMAND_IO : QPCI_COMMAND_MEMORY) |
           QPCI_COMMAND_MASTER;
    qpci_config_writew(s, devfn, QPCI_COMMAND, cmd);
    return bar;
}

uint64_t qpci_bar_read(QTestState *s, const QPCIBar *b, uint64_t off,
                       unsigned size)
{
    uint64_t a = b->addr + off;

    switch (size) {
    case 1:
        return b->io ? qtest_inb(s, a) : qtest_readb(s, a);
    case 2:
        return b->io ? qtest_inw(s, a) : qtest_readw(s, a);
    case 4:
        return b->io ? qtest_inl(s, a) : qtest_readl(s, a);
    default:
        g_assert(!b->io && size == 8);
        return qtest_readq(s, a);
    }
}

void qpci_bar_write(QTestState *s, const QPCIBar *b, uint64_t off,
                    uint64_t v, unsigned size)
{
    uint64_t a = b->addr + off;

    switch (size) {
    case 1:
        b->io ? qtest_outb(s, a, v) : qtest_writeb(s, a, v);
        break;
    case 2:
        b->io ? qtest_outw(s, a, v) : qtest_writew(s, a, v);
        break;
    case 4:
        b->io ? qtest_outl(s, a, v) : qtest_writel(s, a, v);
        break;
    default:
        g_assert(!b->io && size == 8);
        qtest_writeq(s, a, v);
        break;
    }
}
