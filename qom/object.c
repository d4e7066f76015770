/*
 * The introspection tree: named nodes with property tables.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/option.h"
#include "qom/object.h"

typedef struct TypeInfo {
    char *name;
    char *parent;
    bool abstract;
    const Property *props;      /* its own, or NULL */
} TypeInfo;

static Object *root;
static GPtrArray *types;        /* of TypeInfo *, registration order */

static Object *object_new_node(const char *name, const char *type)
{
    Object *obj = g_new0(Object, 1);

    obj->name = g_strdup(name);
    obj->type = g_strdup(type);
    obj->children = g_ptr_array_new();
    return obj;
}

static void object_free_node(Object *obj)
{
    while (obj->children->len) {
        Object *child = g_ptr_array_index(obj->children,
                                          obj->children->len - 1);

        g_ptr_array_remove_index(obj->children, obj->children->len - 1);
        object_free_node(child);
    }
    g_ptr_array_free(obj->children, TRUE);
    g_free(obj->name);
    g_free(obj->type);
    g_free(obj);
}

Object *object_root(void)
{
    if (!root) {
        root = object_new_node("", "container");
    }
    return root;
}

static Object *find_child(Object *parent, const char *name)
{
    for (guint i = 0; i < parent->children->len; i++) {
        Object *c = g_ptr_array_index(parent->children, i);

        if (!strcmp(c->name, name)) {
            return c;
        }
    }
    return NULL;
}

Object *object_get_container(const char *path)
{
    char **parts = g_strsplit(path, "/", -1);
    Object *obj = object_root();

    for (char **p = parts; *p; p++) {
        Object *c;

        if (!**p) {
            continue;
        }
        c = find_child(obj, *p);
        if (!c) {
            c = object_new_node(*p, "container");
            c->parent = obj;
            g_ptr_array_add(obj->children, c);
        }
        obj = c;
    }
    g_strfreev(parts);
    return obj;
}

Object *object_add_child(Object *parent, const char *name, const char *type,
                         void *state, const Property *props, Error **errp)
{
    char *real_name;
    Object *obj;

    if (g_str_has_suffix(name, "[*]")) {
        char *stem = g_strndup(name, strlen(name) - 3);

        real_name = NULL;
        for (unsigned i = 0; !real_name; i++) {
            char *cand = g_strdup_printf("%s[%u]", stem, i);

            if (!find_child(parent, cand)) {
                real_name = cand;
            } else {
                g_free(cand);
            }
        }
        g_free(stem);
    } else {
        if (find_child(parent, name)) {
            error_setg(errp, "attempt to add duplicate property '%s' to "
                       "object (type '%s')", name, parent->type);
            return NULL;
        }
        real_name = g_strdup(name);
    }
    obj = object_new_node(real_name, type);
    g_free(real_name);
    obj->parent = parent;
    obj->state = state;
    obj->props = props;
    g_ptr_array_add(parent->children, obj);
    return obj;
}

void object_unparent(Object *obj)
{
    if (obj->parent) {
        g_ptr_array_remove(obj->parent->children, obj);
        obj->parent = NULL;
    }
    if (obj == root) {
        root = NULL;
    }
    object_free_node(obj);
}

char *object_get_canonical_path(const Object *obj)
{
    GString *s = g_string_new(NULL);

    if (!obj->parent) {
        g_string_append_c(s, '/');
    }
    for (; obj && obj->parent; obj = obj->parent) {
        g_string_prepend(s, obj->name);
        g_string_prepend_c(s, '/');
    }
    return g_string_free(s, FALSE);
}

static Object *resolve_absolute(const char *path)
{
    char **parts = g_strsplit(path, "/", -1);
    Object *obj = object_root();

    for (char **p = parts; *p && obj; p++) {
        if (**p) {
            obj = find_child(obj, *p);
        }
    }
    g_strfreev(parts);
    return obj;
}

/* Does the path of obj end with the components of parts (n of them)? */
static bool suffix_matches(Object *obj, char **parts, int n)
{
    for (int i = n - 1; i >= 0; i--) {
        if (!obj || !obj->parent || strcmp(obj->name, parts[i])) {
            return false;
        }
        obj = obj->parent;
    }
    return true;
}

static void collect_partial(Object *obj, char **parts, int n, Object **found,
                            int *count)
{
    if (suffix_matches(obj, parts, n)) {
        if (*count == 0) {
            *found = obj;
        }
        (*count)++;
    }
    for (guint i = 0; i < obj->children->len; i++) {
        collect_partial(g_ptr_array_index(obj->children, i), parts, n, found,
                        count);
    }
}

Object *object_resolve_path(const char *path, bool *ambiguous)
{
    char **parts;
    Object *found = NULL;
    int n = 0, count = 0;

    if (ambiguous) {
        *ambiguous = false;
    }
    if (path[0] == '/') {
        return resolve_absolute(path);
    }
    parts = g_strsplit(path, "/", -1);
    while (parts[n]) {
        if (!*parts[n]) {
            g_strfreev(parts);
            return NULL;
        }
        n++;
    }
    if (n > 0) {
        collect_partial(object_root(), parts, n, &found, &count);
    }
    g_strfreev(parts);
    if (count > 1) {
        if (ambiguous) {
            *ambiguous = true;
        }
        return NULL;
    }
    return found;
}

static void *field(void *state, const Property *p)
{
    return (char *)state + p->offset;
}

void object_set_defaults(void *state, const Property *props)
{
    for (const Property *p = props; p && p->name; p++) {
        void *f = field(state, p);

        switch (p->type) {
        case PROP_TYPE_BOOL:
            *(bool *)f = p->defval;
            break;
        case PROP_TYPE_UINT8:
            *(uint8_t *)f = p->defval;
            break;
        case PROP_TYPE_UINT16:
            *(uint16_t *)f = p->defval;
            break;
        case PROP_TYPE_UINT32:
            *(uint32_t *)f = p->defval;
            break;
        case PROP_TYPE_INT32:
        case PROP_TYPE_PCI_DEVFN:
            *(int32_t *)f = (int32_t)p->defval;
            break;
        case PROP_TYPE_UINT64:
        case PROP_TYPE_SIZE:
            *(uint64_t *)f = p->defval;
            break;
        case PROP_TYPE_INT64:
            *(int64_t *)f = (int64_t)p->defval;
            break;
        case PROP_TYPE_STRING:
        case PROP_TYPE_CHR:
            *(char **)f = g_strdup(p->defstr);
            break;
        }
    }
}

void object_free_strings(void *state, const Property *props)
{
    for (const Property *p = props; p && p->name; p++) {
        if (p->type == PROP_TYPE_STRING || p->type == PROP_TYPE_CHR) {
            g_clear_pointer((char **)field(state, p), g_free);
        }
    }
}

const Property *object_prop_find(const Property *props, const char *name)
{
    for (const Property *p = props; p && p->name; p++) {
        if (!strcmp(p->name, name)) {
            return p;
        }
    }
    return NULL;
}

const char *prop_type_name(PropType type)
{
    static const char *const names[] = {
        [PROP_TYPE_BOOL] = "bool",
        [PROP_TYPE_UINT8] = "uint8",
        [PROP_TYPE_UINT16] = "uint16",
        [PROP_TYPE_UINT32] = "uint32",
        [PROP_TYPE_UINT64] = "uint64",
        [PROP_TYPE_INT32] = "int32",
        [PROP_TYPE_INT64] = "int64",
        [PROP_TYPE_SIZE] = "size",
        [PROP_TYPE_STRING] = "str",
        [PROP_TYPE_CHR] = "str",
        [PROP_TYPE_PCI_DEVFN] = "int32",
    };
    return names[type];
}

static uint64_t type_max(PropType type)
{
    switch (type) {
    case PROP_TYPE_UINT8:
        return UINT8_MAX;
    case PROP_TYPE_UINT16:
        return UINT16_MAX;
    case PROP_TYPE_UINT32:
        return UINT32_MAX;
    default:
        return UINT64_MAX;
    }
}

/* Store an unsigned or signed number into a field of the given type. */
static bool store_number(void *f, const Property *p, const char *owner,
                         bool negative, uint64_t v, Error **errp)
{
    if (p->type == PROP_TYPE_INT32 || p->type == PROP_TYPE_INT64) {
        int64_t lim = p->type == PROP_TYPE_INT32 ? INT32_MAX : INT64_MAX;

        if (v > (uint64_t)lim + negative) {
            goto range;
        }
        if (p->type == PROP_TYPE_INT32) {
            *(int32_t *)f = negative ? -(int64_t)v : (int64_t)v;
        } else {
            *(int64_t *)f = negative ? (int64_t)(0 - v) : (int64_t)v;
        }
        return true;
    }
    if (negative || v > type_max(p->type)) {
        goto range;
    }
    switch (p->type) {
    case PROP_TYPE_UINT8:
        *(uint8_t *)f = v;
        break;
    case PROP_TYPE_UINT16:
        *(uint16_t *)f = v;
        break;
    case PROP_TYPE_UINT32:
        *(uint32_t *)f = v;
        break;
    default:
        *(uint64_t *)f = v;
        break;
    }
    return true;
range:
    error_setg(errp, "Property %s.%s doesn't take value %s%" PRIu64
               " (minimum: 0, maximum: %" PRIu64 ")", owner, p->name,
               negative ? "-" : "", v, type_max(p->type));
    return false;
}

/* "SLOT[.FN]", both hex, slot 0-0x1f, function 0-7: QEMU's pci-devfn. */
static bool parse_pci_devfn(void *f, const Property *p, const char *owner,
                            const char *value, Error **errp)
{
    char *end;
    unsigned long slot, fn = 0;

    slot = strtoul(value, &end, 16);
    if (end == value || slot > 0x1f) {
        goto bad;
    }
    if (*end == '.') {
        const char *s = end + 1;

        fn = strtoul(s, &end, 16);
        if (end == s || fn > 7) {
            goto bad;
        }
    }
    if (*end) {
        goto bad;
    }
    *(int32_t *)f = (int32_t)(slot << 3 | fn);
    return true;
bad:
    error_setg(errp, "Property '%s.%s' doesn't take value '%s'", owner,
               p->name, value);
    return false;
}

bool object_property_parse(void *state, const Property *props,
                           const char *owner_type, const char *name,
                           const char *value, Error **errp)
{
    const Property *p = object_prop_find(props, name);
    void *f;
    uint64_t v;
    bool negative = false;

    if (!p) {
        error_setg(errp, "Property '%s.%s' not found", owner_type, name);
        return false;
    }
    if (p->get && !p->set) {
        error_setg(errp, "Property '%s.%s' is read-only", owner_type, name);
        return false;
    }
    f = field(state, p);
    switch (p->type) {
    case PROP_TYPE_BOOL:
        return qemu_parse_bool(name, value, (bool *)f, errp);
    case PROP_TYPE_STRING:
    case PROP_TYPE_CHR:
        g_free(*(char **)f);
        *(char **)f = g_strdup(value);
        return true;
    case PROP_TYPE_SIZE:
        if (!qemu_parse_size(name, value, 1, &v, errp)) {
            return false;
        }
        *(uint64_t *)f = v;
        return true;
    case PROP_TYPE_PCI_DEVFN:
        return parse_pci_devfn(f, p, owner_type, value, errp);
    default:
        if (value[0] == '-' &&
            (p->type == PROP_TYPE_INT32 || p->type == PROP_TYPE_INT64)) {
            negative = true;
            value++;
        }
        if (!qemu_parse_number(name, value, &v, errp)) {
            return false;
        }
        return store_number(f, p, owner_type, negative, v, errp);
    }
}

static void property_info_free(gpointer p)
{
    ObjectPropertyDesc *info = p;

    g_free(info->type);
    g_free(info);
}

GPtrArray *object_property_list(Object *obj)
{
    GPtrArray *list = g_ptr_array_new_with_free_func(property_info_free);
    ObjectPropertyDesc *info;

    info = g_new0(ObjectPropertyDesc, 1);
    info->name = "type";
    info->type = g_strdup("string");
    g_ptr_array_add(list, info);
    for (guint i = 0; i < obj->children->len; i++) {
        Object *c = g_ptr_array_index(obj->children, i);

        info = g_new0(ObjectPropertyDesc, 1);
        info->name = c->name;
        info->type = g_strdup_printf("child<%s>", c->type);
        g_ptr_array_add(list, info);
    }
    for (const Property *p = obj->props; p && p->name; p++) {
        info = g_new0(ObjectPropertyDesc, 1);
        info->name = p->name;
        info->type = g_strdup(p->type_name ? p->type_name
                                            : prop_type_name(p->type));
        info->description = p->description;
        g_ptr_array_add(list, info);
    }
    return list;
}

JsonNode *object_property_get(Object *obj, const char *name, Error **errp)
{
    const Property *p = object_prop_find(obj->props, name);
    JsonNode *node;
    void *f;

    if (!strcmp(name, "type")) {
        node = json_node_new(JSON_NODE_VALUE);
        json_node_set_string(node, obj->type);
        return node;
    }
    if (!p) {
        if (find_child(obj, name)) {
            char *path = object_get_canonical_path(find_child(obj, name));

            node = json_node_new(JSON_NODE_VALUE);
            json_node_set_string(node, path);
            g_free(path);
            return node;
        }
        error_setg(errp, "Property '%s' not found", name);
        return NULL;
    }
    if (p->get) {
        return p->get(obj->state, errp);
    }
    f = field(obj->state, p);
    node = json_node_new(JSON_NODE_VALUE);
    switch (p->type) {
    case PROP_TYPE_BOOL:
        json_node_set_boolean(node, *(bool *)f);
        break;
    case PROP_TYPE_UINT8:
        json_node_set_int(node, *(uint8_t *)f);
        break;
    case PROP_TYPE_UINT16:
        json_node_set_int(node, *(uint16_t *)f);
        break;
    case PROP_TYPE_UINT32:
        json_node_set_int(node, *(uint32_t *)f);
        break;
    case PROP_TYPE_INT32:
    case PROP_TYPE_PCI_DEVFN:
        json_node_set_int(node, *(int32_t *)f);
        break;
    case PROP_TYPE_UINT64:
    case PROP_TYPE_SIZE:
        /* JSON numbers here are int64; QEMU prints uint64 the same way. */
        json_node_set_int(node, (gint64)*(uint64_t *)f);
        break;
    case PROP_TYPE_INT64:
        json_node_set_int(node, *(int64_t *)f);
        break;
    case PROP_TYPE_STRING:
    case PROP_TYPE_CHR:
        json_node_set_string(node, *(char **)f ? *(char **)f : "");
        break;
    }
    return node;
}

bool object_property_set(Object *obj, const char *name, JsonNode *value,
                         Error **errp)
{
    const Property *p = object_prop_find(obj->props, name);
    GType vt;

    if (!p) {
        if (!strcmp(name, "type") || find_child(obj, name)) {
            error_setg(errp, "Property '%s' is not writable", name);
        } else {
            error_setg(errp, "Property '%s' not found", name);
        }
        return false;
    }
    if (p->get && !p->set) {
        error_setg(errp, "Property '%s.%s' is not writable", obj->type, name);
        return false;
    }
    if (!p->runtime) {
        error_setg(errp, "Attempt to set property '%s' on device '%s' "
                   "(type '%s') after it was realized", name, obj->name,
                   obj->type);
        return false;
    }
    if (p->set) {
        return p->set(obj->state, value, errp);
    }
    if (!JSON_NODE_HOLDS_VALUE(value)) {
        goto bad_type;
    }
    vt = json_node_get_value_type(value);
    switch (p->type) {
    case PROP_TYPE_BOOL:
        if (vt != G_TYPE_BOOLEAN) {
            goto bad_type;
        }
        *(bool *)field(obj->state, p) = json_node_get_boolean(value);
        return true;
    case PROP_TYPE_STRING:
    case PROP_TYPE_CHR:
        if (vt != G_TYPE_STRING) {
            goto bad_type;
        }
        g_free(*(char **)field(obj->state, p));
        *(char **)field(obj->state, p) = g_strdup(json_node_get_string(value));
        return true;
    default: {
        gint64 v;

        if (vt != G_TYPE_INT64) {
            goto bad_type;
        }
        v = json_node_get_int(value);
        return store_number(field(obj->state, p), p, obj->type, v < 0,
                            v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v,
                            errp);
    }
    }
bad_type:
    error_setg(errp, "Invalid parameter type for '%s', expected: %s", name,
               p->type == PROP_TYPE_BOOL ? "boolean" :
               (p->type == PROP_TYPE_STRING || p->type == PROP_TYPE_CHR) ?
               "string" : "integer");
    return false;
}

void type_register(const char *name, const char *parent, bool abstract)
{
    TypeInfo *t;

    if (!types) {
        types = g_ptr_array_new();
    }
    for (guint i = 0; i < types->len; i++) {
        t = g_ptr_array_index(types, i);
        if (!strcmp(t->name, name)) {
            return;
        }
    }
    t = g_new0(TypeInfo, 1);
    t->name = g_strdup(name);
    t->parent = g_strdup(parent);
    t->abstract = abstract;
    g_ptr_array_add(types, t);
}

static TypeInfo *type_find(const char *name)
{
    for (guint i = 0; types && i < types->len; i++) {
        TypeInfo *t = g_ptr_array_index(types, i);

        if (!strcmp(t->name, name)) {
            return t;
        }
    }
    return NULL;
}

void type_set_properties(const char *name, const Property *props)
{
    TypeInfo *t = type_find(name);

    g_assert(t);
    t->props = props;
}

bool type_exists(const char *name, bool *abstract)
{
    TypeInfo *t = type_find(name);

    if (t && abstract) {
        *abstract = t->abstract;
    }
    return t != NULL;
}

bool type_is_a(const char *name, const char *ancestor)
{
    /* Bounded: a registry with a parent cycle must not hang us. */
    for (guint n = 0; name && types && n <= types->len; n++) {
        TypeInfo *t = type_find(name);

        if (!strcmp(name, ancestor)) {
            return true;
        }
        name = t ? t->parent : NULL;
    }
    return false;
}

void type_property_foreach(const char *name,
                           void (*fn)(const Property *p, void *opaque),
                           void *opaque)
{
    for (guint n = 0; name && types && n <= types->len; n++) {
        TypeInfo *t = type_find(name);

        if (!t) {
            break;
        }
        for (const Property *p = t->props; p && p->name; p++) {
            fn(p, opaque);
        }
        name = t->parent;
    }
}

void type_foreach(void (*fn)(const char *name, const char *parent,
                             bool abstract, void *opaque), void *opaque)
{
    for (guint i = 0; types && i < types->len; i++) {
        TypeInfo *t = g_ptr_array_index(types, i);

        fn(t->name, t->parent, t->abstract, opaque);
    }
}

void object_cleanup(void)
{
    if (root) {
        object_free_node(root);
        root = NULL;
    }
    for (guint i = 0; types && i < types->len; i++) {
        TypeInfo *t = g_ptr_array_index(types, i);

        g_free(t->name);
        g_free(t->parent);
        g_free(t);
    }
    if (types) {
        g_ptr_array_free(types, TRUE);
        types = NULL;
    }
}

/* The type of plain nodes of the tree ("/machine/unattached"). */
static void __attribute__((constructor)) object_register_types(void)
{
    type_register("container", NULL, false);
}
