/*
 * pc-testdev: the test device kvm-unit-tests drives on x86.
 *
 *   port 0xe0-0xe3     32-bit scratch register; any access size at any
 *                      offset reads/writes those bytes (emulator tests of
 *                      in/out widths)
 *   port 0xe4-0xe7     "flush page": a write of a guest-physical address
 *                      revokes and restores the host mapping of that
 *                      page, so KVM must refault it (TLB/shadow page
 *                      tests); reads return the last value written
 *   port 0xe8-0xeb     the same scratch register, but the device only
 *                      takes bytes: wider accesses arrive split
 *   port 0x2000-0x2017 IRQ lines: a byte write of V to 0x2000+N sets ISA
 *                      IRQ N to (V != 0) (x86/ioapic.c)
 *   MMIO 0xff000000    64 KiB of scratch memory behind MMIO exits
 */
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hw/irq.h"
#include "hw/isa.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "system/memory.h"

#define TESTDEV_IOPORT      0xe0
#define TESTDEV_FLUSH       0xe4
#define TESTDEV_IOPORT_BYTE 0xe8
#define TESTDEV_IRQ         0x2000
#define TESTDEV_IRQ_LINES   24
#define TESTDEV_IOMEM       0xff000000ull
#define TESTDEV_IOMEM_LEN   0x10000
#define TESTDEV_PAGE_SIZE   4096

typedef struct PCTestdevState {
    DeviceState parent;
    MemoryRegion ioport;
    MemoryRegion flush;
    MemoryRegion ioport_byte;
    MemoryRegion irq;
    MemoryRegion iomem;
    uint32_t ioport_data;
    uint32_t flush_data;
    uint8_t iomem_buf[TESTDEV_IOMEM_LEN];
} PCTestdevState;

static uint32_t testdev_lane_mask(uint64_t addr, unsigned size)
{
    return (uint32_t)(UINT32_MAX >> (32 - size * 8)) << ((addr & 3) * 8);
}

static uint64_t testdev_ioport_read(void *opaque, uint64_t addr,
                                    unsigned size)
{
    PCTestdevState *s = opaque;

    return (s->ioport_data & testdev_lane_mask(addr, size)) >>
           ((addr & 3) * 8);
}

static void testdev_ioport_write(void *opaque, uint64_t addr, uint64_t value,
                                 unsigned size)
{
    PCTestdevState *s = opaque;
    uint32_t mask = testdev_lane_mask(addr, size);

    s->ioport_data = (s->ioport_data & ~mask) |
                     (((uint32_t)value << ((addr & 3) * 8)) & mask);
}

/* Unaligned accesses are allowed: the tests check in/out at odd ports. */
static const MemoryRegionOps testdev_ioport_ops = {
    .read = testdev_ioport_read,
    .write = testdev_ioport_write,
    .valid = { .min_access_size = 1, .max_access_size = 4,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static const MemoryRegionOps testdev_ioport_byte_ops = {
    .read = testdev_ioport_read,
    .write = testdev_ioport_write,
    .valid = { .min_access_size = 1, .max_access_size = 4,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

static uint64_t testdev_flush_read(void *opaque, uint64_t addr, unsigned size)
{
    PCTestdevState *s = opaque;

    return s->flush_data;
}

/*
 * Take the page away from the guest and give it back: KVM's MMU
 * notifier drops its mapping, so the next guest access faults it in
 * again. The contents stay (the pages themselves are not touched).
 */
static void testdev_flush_write(void *opaque, uint64_t addr, uint64_t value,
                                unsigned size)
{
    PCTestdevState *s = opaque;
    uint64_t gpa = value & ~(uint64_t)(TESTDEV_PAGE_SIZE - 1);
    MemoryRegion *mr = address_space_lookup(&address_space_memory, gpa);
    long host_page = sysconf(_SC_PAGESIZE);
    uint8_t *host;
    uintptr_t start;

    s->flush_data = value;
    if (!mr || !mr->ram || mr->readonly) {
        qemu_log_mask(LOG_GUEST_ERROR, "pc-testdev: flush of 0x%" PRIx64
                      ", which is not RAM\n", gpa);
        return;
    }
    host = address_space_ram_ptr(&address_space_memory, gpa,
                                 TESTDEV_PAGE_SIZE);
    if (!host || host_page <= 0) {
        return;
    }
    start = (uintptr_t)host & ~(uintptr_t)(host_page - 1);
    /* Guest RAM is mapped read-write; put it back exactly so. */
    if (mprotect((void *)start, host_page, PROT_NONE) == 0 &&
        mprotect((void *)start, host_page, PROT_READ | PROT_WRITE) != 0) {
        mprotect((void *)start, host_page, PROT_READ);
    }
}

static const MemoryRegionOps testdev_flush_ops = {
    .read = testdev_flush_read,
    .write = testdev_flush_write,
    .valid = { .min_access_size = 4, .max_access_size = 4 },
};

static uint64_t testdev_irq_read(void *opaque, uint64_t addr, unsigned size)
{
    return 0;
}

static void testdev_irq_write(void *opaque, uint64_t addr, uint64_t value,
                              unsigned size)
{
    qemu_irq irq = isa_get_irq(addr);

    if (!irq) {
        qemu_log_mask(LOG_GUEST_ERROR, "pc-testdev: no ISA IRQ %u\n",
                      (unsigned)addr);
        return;
    }
    qemu_set_irq(irq, value != 0);
}

static const MemoryRegionOps testdev_irq_ops = {
    .read = testdev_irq_read,
    .write = testdev_irq_write,
    .valid = { .min_access_size = 1, .max_access_size = 1 },
};

static uint64_t testdev_iomem_read(void *opaque, uint64_t addr, unsigned size)
{
    PCTestdevState *s = opaque;
    uint64_t value = 0;

    memcpy(&value, &s->iomem_buf[addr], size);
    return value;
}

static void testdev_iomem_write(void *opaque, uint64_t addr, uint64_t value,
                                unsigned size)
{
    PCTestdevState *s = opaque;

    memcpy(&s->iomem_buf[addr], &value, size);
}

static const MemoryRegionOps testdev_iomem_ops = {
    .read = testdev_iomem_read,
    .write = testdev_iomem_write,
    .valid = { .min_access_size = 1, .max_access_size = 8,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static void testdev_finalize(PCTestdevState *s)
{
    memory_region_finalize(&s->ioport);
    memory_region_finalize(&s->flush);
    memory_region_finalize(&s->ioport_byte);
    memory_region_finalize(&s->irq);
    memory_region_finalize(&s->iomem);
}

static bool testdev_realize(DeviceState *dev, Error **errp)
{
    PCTestdevState *s = (PCTestdevState *)dev;

    memory_region_init_io(&s->ioport, "pc-testdev-ioport",
                          &testdev_ioport_ops, s, 4);
    memory_region_init_io(&s->flush, "pc-testdev-flush-page",
                          &testdev_flush_ops, s, 4);
    memory_region_init_io(&s->ioport_byte, "pc-testdev-ioport-byte",
                          &testdev_ioport_byte_ops, s, 4);
    memory_region_init_io(&s->irq, "pc-testdev-irq-line", &testdev_irq_ops,
                          s, TESTDEV_IRQ_LINES);
    memory_region_init_io(&s->iomem, "pc-testdev-iomem", &testdev_iomem_ops,
                          s, TESTDEV_IOMEM_LEN);
    if (!isa_register_ioport(dev, &s->ioport, TESTDEV_IOPORT, errp) ||
        !isa_register_ioport(dev, &s->flush, TESTDEV_FLUSH, errp) ||
        !isa_register_ioport(dev, &s->ioport_byte, TESTDEV_IOPORT_BYTE,
                             errp) ||
        !isa_register_ioport(dev, &s->irq, TESTDEV_IRQ, errp) ||
        !address_space_map_region(&address_space_memory, &s->iomem,
                                  TESTDEV_IOMEM, errp)) {
        testdev_finalize(s);
        return false;
    }
    return true;
}

static void testdev_unrealize(DeviceState *dev)
{
    testdev_finalize((PCTestdevState *)dev);
}

const DeviceClass pc_testdev_device_class = {
    .name = "pc-testdev",
    .parent = "isa-device",
    .desc = "test device for kvm-unit-tests",
    .category = "Misc devices",
    .instance_size = sizeof(PCTestdevState),
    .user_creatable = true,
    .realize = testdev_realize,
    .unrealize = testdev_unrealize,
};

DEVICE_CLASS_REGISTER(pc_testdev_device_class)
