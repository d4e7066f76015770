/*
 * Multiplication and division: mul/imul/div/idiv with the accumulator
 * (group 3), and the two- and three-operand imul. Division by zero and
 * quotients that do not fit raise #DE before anything is written.
 */
#include "target/i386/tcg/ops-tables.h"

typedef unsigned __int128 u128;
typedef __int128 s128;

enum { MD_MUL, MD_IMUL, MD_DIV, MD_IDIV };

/* The double-width accumulator: AX, DX:AX, EDX:EAX or RDX:RAX. */
static u128 acc_read(CPUX86State *env, int ot)
{
    if (ot == OT_B) {
        return (uint16_t)env->regs[R_EAX];
    }
    return ((u128)reg_read(env, ot, R_EDX) << ot_bits(ot)) |
           reg_read(env, ot, R_EAX);
}

/* Write the low half to the accumulator and the high half above it. */
static void acc_write(CPUX86State *env, int ot, uint64_t lo, uint64_t hi)
{
    if (ot == OT_B) {
        reg_write(env, OT_W, R_EAX, (lo & 0xff) | ((hi & 0xff) << 8));
    } else {
        reg_write(env, ot, R_EAX, lo);
        reg_write(env, ot, R_EDX, hi);
    }
}

static inline void muldiv(CPUX86State *env, int op, int ot, uint64_t s)
{
    unsigned bits = ot_bits(ot);
    uint64_t mask = ot_mask(ot), a = env->regs[R_EAX] & mask;
    u128 p, n, q;
    s128 sp, sn, sq;

    switch (op) {
    case MD_MUL:
        p = (u128)a * s;
        acc_write(env, ot, (uint64_t)p & mask, (uint64_t)(p >> bits) & mask);
        cc_set(env, CC_K_MUL, ot, (uint64_t)p, (p >> bits) != 0);
        break;
    case MD_IMUL:
        sp = (s128)ot_sext(ot, a) * ot_sext(ot, s);
        acc_write(env, ot, (uint64_t)sp & mask,
                  (uint64_t)(sp >> bits) & mask);
        cc_set(env, CC_K_MUL, ot, (uint64_t)sp,
               sp != ot_sext(ot, (uint64_t)sp));
        break;
    case MD_DIV:
        if (s == 0) {
            x86_raise_exception(env, EXCP00_DIVZ);
        }
        n = acc_read(env, ot);
        q = n / s;
        if (q > mask) {
            x86_raise_exception(env, EXCP00_DIVZ);
        }
        acc_write(env, ot, (uint64_t)q, (uint64_t)(n % s));
        break;
    default:
        if (s == 0) {
            x86_raise_exception(env, EXCP00_DIVZ);
        }
        n = acc_read(env, ot);
        /* Sign-extend the double-width dividend. */
        sn = (s128)(n << (128 - 2 * bits)) >> (128 - 2 * bits);
        if (ot == OT_Q && sn == (s128)((u128)1 << 127)) {
            /* INT128_MIN / anything that fits 64 bits overflows. */
            x86_raise_exception(env, EXCP00_DIVZ);
        }
        sq = sn / ot_sext(ot, s);
        if (sq != ot_sext(ot, (uint64_t)sq) ||
            (ot == OT_Q && (sq > INT64_MAX || sq < INT64_MIN))) {
            x86_raise_exception(env, EXCP00_DIVZ);
        }
        acc_write(env, ot, (uint64_t)sq, (uint64_t)(sn % ot_sext(ot, s)));
        break;
    }
}

#define DEF_MD(op, ot)                                                    \
static uintptr_t md_r_##op##_##ot(CPUX86State *env, const Insn *in)             \
{                                                                         \
    muldiv(env, op, ot, reg_read(env, ot, in->rm));                       \
    return x86_next(env, in);                                             \
}                                                                         \
static uintptr_t md_m_##op##_##ot(CPUX86State *env, const Insn *in)             \
{                                                                         \
    muldiv(env, op, ot, mem_read(env, ot, x86_ea(env, in)));              \
    return x86_next(env, in);                                             \
}
#define DEF_MD_OP(op) DEF_MD(op, 0) DEF_MD(op, 1) DEF_MD(op, 2) \
                      DEF_MD(op, 3)
DEF_MD_OP(0)
DEF_MD_OP(1)
DEF_MD_OP(2)
DEF_MD_OP(3)

#define MD_ROW(form, op) {                                                \
    { X86_H(form##_##op##_0) }, { X86_H(form##_##op##_1) },               \
    { X86_H(form##_##op##_2) }, { X86_H(form##_##op##_3) } }

const X86Handler x86_muldiv_fn[2][4][4] = {
    { MD_ROW(md_r, 0), MD_ROW(md_r, 1), MD_ROW(md_r, 2), MD_ROW(md_r, 3) },
    { MD_ROW(md_m, 0), MD_ROW(md_m, 1), MD_ROW(md_m, 2), MD_ROW(md_m, 3) },
};

/* imul Gv, Ev[, imm]: the truncated signed product. */
static inline uint64_t imul2(CPUX86State *env, int ot, uint64_t a,
                             uint64_t b)
{
    s128 p = (s128)ot_sext(ot, a) * ot_sext(ot, b);

    cc_set(env, CC_K_MUL, ot, (uint64_t)p, p != ot_sext(ot, (uint64_t)p));
    return (uint64_t)p;
}

/* Forms: register source, memory source; imm (aux set) or Gv. */
#define DEF_IMUL(ot)                                                      \
X86_DEF_REG(imul_r_##ot,                                                  \
    uint64_t b = in->aux ? in->imm : reg_read(env, ot, in->reg);          \
    reg_write(env, ot, in->reg,                                           \
              imul2(env, ot, reg_read(env, ot, in->rm), b));              \
    return X86_NEXT_REG;)                                                 \
static uintptr_t imul_m_##ot(CPUX86State *env, const Insn *in)                  \
{                                                                         \
    uint64_t a = mem_read(env, ot, x86_ea(env, in));                      \
    uint64_t b = in->aux ? in->imm : reg_read(env, ot, in->reg);          \
    reg_write(env, ot, in->reg, imul2(env, ot, a, b));                    \
    return x86_next(env, in);                                             \
}
/*
 * The register form where the flags are dead (decode-flags.c): the
 * product alone. The XZ decoder of a bzImage multiplies for every bit.
 */
#define DEF_IMUL_NF(ot)                                                   \
X86_DEF_REG(imul_nf_r_##ot,                                               \
    uint64_t b = in->aux ? in->imm : reg_read(env, ot, in->reg);          \
    reg_write(env, ot, in->reg,                                           \
              (uint64_t)ot_sext(ot, reg_read(env, ot, in->rm)) *          \
              (uint64_t)ot_sext(ot, b));                                  \
    return X86_NEXT_REG;)
DEF_IMUL(1)
DEF_IMUL(2)
DEF_IMUL(3)
DEF_IMUL_NF(1)
DEF_IMUL_NF(2)
DEF_IMUL_NF(3)

static const X86Handler imul_nf[4] = {
    [OT_W] = { X86_H_NR(imul_nf_r_1) }, [OT_L] = { X86_H_NR(imul_nf_r_2) },
    [OT_Q] = { X86_H_NR(imul_nf_r_3) },
};

/* imul's SF, ZF, AF and PF are undefined: it writes all six. */
#define IMUL_R(ot) \
    { X86_H_NR(imul_r_##ot), .flags = FL_WRITE, .nf = &imul_nf[ot] }
#define IMUL_M(ot) { X86_H(imul_m_##ot) }

const X86Handler x86_imul_fn[2][4] = {
    { [OT_W] = IMUL_R(1), [OT_L] = IMUL_R(2), [OT_Q] = IMUL_R(3) },
    { [OT_W] = IMUL_M(1), [OT_L] = IMUL_M(2), [OT_Q] = IMUL_M(3) },
};
