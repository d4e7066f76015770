/*
 * virtio-blk-pci (virtio 1.x, 5.2) on a block backend (drive=ID).
 *
 * A request is a 16-byte header {type (4), reserved (4), sector (8)},
 * the data, and a status byte the device writes last: 0 OK, 1 IOERR,
 * 2 UNSUPP. Types: IN 0, OUT 1, FLUSH 4, GET_ID 8 (the serial, 20
 * bytes), DISCARD 11 and WRITE_ZEROES 13 (one segment {sector (8),
 * num_sectors (4), flags (4)}). A request beyond the disk's end or not
 * aligned to the logical block size gets IOERR without reaching the
 * image; headers too short for a request break the device. I/O runs in
 * the block layer's threads and completes in the main loop.
 *
 * A request that fails goes by the backend's error policy (werror and
 * rerror, which the device's properties of those names override):
 * report (IOERR), ignore (OK), or stop: the request is held, the VM
 * stops (io-error) and BLOCK_IO_ERROR is sent; when the VM runs again
 * ("cont") the held requests are submitted again, in order.
 *
 * Reads and writes that follow each other in one pass over a queue and
 * are contiguous on the disk (a guest's sequential I/O) go to the block
 * layer as one request, up to MERGE_MAX_REQS of them (as QEMU's
 * request merging); each still completes, and fails, on its own.
 */
#include <errno.h>
#include <limits.h>
#include <string.h>

#include "block/block.h"
#include "hw/block/block-qmp.h"
#include "hw/virtio/virtio-pci.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"
#include "system/runstate.h"

#define VIRTIO_BLK_F_SEG_MAX        2
#define VIRTIO_BLK_F_RO             5
#define VIRTIO_BLK_F_BLK_SIZE       6
#define VIRTIO_BLK_F_FLUSH          9
#define VIRTIO_BLK_F_TOPOLOGY       10
#define VIRTIO_BLK_F_CONFIG_WCE     11
#define VIRTIO_BLK_F_MQ             12
#define VIRTIO_BLK_F_DISCARD        13
#define VIRTIO_BLK_F_WRITE_ZEROES   14

#define VIRTIO_BLK_T_IN             0
#define VIRTIO_BLK_T_OUT            1
#define VIRTIO_BLK_T_FLUSH          4
#define VIRTIO_BLK_T_GET_ID         8
#define VIRTIO_BLK_T_DISCARD        11
#define VIRTIO_BLK_T_WRITE_ZEROES   13

#define VIRTIO_BLK_S_OK             0
#define VIRTIO_BLK_S_IOERR          1
#define VIRTIO_BLK_S_UNSUPP         2

#define VIRTIO_BLK_ID_BYTES         20
#define VIRTIO_BLK_CONFIG_SIZE      60
#define VIRTIO_BLK_MAX_SECTORS      0x3fffff
#define SECTOR_SIZE                 512
#define MERGE_MAX_REQS              32
#define MERGE_MAX_BYTES             (128u << 20)

typedef struct VirtIOBlkPCI {
    VirtIOPCIProxy proxy;
    char *drive;
    char *serial;
    uint64_t logical_block_size;
    uint64_t physical_block_size;
    uint16_t num_queues;
    uint16_t queue_size;
    bool discard;
    bool write_zeroes;
    bool config_wce;
    bool share_rw;                  /* "share-rw": others may write too */
    int32_t bootindex;              /* firmware boot order (bootorder) */
    char *werror;                   /* "werror", "rerror": BlockdevOnError */
    char *rerror;
    BlockBackend *blk;
    uint8_t wce;                    /* writeback cache on (config) */
    unsigned generation;            /* bumped by reset: stale completions */
    GQueue held;                    /* of VirtIOBlkReq: stopped on error */
    VMChangeStateEntry *vm_change;
} VirtIOBlkPCI;

typedef struct VirtIOBlkReq {
    VirtIOBlkPCI *s;
    VirtQueue *vq;
    VirtQueueElement *elem;
    unsigned generation;
    uint8_t *status;                /* the last in byte */
    uint32_t in_len;                /* bytes written for the guest */
    struct iovec *iov;
    int niov;
    BlockRequestType op;            /* what went to the block layer */
    uint64_t offset, len;
} VirtIOBlkReq;

/* Contiguous reads or writes of one pass, in queue order. */
typedef struct BlkMerge {
    unsigned n;
    int niov;
    uint64_t len;
    struct iovec *iov;              /* all of theirs, once submitted */
    VirtIOBlkReq *reqs[MERGE_MAX_REQS];
} BlkMerge;

static void put_le(uint8_t *p, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        p[i] = v >> (8 * i);
    }
}

static uint64_t get_le(const uint8_t *p, unsigned n)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < n; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void blk_get_config(VirtIODevice *vdev, uint8_t *c)
{
    VirtIOBlkPCI *s = vdev->opaque;
    unsigned sector_align = s->logical_block_size / SECTOR_SIZE;

    memset(c, 0, VIRTIO_BLK_CONFIG_SIZE);
    put_le(c + 0, blk_size(s->blk) / SECTOR_SIZE, 8);
    put_le(c + 12, s->queue_size - 2, 4);              /* seg_max */
    put_le(c + 20, s->logical_block_size, 4);
    c[24] = __builtin_ctzll(s->physical_block_size / s->logical_block_size);
    put_le(c + 26, 1, 2);                              /* min_io_size */
    c[32] = s->wce;
    put_le(c + 34, s->num_queues, 2);
    put_le(c + 36, VIRTIO_BLK_MAX_SECTORS, 4);
    put_le(c + 40, 1, 4);
    put_le(c + 44, sector_align, 4);
    put_le(c + 48, VIRTIO_BLK_MAX_SECTORS, 4);
    put_le(c + 52, 1, 4);
}

static void blk_set_config(VirtIODevice *vdev, const uint8_t *c)
{
    VirtIOBlkPCI *s = vdev->opaque;

    s->wce = c[32] ? 1 : 0;
}

static void req_free(VirtIOBlkReq *r)
{
    g_free(r->iov);
    g_free(r);
}

/* Write the status, return the chain, interrupt. */
static void req_complete(VirtIOBlkReq *r, uint8_t status)
{
    VirtIODevice *vdev = &r->s->proxy.vdev;

    *r->status = status;
    virtqueue_push(r->vq, r->elem, r->in_len + 1);
    virtio_notify(vdev, r->vq);
    req_free(r);
}

static void req_io_done(void *opaque, int ret);

static void req_submit(VirtIOBlkReq *r, BlockRequestType op, uint64_t offset,
                       uint64_t len)
{
    r->op = op;
    r->offset = offset;
    r->len = len;
    blk_aio(r->s->blk, op, offset, len, r->iov, r->niov, req_io_done, r);
}

static void req_io_done(void *opaque, int ret)
{
    VirtIOBlkReq *r = opaque;
    VirtIOBlkPCI *s = r->s;
    BlockErrorAction action;
    bool is_read = r->op == BLOCK_READ;

    if (r->generation != s->generation) {
        /* The device was reset while this ran: nothing to report to. */
        virtqueue_element_free(r->elem);
        req_free(r);
        return;
    }
    if (ret >= 0) {
        req_complete(r, VIRTIO_BLK_S_OK);
        return;
    }
    qemu_log_mask(LOG_GUEST_ERROR, "virtio-blk: request failed: %s\n",
                  g_strerror(-ret));
    action = blk_get_error_action(s->blk, is_read, -ret);
    if (action == BLOCK_ERROR_ACTION_STOP) {
        g_queue_push_tail(&s->held, r);
    } else {
        req_complete(r, action == BLOCK_ERROR_ACTION_REPORT
                        ? VIRTIO_BLK_S_IOERR : VIRTIO_BLK_S_OK);
    }
    blk_error_action(s->blk, action, is_read, -ret);
}

/* A merged request finished: each of its requests goes on alone. */
static void merge_done(void *opaque, int ret)
{
    BlkMerge *m = opaque;

    for (unsigned i = 0; i < m->n; i++) {
        req_io_done(m->reqs[i], ret);
    }
    g_free(m->iov);
    g_free(m);
}

/* Submit what m collected (one request as it is) and empty it. */
static void merge_flush(VirtIOBlkPCI *s, BlkMerge *m)
{
    VirtIOBlkReq *first = m->reqs[0];
    BlkMerge *sent;
    int k = 0;

    if (m->n == 1) {
        req_submit(first, first->op, first->offset, first->len);
    } else if (m->n > 1) {
        sent = g_memdup2(m, sizeof(*m));
        /* Requests without data segments merge too: never a NULL base. */
        sent->iov = g_new(struct iovec, MAX(m->niov, 1));
        for (unsigned i = 0; i < m->n; i++) {
            memcpy(sent->iov + k, m->reqs[i]->iov,
                   m->reqs[i]->niov * sizeof(struct iovec));
            k += m->reqs[i]->niov;
        }
        blk_aio_merged(s->blk, first->op, first->offset, m->len, sent->iov,
                       m->niov, m->n, merge_done, sent);
    }
    m->n = 0;
    m->niov = 0;
    m->len = 0;
}

/* A read or write: merged with the ones before it where it can be. */
static void merge_add(VirtIOBlkPCI *s, BlkMerge *m, VirtIOBlkReq *r,
                      BlockRequestType op, uint64_t offset, uint64_t len)
{
    VirtIOBlkReq *last = m->n ? m->reqs[m->n - 1] : NULL;

    r->op = op;
    r->offset = offset;
    r->len = len;
    if (last && (last->op != op || last->offset + last->len != offset ||
                 m->n == MERGE_MAX_REQS || m->niov + r->niov > IOV_MAX ||
                 m->len + len > MERGE_MAX_BYTES)) {
        merge_flush(s, m);
    }
    m->reqs[m->n++] = r;
    m->niov += r->niov;
    m->len += len;
}

/* The VM runs again ("cont" after an I/O error): retry what was held. */
static void blk_vm_state_change(void *opaque, bool running, RunState state)
{
    VirtIOBlkPCI *s = opaque;
    VirtIOBlkReq *r;

    if (!running) {
        return;
    }
    blk_iostatus_reset(s->blk);
    while ((r = g_queue_pop_head(&s->held))) {
        req_submit(r, r->op, r->offset, r->len);
    }
}

/* Reset and unplug: held requests are dropped, as those in flight. */
static void drop_held(VirtIOBlkPCI *s)
{
    VirtIOBlkReq *r;

    while ((r = g_queue_pop_head(&s->held))) {
        virtqueue_element_free(r->elem);
        req_free(r);
    }
}

/* Buffers from byte offset skip on, len bytes, as an iovec array. */
static void req_iov(VirtIOBlkReq *r, const VirtQueueBuf *bufs, unsigned n,
                    size_t skip, size_t len)
{
    r->iov = g_new0(struct iovec, n ? n : 1);
    for (unsigned i = 0; i < n && len; i++) {
        size_t take;

        if (skip >= bufs[i].len) {
            skip -= bufs[i].len;
            continue;
        }
        take = MIN(len, bufs[i].len - skip);
        r->iov[r->niov].iov_base = (uint8_t *)bufs[i].host + skip;
        r->iov[r->niov].iov_len = take;
        r->niov++;
        len -= take;
        skip = 0;
    }
}

static bool sector_range_ok(VirtIOBlkPCI *s, uint64_t sector, uint64_t len)
{
    uint64_t align = s->logical_block_size;

    if (sector > UINT64_MAX / SECTOR_SIZE || (sector * SECTOR_SIZE) % align ||
        len % align) {
        return false;
    }
    return sector * SECTOR_SIZE <= blk_size(s->blk) &&
           len <= blk_size(s->blk) - sector * SECTOR_SIZE;
}

static uint64_t bufs_size(const VirtQueueBuf *bufs, unsigned n)
{
    uint64_t size = 0;

    for (unsigned i = 0; i < n; i++) {
        size += bufs[i].len;
    }
    return size;
}

/* DISCARD and WRITE_ZEROES: one segment after the header. */
static void handle_dwz(VirtIOBlkReq *r, uint32_t type, uint64_t out_size)
{
    VirtIOBlkPCI *s = r->s;
    VirtQueueElement *e = r->elem;
    uint8_t seg[16];
    uint64_t sector, nsect;
    uint32_t flags;
    bool zeroes = type == VIRTIO_BLK_T_WRITE_ZEROES;

    if ((zeroes ? !s->write_zeroes : !s->discard) || out_size != 16 + 16) {
        req_complete(r, VIRTIO_BLK_S_UNSUPP);
        return;
    }
    virtqueue_buf_to(e->out, e->out_num, 16, seg, sizeof(seg));
    sector = get_le(seg, 8);
    nsect = get_le(seg + 8, 4);
    flags = get_le(seg + 12, 4);
    if ((flags & ~(zeroes ? 1u : 0u)) || nsect > VIRTIO_BLK_MAX_SECTORS) {
        req_complete(r, VIRTIO_BLK_S_UNSUPP);
        return;
    }
    if (blk_is_read_only(s->blk) ||
        !sector_range_ok(s, sector, nsect * SECTOR_SIZE)) {
        blk_account_invalid(s->blk, zeroes ? BLOCK_WRITE_ZEROES
                                           : BLOCK_DISCARD);
        req_complete(r, VIRTIO_BLK_S_IOERR);
        return;
    }
    req_submit(r, zeroes ? BLOCK_WRITE_ZEROES : BLOCK_DISCARD,
               sector * SECTOR_SIZE, nsect * SECTOR_SIZE);
}

static void handle_request(VirtIOBlkPCI *s, VirtQueue *vq,
                           VirtQueueElement *e, BlkMerge *m)
{
    VirtIODevice *vdev = &s->proxy.vdev;
    uint64_t out_size = bufs_size(e->out, e->out_num);
    uint64_t in_size = bufs_size(e->in, e->in_num);
    VirtIOBlkReq *r;
    uint8_t hdr[16];
    uint32_t type;
    uint64_t sector, data;

    if (out_size < sizeof(hdr) || in_size < 1) {
        virtio_error(vdev, "request without its header or status byte");
        virtqueue_element_free(e);
        return;
    }
    r = g_new0(VirtIOBlkReq, 1);
    r->s = s;
    r->vq = vq;
    r->elem = e;
    r->generation = s->generation;
    /* The status is the last writable byte. */
    for (int i = e->in_num - 1; i >= 0; i--) {
        if (e->in[i].len) {
            r->status = (uint8_t *)e->in[i].host + e->in[i].len - 1;
            break;
        }
    }
    virtqueue_buf_to(e->out, e->out_num, 0, hdr, sizeof(hdr));
    type = get_le(hdr, 4);
    sector = get_le(hdr + 8, 8);
    if (type != VIRTIO_BLK_T_IN && type != VIRTIO_BLK_T_OUT) {
        /* A flush must follow the writes before it, not overtake them. */
        merge_flush(s, m);
    }
    switch (type) {
    case VIRTIO_BLK_T_IN:
    case VIRTIO_BLK_T_OUT: {
        bool write = type == VIRTIO_BLK_T_OUT;

        data = write ? out_size - sizeof(hdr) : in_size - 1;
        if ((write && blk_is_read_only(s->blk)) ||
            !sector_range_ok(s, sector, data)) {
            blk_account_invalid(s->blk, write ? BLOCK_WRITE : BLOCK_READ);
            req_complete(r, VIRTIO_BLK_S_IOERR);
            return;
        }
        if (write) {
            req_iov(r, e->out, e->out_num, sizeof(hdr), data);
        } else {
            req_iov(r, e->in, e->in_num, 0, data);
            r->in_len = data;
        }
        merge_add(s, m, r, write ? BLOCK_WRITE : BLOCK_READ,
                  sector * SECTOR_SIZE, data);
        return;
    }
    case VIRTIO_BLK_T_FLUSH:
        req_submit(r, BLOCK_FLUSH, 0, 0);
        return;
    case VIRTIO_BLK_T_GET_ID: {
        uint8_t id[VIRTIO_BLK_ID_BYTES] = { 0 };

        if (s->serial) {
            memcpy(id, s->serial, MIN(strlen(s->serial), sizeof(id)));
        }
        r->in_len = virtqueue_buf_from(e->in, e->in_num, 0, id,
                                       MIN(sizeof(id), in_size - 1));
        req_complete(r, VIRTIO_BLK_S_OK);
        return;
    }
    case VIRTIO_BLK_T_DISCARD:
    case VIRTIO_BLK_T_WRITE_ZEROES:
        handle_dwz(r, type, out_size);
        return;
    default:
        req_complete(r, VIRTIO_BLK_S_UNSUPP);
        return;
    }
}

static void blk_handle_output(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtQueueElement *e;
    BlkMerge m = { 0 };

    blk_io_plug();
    while ((e = virtqueue_pop(vq))) {
        handle_request(vdev->opaque, vq, e, &m);
    }
    merge_flush(vdev->opaque, &m);
    blk_io_unplug();
}

static void blk_reset(VirtIODevice *vdev)
{
    VirtIOBlkPCI *s = vdev->opaque;

    /* Requests in flight complete into nothing. */
    s->generation++;
    blk_drain_all();
    drop_held(s);
    s->wce = s->config_wce;
}

static const VirtioDeviceOps virtio_blk_ops = {
    .device_id = VIRTIO_ID_BLOCK,
    .config_len = VIRTIO_BLK_CONFIG_SIZE,
    .features = 1ULL << VIRTIO_BLK_F_SEG_MAX | 1ULL << VIRTIO_BLK_F_BLK_SIZE |
                1ULL << VIRTIO_BLK_F_FLUSH | 1ULL << VIRTIO_BLK_F_TOPOLOGY,
    .get_config = blk_get_config,
    .set_config = blk_set_config,
    .reset = blk_reset,
};

static bool check_block_size(const char *name, uint64_t v, Error **errp)
{
    if (v < 512 || v > 32768 || (v & (v - 1))) {
        error_setg(errp, "Property virtio-blk-device.%s doesn't take value "
                   "%" G_GUINT64_FORMAT " (must be a power of 2 between 512 "
                   "and 32768)", name, v);
        return false;
    }
    return true;
}

/* werror=, rerror=: a BlockdevOnError; auto (unset) keeps the drive's. */
static bool parse_on_error(const char *name, const char *value,
                           BlockdevOnError *action, Error **errp)
{
    *action = BLOCKDEV_ON_ERROR_AUTO;
    for (int i = 0; value && i < BLOCKDEV_ON_ERROR__MAX; i++) {
        if (!strcmp(value, BlockdevOnError_lookup[i])) {
            *action = i;
            return true;
        }
    }
    if (value) {
        error_setg(errp, "Parameter '%s' does not accept value '%s'", name,
                   value);
        return false;
    }
    return true;
}

/* block_resize: the guest sees the new capacity in the config space. */
static void blk_resized(void *opaque)
{
    VirtIOBlkPCI *s = opaque;

    virtio_notify_config(&s->proxy.vdev);
}

static bool virtio_blk_pci_realize(PCIDevice *d, Error **errp)
{
    VirtIOBlkPCI *s = (VirtIOBlkPCI *)d;
    VirtIODevice *vdev = &s->proxy.vdev;
    BlockdevOnError rerror, werror;
    unsigned perm, shared;

    if (!s->drive) {
        error_setg(errp, "drive property not set");
        return false;
    }
    s->blk = blk_find_for_device(s->drive);
    if (!s->blk) {
        error_setg(errp, "Property 'virtio-blk-device.drive' can't find "
                   "value '%s'", s->drive);
        return false;
    }
    if (!check_block_size("logical_block_size", s->logical_block_size,
                          errp) ||
        !check_block_size("physical_block_size", s->physical_block_size,
                          errp)) {
        return false;
    }
    if (!parse_on_error("werror", s->werror, &werror, errp) ||
        !parse_on_error("rerror", s->rerror, &rerror, errp)) {
        return false;
    }
    if (s->physical_block_size < s->logical_block_size) {
        error_setg(errp, "physical_block_size must be >= logical_block_size");
        return false;
    }
    if (!s->num_queues) {
        error_setg(errp, "num-queues property must be larger than 0");
        return false;
    }
    if (s->queue_size <= 2 || s->queue_size > VIRTQUEUE_MAX_SIZE ||
        (s->queue_size & (s->queue_size - 1))) {
        error_setg(errp, "invalid queue-size property (%u), must be a "
                   "power of 2 and between 2 and %d", s->queue_size,
                   VIRTQUEUE_MAX_SIZE);
        return false;
    }
    /*
     * As QEMU's block devices: others may read, but not write unless
     * share-rw=on.
     */
    perm = BLK_PERM_CONSISTENT_READ |
           (blk_is_read_only(s->blk) ? 0 : BLK_PERM_WRITE);
    shared = BLK_PERM_ALL & ~(s->share_rw ? 0 : BLK_PERM_WRITE);
    if (!blk_attach(s->blk, &d->qdev, perm, shared, errp)) {
        return false;
    }
    virtio_init(vdev, "virtio-blk", &virtio_blk_ops, s, s->num_queues);
    for (unsigned i = 0; i < s->num_queues; i++) {
        virtio_add_queue(vdev, i, s->queue_size, blk_handle_output);
    }
    if (s->num_queues > 1) {
        vdev->host_features |= 1ULL << VIRTIO_BLK_F_MQ;
    }
    if (s->config_wce) {
        vdev->host_features |= 1ULL << VIRTIO_BLK_F_CONFIG_WCE;
    }
    if (s->discard) {
        vdev->host_features |= 1ULL << VIRTIO_BLK_F_DISCARD;
    }
    if (s->write_zeroes) {
        vdev->host_features |= 1ULL << VIRTIO_BLK_F_WRITE_ZEROES;
    }
    if (blk_is_read_only(s->blk)) {
        vdev->host_features |= 1ULL << VIRTIO_BLK_F_RO;
    }
    if (!virtio_pci_realize(&s->proxy, s->num_queues + 1, errp)) {
        virtio_cleanup(vdev);
        blk_detach(s->blk);
        return false;
    }
    blk_set_resize_cb(s->blk, blk_resized, s);
    if (rerror != BLOCKDEV_ON_ERROR_AUTO || werror != BLOCKDEV_ON_ERROR_AUTO) {
        blk_set_on_error(s->blk,
                         rerror != BLOCKDEV_ON_ERROR_AUTO
                         ? rerror : blk_get_on_error(s->blk, true),
                         werror != BLOCKDEV_ON_ERROR_AUTO
                         ? werror : blk_get_on_error(s->blk, false));
    }
    blk_iostatus_enable(s->blk);
    g_queue_init(&s->held);
    s->vm_change = qemu_add_vm_change_state_handler(blk_vm_state_change, s);
    return true;
}

static void virtio_blk_pci_exit(PCIDevice *d)
{
    VirtIOBlkPCI *s = (VirtIOBlkPCI *)d;

    s->generation++;
    blk_drain_all();
    drop_held(s);
    qemu_del_vm_change_state_handler(s->vm_change);
    virtio_pci_exit(&s->proxy);
    blk_set_resize_cb(s->blk, NULL, NULL);
    blk_detach(s->blk);
}

static void virtio_blk_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIOBlkPCI *)d)->proxy);
}

/* QEMU's words for werror and rerror. */
#define ON_ERROR_HELP "Error handling policy, report/ignore/enospc/stop/auto"

static const Property virtio_blk_pci_props[] = {
    DEFINE_PROP_INT32("bootindex", VirtIOBlkPCI, bootindex, -1),
    DEFINE_PROP_BOOL("config-wce", VirtIOBlkPCI, config_wce, true),
    DEFINE_PROP_BOOL("discard", VirtIOBlkPCI, discard, true),
    DEFINE_PROP_STRING("drive", VirtIOBlkPCI, drive),
    DEFINE_PROP_SIZE("logical_block_size", VirtIOBlkPCI, logical_block_size,
                     512),
    DEFINE_PROP_UINT16("num-queues", VirtIOBlkPCI, num_queues, 1),
    DEFINE_PROP_SIZE("physical_block_size", VirtIOBlkPCI,
                     physical_block_size, 512),
    DEFINE_PROP_UINT16("queue-size", VirtIOBlkPCI, queue_size, 256),
    { .name = "rerror", .type = PROP_TYPE_STRING,
      .offset = offsetof(VirtIOBlkPCI, rerror), .defstr = "auto",
      .description = ON_ERROR_HELP },
    DEFINE_PROP_STRING("serial", VirtIOBlkPCI, serial),
    DEFINE_PROP_BOOL("share-rw", VirtIOBlkPCI, share_rw, false),
    { .name = "werror", .type = PROP_TYPE_STRING,
      .offset = offsetof(VirtIOBlkPCI, werror), .defstr = "auto",
      .description = ON_ERROR_HELP },
    DEFINE_PROP_BOOL("write-zeroes", VirtIOBlkPCI, write_zeroes, true),
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

/*
 * The migration drains the block layer before the state is saved, so
 * no request is in flight; one still held (it never is) would be
 * popped and submitted again on the destination.
 */
static const VMStateDescription vmstate_virtio_blk_pci = {
    .name = "virtio-blk-pci",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIOBlkPCI, proxy, VirtIOPCIProxy,
                       vmstate_virtio_pci),
        VMSTATE_U8(VirtIOBlkPCI, wce, VMS_RANGE(0, 1)),
        VMSTATE_END
    },
};

const PCIDeviceClass virtio_blk_pci_device_class = {
    .parent = {
        .name = "virtio-blk-pci",
        .virtio_backend = "virtio-blk-device",
        .category = "Storage devices",
        .instance_size = sizeof(VirtIOBlkPCI),
        .boot_suffix = "/disk@0,0",
        .props = virtio_blk_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_virtio_blk_pci,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = 0x0100,
    .realize = virtio_blk_pci_realize,
    .exit = virtio_blk_pci_exit,
    .reset = virtio_blk_pci_reset,
};

DEVICE_CLASS_REGISTER(virtio_blk_pci_device_class)
