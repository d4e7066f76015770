/*
 * -object secret: a key or password handed over by file or inline, for
 * the parts that need one (libvirt always passes its master key this
 * way). Listed at /objects/ID.
 */
#ifndef SYSTEM_SECRET_H
#define SYSTEM_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qemu/option.h"

/* The -object secret properties, for the command-line check. */

/*
 * Make the secret: data=TEXT or file=PATH (exactly one), decoded from
 * format=raw (default) or base64.
 */
bool secret_create(const QemuOpts *opts, Error **errp);
/* The secret's bytes, or NULL (with an error) when there is no such id. */
const uint8_t *secret_lookup(const char *id, size_t *len, Error **errp);
/* object-del: false when there is no secret id. */
bool secret_delete(const char *id);
void secrets_cleanup(void);

#endif
