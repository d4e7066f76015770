/*
 * Run state and shutdown requests.
 *
 * Not thread safe by itself: callers hold the big lock (system/cpus.h)
 * whenever vCPU threads exist. Requests made from a vCPU thread only
 * record what to do and wake the main loop (g_main_context_wakeup is
 * thread safe); the main loop acts on them in main_loop_should_exit().
 */
#include <glib.h>

#include "qapi/qapi-commands.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "system/cpus.h"
#include "system/runstate.h"
#include "system/system.h"

RunStateActions runstate_actions = {
    .reboot = REBOOT_ACTION_RESET,
    .shutdown = SHUTDOWN_ACTION_POWEROFF,
    .panic = PANIC_ACTION_SHUTDOWN,
    .watchdog = WATCHDOG_ACTION_RESET,
};

static RunState current_state = RUN_STATE_PRELAUNCH;
static ShutdownCause shutdown_cause = SHUTDOWN_CAUSE_NONE;
static int shutdown_status;
static void (*request_notify)(void);
static ShutdownCause reset_requested = SHUTDOWN_CAUSE_NONE;
static bool powerdown_requested;
/* A guest power-off with shutdown=pause, for the main loop to carry out. */
static bool shutdown_pause_requested;
static RunState vmstop_requested = RUN_STATE__MAX;

typedef struct Handler {
    void (*fn)(void *opaque);
    void *opaque;
} Handler;

static GArray *reset_handlers;          /* of Handler */
static Handler powerdown_handler;

struct VMChangeStateEntry {
    VMChangeStateHandler *cb;
    void *opaque;
};

static GList *vm_change_handlers;       /* of VMChangeStateEntry * */

VMChangeStateEntry *qemu_add_vm_change_state_handler(VMChangeStateHandler *cb,
                                                     void *opaque)
{
    VMChangeStateEntry *e = g_new0(VMChangeStateEntry, 1);

    e->cb = cb;
    e->opaque = opaque;
    vm_change_handlers = g_list_append(vm_change_handlers, e);
    return e;
}

void qemu_del_vm_change_state_handler(VMChangeStateEntry *e)
{
    vm_change_handlers = g_list_remove(vm_change_handlers, e);
    g_free(e);
}

/* A handler may delete itself: walk a copy. */
static void vm_state_notify(bool running, RunState state)
{
    GList *copy = g_list_copy(vm_change_handlers);

    for (GList *l = copy; l; l = l->next) {
        VMChangeStateEntry *e = l->data;

        if (g_list_find(vm_change_handlers, e)) {
            e->cb(e->opaque, running, state);
        }
    }
    g_list_free(copy);
}

const char *runstate_name(RunState state)
{
    return RunState_lookup[state];
}

const char *shutdown_cause_name(ShutdownCause cause)
{
    return ShutdownCause_lookup[cause];
}

RunState runstate_get(void)
{
    return current_state;
}

void runstate_set(RunState state)
{
    current_state = state;
}

static bool autostart_on;

void runstate_set_autostart(bool on)
{
    autostart_on = on;
}

bool runstate_autostart(void)
{
    return autostart_on;
}

bool runstate_is_running(void)
{
    return current_state == RUN_STATE_RUNNING;
}

static bool cause_is_guest(ShutdownCause cause)
{
    return cause >= SHUTDOWN_CAUSE_GUEST_SHUTDOWN &&
           cause <= SHUTDOWN_CAUSE_GUEST_PANIC;
}

void qemu_system_shutdown_request(ShutdownCause cause, int exit_status)
{
    if (shutdown_cause != SHUTDOWN_CAUSE_NONE) {
        return;
    }
    shutdown_cause = cause;
    shutdown_status = exit_status;
    if (request_notify) {
        request_notify();
    }
}

ShutdownCause qemu_shutdown_requested(void)
{
    return shutdown_cause;
}

int qemu_shutdown_exit_status(void)
{
    return shutdown_status;
}

void runstate_set_notify(void (*notify)(void))
{
    request_notify = notify;
}

static void do_vm_stop(RunState state, bool send_stop)
{
    if (current_state != RUN_STATE_RUNNING) {
        /* Already stopped: only the reason may change (e.g. to shutdown). */
        if (state != RUN_STATE_PAUSED) {
            current_state = state;
        }
        return;
    }
    vcpus_pause();
    qemu_clock_enable_virtual(false);
    current_state = state;
    vm_state_notify(false, state);
    if (send_stop) {
        qapi_event_send_stop();
    }
}

void vm_stop(RunState state)
{
    do_vm_stop(state, true);
}

static bool (*drain_hook)(Error **errp);

void runstate_set_drain_hook(bool (*drain)(Error **errp))
{
    drain_hook = drain;
}

bool runstate_drain(Error **errp)
{
    return !drain_hook || drain_hook(errp);
}

static void (*inactivate_hook)(void);
static bool (*activate_hook)(Error **errp);

void runstate_set_image_hooks(void (*inactivate)(void),
                              bool (*activate)(Error **errp))
{
    inactivate_hook = inactivate;
    activate_hook = activate;
}

void runstate_inactivate_images(void)
{
    if (inactivate_hook) {
        inactivate_hook();
    }
}

bool runstate_activate_images(Error **errp)
{
    return !activate_hook || activate_hook(errp);
}

void vm_start(void)
{
    if (current_state == RUN_STATE_RUNNING) {
        return;
    }
    qapi_event_send_resume();
    current_state = RUN_STATE_RUNNING;
    qemu_clock_enable_virtual(true);
    /* Devices restart their work (held requests) before the vCPUs run. */
    vm_state_notify(true, RUN_STATE_RUNNING);
    vcpus_resume();
}

void qemu_system_reset_request(ShutdownCause cause)
{
    /* A guest reset with reboot=shutdown (-no-reboot) ends the VM. */
    if (runstate_actions.reboot == REBOOT_ACTION_SHUTDOWN &&
        cause_is_guest(cause)) {
        qemu_system_shutdown_request(cause, 0);
        return;
    }
    reset_requested = cause;
    if (request_notify) {
        request_notify();
    }
}

void qemu_system_vmstop_request(RunState state)
{
    vmstop_requested = state;
    if (request_notify) {
        request_notify();
    }
}

void qemu_system_powerdown_request(void)
{
    powerdown_requested = true;
    if (request_notify) {
        request_notify();
    }
}

void qemu_register_powerdown_handler(void (*fn)(void *opaque), void *opaque)
{
    powerdown_handler.fn = fn;
    powerdown_handler.opaque = opaque;
}

void qemu_register_reset(void (*fn)(void *opaque), void *opaque)
{
    Handler h = { fn, opaque };

    if (!reset_handlers) {
        reset_handlers = g_array_new(FALSE, FALSE, sizeof(Handler));
    }
    g_array_append_val(reset_handlers, h);
}

void qemu_unregister_reset_all(void)
{
    if (reset_handlers) {
        g_array_free(reset_handlers, TRUE);
        reset_handlers = NULL;
    }
    powerdown_handler.fn = NULL;
}

/* The device tree's reset (hw/core's qdev_reset_all, set by the edge). */
static void (*devices_reset)(void);

void runstate_set_devices_reset(void (*fn)(void))
{
    devices_reset = fn;
}

static void system_reset(ShutdownCause cause)
{
    bool running = current_state == RUN_STATE_RUNNING;

    /* Devices and vCPUs are reset with the vCPUs stopped. */
    if (running) {
        vcpus_pause();
    }
    if (devices_reset) {
        devices_reset();
    }
    for (guint i = 0; reset_handlers && i < reset_handlers->len; i++) {
        Handler *h = &g_array_index(reset_handlers, Handler, i);

        h->fn(h->opaque);
    }
    qapi_event_send_reset(cause_is_guest(cause), cause);
    /* A guest that was shut down (-no-shutdown) starts over. */
    if (current_state == RUN_STATE_SHUTDOWN ||
        current_state == RUN_STATE_INTERNAL_ERROR ||
        current_state == RUN_STATE_GUEST_PANICKED) {
        current_state = RUN_STATE_PAUSED;
    }
    if (running) {
        vcpus_resume();
    }
}

void qemu_system_guest_shutdown(int exit_status)
{
    if (runstate_actions.shutdown == SHUTDOWN_ACTION_PAUSE) {
        /*
         * The main loop stops the VM, as QEMU's does. Called here, on the
         * vCPU thread, the stop could not wait for that thread to park,
         * and a reset from the monitor (libvirt's reboot) would then run
         * beside a vCPU still finishing its turn.
         */
        shutdown_pause_requested = true;
        if (request_notify) {
            request_notify();
        }
        return;
    }
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_GUEST_SHUTDOWN, exit_status);
}

void qemu_system_guest_panicked(void)
{
    PanicAction panic = runstate_actions.panic;
    bool pause = runstate_actions.shutdown == SHUTDOWN_ACTION_PAUSE;

    qemu_log_mask(LOG_GUEST_ERROR, "Guest crashed\n");
    if (panic == PANIC_ACTION_NONE) {
        qapi_event_send_guest_panicked(GUEST_PANIC_ACTION_RUN);
        return;
    }
    if (panic == PANIC_ACTION_PAUSE ||
        (panic == PANIC_ACTION_SHUTDOWN && pause)) {
        qapi_event_send_guest_panicked(GUEST_PANIC_ACTION_PAUSE);
        qemu_system_vmstop_request(RUN_STATE_GUEST_PANICKED);
        return;
    }
    qapi_event_send_guest_panicked(GUEST_PANIC_ACTION_POWEROFF);
    qemu_system_vmstop_request(RUN_STATE_GUEST_PANICKED);
    if (pause) {
        /*
         * exit-failure with shutdown=pause: QEMU 7.2 reports the
         * shutdown and keeps the VM stopped in guest-panicked.
         */
        qapi_event_send_shutdown(true, SHUTDOWN_CAUSE_GUEST_PANIC);
        return;
    }
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_GUEST_PANIC,
                                 panic == PANIC_ACTION_EXIT_FAILURE);
}

void qemu_system_guest_crashloaded(void)
{
    qemu_log_mask(LOG_GUEST_ERROR, "Guest crash loaded\n");
    qapi_event_send_guest_crashloaded(GUEST_PANIC_ACTION_RUN);
}

bool main_loop_should_exit(void)
{
    /*
     * A stop first: a panic that stops and shuts down sends STOP before
     * SHUTDOWN, as QEMU 7.2 does when it is not a vCPU that panics.
     */
    if (vmstop_requested != RUN_STATE__MAX) {
        RunState state = vmstop_requested;

        vmstop_requested = RUN_STATE__MAX;
        vm_stop(state);
    }
    if (shutdown_pause_requested) {
        shutdown_pause_requested = false;
        qapi_event_send_shutdown(true, SHUTDOWN_CAUSE_GUEST_SHUTDOWN);
        vm_stop(RUN_STATE_SHUTDOWN);
    }
    if (shutdown_cause != SHUTDOWN_CAUSE_NONE) {
        qapi_event_send_shutdown(cause_is_guest(shutdown_cause),
                                 shutdown_cause);
        /* As QEMU: the VM stops on the way out without a STOP event. */
        do_vm_stop(RUN_STATE_SHUTDOWN, false);
        return true;
    }
    if (reset_requested != SHUTDOWN_CAUSE_NONE) {
        ShutdownCause cause = reset_requested;

        reset_requested = SHUTDOWN_CAUSE_NONE;
        system_reset(cause);
    }
    if (powerdown_requested) {
        powerdown_requested = false;
        qapi_event_send_powerdown();
        if (powerdown_handler.fn) {
            powerdown_handler.fn(powerdown_handler.opaque);
        }
    }
    return false;
}
