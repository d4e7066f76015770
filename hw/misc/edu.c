/*
 * edu: QEMU's educational PCI device (docs/specs/edu.rst in QEMU),
 * 1234:11e8 rev 0x10, class "other", INTA# and a one-vector 64-bit MSI
 * capability. Guest drivers and tests use it for INTx, MSI and DMA.
 *
 * BAR0, 1 MiB of registers (dword accesses; qword from 0x80 on):
 *   0x00 RO  identification 0x010000ed
 *   0x04 RW  liveness: reads back the bitwise inverse of what was written
 *   0x08 RW  factorial: a write of n stores n! (32 bits)
 *   0x20 RW  status: 0x01 computing (RO), 0x80 raise IRQ 0x01 after a
 *            factorial
 *   0x24 RO  interrupt status; 0x60 WO raise (ORs the value in);
 *   0x64 WO  acknowledge (clears the value's bits). The interrupt is
 *            MSI while enabled (one message per raise), else INTA#,
 *            asserted while the status is not zero.
 *   0x80 RW  DMA source, 0x88 destination, 0x90 count, 0x98 command:
 *            0x01 start, 0x02 direction (set: EDU to RAM), 0x04 raise
 *            IRQ 0x100 when done. The transfer runs 100 ms of virtual
 *            time after the start, between RAM and the device's 4 KiB
 *            buffer at 0x40000 of its own address space; addresses are
 *            masked by dma_mask. A transfer outside the buffer is
 *            dropped with a guest error (QEMU aborts there).
 * Factorials are computed at once, so status bit 0x01 is never seen.
 */
#include <inttypes.h>

#include "hw/pci/msi.h"
#include "hw/pci/pci.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/memory.h"

#define PCI_VENDOR_ID_QEMU      0x1234
#define PCI_DEVICE_ID_EDU       0x11e8

#define EDU_BAR_SIZE            (1 << 20)
#define EDU_ID                  0x010000edu
#define EDU_STATUS_COMPUTING    0x01
#define EDU_STATUS_IRQFACT      0x80
#define EDU_DMA_RUN             0x1
#define EDU_DMA_TO_RAM          0x2
#define EDU_DMA_IRQ             0x4
#define EDU_DMA_IRQ_VALUE       0x100
#define EDU_FACT_IRQ_VALUE      0x001
#define EDU_DMA_START           0x40000
#define EDU_DMA_SIZE            4096
#define EDU_DMA_DELAY_NS        100000000

enum {
    REG_ID = 0x00, REG_LIVENESS = 0x04, REG_FACT = 0x08, REG_STATUS = 0x20,
    REG_IRQ_STATUS = 0x24, REG_IRQ_RAISE = 0x60, REG_IRQ_ACK = 0x64,
    REG_DMA_SRC = 0x80, REG_DMA_DST = 0x88, REG_DMA_CNT = 0x90,
    REG_DMA_CMD = 0x98,
};

typedef struct EduState {
    PCIDevice parent;
    uint64_t dma_mask;          /* "dma_mask" */
    MemoryRegion mmio;
    QEMUTimer *dma_timer;
    uint32_t liveness;          /* as written; reads invert it */
    uint32_t fact;
    uint32_t status;
    uint32_t irq_status;
    uint64_t dma_src, dma_dst, dma_cnt, dma_cmd;
    uint8_t dma_buf[EDU_DMA_SIZE];
} EduState;

static void edu_raise_irq(EduState *s, uint32_t val)
{
    s->irq_status |= val;
    if (!s->irq_status) {
        return;
    }
    if (msi_enabled(&s->parent)) {
        msi_notify(&s->parent, 0);
    } else {
        pci_set_irq(&s->parent, 1);
    }
}

static void edu_lower_irq(EduState *s, uint32_t val)
{
    s->irq_status &= ~val;
    if (!s->irq_status && !msi_enabled(&s->parent)) {
        pci_set_irq(&s->parent, 0);
    }
}

static uint64_t *edu_dma_reg(EduState *s, uint64_t addr)
{
    uint64_t *const regs[] = {
        &s->dma_src, &s->dma_dst, &s->dma_cnt, &s->dma_cmd,
    };

    return regs[(addr - REG_DMA_SRC) / 8];
}

/* Sizes other than a dword (or a qword of the DMA block) read all ones. */
static bool edu_access_ok(uint64_t addr, unsigned size)
{
    return size == 4 || (size == 8 && addr >= REG_DMA_SRC);
}

static uint64_t edu_read(void *opaque, uint64_t addr, unsigned size)
{
    EduState *s = opaque;

    if (!edu_access_ok(addr, size)) {
        return UINT64_MAX;
    }
    switch (addr) {
    case REG_ID:
        return EDU_ID;
    case REG_LIVENESS:
        return ~s->liveness;
    case REG_FACT:
        return s->fact;
    case REG_STATUS:
        return s->status;
    case REG_IRQ_STATUS:
        return s->irq_status;
    case REG_DMA_SRC:
    case REG_DMA_DST:
    case REG_DMA_CNT:
    case REG_DMA_CMD:
        return *edu_dma_reg(s, addr);
    default:
        return size == 8 ? UINT64_MAX : UINT32_MAX;
    }
}

static void edu_write(void *opaque, uint64_t addr, uint64_t val,
                      unsigned size)
{
    EduState *s = opaque;

    if (!edu_access_ok(addr, size)) {
        return;
    }
    switch (addr) {
    case REG_LIVENESS:
        s->liveness = val;
        break;
    case REG_FACT: {
        uint32_t n = val, f = 1;

        while (n > 1) {
            f *= n--;
        }
        s->fact = f;
        if (s->status & EDU_STATUS_IRQFACT) {
            edu_raise_irq(s, EDU_FACT_IRQ_VALUE);
        }
        break;
    }
    case REG_STATUS:
        s->status = (s->status & ~EDU_STATUS_IRQFACT) |
                    (val & EDU_STATUS_IRQFACT);
        break;
    case REG_IRQ_RAISE:
        edu_raise_irq(s, val);
        break;
    case REG_IRQ_ACK:
        edu_lower_irq(s, val);
        break;
    case REG_DMA_SRC:
    case REG_DMA_DST:
    case REG_DMA_CNT:
        if (!(s->dma_cmd & EDU_DMA_RUN)) {
            *edu_dma_reg(s, addr) = val;
        }
        break;
    case REG_DMA_CMD:
        if ((val & EDU_DMA_RUN) && !(s->dma_cmd & EDU_DMA_RUN)) {
            s->dma_cmd = val;
            timer_mod(s->dma_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                      EDU_DMA_DELAY_NS);
        }
        break;
    }
}

static const MemoryRegionOps edu_ops = {
    .read = edu_read,
    .write = edu_write,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 8 },
};

/* The buffer offset of [addr, addr + len), or -1 outside it. */
static int64_t edu_buf_offset(uint64_t addr, uint64_t len)
{
    if (addr < EDU_DMA_START || len > EDU_DMA_SIZE ||
        addr - EDU_DMA_START > EDU_DMA_SIZE - len) {
        return -1;
    }
    return addr - EDU_DMA_START;
}

static void edu_dma_done(void *opaque)
{
    EduState *s = opaque;
    bool to_ram = s->dma_cmd & EDU_DMA_TO_RAM;
    uint64_t ram = (to_ram ? s->dma_dst : s->dma_src) & s->dma_mask;
    int64_t off = edu_buf_offset(to_ram ? s->dma_src : s->dma_dst,
                                 s->dma_cnt);

    if (off < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "edu: DMA of 0x%" PRIx64 " bytes "
                      "outside the buffer 0x%x-0x%x\n", s->dma_cnt,
                      EDU_DMA_START, EDU_DMA_START + EDU_DMA_SIZE - 1);
    } else {
        pci_dma_rw(&s->parent, ram, s->dma_buf + off, s->dma_cnt, to_ram);
    }
    s->dma_cmd &= ~EDU_DMA_RUN;
    if (s->dma_cmd & EDU_DMA_IRQ) {
        edu_raise_irq(s, EDU_DMA_IRQ_VALUE);
    }
}

static bool edu_realize(PCIDevice *d, Error **errp)
{
    EduState *s = (EduState *)d;

    d->config[PCI_INTERRUPT_PIN] = 1;
    if (!msi_init(d, 0x40, 1, true, false, errp)) {
        return false;
    }
    memory_region_init_io(&s->mmio, "edu-mmio", &edu_ops, s, EDU_BAR_SIZE);
    pci_register_bar(d, 0, 0, &s->mmio);
    s->dma_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, edu_dma_done, s);
    return true;
}

static void edu_exit(PCIDevice *d)
{
    EduState *s = (EduState *)d;

    timer_free(s->dma_timer);
    memory_region_finalize(&s->mmio);
}

static void edu_reset(PCIDevice *d)
{
    EduState *s = (EduState *)d;

    timer_del(s->dma_timer);
    s->liveness = 0xffffffff;
    s->fact = 0;
    s->status = 0;
    s->irq_status = 0;
    s->dma_src = s->dma_dst = s->dma_cnt = s->dma_cmd = 0;
}

static const Property edu_props[] = {
    DEFINE_PROP_UINT64("dma_mask", EduState, dma_mask, (1ULL << 28) - 1),
    PCI_DEVICE_PROPS,
    PROP_END,
};

const PCIDeviceClass edu_pci_device_class = {
    .parent = {
        .name = "edu",
        .category = "Misc devices",
        .instance_size = sizeof(EduState),
        .props = edu_props,
        .user_creatable = true,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_QEMU,
    .device_id = PCI_DEVICE_ID_EDU,
    .revision = 0x10,
    .class_id = PCI_CLASS_OTHERS,
    .realize = edu_realize,
    .exit = edu_exit,
    .reset = edu_reset,
};

DEVICE_CLASS_REGISTER(edu_pci_device_class)
