/*
 * The CPU model read back from a CPUID table, as QOM properties and as
 * query-cpu-model-expansion's answer (include/target/i386/cpu-model.h).
 */
#include <string.h>

#include "qapi/qapi-commands.h"
#include "system/cpus.h"
#include "system/vm-config.h"
#include "target/i386/cpu-model.h"

#define LEAF_VENDOR     0x00000000
#define LEAF_FEATURES   0x00000001
#define LEAF_EXT_MAX    0x80000000
#define LEAF_EXT2_MAX   0xc0000000
#define LEAF_BRAND      0x80000002

static const X86CPUIDEntry *leaf(const X86CPUIDEntry *t, unsigned n,
                                 uint32_t function, uint32_t index)
{
    return x86_cpuid_find((X86CPUIDEntry *)t, n, function, index);
}

static uint32_t leaf_eax(const X86CPUIDEntry *t, unsigned n,
                         uint32_t function)
{
    const X86CPUIDEntry *e = leaf(t, n, function, 0);

    return e ? e->regs[X86_R_EAX] : 0;
}

void x86_cpu_model_info(const X86CPUIDEntry *t, unsigned n,
                        X86CPUModelInfo *info)
{
    const X86CPUIDEntry *e;
    uint32_t sig = leaf_eax(t, n, LEAF_FEATURES);

    memset(info, 0, sizeof(*info));
    for (unsigned i = 0; i < x86_cpu_feature_count(); i++) {
        const X86CPUFeature *f = x86_cpu_feature_at(i);

        e = leaf(t, n, f->function, f->index);
        info->feature[i] = e && (e->regs[f->reg] >> f->bit) & 1;
    }
    /* The signature as the SDM's CPUID.01H:EAX defines it. */
    info->stepping = sig & 0xf;
    info->model = ((sig >> 4) & 0xf) | ((sig >> 12) & 0xf0);
    info->family = (sig >> 8) & 0xf;
    if (info->family == 0xf) {
        info->family += (sig >> 20) & 0xff;
    }
    info->level = leaf_eax(t, n, LEAF_VENDOR);
    info->xlevel = leaf_eax(t, n, LEAF_EXT_MAX);
    info->xlevel2 = leaf_eax(t, n, LEAF_EXT2_MAX);
    e = leaf(t, n, LEAF_VENDOR, 0);
    if (e) {
        memcpy(info->vendor, &e->regs[X86_R_EBX], 4);
        memcpy(info->vendor + 4, &e->regs[X86_R_EDX], 4);
        memcpy(info->vendor + 8, &e->regs[X86_R_ECX], 4);
    }
    for (unsigned i = 0; i < 3; i++) {
        e = leaf(t, n, LEAF_BRAND + i, 0);
        if (e && info->xlevel >= LEAF_BRAND + i) {
            memcpy(info->model_id + 16 * i, e->regs, 16);
        }
    }
    /* QEMU shows the brand string without its padding. */
    g_strstrip(info->model_id);
}

static JsonNode *string_node(const char *s)
{
    JsonNode *node = json_node_new(JSON_NODE_VALUE);

    json_node_set_string(node, s);
    return node;
}

static JsonNode *get_vendor(void *state, Error **errp)
{
    return string_node(((X86CPUModelInfo *)state)->vendor);
}

static JsonNode *get_model_id(void *state, Error **errp)
{
    return string_node(((X86CPUModelInfo *)state)->model_id);
}

#define INFO_U32(n, f) DEFINE_PROP_UINT32(n, X86CPUModelInfo, f, 0)

/* The identity fields; "min-*" are what the model asks as a minimum. */
static const Property identity_props[] = {
    INFO_U32("family", family),
    INFO_U32("model", model),
    INFO_U32("stepping", stepping),
    { .name = "vendor", .type = PROP_TYPE_STRING, .get = get_vendor },
    { .name = "model-id", .type = PROP_TYPE_STRING, .get = get_model_id },
    INFO_U32("level", level),
    INFO_U32("xlevel", xlevel),
    INFO_U32("xlevel2", xlevel2),
    INFO_U32("min-level", level),
    INFO_U32("min-xlevel", xlevel),
    INFO_U32("min-xlevel2", xlevel2),
};

/* In a static expansion, the fields a "base" model takes. */
static bool identity_is_static(const char *name)
{
    static const char *const names[] = {
        "family", "model", "stepping", "vendor", "model-id", "min-level",
        "min-xlevel", NULL,
    };

    return g_strv_contains(names, name);
}

/* In the feature table, but a CPU state bit, not a property in QEMU. */
static bool feature_is_property(unsigned i)
{
    return strcmp(x86_cpu_feature_at(i)->name, "osxsave") != 0;
}

const Property *x86_cpu_model_props(void)
{
    static Property *props;
    unsigned nf = x86_cpu_feature_count(), n = 0;

    if (props) {
        return props;
    }
    g_assert(nf <= X86_CPU_MODEL_FEATURES_MAX);
    props = g_new0(Property, nf + G_N_ELEMENTS(identity_props) + 1);
    for (unsigned i = 0; i < nf; i++) {
        if (!feature_is_property(i)) {
            continue;
        }
        props[n++] = (Property) {
            .name = x86_cpu_feature_at(i)->name,
            .type = PROP_TYPE_BOOL,
            .offset = offsetof(X86CPUModelInfo, feature) + i * sizeof(bool),
        };
    }
    for (size_t i = 0; i < G_N_ELEMENTS(identity_props); i++) {
        props[n++] = identity_props[i];
    }
    return props;
}

JsonObject *x86_cpu_model_expand(const X86CPUModelInfo *info, bool full)
{
    JsonObject *props = json_object_new();

    for (unsigned i = 0; i < x86_cpu_feature_count(); i++) {
        if (feature_is_property(i) &&
            (full || !x86_cpu_feature_is_alias(i))) {
            json_object_set_boolean_member(props,
                                           x86_cpu_feature_at(i)->name,
                                           info->feature[i]);
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(identity_props); i++) {
        const Property *p = &identity_props[i];

        if (!full && !identity_is_static(p->name)) {
            continue;
        }
        if (p->get) {
            JsonNode *v = p->get((void *)info, NULL);

            json_object_set_member(props, p->name, v);
        } else {
            json_object_set_int_member(props, p->name,
                *(const uint32_t *)((const char *)info + p->offset));
        }
    }
    return props;
}

/*
 * props of query-cpu-model-expansion's model as -cpu's feature words
 * ("+feat", "-feat", "vendor=..."), in QEMU's words when one is wrong.
 */
static GPtrArray *props_to_features(JsonNode *props, Error **errp)
{
    GPtrArray *features = g_ptr_array_new_with_free_func(g_free);
    JsonObject *o;
    GList *members;
    bool ok = true;

    if (!props) {
        return features;
    }
    if (!JSON_NODE_HOLDS_OBJECT(props)) {
        /* QEMU 7.2 takes props that are not a dict as none. */
        return features;
    }
    o = json_node_get_object(props);
    members = json_object_get_members(o);
    for (GList *l = members; l && ok; l = l->next) {
        const char *name = l->data;
        JsonNode *v = json_object_get_member(o, name);
        bool is_value = JSON_NODE_HOLDS_VALUE(v);
        GType t = is_value ? json_node_get_value_type(v) : G_TYPE_INVALID;

        if (!strcmp(name, "vendor") && t == G_TYPE_STRING) {
            g_ptr_array_add(features, g_strdup_printf("vendor=%s",
                json_node_get_string(v)));
        } else if (t == G_TYPE_BOOLEAN) {
            g_ptr_array_add(features, g_strdup_printf("%c%s",
                json_node_get_boolean(v) ? '+' : '-', name));
        } else if (x86_cpu_feature_find(name)) {
            error_setg(errp, "Invalid parameter type for '%s', expected: "
                       "boolean", name);
            ok = false;
        } else {
            /* Unknown names get the model's "not found" below. */
            g_ptr_array_add(features, g_strdup_printf("+%s", name));
        }
    }
    g_list_free(members);
    if (!ok) {
        g_ptr_array_free(features, true);
        return NULL;
    }
    return features;
}

bool qmp_query_cpu_model_expansion(
    const q_obj_query_cpu_model_expansion_arg *args, JsonNode **ret,
    Error **errp)
{
    X86CPUIDEntry table[X86_CPUID_MAX_ENTRIES];
    X86CPUModelInfo *info;
    GPtrArray *features;
    JsonObject *model, *reply;
    X86CPUDef def;
    Error *err = NULL;
    unsigned n;

    if (!x86_cpu_def_init(&def, args->model->name, NULL, &err)) {
        error_free(err);
        error_setg(errp, "CPU model '%s' not found", args->model->name);
        return false;
    }
    x86_cpu_def_free(&def);
    features = props_to_features(args->model->props, errp);
    if (!features) {
        return false;
    }
    if (!x86_cpu_def_init(&def, args->model->name, features, errp)) {
        g_ptr_array_free(features, true);
        return false;
    }
    g_ptr_array_free(features, true);
    n = vcpus_model_cpuid(&def, table, G_N_ELEMENTS(table), errp);
    x86_cpu_def_free(&def);
    if (!n) {
        return false;
    }
    info = g_new(X86CPUModelInfo, 1);
    x86_cpu_model_info(table, n, info);
    model = json_object_new();
    json_object_set_string_member(model, "name",
        args->type == CPU_MODEL_EXPANSION_TYPE_STATIC ? "base"
                                                      : args->model->name);
    json_object_set_object_member(model, "props",
        x86_cpu_model_expand(info, args->type == CPU_MODEL_EXPANSION_TYPE_FULL));
    g_free(info);
    reply = json_object_new();
    json_object_set_object_member(reply, "model", model);
    *ret = json_node_init_object(json_node_alloc(), reply);
    json_object_unref(reply);
    return true;
}

/* The CPU models (-cpu), as QEMU names their types. */
static void __attribute__((constructor)) x86_cpu_register_types(void)
{
    type_register("x86_64-cpu", "device", true);
    for (int i = 0; vm_cpu_models[i]; i++) {
        char *name = g_strdup_printf("%s-x86_64-cpu", vm_cpu_models[i]);

        type_register(name, "x86_64-cpu", false);
        type_set_properties(name, x86_cpu_model_props());
        g_free(name);
    }
}
