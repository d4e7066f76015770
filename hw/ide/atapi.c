/*
 * ATAPI: the packet commands of an IDE CD-ROM (MMC-3 as QEMU's ide-cd
 * answers them): TEST UNIT READY, REQUEST SENSE, INQUIRY, MODE SENSE(10),
 * START STOP UNIT (the tray), PREVENT ALLOW MEDIUM REMOVAL, READ
 * CAPACITY, READ(10)/(12), SEEK(10), READ TOC (formats 0, 1, 2), GET
 * CONFIGURATION, GET EVENT STATUS NOTIFICATION, READ DISC INFORMATION,
 * MECHANISM STATUS, SET CD SPEED.
 *
 * A PACKET command takes 12 bytes through the data port, then answers
 * in DRQ blocks of at most the byte count limit (LBA mid/high) by PIO,
 * or through the bus master when the features register asked for DMA.
 * After a medium change the next command (except INQUIRY, REQUEST
 * SENSE, GET CONFIGURATION and GET EVENT STATUS NOTIFICATION) fails
 * once with NOT READY, then once with UNIT ATTENTION, so guests that
 * poll see the tray open and close. Reads are checked against the
 * medium (LOGICAL BLOCK ADDRESS OUT OF RANGE) before it is touched.
 */
#include <errno.h>
#include <string.h>

#include "hw/block/block-qmp.h"
#include "ide-internal.h"
#include "qemu/log.h"

/* Packet commands. */
#define GPCMD_TEST_UNIT_READY           0x00
#define GPCMD_REQUEST_SENSE             0x03
#define GPCMD_INQUIRY                   0x12
#define GPCMD_MODE_SENSE_6              0x1a
#define GPCMD_START_STOP_UNIT           0x1b
#define GPCMD_PREVENT_ALLOW             0x1e
#define GPCMD_READ_CAPACITY             0x25
#define GPCMD_READ_10                   0x28
#define GPCMD_SEEK_10                   0x2b
#define GPCMD_READ_TOC                  0x43
#define GPCMD_GET_CONFIGURATION         0x46
#define GPCMD_GET_EVENT_STATUS          0x4a
#define GPCMD_READ_DISC_INFO            0x51
#define GPCMD_MODE_SENSE_10             0x5a
#define GPCMD_READ_12                   0xa8
#define GPCMD_SET_CD_SPEED              0xbb
#define GPCMD_MECHANISM_STATUS          0xbd

/* Sense keys and additional sense codes. */
#define SENSE_NONE                      0
#define SENSE_NOT_READY                 2
#define SENSE_ILLEGAL_REQUEST           5
#define SENSE_UNIT_ATTENTION            6
#define ASC_ILLEGAL_OPCODE              0x20
#define ASC_LOGICAL_BLOCK_OOR           0x21
#define ASC_INV_FIELD_IN_CMD_PACKET     0x24
#define ASC_MEDIUM_MAY_HAVE_CHANGED     0x28
#define ASC_SAVING_PARAMETERS_NOT_SUPPORTED 0x39
#define ASC_MEDIUM_NOT_PRESENT          0x3a
#define ASC_MEDIA_REMOVAL_PREVENTED     0x53

/* MMC profiles and GET EVENT STATUS NOTIFICATION's media class. */
#define MMC_PROFILE_CD_ROM              0x0008
#define MMC_PROFILE_DVD_ROM             0x0010
#define GESN_MEDIA                      4
#define MEC_NO_CHANGE                   0
#define MEC_EJECT_REQUESTED             1
#define MEC_NEW_MEDIA                   2
#define MS_TRAY_OPEN                    1
#define MS_MEDIA_PRESENT                2

/* The sectors of a CD (80 minutes); more is a DVD. */
#define CD_MAX_SECTORS                  (80 * 60 * 75)

/* Commands allowed with a unit attention pending; commands that need a medium. */
#define ALLOW_UA    0x01
#define CHECK_READY 0x02

static void put_be16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static void put_be32(uint8_t *p, uint32_t v)
{
    put_be16(p, v >> 16);
    put_be16(p + 2, v);
}

static uint16_t get_be16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

static uint32_t get_be32(const uint8_t *p)
{
    return (uint32_t)get_be16(p) << 16 | get_be16(p + 2);
}

static void pad_string(uint8_t *buf, int len, const char *str)
{
    size_t n = strlen(str);

    for (int i = 0; i < len; i++) {
        buf[i] = i < (int)n ? str[i] : ' ';
    }
}

/* 2048-byte sectors of the medium; 0 while the tray is open or empty. */
static uint32_t cd_sectors(IDEState *s)
{
    uint64_t n = s->nb_sectors / 4;

    return s->tray_open ? 0 : MIN(n, UINT32_MAX);
}

static bool media_present(IDEState *s)
{
    return !s->tray_open && blk_is_inserted(s->blk) && s->nb_sectors > 0;
}

void ide_atapi_identify(IDEState *s, uint16_t *p)
{
    memset(p, 0, 512);
    /* ATAPI, CD-ROM, removable, 50 us to DRQ, 12-byte packets */
    ide_put_le16(p + 0, 2 << 14 | 5 << 8 | 1 << 7 | 2 << 5);
    ide_put_string(p + 10, s->serial, 20);
    ide_put_le16(p + 20, 3);
    ide_put_le16(p + 21, 512);
    ide_put_le16(p + 22, 4);
    ide_put_string(p + 23, s->version, 8);
    ide_put_string(p + 27, s->model, 40);
    ide_put_le16(p + 48, 1);
    ide_put_le16(p + 49, 1 << 9 | 1 << 8);      /* LBA, DMA */
    ide_put_le16(p + 53, 7);
    ide_put_le16(p + 62, 7);
    ide_put_le16(p + 63, 7);
    ide_put_le16(p + 64, 3);
    ide_put_le16(p + 65, 0xb4);
    ide_put_le16(p + 66, 0xb4);
    ide_put_le16(p + 67, 0x12c);
    ide_put_le16(p + 68, 0xb4);
    ide_put_le16(p + 71, 30);
    ide_put_le16(p + 72, 30);
    ide_put_le16(p + 80, 0x1e);                 /* ATA/ATAPI-1 to 4 */
    ide_put_le16(p + 88, 0x3f | 1 << 13);
}

void ide_atapi_reset(IDEState *s)
{
    s->sense_key = SENSE_NONE;
    s->asc = 0;
    s->cdrom_changed = 0;
    s->event_new_media = false;
    s->event_eject_request = false;
    s->atapi_sectors = 0;
    s->atapi_reply_len = 0;
    s->atapi_buf_len = 0;
    s->nb_sectors = s->blk && blk_is_inserted(s->blk)
                    ? blk_size(s->blk) / IDE_SECTOR_SIZE : 0;
}

/* --- completion --- */

static void atapi_ok(IDEState *s)
{
    s->error = 0;
    s->status = IDE_STAT_OK;
    s->nsector = (s->nsector & ~7) | ATAPI_INT_IO | ATAPI_INT_CD;
    ide_set_irq(s->bus);
}

static void atapi_error(IDEState *s, uint8_t sense_key, uint8_t asc)
{
    ide_transfer_stop(s);
    s->error = sense_key << 4;
    s->status = IDE_STAT_DRDY | IDE_STAT_ERR;
    s->nsector = (s->nsector & ~7) | ATAPI_INT_IO | ATAPI_INT_CD;
    s->sense_key = sense_key;
    s->asc = asc;
    ide_set_irq(s->bus);
}

static void atapi_io_error(IDEState *s, int ret)
{
    if (ret == -ENOMEDIUM) {
        atapi_error(s, SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
    } else {
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_LOGICAL_BLOCK_OOR);
    }
}

/*
 * The bytes of the next PIO block: all that is left if the byte count
 * limit allows (an odd count only ends a reply), else the limit made
 * even (never 0).
 */
static uint32_t atapi_block_size(IDEState *s, uint64_t left)
{
    uint32_t bcl = s->lcyl | s->hcyl << 8;

    if (bcl == 0 || bcl == 0xffff) {
        bcl = 0xfffe;
    }
    if (left <= bcl) {
        return left;
    }
    return MAX(bcl & ~1u, 2u);
}

static void atapi_read_fill(IDEState *s);

/* The next PIO block of what is in buf, or the next sectors, or the end. */
static void atapi_pio_next(IDEState *s)
{
    uint32_t n;

    if (!s->atapi_reply_len) {
        ide_transfer_stop(s);
        atapi_ok(s);
        return;
    }
    if (!s->atapi_buf_len) {
        atapi_read_fill(s);
        return;
    }
    n = atapi_block_size(s, MIN(s->atapi_reply_len, s->atapi_buf_len));
    /* The block is the bytes at atapi_buf_pos: move them to the start. */
    if (s->atapi_buf_pos) {
        memmove(s->buf, s->buf + s->atapi_buf_pos, s->atapi_buf_len);
        s->atapi_buf_pos = 0;
    }
    s->atapi_buf_pos = n;
    s->atapi_buf_len -= n;
    s->atapi_reply_len -= n;
    s->lcyl = n;
    s->hcyl = n >> 8;
    s->nsector = (s->nsector & ~7) | ATAPI_INT_IO;
    s->status = IDE_STAT_OK;
    ide_transfer_start(s, n, false, atapi_pio_next);
    ide_set_irq(s->bus);
}

typedef struct AtapiRead {
    IDEState *s;
    unsigned generation;
    uint32_t sectors;
    struct iovec iov;
} AtapiRead;

static void atapi_read_done(void *opaque, int ret)
{
    AtapiRead *r = opaque;
    IDEState *s = r->s;

    if (r->generation != s->generation) {
        g_free(r);
        return;
    }
    if (ret < 0) {
        atapi_io_error(s, ret);
    } else {
        s->atapi_lba += r->sectors;
        s->atapi_sectors -= r->sectors;
        s->atapi_buf_pos = 0;
        s->atapi_buf_len = r->sectors * CD_SECTOR_SIZE;
        atapi_pio_next(s);
    }
    g_free(r);
}

/* Fetch the next sectors of a PIO READ into buf. */
static void atapi_read_fill(IDEState *s)
{
    uint32_t n = MIN(s->atapi_sectors, IDE_BUF_SIZE / CD_SECTOR_SIZE);
    AtapiRead *r;

    if (!n) {
        /* The reply length and the sectors always agree; be safe. */
        s->atapi_reply_len = 0;
        atapi_pio_next(s);
        return;
    }
    r = g_new0(AtapiRead, 1);
    r->s = s;
    r->generation = s->generation;
    r->sectors = n;
    r->iov.iov_base = s->buf;
    r->iov.iov_len = n * CD_SECTOR_SIZE;
    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    blk_aio(s->blk, BLOCK_READ, s->atapi_lba * CD_SECTOR_SIZE,
            n * CD_SECTOR_SIZE, &r->iov, 1, atapi_read_done, r);
}

/* Answer with the first min(len, max_len) bytes of buf. */
static void atapi_reply(IDEState *s, uint32_t len, uint32_t max_len)
{
    len = MIN(len, max_len);
    if (s->atapi_dma) {
        s->dma_kind = IDE_DMA_REPLY;
        s->dma_reply_pos = 0;
        s->dma_remaining = len;
        s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
        if (!len) {
            s->dma_kind = IDE_DMA_NONE;
            atapi_ok(s);
            return;
        }
        ide_dma_kick(s->bus);
        return;
    }
    s->atapi_sectors = 0;
    s->atapi_reply_len = len;
    s->atapi_buf_pos = 0;
    s->atapi_buf_len = len;
    atapi_pio_next(s);
}

void ide_atapi_dma_finished(IDEState *s, int ret)
{
    s->dma_kind = IDE_DMA_NONE;
    if (ret == IDE_DMA_SHORT) {
        s->status = IDE_STAT_OK;
        s->nsector = (s->nsector & ~7) | ATAPI_INT_IO | ATAPI_INT_CD;
        return;
    }
    if (ret == -EFAULT) {
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
        return;
    }
    if (ret < 0) {
        atapi_io_error(s, ret);
        return;
    }
    atapi_ok(s);
}

/* --- commands --- */

static void cmd_read(IDEState *s, const uint8_t *p, bool twelve)
{
    uint32_t lba = get_be32(p + 2);
    uint32_t n = twelve ? get_be32(p + 6) : get_be16(p + 7);

    if (!n) {
        atapi_ok(s);
        return;
    }
    if ((uint64_t)lba + n > cd_sectors(s)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ide-cd: READ beyond the medium\n");
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_LOGICAL_BLOCK_OOR);
        return;
    }
    if (s->atapi_dma) {
        s->dma_kind = IDE_DMA_READ;
        s->dma_offset = (uint64_t)lba * CD_SECTOR_SIZE;
        s->dma_remaining = (uint64_t)n * CD_SECTOR_SIZE;
        s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
        ide_dma_kick(s->bus);
        return;
    }
    s->atapi_lba = lba;
    s->atapi_sectors = n;
    s->atapi_reply_len = n * CD_SECTOR_SIZE;
    s->atapi_buf_pos = 0;
    s->atapi_buf_len = 0;
    atapi_read_fill(s);
}

static void lba_to_msf(uint8_t *buf, uint32_t lba)
{
    lba += 150;
    buf[0] = lba / 75 / 60;
    buf[1] = lba / 75 % 60;
    buf[2] = lba % 75;
}

/* Format 0: track 1 (data) and the lead-out; -1 for a bad start track. */
static int read_toc(uint32_t sectors, uint8_t *buf, bool msf, int start)
{
    uint8_t *q = buf + 2;

    if (start > 1 && start != 0xaa) {
        return -1;
    }
    *q++ = 1;                   /* first track */
    *q++ = 1;                   /* last track */
    if (start <= 1) {
        *q++ = 0;
        *q++ = 0x14;            /* data track, ADR 1 */
        *q++ = 1;
        *q++ = 0;
        if (msf) {
            *q++ = 0;
            lba_to_msf(q, 0);
            q += 3;
        } else {
            put_be32(q, 0);
            q += 4;
        }
    }
    *q++ = 0;
    *q++ = 0x16;
    *q++ = 0xaa;                /* the lead-out */
    *q++ = 0;
    if (msf) {
        *q++ = 0;
        lba_to_msf(q, sectors);
        q += 3;
    } else {
        put_be32(q, sectors);
        q += 4;
    }
    put_be16(buf, q - buf - 2);
    return q - buf;
}

/* Format 2: the raw TOC of one session, points A0, A1, A2 and track 1. */
static int read_toc_raw(uint32_t sectors, uint8_t *buf, bool msf)
{
    uint8_t *q = buf + 2;
    static const uint8_t points[] = { 0xa0, 0xa1, 0xa2, 1 };

    *q++ = 1;
    *q++ = 1;
    for (size_t i = 0; i < G_N_ELEMENTS(points); i++) {
        *q++ = 1;               /* session */
        *q++ = 0x14;
        *q++ = 0;
        *q++ = points[i];
        *q++ = 0;
        *q++ = 0;
        *q++ = 0;
        *q++ = 0;
        if (points[i] == 0xa2) {
            if (msf) {
                lba_to_msf(q, sectors);
            } else {
                q[0] = 0;
                put_be16(q + 1, sectors >> 8);
            }
            q += 3;
        } else if (points[i] == 1) {
            if (msf) {
                lba_to_msf(q, 0);
            } else {
                memset(q, 0, 3);
            }
            q += 3;
        } else {
            *q++ = 1;           /* first/last track, or the disc type */
            *q++ = 0;
            *q++ = 0;
        }
    }
    put_be16(buf, q - buf - 2);
    return q - buf;
}

static void cmd_read_toc(IDEState *s, const uint8_t *p)
{
    uint32_t max_len = get_be16(p + 7);
    bool msf = p[1] & 2;
    int format = p[9] >> 6 ? p[9] >> 6 : p[2] & 0xf;
    int len;

    switch (format) {
    case 0:
        len = read_toc(cd_sectors(s), s->buf, msf, p[6]);
        if (len < 0) {
            break;
        }
        atapi_reply(s, len, max_len);
        return;
    case 1:
        memset(s->buf, 0, 12);
        s->buf[1] = 0x0a;
        s->buf[2] = 1;
        s->buf[3] = 1;
        atapi_reply(s, 12, max_len);
        return;
    case 2:
        len = read_toc_raw(cd_sectors(s), s->buf, msf);
        atapi_reply(s, len, max_len);
        return;
    }
    atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
}

static void cmd_inquiry(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;

    if (p[1] & 1) {
        /* Vital product data: the list of pages, which is this one. */
        if (p[2] != 0) {
            atapi_error(s, SENSE_ILLEGAL_REQUEST,
                        ASC_INV_FIELD_IN_CMD_PACKET);
            return;
        }
        memset(buf, 0, 5);
        buf[0] = 0x05;
        buf[3] = 1;
        atapi_reply(s, 5, p[4]);
        return;
    }
    memset(buf, 0, 36);
    buf[0] = 0x05;              /* CD/DVD */
    buf[1] = 0x80;              /* removable */
    buf[3] = 0x21;              /* ATAPI, response format 1 */
    buf[4] = 31;
    pad_string(buf + 8, 8, "QEMU");
    pad_string(buf + 16, 16, "QEMU DVD-ROM");
    pad_string(buf + 32, 4, s->version);
    atapi_reply(s, 36, p[4]);
}

static void cmd_request_sense(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;

    memset(buf, 0, 18);
    buf[0] = 0x70 | 0x80;       /* current error, valid */
    buf[2] = s->sense_key;
    buf[7] = 10;
    buf[12] = s->asc;
    if (s->sense_key == SENSE_UNIT_ATTENTION) {
        s->sense_key = SENSE_NONE;
    }
    atapi_reply(s, 18, p[4]);
}

static void cmd_mode_sense(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;
    uint32_t max_len = get_be16(p + 7);
    int control = p[2] >> 6, page = p[2] & 0x3f;

    if (control == 3) {
        atapi_error(s, SENSE_ILLEGAL_REQUEST,
                    ASC_SAVING_PARAMETERS_NOT_SUPPORTED);
        return;
    }
    if (control != 0) {
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
        return;
    }
    memset(buf, 0, 30);
    buf[2] = 0x70;              /* medium type */
    switch (page) {
    case 0x01:                  /* read error recovery */
        put_be16(buf, 16 - 2);
        buf[8] = 0x01;
        buf[9] = 16 - 10;
        buf[11] = 0x05;         /* read retries */
        atapi_reply(s, 16, max_len);
        return;
    case 0x2a:                  /* capabilities */
        put_be16(buf, 30 - 2);
        buf[8] = 0x2a;
        buf[9] = 30 - 10;
        buf[10] = 0x3b;         /* reads CD-R, CD-RW, DVD-ROM, -R, -RAM */
        buf[12] = 0x71;         /* audio play, multi-session, mode 2 */
        buf[13] = 3 << 5;
        buf[14] = 1 << 0 | 1 << 3 | 1 << 5 |   /* lock, eject, tray */
                  (s->tray_locked ? 1 << 1 : 0);
        put_be16(buf + 16, 704);                /* 4x */
        buf[19] = 2;            /* volume levels */
        put_be16(buf + 20, 512);                /* buffer, KiB */
        put_be16(buf + 22, 704);
        atapi_reply(s, 30, max_len);
        return;
    }
    atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
}

static void cmd_get_configuration(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;
    uint32_t max_len = MIN(get_be16(p + 7), 512u);
    uint16_t current = 0;
    static const uint16_t profiles[] = {
        MMC_PROFILE_DVD_ROM, MMC_PROFILE_CD_ROM,
    };
    uint32_t len = 12;

    /* Only feature 0, the profile list, is there to start from. */
    if (p[2] || p[3]) {
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
        return;
    }
    if (media_present(s)) {
        current = cd_sectors(s) > CD_MAX_SECTORS ? MMC_PROFILE_DVD_ROM
                                                 : MMC_PROFILE_CD_ROM;
    }
    memset(buf, 0, 20);
    put_be16(buf + 6, current);
    buf[10] = 0x03;             /* persistent, current */
    for (size_t i = 0; i < G_N_ELEMENTS(profiles); i++) {
        put_be16(buf + len, profiles[i]);
        buf[len + 2] = profiles[i] == current;
        buf[11] += 4;
        len += 4;
    }
    put_be32(buf, len - 4);
    atapi_reply(s, len, max_len);
}

static void cmd_get_event_status(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;
    uint32_t max_len = get_be16(p + 7);
    uint8_t event = MEC_NO_CHANGE, media = 0;

    if (!(p[1] & 1)) {
        /* Only polling is offered. */
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
        return;
    }
    memset(buf, 0, 8);
    buf[3] = 1 << GESN_MEDIA;   /* supported classes */
    if (!(p[4] & (1 << GESN_MEDIA))) {
        buf[2] = 0x80;          /* no event available */
        put_be16(buf, 2);
        atapi_reply(s, 4, max_len);
        return;
    }
    buf[2] = GESN_MEDIA;
    if (s->tray_open) {
        media = MS_TRAY_OPEN;
    } else if (blk_is_inserted(s->blk)) {
        media = MS_MEDIA_PRESENT;
    }
    if (media != MS_TRAY_OPEN) {
        if (s->event_new_media) {
            event = MEC_NEW_MEDIA;
            s->event_new_media = false;
        } else if (s->event_eject_request) {
            event = MEC_EJECT_REQUESTED;
            s->event_eject_request = false;
        }
    }
    buf[4] = event;
    buf[5] = media;
    put_be16(buf, 6);
    atapi_reply(s, 8, max_len);
}

static void cmd_start_stop(IDEState *s, const uint8_t *p)
{
    bool start = p[4] & 1, loej = p[4] & 2;

    /* A power condition: nothing moves. */
    if (loej && !(p[4] & 0xf0)) {
        if (!start && !s->tray_open && s->tray_locked) {
            atapi_error(s, blk_is_inserted(s->blk) ? SENSE_NOT_READY
                                                   : SENSE_ILLEGAL_REQUEST,
                        ASC_MEDIA_REMOVAL_PREVENTED);
            return;
        }
        if (s->tray_open != !start) {
            s->tray_open = !start;
            blk_tray_moved_event(s->blk, s->tray_open);
        }
    }
    atapi_ok(s);
}

static void cmd_read_disc_info(IDEState *s, const uint8_t *p)
{
    uint8_t *buf = s->buf;

    if (p[1] & 7) {
        atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_INV_FIELD_IN_CMD_PACKET);
        return;
    }
    memset(buf, 0, 34);
    buf[1] = 32;
    buf[2] = 0x0e;              /* complete disc, last session complete */
    buf[3] = 1;
    buf[4] = 1;
    buf[5] = 1;
    buf[6] = 1;
    buf[7] = 0x20;              /* unrestricted use */
    atapi_reply(s, 34, get_be16(p + 7));
}

static void cmd_mechanism_status(IDEState *s, const uint8_t *p)
{
    memset(s->buf, 0, 8);
    s->buf[5] = 1;              /* one slot */
    atapi_reply(s, 8, get_be16(p + 8));
}

static uint8_t atapi_cmd_flags(uint8_t op)
{
    switch (op) {
    case GPCMD_INQUIRY:
    case GPCMD_REQUEST_SENSE:
    case GPCMD_GET_CONFIGURATION:
    case GPCMD_GET_EVENT_STATUS:
        return ALLOW_UA;
    case GPCMD_READ_CAPACITY:
    case GPCMD_READ_10:
    case GPCMD_READ_12:
    case GPCMD_SEEK_10:
    case GPCMD_READ_TOC:
    case GPCMD_READ_DISC_INFO:
        return CHECK_READY;
    }
    return 0;
}

/* The 12 bytes are in buf: run the packet. */
static void atapi_packet(IDEState *s)
{
    uint8_t p[ATAPI_PACKET_SIZE];
    uint8_t flags;

    memcpy(p, s->buf, sizeof(p));
    flags = atapi_cmd_flags(p[0]);
    s->status = IDE_STAT_DRDY | IDE_STAT_BSY;
    if (s->sense_key == SENSE_UNIT_ATTENTION && !(flags & ALLOW_UA)) {
        atapi_error(s, s->sense_key, s->asc);
        return;
    }
    /* After a change: "no medium" once, then "it may have changed". */
    if (!(flags & ALLOW_UA) && s->cdrom_changed && media_present(s)) {
        if (s->cdrom_changed == 1) {
            atapi_error(s, SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
            s->cdrom_changed = 2;
        } else {
            atapi_error(s, SENSE_UNIT_ATTENTION, ASC_MEDIUM_MAY_HAVE_CHANGED);
            s->cdrom_changed = 0;
        }
        return;
    }
    if ((flags & CHECK_READY) && !media_present(s)) {
        atapi_error(s, SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
        return;
    }
    switch (p[0]) {
    case GPCMD_TEST_UNIT_READY:
        if (media_present(s)) {
            atapi_ok(s);
        } else {
            atapi_error(s, SENSE_NOT_READY, ASC_MEDIUM_NOT_PRESENT);
        }
        return;
    case GPCMD_REQUEST_SENSE:
        cmd_request_sense(s, p);
        return;
    case GPCMD_INQUIRY:
        cmd_inquiry(s, p);
        return;
    case GPCMD_MODE_SENSE_10:
        cmd_mode_sense(s, p);
        return;
    case GPCMD_START_STOP_UNIT:
        cmd_start_stop(s, p);
        return;
    case GPCMD_PREVENT_ALLOW:
        s->tray_locked = p[4] & 1;
        atapi_ok(s);
        return;
    case GPCMD_READ_CAPACITY:
        put_be32(s->buf, cd_sectors(s) - 1);
        put_be32(s->buf + 4, CD_SECTOR_SIZE);
        atapi_reply(s, 8, 8);
        return;
    case GPCMD_READ_10:
    case GPCMD_READ_12:
        cmd_read(s, p, p[0] == GPCMD_READ_12);
        return;
    case GPCMD_SEEK_10:
        if (get_be32(p + 2) >= cd_sectors(s)) {
            atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_LOGICAL_BLOCK_OOR);
        } else {
            atapi_ok(s);
        }
        return;
    case GPCMD_READ_TOC:
        cmd_read_toc(s, p);
        return;
    case GPCMD_GET_CONFIGURATION:
        cmd_get_configuration(s, p);
        return;
    case GPCMD_GET_EVENT_STATUS:
        cmd_get_event_status(s, p);
        return;
    case GPCMD_READ_DISC_INFO:
        cmd_read_disc_info(s, p);
        return;
    case GPCMD_MECHANISM_STATUS:
        cmd_mechanism_status(s, p);
        return;
    case GPCMD_SET_CD_SPEED:
        atapi_ok(s);
        return;
    }
    atapi_error(s, SENSE_ILLEGAL_REQUEST, ASC_ILLEGAL_OPCODE);
}

void ide_atapi_packet_start(IDEState *s)
{
    s->atapi_dma = s->feature & 1;
    s->nsector = (s->nsector & ~7) | ATAPI_INT_CD;
    s->status = IDE_STAT_OK;
    ide_transfer_start(s, ATAPI_PACKET_SIZE, true, atapi_packet);
    /* No interrupt: the host polls DRQ before it sends the packet. */
}

/* QMP moved the tray (blockdev-open-tray, -close-tray, change-medium). */
void ide_atapi_media_changed(IDEState *s, bool load)
{
    s->tray_open = !load;
    s->nb_sectors = blk_is_inserted(s->blk)
                    ? blk_size(s->blk) / IDE_SECTOR_SIZE : 0;
    s->cdrom_changed = 1;
    s->event_new_media = true;
    s->event_eject_request = false;
    ide_set_irq(s->bus);
}

void ide_atapi_eject_request(IDEState *s, bool force)
{
    s->event_eject_request = true;
    if (force) {
        s->tray_locked = false;
    }
    ide_set_irq(s->bus);
}
