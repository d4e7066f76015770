/*
 * An IDE channel and the ATA command set of its disks (ATA/ATAPI-6):
 * the task file registers, IDENTIFY DEVICE, READ/WRITE SECTORS and
 * MULTIPLE (PIO), READ/WRITE DMA, their 48-bit EXT forms, READ VERIFY,
 * FLUSH CACHE, SET FEATURES, SET MULTIPLE MODE, INITIALIZE DEVICE
 * PARAMETERS (CHS), READ NATIVE MAX ADDRESS, the power commands, soft
 * reset and the signatures. Packet devices' commands are in atapi.c.
 *
 * Every address and count comes from the guest: a range beyond the
 * medium is refused with IDNF before the image is touched, a CHS
 * address outside the geometry too; PIO moves bytes of one buffer
 * (IDE_BUF_SIZE) only. Reads and writes run in the block layer's
 * threads with BSY set and complete in the main loop.
 */
#include <errno.h>
#include <string.h>

#include "hw/block/block-qmp.h"
#include "ide-internal.h"
#include "qemu/log.h"

/* ATA commands. */
#define WIN_NOP                 0x00
#define WIN_DEVICE_RESET        0x08
#define WIN_RECAL               0x10
#define WIN_READ                0x20
#define WIN_READ_ONCE           0x21
#define WIN_READ_EXT            0x24
#define WIN_READDMA_EXT         0x25
#define WIN_READ_NATIVE_MAX_EXT 0x27
#define WIN_MULTREAD_EXT        0x29
#define WIN_WRITE               0x30
#define WIN_WRITE_ONCE          0x31
#define WIN_WRITE_EXT           0x34
#define WIN_WRITEDMA_EXT        0x35
#define WIN_MULTWRITE_EXT       0x39
#define WIN_VERIFY              0x40
#define WIN_VERIFY_ONCE         0x41
#define WIN_VERIFY_EXT          0x42
#define WIN_SEEK                0x70
#define WIN_DIAGNOSE            0x90
#define WIN_SPECIFY             0x91
#define WIN_PACKETCMD           0xa0
#define WIN_PIDENTIFY           0xa1
#define WIN_MULTREAD            0xc4
#define WIN_MULTWRITE           0xc5
#define WIN_SETMULT             0xc6
#define WIN_READDMA             0xc8
#define WIN_READDMA_ONCE        0xc9
#define WIN_WRITEDMA            0xca
#define WIN_WRITEDMA_ONCE       0xcb
#define WIN_STANDBYNOW1         0xe0
#define WIN_IDLEIMMEDIATE       0xe1
#define WIN_STANDBY             0xe2
#define WIN_SETIDLE1            0xe3
#define WIN_CHECKPOWERMODE1     0xe5
#define WIN_SLEEPNOW1           0xe6
#define WIN_FLUSH_CACHE         0xe7
#define WIN_FLUSH_CACHE_EXT     0xea
#define WIN_IDENTIFY            0xec
#define WIN_SETFEATURES         0xef
#define WIN_READ_NATIVE_MAX     0xf8

/* A request in the block layer: stale once the drive moved on. */
typedef struct IDERequest {
    IDEState *s;
    unsigned generation;
    uint32_t sectors;
    struct iovec iov;
} IDERequest;

static IDERequest *ide_request(IDEState *s, uint32_t sectors, uint32_t len)
{
    IDERequest *r = g_new0(IDERequest, 1);

    r->s = s;
    r->generation = s->generation;
    r->sectors = sectors;
    r->iov.iov_base = s->buf;
    r->iov.iov_len = len;
    return r;
}

/* The request's drive, or NULL (freed) when it went stale. */
static IDEState *ide_request_end(IDERequest *r)
{
    IDEState *s = r->s;
    bool stale = r->generation != s->generation;

    if (stale) {
        g_free(r);
        return NULL;
    }
    return s;
}

/* INTRQ: the drive's pending interrupt, unless nIEN holds it back. */
static void ide_update_irq(IDEBus *bus)
{
    qemu_set_irq(bus->irq, bus->irq_level && !(bus->ctrl & IDE_CTRL_NIEN));
}

void ide_set_irq(IDEBus *bus)
{
    bus->bm.status |= BM_STATUS_INTR;
    bus->irq_level = true;
    ide_update_irq(bus);
}

static void ide_lower_irq(IDEBus *bus)
{
    bus->irq_level = false;
    ide_update_irq(bus);
}

void ide_transfer_start(IDEState *s, uint32_t len, bool out,
                        IDETransferFn *end)
{
    g_assert(len <= IDE_BUF_SIZE);
    s->data_pos = 0;
    s->data_end = len;
    s->data_out = out;
    s->end_transfer = end;
    s->status |= IDE_STAT_DRQ;
}

void ide_transfer_stop(IDEState *s)
{
    s->data_pos = 0;
    s->data_end = 0;
    s->end_transfer = NULL;
    s->status &= ~IDE_STAT_DRQ;
}

void ide_abort_command(IDEState *s)
{
    ide_transfer_stop(s);
    s->status = IDE_STAT_DRDY | IDE_STAT_ERR;
    s->error = IDE_ERR_ABRT;
}

/* The command failed on an address: IDNF (and ABRT, as drives do). */
static void ide_address_error(IDEState *s)
{
    ide_transfer_stop(s);
    s->status = IDE_STAT_DRDY | IDE_STAT_ERR;
    s->error = IDE_ERR_IDNF | IDE_ERR_ABRT;
}

/* --- signatures, reset --- */

static void ide_set_signature(IDEState *s)
{
    s->select &= ~IDE_DEV_HS;
    s->nsector = 1;
    s->sector = 1;
    if (s->is_cd) {
        s->lcyl = 0x14;
        s->hcyl = 0xeb;
    } else if (s->dev) {
        s->lcyl = 0;
        s->hcyl = 0;
    } else {
        s->lcyl = 0xff;
        s->hcyl = 0xff;
    }
}

void ide_drive_cancel(IDEState *s)
{
    s->generation++;
    if (s->dma_running || s->status & IDE_STAT_BSY) {
        /* The buffer must be ours again before anything reuses it. */
        blk_drain_all();
    }
    s->dma_kind = IDE_DMA_NONE;
    s->dma_running = false;
}

static void ide_drive_reset(IDEState *s)
{
    ide_drive_cancel(s);
    s->mult_sectors = IDE_MAX_MULT;
    s->feature = s->error = s->nsector = s->sector = 0;
    s->lcyl = s->hcyl = 0;
    s->hob_feature = s->hob_nsector = s->hob_sector = 0;
    s->hob_lcyl = s->hob_hcyl = 0;
    s->select = IDE_DEV_OBS;
    s->status = IDE_STAT_OK;
    s->lba48 = false;
    s->cur_heads = s->heads;
    s->cur_sectors = s->sectors;
    ide_transfer_stop(s);
    if (s->is_cd) {
        ide_atapi_reset(s);
    }
    ide_set_signature(s);
}

void ide_bus_reset(IDEBus *bus)
{
    bus->unit = 0;
    bus->ctrl = 0;
    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        ide_drive_reset(&bus->ifs[i]);
    }
    bmdma_reset(bus);
    ide_lower_irq(bus);
}

/* --- addresses --- */

static uint32_t ide_sector_count(IDEState *s)
{
    if (s->lba48) {
        uint32_t n = (uint32_t)s->hob_nsector << 8 | s->nsector;

        return n ? n : 65536;
    }
    return s->nsector ? s->nsector : 256;
}

/* The command's first sector; false for a CHS address outside the geometry. */
static bool ide_get_sector(IDEState *s, uint64_t *sector)
{
    if (s->select & IDE_DEV_LBA) {
        if (s->lba48) {
            *sector = (uint64_t)s->hob_hcyl << 40 |
                      (uint64_t)s->hob_lcyl << 32 |
                      (uint64_t)s->hob_sector << 24 |
                      (uint64_t)s->hcyl << 16 | (uint64_t)s->lcyl << 8 |
                      s->sector;
        } else {
            *sector = (uint64_t)(s->select & IDE_DEV_HS) << 24 |
                      (uint64_t)s->hcyl << 16 | (uint64_t)s->lcyl << 8 |
                      s->sector;
        }
        return true;
    }
    if (!s->cur_heads || !s->cur_sectors || !s->sector ||
        s->sector > s->cur_sectors ||
        (s->select & IDE_DEV_HS) >= s->cur_heads) {
        return false;
    }
    *sector = ((uint64_t)s->hcyl << 8 | s->lcyl) * s->cur_heads *
              s->cur_sectors +
              (uint64_t)(s->select & IDE_DEV_HS) * s->cur_sectors +
              (s->sector - 1);
    return true;
}

/* Registers to sector (where a transfer got to), in the command's form. */
static void ide_set_sector(IDEState *s, uint64_t sector)
{
    if (s->select & IDE_DEV_LBA) {
        s->sector = sector;
        s->lcyl = sector >> 8;
        s->hcyl = sector >> 16;
        if (s->lba48) {
            s->hob_sector = sector >> 24;
            s->hob_lcyl = sector >> 32;
            s->hob_hcyl = sector >> 40;
        } else {
            s->select = (s->select & ~IDE_DEV_HS) | ((sector >> 24) & 0x0f);
        }
    } else if (s->cur_heads && s->cur_sectors) {
        uint32_t track = s->cur_heads * s->cur_sectors;
        uint64_t cyl = sector / track;
        uint32_t r = sector % track;

        s->hcyl = cyl >> 8;
        s->lcyl = cyl;
        s->select = (s->select & ~IDE_DEV_HS) | ((r / s->cur_sectors) & 0x0f);
        s->sector = r % s->cur_sectors + 1;
    }
}

/* The command's range, checked against the medium: false = IDNF set. */
static bool ide_start_range(IDEState *s)
{
    uint64_t sector;
    uint32_t count = ide_sector_count(s);

    if (!ide_get_sector(s, &sector) || sector > s->nb_sectors ||
        count > s->nb_sectors - sector) {
        qemu_log_mask(LOG_GUEST_ERROR, "ide: sectors beyond the medium\n");
        ide_address_error(s);
        return false;
    }
    s->xfer_sector = sector;
    s->xfer_remaining = count;
    return true;
}

/* A failed read or write: reported to the guest (and in BLOCK_IO_ERROR). */
static void ide_io_error(IDEState *s, int ret, bool is_read)
{
    qemu_log_mask(LOG_GUEST_ERROR, "ide: request failed: %s\n",
                  g_strerror(-ret));
    ide_abort_command(s);
    if (ret != -ENOMEDIUM) {
        blk_error_action(s->blk, BLOCK_ERROR_ACTION_REPORT, is_read, -ret);
    }
    ide_set_irq(s->bus);
}

/* --- PIO reads and writes --- */

static void ata_pio_read_next(IDEState *s);

static void ata_pio_read_done(void *opaque, int ret)
{
    IDERequest *r = opaque;
    IDEState *s = ide_request_end(r);

    if (!s) {
        return;
    }
    if (ret < 0) {
        ide_io_error(s, ret, true);
    } else {
        s->xfer_sector += r->sectors;
        s->xfer_remaining -= r->sectors;
        ide_set_sector(s, s->xfer_sector);
        s->status = IDE_STAT_OK;
        ide_transfer_start(s, r->sectors * IDE_SECTOR_SIZE, false,
                           ata_pio_read_next);
        ide_set_irq(s->bus);
    }
    g_free(r);
}

/* The next block of a PIO read (or the end, without an interrupt). */
static void ata_pio_read_next(IDEState *s)
{
    uint32_t n = MIN(s->xfer_remaining, s->xfer_block);
    IDERequest *r;

    if (!n) {
        ide_transfer_stop(s);
        s->status = IDE_STAT_OK;
        return;
    }
    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    r = ide_request(s, n, n * IDE_SECTOR_SIZE);
    blk_aio(s->blk, BLOCK_READ, s->xfer_sector * IDE_SECTOR_SIZE,
            n * IDE_SECTOR_SIZE, &r->iov, 1, ata_pio_read_done, r);
}

static void ata_pio_write_block(IDEState *s);

static void ata_pio_write_done(void *opaque, int ret)
{
    IDERequest *r = opaque;
    IDEState *s = ide_request_end(r);
    uint32_t n;

    if (!s) {
        return;
    }
    if (ret < 0) {
        ide_io_error(s, ret, false);
        g_free(r);
        return;
    }
    s->xfer_sector += r->sectors;
    s->xfer_remaining -= r->sectors;
    ide_set_sector(s, s->xfer_sector);
    s->status = IDE_STAT_OK;
    n = MIN(s->xfer_remaining, s->xfer_block);
    if (n) {
        ide_transfer_start(s, n * IDE_SECTOR_SIZE, true, ata_pio_write_block);
    }
    ide_set_irq(s->bus);
    g_free(r);
}

/* The guest filled a block: write it. */
static void ata_pio_write_block(IDEState *s)
{
    uint32_t n = MIN(s->xfer_remaining, s->xfer_block);
    IDERequest *r = ide_request(s, n, n * IDE_SECTOR_SIZE);

    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    blk_aio(s->blk, BLOCK_WRITE, s->xfer_sector * IDE_SECTOR_SIZE,
            n * IDE_SECTOR_SIZE, &r->iov, 1, ata_pio_write_done, r);
}

/* READ/WRITE SECTORS (block 1) and MULTIPLE (block mult_sectors). */
static bool cmd_pio_rw(IDEState *s, bool write, bool multiple)
{
    if (multiple && !s->mult_sectors) {
        ide_abort_command(s);
        return true;
    }
    if (!ide_start_range(s)) {
        return true;
    }
    s->xfer_block = multiple ? s->mult_sectors : 1;
    if (write) {
        if (blk_is_read_only(s->blk)) {
            ide_abort_command(s);
            return true;
        }
        s->status = IDE_STAT_OK;
        ide_transfer_start(s, MIN(s->xfer_remaining, s->xfer_block) *
                           IDE_SECTOR_SIZE, true, ata_pio_write_block);
        return false;
    }
    ata_pio_read_next(s);
    return false;
}

/* --- DMA --- */

static bool cmd_dma_rw(IDEState *s, bool write)
{
    if (!ide_start_range(s)) {
        return true;
    }
    if (write && blk_is_read_only(s->blk)) {
        ide_abort_command(s);
        return true;
    }
    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    s->dma_kind = write ? IDE_DMA_WRITE : IDE_DMA_READ;
    s->dma_offset = s->xfer_sector * IDE_SECTOR_SIZE;
    s->dma_remaining = (uint64_t)s->xfer_remaining * IDE_SECTOR_SIZE;
    ide_dma_kick(s->bus);
    return false;
}

void ide_dma_finished(IDEState *s, int ret)
{
    bool write = s->dma_kind == IDE_DMA_WRITE;
    uint64_t done;

    if (s->is_cd) {
        ide_atapi_dma_finished(s, ret);
        return;
    }
    done = (s->dma_offset / IDE_SECTOR_SIZE) - s->xfer_sector;
    s->dma_kind = IDE_DMA_NONE;
    ide_set_sector(s, s->xfer_sector + done);
    if (ret == IDE_DMA_SHORT) {
        /* The PRDs ended before the data: no interrupt, as QEMU. */
        s->status = IDE_STAT_OK;
        return;
    }
    if (ret == -EFAULT) {
        ide_abort_command(s);
        ide_set_irq(s->bus);
        return;
    }
    if (ret < 0) {
        ide_io_error(s, ret, !write);
        return;
    }
    s->status = IDE_STAT_OK;
    ide_set_irq(s->bus);
}

/* --- other commands --- */

void ide_put_le16(uint16_t *p, uint16_t v)
{
    uint8_t *b = (uint8_t *)p;

    b[0] = v;
    b[1] = v >> 8;
}

void ide_put_string(uint16_t *words, const char *str, int len)
{
    uint8_t *b = (uint8_t *)words;
    size_t n = strlen(str);

    for (int i = 0; i < len; i++) {
        b[i ^ 1] = i < (int)n ? str[i] : ' ';
    }
}

static void ide_identify(IDEState *s, uint16_t *p)
{
    uint64_t chs = (uint64_t)s->cur_heads * s->cur_sectors *
                   s->cylinders;
    uint64_t lba28 = MIN(s->nb_sectors, 0x0fffffffu);

    memset(p, 0, 512);
    ide_put_le16(p + 0, 0x0040);                /* fixed device */
    ide_put_le16(p + 1, s->cylinders);
    ide_put_le16(p + 3, s->heads);
    ide_put_le16(p + 6, s->sectors);
    ide_put_string(p + 10, s->serial, 20);
    ide_put_le16(p + 20, 3);
    ide_put_le16(p + 21, 512);
    ide_put_string(p + 23, s->version, 8);
    ide_put_string(p + 27, s->model, 40);
    ide_put_le16(p + 47, 0x8000 | IDE_MAX_MULT);
    ide_put_le16(p + 48, 1);                    /* dword I/O */
    ide_put_le16(p + 49, 1 << 11 | 1 << 9 | 1 << 8);    /* IORDY, LBA, DMA */
    ide_put_le16(p + 51, 0x200);
    ide_put_le16(p + 52, 0x200);
    ide_put_le16(p + 53, 7);                    /* words 54-58, 64-70, 88 */
    ide_put_le16(p + 54, s->cylinders);
    ide_put_le16(p + 55, s->cur_heads);
    ide_put_le16(p + 56, s->cur_sectors);
    ide_put_le16(p + 57, chs);
    ide_put_le16(p + 58, chs >> 16);
    if (s->mult_sectors) {
        ide_put_le16(p + 59, 0x100 | s->mult_sectors);
    }
    ide_put_le16(p + 60, lba28);
    ide_put_le16(p + 61, lba28 >> 16);
    ide_put_le16(p + 62, 0x07);                 /* single word DMA 0-2 */
    ide_put_le16(p + 63, 0x07);                 /* multiword DMA 0-2 */
    ide_put_le16(p + 64, 0x03);                 /* PIO 3-4 */
    ide_put_le16(p + 65, 120);
    ide_put_le16(p + 66, 120);
    ide_put_le16(p + 67, 120);
    ide_put_le16(p + 68, 120);
    ide_put_le16(p + 80, 0xf0);                 /* ATA-4 to ATA-7 */
    ide_put_le16(p + 81, 0x16);
    ide_put_le16(p + 82, 1 << 14 | 1 << 5);     /* NOP, write cache */
    /* FLUSH CACHE EXT, FLUSH CACHE, 48-bit addresses */
    ide_put_le16(p + 83, 1 << 14 | 1 << 13 | 1 << 12 | 1 << 10);
    ide_put_le16(p + 84, 1 << 14);
    ide_put_le16(p + 85, 1 << 14 | (s->write_cache ? 1 << 5 : 0));
    ide_put_le16(p + 86, 1 << 13 | 1 << 12 | 1 << 10);
    ide_put_le16(p + 87, 1 << 14);
    ide_put_le16(p + 88, 0x3f | 1 << 13);       /* UDMA 0-5, 5 selected */
    ide_put_le16(p + 93, 1 | 1 << 14 | 0x2000);
    for (int i = 0; i < 4; i++) {
        ide_put_le16(p + 100 + i, s->nb_sectors >> (16 * i));
    }
    ide_put_le16(p + 106, 0x6000);              /* 512-byte physical sectors */
}

static void ide_flush_done(void *opaque, int ret)
{
    IDERequest *r = opaque;
    IDEState *s = ide_request_end(r);

    if (!s) {
        return;
    }
    if (ret < 0) {
        ide_io_error(s, ret, false);
    } else {
        s->status = IDE_STAT_OK;
        ide_set_irq(s->bus);
    }
    g_free(r);
}

static bool cmd_flush(IDEState *s)
{
    IDERequest *r = ide_request(s, 0, 0);

    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    blk_aio(s->blk, BLOCK_FLUSH, 0, 0, NULL, 0, ide_flush_done, r);
    return false;
}

static bool cmd_set_features(IDEState *s)
{
    switch (s->feature) {
    case 0x02:                              /* write cache on */
        s->write_cache = true;
        return true;
    case 0x82:                              /* write cache off */
        s->write_cache = false;
        return true;
    case 0x03:                              /* transfer mode */
        switch (s->nsector >> 3) {
        case 0x00:                          /* PIO default, PIO mode */
        case 0x01:
        case 0x02:                          /* single word DMA */
        case 0x04:                          /* multiword DMA */
        case 0x08:                          /* UDMA */
            return true;
        }
        break;
    case 0x05: case 0x85:                   /* power management */
    case 0x42: case 0xc2:                   /* acoustic management */
    case 0x55: case 0xaa:                   /* read look-ahead */
    case 0x66: case 0xcc:                   /* reverting to defaults */
        return true;
    }
    ide_abort_command(s);
    return true;
}

static bool cmd_read_native_max(IDEState *s, bool ext)
{
    uint64_t max = s->nb_sectors ? s->nb_sectors - 1 : 0;

    /* The answer is an LBA, whatever the command was written as. */
    s->lba48 = ext;
    s->select |= IDE_DEV_LBA;
    ide_set_sector(s, ext ? max : MIN(max, 0x0fffffffu));
    return true;
}

/* EXECUTE DEVICE DIAGNOSTIC: both drives show their signatures. */
static bool cmd_diagnose(IDEState *s)
{
    IDEBus *bus = s->bus;

    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        IDEState *d = &bus->ifs[i];

        ide_set_signature(d);
        d->error = 0x01;
        d->status = d->is_cd ? 0 : IDE_STAT_OK;
    }
    bus->unit = 0;
    ide_set_irq(bus);
    return false;
}

static bool cmd_specify(IDEState *s)
{
    s->cur_heads = (s->select & IDE_DEV_HS) + 1;
    s->cur_sectors = s->nsector;
    return true;
}

static bool cmd_set_multiple(IDEState *s)
{
    if (s->nsector > IDE_MAX_MULT || (s->nsector & (s->nsector - 1))) {
        ide_abort_command(s);
    } else {
        s->mult_sectors = s->nsector;
    }
    return true;
}

static bool cmd_identify_common(IDEState *s, bool packet)
{
    if (packet) {
        ide_atapi_identify(s, (uint16_t *)s->buf);
    } else {
        ide_identify(s, (uint16_t *)s->buf);
    }
    s->status = IDE_STAT_OK;
    ide_transfer_start(s, 512, false, ide_transfer_stop);
    ide_set_irq(s->bus);
    return false;
}

/*
 * Who may run a command: disks (HD), packet devices (CD), and whether it
 * is a 48-bit command.
 */
#define HD_OK   0x01
#define CD_OK   0x02
#define EXT     0x04

static const uint8_t ide_cmd_flags[256] = {
    [WIN_NOP] = HD_OK | CD_OK,
    [WIN_DEVICE_RESET] = CD_OK,
    [WIN_RECAL] = HD_OK,
    [WIN_READ] = HD_OK,
    [WIN_READ_ONCE] = HD_OK,
    [WIN_READ_EXT] = HD_OK | EXT,
    [WIN_READDMA_EXT] = HD_OK | EXT,
    [WIN_READ_NATIVE_MAX_EXT] = HD_OK | EXT,
    [WIN_MULTREAD_EXT] = HD_OK | EXT,
    [WIN_WRITE] = HD_OK,
    [WIN_WRITE_ONCE] = HD_OK,
    [WIN_WRITE_EXT] = HD_OK | EXT,
    [WIN_WRITEDMA_EXT] = HD_OK | EXT,
    [WIN_MULTWRITE_EXT] = HD_OK | EXT,
    [WIN_VERIFY] = HD_OK,
    [WIN_VERIFY_ONCE] = HD_OK,
    [WIN_VERIFY_EXT] = HD_OK | EXT,
    [WIN_SEEK] = HD_OK,
    [WIN_DIAGNOSE] = HD_OK | CD_OK,
    [WIN_SPECIFY] = HD_OK,
    [WIN_PACKETCMD] = CD_OK,
    [WIN_PIDENTIFY] = CD_OK,
    [WIN_MULTREAD] = HD_OK,
    [WIN_MULTWRITE] = HD_OK,
    [WIN_SETMULT] = HD_OK,
    [WIN_READDMA] = HD_OK,
    [WIN_READDMA_ONCE] = HD_OK,
    [WIN_WRITEDMA] = HD_OK,
    [WIN_WRITEDMA_ONCE] = HD_OK,
    [WIN_STANDBYNOW1] = HD_OK | CD_OK,
    [WIN_IDLEIMMEDIATE] = HD_OK | CD_OK,
    [WIN_STANDBY] = HD_OK | CD_OK,
    [WIN_SETIDLE1] = HD_OK | CD_OK,
    [WIN_CHECKPOWERMODE1] = HD_OK | CD_OK,
    [WIN_SLEEPNOW1] = HD_OK | CD_OK,
    [WIN_FLUSH_CACHE] = HD_OK | CD_OK,
    [WIN_FLUSH_CACHE_EXT] = HD_OK | EXT,
    [WIN_IDENTIFY] = HD_OK | CD_OK,
    [WIN_SETFEATURES] = HD_OK | CD_OK,
    [WIN_READ_NATIVE_MAX] = HD_OK,
};

/* Run cmd; true when it completed at once (status final, IRQ due). */
static bool ide_run_command(IDEState *s, uint8_t cmd)
{
    switch (cmd) {
    case WIN_READ: case WIN_READ_ONCE: case WIN_READ_EXT:
        return cmd_pio_rw(s, false, false);
    case WIN_MULTREAD: case WIN_MULTREAD_EXT:
        return cmd_pio_rw(s, false, true);
    case WIN_WRITE: case WIN_WRITE_ONCE: case WIN_WRITE_EXT:
        return cmd_pio_rw(s, true, false);
    case WIN_MULTWRITE: case WIN_MULTWRITE_EXT:
        return cmd_pio_rw(s, true, true);
    case WIN_READDMA: case WIN_READDMA_ONCE: case WIN_READDMA_EXT:
        return cmd_dma_rw(s, false);
    case WIN_WRITEDMA: case WIN_WRITEDMA_ONCE: case WIN_WRITEDMA_EXT:
        return cmd_dma_rw(s, true);
    case WIN_VERIFY: case WIN_VERIFY_ONCE: case WIN_VERIFY_EXT:
        if (ide_start_range(s)) {
            ide_set_sector(s, s->xfer_sector + s->xfer_remaining - 1);
        }
        return true;
    case WIN_SEEK:
    case WIN_RECAL:
    case WIN_STANDBYNOW1: case WIN_IDLEIMMEDIATE: case WIN_STANDBY:
    case WIN_SETIDLE1: case WIN_SLEEPNOW1:
        return true;
    case WIN_CHECKPOWERMODE1:
        s->nsector = 0xff;                  /* active or idle */
        return true;
    case WIN_FLUSH_CACHE: case WIN_FLUSH_CACHE_EXT:
        return s->is_cd ? true : cmd_flush(s);
    case WIN_SETFEATURES:
        return cmd_set_features(s);
    case WIN_SETMULT:
        return cmd_set_multiple(s);
    case WIN_SPECIFY:
        return cmd_specify(s);
    case WIN_READ_NATIVE_MAX: case WIN_READ_NATIVE_MAX_EXT:
        return cmd_read_native_max(s, cmd == WIN_READ_NATIVE_MAX_EXT);
    case WIN_DIAGNOSE:
        return cmd_diagnose(s);
    case WIN_IDENTIFY:
        if (s->is_cd) {
            /* A packet device answers with its signature. */
            ide_set_signature(s);
            ide_abort_command(s);
            return true;
        }
        return cmd_identify_common(s, false);
    case WIN_PIDENTIFY:
        return cmd_identify_common(s, true);
    case WIN_PACKETCMD:
        ide_atapi_packet_start(s);
        return false;
    case WIN_DEVICE_RESET:
        ide_drive_reset(s);
        s->status = 0;
        s->error = 0x01;
        return false;
    }
    ide_abort_command(s);
    return true;
}

static void ide_exec_cmd(IDEBus *bus, uint8_t cmd)
{
    IDEState *s = ide_bus_active(bus);
    uint8_t flags = ide_cmd_flags[cmd];

    /* A command to a slot without a drive goes nowhere. */
    if (!s->dev) {
        return;
    }
    /* Only DEVICE RESET of a packet device interrupts a command. */
    if (s->status & (IDE_STAT_BSY | IDE_STAT_DRQ)) {
        if (cmd != WIN_DEVICE_RESET || !s->is_cd) {
            return;
        }
    }
    s->error = 0;
    s->lba48 = flags & EXT;
    ide_transfer_stop(s);
    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    if (!(flags & (s->is_cd ? CD_OK : HD_OK)) || (cmd == WIN_NOP)) {
        ide_abort_command(s);
        ide_set_irq(bus);
        return;
    }
    if (ide_run_command(s, cmd)) {
        s->status &= ~IDE_STAT_BSY;
        if (!(s->status & IDE_STAT_ERR)) {
            s->status |= IDE_STAT_OK;
        }
        ide_set_irq(bus);
    }
}

/* --- registers --- */

/* Reads of a channel without drives, or of a missing slave: 0. */
static bool ide_reads_zero(IDEBus *bus)
{
    IDEState *s = ide_bus_active(bus);

    return (!bus->ifs[0].dev && !bus->ifs[1].dev) ||
           (s != &bus->ifs[0] && !s->dev);
}

/* size bytes of the block went; at its end, what comes next. */
static void ide_data_advance(IDEState *s, unsigned size)
{
    IDETransferFn *end = s->end_transfer;

    s->data_pos += size;
    if (s->data_pos < s->data_end) {
        return;
    }
    s->status &= ~IDE_STAT_DRQ;
    s->end_transfer = NULL;
    if (end) {
        end(s);
    }
}

static uint32_t ide_data_read(IDEBus *bus, unsigned size)
{
    IDEState *s = ide_bus_active(bus);
    uint32_t v = 0;

    if (!(s->status & IDE_STAT_DRQ) || s->data_out ||
        s->data_pos >= s->data_end) {
        return 0;
    }
    /* An odd block's last byte comes in a word of its own. */
    size = MIN(size, s->data_end - s->data_pos);
    for (unsigned i = 0; i < size; i++) {
        v |= (uint32_t)s->buf[s->data_pos + i] << (8 * i);
    }
    ide_data_advance(s, size);
    return v;
}

static void ide_data_write(IDEBus *bus, uint32_t v, unsigned size)
{
    IDEState *s = ide_bus_active(bus);

    if (!(s->status & IDE_STAT_DRQ) || !s->data_out ||
        s->data_pos >= s->data_end) {
        return;
    }
    size = MIN(size, s->data_end - s->data_pos);
    for (unsigned i = 0; i < size; i++) {
        s->buf[s->data_pos + i] = v >> (8 * i);
    }
    ide_data_advance(s, size);
}

uint64_t ide_cmd_read(void *opaque, uint64_t addr, unsigned size)
{
    IDEBus *bus = opaque;
    IDEState *s = ide_bus_active(bus);
    bool hob = bus->ctrl & IDE_CTRL_HOB;

    if (addr == 0) {
        return ide_data_read(bus, size);
    }
    if (addr != 6 && ide_reads_zero(bus)) {
        if (addr == 7) {
            ide_lower_irq(bus);
        }
        return 0;
    }
    switch (addr) {
    case 1:
        return hob ? s->hob_feature : s->error;
    case 2:
        return hob ? s->hob_nsector : s->nsector;
    case 3:
        return hob ? s->hob_sector : s->sector;
    case 4:
        return hob ? s->hob_lcyl : s->lcyl;
    case 5:
        return hob ? s->hob_hcyl : s->hcyl;
    case 6:
        return !bus->ifs[0].dev && !bus->ifs[1].dev ? 0 : s->select;
    default:
        ide_lower_irq(bus);
        return s->status;
    }
}

void ide_cmd_write(void *opaque, uint64_t addr, uint64_t val, unsigned size)
{
    IDEBus *bus = opaque;

    if (addr == 0) {
        ide_data_write(bus, val, size);
        return;
    }
    val &= 0xff;
    /* Writes to the task file (not the command) drop HOB. */
    if (addr != 7) {
        bus->ctrl &= ~IDE_CTRL_HOB;
    }
    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        IDEState *s = &bus->ifs[i];

        switch (addr) {
        case 1:
            s->hob_feature = s->feature;
            s->feature = val;
            break;
        case 2:
            s->hob_nsector = s->nsector;
            s->nsector = val;
            break;
        case 3:
            s->hob_sector = s->sector;
            s->sector = val;
            break;
        case 4:
            s->hob_lcyl = s->lcyl;
            s->lcyl = val;
            break;
        case 5:
            s->hob_hcyl = s->hcyl;
            s->hcyl = val;
            break;
        case 6:
            s->select = val | IDE_DEV_OBS;
            break;
        }
    }
    if (addr == 6) {
        bus->unit = val & IDE_DEV_DEV ? 1 : 0;
    } else if (addr == 7) {
        bus->ctrl &= ~IDE_CTRL_HOB;
        ide_lower_irq(bus);
        ide_exec_cmd(bus, val);
    }
}

uint64_t ide_ctl_read(void *opaque, uint64_t addr, unsigned size)
{
    IDEBus *bus = opaque;

    return ide_reads_zero(bus) ? 0 : ide_bus_active(bus)->status;
}

/* Device control: nIEN, and SRST resets both drives when it drops. */
void ide_ctl_write(void *opaque, uint64_t addr, uint64_t val, unsigned size)
{
    IDEBus *bus = opaque;

    if (!(bus->ctrl & IDE_CTRL_SRST) && (val & IDE_CTRL_SRST)) {
        for (int i = 0; i < IDE_NUM_UNITS; i++) {
            IDEState *s = &bus->ifs[i];

            ide_drive_cancel(s);
            ide_transfer_stop(s);
            s->status = IDE_STAT_BSY | IDE_STAT_DSC;
            s->error = 0x01;
        }
        bmdma_reset(bus);
    } else if ((bus->ctrl & IDE_CTRL_SRST) && !(val & IDE_CTRL_SRST)) {
        for (int i = 0; i < IDE_NUM_UNITS; i++) {
            IDEState *s = &bus->ifs[i];

            ide_drive_reset(s);
            s->error = 0x01;
            /* A packet device does not set DRDY after a reset. */
            s->status = s->is_cd ? 0 : IDE_STAT_OK;
        }
        bus->unit = 0;
    }
    bus->ctrl = val;
    /* An interrupt held back by nIEN comes out when it clears. */
    ide_update_irq(bus);
}

/* --- drives --- */

/* QEMU's default geometry: 16 heads, 63 sectors, 2 to 16383 cylinders. */
static void ide_default_geometry(IDEState *s)
{
    uint64_t cyls = s->nb_sectors / (16 * 63);

    s->heads = 16;
    s->sectors = 63;
    s->cylinders = cyls > 16383 ? 16383 : cyls < 2 ? 2 : cyls;
}

void ide_drive_attach(IDEState *s, DeviceState *dev, BlockBackend *blk,
                      bool is_cd)
{
    s->dev = dev;
    s->blk = blk;
    s->is_cd = is_cd;
    s->nb_sectors = blk_size(blk) / IDE_SECTOR_SIZE;
    s->write_cache = true;
    if (!s->cylinders) {
        ide_default_geometry(s);
    }
    ide_drive_reset(s);
}

void ide_drive_detach(IDEState *s)
{
    ide_drive_cancel(s);
    s->dev = NULL;
    s->blk = NULL;
    s->is_cd = false;
    s->cylinders = s->heads = s->sectors = 0;
    ide_drive_reset(s);
}

void ide_bus_init(IDEBus *bus, int bus_id, const char *name)
{
    qbus_init(&bus->qbus, name, BUS_TYPE_IDE, NULL);
    bus->bus_id = bus_id;
    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        bus->ifs[i].bus = bus;
        bus->ifs[i].unit = i;
        bus->ifs[i].buf = g_malloc0(IDE_BUF_SIZE);
    }
    ide_bus_reset(bus);
}

void ide_bus_deinit(IDEBus *bus)
{
    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        ide_drive_cancel(&bus->ifs[i]);
        g_free(bus->ifs[i].buf);
        bus->ifs[i].buf = NULL;
    }
    qbus_deinit(&bus->qbus);
}
