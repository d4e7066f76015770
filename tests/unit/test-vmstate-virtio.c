/*
 * The virtio core's field table (vmstate_virtio): a device with live
 * queues saved and loaded into a fresh one compares equal, a chain the
 * device held is available again after the load, and every load-side
 * check refuses a crafted value with the field's path: a queue size not
 * a power of 2 or above the maximum, a ring outside guest RAM, an avail
 * index more than a queue ahead, a vector beyond the transport's,
 * features not offered, too many chains held, another queue count.
 */
#include <string.h>

#include <glib.h>

#include "hw/virtio/virtio.h"
#include "vmstate/vmstate.h"
#include "system/memory.h"

#define RAM_BASE        0x10000u
#define RAM_SIZE        0x10000u
#define QSIZE           16
#define DESC            (RAM_BASE + 0x1000)
#define AVAIL           (RAM_BASE + 0x2000)
#define USED            (RAM_BASE + 0x3000)
#define BUF             (RAM_BASE + 0x4000)

static uint8_t ram[RAM_SIZE];
static MemoryRegion ram_mr;
static unsigned handled;

static const VirtioDeviceOps test_ops = {
    .device_id = VIRTIO_ID_RNG,
};

/* Completes what it pops: counts them. */
static void handle(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtQueueElement *e;

    while ((e = virtqueue_pop(vq))) {
        handled++;
        virtqueue_push(vq, e, 0);
    }
}

/* Holds what it pops (as virtio-rng waiting for its backend). */
static VirtQueueElement *held;

static void hold(VirtIODevice *vdev, VirtQueue *vq)
{
    if (!held) {
        held = virtqueue_pop(vq);
    }
}

static void put16(uint64_t addr, uint16_t v)
{
    ram[addr - RAM_BASE] = v;
    ram[addr - RAM_BASE + 1] = v >> 8;
}

/* Descriptor i: a 16-byte device-writable buffer; published in avail. */
static void driver_add(unsigned i)
{
    uint8_t *d = ram + (DESC - RAM_BASE) + 16 * i;
    uint64_t buf = BUF + 16 * i;
    uint16_t idx = ram[AVAIL - RAM_BASE + 2] | ram[AVAIL - RAM_BASE + 3] << 8;

    memset(d, 0, 16);
    memcpy(d, &buf, 8);
    d[8] = 16;
    d[12] = VRING_DESC_F_WRITE;
    put16(AVAIL + 4 + 2 * (idx % QSIZE), i);
    put16(AVAIL + 2, idx + 1);
}

static void dev_init(VirtIODevice *vdev, unsigned nvqs,
                     void (*fn)(VirtIODevice *, VirtQueue *))
{
    memset(vdev, 0, sizeof(*vdev));
    virtio_init(vdev, "test-virtio", &test_ops, NULL, nvqs);
    vdev->nvectors = 3;
    for (unsigned i = 0; i < nvqs; i++) {
        virtio_add_queue(vdev, i, 64, fn);
    }
}

/* Queue 0 live at QSIZE with MSI-X vector 1; the driver ready. */
static void dev_setup(VirtIODevice *vdev)
{
    VirtQueue *vq = &vdev->vq[0];

    vdev->guest_features = 1ULL << VIRTIO_F_VERSION_1;
    vdev->config_vector = 0;
    vq->num = QSIZE;
    vq->desc = DESC;
    vq->avail = AVAIL;
    vq->used = USED;
    vq->vector = 1;
    vq->enabled = true;
    vdev->status = VIRTIO_CONFIG_S_ACKNOWLEDGE | VIRTIO_CONFIG_S_DRIVER |
                   VIRTIO_CONFIG_S_FEATURES_OK | VIRTIO_CONFIG_S_DRIVER_OK;
}

static void setup_ram(void)
{
    static bool mapped;

    if (!mapped) {
        memory_region_init_ram_ptr(&ram_mr, "ram", sizeof(ram), ram);
        address_space_map_region(&address_space_memory, &ram_mr, RAM_BASE,
                                 NULL);
        mapped = true;
    }
    memset(ram, 0, sizeof(ram));
}

static GByteArray *save(VirtIODevice *vdev)
{
    GByteArray *buf = g_byte_array_new();

    g_assert_true(vmstate_save(&vmstate_virtio, vdev, buf));
    return buf;
}

static void test_round_trip(void)
{
    VirtIODevice a, b;
    GByteArray *buf;
    Error *err = NULL;
    char *field = NULL;

    setup_ram();
    dev_init(&a, 2, handle);
    dev_setup(&a);
    handled = 0;
    for (unsigned i = 0; i < 3; i++) {
        driver_add(i);
    }
    virtio_queue_notify(&a, 0);
    g_assert_cmpuint(handled, ==, 3);
    a.config_generation = 5;

    buf = save(&a);
    dev_init(&b, 2, handle);
    g_assert_true(vmstate_load(&vmstate_virtio, &b, 1, buf->data, buf->len,
                               "test-virtio instance 0", &err));
    g_assert_null(err);
    g_assert_true(vmstate_equal(&vmstate_virtio, &a, &b, &field));
    g_assert_cmpuint(b.vq[0].last_avail_idx, ==, 3);
    g_assert_cmpuint(b.vq[0].used_idx, ==, 3);

    /* The destination goes on where the source stopped. */
    driver_add(3);
    virtio_queue_notify(&b, 0);
    g_assert_cmpuint(handled, ==, 4);
    g_assert_cmpuint(ram[USED - RAM_BASE + 2], ==, 4);
    g_byte_array_free(buf, TRUE);
    virtio_cleanup(&a);
    virtio_cleanup(&b);
}

/* A chain the source held is popped again on the destination. */
static void test_held_chain(void)
{
    VirtIODevice a, b;
    GByteArray *buf;
    Error *err = NULL;

    setup_ram();
    dev_init(&a, 1, hold);
    dev_setup(&a);
    held = NULL;
    driver_add(0);
    virtio_queue_notify(&a, 0);
    g_assert_nonnull(held);
    g_assert_cmpuint(a.vq[0].inuse, ==, 1);
    virtqueue_element_free(held);
    held = NULL;

    buf = save(&a);
    dev_init(&b, 1, hold);
    g_assert_true(vmstate_load(&vmstate_virtio, &b, 1, buf->data, buf->len,
                               "test-virtio instance 0", &err));
    g_assert_cmpuint(b.vq[0].last_avail_idx, ==, 0);
    g_assert_cmpuint(b.vq[0].inuse, ==, 0);
    g_assert_nonnull(b.resume_timer);
    virtio_queue_notify(&b, 0);
    g_assert_nonnull(held);
    g_assert_cmpuint(held->index, ==, 0);
    virtqueue_element_free(held);
    held = NULL;
    g_byte_array_free(buf, TRUE);
    virtio_cleanup(&a);
    virtio_cleanup(&b);
}

typedef struct BadCase {
    const char *what;
    void (*spoil)(VirtIODevice *vdev);
    const char *error;
} BadCase;

static void spoil_size(VirtIODevice *v)
{
    v->vq[0].num = 12;
}

static void spoil_size_max(VirtIODevice *v)
{
    v->vq[0].num = 128;
}

static void spoil_desc(VirtIODevice *v)
{
    v->vq[0].desc = 0x7fff0000;
}

static void spoil_used(VirtIODevice *v)
{
    v->vq[0].used = RAM_BASE + RAM_SIZE - 8;
}

static void spoil_avail_idx(VirtIODevice *v)
{
    v->vq[0].last_avail_idx = 40000;
}

static void spoil_vector(VirtIODevice *v)
{
    v->vq[0].vector = 3;
}

static void spoil_config_vector(VirtIODevice *v)
{
    v->config_vector = 7;
}

static void spoil_features(VirtIODevice *v)
{
    v->guest_features |= 1ULL << 40;
}

static void spoil_inuse(VirtIODevice *v)
{
    v->vq[0].inuse = QSIZE + 1;
}

static void spoil_isr(VirtIODevice *v)
{
    v->isr = 4;
}

static const BadCase bad_cases[] = {
    { "size", spoil_size, "test-virtio instance 0: field 'vq[0].num': "
      "queue size 12 (a power of 2, at most 64)" },
    { "size-max", spoil_size_max, "test-virtio instance 0: field "
      "'vq[0].num': queue size 128 (a power of 2, at most 64)" },
    { "desc", spoil_desc, "test-virtio instance 0: field 'vq[0].desc': "
      "ring at 0x7fff0000 (256 bytes) is not in guest RAM" },
    { "used", spoil_used, "test-virtio instance 0: field 'vq[0].used': "
      "ring at 0x1fff8 (134 bytes) is not in guest RAM" },
    { "avail-idx", spoil_avail_idx, "test-virtio instance 0: field "
      "'vq[0].last_avail_idx': 40000, but the driver's avail index is 1 "
      "(queue size 16)" },
    { "vector", spoil_vector, "test-virtio instance 0: field "
      "'vq[0].vector': MSI-X vector 3, the device has 3" },
    { "config-vector", spoil_config_vector, "test-virtio instance 0: "
      "field 'config_vector': MSI-X vector 7, the device has 3" },
    { "features", spoil_features, "test-virtio instance 0: field "
      "'guest_features': features 0x10000000000 that the device does not "
      "offer" },
    { "inuse", spoil_inuse, "test-virtio instance 0: field "
      "'vq[0].inuse': 17 chains held in a queue of 16" },
    { "isr", spoil_isr, "test-virtio instance 0: field 'isr': value 4 is "
      "out of range 0..3" },
};

static void test_refused(gconstpointer data)
{
    const BadCase *c = data;
    VirtIODevice a, b;
    GByteArray *buf;
    Error *err = NULL;

    setup_ram();
    dev_init(&a, 2, handle);
    dev_setup(&a);
    driver_add(0);
    c->spoil(&a);
    buf = save(&a);
    dev_init(&b, 2, handle);
    g_assert_false(vmstate_load(&vmstate_virtio, &b, 1, buf->data, buf->len,
                                "test-virtio instance 0", &err));
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, c->error);
    error_free(err);
    g_byte_array_free(buf, TRUE);
    virtio_cleanup(&a);
    virtio_cleanup(&b);
}

/* A device with another number of queues is another configuration. */
static void test_queue_count(void)
{
    VirtIODevice a, b;
    GByteArray *buf;
    Error *err = NULL;

    setup_ram();
    dev_init(&a, 2, handle);
    buf = save(&a);
    dev_init(&b, 3, handle);
    g_assert_false(vmstate_load(&vmstate_virtio, &b, 1, buf->data, buf->len,
                                "test-virtio instance 0", &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "test-virtio instance 0: "
                    "field 'vq': 2 elements in the stream, 3 here");
    error_free(err);
    g_byte_array_free(buf, TRUE);
    virtio_cleanup(&a);
    virtio_cleanup(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vmstate-virtio/round-trip", test_round_trip);
    g_test_add_func("/vmstate-virtio/held-chain", test_held_chain);
    g_test_add_func("/vmstate-virtio/queue-count", test_queue_count);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
        char *path = g_strdup_printf("/vmstate-virtio/refused/%s",
                                     bad_cases[i].what);

        g_test_add_data_func(path, &bad_cases[i], test_refused);
        g_free(path);
    }
    return g_test_run();
}
