/*
 * String instructions: movs, cmps, stos, lods, scas, ins, outs, with
 * rep/repe/repne and either direction. rSI/rDI/rCX follow the address
 * size; the source segment may be overridden, the destination is always
 * ES. A long rep pauses every few thousand elements with rip unchanged
 * (X86_REPEAT) so interrupts are not held off; a fault leaves the
 * registers at the element that faulted, as the SDM requires.
 * Forward rep movs/stos between RAM pages the TLB knows are copied a
 * page at a time.
 */
#include "target/i386/tcg/ops-tables.h"

/* Elements done before a rep pauses. */
#define REP_BUDGET      4096
#define REP_IO_BUDGET   256

static inline uint64_t areg(CPUX86State *env, const Insn *in, int r)
{
    return env->regs[r] & x86_amask(in);
}

static inline void areg_set(CPUX86State *env, const Insn *in, int r,
                            uint64_t v)
{
    if (in->eaf & EA_A16) {
        reg_write(env, OT_W, r, v);
    } else if (in->eaf & EA_A32) {
        env->regs[r] = (uint32_t)v;
    } else {
        env->regs[r] = v;
    }
}

static inline int64_t str_step(CPUX86State *env, int ot)
{
    return (env->eflags & DF_MASK) ? -(1 << ot) : (1 << ot);
}

static inline uint64_t src_addr(CPUX86State *env, const Insn *in)
{
    return x86_seg_addr(env, in, in->seg, areg(env, in, R_ESI));
}

static inline uint64_t dst_addr(CPUX86State *env, const Insn *in)
{
    return x86_seg_addr(env, in, R_ES, areg(env, in, R_EDI));
}

/*
 * The host pointer for n bytes at linear address a when the TLB allows
 * this kind of access there and they stay in the page; else NULL.
 */
static uint8_t *tlb_host(CPUX86State *env, uint64_t a, uint64_t n,
                         bool write)
{
    TLBEntry *e = x86_tlb_entry(env, a);
    uint64_t tag = write ? e->tag_write : e->tag_read;

    if (tag != (a & X86_PAGE_MASK) ||
        (a & ~X86_PAGE_MASK) + n > X86_PAGE_SIZE) {
        return NULL;
    }
    return (uint8_t *)(uintptr_t)(a + e->addend);
}

/* Elements of size sz from offset off before the page or wrap ends. */
static uint64_t chunk_elems(const Insn *in, uint64_t lin, uint64_t off,
                            unsigned sz)
{
    uint64_t to_page = (X86_PAGE_SIZE - (lin & ~X86_PAGE_MASK)) / sz;
    uint64_t to_wrap = (x86_amask(in) - off) / sz + 1;

    return MIN(to_page, to_wrap);
}

/* One forward page-sized step of rep movs; false to go element-wise. */
static bool movs_bulk(CPUX86State *env, const Insn *in, int ot,
                      uint64_t *cx)
{
    unsigned sz = 1u << ot;
    uint64_t si = areg(env, in, R_ESI), di = areg(env, in, R_EDI);
    uint64_t sa = src_addr(env, in), da = dst_addr(env, in);
    uint64_t n = MIN(*cx, MIN(chunk_elems(in, sa, si, sz),
                              chunk_elems(in, da, di, sz)));
    uint8_t *s, *d;

    if (n < 2) {
        return false;
    }
    s = tlb_host(env, sa, n * sz, false);
    d = tlb_host(env, da, n * sz, true);
    if (!s || !d) {
        return false;
    }
    if (d >= s + n * sz || d + n * sz <= s) {
        memcpy(d, s, n * sz);
    } else if (d > s && d - s < sz) {
        /* Each element overlaps itself: only element order will do. */
        return false;
    } else {
        /* Overlap: the element-by-element forward copy repeats. */
        for (uint64_t i = 0; i < n * sz; i++) {
            d[i] = s[i];
        }
    }
    areg_set(env, in, R_ESI, si + n * sz);
    areg_set(env, in, R_EDI, di + n * sz);
    *cx -= n;
    areg_set(env, in, R_ECX, *cx);
    return true;
}

static bool stos_bulk(CPUX86State *env, const Insn *in, int ot,
                      uint64_t *cx)
{
    unsigned sz = 1u << ot;
    uint64_t di = areg(env, in, R_EDI), da = dst_addr(env, in);
    uint64_t n = MIN(*cx, chunk_elems(in, da, di, sz));
    uint64_t v = env->regs[R_EAX];
    uint8_t *d;

    if (n < 2) {
        return false;
    }
    d = tlb_host(env, da, n * sz, true);
    if (!d) {
        return false;
    }
    if (ot == OT_B) {
        memset(d, (uint8_t)v, n);
    } else {
        for (uint64_t i = 0; i < n; i++) {
            memcpy(d + i * sz, &v, sz);
        }
    }
    areg_set(env, in, R_EDI, di + n * sz);
    *cx -= n;
    areg_set(env, in, R_ECX, *cx);
    return true;
}

/* One element; returns false when a repe/repne condition stops. */
static inline bool str_one(CPUX86State *env, const Insn *in, int kind,
                           int ot)
{
    int64_t step = str_step(env, ot);
    uint64_t a, b;

    switch (kind) {
    case STR_MOVS:
        a = mem_read(env, ot, src_addr(env, in));
        mem_write(env, ot, dst_addr(env, in), a);
        areg_set(env, in, R_ESI, areg(env, in, R_ESI) + step);
        areg_set(env, in, R_EDI, areg(env, in, R_EDI) + step);
        return true;
    case STR_STOS:
        mem_write(env, ot, dst_addr(env, in), env->regs[R_EAX]);
        areg_set(env, in, R_EDI, areg(env, in, R_EDI) + step);
        return true;
    case STR_LODS:
        reg_write(env, ot, R_EAX, mem_read(env, ot, src_addr(env, in)));
        areg_set(env, in, R_ESI, areg(env, in, R_ESI) + step);
        return true;
    case STR_CMPS:
        a = mem_read(env, ot, src_addr(env, in));
        b = mem_read(env, ot, dst_addr(env, in));
        cc_set(env, CC_K_SUB, ot, a - b, b);
        areg_set(env, in, R_ESI, areg(env, in, R_ESI) + step);
        areg_set(env, in, R_EDI, areg(env, in, R_EDI) + step);
        break;
    case STR_SCAS:
        a = env->regs[R_EAX] & ot_mask(ot);
        b = mem_read(env, ot, dst_addr(env, in));
        cc_set(env, CC_K_SUB, ot, a - b, b);
        areg_set(env, in, R_EDI, areg(env, in, R_EDI) + step);
        break;
    case STR_INS:
        a = helper_in(env, (uint16_t)env->regs[R_EDX], 1u << ot);
        mem_write(env, ot, dst_addr(env, in), a);
        areg_set(env, in, R_EDI, areg(env, in, R_EDI) + step);
        return true;
    default:
        a = mem_read(env, ot, src_addr(env, in));
        helper_out(env, (uint16_t)env->regs[R_EDX], a, 1u << ot);
        areg_set(env, in, R_ESI, areg(env, in, R_ESI) + step);
        return true;
    }
    /* cmps/scas: repe goes on while equal, repne while not. */
    return in->aux == REP_E ? env->cc_dst == 0 : env->cc_dst != 0;
}

static inline uintptr_t str_run(CPUX86State *env, const Insn *in, int kind,
                          int ot)
{
    bool io = kind == STR_INS || kind == STR_OUTS;
    unsigned budget = io ? REP_IO_BUDGET : REP_BUDGET;
    uint64_t cx;

    if (in->aux == REP_NONE) {
        str_one(env, in, kind, ot);
        return x86_next(env, in);
    }
    if ((in->eaf & EA_A32) && env->cpu->vendor->rep_a32_zero_count_clears) {
        /*
         * With a 32-bit address size, Intel's rep writes ECX (and rep
         * movs/stos their pointers) even for zero elements, clearing the
         * upper halves; AMD's writes them only per element (vendor.h).
         */
        env->regs[R_ECX] = (uint32_t)env->regs[R_ECX];
        if (kind == STR_MOVS) {
            env->regs[R_ESI] = (uint32_t)env->regs[R_ESI];
        }
        if (kind == STR_MOVS || kind == STR_STOS) {
            env->regs[R_EDI] = (uint32_t)env->regs[R_EDI];
        }
    }
    cx = areg(env, in, R_ECX);
    while (cx) {
        bool go_on;

        if (!(env->eflags & DF_MASK)) {
            if (kind == STR_MOVS && movs_bulk(env, in, ot, &cx)) {
                goto counted;
            }
            if (kind == STR_STOS && stos_bulk(env, in, ot, &cx)) {
                goto counted;
            }
        }
        go_on = str_one(env, in, kind, ot);
        cx--;
        areg_set(env, in, R_ECX, cx);
        if (!go_on) {
            break;
        }
    counted:
        if (--budget == 0 && cx) {
            return X86_EXIT(in, X86_REPEAT);
        }
    }
    return x86_next(env, in);
}

#define DEF_STR(kind, ot)                                                 \
static uintptr_t str_##kind##_##ot(CPUX86State *env, const Insn *in)            \
{                                                                         \
    return str_run(env, in, kind, ot);                                    \
}
#define DEF_STR_K(kind) DEF_STR(kind, 0) DEF_STR(kind, 1) DEF_STR(kind, 2) \
                        DEF_STR(kind, 3)
DEF_STR_K(0)
DEF_STR_K(1)
DEF_STR_K(2)
DEF_STR_K(3)
DEF_STR_K(4)
DEF_STR_K(5)
DEF_STR_K(6)

#define STR_ROW(kind) {                                                   \
    { X86_H(str_##kind##_0) }, { X86_H(str_##kind##_1) },                 \
    { X86_H(str_##kind##_2) }, { X86_H(str_##kind##_3) } }

const X86Handler x86_string_fn[STR_NUM][4] = {
    STR_ROW(0), STR_ROW(1), STR_ROW(2), STR_ROW(3), STR_ROW(4), STR_ROW(5),
    STR_ROW(6),
};
