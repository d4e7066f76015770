/*
 * QMP, the JSON monitor: sessions (greeting, capabilities negotiation,
 * dispatch, replies), the command table, events, and the glue to a
 * chardev.
 *
 * A session reads a stream of JSON values (split by json-streamer.c,
 * parsed by json-glib). Each value is a request
 *     {"execute": NAME, "arguments": {...}, "id": ANY}
 * answered by {"return": VALUE, "id": ANY} or
 * {"error": {"class": CLASS, "desc": TEXT}, "id": ANY}, with the id
 * echoed verbatim when the request had one. Until "qmp_capabilities"
 * succeeds only that command runs. Error texts are QEMU 7.2's.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "config-host.h"
#include "monitor/json-streamer.h"
#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"

struct QmpSession {
    bool pretty;
    bool negotiated;        /* qmp_capabilities done: all commands, events */
    bool oob_enabled;
    JsonStreamer *streamer;
    QmpSessionWrite *write;
    void *opaque;
};

/* A QMP monitor on a chardev. */
typedef struct MonitorQMP {
    CharBackend be;
    QmpSession *session;
    MonitorFds *fds;            /* getfd's names, this monitor's own */
} MonitorQMP;

static GHashTable *qmp_commands;        /* name -> const QapiCommand * */
static const QapiCommand *command_table; /* qmp_register_commands() */
static GList *qmp_sessions;             /* every live session, for events */
static GList *qmp_monitors;             /* of MonitorQMP * */
static QmpSession *cur_session;         /* the one dispatching, if any */

/* ---- JSON output, QEMU's layout (qobject/json-writer.c) ---- */

static void json_append_quoted(GString *out, const char *str)
{
    const char *p = str;

    g_string_append_c(out, '"');
    while (*p) {
        gunichar c;
        size_t plain = 0;

        /* Printable ASCII other than '"' and '\\' goes out as it is. */
        while (p[plain] >= 0x20 && p[plain] < 0x7f && p[plain] != '"' &&
               p[plain] != '\\') {
            plain++;
        }
        if (plain) {
            g_string_append_len(out, p, plain);
            p += plain;
            continue;
        }
        c = g_utf8_get_char_validated(p, -1);

        if (c == (gunichar)-1 || c == (gunichar)-2) {
            /* Not UTF-8: say so in-band, as QEMU does. */
            c = 0xfffd;
            p++;
        } else {
            p = g_utf8_next_char(p);
        }
        switch (c) {
        case '"':
            g_string_append(out, "\\\"");
            break;
        case '\\':
            g_string_append(out, "\\\\");
            break;
        case '\b':
            g_string_append(out, "\\b");
            break;
        case '\f':
            g_string_append(out, "\\f");
            break;
        case '\n':
            g_string_append(out, "\\n");
            break;
        case '\r':
            g_string_append(out, "\\r");
            break;
        case '\t':
            g_string_append(out, "\\t");
            break;
        default:
            if (c >= 0x10000) {
                c -= 0x10000;
                g_string_append_printf(out, "\\u%04X\\u%04X",
                                       0xd800 | (c >> 10),
                                       0xdc00 | (c & 0x3ff));
            } else if (c < 0x20 || c >= 0x7f) {
                g_string_append_printf(out, "\\u%04X", c);
            } else {
                g_string_append_c(out, (char)c);
            }
            break;
        }
    }
    g_string_append_c(out, '"');
}

static void json_newline(GString *out, bool pretty, unsigned level)
{
    if (pretty) {
        g_string_append_printf(out, "\n%*s", level * 4, "");
    }
}

static void json_append_value(GString *out, JsonNode *node)
{
    char buf[G_ASCII_DTOSTR_BUF_SIZE];
    double d;

    switch (json_node_get_value_type(node)) {
    case G_TYPE_STRING:
        json_append_quoted(out, json_node_get_string(node));
        break;
    case G_TYPE_BOOLEAN:
        g_string_append(out, json_node_get_boolean(node) ? "true" : "false");
        break;
    case G_TYPE_DOUBLE:
        d = json_node_get_double(node);
        /* inf and nan have no JSON spelling. */
        if (!isfinite(d)) {
            g_string_append(out, "null");
        } else {
            g_string_append(out, g_ascii_formatd(buf, sizeof(buf),
                                                 "%.17g", d));
        }
        break;
    default:
        g_string_append_printf(out, "%" G_GINT64_FORMAT,
                               json_node_get_int(node));
        break;
    }
}

static void json_append_node(GString *out, JsonNode *node, bool pretty,
                             unsigned level)
{
    switch (JSON_NODE_TYPE(node)) {
    case JSON_NODE_OBJECT: {
        JsonObject *obj = json_node_get_object(node);
        GList *members = json_object_get_members(obj);

        g_string_append_c(out, '{');
        for (GList *l = members; l; l = l->next) {
            if (l != members) {
                g_string_append(out, pretty ? "," : ", ");
            }
            json_newline(out, pretty, level + 1);
            json_append_quoted(out, l->data);
            g_string_append(out, ": ");
            json_append_node(out, json_object_get_member(obj, l->data),
                             pretty, level + 1);
        }
        g_list_free(members);
        json_newline(out, pretty, level);
        g_string_append_c(out, '}');
        break;
    }
    case JSON_NODE_ARRAY: {
        JsonArray *arr = json_node_get_array(node);
        guint n = json_array_get_length(arr);

        g_string_append_c(out, '[');
        for (guint i = 0; i < n; i++) {
            if (i) {
                g_string_append(out, pretty ? "," : ", ");
            }
            json_newline(out, pretty, level + 1);
            json_append_node(out, json_array_get_element(arr, i), pretty,
                             level + 1);
        }
        json_newline(out, pretty, level);
        g_string_append_c(out, ']');
        break;
    }
    case JSON_NODE_VALUE:
        json_append_value(out, node);
        break;
    case JSON_NODE_NULL:
        g_string_append(out, "null");
        break;
    }
}

void qmp_json_append(GString *out, JsonNode *node, bool pretty)
{
    json_append_node(out, node, pretty, 0);
}

/* ---- the command table (generated from the qapi/ schema) ---- */

static void qmp_commands_init(void)
{
    if (qmp_commands) {
        return;
    }
    qmp_commands = g_hash_table_new(g_str_hash, g_str_equal);
    for (const QapiCommand *c = command_table; c && c->name; c++) {
        g_hash_table_insert(qmp_commands, (char *)c->name, (void *)c);
    }
}

void qmp_register_commands(const QapiCommand *table)
{
    command_table = table;
}

void qmp_command_foreach(void (*fn)(const char *name, void *opaque),
                         void *opaque)
{
    for (const QapiCommand *c = command_table; c && c->name; c++) {
        fn(c->name, opaque);
    }
}

static void qmp_commands_cleanup(void)
{
    if (qmp_commands) {
        g_hash_table_destroy(qmp_commands);
        qmp_commands = NULL;
    }
}

static const QapiCommand *qmp_find_command(const char *name)
{
    qmp_commands_init();
    return g_hash_table_lookup(qmp_commands, name);
}

/*
 * With QEMU_QMP_CHECK_RETURNS=1 (the tests set it), every reply is read
 * back against the schema's return type, and one that does not match
 * ends the process: a reply libvirt would misread is a bug to find in
 * the tests, not in the field.
 */
static void qmp_check_return(const QapiCommand *cmd, JsonNode *ret)
{
    static int enabled = -1;
    Error *err = NULL;

    if (enabled < 0) {
        const char *e = g_getenv("QEMU_QMP_CHECK_RETURNS");

        enabled = e && !strcmp(e, "1");
    }
    if (!enabled || !cmd->check_return || !ret ||
        cmd->check_return(ret, &err)) {
        return;
    }
    error_prepend(&err, "the reply of %s does not match the schema: ",
                  cmd->name);
    error_report_err(err);
    abort();
}

bool qmp_run_command(const char *name, JsonObject *args, JsonNode **ret,
                     Error **errp)
{
    const QapiCommand *cmd = qmp_find_command(name);
    JsonObject *empty = NULL;
    bool ok;

    *ret = NULL;
    if (!cmd) {
        error_set(errp, ERROR_CLASS_COMMAND_NOT_FOUND,
                  "The command %s has not been found", name);
        return false;
    }
    if (!args) {
        args = empty = json_object_new();
    }
    ok = cmd->fn(args, ret, errp);
    if (ok) {
        qmp_check_return(cmd, *ret);
    }
    if (empty) {
        json_object_unref(empty);
    }
    return ok;
}

/* ---- sessions ---- */

static const char *qmp_error_class_name(ErrorClass cls)
{
    switch (cls) {
    case ERROR_CLASS_COMMAND_NOT_FOUND:
        return "CommandNotFound";
    case ERROR_CLASS_DEVICE_NOT_ACTIVE:
        return "DeviceNotActive";
    case ERROR_CLASS_DEVICE_NOT_FOUND:
        return "DeviceNotFound";
    case ERROR_CLASS_KVM_MISSING_CAP:
        return "KVMMissingCap";
    case ERROR_CLASS_GENERIC_ERROR:
        break;
    }
    return "GenericError";
}

/* One message on the wire: every newline becomes CR LF, as QEMU sends. */
static void qmp_session_send(QmpSession *s, JsonObject *msg)
{
    JsonNode *node = json_node_init_object(json_node_alloc(), msg);
    GString *json = g_string_new(NULL);
    GString *wire = g_string_new(NULL);

    qmp_json_append(json, node, s->pretty);
    /* Only the pretty layout has newlines (strings escape theirs). */
    for (const char *p = json->str, *end = p + json->len, *nl; p < end;
         p = nl + 1) {
        nl = memchr(p, '\n', end - p);
        if (!nl) {
            g_string_append_len(wire, p, end - p);
            break;
        }
        g_string_append_len(wire, p, nl - p);
        g_string_append(wire, "\r\n");
    }
    g_string_append(wire, "\r\n");
    s->write(s->opaque, wire->str, wire->len);
    g_string_free(wire, TRUE);
    g_string_free(json, TRUE);
    json_node_unref(node);
}

static void qmp_session_greet(QmpSession *s)
{
    JsonObject *qemu = json_object_new();
    JsonObject *version = json_object_new();
    JsonObject *qmp = json_object_new();
    JsonObject *msg = json_object_new();
    JsonArray *caps = json_array_new();
    unsigned major = 0, minor = 0, micro = 0;

    sscanf(QEMU_VERSION, "%u.%u.%u", &major, &minor, &micro);
    json_object_set_int_member(qemu, "micro", micro);
    json_object_set_int_member(qemu, "minor", minor);
    json_object_set_int_member(qemu, "major", major);
    json_object_set_object_member(version, "qemu", qemu);
    json_object_set_string_member(version, "package", PACKAGE_STRING);
    json_object_set_object_member(qmp, "version", version);
    json_array_add_string_element(caps, "oob");
    json_object_set_array_member(qmp, "capabilities", caps);
    json_object_set_object_member(msg, "QMP", qmp);
    qmp_session_send(s, msg);
    json_object_unref(msg);
}

/*
 * qmp_capabilities, for the session dispatching it (outside a session,
 * as from HMP, there is nothing to negotiate).
 */
bool qmp_qmp_capabilities(const q_obj_qmp_capabilities_arg *args,
                          JsonNode **ret, Error **errp)
{
    QmpSession *s = cur_session;

    if (!s || s->negotiated) {
        error_set(errp, ERROR_CLASS_COMMAND_NOT_FOUND,
                  "Capabilities negotiation is already complete, command "
                  "ignored");
        return false;
    }
    s->negotiated = true;
    s->oob_enabled = false;
    for (const QMPCapabilityList *l = args->enable; l; l = l->next) {
        s->oob_enabled |= l->value == QMP_CAPABILITY_OOB;
    }
    return true;
}

static bool json_is_string(JsonNode *v)
{
    return JSON_NODE_HOLDS_VALUE(v) &&
           json_node_get_value_type(v) == G_TYPE_STRING;
}

/* QEMU's qmp_dispatch(): check the request's shape, then run it. */
static bool qmp_session_dispatch(QmpSession *s, JsonObject *req,
                                 JsonNode **ret, Error **errp)
{
    GList *members = json_object_get_members(req);
    const char *exec_key = NULL;
    const char *name = NULL;
    JsonObject *args = NULL;
    JsonObject *empty = NULL;
    const QapiCommand *cmd;
    bool ok = false;

    for (GList *l = members; l; l = l->next) {
        const char *key = l->data;
        JsonNode *v = json_object_get_member(req, key);

        if (!strcmp(key, "execute") ||
            (!strcmp(key, "exec-oob") && s->oob_enabled)) {
            if (!json_is_string(v)) {
                error_setg(errp, "QMP input member '%s' must be a string",
                           key);
                goto out;
            }
            if (exec_key) {
                error_setg(errp, "QMP input member '%s' clashes with '%s'",
                           key, exec_key);
                goto out;
            }
            exec_key = key;
            name = json_node_get_string(v);
        } else if (!strcmp(key, "arguments")) {
            if (!JSON_NODE_HOLDS_OBJECT(v)) {
                error_setg(errp,
                           "QMP input member 'arguments' must be an object");
                goto out;
            }
            args = json_node_get_object(v);
        } else if (strcmp(key, "id")) {
            error_setg(errp, "QMP input member '%s' is unexpected", key);
            goto out;
        }
    }
    if (!exec_key) {
        error_setg(errp, "QMP input lacks member 'execute'");
        goto out;
    }
    /* Before negotiation the only command that exists is this one. */
    if (!s->negotiated && strcmp(name, "qmp_capabilities")) {
        error_set(errp, ERROR_CLASS_COMMAND_NOT_FOUND,
                  "Expecting capabilities negotiation with "
                  "'qmp_capabilities'");
        goto out;
    }
    cmd = qmp_find_command(name);
    if (!cmd) {
        error_set(errp, ERROR_CLASS_COMMAND_NOT_FOUND,
                  "The command %s has not been found", name);
        goto out;
    }
    if (!args) {
        args = empty = json_object_new();
    }
    /* exec-oob runs like execute: every command here is quick. */
    cur_session = s;
    ok = cmd->fn(args, ret, errp);
    cur_session = NULL;
    if (ok) {
        qmp_check_return(cmd, *ret);
    }
out:
    if (empty) {
        json_object_unref(empty);
    }
    g_list_free(members);
    return ok;
}

/*
 * json-glib says "<data>:1:5: Parse error: unexpected ..."; keep what
 * follows "Parse error: " after QEMU's prefix.
 */
static void qmp_parse_error(Error **errp, const char *msg)
{
    const char *p = strstr(msg, "Parse error: ");

    error_setg(errp, "JSON parse error, %s", p ? p + 13 : msg);
}

/* A value (or an error) from the stream: one reply, always. */
static void qmp_session_handle(void *opaque, const char *json, size_t len,
                               const char *stream_error)
{
    QmpSession *s = opaque;
    JsonParser *parser = NULL;
    JsonNode *root = NULL;
    JsonNode *id = NULL;
    JsonNode *ret = NULL;
    JsonObject *reply = json_object_new();
    GError *gerr = NULL;
    Error *err = NULL;

    if (stream_error) {
        error_setg(&err, "%s", stream_error);
        goto reply;
    }
    parser = json_parser_new_immutable();
    if (!json_parser_load_from_data(parser, json, len, &gerr)) {
        qmp_parse_error(&err, gerr->message);
        g_error_free(gerr);
        goto reply;
    }
    root = json_parser_get_root(parser);
    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        error_setg(&err, "QMP input must be a JSON object");
        goto reply;
    }
    id = json_object_get_member(json_node_get_object(root), "id");
    qmp_session_dispatch(s, json_node_get_object(root), &ret, &err);

reply:
    if (err) {
        JsonObject *e = json_object_new();

        json_object_set_string_member(e, "class",
            qmp_error_class_name(error_get_class(err)));
        json_object_set_string_member(e, "desc", error_get_pretty(err));
        json_object_set_object_member(reply, "error", e);
        error_free(err);
        if (ret) {
            json_node_unref(ret);
        }
    } else if (ret) {
        json_object_set_member(reply, "return", ret);
    } else {
        json_object_set_object_member(reply, "return", json_object_new());
    }
    if (id) {
        json_object_set_member(reply, "id", json_node_copy(id));
    }
    qmp_session_send(s, reply);
    json_object_unref(reply);
    if (parser) {
        g_object_unref(parser);
    }
}

QmpSession *qmp_session_new(bool pretty, QmpSessionWrite *write,
                            void *opaque)
{
    QmpSession *s = g_new0(QmpSession, 1);

    s->pretty = pretty;
    s->write = write;
    s->opaque = opaque;
    s->streamer = json_streamer_new(qmp_session_handle, s);
    qmp_sessions = g_list_append(qmp_sessions, s);
    /* Events have somewhere to go now. */
    qapi_event_set_emitter(qmp_event_send);
    return s;
}

void qmp_session_free(QmpSession *s)
{
    if (s) {
        qmp_sessions = g_list_remove(qmp_sessions, s);
        json_streamer_free(s->streamer);
        g_free(s);
    }
}

void qmp_session_close(QmpSession *s)
{
    json_streamer_reset(s->streamer);
    s->negotiated = false;
    s->oob_enabled = false;
}

void qmp_session_open(QmpSession *s)
{
    qmp_session_close(s);
    qmp_session_greet(s);
}

void qmp_session_feed(QmpSession *s, const void *buf, size_t len)
{
    json_streamer_feed(s->streamer, buf, len);
}

void qmp_event_send(const char *name, JsonObject *data)
{
    JsonObject *msg = json_object_new();
    JsonObject *ts = json_object_new();
    gint64 now = g_get_real_time();

    json_object_set_int_member(ts, "seconds", now / G_USEC_PER_SEC);
    json_object_set_int_member(ts, "microseconds", now % G_USEC_PER_SEC);
    json_object_set_object_member(msg, "timestamp", ts);
    json_object_set_string_member(msg, "event", name);
    if (data) {
        json_object_set_object_member(msg, "data", data);
    }
    for (GList *l = qmp_sessions; l; l = l->next) {
        QmpSession *s = l->data;

        if (s->negotiated) {
            qmp_session_send(s, msg);
        }
    }
    json_object_unref(msg);
}

/* ---- on a chardev ---- */

static void monitor_qmp_write(void *opaque, const char *buf, size_t len)
{
    MonitorQMP *mon = opaque;

    qemu_chr_fe_write(&mon->be, (const uint8_t *)buf, (int)len);
}

static int monitor_qmp_can_read(void *opaque)
{
    /* The streamer copies what it needs: any amount is fine. */
    return 4096;
}

static void monitor_qmp_read(void *opaque, const uint8_t *buf, int size)
{
    MonitorQMP *mon = opaque;

    /* getfd takes the descriptors that came with these bytes. */
    monitor_fd_set_source(&mon->be, mon->fds);
    qmp_session_feed(mon->session, buf, size);
    monitor_fd_set_source(NULL, NULL);
}

static void monitor_qmp_event(void *opaque, ChrEvent event)
{
    MonitorQMP *mon = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        qmp_session_open(mon->session);
        break;
    case CHR_EVENT_CLOSED:
        qmp_session_close(mon->session);
        break;
    default:
        break;
    }
}

bool monitor_init_qmp(Chardev *chr, bool pretty, Error **errp)
{
    MonitorQMP *mon = g_new0(MonitorQMP, 1);

    if (!qemu_chr_fe_init(&mon->be, chr, errp)) {
        g_free(mon);
        return false;
    }
    mon->session = qmp_session_new(pretty, monitor_qmp_write, mon);
    mon->fds = monitor_fds_new();
    qmp_monitors = g_list_append(qmp_monitors, mon);
    /* The chardev sends CHR_EVENT_OPENED when a client is there. */
    /* Replies must arrive whole; 16 MiB bounds a client that never reads. */
    qemu_chr_fe_set_output_limit(&mon->be, 16 << 20);
    qemu_chr_fe_set_handlers(&mon->be, monitor_qmp_can_read,
                             monitor_qmp_read, monitor_qmp_event, mon);
    return true;
}

void monitor_cleanup(void)
{
    for (GList *l = qmp_monitors; l; l = l->next) {
        MonitorQMP *mon = l->data;

        qemu_chr_fe_deinit(&mon->be);
        qmp_session_free(mon->session);
        monitor_fds_free(mon->fds);
        g_free(mon);
    }
    g_list_free(qmp_monitors);
    qmp_monitors = NULL;
    hmp_cleanup();
    qmp_commands_cleanup();
}
