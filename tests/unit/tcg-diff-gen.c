/*
 * Random cases for the host differential tester (tcg-diff.h): each
 * generator encodes one instruction form with random registers,
 * operand sizes and addressing forms, picks operands from edge values
 * and random ones, and says which flags the SDM defines afterwards
 * (undefined ones are not compared).
 */
#include <string.h>

#include "target/i386/cpu-state.h"
#include "tcg-diff.h"

#define ALL_FLAGS   (CC_MASK | DF_MASK)

/* Generating for 32-bit code (compatibility mode): no REX, no 64-bit. */
static bool m32;

uint64_t diff_rand(DiffRand *r)
{
    /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

static unsigned rn(DiffRand *r, unsigned n)
{
    return diff_rand(r) % n;
}

/* Edge values and random ones, in every width. */
static uint64_t value(DiffRand *r)
{
    static const uint64_t edges[] = {
        0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
        0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
        0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~1ull,
        0x8000000000000001ull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull,
    };
    uint64_t v = diff_rand(r);

    switch (rn(r, 8)) {
    case 0:
    case 1:
    case 2:
        return edges[rn(r, G_N_ELEMENTS(edges))];
    case 3:
        return v & 0xff;
    case 4:
        return v & 0xffff;
    case 5:
        return v & 0xffffffff;
    case 6:
        return (uint64_t)(int64_t)(int8_t)v;
    default:
        return v;
    }
}

static const uint64_t size_mask[4] = {
    0xff, 0xffff, 0xffffffff, ~0ull
};

/* An operand size: 0..3 (8..64 bits), 0..2 in 32-bit code. */
static int pick_size(DiffRand *r, int min)
{
    return min + rn(r, (m32 ? 3 : 4) - min);
}

/* A register 0..15 outside avoid. */
static unsigned pick_reg(DiffRand *r, uint32_t avoid)
{
    unsigned n;

    do {
        n = rn(r, m32 ? 8 : 16);
    } while (avoid & (1u << n));
    return n;
}

static void poke(DiffCase *c, uint64_t addr, uint64_t value, unsigned size)
{
    g_assert(c->npoke < G_N_ELEMENTS(c->poke));
    c->poke[c->npoke].addr = addr;
    c->poke[c->npoke].value = value;
    c->poke[c->npoke].size = size;
    c->npoke++;
}

static void case_init(DiffCase *c, DiffRand *r, const char *name)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    for (int i = 0; i < 16; i++) {
        c->regs[i] = value(r);
    }
    c->regs[R_ESP] = DIFF_STACK;
    c->flags = (diff_rand(r) & CC_MASK) | (rn(r, 4) == 0 ? DF_MASK : 0);
    c->flag_mask = ALL_FLAGS;
    c->reg_mask = 0xffff;
}

/* --- encoding ------------------------------------------------------------ */

enum {
    MF_BASE, MF_BASE_D8, MF_BASE_D32, MF_SIB, MF_SIB_D8, MF_INDEX_D32,
    MF_RIP, MF_ABS, MF_NUM
};

typedef struct Opnd {
    bool mem;
    unsigned reg;               /* modrm.reg: a register or /digit */
    unsigned rm;                /* the register operand when !mem */
    unsigned form;
    int base, index;
    unsigned scale;
    int32_t disp;
    bool a32;                   /* 67 prefix */
    uint64_t ea;
} Opnd;

/*
 * A memory operand of size bytes in the data area: an addressing form,
 * base and index registers (outside avoid and never rsp) whose values
 * make the address come out right.
 */
static void pick_mem(DiffCase *c, DiffRand *r, Opnd *o, unsigned size,
                     uint32_t avoid, unsigned align)
{
    uint64_t ea = DIFF_DATA + 0x100 + rn(r, DIFF_DATA_SIZE - 0x200);
    int64_t idx = 0;

    avoid |= 1u << R_ESP;
    if (align) {
        ea &= ~(uint64_t)(align - 1);
    }
    o->mem = true;
    o->a32 = !m32 && rn(r, 6) == 0;
    o->form = rn(r, MF_NUM);
    o->ea = ea;
    o->base = o->index = -1;
    o->scale = rn(r, 4);
    o->disp = 0;
    if (o->form <= MF_SIB_D8) {
        o->base = pick_reg(r, avoid);
    }
    if (o->form >= MF_SIB && o->form <= MF_INDEX_D32) {
        o->index = pick_reg(r, avoid | (o->base >= 0 ? 1u << o->base : 0));
        idx = (int64_t)rn(r, 48) - 16;
    }
    switch (o->form) {
    case MF_BASE_D8:
    case MF_SIB_D8:
        o->disp = (int8_t)diff_rand(r);
        break;
    case MF_BASE_D32:
        o->disp = (int32_t)rn(r, 0x20000) - 0x10000;
        break;
    case MF_INDEX_D32:
        o->disp = ea - ((uint64_t)idx << o->scale);
        break;
    case MF_ABS:
        o->disp = ea;
        break;
    default:
        break;
    }
    if (o->index >= 0) {
        c->regs[o->index] = o->a32 ? (diff_rand(r) << 32) | (uint32_t)idx
                                   : (uint64_t)idx;
    }
    if (o->base >= 0) {
        uint64_t b = ea - o->disp - ((uint64_t)idx << o->scale);

        c->regs[o->base] = o->a32 ? (diff_rand(r) << 32) | (uint32_t)b : b;
    }
}

typedef struct Ins {
    uint8_t pfx[4];
    unsigned npfx;
    bool w;                     /* REX.W */
    bool force_rex;             /* a REX even with no bit set */
    bool rex_b;                 /* REX.B for a register in the opcode */
    uint8_t op[3];
    unsigned nop;
    Opnd *o;                    /* modrm operands, or NULL */
    uint64_t imm;
    unsigned immsize;
    uint64_t imm2;
    unsigned imm2size;
} Ins;

static void put(DiffCase *c, uint8_t b)
{
    g_assert(c->len < sizeof(c->code));
    c->code[c->len++] = b;
}

static void put_n(DiffCase *c, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        put(c, v >> (8 * i));
    }
}

/* Append one instruction; va is the address of c->code[0]. */
static void emit(DiffCase *c, uint64_t va, const Ins *in)
{
    Opnd *o = in->o;
    unsigned rex = 0x40;
    int rip_at = -1;

    for (unsigned i = 0; i < in->npfx; i++) {
        put(c, in->pfx[i]);
    }
    if (o && o->mem && o->a32) {
        put(c, 0x67);
    }
    rex |= in->w ? 8 : 0;
    rex |= in->rex_b ? 1 : 0;
    if (o) {
        rex |= o->reg & 8 ? 4 : 0;
        if (o->mem) {
            rex |= o->index >= 8 ? 2 : 0;
            rex |= o->base >= 8 ? 1 : 0;
        } else {
            rex |= o->rm & 8 ? 1 : 0;
        }
    }
    if (rex != 0x40 || in->force_rex) {
        g_assert(!m32);
        put(c, rex);
    }
    for (unsigned i = 0; i < in->nop; i++) {
        put(c, in->op[i]);
    }
    if (o && !o->mem) {
        put(c, 0xc0 | (o->reg & 7) << 3 | (o->rm & 7));
    } else if (o) {
        unsigned reg3 = (o->reg & 7) << 3, b3 = o->base & 7;
        unsigned mod;

        switch (o->form) {
        case MF_BASE:
        case MF_BASE_D8:
        case MF_BASE_D32:
            mod = o->form == MF_BASE ? 0 : o->form == MF_BASE_D8 ? 1 : 2;
            if (mod == 0 && b3 == 5) {
                mod = 1;                        /* [rbp] needs a disp8 */
            }
            if (b3 == 4) {
                put(c, mod << 6 | reg3 | 4);
                put(c, 0x24);                   /* no index, base r12 */
            } else {
                put(c, mod << 6 | reg3 | b3);
            }
            if (mod == 1) {
                put(c, o->disp);
            } else if (mod == 2) {
                put_n(c, (uint32_t)o->disp, 4);
            }
            break;
        case MF_SIB:
        case MF_SIB_D8:
            mod = o->form == MF_SIB && b3 != 5 ? 0 : 1;
            put(c, mod << 6 | reg3 | 4);
            put(c, o->scale << 6 | (o->index & 7) << 3 | b3);
            if (mod == 1) {
                put(c, o->disp);
            }
            break;
        case MF_INDEX_D32:
            put(c, reg3 | 4);
            put(c, o->scale << 6 | (o->index & 7) << 3 | 5);
            put_n(c, (uint32_t)o->disp, 4);
            break;
        case MF_RIP:
            /* 32-bit code: the same encoding is an absolute address. */
            put(c, reg3 | 5);
            if (m32) {
                o->disp = o->ea;
                put_n(c, (uint32_t)o->ea, 4);
                break;
            }
            rip_at = c->len;
            put_n(c, 0, 4);
            break;
        default:
            put(c, reg3 | 4);
            put(c, 0x25);
            put_n(c, (uint32_t)o->disp, 4);
            break;
        }
    }
    put_n(c, in->imm, in->immsize);
    put_n(c, in->imm2, in->imm2size);
    if (rip_at >= 0) {
        int32_t d = o->ea - (va + c->len);

        memcpy(&c->code[rip_at], &d, 4);
        o->disp = d;
    }
}

/* Operand-size prefix and REX.W of a size (0..3 = 8..64 bits). */
static void size_prefix(Ins *in, DiffRand *r, int sz)
{
    if (sz == 1) {
        in->pfx[in->npfx++] = 0x66;
    }
    in->w = sz == 3;
    if (sz == 0 && !m32 && rn(r, 2)) {
        in->force_rex = true;                   /* SPL..DIL, not AH..BH */
    }
}

/* The register or memory operand rm: memory half of the time. */
static void pick_rm(DiffCase *c, DiffRand *r, Opnd *o, int sz,
                    uint32_t avoid, bool allow_mem)
{
    if (allow_mem && rn(r, 2)) {
        pick_mem(c, r, o, 1u << sz, avoid, 0);
    } else {
        o->mem = false;
        o->rm = pick_reg(r, 0);
    }
}

/* A byte register number that also names AH..BH without REX. */
static unsigned byte_reg_phys(unsigned n, bool rex)
{
    return (!rex && n >= 4 && n < 8) ? n - 4 : n;
}

/* Does the instruction need a REX (and so mean SPL..DIL)? */
static bool has_rex(const Ins *in)
{
    const Opnd *o = in->o;

    return in->force_rex || in->w || in->rex_b ||
           (o && ((o->reg & 8) ||
                  (o->mem ? (o->index >= 8 || o->base >= 8) : o->rm & 8)));
}

/* --- generators ----------------------------------------------------------- */

typedef void GenFn(DiffCase *c, DiffRand *r, uint64_t va);

static void gen_alu(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[8] = {
        "add", "or", "adc", "sbb", "and", "sub", "xor", "cmp"
    };
    int op = rn(r, 8), sz = pick_size(r, 0), kind = rn(r, 4);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 1 };

    case_init(c, r, names[op]);
    if (op == 1 || op == 4 || op == 6) {
        c->flag_mask &= ~CC_A;
    }
    size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
    case 1:
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = op * 8 + (kind ? 2 : 0) + (sz ? 1 : 0);
        if (kind == 0 && o.mem && op != 7 && rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;           /* lock */
        }
        break;
    case 2:
        o.reg = op;
        pick_rm(c, r, &o, sz, 0, true);
        if (sz == 0) {
            in.op[0] = 0x80;
            in.immsize = 1;
        } else if (rn(r, 2)) {
            in.op[0] = 0x83;
            in.immsize = 1;
        } else {
            in.op[0] = 0x81;
            in.immsize = sz == 1 ? 2 : 4;
        }
        in.imm = value(r);
        break;
    default:
        in.o = NULL;
        in.op[0] = op * 8 + 4 + (sz ? 1 : 0);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        in.imm = value(r);
        break;
    }
    emit(c, va, &in);
}

static void gen_test_unary(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[6] = {
        "test", "test-imm", "not", "neg", "inc", "dec"
    };
    int kind = rn(r, 6), sz = pick_size(r, 0);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 1 };

    case_init(c, r, names[kind]);
    size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
        c->flag_mask &= ~CC_A;
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0x84 + (sz ? 1 : 0);
        if (rn(r, 4) == 0) {
            in.o = NULL;
            in.op[0] = 0xa8 + (sz ? 1 : 0);
            in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
            in.imm = value(r);
        }
        break;
    case 1:
        c->flag_mask &= ~CC_A;
        o.reg = rn(r, 2);                       /* /0 and the alias /1 */
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xf6 + (sz ? 1 : 0);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        in.imm = value(r);
        break;
    case 2:
    case 3:
        o.reg = kind;
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xf6 + (sz ? 1 : 0);
        if (o.mem && rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;
        }
        break;
    default:
        o.reg = kind - 4;
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xfe + (sz ? 1 : 0);
        if (o.mem && rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;
        }
        break;
    }
    emit(c, va, &in);
}

static unsigned shift_count(DiffRand *r, unsigned bits)
{
    static const unsigned fixed[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65 };

    switch (rn(r, 4)) {
    case 0:
        return fixed[rn(r, G_N_ELEMENTS(fixed))];
    case 1:
        return bits - 1 + rn(r, 3);
    case 2:
        return rn(r, 256);
    default:
        return rn(r, bits + 1);
    }
}

static void gen_shift(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[8] = {
        "rol", "ror", "rcl", "rcr", "shl", "shr", "sal", "sar"
    };
    int op = rn(r, 8), sz = pick_size(r, 0), src = rn(r, 3);
    unsigned bits = 8u << sz, count, masked;
    Opnd o = { .reg = op };
    Ins in = { .o = &o, .nop = 1 };

    case_init(c, r, names[op]);
    size_prefix(&in, r, sz);
    count = src == 0 ? 1 : shift_count(r, bits);
    if (src == 1) {
        c->regs[R_ECX] = (c->regs[R_ECX] & ~0xffull) | count;
    }
    pick_rm(c, r, &o, sz, 1u << R_ECX, true);
    if (src == 1 && !o.mem && sz == 0 &&
        byte_reg_phys(o.rm, has_rex(&in)) == R_ECX) {
        /* Shifting CL or CH by CL: the count is the value's byte. */
        count = c->regs[R_ECX] & 0xff;
    }
    switch (src) {
    case 0:
        in.op[0] = 0xd0 + (sz ? 1 : 0);
        break;
    case 1:
        in.op[0] = 0xd2 + (sz ? 1 : 0);
        break;
    default:
        in.op[0] = 0xc0 + (sz ? 1 : 0);
        in.imm = count;
        in.immsize = 1;
        break;
    }
    emit(c, va, &in);
    masked = count & (sz == 3 ? 63 : 31);
    if (masked == 0) {
        return;                                 /* flags unaffected */
    }
    if (masked != 1) {
        c->flag_mask &= ~CC_O;
    }
    if (op >= 4) {
        c->flag_mask &= ~CC_A;
        if (op != 7 && masked >= bits) {
            c->flag_mask &= ~CC_C;
        }
    }
}

static void gen_shxd(DiffCase *c, DiffRand *r, uint64_t va)
{
    int sz = pick_size(r, 1), right = rn(r, 2), cl = rn(r, 2);
    unsigned bits = 8u << sz, count, masked;
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };

    case_init(c, r, right ? "shrd" : "shld");
    size_prefix(&in, r, sz);
    do {
        count = shift_count(r, bits);
        masked = count & (sz == 3 ? 63 : 31);
    } while (masked > bits);                    /* undefined beyond */
    o.reg = pick_reg(r, cl ? 1u << R_ECX : 0);
    pick_rm(c, r, &o, sz, 1u << R_ECX, true);
    in.op[1] = (right ? 0xac : 0xa4) + cl;
    if (cl) {
        c->regs[R_ECX] = (c->regs[R_ECX] & ~0xffull) | count;
        if (!o.mem && o.rm == R_ECX) {
            o.rm = R_EDX;
        }
    } else {
        in.imm = count;
        in.immsize = 1;
    }
    emit(c, va, &in);
    if (masked) {
        c->flag_mask &= ~CC_A;
        if (masked != 1) {
            c->flag_mask &= ~CC_O;
        }
    }
}

static void gen_muldiv(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[4] = { "mul", "imul1", "div", "idiv" };
    int op = rn(r, 4), sz = pick_size(r, 0);
    unsigned bits = 8u << sz;
    uint64_t m = size_mask[sz], d, lo, hi;
    uint32_t avoid = op >= 2 ? (1u << R_EAX) | (1u << R_EDX) : 0;
    Opnd o = { .reg = 4 + op };
    Ins in = { .o = &o, .nop = 1 };

    case_init(c, r, names[op]);
    size_prefix(&in, r, sz);
    pick_rm(c, r, &o, sz, avoid, true);
    if (!o.mem && op >= 2) {
        /* The divisor outside the dividend's registers. */
        while ((sz == 0 ? byte_reg_phys(o.rm, has_rex(&in)) : o.rm) ==
               R_EAX || o.rm == R_EDX ||
               (sz == 0 && byte_reg_phys(o.rm, has_rex(&in)) == R_EDX)) {
            o.rm = pick_reg(r, 0);
        }
    }
    in.op[0] = 0xf6 + (sz ? 1 : 0);
    emit(c, va, &in);
    c->flag_mask = op < 2 ? CC_C | CC_O | DF_MASK : DF_MASK;
    if (op < 2) {
        return;
    }
    /* Make the division fit: a nonzero divisor, a quotient in range. */
    d = value(r) & m;
    if (d == 0) {
        d = 1 + rn(r, 200);
    }
    if (o.mem) {
        poke(c, o.ea, d, 1u << sz);
    } else if (sz == 0) {
        unsigned phys = byte_reg_phys(o.rm, has_rex(&in));
        unsigned shift = (!has_rex(&in) && o.rm >= 4 && o.rm < 8) ? 8 : 0;

        c->regs[phys] = (c->regs[phys] & ~(0xffull << shift)) | d << shift;
    } else {
        c->regs[o.rm] = (c->regs[o.rm] & ~m) | d;
    }
    lo = c->regs[R_EAX] & m;
    hi = sz == 0 ? (c->regs[R_EAX] >> 8) & 0xff : c->regs[R_EDX] & m;
    if (sz == 0) {
        lo &= 0xff;
    }
    if (op == 2) {
        if (hi >= d) {
            hi %= d;
        }
    } else {
        __int128 n, q, dv = (int64_t)(d << (64 - bits)) >> (64 - bits);
        __int128 lim = (__int128)1 << (bits - 1);

        n = ((__int128)(int64_t)(hi << (64 - bits)) >> (64 - bits)) *
            ((__int128)1 << bits) + (__int128)lo;
        q = n / dv;
        if (q >= lim || q < -lim) {
            /* Sign-extend the low half instead: then it always fits,
             * except MIN / -1. */
            hi = (int64_t)(lo << (64 - bits)) < 0 ? m : 0;
            if (lo == (uint64_t)lim && dv == -1) {
                lo = hi = 0;
            }
        }
    }
    if (sz == 0) {
        c->regs[R_EAX] = (c->regs[R_EAX] & ~0xffffull) | lo | hi << 8;
    } else {
        c->regs[R_EAX] = (c->regs[R_EAX] & ~m) | lo;
        c->regs[R_EDX] = (c->regs[R_EDX] & ~m) | hi;
    }
}

static void gen_imul(DiffCase *c, DiffRand *r, uint64_t va)
{
    int sz = pick_size(r, 1), kind = rn(r, 3);
    Opnd o = { 0 };
    Ins in = { .o = &o };

    case_init(c, r, kind == 0 ? "imul2" : "imul3");
    size_prefix(&in, r, sz);
    o.reg = pick_reg(r, 0);
    pick_rm(c, r, &o, sz, 0, true);
    if (kind == 0) {
        in.op[0] = 0x0f;
        in.op[1] = 0xaf;
        in.nop = 2;
    } else {
        in.op[0] = kind == 1 ? 0x6b : 0x69;
        in.nop = 1;
        in.immsize = kind == 1 ? 1 : sz == 1 ? 2 : 4;
        in.imm = value(r);
    }
    emit(c, va, &in);
    c->flag_mask = CC_C | CC_O | DF_MASK;
}

static void gen_bt(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[4] = { "bt", "bts", "btr", "btc" };
    int op = rn(r, 4), sz = pick_size(r, 1), imm = rn(r, 2);
    unsigned bits = 8u << sz;
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };

    case_init(c, r, names[op]);
    size_prefix(&in, r, sz);
    if (imm) {
        o.reg = 4 + op;
        in.op[1] = 0xba;
        in.imm = diff_rand(r);
        in.immsize = 1;
        pick_rm(c, r, &o, sz, 0, true);
    } else {
        o.reg = pick_reg(r, 1u << R_ESP);
        in.op[1] = 0xa3 + 8 * op;
        pick_rm(c, r, &o, sz, 1u << o.reg, true);
        if (o.mem) {
            /* A signed bit offset reaching a few words either side. */
            int64_t off = (int64_t)rn(r, bits * 16) - bits * 8;

            c->regs[o.reg] = (c->regs[o.reg] & ~size_mask[sz]) |
                             ((uint64_t)off & size_mask[sz]);
        }
    }
    if (o.mem && op && rn(r, 4) == 0) {
        in.pfx[in.npfx++] = 0xf0;
    }
    emit(c, va, &in);
    c->flag_mask = CC_C | CC_Z | DF_MASK;
}

static void gen_bitscan(DiffCase *c, DiffRand *r, uint64_t va,
                        unsigned host, const X86Vendor *vendor)
{
    static const char *const names[5] = {
        "bsf", "bsr", "tzcnt", "lzcnt", "popcnt"
    };
    int kind, sz = pick_size(r, 1);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };
    uint64_t v;

    do {
        kind = rn(r, 5);
    } while ((kind == 2 && !(host & DIFF_HOST_TZCNT)) ||
             (kind == 3 && !(host & DIFF_HOST_LZCNT)) ||
             (kind == 4 && !(host & DIFF_HOST_POPCNT)));
    case_init(c, r, names[kind]);
    if (kind >= 2) {
        in.pfx[in.npfx++] = 0xf3;
    }
    size_prefix(&in, r, sz);
    o.reg = pick_reg(r, 0);
    pick_rm(c, r, &o, sz, 0, true);
    in.op[1] = kind == 4 ? 0xb8 : (kind & 1) ? 0xbd : 0xbc;
    emit(c, va, &in);
    /* A source with few bits set, zero, or anything. */
    switch (rn(r, 3)) {
    case 0:
        v = 0;
        break;
    case 1:
        v = 1ull << rn(r, 64);
        break;
    default:
        v = value(r);
        break;
    }
    if (o.mem) {
        poke(c, o.ea, v, 2u << (sz - 1));
    } else {
        c->regs[o.rm] = v;
    }
    switch (kind) {
    case 0:
    case 1:
        c->flag_mask = CC_Z | DF_MASK;
        /* The destination after a zero source is the vendor's choice. */
        if (v == 0 && !vendor->bsf_zero_source_defined) {
            c->reg_mask &= ~(1u << o.reg);
        }
        break;
    case 2:
    case 3:
        c->flag_mask = CC_Z | CC_C | DF_MASK;
        break;
    default:
        break;
    }
}

static void gen_cmov_setcc(DiffCase *c, DiffRand *r, uint64_t va)
{
    int cond = rn(r, 16), sz = pick_size(r, 1);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };

    if (rn(r, 2)) {
        case_init(c, r, "cmov");
        size_prefix(&in, r, sz);
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.op[1] = 0x40 + cond;
    } else {
        case_init(c, r, "setcc");
        size_prefix(&in, r, 0);
        o.reg = rn(r, 8);                       /* ignored by setcc */
        pick_rm(c, r, &o, 0, 0, true);
        in.op[1] = 0x90 + cond;
    }
    emit(c, va, &in);
}

/*
 * A mov of a marker the branch under test jumps over: mov r11, imm64
 * (10 bytes), or mov edi, imm32 (5 bytes) in 32-bit code.
 */
static Ins skipped_mov(void)
{
    if (m32) {
        return (Ins) { .nop = 1, .op = { 0xbf }, .imm = 0x11223344,
                       .immsize = 4 };
    }
    return (Ins) { .rex_b = true, .w = true, .nop = 1, .op = { 0xbb },
                   .imm = 0x1122334455667788ull, .immsize = 8 };
}

/* jcc over the marker mov: the marker register tells if it was taken. */
static void gen_jcc(DiffCase *c, DiffRand *r, uint64_t va)
{
    int cond = rn(r, 16);
    Ins mov = skipped_mov();
    Ins jcc = { .nop = 1, .imm = m32 ? 5 : 10 };

    case_init(c, r, "jcc");
    if (rn(r, 2)) {
        jcc.op[0] = 0x70 + cond;
        jcc.immsize = 1;
    } else {
        jcc.op[0] = 0x0f;
        jcc.op[1] = 0x80 + cond;
        jcc.nop = 2;
        jcc.immsize = 4;
    }
    emit(c, va, &jcc);
    emit(c, va, &mov);
}

static void gen_loop(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = rn(r, 4);
    Ins mov = skipped_mov();
    Ins loop = { .nop = 1, .op = { 0xe0 + kind }, .imm = m32 ? 5 : 10,
                 .immsize = 1 };

    case_init(c, r, kind == 3 ? "jrcxz" : "loop");
    c->regs[R_ECX] = rn(r, 3) ? rn(r, 3) : value(r);
    if (rn(r, 4) == 0) {
        loop.pfx[loop.npfx++] = 0x67;
        c->regs[R_ECX] |= diff_rand(r) << 32;
    }
    emit(c, va, &loop);
    emit(c, va, &mov);
}

static void gen_string(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[5] = {
        "movs", "cmps", "stos", "lods", "scas"
    };
    static const uint8_t ops[5] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
    int kind = rn(r, 5), sz = pick_size(r, 0), rep = rn(r, 3);
    unsigned size = 1u << sz;
    Ins in = { .nop = 1 };
    bool a32 = !m32 && rn(r, 5) == 0;

    case_init(c, r, names[kind]);
    if (rep) {
        in.pfx[in.npfx++] = rep == 1 ? 0xf3 : 0xf2;
    }
    if (a32) {
        in.pfx[in.npfx++] = 0x67;
    }
    size_prefix(&in, r, sz);
    in.force_rex = in.force_rex && rn(r, 2);
    in.op[0] = ops[kind] + (sz ? 1 : 0);
    emit(c, va, &in);
    c->regs[R_ECX] = rn(r, 8) ? rn(r, 9) : rn(r, 40);
    c->regs[R_ESI] = DIFF_DATA + 0x300 + rn(r, 0x600);
    if (kind == 0 && rn(r, 3) == 0) {
        /* Overlapping copies, both ways. */
        c->regs[R_EDI] = c->regs[R_ESI] + (int)rn(r, 33) - 16;
    } else if (kind == 1 && rn(r, 3) == 0) {
        c->regs[R_EDI] = c->regs[R_ESI];        /* equal all the way */
    } else {
        c->regs[R_EDI] = DIFF_DATA + 0xa00 + rn(r, 0x600);
    }
    if (kind == 4 && rn(r, 2)) {
        /* A few elements equal to rAX so repe runs on. */
        for (unsigned i = 0; i < 3; i++) {
            int64_t step = (c->flags & DF_MASK) ? -(int64_t)size : size;

            poke(c, c->regs[R_EDI] + i * step, c->regs[R_EAX], size);
        }
    }
    if (a32) {
        c->regs[R_ECX] |= diff_rand(r) << 32;
        c->regs[R_ESI] |= diff_rand(r) << 32;
        c->regs[R_EDI] |= diff_rand(r) << 32;
    }
}

static void gen_lea(DiffCase *c, DiffRand *r, uint64_t va)
{
    int sz = pick_size(r, 1);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 1, .op = { 0x8d } };

    case_init(c, r, "lea");
    size_prefix(&in, r, sz);
    o.reg = pick_reg(r, 0);
    pick_mem(c, r, &o, 1, 0, 0);
    /* No access: any register values will do. */
    if (o.base >= 0 && rn(r, 2)) {
        c->regs[o.base] = value(r);
    }
    if (o.index >= 0 && rn(r, 2)) {
        c->regs[o.index] = value(r);
    }
    emit(c, va, &in);
}

static void gen_movx(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = rn(r, m32 ? 4 : 5), sz = pick_size(r, 1), ssz;
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };

    case_init(c, r, kind == 4 ? "movsxd" : kind >= 2 ? "movsx" : "movzx");
    if (kind == 4) {
        sz = 2 + rn(r, 2);              /* movsxd: 64-bit code only */
        ssz = 2;
        in.nop = 1;
        in.op[0] = 0x63;
    } else {
        ssz = kind & 1;
        in.op[1] = (kind >= 2 ? 0xbe : 0xb6) + ssz;
        if (ssz == 1 && sz == 1) {
            sz = 2;
        }
    }
    size_prefix(&in, r, sz);
    if (ssz == 0 && !m32 && rn(r, 2)) {
        in.force_rex = true;
    }
    o.reg = pick_reg(r, 0);
    pick_rm(c, r, &o, ssz, 0, true);
    emit(c, va, &in);
}

static void gen_cbw(DiffCase *c, DiffRand *r, uint64_t va)
{
    int sz = pick_size(r, 1);
    Ins in = { .nop = 1, .op = { rn(r, 2) ? 0x98 : 0x99 } };

    case_init(c, r, in.op[0] == 0x98 ? "cbw" : "cwd");
    size_prefix(&in, r, sz);
    emit(c, va, &in);
}

static void gen_mov(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = rn(r, 4), sz = pick_size(r, 0);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 1 };

    case_init(c, r, "mov");
    size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0x88 + 2 * rn(r, 2) + (sz ? 1 : 0);
        break;
    case 1:
        pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xc6 + (sz ? 1 : 0);
        in.imm = value(r);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        break;
    case 2:
        in.o = NULL;
        o.rm = pick_reg(r, 0);
        in.rex_b = o.rm >= 8;
        in.op[0] = (sz ? 0xb8 : 0xb0) + (o.rm & 7);
        in.imm = value(r);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : sz == 2 ? 4 : 8;
        break;
    default: {
        /* moffs: the absolute address in the instruction. */
        bool a32 = !m32 && rn(r, 3) == 0;
        uint64_t ea = DIFF_DATA + rn(r, DIFF_DATA_SIZE - 8);

        in.o = NULL;
        if (a32) {
            in.pfx[in.npfx++] = 0x67;
        }
        in.op[0] = 0xa0 + 2 * rn(r, 2) + (sz ? 1 : 0);
        in.imm = ea;
        in.immsize = a32 || m32 ? 4 : 8;
        break;
    }
    }
    emit(c, va, &in);
}

static void gen_xchg_family(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = rn(r, 4), sz = pick_size(r, 0);
    Opnd o = { 0 };
    Ins in = { .o = &o, .nop = 2, .op = { 0x0f } };

    switch (kind) {
    case 0:
        case_init(c, r, "xchg");
        size_prefix(&in, r, sz);
        if (sz && rn(r, 4) == 0) {
            /* 90+r: xchg rAX, r (90 itself is nop unless REX.B). */
            in.o = NULL;
            o.rm = pick_reg(r, 0);
            in.rex_b = o.rm >= 8;
            in.nop = 1;
            in.op[0] = 0x90 + (o.rm & 7);
            break;
        }
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.nop = 1;
        in.op[0] = 0x86 + (sz ? 1 : 0);
        break;
    case 1:
        case_init(c, r, "xadd");
        size_prefix(&in, r, sz);
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 0, true);
        in.op[1] = 0xc0 + (sz ? 1 : 0);
        break;
    case 2:
        case_init(c, r, "cmpxchg");
        size_prefix(&in, r, sz);
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, sz, 1u << R_EAX, true);
        in.op[1] = 0xb0 + (sz ? 1 : 0);
        if (rn(r, 2)) {
            /* Make the compare succeed. */
            if (o.mem) {
                poke(c, o.ea, c->regs[R_EAX], 1u << sz);
            } else if (sz) {
                c->regs[o.rm] = c->regs[R_EAX];
            }
        }
        break;
    default: {
        bool b16 = !m32 && rn(r, 2);

        case_init(c, r, b16 ? "cmpxchg16b" : "cmpxchg8b");
        in.w = b16;
        o.reg = 1;
        pick_mem(c, r, &o, b16 ? 16 : 8,
                 (1u << R_EAX) | (1u << R_EDX) | (1u << R_EBX) |
                 (1u << R_ECX), b16 ? 16 : 0);
        in.op[1] = 0xc7;
        if (rn(r, 2)) {
            if (b16) {
                poke(c, o.ea, c->regs[R_EAX], 8);
                poke(c, o.ea + 8, c->regs[R_EDX], 8);
            } else {
                poke(c, o.ea, (uint32_t)c->regs[R_EAX] |
                     (c->regs[R_EDX] << 32), 8);
            }
        }
        break;
    }
    }
    if (o.mem && kind && rn(r, 3) == 0) {
        in.pfx[in.npfx++] = 0xf0;
    }
    emit(c, va, &in);
}

static void gen_bswap_movbe(DiffCase *c, DiffRand *r, uint64_t va,
                            unsigned host)
{
    Opnd o = { 0 };
    Ins in = { .nop = 2, .op = { 0x0f } };
    int sz;

    if (!(host & DIFF_HOST_MOVBE) || rn(r, 2)) {
        case_init(c, r, "bswap");
        o.rm = pick_reg(r, 0);
        in.rex_b = o.rm >= 8;
        in.w = !m32 && rn(r, 2);
        in.op[1] = 0xc8 + (o.rm & 7);
        emit(c, va, &in);
        return;
    }
    case_init(c, r, "movbe");
    sz = pick_size(r, 1);
    size_prefix(&in, r, sz);
    in.o = &o;
    in.nop = 3;
    in.op[1] = 0x38;
    in.op[2] = 0xf0 + rn(r, 2);
    o.reg = pick_reg(r, 0);
    pick_mem(c, r, &o, 1u << sz, 0, 0);
    emit(c, va, &in);
}

static void gen_flagops(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const uint8_t ops[] = { 0xf5, 0xf8, 0xf9, 0xfc, 0xfd, 0x9e, 0x9f };
    Ins in = { .nop = 1, .op = { ops[rn(r, G_N_ELEMENTS(ops))] } };

    case_init(c, r, "flagop");
    emit(c, va, &in);
}

static void gen_xlat_nop(DiffCase *c, DiffRand *r, uint64_t va)
{
    Opnd o = { 0 };
    Ins in = { .nop = 1 };

    switch (rn(r, 4)) {
    case 0:
        case_init(c, r, "xlat");
        in.op[0] = 0xd7;
        in.w = !m32 && rn(r, 2);
        c->regs[R_EBX] = DIFF_DATA + rn(r, 0x1000);
        break;
    case 1:
        case_init(c, r, "nop");
        in.op[0] = 0x90;
        if (rn(r, 2)) {
            in.pfx[in.npfx++] = rn(r, 2) ? 0x66 : 0xf3;
        }
        break;
    default:
        case_init(c, r, "nopl");
        size_prefix(&in, r, pick_size(r, 1));
        in.o = &o;
        in.nop = 2;
        in.op[0] = 0x0f;
        in.op[1] = 0x1f;
        pick_rm(c, r, &o, 2, 0, true);
        break;
    }
    emit(c, va, &in);
}

static void gen_stack(DiffCase *c, DiffRand *r, uint64_t va)
{
    Opnd o = { 0 };
    Ins in = { .nop = 1 };
    unsigned reg, word = m32 ? 4 : 8;

    switch (rn(r, 12)) {
    case 0:
    case 1:
        reg = pick_reg(r, 0);
        case_init(c, r, rn(r, 2) ? "push" : "pop");
        in.op[0] = (c->name[1] == 'u' ? 0x50 : 0x58) + (reg & 7);
        in.rex_b = reg >= 8;
        if (rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0x66;
        }
        break;
    case 2:
        case_init(c, r, "push-imm");
        if (rn(r, 2)) {
            in.op[0] = 0x6a;
            in.immsize = 1;
        } else {
            in.op[0] = 0x68;
            in.immsize = 4;
            if (rn(r, 4) == 0) {
                in.pfx[in.npfx++] = 0x66;
                in.immsize = 2;
            }
        }
        in.imm = value(r);
        break;
    case 3:
        case_init(c, r, "push-pop-mem");
        in.o = &o;
        if (rn(r, 2)) {
            in.op[0] = 0xff;
            o.reg = 6;
        } else {
            in.op[0] = 0x8f;
        }
        pick_mem(c, r, &o, word, 0, 0);
        break;
    case 4:
        case_init(c, r, "pushf-popf");
        in.op[0] = 0x9c + rn(r, 2);
        if (in.op[0] == 0x9d) {
            poke(c, DIFF_STACK, (diff_rand(r) & (CC_MASK | DF_MASK)) |
                 IF_MASK | EFLAGS_FIXED, word);
        }
        break;
    case 5: {
        /* enter with a few levels, frame pointer in the stack area. */
        case_init(c, r, "enter");
        in.op[0] = 0xc8;
        in.imm = rn(r, 0x80) * 8;
        in.immsize = 2;
        in.imm2 = rn(r, 5);
        in.imm2size = 1;
        c->regs[R_EBP] = DIFF_STACK + 0x40 + rn(r, 0x100) * 8;
        break;
    }
    case 6:
        case_init(c, r, "leave");
        in.op[0] = 0xc9;
        c->regs[R_EBP] = DIFF_STACK - 0x100 + rn(r, 0x40) * 8;
        break;
    case 7:
        case_init(c, r, "call");
        in.op[0] = 0xe8;
        in.immsize = 4;
        break;
    case 8:
    case 9: {
        /* call/jmp through a register or memory to the next address. */
        bool call = rn(r, 2);

        case_init(c, r, call ? "call-ind" : "jmp-ind");
        in.op[0] = 0xff;
        in.o = &o;
        o.reg = call ? 2 : 4;
        pick_rm(c, r, &o, m32 ? 2 : 3, 0, true);
        if (!o.mem && o.rm == R_ESP) {
            o.rm = R_EAX;
        }
        emit(c, va, &in);
        if (o.mem) {
            poke(c, o.ea, va + c->len, word);
        } else {
            c->regs[o.rm] = va + c->len;
        }
        return;
    }
    case 10:
        case_init(c, r, "ret");
        in.op[0] = rn(r, 2) ? 0xc3 : 0xc2;
        if (in.op[0] == 0xc2) {
            in.imm = rn(r, 0x40) * 8 + rn(r, 2);
            in.immsize = 2;
        }
        emit(c, va, &in);
        poke(c, DIFF_STACK, va + c->len, word);
        return;
    default:
        case_init(c, r, "jmp");
        if (rn(r, 2)) {
            in.op[0] = 0xeb;
            in.immsize = 1;
        } else {
            in.op[0] = 0xe9;
            in.immsize = 4;
        }
        break;
    }
    emit(c, va, &in);
}

/*
 * An ALU operation or test followed by a jcc over the marker mov: the
 * pairs the decoder runs as one (ops-fused.c).
 */
static void gen_alu_jcc(DiffCase *c, DiffRand *r, uint64_t va)
{
    Ins mov = skipped_mov();
    Ins jcc = { .nop = 1, .imm = m32 ? 5 : 10 };
    int cond = rn(r, 16);

    do {
        if (rn(r, 3)) {
            gen_alu(c, r, va);
        } else {
            gen_test_unary(c, r, va);
        }
    } while (strcmp(c->name, "add") && strcmp(c->name, "and") &&
             strcmp(c->name, "sub") && strcmp(c->name, "cmp") &&
             strncmp(c->name, "test", 4) && strcmp(c->name, "or"));
    if (rn(r, 2)) {
        jcc.op[0] = 0x70 + cond;
        jcc.immsize = 1;
    } else {
        jcc.op[0] = 0x0f;
        jcc.op[1] = 0x80 + cond;
        jcc.nop = 2;
        jcc.immsize = 4;
    }
    emit(c, va, &jcc);
    emit(c, va, &mov);
}

/* 32-bit code only: BCD adjustments and salc. */
static void gen_bcd(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const uint8_t ops[] = { 0x27, 0x2f, 0x37, 0x3f, 0xd4, 0xd5, 0xd6 };
    uint8_t op = ops[rn(r, G_N_ELEMENTS(ops))];
    Ins in = { .nop = 1, .op = { op } };

    case_init(c, r, "bcd");
    switch (op) {
    case 0x27:
    case 0x2f:
        c->flag_mask &= ~CC_O;
        break;
    case 0x37:
    case 0x3f:
        c->flag_mask = CC_A | CC_C | DF_MASK;
        break;
    case 0xd4:
    case 0xd5:
        c->flag_mask &= ~(CC_O | CC_A | CC_C);
        in.imm = rn(r, 3) ? 10 : 1 + rn(r, 255);
        in.immsize = 1;
        break;
    default:
        break;
    }
    emit(c, va, &in);
}

/* 32-bit code only: inc/dec r (40-4f), pusha/popa, bound, arpl. */
static void gen_legacy32(DiffCase *c, DiffRand *r, uint64_t va)
{
    Opnd o = { 0 };
    Ins in = { .nop = 1 };
    int sz = pick_size(r, 1);
    int64_t lo, hi, idx;

    switch (rn(r, 4)) {
    case 0:
        case_init(c, r, "inc-dec-short");
        size_prefix(&in, r, sz);
        in.op[0] = 0x40 + rn(r, 16);
        break;
    case 1:
        case_init(c, r, "pusha-popa");
        size_prefix(&in, r, sz);
        in.op[0] = 0x60 + rn(r, 2);
        break;
    case 2:
        /* bound Gv, Ma with the index inside: no #BR. */
        case_init(c, r, "bound");
        size_prefix(&in, r, sz);
        in.o = &o;
        in.op[0] = 0x62;
        o.reg = pick_reg(r, 1u << R_ESP);
        pick_mem(c, r, &o, 2u << sz, 1u << o.reg, 0);
        lo = (int64_t)rn(r, 40000) - 20000;
        hi = lo + rn(r, 1000);
        idx = lo + rn(r, hi - lo + 1);
        poke(c, o.ea, lo, 1u << sz);
        poke(c, o.ea + (1u << sz), hi, 1u << sz);
        c->regs[o.reg] = (c->regs[o.reg] & ~size_mask[sz]) |
                         ((uint64_t)idx & size_mask[sz]);
        break;
    default:
        case_init(c, r, "arpl");
        in.o = &o;
        in.op[0] = 0x63;
        o.reg = pick_reg(r, 0);
        pick_rm(c, r, &o, 1, 0, true);
        break;
    }
    emit(c, va, &in);
}

void diff_gen(DiffCase *c, DiffRand *r, uint64_t va, unsigned host,
              const X86Vendor *vendor, bool code32)
{
    static GenFn *const simple[] = {
        gen_alu, gen_alu, gen_alu, gen_test_unary, gen_shift, gen_shift,
        gen_shxd, gen_muldiv, gen_imul, gen_bt, gen_cmov_setcc, gen_jcc,
        gen_loop, gen_string, gen_string, gen_lea, gen_movx, gen_cbw,
        gen_mov, gen_xchg_family, gen_flagops, gen_xlat_nop, gen_stack,
        gen_stack, gen_alu_jcc, gen_alu_jcc,
    };
    unsigned n = rn(r, G_N_ELEMENTS(simple) + (code32 ? 4 : 2));

    m32 = code32;
    if (n == G_N_ELEMENTS(simple)) {
        gen_bitscan(c, r, va, host, vendor);
    } else if (n == G_N_ELEMENTS(simple) + 1) {
        gen_bswap_movbe(c, r, va, host);
    } else if (n == G_N_ELEMENTS(simple) + 2) {
        gen_bcd(c, r, va);
    } else if (n == G_N_ELEMENTS(simple) + 3) {
        gen_legacy32(c, r, va);
    } else {
        simple[n](c, r, va);
    }
    if (c->name[0] == 'c' && !strcmp(c->name, "cmpxchg16b") &&
        !(host & DIFF_HOST_CX16)) {
        diff_gen(c, r, va, host, vendor, code32);
    }
}
