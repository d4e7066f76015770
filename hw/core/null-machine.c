/*
 * The "none" machine: no CPU and no devices; with -m, plain RAM at
 * address 0. The process runs its main loop, answers its monitors and
 * exits cleanly.
 */
#include "hw/boards.h"
#include "system/memory.h"
#include "system/ramblock.h"

static RAMBlock *none_ram;
static MemoryRegion none_ram_region;

static bool none_machine_init(MachineState *ms, Error **errp)
{
    const MachineOptions *mo = &ms->cfg->machine;

    if (ms->cfg->cpu.model) {
        loc_restore(&ms->cfg->cpu.loc);
        error_setg(errp, "machine 'none' runs no vCPU in this release yet");
        return false;
    }
    if (!ms->ram_size) {
        return true;
    }
    none_ram = ram_block_new_anon("ram", ms->ram_size, mo->mem_merge,
                                  mo->dump_guest_core, errp);
    if (!none_ram) {
        return false;
    }
    memory_region_init_ram_ptr(&none_ram_region, "ram", ms->ram_size,
                               none_ram->host);
    return address_space_map_region(&address_space_memory, &none_ram_region,
                                    0, errp);
}

static void none_machine_cleanup(MachineState *ms)
{
    memory_region_finalize(&none_ram_region);
    ram_block_free(none_ram);
    none_ram = NULL;
}

const MachineClass none_machine_class = {
    .name = "none",
    .desc = "empty machine",
    .max_cpus = 1,
    .default_ram_size = 0,
    .no_serial = true,
    .init = none_machine_init,
    .cleanup = none_machine_cleanup,
};
