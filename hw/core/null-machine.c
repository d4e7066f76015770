/*
 * The "none" machine: no CPU and no devices; with -m, plain RAM at
 * address 0. The process runs its main loop, answers its monitors and
 * exits cleanly.
 */
#include "vmstate/ram-regions.h"
#include "hw/boards.h"
#include "system/memory.h"
#include "system/hostmem.h"

static RAMBlock *none_ram;
static MemoryRegion none_ram_region;

static bool none_machine_init(MachineState *ms, Error **errp)
{
    /*
     * QEMU 7.2 refuses -cpu here too: its none machine creates the CPU
     * but gives it no APIC ID, which an x86 CPU cannot be without. Its
     * message comes first, for scripts that look for it.
     */
    if (ms->cfg->cpu.model) {
        loc_restore(&ms->cfg->cpu.loc);
        error_setg(errp, "apic-id property was not initialized properly "
                   "(machine 'none' has no x86 vCPU, as in QEMU 7.2)");
        return false;
    }
    if (!ms->ram_size) {
        return true;
    }
    /* The machine's memory backend, which vl.c made or chose. */
    none_ram = host_memory_backend_machine_ram();
    if (!none_ram) {
        error_setg(errp, "machine 'none' has no memory backend");
        return false;
    }
    memory_region_init_ram_ptr(&none_ram_region, "ram", ms->ram_size,
                               none_ram->host);
    if (!address_space_map_region(&address_space_memory, &none_ram_region,
                                  0, errp)) {
        return false;
    }
    ram_migration_register(&none_ram_region);
    return true;
}

static void none_machine_cleanup(MachineState *ms)
{
    ram_migration_unregister(&none_ram_region);
    memory_region_finalize(&none_ram_region);
    /* The backend owns the RAM and releases it after the machine. */
    none_ram = NULL;
}

static const MachineClass none_machine_class = {
    .name = "none",
    .desc = "empty machine",
    .max_cpus = 1,
    .default_ram_size = 0,
    .no_serial = true,
    .default_ram_id = "ram",
    .init = none_machine_init,
    .cleanup = none_machine_cleanup,
};

MACHINE_CLASS_REGISTER(none_machine_class)
