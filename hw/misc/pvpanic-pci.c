/*
 * pvpanic-pci: the panic register (hw/misc/pvpanic.c) in BAR0, 2 bytes
 * of memory, as QEMU 7.2's 1b36:0011 (class 0880, "other system
 * peripheral"). Linux's pvpanic_pci driver binds to it.
 */
#include "hw/misc/pvpanic.h"
#include "hw/pci/pci.h"

#define PCI_DEVICE_ID_REDHAT_PVPANIC    0x0011
#define PCI_CLASS_SYSTEM_OTHER          0x0880
#define PVPANIC_PCI_BAR_SIZE            2

typedef struct PVPanicPCIState {
    PCIDevice parent;
    PVPanicState pvpanic;
} PVPanicPCIState;

static bool pvpanic_pci_realize(PCIDevice *d, Error **errp)
{
    PVPanicPCIState *s = (PVPanicPCIState *)d;

    pvpanic_init_region(&s->pvpanic, PVPANIC_PCI_BAR_SIZE);
    pci_register_bar(d, 0, 0, &s->pvpanic.mr);
    return true;
}

static void pvpanic_pci_exit(PCIDevice *d)
{
    PVPanicPCIState *s = (PVPanicPCIState *)d;

    memory_region_finalize(&s->pvpanic.mr);
}

static const Property pvpanic_pci_props[] = {
    DEFINE_PROP_UINT8("events", PVPanicPCIState, pvpanic.events,
                      PVPANIC_EVENTS),
    PCI_DEVICE_PROPS,
    PROP_END,
};

const PCIDeviceClass pvpanic_pci_device_class = {
    .parent = {
        .name = "pvpanic-pci",
        .category = "Misc devices",
        .instance_size = sizeof(PVPanicPCIState),
        .props = pvpanic_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_pci_device,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT,
    .device_id = PCI_DEVICE_ID_REDHAT_PVPANIC,
    .revision = 1,
    .class_id = PCI_CLASS_SYSTEM_OTHER,
    .realize = pvpanic_pci_realize,
    .exit = pvpanic_pci_exit,
};

DEVICE_CLASS_REGISTER(pvpanic_pci_device_class)
