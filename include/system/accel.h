/*
 * Accelerators: what runs the guest's CPUs (kvm, tcg), or nothing (qtest).
 */
#ifndef SYSTEM_ACCEL_H
#define SYSTEM_ACCEL_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/boards.h"
#include "qemu/option.h"

struct AccelOps;

typedef struct AccelClass {
    const char *name;
    const struct AccelOps *ops;     /* its vCPUs (system/cpus.h) */
    /*
     * What the board asks of it, without naming it: whether interrupt
     * controllers live in the accelerator (then ISA line n is its GSI
     * n), the device types of its fronts ("ioapic", "kvm-ioapic", ...,
     * NULL: pairs, NULL-ended), and guest-physical pages it uses that the
     * firmware map must reserve.
     */
    bool irqchip_in_kernel;
    const char *const *device_types;
    uint64_t reserved_base, reserved_size;
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
/* Accelerator i of the registry (NULL past the last), the one in use. */
const AccelClass *accel_class_at(unsigned i);
const AccelClass *accel_current(void);
void accel_print_list(void);
/* Check one -accel argument: the name exists and its properties too. */
bool accel_check_options(const QemuOpts *opts, Error **errp);
/*
 * Start the first accelerator that works, in command-line order (-accel
 * options, or "-machine accel=a:b"), defaulting to kvm.
 */
bool accel_configure(MachineState *ms, const VmConfig *cfg, Error **errp);
bool accel_irqchip_in_kernel(void);
/* The type the accelerator's front has for a device type, else type. */
const char *accel_device_type(const char *type);
/* The guest-physical range it reserves; false when none. */
bool accel_reserved_range(uint64_t *base, uint64_t *size);
void accel_cleanup(void);

#endif
