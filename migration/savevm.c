/*
 * State sections of the machine (see savevm.h): "timers" (the guest
 * clock), the accelerator's VM-wide section if it has one ("kvmclock"),
 * its vCPU table's section instance N ("cpu" under tcg, "kvm-cpu"),
 * then each device whose class has a field table, named by type and
 * instance (its index among the devices of its type, in creation
 * order). The accelerators' sections have names of their own, so a
 * stream saved under another accelerator is refused at its first one.
 */
#include <inttypes.h>
#include <string.h>

#include "hw/qdev.h"
#include "migration/postcopy-ram.h"
#include "migration/ram-handover.h"
#include "migration/ram-stream.h"
#include "migration/savevm.h"
#include "vmstate/vmstate.h"
#include "qemu/timer.h"
#include "system/accel.h"
#include "system/cpus.h"

typedef struct TimersState {
    int64_t virtual_ns;
} TimersState;

static bool timers_post_load(void *opaque, unsigned version, Error **errp)
{
    TimersState *t = opaque;

    if (t->virtual_ns < 0) {
        error_setg(errp, "field 'virtual_ns': negative guest time");
        return false;
    }
    qemu_clock_set_virtual_stopped(t->virtual_ns);
    return true;
}

static const VMStateDescription vmstate_timers = {
    .name = "timers",
    .version = 1,
    .minimum_version = 1,
    .post_load = timers_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_I64(TimersState, virtual_ns),
        VMSTATE_END
    },
};

/* --- walking the devices --------------------------------------------- */

typedef struct DeviceWalk {
    GHashTable *instances;      /* type name -> next instance */
    bool (*fn)(DeviceState *dev, unsigned instance, void *opaque,
               Error **errp);
    void *opaque;
    Error **errp;
    bool ok;
} DeviceWalk;

static void walk_one(DeviceState *dev, void *opaque)
{
    DeviceWalk *w = opaque;
    unsigned instance;

    if (!w->ok) {
        return;
    }
    instance = GPOINTER_TO_UINT(g_hash_table_lookup(w->instances,
                                                    dev->dc->name));
    g_hash_table_insert(w->instances, (gpointer)dev->dc->name,
                        GUINT_TO_POINTER(instance + 1));
    w->ok = w->fn(dev, instance, w->opaque, w->errp);
}

static bool devices_walk(bool (*fn)(DeviceState *, unsigned, void *,
                                    Error **),
                         void *opaque, Error **errp)
{
    DeviceWalk w = {
        .instances = g_hash_table_new(g_str_hash, g_str_equal),
        .fn = fn, .opaque = opaque, .errp = errp, .ok = true,
    };

    qdev_foreach(walk_one, &w);
    g_hash_table_destroy(w.instances);
    return w.ok;
}

static bool check_device(DeviceState *dev, unsigned instance, void *opaque,
                         Error **errp)
{
    if (!dev->dc->vmsd) {
        error_setg(errp, "device '%s' cannot migrate yet (no state table)",
                   dev->dc->name);
        return false;
    }
    return true;
}

bool savevm_check_migratable(Error **errp)
{
    if (cpu_state_count() && !vcpus_vmstate()) {
        error_setg(errp, "this accelerator cannot migrate its vCPUs yet");
        return false;
    }
    return devices_walk(check_device, NULL, errp);
}

static bool save_section(MigStream *s, const VMStateDescription *vmsd,
                         const char *name, unsigned instance, void *opaque)
{
    GByteArray *buf = g_byte_array_new();
    bool ok;

    ok = vmstate_save(vmsd, opaque, buf) &&
         mig_section_write(s, MIG_SEC_STATE, name, instance, vmsd->version,
                           buf->data, buf->len);
    g_byte_array_free(buf, TRUE);
    return ok;
}

static bool save_device(DeviceState *dev, unsigned instance, void *opaque,
                        Error **errp)
{
    if (!save_section(opaque, dev->dc->vmsd, dev->dc->name, instance, dev)) {
        error_setg(errp, "writing the state of '%s' failed", dev->dc->name);
        return false;
    }
    return true;
}

bool savevm_save_state(MigStream *s, Error **errp)
{
    TimersState t = { qemu_clock_get_ns(QEMU_CLOCK_VIRTUAL) };
    const VMStateDescription *cpu = vcpus_vmstate();
    const VMStateDescription *vm = vcpus_vm_vmstate();

    if (!save_section(s, &vmstate_timers, "timers", 0, &t)) {
        error_setg(errp, "writing the clock failed");
        return false;
    }
    if (vm && !save_section(s, vm, vm->name, 0, vcpus_vm_state())) {
        error_setg(errp, "writing the state of '%s' failed", vm->name);
        return false;
    }
    for (unsigned i = 0; cpu && i < cpu_state_count(); i++) {
        if (!save_section(s, cpu, cpu->name, i, vcpus_state(i))) {
            error_setg(errp, "writing the state of vCPU %u failed", i);
            return false;
        }
    }
    return devices_walk(save_device, s, errp);
}

/* --- destination -------------------------------------------------------- */

static struct {
    GHashTable *loaded;         /* "name/instance" of each loaded section */
} load;

typedef struct FindDevice {
    const char *name;
    unsigned instance;
    DeviceState *dev;
} FindDevice;

static bool find_device(DeviceState *dev, unsigned instance, void *opaque,
                        Error **errp)
{
    FindDevice *f = opaque;

    if (!strcmp(dev->dc->name, f->name) && instance == f->instance) {
        f->dev = dev;
    }
    return true;
}

void savevm_load_begin(void)
{
    if (!load.loaded) {
        load.loaded = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                            NULL);
    }
    g_hash_table_remove_all(load.loaded);
}

static bool load_into(const VMStateDescription *vmsd, void *opaque,
                      const MigSection *sec, Error **errp)
{
    char *ctx = g_strdup_printf("%s instance %" PRIu32, sec->name,
                                sec->instance);
    char *key = g_strdup_printf("%s/%" PRIu32, sec->name, sec->instance);
    bool ok;

    if (g_hash_table_contains(load.loaded, key)) {
        error_setg(errp, "%s: state given twice", ctx);
        ok = false;
    } else {
        ok = vmstate_load(vmsd, opaque, sec->version, sec->payload, sec->len,
                          ctx, errp);
    }
    g_hash_table_add(load.loaded, key);
    g_free(ctx);
    return ok;
}

/*
 * The accelerator other than this one whose vCPU or VM-wide section is
 * called name, or NULL.
 */
static const AccelClass *other_accel_section(const char *name)
{
    const AccelClass *ac;

    for (unsigned i = 0; (ac = accel_class_at(i)); i++) {
        const AccelOps *ops = ac->ops;

        if (ac == accel_current() || !ops) {
            continue;
        }
        if ((ops->vcpu_vmstate && !strcmp(ops->vcpu_vmstate()->name, name)) ||
            (ops->vm_vmstate && !strcmp(ops->vm_vmstate()->name, name))) {
            return ac;
        }
    }
    return NULL;
}

bool savevm_load_section(const MigSection *sec, Error **errp)
{
    FindDevice f = { .name = sec->name, .instance = sec->instance };
    const VMStateDescription *cpu = vcpus_vmstate();
    const VMStateDescription *vm = vcpus_vm_vmstate();
    const AccelClass *other;
    TimersState t;

    if (!strcmp(sec->name, "timers") && sec->instance == 0) {
        return load_into(&vmstate_timers, &t, sec, errp);
    }
    if (vm && !strcmp(sec->name, vm->name) && sec->instance == 0) {
        return load_into(vm, vcpus_vm_state(), sec, errp);
    }
    other = other_accel_section(sec->name);
    if (other && (!cpu || strcmp(sec->name, cpu->name))) {
        const AccelClass *here = accel_current();

        error_setg(errp, "section '%s' is %s's state, but this machine runs "
                   "%s: migrate between the same accelerators", sec->name,
                   other->name, here ? here->name : "no accelerator");
        return false;
    }
    if (cpu && !strcmp(sec->name, cpu->name)) {
        if (sec->instance >= cpu_state_count()) {
            error_setg(errp, "state of vCPU %" PRIu32 ", which this machine "
                       "does not have", sec->instance);
            return false;
        }
        return load_into(vcpus_vmstate(), vcpus_state(sec->instance), sec,
                         errp);
    }
    devices_walk(find_device, &f, NULL);
    if (!f.dev || !f.dev->dc->vmsd) {
        error_setg(errp, "state of device '%s' instance %" PRIu32 ", which "
                   "this machine does not have", sec->name, sec->instance);
        return false;
    }
    return load_into(f.dev->dc->vmsd, f.dev, sec, errp);
}

static bool check_loaded(DeviceState *dev, unsigned instance, void *opaque,
                         Error **errp)
{
    char *key = g_strdup_printf("%s/%u", dev->dc->name, instance);
    bool ok = !dev->dc->vmsd || g_hash_table_contains(load.loaded, key);

    if (!ok) {
        error_setg(errp, "the stream has no state for device '%s' instance "
                   "%u", dev->dc->name, instance);
    }
    g_free(key);
    return ok;
}

bool savevm_load_end(Error **errp)
{
    bool ok = true;
    const VMStateDescription *cpu = vcpus_vmstate();
    const VMStateDescription *vm = vcpus_vm_vmstate();
    char *key;

    if (!g_hash_table_contains(load.loaded, "timers/0")) {
        error_setg(errp, "the stream has no guest clock");
        ok = false;
    }
    key = vm ? g_strdup_printf("%s/0", vm->name) : NULL;
    if (ok && key && !g_hash_table_contains(load.loaded, key)) {
        error_setg(errp, "the stream has no state for '%s'", vm->name);
        ok = false;
    }
    g_free(key);
    for (unsigned i = 0; ok && cpu && i < cpu_state_count(); i++) {
        key = g_strdup_printf("%s/%u", cpu->name, i);
        if (!g_hash_table_contains(load.loaded, key)) {
            error_setg(errp, "the stream has no state for vCPU %u", i);
            ok = false;
        }
        g_free(key);
    }
    ok = ok && devices_walk(check_loaded, NULL, errp);
    g_clear_pointer(&load.loaded, g_hash_table_destroy);
    return ok;
}

/* --- the whole stream ------------------------------------------------- */

static bool load_stream(MigStream *s, Error **errp)
{
    char prev[300] = "header";
    unsigned index = 0;
    MigSection sec;
    bool ok = true;

    if (!mig_stream_read_header(s, errp)) {
        return false;
    }
    savevm_load_begin();
    ram_load_begin();
    for (;;) {
        if (!mig_section_read(s, &sec, index, prev, errp)) {
            return false;
        }
        switch (sec.kind) {
        case MIG_SEC_RAM_SHARED:
            ok = ram_handover_load(s, &sec, errp);
            break;
        case MIG_SEC_RAM_LAYOUT:
            ok = ram_load_layout(&sec, errp);
            break;
        case MIG_SEC_RAM:
            ok = ram_load_pages(&sec, errp);
            break;
        case MIG_SEC_STATE:
            if (postcopy_incoming_running()) {
                error_setg(errp, "state of '%s' after postcopy's run",
                           sec.name);
                ok = false;
                break;
            }
            bql_lock();
            ok = savevm_load_section(&sec, errp);
            bql_unlock();
            break;
        case MIG_SEC_POSTCOPY_ADVISE:
        case MIG_SEC_POSTCOPY_LISTEN:
        case MIG_SEC_POSTCOPY_DISCARD:
        case MIG_SEC_POSTCOPY_RUN:
            ok = postcopy_incoming_section(s->fd, &sec, errp);
            break;
        case MIG_SEC_END:
            g_free(sec.payload);
            if (!ram_load_complete(errp)) {
                return false;
            }
            if (postcopy_incoming_listening()) {
                Error *err = NULL;

                if (!postcopy_incoming_running()) {
                    error_setg(errp, "the stream ends in postcopy's "
                               "switch-over");
                    return false;
                }
                if (!postcopy_incoming_end(true, &err)) {
                    warn_report_err(err);
                }
                return true;
            }
            bql_lock();
            ok = savevm_load_end(errp);
            bql_unlock();
            return ok;
        default:
            error_setg(errp, "section %u ('%s') has unknown kind %u", index,
                       sec.name, sec.kind);
            ok = false;
            break;
        }
        g_free(sec.payload);
        if (!ok) {
            return false;
        }
        if (sec.kind != MIG_SEC_STATE) {
            g_snprintf(prev, sizeof(prev), "%s%s",
                       sec.kind == MIG_SEC_RAM ? "RAM " : "", sec.name);
        } else {
            g_snprintf(prev, sizeof(prev), "%s instance %" PRIu32, sec.name,
                       sec.instance);
        }
        index++;
    }
}

bool savevm_load_stream(MigStream *s, Error **errp)
{
    bool ok = load_stream(s, errp);

    /* RAM handed over: the source completes only on our word. */
    if (ram_handover_load_end(ok) && ok && !mig_stream_send_ack(s)) {
        error_setg(errp, "the source went away before the switch-over");
        ok = false;
    }
    if (!ok) {
        /* Wake the vCPUs waiting for pages that will never come. */
        postcopy_incoming_end(false, NULL);
    }
    g_clear_pointer(&load.loaded, g_hash_table_destroy);
    return ok;
}
