/*
 * libFuzzer target: the incoming migration loader (migration/savevm.c,
 * stream.c, ram.c, vmstate.c) on a stream the input is. A 1 MiB RAM
 * region "ram-below-4g" is registered as the pc machine's would be; the
 * state sections meet the loader's lookups (no devices, no vCPUs: each is
 * refused by name), and every state payload is also loaded into a scratch
 * vCPU with the software CPU's field table, the largest one, and into a
 * scratch virtio device with the virtio core's (queues in that RAM, kicked
 * when the load succeeds). A crash, a
 * leak, UB or a hang is a bug; a refusal is the expected answer.
 */
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <glib.h>

#include "hw/virtio/virtio.h"
#include "vmstate/ram-regions.h"
#include "migration/savevm.h"
#include "migration/stream.h"
#include "vmstate/vmstate.h"
#include "system/memory.h"
#include "target/i386/cpu-state.h"

#define RAM_SIZE    (1u << 20)

static uint8_t *ram;
static MemoryRegion ram_mr;
static X86CPU *cpu;

static const VirtioDeviceOps fuzz_virtio_ops = {
    .device_id = VIRTIO_ID_RNG,
};

static void fuzz_virtio_handle(VirtIODevice *vdev, VirtQueue *vq)
{
    VirtQueueElement *e;

    while ((e = virtqueue_pop(vq))) {
        virtqueue_push(vq, e, 0);
    }
}

/*
 * A section's payload as the virtio core's state (two queues, three
 * vectors, rings in the 1 MiB of RAM), then the queues kicked.
 */
static void load_virtio(const uint8_t *data, size_t len)
{
    VirtIODevice vdev = { 0 };
    Error *err = NULL;

    virtio_init(&vdev, "fuzz-virtio", &fuzz_virtio_ops, NULL, 2);
    vdev.nvectors = 3;
    virtio_add_queue(&vdev, 0, 64, fuzz_virtio_handle);
    virtio_add_queue(&vdev, 1, 8, fuzz_virtio_handle);
    if (vmstate_load(&vmstate_virtio, &vdev, 1, data, len,
                     "virtio instance 0", &err)) {
        virtio_queue_notify(&vdev, 0);
        virtio_queue_notify(&vdev, 1);
    } else {
        g_assert(err && error_get_pretty(err)[0]);
        error_free(err);
    }
    virtio_cleanup(&vdev);
}

static void setup(void)
{
    ram = g_malloc0(RAM_SIZE);
    memory_region_init_ram_ptr(&ram_mr, "ram-below-4g", RAM_SIZE, ram);
    ram_migration_register(&ram_mr);
    address_space_map_region(&address_space_memory, &ram_mr, 0, NULL);
    cpu = g_new0(X86CPU, 1);
    cpu->env.cpu = cpu;
}

/* Every state section of the input, into the scratch vCPU. */
static void load_states(const uint8_t *data, size_t size)
{
    size_t off = 8;

    while (off + 2 <= size) {
        size_t name_len = data[off + 1], hdr = 2 + name_len + 12;
        uint32_t len;
        Error *err = NULL;

        if (off + hdr > size) {
            return;
        }
        memcpy(&len, data + off + 2 + name_len + 8, 4);
        len = GUINT32_FROM_LE(len);
        if (len > size - off - hdr) {
            return;
        }
        if (data[off] == MIG_SEC_STATE) {
            if (!vmstate_load(x86_cpu_vmstate(), cpu, 1, data + off + hdr,
                              len, "cpu instance 0", &err)) {
                error_free(err);
            }
            load_virtio(data + off + hdr, len);
        }
        off += hdr + len + 4;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static bool ready;
    MigStream *s;
    Error *err = NULL;
    int fd;

    if (!ready) {
        setup();
        ready = true;
    }
    fd = memfd_create("fuzz-migration", MFD_CLOEXEC);
    if (fd < 0 || write(fd, data, size) != (ssize_t)size ||
        lseek(fd, 0, SEEK_SET) != 0) {
        abort();
    }
    s = g_new(MigStream, 1);
    mig_stream_init(s, fd, -1);
    if (!savevm_load_stream(s, &err)) {
        g_assert(err && error_get_pretty(err)[0]);
        error_free(err);
    }
    g_free(s);
    close(fd);
    load_states(data, size);
    return 0;
}
