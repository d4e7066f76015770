/*
 * The -readconfig parser (util/config-file.c): what each line becomes,
 * with QEMU 7.2's readings of the odd ones, and where errors point.
 */
#include <string.h>

#include <glib.h>

#include "qemu/config-file.h"

/* Each group as "name[/id]@line: k=v k=v", one line per group. */
static bool dump_group(const ConfigGroup *g, void *opaque, Error **errp)
{
    GString *out = opaque;

    g_string_append(out, g->name);
    if (g->id) {
        g_string_append_printf(out, "/%s", g->id);
    }
    g_string_append_printf(out, "@%u:", g->line);
    for (unsigned i = 0; i < g->keys->len; i++) {
        g_string_append_printf(out, " %s=%s",
                               (char *)g_ptr_array_index(g->keys, i),
                               (char *)g_ptr_array_index(g->values, i));
    }
    g_string_append_c(out, '\n');
    return true;
}

static void parses_to(const char *text, const char *want)
{
    GString *out = g_string_new(NULL);
    Error *err = NULL;

    g_assert_true(config_file_parse(text, strlen(text), "f.cfg", dump_group,
                                    out, &err));
    g_assert_null(err);
    g_assert_cmpstr(out->str, ==, want);
    g_string_free(out, TRUE);
    loc_clear();
}

static void test_groups(void)
{
    parses_to("# comment\n[machine]\n  type = \"pc\"\n\n"
              "[drive \"d0\"]\n  if = \"none\"\n  file = \"a,b\"\n",
              "machine@3: type=pc\ndrive/d0@7: if=none file=a,b\n");
    /* The last value of a repeated key, blanks and tabs around '=' */
    parses_to("[name]\n\tguest   =   \"a\"\nguest = \"b\"\n",
              "name@3: guest=b\n");
    /* A group without keys, then one located by the earlier key line */
    parses_to("[a]\n  k = \"v\"\n[b]\n", "a@2: k=v\nb@2:\n");
    parses_to("[a]\n[b]\n", "a@0:\nb@0:\n");
    parses_to("", "");
    /* No trailing newline; CRLF lines */
    parses_to("[name]\r\n  guest = \"a\"", "name@2: guest=a\n");
}

/* QEMU 7.2's readings of lines that are not quite the format. */
static void test_odd_lines(void)
{
    parses_to("[name]\n  guest = pc\n", "name@2: guest=\n");
    parses_to("[name]\n  guest\n", "name@2: guest=\n");
    parses_to("[name]\n  guest = \"\"\n", "name@2: guest=\n");
    parses_to("[name]\n  guest = \"a\" junk\n", "name@2: guest=a\n");
    parses_to("[name]\n  guest = \"a b\n", "name@2: guest=a b\n\n");
    parses_to("[name]\n guest=\"a\"\n", "name@2: guest=\"a\"=\n");
    parses_to("[name ]\n", "name @0:\n");
    parses_to("[machine\n", "machine\n@0:\n");
    parses_to("[ drive  \"x y\"]\n", "drive/x y@0:\n");
}

static void fails_at(const char *text, const char *msg)
{
    GString *out = g_string_new(NULL);
    Error *err = NULL;

    g_assert_false(config_file_parse(text, strlen(text), "f.cfg",
                                     dump_group, out, &err));
    g_string_free(out, TRUE);
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
    loc_clear();
}

static void test_errors(void)
{
    fails_at("k = \"v\"\n", "no group defined");
    fails_at("\n  [name]\n", "no group defined");
    fails_at("[name]\n   \n", "parse error");
    fails_at("\t\n", "parse error");
    /* "[]" is no header: a key "[]" before any group */
    fails_at("[]\n", "no group defined");
}

/* Keys and names stop at 63 characters, values at 1023, as scanf's. */
static void test_lengths(void)
{
    char *key = g_strnfill(70, 'k');
    char *text = g_strdup_printf("[g]\n%s = \"v\"\n", key);
    char *want = g_strdup_printf("g@2: %.63s=\n", key);

    parses_to(text, want);
    g_free(text);
    g_free(want);
    g_free(key);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/config-file/groups", test_groups);
    g_test_add_func("/config-file/odd-lines", test_odd_lines);
    g_test_add_func("/config-file/errors", test_errors);
    g_test_add_func("/config-file/lengths", test_lengths);
    return g_test_run();
}
