/*
 * Arithmetic and logic: add/or/adc/sbb/and/sub/xor/cmp in their five
 * operand forms, test, inc/dec/neg/not, the flag instructions
 * (clc/stc/cmc/lahf/sahf/salc) and the BCD adjustments. Handlers are
 * generated per operation and operand size so the hot ones are
 * straight-line code.
 */
#include "target/i386/tcg/ops-tables.h"

/* The eight group-1 operations, in modrm.reg order. */
enum { ALU_ADD, ALU_OR, ALU_ADC, ALU_SBB, ALU_AND, ALU_SUB, ALU_XOR,
       ALU_CMP };

static inline uint64_t alu(CPUX86State *env, int op, int ot, uint64_t a,
                           uint64_t b)
{
    uint64_t r, c;

    switch (op) {
    case ALU_ADD:
        r = a + b;
        cc_set(env, CC_K_ADD, ot, r, b);
        break;
    case ALU_OR:
        r = a | b;
        cc_set(env, CC_K_LOGIC, ot, r, 0);
        break;
    case ALU_ADC:
        c = x86_cc_c(env);
        r = a + b + c;
        cc_set(env, CC_K_ADC, ot, r, b);
        env->cc_src2 = c;
        break;
    case ALU_SBB:
        c = x86_cc_c(env);
        r = a - b - c;
        cc_set(env, CC_K_SBB, ot, r, b);
        env->cc_src2 = c;
        break;
    case ALU_AND:
        r = a & b;
        cc_set(env, CC_K_LOGIC, ot, r, 0);
        break;
    case ALU_XOR:
        r = a ^ b;
        cc_set(env, CC_K_LOGIC, ot, r, 0);
        break;
    default:            /* sub, cmp */
        r = a - b;
        cc_set(env, CC_K_SUB, ot, r, b);
        break;
    }
    return r;
}

/*
 * Forms: RR  Ev(register rm) op= Gv(reg)
 *        RM  Gv(reg) op= Ev(memory)
 *        MR  Ev(memory) op= Gv(reg)
 *        RI  Ev(register rm) op= imm
 *        MI  Ev(memory) op= imm
 * Immediates come truncated to the operand size from the decoder.
 */
#define DEF_ALU(op, ot)                                                   \
X86_DEF_REG(alu_rr_##op##_##ot,                                           \
    uint64_t r = alu(env, op, ot, reg_read(env, ot, in->rm),              \
                     reg_read(env, ot, in->reg));                         \
    if (op != ALU_CMP) {                                                  \
        reg_write(env, ot, in->rm, r);                                    \
    }                                                                     \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(alu_rm_##op##_##ot, ot, MEM_R,                          \
    uint64_t r = alu(env, op, ot, reg_read(env, ot, in->reg), MEM_LD(ot));\
    if (op != ALU_CMP) {                                                  \
        reg_write(env, ot, in->reg, r);                                   \
    }                                                                     \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(alu_mr_##op##_##ot, ot,                                 \
               op != ALU_CMP ? MEM_RW : MEM_R,                            \
    uint64_t r = alu(env, op, ot, MEM_LD(ot), reg_read(env, ot, in->reg));\
    if (op != ALU_CMP) {                                                  \
        MEM_ST(ot, r);                                                    \
    }                                                                     \
    return X86_NEXT_REG;)                                                 \
X86_DEF_REG(alu_ri_##op##_##ot,                                           \
    uint64_t r = alu(env, op, ot, reg_read(env, ot, in->rm), in->imm);    \
    if (op != ALU_CMP) {                                                  \
        reg_write(env, ot, in->rm, r);                                    \
    }                                                                     \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(alu_mi_##op##_##ot, ot,                                 \
               op != ALU_CMP ? MEM_RW : MEM_R,                            \
    uint64_t r = alu(env, op, ot, MEM_LD(ot), in->imm);                   \
    if (op != ALU_CMP) {                                                  \
        MEM_ST(ot, r);                                                    \
    }                                                                     \
    return X86_NEXT_REG;)

#define DEF_ALU_OP(op) DEF_ALU(op, 0) DEF_ALU(op, 1) DEF_ALU(op, 2) \
                       DEF_ALU(op, 3)
DEF_ALU_OP(0)
DEF_ALU_OP(1)
DEF_ALU_OP(2)
DEF_ALU_OP(3)
DEF_ALU_OP(4)
DEF_ALU_OP(5)
DEF_ALU_OP(6)
DEF_ALU_OP(7)

/*
 * The register forms without the flags, for an instruction whose flags
 * the next ones overwrite unread (decode-flags.c): [0] Ev(register) op=
 * Gv, [1] Ev(register) op= imm. cmp is a nop then; adc and sbb read CF
 * and have none.
 */
static inline uint64_t alu_nf(int op, uint64_t a, uint64_t b)
{
    switch (op) {
    case ALU_ADD:
        return a + b;
    case ALU_OR:
        return a | b;
    case ALU_AND:
        return a & b;
    case ALU_XOR:
        return a ^ b;
    default:            /* sub */
        return a - b;
    }
}

#define DEF_ALU_NF(op, ot)                                                \
X86_DEF_REG(alu_nf_rr_##op##_##ot,                                        \
    reg_write(env, ot, in->rm, alu_nf(op, reg_read(env, ot, in->rm),      \
                                      reg_read(env, ot, in->reg)));       \
    return X86_NEXT_REG;)                                                 \
X86_DEF_REG(alu_nf_ri_##op##_##ot,                                        \
    reg_write(env, ot, in->rm, alu_nf(op, reg_read(env, ot, in->rm),      \
                                      in->imm));                          \
    return X86_NEXT_REG;)
X86_EACH_OT(DEF_ALU_NF, 0)
X86_EACH_OT(DEF_ALU_NF, 1)
X86_EACH_OT(DEF_ALU_NF, 4)
X86_EACH_OT(DEF_ALU_NF, 5)
X86_EACH_OT(DEF_ALU_NF, 6)

/* [0] F_RR, [1] F_RI; cmp's is x86_nop, adc and sbb have none. */
#define NF_ROW(form, op) {                                                \
    { X86_H_NR(form##_##op##_0) }, { X86_H_NR(form##_##op##_1) },         \
    { X86_H_NR(form##_##op##_2) }, { X86_H_NR(form##_##op##_3) } }
#define NF_FORM(form) {                                                   \
    [ALU_ADD] = NF_ROW(form, 0), [ALU_OR] = NF_ROW(form, 1),              \
    [ALU_AND] = NF_ROW(form, 4), [ALU_SUB] = NF_ROW(form, 5),             \
    [ALU_XOR] = NF_ROW(form, 6) }

static const X86Handler alu_nf_rows[2][8][4] = { NF_FORM(alu_nf_rr),
                                                 NF_FORM(alu_nf_ri) };

/*
 * The register forms write all six flags and have versions without
 * them, but adc and sbb, which read CF.
 */
#define ALU_REG_(name, f, op, ot)                                         \
    { X86_H_NR(name), .flags = (op) == ALU_ADC || (op) == ALU_SBB ? 0     \
                               : FL_WRITE,                                \
      .nf = (op) == ALU_CMP ? &x86_nop : &alu_nf_rows[f][op][ot] }
#define ALU_RR(op, ot)  ALU_REG_(alu_rr_##op##_##ot, 0, op, ot)
#define ALU_RI(op, ot)  ALU_REG_(alu_ri_##op##_##ot, 1, op, ot)
#define ALU_M(form, op, ot)  { X86_H_EA(alu_##form##_##op##_##ot) }
#define ALU_RM(op, ot)  ALU_M(rm, op, ot)
#define ALU_MR(op, ot)  ALU_M(mr, op, ot)
#define ALU_MI(op, ot)  ALU_M(mi, op, ot)
#define ALU_ROW(F, op)  { F(op, 0), F(op, 1), F(op, 2), F(op, 3) }
#define ALU_FORM(F) {                                                     \
    ALU_ROW(F, 0), ALU_ROW(F, 1), ALU_ROW(F, 2), ALU_ROW(F, 3),           \
    ALU_ROW(F, 4), ALU_ROW(F, 5), ALU_ROW(F, 6), ALU_ROW(F, 7) }

const X86Handler x86_alu_fn[F_NUM][8][4] = {
    [F_RR] = ALU_FORM(ALU_RR),
    [F_RM] = ALU_FORM(ALU_RM),
    [F_MR] = ALU_FORM(ALU_MR),
    [F_RI] = ALU_FORM(ALU_RI),
    [F_MI] = ALU_FORM(ALU_MI),
};

/* test: and without the write-back. */
#define DEF_TEST(ot)                                                      \
X86_DEF_REG(test_rr_##ot,                                                 \
    cc_set(env, CC_K_LOGIC, ot,                                           \
           reg_read(env, ot, in->rm) & reg_read(env, ot, in->reg), 0);    \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(test_mr_##ot, ot, MEM_R,                                \
    cc_set(env, CC_K_LOGIC, ot, MEM_LD(ot) & reg_read(env, ot, in->reg), 0);\
    return X86_NEXT_REG;)                                                 \
X86_DEF_REG(test_ri_##ot,                                                 \
    cc_set(env, CC_K_LOGIC, ot, reg_read(env, ot, in->rm) & in->imm, 0);  \
    return X86_NEXT_REG;)                                                 \
X86_DEF_MEM_EA_NR(test_mi_##ot, ot, MEM_R,                                \
    cc_set(env, CC_K_LOGIC, ot, MEM_LD(ot) & in->imm, 0);                 \
    return X86_NEXT_REG;)
DEF_TEST(0)
DEF_TEST(1)
DEF_TEST(2)
DEF_TEST(3)

/* The register forms write all six flags: without them, a nop. */
#define TEST_REG(name) \
    { X86_H_NR(name), .flags = FL_WRITE, .nf = &x86_nop }
#define TEST_MEM(name)  { X86_H_EA(name) }
#define ROW4(H, name)   { H(name##_0), H(name##_1), H(name##_2), H(name##_3) }

const X86Handler x86_test_fn[F_NUM][4] = {
    [F_RR] = ROW4(TEST_REG, test_rr),
    [F_MR] = ROW4(TEST_MEM, test_mr),
    [F_RI] = ROW4(TEST_REG, test_ri),
    [F_MI] = ROW4(TEST_MEM, test_mi),
};

/* inc, dec, not, neg: one operand, register (R) or memory (M). */
enum { UN_INC, UN_DEC, UN_NOT, UN_NEG };

static inline uint64_t unary(CPUX86State *env, int op, int ot, uint64_t a)
{
    uint64_t r;

    switch (op) {
    case UN_INC:
        r = a + 1;
        cc_set(env, CC_K_INC, ot, r, x86_cc_c(env));
        break;
    case UN_DEC:
        r = a - 1;
        cc_set(env, CC_K_DEC, ot, r, x86_cc_c(env));
        break;
    case UN_NOT:
        r = ~a;
        break;
    default:
        r = -a;
        cc_set(env, CC_K_SUB, ot, r, a);
        break;
    }
    return r;
}

#define DEF_UNARY(op, ot)                                                 \
X86_DEF_REG(un_r_##op##_##ot,                                             \
    reg_write(env, ot, in->rm, unary(env, op, ot,                         \
                                     reg_read(env, ot, in->rm)));         \
    return X86_NEXT_REG;)                                                 \
static uintptr_t un_m_##op##_##ot(CPUX86State *env, const Insn *in)             \
{                                                                         \
    uint64_t a = x86_ea(env, in);                                         \
    mem_write(env, ot, a, unary(env, op, ot, mem_read(env, ot, a)));      \
    return x86_next(env, in);                                             \
}
#define DEF_UNARY_OP(op) DEF_UNARY(op, 0) DEF_UNARY(op, 1) \
                         DEF_UNARY(op, 2) DEF_UNARY(op, 3)
DEF_UNARY_OP(0)
DEF_UNARY_OP(1)
DEF_UNARY_OP(2)
DEF_UNARY_OP(3)

#define UN_R(name)  { X86_H_NR(name) }
#define UN_M(name)  { X86_H(name) }
#define UN_ROWS(H, form) {                                                \
    ROW4(H, form##_0), ROW4(H, form##_1), ROW4(H, form##_2),              \
    ROW4(H, form##_3) }

const X86Handler x86_unary_fn[2][4][4] = {
    UN_ROWS(UN_R, un_r),
    UN_ROWS(UN_M, un_m),
};

/* Flag instructions. */
static uintptr_t op_clc(CPUX86State *env, const Insn *in)
{
    x86_cc_materialize(env);
    env->eflags &= ~CC_C;
    return x86_next(env, in);
}

static uintptr_t op_stc(CPUX86State *env, const Insn *in)
{
    x86_cc_materialize(env);
    env->eflags |= CC_C;
    return x86_next(env, in);
}

static uintptr_t op_cmc(CPUX86State *env, const Insn *in)
{
    x86_cc_materialize(env);
    env->eflags ^= CC_C;
    return x86_next(env, in);
}

static uintptr_t op_cld(CPUX86State *env, const Insn *in)
{
    env->eflags &= ~DF_MASK;
    return x86_next(env, in);
}

static uintptr_t op_std(CPUX86State *env, const Insn *in)
{
    env->eflags |= DF_MASK;
    return x86_next(env, in);
}

static uintptr_t op_lahf(CPUX86State *env, const Insn *in)
{
    uint8_t f = (x86_cc_compute_all(env) & (CC_S | CC_Z | CC_A | CC_P |
                                            CC_C)) | EFLAGS_FIXED;

    ((uint8_t *)env->regs)[R_EAX * 8 + 1] = f;
    return x86_next(env, in);
}

static uintptr_t op_sahf(CPUX86State *env, const Insn *in)
{
    uint32_t m = CC_S | CC_Z | CC_A | CC_P | CC_C;

    x86_set_eflags(env, ((uint8_t *)env->regs)[R_EAX * 8 + 1], m);
    return x86_next(env, in);
}

/* salc (undocumented, 32-bit modes): AL = CF ? 0xff : 0. */
static uintptr_t op_salc(CPUX86State *env, const Insn *in)
{
    ((uint8_t *)env->regs)[0] = x86_cc_c(env) ? 0xff : 0;
    return x86_next(env, in);
}

/* Set the arithmetic flags from f (SF/ZF/PF of al plus CF, AF). */
static void bcd_flags(CPUX86State *env, uint8_t al, uint32_t cf_af)
{
    uint32_t f = cf_af;

    if (al == 0) {
        f |= CC_Z;
    }
    if (al & 0x80) {
        f |= CC_S;
    }
    if (cc_parity(al)) {
        f |= CC_P;
    }
    x86_set_eflags(env, f, CC_MASK);
}

static uintptr_t op_daa(CPUX86State *env, const Insn *in)
{
    uint32_t f = x86_cc_compute_all(env), out = 0;
    uint8_t al = env->regs[R_EAX], old = al;

    if ((al & 0xf) > 9 || (f & CC_A)) {
        al += 6;
        out |= CC_A;
    }
    if (old > 0x99 || (f & CC_C)) {
        al += 0x60;
        out |= CC_C;
    }
    ((uint8_t *)env->regs)[0] = al;
    bcd_flags(env, al, out);
    return x86_next(env, in);
}

static uintptr_t op_das(CPUX86State *env, const Insn *in)
{
    uint32_t f = x86_cc_compute_all(env), out = 0;
    uint8_t al = env->regs[R_EAX], old = al;

    if ((al & 0xf) > 9 || (f & CC_A)) {
        out |= CC_A | (al < 6 || (f & CC_C) ? CC_C : 0);
        al -= 6;
    }
    if (old > 0x99 || (f & CC_C)) {
        al -= 0x60;
        out |= CC_C;
    }
    ((uint8_t *)env->regs)[0] = al;
    bcd_flags(env, al, out);
    return x86_next(env, in);
}

/* aaa/aas: the adjustment of AL and AH as the SDM gives it. */
static uintptr_t op_aaa_aas(CPUX86State *env, const Insn *in, bool sub)
{
    uint32_t f = x86_cc_compute_all(env);
    uint16_t ax = env->regs[R_EAX];
    uint32_t out = 0;

    if ((ax & 0xf) > 9 || (f & CC_A)) {
        if (sub) {
            ax = (uint16_t)(ax - 6);
            ax = (ax & 0xff) | ((uint16_t)((ax >> 8) - 1) << 8);
        } else {
            ax += 0x106;
        }
        out = CC_A | CC_C;
    }
    ax &= 0xff0f;
    reg_write(env, OT_W, R_EAX, ax);
    bcd_flags(env, ax & 0xff, out);
    return x86_next(env, in);
}

static uintptr_t op_aaa(CPUX86State *env, const Insn *in)
{
    return op_aaa_aas(env, in, false);
}

static uintptr_t op_aas(CPUX86State *env, const Insn *in)
{
    return op_aaa_aas(env, in, true);
}

static uintptr_t op_aam(CPUX86State *env, const Insn *in)
{
    uint8_t al = env->regs[R_EAX], base = in->imm;

    if (base == 0) {
        x86_raise_exception(env, EXCP00_DIVZ);
    }
    reg_write(env, OT_W, R_EAX, ((al / base) << 8) | (al % base));
    bcd_flags(env, al % base, 0);
    return x86_next(env, in);
}

static uintptr_t op_aad(CPUX86State *env, const Insn *in)
{
    uint16_t ax = env->regs[R_EAX];
    uint8_t al = (ax & 0xff) + (ax >> 8) * (uint8_t)in->imm;

    reg_write(env, OT_W, R_EAX, al);
    bcd_flags(env, al, 0);
    return x86_next(env, in);
}

const X86Handler x86_flag_fn[FL_NUM] = {
    [FL_CLC] = { X86_H(op_clc) }, [FL_STC] = { X86_H(op_stc) },
    [FL_CMC] = { X86_H(op_cmc) }, [FL_CLD] = { X86_H(op_cld) },
    [FL_STD] = { X86_H(op_std) }, [FL_LAHF] = { X86_H(op_lahf) },
    [FL_SAHF] = { X86_H(op_sahf) }, [FL_SALC] = { X86_H(op_salc) },
    [FL_DAA] = { X86_H(op_daa) }, [FL_DAS] = { X86_H(op_das) },
    [FL_AAA] = { X86_H(op_aaa) }, [FL_AAS] = { X86_H(op_aas) },
    [FL_AAM] = { X86_H(op_aam) }, [FL_AAD] = { X86_H(op_aad) },
};
