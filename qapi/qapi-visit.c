/*
 * The runtime of the generated QMP visitors: JSON values to C with
 * QEMU's error texts (include/monitor/qapi-visit.h), C back to JSON.
 */
#include <string.h>

#include "qapi/qapi-visit.h"

void qapi_in_free(QapiIn *v)
{
    if (v->path) {
        g_ptr_array_free(v->path, TRUE);
        v->path = NULL;
    }
}

static void path_add(QapiIn *v, char *elem)
{
    if (!v->path) {
        v->path = g_ptr_array_new_with_free_func(g_free);
    }
    g_ptr_array_add(v->path, elem);
}

/* NULL (the top level, or a list item's own level) adds nothing. */
void qapi_in_push(QapiIn *v, const char *name)
{
    path_add(v, g_strdup(name ? name : ""));
}

void qapi_in_push_index(QapiIn *v, unsigned index)
{
    path_add(v, g_strdup_printf("[%u]", index));
}

void qapi_in_pop(QapiIn *v)
{
    g_ptr_array_remove_index(v->path, v->path->len - 1);
}

/* QEMU's full_name(): "a.b[2].c" */
static char *full_name(QapiIn *v, const char *name)
{
    GString *s = g_string_new(NULL);

    for (guint i = 0; v->path && i < v->path->len; i++) {
        const char *e = g_ptr_array_index(v->path, i);

        if (*e && *e != '[' && s->len) {
            g_string_append_c(s, '.');
        }
        g_string_append(s, e);
    }
    if (name) {
        if (s->len) {
            g_string_append_c(s, '.');
        }
        g_string_append(s, name);
    }
    return g_string_free(s, FALSE);
}

static bool type_error(QapiIn *v, const char *name, const char *expected,
                       Error **errp)
{
    char *full = full_name(v, name);

    error_setg(errp, "Invalid parameter type for '%s', expected: %s", full,
               expected);
    g_free(full);
    return false;
}

bool qapi_in_member(QapiIn *v, JsonObject *obj, const char *name,
                    bool optional, JsonNode **node, Error **errp)
{
    *node = json_object_get_member(obj, name);
    if (!*node && !optional) {
        char *full = full_name(v, name);

        error_setg(errp, "Parameter '%s' is missing", full);
        g_free(full);
        return false;
    }
    return true;
}

static bool listed(const char *const *names, const char *key)
{
    for (; names && *names; names++) {
        if (!strcmp(*names, key)) {
            return true;
        }
    }
    return false;
}

bool qapi_in_check_extra(QapiIn *v, JsonObject *obj,
                         const char *const *names, const char *const *more,
                         Error **errp)
{
    GList *members = json_object_get_members(obj);
    bool ok = true;

    for (GList *l = members; l && ok; l = l->next) {
        if (!listed(names, l->data) && !listed(more, l->data)) {
            char *full = full_name(v, l->data);

            error_setg(errp, "Parameter '%s' is unexpected", full);
            g_free(full);
            ok = false;
        }
    }
    g_list_free(members);
    return ok;
}

QapiJsonType qapi_json_type(JsonNode *n)
{
    static const struct {
        GType gtype;
        QapiJsonType type;
    } values[] = {
        { G_TYPE_STRING, QAPI_JSON_STRING },
        { G_TYPE_BOOLEAN, QAPI_JSON_BOOL },
        { G_TYPE_INT64, QAPI_JSON_NUMBER },
        { G_TYPE_DOUBLE, QAPI_JSON_NUMBER },
    };

    if (JSON_NODE_HOLDS_OBJECT(n)) {
        return QAPI_JSON_OBJECT;
    }
    if (JSON_NODE_HOLDS_ARRAY(n)) {
        return QAPI_JSON_ARRAY;
    }
    for (size_t i = 0; JSON_NODE_HOLDS_VALUE(n) && i < G_N_ELEMENTS(values);
         i++) {
        if (json_node_get_value_type(n) == values[i].gtype) {
            return values[i].type;
        }
    }
    return QAPI_JSON_NULL;
}

static bool holds(JsonNode *n, GType type)
{
    return JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == type;
}

bool qapi_in_str(QapiIn *v, const char *name, JsonNode *n, char **out,
                 Error **errp)
{
    if (!holds(n, G_TYPE_STRING)) {
        return type_error(v, name, "string", errp);
    }
    *out = g_strdup(json_node_get_string(n));
    return true;
}

bool qapi_in_int(QapiIn *v, const char *name, JsonNode *n, int64_t *out,
                 Error **errp)
{
    if (!holds(n, G_TYPE_INT64)) {
        return type_error(v, name, "integer", errp);
    }
    *out = json_node_get_int(n);
    return true;
}

bool qapi_in_uint(QapiIn *v, const char *name, JsonNode *n, uint64_t *out,
                  Error **errp)
{
    int64_t i;

    if (!qapi_in_int(v, name, n, &i, errp)) {
        return false;
    }
    *out = (uint64_t)i;
    return true;
}

bool qapi_in_number(QapiIn *v, const char *name, JsonNode *n, double *out,
                    Error **errp)
{
    if (holds(n, G_TYPE_INT64)) {
        *out = (double)json_node_get_int(n);
        return true;
    }
    if (!holds(n, G_TYPE_DOUBLE)) {
        return type_error(v, name, "number", errp);
    }
    *out = json_node_get_double(n);
    return true;
}

bool qapi_in_bool(QapiIn *v, const char *name, JsonNode *n, bool *out,
                  Error **errp)
{
    if (!holds(n, G_TYPE_BOOLEAN)) {
        return type_error(v, name, "boolean", errp);
    }
    *out = json_node_get_boolean(n);
    return true;
}

bool qapi_in_null(QapiIn *v, const char *name, JsonNode *n, bool *out,
                  Error **errp)
{
    if (!JSON_NODE_HOLDS_NULL(n)) {
        return type_error(v, name, "null", errp);
    }
    *out = true;
    return true;
}

bool qapi_in_any(QapiIn *v, const char *name, JsonNode *n, JsonNode **out,
                 Error **errp)
{
    *out = json_node_copy(n);
    return true;
}

bool qapi_in_enum(QapiIn *v, const char *name, JsonNode *n,
                  const char *const *lookup, int count, int *out,
                  Error **errp)
{
    const char *s;

    if (!holds(n, G_TYPE_STRING)) {
        return type_error(v, name, "string", errp);
    }
    s = json_node_get_string(n);
    for (int i = 0; i < count; i++) {
        if (lookup[i] && !strcmp(lookup[i], s)) {
            *out = i;
            return true;
        }
    }
    /* QEMU names the member here, not its path. */
    error_setg(errp, "Parameter '%s' does not accept value '%s'",
               name ? name : "null", s);
    return false;
}

bool qapi_in_object(QapiIn *v, const char *name, JsonNode *n,
                    JsonObject **out, Error **errp)
{
    if (!JSON_NODE_HOLDS_OBJECT(n)) {
        return type_error(v, name, "object", errp);
    }
    *out = json_node_get_object(n);
    return true;
}

bool qapi_in_array(QapiIn *v, const char *name, JsonNode *n,
                   JsonArray **out, Error **errp)
{
    if (!JSON_NODE_HOLDS_ARRAY(n)) {
        return type_error(v, name, "array", errp);
    }
    *out = json_node_get_array(n);
    return true;
}

void qapi_free_str(char *s)
{
    g_free(s);
}

void qapi_free_any(JsonNode *n)
{
    if (n) {
        json_node_unref(n);
    }
}

JsonNode *qapi_out_str(const char *s)
{
    return json_node_init_string(json_node_alloc(), s);
}

JsonNode *qapi_out_int(int64_t i)
{
    return json_node_init_int(json_node_alloc(), i);
}

JsonNode *qapi_out_uint(uint64_t i)
{
    return json_node_init_int(json_node_alloc(), (gint64)i);
}

JsonNode *qapi_out_number(double d)
{
    return json_node_init_double(json_node_alloc(), d);
}

JsonNode *qapi_out_bool(bool b)
{
    return json_node_init_boolean(json_node_alloc(), b);
}

JsonNode *qapi_out_null(bool unused)
{
    return json_node_init_null(json_node_alloc());
}

JsonNode *qapi_out_any(const JsonNode *n)
{
    return json_node_copy((JsonNode *)n);
}

JsonNode *qapi_out_object(JsonObject *o)
{
    JsonNode *n = json_node_init_object(json_node_alloc(), o);

    json_object_unref(o);
    return n;
}

JsonNode *qapi_out_array(JsonArray *a)
{
    JsonNode *n = json_node_init_array(json_node_alloc(), a);

    json_array_unref(a);
    return n;
}
