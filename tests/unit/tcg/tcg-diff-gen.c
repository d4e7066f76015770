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


/* A byte register number that also names AH..BH without REX. */
static unsigned byte_reg_phys(unsigned n, bool rex)
{
    return (!rex && n >= 4 && n < 8) ? n - 4 : n;
}

/* Does the instruction need a REX (and so mean SPL..DIL)? */
static bool has_rex(const DiffIns *in)
{
    const DiffOpnd *o = in->o;

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
    int op = diff_rn(r, 8), sz = diff_pick_size(r, 0), kind = diff_rn(r, 4);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 1 };

    diff_case_init(c, r, names[op]);
    if (op == 1 || op == 4 || op == 6) {
        c->flag_mask &= ~CC_A;
    }
    diff_size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
    case 1:
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = op * 8 + (kind ? 2 : 0) + (sz ? 1 : 0);
        if (kind == 0 && o.mem && op != 7 && diff_rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;           /* lock */
        }
        break;
    case 2:
        o.reg = op;
        diff_pick_rm(c, r, &o, sz, 0, true);
        if (sz == 0) {
            in.op[0] = 0x80;
            in.immsize = 1;
        } else if (diff_rn(r, 2)) {
            in.op[0] = 0x83;
            in.immsize = 1;
        } else {
            in.op[0] = 0x81;
            in.immsize = sz == 1 ? 2 : 4;
        }
        in.imm = diff_value(r);
        break;
    default:
        in.o = NULL;
        in.op[0] = op * 8 + 4 + (sz ? 1 : 0);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        in.imm = diff_value(r);
        break;
    }
    diff_emit(c, va, &in);
}

static void gen_test_unary(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[6] = {
        "test", "test-imm", "not", "neg", "inc", "dec"
    };
    int kind = diff_rn(r, 6), sz = diff_pick_size(r, 0);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 1 };

    diff_case_init(c, r, names[kind]);
    diff_size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
        c->flag_mask &= ~CC_A;
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0x84 + (sz ? 1 : 0);
        if (diff_rn(r, 4) == 0) {
            in.o = NULL;
            in.op[0] = 0xa8 + (sz ? 1 : 0);
            in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
            in.imm = diff_value(r);
        }
        break;
    case 1:
        c->flag_mask &= ~CC_A;
        o.reg = diff_rn(r, 2);                       /* /0 and the alias /1 */
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xf6 + (sz ? 1 : 0);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        in.imm = diff_value(r);
        break;
    case 2:
    case 3:
        o.reg = kind;
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xf6 + (sz ? 1 : 0);
        if (o.mem && diff_rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;
        }
        break;
    default:
        o.reg = kind - 4;
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xfe + (sz ? 1 : 0);
        if (o.mem && diff_rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0xf0;
        }
        break;
    }
    diff_emit(c, va, &in);
}

static unsigned shift_count(DiffRand *r, unsigned bits)
{
    static const unsigned fixed[] = { 0, 1, 2, 31, 32, 33, 63, 64, 65 };

    switch (diff_rn(r, 4)) {
    case 0:
        return fixed[diff_rn(r, G_N_ELEMENTS(fixed))];
    case 1:
        return bits - 1 + diff_rn(r, 3);
    case 2:
        return diff_rn(r, 256);
    default:
        return diff_rn(r, bits + 1);
    }
}

static void gen_shift(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[8] = {
        "rol", "ror", "rcl", "rcr", "shl", "shr", "sal", "sar"
    };
    int op = diff_rn(r, 8), sz = diff_pick_size(r, 0), src = diff_rn(r, 3);
    unsigned bits = 8u << sz, count, masked;
    DiffOpnd o = { .reg = op };
    DiffIns in = { .o = &o, .nop = 1 };

    diff_case_init(c, r, names[op]);
    diff_size_prefix(&in, r, sz);
    count = src == 0 ? 1 : shift_count(r, bits);
    if (src == 1) {
        c->regs[R_ECX] = (c->regs[R_ECX] & ~0xffull) | count;
    }
    diff_pick_rm(c, r, &o, sz, 1u << R_ECX, true);
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
    diff_emit(c, va, &in);
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
    int sz = diff_pick_size(r, 1), right = diff_rn(r, 2), cl = diff_rn(r, 2);
    unsigned bits = 8u << sz, count, masked;
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };

    diff_case_init(c, r, right ? "shrd" : "shld");
    diff_size_prefix(&in, r, sz);
    do {
        count = shift_count(r, bits);
        masked = count & (sz == 3 ? 63 : 31);
    } while (masked > bits);                    /* undefined beyond */
    o.reg = diff_pick_reg(r, cl ? 1u << R_ECX : 0);
    diff_pick_rm(c, r, &o, sz, 1u << R_ECX, true);
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
    diff_emit(c, va, &in);
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
    int op = diff_rn(r, 4), sz = diff_pick_size(r, 0);
    unsigned bits = 8u << sz;
    uint64_t m = diff_size_mask[sz], d, lo, hi;
    uint32_t avoid = op >= 2 ? (1u << R_EAX) | (1u << R_EDX) : 0;
    DiffOpnd o = { .reg = 4 + op };
    DiffIns in = { .o = &o, .nop = 1 };

    diff_case_init(c, r, names[op]);
    diff_size_prefix(&in, r, sz);
    diff_pick_rm(c, r, &o, sz, avoid, true);
    if (!o.mem && op >= 2) {
        /* The divisor outside the dividend's registers. */
        while ((sz == 0 ? byte_reg_phys(o.rm, has_rex(&in)) : o.rm) ==
               R_EAX || o.rm == R_EDX ||
               (sz == 0 && byte_reg_phys(o.rm, has_rex(&in)) == R_EDX)) {
            o.rm = diff_pick_reg(r, 0);
        }
    }
    in.op[0] = 0xf6 + (sz ? 1 : 0);
    diff_emit(c, va, &in);
    c->flag_mask = op < 2 ? CC_C | CC_O | DF_MASK : DF_MASK;
    if (op < 2) {
        return;
    }
    /* Make the division fit: a nonzero divisor, a quotient in range. */
    d = diff_value(r) & m;
    if (d == 0) {
        d = 1 + diff_rn(r, 200);
    }
    if (o.mem) {
        diff_poke(c, o.ea, d, 1u << sz);
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
    int sz = diff_pick_size(r, 1), kind = diff_rn(r, 3);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o };

    diff_case_init(c, r, kind == 0 ? "imul2" : "imul3");
    diff_size_prefix(&in, r, sz);
    o.reg = diff_pick_reg(r, 0);
    diff_pick_rm(c, r, &o, sz, 0, true);
    if (kind == 0) {
        in.op[0] = 0x0f;
        in.op[1] = 0xaf;
        in.nop = 2;
    } else {
        in.op[0] = kind == 1 ? 0x6b : 0x69;
        in.nop = 1;
        in.immsize = kind == 1 ? 1 : sz == 1 ? 2 : 4;
        in.imm = diff_value(r);
    }
    diff_emit(c, va, &in);
    c->flag_mask = CC_C | CC_O | DF_MASK;
}

static void gen_bt(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[4] = { "bt", "bts", "btr", "btc" };
    int op = diff_rn(r, 4), sz = diff_pick_size(r, 1), imm = diff_rn(r, 2);
    unsigned bits = 8u << sz;
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };

    diff_case_init(c, r, names[op]);
    diff_size_prefix(&in, r, sz);
    if (imm) {
        o.reg = 4 + op;
        in.op[1] = 0xba;
        in.imm = diff_rand(r);
        in.immsize = 1;
        diff_pick_rm(c, r, &o, sz, 0, true);
    } else {
        o.reg = diff_pick_reg(r, 1u << R_ESP);
        in.op[1] = 0xa3 + 8 * op;
        diff_pick_rm(c, r, &o, sz, 1u << o.reg, true);
        if (o.mem) {
            /* A signed bit offset reaching a few words either side. */
            int64_t off = (int64_t)diff_rn(r, bits * 16) - bits * 8;

            c->regs[o.reg] = (c->regs[o.reg] & ~diff_size_mask[sz]) |
                             ((uint64_t)off & diff_size_mask[sz]);
        }
    }
    if (o.mem && op && diff_rn(r, 4) == 0) {
        in.pfx[in.npfx++] = 0xf0;
    }
    diff_emit(c, va, &in);
    c->flag_mask = CC_C | CC_Z | DF_MASK;
}

static void gen_bitscan(DiffCase *c, DiffRand *r, uint64_t va,
                        unsigned host, const X86Vendor *vendor)
{
    static const char *const names[5] = {
        "bsf", "bsr", "tzcnt", "lzcnt", "popcnt"
    };
    int kind, sz = diff_pick_size(r, 1);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };
    uint64_t v;

    do {
        kind = diff_rn(r, 5);
    } while ((kind == 2 && !(host & DIFF_HOST_TZCNT)) ||
             (kind == 3 && !(host & DIFF_HOST_LZCNT)) ||
             (kind == 4 && !(host & DIFF_HOST_POPCNT)));
    diff_case_init(c, r, names[kind]);
    if (kind >= 2) {
        in.pfx[in.npfx++] = 0xf3;
    }
    diff_size_prefix(&in, r, sz);
    o.reg = diff_pick_reg(r, 0);
    diff_pick_rm(c, r, &o, sz, 0, true);
    in.op[1] = kind == 4 ? 0xb8 : (kind & 1) ? 0xbd : 0xbc;
    diff_emit(c, va, &in);
    /* A source with few bits set, zero, or anything. */
    switch (diff_rn(r, 3)) {
    case 0:
        v = 0;
        break;
    case 1:
        v = 1ull << diff_rn(r, 64);
        break;
    default:
        v = diff_value(r);
        break;
    }
    if (o.mem) {
        diff_poke(c, o.ea, v, 2u << (sz - 1));
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
    int cond = diff_rn(r, 16), sz = diff_pick_size(r, 1);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };

    if (diff_rn(r, 2)) {
        diff_case_init(c, r, "cmov");
        diff_size_prefix(&in, r, sz);
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[1] = 0x40 + cond;
    } else {
        diff_case_init(c, r, "setcc");
        diff_size_prefix(&in, r, 0);
        o.reg = diff_rn(r, 8);                       /* ignored by setcc */
        diff_pick_rm(c, r, &o, 0, 0, true);
        in.op[1] = 0x90 + cond;
    }
    diff_emit(c, va, &in);
}

/*
 * A mov of a marker the branch under test jumps over: mov r11, imm64
 * (10 bytes), or mov edi, imm32 (5 bytes) in 32-bit code.
 */
static DiffIns skipped_mov(void)
{
    if (diff_m32) {
        return (DiffIns) { .nop = 1, .op = { 0xbf }, .imm = 0x11223344,
                       .immsize = 4 };
    }
    return (DiffIns) { .rex_b = true, .w = true, .nop = 1, .op = { 0xbb },
                   .imm = 0x1122334455667788ull, .immsize = 8 };
}

/* jcc over the marker mov: the marker register tells if it was taken. */
static void gen_jcc(DiffCase *c, DiffRand *r, uint64_t va)
{
    int cond = diff_rn(r, 16);
    DiffIns mov = skipped_mov();
    DiffIns jcc = { .nop = 1, .imm = diff_m32 ? 5 : 10 };

    diff_case_init(c, r, "jcc");
    if (diff_rn(r, 2)) {
        jcc.op[0] = 0x70 + cond;
        jcc.immsize = 1;
    } else {
        jcc.op[0] = 0x0f;
        jcc.op[1] = 0x80 + cond;
        jcc.nop = 2;
        jcc.immsize = 4;
    }
    diff_emit(c, va, &jcc);
    diff_emit(c, va, &mov);
}

static void gen_loop(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = diff_rn(r, 4);
    DiffIns mov = skipped_mov();
    DiffIns loop = { .nop = 1, .op = { 0xe0 + kind }, .imm = diff_m32 ? 5 : 10,
                 .immsize = 1 };

    diff_case_init(c, r, kind == 3 ? "jrcxz" : "loop");
    c->regs[R_ECX] = diff_rn(r, 3) ? diff_rn(r, 3) : diff_value(r);
    if (diff_rn(r, 4) == 0) {
        loop.pfx[loop.npfx++] = 0x67;
        c->regs[R_ECX] |= diff_rand(r) << 32;
    }
    diff_emit(c, va, &loop);
    diff_emit(c, va, &mov);
}

static void gen_string(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const char *const names[5] = {
        "movs", "cmps", "stos", "lods", "scas"
    };
    static const uint8_t ops[5] = { 0xa4, 0xa6, 0xaa, 0xac, 0xae };
    int kind = diff_rn(r, 5), sz = diff_pick_size(r, 0), rep = diff_rn(r, 3);
    unsigned size = 1u << sz;
    DiffIns in = { .nop = 1 };
    bool a32 = !diff_m32 && diff_rn(r, 5) == 0;

    diff_case_init(c, r, names[kind]);
    if (rep) {
        in.pfx[in.npfx++] = rep == 1 ? 0xf3 : 0xf2;
    }
    if (a32) {
        in.pfx[in.npfx++] = 0x67;
    }
    diff_size_prefix(&in, r, sz);
    in.force_rex = in.force_rex && diff_rn(r, 2);
    in.op[0] = ops[kind] + (sz ? 1 : 0);
    diff_emit(c, va, &in);
    c->regs[R_ECX] = diff_rn(r, 8) ? diff_rn(r, 9) : diff_rn(r, 40);
    c->regs[R_ESI] = DIFF_DATA + 0x300 + diff_rn(r, 0x600);
    if (kind == 0 && diff_rn(r, 3) == 0) {
        /* Overlapping copies, both ways. */
        c->regs[R_EDI] = c->regs[R_ESI] + (int)diff_rn(r, 33) - 16;
    } else if (kind == 1 && diff_rn(r, 3) == 0) {
        c->regs[R_EDI] = c->regs[R_ESI];        /* equal all the way */
    } else {
        c->regs[R_EDI] = DIFF_DATA + 0xa00 + diff_rn(r, 0x600);
    }
    if (kind == 4 && diff_rn(r, 2)) {
        /* A few elements equal to rAX so repe runs on. */
        for (unsigned i = 0; i < 3; i++) {
            int64_t step = (c->flags & DF_MASK) ? -(int64_t)size : size;

            diff_poke(c, c->regs[R_EDI] + i * step, c->regs[R_EAX], size);
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
    int sz = diff_pick_size(r, 1);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 1, .op = { 0x8d } };

    diff_case_init(c, r, "lea");
    diff_size_prefix(&in, r, sz);
    o.reg = diff_pick_reg(r, 0);
    diff_pick_mem(c, r, &o, 1, 0, 0);
    /* No access: any register values will do. */
    if (o.base >= 0 && diff_rn(r, 2)) {
        c->regs[o.base] = diff_value(r);
    }
    if (o.index >= 0 && diff_rn(r, 2)) {
        c->regs[o.index] = diff_value(r);
    }
    diff_emit(c, va, &in);
}

static void gen_movx(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = diff_rn(r, diff_m32 ? 4 : 5), sz = diff_pick_size(r, 1), ssz;
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };

    diff_case_init(c, r, kind == 4 ? "movsxd" : kind >= 2 ? "movsx" : "movzx");
    if (kind == 4) {
        sz = 2 + diff_rn(r, 2);              /* movsxd: 64-bit code only */
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
    diff_size_prefix(&in, r, sz);
    if (ssz == 0 && !diff_m32 && diff_rn(r, 2)) {
        in.force_rex = true;
    }
    o.reg = diff_pick_reg(r, 0);
    diff_pick_rm(c, r, &o, ssz, 0, true);
    diff_emit(c, va, &in);
}

static void gen_cbw(DiffCase *c, DiffRand *r, uint64_t va)
{
    int sz = diff_pick_size(r, 1);
    DiffIns in = { .nop = 1, .op = { diff_rn(r, 2) ? 0x98 : 0x99 } };

    diff_case_init(c, r, in.op[0] == 0x98 ? "cbw" : "cwd");
    diff_size_prefix(&in, r, sz);
    diff_emit(c, va, &in);
}

static void gen_mov(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = diff_rn(r, 4), sz = diff_pick_size(r, 0);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 1 };

    diff_case_init(c, r, "mov");
    diff_size_prefix(&in, r, sz);
    switch (kind) {
    case 0:
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0x88 + 2 * diff_rn(r, 2) + (sz ? 1 : 0);
        break;
    case 1:
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[0] = 0xc6 + (sz ? 1 : 0);
        in.imm = diff_value(r);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : 4;
        break;
    case 2:
        in.o = NULL;
        o.rm = diff_pick_reg(r, 0);
        in.rex_b = o.rm >= 8;
        in.op[0] = (sz ? 0xb8 : 0xb0) + (o.rm & 7);
        in.imm = diff_value(r);
        in.immsize = sz == 0 ? 1 : sz == 1 ? 2 : sz == 2 ? 4 : 8;
        break;
    default: {
        /* moffs: the absolute address in the instruction. */
        bool a32 = !diff_m32 && diff_rn(r, 3) == 0;
        uint64_t ea = DIFF_DATA + diff_rn(r, DIFF_DATA_SIZE - 8);

        in.o = NULL;
        if (a32) {
            in.pfx[in.npfx++] = 0x67;
        }
        in.op[0] = 0xa0 + 2 * diff_rn(r, 2) + (sz ? 1 : 0);
        in.imm = ea;
        in.immsize = a32 || diff_m32 ? 4 : 8;
        break;
    }
    }
    diff_emit(c, va, &in);
}

static void gen_xchg_family(DiffCase *c, DiffRand *r, uint64_t va)
{
    int kind = diff_rn(r, 4), sz = diff_pick_size(r, 0);
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };

    switch (kind) {
    case 0:
        diff_case_init(c, r, "xchg");
        diff_size_prefix(&in, r, sz);
        if (sz && diff_rn(r, 4) == 0) {
            /* 90+r: xchg rAX, r (90 itself is nop unless REX.B). */
            in.o = NULL;
            o.rm = diff_pick_reg(r, 0);
            in.rex_b = o.rm >= 8;
            in.nop = 1;
            in.op[0] = 0x90 + (o.rm & 7);
            break;
        }
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.nop = 1;
        in.op[0] = 0x86 + (sz ? 1 : 0);
        break;
    case 1:
        diff_case_init(c, r, "xadd");
        diff_size_prefix(&in, r, sz);
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 0, true);
        in.op[1] = 0xc0 + (sz ? 1 : 0);
        break;
    case 2:
        diff_case_init(c, r, "cmpxchg");
        diff_size_prefix(&in, r, sz);
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, sz, 1u << R_EAX, true);
        in.op[1] = 0xb0 + (sz ? 1 : 0);
        if (diff_rn(r, 2)) {
            /* Make the compare succeed. */
            if (o.mem) {
                diff_poke(c, o.ea, c->regs[R_EAX], 1u << sz);
            } else if (sz) {
                c->regs[o.rm] = c->regs[R_EAX];
            }
        }
        break;
    default: {
        bool b16 = !diff_m32 && diff_rn(r, 2);

        diff_case_init(c, r, b16 ? "cmpxchg16b" : "cmpxchg8b");
        in.w = b16;
        o.reg = 1;
        diff_pick_mem(c, r, &o, b16 ? 16 : 8,
                 (1u << R_EAX) | (1u << R_EDX) | (1u << R_EBX) |
                 (1u << R_ECX), b16 ? 16 : 0);
        in.op[1] = 0xc7;
        if (diff_rn(r, 2)) {
            if (b16) {
                diff_poke(c, o.ea, c->regs[R_EAX], 8);
                diff_poke(c, o.ea + 8, c->regs[R_EDX], 8);
            } else {
                diff_poke(c, o.ea, (uint32_t)c->regs[R_EAX] |
                     (c->regs[R_EDX] << 32), 8);
            }
        }
        break;
    }
    }
    if (o.mem && kind && diff_rn(r, 3) == 0) {
        in.pfx[in.npfx++] = 0xf0;
    }
    diff_emit(c, va, &in);
}

static void gen_bswap_movbe(DiffCase *c, DiffRand *r, uint64_t va,
                            unsigned host)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .nop = 2, .op = { 0x0f } };
    int sz;

    if (!(host & DIFF_HOST_MOVBE) || diff_rn(r, 2)) {
        diff_case_init(c, r, "bswap");
        o.rm = diff_pick_reg(r, 0);
        in.rex_b = o.rm >= 8;
        in.w = !diff_m32 && diff_rn(r, 2);
        in.op[1] = 0xc8 + (o.rm & 7);
        diff_emit(c, va, &in);
        return;
    }
    diff_case_init(c, r, "movbe");
    sz = diff_pick_size(r, 1);
    diff_size_prefix(&in, r, sz);
    in.o = &o;
    in.nop = 3;
    in.op[1] = 0x38;
    in.op[2] = 0xf0 + diff_rn(r, 2);
    o.reg = diff_pick_reg(r, 0);
    diff_pick_mem(c, r, &o, 1u << sz, 0, 0);
    diff_emit(c, va, &in);
}

static void gen_flagops(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const uint8_t ops[] = { 0xf5, 0xf8, 0xf9, 0xfc, 0xfd, 0x9e, 0x9f };
    DiffIns in = { .nop = 1, .op = { ops[diff_rn(r, G_N_ELEMENTS(ops))] } };

    diff_case_init(c, r, "flagop");
    diff_emit(c, va, &in);
}

static void gen_xlat_nop(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .nop = 1 };

    switch (diff_rn(r, 4)) {
    case 0:
        diff_case_init(c, r, "xlat");
        in.op[0] = 0xd7;
        in.w = !diff_m32 && diff_rn(r, 2);
        c->regs[R_EBX] = DIFF_DATA + diff_rn(r, 0x1000);
        break;
    case 1:
        diff_case_init(c, r, "nop");
        in.op[0] = 0x90;
        if (diff_rn(r, 2)) {
            in.pfx[in.npfx++] = diff_rn(r, 2) ? 0x66 : 0xf3;
        }
        break;
    default:
        diff_case_init(c, r, "nopl");
        diff_size_prefix(&in, r, diff_pick_size(r, 1));
        in.o = &o;
        in.nop = 2;
        in.op[0] = 0x0f;
        in.op[1] = 0x1f;
        diff_pick_rm(c, r, &o, 2, 0, true);
        break;
    }
    diff_emit(c, va, &in);
}

static void gen_stack(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .nop = 1 };
    unsigned reg, word = diff_m32 ? 4 : 8;

    switch (diff_rn(r, 12)) {
    case 0:
    case 1:
        reg = diff_pick_reg(r, 0);
        diff_case_init(c, r, diff_rn(r, 2) ? "push" : "pop");
        in.op[0] = (c->name[1] == 'u' ? 0x50 : 0x58) + (reg & 7);
        in.rex_b = reg >= 8;
        if (diff_rn(r, 4) == 0) {
            in.pfx[in.npfx++] = 0x66;
        }
        break;
    case 2:
        diff_case_init(c, r, "push-imm");
        if (diff_rn(r, 2)) {
            in.op[0] = 0x6a;
            in.immsize = 1;
        } else {
            in.op[0] = 0x68;
            in.immsize = 4;
            if (diff_rn(r, 4) == 0) {
                in.pfx[in.npfx++] = 0x66;
                in.immsize = 2;
            }
        }
        in.imm = diff_value(r);
        break;
    case 3:
        diff_case_init(c, r, "push-pop-mem");
        in.o = &o;
        if (diff_rn(r, 2)) {
            in.op[0] = 0xff;
            o.reg = 6;
        } else {
            in.op[0] = 0x8f;
        }
        diff_pick_mem(c, r, &o, word, 0, 0);
        break;
    case 4:
        diff_case_init(c, r, "pushf-popf");
        in.op[0] = 0x9c + diff_rn(r, 2);
        if (in.op[0] == 0x9d) {
            diff_poke(c, DIFF_STACK, (diff_rand(r) & (CC_MASK | DF_MASK)) |
                 IF_MASK | EFLAGS_FIXED, word);
        }
        break;
    case 5: {
        /* enter with a few levels, frame pointer in the stack area. */
        diff_case_init(c, r, "enter");
        in.op[0] = 0xc8;
        in.imm = diff_rn(r, 0x80) * 8;
        in.immsize = 2;
        in.imm2 = diff_rn(r, 5);
        in.imm2size = 1;
        c->regs[R_EBP] = DIFF_STACK + 0x40 + diff_rn(r, 0x100) * 8;
        break;
    }
    case 6:
        diff_case_init(c, r, "leave");
        in.op[0] = 0xc9;
        c->regs[R_EBP] = DIFF_STACK - 0x100 + diff_rn(r, 0x40) * 8;
        break;
    case 7:
        diff_case_init(c, r, "call");
        in.op[0] = 0xe8;
        in.immsize = 4;
        break;
    case 8:
    case 9: {
        /* call/jmp through a register or memory to the next address. */
        bool call = diff_rn(r, 2);

        diff_case_init(c, r, call ? "call-ind" : "jmp-ind");
        in.op[0] = 0xff;
        in.o = &o;
        o.reg = call ? 2 : 4;
        diff_pick_rm(c, r, &o, diff_m32 ? 2 : 3, 0, true);
        if (!o.mem && o.rm == R_ESP) {
            o.rm = R_EAX;
        }
        diff_emit(c, va, &in);
        if (o.mem) {
            diff_poke(c, o.ea, va + c->len, word);
        } else {
            c->regs[o.rm] = va + c->len;
        }
        return;
    }
    case 10:
        diff_case_init(c, r, "ret");
        in.op[0] = diff_rn(r, 2) ? 0xc3 : 0xc2;
        if (in.op[0] == 0xc2) {
            in.imm = diff_rn(r, 0x40) * 8 + diff_rn(r, 2);
            in.immsize = 2;
        }
        diff_emit(c, va, &in);
        diff_poke(c, DIFF_STACK, va + c->len, word);
        return;
    default:
        diff_case_init(c, r, "jmp");
        if (diff_rn(r, 2)) {
            in.op[0] = 0xeb;
            in.immsize = 1;
        } else {
            in.op[0] = 0xe9;
            in.immsize = 4;
        }
        break;
    }
    diff_emit(c, va, &in);
}

/*
 * An ALU operation or test followed by a jcc over the marker mov: the
 * pairs the decoder runs as one (ops-fused.c).
 */
static void gen_alu_jcc(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffIns mov = skipped_mov();
    DiffIns jcc = { .nop = 1, .imm = diff_m32 ? 5 : 10 };
    int cond = diff_rn(r, 16);

    do {
        if (diff_rn(r, 3)) {
            gen_alu(c, r, va);
        } else {
            gen_test_unary(c, r, va);
        }
    } while (strcmp(c->name, "add") && strcmp(c->name, "and") &&
             strcmp(c->name, "sub") && strcmp(c->name, "cmp") &&
             strncmp(c->name, "test", 4) && strcmp(c->name, "or"));
    if (diff_rn(r, 2)) {
        jcc.op[0] = 0x70 + cond;
        jcc.immsize = 1;
    } else {
        jcc.op[0] = 0x0f;
        jcc.op[1] = 0x80 + cond;
        jcc.nop = 2;
        jcc.immsize = 4;
    }
    diff_emit(c, va, &jcc);
    diff_emit(c, va, &mov);
}

/*
 * An ALU operation or test followed by a reader of its flags on
 * registers: setcc, cmovcc, adc or sbb. The reader sees the lazy flags
 * in the kind the first one left them (ops.h: x86_cond, x86_cc_c), not
 * as EFLAGS, which the other cases start from.
 */
static void gen_alu_use(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffOpnd o = { .mem = false };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f } };
    int cond = diff_rn(r, 16), sz;

    if (diff_rn(r, 3)) {
        gen_alu(c, r, va);
    } else {
        gen_test_unary(c, r, va);
    }
    o.rm = diff_pick_reg(r, 0);
    switch (diff_rn(r, 3)) {
    case 0:
        diff_size_prefix(&in, r, 0);
        in.op[1] = 0x90 + cond;                     /* setcc r/m8 */
        break;
    case 1:
        sz = diff_pick_size(r, 1);
        diff_size_prefix(&in, r, sz);
        o.reg = diff_pick_reg(r, 0);
        in.op[1] = 0x40 + cond;                     /* cmovcc r, r/m */
        break;
    default:
        sz = diff_pick_size(r, 0);
        diff_size_prefix(&in, r, sz);
        o.reg = diff_pick_reg(r, 0);
        in.nop = 1;                                 /* adc/sbb r/m, r */
        in.op[0] = (diff_rn(r, 2) ? 0x10 : 0x18) + (sz ? 1 : 0);
        break;
    }
    diff_emit(c, va, &in);
}

/* 32-bit code only: BCD adjustments and salc. */
static void gen_bcd(DiffCase *c, DiffRand *r, uint64_t va)
{
    static const uint8_t ops[] = { 0x27, 0x2f, 0x37, 0x3f, 0xd4, 0xd5, 0xd6 };
    uint8_t op = ops[diff_rn(r, G_N_ELEMENTS(ops))];
    DiffIns in = { .nop = 1, .op = { op } };

    diff_case_init(c, r, "bcd");
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
        in.imm = diff_rn(r, 3) ? 10 : 1 + diff_rn(r, 255);
        in.immsize = 1;
        break;
    default:
        break;
    }
    diff_emit(c, va, &in);
}

/* 32-bit code only: inc/dec r (40-4f), pusha/popa, bound, arpl. */
static void gen_legacy32(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .nop = 1 };
    int sz = diff_pick_size(r, 1);
    int64_t lo, hi, idx;

    switch (diff_rn(r, 4)) {
    case 0:
        diff_case_init(c, r, "inc-dec-short");
        diff_size_prefix(&in, r, sz);
        in.op[0] = 0x40 + diff_rn(r, 16);
        break;
    case 1:
        diff_case_init(c, r, "pusha-popa");
        diff_size_prefix(&in, r, sz);
        in.op[0] = 0x60 + diff_rn(r, 2);
        break;
    case 2:
        /* bound Gv, Ma with the index inside: no #BR. */
        diff_case_init(c, r, "bound");
        diff_size_prefix(&in, r, sz);
        in.o = &o;
        in.op[0] = 0x62;
        o.reg = diff_pick_reg(r, 1u << R_ESP);
        diff_pick_mem(c, r, &o, 2u << sz, 1u << o.reg, 0);
        lo = (int64_t)diff_rn(r, 40000) - 20000;
        hi = lo + diff_rn(r, 1000);
        idx = lo + diff_rn(r, hi - lo + 1);
        diff_poke(c, o.ea, lo, 1u << sz);
        diff_poke(c, o.ea + (1u << sz), hi, 1u << sz);
        c->regs[o.reg] = (c->regs[o.reg] & ~diff_size_mask[sz]) |
                         ((uint64_t)idx & diff_size_mask[sz]);
        break;
    default:
        diff_case_init(c, r, "arpl");
        in.o = &o;
        in.op[0] = 0x63;
        o.reg = diff_pick_reg(r, 0);
        diff_pick_rm(c, r, &o, 1, 0, true);
        break;
    }
    diff_emit(c, va, &in);
}

void diff_gen(DiffCase *c, DiffRand *r, uint64_t va, unsigned host,
              const X86Vendor *vendor, bool code32)
{
    static GenFn *const simple[] = {
        gen_alu, gen_alu, gen_alu, gen_test_unary, gen_shift, gen_shift,
        gen_shxd, gen_muldiv, gen_imul, gen_bt, gen_cmov_setcc, gen_jcc,
        gen_loop, gen_string, gen_string, gen_lea, gen_movx, gen_cbw,
        gen_mov, gen_xchg_family, gen_flagops, gen_xlat_nop, gen_stack,
        gen_stack, gen_alu_jcc, gen_alu_jcc, gen_alu_use, gen_alu_use,
    };
    unsigned n = diff_rn(r, G_N_ELEMENTS(simple) + (code32 ? 4 : 2));

    diff_m32 = code32;
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
