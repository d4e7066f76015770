/*
 * The vCPUs of the software CPU: one host thread runs all of them in
 * turn ("round-robin", QEMU's thread=single), parks while the VM is
 * stopped, and sleeps while every vCPU is halted or waits for a SIPI.
 *
 * Scheduling: each vCPU with work runs for TCG_QUANTUM (100,000)
 * instructions or until it halts, then the next one gets its turn; a
 * vCPU that executes pause with others present gives its turn up early.
 * Guest time is QEMU_CLOCK_VIRTUAL, which follows host time while the VM
 * runs (there is no instruction counting): a vCPU waiting for its turn
 * sees time pass, as a descheduled host thread would.
 *
 * Locking: the thread holds the big lock while it decides what to run
 * and drops it while guest code runs; device accesses take it around
 * each access (target/i386/tcg/mmu.c, misc.c). The APIC calls the hooks
 * below with the big lock held: they set interrupt_request atomically
 * and wake the thread (a condition variable on the big lock) or make
 * the running vCPU leave its loop so the interrupted one runs soon.
 */
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-glib/json-glib.h>

#include "hw/boards.h"
#include "qemu/log.h"

#include "target/i386/tb-cache.h"
#include "target/i386/boot-state.h"
#include "hw/intc/apic.h"
#include "monitor/monitor.h"
#include "qemu/timer.h"
#include "qom/object.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "system/system.h"
#include "system/tcg.h"
#include "target/i386/cpu-model.h"
#include "target/i386/cpu-state.h"

typedef struct TCGVcpu {
    X86CPU cpu;
    CPUState *cs;                       /* index, topology, thread id */
    X86CPUModelInfo model;              /* what its QOM properties show */
    bool wait_reset;                    /* triple fault or fatal error */
} TCGVcpu;

static struct {
    TCGVcpu **cpus;
    unsigned ncpus;
    char *type;                         /* "qemu64-x86_64-cpu" */
    bool amd;
    pthread_t thread_id;
    bool thread_started;
    bool running;                       /* the VM runs */
    bool stop;                          /* the thread must end */
    bool parked;
    TCGVcpu *current;                   /* running guest code */
    unsigned next;                      /* round-robin position */
    GCond parked_cond, wake_cond;
    bool debug_threads;
} tcg_cpus;

static void request(X86CPU *cpu, uint32_t bits)
{
    __atomic_fetch_or(&cpu->env.interrupt_request, bits, __ATOMIC_SEQ_CST);
}

/* Make the execution loop of cpu return soon. */
static void exit_request(X86CPU *cpu)
{
    request(cpu, CPU_INTERRUPT_EXIT);
}

/* Something changed for target: let the thread look again soon. */
static void kick(TCGVcpu *target)
{
    TCGVcpu *cur = tcg_cpus.current;

    g_cond_broadcast(&tcg_cpus.wake_cond);
    if (cur && cur != target) {
        exit_request(&cur->cpu);
    }
}

/* --- APIC hooks (called with the big lock held) ------------------------ */

static void hook_interrupt(void *opaque, bool level)
{
    TCGVcpu *v = opaque;

    if (level) {
        request(&v->cpu, CPU_INTERRUPT_HARD);
        kick(v);
    } else {
        __atomic_fetch_and(&v->cpu.env.interrupt_request,
                           ~CPU_INTERRUPT_HARD, __ATOMIC_SEQ_CST);
    }
}

static void hook_nmi(void *opaque)
{
    TCGVcpu *v = opaque;

    request(&v->cpu, CPU_INTERRUPT_NMI);
    kick(v);
}

static void hook_init(void *opaque)
{
    TCGVcpu *v = opaque;

    request(&v->cpu, CPU_INTERRUPT_INIT);
    kick(v);
}

static void hook_sipi(void *opaque, uint8_t vector)
{
    TCGVcpu *v = opaque;

    v->cpu.env.sipi_vector = vector;
    request(&v->cpu, CPU_INTERRUPT_SIPI);
    kick(v);
}

/* QEMU's inject-nmi: as if the vCPU's LAPIC took an NMI. */
static void tcg_inject_nmi(unsigned index)
{
    hook_nmi(tcg_cpus.cpus[index]);
}

static uint64_t hook_get_tsc(void *opaque)
{
    TCGVcpu *v = opaque;

    return x86_cpu_get_tsc(&v->cpu.env);
}

static int64_t hook_tsc_to_ns(void *opaque, uint64_t tsc)
{
    TCGVcpu *v = opaque;
    int64_t ticks = tsc - v->cpu.env.tsc_offset;

    return (__int128)ticks * NANOSECONDS_PER_SECOND / (int64_t)x86_tsc_hz;
}

static const APICCpuHooks tcg_apic_hooks = {
    .interrupt = hook_interrupt,
    .nmi = hook_nmi,
    .init = hook_init,
    .sipi = hook_sipi,
    .get_tsc = hook_get_tsc,
    .tsc_to_ns = hook_tsc_to_ns,
};

/* --- stops: triple fault and internal errors --------------------------- */

/*
 * With the big lock, after a run that stopped the vCPU: a triple fault
 * asks for a guest reset (-no-reboot: the end of the VM), an internal
 * error prints the diagnostic as KVM's fatal exits do, then stops the
 * VM in internal-error (-no-shutdown) or ends it with status 1. Either
 * way the vCPU waits for the next reset.
 */
static void vcpu_stopped(TCGVcpu *v, X86CPUExit why)
{
    CPUX86State *env = &v->cpu.env;
    GString *out;

    v->wait_reset = true;
    if (why == X86_CPU_EXIT_TRIPLE_FAULT) {
        qemu_system_reset_request(SHUTDOWN_CAUSE_GUEST_RESET);
        return;
    }
    out = g_string_new(NULL);
    g_string_printf(out, "TCG internal error: %s\n", env->fatal_msg);
    x86_cpu_dump_state(env, out);
    fprintf(stderr, "%s", out->str);
    fflush(stderr);
    g_string_free(out, true);
    g_clear_pointer(&env->fatal_msg, g_free);
    if (runstate_actions.shutdown == SHUTDOWN_ACTION_PAUSE) {
        qemu_system_vmstop_request(RUN_STATE_INTERNAL_ERROR);
    } else {
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
    }
}

/* --- the thread -------------------------------------------------------- */

/* Could this vCPU do anything if it ran now? */
static bool vcpu_has_work(TCGVcpu *v)
{
    CPUX86State *env = &v->cpu.env;
    uint32_t req = __atomic_load_n(&env->interrupt_request,
                                   __ATOMIC_ACQUIRE);

    if (v->wait_reset) {
        return false;
    }
    if (req & (CPU_INTERRUPT_INIT | CPU_INTERRUPT_SIPI)) {
        return true;
    }
    if (v->cpu.stopped) {
        return false;
    }
    if (!(env->hflags & HF_HALTED_MASK)) {
        return true;
    }
    return (req & CPU_INTERRUPT_NMI) ||
           ((req & CPU_INTERRUPT_HARD) && (env->eflags & IF_MASK));
}

static TCGVcpu *next_runnable(void)
{
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        unsigned n = (tcg_cpus.next + i) % tcg_cpus.ncpus;

        if (vcpu_has_work(tcg_cpus.cpus[n])) {
            tcg_cpus.next = n + 1;
            return tcg_cpus.cpus[n];
        }
    }
    return NULL;
}

/* With the big lock: wait until the VM runs again or the end. */
static void park(void)
{
    tcg_cpus.parked = true;
    g_cond_broadcast(&tcg_cpus.parked_cond);
    while (!tcg_cpus.running && !tcg_cpus.stop) {
        bql_cond_wait(&tcg_cpus.wake_cond);
    }
    tcg_cpus.parked = false;
}

/* One turn of v: its pending events, then up to a quantum of code. */
static void run_turn(TCGVcpu *v)
{
    X86CPU *cpu = &v->cpu;
    CPUX86State *env = &cpu->env;
    X86CPUExit why = X86_CPU_EXIT_HALT;

    __atomic_fetch_and(&env->interrupt_request, ~CPU_INTERRUPT_EXIT,
                       __ATOMIC_SEQ_CST);
    tcg_cpus.current = v;
    bql_unlock();
    /* A halted or waiting vCPU wakes here (delivery is self-contained). */
    if (cpu->stopped || (env->hflags & HF_HALTED_MASK)) {
        x86_handle_interrupts(env);
    }
    if (!cpu->stopped && !(env->hflags & HF_HALTED_MASK) && !v->wait_reset) {
        uint64_t executed;

        why = x86_cpu_exec(cpu, TCG_QUANTUM, &executed);
        cpu->icount += executed;
    }
    bql_lock();
    tcg_cpus.current = NULL;
    if (why == X86_CPU_EXIT_TRIPLE_FAULT || why == X86_CPU_EXIT_FATAL) {
        vcpu_stopped(v, why);
    }
}

static void *tcg_cpu_thread(void *opaque)
{
    /* One thread runs them all, as QEMU's round-robin TCG. */
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        tcg_cpus.cpus[i]->cs->thread_id = gettid();
    }
    bql_lock();
    for (;;) {
        TCGVcpu *v;

        if (tcg_cpus.stop) {
            break;
        }
        if (!tcg_cpus.running) {
            park();
            continue;
        }
        v = next_runnable();
        if (!v) {
            /* Every vCPU halted: an interrupt or INIT/SIPI kicks us. */
            bql_cond_wait(&tcg_cpus.wake_cond);
            continue;
        }
        run_turn(v);
    }
    tcg_cpus.parked = true;
    g_cond_broadcast(&tcg_cpus.parked_cond);
    bql_unlock();
    return NULL;
}

/* --- pause, resume, reset ---------------------------------------------- */

/* With the big lock, from the main loop or (guest shutdown) the thread. */
static void tcg_pause_vcpus(void)
{
    tcg_cpus.running = false;
    if (tcg_cpus.current) {
        exit_request(&tcg_cpus.current->cpu);
    }
    g_cond_broadcast(&tcg_cpus.wake_cond);
    if (pthread_equal(pthread_self(), tcg_cpus.thread_id)) {
        return;                 /* it parks after this turn */
    }
    while (tcg_cpus.thread_started && !tcg_cpus.parked) {
        bql_cond_wait(&tcg_cpus.parked_cond);
    }
}

static void tcg_resume_vcpus(void)
{
    tcg_cpus.running = true;
    g_cond_broadcast(&tcg_cpus.wake_cond);
}

static uint32_t boot_flags(const X86BootSegment *s)
{
    if (s->unusable) {
        return 0;
    }
    return ((uint32_t)s->type << DESC_TYPE_SHIFT) |
           (s->s ? DESC_S_MASK : 0) |
           ((uint32_t)s->dpl << DESC_DPL_SHIFT) |
           (s->present ? DESC_P_MASK : 0) | (s->l ? DESC_L_MASK : 0) |
           (s->db ? DESC_B_MASK : 0) | (s->g ? DESC_G_MASK : 0);
}

static SegmentCache boot_segment(const X86BootSegment *s)
{
    return (SegmentCache) {
        .selector = s->selector, .base = s->base, .limit = s->limit,
        .flags = boot_flags(s),
    };
}

/* The loader's entry state, as kvm_cpus_reset() applies it. */
static void apply_boot_state(X86CPU *cpu, const X86BootState *st)
{
    CPUX86State *env = &cpu->env;

    env->segs[R_CS] = boot_segment(&st->cs);
    env->segs[R_DS] = boot_segment(&st->ds);
    env->segs[R_ES] = boot_segment(&st->es);
    env->segs[R_FS] = boot_segment(&st->fs);
    env->segs[R_GS] = boot_segment(&st->gs);
    env->segs[R_SS] = boot_segment(&st->ss);
    env->tr = boot_segment(&st->tr);
    env->ldt = boot_segment(&st->ldt);
    env->gdt = (DescTable) { .base = st->gdt_base, .limit = st->gdt_limit };
    env->idt = (DescTable) { .base = st->idt_base, .limit = st->idt_limit };
    env->cr[0] = st->cr0;
    env->cr[3] = st->cr3;
    env->cr[4] = st->cr4;
    env->efer = st->efer;
    env->regs[R_EAX] = st->rax;
    env->regs[R_EBX] = st->rbx;
    env->regs[R_ECX] = st->rcx;
    env->regs[R_EDX] = st->rdx;
    env->regs[R_ESI] = st->rsi;
    env->regs[R_EDI] = st->rdi;
    env->regs[R_ESP] = st->rsp;
    env->regs[R_EBP] = st->rbp;
    env->rip = st->rip;
    x86_set_eflags(env, st->rflags | EFLAGS_FIXED, ~0u);
    x86_tlb_flush(env, true);
    x86_update_hflags(env);
}

/* -d cpu_reset: the state each vCPU starts from. */
static void log_cpu_reset(unsigned index, const CPUX86State *env)
{
    static const char names[][4] = {
        "RAX", "RCX", "RDX", "RBX", "RSP", "RBP", "RSI", "RDI",
    };

    qemu_log("CPU#%u reset:\n", index);
    for (unsigned r = 0; r < 8; r++) {
        qemu_log("%s=%016" PRIx64 "%s", names[r], env->regs[r],
                 r % 4 == 3 ? "\n" : " ");
    }
    qemu_log("RIP=%016" PRIx64 " RFL=%08x CS=%04x base %" PRIx64
             " CR0=%08" PRIx64 " CR3=%08" PRIx64 " CR4=%08" PRIx64
             " EFER=%" PRIx64 "\n", env->rip, (unsigned)env->eflags,
             env->segs[R_CS].selector, env->segs[R_CS].base, env->cr[0],
             env->cr[3], env->cr[4], env->efer);
}

static void tcg_reset_vcpus(const X86BootState *boot)
{
    /* The loader rewrote RAM behind the vCPUs' back. */
    tb_flush_all();
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        TCGVcpu *v = tcg_cpus.cpus[i];

        v->wait_reset = false;
        x86_cpu_reset_state(&v->cpu, i == 0);
        /*
         * One reset for all: the TSCs start together, as on a real
         * board (reset one after the other, each would lag the one
         * before and Linux would find them unsynchronized).
         */
        v->cpu.env.tsc_offset = tcg_cpus.cpus[0]->cpu.env.tsc_offset;
        if (i == 0 && boot) {
            apply_boot_state(&v->cpu, boot);
        }
        if (qemu_loglevel_mask(LOG_CPU_RESET)) {
            log_cpu_reset(i, &v->cpu.env);
        }
    }
    g_cond_broadcast(&tcg_cpus.wake_cond);
}

/* --- the memory map, as the vCPUs' TLBs and decoded code see it --------- */

/* Drop what the vCPUs cached of [addr, addr + len): its map changed. */
static void tlbs_invalidate(uint64_t addr, uint64_t len, bool writes_only)
{
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        x86_tlb_invalidate_phys(&tcg_cpus.cpus[i]->cpu.env, addr, len,
                                writes_only);
    }
}

/* A range appeared or went: TLB entries and decoded code of it go. */
static void tcg_region_changed(MemoryListener *l,
                               const MemoryRegionSection *s)
{
    tlbs_invalidate(s->offset_within_address_space, s->size, false);
    tb_invalidate_phys_range(s->offset_within_address_space, s->size);
}

/* Logged pages must not keep fast-path write tags: writes mark the log. */
static void tcg_log_start(MemoryListener *l, const MemoryRegionSection *s)
{
    tlbs_invalidate(s->offset_within_address_space, s->size, true);
}

/* A page now holds decoded code: no vCPU may write it by the fast path. */
static void tcg_code_page(uint64_t paddr)
{
    tlbs_invalidate(paddr, X86_PAGE_SIZE, true);
}

/*
 * Guest RAM [addr, addr + len) was written other than by a vCPU (DMA,
 * qtest, a loader): decoded code of those pages must go. Any thread (the
 * block cache locks itself).
 */
static void tcg_ram_written(MemoryListener *l, uint64_t addr, uint64_t len)
{
    uint64_t last, page;

    if (!len) {
        return;
    }
    last = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
    for (page = addr & X86_PAGE_MASK; ; page += X86_PAGE_SIZE) {
        if (tb_page_has_code(page)) {
            uint64_t start = MAX(page, addr);
            uint64_t end = MIN(page + X86_PAGE_SIZE - 1, last);

            tb_invalidate_phys_range(start, end - start + 1);
        }
        if (page == (last & X86_PAGE_MASK)) {
            break;
        }
    }
}

static MemoryListener tcg_memory_listener = {
    .region_add = tcg_region_changed,
    .region_del = tcg_region_changed,
    .log_start = tcg_log_start,
    .ram_written = tcg_ram_written,
};

/* --- creation and teardown --------------------------------------------- */

/*
 * The CPUID table of every vCPU from the model applied to what the
 * interpreter implements. Features asked for with +feat that it lacks
 * get QEMU's TCG warning.
 */
static bool build_cpuid_tables(MachineState *ms, X86CPUTopology *topo,
                               Error **errp)
{
    const VmConfig *cfg = ms->cfg;
    X86CPUIDEntry supported[32], scratch[X86_CPUID_MAX_ENTRIES];
    GPtrArray *warnings = g_ptr_array_new_with_free_func(g_free);
    unsigned nsupported = x86_tcg_supported_cpuid(supported,
                                                  G_N_ELEMENTS(supported));
    X86CPUDef def, asked;
    X86CPUIDEntry *vendor;

    loc_restore(&cfg->cpu.loc);
    if (!x86_cpu_def_init(&def, cfg->cpu.model ? cfg->cpu.model : "qemu64",
                          cfg->cpu.features, errp)) {
        g_ptr_array_free(warnings, true);
        return false;
    }
    /* QEMU's order; the apic-id error at -cpu, host's words carry none. */
    if (ms->mc->cpu_apic_id_from_option &&
        !x86_cpu_topology_given_apic_id(topo, &def, errp)) {
        x86_cpu_def_free(&def);
        g_ptr_array_free(warnings, true);
        return false;
    }
    loc_clear();
    if (def.kind == X86_CPU_MODEL_HOST) {
        error_setg(errp, "CPU model 'host' requires KVM or HVF");
        x86_cpu_def_free(&def);
        g_ptr_array_free(warnings, true);
        return false;
    }
    /* Only what was asked for explicitly: the models fit the table. */
    asked = def;
    asked.kind = X86_CPU_MODEL_MAX;
    x86_cpu_build_cpuid(&asked, topo, 0, supported, nsupported, scratch,
                        G_N_ELEMENTS(scratch), warnings);
    for (guint i = 0; i < warnings->len; i++) {
        const char *w = g_ptr_array_index(warnings, i);

        warn_report("TCG%s", g_str_has_prefix(w, "host") ? w + 4 : w);
    }
    g_ptr_array_free(warnings, true);
    tcg_cpus.type = g_strdup_printf("%s-x86_64-cpu", def.name);
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        X86CPU *cpu = &tcg_cpus.cpus[i]->cpu;

        cpu->ncpuid = x86_cpu_build_cpuid(&def, topo, i, supported,
                                          nsupported, cpu->cpuid,
                                          X86_CPUID_MAX_ENTRIES, NULL);
    }
    vendor = x86_cpuid_find(tcg_cpus.cpus[0]->cpu.cpuid,
                            tcg_cpus.cpus[0]->cpu.ncpuid, 0, 0);
    tcg_cpus.amd = vendor && vendor->regs[X86_R_EBX] == 0x68747541;
    x86_cpu_def_free(&def);
    return true;
}

static bool start_thread(Error **errp)
{
    sigset_t all, old;
    int err;

    /* Signals belong to the main loop's signalfd. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    err = pthread_create(&tcg_cpus.thread_id, NULL, tcg_cpu_thread, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (err) {
        error_setg_errno(errp, err, "cannot create the vCPU thread");
        return false;
    }
    tcg_cpus.thread_started = true;
    if (tcg_cpus.debug_threads) {
        pthread_setname_np(tcg_cpus.thread_id, "ALL CPUs/TCG");
    }
    return true;
}

static bool tcg_create_vcpus(MachineState *ms, Error **errp)
{
    const VmConfig *cfg = ms->cfg;
    X86CPUTopology topo = x86_cpu_topology(cfg->smp.sockets, cfg->smp.cores,
                                           cfg->smp.threads);
    unsigned n = MAX(ms->smp_cpus, 1u);

    tcg_cpus.cpus = g_new0(TCGVcpu *, n);
    for (unsigned i = 0; i < n; i++) {
        TCGVcpu *v = g_new0(TCGVcpu, 1);

        v->cpu.index = i;
        v->cpu.env.cpu = &v->cpu;
        /* They share one thread: a spinning vCPU lets the others run. */
        v->cpu.pause_yields = n > 1;
        tcg_cpus.cpus[tcg_cpus.ncpus++] = v;
    }
    if (!build_cpuid_tables(ms, &topo, errp)) {
        return false;
    }
    /* From here on the main thread holds the big lock but to poll. */
    bql_init_main_loop();
    tcg_cpus.debug_threads = cfg->debug_threads;
    for (unsigned i = 0; i < n; i++) {
        TCGVcpu *v = tcg_cpus.cpus[i];

        /* The topology's, or the one -cpu gave (build_cpuid_tables). */
        v->cpu.apic_id = x86_cpu_apic_id(&topo, i);
        x86_cpu_model_info(v->cpu.cpuid, v->cpu.ncpuid, &v->model);
        v->cs = cpu_state_add(tcg_cpus.type, v, &v->model,
                              x86_cpu_model_props(), errp);
        if (!v->cs) {
            return false;
        }
        x86_cpu_state_init(v->cs, &topo);
        v->cpu.apic = apic_new(v->cpu.apic_id, i == 0, &tcg_apic_hooks, v,
                               errp);
        if (!v->cpu.apic) {
            return false;
        }
        x86_cpu_reset_state(&v->cpu, i == 0);
    }
    memory_listener_register(&tcg_memory_listener, &address_space_memory);
    tb_set_code_page_notify(tcg_code_page);
    if (!start_thread(errp)) {
        return false;
    }
    return true;
}

static bool tcg_amd_ht_hole(void)
{
    return tcg_cpus.amd && X86_PHYS_BITS >= 40;
}

static void tcg_destroy_vcpus(void)
{
    /* The main thread holds the big lock once the thread may exist. */
    bool held = bql_locked();

    tb_set_code_page_notify(NULL);
    memory_listener_unregister(&tcg_memory_listener);
    if (tcg_cpus.thread_started) {
        if (!held) {
            bql_lock();
        }
        tcg_cpus.stop = true;
        if (tcg_cpus.current) {
            exit_request(&tcg_cpus.current->cpu);
        }
        g_cond_broadcast(&tcg_cpus.wake_cond);
        bql_unlock();
        pthread_join(tcg_cpus.thread_id, NULL);
        if (held) {
            bql_lock();
        }
    }
    if (held) {
        bql_fini_main_loop();
    }
    if (tcg_cpus.ncpus && qemu_loglevel_mask(LOG_TCG_STATS)) {
        uint64_t total = 0;

        for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
            total += tcg_cpus.cpus[i]->cpu.icount;
        }
        qemu_log("%" PRIu64 " instructions retired by %u vCPU(s)\n", total,
                 tcg_cpus.ncpus);
    }
    /* The APICs came with the vCPUs: they go with them. */
    apic_free_all();
    for (unsigned i = 0; i < tcg_cpus.ncpus; i++) {
        g_free(tcg_cpus.cpus[i]);
    }
    g_free(tcg_cpus.cpus);
    g_free(tcg_cpus.type);
    memset(&tcg_cpus, 0, sizeof(tcg_cpus));
}

static void tcg_dump_vcpu(unsigned index, GString *out)
{
    x86_cpu_dump_state(&tcg_cpus.cpus[index]->cpu.env, out);
}

static void *tcg_vcpu_state(unsigned index)
{
    return index < tcg_cpus.ncpus ? &tcg_cpus.cpus[index]->cpu : NULL;
}

const AccelOps tcg_accel_ops = {
    .create_vcpus = tcg_create_vcpus,
    .reset_vcpus = tcg_reset_vcpus,
    .pause_vcpus = tcg_pause_vcpus,
    .resume_vcpus = tcg_resume_vcpus,
    .destroy_vcpus = tcg_destroy_vcpus,
    .amd_ht_hole = tcg_amd_ht_hole,
    .dump_vcpu = tcg_dump_vcpu,
    .deliver_msi = apic_deliver_msi,
    .vcpu_vmstate = x86_cpu_vmstate,
    .vcpu_state = tcg_vcpu_state,
    .model_cpuid = x86_tcg_model_cpuid,
    .inject_nmi = tcg_inject_nmi,
};
