/*
 * virtio-rng-pci (virtio 1.x, 5.4): one queue of 8 entries; each chain's
 * device-writable buffers are filled from the entropy backend rng=ID
 * (-object rng-random or rng-builtin; without rng=, a private
 * rng-builtin, as QEMU does). One chain is in flight at a time: it is
 * pushed when the backend answers, with what the backend gave.
 * max-bytes per period (ms of virtual time) limits the rate as QEMU's
 * does; chains wait while the quota is used up. No config.
 */
#include <inttypes.h>

#include "hw/virtio/virtio-pci.h"
#include "vmstate/vmstate.h"
#include "qemu/timer.h"
#include "system/rng.h"

#define VIRTIO_RNG_QUEUE_SIZE   8
#define VIRTIO_RNG_VECTORS      2

typedef struct VirtIORngPCI {
    VirtIOPCIProxy proxy;
    char *rng_id;               /* "rng" */
    uint64_t max_bytes;         /* "max-bytes" */
    uint32_t period_ms;         /* "period" */
    RngBackend *rng;
    bool own_rng;               /* the private rng-builtin */
    uint64_t quota;             /* bytes left in this period */
    QEMUTimer *rate_timer;      /* starts the next period */
    VirtQueueElement *elem;     /* waiting for the backend */
    bool pumping;
} VirtIORngPCI;

static void rng_pump(VirtIORngPCI *s);

static size_t elem_in_len(const VirtQueueElement *elem)
{
    size_t len = 0;

    for (unsigned i = 0; i < elem->in_num; i++) {
        len += elem->in[i].len;
    }
    return len;
}

static void rng_complete(VirtIORngPCI *s, const uint8_t *buf, size_t len)
{
    VirtQueue *vq = &s->proxy.vdev.vq[0];
    VirtQueueElement *elem = s->elem;

    s->elem = NULL;
    len = virtqueue_buf_from(elem->in, elem->in_num, 0, buf, len);
    s->quota -= MIN(len, s->quota);
    virtqueue_push(vq, elem, len);
    virtio_notify(&s->proxy.vdev, vq);
}

static void rng_receive(void *opaque, const uint8_t *buf, size_t len)
{
    VirtIORngPCI *s = opaque;

    rng_complete(s, buf, len);
    if (!s->pumping) {
        rng_pump(s);
    }
}

/* Hand the next chain to the backend while the quota lasts. */
static void rng_pump(VirtIORngPCI *s)
{
    VirtQueue *vq = &s->proxy.vdev.vq[0];

    s->pumping = true;
    while (!s->elem && s->quota && (s->elem = virtqueue_pop(vq))) {
        size_t want = MIN(elem_in_len(s->elem), s->quota);

        if (!want) {
            rng_complete(s, NULL, 0);
            continue;
        }
        rng_backend_request(s->rng, want, rng_receive, s);
    }
    s->pumping = false;
    if (!s->quota && !timer_pending(s->rate_timer)) {
        timer_mod(s->rate_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)s->period_ms * 1000000);
    }
}

static void rng_handle(VirtIODevice *vdev, VirtQueue *vq)
{
    rng_pump(vdev->opaque);
}

static void rng_next_period(void *opaque)
{
    VirtIORngPCI *s = opaque;

    s->quota = s->max_bytes;
    virtio_queue_notify(&s->proxy.vdev, 0);
}

/* A chain the backend still owes bytes to goes back unanswered. */
static void rng_drop_request(VirtIORngPCI *s)
{
    if (s->elem) {
        rng_backend_cancel(s->rng, s);
        virtqueue_element_free(s->elem);
        s->elem = NULL;
    }
}

static void rng_reset(VirtIODevice *vdev)
{
    VirtIORngPCI *s = vdev->opaque;

    s->quota = s->max_bytes;
    if (s->rate_timer) {
        timer_del(s->rate_timer);
    }
    if (s->rng) {
        rng_drop_request(s);
    }
}

static const VirtioDeviceOps virtio_rng_ops = {
    .device_id = VIRTIO_ID_RNG,
    .reset = rng_reset,
};

static void rng_release(VirtIORngPCI *s)
{
    rng_drop_request(s);
    if (s->own_rng) {
        rng_backend_free(s->rng);
    } else if (s->rng) {
        rng_backend_set_in_use(s->rng, false);
    }
    s->rng = NULL;
    s->own_rng = false;
}

static bool virtio_rng_pci_realize(PCIDevice *d, Error **errp)
{
    VirtIORngPCI *s = (VirtIORngPCI *)d;
    VirtIODevice *vdev = &s->proxy.vdev;

    if (!s->period_ms) {
        error_setg(errp, "'period' parameter expects a positive integer");
        return false;
    }
    if (s->max_bytes > INT64_MAX) {
        error_setg(errp, "'max-bytes' parameter must be non-negative, and "
                   "less than 2^63");
        return false;
    }
    if (s->rng_id) {
        s->rng = rng_backend_find(s->rng_id);
        if (!s->rng) {
            error_setg(errp, "Device '%s' not found", s->rng_id);
            return false;
        }
        rng_backend_set_in_use(s->rng, true);
    } else {
        s->rng = rng_backend_new_builtin();
        s->own_rng = true;
    }
    virtio_init(vdev, "virtio-rng", &virtio_rng_ops, s, 1);
    virtio_add_queue(vdev, 0, VIRTIO_RNG_QUEUE_SIZE, rng_handle);
    s->rate_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, rng_next_period, s);
    if (!virtio_pci_realize(&s->proxy, VIRTIO_RNG_VECTORS, errp)) {
        timer_free(s->rate_timer);
        virtio_cleanup(vdev);
        rng_release(s);
        return false;
    }
    return true;
}

static void virtio_rng_pci_exit(PCIDevice *d)
{
    VirtIORngPCI *s = (VirtIORngPCI *)d;

    timer_free(s->rate_timer);
    s->rate_timer = NULL;
    rng_release(s);
    virtio_pci_exit(&s->proxy);
}

static void virtio_rng_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIORngPCI *)d)->proxy);
}

static const Property virtio_rng_pci_props[] = {
    DEFINE_PROP_STRING("rng", VirtIORngPCI, rng_id),
    DEFINE_PROP_UINT64("max-bytes", VirtIORngPCI, max_bytes, INT64_MAX),
    DEFINE_PROP_UINT32("period", VirtIORngPCI, period_ms, 1 << 16),
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

static bool rng_quota_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    VirtIORngPCI *s = opaque;

    if (s->quota > s->max_bytes) {
        error_setg(errp, "%" PRIu64 " bytes left of a quota of %" PRIu64,
                   s->quota, s->max_bytes);
        return false;
    }
    return true;
}

/* A chain waiting for the backend is popped again on the destination. */
static const VMStateDescription vmstate_virtio_rng_pci = {
    .name = "virtio-rng-pci",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIORngPCI, proxy, VirtIOPCIProxy,
                       vmstate_virtio_pci),
        VMSTATE_U64(VirtIORngPCI, quota, .check = rng_quota_check),
        VMSTATE_TIMER(VirtIORngPCI, rate_timer),
        VMSTATE_END
    },
};

const PCIDeviceClass virtio_rng_pci_device_class = {
    .parent = {
        .name = "virtio-rng-pci",
        .virtio_backend = "virtio-rng-device",
        .category = "Misc devices",
        .instance_size = sizeof(VirtIORngPCI),
        .props = virtio_rng_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_virtio_rng_pci,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = PCI_CLASS_OTHERS,
    .realize = virtio_rng_pci_realize,
    .exit = virtio_rng_pci_exit,
    .reset = virtio_rng_pci_reset,
};

DEVICE_CLASS_REGISTER(virtio_rng_pci_device_class)
