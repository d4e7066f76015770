/*
 * The fuzz targets' virtqueue from the input's first FUZZ_VQ_HEADER
 * bytes: size (1 << data[0] % max_order), ring features, where the
 * three rings lie (ring_addr(where, offset)) and the ring indices; then
 * the driver is ready and the queue is kicked once.
 */
#ifndef TESTS_FUZZ_FUZZ_VQ_H
#define TESTS_FUZZ_FUZZ_VQ_H

#include "hw/virtio/virtio.h"
#include "system/memory.h"

#define FUZZ_VQ_HEADER  10

/* A device region the rings may point into: reads 0x5a, ignores writes. */
static inline uint64_t fuzz_mmio_read(void *opaque, uint64_t addr,
                                      unsigned size)
{
    return 0x5a;
}

static inline void fuzz_mmio_write(void *opaque, uint64_t addr,
                                   uint64_t value, unsigned size)
{
}

static const MemoryRegionOps fuzz_mmio_ops = {
    .read = fuzz_mmio_read,
    .write = fuzz_mmio_write,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
};

/* Queue vq as data[1..9] say, and the driver ready (not kicked). */
static inline void fuzz_vq_setup(VirtIODevice *vdev, VirtQueue *vq,
                                 const uint8_t *data,
                                 uint64_t (*ring_addr)(uint8_t, uint16_t))
{
    vdev->guest_features = 1ULL << VIRTIO_F_VERSION_1;
    if (data[1] & 1) {
        vdev->guest_features |= 1ULL << VIRTIO_F_RING_INDIRECT_DESC;
    }
    if (data[1] & 2) {
        vdev->guest_features |= 1ULL << VIRTIO_F_RING_EVENT_IDX;
    }
    vq->desc = ring_addr(data[1] >> 2, data[2] | data[3] << 8);
    vq->avail = ring_addr(data[1] >> 4, data[4] | data[5] << 8);
    vq->used = ring_addr(data[1] >> 6, data[6] | data[7] << 8);
    vq->last_avail_idx = data[8];
    vq->used_idx = data[9];
    vq->enabled = true;
    vdev->status = VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
                   VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK;
}

static inline void fuzz_vq_run(VirtIODevice *vdev, const uint8_t *data,
                               unsigned max_order,
                               void (*handle)(VirtIODevice *, VirtQueue *),
                               uint64_t (*ring_addr)(uint8_t, uint16_t))
{
    virtio_add_queue(vdev, 0, 1u << (data[0] % max_order), handle);
    fuzz_vq_setup(vdev, &vdev->vq[0], data, ring_addr);
    virtio_queue_notify(vdev, 0);
}

#endif
