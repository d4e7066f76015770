/*
 * fw_cfg on the PC's I/O ports, as QEMU's fw_cfg_io with DMA.
 *
 * Port 0x510: a 16-bit write selects an item (offset back to 0); an
 * 8-bit read of 0x510 or 0x511 returns the next byte of the item, 0 past
 * its end. Byte writes to the data port are ignored (QEMU dropped that
 * interface in 2.4). Ports 0x514-0x51b: the DMA address, big-endian, as
 * two 32-bit halves (a write to the low half at 0x518 starts the
 * transfer) or one 64-bit write; reads give the signature "QEMU CFG".
 *
 * A DMA access is a guest structure { be32 control; be32 length;
 * be64 address; }: SELECT picks control >> 16 first, then READ copies,
 * SKIP advances, WRITE fails (no item is writable); past the item's end a
 * READ fills zeros. When done the device stores 0 in control, or
 * ERROR if guest memory was missing.
 */
#include <string.h>

#include "hw/nvram/fw_cfg.h"
#include "hw/qdev.h"
#include "qemu/log.h"
#include "system/memory.h"
#include "system/system.h"
#include "vmstate/vmstate.h"

#define FW_CFG_MAX_ENTRY    (FW_CFG_FILE_FIRST + FW_CFG_FILE_SLOTS)
#define FW_CFG_IO_SIZE      2
#define FW_CFG_DMA_SIZE     8
#define FW_CFG_DIR_ENTRY    64      /* be32 size, be16 select, be16, name */

typedef struct FWCfgEntry {
    uint8_t *data;
    uint32_t len;
} FWCfgEntry;

struct FWCfgState {
    DeviceState parent;
    MemoryRegion io;
    MemoryRegion dma_io;
    /* [0]: generic keys, [1]: FW_CFG_ARCH_LOCAL keys. */
    FWCfgEntry entries[2][FW_CFG_MAX_ENTRY];
    /* Names of the files at FW_CFG_FILE_FIRST + i, sorted. */
    char files[FW_CFG_FILE_SLOTS][FW_CFG_MAX_FILE_PATH];
    unsigned nb_files;
    uint16_t cur_entry;
    uint32_t cur_offset;
    uint64_t dma_addr;
};

/* The selected item, or NULL when the selector is invalid. */
static FWCfgEntry *fw_cfg_cur(FWCfgState *s)
{
    if (s->cur_entry == FW_CFG_INVALID) {
        return NULL;
    }
    return &s->entries[!!(s->cur_entry & FW_CFG_ARCH_LOCAL)]
                      [s->cur_entry & FW_CFG_ENTRY_MASK];
}

static void fw_cfg_select(FWCfgState *s, uint16_t key)
{
    s->cur_offset = 0;
    if ((key & FW_CFG_ENTRY_MASK) >= FW_CFG_MAX_ENTRY) {
        s->cur_entry = FW_CFG_INVALID;
    } else {
        s->cur_entry = key;
    }
}

static void fw_cfg_set_entry(FWCfgState *s, uint16_t key, void *data,
                             uint32_t len)
{
    FWCfgEntry *e = &s->entries[!!(key & FW_CFG_ARCH_LOCAL)]
                               [key & FW_CFG_ENTRY_MASK];

    g_free(e->data);
    e->data = data;
    e->len = len;
}

void fw_cfg_add_bytes(FWCfgState *s, uint16_t key, void *data, size_t len)
{
    if ((key & FW_CFG_ENTRY_MASK) >= FW_CFG_FILE_FIRST ||
        (key & FW_CFG_WRITE_CHANNEL) || len > UINT32_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: cannot add item 0x%x of "
                      "%zu bytes\n", key, len);
        g_free(data);
        return;
    }
    fw_cfg_set_entry(s, key, data, len);
}

void fw_cfg_add_i16(FWCfgState *s, uint16_t key, uint16_t value)
{
    uint16_t le = GUINT16_TO_LE(value);

    fw_cfg_add_bytes(s, key, g_memdup2(&le, sizeof(le)), sizeof(le));
}

void fw_cfg_add_i32(FWCfgState *s, uint16_t key, uint32_t value)
{
    uint32_t le = GUINT32_TO_LE(value);

    fw_cfg_add_bytes(s, key, g_memdup2(&le, sizeof(le)), sizeof(le));
}

void fw_cfg_add_i64(FWCfgState *s, uint16_t key, uint64_t value)
{
    uint64_t le = GUINT64_TO_LE(value);

    fw_cfg_add_bytes(s, key, g_memdup2(&le, sizeof(le)), sizeof(le));
}

/* FW_CFG_FILE_DIR: be32 count, then one 64-byte record per file. */
static void fw_cfg_update_dir(FWCfgState *s)
{
    size_t len = 4 + (size_t)s->nb_files * FW_CFG_DIR_ENTRY;
    uint8_t *dir = g_malloc0(len);
    uint32_t count = GUINT32_TO_BE(s->nb_files);

    memcpy(dir, &count, 4);
    for (unsigned i = 0; i < s->nb_files; i++) {
        uint8_t *rec = dir + 4 + i * FW_CFG_DIR_ENTRY;
        uint32_t size = GUINT32_TO_BE(
            s->entries[0][FW_CFG_FILE_FIRST + i].len);
        uint16_t select = GUINT16_TO_BE(FW_CFG_FILE_FIRST + i);

        memcpy(rec, &size, 4);
        memcpy(rec + 4, &select, 2);
        memcpy(rec + 8, s->files[i], FW_CFG_MAX_FILE_PATH);
    }
    fw_cfg_set_entry(s, FW_CFG_FILE_DIR, dir, len);
}

void fw_cfg_add_file(FWCfgState *s, const char *name, void *data,
                     size_t len)
{
    unsigned i;
    int cmp = 1;

    if (strlen(name) >= FW_CFG_MAX_FILE_PATH || len > UINT32_MAX) {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: cannot add file '%s' of "
                      "%zu bytes\n", name, len);
        g_free(data);
        return;
    }
    for (i = 0; i < s->nb_files; i++) {
        cmp = strcmp(name, s->files[i]);
        if (cmp <= 0) {
            break;
        }
    }
    if (cmp != 0) {
        if (s->nb_files == FW_CFG_FILE_SLOTS) {
            qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: no slot left for file "
                          "'%s'\n", name);
            g_free(data);
            return;
        }
        /* Keep the directory sorted: later files move up one selector. */
        memmove(s->files[i + 1], s->files[i],
                (s->nb_files - i) * sizeof(s->files[0]));
        memmove(&s->entries[0][FW_CFG_FILE_FIRST + i + 1],
                &s->entries[0][FW_CFG_FILE_FIRST + i],
                (s->nb_files - i) * sizeof(FWCfgEntry));
        s->entries[0][FW_CFG_FILE_FIRST + i] = (FWCfgEntry){ 0 };
        memset(s->files[i], 0, sizeof(s->files[i]));
        strcpy(s->files[i], name);
        s->nb_files++;
    }
    fw_cfg_set_entry(s, FW_CFG_FILE_FIRST + i, data, len);
    fw_cfg_update_dir(s);
}

static uint64_t fw_cfg_io_read(void *opaque, uint64_t addr, unsigned size)
{
    FWCfgState *s = opaque;
    FWCfgEntry *e = fw_cfg_cur(s);

    if (size != 1) {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: %u-byte read of the data "
                      "port\n", size);
        return 0;
    }
    if (!e || s->cur_offset >= e->len) {
        return 0;
    }
    return e->data[s->cur_offset++];
}

static void fw_cfg_io_write(void *opaque, uint64_t addr, uint64_t value,
                            unsigned size)
{
    if (size == 2) {
        fw_cfg_select(opaque, value);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: write 0x%" G_GINT64_MODIFIER
                      "x to the data port ignored\n", value);
    }
}

static const MemoryRegionOps fw_cfg_io_ops = {
    .read = fw_cfg_io_read,
    .write = fw_cfg_io_write,
    .valid = { .min_access_size = 1, .max_access_size = 2 },
    .impl = { .min_access_size = 1, .max_access_size = 2 },
};

/* Write DMA status into the guest's control word, big-endian. */
static void fw_cfg_dma_status(uint64_t access, uint32_t control)
{
    uint32_t be = GUINT32_TO_BE(control);

    if (access > UINT64_MAX - sizeof(be) + 1) {
        return;
    }
    address_space_rw(&address_space_memory, access, &be, sizeof(be), true);
}

/* Guest memory [addr, addr + len) must not wrap around. */
static bool fw_cfg_dma_range_ok(uint64_t addr, uint64_t len)
{
    return len == 0 || addr <= UINT64_MAX - (len - 1);
}

static bool fw_cfg_dma_zero(uint64_t addr, uint64_t len)
{
    static const uint8_t zeros[4096];

    if (!fw_cfg_dma_range_ok(addr, len)) {
        return false;
    }
    while (len) {
        uint64_t chunk = MIN(len, sizeof(zeros));

        if (!address_space_rw(&address_space_memory, addr, (void *)zeros,
                              chunk, true)) {
            return false;
        }
        addr += chunk;
        len -= chunk;
    }
    return true;
}

static void fw_cfg_dma_transfer(FWCfgState *s)
{
    uint64_t access = s->dma_addr;
    uint8_t raw[16];
    uint32_t control, length;
    uint64_t address;
    bool read = false, write = false;
    FWCfgEntry *e;

    s->dma_addr = 0;
    if (!fw_cfg_dma_range_ok(access, sizeof(raw)) ||
        !address_space_rw(&address_space_memory, access, raw, sizeof(raw),
                          false)) {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: DMA access structure at "
                      "0x%" G_GINT64_MODIFIER "x is not in memory\n", access);
        fw_cfg_dma_status(access, FW_CFG_DMA_CTL_ERROR);
        return;
    }
    memcpy(&control, raw, 4);
    memcpy(&length, raw + 4, 4);
    memcpy(&address, raw + 8, 8);
    control = GUINT32_FROM_BE(control);
    length = GUINT32_FROM_BE(length);
    address = GUINT64_FROM_BE(address);

    if (control & FW_CFG_DMA_CTL_SELECT) {
        fw_cfg_select(s, control >> 16);
    }
    /* One operation per access; READ wins, then WRITE, then SKIP. */
    if (control & FW_CFG_DMA_CTL_READ) {
        read = true;
    } else if (control & FW_CFG_DMA_CTL_WRITE) {
        write = true;
    } else if (!(control & FW_CFG_DMA_CTL_SKIP)) {
        length = 0;
    }
    control = 0;
    e = fw_cfg_cur(s);

    if (write && length) {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: DMA write to read-only item "
                      "0x%x\n", s->cur_entry);
        control = FW_CFG_DMA_CTL_ERROR;
    } else if (length) {
        uint32_t avail = 0, n;

        if (e && s->cur_offset < e->len) {
            avail = e->len - s->cur_offset;
        }
        n = MIN(length, avail);
        if (read && n &&
            (!fw_cfg_dma_range_ok(address, n) ||
             !address_space_rw(&address_space_memory, address,
                               e->data + s->cur_offset, n, true))) {
            control = FW_CFG_DMA_CTL_ERROR;
        }
        s->cur_offset += n;
        /* Past the end the offset stays; a READ gets zeros. */
        if (!control && read && length > n &&
            (n > UINT64_MAX - address ||
             !fw_cfg_dma_zero(address + n, length - n))) {
            control = FW_CFG_DMA_CTL_ERROR;
        }
        if (control) {
            qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: DMA read to 0x%"
                          G_GINT64_MODIFIER "x+0x%x is not in memory\n",
                          address, length);
        }
    }
    fw_cfg_dma_status(access, control);
}

/* Reads return the signature's bytes at the offset, as QEMU's. */
static uint64_t fw_cfg_dma_read(void *opaque, uint64_t addr, unsigned size)
{
    uint64_t value = 0;

    for (unsigned i = 0; i < size && addr + i < FW_CFG_DMA_SIZE; i++) {
        uint8_t b = FW_CFG_DMA_SIGNATURE >> (8 * (7 - (addr + i)));

        value |= (uint64_t)b << (8 * i);
    }
    return value;
}

/*
 * The register is big-endian: the guest's outl(0x514, cpu_to_be32(hi))
 * arrives here as the bytes of hi in big-endian order.
 */
static void fw_cfg_dma_write(void *opaque, uint64_t addr, uint64_t value,
                             unsigned size)
{
    FWCfgState *s = opaque;

    if (size == 4 && addr == 0) {
        s->dma_addr = (uint64_t)GUINT32_SWAP_LE_BE((uint32_t)value) << 32;
    } else if (size == 4 && addr == 4) {
        s->dma_addr |= GUINT32_SWAP_LE_BE((uint32_t)value);
        fw_cfg_dma_transfer(s);
    } else if (size == 8 && addr == 0) {
        s->dma_addr = GUINT64_SWAP_LE_BE(value);
        fw_cfg_dma_transfer(s);
    } else {
        qemu_log_mask(LOG_GUEST_ERROR, "fw_cfg: %u-byte DMA address write "
                      "at offset %u ignored\n", size, (unsigned)addr);
    }
}

static const MemoryRegionOps fw_cfg_dma_ops = {
    .read = fw_cfg_dma_read,
    .write = fw_cfg_dma_write,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static void fw_cfg_free_entries(FWCfgState *s)
{
    for (int arch = 0; arch < 2; arch++) {
        for (int i = 0; i < FW_CFG_MAX_ENTRY; i++) {
            g_clear_pointer(&s->entries[arch][i].data, g_free);
            s->entries[arch][i].len = 0;
        }
    }
    s->nb_files = 0;
}

static bool fw_cfg_io_realize(DeviceState *dev, Error **errp)
{
    FWCfgState *s = (FWCfgState *)dev;

    memory_region_init_io(&s->io, "fwcfg", &fw_cfg_io_ops, s,
                          FW_CFG_IO_SIZE);
    memory_region_init_io(&s->dma_io, "fwcfg.dma", &fw_cfg_dma_ops, s,
                          FW_CFG_DMA_SIZE);
    if (!address_space_map_region(&address_space_io, &s->io,
                                  FW_CFG_IO_BASE, errp) ||
        !address_space_map_region(&address_space_io, &s->dma_io,
                                  FW_CFG_IO_DMA, errp)) {
        error_prepend(errp, "fw_cfg_io: ");
        memory_region_finalize(&s->io);
        memory_region_finalize(&s->dma_io);
        return false;
    }

    fw_cfg_add_bytes(s, FW_CFG_SIGNATURE, g_memdup2("QEMU", 4), 4);
    fw_cfg_add_i32(s, FW_CFG_ID, FW_CFG_VERSION | FW_CFG_VERSION_DMA);
    fw_cfg_add_bytes(s, FW_CFG_UUID, g_memdup2(qemu_uuid, 16), 16);
    fw_cfg_update_dir(s);
    return true;
}

static void fw_cfg_io_reset(DeviceState *dev)
{
    FWCfgState *s = (FWCfgState *)dev;

    fw_cfg_select(s, FW_CFG_SIGNATURE);
    s->dma_addr = 0;
}

static void fw_cfg_io_unrealize(DeviceState *dev)
{
    FWCfgState *s = (FWCfgState *)dev;

    memory_region_finalize(&s->io);
    memory_region_finalize(&s->dma_io);
    fw_cfg_free_entries(s);
}

/*
 * Migration: where the guest is in its read; the items are the same on
 * both sides (built from the same command line).
 */
static bool fw_cfg_entry_check(void *opaque, const VMStateField *f,
                               Error **errp)
{
    FWCfgState *s = opaque;

    if ((s->cur_entry & ~FW_CFG_ARCH_LOCAL) >= FW_CFG_MAX_ENTRY &&
        s->cur_entry != FW_CFG_INVALID) {
        error_setg(errp, "item %#x does not exist", s->cur_entry);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_fw_cfg = {
    .name = "fw_cfg_io",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U16(FWCfgState, cur_entry, .check = fw_cfg_entry_check),
        VMSTATE_U32(FWCfgState, cur_offset),
        VMSTATE_U64(FWCfgState, dma_addr),
        VMSTATE_END
    },
};
const DeviceClass fw_cfg_io_device_class = {
    .name = "fw_cfg_io",
    .parent = "sys-bus-device",
    .desc = "QEMU firmware configuration interface (port I/O and DMA)",
    .instance_size = sizeof(FWCfgState),
    .user_creatable = false,
    .realize = fw_cfg_io_realize,
    .reset = fw_cfg_io_reset,
    .vmsd = &vmstate_fw_cfg,
    .unrealize = fw_cfg_io_unrealize,
};

DEVICE_CLASS_REGISTER(fw_cfg_io_device_class)
