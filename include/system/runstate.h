/*
 * The VM's run state and the requests (shutdown, reset) that change it.
 * Devices and accelerators request; only the main loop acts.
 */
#ifndef SYSTEM_RUNSTATE_H
#define SYSTEM_RUNSTATE_H

#include <stdbool.h>

#include "qapi/qapi-types.h"
#include "qemu/error.h"

/*
 * RunState (RUN_STATE_*) and ShutdownCause (SHUTDOWN_CAUSE_*, the
 * SHUTDOWN event's "reason") are declared in the QMP schema
 * (qapi/run-state.json).
 */
const char *runstate_name(RunState state);
const char *shutdown_cause_name(ShutdownCause cause);

RunState runstate_get(void);
bool runstate_is_running(void);
/*
 * Enter a stopped state directly (migration: inmigrate, postmigrate),
 * the vCPUs being stopped already.
 */
void runstate_set(RunState state);
/*
 * Whether the VM runs once it is ready: off with -S; "cont" during an
 * incoming migration sets it, and migration starts the VM when the
 * state is loaded.
 */
void runstate_set_autostart(bool on);
bool runstate_autostart(void);

/*
 * Ask the main loop to end the process with exit_status after an
 * orderly teardown. The first request wins.
 */
void qemu_system_shutdown_request(ShutdownCause cause, int exit_status);
/* Cause of the pending shutdown, SHUTDOWN_CAUSE_NONE if none. */
ShutdownCause qemu_shutdown_requested(void);
int qemu_shutdown_exit_status(void);

/* Hook for the main loop to wake up when a request is made. */
void runstate_set_notify(void (*notify)(void));

/*
 * Pause and resume. vm_stop() stops the vCPUs (vcpus_pause(), through
 * the accelerator's ops), sets state and emits STOP; vm_start() emits RESUME and lets the
 * vCPUs run. Both do nothing when already in the target condition.
 */
void vm_stop(RunState state);
void vm_start(void);
/*
 * With the vCPUs stopped: complete every I/O request in flight and
 * flush the images (the block layer sets the hook when it has a
 * backend). A migration runs it before it saves the device state;
 * true when there is nothing to do.
 */
void runstate_set_drain_hook(bool (*drain)(Error **errp));
bool runstate_drain(Error **errp);

/*
 * Image locks across a migration, as QEMU hands them over: the source
 * drops them once its images are drained and flushed at the switch-over
 * (runstate_inactivate_images()), the destination, which opened its
 * images without them, takes them before the guest runs there
 * (runstate_activate_images(): false with the lock's error when another
 * process holds one). A source whose migration failed takes them again.
 * The block layer sets the hooks; without images both do nothing.
 */
void runstate_set_image_hooks(void (*inactivate)(void),
                              bool (*activate)(Error **errp));
void runstate_inactivate_images(void);
bool runstate_activate_images(Error **errp);

/*
 * Told of every vm_start() (running, RUN_STATE_RUNNING; before the
 * vCPUs run) and vm_stop() that changes something (after the vCPUs
 * stopped), in the order added. A handler may delete itself.
 */
typedef void VMChangeStateHandler(void *opaque, bool running,
                                  RunState state);
typedef struct VMChangeStateEntry VMChangeStateEntry;
VMChangeStateEntry *qemu_add_vm_change_state_handler(VMChangeStateHandler *cb,
                                                     void *opaque);
void qemu_del_vm_change_state_handler(VMChangeStateEntry *e);

/*
 * Requests handled by the main loop: a reset (devices and vCPUs, then a
 * RESET event) and a power-button press (POWERDOWN event, then the
 * board's handler, e.g. the ACPI power button).
 */
void qemu_system_reset_request(ShutdownCause cause);
void qemu_system_powerdown_request(void);
/*
 * Ask the main loop to vm_stop(state): for a vCPU thread, which cannot
 * wait for itself to stop (e.g. a KVM internal error).
 */
void qemu_system_vmstop_request(RunState state);
void qemu_register_powerdown_handler(void (*fn)(void *opaque), void *opaque);
/* Work done on reset besides device reset (vCPU reset, board state). */
void qemu_register_reset(void (*fn)(void *opaque), void *opaque);
/*
 * What resets the devices, first of all on a system reset (the device
 * tree's qdev_reset_all(), which the program's edge hands over, as the
 * run states sit below the devices).
 */
void runstate_set_devices_reset(void (*fn)(void));
void qemu_unregister_reset_all(void);
/*
 * Called by the main loop: act on pending reset and powerdown requests.
 * Returns true when a shutdown should end the main loop.
 */
bool main_loop_should_exit(void);

/*
 * A guest that powers off: with shutdown=pause (-no-shutdown) the VM
 * stops in the "shutdown" state instead of exiting.
 */
void qemu_system_guest_shutdown(int exit_status);

/*
 * What the guest's reset, poweroff and panic and a watchdog's expiry
 * do: -action and QMP set-action (QEMU's defaults: reset, poweroff,
 * shutdown, reset). -no-reboot is reboot=shutdown, -no-shutdown is
 * shutdown=pause.
 */
typedef struct RunStateActions {
    RebootAction reboot;
    ShutdownAction shutdown;
    PanicAction panic;
    WatchdogAction watchdog;
} RunStateActions;

extern RunStateActions runstate_actions;

/*
 * The guest panicked (pvpanic): GUEST_PANICKED, then what
 * runstate_actions.panic says (the VM stops in guest-panicked, or shuts
 * down with reason guest-panic, status 1 for exit-failure, or runs on).
 * Safe from a vCPU thread: the stop and the shutdown are requests.
 */
void qemu_system_guest_panicked(void);
/* The guest loaded its crash kernel: GUEST_CRASHLOADED; it runs on. */
void qemu_system_guest_crashloaded(void);

#endif
