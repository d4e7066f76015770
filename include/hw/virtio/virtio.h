/*
 * The virtio core (virtio 1.x): a device's status, features, config
 * space and split virtqueues; a transport (hw/virtio/virtio-pci.c)
 * carries them and signals interrupts. Guest memory is reached through
 * the memory API; nothing the guest writes into a ring is trusted: a
 * chain that loops, is out of order, overflows or points outside RAM
 * marks the device broken (NEEDS_RESET, logged under -d guest_errors)
 * and it does nothing more until the driver resets it.
 */
#ifndef HW_VIRTIO_VIRTIO_H
#define HW_VIRTIO_VIRTIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/timer.h"
#include "system/memory.h"

#define VIRTIO_CONFIG_S_ACKNOWLEDGE     0x01
#define VIRTIO_CONFIG_S_DRIVER          0x02
#define VIRTIO_CONFIG_S_DRIVER_OK       0x04
#define VIRTIO_CONFIG_S_FEATURES_OK     0x08
#define VIRTIO_CONFIG_S_NEEDS_RESET     0x40
#define VIRTIO_CONFIG_S_FAILED          0x80

#define VIRTIO_F_RING_INDIRECT_DESC     28
#define VIRTIO_F_RING_EVENT_IDX         29
#define VIRTIO_F_VERSION_1              32

#define VRING_DESC_F_NEXT               1
#define VRING_DESC_F_WRITE              2
#define VRING_DESC_F_INDIRECT           4
#define VRING_AVAIL_F_NO_INTERRUPT      1
#define VRING_USED_F_NO_NOTIFY          1

#define VIRTQUEUE_MAX_SIZE              1024
#define VIRTIO_NO_VECTOR                0xffff

#define VIRTIO_ID_NET                   1
#define VIRTIO_ID_BLOCK                 2
#define VIRTIO_ID_CONSOLE               3
#define VIRTIO_ID_RNG                   4
#define VIRTIO_ID_BALLOON               5

typedef struct VirtIODevice VirtIODevice;
typedef struct VirtQueue VirtQueue;

/* One guest buffer of a chain, in RAM: host pointer and guest address. */
typedef struct VirtQueueBuf {
    void *host;
    uint64_t addr;
    uint32_t len;
} VirtQueueBuf;

/* A popped chain: device-readable (out) buffers, then writable (in). */
typedef struct VirtQueueElement {
    unsigned index;             /* the head descriptor */
    unsigned out_num, in_num;
    VirtQueueBuf *out, *in;
} VirtQueueElement;

struct VirtQueue {
    VirtIODevice *vdev;
    uint16_t num;               /* size the driver set (0: unused) */
    uint16_t num_max;
    bool enabled;
    uint16_t vector;            /* MSI-X vector or VIRTIO_NO_VECTOR */
    uint64_t desc, avail, used;
    uint16_t last_avail_idx;
    uint16_t used_idx;
    uint16_t signalled_used;
    bool signalled_used_valid;
    /*
     * Chains popped and not yet pushed (held by the device). They are
     * the last popped: a migration stream carries the count and the
     * destination pops them again (virtio 1.x lets a device re-read
     * available buffers it has not used).
     */
    uint16_t inuse;
    /*
     * Chains popped since the last kick: at most num per kick, so a
     * driver whose rings overlap (each used entry re-publishing an
     * available one) cannot keep the device busy for ever.
     */
    unsigned popped;
    void (*handle_output)(VirtIODevice *vdev, VirtQueue *vq);
};

/* What a device provides (one const table per device type). */
typedef struct VirtioDeviceOps {
    uint16_t device_id;         /* VIRTIO_ID_* */
    size_t config_len;
    uint64_t features;          /* device-specific feature bits */
    void (*get_config)(VirtIODevice *vdev, uint8_t *config);
    void (*set_config)(VirtIODevice *vdev, const uint8_t *config);
    void (*reset)(VirtIODevice *vdev);
    /* The driver wrote a non-zero status, now stored (NULL: nothing). */
    void (*set_status)(VirtIODevice *vdev, uint8_t status);
} VirtioDeviceOps;

/* What the transport provides. */
typedef struct VirtioTransportOps {
    /* Signal vector (a queue's or the config's), or INTx. */
    void (*notify)(void *opaque, uint16_t vector);
} VirtioTransportOps;

struct VirtIODevice {
    const char *name;           /* for messages: "virtio-rng" */
    const VirtioDeviceOps *ops;
    void *opaque;               /* the device's state */
    const VirtioTransportOps *transport;
    void *transport_opaque;
    AddressSpace *as;           /* where rings and buffers live */
    uint8_t status;
    uint8_t isr;                /* bit 0 queue, bit 1 config change */
    uint8_t config_generation;
    bool broken;
    uint64_t host_features;
    uint64_t guest_features;
    uint16_t config_vector;
    uint8_t *config;
    VirtQueue *vq;
    unsigned nvqs;
    unsigned nvectors;          /* the transport's MSI-X vectors */
    /* After a migration: look at the queues once the guest runs. */
    QEMUTimer *resume_timer;
};

void virtio_init(VirtIODevice *vdev, const char *name,
                 const VirtioDeviceOps *ops, void *opaque, unsigned nvqs);
void virtio_cleanup(VirtIODevice *vdev);
/* Queue n with at most num_max entries, handled by handle_output. */
void virtio_add_queue(VirtIODevice *vdev, unsigned n, uint16_t num_max,
                      void (*handle_output)(VirtIODevice *, VirtQueue *));
void virtio_reset(VirtIODevice *vdev);
/* The driver writes the status (0: reset). */
void virtio_set_status(VirtIODevice *vdev, uint8_t status);
bool virtio_has_feature(const VirtIODevice *vdev, unsigned bit);
/* The driver kicked queue n. */
void virtio_queue_notify(VirtIODevice *vdev, unsigned n);
/* Read the config space into the cache (get_config), and write it. */
void virtio_config_read(VirtIODevice *vdev);
void virtio_config_written(VirtIODevice *vdev);
/* The device's config changed: a new generation, an interrupt. */
void virtio_notify_config(VirtIODevice *vdev);
/*
 * Mark the device broken: log under -d guest_errors, NEEDS_RESET for a
 * virtio 1 driver, config interrupt.
 */
void virtio_error(VirtIODevice *vdev, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

/*
 * The next available chain, or NULL (none, not ready, or broken, or
 * num chains popped in this pass).
 */
VirtQueueElement *virtqueue_pop(VirtQueue *vq);
/*
 * A pass starts with each kick; a device that pops outside
 * handle_output (host data arrived) starts its own pass with this.
 */
void virtqueue_new_pass(VirtQueue *vq);
void virtqueue_element_free(VirtQueueElement *elem);
/* Give back the chain popped last, unused (it is popped again next). */
void virtqueue_unpop(VirtQueue *vq, VirtQueueElement *elem);
/* Return elem with len bytes written into its in buffers; frees elem. */
void virtqueue_push(VirtQueue *vq, VirtQueueElement *elem, uint32_t len);
/* Interrupt the driver for vq unless it asked not to (event index). */
void virtio_notify(VirtIODevice *vdev, VirtQueue *vq);

/*
 * The core's migratable state (status, features, config generation and
 * vector, each queue's layout and indices), opaque a VirtIODevice, for
 * the transport's table. Loading checks what a driver could not have
 * set: queue sizes, rings outside RAM, an avail index more than a queue
 * ahead, vectors beyond the transport's, features not offered. After
 * loading, held chains are available again (last_avail_idx moves back
 * by inuse); the device pops them when it next looks.
 */
struct VMStateDescription;
extern const struct VMStateDescription vmstate_virtio;

/* Copy into an element's in buffers from offset; returns bytes copied. */
size_t virtqueue_buf_from(const VirtQueueBuf *bufs, unsigned n,
                          size_t offset, const void *src, size_t len);
/* Copy out of an element's out buffers from offset. */
size_t virtqueue_buf_to(const VirtQueueBuf *bufs, unsigned n,
                        size_t offset, void *dst, size_t len);

#endif
