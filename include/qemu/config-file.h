/*
 * QEMU's -readconfig file format (util/config-file.c).
 */
#ifndef QEMU_CONFIG_FILE_H
#define QEMU_CONFIG_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include <glib.h>

#include "qemu/error.h"

/* One [group] or [group "id"] and its key = "value" lines. */
typedef struct ConfigGroup {
    char *name;
    char *id;           /* NULL: the header had no "id" */
    GPtrArray *keys;    /* of char *; a repeated key keeps its last value */
    GPtrArray *values;  /* of char *, parallel to keys */
    unsigned line;      /* the file's last key line when the group ended */
} ConfigGroup;

/*
 * Called for each group once it is complete (at the next header or the
 * end of the text). The current location is set to the last key line
 * read so far, or cleared when there was none, as QEMU reports it.
 */
typedef bool (*ConfigGroupFn)(const ConfigGroup *group, void *opaque,
                              Error **errp);

/*
 * Parse text (len bytes, need not be NUL-terminated) read from fname.
 * A line the format does not allow fails with the location set to it.
 */
bool config_file_parse(const char *text, size_t len, const char *fname,
                       ConfigGroupFn fn, void *opaque, Error **errp);

#endif
