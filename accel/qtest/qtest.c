/*
 * The qtest accelerator: no CPU runs; a test drives devices and memory
 * through the qtest protocol.
 */
#include "qemu/timer.h"
#include "system/accel.h"
#include "system/qtest.h"

static bool qtest_accel_init(MachineState *ms, const QemuOpts *props,
                             Error **errp)
{
    /* Virtual time moves only when the test says so (clock_step). */
    qemu_clock_set_manual(true);
    return true;
}

const AccelClass qtest_accel_class = {
    .name = "qtest",
    .init = qtest_accel_init,
};

bool qtest_enabled(void)
{
    return accel_current() == &qtest_accel_class;
}
