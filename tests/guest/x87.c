/*
 * x87: the FPU with known answers, printed as bits so every accelerator
 * prints the same: the state after fninit, arithmetic under each
 * precision and rounding control, square root, loads and stores of the
 * integer, BCD and real formats, the integer stores in each rounding
 * mode, compares into FSW and EFLAGS (ordered and unordered), fxam
 * classes, fprem, fxtract, fscale, fyl2x, the environment image, #NM
 * under CR0.TS (lazy FPU switching: the handler clears TS and the
 * instruction runs again) and #MF at fwait after an unmasked zero
 * divide. Transcendentals whose last bits differ between processors
 * and emulators (fsin, fpatan, f2xm1) are printed as singles.
 */
#include "guest.h"

const char guest_name[] = "x87";

#define VEC_NM  7
#define VEC_MF  16

typedef struct __attribute__((packed)) F80 {
    uint64_t mant;
    uint16_t sexp;
} F80;

static void print_f80(const char *what, const F80 *v)
{
    printf("x87: %s %04x:%016lx\n", what, v->sexp, v->mant);
}

static uint16_t fnstsw(void)
{
    uint16_t sw;

    asm volatile("fnstsw %0" : "=m"(sw));
    return sw;
}

static void fldcw(uint16_t cw)
{
    asm volatile("fldcw %0" : : "m"(cw));
}

/* ST(0) = a / b under control word cw; stored as 80 bits. */
static void divide(const char *what, uint16_t cw, int32_t a, int32_t b)
{
    F80 r;

    asm volatile("fninit\n\tfldcw %1\n\tfildl %2\n\tfidivl %3\n\tfstpt %0"
                 : "=m"(r) : "m"(cw), "m"(a), "m"(b));
    print_f80(what, &r);
}

/* fistp of v (as num/den) under rounding control rc. */
static int64_t fist_rc(unsigned rc, int32_t num, int32_t den)
{
    uint16_t cw = 0x037f | rc << 10;
    int64_t r;

    asm volatile("fninit\n\tfldcw %1\n\tfildl %2\n\tfidivl %3\n\tfistpll %0"
                 : "=m"(r) : "m"(cw), "m"(num), "m"(den));
    return r;
}

static void test_init(void)
{
    uint16_t cw, sw;

    asm volatile("fninit\n\tfnstcw %0\n\tfnstsw %1" : "=m"(cw), "=m"(sw));
    printf("x87: after fninit fcw %04x fsw %04x\n", cw, sw);
}

static void test_arith(void)
{
    F80 r;
    int32_t two = 2;

    divide("1/3 pc=64 rc=near", 0x037f, 1, 3);
    divide("1/3 pc=53 rc=near", 0x027f, 1, 3);
    divide("1/3 pc=24 rc=near", 0x007f, 1, 3);
    divide("1/3 pc=64 rc=up", 0x0b7f, 1, 3);
    divide("-1/3 pc=64 rc=down", 0x077f, -1, 3);
    divide("2/3 pc=64 rc=chop", 0x0f7f, 2, 3);
    asm volatile("fninit\n\tfildl %1\n\tfsqrt\n\tfstpt %0"
                 : "=m"(r) : "m"(two));
    print_f80("sqrt(2)", &r);
    asm volatile("fninit\n\tfldpi\n\tfld1\n\tfadd %%st(1), %%st\n\t"
                 "fsubr %%st(1), %%st\n\tfstpt %0" : "=m"(r));
    print_f80("pi-(1+pi)", &r);
    asm volatile("fninit\n\tfldl2e\n\tfldln2\n\tfmulp\n\tfstpt %0"
                 : "=m"(r));
    print_f80("log2(e)*ln(2)", &r);
}

static void test_formats(void)
{
    int64_t big = 123456789012345ll, back;
    uint8_t bcd[10];
    int16_t w;
    int32_t l;
    uint32_t f;
    uint64_t d;

    asm volatile("fninit\n\tfildll %1\n\tfbstp %0" : "=m"(bcd) : "m"(big));
    printf("x87: fbstp %02x%02x%02x%02x%02x%02x%02x%02x%02x%02x\n",
           bcd[9], bcd[8], bcd[7], bcd[6], bcd[5], bcd[4], bcd[3], bcd[2],
           bcd[1], bcd[0]);
    bcd[9] = 0x80;
    asm volatile("fninit\n\tfbld %1\n\tfistpll %0" : "=m"(back) : "m"(bcd));
    printf("x87: fbld negated %ld\n", back);
    asm volatile("fninit\n\tfldpi\n\tfsts %0\n\tfstpl %1"
                 : "=m"(f), "=m"(d));
    printf("x87: pi as m32 %08x m64 %016lx\n", f, d);
    asm volatile("fninit\n\tflds %2\n\tfistps %0\n\tfldl %3\n\tfistpl %1"
                 : "=m"(w), "=m"(l) : "m"(f), "m"(d));
    printf("x87: pi as m16int %d m32int %d\n", w, l);
    for (unsigned rc = 0; rc < 4; rc++) {
        printf("x87: 5/2 rc=%u fistp %ld, -5/2 %ld, 7/2 %ld\n", rc,
               fist_rc(rc, 5, 2), fist_rc(rc, -5, 2), fist_rc(rc, 7, 2));
    }
    asm volatile("fninit\n\tfildl %1\n\tfidivl %2\n\tfisttpl %0"
                 : "=m"(l) : "m"((int32_t){ -17 }), "m"((int32_t){ 4 }));
    printf("x87: fisttp -17/4 %d\n", l);
}

static void test_compare(void)
{
    uint16_t sw;
    uint64_t flags;
    int32_t two = 2, three = 3;

    asm volatile("fninit\n\tfildl %2\n\tficoml %3\n\tfnstsw %0\n\t"
                 "fildl %3\n\tfcomip %%st(1), %%st\n\tpushfq\n\tpopq %1"
                 : "=m"(sw), "=r"(flags) : "m"(two), "m"(three) : "cc");
    printf("x87: 2 vs 3 fsw codes %04x, 3 vs 2 fcomi flags %03lx\n",
           sw & 0x4700, flags & 0x8d5);
    asm volatile("fninit\n\tfldz\n\tfldz\n\tfdivrp\n\tfld1\n\t"
                 "fucomi %%st(1), %%st\n\tpushfq\n\tpopq %1\n\t"
                 "fucompp\n\tfnstsw %0"
                 : "=m"(sw), "=r"(flags) : : "cc");
    printf("x87: 1 vs NaN fucomi flags %03lx, fucompp codes %04x, ie %u\n",
           flags & 0x8d5, sw & 0x4700, sw & 1);
}

static void test_fxam(void)
{
    static const struct {
        const char *what;
        F80 v;
    } vals[] = {
        { "+0", { 0, 0 } },
        { "-inf", { 1ull << 63, 0xffff } },
        { "qnan", { 3ull << 62, 0x7fff } },
        { "denormal", { 1, 0 } },
        { "normal", { 1ull << 63, 0x3fff } },
        { "unsupported", { 1, 0x3fff } },
    };

    for (unsigned i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
        uint16_t sw;

        asm volatile("fninit\n\tfldt %1\n\tfxam\n\tfnstsw %0"
                     : "=m"(sw) : "m"(vals[i].v));
        printf("x87: fxam %s %04x\n", vals[i].what, sw & 0x4700);
    }
    printf("x87: fxam empty %04x\n", ({
        uint16_t sw;
        asm volatile("fninit\n\tfxam\n\tfnstsw %0" : "=m"(sw));
        sw & 0x4500;
    }));
}

static void test_functions(void)
{
    F80 r, e;
    uint32_t s;
    uint16_t sw;
    int32_t ten = 10, three = 3, eight = 8;

    asm volatile("fninit\n\tfildl %3\n\tfildl %2\n\tfprem\n\tfnstsw %1\n\t"
                 "fstpt %0" : "=m"(r), "=m"(sw) : "m"(ten), "m"(three));
    print_f80("fprem 10 3", &r);
    printf("x87: fprem codes %04x\n", sw & 0x4700);
    asm volatile("fninit\n\tfldpi\n\tfxtract\n\tfstpt %0\n\tfstpt %1"
                 : "=m"(r), "=m"(e));
    print_f80("fxtract(pi) significand", &r);
    print_f80("fxtract(pi) exponent", &e);
    asm volatile("fninit\n\tfildl %1\n\tfldpi\n\tfscale\n\tfstpt %0"
                 : "=m"(r) : "m"(three));
    print_f80("pi*2^3", &r);
    asm volatile("fninit\n\tfld1\n\tfildl %1\n\tfyl2x\n\tfstpt %0"
                 : "=m"(r) : "m"(eight));
    print_f80("log2(8)", &r);
    asm volatile("fninit\n\tfldpi\n\tfidivl %1\n\tfsin\n\tfstps %0"
                 : "=m"(s) : "m"((int32_t){ 6 }));
    printf("x87: sin(pi/6) as m32 %08x\n", s);
    asm volatile("fninit\n\tfld1\n\tfld1\n\tfpatan\n\tfstps %0" : "=m"(s));
    printf("x87: atan(1) as m32 %08x\n", s);
    asm volatile("fninit\n\tfld1\n\tfchs\n\tf2xm1\n\tfstps %0" : "=m"(s));
    printf("x87: 2^-1-1 as m32 %08x\n", s);
    asm volatile("fninit\n\tfldz\n\tfcos\n\tfstpt %0" : "=m"(r));
    print_f80("cos(0)", &r);
}

static void test_env(void)
{
    uint16_t env[14];

    /* 16-bit layout (66 prefix): FCW, FSW, FTW, then pointers. */
    asm volatile("fninit\n\tfld1\n\tfldz\n\t.byte 0x66\n\tfnstenv %0"
                 : "=m"(env));
    printf("x87: fnstenv16 fcw %04x fsw %04x ftw %04x, fcw after %04x\n",
           env[0], env[1], env[2], ({
               uint16_t cw;
               asm volatile("fnstcw %0" : "=m"(cw));
               cw;
           }));
    asm volatile("fninit");
}

static struct {
    unsigned nm, mf;
    uint16_t mf_fsw;
} seen;

static void on_nm(struct irq_frame *f)
{
    uint64_t cr0;

    seen.nm++;
    /* Lazy switching: clear TS and run the instruction again. */
    asm volatile("mov %%cr0, %0" : "=r"(cr0));
    asm volatile("mov %0, %%cr0" : : "r"(cr0 & ~8ull));
}

static volatile uint64_t resume_rip;

static void on_mf(struct irq_frame *f)
{
    uint16_t sw;

    seen.mf++;
    asm volatile("fnstsw %0\n\tfnclex" : "=m"(sw));
    seen.mf_fsw = sw;
    f->rip = resume_rip;
}

static void test_faults(void)
{
    uint64_t cr0;

    idt_set_handler(VEC_NM, on_nm);
    idt_set_handler(VEC_MF, on_mf);
    asm volatile("fninit\n\tmov %%cr0, %0" : "=r"(cr0));
    asm volatile("mov %0, %%cr0" : : "r"(cr0 | 8));
    asm volatile("fld1");
    printf("x87: #NM %u under CR0.TS, then fld1 ran: top %u\n", seen.nm,
           (fnstsw() >> 11) & 7);
    fldcw(0x037b);                              /* ZE unmasked */
    asm volatile("leaq 1f(%%rip), %%rax\n\tmovq %%rax, resume_rip(%%rip)\n\t"
                 "fld1\n\tfldz\n\tfdivr %%st(1), %%st\n\tfwait\n1:"
                 : : : "rax", "memory");
    printf("x87: #MF %u at fwait after 1/0, fsw %04x\n", seen.mf,
           seen.mf_fsw & 0xb8bf);
    asm volatile("fninit\n\tfwait");
    printf("x87: no #MF after fninit: %u\n", seen.mf);
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    uint32_t a, b, c, d;

    asm volatile("cpuid" : "=a"(a), "=b"(b), "=c"(c), "=d"(d) : "a"(1));
    printf("x87: cpuid fpu %u\n", d & 1);
    test_init();
    test_arith();
    test_formats();
    test_compare();
    test_fxam();
    test_functions();
    test_env();
    test_faults();
    guest_pass();
}
