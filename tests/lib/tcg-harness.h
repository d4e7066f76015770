/*
 * A software-CPU test bench for unit tests: one vCPU on guest RAM mapped
 * at guest-physical 0, set up in long mode, 32-bit protected mode or
 * real mode at CPL 0, with a GDT and an IDT (IVT in real mode) whose
 * every vector leads to a hlt, so an exception shows up as rip ==
 * th_handler(vector) + 1 after the run.
 *
 * Guest-physical layout:
 *   0x0000   real-mode IVT         0x1000  GDT
 *   0x2000   64-bit IDT            0x3000  handlers: hlt at 16 * vector
 *   0x4000   32-bit IDT            0x8000-0xffff page tables
 *   0x10000-0x7ffff page tables   0x10000 16-bit code (TH_CODE16)
 *   0x80000  stack top (default)   0x100000 code (TH_CODE)
 * Long mode identity-maps the first 32 MiB with 2 MiB pages; th_map()
 * adds 4 KiB mappings elsewhere.
 */
#ifndef TESTS_UNIT_TCG_HARNESS_H
#define TESTS_UNIT_TCG_HARNESS_H

#include "target/i386/cpu-state.h"

#define TH_RAM_SIZE     (32u << 20)
#define TH_GDT          0x1000u
#define TH_IDT64        0x2000u
#define TH_HANDLERS     0x3000u
#define TH_IDT32        0x4000u
#define TH_STACK        0x80000u
#define TH_CODE         0x100000u   /* long and 32-bit modes */
#define TH_CODE16       0x10000u    /* 16-bit modes: CS base, ip 0 */
#define TH_DATA         0x200000u

/* GDT selectors. */
#define TH_SEL_CODE64   0x08
#define TH_SEL_DATA     0x10
#define TH_SEL_CODE32   0x18
#define TH_SEL_CODE16   0x20
#define TH_SEL_DATA16   0x28

/* TH_COMPAT32: long mode (the same page tables) with a 32-bit CS. */
typedef enum THMode {
    TH_LONG, TH_COMPAT32, TH_PROT32, TH_PROT16, TH_REAL
} THMode;

typedef struct TcgHarness {
    X86CPU *cpu;
    CPUX86State *env;
    uint8_t *ram;
    uint64_t pt_next;           /* next free page-table page */
    uint64_t pml4;
} TcgHarness;

/* The bench (created once per process; later calls return it). */
TcgHarness *th_get(void);
/*
 * Reset the vCPU into mode at CPL 0, rsp = TH_STACK, running from
 * TH_CODE (long, 32-bit) or TH_CODE16 (16-bit protected and real mode,
 * where CS's base is TH_CODE16 and ip 0).
 */
void th_set_mode(TcgHarness *h, THMode mode);
/* Map [va, va + len) to [pa, ...) with 4 KiB pages (long mode tables). */
void th_map(TcgHarness *h, uint64_t va, uint64_t pa, uint64_t len);
/* Copy code or data into guest RAM, dropping decoded code there. */
void th_write(TcgHarness *h, uint64_t pa, const void *p, size_t n);
/* Run until hlt (or budget instructions); returns instructions run. */
uint64_t th_run(TcgHarness *h, uint64_t budget);
/* The address right after the hlt of vector's handler. */
static inline uint64_t th_after_handler(int vector)
{
    return TH_HANDLERS + 16 * vector + 1;
}

#endif
