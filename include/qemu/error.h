/*
 * Error reporting: Error objects propagated through Error **errp inside
 * the emulator, and one-line reports at the edge.
 */
#ifndef QEMU_ERROR_H
#define QEMU_ERROR_H

#include <stdbool.h>
#include <glib.h>

typedef struct Error Error;

/* The QMP error classes a caller may need to distinguish. */
typedef enum ErrorClass {
    ERROR_CLASS_GENERIC_ERROR,
    ERROR_CLASS_COMMAND_NOT_FOUND,
    ERROR_CLASS_DEVICE_NOT_ACTIVE,
    ERROR_CLASS_DEVICE_NOT_FOUND,
    ERROR_CLASS_KVM_MISSING_CAP,
} ErrorClass;

void error_setg(Error **errp, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void error_setg_errno(Error **errp, int os_errno, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
void error_set(Error **errp, ErrorClass cls, const char *fmt, ...)
    G_GNUC_PRINTF(3, 4);
void error_prepend(Error **errp, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
void error_propagate(Error **dst_errp, Error *local_err);
const char *error_get_pretty(const Error *err);
ErrorClass error_get_class(const Error *err);
void error_free(Error *err);
/* Free *errp and set it to NULL; no-op when errp or *errp is NULL. */
void error_free_or_abort(Error **errp);

/*
 * Location of the command-line option being handled; error_report()
 * prefixes it ("-m 512Q: ..."). A NULL option clears it.
 */
void loc_set_cmdline(const char *opt, const char *arg);
/* A line of a file (-readconfig): "prog:FILE:LINE: message". */
void loc_set_file(const char *file, unsigned line);
void loc_clear(void);
/* Saved locations, so a later stage can report against an option. */
typedef struct Location {
    char *opt;      /* "-m", including the dash as the user typed it */
    char *arg;      /* its argument, or NULL */
    char *file;     /* or a file and line, when opt is NULL */
    unsigned line;
} Location;
void loc_save(Location *loc);
void loc_restore(const Location *loc);
void loc_free(Location *loc);

/* -msg timestamp=on and guest-name=on */
void error_report_set_timestamp(bool on);
void error_report_set_guest_name(const char *name);

void error_report(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void warn_report(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
void info_report(const char *fmt, ...) G_GNUC_PRINTF(1, 2);
/* Report err's message at the current location and free it. */
void error_report_err(Error *err);
void warn_report_err(Error *err);

/* The program name used as prefix, "qemu-system-x86_64". */
extern const char *error_prog_name;

#endif
