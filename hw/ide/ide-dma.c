/*
 * The IDE bus master (SFF-8038i), one per channel: a command register
 * (start, direction), a status register (active, error, interrupt, the
 * drives' DMA capable bits) and the address of a PRD table in guest
 * memory. Each PRD entry is {address (4), byte count (2, 0 = 64 KiB),
 * flags (2; bit 15: the last entry)}.
 *
 * A drive that set up a transfer (ide-core.c, atapi.c) waits until the
 * guest sets start; the data then goes through the drive's buffer, at
 * most IDE_BUF_SIZE bytes at a time: read from the medium and scattered
 * over the PRD regions, or gathered and written. Guest memory is only
 * reached through the function's dma_rw (bus mastering on, the address
 * mapped): a table or a region that is not there ends the transfer with
 * the error bit; a table shorter than the transfer ends it early.
 */
#include <errno.h>
#include <string.h>

#include "ide-internal.h"
#include "qemu/log.h"

#define PRD_ENTRY_SIZE      8
#define PRD_EOT             0x8000

typedef struct DmaRequest {
    IDEState *s;
    unsigned generation;
    uint32_t len;
    struct iovec iov;
} DmaRequest;

static uint32_t get_le32(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Make the next region current: 0, IDE_DMA_SHORT or -EFAULT. */
static int prd_next_region(IDEBus *bus)
{
    BMDMAState *bm = &bus->bm;
    uint8_t e[PRD_ENTRY_SIZE];
    uint32_t count;

    if (bm->cur_left) {
        return 0;
    }
    if (bm->eot) {
        return IDE_DMA_SHORT;
    }
    if (!bus->dma_rw(bus->dma_opaque, bm->prd_next, e, sizeof(e), false)) {
        qemu_log_mask(LOG_GUEST_ERROR, "ide: PRD table at 0x%x is not in "
                      "memory\n", bm->prd_next);
        return -EFAULT;
    }
    count = (e[4] | e[5] << 8) & 0xfffe;
    bm->cur_addr = get_le32(e) & ~1u;
    bm->cur_left = count ? count : 0x10000;
    bm->eot = (e[6] | e[7] << 8) & PRD_EOT;
    bm->prd_next += PRD_ENTRY_SIZE;
    return 0;
}

/*
 * Move len bytes between buf and the PRD regions; *moved says how many
 * went. 0, IDE_DMA_SHORT (the table ended) or -EFAULT.
 */
static int prd_copy(IDEBus *bus, uint8_t *buf, uint32_t len, bool to_memory,
                    uint32_t *moved)
{
    BMDMAState *bm = &bus->bm;

    *moved = 0;
    while (*moved < len) {
        int r = prd_next_region(bus);
        uint32_t n;

        if (r) {
            return r;
        }
        n = MIN(bm->cur_left, len - *moved);
        if (!bus->dma_rw(bus->dma_opaque, bm->cur_addr, buf + *moved, n,
                         to_memory)) {
            qemu_log_mask(LOG_GUEST_ERROR, "ide: DMA region at 0x%x is not "
                          "in memory\n", bm->cur_addr);
            return -EFAULT;
        }
        bm->cur_addr += n;
        bm->cur_left -= n;
        *moved += n;
    }
    return 0;
}

static void dma_end(IDEState *s, int ret)
{
    BMDMAState *bm = &s->bus->bm;

    s->dma_running = false;
    bm->status &= ~BM_STATUS_ACTIVE;
    if (ret == -EFAULT) {
        bm->status |= BM_STATUS_ERROR;
    }
    ide_dma_finished(s, ret);
}

static void dma_step(IDEState *s);

static DmaRequest *dma_request(IDEState *s, uint32_t len)
{
    DmaRequest *r = g_new0(DmaRequest, 1);

    r->s = s;
    r->generation = s->generation;
    r->len = len;
    r->iov.iov_base = s->buf;
    r->iov.iov_len = len;
    return r;
}

static void dma_read_done(void *opaque, int ret)
{
    DmaRequest *r = opaque;
    IDEState *s = r->s;
    uint32_t moved;
    int res;

    if (r->generation != s->generation) {
        g_free(r);
        return;
    }
    if (ret < 0) {
        g_free(r);
        dma_end(s, ret);
        return;
    }
    res = prd_copy(s->bus, s->buf, r->len, true, &moved);
    s->dma_offset += moved;
    s->dma_remaining -= moved;
    g_free(r);
    if (res) {
        dma_end(s, res);
    } else {
        dma_step(s);
    }
}

static void dma_write_done(void *opaque, int ret)
{
    DmaRequest *r = opaque;
    IDEState *s = r->s;

    if (r->generation != s->generation) {
        g_free(r);
        return;
    }
    if (ret < 0) {
        g_free(r);
        dma_end(s, ret);
        return;
    }
    s->dma_offset += r->len;
    s->dma_remaining -= r->len;
    g_free(r);
    dma_step(s);
}

/* The next piece of the transfer, or its end. */
static void dma_step(IDEState *s)
{
    uint32_t len = MIN(s->dma_remaining, IDE_BUF_SIZE);
    uint32_t moved;
    DmaRequest *r;
    int res;

    if (!s->dma_remaining) {
        dma_end(s, 0);
        return;
    }
    switch (s->dma_kind) {
    case IDE_DMA_REPLY:
        len = MIN(len, IDE_BUF_SIZE - s->dma_reply_pos);
        res = prd_copy(s->bus, s->buf + s->dma_reply_pos, len, true, &moved);
        s->dma_reply_pos += moved;
        s->dma_remaining -= moved;
        /* A reply fits the buffer: it is all there or res says why. */
        dma_end(s, res);
        return;
    case IDE_DMA_READ:
        r = dma_request(s, len);
        blk_aio(s->blk, BLOCK_READ, s->dma_offset, len, &r->iov, 1,
                dma_read_done, r);
        return;
    case IDE_DMA_WRITE:
        res = prd_copy(s->bus, s->buf, len, false, &moved);
        if (res) {
            dma_end(s, res);
            return;
        }
        r = dma_request(s, len);
        blk_aio(s->blk, BLOCK_WRITE, s->dma_offset, len, &r->iov, 1,
                dma_write_done, r);
        return;
    case IDE_DMA_NONE:
        break;
    }
    dma_end(s, -EFAULT);
}

void ide_dma_kick(IDEBus *bus)
{
    BMDMAState *bm = &bus->bm;

    if (!(bm->cmd & BM_CMD_START)) {
        return;
    }
    for (int i = 0; i < IDE_NUM_UNITS; i++) {
        IDEState *s = &bus->ifs[i];

        if (s->dma_kind != IDE_DMA_NONE && !s->dma_running) {
            s->dma_running = true;
            bm->prd_next = bm->prd_table;
            bm->cur_left = 0;
            bm->eot = false;
            dma_step(s);
            return;
        }
    }
}

void bmdma_cmd_write(IDEBus *bus, uint8_t val)
{
    BMDMAState *bm = &bus->bm;
    bool was_started = bm->cmd & BM_CMD_START;

    bm->cmd = val & (BM_CMD_START | BM_CMD_READ);
    if (!(val & BM_CMD_START)) {
        bm->status &= ~BM_STATUS_ACTIVE;
        /* Stopped in the middle: the drive's command is aborted. */
        for (int i = 0; was_started && i < IDE_NUM_UNITS; i++) {
            IDEState *s = &bus->ifs[i];

            if (s->dma_running) {
                ide_drive_cancel(s);
                ide_abort_command(s);
            }
        }
        return;
    }
    if (!was_started) {
        bm->status |= BM_STATUS_ACTIVE;
        ide_dma_kick(bus);
    }
}

void bmdma_status_write(IDEBus *bus, uint8_t val)
{
    BMDMAState *bm = &bus->bm;

    /* Capable bits are the guest's; error and interrupt write 1 to clear. */
    bm->status = (val & BM_STATUS_DMA_CAP) | (bm->status & BM_STATUS_ACTIVE) |
                 (bm->status & ~val & (BM_STATUS_ERROR | BM_STATUS_INTR));
}

void bmdma_reset(IDEBus *bus)
{
    BMDMAState *bm = &bus->bm;

    bm->cmd = 0;
    bm->status = 0;
    bm->prd_table = 0;
    bm->prd_next = 0;
    bm->cur_addr = 0;
    bm->cur_left = 0;
    bm->eot = false;
}
