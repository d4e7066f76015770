/*
 * MSI (PCI Local Bus 3.0, 6.8.1): the capability
 *   +0 ID 0x05, next    +2 message control: enable (bit 0), vectors
 *   capable (3:1, log2), vectors enabled (6:4), 64-bit (7), per-vector
 *   masking (8)
 *   +4 address low      [+8 address high]    then data (16 bits), and
 *   with per-vector masking the mask and pending bits.
 * A message goes out as the PCI spec says, as a dword write of data to
 * address by the device: one into the APICs' window (0xfeexxxxx) is an
 * interrupt, delivered through the accelerator; anywhere else it is
 * plain DMA (QEMU does the same; libqos tests point MSI-X at RAM).
 */
#include "hw/intc/apic.h"
#include "hw/pci/msi.h"
#include "hw/pci/pci.h"
#include "system/cpus.h"

#define MSI_FLAGS               2
#define MSI_FLAGS_ENABLE        0x0001
#define MSI_FLAGS_QMASK         0x000e
#define MSI_FLAGS_QSIZE         0x0070
#define MSI_FLAGS_64BIT         0x0080
#define MSI_FLAGS_MASKBIT       0x0100
#define MSI_ADDRESS_LO          4

static uint16_t msi_flags(const PCIDevice *d)
{
    return pci_get_word(d->config + d->msi_cap + MSI_FLAGS);
}

static bool msi_64bit(const PCIDevice *d)
{
    return msi_flags(d) & MSI_FLAGS_64BIT;
}

static uint8_t msi_data_off(const PCIDevice *d)
{
    return d->msi_cap + (msi_64bit(d) ? 12 : 8);
}

static uint8_t msi_mask_off(const PCIDevice *d)
{
    return d->msi_cap + (msi_64bit(d) ? 16 : 12);
}

static bool msi_maskable(const PCIDevice *d)
{
    return msi_flags(d) & MSI_FLAGS_MASKBIT;
}

bool pci_msi_is_interrupt(const PCIDevice *d, uint64_t addr)
{
    return (pci_get_word(d->config + PCI_COMMAND) & PCI_COMMAND_MASTER) &&
           (addr & ~(APIC_MSI_SIZE - 1)) == APIC_MSI_BASE;
}

void pci_msi_send(PCIDevice *d, uint64_t addr, uint32_t data)
{
    uint8_t buf[4] = { data, data >> 8, data >> 16, data >> 24 };

    if (!(pci_get_word(d->config + PCI_COMMAND) & PCI_COMMAND_MASTER)) {
        return;
    }
    if ((addr & ~(APIC_MSI_SIZE - 1)) == APIC_MSI_BASE) {
        vcpus_deliver_msi(addr, data);
        return;
    }
    pci_dma_rw(d, addr, buf, sizeof(buf), true);
}

bool msi_init(PCIDevice *d, uint8_t offset, unsigned nr_vectors,
              bool is_64bit, bool per_vector_mask, Error **errp)
{
    unsigned log2 = 0;
    uint8_t size;
    uint16_t flags;

    while ((1u << log2) < nr_vectors) {
        log2++;
    }
    if (!nr_vectors || nr_vectors > 32 || (1u << log2) != nr_vectors) {
        error_setg(errp, "%s: MSI needs 1, 2, 4, ... or 32 vectors",
                   d->qdev.dc->name);
        return false;
    }
    size = 10 + (is_64bit ? 4 : 0) + (per_vector_mask ? 10 : 0);
    d->msi_cap = pci_add_capability(d, PCI_CAP_ID_MSI, offset, size);
    d->msi_vectors = nr_vectors;
    flags = log2 << 1;
    if (is_64bit) {
        flags |= MSI_FLAGS_64BIT;
    }
    if (per_vector_mask) {
        flags |= MSI_FLAGS_MASKBIT;
    }
    pci_set_word(d->config + d->msi_cap + MSI_FLAGS, flags);
    pci_set_word(d->wmask + d->msi_cap + MSI_FLAGS,
                 MSI_FLAGS_QSIZE | MSI_FLAGS_ENABLE);
    pci_set_long(d->wmask + d->msi_cap + MSI_ADDRESS_LO, 0xfffffffc);
    if (is_64bit) {
        pci_set_long(d->wmask + d->msi_cap + 8, 0xffffffff);
    }
    pci_set_word(d->wmask + msi_data_off(d), 0xffff);
    if (per_vector_mask) {
        pci_set_long(d->wmask + msi_mask_off(d),
                     nr_vectors == 32 ? 0xffffffff : (1u << nr_vectors) - 1);
    }
    return true;
}

bool msi_enabled(const PCIDevice *d)
{
    return d->msi_cap && (msi_flags(d) & MSI_FLAGS_ENABLE);
}

/* The vectors the guest enabled (a power of two, at most capable). */
static unsigned msi_nr_enabled(const PCIDevice *d)
{
    unsigned q = (msi_flags(d) & MSI_FLAGS_QSIZE) >> 4;
    unsigned cap = (msi_flags(d) & MSI_FLAGS_QMASK) >> 1;

    return 1u << MIN(q, cap);
}

static void msi_send_vector(PCIDevice *d, unsigned vector)
{
    uint64_t addr = pci_get_long(d->config + d->msi_cap + MSI_ADDRESS_LO);
    uint16_t data = pci_get_word(d->config + msi_data_off(d));
    unsigned n = msi_nr_enabled(d);

    if (msi_64bit(d)) {
        addr |= (uint64_t)pci_get_long(d->config + d->msi_cap + 8) << 32;
    }
    /* With n vectors the low log2(n) data bits carry the vector. */
    data = (data & ~(n - 1)) | (vector & (n - 1));
    pci_msi_send(d, addr, data);
}

void msi_notify(PCIDevice *d, unsigned vector)
{
    if (!msi_enabled(d) || vector >= msi_nr_enabled(d)) {
        return;
    }
    if (msi_maskable(d)) {
        uint8_t *mask = d->config + msi_mask_off(d);

        if (pci_get_long(mask) & (1u << vector)) {
            pci_set_long(mask + 4, pci_get_long(mask + 4) | 1u << vector);
            return;
        }
    }
    msi_send_vector(d, vector);
}

void msi_write_config(PCIDevice *d, uint32_t addr, unsigned len)
{
    uint8_t *mask;
    uint32_t pending;

    if (!d->msi_cap || !msi_maskable(d) || !msi_enabled(d) ||
        addr + len <= d->msi_cap || addr >= (uint32_t)msi_mask_off(d) + 8) {
        return;
    }
    /* Vectors unmasked while pending go out now. */
    mask = d->config + msi_mask_off(d);
    pending = pci_get_long(mask + 4) & ~pci_get_long(mask);
    for (unsigned v = 0; v < msi_nr_enabled(d); v++) {
        if (pending & (1u << v)) {
            pci_set_long(mask + 4, pci_get_long(mask + 4) & ~(1u << v));
            msi_send_vector(d, v);
        }
    }
}

void msi_device_bits(const PCIDevice *d, uint8_t *mask)
{
    if (d->msi_cap && msi_maskable(d)) {
        pci_set_long(mask + msi_mask_off(d) + 4, 0xffffffff);
    }
}

void msi_reset(PCIDevice *d)
{
    uint16_t flags;

    if (!d->msi_cap) {
        return;
    }
    flags = msi_flags(d) & ~(MSI_FLAGS_ENABLE | MSI_FLAGS_QSIZE);
    pci_set_word(d->config + d->msi_cap + MSI_FLAGS, flags);
    pci_set_long(d->config + d->msi_cap + MSI_ADDRESS_LO, 0);
    if (msi_64bit(d)) {
        pci_set_long(d->config + d->msi_cap + 8, 0);
    }
    pci_set_word(d->config + msi_data_off(d), 0);
    if (msi_maskable(d)) {
        pci_set_long(d->config + msi_mask_off(d), 0);
        pci_set_long(d->config + msi_mask_off(d) + 4, 0);
    }
}
