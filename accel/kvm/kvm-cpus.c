/*
 * KVM vCPUs: one thread each, running KVM_RUN and dispatching its exits.
 *
 * Threads and locking:
 *  - A vCPU thread runs the guest without any lock. When KVM_RUN returns
 *    it takes the big lock (system/cpus.h) for the exit: PIO/MMIO
 *    dispatch to devices and every request to runstate happen under it.
 *    The main thread holds the big lock except while it polls.
 *  - Parking: while the VM is not running (prelaunch, -S, stop, shutdown)
 *    or after its own fatal exit, a vCPU waits on resume_cond with the
 *    big lock released. pause sets running = false, kicks every vCPU
 *    and waits on parked_cond until all are parked.
 *  - Kick: SIGUSR1 sent with pthread_kill. Its handler sets the thread's
 *    kvm_run->immediate_exit, so a signal arriving just before KVM_RUN
 *    still makes it return at once (-EINTR), and one arriving inside
 *    makes KVM return to userspace. immediate_exit is cleared under the
 *    lock before the run flags are checked, so no kick is lost.
 *  - Register state is written by each vCPU's own thread (a reset only
 *    marks the vCPUs; they apply it before their next KVM_RUN), except
 *    for migration: the whole state is read and put (kvm-cpu-state.c)
 *    by the migration thread with the big lock held and every vCPU
 *    parked. A vCPU whose reset is still pending (the VM never ran)
 *    applies it before its state is read; one whose state was loaded
 *    drops the pending reset and runs from what was put.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <json-glib/json-glib.h>
#include <linux/kvm.h>

#include "hw/boards.h"
#include "accel/kvm/kvm-cpu-state.h"
#include "accel/kvm/kvm-exit.h"
#include "accel/kvm/kvm-int.h"
#include "target/i386/boot-state.h"
#include "monitor/monitor.h"
#include "qemu/log.h"
#include "qom/object.h"
#include "target/i386/cpu-model.h"
#include "system/cpus.h"
#include "system/kvm.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "system/system.h"

#define SIG_KICK            SIGUSR1
#define CPU_TYPE            "host-x86_64-cpu"

/* x87 and SSE control words after reset (SDM vol. 1, 8.1.5 and 10.2.3). */
#define FPU_FCW_RESET       0x037f
#define MXCSR_RESET         0x1f80
#define XCR0_RESET          0x1     /* x87 state only */
#define CR0_RESET           0x60000010ULL   /* CD, NW, ET */

typedef struct KVMVcpu {
    CPUState *cs;                       /* index, APIC ID, thread id */
    int fd;
    struct kvm_run *run;
    pthread_t thread_id;
    bool thread_started;
    bool reset_pending;                 /* registers to apply before KVM_RUN */
    bool nmi_pending;                   /* KVM_NMI before the next KVM_RUN */
    bool wait_reset;                    /* stopped by a fatal exit */
    bool parked;
    bool io_pending;                    /* the last exit was PIO or MMIO */
    struct kvm_lapic_state lapic_reset;
    uint32_t signature;                 /* CPUID.1:EAX, EDX after reset */
    X86CPUModelInfo model;              /* what its QOM properties show */
    KVMCPUState state;                  /* migration's copy */
} KVMVcpu;

static struct {
    KVMVcpu *cpus;
    unsigned ncpus;
    size_t run_size;
    bool running;                       /* the VM runs: vCPUs may enter */
    bool stop;                          /* the threads must end */
    unsigned parked;
    GCond parked_cond, resume_cond;
    X86BootState boot;                  /* vCPU 0's start, if have_boot */
    bool have_boot;
    bool debug_threads;
} kvm_cpus;

static __thread KVMVcpu *current_vcpu;
static __thread struct kvm_run *volatile current_run;

static void kick_handler(int sig)
{
    struct kvm_run *run = current_run;

    if (run) {
        run->immediate_exit = 1;
    }
}

static void kvm_vcpu_kick(KVMVcpu *cpu)
{
    if (cpu->thread_started) {
        pthread_kill(cpu->thread_id, SIG_KICK);
    }
}

/* --- exits: the bus, under the big lock ------------------------------- */

static uint64_t bus_pio_read(void *opaque, uint16_t port, unsigned size)
{
    return address_space_read_sized(&address_space_io, port, size);
}

static void bus_pio_write(void *opaque, uint16_t port, uint64_t value,
                          unsigned size)
{
    address_space_write_sized(&address_space_io, port, value, size);
}

static uint64_t bus_mmio_read(void *opaque, uint64_t addr, unsigned size)
{
    return address_space_read_sized(&address_space_memory, addr, size);
}

static void bus_mmio_write(void *opaque, uint64_t addr, uint64_t value,
                           unsigned size)
{
    address_space_write_sized(&address_space_memory, addr, value, size);
}

static const KVMExitBus kvm_bus = {
    .pio_read = bus_pio_read,
    .pio_write = bus_pio_write,
    .mmio_read = bus_mmio_read,
    .mmio_write = bus_mmio_write,
};

/* --- register state ---------------------------------------------------- */

static struct kvm_segment boot_segment(const X86BootSegment *s)
{
    return (struct kvm_segment) {
        .base = s->base, .limit = s->limit, .selector = s->selector,
        .type = s->type, .present = s->present, .dpl = s->dpl, .db = s->db,
        .s = s->s, .l = s->l, .g = s->g, .unusable = s->unusable,
    };
}

static struct kvm_segment real_segment(uint16_t sel, uint8_t type)
{
    return (struct kvm_segment) {
        .base = (uint64_t)sel << 4, .limit = 0xffff, .selector = sel,
        .type = type, .present = 1, .s = 1,
    };
}

/* The state after RESET (SDM vol. 3, table 10-1). */
static void reset_vector_state(KVMVcpu *cpu, struct kvm_regs *regs,
                               struct kvm_sregs *sregs)
{
    sregs->cs = real_segment(0xf000, 0xb);
    sregs->cs.base = 0xffff0000;
    sregs->ds = sregs->es = sregs->fs = sregs->gs = sregs->ss =
        real_segment(0, 0x3);
    sregs->tr = (struct kvm_segment) {
        .limit = 0xffff, .type = 0xb, .present = 1,
    };
    sregs->ldt = (struct kvm_segment) {
        .limit = 0xffff, .type = 0x2, .present = 1,
    };
    sregs->gdt.limit = sregs->idt.limit = 0xffff;
    sregs->cr0 = CR0_RESET;
    regs->rip = 0xfff0;
    regs->rdx = cpu->signature;
}

static void boot_state(const X86BootState *st, struct kvm_regs *regs,
                       struct kvm_sregs *sregs)
{
    sregs->cs = boot_segment(&st->cs);
    sregs->ds = boot_segment(&st->ds);
    sregs->es = boot_segment(&st->es);
    sregs->fs = boot_segment(&st->fs);
    sregs->gs = boot_segment(&st->gs);
    sregs->ss = boot_segment(&st->ss);
    sregs->tr = boot_segment(&st->tr);
    sregs->ldt = boot_segment(&st->ldt);
    sregs->gdt.base = st->gdt_base;
    sregs->gdt.limit = st->gdt_limit;
    sregs->idt.base = st->idt_base;
    sregs->idt.limit = st->idt_limit;
    sregs->cr0 = st->cr0;
    sregs->cr3 = st->cr3;
    sregs->cr4 = st->cr4;
    sregs->efer = st->efer;
    regs->rax = st->rax;
    regs->rbx = st->rbx;
    regs->rcx = st->rcx;
    regs->rdx = st->rdx;
    regs->rsi = st->rsi;
    regs->rdi = st->rdi;
    regs->rsp = st->rsp;
    regs->rbp = st->rbp;
    regs->rip = st->rip;
    regs->rflags = st->rflags | X86_RFLAGS_FIXED;
}

static bool vcpu_ioctl(KVMVcpu *cpu, unsigned long req, void *arg,
                       const char *name, GString *err)
{
    if (ioctl(cpu->fd, req, arg) < 0) {
        g_string_append_printf(err, "%s: %s\n", name, g_strerror(errno));
        return false;
    }
    return true;
}

static bool set_reset_msrs(KVMVcpu *cpu, GString *err)
{
    struct {
        struct kvm_msrs hdr;
        struct kvm_msr_entry e[X86_CPU_RESET_MSRS_MAX];
    } m = { 0 };
    X86CPUMsr msrs[X86_CPU_RESET_MSRS_MAX];
    unsigned n = x86_cpu_reset_msrs(cpu->cs->index == 0, msrs,
                                    X86_CPU_RESET_MSRS_MAX);
    unsigned done = 0;

    /* KVM stops at the first MSR it lacks: skip that one and go on. */
    while (done < n) {
        int ret;

        m.hdr.nmsrs = n - done;
        for (unsigned i = done; i < n; i++) {
            m.e[i - done].index = msrs[i].index;
            m.e[i - done].data = msrs[i].value;
        }
        ret = ioctl(cpu->fd, KVM_SET_MSRS, &m);
        if (ret < 0) {
            g_string_append_printf(err, "KVM_SET_MSRS: %s\n",
                                   g_strerror(errno));
            return false;
        }
        done += ret + 1;
    }
    return true;
}

/* On the vCPU's own thread, with the big lock held. */
static bool vcpu_apply_reset(KVMVcpu *cpu, GString *err)
{
    bool bsp = cpu->cs->index == 0;
    struct kvm_mp_state mp = {
        .mp_state = bsp ? KVM_MP_STATE_RUNNABLE : KVM_MP_STATE_UNINITIALIZED,
    };
    struct kvm_regs regs = { .rflags = X86_RFLAGS_FIXED };
    struct kvm_sregs sregs;
    struct kvm_fpu fpu = { .fcw = FPU_FCW_RESET, .mxcsr = MXCSR_RESET };
    struct kvm_vcpu_events events = { 0 };

    if (!vcpu_ioctl(cpu, KVM_GET_SREGS, &sregs, "KVM_GET_SREGS", err)) {
        return false;
    }
    memset(sregs.interrupt_bitmap, 0, sizeof(sregs.interrupt_bitmap));
    sregs.cr2 = sregs.cr3 = sregs.cr4 = sregs.cr8 = sregs.efer = 0;
    sregs.apic_base = MSR_IA32_APICBASE_BASE | MSR_IA32_APICBASE_ENABLE |
                      (bsp ? MSR_IA32_APICBASE_BSP : 0);
    if (bsp && kvm_cpus.have_boot) {
        boot_state(&kvm_cpus.boot, &regs, &sregs);
    } else {
        reset_vector_state(cpu, &regs, &sregs);
    }
    if (!vcpu_ioctl(cpu, KVM_SET_SREGS, &sregs, "KVM_SET_SREGS", err) ||
        !vcpu_ioctl(cpu, KVM_SET_REGS, &regs, "KVM_SET_REGS", err) ||
        !vcpu_ioctl(cpu, KVM_SET_FPU, &fpu, "KVM_SET_FPU", err) ||
        !set_reset_msrs(cpu, err)) {
        return false;
    }
    if (kvm_check_cap(KVM_CAP_XCRS)) {
        struct kvm_xcrs xcrs = {
            .nr_xcrs = 1, .xcrs[0] = { .xcr = 0, .value = XCR0_RESET },
        };

        if (!vcpu_ioctl(cpu, KVM_SET_XCRS, &xcrs, "KVM_SET_XCRS", err)) {
            return false;
        }
    }
    if (kvm_check_cap(KVM_CAP_VCPU_EVENTS)) {
        /* Drop exceptions and interrupts pending from before the reset. */
        vcpu_ioctl(cpu, KVM_SET_VCPU_EVENTS, &events, "KVM_SET_VCPU_EVENTS",
                   err);
    }
    return vcpu_ioctl(cpu, KVM_SET_LAPIC, &cpu->lapic_reset, "KVM_SET_LAPIC",
                      err) &&
           vcpu_ioctl(cpu, KVM_SET_MP_STATE, &mp, "KVM_SET_MP_STATE", err);
}

/* --- fatal exits ------------------------------------------------------- */

/*
 * With the big lock held: print the diagnostic, park this vCPU until a
 * reset, and stop the VM in internal-error (-no-shutdown) or end the
 * process with status 1 through the orderly teardown.
 */
static void vcpu_fatal(KVMVcpu *cpu, GString *msg)
{
    struct kvm_regs regs;
    struct kvm_sregs sregs;

    if (ioctl(cpu->fd, KVM_GET_REGS, &regs) == 0 &&
        ioctl(cpu->fd, KVM_GET_SREGS, &sregs) == 0) {
        kvm_dump_registers(&regs, &sregs, msg);
    }
    fprintf(stderr, "%s", msg->str);
    fflush(stderr);
    cpu->wait_reset = true;
    if (runstate_actions.shutdown == SHUTDOWN_ACTION_PAUSE) {
        qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
    } else {
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
    }
}

/* --- the thread ------------------------------------------------------- */

static bool vcpu_must_park(KVMVcpu *cpu)
{
    return kvm_cpus.stop || !kvm_cpus.running || cpu->wait_reset;
}

/* With the big lock held; returns with it held. */
static void vcpu_park(KVMVcpu *cpu)
{
    cpu->parked = true;
    kvm_cpus.parked++;
    g_cond_broadcast(&kvm_cpus.parked_cond);
    while (vcpu_must_park(cpu) && !kvm_cpus.stop) {
        bql_cond_wait(&kvm_cpus.resume_cond);
    }
    kvm_cpus.parked--;
    cpu->parked = false;
}

static void *kvm_vcpu_thread(void *opaque)
{
    KVMVcpu *cpu = opaque;
    sigset_t set;

    current_vcpu = cpu;
    current_run = cpu->run;
    sigemptyset(&set);
    sigaddset(&set, SIG_KICK);
    pthread_sigmask(SIG_UNBLOCK, &set, NULL);
    cpu->cs->thread_id = gettid();

    bql_lock();
    for (;;) {
        KVMExitAction action;
        int ret;

        cpu->run->immediate_exit = 0;
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if ((vcpu_must_park(cpu) || cpu->reset_pending) && cpu->io_pending &&
            !kvm_cpus.stop) {
            /*
             * KVM finishes a PIO or MMIO access (an IN's result into
             * RAX, RIP past an OUT) only at the next KVM_RUN; until then
             * the registers it shows are half way. Before parking (where
             * migration reads them) or a reset, enter once with
             * immediate_exit: the access completes and KVM returns
             * -EINTR before the guest runs, so a saved or migrated state
             * neither repeats nor loses it.
             */
            cpu->run->immediate_exit = 1;
        } else if (vcpu_must_park(cpu)) {
            vcpu_park(cpu);
            if (kvm_cpus.stop) {
                break;
            }
            continue;
        } else if (cpu->reset_pending) {
            GString *err = g_string_new(NULL);

            cpu->reset_pending = false;
            if (!vcpu_apply_reset(cpu, err)) {
                g_string_prepend(err, "KVM: vCPU reset failed\n");
                vcpu_fatal(cpu, err);
            }
            g_string_free(err, true);
            continue;
        }
        if (cpu->nmi_pending) {
            /* A vCPU ioctl: from the vCPU's own thread, between runs. */
            cpu->nmi_pending = false;
            if (ioctl(cpu->fd, KVM_NMI) < 0) {
                warn_report("KVM_NMI: %s", g_strerror(errno));
            }
        }
        bql_unlock();
        ret = ioctl(cpu->fd, KVM_RUN, 0);
        bql_lock();
        cpu->io_pending = ret == 0 && (cpu->run->exit_reason == KVM_EXIT_IO ||
                                       cpu->run->exit_reason == KVM_EXIT_MMIO);
        if (ret < 0) {
            GString *msg;

            if (errno == EINTR || errno == EAGAIN) {
                continue;
            }
            msg = g_string_new(NULL);
            /* QEMU's words. */
            g_string_printf(msg, "error: kvm run failed %s\n",
                            g_strerror(errno));
            vcpu_fatal(cpu, msg);
            g_string_free(msg, true);
            continue;
        }
        action = kvm_handle_exit(cpu->run, &kvm_bus);
        switch (action) {
        case KVM_EXIT_ACTION_RUN:
        case KVM_EXIT_ACTION_HALT:
            /* HLT exits only come without the in-kernel irqchip. */
            break;
        case KVM_EXIT_ACTION_RESET:
            cpu->wait_reset = true;
            qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
            break;
        case KVM_EXIT_ACTION_POWEROFF:
            cpu->wait_reset = true;
            qemu_system_guest_shutdown(0);
            break;
        case KVM_EXIT_ACTION_ERROR: {
            GString *msg = g_string_new(NULL);

            kvm_exit_describe(cpu->run, msg);
            vcpu_fatal(cpu, msg);
            g_string_free(msg, true);
            break;
        }
        }
    }
    bql_unlock();
    current_run = NULL;
    return NULL;
}

/* --- pause, resume, reset ---------------------------------------------- */

/* Called with the big lock held, from the main loop or a vCPU's exit. */
static void kvm_pause_vcpus(void)
{
    /* A vCPU that stops the VM parks once it leaves its exit handler. */
    unsigned want = kvm_cpus.ncpus - (current_vcpu ? 1 : 0);

    kvm_cpus.running = false;
    for (unsigned i = 0; i < kvm_cpus.ncpus; i++) {
        kvm_vcpu_kick(&kvm_cpus.cpus[i]);
    }
    while (kvm_cpus.parked < want) {
        bql_cond_wait(&kvm_cpus.parked_cond);
    }
}

static void kvm_resume_vcpus(void)
{
    kvm_cpus.running = true;
    g_cond_broadcast(&kvm_cpus.resume_cond);
}

static void kvm_reset_vcpus(const X86BootState *boot)
{
    x86_boot_state_free(&kvm_cpus.boot);
    kvm_cpus.have_boot = boot != NULL;
    if (boot) {
        /* Only the registers are used; the bookkeeping stays with the board. */
        kvm_cpus.boot = *boot;
        kvm_cpus.boot.ranges = NULL;
        kvm_cpus.boot.warnings = NULL;
    }
    kvm_pc_reset_irqchip();
    for (unsigned i = 0; i < kvm_cpus.ncpus; i++) {
        kvm_cpus.cpus[i].reset_pending = true;
        kvm_cpus.cpus[i].wait_reset = false;
    }
    g_cond_broadcast(&kvm_cpus.resume_cond);
}

/* --- creation and teardown --------------------------------------------- */

static bool vcpu_set_cpuid(KVMVcpu *cpu, const X86CPUIDEntry *t, unsigned n,
                           Error **errp)
{
    struct kvm_cpuid2 *c = g_malloc0(sizeof(*c) + n * sizeof(c->entries[0]));
    int ret;

    c->nent = n;
    for (unsigned i = 0; i < n; i++) {
        c->entries[i].function = t[i].function;
        c->entries[i].index = t[i].index;
        c->entries[i].flags = (t[i].flags & X86_CPUID_FLAG_INDEXED)
                              ? KVM_CPUID_FLAG_SIGNIFCANT_INDEX : 0;
        c->entries[i].eax = t[i].regs[X86_R_EAX];
        c->entries[i].ebx = t[i].regs[X86_R_EBX];
        c->entries[i].ecx = t[i].regs[X86_R_ECX];
        c->entries[i].edx = t[i].regs[X86_R_EDX];
    }
    ret = ioctl(cpu->fd, KVM_SET_CPUID2, c);
    g_free(c);
    if (ret < 0) {
        error_setg_errno(errp, errno, "KVM_SET_CPUID2 for vCPU %u",
                         cpu->cs->index);
        return false;
    }
    return true;
}

/* With the big lock: the vCPU takes it between runs. */
static void kvm_inject_nmi(unsigned index)
{
    kvm_cpus.cpus[index].nmi_pending = true;
    kvm_vcpu_kick(&kvm_cpus.cpus[index]);
}

/* What a vCPU of model def gets from what KVM supports. */
static unsigned kvm_model_cpuid(const X86CPUDef *def, X86CPUIDEntry *out,
                                unsigned max, Error **errp)
{
    X86CPUTopology topo = x86_cpu_topology(1, 1, 1);
    X86CPUIDEntry *supported = NULL;
    unsigned nsupported = 0, n;

    if (!kvm_get_supported_cpuid(&supported, &nsupported, errp)) {
        return 0;
    }
    n = x86_cpu_build_cpuid(def, &topo, 0, supported, nsupported, out, max,
                            NULL);
    g_free(supported);
    return n;
}

static bool vcpu_create(KVMVcpu *cpu, const X86CPUDef *def,
                        const X86CPUTopology *topo,
                        const X86CPUIDEntry *supported, unsigned nsupported,
                        Error **errp)
{
    X86CPUIDEntry *table = g_new0(X86CPUIDEntry, X86_CPUID_MAX_ENTRIES);
    GPtrArray *warnings = cpu->cs->index == 0
                          ? g_ptr_array_new_with_free_func(g_free) : NULL;
    const X86CPUIDEntry *leaf1;
    unsigned n;
    bool ok = false;
    void *run;

    n = x86_cpu_build_cpuid(def, topo, cpu->cs->index, supported, nsupported,
                            table, X86_CPUID_MAX_ENTRIES, warnings);
    for (guint i = 0; warnings && i < warnings->len; i++) {
        warn_report("%s", (char *)g_ptr_array_index(warnings, i));
    }
    x86_cpu_model_info(table, n, &cpu->model);
    leaf1 = x86_cpuid_find(table, n, 1, 0);
    cpu->signature = leaf1 ? leaf1->regs[X86_R_EAX] : 0;
    cpu->fd = ioctl(kvm_get_vm_fd(), KVM_CREATE_VCPU,
                    (unsigned long)cpu->cs->apic_id);
    if (cpu->fd < 0) {
        error_setg_errno(errp, errno, "kvm_init_vcpu: KVM_CREATE_VCPU "
                         "failed for vCPU %u (APIC ID %u)", cpu->cs->index,
                         cpu->cs->apic_id);
        goto out;
    }
    run = mmap(NULL, kvm_cpus.run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
               cpu->fd, 0);
    if (run == MAP_FAILED) {
        error_setg_errno(errp, errno, "mmap of the kvm_run page");
        goto out;
    }
    cpu->run = run;
    if (!vcpu_set_cpuid(cpu, table, n, errp)) {
        goto out;
    }
    if (ioctl(cpu->fd, KVM_GET_LAPIC, &cpu->lapic_reset) < 0) {
        error_setg_errno(errp, errno, "KVM_GET_LAPIC");
        goto out;
    }
    cpu->state.vcpu = cpu;
    cpu->state.fd = cpu->fd;
    cpu->state.index = cpu->cs->index;
    memcpy(&cpu->state.lapic_version,
           cpu->lapic_reset.regs + KVM_LAPIC_LVR,
           sizeof(cpu->state.lapic_version));
    ok = true;
out:
    if (warnings) {
        g_ptr_array_free(warnings, true);
    }
    g_free(table);
    return ok;
}

static bool vcpu_start_thread(KVMVcpu *cpu, Error **errp)
{
    sigset_t all, old;
    int err;

    /* The thread starts with every signal blocked and unblocks SIG_KICK. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&cpu->thread_id, NULL, kvm_vcpu_thread, cpu);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        error_setg_errno(errp, err, "cannot create the thread of vCPU %u",
                         cpu->cs->index);
        return false;
    }
    cpu->thread_started = true;
    if (kvm_cpus.debug_threads) {
        char name[16];

        g_snprintf(name, sizeof(name), "CPU %u/KVM", cpu->cs->index);
        pthread_setname_np(cpu->thread_id, name);
    }
    return true;
}

static bool kvm_create_vcpus(MachineState *ms, Error **errp)
{
    const VmConfig *cfg = ms->cfg;
    X86CPUTopology topo = x86_cpu_topology(cfg->smp.sockets, cfg->smp.cores,
                                           cfg->smp.threads);
    X86CPUIDEntry *supported = NULL;
    unsigned nsupported = 0;
    struct sigaction sa = { .sa_handler = kick_handler };
    X86CPUDef def;
    int size, max;
    bool ok = false;

    if (!kvm_check_cap(KVM_CAP_IMMEDIATE_EXIT)) {
        error_setg(errp, "kvm does not support KVM_CAP_IMMEDIATE_EXIT, "
                   "which this emulator requires");
        return false;
    }
    max = kvm_check_cap(KVM_CAP_MAX_VCPUS);
    if (!max) {
        max = kvm_check_cap(KVM_CAP_NR_VCPUS);
    }
    if (max && ms->smp_cpus > (unsigned)max) {
        error_setg(errp, "Number of SMP cpus requested (%u) exceeds the "
                   "maximum cpus supported by KVM (%d)", ms->smp_cpus, max);
        return false;
    }
    /* KVM wants its irqchip before the first vCPU. */
    if (!kvm_irqchip_create(errp)) {
        return false;
    }
    size = ioctl(kvm_get_fd(), KVM_GET_VCPU_MMAP_SIZE, 0);
    if (size <= 0) {
        error_setg_errno(errp, errno, "KVM_GET_VCPU_MMAP_SIZE");
        return false;
    }
    kvm_cpus.run_size = size;
    loc_restore(&cfg->cpu.loc);
    if (!x86_cpu_def_init(&def, cfg->cpu.model, cfg->cpu.features, errp)) {
        return false;
    }
    if (ms->mc->cpu_apic_id_from_option &&
        !x86_cpu_topology_given_apic_id(&topo, &def, errp)) {
        x86_cpu_def_free(&def);
        return false;
    }
    /* QEMU's feature warnings carry no option context. */
    loc_clear();
    if (!kvm_get_supported_cpuid(&supported, &nsupported, errp)) {
        goto out;
    }
    sigaction(SIG_KICK, &sa, NULL);
    /* From here on the main thread holds the big lock but to poll. */
    bql_init_main_loop();
    kvm_cpus.debug_threads = cfg->debug_threads;
    kvm_cpus.cpus = g_new0(KVMVcpu, ms->smp_cpus);
    for (unsigned i = 0; i < ms->smp_cpus; i++) {
        KVMVcpu *cpu = &kvm_cpus.cpus[i];

        cpu->fd = -1;
        cpu->cs = cpu_state_add(CPU_TYPE, cpu, &cpu->model,
                                x86_cpu_model_props(), errp);
        if (!cpu->cs) {
            goto out;
        }
        x86_cpu_state_init(cpu->cs, &topo);
        kvm_cpus.ncpus++;
        if (!vcpu_create(cpu, &def, &topo, supported, nsupported, errp)) {
            goto out;
        }
    }
    loc_clear();
    for (unsigned i = 0; i < kvm_cpus.ncpus; i++) {
        kvm_cpus.cpus[i].reset_pending = true;
        if (!vcpu_start_thread(&kvm_cpus.cpus[i], errp)) {
            goto out;
        }
    }
    ok = true;
out:
    g_free(supported);
    x86_cpu_def_free(&def);
    return ok;
}

static void kvm_destroy_vcpus(void)
{
    /* The main thread holds the big lock once vCPU threads may exist. */
    bool held = bql_locked();

    kvm_cpus.stop = true;
    if (held) {
        g_cond_broadcast(&kvm_cpus.resume_cond);
        for (unsigned i = 0; i < kvm_cpus.ncpus; i++) {
            kvm_vcpu_kick(&kvm_cpus.cpus[i]);
        }
        /* A thread may wait for the lock to finish its exit. */
        bql_unlock();
    }
    for (unsigned i = 0; i < kvm_cpus.ncpus; i++) {
        KVMVcpu *cpu = &kvm_cpus.cpus[i];

        if (cpu->thread_started) {
            pthread_join(cpu->thread_id, NULL);
        }
        if (cpu->run) {
            munmap(cpu->run, kvm_cpus.run_size);
        }
        if (cpu->fd >= 0) {
            close(cpu->fd);
        }
    }
    if (held) {
        bql_lock();
        bql_fini_main_loop();
    }
    g_free(kvm_cpus.cpus);
    x86_boot_state_free(&kvm_cpus.boot);
    memset(&kvm_cpus, 0, sizeof(kvm_cpus));
}

/* The vCPUs are parked: their registers can be read from here. */
static void kvm_dump_vcpu(unsigned index, GString *out)
{
    KVMVcpu *cpu = &kvm_cpus.cpus[index];
    struct kvm_regs regs;
    struct kvm_sregs sregs;

    if (ioctl(cpu->fd, KVM_GET_REGS, &regs) < 0 ||
        ioctl(cpu->fd, KVM_GET_SREGS, &sregs) < 0) {
        g_string_append_printf(out, "KVM_GET_REGS: %s\n", g_strerror(errno));
        return;
    }
    kvm_dump_registers(&regs, &sregs, out);
}

/* --- migration (kvm-cpu-state.c) --------------------------------------- */

bool kvm_vcpu_before_save(KVMVcpu *cpu, Error **errp)
{
    GString *err;

    if (!cpu->reset_pending) {
        return true;
    }
    err = g_string_new(NULL);
    cpu->reset_pending = false;
    if (!vcpu_apply_reset(cpu, err)) {
        g_strchomp(err->str);
        error_setg(errp, "its reset failed: %s", err->str);
        g_string_free(err, true);
        return false;
    }
    g_string_free(err, true);
    return true;
}

void kvm_vcpu_after_load(KVMVcpu *cpu)
{
    cpu->reset_pending = false;
    cpu->wait_reset = false;
    cpu->nmi_pending = false;
}

static void *kvm_vcpu_state(unsigned index)
{
    return index < kvm_cpus.ncpus ? &kvm_cpus.cpus[index].state : NULL;
}

/* The in-kernel APICs take the message as it is (KVM_CAP_SIGNAL_MSI). */
static void kvm_deliver_msi(uint64_t addr, uint32_t data)
{
    struct kvm_msi msi = {
        .address_lo = (uint32_t)addr,
        .address_hi = addr >> 32,
        .data = data,
    };

    if (ioctl(kvm_get_vm_fd(), KVM_SIGNAL_MSI, &msi) < 0) {
        qemu_log_mask(LOG_GUEST_ERROR, "kvm: KVM_SIGNAL_MSI 0x%" PRIx64
                      "/0x%x: %s\n", addr, data, g_strerror(errno));
    }
}

const AccelOps kvm_accel_ops = {
    .create_vcpus = kvm_create_vcpus,
    .reset_vcpus = kvm_reset_vcpus,
    .pause_vcpus = kvm_pause_vcpus,
    .resume_vcpus = kvm_resume_vcpus,
    .destroy_vcpus = kvm_destroy_vcpus,
    .dump_vcpu = kvm_dump_vcpu,
    .deliver_msi = kvm_deliver_msi,
    .model_cpuid = kvm_model_cpuid,
    .inject_nmi = kvm_inject_nmi,
    .has_ioeventfds = kvm_has_ioeventfds,
    .msi_irqfd_add = kvm_msi_irqfd_add,
    .msi_irqfd_update = kvm_msi_irqfd_update,
    .msi_irqfd_del = kvm_msi_irqfd_del,
    .vcpu_vmstate = kvm_cpu_vmstate,
    .vcpu_state = kvm_vcpu_state,
    .vm_vmstate = kvm_vm_vmstate,
    .vm_state = kvm_vm_state,
};
