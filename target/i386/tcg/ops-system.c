/*
 * System and I/O instructions. The privilege and mode rules live in the
 * helpers (target/i386/tcg/helper.h); these handlers move operands between
 * registers, memory and the helpers, and end the block where a helper
 * may have changed the mode, paging or the code segment.
 */
#include "target/i386/tcg/tb.h"
#include "target/i386/tcg/ops-tables.h"
#include "target/i386/tcg/helper.h"

/* in al/ax/eax, imm8|dx (aux: 1 for dx; aux2: operand size). */
static uintptr_t op_in(CPUX86State *env, const Insn *in)
{
    uint16_t port = in->aux ? (uint16_t)env->regs[R_EDX] : in->imm;
    int ot = in->aux2;

    reg_write(env, ot, R_EAX, helper_in(env, port, 1u << ot));
    return x86_next(env, in);
}

static uintptr_t op_out(CPUX86State *env, const Insn *in)
{
    uint16_t port = in->aux ? (uint16_t)env->regs[R_EDX] : in->imm;
    int ot = in->aux2;

    helper_out(env, port, reg_read(env, ot, R_EAX), 1u << ot);
    return x86_next(env, in);
}

static uintptr_t op_hlt(CPUX86State *env, const Insn *in)
{
    helper_hlt(env, env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_cli(CPUX86State *env, const Insn *in)
{
    helper_check_iopl(env);
    env->eflags &= ~IF_MASK;
    return x86_next(env, in);
}

/* sti opens interrupts after the next instruction. */
static uintptr_t op_sti(CPUX86State *env, const Insn *in)
{
    helper_check_iopl(env);
    if (!(env->eflags & IF_MASK)) {
        env->eflags |= IF_MASK;
        helper_set_inhibit_irq(env);
    }
    return x86_next_or_stop(env, in, true);
}

static uintptr_t op_cpuid(CPUX86State *env, const Insn *in)
{
    helper_cpuid(env);
    return x86_next(env, in);
}

static uintptr_t op_rdtsc(CPUX86State *env, const Insn *in)
{
    helper_rdtsc(env);
    return x86_next(env, in);
}

static uintptr_t op_rdtscp(CPUX86State *env, const Insn *in)
{
    helper_rdtscp(env);
    return x86_next(env, in);
}

static uintptr_t op_rdpmc(CPUX86State *env, const Insn *in)
{
    helper_rdpmc(env);
    return x86_next(env, in);
}

static uintptr_t op_rdmsr(CPUX86State *env, const Insn *in)
{
    helper_rdmsr(env);
    return x86_next(env, in);
}

static uintptr_t op_wrmsr(CPUX86State *env, const Insn *in)
{
    return x86_next_or_stop(env, in, helper_wrmsr(env));
}

/* mov reg, crN / crN, reg (aux: N; aux2: operand size). */
static uintptr_t op_mov_from_cr(CPUX86State *env, const Insn *in)
{
    reg_write(env, in->aux2, in->rm, helper_read_crN(env, in->aux));
    return x86_next(env, in);
}

/* Always ends the block: CR8 may unmask a pending interrupt. */
static uintptr_t op_mov_to_cr(CPUX86State *env, const Insn *in)
{
    helper_write_crN(env, in->aux, reg_read(env, in->aux2, in->rm));
    return x86_next_or_stop(env, in, true);
}

static uintptr_t op_mov_from_dr(CPUX86State *env, const Insn *in)
{
    reg_write(env, in->aux2, in->rm, helper_read_drN(env, in->aux));
    return x86_next(env, in);
}

static uintptr_t op_mov_to_dr(CPUX86State *env, const Insn *in)
{
    helper_write_drN(env, in->aux, reg_read(env, in->aux2, in->rm));
    return x86_next(env, in);
}

/* lgdt/lidt m16&base (aux: 1 for idt; aux2: operand size). */
static uintptr_t op_lgdt(CPUX86State *env, const Insn *in)
{
    uint64_t a, base;
    uint16_t limit;

    helper_check_cpl0(env);
    a = x86_ea(env, in);
    limit = x86_lduw(env, a);
    if (in->aux2 == OT_Q) {
        base = x86_ldq(env, a + 2);
    } else {
        base = x86_ldl(env, (in->eaf & EA_LIN32) ? (uint32_t)(a + 2)
                                                 : a + 2);
        if (in->aux2 == OT_W) {
            base &= 0xffffff;
        }
    }
    helper_lgdt_lidt(env, in->aux, base, limit);
    return x86_next(env, in);
}

static uintptr_t op_sgdt(CPUX86State *env, const Insn *in)
{
    const DescTable *t = in->aux ? &env->idt : &env->gdt;
    uint64_t a = x86_ea(env, in);

    x86_stw(env, a, t->limit);
    if (in->aux2 == OT_Q) {
        x86_stq(env, a + 2, t->base);
    } else {
        x86_stl(env, (in->eaf & EA_LIN32) ? (uint32_t)(a + 2) : a + 2,
                t->base);
    }
    return x86_next(env, in);
}

/* The selector-sized operand of group 6/7: register or memory. */
static uint16_t ew_read(CPUX86State *env, const Insn *in)
{
    if (in->eaf & EA_MEM) {
        return x86_lduw(env, x86_ea(env, in));
    }
    return env->regs[in->rm];
}

/* Register destinations take the operand size, memory 16 bits. */
static void ew_write(CPUX86State *env, const Insn *in, uint64_t v)
{
    if (in->eaf & EA_MEM) {
        x86_stw(env, x86_ea(env, in), v);
    } else {
        reg_write(env, in->aux2, in->rm, v);
    }
}

static void check_protected(CPUX86State *env)
{
    if (!(env->hflags & HF_PE_MASK) || (env->hflags & HF_VM_MASK)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
}

/* group 6 (aux: modrm.reg): sldt, str, lldt, ltr, verr, verw. */
static uintptr_t op_grp6(CPUX86State *env, const Insn *in)
{
    bool ok;

    check_protected(env);
    switch (in->aux) {
    case 0:
        ew_write(env, in, env->ldt.selector);
        break;
    case 1:
        ew_write(env, in, env->tr.selector);
        break;
    case 2:
        helper_lldt(env, ew_read(env, in));
        break;
    case 3:
        helper_ltr(env, ew_read(env, in));
        break;
    default:
        ok = helper_verr_verw(env, ew_read(env, in), in->aux == 5);
        x86_set_eflags(env, ok ? CC_Z : 0, CC_Z);
        break;
    }
    return x86_next(env, in);
}

/* lar/lsl Gv, Ew (aux: 1 for lsl). */
static uintptr_t op_lar_lsl(CPUX86State *env, const Insn *in)
{
    uint16_t sel;
    uint32_t v;
    bool ok;

    check_protected(env);
    sel = ew_read(env, in);
    v = in->aux ? helper_lsl(env, sel, &ok) : helper_lar(env, sel, &ok);
    if (ok) {
        reg_write(env, in->aux2, in->reg, v);
    }
    x86_set_eflags(env, ok ? CC_Z : 0, CC_Z);
    return x86_next(env, in);
}

static uintptr_t op_smsw(CPUX86State *env, const Insn *in)
{
    ew_write(env, in, env->cr[0]);
    return x86_next(env, in);
}

static uintptr_t op_lmsw(CPUX86State *env, const Insn *in)
{
    return x86_next_or_stop(env, in, helper_lmsw(env, ew_read(env, in)));
}

static uintptr_t op_clts(CPUX86State *env, const Insn *in)
{
    return x86_next_or_stop(env, in, helper_clts(env));
}

/* invlpg ends the block: the next one is looked up under the new map. */
static uintptr_t op_invlpg(CPUX86State *env, const Insn *in)
{
    helper_invlpg(env, x86_ea(env, in));
    return x86_next_or_stop(env, in, true);
}

static uintptr_t op_swapgs(CPUX86State *env, const Insn *in)
{
    helper_swapgs(env);
    return x86_next(env, in);
}

static uintptr_t op_syscall(CPUX86State *env, const Insn *in)
{
    helper_syscall(env, env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_sysret(CPUX86State *env, const Insn *in)
{
    helper_sysret(env, 1u << in->aux2);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_sysenter(CPUX86State *env, const Insn *in)
{
    helper_sysenter(env);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_sysexit(CPUX86State *env, const Insn *in)
{
    helper_sysexit(env, 1u << in->aux2);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_wbinvd(CPUX86State *env, const Insn *in)
{
    helper_wbinvd(env);
    return x86_next(env, in);
}

static uintptr_t op_xgetbv(CPUX86State *env, const Insn *in)
{
    helper_xgetbv(env);
    return x86_next(env, in);
}

static uintptr_t op_xsetbv(CPUX86State *env, const Insn *in)
{
    helper_xsetbv(env);
    return x86_next(env, in);
}

/*
 * With other vCPUs to run, pause leaves the block at once, as QEMU's
 * does: a spin loop that releases a lock and pauses before taking it
 * again (SeaBIOS's SMP start-up) must let the others in between, not
 * run on to the retake within the same turn.
 */
static uintptr_t op_pause(CPUX86State *env, const Insn *in)
{
    helper_pause(env);
    return x86_next_or_stop(env, in, env->cpu->pause_yields);
}

/* mov Sreg, Ew (aux: segment); mov ss holds interrupts off once. */
static uintptr_t op_mov_to_sreg(CPUX86State *env, const Insn *in)
{
    bool stop = helper_load_seg(env, in->aux, ew_read(env, in));

    if (in->aux == R_SS) {
        helper_set_inhibit_irq(env);
        stop = true;
    }
    return x86_next_or_stop(env, in, stop);
}

static uintptr_t op_mov_from_sreg(CPUX86State *env, const Insn *in)
{
    ew_write(env, in, env->segs[in->aux].selector);
    return x86_next(env, in);
}

/* lds/les/lss/lfs/lgs Gv, Mp (aux: segment; aux2: operand size). */
static uintptr_t op_lxs(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t a = x86_ea(env, in), off;
    uint16_t sel;
    bool stop;

    off = mem_read(env, ot, a);
    a += 1u << ot;
    sel = x86_lduw(env, (in->eaf & EA_LIN32) ? (uint32_t)a : a);
    stop = helper_load_seg(env, in->aux, sel);
    reg_write(env, ot, in->reg, off);
    return x86_next_or_stop(env, in, stop);
}

/* bound Gv, Ma: #BR when the signed index is outside [lower, upper]. */
static uintptr_t op_bound(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t a = x86_ea(env, in);
    int64_t lo = ot_sext(ot, mem_read(env, ot, a));
    int64_t hi = ot_sext(ot, mem_read(env, ot, (uint32_t)(a + (1u << ot))));
    int64_t i = ot_sext(ot, reg_read(env, ot, in->reg));

    if (i < lo || i > hi) {
        x86_raise_exception(env, EXCP05_BOUND);
    }
    return x86_next(env, in);
}

/* arpl Ew, Gw: raise the destination selector's RPL to the source's. */
static uintptr_t op_arpl(CPUX86State *env, const Insn *in)
{
    uint16_t dst, src = env->regs[in->reg];
    bool raise;

    check_protected(env);
    dst = ew_read(env, in);
    raise = (dst & 3) < (src & 3);
    if (raise) {
        ew_write(env, in, (dst & ~3) | (src & 3));
    }
    x86_set_eflags(env, raise ? CC_Z : 0, CC_Z);
    return x86_next(env, in);
}

/* clflush and the prefetches: an address is computed, nothing else. */
static uintptr_t op_clflush(CPUX86State *env, const Insn *in)
{
    (void)x86_ea(env, in);
    return x86_next(env, in);
}

const X86Handler x86_sys_fn[SYS_NUM] = {
    [SYS_IN] = { X86_H(op_in) }, [SYS_OUT] = { X86_H(op_out) },
    [SYS_HLT] = { X86_H(op_hlt) }, [SYS_CLI] = { X86_H(op_cli) },
    [SYS_STI] = { X86_H(op_sti) }, [SYS_CPUID] = { X86_H(op_cpuid) },
    [SYS_RDTSC] = { X86_H(op_rdtsc) }, [SYS_RDTSCP] = { X86_H(op_rdtscp) },
    [SYS_RDPMC] = { X86_H(op_rdpmc) }, [SYS_RDMSR] = { X86_H(op_rdmsr) },
    [SYS_WRMSR] = { X86_H(op_wrmsr) },
    [SYS_MOV_FROM_CR] = { X86_H(op_mov_from_cr) },
    [SYS_MOV_TO_CR] = { X86_H(op_mov_to_cr) },
    [SYS_MOV_FROM_DR] = { X86_H(op_mov_from_dr) },
    [SYS_MOV_TO_DR] = { X86_H(op_mov_to_dr) },
    [SYS_LGDT] = { X86_H(op_lgdt) }, [SYS_SGDT] = { X86_H(op_sgdt) },
    [SYS_GRP6] = { X86_H(op_grp6) }, [SYS_LAR_LSL] = { X86_H(op_lar_lsl) },
    [SYS_SMSW] = { X86_H(op_smsw) }, [SYS_LMSW] = { X86_H(op_lmsw) },
    [SYS_CLTS] = { X86_H(op_clts) }, [SYS_INVLPG] = { X86_H(op_invlpg) },
    [SYS_SWAPGS] = { X86_H(op_swapgs) },
    [SYS_SYSCALL] = { X86_H(op_syscall) },
    [SYS_SYSRET] = { X86_H(op_sysret) },
    [SYS_SYSENTER] = { X86_H(op_sysenter) },
    [SYS_SYSEXIT] = { X86_H(op_sysexit) },
    [SYS_WBINVD] = { X86_H(op_wbinvd) }, [SYS_PAUSE] = { X86_H(op_pause) },
    [SYS_MOV_TO_SREG] = { X86_H(op_mov_to_sreg) },
    [SYS_MOV_FROM_SREG] = { X86_H(op_mov_from_sreg) },
    [SYS_LXS] = { X86_H(op_lxs) }, [SYS_CLFLUSH] = { X86_H(op_clflush) },
    [SYS_BOUND] = { X86_H(op_bound) }, [SYS_ARPL] = { X86_H(op_arpl) },
    [SYS_XGETBV] = { X86_H(op_xgetbv) }, [SYS_XSETBV] = { X86_H(op_xsetbv) },
};

/* Shared small handlers. */
uintptr_t op_ud(CPUX86State *env, const Insn *in)
{
    x86_raise_exception(env, EXCP06_ILLOP);
}

uintptr_t op_gp0(CPUX86State *env, const Insn *in)
{
    x86_raise_exception_err(env, EXCP0D_GPF, 0);
}

uintptr_t op_nop(CPUX86State *env, const Insn *in)
{
    return x86_next(env, in);
}

/* Also what cmp and test become where their flags are dead. */
const X86Handler x86_nop = { X86_H(op_nop), .flags = FL_NEUTRAL };

/* The end of a block that runs on into the next instruction. */
uintptr_t op_block_end(CPUX86State *env, const Insn *in)
{
    return tb_chain_jump(env, in, X86_END);
}

uintptr_t op_killed(CPUX86State *env, const Insn *in)
{
    return X86_EXIT(in, X86_KILLED);
}
