/*
 * What the instruction semantics (ops-*.c) call for the system side
 * (mmu.c, excp.c, seg.c, misc.c). Every helper
 * runs with env->rip at the instruction being executed; next_rip is the
 * address of the following instruction where a helper needs it (it sets
 * env->rip itself when it transfers control). Helpers raise exceptions
 * with x86_raise_exception*() and so may not return. All privilege and
 * mode checks for these instructions (CPL, IOPL, CR4.TSD, ...) live on
 * the system side, not in the decoder.
 *
 * Return value convention: helpers that may change the mode, paging or
 * the code segment return true when the decoded block must end after
 * this instruction (the execution loop then looks the next block up
 * again).
 */
#ifndef TARGET_I386_HELPER_H
#define TARGET_I386_HELPER_H

#include "target/i386/cpu-state.h"

/* Segment registers and descriptor tables (seg.c). */
bool helper_load_seg(CPUX86State *env, int seg, uint16_t selector);
void helper_lgdt_lidt(CPUX86State *env, bool idt, uint64_t base,
                      uint32_t limit);
void helper_lldt(CPUX86State *env, uint16_t selector);
void helper_ltr(CPUX86State *env, uint16_t selector);
/* lar/lsl/verr/verw: *ok gives ZF; returns the lar/lsl value. */
uint32_t helper_lar(CPUX86State *env, uint16_t selector, bool *ok);
uint32_t helper_lsl(CPUX86State *env, uint16_t selector, bool *ok);
bool helper_verr_verw(CPUX86State *env, uint16_t selector, bool write);
/* Far transfers; opsize is 2, 4 or 8. All return "end the block". */
bool helper_ljmp(CPUX86State *env, uint16_t selector, uint64_t offset,
                 uint64_t next_rip);
bool helper_lcall(CPUX86State *env, uint16_t selector, uint64_t offset,
                  unsigned opsize, uint64_t next_rip);
bool helper_lret(CPUX86State *env, unsigned opsize, uint16_t imm);
bool helper_iret(CPUX86State *env, unsigned opsize);
bool helper_syscall(CPUX86State *env, uint64_t next_rip);
bool helper_sysret(CPUX86State *env, unsigned opsize);
bool helper_sysenter(CPUX86State *env);
bool helper_sysexit(CPUX86State *env, unsigned opsize);
void helper_swapgs(CPUX86State *env);

/* System instructions (misc.c). */
uint64_t helper_read_crN(CPUX86State *env, int reg);
bool helper_write_crN(CPUX86State *env, int reg, uint64_t value);
uint64_t helper_read_drN(CPUX86State *env, int reg);
void helper_write_drN(CPUX86State *env, int reg, uint64_t value);
bool helper_lmsw(CPUX86State *env, uint16_t value);
bool helper_clts(CPUX86State *env);
void helper_invlpg(CPUX86State *env, uint64_t linear);
void helper_cpuid(CPUX86State *env);             /* EAX/ECX in, 4 out */
void helper_rdmsr(CPUX86State *env);             /* ECX in, EDX:EAX out */
bool helper_wrmsr(CPUX86State *env);
void helper_rdtsc(CPUX86State *env);
void helper_rdtscp(CPUX86State *env);
void helper_rdpmc(CPUX86State *env);
/* XCR0 (ECX = 0) to and from EDX:EAX; #UD without CR4.OSXSAVE. */
void helper_xgetbv(CPUX86State *env);
void helper_xsetbv(CPUX86State *env);
/* Port I/O with the IOPL and TSS bitmap checks; size 1, 2 or 4. */
uint32_t helper_in(CPUX86State *env, uint16_t port, unsigned size);
void helper_out(CPUX86State *env, uint16_t port, uint32_t value,
                unsigned size);
/* Privilege check for cli/sti/pushf/popf/iopl-sensitive ops: #GP. */
void helper_check_iopl(CPUX86State *env);
/* CPL 0 check: #GP(0) otherwise. */
void helper_check_cpl0(CPUX86State *env);
/* hlt: sets rip to next_rip and halts the vCPU; ends the block. */
bool helper_hlt(CPUX86State *env, uint64_t next_rip);
/* sti/mov ss/pop ss: one-instruction interrupt shadow. */
void helper_set_inhibit_irq(CPUX86State *env);
void helper_pause(CPUX86State *env);
/* wbinvd, invd, clflush, *fence: nothing to do but checks. */
void helper_wbinvd(CPUX86State *env);

#endif
