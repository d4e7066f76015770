/*
 * The instruction encoder and the operand pickers the random case
 * generators share (tcg-diff.h): random registers, edge values,
 * memory operands in the data area in every addressing form, and
 * emitting prefixes, REX, opcode, modrm/SIB, displacement, immediates.
 */
#include <string.h>

#include "target/i386/cpu-state.h"
#include "tcg-diff.h"

#define ALL_FLAGS   (CC_MASK | DF_MASK)
/* Generating for 32-bit code (compatibility mode): no REX, no 64-bit. */
bool diff_m32;

uint64_t diff_rand(DiffRand *r)
{
    /* xorshift64* */
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return r->s * 0x2545f4914f6cdd1dull;
}

unsigned diff_rn(DiffRand *r, unsigned n)
{
    return diff_rand(r) % n;
}

/* Edge values and random ones, in every width. */
uint64_t diff_value(DiffRand *r)
{
    static const uint64_t edges[] = {
        0, 1, 2, 3, 0x7f, 0x80, 0xff, 0x100, 0x7fff, 0x8000, 0xffff,
        0x10000, 0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ull,
        0x7fffffffffffffffull, 0x8000000000000000ull, ~0ull, ~1ull,
        0x8000000000000001ull, 0x5555555555555555ull, 0xaaaaaaaaaaaaaaaaull,
    };
    uint64_t v = diff_rand(r);

    switch (diff_rn(r, 8)) {
    case 0:
    case 1:
    case 2:
        return edges[diff_rn(r, G_N_ELEMENTS(edges))];
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

const uint64_t diff_size_mask[4] = {
    0xff, 0xffff, 0xffffffff, ~0ull
};

/* An operand size: 0..3 (8..64 bits), 0..2 in 32-bit code. */
int diff_pick_size(DiffRand *r, int min)
{
    return min + diff_rn(r, (diff_m32 ? 3 : 4) - min);
}

/* A register 0..15 outside avoid. */
unsigned diff_pick_reg(DiffRand *r, uint32_t avoid)
{
    unsigned n;

    do {
        n = diff_rn(r, diff_m32 ? 8 : 16);
    } while (avoid & (1u << n));
    return n;
}

void diff_poke(DiffCase *c, uint64_t addr, uint64_t value, unsigned size)
{
    g_assert(c->npoke < G_N_ELEMENTS(c->poke));
    c->poke[c->npoke].addr = addr;
    c->poke[c->npoke].value = value;
    c->poke[c->npoke].size = size;
    c->npoke++;
}

void diff_case_init(DiffCase *c, DiffRand *r, const char *name)
{
    memset(c, 0, sizeof(*c));
    c->name = name;
    for (int i = 0; i < 16; i++) {
        c->regs[i] = diff_value(r);
    }
    c->regs[R_ESP] = DIFF_STACK;
    c->flags = (diff_rand(r) & CC_MASK) | (diff_rn(r, 4) == 0 ? DF_MASK : 0);
    c->flag_mask = ALL_FLAGS;
    c->reg_mask = 0xffff;
    diff_fx_default(c->fx);
}

void diff_fx_default(uint8_t *fx)
{
    uint16_t fcw = FPUC_INIT;
    uint32_t mxcsr = MXCSR_INIT;

    memset(fx, 0, 512);
    memcpy(fx, &fcw, 2);
    memcpy(fx + 24, &mxcsr, 4);
}

/* --- encoding ------------------------------------------------------------ */



/*
 * A memory operand of size bytes in the data area: an addressing form,
 * base and index registers (outside avoid and never rsp) whose values
 * make the address come out right.
 */
void diff_pick_mem(DiffCase *c, DiffRand *r, DiffOpnd *o, unsigned size,
                     uint32_t avoid, unsigned align)
{
    uint64_t ea = DIFF_DATA + 0x100 + diff_rn(r, DIFF_DATA_SIZE - 0x200);
    int64_t idx = 0;

    avoid |= 1u << R_ESP;
    if (align) {
        ea &= ~(uint64_t)(align - 1);
    }
    o->mem = true;
    o->a32 = !diff_m32 && diff_rn(r, 6) == 0;
    o->form = diff_rn(r, MF_NUM);
    o->ea = ea;
    o->base = o->index = -1;
    o->scale = diff_rn(r, 4);
    o->disp = 0;
    if (o->form <= MF_SIB_D8) {
        o->base = diff_pick_reg(r, avoid);
    }
    if (o->form >= MF_SIB && o->form <= MF_INDEX_D32) {
        o->index = diff_pick_reg(r, avoid | (o->base >= 0 ? 1u << o->base : 0));
        idx = (int64_t)diff_rn(r, 48) - 16;
    }
    switch (o->form) {
    case MF_BASE_D8:
    case MF_SIB_D8:
        o->disp = (int8_t)diff_rand(r);
        break;
    case MF_BASE_D32:
        o->disp = (int32_t)diff_rn(r, 0x20000) - 0x10000;
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


void diff_put(DiffCase *c, uint8_t b)
{
    g_assert(c->len < sizeof(c->code));
    c->code[c->len++] = b;
}

void diff_put_n(DiffCase *c, uint64_t v, unsigned n)
{
    for (unsigned i = 0; i < n; i++) {
        diff_put(c, v >> (8 * i));
    }
}

/* Append one instruction; va is the address of c->code[0]. */
void diff_emit(DiffCase *c, uint64_t va, const DiffIns *in)
{
    DiffOpnd *o = in->o;
    unsigned rex = 0x40;
    int rip_at = -1;

    for (unsigned i = 0; i < in->npfx; i++) {
        diff_put(c, in->pfx[i]);
    }
    if (o && o->mem && o->a32) {
        diff_put(c, 0x67);
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
        g_assert(!diff_m32);
        diff_put(c, rex);
    }
    for (unsigned i = 0; i < in->nop; i++) {
        diff_put(c, in->op[i]);
    }
    if (o && !o->mem) {
        diff_put(c, 0xc0 | (o->reg & 7) << 3 | (o->rm & 7));
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
                diff_put(c, mod << 6 | reg3 | 4);
                diff_put(c, 0x24);                   /* no index, base r12 */
            } else {
                diff_put(c, mod << 6 | reg3 | b3);
            }
            if (mod == 1) {
                diff_put(c, o->disp);
            } else if (mod == 2) {
                diff_put_n(c, (uint32_t)o->disp, 4);
            }
            break;
        case MF_SIB:
        case MF_SIB_D8:
            mod = o->form == MF_SIB && b3 != 5 ? 0 : 1;
            diff_put(c, mod << 6 | reg3 | 4);
            diff_put(c, o->scale << 6 | (o->index & 7) << 3 | b3);
            if (mod == 1) {
                diff_put(c, o->disp);
            }
            break;
        case MF_INDEX_D32:
            diff_put(c, reg3 | 4);
            diff_put(c, o->scale << 6 | (o->index & 7) << 3 | 5);
            diff_put_n(c, (uint32_t)o->disp, 4);
            break;
        case MF_RIP:
            /* 32-bit code: the same encoding is an absolute address. */
            diff_put(c, reg3 | 5);
            if (diff_m32) {
                o->disp = o->ea;
                diff_put_n(c, (uint32_t)o->ea, 4);
                break;
            }
            rip_at = c->len;
            diff_put_n(c, 0, 4);
            break;
        default:
            diff_put(c, reg3 | 4);
            diff_put(c, 0x25);
            diff_put_n(c, (uint32_t)o->disp, 4);
            break;
        }
    }
    diff_put_n(c, in->imm, in->immsize);
    diff_put_n(c, in->imm2, in->imm2size);
    if (rip_at >= 0) {
        int32_t d = o->ea - (va + c->len);

        memcpy(&c->code[rip_at], &d, 4);
        o->disp = d;
    }
}

/* Operand-size prefix and REX.W of a size (0..3 = 8..64 bits). */
void diff_size_prefix(DiffIns *in, DiffRand *r, int sz)
{
    if (sz == 1) {
        in->pfx[in->npfx++] = 0x66;
    }
    in->w = sz == 3;
    if (sz == 0 && !diff_m32 && diff_rn(r, 2)) {
        in->force_rex = true;                   /* SPL..DIL, not AH..BH */
    }
}

/* The register or memory operand rm: memory half of the time. */
void diff_pick_rm(DiffCase *c, DiffRand *r, DiffOpnd *o, int sz,
                    uint32_t avoid, bool allow_mem)
{
    if (allow_mem && diff_rn(r, 2)) {
        diff_pick_mem(c, r, o, 1u << sz, avoid, 0);
    } else {
        o->mem = false;
        o->rm = diff_pick_reg(r, 0);
    }
}