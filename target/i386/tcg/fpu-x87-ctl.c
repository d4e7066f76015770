/*
 * x87 control instructions (fninit, fnclex, fnstsw, fnstcw, fldcw,
 * fnstenv, fldenv, fnsave, frstor, ffree, fincstp, fdecstp, fnop,
 * fwait) and the instructions on the top of the stack that the host
 * computes: fchs, fabs, the constants, fsqrt, frndint, fscale, fprem,
 * fprem1, fxtract, fxam, f2xm1, fyl2x, fyl2xp1, fptan, fpatan, fsin,
 * fcos, fsincos (Intel SDM vol. 1 8.1, 8.6; vol. 2).
 *
 * The environment layouts (SDM vol. 1 figures 8-9..8-12): 28 bytes for
 * a 32-bit operand size, 14 for 16-bit; in real and virtual-8086 mode
 * FIP and FDP are stored as 20/32-bit linear-style values split around
 * FOP. The reserved upper halves of the 32-bit layout's words are
 * written as ones, as the processors do.
 */
#include "target/i386/tcg/fpu-x87.h"

/* FCW bit 6 reads as 1, bits 13..15 as 0. */
#define FPUC_FIXED  0x0040u
#define FPUC_BITS   0x1f3fu

static void x87_update_es(CPUX86State *env)
{
    if (env->fpus & ~env->fpuc & X87_EXC) {
        env->fpus |= FPUS_ES | FPUS_B;
    } else {
        env->fpus &= ~(FPUS_ES | FPUS_B);
    }
}

static uint16_t x87_fsw(CPUX86State *env)
{
    return (env->fpus & ~FPUS_TOP) | ((env->fpstt & 7) << 11);
}

static void x87_init(CPUX86State *env)
{
    env->fpuc = FPUC_INIT;
    env->fpus = 0;
    env->fpstt = 0;
    memset(env->fptags, 1, sizeof(env->fptags));
    env->fpop = 0;
    env->fpip = env->fpdp = 0;
    env->fpcs = env->fpds = 0;
}

/* --- the top of the stack ------------------------------------------------- */

/* fchs (aux 0) and fabs (aux 1): the sign only, no exceptions. */
uintptr_t x87_op_chs_abs(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    if (x87_empty(env, 0)) {
        if (x87_underflow(env)) {
            x87_set(env, 0, &x87_indefinite);
        }
    } else {
        X86FPReg *r = x87_st(env, 0);

        r->sexp = in->aux ? r->sexp & 0x7fff : r->sexp ^ 0x8000;
        env->fpus &= ~FPUS_C1;
    }
    return x86_next(env, in);
}

/* Where an operation the host ran leaves its results. */
enum {
    HO_ST0,     /* ST(0) = out[0] */
    HO_POP,     /* ST(1) = out[0], pop */
    HO_PUSH,    /* push out[0] */
    HO_PUSH2,   /* ST(0) = out[1], push out[0] */
    HO_CODES,   /* the condition codes only (fxam) */
};


static const struct {
    uint8_t nin;        /* operands: ST(0), ST(1) */
    uint8_t out;        /* HO_* */
    uint8_t partial;    /* C2 set: out of range, nothing changes */
    uint8_t c2;         /* a stack fault clears C2 */
} host_ops[X87_H_NUM] = {
    [X87_H_F2XM1] = { 1, HO_ST0, 0, 0 },
    [X87_H_FYL2X] = { 2, HO_POP, 0, 0 },
    [X87_H_FPTAN] = { 1, HO_PUSH2, 1, 1 },
    [X87_H_FPATAN] = { 2, HO_POP, 0, 0 },
    [X87_H_FXTRACT] = { 1, HO_PUSH2, 0, 0 },
    [X87_H_FPREM1] = { 2, HO_ST0, 0, 1 },
    [X87_H_FPREM] = { 2, HO_ST0, 0, 1 },
    [X87_H_FYL2XP1] = { 2, HO_POP, 0, 0 },
    [X87_H_FSQRT] = { 1, HO_ST0, 0, 0 },
    [X87_H_FSINCOS] = { 1, HO_PUSH2, 1, 1 },
    [X87_H_FRNDINT] = { 1, HO_ST0, 0, 0 },
    [X87_H_FSCALE] = { 2, HO_ST0, 0, 0 },
    [X87_H_FSIN] = { 1, HO_ST0, 1, 1 },
    [X87_H_FCOS] = { 1, HO_ST0, 1, 1 },
    [X87_H_FXAM] = { 1, HO_CODES, 0, 0 },
    [X87_H_FLD1] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDL2T] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDL2E] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDPI] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDLG2] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDLN2] = { 0, HO_PUSH, 0, 0 },
    [X87_H_FLDZ] = { 0, HO_PUSH, 0, 0 },
};

/* A stack fault of a host operation (when IE is masked: indefinites). */
static void host_op_fault(CPUX86State *env, unsigned op, bool over)
{
    unsigned out = host_ops[op].out;

    if (host_ops[op].c2) {
        env->fpus &= ~FPUS_C2;
    }
    if (!(over ? x87_overflow(env) : x87_underflow(env))) {
        return;
    }
    switch (out) {
    case HO_ST0:
        x87_set(env, 0, &x87_indefinite);
        break;
    case HO_POP:
        x87_set(env, 1, &x87_indefinite);
        x87_pop(env);
        break;
    case HO_PUSH2:
        x87_set(env, 0, &x87_indefinite);
        x87_push(env, &x87_indefinite);
        break;
    default:
        x87_push(env, &x87_indefinite);
        break;
    }
}

/* An instruction on ST(0) (and ST(1)) computed by the host (aux: X87_H_*). */
uintptr_t x87_op_host(CPUX86State *env, const Insn *in)
{
    unsigned op = in->aux, out = host_ops[op].out, nin = host_ops[op].nin;
    X86FPReg vin[2] = { { 0 } }, vout[2];
    uint16_t sw;

    x87_begin(env, in);
    if (op == X87_H_FXAM && x87_empty(env, 0)) {
        uint16_t c = FPUS_C3 | FPUS_C0;

        if (x87_st(env, 0)->sexp & 0x8000) {
            c |= FPUS_C1;
        }
        x87_codes(env, c, X87_CC);
        return x86_next(env, in);
    }
    /* An empty operand is found before a full stack. */
    if ((nin >= 1 && x87_empty(env, 0)) || (nin == 2 && x87_empty(env, 1))) {
        host_op_fault(env, op, false);
        return x86_next(env, in);
    }
    if ((out == HO_PUSH || out == HO_PUSH2) && !x87_empty(env, 7)) {
        host_op_fault(env, op, true);
        return x86_next(env, in);
    }
    if (nin >= 1) {
        vin[0] = *x87_st(env, 0);
    }
    if (nin == 2) {
        vin[1] = *x87_st(env, 1);
    }
    sw = x87_host_op(op, vout, vin, env->fpuc, env->fpus);
    x87_codes(env, sw, X87_CC);
    if (x87_raise(env, sw & X87_EXC)) {
        return x86_next(env, in);
    }
    if (host_ops[op].partial && (sw & FPUS_C2)) {
        return x86_next(env, in);
    }
    switch (out) {
    case HO_ST0:
        x87_set(env, 0, &vout[0]);
        break;
    case HO_POP:
        x87_set(env, 1, &vout[0]);
        x87_pop(env);
        break;
    case HO_PUSH:
        x87_push(env, &vout[0]);
        break;
    case HO_PUSH2:
        x87_set(env, 0, &vout[1]);
        x87_push(env, &vout[0]);
        break;
    default:
        break;
    }
    return x86_next(env, in);
}

/* --- the register file ------------------------------------------------------ */

/* ffree ST(i); ffreep with X87F_POP. */
uintptr_t x87_op_ffree(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    env->fptags[(env->fpstt + in->rm) & 7] = 1;
    env->fpus &= ~FPUS_C1;
    if (in->imm & X87F_POP) {
        x87_pop(env);
    }
    return x86_next(env, in);
}

/* fincstp (aux 0), fdecstp (aux 1): TOP moves, tags stay. */
uintptr_t x87_op_incdecstp(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    env->fpstt = (env->fpstt + (in->aux ? 7 : 1)) & 7;
    env->fpus &= ~FPUS_C1;
    return x86_next(env, in);
}

/* fnop, and fneni/fndisi/fnsetpm (8087/287 controls, nops since). */
uintptr_t x87_op_fnop(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    return x86_next(env, in);
}

uintptr_t x87_op_fninit(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    x87_init(env);
    return x86_next(env, in);
}

uintptr_t x87_op_fnclex(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    env->fpus &= ~(X87_EXC | FPUS_SF | FPUS_ES | FPUS_B);
    return x86_next(env, in);
}

uintptr_t x87_op_fnstsw(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    x86_stw(env, x86_ea(env, in), x87_fsw(env));
    return x86_next(env, in);
}

uintptr_t x87_op_fnstsw_ax(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    reg_write(env, OT_W, R_EAX, x87_fsw(env));
    return x86_next(env, in);
}

uintptr_t x87_op_fnstcw(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    x86_stw(env, x86_ea(env, in), env->fpuc);
    return x86_next(env, in);
}

static void x87_load_fcw(CPUX86State *env, uint16_t v)
{
    env->fpuc = (v & FPUC_BITS) | FPUC_FIXED;
}

uintptr_t x87_op_fldcw(CPUX86State *env, const Insn *in)
{
    uint16_t v;

    x87_begin(env, in);
    v = x86_lduw(env, x86_ea(env, in));
    x87_load_fcw(env, v);
    x87_update_es(env);
    return x86_next(env, in);
}

/* fwait: #NM only under CR0.TS with CR0.MP; then pending exceptions. */
uintptr_t x87_op_fwait(CPUX86State *env, const Insn *in)
{
    if ((env->cr[0] & (CR0_MP_MASK | CR0_TS_MASK)) ==
        (CR0_MP_MASK | CR0_TS_MASK)) {
        x86_raise_exception(env, EXCP07_PREX);
    }
    if (env->fpus & FPUS_ES) {
        Insn w = *in;

        w.imm = X87F_CTL;
        x87_begin(env, &w);
    }
    return x86_next(env, in);
}

/* --- environment and state images -------------------------------------------- */

static bool x87_real_format(CPUX86State *env)
{
    return !(env->cr[0] & CR0_PE_MASK) || (env->eflags & VM_MASK);
}

/* The environment (14 or 28 bytes) into buf. */
static unsigned x87_env_image(CPUX86State *env, const Insn *in, uint8_t *buf)
{
    bool o16 = in->imm & X87F_O16, real = x87_real_format(env);
    bool zero = env->cpu && env->cpu->fcs_fds_zero;
    uint16_t fcs = zero ? 0 : env->fpcs, fds = zero ? 0 : env->fpds;
    uint32_t w[7];

    w[0] = env->fpuc;
    w[1] = x87_fsw(env);
    w[2] = x87_full_tags(env);
    if (real) {
        /* Real-mode layouts hold 20/32-bit linear pointers. */
        uint32_t ip = ((uint32_t)env->fpcs << 4) + (uint32_t)env->fpip;
        uint32_t dp = ((uint32_t)env->fpds << 4) + (uint32_t)env->fpdp;

        w[3] = ip & 0xffff;
        w[4] = (env->fpop & 0x7ff) | ((ip >> 16) << 12);
        w[5] = dp & 0xffff;
        w[6] = (dp >> 16) << 12;
        if (o16) {
            w[4] &= 0xffff;
            w[6] &= 0xffff;
        }
    } else if (o16) {
        w[3] = env->fpip & 0xffff;
        w[4] = fcs;
        w[5] = env->fpdp & 0xffff;
        w[6] = fds;
    } else {
        w[3] = env->fpip;
        w[4] = fcs | ((uint32_t)(env->fpop & 0x7ff) << 16);
        w[5] = env->fpdp;
        w[6] = fds | 0xffff0000u;
    }
    for (unsigned i = 0; i < 7; i++) {
        if (o16) {
            uint16_t h = w[i];

            memcpy(buf + 2 * i, &h, 2);
        } else {
            if (i < 3) {
                w[i] |= 0xffff0000u;
            }
            memcpy(buf + 4 * i, &w[i], 4);
        }
    }
    return o16 ? 14 : 28;
}

/* Load the environment from buf (as x87_env_image wrote it). */
static void x87_env_load(CPUX86State *env, const Insn *in, const uint8_t *buf)
{
    bool o16 = in->imm & X87F_O16, real = x87_real_format(env);
    uint32_t w[7];
    uint16_t fsw, tw;

    for (unsigned i = 0; i < 7; i++) {
        if (o16) {
            uint16_t h;

            memcpy(&h, buf + 2 * i, 2);
            w[i] = h;
        } else {
            memcpy(&w[i], buf + 4 * i, 4);
        }
    }
    x87_load_fcw(env, w[0]);
    fsw = w[1];
    env->fpstt = (fsw & FPUS_TOP) >> 11;
    env->fpus = fsw & ~FPUS_TOP;
    tw = w[2];
    for (unsigned p = 0; p < 8; p++) {
        env->fptags[p] = ((tw >> (2 * p)) & 3) == 3;
    }
    if (real) {
        env->fpip = (w[3] & 0xffff) | ((w[4] >> 12) << 16);
        env->fpop = w[4] & 0x7ff;
        env->fpdp = (w[5] & 0xffff) | ((w[6] >> 12) << 16);
        env->fpcs = env->fpds = 0;
    } else if (o16) {
        env->fpip = w[3];
        env->fpcs = w[4];
        env->fpdp = w[5];
        env->fpds = w[6];
    } else {
        env->fpip = w[3];
        env->fpcs = w[4];
        env->fpop = (w[4] >> 16) & 0x7ff;
        env->fpdp = w[5];
        env->fpds = w[6];
    }
    x87_update_es(env);
}

static void x87_store_bytes(CPUX86State *env, uint64_t a, const uint8_t *buf,
                            unsigned n)
{
    /* Fault before writing anything: probe the last byte. */
    x86_ldub(env, a + n - 1);
    for (unsigned i = 0; i < n; i++) {
        x86_stb(env, a + i, buf[i]);
    }
}

static void x87_load_bytes(CPUX86State *env, uint64_t a, uint8_t *buf,
                           unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        buf[i] = x86_ldub(env, a + i);
    }
}

uintptr_t x87_op_fnstenv(CPUX86State *env, const Insn *in)
{
    uint8_t buf[28];
    unsigned n;

    x87_begin(env, in);
    n = x87_env_image(env, in, buf);
    x87_store_bytes(env, x86_ea(env, in), buf, n);
    env->fpuc |= X87_EXC;
    x87_update_es(env);
    return x86_next(env, in);
}

uintptr_t x87_op_fldenv(CPUX86State *env, const Insn *in)
{
    unsigned n = in->imm & X87F_O16 ? 14 : 28;
    uint8_t buf[28];

    x87_begin(env, in);
    x87_load_bytes(env, x86_ea(env, in), buf, n);
    x87_env_load(env, in, buf);
    return x86_next(env, in);
}

uintptr_t x87_op_fnsave(CPUX86State *env, const Insn *in)
{
    uint8_t buf[108];
    unsigned n;

    x87_begin(env, in);
    n = x87_env_image(env, in, buf);
    for (unsigned i = 0; i < 8; i++) {
        const X86FPReg *r = x87_st(env, i);

        memcpy(buf + n + 10 * i, &r->mant, 8);
        memcpy(buf + n + 10 * i + 8, &r->sexp, 2);
    }
    x87_store_bytes(env, x86_ea(env, in), buf, n + 80);
    x87_init(env);
    return x86_next(env, in);
}

uintptr_t x87_op_frstor(CPUX86State *env, const Insn *in)
{
    unsigned n = in->imm & X87F_O16 ? 14 : 28;
    uint8_t buf[108];

    x87_begin(env, in);
    x87_load_bytes(env, x86_ea(env, in), buf, n + 80);
    x87_env_load(env, in, buf);
    for (unsigned i = 0; i < 8; i++) {
        X86FPReg *r = x87_st(env, i);

        memcpy(&r->mant, buf + n + 10 * i, 8);
        memcpy(&r->sexp, buf + n + 10 * i + 8, 2);
    }
    return x86_next(env, in);
}
