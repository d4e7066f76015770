/*
 * The bootindex registry (include/hw/boot-device.h): entries kept sorted
 * by index, each holding its device and suffix; the list is built when
 * a board asks for it (at machine start and at each reset), so the paths
 * are those of the devices' final slots.
 */
#include <string.h>

#include "hw/boot-device.h"
#include "hw/qdev.h"

typedef struct BootDevice {
    int32_t bootindex;
    DeviceState *dev;
    char *suffix;
} BootDevice;

static GArray *boot_devices;    /* of BootDevice, by ascending bootindex */

bool boot_device_add(int32_t bootindex, DeviceState *dev, const char *suffix,
                     Error **errp)
{
    BootDevice entry = { bootindex, dev, g_strdup(suffix) };
    guint i;

    if (bootindex < 0) {
        g_free(entry.suffix);
        return true;
    }
    if (!boot_devices) {
        boot_devices = g_array_new(false, false, sizeof(BootDevice));
    }
    for (i = 0; i < boot_devices->len; i++) {
        const BootDevice *b = &g_array_index(boot_devices, BootDevice, i);

        if (b->bootindex == bootindex) {
            error_setg(errp, "The bootindex %d has already been used",
                       bootindex);
            g_free(entry.suffix);
            return false;
        }
        if (b->bootindex > bootindex) {
            break;
        }
    }
    g_array_insert_val(boot_devices, i, entry);
    return true;
}

void boot_device_del(DeviceState *dev)
{
    for (guint i = 0; boot_devices && i < boot_devices->len; i++) {
        BootDevice *b = &g_array_index(boot_devices, BootDevice, i);

        if (b->dev == dev) {
            g_free(b->suffix);
            g_array_remove_index(boot_devices, i);
            return;
        }
    }
}

char *boot_device_list(bool strict, size_t *len)
{
    GString *list;

    if (!boot_devices || !boot_devices->len) {
        *len = 0;
        return NULL;
    }
    list = g_string_new(NULL);
    for (guint i = 0; i < boot_devices->len; i++) {
        const BootDevice *b = &g_array_index(boot_devices, BootDevice, i);
        char *path = qdev_fw_dev_path(b->dev);

        g_string_append_printf(list, "%s%s\n", path,
                               b->suffix ? b->suffix : "");
        g_free(path);
    }
    if (strict) {
        g_string_append(list, "HALT\n");
    }
    /* The last newline becomes the terminating NUL. */
    list->str[list->len - 1] = '\0';
    *len = list->len;
    return g_string_free(list, false);
}
