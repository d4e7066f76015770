/*
 * Process-wide settings taken from the command line.
 */
#ifndef SYSTEM_SYSTEM_H
#define SYSTEM_SYSTEM_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"

/* -overcommit mem-lock=off|on|on-fault */
typedef enum MlockState {
    MLOCK_OFF,
    MLOCK_ON,          /* mlockall(MCL_CURRENT | MCL_FUTURE) */
    MLOCK_ON_FAULT,    /* ... | MCL_ONFAULT: lock pages as they fault in */
} MlockState;

extern MlockState mlock_state;
extern bool enable_cpu_pm;        /* -overcommit cpu-pm=on */

static inline bool should_mlock(MlockState state)
{
    return state != MLOCK_OFF;
}

static inline bool is_mlock_on_fault(MlockState state)
{
    return state == MLOCK_ON_FAULT;
}

/*
 * Parse one -overcommit argument: only the keys it names change, so
 * repeated -overcommit options accumulate as in QEMU.
 */
bool overcommit_parse(const char *arg, MlockState *mem_lock, bool *cpu_pm,
                      Error **errp);

extern const char *qemu_name;     /* -name guest= */
extern bool qemu_uuid_set;
extern uint8_t qemu_uuid[16];     /* -uuid */
extern bool autostart;            /* cleared by -S */


#endif
