/*
 * The x87/SSE register file as a whole: its power-on state and the
 * FXSAVE image (Intel SDM vol. 1 10.5.1, AMD APM vol. 5 "FXSAVE").
 * The instructions that use them (fninit, fxsave, fxrstor, xsave)
 * live with the x87 and SSE code; the differential test uses the image
 * to load and compare the state.
 */
#include "target/i386/cpu-state.h"

/* Offsets in the 512-byte image. */
#define FX_FCW      0
#define FX_FSW      2
#define FX_FTW      4           /* abridged: 1 bit per physical register */
#define FX_FOP      6
#define FX_FIP      8
#define FX_FCS      12          /* 32-bit layout only */
#define FX_FDP      16
#define FX_FDS      20          /* 32-bit layout only */
#define FX_MXCSR    24
#define FX_MXCSR_MASK 28
#define FX_ST       32          /* ST(0)..ST(7), 16 bytes each */
#define FX_XMM      160         /* XMM0..XMM15, 16 bytes each */

static void put16(uint8_t *p, uint16_t v)
{
    memcpy(p, &v, 2);
}

static void put32(uint8_t *p, uint32_t v)
{
    memcpy(p, &v, 4);
}

static void put64(uint8_t *p, uint64_t v)
{
    memcpy(p, &v, 8);
}

static uint16_t get16(const uint8_t *p)
{
    uint16_t v;

    memcpy(&v, p, 2);
    return v;
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;

    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const uint8_t *p)
{
    uint64_t v;

    memcpy(&v, p, 8);
    return v;
}

/* The MXCSR bits this vCPU's vendor takes and reports (vendor.h). */
static uint32_t mxcsr_mask(CPUX86State *env)
{
    return env->cpu && env->cpu->vendor ? env->cpu->vendor->fxsave_mxcsr_mask
                                        : MXCSR_MASK;
}

void x86_fpu_reset(CPUX86State *env)
{
    memset(env->fpregs, 0, sizeof(env->fpregs));
    memset(env->fptags, 1, sizeof(env->fptags));
    env->fpstt = 0;
    env->fpus = 0;
    env->fpuc = FPUC_INIT;
    env->fpop = 0;
    env->fpip = env->fpdp = 0;
    env->fpcs = env->fpds = 0;
    memset(env->xmm, 0, sizeof(env->xmm));
    env->mxcsr = MXCSR_INIT;
    env->xcr0 = XCR0_X87;
}

void x86_fxsave_image(CPUX86State *env, uint8_t *img, bool rex_w)
{
    uint8_t ftw = 0;

    for (unsigned i = 0; i < 8; i++) {
        ftw |= (env->fptags[i] ? 0 : 1) << i;
    }
    put16(img + FX_FCW, env->fpuc);
    put16(img + FX_FSW, (env->fpus & ~FPUS_TOP) | ((env->fpstt & 7) << 11));
    img[FX_FTW] = ftw;
    img[FX_FTW + 1] = 0;
    put16(img + FX_FOP, env->fpop);
    if (rex_w) {
        put64(img + FX_FIP, env->fpip);
        put64(img + FX_FDP, env->fpdp);
    } else {
        bool zero = env->cpu && env->cpu->fcs_fds_zero;

        put32(img + FX_FIP, env->fpip);
        put32(img + FX_FCS, zero ? 0 : env->fpcs);
        put32(img + FX_FDP, env->fpdp);
        put32(img + FX_FDS, zero ? 0 : env->fpds);
    }
    put32(img + FX_MXCSR, env->mxcsr);
    put32(img + FX_MXCSR_MASK, mxcsr_mask(env));
    for (unsigned i = 0; i < 8; i++) {
        const X86FPReg *r = &env->fpregs[(env->fpstt + i) & 7];
        uint8_t *p = img + FX_ST + 16 * i;

        put64(p, r->mant);
        put16(p + 8, r->sexp);
        memset(p + 10, 0, 6);
    }
    for (unsigned i = 0; i < 16; i++) {
        memcpy(img + FX_XMM + 16 * i, &env->xmm[i], 16);
    }
}

bool x86_fxrstor_image(CPUX86State *env, const uint8_t *img, bool rex_w)
{
    uint32_t mxcsr = get32(img + FX_MXCSR);
    uint16_t fsw = get16(img + FX_FSW);

    if (mxcsr & ~mxcsr_mask(env)) {
        return false;
    }
    env->fpuc = get16(img + FX_FCW);
    env->fpstt = (fsw & FPUS_TOP) >> 11;
    env->fpus = fsw & ~FPUS_TOP;
    for (unsigned i = 0; i < 8; i++) {
        env->fptags[i] = !((img[FX_FTW] >> i) & 1);
    }
    env->fpop = get16(img + FX_FOP) & 0x7ff;
    if (rex_w) {
        env->fpip = get64(img + FX_FIP);
        env->fpdp = get64(img + FX_FDP);
    } else {
        env->fpip = get32(img + FX_FIP);
        env->fpcs = get16(img + FX_FCS);
        env->fpdp = get32(img + FX_FDP);
        env->fpds = get16(img + FX_FDS);
    }
    env->mxcsr = mxcsr;
    for (unsigned i = 0; i < 8; i++) {
        X86FPReg *r = &env->fpregs[(env->fpstt + i) & 7];
        const uint8_t *p = img + FX_ST + 16 * i;

        r->mant = get64(p);
        r->sexp = get16(p + 8);
    }
    for (unsigned i = 0; i < 16; i++) {
        memcpy(&env->xmm[i], img + FX_XMM + 16 * i, 16);
    }
    return true;
}
