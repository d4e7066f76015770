/*
 * QEMU's -readconfig file format, read the way QEMU 7.2 reads it:
 *
 *   # a comment (only with '#' in the first column)
 *   [group]
 *   [group "id"]
 *     key = "value"
 *
 * Lines are taken as fgets() with a 1024-byte buffer takes them (at most
 * 1023 bytes, the newline included). A line that is just a newline, or
 * starts with '#', is skipped. A line starting with '[' is a header:
 * '[', a name of up to 63 non-blank characters after optional blanks,
 * blanks, '"', an id of up to 63 characters up to the next '"'; or else
 * '[' and a name of up to 63 characters up to the next ']' (which need
 * not be there: "[machine" names the group "machine\n"). Any other line
 * starts, after blanks, with a key of up to 63 non-blank characters; if
 * blanks, '=', blanks, '"' and 1 to 1023 characters up to a '"' follow,
 * they are its value, else the value is "" (so "key = pc" and
 * "key = \"\"" set an empty value, and an unclosed quote takes the rest
 * of the line). A line with no key (only blanks) is a parse error.
 */
#include <string.h>

#include "qemu/config-file.h"

#define CONFIG_LINE_MAX   1024   /* fgets() buffer, NUL included */
#define CONFIG_NAME_MAX   63
#define CONFIG_VALUE_MAX  1023

static bool is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' ||
           c == '\r';
}

static const char *skip_blanks(const char *p)
{
    while (is_blank(*p)) {
        p++;
    }
    return p;
}

/* Up to max non-blank characters, as scanf's %Ns; NULL if none. */
static char *scan_word(const char **p, size_t max)
{
    const char *s = skip_blanks(*p), *e = s;

    while (*e && !is_blank(*e) && (size_t)(e - s) < max) {
        e++;
    }
    *p = e;
    return e > s ? g_strndup(s, e - s) : NULL;
}

/* Up to max characters other than stop, as scanf's %N[^c]; NULL if none. */
static char *scan_until(const char **p, char stop, size_t max)
{
    const char *s = *p, *e = s;

    while (*e && *e != stop && (size_t)(e - s) < max) {
        e++;
    }
    *p = e;
    return e > s ? g_strndup(s, e - s) : NULL;
}

static ConfigGroup *config_group_new(char *name, char *id)
{
    ConfigGroup *g = g_new0(ConfigGroup, 1);

    g->name = name;
    g->id = id;
    g->keys = g_ptr_array_new_with_free_func(g_free);
    g->values = g_ptr_array_new_with_free_func(g_free);
    return g;
}

static void config_group_free(ConfigGroup *g)
{
    if (g) {
        g_free(g->name);
        g_free(g->id);
        g_ptr_array_unref(g->keys);
        g_ptr_array_unref(g->values);
        g_free(g);
    }
}

static void config_group_set(ConfigGroup *g, char *key, char *value)
{
    for (unsigned i = 0; i < g->keys->len; i++) {
        if (!strcmp(g_ptr_array_index(g->keys, i), key)) {
            g_free(key);
            g_free(g_ptr_array_index(g->values, i));
            g_ptr_array_index(g->values, i) = value;
            return;
        }
    }
    g_ptr_array_add(g->keys, key);
    g_ptr_array_add(g->values, value);
}

/* A header line, as its group; NULL if the line is not one. */
static ConfigGroup *parse_header(const char *line)
{
    const char *p = line + 1;
    char *name, *id;

    if (line[0] != '[') {
        return NULL;
    }
    name = scan_word(&p, CONFIG_NAME_MAX);
    if (name) {
        p = skip_blanks(p);
        if (*p == '"') {
            p++;
            id = scan_until(&p, '"', CONFIG_NAME_MAX);
            if (id) {
                return config_group_new(name, id);
            }
        }
        g_free(name);
    }
    p = line + 1;
    name = scan_until(&p, ']', CONFIG_NAME_MAX);
    return name ? config_group_new(name, NULL) : NULL;
}

/*
 * Hand a finished group over, located as QEMU locates it: at the last
 * key line read so far, which may belong to an earlier group.
 */
static bool flush_group(ConfigGroup *g, unsigned line, const char *fname,
                        ConfigGroupFn fn, void *opaque, Error **errp)
{
    g->line = line;
    if (line) {
        loc_set_file(fname, line);
    } else {
        loc_clear();
    }
    return fn(g, opaque, errp);
}

bool config_file_parse(const char *text, size_t len, const char *fname,
                       ConfigGroupFn fn, void *opaque, Error **errp)
{
    ConfigGroup *group = NULL, *next;
    char line[CONFIG_LINE_MAX];
    unsigned lno = 0, key_line = 0;
    size_t pos = 0;
    bool ok = false;

    while (pos < len) {
        size_t n = 0;
        const char *p;
        char *key, *value;

        while (pos < len && n < CONFIG_LINE_MAX - 1) {
            line[n++] = text[pos++];
            if (line[n - 1] == '\n') {
                break;
            }
        }
        line[n] = '\0';
        lno++;
        if (line[0] == '\n' || line[0] == '#') {
            continue;
        }
        next = parse_header(line);
        if (next) {
            if (group &&
                !flush_group(group, key_line, fname, fn, opaque, errp)) {
                config_group_free(next);
                goto out;
            }
            config_group_free(group);
            group = next;
            continue;
        }
        loc_set_file(fname, lno);
        p = line;
        key = scan_word(&p, CONFIG_NAME_MAX);
        if (!key) {
            error_setg(errp, "parse error");
            goto out;
        }
        if (!group) {
            g_free(key);
            error_setg(errp, "no group defined");
            goto out;
        }
        p = skip_blanks(p);
        value = NULL;
        if (*p == '=') {
            p = skip_blanks(p + 1);
            if (*p == '"') {
                p++;
                value = scan_until(&p, '"', CONFIG_VALUE_MAX);
            }
        }
        config_group_set(group, key, value ? value : g_strdup(""));
        key_line = lno;
    }
    ok = !group || flush_group(group, key_line, fname, fn, opaque, errp);
out:
    config_group_free(group);
    return ok;
}
