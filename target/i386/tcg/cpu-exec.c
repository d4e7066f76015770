/*
 * The execution loop of one vCPU: find the block at rip (a link from the
 * previous block, the vCPU's jump cache, the global cache, or the
 * decoder), run it (its first handler runs the rest, each tail-calling
 * the next: target/i386/tcg/ops.h), and between blocks take interrupts and
 * count instructions against the budget.
 *
 * Exceptions unwind to the setjmp here with rip at the faulting
 * instruction (handlers move rip only once nothing can fault); the loop
 * counts the instructions the block retired before it and delivers the
 * exception through x86_do_exception().
 *
 * A direct branch to a block in the same page and mode runs straight on
 * into it (tb_chain_jump) until an interrupt is pending or the budget is
 * used; links are made here when such a branch is seen to lead to a
 * block.
 *
 * The interrupt shadow of sti, mov ss and pop ss: those instructions end
 * their block; in the shadow a block of one instruction runs, then
 * interrupts are looked at again.
 */
#include "target/i386/tcg/tb.h"
#include "target/i386/tcg/helper.h"

/*
 * Instructions of tb that retired before the one at rip. Offsets are
 * kept modulo 2^16 (a block followed into by a jump may go backwards
 * within its page).
 */
static unsigned insns_before(const TranslationBlock *tb, uint64_t rip)
{
    uint16_t off = rip - tb->pc;

    for (unsigned i = 0; i < tb->ninsns; i++) {
        if (tb->insns[i].off == off) {
            return i;
        }
    }
    return 0;
}

static inline uint64_t code_lin(CPUX86State *env)
{
    uint64_t lin = env->segs[R_CS].base + env->rip;

    return (env->hflags & HF_CS64_MASK) ? lin : (uint32_t)lin;
}

static inline unsigned jc_hash(uint64_t lin)
{
    return (lin ^ (lin >> TB_JMP_CACHE_BITS)) & (TB_JMP_CACHE_SIZE - 1);
}

/* May to run straight after from, without a lookup? */
static bool can_link(const TranslationBlock *from, const TranslationBlock *to)
{
    return from->valid && to->valid && from->npages == 1 &&
           to->npages == 1 && from->phys[0] == to->phys[0] &&
           ((from->lin ^ to->lin) & X86_PAGE_MASK) == 0 &&
           from->cs_base == to->cs_base && from->flags == to->flags;
}

/*
 * How far a chain of blocks got. One for the process: every vCPU runs
 * on the one tcg thread, in turn (accel/tcg/tcg-cpus.c).
 */
typedef struct TBChain {
    TranslationBlock *running;  /* the block being run */
    int64_t start;              /* the budget the chain started with */
    int64_t budget;             /* instructions left to the loop's check:
                                 * start - budget retired before running */
    TBJmpCache *jc;             /* the running vCPU's */
} TBChain;

static TBChain tb_chain;

/*
 * Instructions a chain may run before the loop looks again. Handlers
 * tail-call each other, so a chain does not grow the stack, unless the
 * compiler leaves a call in place (no optimisation, sanitizers): this
 * bounds the stack then.
 */
#define TB_CHAIN_MAX    4096

/* Go on into next, n instructions retired; else back to the loop. */
static inline uintptr_t chain_into(CPUX86State *env, const Insn *in,
                                   TranslationBlock *next, unsigned n,
                                   int why)
{
    int64_t left = tb_chain.budget - n;

    if (left > 0 &&
        !__atomic_load_n(&env->interrupt_request, __ATOMIC_RELAXED)) {
        tb_chain.budget = left;
        tb_chain.running = next;
        return next->insns[0].fn(env, next->insns);
    }
    return X86_EXIT(in, why);
}

/* A block last was seen to continue into, if it starts at rip. */
static inline TranslationBlock *link_lookup(TranslationBlock *last,
                                            uint64_t rip)
{
    /* Links hold only within one page and mode: rip decides. */
    TranslationBlock *tb = last->link[0];

    if (tb && tb->pc == rip && tb->valid) {
        return tb;
    }
    tb = last->link[1];
    if (tb && tb->pc == rip && tb->valid) {
        return tb;
    }
    return NULL;
}

/* The jump cache's block for env->rip at lin, if it is still good. */
static inline TranslationBlock *jc_lookup(CPUX86State *env, TBJmpCache *jc,
                                          uint64_t lin)
{
    TranslationBlock *tb = jc->tbs[jc_hash(lin)];

    if (tb && tb->pc == env->rip && tb->valid &&
        tb->cs_base == env->segs[R_CS].base &&
        tb->flags == (env->hflags & HF_DECODE_MASK) &&
        tb_mapped(env, tb)) {
        return tb;
    }
    return NULL;
}

/*
 * Keep next in the direct branch in for the next time (next_block too).
 * A block in the same page and mode is kept as it is; one in another
 * page is kept with CHAIN_FAR set, and followed only while its mapping
 * holds (tb_mapped).
 */
#define CHAIN_FAR   ((uintptr_t)1)

static inline void chain_keep(const Insn *in, uintptr_t v)
{
    if (in->eaf & EA_CHAIN) {
        __atomic_store_n(&((Insn *)in)->disp, (int64_t)v, __ATOMIC_RELAXED);
    }
}

static inline void chain_remember(const Insn *in, TranslationBlock *next)
{
    chain_keep(in, (uintptr_t)next);
}

static inline void chain_remember_far(const Insn *in, TranslationBlock *next)
{
    if (next->cached) {
        chain_keep(in, (uintptr_t)next | CHAIN_FAR);
    }
}

/*
 * A direct branch or a block's end without its link in disp. A target
 * the block already links (from its other exit) is taken and kept; one
 * in another page (never linked: that page's mapping may change) is
 * looked up in the jump cache as an indirect branch's is, so kernel code
 * spread over many pages does not go back to the loop at every page
 * crossing; a target in the same page goes back once, and the loop
 * links it.
 */
static __attribute__((noinline)) uintptr_t
tb_chain_unlinked(CPUX86State *env, const Insn *in, int why)
{
    TranslationBlock *from = tb_chain.running;
    uintptr_t kept = (uintptr_t)in->disp;
    TranslationBlock *next;

    if (kept & CHAIN_FAR) {
        /* Kept from another page: good while the mapping is. */
        next = (TranslationBlock *)(kept & ~CHAIN_FAR);
        if (next->valid && tb_mapped(env, next)) {
            return chain_into(env, in, next, in->base, why);
        }
    }
    next = link_lookup(from, env->rip);
    if (next) {
        /* Linked from another exit of the block: this one learns it. */
        chain_remember(in, next);
        return chain_into(env, in, next, in->base, why);
    }
    next = jc_lookup(env, tb_chain.jc, code_lin(env));
    if (next && !can_link(from, next)) {
        chain_remember_far(in, next);
        return chain_into(env, in, next, in->base, why);
    }
    return X86_EXIT(in, why);
}

/* The linked case stays small enough to need no stack frame. */
uintptr_t tb_chain_jump(CPUX86State *env, const Insn *in, int why)
{
    uintptr_t kept = (uintptr_t)in->disp;
    TranslationBlock *next = (TranslationBlock *)(kept & ~CHAIN_FAR);

    if (G_LIKELY(next && next->valid &&
                 (!(kept & CHAIN_FAR) ||
                  next->map_gen == __atomic_load_n(&x86_tlb_gen,
                                                   __ATOMIC_RELAXED)))) {
        return chain_into(env, in, next, in->base, why);
    }
    return tb_chain_unlinked(env, in, why);
}

uintptr_t tb_chain_indirect(CPUX86State *env, const Insn *in)
{
    TranslationBlock *from = tb_chain.running, *next;

    next = link_lookup(from, env->rip);
    if (!next) {
        next = jc_lookup(env, tb_chain.jc, code_lin(env));
        if (!next) {
            return X86_EXIT(in, X86_JUMP);
        }
    }
    return chain_into(env, in, next, in - from->insns + 1, X86_JUMP);
}

/*
 * The block to run next. last is the block just left by a jump or its
 * end (or NULL), exit_in the instruction it left by: a direct branch
 * that gets the block it leads to cached for direct chaining.
 */
static TranslationBlock *next_block(CPUX86State *env, TBJmpCache *jc,
                                    TranslationBlock *last,
                                    const Insn *exit_in)
{
    uint64_t lin, gen;
    TranslationBlock *tb;
    unsigned h;

    if (last) {
        tb = link_lookup(last, env->rip);
        if (tb) {
            chain_remember(exit_in, tb);
            return tb;
        }
    }
    lin = code_lin(env);
    if (G_UNLIKELY(env->hflags & HF_INHIBIT_IRQ_MASK)) {
        /* One instruction in the interrupt shadow, then a look again. */
        gen = tb_generation;
        tb = tb_find(env, lin, TB_FLAG_SINGLE);
        if (gen != tb_generation) {
            /* Its block filled the cache: the jump cache points nowhere. */
            memset(jc->tbs, 0, sizeof(jc->tbs));
            jc->generation = tb_generation;
        }
        return tb;
    }
    h = jc_hash(lin);
    tb = jc_lookup(env, jc, lin);
    if (!tb) {
        gen = tb_generation;
        tb = tb_find(env, lin, 0);
        if (gen != tb_generation) {
            /* The cache was flushed: last is gone with everything else. */
            memset(jc->tbs, 0, sizeof(jc->tbs));
            jc->generation = tb_generation;
            return tb;
        }
        if (tb->cached) {
            jc->tbs[h] = tb;
        }
    }
    if (last && can_link(last, tb)) {
        tb_link(last, tb);
        chain_remember(exit_in, tb);
    } else if (last && last->valid && tb->valid &&
               last->cs_base == tb->cs_base && last->flags == tb->flags) {
        chain_remember_far(exit_in, tb);
    }
    return tb;
}

/* What survives an exception's unwinding to the setjmp. */
typedef struct ExecState {
    uint64_t executed;          /* up to the chain being run */
    /*
     * Faults delivered: they retire nothing but use the budget too, so
     * a guest that faults in a loop (a handler that faults again) still
     * gives the thread back at the end of its budget.
     */
    uint64_t faults;
} ExecState;

/*
 * Run blocks until the budget is used, the vCPU halts or stops, or an
 * exit is requested. Returns normally; exceptions longjmp out with
 * st->executed and tb_chain telling how far it got.
 */
static void exec_blocks(X86CPU *cpu, uint64_t budget, ExecState *st,
                        TBJmpCache *jc)
{
    CPUX86State *env = &cpu->env;
    TranslationBlock *last = NULL;
    const Insn *exit_in = NULL;
    uint64_t executed = st->executed;

    for (;;) {
        uint32_t req = __atomic_load_n(&env->interrupt_request,
                                       __ATOMIC_ACQUIRE);
        TranslationBlock *tb;
        uintptr_t r;
        int why;

        if (G_UNLIKELY(req)) {
            if (req & CPU_INTERRUPT_EXIT) {
                break;
            }
            x86_handle_interrupts(env);
            last = NULL;
            if (cpu->stopped || (env->hflags & HF_HALTED_MASK)) {
                break;
            }
        }
        if (executed + st->faults >= budget) {
            break;
        }
        tb = next_block(env, jc, last, exit_in);
        if (tb->flags & TB_FLAG_SINGLE) {
            /*
             * The one instruction in the interrupt shadow: interrupts
             * were held off for it above; from its end they are not
             * (unless it opens a new shadow, which ends its block).
             */
            env->hflags &= ~HF_INHIBIT_IRQ_MASK;
        }
        tb_chain.running = tb;
        tb_chain.budget = MIN(budget - executed - st->faults,
                              (uint64_t)TB_CHAIN_MAX);
        tb_chain.start = tb_chain.budget;
        r = tb->insns[0].fn(env, tb->insns);
        tb = tb_chain.running;
        tb_chain.running = NULL;
        exit_in = X86_EXIT_INSN(r);
        why = X86_EXIT_WHY(r);
        executed += tb_chain.start - tb_chain.budget +
                    (exit_in - tb->insns) +
                    (why == X86_END || why == X86_KILLED ? 0 : 1);
        st->executed = executed;
        if (why == X86_JUMP || why == X86_END) {
            last = tb->valid ? tb : NULL;
            continue;
        }
        last = NULL;
        if (cpu->stopped || (env->hflags & HF_HALTED_MASK)) {
            break;
        }
    }
    st->executed = executed;
}

X86CPUExit x86_cpu_exec(X86CPU *cpu, uint64_t budget, uint64_t *executed)
{
    CPUX86State *env = &cpu->env;
    TBJmpCache *jc = tb_jmp_cache_get(cpu);
    ExecState st = { 0 };
    ExecState *volatile stp = &st;

    if (jc->generation != tb_generation) {
        /* Flushed while this vCPU was not running. */
        memset(jc->tbs, 0, sizeof(jc->tbs));
        jc->generation = tb_generation;
    }
    tb_chain.running = NULL;
    if (tb_chain.jc != jc) {
        /* Another vCPU's mappings: what was checked holds no more. */
        __atomic_fetch_add(&x86_tlb_gen, 1, __ATOMIC_RELAXED);
        tb_chain.jc = jc;
    }
    env->exit_reason = X86_CPU_EXIT_NONE;
    if (setjmp(env->jmp_env)) {
        TranslationBlock *tb = tb_chain.running;

        tb_chain.running = NULL;
        if (tb) {
            stp->executed += tb_chain.start - tb_chain.budget +
                             insns_before(tb, env->rip) +
                             (env->exception_is_int ? 1 : 0);
        }
        if (!env->exception_is_int) {
            stp->faults++;
        }
        env->hflags &= ~HF_INHIBIT_IRQ_MASK;
        x86_do_exception(env);
    }
    exec_blocks(cpu, budget, stp, jc);
    *executed = stp->executed;
    if (env->exit_reason != X86_CPU_EXIT_NONE) {
        return env->exit_reason;
    }
    if (__atomic_load_n(&env->interrupt_request, __ATOMIC_ACQUIRE) &
        CPU_INTERRUPT_EXIT) {
        return X86_CPU_EXIT_REQUEST;
    }
    if (cpu->stopped || (env->hflags & HF_HALTED_MASK)) {
        return X86_CPU_EXIT_HALT;
    }
    return X86_CPU_EXIT_BUDGET;
}
