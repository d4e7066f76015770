/*
 * Accelerators: what runs the guest's CPUs (kvm, tcg), or nothing (qtest).
 */
#ifndef SYSTEM_ACCEL_H
#define SYSTEM_ACCEL_H

#include <stdbool.h>

#include "hw/boards.h"
#include "qemu/option.h"

struct AccelOps;

typedef struct AccelClass {
    const char *name;
    const struct AccelOps *ops;     /* its vCPUs (system/cpus.h) */
    const QemuOptDesc *props;   /* besides "accel" itself */
    /* Check property values when -accel is parsed (may be NULL). */
    bool (*check)(const QemuOpts *props, Error **errp);
    bool (*init)(MachineState *ms, const QemuOpts *props, Error **errp);
    void (*cleanup)(void);
} AccelClass;

extern const AccelClass kvm_accel_class;
extern const AccelClass tcg_accel_class;
extern const AccelClass qtest_accel_class;

const AccelClass *accel_find(const char *name);
void accel_print_list(void);
/* Check one -accel argument: the name exists and its properties too. */
bool accel_check_options(const QemuOpts *opts, Error **errp);
/*
 * Start the first accelerator that works, in command-line order (-accel
 * options, or "-machine accel=a:b"), defaulting to kvm.
 */
bool accel_configure(MachineState *ms, const VmConfig *cfg, Error **errp);
const AccelClass *accel_current(void);
void accel_cleanup(void);

#endif
