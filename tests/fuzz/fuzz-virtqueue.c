/*
 * libFuzzer target: the split virtqueue parser (hw/virtio/virtio.c) on
 * guest RAM the input fills. The first bytes choose the queue size, the
 * negotiated ring features and where the three rings lie (in RAM, over
 * a device region, or where nothing is); the device then pops every
 * chain it is offered, writes its in buffers and pushes it back, as a
 * device would. A crash, a leak, UB or a hang is a bug; a broken device
 * is the expected answer to nonsense.
 */
#include <string.h>

#include <glib.h>

#include "fuzz-vq.h"
#include "hw/virtio/virtio.h"
#include "system/memory.h"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define MMIO_BASE       0x30000u

static uint8_t ram[RAM_SIZE];
static MemoryRegion ram_mr, mmio_mr;

static const VirtioDeviceOps fuzz_ops = {
    .device_id = VIRTIO_ID_RNG,
};

static void handle(VirtIODevice *vdev, VirtQueue *vq)
{
    static const uint8_t fill[512] = { [0 ... 511] = 0xa5 };
    VirtQueueElement *e;

    while ((e = virtqueue_pop(vq))) {
        size_t done = 0, n;
        uint8_t sink[64];

        virtqueue_buf_to(e->out, e->out_num, 0, sink, sizeof(sink));
        /*
         * A few KiB per chain: a chain may name its 64 KiB of RAM a
         * thousand times over, and copying gigabytes finds nothing.
         */
        while (done < 8 * sizeof(fill) &&
               (n = virtqueue_buf_from(e->in, e->in_num, done, fill,
                                       sizeof(fill)))) {
            done += n;
        }
        virtqueue_push(vq, e, done);
        virtio_notify(vdev, vq);
    }
}

/* Ring addresses: in RAM (mostly), over the device region, or nowhere. */
static uint64_t ring_addr(uint8_t where, uint16_t offset)
{
    switch (where & 3) {
    case 0:
        return MMIO_BASE + (offset & 0xfff);
    case 1:
        return 0xfff00000u + offset;
    default:
        return RAM_BASE + offset;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool mapped;
    VirtIODevice vdev = { 0 };

    if (!mapped) {
        memory_region_init_ram_ptr(&ram_mr, "ram", sizeof(ram), ram);
        address_space_map_region(&address_space_memory, &ram_mr, RAM_BASE,
                                 NULL);
        memory_region_init_io(&mmio_mr, "mmio", &fuzz_mmio_ops, NULL, 0x1000);
        address_space_map_region(&address_space_memory, &mmio_mr, MMIO_BASE,
                                 NULL);
        mapped = true;
    }
    if (size < FUZZ_VQ_HEADER) {
        return 0;
    }
    memset(ram, 0, sizeof(ram));
    memcpy(ram, data + 10, MIN(size - 10, sizeof(ram)));

    virtio_init(&vdev, "fuzz", &fuzz_ops, NULL, 1);
    fuzz_vq_run(&vdev, data, 11, handle, ring_addr);
    virtio_cleanup(&vdev);
    return 0;
}
