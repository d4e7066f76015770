/*
 * MSI-X for PCI devices (hw/pci/msix.c). The generic PCI config write
 * and reset call msix_write_config() and msix_reset() themselves.
 */
#ifndef HW_PCI_MSIX_H
#define HW_PCI_MSIX_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

typedef struct PCIDevice PCIDevice;
typedef struct MSIXState MSIXState;

/*
 * nentries vectors with their table and PBA in BAR bar_nr (a 32-bit
 * memory BAR of its own), the capability at cap_offset.
 */
bool msix_init_exclusive_bar(PCIDevice *d, unsigned nentries, int bar_nr,
                             uint8_t cap_offset, Error **errp);
void msix_uninit(PCIDevice *d);
bool msix_enabled(const PCIDevice *d);
unsigned msix_nr_vectors(const PCIDevice *d);
/* Signal vector: sent, or pending while it or the function is masked. */
void msix_notify(PCIDevice *d, unsigned vector);
/*
 * Messages sent so far through the accelerator's irqfds and otherwise,
 * and how many irqfds (with their routes) were made for them.
 */
void msix_counts(const PCIDevice *d, uint64_t *by_irqfd, uint64_t *direct,
                 uint64_t *irqfds_made);
void msix_write_config(PCIDevice *d, uint32_t addr, unsigned len);
void msix_reset(PCIDevice *d);
/*
 * The vector table (addresses, data, masks) and the pending bits, a
 * subsection of vmstate_pci_device saved while the device has MSI-X.
 */
struct VMStateDescription;
extern const struct VMStateDescription vmstate_pci_msix;

#endif
