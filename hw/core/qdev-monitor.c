/*
 * The device registry as the user asks about it: -device DRIVER,help
 * from the classes' property tables, in QEMU's layout (QMP's
 * device-list-properties is monitor/qmp-cmds-qom.c's).
 */
#include <stdio.h>
#include <string.h>

#include "hw/bus.h"
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

/* ---- HMP info qtree ---- */

/* "name = 1016 (0x3f8)", "name = \"serial0\"", as QEMU's info qtree. */
static void qtree_print_prop(GString *out, int indent, const char *name,
                             JsonNode *v)
{
    g_string_append_printf(out, "%*s%s = ", indent, "", name);
    if (JSON_NODE_HOLDS_VALUE(v) &&
        json_node_get_value_type(v) == G_TYPE_INT64) {
        gint64 n = json_node_get_int(v);

        g_string_append_printf(out, "%" G_GINT64_FORMAT
                               " (0x%" G_GINT64_MODIFIER "x)", n, (guint64)n);
    } else {
        qmp_json_append(out, v, false);
    }
    g_string_append_c(out, '\n');
}

typedef struct QtreeWalk {
    GString *out;
    int indent;
} QtreeWalk;

static void qtree_print_bus(BusState *bus, void *opaque);

/*
 * One device: its properties, then the buses behind it, one level in,
 * as QEMU's info qtree.
 */
static void qtree_print_dev(DeviceState *dev, QtreeWalk *w)
{
    QtreeWalk inner = { w->out, w->indent + 2 };

    g_string_append_printf(w->out, "%*sdev: %s, id \"%s\"\n", w->indent, "",
                           dev->dc->name, dev->id ? dev->id : "");
    if (!dev->obj) {
        return;
    }
    for (const Property *p = dev->dc->props; p && p->name; p++) {
        Error *err = NULL;
        JsonNode *v = object_property_get(dev->obj, p->name, &err);

        if (!v) {
            error_free(err);
            continue;
        }
        qtree_print_prop(w->out, w->indent + 2, p->name, v);
        json_node_unref(v);
    }
    qbus_foreach_child_bus(dev, qtree_print_bus, &inner);
}

static void qtree_print_bus(BusState *bus, void *opaque)
{
    QtreeWalk *w = opaque;
    QtreeWalk inner = { w->out, w->indent + 2 };

    g_string_append_printf(w->out, "%*sbus: %s\n%*stype %s\n", w->indent,
                           "", bus->name, w->indent + 2, "", bus->type);
    for (guint i = 0; i < bus->children->len; i++) {
        qtree_print_dev(g_ptr_array_index(bus->children, i), &inner);
    }
}

/* The root bus also holds the devices that plug into no bus. */
static void qtree_print_unplugged(DeviceState *dev, void *opaque)
{
    if (!dev->bus) {
        qtree_print_dev(dev, opaque);
    }
}

/* QEMU's "info qtree": the main system bus, then what plugs into none. */
void qdev_print_tree(GString *out)
{
    QtreeWalk w = { out, 0 };
    QtreeWalk inner = { out, 2 };

    qtree_print_bus(qbus_main_system_bus(), &w);
    qdev_foreach(qtree_print_unplugged, &inner);
}
