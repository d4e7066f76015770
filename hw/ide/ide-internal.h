/*
 * What the files of hw/ide/ share: a channel (IDEBus) with its two
 * drives (IDEState), the task file registers, PIO transfers through a
 * buffer, the bus master's DMA, and the ATAPI command set.
 *
 * A drive's registers follow ATA/ATAPI-6 (T13/1410D): the command block
 * (data, error/features, sector count, LBA low/mid/high, device, status/
 * command) and the control block (alternate status/device control). A
 * command runs with BSY set; a data block is offered with DRQ set; the
 * end of a command raises the channel's IRQ unless nIEN is set.
 */
#ifndef HW_IDE_IDE_INTERNAL_H
#define HW_IDE_IDE_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "block/block.h"
#include "hw/bus.h"
#include "hw/ide/ide.h"
#include "hw/irq.h"
#include "hw/qdev.h"
#include "system/memory.h"

/* Status register. */
#define IDE_STAT_ERR        0x01
#define IDE_STAT_DRQ        0x08
#define IDE_STAT_DSC        0x10    /* seek complete */
#define IDE_STAT_DF         0x20
#define IDE_STAT_DRDY       0x40
#define IDE_STAT_BSY        0x80
#define IDE_STAT_OK         (IDE_STAT_DRDY | IDE_STAT_DSC)

/* Error register. */
#define IDE_ERR_ABRT        0x04
#define IDE_ERR_IDNF        0x10
#define IDE_ERR_UNC         0x40

/* Device register. */
#define IDE_DEV_HS          0x0f    /* head, or LBA 27:24 */
#define IDE_DEV_DEV         0x10
#define IDE_DEV_LBA         0x40
#define IDE_DEV_OBS         0xa0    /* obsolete bits, read as ones */

/* Device control register. */
#define IDE_CTRL_NIEN       0x02
#define IDE_CTRL_SRST       0x04
#define IDE_CTRL_HOB        0x80

/* ATAPI interrupt reason (in the sector count register). */
#define ATAPI_INT_CD        0x01    /* command (packet) or status */
#define ATAPI_INT_IO        0x02    /* to the host */

#define IDE_SECTOR_SIZE     512
#define CD_SECTOR_SIZE      2048
#define IDE_MAX_MULT        16
/* The PIO buffer, also the DMA bounce buffer: a multiple of both. */
#define IDE_BUF_SIZE        (128 * 1024)
#define ATAPI_PACKET_SIZE   12

typedef struct IDEBus IDEBus;
typedef struct IDEState IDEState;
typedef void IDETransferFn(IDEState *s);

/* What the bus master moves for the drive when the guest starts it. */
typedef enum IDEDmaKind {
    IDE_DMA_NONE,
    IDE_DMA_READ,               /* the medium to guest memory */
    IDE_DMA_WRITE,              /* guest memory to the medium */
    IDE_DMA_REPLY,              /* the drive's buffer to guest memory */
} IDEDmaKind;

struct IDEState {
    IDEBus *bus;
    int unit;
    DeviceState *dev;           /* its ide-hd or ide-cd; NULL: none */
    bool is_cd;
    BlockBackend *blk;
    char serial[21];
    char model[41];
    char version[9];
    uint64_t nb_sectors;        /* of 512 bytes */
    uint16_t cylinders, heads, sectors;     /* the default geometry */
    uint16_t cur_heads, cur_sectors;        /* INITIALIZE DEVICE PARAMS */

    /* The task file (each drive of a channel holds what was written). */
    uint8_t feature, error, nsector, sector, lcyl, hcyl;
    uint8_t hob_feature, hob_nsector, hob_sector, hob_lcyl, hob_hcyl;
    uint8_t select, status;
    bool lba48;                 /* the command is a 48-bit one */
    uint8_t mult_sectors;       /* SET MULTIPLE MODE; 0: off */
    bool write_cache;

    /* An ATA read or write: where it is, what is left (sectors). */
    uint64_t xfer_sector;
    uint32_t xfer_remaining;
    uint32_t xfer_block;        /* sectors per PIO block */

    /* PIO: bytes data_pos..data_end of buf go through the data port. */
    uint8_t *buf;
    uint32_t data_pos, data_end;
    bool data_out;              /* written by the guest */
    IDETransferFn *end_transfer;
    /* Bumped when a command is cut short: late completions are stale. */
    unsigned generation;

    /* DMA waiting for (or running on) the bus master. */
    IDEDmaKind dma_kind;
    bool dma_running;
    uint64_t dma_offset;        /* bytes into the medium (READ, WRITE) */
    uint64_t dma_remaining;     /* bytes */
    uint32_t dma_reply_pos;     /* bytes of buf sent (REPLY) */

    /* ATAPI. */
    uint8_t sense_key, asc;
    bool tray_open, tray_locked;
    int cdrom_changed;          /* 1: say "no medium", 2: unit attention */
    bool event_new_media, event_eject_request;
    uint64_t atapi_lba;         /* next 2048-byte sector of a READ */
    uint32_t atapi_sectors;     /* sectors of the READ still to fetch */
    uint64_t atapi_reply_len;   /* PIO: bytes of the reply still to send */
    uint32_t atapi_buf_pos;     /* PIO: offset in buf of what is next */
    uint32_t atapi_buf_len;     /* PIO: bytes of buf still to send */
    bool atapi_dma;             /* the PACKET asked for DMA */
};

/* The bus master's registers of one channel (SFF-8038i). */
#define BM_CMD_START        0x01
#define BM_CMD_READ         0x08    /* the device writes to memory */
#define BM_STATUS_ACTIVE    0x01
#define BM_STATUS_ERROR     0x02
#define BM_STATUS_INTR      0x04
#define BM_STATUS_DMA_CAP   0x60

typedef struct BMDMAState {
    uint8_t cmd, status;
    uint32_t prd_table;         /* PRD table address (dword aligned) */
    /* The walk of the table in the transfer running. */
    uint32_t prd_next;          /* the next entry's address */
    uint32_t cur_addr;          /* guest address of the current region */
    uint32_t cur_left;          /* its bytes not yet moved */
    bool eot;                   /* the current entry was the last */
} BMDMAState;

struct IDEBus {
    BusState qbus;              /* first: "ide.0" in the bus registry */
    int bus_id;
    IDEState ifs[IDE_NUM_UNITS];
    int unit;                   /* the selected drive */
    uint8_t ctrl;               /* device control */
    qemu_irq irq;
    bool irq_level;             /* pending (INTRQ unless nIEN) */
    BMDMAState bm;
    /* Guest memory as the bus master sees it (its PCI function). */
    bool (*dma_rw)(void *opaque, uint64_t addr, void *buf, uint64_t len,
                   bool to_memory);
    void *dma_opaque;
    MemoryRegion cmd_io, ctl_io;
};

static inline IDEState *ide_bus_active(IDEBus *bus)
{
    return &bus->ifs[bus->unit];
}

/* ide-core.c: the channel and the ATA commands. */
void ide_bus_init(IDEBus *bus, int bus_id, const char *name);
void ide_bus_deinit(IDEBus *bus);
void ide_bus_reset(IDEBus *bus);
uint64_t ide_cmd_read(void *opaque, uint64_t addr, unsigned size);
void ide_cmd_write(void *opaque, uint64_t addr, uint64_t val, unsigned size);
uint64_t ide_ctl_read(void *opaque, uint64_t addr, unsigned size);
void ide_ctl_write(void *opaque, uint64_t addr, uint64_t val, unsigned size);
void ide_set_irq(IDEBus *bus);
void ide_transfer_start(IDEState *s, uint32_t len, bool out,
                        IDETransferFn *end);
void ide_transfer_stop(IDEState *s);
void ide_abort_command(IDEState *s);
/* IDENTIFY words: little-endian; strings space padded, bytes swapped. */
void ide_put_le16(uint16_t *p, uint16_t v);
void ide_put_string(uint16_t *words, const char *str, int len);
/* Attach a drive to its slot (ide-dev.c), and take it away. */
void ide_drive_attach(IDEState *s, DeviceState *dev, BlockBackend *blk,
                      bool is_cd);
void ide_drive_detach(IDEState *s);
/* Wait for the drive's requests in flight and forget their results. */
void ide_drive_cancel(IDEState *s);

/* ide-dma.c: the bus master. */
void bmdma_cmd_write(IDEBus *bus, uint8_t val);
void bmdma_status_write(IDEBus *bus, uint8_t val);
void bmdma_reset(IDEBus *bus);
/* The selected drive set up a DMA transfer: run it if started. */
void ide_dma_kick(IDEBus *bus);
/*
 * ide-core.c: a DMA transfer ended: ret 0 (all moved), IDE_DMA_SHORT
 * (the PRD table ended first), -EFAULT (guest memory that is not
 * there) or the medium's -errno.
 */
#define IDE_DMA_SHORT       1
void ide_dma_finished(IDEState *s, int ret);

/* atapi.c: the packet commands of a CD-ROM. */
void ide_atapi_identify(IDEState *s, uint16_t *words);
void ide_atapi_packet_start(IDEState *s);
void ide_atapi_reset(IDEState *s);
void ide_atapi_dma_finished(IDEState *s, int ret);
void ide_atapi_media_changed(IDEState *s, bool load);
void ide_atapi_eject_request(IDEState *s, bool force);

#endif
