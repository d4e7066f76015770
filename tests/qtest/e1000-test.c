/*
 * qtest for the e1000 (hw/net/e1000.c) on a -netdev socket,udp= whose
 * other end is this test: PCI identity and BARs, the EEPROM through
 * EERD and bit-banged Microwire (MAC, checksum 0xbaba), the PHY through
 * MDIC and its autonegotiation, interrupts on INTx, a frame sent
 * through legacy descriptors, UDP checksum insertion and TCP
 * segmentation through context/data descriptors, a frame received into
 * the ring with RXT0 and the IRQ, the receive filters, rings and
 * descriptors that point anywhere, the option ROM BAR, and the default
 * NIC of the pc machine.
 *
 * Runs against QEMU 7.2 as well (QTEST_ACCEL=tcg), where the register
 * level cases pass as here; what needs virtual time, frames moving (QEMU
 * holds them while the VM is stopped), this one's I/O window or its
 * wording is skipped there.
 */
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "hw/net/e1000-regs.h"
#include "libqpci.h"
#include "libqtest.h"
#include "net/checksum.h"
#include "virtio-net-rig.h"

#define NIC_MAC         "52:54:00:12:34:56"
#define PCI_VENDOR_INTEL 0x8086
#define PIIX3           QPCI_DEVFN(1, 0)
#define PIRQRC          0x60
#define NIC_IRQ         10      /* slot 2, INTA#: PIRQB, steered here */

#define RX_RING         0x200000ull
#define RX_BUFS         0x210000ull
#define RX_DESCS        8
#define TX_RING         0x300000ull
#define TX_BUFS         0x310000ull
#define TX_DESCS        8

static const uint8_t nic_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

typedef struct Nic {
    QTestState *s;
    int d;
    QPCIBar bar;
    int sock, emu_port;         /* the test's end of the udp netdev */
    unsigned tx_tail;
} Nic;

static bool against_qemu(void)
{
    return g_getenv("QTEST_ACCEL") != NULL;
}

static uint32_t rd(Nic *n, uint32_t reg)
{
    return qpci_bar_read(n->s, &n->bar, reg, 4);
}

static void wr(Nic *n, uint32_t reg, uint32_t v)
{
    qpci_bar_write(n->s, &n->bar, reg, v, 4);
}

/* The emulator with one e1000 (extra options after its own). */
static void nic_start(Nic *n, const char *extra)
{
    g_autofree char *args = NULL;
    int test_port;

    memset(n, 0, sizeof(*n));
    n->sock = listen_loopback(SOCK_DGRAM, &test_port);
    close(listen_loopback(SOCK_DGRAM, &n->emu_port));
    args = g_strdup_printf("-nodefaults -netdev socket,id=n0,"
                           "udp=127.0.0.1:%d,localaddr=127.0.0.1:%d "
                           "-device e1000,netdev=n0,mac=" NIC_MAC "%s",
                           test_port, n->emu_port, extra ? extra : "");
    qpci_alloc_reset();
    n->s = qtest_init(args);
    n->d = qpci_find_device(n->s, PCI_VENDOR_INTEL, E1000_DEVICE_ID);
    g_assert_cmpint(n->d, >=, 0);
    n->bar = qpci_map_bar(n->s, n->d, 0);
    qtest_irq_intercept_in(n->s, "ioapic");
    qpci_config_writeb(n->s, PIIX3, PIRQRC + 1, NIC_IRQ);
    if (against_qemu()) {
        /* QEMU moves frames only while the VM runs (its halt BIOS). */
        json_node_unref(qtest_qmp(n->s, "{\"execute\": \"cont\"}"));
    }
}

static void nic_end(Nic *n)
{
    qtest_quit(n->s);
    close(n->sock);
}

/*
 * Whether the NIC's IRQ is up; QEMU's raises it up to 128 us (virtual,
 * its interrupt mitigation) after the cause, so give it a moment.
 */
static bool irq_raised(Nic *n)
{
    for (int i = 0; i < 100 && !qtest_get_irq(n->s, NIC_IRQ); i++) {
        g_usleep(1000);
    }
    return qtest_get_irq(n->s, NIC_IRQ);
}

/* --- PCI and EEPROM --- */

static void test_pci(void)
{
    Nic n;
    QPCIBar io;

    nic_start(&n, NULL);
    g_assert_cmpint(n.d, ==, QPCI_DEVFN(2, 0));
    g_assert_cmphex(qpci_config_readl(n.s, n.d, 0x08), ==, 0x02000003);
    g_assert_cmphex(qpci_config_readl(n.s, n.d, 0x2c), ==, 0x11001af4);
    g_assert_cmphex(qpci_config_readb(n.s, n.d, QPCI_INTERRUPT_PIN), ==, 1);
    g_assert_cmphex(qpci_bar_probe(n.s, n.d, 0).size, ==, E1000_MMIO_SIZE);
    io = qpci_bar_probe(n.s, n.d, 1);
    g_assert_true(io.io);
    g_assert_cmphex(io.size, ==, E1000_IO_SIZE);
    /* The state after reset, as QEMU's. */
    g_assert_cmphex(rd(&n, E1000_STATUS), ==, 0x80080783);
    g_assert_cmphex(rd(&n, E1000_CTRL), ==, 0x00140240);
    g_assert_cmphex(rd(&n, E1000_RA), ==, 0x12005452);
    g_assert_cmphex(rd(&n, E1000_RA + 4), ==, 0x80005634);
    if (!against_qemu()) {
        /* IOADDR/IODATA reach the same registers. */
        io = qpci_map_bar(n.s, n.d, 1);
        qpci_bar_write(n.s, &io, E1000_IOADDR, E1000_RA, 4);
        g_assert_cmphex(qpci_bar_read(n.s, &io, E1000_IODATA, 4), ==,
                        0x12005452);
        qpci_bar_write(n.s, &io, E1000_IOADDR, E1000_MTA + 8, 4);
        qpci_bar_write(n.s, &io, E1000_IODATA, 0xa5a5, 4);
        g_assert_cmphex(rd(&n, E1000_MTA + 8), ==, 0xa5a5);
    }
    nic_end(&n);
}

static uint16_t eerd(Nic *n, unsigned word)
{
    uint32_t v;

    wr(n, E1000_EERD, word << E1000_EERD_ADDR_SHIFT | E1000_EERD_START);
    v = rd(n, E1000_EERD);
    g_assert_true(v & E1000_EERD_DONE);
    return v >> E1000_EERD_DATA_SHIFT;
}

/* One clock of the Microwire EEPROM: DI in on the rise, DO after it. */
static bool ee_clock(Nic *n, bool di)
{
    uint32_t pins = E1000_EECD_CS | E1000_EECD_REQ |
                    (di ? E1000_EECD_DI : 0);
    bool out;

    wr(n, E1000_EECD, pins | E1000_EECD_SK);
    out = rd(n, E1000_EECD) & E1000_EECD_DO;
    wr(n, E1000_EECD, pins);
    return out;
}

/* A READ as Linux's e1000_read_eeprom() bit-bangs it. */
static uint16_t ee_read(Nic *n, unsigned word)
{
    unsigned cmd = E1000_EEPROM_READ_OP << 6 | word;
    uint16_t v = 0;

    wr(n, E1000_EECD, E1000_EECD_REQ);
    g_assert_true(rd(n, E1000_EECD) & E1000_EECD_GNT);
    wr(n, E1000_EECD, E1000_EECD_REQ | E1000_EECD_CS);
    for (int i = 8; i >= 0; i--) {
        ee_clock(n, cmd >> i & 1);
    }
    for (int i = 0; i < 16; i++) {
        v = v << 1 | ee_clock(n, false);
    }
    wr(n, E1000_EECD, 0);
    return v;
}

static void test_eeprom(void)
{
    uint16_t sum = 0;
    Nic n;

    nic_start(&n, NULL);
    g_assert_cmphex(eerd(&n, 0), ==, 0x5452);
    g_assert_cmphex(eerd(&n, 1), ==, 0x1200);
    g_assert_cmphex(eerd(&n, 2), ==, 0x5634);
    g_assert_cmphex(eerd(&n, 11), ==, E1000_DEVICE_ID);
    g_assert_cmphex(eerd(&n, 14), ==, PCI_VENDOR_INTEL);
    for (unsigned i = 0; i < E1000_EEPROM_WORDS; i++) {
        sum += eerd(&n, i);
    }
    g_assert_cmphex(sum, ==, E1000_EEPROM_SUM);
    /* Past the 64 words: DONE, no data. */
    wr(&n, E1000_EERD, 0x80 << E1000_EERD_ADDR_SHIFT | E1000_EERD_START);
    g_assert_cmphex(rd(&n, E1000_EERD) >> 16, ==, 0);
    for (unsigned i = 0; i < 4; i++) {
        g_assert_cmphex(ee_read(&n, i), ==, eerd(&n, i));
    }
    g_assert_cmphex(ee_read(&n, E1000_EEPROM_CHECKSUM), ==,
                    eerd(&n, E1000_EEPROM_CHECKSUM));
    nic_end(&n);
}

/* --- PHY and interrupts --- */

static uint32_t mdic(Nic *n, uint32_t op, unsigned phy, unsigned reg,
                     uint16_t data)
{
    uint32_t v;

    wr(n, E1000_MDIC, op | phy << E1000_MDIC_PHY_SHIFT |
       reg << E1000_MDIC_REG_SHIFT | data);
    v = rd(n, E1000_MDIC);
    g_assert_true(v & E1000_MDIC_READY);
    return v;
}

static uint16_t phy_read(Nic *n, unsigned reg)
{
    uint32_t v = mdic(n, E1000_MDIC_OP_READ, E1000_PHY_ADDR, reg, 0);

    g_assert_false(v & E1000_MDIC_ERROR);
    return v & 0xffff;
}

static void set_link(Nic *n, bool up)
{
    JsonNode *rsp = qtest_qmp(n->s, "{\"execute\": \"set_link\", "
                              "\"arguments\": {\"name\": \"n0\", "
                              "\"up\": %s}}", up ? "true" : "false");

    g_assert_false(qtest_qmp_has_error(rsp));
    json_node_unref(rsp);
}

static void test_phy(void)
{
    Nic n;

    nic_start(&n, NULL);
    g_assert_cmphex(phy_read(&n, MII_PHYID1), ==, 0x0141);
    g_assert_cmphex(phy_read(&n, MII_PHYID2), ==, 0x0c20);
    g_assert_cmphex(phy_read(&n, MII_BMCR), ==, 0x1140);
    g_assert_cmphex(phy_read(&n, MII_BMSR) & MII_BMSR_LINK_ST, ==,
                    MII_BMSR_LINK_ST);
    /* Another PHY address, a register it has not: errors. */
    g_assert_true(mdic(&n, E1000_MDIC_OP_READ, 2, MII_BMSR, 0) &
                  E1000_MDIC_ERROR);
    g_assert_true(mdic(&n, E1000_MDIC_OP_READ, 1, 0x1f, 0) &
                  E1000_MDIC_ERROR);
    g_assert_true(mdic(&n, E1000_MDIC_OP_WRITE, 1, MII_BMSR, 0) &
                  E1000_MDIC_ERROR);
    g_assert_false(mdic(&n, E1000_MDIC_OP_WRITE, 1, MII_ANAR, 0x01e1) &
                   E1000_MDIC_ERROR);
    g_assert_cmphex(phy_read(&n, MII_ANAR), ==, 0x01e1);
    if (against_qemu()) {
        nic_end(&n);
        return;
    }
    /* Restarting autonegotiation: link down, up 500 ms later, LSC. */
    wr(&n, E1000_IMS, E1000_ICR_LSC);
    rd(&n, E1000_ICR);
    mdic(&n, E1000_MDIC_OP_WRITE, 1, MII_BMCR,
         MII_BMCR_AUTOEN | MII_BMCR_ANRESTART | 0x0140);
    g_assert_cmphex(phy_read(&n, MII_BMCR), ==, 0x1140);
    g_assert_false(rd(&n, E1000_STATUS) & E1000_STATUS_LU);
    g_assert_false(phy_read(&n, MII_BMSR) & MII_BMSR_LINK_ST);
    qtest_clock_step(n.s, 499 * 1000 * 1000);
    g_assert_false(rd(&n, E1000_STATUS) & E1000_STATUS_LU);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    qtest_clock_step(n.s, 1000 * 1000);
    g_assert_true(rd(&n, E1000_STATUS) & E1000_STATUS_LU);
    g_assert_cmphex(phy_read(&n, MII_BMSR), ==, 0x796d);
    g_assert_true(irq_raised(&n));
    g_assert_cmphex(rd(&n, E1000_ICR), ==, E1000_ICR_LSC);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    /* set_link follows the netdev. */
    set_link(&n, false);
    g_assert_false(rd(&n, E1000_STATUS) & E1000_STATUS_LU);
    g_assert_cmphex(rd(&n, E1000_ICR), ==, E1000_ICR_LSC);
    set_link(&n, true);
    qtest_clock_step(n.s, 500 * 1000 * 1000);
    g_assert_true(rd(&n, E1000_STATUS) & E1000_STATUS_LU);
    nic_end(&n);
}

static void test_interrupts(void)
{
    Nic n;

    nic_start(&n, NULL);
    g_assert_cmphex(rd(&n, E1000_ICR), ==, 0);
    /* A cause without its mask bit: in ICR, no IRQ. */
    wr(&n, E1000_ICS, E1000_ICR_RXT0);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    wr(&n, E1000_IMS, E1000_ICR_RXT0 | E1000_ICR_TXDW);
    g_assert_cmphex(rd(&n, E1000_IMS), ==, E1000_ICR_RXT0 | E1000_ICR_TXDW);
    g_assert_true(irq_raised(&n));
    g_assert_cmphex(qpci_config_readw(n.s, n.d, QPCI_STATUS) & 8, ==, 8);
    /* INTx disable in the command register. */
    qpci_config_writew(n.s, n.d, QPCI_COMMAND,
                       qpci_config_readw(n.s, n.d, QPCI_COMMAND) | 0x400);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    qpci_config_writew(n.s, n.d, QPCI_COMMAND,
                       qpci_config_readw(n.s, n.d, QPCI_COMMAND) & ~0x400);
    g_assert_true(irq_raised(&n));
    /* IMC masks, ICR write-1 clears, an ICR read clears all. */
    wr(&n, E1000_IMC, E1000_ICR_RXT0);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    wr(&n, E1000_IMS, E1000_ICR_RXT0);
    wr(&n, E1000_ICR, E1000_ICR_RXT0);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    wr(&n, E1000_ICS, E1000_ICR_TXDW | E1000_ICR_LSC);
    g_assert_true(irq_raised(&n));
    g_assert_cmphex(rd(&n, E1000_ICR), ==, E1000_ICR_TXDW | E1000_ICR_LSC);
    g_assert_cmphex(rd(&n, E1000_ICR), ==, 0);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    nic_end(&n);
}

/* --- transmit --- */

static void tx_setup(Nic *n)
{
    qtest_memset(n->s, TX_RING, 0, TX_DESCS * E1000_DESC_SIZE);
    wr(n, E1000_TDBAL, TX_RING);
    wr(n, E1000_TDBAH, 0);
    wr(n, E1000_TDLEN, TX_DESCS * E1000_DESC_SIZE);
    wr(n, E1000_TDH, 0);
    wr(n, E1000_TDT, 0);
    wr(n, E1000_TCTL, E1000_TCTL_EN);
    n->tx_tail = 0;
}

/* Put descriptor d (16 bytes) at the tail; returns its address. */
static uint64_t tx_put(Nic *n, const uint8_t *d)
{
    uint64_t a = TX_RING + n->tx_tail * E1000_DESC_SIZE;

    qtest_memwrite(n->s, a, d, E1000_DESC_SIZE);
    n->tx_tail = (n->tx_tail + 1) % TX_DESCS;
    return a;
}

static void put_le(uint8_t *p, uint64_t v, unsigned len)
{
    for (unsigned i = 0; i < len; i++) {
        p[i] = v >> (8 * i);
    }
}

static void tx_data_desc(Nic *n, uint64_t buf, uint32_t lower, uint8_t popts)
{
    uint8_t d[16] = { 0 };

    put_le(d, buf, 8);
    put_le(d + 8, lower, 4);
    d[13] = popts;
    tx_put(n, d);
}

/* One datagram from the emulator, or -1 after timeout_ms. */
static ssize_t sock_recv(Nic *n, uint8_t *buf, size_t len, int timeout_ms)
{
    struct pollfd pfd = { .fd = n->sock, .events = POLLIN };

    if (poll(&pfd, 1, timeout_ms) != 1) {
        return -1;
    }
    return recv(n->sock, buf, len, 0);
}

static void make_eth(uint8_t *f, size_t len, const uint8_t *dst,
                     uint16_t type, uint8_t fill)
{
    static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };

    memcpy(f, dst, 6);
    memcpy(f + 6, src, 6);
    f[12] = type >> 8;
    f[13] = type;
    for (size_t i = 14; i < len; i++) {
        f[i] = fill + i;
    }
}

static void test_tx_legacy(void)
{
    static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    uint8_t frame[300], got[2048], d[16];
    uint64_t a;
    Nic n;

    nic_start(&n, NULL);
    tx_setup(&n);
    wr(&n, E1000_IMS, E1000_ICR_TXDW);
    make_eth(frame, sizeof(frame), bcast, 0x88b5, 1);
    qtest_memwrite(n.s, TX_BUFS, frame, sizeof(frame));
    /* The frame in two descriptors; RS on the last. */
    tx_data_desc(&n, TX_BUFS, 100 | E1000_TXD_CMD_IFCS, 0);
    memset(d, 0, sizeof(d));
    put_le(d, TX_BUFS + 100, 8);
    put_le(d + 8, (sizeof(frame) - 100) | E1000_TXD_CMD_EOP |
           E1000_TXD_CMD_IFCS | E1000_TXD_CMD_RS, 4);
    a = tx_put(&n, d);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    wr(&n, E1000_TDT, n.tx_tail);
    g_assert_cmpint(sock_recv(&n, got, sizeof(got), 2000), ==, sizeof(frame));
    g_assert_cmpmem(got, sizeof(frame), frame, sizeof(frame));
    g_assert_cmphex(rd(&n, E1000_TDH), ==, 2);
    g_assert_cmphex(qtest_readb(n.s, a + 12) & E1000_TXD_STAT_DD, ==, 1);
    g_assert_cmphex(qtest_readb(n.s, TX_RING + 12), ==, 0);
    g_assert_true(irq_raised(&n));
    g_assert_cmphex(rd(&n, E1000_ICR), ==, E1000_ICR_TXDW | E1000_ICR_TXQE);
    g_assert_cmpuint(rd(&n, E1000_GPTC), ==, 1);
    g_assert_cmpuint(rd(&n, E1000_BPTC), ==, 1);
    g_assert_cmpuint(rd(&n, E1000_GOTCL), ==, sizeof(frame) + 4);
    g_assert_cmpuint(rd(&n, E1000_GPTC), ==, 0);     /* read clears */
    nic_end(&n);
}

/* A UDP/IPv4 frame: 14 + 20 + 8 + payload, the UDP checksum left to fill. */
#define IP_OFF      14
#define L4_OFF      34

static size_t make_ipv4(uint8_t *f, size_t payload, uint8_t proto,
                        size_t l4_hdr)
{
    uint8_t *ip = f + IP_OFF;
    size_t len = L4_OFF + l4_hdr + payload;

    make_eth(f, len, nic_mac, 0x0800, 7);
    memset(ip, 0, 20 + l4_hdr);
    ip[0] = 0x45;
    ip[2] = (len - IP_OFF) >> 8;
    ip[3] = len - IP_OFF;
    ip[4] = 0x12;                   /* ID 0x1234 */
    ip[5] = 0x34;
    ip[8] = 64;
    ip[9] = proto;
    memcpy(ip + 12, "\x0a\x00\x02\x0f\x0a\x00\x02\x02", 8);
    return len;
}

/* The pseudo-header sum (without its length) a driver leaves for TXSM. */
static uint16_t pseudo_sum(const uint8_t *ip, uint32_t len)
{
    uint8_t ph[12] = { 0 };
    uint32_t s;

    memcpy(ph, ip + 12, 8);
    ph[9] = ip[9];
    ph[10] = len >> 8;
    ph[11] = len;
    s = net_checksum_add(0, ph, sizeof(ph));
    return ~net_checksum_finish(s);
}

/* Whether a received IPv4 frame's IP and TCP/UDP checksums hold. */
static void assert_ipv4_sums(const uint8_t *f, size_t len)
{
    const uint8_t *ip = f + IP_OFF;
    size_t l4_len = len - L4_OFF;
    uint32_t s;

    g_assert_cmphex(net_checksum_finish(net_checksum_add(0, ip, 20)), ==, 0);
    s = pseudo_sum(ip, l4_len);
    s = net_checksum_add(s, f + L4_OFF, l4_len);
    g_assert_cmphex(net_checksum_finish(s), ==, 0);
}

static void tx_context(Nic *n, uint8_t tucso, uint32_t cmd, uint8_t hdr_len,
                       uint16_t mss)
{
    uint8_t d[16] = { IP_OFF, IP_OFF + 10, L4_OFF - 1, 0,
                      L4_OFF, tucso, 0, 0 };

    put_le(d + 8, cmd | E1000_TXD_CMD_DEXT, 4);
    d[13] = hdr_len;
    put_le(d + 14, mss, 2);
    tx_put(n, d);
}

static void test_tx_csum(void)
{
    uint8_t frame[256], got[2048];
    size_t len = make_ipv4(frame, 150, 17, 8);
    uint16_t ps;
    Nic n;

    nic_start(&n, NULL);
    tx_setup(&n);
    frame[L4_OFF + 5] = len - L4_OFF;           /* UDP length */
    ps = pseudo_sum(frame + IP_OFF, len - L4_OFF);
    frame[L4_OFF + 6] = ps >> 8;
    frame[L4_OFF + 7] = ps;
    qtest_memwrite(n.s, TX_BUFS, frame, len);
    tx_context(&n, L4_OFF + 6, E1000_TXD_CMD_IP, 0, 0);
    tx_data_desc(&n, TX_BUFS, len | E1000_TXD_DTYP_D | E1000_TXD_CMD_DEXT |
                 E1000_TXD_CMD_EOP | E1000_TXD_CMD_RS,
                 E1000_TXD_POPTS_IXSM | E1000_TXD_POPTS_TXSM);
    wr(&n, E1000_TDT, n.tx_tail);
    g_assert_cmpint(sock_recv(&n, got, sizeof(got), 2000), ==, len);
    assert_ipv4_sums(got, len);
    g_assert_cmpmem(got + L4_OFF + 8, len - L4_OFF - 8,
                    frame + L4_OFF + 8, len - L4_OFF - 8);
    nic_end(&n);
}

/* TSO: 2,500 bytes of TCP payload at mss 1000 leave as three segments. */
static void test_tx_tso(void)
{
    enum { PAYLOAD = 2500, MSS = 1000, HDR = L4_OFF + 20 };
    uint8_t frame[HDR + PAYLOAD], got[2048];
    size_t len = make_ipv4(frame, PAYLOAD, 6, 20);
    uint8_t *tcp = frame + L4_OFF;
    uint16_t ps = pseudo_sum(frame + IP_OFF, 0);
    Nic n;

    nic_start(&n, NULL);
    tx_setup(&n);
    tcp[4] = 0x10;                  /* seq 0x10000000 */
    tcp[12] = 5 << 4;
    tcp[13] = 0x18;                 /* PSH, ACK */
    tcp[16] = ps >> 8;
    tcp[17] = ps;
    frame[IP_OFF + 2] = frame[IP_OFF + 3] = 0;  /* as Linux leaves it */
    qtest_memwrite(n.s, TX_BUFS, frame, len);
    tx_context(&n, L4_OFF + 16, PAYLOAD | E1000_TXD_CMD_IP |
               E1000_TXD_CMD_TCP | E1000_TXD_CMD_TSE, HDR, MSS);
    /* Headers and data in separate descriptors, as drivers do. */
    tx_data_desc(&n, TX_BUFS, HDR | E1000_TXD_DTYP_D | E1000_TXD_CMD_DEXT |
                 E1000_TXD_CMD_TSE, E1000_TXD_POPTS_IXSM |
                 E1000_TXD_POPTS_TXSM);
    tx_data_desc(&n, TX_BUFS + HDR, PAYLOAD | E1000_TXD_DTYP_D |
                 E1000_TXD_CMD_DEXT | E1000_TXD_CMD_TSE | E1000_TXD_CMD_EOP |
                 E1000_TXD_CMD_RS, 0);
    wr(&n, E1000_TDT, n.tx_tail);
    for (unsigned seg = 0; seg < 3; seg++) {
        size_t want = HDR + (seg < 2 ? MSS : PAYLOAD - 2 * MSS);
        uint8_t *gtcp = got + L4_OFF;

        g_assert_cmpint(sock_recv(&n, got, sizeof(got), 2000), ==, want);
        assert_ipv4_sums(got, want);
        g_assert_cmpuint(got[IP_OFF + 2] << 8 | got[IP_OFF + 3], ==,
                         want - IP_OFF);
        g_assert_cmpuint(got[IP_OFF + 4] << 8 | got[IP_OFF + 5], ==,
                         0x1234 + seg);
        g_assert_cmphex(gtcp[4] << 24 | gtcp[5] << 16 | gtcp[6] << 8 |
                        gtcp[7], ==, 0x10000000 + seg * MSS);
        g_assert_cmphex(gtcp[13], ==, seg < 2 ? 0x10 : 0x18);
        g_assert_cmpmem(got + HDR, want - HDR, frame + HDR + seg * MSS,
                        want - HDR);
    }
    g_assert_cmpint(sock_recv(&n, got, sizeof(got), 100), ==, -1);
    nic_end(&n);
}

/* --- receive --- */

static void rx_setup(Nic *n, uint32_t rctl)
{
    for (unsigned i = 0; i < RX_DESCS; i++) {
        uint8_t d[16] = { 0 };

        put_le(d, RX_BUFS + i * 2048, 8);
        qtest_memwrite(n->s, RX_RING + i * 16, d, sizeof(d));
    }
    wr(n, E1000_RDBAL, RX_RING);
    wr(n, E1000_RDBAH, 0);
    wr(n, E1000_RDLEN, RX_DESCS * E1000_DESC_SIZE);
    wr(n, E1000_RDH, 0);
    wr(n, E1000_RDT, RX_DESCS - 1);
    wr(n, E1000_IMS, E1000_ICR_RXT0);
    wr(n, E1000_RCTL, rctl | E1000_RCTL_EN);
}

static void sock_send(Nic *n, const uint8_t *f, size_t len)
{
    struct sockaddr_in emu = { .sin_family = AF_INET,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                               .sin_port = htons(n->emu_port) };

    g_assert_cmpint(sendto(n->sock, f, len, 0, (struct sockaddr *)&emu,
                           sizeof(emu)), ==, len);
}

/* Wait for RDH to reach head (the frame is processed in the main loop). */
static bool rx_wait_head(Nic *n, uint32_t head)
{
    for (int i = 0; i < 2000; i++) {
        if (rd(n, E1000_RDH) == head) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

static void test_rx(void)
{
    static const uint8_t other[6] = { 0x52, 0x54, 0x00, 0x00, 0x00, 0x01 };
    uint8_t frame[200], got[200], d[16];
    Nic n;

    nic_start(&n, NULL);
    rx_setup(&n, E1000_RCTL_BAM);
    make_eth(frame, sizeof(frame), nic_mac, 0x88b5, 3);
    sock_send(&n, frame, sizeof(frame));
    g_assert_true(rx_wait_head(&n, 1));
    qtest_memread(n.s, RX_RING, d, sizeof(d));
    g_assert_cmpuint(d[8] | d[9] << 8, ==, sizeof(frame) + 4);
    g_assert_cmphex(d[12], ==, E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP |
                    E1000_RXD_STAT_IXSM);
    g_assert_cmphex(d[13], ==, 0);
    qtest_memread(n.s, RX_BUFS, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), frame, sizeof(frame));
    g_assert_true(irq_raised(&n));
    g_assert_true(rd(&n, E1000_ICR) & E1000_ICR_RXT0);
    g_assert_false(qtest_get_irq(n.s, NIC_IRQ));
    g_assert_cmpuint(rd(&n, E1000_GPRC), ==, 1);

    /* Another MAC: filtered out, unless promiscuous. */
    make_eth(frame, sizeof(frame), other, 0x88b5, 4);
    sock_send(&n, frame, sizeof(frame));
    make_eth(frame, sizeof(frame), nic_mac, 0x88b5, 5);
    sock_send(&n, frame, sizeof(frame));
    g_assert_true(rx_wait_head(&n, 2));
    qtest_memread(n.s, RX_BUFS + 2048, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), frame, sizeof(frame));
    wr(&n, E1000_RCTL, E1000_RCTL_EN | E1000_RCTL_UPE | E1000_RCTL_SECRC);
    make_eth(frame, sizeof(frame), other, 0x88b5, 6);
    sock_send(&n, frame, sizeof(frame));
    g_assert_true(rx_wait_head(&n, 3));
    qtest_memread(n.s, RX_RING + 32, d, sizeof(d));
    g_assert_cmpuint(d[8] | d[9] << 8, ==, sizeof(frame));    /* no FCS */

    /* A short frame is padded to 60 bytes. */
    sock_send(&n, frame, 42);
    g_assert_true(rx_wait_head(&n, 4));
    qtest_memread(n.s, RX_RING + 48, d, sizeof(d));
    g_assert_cmpuint(d[8] | d[9] << 8, ==, 60);
    nic_end(&n);
}

/*
 * With no free descriptor the frame waits (the backend with it) and
 * lands once RDT moves.
 */
static void test_rx_wait(void)
{
    uint8_t frame[100], got[100];
    Nic n;

    nic_start(&n, NULL);
    rx_setup(&n, 0);
    wr(&n, E1000_RDT, 0);
    make_eth(frame, sizeof(frame), nic_mac, 0x88b5, 9);
    sock_send(&n, frame, sizeof(frame));
    g_usleep(50 * 1000);
    g_assert_cmphex(rd(&n, E1000_RDH), ==, 0);
    wr(&n, E1000_RDT, 1);
    g_assert_true(rx_wait_head(&n, 1));
    qtest_memread(n.s, RX_BUFS, got, sizeof(got));
    g_assert_cmpmem(got, sizeof(got), frame, sizeof(frame));
    nic_end(&n);
}

/* --- rings that point anywhere --- */

static void test_bad_rings(void)
{
    uint8_t frame[100];
    Nic n;

    nic_start(&n, NULL);
    /* A transmit ring outside RAM, over the NIC's own BAR, huge, empty. */
    tx_setup(&n);
    wr(&n, E1000_TDBAL, 0xfffff000);
    wr(&n, E1000_TDT, 3);
    wr(&n, E1000_TDBAL, n.bar.addr);
    wr(&n, E1000_TDH, 0);
    wr(&n, E1000_TDT, 5);
    wr(&n, E1000_TDLEN, 0xffffffff);
    wr(&n, E1000_TDBAL, TX_RING);
    wr(&n, E1000_TDT, 0xffff);
    wr(&n, E1000_TDLEN, 0);
    wr(&n, E1000_TDT, 1);
    /* Descriptors whose buffers lie outside RAM, or are huge. */
    wr(&n, E1000_TDLEN, TX_DESCS * E1000_DESC_SIZE);
    wr(&n, E1000_TDH, 0);
    wr(&n, E1000_TDT, 0);
    n.tx_tail = 0;
    tx_data_desc(&n, 0xfffffffffffff000ull, 0xffff | E1000_TXD_CMD_EOP, 0);
    tx_data_desc(&n, n.bar.addr, 64 | E1000_TXD_CMD_EOP, 0);
    tx_context(&n, 250, E1000_TXD_CMD_TSE | 0xfffff, 255, 0xffff);
    tx_data_desc(&n, 0, 0xfffff | E1000_TXD_DTYP_D | E1000_TXD_CMD_DEXT |
                 E1000_TXD_CMD_TSE | E1000_TXD_CMD_EOP, 3);
    tx_context(&n, 250, E1000_TXD_CMD_TSE | 100, 250, 8);
    tx_data_desc(&n, 0, 0xfffff | E1000_TXD_DTYP_D | E1000_TXD_CMD_DEXT |
                 E1000_TXD_CMD_EOP, 3);
    tx_data_desc(&n, 0, 0xfffff | E1000_TXD_DTYP_D | E1000_TXD_CMD_DEXT |
                 E1000_TXD_CMD_TSE | E1000_TXD_CMD_EOP, 3);
    wr(&n, E1000_TDT, n.tx_tail);
    g_assert_cmphex(rd(&n, E1000_TDH), ==, n.tx_tail);
    /* Receive rings the same way. */
    rx_setup(&n, E1000_RCTL_UPE);
    wr(&n, E1000_RDBAL, 0xfffff000);
    wr(&n, E1000_RDLEN, 0);
    wr(&n, E1000_RDT, 0x9999);
    wr(&n, E1000_RDLEN, 0xfff80);
    wr(&n, E1000_RDH, 0xfff0);
    make_eth(frame, sizeof(frame), nic_mac, 0x88b5, 1);
    sock_send(&n, frame, sizeof(frame));
    wr(&n, E1000_RDH, 0);
    wr(&n, E1000_RDT, 5);
    wr(&n, E1000_RDBAL, n.bar.addr);
    sock_send(&n, frame, sizeof(frame));
    g_usleep(20 * 1000);
    /* Still answering, with its registers intact. */
    g_assert_cmphex(rd(&n, E1000_RA), ==, 0x12005452);
    g_assert_cmphex(rd(&n, E1000_STATUS) & E1000_STATUS_LU, ==,
                    E1000_STATUS_LU);
    nic_end(&n);
}

/* --- the option ROM --- */

static void test_rom(void)
{
    g_autofree char *path = g_strdup("/usr/lib/ipxe/qemu/efi-e1000.rom");
    g_autofree gchar *file = NULL;
    gsize file_len;
    uint32_t rom_bar = 0xe8000000;
    uint8_t head[64], tail[16] = { 0 }, got[16];
    Nic n;

    if (!g_file_get_contents(path, &file, &file_len, NULL)) {
        g_test_skip("no efi-e1000.rom (Debian's ipxe-qemu)");
        return;
    }
    nic_start(&n, NULL);
    qpci_config_writel(n.s, n.d, 0x30, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(n.s, n.d, 0x30), ==, 0xfffc0001);
    g_assert_cmpuint(file_len, <=, 256 * 1024);
    /* Programmed but not enabled: nothing there. */
    qpci_config_writel(n.s, n.d, 0x30, rom_bar);
    g_assert_cmphex(qtest_readl(n.s, rom_bar), !=, 0x0000aa55);
    qpci_config_writel(n.s, n.d, 0x30, rom_bar | 1);
    qtest_memread(n.s, rom_bar, head, sizeof(head));
    g_assert_cmpmem(head, sizeof(head), file, sizeof(head));
    g_assert_cmphex(head[0] | head[1] << 8, ==, 0xaa55);
    qtest_memread(n.s, rom_bar + file_len - 16, got, sizeof(got));
    g_assert_cmpmem(got, 16, file + file_len - 16, 16);
    /* Past the file, up to the BAR's size: zeros. Writes go nowhere. */
    qtest_memread(n.s, rom_bar + 256 * 1024 - 16, got, sizeof(got));
    g_assert_cmpmem(got, 16, tail, 16);
    qtest_writel(n.s, rom_bar, 0x12345678);
    g_assert_cmphex(qtest_readl(n.s, rom_bar), ==,
                    head[0] | head[1] << 8 | head[2] << 16 |
                    (uint32_t)head[3] << 24);
    /* Memory decoding off hides it again. */
    qpci_config_writew(n.s, n.d, QPCI_COMMAND, 0);
    g_assert_cmphex(qtest_readl(n.s, rom_bar), !=,
                    head[0] | head[1] << 8 | head[2] << 16 |
                    (uint32_t)head[3] << 24);
    nic_end(&n);

    /* romfile= (empty): no ROM BAR. */
    nic_start(&n, ",romfile=");
    qpci_config_writel(n.s, n.d, 0x30, 0xffffffff);
    g_assert_cmphex(qpci_config_readl(n.s, n.d, 0x30), ==, 0);
    nic_end(&n);
}

static const QTestStartError start_errors[] = {
    { "-device e1000,romfile=nope.rom",
      "qemu-system-x86_64: -device e1000,romfile=nope.rom: failed to find "
      "romfile \"nope.rom\"\n" },
    { "-device e1000,romfile=/dev/null",
      "qemu-system-x86_64: -device e1000,romfile=/dev/null: romfile "
      "\"/dev/null\" is empty\n" },
    { "-device e1000,romsize=3",
      "qemu-system-x86_64: -device e1000,romsize=3: ROM size 3 is not a "
      "power of two\n" },
    { "-device e1000,romsize=4096",
      "qemu-system-x86_64: -device e1000,romsize=4096: romfile "
      "\"efi-e1000.rom\" (249856 bytes) is too large for ROM size 4096\n" },
    { "-device e1000,mac=zz",
      "qemu-system-x86_64: -device e1000,mac=zz: Property 'e1000.mac' "
      "doesn't take value 'zz'\n" },
    { "-device e1000,netdev=x",
      "qemu-system-x86_64: -device e1000,netdev=x: Property "
      "'e1000.netdev' can't find value 'x'\n" },
};

/* --- the pc's default NIC --- */

static bool has_e1000(const char *args, int slot)
{
    QTestState *s = qtest_init(args);
    int d = qpci_find_device(s, PCI_VENDOR_INTEL, E1000_DEVICE_ID);

    qtest_quit(s);
    if (d >= 0 && slot >= 0) {
        g_assert_cmpint(d >> 3, ==, slot);
    }
    return d >= 0;
}

static void test_default_nic(void)
{
    if (against_qemu()) {
        g_test_skip("QEMU's VGA takes slot 2 first");
        return;
    }
    g_assert_true(has_e1000("", 2));
    g_assert_false(has_e1000("-nodefaults", -1));
    g_assert_false(has_e1000("-net none", -1));
    g_assert_false(has_e1000("-nic none", -1));
    g_assert_false(has_e1000("-netdev user,id=u", -1));
    /* -nic and -net nic NICs come before -device ones. */
    g_assert_true(has_e1000("-nodefaults -device virtio-rng-pci -nic user",
                            2));
    g_assert_true(has_e1000("-nodefaults -device virtio-rng-pci "
                            "-net nic,model=e1000 -net user", 2));
    g_assert_false(has_e1000("-nodefaults -nic user,model=virtio", -1));
}

/* QEMU's warnings for a NIC without a peer and a hub without a host. */
static void test_no_peer(void)
{
    static const char *const cases[][2] = {
        { "-device e1000", "warning: nic e1000.0 has no peer" },
        { "-net nic,model=e1000",
          "warning: hub 0 is not connected to host network" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree char *args = g_strdup_printf("-nodefaults %s",
                                                cases[i][0]);
        QTestState *s = qtest_init(args);
        int tries = 0;

        /* Printed before the QMP greeting; read by libqtest's thread. */
        while (!strstr(qtest_stderr(s), cases[i][1]) && tries++ < 200) {
            g_usleep(10 * 1000);
        }
        g_assert_nonnull(strstr(qtest_stderr(s), cases[i][1]));
        qtest_quit(s);
    }
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/e1000/pci", test_pci);
    qtest_add_func("/e1000/eeprom", test_eeprom);
    qtest_add_func("/e1000/phy", test_phy);
    qtest_add_func("/e1000/interrupts", test_interrupts);
    qtest_add_func("/e1000/tx/legacy", test_tx_legacy);
    qtest_add_func("/e1000/tx/csum", test_tx_csum);
    qtest_add_func("/e1000/tx/tso", test_tx_tso);
    qtest_add_func("/e1000/rx", test_rx);
    qtest_add_func("/e1000/rx/wait", test_rx_wait);
    qtest_add_func("/e1000/bad-rings", test_bad_rings);
    qtest_add_func("/e1000/rom", test_rom);
    qtest_add_func("/e1000/default-nic", test_default_nic);
    qtest_add_func("/e1000/no-peer", test_no_peer);
    qtest_add_start_errors("/e1000/start-errors", start_errors,
                           G_N_ELEMENTS(start_errors));
    return g_test_run();
}
