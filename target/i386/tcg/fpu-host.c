/*
 * The host's x87 running one guest operation (fpu-x87.h). The host is
 * x86-64, so its x87 is the guest's: each function loads the operands
 * into the host's register stack, runs the very instruction the guest
 * asked for under the guest's FCW (precision control, rounding control
 * and exception masks), reads the host's FSW and takes the results
 * back. So every result is the host's, bit for bit, including NaN
 * propagation, denormals, pseudo-denormals, unnormals, the biased
 * results of unmasked overflow and underflow, and the transcendentals.
 *
 * Each operation is one asm statement that leaves the host's x87 as it
 * found it: empty stack, the host's FCW. The operands are loaded with
 * fldt (80-bit loads raise nothing) under the host's FCW; then fldenv
 * puts in the guest's FCW and condition codes with no exception flag
 * set (TOP and the tags say where the operands are), so the operation
 * sees the guest's C0..C3 and what it leaves in them, also after an
 * unmasked fault, is the processor's. fnclex right after the operation
 * keeps any waiting instruction from seeing an exception pending; the
 * results are stored under the host's FCW; fninit empties the stack.
 */
#include "target/i386/tcg/fpu-x87.h"

#define X87_CLOBBERS \
    "memory", "st", "st(1)", "st(2)", "st(3)", "st(4)", "st(5)", "st(6)", \
    "st(7)"

#define ENTER   "fnstcw %[save]\n\t"
#define GO      "fldenv %[env]\n\t"
#define LEAVE   "fnstsw %[sw]\n\tfnclex\n\tfldcw %[save]\n\t"
#define DONE    "fninit\n\tfldcw %[save]"

typedef struct { uint8_t b[10]; } X87M80;

/* A 32-bit protected-mode environment image. */
typedef struct HostEnv {
    uint32_t w[7];
} HostEnv;

/*
 * The guest's FCW and condition codes, nregs operands on the stack
 * (ST(0) in physical register 8 - nregs), the rest empty.
 */
static HostEnv host_env(uint16_t fcw, uint16_t fsw, unsigned nregs)
{
    unsigned top = (8 - nregs) & 7;
    HostEnv e = { { fcw, (fsw & 0x4700u) | top << 11, 0xffff } };

    for (unsigned p = top; nregs && p < 8; p++) {
        e.w[2] &= ~(3u << (2 * p));
    }
    return e;
}

/* dst = dst op src; src an x87 register or memory of type T. */
#define HOST_ARITH_ST(name, insn)                                          \
static uint16_t name(X86FPReg *dst, const void *src, const HostEnv *env)  \
{                                                                          \
    const X86FPReg *s = src;                                               \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[s]\n\tfldt %[d]\n\t"                      \
                     GO insn " %%st(1), %%st\n\t" LEAVE "fstpt %[d]\n\t" DONE \
                     : [d] "+m" (*dst), [sw] "=m" (sw), [save] "=m" (save) \
                     : [s] "m" (*s), [env] "m" (*env)                       \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

#define HOST_ARITH_M(name, insn, T)                                        \
static uint16_t name(X86FPReg *dst, const void *src, const HostEnv *env)  \
{                                                                          \
    const T *s = src;                                                      \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[d]\n\t"                                   \
                     GO insn " %[s]\n\t" LEAVE "fstpt %[d]\n\t" DONE          \
                     : [d] "+m" (*dst), [sw] "=m" (sw), [save] "=m" (save) \
                     : [s] "m" (*s), [env] "m" (*env)                       \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

/* The five forms of one operation; i is its name after "fi". */
#define HOST_ARITH_SET(op, i)                                              \
    HOST_ARITH_ST(op##_st, #op)                                            \
    HOST_ARITH_M(op##_f32, #op "s", uint32_t)                              \
    HOST_ARITH_M(op##_f64, #op "l", uint64_t)                              \
    HOST_ARITH_M(op##_i16, "fi" i "s", uint16_t)                           \
    HOST_ARITH_M(op##_i32, "fi" i "l", uint32_t)

HOST_ARITH_SET(fadd, "add")
HOST_ARITH_SET(fmul, "mul")
HOST_ARITH_SET(fsub, "sub")
HOST_ARITH_SET(fsubr, "subr")
HOST_ARITH_SET(fdiv, "div")
HOST_ARITH_SET(fdivr, "divr")

typedef uint16_t HostArithFn(X86FPReg *dst, const void *src,
                             const HostEnv *env);

#define ARITH_ROW(op) \
    { [X87_FMT_ST] = op##_st, [X87_FMT_F32] = op##_f32, \
      [X87_FMT_F64] = op##_f64, [X87_FMT_I16] = op##_i16, \
      [X87_FMT_I32] = op##_i32 }

static HostArithFn *const arith_fn[8][X87_FMT_NUM] = {
    [X87_OP_ADD] = ARITH_ROW(fadd),
    [X87_OP_MUL] = ARITH_ROW(fmul),
    [X87_OP_SUB] = ARITH_ROW(fsub),
    [X87_OP_SUBR] = ARITH_ROW(fsubr),
    [X87_OP_DIV] = ARITH_ROW(fdiv),
    [X87_OP_DIVR] = ARITH_ROW(fdivr),
};

uint16_t x87_host_arith(unsigned op, X86FPReg *dst, const void *src,
                        unsigned fmt, uint16_t fcw, uint16_t fsw)
{
    HostEnv e = host_env(fcw, fsw, fmt == X87_FMT_ST ? 2 : 1);

    return arith_fn[op][fmt](dst, src, &e);
}

/* Compares: a against b (a register or memory of type T). */
#define HOST_CMP_ST(name, insn)                                            \
static uint16_t name(const X86FPReg *a, const void *b, const HostEnv *env) \
{                                                                          \
    const X86FPReg *s = b;                                                 \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[s]\n\tfldt %[a]\n\t"                      \
                     GO insn "\n\t" LEAVE DONE                                \
                     : [sw] "=m" (sw), [save] "=m" (save)                  \
                     : [a] "m" (*a), [s] "m" (*s), [env] "m" (*env)         \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

#define HOST_CMP_M(name, insn, T)                                          \
static uint16_t name(const X86FPReg *a, const void *b, const HostEnv *env) \
{                                                                          \
    const T *s = b;                                                        \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[a]\n\t"                                   \
                     GO insn " %[s]\n\t" LEAVE DONE                           \
                     : [sw] "=m" (sw), [save] "=m" (save)                  \
                     : [a] "m" (*a), [s] "m" (*s), [env] "m" (*env)         \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

HOST_CMP_ST(fcom_st, "fcom %%st(1)")
HOST_CMP_ST(fucom_st, "fucom %%st(1)")
HOST_CMP_ST(ftst_st, "ftst")
HOST_CMP_M(fcom_f32, "fcoms", uint32_t)
HOST_CMP_M(fcom_f64, "fcoml", uint64_t)
HOST_CMP_M(fcom_i16, "ficoms", uint16_t)
HOST_CMP_M(fcom_i32, "ficoml", uint32_t)

uint16_t x87_host_compare(unsigned kind, const X86FPReg *a, const void *b,
                          unsigned fmt, uint16_t fcw, uint16_t fsw)
{
    static const X86FPReg zero;
    HostEnv e2 = host_env(fcw, fsw, 2), e1 = host_env(fcw, fsw, 1);

    switch (kind) {
    case X87_CMP_UCOM:
        return fucom_st(a, b, &e2);
    case X87_CMP_TST:
        return ftst_st(a, &zero, &e2);
    default:
        break;
    }
    switch (fmt) {
    case X87_FMT_F32:
        return fcom_f32(a, b, &e1);
    case X87_FMT_F64:
        return fcom_f64(a, b, &e1);
    case X87_FMT_I16:
        return fcom_i16(a, b, &e1);
    case X87_FMT_I32:
        return fcom_i32(a, b, &e1);
    default:
        return fcom_st(a, b, &e2);
    }
}

/* Loads: a memory format to the 80-bit format. */
#define HOST_LOAD(name, insn, T)                                           \
static uint16_t name(X86FPReg *out, const void *src, const HostEnv *env)  \
{                                                                          \
    const T *s = src;                                                      \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER GO insn " %[s]\n\t" LEAVE "fstpt %[o]\n\t" DONE    \
                     : [o] "=m" (*out), [sw] "=m" (sw), [save] "=m" (save) \
                     : [s] "m" (*s), [env] "m" (*env)                       \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

HOST_LOAD(load_f32, "flds", uint32_t)
HOST_LOAD(load_f64, "fldl", uint64_t)
HOST_LOAD(load_i16, "filds", uint16_t)
HOST_LOAD(load_i32, "fildl", uint32_t)
HOST_LOAD(load_i64, "fildll", uint64_t)
HOST_LOAD(load_bcd, "fbld", X87M80)

typedef uint16_t HostLoadFn(X86FPReg *out, const void *src,
                            const HostEnv *env);

static HostLoadFn *const load_fn[X87_FMT_NUM] = {
    [X87_FMT_F32] = load_f32, [X87_FMT_F64] = load_f64,
    [X87_FMT_I16] = load_i16, [X87_FMT_I32] = load_i32,
    [X87_FMT_I64] = load_i64, [X87_FMT_BCD] = load_bcd,
};

uint16_t x87_host_load(X86FPReg *out, const void *src, unsigned fmt,
                       uint16_t fcw, uint16_t fsw)
{
    HostEnv e = host_env(fcw, fsw, 0);

    return load_fn[fmt](out, src, &e);
}

/* Stores: the 80-bit format to a memory format. */
#define HOST_STORE(name, insn, T)                                          \
static uint16_t name(void *dst, const X86FPReg *in, const HostEnv *env)   \
{                                                                          \
    T *d = dst;                                                            \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[i]\n\t" GO insn " %[d]\n\t"      \
                     LEAVE DONE                                            \
                     : [d] "+m" (*d), [sw] "=m" (sw), [save] "=m" (save)   \
                     : [i] "m" (*in), [env] "m" (*env)                      \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

HOST_STORE(store_f32, "fstps", uint32_t)
HOST_STORE(store_f64, "fstpl", uint64_t)
HOST_STORE(store_i16, "fistps", uint16_t)
HOST_STORE(store_i32, "fistpl", uint32_t)
HOST_STORE(store_i64, "fistpll", uint64_t)
HOST_STORE(store_bcd, "fbstp", X87M80)
HOST_STORE(trunc_i16, "fisttps", uint16_t)
HOST_STORE(trunc_i32, "fisttpl", uint32_t)
HOST_STORE(trunc_i64, "fisttpll", uint64_t)

typedef uint16_t HostStoreFn(void *dst, const X86FPReg *in,
                             const HostEnv *env);

static HostStoreFn *const store_fn[2][X87_FMT_NUM] = {
    {
        [X87_FMT_F32] = store_f32, [X87_FMT_F64] = store_f64,
        [X87_FMT_I16] = store_i16, [X87_FMT_I32] = store_i32,
        [X87_FMT_I64] = store_i64, [X87_FMT_BCD] = store_bcd,
    }, {
        [X87_FMT_I16] = trunc_i16, [X87_FMT_I32] = trunc_i32,
        [X87_FMT_I64] = trunc_i64,
    },
};

uint16_t x87_host_store(void *dst, const X86FPReg *in, unsigned fmt,
                        bool trunc, uint16_t fcw, uint16_t fsw)
{
    HostEnv e = host_env(fcw, fsw, 1);

    return store_fn[trunc][fmt](dst, in, &e);
}

/* One instruction on ST(0) = in[0], ST(1) = in[1]. */
#define HOST_OP(name, insn)                                                \
static uint16_t name(X86FPReg *out, const X86FPReg *in, const HostEnv *env) \
{                                                                          \
    uint16_t sw, save;                                                     \
                                                                           \
    __asm__ volatile(ENTER "fldt %[i1]\n\tfldt %[i0]\n\t"                    \
                     GO insn "\n\t" LEAVE                                     \
                     "fstpt %[o0]\n\tfstpt %[o1]\n\t" DONE                 \
                     : [o0] "=m" (out[0]), [o1] "=m" (out[1]),             \
                       [sw] "=m" (sw), [save] "=m" (save)                  \
                     : [i0] "m" (in[0]), [i1] "m" (in[1]), [env] "m" (*env) \
                     : X87_CLOBBERS);                                      \
    return sw;                                                             \
}

HOST_OP(op_f2xm1, "f2xm1")
HOST_OP(op_fyl2x, "fyl2x")
HOST_OP(op_fptan, "fptan")
HOST_OP(op_fpatan, "fpatan")
HOST_OP(op_fxtract, "fxtract")
HOST_OP(op_fprem1, "fprem1")
HOST_OP(op_fprem, "fprem")
HOST_OP(op_fyl2xp1, "fyl2xp1")
HOST_OP(op_fsqrt, "fsqrt")
HOST_OP(op_fsincos, "fsincos")
HOST_OP(op_frndint, "frndint")
HOST_OP(op_fscale, "fscale")
HOST_OP(op_fsin, "fsin")
HOST_OP(op_fcos, "fcos")
HOST_OP(op_fxam, "fxam")
HOST_OP(op_fld1, "fld1")
HOST_OP(op_fldl2t, "fldl2t")
HOST_OP(op_fldl2e, "fldl2e")
HOST_OP(op_fldpi, "fldpi")
HOST_OP(op_fldlg2, "fldlg2")
HOST_OP(op_fldln2, "fldln2")
HOST_OP(op_fldz, "fldz")

typedef uint16_t HostOpFn(X86FPReg *out, const X86FPReg *in,
                          const HostEnv *env);

static HostOpFn *const op_fn[X87_H_NUM] = {
    [X87_H_F2XM1] = op_f2xm1, [X87_H_FYL2X] = op_fyl2x,
    [X87_H_FPTAN] = op_fptan, [X87_H_FPATAN] = op_fpatan,
    [X87_H_FXTRACT] = op_fxtract, [X87_H_FPREM1] = op_fprem1,
    [X87_H_FPREM] = op_fprem, [X87_H_FYL2XP1] = op_fyl2xp1,
    [X87_H_FSQRT] = op_fsqrt, [X87_H_FSINCOS] = op_fsincos,
    [X87_H_FRNDINT] = op_frndint, [X87_H_FSCALE] = op_fscale,
    [X87_H_FSIN] = op_fsin, [X87_H_FCOS] = op_fcos,
    [X87_H_FXAM] = op_fxam, [X87_H_FLD1] = op_fld1,
    [X87_H_FLDL2T] = op_fldl2t, [X87_H_FLDL2E] = op_fldl2e,
    [X87_H_FLDPI] = op_fldpi, [X87_H_FLDLG2] = op_fldlg2,
    [X87_H_FLDLN2] = op_fldln2, [X87_H_FLDZ] = op_fldz,
};

uint16_t x87_host_op(unsigned op, X86FPReg out[2], const X86FPReg in[2],
                     uint16_t fcw, uint16_t fsw)
{
    HostEnv e = host_env(fcw, fsw, 2);

    return op_fn[op](out, in, &e);
}
