/*
 * Data movement: mov (register, memory, immediate, moffs), movzx/movsx/
 * movsxd, lea, xchg, cmov, setcc, bswap, movbe, the cbw and cwd
 * families, xlat, and the exchanging compares: cmpxchg, cmpxchg8b/16b,
 * xadd. All vCPUs run on one thread, so lock needs no more than the
 * plain read-modify-write.
 */
#include "target/i386/tcg/ops-tables.h"

#define ROW4(H, name)   { H(name##_0), H(name##_1), H(name##_2), H(name##_3) }
#define PLAIN(name)     { X86_H(name) }
#define REG(name)       { X86_H_NR(name) }
/* Register moves neither read nor write the flags. */
#define REG_MOVE(name)  { X86_H_NR(name), .flags = FL_NEUTRAL }
#define MEM(name)       { X86_H_EA(name) }

/*
 * mov in the ALU's forms (F_RM is a load, F_MR a store); the memory
 * forms have fast paths (X86_DEF_MEM, ops.h).
 */
#define DEF_MOV(ot)                                                       \
X86_DEF_REG(mov_rr_##ot,                                                  \
    reg_write(env, ot, in->rm, reg_read(env, ot, in->reg));               \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(mov_rm_##ot, ot, MEM_R,                                 \
    reg_write(env, ot, in->reg, MEM_LD(ot));                              \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(mov_mr_##ot, ot, MEM_W,                                 \
    MEM_ST(ot, reg_read(env, ot, in->reg));                               \
    return X86_NEXT_REG;)                                                 \
X86_DEF_REG(mov_ri_##ot,                                                  \
    reg_write(env, ot, in->rm, in->imm);                                  \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(mov_mi_##ot, ot, MEM_W,                                 \
    MEM_ST(ot, in->imm);                                                  \
    return X86_NEXT_REG;)
DEF_MOV(0)
DEF_MOV(1)
DEF_MOV(2)
DEF_MOV(3)

const X86Handler x86_mov_fn[F_NUM][4] = {
    [F_RR] = ROW4(REG_MOVE, mov_rr),
    [F_RM] = ROW4(MEM, mov_rm),
    [F_MR] = ROW4(MEM, mov_mr),
    [F_RI] = ROW4(REG_MOVE, mov_ri),
    [F_MI] = ROW4(MEM, mov_mi),
};

/*
 * movzx/movsx/movsxd: Gv = extend(Ev of size sot). Generated for each
 * source size, destination size and sign; reg holds the destination,
 * rm the source register (a byte offset for 8-bit sources).
 */
#define DEF_MOVX(sign, sot, dot)                                          \
X86_DEF_REG(movx_r_##sign##_##sot##_##dot,                                \
    uint64_t v = reg_read(env, sot, in->rm);                              \
    reg_write(env, dot, in->reg, sign ? (uint64_t)ot_sext(sot, v) : v);   \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(movx_m_##sign##_##sot##_##dot, sot, MEM_R,              \
    uint64_t v = MEM_LD(sot);                                             \
    reg_write(env, dot, in->reg, sign ? (uint64_t)ot_sext(sot, v) : v);   \
    return X86_NEXT_REG;)
#define DEF_MOVX_S(sign, sot) DEF_MOVX(sign, sot, 1) DEF_MOVX(sign, sot, 2) \
                              DEF_MOVX(sign, sot, 3)
DEF_MOVX_S(0, 0)
DEF_MOVX_S(0, 1)
DEF_MOVX_S(1, 0)
DEF_MOVX_S(1, 1)
DEF_MOVX_S(1, 2)

#define MOVX_ROW(H, form, sign, sot) {                                    \
    [OT_W] = H(form##_##sign##_##sot##_1),                                \
    [OT_L] = H(form##_##sign##_##sot##_2),                                \
    [OT_Q] = H(form##_##sign##_##sot##_3) }

/* [memory][signed][source size][destination size] */
const X86Handler x86_movx_fn[2][2][3][4] = {
    {
        { MOVX_ROW(REG_MOVE, movx_r, 0, 0), MOVX_ROW(REG_MOVE, movx_r, 0, 1) },
        { MOVX_ROW(REG_MOVE, movx_r, 1, 0), MOVX_ROW(REG_MOVE, movx_r, 1, 1),
          MOVX_ROW(REG_MOVE, movx_r, 1, 2) },
    },
    {
        { MOVX_ROW(MEM, movx_m, 0, 0), MOVX_ROW(MEM, movx_m, 0, 1) },
        { MOVX_ROW(MEM, movx_m, 1, 0), MOVX_ROW(MEM, movx_m, 1, 1),
          MOVX_ROW(MEM, movx_m, 1, 2) },
    },
};

/*
 * lea: the offset only (the decoder leaves EA_SEG out), with a version
 * per common address form as the memory handlers have (decode-ea.c).
 */
#define DEF_LEA_(name, ot, ea)                                            \
X86_DEF_REG(name,                                                         \
    reg_write(env, ot, in->reg, ea);                                      \
    return X86_NEXT_REG;)
#define DEF_LEA(ot)                                                       \
    DEF_LEA_(lea_##ot, ot, x86_ea(env, in))                               \
    DEF_LEA_(lea_##ot##_b, ot, X86_EA_B_)                                 \
    DEF_LEA_(lea_##ot##_bi, ot, X86_EA_BI_)                               \
    DEF_LEA_(lea_##ot##_d, ot, X86_EA_D_)                                 \
    X86_EA_FORMS(lea_##ot, X86_H_NR)
DEF_LEA(1)
DEF_LEA(2)
DEF_LEA(3)

#define LEA(ot) { X86_H_NR(lea_##ot), .forms = lea_##ot##_forms,          \
                  .flags = FL_NEUTRAL }

const X86Handler x86_lea_fn[4] = { [OT_W] = LEA(1), [OT_L] = LEA(2),
                                   [OT_Q] = LEA(3) };

/* xchg: register with register (rm, reg) or with memory. */
#define DEF_XCHG(ot)                                                      \
X86_DEF_REG(xchg_rr_##ot,                                                 \
    uint64_t a = reg_read(env, ot, in->rm), b = reg_read(env, ot, in->reg);\
    reg_write(env, ot, in->rm, b);                                        \
    reg_write(env, ot, in->reg, a);                                       \
    return X86_NEXT_REG;)                                                 \
static uintptr_t xchg_mr_##ot(CPUX86State *env, const Insn *in)                 \
{                                                                         \
    uint64_t ea = x86_ea(env, in);                                        \
    uint64_t a = mem_read(env, ot, ea);                                   \
    mem_write(env, ot, ea, reg_read(env, ot, in->reg));                   \
    reg_write(env, ot, in->reg, a);                                       \
    return x86_next(env, in);                                             \
}
DEF_XCHG(0)
DEF_XCHG(1)
DEF_XCHG(2)
DEF_XCHG(3)

const X86Handler x86_xchg_fn[2][4] = { ROW4(REG, xchg_rr),
                                       ROW4(PLAIN, xchg_mr) };

/*
 * cmov: the source is read whatever the condition; a 32-bit cmov writes
 * (and so zero-extends) its destination even when false. The register
 * forms (and setcc's) come one per condition, so the condition compiles
 * to a few instructions instead of a call that switches on it (the XZ
 * decompressor of a bzImage runs a cmov every few instructions).
 */
#define DEF_CMOV_R(c, ot)                                                 \
X86_DEF_REG(cmov_r_##c##_##ot,                                            \
    uint64_t v = x86_cond(env, c) ? reg_read(env, ot, in->rm)             \
                                  : reg_read(env, ot, in->reg);           \
    reg_write(env, ot, in->reg, v);                                       \
    return X86_NEXT_REG;)
#define DEF_CMOV_M(ot)                                                    \
static uintptr_t cmov_m_##ot(CPUX86State *env, const Insn *in)           \
{                                                                         \
    uint64_t m = mem_read(env, ot, x86_ea(env, in));                      \
    uint64_t v = x86_cond(env, in->aux) ? m : reg_read(env, ot, in->reg); \
    reg_write(env, ot, in->reg, v);                                       \
    return x86_next(env, in);                                             \
}
#define DEF_SETCC_R(c)                                                    \
X86_DEF_REG(setcc_r_##c,                                                  \
    ((uint8_t *)env->regs)[in->rm] = x86_cond(env, c);                    \
    return X86_NEXT_REG;)
#define DEF_COND(c) DEF_CMOV_R(c, 1) DEF_CMOV_R(c, 2) DEF_CMOV_R(c, 3)     \
                    DEF_SETCC_R(c)
DEF_COND(0)
DEF_COND(1)
DEF_COND(2)
DEF_COND(3)
DEF_COND(4)
DEF_COND(5)
DEF_COND(6)
DEF_COND(7)
DEF_COND(8)
DEF_COND(9)
DEF_COND(10)
DEF_COND(11)
DEF_COND(12)
DEF_COND(13)
DEF_COND(14)
DEF_COND(15)
DEF_CMOV_M(1)
DEF_CMOV_M(2)
DEF_CMOV_M(3)

#define CMOV_ROW(c) { [OT_W] = REG(cmov_r_##c##_1),                       \
                     [OT_L] = REG(cmov_r_##c##_2),                       \
                     [OT_Q] = REG(cmov_r_##c##_3) }

const X86Handler x86_cmov_r_fn[16][4] = {
    CMOV_ROW(0), CMOV_ROW(1), CMOV_ROW(2), CMOV_ROW(3),
    CMOV_ROW(4), CMOV_ROW(5), CMOV_ROW(6), CMOV_ROW(7),
    CMOV_ROW(8), CMOV_ROW(9), CMOV_ROW(10), CMOV_ROW(11),
    CMOV_ROW(12), CMOV_ROW(13), CMOV_ROW(14), CMOV_ROW(15),
};

const X86Handler x86_cmov_m_fn[4] = {
    [OT_W] = PLAIN(cmov_m_1), [OT_L] = PLAIN(cmov_m_2),
    [OT_Q] = PLAIN(cmov_m_3),
};

static uintptr_t setcc_m(CPUX86State *env, const Insn *in)
{
    x86_stb(env, x86_ea(env, in), x86_cond(env, in->aux));
    return x86_next(env, in);
}

const X86Handler x86_setcc_r_fn[16] = {
    REG(setcc_r_0), REG(setcc_r_1), REG(setcc_r_2), REG(setcc_r_3),
    REG(setcc_r_4), REG(setcc_r_5), REG(setcc_r_6), REG(setcc_r_7),
    REG(setcc_r_8), REG(setcc_r_9), REG(setcc_r_10), REG(setcc_r_11),
    REG(setcc_r_12), REG(setcc_r_13), REG(setcc_r_14), REG(setcc_r_15),
};

const X86Handler x86_setcc_m_fn = PLAIN(setcc_m);

/* bswap r16 is undefined; current processors leave zero there. */
static uintptr_t bswap_1(CPUX86State *env, const Insn *in)
{
    reg_write(env, OT_W, in->rm, 0);
    return x86_next(env, in);
}

static uintptr_t bswap_2(CPUX86State *env, const Insn *in)
{
    env->regs[in->rm] = __builtin_bswap32((uint32_t)env->regs[in->rm]);
    return x86_next(env, in);
}

static uintptr_t bswap_3(CPUX86State *env, const Insn *in)
{
    env->regs[in->rm] = __builtin_bswap64(env->regs[in->rm]);
    return x86_next(env, in);
}

const X86Handler x86_bswap_fn[4] = {
    [OT_W] = PLAIN(bswap_1), [OT_L] = PLAIN(bswap_2),
    [OT_Q] = PLAIN(bswap_3),
};

static uint64_t bswap_ot(int ot, uint64_t v)
{
    switch (ot) {
    case OT_W:
        return __builtin_bswap16(v);
    case OT_L:
        return __builtin_bswap32(v);
    default:
        return __builtin_bswap64(v);
    }
}

/* movbe Gv, Mv (load) and Mv, Gv (store). */
static uintptr_t movbe_load(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;

    reg_write(env, ot, in->reg,
              bswap_ot(ot, mem_read(env, ot, x86_ea(env, in))));
    return x86_next(env, in);
}

static uintptr_t movbe_store(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;

    mem_write(env, ot, x86_ea(env, in),
              bswap_ot(ot, reg_read(env, ot, in->reg)));
    return x86_next(env, in);
}

const X86Handler x86_movbe_fn[2] = { PLAIN(movbe_load),
                                     PLAIN(movbe_store) };

/* cbw/cwde/cdqe (aux2: operand size). */
static uintptr_t op_cbw(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;

    reg_write(env, ot, R_EAX, ot_sext(ot - 1, env->regs[R_EAX]));
    return x86_next(env, in);
}

/* cwd/cdq/cqo. */
static uintptr_t op_cwd(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;

    reg_write(env, ot, R_EDX, ot_sext(ot, env->regs[R_EAX]) < 0 ? ~0ull : 0);
    return x86_next(env, in);
}

/* xlat: AL = [seg:rBX + AL]. */
static uintptr_t op_xlat(CPUX86State *env, const Insn *in)
{
    uint64_t off = (env->regs[R_EBX] + (uint8_t)env->regs[R_EAX]) &
                   x86_amask(in);

    ((uint8_t *)env->regs)[0] = x86_ldub(env, x86_seg_addr(env, in, in->seg,
                                                           off));
    return x86_next(env, in);
}

/* mov al/ax/eax/rax, moffs and back: imm is the offset. */
static uintptr_t mov_moffs_load(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t a = x86_seg_addr(env, in, in->seg, in->imm & x86_amask(in));

    reg_write(env, ot, R_EAX, mem_read(env, ot, a));
    return x86_next(env, in);
}

static uintptr_t mov_moffs_store(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t a = x86_seg_addr(env, in, in->seg, in->imm & x86_amask(in));

    mem_write(env, ot, a, reg_read(env, ot, R_EAX));
    return x86_next(env, in);
}

const X86Handler x86_moffs_fn[2] = { PLAIN(mov_moffs_load),
                                     PLAIN(mov_moffs_store) };

/*
 * cmpxchg Ev, Gv: compare the accumulator with the destination. Equal:
 * the destination takes Gv; not equal: the accumulator takes the
 * destination. A memory destination is written back unchanged on
 * failure (the locked cycle); a register one is left alone.
 */
static uintptr_t cmpxchg_r(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned acc = ot == OT_B ? 0 : R_EAX;
    uint64_t d = reg_read(env, ot, in->rm), a = reg_read(env, ot, acc);

    cc_set(env, CC_K_SUB, ot, a - d, d);
    if (a == d) {
        reg_write(env, ot, in->rm, reg_read(env, ot, in->reg));
    } else {
        reg_write(env, ot, acc, d);
    }
    return x86_next(env, in);
}

static uintptr_t cmpxchg_m(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned acc = ot == OT_B ? 0 : R_EAX;
    uint64_t ea = x86_ea(env, in);
    uint64_t d = mem_read(env, ot, ea), a = reg_read(env, ot, acc);

    if (a == d) {
        mem_write(env, ot, ea, reg_read(env, ot, in->reg));
    } else {
        mem_write(env, ot, ea, d);
        reg_write(env, ot, acc, d);
    }
    cc_set(env, CC_K_SUB, ot, a - d, d);
    return x86_next(env, in);
}

const X86Handler x86_cmpxchg_fn[2] = { PLAIN(cmpxchg_r), PLAIN(cmpxchg_m) };

/* xadd Ev, Gv: Gv takes the old destination, the destination the sum. */
static uintptr_t xadd_r(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t d = reg_read(env, ot, in->rm), s = reg_read(env, ot, in->reg);

    reg_write(env, ot, in->reg, d);
    reg_write(env, ot, in->rm, d + s);
    cc_set(env, CC_K_ADD, ot, d + s, s);
    return x86_next(env, in);
}

static uintptr_t xadd_m(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    uint64_t ea = x86_ea(env, in);
    uint64_t d = mem_read(env, ot, ea), s = reg_read(env, ot, in->reg);

    mem_write(env, ot, ea, d + s);
    reg_write(env, ot, in->reg, d);
    cc_set(env, CC_K_ADD, ot, d + s, s);
    return x86_next(env, in);
}

const X86Handler x86_xadd_fn[2] = { PLAIN(xadd_r), PLAIN(xadd_m) };

/* cmpxchg8b m64 and, with REX.W, cmpxchg16b m128 (16-byte aligned). */
static uintptr_t op_cmpxchg8b(CPUX86State *env, const Insn *in)
{
    uint64_t ea = x86_ea(env, in);
    uint64_t m = x86_ldq(env, ea);
    uint64_t cmp = (uint32_t)env->regs[R_EAX] |
                   ((uint64_t)env->regs[R_EDX] << 32);
    bool eq = m == cmp;

    if (eq) {
        x86_stq(env, ea, (uint32_t)env->regs[R_EBX] |
                         ((uint64_t)env->regs[R_ECX] << 32));
    } else {
        x86_stq(env, ea, m);
        env->regs[R_EAX] = (uint32_t)m;
        env->regs[R_EDX] = m >> 32;
    }
    x86_set_eflags(env, eq ? CC_Z : 0, CC_Z);
    return x86_next(env, in);
}

static uintptr_t op_cmpxchg16b(CPUX86State *env, const Insn *in)
{
    uint64_t ea = x86_ea(env, in);
    uint64_t lo, hi;
    bool eq;

    if (ea & 15) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
    lo = x86_ldq(env, ea);
    hi = x86_ldq(env, ea + 8);
    eq = lo == env->regs[R_EAX] && hi == env->regs[R_EDX];
    if (eq) {
        x86_stq(env, ea, env->regs[R_EBX]);
        x86_stq(env, ea + 8, env->regs[R_ECX]);
    } else {
        x86_stq(env, ea, lo);
        x86_stq(env, ea + 8, hi);
        env->regs[R_EAX] = lo;
        env->regs[R_EDX] = hi;
    }
    x86_set_eflags(env, eq ? CC_Z : 0, CC_Z);
    return x86_next(env, in);
}

const X86Handler x86_cmpxchg8b_fn[2] = { PLAIN(op_cmpxchg8b),
                                         PLAIN(op_cmpxchg16b) };
const X86Handler x86_cbw_fn = PLAIN(op_cbw);
const X86Handler x86_cwd_fn = PLAIN(op_cwd);
const X86Handler x86_xlat_fn = PLAIN(op_xlat);
