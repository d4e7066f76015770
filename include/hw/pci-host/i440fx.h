/*
 * The i440FX host bridge: "i440FX-pcihost" owns the PCI bus pci.0, the
 * PCI memory space with QEMU pc-i440fx-7.2's windows into it, and
 * configuration mechanism #1 at 0xcf8/0xcfc; "i440FX" is its PCI
 * function 00.0. The board creates the host, then the functions.
 */
#ifndef HW_PCI_HOST_I440FX_H
#define HW_PCI_HOST_I440FX_H

#include "hw/pci/pci.h"

#define I440FX_HOST_PROP_PCI_HOLE64_SIZE_DEFAULT (1ULL << 31)
/* The 32-bit hole ends where the I/O APIC's page begins. */
#define I440FX_PCI_HOLE_END     0xfec00000ULL

#define PCI_DEVICE_ID_INTEL_82441   0x1237

PCIBus *i440fx_host_bus(DeviceState *host);
/* The PCI memory space, where the board maps the firmware ROM. */
MemoryRegion *i440fx_host_pci_memory(DeviceState *host);
/*
 * Guest RAM from address 0 (below 4 GiB): the PAM and SMRAM windows over
 * 0xa0000-0xfffff switch between it and the PCI space. Once, before the
 * function 00.0 is created.
 */
bool i440fx_host_map_ram(DeviceState *host, MemoryRegion *ram, Error **errp);
/*
 * The windows the board's ACPI tables declare: [hole_start, hole_end)
 * below 4 GiB and [hole64_start, hole64_end) above.
 */
void i440fx_host_holes(DeviceState *host, uint64_t *hole_start,
                       uint64_t *hole_end, uint64_t *hole64_start,
                       uint64_t *hole64_end);
/*
 * Port 0xcf9 shares the index register's dword: byte accesses there go
 * to ops (the PIIX3's reset control register).
 */
void i440fx_host_set_cf9(DeviceState *host, const MemoryRegionOps *ops,
                         void *opaque);

#endif
