/*
 * -drive and -blockdev (block/blockdev.c), called by the command line's
 * build step before the machine is made.
 */
#ifndef BLOCK_BLOCKDEV_H
#define BLOCK_BLOCKDEV_H

#include <stdbool.h>

#include "qemu/error.h"
#include "qemu/option.h"

/*
 * One -drive; *index numbers the drives that get an automatic id. An
 * if=virtio drive returns its id in *virtio_id (g_free it), for a
 * virtio-blk-pci device.
 */
bool drive_new(const QemuOpts *opts, unsigned *index, char **virtio_id,
               Error **errp);
bool blockdev_new(const QemuOpts *opts, Error **errp);

#endif
