/*
 * Buses (include/hw/bus.h): a registry by name, the root system bus, and
 * the children each bus has.
 */
#include <string.h>

#include "hw/bus.h"
#include "hw/qdev.h"

/* A system-bus device's firmware path node is its class's fw_name. */
static char *sysbus_fw_dev_path(const BusState *bus, const DeviceState *dev)
{
    return g_strdup(dev->dc->fw_name);
}

static BusState main_system_bus = {
    .name = (char *)"main-system-bus",
    .type = BUS_TYPE_SYSTEM,
    .as = &address_space_memory,
    .fw_dev_path = sysbus_fw_dev_path,
};
static GPtrArray *buses;        /* of BusState *, the boards' */

BusState *qbus_main_system_bus(void)
{
    if (!main_system_bus.children) {
        main_system_bus.children = g_ptr_array_new();
    }
    return &main_system_bus;
}

void qbus_init(BusState *bus, const char *name, const char *type,
               AddressSpace *as)
{
    bus->name = g_strdup(name);
    bus->type = type;
    bus->as = as;
    bus->children = g_ptr_array_new();
    if (!buses) {
        buses = g_ptr_array_new();
    }
    g_ptr_array_add(buses, bus);
}

void qbus_deinit(BusState *bus)
{
    g_ptr_array_remove(buses, bus);
    g_ptr_array_free(bus->children, true);
    g_free(bus->name);
    bus->children = NULL;
    bus->name = NULL;
}

BusState *qbus_new(const char *name, const char *type, AddressSpace *as)
{
    BusState *bus = g_new0(BusState, 1);

    qbus_init(bus, name, type, as);
    return bus;
}

void qbus_free(BusState *bus)
{
    if (!bus) {
        return;
    }
    qbus_deinit(bus);
    g_free(bus);
}

BusState *qbus_find(const char *name)
{
    if (!strcmp(name, main_system_bus.name)) {
        return qbus_main_system_bus();
    }
    for (guint i = 0; buses && i < buses->len; i++) {
        BusState *bus = g_ptr_array_index(buses, i);

        if (!strcmp(bus->name, name)) {
            return bus;
        }
    }
    return NULL;
}

BusState *qbus_find_type(const char *type)
{
    if (!strcmp(type, BUS_TYPE_SYSTEM)) {
        return qbus_main_system_bus();
    }
    for (guint i = 0; buses && i < buses->len; i++) {
        BusState *bus = g_ptr_array_index(buses, i);

        if (!strcmp(bus->type, type)) {
            return bus;
        }
    }
    return NULL;
}

void qbus_set_parent(BusState *bus, DeviceState *dev)
{
    bus->parent = dev;
    if (dev->obj) {
        qbus_add_qom_child(bus);
    }
}

void qbus_add_qom_child(BusState *bus)
{
    Object *parent = bus->parent->obj;
    Error *err = NULL;

    /* A virtio proxy's buses are its backend's, as in QEMU. */
    if (bus->parent->dc->virtio_backend) {
        char *path = object_get_canonical_path(parent);
        char *backend = g_strconcat(path, "/virtio-backend", NULL);
        Object *b = object_resolve_path(backend, NULL);

        parent = b ? b : parent;
        g_free(backend);
        g_free(path);
    }
    if (!object_add_child(parent, bus->name, bus->type, NULL, NULL, &err)) {
        /* A device with a property of the bus's name: keep the device's. */
        error_free(err);
    }
}

void qbus_foreach_child_bus(DeviceState *dev,
                            void (*fn)(BusState *bus, void *opaque),
                            void *opaque)
{
    for (guint i = 0; buses && i < buses->len; i++) {
        BusState *bus = g_ptr_array_index(buses, i);

        if (bus->parent == dev) {
            fn(bus, opaque);
        }
    }
}
