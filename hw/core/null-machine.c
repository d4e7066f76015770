/*
 * The "none" machine: no devices; with -m, plain RAM at address 0; with
 * -cpu, one vCPU, as QEMU 7.2 makes it: its APIC ID from -cpu's apic-id
 * (no topology to count one from: without it QEMU's error), starting at
 * the reset vector with nothing there to run. The process runs its main
 * loop, answers its monitors and exits cleanly.
 */
#include "vmstate/ram-regions.h"
#include "hw/boards.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/hostmem.h"
#include "system/runstate.h"

static RAMBlock *none_ram;
static MemoryRegion none_ram_region;

static bool none_machine_init(MachineState *ms, Error **errp)
{
    if (ms->cfg->cpu.model && !vcpus_create(ms, errp)) {
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

/* system_reset: the vCPU (if any) starts over at the reset vector. */
static void none_machine_reset(void *opaque)
{
    vcpus_reset(NULL);
}

static bool none_machine_devices_done(MachineState *ms, Error **errp)
{
    if (ms->cfg->cpu.model) {
        none_machine_reset(NULL);
        qemu_register_reset(none_machine_reset, NULL);
    }
    return true;
}

static void none_machine_cleanup(MachineState *ms)
{
    if (ms->cfg->cpu.model) {
        vcpus_destroy();
    }
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
    .cpu_apic_id_from_option = true,
    .init = none_machine_init,
    .devices_done = none_machine_devices_done,
    .cleanup = none_machine_cleanup,
};

MACHINE_CLASS_REGISTER(none_machine_class)
