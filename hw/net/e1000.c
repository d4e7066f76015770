/*
 * e1000: the Intel 82540EM gigabit NIC (8086:100e rev 3), QEMU's
 * default NIC on the pc machine, on a netdev (netdev=ID).
 *
 * BAR0: 128 KiB of registers (include/hw/net/e1000-regs.h), dword
 * accesses (narrower writes are widened with zeros). BAR1: 64 ports,
 * IOADDR at 0 selects a register that IODATA at 4 reads and writes
 * (QEMU's e1000 reads 0 there; the hardware and this one do not).
 *
 * What the driver finds, as QEMU's e1000 has it:
 * - EEPROM: 64 words through EERD or bit-banged Microwire on EECD (REQ
 *   always granted): the MAC address in words 0-2, the device ID in
 *   11 and 13, the checksum word making the sum 0xbaba.
 * - PHY (address 1, through MDIC): an 88E1000-like copper PHY. The link
 *   comes up with the machine; restarting autonegotiation drops it and
 *   it comes back 500 ms (virtual) later with LSC, unless the
 *   autonegotiation property is off. set_link down/up follows.
 * - Interrupts: ICR (read clears), ICS, IMS, IMC, one INTx line; IAM
 *   clears IMS bits on an ICR read when CTRL_EXT.IAME is set. ITR and
 *   the RX/TX delay timers are stored but not modelled: every cause is
 *   raised at once.
 * - Receive: legacy descriptors, buffer sizes 256 B-16 KiB (RCTL BSIZE,
 *   BSEX), a frame spread over as many descriptors as it needs; filters
 *   by RAL/RAH (16 entries), the MTA hash (RCTL.MO), broadcast (BAM),
 *   promiscuous (UPE, MPE), VLAN (VFE, VFTA) and length (LPE, SBP);
 *   VLAN tags stripped with CTRL.VME. A frame that finds no descriptor
 *   waits at the netdev (the backend is paused) until RDT moves.
 * - Transmit: legacy descriptors (with IC: the checksum inserted at CSO
 *   from CSS), context and data descriptors with IP/TCP/UDP checksum
 *   insertion (POPTS IXSM, TXSM) and TCP segmentation (TSE: headers
 *   copied per segment, IP length and ID, TCP sequence, PSH/FIN only on
 *   the last, pseudo-header length added), VLAN tag insertion (VLE).
 * - Statistics: the packet and octet counters QEMU keeps, saturating,
 *   cleared on read as there.
 *
 * Nothing the guest writes is trusted: ring bases, lengths, heads and
 * tails are checked against the ring (an index past its end stops the
 * ring, with a -d guest_errors line), every descriptor and buffer must
 * lie in guest RAM (not a device: no re-entry through DMA), a frame is
 * at most 64 KiB and a TSO context that does not fit is ignored.
 */
#include <string.h>

#include "hw/net/e1000-regs.h"
#include "hw/pci/pci.h"
#include "net/checksum.h"
#include "net/net.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"
#include "vmstate/vmstate.h"

#define ETH_ALEN            6
#define ETH_HLEN            14
#define ETH_ZLEN            60      /* the shortest frame, without FCS */
#define ETH_P_VLAN          0x8100
#define E1000_REG_WORDS     (0x6000 / 4)    /* what is kept: 0-0x5fff */
#define E1000_TX_BUF        0x10000
#define E1000_AUTONEG_NS    500000000LL
/* A TSO frame: what a driver makes (64 KiB), in at most 1,024 segments. */
#define E1000_TSO_MAX_BYTES 0x10000
#define E1000_TSO_MAX_SEGS  1024

/* How a register reads and writes beyond plain storage. */
enum {
    R = 1,          /* readable */
    W = 2,          /* writable as is */
    RW = R | W,
    RC = 4 | R,     /* reads clear it */
    RC8 = 8 | R,    /* high half of a 64-bit counter: clears both */
    SPECIAL = 16,   /* e1000_{read,write}_special */
};

static const struct {
    uint16_t reg;
    uint16_t words;
    uint8_t access;
} e1000_reg_rows[] = {
    { E1000_CTRL, 1, R | SPECIAL },     { E1000_STATUS, 1, R },
    { E1000_EECD, 1, SPECIAL },         { E1000_EERD, 1, SPECIAL },
    { E1000_CTRL_EXT, 1, RW },          { E1000_MDIC, 1, R | SPECIAL },
    { 0x0028, 3, RW },  /* FCAL, FCAH, FCT */
    { E1000_VET, 1, RW },
    { E1000_ICR, 1, SPECIAL },          { E1000_ITR, 1, R | SPECIAL },
    { E1000_ICS, 1, SPECIAL },          { E1000_IMS, 1, R | SPECIAL },
    { E1000_IMC, 1, SPECIAL },          { E1000_IAM, 1, RW },
    { E1000_RCTL, 1, R | SPECIAL },
    { 0x0170, 1, RW },  /* FCTTV */
    { 0x0178, 1, RW },  /* TXCW */
    { 0x0180, 1, R },   /* RXCW */
    { E1000_TCTL, 1, R | SPECIAL },     { E1000_TIPG, 1, RW },
    { E1000_LEDCTL, 1, RW },            { E1000_PBA, 1, RW },
    { 0x2160, 1, RW },  /* FCRTL */
    { 0x2168, 1, RW },  /* FCRTH */
    { E1000_RDBAL, 2, RW },             { E1000_RDLEN, 1, R | SPECIAL },
    { E1000_RDH, 1, R | SPECIAL },      { E1000_RDT, 1, R | SPECIAL },
    { E1000_RDTR, 1, R | SPECIAL },     { E1000_RXDCTL, 1, RW },
    { E1000_RADV, 1, R | SPECIAL },
    { 0x2c00, 1, RW },  /* RSRPD */
    { 0x3000, 1, RW },  /* TXDMAC */
    { E1000_TDBAL, 2, RW },             { E1000_TDLEN, 1, R | SPECIAL },
    { E1000_TDH, 1, R | SPECIAL },      { E1000_TDT, 1, R | SPECIAL },
    { E1000_TIDV, 1, RW },              { E1000_TXDCTL, 1, RW },
    { E1000_TADV, 1, R | SPECIAL },
    { E1000_STATS, (E1000_STATS_END - E1000_STATS) / 4, R },
    { E1000_PRC64, 6, RC },             { E1000_GPRC, 4, RC },
    { E1000_GORCH, 1, RC8 },            { E1000_GOTCH, 1, RC8 },
    { 0x40a4, 1, RC },  /* RUC */
    { E1000_ROC, 1, RC },
    { E1000_TORH, 1, RC8 },             { E1000_TOTH, 1, RC8 },
    { E1000_TPR, 2, RC },               { E1000_PTC64, 6, RC },
    { E1000_MPTC, 3, RC },
    { E1000_RXCSUM, 1, RW },
    { E1000_MTA, 128, RW },             { E1000_RA, 32, R | SPECIAL },
    { E1000_VFTA, 128, RW },            { E1000_WUC, 1, RW },
    { 0x5808, 1, RW },  /* WUFC */
    { 0x5810, 1, RW },  /* WUS */
    { E1000_MANC, 1, RW },
    { 0x5838, 1, RW },  /* IPAV */
    { 0x5840, 7, RW },  /* IP4AT */
    { 0x5880, 4, RW },  /* IP6AT */
    { 0x5a00, 32, RW }, /* WUPM */
    { 0x5f00, 7, RW },  /* FFLT */
};

/* e1000_reg_rows by word, filled once (later rows win). */
static uint8_t e1000_reg_access[E1000_REG_WORDS];

typedef struct E1000TxProps {
    uint8_t ipcss, ipcso, tucss, tucso, hdr_len;
    uint16_t ipcse, tucse, mss;
    uint32_t paylen;
    bool ip, tcp;
} E1000TxProps;

typedef struct E1000State {
    PCIDevice parent;
    /* Properties. */
    char *mac_str;
    char *netdev;
    int32_t bootindex;
    bool autoneg;
    bool mitigation;            /* accepted; interrupts are not delayed */
    bool extra_mac_regs;        /* accepted; all registers are there */
    bool migrate_tso;           /* accepted; TSO state always migrates */
    bool init_vet;              /* VET = 0x8100 at reset */
    MemoryRegion mmio, io;
    NetClientState *nc;
    uint8_t conf_mac[ETH_ALEN];
    QEMUTimer *autoneg_timer;
    /* The guest's view. */
    uint32_t regs[E1000_REG_WORDS];
    uint16_t phy[E1000_PHY_REGS];
    uint16_t eeprom[E1000_EEPROM_WORDS];
    uint32_t ioaddr;
    /* Microwire: pins last written, bits shifted in, read position. */
    uint32_t ee_pins;
    uint32_t ee_in;
    uint16_t ee_bits_in;
    uint16_t ee_pos;            /* bit of the 64x16 array DO shows */
    bool ee_reading;
    /* The frame being gathered from transmit descriptors. */
    E1000TxProps props, tso_props;
    uint8_t tx_sum_needed;      /* POPTS of the frame's first data desc. */
    bool tx_tse;                /* its data descriptors ask for TSO */
    bool tx_vlan;
    uint8_t tx_vlan_tag[4];
    uint16_t tso_frames;        /* segments sent of the TSO frame */
    uint32_t tx_size;
    uint8_t tx_header[256];     /* a TSO frame's headers, per segment */
    /* 4 spare bytes in front make room for a VLAN tag. */
    uint8_t tx_frame[4 + E1000_TX_BUF];
    bool tx_busy;
} E1000State;

#define REG(s, r)   ((s)->regs[(r) / 4])
#define TX_DATA(s)  ((s)->tx_frame + 4)

static void e1000_reg_access_init(void)
{
    if (e1000_reg_access[E1000_CTRL / 4]) {
        return;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(e1000_reg_rows); i++) {
        for (unsigned w = 0; w < e1000_reg_rows[i].words; w++) {
            e1000_reg_access[e1000_reg_rows[i].reg / 4 + w] =
                e1000_reg_rows[i].access;
        }
    }
}

/* --- interrupts and statistics --- */

static void e1000_update_irq(E1000State *s)
{
    pci_set_irq(&s->parent, (REG(s, E1000_ICR) & REG(s, E1000_IMS)) != 0);
}

static void e1000_set_ics(E1000State *s, uint32_t causes)
{
    REG(s, E1000_ICR) |= causes;
    e1000_update_irq(s);
}

static void stat_inc(E1000State *s, unsigned reg)
{
    if (REG(s, reg) != UINT32_MAX) {
        REG(s, reg)++;
    }
}

/* A 64-bit counter in two registers, low first; saturates too. */
static void stat_add64(E1000State *s, unsigned low, uint64_t n)
{
    uint64_t v = REG(s, low) | (uint64_t)REG(s, low + 4) << 32;

    v = v + n < v ? UINT64_MAX : v + n;
    REG(s, low) = v;
    REG(s, low + 4) = v >> 32;
}

/* The size histogram of 64, 65-127, ..., 1024+ byte frames (with FCS). */
static void stat_size(E1000State *s, unsigned first, size_t len)
{
    static const size_t top[] = { 64, 127, 255, 511, 1023 };
    unsigned i = 0;

    if (len < 64) {
        return;
    }
    while (i < G_N_ELEMENTS(top) && len > top[i]) {
        i++;
    }
    stat_inc(s, first + 4 * i);
}

/* --- link and PHY --- */

static void e1000_link_down(E1000State *s)
{
    REG(s, E1000_STATUS) &= ~E1000_STATUS_LU;
    s->phy[MII_BMSR] &= ~(MII_BMSR_LINK_ST | MII_BMSR_AN_COMP);
    s->phy[MII_ANLPAR] &= ~MII_ANLPAR_ACK;
}

static void e1000_link_up(E1000State *s)
{
    REG(s, E1000_STATUS) |= E1000_STATUS_LU;
    s->phy[MII_BMSR] |= MII_BMSR_LINK_ST;
    if (s->nc) {
        qemu_flush_queued_packets(s->nc);
    }
}

static bool e1000_has_autoneg(E1000State *s)
{
    return s->autoneg && (s->phy[MII_BMCR] & MII_BMCR_AUTOEN);
}

static void e1000_restart_autoneg(E1000State *s)
{
    e1000_link_down(s);
    timer_mod(s->autoneg_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              E1000_AUTONEG_NS);
}

static void e1000_autoneg_done(void *opaque)
{
    E1000State *s = opaque;

    if (s->nc && s->nc->link_down) {
        return;
    }
    s->phy[MII_ANLPAR] |= MII_ANLPAR_ACK;
    s->phy[MII_BMSR] |= MII_BMSR_AN_COMP;
    e1000_link_up(s);
    e1000_set_ics(s, E1000_ICR_LSC);
}

static void e1000_link_status_changed(NetClientState *nc)
{
    E1000State *s = nc->opaque;
    uint32_t old = REG(s, E1000_STATUS);

    if (nc->link_down) {
        timer_del(s->autoneg_timer);
        e1000_link_down(s);
    } else if (e1000_has_autoneg(s) && !(s->phy[MII_BMSR] & MII_BMSR_AN_COMP)) {
        e1000_restart_autoneg(s);
    } else {
        e1000_link_up(s);
    }
    if (REG(s, E1000_STATUS) != old) {
        e1000_set_ics(s, E1000_ICR_LSC);
    }
}

/* Which PHY registers a driver may read (1) or also write (2). */
static const uint8_t e1000_phy_access[E1000_PHY_REGS] = {
    [MII_BMCR] = 2, [MII_BMSR] = 1, [MII_PHYID1] = 1, [MII_PHYID2] = 1,
    [MII_ANAR] = 2, [MII_ANLPAR] = 1, [MII_ANER] = 1, [MII_CTRL1000] = 2,
    [MII_STAT1000] = 1, [M88_PHY_SPEC_CTRL] = 2, [M88_PHY_SPEC_STATUS] = 1,
    [M88_EXT_PHY_SPEC_CTRL] = 2, [M88_RX_ERR_CNTR] = 1,
};

static void e1000_write_mdic(E1000State *s, uint32_t val)
{
    unsigned phy = (val >> E1000_MDIC_PHY_SHIFT) & 0x1f;
    unsigned reg = (val >> E1000_MDIC_REG_SHIFT) & 0x1f;
    uint16_t data = val & E1000_MDIC_DATA;

    if (phy != E1000_PHY_ADDR) {
        val = REG(s, E1000_MDIC) | E1000_MDIC_ERROR;
    } else if (val & E1000_MDIC_OP_READ) {
        if (!e1000_phy_access[reg]) {
            val |= E1000_MDIC_ERROR;
        } else {
            val = (val & ~E1000_MDIC_DATA) | s->phy[reg];
        }
    } else if (val & E1000_MDIC_OP_WRITE) {
        if (e1000_phy_access[reg] != 2) {
            val |= E1000_MDIC_ERROR;
        } else if (reg == MII_BMCR) {
            /* Reset and restart clear themselves; bits 0-5 reserved. */
            s->phy[reg] = data & ~(0x3f | MII_BMCR_RESET |
                                   MII_BMCR_ANRESTART);
            if (e1000_has_autoneg(s) && (data & MII_BMCR_ANRESTART)) {
                e1000_restart_autoneg(s);
            }
        } else {
            s->phy[reg] = data;
        }
    }
    REG(s, E1000_MDIC) = val | E1000_MDIC_READY;
    if (val & E1000_MDIC_INT_EN) {
        e1000_set_ics(s, E1000_ICR_MDAC);
    }
}

/* --- EEPROM --- */

/*
 * Microwire: with CS high, each rising SK edge shifts DI in; after the
 * start bit, the 2-bit opcode and 6 address bits, a READ shows the
 * addressed word's bits on DO from the next falling edge on, MSB first,
 * running on into the following words.
 */
static uint32_t e1000_read_eecd(E1000State *s)
{
    uint32_t v = E1000_EECD_PRES | E1000_EECD_GNT | s->ee_pins;
    uint16_t word = s->eeprom[(s->ee_pos >> 4) % E1000_EEPROM_WORDS];

    if (!s->ee_reading || (word >> (15 - (s->ee_pos & 15))) & 1) {
        v |= E1000_EECD_DO;
    }
    return v;
}

static void e1000_write_eecd(E1000State *s, uint32_t val)
{
    uint32_t old = s->ee_pins;

    s->ee_pins = val & (E1000_EECD_SK | E1000_EECD_CS | E1000_EECD_DI |
                        E1000_EECD_FWE | E1000_EECD_REQ);
    if (!(val & E1000_EECD_CS)) {
        return;
    }
    if (!(old & E1000_EECD_CS)) {
        s->ee_in = 0;
        s->ee_bits_in = 0;
        s->ee_pos = 0;
        s->ee_reading = false;
    }
    if (!((val ^ old) & E1000_EECD_SK)) {
        return;
    }
    if (!(val & E1000_EECD_SK)) {
        s->ee_pos++;
        return;
    }
    s->ee_in = s->ee_in << 1 | !!(val & E1000_EECD_DI);
    if (++s->ee_bits_in == 9 && !s->ee_reading) {
        /* The falling edge after the last address bit shows bit 15. */
        s->ee_pos = ((s->ee_in & 0x3f) << 4) - 1;
        s->ee_reading = ((s->ee_in >> 6) & 7) == E1000_EEPROM_READ_OP;
    }
}

static uint32_t e1000_read_eerd(E1000State *s)
{
    uint32_t v = REG(s, E1000_EERD);
    unsigned addr = (v >> E1000_EERD_ADDR_SHIFT) & 0xff;

    if (!(v & E1000_EERD_START)) {
        return v;
    }
    v &= ~E1000_EERD_START;
    if (addr >= E1000_EEPROM_WORDS) {
        return v | E1000_EERD_DONE;
    }
    return (v & 0xffff) | E1000_EERD_DONE |
           (uint32_t)s->eeprom[addr] << E1000_EERD_DATA_SHIFT;
}

/*
 * The EEPROM image (8254x manual, tables 5-2 and 5-3) QEMU gives its
 * e1000: words 0-2 get the MAC, 11 and 13 the device ID, 63 the
 * checksum.
 */
static const uint16_t e1000_eeprom_image[E1000_EEPROM_WORDS] = {
    [4] = 0xffff,
    [8] = 0x3000, [9] = 0x1000, [10] = 0x6403, [12] = 0x8086,
    [14] = 0x8086, [15] = 0x3040, [16] = 0x0008, [17] = 0x2000,
    [18] = 0x7e14, [19] = 0x0048, [20] = 0x1000, [21] = 0x00d8,
    [23] = 0x2700, [24] = 0x6cc9, [25] = 0x3150, [26] = 0x0722,
    [27] = 0x040b, [28] = 0x0984, [30] = 0xc000, [31] = 0x0706,
    [32] = 0x1008, [34] = 0x0f04, [35] = 0x7fff, [36] = 0x4d01,
    [37 ... 47] = 0xffff,
    [48] = 0x0100, [49] = 0x4000, [50] = 0x121c,
    [51 ... 62] = 0xffff,
};

static void e1000_eeprom_init(E1000State *s)
{
    uint16_t sum = 0;

    memcpy(s->eeprom, e1000_eeprom_image, sizeof(s->eeprom));
    for (int i = 0; i < 3; i++) {
        s->eeprom[i] = s->conf_mac[2 * i] | s->conf_mac[2 * i + 1] << 8;
    }
    s->eeprom[11] = s->eeprom[13] = E1000_DEVICE_ID;
    for (int i = 0; i < E1000_EEPROM_CHECKSUM; i++) {
        sum += s->eeprom[i];
    }
    s->eeprom[E1000_EEPROM_CHECKSUM] = E1000_EEPROM_SUM - sum;
}

/* --- guest memory --- */

/*
 * DMA to or from guest RAM only: a descriptor or buffer anywhere else
 * (a device, a hole, across the end of a RAM range) is a guest error,
 * never a device access that could come back into this one.
 */
static bool e1000_dma(E1000State *s, uint64_t addr, void *buf, size_t len,
                      bool is_write)
{
    if (!len) {
        return true;
    }
    if (addr + len < addr ||
        !address_space_ram_ptr(&address_space_memory, addr, len)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e1000: DMA of %zu bytes at 0x%"
                      G_GINT64_MODIFIER "x outside RAM\n", len, addr);
        if (!is_write) {
            memset(buf, 0, len);
        }
        return false;
    }
    return pci_dma_rw(&s->parent, addr, buf, len, is_write);
}

static uint64_t le_get(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    while (n--) {
        v = v << 8 | p[n];
    }
    return v;
}

static void le_put(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
}

static uint32_t be_get(const uint8_t *p, unsigned n)
{
    uint32_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        v = v << 8 | p[i];
    }
    return v;
}

static void be_put(uint8_t *p, uint32_t v, unsigned n)
{
    while (n--) {
        p[n] = v;
        v >>= 8;
    }
}

/*
 * A ring's descriptor count, or 0 when the ring is unusable: no length,
 * or head or tail past its end (the driver's nonsense, logged).
 */
static uint32_t e1000_ring_count(E1000State *s, unsigned len_reg,
                                 unsigned head_reg, unsigned tail_reg)
{
    uint32_t n = REG(s, len_reg) / E1000_DESC_SIZE;

    if (n && (REG(s, head_reg) >= n || REG(s, tail_reg) >= n)) {
        qemu_log_mask(LOG_GUEST_ERROR, "e1000: ring of %u descriptors, "
                      "head %u, tail %u\n", n, REG(s, head_reg),
                      REG(s, tail_reg));
        return 0;
    }
    return n;
}

static uint64_t e1000_ring_base(E1000State *s, unsigned bal)
{
    return ((uint64_t)REG(s, bal + 4) << 32 | REG(s, bal)) & ~0xfULL;
}

/* --- receive --- */

static uint32_t e1000_rx_buf_size(uint32_t rctl)
{
    static const uint32_t sizes[2][4] = {
        { 2048, 1024, 512, 256 }, { 2048, 16384, 8192, 4096 },
    };

    return sizes[!!(rctl & E1000_RCTL_BSEX)][(rctl >> E1000_RCTL_SZ_SHIFT)
                                              & 3];
}

/* Free receive descriptors: from head up to (not including) tail. */
static uint32_t e1000_rx_free(E1000State *s)
{
    uint32_t n = e1000_ring_count(s, E1000_RDLEN, E1000_RDH, E1000_RDT);
    uint32_t head = REG(s, E1000_RDH), tail = REG(s, E1000_RDT);

    if (!n) {
        return 0;
    }
    return tail >= head ? tail - head : n - head + tail;
}

static bool e1000_rx_ready(E1000State *s)
{
    return (REG(s, E1000_STATUS) & E1000_STATUS_LU) &&
           (REG(s, E1000_RCTL) & E1000_RCTL_EN) &&
           (pci_get_word(s->parent.config + PCI_COMMAND) &
            PCI_COMMAND_MASTER);
}

static bool e1000_rx_filter(E1000State *s, const uint8_t *buf)
{
    static const unsigned mta_shift[] = { 4, 3, 2, 0 };
    uint32_t rctl = REG(s, E1000_RCTL);
    unsigned bit;

    if (be_get(buf + 12, 2) == REG(s, E1000_VET) &&
        (rctl & E1000_RCTL_VFE)) {
        unsigned vid = be_get(buf + 14, 2) & 0xfff;

        if (!(REG(s, E1000_VFTA + 4 * (vid >> 5)) & (1u << (vid & 31)))) {
            return false;
        }
    }
    if (!memcmp(buf, "\xff\xff\xff\xff\xff\xff", ETH_ALEN)) {
        if (rctl & E1000_RCTL_BAM) {
            return true;
        }
    } else if (buf[0] & 1) {
        if (rctl & E1000_RCTL_MPE) {
            return true;
        }
    } else if (rctl & E1000_RCTL_UPE) {
        return true;
    }
    for (unsigned i = 0; i < 16; i++) {
        uint8_t ra[8];

        if (!(REG(s, E1000_RA + 8 * i + 4) & E1000_RAH_AV)) {
            continue;
        }
        le_put(ra, REG(s, E1000_RA + 8 * i), 4);
        le_put(ra + 4, REG(s, E1000_RA + 8 * i + 4), 4);
        if (!memcmp(buf, ra, ETH_ALEN)) {
            return true;
        }
    }
    bit = ((buf[4] | buf[5] << 8) >> mta_shift[(rctl >> E1000_RCTL_MO_SHIFT)
                                                & 3]) & 0xfff;
    return REG(s, E1000_MTA + 4 * (bit >> 5)) & (1u << (bit & 31));
}

static bool e1000_rx_oversized(E1000State *s, size_t len)
{
    uint32_t rctl = REG(s, E1000_RCTL);

    if (rctl & E1000_RCTL_SBP) {
        return false;
    }
    /* 1500 bytes of payload with a VLAN tag; 16 KiB less FCS with LPE. */
    return len > 16384 - 4 || (len > 1522 && !(rctl & E1000_RCTL_LPE));
}

static void e1000_rx_overrun(E1000State *s)
{
    stat_inc(s, E1000_RNBC);
    stat_inc(s, E1000_MPC);
    e1000_set_ics(s, E1000_ICR_RXO);
}

/*
 * Write one frame (buf, len: at least ETH_ZLEN) into the descriptors
 * from RDH on; fcs bytes more are counted in the lengths as the device
 * would (SECRC clear), without being written.
 */
static void e1000_rx_write(E1000State *s, const uint8_t *buf, size_t len,
                           uint16_t vlan_tci, bool vlan)
{
    uint32_t n = REG(s, E1000_RDLEN) / E1000_DESC_SIZE;
    uint32_t bufsize = e1000_rx_buf_size(REG(s, E1000_RCTL));
    size_t fcs = REG(s, E1000_RCTL) & E1000_RCTL_SECRC ? 0 : 4;
    size_t total = len + fcs, done = 0;
    uint32_t free_after, threshold;
    uint32_t causes = E1000_ICR_RXT0;

    while (done < total) {
        uint64_t desc_addr = e1000_ring_base(s, E1000_RDBAL) +
                             (uint64_t)REG(s, E1000_RDH) * E1000_DESC_SIZE;
        uint8_t d[E1000_DESC_SIZE];
        size_t chunk = MIN(total - done, bufsize);
        uint64_t addr;

        if (!e1000_dma(s, desc_addr, d, sizeof(d), false)) {
            return;
        }
        addr = le_get(d, 8);
        d[12] &= ~(E1000_RXD_STAT_DD | E1000_RXD_STAT_EOP);
        if (addr) {
            /* The buffer gets frame bytes; the FCS part is only counted. */
            size_t copy = done < len ? MIN(chunk, len - done) : 0;

            e1000_dma(s, addr, (uint8_t *)buf + done, copy, true);
            done += chunk;
            le_put(d + 8, chunk, 2);
            le_put(d + 10, 0, 2);
            d[13] = 0;
            if (done >= total) {
                d[12] |= E1000_RXD_STAT_EOP | E1000_RXD_STAT_IXSM;
            }
        }
        /* A descriptor without a buffer is skipped, as the manual says. */
        d[12] |= E1000_RXD_STAT_DD | (vlan ? E1000_RXD_STAT_VP : 0);
        le_put(d + 14, vlan_tci, 2);
        e1000_dma(s, desc_addr, d, sizeof(d), true);
        REG(s, E1000_RDH) = (REG(s, E1000_RDH) + 1) % n;
        if (REG(s, E1000_RDH) == REG(s, E1000_RDT) && done < total) {
            /* Only null-buffer descriptors were left. */
            e1000_rx_overrun(s);
            return;
        }
    }
    stat_size(s, E1000_PRC64, total);
    stat_inc(s, E1000_TPR);
    stat_inc(s, E1000_GPRC);
    stat_add64(s, E1000_TORL, len + 4);
    stat_add64(s, E1000_GORCL, len + 4);
    if (!memcmp(buf, "\xff\xff\xff\xff\xff\xff", ETH_ALEN)) {
        stat_inc(s, E1000_BPRC);
    } else if (buf[0] & 1) {
        stat_inc(s, E1000_MPRC);
    }
    /* Few free descriptors left (RCTL.RDMTS: 1/2, 1/4 or 1/8 of them). */
    free_after = e1000_rx_free(s);
    threshold = n >> (((REG(s, E1000_RCTL) >> E1000_RCTL_RDMTS_SHIFT) & 3) +
                      1);
    if (free_after <= threshold) {
        causes |= E1000_ICR_RXDMT0;
    }
    e1000_set_ics(s, causes);
}

static ssize_t e1000_receive(NetClientState *nc, const uint8_t *pkt,
                             size_t len)
{
    E1000State *s = nc->opaque;
    uint8_t small[ETH_ZLEN];
    uint8_t *copy = NULL;
    ssize_t taken = len;
    const uint8_t *buf = pkt;
    uint32_t bufsize = e1000_rx_buf_size(REG(s, E1000_RCTL));
    uint16_t tci = 0;
    bool vlan = false;
    size_t total;

    if (!e1000_rx_ready(s) || !e1000_rx_free(s)) {
        return 0;               /* waits at the netdev until RDT moves */
    }
    if (len < ETH_ZLEN) {
        memcpy(small, pkt, len);
        memset(small + len, 0, ETH_ZLEN - len);
        buf = small;
        len = ETH_ZLEN;
    }
    if (e1000_rx_oversized(s, len)) {
        stat_inc(s, E1000_ROC);
        return taken;
    }
    if (!e1000_rx_filter(s, buf)) {
        return taken;
    }
    if ((REG(s, E1000_CTRL) & E1000_CTRL_VME) &&
        be_get(buf + 12, 2) == REG(s, E1000_VET)) {
        /* Strip the tag: the MACs move up over it. */
        copy = g_memdup2(buf, len);
        tci = be_get(buf + 14, 2);
        memmove(copy + 4, copy, 2 * ETH_ALEN);
        buf = copy + 4;
        len -= 4;
        vlan = true;
    }
    total = len + (REG(s, E1000_RCTL) & E1000_RCTL_SECRC ? 0 : 4);
    if (total > (uint64_t)e1000_rx_free(s) * bufsize) {
        e1000_rx_overrun(s);
    } else {
        e1000_rx_write(s, buf, len, tci, vlan);
    }
    g_free(copy);
    return taken;
}

/* --- transmit --- */

/* Store the checksum of [css, end] at sloc (0 end: to the frame's end). */
static void e1000_put_csum(uint8_t *data, size_t size, unsigned sloc,
                           unsigned css, unsigned cse)
{
    size_t end = cse && cse < size ? cse + 1u : size;
    uint16_t sum;

    if (css >= end || sloc + 2 > end) {
        qemu_log_mask(LOG_GUEST_ERROR, "e1000: checksum at %u of [%u, %zu) "
                      "outside the frame\n", sloc, css, end);
        return;
    }
    sum = net_checksum_finish(net_checksum_add(0, data + css, end - css));
    be_put(data + sloc, sum ? sum : 0xffff, 2);
}

static void e1000_send(E1000State *s, const uint8_t *buf, size_t len)
{
    if (s->phy[MII_BMCR] & MII_BMCR_LOOPBACK) {
        e1000_receive(s->nc, buf, len);
    } else {
        qemu_send_packet(s->nc, buf, len);
    }
    if (!memcmp(buf, "\xff\xff\xff\xff\xff\xff", ETH_ALEN)) {
        stat_inc(s, E1000_BPTC);
    } else if (buf[0] & 1) {
        stat_inc(s, E1000_MPTC);
    }
    stat_size(s, E1000_PTC64, len + 4);
    stat_inc(s, E1000_TPT);
    stat_inc(s, E1000_GPTC);
    stat_add64(s, E1000_TOTL, len + 4);
    stat_add64(s, E1000_GOTCL, len + 4);
}

/* A TSO segment's headers: lengths, IP ID, sequence, flags, pseudo sum. */
static void e1000_tso_fixup(E1000State *s)
{
    const E1000TxProps *p = &s->tso_props;
    uint8_t *data = TX_DATA(s);
    uint32_t size = s->tx_size, sofar = s->tso_frames * p->mss;
    unsigned css = p->ipcss, tcss = p->tucss;
    uint32_t len;

    if (css + 6 <= size) {
        if (p->ip) {
            be_put(data + css + 2, size - css, 2);
            be_put(data + css + 4, be_get(data + css + 4, 2) + s->tso_frames,
                   2);
        } else {
            be_put(data + css + 4, size - css, 2);
        }
    }
    len = size > tcss ? size - tcss : 0;
    if (p->tcp && tcss + 14 <= size) {
        be_put(data + tcss + 4, be_get(data + tcss + 4, 4) + sofar, 4);
        if (p->paylen - sofar > p->mss) {
            data[tcss + 13] &= ~0x09;   /* PSH, FIN: the last one's */
        } else if (s->tso_frames) {
            stat_inc(s, E1000_TSCTC);
        }
    } else if (!p->tcp && tcss + 6 <= size) {
        be_put(data + tcss + 4, len, 2);
    }
    if ((s->tx_sum_needed & E1000_TXD_POPTS_TXSM) && p->tucso + 2u <= size) {
        /* The driver's pseudo-header sum leaves out the length. */
        uint32_t sum = be_get(data + p->tucso, 2) + len;

        be_put(data + p->tucso, (sum >> 16) + (sum & 0xffff), 2);
    }
    s->tso_frames++;
}

/* Send the gathered frame (or TSO segment) with its offloads done. */
static void e1000_tx_segment(E1000State *s)
{
    const E1000TxProps *p = s->tx_tse ? &s->tso_props : &s->props;
    uint8_t *data = TX_DATA(s);

    if (s->tx_tse) {
        e1000_tso_fixup(s);
    }
    if (s->tx_sum_needed & E1000_TXD_POPTS_TXSM) {
        e1000_put_csum(data, s->tx_size, p->tucso, p->tucss, p->tucse);
    }
    if (s->tx_sum_needed & E1000_TXD_POPTS_IXSM) {
        e1000_put_csum(data, s->tx_size, p->ipcso, p->ipcss, p->ipcse);
    }
    if (s->tx_vlan && s->tx_size >= 2 * ETH_ALEN) {
        /* The tag goes after the MACs: shift them into the spare bytes. */
        memmove(s->tx_frame, data, 2 * ETH_ALEN);
        memcpy(s->tx_frame + 2 * ETH_ALEN, s->tx_vlan_tag, 4);
        e1000_send(s, s->tx_frame, s->tx_size + 4);
        memmove(data, s->tx_frame, 2 * ETH_ALEN);
    } else if (s->tx_size) {
        e1000_send(s, data, s->tx_size);
    }
}

static void e1000_tx_context(E1000State *s, const uint8_t *d)
{
    uint32_t cmd = le_get(d + 8, 4);
    E1000TxProps p = {
        .ipcss = d[0], .ipcso = d[1], .ipcse = le_get(d + 2, 2),
        .tucss = d[4], .tucso = d[5], .tucse = le_get(d + 6, 2),
        .paylen = cmd & 0xfffff, .hdr_len = d[13], .mss = le_get(d + 14, 2),
        .ip = cmd & E1000_TXD_CMD_IP, .tcp = cmd & E1000_TXD_CMD_TCP,
    };

    if (cmd & E1000_TXD_CMD_TSE) {
        s->tso_props = p;
        s->tso_frames = 0;
    } else {
        s->props = p;
    }
}

/* Copy len bytes at addr into the frame, cut at its end. */
static void e1000_tx_gather(E1000State *s, uint64_t addr, uint32_t len)
{
    uint32_t room = E1000_TX_BUF - s->tx_size;

    if (len > room) {
        qemu_log_mask(LOG_GUEST_ERROR, "e1000: transmit frame over %u "
                      "bytes, cut\n", E1000_TX_BUF);
        len = room;
    }
    e1000_dma(s, addr, TX_DATA(s) + s->tx_size, len, false);
    s->tx_size += len;
}

/* TSO: cut the data into segments of headers plus mss bytes. */
static void e1000_tx_tso_gather(E1000State *s, uint64_t addr, uint32_t len)
{
    uint32_t hdr = s->tso_props.hdr_len;
    uint32_t seg = hdr + s->tso_props.mss;

    while (len) {
        uint32_t n;

        if (s->tx_size >= seg) {
            /* Bytes gathered before TSE was asked for: no room left. */
            qemu_log_mask(LOG_GUEST_ERROR, "e1000: TSO frame of %u bytes "
                          "already past header and mss\n", s->tx_size);
            return;
        }
        if (s->tso_frames >= E1000_TSO_MAX_SEGS ||
            (uint64_t)s->tso_frames * s->tso_props.mss >=
            E1000_TSO_MAX_BYTES) {
            /* Bounded work per frame, whatever its descriptors say. */
            qemu_log_mask(LOG_GUEST_ERROR, "e1000: TSO frame past %u "
                          "segments or %u bytes, cut\n", E1000_TSO_MAX_SEGS,
                          E1000_TSO_MAX_BYTES);
            return;
        }
        n = MIN(len, seg - s->tx_size);

        e1000_dma(s, addr, TX_DATA(s) + s->tx_size, n, false);
        if (s->tx_size < hdr && s->tx_size + n >= hdr) {
            memcpy(s->tx_header, TX_DATA(s), hdr);
        }
        s->tx_size += n;
        addr += n;
        len -= n;
        if (s->tx_size == seg) {
            e1000_tx_segment(s);
            memcpy(TX_DATA(s), s->tx_header, hdr);
            s->tx_size = hdr;
        }
    }
}

static void e1000_tx_desc(E1000State *s, const uint8_t *d)
{
    uint32_t lower = le_get(d + 8, 4);
    uint32_t type = lower & (E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_D);
    uint64_t addr = le_get(d, 8);
    uint32_t len;

    if (type == E1000_TXD_CMD_DEXT) {
        e1000_tx_context(s, d);
        return;
    }
    if (type == (E1000_TXD_CMD_DEXT | E1000_TXD_DTYP_D)) {
        len = lower & 0xfffff;
        if (!s->tx_size) {
            s->tx_sum_needed = d[13];
        }
        s->tx_tse = lower & E1000_TXD_CMD_TSE;
        if (s->tx_tse && (!s->tso_props.mss || s->tso_props.hdr_len +
                          s->tso_props.mss > E1000_TX_BUF)) {
            qemu_log_mask(LOG_GUEST_ERROR, "e1000: TSO with header %u and "
                          "mss %u ignored\n", s->tso_props.hdr_len,
                          s->tso_props.mss);
            s->tx_tse = false;
        }
    } else {
        /* Legacy: IC inserts the checksum of [CSS, end] at CSO. */
        len = lower & 0xffff;
        s->tx_tse = false;
        if (lower & E1000_TXD_CMD_IC) {
            s->props = (E1000TxProps) { .tucso = d[10], .tucss = d[13] };
            s->tx_sum_needed = E1000_TXD_POPTS_TXSM;
        } else if (!s->tx_size) {
            s->tx_sum_needed = 0;
        }
    }
    if ((REG(s, E1000_CTRL) & E1000_CTRL_VME) &&
        (lower & E1000_TXD_CMD_VLE) &&
        (s->tx_tse || (lower & E1000_TXD_CMD_EOP))) {
        s->tx_vlan = true;
        be_put(s->tx_vlan_tag, REG(s, E1000_VET), 2);
        be_put(s->tx_vlan_tag + 2, le_get(d + 14, 2), 2);
    }
    if (s->tx_tse) {
        e1000_tx_tso_gather(s, addr, len);
    } else {
        e1000_tx_gather(s, addr, len);
    }
    if (!(lower & E1000_TXD_CMD_EOP)) {
        return;
    }
    if (!(s->tx_tse && s->tx_size <= s->tso_props.hdr_len)) {
        e1000_tx_segment(s);
    }
    s->tx_size = 0;
    s->tx_sum_needed = 0;
    s->tx_tse = false;
    s->tx_vlan = false;
    s->tso_frames = 0;
}

/* Run the transmit ring from TDH to TDT. */
static void e1000_start_xmit(E1000State *s)
{
    uint32_t n, causes = E1000_ICR_TXQE;

    if (!(REG(s, E1000_TCTL) & E1000_TCTL_EN) || s->tx_busy) {
        return;
    }
    n = e1000_ring_count(s, E1000_TDLEN, E1000_TDH, E1000_TDT);
    if (!n) {
        return;
    }
    s->tx_busy = true;
    /* At most one lap: the head meets the tail within n steps. */
    for (uint32_t i = 0; i < n && REG(s, E1000_TDH) != REG(s, E1000_TDT);
         i++) {
        uint64_t desc_addr = e1000_ring_base(s, E1000_TDBAL) +
                             (uint64_t)REG(s, E1000_TDH) * E1000_DESC_SIZE;
        uint8_t d[E1000_DESC_SIZE];
        uint32_t lower;

        if (!e1000_dma(s, desc_addr, d, sizeof(d), false)) {
            break;
        }
        e1000_tx_desc(s, d);
        lower = le_get(d + 8, 4);
        if (lower & (E1000_TXD_CMD_RS | E1000_TXD_CMD_RPS)) {
            uint8_t status = d[12] | E1000_TXD_STAT_DD;

            /* Legacy and data descriptors: only DD of the status set. */
            status &= ~0x0e;
            e1000_dma(s, desc_addr + 12, &status, 1, true);
            causes |= E1000_ICR_TXDW;
        }
        REG(s, E1000_TDH) = (REG(s, E1000_TDH) + 1) % n;
        if (s->nc->paused && !s->tx_size) {
            break;              /* resume() goes on once the peer takes */
        }
    }
    s->tx_busy = false;
    e1000_set_ics(s, causes);
}

static void e1000_resume(NetClientState *nc)
{
    e1000_start_xmit(nc->opaque);
}

/* --- registers --- */

static void e1000_set_info_str(E1000State *s, const uint8_t *mac)
{
    qemu_set_info_str(s->nc, "model=e1000,macaddr=%02x:%02x:%02x:%02x:"
                      "%02x:%02x", mac[0], mac[1], mac[2], mac[3], mac[4],
                      mac[5]);
}

static uint32_t e1000_read_special(E1000State *s, unsigned reg)
{
    uint32_t v;

    switch (reg) {
    case E1000_EECD:
        return e1000_read_eecd(s);
    case E1000_EERD:
        return e1000_read_eerd(s);
    case E1000_ICR:
        v = REG(s, E1000_ICR);
        if (REG(s, E1000_CTRL_EXT) & E1000_CTRL_EXT_IAME) {
            REG(s, E1000_IMS) &= ~REG(s, E1000_IAM);
        }
        REG(s, E1000_ICR) = 0;
        e1000_update_irq(s);
        return v;
    case E1000_ICS:
        /* Write-only in the manual; reads give ICR as QEMU's do. */
        return REG(s, E1000_ICR);
    default:
        return 0;               /* IMC */
    }
}

static void e1000_write_special(E1000State *s, unsigned reg, uint32_t val)
{
    switch (reg) {
    case E1000_CTRL:
        REG(s, reg) = val & ~E1000_CTRL_RST;    /* self-clearing */
        break;
    case E1000_EECD:
        e1000_write_eecd(s, val);
        break;
    case E1000_EERD:
        REG(s, reg) = val;
        break;
    case E1000_MDIC:
        e1000_write_mdic(s, val);
        break;
    case E1000_ICR:
        REG(s, reg) &= ~val;
        e1000_update_irq(s);
        break;
    case E1000_ICS:
        e1000_set_ics(s, val);
        break;
    case E1000_IMS:
        REG(s, reg) |= val;
        e1000_update_irq(s);
        break;
    case E1000_IMC:
        REG(s, E1000_IMS) &= ~val;
        e1000_update_irq(s);
        break;
    case E1000_ITR:
    case E1000_RDTR:
    case E1000_RADV:
    case E1000_TADV:
        REG(s, reg) = val & 0xffff;
        break;
    case E1000_RCTL:
    case E1000_RDT:
        REG(s, reg) = reg == E1000_RDT ? val & 0xffff : val;
        if (e1000_rx_ready(s) && e1000_rx_free(s)) {
            qemu_flush_queued_packets(s->nc);
        }
        break;
    case E1000_RDH:
    case E1000_TDH:
        REG(s, reg) = val & 0xffff;
        break;
    case E1000_RDLEN:
    case E1000_TDLEN:
        REG(s, reg) = val & 0xfff80;
        break;
    case E1000_TCTL:
    case E1000_TDT:
        REG(s, reg) = reg == E1000_TDT ? val & 0xffff : val;
        e1000_start_xmit(s);
        break;
    default:
        if (reg >= E1000_RA && reg < E1000_RA + 0x80) {
            REG(s, reg) = val;
            if (reg == E1000_RA + 4) {
                uint8_t mac[8];

                le_put(mac, REG(s, E1000_RA), 4);
                le_put(mac + 4, REG(s, E1000_RA + 4), 4);
                e1000_set_info_str(s, mac);
            }
        }
        break;
    }
}

static uint32_t e1000_reg_read(E1000State *s, uint32_t reg)
{
    unsigned w = reg / 4;
    uint8_t a;
    uint32_t v;

    if (w >= E1000_REG_WORDS || !(a = e1000_reg_access[w])) {
        qemu_log_mask(LOG_UNIMP, "e1000: read of register 0x%x\n", reg);
        return 0;
    }
    if ((a & SPECIAL) && !(a & R)) {
        return e1000_read_special(s, reg & ~3u);
    }
    v = s->regs[w];
    if (a == RC) {
        s->regs[w] = 0;
    } else if (a == RC8) {
        s->regs[w] = s->regs[w - 1] = 0;
    }
    return v;
}

static void e1000_reg_write(E1000State *s, uint32_t reg, uint32_t val)
{
    unsigned w = reg / 4;
    uint8_t a = w < E1000_REG_WORDS ? e1000_reg_access[w] : 0;

    if (a & SPECIAL) {
        e1000_write_special(s, reg & ~3u, val);
    } else if (a & W) {
        s->regs[w] = val;
    } else {
        qemu_log_mask(LOG_UNIMP, "e1000: write of 0x%x to read-only or "
                      "unknown register 0x%x\n", val, reg);
    }
}

static uint64_t e1000_mmio_read(void *opaque, uint64_t addr, unsigned size)
{
    return e1000_reg_read(opaque, addr);
}

static void e1000_mmio_write(void *opaque, uint64_t addr, uint64_t val,
                             unsigned size)
{
    e1000_reg_write(opaque, addr, val);
}

static const MemoryRegionOps e1000_mmio_ops = {
    .read = e1000_mmio_read,
    .write = e1000_mmio_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

static uint64_t e1000_io_read(void *opaque, uint64_t addr, unsigned size)
{
    E1000State *s = opaque;

    switch (addr) {
    case E1000_IOADDR:
        return s->ioaddr;
    case E1000_IODATA:
        return e1000_reg_read(s, s->ioaddr & (E1000_MMIO_SIZE - 4));
    default:
        return 0;
    }
}

static void e1000_io_write(void *opaque, uint64_t addr, uint64_t val,
                           unsigned size)
{
    E1000State *s = opaque;

    switch (addr) {
    case E1000_IOADDR:
        s->ioaddr = val & (E1000_MMIO_SIZE - 4);
        break;
    case E1000_IODATA:
        e1000_reg_write(s, s->ioaddr, val);
        break;
    }
}

static const MemoryRegionOps e1000_io_ops = {
    .read = e1000_io_read,
    .write = e1000_io_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* --- the device --- */

static const uint16_t e1000_phy_reset[E1000_PHY_REGS] = {
    /* 1000 Mb/s full duplex, autonegotiation on. */
    [MII_BMCR] = 0x1140,
    /* Link up, autonegotiation able, not yet complete. */
    [MII_BMSR] = 0x794d,
    [MII_PHYID1] = 0x0141, [MII_PHYID2] = 0x0c20,
    [MII_ANAR] = 0x0de1, [MII_ANLPAR] = 0x01e0,
    [MII_CTRL1000] = 0x0e00, [MII_STAT1000] = 0x3c00,
    [M88_PHY_SPEC_CTRL] = 0x0360, [M88_PHY_SPEC_STATUS] = 0xac00,
    [M88_EXT_PHY_SPEC_CTRL] = 0x0d60,
};

static void e1000_reset(PCIDevice *d)
{
    E1000State *s = (E1000State *)d;

    timer_del(s->autoneg_timer);
    memcpy(s->phy, e1000_phy_reset, sizeof(s->phy));
    memset(s->regs, 0, sizeof(s->regs));
    REG(s, E1000_PBA) = 0x00100030;
    REG(s, E1000_LEDCTL) = 0x602;
    /* SWDPIN2, SWDPIN0, 1000 Mb/s, link up forced. */
    REG(s, E1000_CTRL) = 0x00140240;
    /* Link up, full duplex, 1000 Mb/s, GIO master enabled. */
    REG(s, E1000_STATUS) = 0x80080783;
    REG(s, E1000_MANC) = 0x00222300;
    if (s->init_vet) {
        REG(s, E1000_VET) = ETH_P_VLAN;
    }
    REG(s, E1000_RA) = le_get(s->conf_mac, 4);
    REG(s, E1000_RA + 4) = le_get(s->conf_mac + 4, 2) | E1000_RAH_AV;
    s->ioaddr = 0;
    s->ee_pins = s->ee_in = 0;
    s->ee_bits_in = s->ee_pos = 0;
    s->ee_reading = false;
    memset(&s->props, 0, sizeof(s->props));
    memset(&s->tso_props, 0, sizeof(s->tso_props));
    s->tx_sum_needed = 0;
    s->tx_tse = s->tx_vlan = false;
    s->tso_frames = 0;
    s->tx_size = 0;
    if (s->nc && s->nc->link_down) {
        e1000_link_down(s);
    }
    if (s->nc) {
        e1000_set_info_str(s, s->conf_mac);
    }
}

static const NetClientInfo e1000_net_info = {
    .type = "nic",
    .is_nic = true,
    .receive = e1000_receive,
    .resume = e1000_resume,
    .link_status_changed = e1000_link_status_changed,
};

/* Bus mastering turned on: frames that waited for it may come in. */
static void e1000_config_write(PCIDevice *d, uint32_t addr, uint32_t val,
                               unsigned len)
{
    E1000State *s = (E1000State *)d;

    pci_default_write_config(d, addr, val, len);
    if (addr <= PCI_COMMAND && addr + len > PCI_COMMAND &&
        e1000_rx_ready(s) && e1000_rx_free(s)) {
        qemu_flush_queued_packets(s->nc);
    }
}

static bool e1000_realize(PCIDevice *d, Error **errp)
{
    static unsigned count;
    E1000State *s = (E1000State *)d;
    NetClientState *peer = NULL;
    unsigned queues;
    char *name;

    if (s->mac_str) {
        if (!net_parse_macaddr(s->conf_mac, s->mac_str)) {
            error_setg(errp, "Property 'e1000.mac' doesn't take value '%s'",
                       s->mac_str);
            return false;
        }
    } else {
        /* The one QEMU picks, shown as the property's value as there. */
        qemu_macaddr_default(s->conf_mac);
        s->mac_str = g_strdup_printf("%02x:%02x:%02x:%02x:%02x:%02x",
                                     s->conf_mac[0], s->conf_mac[1],
                                     s->conf_mac[2], s->conf_mac[3],
                                     s->conf_mac[4], s->conf_mac[5]);
    }
    if (s->netdev) {
        peer = qemu_net_claim_netdev("e1000", s->netdev, &queues, errp);
        if (!peer) {
            return false;
        }
    }
    e1000_reg_access_init();
    d->config[PCI_CACHE_LINE_SIZE] = 0x10;
    d->config[PCI_INTERRUPT_PIN] = 1;
    memory_region_init_io(&s->mmio, "e1000-mmio", &e1000_mmio_ops, s,
                          E1000_MMIO_SIZE);
    memory_region_init_io(&s->io, "e1000-io", &e1000_io_ops, s,
                          E1000_IO_SIZE);
    pci_register_bar(d, 0, 0, &s->mmio);
    pci_register_bar(d, 1, PCI_BASE_ADDRESS_SPACE_IO, &s->io);
    e1000_eeprom_init(s);
    s->autoneg_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, e1000_autoneg_done,
                                    s);
    name = d->qdev.id ? g_strdup(d->qdev.id)
                      : g_strdup_printf("e1000.%u", count++);
    s->nc = qemu_new_net_client(&e1000_net_info, peer, name, s);
    g_free(name);
    e1000_reset(d);
    return true;
}

static void e1000_exit(PCIDevice *d)
{
    E1000State *s = (E1000State *)d;

    qemu_del_net_client(s->nc);
    s->nc = NULL;
    timer_free(s->autoneg_timer);
    s->autoneg_timer = NULL;
    memory_region_finalize(&s->mmio);
    memory_region_finalize(&s->io);
}

#define E1000_PROP_BOOL(n, f) \
    { .name = (n), .type = PROP_TYPE_BOOL, \
      .offset = offsetof(E1000State, f), .defval = true, \
      .description = "on/off" }

static const Property e1000_props[] = {
    { .name = "mac", .type = PROP_TYPE_STRING,
      .offset = offsetof(E1000State, mac_str),
      .description = "Ethernet 6-byte MAC Address, example: "
                     "52:54:00:12:34:56" },
    { .name = "netdev", .type = PROP_TYPE_STRING,
      .offset = offsetof(E1000State, netdev),
      .description = "ID of a netdev to use as a backend" },
    DEFINE_PROP_INT32("bootindex", E1000State, bootindex, -1),
    E1000_PROP_BOOL("autonegotiation", autoneg),
    E1000_PROP_BOOL("mitigation", mitigation),
    E1000_PROP_BOOL("extra_mac_registers", extra_mac_regs),
    E1000_PROP_BOOL("migrate_tso_props", migrate_tso),
    E1000_PROP_BOOL("init-vet", init_vet),
    PCI_DEVICE_PROPS,
    PROP_END,
};

/* --- migration --- */

static bool e1000_tx_check(void *opaque, const VMStateField *f,
                           Error **errp)
{
    E1000State *s = opaque;

    if (s->tx_size > E1000_TX_BUF) {
        error_setg(errp, "%u bytes of a frame in a buffer of %u",
                   s->tx_size, E1000_TX_BUF);
        return false;
    }
    if (s->tx_tse && (!s->tso_props.mss || s->tso_props.hdr_len +
                      s->tso_props.mss > E1000_TX_BUF)) {
        error_setg(errp, "TSO with header %u and mss %u",
                   s->tso_props.hdr_len, s->tso_props.mss);
        return false;
    }
    return true;
}

/*
 * The link follows the stream: up unless the source's was down, and
 * autonegotiation in progress goes on (its timer came with it).
 */
static bool e1000_post_load(void *opaque, unsigned version, Error **errp)
{
    E1000State *s = opaque;

    s->nc->link_down = !(REG(s, E1000_STATUS) & E1000_STATUS_LU) &&
                       !timer_pending(s->autoneg_timer);
    e1000_update_irq(s);
    return true;
}

static const VMStateDescription vmstate_e1000_tx_props = {
    .name = "e1000-tx-props",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(E1000TxProps, ipcss),
        VMSTATE_U8(E1000TxProps, ipcso),
        VMSTATE_U16(E1000TxProps, ipcse),
        VMSTATE_U8(E1000TxProps, tucss),
        VMSTATE_U8(E1000TxProps, tucso),
        VMSTATE_U16(E1000TxProps, tucse),
        VMSTATE_U32(E1000TxProps, paylen),
        VMSTATE_U8(E1000TxProps, hdr_len),
        VMSTATE_U16(E1000TxProps, mss),
        VMSTATE_BOOL(E1000TxProps, ip),
        VMSTATE_BOOL(E1000TxProps, tcp),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_e1000 = {
    .name = "e1000",
    .version = 1,
    .minimum_version = 1,
    .post_load = e1000_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(E1000State, parent, PCIDevice, vmstate_pci_device),
        VMSTATE_U32_ARRAY(E1000State, regs, E1000_REG_WORDS),
        VMSTATE_U16_ARRAY(E1000State, phy, E1000_PHY_REGS),
        VMSTATE_U16_ARRAY(E1000State, eeprom, E1000_EEPROM_WORDS),
        VMSTATE_U32(E1000State, ioaddr,
                    VMS_RANGE(0, E1000_MMIO_SIZE - 4)),
        VMSTATE_U32(E1000State, ee_pins),
        VMSTATE_U32(E1000State, ee_in),
        VMSTATE_U16(E1000State, ee_bits_in),
        VMSTATE_U16(E1000State, ee_pos),
        VMSTATE_BOOL(E1000State, ee_reading),
        VMSTATE_STRUCT(E1000State, props, E1000TxProps,
                       vmstate_e1000_tx_props),
        VMSTATE_STRUCT(E1000State, tso_props, E1000TxProps,
                       vmstate_e1000_tx_props),
        VMSTATE_U8(E1000State, tx_sum_needed),
        VMSTATE_BOOL(E1000State, tx_tse),
        VMSTATE_BOOL(E1000State, tx_vlan),
        VMSTATE_U8_ARRAY(E1000State, tx_vlan_tag, 4),
        VMSTATE_U16(E1000State, tso_frames),
        VMSTATE_U32(E1000State, tx_size, .check = e1000_tx_check),
        VMSTATE_BUFFER(E1000State, tx_header),
        VMSTATE_BUFFER(E1000State, tx_frame),
        VMSTATE_TIMER(E1000State, autoneg_timer),
        VMSTATE_END
    },
};

const PCIDeviceClass e1000_pci_device_class = {
    .parent = {
        .name = "e1000",
        .desc = "Intel Gigabit Ethernet",
        .category = "Network devices",
        .instance_size = sizeof(E1000State),
        .boot_suffix = "/ethernet-phy@0",
        .props = e1000_props,
        .user_creatable = true,
        .vmsd = &vmstate_e1000,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_INTEL,
    .device_id = E1000_DEVICE_ID,
    .revision = 0x03,
    .class_id = 0x0200,
    .romfile = "efi-e1000.rom",
    .realize = e1000_realize,
    .exit = e1000_exit,
    .reset = e1000_reset,
    .config_write = e1000_config_write,
};

DEVICE_CLASS_REGISTER(e1000_pci_device_class)
