/*
 * QMP query-pci: every function of every PCI bus, in QEMU 7.2's shape
 * ({"bus", "devices": [{"bus", "slot", "function", "class_info", "id",
 * "irq"?, "irq_pin", "qdev_id", "regions"}]}); HMP "info pci" prints it.
 */
#include "hw/pci/pci.h"
#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"

static JsonObject *pci_region_info(const PCIDevice *d, int n)
{
    const PCIIORegion *r = &d->io_regions[n];
    JsonObject *o = json_object_new();
    bool io = r->type & PCI_BASE_ADDRESS_SPACE_IO;

    json_object_set_int_member(o, "bar", n);
    json_object_set_string_member(o, "type", io ? "io" : "memory");
    json_object_set_int_member(o, "address", (gint64)r->addr);
    json_object_set_int_member(o, "size", (gint64)r->size);
    if (!io) {
        json_object_set_boolean_member(o, "prefetch",
                                       r->type & PCI_BASE_ADDRESS_MEM_PREFETCH);
        json_object_set_boolean_member(o, "mem_type_64",
                                       r->type & PCI_BASE_ADDRESS_MEM_TYPE_64);
    }
    return o;
}

static JsonObject *pci_device_info(const PCIDevice *d, int bus_num)
{
    JsonObject *o = json_object_new();
    JsonObject *cls = json_object_new(), *id = json_object_new();
    JsonArray *regions = json_array_new();
    uint16_t class_id = pci_get_word(d->config + PCI_CLASS_DEVICE);
    const char *desc = pci_class_desc(class_id);

    json_object_set_int_member(o, "bus", bus_num);
    json_object_set_int_member(o, "slot", PCI_SLOT(d->devfn));
    json_object_set_int_member(o, "function", PCI_FUNC(d->devfn));
    json_object_set_int_member(cls, "class", class_id);
    if (desc) {
        json_object_set_string_member(cls, "desc", desc);
    }
    json_object_set_object_member(o, "class_info", cls);
    json_object_set_int_member(id, "vendor",
                               pci_get_word(d->config + PCI_VENDOR_ID));
    json_object_set_int_member(id, "device",
                               pci_get_word(d->config + PCI_DEVICE_ID));
    json_object_set_int_member(id, "subsystem-vendor",
                               pci_get_word(d->config +
                                            PCI_SUBSYSTEM_VENDOR_ID));
    json_object_set_int_member(id, "subsystem",
                               pci_get_word(d->config + PCI_SUBSYSTEM_ID));
    json_object_set_object_member(o, "id", id);
    if (d->config[PCI_INTERRUPT_PIN]) {
        json_object_set_int_member(o, "irq", d->config[PCI_INTERRUPT_LINE]);
    }
    json_object_set_int_member(o, "irq_pin", d->config[PCI_INTERRUPT_PIN]);
    json_object_set_string_member(o, "qdev_id", d->qdev.id ? d->qdev.id : "");
    for (int n = 0; n < PCI_NUM_REGIONS; n++) {
        if (d->io_regions[n].mr) {
            json_array_add_object_element(regions, pci_region_info(d, n));
        }
    }
    json_object_set_array_member(o, "regions", regions);
    return o;
}

bool qmp_query_pci(JsonNode **ret, Error **errp)
{
    JsonArray *list = json_array_new();
    PCIBus *bus = pci_bus_default();

    if (bus) {
        JsonObject *b = json_object_new();
        JsonArray *devices = json_array_new();

        for (int devfn = 0; devfn < PCI_DEVFN_MAX; devfn++) {
            if (bus->devices[devfn]) {
                json_array_add_object_element(devices,
                    pci_device_info(bus->devices[devfn], 0));
            }
        }
        json_object_set_int_member(b, "bus", 0);
        json_object_set_array_member(b, "devices", devices);
        json_array_add_object_element(list, b);
    }
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}

