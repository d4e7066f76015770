/*
 * libFuzzer target: the qtest line parser against a small machine (RAM
 * and a port I/O device), fed arbitrary bytes. Anything but a clean
 * reply per line (a crash, a leak, UB, a hang, a reply that is not OK,
 * ERR, FAIL or IRQ) is a bug. The server runs with small limits: with
 * QEMU's, a few "read 0 06666666" lines (megabytes of hex each) made
 * the fuzzer 30 times slower without reaching new code.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

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

#define FUZZ_MAX_LINE 1024    /* below libFuzzer's 4096-byte inputs */
#define FUZZ_MAX_READ 4096

static void check_reply(const char *line, void *opaque)
{
    size_t len = strlen(line);

    if (len > 2 * FUZZ_MAX_READ + 64 ||
        !(g_str_has_prefix(line, "OK") || g_str_has_prefix(line, "ERR ") ||
          g_str_has_prefix(line, "FAIL ") || g_str_has_prefix(line, "IRQ "))) {
        abort();
    }
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
        s = qtest_server_new_detached(check_reply, NULL);
        qtest_server_set_limits(s, FUZZ_MAX_LINE, FUZZ_MAX_READ);
    }
    qtest_server_feed(s, data, size);
    /* End the last line so every input is processed completely. */
    qtest_server_feed(s, (const uint8_t *)"\n", 1);
    return 0;
}
