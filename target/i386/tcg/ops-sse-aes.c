/*
 * AES-NI (66 0f 38 db..df, 66 0f 3a df) and PCLMULQDQ (66 0f 3a 44).
 * The AES round steps follow FIPS-197 (SubBytes, ShiftRows, MixColumns
 * and their inverses) on the state as the SDM lays it out in an XMM
 * register: byte i is row i % 4 of column i / 4. The S-box is computed
 * once from its definition (the multiplicative inverse in GF(2^8)
 * followed by the affine map) rather than typed in.
 */
#include "target/i386/tcg/vec.h"

static uint8_t sbox[256], inv_sbox[256];

static uint8_t gf_mul(uint8_t a, uint8_t b)
{
    uint8_t p = 0;

    while (b) {
        if (b & 1) {
            p ^= a;
        }
        a = (a << 1) ^ (a & 0x80 ? 0x1b : 0);
        b >>= 1;
    }
    return p;
}

static void aes_tables(void)
{
    static gsize done;

    if (!g_once_init_enter(&done)) {
        return;
    }
    for (unsigned x = 0; x < 256; x++) {
        uint8_t inv = 0, s;

        for (unsigned y = 1; x && y < 256; y++) {
            if (gf_mul(x, y) == 1) {
                inv = y;
                break;
            }
        }
        s = inv;
        for (unsigned k = 1; k < 5; k++) {
            s ^= (uint8_t)(inv << k | inv >> (8 - k));
        }
        s ^= 0x63;
        sbox[x] = s;
        inv_sbox[s] = x;
    }
    g_once_init_leave(&done, 1);
}

static void sub_bytes(X86XMMReg *v, const uint8_t *box)
{
    for (unsigned i = 0; i < 16; i++) {
        v->b[i] = box[v->b[i]];
    }
}

/* Row r moves left (ShiftRows) or right (InvShiftRows) by r columns. */
static void shift_rows(X86XMMReg *v, bool inverse)
{
    X86XMMReg t = *v;

    for (unsigned c = 0; c < 4; c++) {
        for (unsigned r = 0; r < 4; r++) {
            unsigned from = inverse ? (c + 4 - r) % 4 : (c + r) % 4;

            v->b[4 * c + r] = t.b[4 * from + r];
        }
    }
}

static void mix_columns(X86XMMReg *v, bool inverse)
{
    static const uint8_t fwd[4] = { 2, 3, 1, 1 }, inv[4] = { 14, 11, 13, 9 };
    const uint8_t *m = inverse ? inv : fwd;

    for (unsigned c = 0; c < 4; c++) {
        uint8_t col[4];

        memcpy(col, &v->b[4 * c], 4);
        for (unsigned r = 0; r < 4; r++) {
            uint8_t x = 0;

            for (unsigned k = 0; k < 4; k++) {
                x ^= gf_mul(col[k], m[(k + 4 - r) % 4]);
            }
            v->b[4 * c + r] = x;
        }
    }
}

/* One round of encryption or decryption, the last without MixColumns. */
static void aes_round(X86XMMReg *d, const X86XMMReg *s, bool dec, bool last)
{
    X86XMMReg key = *s;

    aes_tables();
    shift_rows(d, dec);
    sub_bytes(d, dec ? inv_sbox : sbox);
    if (!last) {
        mix_columns(d, dec);
    }
    d->q[0] ^= key.q[0];
    d->q[1] ^= key.q[1];
}

VK(k_aesenc)
{
    aes_round(d, s, false, false);
}

VK(k_aesenclast)
{
    aes_round(d, s, false, true);
}

VK(k_aesdec)
{
    aes_round(d, s, true, false);
}

VK(k_aesdeclast)
{
    aes_round(d, s, true, true);
}

VK(k_aesimc)
{
    *d = *s;
    mix_columns(d, true);
}

static uint32_t sub_word(uint32_t w)
{
    return sbox[w & 0xff] | sbox[(w >> 8) & 0xff] << 8 |
           sbox[(w >> 16) & 0xff] << 16 | (uint32_t)sbox[w >> 24] << 24;
}

VK(k_aeskeygenassist)
{
    uint32_t x1, x3, rcon = in->imm;

    aes_tables();
    x1 = sub_word(s->l[1]);
    x3 = sub_word(s->l[3]);
    d->l[0] = x1;
    d->l[1] = ((x1 >> 8) | (x1 << 24)) ^ rcon;
    d->l[2] = x3;
    d->l[3] = ((x3 >> 8) | (x3 << 24)) ^ rcon;
}

/* The carry-less product of the qwords imm8 bits 0 and 4 pick. */
VK(k_pclmulqdq)
{
    uint64_t a = d->q[in->imm & 1], b = s->q[(in->imm >> 4) & 1];
    uint64_t lo = 0, hi = 0;

    for (unsigned i = 0; i < 64; i++) {
        if (b & (1ull << i)) {
            lo ^= a << i;
            hi ^= i ? a >> (64 - i) : 0;
        }
    }
    d->q[0] = lo;
    d->q[1] = hi;
}

#define AES(map_, op_, fl, feat_, k)                                     \
    { map_, op_, VP_66, 0, VR_XMM, VR_XMM, VF_A16 | (fl), feat_, k,      \
      NULL, NULL }

const VecOp x86_vec_aes_ops[] = {
    AES(VM_0F38, 0xdb, 0, ISA_AES, k_aesimc),
    AES(VM_0F38, 0xdc, 0, ISA_AES, k_aesenc),
    AES(VM_0F38, 0xdd, 0, ISA_AES, k_aesenclast),
    AES(VM_0F38, 0xde, 0, ISA_AES, k_aesdec),
    AES(VM_0F38, 0xdf, 0, ISA_AES, k_aesdeclast),
    AES(VM_0F3A, 0xdf, VF_IMM8, ISA_AES, k_aeskeygenassist),
    AES(VM_0F3A, 0x44, VF_IMM8, ISA_PCLMUL, k_pclmulqdq),
    VEC_END
};
