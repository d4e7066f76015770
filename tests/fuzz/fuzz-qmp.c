/*
 * libFuzzer target for QMP sessions: the bytes a client sends, after the
 * greeting and (when the first byte is odd) after qmp_capabilities, fed
 * to a session whose commands run on the monitor's stubs
 * (tests/lib/stub-monitor.c, stub-qmp.c), so every command's schema
 * checks and the monitor's own handlers see hostile arguments;
 * query-cpu-model-expansion runs the real handler (target/i386/
 * cpu-model.c: its props parser and the models' feature words) on the
 * CPUID table below. Each line the session writes must be one JSON
 * object.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <json-glib/json-glib.h>

#include "monitor/monitor.h"
#include "system/cpus.h"
#include "target/i386/cpu.h"
#include "stub-monitor.h"

/*
 * What an accelerator would offer, for query-cpu-model-expansion: every
 * bit of the feature leaves, so the model and props decide each flag.
 */
unsigned vcpus_model_cpuid(const X86CPUDef *def, X86CPUIDEntry *out,
                           unsigned max, Error **errp)
{
    static const X86CPUIDEntry supported[] = {
        /* "AuthenticAMD": EBX, EDX, ECX. */
        { 0x0, 0, 0, { 0xd, 0x68747541, 0x444d4163, 0x69746e65 } },
        { 0x1, 0, 0, { 0x00800f12, 0, ~0u, ~0u } },
        { 0x7, 0, X86_CPUID_FLAG_INDEXED, { 0, ~0u, ~0u, ~0u } },
        { 0x80000000, 0, 0, { 0x80000008, 0, 0, 0 } },
        { 0x80000001, 0, 0, { 0, 0, ~0u, ~0u } },
    };
    X86CPUTopology topo = x86_cpu_topology(1, 1, 1);
    X86CPUDef d = *def;

    if (d.kind == X86_CPU_MODEL_HOST) {
        d.kind = X86_CPU_MODEL_MAX;
    }
    return x86_cpu_build_cpuid(&d, &topo, 0, supported,
                               G_N_ELEMENTS(supported), out, max, NULL);
}

static void session_write(void *opaque, const char *buf, size_t len)
{
    g_string_append_len(opaque, buf, len);
}

/*
 * Lines already found to be one JSON object. Most replies repeat (the
 * greeting, negotiation, an error per stray byte), and parsing each again
 * was most of the time a run took; a line is parsed once, then looked up.
 * Bounded, so a long run does not grow it without end.
 */
static GHashTable *valid_lines;
#define VALID_LINES_MAX 4096

static void check_line(JsonParser *parser, const char *line, size_t len)
{
    char *copy;
    JsonNode *root;

    if (!len) {
        return;
    }
    copy = g_strndup(line, len);
    if (g_hash_table_contains(valid_lines, copy)) {
        g_free(copy);
        return;
    }
    if (strlen(copy) != len ||
        !json_parser_load_from_data(parser, copy, len, NULL) ||
        !(root = json_parser_get_root(parser)) ||
        !JSON_NODE_HOLDS_OBJECT(root)) {
        abort();
    }
    if (g_hash_table_size(valid_lines) >= VALID_LINES_MAX) {
        g_hash_table_remove_all(valid_lines);
    }
    g_hash_table_add(valid_lines, copy);
}

/* Every CR LF-terminated line the session wrote is one JSON object. */
static void check_lines(const GString *out)
{
    static JsonParser *parser;
    const char *p = out->str, *end = out->str + out->len;

    if (!parser) {
        parser = json_parser_new_immutable();
        valid_lines = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                            NULL);
    }
    while (p < end) {
        const char *eol = g_strstr_len(p, end - p, "\r\n");

        if (!eol) {
            abort();            /* a message without its line end */
        }
        check_line(parser, p, eol - p);
        p = eol + 2;
    }
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
    qmp_register_commands(qapi_commands);
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
