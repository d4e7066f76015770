/*
 * The pvpanic register: reads return the supported events, a write
 * reports events. As in QEMU 7.2, a write's PANICKED bit wins over its
 * CRASH_LOADED bit, and the bits act whatever "events" offers (the
 * property only says what a read returns); other bits are logged once
 * under -d guest_errors and ignored.
 */
#include "hw/misc/pvpanic.h"
#include "qemu/log.h"
#include "system/runstate.h"

static uint64_t pvpanic_read(void *opaque, uint64_t addr, unsigned size)
{
    PVPanicState *s = opaque;

    return s->events;
}

static void pvpanic_write(void *opaque, uint64_t addr, uint64_t value,
                          unsigned size)
{
    PVPanicState *s = opaque;
    uint8_t event = value;

    if ((event & ~PVPANIC_EVENTS) && !s->logged) {
        qemu_log_mask(LOG_GUEST_ERROR, "pvpanic: unknown event %#x.\n",
                      event);
        s->logged = true;
    }
    if (event & PVPANIC_PANICKED) {
        qemu_system_guest_panicked();
    } else if (event & PVPANIC_CRASH_LOADED) {
        qemu_system_guest_crashloaded();
    }
}

/* Wider accesses come as bytes, each reading the events (as QEMU). */
static const MemoryRegionOps pvpanic_ops = {
    .read = pvpanic_read,
    .write = pvpanic_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 1, .max_access_size = 1 },
};

void pvpanic_init_region(PVPanicState *s, uint64_t size)
{
    memory_region_init_io(&s->mr, "pvpanic", &pvpanic_ops, s, size);
}
