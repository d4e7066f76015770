/*
 * -chardev null: output vanishes, input never comes.
 */
#include "chardev-internal.h"

static bool null_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    /* No fds: chr_fd_write() discards, and QEMU never opens it either. */
    return true;
}

const ChardevClass chardev_null_class = {
    .name = "null",
    .instance_size = sizeof(Chardev),
    .open = null_open,
};
