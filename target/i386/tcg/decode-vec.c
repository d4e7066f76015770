/*
 * The vector opcodes: the two-byte map's MMX and SSE opcodes and the
 * three-byte maps 0f 38 and 0f 3a, decoded from the VecOp tables of the
 * handler families (vec.h). An opcode byte, its mandatory-prefix class
 * and (for groups) modrm.reg find the entry; the entry says whether the
 * vCPU offers it (CPUID), where its operands are and which handler runs
 * it. What no entry names, or the vCPU does not offer, is #UD.
 */
#include "target/i386/tcg/vec.h"

#define VEC_MAX_OPS     1024

const VecOp *x86_vec_op_index[VEC_MAX_OPS];
static unsigned vec_nops;
/* 1 + the index of the first entry of each (map, opcode, prefix). */
static uint16_t vec_first[VM_NUM][256][VP_NUM];

static void vec_add_table(const VecOp *t)
{
    for (const VecOp *e = t; e->map != VM_NUM; e++) {
        uint16_t *first = &vec_first[e->map][e->op][e->pfx];

        g_assert(vec_nops < VEC_MAX_OPS);
        x86_vec_op_index[vec_nops] = e;
        if (!*first) {
            *first = vec_nops + 1;
        }
        vec_nops++;
    }
}

static void vec_build_index(void)
{
    static gsize done;

    if (g_once_init_enter(&done)) {
        vec_add_table(x86_vec_mov_ops);
        vec_add_table(x86_vec_int_ops);
        vec_add_table(x86_vec_float_ops);
        vec_add_table(x86_vec_ssse3_ops);
        vec_add_table(x86_vec_sse4_ops);
        vec_add_table(x86_vec_state_ops);
        vec_add_table(x86_vec_aes_ops);
        g_once_init_leave(&done, 1);
    }
}

/* The entry for the instruction, or -1; modrm is read when it has one. */
static int vec_find(Dec *d, unsigned map, unsigned b, bool have_modrm)
{
    unsigned cls = d->prefix & P_F2 ? VP_F2 : d->prefix & P_F3 ? VP_F3
                 : d->prefix & P_66 ? VP_66 : VP_NONE;
    int i = (int)vec_first[map][b][cls] - 1;
    const VecOp *e;

    if (i < 0) {
        return -1;
    }
    e = x86_vec_op_index[i];
    if (!(e->flags & VF_NOMODRM) && !have_modrm) {
        return -2;
    }
    if (!(e->flags & VF_GRP)) {
        return i;
    }
    for (; (unsigned)i < vec_nops; i++) {
        e = x86_vec_op_index[i];
        if (e->map == map && e->op == b && e->pfx == cls &&
            e->digit == (d->regf & 7) &&
            (d->mod == 3 ? !(e->flags & VF_NOREG)
                         : !(e->flags & VF_NOMEM))) {
            return i;
        }
    }
    return -1;
}

static unsigned vec_regno(unsigned file, unsigned n)
{
    return file == VR_MMX ? n & 7 : n;
}

static void vec_decode(Dec *d, Insn *in, unsigned map, unsigned b,
                       bool have_modrm)
{
    const VecOp *e;
    bool mem;
    int i;

    vec_build_index();
    i = vec_find(d, map, b, have_modrm);
    if (i == -2) {
        dec_modrm(d, in);
        i = vec_find(d, map, b, true);
    }
    if (i < 0) {
        dec_ud(d, in);
        return;
    }
    e = x86_vec_op_index[i];
    if (!(d->isa & e->feat)) {
        dec_ud(d, in);
        return;
    }
    in->imm2 = i;
    if (e->flags & VF_NOMODRM) {
        in->fn = e->fn;
        return;
    }
    mem = d->mod != 3;
    if (mem ? (e->flags & VF_NOMEM) : (e->flags & VF_NOREG)) {
        dec_ud(d, in);
        return;
    }
    in->reg = vec_regno(e->reg, d->regf);
    in->rm = mem ? VREG_TMP : vec_regno(e->rm, d->rmf);
    if (!mem && (e->flags & VF_BYTE)) {
        in->rm = dec_reg(d, OT_B, d->rmf);
    }
    in->aux = d->regf & 7;
    if (e->flags & VF_OSZ) {
        in->aux2 = d->ot;
    } else if (e->flags & VF_W) {
        in->aux2 = d->rex & REX_W ? OT_Q : OT_L;
    } else {
        in->aux2 = e->reg == VR_MMX || e->rm == VR_MMX ? 8 : 16;
    }
    if (e->flags & VF_IMM8) {
        in->imm = dec_u8(d);
    }
    if (e->flags & VF_IMPLICIT) {
        /* DS:rDI under the address size, as string operands. */
        in->eaf = d->aot == OT_W ? EA_A16 : d->aot == OT_L ? EA_A32 : 0;
        in->eaf |= d->code64 ? 0 : EA_LIN32;
        in->seg = d->seg_override >= 0 ? d->seg_override : R_DS;
    }
    if (e->fn) {
        in->fn = e->fn;
    } else if (e->reg == VR_XMM && !(e->flags & (VF_RMDST | VF_RO))) {
        in->fn = e->rm != VR_XMM ? x86_vec_gen
                 : mem ? x86_vec_xm : x86_vec_xx;
    } else {
        in->fn = x86_vec_gen;
    }
}

void dec_vec(Dec *d, Insn *in, uint8_t b)
{
    if (b == 0x38) {
        vec_decode(d, in, VM_0F38, dec_u8(d), false);
    } else if (b == 0x3a) {
        vec_decode(d, in, VM_0F3A, dec_u8(d), false);
    } else {
        vec_decode(d, in, VM_0F, b, false);
    }
}

void dec_vec_modrm(Dec *d, Insn *in, uint8_t b)
{
    vec_decode(d, in, VM_0F, b, true);
}
