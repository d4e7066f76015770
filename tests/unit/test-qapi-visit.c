/*
 * The code scripts/qapi-gen.py generates, on tests/qapi-schema/
 * test-schema.json: arguments into C structs (base, optional and list
 * members, a union, an alternate, an enum, conditions) with QEMU's
 * error texts, events out of C, and the introspection entries
 * (masked names, features, variants, members left out by 'if').
 */
#include <string.h>

#include "qapi-commands.h"     /* generated from test-schema.json */

static q_obj_draw_arg *last_draw;
static char *last_event;

bool qmp_draw(const q_obj_draw_arg *args, JsonNode **ret, Error **errp)
{
    g_assert_null(last_draw);
    last_draw = g_memdup2(args, sizeof(*args));
    return true;
}

/* reshape: the union whole; the reply says which branch arrived. */
bool qmp_reshape(const Shape *args, JsonNode **ret, Error **errp)
{
    *ret = qapi_out_str(args->kind == SHAPE_KIND_CIRCLE ? "circle" : "dot");
    return true;
}

bool qmp_paint(const Pixel *args, JsonNode **ret, Error **errp)
{
    *ret = qapi_out_Pixel(args);
    return true;
}

static void record_event(const char *name, JsonObject *data)
{
    JsonNode *n = json_node_init_object(json_node_alloc(), data);
    char *json = json_to_string(n, FALSE);

    g_free(last_event);
    last_event = g_strdup_printf("%s %s", name, json);
    g_free(json);
    json_node_unref(n);
    json_object_unref(data);
}

static const QapiCommand *find(const char *name)
{
    for (const QapiCommand *c = qapi_commands; c->name; c++) {
        if (!strcmp(c->name, name)) {
            return c;
        }
    }
    return NULL;
}

/* Run a command on arguments given as JSON; NULL or the error text. */
static char *call(const char *name, const char *args_json, JsonNode **ret)
{
    JsonNode *args = json_from_string(args_json, NULL);
    Error *err = NULL;
    char *msg = NULL;
    JsonNode *dummy = NULL;

    g_assert_nonnull(args);
    if (!find(name)->fn(json_node_get_object(args), ret ? ret : &dummy,
                        &err)) {
        msg = g_strdup(error_get_pretty(err));
        error_free(err);
    }
    json_node_unref(args);
    return msg;
}

static void free_draw(void)
{
    /* The marshaller freed the members; only our shallow copy is left. */
    g_free(last_draw);
    last_draw = NULL;
}

static void test_draw(void)
{
    g_assert_null(call("draw", "{\"shape\": {\"kind\": \"circle\", "
                       "\"centre\": {\"x\": 1}, \"radius\": 2.5}, "
                       "\"label\": 7, \"flag\": true}", NULL));
    g_assert_cmpint(last_draw->flag, ==, true);
    g_assert_true(last_draw->has_flag);
    g_assert_null(last_draw->points);
    free_draw();
    g_assert_null(call("draw", "{\"shape\": {\"kind\": \"dot\", "
                       "\"name\": \"d\"}, \"label\": \"x\", \"points\": "
                       "[{\"x\": 1}, {\"x\": 2, \"y\": 3}]}", NULL));
    g_assert_false(last_draw->has_flag);
    free_draw();
}

/* Visit the union alone, to look at what lands where. */
static void test_union_alternate(void)
{
    JsonNode *n = json_from_string("{\"kind\": \"circle\", \"name\": \"c\", "
                                   "\"centre\": {\"x\": -4, \"y\": 5}, "
                                   "\"radius\": 3}", NULL);
    QapiIn v = QAPI_IN_INIT;
    Shape *shape = NULL;
    StrOrInt *alt = NULL;
    Error *err = NULL;

    g_assert_true(qapi_in_Shape(&v, NULL, n, &shape, &err));
    g_assert_cmpint(shape->kind, ==, SHAPE_KIND_CIRCLE);
    g_assert_cmpstr(shape->name, ==, "c");
    g_assert_cmpint(shape->u.circle.centre->x, ==, -4);
    g_assert_true(shape->u.circle.centre->has_y);
    g_assert_cmpfloat(shape->u.circle.radius, ==, 3.0);
    qapi_free_Shape(shape);
    json_node_unref(n);
    n = json_from_string("\"s\"", NULL);
    g_assert_true(qapi_in_StrOrInt(&v, "l", n, &alt, &err));
    g_assert_cmpint(alt->type, ==, QAPI_JSON_STRING);
    g_assert_cmpstr(alt->u.s, ==, "s");
    qapi_free_StrOrInt(alt);
    json_node_unref(n);
    qapi_in_free(&v);
}

static void test_errors(void)
{
    static const struct {
        const char *cmd, *args, *error;
    } cases[] = {
        { "draw", "{}", "Parameter 'shape' is missing" },
        { "draw", "{\"shape\": 1}",
          "Invalid parameter type for 'shape', expected: object" },
        { "draw", "{\"shape\": {}}", "Parameter 'shape.kind' is missing" },
        { "draw", "{\"shape\": {\"kind\": \"square\"}}",
          "Parameter 'kind' does not accept value 'square'" },
        { "draw", "{\"shape\": {\"kind\": \"circle\"}}",
          "Parameter 'shape.centre' is missing" },
        { "draw", "{\"shape\": {\"kind\": \"circle\", \"centre\": {\"x\": 1}, "
          "\"radius\": \"big\"}}",
          "Invalid parameter type for 'shape.radius', expected: number" },
        { "draw", "{\"shape\": {\"kind\": \"dot\", \"radius\": 1}}",
          "Parameter 'shape.radius' is unexpected" },
        { "draw", "{\"shape\": {\"kind\": \"dot\"}, \"label\": true}",
          "Invalid parameter type for 'label', expected: StrOrInt" },
        { "draw", "{\"shape\": {\"kind\": \"dot\"}, \"points\": [{}]}",
          "Parameter 'points[0].x' is missing" },
        { "draw", "{\"shape\": {\"kind\": \"dot\"}, \"points\": "
          "[{\"x\": 1}, {\"x\": null}]}",
          "Invalid parameter type for 'points[1].x', expected: integer" },
        { "draw", "{\"shape\": {\"kind\": \"dot\"}, \"points\": {}}",
          "Invalid parameter type for 'points', expected: array" },
        /* compiled out: unknown, like any other extra member */
        { "draw", "{\"shape\": {\"kind\": \"dot\"}, \"secret\": \"s\"}",
          "Parameter 'secret' is unexpected" },
        { "paint", "{\"x\": 1, \"colour\": \"ultraviolet\"}",
          "Parameter 'colour' does not accept value 'ultraviolet'" },
        { "paint", "{\"x\": 1, \"colour\": \"red\", \"tags\": [\"a\", 2]}",
          "Invalid parameter type for 'tags[1]', expected: string" },
        { "paint", "{\"x\": 1, \"y\": 2}", "Parameter 'colour' is missing" },
        { "reshape", "{\"kind\": \"circle\"}",
          "Parameter 'centre' is missing" },
        { "reshape", "{\"kind\": \"dot\", \"radius\": 1}",
          "Parameter 'radius' is unexpected" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *msg = call(cases[i].cmd, cases[i].args, NULL);

        g_assert_cmpstr(msg, ==, cases[i].error);
        g_free(msg);
        g_assert_null(last_draw);
    }
    g_assert_null(find("never"));
}

static void test_out(void)
{
    JsonNode *ret = NULL;
    char *json;

    g_assert_null(call("reshape", "{\"kind\": \"circle\", \"centre\": "
                       "{\"x\": 1}, \"radius\": 1}", &ret));
    g_assert_cmpstr(json_node_get_string(ret), ==, "circle");
    json_node_unref(ret);
    ret = NULL;

    g_assert_null(call("paint", "{\"x\": 1, \"colour\": \"green\", "
                       "\"tags\": [\"a\"]}", &ret));
    json = json_to_string(ret, FALSE);
    g_assert_cmpstr(json, ==,
                    "{\"x\":1,\"colour\":\"green\",\"tags\":[\"a\"]}");
    g_free(json);
    json_node_unref(ret);
    qapi_event_send_drawn(&(Point){ .x = 3, .has_y = true, .y = 4 },
                          false, COLOUR_RED);
    g_assert_cmpstr(last_event, ==, "DRAWN {\"where\":{\"x\":3,\"y\":4}}");
    qapi_event_send_drawn(&(Point){ .x = 0 }, true, COLOUR_GREEN);
    g_assert_cmpstr(last_event, ==,
                    "DRAWN {\"where\":{\"x\":0},\"colour\":\"green\"}");
    g_assert_cmpstr(qapi_event_names[0], ==, "DRAWN");
    g_assert_null(qapi_event_names[1]);
}

/* The entry of query-qmp-schema named name. */
static JsonObject *entry(JsonArray *schema, const char *name)
{
    for (guint i = 0; i < json_array_get_length(schema); i++) {
        JsonObject *e = json_array_get_object_element(schema, i);

        if (!strcmp(json_object_get_string_member(e, "name"), name)) {
            return e;
        }
    }
    return NULL;
}

static char *to_json(JsonNode *n)
{
    return json_to_string(n, FALSE);
}

static void check_json(JsonObject *o, const char *member, const char *want)
{
    char *got = to_json(json_object_get_member(o, member));

    g_assert_cmpstr(got, ==, want);
    g_free(got);
}

/* The type name member index of object entry o refers to. */
static const char *member_type(JsonObject *o, guint index)
{
    JsonArray *m = json_object_get_array_member(o, "members");

    return json_object_get_string_member(
        json_array_get_object_element(m, index), "type");
}

static void test_introspect(void)
{
    JsonNode *root = qapi_introspect();
    JsonArray *schema = json_node_get_array(root);
    JsonObject *draw = entry(schema, "draw");
    JsonObject *args, *shape, *colour, *point;
    char *dot;

    g_assert_null(entry(schema, "never"));
    g_assert_cmpstr(json_object_get_string_member(draw, "meta-type"), ==,
                    "command");
    check_json(draw, "features", "[\"deprecated\"]");
    /* types are numbered in order of first use; builtins keep names */
    g_assert_cmpstr(json_object_get_string_member(draw, "arg-type"), ==,
                    "0");
    args = entry(schema, "0");
    g_assert_cmpuint(json_array_get_length(
        json_object_get_array_member(args, "members")), ==, 4);
    check_json(json_array_get_object_element(
        json_object_get_array_member(args, "members"), 3), "default",
        "null");
    g_assert_cmpstr(member_type(args, 3), ==, "bool");
    shape = entry(schema, member_type(args, 0));
    g_assert_cmpstr(json_object_get_string_member(shape, "tag"), ==, "kind");
    g_assert_cmpstr(member_type(shape, 0), !=, "str");
    colour = entry(schema, member_type(shape, 0));
    check_json(colour, "values", "[\"circle\",\"dot\"]");
    /* "dot" has no branch: the empty object, as QEMU lists it */
    dot = to_json(json_array_get_element(
        json_object_get_array_member(shape, "variants"), 1));
    g_assert_true(g_str_has_prefix(dot, "{\"case\":\"dot\",\"type\":\""));
    g_free(dot);
    check_json(entry(schema, member_type(args, 1)), "members",
               "[{\"type\":\"str\"},{\"type\":\"int\"}]");
    g_assert_cmpstr(json_object_get_string_member(
        entry(schema, member_type(args, 2)), "meta-type"), ==, "array");
    point = entry(schema, json_object_get_string_member(
        entry(schema, member_type(args, 2)), "element-type"));
    check_json(point, "features", "[\"unstable\"]");
    /* the Pixel of paint: base members first; the TEST_NEVER value gone */
    args = entry(schema, json_object_get_string_member(
        entry(schema, "paint"), "arg-type"));
    g_assert_cmpstr(json_object_get_string_member(
        json_array_get_object_element(
            json_object_get_array_member(args, "members"), 0), "name"),
        ==, "x");
    check_json(entry(schema, member_type(args, 2)), "values",
               "[\"red\",\"green\"]");
    check_json(entry(schema, "str"), "json-type", "\"string\"");
    json_node_unref(root);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qapi_event_set_emitter(record_event);
    g_test_add_func("/qapi/draw", test_draw);
    g_test_add_func("/qapi/union-alternate", test_union_alternate);
    g_test_add_func("/qapi/errors", test_errors);
    g_test_add_func("/qapi/out", test_out);
    g_test_add_func("/qapi/introspect", test_introspect);
    return g_test_run();
}
