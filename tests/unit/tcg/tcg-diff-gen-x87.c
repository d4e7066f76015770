/*
 * Random x87 cases for the host differential tester (tcg-diff.h): every
 * d8..df form (memory operands in every addressing form, register
 * forms with every ST(i)), from a random x87 state: TOP, tags (empty,
 * full and in between, so stack underflow and overflow happen), the
 * registers from edge values (zeros, infinities, QNaNs, SNaNs, the
 * indefinite, denormals, pseudo-denormals, unnormals, pseudo-NaNs,
 * huge and tiny exponents, integers) and random ones, and a random
 * FCW: every precision and rounding control, the exception masks all
 * set or random. FCW, FSW, FTW and the valid ST registers are compared
 * with the integer registers, flags and memory.
 *
 * The native run must not take #MF: the state going in has no pending
 * exception (flags only where masked), and a case is one instruction,
 * or a short run of them when every exception is masked. FIP, FDP and
 * FOP are not compared (the vendors store them differently, AMD only
 * with an exception pending): after fnstenv/fnsave the case clears
 * those fields of the image in memory before it is compared.
 */
#include <string.h>

#include "target/i386/cpu-state.h"
#include "tcg-diff.h"

#define FX_FCW  0
#define FX_FSW  2
#define FX_FTW  4
#define FX_ST   32

static void put16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}

/* --- values ------------------------------------------------------------- */

typedef struct F80 {
    uint64_t mant;
    uint16_t sexp;
} F80;

static F80 f80_int(int64_t n)
{
    uint64_t m = n < 0 ? -(uint64_t)n : (uint64_t)n;
    F80 v = { 0, n < 0 ? 0x8000 : 0 };
    int msb;

    if (!m) {
        return v;
    }
    msb = 63 - __builtin_clzll(m);
    v.mant = m << (63 - msb);
    v.sexp |= 16383 + msb;
    return v;
}

static F80 pick_f80(DiffRand *r)
{
    uint64_t m = diff_rand(r);
    uint16_t sign = diff_rn(r, 2) ? 0x8000 : 0;
    int e;
    F80 v;

    switch (diff_rn(r, 18)) {
    case 0:
        v = (F80) { 0, 0 };
        break;
    case 1:
        v = (F80) { 1ull << 63, 0x7fff };
        break;
    case 2:
        v = (F80) { (3ull << 62) | (m >> 2 & (diff_rn(r, 2) ? ~0ull : 0)),
                    0x7fff };
        break;
    case 3:
        v = (F80) { (1ull << 63) | (m >> 2) | 1, 0x7fff };
        break;
    case 4:
        return (F80) { 3ull << 62, 0xffff };
    case 5:
        v = (F80) { (m >> 1) | 1, 0 };               /* denormal */
        break;
    case 6:
        v = (F80) { m | (1ull << 63), 0 };           /* pseudo-denormal */
        break;
    case 7:
        v = (F80) { m >> 1, 1 + diff_rn(r, 0x7ffe) }; /* unnormal */
        break;
    case 8:
        v = (F80) { m >> 1, 0x7fff };                /* pseudo-NaN/inf */
        break;
    case 9:
    case 10:
        return f80_int((int64_t)diff_rn(r, 2001) - 1000);
    case 11:
        e = 16383 + 55 + diff_rn(r, 20);             /* around 2^63 */
        v = (F80) { m | (1ull << 63), e };
        break;
    case 12:
        v = (F80) { m | (1ull << 63), 1 + diff_rn(r, 80) };
        break;
    case 13:
        v = (F80) { m | (1ull << 63), 0x7ffe - diff_rn(r, 80) };
        break;
    case 14:
        /* Near the float and double limits (overflow, underflow). */
        e = diff_rn(r, 2) ? 16383 + 127 : 16383 + 1023;
        e += (int)diff_rn(r, 5) - 2;
        if (diff_rn(r, 2)) {
            e = diff_rn(r, 2) ? 16383 - 126 - diff_rn(r, 30)
                              : 16383 - 1022 - diff_rn(r, 60);
        }
        v = (F80) { m | (1ull << 63), e };
        break;
    case 15:
        /* Exactly representable in fewer bits (rounding ties). */
        m &= ~0ull << (diff_rn(r, 64));
        v = (F80) { m | (1ull << 63), 16383 + diff_rn(r, 40) - 20 };
        break;
    default:
        v = (F80) { m | (1ull << 63), 16383 + diff_rn(r, 130) - 65 };
        break;
    }
    v.sexp |= sign;
    return v;
}

/* An IEEE single (mbits 23, ebits 8) or double (52, 11): edges or random. */
static uint64_t pick_ieee(DiffRand *r, unsigned mbits, unsigned ebits)
{
    uint64_t sign = 1ull << (mbits + ebits), mmask = (1ull << mbits) - 1;
    uint64_t emax = (1ull << ebits) - 1, bias = emax >> 1;
    uint64_t inf = emax << mbits, one = bias << mbits;
    const uint64_t edges[] = {
        0, sign, inf, sign | inf, inf | 1ull << (mbits - 1),
        sign | inf | 1ull << (mbits - 1), inf | 1ull << (mbits - 2),
        inf | 1, 1, sign | mmask, 1ull << mbits, one, sign | one, inf - 1,
        (bias + mbits) << mbits | 1, (bias - 1) << mbits,
    };
    unsigned range = ebits == 8 ? 60 : 200;
    uint64_t v = diff_rand(r) & (sign | (sign - 1));

    switch (diff_rn(r, 4)) {
    case 0:
        return edges[diff_rn(r, G_N_ELEMENTS(edges))];
    case 1:
        return v;
    default:
        return (v & (sign | mmask)) |
               (bias + diff_rn(r, range) - range / 2) << mbits;
    }
}

/* Packed BCD: 18 digits and a sign byte, now and then invalid digits. */
static void pick_bcd(DiffRand *r, uint64_t *lo, uint16_t *hi)
{
    uint64_t v = 0;
    unsigned n = diff_rn(r, 19);

    for (unsigned i = 0; i < 16; i++) {
        v |= (uint64_t)(i < n ? diff_rn(r, 10) : 0) << (4 * i);
    }
    *lo = v;
    *hi = (n > 16 ? diff_rn(r, 10) | diff_rn(r, 10) << 4 : 0) |
          (diff_rn(r, 2) ? 0x8000 : 0);
    if (diff_rn(r, 16) == 0) {
        *lo = diff_rand(r);
        *hi = diff_rand(r);
    }
}

/* --- the state going in --------------------------------------------------- */

/* A random FCW; all exceptions masked when all_masked. */
static uint16_t pick_fcw(DiffRand *r, bool all_masked)
{
    /* PC 24, 53, 64 bits, and now and then the reserved 01. */
    static const uint16_t pc[] = { 0, 2, 3, 3, 0, 2, 3, 1 };
    uint16_t masks = all_masked ? 0x3f : diff_rand(r) & 0x3f;

    return masks | 0x40 | pc[diff_rn(r, 8)] << 8 | diff_rn(r, 4) << 10;
}

static void pick_state(DiffCase *c, DiffRand *r, bool all_masked)
{
    uint16_t fcw = pick_fcw(r, all_masked);
    unsigned top = diff_rn(r, 8), kind = diff_rn(r, 8), n = diff_rn(r, 8);
    uint16_t fsw;
    uint8_t ftw = 0;

    for (unsigned p = 0; p < 8; p++) {
        bool valid;

        switch (kind) {
        case 0:
            valid = false;                      /* empty */
            break;
        case 1:
            valid = true;                       /* full */
            break;
        case 2:
            /* ST(0..n-1) valid, the rest empty. */
            valid = ((p - top) & 7) <= n;
            break;
        default:
            valid = diff_rn(r, 5) != 0;
            break;
        }
        ftw |= valid << p;
    }
    fsw = diff_rand(r) & (FPUS_C0 | FPUS_C1 | FPUS_C2 | FPUS_C3);
    fsw |= diff_rand(r) & fcw & 0x3f;          /* nothing pending */
    fsw |= top << 11;
    put16(c->fx + FX_FCW, fcw);
    put16(c->fx + FX_FSW, fsw);
    c->fx[FX_FTW] = ftw;
    for (unsigned i = 0; i < 8; i++) {
        F80 v = pick_f80(r);

        memcpy(c->fx + FX_ST + 16 * i, &v.mant, 8);
        memcpy(c->fx + FX_ST + 16 * i + 8, &v.sexp, 2);
    }
    c->fx_cmp = DIFF_FX_FCW | DIFF_FX_FSW | DIFF_FX_FTW | DIFF_FX_ST;
}

/* --- the forms ----------------------------------------------------------- */

/* What a memory form's operand holds (V_*) and which way it goes. */
enum { V_F32, V_F64, V_F80, V_I16, V_I32, V_I64, V_BCD, V_W, V_ENV, V_SAVE };
enum { K_IN, K_OUT, K_ENV_IN, K_ENV_OUT, K_UD };

typedef struct GenMem {
    const char *name;
    uint8_t val;
    uint8_t kind;
} GenMem;

#define ARITH_ROW(sfx, v) { \
    { "fadd" sfx, v, K_IN }, { "fmul" sfx, v, K_IN }, \
    { "fcom" sfx, v, K_IN }, { "fcomp" sfx, v, K_IN }, \
    { "fsub" sfx, v, K_IN }, { "fsubr" sfx, v, K_IN }, \
    { "fdiv" sfx, v, K_IN }, { "fdivr" sfx, v, K_IN } }

static const GenMem gen_mem[8][8] = {
    ARITH_ROW(" m32", V_F32),
    {
        { "fld m32", V_F32, K_IN }, { NULL, 0, K_UD },
        { "fst m32", V_F32, K_OUT }, { "fstp m32", V_F32, K_OUT },
        { "fldenv", V_ENV, K_ENV_IN }, { "fldcw", V_W, K_IN },
        { "fnstenv", V_ENV, K_ENV_OUT }, { "fnstcw", V_W, K_OUT },
    },
    ARITH_ROW(" m32int", V_I32),
    {
        { "fild m32", V_I32, K_IN }, { "fisttp m32", V_I32, K_OUT },
        { "fist m32", V_I32, K_OUT }, { "fistp m32", V_I32, K_OUT },
        { NULL, 0, K_UD }, { "fld m80", V_F80, K_IN },
        { NULL, 0, K_UD }, { "fstp m80", V_F80, K_OUT },
    },
    ARITH_ROW(" m64", V_F64),
    {
        { "fld m64", V_F64, K_IN }, { "fisttp m64", V_I64, K_OUT },
        { "fst m64", V_F64, K_OUT }, { "fstp m64", V_F64, K_OUT },
        { "frstor", V_SAVE, K_ENV_IN }, { NULL, 0, K_UD },
        { "fnsave", V_SAVE, K_ENV_OUT }, { "fnstsw m16", V_W, K_OUT },
    },
    ARITH_ROW(" m16int", V_I16),
    {
        { "fild m16", V_I16, K_IN }, { "fisttp m16", V_I16, K_OUT },
        { "fist m16", V_I16, K_OUT }, { "fistp m16", V_I16, K_OUT },
        { "fbld", V_BCD, K_IN }, { "fild m64", V_I64, K_IN },
        { "fbstp", V_BCD, K_OUT }, { "fistp m64", V_I64, K_OUT },
    },
};

static const uint8_t val_bytes[] = { 4, 8, 10, 2, 4, 8, 10, 2, 28, 108 };

/* The register forms that exist (d8..df, modrm c0..ff). */
static bool reg_form_valid(unsigned esc, unsigned m)
{
    switch (esc) {
    case 1:
        return !(m >= 0xd1 && m <= 0xd7) && m != 0xe2 && m != 0xe3 &&
               m != 0xe6 && m != 0xe7 && m != 0xef;
    case 2:
        return m < 0xe0 || m == 0xe9;
    case 3:
        return !(m >= 0xe5 && m <= 0xe7) && m < 0xf8;
    case 5:
        return m < 0xf0;
    case 6:
        return !(m >= 0xd8 && m <= 0xdf) || m == 0xd9;
    case 7:
        return (m < 0xe0 || m == 0xe0 || m >= 0xe8) && m < 0xf8;
    default:
        return true;
    }
}

static const char *reg_form_name(unsigned esc)
{
    static const char *const names[8] = {
        "d8 reg", "d9 reg", "da reg", "db reg", "dc reg", "dd reg",
        "de reg", "df reg",
    };

    return names[esc];
}

/* mov dword [abs], 0: clear a field natively and in the guest alike. */
static void clear_dword(DiffCase *c, uint64_t va, uint64_t addr)
{
    DiffOpnd o = { .mem = true, .form = MF_ABS, .base = -1, .index = -1,
                   .disp = (int32_t)addr, .ea = addr };
    DiffIns in = { .o = &o, .nop = 1, .op = { 0xc7 }, .immsize = 4 };

    diff_emit(c, va, &in);
}

/* A memory operand's value going in. */
static void poke_value(DiffCase *c, DiffRand *r, uint64_t ea, unsigned val)
{
    F80 f;
    uint64_t lo;
    uint16_t hi;

    switch (val) {
    case V_F32:
        diff_poke(c, ea, pick_ieee(r, 23, 8), 4);
        break;
    case V_F64:
        diff_poke(c, ea, pick_ieee(r, 52, 11), 8);
        break;
    case V_F80:
        f = pick_f80(r);
        diff_poke(c, ea, f.mant, 8);
        diff_poke(c, ea + 8, f.sexp, 2);
        break;
    case V_I16:
    case V_W:
        diff_poke(c, ea, diff_value(r), 2);
        break;
    case V_I32:
        diff_poke(c, ea, diff_value(r), 4);
        break;
    case V_I64:
        diff_poke(c, ea, diff_value(r), 8);
        break;
    case V_BCD:
        pick_bcd(r, &lo, &hi);
        diff_poke(c, ea, lo, 8);
        diff_poke(c, ea + 8, hi, 2);
        break;
    default:
        break;
    }
}

/*
 * One memory form of escape esc, modrm.reg reg; in a run of several
 * (seq), only those that leave no exception pending and use no
 * environment. Returns false when the form does not fit.
 */
static bool gen_mem_form(DiffCase *c, DiffRand *r, uint64_t va, unsigned esc,
                         unsigned reg, bool seq, uint32_t *used)
{
    const GenMem *g = &gen_mem[esc][reg];
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 1 };
    bool o16 = false;
    unsigned size, base;

    if (g->kind == K_UD) {
        return false;
    }
    /* (Registers for addresses run out in 32-bit code.) */
    if (seq && (g->kind == K_ENV_IN || g->kind == K_ENV_OUT ||
                (esc == 1 && reg == 5) || c->npoke > 2 ||
                __builtin_popcount(*used) > (diff_m32 ? 3 : 8))) {
        return false;
    }
    /* REX.W wins over 66: the 16-bit environment needs 66 alone. */
    in.w = !diff_m32 && diff_rn(r, 8) == 0;
    if (g->kind == K_ENV_IN || g->kind == K_ENV_OUT) {
        o16 = diff_rn(r, 3) == 0;
    }
    size = val_bytes[g->val];
    if (o16) {
        size -= 14;
        in.pfx[in.npfx++] = 0x66;
        o16 = !in.w;
    }
    /* Prefixes x87 instructions ignore (but 66 on the environment). */
    if (!o16 && g->kind != K_ENV_IN && g->kind != K_ENV_OUT &&
        diff_rn(r, 8) == 0) {
        in.pfx[in.npfx++] = 0x66;
    }
    in.op[0] = 0xd8 + esc;
    o.reg = reg;
    diff_pick_mem(c, r, &o, size, *used, 0);
    if (o.base >= 0) {
        *used |= 1u << o.base;
    }
    if (o.index >= 0) {
        *used |= 1u << o.index;
    }
    if (g->kind == K_IN) {
        poke_value(c, r, o.ea, g->val);
    } else if (g->kind == K_ENV_IN && diff_rn(r, 2)) {
        /* FCW and FSW (or FTW) that make sense, the rest as it is. */
        uint16_t fcw = pick_fcw(r, diff_rn(r, 2));
        uint16_t fsw = diff_rand(r);

        if (o16) {
            diff_poke(c, o.ea, fcw | (uint32_t)fsw << 16, 4);
        } else {
            diff_poke(c, o.ea, fcw | (uint64_t)fsw << 32, 8);
            diff_poke(c, o.ea + 8, diff_rand(r), 4);
        }
    }
    c->name = g->name;
    diff_emit(c, va, &in);
    if (g->kind == K_ENV_OUT) {
        /* FIP, FCS/FOP, FDP, FDS: not compared (see the top). */
        base = o16 ? 6 : 12;
        for (unsigned off = base; off < (o16 ? 14u : 28u); off += 4) {
            clear_dword(c, va, o.ea + off);
        }
    }
    return true;
}

/*
 * d9 d8+i (fstp1, an undocumented alias of fstp) from an empty ST(0):
 * ours follows AMD's processors, which only pop. Intel's behaviour is
 * not verified here, so only an AMD host runs that form.
 */
static bool diff_x87_amd;

static void gen_one(DiffCase *c, DiffRand *r, uint64_t va, bool seq,
                    uint32_t *used)
{
    for (;;) {
        unsigned esc = diff_rn(r, 8);

        if (diff_rn(r, 5) < 2) {
            if (gen_mem_form(c, r, va, esc, diff_rn(r, 8), seq, used)) {
                return;
            }
        } else {
            unsigned m = 0xc0 + diff_rn(r, 64);
            DiffIns in = { .nop = 2, .op = { 0xd8 + esc, m } };

            /* fnstsw ax could change a later operand's base register. */
            if (!reg_form_valid(esc, m) || (seq && esc == 7 && m == 0xe0)) {
                continue;
            }
            if (!diff_x87_amd && esc == 1 && m >= 0xd8 && m <= 0xdf) {
                continue;
            }
            if (diff_rn(r, 8) == 0) {
                in.pfx[in.npfx++] = 0x66;
            }
            in.w = !diff_m32 && diff_rn(r, 8) == 0;
            c->name = reg_form_name(esc);
            diff_emit(c, va, &in);
            return;
        }
    }
}

void diff_gen_x87(DiffCase *c, DiffRand *r, uint64_t va, unsigned host,
                  const X86Vendor *vendor, bool code32)
{
    bool all_masked = diff_rn(r, 2) == 0;
    uint32_t used = 0;

    (void)host;
    diff_x87_amd = vendor->id == X86_VENDOR_AMD;
    diff_m32 = code32;
    diff_case_init(c, r, "x87");
    pick_state(c, r, all_masked);
    if (all_masked && diff_rn(r, 3) == 0) {
        unsigned n = 2 + diff_rn(r, 3);

        for (unsigned i = 0; i < n; i++) {
            if (diff_rn(r, 8) == 0) {
                diff_put(c, 0x9b);              /* fwait */
            }
            gen_one(c, r, va, true, &used);
        }
        c->name = "x87 sequence";
    } else {
        gen_one(c, r, va, false, &used);
    }
}
