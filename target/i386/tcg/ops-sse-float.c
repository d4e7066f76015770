/*
 * SSE/SSE2/SSE3/SSE4.1 floating point: arithmetic, compares, min/max,
 * square roots and reciprocals, conversions in every form, rounding.
 *
 * The host is x86-64 with the same instructions, so each kernel runs
 * the host's own instruction with the guest's MXCSR loaded (rounding,
 * DAZ, FTZ; every exception masked) and takes the flags it raised back
 * into the guest's MXCSR (vec.h: x86_vec_fp_done(), which raises #XM or
 * #UD before anything is written when the guest left one unmasked).
 * Results, NaN payloads and flags are then the host's bit for bit; the
 * differential test (tests/unit/tcg-diff-gen-sse.c) holds them to it.
 * The approximations rcpps/rsqrtps are the host's too (AMD and Intel
 * differ there, as real processors do).
 *
 * MMX operands never reach a host MMX register (that would switch the
 * host's x87 unit into MMX mode): they ride in the low half of an XMM
 * register, converted with the packed dword forms.
 */
#include "target/i386/tcg/vec.h"

typedef float VecF __attribute__((vector_size(16)));

/*
 * Run `code src, dst` (AT&T order) on r and b under the guest's MXCSR
 * g; o receives the MXCSR after it, h is the host's to restore.
 */
#define FP_ASM(code)                                                     \
    asm volatile("ldmxcsr %[g]\n\t" code " %[b], %[r]\n\t"               \
                 "stmxcsr %[o]\n\tldmxcsr %[h]"                          \
                 : [r] "+x"(r), [o] "=m"(o)                              \
                 : [b] "x"(b), [g] "m"(g), [h] "m"(h))

#define FP_BEGIN(dv, sv)                                                 \
    VecF r, b;                                                           \
    uint32_t g = vec_fp_mxcsr(env), h, o = 0;                            \
    memcpy(&r, dv, 16);                                                  \
    memcpy(&b, sv, 16);                                                  \
    asm volatile("stmxcsr %0" : "=m"(h))

/* d = op(d, s), whole register (packed, scalar with merge). */
#define FP_XX(name, code)                                                \
    VK(name)                                                             \
    {                                                                    \
        FP_BEGIN(d, s);                                                  \
        FP_ASM(code);                                                    \
        x86_vec_fp_done(env, o);                                         \
        memcpy(d, &r, 16);                                               \
    }

FP_XX(k_addps, "addps")
FP_XX(k_addpd, "addpd")
FP_XX(k_addss, "addss")
FP_XX(k_addsd, "addsd")
FP_XX(k_subps, "subps")
FP_XX(k_subpd, "subpd")
FP_XX(k_subss, "subss")
FP_XX(k_subsd, "subsd")
FP_XX(k_mulps, "mulps")
FP_XX(k_mulpd, "mulpd")
FP_XX(k_mulss, "mulss")
FP_XX(k_mulsd, "mulsd")
FP_XX(k_divps, "divps")
FP_XX(k_divpd, "divpd")
FP_XX(k_divss, "divss")
FP_XX(k_divsd, "divsd")
FP_XX(k_minps, "minps")
FP_XX(k_minpd, "minpd")
FP_XX(k_minss, "minss")
FP_XX(k_minsd, "minsd")
FP_XX(k_maxps, "maxps")
FP_XX(k_maxpd, "maxpd")
FP_XX(k_maxss, "maxss")
FP_XX(k_maxsd, "maxsd")
FP_XX(k_sqrtps, "sqrtps")
FP_XX(k_sqrtpd, "sqrtpd")
FP_XX(k_sqrtss, "sqrtss")
FP_XX(k_sqrtsd, "sqrtsd")
FP_XX(k_rsqrtps, "rsqrtps")
FP_XX(k_rsqrtss, "rsqrtss")
FP_XX(k_rcpps, "rcpps")
FP_XX(k_rcpss, "rcpss")
FP_XX(k_andps, "andps")
FP_XX(k_andnps, "andnps")
FP_XX(k_orps, "orps")
FP_XX(k_xorps, "xorps")
FP_XX(k_unpcklps, "unpcklps")
FP_XX(k_unpckhps, "unpckhps")
FP_XX(k_unpcklpd, "unpcklpd")
FP_XX(k_unpckhpd, "unpckhpd")
FP_XX(k_cvtps2pd, "cvtps2pd")
FP_XX(k_cvtpd2ps, "cvtpd2ps")
FP_XX(k_cvtss2sd, "cvtss2sd")
FP_XX(k_cvtsd2ss, "cvtsd2ss")
FP_XX(k_cvtdq2ps, "cvtdq2ps")
FP_XX(k_cvtps2dq, "cvtps2dq")
FP_XX(k_cvttps2dq, "cvttps2dq")
FP_XX(k_cvttpd2dq, "cvttpd2dq")
FP_XX(k_cvtdq2pd, "cvtdq2pd")
FP_XX(k_cvtpd2dq, "cvtpd2dq")
FP_XX(k_cvtpi2pd, "cvtdq2pd")
FP_XX(k_haddps, "haddps")
FP_XX(k_haddpd, "haddpd")
FP_XX(k_hsubps, "hsubps")
FP_XX(k_hsubpd, "hsubpd")
FP_XX(k_addsubps, "addsubps")
FP_XX(k_addsubpd, "addsubpd")

/*
 * The low 64 bits of d from op on the low 64 bits of s (the rest of the
 * source zero, which converts exactly): the MMX conversions.
 */
#define FP_LOW(name, code)                                               \
    VK(name)                                                             \
    {                                                                    \
        X86XMMReg lo = { .q = { s->q[0], 0 } };                          \
        FP_BEGIN(d, &lo);                                                \
        FP_ASM(code);                                                    \
        x86_vec_fp_done(env, o);                                         \
        memcpy(&d->q[0], &r, 8);                                         \
    }

FP_LOW(k_cvtpi2ps, "cvtdq2ps")
FP_LOW(k_cvtps2pi, "cvtps2dq")
FP_LOW(k_cvttps2pi, "cvttps2dq")

/* cvtpd2pi/cvttpd2pi: both doubles of s into the MMX register d. */
#define FP_PD2PI(name, code)                                             \
    VK(name)                                                             \
    {                                                                    \
        FP_BEGIN(d, s);                                                  \
        FP_ASM(code);                                                    \
        x86_vec_fp_done(env, o);                                         \
        memcpy(&d->q[0], &r, 8);                                         \
    }

FP_PD2PI(k_cvtpd2pi, "cvtpd2dq")
FP_PD2PI(k_cvttpd2pi, "cvttpd2dq")

/* Compares and rounding: the predicate or mode is part of the opcode. */
#define FP_CASE(code, i)                                                 \
    case i:                                                              \
        FP_ASM(code " $" #i ",");                                        \
        break;
#define FP_CASES8(code)                                                  \
    FP_CASE(code, 0) FP_CASE(code, 1) FP_CASE(code, 2) FP_CASE(code, 3)  \
    FP_CASE(code, 4) FP_CASE(code, 5) FP_CASE(code, 6) FP_CASE(code, 7)
#define FP_CASES16(code)                                                 \
    FP_CASES8(code)                                                      \
    FP_CASE(code, 8) FP_CASE(code, 9) FP_CASE(code, 10)                  \
    FP_CASE(code, 11) FP_CASE(code, 12) FP_CASE(code, 13)                \
    FP_CASE(code, 14) FP_CASE(code, 15)
#define FP_IMM(name, code, cases, mask)                                  \
    VK(name)                                                             \
    {                                                                    \
        FP_BEGIN(d, s);                                                  \
        switch (in->imm & (mask)) {                                      \
        cases(code)                                                      \
        }                                                                \
        x86_vec_fp_done(env, o);                                         \
        memcpy(d, &r, 16);                                               \
    }

FP_IMM(k_cmpps, "cmpps", FP_CASES8, 7)
FP_IMM(k_cmppd, "cmppd", FP_CASES8, 7)
FP_IMM(k_cmpss, "cmpss", FP_CASES8, 7)
FP_IMM(k_cmpsd, "cmpsd", FP_CASES8, 7)
FP_IMM(k_roundps, "roundps", FP_CASES16, 15)
FP_IMM(k_roundpd, "roundpd", FP_CASES16, 15)
FP_IMM(k_roundss, "roundss", FP_CASES16, 15)
FP_IMM(k_roundsd, "roundsd", FP_CASES16, 15)

/* cvtsi2ss/cvtsi2sd: from a 32- or 64-bit integer (Insn.aux2). */
#define FP_FROM_INT(name, code)                                          \
    VK(name)                                                             \
    {                                                                    \
        FP_BEGIN(d, d);                                                  \
        (void)b;                                                         \
        if (in->aux2 == OT_Q) {                                          \
            asm volatile("ldmxcsr %[g]\n\t" code "q %[x], %[r]\n\t"      \
                         "stmxcsr %[o]\n\tldmxcsr %[h]"                  \
                         : [r] "+x"(r), [o] "=m"(o)                      \
                         : [x] "r"(s->q[0]), [g] "m"(g), [h] "m"(h));    \
        } else {                                                         \
            asm volatile("ldmxcsr %[g]\n\t" code "l %[x], %[r]\n\t"      \
                         "stmxcsr %[o]\n\tldmxcsr %[h]"                  \
                         : [r] "+x"(r), [o] "=m"(o)                      \
                         : [x] "r"(s->l[0]), [g] "m"(g), [h] "m"(h));    \
        }                                                                \
        x86_vec_fp_done(env, o);                                         \
        memcpy(d, &r, 16);                                               \
    }

FP_FROM_INT(k_cvtsi2ss, "cvtsi2ss")
FP_FROM_INT(k_cvtsi2sd, "cvtsi2sd")

/* cvt(t)ss2si/cvt(t)sd2si: to a 32- or 64-bit integer register. */
#define FP_TO_INT(name, code)                                            \
    VK(name)                                                             \
    {                                                                    \
        VecF b;                                                          \
        uint32_t g = vec_fp_mxcsr(env), h, o = 0;                        \
        uint64_t x = 0;                                                  \
        uint32_t x32 = 0;                                                \
                                                                         \
        memcpy(&b, s, 16);                                               \
        asm volatile("stmxcsr %0" : "=m"(h));                            \
        if (in->aux2 == OT_Q) {                                          \
            asm volatile("ldmxcsr %[g]\n\t" code " %[b], %[x]\n\t"       \
                         "stmxcsr %[o]\n\tldmxcsr %[h]"                  \
                         : [x] "=r"(x), [o] "=m"(o)                      \
                         : [b] "x"(b), [g] "m"(g), [h] "m"(h));          \
        } else {                                                         \
            asm volatile("ldmxcsr %[g]\n\t" code " %[b], %[x]\n\t"       \
                         "stmxcsr %[o]\n\tldmxcsr %[h]"                  \
                         : [x] "=r"(x32), [o] "=m"(o)                    \
                         : [b] "x"(b), [g] "m"(g), [h] "m"(h));          \
            x = x32;                                                     \
        }                                                                \
        x86_vec_fp_done(env, o);                                         \
        d->q[0] = x;                                                     \
    }

FP_TO_INT(k_cvtss2si, "cvtss2si")
FP_TO_INT(k_cvttss2si, "cvttss2si")
FP_TO_INT(k_cvtsd2si, "cvtsd2si")
FP_TO_INT(k_cvttsd2si, "cvttsd2si")

/* comiss & co: ZF, PF, CF from the compare; OF, SF, AF clear. */
#define FP_COMI(name, code)                                              \
    VK(name)                                                             \
    {                                                                    \
        uint8_t z, p, c;                                                 \
        FP_BEGIN(d, s);                                                  \
        asm volatile("ldmxcsr %[g]\n\t" code " %[b], %[r]\n\t"           \
                     "setz %[z]\n\tsetp %[p]\n\tsetc %[c]\n\t"           \
                     "stmxcsr %[o]\n\tldmxcsr %[h]"                      \
                     : [z] "=&q"(z), [p] "=&q"(p), [c] "=&q"(c),         \
                       [o] "=m"(o)                                       \
                     : [r] "x"(r), [b] "x"(b), [g] "m"(g), [h] "m"(h)    \
                     : "cc");                                            \
        x86_vec_fp_done(env, o);                                         \
        x86_set_eflags(env, (z ? CC_Z : 0) | (p ? CC_P : 0) |            \
                       (c ? CC_C : 0), CC_MASK);                         \
    }

FP_COMI(k_comiss, "comiss")
FP_COMI(k_ucomiss, "ucomiss")
FP_COMI(k_comisd, "comisd")
FP_COMI(k_ucomisd, "ucomisd")

/* a + b (size 4: single, 8: double) under the guest's MXCSR g; the
 * flags are the caller's. */
static uint64_t dp_add(uint64_t a, uint64_t b, unsigned size, uint32_t g,
                       uint32_t h)
{
    VecF x = { 0 }, y = { 0 };
    uint64_t out = 0;

    memcpy(&x, &a, size);
    memcpy(&y, &b, size);
    if (size == 4) {
        asm volatile("ldmxcsr %[g]\n\taddss %[y], %[x]\n\tldmxcsr %[h]"
                     : [x] "+x"(x) : [y] "x"(y), [g] "m"(g), [h] "m"(h));
    } else {
        asm volatile("ldmxcsr %[g]\n\taddsd %[y], %[x]\n\tldmxcsr %[h]"
                     : [x] "+x"(x) : [y] "x"(y), [g] "m"(g), [h] "m"(h));
    }
    memcpy(&out, &x, size);
    return out;
}

/*
 * The sum for destination lane j where the vendor sums per lane
 * (vendor.h): the operand order, which picks the NaN when there are
 * several, as an Intel Xeon (family 6 model 0xa0678) does it, found by
 * running dpps/dppd on NaNs of distinct payloads.
 */
static uint32_t dpps_lane(const uint32_t p[4], unsigned j, uint32_t g,
                          uint32_t h)
{
    uint32_t s01 = j & 1 ? dp_add(p[0], p[1], 4, g, h)
                         : dp_add(p[1], p[0], 4, g, h);
    uint32_t s23 = j & 1 ? dp_add(p[2], p[3], 4, g, h)
                         : dp_add(p[3], p[2], 4, g, h);

    return j < 2 ? dp_add(s01, s23, 4, g, h) : dp_add(s23, s01, 4, g, h);
}

static void dp_per_lane(X86XMMReg *d, const X86XMMReg *prod, unsigned lanes,
                        unsigned imm, uint32_t g, uint32_t h)
{
    for (unsigned j = 0; j < lanes; j++) {
        if (!(imm & (1u << j))) {
            continue;
        }
        if (lanes == 4) {
            d->l[j] = dpps_lane(prod->l, j, g, h);
        } else {
            d->q[j] = j ? dp_add(prod->q[1], prod->q[0], 8, g, h)
                        : dp_add(prod->q[0], prod->q[1], 8, g, h);
        }
    }
}

/*
 * dpps/dppd: the products imm8[7:4] selects (the others +0.0, which
 * raise nothing), summed pairwise in the SDM's order, into the lanes
 * imm8[3:0] selects. An unmasked exception of the products stops it
 * before the sums. The flags come from the one pairwise sum; a vendor
 * that sums per lane gets each lane's value from dp_per_lane (the same
 * additions, so the same flags).
 */
#define FP_DP(name, mul, hadd, lanes, f, zero_lane)                      \
    VK(name)                                                             \
    {                                                                    \
        X86XMMReg x = *d, y = *s, t, p;                                  \
                                                                         \
        for (unsigned i = 0; i < lanes; i++) {                           \
            if (!(in->imm & (0x10u << i))) {                             \
                x.f[i] = y.f[i] = 0;                                     \
            }                                                            \
        }                                                                \
        FP_BEGIN(&x, &y);                                                \
        FP_ASM(mul);                                                     \
        x86_vec_fp_done(env, o);                                         \
        memcpy(&p, &r, 16);                                              \
        asm volatile("ldmxcsr %[g]\n\t" hadd " %[r], %[r]\n\t"          \
                     zero_lane                                           \
                     "stmxcsr %[o]\n\tldmxcsr %[h]"                      \
                     : [r] "+x"(r), [o] "=m"(o)                          \
                     : [g] "m"(g), [h] "m"(h));                          \
        x86_vec_fp_done(env, o);                                         \
        memcpy(&t, &r, 16);                                              \
        for (unsigned i = 0; i < lanes; i++) {                           \
            d->f[i] = in->imm & (1u << i) ? t.f[0] : 0;                  \
        }                                                                \
        if (env->cpu && env->cpu->vendor &&                              \
            env->cpu->vendor->dp_sum_per_lane) {                         \
            dp_per_lane(d, &p, lanes, in->imm, g, h);                    \
        }                                                                \
    }

FP_DP(k_dpps, "mulps", "haddps", 4, l, "haddps %[r], %[r]\n\t")
FP_DP(k_dppd, "mulpd", "haddpd", 2, q, "")

VK(k_shufps)
{
    X86XMMReg t;

    t.l[0] = d->l[in->imm & 3];
    t.l[1] = d->l[(in->imm >> 2) & 3];
    t.l[2] = s->l[(in->imm >> 4) & 3];
    t.l[3] = s->l[(in->imm >> 6) & 3];
    *d = t;
}

VK(k_shufpd)
{
    X86XMMReg t;

    t.q[0] = d->q[in->imm & 1];
    t.q[1] = s->q[(in->imm >> 1) & 1];
    *d = t;
}

#define F(map_, op_, pfx_, feat_, reg_, rm_, fl, k) \
    { map_, op_, pfx_, 0, reg_, rm_, fl, feat_, k, NULL, NULL }
#define X(op_, pfx_, feat_, fl, k) F(VM_0F, op_, pfx_, feat_, VR_XMM, VR_XMM, fl, k)
/* An arithmetic opcode in its four forms: ps, pd, ss, sd. */
#define ARITH4(op_, name)                                                \
    X(op_, VP_NONE, ISA_SSE, VF_A16, k_##name##ps),                      \
    X(op_, VP_66, ISA_SSE2, VF_A16, k_##name##pd),                       \
    X(op_, VP_F3, ISA_SSE, VF_M4, k_##name##ss),                         \
    X(op_, VP_F2, ISA_SSE2, VF_M8, k_##name##sd)

const VecOp x86_vec_float_ops[] = {
    X(0x14, VP_NONE, ISA_SSE, VF_A16, k_unpcklps),
    X(0x14, VP_66, ISA_SSE2, VF_A16, k_unpcklpd),
    X(0x15, VP_NONE, ISA_SSE, VF_A16, k_unpckhps),
    X(0x15, VP_66, ISA_SSE2, VF_A16, k_unpckhpd),
    F(VM_0F, 0x2a, VP_NONE, ISA_SSE, VR_XMM, VR_MMX, VF_M8, k_cvtpi2ps),
    F(VM_0F, 0x2a, VP_66, ISA_SSE2, VR_XMM, VR_MMX, VF_M8, k_cvtpi2pd),
    F(VM_0F, 0x2a, VP_F3, ISA_SSE, VR_XMM, VR_GPR, VF_M4 | VF_W,
      k_cvtsi2ss),
    F(VM_0F, 0x2a, VP_F2, ISA_SSE2, VR_XMM, VR_GPR, VF_M4 | VF_W,
      k_cvtsi2sd),
    F(VM_0F, 0x2c, VP_NONE, ISA_SSE, VR_MMX, VR_XMM, VF_M8, k_cvttps2pi),
    F(VM_0F, 0x2c, VP_66, ISA_SSE2, VR_MMX, VR_XMM, VF_A16, k_cvttpd2pi),
    F(VM_0F, 0x2c, VP_F3, ISA_SSE, VR_GPR, VR_XMM, VF_M4 | VF_W,
      k_cvttss2si),
    F(VM_0F, 0x2c, VP_F2, ISA_SSE2, VR_GPR, VR_XMM, VF_M8 | VF_W,
      k_cvttsd2si),
    F(VM_0F, 0x2d, VP_NONE, ISA_SSE, VR_MMX, VR_XMM, VF_M8, k_cvtps2pi),
    F(VM_0F, 0x2d, VP_66, ISA_SSE2, VR_MMX, VR_XMM, VF_A16, k_cvtpd2pi),
    F(VM_0F, 0x2d, VP_F3, ISA_SSE, VR_GPR, VR_XMM, VF_M4 | VF_W,
      k_cvtss2si),
    F(VM_0F, 0x2d, VP_F2, ISA_SSE2, VR_GPR, VR_XMM, VF_M8 | VF_W,
      k_cvtsd2si),
    X(0x2e, VP_NONE, ISA_SSE, VF_M4 | VF_RO, k_ucomiss),
    X(0x2e, VP_66, ISA_SSE2, VF_M8 | VF_RO, k_ucomisd),
    X(0x2f, VP_NONE, ISA_SSE, VF_M4 | VF_RO, k_comiss),
    X(0x2f, VP_66, ISA_SSE2, VF_M8 | VF_RO, k_comisd),
    ARITH4(0x51, sqrt),
    X(0x52, VP_NONE, ISA_SSE, VF_A16, k_rsqrtps),
    X(0x52, VP_F3, ISA_SSE, VF_M4, k_rsqrtss),
    X(0x53, VP_NONE, ISA_SSE, VF_A16, k_rcpps),
    X(0x53, VP_F3, ISA_SSE, VF_M4, k_rcpss),
    X(0x54, VP_NONE, ISA_SSE, VF_A16, k_andps),
    X(0x54, VP_66, ISA_SSE2, VF_A16, k_andps),
    X(0x55, VP_NONE, ISA_SSE, VF_A16, k_andnps),
    X(0x55, VP_66, ISA_SSE2, VF_A16, k_andnps),
    X(0x56, VP_NONE, ISA_SSE, VF_A16, k_orps),
    X(0x56, VP_66, ISA_SSE2, VF_A16, k_orps),
    X(0x57, VP_NONE, ISA_SSE, VF_A16, k_xorps),
    X(0x57, VP_66, ISA_SSE2, VF_A16, k_xorps),
    ARITH4(0x58, add),
    ARITH4(0x59, mul),
    X(0x5a, VP_NONE, ISA_SSE2, VF_M8, k_cvtps2pd),
    X(0x5a, VP_66, ISA_SSE2, VF_A16, k_cvtpd2ps),
    X(0x5a, VP_F3, ISA_SSE2, VF_M4, k_cvtss2sd),
    X(0x5a, VP_F2, ISA_SSE2, VF_M8, k_cvtsd2ss),
    X(0x5b, VP_NONE, ISA_SSE2, VF_A16, k_cvtdq2ps),
    X(0x5b, VP_66, ISA_SSE2, VF_A16, k_cvtps2dq),
    X(0x5b, VP_F3, ISA_SSE2, VF_A16, k_cvttps2dq),
    ARITH4(0x5c, sub),
    ARITH4(0x5d, min),
    ARITH4(0x5e, div),
    ARITH4(0x5f, max),
    X(0x7c, VP_66, ISA_SSE3, VF_A16, k_haddpd),
    X(0x7c, VP_F2, ISA_SSE3, VF_A16, k_haddps),
    X(0x7d, VP_66, ISA_SSE3, VF_A16, k_hsubpd),
    X(0x7d, VP_F2, ISA_SSE3, VF_A16, k_hsubps),
    X(0xc2, VP_NONE, ISA_SSE, VF_A16 | VF_IMM8, k_cmpps),
    X(0xc2, VP_66, ISA_SSE2, VF_A16 | VF_IMM8, k_cmppd),
    X(0xc2, VP_F3, ISA_SSE, VF_M4 | VF_IMM8, k_cmpss),
    X(0xc2, VP_F2, ISA_SSE2, VF_M8 | VF_IMM8, k_cmpsd),
    X(0xc6, VP_NONE, ISA_SSE, VF_A16 | VF_IMM8, k_shufps),
    X(0xc6, VP_66, ISA_SSE2, VF_A16 | VF_IMM8, k_shufpd),
    X(0xd0, VP_66, ISA_SSE3, VF_A16, k_addsubpd),
    X(0xd0, VP_F2, ISA_SSE3, VF_A16, k_addsubps),
    X(0xe6, VP_66, ISA_SSE2, VF_A16, k_cvttpd2dq),
    X(0xe6, VP_F3, ISA_SSE2, VF_M8, k_cvtdq2pd),
    X(0xe6, VP_F2, ISA_SSE2, VF_A16, k_cvtpd2dq),
    F(VM_0F3A, 0x08, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_A16 | VF_IMM8,
      k_roundps),
    F(VM_0F3A, 0x40, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_A16 | VF_IMM8,
      k_dpps),
    F(VM_0F3A, 0x41, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_A16 | VF_IMM8,
      k_dppd),
    F(VM_0F3A, 0x09, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_A16 | VF_IMM8,
      k_roundpd),
    F(VM_0F3A, 0x0a, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_M4 | VF_IMM8,
      k_roundss),
    F(VM_0F3A, 0x0b, VP_66, ISA_SSE41, VR_XMM, VR_XMM, VF_M8 | VF_IMM8,
      k_roundsd),
    VEC_END
};
