/*
 * Accelerator registry and selection.
 */
#include <stdio.h>
#include <string.h>

#include "qemu/registry.h"
#include "system/accel.h"
#include "system/cpus.h"

/* In QEMU's "-accel help" order (accel_class_register()'s ORDER). */
static Registry accel_classes;

void accel_class_register(const AccelClass *ac, int order)
{
    char *type = g_strdup_printf("%s-accel", ac->name);

    registry_add(&accel_classes, ac, ac->name, order);
    type_register("accel", NULL, true);
    type_register(type, "accel", false);
    g_free(type);
}

static const AccelClass *current_accel;

const AccelClass *accel_find(const char *name)
{
    return registry_find(&accel_classes, name);
}

const AccelClass *accel_class_at(unsigned i)
{
    return registry_at(&accel_classes, i);
}

const AccelClass *accel_current(void)
{
    return current_accel;
}

bool accel_is_current(const char *name)
{
    return current_accel && !strcmp(current_accel->name, name);
}

void accel_print_list(void)
{
    const AccelClass *ac;

    printf("Accelerators supported in QEMU binary:\n");
    for (unsigned i = 0; (ac = registry_at(&accel_classes, i)); i++) {
        printf("%s\n", ac->name);
    }
}

static bool accel_name_valid(const char *name, Error **errp)
{
    if (accel_find(name)) {
        return true;
    }
    error_setg(errp, "invalid accelerator %s", name);
    return false;
}

bool accel_check_options(const QemuOpts *opts, Error **errp)
{
    const char *names = qemu_opt_get(opts, "accel");
    char **list;
    bool ok = true;

    if (!names || !*names) {
        error_setg(errp, "Parameter 'accel' is missing");
        return false;
    }
    list = g_strsplit(names, ":", -1);
    for (char **n = list; *n && ok; n++) {
        const AccelClass *ac;

        ok = accel_name_valid(*n, errp);
        if (!ok) {
            break;
        }
        ac = accel_find(*n);
        for (unsigned i = 0; i < qemu_opts_count(opts); i++) {
            const char *key = qemu_opts_nth(opts, i)->name;
            const QemuOptDesc *d = ac->props;

            if (!strcmp(key, "accel")) {
                continue;
            }
            while (d && d->name && strcmp(d->name, key)) {
                d++;
            }
            if (!d || !d->name) {
                error_setg(errp, "Property '%s-accel.%s' not found", *n, key);
                ok = false;
                break;
            }
        }
        if (ok && ac->check) {
            ok = ac->check(opts, errp);
        }
    }
    g_strfreev(list);
    return ok;
}

static bool try_accel(struct MachineState *ms, const char *name, const QemuOpts *props,
                      bool last, bool quiet, Error **errp)
{
    const AccelClass *ac = accel_find(name);
    Error *err = NULL;

    if (!accel_name_valid(name, &err)) {
        goto fail;
    }
    if (ac->init(ms, props, &err)) {
        current_accel = ac;
        cpus_register_accel(ac->ops);
        return true;
    }
    error_prepend(&err, "failed to initialize %s: ", name);
fail:
    if (last) {
        error_propagate(errp, err);
    } else if (quiet) {
        error_free(err);
    } else {
        warn_report_err(err);
    }
    return false;
}

bool accel_configure(struct MachineState *ms, const VmConfig *cfg, Error **errp)
{
    GPtrArray *tries = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *props = g_ptr_array_new();
    bool ok = false, quiet = false;

    if (cfg->accels->len) {
        for (unsigned i = 0; i < cfg->accels->len; i++) {
            CmdlineItem *it = g_ptr_array_index(cfg->accels, i);
            char **names = g_strsplit(qemu_opt_get(it->opts, "accel"), ":",
                                      -1);

            for (char **n = names; *n; n++) {
                g_ptr_array_add(tries, g_strdup(*n));
                g_ptr_array_add(props, it->opts);
            }
            g_strfreev(names);
        }
    } else {
        /*
         * Nothing asked: KVM where it works, else the software CPU,
         * without a word about KVM (the user did not ask for it).
         */
        char **names = g_strsplit(cfg->machine.accel ? cfg->machine.accel
                                                     : "kvm:tcg", ":", -1);

        quiet = !cfg->machine.accel;

        for (char **n = names; *n; n++) {
            g_ptr_array_add(tries, g_strdup(*n));
            g_ptr_array_add(props, NULL);
        }
        g_strfreev(names);
    }
    for (unsigned i = 0; i < tries->len && !ok; i++) {
        ok = try_accel(ms, g_ptr_array_index(tries, i),
                       g_ptr_array_index(props, i), i + 1 == tries->len,
                       quiet, errp);
    }
    g_ptr_array_free(tries, TRUE);
    g_ptr_array_free(props, TRUE);
    return ok;
}

bool accel_irqchip_in_kernel(void)
{
    return current_accel && current_accel->irqchip_in_kernel;
}

const char *accel_device_type(const char *type)
{
    const char *const *t = current_accel ? current_accel->device_types
                                         : NULL;

    for (; t && t[0]; t += 2) {
        if (!strcmp(t[0], type)) {
            return t[1];
        }
    }
    return type;
}

bool accel_reserved_range(uint64_t *base, uint64_t *size)
{
    if (!current_accel || !current_accel->reserved_size) {
        return false;
    }
    *base = current_accel->reserved_base;
    *size = current_accel->reserved_size;
    return true;
}

void accel_cleanup(void)
{
    cpus_register_accel(NULL);
    if (current_accel && current_accel->cleanup) {
        current_accel->cleanup();
    }
    current_accel = NULL;
}
