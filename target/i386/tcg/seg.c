/*
 * Segmentation and privilege changes of the software CPU: segment loads
 * in each mode with their checks, descriptor tables (lgdt, lidt, lldt,
 * ltr), lar/lsl/verr/verw, far jmp/call/ret (with call gates),
 * syscall/sysret, sysenter/sysexit, swapgs and the linear address of a
 * segmented access. Intel SDM vol. 3A chapters 3 and 5, the instruction
 * pages of vol. 2; AMD APM vol. 2 chapter 4 and vol. 3 (SYSCALL).
 *
 * Task switches are not implemented: task gates and TSS descriptors as
 * jump/call targets log LOG_UNIMP and raise #GP.
 */
#include "qemu/log.h"
#include "target/i386/tcg/helper.h"
#include "target/i386/tcg/sys-internal.h"

/* Flat segments syscall/sysenter load (base 0, limit 4 GiB). */
#define FLAT_CODE   (DESC_P_MASK | DESC_S_MASK | DESC_CS_MASK | DESC_R_MASK | \
                     DESC_A_MASK | DESC_G_MASK)
#define FLAT_DATA   (DESC_P_MASK | DESC_S_MASK | DESC_W_MASK | DESC_A_MASK | \
                     DESC_B_MASK | DESC_G_MASK)
#define DPL3        (3u << DESC_DPL_SHIFT)

#define CODE_MASK   (DESC_S_MASK | DESC_CS_MASK)

G_NORETURN static void gp(CPUX86State *env, uint32_t error)
{
    x86_raise_exception_err(env, EXCP0D_GPF, error);
}

/* --- segment caches ---------------------------------------------------- */

void x86_load_seg_cache(CPUX86State *env, int seg, uint16_t selector,
                        uint64_t base, uint32_t limit, uint32_t flags)
{
    SegmentCache *s = &env->segs[seg];

    s->selector = selector;
    s->base = base;
    s->limit = limit;
    s->flags = flags;
    if (seg == R_CS || seg == R_SS || seg == R_DS || seg == R_ES) {
        x86_update_hflags(env);
    }
}

void x86_load_seg_real(CPUX86State *env, int seg, uint16_t selector)
{
    if (env->eflags & VM_MASK) {
        x86_load_seg_cache(env, seg, selector, (uint64_t)selector << 4,
                           0xffff, DESC_P_MASK | DESC_S_MASK | DESC_W_MASK |
                           DESC_A_MASK | DPL3);
        return;
    }
    /* Real mode changes selector and base only: limits stay ("unreal"). */
    env->segs[seg].selector = selector;
    env->segs[seg].base = (uint64_t)selector << 4;
    x86_update_hflags(env);
}

/* --- descriptor tables ------------------------------------------------- */

/* Linear address of the 8-byte slot of selector, or false. */
static bool desc_slot(CPUX86State *env, uint16_t selector, unsigned size,
                      uint64_t *addr)
{
    uint64_t base;
    uint32_t limit;
    unsigned index = selector & ~7u;

    if (selector & 4) {
        if (!(env->ldt.selector & 0xfffc)) {
            return false;
        }
        base = env->ldt.base;
        limit = env->ldt.limit;
    } else {
        base = env->gdt.base;
        limit = env->gdt.limit;
    }
    if (index + size - 1 > limit) {
        return false;
    }
    *addr = base + index;
    return true;
}

bool x86_load_desc(CPUX86State *env, uint16_t selector, uint32_t *e1,
                   uint32_t *e2)
{
    uint64_t addr;

    if (!desc_slot(env, selector, 8, &addr)) {
        return false;
    }
    *e1 = x86_ld_kernel(env, addr, 4);
    *e2 = x86_ld_kernel(env, addr + 4, 4);
    return true;
}

bool x86_load_desc_high(CPUX86State *env, uint16_t selector, uint32_t *e3)
{
    uint64_t addr;
    uint32_t e4;

    if (!desc_slot(env, selector, 16, &addr)) {
        return false;
    }
    *e3 = x86_ld_kernel(env, addr + 8, 4);
    e4 = x86_ld_kernel(env, addr + 12, 4);
    /* The upper half's type field must be 0 (APM 4.8.3). */
    return !((e4 >> DESC_TYPE_SHIFT) & 0x1f);
}

void x86_set_desc_accessed(CPUX86State *env, uint16_t selector, uint32_t e2)
{
    uint64_t addr;

    if ((e2 & DESC_S_MASK) && !(e2 & DESC_A_MASK) &&
        desc_slot(env, selector, 8, &addr)) {
        x86_st_kernel(env, addr + 4, e2 | DESC_A_MASK, 4);
    }
}

void x86_drop_inaccessible_segs(CPUX86State *env, int cpl)
{
    static const int segs[] = { R_ES, R_DS, R_FS, R_GS };

    for (unsigned i = 0; i < G_N_ELEMENTS(segs); i++) {
        SegmentCache *s = &env->segs[segs[i]];
        bool conforming_code = (s->flags & (DESC_CS_MASK | DESC_C_MASK)) ==
                               (DESC_CS_MASK | DESC_C_MASK);

        /* A null FS/GS keeps its base (64-bit code sets it by MSR). */
        if (!(s->selector & 0xfffc) || conforming_code ||
            (int)((s->flags >> DESC_DPL_SHIFT) & 3) >= cpl) {
            continue;
        }
        x86_load_seg_cache(env, segs[i], 0, s->base, s->limit,
                           s->flags & ~DESC_P_MASK);
    }
}

/* --- stacks ------------------------------------------------------------ */

X86Stack x86_stack_current(CPUX86State *env)
{
    X86Stack st = { .kernel = false };

    if (env->hflags & HF_CS64_MASK) {
        st.mask = ~0ull;
    } else {
        st.base = env->segs[R_SS].base;
        st.mask = env->segs[R_SS].flags & DESC_B_MASK ? 0xffffffffull
                                                       : 0xffff;
    }
    st.sp = env->regs[R_ESP] & st.mask;
    return st;
}

static uint64_t stack_addr(const X86Stack *st)
{
    uint64_t a = st->base + st->sp;

    return st->mask == ~0ull ? a : (uint32_t)a;
}

void x86_stack_push(CPUX86State *env, X86Stack *st, uint64_t value,
                    unsigned size)
{
    st->sp = (st->sp - size) & st->mask;
    if (st->kernel) {
        x86_st_kernel(env, stack_addr(st), value, size);
    } else {
        x86_st_slow(env, stack_addr(st), value, size);
    }
}

uint64_t x86_stack_pop(CPUX86State *env, X86Stack *st, unsigned size)
{
    uint64_t v = st->kernel ? x86_ld_kernel(env, stack_addr(st), size)
                            : x86_ld_slow(env, stack_addr(st), size,
                                          MMU_READ);

    st->sp = (st->sp + size) & st->mask;
    return v;
}

void x86_set_rsp(CPUX86State *env, uint64_t mask, uint64_t sp)
{
    env->regs[R_ESP] = (env->regs[R_ESP] & ~mask) | (sp & mask);
}

/* --- segment loads ----------------------------------------------------- */

static void load_seg_protected(CPUX86State *env, int seg, uint16_t selector)
{
    int cpl = x86_cpl(env), rpl = selector & 3, dpl;
    uint32_t e1, e2;

    if (!(selector & 0xfffc)) {
        if (seg == R_SS) {
            /* Only 64-bit code below CPL 3 may have a null SS. */
            if (!(env->hflags & HF_CS64_MASK) || cpl == 3 || rpl != cpl) {
                gp(env, 0);
            }
            x86_load_seg_cache(env, R_SS, selector, 0, 0,
                               (uint32_t)cpl << DESC_DPL_SHIFT);
        } else {
            x86_load_seg_cache(env, seg, selector, 0, 0, 0);
        }
        return;
    }
    if (!x86_load_desc(env, selector, &e1, &e2) || !(e2 & DESC_S_MASK)) {
        gp(env, selector & 0xfffc);
    }
    dpl = x86_desc_dpl(e2);
    if (seg == R_SS) {
        if (rpl != cpl || dpl != cpl || (e2 & DESC_CS_MASK) ||
            !(e2 & DESC_W_MASK)) {
            gp(env, selector & 0xfffc);
        }
        if (!(e2 & DESC_P_MASK)) {
            x86_raise_exception_err(env, EXCP0C_STACK, selector & 0xfffc);
        }
    } else {
        if ((e2 & (DESC_CS_MASK | DESC_R_MASK)) == DESC_CS_MASK) {
            gp(env, selector & 0xfffc);         /* execute-only code */
        }
        if ((e2 & (DESC_CS_MASK | DESC_C_MASK)) !=
            (DESC_CS_MASK | DESC_C_MASK) && (dpl < cpl || dpl < rpl)) {
            gp(env, selector & 0xfffc);
        }
        if (!(e2 & DESC_P_MASK)) {
            x86_raise_exception_err(env, EXCP0B_NOSEG, selector & 0xfffc);
        }
    }
    x86_set_desc_accessed(env, selector, e2);
    x86_load_seg_cache(env, seg, selector, x86_desc_base(e1, e2),
                       x86_desc_limit(e1, e2), x86_desc_flags(e2));
}

bool helper_load_seg(CPUX86State *env, int seg, uint16_t selector)
{
    uint32_t old = env->hflags & HF_DECODE_MASK;

    if (seg == R_CS) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    if (x86_pm_not_vm86(env)) {
        load_seg_protected(env, seg, selector);
    } else {
        x86_load_seg_real(env, seg, selector);
    }
    return (env->hflags & HF_DECODE_MASK) != old;
}

static void check_pm_cpl0(CPUX86State *env)
{
    if (!x86_pm_not_vm86(env)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    helper_check_cpl0(env);
}

void helper_lgdt_lidt(CPUX86State *env, bool idt, uint64_t base,
                      uint32_t limit)
{
    helper_check_cpl0(env);
    if ((env->hflags & HF_CS64_MASK) && !x86_is_canonical(base)) {
        gp(env, 0);
    }
    if (idt) {
        env->idt = (DescTable) { .base = base, .limit = limit };
    } else {
        env->gdt = (DescTable) { .base = base, .limit = limit };
    }
}

/* A system descriptor from the GDT (16 bytes in long mode). */
static void load_system_desc(CPUX86State *env, uint16_t selector,
                             uint32_t *e1, uint32_t *e2, uint64_t *base)
{
    uint32_t e3 = 0;

    if ((selector & 4) || !x86_load_desc(env, selector, e1, e2) ||
        ((env->hflags & HF_LMA_MASK) &&
         !x86_load_desc_high(env, selector, &e3))) {
        gp(env, selector & 0xfffc);
    }
    *base = x86_desc_base(*e1, *e2) | ((uint64_t)e3 << 32);
    if ((env->hflags & HF_LMA_MASK) && !x86_is_canonical(*base)) {
        gp(env, selector & 0xfffc);
    }
}

void helper_lldt(CPUX86State *env, uint16_t selector)
{
    uint32_t e1, e2;
    uint64_t base;

    check_pm_cpl0(env);
    if (!(selector & 0xfffc)) {
        env->ldt = (SegmentCache) { .selector = selector };
        return;
    }
    load_system_desc(env, selector, &e1, &e2, &base);
    if ((e2 & DESC_S_MASK) || x86_desc_type(e2) != 2) {
        gp(env, selector & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, selector & 0xfffc);
    }
    env->ldt = (SegmentCache) {
        .selector = selector, .base = base,
        .limit = x86_desc_limit(e1, e2), .flags = x86_desc_flags(e2),
    };
}

void helper_ltr(CPUX86State *env, uint16_t selector)
{
    bool lma = env->hflags & HF_LMA_MASK;
    uint32_t e1, e2;
    uint64_t base, addr;
    unsigned type;

    check_pm_cpl0(env);
    if (!(selector & 0xfffc)) {
        gp(env, 0);
    }
    load_system_desc(env, selector, &e1, &e2, &base);
    type = x86_desc_type(e2);
    /* An available TSS: 32-bit (or 64-bit in long mode), or 16-bit. */
    if ((e2 & DESC_S_MASK) || (type != 9 && (lma || type != 1))) {
        gp(env, selector & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, selector & 0xfffc);
    }
    e2 |= 2u << DESC_TYPE_SHIFT;                /* busy */
    addr = env->gdt.base + (selector & ~7u);
    x86_st_kernel(env, addr + 4, e2, 4);
    env->tr = (SegmentCache) {
        .selector = selector, .base = base,
        .limit = x86_desc_limit(e1, e2), .flags = x86_desc_flags(e2),
    };
}

/* --- lar, lsl, verr, verw ---------------------------------------------- */

/*
 * The descriptor if the current privilege may look at it: conforming
 * code always, anything else with DPL >= CPL and DPL >= RPL.
 */
static bool visible_desc(CPUX86State *env, uint16_t selector, uint32_t *e1,
                         uint32_t *e2)
{
    int dpl;

    if (!x86_pm_not_vm86(env)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    if (!(selector & 0xfffc) || !x86_load_desc(env, selector, e1, e2)) {
        return false;
    }
    dpl = x86_desc_dpl(*e2);
    if ((*e2 & (DESC_S_MASK | DESC_CS_MASK | DESC_C_MASK)) ==
        (DESC_S_MASK | DESC_CS_MASK | DESC_C_MASK)) {
        return true;
    }
    return dpl >= x86_cpl(env) && dpl >= (selector & 3);
}

/* System types lar (gates too) and lsl accept, per mode. */
static bool system_type_ok(CPUX86State *env, unsigned type, bool lar)
{
    if (env->hflags & HF_LMA_MASK) {
        return type == 2 || type == 9 || type == 11 || (lar && type == 12);
    }
    switch (type) {
    case 1: case 2: case 3: case 9: case 11:
        return true;
    case 4: case 5: case 12:
        return lar;
    default:
        return false;
    }
}

uint32_t helper_lar(CPUX86State *env, uint16_t selector, bool *ok)
{
    uint32_t e1, e2;

    *ok = visible_desc(env, selector, &e1, &e2) &&
          ((e2 & DESC_S_MASK) || system_type_ok(env, x86_desc_type(e2),
                                                true));
    return *ok ? e2 & 0x00f0ff00 : 0;
}

uint32_t helper_lsl(CPUX86State *env, uint16_t selector, bool *ok)
{
    uint32_t e1, e2;

    *ok = visible_desc(env, selector, &e1, &e2) &&
          ((e2 & DESC_S_MASK) || system_type_ok(env, x86_desc_type(e2),
                                                false));
    return *ok ? x86_desc_limit(e1, e2) : 0;
}

bool helper_verr_verw(CPUX86State *env, uint16_t selector, bool write)
{
    uint32_t e1, e2;

    if (!visible_desc(env, selector, &e1, &e2) || !(e2 & DESC_S_MASK)) {
        return false;
    }
    if (write) {
        return !(e2 & DESC_CS_MASK) && (e2 & DESC_W_MASK);
    }
    return !(e2 & DESC_CS_MASK) || (e2 & DESC_R_MASK);
}

/* --- far transfers ----------------------------------------------------- */

/* Target code segment of a direct far jmp/call (no gate). */
static void check_direct_code(CPUX86State *env, uint16_t selector,
                              uint32_t e2)
{
    int cpl = x86_cpl(env), dpl = x86_desc_dpl(e2);

    if ((e2 & CODE_MASK) != CODE_MASK ||
        ((e2 & DESC_C_MASK) ? dpl > cpl
                            : ((selector & 3) > cpl || dpl != cpl))) {
        gp(env, selector & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, selector & 0xfffc);
    }
    if ((env->hflags & HF_LMA_MASK) && (e2 & DESC_L_MASK) &&
        (e2 & DESC_B_MASK)) {
        gp(env, selector & 0xfffc);
    }
}

static bool is_64bit_code(CPUX86State *env, uint32_t e2)
{
    return (env->hflags & HF_LMA_MASK) && (e2 & DESC_L_MASK);
}

/* Jump to offset in the code segment (checked), with CPL as its RPL. */
static void enter_code(CPUX86State *env, uint16_t selector, uint32_t e1,
                       uint32_t e2, uint64_t offset, int cpl)
{
    bool to64 = is_64bit_code(env, e2);

    if (to64 ? !x86_is_canonical(offset)
             : offset > x86_desc_limit(e1, e2)) {
        gp(env, 0);
    }
    x86_set_desc_accessed(env, selector, e2);
    x86_load_seg_cache(env, R_CS, (selector & 0xfffc) | cpl,
                       x86_desc_base(e1, e2), x86_desc_limit(e1, e2),
                       x86_desc_flags(e2));
    env->rip = offset;
}

typedef struct CallGate {
    uint16_t selector;          /* target code segment */
    uint64_t offset;
    unsigned width;             /* 2, 4 or 8: size of what it pushes */
    unsigned params;            /* dwords/words copied (not long mode) */
    uint32_t c1, c2;            /* target descriptor */
} CallGate;

/* The gate's checks (SDM "CALL"/"JMP"), then its target's. */
static void read_call_gate(CPUX86State *env, uint16_t selector, uint32_t e1,
                           uint32_t e2, CallGate *g)
{
    bool lma = env->hflags & HF_LMA_MASK;
    unsigned type = x86_desc_type(e2);
    int cpl = x86_cpl(env), dpl = x86_desc_dpl(e2), cdpl;
    uint32_t e3 = 0;

    if (!lma && (type == 1 || type == 5 || type == 9)) {
        qemu_log_mask(LOG_UNIMP, "far jmp/call through a task gate or TSS "
                      "(selector 0x%x) is not supported\n", selector);
        gp(env, selector & 0xfffc);
    }
    if (lma ? type != 12 : (type != 4 && type != 12)) {
        gp(env, selector & 0xfffc);
    }
    if (dpl < cpl || dpl < (selector & 3)) {
        gp(env, selector & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, selector & 0xfffc);
    }
    if (lma && !x86_load_desc_high(env, selector, &e3)) {
        gp(env, selector & 0xfffc);
    }
    g->selector = e1 >> 16;
    g->offset = (e1 & 0xffff) | (type == 12 ? (e2 & 0xffff0000) : 0) |
                ((uint64_t)e3 << 32);
    g->width = lma ? 8 : (type == 12 ? 4 : 2);
    g->params = lma ? 0 : e2 & 0x1f;
    if (!(g->selector & 0xfffc)) {
        gp(env, 0);
    }
    if (!x86_load_desc(env, g->selector, &g->c1, &g->c2) ||
        (g->c2 & CODE_MASK) != CODE_MASK ||
        (cdpl = x86_desc_dpl(g->c2)) > cpl) {
        gp(env, g->selector & 0xfffc);
    }
    if (!(g->c2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, g->selector & 0xfffc);
    }
    if (lma && (!(g->c2 & DESC_L_MASK) || (g->c2 & DESC_B_MASK))) {
        gp(env, g->selector & 0xfffc);
    }
}

static int gate_target_cpl(CPUX86State *env, const CallGate *g)
{
    return g->c2 & DESC_C_MASK ? x86_cpl(env) : x86_desc_dpl(g->c2);
}

bool helper_ljmp(CPUX86State *env, uint16_t selector, uint64_t offset,
                 uint64_t next_rip)
{
    uint32_t e1, e2;
    CallGate g;

    if (!x86_pm_not_vm86(env)) {
        x86_load_seg_real(env, R_CS, selector);
        env->rip = offset;
        return true;
    }
    if (!(selector & 0xfffc)) {
        gp(env, 0);
    }
    if (!x86_load_desc(env, selector, &e1, &e2)) {
        gp(env, selector & 0xfffc);
    }
    if (e2 & DESC_S_MASK) {
        check_direct_code(env, selector, e2);
        enter_code(env, selector, e1, e2, offset, x86_cpl(env));
        return true;
    }
    read_call_gate(env, selector, e1, e2, &g);
    /* A jump never changes privilege: the target must be at CPL. */
    if (!(g.c2 & DESC_C_MASK) && x86_desc_dpl(g.c2) != x86_cpl(env)) {
        gp(env, g.selector & 0xfffc);
    }
    enter_code(env, g.selector, g.c1, g.c2, g.offset, x86_cpl(env));
    return true;
}

bool x86_tss_inner_stack(CPUX86State *env, int dpl, uint16_t *ss,
                         uint64_t *sp)
{
    unsigned type = (env->tr.flags >> DESC_TYPE_SHIFT) & 15;

    if (!(env->tr.flags & DESC_P_MASK) ||
        (!(env->hflags & HF_LMA_MASK) && (type & 7) != 1 &&
         (type & 7) != 3)) {
        return false;
    }
    if (env->hflags & HF_LMA_MASK) {
        if (4 + 8u * dpl + 7 > env->tr.limit) {
            return false;
        }
        *sp = x86_ld_kernel(env, env->tr.base + 4 + 8 * dpl, 8);
        *ss = dpl;
    } else if (type & 8) {
        if (8 + 8u * dpl + 1 > env->tr.limit) {
            return false;
        }
        *sp = x86_ld_kernel(env, env->tr.base + 4 + 8 * dpl, 4);
        *ss = x86_ld_kernel(env, env->tr.base + 8 + 8 * dpl, 2);
    } else {
        if (4 + 4u * dpl + 1 > env->tr.limit) {
            return false;
        }
        *sp = x86_ld_kernel(env, env->tr.base + 2 + 4 * dpl, 2);
        *ss = x86_ld_kernel(env, env->tr.base + 4 + 4 * dpl, 2);
    }
    return true;
}

/* A call through a gate to a more privileged non-conforming segment. */
static void call_gate_inner(CPUX86State *env, const CallGate *g,
                            uint64_t next_rip)
{
    bool lma = env->hflags & HF_LMA_MASK;
    int dpl = x86_desc_dpl(g->c2);
    X86Stack old = x86_stack_current(env), st;
    uint32_t s1 = 0, s2 = 0;
    uint16_t ss;
    uint64_t sp;

    if (!x86_tss_inner_stack(env, dpl, &ss, &sp)) {
        x86_raise_exception_err(env, EXCP0A_TSS, env->tr.selector & 0xfffc);
    }
    if (lma) {
        if (!x86_is_canonical(sp)) {
            x86_raise_exception_err(env, EXCP0C_STACK, 0);
        }
        st = (X86Stack) { .mask = ~0ull, .sp = sp, .kernel = true };
    } else {
        if (!(ss & 0xfffc)) {
            x86_raise_exception_err(env, EXCP0A_TSS, 0);
        }
        if ((ss & 3) != dpl || !x86_load_desc(env, ss, &s1, &s2) ||
            x86_desc_dpl(s2) != dpl ||
            (s2 & (CODE_MASK | DESC_W_MASK)) != (DESC_S_MASK | DESC_W_MASK)) {
            x86_raise_exception_err(env, EXCP0A_TSS, ss & 0xfffc);
        }
        if (!(s2 & DESC_P_MASK)) {
            x86_raise_exception_err(env, EXCP0C_STACK, ss & 0xfffc);
        }
        st = (X86Stack) {
            .base = x86_desc_base(s1, s2),
            .mask = s2 & DESC_B_MASK ? 0xffffffffull : 0xffff,
            .sp = sp, .kernel = true,
        };
    }
    x86_stack_push(env, &st, env->segs[R_SS].selector, g->width);
    x86_stack_push(env, &st, env->regs[R_ESP], g->width);
    /* Parameters come from the caller's stack, last one first. */
    for (int i = g->params - 1; i >= 0; i--) {
        X86Stack p = old;
        uint64_t v;

        p.sp = (old.sp + i * g->width) & old.mask;
        v = x86_stack_pop(env, &p, g->width);
        x86_stack_push(env, &st, v, g->width);
    }
    x86_stack_push(env, &st, env->segs[R_CS].selector, g->width);
    x86_stack_push(env, &st, next_rip, g->width);

    if (lma) {
        x86_load_seg_cache(env, R_SS, dpl, 0, 0,
                           (uint32_t)dpl << DESC_DPL_SHIFT);
    } else {
        x86_set_desc_accessed(env, ss, s2);
        x86_load_seg_cache(env, R_SS, ss, x86_desc_base(s1, s2),
                           x86_desc_limit(s1, s2), x86_desc_flags(s2));
    }
    if (st.mask == 0xffff) {
        x86_set_rsp(env, st.mask, st.sp);
    } else {
        env->regs[R_ESP] = st.sp;
    }
    enter_code(env, g->selector, g->c1, g->c2, g->offset, dpl);
}

bool helper_lcall(CPUX86State *env, uint16_t selector, uint64_t offset,
                  unsigned opsize, uint64_t next_rip)
{
    X86Stack st = x86_stack_current(env);
    uint32_t e1, e2;
    CallGate g;

    if (!x86_pm_not_vm86(env)) {
        x86_stack_push(env, &st, env->segs[R_CS].selector, opsize);
        x86_stack_push(env, &st, next_rip, opsize);
        x86_set_rsp(env, st.mask, st.sp);
        x86_load_seg_real(env, R_CS, selector);
        env->rip = offset;
        return true;
    }
    if (!(selector & 0xfffc)) {
        gp(env, 0);
    }
    if (!x86_load_desc(env, selector, &e1, &e2)) {
        gp(env, selector & 0xfffc);
    }
    if (e2 & DESC_S_MASK) {
        check_direct_code(env, selector, e2);
        if (is_64bit_code(env, e2) ? !x86_is_canonical(offset)
                                   : offset > x86_desc_limit(e1, e2)) {
            gp(env, 0);
        }
        x86_stack_push(env, &st, env->segs[R_CS].selector, opsize);
        x86_stack_push(env, &st, next_rip, opsize);
        x86_set_rsp(env, st.mask, st.sp);
        enter_code(env, selector, e1, e2, offset, x86_cpl(env));
        return true;
    }
    read_call_gate(env, selector, e1, e2, &g);
    if (gate_target_cpl(env, &g) < x86_cpl(env)) {
        call_gate_inner(env, &g, next_rip);
        return true;
    }
    st.kernel = x86_cpl(env) < 3;
    x86_stack_push(env, &st, env->segs[R_CS].selector, g.width);
    x86_stack_push(env, &st, next_rip, g.width);
    x86_set_rsp(env, st.mask, st.sp);
    enter_code(env, g.selector, g.c1, g.c2, g.offset, x86_cpl(env));
    return true;
}

bool helper_lret(CPUX86State *env, unsigned opsize, uint16_t imm)
{
    X86Stack st = x86_stack_current(env);
    int cpl = x86_cpl(env), rpl;
    uint32_t e1, e2, s1 = 0, s2 = 0;
    uint64_t rip, rsp;
    uint16_t cs, ss;
    bool to64;

    rip = x86_stack_pop(env, &st, opsize);
    cs = x86_stack_pop(env, &st, opsize);
    if (!x86_pm_not_vm86(env)) {
        st.sp = (st.sp + imm) & st.mask;
        x86_set_rsp(env, st.mask, st.sp);
        x86_load_seg_real(env, R_CS, cs);
        env->rip = rip;
        return true;
    }
    rpl = cs & 3;
    if (!(cs & 0xfffc)) {
        gp(env, 0);
    }
    if (!x86_load_desc(env, cs, &e1, &e2) ||
        (e2 & CODE_MASK) != CODE_MASK || rpl < cpl ||
        ((e2 & DESC_C_MASK) ? x86_desc_dpl(e2) > rpl
                            : x86_desc_dpl(e2) != rpl)) {
        gp(env, cs & 0xfffc);
    }
    if (!(e2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0B_NOSEG, cs & 0xfffc);
    }
    to64 = is_64bit_code(env, e2);
    if (to64 && (e2 & DESC_B_MASK)) {
        gp(env, cs & 0xfffc);
    }
    st.sp = (st.sp + imm) & st.mask;
    if (rpl == cpl) {
        if (to64 ? !x86_is_canonical(rip) : rip > x86_desc_limit(e1, e2)) {
            gp(env, 0);
        }
        x86_set_rsp(env, st.mask, st.sp);
        enter_code(env, cs, e1, e2, rip, cpl);
        return true;
    }
    /* To an outer level: its SS:ESP follow the return address. */
    rsp = x86_stack_pop(env, &st, opsize);
    ss = x86_stack_pop(env, &st, opsize);
    if (!(ss & 0xfffc)) {
        if (!to64 || rpl == 3) {
            gp(env, 0);
        }
    } else if ((ss & 3) != rpl || !x86_load_desc(env, ss, &s1, &s2) ||
               (s2 & (CODE_MASK | DESC_W_MASK)) !=
               (DESC_S_MASK | DESC_W_MASK) || x86_desc_dpl(s2) != rpl) {
        gp(env, ss & 0xfffc);
    } else if (!(s2 & DESC_P_MASK)) {
        x86_raise_exception_err(env, EXCP0C_STACK, ss & 0xfffc);
    }
    if (to64 ? !x86_is_canonical(rip) : rip > x86_desc_limit(e1, e2)) {
        gp(env, 0);
    }
    enter_code(env, cs, e1, e2, rip, rpl);
    if (ss & 0xfffc) {
        x86_set_desc_accessed(env, ss, s2);
        x86_load_seg_cache(env, R_SS, ss, x86_desc_base(s1, s2),
                           x86_desc_limit(s1, s2), x86_desc_flags(s2));
    } else {
        x86_load_seg_cache(env, R_SS, ss, 0, 0,
                           (uint32_t)rpl << DESC_DPL_SHIFT);
    }
    if (to64 || (env->segs[R_SS].flags & DESC_B_MASK)) {
        env->regs[R_ESP] = rsp + imm;
    } else {
        x86_set_rsp(env, 0xffff, rsp + imm);
    }
    x86_drop_inaccessible_segs(env, rpl);
    return true;
}

/* --- fast system calls ------------------------------------------------- */

/* Intel's syscall and sysret exist in 64-bit mode only (vendor.h). */
static bool fast_syscall_allowed(CPUX86State *env)
{
    return (env->efer & EFER_SCE) && (env->hflags & HF_PE_MASK) &&
           ((env->hflags & HF_CS64_MASK) ||
            env->cpu->vendor->syscall_outside_64bit);
}

bool helper_syscall(CPUX86State *env, uint64_t next_rip)
{
    uint16_t sel = (env->star >> 32) & 0xfffc;

    if (!fast_syscall_allowed(env)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    if (env->hflags & HF_LMA_MASK) {
        uint32_t flags = x86_get_eflags(env);
        bool from64 = env->hflags & HF_CS64_MASK;

        env->regs[R_ECX] = next_rip;
        env->regs[R_R11] = flags & ~RF_MASK;
        x86_load_seg_cache(env, R_CS, sel, 0, 0xffffffff,
                           FLAT_CODE | DESC_L_MASK);
        x86_load_seg_cache(env, R_SS, sel + 8, 0, 0xffffffff, FLAT_DATA);
        x86_set_eflags(env, 0, (uint32_t)env->fmask | RF_MASK);
        env->rip = from64 ? env->lstar : env->cstar;
        return true;
    }
    /* Legacy mode (AMD): ECX gets the return address. */
    env->regs[R_ECX] = (uint32_t)next_rip;
    x86_load_seg_cache(env, R_CS, sel, 0, 0xffffffff,
                       FLAT_CODE | DESC_B_MASK);
    x86_load_seg_cache(env, R_SS, sel + 8, 0, 0xffffffff, FLAT_DATA);
    x86_set_eflags(env, 0, IF_MASK | VM_MASK | RF_MASK);
    env->rip = (uint32_t)env->star;
    return true;
}

bool helper_sysret(CPUX86State *env, unsigned opsize)
{
    uint16_t sel = (env->star >> 48) & 0xfffc;

    if (!fast_syscall_allowed(env)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    helper_check_cpl0(env);
    if (env->hflags & HF_LMA_MASK) {
        if (opsize == 8) {
            /* Else AMD's fetch at CPL 3 faults (vendor.h). */
            if (!x86_is_canonical(env->regs[R_ECX]) &&
                env->cpu->vendor->sysret_gp_at_cpl0) {
                gp(env, 0);
            }
            x86_load_seg_cache(env, R_CS, (sel + 16) | 3, 0, 0xffffffff,
                               FLAT_CODE | DESC_L_MASK | DPL3);
            env->rip = env->regs[R_ECX];
        } else {
            x86_load_seg_cache(env, R_CS, sel | 3, 0, 0xffffffff,
                               FLAT_CODE | DESC_B_MASK | DPL3);
            env->rip = (uint32_t)env->regs[R_ECX];
        }
        /* RFLAGS = R11 & 3C7FD7H | 2 (SDM "SYSRET"). */
        x86_set_eflags(env, (env->regs[R_R11] & 0x3c7fd7) | EFLAGS_FIXED,
                       ~0u);
        x86_load_seg_cache(env, R_SS, (sel + 8) | 3, 0, 0xffffffff,
                           FLAT_DATA | DPL3);
        return true;
    }
    x86_load_seg_cache(env, R_CS, sel | 3, 0, 0xffffffff,
                       FLAT_CODE | DESC_B_MASK | DPL3);
    x86_load_seg_cache(env, R_SS, (sel + 8) | 3, 0, 0xffffffff,
                       FLAT_DATA | DPL3);
    x86_set_eflags(env, IF_MASK, IF_MASK);
    env->rip = (uint32_t)env->regs[R_ECX];
    return true;
}

/* AMD has no sysenter or sysexit in long mode (vendor.h). */
static void check_sysenter_mode(CPUX86State *env)
{
    if ((env->hflags & HF_LMA_MASK) &&
        !env->cpu->vendor->sysenter_in_long_mode) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
}

bool helper_sysenter(CPUX86State *env)
{
    uint16_t sel = env->sysenter_cs & 0xfffc;
    bool lma = env->hflags & HF_LMA_MASK;

    check_sysenter_mode(env);
    if (!(env->hflags & HF_PE_MASK) || !sel) {
        gp(env, 0);
    }
    x86_set_eflags(env, 0, VM_MASK | IF_MASK | RF_MASK);
    x86_load_seg_cache(env, R_CS, sel, 0, 0xffffffff,
                       FLAT_CODE | (lma ? DESC_L_MASK : DESC_B_MASK));
    x86_load_seg_cache(env, R_SS, sel + 8, 0, 0xffffffff, FLAT_DATA);
    env->regs[R_ESP] = lma ? env->sysenter_esp
                           : (uint32_t)env->sysenter_esp;
    env->rip = lma ? env->sysenter_eip : (uint32_t)env->sysenter_eip;
    return true;
}

bool helper_sysexit(CPUX86State *env, unsigned opsize)
{
    uint16_t sel = env->sysenter_cs & 0xfffc;

    check_sysenter_mode(env);
    if (!x86_pm_not_vm86(env) || x86_cpl(env) != 0 || !sel) {
        gp(env, 0);
    }
    if (opsize == 8) {
        if (!x86_is_canonical(env->regs[R_EDX]) ||
            !x86_is_canonical(env->regs[R_ECX])) {
            gp(env, 0);
        }
        x86_load_seg_cache(env, R_CS, (sel + 32) | 3, 0, 0xffffffff,
                           FLAT_CODE | DESC_L_MASK | DPL3);
        x86_load_seg_cache(env, R_SS, (sel + 40) | 3, 0, 0xffffffff,
                           FLAT_DATA | DPL3);
        env->regs[R_ESP] = env->regs[R_ECX];
        env->rip = env->regs[R_EDX];
    } else {
        x86_load_seg_cache(env, R_CS, (sel + 16) | 3, 0, 0xffffffff,
                           FLAT_CODE | DESC_B_MASK | DPL3);
        x86_load_seg_cache(env, R_SS, (sel + 24) | 3, 0, 0xffffffff,
                           FLAT_DATA | DPL3);
        env->regs[R_ESP] = (uint32_t)env->regs[R_ECX];
        env->rip = (uint32_t)env->regs[R_EDX];
    }
    return true;
}

void helper_swapgs(CPUX86State *env)
{
    uint64_t t;

    if (!(env->hflags & HF_CS64_MASK)) {
        x86_raise_exception(env, EXCP06_ILLOP);
    }
    helper_check_cpl0(env);
    t = env->segs[R_GS].base;
    env->segs[R_GS].base = env->kernel_gs_base;
    env->kernel_gs_base = t;
}
