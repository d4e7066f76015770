/*
 * libFuzzer target for QMP sessions: the bytes a client sends, after the
 * greeting and (when the first byte is odd) after qmp_capabilities, fed
 * to a session whose commands run on the monitor's stubs
 * (tests/unit/stub-monitor.c, stub-qmp.c), so every command's schema
 * checks and the monitor's own handlers see hostile arguments. Each
 * line the session writes must be one JSON object.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "monitor/monitor.h"
#include "../unit/stub-monitor.h"

static void session_write(void *opaque, const char *buf, size_t len)
{
    g_string_append_len(opaque, buf, len);
}

static void check_lines(const GString *out)
{
    char **lines = g_strsplit(out->str, "\r\n", -1);
    JsonParser *parser = json_parser_new_immutable();

    for (char **l = lines; *l; l++) {
        JsonNode *root;

        if (!**l) {
            continue;
        }
        if (!json_parser_load_from_data(parser, *l, -1, NULL) ||
            !(root = json_parser_get_root(parser)) ||
            !JSON_NODE_HOLDS_OBJECT(root)) {
            abort();
        }
    }
    g_object_unref(parser);
    g_strfreev(lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const char negotiate[] = "{\"execute\": \"qmp_capabilities\"}";
    GString *out;
    QmpSession *s;

    if (size < 1 || size > 65536) {
        return 0;
    }
    if (!stub_chr_out) {
        stub_chr_out = g_string_new(NULL);
    }
    out = g_string_new(NULL);
    s = qmp_session_new(false, session_write, out);
    qmp_session_open(s);
    if (data[0] & 1) {
        qmp_session_feed(s, negotiate, strlen(negotiate));
    }
    qmp_session_feed(s, data + 1, size - 1);
    qmp_session_close(s);
    qmp_session_free(s);
    check_lines(out);
    g_string_free(out, TRUE);
    g_string_truncate(stub_chr_out, 0);
    return 0;
}
