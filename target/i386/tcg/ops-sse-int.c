/*
 * Integer SIMD of MMX and SSE2 (the 0f map): arithmetic with and
 * without saturation, compares, logic, shifts, unpacks, packs,
 * shuffles, multiplies, averages, sums of differences, word inserts and
 * extracts. Each kernel works on the vector width Insn.aux2 (8 bytes
 * for the MMX form, 16 for the XMM form), so one kernel serves both.
 * Semantics: Intel SDM vol. 2, each instruction's page.
 */
#include "target/i386/tcg/vec.h"
#include "target/i386/tcg/vec-int.h"

EACH(k_paddb, uint8_t, b, a + b)
EACH(k_paddw, uint16_t, w, a + b)
EACH(k_paddd, uint32_t, l, a + b)
EACH(k_paddq, uint64_t, q, a + b)
EACH(k_psubb, uint8_t, b, a - b)
EACH(k_psubw, uint16_t, w, a - b)
EACH(k_psubd, uint32_t, l, a - b)
EACH(k_psubq, uint64_t, q, a - b)
EACH(k_paddsb, int8_t, b, vec_sat_s8(a + b))
EACH(k_paddsw, int16_t, w, vec_sat_s16(a + b))
EACH(k_paddusb, uint8_t, b, vec_sat_u8(a + b))
EACH(k_paddusw, uint16_t, w, vec_sat_u16(a + b))
EACH(k_psubsb, int8_t, b, vec_sat_s8(a - b))
EACH(k_psubsw, int16_t, w, vec_sat_s16(a - b))
EACH(k_psubusb, uint8_t, b, vec_sat_u8(a - b))
EACH(k_psubusw, uint16_t, w, vec_sat_u16(a - b))
EACH(k_pcmpeqb, uint8_t, b, a == b ? 0xff : 0)
EACH(k_pcmpeqw, uint16_t, w, a == b ? 0xffff : 0)
EACH(k_pcmpeqd, uint32_t, l, a == b ? 0xffffffffu : 0)
EACH(k_pcmpgtb, int8_t, b, a > b ? 0xff : 0)
EACH(k_pcmpgtw, int16_t, w, a > b ? 0xffff : 0)
EACH(k_pcmpgtd, int32_t, l, a > b ? 0xffffffffu : 0)
EACH(k_pand, uint64_t, q, a & b)
EACH(k_pandn, uint64_t, q, ~a & b)
EACH(k_por, uint64_t, q, a | b)
EACH(k_pxor, uint64_t, q, a ^ b)
EACH(k_pminub, uint8_t, b, a < b ? a : b)
EACH(k_pmaxub, uint8_t, b, a > b ? a : b)
EACH(k_pminsw, int16_t, w, a < b ? a : b)
EACH(k_pmaxsw, int16_t, w, a > b ? a : b)
EACH(k_pavgb, unsigned, b, (a + b + 1) >> 1)
EACH(k_pavgw, unsigned, w, (a + b + 1) >> 1)
EACH(k_pmullw, uint32_t, w, a * b)
EACH(k_pmulhw, int16_t, w, ((int32_t)a * b) >> 16)
EACH(k_pmulhuw, uint32_t, w, (a * b) >> 16)

VK(k_pmuludq)
{
    for (unsigned i = 0; i < in->aux2 / 8; i++) {
        d->q[i] = (uint64_t)d->l[2 * i] * s->l[2 * i];
    }
}

VK(k_pmaddwd)
{
    for (unsigned i = 0; i < in->aux2 / 4; i++) {
        int32_t p0 = (int16_t)d->w[2 * i] * (int16_t)s->w[2 * i];
        int32_t p1 = (int16_t)d->w[2 * i + 1] * (int16_t)s->w[2 * i + 1];

        d->l[i] = (uint32_t)p0 + (uint32_t)p1;
    }
}

VK(k_psadbw)
{
    for (unsigned i = 0; i < in->aux2 / 8; i++) {
        unsigned sum = 0;

        for (unsigned j = 0; j < 8; j++) {
            int a = d->b[8 * i + j], b = s->b[8 * i + j];

            sum += a > b ? a - b : b - a;
        }
        d->q[i] = sum;
    }
}

/* --- shifts ------------------------------------------------------------ */

enum { SH_SRL, SH_SRA, SH_SLL };

static void vshift(X86XMMReg *d, unsigned width, unsigned esz, int kind,
                   uint64_t count)
{
    unsigned bits = esz * 8;

    for (unsigned i = 0; i < width / esz; i++) {
        uint64_t v = vec_get(d, esz, i);

        if (kind == SH_SRA) {
            int64_t sv = (int64_t)(v << (64 - bits)) >> (64 - bits);

            v = sv >> (count >= bits ? bits - 1 : count);
        } else if (count >= bits) {
            v = 0;
        } else {
            v = kind == SH_SLL ? v << count : v >> count;
        }
        vec_set(d, esz, i, v);
    }
}

#define SHIFT(name, esz, kind)                                           \
    VK(name)                                                              \
    {                                                                    \
        vshift(d, in->aux2, esz, kind, s->q[0]);                         \
    }

SHIFT(k_psrlw, 2, SH_SRL)
SHIFT(k_psrld, 4, SH_SRL)
SHIFT(k_psrlq, 8, SH_SRL)
SHIFT(k_psraw, 2, SH_SRA)
SHIFT(k_psrad, 4, SH_SRA)
SHIFT(k_psllw, 2, SH_SLL)
SHIFT(k_pslld, 4, SH_SLL)
SHIFT(k_psllq, 8, SH_SLL)

/* 0f 71..73: shift the rm register by imm8; modrm.reg picks the kind. */
VK(k_shift_imm)
{
    static const int8_t kind[8] = { -1, -1, SH_SRL, -1, SH_SRA, -1,
                                    SH_SLL, -1 };
    unsigned esz = 2u << (vec_op(in)->op - 0x71);

    vshift(d, in->aux2, esz, kind[in->aux], in->imm);
}

/* psrldq (/3) and pslldq (/7): whole-register byte shifts. */
VK(k_pshiftdq)
{
    X86XMMReg r = { 0 };
    unsigned n = MIN(in->imm, 16u);

    for (unsigned i = 0; i + n < 16; i++) {
        if (in->aux == 3) {
            r.b[i] = d->b[i + n];
        } else {
            r.b[i + n] = d->b[i];
        }
    }
    *d = r;
}

/* --- unpacks, packs, shuffles ----------------------------------------- */

static void unpack(X86XMMReg *d, const X86XMMReg *s, unsigned width,
                   unsigned esz, bool high)
{
    X86XMMReg r;
    unsigned half = width / esz / 2, base = high ? half : 0;

    for (unsigned i = 0; i < half; i++) {
        vec_set(&r, esz, 2 * i, vec_get(d, esz, base + i));
        vec_set(&r, esz, 2 * i + 1, vec_get(s, esz, base + i));
    }
    memcpy(d, &r, width);
}

#define UNPACK(name, esz, high)                                          \
    VK(name)                                                              \
    {                                                                    \
        unpack(d, s, in->aux2, esz, high);                               \
    }

UNPACK(k_punpcklbw, 1, false)
UNPACK(k_punpcklwd, 2, false)
UNPACK(k_punpckldq, 4, false)
UNPACK(k_punpcklqdq, 8, false)
UNPACK(k_punpckhbw, 1, true)
UNPACK(k_punpckhwd, 2, true)
UNPACK(k_punpckhdq, 4, true)
UNPACK(k_punpckhqdq, 8, true)

VK(k_packsswb)
{
    vec_pack(d, s, in->aux2, 2, true);
}

VK(k_packuswb)
{
    vec_pack(d, s, in->aux2, 2, false);
}

VK(k_packssdw)
{
    vec_pack(d, s, in->aux2, 4, true);
}

VK(k_pshufd)
{
    X86XMMReg r;

    for (unsigned i = 0; i < 4; i++) {
        r.l[i] = s->l[(in->imm >> (2 * i)) & 3];
    }
    *d = r;
}

/* pshufw (MMX) and pshuflw: the low four words; pshufhw the high. */
VK(k_pshuflw)
{
    X86XMMReg r = *s;

    for (unsigned i = 0; i < 4; i++) {
        r.w[i] = s->w[(in->imm >> (2 * i)) & 3];
    }
    memcpy(d, &r, in->aux2);
}

VK(k_pshufhw)
{
    X86XMMReg r = *s;

    for (unsigned i = 0; i < 4; i++) {
        r.w[4 + i] = s->w[4 + ((in->imm >> (2 * i)) & 3)];
    }
    *d = r;
}

/* pinsrw mm/xmm, r32/m16, imm8 and pextrw r32, mm/xmm, imm8. */
VK(k_pinsrw)
{
    d->w[in->imm & (in->aux2 / 2 - 1)] = s->w[0];
}

VK(k_pextrw)
{
    d->q[0] = s->w[in->imm & (in->aux2 / 2 - 1)];
}

/* The MMX form (none; feat) and the SSE2 form (66) of an opcode. */
#define P(op_, feat_, k)                                                 \
    { VM_0F, op_, VP_NONE, 0, VR_MMX, VR_MMX, VF_M8, feat_, k, NULL,     \
      NULL },                                                            \
    { VM_0F, op_, VP_66, 0, VR_XMM, VR_XMM, VF_A16, ISA_SSE2, k, NULL,   \
      NULL }
/* The shift groups: reg form only, imm8. */
#define G(op_, dig, pfx_, k)                                             \
    { VM_0F, op_, pfx_, dig, pfx_ ? VR_XMM : VR_MMX,                     \
      pfx_ ? VR_XMM : VR_MMX, VF_GRP | VF_NOMEM | VF_IMM8 | VF_RMDST,    \
      pfx_ ? ISA_SSE2 : ISA_MMX, k, NULL, NULL }

const VecOp x86_vec_int_ops[] = {
    P(0x60, ISA_MMX, k_punpcklbw),
    P(0x61, ISA_MMX, k_punpcklwd),
    P(0x62, ISA_MMX, k_punpckldq),
    P(0x63, ISA_MMX, k_packsswb),
    P(0x64, ISA_MMX, k_pcmpgtb),
    P(0x65, ISA_MMX, k_pcmpgtw),
    P(0x66, ISA_MMX, k_pcmpgtd),
    P(0x67, ISA_MMX, k_packuswb),
    P(0x68, ISA_MMX, k_punpckhbw),
    P(0x69, ISA_MMX, k_punpckhwd),
    P(0x6a, ISA_MMX, k_punpckhdq),
    P(0x6b, ISA_MMX, k_packssdw),
    { VM_0F, 0x6c, VP_66, 0, VR_XMM, VR_XMM, VF_A16, ISA_SSE2,
      k_punpcklqdq, NULL, NULL },
    { VM_0F, 0x6d, VP_66, 0, VR_XMM, VR_XMM, VF_A16, ISA_SSE2,
      k_punpckhqdq, NULL, NULL },
    { VM_0F, 0x70, VP_NONE, 0, VR_MMX, VR_MMX, VF_M8 | VF_IMM8, ISA_SSE,
      k_pshuflw, NULL, NULL },                                  /* pshufw */
    { VM_0F, 0x70, VP_66, 0, VR_XMM, VR_XMM, VF_A16 | VF_IMM8, ISA_SSE2,
      k_pshufd, NULL, NULL },
    { VM_0F, 0x70, VP_F3, 0, VR_XMM, VR_XMM, VF_A16 | VF_IMM8, ISA_SSE2,
      k_pshufhw, NULL, NULL },
    { VM_0F, 0x70, VP_F2, 0, VR_XMM, VR_XMM, VF_A16 | VF_IMM8, ISA_SSE2,
      k_pshuflw, NULL, NULL },
    G(0x71, 2, VP_NONE, k_shift_imm), G(0x71, 4, VP_NONE, k_shift_imm),
    G(0x71, 6, VP_NONE, k_shift_imm), G(0x71, 2, VP_66, k_shift_imm),
    G(0x71, 4, VP_66, k_shift_imm), G(0x71, 6, VP_66, k_shift_imm),
    G(0x72, 2, VP_NONE, k_shift_imm), G(0x72, 4, VP_NONE, k_shift_imm),
    G(0x72, 6, VP_NONE, k_shift_imm), G(0x72, 2, VP_66, k_shift_imm),
    G(0x72, 4, VP_66, k_shift_imm), G(0x72, 6, VP_66, k_shift_imm),
    G(0x73, 2, VP_NONE, k_shift_imm), G(0x73, 6, VP_NONE, k_shift_imm),
    G(0x73, 2, VP_66, k_shift_imm), G(0x73, 6, VP_66, k_shift_imm),
    G(0x73, 3, VP_66, k_pshiftdq), G(0x73, 7, VP_66, k_pshiftdq),
    P(0x74, ISA_MMX, k_pcmpeqb),
    P(0x75, ISA_MMX, k_pcmpeqw),
    P(0x76, ISA_MMX, k_pcmpeqd),
    { VM_0F, 0xc4, VP_NONE, 0, VR_MMX, VR_GPR, VF_M2 | VF_IMM8, ISA_SSE,
      k_pinsrw, NULL, NULL },
    { VM_0F, 0xc4, VP_66, 0, VR_XMM, VR_GPR, VF_M2 | VF_IMM8, ISA_SSE2,
      k_pinsrw, NULL, NULL },
    { VM_0F, 0xc5, VP_NONE, 0, VR_GPR, VR_MMX, VF_NOMEM | VF_IMM8, ISA_SSE,
      k_pextrw, NULL, NULL },
    { VM_0F, 0xc5, VP_66, 0, VR_GPR, VR_XMM, VF_NOMEM | VF_IMM8, ISA_SSE2,
      k_pextrw, NULL, NULL },
    P(0xd1, ISA_MMX, k_psrlw),
    P(0xd2, ISA_MMX, k_psrld),
    P(0xd3, ISA_MMX, k_psrlq),
    P(0xd4, ISA_SSE2, k_paddq),
    P(0xd5, ISA_MMX, k_pmullw),
    P(0xd8, ISA_MMX, k_psubusb),
    P(0xd9, ISA_MMX, k_psubusw),
    P(0xda, ISA_SSE, k_pminub),
    P(0xdb, ISA_MMX, k_pand),
    P(0xdc, ISA_MMX, k_paddusb),
    P(0xdd, ISA_MMX, k_paddusw),
    P(0xde, ISA_SSE, k_pmaxub),
    P(0xdf, ISA_MMX, k_pandn),
    P(0xe0, ISA_SSE, k_pavgb),
    P(0xe1, ISA_MMX, k_psraw),
    P(0xe2, ISA_MMX, k_psrad),
    P(0xe3, ISA_SSE, k_pavgw),
    P(0xe4, ISA_SSE, k_pmulhuw),
    P(0xe5, ISA_MMX, k_pmulhw),
    P(0xe8, ISA_MMX, k_psubsb),
    P(0xe9, ISA_MMX, k_psubsw),
    P(0xea, ISA_SSE, k_pminsw),
    P(0xeb, ISA_MMX, k_por),
    P(0xec, ISA_MMX, k_paddsb),
    P(0xed, ISA_MMX, k_paddsw),
    P(0xee, ISA_SSE, k_pmaxsw),
    P(0xef, ISA_MMX, k_pxor),
    P(0xf1, ISA_MMX, k_psllw),
    P(0xf2, ISA_MMX, k_pslld),
    P(0xf3, ISA_MMX, k_psllq),
    P(0xf4, ISA_SSE2, k_pmuludq),
    P(0xf5, ISA_MMX, k_pmaddwd),
    P(0xf6, ISA_SSE, k_psadbw),
    P(0xf8, ISA_MMX, k_psubb),
    P(0xf9, ISA_MMX, k_psubw),
    P(0xfa, ISA_MMX, k_psubd),
    P(0xfb, ISA_SSE2, k_psubq),
    P(0xfc, ISA_MMX, k_paddb),
    P(0xfd, ISA_MMX, k_paddw),
    P(0xfe, ISA_MMX, k_paddd),
    VEC_END
};
