/*
 * pci-testdev: QEMU's PCI test device (docs/specs/pci-testdev.rst in
 * QEMU), 1b36:0005, class "other". Guest test suites time PIO and MMIO
 * exits with it.
 *
 * BAR0 is 4 KiB of memory, BAR1 256 ports; each starts with the header
 * of the selected test (little endian):
 *   0x00 test      write-only: a byte write of N selects test N of this
 *                  BAR (N >= 3 selects none: the header reads as 0)
 *   0x01 width     1: the access width of the test
 *   0x04 offset    where the test's write goes
 *   0x08 data      the value to write
 *   0x0c count     writes seen at offset (no-eventfd test only: QEMU
 *                  hands the other two to an ioeventfd)
 *   0x10 name      NUL-terminated: "mmio-no-eventfd", "portio-..."
 * Tests are numbered across both BARs (MMIO 0-2, port I/O 3-5); a BAR's
 * offset is half its size plus the test's number. With membar=SIZE,
 * BAR2 is a 64-bit prefetchable memory BAR of that size with nothing
 * behind it.
 *
 * Where the accelerator takes ioeventfds (KVM), each BAR's
 * wildcard-eventfd test (any byte) and datamatch-eventfd test (its data
 * byte) write an eventfd in the kernel as in QEMU, without an exit;
 * their counts are logged at exit under -d notify.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hw/pci/pci.h"
#include "qemu/log.h"
#include "system/cpus.h"
#include "system/memory.h"

#define PCI_DEVICE_ID_REDHAT_TEST   0x0005

#define IOTEST_MEMSIZE          4096
#define IOTEST_IOSIZE           256
#define IOTEST_TESTS_PER_BAR    3
#define IOTEST_NUM              (2 * IOTEST_TESTS_PER_BAR)
#define IOTEST_HDR_SIZE         0x30

#define HDR_TEST                0x00
#define HDR_WIDTH               0x01
#define HDR_OFFSET              0x04
#define HDR_DATA                0x08
#define HDR_COUNT               0x0c
#define HDR_NAME                0x10
#define TEST_EVENTFD_FIRST      1   /* wildcard, then datamatch */

typedef struct PCITestDevState {
    PCIDevice parent;
    uint64_t membar_size;       /* "membar" */
    MemoryRegion mmio;
    MemoryRegion portio;
    MemoryRegion membar;
    int current;                /* selected test, -1: none */
    /* [bar][test - 1]: the eventfd tests' fds, or -1 */
    int eventfd[2][IOTEST_TESTS_PER_BAR - TEST_EVENTFD_FIRST];
    uint8_t hdr[IOTEST_NUM][IOTEST_HDR_SIZE];
} PCITestDevState;

/* One row per test of a BAR: its name and data, and whether it counts. */
static const struct {
    const char *name;
    uint8_t data;
    bool counts;                /* the others go to an eventfd in QEMU */
} testdev_tests[IOTEST_TESTS_PER_BAR] = {
    { "no-eventfd", 0xfa, true },
    { "wildcard-eventfd", 0xce, false },
    { "datamatch-eventfd", 0xfa, false },
};

static void testdev_init_headers(PCITestDevState *s)
{
    memset(s->hdr, 0, sizeof(s->hdr));
    for (int i = 0; i < IOTEST_NUM; i++) {
        bool io = i >= IOTEST_TESTS_PER_BAR;
        int t = i % IOTEST_TESTS_PER_BAR;
        uint8_t *h = s->hdr[i];

        h[HDR_TEST] = i;
        h[HDR_WIDTH] = 1;
        pci_set_long(h + HDR_OFFSET,
                     (io ? IOTEST_IOSIZE : IOTEST_MEMSIZE) / 2 + i);
        pci_set_long(h + HDR_DATA, testdev_tests[t].data);
        g_snprintf((char *)h + HDR_NAME, IOTEST_HDR_SIZE - HDR_NAME, "%s-%s",
                   io ? "portio" : "mmio", testdev_tests[t].name);
    }
}

static uint64_t testdev_read(void *opaque, uint64_t addr, unsigned size)
{
    PCITestDevState *s = opaque;
    uint64_t v = 0;

    if (s->current < 0 || addr >= IOTEST_HDR_SIZE) {
        return 0;
    }
    for (unsigned i = 0; i < size && addr + i < IOTEST_HDR_SIZE; i++) {
        v |= (uint64_t)s->hdr[s->current][addr + i] << (8 * i);
    }
    return v;
}

static void testdev_write(PCITestDevState *s, int bar, uint64_t addr,
                          uint64_t value)
{
    uint8_t *h;

    if (addr == HDR_TEST) {
        s->current = (value & 0xff) < IOTEST_TESTS_PER_BAR
                     ? bar * IOTEST_TESTS_PER_BAR + (int)(value & 0xff) : -1;
        return;
    }
    if (s->current < 0) {
        return;
    }
    h = s->hdr[s->current];
    if (addr == pci_get_long(h + HDR_OFFSET) &&
        testdev_tests[s->current % IOTEST_TESTS_PER_BAR].counts) {
        pci_set_long(h + HDR_COUNT, pci_get_long(h + HDR_COUNT) + 1);
    }
}

static void testdev_mmio_write(void *opaque, uint64_t addr, uint64_t value,
                               unsigned size)
{
    testdev_write(opaque, 0, addr, value);
}

static void testdev_pio_write(void *opaque, uint64_t addr, uint64_t value,
                              unsigned size)
{
    testdev_write(opaque, 1, addr, value);
}

static const MemoryRegionOps testdev_mmio_ops = {
    .read = testdev_read,
    .write = testdev_mmio_write,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

/* Port accesses may be misaligned (QEMU takes them whole). */
static const MemoryRegionOps testdev_pio_ops = {
    .read = testdev_read,
    .write = testdev_pio_write,
    .valid = { .min_access_size = 1, .max_access_size = 4,
               .unaligned = true },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

/* Test t of bar (its region mr) as an ioeventfd: add, or del. */
static void testdev_eventfd(PCITestDevState *s, int bar, int t,
                            MemoryRegion *mr, bool add)
{
    uint64_t size = bar ? IOTEST_IOSIZE : IOTEST_MEMSIZE;
    uint64_t offset = size / 2 + bar * IOTEST_TESTS_PER_BAR + t;
    bool match = t == TEST_EVENTFD_FIRST + 1;
    int *fd = &s->eventfd[bar][t - TEST_EVENTFD_FIRST];
    uint64_t n = 0;

    if (add) {
        *fd = vcpus_has_ioeventfds()
              ? eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK) : -1;
        if (*fd >= 0) {
            memory_region_add_eventfd(mr, offset, 1, match,
                                      testdev_tests[t].data, *fd);
        }
        return;
    }
    if (*fd < 0) {
        return;
    }
    memory_region_del_eventfd(mr, offset, 1, match, testdev_tests[t].data,
                              *fd);
    if (read(*fd, &n, sizeof(n)) != sizeof(n)) {
        n = 0;
    }
    qemu_log_mask(LOG_NOTIFY, "notify: pci-testdev %02x.%x: %s-%s "
                  "%" PRIu64 " writes by ioeventfd\n",
                  PCI_SLOT(s->parent.devfn), PCI_FUNC(s->parent.devfn),
                  bar ? "portio" : "mmio", testdev_tests[t].name, n);
    close(*fd);
    *fd = -1;
}

static void testdev_eventfds(PCITestDevState *s, bool add)
{
    for (int t = TEST_EVENTFD_FIRST; t < IOTEST_TESTS_PER_BAR; t++) {
        testdev_eventfd(s, 0, t, &s->mmio, add);
        testdev_eventfd(s, 1, t, &s->portio, add);
    }
}

static bool testdev_realize(PCIDevice *d, Error **errp)
{
    PCITestDevState *s = (PCITestDevState *)d;

    if (s->membar_size & (s->membar_size - 1)) {
        error_setg(errp, "pci-testdev: membar size is not a power of 2");
        return false;
    }
    memory_region_init_io(&s->mmio, "pci-testdev-mmio", &testdev_mmio_ops, s,
                          IOTEST_MEMSIZE);
    memory_region_init_io(&s->portio, "pci-testdev-portio", &testdev_pio_ops,
                          s, IOTEST_IOSIZE);
    pci_register_bar(d, 0, 0, &s->mmio);
    pci_register_bar(d, 1, PCI_BASE_ADDRESS_SPACE_IO, &s->portio);
    testdev_eventfds(s, true);
    if (s->membar_size) {
        /* An empty container: accesses find nothing, as in QEMU. */
        memory_region_init_container(&s->membar, "pci-testdev-membar",
                                     s->membar_size);
        pci_register_bar(d, 2, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                         PCI_BASE_ADDRESS_MEM_PREFETCH, &s->membar);
    }
    return true;
}

static void testdev_exit(PCIDevice *d)
{
    PCITestDevState *s = (PCITestDevState *)d;

    testdev_eventfds(s, false);
    memory_region_finalize(&s->mmio);
    memory_region_finalize(&s->portio);
    if (s->membar_size) {
        memory_region_finalize(&s->membar);
    }
}

static void testdev_reset(PCIDevice *d)
{
    PCITestDevState *s = (PCITestDevState *)d;

    s->current = -1;
    testdev_init_headers(s);
}

static const Property testdev_props[] = {
    DEFINE_PROP_SIZE("membar", PCITestDevState, membar_size, 0),
    PCI_DEVICE_PROPS,
    PROP_END,
};

const PCIDeviceClass pci_testdev_pci_device_class = {
    .parent = {
        .name = "pci-testdev",
        .desc = "PCI Test Device",
        .category = "Misc devices",
        .instance_size = sizeof(PCITestDevState),
        .props = testdev_props,
        .user_creatable = true,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT,
    .device_id = PCI_DEVICE_ID_REDHAT_TEST,
    .class_id = PCI_CLASS_OTHERS,
    .realize = testdev_realize,
    .exit = testdev_exit,
    .reset = testdev_reset,
};

DEVICE_CLASS_REGISTER(pci_testdev_pci_device_class)
