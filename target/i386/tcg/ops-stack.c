/*
 * The stack: push/pop of registers, immediates, memory and segment
 * registers, pusha/popa, pushf/popf, enter/leave. Every instruction
 * writes or reads all of its stack slots before it moves the stack
 * pointer, so a fault leaves the registers as they were.
 */
#include "target/i386/tcg/ops-tables.h"

/*
 * 64-bit code pushes and pops quadwords on a flat stack (with fast
 * paths: X86_DEF_MEM, ops.h).
 */
X86_DEF_MEM_NR(push_r_64, OT_Q, MEM_W, env->regs[R_ESP] - 8,
    MEM_ST(OT_Q, env->regs[in->rm]);
    env->regs[R_ESP] = a_;
    return X86_NEXT_REG;)

X86_DEF_MEM_NR(pop_r_64, OT_Q, MEM_R, env->regs[R_ESP],
    uint64_t v = MEM_LD(OT_Q);

    env->regs[R_ESP] += 8;
    env->regs[in->rm] = v;
    return X86_NEXT_REG;)

/* Flat 32-bit stack (SS.B, no base), 32-bit operand. */
static uintptr_t push_r_32(CPUX86State *env, const Insn *in)
{
    uint32_t sp = env->regs[R_ESP] - 4;

    x86_stl(env, sp, env->regs[in->rm]);
    env->regs[R_ESP] = sp;
    return x86_next(env, in);
}

static uintptr_t pop_r_32(CPUX86State *env, const Insn *in)
{
    uint32_t v = x86_ldl(env, (uint32_t)env->regs[R_ESP]);

    env->regs[R_ESP] = (uint32_t)(env->regs[R_ESP] + 4);
    env->regs[in->rm] = v;
    return x86_next(env, in);
}

/* Any stack form; aux2 is the operand size. */
static uintptr_t push_r(CPUX86State *env, const Insn *in)
{
    stk_push(env, in->stk, in->aux2, reg_read(env, in->aux2, in->rm));
    return x86_next(env, in);
}

static uintptr_t pop_r(CPUX86State *env, const Insn *in)
{
    uint64_t v = stk_peek(env, in->stk, in->aux2, 0);

    stk_adjust(env, in->stk, 1 << in->aux2);
    reg_write(env, in->aux2, in->rm, v);
    return x86_next(env, in);
}

static uintptr_t push_i(CPUX86State *env, const Insn *in)
{
    stk_push(env, in->stk, in->aux2, in->imm);
    return x86_next(env, in);
}

static uintptr_t push_m(CPUX86State *env, const Insn *in)
{
    stk_push(env, in->stk, in->aux2,
             mem_read(env, in->aux2, x86_ea(env, in)));
    return x86_next(env, in);
}

/* pop Ev: the address is computed with the stack pointer already up. */
static uintptr_t pop_m(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t v = stk_peek(env, in->stk, ot, 0);
    uint64_t old = env->regs[R_ESP], ea;

    stk_adjust(env, in->stk, 1 << ot);
    ea = x86_ea(env, in);
    env->regs[R_ESP] = old;
    mem_write(env, ot, ea, v);
    stk_adjust(env, in->stk, 1 << ot);
    return x86_next(env, in);
}

const X86Handler x86_push_fn[PUSH_NUM] = {
    [PUSH_R64] = { X86_H_NR(push_r_64) }, [PUSH_R32] = { X86_H(push_r_32) },
    [PUSH_R] = { X86_H(push_r) }, [PUSH_I] = { X86_H(push_i) },
    [PUSH_M] = { X86_H(push_m) },
};
const X86Handler x86_pop_fn[PUSH_NUM] = {
    [PUSH_R64] = { X86_H_NR(pop_r_64) }, [PUSH_R32] = { X86_H(pop_r_32) },
    [PUSH_R] = { X86_H(pop_r) }, [PUSH_M] = { X86_H(pop_m) },
};

/* pusha/popa: 16- and 32-bit code only. */
static uintptr_t op_pusha(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned sz = 1u << ot;
    uint64_t sp = env->regs[R_ESP];

    for (int r = R_EAX; r <= R_EDI; r++) {
        mem_write(env, ot, stk_addr(env, in->stk, sp - (r + 1) * sz),
                  reg_read(env, ot, r));
    }
    stk_set_sp(env, in->stk, sp - 8 * sz);
    return x86_next(env, in);
}

static uintptr_t op_popa(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned sz = 1u << ot;
    uint64_t v[8];

    for (int r = R_EAX; r <= R_EDI; r++) {
        v[r] = stk_peek(env, in->stk, ot, (7 - r) * sz);
    }
    for (int r = R_EAX; r <= R_EDI; r++) {
        if (r != R_ESP) {
            reg_write(env, ot, r, v[r]);
        }
    }
    stk_adjust(env, in->stk, 8 * sz);
    return x86_next(env, in);
}

/* pushf: VM and RF read as 0 in the image; vm86 needs IOPL 3. */
static uintptr_t op_pushf(CPUX86State *env, const Insn *in)
{
    if (env->hflags & HF_VM_MASK) {
        helper_check_iopl(env);
    }
    stk_push(env, in->stk, in->aux2,
             x86_get_eflags(env) & ~(VM_MASK | RF_MASK));
    return x86_next(env, in);
}

/*
 * popf: which bits change depends on CPL and IOPL (SDM vol. 2B, POPF):
 * IOPL only at CPL 0, IF when CPL <= IOPL; VM, VIF, VIP never. The
 * block ends so a newly enabled interrupt is taken.
 */
static uintptr_t op_popf(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned cpl = env->hflags & HF_CPL_MASK;
    unsigned iopl = (env->eflags & IOPL_MASK) >> IOPL_SHIFT;
    uint32_t mask = CC_MASK | TF_MASK | DF_MASK | NT_MASK | AC_MASK |
                    ID_MASK;
    uint64_t v;

    if (env->hflags & HF_VM_MASK) {
        helper_check_iopl(env);
        mask |= IF_MASK;
    } else if (cpl == 0) {
        mask |= IF_MASK | IOPL_MASK;
    } else if (cpl <= iopl) {
        mask |= IF_MASK;
    }
    if (ot == OT_W) {
        mask &= 0xffff;
    }
    v = stk_peek(env, in->stk, ot, 0);
    stk_adjust(env, in->stk, 1 << ot);
    x86_set_eflags(env, v, mask);
    env->eflags &= ~RF_MASK;
    return x86_next_or_stop(env, in, true);
}

/*
 * enter imm16, imm8: push rBP, copy level - 1 frame pointers from the
 * old frame, push the new frame pointer, then allocate imm16 bytes.
 */
static uintptr_t op_enter(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned sz = 1u << ot, level = in->imm & 31;
    uint64_t sp = env->regs[R_ESP], bp = env->regs[R_EBP], frame;

    sp -= sz;
    mem_write(env, ot, stk_addr(env, in->stk, sp), reg_read(env, ot, R_EBP));
    frame = sp;
    if (level) {
        for (unsigned i = 1; i < level; i++) {
            uint64_t v;

            bp -= sz;
            v = mem_read(env, ot, stk_addr(env, in->stk, bp));
            sp -= sz;
            mem_write(env, ot, stk_addr(env, in->stk, sp), v);
        }
        sp -= sz;
        mem_write(env, ot, stk_addr(env, in->stk, sp), frame);
    }
    sp -= in->imm2;
    reg_write(env, ot, R_EBP, frame & stk_mask(in->stk));
    stk_set_sp(env, in->stk, sp);
    return x86_next(env, in);
}

static uintptr_t op_leave(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t bp = env->regs[R_EBP] & stk_mask(in->stk);
    uint64_t v = mem_read(env, ot, stk_addr(env, in->stk, bp));

    stk_set_sp(env, in->stk, bp + (1u << ot));
    reg_write(env, ot, R_EBP, v);
    return x86_next(env, in);
}

/*
 * push sreg writes the selector into the low word of the slot (what
 * current processors do for 32- and 64-bit pushes).
 */
static uintptr_t push_sreg(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t sp = env->regs[R_ESP] - (1u << ot);

    x86_stw(env, stk_addr(env, in->stk, sp), env->segs[in->aux].selector);
    stk_set_sp(env, in->stk, sp);
    return x86_next(env, in);
}

/* pop sreg; pop ss also holds interrupts off for one instruction. */
static uintptr_t pop_sreg(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint16_t sel = x86_lduw(env, stk_addr(env, in->stk, env->regs[R_ESP]));
    bool stop = helper_load_seg(env, in->aux, sel);

    stk_adjust(env, in->stk, 1 << ot);
    if (in->aux == R_SS) {
        helper_set_inhibit_irq(env);
        stop = true;
    }
    return x86_next_or_stop(env, in, stop);
}

const X86Handler x86_stack_fn[STK_OP_NUM] = {
    [STK_OP_PUSHA] = { X86_H(op_pusha) }, [STK_OP_POPA] = { X86_H(op_popa) },
    [STK_OP_PUSHF] = { X86_H(op_pushf) }, [STK_OP_POPF] = { X86_H(op_popf) },
    [STK_OP_ENTER] = { X86_H(op_enter) },
    [STK_OP_LEAVE] = { X86_H(op_leave) },
    [STK_OP_PUSH_SREG] = { X86_H(push_sreg) },
    [STK_OP_POP_SREG] = { X86_H(pop_sreg) },
};
