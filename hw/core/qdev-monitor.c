/*
 * The device registry as the user asks about it: QMP
 * device-list-properties and -device DRIVER,help, both from the
 * classes' property tables, in QEMU's shapes.
 */
#include <stdio.h>
#include <string.h>

#include "hw/qdev.h"
#include "monitor/monitor.h"

/* A property's default as QEMU shows it; NULL when it has none. */
static JsonNode *prop_default(const Property *p)
{
    JsonNode *n;

    if (p->type == PROP_TYPE_STRING || p->type == PROP_TYPE_CHR) {
        if (!p->defstr) {
            return NULL;
        }
        n = json_node_new(JSON_NODE_VALUE);
        json_node_set_string(n, p->defstr);
        return n;
    }
    n = json_node_new(JSON_NODE_VALUE);
    switch (p->type) {
    case PROP_TYPE_BOOL:
        json_node_set_boolean(n, p->defval != 0);
        break;
    case PROP_TYPE_INT32:
    case PROP_TYPE_PCI_DEVFN:
        json_node_set_int(n, (int32_t)p->defval);
        break;
    case PROP_TYPE_UINT8:
    case PROP_TYPE_UINT16:
    case PROP_TYPE_UINT32:
        json_node_set_int(n, (gint64)(uint32_t)p->defval);
        break;
    default:
        json_node_set_int(n, (gint64)p->defval);
        break;
    }
    return n;
}

static const DeviceClass *device_class_lookup(const char *name, Error **errp)
{
    const DeviceClass *dc = device_class_find(name);

    if (!dc) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND, "Device '%s' not found",
                  name);
    }
    return dc;
}

static bool is_abstract_device(const char *name)
{
    static const char *const abstract[] = {
        "device", "sys-bus-device", "isa-device", "pci-device",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(abstract); i++) {
        if (!strcmp(name, abstract[i])) {
            return true;
        }
    }
    return false;
}

static const QmpArg device_list_properties_args[] = {
    { "typename", QMP_ARG_STR },
    QMP_ARGS_END
};

static bool qmp_device_list_properties(JsonObject *args, JsonNode **ret,
                                       Error **errp)
{
    const char *name = json_object_get_string_member(args, "typename");
    const DeviceClass *dc;
    JsonArray *list;

    if (is_abstract_device(name)) {
        error_setg(errp, "Parameter 'typename' expects a non-abstract "
                   "device type");
        return false;
    }
    dc = device_class_lookup(name, errp);
    if (!dc) {
        return false;
    }
    list = json_array_new();
    for (const Property *p = dc->props; p && p->name; p++) {
        JsonObject *o = json_object_new();
        JsonNode *def = prop_default(p);

        json_object_set_string_member(o, "name", p->name);
        json_object_set_string_member(o, "type", prop_type_name(p->type));
        if (p->description) {
            json_object_set_string_member(o, "description", p->description);
        }
        if (def) {
            json_object_set_member(o, "default-value", def);
        }
        json_array_add_object_element(list, o);
    }
    *ret = json_node_init_array(json_node_alloc(), list);
    json_array_unref(list);
    return true;
}

void qdev_monitor_register(void)
{
    qmp_register_command_args("device-list-properties",
                              qmp_device_list_properties,
                              device_list_properties_args);
}

static gint by_prop_name(gconstpointer a, gconstpointer b)
{
    const Property *const *pa = a, *const *pb = b;

    return strcmp((*pa)->name, (*pb)->name);
}

/*
 * "  name=<type>  - description (default: value)", sorted by name, as
 * QEMU's -device DRIVER,help.
 */
void device_print_props(const DeviceClass *dc)
{
    GPtrArray *props = g_ptr_array_new();

    for (const Property *p = dc->props; p && p->name; p++) {
        g_ptr_array_add(props, (gpointer)p);
    }
    g_ptr_array_sort(props, by_prop_name);
    printf("%s options:\n", dc->name);
    for (guint i = 0; i < props->len; i++) {
        const Property *p = g_ptr_array_index(props, i);
        JsonNode *def = prop_default(p);
        char *head = g_strdup_printf("%s=<%s>", p->name,
                                     prop_type_name(p->type));

        if (!def && !p->description) {
            printf("  %s\n", head);
        } else {
            printf("  %-22s - %s", head, p->description ? p->description : "");
            if (def) {
                GString *v = g_string_new(NULL);

                qmp_json_append(v, def, false);
                printf(" (default: %s)", v->str);
                g_string_free(v, TRUE);
                json_node_unref(def);
            }
            printf("\n");
        }
        g_free(head);
    }
    g_ptr_array_free(props, TRUE);
}
