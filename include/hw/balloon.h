/*
 * The machine's balloon: one balloon device per machine, as QEMU allows
 * one balloon handler. The device fills its slot at realize; QMP
 * balloon and query-balloon (hw/core/balloon.c) act through it.
 */
#ifndef HW_BALLOON_H
#define HW_BALLOON_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

typedef struct BalloonOps {
    /* Ask the guest to hold target bytes (at most the RAM size). */
    void (*set_target)(void *opaque, uint64_t target);
    /* The bytes the guest gave to the balloon. */
    uint64_t (*given)(void *opaque);
} BalloonOps;

/*
 * Fill the slot; *ram_size gets the machine's RAM size (0 without a
 * machine). Fails with QEMU's message when a balloon is there already.
 */
bool machine_balloon_add(const BalloonOps *ops, void *opaque,
                         uint64_t *ram_size, Error **errp);
/* Empty the slot if opaque fills it. */
void machine_balloon_remove(void *opaque);

#endif
