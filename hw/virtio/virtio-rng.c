/*
 * virtio-rng-pci (virtio 1.x, 5.4): one queue of 8 entries; each chain's
 * device-writable buffers are filled with bytes from the host's
 * getrandom(). max-bytes per period (ms of virtual time) limits the rate
 * as QEMU's does; chains wait while the quota is used up. No config.
 */
#include <errno.h>
#include <sys/random.h>

#include "hw/virtio/virtio-pci.h"
#include "qemu/log.h"
#include "qemu/timer.h"

#define VIRTIO_RNG_QUEUE_SIZE   8
#define VIRTIO_RNG_VECTORS      2

typedef struct VirtIORngPCI {
    VirtIOPCIProxy proxy;
    uint64_t max_bytes;         /* "max-bytes" */
    uint32_t period_ms;         /* "period" */
    uint64_t quota;             /* bytes left in this period */
    QEMUTimer *rate_timer;      /* starts the next period */
} VirtIORngPCI;

static void rng_fill(void *buf, size_t len)
{
    uint8_t *p = buf;

    while (len) {
        ssize_t n = getrandom(p, len, 0);

        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            /* Not expected on Linux 3.17+; the guest gets zeros then. */
            qemu_log_mask(LOG_UNIMP, "virtio-rng: getrandom: %s\n",
                          g_strerror(errno));
            memset(p, 0, len);
            return;
        }
        p += n;
        len -= n;
    }
}

static void rng_handle(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIORngPCI *s = vdev->opaque;
    VirtQueueElement *elem;
    bool pushed = false;

    while (s->quota && (elem = virtqueue_pop(vq))) {
        size_t want = 0, done = 0;

        for (unsigned i = 0; i < elem->in_num; i++) {
            want += elem->in[i].len;
        }
        want = MIN(want, s->quota);
        while (done < want) {
            uint8_t buf[256];
            size_t n = MIN(sizeof(buf), want - done);

            rng_fill(buf, n);
            virtqueue_buf_from(elem->in, elem->in_num, done, buf, n);
            done += n;
        }
        s->quota -= done;
        virtqueue_push(vq, elem, done);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
    if (!s->quota && !timer_pending(s->rate_timer)) {
        timer_mod(s->rate_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  (int64_t)s->period_ms * 1000000);
    }
}

static void rng_next_period(void *opaque)
{
    VirtIORngPCI *s = opaque;

    s->quota = s->max_bytes;
    virtio_queue_notify(&s->proxy.vdev, 0);
}

static void rng_reset(VirtIODevice *vdev)
{
    VirtIORngPCI *s = vdev->opaque;

    s->quota = s->max_bytes;
    if (s->rate_timer) {
        timer_del(s->rate_timer);
    }
}

static const VirtioDeviceOps virtio_rng_ops = {
    .device_id = VIRTIO_ID_RNG,
    .reset = rng_reset,
};

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
    virtio_init(vdev, "virtio-rng", &virtio_rng_ops, s, 1);
    virtio_add_queue(vdev, 0, VIRTIO_RNG_QUEUE_SIZE, rng_handle);
    s->rate_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, rng_next_period, s);
    if (!virtio_pci_realize(&s->proxy, VIRTIO_RNG_VECTORS, errp)) {
        timer_free(s->rate_timer);
        virtio_cleanup(vdev);
        return false;
    }
    return true;
}

static void virtio_rng_pci_exit(PCIDevice *d)
{
    VirtIORngPCI *s = (VirtIORngPCI *)d;

    timer_free(s->rate_timer);
    s->rate_timer = NULL;
    virtio_pci_exit(&s->proxy);
}

static void virtio_rng_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIORngPCI *)d)->proxy);
}

static const Property virtio_rng_pci_props[] = {
    DEFINE_PROP_UINT64("max-bytes", VirtIORngPCI, max_bytes, INT64_MAX),
    DEFINE_PROP_UINT32("period", VirtIORngPCI, period_ms, 1 << 16),
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

const PCIDeviceClass virtio_rng_pci_device_class = {
    .parent = {
        .name = "virtio-rng-pci",
        .virtio_backend = "virtio-rng-device",
        .category = "Misc devices",
        .instance_size = sizeof(VirtIORngPCI),
        .props = virtio_rng_pci_props,
        .user_creatable = true,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = PCI_CLASS_OTHERS,
    .realize = virtio_rng_pci_realize,
    .exit = virtio_rng_pci_exit,
    .reset = virtio_rng_pci_reset,
};
