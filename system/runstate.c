/*
 * Run state and shutdown requests.
 */
#include <glib.h>

#include "system/runstate.h"

static RunState current_state = RUN_STATE_PRELAUNCH;
static ShutdownCause shutdown_cause = SHUTDOWN_CAUSE_NONE;
static int shutdown_status;
static void (*request_notify)(void);

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

void runstate_set(RunState state)
{
    current_state = state;
}

bool runstate_is_running(void)
{
    return current_state == RUN_STATE_RUNNING;
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
