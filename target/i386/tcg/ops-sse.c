/*
 * The vector instructions' common part: the generic handlers that run a
 * table entry's kernel on registers or on a loaded temporary (vec.h),
 * the CR0/CR4 checks, MXCSR exceptions, and the state instructions
 * (ldmxcsr, stmxcsr, fxsave, fxrstor, xsave, xrstor, xsaveopt, emms).
 *
 * Checks (Intel SDM vol. 3A 2.5, 13.2; vol. 2 per instruction): SSE
 * forms #UD when CR0.EM = 1 or CR4.OSFXSR = 0 and #NM when CR0.TS = 1;
 * MMX forms #UD when CR0.EM = 1 and #NM when CR0.TS = 1; an aligned
 * 128-bit memory operand at an address that is not a multiple of 16
 * raises #GP(0).
 */
#include "target/i386/tcg/vec.h"

#define EXCP13_XM       19      /* SIMD floating-point exception */
#define MXCSR_FLAGS     0x3fu

G_NORETURN static void gp0(CPUX86State *env)
{
    x86_raise_exception_err(env, EXCP0D_GPF, 0);
}

void x86_vec_fault(CPUX86State *env, bool mmx)
{
    if ((env->cr[0] & CR0_EM_MASK) ||
        (!mmx && !(env->cr[4] & CR4_OSFXSR_MASK))) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    x86_raise_exception(env, EXCP07_PREX);
}

/*
 * The flags the host raised with every exception masked. When one the
 * guest left unmasked is among them, the instruction faults: an
 * unmasked pre-computation exception (invalid, denormal, divide by
 * zero) stops it before the post-computation ones (overflow,
 * underflow, precision) are looked at, so only the former are flagged
 * (SDM vol. 1 11.5.2). Not modelled: with overflow or underflow
 * unmasked, processors flag what the unmasked (biased) result gives,
 * which may differ in PE (overflow) and UE (an exact tiny result);
 * the #XM is raised all the same.
 */
void x86_vec_fp_done(CPUX86State *env, uint32_t host_out)
{
    uint32_t raised = host_out & MXCSR_FLAGS;
    uint32_t unmasked = ~(env->mxcsr >> 7) & MXCSR_FLAGS;

    if (raised & unmasked & 7) {
        raised &= 7;
    }
    env->mxcsr |= raised;
    if (raised & unmasked) {
        x86_raise_exception(env, env->cr[4] & CR4_OSXMMEXCPT_MASK
                                 ? EXCP13_XM : EXCP06_ILLOP);
    }
}

/* --- memory operands -------------------------------------------------- */

/* The bytes [a, a + len) may be written: fault before the first store. */
static void vec_probe_write(CPUX86State *env, uint64_t a, unsigned len)
{
    uint8_t *host;

    if ((a & X86_PAGE_MASK) != ((a + len - 1) & X86_PAGE_MASK)) {
        x86_translate(env, a, MMU_WRITE, &host);
        x86_translate(env, a + len - 1, MMU_WRITE, &host);
    }
}

static void vec_load(CPUX86State *env, uint64_t a, unsigned flags,
                     unsigned lsz, X86XMMReg *t)
{
    t->q[0] = t->q[1] = 0;
    switch (lsz) {
    case 0:
        t->b[0] = x86_ldub(env, a);
        break;
    case 1:
        t->w[0] = x86_lduw(env, a);
        break;
    case 2:
        t->l[0] = x86_ldl(env, a);
        break;
    case 3:
        t->q[0] = x86_ldq(env, a);
        break;
    default:
        if ((flags & VF_ALIGN) && (a & 15) &&
            (!(env->mxcsr & MXCSR_MM) || (flags & VF_AMOV))) {
            gp0(env);
        }
        t->q[0] = x86_ldq(env, a);
        t->q[1] = x86_ldq(env, a + 8);
        break;
    }
}

static void vec_store(CPUX86State *env, uint64_t a, unsigned flags,
                      unsigned lsz, const X86XMMReg *t)
{
    switch (lsz) {
    case 0:
        x86_stb(env, a, t->b[0]);
        break;
    case 1:
        x86_stw(env, a, t->w[0]);
        break;
    case 2:
        x86_stl(env, a, t->l[0]);
        break;
    case 3:
        x86_stq(env, a, t->q[0]);
        break;
    default:
        if ((flags & VF_ALIGN) && (a & 15) &&
            (!(env->mxcsr & MXCSR_MM) || (flags & VF_AMOV))) {
            gp0(env);
        }
        vec_probe_write(env, a, 16);
        x86_stq(env, a, t->q[0]);
        x86_stq(env, a + 8, t->q[1]);
        break;
    }
}

/* --- the generic handlers --------------------------------------------- */

uintptr_t x86_vec_xx(CPUX86State *env, const Insn *in)
{
    vec_check_sse(env);
    vec_op(in)->kern(env, &env->xmm[in->reg], &env->xmm[in->rm], in);
    return x86_next(env, in);
}

uintptr_t x86_vec_xm(CPUX86State *env, const Insn *in)
{
    const VecOp *e = vec_op(in);
    X86XMMReg t;

    vec_check_sse(env);
    vec_load(env, x86_ea(env, in), e->flags, VF_MSZ_OF(e->flags), &t);
    (e->kern_m ? e->kern_m : e->kern)(env, &env->xmm[in->reg], &t, in);
    return x86_next(env, in);
}

/* Register n of file f: XMM in place, MMX and general ones copied. */
static X86XMMReg *vec_reg(CPUX86State *env, unsigned f, unsigned n,
                          X86XMMReg *copy)
{
    if (f == VR_XMM) {
        return &env->xmm[n];
    }
    copy->q[0] = f == VR_MMX ? env->fpregs[n].mant : env->regs[n];
    copy->q[1] = 0;
    return copy;
}

static void vec_put(CPUX86State *env, unsigned f, unsigned n,
                    const X86XMMReg *v)
{
    if (f == VR_MMX) {
        vec_mmx_write(env, n, v->q[0]);
    } else if (f == VR_GPR) {
        env->regs[n] = v->q[0];
    }
}

uintptr_t x86_vec_gen(CPUX86State *env, const Insn *in)
{
    const VecOp *e = vec_op(in);
    unsigned f = e->flags, lsz = VF_MSZ_OF(f);
    bool mem = in->rm == VREG_TMP;
    /* An MMX register operand (not memory in its place) enters MMX state. */
    bool mmx = e->reg == VR_MMX || (e->rm == VR_MMX && !mem);
    VecKern *k = mem && e->kern_m ? e->kern_m : e->kern;
    X86XMMReg r, m, *rp, *mp;
    uint64_t a = 0;

    if (e->reg != VR_XMM && e->rm != VR_XMM &&
        (e->reg == VR_MMX || e->rm == VR_MMX)) {
        vec_check_mmx(env);
    } else {
        vec_check_sse(env);
    }
    rp = vec_reg(env, e->reg, in->reg, &r);
    if (mem) {
        a = x86_ea(env, in);
        if (e->rm == VR_GPR && (f & VF_W) && in->aux2 == OT_Q) {
            lsz = 3;
        }
        if (f & VF_RMDST) {
            m.q[0] = m.q[1] = 0;
        } else {
            vec_load(env, a, f, lsz, &m);
        }
        mp = &m;
    } else {
        mp = vec_reg(env, e->rm, in->rm, &m);
    }
    /* The x87 unit is in MMX state even when the kernel faults (#XM). */
    if (mmx) {
        vec_mmx_enter(env);
    }
    if (f & VF_RMDST) {
        k(env, mp, rp, in);
    } else {
        k(env, rp, mp, in);
    }
    if (!(f & VF_RO)) {
        if (!(f & VF_RMDST)) {
            vec_put(env, e->reg, in->reg, rp);
        } else if (mem) {
            vec_store(env, a, f, lsz, mp);
        } else {
            vec_put(env, e->rm, in->rm, mp);
        }
    }
    return x86_next(env, in);
}

/* --- state instructions ------------------------------------------------ */

static void vec_read_bytes(CPUX86State *env, uint64_t a, uint8_t *p,
                           unsigned len)
{
    for (unsigned i = 0; i < len; i += 8) {
        uint64_t v = x86_ldq(env, a + i);

        memcpy(p + i, &v, 8);
    }
}

static void vec_write_bytes(CPUX86State *env, uint64_t a, const uint8_t *p,
                            unsigned off, unsigned len)
{
    for (unsigned i = off; i < off + len; i += 8) {
        uint64_t v;

        memcpy(&v, p + i, 8);
        x86_stq(env, a + i, v);
    }
}

/* fxsave and fxrstor: #NM for CR0.EM as for CR0.TS; no CR4.OSFXSR. */
static void vec_check_fpu(CPUX86State *env)
{
    if (env->cr[0] & (CR0_EM_MASK | CR0_TS_MASK)) {
        x86_raise_exception(env, EXCP07_PREX);
    }
}

static void vec_check_xsave(CPUX86State *env)
{
    if (!(env->cr[4] & CR4_OSXSAVE_MASK)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    if (env->cr[0] & CR0_TS_MASK) {
        x86_raise_exception(env, EXCP07_PREX);
    }
}

/* The FXSAVE image's XMM registers: 8 outside 64-bit mode. */
static unsigned fx_len(CPUX86State *env)
{
    return env->hflags & HF_CS64_MASK ? 416 : 288;
}

/* The image as this vendor's fxsave writes it: the x87 pointers where it
 * keeps them (vendor.h). */
static void fx_save_image(CPUX86State *env, uint8_t *img, bool rex_w)
{
    const X86Vendor *v = env->cpu->vendor;

    x86_fxsave_image(env, img, rex_w);
    if (v && v->fxsave_ptrs_only_with_es && !(env->fpus & FPUS_ES)) {
        memset(img + 6, 0, 18);
    }
}

/*
 * After a restore: FCW's reserved bits read as the processor keeps them
 * (bit 6 set, 13..15 clear), FSW.ES and B say whether an unmasked x87
 * exception is pending.
 */
static void fx_restored(CPUX86State *env)
{
    env->fpuc = (env->fpuc & 0x1f3f) | 0x40;
    if (env->fpus & ~env->fpuc & 0x3f) {
        env->fpus |= FPUS_ES | FPUS_B;
    } else {
        env->fpus &= ~(FPUS_ES | FPUS_B);
    }
}

static uintptr_t op_ldmxcsr(CPUX86State *env, const Insn *in)
{
    uint32_t v;

    vec_check_sse(env);
    v = x86_ldl(env, x86_ea(env, in));
    if (v & ~vec_mxcsr_mask(env)) {
        gp0(env);
    }
    env->mxcsr = v;
    return x86_next(env, in);
}

static uintptr_t op_stmxcsr(CPUX86State *env, const Insn *in)
{
    vec_check_sse(env);
    x86_stl(env, x86_ea(env, in), env->mxcsr);
    return x86_next(env, in);
}

static uintptr_t op_fxsave(CPUX86State *env, const Insn *in)
{
    uint8_t img[512];
    uint64_t a = x86_ea(env, in);

    vec_check_fpu(env);
    if (a & 15) {
        gp0(env);
    }
    vec_probe_write(env, a, fx_len(env));
    fx_save_image(env, img, in->aux2 == OT_Q);
    vec_write_bytes(env, a, img, 0, fx_len(env));
    return x86_next(env, in);
}

static uintptr_t op_fxrstor(CPUX86State *env, const Insn *in)
{
    uint8_t img[512];
    uint64_t a = x86_ea(env, in);
    bool w = in->aux2 == OT_Q;

    vec_check_fpu(env);
    if (a & 15) {
        gp0(env);
    }
    /* Outside 64-bit mode XMM8..15 keep their values. */
    x86_fxsave_image(env, img, w);
    vec_read_bytes(env, a, img, fx_len(env));
    if (!x86_fxrstor_image(env, img, w)) {
        gp0(env);
    }
    fx_restored(env);
    return x86_next(env, in);
}

/* The parts of the legacy area each XSAVE component owns. */
#define XS_HEADER       512
static const struct {
    unsigned off, len;
} xs_parts[2][2] = {
    { { 0, 24 }, { 32, 128 } },         /* x87: FCW..FDS, ST0..7 */
    { { 24, 8 }, { 160, 256 } },        /* SSE: MXCSR(_MASK), XMM */
};

/* The requested-feature bitmap: XCR0 & EDX:EAX. */
static uint64_t xs_rfbm(CPUX86State *env)
{
    return env->xcr0 & ((env->regs[R_EDX] << 32) |
                        (uint32_t)env->regs[R_EAX]);
}

static uintptr_t op_xsave(CPUX86State *env, const Insn *in)
{
    uint8_t img[512];
    uint64_t a = x86_ea(env, in), rfbm, bv;
    unsigned len = fx_len(env);

    vec_check_xsave(env);
    if (a & 63) {
        gp0(env);
    }
    rfbm = xs_rfbm(env);
    vec_probe_write(env, a, XS_HEADER + 8);
    fx_save_image(env, img, in->aux2 == OT_Q);
    for (unsigned c = 0; c < 2; c++) {
        if (!(rfbm & (1u << c))) {
            continue;
        }
        for (unsigned p = 0; p < 2; p++) {
            unsigned off = xs_parts[c][p].off;
            unsigned n = MIN(xs_parts[c][p].len, len - off);

            vec_write_bytes(env, a, img, off, n);
        }
    }
    /* Every component counts as in use (XINUSE = 1). */
    bv = x86_ldq(env, a + XS_HEADER);
    x86_stq(env, a + XS_HEADER, bv | rfbm);
    return x86_next(env, in);
}

static uintptr_t op_xrstor(CPUX86State *env, const Insn *in)
{
    uint8_t img[512], mem[512];
    uint64_t a = x86_ea(env, in), rfbm, bv, hdr[8];
    unsigned len = fx_len(env);
    bool w = in->aux2 == OT_Q;

    vec_check_xsave(env);
    if (a & 63) {
        gp0(env);
    }
    rfbm = xs_rfbm(env);
    for (unsigned i = 0; i < 8; i++) {
        hdr[i] = x86_ldq(env, a + XS_HEADER + 8 * i);
    }
    bv = hdr[0];
    /* Standard form only (no compaction); the rest of the header is 0. */
    if ((bv & ~env->xcr0) || hdr[1] || hdr[2] || hdr[3] || hdr[4] ||
        hdr[5] || hdr[6] || hdr[7]) {
        gp0(env);
    }
    vec_read_bytes(env, a, mem, len);
    x86_fxsave_image(env, img, w);
    if (rfbm & XCR0_X87) {
        if (bv & XCR0_X87) {
            memcpy(img, mem, 24);
            memcpy(img + 32, mem + 32, 128);
        } else {
            /* The initial configuration, as after fninit. */
            uint16_t fcw = FPUC_INIT;

            memset(img, 0, 24);
            memset(img + 32, 0, 128);
            memcpy(img, &fcw, 2);
        }
    }
    if (rfbm & XCR0_SSE) {
        memcpy(img + 24, mem + 24, 4);
        if (bv & XCR0_SSE) {
            memcpy(img + 160, mem + 160, len - 160);
        } else {
            memset(img + 160, 0, len - 160);
        }
    }
    if (!x86_fxrstor_image(env, img, w)) {
        gp0(env);
    }
    fx_restored(env);
    return x86_next(env, in);
}

static uintptr_t op_emms(CPUX86State *env, const Insn *in)
{
    vec_check_mmx(env);
    memset(env->fptags, 1, sizeof(env->fptags));
    return x86_next(env, in);
}

/*
 * maskmovq/maskmovdqu: the bytes of reg whose mask byte (in rm) has its
 * top bit set go to DS:rDI (Insn.eaf and seg as for string operands).
 */
static uintptr_t op_maskmov(CPUX86State *env, const Insn *in)
{
    bool mmx = vec_op(in)->reg == VR_MMX;
    unsigned n = mmx ? 8 : 16;
    X86XMMReg v, mask;
    uint8_t *host;
    uint64_t a;

    if (mmx) {
        vec_check_mmx(env);
    } else {
        vec_check_sse(env);
    }
    v = *vec_reg(env, vec_op(in)->reg, in->reg, &v);
    mask = *vec_reg(env, vec_op(in)->rm, in->rm, &mask);
    a = x86_seg_addr(env, in, in->seg, env->regs[R_EDI] & x86_amask(in));
    for (unsigned i = 0; i < n; i++) {
        if (mask.b[i] & 0x80) {
            x86_translate(env, a + i, MMU_WRITE, &host);
        }
    }
    for (unsigned i = 0; i < n; i++) {
        if (mask.b[i] & 0x80) {
            x86_stb(env, a + i, v.b[i]);
        }
    }
    if (mmx) {
        vec_mmx_enter(env);
    }
    return x86_next(env, in);
}

#define ST(op_, pfx_, dig, feat_, fl, fn_) \
    { VM_0F, op_, pfx_, dig, VR_GPR, VR_GPR, (fl) | VF_GRP | VF_NOREG, \
      feat_, NULL, NULL, fn_ }

const VecOp x86_vec_state_ops[] = {
    ST(0xae, VP_NONE, 0, ISA_FXSR, VF_W, op_fxsave),
    ST(0xae, VP_NONE, 1, ISA_FXSR, VF_W, op_fxrstor),
    ST(0xae, VP_NONE, 2, ISA_SSE, 0, op_ldmxcsr),
    ST(0xae, VP_NONE, 3, ISA_SSE, 0, op_stmxcsr),
    ST(0xae, VP_NONE, 4, ISA_XSAVE, VF_W, op_xsave),
    ST(0xae, VP_NONE, 5, ISA_XSAVE, VF_W, op_xrstor),
    ST(0xae, VP_NONE, 6, ISA_XSAVEOPT, VF_W, op_xsave),
    { VM_0F, 0x77, VP_NONE, 0, VR_MMX, VR_MMX, VF_NOMODRM, ISA_MMX,
      NULL, NULL, op_emms },
    { VM_0F, 0xf7, VP_NONE, 0, VR_MMX, VR_MMX, VF_NOMEM | VF_IMPLICIT,
      ISA_SSE, NULL, NULL, op_maskmov },
    { VM_0F, 0xf7, VP_66, 0, VR_XMM, VR_XMM, VF_NOMEM | VF_IMPLICIT,
      ISA_SSE2, NULL, NULL, op_maskmov },
    VEC_END
};
