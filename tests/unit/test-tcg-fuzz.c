/*
 * Guest code the emulator must survive: random bytes run as code by the
 * software CPU, in each mode, must end in a fault handler, a hlt or the
 * instruction budget, never in a crash, an abort or a sanitizer report.
 * Whatever the bytes wrote to the descriptor tables, page tables or
 * handlers is put back before the next case.
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
    uint64_t retired = 0, shutdowns = 0, n;

    if (seed > G_MAXUINT32) {
        g_error("TCG_FUZZ_SEED must fit in 32 bits");
    }
    rand = g_rand_new_with_seed((guint32)seed);
    g_test_message("%" G_GUINT64_FORMAT " cases, seed %" G_GUINT64_FORMAT,
                   cases, seed);
    for (uint64_t i = 0; i < cases; i++) {
        THMode mode = modes[i % G_N_ELEMENTS(modes)];

        for (size_t b = 0; b < sizeof(code); b++) {
            code[b] = g_rand_int(rand);
        }
        th_write(h, 0, snapshot, SNAPSHOT_BYTES);
        /* A triple fault leaves an exit request behind: start clean. */
        __atomic_store_n(&h->env->interrupt_request, 0, __ATOMIC_SEQ_CST);
        th_set_mode(h, mode);
        th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code,
                 sizeof(code));
        n = th_run(h, BUDGET);
        retired += n;
        if (__atomic_load_n(&h->env->interrupt_request, __ATOMIC_SEQ_CST) &
            CPU_INTERRUPT_EXIT) {
            shutdowns++;
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
