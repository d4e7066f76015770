/*
 * MSI for PCI devices (hw/pci/msi.c). The generic PCI config write and
 * reset call msi_write_config() and msi_reset() themselves.
 */
#ifndef HW_PCI_MSI_H
#define HW_PCI_MSI_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

typedef struct PCIDevice PCIDevice;

/*
 * The MSI capability at offset with nr_vectors (1, 2, 4 .. 32), 64-bit
 * addresses and per-vector masking as asked.
 */
bool msi_init(PCIDevice *d, uint8_t offset, unsigned nr_vectors,
              bool is_64bit, bool per_vector_mask, Error **errp);
bool msi_enabled(const PCIDevice *d);
/* Signal vector: sent, or pending while masked. */
void msi_notify(PCIDevice *d, unsigned vector);
/* After a config write of [addr, addr + len): unmasked pending go out. */
void msi_write_config(PCIDevice *d, uint32_t addr, unsigned len);
void msi_reset(PCIDevice *d);
/*
 * Set in mask (a config-space-sized array) the bits the device itself
 * changes: the pending bits (migration accepts any value there).
 */
void msi_device_bits(const PCIDevice *d, uint8_t *mask);
/*
 * A message as the device writes it (MSI and MSI-X): into the APICs'
 * window an interrupt through the accelerator, elsewhere a DMA write;
 * nothing while bus mastering is off.
 */
void pci_msi_send(PCIDevice *d, uint64_t addr, uint32_t data);
/* True when a message to addr would be an interrupt (bus master, APICs). */
bool pci_msi_is_interrupt(const PCIDevice *d, uint64_t addr);

#endif
