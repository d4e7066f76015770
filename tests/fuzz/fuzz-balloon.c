/*
 * libFuzzer target: virtio-balloon's page lists (hw/virtio/virtio-
 * balloon.c) through the virtqueue parser, on guest RAM the input fills.
 * Guest RAM here is a real RAM block (so inflated pages really are
 * discarded with madvise), next to RAM no block owns (as a ROM is), a
 * device region and nothing. The first bytes choose the queue's size,
 * features, rings and whether its chains are inflate, deflate or free
 * page report elements; every PFN and range the guest names must be
 * checked before anything is discarded. A crash, a leak, UB or a hang
 * is a bug; PFNs outside RAM are to be skipped.
 */
#include <string.h>

#include <glib.h>

#include "fuzz-vq.h"
#include "hw/virtio/virtio-balloon.h"
#include "system/memory.h"
#include "system/ramblock.h"

#define RAM_BASE        0x100000u       /* PFN 0x100 */
#define RAM_SIZE        0x40000u        /* 64 pages */
#define ROM_BASE        0x200000u
#define MMIO_BASE       0x300000u

static RAMBlock *ram_block;
static uint8_t rom[0x2000];
static MemoryRegion ram_mr, rom_mr, mmio_mr;
static unsigned kind;                   /* 0 inflate, 1 deflate, 2 report */

static const VirtioDeviceOps fuzz_ops = {
    .device_id = VIRTIO_ID_BALLOON,
};

static void handle(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtQueueElement *e;

    while ((e = virtqueue_pop(vq))) {
        uint64_t done = kind == 2 ? virtio_balloon_report(e)
                        : virtio_balloon_page_list(vdev->as, e, kind == 0);

        /* Whole pages only, and only of the RAM block. */
        g_assert(done % 4096 == 0);
        virtqueue_push(vq, e, 0);
        virtio_notify(vdev, vq);
    }
}

static uint64_t ring_addr(uint8_t where, uint16_t offset)
{
    switch (where & 3) {
    case 0:
        return MMIO_BASE + (offset & 0xfff);
    case 1:
        return ROM_BASE + (offset & 0x1fff);
    default:
        return RAM_BASE + offset % RAM_SIZE;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VirtIODevice vdev = { 0 };

    if (!ram_block) {
        ram_block = ram_block_new("fuzz", -1, RAM_SIZE, 4096, 0, 0, NULL);
        g_assert(ram_block);
        memory_region_init_ram_ptr(&ram_mr, "ram", RAM_SIZE,
                                   ram_block->host);
        address_space_map_region(&address_space_memory, &ram_mr, RAM_BASE,
                                 NULL);
        memory_region_init_ram_ptr(&rom_mr, "rom", sizeof(rom), rom);
        address_space_map_region(&address_space_memory, &rom_mr, ROM_BASE,
                                 NULL);
        memory_region_init_io(&mmio_mr, "mmio", &fuzz_mmio_ops, NULL, 0x1000);
        address_space_map_region(&address_space_memory, &mmio_mr, MMIO_BASE,
                                 NULL);
    }
    if (size < FUZZ_VQ_HEADER) {
        return 0;
    }
    memset(ram_block->host, 0, RAM_SIZE);
    memcpy(ram_block->host, data + 10, MIN(size - 10, RAM_SIZE));
    memset(rom, 0, sizeof(rom));
    if (size > 10 + RAM_SIZE) {
        memcpy(rom, data + 10 + RAM_SIZE,
               MIN(size - 10 - RAM_SIZE, sizeof(rom)));
    }

    kind = (data[0] >> 4) % 3;
    virtio_init(&vdev, "fuzz-balloon", &fuzz_ops, NULL, 1);
    fuzz_vq_run(&vdev, data, 8, handle, ring_addr);
    virtio_cleanup(&vdev);
    return 0;
}
