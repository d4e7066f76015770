/*
 * The i440FX PC machine. Its board (RAM layout, chipset, ISA devices)
 * is not built yet; asking for it is a clear error at machine creation.
 */
#include "hw/boards.h"

static bool pc_init(MachineState *ms, Error **errp)
{
    error_setg(errp, "machine type '%s': the PC board is not implemented "
               "in this release yet; use -machine none", ms->mc->name);
    return false;
}

const MachineClass pc_i440fx_machine_class = {
    .name = "pc-i440fx-7.2",
    .alias = "pc",
    .desc = "Standard PC (i440FX + PIIX, 1996)",
    .is_default = true,
    .max_cpus = 255,
    .default_ram_size = 128 << 20,
    .init = pc_init,
};
