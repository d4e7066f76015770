/*
 * Devices: the registry of device types, creation through property
 * tables (board code and -device alike), realize/reset/teardown, GPIOs.
 */
#include <stdio.h>
#include <string.h>

#include "hw/boot-device.h"
#include "hw/bus.h"
#include "hw/qdev.h"
#include "qemu/registry.h"

/*
 * Every device type of this binary, sorted by name (QEMU's -device help
 * order within a category). Each device file adds its class with
 * DEVICE_CLASS_REGISTER() before main() runs.
 */
static Registry device_classes;

void device_class_register(const DeviceClass *dc)
{
    registry_add(&device_classes, dc, dc->name, 0);
    type_register(dc->name, dc->parent ? dc->parent : "device", false);
    type_set_properties(dc->name, dc->props);
}

/* The abstract types devices derive from. */
static void __attribute__((constructor)) qdev_register_types(void)
{
    type_register("device", NULL, true);
    type_register("sys-bus-device", "device", true);
    type_register("isa-device", "device", true);
    type_register("pci-device", "device", true);
    type_register("ide-device", "device", true);
    type_register("virtio-serial-port", "device", true);
}

typedef struct GlobalProperty {
    char *driver;
    char *property;
    char *value;
    bool used;
} GlobalProperty;

static GPtrArray *devices;      /* realized devices, creation order */
static GPtrArray *globals;      /* of GlobalProperty * */

const char *device_class_bus_type(const DeviceClass *dc)
{
    static const struct {
        const char *parent, *bus_type;
    } bus_of_parent[] = {
        { "isa-device", BUS_TYPE_ISA },
        { "pci-device", BUS_TYPE_PCI },
        { "ide-device", BUS_TYPE_IDE },
        { "virtio-serial-port", BUS_TYPE_VIRTIO_SERIAL },
    };

    for (size_t i = 0; dc->parent && i < G_N_ELEMENTS(bus_of_parent); i++) {
        if (!strcmp(dc->parent, bus_of_parent[i].parent)) {
            return bus_of_parent[i].bus_type;
        }
    }
    return BUS_TYPE_SYSTEM;
}

const DeviceClass *device_class_find(const char *name)
{
    return registry_find(&device_classes, name);
}

void device_class_foreach(void (*fn)(const DeviceClass *dc, void *opaque),
                          void *opaque)
{
    const DeviceClass *dc;

    for (unsigned i = 0; (dc = registry_at(&device_classes, i)); i++) {
        fn(dc, opaque);
    }
}

void device_print_help(void)
{
    static const char *const categories[] = {
        "Input devices", "Misc devices", "Storage devices", "Network devices",
        NULL,
    };

    for (int c = 0; categories[c]; c++) {
        bool header = false;

        const DeviceClass *dc;

        for (unsigned i = 0; (dc = registry_at(&device_classes, i)); i++) {
            if (!dc->user_creatable || !dc->category ||
                strcmp(dc->category, categories[c])) {
                continue;
            }
            if (!header) {
                printf("%s%s:\n", c ? "\n" : "", categories[c]);
                header = true;
            }
            printf("name \"%s\", bus %s", dc->name,
                   device_class_bus_type(dc));
            printf(dc->desc ? ", desc \"%s\"\n" : "\n", dc->desc);
        }
    }
}

void qdev_add_global(const char *driver, const char *prop, const char *value)
{
    GlobalProperty *g = g_new0(GlobalProperty, 1);

    g->driver = g_strdup(driver);
    g->property = g_strdup(prop);
    g->value = g_strdup(value);
    if (!globals) {
        globals = g_ptr_array_new();
    }
    g_ptr_array_add(globals, g);
}

DeviceState *qdev_new(const char *type, Error **errp)
{
    const DeviceClass *dc = device_class_find(type);
    DeviceState *dev;

    if (!dc) {
        error_setg(errp, "'%s' is not a valid device model name", type);
        return NULL;
    }
    dev = g_malloc0(dc->instance_size);
    dev->dc = dc;
    dev->gpios = g_ptr_array_new();
    object_set_defaults(dev, dc->props);
    for (guint i = 0; globals && i < globals->len; i++) {
        GlobalProperty *g = g_ptr_array_index(globals, i);
        Error *err = NULL;

        if (strcmp(g->driver, type)) {
            continue;
        }
        g->used = true;
        if (!qdev_prop_set(dev, g->property, g->value, &err)) {
            error_prepend(&err, "-global %s.%s=%s: ", g->driver, g->property,
                          g->value);
            error_propagate(errp, err);
            object_free_strings(dev, dc->props);
            g_ptr_array_free(dev->gpios, TRUE);
            g_free(dev);
            return NULL;
        }
    }
    return dev;
}

bool qdev_prop_set(DeviceState *dev, const char *name, const char *value,
                   Error **errp)
{
    return object_property_parse(dev, dev->dc->props, dev->dc->name, name,
                                 value, errp);
}

void qdev_set_parent(DeviceState *dev, Object *parent, const char *name)
{
    dev->parent_obj = parent;
    g_free(dev->child_name);
    dev->child_name = g_strdup(name);
}

static void gpio_list_free(gpointer p)
{
    NamedGPIOList *l = p;

    if (l->input) {
        qemu_free_irqs(l->lines, l->num);
    }
    g_free(l->name);
    g_free(l);
}

void qdev_free_unrealized(DeviceState *dev)
{
    boot_device_del(dev);
    if (dev->bus) {
        g_ptr_array_remove(dev->bus->children, dev);
    }
    g_ptr_array_set_free_func(dev->gpios, gpio_list_free);
    g_ptr_array_free(dev->gpios, TRUE);
    object_free_strings(dev, dev->dc->props);
    g_free(dev->id);
    g_free(dev->child_name);
    g_free(dev);
}

static void add_bus_child(BusState *bus, void *opaque)
{
    qbus_add_qom_child(bus);
}

/* A bootable class's bootindex into the bootorder registry. */
static bool qdev_add_boot_device(DeviceState *dev, Error **errp)
{
    const Property *p = object_prop_find(dev->dc->props, "bootindex");

    if (!dev->dc->boot_suffix) {
        return true;
    }
    g_assert(p && p->type == PROP_TYPE_INT32);
    return boot_device_add(*(int32_t *)((char *)dev + p->offset), dev,
                           dev->dc->boot_suffix, errp);
}

bool qdev_realize(DeviceState *dev, Error **errp)
{
    Object *parent;
    const char *name;

    /* On the bus -device named, else the first of its type there is. */
    if (!dev->bus) {
        dev->bus = qbus_find_type(device_class_bus_type(dev->dc));
    }
    if (!qdev_add_boot_device(dev, errp) ||
        (dev->dc->realize && !dev->dc->realize(dev, errp))) {
        dev->bus = NULL;
        qdev_free_unrealized(dev);
        return false;
    }
    if (dev->parent_obj) {
        parent = dev->parent_obj;
        name = dev->child_name;
    } else if (dev->id) {
        parent = object_get_container("/machine/peripheral");
        name = dev->id;
    } else {
        parent = object_get_container(dev->child_name
                                      ? "/machine/peripheral-anon"
                                      : "/machine/unattached");
        name = "device[*]";
    }
    dev->obj = object_add_child(parent, name, dev->dc->name, dev,
                                dev->dc->props, errp);
    if (dev->obj && dev->dc->virtio_backend &&
        !object_add_child(dev->obj, "virtio-backend",
                          dev->dc->virtio_backend, NULL, NULL, errp)) {
        object_unparent(dev->obj);
        dev->obj = NULL;
    }
    if (!dev->obj) {
        if (dev->dc->unrealize) {
            dev->dc->unrealize(dev);
        }
        qdev_free_unrealized(dev);
        return false;
    }
    /* Buses made in realize (a host bridge's pci.0) under the new node. */
    qbus_foreach_child_bus(dev, add_bus_child, NULL);
    dev->realized = true;
    if (!devices) {
        devices = g_ptr_array_new();
    }
    g_ptr_array_add(devices, dev);
    if (dev->bus) {
        g_ptr_array_add(dev->bus->children, dev);
    }
    if (dev->dc->reset) {
        dev->dc->reset(dev);
    }
    return true;
}

const DeviceClass *qdev_device_check(const QemuOpts *opts, Error **errp)
{
    const char *driver = qemu_opt_get(opts, "driver");
    const char *id = qemu_opt_get(opts, "id");
    const DeviceClass *dc = driver ? device_class_find(driver) : NULL;

    if (!driver) {
        error_setg(errp, "Parameter 'driver' is missing");
        return NULL;
    }
    if (!dc) {
        error_setg(errp, "'%s' is not a valid device model name", driver);
        return NULL;
    }
    if (!dc->user_creatable) {
        error_setg(errp, "Parameter 'driver' expects a pluggable device "
                   "type");
        return NULL;
    }
    if (id && !id_wellformed(id)) {
        error_setg(errp, "Parameter 'id' expects an identifier");
        return NULL;
    }
    return dc;
}

DeviceState *qdev_device_add(const QemuOpts *opts, Error **errp)
{
    const char *driver = qemu_opt_get(opts, "driver");
    const char *id = qemu_opt_get(opts, "id");
    const char *bus_name = qemu_opt_get(opts, "bus");
    const DeviceClass *dc = qdev_device_check(opts, errp);
    BusState *bus = NULL;
    DeviceState *dev;

    if (!dc) {
        return NULL;
    }
    if (id) {
        char *path = g_strconcat("/machine/peripheral/", id, NULL);
        bool taken = object_resolve_path(path, NULL) != NULL;

        g_free(path);
        if (taken) {
            error_setg(errp, "Duplicate device ID '%s'", id);
            return NULL;
        }
    }
    if (bus_name) {
        bus = qbus_find(bus_name);
        if (!bus) {
            error_setg(errp, "Bus '%s' not found", bus_name);
            return NULL;
        }
        if (strcmp(bus->type, device_class_bus_type(dc))) {
            error_setg(errp, "Device '%s' can't go on %s bus", driver,
                       bus->type);
            return NULL;
        }
    }
    dev = qdev_new(driver, errp);
    if (!dev) {
        return NULL;
    }
    dev->bus = bus;
    for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
        const QemuOpt *opt = qemu_opts_nth(opts, i);

        if (!strcmp(opt->name, "driver") || !strcmp(opt->name, "id") ||
            !strcmp(opt->name, "bus")) {
            continue;
        }
        if (!qdev_prop_set(dev, opt->name, opt->value, errp)) {
            qdev_free_unrealized(dev);
            return NULL;
        }
    }
    dev->id = g_strdup(id);
    /* Anonymous user devices live under /machine/peripheral-anon. */
    if (!id) {
        dev->child_name = g_strdup("device[*]");
    }
    return qdev_realize(dev, errp) ? dev : NULL;
}

void qdev_reset_all(void)
{
    for (guint i = 0; devices && i < devices->len; i++) {
        DeviceState *dev = g_ptr_array_index(devices, i);

        if (dev->dc->reset) {
            dev->dc->reset(dev);
        }
    }
}

void qdev_destroy_all(void)
{
    while (devices && devices->len) {
        DeviceState *dev = g_ptr_array_index(devices, devices->len - 1);

        g_ptr_array_remove_index(devices, devices->len - 1);
        if (dev->dc->unrealize) {
            dev->dc->unrealize(dev);
        }
        if (dev->obj) {
            object_unparent(dev->obj);
        }
        qdev_free_unrealized(dev);
    }
    if (devices) {
        g_ptr_array_free(devices, TRUE);
        devices = NULL;
    }
    for (guint i = 0; globals && i < globals->len; i++) {
        GlobalProperty *g = g_ptr_array_index(globals, i);

        g_free(g->driver);
        g_free(g->property);
        g_free(g->value);
        g_free(g);
    }
    if (globals) {
        g_ptr_array_free(globals, TRUE);
        globals = NULL;
    }
}

DeviceState *qdev_from_object(Object *obj)
{
    for (guint i = 0; devices && i < devices->len; i++) {
        DeviceState *dev = g_ptr_array_index(devices, i);

        if (dev->obj == obj) {
            return dev;
        }
    }
    return NULL;
}

static void fw_dev_path_append(GString *path, const DeviceState *dev)
{
    const BusState *bus = dev->bus;
    char *node;

    if (!bus) {
        return;
    }
    if (bus->parent) {
        fw_dev_path_append(path, bus->parent);
    }
    node = bus->fw_dev_path ? bus->fw_dev_path(bus, dev) : NULL;
    if (node) {
        g_string_append_printf(path, "/%s", node);
        g_free(node);
    }
}

char *qdev_fw_dev_path(const DeviceState *dev)
{
    GString *path = g_string_new(NULL);

    fw_dev_path_append(path, dev);
    return g_string_free(path, false);
}

void qdev_foreach(void (*fn)(DeviceState *dev, void *opaque), void *opaque)
{
    for (guint i = 0; devices && i < devices->len; i++) {
        fn(g_ptr_array_index(devices, i), opaque);
    }
}

void qdev_check_globals(void)
{
    for (guint i = 0; globals && i < globals->len; i++) {
        GlobalProperty *g = g_ptr_array_index(globals, i);

        if (!g->used && !device_class_find(g->driver)) {
            warn_report("global %s.%s has invalid class name", g->driver,
                        g->property);
        }
    }
}

static const char *gpio_name(const char *name, bool input)
{
    if (name) {
        return name;
    }
    return input ? "unnamed-gpio-in" : "unnamed-gpio-out";
}

NamedGPIOList *qdev_get_named_gpio_list(DeviceState *dev, const char *name,
                                        bool input)
{
    const char *n = gpio_name(name, input);

    for (guint i = 0; i < dev->gpios->len; i++) {
        NamedGPIOList *l = g_ptr_array_index(dev->gpios, i);

        if (l->input == input && !strcmp(l->name, n)) {
            return l;
        }
    }
    return NULL;
}

void qdev_init_gpio_in_named(DeviceState *dev, qemu_irq_handler handler,
                             const char *name, int n)
{
    NamedGPIOList *l = g_new0(NamedGPIOList, 1);

    l->name = g_strdup(gpio_name(name, true));
    l->input = true;
    l->num = n;
    l->lines = qemu_allocate_irqs(handler, dev, n);
    g_ptr_array_add(dev->gpios, l);
}

void qdev_init_gpio_out_named(DeviceState *dev, qemu_irq *pins,
                              const char *name, int n)
{
    NamedGPIOList *l = g_new0(NamedGPIOList, 1);

    l->name = g_strdup(gpio_name(name, false));
    l->input = false;
    l->num = n;
    l->lines = pins;
    g_ptr_array_add(dev->gpios, l);
}

qemu_irq qdev_get_gpio_in_named(DeviceState *dev, const char *name, int n)
{
    NamedGPIOList *l = qdev_get_named_gpio_list(dev, name, true);

    g_assert(l && n >= 0 && n < l->num);
    return l->lines[n];
}

void qdev_connect_gpio_out_named(DeviceState *dev, const char *name, int n,
                                 qemu_irq irq)
{
    NamedGPIOList *l = qdev_get_named_gpio_list(dev, name, false);

    g_assert(l && n >= 0 && n < l->num);
    l->lines[n] = irq;
}
