/*
 * The big lock and the main loop's part in it, and the vCPUs as the rest
 * of the emulator sees them: the accelerator's ops and one record per
 * vCPU (see include/system/cpus.h).
 *
 * The main loop keeps the lock except while it sleeps in poll(): glib
 * calls the context's poll function with its own lock dropped, so wrapping
 * it is the one place where the main thread waits for events, and every
 * dispatch (chardev input, QMP commands, timers, signals, requests acted
 * on by main_loop_should_exit()) runs with the lock held.
 */
#include <errno.h>

#include "system/cpus.h"
#include "system/runstate.h"

static GMutex bql;
static __thread bool bql_held;
static GPollFunc saved_poll;

void bql_lock(void)
{
    g_mutex_lock(&bql);
    bql_held = true;
}

void bql_unlock(void)
{
    bql_held = false;
    g_mutex_unlock(&bql);
}

bool bql_locked(void)
{
    return bql_held;
}

void bql_cond_wait(GCond *cond)
{
    bql_held = false;
    g_cond_wait(cond, &bql);
    bql_held = true;
}

static gint bql_poll(GPollFD *fds, guint nfds, gint timeout)
{
    gint ret;

    bql_unlock();
    ret = saved_poll(fds, nfds, timeout);
    bql_lock();
    return ret;
}

void bql_init_main_loop(void)
{
    if (saved_poll) {
        return;
    }
    bql_lock();
    saved_poll = g_main_context_get_poll_func(NULL);
    g_main_context_set_poll_func(NULL, bql_poll);
}

void bql_fini_main_loop(void)
{
    if (!saved_poll) {
        return;
    }
    g_main_context_set_poll_func(NULL, saved_poll);
    saved_poll = NULL;
    bql_unlock();
}

/* --- the vCPUs --------------------------------------------------------- */

static const AccelOps *cpus_accel;
static GPtrArray *cpu_states;           /* of CPUState *, by index */

void cpus_register_accel(const AccelOps *ops)
{
    cpus_accel = ops;
}

bool vcpus_create(struct MachineState *ms, Error **errp)
{
    return !cpus_accel || !cpus_accel->create_vcpus ||
           cpus_accel->create_vcpus(ms, errp);
}

void vcpus_reset(const struct X86BootState *boot)
{
    if (cpus_accel && cpus_accel->reset_vcpus) {
        cpus_accel->reset_vcpus(boot);
    }
}

void vcpus_pause(void)
{
    if (cpus_accel && cpus_accel->pause_vcpus) {
        cpus_accel->pause_vcpus();
    }
}

void vcpus_resume(void)
{
    if (cpus_accel && cpus_accel->resume_vcpus) {
        cpus_accel->resume_vcpus();
    }
}

void vcpus_destroy(void)
{
    if (cpus_accel && cpus_accel->destroy_vcpus) {
        cpus_accel->destroy_vcpus();
    }
    if (cpu_states) {
        g_ptr_array_free(cpu_states, true);
        cpu_states = NULL;
    }
}

bool vcpus_amd_ht_hole(void)
{
    return cpus_accel && cpus_accel->amd_ht_hole &&
           cpus_accel->amd_ht_hole();
}

void vcpus_deliver_msi(uint64_t addr, uint32_t data)
{
    if (cpus_accel && cpus_accel->deliver_msi) {
        cpus_accel->deliver_msi(addr, data);
    }
}

bool vcpus_has_ioeventfds(void)
{
    return cpus_accel && cpus_accel->has_ioeventfds &&
           cpus_accel->has_ioeventfds();
}

int vcpus_msi_irqfd_add(uint64_t addr, uint32_t data, int fd)
{
    if (!cpus_accel || !cpus_accel->msi_irqfd_add) {
        return -ENOSYS;
    }
    return cpus_accel->msi_irqfd_add(addr, data, fd);
}

int vcpus_msi_irqfd_update(int route, uint64_t addr, uint32_t data)
{
    if (!cpus_accel || !cpus_accel->msi_irqfd_update) {
        return -ENOSYS;
    }
    return cpus_accel->msi_irqfd_update(route, addr, data);
}

void vcpus_msi_irqfd_del(int route, int fd)
{
    if (cpus_accel && cpus_accel->msi_irqfd_del) {
        cpus_accel->msi_irqfd_del(route, fd);
    }
}

bool vcpus_dump(int index, GString *out)
{
    bool running = runstate_is_running();
    unsigned n = cpu_state_count();

    if (!cpus_accel || !cpus_accel->dump_vcpu || !n ||
        (index >= 0 && (unsigned)index >= n)) {
        return false;
    }
    if (running) {
        vcpus_pause();
    }
    for (unsigned i = 0; i < n; i++) {
        if (index < 0) {
            g_string_append_printf(out, "\nCPU#%u\n", i);
        } else if ((unsigned)index != i) {
            continue;
        }
        cpus_accel->dump_vcpu(i, out);
    }
    if (running) {
        vcpus_resume();
    }
    return true;
}

CPUState *cpu_state_add(const char *type, void *opaque, void *state,
                        const Property *props, Error **errp)
{
    CPUState *cs = g_new0(CPUState, 1);

    cs->obj = object_add_child(object_get_container("/machine/unattached"),
                               "device[*]", type, state, props, errp);
    if (!cs->obj) {
        g_free(cs);
        return NULL;
    }
    if (!cpu_states) {
        cpu_states = g_ptr_array_new_with_free_func(g_free);
    }
    cs->index = cpu_states->len;
    cs->opaque = opaque;
    g_ptr_array_add(cpu_states, cs);
    return cs;
}

bool vcpus_inject_nmi(Error **errp)
{
    if (!cpus_accel || !cpus_accel->inject_nmi || !cpu_state_count()) {
        /* QEMU's QERR_UNSUPPORTED. */
        error_setg(errp, "this feature or command is not currently "
                   "supported");
        return false;
    }
    for (unsigned i = 0; i < cpu_state_count(); i++) {
        cpus_accel->inject_nmi(i);
    }
    return true;
}

unsigned vcpus_model_cpuid(const struct X86CPUDef *def,
                           struct X86CPUIDEntry *out, unsigned max,
                           Error **errp)
{
    if (!cpus_accel || !cpus_accel->model_cpuid) {
        error_setg(errp, "CPU model expansion is not available with this "
                   "accelerator");
        return 0;
    }
    return cpus_accel->model_cpuid(def, out, max, errp);
}

unsigned cpu_state_count(void)
{
    return cpu_states ? cpu_states->len : 0;
}

CPUState *cpu_state_get(unsigned index)
{
    g_assert(index < cpu_state_count());
    return g_ptr_array_index(cpu_states, index);
}

JsonArray *cpus_query_fast(void)
{
    JsonArray *list = json_array_new();

    for (unsigned i = 0; i < cpu_state_count(); i++) {
        CPUState *cs = cpu_state_get(i);
        JsonObject *o = json_object_new();
        char *path = object_get_canonical_path(cs->obj);

        json_object_set_int_member(o, "cpu-index", cs->index);
        json_object_set_string_member(o, "qom-path", path);
        json_object_set_int_member(o, "thread-id", cs->thread_id);
        /* QEMU's none machine has no CPU slots, so no props. */
        if (!cs->no_topology) {
            JsonObject *props = json_object_new();

            json_object_set_int_member(props, "core-id", cs->core);
            json_object_set_int_member(props, "thread-id", cs->thread);
            json_object_set_int_member(props, "socket-id", cs->socket);
            json_object_set_object_member(o, "props", props);
        }
        json_object_set_string_member(o, "target", "x86_64");
        json_array_add_object_element(list, o);
        g_free(path);
    }
    return list;
}

const struct VMStateDescription *vcpus_vmstate(void)
{
    return cpus_accel && cpus_accel->vcpu_vmstate
           ? cpus_accel->vcpu_vmstate() : NULL;
}

void *vcpus_state(unsigned index)
{
    if (!cpus_accel || !cpus_accel->vcpu_state ||
        index >= cpu_state_count()) {
        return NULL;
    }
    return cpus_accel->vcpu_state(index);
}

const struct VMStateDescription *vcpus_vm_vmstate(void)
{
    return cpus_accel && cpus_accel->vm_vmstate && cpus_accel->vm_state
           ? cpus_accel->vm_vmstate() : NULL;
}

void *vcpus_vm_state(void)
{
    return vcpus_vm_vmstate() ? cpus_accel->vm_state() : NULL;
}
