/*
 * The virtio core (include/hw/virtio/virtio.h): status and features,
 * and the split virtqueue of virtio 1.x, 2.7:
 *   descriptor table  16 bytes each: addr (8), len (4), flags (2), next (2)
 *   available ring    flags (2), idx (2), ring[num] (2 each), used_event
 *   used ring         flags (2), idx (2), ring[num] {id (4), len (4)},
 *                     avail_event
 * Everything read from guest memory is checked before use; rings and
 * buffers must lie in RAM (found through the memory API), else the
 * device is broken, never the emulator.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <string.h>

#include "hw/virtio/virtio.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"

#define VRING_DESC_SIZE         16
#define VRING_AVAIL_RING        4
#define VRING_USED_RING         4
#define VRING_USED_ELEM_SIZE    8

/*
 * Ring accesses, RAM only (a ring over a device's registers would have
 * side effects): false when the range is not in RAM, and then broken.
 */
static bool ring_read(VirtIODevice *vdev, uint64_t addr, void *buf,
                      size_t len)
{
    void *p = address_space_ram_ptr(vdev->as, addr, len);

    if (!p) {
        virtio_error(vdev, "ring access at 0x%" PRIx64 " outside RAM", addr);
        return false;
    }
    memcpy(buf, p, len);
    return true;
}

static bool ring_read16(VirtIODevice *vdev, uint64_t addr, uint16_t *v)
{
    uint8_t b[2];

    if (!ring_read(vdev, addr, b, 2)) {
        return false;
    }
    *v = b[0] | b[1] << 8;
    return true;
}

static void ring_write(VirtIODevice *vdev, uint64_t addr, const void *buf,
                       size_t len)
{
    void *p = address_space_ram_ptr(vdev->as, addr, len);

    if (!p) {
        virtio_error(vdev, "ring access at 0x%" PRIx64 " outside RAM", addr);
        return;
    }
    memcpy(p, buf, len);
    address_space_ram_written(vdev->as, addr, len);
}

static void ring_write16(VirtIODevice *vdev, uint64_t addr, uint16_t v)
{
    uint8_t b[2] = { v, v >> 8 };

    ring_write(vdev, addr, b, 2);
}

void virtio_error(VirtIODevice *vdev, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    qemu_log_mask(LOG_GUEST_ERROR, "%s: %s\n", vdev->name, msg);
    g_free(msg);
    if (vdev->broken) {
        return;
    }
    vdev->broken = true;
    if (virtio_has_feature(vdev, VIRTIO_F_VERSION_1)) {
        vdev->status |= VIRTIO_CONFIG_S_NEEDS_RESET;
        virtio_notify_config(vdev);
    }
}

void virtio_init(VirtIODevice *vdev, const char *name,
                 const VirtioDeviceOps *ops, void *opaque, unsigned nvqs)
{
    vdev->name = name;
    vdev->ops = ops;
    vdev->opaque = opaque;
    vdev->as = &address_space_memory;
    vdev->nvqs = nvqs;
    vdev->vq = g_new0(VirtQueue, nvqs);
    vdev->config = g_malloc0(ops->config_len ? ops->config_len : 1);
    vdev->host_features = ops->features |
                          1ULL << VIRTIO_F_VERSION_1 |
                          1ULL << VIRTIO_F_RING_INDIRECT_DESC |
                          1ULL << VIRTIO_F_RING_EVENT_IDX;
    for (unsigned i = 0; i < nvqs; i++) {
        vdev->vq[i].vdev = vdev;
    }
    virtio_reset(vdev);
}

void virtio_cleanup(VirtIODevice *vdev)
{
    g_clear_pointer(&vdev->resume_timer, timer_free);
    g_free(vdev->vq);
    g_free(vdev->config);
    vdev->vq = NULL;
    vdev->config = NULL;
}

void virtio_add_queue(VirtIODevice *vdev, unsigned n, uint16_t num_max,
                      void (*handle_output)(VirtIODevice *, VirtQueue *))
{
    g_assert(n < vdev->nvqs && num_max <= VIRTQUEUE_MAX_SIZE);
    vdev->vq[n].num_max = num_max;
    vdev->vq[n].num = num_max;
    vdev->vq[n].handle_output = handle_output;
}

void virtio_reset(VirtIODevice *vdev)
{
    vdev->status = 0;
    vdev->isr = 0;
    vdev->broken = false;
    vdev->guest_features = 0;
    vdev->config_vector = VIRTIO_NO_VECTOR;
    for (unsigned i = 0; i < vdev->nvqs; i++) {
        VirtQueue *vq = &vdev->vq[i];

        vq->num = vq->num_max;
        vq->enabled = false;
        vq->vector = VIRTIO_NO_VECTOR;
        vq->desc = vq->avail = vq->used = 0;
        vq->last_avail_idx = vq->used_idx = 0;
        vq->signalled_used = 0;
        vq->signalled_used_valid = false;
        vq->inuse = 0;
    }
    if (vdev->ops->reset) {
        vdev->ops->reset(vdev);
    }
}

bool virtio_has_feature(const VirtIODevice *vdev, unsigned bit)
{
    return vdev->guest_features & (1ULL << bit);
}

void virtio_set_status(VirtIODevice *vdev, uint8_t status)
{
    if (!status) {
        virtio_reset(vdev);
        return;
    }
    /* NEEDS_RESET is the device's to set. */
    vdev->status = (status & ~VIRTIO_CONFIG_S_NEEDS_RESET) |
                   (vdev->status & VIRTIO_CONFIG_S_NEEDS_RESET);
    if (vdev->ops->set_status) {
        vdev->ops->set_status(vdev, vdev->status);
    }
}

void virtio_queue_notify(VirtIODevice *vdev, unsigned n)
{
    VirtQueue *vq;

    if (n >= vdev->nvqs) {
        qemu_log_mask(LOG_GUEST_ERROR, "%s: notify of queue %u of %u\n",
                      vdev->name, n, vdev->nvqs);
        return;
    }
    vq = &vdev->vq[n];
    if (vdev->broken || !vq->enabled || !vq->handle_output ||
        !(vdev->status & VIRTIO_CONFIG_S_DRIVER_OK)) {
        return;
    }
    vq->popped = 0;
    vq->handle_output(vdev, vq);
}

void virtio_config_read(VirtIODevice *vdev)
{
    if (vdev->ops->get_config) {
        vdev->ops->get_config(vdev, vdev->config);
    }
}

void virtio_config_written(VirtIODevice *vdev)
{
    if (vdev->ops->set_config) {
        vdev->ops->set_config(vdev, vdev->config);
    }
}

void virtio_notify_config(VirtIODevice *vdev)
{
    vdev->config_generation++;
    if (!(vdev->status & VIRTIO_CONFIG_S_DRIVER_OK)) {
        return;
    }
    vdev->isr |= 2;
    if (vdev->transport) {
        vdev->transport->notify(vdev->transport_opaque, vdev->config_vector);
    }
}

/* --- popping a chain --- */

typedef struct VRingDesc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags;
    uint16_t next;
} VRingDesc;

static bool read_desc(VirtIODevice *vdev, uint64_t table, unsigned i,
                      VRingDesc *d)
{
    uint8_t b[VRING_DESC_SIZE];

    if (!ring_read(vdev, table + (uint64_t)i * VRING_DESC_SIZE, b,
                   sizeof(b))) {
        return false;
    }
    d->addr = (uint64_t)b[0] | (uint64_t)b[1] << 8 | (uint64_t)b[2] << 16 |
              (uint64_t)b[3] << 24 | (uint64_t)b[4] << 32 |
              (uint64_t)b[5] << 40 | (uint64_t)b[6] << 48 |
              (uint64_t)b[7] << 56;
    d->len = b[8] | b[9] << 8 | b[10] << 16 | (uint32_t)b[11] << 24;
    d->flags = b[12] | b[13] << 8;
    d->next = b[14] | b[15] << 8;
    return true;
}

typedef struct ChainBuilder {
    VirtQueueBuf bufs[VIRTQUEUE_MAX_SIZE];
    unsigned n, out_num;
    bool seen_in;
} ChainBuilder;

static bool chain_add(VirtIODevice *vdev, ChainBuilder *c, const VRingDesc *d)
{
    bool in = d->flags & VRING_DESC_F_WRITE;
    void *host;

    if (c->n >= VIRTQUEUE_MAX_SIZE) {
        virtio_error(vdev, "chain of more than %u buffers",
                     VIRTQUEUE_MAX_SIZE);
        return false;
    }
    if (!in && c->seen_in) {
        virtio_error(vdev, "device-readable buffer after a writable one");
        return false;
    }
    if (d->len && d->addr + d->len - 1 < d->addr) {
        virtio_error(vdev, "buffer 0x%" PRIx64 "+0x%x wraps", d->addr,
                     d->len);
        return false;
    }
    host = d->len ? address_space_ram_ptr(vdev->as, d->addr, d->len) : NULL;
    if (d->len && !host) {
        virtio_error(vdev, "buffer 0x%" PRIx64 "+0x%x is not in RAM",
                     d->addr, d->len);
        return false;
    }
    c->bufs[c->n++] = (VirtQueueBuf) {
        .host = host, .addr = d->addr, .len = d->len,
    };
    if (in) {
        c->seen_in = true;
    } else {
        c->out_num++;
    }
    return true;
}

/* An indirect table: only as the chain's one descriptor, never nested. */
static bool chain_indirect(VirtIODevice *vdev, ChainBuilder *c,
                           const VRingDesc *d)
{
    unsigned max = d->len / VRING_DESC_SIZE, i = 0, count = 0;
    VRingDesc id;

    if (!virtio_has_feature(vdev, VIRTIO_F_RING_INDIRECT_DESC)) {
        virtio_error(vdev, "indirect descriptor without the feature");
        return false;
    }
    if (d->flags & VRING_DESC_F_NEXT || !max ||
        d->len % VRING_DESC_SIZE || max > VIRTQUEUE_MAX_SIZE) {
        virtio_error(vdev, "invalid indirect table of 0x%x bytes", d->len);
        return false;
    }
    for (;;) {
        if (!read_desc(vdev, d->addr, i, &id)) {
            return false;
        }
        if (id.flags & VRING_DESC_F_INDIRECT) {
            virtio_error(vdev, "nested indirect descriptor");
            return false;
        }
        if (!chain_add(vdev, c, &id)) {
            return false;
        }
        if (!(id.flags & VRING_DESC_F_NEXT)) {
            return true;
        }
        i = id.next;
        if (i >= max || ++count >= max) {
            virtio_error(vdev, "indirect chain loops or leaves its table");
            return false;
        }
    }
}

static VirtQueueElement *element_from(const ChainBuilder *c, unsigned head)
{
    VirtQueueElement *e = g_new0(VirtQueueElement, 1);

    e->index = head;
    e->out_num = c->out_num;
    e->in_num = c->n - c->out_num;
    e->out = g_memdup2(c->bufs, sizeof(VirtQueueBuf) * c->out_num);
    e->in = g_memdup2(c->bufs + c->out_num,
                      sizeof(VirtQueueBuf) * e->in_num);
    return e;
}

VirtQueueElement *virtqueue_pop(VirtQueue *vq)
{
    VirtIODevice *vdev = vq->vdev;
    ChainBuilder *c;
    VirtQueueElement *elem = NULL;
    uint16_t avail_idx, head;
    unsigned i, count = 0;
    VRingDesc d;

    if (vdev->broken || !vq->enabled || !vq->num ||
        !ring_read16(vdev, vq->avail + 2, &avail_idx)) {
        return NULL;
    }
    if ((uint16_t)(avail_idx - vq->last_avail_idx) > vq->num) {
        virtio_error(vdev, "avail index moved from %u to %u (queue size %u)",
                     vq->last_avail_idx, avail_idx, vq->num);
        return NULL;
    }
    if (avail_idx == vq->last_avail_idx || vq->popped >= vq->num) {
        return NULL;
    }
    /* Read the ring entry only after seeing the index. */
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (!ring_read16(vdev, vq->avail + VRING_AVAIL_RING +
                     2 * (vq->last_avail_idx % vq->num), &head)) {
        return NULL;
    }
    if (head >= vq->num) {
        virtio_error(vdev, "head %u beyond the queue size %u", head, vq->num);
        return NULL;
    }
    /*
     * Only the counters: zeroing 24 KiB of bufs per chain costs more
     * than the rest of a packet's path.
     */
    c = g_new(ChainBuilder, 1);
    c->n = c->out_num = 0;
    c->seen_in = false;
    for (i = head;;) {
        if (!read_desc(vdev, vq->desc, i, &d)) {
            goto out;
        }
        if (d.flags & VRING_DESC_F_INDIRECT) {
            if (c->n) {
                virtio_error(vdev, "indirect descriptor inside a chain");
                goto out;
            }
            if (!chain_indirect(vdev, c, &d)) {
                goto out;
            }
            break;
        }
        if (!chain_add(vdev, c, &d)) {
            goto out;
        }
        if (!(d.flags & VRING_DESC_F_NEXT)) {
            break;
        }
        i = d.next;
        if (i >= vq->num || ++count >= vq->num) {
            virtio_error(vdev, "descriptor chain loops or leaves the table");
            goto out;
        }
    }
    vq->last_avail_idx++;
    vq->popped++;
    vq->inuse++;
    if (virtio_has_feature(vdev, VIRTIO_F_RING_EVENT_IDX)) {
        ring_write16(vdev, vq->used + VRING_USED_RING +
                     VRING_USED_ELEM_SIZE * vq->num, vq->last_avail_idx);
    }
    elem = element_from(c, head);
out:
    g_free(c);
    return elem;
}

void virtqueue_new_pass(VirtQueue *vq)
{
    vq->popped = 0;
}

void virtqueue_element_free(VirtQueueElement *elem)
{
    if (elem) {
        g_free(elem->out);
        g_free(elem->in);
        g_free(elem);
    }
}

void virtqueue_unpop(VirtQueue *vq, VirtQueueElement *elem)
{
    virtqueue_element_free(elem);
    vq->last_avail_idx--;
    vq->popped--;
    vq->inuse--;
}

void virtqueue_push(VirtQueue *vq, VirtQueueElement *elem, uint32_t len)
{
    VirtIODevice *vdev = vq->vdev;
    uint64_t slot = vq->used + VRING_USED_RING +
                    VRING_USED_ELEM_SIZE * (uint64_t)(vq->used_idx % vq->num);
    uint8_t e[VRING_USED_ELEM_SIZE] = {
        elem->index, elem->index >> 8, elem->index >> 16, elem->index >> 24,
        len, len >> 8, len >> 16, len >> 24,
    };
    size_t left = len;

    /* What the device wrote through host pointers: tell the listeners. */
    for (unsigned i = 0; i < elem->in_num && left; i++) {
        size_t n = MIN(left, elem->in[i].len);

        address_space_ram_written(vdev->as, elem->in[i].addr, n);
        left -= n;
    }
    virtqueue_element_free(elem);
    if (vq->inuse) {
        vq->inuse--;
    }
    if (vdev->broken) {
        return;
    }
    ring_write(vdev, slot, e, sizeof(e));
    __atomic_thread_fence(__ATOMIC_RELEASE);
    vq->used_idx++;
    ring_write16(vdev, vq->used + 2, vq->used_idx);
}

/* virtio 1.x 2.7.7.2: notify when used_event lies in (old, new]. */
static bool vring_need_event(uint16_t event, uint16_t new, uint16_t old)
{
    return (uint16_t)(new - event - 1) < (uint16_t)(new - old);
}

void virtio_notify(VirtIODevice *vdev, VirtQueue *vq)
{
    uint16_t v, old = vq->signalled_used;
    bool valid = vq->signalled_used_valid;

    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (vdev->broken) {
        return;
    }
    if (virtio_has_feature(vdev, VIRTIO_F_RING_EVENT_IDX)) {
        if (!ring_read16(vdev, vq->avail + VRING_AVAIL_RING + 2 * vq->num,
                         &v)) {
            return;
        }
        vq->signalled_used = vq->used_idx;
        vq->signalled_used_valid = true;
        if (valid && !vring_need_event(v, vq->used_idx, old)) {
            return;
        }
    } else {
        if (!ring_read16(vdev, vq->avail, &v)) {
            return;
        }
        if (v & VRING_AVAIL_F_NO_INTERRUPT) {
            return;
        }
    }
    vdev->isr |= 1;
    if (vdev->transport) {
        vdev->transport->notify(vdev->transport_opaque, vq->vector);
    }
}

/* Copy between data and the buffers from offset on, either way. */
static size_t bufs_copy(const VirtQueueBuf *bufs, unsigned n, size_t offset,
                        uint8_t *data, size_t len, bool to_bufs)
{
    size_t done = 0;

    for (unsigned i = 0; i < n && done < len; i++) {
        uint8_t *host = bufs[i].host;
        size_t chunk;

        if (offset >= bufs[i].len) {
            offset -= bufs[i].len;
            continue;
        }
        chunk = MIN(len - done, bufs[i].len - offset);
        if (to_bufs) {
            memcpy(host + offset, data + done, chunk);
        } else {
            memcpy(data + done, host + offset, chunk);
        }
        done += chunk;
        offset = 0;
    }
    return done;
}

size_t virtqueue_buf_from(const VirtQueueBuf *bufs, unsigned n,
                          size_t offset, const void *src, size_t len)
{
    return bufs_copy(bufs, n, offset, (uint8_t *)src, len, true);
}

size_t virtqueue_buf_to(const VirtQueueBuf *bufs, unsigned n, size_t offset,
                        void *dst, size_t len)
{
    return bufs_copy(bufs, n, offset, dst, len, false);
}

/* --- migration ----------------------------------------------------------- */

static bool vq_num_check(void *opaque, const VMStateField *f, Error **errp)
{
    VirtQueue *vq = opaque;

    if (!vq->num || vq->num > vq->num_max || (vq->num & (vq->num - 1))) {
        error_setg(errp, "queue size %u (a power of 2, at most %u)", vq->num,
                   vq->num_max);
        return false;
    }
    return true;
}

static bool vq_enabled_check(void *opaque, const VMStateField *f,
                             Error **errp)
{
    VirtQueue *vq = opaque;

    if (vq->enabled && !vq->num) {
        error_setg(errp, "an enabled queue without a size");
        return false;
    }
    return true;
}

/* An enabled queue's rings lie in guest RAM (a disabled one's may not). */
static bool vq_ring_check(void *opaque, const VMStateField *f, Error **errp)
{
    VirtQueue *vq = opaque;
    uint64_t addr = *(uint64_t *)((uint8_t *)opaque + f->offset);
    uint64_t len = !strcmp(f->name, "desc") ? 16ull * vq->num
                   : !strcmp(f->name, "avail") ? 6 + 2ull * vq->num
                   : 6 + 8ull * vq->num;

    if (vq->enabled && !address_space_ram_ptr(vq->vdev->as, addr, len)) {
        error_setg(errp, "ring at 0x%" PRIx64 " (%" PRIu64 " bytes) is not "
                   "in guest RAM", addr, len);
        return false;
    }
    return true;
}

static bool vector_ok(const VirtIODevice *vdev, uint16_t vector,
                      Error **errp)
{
    if (vector != VIRTIO_NO_VECTOR && vector >= vdev->nvectors) {
        error_setg(errp, "MSI-X vector %u, the device has %u", vector,
                   vdev->nvectors);
        return false;
    }
    return true;
}

static bool vq_vector_check(void *opaque, const VMStateField *f,
                            Error **errp)
{
    VirtQueue *vq = opaque;

    return vector_ok(vq->vdev, vq->vector, errp);
}

/* The driver's avail index is at most a queue ahead of the device's. */
static bool vq_avail_idx_check(void *opaque, const VMStateField *f,
                               Error **errp)
{
    VirtQueue *vq = opaque;
    uint8_t *p;
    uint16_t avail_idx;

    if (!vq->enabled) {
        return true;
    }
    p = address_space_ram_ptr(vq->vdev->as, vq->avail + 2, 2);
    avail_idx = p[0] | p[1] << 8;
    if ((uint16_t)(avail_idx - vq->last_avail_idx) > vq->num) {
        error_setg(errp, "%u, but the driver's avail index is %u (queue size "
                   "%u)", vq->last_avail_idx, avail_idx, vq->num);
        return false;
    }
    return true;
}

static bool vq_inuse_check(void *opaque, const VMStateField *f,
                           Error **errp)
{
    VirtQueue *vq = opaque;

    if (vq->inuse > vq->num) {
        error_setg(errp, "%u chains held in a queue of %u", vq->inuse,
                   vq->num);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_virtqueue = {
    .name = "virtqueue",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U16(VirtQueue, num, .check = vq_num_check),
        VMSTATE_BOOL(VirtQueue, enabled, .check = vq_enabled_check),
        VMSTATE_U64(VirtQueue, desc, .check = vq_ring_check),
        VMSTATE_U64(VirtQueue, avail, .check = vq_ring_check),
        VMSTATE_U64(VirtQueue, used, .check = vq_ring_check),
        VMSTATE_U16(VirtQueue, vector, .check = vq_vector_check),
        VMSTATE_U16(VirtQueue, last_avail_idx, .check = vq_avail_idx_check),
        VMSTATE_U16(VirtQueue, used_idx),
        VMSTATE_U16(VirtQueue, signalled_used),
        VMSTATE_BOOL(VirtQueue, signalled_used_valid),
        VMSTATE_U16(VirtQueue, inuse, .check = vq_inuse_check),
        VMSTATE_END
    },
};

static bool features_check(void *opaque, const VMStateField *f, Error **errp)
{
    VirtIODevice *vdev = opaque;
    uint64_t extra = vdev->guest_features & ~vdev->host_features;

    if (extra) {
        error_setg(errp, "features 0x%" PRIx64 " that the device does not "
                   "offer", extra);
        return false;
    }
    return true;
}

static bool config_vector_check(void *opaque, const VMStateField *f,
                                Error **errp)
{
    VirtIODevice *vdev = opaque;

    return vector_ok(vdev, vdev->config_vector, errp);
}

/* The guest runs: the chains the source held are popped again. */
static void virtio_resume(void *opaque)
{
    VirtIODevice *vdev = opaque;

    for (unsigned i = 0; i < vdev->nvqs; i++) {
        virtio_queue_notify(vdev, i);
    }
}

static bool virtio_post_load(void *opaque, unsigned version, Error **errp)
{
    VirtIODevice *vdev = opaque;
    bool held = false;

    for (unsigned i = 0; i < vdev->nvqs; i++) {
        VirtQueue *vq = &vdev->vq[i];

        held |= vq->inuse != 0;
        vq->last_avail_idx -= vq->inuse;
        vq->inuse = 0;
        vq->popped = 0;
    }
    if (held && (vdev->status & VIRTIO_CONFIG_S_DRIVER_OK)) {
        if (!vdev->resume_timer) {
            vdev->resume_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL,
                                              virtio_resume, vdev);
        }
        timer_mod(vdev->resume_timer,
                  qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL));
    }
    return true;
}

const VMStateDescription vmstate_virtio = {
    .name = "virtio",
    .version = 1,
    .minimum_version = 1,
    .post_load = virtio_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(VirtIODevice, status),
        VMSTATE_U8(VirtIODevice, isr, VMS_RANGE(0, 3)),
        VMSTATE_U8(VirtIODevice, config_generation),
        VMSTATE_BOOL(VirtIODevice, broken),
        VMSTATE_U64(VirtIODevice, guest_features, .check = features_check),
        VMSTATE_U16(VirtIODevice, config_vector,
                    .check = config_vector_check),
        VMSTATE_STRUCT_VARRAY_POINTER(VirtIODevice, vq, nvqs, VirtQueue,
                                      vmstate_virtqueue),
        VMSTATE_END
    },
};
