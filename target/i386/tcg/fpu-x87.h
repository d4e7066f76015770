/*
 * The x87 FPU of the software CPU, internal to target/i386/tcg:
 *
 *   decode-x87.c     the escapes d8..df as tables (memory forms by
 *                    modrm.reg, register forms by modrm.reg and rm)
 *   fpu-x87.c        the register stack, tags, exceptions and the
 *                    loads, stores, arithmetic and compares
 *   fpu-x87-ctl.c    control (fninit, fldcw, fnstenv, fnsave, ...),
 *                    the one-operand and transcendental instructions
 *   fpu-host.c       the host's own x87 running one operation under
 *                    the guest's control word (see docs/internals.md)
 *
 * An x87 Insn carries: aux the operation (X87_OP_* or per handler),
 * aux2 the memory format (X87_FMT_*), rm the register i of ST(i), imm
 * the X87F_* flags and imm2 the 11-bit opcode kept in FOP.
 */
#ifndef TARGET_I386_FPU_X87_H
#define TARGET_I386_FPU_X87_H

#include "target/i386/tcg/ops.h"

/* Memory operand formats. */
enum {
    X87_FMT_F32, X87_FMT_F64, X87_FMT_F80, X87_FMT_I16, X87_FMT_I32,
    X87_FMT_I64, X87_FMT_BCD, X87_FMT_ST, X87_FMT_NUM
};

/* Arithmetic in the order of modrm.reg in d8 (2 and 3 compare). */
enum {
    X87_OP_ADD, X87_OP_MUL, X87_OP_COM, X87_OP_COMP, X87_OP_SUB,
    X87_OP_SUBR, X87_OP_DIV, X87_OP_DIVR
};

/* Compare kinds. */
enum { X87_CMP_COM, X87_CMP_UCOM, X87_CMP_TST };

/* Operations the host runs on ST(0) and ST(1) (x87_host_op). */
enum {
    X87_H_F2XM1, X87_H_FYL2X, X87_H_FPTAN, X87_H_FPATAN, X87_H_FXTRACT,
    X87_H_FPREM1, X87_H_FPREM, X87_H_FYL2XP1, X87_H_FSQRT, X87_H_FSINCOS,
    X87_H_FRNDINT, X87_H_FSCALE, X87_H_FSIN, X87_H_FCOS, X87_H_FXAM,
    X87_H_FLD1, X87_H_FLDL2T, X87_H_FLDL2E, X87_H_FLDPI, X87_H_FLDLG2,
    X87_H_FLDLN2, X87_H_FLDZ, X87_H_NUM
};

/* Insn.imm of x87 instructions. */
#define X87F_POP    0x01u   /* pop once after */
#define X87F_POP2   0x02u   /* pop twice (fcompp, fucompp) */
#define X87F_STI    0x04u   /* the destination is ST(i), not ST(0) */
#define X87F_NOWAIT 0x08u   /* fn*: no check for pending exceptions */
#define X87F_CTL    0x10u   /* control: FOP, FIP, FDP stay */
#define X87F_EFLAGS 0x20u   /* fcomi: the result goes to EFLAGS */
#define X87F_TRUNC  0x40u   /* fisttp: chop whatever RC says */
#define X87F_MEM    0x80u   /* a memory operand: FDP/FDS */
#define X87F_O16    0x100u  /* 16-bit operand size (fnstenv formats) */
#define X87F_NOFAULT 0x200u /* fstp1: no stack fault */

/* The exception flags in FSW and their masks in FCW. */
#define X87_EXC     0x3fu

/*
 * The host's x87 under the guest's FCW (precision, rounding; masks as
 * the guest has them). Each returns the host's FSW after the operation:
 * the exception flags it raised and its condition codes. Operands in
 * memory formats are raw little-endian bytes.
 */
uint16_t x87_host_arith(unsigned op, X86FPReg *dst, const void *src,
                        unsigned fmt, uint16_t fcw, uint16_t fsw);
uint16_t x87_host_compare(unsigned kind, const X86FPReg *a, const void *b,
                          unsigned fmt, uint16_t fcw, uint16_t fsw);
uint16_t x87_host_load(X86FPReg *out, const void *src, unsigned fmt,
                       uint16_t fcw, uint16_t fsw);
uint16_t x87_host_store(void *dst, const X86FPReg *in, unsigned fmt,
                        bool trunc, uint16_t fcw, uint16_t fsw);
/* out[0], out[1]: the host's ST(0), ST(1) after op on in[0], in[1]. */
uint16_t x87_host_op(unsigned op, X86FPReg out[2], const X86FPReg in[2],
                     uint16_t fcw, uint16_t fsw);

/* The QNaN "real indefinite". */
extern const X86FPReg x87_indefinite;

static inline X86FPReg *x87_st(CPUX86State *env, unsigned i)
{
    return &env->fpregs[(env->fpstt + i) & 7];
}

static inline bool x87_empty(CPUX86State *env, unsigned i)
{
    return env->fptags[(env->fpstt + i) & 7];
}

static inline void x87_set(CPUX86State *env, unsigned i, const X86FPReg *v)
{
    unsigned p = (env->fpstt + i) & 7;

    env->fpregs[p] = *v;
    env->fptags[p] = 0;
}

static inline void x87_push(CPUX86State *env, const X86FPReg *v)
{
    env->fpstt = (env->fpstt - 1) & 7;
    x87_set(env, 0, v);
}

static inline void x87_pop(CPUX86State *env)
{
    env->fptags[env->fpstt] = 1;
    env->fpstt = (env->fpstt + 1) & 7;
}

/*
 * Start an x87 instruction: #NM under CR0.EM or CR0.TS, #MF for a
 * pending unmasked exception (waiting forms), FOP/FIP/FDP (non-control).
 */
void x87_begin(CPUX86State *env, const Insn *in);
/*
 * Raise exception flags ex: ES and B follow the unmasked ones. True
 * when an unmasked invalid, denormal or zero-divide fault stops the
 * instruction before it changes registers.
 */
bool x87_raise(CPUX86State *env, uint16_t ex);
/* Stack underflow / overflow: IE|SF, C1. True when masked (go on). */
bool x87_underflow(CPUX86State *env);
bool x87_overflow(CPUX86State *env);
#define X87_CC      (FPUS_C0 | FPUS_C1 | FPUS_C2 | FPUS_C3)

/* Take the condition codes in mask from a host FSW. */
static inline void x87_codes(CPUX86State *env, uint16_t sw, uint16_t mask)
{
    env->fpus = (env->fpus & ~mask) | (sw & mask);
}

/* The full tag word (2 bits per physical register) from the contents. */
uint16_t x87_full_tags(CPUX86State *env);

/* Handlers for the decoder's tables (fpu-x87.c, fpu-x87-ctl.c). */
uintptr_t x87_op_arith_m(CPUX86State *env, const Insn *in);
uintptr_t x87_op_arith_r(CPUX86State *env, const Insn *in);
uintptr_t x87_op_com_m(CPUX86State *env, const Insn *in);
uintptr_t x87_op_com_r(CPUX86State *env, const Insn *in);
uintptr_t x87_op_ld_m(CPUX86State *env, const Insn *in);
uintptr_t x87_op_ld_r(CPUX86State *env, const Insn *in);
uintptr_t x87_op_st_m(CPUX86State *env, const Insn *in);
uintptr_t x87_op_st_r(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fxch(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fcmov(CPUX86State *env, const Insn *in);
uintptr_t x87_op_chs_abs(CPUX86State *env, const Insn *in);
uintptr_t x87_op_host(CPUX86State *env, const Insn *in);
uintptr_t x87_op_ffree(CPUX86State *env, const Insn *in);
uintptr_t x87_op_incdecstp(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnop(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fninit(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnclex(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnstsw(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnstsw_ax(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnstcw(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fldcw(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnstenv(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fldenv(CPUX86State *env, const Insn *in);
uintptr_t x87_op_fnsave(CPUX86State *env, const Insn *in);
uintptr_t x87_op_frstor(CPUX86State *env, const Insn *in);

/* fwait (9b), decoded in decode.c. */
uintptr_t x87_op_fwait(CPUX86State *env, const Insn *in);

#endif
