/*
 * Guest code the emulator must survive: random bytes run as code by the
 * software CPU, in each mode, must end in a fault handler, a hlt or the
 * budget (instructions and faults: a handler that faults again, say
 * after the code overwrote the real-mode IVT, loops until it), never in
 * a crash, an abort or a sanitizer report.
 * Whatever the bytes wrote to the descriptor tables, page tables or
 * handlers is put back before the next case.
 *
 * Half the cases are plain random bytes; a quarter are random
 * instructions of the two- and three-byte maps (prefixes, REX, 0f,
 * 0f 38 or 0f 3a, an opcode, half the time from the vector ranges,
 * modrm and random bytes after it) with CR4.OSFXSR set, so the vector
 * decoder's tables and their handlers are reached with every prefix
 * combination and operand form.
 *
 * Every case starts from a random x87/SSE state (an FXSAVE image of
 * random bytes: any TOP, tags, FCW, FSW with exceptions pending or not,
 * register contents), now and then with CR0.TS or CR0.EM set, and the
 * last quarter is x87-heavy: about a third of its bytes are the escapes
 * d8..df or fwait, so the x87 decoder, its stack faults, #MF and #NM
 * paths see most of the random bytes that follow them.
 *
 * TCG_FUZZ_CASES sets the number of cases (default 20,000: about a
 * second), TCG_FUZZ_SEED the seed; the test prints both.
 */
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "tcg-harness.h"

#define CODE_BYTES      64
#define BUDGET          2000
/* Tables, handlers, page tables and stack (tcg-harness.h). */
#define SNAPSHOT_BYTES  0x80000u

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = g_getenv(name);

    return v ? g_ascii_strtoull(v, NULL, 0) : def;
}

/*
 * The opcode ranges of the vector instructions in each map (SDM vol. 2
 * appendix A), so most random instructions decode to something.
 */
static const uint8_t vec_ranges[3][8][2] = {
    { { 0x10, 0x17 }, { 0x28, 0x2f }, { 0x50, 0x7f }, { 0xc2, 0xc6 },
      { 0xd0, 0xff }, { 0xae, 0xae }, { 0xc3, 0xc3 }, { 0x77, 0x77 } },
    { { 0x00, 0x0b }, { 0x10, 0x25 }, { 0x28, 0x41 }, { 0xdb, 0xdf },
      { 0xf0, 0xf1 }, { 0x1c, 0x1e }, { 0x30, 0x37 }, { 0x17, 0x17 } },
    { { 0x08, 0x17 }, { 0x20, 0x22 }, { 0x40, 0x44 }, { 0x60, 0x63 },
      { 0xdf, 0xdf }, { 0x0f, 0x0f }, { 0x14, 0x17 }, { 0x42, 0x42 } },
};

/* Random instructions of the 0f, 0f 38 and 0f 3a maps. */
static void vector_code(GRand *rand, uint8_t *code, size_t n, bool rex)
{
    static const uint8_t pfx[] = {
        0x66, 0x66, 0xf2, 0xf3, 0x66, 0xf2, 0xf3, 0xf0, 0x67, 0x2e,
    };
    size_t i = 0;

    while (i + 16 <= n) {
        unsigned np = g_rand_int_range(rand, 0, 3);

        for (unsigned k = 0; k < np; k++) {
            code[i++] = pfx[g_rand_int_range(rand, 0, G_N_ELEMENTS(pfx))];
        }
        if (rex && g_rand_boolean(rand)) {
            code[i++] = 0x40 | g_rand_int_range(rand, 0, 16);
        }
        unsigned map = g_rand_int_range(rand, 0, 4);
        const uint8_t *range;

        map = map == 3 ? 0 : map;
        code[i++] = 0x0f;
        if (map) {
            code[i++] = map == 1 ? 0x38 : 0x3a;
        }
        range = vec_ranges[map][g_rand_int_range(rand, 0, 8)];
        code[i++] = g_rand_boolean(rand)
                    ? (uint8_t)g_rand_int(rand)
                    : (uint8_t)g_rand_int_range(rand, range[0], range[1] + 1);
        /* Register forms half of the time: memory at 0 is the IVT/GDT. */
        code[i++] = g_rand_boolean(rand) ? 0xc0 | g_rand_int(rand)
                                         : g_rand_int(rand);
        for (unsigned k = g_rand_int_range(rand, 0, 3); k > 0; k--) {
            code[i++] = g_rand_int(rand);
        }
    }
}

static void test_random_code(void)
{
    static const THMode modes[] = {
        TH_LONG, TH_COMPAT32, TH_PROT32, TH_PROT16, TH_REAL,
    };
    uint64_t cases = env_u64("TCG_FUZZ_CASES", 20000);
    uint64_t seed = env_u64("TCG_FUZZ_SEED", 1);
    TcgHarness *h = th_get();
    GRand *rand;
    uint8_t *snapshot = g_memdup2(h->ram, SNAPSHOT_BYTES);
    uint8_t code[CODE_BYTES];
    uint64_t retired = 0, shutdowns = 0, x87_changed = 0, fault_loops = 0, n;
    X86CPUExit why;
    uint8_t fx[512], fx_after[512];

    if (seed > G_MAXUINT32) {
        g_error("TCG_FUZZ_SEED must fit in 32 bits");
    }
    rand = g_rand_new_with_seed((guint32)seed);
    g_test_message("%" G_GUINT64_FORMAT " cases, seed %" G_GUINT64_FORMAT,
                   cases, seed);
    for (uint64_t i = 0; i < cases; i++) {
        THMode mode = modes[i % G_N_ELEMENTS(modes)];

        bool x87_heavy = i % 4 == 3;

        for (size_t b = 0; b < sizeof(code); b++) {
            code[b] = g_rand_int(rand);
            if (x87_heavy && g_rand_int_range(rand, 0, 3) == 0) {
                code[b] = g_rand_int_range(rand, 0, 9) == 8
                          ? 0x9b : 0xd8 + g_rand_int_range(rand, 0, 8);
            }
        }
        if (i % 4 == 1) {
            vector_code(rand, code, sizeof(code),
                        mode == TH_LONG);
        }
        for (size_t b = 0; b < sizeof(fx); b++) {
            fx[b] = g_rand_int(rand);
        }
        fx[24] = 0x80;                          /* MXCSR 0x1f80 */
        fx[25] = 0x1f;
        fx[26] = fx[27] = 0;
        th_write(h, 0, snapshot, SNAPSHOT_BYTES);
        /* A triple fault leaves an exit request behind: start clean. */
        __atomic_store_n(&h->env->interrupt_request, 0, __ATOMIC_SEQ_CST);
        th_set_mode(h, mode);
        if (i % 4 == 1) {
            /* SSE on in every mode, as an OS would turn it on. */
            h->env->cr[4] |= CR4_OSFXSR_MASK | CR4_OSXMMEXCPT_MASK;
        }
        g_assert_true(x86_fxrstor_image(h->env, fx, true));
        switch (g_rand_int_range(rand, 0, 16)) {
        case 0:
            h->env->cr[0] |= CR0_TS_MASK;
            break;
        case 1:
            h->env->cr[0] |= CR0_EM_MASK;
            break;
        default:
            break;
        }
        x86_fxsave_image(h->env, fx, true);
        th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code,
                 sizeof(code));
        /* th_run(), keeping why it stopped. */
        h->env->hflags &= ~HF_HALTED_MASK;
        why = x86_cpu_exec(h->cpu, BUDGET, &n);
        x86_fxsave_image(h->env, fx_after, true);
        /* FCW, FSW, the tags, ST(0..7): did x87 code run? */
        if (memcmp(fx, fx_after, 6) || memcmp(fx + 32, fx_after + 32, 128)) {
            x87_changed++;
        }
        retired += n;
        if (__atomic_load_n(&h->env->interrupt_request, __ATOMIC_SEQ_CST) &
            CPU_INTERRUPT_EXIT) {
            shutdowns++;
        } else if (why == X86_CPU_EXIT_BUDGET && n < BUDGET) {
            fault_loops++;          /* faults used the budget up */
        } else if (n < BUDGET && !(h->env->hflags & HF_HALTED_MASK)) {
            /* Neither the budget, a hlt nor a triple fault ended it. */
            g_error("case %" G_GUINT64_FORMAT " (mode %d) stopped after "
                    "%" G_GUINT64_FORMAT " instructions at rip 0x%"
                    G_GINT64_MODIFIER "x", i, mode, n, h->env->rip);
        }
    }
    g_test_message("%" G_GUINT64_FORMAT " cases ended the machine (triple "
                   "fault)", shutdowns);
    g_test_message("%" G_GUINT64_FORMAT " instructions retired", retired);
    g_test_message("%" G_GUINT64_FORMAT " cases faulted in a loop until the "
                   "budget", fault_loops);
    g_test_message("%" G_GUINT64_FORMAT " cases changed the x87 state",
                   x87_changed);
    /* Something ran: most cases execute a few instructions before a fault. */
    g_assert_cmpuint(retired, >, cases);
    g_free(snapshot);
    g_rand_free(rand);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/fuzz/random-code", test_random_code);
    return g_test_run();
}
