/*
 * libqvirtio (libqvirtio.h): the modern virtio-pci driver of the qtests.
 */
#include "libqvirtio.h"

#define PCI_CAP_ID_VNDR         0x09
#define PCI_CAP_ID_MSIX         0x11
#define CAP_COMMON              1
#define CAP_NOTIFY              2
#define CAP_ISR                 3
#define CAP_DEVICE              4

#define COMMON_DFSELECT         0x00
#define COMMON_DF               0x04
#define COMMON_GFSELECT         0x08
#define COMMON_GF               0x0c
#define COMMON_MSIX             0x10
#define COMMON_STATUS           0x14
#define COMMON_CFGGENERATION    0x15
#define COMMON_Q_SELECT         0x16
#define COMMON_Q_SIZE           0x18
#define COMMON_Q_MSIX           0x1a
#define COMMON_Q_ENABLE         0x1c
#define COMMON_Q_NOFF           0x1e
#define COMMON_Q_DESCLO         0x20
#define COMMON_Q_DESCHI         0x24
#define COMMON_Q_AVAILLO        0x28
#define COMMON_Q_AVAILHI        0x2c
#define COMMON_Q_USEDLO         0x30
#define COMMON_Q_USEDHI         0x34

void qalloc_init(QGuestAlloc *a, uint64_t start, uint64_t end)
{
    a->next = start;
    a->end = end;
}

uint64_t qalloc(QGuestAlloc *a, uint64_t size, uint64_t align)
{
    uint64_t p = (a->next + align - 1) & ~(align - 1);

    g_assert_cmphex(p + size, <=, a->end);
    a->next = p + size;
    return p;
}

static uint32_t common_read(QVirtioDev *d, unsigned off, unsigned size)
{
    return qpci_bar_read(d->s, &d->bar, d->common + off, size);
}

static void common_write(QVirtioDev *d, unsigned off, uint32_t v,
                         unsigned size)
{
    qpci_bar_write(d->s, &d->bar, d->common + off, v, size);
}

bool qvirtio_pci_find(QTestState *s, uint16_t pci_device_id, QVirtioDev *d)
{
    int devfn = qpci_find_device(s, 0x1af4, pci_device_id);
    int bar = -1;

    memset(d, 0, sizeof(*d));
    d->s = s;
    d->devfn = devfn;
    if (devfn < 0) {
        return false;
    }
    for (uint8_t c = qpci_config_readb(s, devfn, 0x34); c;
         c = qpci_config_readb(s, devfn, c + 1)) {
        uint8_t id = qpci_config_readb(s, devfn, c);
        uint8_t type = qpci_config_readb(s, devfn, c + 3);
        uint32_t off = qpci_config_readl(s, devfn, c + 8);

        if (id == PCI_CAP_ID_MSIX) {
            d->has_msix = true;
            continue;
        }
        if (id != PCI_CAP_ID_VNDR) {
            continue;
        }
        switch (type) {
        case CAP_COMMON:
            d->common = off;
            bar = qpci_config_readb(s, devfn, c + 4);
            break;
        case CAP_NOTIFY:
            d->notify = off;
            d->notify_mult = qpci_config_readl(s, devfn, c + 16);
            break;
        case CAP_ISR:
            d->isr = off;
            break;
        case CAP_DEVICE:
            d->device = off;
            break;
        }
    }
    g_assert_cmpint(bar, >=, 0);
    d->bar = qpci_map_bar(s, devfn, bar);
    if (d->has_msix) {
        d->msix = qpci_map_bar(s, devfn, 1);
    }
    return true;
}

uint8_t qvirtio_get_status(QVirtioDev *d)
{
    return common_read(d, COMMON_STATUS, 1);
}

void qvirtio_set_status(QVirtioDev *d, uint8_t status)
{
    common_write(d, COMMON_STATUS, status, 1);
}

void qvirtio_reset(QVirtioDev *d)
{
    qvirtio_set_status(d, 0);
    g_assert_cmphex(qvirtio_get_status(d), ==, 0);
}

uint64_t qvirtio_get_features(QVirtioDev *d)
{
    uint64_t f;

    common_write(d, COMMON_DFSELECT, 0, 4);
    f = common_read(d, COMMON_DF, 4);
    common_write(d, COMMON_DFSELECT, 1, 4);
    return f | (uint64_t)common_read(d, COMMON_DF, 4) << 32;
}

bool qvirtio_negotiate(QVirtioDev *d, uint64_t features)
{
    qvirtio_reset(d);
    qvirtio_set_status(d, QVIRTIO_ACKNOWLEDGE);
    qvirtio_set_status(d, QVIRTIO_ACKNOWLEDGE | QVIRTIO_DRIVER);
    common_write(d, COMMON_GFSELECT, 0, 4);
    common_write(d, COMMON_GF, (uint32_t)features, 4);
    common_write(d, COMMON_GFSELECT, 1, 4);
    common_write(d, COMMON_GF, features >> 32, 4);
    qvirtio_set_status(d, QVIRTIO_ACKNOWLEDGE | QVIRTIO_DRIVER |
                       QVIRTIO_FEATURES_OK);
    return qvirtio_get_status(d) & QVIRTIO_FEATURES_OK;
}

void qvirtio_set_driver_ok(QVirtioDev *d)
{
    qvirtio_set_status(d, qvirtio_get_status(d) | QVIRTIO_DRIVER_OK);
}

uint8_t qvirtio_read_isr(QVirtioDev *d)
{
    return qpci_bar_read(d->s, &d->bar, d->isr, 1);
}

uint8_t qvirtio_config_generation(QVirtioDev *d)
{
    return common_read(d, COMMON_CFGGENERATION, 1);
}

uint32_t qvirtio_config_readl(QVirtioDev *d, unsigned off)
{
    return qpci_bar_read(d->s, &d->bar, d->device + off, 4);
}

void qvirtio_config_writel(QVirtioDev *d, unsigned off, uint32_t v)
{
    qpci_bar_write(d->s, &d->bar, d->device + off, v, 4);
}

void qvirtqueue_setup(QVirtioDev *d, QVirtQueue *vq, QGuestAlloc *a,
                      unsigned index, uint16_t size)
{
    memset(vq, 0, sizeof(*vq));
    vq->index = index;
    common_write(d, COMMON_Q_SELECT, index, 2);
    if (size) {
        common_write(d, COMMON_Q_SIZE, size, 2);
    }
    vq->size = common_read(d, COMMON_Q_SIZE, 2);
    g_assert_cmpuint(vq->size, >, 0);
    vq->notify_off = common_read(d, COMMON_Q_NOFF, 2);
    vq->desc = qalloc(a, 16 * vq->size, 16);
    vq->avail = qalloc(a, 6 + 2 * vq->size, 2);
    vq->used = qalloc(a, 6 + 8 * vq->size, 4);
    qtest_memset(d->s, vq->desc, 0, 16 * vq->size);
    qtest_memset(d->s, vq->avail, 0, 6 + 2 * vq->size);
    qtest_memset(d->s, vq->used, 0, 6 + 8 * vq->size);
    common_write(d, COMMON_Q_DESCLO, (uint32_t)vq->desc, 4);
    common_write(d, COMMON_Q_DESCHI, vq->desc >> 32, 4);
    common_write(d, COMMON_Q_AVAILLO, (uint32_t)vq->avail, 4);
    common_write(d, COMMON_Q_AVAILHI, vq->avail >> 32, 4);
    common_write(d, COMMON_Q_USEDLO, (uint32_t)vq->used, 4);
    common_write(d, COMMON_Q_USEDHI, vq->used >> 32, 4);
    common_write(d, COMMON_Q_ENABLE, 1, 2);
}

void qvirtio_msix_enable(QVirtioDev *d)
{
    uint8_t c;

    for (c = qpci_config_readb(d->s, d->devfn, 0x34); c;
         c = qpci_config_readb(d->s, d->devfn, c + 1)) {
        if (qpci_config_readb(d->s, d->devfn, c) == PCI_CAP_ID_MSIX) {
            break;
        }
    }
    g_assert_cmpuint(c, !=, 0);
    qpci_config_writew(d->s, d->devfn, c + 2,
                       qpci_config_readw(d->s, d->devfn, c + 2) | 0x8000);
}

void qvirtqueue_set_msix(QVirtioDev *d, QVirtQueue *vq, QGuestAlloc *a,
                         uint16_t vector)
{
    uint64_t entry = vector * 16;

    vq->msix_addr = qalloc(a, 4, 4);
    vq->msix_data = 0x12340000 | vector;
    qtest_writel(d->s, vq->msix_addr, 0);
    qpci_bar_write(d->s, &d->msix, entry, (uint32_t)vq->msix_addr, 4);
    qpci_bar_write(d->s, &d->msix, entry + 4, vq->msix_addr >> 32, 4);
    qpci_bar_write(d->s, &d->msix, entry + 8, vq->msix_data, 4);
    qpci_bar_write(d->s, &d->msix, entry + 12, 0, 4);   /* unmask */
    common_write(d, COMMON_Q_SELECT, vq->index, 2);
    common_write(d, COMMON_Q_MSIX, vector, 2);
    g_assert_cmpuint(common_read(d, COMMON_Q_MSIX, 2), ==, vector);
}

bool qvirtqueue_msix_fired(QVirtioDev *d, QVirtQueue *vq)
{
    bool fired = qtest_readl(d->s, vq->msix_addr) == vq->msix_data;

    qtest_writel(d->s, vq->msix_addr, 0);
    return fired;
}

void qvirtqueue_set_desc(QVirtioDev *d, QVirtQueue *vq, uint16_t i,
                         uint64_t addr, uint32_t len, uint16_t flags,
                         uint16_t next)
{
    uint64_t p = vq->desc + 16 * (uint64_t)i;

    qtest_writeq(d->s, p, addr);
    qtest_writel(d->s, p + 8, len);
    qtest_writew(d->s, p + 12, flags);
    qtest_writew(d->s, p + 14, next);
}

uint16_t qvirtqueue_add(QVirtioDev *d, QVirtQueue *vq, uint64_t addr,
                        uint32_t len, bool write, bool next)
{
    uint16_t i = vq->free_head;

    vq->free_head = (i + 1) % vq->size;
    qvirtqueue_set_desc(d, vq, i, addr, len,
                        (write ? QVRING_DESC_F_WRITE : 0) |
                        (next ? QVRING_DESC_F_NEXT : 0), vq->free_head);
    return i;
}

uint16_t qvirtqueue_add_indirect(QVirtioDev *d, QVirtQueue *vq,
                                 QGuestAlloc *a, const uint64_t *addr,
                                 const uint32_t *len, const bool *write,
                                 unsigned n)
{
    uint64_t table = qalloc(a, 16 * n, 16);
    uint16_t i = vq->free_head;

    for (unsigned k = 0; k < n; k++) {
        uint64_t p = table + 16 * k;

        qtest_writeq(d->s, p, addr[k]);
        qtest_writel(d->s, p + 8, len[k]);
        qtest_writew(d->s, p + 12, (write[k] ? QVRING_DESC_F_WRITE : 0) |
                     (k + 1 < n ? QVRING_DESC_F_NEXT : 0));
        qtest_writew(d->s, p + 14, k + 1);
    }
    vq->free_head = (i + 1) % vq->size;
    qvirtqueue_set_desc(d, vq, i, table, 16 * n, QVRING_DESC_F_INDIRECT, 0);
    return i;
}

void qvirtqueue_kick(QVirtioDev *d, QVirtQueue *vq, uint16_t head)
{
    qtest_writew(d->s, vq->avail + 4 + 2 * (vq->avail_idx % vq->size),
                 head);
    vq->avail_idx++;
    qtest_writew(d->s, vq->avail + 2, vq->avail_idx);
    qpci_bar_write(d->s, &d->bar,
                   d->notify + (uint64_t)vq->notify_off * d->notify_mult,
                   vq->index, 2);
}

bool qvirtqueue_get_buf(QVirtioDev *d, QVirtQueue *vq, uint32_t *id,
                        uint32_t *len)
{
    uint64_t e;

    if (qtest_readw(d->s, vq->used + 2) == vq->last_used) {
        return false;
    }
    e = vq->used + 4 + 8 * (uint64_t)(vq->last_used % vq->size);
    if (id) {
        *id = qtest_readl(d->s, e);
    }
    if (len) {
        *len = qtest_readl(d->s, e + 4);
    }
    vq->last_used++;
    return true;
}

void qvirtqueue_set_used_event(QVirtioDev *d, QVirtQueue *vq, uint16_t v)
{
    qtest_writew(d->s, vq->avail + 4 + 2 * vq->size, v);
}

uint16_t qvirtqueue_avail_event(QVirtioDev *d, QVirtQueue *vq)
{
    return qtest_readw(d->s, vq->used + 4 + 8 * vq->size);
}
