/*
 * pciio: PCI devices as a driver sees them, for the accelerators' fast
 * paths (ioeventfd, irqfd, MSI routes under KVM).
 *   - scans bus 0 through ports 0xcf8/0xcfc, sizes and places every BAR
 *     of the devices it drives itself (there may be no firmware that
 *     did), enables decoding and bus mastering;
 *   - pci-testdev (1b36:0005): for each test of its MMIO and port BARs,
 *     WRITES writes of the test's data at the test's offset, the cycles
 *     per write, and the count the no-eventfd tests keep;
 *   - virtio-blk-pci (1af4:1042, modern): the virtio 1.x handshake, one
 *     queue of 8 entries on MSI-X vector 0 (to this CPU's LAPIC, IDT
 *     vector 0x50), then three requests, each awaited by its MSI-X
 *     interrupt: read sector 1 (which must start with "pciio sector 1"),
 *     write sector 0 with a pattern, read sector 0 back and compare;
 *     then with vector 0 masked a fourth request completes without an
 *     interrupt and leaves its pending bit, and unmasking delivers it.
 * The cycle counts vary; everything else is the same under every
 * accelerator. With loop=1 on the command line it then goes on for good
 * (a workload for migration, where pci-testdev may be absent): round N writes sector 2 with N's pattern
 * and reads it back, printing "pciio: round N ok" every 16 rounds, and
 * fails on a mismatch.
 */
#include "guest.h"

const char guest_name[] = "pciio";

#define WRITES              1000
#define VEC_VIRTIO          0x50
#define VEC_WAKEUP          0x41

#define PCI_ADDR            0xcf8
#define PCI_DATA            0xcfc
#define PCI_COMMAND         0x04
#define PCI_CMD_IO          0x1
#define PCI_CMD_MEM         0x2
#define PCI_CMD_MASTER      0x4
#define PCI_BAR0            0x10
#define PCI_CAP_PTR         0x34
#define PCI_CAP_VNDR        0x09
#define PCI_CAP_MSIX        0x11

/* Where this program places BARs (QEMU's PCI hole with -m 512M). */
#define MMIO_WINDOW         0xe0000000u
#define PIO_WINDOW          0xc000u

/* virtio 1.x, 4.1.4 */
#define VIRTIO_CAP_COMMON   1
#define VIRTIO_CAP_NOTIFY   2
#define VIRTIO_CAP_ISR      3
#define COMMON_DFSELECT     0x00
#define COMMON_DF           0x04
#define COMMON_GFSELECT     0x08
#define COMMON_GF           0x0c
#define COMMON_MSIX         0x10
#define COMMON_STATUS       0x14
#define COMMON_Q_SELECT     0x16
#define COMMON_Q_SIZE       0x18
#define COMMON_Q_MSIX       0x1a
#define COMMON_Q_ENABLE     0x1c
#define COMMON_Q_NOFF       0x1e
#define COMMON_Q_DESC       0x20
#define COMMON_Q_AVAIL      0x28
#define COMMON_Q_USED       0x30
#define S_ACK               1
#define S_DRIVER            2
#define S_DRIVER_OK         4
#define S_FEATURES_OK       8
#define NO_VECTOR           0xffff
#define QSIZE               8
#define DESC_F_NEXT         1
#define DESC_F_WRITE        2
#define BLK_T_IN            0
#define BLK_T_OUT           1

static uint32_t next_mmio = MMIO_WINDOW;
static uint32_t next_pio = PIO_WINDOW;
static volatile unsigned virtio_irqs;

static inline uint64_t rdtsc(void)
{
    uint32_t lo, hi;
    asm volatile("rdtsc" : "=a"(lo), "=d"(hi));
    return (uint64_t)hi << 32 | lo;
}

static uint32_t cfg_addr(unsigned dev, unsigned off)
{
    return 0x80000000u | dev << 11 | (off & 0xfc);
}
static uint32_t cfg_read32(unsigned dev, unsigned off)
{
    outl(PCI_ADDR, cfg_addr(dev, off));
    return inl(PCI_DATA);
}
static void cfg_write32(unsigned dev, unsigned off, uint32_t v)
{
    outl(PCI_ADDR, cfg_addr(dev, off));
    outl(PCI_DATA, v);
}
static uint8_t cfg_read8(unsigned dev, unsigned off)
{
    return cfg_read32(dev, off) >> (8 * (off & 3));
}

/* The first device on bus 0 with vendor:device id, or -1. */
static int pci_find(uint32_t id)
{
    for (unsigned dev = 0; dev < 32; dev++) {
        uint32_t v = cfg_read32(dev, 0);

        if (v == (id >> 16 | (id & 0xffff) << 16)) {
            return dev;
        }
    }
    return -1;
}

/*
 * Size and place every BAR of dev (I/O from PIO_WINDOW, memory from
 * MMIO_WINDOW, naturally aligned), then turn decoding and mastering on.
 */
static void pci_setup(unsigned dev, uint64_t bars[6])
{
    cfg_write32(dev, PCI_COMMAND, 0);
    for (unsigned i = 0; i < 6; i++) {
        unsigned off = PCI_BAR0 + 4 * i;
        uint32_t old = cfg_read32(dev, off), mask, size, base;
        bool io = old & 1, is64 = !io && (old & 6) == 4;

        bars[i] = 0;
        cfg_write32(dev, off, 0xffffffff);
        mask = cfg_read32(dev, off) & (io ? ~3u : ~15u);
        if (!mask) {
            continue;
        }
        size = ~mask + 1;
        if (io) {
            size &= 0xffff;
            base = (next_pio + size - 1) & ~(size - 1);
            next_pio = base + size;
        } else {
            base = (next_mmio + size - 1) & ~(size - 1);
            next_mmio = base + size;
        }
        cfg_write32(dev, off, base | (old & (io ? 3 : 15)));
        bars[i] = base;
        if (is64) {
            cfg_write32(dev, off + 4, 0);
            bars[++i] = 0;
        }
    }
    cfg_write32(dev, PCI_COMMAND, PCI_CMD_IO | PCI_CMD_MEM | PCI_CMD_MASTER);
}

/* --- pci-testdev ---------------------------------------------------------- */

#define HDR_TEST    0x00
#define HDR_WIDTH   0x01
#define HDR_OFFSET  0x04
#define HDR_DATA    0x08
#define HDR_COUNT   0x0c
#define HDR_NAME    0x10

static uint32_t hdr_read32(bool io, uint64_t base, unsigned off)
{
    return io ? inl(base + off) : mmio_read32(base + off);
}

static void testdev_run(bool io, uint64_t base)
{
    for (unsigned t = 0; t < 3; t++) {
        char name[32];
        uint32_t off, data, count;
        uint64_t t0, t1;

        if (io) {
            outb(base + HDR_TEST, t);
        } else {
            mmio_write8(base + HDR_TEST, t);
        }
        off = hdr_read32(io, base, HDR_OFFSET);
        data = hdr_read32(io, base, HDR_DATA);
        for (unsigned i = 0; i < sizeof(name); i += 4) {
            uint32_t w = hdr_read32(io, base, HDR_NAME + i);

            memcpy(name + i, &w, 4);
        }
        name[sizeof(name) - 1] = 0;
        t0 = rdtsc();
        for (unsigned i = 0; i < WRITES; i++) {
            if (io) {
                outb(base + off, data);
            } else {
                mmio_write8(base + off, data);
            }
        }
        t1 = rdtsc();
        count = hdr_read32(io, base, HDR_COUNT);
        printf("pciio: testdev %s: %u writes, count %u\n", name, WRITES,
               count);
        printf("pciio: cycles %s %lu per write\n", name,
               (t1 - t0) / WRITES);
        if (t == 0 && count != WRITES) {
            guest_fail("%s counted %u of %u writes", name, count, WRITES);
        }
    }
}

/* --- virtio-blk ------------------------------------------------------------ */

struct vring_desc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags, next;
};
struct blk_req {
    uint32_t type, reserved;
    uint64_t sector;
};

static struct vring_desc desc[QSIZE] __attribute__((aligned(4096)));
static struct {
    uint16_t flags, idx, ring[QSIZE], used_event;
} avail __attribute__((aligned(4096)));
static struct {
    uint16_t flags, idx;
    struct { uint32_t id, len; } ring[QSIZE];
    uint16_t avail_event;
} used __attribute__((aligned(4096)));
static struct blk_req req;
static uint8_t buf[512] __attribute__((aligned(512)));
static volatile uint8_t status;

typedef struct VirtioBlk {
    uint64_t common, notify, isr;
    uint64_t msix_entry, msix_pba;      /* vector 0's entry, the PBA */
    uint32_t notify_mult;
    uint16_t notify_off;
} VirtioBlk;

static void on_virtio(struct irq_frame *f)
{
    virtio_irqs++;
    lapic_eoi();
}

static void on_wakeup(struct irq_frame *f)
{
    lapic_eoi();
}

/* Find the vendor capabilities and MSI-X; program vector 0's entry. */
static void virtio_caps(unsigned dev, const uint64_t bars[6], VirtioBlk *vb)
{
    for (unsigned p = cfg_read8(dev, PCI_CAP_PTR); p; p = cfg_read8(dev, p + 1)) {
        uint8_t id = cfg_read8(dev, p);

        if (id == PCI_CAP_VNDR) {
            uint8_t type = cfg_read8(dev, p + 3), bar = cfg_read8(dev, p + 4);
            uint64_t at = bars[bar] + cfg_read32(dev, p + 8);

            if (type == VIRTIO_CAP_COMMON) {
                vb->common = at;
            } else if (type == VIRTIO_CAP_NOTIFY) {
                vb->notify = at;
                vb->notify_mult = cfg_read32(dev, p + 16);
            } else if (type == VIRTIO_CAP_ISR) {
                vb->isr = at;
            }
        } else if (id == PCI_CAP_MSIX) {
            uint32_t table = cfg_read32(dev, p + 4);
            uint32_t pba = cfg_read32(dev, p + 8);
            uint64_t entry = bars[table & 7] + (table & ~7u);
            uint32_t ctrl = cfg_read32(dev, p);

            vb->msix_entry = entry;
            vb->msix_pba = bars[pba & 7] + (pba & ~7u);
            mmio_write32(entry + 0, LAPIC_BASE | lapic_id() << 12);
            mmio_write32(entry + 4, 0);
            mmio_write32(entry + 8, VEC_VIRTIO);
            mmio_write32(entry + 12, 0);            /* unmasked */
            cfg_write32(dev, p, ctrl | 1u << 31);   /* MSI-X enable */
        }
    }
    if (!vb->common || !vb->notify) {
        guest_fail("virtio-blk: no common or notify capability");
    }
}

static void virtio_init(VirtioBlk *vb)
{
    uint64_t c = vb->common;
    uint16_t qmax;

    mmio_write8(c + COMMON_STATUS, 0);
    mmio_write8(c + COMMON_STATUS, S_ACK | S_DRIVER);
    mmio_write32(c + COMMON_DFSELECT, 1);
    if (!(mmio_read32(c + COMMON_DF) & 1)) {
        guest_fail("virtio-blk: no VIRTIO_F_VERSION_1");
    }
    mmio_write32(c + COMMON_GFSELECT, 0);
    mmio_write32(c + COMMON_GF, 0);
    mmio_write32(c + COMMON_GFSELECT, 1);
    mmio_write32(c + COMMON_GF, 1);
    mmio_write8(c + COMMON_STATUS, S_ACK | S_DRIVER | S_FEATURES_OK);
    if (!(mmio_read8(c + COMMON_STATUS) & S_FEATURES_OK)) {
        guest_fail("virtio-blk: features refused");
    }
    mmio_write16(c + COMMON_MSIX, NO_VECTOR);
    mmio_write16(c + COMMON_Q_SELECT, 0);
    qmax = mmio_read16(c + COMMON_Q_SIZE);
    if (qmax < QSIZE) {
        guest_fail("virtio-blk: queue 0 holds %u", qmax);
    }
    mmio_write16(c + COMMON_Q_SIZE, QSIZE);
    mmio_write16(c + COMMON_Q_MSIX, 0);
    if (mmio_read16(c + COMMON_Q_MSIX) != 0) {
        guest_fail("virtio-blk: MSI-X vector 0 refused");
    }
    mmio_write32(c + COMMON_Q_DESC, (uintptr_t)desc);
    mmio_write32(c + COMMON_Q_DESC + 4, 0);
    mmio_write32(c + COMMON_Q_AVAIL, (uintptr_t)&avail);
    mmio_write32(c + COMMON_Q_AVAIL + 4, 0);
    mmio_write32(c + COMMON_Q_USED, (uintptr_t)&used);
    mmio_write32(c + COMMON_Q_USED + 4, 0);
    vb->notify_off = mmio_read16(c + COMMON_Q_NOFF);
    mmio_write16(c + COMMON_Q_ENABLE, 1);
    mmio_write8(c + COMMON_STATUS,
                S_ACK | S_DRIVER | S_FEATURES_OK | S_DRIVER_OK);
}

/* Put a request of type on sector through buf in the ring and kick. */
static void blk_submit(VirtioBlk *vb, uint32_t type, uint64_t sector)
{
    req = (struct blk_req) { .type = type, .sector = sector };
    status = 0xff;
    desc[0] = (struct vring_desc) { (uintptr_t)&req, sizeof(req),
                                    DESC_F_NEXT, 1 };
    desc[1] = (struct vring_desc) { (uintptr_t)buf, sizeof(buf),
                                    DESC_F_NEXT |
                                    (type == BLK_T_IN ? DESC_F_WRITE : 0), 2 };
    desc[2] = (struct vring_desc) { (uintptr_t)&status, 1, DESC_F_WRITE, 0 };
    avail.ring[avail.idx % QSIZE] = 0;
    asm volatile("mfence" ::: "memory");
    avail.idx++;
    asm volatile("mfence" ::: "memory");
    mmio_write16(vb->notify + vb->notify_off * vb->notify_mult, 0);
}

/* Halt until the interrupt count moves from irqs, at most ~ms ms. */
static void wait_irq(unsigned irqs, int ms)
{
    for (int i = 0; i < ms && virtio_irqs == irqs; i++) {
        lapic_timer_oneshot(VEC_WAKEUP, 1000000);
        wait_for_interrupt();
    }
    lapic_timer_stop();
}

/* One request of type on sector through buf; waits for its interrupt. */
static void blk_request(VirtioBlk *vb, uint32_t type, uint64_t sector)
{
    unsigned irqs = virtio_irqs;
    uint16_t seen = used.idx;

    blk_submit(vb, type, sector);
    wait_irq(irqs, 2000);
    if (virtio_irqs == irqs) {
        guest_fail("virtio-blk: no MSI-X interrupt for a %s request",
                   type == BLK_T_IN ? "read" : "write");
    }
    if (used.idx != (uint16_t)(seen + 1) || status != 0) {
        guest_fail("virtio-blk: used index %u (was %u), status %u",
                   used.idx, seen, status);
    }
}

/* Sector 2 written and read back with round's pattern, for good. */
static void virtio_blk_loop(VirtioBlk *vb)
{
    for (uint32_t round = 1;; round++) {
        for (unsigned i = 0; i < sizeof(buf); i++) {
            buf[i] = round * 13 + i;
        }
        blk_request(vb, BLK_T_OUT, 2);
        memset(buf, 0, sizeof(buf));
        blk_request(vb, BLK_T_IN, 2);
        for (unsigned i = 0; i < sizeof(buf); i++) {
            if (buf[i] != (uint8_t)(round * 13 + i)) {
                guest_fail("virtio-blk: round %u: sector 2 byte %u reads "
                           "0x%x", round, i, buf[i]);
            }
        }
        if (round % 16 == 0) {
            printf("pciio: round %u ok\n", round);
        }
    }
}

static void virtio_blk_run(unsigned dev, bool loop)
{
    static const char sector1[] = "pciio sector 1";
    uint64_t bars[6];
    VirtioBlk vb = { 0 };

    pci_setup(dev, bars);
    virtio_caps(dev, bars, &vb);
    virtio_init(&vb);
    blk_request(&vb, BLK_T_IN, 1);
    if (memcmp(buf, sector1, sizeof(sector1) - 1)) {
        guest_fail("virtio-blk: sector 1 does not start with \"%s\"",
                   sector1);
    }
    printf("pciio: virtio-blk read sector 1: \"%s\"\n", sector1);
    for (unsigned i = 0; i < sizeof(buf); i++) {
        buf[i] = i * 7 + 3;
    }
    blk_request(&vb, BLK_T_OUT, 0);
    memset(buf, 0, sizeof(buf));
    blk_request(&vb, BLK_T_IN, 0);
    for (unsigned i = 0; i < sizeof(buf); i++) {
        if (buf[i] != (uint8_t)(i * 7 + 3)) {
            guest_fail("virtio-blk: sector 0 byte %u reads 0x%x", i, buf[i]);
        }
    }
    printf("pciio: virtio-blk wrote and read back sector 0\n");
    /* Masked: the request completes, the message waits in the PBA. */
    {
        unsigned irqs = virtio_irqs;
        uint16_t seen = used.idx;

        mmio_write32(vb.msix_entry + 12, 1);
        blk_submit(&vb, BLK_T_IN, 1);
        for (int i = 0; i < 2000 && used.idx == seen; i++) {
            lapic_udelay(1000);
        }
        wait_irq(irqs, 20);
        if (used.idx == seen || virtio_irqs != irqs ||
            !(mmio_read32(vb.msix_pba) & 1)) {
            guest_fail("virtio-blk: masked vector: used %u (was %u), %u "
                       "interrupts (was %u), PBA 0x%x", used.idx, seen,
                       virtio_irqs, irqs, mmio_read32(vb.msix_pba));
        }
        mmio_write32(vb.msix_entry + 12, 0);
        wait_irq(irqs, 2000);
        if (virtio_irqs != irqs + 1 || (mmio_read32(vb.msix_pba) & 1)) {
            guest_fail("virtio-blk: unmasked: %u interrupts (was %u), PBA "
                       "0x%x", virtio_irqs, irqs, mmio_read32(vb.msix_pba));
        }
        printf("pciio: virtio-blk masked vector: pending, then delivered "
               "on unmask\n");
    }
    printf("pciio: virtio-blk %u MSI-X interrupts\n", virtio_irqs);
    if (loop) {
        virtio_blk_loop(&vb);
    }
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    int testdev = pci_find(0x1b360005), blk = pci_find(0x1af41042);
    const char *cmdline = (mb->flags & MB_INFO_CMDLINE)
                          ? (const char *)(uintptr_t)mb->cmdline : "";
    const char *loop = cmdline_value(cmdline, "loop");
    bool forever = loop && loop[0] == '1';

    idt_set_handler(VEC_VIRTIO, on_virtio);
    idt_set_handler(VEC_WAKEUP, on_wakeup);
    /* The loop is for migration, which pci-testdev does not support. */
    if ((testdev < 0 && !forever) || blk < 0) {
        guest_fail("no pci-testdev (%d) or modern virtio-blk-pci (%d) on "
                   "bus 0", testdev, blk);
    }
    printf("pciio: pci-testdev at %02x.0, virtio-blk-pci at %02x.0\n",
           testdev, blk);
    if (testdev >= 0) {
        uint64_t bars[6];

        pci_setup(testdev, bars);
        testdev_run(false, bars[0]);
        testdev_run(true, bars[1]);
    }
    virtio_blk_run(blk, forever);
    guest_pass();
}
