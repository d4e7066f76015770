/*
 * The QMP commands of the introspection tree and the type registry:
 * qom-list, qom-get, qom-set, qom-list-types, qom-list-properties,
 * device-list-properties.
 */
#include <string.h>

#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"
#include "qom/object.h"

static JsonNode *node_from_array(JsonArray *arr)
{
    JsonNode *node = json_node_init_array(json_node_alloc(), arr);

    json_array_unref(arr);
    return node;
}

bool qmp_qom_list(const q_obj_qom_list_arg *args, JsonNode **ret, Error **errp)
{
    const char *path = args->path;
    bool ambiguous = false;
    Object *obj = object_resolve_path(path, &ambiguous);
    JsonArray *list;
    GPtrArray *props;

    if (!obj) {
        if (ambiguous) {
            error_setg(errp, "Path '%s' is ambiguous", path);
        } else {
            error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                      "Device '%s' not found", path);
        }
        return false;
    }
    list = json_array_new();
    props = object_property_list(obj);
    for (guint i = 0; i < props->len; i++) {
        ObjectPropertyDesc *info = g_ptr_array_index(props, i);
        JsonObject *p = json_object_new();

        json_object_set_string_member(p, "name", info->name);
        json_object_set_string_member(p, "type", info->type);
        json_array_add_object_element(list, p);
    }
    g_ptr_array_unref(props);
    *ret = node_from_array(list);
    return true;
}

/* qom-get and qom-set, like QEMU, do not tell ambiguous from absent. */
static Object *qom_find(const char *path, Error **errp)
{
    Object *obj = object_resolve_path(path, NULL);

    if (!obj) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                  "Device '%s' not found", path);
    }
    return obj;
}

bool qmp_qom_get(const q_obj_qom_get_arg *args, JsonNode **ret, Error **errp)
{
    Object *obj = qom_find(args->path, errp);

    if (!obj) {
        return false;
    }
    *ret = object_property_get(obj,
                               args->property,
                               errp);
    return *ret != NULL;
}

bool qmp_qom_set(const q_obj_qom_set_arg *args, JsonNode **ret, Error **errp)
{
    Object *obj = qom_find(args->path, errp);

    return obj &&
           object_property_set(obj,
                               args->property,
                               args->value, errp);
}

typedef struct TypeListing {
    const char *implements;
    bool abstract;
    JsonArray *list;
} TypeListing;

static void add_type(const char *name, const char *parent, bool abstract,
                     void *opaque)
{
    TypeListing *tl = opaque;
    JsonObject *t;

    if ((abstract && !tl->abstract) ||
        (tl->implements && !type_is_a(name, tl->implements))) {
        return;
    }
    t = json_object_new();
    json_object_set_string_member(t, "name", name);
    if (abstract) {
        json_object_set_boolean_member(t, "abstract", true);
    }
    if (parent) {
        json_object_set_string_member(t, "parent", parent);
    }
    json_array_add_object_element(tl->list, t);
}

bool qmp_qom_list_types(const q_obj_qom_list_types_arg *args,
                        JsonNode **ret, Error **errp)
{
    TypeListing tl = { .list = json_array_new() };

    tl.implements = args->implements;
    tl.abstract = args->has_abstract && args->abstract;
    type_foreach(add_type, &tl);
    *ret = node_from_array(tl.list);
    return true;
}

static void add_property_desc(JsonArray *list, const char *name,
                              const char *type, const char *description)
{
    JsonObject *p = json_object_new();

    json_object_set_string_member(p, "name", name);
    json_object_set_string_member(p, "type", type);
    if (description) {
        json_object_set_string_member(p, "description", description);
    }
    json_array_add_object_element(list, p);
}

/* A property with its default, as device-list-properties shows it. */
static void add_table_property(const Property *p, void *opaque)
{
    JsonArray *list = opaque;
    JsonObject *o;

    add_property_desc(list, p->name, prop_type_name(p->type),
                      p->description);
    o = json_array_get_object_element(list, json_array_get_length(list) - 1);
    switch (p->type) {
    case PROP_TYPE_BOOL:
        json_object_set_boolean_member(o, "default-value", p->defval != 0);
        break;
    case PROP_TYPE_STRING:
        if (p->defstr) {
            json_object_set_string_member(o, "default-value", p->defstr);
        }
        break;
    case PROP_TYPE_CHR:
        break;
    default:
        json_object_set_int_member(o, "default-value", (gint64)p->defval);
        break;
    }
}

bool qmp_device_list_properties(const q_obj_device_list_properties_arg *args,
                                JsonNode **ret, Error **errp)
{
    bool abstract = false;
    JsonArray *list;

    if (!type_exists(args->typename, &abstract)) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                  "Device '%s' not found", args->typename);
        return false;
    }
    if (abstract || !type_is_a(args->typename, "device")) {
        error_setg(errp, "Parameter 'typename' expects a non-abstract "
                   "device type");
        return false;
    }
    list = json_array_new();
    type_property_foreach(args->typename, add_table_property, list);
    *ret = node_from_array(list);
    return true;
}

bool qmp_qom_list_properties(const q_obj_qom_list_properties_arg *args,
                             JsonNode **ret, Error **errp)
{
    JsonArray *list;

    if (!type_exists(args->typename, NULL)) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND, "Class '%s' not found",
                  args->typename);
        return false;
    }
    list = json_array_new();
    add_property_desc(list, "type", "string", NULL);
    type_property_foreach(args->typename, add_table_property, list);
    *ret = node_from_array(list);
    return true;
}

/*
 * device_add: checked like -device, then refused: every device type of
 * this machine sits on a bus without hotplug (QEMU's words for ISA).
 */
bool qmp_device_add(JsonObject *args, JsonNode **ret, Error **errp)
{
    JsonNode *drv = json_object_get_member(args, "driver");
    const char *name;
    bool abstract = false;

    if (!drv) {
        error_setg(errp, "Parameter 'driver' is missing");
        return false;
    }
    if (!JSON_NODE_HOLDS_VALUE(drv) ||
        json_node_get_value_type(drv) != G_TYPE_STRING) {
        error_setg(errp, "Invalid parameter type for 'driver', expected: "
                   "string");
        return false;
    }
    name = json_node_get_string(drv);
    if (!type_exists(name, &abstract) || !type_is_a(name, "device")) {
        error_setg(errp, "'%s' is not a valid device model name", name);
        return false;
    }
    if (abstract) {
        error_setg(errp, "Parameter 'driver' expects a non-abstract device "
                   "type");
        return false;
    }
    if (type_is_a(name, "isa-device")) {
        error_setg(errp, "Bus 'isa.0' does not support hotplugging");
    } else {
        error_setg(errp, "Device '%s' can not be hotplugged on this machine",
                   name);
    }
    return false;
}

bool qmp_device_del(const q_obj_device_del_arg *args, JsonNode **ret,
                    Error **errp)
{
    char *path = args->id[0] == '/'
                 ? g_strdup(args->id)
                 : g_strdup_printf("/machine/peripheral/%s", args->id);
    Object *obj = object_resolve_path(path, NULL);

    g_free(path);
    if (!obj) {
        error_set(errp, ERROR_CLASS_DEVICE_NOT_FOUND,
                  "Device '%s' not found", args->id);
        return false;
    }
    error_setg(errp, "Bus 'isa.0' does not support hotplugging");
    return false;
}
