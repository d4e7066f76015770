/*
 * The modern virtio-pci transport (include/hw/virtio/virtio-pci.h).
 *
 * Common configuration (virtio 1.x 4.1.4.3), offsets in BAR4:
 *   0x00 device_feature_select  0x04 device_feature (RO)
 *   0x08 driver_feature_select  0x0c driver_feature
 *   0x10 msix_config            0x12 num_queues (RO)
 *   0x14 device_status (8)      0x15 config_generation (8, RO)
 *   0x16 queue_select           0x18 queue_size
 *   0x1a queue_msix_vector      0x1c queue_enable
 *   0x1e queue_notify_off (RO)  0x20 queue_desc  0x28 queue_driver
 *   0x30 queue_device (64-bit fields as two dwords)
 * Interrupts: MSI-X when the driver enabled it (a queue's or the config
 * vector), else INTA#, asserted while the ISR (read to clear) is not 0.
 *
 * Notifications: with ioeventfd=on (the default) and an accelerator that
 * takes ioeventfds (KVM), each enabled queue's notify address gets an
 * eventfd once the driver sets DRIVER_OK: the vCPU's write is caught in
 * the kernel and the main loop reads the eventfd and runs the queue, so
 * the vCPU does not wait for the device. Otherwise (tcg, qtest,
 * ioeventfd=off) the write reaches notify_write() as an MMIO access.
 * The eventfds go with a reset. -d notify counts both paths. A device
 * loaded from a migration stream with DRIVER_OK set gets its eventfds
 * then, for the queues enabled in the stream: the destination's driver
 * never writes the status again.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib-unix.h>

#include "hw/pci/msix.h"
#include "hw/virtio/virtio-pci.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"
#include "system/cpus.h"
#include "system/main-loop.h"

#define VIRTIO_PCI_CAP_COMMON_CFG   1
#define VIRTIO_PCI_CAP_NOTIFY_CFG   2
#define VIRTIO_PCI_CAP_ISR_CFG      3
#define VIRTIO_PCI_CAP_DEVICE_CFG   4
#define VIRTIO_PCI_CAP_PCI_CFG      5

#define MODERN_BAR                  4
#define MSIX_BAR                    1
#define MODERN_BAR_SIZE             0x4000
#define REGION_SIZE                 0x1000
#define NOTIFY_MULTIPLIER           4
#define MSIX_CAP_OFFSET             0x98

enum {
    COMMON_DFSELECT = 0x00, COMMON_DF = 0x04, COMMON_GFSELECT = 0x08,
    COMMON_GF = 0x0c, COMMON_MSIX = 0x10, COMMON_NUMQ = 0x12,
    COMMON_STATUS = 0x14, COMMON_CFGGENERATION = 0x15,
    COMMON_Q_SELECT = 0x16, COMMON_Q_SIZE = 0x18, COMMON_Q_MSIX = 0x1a,
    COMMON_Q_ENABLE = 0x1c, COMMON_Q_NOFF = 0x1e,
    COMMON_Q_DESCLO = 0x20, COMMON_Q_DESCHI = 0x24,
    COMMON_Q_AVAILLO = 0x28, COMMON_Q_AVAILHI = 0x2c,
    COMMON_Q_USEDLO = 0x30, COMMON_Q_USEDHI = 0x34,
};

/* The vendor capabilities, QEMU's order and offsets. */
static const struct {
    uint8_t offset, cfg_type, len;
    uint32_t region;
} virtio_pci_caps[] = {
    { 0x40, VIRTIO_PCI_CAP_COMMON_CFG, 16, 0x0000 },
    { 0x50, VIRTIO_PCI_CAP_ISR_CFG, 16, 0x1000 },
    { 0x60, VIRTIO_PCI_CAP_DEVICE_CFG, 16, 0x2000 },
    { 0x70, VIRTIO_PCI_CAP_NOTIFY_CFG, 20, 0x3000 },
    { 0x84, VIRTIO_PCI_CAP_PCI_CFG, 20, 0 },
};

static void ioeventfds_start(VirtIOPCIProxy *p);

static void virtio_pci_notify(void *opaque, uint16_t vector)
{
    VirtIOPCIProxy *p = opaque;

    if (msix_enabled(&p->pci)) {
        if (vector != VIRTIO_NO_VECTOR) {
            msix_notify(&p->pci, vector);
        }
        return;
    }
    pci_set_irq(&p->pci, p->vdev.isr != 0);
}

static const VirtioTransportOps virtio_pci_transport = {
    .notify = virtio_pci_notify,
};

static VirtQueue *selected_queue(VirtIOPCIProxy *p)
{
    return p->queue_sel < p->vdev.nvqs ? &p->vdev.vq[p->queue_sel] : NULL;
}

static uint16_t valid_vector(VirtIOPCIProxy *p, uint64_t val)
{
    return val < msix_nr_vectors(&p->pci) ? val : VIRTIO_NO_VECTOR;
}

static uint64_t common_read(void *opaque, uint64_t addr, unsigned size)
{
    VirtIOPCIProxy *p = opaque;
    VirtIODevice *vdev = &p->vdev;
    VirtQueue *vq = selected_queue(p);

    switch (addr) {
    case COMMON_DFSELECT:
        return p->dfselect;
    case COMMON_DF:
        return p->dfselect < 2 ? vdev->host_features >> (32 * p->dfselect)
                               : 0;
    case COMMON_GFSELECT:
        return p->gfselect;
    case COMMON_GF:
        return p->gfselect < 2 ? p->guest_features[p->gfselect] : 0;
    case COMMON_MSIX:
        return vdev->config_vector;
    case COMMON_NUMQ:
        return vdev->nvqs;
    case COMMON_STATUS:
        return vdev->status;
    case COMMON_CFGGENERATION:
        return vdev->config_generation;
    case COMMON_Q_SELECT:
        return p->queue_sel;
    case COMMON_Q_NOFF:
        return p->queue_sel;
    }
    if (!vq) {
        return 0;
    }
    switch (addr) {
    case COMMON_Q_SIZE:
        return vq->num;
    case COMMON_Q_MSIX:
        return vq->vector;
    case COMMON_Q_ENABLE:
        return vq->enabled;
    case COMMON_Q_DESCLO:
        return (uint32_t)vq->desc;
    case COMMON_Q_DESCHI:
        return vq->desc >> 32;
    case COMMON_Q_AVAILLO:
        return (uint32_t)vq->avail;
    case COMMON_Q_AVAILHI:
        return vq->avail >> 32;
    case COMMON_Q_USEDLO:
        return (uint32_t)vq->used;
    case COMMON_Q_USEDHI:
        return vq->used >> 32;
    default:
        return 0;
    }
}

static void set_lo(uint64_t *field, uint64_t val)
{
    *field = (*field & ~0xffffffffULL) | (uint32_t)val;
}

static void set_hi(uint64_t *field, uint64_t val)
{
    *field = (*field & 0xffffffffULL) | (uint64_t)(uint32_t)val << 32;
}

static void queue_write(VirtIOPCIProxy *p, VirtQueue *vq, uint64_t addr,
                        uint64_t val)
{
    /* A live queue's layout is fixed until reset (4.1.4.3.2). */
    if (vq->enabled && addr != COMMON_Q_MSIX) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: queue %u changed while "
                      "enabled\n", p->vdev.name, p->queue_sel);
        return;
    }
    switch (addr) {
    case COMMON_Q_SIZE:
        if (!val || val > vq->num_max || (val & (val - 1))) {
            qemu_log_mask(LOG_GUEST_ERROR, "%s: queue size %u (maximum "
                          "%u, a power of 2)\n", p->vdev.name,
                          (unsigned)val, vq->num_max);
            return;
        }
        vq->num = val;
        break;
    case COMMON_Q_MSIX:
        vq->vector = valid_vector(p, val);
        break;
    case COMMON_Q_ENABLE:
        vq->enabled = val == 1 && vq->num && vq->desc;
        break;
    case COMMON_Q_DESCLO:
        set_lo(&vq->desc, val);
        break;
    case COMMON_Q_DESCHI:
        set_hi(&vq->desc, val);
        break;
    case COMMON_Q_AVAILLO:
        set_lo(&vq->avail, val);
        break;
    case COMMON_Q_AVAILHI:
        set_hi(&vq->avail, val);
        break;
    case COMMON_Q_USEDLO:
        set_lo(&vq->used, val);
        break;
    case COMMON_Q_USEDHI:
        set_hi(&vq->used, val);
        break;
    }
}

static void common_write(void *opaque, uint64_t addr, uint64_t val,
                         unsigned size)
{
    VirtIOPCIProxy *p = opaque;
    VirtIODevice *vdev = &p->vdev;
    VirtQueue *vq = selected_queue(p);

    switch (addr) {
    case COMMON_DFSELECT:
        p->dfselect = val;
        return;
    case COMMON_GFSELECT:
        p->gfselect = val;
        return;
    case COMMON_GF:
        if (p->gfselect < 2 &&
            !(vdev->status & VIRTIO_CONFIG_S_FEATURES_OK)) {
            p->guest_features[p->gfselect] = val;
            /* What the device does not offer is dropped, as QEMU does. */
            vdev->guest_features = ((uint64_t)p->guest_features[1] << 32 |
                                    p->guest_features[0]) &
                                   vdev->host_features;
        }
        return;
    case COMMON_MSIX:
        vdev->config_vector = valid_vector(p, val);
        return;
    case COMMON_STATUS:
        virtio_set_status(vdev, val);
        if (!vdev->status) {
            virtio_pci_reset(p);
        } else if (vdev->status & VIRTIO_CONFIG_S_DRIVER_OK) {
            ioeventfds_start(p);
        }
        return;
    case COMMON_Q_SELECT:
        p->queue_sel = val;
        return;
    }
    if (vq) {
        queue_write(p, vq, addr, val);
    }
}

static const MemoryRegionOps common_ops = {
    .read = common_read,
    .write = common_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static uint64_t isr_read(void *opaque, uint64_t addr, unsigned size)
{
    VirtIOPCIProxy *p = opaque;
    uint8_t isr = p->vdev.isr;

    if (addr) {
        return 0;
    }
    p->vdev.isr = 0;
    pci_set_irq(&p->pci, 0);
    return isr;
}

static void isr_write(void *opaque, uint64_t addr, uint64_t val,
                      unsigned size)
{
}

static const MemoryRegionOps isr_ops = {
    .read = isr_read,
    .write = isr_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static uint64_t device_read(void *opaque, uint64_t addr, unsigned size)
{
    VirtIOPCIProxy *p = opaque;
    size_t len = p->vdev.ops->config_len;
    uint64_t v = 0;

    virtio_config_read(&p->vdev);
    for (unsigned i = 0; i < size && addr + i < len; i++) {
        v |= (uint64_t)p->vdev.config[addr + i] << (8 * i);
    }
    return v;
}

static void device_write(void *opaque, uint64_t addr, uint64_t val,
                         unsigned size)
{
    VirtIOPCIProxy *p = opaque;
    size_t len = p->vdev.ops->config_len;

    if (addr + size > len) {
        return;
    }
    virtio_config_read(&p->vdev);
    for (unsigned i = 0; i < size; i++) {
        p->vdev.config[addr + i] = val >> (8 * i);
    }
    virtio_config_written(&p->vdev);
}

static const MemoryRegionOps device_ops = {
    .read = device_read,
    .write = device_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static uint64_t notify_read(void *opaque, uint64_t addr, unsigned size)
{
    return 0;
}

static void notify_write(void *opaque, uint64_t addr, uint64_t val,
                         unsigned size)
{
    VirtIOPCIProxy *p = opaque;

    p->kicks_by_exit++;
    virtio_queue_notify(&p->vdev, addr / NOTIFY_MULTIPLIER);
}

/* The main loop saw queue n's eventfd: the count is the kicks since. */
static gboolean ioeventfd_ready(gint fd, GIOCondition cond, gpointer opaque)
{
    VirtIOPCIIoeventfd *e = opaque;
    uint64_t kicks;

    if (read(fd, &kicks, sizeof(kicks)) == sizeof(kicks) && kicks) {
        e->proxy->kicks_by_ioeventfd += kicks;
        virtio_queue_notify(&e->proxy->vdev, e->queue);
    }
    return G_SOURCE_CONTINUE;
}

static void ioeventfds_start(VirtIOPCIProxy *p)
{
    if (!p->ioeventfd || p->ioeventfds || !vcpus_has_ioeventfds()) {
        return;
    }
    p->ioeventfds = g_new0(VirtIOPCIIoeventfd, p->vdev.nvqs);
    for (unsigned n = 0; n < p->vdev.nvqs; n++) {
        VirtIOPCIIoeventfd *e = &p->ioeventfds[n];

        e->proxy = p;
        e->queue = n;
        e->fd = -1;
        if (!p->vdev.vq[n].enabled) {
            continue;
        }
        e->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        if (e->fd < 0) {
            continue;           /* that queue keeps its MMIO exits */
        }
        e->watch = main_loop_add_fd(e->fd, G_IO_IN, ioeventfd_ready, e);
        memory_region_add_eventfd(&p->notify, n * NOTIFY_MULTIPLIER, 0,
                                  false, 0, e->fd);
    }
}

static void ioeventfds_stop(VirtIOPCIProxy *p)
{
    for (unsigned n = 0; p->ioeventfds && n < p->vdev.nvqs; n++) {
        VirtIOPCIIoeventfd *e = &p->ioeventfds[n];

        if (e->fd >= 0) {
            memory_region_del_eventfd(&p->notify, n * NOTIFY_MULTIPLIER, 0,
                                      false, 0, e->fd);
            g_source_remove(e->watch);
            close(e->fd);
        }
    }
    g_clear_pointer(&p->ioeventfds, g_free);
}

static const MemoryRegionOps notify_ops = {
    .read = notify_read,
    .write = notify_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 4 },
};

static void add_vendor_caps(VirtIOPCIProxy *p)
{
    PCIDevice *d = &p->pci;

    for (size_t i = 0; i < G_N_ELEMENTS(virtio_pci_caps); i++) {
        uint8_t off = virtio_pci_caps[i].offset;
        uint8_t *c = d->config + off;
        bool pci_cfg = virtio_pci_caps[i].cfg_type == VIRTIO_PCI_CAP_PCI_CFG;

        pci_add_capability(d, PCI_CAP_ID_VNDR, off, virtio_pci_caps[i].len);
        c[2] = virtio_pci_caps[i].len;
        c[3] = virtio_pci_caps[i].cfg_type;
        c[4] = pci_cfg ? 0 : MODERN_BAR;
        pci_set_long(c + 8, virtio_pci_caps[i].region);
        pci_set_long(c + 12, pci_cfg ? 0 : REGION_SIZE);
        if (virtio_pci_caps[i].cfg_type == VIRTIO_PCI_CAP_NOTIFY_CFG) {
            pci_set_long(c + 16, NOTIFY_MULTIPLIER);
        }
        if (pci_cfg) {
            /*
             * The driver may program bar, offset, length and data; the
             * access window itself is not implemented (no driver here
             * uses it).
             */
            d->wmask[off + 4] = 0xff;
            pci_set_long(d->wmask + off + 8, 0xffffffff);
            pci_set_long(d->wmask + off + 12, 0xffffffff);
            pci_set_long(d->wmask + off + 16, 0xffffffff);
        }
    }
}

bool virtio_pci_realize(VirtIOPCIProxy *p, unsigned default_vectors,
                        Error **errp)
{
    PCIDevice *d = &p->pci;
    VirtIODevice *vdev = &p->vdev;
    unsigned nvectors = p->nvectors == VIRTIO_PCI_VECTORS_UNSPECIFIED
                        ? default_vectors : p->nvectors;

    if (strcmp(p->disable_legacy, "auto") && strcmp(p->disable_legacy, "on") &&
        strcmp(p->disable_legacy, "off")) {
        error_setg(errp, "Parameter 'disable-legacy' does not accept value "
                   "'%s'", p->disable_legacy);
        return false;
    }
    if (!strcmp(p->disable_legacy, "off")) {
        error_setg(errp, "%s: the legacy virtio-pci interface is not "
                   "supported; use disable-legacy=on", d->qdev.dc->name);
        return false;
    }
    if (p->disable_modern) {
        error_setg(errp, "device cannot work as neither modern nor legacy "
                   "mode is enabled");
        return false;
    }
    if (!p->indirect_desc) {
        vdev->host_features &= ~(1ULL << VIRTIO_F_RING_INDIRECT_DESC);
    }
    if (!p->event_idx) {
        vdev->host_features &= ~(1ULL << VIRTIO_F_RING_EVENT_IDX);
    }
    vdev->transport = &virtio_pci_transport;
    vdev->transport_opaque = p;
    pci_set_word(d->config + PCI_DEVICE_ID,
                 PCI_DEVICE_ID_VIRTIO_10_BASE + vdev->ops->device_id);
    d->config[PCI_REVISION_ID] = 1;
    d->config[PCI_INTERRUPT_PIN] = 1;
    add_vendor_caps(p);
    if (nvectors && !msix_init_exclusive_bar(d, nvectors, MSIX_BAR,
                                             MSIX_CAP_OFFSET, errp)) {
        return false;
    }
    vdev->nvectors = msix_nr_vectors(d);
    memory_region_init_container(&p->modern_bar, "virtio-pci",
                                 MODERN_BAR_SIZE);
    memory_region_init_io(&p->common, "virtio-pci-common", &common_ops, p,
                          REGION_SIZE);
    memory_region_init_io(&p->isr, "virtio-pci-isr", &isr_ops, p,
                          REGION_SIZE);
    memory_region_init_io(&p->device, "virtio-pci-device", &device_ops, p,
                          REGION_SIZE);
    memory_region_init_io(&p->notify, "virtio-pci-notify", &notify_ops, p,
                          REGION_SIZE);
    memory_region_add_subregion(&p->modern_bar, 0x0000, &p->common, 0, NULL);
    memory_region_add_subregion(&p->modern_bar, 0x1000, &p->isr, 0, NULL);
    memory_region_add_subregion(&p->modern_bar, 0x2000, &p->device, 0, NULL);
    memory_region_add_subregion(&p->modern_bar, 0x3000, &p->notify, 0, NULL);
    pci_register_bar(d, MODERN_BAR, PCI_BASE_ADDRESS_MEM_TYPE_64 |
                     PCI_BASE_ADDRESS_MEM_PREFETCH, &p->modern_bar);
    return true;
}

void virtio_pci_exit(VirtIOPCIProxy *p)
{
    uint64_t by_irqfd, direct, irqfds;

    msix_counts(&p->pci, &by_irqfd, &direct, &irqfds);
    qemu_log_mask(LOG_NOTIFY, "notify: %s %02x.%x: %" PRIu64 " kicks by "
                  "ioeventfd, %" PRIu64 " by MMIO exit; %" PRIu64 " MSI-X "
                  "messages by irqfd (%" PRIu64 " irqfds made), %" PRIu64
                  " directly\n", p->pci.qdev.dc->name,
                  PCI_SLOT(p->pci.devfn), PCI_FUNC(p->pci.devfn),
                  p->kicks_by_ioeventfd, p->kicks_by_exit, by_irqfd, irqfds,
                  direct);
    ioeventfds_stop(p);
    memory_region_finalize(&p->notify);
    memory_region_finalize(&p->device);
    memory_region_finalize(&p->isr);
    memory_region_finalize(&p->common);
    memory_region_finalize(&p->modern_bar);
    msix_uninit(&p->pci);
    virtio_cleanup(&p->vdev);
}

void virtio_pci_reset(VirtIOPCIProxy *p)
{
    ioeventfds_stop(p);
    virtio_reset(&p->vdev);
    p->dfselect = p->gfselect = 0;
    p->guest_features[0] = p->guest_features[1] = 0;
    p->queue_sel = 0;
    pci_set_irq(&p->pci, 0);
}

/* --- migration ----------------------------------------------------------- */

static bool proxy_post_load(void *opaque, unsigned version, Error **errp)
{
    VirtIOPCIProxy *p = opaque;
    uint64_t gf = (uint64_t)p->guest_features[1] << 32 | p->guest_features[0];

    if ((gf & p->vdev.host_features) != p->vdev.guest_features) {
        error_setg(errp, "field 'guest_features': 0x%" PRIx64 " does not "
                   "match the negotiated 0x%" PRIx64, gf,
                   p->vdev.guest_features);
        return false;
    }
    /* The queues' notify addresses as the source's driver left them. */
    ioeventfds_stop(p);
    if (p->vdev.status & VIRTIO_CONFIG_S_DRIVER_OK) {
        ioeventfds_start(p);
    }
    return true;
}

const VMStateDescription vmstate_virtio_pci = {
    .name = "virtio-pci",
    .version = 1,
    .minimum_version = 1,
    .post_load = proxy_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIOPCIProxy, pci, PCIDevice, vmstate_pci_device),
        VMSTATE_U32(VirtIOPCIProxy, dfselect),
        VMSTATE_U32(VirtIOPCIProxy, gfselect),
        VMSTATE_U32_ARRAY(VirtIOPCIProxy, guest_features, 2),
        VMSTATE_U16(VirtIOPCIProxy, queue_sel),
        VMSTATE_STRUCT(VirtIOPCIProxy, vdev, VirtIODevice, vmstate_virtio),
        VMSTATE_END
    },
};
