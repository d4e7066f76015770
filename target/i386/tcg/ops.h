/*
 * The integer ISA of the software CPU, internal to target/i386 and
 * accel/tcg: pre-decoded instructions, the handlers that run them, the
 * lazy flags and the inline accessors the handlers share.
 *
 * A guest basic block is decoded once (decode.c) into an array of Insn:
 * a handler specialised by operation and operand size, and the operands
 * resolved (register numbers, the effective-address form, immediates).
 * The execution loop (target/i386/tcg/cpu-exec.c) calls the first handler;
 * each one leaves env->rip at the next instruction and goes on to it,
 * until one leaves the block with an X86_* reason below.
 */
#ifndef TARGET_I386_OPS_H
#define TARGET_I386_OPS_H

#include "target/i386/cpu-state.h"

typedef struct Insn Insn;

/*
 * For the helpers of the hot handlers that GCC's size heuristics would
 * leave out of line in some of their many users (a call, and a stack
 * frame, per instruction).
 */
#define X86_INLINE  inline __attribute__((always_inline))

/* DEF(op, ot) for each operand size. */
#define X86_EACH_OT(DEF, op)    DEF(op, 0) DEF(op, 1) DEF(op, 2) DEF(op, 3)
/*
 * A handler runs its instruction and then the rest of the block: it
 * tail-calls the next instruction's handler (x86_next), so dispatch is
 * one indirect jump per instruction, each from its own handler. The
 * instruction that leaves the block returns X86_EXIT(itself, why).
 */
typedef uintptr_t (*InsnFn)(CPUX86State *env, const Insn *in);

/* Why a block was left (the low bits of a handler's return value). */
enum {
    X86_JUMP = 1,   /* retired; control moved (the next block may chain) */
    X86_STOP,       /* retired; state the block depends on may have
                     * changed: look the next block up afresh */
    X86_END,        /* not an instruction: the block's end sentinel */
    X86_KILLED,     /* not an instruction: the block was invalidated */
    X86_REPEAT,     /* a rep string instruction paused part way: rip is
                     * unchanged so interrupts can be taken */
};
#define X86_EXIT(in, why)   ((uintptr_t)(in) | (why))
#define X86_EXIT_WHY(r)     ((int)((r) & 7))
#define X86_EXIT_INSN(r)    ((const Insn *)((r) & ~(uintptr_t)7))

/*
 * A handler and what the decoder's passes know of it: the element of
 * the handler tables (ops-tables.h), one row per handler with its
 * versions and facts as columns (X86_H* below name them for the macros
 * that define handlers). A row with fn alone is a handler the passes
 * leave alone: it may read the flags, fault or read env->rip.
 */
typedef struct X86Handler X86Handler;

/* What a handler does to the flags (X86Handler.flags, decode-flags.c). */
enum {
    FL_NEUTRAL = 1,     /* neither reads nor writes them; cannot fault */
    FL_WRITE,           /* writes all six unread; cannot fault */
    FL_SHIFT,           /* FL_WRITE by a non-zero immediate, else 0 */
};

/* The common address forms of 64-bit code (X86Handler.forms[]). */
enum {
    X86_EA_B,           /* EA_MEM | EA_BASE: disp + base */
    X86_EA_BI,          /* EA_MEM | EA_BASE | EA_INDEX */
    X86_EA_D,           /* EA_MEM: disp (rip-relative ones included) */
    X86_EA_NUM
};

struct X86Handler {
    InsnFn fn;
    InsnFn nr;                  /* the version without the rip store */
    const X86Handler *nf;       /* the version without the flags */
    const X86Handler *forms;    /* the versions per address form */
    bool rip_free;              /* does not read env->rip on entry */
    uint8_t width;              /* Insns it runs, when more than one */
    uint8_t flags;              /* FL_*, 0 for anything else */
    uint8_t flags_ot;           /* FL_SHIFT: the operand size */
};

/* Effective-address form (Insn.eaf). */
#define EA_BASE     0x01u   /* add regs[base] */
#define EA_INDEX    0x02u   /* add regs[index] << scale */
#define EA_A16      0x04u   /* 16-bit address size: wrap the offset */
#define EA_A32      0x08u   /* 32-bit address size */
#define EA_SEG      0x10u   /* add segs[seg].base */
#define EA_LIN32    0x20u   /* not 64-bit code: linear addresses wrap
                             * at 4 GiB */
#define EA_MEM      0x40u   /* the modrm operand is memory */
/*
 * A direct branch (or the block's end) that may go straight on into the
 * block it leads to: disp then caches that block (target/i386/tcg/tb.h) and
 * base holds how many instructions of the block retire with it.
 */
#define EA_CHAIN    0x80u

struct Insn {
    InsnFn fn;
    uint64_t imm;       /* immediate (sign-extended), branch target, moffs */
    int64_t disp;       /* displacement; rip-relative targets folded in */
    uint16_t off;       /* rip of this instruction minus the block's */
    uint8_t len;
    uint8_t reg;        /* modrm.reg operand (a byte offset into regs[]
                         * for 8-bit operands, so AH..BH need no case) */
    uint8_t rm;         /* modrm.rm register when the operand is one */
    uint8_t base;
    uint8_t index;
    uint8_t scale;
    uint8_t seg;        /* segment of the memory operand */
    uint8_t eaf;        /* EA_* */
    uint8_t aux;        /* per handler: condition, segment, rep kind ... */
    uint8_t aux2;       /* per handler: usually the operand size */
    uint8_t stk;        /* stack form of stack users (STK_*) */
    uint16_t imm2;      /* second immediate: ret/enter imm16, selector */
    /*
     * rip after this instruction (the block's pc + off + len): stored,
     * not added, so consecutive instructions do not chain through a
     * load and store of env->rip.
     */
    uint64_t next_rip;
};

/* Operand sizes: log2 of the byte count. */
enum { OT_B, OT_W, OT_L, OT_Q };

/* Rep kinds of string instructions (Insn.aux). */
enum { REP_NONE, REP_E, REP_NE };

/*
 * Lazy flags. cc_op is kind * 4 + operand size; cc_dst holds the result
 * truncated to the operand size (so ZF is cc_dst == 0 for every kind but
 * EFLAGS), cc_src the second operand or the kind's extra value:
 *   ADD, SUB       cc_src = second operand
 *   ADC, SBB       cc_src = second operand, cc_src2 = carry in
 *   LOGIC          -
 *   INC, DEC       cc_src = CF before the instruction
 *   SHL            cc_src = the value shifted by count - 1
 *   SAR, SHR       cc_src = the value shifted by count - 1
 *   MUL            cc_src = 1 when the high half is significant
 * CC_OP_EFLAGS is 0 so a zeroed state holds its flags in eflags.
 */
enum {
    CC_K_EFLAGS, CC_K_ADD, CC_K_ADC, CC_K_SUB, CC_K_SBB, CC_K_LOGIC,
    CC_K_INC, CC_K_DEC, CC_K_SHL, CC_K_SAR, CC_K_SHR, CC_K_MUL,
};
#define CC_OP(kind, ot) ((kind) * 4 + (ot))
#define CC_OP_EFLAGS    0

uint32_t x86_cc_compute_all(CPUX86State *env);
bool x86_cc_compute_c(CPUX86State *env);
/* Make eflags hold the arithmetic flags and switch to CC_OP_EFLAGS. */
void x86_cc_materialize(CPUX86State *env);

static inline uint64_t ot_mask(int ot)
{
    return ot == OT_Q ? ~(uint64_t)0 : ((uint64_t)1 << (8 << ot)) - 1;
}

static inline unsigned ot_bits(int ot)
{
    return 8u << ot;
}

static inline bool ot_msb(int ot, uint64_t v)
{
    return (v >> (ot_bits(ot) - 1)) & 1;
}

/* Sign-extend the low 8 << ot bits of v. */
static inline int64_t ot_sext(int ot, uint64_t v)
{
    unsigned sh = 64 - ot_bits(ot);
    return (int64_t)(v << sh) >> sh;
}

static inline void cc_set(CPUX86State *env, int kind, int ot, uint64_t dst,
                          uint64_t src)
{
    env->cc_dst = dst & ot_mask(ot);
    env->cc_src = src;
    env->cc_op = CC_OP(kind, ot);
}

static inline bool cc_parity(uint64_t v)
{
    return !__builtin_parity((unsigned)(v & 0xff));
}

/*
 * CF, with the kinds that carry chains and compares leave (add, sub,
 * logic) answered inline: dst is the truncated result, src the second
 * operand.
 */
static inline bool x86_cc_c(CPUX86State *env)
{
    uint32_t op = env->cc_op;
    uint64_t m = ot_mask(op & 3), dst = env->cc_dst, src = env->cc_src & m;

    switch (op >> 2) {
    case CC_K_ADD:
        return dst < src;
    case CC_K_SUB:
        return ((dst + src) & m) < src;
    case CC_K_LOGIC:
        return false;
    default:
        return x86_cc_compute_c(env);
    }
}

/*
 * Condition codes in encoding order (jcc's low nibble): O, NO, B, AE,
 * Z, NZ, BE, A, S, NS, P, NP, L, GE, LE, G. The compare and logic
 * kinds answer without computing the flags.
 */
static inline bool x86_cond(CPUX86State *env, int cond)
{
    uint32_t op = env->cc_op;
    unsigned kind = op >> 2, ot = op & 3;
    uint64_t dst = env->cc_dst, src = env->cc_src;
    bool r;

    switch (cond >> 1) {
    case 0:
        r = x86_cc_compute_all(env) & CC_O;
        break;
    case 1:
        r = x86_cc_c(env);
        break;
    case 2:
        r = op == CC_OP_EFLAGS ? (env->eflags & CC_Z) != 0 : dst == 0;
        break;
    case 3:
        if (kind == CC_K_SUB || kind == CC_K_LOGIC || kind == CC_K_ADD) {
            r = x86_cc_c(env) || dst == 0;
        } else {
            r = (x86_cc_compute_all(env) & (CC_C | CC_Z)) != 0;
        }
        break;
    case 4:
        r = op == CC_OP_EFLAGS ? (env->eflags & CC_S) != 0 : ot_msb(ot, dst);
        break;
    case 5:
        r = op == CC_OP_EFLAGS ? (env->eflags & CC_P) != 0 : cc_parity(dst);
        break;
    case 6:
        if (kind == CC_K_SUB) {
            r = ot_sext(ot, dst + src) < ot_sext(ot, src);
        } else if (kind == CC_K_LOGIC) {
            r = ot_msb(ot, dst);
        } else {
            uint32_t f = x86_cc_compute_all(env);
            r = !(f & CC_S) != !(f & CC_O);
        }
        break;
    default:
        if (kind == CC_K_SUB) {
            r = ot_sext(ot, dst + src) <= ot_sext(ot, src);
        } else if (kind == CC_K_LOGIC) {
            r = dst == 0 || ot_msb(ot, dst);
        } else {
            uint32_t f = x86_cc_compute_all(env);
            r = (f & CC_Z) || !(f & CC_S) != !(f & CC_O);
        }
        break;
    }
    return r ^ (cond & 1);
}

/* Registers. For OT_B, r is a byte offset into regs[] (see Insn.reg). */
static inline uint64_t reg_read(CPUX86State *env, int ot, unsigned r)
{
    switch (ot) {
    case OT_B:
        return ((uint8_t *)env->regs)[r];
    case OT_W:
        return (uint16_t)env->regs[r];
    case OT_L:
        return (uint32_t)env->regs[r];
    default:
        return env->regs[r];
    }
}

static inline void reg_write(CPUX86State *env, int ot, unsigned r,
                             uint64_t v)
{
    uint16_t w = v;

    switch (ot) {
    case OT_B:
        ((uint8_t *)env->regs)[r] = v;
        break;
    case OT_W:
        memcpy(&env->regs[r], &w, 2);
        break;
    case OT_L:
        env->regs[r] = (uint32_t)v;
        break;
    default:
        env->regs[r] = v;
        break;
    }
}

/* The byte offset of 8-bit register n (AH..BH without REX). */
static inline unsigned reg8_offset(unsigned n, bool rex)
{
    if (n >= 4 && n < 8 && !rex) {
        return (n - 4) * 8 + 1;
    }
    return n * 8;
}

/* Memory through the soft TLB's fast paths. */
static X86_INLINE uint64_t mem_read(CPUX86State *env, int ot, uint64_t a)
{
    switch (ot) {
    case OT_B:
        return x86_ldub(env, a);
    case OT_W:
        return x86_lduw(env, a);
    case OT_L:
        return x86_ldl(env, a);
    default:
        return x86_ldq(env, a);
    }
}

static X86_INLINE void mem_write(CPUX86State *env, int ot, uint64_t a,
                             uint64_t v)
{
    switch (ot) {
    case OT_B:
        x86_stb(env, a, v);
        break;
    case OT_W:
        x86_stw(env, a, v);
        break;
    case OT_L:
        x86_stl(env, a, v);
        break;
    default:
        x86_stq(env, a, v);
        break;
    }
}

/*
 * Frameless fast paths. mem_fast() gives the host address for an access
 * when the TLB holds the page for it and the access stays within the
 * page, else false with nothing done. X86_DEF_MEM defines a handler
 * twice from one body: the fast version tries mem_fast() and otherwise
 * tail-calls the full version, which goes through mem_read() and
 * mem_write() (the slow path, faults included): it may, having changed
 * nothing yet. The fast version so makes no call and needs no stack
 * frame. The body accesses its one memory operand, at address addr and
 * with the rights need, through MEM_LD() and MEM_ST().
 */
enum { MEM_R = 1, MEM_W = 2, MEM_RW = 3 };   /* what mem_fast() needs */

static X86_INLINE bool mem_fast(CPUX86State *env, int ot, uint64_t a,
                            unsigned need, uint8_t **p)
{
    TLBEntry *e = x86_tlb_entry(env, a);
    /*
     * The page of the last byte: an access that crosses into the next
     * page misses the tag of its first (one compare for both checks).
     */
    uint64_t page = (a + (1u << ot) - 1) & X86_PAGE_MASK;

    if (((need & MEM_R) && e->tag_read != page) ||
        ((need & MEM_W) && e->tag_write != page)) {
        return false;
    }
    *p = (uint8_t *)(uintptr_t)(a + e->addend);
    return true;
}

static X86_INLINE uint64_t host_read(int ot, const uint8_t *p)
{
    uint8_t b;
    uint16_t w;
    uint32_t l;
    uint64_t q;

    switch (ot) {
    case OT_B:
        memcpy(&b, p, 1);
        return b;
    case OT_W:
        memcpy(&w, p, 2);
        return w;
    case OT_L:
        memcpy(&l, p, 4);
        return l;
    default:
        memcpy(&q, p, 8);
        return q;
    }
}

static X86_INLINE void host_write(int ot, uint8_t *p, uint64_t v)
{
    uint8_t b = v;
    uint16_t w = v;
    uint32_t l = v;

    switch (ot) {
    case OT_B:
        memcpy(p, &b, 1);
        break;
    case OT_W:
        memcpy(p, &w, 2);
        break;
    case OT_L:
        memcpy(p, &l, 4);
        break;
    default:
        memcpy(p, &v, 8);
        break;
    }
}

#define MEM_LD(ot)      (fast_ ? host_read(ot, p_) : mem_read(env, ot, a_))
#define MEM_ST(ot, v)                                                     \
    (fast_ ? host_write(ot, p_, v) : mem_write(env, ot, a_, v))
/*
 * A body may end in return X86_NEXT_REG (see X86_DEF_REG): the full
 * version always stores rip, a fast one may be made not to (skip).
 * The full version first sets rip to its own instruction's, since the
 * instruction before may not have stored it (decode-rip.c): the fast
 * paths cannot fault, so these handlers do not read env->rip on entry.
 */
#define X86_DEF_MEM_FULL_(name, addr, ...)                                \
static __attribute__((noinline)) uintptr_t name(CPUX86State *env,        \
                                                const Insn *in)          \
{                                                                         \
    const bool fast_ = false;                                             \
    const bool skip_rip_ __attribute__((unused)) = false;                 \
    uint64_t a_;                                                          \
    uint8_t *p_ = NULL;                                                   \
                                                                          \
    env->rip = in->next_rip - in->len;                                    \
    a_ = (addr);                                                          \
    __VA_ARGS__                                                           \
}
#define X86_DEF_MEM_FAST_(name, full, ot, need, addr, skip, ...)          \
static uintptr_t name(CPUX86State *env, const Insn *in)                   \
{                                                                         \
    const bool fast_ = true;                                              \
    const bool skip_rip_ __attribute__((unused)) = skip;                  \
    uint64_t a_ = (addr);                                                 \
    uint8_t *p_;                                                          \
    if (!mem_fast(env, ot, a_, need, &p_)) {                              \
        return full(env, in);                                             \
    }                                                                     \
    __VA_ARGS__                                                           \
}
#define X86_DEF_MEM(name, ot, need, addr, ...)                            \
    X86_DEF_MEM_FULL_(name##_full, addr, __VA_ARGS__)                     \
    X86_DEF_MEM_FAST_(name, name##_full, ot, need, addr, false,           \
                      __VA_ARGS__)
/* The same with name_nr, without the rip store after a fast access. */
#define X86_DEF_MEM_NR(name, ot, need, addr, ...)                         \
    X86_DEF_MEM(name, ot, need, addr, __VA_ARGS__)                        \
    X86_DEF_MEM_FAST_(name##_nr, name##_full, ot, need, addr, true,       \
                      __VA_ARGS__)

/*
 * Handlers of the modrm memory operand (address x86_ea()) also get a
 * fast version per common address form of 64-bit code, which computes
 * the address without looking at Insn.eaf: the decoder's last pass puts
 * them in place of the general one (x86_ea_forms(), decode-ea.c). Their
 * slow path is the general one's. X86_DEF_MEM_EA also defines
 * name_forms, the rows of those versions (X86Handler.forms).
 */
#define X86_EA_B_   ((uint64_t)in->disp + env->regs[in->base])
#define X86_EA_BI_  ((uint64_t)in->disp + env->regs[in->base] +           \
                     (env->regs[in->index] << in->scale))
#define X86_EA_D_   ((uint64_t)in->disp)
#define X86_DEF_MEM_FORMS_(name, sfx, ot, need, skip, ...)                \
    X86_DEF_MEM_FAST_(name##_b##sfx, name##_full, ot, need, X86_EA_B_,    \
                      skip, __VA_ARGS__)                                  \
    X86_DEF_MEM_FAST_(name##_bi##sfx, name##_full, ot, need, X86_EA_BI_,  \
                      skip, __VA_ARGS__)                                  \
    X86_DEF_MEM_FAST_(name##_d##sfx, name##_full, ot, need, X86_EA_D_,    \
                      skip, __VA_ARGS__)
#define X86_DEF_MEM_EA_(name, ot, need, ...)                              \
    X86_DEF_MEM(name, ot, need, x86_ea(env, in), __VA_ARGS__)             \
    X86_DEF_MEM_FORMS_(name, , ot, need, false, __VA_ARGS__)
#define X86_DEF_MEM_EA(name, ot, need, ...)                               \
    X86_DEF_MEM_EA_(name, ot, need, __VA_ARGS__)                          \
    X86_EA_FORMS(name, X86_H_MEM)
/*
 * The same for a body that ends in return X86_NEXT_REG: each form's
 * version also gets one without the rip store after a fast access
 * (name_b_nr ...), for decode-rip.c.
 */
#define X86_DEF_MEM_EA_NR(name, ot, need, ...)                            \
    X86_DEF_MEM_EA_(name, ot, need, __VA_ARGS__)                          \
    X86_DEF_MEM_FORMS_(name, _nr, ot, need, true, __VA_ARGS__)            \
    X86_EA_FORMS(name, X86_H_NR)

/*
 * name_forms: the rows of name's versions name_b, name_bi and name_d,
 * with the columns COLS(version) (X86_H_MEM or X86_H_NR, below).
 */
#define X86_EA_FORMS(name, COLS)                                          \
static const X86Handler name##_forms[X86_EA_NUM] = {                      \
    [X86_EA_B] = { COLS(name##_b) },                                      \
    [X86_EA_BI] = { COLS(name##_bi) },                                    \
    [X86_EA_D] = { COLS(name##_d) },                                      \
};

/* Linear address of the instruction's memory operand. */
static X86_INLINE uint64_t x86_ea(CPUX86State *env, const Insn *in)
{
    uint64_t a = in->disp;
    unsigned f = in->eaf;

    if (f & EA_BASE) {
        a += env->regs[in->base];
    }
    if (f & EA_INDEX) {
        a += env->regs[in->index] << in->scale;
    }
    /* 64-bit code has none of these: one test. */
    if (f & (EA_A32 | EA_A16 | EA_SEG)) {
        if (f & EA_A32) {
            a = (uint32_t)a;
        } else if (f & EA_A16) {
            a = (uint16_t)a;
        }
        if (f & EA_SEG) {
            a += env->segs[in->seg].base;
            if (f & EA_LIN32) {
                a = (uint32_t)a;
            }
        }
    }
    return a;
}

/*
 * The linear address of seg:offset for implicit operands (string
 * instructions, xlat, the stack) under the instruction's EA flags.
 * Like every data access here it adds the base only: segment limits and
 * access rights are not checked (as in QEMU's TCG); 64-bit code gets
 * the canonical check in the soft MMU.
 */
static inline uint64_t x86_seg_addr(CPUX86State *env, const Insn *in,
                                    int seg, uint64_t offset)
{
    if (in->eaf & EA_LIN32) {
        return (uint32_t)(env->segs[seg].base + offset);
    }
    if (seg >= R_FS) {
        return env->segs[seg].base + offset;
    }
    return offset;
}

/* Address-size mask of the instruction. */
static inline uint64_t x86_amask(const Insn *in)
{
    if (in->eaf & EA_A16) {
        return 0xffff;
    }
    if (in->eaf & EA_A32) {
        return 0xffffffffu;
    }
    return ~(uint64_t)0;
}

/*
 * The stack. Insn.stk of stack instructions carries the stack form:
 * STK_64 (64-bit code), STK_32 (SS.B) or STK_16, plus STK_SEG when SS's
 * base must be added.
 */
#define STK_16      0x00u
#define STK_32      0x01u
#define STK_64      0x02u
#define STK_SIZE    0x03u
#define STK_SEG     0x04u

static inline uint64_t stk_mask(unsigned stk)
{
    switch (stk & STK_SIZE) {
    case STK_16:
        return 0xffff;
    case STK_32:
        return 0xffffffffu;
    default:
        return ~(uint64_t)0;
    }
}

static inline uint64_t stk_addr(CPUX86State *env, unsigned stk, uint64_t sp)
{
    sp &= stk_mask(stk);
    if (stk & STK_SEG) {
        return (uint32_t)(env->segs[R_SS].base + sp);
    }
    return sp;
}

/* Write the stack pointer keeping the bits above the stack size. */
static inline void stk_set_sp(CPUX86State *env, unsigned stk, uint64_t sp)
{
    uint64_t m = stk_mask(stk);

    if (m == 0xffffffffu) {
        env->regs[R_ESP] = (uint32_t)sp;
    } else {
        env->regs[R_ESP] = (env->regs[R_ESP] & ~m) | (sp & m);
    }
}

static inline void stk_push(CPUX86State *env, unsigned stk, int ot,
                            uint64_t v)
{
    uint64_t sp = env->regs[R_ESP] - (1u << ot);

    mem_write(env, ot, stk_addr(env, stk, sp), v);
    stk_set_sp(env, stk, sp);
}

/* Read the stack at offset from the top without moving the pointer. */
static inline uint64_t stk_peek(CPUX86State *env, unsigned stk, int ot,
                                unsigned offset)
{
    return mem_read(env, ot, stk_addr(env, stk, env->regs[R_ESP] + offset));
}

static inline void stk_adjust(CPUX86State *env, unsigned stk, int64_t n)
{
    stk_set_sp(env, stk, env->regs[R_ESP] + n);
}

/* Done: on to the next instruction (a tail call). */
static inline uintptr_t x86_next(CPUX86State *env, const Insn *in)
{
    env->rip = in->next_rip;
    return in[1].fn(env, in + 1);
}

/* Go on, or end the block when a helper said so. */
static inline uintptr_t x86_next_or_stop(CPUX86State *env, const Insn *in,
                                         bool stop)
{
    env->rip = in->next_rip;
    if (stop) {
        return X86_EXIT(in, X86_STOP);
    }
    return in[1].fn(env, in + 1);
}

/*
 * Register-only handlers: no fault, no helper that may raise one, and
 * env->rip not read. X86_DEF_REG defines such a handler twice from one
 * body, which ends with return X86_NEXT_REG: name stores rip after
 * itself as x86_next() does, name_nr does not. The decoder's last pass
 * (decode-rip.c) uses name_nr when the next instruction does not read
 * env->rip on entry either, so that a run of them stores rip only at
 * its end (faults and helpers still see the rip of their instruction).
 */
static X86_INLINE uintptr_t x86_next_reg(CPUX86State *env, const Insn *in,
                                         bool skip_rip)
{
    if (!skip_rip) {
        env->rip = in->next_rip;
    }
    return in[1].fn(env, in + 1);
}

#define X86_NEXT_REG    x86_next_reg(env, in, skip_rip_)
#define X86_DEF_REG(name, ...)                                            \
static X86_INLINE uintptr_t name##_body_(CPUX86State *env, const Insn *in,\
                                         const bool skip_rip_)            \
{                                                                         \
    __VA_ARGS__                                                           \
}                                                                         \
static uintptr_t name(CPUX86State *env, const Insn *in)                   \
{                                                                         \
    return name##_body_(env, in, false);                                  \
}                                                                         \
static uintptr_t name##_nr(CPUX86State *env, const Insn *in)              \
{                                                                         \
    return name##_body_(env, in, true);                                   \
}

/*
 * The columns of a handler's row (X86Handler) for the macros above: a
 * plain handler (X86_H); X86_DEF_REG's and X86_DEF_MEM_NR's, which do
 * not read env->rip on entry and have the version name_nr (X86_H_NR);
 * X86_DEF_MEM_EA's and X86_DEF_MEM_EA_NR's, whose slow path sets rip
 * before it can fault, with their versions per address form
 * (X86_H_EA); X86_DEF_MEM_EA's versions per address form (X86_H_MEM).
 * A row that leaves out a version its macro made fails the build: an
 * unused static function or array.
 */
#define X86_H(name)     .fn = name
#define X86_H_NR(name)  .fn = name, .nr = name##_nr, .rip_free = true
#define X86_H_EA(name)  .fn = name, .forms = name##_forms, .rip_free = true
#define X86_H_MEM(name) .fn = name, .rip_free = true

/*
 * A decoded block (decode.c fills it; target/i386/tcg/tb.c copies it into the
 * cache). Blocks stay within one page, except that their first
 * instruction may straddle into a second.
 */
#define TB_MAX_INSNS    64

typedef struct DecodedBlock {
    uint64_t pc;                /* rip of the first instruction */
    uint64_t cs_base;
    uint32_t flags;             /* hflags & HF_DECODE_MASK */
    unsigned n;                 /* instructions, not counting the end */
    unsigned npages;
    uint64_t phys[2];           /* guest-physical pages of the code */
    uint16_t start0, end0;      /* byte range used in phys[0] */
    uint16_t end1;              /* bytes used in phys[1] (from 0) */
    bool cacheable;             /* all bytes came from RAM */
    Insn insns[TB_MAX_INSNS + 1];
} DecodedBlock;

/*
 * Decode the block of at most max_insns (<= TB_MAX_INSNS) instructions
 * at env->rip under env->hflags. Faults while fetching
 * the first instruction raise the exception (#PF, #GP); later
 * instructions that cannot be fetched end the block instead.
 */
void x86_decode_block(CPUX86State *env, DecodedBlock *db,
                      unsigned max_insns);

/* Handlers shared across files. */
uintptr_t op_ud(CPUX86State *env, const Insn *in);
uintptr_t op_gp0(CPUX86State *env, const Insn *in);
uintptr_t op_nop(CPUX86State *env, const Insn *in);
uintptr_t op_block_end(CPUX86State *env, const Insn *in);
uintptr_t op_killed(CPUX86State *env, const Insn *in);

#endif
