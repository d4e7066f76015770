/*
 * Buses: a device plugs into a bus of the type its class names (ISA
 * devices into "ISA", the rest into the root "System" bus); a bus has a
 * name ("isa.0", QEMU's), its children and the address space they
 * decode. "main-system-bus" always exists; boards add theirs
 * (hw/i386/pc_piix.c: isa.0). -device DRIVER,bus=NAME picks one, with
 * QEMU's errors for a bus that is missing or of the wrong type.
 */
#ifndef HW_BUS_H
#define HW_BUS_H

#include <glib.h>

#include "qemu/error.h"
#include "system/memory.h"

typedef struct BusState {
    char *name;                 /* "isa.0" */
    const char *type;           /* "ISA", "System" */
    AddressSpace *as;           /* what its devices decode */
    GPtrArray *children;        /* of DeviceState *, plugging order */
    struct DeviceState *parent; /* the device it is behind, or NULL */
    /*
     * A child's node in firmware device paths ("scsi@4" on PCI), or NULL
     * when the child has none (its level is left out of the path).
     */
    char *(*fw_dev_path)(const struct BusState *bus,
                         const struct DeviceState *dev);
} BusState;

#define BUS_TYPE_SYSTEM     "System"
#define BUS_TYPE_ISA        "ISA"
#define BUS_TYPE_PCI        "PCI"
#define BUS_TYPE_IDE        "IDE"
#define BUS_TYPE_VIRTIO_SERIAL "virtio-serial-bus"

/* A board's bus; the board frees it with qbus_free(). */
BusState *qbus_new(const char *name, const char *type, AddressSpace *as);
void qbus_free(BusState *bus);
/* The same for a bus inside a larger struct (a PCIBus). */
void qbus_init(BusState *bus, const char *name, const char *type,
               AddressSpace *as);
void qbus_deinit(BusState *bus);
/*
 * The device the bus is behind (pci.0 behind the host bridge, isa.0
 * behind the PIIX3), as QEMU's tree shows it: info qtree nests the bus
 * under the device, and QOM has it as the device's child NAME (at once,
 * or when the device is realized).
 */
void qbus_set_parent(BusState *bus, struct DeviceState *dev);
/* For qdev_realize(): the QOM child of a bus whose parent got its node. */
void qbus_add_qom_child(BusState *bus);
/* The buses behind dev, in creation order (each with fn). */
void qbus_foreach_child_bus(struct DeviceState *dev,
                            void (*fn)(BusState *bus, void *opaque),
                            void *opaque);
BusState *qbus_find(const char *name);
/* The first bus of type (the root one for "System"), or NULL. */
BusState *qbus_find_type(const char *type);
BusState *qbus_main_system_bus(void);

#endif
