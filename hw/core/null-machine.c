/*
 * The "none" machine: no RAM, no CPU, no devices. The process runs its
 * main loop, answers its monitors and exits cleanly.
 */
#include "hw/boards.h"

static bool none_machine_init(MachineState *ms, Error **errp)
{
    (void)ms;
    (void)errp;
    return true;
}

static void none_machine_cleanup(MachineState *ms)
{
    (void)ms;
}

const MachineClass none_machine_class = {
    .name = "none",
    .desc = "empty machine",
    .max_cpus = 1,
    .default_ram_size = 0,
    .init = none_machine_init,
    .cleanup = none_machine_cleanup,
};
