/*
 * virtio-balloon-pci (virtio 1.x, 5.5): the host sets a target
 * (num_pages, QMP "balloon"), the guest driver hands pages over on the
 * inflate queue and takes them back on the deflate queue, and says how
 * many it holds (actual). Queues: 0 inflate, 1 deflate, 2 statistics,
 * then 3 free page reporting when free-page-reporting=on (virtio-pci
 * numbers only the queues a device has).
 *
 * Every page the guest gives back, and every range it reports free, is
 * discarded through ram_block_discard_range(), the one RAM policy: the
 * memory leaves the process now, under -overcommit mem-lock=on too
 * (docs/overcommit.md). The page lists are the guest's: a PFN outside
 * guest RAM is logged under -d guest_errors and skipped, as QEMU does;
 * a buffer outside RAM breaks the device (the virtio core's checks).
 *
 * Statistics: the driver keeps one buffer on the statistics queue; the
 * device returns it every guest-stats-polling-interval seconds (virtual
 * time) and the driver sends it back filled with (tag, value) pairs,
 * which qom-get of guest-stats shows.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/balloon.h"
#include "hw/virtio/virtio-balloon.h"
#include "hw/virtio/virtio-pci.h"
#include "vmstate/vmstate.h"
#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/ramblock.h"

#define VIRTIO_BALLOON_F_STATS_VQ       1
#define VIRTIO_BALLOON_F_DEFLATE_ON_OOM 2
#define VIRTIO_BALLOON_F_REPORTING      5

#define BALLOON_PFN_SHIFT       12      /* PFNs are of 4 KiB pages */
#define BALLOON_PAGE_SIZE       (1ull << BALLOON_PFN_SHIFT)
#define BALLOON_QUEUE_SIZE      128
#define BALLOON_VECTORS         5
#define BALLOON_CONFIG_LEN      8       /* num_pages, actual */

enum { BALLOON_Q_INFLATE, BALLOON_Q_DEFLATE, BALLOON_Q_STATS,
       BALLOON_Q_REPORTING };

/* The statistics tags (5.5.6.3) and their guest-stats names. */
static const char *const balloon_stat_names[] = {
    "stat-swap-in", "stat-swap-out", "stat-major-faults",
    "stat-minor-faults", "stat-free-memory", "stat-total-memory",
    "stat-available-memory", "stat-disk-caches", "stat-htlb-pgalloc",
    "stat-htlb-pgfail",
};
#define BALLOON_NSTATS G_N_ELEMENTS(balloon_stat_names)
#define BALLOON_STAT_LEN 10             /* le16 tag, le64 value */

typedef struct VirtIOBalloonPCI {
    VirtIOPCIProxy proxy;
    /* Properties. */
    bool deflate_on_oom;
    bool free_page_reporting;
    int64_t stats_interval;             /* guest-stats-polling-interval */
    /* State. */
    uint32_t num_pages;                 /* the target, in 4 KiB pages */
    uint32_t actual;                    /* what the guest holds */
    uint64_t ram_size;                  /* the machine's, from its slot */
    uint64_t stats[BALLOON_NSTATS];
    int64_t stats_last_update;          /* wall-clock seconds, 0: never */
    VirtQueueElement *stats_elem;       /* the driver's buffer, held */
    QEMUTimer *stats_timer;
    /* BALLOON_CHANGE, at most one a second (as QEMU's monitor sends it). */
    QEMUTimer *event_timer;             /* the end of the current second */
    bool event_pending;
    int64_t event_actual;               /* the latest held back */
} VirtIOBalloonPCI;


/*
 * Give [host, host + len) of guest RAM back; returns the bytes that
 * went. The range must lie in one RAM block (the callers' runs do); a
 * block with larger pages (hugetlbfs) loses only the pages the range
 * covers whole.
 */
static uint64_t balloon_discard(void *host, uint64_t len)
{
    Error *err = NULL;
    uint64_t off, start, end;
    RAMBlock *rb = ram_block_from_host(host, &off);

    if (!rb || len > rb->size - off) {
        return 0;
    }
    start = (off + rb->page_size - 1) / rb->page_size * rb->page_size;
    end = (off + len) / rb->page_size * rb->page_size;
    if (start >= end) {
        return 0;
    }
    if (!ram_block_discard_range(rb, start, end - start, &err)) {
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-balloon: %s\n",
                      error_get_pretty(err));
        error_free(err);
        return 0;
    }
    return end - start;
}

/*
 * The host page of pfn, or NULL (logged) when it is not guest RAM: the
 * guest may name any number, so each is looked up before use.
 */
static uint8_t *balloon_pfn_host(AddressSpace *as, uint32_t pfn)
{
    uint64_t gpa = (uint64_t)pfn << BALLOON_PFN_SHIFT, off;
    uint8_t *host = address_space_ram_ptr(as, gpa, BALLOON_PAGE_SIZE);

    if (!host || !ram_block_from_host(host, &off)) {
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-balloon: PFN 0x%x (0x%"
                      PRIx64 ") is not guest RAM; ignored\n", pfn, gpa);
        return NULL;
    }
    return host;
}

static bool same_block(const void *a, const void *b)
{
    uint64_t off;

    return ram_block_from_host(a, &off) == ram_block_from_host(b, &off);
}

uint64_t virtio_balloon_page_list(AddressSpace *as,
                                  const VirtQueueElement *elem, bool inflate)
{
    size_t total = 0, off;
    uint8_t *run = NULL;
    uint64_t run_len = 0, done = 0;

    for (unsigned i = 0; i < elem->out_num; i++) {
        total += elem->out[i].len;
    }
    if (total % 4) {
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-balloon: page list of %zu "
                      "bytes is not whole PFNs; the rest is ignored\n", total);
    }
    for (off = 0; off + 4 <= total; off += 4) {
        uint32_t pfn;
        uint8_t *host;

        virtqueue_buf_to(elem->out, elem->out_num, off, &pfn, 4);
        host = balloon_pfn_host(as, GUINT32_FROM_LE(pfn));
        if (!host || !inflate) {
            continue;
        }
        if (run && host == run + run_len && same_block(host, run)) {
            run_len += BALLOON_PAGE_SIZE;
            continue;
        }
        if (run) {
            done += balloon_discard(run, run_len);
        }
        run = host;
        run_len = BALLOON_PAGE_SIZE;
    }
    if (run) {
        done += balloon_discard(run, run_len);
    }
    return done;
}

uint64_t virtio_balloon_report(const VirtQueueElement *elem)
{
    uint64_t done = 0;

    if (elem->out_num) {
        qemu_log_mask(LOG_GUEST_ERROR, "virtio-balloon: free page report "
                      "with device-readable buffers; ignored\n");
    }
    for (unsigned i = 0; i < elem->in_num; i++) {
        if (elem->in[i].len) {
            done += balloon_discard(elem->in[i].host, elem->in[i].len);
        }
    }
    return done;
}

/* Inflate, deflate and free page reporting: the guest's pages back. */
static void balloon_handle_pages(VirtIODevice *vdev, VirtQueue *vq)
{
    unsigned q = vq - vdev->vq;
    VirtQueueElement *elem;
    bool pushed = false;

    while ((elem = virtqueue_pop(vq))) {
        if (q == BALLOON_Q_REPORTING) {
            virtio_balloon_report(elem);
        } else {
            virtio_balloon_page_list(vdev->as, elem,
                                     q == BALLOON_Q_INFLATE);
        }
        virtqueue_push(vq, elem, 0);
        pushed = true;
    }
    if (pushed) {
        virtio_notify(vdev, vq);
    }
}

/* --- statistics --- */

static void balloon_stats_clear(VirtIOBalloonPCI *s)
{
    for (unsigned i = 0; i < BALLOON_NSTATS; i++) {
        s->stats[i] = UINT64_MAX;       /* -1: not reported */
    }
}

static void balloon_stats_arm(VirtIOBalloonPCI *s)
{
    if (s->stats_interval > 0) {
        timer_mod(s->stats_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
                  s->stats_interval * 1000000000ll);
    } else {
        timer_del(s->stats_timer);
    }
}

/* The period is up: hand the buffer back so the driver refills it. */
static void balloon_stats_poll(void *opaque)
{
    VirtIOBalloonPCI *s = opaque;
    VirtIODevice *vdev = &s->proxy.vdev;
    VirtQueue *vq = &vdev->vq[BALLOON_Q_STATS];

    if (!s->stats_elem || vdev->broken) {
        balloon_stats_arm(s);
        return;
    }
    virtqueue_push(vq, s->stats_elem, 0);
    s->stats_elem = NULL;
    virtio_notify(vdev, vq);
}

static void balloon_handle_stats(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtIOBalloonPCI *s = vdev->opaque;
    VirtQueueElement *elem = virtqueue_pop(vq);
    size_t total = 0;

    if (!elem) {
        return;
    }
    if (s->stats_elem) {
        /* A driver keeps one buffer here; a second is a driver bug. */
        virtio_error(vdev, "a second statistics buffer");
        virtqueue_element_free(elem);
        return;
    }
    for (unsigned i = 0; i < elem->out_num; i++) {
        total += elem->out[i].len;
    }
    for (size_t off = 0; off + BALLOON_STAT_LEN <= total;
         off += BALLOON_STAT_LEN) {
        uint8_t raw[BALLOON_STAT_LEN];
        uint16_t tag;
        uint64_t val;

        virtqueue_buf_to(elem->out, elem->out_num, off, raw, sizeof(raw));
        memcpy(&tag, raw, 2);
        memcpy(&val, raw + 2, 8);
        tag = GUINT16_FROM_LE(tag);
        if (tag < BALLOON_NSTATS) {
            s->stats[tag] = GUINT64_FROM_LE(val);
        }   /* newer tags: ignored, as the spec allows */
    }
    s->stats_elem = elem;
    s->stats_last_update = g_get_real_time() / G_USEC_PER_SEC;
    balloon_stats_arm(s);
}

/* --- BALLOON_CHANGE: the first at once, the latest of a second after it --- */

#define BALLOON_EVENT_PERIOD_NS 1000000000ll

static void balloon_event_period(VirtIOBalloonPCI *s)
{
    timer_mod(s->event_timer, qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) +
              BALLOON_EVENT_PERIOD_NS);
}

static void balloon_event_flush(void *opaque)
{
    VirtIOBalloonPCI *s = opaque;

    if (s->event_pending) {
        s->event_pending = false;
        qapi_event_send_balloon_change(s->event_actual);
        balloon_event_period(s);
    }
}

static void balloon_event(VirtIOBalloonPCI *s, int64_t actual)
{
    if (timer_pending(s->event_timer)) {
        s->event_pending = true;
        s->event_actual = actual;
        return;
    }
    qapi_event_send_balloon_change(actual);
    balloon_event_period(s);
}

/* --- config, reset --- */

static void balloon_get_config(VirtIODevice *vdev, uint8_t *config)
{
    VirtIOBalloonPCI *s = vdev->opaque;
    uint32_t v = GUINT32_TO_LE(s->num_pages);

    memcpy(config, &v, 4);
    v = GUINT32_TO_LE(s->actual);
    memcpy(config + 4, &v, 4);
}

static void balloon_set_config(VirtIODevice *vdev, const uint8_t *config)
{
    VirtIOBalloonPCI *s = vdev->opaque;
    uint32_t actual;

    /* Only actual is the driver's (num_pages is read-only). */
    memcpy(&actual, config + 4, 4);
    actual = GUINT32_FROM_LE(actual);
    if (actual != s->actual) {
        uint64_t ram = s->ram_size;
        uint64_t given = (uint64_t)actual << BALLOON_PFN_SHIFT;

        s->actual = actual;
        balloon_event(s, given < ram ? ram - given : 0);
    }
}

static void balloon_reset(VirtIODevice *vdev)
{
    VirtIOBalloonPCI *s = vdev->opaque;

    /* A reset driver holds no pages; the target stays. */
    s->actual = 0;
    if (s->stats_elem) {
        virtqueue_element_free(s->stats_elem);
        s->stats_elem = NULL;
    }
    if (s->stats_timer) {
        timer_del(s->stats_timer);
    }
}

static const VirtioDeviceOps virtio_balloon_ops = {
    .device_id = VIRTIO_ID_BALLOON,
    .config_len = BALLOON_CONFIG_LEN,
    .get_config = balloon_get_config,
    .set_config = balloon_set_config,
    .reset = balloon_reset,
};

/* --- the machine's balloon slot (hw/core/balloon.c: QMP balloon) --- */

static void balloon_set_target(void *opaque, uint64_t target)
{
    VirtIOBalloonPCI *s = opaque;

    s->num_pages = (s->ram_size - target) >> BALLOON_PFN_SHIFT;
    virtio_notify_config(&s->proxy.vdev);
}

static uint64_t balloon_given(void *opaque)
{
    VirtIOBalloonPCI *s = opaque;

    return (uint64_t)s->actual << BALLOON_PFN_SHIFT;
}

static const BalloonOps virtio_balloon_slot_ops = {
    .set_target = balloon_set_target,
    .given = balloon_given,
};

/* --- the two computed properties (qom-get/qom-set, as QEMU's) --- */

static JsonNode *balloon_get_stats(void *state, Error **errp)
{
    VirtIOBalloonPCI *s = state;
    JsonObject *o = json_object_new(), *stats = json_object_new();
    JsonNode *n;

    for (unsigned i = 0; i < BALLOON_NSTATS; i++) {
        json_object_set_int_member(stats, balloon_stat_names[i],
                                   (gint64)s->stats[i]);
    }
    json_object_set_object_member(o, "stats", stats);
    json_object_set_int_member(o, "last-update", s->stats_last_update);
    n = json_node_init_object(json_node_alloc(), o);
    json_object_unref(o);
    return n;
}

static bool balloon_set_interval(void *state, JsonNode *value, Error **errp)
{
    VirtIOBalloonPCI *s = state;
    gint64 v;

    if (!JSON_NODE_HOLDS_VALUE(value) ||
        json_node_get_value_type(value) != G_TYPE_INT64) {
        error_setg(errp, "Invalid parameter type for "
                   "'guest-stats-polling-interval', expected: integer");
        return false;
    }
    v = json_node_get_int(value);
    if (v < 0) {
        error_setg(errp, "timer value must be greater than zero");
        return false;
    }
    if (v > UINT32_MAX) {
        error_setg(errp, "timer value is too big");
        return false;
    }
    s->stats_interval = v;
    balloon_stats_arm(s);
    return true;
}

/* --- PCI --- */

static bool virtio_balloon_pci_realize(PCIDevice *d, Error **errp)
{
    VirtIOBalloonPCI *s = (VirtIOBalloonPCI *)d;
    VirtIODevice *vdev = &s->proxy.vdev;
    unsigned nvqs = s->free_page_reporting ? 4 : 3;

    if (!machine_balloon_add(&virtio_balloon_slot_ops, s, &s->ram_size,
                             errp)) {
        return false;
    }
    virtio_init(vdev, "virtio-balloon", &virtio_balloon_ops, s, nvqs);
    vdev->host_features |= 1ull << VIRTIO_BALLOON_F_STATS_VQ;
    if (s->deflate_on_oom) {
        vdev->host_features |= 1ull << VIRTIO_BALLOON_F_DEFLATE_ON_OOM;
    }
    if (s->free_page_reporting) {
        vdev->host_features |= 1ull << VIRTIO_BALLOON_F_REPORTING;
    }
    virtio_add_queue(vdev, BALLOON_Q_INFLATE, BALLOON_QUEUE_SIZE,
                     balloon_handle_pages);
    virtio_add_queue(vdev, BALLOON_Q_DEFLATE, BALLOON_QUEUE_SIZE,
                     balloon_handle_pages);
    virtio_add_queue(vdev, BALLOON_Q_STATS, BALLOON_QUEUE_SIZE,
                     balloon_handle_stats);
    if (s->free_page_reporting) {
        virtio_add_queue(vdev, BALLOON_Q_REPORTING, BALLOON_QUEUE_SIZE,
                         balloon_handle_pages);
    }
    balloon_stats_clear(s);
    s->stats_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, balloon_stats_poll, s);
    s->event_timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, balloon_event_flush, s);
    if (!virtio_pci_realize(&s->proxy, BALLOON_VECTORS, errp)) {
        timer_free(s->event_timer);
        timer_free(s->stats_timer);
        s->event_timer = s->stats_timer = NULL;
        virtio_cleanup(vdev);
        machine_balloon_remove(s);
        return false;
    }
    return true;
}

static void virtio_balloon_pci_exit(PCIDevice *d)
{
    VirtIOBalloonPCI *s = (VirtIOBalloonPCI *)d;

    machine_balloon_remove(s);
    balloon_reset(&s->proxy.vdev);
    timer_free(s->event_timer);
    timer_free(s->stats_timer);
    s->event_timer = s->stats_timer = NULL;
    virtio_pci_exit(&s->proxy);
}

static void virtio_balloon_pci_reset(PCIDevice *d)
{
    virtio_pci_reset(&((VirtIOBalloonPCI *)d)->proxy);
}

static const Property virtio_balloon_pci_props[] = {
    DEFINE_PROP_BOOL("deflate-on-oom", VirtIOBalloonPCI, deflate_on_oom,
                     false),
    DEFINE_PROP_BOOL("free-page-reporting", VirtIOBalloonPCI,
                     free_page_reporting, false),
    { .name = "guest-stats-polling-interval", .type = PROP_TYPE_INT64,
      .offset = offsetof(VirtIOBalloonPCI, stats_interval),
      .type_name = "int", .runtime = true, .set = balloon_set_interval },
    { .name = "guest-stats", .type = PROP_TYPE_INT64,
      .offset = offsetof(VirtIOBalloonPCI, stats_last_update),
      .type_name = "guest-stats", .get = balloon_get_stats },
    VIRTIO_PCI_PROPS,
    PCI_DEVICE_PROPS,
    PROP_END,
};

/* --- migration --- */

/*
 * The statistics buffer the driver left here is popped again on the
 * destination (which reads the figures from it once more).
 */
static const VMStateDescription vmstate_virtio_balloon_pci = {
    .name = "virtio-balloon-pci",
    .version = 1,
    .minimum_version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_STRUCT(VirtIOBalloonPCI, proxy, VirtIOPCIProxy,
                       vmstate_virtio_pci),
        VMSTATE_U32(VirtIOBalloonPCI, num_pages),
        VMSTATE_U32(VirtIOBalloonPCI, actual),
        VMSTATE_I64(VirtIOBalloonPCI, stats_interval,
                    VMS_RANGE(0, UINT32_MAX)),
        VMSTATE_U64_ARRAY(VirtIOBalloonPCI, stats, BALLOON_NSTATS),
        VMSTATE_I64(VirtIOBalloonPCI, stats_last_update),
        VMSTATE_TIMER(VirtIOBalloonPCI, stats_timer),
        VMSTATE_END
    },
};

const PCIDeviceClass virtio_balloon_pci_device_class = {
    .parent = {
        .name = "virtio-balloon-pci",
        .category = "Misc devices",
        .instance_size = sizeof(VirtIOBalloonPCI),
        .props = virtio_balloon_pci_props,
        .user_creatable = true,
        .vmsd = &vmstate_virtio_balloon_pci,
        PCI_DEVICE_CLASS_INIT,
    },
    .vendor_id = PCI_VENDOR_ID_REDHAT_QUMRANET,
    .class_id = PCI_CLASS_OTHERS,
    .realize = virtio_balloon_pci_realize,
    .exit = virtio_balloon_pci_exit,
    .reset = virtio_balloon_pci_reset,
};

DEVICE_CLASS_REGISTER(virtio_balloon_pci_device_class)
