/*
 * Shifts and rotates (group 2: rol/ror/rcl/rcr/shl/shr/sal/sar with a
 * count of 1, CL or imm8) and the double shifts shld/shrd. The count is
 * masked to 5 bits (6 with a 64-bit operand); a masked count of zero
 * leaves the flags alone. Intel SDM vol. 2B, SAL/SAR/SHL/SHR, RCL/RCR/
 * ROL/ROR, SHLD, SHRD.
 */
#include "target/i386/tcg/ops-tables.h"

enum { SH_ROL, SH_ROR, SH_RCL, SH_RCR, SH_SHL, SH_SHR, SH_SAL, SH_SAR };

/* Set CF and OF after a rotate; the other flags are left as they were. */
static void rot_flags(CPUX86State *env, bool cf, bool of)
{
    x86_cc_materialize(env);
    env->eflags = (env->eflags & ~(CC_C | CC_O)) | (cf ? CC_C : 0) |
                  (of ? CC_O : 0);
}

/* Rotate the (bits + 1)-bit value CF:v; right when dir is set. */
static uint64_t rotate_carry(CPUX86State *env, int ot, uint64_t v,
                             unsigned count, bool right)
{
    unsigned bits = ot_bits(ot), width = bits + 1;
    unsigned __int128 x, m = ((unsigned __int128)1 << width) - 1;
    unsigned c = count % width;
    uint64_t r;
    bool cf;

    x = ((unsigned __int128)x86_cc_c(env) << bits) | v;
    if (c) {
        if (right) {
            x = ((x >> c) | (x << (width - c))) & m;
        } else {
            x = ((x << c) | (x >> (width - c))) & m;
        }
    }
    r = (uint64_t)x & ot_mask(ot);
    cf = (x >> bits) & 1;
    if (right) {
        rot_flags(env, cf, ot_msb(ot, r) != ot_msb(ot, r << 1));
    } else {
        rot_flags(env, cf, ot_msb(ot, r) != cf);
    }
    return r;
}

/* count is the masked count and not zero. */
static inline uint64_t shift(CPUX86State *env, int op, int ot, uint64_t v,
                             unsigned count)
{
    unsigned bits = ot_bits(ot), c;
    uint64_t r;
    int64_t sv;

    switch (op) {
    case SH_ROL:
        c = count & (bits - 1);
        r = c ? ((v << c) | (v >> (bits - c))) & ot_mask(ot) : v;
        rot_flags(env, r & 1, ot_msb(ot, r) != (r & 1));
        return r;
    case SH_ROR:
        c = count & (bits - 1);
        r = c ? ((v >> c) | (v << (bits - c))) & ot_mask(ot) : v;
        rot_flags(env, ot_msb(ot, r), ot_msb(ot, r) != ot_msb(ot, r << 1));
        return r;
    case SH_RCL:
        return rotate_carry(env, ot, v, count, false);
    case SH_RCR:
        return rotate_carry(env, ot, v, count, true);
    case SH_SHL:
    case SH_SAL:
        r = v << count;
        cc_set(env, CC_K_SHL, ot, r, v << (count - 1));
        return r;
    case SH_SHR:
        r = v >> count;
        cc_set(env, CC_K_SHR, ot, r, v >> (count - 1));
        return r;
    default:
        sv = ot_sext(ot, v);
        r = sv >> count;
        cc_set(env, CC_K_SAR, ot, r, sv >> (count - 1));
        return r;
    }
}

/* aux: 1 when the count is CL, else the count is imm. */
#define SHIFT_COUNT(env, in, ot)                                          \
    ((unsigned)((in)->aux ? (env)->regs[R_ECX] : (in)->imm) &             \
     ((ot) == OT_Q ? 63 : 31))

#define DEF_SHIFT(op, ot)                                                 \
X86_DEF_REG(sh_r_##op##_##ot,                                             \
    unsigned c = SHIFT_COUNT(env, in, ot);                                \
    uint64_t v = reg_read(env, ot, in->rm);                               \
    if (c) {                                                              \
        v = shift(env, op, ot, v, c);                                     \
    }                                                                     \
    reg_write(env, ot, in->rm, v);                                        \
    return X86_NEXT_REG;)                                                 \
static uintptr_t sh_m_##op##_##ot(CPUX86State *env, const Insn *in)             \
{                                                                         \
    unsigned c = SHIFT_COUNT(env, in, ot);                                \
    uint64_t a = x86_ea(env, in);                                         \
    uint64_t v = mem_read(env, ot, a);                                    \
    if (c) {                                                              \
        mem_write(env, ot, a, shift(env, op, ot, v, c));                  \
    }                                                                     \
    return x86_next(env, in);                                             \
}
#define DEF_SHIFT_OP(op) DEF_SHIFT(op, 0) DEF_SHIFT(op, 1) \
                         DEF_SHIFT(op, 2) DEF_SHIFT(op, 3)
DEF_SHIFT_OP(0)
DEF_SHIFT_OP(1)
DEF_SHIFT_OP(2)
DEF_SHIFT_OP(3)
DEF_SHIFT_OP(4)
DEF_SHIFT_OP(5)
DEF_SHIFT_OP(6)
DEF_SHIFT_OP(7)

/*
 * shl/shr/sal/sar of a register by a non-zero immediate, without the
 * flags (decode-flags.c: never by CL); none for the rotates, which keep
 * some.
 */
#define DEF_SHIFT_NF(op, ot)                                              \
X86_DEF_REG(sh_nf_##op##_##ot,                                            \
    unsigned c = (unsigned)in->imm & ((ot) == OT_Q ? 63 : 31);            \
    uint64_t v = reg_read(env, ot, in->rm);                               \
    if (op == SH_SHR) {                                                   \
        v >>= c;                                                          \
    } else if (op == SH_SAR) {                                            \
        v = ot_sext(ot, v) >> c;                                          \
    } else {                                                              \
        v <<= c;                                                          \
    }                                                                     \
    reg_write(env, ot, in->rm, v);                                        \
    return X86_NEXT_REG;)
X86_EACH_OT(DEF_SHIFT_NF, 4)
X86_EACH_OT(DEF_SHIFT_NF, 5)
X86_EACH_OT(DEF_SHIFT_NF, 6)
X86_EACH_OT(DEF_SHIFT_NF, 7)

#define SH_ROW(F, op) { F(op, 0), F(op, 1), F(op, 2), F(op, 3) }
#define SH_NF(op, ot)   { X86_H_NR(sh_nf_##op##_##ot) }

static const X86Handler sh_nf[8][4] = {
    [SH_SHL] = SH_ROW(SH_NF, 4), [SH_SHR] = SH_ROW(SH_NF, 5),
    [SH_SAL] = SH_ROW(SH_NF, 6), [SH_SAR] = SH_ROW(SH_NF, 7),
};

/*
 * Shifts of a register write all six flags when their count is a
 * non-zero immediate (FL_SHIFT), rotates keep some.
 */
#define SH_R(op, ot)                                                      \
    { X86_H_NR(sh_r_##op##_##ot), .flags = (op) >= SH_SHL ? FL_SHIFT : 0, \
      .flags_ot = ot, .nf = &sh_nf[op][ot] }
#define SH_M(op, ot)    { X86_H(sh_m_##op##_##ot) }
#define SH_FORM(F) {                                                      \
    SH_ROW(F, 0), SH_ROW(F, 1), SH_ROW(F, 2), SH_ROW(F, 3),               \
    SH_ROW(F, 4), SH_ROW(F, 5), SH_ROW(F, 6), SH_ROW(F, 7) }

const X86Handler x86_shift_fn[2][8][4] = { SH_FORM(SH_R), SH_FORM(SH_M) };

/*
 * shld/shrd Ev, Gv, imm8/CL (aux: 1 for CL; aux2: operand size; imm2:
 * 1 for shrd). Counts above the operand size (16-bit forms only) are
 * undefined; this takes them modulo 32 in a 64-bit frame.
 */
static uint64_t dshift(CPUX86State *env, int ot, bool right, uint64_t d,
                       uint64_t s, unsigned c)
{
    unsigned bits = ot_bits(ot), width = 2 * bits;
    unsigned __int128 x;
    uint64_t r;
    uint32_t f = 0;
    bool cf;

    if (ot == OT_W) {
        /* 16-bit: d:s:d, as current processors behave for counts > 16. */
        x = ((unsigned __int128)d << 32) | (s << 16) | d;
        width = 48;
    } else if (right) {
        x = ((unsigned __int128)s << bits) | d;
    } else {
        x = ((unsigned __int128)d << bits) | s;
    }
    if (right) {
        r = (uint64_t)(x >> c) & ot_mask(ot);
        cf = (x >> (c - 1)) & 1;
    } else {
        r = (uint64_t)((x << c) >> (width - bits)) & ot_mask(ot);
        cf = (x >> (width - c)) & 1;
    }
    f |= cf ? CC_C : 0;
    f |= ot_msb(ot, r) != ot_msb(ot, d) ? CC_O : 0;
    f |= r == 0 ? CC_Z : 0;
    f |= ot_msb(ot, r) ? CC_S : 0;
    f |= cc_parity(r) ? CC_P : 0;
    x86_set_eflags(env, f, CC_MASK);
    return r;
}

static uintptr_t dshift_r(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned c = SHIFT_COUNT(env, in, ot);
    uint64_t d = reg_read(env, ot, in->rm);

    if (c) {
        d = dshift(env, ot, in->imm2, d, reg_read(env, ot, in->reg), c);
    }
    reg_write(env, ot, in->rm, d);
    return x86_next(env, in);
}

static uintptr_t dshift_m(CPUX86State *env, const Insn *in)
{
    int ot = in->aux2;
    unsigned c = SHIFT_COUNT(env, in, ot);
    uint64_t a = x86_ea(env, in);
    uint64_t d = mem_read(env, ot, a);

    if (c) {
        mem_write(env, ot, a,
                  dshift(env, ot, in->imm2, d, reg_read(env, ot, in->reg),
                         c));
    }
    return x86_next(env, in);
}

const X86Handler x86_dshift_fn[2] = { { X86_H(dshift_r) },
                                      { X86_H(dshift_m) } };
