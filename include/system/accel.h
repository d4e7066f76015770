/*
 * Accelerators: what runs the guest's CPUs (kvm, tcg), or nothing (qtest).
 */
#ifndef SYSTEM_ACCEL_H
#define SYSTEM_ACCEL_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/option.h"
#include "system/vm-config.h"

struct MachineState;

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
    bool (*init)(struct MachineState *ms, const QemuOpts *props, Error **errp);
    void (*cleanup)(void);
} AccelClass;

/*
 * The accelerators of this binary: each accelerator file ends with
 * ACCEL_CLASS_REGISTER(its_class, ORDER), which adds it (and its QOM
 * type "NAME-accel") to the registry of accel/accel.c before main()
 * runs; ORDER places it in -accel help (QEMU's: tcg, kvm, qtest).
 */
void accel_class_register(const AccelClass *ac, int order);
#define ACCEL_CLASS_REGISTER(cls, order) \
    static void __attribute__((constructor)) cls##_register(void) \
    { \
        accel_class_register(&(cls), (order)); \
    }

const AccelClass *accel_find(const char *name);
/* Accelerator i of the registry (NULL past the last), the one in use. */
const AccelClass *accel_class_at(unsigned i);
const AccelClass *accel_current(void);
/* Whether accelerator NAME ("kvm") runs this VM. */
bool accel_is_current(const char *name);
void accel_print_list(void);
/* Check one -accel argument: the name exists and its properties too. */
bool accel_check_options(const QemuOpts *opts, Error **errp);
/*
 * Start the first accelerator that works, in command-line order (-accel
 * options, or "-machine accel=a:b"), defaulting to kvm.
 */
bool accel_configure(struct MachineState *ms, const VmConfig *cfg, Error **errp);
bool accel_irqchip_in_kernel(void);
/* The type the accelerator's front has for a device type, else type. */
const char *accel_device_type(const char *type);
/* The guest-physical range it reserves; false when none. */
bool accel_reserved_range(uint64_t *base, uint64_t *size);
void accel_cleanup(void);

#endif
