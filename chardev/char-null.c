/*
 * -chardev null: output vanishes, input never comes.
 */
#include "chardev-internal.h"

static bool null_open(Chardev *chr, const QemuOpts *opts, Error **errp)
{
    /* No output path: the core discards writes; QEMU opens nothing either. */
    return true;
}

static const ChardevClass chardev_null_class = {
    .name = "null",
    .instance_size = sizeof(Chardev),
    .open = null_open,
};

CHARDEV_CLASS_REGISTER(chardev_null_class)
