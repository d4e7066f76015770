/*
 * Decoded blocks (translation blocks, QEMU's word) and their lookup,
 * shared by the cache (tb.c) and the execution loop (cpu-exec.c).
 */
#ifndef ACCEL_TCG_TB_H
#define ACCEL_TCG_TB_H

#include "target/i386/tb-cache.h"
#include "target/i386/tcg/ops.h"

typedef struct TranslationBlock TranslationBlock;

/*
 * Beyond the hflags in TranslationBlock.flags: a block of one
 * instruction, run in the interrupt shadow of sti/mov ss.
 */
#define TB_FLAG_SINGLE  0x80000000u

struct TranslationBlock {
    uint64_t lin;               /* linear address of pc */
    uint64_t phys[2];
    TranslationBlock *hash_next;
    /* Blocks this one was seen to continue into, in the same page. */
    TranslationBlock *link[2];
    uint16_t ninsns;            /* without the end sentinel */
    uint8_t npages;
    bool cached;                /* in the cache (not a one-off) */
    uint16_t start0, end0, end1;
    /*
     * What a jump into the block reads (the key, its mapping's check,
     * valid) comes last: blocks are aligned so that it shares a cache
     * line with the start of insns[0] (TB_HOT_OFFSET).
     */
    uint64_t pc;
    uint64_t cs_base;
    /* x86_tlb_gen when its pages were last seen mapped at lin as here. */
    uint64_t map_gen;
    uint32_t flags;             /* hflags & HF_DECODE_MASK, TB_FLAG_* */
    bool valid;                 /* false once invalidated */
    Insn insns[];               /* ninsns + 1 */
};

/* Blocks start at multiples of 64 bytes; pc .. insns[0] in one line. */
#define TB_ALIGN        64
#define TB_HOT_OFFSET   64
G_STATIC_ASSERT(offsetof(TranslationBlock, pc) == TB_HOT_OFFSET);
G_STATIC_ASSERT(offsetof(TranslationBlock, insns) - TB_HOT_OFFSET <= 32);

/*
 * Direct chaining. A direct branch (EA_CHAIN) whose target block the
 * execution loop has cached in its disp goes straight into that block,
 * while no interrupt is pending and the budget lasts: the loop then
 * sees the exit of the last block of the chain (cpu-exec.c).
 *

 * Leave by the direct branch in (rip already at its target): into the
 * cached block, or back to the loop with why. Out of line, so the
 * handlers' fast paths need no stack frame.
 */
uintptr_t tb_chain_jump(CPUX86State *env, const Insn *in, int why);
/*
 * Leave by the indirect branch in (rip already at its target): into a
 * block it was seen to lead to or the jump cache's block for rip, else
 * back to the loop (X86_JUMP), which looks it up and links it.
 */
uintptr_t tb_chain_indirect(CPUX86State *env, const Insn *in);

/* Per-vCPU jump cache: recent blocks by linear pc. */
#define TB_JMP_CACHE_BITS   12
#define TB_JMP_CACHE_SIZE   (1u << TB_JMP_CACHE_BITS)

typedef struct TBJmpCache {
    uint64_t generation;        /* the cache's flush count it holds */
    TranslationBlock *tbs[TB_JMP_CACHE_SIZE];
} TBJmpCache;

TBJmpCache *tb_jmp_cache_get(X86CPU *cpu);

/*
 * The block at env->rip (linear address lin) with tb_flags (TB_FLAG_*)
 * from the cache, or decoded now; either may raise a fetch fault. A block that is not cached
 * (tb->cached false: code outside RAM) is only good until the next call.
 */
TranslationBlock *tb_find(CPUX86State *env, uint64_t lin, uint32_t tb_flags);
/* Does tb's code still come from the same guest-physical pages? */
bool tb_pages_match(CPUX86State *env, const TranslationBlock *tb);

/*
 * The same, answered without a page lookup while no TLB flush has
 * happened since the last time it was asked (x86_tlb_gen).
 */
static inline bool tb_mapped(CPUX86State *env, TranslationBlock *tb)
{
    uint64_t gen = __atomic_load_n(&x86_tlb_gen, __ATOMIC_RELAXED);

    if (tb->map_gen == gen) {
        return true;
    }
    if (!tb_pages_match(env, tb)) {
        return false;
    }
    tb->map_gen = gen;
    return true;
}

/* Full flushes so far: links and pointers from before are stale. */
extern uint64_t tb_generation;

/* Remember that from runs on into to (same page, same mode). */
void tb_link(TranslationBlock *from, TranslationBlock *to);

#endif
