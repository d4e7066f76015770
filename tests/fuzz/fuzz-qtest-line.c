/*
 * libFuzzer target: the qtest line parser against a small machine (RAM
 * and a port I/O device), fed arbitrary bytes. Anything but a clean
 * reply per line (a crash, a leak, UB, a hang) is a bug.
 */
#include <string.h>

#include "qemu/timer.h"
#include "system/memory.h"
#include "system/qtest.h"

static uint8_t ram[1 << 20];
static MemoryRegion ram_mr, io_mr;
static uint8_t io_reg;

static uint64_t io_read(void *opaque, uint64_t addr, unsigned size)
{
    return io_reg;
}

static void io_write(void *opaque, uint64_t addr, uint64_t value,
                     unsigned size)
{
    io_reg = value;
}

static const MemoryRegionOps io_ops = {
    .read = io_read,
    .write = io_write,
    .valid = { .min_access_size = 1, .max_access_size = 2 },
};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static QTestServer *s;

    if (!s) {
        qemu_clock_set_manual(true);
        memory_region_init_ram_ptr(&ram_mr, "ram", sizeof(ram), ram);
        address_space_map_region(&address_space_memory, &ram_mr, 0, NULL);
        memory_region_init_io(&io_mr, "io", &io_ops, NULL, 8);
        address_space_map_region(&address_space_io, &io_mr, 0x3f8, NULL);
        s = qtest_server_new_detached(NULL, NULL);
    }
    qtest_server_feed(s, data, size);
    /* End the last line so every input is processed completely. */
    qtest_server_feed(s, (const uint8_t *)"\n", 1);
    return 0;
}
