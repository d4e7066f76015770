/*
 * SSE4.1 and SSE4.2 integer and data movement (0f 38, 0f 3a maps):
 * blends, ptest, sign and zero extensions, dword/qword multiplies and
 * compares, min/max, inserts and extracts, mpsadbw, phminposuw, and
 * crc32. The rounding instructions are with the other floating point
 * (ops-sse-float.c). Semantics: Intel SDM vol. 2.
 */
#include "target/i386/tcg/vec-int.h"

EACH(k_pminsb, int8_t, b, a < b ? a : b)
EACH(k_pminsd, int32_t, l, a < b ? a : b)
EACH(k_pminuw, uint16_t, w, a < b ? a : b)
EACH(k_pminud, uint32_t, l, a < b ? a : b)
EACH(k_pmaxsb, int8_t, b, a > b ? a : b)
EACH(k_pmaxsd, int32_t, l, a > b ? a : b)
EACH(k_pmaxuw, uint16_t, w, a > b ? a : b)
EACH(k_pmaxud, uint32_t, l, a > b ? a : b)
EACH(k_pmulld, uint32_t, l, a * b)
EACH(k_pcmpeqq, uint64_t, q, a == b ? ~0ull : 0)
EACH(k_pcmpgtq, int64_t, q, a > b ? ~0ull : 0)

VK(k_pmuldq)
{
    for (unsigned i = 0; i < 2; i++) {
        d->q[i] = (int64_t)(int32_t)d->l[2 * i] * (int32_t)s->l[2 * i];
    }
}

VK(k_packusdw)
{
    vec_pack(d, s, 16, 4, false);
}

/* Blends: element i from s where the mask (imm8 or XMM0) says so. */
static void blend(X86XMMReg *d, const X86XMMReg *s, unsigned esz,
                  unsigned mask)
{
    for (unsigned i = 0; i < 16 / esz; i++) {
        if (mask & (1u << i)) {
            vec_set(d, esz, i, vec_get(s, esz, i));
        }
    }
}

/* The top bits of XMM0's elements as a mask. */
static unsigned xmm0_mask(CPUX86State *env, unsigned esz)
{
    unsigned m = 0;

    for (unsigned i = 0; i < 16 / esz; i++) {
        m |= (unsigned)(vec_get(&env->xmm[0], esz, i) >> (esz * 8 - 1)) << i;
    }
    return m;
}

VK(k_pblendvb)
{
    blend(d, s, 1, xmm0_mask(env, 1));
}

VK(k_blendvps)
{
    blend(d, s, 4, xmm0_mask(env, 4));
}

VK(k_blendvpd)
{
    blend(d, s, 8, xmm0_mask(env, 8));
}

VK(k_pblendw)
{
    blend(d, s, 2, in->imm);
}

VK(k_blendps)
{
    blend(d, s, 4, in->imm & 15);
}

VK(k_blendpd)
{
    blend(d, s, 8, in->imm & 3);
}

VK(k_ptest)
{
    bool z = !((d->q[0] & s->q[0]) | (d->q[1] & s->q[1]));
    bool c = !((~d->q[0] & s->q[0]) | (~d->q[1] & s->q[1]));

    x86_set_eflags(env, (z ? CC_Z : 0) | (c ? CC_C : 0), CC_MASK);
}

/* pmovsx/pmovzx: the low elements of s widened from fsz to tsz bytes. */
static void pmovx(X86XMMReg *d, const X86XMMReg *s, unsigned fsz,
                  unsigned tsz, bool sign)
{
    X86XMMReg t;
    unsigned sh = 64 - fsz * 8;

    for (unsigned i = 0; i < 16 / tsz; i++) {
        uint64_t v = vec_get(s, fsz, i);

        vec_set(&t, tsz, i, sign ? (uint64_t)((int64_t)(v << sh) >> sh) : v);
    }
    *d = t;
}

#define PMOVX(sfx, fsz, tsz)                                             \
    VK(k_pmovsx##sfx)                                                    \
    {                                                                    \
        pmovx(d, s, fsz, tsz, true);                                     \
    }                                                                    \
    VK(k_pmovzx##sfx)                                                    \
    {                                                                    \
        pmovx(d, s, fsz, tsz, false);                                    \
    }

PMOVX(bw, 1, 2)
PMOVX(bd, 1, 4)
PMOVX(bq, 1, 8)
PMOVX(wd, 2, 4)
PMOVX(wq, 2, 8)
PMOVX(dq, 4, 8)

VK(k_phminposuw)
{
    unsigned m = 0;

    for (unsigned i = 1; i < 8; i++) {
        if (s->w[i] < s->w[m]) {
            m = i;
        }
    }
    d->q[0] = s->w[m] | m << 16;
    d->q[1] = 0;
}

VK(k_mpsadbw)
{
    X86XMMReg t;
    unsigned so = (in->imm & 3) * 4, dof = (in->imm & 4) ? 4 : 0;

    for (unsigned i = 0; i < 8; i++) {
        unsigned sum = 0;

        for (unsigned j = 0; j < 4; j++) {
            int a = d->b[dof + i + j], b = s->b[so + j];

            sum += a > b ? a - b : b - a;
        }
        t.w[i] = sum;
    }
    *d = t;
}

/* Extracts to a general register (zero-extended) or memory. */
VK(k_pextrb)
{
    d->q[0] = s->b[in->imm & 15];
}

VK(k_pextrw)
{
    d->q[0] = s->w[in->imm & 7];
}

VK(k_pextrd)
{
    d->q[0] = in->aux2 == OT_Q ? s->q[in->imm & 1] : s->l[in->imm & 3];
}

VK(k_extractps)
{
    d->q[0] = s->l[in->imm & 3];
}

VK(k_pinsrb)
{
    d->b[in->imm & 15] = s->b[0];
}

VK(k_pinsrd)
{
    if (in->aux2 == OT_Q) {
        d->q[in->imm & 1] = s->q[0];
    } else {
        d->l[in->imm & 3] = s->l[0];
    }
}

static void insertps(X86XMMReg *d, uint32_t v, unsigned imm)
{
    d->l[(imm >> 4) & 3] = v;
    for (unsigned i = 0; i < 4; i++) {
        if (imm & (1u << i)) {
            d->l[i] = 0;
        }
    }
}

VK(k_insertps)
{
    insertps(d, s->l[(in->imm >> 6) & 3], in->imm);
}

VK(k_insertps_m)
{
    insertps(d, s->l[0], in->imm);
}

/* crc32: CRC-32C (polynomial 0x1edc6f41, bit-reflected) of r/m. */
static uintptr_t op_crc32(CPUX86State *env, const Insn *in)
{
    int ot = vec_op(in)->op == 0xf0 ? OT_B : in->aux2;
    uint64_t v = in->rm == VREG_TMP ? mem_read(env, ot, x86_ea(env, in))
                                    : reg_read(env, ot, in->rm);
    uint32_t c = env->regs[in->reg];

    for (unsigned i = 0; i < (1u << ot); i++) {
        c ^= (v >> (8 * i)) & 0xff;
        for (unsigned k = 0; k < 8; k++) {
            c = (c >> 1) ^ (0x82f63b78u & -(c & 1));
        }
    }
    env->regs[in->reg] = c;
    return x86_next(env, in);
}

/*
 * pcmpestri/pcmpestrm/pcmpistri/pcmpistrm (SDM vol. 2 4.1, "Imm8
 * control byte"): the elements of xmm1 (the set, a) and xmm2/m128 (the
 * string, b), lengths explicit (|rAX|, |rDX|) or up to the first zero.
 * Returns IntRes2; *la and *lb the lengths.
 */
static unsigned pcmpstr(CPUX86State *env, const X86XMMReg *a,
                        const X86XMMReg *b, unsigned imm, bool explicit,
                        int ot, unsigned *la, unsigned *lb)
{
    unsigned n = imm & 1 ? 8 : 16, esz = imm & 1 ? 2 : 1;
    bool sign = imm & 2;
    unsigned agg = (imm >> 2) & 3, res = 0;
    int64_t va[16], vb[16];

    for (unsigned i = 0; i < n; i++) {
        uint64_t x = vec_get(a, esz, i), y = vec_get(b, esz, i);
        unsigned sh = 64 - esz * 8;

        va[i] = sign ? (int64_t)(x << sh) >> sh : (int64_t)x;
        vb[i] = sign ? (int64_t)(y << sh) >> sh : (int64_t)y;
    }
    if (explicit) {
        int64_t ra = ot == OT_Q ? (int64_t)env->regs[R_EAX]
                                : (int32_t)env->regs[R_EAX];
        int64_t rd = ot == OT_Q ? (int64_t)env->regs[R_EDX]
                                : (int32_t)env->regs[R_EDX];
        uint64_t ua = ra < 0 ? -(uint64_t)ra : (uint64_t)ra;
        uint64_t ud = rd < 0 ? -(uint64_t)rd : (uint64_t)rd;

        *la = ua > n ? n : ua;
        *lb = ud > n ? n : ud;
    } else {
        for (*la = 0; *la < n && va[*la]; (*la)++) {
        }
        for (*lb = 0; *lb < n && vb[*lb]; (*lb)++) {
        }
    }
    for (unsigned i = 0; i < n; i++) {
        bool r = false;

        switch (agg) {
        case 0:                                 /* equal any */
            for (unsigned j = 0; j < *la && i < *lb; j++) {
                r |= va[j] == vb[i];
            }
            break;
        case 1:                                 /* ranges */
            for (unsigned j = 0; j + 1 < *la && i < *lb; j += 2) {
                r |= va[j] <= vb[i] && va[j + 1] >= vb[i];
            }
            break;
        case 2:                                 /* equal each */
            r = i >= *la && i >= *lb ? true
              : i >= *la || i >= *lb ? false : va[i] == vb[i];
            break;
        default:                                /* equal ordered */
            r = true;
            for (unsigned j = 0; i + j < n && j < *la; j++) {
                if (i + j >= *lb || va[j] != vb[i + j]) {
                    r = false;
                    break;
                }
            }
            break;
        }
        res |= (unsigned)r << i;
    }
    switch ((imm >> 4) & 3) {
    case 1:
        res ^= (1u << n) - 1;
        break;
    case 3:
        res ^= (1u << *lb) - 1;
        break;
    default:
        break;
    }
    return res;
}

static void pcmpstr_flags(CPUX86State *env, unsigned res, unsigned la,
                          unsigned lb, unsigned n)
{
    x86_set_eflags(env, (res ? CC_C : 0) | (lb < n ? CC_Z : 0) |
                   (la < n ? CC_S : 0) | (res & 1 ? CC_O : 0), CC_MASK);
}

static void pcmpstri(CPUX86State *env, const X86XMMReg *d,
                     const X86XMMReg *s, const Insn *in, bool explicit)
{
    unsigned n = in->imm & 1 ? 8 : 16, la, lb;
    unsigned res = pcmpstr(env, d, s, in->imm, explicit, in->aux2, &la, &lb);

    env->regs[R_ECX] = !res ? n
                       : in->imm & 0x40 ? 31u - __builtin_clz(res)
                                        : (unsigned)__builtin_ctz(res);
    pcmpstr_flags(env, res, la, lb, n);
}

static void pcmpstrm(CPUX86State *env, const X86XMMReg *d,
                     const X86XMMReg *s, const Insn *in, bool explicit)
{
    unsigned n = in->imm & 1 ? 8 : 16, la, lb;
    unsigned res = pcmpstr(env, d, s, in->imm, explicit, in->aux2, &la, &lb);
    X86XMMReg m = { 0 };

    if (in->imm & 0x40) {
        for (unsigned i = 0; i < n; i++) {
            vec_set(&m, 16 / n, i, res & (1u << i) ? ~0ull : 0);
        }
    } else {
        m.q[0] = res;
    }
    env->xmm[0] = m;
    pcmpstr_flags(env, res, la, lb, n);
}

VK(k_pcmpestri)
{
    pcmpstri(env, d, s, in, true);
}

VK(k_pcmpistri)
{
    pcmpstri(env, d, s, in, false);
}

VK(k_pcmpestrm)
{
    pcmpstrm(env, d, s, in, true);
}

VK(k_pcmpistrm)
{
    pcmpstrm(env, d, s, in, false);
}

#define S4(map_, op_, fl, k)                                             \
    { map_, op_, VP_66, 0, VR_XMM, VR_XMM, fl, ISA_SSE41, k, NULL, NULL }
/* To or from a general register or memory. */
#define S4G(op_, fl, k)                                                  \
    { VM_0F3A, op_, VP_66, 0, VR_XMM, VR_GPR, (fl) | VF_IMM8, ISA_SSE41, \
      k, NULL, NULL }

const VecOp x86_vec_sse4_ops[] = {
    S4(VM_0F38, 0x10, VF_A16, k_pblendvb),
    S4(VM_0F38, 0x14, VF_A16, k_blendvps),
    S4(VM_0F38, 0x15, VF_A16, k_blendvpd),
    S4(VM_0F38, 0x17, VF_A16 | VF_RO, k_ptest),
    S4(VM_0F38, 0x20, VF_M8, k_pmovsxbw),
    S4(VM_0F38, 0x21, VF_M4, k_pmovsxbd),
    S4(VM_0F38, 0x22, VF_M2, k_pmovsxbq),
    S4(VM_0F38, 0x23, VF_M8, k_pmovsxwd),
    S4(VM_0F38, 0x24, VF_M4, k_pmovsxwq),
    S4(VM_0F38, 0x25, VF_M8, k_pmovsxdq),
    S4(VM_0F38, 0x28, VF_A16, k_pmuldq),
    S4(VM_0F38, 0x29, VF_A16, k_pcmpeqq),
    S4(VM_0F38, 0x2b, VF_A16, k_packusdw),
    S4(VM_0F38, 0x30, VF_M8, k_pmovzxbw),
    S4(VM_0F38, 0x31, VF_M4, k_pmovzxbd),
    S4(VM_0F38, 0x32, VF_M2, k_pmovzxbq),
    S4(VM_0F38, 0x33, VF_M8, k_pmovzxwd),
    S4(VM_0F38, 0x34, VF_M4, k_pmovzxwq),
    S4(VM_0F38, 0x35, VF_M8, k_pmovzxdq),
    { VM_0F38, 0x37, VP_66, 0, VR_XMM, VR_XMM, VF_A16, ISA_SSE42,
      k_pcmpgtq, NULL, NULL },
    S4(VM_0F38, 0x38, VF_A16, k_pminsb),
    S4(VM_0F38, 0x39, VF_A16, k_pminsd),
    S4(VM_0F38, 0x3a, VF_A16, k_pminuw),
    S4(VM_0F38, 0x3b, VF_A16, k_pminud),
    S4(VM_0F38, 0x3c, VF_A16, k_pmaxsb),
    S4(VM_0F38, 0x3d, VF_A16, k_pmaxsd),
    S4(VM_0F38, 0x3e, VF_A16, k_pmaxuw),
    S4(VM_0F38, 0x3f, VF_A16, k_pmaxud),
    S4(VM_0F38, 0x40, VF_A16, k_pmulld),
    S4(VM_0F38, 0x41, VF_A16, k_phminposuw),
    S4(VM_0F3A, 0x0c, VF_A16 | VF_IMM8, k_blendps),
    S4(VM_0F3A, 0x0d, VF_A16 | VF_IMM8, k_blendpd),
    S4(VM_0F3A, 0x0e, VF_A16 | VF_IMM8, k_pblendw),
    S4G(0x14, VF_M1 | VF_RMDST, k_pextrb),
    S4G(0x15, VF_M2 | VF_RMDST, k_pextrw),
    S4G(0x16, VF_M4 | VF_RMDST | VF_W, k_pextrd),
    S4G(0x17, VF_M4 | VF_RMDST, k_extractps),
    S4G(0x20, VF_M1, k_pinsrb),
    { VM_0F3A, 0x21, VP_66, 0, VR_XMM, VR_XMM, VF_M4 | VF_IMM8, ISA_SSE41,
      k_insertps, k_insertps_m, NULL },
    S4G(0x22, VF_M4 | VF_W, k_pinsrd),
    S4(VM_0F3A, 0x42, VF_A16 | VF_IMM8, k_mpsadbw),
    { VM_0F3A, 0x60, VP_66, 0, VR_XMM, VR_XMM,
      VF_M16 | VF_IMM8 | VF_W | VF_RO, ISA_SSE42, k_pcmpestrm, NULL, NULL },
    { VM_0F3A, 0x61, VP_66, 0, VR_XMM, VR_XMM,
      VF_M16 | VF_IMM8 | VF_W | VF_RO, ISA_SSE42, k_pcmpestri, NULL, NULL },
    { VM_0F3A, 0x62, VP_66, 0, VR_XMM, VR_XMM, VF_M16 | VF_IMM8 | VF_RO,
      ISA_SSE42, k_pcmpistrm, NULL, NULL },
    { VM_0F3A, 0x63, VP_66, 0, VR_XMM, VR_XMM, VF_M16 | VF_IMM8 | VF_RO,
      ISA_SSE42, k_pcmpistri, NULL, NULL },
    { VM_0F38, 0xf0, VP_F2, 0, VR_GPR, VR_GPR, VF_OSZ | VF_BYTE,
      ISA_SSE42, NULL, NULL, op_crc32 },
    { VM_0F38, 0xf1, VP_F2, 0, VR_GPR, VR_GPR, VF_OSZ, ISA_SSE42, NULL,
      NULL, op_crc32 },
    VEC_END
};
