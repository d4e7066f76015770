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

/*
 * Whether each condition holds, for each combination of the flags that
 * decide it: bit cf | zf << 1 | sf << 2 | of << 3 (P conditions are
 * never paired).
 */
static const uint16_t cond_table[16] = {
    0xff00, 0x00ff, 0xaaaa, 0x5555, 0xcccc, 0x3333, 0xeeee, 0x1111,
    0xf0f0, 0x0f0f, 0x0000, 0xffff, 0x0ff0, 0xf00f, 0xcffc, 0x3003,
};

static inline uintptr_t fused_branch(CPUX86State *env, const Insn *in,
                                     bool cf, bool zf, bool sf, bool of)
{
    const Insn *j = in + 1;
    unsigned idx = cf | zf << 1 | sf << 2 | of << 3;

    if ((cond_table[j->aux] >> idx) & 1) {
        env->rip = j->imm;
        return tb_chain_jump(env, j, X86_JUMP);
    }
    env->rip += in->len + j->len;
    return in[2].fn(env, in + 2);
}

/* The pair for operation op on a (destination) and b. */
static inline uintptr_t fused(CPUX86State *env, const Insn *in, int op,
                              int ot, int form, uint64_t a, uint64_t b)
{
    uint64_t m = ot_mask(ot), r;
    bool cf, of;

    a &= m;
    b &= m;
    switch (op) {
    case FUSE_ADD:
        r = (a + b) & m;
        cf = r < a;
        of = ot_msb(ot, ~(a ^ b) & (a ^ r));
        cc_set(env, CC_K_ADD, ot, r, b);
        break;
    case FUSE_AND:
    case FUSE_TEST:
        r = a & b;
        cf = of = false;
        cc_set(env, CC_K_LOGIC, ot, r, 0);
        break;
    default:                            /* sub, cmp */
        r = (a - b) & m;
        cf = a < b;
        of = ot_msb(ot, (a ^ b) & (a ^ r));
        cc_set(env, CC_K_SUB, ot, r, b);
        break;
    }
    if (op == FUSE_ADD || op == FUSE_SUB || op == FUSE_AND) {
        reg_write(env, ot, form == F_RM ? in->reg : in->rm, r);
    }
    return fused_branch(env, in, cf, r == 0, ot_msb(ot, r), of);
}

/* The operands of each form, as the ALU handlers take them. */
#define FZ_A_rr(ot) reg_read(env, ot, in->rm)
#define FZ_B_rr(ot) reg_read(env, ot, in->reg)
#define FZ_A_ri(ot) reg_read(env, ot, in->rm)
#define FZ_B_ri(ot) in->imm
#define FZ_A_rm(ot) reg_read(env, ot, in->reg)
#define FZ_B_rm(ot) mem_read(env, ot, x86_ea(env, in))
#define FZ_A_mr(ot) mem_read(env, ot, x86_ea(env, in))
#define FZ_B_mr(ot) reg_read(env, ot, in->reg)
#define FZ_A_mi(ot) mem_read(env, ot, x86_ea(env, in))
#define FZ_B_mi(ot) in->imm
#define FZ_FORM_rr F_RR
#define FZ_FORM_ri F_RI
#define FZ_FORM_rm F_RM
#define FZ_FORM_mr F_MR
#define FZ_FORM_mi F_MI

#define DEF_FZ(form, op, ot)                                              \
static uintptr_t fz_##form##_##op##_##ot(CPUX86State *env,               \
                                         const Insn *in)                 \
{                                                                         \
    uint64_t a = FZ_A_##form(ot);                                         \
    uint64_t b = FZ_B_##form(ot);                                         \
    return fused(env, in, op, ot, FZ_FORM_##form, a, b);                  \
}
#define DEF_FZ_OT(form, op) DEF_FZ(form, op, 0) DEF_FZ(form, op, 1)       \
                            DEF_FZ(form, op, 2) DEF_FZ(form, op, 3)
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

#define FZ_ROW(form, op) \
    { fz_##form##_##op##_0, fz_##form##_##op##_1, fz_##form##_##op##_2, \
      fz_##form##_##op##_3 }

/* Memory-destination forms of sub/add/and would store: left unpaired. */
const InsnFn x86_fused_fn[FUSE_NUM][F_NUM][4] = {
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
