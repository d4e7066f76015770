/*
 * Exceptions and interrupts of the software CPU: raising them from
 * inside an instruction, delivering them through the real-mode IVT or
 * the IDT (32-bit and long-mode gates, privilege changes with the TSS
 * stack switch and IST), double and triple faults, iret, the interrupt
 * checks between blocks (INIT, SIPI, NMI, INTR) and the mode bits in
 * hflags. Intel SDM vol. 3A chapter 6 and the IRET/INT n pages of
 * vol. 2; AMD APM vol. 2 chapter 8.
 *
 * Delivery is transactional: every check, descriptor read and stack push
 * happens before any register changes, so a fault during delivery leaves
 * the state of the interrupted instruction for the next attempt (#DF, or
 * the second exception when the classes allow serial handling).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "hw/intc/apic.h"
#include "qemu/log.h"
#include "target/i386/tcg/helper.h"
#include "target/i386/tcg/sys-internal.h"

/* What kind of event is delivered: it decides EXT, DPL checks, #DF. */
typedef enum EventKind {
    EVENT_EXCEPTION,            /* a fault or trap of the processor */
    EVENT_SOFTWARE,             /* int n, int3, into: gate DPL checked */
    EVENT_EXTERNAL,             /* INTR or NMI */
} EventKind;

typedef struct Event {
    int vector;
    EventKind kind;
    bool has_error;
    uint32_t error_code;
    uint64_t return_rip;        /* pushed as the return address */
} Event;

/* --- raising ----------------------------------------------------------- */

G_NORETURN static void raise_event(CPUX86State *env, int vector, uint32_t error,
                             bool is_int, uint64_t next_rip)
{
    env->exception_index = vector;
    env->error_code = error;
    env->exception_is_int = is_int;
    env->exception_next_rip = next_rip;
    longjmp(env->jmp_env, 1);
}

void x86_raise_exception(CPUX86State *env, int vector)
{
    raise_event(env, vector, 0, false, 0);
}

void x86_raise_exception_err(CPUX86State *env, int vector,
                             uint32_t error_code)
{
    raise_event(env, vector, error_code, false, 0);
}

void x86_raise_interrupt(CPUX86State *env, int vector, uint64_t next_rip)
{
    raise_event(env, vector, 0, true, next_rip);
}

void x86_cpu_internal_error(CPUX86State *env, const char *fmt, ...)
{
    va_list ap;
    char *msg;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_free(env->fatal_msg);
    env->fatal_msg = msg;
    x86_cpu_stop(env, X86_CPU_EXIT_FATAL);
    raise_event(env, EXCP_INTERNAL_ERROR, 0, false, 0);
}

void x86_cpu_stop(CPUX86State *env, X86CPUExit why)
{
    env->exit_reason = why;
    env->hflags |= HF_HALTED_MASK;
    __atomic_fetch_or(&env->interrupt_request, CPU_INTERRUPT_EXIT,
                      __ATOMIC_SEQ_CST);
}

/* --- hflags ------------------------------------------------------------ */

void x86_update_hflags(CPUX86State *env)
{
    uint32_t old = env->hflags;
    uint32_t hf = old & ~(HF_DECODE_MASK);
    uint64_t cr0 = env->cr[0];
    const SegmentCache *cs = &env->segs[R_CS], *ss = &env->segs[R_SS];
    int cpl;

    if (!(cr0 & CR0_PE_MASK)) {
        cpl = 0;
    } else if (env->eflags & VM_MASK) {
        cpl = 3;
        hf |= HF_VM_MASK;
    } else {
        /* SS.DPL is the CPL: every SS load keeps it so (as VMX does). */
        cpl = (ss->flags >> DESC_DPL_SHIFT) & 3;
    }
    hf |= cpl;
    if (cr0 & CR0_PE_MASK) {
        hf |= HF_PE_MASK;
    }
    if (cr0 & CR0_PG_MASK) {
        hf |= HF_PG_MASK;
    }
    if (env->efer & EFER_LMA) {
        hf |= HF_LMA_MASK;
    }
    if ((hf & HF_LMA_MASK) && !(hf & HF_VM_MASK) && (cs->flags & DESC_L_MASK)) {
        hf |= HF_CS64_MASK | HF_CS32_MASK | HF_SS32_MASK;
    } else {
        if (cs->flags & DESC_B_MASK) {
            hf |= HF_CS32_MASK;
        }
        if (ss->flags & DESC_B_MASK) {
            hf |= HF_SS32_MASK;
        }
        if (!(hf & HF_PE_MASK) || (hf & HF_VM_MASK) ||
            !(hf & HF_CS32_MASK) || env->segs[R_DS].base ||
            env->segs[R_ES].base || ss->base) {
            hf |= HF_ADDSEG_MASK;
        }
    }
    /* CPL 3 has a TLB of its own (see mmu.c): nothing to flush. */
    x86_set_hflags(env, hf);
}

/* --- delivery ---------------------------------------------------------- */

static bool vector_has_error_code(int vector)
{
    switch (vector) {
    case EXCP08_DBLE:
    case EXCP0A_TSS:
    case EXCP0B_NOSEG:
    case EXCP0C_STACK:
    case EXCP0D_GPF:
    case EXCP0E_PAGE:
    case EXCP11_ALGN:
        return true;
    default:
        return false;
    }
}

/* Error code of a fault that names an IDT entry (bit 1) or a selector. */
static uint32_t idt_error(const Event *ev)
{
    return ev->vector * 8 + 2 + (ev->kind != EVENT_SOFTWARE);
}

static uint32_t sel_error(const Event *ev, uint16_t selector)
{
    return (selector & 0xfffc) + (ev->kind != EVENT_SOFTWARE);
}

static void deliver_real(CPUX86State *env, const Event *ev)
{
    X86Stack st = x86_stack_current(env);
    uint32_t eflags = x86_get_eflags(env);
    uint16_t offset, selector;

    if ((uint32_t)ev->vector * 4 + 3 > env->idt.limit) {
        x86_raise_exception_err(env, EXCP0D_GPF, idt_error(ev));
    }
    offset = x86_ld_kernel(env, env->idt.base + ev->vector * 4, 2);
    selector = x86_ld_kernel(env, env->idt.base + ev->vector * 4 + 2, 2);
    x86_stack_push(env, &st, eflags, 2);
    x86_stack_push(env, &st, env->segs[R_CS].selector, 2);
    x86_stack_push(env, &st, ev->return_rip, 2);

    x86_set_rsp(env, st.mask, st.sp);
    x86_set_eflags(env, 0, IF_MASK | TF_MASK | AC_MASK | RF_MASK);
    x86_load_seg_real(env, R_CS, selector);
    env->rip = offset;
}

/* Check the stack segment of an inner level; returns its descriptor. */
static void check_inner_ss(CPUX86State *env, const Event *ev, uint16_t ss,
                           int dpl, uint32_t *e1, uint32_t *e2)
{
    if (!(ss & 0xfffc)) {
        x86_raise_exception_err(env, EXCP0A_TSS, ev->kind != EVENT_SOFTWARE);
    }
    if ((ss & 3) != dpl || !x86_load_desc(env, ss, e1, e2) ||
        x86_desc_dpl(*e2) != dpl ||
        (*e2 & (DESC_S_MASK | DESC_CS_MASK | DESC_W_MASK)) !=
        (DESC_S_MASK | DESC_W_MASK)) {
        x86_raise_exception_err(env, EXCP0A_TSS, sel_error(ev, ss));
    }
    if (!(*e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0C_STACK, sel_error(ev, ss));
    }
}

/* Check the gate's target code segment; returns the new CPL. */
static int check_gate_target(CPUX86State *env, const Event *ev,
                             uint16_t selector, uint32_t *e1, uint32_t *e2)
{
    int cpl = x86_cpl(env), dpl;

    if (!(selector & 0xfffc)) {
        x86_raise_exception_err(env, EXCP0D_GPF, ev->kind != EVENT_SOFTWARE);
    }
    if (!x86_load_desc(env, selector, e1, e2) ||
        (*e2 & (DESC_S_MASK | DESC_CS_MASK)) !=
        (DESC_S_MASK | DESC_CS_MASK) ||
        (dpl = x86_desc_dpl(*e2)) > cpl) {
        x86_raise_exception_err(env, EXCP0D_GPF, sel_error(ev, selector));
    }
    if (!(*e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, sel_error(ev, selector));
    }
    if (*e2 & DESC_C_MASK) {
        return cpl;
    }
    return dpl;
}

/* Read and check the IDT gate; returns e1, e2 (and e3 in long mode). */
static void read_gate(CPUX86State *env, const Event *ev, bool long_mode,
                      uint32_t *e1, uint32_t *e2, uint32_t *e3)
{
    unsigned size = long_mode ? 16 : 8;
    uint64_t addr = env->idt.base + ev->vector * size;
    unsigned type;

    if (ev->vector * size + size - 1 > env->idt.limit) {
        x86_raise_exception_err(env, EXCP0D_GPF, idt_error(ev));
    }
    *e1 = x86_ld_kernel(env, addr, 4);
    *e2 = x86_ld_kernel(env, addr + 4, 4);
    *e3 = long_mode ? x86_ld_kernel(env, addr + 8, 4) : 0;
    type = (*e2 >> DESC_TYPE_SHIFT) & 0x1f;     /* with S */
    if (type == 5 && !long_mode) {
        qemu_log_mask(LOG_UNIMP, "task gate in IDT entry %d is not "
                      "supported\n", ev->vector);
        x86_raise_exception_err(env, EXCP0D_GPF, idt_error(ev));
    }
    if (long_mode ? (type != 14 && type != 15)
                  : (type != 6 && type != 7 && type != 14 && type != 15)) {
        x86_raise_exception_err(env, EXCP0D_GPF, idt_error(ev));
    }
    if (ev->kind == EVENT_SOFTWARE && x86_desc_dpl(*e2) < x86_cpl(env)) {
        x86_raise_exception_err(env, EXCP0D_GPF, ev->vector * 8 + 2);
    }
    if (!(*e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, idt_error(ev));
    }
}

static void deliver_protected(CPUX86State *env, const Event *ev)
{
    uint32_t e1, e2, e3, c1, c2, s1 = 0, s2 = 0;
    uint32_t eflags = x86_get_eflags(env);
    bool vm86 = eflags & VM_MASK;
    bool gate32, inner;
    uint16_t selector, ss = 0;
    uint32_t offset, esp = 0;
    unsigned width;
    X86Stack st;
    int new_cpl;

    read_gate(env, ev, false, &e1, &e2, &e3);
    gate32 = e2 & (8u << DESC_TYPE_SHIFT);
    width = gate32 ? 4 : 2;
    selector = e1 >> 16;
    offset = (e1 & 0xffff) | (gate32 ? (e2 & 0xffff0000) : 0);
    new_cpl = check_gate_target(env, ev, selector, &c1, &c2);
    inner = new_cpl < x86_cpl(env);
    if (vm86 && new_cpl != 0) {
        x86_raise_exception_err(env, EXCP0D_GPF, sel_error(ev, selector));
    }
    if (offset > x86_desc_limit(c1, c2)) {
        x86_raise_exception_err(env, EXCP0D_GPF, ev->kind != EVENT_SOFTWARE);
    }
    if (inner) {
        uint64_t sp;

        if (!x86_tss_inner_stack(env, new_cpl, &ss, &sp)) {
            x86_raise_exception_err(env, EXCP0A_TSS,
                                    sel_error(ev, env->tr.selector));
        }
        esp = sp;
        check_inner_ss(env, ev, ss, new_cpl, &s1, &s2);
        st = (X86Stack) {
            .base = x86_desc_base(s1, s2),
            .mask = s2 & DESC_B_MASK ? 0xffffffffull : 0xffff,
            .sp = esp,
            .kernel = true,
        };
        if (vm86) {
            x86_stack_push(env, &st, env->segs[R_GS].selector, width);
            x86_stack_push(env, &st, env->segs[R_FS].selector, width);
            x86_stack_push(env, &st, env->segs[R_DS].selector, width);
            x86_stack_push(env, &st, env->segs[R_ES].selector, width);
        }
        x86_stack_push(env, &st, env->segs[R_SS].selector, width);
        x86_stack_push(env, &st, env->regs[R_ESP], width);
    } else {
        st = x86_stack_current(env);
        st.kernel = new_cpl < 3;
    }
    x86_stack_push(env, &st, eflags, width);
    x86_stack_push(env, &st, env->segs[R_CS].selector, width);
    x86_stack_push(env, &st, ev->return_rip, width);
    if (ev->has_error) {
        x86_stack_push(env, &st, ev->error_code, width);
    }

    /* Everything is checked and pushed: commit. */
    if (vm86) {
        for (int seg = R_ES; seg <= R_GS; seg++) {
            if (seg != R_CS && seg != R_SS) {
                x86_load_seg_cache(env, seg, 0, 0, 0, 0);
            }
        }
    }
    if (inner) {
        x86_set_desc_accessed(env, ss, s2);
        x86_load_seg_cache(env, R_SS, ss, x86_desc_base(s1, s2),
                           x86_desc_limit(s1, s2), x86_desc_flags(s2));
    }
    x86_set_rsp(env, st.mask, st.sp);
    x86_set_eflags(env, 0, TF_MASK | VM_MASK | RF_MASK | NT_MASK |
                   (e2 & (1u << DESC_TYPE_SHIFT) ? 0 : IF_MASK));
    x86_set_desc_accessed(env, selector, c2);
    x86_load_seg_cache(env, R_CS, (selector & 0xfffc) | new_cpl,
                       x86_desc_base(c1, c2), x86_desc_limit(c1, c2),
                       x86_desc_flags(c2));
    env->rip = offset;
}

static void deliver_long(CPUX86State *env, const Event *ev)
{
    uint32_t e1, e2, e3, c1, c2;
    uint32_t eflags = x86_get_eflags(env);
    uint16_t selector;
    uint64_t offset, rsp;
    unsigned ist;
    X86Stack st;
    bool inner;
    int new_cpl;

    read_gate(env, ev, true, &e1, &e2, &e3);
    selector = e1 >> 16;
    offset = (e1 & 0xffff) | (e2 & 0xffff0000) | ((uint64_t)e3 << 32);
    ist = e2 & 7;
    new_cpl = check_gate_target(env, ev, selector, &c1, &c2);
    if (!(c2 & DESC_L_MASK) || (c2 & DESC_B_MASK)) {
        x86_raise_exception_err(env, EXCP0D_GPF, sel_error(ev, selector));
    }
    inner = new_cpl < x86_cpl(env);
    if (ist || inner) {
        /* 64-bit TSS: RSPn at 4 + 8n, ISTn at 0x24 + 8(n - 1). */
        unsigned off = ist ? 0x24 + 8 * (ist - 1) : 4 + 8u * new_cpl;

        if (!(env->tr.flags & DESC_P_MASK) || off + 7 > env->tr.limit) {
            x86_raise_exception_err(env, EXCP0A_TSS,
                                    sel_error(ev, env->tr.selector));
        }
        rsp = x86_ld_kernel(env, env->tr.base + off, 8);
    } else {
        rsp = env->regs[R_ESP];
    }
    if (!x86_is_canonical(rsp)) {
        x86_raise_exception_err(env, EXCP0C_STACK, 0);
    }
    /* The frame is 16-byte aligned, whatever the privilege change. */
    st = (X86Stack) { .base = 0, .mask = ~0ull, .sp = rsp & ~0xfull,
                      .kernel = new_cpl < 3 };
    x86_stack_push(env, &st, env->segs[R_SS].selector, 8);
    x86_stack_push(env, &st, env->regs[R_ESP], 8);
    x86_stack_push(env, &st, eflags, 8);
    x86_stack_push(env, &st, env->segs[R_CS].selector, 8);
    x86_stack_push(env, &st, ev->return_rip, 8);
    if (ev->has_error) {
        x86_stack_push(env, &st, ev->error_code, 8);
    }

    if (inner) {
        /* SS becomes a null selector of the new level. */
        x86_load_seg_cache(env, R_SS, new_cpl, 0, 0,
                           (uint32_t)new_cpl << DESC_DPL_SHIFT);
    }
    env->regs[R_ESP] = st.sp;
    x86_set_eflags(env, 0, TF_MASK | VM_MASK | RF_MASK | NT_MASK |
                   (e2 & (1u << DESC_TYPE_SHIFT) ? 0 : IF_MASK));
    x86_set_desc_accessed(env, selector, c2);
    x86_load_seg_cache(env, R_CS, (selector & 0xfffc) | new_cpl,
                       x86_desc_base(c1, c2), x86_desc_limit(c1, c2),
                       x86_desc_flags(c2));
    env->rip = offset;
}

static void deliver_one(CPUX86State *env, const Event *ev)
{
    if (!(env->cr[0] & CR0_PE_MASK)) {
        deliver_real(env, ev);
    } else if (env->hflags & HF_LMA_MASK) {
        deliver_long(env, ev);
    } else {
        deliver_protected(env, ev);
    }
    env->hflags &= ~(HF_INHIBIT_IRQ_MASK | HF_HALTED_MASK);
    x86_update_hflags(env);
}

/* Exception classes for double faults (SDM vol. 3A table 6-5). */
static bool is_contributory(int vector)
{
    return vector == EXCP00_DIVZ || (vector >= EXCP0A_TSS &&
                                     vector <= EXCP0D_GPF);
}

static bool makes_double_fault(const Event *first, int second)
{
    if (first->kind != EVENT_EXCEPTION) {
        return false;               /* interrupts are benign */
    }
    if (first->vector == EXCP0E_PAGE) {
        return second == EXCP0E_PAGE || is_contributory(second);
    }
    return is_contributory(first->vector) && is_contributory(second);
}

/*
 * Deliver ev; a fault during delivery is delivered in its place (or as
 * #DF), and a fault while delivering #DF shuts the CPU down. Never
 * unwinds to the caller's jmp_env.
 */
static void deliver_event(CPUX86State *env, Event ev)
{
    volatile Event cur = ev;
    jmp_buf saved;

    memcpy(saved, env->jmp_env, sizeof(saved));
    for (;;) {
        Event now = cur;
        int second;

        qemu_log_mask(LOG_INT, "deliver vector 0x%x kind %d error 0x%x at "
                      "rip 0x%" G_GINT64_MODIFIER "x cpl %d\n", now.vector,
                      now.kind, now.has_error ? now.error_code : 0,
                      env->rip, x86_cpl(env));
        if (setjmp(env->jmp_env) == 0) {
            deliver_one(env, &now);
            break;
        }
        second = env->exception_index;
        if (now.vector == EXCP08_DBLE && now.kind == EVENT_EXCEPTION) {
            qemu_log_mask(LOG_INT | LOG_GUEST_ERROR, "triple fault at rip "
                          "0x%" G_GINT64_MODIFIER "x\n", env->rip);
            x86_cpu_stop(env, X86_CPU_EXIT_TRIPLE_FAULT);
            break;
        }
        if (makes_double_fault(&now, second)) {
            now = (Event) { .vector = EXCP08_DBLE, .kind = EVENT_EXCEPTION,
                            .has_error = true, .error_code = 0,
                            .return_rip = env->rip };
        } else {
            now = (Event) { .vector = second, .kind = EVENT_EXCEPTION,
                            .has_error = vector_has_error_code(second),
                            .error_code = env->error_code,
                            .return_rip = env->rip };
        }
        cur = now;
    }
    memcpy(env->jmp_env, saved, sizeof(saved));
    env->exception_index = -1;
}

void x86_do_exception(CPUX86State *env)
{
    int vector = env->exception_index;
    Event ev;

    if (vector < 0 || vector > 255) {
        /* EXCP_INTERNAL_ERROR: the vCPU is already stopped. */
        env->exception_index = -1;
        return;
    }
    if (env->exception_is_int) {
        ev = (Event) { .vector = vector, .kind = EVENT_SOFTWARE,
                       .return_rip = env->exception_next_rip };
    } else {
        ev = (Event) { .vector = vector, .kind = EVENT_EXCEPTION,
                       .has_error = vector_has_error_code(vector),
                       .error_code = env->error_code,
                       .return_rip = env->rip };
    }
    deliver_event(env, ev);
}

/* --- interrupts between blocks ----------------------------------------- */

static void deliver_external(CPUX86State *env, int vector)
{
    deliver_event(env, (Event) { .vector = vector, .kind = EVENT_EXTERNAL,
                                 .return_rip = env->rip });
}

/* Real mode at vector << 12, as after INIT otherwise (SDM 8.4.4.1). */
static void start_from_sipi(X86CPU *cpu, uint8_t vector)
{
    CPUX86State *env = &cpu->env;

    env->segs[R_CS].selector = vector << 8;
    env->segs[R_CS].base = (uint64_t)vector << 12;
    env->rip = 0;
    cpu->stopped = false;
    env->hflags &= ~HF_HALTED_MASK;
}

bool x86_handle_interrupts(CPUX86State *env)
{
    X86CPU *cpu = env->cpu;
    uint32_t req = __atomic_load_n(&env->interrupt_request,
                                   __ATOMIC_ACQUIRE);

    if (req & CPU_INTERRUPT_INIT) {
        /* The APIC reset itself when it accepted the INIT. */
        __atomic_fetch_and(&env->interrupt_request, ~CPU_INTERRUPT_INIT,
                           __ATOMIC_SEQ_CST);
        x86_cpu_init_state(cpu);
        /* The BSP runs from the reset vector; APs wait for a SIPI. */
        cpu->stopped = !(env->apic_base & MSR_IA32_APICBASE_BSP);
        return true;
    }
    if (req & CPU_INTERRUPT_SIPI) {
        __atomic_fetch_and(&env->interrupt_request, ~CPU_INTERRUPT_SIPI,
                           __ATOMIC_SEQ_CST);
        /* Only a CPU waiting for SIPI takes one; others ignore it. */
        if (cpu->stopped) {
            start_from_sipi(cpu, env->sipi_vector);
            return true;
        }
    }
    if (cpu->stopped) {
        return false;
    }
    if ((req & CPU_INTERRUPT_NMI) && !(env->hflags & HF_NMI_MASK)) {
        __atomic_fetch_and(&env->interrupt_request, ~CPU_INTERRUPT_NMI,
                           __ATOMIC_SEQ_CST);
        deliver_external(env, EXCP02_NMI);
        env->hflags |= HF_NMI_MASK;
        return true;
    }
    if ((req & CPU_INTERRUPT_HARD) && (env->eflags & IF_MASK) &&
        !(env->hflags & HF_INHIBIT_IRQ_MASK)) {
        bool taken = x86_bql_acquire();
        int vector = cpu->apic ? apic_get_interrupt(cpu->apic) : -1;

        if (vector < 0 && cpu->apic && !apic_has_interrupt(cpu->apic)) {
            /* It went away (spurious): the APIC keeps the line low. */
            __atomic_fetch_and(&env->interrupt_request, ~CPU_INTERRUPT_HARD,
                               __ATOMIC_SEQ_CST);
        }
        x86_bql_release(taken);
        if (vector >= 0) {
            deliver_external(env, vector);
            return true;
        }
    }
    return false;
}

/* --- iret -------------------------------------------------------------- */

/* EFLAGS bits iret may change at the current privilege (SDM "IRET"). */
static uint32_t iret_flags_mask(CPUX86State *env, unsigned opsize)
{
    uint32_t mask = CC_MASK | TF_MASK | DF_MASK | NT_MASK | RF_MASK |
                    AC_MASK | ID_MASK;
    int cpl = x86_cpl(env);
    int iopl = (env->eflags & IOPL_MASK) >> IOPL_SHIFT;

    if (cpl <= iopl) {
        mask |= IF_MASK;
    }
    if (cpl == 0) {
        mask |= IOPL_MASK | VIF_MASK | VIP_MASK;
    }
    if (opsize == 2) {
        mask &= 0xffff;
    }
    return mask;
}

static bool iret_real(CPUX86State *env, unsigned opsize)
{
    X86Stack st = x86_stack_current(env);
    uint32_t mask = CC_MASK | TF_MASK | IF_MASK | DF_MASK | NT_MASK |
                    RF_MASK | AC_MASK | ID_MASK;
    uint64_t rip = x86_stack_pop(env, &st, opsize);
    uint16_t cs = x86_stack_pop(env, &st, opsize);
    uint32_t flags = x86_stack_pop(env, &st, opsize);

    if (env->eflags & VM_MASK) {
        /* Virtual-8086 mode without VME: only with IOPL 3. */
        if (((env->eflags & IOPL_MASK) >> IOPL_SHIFT) != 3) {
            x86_raise_exception_err(env, EXCP0D_GPF, 0);
        }
    } else {
        mask |= IOPL_MASK;
    }
    if (opsize == 2) {
        mask &= 0xffff;
    }
    x86_set_rsp(env, st.mask, st.sp);
    x86_load_seg_real(env, R_CS, cs);
    env->rip = rip;
    x86_set_eflags(env, flags, mask);
    env->hflags &= ~HF_NMI_MASK;
    x86_update_hflags(env);
    return true;
}

/* iret from CPL 0 to virtual-8086 mode (EFLAGS.VM in the image). */
static bool iret_to_vm86(CPUX86State *env, X86Stack *st, uint64_t rip,
                         uint16_t cs, uint32_t flags)
{
    uint32_t esp = x86_stack_pop(env, st, 4);
    uint16_t ss = x86_stack_pop(env, st, 4);
    uint16_t es = x86_stack_pop(env, st, 4);
    uint16_t ds = x86_stack_pop(env, st, 4);
    uint16_t fs = x86_stack_pop(env, st, 4);
    uint16_t gs = x86_stack_pop(env, st, 4);

    x86_set_eflags(env, flags, CC_MASK | TF_MASK | IF_MASK | DF_MASK |
                   IOPL_MASK | NT_MASK | RF_MASK | VM_MASK | AC_MASK |
                   VIF_MASK | VIP_MASK | ID_MASK);
    x86_load_seg_real(env, R_CS, cs);
    x86_load_seg_real(env, R_SS, ss);
    x86_load_seg_real(env, R_ES, es);
    x86_load_seg_real(env, R_DS, ds);
    x86_load_seg_real(env, R_FS, fs);
    x86_load_seg_real(env, R_GS, gs);
    env->regs[R_ESP] = esp;
    env->rip = rip & 0xffff;
    env->hflags &= ~HF_NMI_MASK;
    x86_update_hflags(env);
    return true;
}

static bool iret_protected(CPUX86State *env, unsigned opsize)
{
    bool long_mode = env->hflags & HF_LMA_MASK;
    X86Stack st = x86_stack_current(env);
    int cpl = x86_cpl(env), rpl;
    uint32_t e1, e2, s1 = 0, s2 = 0, flags, mask;
    uint64_t rip, rsp = 0;
    uint16_t cs, ss = 0;
    bool outer, to64, pop_ss;

    if (env->eflags & NT_MASK) {
        if (long_mode) {
            x86_raise_exception_err(env, EXCP0D_GPF, 0);
        }
        qemu_log_mask(LOG_UNIMP, "iret with EFLAGS.NT (task return) is not "
                      "supported\n");
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
    rip = x86_stack_pop(env, &st, opsize);
    cs = x86_stack_pop(env, &st, opsize);
    flags = x86_stack_pop(env, &st, opsize);
    if (opsize == 4 && (flags & VM_MASK) && cpl == 0 && !long_mode) {
        return iret_to_vm86(env, &st, rip, cs, flags);
    }
    rpl = cs & 3;
    if (!(cs & 0xfffc)) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
    if (!x86_load_desc(env, cs, &e1, &e2) ||
        (e2 & (DESC_S_MASK | DESC_CS_MASK)) != (DESC_S_MASK | DESC_CS_MASK) ||
        rpl < cpl ||
        ((e2 & DESC_C_MASK) ? x86_desc_dpl(e2) > rpl
                            : x86_desc_dpl(e2) != rpl)) {
        x86_raise_exception_err(env, EXCP0D_GPF, cs & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, cs & 0xfffc);
    }
    to64 = long_mode && (e2 & DESC_L_MASK);
    if (to64 && (e2 & DESC_B_MASK)) {
        x86_raise_exception_err(env, EXCP0D_GPF, cs & 0xfffc);
    }
    /* 64-bit mode always pops SS:RSP; elsewhere only to an outer level. */
    outer = rpl > cpl;
    pop_ss = outer || (env->hflags & HF_CS64_MASK);
    if (pop_ss) {
        rsp = x86_stack_pop(env, &st, opsize);
        ss = x86_stack_pop(env, &st, opsize);
        if (!(ss & 0xfffc)) {
            /* A null SS is fine for 64-bit code below CPL 3. */
            if (!to64 || rpl == 3) {
                x86_raise_exception_err(env, EXCP0D_GPF, 0);
            }
        } else if ((ss & 3) != rpl || !x86_load_desc(env, ss, &s1, &s2) ||
                   (s2 & (DESC_S_MASK | DESC_CS_MASK | DESC_W_MASK)) !=
                   (DESC_S_MASK | DESC_W_MASK) ||
                   x86_desc_dpl(s2) != rpl) {
            x86_raise_exception_err(env, EXCP0D_GPF, ss & 0xfffc);
        } else if (!(s2 & DESC_P_MASK)) {
            x86_raise_exception_err(env, EXCP0C_STACK, ss & 0xfffc);
        }
    }
    if (!to64 && rip > x86_desc_limit(e1, e2)) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
    if (to64 && !x86_is_canonical(rip)) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }

    /* Checked: commit. The flags mask is the old CPL's (SDM "IRET"). */
    mask = iret_flags_mask(env, opsize);
    x86_set_desc_accessed(env, cs, e2);
    x86_load_seg_cache(env, R_CS, cs, x86_desc_base(e1, e2),
                       x86_desc_limit(e1, e2), x86_desc_flags(e2));
    if (pop_ss) {
        if (ss & 0xfffc) {
            x86_set_desc_accessed(env, ss, s2);
            x86_load_seg_cache(env, R_SS, ss, x86_desc_base(s1, s2),
                               x86_desc_limit(s1, s2), x86_desc_flags(s2));
        } else {
            x86_load_seg_cache(env, R_SS, ss, 0, 0,
                               (uint32_t)rpl << DESC_DPL_SHIFT);
        }
        if (to64 || (env->segs[R_SS].flags & DESC_B_MASK)) {
            env->regs[R_ESP] = rsp;
        } else {
            x86_set_rsp(env, 0xffff, rsp);
        }
    } else {
        x86_set_rsp(env, st.mask, st.sp);
    }
    env->rip = to64 ? rip : (opsize == 2 ? rip & 0xffff : (uint32_t)rip);
    x86_set_eflags(env, flags, mask);
    if (outer) {
        x86_drop_inaccessible_segs(env, rpl);
    }
    env->hflags &= ~HF_NMI_MASK;
    x86_update_hflags(env);
    return true;
}

bool helper_iret(CPUX86State *env, unsigned opsize)
{
    if (!(env->cr[0] & CR0_PE_MASK) || (env->eflags & VM_MASK)) {
        return iret_real(env, opsize);
    }
    return iret_protected(env, opsize);
}
