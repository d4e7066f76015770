/*
 * Buses (include/hw/bus.h): a registry by name, the root system bus, and
 * the children each bus has.
 */
#include <string.h>

#include "hw/bus.h"

static BusState main_system_bus = {
    .name = (char *)"main-system-bus",
    .type = BUS_TYPE_SYSTEM,
    .as = &address_space_memory,
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
