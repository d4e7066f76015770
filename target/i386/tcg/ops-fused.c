/*
 * Compare-and-branch pairs: cmp/test/sub/add/and followed by a jcc run
 * as one handler (the decoder pairs them, decode.c), which saves a
 * dispatch and reads the condition from the operands instead of the
 * lazy flags. The pair's first instruction keeps its own Insn (its
 * flags are still recorded for later readers); the jcc's Insn holds the
 * condition (aux), the target and the chaining data, so counting and
 * chaining see a jcc as usual.
 *
 * Only forms that write no memory are paired: a store could rewrite the
 * jcc (self-modifying code), which must then run as written.
 */
#include "target/i386/tcg/tb.h"
#include "target/i386/tcg/ops-tables.h"

/* Condition classes: jcc's condition >> 1 (its low bit negates). */
enum { FC_O, FC_B, FC_Z, FC_BE, FC_S, FC_P, FC_L, FC_LE, FC_NUM };

/*
 * Whether condition class cc holds after op on a and b (truncated to
 * the operand size) with result r. Each handler has its class built in,
 * so this folds to the one comparison the class needs.
 */
static inline bool fused_cond(int op, int ot, int cc, uint64_t a,
                              uint64_t b, uint64_t r)
{
    bool of, sf = ot_msb(ot, r);

    if (op == FUSE_AND || op == FUSE_TEST) {
        switch (cc) {
        case FC_Z:
        case FC_BE:
            return r == 0;
        case FC_S:
        case FC_L:
            return sf;
        case FC_LE:
            return r == 0 || sf;
        default:                        /* O, B: clear after logic */
            return false;
        }
    }
    if (op == FUSE_ADD) {
        of = ot_msb(ot, ~(a ^ b) & (a ^ r));
        switch (cc) {
        case FC_O:
            return of;
        case FC_B:
            return r < a;
        case FC_Z:
            return r == 0;
        case FC_BE:
            return r < a || r == 0;
        case FC_S:
            return sf;
        case FC_L:
            return sf != of;
        default:
            return r == 0 || sf != of;
        }
    }
    switch (cc) {                       /* sub, cmp */
    case FC_O:
        return ot_msb(ot, (a ^ b) & (a ^ r));
    case FC_B:
        return a < b;
    case FC_Z:
        return a == b;
    case FC_BE:
        return a <= b;
    case FC_S:
        return sf;
    case FC_L:
        return ot_sext(ot, a) < ot_sext(ot, b);
    default:
        return ot_sext(ot, a) <= ot_sext(ot, b);
    }
}

/*
 * The pair for operation op on a (destination) and b, condition class
 * cc, negated if neg is 1 (or if the jcc's condition is odd, for neg
 * -1); not taken, it leaves rip alone if skip_rip (decode-rip.c).
 */
static X86_INLINE uintptr_t fused(CPUX86State *env, const Insn *in, int op,
                                  int ot, int form, int cc, int neg,
                                  uint64_t a, uint64_t b, bool skip_rip)
{
    const Insn *j = in + 1;
    uint64_t m = ot_mask(ot), r;

    a &= m;
    b &= m;
    switch (op) {
    case FUSE_ADD:
        r = (a + b) & m;
        cc_set(env, CC_K_ADD, ot, r, b);
        break;
    case FUSE_AND:
    case FUSE_TEST:
        r = a & b;
        cc_set(env, CC_K_LOGIC, ot, r, 0);
        break;
    default:                            /* sub, cmp */
        r = (a - b) & m;
        cc_set(env, CC_K_SUB, ot, r, b);
        break;
    }
    if (op == FUSE_ADD || op == FUSE_SUB || op == FUSE_AND) {
        reg_write(env, ot, form == F_RM ? in->reg : in->rm, r);
    }
    if (fused_cond(op, ot, cc, a, b, r) ^
        (neg < 0 ? j->aux & 1 : neg)) {
        env->rip = j->imm;
        return tb_chain_jump(env, j, X86_JUMP);
    }
    if (!skip_rip) {
        env->rip = j->next_rip;
    }
    return in[2].fn(env, in + 2);
}

/* The operands of each form, as the ALU handlers take them. */
#define FZ_A_rr(ot) reg_read(env, ot, in->rm)
#define FZ_B_rr(ot) reg_read(env, ot, in->reg)
#define FZ_A_ri(ot) reg_read(env, ot, in->rm)
#define FZ_B_ri(ot) in->imm
#define FZ_A_rm(ot) reg_read(env, ot, in->reg)
#define FZ_B_rm(ot) MEM_LD(ot)
#define FZ_A_mr(ot) MEM_LD(ot)
#define FZ_B_mr(ot) reg_read(env, ot, in->reg)
#define FZ_A_mi(ot) MEM_LD(ot)
#define FZ_B_mi(ot) in->imm
#define FZ_FORM_rr F_RR
#define FZ_FORM_ri F_RI
#define FZ_FORM_rm F_RM
#define FZ_FORM_mr F_MR
#define FZ_FORM_mi F_MI

/*
 * Register forms: one per jcc condition c (the negation built in), each
 * with its version without the rip store.
 */
#define DEF_FZ_R_(name, form, op, ot, c, skip)                            \
static uintptr_t name(CPUX86State *env, const Insn *in)                   \
{                                                                         \
    uint64_t a = FZ_A_##form(ot);                                         \
    uint64_t b = FZ_B_##form(ot);                                         \
    return fused(env, in, op, ot, FZ_FORM_##form, (c) >> 1, (c) & 1,      \
                 a, b, skip);                                             \
}
#define DEF_FZ_R(form, op, ot, c)                                         \
    DEF_FZ_R_(fz_##form##_##op##_##ot##_##c, form, op, ot, c, false)      \
    DEF_FZ_R_(fz_##form##_##op##_##ot##_##c##_nr, form, op, ot, c, true)
/*
 * Memory forms, with fast paths (X86_DEF_MEM, ops.h): one per condition
 * class cc, the negation read from the jcc.
 */
#define DEF_FZ_M(form, op, ot, cc)                                        \
X86_DEF_MEM_EA(fz_##form##_##op##_##ot##_##cc, ot, MEM_R,                 \
    uint64_t a = FZ_A_##form(ot);                                         \
    uint64_t b = FZ_B_##form(ot);                                         \
    return fused(env, in, op, ot, FZ_FORM_##form, cc, -1, a, b, false);)
/* P conditions (10, 11: class 5) are never paired: no PF here. */
#define DEF_FZ_REG(form, op, ot)                                          \
    DEF_FZ_R(form, op, ot, 0) DEF_FZ_R(form, op, ot, 1)                   \
    DEF_FZ_R(form, op, ot, 2) DEF_FZ_R(form, op, ot, 3)                   \
    DEF_FZ_R(form, op, ot, 4) DEF_FZ_R(form, op, ot, 5)                   \
    DEF_FZ_R(form, op, ot, 6) DEF_FZ_R(form, op, ot, 7)                   \
    DEF_FZ_R(form, op, ot, 8) DEF_FZ_R(form, op, ot, 9)                   \
    DEF_FZ_R(form, op, ot, 12) DEF_FZ_R(form, op, ot, 13)                 \
    DEF_FZ_R(form, op, ot, 14) DEF_FZ_R(form, op, ot, 15)
#define DEF_FZ_MEM(form, op, ot)                                          \
    DEF_FZ_M(form, op, ot, 0) DEF_FZ_M(form, op, ot, 1)                   \
    DEF_FZ_M(form, op, ot, 2) DEF_FZ_M(form, op, ot, 3)                   \
    DEF_FZ_M(form, op, ot, 4) DEF_FZ_M(form, op, ot, 6)                   \
    DEF_FZ_M(form, op, ot, 7)
#define FZ_DEF_rr DEF_FZ_REG
#define FZ_DEF_ri DEF_FZ_REG
#define FZ_DEF_rm DEF_FZ_MEM
#define FZ_DEF_mr DEF_FZ_MEM
#define FZ_DEF_mi DEF_FZ_MEM
#define DEF_FZ_OT(form, op)                                               \
    FZ_DEF_##form(form, op, 0) FZ_DEF_##form(form, op, 1)                 \
    FZ_DEF_##form(form, op, 2) FZ_DEF_##form(form, op, 3)
/* cmp: every form; sub/add/and: register destinations; test. */
DEF_FZ_OT(rr, 0)
DEF_FZ_OT(ri, 0)
DEF_FZ_OT(rm, 0)
DEF_FZ_OT(mr, 0)
DEF_FZ_OT(mi, 0)
DEF_FZ_OT(rr, 1)
DEF_FZ_OT(ri, 1)
DEF_FZ_OT(rm, 1)
DEF_FZ_OT(rr, 2)
DEF_FZ_OT(ri, 2)
DEF_FZ_OT(rm, 2)
DEF_FZ_OT(rr, 3)
DEF_FZ_OT(ri, 3)
DEF_FZ_OT(rm, 3)
DEF_FZ_OT(rr, 4)
DEF_FZ_OT(ri, 4)
DEF_FZ_OT(mr, 4)
DEF_FZ_OT(mi, 4)

/*
 * The handlers of one size by jcc condition (none for jp/jnp): the
 * register forms' own, the memory forms' of the condition's class. The
 * register forms write all six flags (the pair's first instruction's)
 * and run two Insns.
 */
#define FZ_BY_COND(N, form, op, ot) {                                     \
    N(form, op, ot, 0), N(form, op, ot, 1), N(form, op, ot, 2),           \
    N(form, op, ot, 3), N(form, op, ot, 4), N(form, op, ot, 5),           \
    N(form, op, ot, 6), N(form, op, ot, 7), N(form, op, ot, 8),           \
    N(form, op, ot, 9), { 0 }, { 0 }, N(form, op, ot, 12),                \
    N(form, op, ot, 13), N(form, op, ot, 14), N(form, op, ot, 15) }
#define FZ_N(form, op, ot, c)                                             \
    { X86_H_NR(fz_##form##_##op##_##ot##_##c), .width = 2,                \
      .flags = FL_WRITE }
#define FZ_CLASS_N(form, op, ot, c) FZ_CLASS_N_(form, op, ot, FZ_CLASS_##c)
#define FZ_CLASS_N_(form, op, ot, cc) FZ_M(form, op, ot, cc)
#define FZ_M(form, op, ot, cc)  { X86_H_EA(fz_##form##_##op##_##ot##_##cc) }
#define FZ_CLASS_0  0
#define FZ_CLASS_1  0
#define FZ_CLASS_2  1
#define FZ_CLASS_3  1
#define FZ_CLASS_4  2
#define FZ_CLASS_5  2
#define FZ_CLASS_6  3
#define FZ_CLASS_7  3
#define FZ_CLASS_8  4
#define FZ_CLASS_9  4
#define FZ_CLASS_12 6
#define FZ_CLASS_13 6
#define FZ_CLASS_14 7
#define FZ_CLASS_15 7
#define FZ_CONDS_REG(form, op, ot)  FZ_BY_COND(FZ_N, form, op, ot)
#define FZ_CONDS_MEM(form, op, ot)  FZ_BY_COND(FZ_CLASS_N, form, op, ot)
#define FZ_CONDS_rr FZ_CONDS_REG
#define FZ_CONDS_ri FZ_CONDS_REG
#define FZ_CONDS_rm FZ_CONDS_MEM
#define FZ_CONDS_mr FZ_CONDS_MEM
#define FZ_CONDS_mi FZ_CONDS_MEM
#define FZ_ROW(form, op) \
    { FZ_CONDS_##form(form, op, 0), FZ_CONDS_##form(form, op, 1), \
      FZ_CONDS_##form(form, op, 2), FZ_CONDS_##form(form, op, 3) }

/* Memory-destination forms of sub/add/and would store: left unpaired. */
const X86Handler x86_fused_fn[FUSE_NUM][F_NUM][4][16] = {
    [FUSE_CMP] = { [F_RR] = FZ_ROW(rr, 0), [F_RI] = FZ_ROW(ri, 0),
                   [F_RM] = FZ_ROW(rm, 0), [F_MR] = FZ_ROW(mr, 0),
                   [F_MI] = FZ_ROW(mi, 0) },
    [FUSE_SUB] = { [F_RR] = FZ_ROW(rr, 1), [F_RI] = FZ_ROW(ri, 1),
                   [F_RM] = FZ_ROW(rm, 1) },
    [FUSE_ADD] = { [F_RR] = FZ_ROW(rr, 2), [F_RI] = FZ_ROW(ri, 2),
                   [F_RM] = FZ_ROW(rm, 2) },
    [FUSE_AND] = { [F_RR] = FZ_ROW(rr, 3), [F_RI] = FZ_ROW(ri, 3),
                   [F_RM] = FZ_ROW(rm, 3) },
    [FUSE_TEST] = { [F_RR] = FZ_ROW(rr, 4), [F_RI] = FZ_ROW(ri, 4),
                    [F_MR] = FZ_ROW(mr, 4), [F_MI] = FZ_ROW(mi, 4) },
};

/*
 * Loop ends (add $1, %rcx; cmp $n, %rcx; jne): an add or sub to a
 * register, then a compare or test of registers (the same or others) and
 * the jcc, run as one. The add's flags are dead (the compare writes all
 * six and nothing between can fault), so only the compare's are
 * recorded; each of the three Insns holds its own operands.
 */
static X86_INLINE uintptr_t fused3(CPUX86State *env, const Insn *in,
                                   int aop, int aform, int cop, int cform,
                                   int ot, int cond, bool skip_rip)
{
    const Insn *c = in + 1;
    uint64_t r = reg_read(env, ot, in->rm);
    uint64_t v = aform == F_RI ? in->imm : reg_read(env, ot, in->reg);

    r = aop == FUSE_ADD ? r + v : r - v;
    reg_write(env, ot, in->rm, r);
    r = reg_read(env, ot, c->rm);
    v = cform == F_RI ? c->imm : reg_read(env, ot, c->reg);
    return fused(env, c, cop, ot, cform, cond >> 1, cond & 1, r, v,
                 skip_rip);
}

#define F3_FORM_0   F_RR
#define F3_FORM_1   F_RI
#define F3_AOP_0    FUSE_ADD
#define F3_AOP_1    FUSE_SUB
#define F3_COP_0    FUSE_CMP
#define F3_COP_1    FUSE_TEST
#define F3_N(a, af, c, cf, ot, cc) f3_##a##_##af##_##c##_##cf##_##ot##_##cc
#define DEF_F3_(name, a, af, c, cf, ot, cc, skip)                         \
static uintptr_t name(CPUX86State *env, const Insn *in)                   \
{                                                                         \
    return fused3(env, in, F3_AOP_##a, F3_FORM_##af, F3_COP_##c,          \
                  F3_FORM_##cf, ot, cc, skip);                            \
}
#define DEF_F3_CC(a, af, c, cf, ot, cc)                                   \
    DEF_F3_(F3_N(a, af, c, cf, ot, cc), a, af, c, cf, ot, cc, false)      \
    DEF_F3_(F3_N(a, af, c, cf, ot, cc##_nr), a, af, c, cf, ot, cc, true)
/* One per jcc condition but jp/jnp. */
#define DEF_F3(a, af, c, cf, ot)                                          \
    DEF_F3_CC(a, af, c, cf, ot, 0) DEF_F3_CC(a, af, c, cf, ot, 1)         \
    DEF_F3_CC(a, af, c, cf, ot, 2) DEF_F3_CC(a, af, c, cf, ot, 3)         \
    DEF_F3_CC(a, af, c, cf, ot, 4) DEF_F3_CC(a, af, c, cf, ot, 5)         \
    DEF_F3_CC(a, af, c, cf, ot, 6) DEF_F3_CC(a, af, c, cf, ot, 7)         \
    DEF_F3_CC(a, af, c, cf, ot, 8) DEF_F3_CC(a, af, c, cf, ot, 9)         \
    DEF_F3_CC(a, af, c, cf, ot, 12) DEF_F3_CC(a, af, c, cf, ot, 13)       \
    DEF_F3_CC(a, af, c, cf, ot, 14) DEF_F3_CC(a, af, c, cf, ot, 15)
#define DEF_F3_OT(a, af, c, cf) DEF_F3(a, af, c, cf, 2) DEF_F3(a, af, c, cf, 3)
#define DEF_F3_CF(a, af, c) DEF_F3_OT(a, af, c, 0) DEF_F3_OT(a, af, c, 1)
#define DEF_F3_C(a, af) DEF_F3_CF(a, af, 0) DEF_F3_CF(a, af, 1)
DEF_F3_C(0, 0)
DEF_F3_C(0, 1)
DEF_F3_C(1, 0)
DEF_F3_C(1, 1)

/* Each writes all six flags (the compare's) and runs three Insns. */
#define F3_H(a, af, c, cf, ot, cc)                                        \
    { .fn = F3_N(a, af, c, cf, ot, cc),                                   \
      .nr = F3_N(a, af, c, cf, ot, cc##_nr), .rip_free = true,            \
      .width = 3, .flags = FL_WRITE }
#define F3_CCS(a, af, c, cf, ot) {                                        \
    F3_H(a, af, c, cf, ot, 0), F3_H(a, af, c, cf, ot, 1),                 \
    F3_H(a, af, c, cf, ot, 2), F3_H(a, af, c, cf, ot, 3),                 \
    F3_H(a, af, c, cf, ot, 4), F3_H(a, af, c, cf, ot, 5),                 \
    F3_H(a, af, c, cf, ot, 6), F3_H(a, af, c, cf, ot, 7),                 \
    F3_H(a, af, c, cf, ot, 8), F3_H(a, af, c, cf, ot, 9), { 0 }, { 0 },   \
    F3_H(a, af, c, cf, ot, 12), F3_H(a, af, c, cf, ot, 13),               \
    F3_H(a, af, c, cf, ot, 14), F3_H(a, af, c, cf, ot, 15) }
#define F3_CF(a, af, c, cf) { F3_CCS(a, af, c, cf, 2), F3_CCS(a, af, c, cf, 3) }
#define F3_C(a, af, c) { F3_CF(a, af, c, 0), F3_CF(a, af, c, 1) }
#define F3_AF(a, af) { F3_C(a, af, 0), F3_C(a, af, 1) }

const X86Handler x86_fused3_fn[2][2][2][2][2][16] = {
    { F3_AF(0, 0), F3_AF(0, 1) },
    { F3_AF(1, 0), F3_AF(1, 1) },
};
