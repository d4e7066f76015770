/*
 * The modern virtio-pci transport (virtio 1.x, 4.1), laid out as QEMU
 * 7.2 does with disable-legacy=on: BAR4 (64-bit, prefetchable, 16 KiB)
 * holds the common configuration at 0, the ISR at 0x1000, the device
 * configuration at 0x2000 and the notifications at 0x3000 (4 bytes per
 * queue); BAR1 holds the MSI-X table and PBA; vendor capabilities at
 * 0x40-0x84 and MSI-X at 0x98 point at them. The legacy (transitional)
 * interface is not offered: disable-legacy=auto means on.
 *
 * A virtio PCI device's state starts with VirtIOPCIProxy; its realize
 * calls virtio_pci_realize() after virtio_init() and adding its queues.
 */
#ifndef HW_VIRTIO_VIRTIO_PCI_H
#define HW_VIRTIO_VIRTIO_PCI_H

#include "hw/pci/pci.h"
#include "hw/virtio/virtio.h"

#define PCI_DEVICE_ID_VIRTIO_10_BASE    0x1040
#define VIRTIO_PCI_VECTORS_UNSPECIFIED  UINT32_MAX

typedef struct VirtIOPCIProxy VirtIOPCIProxy;

/* Queue queue's notify address as an eventfd (fd -1: none). */
typedef struct VirtIOPCIIoeventfd {
    VirtIOPCIProxy *proxy;
    unsigned queue;
    int fd;
    unsigned watch;             /* the main loop's source */
} VirtIOPCIIoeventfd;

struct VirtIOPCIProxy {
    PCIDevice pci;
    VirtIODevice vdev;
    /* Properties (VIRTIO_PCI_PROPS). */
    char *disable_legacy;       /* "auto", "on", "off" */
    bool disable_modern;
    uint32_t nvectors;          /* "vectors" */
    bool ioeventfd;
    bool indirect_desc;
    bool event_idx;
    /* Transport state. */
    MemoryRegion modern_bar;
    MemoryRegion common, isr, device, notify;
    uint32_t dfselect, gfselect;
    uint32_t guest_features[2];
    uint16_t queue_sel;
    VirtIOPCIIoeventfd *ioeventfds;     /* one per queue once started */
    uint64_t kicks_by_ioeventfd, kicks_by_exit;
};

#define VIRTIO_PCI_PROPS \
    { .name = "disable-legacy", .type = PROP_TYPE_STRING, \
      .offset = offsetof(VirtIOPCIProxy, disable_legacy), \
      .defstr = "auto", .description = "on/off/auto" }, \
    { .name = "disable-modern", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(VirtIOPCIProxy, disable_modern) }, \
    { .name = "event_idx", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(VirtIOPCIProxy, event_idx), .defval = 1, \
      .description = "on/off" }, \
    { .name = "indirect_desc", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(VirtIOPCIProxy, indirect_desc), .defval = 1, \
      .description = "on/off" }, \
    { .name = "ioeventfd", .type = PROP_TYPE_BOOL, \
      .offset = offsetof(VirtIOPCIProxy, ioeventfd), .defval = 1, \
      .description = "on/off" }, \
    { .name = "vectors", .type = PROP_TYPE_UINT32, \
      .offset = offsetof(VirtIOPCIProxy, nvectors), \
      .defval = VIRTIO_PCI_VECTORS_UNSPECIFIED }

/*
 * Plug the proxy's virtio device (virtio_init()ed, queues added) into
 * PCI: IDs, capabilities, BARs, MSI-X with default_vectors unless the
 * user gave "vectors".
 */
bool virtio_pci_realize(VirtIOPCIProxy *proxy, unsigned default_vectors,
                        Error **errp);
void virtio_pci_exit(VirtIOPCIProxy *proxy);
void virtio_pci_reset(VirtIOPCIProxy *proxy);

/*
 * The proxy's migratable state (PCI config and MSI-X, the transport's
 * selectors, the virtio core's), for each device's own table to start
 * with.
 */
extern const struct VMStateDescription vmstate_virtio_pci;

#endif
