/*
 * Vector moves: whole registers, scalars, halves, between register
 * files, non-temporal stores, sign masks; plus movbe, which lives in the
 * 0f 38 map. Semantics: Intel SDM vol. 2, each instruction's page.
 */
#include "target/i386/tcg/vec.h"

VK(k_mov)
{
    *d = *s;
}

VK(k_mov_l32)                            /* low dword, the rest kept */
{
    d->l[0] = s->l[0];
}

VK(k_mov_l64)                            /* low qword, the rest kept */
{
    d->q[0] = s->q[0];
}

VK(k_movz_l32)                           /* low dword, the rest zero */
{
    uint32_t v = s->l[0];

    d->q[0] = v;
    d->q[1] = 0;
}

VK(k_movz_l64)                           /* low qword, the rest zero */
{
    uint64_t v = s->q[0];

    d->q[0] = v;
    d->q[1] = 0;
}

VK(k_movhl)                              /* movhlps, movhps/movhpd stores */
{
    d->q[0] = s->q[1];
}

VK(k_movlh)                              /* movlhps, movhps/movhpd loads */
{
    d->q[1] = s->q[0];
}

/* movd/movq from a general register or memory: 32 or 64 bits. */
VK(k_movd_in)
{
    uint64_t v = in->aux2 == OT_Q ? s->q[0] : s->l[0];

    d->q[0] = v;
    d->q[1] = 0;
}

/* movd/movq to a general register or memory (movnti too). */
VK(k_movd_out)
{
    d->q[0] = in->aux2 == OT_Q ? s->q[0] : s->l[0];
}

VK(k_movddup)
{
    uint64_t v = s->q[0];

    d->q[0] = d->q[1] = v;
}

VK(k_movsldup)
{
    X86XMMReg t = *s;

    d->l[0] = d->l[1] = t.l[0];
    d->l[2] = d->l[3] = t.l[2];
}

VK(k_movshdup)
{
    X86XMMReg t = *s;

    d->l[0] = d->l[1] = t.l[1];
    d->l[2] = d->l[3] = t.l[3];
}

VK(k_movmskps)
{
    uint64_t m = 0;

    for (unsigned i = 0; i < 4; i++) {
        m |= (uint64_t)(s->l[i] >> 31) << i;
    }
    d->q[0] = m;
}

VK(k_movmskpd)
{
    d->q[0] = (s->q[0] >> 63) | (s->q[1] >> 63) << 1;
}

VK(k_pmovmskb)
{
    unsigned n = MIN(in->aux2, sizeof(s->b));   /* 8 (MMX) or 16 bytes */
    uint64_t m = 0;

    for (unsigned i = 0; i < n; i++) {
        m |= (uint64_t)(s->b[i] >> 7) << i;
    }
    d->q[0] = m;
}

/* movbe's loads and stores are the integer ISA's (ops-mov.c). */
static uintptr_t op_movbe_load(CPUX86State *env, const Insn *in)
{
    return x86_movbe_fn[0].fn(env, in);
}

static uintptr_t op_movbe_store(CPUX86State *env, const Insn *in)
{
    return x86_movbe_fn[1].fn(env, in);
}

#define E(map_, op_, pfx_, feat_, reg_, rm_, fl, k, km) \
    { map_, op_, pfx_, 0, reg_, rm_, fl, feat_, k, km, NULL }
/* xmm, xmm/mem */
#define X(op_, pfx_, feat_, fl, k, km) \
    E(VM_0F, op_, pfx_, feat_, VR_XMM, VR_XMM, fl, k, km)
/* xmm/mem, xmm */
#define XS(op_, pfx_, feat_, fl, k) \
    E(VM_0F, op_, pfx_, feat_, VR_XMM, VR_XMM, (fl) | VF_RMDST, k, NULL)
#define MOVBE(op_, pfx_, fn_) \
    { VM_0F38, op_, pfx_, 0, VR_GPR, VR_GPR, VF_NOREG | VF_OSZ, ISA_MOVBE, \
      NULL, NULL, fn_ }

const VecOp x86_vec_mov_ops[] = {
    X(0x10, VP_NONE, ISA_SSE, VF_M16, k_mov, NULL),            /* movups */
    X(0x10, VP_66, ISA_SSE2, VF_M16, k_mov, NULL),             /* movupd */
    X(0x10, VP_F3, ISA_SSE, VF_M4, k_mov_l32, k_movz_l32),     /* movss */
    X(0x10, VP_F2, ISA_SSE2, VF_M8, k_mov_l64, k_movz_l64),    /* movsd */
    XS(0x11, VP_NONE, ISA_SSE, VF_M16, k_mov),
    XS(0x11, VP_66, ISA_SSE2, VF_M16, k_mov),
    XS(0x11, VP_F3, ISA_SSE, VF_M4, k_mov_l32),
    XS(0x11, VP_F2, ISA_SSE2, VF_M8, k_mov_l64),
    X(0x12, VP_NONE, ISA_SSE, VF_M8, k_movhl, k_mov_l64),      /* movhlps,
                                                                 * movlps */
    X(0x12, VP_66, ISA_SSE2, VF_M8 | VF_NOREG, k_mov_l64, NULL), /* movlpd */
    X(0x12, VP_F2, ISA_SSE3, VF_M8, k_movddup, NULL),
    X(0x12, VP_F3, ISA_SSE3, VF_A16, k_movsldup, NULL),
    XS(0x13, VP_NONE, ISA_SSE, VF_M8 | VF_NOREG, k_mov_l64),
    XS(0x13, VP_66, ISA_SSE2, VF_M8 | VF_NOREG, k_mov_l64),
    X(0x16, VP_NONE, ISA_SSE, VF_M8, k_movlh, NULL),           /* movlhps,
                                                                 * movhps */
    X(0x16, VP_66, ISA_SSE2, VF_M8 | VF_NOREG, k_movlh, NULL), /* movhpd */
    X(0x16, VP_F3, ISA_SSE3, VF_A16, k_movshdup, NULL),
    XS(0x17, VP_NONE, ISA_SSE, VF_M8 | VF_NOREG, k_movhl),
    XS(0x17, VP_66, ISA_SSE2, VF_M8 | VF_NOREG, k_movhl),
    X(0x28, VP_NONE, ISA_SSE, VF_A16 | VF_AMOV, k_mov, NULL),            /* movaps */
    X(0x28, VP_66, ISA_SSE2, VF_A16 | VF_AMOV, k_mov, NULL),             /* movapd */
    XS(0x29, VP_NONE, ISA_SSE, VF_A16 | VF_AMOV, k_mov),
    XS(0x29, VP_66, ISA_SSE2, VF_A16 | VF_AMOV, k_mov),
    XS(0x2b, VP_NONE, ISA_SSE, VF_A16 | VF_AMOV | VF_NOREG, k_mov),      /* movntps */
    XS(0x2b, VP_66, ISA_SSE2, VF_A16 | VF_AMOV | VF_NOREG, k_mov),       /* movntpd */
    E(VM_0F, 0x50, VP_NONE, ISA_SSE, VR_GPR, VR_XMM, VF_NOMEM,
      k_movmskps, NULL),
    E(VM_0F, 0x50, VP_66, ISA_SSE2, VR_GPR, VR_XMM, VF_NOMEM,
      k_movmskpd, NULL),
    /* movd/movq with general registers */
    E(VM_0F, 0x6e, VP_NONE, ISA_MMX, VR_MMX, VR_GPR, VF_M4 | VF_W,
      k_movd_in, NULL),
    E(VM_0F, 0x6e, VP_66, ISA_SSE2, VR_XMM, VR_GPR, VF_M4 | VF_W,
      k_movd_in, NULL),
    E(VM_0F, 0x7e, VP_NONE, ISA_MMX, VR_MMX, VR_GPR,
      VF_M4 | VF_W | VF_RMDST, k_movd_out, NULL),
    E(VM_0F, 0x7e, VP_66, ISA_SSE2, VR_XMM, VR_GPR,
      VF_M4 | VF_W | VF_RMDST, k_movd_out, NULL),
    X(0x7e, VP_F3, ISA_SSE2, VF_M8, k_movz_l64, NULL),         /* movq */
    XS(0xd6, VP_66, ISA_SSE2, VF_M8, k_movz_l64),              /* movq */
    E(VM_0F, 0xd6, VP_F3, ISA_SSE2, VR_XMM, VR_MMX, VF_NOMEM,
      k_movz_l64, NULL),                                        /* movq2dq */
    E(VM_0F, 0xd6, VP_F2, ISA_SSE2, VR_MMX, VR_XMM, VF_NOMEM,
      k_mov_l64, NULL),                                         /* movdq2q */
    /* whole registers */
    E(VM_0F, 0x6f, VP_NONE, ISA_MMX, VR_MMX, VR_MMX, VF_M8, k_mov_l64,
      NULL),
    X(0x6f, VP_66, ISA_SSE2, VF_A16 | VF_AMOV, k_mov, NULL),             /* movdqa */
    X(0x6f, VP_F3, ISA_SSE2, VF_M16, k_mov, NULL),             /* movdqu */
    E(VM_0F, 0x7f, VP_NONE, ISA_MMX, VR_MMX, VR_MMX, VF_M8 | VF_RMDST,
      k_mov_l64, NULL),
    XS(0x7f, VP_66, ISA_SSE2, VF_A16 | VF_AMOV, k_mov),
    XS(0x7f, VP_F3, ISA_SSE2, VF_M16, k_mov),
    E(VM_0F, 0xe7, VP_NONE, ISA_SSE, VR_MMX, VR_MMX,
      VF_M8 | VF_RMDST | VF_NOREG, k_mov_l64, NULL),            /* movntq */
    XS(0xe7, VP_66, ISA_SSE2, VF_A16 | VF_AMOV | VF_NOREG, k_mov),       /* movntdq */
    X(0xf0, VP_F2, ISA_SSE3, VF_M16 | VF_NOREG, k_mov, NULL),  /* lddqu */
    E(VM_0F, 0xc3, VP_NONE, ISA_SSE2, VR_GPR, VR_GPR,
      VF_M4 | VF_W | VF_RMDST | VF_NOREG, k_movd_out, NULL),    /* movnti */
    E(VM_0F, 0xd7, VP_NONE, ISA_SSE, VR_GPR, VR_MMX, VF_NOMEM,
      k_pmovmskb, NULL),
    E(VM_0F, 0xd7, VP_66, ISA_SSE2, VR_GPR, VR_XMM, VF_NOMEM,
      k_pmovmskb, NULL),
    E(VM_0F38, 0x2a, VP_66, ISA_SSE41, VR_XMM, VR_XMM,
      VF_A16 | VF_AMOV | VF_NOREG, k_mov, NULL),                          /* movntdqa */
    MOVBE(0xf0, VP_NONE, op_movbe_load),
    MOVBE(0xf0, VP_66, op_movbe_load),
    MOVBE(0xf1, VP_NONE, op_movbe_store),
    MOVBE(0xf1, VP_66, op_movbe_store),
    VEC_END
};
