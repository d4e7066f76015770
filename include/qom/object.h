/*
 * The introspection tree: every machine, device, backend and chardev is
 * a node with a QEMU-style path (/machine/peripheral/ID, /objects/ID, ...)
 * and a table of typed properties over its state struct. This is a
 * registry of paths and property tables, not a class hierarchy: QMP's
 * qom-list, qom-get and qom-set and qtest's irq_intercept_in use it.
 */
#ifndef QOM_OBJECT_H
#define QOM_OBJECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <json-glib/json-glib.h>

#include "qemu/error.h"

typedef enum PropType {
    PROP_TYPE_BOOL,
    PROP_TYPE_UINT8,
    PROP_TYPE_UINT16,
    PROP_TYPE_UINT32,
    PROP_TYPE_UINT64,
    PROP_TYPE_INT32,
    PROP_TYPE_INT64,
    PROP_TYPE_SIZE,         /* uint64_t, parsed with K/M/G suffixes */
    PROP_TYPE_STRING,       /* char *, owned by the state */
    PROP_TYPE_CHR,          /* char * chardev id; the device resolves it */
    PROP_TYPE_PCI_DEVFN,    /* int32_t devfn, parsed from "SLOT[.FN]" (hex) */
} PropType;

typedef struct Property {
    const char *name;
    PropType type;
    size_t offset;          /* of the field in the owner's state */
    uint64_t defval;        /* numbers and bools */
    const char *defstr;     /* strings */
    const char *description;
    bool runtime;           /* qom-set may change it after creation */
    /*
     * Computed properties: qom-get calls get instead of reading the
     * field, qom-set calls set (after the runtime check) instead of
     * storing it; type_name is what qom-list shows instead of the
     * type's name. A property with get and no set is read-only.
     */
    JsonNode *(*get)(void *state, Error **errp);
    bool (*set)(void *state, JsonNode *value, Error **errp);
    const char *type_name;
} Property;

#define PROP_END { .name = NULL }
#define DEFINE_PROP(n, State, field, t, def) \
    { .name = (n), .type = (t), .offset = offsetof(State, field), \
      .defval = (def) }
#define DEFINE_PROP_BOOL(n, S, f, d)   DEFINE_PROP(n, S, f, PROP_TYPE_BOOL, d)
#define DEFINE_PROP_UINT8(n, S, f, d)  DEFINE_PROP(n, S, f, PROP_TYPE_UINT8, d)
#define DEFINE_PROP_UINT16(n, S, f, d) DEFINE_PROP(n, S, f, PROP_TYPE_UINT16, d)
#define DEFINE_PROP_UINT32(n, S, f, d) DEFINE_PROP(n, S, f, PROP_TYPE_UINT32, d)
#define DEFINE_PROP_UINT64(n, S, f, d) DEFINE_PROP(n, S, f, PROP_TYPE_UINT64, d)
#define DEFINE_PROP_INT32(n, S, f, d)  DEFINE_PROP(n, S, f, PROP_TYPE_INT32, d)
#define DEFINE_PROP_INT64(n, S, f, d)  \
    DEFINE_PROP(n, S, f, PROP_TYPE_INT64, (uint64_t)(d))
#define DEFINE_PROP_SIZE(n, S, f, d)   DEFINE_PROP(n, S, f, PROP_TYPE_SIZE, d)
#define DEFINE_PROP_STRING(n, S, f) \
    { .name = (n), .type = PROP_TYPE_STRING, .offset = offsetof(S, f) }
#define DEFINE_PROP_CHR(n, S, f) \
    { .name = (n), .type = PROP_TYPE_CHR, .offset = offsetof(S, f) }

typedef struct Object Object;

struct Object {
    char *name;             /* last path component */
    char *type;             /* "isa-serial", "container", ... */
    Object *parent;
    GPtrArray *children;    /* of Object * */
    const Property *props;  /* table ending in PROP_END, or NULL */
    void *state;            /* base for props offsets */
};

/* The root "/", with /machine, /objects and /chardevs created lazily. */
Object *object_root(void);
/* The container at an absolute path, created (as "container") if absent. */
Object *object_get_container(const char *path);
/*
 * Add a node named name under parent. A name ending in "[*]" gets the
 * first free index ("device[*]" -> "device[3]"). NULL with an error if
 * the name is taken.
 */
Object *object_add_child(Object *parent, const char *name, const char *type,
                         void *state, const Property *props, Error **errp);
/* Remove obj and its subtree from the tree and free the nodes. */
void object_unparent(Object *obj);
char *object_get_canonical_path(const Object *obj);
/*
 * Resolve an absolute path, or a partial one (a path suffix that must
 * match exactly one node, "ioapic" or "peripheral/serial0").
 * *ambiguous is set when several nodes match.
 */
Object *object_resolve_path(const char *path, bool *ambiguous);

/* The entry of a property table named name, or NULL. */
const Property *object_prop_find(const Property *props, const char *name);
/* Set table properties to their defaults (strings are g_strdup'ed). */
void object_set_defaults(void *state, const Property *props);
/* Free the strings a property table owns in state. */
void object_free_strings(void *state, const Property *props);
/* Parse a command-line value ("on", "0x3f8", "16M") into a property. */
bool object_property_parse(void *state, const Property *props,
                           const char *owner_type, const char *name,
                           const char *value, Error **errp);

/* QMP's view. */
typedef struct ObjectPropertyDesc {
    const char *name;
    char *type;             /* "bool", "uint32", "string", "child<...>" */
    const char *description;
} ObjectPropertyDesc;
/* Children and properties of obj, "type" first; free with g_ptr_array_unref. */
GPtrArray *object_property_list(Object *obj);
JsonNode *object_property_get(Object *obj, const char *name, Error **errp);
bool object_property_set(Object *obj, const char *name, JsonNode *value,
                         Error **errp);
/* A table property's type name as QMP shows it ("uint32"). */
const char *prop_type_name(PropType type);

/* Types, for qom-list-types and -device/-object help. */
void type_register(const char *name, const char *parent, bool abstract);
/* The properties instances of a registered type take (-device, -object). */
void type_set_properties(const char *name, const Property *props);
bool type_exists(const char *name, bool *abstract);
/* Whether name is ancestor or derives from it. */
bool type_is_a(const char *name, const char *ancestor);
/* Each property of the type and of its ancestors, the type's first. */
void type_property_foreach(const char *name,
                           void (*fn)(const Property *p, void *opaque),
                           void *opaque);
void type_foreach(void (*fn)(const char *name, const char *parent,
                             bool abstract, void *opaque), void *opaque);

/* Free the whole tree (at exit). */
void object_cleanup(void);

#endif
