/*
 * The vector instructions (MMX, SSE .. SSE4.2) of the software CPU:
 * what the decoder table (decode-vec.c) and the handler families
 * (ops-sse*.c) share.
 *
 * Every vector instruction is one VecOp: its opcode (map, byte,
 * mandatory-prefix class, a modrm.reg digit for groups), the CPUID
 * feature that gates it, where its two modrm operands live (XMM, MMX or
 * a general register), the size and alignment of its memory operand,
 * and a kernel. A kernel is the register form: it computes d from d and
 * s. The memory form is a generic load of the operand into a temporary
 * followed by the same kernel (stores: the kernel into a temporary,
 * then a generic store), so a new instruction is one table entry and
 * one kernel. Opcode maps: Intel SDM vol. 2, appendix A.
 */
#ifndef TARGET_I386_TCG_VEC_H
#define TARGET_I386_TCG_VEC_H

#include "target/i386/tcg/decode.h"

/* Opcode maps (VecOp.map). */
enum { VM_0F, VM_0F38, VM_0F3A, VM_NUM };

/* Mandatory-prefix classes (VecOp.pfx): F2 and F3 win over 66. */
enum { VP_NONE, VP_66, VP_F3, VP_F2, VP_NUM };

/* Register files of the operands (VecOp.reg, VecOp.rm). */
enum { VR_XMM, VR_MMX, VR_GPR };

/* Insn.rm of a memory form: the operand is the loaded temporary. */
#define VREG_TMP        255

/* VecOp.flags. The memory operand's size is VF_MSZ(log2 bytes). */
#define VF_MSZ(l)       ((l) & 7u)
#define VF_MSZ_OF(f)    ((f) & 7u)
#define VF_M1           VF_MSZ(0)
#define VF_M2           VF_MSZ(1)
#define VF_M4           VF_MSZ(2)
#define VF_M8           VF_MSZ(3)
#define VF_M16          VF_MSZ(4)
#define VF_ALIGN        0x0008u /* 16-byte memory operands: #GP unaligned */
#define VF_IMM8         0x0010u /* an imm8 follows (Insn.imm) */
#define VF_RMDST        0x0020u /* the rm operand is the destination */
#define VF_NOMEM        0x0040u /* register form only */
#define VF_NOREG        0x0080u /* memory form only */
#define VF_W            0x0100u /* REX.W: 64-bit general register (and
                                 * memory, when rm is one) */
#define VF_GRP          0x0200u /* VecOp.digit matches modrm.reg */
#define VF_OSZ          0x0400u /* Insn.aux2 is the operand size (66, W) */
#define VF_RO           0x0800u /* the destination is only read (ptest,
                                 * comiss): nothing is written back */
#define VF_NOMODRM      0x1000u /* no modrm byte (emms) */
#define VF_IMPLICIT     0x2000u /* a DS:rDI operand (maskmov*) */
#define VF_BYTE         0x4000u /* rm is an 8-bit register (AH..BH) */
#define VF_AMOV         0x8000u /* an explicitly aligned move: #GP even in
                                 * AMD's misaligned-SSE mode (MXCSR.MM) */
/* Aligned 128-bit memory operand, the legacy SSE default. */
#define VF_A16          (VF_M16 | VF_ALIGN)

/*
 * A kernel: d = op(d, s). Insn.aux2 is the vector width in bytes (8 for
 * MMX forms, 16 for XMM) or, with VF_W/VF_OSZ, the general register's
 * operand size (OT_*); Insn.imm the imm8, Insn.aux modrm.reg's digit.
 * General registers and MMX registers arrive as q[0] of a temporary
 * (the rest zero) and go back from q[0]. A kernel may raise an
 * exception (#XM) before it writes d.
 */
typedef void VecKern(CPUX86State *env, X86XMMReg *d, const X86XMMReg *s,
                     const Insn *in);

/* The definition of kernel name. */
#define VK(name)                                                         \
    static void name(CPUX86State *env, X86XMMReg *d, const X86XMMReg *s, \
                     const Insn *in)

typedef struct VecOp {
    uint8_t map, op, pfx, digit;
    uint8_t reg, rm;            /* VR_* of modrm.reg and modrm.rm */
    uint16_t flags;             /* VF_* */
    uint32_t feat;              /* ISA_* that gates it */
    VecKern *kern;              /* register form (and memory form) */
    VecKern *kern_m;            /* memory form, where it differs */
    InsnFn fn;                  /* a handler of its own (fxsave ...) */
} VecOp;

/* A table ends with VEC_END. */
#define VEC_END         { .map = VM_NUM }

/* The families' tables (ops-sse-*.c). */
extern const VecOp x86_vec_mov_ops[];
extern const VecOp x86_vec_int_ops[];
extern const VecOp x86_vec_float_ops[];
extern const VecOp x86_vec_ssse3_ops[];
extern const VecOp x86_vec_sse4_ops[];
extern const VecOp x86_vec_state_ops[];
extern const VecOp x86_vec_aes_ops[];

/* The entry of a decoded instruction (Insn.imm2 indexes it). */
extern const VecOp *x86_vec_op_index[];

static inline const VecOp *vec_op(const Insn *in)
{
    return x86_vec_op_index[in->imm2];
}

/* The generic handlers the decoder picks (ops-sse.c). */
uintptr_t x86_vec_xx(CPUX86State *env, const Insn *in);   /* xmm, xmm */
uintptr_t x86_vec_xm(CPUX86State *env, const Insn *in);   /* xmm, mem */
uintptr_t x86_vec_gen(CPUX86State *env, const Insn *in);  /* the rest */

/* CR0.EM/TS and CR4.OSFXSR checks (#UD, #NM) of SSE and MMX forms. */
G_NORETURN void x86_vec_fault(CPUX86State *env, bool mmx);

static inline void vec_check_sse(CPUX86State *env)
{
    if (G_UNLIKELY((env->cr[0] & (CR0_EM_MASK | CR0_TS_MASK)) |
                   (~env->cr[4] & CR4_OSFXSR_MASK))) {
        x86_vec_fault(env, false);
    }
}

static inline void vec_check_mmx(CPUX86State *env)
{
    if (G_UNLIKELY(env->cr[0] & (CR0_EM_MASK | CR0_TS_MASK))) {
        x86_vec_fault(env, true);
    }
}

/* Any MMX instruction but emms: TOP = 0, all tags valid. */
static inline void vec_mmx_enter(CPUX86State *env)
{
    env->fpstt = 0;
    memset(env->fptags, 0, sizeof(env->fptags));
}

/* Writing MMX register n: bits 79..64 become all ones. */
static inline void vec_mmx_write(CPUX86State *env, unsigned n, uint64_t v)
{
    env->fpregs[n].mant = v;
    env->fpregs[n].sexp = 0xffff;
}

/*
 * Run host SSE code under the guest's MXCSR (ops-sse-float.c): the
 * guest's rounding, DAZ and FTZ with every exception masked; the flags
 * the host raised come back. vec_fp_done() adds them to the guest's
 * MXCSR and raises #XM (CR4.OSXMMEXCPT) or #UD when one is unmasked, so
 * the caller commits its result only when it returns.
 */
static inline uint32_t vec_fp_mxcsr(CPUX86State *env)
{
    return (env->mxcsr | 0x1f80u) & 0xffc0u;
}

/* AMD's misaligned-SSE mode: no #GP for misaligned 16-byte operands. */
#define MXCSR_MM        (1u << 17)

/* The MXCSR bits ldmxcsr takes (vendor.h; fxrstor: fpu-state.c). */
static inline uint32_t vec_mxcsr_mask(CPUX86State *env)
{
    return env->cpu && env->cpu->vendor ? env->cpu->vendor->fxsave_mxcsr_mask
                                        : MXCSR_MASK;
}

void x86_vec_fp_done(CPUX86State *env, uint32_t host_out);

#endif
