/*
 * MSI-X (PCI Local Bus 3.0, 6.8.2), in a BAR of its own as QEMU's
 * msix_init_exclusive_bar() lays it out: the vector table at offset 0
 * (16 bytes per vector: address low, high, data, vector control with
 * the mask in bit 0), the pending bit array at half the BAR (at least
 * 4 KiB). The capability:
 *   +0 ID 0x11, next   +2 message control: table size - 1 (10:0),
 *   function mask (14), enable (15)   +4 table offset | BIR
 *   +8 PBA offset | BIR
 * A vector signalled while it or the function is masked sets its
 * pending bit; unmasking sends it. Reset masks every vector.
 *
 * Where the accelerator has them (KVM: GSI routes and irqfds), a vector
 * that sends an interrupt gets an irqfd of its own the first time, and
 * its messages go out as eventfd writes; rewriting the entry re-aims the
 * route, masking the vector (or the function, or disabling MSI-X)
 * releases it, so a masked vector can never fire from the kernel side.
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "hw/pci/msi.h"
#include "hw/pci/msix.h"
#include "hw/pci/pci.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"
#include "system/cpus.h"

#define MSIX_FLAGS              2
#define MSIX_FLAGS_QSIZE        0x07ff
#define MSIX_FLAGS_MASKALL      0x4000
#define MSIX_FLAGS_ENABLE       0x8000
#define MSIX_TABLE              4
#define MSIX_PBA                8
#define MSIX_CAP_SIZE           12
#define MSIX_ENTRY_SIZE         16
#define MSIX_ENTRY_ADDR_LO      0
#define MSIX_ENTRY_ADDR_HI      4
#define MSIX_ENTRY_DATA         8
#define MSIX_ENTRY_CTRL         12
#define MSIX_ENTRY_MASKED       0x1
#define MSIX_MAX_VECTORS        2048

/* A vector's irqfd: route >= 0 while it has one. */
typedef struct MSIXIrqfd {
    int fd;
    int route;
} MSIXIrqfd;

struct MSIXState {
    unsigned nentries;
    uint32_t pba_offset;
    uint8_t *table;
    uint8_t *pba;
    unsigned table_bytes, pba_bytes;
    MemoryRegion bar;
    MSIXIrqfd *irqfds;
    bool no_irqfds;             /* the accelerator refused one */
    uint64_t sent_irqfd, sent_direct;
    uint64_t irqfds_made;
};

static uint16_t msix_flags(const PCIDevice *d)
{
    return pci_get_word(d->config + d->msix_cap + MSIX_FLAGS);
}

bool msix_enabled(const PCIDevice *d)
{
    return d->msix && (msix_flags(d) & MSIX_FLAGS_ENABLE);
}

static bool msix_masked(const PCIDevice *d, unsigned vector)
{
    const uint8_t *e = d->msix->table + vector * MSIX_ENTRY_SIZE;

    return (msix_flags(d) & MSIX_FLAGS_MASKALL) ||
           (pci_get_long(e + MSIX_ENTRY_CTRL) & MSIX_ENTRY_MASKED);
}

static bool msix_pending(const MSIXState *m, unsigned vector)
{
    return m->pba[vector / 8] & (1u << (vector % 8));
}

static void msix_set_pending(MSIXState *m, unsigned vector, bool pending)
{
    if (pending) {
        m->pba[vector / 8] |= 1u << (vector % 8);
    } else {
        m->pba[vector / 8] &= ~(1u << (vector % 8));
    }
}

static uint64_t msix_addr(const MSIXState *m, unsigned vector)
{
    const uint8_t *e = m->table + vector * MSIX_ENTRY_SIZE;

    return pci_get_long(e + MSIX_ENTRY_ADDR_LO) |
           (uint64_t)pci_get_long(e + MSIX_ENTRY_ADDR_HI) << 32;
}

static uint32_t msix_data(const MSIXState *m, unsigned vector)
{
    return pci_get_long(m->table + vector * MSIX_ENTRY_SIZE +
                        MSIX_ENTRY_DATA);
}

static void msix_irqfd_release(MSIXState *m, unsigned vector)
{
    MSIXIrqfd *f = &m->irqfds[vector];

    if (f->route >= 0) {
        vcpus_msi_irqfd_del(f->route, f->fd);
        close(f->fd);
        f->route = -1;
    }
}

static void msix_irqfds_release(MSIXState *m)
{
    for (unsigned v = 0; v < m->nentries; v++) {
        msix_irqfd_release(m, v);
    }
}

/* Vector's irqfd, made on its first interrupt; -1 where there is none. */
static int msix_irqfd(MSIXState *m, unsigned vector, uint64_t addr,
                      uint32_t data)
{
    MSIXIrqfd *f = &m->irqfds[vector];

    if (f->route >= 0 || m->no_irqfds) {
        return f->route >= 0 ? f->fd : -1;
    }
    f->fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    if (f->fd < 0) {
        m->no_irqfds = true;
        return -1;
    }
    f->route = vcpus_msi_irqfd_add(addr, data, f->fd);
    if (f->route < 0) {
        close(f->fd);
        f->route = -1;
        m->no_irqfds = true;
        return -1;
    }
    m->irqfds_made++;
    return f->fd;
}

static void msix_send(PCIDevice *d, unsigned vector)
{
    MSIXState *m = d->msix;
    uint64_t addr = msix_addr(m, vector), one = 1;
    uint32_t data = msix_data(m, vector);
    int fd = -1;

    if (pci_msi_is_interrupt(d, addr)) {
        fd = msix_irqfd(m, vector, addr, data);
    }
    if (fd >= 0 && write(fd, &one, sizeof(one)) == sizeof(one)) {
        m->sent_irqfd++;
        return;
    }
    m->sent_direct++;
    pci_msi_send(d, addr, data);
}

/*
 * After the entries [first, last] or the function's mask changed: a
 * masked vector gives its irqfd up, an unmasked one follows its entry.
 */
static void msix_irqfds_follow(PCIDevice *d, unsigned first, unsigned last)
{
    MSIXState *m = d->msix;

    for (unsigned v = first; v <= last && v < m->nentries; v++) {
        MSIXIrqfd *f = &m->irqfds[v];

        if (f->route < 0) {
            continue;
        }
        if (!msix_enabled(d) || msix_masked(d, v) ||
            vcpus_msi_irqfd_update(f->route, msix_addr(m, v),
                                   msix_data(m, v)) < 0) {
            msix_irqfd_release(m, v);
        }
    }
}

void msix_counts(const PCIDevice *d, uint64_t *by_irqfd, uint64_t *direct,
                 uint64_t *irqfds_made)
{
    *by_irqfd = d->msix ? d->msix->sent_irqfd : 0;
    *direct = d->msix ? d->msix->sent_direct : 0;
    *irqfds_made = d->msix ? d->msix->irqfds_made : 0;
}

void msix_notify(PCIDevice *d, unsigned vector)
{
    if (!msix_enabled(d) || vector >= d->msix->nentries) {
        return;
    }
    if (msix_masked(d, vector)) {
        msix_set_pending(d->msix, vector, true);
        return;
    }
    msix_send(d, vector);
}

/* Send what is pending and no longer masked. */
static void msix_flush(PCIDevice *d, unsigned first, unsigned last)
{
    if (!msix_enabled(d)) {
        return;
    }
    for (unsigned v = first; v <= last && v < d->msix->nentries; v++) {
        if (msix_pending(d->msix, v) && !msix_masked(d, v)) {
            msix_set_pending(d->msix, v, false);
            msix_send(d, v);
        }
    }
}

static uint64_t msix_bar_read(void *opaque, uint64_t addr, unsigned size)
{
    PCIDevice *d = opaque;
    MSIXState *m = d->msix;
    uint64_t v = 0;
    const uint8_t *p;
    uint64_t limit;

    if (addr < m->pba_offset) {
        p = m->table;
        limit = m->nentries * MSIX_ENTRY_SIZE;
    } else {
        p = m->pba;
        addr -= m->pba_offset;
        limit = (m->nentries + 7) / 8;
    }
    for (unsigned i = 0; i < size; i++) {
        if (addr + i < limit) {
            v |= (uint64_t)p[addr + i] << (8 * i);
        }
    }
    return v;
}

static void msix_bar_write(void *opaque, uint64_t addr, uint64_t value,
                           unsigned size)
{
    PCIDevice *d = opaque;
    MSIXState *m = d->msix;
    unsigned first = addr / MSIX_ENTRY_SIZE;
    unsigned last = (addr + size - 1) / MSIX_ENTRY_SIZE;

    /* The PBA is read-only; writes past the table vanish. */
    if (addr >= m->pba_offset || last >= m->nentries) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: MSI-X write at 0x%x outside "
                      "the vector table\n", d->qdev.dc->name, (unsigned)addr);
        return;
    }
    for (unsigned i = 0; i < size; i++) {
        m->table[addr + i] = value >> (8 * i);
    }
    msix_irqfds_follow(d, first, last);
    msix_flush(d, first, last);
}

static const MemoryRegionOps msix_bar_ops = {
    .read = msix_bar_read,
    .write = msix_bar_write,
    .valid = { .min_access_size = 4, .max_access_size = 8 },
    .impl = { .min_access_size = 4, .max_access_size = 8 },
};

bool msix_init_exclusive_bar(PCIDevice *d, unsigned nentries, int bar_nr,
                             uint8_t cap_offset, Error **errp)
{
    MSIXState *m;
    uint64_t table_size = nentries * MSIX_ENTRY_SIZE;
    uint64_t pba_size = ((nentries + 63) / 64) * 8;
    uint64_t bar_size = 4096;

    if (!nentries || nentries > MSIX_MAX_VECTORS) {
        error_setg(errp, "%s: MSI-X needs 1 to %u vectors", d->qdev.dc->name,
                   MSIX_MAX_VECTORS);
        return false;
    }
    while (bar_size / 2 < table_size || bar_size / 2 < pba_size) {
        bar_size *= 2;
    }
    m = g_new0(MSIXState, 1);
    m->nentries = nentries;
    m->pba_offset = bar_size / 2;
    m->table = g_malloc0(table_size);
    m->pba = g_malloc0(pba_size);
    m->irqfds = g_new(MSIXIrqfd, nentries);
    for (unsigned v = 0; v < nentries; v++) {
        m->irqfds[v] = (MSIXIrqfd) { -1, -1 };
    }
    m->table_bytes = table_size;
    m->pba_bytes = pba_size;
    d->msix = m;
    d->msix_cap = pci_add_capability(d, PCI_CAP_ID_MSIX, cap_offset,
                                     MSIX_CAP_SIZE);
    pci_set_word(d->config + d->msix_cap + MSIX_FLAGS, nentries - 1);
    pci_set_long(d->config + d->msix_cap + MSIX_TABLE, bar_nr);
    pci_set_long(d->config + d->msix_cap + MSIX_PBA,
                 m->pba_offset | bar_nr);
    pci_set_word(d->wmask + d->msix_cap + MSIX_FLAGS,
                 MSIX_FLAGS_ENABLE | MSIX_FLAGS_MASKALL);
    memory_region_init_io(&m->bar, "msix", &msix_bar_ops, d, bar_size);
    pci_register_bar(d, bar_nr, 0, &m->bar);
    msix_reset(d);
    return true;
}

void msix_uninit(PCIDevice *d)
{
    MSIXState *m = d->msix;

    if (!m) {
        return;
    }
    msix_irqfds_release(m);
    memory_region_finalize(&m->bar);
    g_free(m->irqfds);
    g_free(m->table);
    g_free(m->pba);
    g_free(m);
    d->msix = NULL;
}

unsigned msix_nr_vectors(const PCIDevice *d)
{
    return d->msix ? d->msix->nentries : 0;
}

void msix_write_config(PCIDevice *d, uint32_t addr, unsigned len)
{
    uint32_t flags = d->msix_cap + MSIX_FLAGS;

    if (d->msix && addr < flags + 2 && addr + len > flags) {
        msix_irqfds_follow(d, 0, d->msix->nentries - 1);
        msix_flush(d, 0, d->msix->nentries - 1);
    }
}

void msix_reset(PCIDevice *d)
{
    MSIXState *m = d->msix;

    if (!m) {
        return;
    }
    msix_irqfds_release(m);
    pci_set_word(d->config + d->msix_cap + MSIX_FLAGS,
                 msix_flags(d) & MSIX_FLAGS_QSIZE);
    memset(m->table, 0, m->nentries * MSIX_ENTRY_SIZE);
    for (unsigned v = 0; v < m->nentries; v++) {
        pci_set_long(m->table + v * MSIX_ENTRY_SIZE + MSIX_ENTRY_CTRL,
                     MSIX_ENTRY_MASKED);
    }
    memset(m->pba, 0, ((m->nentries + 63) / 64) * 8);
}

/* --- migration ----------------------------------------------------------- */

/* Only vectors that exist can be pending. */
static bool msix_pba_check(void *opaque, const VMStateField *f, Error **errp)
{
    MSIXState *m = opaque;

    for (unsigned v = m->nentries; v < m->pba_bytes * 8; v++) {
        if (msix_pending(m, v)) {
            error_setg(errp, "vector %u is pending, the table has %u", v,
                       m->nentries);
            return false;
        }
    }
    return true;
}

static const VMStateDescription vmstate_msix_state = {
    .name = "msix-state",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U8_VARRAY_POINTER(MSIXState, table, table_bytes),
        VMSTATE_U8_VARRAY_POINTER(MSIXState, pba, pba_bytes,
                                  .check = msix_pba_check),
        VMSTATE_END
    },
};

static bool msix_needed(void *opaque)
{
    return ((PCIDevice *)opaque)->msix != NULL;
}

const VMStateDescription vmstate_pci_msix = {
    .name = "msix",
    .version = 1,
    .minimum_version = 1,
    .needed = msix_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT_POINTER(PCIDevice, msix, MSIXState,
                               vmstate_msix_state),
        VMSTATE_END
    },
};
