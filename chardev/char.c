/*
 * Character devices: the registry of backends and of -chardev instances,
 * the option and shorthand parsers, and the frontend API. The fd I/O
 * that the backends share is in char-fd.c, one backend per file beside
 * it; each registers itself (CHARDEV_CLASS_REGISTER) and does its I/O
 * through its class's operations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "chardev-internal.h"
#include "qemu/registry.h"
#include "qemu/fdset.h"

void (*chr_mux_exit_hook)(void);

static GPtrArray *chardevs;         /* Chardev *, in creation order */

/*
 * The registered backends, by name: what "-chardev NAME" may name, and
 * the mux, which only comes through mux=on.
 */
static Registry chardev_classes;

/* Keys every backend takes. */
static const QemuOptDesc chardev_common_opts[] = {
    { "backend", QEMU_OPT_STRING },
    { "id", QEMU_OPT_STRING },
    { "mux", QEMU_OPT_BOOL },
    { "logfile", QEMU_OPT_STRING },     /* a copy of the output */
    { "logappend", QEMU_OPT_BOOL },
    { NULL },
};

/* --- delivery to the frontend ----------------------------------------- */

void chr_be_event(Chardev *chr, ChrEvent event)
{
    CharBackend *be = chr->be;

    if (event == CHR_EVENT_OPENED) {
        chr->be_open = true;
    } else if (event == CHR_EVENT_CLOSED) {
        chr->be_open = false;
    }
    if (be && be->event) {
        be->event(be->opaque, event);
    }
}

int chr_be_can_read(Chardev *chr)
{
    CharBackend *be = chr->be;

    /* As in QEMU, a frontend without can_read takes no input. */
    if (!be || !be->can_read || !be->read) {
        return 0;
    }
    return be->can_read(be->opaque);
}

void chr_be_write(Chardev *chr, const uint8_t *buf, int len)
{
    CharBackend *be = chr->be;

    if (be && be->read && len > 0) {
        be->read(be->opaque, buf, len);
    }
}

bool chr_fe_is_open(const Chardev *chr)
{
    const CharBackend *be = chr->be;

    if (be && be->open_explicit) {
        return be->fe_open;
    }
    return be && (be->can_read || be->read || be->event);
}

static void chr_update_input(Chardev *chr)
{
    if (chr->cls->update_input) {
        chr->cls->update_input(chr);
    }
}

static void chr_detach(Chardev *chr)
{
    if (chr->cls->detach) {
        chr->cls->detach(chr);
    }
}

/* --- registry ------------------------------------------------------------ */

void chardev_class_register(const ChardevClass *cls)
{
    registry_add(&chardev_classes, cls, cls->name, 0);
}

/* A backend "-chardev NAME" may name (not the mux). */
static const ChardevClass *chr_find_class(const char *name)
{
    const ChardevClass *cls = registry_find(&chardev_classes, name);

    return cls && !cls->open_on ? cls : NULL;
}

/* The multiplexer of mux=on. */
static const ChardevClass *chr_mux_class(void)
{
    const ChardevClass *cls;

    for (unsigned i = 0; (cls = registry_at(&chardev_classes, i)); i++) {
        if (cls->open_on) {
            return cls;
        }
    }
    return NULL;
}

Chardev *qemu_chr_find(const char *id)
{
    if (!chardevs || !id) {
        return NULL;
    }
    for (unsigned i = 0; i < chardevs->len; i++) {
        Chardev *chr = g_ptr_array_index(chardevs, i);

        if (!strcmp(chr->label, id)) {
            return chr;
        }
    }
    return NULL;
}

static bool chr_check_id_free(const char *id, Error **errp)
{
    if (qemu_chr_find(id)) {
        /* QEMU's wording: chardevs are children of /chardevs there. */
        error_setg(errp, "attempt to add duplicate property '%s' to object "
                   "(type 'container')", id);
        return false;
    }
    return true;
}

/*
 * logfile=PATH[,logappend=on]: everything the frontend writes is also
 * written there (libvirt's <log file=.../> on a serial port, passed as
 * /dev/fdset/N).
 */
static bool chr_open_log(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    const char *path = opts ? qemu_opt_get(opts, "logfile") : NULL;
    bool append = false;

    if (!path) {
        return true;
    }
    if (!qemu_opt_get_bool(opts, "logappend", &append, errp)) {
        return false;
    }
    chr->log_fd = qemu_open(path, O_WRONLY | O_CREAT |
                            (append ? O_APPEND : O_TRUNC), 0666);
    if (chr->log_fd < 0) {
        error_setg_errno(errp, errno, "Unable to open logfile %s", path);
        return false;
    }
    return true;
}

Chardev *chr_create(const ChardevClass *cls, const char *label,
                    const QemuOpts *opts, Error **errp)
{
    Chardev *chr = g_malloc0(cls->instance_size);

    chr->cls = cls;
    chr->label = g_strdup(label);
    chr->fd_in = -1;
    chr->fd_out = -1;
    chr->outq = g_byte_array_new();
    chr->out_limit = CHR_OUTPUT_LIMIT;
    chr->log_fd = -1;
    if (!chr_open_log(chr, opts, errp)) {
        g_byte_array_free(chr->outq, TRUE);
        g_free(chr->label);
        g_free(chr);
        return NULL;
    }
    if (!cls->open(chr, opts, errp)) {
        if (chr->log_fd >= 0) {
            close(chr->log_fd);
        }
        chr_detach(chr);
        g_byte_array_free(chr->outq, TRUE);
        g_free(chr->label);
        g_free(chr);
        return NULL;
    }
    if (!chardevs) {
        chardevs = g_ptr_array_new();
    }
    g_ptr_array_add(chardevs, chr);
    return chr;
}

/* Close and free one chardev; its frontends are left detached. */
static void chr_release(Chardev *chr)
{
    if (chr->cls->close) {
        chr->cls->close(chr);
    }
    chr_detach(chr);
    if (chr->log_fd >= 0) {
        close(chr->log_fd);
    }
    if (chr->be && !chr->cls->fe_attach) {
        chr->be->chr = NULL;
    }
    g_byte_array_free(chr->outq, TRUE);
    g_free(chr->label);
    g_free(chr);
}

void chr_destroy(Chardev *chr)
{
    if (chardevs) {
        g_ptr_array_remove(chardevs, chr);
    }
    chr_release(chr);
}

/* The chardevs of -serial, in order (a NULL entry for "none"). */
static GPtrArray *serial_chardevs;

void serial_hd_add(Chardev *chr)
{
    if (!serial_chardevs) {
        serial_chardevs = g_ptr_array_new();
    }
    g_ptr_array_add(serial_chardevs, chr);
}

unsigned serial_hd_count(void)
{
    return serial_chardevs ? serial_chardevs->len : 0;
}

Chardev *serial_hd(int i)
{
    if (!serial_chardevs || i < 0 || (guint)i >= serial_chardevs->len) {
        return NULL;
    }
    return g_ptr_array_index(serial_chardevs, i);
}

void qemu_chr_cleanup_all(void)
{
    if (serial_chardevs) {
        g_ptr_array_free(serial_chardevs, TRUE);
        serial_chardevs = NULL;
    }
    if (!chardevs) {
        return;
    }
    /* Newest first: a mux goes before the chardev under it. */
    while (chardevs->len) {
        Chardev *chr = g_ptr_array_steal_index(chardevs, chardevs->len - 1);

        chr_release(chr);
    }
    g_ptr_array_free(chardevs, TRUE);
    chardevs = NULL;
}

void qemu_chr_foreach(void (*fn)(Chardev *chr, void *opaque), void *opaque)
{
    if (!chardevs) {
        return;
    }
    for (unsigned i = 0; i < chardevs->len; i++) {
        fn(g_ptr_array_index(chardevs, i), opaque);
    }
}

const char *qemu_chr_get_id(const Chardev *chr)
{
    return chr->label;
}

char *qemu_chr_get_filename(const Chardev *chr)
{
    if (chr->cls->filename) {
        return chr->cls->filename(chr);
    }
    return g_strdup(chr->cls->name);
}

bool qemu_chr_is_connected(const Chardev *chr)
{
    return chr_fe_is_open(chr);
}

bool qemu_chr_is_mux(const Chardev *chr)
{
    return chr->cls->open_on != NULL;
}

/* --- creation from options ---------------------------------------------- */

/* Unknown keys fail with "Invalid parameter 'x'", bad values typed. */
static bool chr_validate_opts(const ChardevClass *cls, const QemuOpts *opts,
                              Error **errp)
{
    GArray *desc = g_array_new(TRUE, TRUE, sizeof(QemuOptDesc));
    bool ok;

    for (const QemuOptDesc *d = chardev_common_opts; d->name; d++) {
        g_array_append_val(desc, *d);
    }
    for (const QemuOptDesc *d = cls->opts; d && d->name; d++) {
        g_array_append_val(desc, *d);
    }
    ok = qemu_opts_validate(opts, (const QemuOptDesc *)desc->data, errp);
    g_array_free(desc, TRUE);
    return ok;
}

Chardev *qemu_chr_new_from_opts(const QemuOpts *opts, Error **errp)
{
    const char *backend = qemu_opt_get(opts, "backend");
    const char *id = qemu_opt_get(opts, "id");
    const ChardevClass *cls, *mux_cls;
    Chardev *base, *mux;
    bool want_mux = false;
    char *base_id;

    if (!id) {
        error_setg(errp, "chardev: no id specified");
        return NULL;
    }
    if (!backend) {
        error_setg(errp, "chardev: \"%s\" missing backend", id);
        return NULL;
    }
    cls = chr_find_class(backend);
    if (!cls) {
        error_setg(errp, "'%s' is not a valid char driver name", backend);
        return NULL;
    }
    if (!chr_validate_opts(cls, opts, errp) ||
        !qemu_opt_get_bool(opts, "mux", &want_mux, errp) ||
        !chr_check_id_free(id, errp)) {
        return NULL;
    }
    if (!want_mux) {
        return chr_create(cls, id, opts, errp);
    }

    mux_cls = chr_mux_class();
    if (!mux_cls) {
        /* Not in the emulator, which links every backend. */
        error_setg(errp, "chardev: mux=on: no multiplexer in this build");
        return NULL;
    }
    /* As QEMU: the backend becomes "ID-base", the mux takes "ID". */
    base_id = g_strdup_printf("%s-base", id);
    if (!chr_check_id_free(base_id, errp)) {
        g_free(base_id);
        return NULL;
    }
    base = chr_create(cls, base_id, opts, errp);
    g_free(base_id);
    if (!base) {
        return NULL;
    }
    mux = chr_create(mux_cls, id, NULL, errp);
    if (!mux) {
        chr_destroy(base);
        return NULL;
    }
    if (!mux_cls->open_on(mux, base, errp)) {
        chr_destroy(mux);
        chr_destroy(base);
        return NULL;
    }
    return mux;
}

/*
 * QEMU's shorthands, as -serial, -monitor and -qmp take them:
 *   null | stdio | pty        the backend of that name
 *   file:PATH | pipe:PATH     file / pipe with path=PATH
 *   unix:PATH[,opts]          socket, path=PATH plus socket options
 *   tcp:[HOST]:PORT[,opts]    socket, host and port plus options
 *   mon:SPEC                  SPEC with mux=on (signal=off for stdio)
 * Anything else is "'SPEC' is not a valid char driver".
 */
QemuOpts *qemu_chr_parse_compat(const char *label, const char *spec,
                                Error **errp)
{
    const char *full = spec;
    QemuOpts *opts = qemu_opts_new();
    QemuOpts *extra = NULL;
    const char *p, *rest = NULL;

    if (label) {
        qemu_opts_set(opts, "id", label);
    }
    if (g_str_has_prefix(spec, "mon:")) {
        spec += 4;
        qemu_opts_set(opts, "mux", "on");
        if (!strcmp(spec, "stdio")) {
            /* The monitor is on stdin: Ctrl-C must not kill us. */
            qemu_opts_set(opts, "signal", "off");
        }
    }
    if (!strcmp(spec, "null") || !strcmp(spec, "stdio") ||
        !strcmp(spec, "pty")) {
        qemu_opts_set(opts, "backend", spec);
        return opts;
    }
    if (g_str_has_prefix(spec, "file:") || g_str_has_prefix(spec, "pipe:")) {
        char *backend = g_strndup(spec, 4);

        qemu_opts_set(opts, "backend", backend);
        qemu_opts_set(opts, "path", spec + 5);
        g_free(backend);
        return opts;
    }
    if (g_str_has_prefix(spec, "unix:")) {
        qemu_opts_set(opts, "backend", "socket");
        extra = qemu_opts_parse(spec + 5, "path", errp);
        if (!extra) {
            goto fail;
        }
    } else if (g_str_has_prefix(spec, "tcp:")) {
        const char *colon, *comma;
        char *host, *port;

        p = spec + 4;
        colon = strrchr(p, ':');
        comma = strchr(p, ',');
        if (comma && colon && colon > comma) {
            /* The last colon must come before the options. */
            colon = memrchr(p, ':', comma - p);
        }
        if (!colon) {
            goto invalid;
        }
        host = g_strndup(p, colon - p);
        port = comma ? g_strndup(colon + 1, comma - colon - 1)
                     : g_strdup(colon + 1);
        if (!port[0]) {
            g_free(host);
            g_free(port);
            goto invalid;
        }
        /* "[::1]:4444": the brackets are not part of the host. */
        if (host[0] == '[' && host[strlen(host) - 1] == ']') {
            char *h = g_strndup(host + 1, strlen(host) - 2);

            g_free(host);
            host = h;
        }
        qemu_opts_set(opts, "backend", "socket");
        qemu_opts_set(opts, "host", host);
        qemu_opts_set(opts, "port", port);
        g_free(host);
        g_free(port);
        rest = comma ? comma + 1 : NULL;
        if (rest) {
            extra = qemu_opts_parse(rest, NULL, errp);
            if (!extra) {
                goto fail;
            }
        }
    } else {
        goto invalid;
    }
    if (extra) {
        qemu_opts_merge(opts, extra);
        qemu_opts_free(extra);
    }
    return opts;

invalid:
    error_setg(errp, "'%s' is not a valid char driver", full);
fail:
    qemu_opts_free(opts);
    return NULL;
}

Chardev *qemu_chr_new(const char *label, const char *spec, Error **errp)
{
    QemuOpts *opts;
    Chardev *chr;

    if (!strcmp(spec, "none")) {
        return NULL;
    }
    if (g_str_has_prefix(spec, "chardev:")) {
        chr = qemu_chr_find(spec + 8);
        if (!chr) {
            error_setg(errp, "Chardev '%s' not found", spec + 8);
        }
        return chr;
    }
    opts = qemu_chr_parse_compat(label, spec, errp);
    if (!opts) {
        return NULL;
    }
    chr = qemu_chr_new_from_opts(opts, errp);
    qemu_opts_free(opts);
    return chr;
}

/* --- frontend API -------------------------------------------------------- */

static void chr_fe_clear(CharBackend *be)
{
    be->can_read = NULL;
    be->read = NULL;
    be->event = NULL;
    be->opaque = NULL;
    be->open_explicit = false;
    be->fe_open = false;
    be->write_ready = NULL;
}

bool qemu_chr_fe_init(CharBackend *be, Chardev *chr, Error **errp)
{
    chr_fe_clear(be);
    be->chr = NULL;
    be->tag = 0;
    if (!chr) {
        return true;
    }
    if (chr->cls->fe_attach) {
        if (!chr->cls->fe_attach(chr, be, errp)) {
            return false;
        }
    } else if (chr->be) {
        error_setg(errp, "Device '%s' is in use", chr->label);
        return false;
    } else {
        chr->be = be;
    }
    be->chr = chr;
    return true;
}

void qemu_chr_fe_deinit(CharBackend *be)
{
    Chardev *chr = be->chr;

    if (!chr) {
        return;
    }
    chr_fe_clear(be);
    if (chr->cls->fe_detach) {
        chr->cls->fe_detach(chr, be);
    } else if (chr->be == be) {
        chr->be = NULL;
    }
    be->chr = NULL;
    chr_update_input(chr);
}

void qemu_chr_fe_set_handlers(CharBackend *be, IOCanReadHandler can_read,
                              IOReadHandler read, IOEventHandler event,
                              void *opaque)
{
    Chardev *chr = be->chr;

    if (!chr) {
        return;
    }
    be->can_read = can_read;
    be->read = read;
    be->event = event;
    be->opaque = opaque;
    if (chr->cls->fe_handlers_set) {
        chr->cls->fe_handlers_set(chr, be);
    } else if (event && chr->be_open) {
        /* Attached after the host side opened: still say so. */
        event(opaque, CHR_EVENT_OPENED);
    }
    chr_update_input(chr);
}

int qemu_chr_fe_write(CharBackend *be, const uint8_t *buf, int len)
{
    Chardev *chr = be->chr;
    int n;

    if (!chr || len <= 0) {
        return 0;
    }
    /* No output path (null): discard, as QEMU does. */
    n = chr->cls->write ? chr->cls->write(chr, buf, len) : len;
    /* The log gets what the backend took; a full log is not an error. */
    if (chr->log_fd >= 0 && n > 0) {
        (void)!write(chr->log_fd, buf, n);
    }
    return n;
}

int qemu_chr_fe_printf(CharBackend *be, const char *fmt, ...)
{
    va_list ap;
    char *s;
    int ret;

    va_start(ap, fmt);
    s = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    ret = qemu_chr_fe_write(be, (const uint8_t *)s, strlen(s));
    g_free(s);
    return ret;
}

void qemu_chr_fe_accept_input(CharBackend *be)
{
    if (be->chr) {
        chr_update_input(be->chr);
    }
}

void qemu_chr_fe_set_output_limit(CharBackend *be, size_t limit)
{
    if (be->chr) {
        be->chr->out_limit = limit;
    }
}

bool qemu_chr_fe_backend_connected(const CharBackend *be)
{
    /* QEMU's meaning: a chardev is attached (not: a client is there). */
    return be->chr != NULL;
}

int qemu_chr_fe_write_room(CharBackend *be)
{
    Chardev *chr = be->chr;

    if (!chr || !chr->cls->write_room) {
        return INT_MAX;
    }
    return chr->cls->write_room(chr);
}

void qemu_chr_fe_set_write_ready(CharBackend *be, void (*ready)(void *))
{
    be->write_ready = ready;
}

void qemu_chr_fe_set_open(CharBackend *be, bool open)
{
    be->open_explicit = true;
    be->fe_open = open;
}

void qemu_chr_fe_disconnect(CharBackend *be)
{
    Chardev *chr = be->chr;

    if (chr && chr->cls->disconnect) {
        chr->cls->disconnect(chr);
    }
}
