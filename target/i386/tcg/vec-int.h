/*
 * Element access and saturation for the integer SIMD kernels
 * (ops-sse-int.c, ops-sse-ssse3.c, ops-sse4.c).
 */
#ifndef TARGET_I386_TCG_VEC_INT_H
#define TARGET_I386_TCG_VEC_INT_H

#include "target/i386/tcg/vec.h"

/* Element i of size esz bytes (1, 2, 4, 8), zero-extended. */
static inline uint64_t vec_get(const X86XMMReg *v, unsigned esz, unsigned i)
{
    switch (esz) {
    case 1:
        return v->b[i];
    case 2:
        return v->w[i];
    case 4:
        return v->l[i];
    default:
        return v->q[i];
    }
}

static inline void vec_set(X86XMMReg *v, unsigned esz, unsigned i,
                           uint64_t x)
{
    switch (esz) {
    case 1:
        v->b[i] = x;
        break;
    case 2:
        v->w[i] = x;
        break;
    case 4:
        v->l[i] = x;
        break;
    default:
        v->q[i] = x;
        break;
    }
}

/* Element-wise: for each element of the width, d = expr(a, b). */
#define EACH(name, T, f, expr)                                           \
    VK(name)                                                              \
    {                                                                    \
        unsigned n_ = in->aux2 / sizeof(d->f[0]);                        \
        for (unsigned i = 0; i < n_; i++) {                              \
            T a = d->f[i], b = s->f[i];                                  \
            d->f[i] = (expr);                                            \
        }                                                                \
    }

static inline uint8_t vec_sat_s8(int v)
{
    return v > 127 ? 127 : v < -128 ? -128 : v;
}

static inline uint8_t vec_sat_u8(int v)
{
    return v > 255 ? 255 : v < 0 ? 0 : v;
}

static inline uint16_t vec_sat_s16(int32_t v)
{
    return v > 32767 ? 32767 : v < -32768 ? -32768 : v;
}

static inline uint16_t vec_sat_u16(int32_t v)
{
    return v > 65535 ? 65535 : v < 0 ? 0 : v;
}

/*
 * pack*: the signed elements of fsz bytes of d, then of s, saturated to
 * half their size (signed or unsigned), over the vector width.
 */
static inline void vec_pack(X86XMMReg *d, const X86XMMReg *s,
                            unsigned width, unsigned fsz, bool sign)
{
    X86XMMReg r;
    unsigned h = width / fsz, sh = 64 - fsz * 8;

    for (unsigned i = 0; i < 2 * h; i++) {
        uint64_t e = vec_get(i < h ? d : s, fsz, i % h);
        int32_t v = (int64_t)(e << sh) >> sh;
        uint64_t t;

        if (fsz == 2) {
            t = sign ? vec_sat_s8(v) : vec_sat_u8(v);
        } else {
            t = sign ? vec_sat_s16(v) : vec_sat_u16(v);
        }
        vec_set(&r, fsz / 2, i, t);
    }
    memcpy(d, &r, width);
}

#endif
