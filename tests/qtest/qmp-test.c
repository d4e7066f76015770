/*
 * QMP end to end: the greeting, capabilities negotiation, every command's
 * reply shape, events, human-monitor-command, malformed input, and two
 * monitors at once. Expected texts and shapes are QEMU 7.2's.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libqtest.h"

#define MACHINE     "-machine pc -m 256M"
#define RAM_SIZE    (256 << 20)

/* ---- helpers --------------------------------------------------------- */

static JsonObject *obj_of(JsonNode *node)
{
    g_assert_nonnull(node);
    g_assert_true(JSON_NODE_HOLDS_OBJECT(node));
    return json_node_get_object(node);
}

/* The "return" member of a successful reply, as an object. */
static JsonObject *return_obj(JsonNode *reply)
{
    JsonObject *ret = qdict_get_qdict(reply, "return");

    if (!ret) {
        g_error("expected an object return, got %s",
                json_to_string(reply, FALSE));
    }
    return ret;
}

static JsonArray *return_array(JsonNode *reply)
{
    JsonNode *ret = json_object_get_member(obj_of(reply), "return");

    if (!ret || !JSON_NODE_HOLDS_ARRAY(ret)) {
        g_error("expected an array return, got %s",
                json_to_string(reply, FALSE));
    }
    return json_node_get_array(ret);
}

/* Check reply is an error of class cls; desc is checked when not NULL. */
static void assert_error(JsonNode *reply, const char *cls, const char *desc)
{
    JsonObject *err = qdict_get_qdict(reply, "error");

    if (!err) {
        g_error("expected an error, got %s", json_to_string(reply, FALSE));
    }
    g_assert_cmpstr(json_object_get_string_member(err, "class"), ==, cls);
    g_assert_true(json_object_has_member(err, "desc"));
    if (desc) {
        g_assert_cmpstr(json_object_get_string_member(err, "desc"), ==,
                        desc);
    }
}

static JsonNode *qmp_ok(QTestState *s, const char *cmd)
{
    JsonNode *reply = qtest_qmp(s, "%s", cmd);

    if (!json_object_has_member(obj_of(reply), "return")) {
        g_error("'%s' failed: %s", cmd, json_to_string(reply, FALSE));
    }
    return reply;
}

static const char *status_of(QTestState *s, bool *running)
{
    static char status[64];
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-status\"}");
    JsonObject *ret = return_obj(reply);

    g_strlcpy(status, json_object_get_string_member(ret, "status"),
              sizeof(status));
    *running = json_object_get_boolean_member(ret, "running");
    json_node_unref(reply);
    return status;
}

/* Does the array hold an object whose member key is the string value? */
static JsonObject *find_by(JsonArray *arr, const char *key,
                           const char *value)
{
    for (guint i = 0; i < json_array_get_length(arr); i++) {
        JsonObject *o = json_array_get_object_element(arr, i);
        const char *v = o ? json_object_get_string_member_with_default(
                                o, key, NULL) : NULL;

        if (v && strcmp(v, value) == 0) {
            return o;
        }
    }
    return NULL;
}

static JsonNode *qom_list(QTestState *s, const char *path)
{
    return qtest_qmp(s, "{\"execute\": \"qom-list\", "
                     "\"arguments\": {\"path\": \"%s\"}}", path);
}

static JsonNode *qom_get(QTestState *s, const char *path, const char *prop)
{
    return qtest_qmp(s, "{\"execute\": \"qom-get\", \"arguments\": "
                     "{\"path\": \"%s\", \"property\": \"%s\"}}", path, prop);
}

static void assert_timestamp(JsonNode *event)
{
    JsonObject *ts = qdict_get_qdict(event, "timestamp");

    g_assert_nonnull(ts);
    g_assert_cmpint(json_object_get_int_member(ts, "seconds"), >, 0);
    g_assert_cmpint(json_object_get_int_member(ts, "microseconds"), >=, 0);
    g_assert_cmpint(json_object_get_int_member(ts, "microseconds"), <,
                    1000000);
}

/*
 * Send raw (bad) input, then a query-status with a fresh id; collect
 * replies until that one. Returns how many error replies came first,
 * after checking the connection still works.
 */
static int send_bad_then_sync(QTestState *s, const char *data, size_t len,
                              JsonNode **first_error)
{
    static int sync_id;
    char *sync = g_strdup_printf("\n{\"execute\": \"query-status\", "
                                 "\"id\": \"sync-%d\"}\n", ++sync_id);
    char *want_id = g_strdup_printf("sync-%d", sync_id);
    int errors = 0;

    *first_error = NULL;
    qtest_qmp_send_raw(s, data, len);
    qtest_qmp_send_raw(s, sync, strlen(sync));
    for (;;) {
        JsonNode *msg = qtest_qmp_receive(s);
        JsonObject *o = obj_of(msg);
        const char *id = json_object_has_member(o, "id") &&
            JSON_NODE_HOLDS_VALUE(json_object_get_member(o, "id")) &&
            json_node_get_value_type(json_object_get_member(o, "id")) ==
                G_TYPE_STRING ? json_object_get_string_member(o, "id") : NULL;

        if (id && strcmp(id, want_id) == 0) {
            g_assert_true(qdict_get_qdict(msg, "return") != NULL);
            g_assert_true(json_object_has_member(return_obj(msg), "status"));
            json_node_unref(msg);
            break;
        }
        if (qtest_qmp_has_error(msg)) {
            if (!errors++) {
                *first_error = msg;
                continue;
            }
        } else if (!json_object_has_member(o, "event")) {
            g_error("bad input got a success reply: %s",
                    json_to_string(msg, FALSE));
        }
        json_node_unref(msg);
    }
    g_free(sync);
    g_free(want_id);
    return errors;
}

static void check_bad_input(QTestState *s, const char *data,
                            const char *cls, const char *desc)
{
    JsonNode *err;
    int n = send_bad_then_sync(s, data, strlen(data), &err);

    if (n == 0) {
        g_error("no error reply for '%.80s'", data);
    }
    assert_error(err, cls, desc);
    json_node_unref(err);
}

/* ---- a second monitor, driven by hand -------------------------------- */

typedef struct RawQmp {
    int fd;
    GString *buf;
    GQueue *events;
} RawQmp;

static JsonNode *raw_receive(RawQmp *m)
{
    for (;;) {
        char *nl = memchr(m->buf->str, '\n', m->buf->len);
        struct pollfd pfd = { .fd = m->fd, .events = POLLIN };
        char chunk[4096];
        ssize_t n;

        if (nl) {
            size_t len = nl - m->buf->str;
            char *line = g_strstrip(g_strndup(m->buf->str, len));
            JsonParser *parser;
            JsonNode *node;

            g_string_erase(m->buf, 0, len + 1);
            if (!*line) {
                g_free(line);
                continue;
            }
            parser = json_parser_new();
            g_assert_true(json_parser_load_from_data(parser, line, -1,
                                                     NULL));
            node = json_node_ref(json_parser_get_root(parser));
            g_object_unref(parser);
            g_free(line);
            return node;
        }
        g_assert_cmpint(poll(&pfd, 1, 60000), ==, 1);
        n = recv(m->fd, chunk, sizeof(chunk), 0);
        g_assert_cmpint(n, >, 0);
        g_string_append_len(m->buf, chunk, n);
    }
}

static JsonNode *raw_cmd(RawQmp *m, const char *cmd)
{
    g_assert_cmpint(send(m->fd, cmd, strlen(cmd), MSG_NOSIGNAL), ==,
                    (ssize_t)strlen(cmd));
    for (;;) {
        JsonNode *msg = raw_receive(m);

        if (!json_object_has_member(obj_of(msg), "event")) {
            return msg;
        }
        g_queue_push_tail(m->events, msg);
    }
}

static JsonNode *raw_eventwait(RawQmp *m, const char *event)
{
    for (;;) {
        JsonNode *msg = g_queue_pop_head(m->events);

        if (!msg) {
            msg = raw_receive(m);
        }
        if (g_strcmp0(json_object_get_string_member_with_default(
                          obj_of(msg), "event", NULL), event) == 0) {
            return msg;
        }
        json_node_unref(msg);
    }
}

/* ---- greeting and negotiation ---------------------------------------- */

static void test_greeting(void)
{
    QTestState *s = qtest_init_without_qmp_handshake(MACHINE);
    JsonNode *greeting = qtest_qmp_receive(s);
    JsonObject *qmp = qdict_get_qdict(greeting, "QMP");
    JsonObject *version;
    JsonObject *qemu;
    JsonArray *caps;

    g_assert_nonnull(qmp);
    g_assert_cmpint(json_object_get_size(obj_of(greeting)), ==, 1);
    version = json_object_get_object_member(qmp, "version");
    g_assert_nonnull(version);
    qemu = json_object_get_object_member(version, "qemu");
    g_assert_nonnull(qemu);
    g_assert_cmpint(json_object_get_int_member(qemu, "major"), >=, 0);
    g_assert_cmpint(json_object_get_int_member(qemu, "minor"), >=, 0);
    g_assert_cmpint(json_object_get_int_member(qemu, "micro"), >=, 0);
    g_assert_true(json_object_has_member(version, "package"));
    g_assert_true(JSON_NODE_HOLDS_VALUE(
        json_object_get_member(version, "package")));
    caps = json_object_get_array_member(qmp, "capabilities");
    g_assert_nonnull(caps);
    g_assert_cmpint(json_array_get_length(caps), ==, 1);
    g_assert_cmpstr(json_array_get_string_element(caps, 0), ==, "oob");
    json_node_unref(greeting);
    qtest_quit(s);
}

static void test_negotiation(void)
{
    QTestState *s = qtest_init_without_qmp_handshake(MACHINE);
    JsonNode *reply;

    json_node_unref(qtest_qmp_receive(s));

    /* Nothing but qmp_capabilities before negotiation, even known names. */
    reply = qtest_qmp(s, "{\"execute\": \"query-status\"}");
    assert_error(reply, "CommandNotFound",
                 "Expecting capabilities negotiation with "
                 "'qmp_capabilities'");
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"quit\", \"id\": 7}");
    assert_error(reply, "CommandNotFound",
                 "Expecting capabilities negotiation with "
                 "'qmp_capabilities'");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "id"), ==, 7);
    json_node_unref(reply);

    /* An unknown capability is refused and leaves negotiation open. */
    reply = qtest_qmp(s, "{\"execute\": \"qmp_capabilities\", "
                      "\"arguments\": {\"enable\": [\"no-such-cap\"]}}");
    g_assert_true(qtest_qmp_has_error(reply));
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"query-status\"}");
    assert_error(reply, "CommandNotFound", NULL);
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qmp_capabilities\"}");
    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qmp_capabilities\"}");
    assert_error(reply, "CommandNotFound",
                 "Capabilities negotiation is already complete, command "
                 "ignored");
    json_node_unref(reply);

    /* And now commands run. */
    reply = qmp_ok(s, "{\"execute\": \"query-status\"}");
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_id_echo(void)
{
    static const char *const ids[] = {
        "1", "-42", "\"abc\"", "{\"a\": [1, \"b\"]}", "[true, null]", "2.5",
    };
    QTestState *s = qtest_init(MACHINE);

    for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
        JsonParser *parser = json_parser_new();
        JsonNode *want;
        JsonNode *reply;

        g_assert_true(json_parser_load_from_data(parser, ids[i], -1, NULL));
        want = json_parser_get_root(parser);

        reply = qtest_qmp(s, "{\"execute\": \"query-status\", \"id\": %s}",
                          ids[i]);
        g_assert_true(json_node_equal(
            json_object_get_member(obj_of(reply), "id"), want));
        g_assert_nonnull(qdict_get_qdict(reply, "return"));
        json_node_unref(reply);

        /* Errors carry the id too. */
        reply = qtest_qmp(s, "{\"execute\": \"no-such-command\", "
                          "\"id\": %s}", ids[i]);
        g_assert_true(qtest_qmp_has_error(reply));
        g_assert_true(json_node_equal(
            json_object_get_member(obj_of(reply), "id"), want));
        json_node_unref(reply);
        g_object_unref(parser);
    }

    /* No id in, no id out. */
    {
        JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-status\"}");

        g_assert_false(json_object_has_member(obj_of(reply), "id"));
        json_node_unref(reply);
    }
    qtest_quit(s);
}

/* ---- query commands -------------------------------------------------- */

static void test_query_version(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-version\"}");
    JsonObject *ret = return_obj(reply);
    JsonObject *qemu = json_object_get_object_member(ret, "qemu");
    char *hmp;
    char *want;

    g_assert_nonnull(qemu);
    g_assert_true(json_object_has_member(qemu, "major"));
    g_assert_true(json_object_has_member(qemu, "minor"));
    g_assert_true(json_object_has_member(qemu, "micro"));
    g_assert_true(json_object_has_member(ret, "package"));

    /* "info version" prints the same numbers. */
    hmp = qtest_hmp(s, "info version");
    want = g_strdup_printf("%" PRId64 ".%" PRId64 ".%" PRId64,
                           json_object_get_int_member(qemu, "major"),
                           json_object_get_int_member(qemu, "minor"),
                           json_object_get_int_member(qemu, "micro"));
    g_assert_true(g_str_has_prefix(hmp, want));
    g_free(want);
    g_free(hmp);
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_commands(void)
{
    static const char *const expected[] = {
        "qmp_capabilities", "query-version", "query-commands",
        "query-status", "query-name", "query-uuid", "query-kvm",
        "query-target", "query-machines", "query-chardev",
        "query-cpus-fast", "query-memdev", "query-memory-size-summary",
        "query-current-machine", "qom-list", "qom-get", "qom-set",
        "qom-list-types", "stop", "cont", "system_reset",
        "system_powerdown", "quit", "human-monitor-command",
    };
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-commands\"}");
    JsonArray *list = return_array(reply);

    for (size_t i = 0; i < G_N_ELEMENTS(expected); i++) {
        if (!find_by(list, "name", expected[i])) {
            g_error("query-commands lacks %s", expected[i]);
        }
    }
    /* Every listed command exists: none answers CommandNotFound. */
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *o = json_array_get_object_element(list, i);

        g_assert_nonnull(o);
        g_assert_cmpint(json_object_get_size(o), ==, 1);
        g_assert_nonnull(json_object_get_string_member(o, "name"));
    }
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_status_running(void)
{
    QTestState *s = qtest_init(MACHINE);
    bool running;

    g_assert_cmpstr(status_of(s, &running), ==, "running");
    g_assert_true(running);
    qtest_quit(s);
}

static void test_stop_cont(void)
{
    QTestState *s = qtest_init(MACHINE " -S");
    JsonNode *reply;
    JsonNode *event;
    bool running;

    g_assert_cmpstr(status_of(s, &running), ==, "prelaunch");
    g_assert_false(running);

    reply = qmp_ok(s, "{\"execute\": \"cont\"}");
    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);
    event = qtest_qmp_eventwait_ref(s, "RESUME");
    assert_timestamp(event);
    json_node_unref(event);
    g_assert_cmpstr(status_of(s, &running), ==, "running");
    g_assert_true(running);

    json_node_unref(qmp_ok(s, "{\"execute\": \"stop\"}"));
    event = qtest_qmp_eventwait_ref(s, "STOP");
    assert_timestamp(event);
    json_node_unref(event);
    g_assert_cmpstr(status_of(s, &running), ==, "paused");
    g_assert_false(running);

    /* Stopping a stopped VM is fine and changes nothing. */
    json_node_unref(qmp_ok(s, "{\"execute\": \"stop\"}"));
    g_assert_cmpstr(status_of(s, &running), ==, "paused");

    json_node_unref(qmp_ok(s, "{\"execute\": \"cont\"}"));
    qtest_qmp_eventwait(s, "RESUME");
    g_assert_cmpstr(status_of(s, &running), ==, "running");

    /* HMP "info status" agrees. */
    {
        char *out = qtest_hmp(s, "info status");

        g_assert_nonnull(strstr(out, "VM status: running"));
        g_free(out);
        json_node_unref(qmp_ok(s, "{\"execute\": \"stop\"}"));
        out = qtest_hmp(s, "info status");
        g_assert_nonnull(strstr(out, "VM status: paused"));
        g_free(out);
    }
    qtest_quit(s);
}

static void test_query_name(void)
{
    QTestState *s = qtest_init(MACHINE " -name guest=x");
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-name\"}");

    g_assert_cmpstr(json_object_get_string_member(return_obj(reply), "name"),
                    ==, "x");
    json_node_unref(reply);
    qtest_quit(s);

    /* Without -name the member is absent. */
    s = qtest_init(MACHINE);
    reply = qmp_ok(s, "{\"execute\": \"query-name\"}");
    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_uuid(void)
{
    const char *uuid = "3d3bcbd6-6f30-4ad5-9c1c-4b0f8a8b1e2c";
    QTestState *s = qtest_initf(MACHINE " -uuid %s", uuid);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-uuid\"}");

    g_assert_cmpstr(json_object_get_string_member(return_obj(reply), "UUID"),
                    ==, uuid);
    json_node_unref(reply);
    qtest_quit(s);

    s = qtest_init(MACHINE);
    reply = qmp_ok(s, "{\"execute\": \"query-uuid\"}");
    g_assert_cmpstr(json_object_get_string_member(return_obj(reply), "UUID"),
                    ==, "00000000-0000-0000-0000-000000000000");
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_kvm(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-kvm\"}");
    JsonObject *ret = return_obj(reply);

    g_assert_false(json_object_get_boolean_member(ret, "enabled"));
    g_assert_cmpint(json_node_get_value_type(
        json_object_get_member(ret, "present")), ==, G_TYPE_BOOLEAN);
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_target(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-target\"}");

    g_assert_cmpstr(json_object_get_string_member(return_obj(reply), "arch"),
                    ==, "x86_64");
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_machines(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-machines\"}");
    JsonArray *list = return_array(reply);
    JsonObject *pc = find_by(list, "alias", "pc");
    JsonObject *none = find_by(list, "name", "none");
    int defaults = 0;

    g_assert_nonnull(pc);
    g_assert_true(g_str_has_prefix(json_object_get_string_member(pc, "name"),
                                   "pc-i440fx-"));
    g_assert_true(json_object_get_boolean_member_with_default(
        pc, "is-default", false));
    g_assert_nonnull(none);
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *m = json_array_get_object_element(list, i);

        g_assert_true(json_object_has_member(m, "name"));
        g_assert_true(json_object_has_member(m, "cpu-max"));
        g_assert_true(json_object_has_member(m, "hotpluggable-cpus"));
        g_assert_true(json_object_has_member(m, "deprecated"));
        defaults += json_object_get_boolean_member_with_default(
            m, "is-default", false);
    }
    g_assert_cmpint(defaults, ==, 1);
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_chardev(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-chardev\"}");
    JsonArray *list = return_array(reply);
    JsonObject *mon = find_by(list, "label", "char0");
    char *out;

    g_assert_nonnull(mon);
    g_assert_true(g_str_has_prefix(
        json_object_get_string_member(mon, "filename"), "unix:"));
    g_assert_true(json_object_get_boolean_member(mon, "frontend-open"));
    g_assert_nonnull(find_by(list, "label", "serial0"));
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *c = json_array_get_object_element(list, i);

        g_assert_true(json_object_has_member(c, "label"));
        g_assert_true(json_object_has_member(c, "filename"));
        g_assert_true(json_object_has_member(c, "frontend-open"));
    }

    out = qtest_hmp(s, "info chardev");
    g_assert_nonnull(strstr(out, "char0: filename=unix:"));
    g_assert_nonnull(strstr(out, "serial0: filename="));
    g_free(out);
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_cpus_fast(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-cpus-fast\"}");
    JsonArray *list = return_array(reply);

    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *c = json_array_get_object_element(list, i);

        g_assert_cmpint(json_object_get_int_member(c, "cpu-index"), ==, i);
        g_assert_true(json_object_has_member(c, "qom-path"));
        g_assert_true(json_object_has_member(c, "thread-id"));
        g_assert_cmpstr(json_object_get_string_member(c, "target"), ==,
                        "x86_64");
    }
    json_node_unref(reply);
    qtest_quit(s);
}

static JsonObject *expand(QTestState *s, const char *type,
                          const char *model, JsonNode **reply)
{
    char *cmd = g_strdup_printf(
        "{\"execute\": \"query-cpu-model-expansion\", \"arguments\": "
        "{\"type\": \"%s\", \"model\": %s}}", type, model);

    *reply = qmp_ok(s, cmd);
    g_free(cmd);
    return json_object_get_object_member(return_obj(*reply), "model");
}

/*
 * What libvirt reads for host-model CPUs: static expands into "base"
 * with each feature once and the identity fields; full keeps the model
 * and lists aliases too; props change the answer; bad input is refused
 * in QEMU's words.
 */
static void test_query_cpu_model_expansion(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply;
    JsonObject *m, *p;

    m = expand(s, "static", "{\"name\": \"qemu64\"}", &reply);
    g_assert_cmpstr(json_object_get_string_member(m, "name"), ==, "base");
    p = json_object_get_object_member(m, "props");
    g_assert_true(json_object_get_boolean_member(p, "sse2"));
    g_assert_true(json_object_get_boolean_member(p, "pni"));
    g_assert_true(json_object_get_boolean_member(p, "lm"));
    g_assert_false(json_object_get_boolean_member(p, "aes"));
    g_assert_false(json_object_has_member(p, "sse3"));      /* an alias */
    g_assert_false(json_object_has_member(p, "level"));
    g_assert_cmpint(json_object_get_int_member(p, "family"), ==, 15);
    g_assert_cmpint(json_object_get_int_member(p, "model"), ==, 107);
    g_assert_cmpint(json_object_get_int_member(p, "stepping"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(p, "min-level"), ==, 13);
    g_assert_cmpint(json_object_get_int_member(p, "min-xlevel"), ==,
                    0x8000000a);
    g_assert_cmpstr(json_object_get_string_member(p, "vendor"), ==,
                    "AuthenticAMD");
    g_assert_cmpstr(json_object_get_string_member(p, "model-id"), ==,
                    "QEMU Virtual CPU version 2.5+");
    json_node_unref(reply);

    m = expand(s, "full", "{\"name\": \"max\"}", &reply);
    g_assert_cmpstr(json_object_get_string_member(m, "name"), ==, "max");
    p = json_object_get_object_member(m, "props");
    g_assert_true(json_object_get_boolean_member(p, "sse4.2"));
    g_assert_true(json_object_get_boolean_member(p, "sse3"));
    g_assert_true(json_object_get_boolean_member(p, "aes"));
    g_assert_true(json_object_has_member(p, "level"));
    json_node_unref(reply);

    m = expand(s, "full", "{\"name\": \"qemu64\", \"props\": "
               "{\"aes\": true, \"sse2\": false, \"vendor\": "
               "\"GenuineIntel\"}}", &reply);
    p = json_object_get_object_member(m, "props");
    g_assert_true(json_object_get_boolean_member(p, "aes"));
    g_assert_false(json_object_get_boolean_member(p, "sse2"));
    g_assert_cmpstr(json_object_get_string_member(p, "vendor"), ==,
                    "GenuineIntel");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"query-cpu-model-expansion\", "
                      "\"arguments\": {\"type\": \"full\", \"model\": "
                      "{\"name\": \"nosuch\"}}}");
    assert_error(reply, "GenericError", "CPU model 'nosuch' not found");
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"query-cpu-model-expansion\", "
                      "\"arguments\": {\"type\": \"full\", \"model\": "
                      "{\"name\": \"max\", \"props\": {\"bogus\": true}}}}");
    assert_error(reply, "GenericError",
                 "Property 'max-x86_64-cpu.bogus' not found");
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"query-cpu-model-expansion\", "
                      "\"arguments\": {\"type\": \"static\", \"model\": "
                      "{\"name\": \"max\", \"props\": {\"aes\": 1}}}}");
    assert_error(reply, "GenericError",
                 "Invalid parameter type for 'aes', expected: boolean");
    json_node_unref(reply);
    reply = qtest_qmp(s, "{\"execute\": \"query-cpu-model-expansion\", "
                      "\"arguments\": {\"type\": \"compat\", \"model\": "
                      "{\"name\": \"max\"}}}");
    assert_error(reply, "GenericError",
                 "Parameter 'type' does not accept value 'compat'");
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_memdev(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-memdev\"}");
    JsonArray *list = return_array(reply);

    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *m = json_array_get_object_element(list, i);

        g_assert_true(json_object_has_member(m, "size"));
        g_assert_true(json_object_has_member(m, "merge"));
        g_assert_true(json_object_has_member(m, "dump"));
        g_assert_true(json_object_has_member(m, "prealloc"));
        g_assert_true(json_object_has_member(m, "share"));
        g_assert_true(json_object_has_member(m, "host-nodes"));
        g_assert_true(json_object_has_member(m, "policy"));
    }
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_memory_size_summary(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s,
                             "{\"execute\": \"query-memory-size-summary\"}");
    JsonObject *ret = return_obj(reply);

    g_assert_cmpint(json_object_get_int_member(ret, "base-memory"), ==,
                    RAM_SIZE);
    /* No hotpluggable memory without maxmem, so no plugged-memory. */
    g_assert_false(json_object_has_member(ret, "plugged-memory"));
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_query_current_machine(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"query-current-machine\"}");
    JsonObject *ret = return_obj(reply);

    g_assert_cmpint(json_node_get_value_type(json_object_get_member(
        ret, "wakeup-suspend-support")), ==, G_TYPE_BOOLEAN);
    json_node_unref(reply);
    qtest_quit(s);
}

/* ---- QOM ------------------------------------------------------------- */

static void assert_child(JsonArray *list, const char *name)
{
    JsonObject *o = find_by(list, "name", name);

    if (!o) {
        g_error("qom-list lacks %s", name);
    }
    g_assert_true(g_str_has_prefix(json_object_get_string_member(o, "type"),
                                   "child<"));
}

static void test_qom_list(void)
{
    /*
     * QEMU makes /machine/peripheral and /machine/peripheral-anon when the
     * first -device with and without an id needs them.
     */
    QTestState *s = qtest_init(MACHINE " -device isa-debug-exit,id=dbg"
                               " -device pc-testdev");
    JsonNode *reply = qom_list(s, "/");
    JsonArray *list = return_array(reply);
    JsonObject *type;

    assert_child(list, "machine");
    type = find_by(list, "name", "type");
    g_assert_nonnull(type);
    g_assert_cmpstr(json_object_get_string_member(type, "type"), ==,
                    "string");
    json_node_unref(reply);

    reply = qom_list(s, "/machine");
    list = return_array(reply);
    assert_child(list, "peripheral");
    assert_child(list, "peripheral-anon");
    assert_child(list, "unattached");
    assert_child(list, "fw_cfg");
    assert_child(list, "i440fx");
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *o = json_array_get_object_element(list, i);

        g_assert_true(json_object_has_member(o, "name"));
        g_assert_true(json_object_has_member(o, "type"));
    }
    json_node_unref(reply);

    reply = qom_list(s, "/machine/peripheral");
    assert_child(return_array(reply), "dbg");
    json_node_unref(reply);
    reply = qom_list(s, "/machine/peripheral-anon");
    g_assert_cmpint(json_array_get_length(return_array(reply)), >=, 1);
    json_node_unref(reply);

    /* A partial path names the one object with that name. */
    reply = qom_list(s, "ioapic");
    g_assert_false(qtest_qmp_has_error(reply));
    return_array(reply);
    json_node_unref(reply);

    reply = qom_list(s, "/machine/no-such-thing");
    assert_error(reply, "DeviceNotFound",
                 "Device '/machine/no-such-thing' not found");
    json_node_unref(reply);
    qtest_quit(s);
}

/* The /machine/unattached/device[N] path of the first child of a type. */
static char *find_unattached(QTestState *s, const char *type)
{
    JsonNode *reply = qom_list(s, "/machine/unattached");
    JsonArray *list = return_array(reply);
    char *want = g_strdup_printf("child<%s>", type);
    char *path = NULL;

    for (guint i = 0; i < json_array_get_length(list) && !path; i++) {
        JsonObject *o = json_array_get_object_element(list, i);

        if (!strcmp(json_object_get_string_member(o, "type"), want)) {
            path = g_strdup_printf("/machine/unattached/%s",
                                   json_object_get_string_member(o, "name"));
        }
    }
    g_free(want);
    json_node_unref(reply);
    return path;
}

static void test_qom_get(void)
{
    QTestState *s = qtest_init(MACHINE
                               " -device isa-debug-exit,id=dbg,iobase=0xf4");
    JsonNode *reply;
    char *serial;

    reply = qom_list(s, "/machine/peripheral");
    assert_child(return_array(reply), "dbg");
    json_node_unref(reply);

    reply = qom_get(s, "/machine/peripheral/dbg", "iobase");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "return"), ==,
                    0xf4);
    json_node_unref(reply);
    reply = qom_get(s, "/machine/peripheral/dbg", "type");
    g_assert_cmpstr(json_object_get_string_member(obj_of(reply), "return"),
                    ==, "isa-debug-exit");
    json_node_unref(reply);
    /* Partial path. */
    reply = qom_get(s, "dbg", "iobase");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "return"), ==,
                    0xf4);
    json_node_unref(reply);

    /* The board's COM1 sits in /machine/unattached with its defaults. */
    serial = find_unattached(s, "isa-serial");
    g_assert_nonnull(serial);
    reply = qom_get(s, serial, "iobase");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "return"), ==,
                    0x3f8);
    json_node_unref(reply);
    reply = qom_get(s, serial, "irq");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "return"), ==,
                    4);
    json_node_unref(reply);
    g_free(serial);
    qtest_quit(s);
}

static void test_qom_errors(void)
{
    QTestState *s = qtest_init(MACHINE
                               " -device isa-debug-exit,id=dbg,iobase=0xf4");
    JsonNode *reply;

    reply = qom_get(s, "/machine/peripheral/nope", "iobase");
    assert_error(reply, "DeviceNotFound",
                 "Device '/machine/peripheral/nope' not found");
    json_node_unref(reply);

    reply = qom_get(s, "/machine/peripheral/dbg", "no-such-prop");
    assert_error(reply, "GenericError", NULL);
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qom-set\", \"arguments\": "
                      "{\"path\": \"/machine/peripheral/nope\", "
                      "\"property\": \"iobase\", \"value\": 1}}");
    assert_error(reply, "DeviceNotFound",
                 "Device '/machine/peripheral/nope' not found");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qom-set\", \"arguments\": "
                      "{\"path\": \"/machine/peripheral/dbg\", "
                      "\"property\": \"no-such-prop\", \"value\": 1}}");
    assert_error(reply, "GenericError", NULL);
    json_node_unref(reply);

    /* A realized device's properties are fixed. */
    reply = qtest_qmp(s, "{\"execute\": \"qom-set\", \"arguments\": "
                      "{\"path\": \"/machine/peripheral/dbg\", "
                      "\"property\": \"iobase\", \"value\": 1}}");
    assert_error(reply, "GenericError", NULL);
    json_node_unref(reply);
    reply = qom_get(s, "/machine/peripheral/dbg", "iobase");
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "return"), ==,
                    0xf4);
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qom-set\", \"arguments\": "
                      "{\"path\": \"/machine/peripheral/dbg\", "
                      "\"property\": \"iobase\"}}");
    assert_error(reply, "GenericError", "Parameter 'value' is missing");
    json_node_unref(reply);
    qtest_quit(s);
}

static void test_qom_list_types(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"qom-list-types\"}");
    JsonArray *list = return_array(reply);
    JsonObject *serial = find_by(list, "name", "isa-serial");

    g_assert_nonnull(serial);
    g_assert_nonnull(find_by(list, "name", "isa-debug-exit"));
    json_node_unref(reply);

    reply = qmp_ok(s, "{\"execute\": \"qom-list-types\", "
                   "\"arguments\": {\"implements\": \"isa-device\"}}");
    list = return_array(reply);
    g_assert_nonnull(find_by(list, "name", "isa-serial"));
    g_assert_null(find_by(list, "name", "ioapic"));
    json_node_unref(reply);
    qtest_quit(s);
}

/* ---- actions and events ---------------------------------------------- */

static void test_system_reset(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"system_reset\"}");
    JsonNode *event;
    JsonObject *data;
    bool running;

    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);
    event = qtest_qmp_eventwait_ref(s, "RESET");
    assert_timestamp(event);
    data = qdict_get_qdict(event, "data");
    g_assert_nonnull(data);
    g_assert_false(json_object_get_boolean_member(data, "guest"));
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    "host-qmp-system-reset");
    json_node_unref(event);
    /* A reset VM keeps running. */
    g_assert_cmpstr(status_of(s, &running), ==, "running");
    qtest_quit(s);
}

static void test_system_powerdown(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply = qmp_ok(s, "{\"execute\": \"system_powerdown\"}");
    JsonNode *event;

    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);
    event = qtest_qmp_eventwait_ref(s, "POWERDOWN");
    assert_timestamp(event);
    json_node_unref(event);
    /* Without a guest to act on it, the VM keeps running. */
    json_node_unref(qmp_ok(s, "{\"execute\": \"query-status\"}"));
    qtest_quit(s);
}

static void test_quit(void)
{
    char *dir = g_dir_make_tmp("qmp-test-XXXXXX", NULL);
    char *sock = g_build_filename(dir, "qmp2.sock", NULL);
    QTestState *s = qtest_initf(MACHINE " -qmp unix:%s,server=on,wait=off",
                                sock);
    JsonNode *reply;
    JsonNode *event;
    JsonObject *data;
    int status;

    g_assert_true(g_file_test(sock, G_FILE_TEST_EXISTS));
    reply = qmp_ok(s, "{\"execute\": \"quit\"}");
    g_assert_cmpint(json_object_get_size(return_obj(reply)), ==, 0);
    json_node_unref(reply);
    event = qtest_qmp_eventwait_ref(s, "SHUTDOWN");
    data = qdict_get_qdict(event, "data");
    g_assert_nonnull(data);
    g_assert_false(json_object_get_boolean_member(data, "guest"));
    g_assert_cmpstr(json_object_get_string_member(data, "reason"), ==,
                    "host-qmp-quit");
    json_node_unref(event);

    status = qtest_wait_exit(s);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    /* The server socket the emulator made is removed on exit. */
    g_assert_false(g_file_test(sock, G_FILE_TEST_EXISTS));
    qtest_quit(s);
    rmdir(dir);
    g_free(sock);
    g_free(dir);
}

/*
 * The device tree as QEMU nests it: pci.0 behind the host bridge, isa.0
 * behind the PIIX3 with the ISA devices on it, a virtio-serial bus
 * behind its device; and the buses as QOM children of those devices.
 */
static void test_qtree_buses(void)
{
    QTestState *s = qtest_init(MACHINE " -device isa-serial,id=s0 "
                               "-device virtio-serial-pci,id=vs "
                               "-chardev null,id=c0 "
                               "-device virtconsole,chardev=c0,id=con0");
    char *out = qtest_hmp(s, "info qtree");
    const char *vs;
    JsonNode *r;

    g_assert_nonnull(strstr(out, "bus: main-system-bus\r\n  type System\r\n"));
    g_assert_nonnull(strstr(out, "  dev: i440FX-pcihost, id \"\"\r\n"));
    g_assert_nonnull(strstr(out, "    bus: pci.0\r\n      type PCI\r\n"));
    g_assert_nonnull(strstr(out, "      dev: PIIX3, id \"\"\r\n"));
    g_assert_nonnull(strstr(out, "        bus: isa.0\r\n"
                            "          type ISA\r\n"));
    g_assert_nonnull(strstr(out, "          dev: isa-serial, id \"s0\"\r\n"));
    /* QEMU has a virtio-bus level between; the nesting is what counts. */
    vs = strstr(out, "bus: vs.0\r\n");
    g_assert_nonnull(vs);
    g_assert_true(g_str_has_prefix(strstr(vs, "type "),
                                   "type virtio-serial-bus\r\n"));
    g_assert_nonnull(strstr(vs, "dev: virtconsole, id \"con0\"\r\n"));
    g_assert_true(strstr(out, "dev: virtio-serial-pci, id \"vs\"") < vs);
    /* A device appears once, under its bus. */
    g_assert_null(strstr(strstr(out, "id \"s0\"") + 1, "id \"s0\""));
    g_free(out);

    r = qom_list(s, "/machine/i440fx");
    g_assert_nonnull(find_by(return_array(r), "name", "pci.0"));
    g_assert_cmpstr(json_object_get_string_member(
        find_by(return_array(r), "name", "pci.0"), "type"), ==,
        "child<PCI>");
    json_node_unref(r);
    r = qom_list(s, "/machine/peripheral/vs/virtio-backend");
    g_assert_nonnull(find_by(return_array(r), "name", "vs.0"));
    json_node_unref(r);
    qtest_quit(s);
}

/* ---- human-monitor-command ------------------------------------------- */

static void test_hmp(void)
{
    QTestState *s = qtest_init(MACHINE);
    char *out;

    out = qtest_hmp(s, "info status");
    g_assert_nonnull(strstr(out, "VM status: running"));
    g_free(out);

    out = qtest_hmp(s, "info version");
    g_assert_true(g_ascii_isdigit(out[0]));
    g_free(out);

    out = qtest_hmp(s, "info mtree");
    g_assert_nonnull(strstr(out, "ram-below-4g"));
    g_assert_nonnull(strstr(out, "00000000000003f8-00000000000003ff"));
    g_free(out);

    out = qtest_hmp(s, "info qtree");
    g_assert_nonnull(strstr(out, "isa-serial"));
    g_free(out);

    out = qtest_hmp(s, "info chardev");
    g_assert_nonnull(strstr(out, "char0"));
    g_free(out);

    /* An unknown HMP command is reported in the output, not as an error. */
    out = qtest_hmp(s, "no-such-hmp-command");
    g_assert_nonnull(strstr(out, "unknown command"));
    g_free(out);

    /* The argument is required and must be a string. */
    {
        JsonNode *reply = qtest_qmp(s, "{\"execute\": "
                                    "\"human-monitor-command\"}");

        assert_error(reply, "GenericError",
                     "Parameter 'command-line' is missing");
        json_node_unref(reply);
    }
    qtest_quit(s);
}

/* ---- malformed input ------------------------------------------------- */

static void test_errors_json(void)
{
    QTestState *s = qtest_init(MACHINE);

    check_bad_input(s, "{\"execute\": }", "GenericError", NULL);
    check_bad_input(s, "{\"execute\" \"query-status\"}", "GenericError",
                    NULL);
    check_bad_input(s, "@", "GenericError", NULL);
    check_bad_input(s, "[1, 2]", "GenericError",
                    "QMP input must be a JSON object");
    check_bad_input(s, "\"a string\"", "GenericError",
                    "QMP input must be a JSON object");
    check_bad_input(s, "{\"arguments\": {}}", "GenericError",
                    "QMP input lacks member 'execute'");
    check_bad_input(s, "{\"execute\": 42}", "GenericError", NULL);
    check_bad_input(s, "{\"execute\": \"query-status\", \"bogus\": 1}",
                    "GenericError",
                    "QMP input member 'bogus' is unexpected");
    qtest_quit(s);
}

/*
 * A lexical error inside a string gets one error naming the token as
 * QEMU's lexer has it (its raw 0xFF shown as U+FFFD), and the command
 * after it its own reply; QEMU's single-quoted strings work.
 */
static void test_errors_json_recovery(void)
{
    static const char bad[] = "{'bad \xff";
    QTestState *s = qtest_init(MACHINE);
    JsonNode *err;

    g_assert_cmpint(send_bad_then_sync(s, bad, strlen(bad), &err), ==, 1);
    assert_error(err, "GenericError",
                 "JSON parse error, stray ''bad \xef\xbf\xbd'");
    json_node_unref(err);
    g_assert_cmpint(send_bad_then_sync(s, "}", 1, &err), ==, 1);
    assert_error(err, "GenericError", "JSON parse error, expecting value");
    json_node_unref(err);
    err = qmp_ok(s, "{'execute': 'query-status', 'id': 'it\\'s \"q\"'}");
    g_assert_cmpstr(json_object_get_string_member(obj_of(err), "id"), ==,
                    "it's \"q\"");
    json_node_unref(err);
    qtest_quit(s);
}

static void test_errors_commands(void)
{
    QTestState *s = qtest_init(MACHINE);
    JsonNode *reply;

    reply = qtest_qmp(s, "{\"execute\": \"no-such-command\"}");
    assert_error(reply, "CommandNotFound",
                 "The command no-such-command has not been found");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qom-list\", "
                      "\"arguments\": {\"path\": 1}}");
    assert_error(reply, "GenericError",
                 "Invalid parameter type for 'path', expected: string");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"qom-list\"}");
    assert_error(reply, "GenericError", "Parameter 'path' is missing");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"query-status\", "
                      "\"arguments\": {\"foo\": 1}}");
    assert_error(reply, "GenericError", "Parameter 'foo' is unexpected");
    json_node_unref(reply);

    reply = qtest_qmp(s, "{\"execute\": \"query-status\", "
                      "\"arguments\": [1]}");
    assert_error(reply, "GenericError", NULL);
    json_node_unref(reply);

    json_node_unref(qmp_ok(s, "{\"execute\": \"query-status\"}"));
    qtest_quit(s);
}

static void test_errors_huge_string(void)
{
    QTestState *s = qtest_init(MACHINE);
    size_t n = 10 << 20;
    GString *msg = g_string_sized_new(n + 64);
    JsonNode *err;
    const char *desc;

    g_string_append(msg, "{\"execute\": \"");
    for (size_t i = 0; i < n; i++) {
        g_string_append_c(msg, 'a' + i % 26);
    }
    g_string_append(msg, "\"}");
    g_assert_cmpint(send_bad_then_sync(s, msg->str, msg->len, &err), ==, 1);
    assert_error(err, "CommandNotFound", NULL);
    desc = json_object_get_string_member(qdict_get_qdict(err, "error"),
                                         "desc");
    g_assert_true(g_str_has_prefix(desc, "The command abcdefghij"));
    json_node_unref(err);
    g_string_free(msg, TRUE);
    qtest_quit(s);
}

static void test_errors_deep_nesting(void)
{
    QTestState *s = qtest_init(MACHINE);
    GString *msg = g_string_new("{\"execute\": \"query-status\", "
                                "\"arguments\": {\"a\": ");
    JsonNode *err;
    int n;

    for (int i = 0; i < 2000; i++) {
        g_string_append_c(msg, '[');
    }
    for (int i = 0; i < 2000; i++) {
        g_string_append_c(msg, ']');
    }
    g_string_append(msg, "}}");
    n = send_bad_then_sync(s, msg->str, msg->len, &err);
    g_assert_cmpint(n, >=, 1);
    assert_error(err, "GenericError", "JSON nesting depth limit exceeded");
    json_node_unref(err);

    /* The same with objects. */
    g_string_assign(msg, "");
    for (int i = 0; i < 2000; i++) {
        g_string_append(msg, "{\"a\":");
    }
    g_string_append(msg, "1");
    for (int i = 0; i < 2000; i++) {
        g_string_append_c(msg, '}');
    }
    n = send_bad_then_sync(s, msg->str, msg->len, &err);
    g_assert_cmpint(n, >=, 1);
    assert_error(err, "GenericError", "JSON nesting depth limit exceeded");
    json_node_unref(err);
    g_string_free(msg, TRUE);
    qtest_quit(s);
}

static void test_split_message(void)
{
    QTestState *s = qtest_init(MACHINE);
    const char *cmd = "{\"execute\": \"query-status\", \"id\": 99}";
    JsonNode *reply;

    /* One byte at a time, and two messages in one write. */
    for (const char *p = cmd; *p; p++) {
        qtest_qmp_send_raw(s, p, 1);
    }
    reply = qtest_qmp_receive(s);
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "id"), ==, 99);
    json_node_unref(reply);

    cmd = "{\"execute\": \"query-name\", \"id\": 1}"
          "{\"execute\": \"query-kvm\", \"id\": 2}";
    qtest_qmp_send_raw(s, cmd, strlen(cmd));
    reply = qtest_qmp_receive(s);
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "id"), ==, 1);
    json_node_unref(reply);
    reply = qtest_qmp_receive(s);
    g_assert_cmpint(json_object_get_int_member(obj_of(reply), "id"), ==, 2);
    g_assert_true(json_object_has_member(return_obj(reply), "enabled"));
    json_node_unref(reply);
    qtest_quit(s);
}

/* ---- two monitors ---------------------------------------------------- */

static void test_two_monitors(void)
{
    char *dir = g_dir_make_tmp("qmp-test-XXXXXX", NULL);
    char *sock = g_build_filename(dir, "qmp2.sock", NULL);
    QTestState *s = qtest_initf(MACHINE " -qmp unix:%s,server=on,wait=off",
                                sock);
    RawQmp m = { .buf = g_string_new(NULL), .events = g_queue_new() };
    JsonNode *msg;
    bool running;

    m.fd = qtest_socket_connect(sock);
    g_assert_cmpint(m.fd, >=, 0);
    msg = raw_receive(&m);
    g_assert_nonnull(qdict_get_qdict(msg, "QMP"));
    json_node_unref(msg);
    msg = raw_cmd(&m, "{\"execute\": \"qmp_capabilities\"}");
    g_assert_nonnull(qdict_get_qdict(msg, "return"));
    json_node_unref(msg);

    /* A command on one monitor: both see its event. */
    json_node_unref(qmp_ok(s, "{\"execute\": \"stop\"}"));
    qtest_qmp_eventwait(s, "STOP");
    json_node_unref(raw_eventwait(&m, "STOP"));

    msg = raw_cmd(&m, "{\"execute\": \"query-status\", \"id\": \"m2\"}");
    g_assert_cmpstr(json_object_get_string_member(return_obj(msg), "status"),
                    ==, "paused");
    g_assert_cmpstr(json_object_get_string_member(obj_of(msg), "id"), ==,
                    "m2");
    json_node_unref(msg);

    msg = raw_cmd(&m, "{\"execute\": \"cont\"}");
    g_assert_nonnull(qdict_get_qdict(msg, "return"));
    json_node_unref(msg);
    json_node_unref(raw_eventwait(&m, "RESUME"));
    qtest_qmp_eventwait(s, "RESUME");
    g_assert_cmpstr(status_of(s, &running), ==, "running");

    /* Bad input on one monitor does not disturb the other. */
    g_assert_cmpint(send(m.fd, "}}}\n", 4, MSG_NOSIGNAL), ==, 4);
    json_node_unref(qmp_ok(s, "{\"execute\": \"query-status\"}"));

    /* The second client leaves; the first carries on. */
    close(m.fd);
    g_usleep(50000);
    json_node_unref(qmp_ok(s, "{\"execute\": \"query-status\"}"));

    /* And a new client can connect to the server socket again. */
    m.fd = qtest_socket_connect(sock);
    g_assert_cmpint(m.fd, >=, 0);
    g_string_truncate(m.buf, 0);
    msg = raw_receive(&m);
    g_assert_nonnull(qdict_get_qdict(msg, "QMP"));
    json_node_unref(msg);
    close(m.fd);

    qtest_quit(s);
    g_queue_free_full(m.events, (GDestroyNotify)json_node_unref);
    g_string_free(m.buf, TRUE);
    unlink(sock);
    rmdir(dir);
    g_free(sock);
    g_free(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("qmp/greeting", test_greeting);
    qtest_add_func("qmp/negotiation", test_negotiation);
    qtest_add_func("qmp/id-echo", test_id_echo);
    qtest_add_func("qmp/query-version", test_query_version);
    qtest_add_func("qmp/query-commands", test_query_commands);
    qtest_add_func("qmp/query-status", test_query_status_running);
    qtest_add_func("qmp/stop-cont", test_stop_cont);
    qtest_add_func("qmp/query-name", test_query_name);
    qtest_add_func("qmp/query-uuid", test_query_uuid);
    qtest_add_func("qmp/query-kvm", test_query_kvm);
    qtest_add_func("qmp/query-target", test_query_target);
    qtest_add_func("qmp/query-machines", test_query_machines);
    qtest_add_func("qmp/query-chardev", test_query_chardev);
    qtest_add_func("qmp/query-cpus-fast", test_query_cpus_fast);
    qtest_add_func("qmp/query-cpu-model-expansion",
                   test_query_cpu_model_expansion);
    qtest_add_func("qmp/query-memdev", test_query_memdev);
    qtest_add_func("qmp/query-memory-size-summary",
                   test_query_memory_size_summary);
    qtest_add_func("qmp/query-current-machine", test_query_current_machine);
    qtest_add_func("qmp/qom-list", test_qom_list);
    qtest_add_func("qmp/qom-get", test_qom_get);
    qtest_add_func("qmp/qom-errors", test_qom_errors);
    qtest_add_func("qmp/qom-list-types", test_qom_list_types);
    qtest_add_func("qmp/system-reset", test_system_reset);
    qtest_add_func("qmp/system-powerdown", test_system_powerdown);
    qtest_add_func("qmp/quit", test_quit);
    qtest_add_func("qmp/hmp", test_hmp);
    qtest_add_func("qmp/qtree-buses", test_qtree_buses);
    qtest_add_func("qmp/errors/json", test_errors_json);
    qtest_add_func("qmp/errors/json-recovery", test_errors_json_recovery);
    qtest_add_func("qmp/errors/commands", test_errors_commands);
    qtest_add_func("qmp/errors/huge-string", test_errors_huge_string);
    qtest_add_func("qmp/errors/deep-nesting", test_errors_deep_nesting);
    qtest_add_func("qmp/stream/split-message", test_split_message);
    qtest_add_func("qmp/two-monitors", test_two_monitors);

    return g_test_run();
}
