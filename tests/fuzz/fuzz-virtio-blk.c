/*
 * libFuzzer target: virtio-blk's request parser (hw/virtio/virtio-blk.c)
 * on a real device over a real raw image (a memfd), with the rings in
 * guest RAM the input fills. The first bytes choose the queue size, the
 * negotiated features (indirect, event index, discard, write-zeroes,
 * flush) and where the rings lie; the rest is RAM: descriptors, headers
 * of every type, sectors, discard segments. Every request the device
 * starts is completed before the next input. A crash, leak, UB or hang
 * is a bug; IOERR, UNSUPP or a broken device is the expected answer.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "block/block.h"
#include "block/blockdev.h"
#include "hw/pci/pci.h"
#include "hw/qdev.h"
#include "hw/virtio/virtio-pci.h"
#include "qemu/option.h"
#include "system/memory.h"

#include "fuzz-vq.h"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define IMAGE_SIZE      (256 * 1024)

#define VIRTIO_BLK_F_FLUSH          9
#define VIRTIO_BLK_F_DISCARD        13
#define VIRTIO_BLK_F_WRITE_ZEROES   14

static uint8_t *ram;
static MemoryRegion ram_mr, pci_mem, pci_io;
static PCIBus bus;
static VirtIODevice *vdev;

static void setup(void)
{
    g_autofree char *path = NULL;
    g_autofree char *virtio_id = NULL;
    QemuOpts *opts;
    DeviceState *dev;
    Error *err = NULL;
    unsigned index = 0;
    int fd;

    ram = g_malloc0(RAM_SIZE);
    memory_region_init_ram_ptr(&ram_mr, "ram", RAM_SIZE, ram);
    g_assert_true(address_space_map_region(&address_space_memory, &ram_mr,
                                           RAM_BASE, NULL));
    memory_region_init_container(&pci_mem, "pci", UINT64_MAX);
    memory_region_init_container(&pci_io, "pci-io", 0x10000);
    pci_bus_init(&bus, "pci.0", &pci_mem, &pci_io);

    fd = memfd_create("fuzz-virtio-blk", MFD_CLOEXEC);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, IMAGE_SIZE), ==, 0);
    /* The drive opens its own descriptor of the memfd. */
    path = g_strdup_printf("file=/proc/self/fd/%d,format=raw,if=none,"
                           "id=d0", fd);
    opts = qemu_opts_parse(path, NULL, &err);
    g_assert_nonnull(opts);
    g_assert_true(drive_new(opts, &index, &virtio_id, &err));
    qemu_opts_free(opts);
    close(fd);

    dev = qdev_new("virtio-blk-pci", &err);
    g_assert_nonnull(dev);
    g_assert_true(qdev_prop_set(dev, "drive", "d0", &err));
    g_assert_true(qdev_realize(dev, &err));
    vdev = &((VirtIOPCIProxy *)dev)->vdev;
}

/* Ring addresses: in RAM (mostly) or where nothing is. */
static uint64_t ring_addr(uint8_t where, uint16_t offset)
{
    return (where & 3) == 0 ? 0xfff00000u + offset : RAM_BASE + offset;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VirtQueue *vq;

    if (!vdev) {
        setup();
    }
    if (size < 11) {
        return 0;
    }
    virtio_reset(vdev);
    memset(ram, 0, RAM_SIZE);
    memcpy(ram, data + 11, MIN(size - 11, RAM_SIZE));

    vq = &vdev->vq[0];
    vq->num = 1u << (1 + data[0] % 8);
    fuzz_vq_setup(vdev, vq, data, ring_addr);
    /* data[10]: the device's own features (flush, discard, zeroes). */
    if (data[10] & 1) {
        vdev->guest_features |= 1ULL << VIRTIO_BLK_F_FLUSH;
    }
    if (data[10] & 2) {
        vdev->guest_features |= 1ULL << VIRTIO_BLK_F_DISCARD;
    }
    if (data[10] & 4) {
        vdev->guest_features |= 1ULL << VIRTIO_BLK_F_WRITE_ZEROES;
    }
    vdev->guest_features &= vdev->host_features |
                            1ULL << VIRTIO_F_VERSION_1;
    virtio_queue_notify(vdev, 0);
    /* Each request completes (and pushes its chain) before the next. */
    blk_drain_all();
    return 0;
}
