/*
 * SSSE3 (0f 38 00..1e, 0f 3a 0f) in its MMX and XMM forms: byte
 * shuffles, horizontal adds and subtracts, multiply-adds, signs,
 * absolute values, palignr. Semantics: Intel SDM vol. 2.
 */
#include "target/i386/tcg/vec-int.h"

VK(k_pshufb)
{
    X86XMMReg t = *d;
    unsigned n = in->aux2;

    for (unsigned i = 0; i < n; i++) {
        uint8_t c = s->b[i];

        d->b[i] = c & 0x80 ? 0 : t.b[c & (n - 1)];
    }
}

/* Horizontal pairs: the first half from d's pairs, the second from s's. */
enum { H_ADD, H_ADDS, H_SUB, H_SUBS };

static int32_t hop(int kind, int32_t a, int32_t b)
{
    switch (kind) {
    case H_ADD:
        return a + b;
    case H_ADDS:
        return (int16_t)vec_sat_s16(a + b);
    case H_SUB:
        return a - b;
    default:
        return (int16_t)vec_sat_s16(a - b);
    }
}

static void hpairs(X86XMMReg *d, const X86XMMReg *s, unsigned width,
                   unsigned esz, int kind)
{
    X86XMMReg t;
    unsigned half = width / esz / 2;

    for (unsigned i = 0; i < half; i++) {
        for (unsigned k = 0; k < 2; k++) {
            const X86XMMReg *v = k ? s : d;
            int64_t a = vec_get(v, esz, 2 * i), b = vec_get(v, esz, 2 * i + 1);

            if (esz == 2) {
                a = (int16_t)a;
                b = (int16_t)b;
            }
            vec_set(&t, esz, k * half + i,
                    esz == 2 ? (uint64_t)hop(kind, a, b)
                             : kind == H_ADD ? (uint64_t)(a + b)
                                             : (uint64_t)(a - b));
        }
    }
    memcpy(d, &t, width);
}

#define HPAIRS(name, esz, kind)                                          \
    VK(name)                                                             \
    {                                                                    \
        hpairs(d, s, in->aux2, esz, kind);                               \
    }

HPAIRS(k_phaddw, 2, H_ADD)
HPAIRS(k_phaddd, 4, H_ADD)
HPAIRS(k_phaddsw, 2, H_ADDS)
HPAIRS(k_phsubw, 2, H_SUB)
HPAIRS(k_phsubd, 4, H_SUB)
HPAIRS(k_phsubsw, 2, H_SUBS)

VK(k_pmaddubsw)
{
    for (unsigned i = 0; i < in->aux2 / 2; i++) {
        int32_t p = d->b[2 * i] * (int8_t)s->b[2 * i] +
                    d->b[2 * i + 1] * (int8_t)s->b[2 * i + 1];

        d->w[i] = vec_sat_s16(p);
    }
}

VK(k_pmulhrsw)
{
    for (unsigned i = 0; i < in->aux2 / 2; i++) {
        int32_t p = (int16_t)d->w[i] * (int16_t)s->w[i];

        d->w[i] = ((p >> 14) + 1) >> 1;
    }
}

static void psign(X86XMMReg *d, const X86XMMReg *s, unsigned width,
                  unsigned esz)
{
    unsigned sh = 64 - esz * 8;

    for (unsigned i = 0; i < width / esz; i++) {
        int64_t a = (int64_t)(vec_get(d, esz, i) << sh) >> sh;
        int64_t b = (int64_t)(vec_get(s, esz, i) << sh) >> sh;

        vec_set(d, esz, i, b < 0 ? -(uint64_t)a : b == 0 ? 0 : (uint64_t)a);
    }
}

static void pabs(X86XMMReg *d, const X86XMMReg *s, unsigned width,
                 unsigned esz)
{
    unsigned sh = 64 - esz * 8;

    for (unsigned i = 0; i < width / esz; i++) {
        int64_t b = (int64_t)(vec_get(s, esz, i) << sh) >> sh;

        vec_set(d, esz, i, b < 0 ? -(uint64_t)b : (uint64_t)b);
    }
}

#define SIGN_ABS(esz, sfx)                                               \
    VK(k_psign##sfx)                                                     \
    {                                                                    \
        psign(d, s, in->aux2, esz);                                      \
    }                                                                    \
    VK(k_pabs##sfx)                                                      \
    {                                                                    \
        pabs(d, s, in->aux2, esz);                                       \
    }

SIGN_ABS(1, b)
SIGN_ABS(2, w)
SIGN_ABS(4, d)

/* palignr: bytes imm .. imm + width - 1 of the concatenation d:s. */
VK(k_palignr)
{
    uint8_t cat[32];
    unsigned n = in->aux2;

    memcpy(cat, s, n);
    memcpy(cat + n, d, n);
    for (unsigned i = 0; i < n; i++) {
        unsigned k = in->imm + i;

        d->b[i] = k < 2 * n ? cat[k] : 0;
    }
}

/* The MMX (none) and XMM (66) forms of a 0f 38 opcode. */
#define S3(map_, op_, fl, k)                                             \
    { map_, op_, VP_NONE, 0, VR_MMX, VR_MMX, VF_M8 | (fl), ISA_SSSE3, k, \
      NULL, NULL },                                                      \
    { map_, op_, VP_66, 0, VR_XMM, VR_XMM, VF_A16 | (fl), ISA_SSSE3, k,  \
      NULL, NULL }

const VecOp x86_vec_ssse3_ops[] = {
    S3(VM_0F38, 0x00, 0, k_pshufb),
    S3(VM_0F38, 0x01, 0, k_phaddw),
    S3(VM_0F38, 0x02, 0, k_phaddd),
    S3(VM_0F38, 0x03, 0, k_phaddsw),
    S3(VM_0F38, 0x04, 0, k_pmaddubsw),
    S3(VM_0F38, 0x05, 0, k_phsubw),
    S3(VM_0F38, 0x06, 0, k_phsubd),
    S3(VM_0F38, 0x07, 0, k_phsubsw),
    S3(VM_0F38, 0x08, 0, k_psignb),
    S3(VM_0F38, 0x09, 0, k_psignw),
    S3(VM_0F38, 0x0a, 0, k_psignd),
    S3(VM_0F38, 0x0b, 0, k_pmulhrsw),
    S3(VM_0F38, 0x1c, 0, k_pabsb),
    S3(VM_0F38, 0x1d, 0, k_pabsw),
    S3(VM_0F38, 0x1e, 0, k_pabsd),
    S3(VM_0F3A, 0x0f, VF_IMM8, k_palignr),
    VEC_END
};
