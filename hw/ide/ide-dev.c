/*
 * The drives on an IDE bus: ide-hd (an ATA disk on a backend, drive=)
 * and ide-cd (an ATAPI CD-ROM; without drive= it is an empty one), at
 * unit 0 (master) or 1 (slave) of bus ide.N, with QEMU's properties and
 * messages; and the board's helper that gives each -drive if=ide its
 * device. A bootable drive's bootorder entry is
 * "/pci@i0cf8/ide@1,1/drive@CHANNEL/disk@UNIT".
 */
#include <string.h>

#include "hw/block/block-qmp.h"
#include "hw/boot-device.h"
#include "ide-internal.h"
#include "vmstate/vmstate.h"

typedef struct IDEDevice {
    DeviceState qdev;
    char *drive;
    char *serial;
    char *model;
    char *version;
    int32_t unit;               /* -1: the first free one */
    int32_t bootindex;
    uint32_t cyls, heads, secs;
    bool share_rw;
    bool is_cd;
    IDEState *s;
} IDEDevice;

/* --- the CD-ROM's tray, as the block layer's QMP commands move it --- */

static void ide_cd_change_media_cb(void *opaque, bool load)
{
    ide_atapi_media_changed(opaque, load);
}

static void ide_cd_eject_request_cb(void *opaque, bool force)
{
    ide_atapi_eject_request(opaque, force);
}

static bool ide_cd_is_tray_open(void *opaque)
{
    return ((IDEState *)opaque)->tray_open;
}

static bool ide_cd_is_medium_locked(void *opaque)
{
    return ((IDEState *)opaque)->tray_locked;
}

static const BlockDevOps ide_cd_block_ops = {
    .change_media_cb = ide_cd_change_media_cb,
    .eject_request_cb = ide_cd_eject_request_cb,
    .is_tray_open = ide_cd_is_tray_open,
    .is_medium_locked = ide_cd_is_medium_locked,
};

static bool ide_bus_full(const BusState *b)
{
    const IDEBus *bus = (const IDEBus *)b;

    return bus->ifs[0].dev && bus->ifs[1].dev;
}

/* Without bus=: the first IDE bus with a free unit (QEMU's search). */
static IDEBus *ide_dev_bus(IDEDevice *d, Error **errp)
{
    if (!d->qdev.bus) {
        error_setg(errp, "No 'IDE' bus found for device '%s'",
                   d->qdev.dc->name);
        return NULL;
    }
    if (d->unit < 0 && ide_bus_full(d->qdev.bus)) {
        for (int i = 0; i < IDE_NUM_BUSES; i++) {
            g_autofree char *name = g_strdup_printf("ide.%d", i);
            BusState *b = qbus_find(name);

            if (b && !strcmp(b->type, BUS_TYPE_IDE) && !ide_bus_full(b)) {
                d->qdev.bus = b;
                break;
            }
        }
    }
    return (IDEBus *)d->qdev.bus;
}

static bool ide_dev_realize(DeviceState *dev, Error **errp)
{
    IDEDevice *d = (IDEDevice *)dev;
    IDEBus *bus = ide_dev_bus(d, errp);
    BlockBackend *blk;
    IDEState *s;
    unsigned perm, shared;
    const char *suffix;

    if (!bus) {
        return false;
    }
    if (d->unit < 0) {
        d->unit = bus->ifs[0].dev ? 1 : 0;
    }
    if (d->unit >= IDE_NUM_UNITS) {
        error_setg(errp, "Can't create IDE unit %d, bus supports only %d "
                   "units", d->unit, IDE_NUM_UNITS);
        return false;
    }
    s = &bus->ifs[d->unit];
    if (s->dev) {
        error_setg(errp, "IDE unit %d is in use", d->unit);
        return false;
    }
    if (!d->drive) {
        if (!d->is_cd) {
            error_setg(errp, "No drive specified");
            return false;
        }
        blk = blk_new_empty(NULL, errp);
    } else {
        blk = blk_find_for_device(d->drive);
        if (!blk) {
            error_setg(errp, "Property '%s.drive' can't find value '%s'",
                       dev->dc->name, d->drive);
            return false;
        }
    }
    if (!blk) {
        return false;
    }
    if (!d->is_cd && !blk_is_inserted(blk)) {
        error_setg(errp, "Device needs media, but drive is empty");
        return false;
    }
    perm = BLK_PERM_CONSISTENT_READ |
           (d->is_cd || blk_is_read_only(blk) ? 0 : BLK_PERM_WRITE);
    shared = BLK_PERM_ALL & ~(d->share_rw ? 0 : BLK_PERM_WRITE);
    if (!blk_attach(blk, dev, perm, shared, errp)) {
        return false;
    }
    suffix = d->unit ? "/disk@1" : "/disk@0";
    if (!boot_device_add(d->bootindex, dev, suffix, errp)) {
        blk_detach(blk);
        return false;
    }
    s->cylinders = d->cyls;
    s->heads = d->heads;
    s->sectors = d->secs;
    if (d->cyls && (!d->heads || !d->secs || d->heads > 16 ||
                    d->secs > 255 || d->cyls > 65535)) {
        error_setg(errp, "invalid physical CHS geometry (cyls 1-65535, "
                   "heads 1-16, secs 1-255)");
        boot_device_del(dev);
        blk_detach(blk);
        return false;
    }
    if (!d->cyls) {
        s->cylinders = 0;
    }
    g_snprintf(s->serial, sizeof(s->serial), "%s", d->serial ? d->serial
               : "");
    if (!d->serial) {
        /* QEMU's serial: QM and the drive's number from 1. */
        g_snprintf(s->serial, sizeof(s->serial), "QM%05d",
                   bus->bus_id * IDE_NUM_UNITS + d->unit + 1);
    }
    g_snprintf(s->model, sizeof(s->model), "%s", d->model ? d->model
               : d->is_cd ? "QEMU DVD-ROM" : "QEMU HARDDISK");
    g_snprintf(s->version, sizeof(s->version), "%s", d->version);
    ide_drive_attach(s, dev, blk, d->is_cd);
    d->heads = d->cyls ? d->heads : s->heads;
    d->secs = d->cyls ? d->secs : s->sectors;
    d->cyls = s->cylinders;
    if (d->is_cd) {
        blk_set_dev_ops(blk, &ide_cd_block_ops, s);
    }
    blk_iostatus_enable(blk);
    d->s = s;
    return true;
}

static void ide_dev_unrealize(DeviceState *dev)
{
    IDEDevice *d = (IDEDevice *)dev;
    BlockBackend *blk = d->s->blk;

    boot_device_del(dev);
    ide_drive_detach(d->s);
    blk_detach(blk);
}

static const Property ide_hd_props[] = {
    DEFINE_PROP_INT32("bootindex", IDEDevice, bootindex, -1),
    DEFINE_PROP_UINT32("cyls", IDEDevice, cyls, 0),
    DEFINE_PROP_STRING("drive", IDEDevice, drive),
    DEFINE_PROP_UINT32("heads", IDEDevice, heads, 0),
    DEFINE_PROP_STRING("model", IDEDevice, model),
    DEFINE_PROP_UINT32("secs", IDEDevice, secs, 0),
    DEFINE_PROP_STRING("serial", IDEDevice, serial),
    DEFINE_PROP_BOOL("share-rw", IDEDevice, share_rw, false),
    DEFINE_PROP_INT32("unit", IDEDevice, unit, -1),
    { .name = "ver", .type = PROP_TYPE_STRING,
      .offset = offsetof(IDEDevice, version), .defstr = "2.5+" },
    PROP_END,
};

static const Property ide_cd_props[] = {
    DEFINE_PROP_INT32("bootindex", IDEDevice, bootindex, -1),
    DEFINE_PROP_STRING("drive", IDEDevice, drive),
    DEFINE_PROP_STRING("model", IDEDevice, model),
    DEFINE_PROP_STRING("serial", IDEDevice, serial),
    DEFINE_PROP_BOOL("share-rw", IDEDevice, share_rw, false),
    DEFINE_PROP_INT32("unit", IDEDevice, unit, -1),
    { .name = "ver", .type = PROP_TYPE_STRING,
      .offset = offsetof(IDEDevice, version), .defstr = "2.5+" },
    PROP_END,
};

static bool ide_hd_realize(DeviceState *dev, Error **errp)
{
    ((IDEDevice *)dev)->is_cd = false;
    return ide_dev_realize(dev, errp);
}

static bool ide_cd_realize(DeviceState *dev, Error **errp)
{
    ((IDEDevice *)dev)->is_cd = true;
    return ide_dev_realize(dev, errp);
}

/*
 * The drive's state travels with its controller (piix3-ide, the bus's
 * registers and transfer); the drive itself has an empty table, so a VM
 * with IDE drives migrates.
 */
static const VMStateDescription vmstate_ide_drive = {
    .name = "ide-drive",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_END
    },
};

static const DeviceClass ide_hd_device_class = {
    .name = "ide-hd",
    .parent = "ide-device",
    .desc = "virtual IDE disk",
    .category = "Storage devices",
    .instance_size = sizeof(IDEDevice),
    .props = ide_hd_props,
    .vmsd = &vmstate_ide_drive,
    .user_creatable = true,
    .realize = ide_hd_realize,
    .unrealize = ide_dev_unrealize,
};

static const DeviceClass ide_cd_device_class = {
    .name = "ide-cd",
    .parent = "ide-device",
    .desc = "virtual IDE CD-ROM",
    .category = "Storage devices",
    .instance_size = sizeof(IDEDevice),
    .props = ide_cd_props,
    .vmsd = &vmstate_ide_drive,
    .user_creatable = true,
    .realize = ide_cd_realize,
    .unrealize = ide_dev_unrealize,
};

DEVICE_CLASS_REGISTER(ide_hd_device_class)
DEVICE_CLASS_REGISTER(ide_cd_device_class)

/* --- the board's -drive if=ide devices --- */

typedef struct CreateDrives {
    Error **errp;
    bool ok;
} CreateDrives;

static void create_drive(BlockBackend *blk, void *opaque)
{
    CreateDrives *c = opaque;
    g_autofree char *bus_name = NULL;
    int bus, unit;
    bool cdrom;
    char unit_str[4];
    DeviceState *dev;

    if (!c->ok || !blk_is_ide(blk, &bus, &unit, &cdrom)) {
        return;
    }
    bus_name = g_strdup_printf("ide.%d", bus);
    if (bus >= IDE_NUM_BUSES || !qbus_find(bus_name)) {
        error_setg(c->errp, "machine type does not support if=ide,bus=%d,"
                   "unit=%d", bus, unit);
        c->ok = false;
        return;
    }
    dev = qdev_new(cdrom ? "ide-cd" : "ide-hd", c->errp);
    g_snprintf(unit_str, sizeof(unit_str), "%d", unit);
    if (!dev || !qdev_prop_set(dev, "drive", blk_name(blk), c->errp) ||
        !qdev_prop_set(dev, "unit", unit_str, c->errp)) {
        if (dev) {
            qdev_free_unrealized(dev);
        }
        c->ok = false;
        return;
    }
    dev->bus = qbus_find(bus_name);
    c->ok = qdev_realize(dev, c->errp);
}

bool ide_create_drives(Error **errp)
{
    CreateDrives c = { errp, true };

    blk_foreach(create_drive, &c);
    return c.ok;
}
