/*
 * The devices firmware may boot from, by their bootindex property, and
 * the "bootorder" list a board hands to the firmware (SeaBIOS reads it
 * from fw_cfg): one device path per line in ascending bootindex order,
 * "HALT" as the last line under -boot strict=on, the whole list ending
 * in one NUL; no bytes at all when no device has a bootindex. A device
 * path is the OpenFirmware-style path of the device as QEMU writes it
 * (include/hw/qdev.h qdev_fw_dev_path()) plus the device's own suffix,
 * e.g. "/pci@i0cf8/scsi@4/disk@0,0" for virtio-blk-pci in slot 4.
 */
#ifndef HW_BOOT_DEVICE_H
#define HW_BOOT_DEVICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "qemu/error.h"

struct DeviceState;

/*
 * Register dev at bootindex (a negative index: not bootable, nothing is
 * registered); an index another device holds is refused with QEMU's
 * words. suffix follows the device's path ("/disk@0,0").
 */
bool boot_device_add(int32_t bootindex, struct DeviceState *dev,
                     const char *suffix, Error **errp);
/* At unrealize: forget dev (nothing happens if it was not registered). */
void boot_device_del(struct DeviceState *dev);
/* The list as described above; *len is its size in bytes (0: NULL). */
char *boot_device_list(bool strict, size_t *len);

#endif
