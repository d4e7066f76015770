/*
 * Control transfers: jmp/jcc/call/ret near (direct and indirect),
 * loop/loope/loopne/jcxz, the far forms and iret through the system
 * helpers, and the software interrupts int n/int3/int1/into. Direct
 * targets are computed by the decoder (Insn.imm), already wrapped to the
 * operand size. A jcc that is not taken goes on inside its block.
 */
#include "target/i386/tcg/tb.h"
#include "target/i386/tcg/ops-tables.h"
#include "target/i386/tcg/helper.h"

/* Near targets in 64-bit code must be canonical (#GP at the branch). */
static inline uint64_t near_target(CPUX86State *env, const Insn *in,
                                   uint64_t v)
{
    switch (in->aux2) {
    case OT_W:
        return (uint16_t)v;
    case OT_L:
        return (uint32_t)v;
    default:
        if ((uint64_t)((int64_t)(v << 16) >> 16) != v) {
            x86_raise_exception_err(env, EXCP0D_GPF, 0);
        }
        return v;
    }
}

static uintptr_t jmp_rel(CPUX86State *env, const Insn *in)
{
    env->rip = in->imm;
    return tb_chain_jump(env, in, X86_JUMP);
}

/* Not taken, the _nr version leaves rip alone (decode-rip.c). */
#define DEF_JCC(c)                                                        \
X86_DEF_REG(jcc_##c,                                                      \
    if (x86_cond(env, c)) {                                               \
        env->rip = in->imm;                                               \
        return tb_chain_jump(env, in, X86_JUMP);                          \
    }                                                                     \
    return X86_NEXT_REG;)
DEF_JCC(0)
DEF_JCC(1)
DEF_JCC(2)
DEF_JCC(3)
DEF_JCC(4)
DEF_JCC(5)
DEF_JCC(6)
DEF_JCC(7)
DEF_JCC(8)
DEF_JCC(9)
DEF_JCC(10)
DEF_JCC(11)
DEF_JCC(12)
DEF_JCC(13)
DEF_JCC(14)
DEF_JCC(15)

#define JCC(c)  { X86_H_NR(jcc_##c) }

const X86Handler x86_jcc_fn[16] = {
    JCC(0), JCC(1), JCC(2), JCC(3), JCC(4), JCC(5), JCC(6), JCC(7),
    JCC(8), JCC(9), JCC(10), JCC(11), JCC(12), JCC(13), JCC(14), JCC(15),
};

static uintptr_t jmp_r(CPUX86State *env, const Insn *in)
{
    env->rip = near_target(env, in, env->regs[in->rm]);
    return tb_chain_indirect(env, in);
}

static uintptr_t jmp_m(CPUX86State *env, const Insn *in)
{
    env->rip = near_target(env, in,
                           mem_read(env, in->aux2, x86_ea(env, in)));
    return tb_chain_indirect(env, in);
}

/* 64-bit code: the common call and ret, without the generic stack. */
static uintptr_t call_rel_64(CPUX86State *env, const Insn *in)
{
    uint64_t sp = env->regs[R_ESP] - 8;

    x86_stq(env, sp, env->rip + in->len);
    env->regs[R_ESP] = sp;
    env->rip = in->imm;
    return tb_chain_jump(env, in, X86_JUMP);
}

static uintptr_t ret_64(CPUX86State *env, const Insn *in)
{
    uint64_t v = x86_ldq(env, env->regs[R_ESP]);

    if ((uint64_t)((int64_t)(v << 16) >> 16) != v) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
    env->regs[R_ESP] += 8 + in->imm2;
    env->rip = v;
    return tb_chain_indirect(env, in);
}

static uintptr_t call_rel(CPUX86State *env, const Insn *in)
{
    stk_push(env, in->stk, in->aux2, env->rip + in->len);
    env->rip = in->imm;
    return tb_chain_jump(env, in, X86_JUMP);
}

static uintptr_t call_r(CPUX86State *env, const Insn *in)
{
    uint64_t t = near_target(env, in, env->regs[in->rm]);

    stk_push(env, in->stk, in->aux2, env->rip + in->len);
    env->rip = t;
    return tb_chain_indirect(env, in);
}

static uintptr_t call_m(CPUX86State *env, const Insn *in)
{
    uint64_t t = near_target(env, in,
                             mem_read(env, in->aux2, x86_ea(env, in)));

    stk_push(env, in->stk, in->aux2, env->rip + in->len);
    env->rip = t;
    return tb_chain_indirect(env, in);
}

static uintptr_t ret_near(CPUX86State *env, const Insn *in)
{
    uint64_t t = near_target(env, in, stk_peek(env, in->stk, in->aux2, 0));

    stk_adjust(env, in->stk, (1u << in->aux2) + in->imm2);
    env->rip = t;
    return tb_chain_indirect(env, in);
}

/*
 * The same inside a block: the decoder went on decoding at the target
 * (in the same page), so the block goes on with the next Insn.
 */
static uintptr_t jmp_in(CPUX86State *env, const Insn *in)
{
    env->rip = in->imm;
    return in[1].fn(env, in + 1);
}

/* Where the target does not read env->rip (decode-rip.c): nothing. */
static uintptr_t jmp_in_nr(CPUX86State *env, const Insn *in)
{
    return in[1].fn(env, in + 1);
}

static uintptr_t call_in_64(CPUX86State *env, const Insn *in)
{
    uint64_t sp = env->regs[R_ESP] - 8;

    x86_stq(env, sp, env->rip + in->len);
    env->regs[R_ESP] = sp;
    env->rip = in->imm;
    return in[1].fn(env, in + 1);
}

static uintptr_t call_in(CPUX86State *env, const Insn *in)
{
    stk_push(env, in->stk, in->aux2, env->rip + in->len);
    env->rip = in->imm;
    return in[1].fn(env, in + 1);
}

/* A followed jmp touches no flags and cannot fault. */
const X86Handler x86_branch_fn[BR_NUM] = {
    [BR_JMP] = { X86_H(jmp_rel) }, [BR_JMP_R] = { X86_H(jmp_r) },
    [BR_JMP_M] = { X86_H(jmp_m) }, [BR_CALL64] = { X86_H(call_rel_64) },
    [BR_CALL] = { X86_H(call_rel) }, [BR_CALL_R] = { X86_H(call_r) },
    [BR_CALL_M] = { X86_H(call_m) }, [BR_RET64] = { X86_H(ret_64) },
    [BR_RET] = { X86_H(ret_near) },
    [BR_JMP_IN] = { X86_H_NR(jmp_in), .flags = FL_NEUTRAL },
    [BR_CALL64_IN] = { X86_H(call_in_64) },
    [BR_CALL_IN] = { X86_H(call_in) },
};

/* loop/loope/loopne/jcxz (aux: LOOP_*): the counter is address-sized. */
static uintptr_t op_loop(CPUX86State *env, const Insn *in)
{
    uint64_t m = x86_amask(in);
    uint64_t cx = env->regs[R_ECX] & m;
    bool take;

    if (in->aux != LOOP_JCXZ) {
        cx = (cx - 1) & m;
        if (m == 0xffff) {
            reg_write(env, OT_W, R_ECX, cx);
        } else {
            env->regs[R_ECX] = cx;
        }
    }
    switch (in->aux) {
    case LOOP_NE:
        take = cx != 0 && !x86_cond(env, 4);
        break;
    case LOOP_E:
        take = cx != 0 && x86_cond(env, 4);
        break;
    case LOOP_LOOP:
        take = cx != 0;
        break;
    default:
        take = cx == 0;
        break;
    }
    if (take) {
        env->rip = in->imm;
        return tb_chain_jump(env, in, X86_JUMP);
    }
    return x86_next(env, in);
}

/* Far transfers: all may change CS and the mode. */
static uintptr_t ljmp_i(CPUX86State *env, const Insn *in)
{
    helper_ljmp(env, in->imm2, in->imm, env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t lcall_i(CPUX86State *env, const Insn *in)
{
    helper_lcall(env, in->imm2, in->imm, 1u << in->aux2,
                 env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

/* m16:16, m16:32 or m16:64: the offset, then the selector. */
static void far_pointer(CPUX86State *env, const Insn *in, uint16_t *sel,
                        uint64_t *off)
{
    uint64_t a = x86_ea(env, in);
    unsigned sz = 1u << in->aux2;

    *off = mem_read(env, in->aux2, a);
    *sel = x86_lduw(env, (in->eaf & EA_LIN32) ? (uint32_t)(a + sz) : a + sz);
}

static uintptr_t ljmp_m(CPUX86State *env, const Insn *in)
{
    uint16_t sel;
    uint64_t off;

    far_pointer(env, in, &sel, &off);
    helper_ljmp(env, sel, off, env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t lcall_m(CPUX86State *env, const Insn *in)
{
    uint16_t sel;
    uint64_t off;

    far_pointer(env, in, &sel, &off);
    helper_lcall(env, sel, off, 1u << in->aux2, env->rip + in->len);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_lret(CPUX86State *env, const Insn *in)
{
    helper_lret(env, 1u << in->aux2, in->imm2);
    return X86_EXIT(in, X86_STOP);
}

static uintptr_t op_iret(CPUX86State *env, const Insn *in)
{
    helper_iret(env, 1u << in->aux2);
    return X86_EXIT(in, X86_STOP);
}

/* int n (imm), int3, int1, into. */
static uintptr_t op_int(CPUX86State *env, const Insn *in)
{
    x86_raise_interrupt(env, in->imm, env->rip + in->len);
}

static uintptr_t op_into(CPUX86State *env, const Insn *in)
{
    if (x86_cond(env, 0)) {
        x86_raise_interrupt(env, EXCP04_INTO, env->rip + in->len);
    }
    return x86_next(env, in);
}

const X86Handler x86_far_fn[FAR_NUM] = {
    [FAR_LJMP_I] = { X86_H(ljmp_i) }, [FAR_LJMP_M] = { X86_H(ljmp_m) },
    [FAR_LCALL_I] = { X86_H(lcall_i) }, [FAR_LCALL_M] = { X86_H(lcall_m) },
    [FAR_LRET] = { X86_H(op_lret) }, [FAR_IRET] = { X86_H(op_iret) },
    [FAR_INT] = { X86_H(op_int) }, [FAR_INTO] = { X86_H(op_into) },
};
const X86Handler x86_loop_fn = { X86_H(op_loop) };
