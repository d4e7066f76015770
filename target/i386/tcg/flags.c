/*
 * Lazy arithmetic flags: instructions record their kind, size and
 * operands (ops.h); the six arithmetic flags are computed here only when
 * something reads them (Intel SDM vol. 1, 3.4.3 and appendix A).
 */
#include "target/i386/tcg/ops.h"

static uint32_t szp(int ot, uint64_t dst)
{
    uint32_t f = 0;

    if (dst == 0) {
        f |= CC_Z;
    }
    if (ot_msb(ot, dst)) {
        f |= CC_S;
    }
    if (cc_parity(dst)) {
        f |= CC_P;
    }
    return f;
}

uint32_t x86_cc_compute_all(CPUX86State *env)
{
    unsigned kind = env->cc_op >> 2, ot = env->cc_op & 3;
    uint64_t mask = ot_mask(ot);
    uint64_t dst = env->cc_dst, src = env->cc_src, src1;
    uint64_t carry = env->cc_src2;
    uint32_t f;

    if (kind == CC_K_EFLAGS) {
        return env->eflags & CC_MASK;
    }
    f = szp(ot, dst);
    switch (kind) {
    case CC_K_ADD:
    case CC_K_ADC:
        if (kind == CC_K_ADD) {
            carry = 0;
        }
        src1 = (dst - src - carry) & mask;
        if (carry ? dst <= src1 : dst < src1) {
            f |= CC_C;
        }
        f |= (dst ^ src1 ^ src) & CC_A;
        if (ot_msb(ot, ~(src1 ^ src) & (src1 ^ dst))) {
            f |= CC_O;
        }
        break;
    case CC_K_SUB:
    case CC_K_SBB:
        if (kind == CC_K_SUB) {
            carry = 0;
        }
        src1 = (dst + src + carry) & mask;
        if (carry ? src1 <= src : src1 < src) {
            f |= CC_C;
        }
        f |= (dst ^ src1 ^ src) & CC_A;
        if (ot_msb(ot, (src1 ^ src) & (src1 ^ dst))) {
            f |= CC_O;
        }
        break;
    case CC_K_LOGIC:
        break;
    case CC_K_INC:
        f |= src ? CC_C : 0;
        f |= (dst & 0xf) == 0 ? CC_A : 0;
        f |= dst == (mask >> 1) + 1 ? CC_O : 0;
        break;
    case CC_K_DEC:
        f |= src ? CC_C : 0;
        f |= (dst & 0xf) == 0xf ? CC_A : 0;
        f |= dst == mask >> 1 ? CC_O : 0;
        break;
    case CC_K_SHL:
        if (ot_msb(ot, src)) {
            f |= CC_C;
        }
        if (ot_msb(ot, src) != ot_msb(ot, dst)) {
            f |= CC_O;
        }
        break;
    case CC_K_SAR:
        f |= src & 1 ? CC_C : 0;
        break;
    case CC_K_SHR:
        f |= src & 1 ? CC_C : 0;
        f |= ot_msb(ot, src) ? CC_O : 0;
        break;
    case CC_K_MUL:
        f |= src ? CC_C | CC_O : 0;
        break;
    default:
        g_assert_not_reached();
    }
    return f;
}

bool x86_cc_compute_c(CPUX86State *env)
{
    unsigned kind = env->cc_op >> 2, ot = env->cc_op & 3;
    uint64_t dst = env->cc_dst, src = env->cc_src;
    uint64_t mask = ot_mask(ot);

    switch (kind) {
    case CC_K_ADD:
        return dst < ((dst - src) & mask);
    case CC_K_SUB:
        return ((dst + src) & mask) < src;
    case CC_K_ADC:
        if (env->cc_src2) {
            return dst <= ((dst - src - 1) & mask);
        }
        return dst < ((dst - src) & mask);
    case CC_K_SBB:
        if (env->cc_src2) {
            return ((dst + src + 1) & mask) <= src;
        }
        return ((dst + src) & mask) < src;
    case CC_K_LOGIC:
        return false;
    case CC_K_INC:
    case CC_K_DEC:
    case CC_K_MUL:
        return src != 0;
    case CC_K_SAR:
    case CC_K_SHR:
        return src & 1;
    case CC_K_SHL:
        return ot_msb(ot, src);
    case CC_K_EFLAGS:
        return env->eflags & CC_C;
    default:
        return x86_cc_compute_all(env) & CC_C;
    }
}

void x86_cc_materialize(CPUX86State *env)
{
    if (env->cc_op != CC_OP_EFLAGS) {
        env->eflags = (env->eflags & ~CC_MASK) | x86_cc_compute_all(env);
        env->cc_op = CC_OP_EFLAGS;
    }
}

uint32_t x86_get_eflags(CPUX86State *env)
{
    return (env->eflags & ~CC_MASK) | x86_cc_compute_all(env) |
           EFLAGS_FIXED;
}

void x86_set_eflags(CPUX86State *env, uint32_t value, uint32_t mask)
{
    if (mask & CC_MASK) {
        x86_cc_materialize(env);
    }
    env->eflags = (env->eflags & ~mask) | (value & mask) | EFLAGS_FIXED;
}
