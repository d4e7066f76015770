/*
 * Devices: a state struct that starts with DeviceState, a DeviceClass
 * (name, properties, realize/reset/unrealize), named GPIO lines. A board
 * wires devices in plain code; -device creates user devices through the
 * same property tables.
 */
#ifndef HW_QDEV_H
#define HW_QDEV_H

#include <stdbool.h>
#include <stddef.h>

#include "hw/irq.h"
#include "qemu/error.h"
#include "qemu/option.h"
#include "qom/object.h"

typedef struct DeviceState DeviceState;

typedef struct DeviceClass {
    const char *name;           /* "isa-serial" */
    const char *parent;         /* "isa-device", "sys-bus-device" */
    const char *desc;
    const char *category;       /* -device help groups: "Input devices"... */
    size_t instance_size;
    const Property *props;
    bool user_creatable;        /* allowed with -device */
    /*
     * The type of a "virtio-backend" child node, as QEMU's virtio-pci
     * devices have ("virtio-blk-device"); libvirt names a disk by that
     * node's path. NULL: no such child.
     */
    const char *virtio_backend;
    /*
     * Its node in firmware device paths on the system bus, QEMU's
     * "name@i<first port>" ("pci@i0cf8"); NULL: none.
     */
    const char *fw_name;
    /*
     * A bootable device: the suffix of its entry in the bootorder list
     * ("/disk@0,0", include/hw/boot-device.h), its index being its
     * int32 "bootindex" property. qdev_realize() registers it first (as
     * QEMU checks the index when the property is set); freeing the
     * device drops it. NULL: not bootable.
     */
    const char *boot_suffix;
    bool (*realize)(DeviceState *dev, Error **errp);
    void (*reset)(DeviceState *dev);
    void (*unrealize)(DeviceState *dev);
    /*
     * Its migratable state (include/migration/vmstate.h), the device
     * struct being the table's opaque; NULL: the device cannot migrate
     * (a migration is refused while it exists).
     */
    const struct VMStateDescription *vmsd;
} DeviceClass;

typedef struct NamedGPIOList {
    char *name;                 /* "unnamed-gpio-in" when created unnamed */
    bool input;
    int num;
    qemu_irq *lines;            /* inputs: allocated lines; outputs: pins */
} NamedGPIOList;

struct DeviceState {
    const DeviceClass *dc;
    Object *obj;                /* its node in the tree, once realized */
    char *id;                   /* -device ...,id=ID, or NULL */
    bool realized;
    GPtrArray *gpios;           /* of NamedGPIOList * */
    /* For a board: where to hang it instead of /machine/unattached. */
    Object *parent_obj;
    char *child_name;
    struct BusState *bus;       /* the bus it plugs into, once realized */
};

/*
 * The device types of this binary: each device file ends with
 * DEVICE_CLASS_REGISTER(its_class), which adds the class (and its QOM
 * type) to the registry of hw/core/qdev.c before main() runs. A PCI
 * class starts with its DeviceClass, so it registers the same way.
 */
void device_class_register(const DeviceClass *dc);
#define DEVICE_CLASS_REGISTER(cls) \
    static void __attribute__((constructor)) cls##_register(void) \
    { \
        device_class_register((const DeviceClass *)&(cls)); \
    }
const DeviceClass *device_class_find(const char *name);
/* The bus type a class plugs into: "ISA" for ISA devices, else "System". */
const char *device_class_bus_type(const DeviceClass *dc);
void device_class_foreach(void (*fn)(const DeviceClass *dc, void *opaque),
                          void *opaque);
void device_print_help(void);
/* -device DRIVER,help: the class's properties in QEMU's layout. */
void device_print_props(const DeviceClass *dc);

/* Allocate a device with its defaults; -global values are applied. */
DeviceState *qdev_new(const char *type, Error **errp);
bool qdev_prop_set(DeviceState *dev, const char *name, const char *value,
                   Error **errp);
/* Put the device at parent/name instead of /machine/unattached/device[N]. */
void qdev_set_parent(DeviceState *dev, Object *parent, const char *name);
/* Free a device that qdev_new() made and that was never realized. */
void qdev_free_unrealized(DeviceState *dev);
/* Realize and add to the tree; on failure the device is freed. */
bool qdev_realize(DeviceState *dev, Error **errp);
/*
 * What can be checked of a -device before anything exists (the driver
 * is a device a user may create, the id well formed): its class.
 */
const DeviceClass *qdev_device_check(const QemuOpts *opts, Error **errp);
/* -device DRIVER,prop=val,id=ID from parsed options. */
DeviceState *qdev_device_add(const QemuOpts *opts, Error **errp);
/* Reset every realized device, in creation order. */
void qdev_reset_all(void);
/* Unrealize and free every device, newest first (at exit). */
void qdev_destroy_all(void);
DeviceState *qdev_from_object(Object *obj);
/*
 * The device's OpenFirmware-style path as QEMU's firmware interface
 * writes it: the nodes its buses give, root first, each after a '/'
 * ("/pci@i0cf8/scsi@4"); "" for a device without any. g_free() it.
 */
char *qdev_fw_dev_path(const DeviceState *dev);
void qdev_foreach(void (*fn)(DeviceState *dev, void *opaque), void *opaque);
/* The device tree as QEMU's HMP "info qtree" prints it. */
void qdev_print_tree(GString *out);

/* -global DRIVER.PROP=VALUE, applied by qdev_new(). */
void qdev_add_global(const char *driver, const char *prop, const char *value);
/*
 * A board consumed the globals of driver itself (e.g. kvm-pit, which is
 * not a device here): do not warn about them.
 */
/* Globals naming a driver or property that no device had. */
void qdev_check_globals(void);

/* GPIOs; name NULL means the unnamed list ("unnamed-gpio-in/out"). */
void qdev_init_gpio_in_named(DeviceState *dev, qemu_irq_handler handler,
                             const char *name, int n);
void qdev_init_gpio_out_named(DeviceState *dev, qemu_irq *pins,
                              const char *name, int n);
qemu_irq qdev_get_gpio_in_named(DeviceState *dev, const char *name, int n);
void qdev_connect_gpio_out_named(DeviceState *dev, const char *name, int n,
                                 qemu_irq irq);
NamedGPIOList *qdev_get_named_gpio_list(DeviceState *dev, const char *name,
                                        bool input);

static inline qemu_irq qdev_get_gpio_in(DeviceState *dev, int n)
{
    return qdev_get_gpio_in_named(dev, NULL, n);
}

#endif
