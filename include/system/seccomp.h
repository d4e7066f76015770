/*
 * -sandbox: a seccomp system-call filter on the whole process, in
 * QEMU's groups. Only system/seccomp.c knows whether libseccomp is
 * there (HAVE_SECCOMP).
 */
#ifndef SYSTEM_SECCOMP_H
#define SYSTEM_SECCOMP_H

#include <stdbool.h>

#include "qemu/error.h"
#include "qemu/option.h"

/* -sandbox's keys, for the option parser and query-command-line-options. */
extern const QemuOptDesc sandbox_opts[];

/*
 * Check -sandbox on|off[,obsolete=allow|deny][,elevateprivileges=
 * allow|deny|children][,spawn=allow|deny][,resourcecontrol=allow|deny]
 * and remember it; *enable says whether a filter is wanted.
 */
bool seccomp_parse(const QemuOpts *opts, bool *enable, Error **errp);
/* Install the filter -sandbox asked for (nothing for off). */
bool seccomp_install(Error **errp);
/* Whether this build can install one. */
bool seccomp_available(void);

#endif
