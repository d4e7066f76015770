/*
 * libFuzzer target: the software CPU running arbitrary bytes as code
 * (the bench of tests/lib/tcg-harness.c, as test-tcg-fuzz uses it),
 * from an x87 state the input also chooses. Input: byte 0 the mode
 * (TH_LONG ... TH_REAL) and CR0.TS/CR0.EM, bytes 1..128 the start of
 * an FXSAVE image (FCW, FSW, tags, opcode and pointers, MXCSR kept
 * valid, ST(0..5)), the rest (up to 64 bytes) the code. A crash, an
 * abort, a sanitizer report or a run that ends other than at a hlt,
 * a fault handler, the budget (instructions and faults) or a triple
 * fault is a bug. Byte 0's bit 6 turns SSE on (CR4.OSFXSR). The
 * dictionary holds the escapes of the two- and three-byte maps, their
 * mandatory prefixes and x87 opcodes, so the vector and x87 decoders
 * are reached.
 */
#include <string.h>

#include <glib.h>

#include "tcg-harness.h"

#define FX_BYTES        128
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
    uint8_t fx[512] = { 0 }, code[CODE_BYTES];
    size_t n;
    THMode mode;
    X86CPUExit why;
    uint64_t ran;

    if (!h) {
        h = th_get();
        snapshot = g_memdup2(h->ram, SNAPSHOT_BYTES);
    }
    if (size < 1) {
        return 0;
    }
    mode = modes[(data[0] & 7) % G_N_ELEMENTS(modes)];
    n = MIN(size - 1, FX_BYTES);
    memcpy(fx, data + 1, n);
    fx[24] = 0x80;                              /* MXCSR 0x1f80 */
    fx[25] = 0x1f;
    fx[26] = fx[27] = 0;
    memset(code, 0xf4, sizeof(code));           /* hlt after the input */
    if (size > 1 + FX_BYTES) {
        memcpy(code, data + 1 + FX_BYTES,
               MIN(size - 1 - FX_BYTES, sizeof(code)));
    }

    th_write(h, 0, snapshot, SNAPSHOT_BYTES);
    __atomic_store_n(&h->env->interrupt_request, 0, __ATOMIC_SEQ_CST);
    th_set_mode(h, mode);
    if (!x86_fxrstor_image(h->env, fx, true)) {
        abort();
    }
    if (data[0] & 0x10) {
        h->env->cr[0] |= CR0_TS_MASK;
    }
    if (data[0] & 0x20) {
        h->env->cr[0] |= CR0_EM_MASK;
    }
    if (data[0] & 0x40) {
        h->env->cr[4] |= CR4_OSFXSR_MASK | CR4_OSXMMEXCPT_MASK;
    }
    th_write(h, mode >= TH_PROT16 ? TH_CODE16 : TH_CODE, code, sizeof(code));
    h->env->hflags &= ~HF_HALTED_MASK;
    why = x86_cpu_exec(h->cpu, BUDGET, &ran);
    if (!(__atomic_load_n(&h->env->interrupt_request, __ATOMIC_SEQ_CST) &
          CPU_INTERRUPT_EXIT) && why != X86_CPU_EXIT_BUDGET &&
        ran < BUDGET && !(h->env->hflags & HF_HALTED_MASK)) {
        abort();
    }
    return 0;
}
