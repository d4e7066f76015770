/*
 * Error objects and the one-line reports the user sees.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "qemu/error.h"

struct Error {
    char *msg;
    ErrorClass cls;
};

const char *error_prog_name = "qemu-system-x86_64";

static Location cur_loc;
static bool msg_timestamp;
static char *msg_guest_name;

static void error_setv(Error **errp, ErrorClass cls, int os_errno,
                       const char *fmt, va_list ap)
{
    Error *err;

    if (!errp) {
        return;
    }
    /* The first error wins: a caller that sets twice has a bug. */
    g_assert(*errp == NULL);
    err = g_new0(Error, 1);
    err->cls = cls;
    err->msg = g_strdup_vprintf(fmt, ap);
    if (os_errno) {
        char *m = g_strdup_printf("%s: %s", err->msg, g_strerror(os_errno));
        g_free(err->msg);
        err->msg = m;
    }
    *errp = err;
}

void error_setg(Error **errp, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    error_setv(errp, ERROR_CLASS_GENERIC_ERROR, 0, fmt, ap);
    va_end(ap);
}

void error_setg_errno(Error **errp, int os_errno, const char *fmt, ...)
{
    va_list ap;
    int saved = errno;

    va_start(ap, fmt);
    error_setv(errp, ERROR_CLASS_GENERIC_ERROR, os_errno, fmt, ap);
    va_end(ap);
    errno = saved;
}

void error_set(Error **errp, ErrorClass cls, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    error_setv(errp, cls, 0, fmt, ap);
    va_end(ap);
}

void error_prepend(Error **errp, const char *fmt, ...)
{
    va_list ap;
    char *prefix, *m;

    if (!errp || !*errp) {
        return;
    }
    va_start(ap, fmt);
    prefix = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    m = g_strconcat(prefix, (*errp)->msg, NULL);
    g_free(prefix);
    g_free((*errp)->msg);
    (*errp)->msg = m;
}

void error_propagate(Error **dst_errp, Error *local_err)
{
    if (!local_err) {
        return;
    }
    if (dst_errp && !*dst_errp) {
        *dst_errp = local_err;
    } else {
        error_free(local_err);
    }
}

const char *error_get_pretty(const Error *err)
{
    return err->msg;
}

ErrorClass error_get_class(const Error *err)
{
    return err->cls;
}

void error_free(Error *err)
{
    if (err) {
        g_free(err->msg);
        g_free(err);
    }
}

void error_free_or_abort(Error **errp)
{
    if (errp && *errp) {
        error_free(*errp);
        *errp = NULL;
    }
}

void loc_set_cmdline(const char *opt, const char *arg)
{
    loc_clear();
    cur_loc.opt = g_strdup(opt);
    cur_loc.arg = g_strdup(arg);
}

void loc_set_file(const char *file, unsigned line)
{
    loc_clear();
    cur_loc.file = g_strdup(file);
    cur_loc.line = line;
}

void loc_clear(void)
{
    loc_free(&cur_loc);
}

void loc_save(Location *loc)
{
    loc->opt = g_strdup(cur_loc.opt);
    loc->arg = g_strdup(cur_loc.arg);
    loc->file = g_strdup(cur_loc.file);
    loc->line = cur_loc.line;
}

void loc_restore(const Location *loc)
{
    if (loc->file) {
        loc_set_file(loc->file, loc->line);
    } else {
        loc_set_cmdline(loc->opt, loc->arg);
    }
}

void loc_free(Location *loc)
{
    g_clear_pointer(&loc->opt, g_free);
    g_clear_pointer(&loc->arg, g_free);
    g_clear_pointer(&loc->file, g_free);
    loc->line = 0;
}

void error_report_set_timestamp(bool on)
{
    msg_timestamp = on;
}

void error_report_set_guest_name(const char *name)
{
    g_free(msg_guest_name);
    msg_guest_name = g_strdup(name);
}

static void vreport(const char *kind, const char *fmt, va_list ap)
{
    GString *line = g_string_new(NULL);

    if (msg_timestamp) {
        GDateTime *now = g_date_time_new_now_utc();
        char *ts = g_date_time_format(now, "%Y-%m-%dT%H:%M:%S");

        g_string_append_printf(line, "%s.%06dZ ", ts,
                               g_date_time_get_microsecond(now));
        g_free(ts);
        g_date_time_unref(now);
    }
    if (msg_guest_name) {
        g_string_append_printf(line, "%s ", msg_guest_name);
    }
    /* QEMU writes a file location without a blank after the name. */
    g_string_append_printf(line, "%s:", error_prog_name);
    if (cur_loc.file) {
        g_string_append_printf(line, "%s:%u:", cur_loc.file, cur_loc.line);
    }
    g_string_append_c(line, ' ');
    if (cur_loc.opt) {
        g_string_append(line, cur_loc.opt);
        if (cur_loc.arg) {
            g_string_append_printf(line, " %s", cur_loc.arg);
        }
        g_string_append(line, ": ");
    }
    g_string_append(line, kind);
    g_string_append_vprintf(line, fmt, ap);
    g_string_append_c(line, '\n');
    fputs(line->str, stderr);
    fflush(stderr);
    g_string_free(line, TRUE);
}

void error_report(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport("", fmt, ap);
    va_end(ap);
}

void warn_report(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport("warning: ", fmt, ap);
    va_end(ap);
}

void info_report(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport("info: ", fmt, ap);
    va_end(ap);
}

void error_report_err(Error *err)
{
    error_report("%s", error_get_pretty(err));
    error_free(err);
}

void warn_report_err(Error *err)
{
    warn_report("%s", error_get_pretty(err));
    error_free(err);
}
