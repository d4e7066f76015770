/*
 * Run state and shutdown requests.
 *
 * Not thread safe by itself: callers hold the big lock (system/cpus.h)
 * whenever vCPU threads exist. Requests made from a vCPU thread only
 * record what to do and wake the main loop (g_main_context_wakeup is
 * thread safe); the main loop acts on them in main_loop_should_exit().
 */
#include <glib.h>

#include "hw/qdev.h"
#include "monitor/monitor.h"
#include "qemu/timer.h"
#include "system/cpus.h"
#include "system/runstate.h"
#include "system/system.h"

static RunState current_state = RUN_STATE_PRELAUNCH;
static ShutdownCause shutdown_cause = SHUTDOWN_CAUSE_NONE;
static int shutdown_status;
static void (*request_notify)(void);
static ShutdownCause reset_requested = SHUTDOWN_CAUSE_NONE;
static bool powerdown_requested;
static RunState vmstop_requested = RUN_STATE__MAX;

typedef struct Handler {
    void (*fn)(void *opaque);
    void *opaque;
} Handler;

static GArray *reset_handlers;          /* of Handler */
static Handler powerdown_handler;

static const char *const runstate_names[RUN_STATE__MAX] = {
    [RUN_STATE_PRELAUNCH] = "prelaunch",
    [RUN_STATE_RUNNING] = "running",
    [RUN_STATE_PAUSED] = "paused",
    [RUN_STATE_INTERNAL_ERROR] = "internal-error",
    [RUN_STATE_GUEST_PANICKED] = "guest-panicked",
    [RUN_STATE_SHUTDOWN] = "shutdown",
};

static const char *const shutdown_cause_names[SHUTDOWN_CAUSE__MAX] = {
    [SHUTDOWN_CAUSE_NONE] = "none",
    [SHUTDOWN_CAUSE_HOST_ERROR] = "host-error",
    [SHUTDOWN_CAUSE_HOST_QMP_QUIT] = "host-qmp-quit",
    [SHUTDOWN_CAUSE_HOST_QMP_SYSTEM_RESET] = "host-qmp-system-reset",
    [SHUTDOWN_CAUSE_HOST_SIGNAL] = "host-signal",
    [SHUTDOWN_CAUSE_HOST_UI] = "host-ui",
    [SHUTDOWN_CAUSE_GUEST_SHUTDOWN] = "guest-shutdown",
    [SHUTDOWN_CAUSE_GUEST_RESET] = "guest-reset",
    [SHUTDOWN_CAUSE_GUEST_PANIC] = "guest-panic",
    [SHUTDOWN_CAUSE_SUBSYSTEM_RESET] = "subsystem-reset",
};

const char *runstate_name(RunState state)
{
    return runstate_names[state];
}

const char *shutdown_cause_name(ShutdownCause cause)
{
    return shutdown_cause_names[cause];
}

RunState runstate_get(void)
{
    return current_state;
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

static void emit_shutdown_like(const char *event, ShutdownCause cause)
{
    JsonObject *data = json_object_new();

    json_object_set_boolean_member(data, "guest", cause_is_guest(cause));
    json_object_set_string_member(data, "reason", shutdown_cause_name(cause));
    qmp_event_send(event, data);
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
    if (send_stop) {
        qmp_event_send("STOP", NULL);
    }
}

void vm_stop(RunState state)
{
    do_vm_stop(state, true);
}

void vm_start(void)
{
    if (current_state == RUN_STATE_RUNNING) {
        return;
    }
    qmp_event_send("RESUME", NULL);
    current_state = RUN_STATE_RUNNING;
    qemu_clock_enable_virtual(true);
    vcpus_resume();
}

void qemu_system_reset_request(ShutdownCause cause)
{
    /* A guest reset with -no-reboot ends the VM instead. */
    if (no_reboot && cause_is_guest(cause)) {
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

static void system_reset(ShutdownCause cause)
{
    bool running = current_state == RUN_STATE_RUNNING;

    /* Devices and vCPUs are reset with the vCPUs stopped. */
    if (running) {
        vcpus_pause();
    }
    qdev_reset_all();
    for (guint i = 0; reset_handlers && i < reset_handlers->len; i++) {
        Handler *h = &g_array_index(reset_handlers, Handler, i);

        h->fn(h->opaque);
    }
    emit_shutdown_like("RESET", cause);
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
    if (no_shutdown) {
        emit_shutdown_like("SHUTDOWN", SHUTDOWN_CAUSE_GUEST_SHUTDOWN);
        vm_stop(RUN_STATE_SHUTDOWN);
        return;
    }
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_GUEST_SHUTDOWN, exit_status);
}

bool main_loop_should_exit(void)
{
    if (shutdown_cause != SHUTDOWN_CAUSE_NONE) {
        emit_shutdown_like("SHUTDOWN", shutdown_cause);
        /* As QEMU: the VM stops on the way out without a STOP event. */
        do_vm_stop(RUN_STATE_SHUTDOWN, false);
        return true;
    }
    if (vmstop_requested != RUN_STATE__MAX) {
        RunState state = vmstop_requested;

        vmstop_requested = RUN_STATE__MAX;
        vm_stop(state);
    }
    if (reset_requested != SHUTDOWN_CAUSE_NONE) {
        ShutdownCause cause = reset_requested;

        reset_requested = SHUTDOWN_CAUSE_NONE;
        system_reset(cause);
    }
    if (powerdown_requested) {
        powerdown_requested = false;
        qmp_event_send("POWERDOWN", NULL);
        if (powerdown_handler.fn) {
            powerdown_handler.fn(powerdown_handler.opaque);
        }
    }
    return false;
}
