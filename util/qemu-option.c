/*
 * Parser for QEMU-style option arguments.
 *
 * Syntax: params := item { "," item }
 *         item   := key "=" value | key | value-of-implied-key
 * Inside keys and values ",," stands for one literal comma. A bare word
 * is the value of the implied key when it comes first and the option has
 * one; otherwise it is a boolean key set to "on".
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "qemu/option.h"

static void qemu_opt_free(gpointer p)
{
    QemuOpt *opt = p;

    g_free(opt->name);
    g_free(opt->value);
    g_free(opt);
}

QemuOpts *qemu_opts_new(void)
{
    QemuOpts *opts = g_new0(QemuOpts, 1);

    opts->list = g_ptr_array_new_with_free_func(qemu_opt_free);
    return opts;
}

void qemu_opts_free(QemuOpts *opts)
{
    if (opts) {
        g_ptr_array_free(opts->list, TRUE);
        g_free(opts);
    }
}

void qemu_opts_set(QemuOpts *opts, const char *name, const char *value)
{
    QemuOpt *opt = g_new0(QemuOpt, 1);

    opt->name = g_strdup(name);
    opt->value = g_strdup(value);
    g_ptr_array_add(opts->list, opt);
}

/* Copy one item from *p up to an unescaped comma, undoing ",,". */
static char *take_item(const char **p)
{
    GString *s = g_string_new(NULL);
    const char *c = *p;

    for (;;) {
        if (*c == ',') {
            if (c[1] == ',') {
                g_string_append_c(s, ',');
                c += 2;
                continue;
            }
            c++;
            break;
        }
        if (*c == '\0') {
            break;
        }
        g_string_append_c(s, *c++);
    }
    *p = c;
    return g_string_free(s, FALSE);
}

QemuOpts *qemu_opts_parse(const char *params, const char *implied_key,
                          Error **errp)
{
    QemuOpts *opts = qemu_opts_new();
    const char *p = params;
    bool first = true;

    while (*p) {
        char *item = take_item(&p);
        char *eq = strchr(item, '=');

        if (eq) {
            *eq = '\0';
            if (item[0] == '\0') {
                error_setg(errp, "Expected parameter name before '='");
                g_free(item);
                qemu_opts_free(opts);
                return NULL;
            }
            qemu_opts_set(opts, item, eq + 1);
        } else if (item[0] == '\0') {
            /* "a,,"-free empty item: a trailing or doubled separator */
            if (*p != '\0' || first) {
                error_setg(errp, "Invalid parameter ''");
                g_free(item);
                qemu_opts_free(opts);
                return NULL;
            }
        } else if (first && implied_key) {
            qemu_opts_set(opts, implied_key, item);
        } else {
            qemu_opts_set(opts, item, "on");
        }
        g_free(item);
        first = false;
    }
    return opts;
}

void qemu_opts_merge(QemuOpts *dst, const QemuOpts *src)
{
    for (unsigned i = 0; i < src->list->len; i++) {
        const QemuOpt *opt = g_ptr_array_index(src->list, i);

        qemu_opts_set(dst, opt->name, opt->value);
    }
}

const char *qemu_opt_get(const QemuOpts *opts, const char *name)
{
    for (unsigned i = opts->list->len; i-- > 0;) {
        const QemuOpt *opt = g_ptr_array_index(opts->list, i);

        if (strcmp(opt->name, name) == 0) {
            return opt->value;
        }
    }
    return NULL;
}

unsigned qemu_opts_count(const QemuOpts *opts)
{
    return opts->list->len;
}

const QemuOpt *qemu_opts_nth(const QemuOpts *opts, unsigned n)
{
    return n < opts->list->len ? g_ptr_array_index(opts->list, n) : NULL;
}

static void append_escaped(GString *s, const char *str)
{
    for (; *str; str++) {
        if (*str == ',') {
            g_string_append_c(s, ',');
        }
        g_string_append_c(s, *str);
    }
}

char *qemu_opts_to_string(const QemuOpts *opts)
{
    GString *s = g_string_new(NULL);

    for (unsigned i = 0; i < opts->list->len; i++) {
        const QemuOpt *opt = g_ptr_array_index(opts->list, i);

        if (i) {
            g_string_append_c(s, ',');
        }
        append_escaped(s, opt->name);
        g_string_append_c(s, '=');
        append_escaped(s, opt->value);
    }
    return g_string_free(s, FALSE);
}

static const QemuOptDesc *find_desc(const QemuOptDesc *desc, const char *name)
{
    for (; desc->name; desc++) {
        if (strcmp(desc->name, name) == 0) {
            return desc;
        }
    }
    return NULL;
}

const char *qemu_opts_find_unknown(const QemuOpts *opts,
                                   const QemuOptDesc *desc)
{
    for (unsigned i = 0; i < opts->list->len; i++) {
        const QemuOpt *opt = g_ptr_array_index(opts->list, i);

        if (!find_desc(desc, opt->name)) {
            return opt->name;
        }
    }
    return NULL;
}

bool qemu_opts_validate(const QemuOpts *opts, const QemuOptDesc *desc,
                        Error **errp)
{
    for (unsigned i = 0; i < opts->list->len; i++) {
        const QemuOpt *opt = g_ptr_array_index(opts->list, i);
        const QemuOptDesc *d = find_desc(desc, opt->name);
        bool b;
        uint64_t n;

        if (!d) {
            error_setg(errp, "Invalid parameter '%s'", opt->name);
            return false;
        }
        switch (d->type) {
        case QEMU_OPT_STRING:
            break;
        case QEMU_OPT_BOOL:
            if (!qemu_parse_bool(opt->name, opt->value, &b, errp)) {
                return false;
            }
            break;
        case QEMU_OPT_NUMBER:
            if (!qemu_parse_number(opt->name, opt->value, &n, errp)) {
                return false;
            }
            break;
        case QEMU_OPT_SIZE:
            if (!qemu_parse_size(opt->name, opt->value, 1, &n, errp)) {
                return false;
            }
            break;
        }
    }
    return true;
}

bool qemu_parse_bool(const char *name, const char *str, bool *value,
                     Error **errp)
{
    if (!strcmp(str, "on") || !strcmp(str, "yes") || !strcmp(str, "true")) {
        *value = true;
        return true;
    }
    if (!strcmp(str, "off") || !strcmp(str, "no") || !strcmp(str, "false")) {
        *value = false;
        return true;
    }
    error_setg(errp, "Parameter '%s' expects 'on' or 'off'", name);
    return false;
}

bool qemu_parse_number(const char *name, const char *str, uint64_t *value,
                       Error **errp)
{
    char *end;
    guint64 v;

    errno = 0;
    if (!g_ascii_isdigit(str[0])) {
        goto bad;
    }
    v = g_ascii_strtoull(str, &end, 0);
    if (*end != '\0') {
        goto bad;
    }
    if (errno == ERANGE) {
        error_setg(errp, "Value '%s' is out of range for parameter '%s'",
                   str, name);
        return false;
    }
    *value = v;
    return true;

bad:
    error_setg(errp, "Parameter '%s' expects a number", name);
    return false;
}

static int suffix_shift(char c)
{
    switch (g_ascii_toupper(c)) {
    case 'B':
        return 0;
    case 'K':
        return 10;
    case 'M':
        return 20;
    case 'G':
        return 30;
    case 'T':
        return 40;
    case 'P':
        return 50;
    case 'E':
        return 60;
    default:
        return -1;
    }
}

int qemu_strtosz(const char *str, uint64_t default_unit, uint64_t *value)
{
    const char *p = str;
    uint64_t whole = 0, unit = default_unit;
    double frac = 0;
    bool hex = false;

    if (!g_ascii_isdigit(*p)) {
        return -EINVAL;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        hex = true;
        p += 2;
        if (!g_ascii_isxdigit(*p)) {
            return -EINVAL;
        }
        for (; g_ascii_isxdigit(*p); p++) {
            if (whole > (UINT64_MAX >> 4)) {
                return -ERANGE;
            }
            whole = whole * 16 + g_ascii_xdigit_value(*p);
        }
    } else {
        for (; g_ascii_isdigit(*p); p++) {
            unsigned d = *p - '0';

            if (whole > (UINT64_MAX - d) / 10) {
                return -ERANGE;
            }
            whole = whole * 10 + d;
        }
        if (*p == '.') {
            double scale = 0.1;

            p++;
            if (!g_ascii_isdigit(*p)) {
                return -EINVAL;
            }
            for (; g_ascii_isdigit(*p); p++) {
                frac += (*p - '0') * scale;
                scale /= 10;
            }
        }
    }
    if (*p) {
        int shift = suffix_shift(*p);

        if (shift < 0 || p[1] != '\0') {
            return -EINVAL;
        }
        unit = UINT64_C(1) << shift;
    }
    if (hex && frac) {
        return -EINVAL;
    }
    /* A fraction of a byte makes no sense: it needs a scale. */
    if (frac > 0 && unit == 1) {
        return -EINVAL;
    }
    if (unit && whole > UINT64_MAX / unit) {
        return -ERANGE;
    }
    whole *= unit;
    if (frac > 0) {
        double extra = floor(frac * (double)unit);

        /* Compare as integers: doubles round 2^64 - 1 up to 2^64. */
        if (extra >= 0x1p64 || (uint64_t)extra > UINT64_MAX - whole) {
            return -ERANGE;
        }
        whole += (uint64_t)extra;
    }
    *value = whole;
    return 0;
}

bool qemu_parse_size(const char *name, const char *str, uint64_t default_unit,
                     uint64_t *value, Error **errp)
{
    int ret = qemu_strtosz(str, default_unit, value);

    if (ret == -ERANGE) {
        error_setg(errp, "Value '%s' is out of range for parameter '%s'",
                   str, name);
        return false;
    }
    if (ret < 0) {
        error_setg(errp, "Parameter '%s' expects a non-negative number "
                   "below 2^64; optional suffix k, M, G, T, P or E means "
                   "kilo-, mega-, giga-, tera-, peta- and exabytes", name);
        return false;
    }
    return true;
}

bool qemu_opt_get_bool(const QemuOpts *opts, const char *name, bool *value,
                       Error **errp)
{
    const char *s = qemu_opt_get(opts, name);

    return !s || qemu_parse_bool(name, s, value, errp);
}

bool qemu_opt_get_number(const QemuOpts *opts, const char *name,
                         uint64_t *value, Error **errp)
{
    const char *s = qemu_opt_get(opts, name);

    return !s || qemu_parse_number(name, s, value, errp);
}

bool qemu_opt_get_size(const QemuOpts *opts, const char *name,
                       uint64_t *value, Error **errp)
{
    const char *s = qemu_opt_get(opts, name);

    return !s || qemu_parse_size(name, s, 1, value, errp);
}

bool id_wellformed(const char *id)
{
    if (!g_ascii_isalpha(id[0])) {
        return false;
    }
    for (const char *p = id; *p; p++) {
        if (!g_ascii_isalnum(*p) && !strchr("-._", *p)) {
            return false;
        }
    }
    return true;
}
