/*
 * The registry of machine types and the -machine properties they share.
 */
#include <stdio.h>
#include <string.h>

#include "hw/boards.h"
#include "qemu/registry.h"

/*
 * Every machine type this binary has, in the order -machine help lists
 * them (by name, the newest versions first, as QEMU's list).
 */
static Registry machine_classes = { .names_descending = true };
static MachineState *current_machine;

void machine_class_register(const MachineClass *mc)
{
    char *type = machine_type_name(mc);

    registry_add(&machine_classes, mc, mc->name, 0);
    type_register(type, "machine", false);
    g_free(type);
}

static void __attribute__((constructor)) machine_register_types(void)
{
    type_register("machine", NULL, true);
}

void machine_set_current(MachineState *ms)
{
    current_machine = ms;
}

MachineState *machine_current(void)
{
    return current_machine;
}

const MachineClass *machine_find(const char *name)
{
    const MachineClass *mc;

    for (unsigned i = 0; (mc = registry_at(&machine_classes, i)); i++) {
        if (!strcmp(mc->name, name) || (mc->alias && !strcmp(mc->alias, name))) {
            return mc;
        }
    }
    return NULL;
}

const MachineClass *machine_default(void)
{
    const MachineClass *mc;

    for (unsigned i = 0; (mc = registry_at(&machine_classes, i)); i++) {
        if (mc->is_default) {
            return mc;
        }
    }
    return NULL;
}

void machine_foreach(void (*fn)(const MachineClass *mc, void *opaque),
                     void *opaque)
{
    const MachineClass *mc;

    for (unsigned i = 0; (mc = registry_at(&machine_classes, i)); i++) {
        fn(mc, opaque);
    }
}

void machine_print_list(void)
{
    const MachineClass *mc;

    printf("Supported machines are:\n");
    for (unsigned i = 0; (mc = registry_at(&machine_classes, i)); i++) {
        if (mc->alias) {
            printf("%-20s %s (alias of %s)\n", mc->alias, mc->desc, mc->name);
        }
        printf("%-20s %s%s\n", mc->name, mc->desc,
               mc->is_default ? " (default)" : "");
    }
}

char *machine_type_name(const MachineClass *mc)
{
    return g_strdup_printf("%s-machine", mc->name);
}

static const QemuOptDesc machine_props[] = {
    { "type", QEMU_OPT_STRING },
    { "accel", QEMU_OPT_STRING },
    { "memory-backend", QEMU_OPT_STRING },
    { "kernel-irqchip", QEMU_OPT_STRING },
    { "dump-guest-core", QEMU_OPT_BOOL },
    { "mem-merge", QEMU_OPT_BOOL },
    { "pit", QEMU_OPT_BOOL },           /* pc only */
    { "acpi", QEMU_OPT_STRING },        /* pc only: on, off, auto */
    { "hpet", QEMU_OPT_BOOL },          /* pc only */
    { "vmport", QEMU_OPT_STRING },      /* pc only: on, off, auto */
    { "smm", QEMU_OPT_STRING },         /* pc only: off, auto (on refused) */
    { "usb", QEMU_OPT_BOOL },
    { NULL },
};

/*
 * The -machine options as properties of the machine types, for
 * qom-list-properties: made once from machine_props, so the two never
 * disagree.
 */
const Property *machine_properties(void)
{
    static const PropType types[] = {
        [QEMU_OPT_STRING] = PROP_TYPE_STRING,
        [QEMU_OPT_BOOL] = PROP_TYPE_BOOL,
        [QEMU_OPT_NUMBER] = PROP_TYPE_UINT64,
        [QEMU_OPT_SIZE] = PROP_TYPE_SIZE,
    };
    static Property props[G_N_ELEMENTS(machine_props)];

    if (!props[0].name) {
        Property *p = props;

        for (const QemuOptDesc *d = machine_props; d->name; d++) {
            if (strcmp(d->name, "type")) {
                p->name = d->name;
                p->type = types[d->type];
                p++;
            }
        }
    }
    return props;
}

/* Of machine_props, those a board must name in its board_props. */
static const char *const board_only_props[] = {
    "pit", "acpi", "hpet", "vmport", "smm", NULL
};

static bool board_has_prop(const MachineClass *mc, const char *name)
{
    for (const char *const *p = mc->board_props; p && *p; p++) {
        if (!strcmp(*p, name)) {
            return true;
        }
    }
    return false;
}

bool machine_apply_options(const MachineClass *mc, MachineOptions *mo,
                           Error **errp)
{
    const char *unknown = qemu_opts_find_unknown(mo->opts, machine_props);
    const char *s;

    /* Properties only some boards have. */
    for (const char *const *b = board_only_props; !unknown && *b; b++) {
        if (qemu_opt_get(mo->opts, *b) && !board_has_prop(mc, *b)) {
            unknown = *b;
        }
    }
    if (unknown) {
        char *type = machine_type_name(mc);

        error_setg(errp, "Property '%s.%s' not found", type, unknown);
        g_free(type);
        return false;
    }
    if (!qemu_opt_get_bool(mo->opts, "dump-guest-core", &mo->dump_guest_core,
                           errp) ||
        !qemu_opt_get_bool(mo->opts, "mem-merge", &mo->mem_merge, errp) ||
        !qemu_opt_get_bool(mo->opts, "pit", &(bool){ true }, errp) ||
        !qemu_opt_get_bool(mo->opts, "hpet", &(bool){ true }, errp)) {
        return false;
    }
    /* vmport: auto means off here, as there is no VMware port yet. */
    if ((s = qemu_opt_get(mo->opts, "vmport"))) {
        bool on;

        if (strcmp(s, "auto") && !qemu_parse_bool("vmport", s, &on, NULL)) {
            error_setg(errp, "Parameter 'vmport' does not accept value '%s'",
                       s);
            return false;
        }
        if (strcmp(s, "auto") && on) {
            error_setg(errp, "vmport=on is not supported yet; off and auto "
                       "(which is off) are");
            return false;
        }
    }
    if (!qemu_opt_get_bool(mo->opts, "usb", &mo->usb, errp)) {
        return false;
    }
    if (mo->usb) {
        error_setg(errp, "USB is not available in this release yet; "
                   "usb=off is the only value");
        return false;
    }
    mo->acpi = true;
    if ((s = qemu_opt_get(mo->opts, "acpi")) && strcmp(s, "auto")) {
        if (!qemu_parse_bool("acpi", s, &mo->acpi, NULL)) {
            error_setg(errp, "Parameter 'acpi' does not accept value '%s'",
                       s);
            return false;
        }
    }
    if ((s = qemu_opt_get(mo->opts, "kernel-irqchip"))) {
        bool on;

        if (!strcmp(s, "split")) {
            mo->kernel_irqchip = KERNEL_IRQCHIP_SPLIT;
        } else if (qemu_parse_bool("kernel-irqchip", s, &on, NULL)) {
            mo->kernel_irqchip = on ? KERNEL_IRQCHIP_ON : KERNEL_IRQCHIP_OFF;
        } else {
            error_setg(errp, "Parameter 'kernel-irqchip' expects 'on', "
                       "'off' or 'split'");
            return false;
        }
    }
    g_free(mo->accel);
    mo->accel = g_strdup(qemu_opt_get(mo->opts, "accel"));
    g_free(mo->memory_backend);
    mo->memory_backend = g_strdup(qemu_opt_get(mo->opts, "memory-backend"));
    return true;
}

static bool refuse(const Location *loc, Error **errp, const char *what)
{
    /* The error is reported against the option that asked for it. */
    loc_restore(loc);
    error_setg(errp, "%s", what);
    return false;
}

bool machine_check_unsupported(const MachineClass *mc, const VmConfig *cfg,
                               Error **errp)
{
    char *msg = NULL;
    bool ok = false;

    if (!cfg->kernel && cfg->initrd) {
        error_setg(errp, "-initrd only allowed with -kernel option");
    } else if (!cfg->kernel && cfg->append) {
        error_setg(errp, "-append only allowed with -kernel option");
    } else if (!mc->kernel_boot && cfg->kernel) {
        msg = g_strdup_printf("machine '%s' cannot load a kernel in this "
                              "release yet", mc->name);
        ok = refuse(&cfg->kernel_loc, errp, msg);
    } else {
        ok = true;
    }
    g_free(msg);
    return ok;
}
