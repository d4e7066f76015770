/*
 * libqvirtio: a virtio 1.x driver for qtests, in the spirit of QEMU's
 * libqos: finds a modern virtio-pci function on bus 0, reads its vendor
 * capabilities, negotiates features, lays split virtqueues out in guest
 * RAM, adds chains (direct or through an indirect table), kicks and
 * collects used buffers, all with qtest memory and port commands. MSI-X
 * vectors point at guest RAM, so a test sees each message as a write.
 */
#ifndef TESTS_LIBQVIRTIO_H
#define TESTS_LIBQVIRTIO_H

#include <stdbool.h>
#include <stdint.h>

#include "libqpci.h"
#include "libqtest.h"

#define QVIRTIO_ACKNOWLEDGE     0x01
#define QVIRTIO_DRIVER          0x02
#define QVIRTIO_DRIVER_OK       0x04
#define QVIRTIO_FEATURES_OK     0x08
#define QVIRTIO_NEEDS_RESET     0x40

#define QVIRTIO_F_INDIRECT_DESC (1ULL << 28)
#define QVIRTIO_F_EVENT_IDX     (1ULL << 29)
#define QVIRTIO_F_VERSION_1     (1ULL << 32)

#define QVRING_DESC_F_NEXT      1
#define QVRING_DESC_F_WRITE     2
#define QVRING_DESC_F_INDIRECT  4

/* A bump allocator of guest RAM (the test's, nothing else uses it). */
typedef struct QGuestAlloc {
    uint64_t next, end;
} QGuestAlloc;

void qalloc_init(QGuestAlloc *a, uint64_t start, uint64_t end);
uint64_t qalloc(QGuestAlloc *a, uint64_t size, uint64_t align);

typedef struct QVirtioDev {
    QTestState *s;
    int devfn;
    QPCIBar bar;                /* the BAR of the capabilities (BAR4) */
    uint64_t common, isr, device, notify;  /* offsets in it */
    uint32_t notify_mult;
    QPCIBar msix;               /* BAR1, when the function has MSI-X */
    bool has_msix;
} QVirtioDev;

typedef struct QVirtQueue {
    unsigned index;
    uint16_t size;
    uint64_t desc, avail, used;
    uint16_t free_head;
    uint16_t avail_idx;         /* what the driver published */
    uint16_t last_used;         /* what it collected */
    uint16_t notify_off;
    uint64_t msix_addr;         /* where its MSI-X message lands, or 0 */
    uint32_t msix_data;
} QVirtQueue;

/* Find device_id (0x1040 + virtio ID), map its BARs; false if absent. */
bool qvirtio_pci_find(QTestState *s, uint16_t pci_device_id, QVirtioDev *d);
uint8_t qvirtio_get_status(QVirtioDev *d);
void qvirtio_set_status(QVirtioDev *d, uint8_t status);
void qvirtio_reset(QVirtioDev *d);
uint64_t qvirtio_get_features(QVirtioDev *d);
/*
 * Reset, ACKNOWLEDGE, DRIVER, write features, FEATURES_OK; returns
 * whether the device kept FEATURES_OK.
 */
bool qvirtio_negotiate(QVirtioDev *d, uint64_t features);
void qvirtio_set_driver_ok(QVirtioDev *d);
uint8_t qvirtio_read_isr(QVirtioDev *d);
uint8_t qvirtio_config_generation(QVirtioDev *d);
uint32_t qvirtio_config_readl(QVirtioDev *d, unsigned off);
void qvirtio_config_writel(QVirtioDev *d, unsigned off, uint32_t v);

/* Size the queue (0: the device's maximum), place and enable it. */
void qvirtqueue_setup(QVirtioDev *d, QVirtQueue *vq, QGuestAlloc *a,
                      unsigned index, uint16_t size);
/*
 * Enable MSI-X and give vq (and with config set, the config change)
 * a vector whose message is written to guest RAM.
 */
void qvirtio_msix_enable(QVirtioDev *d);
void qvirtqueue_set_msix(QVirtioDev *d, QVirtQueue *vq, QGuestAlloc *a,
                         uint16_t vector);
/* The message arrived (and is cleared for the next one). */
bool qvirtqueue_msix_fired(QVirtioDev *d, QVirtQueue *vq);

/*
 * Append a buffer to the chain being built; the first call of a chain
 * returns its head. next: more buffers follow.
 */
uint16_t qvirtqueue_add(QVirtioDev *d, QVirtQueue *vq, uint64_t addr,
                        uint32_t len, bool write, bool next);
/* Write a raw descriptor (for malformed chains). */
void qvirtqueue_set_desc(QVirtioDev *d, QVirtQueue *vq, uint16_t i,
                         uint64_t addr, uint32_t len, uint16_t flags,
                         uint16_t next);
/*
 * A chain of n buffers in an indirect table; returns the head of the
 * one ring descriptor that points at it.
 */
uint16_t qvirtqueue_add_indirect(QVirtioDev *d, QVirtQueue *vq,
                                 QGuestAlloc *a, const uint64_t *addr,
                                 const uint32_t *len, const bool *write,
                                 unsigned n);
/* Publish head in the available ring and notify the device. */
void qvirtqueue_kick(QVirtioDev *d, QVirtQueue *vq, uint16_t head);
/* The next used element (id, len); false when there is none. */
bool qvirtqueue_get_buf(QVirtioDev *d, QVirtQueue *vq, uint32_t *id,
                        uint32_t *len);
/* Set the driver's used_event (event index) or avail flags. */
void qvirtqueue_set_used_event(QVirtioDev *d, QVirtQueue *vq, uint16_t v);
uint16_t qvirtqueue_avail_event(QVirtioDev *d, QVirtQueue *vq);

#endif
