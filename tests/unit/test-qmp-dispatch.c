/*
 * QMP sessions without sockets: bytes in, replies collected in a
 * GString. Covers the greeting, negotiation, every request-shape and
 * argument error with QEMU's wording, id echo, events, the commands of
 * qmp-cmds.c, human-monitor-command and the chardev glue.
 *
 * Built from the monitor/ sources and util/error.c only; what those need from
 * other subsystems is stubbed at the end of this file.
 */
#include <string.h>

#include "chardev/char.h"
#include "hw/boards.h"
#include "hw/qdev.h"
#include "monitor/monitor.h"
#include "qapi/qapi-visit.h"
#include "qom/object.h"
#include "system/kvm.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "system/system.h"

#include "stub-monitor.h"

#define GREETING \
    "{\"QMP\": {\"version\": {\"qemu\": {\"micro\": 0, \"minor\": 2, " \
    "\"major\": 7}, \"package\": \"qemu-lean 0.1.0\"}, " \
    "\"capabilities\": [\"oob\"]}}\r\n"
#define RETURN_EMPTY "{\"return\": {}}\r\n"

typedef struct Client {
    QmpSession *session;
    GString *out;
} Client;

static void client_write(void *opaque, const char *buf, size_t len)
{
    Client *c = opaque;

    g_string_append_len(c->out, buf, len);
}

static Client *client_new(bool pretty)
{
    Client *c = g_new0(Client, 1);

    c->out = g_string_new(NULL);
    c->session = qmp_session_new(pretty, client_write, c);
    qmp_session_open(c->session);
    return c;
}

static void client_free(Client *c)
{
    qmp_session_free(c->session);
    g_string_free(c->out, TRUE);
    g_free(c);
}

/* Send text; return (and forget) everything written since last time. */
static char *client_send(Client *c, const char *text)
{
    char *out;

    qmp_session_feed(c->session, text, strlen(text));
    out = g_strdup(c->out->str);
    g_string_truncate(c->out, 0);
    return out;
}

static void check(Client *c, const char *request, const char *reply)
{
    char *got = client_send(c, request);

    g_assert_cmpstr(got, ==, reply);
    g_free(got);
}

static Client *client_negotiated(void)
{
    Client *c = client_new(false);

    g_string_truncate(c->out, 0);
    check(c, "{\"execute\": \"qmp_capabilities\"}", RETURN_EMPTY);
    return c;
}

static void test_greeting(void)
{
    Client *c = client_new(false);

    g_assert_cmpstr(c->out->str, ==, GREETING);
    client_free(c);
}

static void test_negotiation(void)
{
    Client *c = client_new(false);

    g_string_truncate(c->out, 0);
    check(c, "{\"execute\": \"query-status\", \"id\": 1}",
          "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
          "\"Expecting capabilities negotiation with 'qmp_capabilities'\"}, "
          "\"id\": 1}\r\n");
    /* Even unknown commands get that answer before negotiation. */
    check(c, "{\"execute\": \"no-such-thing\"}",
          "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
          "\"Expecting capabilities negotiation with 'qmp_capabilities'\"}}"
          "\r\n");
    /* Shape errors are reported as such. */
    check(c, "{\"id\": 2}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"QMP input lacks member 'execute'\"}, \"id\": 2}\r\n");
    check(c, "{\"execute\": \"qmp_capabilities\", \"arguments\": "
          "{\"enable\": [\"x\"]}}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"Parameter 'null' does not accept value 'x'\"}}\r\n");
    check(c, "{\"execute\": \"qmp_capabilities\", \"arguments\": "
          "{\"enable\": \"oob\"}}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"Invalid parameter type for 'enable', expected: array\"}}\r\n");
    check(c, "{\"execute\": \"qmp_capabilities\", \"arguments\": "
          "{\"enable\": [1]}}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"Invalid parameter type for 'enable[0]', expected: string\"}}"
          "\r\n");
    check(c, "{\"execute\": \"qmp_capabilities\", \"arguments\": "
          "{\"enable\": [\"oob\"]}, \"id\": \"neg\"}",
          "{\"return\": {}, \"id\": \"neg\"}\r\n");
    check(c, "{\"execute\": \"qmp_capabilities\"}",
          "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
          "\"Capabilities negotiation is already complete, command "
          "ignored\"}}\r\n");
    /* With oob on, exec-oob runs commands too. */
    check(c, "{\"exec-oob\": \"query-target\"}",
          "{\"return\": {\"arch\": \"x86_64\"}}\r\n");
    check(c, "{\"exec-oob\": \"query-target\", \"execute\": \"stop\"}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"QMP input member 'execute' clashes with 'exec-oob'\"}}\r\n");
    client_free(c);
}

static void test_id_echo(void)
{
    static const char *const ids[] = {
        "1", "-7", "\"libvirt-12\"", "[1, {\"a\": null}]",
        "{\"x\": {\"y\": []}}", "null", "true", "1.5", "\"\\u00e9\\n\"",
    };
    static const char *const echoed[] = {
        "1", "-7", "\"libvirt-12\"", "[1, {\"a\": null}]",
        "{\"x\": {\"y\": []}}", "null", "true", "1.5", "\"\\u00E9\\n\"",
    };
    Client *c = client_negotiated();

    for (size_t i = 0; i < G_N_ELEMENTS(ids); i++) {
        char *req = g_strdup_printf(
            "{\"execute\": \"query-target\", \"id\": %s}", ids[i]);
        char *want = g_strdup_printf(
            "{\"return\": {\"arch\": \"x86_64\"}, \"id\": %s}\r\n",
            echoed[i]);

        check(c, req, want);
        g_free(req);
        g_free(want);
    }
    /* ...also on errors */
    check(c, "{\"execute\": \"nope\", \"id\": [\"a\"]}",
          "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
          "\"The command nope has not been found\"}, \"id\": [\"a\"]}\r\n");
    client_free(c);
}

static void check_error(Client *c, const char *request, const char *desc)
{
    char *want = g_strdup_printf("{\"error\": {\"class\": \"GenericError\", "
                                 "\"desc\": \"%s\"}}\r\n", desc);

    check(c, request, want);
    g_free(want);
}

static void test_input_errors(void)
{
    Client *c = client_negotiated();
    char *got;

    check_error(c, "[1, 2]", "QMP input must be a JSON object");
    check_error(c, "\"execute\"", "QMP input must be a JSON object");
    check_error(c, "42 ", "QMP input must be a JSON object");
    check_error(c, "{}", "QMP input lacks member 'execute'");
    check_error(c, "{\"execute\": 1}",
                "QMP input member 'execute' must be a string");
    check_error(c, "{\"execute\": \"query-status\", \"arguments\": []}",
                "QMP input member 'arguments' must be an object");
    check_error(c, "{\"execute\": \"query-status\", \"foo\": 1}",
                "QMP input member 'foo' is unexpected");
    /* oob was not enabled here */
    check_error(c, "{\"exec-oob\": \"query-status\"}",
                "QMP input member 'exec-oob' is unexpected");
    check(c, "{\"execute\": \"foo\"}",
          "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
          "\"The command foo has not been found\"}}\r\n");
    got = client_send(c, "{\"execute\": }");
    g_assert_true(g_str_has_prefix(got, "{\"error\": {\"class\": "
                                   "\"GenericError\", \"desc\": "
                                   "\"JSON parse error, "));
    g_free(got);
    check_error(c, "}", "JSON parse error, expecting value");
    check_error(c, "@@@\n", "JSON parse error, stray '@'");
    /* QEMU's words and bytes: the raw 0xFF goes out as U+FFFD. */
    check_error(c, "\xff", "JSON parse error, stray '\\uFFFD'");
    /* and the session is still fine */
    check(c, "{\"execute\": \"query-target\"}",
          "{\"return\": {\"arch\": \"x86_64\"}}\r\n");
    client_free(c);
}

static void test_argument_errors(void)
{
    Client *c = client_negotiated();

    check_error(c, "{\"execute\": \"qom-list\"}",
                "Parameter 'path' is missing");
    check_error(c, "{\"execute\": \"qom-list\", \"arguments\": {}}",
                "Parameter 'path' is missing");
    check_error(c, "{\"execute\": \"qom-list\", \"arguments\": "
                "{\"path\": 1}}",
                "Invalid parameter type for 'path', expected: string");
    check_error(c, "{\"execute\": \"qom-list\", \"arguments\": "
                "{\"path\": null}}",
                "Invalid parameter type for 'path', expected: string");
    check_error(c, "{\"execute\": \"qom-list\", \"arguments\": "
                "{\"path\": \"/machine\", \"foo\": 1}}",
                "Parameter 'foo' is unexpected");
    check_error(c, "{\"execute\": \"query-status\", \"arguments\": "
                "{\"x\": 1}}", "Parameter 'x' is unexpected");
    check_error(c, "{\"execute\": \"qom-list-types\", \"arguments\": "
                "{\"abstract\": 1}}",
                "Invalid parameter type for 'abstract', expected: boolean");
    check_error(c, "{\"execute\": \"human-monitor-command\", \"arguments\": "
                "{\"command-line\": \"info status\", \"cpu-index\": \"0\"}}",
                "Invalid parameter type for 'cpu-index', expected: integer");
    client_free(c);
}

/* Input split anywhere still gives one reply per request. */
static void test_byte_by_byte(void)
{
    const char *req = "{\"execute\": \"query-name\", \"id\": \"a}b\"}\n"
                      "{\"execute\": \"query-target\"}";
    Client *c = client_negotiated();

    for (const char *p = req; *p; p++) {
        qmp_session_feed(c->session, p, 1);
    }
    g_assert_cmpstr(c->out->str, ==,
                    "{\"return\": {}, \"id\": \"a}b\"}\r\n"
                    "{\"return\": {\"arch\": \"x86_64\"}}\r\n");
    client_free(c);
}

static void test_pretty(void)
{
    Client *c = client_new(true);

    g_assert_true(g_str_has_prefix(c->out->str,
                                   "{\r\n    \"QMP\": {\r\n        "
                                   "\"version\": {\r\n"));
    g_string_truncate(c->out, 0);
    check(c, "{\"execute\": \"qmp_capabilities\"}",
          "{\r\n    \"return\": {\r\n    }\r\n}\r\n");
    check(c, "{\"execute\": \"query-cpus-fast\", \"id\": [1, 2]}",
          "{\r\n    \"return\": [\r\n    ],\r\n    \"id\": [\r\n"
          "        1,\r\n        2\r\n    ]\r\n}\r\n");
    client_free(c);
}

static void test_events(void)
{
    Client *early = client_new(false);
    Client *a = client_negotiated();
    Client *b = client_negotiated();
    JsonObject *data = json_object_new();
    char *got;

    g_string_truncate(early->out, 0);
    json_object_set_boolean_member(data, "guest", false);
    qmp_event_send("SHUTDOWN", data);
    g_assert_cmpstr(early->out->str, ==, "");
    for (int i = 0; i < 2; i++) {
        got = client_send(i ? b : a, "");
        g_assert_true(g_str_has_prefix(got, "{\"timestamp\": {\"seconds\": "));
        g_assert_true(strstr(got, "\"microseconds\": "));
        g_assert_true(g_str_has_suffix(got, "}, \"event\": \"SHUTDOWN\", "
                                       "\"data\": {\"guest\": false}}\r\n"));
        g_free(got);
    }
    /* stop: the STOP event comes before the reply, as in QEMU */
    stub_runstate = RUN_STATE_RUNNING;
    got = client_send(a, "{\"execute\": \"stop\"}");
    g_assert_true(strstr(got, "\"event\": \"STOP\"}\r\n" RETURN_EMPTY));
    g_free(got);
    g_assert_cmpint(stub_runstate, ==, RUN_STATE_PAUSED);
    got = client_send(b, "");
    g_assert_true(g_str_has_suffix(got, "\"event\": \"STOP\"}\r\n"));
    g_free(got);
    client_free(early);
    client_free(a);
    client_free(b);
}

static void test_commands(void)
{
    Client *c = client_negotiated();
    char *got;

    stub_runstate = RUN_STATE_RUNNING;
    check(c, "{\"execute\": \"query-status\"}",
          "{\"return\": {\"status\": \"running\", \"singlestep\": false, "
          "\"running\": true}}\r\n");
    check(c, "{\"execute\": \"query-version\"}",
          "{\"return\": {\"qemu\": {\"micro\": 0, \"minor\": 2, "
          "\"major\": 7}, \"package\": \"qemu-lean 0.1.0\"}}\r\n");
    qemu_name = NULL;
    check(c, "{\"execute\": \"query-name\"}", RETURN_EMPTY);
    qemu_name = "vm1";
    check(c, "{\"execute\": \"query-name\"}",
          "{\"return\": {\"name\": \"vm1\"}}\r\n");
    qemu_name = NULL;
    check(c, "{\"execute\": \"query-uuid\"}",
          "{\"return\": {\"UUID\": "
          "\"00000000-0000-0000-0000-000000000000\"}}\r\n");
    check(c, "{\"execute\": \"query-memory-size-summary\"}",
          "{\"return\": {\"base-memory\": 134217728}}\r\n");
    check(c, "{\"execute\": \"query-current-machine\"}",
          "{\"return\": {\"wakeup-suspend-support\": false}}\r\n");
    check(c, "{\"execute\": \"query-memdev\"}", "{\"return\": []}\r\n");
    check(c, "{\"execute\": \"query-chardev\"}",
          "{\"return\": [{\"label\": \"serial0\", \"filename\": \"null\", "
          "\"frontend-open\": true}]}\r\n");
    check(c, "{\"execute\": \"query-machines\"}",
          "{\"return\": [{\"name\": \"pc-i440fx-7.2\", \"alias\": \"pc\", "
          "\"is-default\": true, \"cpu-max\": 255, "
          "\"hotpluggable-cpus\": false, \"numa-mem-supported\": false, "
          "\"deprecated\": false, \"default-cpu-type\": "
          "\"qemu64-x86_64-cpu\", \"default-ram-id\": \"pc.ram\", "
          "\"acpi\": false}, {\"name\": \"none\", \"cpu-max\": 1, "
          "\"hotpluggable-cpus\": false, \"numa-mem-supported\": false, "
          "\"deprecated\": false, \"default-cpu-type\": "
          "\"qemu64-x86_64-cpu\", \"default-ram-id\": \"ram\", "
          "\"acpi\": false}]}\r\n");
    got = client_send(c, "{\"execute\": \"query-commands\"}");
    g_assert_true(strstr(got, "{\"name\": \"qmp_capabilities\"}"));
    g_assert_true(strstr(got, "{\"name\": \"human-monitor-command\"}"));
    g_assert_true(strstr(got, "{\"name\": \"qom-list-types\"}"));
    g_free(got);

    /* qom */
    check(c, "{\"execute\": \"qom-list\", \"arguments\": "
          "{\"path\": \"/machine\"}}",
          "{\"return\": [{\"name\": \"type\", \"type\": \"string\"}]}\r\n");
    check(c, "{\"execute\": \"qom-list\", \"arguments\": "
          "{\"path\": \"/nowhere\"}}",
          "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": "
          "\"Device '/nowhere' not found\"}}\r\n");
    check_error(c, "{\"execute\": \"qom-list\", \"arguments\": "
                "{\"path\": \"ambig\"}}", "Path 'ambig' is ambiguous");
    check(c, "{\"execute\": \"qom-get\", \"arguments\": "
          "{\"path\": \"/machine\", \"property\": \"type\"}}",
          "{\"return\": \"pc-i440fx-7.2-machine\"}\r\n");
    check_error(c, "{\"execute\": \"qom-get\", \"arguments\": "
                "{\"path\": \"/machine\", \"property\": \"nope\"}}",
                "Property 'nope' not found");
    check(c, "{\"execute\": \"qom-set\", \"arguments\": "
          "{\"path\": \"/machine\", \"property\": \"type\", "
          "\"value\": [1, \"x\"]}}", RETURN_EMPTY);
    g_assert_cmpstr(stub_set_value, ==, "type=[1, \"x\"]");
    check(c, "{\"execute\": \"qom-set\", \"arguments\": "
          "{\"path\": \"/machine\", \"property\": \"type\"}}",
          "{\"error\": {\"class\": \"GenericError\", \"desc\": "
          "\"Parameter 'value' is missing\"}}\r\n");
    check(c, "{\"execute\": \"qom-list-types\"}",
          "{\"return\": [{\"name\": \"isa-serial\", \"parent\": "
          "\"isa-device\"}, {\"name\": \"container\"}]}\r\n");
    check(c, "{\"execute\": \"qom-list-types\", \"arguments\": "
          "{\"implements\": \"device\", \"abstract\": true}}",
          "{\"return\": [{\"name\": \"device\", \"abstract\": true}, "
          "{\"name\": \"isa-device\", \"abstract\": true, \"parent\": "
          "\"device\"}, {\"name\": \"isa-serial\", \"parent\": "
          "\"isa-device\"}]}\r\n");

    check(c, "{\"execute\": \"device-list-properties\", \"arguments\": "
          "{\"typename\": \"isa-serial\"}}",
          "{\"return\": [{\"name\": \"chardev\", \"type\": \"str\"}, "
          "{\"name\": \"index\", \"type\": \"uint32\", "
          "\"default-value\": 0}]}\r\n");
    check(c, "{\"execute\": \"device-list-properties\", \"arguments\": "
          "{\"typename\": \"virtio-blk-pci\"}}",
          "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": "
          "\"Device 'virtio-blk-pci' not found\"}}\r\n");
    check_error(c, "{\"execute\": \"device-list-properties\", \"arguments\": "
                "{\"typename\": \"isa-device\"}}",
                "Parameter 'typename' expects a non-abstract device type");
    check_error(c, "{\"execute\": \"device-list-properties\", \"arguments\": "
                "{\"typename\": \"container\"}}",
                "Parameter 'typename' expects a non-abstract device type");
    check(c, "{\"execute\": \"qom-list-properties\", \"arguments\": "
          "{\"typename\": \"container\"}}",
          "{\"return\": [{\"name\": \"type\", \"type\": \"string\"}]}\r\n");
    check(c, "{\"execute\": \"qom-list-properties\", \"arguments\": "
          "{\"typename\": \"nope\"}}",
          "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": "
          "\"Class 'nope' not found\"}}\r\n");

    /* migration's commands: tests/functional/test-migration.c */
    check(c, "{\"execute\": \"query-block\"}", "{\"return\": []}\r\n");
    /* object-add: ObjectOptions, a union on qom-type */
    check(c, "{\"execute\": \"object-add\", \"arguments\": {\"qom-type\": "
          "\"secret\", \"id\": \"k0\", \"data\": \"x\"}}", RETURN_EMPTY);
    check_error(c, "{\"execute\": \"object-add\", \"arguments\": "
                "{\"qom-type\": \"secret\", \"id\": \"k1\", \"size\": 1}}",
                "Parameter 'size' is unexpected");
    check_error(c, "{\"execute\": \"object-add\", \"arguments\": "
                "{\"qom-type\": \"iothread\", \"id\": \"i\"}}",
                "Parameter 'qom-type' does not accept value 'iothread'");
    check_error(c, "{\"execute\": \"object-add\", \"arguments\": "
                "{\"qom-type\": \"memory-backend-ram\", \"id\": \"m\"}}",
                "Parameter 'size' is missing");
    check_error(c, "{\"execute\": \"object-add\", \"arguments\": "
                "{\"qom-type\": \"memory-backend-ram\", \"id\": \"m\", "
                "\"size\": 4096}}", "no memory here");
    check(c, "{\"execute\": \"object-del\", \"arguments\": {\"id\": \"k0\"}}",
          RETURN_EMPTY);
    check_error(c, "{\"execute\": \"device_add\", \"arguments\": "
                "{\"driver\": \"isa-serial\", \"id\": \"s9\", \"index\": 3}}",
                "Bus 'isa.0' does not support hotplugging");
    check_error(c, "{\"execute\": \"device_add\", \"arguments\": "
                "{\"driver\": \"virtio-blk-pci\"}}",
                "'virtio-blk-pci' is not a valid device model name");
    check_error(c, "{\"execute\": \"device_add\", \"arguments\": "
                "{\"driver\": \"isa-device\"}}",
                "Parameter 'driver' expects a non-abstract device type");
    check(c, "{\"execute\": \"device_del\", \"arguments\": {\"id\": \"x\"}}",
          "{\"error\": {\"class\": \"DeviceNotFound\", \"desc\": "
          "\"Device 'x' not found\"}}\r\n");
    check_error(c, "{\"execute\": \"object-del\", \"arguments\": "
                "{\"id\": \"k9\"}}", "object 'k9' not found");
    check(c, "{\"execute\": \"query-command-line-options\", \"arguments\": "
          "{\"option\": \"sandbox\"}}",
          "{\"return\": [{\"parameters\": [{\"name\": \"enable\", "
          "\"type\": \"boolean\"}, {\"name\": \"spawn\", \"type\": "
          "\"string\"}], \"option\": \"sandbox\"}]}\r\n");
    check_error(c, "{\"execute\": \"query-command-line-options\", "
                "\"arguments\": {\"option\": \"m\"}}",
                "invalid option name: m");

    /* run state */
    stub_runstate = RUN_STATE_INTERNAL_ERROR;
    check_error(c, "{\"execute\": \"cont\"}",
                "Resetting the Virtual Machine is required");
    stub_runstate = RUN_STATE_PAUSED;
    got = client_send(c, "{\"execute\": \"cont\"}");
    g_assert_true(g_str_has_suffix(got, "\"event\": \"RESUME\"}\r\n"
                                   RETURN_EMPTY));
    g_free(got);
    g_assert_cmpint(stub_runstate, ==, RUN_STATE_RUNNING);
    check(c, "{\"execute\": \"system_reset\"}", RETURN_EMPTY);
    g_assert_cmpint(stub_reset, ==, SHUTDOWN_CAUSE_HOST_QMP_SYSTEM_RESET);
    check(c, "{\"execute\": \"system_powerdown\"}", RETURN_EMPTY);
    g_assert_cmpint(stub_powerdowns, ==, 1);
    check(c, "{\"execute\": \"quit\", \"id\": 9}",
          "{\"return\": {}, \"id\": 9}\r\n");
    g_assert_cmpint(stub_shutdown, ==, SHUTDOWN_CAUSE_HOST_QMP_QUIT);
    client_free(c);
}

static void check_hmp(Client *c, const char *cmdline, const char *output)
{
    char *req = g_strdup_printf("{\"execute\": \"human-monitor-command\", "
                                "\"arguments\": {\"command-line\": \"%s\"}}",
                                cmdline);
    char *want = g_strdup_printf("{\"return\": \"%s\"}\r\n", output);

    check(c, req, want);
    g_free(req);
    g_free(want);
}

static void test_human_monitor_command(void)
{
    Client *c = client_negotiated();
    char *got;

    stub_runstate = RUN_STATE_RUNNING;
    check_hmp(c, "info status", "VM status: running\\r\\n");
    stub_runstate = RUN_STATE_PAUSED;
    check_hmp(c, "info status", "VM status: paused\\r\\n");
    stub_runstate = RUN_STATE_INTERNAL_ERROR;
    check_hmp(c, "  info   status ",
              "VM status: paused (internal-error)\\r\\n");
    stub_runstate = RUN_STATE_PRELAUNCH;
    check_hmp(c, "info status", "VM status: paused (prelaunch)\\r\\n");
    check_hmp(c, "info version", "7.2.0 (qemu-lean 0.1.0)\\r\\n");
    check_hmp(c, "info chardev", "serial0: filename=null\\r\\n");
    check_hmp(c, "info mtree", "address-space: memory\\r\\n");
    check_hmp(c, "info qtree", "bus: main-system-bus\\r\\n  type System"
              "\\r\\n  dev: isa-serial, id \\\"ser0\\\"\\r\\n");
    check_hmp(c, "foo", "unknown command: 'foo'\\r\\n");
    check_hmp(c, "info foo", "unknown command: 'info foo'\\r\\n");
    check_hmp(c, "", "");
    stub_runstate = RUN_STATE_INTERNAL_ERROR;
    check_hmp(c, "c",
              "Error: Resetting the Virtual Machine is required\\r\\n");
    got = client_send(c, "{\"execute\": \"human-monitor-command\", "
                      "\"arguments\": {\"command-line\": \"help\"}}");
    g_assert_true(strstr(got, "cont|c  -- resume emulation\\r\\n"));
    g_assert_true(strstr(got, "info [subcommand] -- show various"));
    g_free(got);
    got = client_send(c, "{\"execute\": \"human-monitor-command\", "
                      "\"arguments\": {\"command-line\": \"info\"}}");
    g_assert_true(strstr(got, "info status  -- show the current VM status"));
    g_free(got);
    client_free(c);
}

/*
 * Every command of the schema, driven by its own query-qmp-schema
 * entry: it exists, and its arguments are checked as QEMU checks them
 * (a missing one, an extra one, each one of the wrong JSON type).
 */
typedef struct SchemaTest {
    Client *c;
    GHashTable *types;          /* introspection name -> entry */
} SchemaTest;

static JsonObject *schema_type(SchemaTest *t, const char *name)
{
    JsonObject *e = g_hash_table_lookup(t->types, name);

    g_assert_nonnull(e);
    return e;
}

static const char *meta_type(JsonObject *e)
{
    return json_object_get_string_member(e, "meta-type");
}

static void add_required(SchemaTest *t, JsonObject *obj, JsonObject *type);

/* A JSON text of type name that the visitors accept. */
static char *valid_value(SchemaTest *t, const char *name)
{
    JsonObject *e = schema_type(t, name);
    const char *meta = meta_type(e);

    if (!strcmp(meta, "builtin")) {
        const char *jt = json_object_get_string_member(e, "json-type");

        return g_strdup(!strcmp(jt, "string") ? "\"x\"" :
                        !strcmp(jt, "boolean") ? "false" :
                        !strcmp(jt, "null") ? "null" : "0");
    }
    if (!strcmp(meta, "enum")) {
        return g_strdup_printf("\"%s\"", json_array_get_string_element(
            json_object_get_array_member(e, "values"), 0));
    }
    if (!strcmp(meta, "array")) {
        return g_strdup("[]");
    }
    if (!strcmp(meta, "alternate")) {
        return valid_value(t, json_object_get_string_member(
            json_array_get_object_element(
                json_object_get_array_member(e, "members"), 0), "type"));
    }
    {
        JsonObject *obj = json_object_new();
        JsonNode *n;
        char *text;

        add_required(t, obj, e);
        n = json_node_init_object(json_node_alloc(), obj);
        text = json_to_string(n, FALSE);
        json_node_unref(n);
        json_object_unref(obj);
        return text;
    }
}

/* A JSON text of the wrong kind for type name, and what QEMU expects. */
static const char *wrong_value(SchemaTest *t, const char *name,
                               const char **expected)
{
    JsonObject *e = schema_type(t, name);
    const char *meta = meta_type(e);

    *expected = NULL;
    if (!strcmp(meta, "builtin")) {
        static const char *const kinds[][3] = {
            { "string", "1", "string" },
            { "int", "\"x\"", "integer" },
            { "number", "\"x\"", "number" },
            { "boolean", "\"x\"", "boolean" },
        };
        const char *jt = json_object_get_string_member(e, "json-type");

        for (size_t i = 0; i < G_N_ELEMENTS(kinds); i++) {
            if (!strcmp(jt, kinds[i][0])) {
                *expected = kinds[i][2];
                return kinds[i][1];
            }
        }
        return NULL;                    /* any, null: nothing is wrong */
    }
    *expected = !strcmp(meta, "enum") ? "string" :
                !strcmp(meta, "array") ? "array" :
                !strcmp(meta, "object") ? "object" : NULL;
    return !strcmp(meta, "enum") ? "1" : *expected ? "\"x\"" : NULL;
}

static void add_required(SchemaTest *t, JsonObject *obj, JsonObject *type)
{
    JsonArray *members = json_object_get_array_member(type, "members");

    for (guint i = 0; i < json_array_get_length(members); i++) {
        JsonObject *m = json_array_get_object_element(members, i);
        char *text;

        if (json_object_has_member(m, "default")) {
            continue;
        }
        text = valid_value(t, json_object_get_string_member(m, "type"));
        json_object_set_member(obj, json_object_get_string_member(m, "name"),
                               json_from_string(text, NULL));
        g_free(text);
    }
    /* A union: the branch of the tag's value brings its own members. */
    if (json_object_has_member(type, "variants")) {
        const char *tag = json_object_get_string_member(type, "tag");
        const char *value = json_object_get_string_member(obj, tag);
        JsonArray *v = json_object_get_array_member(type, "variants");

        for (guint i = 0; i < json_array_get_length(v); i++) {
            JsonObject *c = json_array_get_object_element(v, i);

            if (!strcmp(json_object_get_string_member(c, "case"), value)) {
                add_required(t, obj, schema_type(t,
                    json_object_get_string_member(c, "type")));
            }
        }
    }
}

/* Send name with args (a JsonObject, consumed); the reply's error text. */
static char *schema_call(SchemaTest *t, const char *name, JsonObject *args,
                         char **cls)
{
    JsonObject *req = json_object_new();
    JsonNode *n, *reply;
    char *text, *got, *desc = NULL;

    json_object_set_string_member(req, "execute", name);
    json_object_set_object_member(req, "arguments", args);
    n = json_node_init_object(json_node_alloc(), req);
    text = json_to_string(n, FALSE);
    got = client_send(t->c, text);
    /* events may come first; the reply is the last line */
    *strrchr(got, '\r') = 0;
    reply = json_from_string(strrchr(got, '\n') ? strrchr(got, '\n') + 1
                                                : got, NULL);
    g_assert_nonnull(reply);
    if (json_object_has_member(json_node_get_object(reply), "error")) {
        JsonObject *e = json_object_get_object_member(
            json_node_get_object(reply), "error");

        desc = g_strdup(json_object_get_string_member(e, "desc"));
        *cls = g_strdup(json_object_get_string_member(e, "class"));
    }
    json_node_unref(reply);
    json_node_unref(n);
    json_object_unref(req);
    g_free(text);
    g_free(got);
    return desc;
}

static JsonObject *required_args(SchemaTest *t, JsonObject *argtype)
{
    JsonObject *args = json_object_new();

    add_required(t, args, argtype);
    return args;
}

static void expect_error(SchemaTest *t, const char *cmd, JsonObject *args,
                         const char *want)
{
    char *cls = NULL;
    char *desc = schema_call(t, cmd, args, &cls);

    if (g_test_verbose()) {
        g_test_message("%s: %s", cmd, want);
    }
    g_assert_cmpstr(desc, ==, want);
    g_free(desc);
    g_free(cls);
}

static void check_command_args(SchemaTest *t, JsonObject *cmd)
{
    const char *name = json_object_get_string_member(cmd, "name");
    JsonObject *at = schema_type(t,
        json_object_get_string_member(cmd, "arg-type"));
    JsonArray *members = json_object_get_array_member(at, "members");
    char *cls = NULL, *desc, *want;
    JsonObject *args;

    /* It exists, and with its required arguments it is not "missing". */
    desc = schema_call(t, name, required_args(t, at), &cls);
    if (strcmp(name, "qmp_capabilities")) {     /* negotiated already */
        g_assert_cmpstr(cls, !=, "CommandNotFound");
    }
    g_assert_false(desc && g_str_has_suffix(desc, "is missing"));
    g_free(desc);
    g_free(cls);
    /*
     * device_add ('gen': false) checks its own arguments, as QEMU's does:
     * the driver first, then the driver's properties.
     */
    if (!strcmp(name, "device_add")) {
        expect_error(t, name, json_object_new(),
                     "Parameter 'driver' is missing");
        return;
    }
    for (guint i = 0; i < json_array_get_length(members); i++) {
        JsonObject *m = json_array_get_object_element(members, i);
        const char *mname = json_object_get_string_member(m, "name");
        const char *expected;
        const char *wrong = wrong_value(t,
            json_object_get_string_member(m, "type"), &expected);

        if (!json_object_has_member(m, "default")) {
            args = required_args(t, at);
            json_object_remove_member(args, mname);
            want = g_strdup_printf("Parameter '%s' is missing", mname);
            expect_error(t, name, args, want);
            g_free(want);
        }
        if (wrong) {
            args = required_args(t, at);
            json_object_set_member(args, mname, json_from_string(wrong,
                                                                 NULL));
            want = g_strdup_printf("Invalid parameter type for '%s', "
                                   "expected: %s", mname, expected);
            expect_error(t, name, args, want);
            g_free(want);
        }
    }
    args = required_args(t, at);
    json_object_set_int_member(args, "zzz-extra", 1);
    expect_error(t, name, args, "Parameter 'zzz-extra' is unexpected");
}

static void test_schema_commands(void)
{
    SchemaTest t = { .c = client_negotiated() };
    JsonNode *root = NULL;
    Error *err = NULL;
    JsonArray *schema;
    unsigned commands = 0;

    g_assert_true(qmp_run_command("query-qmp-schema", NULL, &root, &err));
    schema = json_node_get_array(root);
    t.types = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < json_array_get_length(schema); i++) {
        JsonObject *e = json_array_get_object_element(schema, i);

        g_hash_table_insert(t.types,
                            (char *)json_object_get_string_member(e, "name"),
                            e);
    }
    stub_runstate = RUN_STATE_RUNNING;
    for (guint i = 0; i < json_array_get_length(schema); i++) {
        JsonObject *e = json_array_get_object_element(schema, i);

        if (!strcmp(meta_type(e), "command")) {
            check_command_args(&t, e);
            commands++;
        }
    }
    /* query-commands lists the same commands */
    {
        JsonNode *list = NULL;

        g_assert_true(qmp_run_command("query-commands", NULL, &list, &err));
        g_assert_cmpuint(json_array_get_length(json_node_get_array(list)),
                         ==, commands);
        json_node_unref(list);
    }
    g_hash_table_destroy(t.types);
    json_node_unref(root);
    client_free(t.c);
}

/* The chardev glue: greeting on connect, a new client starts over. */
static void test_chardev_qmp(void)
{
    static Chardev *chr = (Chardev *)&stub_chr_out;
    Error *err = NULL;
    CharBackend *be;
    const char *req = "{\"execute\": \"qmp_capabilities\"}";
    const char *status = "{\"execute\": \"query-target\"}";

    g_assert_true(monitor_init_qmp(chr, false, &err));
    be = stub_be;
    g_assert_nonnull(be->read);
    g_assert_cmpint(be->can_read(be->opaque), >, 0);
    g_string_truncate(stub_chr_out, 0);
    be->event(be->opaque, CHR_EVENT_OPENED);
    g_assert_cmpstr(stub_chr_out->str, ==, GREETING);
    g_string_truncate(stub_chr_out, 0);
    be->read(be->opaque, (const uint8_t *)req, strlen(req));
    be->read(be->opaque, (const uint8_t *)status, strlen(status));
    g_assert_cmpstr(stub_chr_out->str, ==,
                    RETURN_EMPTY "{\"return\": {\"arch\": \"x86_64\"}}\r\n");
    /* a partial request is dropped with the client */
    be->read(be->opaque, (const uint8_t *)"{\"exec", 6);
    be->event(be->opaque, CHR_EVENT_CLOSED);
    g_string_truncate(stub_chr_out, 0);
    be->event(be->opaque, CHR_EVENT_OPENED);
    be->read(be->opaque, (const uint8_t *)status, strlen(status));
    g_assert_cmpstr(stub_chr_out->str, ==, GREETING
                    "{\"error\": {\"class\": \"CommandNotFound\", \"desc\": "
                    "\"Expecting capabilities negotiation with "
                    "'qmp_capabilities'\"}}\r\n");
    monitor_cleanup();
}

static void test_chardev_hmp(void)
{
    static Chardev *chr = (Chardev *)&stub_chr_out;
    const char *typed = "info statx\x7fus\r\n\x1b[Ahelp info\n";
    Error *err = NULL;
    CharBackend *be;

    g_assert_true(monitor_init_hmp(chr, &err));
    be = stub_be;
    g_string_truncate(stub_chr_out, 0);
    be->event(be->opaque, CHR_EVENT_OPENED);
    g_assert_cmpstr(stub_chr_out->str, ==, "QEMU 7.2.0 monitor - type 'help' "
                    "for more information\r\n(qemu) ");
    g_string_truncate(stub_chr_out, 0);
    stub_runstate = RUN_STATE_RUNNING;
    stub_shutdown = SHUTDOWN_CAUSE_NONE;
    be->read(be->opaque, (const uint8_t *)typed, strlen(typed));
    g_assert_true(g_str_has_prefix(stub_chr_out->str,
                                   "info statx\b \bus\r\n"
                                   "VM status: running\r\n(qemu) "
                                   "help info\r\ninfo balloon  -- "));
    g_assert_true(g_str_has_suffix(stub_chr_out->str, "\r\n(qemu) "));
    g_string_truncate(stub_chr_out, 0);
    be->read(be->opaque, (const uint8_t *)"q\r", 2);
    g_assert_cmpstr(stub_chr_out->str, ==, "q\r\n");
    g_assert_cmpint(stub_shutdown, ==, SHUTDOWN_CAUSE_HOST_QMP_QUIT);
    monitor_cleanup();
}

static const QapiCommand *find_command(const char *name)
{
    for (const QapiCommand *c = qapi_commands; c->name; c++) {
        if (!strcmp(c->name, name)) {
            return c;
        }
    }
    g_assert_not_reached();
}

static bool check_reply(const char *command, const char *json, Error **errp)
{
    JsonNode *n = json_from_string(json, NULL);
    bool ok = find_command(command)->check_return(n, errp);

    json_node_unref(n);
    return ok;
}

/*
 * The reply checks the tests turn on (QEMU_QMP_CHECK_RETURNS=1): a reply
 * with a member the schema lacks, without one it requires, or of another
 * type is caught; commands without a typed reply have no check.
 */
static void test_return_checks(void)
{
    Error *err = NULL;

    g_assert_null(find_command("qmp_capabilities")->check_return);
    g_assert_null(find_command("qom-get")->check_return);       /* any */
    g_assert_true(check_reply("query-kvm",
                              "{\"enabled\": false, \"present\": true}",
                              NULL));
    g_assert_false(check_reply("query-kvm", "{\"enabled\": false, "
                               "\"present\": true, \"bogus\": 1}", &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "Parameter 'return.bogus' is unexpected");
    error_free(err);
    err = NULL;
    g_assert_false(check_reply("query-kvm", "{\"enabled\": false}", &err));
    error_free(err);
    err = NULL;
    g_assert_false(check_reply("query-cpu-definitions", "[{\"name\": 1}]",
                               &err));
    error_free(err);
    g_assert_true(check_reply("query-status", "{\"status\": \"running\", "
                              "\"running\": true, \"singlestep\": false}",
                              NULL));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qmp_register_commands(qapi_commands);
    hmp_set_info_qtree(qdev_print_tree);
    stub_chr_out = g_string_new(NULL);
    g_test_add_func("/qmp/greeting", test_greeting);
    g_test_add_func("/qmp/negotiation", test_negotiation);
    g_test_add_func("/qmp/id-echo", test_id_echo);
    g_test_add_func("/qmp/input-errors", test_input_errors);
    g_test_add_func("/qmp/argument-errors", test_argument_errors);
    g_test_add_func("/qmp/byte-by-byte", test_byte_by_byte);
    g_test_add_func("/qmp/pretty", test_pretty);
    g_test_add_func("/qmp/events", test_events);
    g_test_add_func("/qmp/commands", test_commands);
    g_test_add_func("/qmp/human-monitor-command",
                    test_human_monitor_command);
    g_test_add_func("/qmp/schema-commands", test_schema_commands);
    g_test_add_func("/qmp/chardev-qmp", test_chardev_qmp);
    g_test_add_func("/qmp/chardev-hmp", test_chardev_hmp);
    g_test_add_func("/qmp/return-checks", test_return_checks);
    return g_test_run();
}
