/*
 * Entropy backends for virtio-rng: -object rng-random,id=ID[,filename=F]
 * reads a file or device (default /dev/urandom) without blocking, from
 * the main loop; -object rng-builtin,id=ID uses getrandom(). A device
 * asks for up to n bytes and is called back with what there is (at
 * least one byte); requests are served in order. Listed at /objects/ID.
 */
#ifndef SYSTEM_RNG_H
#define SYSTEM_RNG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qemu/option.h"

typedef struct RngBackend RngBackend;
typedef void RngReceive(void *opaque, const uint8_t *buf, size_t len);

/* The -object properties, for the command-line check. */

/* -object rng-random / rng-builtin: open it now (errors as QEMU's). */
bool rng_backend_create(const QemuOpts *opts, Error **errp);
RngBackend *rng_backend_find(const char *id);
/* A device uses it (in_use true) or no longer (false). */
void rng_backend_set_in_use(RngBackend *rng, bool in_use);
/*
 * object-del: false if id is no rng backend; true with *errp set if a
 * device uses it, else freed.
 */
bool rng_backend_delete(const char *id, Error **errp);
/* A device's own rng-builtin when it names no backend; free it after. */
RngBackend *rng_backend_new_builtin(void);
void rng_backend_free(RngBackend *rng);
/*
 * Ask for up to len (> 0) bytes; receive runs once, maybe before this
 * returns (rng-builtin), else from the main loop when the file has data.
 */
void rng_backend_request(RngBackend *rng, size_t len, RngReceive *receive,
                         void *opaque);
/* Drop the requests opaque made (its device goes away or resets). */
void rng_backend_cancel(RngBackend *rng, void *opaque);
void rng_backends_cleanup(void);

#endif
