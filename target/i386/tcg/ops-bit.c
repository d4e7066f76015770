/*
 * Bit instructions: bt/bts/btr/btc with a register or immediate bit
 * offset (a register offset into memory addresses the whole bit string,
 * SDM vol. 2A "BT"), and the scans and counts bsf/bsr/tzcnt/lzcnt/
 * popcnt.
 */
#include "target/i386/tcg/ops-tables.h"

enum { BT_BT, BT_BTS, BT_BTR, BT_BTC };

/* CF is the tested bit; ZF is unchanged; OF/SF/AF/PF are undefined. */
static inline uint64_t bt_apply(CPUX86State *env, int op, uint64_t v,
                                unsigned bit)
{
    uint64_t m = (uint64_t)1 << bit;

    x86_cc_materialize(env);
    env->eflags = (env->eflags & ~CC_C) | ((v & m) ? CC_C : 0);
    switch (op) {
    case BT_BTS:
        return v | m;
    case BT_BTR:
        return v & ~m;
    case BT_BTC:
        return v ^ m;
    default:
        return v;
    }
}

/* aux: 1 when the bit offset is the register reg, else imm; aux2: ot. */
#define DEF_BT(op)                                                        \
static uintptr_t bt_r_##op(CPUX86State *env, const Insn *in)                    \
{                                                                         \
    int ot = in->aux2;                                                    \
    uint64_t off = in->aux ? reg_read(env, ot, in->reg) : in->imm;        \
    uint64_t v = reg_read(env, ot, in->rm);                               \
    v = bt_apply(env, op, v, off & (ot_bits(ot) - 1));                    \
    if (op != BT_BT) {                                                    \
        reg_write(env, ot, in->rm, v);                                    \
    }                                                                     \
    return x86_next(env, in);                                             \
}                                                                         \
static uintptr_t bt_m_##op(CPUX86State *env, const Insn *in)                    \
{                                                                         \
    int ot = in->aux2;                                                    \
    uint64_t a = x86_ea(env, in), v;                                      \
    unsigned bit;                                                         \
    if (in->aux) {                                                        \
        int64_t off = ot_sext(ot, reg_read(env, ot, in->reg));            \
        a += (uint64_t)(off >> (3 + ot)) << ot;                           \
        if (in->eaf & EA_LIN32) {                                         \
            a = (uint32_t)a;                                              \
        }                                                                 \
        bit = off & (ot_bits(ot) - 1);                                    \
    } else {                                                              \
        bit = in->imm & (ot_bits(ot) - 1);                                \
    }                                                                     \
    v = bt_apply(env, op, mem_read(env, ot, a), bit);                     \
    if (op != BT_BT) {                                                    \
        mem_write(env, ot, a, v);                                         \
    }                                                                     \
    return x86_next(env, in);                                             \
}
DEF_BT(0)
DEF_BT(1)
DEF_BT(2)
DEF_BT(3)

const X86Handler x86_bt_fn[2][4] = {
    { { X86_H(bt_r_0) }, { X86_H(bt_r_1) }, { X86_H(bt_r_2) },
      { X86_H(bt_r_3) } },
    { { X86_H(bt_m_0) }, { X86_H(bt_m_1) }, { X86_H(bt_m_2) },
      { X86_H(bt_m_3) } },
};

/* aux: SCAN_*; aux2: ot. */
static uintptr_t scan(CPUX86State *env, const Insn *in, uint64_t s)
{
    int ot = in->aux2;
    unsigned bits = ot_bits(ot);
    uint64_t r;
    uint32_t f = 0;

    switch (in->aux) {
    case SCAN_BSF:
    case SCAN_BSR:
        /* A zero source leaves the destination as it was; ZF only. */
        if (s) {
            r = in->aux == SCAN_BSF ? (uint64_t)__builtin_ctzll(s)
                                    : (uint64_t)(63 - __builtin_clzll(s));
            reg_write(env, ot, in->reg, r);
        }
        cc_set(env, CC_K_LOGIC, ot, s, 0);
        return x86_next(env, in);
    case SCAN_TZCNT:
        r = s ? (uint64_t)__builtin_ctzll(s) : bits;
        f = (s == 0 ? CC_C : 0) | (r == 0 ? CC_Z : 0);
        break;
    case SCAN_LZCNT:
        r = s ? (uint64_t)(__builtin_clzll(s) - (64 - bits)) : bits;
        f = (s == 0 ? CC_C : 0) | (r == 0 ? CC_Z : 0);
        break;
    default:
        r = __builtin_popcountll(s);
        f = s == 0 ? CC_Z : 0;
        break;
    }
    reg_write(env, ot, in->reg, r);
    x86_set_eflags(env, f, CC_MASK);
    return x86_next(env, in);
}

static uintptr_t scan_r(CPUX86State *env, const Insn *in)
{
    return scan(env, in, reg_read(env, in->aux2, in->rm));
}

static uintptr_t scan_m(CPUX86State *env, const Insn *in)
{
    return scan(env, in, mem_read(env, in->aux2, x86_ea(env, in)));
}

const X86Handler x86_scan_fn[2] = { { X86_H(scan_r) }, { X86_H(scan_m) } };
