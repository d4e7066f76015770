/*
 * libFuzzer target: the software CPU running arbitrary guest code. The
 * first input byte picks the mode (64-bit, compatibility, 32-bit, 16-bit
 * protected, real), the rest (up to 64 bytes, then hlt) is the code,
 * run for at most 2000 instructions on the unit tests' bench
 * (tests/unit/tcg-harness.h), whose tables, handlers and page tables
 * are put back before each input. The dictionary holds the escapes of
 * the two- and three-byte maps and their mandatory prefixes, so the
 * vector decoder is reached. Anything but an ordinary end (a fault
 * handler's hlt, the budget, a triple fault) that crashes, trips a
 * sanitizer or hangs is a bug.
 */
#include <string.h>

#include <glib.h>

#include "../unit/tcg-harness.h"

#define CODE_BYTES      64
#define BUDGET          2000
#define SNAPSHOT_BYTES  0x80000u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const THMode modes[] = {
        TH_LONG, TH_COMPAT32, TH_PROT32, TH_PROT16, TH_REAL,
    };
    static TcgHarness *h;
    static uint8_t *snapshot;
    uint8_t code[CODE_BYTES + 1];
    THMode mode;
    size_t n;

    if (!h) {
        h = th_get();
        snapshot = g_memdup2(h->ram, SNAPSHOT_BYTES);
    }
    if (size < 1) {
        return 0;
    }
    mode = modes[data[0] % G_N_ELEMENTS(modes)];
    n = MIN(size - 1, (size_t)CODE_BYTES);
    memcpy(code, data + 1, n);
    code[n] = 0xf4;
    th_write(h, 0, snapshot, SNAPSHOT_BYTES);
    __atomic_store_n(&h->env->interrupt_request, 0, __ATOMIC_SEQ_CST);
    th_set_mode(h, mode);
    x86_fpu_reset(h->env);
    th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code, n + 1);
    th_run(h, BUDGET);
    return 0;
}
