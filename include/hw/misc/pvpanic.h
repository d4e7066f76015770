/*
 * The paravirtual panic register that pvpanic (ISA) and pvpanic-pci
 * share: a read returns the events the device offers, a byte written
 * reports one (QEMU's docs/specs/pvpanic.rst).
 */
#ifndef HW_MISC_PVPANIC_H
#define HW_MISC_PVPANIC_H

#include <stdbool.h>
#include <stdint.h>

#include "system/memory.h"

#define PVPANIC_PANICKED        (1u << 0)
#define PVPANIC_CRASH_LOADED    (1u << 1)
#define PVPANIC_EVENTS          (PVPANIC_PANICKED | PVPANIC_CRASH_LOADED)

typedef struct PVPanicState {
    MemoryRegion mr;
    uint8_t events;             /* "events": what a read returns */
    bool logged;                /* an unknown event was logged once */
} PVPanicState;

/* The register as a region of size bytes, each of which reads events. */
void pvpanic_init_region(PVPanicState *s, uint64_t size);

/*
 * The ISA device's port, for the board's fw_cfg file and DSDT: false
 * when there is no pvpanic device.
 */
bool pvpanic_isa_port(uint16_t *port);

#endif
