/*
 * The qtest accelerator: no CPU runs; a test drives devices and memory
 * through the qtest protocol.
 */
#include "system/accel.h"

static bool qtest_accel_init(MachineState *ms, const QemuOpts *props,
                             Error **errp)
{
    (void)ms;
    (void)props;
    (void)errp;
    return true;
}

const AccelClass qtest_accel_class = {
    .name = "qtest",
    .init = qtest_accel_init,
};
