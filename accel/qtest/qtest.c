/*
 * The qtest accelerator: no CPU runs; a test drives devices and memory
 * through the qtest protocol. What the CPUs carry still answers: one
 * local APIC per CPU with no CPU behind it (CPU 0's serves qtest's
 * accesses to the APIC page), and no vCPU records (query-cpus-fast is
 * empty).
 */
#include "hw/boards.h"
#include "hw/intc/apic.h"
#include "qemu/timer.h"
#include "system/accel.h"
#include "system/cpus.h"
#include "system/qtest.h"
#include "system/vm-config.h"
#include "target/i386/cpu.h"
#include "target/i386/cpu-state.h"

static bool qtest_accel_init(MachineState *ms, const QemuOpts *props,
                             Error **errp)
{
    /* Virtual time moves only when the test says so (clock_step). */
    qemu_clock_set_manual(true);
    return true;
}

static bool qtest_create_vcpus(MachineState *ms, Error **errp)
{
    const SmpOptions *smp = &ms->cfg->smp;
    X86CPUTopology topo = x86_cpu_topology(smp->sockets, smp->cores,
                                           smp->threads);

    /* Machine none: -cpu's apic-id, checked as under tcg and kvm. */
    if (ms->mc->cpu_apic_id_from_option) {
        X86CPUDef def;
        bool ok;

        loc_restore(&ms->cfg->cpu.loc);
        if (!x86_cpu_def_init(&def, ms->cfg->cpu.model,
                              ms->cfg->cpu.features, errp)) {
            return false;
        }
        ok = x86_cpu_topology_given_apic_id(&topo, &def, errp);
        x86_cpu_def_free(&def);
        if (!ok) {
            return false;
        }
        loc_clear();
    }

    for (unsigned i = 0; i < MAX(ms->smp_cpus, 1u); i++) {
        if (!apic_new(x86_cpu_apic_id(&topo, i), i == 0, NULL, NULL,
                      errp)) {
            return false;
        }
    }
    return true;
}

static void qtest_destroy_vcpus(void)
{
    apic_free_all();
}

static const AccelOps qtest_accel_ops = {
    .create_vcpus = qtest_create_vcpus,
    .destroy_vcpus = qtest_destroy_vcpus,
    .deliver_msi = apic_deliver_msi,
    .model_cpuid = x86_tcg_model_cpuid,
};

static const AccelClass qtest_accel_class = {
    .name = "qtest",
    .ops = &qtest_accel_ops,
    .init = qtest_accel_init,
};

ACCEL_CLASS_REGISTER(qtest_accel_class, 2)
