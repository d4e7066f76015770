/*
 * The x87 register stack and its data instructions: loads and stores of
 * every format, arithmetic, compares, fxch, fcmov (Intel SDM vol. 1
 * ch. 8, vol. 2 for each instruction; AMD APM vol. 5).
 *
 * The stack and its faults are modelled here: the tags, TOP, stack
 * underflow (an empty operand) and overflow (a push onto a full
 * register), which raise IE with SF and set C1 to 0 (underflow) or 1
 * (overflow), and, when IE is masked, go on with the QNaN indefinite.
 * The numbers are the host's (fpu-host.c): an operation runs on the
 * host's x87 under the guest's FCW and the host's FSW says which
 * exceptions it raised and how C1 came out.
 *
 * Unmasked exceptions: an invalid operation, denormal operand or
 * divide by zero changes no register and pops nothing; an overflow,
 * underflow or inexact result is stored (biased, as the host computed
 * it); stores to memory are not made under an unmasked invalid,
 * overflow or underflow. Either way the flag, ES and B are set and the
 * next waiting instruction raises #MF (x87_begin).
 */
#include <inttypes.h>

#include "qemu/log.h"
#include "target/i386/tcg/fpu-x87.h"

const X86FPReg x87_indefinite = { 0xc000000000000000ull, 0xffff };

/* Bytes of each memory format. */
static const uint8_t fmt_bytes[X87_FMT_NUM] = {
    [X87_FMT_F32] = 4, [X87_FMT_F64] = 8, [X87_FMT_F80] = 10,
    [X87_FMT_I16] = 2, [X87_FMT_I32] = 4, [X87_FMT_I64] = 8,
    [X87_FMT_BCD] = 10,
};

/* --- the state around every instruction ---------------------------------- */

/* A pending unmasked exception reaches a waiting instruction. */
static void x87_pending(CPUX86State *env)
{
    if (env->cr[0] & CR0_NE_MASK) {
        x86_raise_exception(env, EXCP10_COPR);
    }
    /*
     * CR0.NE=0 is the PC's FERR#/IRQ 13 wiring, which no board here
     * has; Linux sets NE. Go on with the exception left pending.
     */
    qemu_log_mask(LOG_UNIMP, "x87 exception pending with CR0.NE=0 at rip "
                  "0x%" PRIx64 " (FERR#/IRQ 13 not modelled)\n", env->rip);
}

void x87_begin(CPUX86State *env, const Insn *in)
{
    unsigned f = in->imm;

    if (env->cr[0] & (CR0_EM_MASK | CR0_TS_MASK)) {
        x86_raise_exception(env, EXCP07_PREX);
    }
    if (!(f & X87F_NOWAIT) && (env->fpus & FPUS_ES)) {
        x87_pending(env);
    }
    if (f & X87F_CTL) {
        return;
    }
    env->fpop = in->imm2;
    env->fpip = env->rip;
    env->fpcs = env->segs[R_CS].selector;
    if (f & X87F_MEM) {
        uint64_t a = x86_ea(env, in);

        if (in->eaf & EA_SEG) {
            a -= env->segs[in->seg].base;
        }
        env->fpdp = in->eaf & (EA_LIN32 | EA_A32 | EA_A16) ? (uint32_t)a : a;
        env->fpds = env->segs[in->seg].selector;
    }
}

bool x87_raise(CPUX86State *env, uint16_t ex)
{
    env->fpus |= ex;
    if (env->fpus & ~env->fpuc & X87_EXC) {
        env->fpus |= FPUS_ES | FPUS_B;
    }
    return ex & ~env->fpuc & (FPUS_IE | FPUS_DE | FPUS_ZE);
}

bool x87_underflow(CPUX86State *env)
{
    env->fpus &= ~FPUS_C1;
    return !x87_raise(env, FPUS_IE | FPUS_SF);
}

bool x87_overflow(CPUX86State *env)
{
    env->fpus |= FPUS_C1;
    return !x87_raise(env, FPUS_IE | FPUS_SF);
}

/* 00 valid, 01 zero, 10 special (NaN, infinity, denormal, unsupported). */
uint16_t x87_full_tags(CPUX86State *env)
{
    uint16_t tw = 0;

    for (unsigned p = 0; p < 8; p++) {
        const X86FPReg *r = &env->fpregs[p];
        unsigned exp = r->sexp & 0x7fff, t;

        if (env->fptags[p]) {
            t = 3;
        } else if (exp == 0) {
            t = r->mant == 0 ? 1 : 2;       /* (pseudo-)denormals: special */
        } else if (exp == 0x7fff || !(r->mant >> 63)) {
            t = 2;
        } else {
            t = 0;
        }
        tw |= t << (2 * p);
    }
    return tw;
}

/* --- memory operands ------------------------------------------------------ */

static void x87_read(CPUX86State *env, const Insn *in, unsigned fmt,
                     uint8_t *buf)
{
    uint64_t a = x86_ea(env, in), q;
    unsigned n = fmt_bytes[fmt];

    if (n == 10) {
        uint16_t w = x86_lduw(env, a + 8);

        memcpy(buf + 8, &w, 2);
        n = 8;
    }
    q = mem_read(env, __builtin_ctz(n), a);
    memcpy(buf, &q, n);
}

static void x87_write(CPUX86State *env, const Insn *in, unsigned fmt,
                      const uint8_t *buf)
{
    uint64_t a = x86_ea(env, in), q = 0;
    unsigned n = fmt_bytes[fmt];

    if (n == 10) {
        /* Both pieces are checked before either is written. */
        x86_lduw(env, a + 8);
        n = 8;
    }
    memcpy(&q, buf, n);
    mem_write(env, __builtin_ctz(n), a, q);
    if (fmt_bytes[fmt] == 10) {
        uint16_t w;

        memcpy(&w, buf + 8, 2);
        x86_stw(env, a + 8, w);
    }
}

/* A result for ST(i) from the host unless an unmasked fault stopped it. */
static bool x87_result(CPUX86State *env, unsigned i, const X86FPReg *v,
                       uint16_t sw)
{
    x87_codes(env, sw, X87_CC);
    if (x87_raise(env, sw & X87_EXC)) {
        return false;
    }
    x87_set(env, i, v);
    return true;
}

/* --- arithmetic ----------------------------------------------------------- */

/* fadd..fdivr ST(0), m32/m64/m16int/m32int (aux: op, aux2: format). */
uintptr_t x87_op_arith_m(CPUX86State *env, const Insn *in)
{
    uint8_t buf[16];

    x87_begin(env, in);
    x87_read(env, in, in->aux2, buf);
    if (x87_empty(env, 0)) {
        if (x87_underflow(env)) {
            x87_set(env, 0, &x87_indefinite);
        }
    } else {
        X86FPReg d = *x87_st(env, 0);
        uint16_t sw = x87_host_arith(in->aux, &d, buf, in->aux2, env->fpuc,
                                     env->fpus);

        x87_result(env, 0, &d, sw);
    }
    return x86_next(env, in);
}

/*
 * fadd..fdivr between ST(0) and ST(i): into ST(0), or into ST(i) with
 * X87F_STI (the "r" of dc/de e0..ff names the order of the operands,
 * aux has it resolved), then a pop with X87F_POP.
 */
uintptr_t x87_op_arith_r(CPUX86State *env, const Insn *in)
{
    bool sti = in->imm & X87F_STI;
    unsigned di = sti ? in->rm : 0, si = sti ? 0 : in->rm;
    bool done;

    x87_begin(env, in);
    if (x87_empty(env, 0) || x87_empty(env, in->rm)) {
        done = x87_underflow(env);
        if (done) {
            x87_set(env, di, &x87_indefinite);
        }
    } else {
        X86FPReg d = *x87_st(env, di), s = *x87_st(env, si);
        uint16_t sw = x87_host_arith(in->aux, &d, &s, X87_FMT_ST, env->fpuc,
                                     env->fpus);

        done = x87_result(env, di, &d, sw);
    }
    if (done && (in->imm & X87F_POP)) {
        x87_pop(env);
    }
    return x86_next(env, in);
}

/* --- compares --------------------------------------------------------------- */

/*
 * C3/C2/C0 of a compare into FSW, or ZF/PF/CF for fcomi (OF, SF, AF
 * cleared, FSW's codes left alone); C1 as the compare left it (0). The
 * processors write them also when an unmasked invalid operation stops
 * the pop.
 */
static void x87_compared(CPUX86State *env, const Insn *in, uint16_t sw)
{
    if (in->imm & X87F_EFLAGS) {
        uint32_t f = (sw & FPUS_C3 ? CC_Z : 0) | (sw & FPUS_C2 ? CC_P : 0) |
                     (sw & FPUS_C0 ? CC_C : 0);

        x86_set_eflags(env, f, CC_MASK);
    } else {
        x87_codes(env, sw, X87_CC);
    }
}

static void x87_compare_pops(CPUX86State *env, const Insn *in)
{
    if (in->imm & (X87F_POP | X87F_POP2)) {
        x87_pop(env);
    }
    if (in->imm & X87F_POP2) {
        x87_pop(env);
    }
}

/* ST(0) against a memory operand or ST(i) (or 0.0: ftst). */
static void x87_compare(CPUX86State *env, const Insn *in, bool empty,
                        const void *b, unsigned fmt)
{
    uint16_t sw;
    bool go;

    if (empty || x87_empty(env, 0)) {
        sw = FPUS_C0 | FPUS_C2 | FPUS_C3;           /* unordered */
        go = x87_underflow(env);
    } else {
        sw = x87_host_compare(in->aux, x87_st(env, 0), b, fmt, env->fpuc,
                              env->fpus);
        go = !x87_raise(env, sw & X87_EXC);
    }
    x87_compared(env, in, sw);
    if (go) {
        x87_compare_pops(env, in);
    }
}

/* fcom/fcomp/ficom/ficomp m (aux: X87_CMP_COM, aux2: format). */
uintptr_t x87_op_com_m(CPUX86State *env, const Insn *in)
{
    uint8_t buf[16];

    x87_begin(env, in);
    x87_read(env, in, in->aux2, buf);
    x87_compare(env, in, false, buf, in->aux2);
    return x86_next(env, in);
}

/* fcom*, fucom*, fcomi*, fucomi* with ST(i); ftst (aux: X87_CMP_*). */
uintptr_t x87_op_com_r(CPUX86State *env, const Insn *in)
{
    bool empty = in->aux != X87_CMP_TST && x87_empty(env, in->rm);

    x87_begin(env, in);
    x87_compare(env, in, empty, x87_st(env, in->rm), X87_FMT_ST);
    return x86_next(env, in);
}

/* --- loads and stores --------------------------------------------------------- */

/* fld/fild/fbld m (aux2: format). */
uintptr_t x87_op_ld_m(CPUX86State *env, const Insn *in)
{
    unsigned fmt = in->aux2;
    uint8_t buf[16];
    X86FPReg v;

    x87_begin(env, in);
    x87_read(env, in, fmt, buf);
    if (!x87_empty(env, 7)) {
        if (x87_overflow(env)) {
            x87_push(env, &x87_indefinite);
        }
        return x86_next(env, in);
    }
    if (fmt == X87_FMT_F80) {
        memcpy(&v.mant, buf, 8);
        memcpy(&v.sexp, buf + 8, 2);
        env->fpus &= ~FPUS_C1;
        x87_push(env, &v);
    } else {
        uint16_t sw = x87_host_load(&v, buf, fmt, env->fpuc, env->fpus);

        /* A denormal source is loaded even when DE is unmasked. */
        x87_codes(env, sw, X87_CC);
        if (!x87_raise(env, sw & X87_EXC) ||
            !(sw & ~env->fpuc & (FPUS_IE | FPUS_ZE))) {
            x87_push(env, &v);
        }
    }
    return x86_next(env, in);
}

/* fld ST(i) */
uintptr_t x87_op_ld_r(CPUX86State *env, const Insn *in)
{
    X86FPReg v = *x87_st(env, in->rm);

    x87_begin(env, in);
    if (x87_empty(env, in->rm)) {
        /* An empty source is found before a full stack. */
        if (x87_underflow(env)) {
            x87_push(env, &x87_indefinite);
        }
    } else if (!x87_empty(env, 7)) {
        if (x87_overflow(env)) {
            x87_push(env, &x87_indefinite);
        }
    } else {
        env->fpus &= ~FPUS_C1;
        x87_push(env, &v);
    }
    return x86_next(env, in);
}

/* fst/fstp/fist/fistp/fisttp/fbstp m (aux2: format; X87F_POP, _TRUNC). */
uintptr_t x87_op_st_m(CPUX86State *env, const Insn *in)
{
    unsigned fmt = in->aux2;
    bool trunc = in->imm & X87F_TRUNC;
    uint8_t buf[16];
    uint16_t sw = 0;
    X86FPReg v;

    x87_begin(env, in);
    if (x87_empty(env, 0)) {
        if (env->fpuc & FPUS_IE) {
            /* The format's indefinite, as the host writes it. */
            if (fmt == X87_FMT_F80) {
                memcpy(buf, &x87_indefinite.mant, 8);
                memcpy(buf + 8, &x87_indefinite.sexp, 2);
            } else {
                x87_host_store(buf, &x87_indefinite, fmt, trunc,
                               env->fpuc | X87_EXC, 0);
            }
            x87_write(env, in, fmt, buf);
        }
        if (x87_underflow(env) && (in->imm & X87F_POP)) {
            x87_pop(env);
        }
        return x86_next(env, in);
    }
    v = *x87_st(env, 0);
    if (fmt == X87_FMT_F80) {
        memcpy(buf, &v.mant, 8);
        memcpy(buf + 8, &v.sexp, 2);
    } else {
        memset(buf, 0, sizeof(buf));
        sw = x87_host_store(buf, &v, fmt, trunc, env->fpuc, env->fpus);
    }
    if (sw & ~env->fpuc & (FPUS_IE | FPUS_OE | FPUS_UE)) {
        x87_codes(env, sw, X87_CC);
        x87_raise(env, sw & X87_EXC);
        return x86_next(env, in);
    }
    x87_write(env, in, fmt, buf);
    if (fmt == X87_FMT_F80) {
        env->fpus &= ~FPUS_C1;
    } else {
        x87_codes(env, sw, X87_CC);
    }
    x87_raise(env, sw & X87_EXC);
    if (in->imm & X87F_POP) {
        x87_pop(env);
    }
    return x86_next(env, in);
}

/*
 * fst/fstp ST(i) (X87F_POP). fstp1 (d9 d8+i, X87F_NOFAULT) from an
 * empty ST(0) raises nothing and only pops, as AMD's processors do.
 */
uintptr_t x87_op_st_r(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    if ((in->imm & X87F_NOFAULT) && x87_empty(env, 0)) {
        env->fpus &= ~FPUS_C1;          /* ST(i) stays as it is */
    } else if (x87_empty(env, 0)) {
        if (!x87_underflow(env)) {
            return x86_next(env, in);
        }
        x87_set(env, in->rm, &x87_indefinite);
    } else {
        X86FPReg v = *x87_st(env, 0);

        env->fpus &= ~FPUS_C1;
        x87_set(env, in->rm, &v);
    }
    if (in->imm & X87F_POP) {
        x87_pop(env);
    }
    return x86_next(env, in);
}

/* --- register moves ------------------------------------------------------------ */

uintptr_t x87_op_fxch(CPUX86State *env, const Insn *in)
{
    unsigned i = in->rm;
    X86FPReg a, b;

    x87_begin(env, in);
    if (x87_empty(env, 0) || x87_empty(env, i)) {
        if (!x87_underflow(env)) {
            return x86_next(env, in);
        }
        if (x87_empty(env, 0)) {
            x87_set(env, 0, &x87_indefinite);
        }
        if (x87_empty(env, i)) {
            x87_set(env, i, &x87_indefinite);
        }
    } else {
        env->fpus &= ~FPUS_C1;
    }
    a = *x87_st(env, 0);
    b = *x87_st(env, i);
    x87_set(env, 0, &b);
    x87_set(env, i, &a);
    return x86_next(env, in);
}

/* fcmovcc ST(0), ST(i) (aux: the jcc condition). */
uintptr_t x87_op_fcmov(CPUX86State *env, const Insn *in)
{
    x87_begin(env, in);
    if (x87_empty(env, 0) || x87_empty(env, in->rm)) {
        if (x87_underflow(env)) {
            x87_set(env, 0, &x87_indefinite);
        }
    } else if (x86_cond(env, in->aux)) {
        X86FPReg v = *x87_st(env, in->rm);

        x87_set(env, 0, &v);
    }
    return x86_next(env, in);
}
