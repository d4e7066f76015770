/*
 * Differential test of the software CPU against the host CPU: random
 * cases of every supported non-privileged instruction form
 * (tcg-diff-gen.c) run natively and in the interpreter, in 64-bit mode
 * at the same virtual addresses, and must leave the same registers,
 * rip, defined flags and memory.
 *
 * The native run: a code page holds a prologue that loads every
 * register and RFLAGS from a table, the case's bytes, and an epilogue
 * that stores them back. The guest run: the same bytes followed by hlt
 * at the same address, under page tables mapping the code page and the
 * scratch memory at their host addresses.
 *
 * The same again for 32-bit code in compatibility mode: natively a far
 * call to Linux's 32-bit user code segment (0x23) runs the case between
 * a 32-bit preamble (loading ESP) and epilogue, which far-returns; the
 * guest runs it under a 32-bit code segment in long mode. Only the low
 * halves of EAX..EDI are compared there.
 *
 * The interpreter runs with the host's vendor row (vendor.h), so where
 * AMD and Intel differ it must do what the host does. Not compared:
 * flags the manuals leave undefined after each form (the generator's
 * flag_mask: AF after logic ops, shifts and multiplies; SF/ZF/PF after
 * mul and imul; OF after multi-bit shifts and rotates; all after div),
 * and the destination of bsf/bsr with a zero source where the vendor
 * leaves it undefined (Intel). Both vendors' processors have run it:
 * the note of the change that added this says which.
 *
 * The x87/SSE state goes in and comes out as an FXSAVE image: natively
 * fxrstor/fxsave around the case (the test's own state saved and put
 * back), in the interpreter x86_fxrstor_image()/x86_fxsave_image(); the
 * case says which parts are compared (DiffCase.fx_cmp).
 *
 * A case may leave SIMD floating-point exceptions unmasked: natively
 * the SIGFPE (on an alternate stack, so the scratch memory stays as the
 * case left it) hands over the registers and the FXSAVE image at the
 * fault; the guest must take #XM at the same instruction with the same
 * state, its exception frame (below the case's stack) aside.
 *
 * TCG_DIFF_CASES sets the number of cases per class and mode (default
 * 20000), TCG_DIFF_SEED the random seed; the test prints both.
 * TCG_DIFF_CLASS runs one class (int, x87, sse, ...). TCG_DIFF_TRACE
 * prints each case before it runs (to find one that crashes).
 */
#include <cpuid.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include <glib.h>

#include "tcg-diff.h"
#include "tcg-harness.h"

/* Guest-physical pages behind the shared virtual addresses. */
#define GUEST_CODE_PA   0x400000u
#define GUEST_SCR_PA    0x410000u

/* Where things are in the native code page. */
#define STUB32_OFF      0x300u          /* 64-bit entry of a 32-bit run */
#define CODE32_OFF      0x500u          /* the 32-bit code */
#define FLAG_STACK      0xc80u          /* stack of the 32-bit pushf */
#define FRAME_STACK     0xd00u          /* the far call's frame */
#define FAR_PTR         0xd00u          /* m16:32 of the 32-bit code */
#define USER32_CS       0x23            /* Linux's __USER32_CS */
#define DATA_OFF        0xe00u
#define IN_REGS         (DATA_OFF + 0x00)
#define IN_FLAGS        (DATA_OFF + 0x80)
#define OUT_REGS        (DATA_OFF + 0x88)
#define OUT_FLAGS       (DATA_OFF + 0x108)
#define HOST_RSP        (DATA_OFF + 0x110)
/* FXSAVE images on the second page (natively only). */
#define IN_FX           0x1000u
#define OUT_FX          0x1200u
#define HOST_FX         0x1400u         /* the test process's own state */
#define NCODE_SIZE      0x2000u

static uint8_t *ncode;          /* the native code page, RWX */
static uint8_t *nscr;           /* the native scratch memory */
static uint8_t *reference;      /* scratch contents at a case's start */
static unsigned insn_off;       /* where a case's bytes go (64-bit) */
static unsigned insn32_off;     /* and in 32-bit code */
static unsigned host_features;
static const X86Vendor *host_vendor;
/* CPUID.07H.0:EBX[13]: the host stores the x87 CS and DS selectors as 0. */
static bool host_fcs_fds_zero;
static char host_brand[49];

static void *map_fixed(uint64_t va, size_t len, int prot)
{
    void *p = mmap((void *)va, len, prot,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

    if (p == MAP_FAILED || p != (void *)va) {
        g_error("cannot map 0x%" G_GINT64_MODIFIER "x for the native bench",
                va);
    }
    return p;
}

/* The host's vendor row and its brand string ("AMD EPYC", ...). */
static void read_host_cpu(void)
{
    uint32_t regs[4];
    char vendor[X86_VENDOR_STRING_LEN + 1];

    __cpuid(0, regs[X86_R_EAX], regs[X86_R_EBX], regs[X86_R_ECX],
            regs[X86_R_EDX]);
    x86_vendor_string(regs, vendor);
    host_vendor = x86_vendor_from_string(vendor);
    __cpuid_count(7, 0, regs[0], regs[1], regs[2], regs[3]);
    host_fcs_fds_zero = regs[X86_R_EBX] >> 13 & 1;
    for (unsigned i = 0; i < 3; i++) {
        __cpuid(0x80000002 + i, regs[0], regs[1], regs[2], regs[3]);
        memcpy(host_brand + 16 * i, regs, 16);
    }
    host_brand[48] = '\0';
    g_strstrip(host_brand);
    printf("# host CPU: %s (%s), modelled as %s\n", host_brand, vendor,
           host_vendor->name);
}

static unsigned host_cpu_features(void)
{
    unsigned a, b, c, d, f = 0;

    __cpuid(1, a, b, c, d);
    f |= c & (1u << 23) ? DIFF_HOST_POPCNT : 0;
    f |= c & (1u << 22) ? DIFF_HOST_MOVBE : 0;
    f |= c & (1u << 13) ? DIFF_HOST_CX16 : 0;
    f |= c & (1u << 0) ? DIFF_HOST_SSE3 : 0;
    f |= c & (1u << 9) ? DIFF_HOST_SSSE3 : 0;
    f |= c & (1u << 19) ? DIFF_HOST_SSE41 : 0;
    f |= c & (1u << 20) ? DIFF_HOST_SSE42 : 0;
    f |= c & (1u << 25) ? DIFF_HOST_AES : 0;
    f |= c & (1u << 1) ? DIFF_HOST_PCLMUL : 0;
    __cpuid_count(7, 0, a, b, c, d);
    f |= b & (1u << 3) ? DIFF_HOST_TZCNT : 0;
    __cpuid(0x80000001, a, b, c, d);
    f |= c & (1u << 5) ? DIFF_HOST_LZCNT : 0;
    return f;
}

/* --- the native bench ----------------------------------------------------- */

/* A SIGFPE in the case: the state at the fault (see the header). */
static sigjmp_buf fpe_jmp;
static volatile bool fpe_armed;
static uint8_t fpe_fx[512] __attribute__((aligned(16)));
static uint64_t fpe_regs[16], fpe_rip;
static uint32_t fpe_flags;

static void on_sigfpe(int sig, siginfo_t *si, void *ucv)
{
    static const int gregs[16] = {
        REG_RAX, REG_RCX, REG_RDX, REG_RBX, REG_RSP, REG_RBP, REG_RSI,
        REG_RDI, REG_R8, REG_R9, REG_R10, REG_R11, REG_R12, REG_R13,
        REG_R14, REG_R15,
    };
    ucontext_t *uc = ucv;

    if (!fpe_armed) {
        signal(SIGFPE, SIG_DFL);
        raise(SIGFPE);
        return;
    }
    for (unsigned i = 0; i < 16; i++) {
        fpe_regs[i] = uc->uc_mcontext.gregs[gregs[i]];
    }
    fpe_rip = uc->uc_mcontext.gregs[REG_RIP];
    fpe_flags = uc->uc_mcontext.gregs[REG_EFL];
    memcpy(fpe_fx, uc->uc_mcontext.fpregs, 512);
    siglongjmp(fpe_jmp, 1);
}

static void setup_sigfpe(void)
{
    static uint8_t altstack[1 << 16] __attribute__((aligned(16)));
    stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
    struct sigaction sa = { .sa_sigaction = on_sigfpe,
                            .sa_flags = SA_SIGINFO | SA_ONSTACK };

    sigaltstack(&ss, NULL);
    sigemptyset(&sa.sa_mask);
    sigaction(SIGFPE, &sa, NULL);
}

static unsigned pos;

static void b(uint8_t v)
{
    ncode[pos++] = v;
}

/* op with a rip-relative operand at data offset off: REX, opcode, modrm. */
static void riprel(uint8_t rex, uint8_t op, unsigned reg, unsigned off)
{
    int32_t d;

    if (rex) {
        b(rex);
    }
    b(op);
    b(((reg & 7) << 3) | 5);
    d = (int32_t)off - (int32_t)(pos + 4);
    memcpy(&ncode[pos], &d, 4);
    pos += 4;
}

/* fxsave64 (ext 0) or fxrstor64 (ext 1) of the image at offset off. */
static void fx64(unsigned ext, unsigned off)
{
    int32_t d;

    b(0x48);
    b(0x0f);
    b(0xae);
    b(ext << 3 | 5);
    d = (int32_t)off - (int32_t)(pos + 4);
    memcpy(&ncode[pos], &d, 4);
    pos += 4;
}

static void emit_prologue(void)
{
    pos = 0;
    b(0x53);                                    /* push rbx */
    b(0x55);                                    /* push rbp */
    b(0x41), b(0x54);                           /* push r12..r15 */
    b(0x41), b(0x55);
    b(0x41), b(0x56);
    b(0x41), b(0x57);
    riprel(0x48, 0x89, R_ESP, HOST_RSP);        /* mov [host_rsp], rsp */
    fx64(0, HOST_FX);
    fx64(1, IN_FX);
    riprel(0, 0xff, 6, IN_FLAGS);               /* push [in_flags] */
    b(0x9d);                                    /* popfq */
    for (unsigned r = 0; r < 16; r++) {
        if (r != R_ESP) {
            riprel(r >= 8 ? 0x4c : 0x48, 0x8b, r, IN_REGS + 8 * r);
        }
    }
    riprel(0x48, 0x8b, R_ESP, IN_REGS + 8 * R_ESP);
    insn_off = pos;
}

/* op with an absolute 32-bit operand (32-bit code): op, modrm, disp32. */
static void abs32(uint8_t op, unsigned reg, unsigned off)
{
    uint32_t a = DIFF_CODE_VA + off;

    b(op);
    b(((reg & 7) << 3) | 5);
    memcpy(&ncode[pos], &a, 4);
    pos += 4;
}

/* The 64-bit entry of 32-bit runs, and the 32-bit preamble. */
static void emit_stub32(void)
{
    uint32_t target = DIFF_CODE_VA + CODE32_OFF;
    uint16_t sel = USER32_CS;

    memcpy(&ncode[FAR_PTR], &target, 4);
    memcpy(&ncode[FAR_PTR + 4], &sel, 2);
    pos = STUB32_OFF;
    b(0x53);
    b(0x55);
    b(0x41), b(0x54);
    b(0x41), b(0x55);
    b(0x41), b(0x56);
    b(0x41), b(0x57);
    riprel(0x48, 0x89, R_ESP, HOST_RSP);
    fx64(0, HOST_FX);
    fx64(1, IN_FX);
    riprel(0, 0xff, 6, IN_FLAGS);
    b(0x9d);
    for (unsigned r = 0; r < 16; r++) {
        if (r != R_ESP) {
            riprel(r >= 8 ? 0x4c : 0x48, 0x8b, r, IN_REGS + 8 * r);
        }
    }
    b(0xbc);                                    /* mov $frame, %esp */
    target = DIFF_CODE_VA + FRAME_STACK;
    memcpy(&ncode[pos], &target, 4);
    pos += 4;
    riprel(0, 0xff, 3, FAR_PTR);                /* lcall *far_ptr */
    riprel(0x48, 0x8b, R_ESP, HOST_RSP);        /* back in 64-bit code */
    fx64(1, HOST_FX);
    b(0xfc);
    b(0x41), b(0x5f);
    b(0x41), b(0x5e);
    b(0x41), b(0x5d);
    b(0x41), b(0x5c);
    b(0x5d);
    b(0x5b);
    b(0xc3);
    g_assert_cmpuint(pos, <, CODE32_OFF);
    pos = CODE32_OFF;
    /* 64-bit processes run with null DS and ES: 32-bit code needs them. */
    b(0x6a), b(0x2b);                           /* push $__USER32_DS */
    b(0x1f);                                    /* pop %ds */
    b(0x6a), b(0x2b);
    b(0x07);                                    /* pop %es */
    abs32(0x8b, R_ESP, IN_REGS + 8 * R_ESP);    /* mov in_esp, %esp */
    insn32_off = pos;
}

static void emit_epilogue32(void)
{
    uint32_t v;

    for (unsigned r = 0; r < 8; r++) {
        abs32(0x89, r, OUT_REGS + 8 * r);
    }
    b(0xbc);                                    /* mov $flag_stack, %esp */
    v = DIFF_CODE_VA + FLAG_STACK;
    memcpy(&ncode[pos], &v, 4);
    pos += 4;
    b(0x9c);                                    /* pushf */
    b(0x58);                                    /* pop %eax */
    abs32(0x89, R_EAX, OUT_FLAGS);
    b(0x0f);                                    /* fxsave out_fx */
    abs32(0xae, 0, OUT_FX);
    b(0xbc);                                    /* mov $frame - 8, %esp */
    v = DIFF_CODE_VA + FRAME_STACK - 8;
    memcpy(&ncode[pos], &v, 4);
    pos += 4;
    b(0xcb);                                    /* lret */
    g_assert_cmpuint(pos, <, FLAG_STACK - 0x40);
}

static void emit_epilogue(void)
{
    for (unsigned r = 0; r < 16; r++) {
        riprel(r >= 8 ? 0x4c : 0x48, 0x89, r, OUT_REGS + 8 * r);
    }
    riprel(0x48, 0x8b, R_ESP, HOST_RSP);        /* mov rsp, [host_rsp] */
    b(0x9c);                                    /* pushfq */
    b(0x58);                                    /* pop rax */
    riprel(0x48, 0x89, R_EAX, OUT_FLAGS);
    fx64(0, OUT_FX);
    fx64(1, HOST_FX);
    b(0xfc);                                    /* cld, as the ABI wants */
    b(0x41), b(0x5f);
    b(0x41), b(0x5e);
    b(0x41), b(0x5d);
    b(0x41), b(0x5c);
    b(0x5d);
    b(0x5b);
    b(0xc3);
    g_assert_cmpuint(pos, <, DATA_OFF);
}

/* Returns true when the case raised SIGFPE (*fault_rip: where). */
static bool run_native(const DiffCase *c, bool code32, uint64_t *regs,
                       uint32_t *flags, uint8_t *fx, uint64_t *fault_rip)
{
    uint64_t f = c->flags | IF_MASK | EFLAGS_FIXED;

    pos = code32 ? insn32_off : insn_off;
    memcpy(&ncode[pos], c->code, c->len);
    pos += c->len;
    if (code32) {
        emit_epilogue32();
    } else {
        emit_epilogue();
    }
    memcpy(&ncode[IN_REGS], c->regs, 16 * 8);
    memcpy(&ncode[IN_FLAGS], &f, 8);
    memcpy(&ncode[IN_FX], c->fx, 512);
    memset(&ncode[OUT_REGS], 0, 16 * 8 + 8);
    __builtin___clear_cache((char *)ncode, (char *)ncode + X86_PAGE_SIZE);
    if (sigsetjmp(fpe_jmp, 1)) {
        /* Back from the handler: the test's own x87/SSE state again. */
        fpe_armed = false;
        asm volatile("fxrstor64 %0" : : "m"(ncode[HOST_FX]));
        memcpy(regs, fpe_regs, sizeof(fpe_regs));
        *flags = fpe_flags;
        memcpy(fx, fpe_fx, 512);
        *fault_rip = fpe_rip;
        return true;
    }
    fpe_armed = true;
    ((void (*)(void))(ncode + (code32 ? STUB32_OFF : 0)))();
    fpe_armed = false;
    memcpy(regs, &ncode[OUT_REGS], 16 * 8);
    memcpy(&f, &ncode[OUT_FLAGS], 8);
    *flags = f;
    memcpy(fx, &ncode[OUT_FX], 512);
    return false;
}

/* --- the guest run ---------------------------------------------------------- */

static void run_guest(TcgHarness *h, const DiffCase *c, bool code32,
                      unsigned off, uint64_t *regs, uint32_t *flags,
                      uint64_t *rip, uint8_t *fx)
{
    CPUX86State *env = h->env;
    uint8_t code[sizeof(c->code) + 1];

    memcpy(code, c->code, c->len);
    code[c->len] = 0xf4;                        /* hlt */
    th_write(h, GUEST_CODE_PA + off, code, c->len + 1);
    memcpy(env->regs, c->regs, sizeof(env->regs));
    env->rip = DIFF_CODE_VA + off;
    x86_set_eflags(env, c->flags | IF_MASK | EFLAGS_FIXED, ~0u);
    env->exception_index = -1;
    g_assert(x86_fxrstor_image(env, c->fx, true));
    th_run(h, 1000);
    x86_fxsave_image(env, fx, !code32);
    memcpy(regs, env->regs, sizeof(env->regs));
    *flags = x86_get_eflags(env);
    *rip = env->rip;
}

/* --- comparing ---------------------------------------------------------------- */

static void print_case(const DiffCase *c)
{
    GString *s = g_string_new(NULL);

    g_string_append_printf(s, "case %s:", c->name);
    for (unsigned i = 0; i < c->len; i++) {
        g_string_append_printf(s, " %02x", c->code[i]);
    }
    g_string_append_printf(s, "\n  flags in 0x%x, compared 0x%x\n",
                           c->flags, c->flag_mask);
    for (unsigned i = 0; i < 16; i++) {
        g_string_append_printf(s, "  r%-2u 0x%016" G_GINT64_MODIFIER "x%s",
                               i, c->regs[i], i % 4 == 3 ? "\n" : "");
    }
    for (unsigned i = 0; i < c->npoke; i++) {
        g_string_append_printf(s, "  mem[0x%" G_GINT64_MODIFIER "x]/%u = "
                               "0x%" G_GINT64_MODIFIER "x\n",
                               c->poke[i].addr, c->poke[i].size,
                               c->poke[i].value);
    }
    if (c->fx_cmp) {
        uint16_t fcw, fsw;

        memcpy(&fcw, c->fx, 2);
        memcpy(&fsw, c->fx + 2, 2);
        g_string_append_printf(s, "  fcw 0x%04x fsw 0x%04x ftw 0x%02x\n",
                               fcw, fsw, c->fx[4]);
        for (unsigned i = 0; i < 8; i++) {
            uint64_t m;
            uint16_t e;

            memcpy(&m, c->fx + 32 + 16 * i, 8);
            memcpy(&e, c->fx + 40 + 16 * i, 2);
            g_string_append_printf(s, "  st%u %04x:%016" G_GINT64_MODIFIER
                                   "x%s", i, e, m, i % 2 ? "\n" : "");
        }
    }
    fprintf(stderr, "%s", s->str);
    g_string_free(s, true);
}

/* Compare the x87/SSE state of the two runs as the case asks. */
static bool check_fx(const DiffCase *c, const uint8_t *nfx,
                     const uint8_t *gfx, bool code32)
{
    static const struct {
        unsigned what;
        const char *name;
        unsigned off, len, count;
    } parts[] = {
        { DIFF_FX_FCW, "fcw", 0, 2, 1 },
        { DIFF_FX_FSW, "fsw", 2, 2, 1 },
        { DIFF_FX_FTW, "ftw", 4, 1, 1 },
        { DIFF_FX_MXCSR, "mxcsr", 24, 4, 1 },
        { DIFF_FX_ST, "st", 32, 10, 8 },
        { DIFF_FX_XMM, "xmm", 160, 16, 16 },
    };
    unsigned top = (nfx[3] >> 3) & 7;
    bool ok = true;

    for (unsigned p = 0; p < G_N_ELEMENTS(parts); p++) {
        if (!(c->fx_cmp & parts[p].what)) {
            continue;
        }
        for (unsigned i = 0; i < parts[p].count; i++) {
            unsigned off = parts[p].off + i * (parts[p].count > 1 ? 16 : 0);

            /* 32-bit code has XMM0..7 only (its fxsave stores no more). */
            if (parts[p].what == DIFF_FX_XMM && code32 && i >= 8) {
                break;
            }

            /* ST(i) is compared only where the native tag says valid. */
            if (parts[p].what == DIFF_FX_ST &&
                !((nfx[4] >> ((top + i) & 7)) & 1)) {
                continue;
            }
            if (memcmp(nfx + off, gfx + off, parts[p].len)) {
                GString *s = g_string_new(NULL);

                g_string_append_printf(s, "%s", parts[p].name);
                if (parts[p].count > 1) {
                    g_string_append_printf(s, "%u", i);
                }
                g_string_append(s, ": native");
                for (unsigned k = parts[p].len; k-- > 0;) {
                    g_string_append_printf(s, "%02x", nfx[off + k]);
                }
                g_string_append(s, ", tcg ");
                for (unsigned k = parts[p].len; k-- > 0;) {
                    g_string_append_printf(s, "%02x", gfx[off + k]);
                }
                fprintf(stderr, "%s\n", s->str);
                g_string_free(s, true);
                ok = false;
            }
        }
    }
    return ok;
}

static unsigned failures;
static uint64_t xm_cases;       /* cases that raised SIGFPE / #XM */
static bool trace;              /* TCG_DIFF_TRACE: print every case first */

static bool check_case(TcgHarness *h, const DiffCase *c, bool code32)
{
    unsigned off = code32 ? insn32_off : insn_off;
    uint64_t nregs[16], gregs[16], grip, fault_rip = 0;
    uint8_t nfx[512] __attribute__((aligned(16)));
    uint8_t gfx[512];
    uint32_t nflags, gflags;
    uint64_t want_rip = DIFF_CODE_VA + off + c->len + 1;
    uint8_t *gscr = h->ram + GUEST_SCR_PA;
    bool ok = true;

    /* Same memory going in. */
    for (unsigned i = 0; i < c->npoke; i++) {
        uint64_t off = c->poke[i].addr - DIFF_SCR_VA;

        memcpy(nscr + off, &c->poke[i].value, c->poke[i].size);
        memcpy(gscr + off, &c->poke[i].value, c->poke[i].size);
    }
    if (trace) {
        print_case(c);
    }
    bool faulted = run_native(c, code32, nregs, &nflags, nfx, &fault_rip);

    run_guest(h, c, code32, off, gregs, &gflags, &grip, gfx);
    if (faulted) {
        xm_cases++;
        /*
         * #XM: the guest's frame (rip, cs, rflags, rsp, ss) is below the
         * case's stack; it must name the native fault's rip and flags.
         */
        uint64_t frame = DIFF_STACK - 40 - DIFF_SCR_VA, frip, fflags;

        memcpy(&frip, gscr + frame, 8);
        memcpy(&fflags, gscr + frame + 16, 8);
        want_rip = th_after_handler(19);
        if (grip == want_rip && frip != fault_rip) {
            fprintf(stderr, "#XM at 0x%" G_GINT64_MODIFIER "x, natively at "
                    "0x%" G_GINT64_MODIFIER "x\n", frip, fault_rip);
            ok = false;
        }
        gflags = fflags;
        gregs[R_ESP] = nregs[R_ESP];
        memcpy(nscr + frame, gscr + frame, 40);
    }
    if (code32) {
        /* Only the 32-bit registers exist there. */
        for (unsigned i = 0; i < 16; i++) {
            nregs[i] = i < 8 ? (uint32_t)nregs[i] : 0;
            gregs[i] = i < 8 ? (uint32_t)gregs[i] : 0;
        }
    }

    if (grip != want_rip) {
        fprintf(stderr, "rip: native 0x%" G_GINT64_MODIFIER "x, tcg 0x%"
                G_GINT64_MODIFIER "x (exception %d)\n", want_rip - 1,
                grip - 1, (int)((grip - 1 - TH_HANDLERS) / 16));
        ok = false;
    }
    for (unsigned i = 0; i < 16; i++) {
        if ((c->reg_mask & (1u << i)) && nregs[i] != gregs[i]) {
            fprintf(stderr, "r%u: native 0x%016" G_GINT64_MODIFIER "x, tcg "
                    "0x%016" G_GINT64_MODIFIER "x\n", i, nregs[i], gregs[i]);
            ok = false;
        }
    }
    if ((nflags ^ gflags) & c->flag_mask) {
        fprintf(stderr, "flags: native 0x%x, tcg 0x%x (compared 0x%x)\n",
                nflags, gflags, c->flag_mask);
        ok = false;
    }
    if (!check_fx(c, nfx, gfx, code32)) {
        ok = false;
    }
    if (memcmp(nscr, gscr, DIFF_SCR_SIZE)) {
        for (unsigned i = 0; i < DIFF_SCR_SIZE; i++) {
            if (nscr[i] != gscr[i]) {
                fprintf(stderr, "memory 0x%llx: native "
                        "%02x, tcg %02x\n", (unsigned long long)DIFF_SCR_VA + i, nscr[i],
                        gscr[i]);
                break;
            }
        }
        ok = false;
    }
    if (!ok) {
        print_case(c);
        failures++;
    }
    /* Back to the reference contents for the next case. */
    memcpy(nscr, reference, DIFF_SCR_SIZE);
    memcpy(gscr, reference, DIFF_SCR_SIZE);
    return ok;
}

static void randomize_reference(TcgHarness *h, DiffRand *r)
{
    for (unsigned i = 0; i < DIFF_SCR_SIZE; i += 8) {
        uint64_t v = diff_rand(r);

        memcpy(reference + i, &v, 8);
    }
    memcpy(nscr, reference, DIFF_SCR_SIZE);
    memcpy(h->ram + GUEST_SCR_PA, reference, DIFF_SCR_SIZE);
}

static void setup_bench(TcgHarness *h)
{
    if (ncode) {
        return;
    }
    ncode = map_fixed(DIFF_CODE_VA, NCODE_SIZE,
                      PROT_READ | PROT_WRITE | PROT_EXEC);
    nscr = map_fixed(DIFF_SCR_VA, DIFF_SCR_SIZE, PROT_READ | PROT_WRITE);
    reference = g_malloc(DIFF_SCR_SIZE);
    setup_sigfpe();
    trace = getenv("TCG_DIFF_TRACE") != NULL;
    host_features = host_cpu_features();
    read_host_cpu();
    h->cpu->vendor = host_vendor;
    h->cpu->fcs_fds_zero = host_fcs_fds_zero;
    emit_prologue();
    emit_stub32();
    th_set_mode(h, TH_LONG);
    th_map(h, DIFF_CODE_VA, GUEST_CODE_PA, X86_PAGE_SIZE);
    th_map(h, DIFF_SCR_VA, GUEST_SCR_PA, DIFF_SCR_SIZE);
}

/*
 * The classes of cases, each a test of its own per mode; TCG_DIFF_CLASS
 * (a name) runs only that class.
 */
typedef struct DiffClass {
    const char *name;
    DiffGenFn *gen;
} DiffClass;

static const DiffClass classes[] = {
    { "int", diff_gen },
    { "x87", diff_gen_x87 },
    { "sse", diff_gen_sse },
};

typedef struct DiffRun {
    const DiffClass *cls;
    bool code32;
} DiffRun;

static void run_cases(gconstpointer data)
{
    const DiffRun *run = data;
    bool code32 = run->code32;
    TcgHarness *h = th_get();
    const char *env_cases = getenv("TCG_DIFF_CASES");
    const char *env_seed = getenv("TCG_DIFF_SEED");
    uint64_t ncases = env_cases ? g_ascii_strtoull(env_cases, NULL, 0)
                                : 20000;
    DiffRand r = { env_seed ? g_ascii_strtoull(env_seed, NULL, 0)
                            : 0x243f6a8885a308d3ull };
    uint64_t seed = r.s, done;

    setup_bench(h);
    th_set_mode(h, code32 ? TH_COMPAT32 : TH_LONG);
    randomize_reference(h, &r);
    failures = 0;
    xm_cases = 0;
    for (done = 0; done < ncases && failures < 20; done++) {
        DiffCase c;

        if (done % 4096 == 4095) {
            randomize_reference(h, &r);
        }
        run->cls->gen(&c, &r, DIFF_CODE_VA + (code32 ? insn32_off : insn_off),
                      host_features, host_vendor, code32);
        check_case(h, &c, code32);
    }
    printf("# tcg host differential, %s, %s code: %" G_GUINT64_FORMAT
           " cases (%" G_GUINT64_FORMAT " raising #XM), %u failures (seed "
           "0x%" G_GINT64_MODIFIER "x, host features 0x%x, %s: %s)\n",
           run->cls->name, code32 ? "32-bit" : "64-bit", done, xm_cases,
           failures, seed, host_features, host_vendor->name, host_brand);
    g_assert_cmpuint(failures, ==, 0);
}

int main(int argc, char **argv)
{
    static DiffRun runs[G_N_ELEMENTS(classes)][2];
    const char *only = getenv("TCG_DIFF_CLASS");

    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(classes); i++) {
        if (only && strcmp(only, classes[i].name)) {
            continue;
        }
        for (unsigned m = 0; m < 2; m++) {
            g_autofree char *path = g_strdup_printf(
                "/tcg/diff/%s/host-%s", classes[i].name,
                m ? "32bit" : "64bit");

            runs[i][m] = (DiffRun) { &classes[i], m };
            g_test_add_data_func(path, &runs[i][m], run_cases);
        }
    }
    return g_test_run();
}
