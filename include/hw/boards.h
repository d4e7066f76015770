/*
 * Machine types: a table of plain descriptions, no class hierarchy.
 */
#ifndef HW_BOARDS_H
#define HW_BOARDS_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qom/object.h"
#include "system/vm-config.h"

typedef struct MachineClass MachineClass;

typedef struct MachineState {
    const MachineClass *mc;
    const VmConfig *cfg;
    uint64_t ram_size;          /* bytes of guest RAM */
    unsigned smp_cpus;
    struct Object *obj;         /* /machine */
    void *board;                /* the board's state, from init to cleanup */
} MachineState;

struct MachineClass {
    const char *name;
    const char *alias;          /* "pc" for the versioned PC, or NULL */
    const char *desc;
    bool is_default;
    unsigned max_cpus;
    uint64_t default_ram_size;
    bool no_serial;             /* no default serial port */
    const char *default_ram_id; /* the id QEMU gives the -m backend */
    bool kernel_boot;           /* loads -kernel, -initrd, -append */
    /*
     * Its one vCPU takes its APIC ID from -cpu's apic-id, which must be
     * given (QEMU's none machine); else the -smp topology numbers them.
     */
    bool cpu_apic_id_from_option;
    /*
     * The NIC model of -nic and -net nic without model=, and of the
     * default network (-net nic -net user) unless -nodefaults or any
     * -net, -nic, -netdev; NULL: no default network.
     */
    const char *default_nic;
    /*
     * The -machine properties only this board has, of those
     * hw/core/machine.c knows ("pit", "acpi"); NULL-terminated, or NULL.
     */
    const char *const *board_props;
    /* Build the board: RAM, devices, loaders. */
    bool (*init)(MachineState *ms, Error **errp);
    /*
     * After the -device devices exist (QEMU's machine-init-done): what
     * depends on them (the bootorder list, ACPI tables, and the kernel
     * loaded after them). NULL: nothing.
     */
    bool (*devices_done)(MachineState *ms, Error **errp);
    /* Undo init, also after a partial init. */
    void (*cleanup)(MachineState *ms);
};

/*
 * The machine types of this binary: each board file ends with
 * MACHINE_CLASS_REGISTER(its_class), which adds it (and its QOM type) to
 * the registry of hw/core/machine.c before main() runs.
 */
void machine_class_register(const MachineClass *mc);
#define MACHINE_CLASS_REGISTER(cls) \
    static void __attribute__((constructor)) cls##_register(void) \
    { \
        machine_class_register(&(cls)); \
    }

/* Find a machine type by name or alias. */
const MachineClass *machine_find(const char *name);
const MachineClass *machine_default(void);
void machine_foreach(void (*fn)(const MachineClass *mc, void *opaque),
                     void *opaque);
/*
 * The machine being run (NULL before machine creation), set by the
 * program's edge; for the machine-wide QMP commands of hw/core
 * (query-machines' neighbours, balloon), never for devices, which get
 * what they need from the board as properties.
 */
void machine_set_current(MachineState *ms);
MachineState *machine_current(void);
void machine_print_list(void);
/* "none-machine", the name QEMU's messages give a machine's properties. */
char *machine_type_name(const MachineClass *mc);
/* Validate and take the -machine properties into cfg->machine. */
bool machine_apply_options(const MachineClass *mc, MachineOptions *mo,
                           Error **errp);
/*
 * Refuse, with the option as context, what the command line asks for
 * that no part of this build can provide yet.
 */
bool machine_check_unsupported(const MachineClass *mc, const VmConfig *cfg,
                               Error **errp);

/* The -machine options as QOM properties (ending in PROP_END). */
const Property *machine_properties(void);

#endif
