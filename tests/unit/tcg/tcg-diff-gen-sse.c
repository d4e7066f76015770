/*
 * Random cases of the vector instructions (MMX, SSE .. SSE4.2, AES-NI,
 * PCLMULQDQ) for the
 * host differential tester (tcg-diff.h): one table row per form, kept
 * apart from the emulator's decoder tables (target/i386/tcg/ops-sse*.c)
 * so that it checks them rather than repeats them. Each case starts
 * from a random x87/SSE state: XMM and MMX registers and memory
 * operands filled with the value kind the form reads (edge floats:
 * zeros, denormals, infinities, QNaNs, SNaNs, the integer conversion
 * limits; edge integers), MXCSR with a random rounding mode, DAZ, FTZ
 * and sticky flags (on AMD hosts sometimes MM, the misaligned-SSE mode,
 * with aligned forms at any address), and in a quarter of the 64-bit
 * cases some exceptions unmasked: natively a SIGFPE, which the tester
 * turns into the state at the fault, in the emulator #XM.
 * All XMM registers and MXCSR are compared, the x87 side too for MMX
 * forms, plus the general registers, flags and memory as for every
 * class. Forms the host lacks (SSE3, SSSE3, SSE4.1, SSE4.2, AES ...) are not
 * generated. TCG_DIFF_FORM=NAME limits the cases to the forms whose
 * name starts with NAME.
 */
#include <string.h>

#include "target/i386/cpu-state.h"
#include "tcg-diff.h"

/* Register files and value kinds. */
enum { X, M, G };                       /* xmm, mmx, general register */
enum { VI, VS, VD };                    /* integers, floats, doubles */

/* SseForm.flags */
#define A       0x01u                   /* 16-byte memory operand aligned */
#define I       0x02u                   /* imm8 */
#define NR      0x04u                   /* memory form only */
#define NM      0x08u                   /* register form only */
#define W       0x10u                   /* REX.W picks a 64-bit GPR */
#define GRP     0x20u                   /* modrm.reg is SseForm.digit */
#define I8      0x40u                   /* imm8 of 0..7 (compare predicates) */
#define I16     0x80u                   /* imm8 of 0..15 (rounding) */
#define AA      0x100u                  /* aligned even in misaligned-SSE mode */

typedef struct SseForm {
    const char *name;
    uint8_t pfx, map, op;
    uint8_t reg, rm;
    uint8_t msize;                      /* memory operand bytes */
    uint16_t flags;
    uint8_t digit;
    uint8_t vals;
    unsigned feat;                      /* DIFF_HOST_* needed */
} SseForm;

#define S3      DIFF_HOST_SSE3
#define SS3     DIFF_HOST_SSSE3
#define S41     DIFF_HOST_SSE41
#define S42     DIFF_HOST_SSE42

/* An opcode's MMX form (no prefix) and SSE2 form (66). */
#define P2(n, op_, vals_)                                                \
    { n, 0, 0, op_, M, M, 8, 0, 0, vals_, 0 },                           \
    { n, 0x66, 0, op_, X, X, 16, A, 0, vals_, 0 }
/* The four arithmetic forms ps, pd, ss, sd. */
#define A4(n, op_)                                                       \
    { n "ps", 0, 0, op_, X, X, 16, A, 0, VS, 0 },                        \
    { n "pd", 0x66, 0, op_, X, X, 16, A, 0, VD, 0 },                     \
    { n "ss", 0xf3, 0, op_, X, X, 4, 0, 0, VS, 0 },                      \
    { n "sd", 0xf2, 0, op_, X, X, 8, 0, 0, VD, 0 }
#define SSSE3(n, op_)                                                    \
    { n, 0, 1, op_, M, M, 8, 0, 0, VI, SS3 },                            \
    { n, 0x66, 1, op_, X, X, 16, A, 0, VI, SS3 }
#define SSE41(n, map_, op_, msz, fl, vals_)                              \
    { n, 0x66, map_, op_, X, X, msz, fl, 0, vals_, S41 }

static const SseForm forms[] = {
    /* moves */
    { "movups", 0, 0, 0x10, X, X, 16, 0, 0, VS, 0 },
    { "movupd", 0x66, 0, 0x10, X, X, 16, 0, 0, VD, 0 },
    { "movss", 0xf3, 0, 0x10, X, X, 4, 0, 0, VS, 0 },
    { "movsd", 0xf2, 0, 0x10, X, X, 8, 0, 0, VD, 0 },
    { "movups-st", 0, 0, 0x11, X, X, 16, 0, 0, VS, 0 },
    { "movupd-st", 0x66, 0, 0x11, X, X, 16, 0, 0, VD, 0 },
    { "movss-st", 0xf3, 0, 0x11, X, X, 4, 0, 0, VS, 0 },
    { "movsd-st", 0xf2, 0, 0x11, X, X, 8, 0, 0, VD, 0 },
    { "movhlps/movlps", 0, 0, 0x12, X, X, 8, 0, 0, VS, 0 },
    { "movlpd", 0x66, 0, 0x12, X, X, 8, NR, 0, VD, 0 },
    { "movddup", 0xf2, 0, 0x12, X, X, 8, 0, 0, VD, S3 },
    { "movsldup", 0xf3, 0, 0x12, X, X, 16, A, 0, VS, S3 },
    { "movlps-st", 0, 0, 0x13, X, X, 8, NR, 0, VS, 0 },
    { "movlpd-st", 0x66, 0, 0x13, X, X, 8, NR, 0, VD, 0 },
    { "movlhps/movhps", 0, 0, 0x16, X, X, 8, 0, 0, VS, 0 },
    { "movhpd", 0x66, 0, 0x16, X, X, 8, NR, 0, VD, 0 },
    { "movshdup", 0xf3, 0, 0x16, X, X, 16, A, 0, VS, S3 },
    { "movhps-st", 0, 0, 0x17, X, X, 8, NR, 0, VS, 0 },
    { "movhpd-st", 0x66, 0, 0x17, X, X, 8, NR, 0, VD, 0 },
    { "movaps", 0, 0, 0x28, X, X, 16, A | AA, 0, VS, 0 },
    { "movapd", 0x66, 0, 0x28, X, X, 16, A | AA, 0, VD, 0 },
    { "movaps-st", 0, 0, 0x29, X, X, 16, A | AA, 0, VS, 0 },
    { "movapd-st", 0x66, 0, 0x29, X, X, 16, A | AA, 0, VD, 0 },
    { "movntps", 0, 0, 0x2b, X, X, 16, A | AA | NR, 0, VS, 0 },
    { "movntpd", 0x66, 0, 0x2b, X, X, 16, A | AA | NR, 0, VD, 0 },
    { "movmskps", 0, 0, 0x50, G, X, 0, NM, 0, VS, 0 },
    { "movmskpd", 0x66, 0, 0x50, G, X, 0, NM, 0, VD, 0 },
    { "movd-mm", 0, 0, 0x6e, M, G, 4, W, 0, VI, 0 },
    { "movd-xmm", 0x66, 0, 0x6e, X, G, 4, W, 0, VI, 0 },
    { "movd-mm-st", 0, 0, 0x7e, M, G, 4, W, 0, VI, 0 },
    { "movd-xmm-st", 0x66, 0, 0x7e, X, G, 4, W, 0, VI, 0 },
    { "movq", 0xf3, 0, 0x7e, X, X, 8, 0, 0, VI, 0 },
    { "movq-st", 0x66, 0, 0xd6, X, X, 8, 0, 0, VI, 0 },
    { "movq2dq", 0xf3, 0, 0xd6, X, M, 0, NM, 0, VI, 0 },
    { "movdq2q", 0xf2, 0, 0xd6, M, X, 0, NM, 0, VI, 0 },
    { "movq-mm", 0, 0, 0x6f, M, M, 8, 0, 0, VI, 0 },
    { "movdqa", 0x66, 0, 0x6f, X, X, 16, A | AA, 0, VI, 0 },
    { "movdqu", 0xf3, 0, 0x6f, X, X, 16, 0, 0, VI, 0 },
    { "movq-mm-st", 0, 0, 0x7f, M, M, 8, 0, 0, VI, 0 },
    { "movdqa-st", 0x66, 0, 0x7f, X, X, 16, A | AA, 0, VI, 0 },
    { "movdqu-st", 0xf3, 0, 0x7f, X, X, 16, 0, 0, VI, 0 },
    { "movntq", 0, 0, 0xe7, M, M, 8, NR, 0, VI, 0 },
    { "movntdq", 0x66, 0, 0xe7, X, X, 16, A | AA | NR, 0, VI, 0 },
    { "lddqu", 0xf2, 0, 0xf0, X, X, 16, NR, 0, VI, S3 },
    { "movnti", 0, 0, 0xc3, G, G, 4, NR | W, 0, VI, 0 },
    { "pmovmskb-mm", 0, 0, 0xd7, G, M, 0, NM, 0, VI, 0 },
    { "pmovmskb", 0x66, 0, 0xd7, G, X, 0, NM, 0, VI, 0 },
    { "movntdqa", 0x66, 1, 0x2a, X, X, 16, A | AA | NR, 0, VI, S41 },
    /* integer SIMD */
    P2("punpcklbw", 0x60, VI), P2("punpcklwd", 0x61, VI),
    P2("punpckldq", 0x62, VI), P2("packsswb", 0x63, VI),
    P2("pcmpgtb", 0x64, VI), P2("pcmpgtw", 0x65, VI),
    P2("pcmpgtd", 0x66, VI), P2("packuswb", 0x67, VI),
    P2("punpckhbw", 0x68, VI), P2("punpckhwd", 0x69, VI),
    P2("punpckhdq", 0x6a, VI), P2("packssdw", 0x6b, VI),
    { "punpcklqdq", 0x66, 0, 0x6c, X, X, 16, A, 0, VI, 0 },
    { "punpckhqdq", 0x66, 0, 0x6d, X, X, 16, A, 0, VI, 0 },
    { "pshufw", 0, 0, 0x70, M, M, 8, I, 0, VI, 0 },
    { "pshufd", 0x66, 0, 0x70, X, X, 16, A | I, 0, VI, 0 },
    { "pshufhw", 0xf3, 0, 0x70, X, X, 16, A | I, 0, VI, 0 },
    { "pshuflw", 0xf2, 0, 0x70, X, X, 16, A | I, 0, VI, 0 },
    { "psrlw-imm-mm", 0, 0, 0x71, 0, M, 0, NM | I | GRP, 2, VI, 0 },
    { "psraw-imm-mm", 0, 0, 0x71, 0, M, 0, NM | I | GRP, 4, VI, 0 },
    { "psllw-imm-mm", 0, 0, 0x71, 0, M, 0, NM | I | GRP, 6, VI, 0 },
    { "psrlw-imm", 0x66, 0, 0x71, 0, X, 0, NM | I | GRP, 2, VI, 0 },
    { "psraw-imm", 0x66, 0, 0x71, 0, X, 0, NM | I | GRP, 4, VI, 0 },
    { "psllw-imm", 0x66, 0, 0x71, 0, X, 0, NM | I | GRP, 6, VI, 0 },
    { "psrld-imm-mm", 0, 0, 0x72, 0, M, 0, NM | I | GRP, 2, VI, 0 },
    { "psrad-imm-mm", 0, 0, 0x72, 0, M, 0, NM | I | GRP, 4, VI, 0 },
    { "pslld-imm-mm", 0, 0, 0x72, 0, M, 0, NM | I | GRP, 6, VI, 0 },
    { "psrld-imm", 0x66, 0, 0x72, 0, X, 0, NM | I | GRP, 2, VI, 0 },
    { "psrad-imm", 0x66, 0, 0x72, 0, X, 0, NM | I | GRP, 4, VI, 0 },
    { "pslld-imm", 0x66, 0, 0x72, 0, X, 0, NM | I | GRP, 6, VI, 0 },
    { "psrlq-imm-mm", 0, 0, 0x73, 0, M, 0, NM | I | GRP, 2, VI, 0 },
    { "psllq-imm-mm", 0, 0, 0x73, 0, M, 0, NM | I | GRP, 6, VI, 0 },
    { "psrlq-imm", 0x66, 0, 0x73, 0, X, 0, NM | I | GRP, 2, VI, 0 },
    { "psrldq", 0x66, 0, 0x73, 0, X, 0, NM | I | GRP, 3, VI, 0 },
    { "psllq-imm", 0x66, 0, 0x73, 0, X, 0, NM | I | GRP, 6, VI, 0 },
    { "pslldq", 0x66, 0, 0x73, 0, X, 0, NM | I | GRP, 7, VI, 0 },
    P2("pcmpeqb", 0x74, VI), P2("pcmpeqw", 0x75, VI),
    P2("pcmpeqd", 0x76, VI),
    { "pinsrw-mm", 0, 0, 0xc4, M, G, 2, I, 0, VI, 0 },
    { "pinsrw", 0x66, 0, 0xc4, X, G, 2, I, 0, VI, 0 },
    { "pextrw-mm", 0, 0, 0xc5, G, M, 0, NM | I, 0, VI, 0 },
    { "pextrw", 0x66, 0, 0xc5, G, X, 0, NM | I, 0, VI, 0 },
    P2("psrlw", 0xd1, VI), P2("psrld", 0xd2, VI), P2("psrlq", 0xd3, VI),
    P2("paddq", 0xd4, VI), P2("pmullw", 0xd5, VI),
    P2("psubusb", 0xd8, VI), P2("psubusw", 0xd9, VI),
    P2("pminub", 0xda, VI), P2("pand", 0xdb, VI), P2("paddusb", 0xdc, VI),
    P2("paddusw", 0xdd, VI), P2("pmaxub", 0xde, VI), P2("pandn", 0xdf, VI),
    P2("pavgb", 0xe0, VI), P2("psraw", 0xe1, VI), P2("psrad", 0xe2, VI),
    P2("pavgw", 0xe3, VI), P2("pmulhuw", 0xe4, VI), P2("pmulhw", 0xe5, VI),
    P2("psubsb", 0xe8, VI), P2("psubsw", 0xe9, VI), P2("pminsw", 0xea, VI),
    P2("por", 0xeb, VI), P2("paddsb", 0xec, VI), P2("paddsw", 0xed, VI),
    P2("pmaxsw", 0xee, VI), P2("pxor", 0xef, VI), P2("psllw", 0xf1, VI),
    P2("pslld", 0xf2, VI), P2("psllq", 0xf3, VI), P2("pmuludq", 0xf4, VI),
    P2("pmaddwd", 0xf5, VI), P2("psadbw", 0xf6, VI), P2("psubb", 0xf8, VI),
    P2("psubw", 0xf9, VI), P2("psubd", 0xfa, VI), P2("psubq", 0xfb, VI),
    P2("paddb", 0xfc, VI), P2("paddw", 0xfd, VI), P2("paddd", 0xfe, VI),
    /* floating point */
    { "unpcklps", 0, 0, 0x14, X, X, 16, A, 0, VS, 0 },
    { "unpcklpd", 0x66, 0, 0x14, X, X, 16, A, 0, VD, 0 },
    { "unpckhps", 0, 0, 0x15, X, X, 16, A, 0, VS, 0 },
    { "unpckhpd", 0x66, 0, 0x15, X, X, 16, A, 0, VD, 0 },
    { "cvtpi2ps", 0, 0, 0x2a, X, M, 8, 0, 0, VI, 0 },
    { "cvtpi2pd", 0x66, 0, 0x2a, X, M, 8, 0, 0, VI, 0 },
    { "cvtsi2ss", 0xf3, 0, 0x2a, X, G, 4, W, 0, VI, 0 },
    { "cvtsi2sd", 0xf2, 0, 0x2a, X, G, 4, W, 0, VI, 0 },
    { "cvttps2pi", 0, 0, 0x2c, M, X, 8, 0, 0, VS, 0 },
    { "cvttpd2pi", 0x66, 0, 0x2c, M, X, 16, A, 0, VD, 0 },
    { "cvttss2si", 0xf3, 0, 0x2c, G, X, 4, W, 0, VS, 0 },
    { "cvttsd2si", 0xf2, 0, 0x2c, G, X, 8, W, 0, VD, 0 },
    { "cvtps2pi", 0, 0, 0x2d, M, X, 8, 0, 0, VS, 0 },
    { "cvtpd2pi", 0x66, 0, 0x2d, M, X, 16, A, 0, VD, 0 },
    { "cvtss2si", 0xf3, 0, 0x2d, G, X, 4, W, 0, VS, 0 },
    { "cvtsd2si", 0xf2, 0, 0x2d, G, X, 8, W, 0, VD, 0 },
    { "ucomiss", 0, 0, 0x2e, X, X, 4, 0, 0, VS, 0 },
    { "ucomisd", 0x66, 0, 0x2e, X, X, 8, 0, 0, VD, 0 },
    { "comiss", 0, 0, 0x2f, X, X, 4, 0, 0, VS, 0 },
    { "comisd", 0x66, 0, 0x2f, X, X, 8, 0, 0, VD, 0 },
    A4("sqrt", 0x51),
    { "rsqrtps", 0, 0, 0x52, X, X, 16, A, 0, VS, 0 },
    { "rsqrtss", 0xf3, 0, 0x52, X, X, 4, 0, 0, VS, 0 },
    { "rcpps", 0, 0, 0x53, X, X, 16, A, 0, VS, 0 },
    { "rcpss", 0xf3, 0, 0x53, X, X, 4, 0, 0, VS, 0 },
    { "andps", 0, 0, 0x54, X, X, 16, A, 0, VS, 0 },
    { "andpd", 0x66, 0, 0x54, X, X, 16, A, 0, VD, 0 },
    { "andnps", 0, 0, 0x55, X, X, 16, A, 0, VS, 0 },
    { "andnpd", 0x66, 0, 0x55, X, X, 16, A, 0, VD, 0 },
    { "orps", 0, 0, 0x56, X, X, 16, A, 0, VS, 0 },
    { "orpd", 0x66, 0, 0x56, X, X, 16, A, 0, VD, 0 },
    { "xorps", 0, 0, 0x57, X, X, 16, A, 0, VS, 0 },
    { "xorpd", 0x66, 0, 0x57, X, X, 16, A, 0, VD, 0 },
    A4("add", 0x58), A4("mul", 0x59),
    { "cvtps2pd", 0, 0, 0x5a, X, X, 8, 0, 0, VS, 0 },
    { "cvtpd2ps", 0x66, 0, 0x5a, X, X, 16, A, 0, VD, 0 },
    { "cvtss2sd", 0xf3, 0, 0x5a, X, X, 4, 0, 0, VS, 0 },
    { "cvtsd2ss", 0xf2, 0, 0x5a, X, X, 8, 0, 0, VD, 0 },
    { "cvtdq2ps", 0, 0, 0x5b, X, X, 16, A, 0, VI, 0 },
    { "cvtps2dq", 0x66, 0, 0x5b, X, X, 16, A, 0, VS, 0 },
    { "cvttps2dq", 0xf3, 0, 0x5b, X, X, 16, A, 0, VS, 0 },
    A4("sub", 0x5c), A4("min", 0x5d), A4("div", 0x5e), A4("max", 0x5f),
    { "haddpd", 0x66, 0, 0x7c, X, X, 16, A, 0, VD, S3 },
    { "haddps", 0xf2, 0, 0x7c, X, X, 16, A, 0, VS, S3 },
    { "hsubpd", 0x66, 0, 0x7d, X, X, 16, A, 0, VD, S3 },
    { "hsubps", 0xf2, 0, 0x7d, X, X, 16, A, 0, VS, S3 },
    { "cmpps", 0, 0, 0xc2, X, X, 16, A | I8, 0, VS, 0 },
    { "cmppd", 0x66, 0, 0xc2, X, X, 16, A | I8, 0, VD, 0 },
    { "cmpss", 0xf3, 0, 0xc2, X, X, 4, I8, 0, VS, 0 },
    { "cmpsd", 0xf2, 0, 0xc2, X, X, 8, I8, 0, VD, 0 },
    { "shufps", 0, 0, 0xc6, X, X, 16, A | I, 0, VS, 0 },
    { "shufpd", 0x66, 0, 0xc6, X, X, 16, A | I, 0, VD, 0 },
    { "addsubpd", 0x66, 0, 0xd0, X, X, 16, A, 0, VD, S3 },
    { "addsubps", 0xf2, 0, 0xd0, X, X, 16, A, 0, VS, S3 },
    { "cvttpd2dq", 0x66, 0, 0xe6, X, X, 16, A, 0, VD, 0 },
    { "cvtdq2pd", 0xf3, 0, 0xe6, X, X, 8, 0, 0, VI, 0 },
    { "cvtpd2dq", 0xf2, 0, 0xe6, X, X, 16, A, 0, VD, 0 },
    /* SSSE3 */
    SSSE3("pshufb", 0x00), SSSE3("phaddw", 0x01), SSSE3("phaddd", 0x02),
    SSSE3("phaddsw", 0x03), SSSE3("pmaddubsw", 0x04),
    SSSE3("phsubw", 0x05), SSSE3("phsubd", 0x06), SSSE3("phsubsw", 0x07),
    SSSE3("psignb", 0x08), SSSE3("psignw", 0x09), SSSE3("psignd", 0x0a),
    SSSE3("pmulhrsw", 0x0b), SSSE3("pabsb", 0x1c), SSSE3("pabsw", 0x1d),
    SSSE3("pabsd", 0x1e),
    { "palignr-mm", 0, 2, 0x0f, M, M, 8, I, 0, VI, SS3 },
    { "palignr", 0x66, 2, 0x0f, X, X, 16, A | I, 0, VI, SS3 },
    /* SSE4.1, SSE4.2 */
    SSE41("pblendvb", 1, 0x10, 16, A, VI),
    SSE41("blendvps", 1, 0x14, 16, A, VS),
    SSE41("blendvpd", 1, 0x15, 16, A, VD),
    SSE41("ptest", 1, 0x17, 16, A, VI),
    SSE41("pmovsxbw", 1, 0x20, 8, 0, VI),
    SSE41("pmovsxbd", 1, 0x21, 4, 0, VI),
    SSE41("pmovsxbq", 1, 0x22, 2, 0, VI),
    SSE41("pmovsxwd", 1, 0x23, 8, 0, VI),
    SSE41("pmovsxwq", 1, 0x24, 4, 0, VI),
    SSE41("pmovsxdq", 1, 0x25, 8, 0, VI),
    SSE41("pmuldq", 1, 0x28, 16, A, VI),
    SSE41("pcmpeqq", 1, 0x29, 16, A, VI),
    SSE41("packusdw", 1, 0x2b, 16, A, VI),
    SSE41("pmovzxbw", 1, 0x30, 8, 0, VI),
    SSE41("pmovzxbd", 1, 0x31, 4, 0, VI),
    SSE41("pmovzxbq", 1, 0x32, 2, 0, VI),
    SSE41("pmovzxwd", 1, 0x33, 8, 0, VI),
    SSE41("pmovzxwq", 1, 0x34, 4, 0, VI),
    SSE41("pmovzxdq", 1, 0x35, 8, 0, VI),
    { "pcmpgtq", 0x66, 1, 0x37, X, X, 16, A, 0, VI, S42 },
    SSE41("pminsb", 1, 0x38, 16, A, VI),
    SSE41("pminsd", 1, 0x39, 16, A, VI),
    SSE41("pminuw", 1, 0x3a, 16, A, VI),
    SSE41("pminud", 1, 0x3b, 16, A, VI),
    SSE41("pmaxsb", 1, 0x3c, 16, A, VI),
    SSE41("pmaxsd", 1, 0x3d, 16, A, VI),
    SSE41("pmaxuw", 1, 0x3e, 16, A, VI),
    SSE41("pmaxud", 1, 0x3f, 16, A, VI),
    SSE41("pmulld", 1, 0x40, 16, A, VI),
    SSE41("phminposuw", 1, 0x41, 16, A, VI),
    SSE41("roundps", 2, 0x08, 16, A | I16, VS),
    SSE41("roundpd", 2, 0x09, 16, A | I16, VD),
    SSE41("roundss", 2, 0x0a, 4, I16, VS),
    SSE41("roundsd", 2, 0x0b, 8, I16, VD),
    SSE41("blendps", 2, 0x0c, 16, A | I, VS),
    SSE41("blendpd", 2, 0x0d, 16, A | I, VD),
    SSE41("pblendw", 2, 0x0e, 16, A | I, VI),
    { "pextrb", 0x66, 2, 0x14, X, G, 1, I, 0, VI, S41 },
    { "pextrw-41", 0x66, 2, 0x15, X, G, 2, I, 0, VI, S41 },
    { "pextrd/q", 0x66, 2, 0x16, X, G, 4, I | W, 0, VI, S41 },
    { "extractps", 0x66, 2, 0x17, X, G, 4, I, 0, VS, S41 },
    { "pinsrb", 0x66, 2, 0x20, X, G, 1, I, 0, VI, S41 },
    SSE41("insertps", 2, 0x21, 4, I, VS),
    { "pinsrd/q", 0x66, 2, 0x22, X, G, 4, I | W, 0, VI, S41 },
    SSE41("dpps", 2, 0x40, 16, A | I, VS),
    SSE41("dppd", 2, 0x41, 16, A | I, VD),
    SSE41("mpsadbw", 2, 0x42, 16, A | I, VI),
    { "pcmpestrm", 0x66, 2, 0x60, X, X, 16, I | W, 0, VI, S42 },
    { "pcmpestri", 0x66, 2, 0x61, X, X, 16, I | W, 0, VI, S42 },
    { "pcmpistrm", 0x66, 2, 0x62, X, X, 16, I, 0, VI, S42 },
    { "pcmpistri", 0x66, 2, 0x63, X, X, 16, I, 0, VI, S42 },
    { "crc32b", 0xf2, 1, 0xf0, G, G, 1, 0, 0, VI, S42 },
    /* AES-NI, PCLMULQDQ */
    { "aesimc", 0x66, 1, 0xdb, X, X, 16, A, 0, VI, DIFF_HOST_AES },
    { "aesenc", 0x66, 1, 0xdc, X, X, 16, A, 0, VI, DIFF_HOST_AES },
    { "aesenclast", 0x66, 1, 0xdd, X, X, 16, A, 0, VI, DIFF_HOST_AES },
    { "aesdec", 0x66, 1, 0xde, X, X, 16, A, 0, VI, DIFF_HOST_AES },
    { "aesdeclast", 0x66, 1, 0xdf, X, X, 16, A, 0, VI, DIFF_HOST_AES },
    { "aeskeygenassist", 0x66, 2, 0xdf, X, X, 16, A | I, 0, VI,
      DIFF_HOST_AES },
    { "pclmulqdq", 0x66, 2, 0x44, X, X, 16, A | I, 0, VI,
      DIFF_HOST_PCLMUL },
    { "crc32", 0xf2, 1, 0xf1, G, G, 4, W, 0, VI, S42 },
};

/* --- values ----------------------------------------------------------- */

static uint32_t edge_f32(DiffRand *r)
{
    static const uint32_t edges[] = {
        0x00000000, 0x80000000, 0x7f800000, 0xff800000, 0x7fc00000,
        0xffc00000, 0x7fa00000, 0xffa00001, 0x7fffffff, 0x00000001,
        0x807fffff, 0x00400000, 0x00800000, 0x80800000, 0x7f7fffff,
        0xff7fffff, 0x3f800000, 0xbf800000, 0x3f000000, 0x3fc00000,
        0x40200000, 0xc0200000, 0x4f000000, 0xcf000000, 0x4effffff,
        0xcf000001, 0x5f000000, 0xdf000000, 0x5effffff, 0x3effffff,
        0x3f7fffff, 0x34000000, 0x0c000000, 0x73800000,
    };
    uint32_t v = diff_rand(r);

    switch (diff_rn(r, 6)) {
    case 0:
    case 1:
        return edges[diff_rn(r, G_N_ELEMENTS(edges))];
    case 2:                             /* near 1, same scale */
        return (v & 0x807fffff) | (uint32_t)(120 + diff_rn(r, 16)) << 23;
    case 3:                             /* denormal */
        return v & 0x807fffff;
    default:
        return v;
    }
}

static uint64_t edge_f64(DiffRand *r)
{
    static const uint64_t edges[] = {
        0, 0x8000000000000000ull, 0x7ff0000000000000ull,
        0xfff0000000000000ull, 0x7ff8000000000000ull, 0xfff8000000000000ull,
        0x7ff4000000000000ull, 0xfff0000000000001ull, 0x0000000000000001ull,
        0x800fffffffffffffull, 0x0010000000000000ull, 0x7fefffffffffffffull,
        0x3ff0000000000000ull, 0xbff0000000000000ull, 0x3fe0000000000000ull,
        0x3ff8000000000000ull, 0x4004000000000000ull, 0x41e0000000000000ull,
        0xc1e0000000000000ull, 0x41dfffffffffffffull, 0xc1e0000000200000ull,
        0x43e0000000000000ull, 0xc3e0000000000000ull, 0x43dfffffffffffffull,
        0x47efffffe0000000ull, 0x36a0000000000000ull, 0x3810000000000000ull,
        0x380fffffffffffffull,
    };
    uint64_t v = diff_rand(r);

    switch (diff_rn(r, 6)) {
    case 0:
    case 1:
        return edges[diff_rn(r, G_N_ELEMENTS(edges))];
    case 2:
        return (v & 0x800fffffffffffffull) |
               (uint64_t)(1016 + diff_rn(r, 16)) << 52;
    case 3:
        return v & 0x800fffffffffffffull;
    case 4:                             /* exactly a float, for cvtpd2ps */
        return (v & 0xffffffffe0000000ull) ^ 0x4000000000000000ull;
    default:
        return v;
    }
}

/* 16 bytes of the form's value kind. */
static void fill(DiffRand *r, unsigned vals, uint8_t *p, unsigned n)
{
    for (unsigned i = 0; i < n; i += 8) {
        uint64_t v;

        switch (vals) {
        case VS:
            v = edge_f32(r) | (uint64_t)edge_f32(r) << 32;
            break;
        case VD:
            v = edge_f64(r);
            break;
        default:
            v = diff_rn(r, 3) ? diff_value(r) : diff_rand(r);
            break;
        }
        memcpy(p + i, &v, MIN(8u, n - i));
    }
}

/* A random MXCSR: rounding, DAZ, FTZ, sticky flags; exceptions masked. */
static uint32_t random_mxcsr(DiffRand *r)
{
    return (diff_rand(r) & 0xe07fu) | 0x1f80u;
}

/* --- the case ---------------------------------------------------------- */

static unsigned pick_vreg(DiffRand *r, unsigned file)
{
    if (file == M) {
        return diff_rn(r, 8);
    }
    if (file == G) {
        return diff_pick_reg(r, 1u << R_ESP);
    }
    return diff_rn(r, diff_m32 ? 8 : 16);
}

/* AMD's misaligned-SSE mode (MXCSR.MM): aligned forms take any address. */
#define MXCSR_MM    (1u << 17)

static void gen_form(DiffCase *c, DiffRand *r, uint64_t va,
                     const SseForm *f, const X86Vendor *vendor)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o };
    bool mem, mmx = f->reg == M || f->rm == M;
    unsigned msize = f->msize;
    uint32_t mxcsr = random_mxcsr(r);
    bool mm = (vendor->fxsave_mxcsr_mask & MXCSR_MM) && !diff_rn(r, 8);

    diff_case_init(c, r, f->name);
    c->fx_cmp = DIFF_FX_MXCSR | DIFF_FX_XMM;
    if (mm) {
        mxcsr |= MXCSR_MM;
    }
    if (!diff_m32 && !diff_rn(r, 4)) {
        /*
         * Some of invalid, denormal, divide-by-zero and precision
         * unmasked: #XM, SIGFPE natively (64-bit only). Overflow and
         * underflow stay masked: unmasked, processors flag what the
         * biased result gives (vec.h says what the emulator does).
         */
        mxcsr &= ~(uint32_t)((diff_rand(r) & 0x27) << 7);
    }
    memcpy(c->fx + 24, &mxcsr, 4);
    for (unsigned i = 0; i < 16; i++) {
        fill(r, diff_rn(r, 4) ? f->vals : VI, c->fx + 160 + 16 * i, 16);
    }
    if (mmx) {
        /* MMX registers (TOP 0, random tags); the x87 view is compared. */
        c->fx[4] = diff_rand(r);
        for (unsigned i = 0; i < 8; i++) {
            uint16_t sexp = diff_rand(r);

            fill(r, VI, c->fx + 32 + 16 * i, 8);
            memcpy(c->fx + 40 + 16 * i, &sexp, 2);
        }
        c->fx_cmp |= DIFF_FX_FSW | DIFF_FX_FTW | DIFF_FX_ST;
    }

    if (f->pfx) {
        in.pfx[in.npfx++] = f->pfx;
    }
    in.op[in.nop++] = 0x0f;
    if (f->map) {
        in.op[in.nop++] = f->map == 1 ? 0x38 : 0x3a;
    }
    in.op[in.nop++] = f->op;
    if ((f->flags & W) && !diff_m32 && diff_rn(r, 2)) {
        in.w = true;
        if (f->rm == G) {
            msize = 8;
        }
    }
    o.reg = f->flags & GRP ? f->digit : pick_vreg(r, f->reg);
    mem = (f->flags & NR) || (!(f->flags & NM) && diff_rn(r, 2));
    if (mem) {
        uint8_t v[16];

        diff_pick_mem(c, r, &o, msize, 0,
                      f->flags & A && (!mm || (f->flags & AA)) ? 16 : 0);
        fill(r, f->vals, v, 16);
        for (unsigned i = 0; i < msize; i += 8) {
            uint64_t x;

            memcpy(&x, v + i, 8);
            diff_poke(c, o.ea + i, x, MIN(8u, msize - i));
        }
    } else {
        o.rm = pick_vreg(r, f->rm);
    }
    if (f->flags & (I | I8 | I16)) {
        in.immsize = 1;
        in.imm = f->flags & I8 ? diff_rn(r, 8)
               : f->flags & I16 ? diff_rn(r, 16) : diff_rand(r) & 0xff;
    }
    if (o.reg & 8 && f->reg == M) {
        o.reg &= 7;
    }
    diff_emit(c, va, &in);
}

/* State instructions: ldmxcsr, stmxcsr, fxsave, fxrstor, emms, maskmov. */
static void gen_state(DiffCase *c, DiffRand *r, uint64_t va)
{
    DiffOpnd o = { 0 };
    DiffIns in = { .o = &o, .nop = 2, .op = { 0x0f, 0xae } };
    unsigned kind = diff_rn(r, 6);
    uint32_t mxcsr = random_mxcsr(r);

    diff_case_init(c, r, "state");
    memcpy(c->fx + 24, &mxcsr, 4);
    for (unsigned i = 0; i < 16; i++) {
        fill(r, VI, c->fx + 160 + 16 * i, 16);
    }
    c->fx_cmp = DIFF_FX_MXCSR | DIFF_FX_XMM;
    switch (kind) {
    case 0:
        c->name = "ldmxcsr";
        o.reg = 2;
        diff_pick_mem(c, r, &o, 4, 0, 0);
        diff_poke(c, o.ea, random_mxcsr(r), 4);
        break;
    case 1:
        c->name = "stmxcsr";
        o.reg = 3;
        diff_pick_mem(c, r, &o, 4, 0, 0);
        break;
    case 2:
        c->name = "fxsave";
        o.reg = 0;
        in.w = !diff_m32 && diff_rn(r, 2);
        diff_pick_mem(c, r, &o, 512, 0, 16);
        c->fx_cmp = DIFF_FX_ALL;
        break;
    case 3:
        c->name = "fxrstor";
        o.reg = 1;
        in.w = !diff_m32 && diff_rn(r, 2);
        diff_pick_mem(c, r, &o, 512, 0, 16);
        diff_poke(c, o.ea + 24, random_mxcsr(r), 4);
        c->fx_cmp = DIFF_FX_ALL;
        break;
    case 4:
        c->name = "emms";
        in.o = NULL;
        in.op[1] = 0x77;
        c->fx[4] = diff_rand(r);
        c->fx_cmp = DIFF_FX_ALL;
        break;
    default: {
        /* maskmovq / maskmovdqu to [rdi] */
        bool x = diff_rn(r, 2);
        uint64_t a = DIFF_DATA + 0x100 + diff_rn(r, DIFF_DATA_SIZE - 0x200);

        c->name = x ? "maskmovdqu" : "maskmovq";
        if (x) {
            in.pfx[in.npfx++] = 0x66;
        } else {
            c->fx_cmp = DIFF_FX_ALL;
        }
        in.op[1] = 0xf7;
        o.reg = diff_rn(r, x && !diff_m32 ? 16 : 8);
        o.rm = diff_rn(r, x && !diff_m32 ? 16 : 8);
        c->regs[R_EDI] = a;
        break;
    }
    }
    diff_emit(c, va, &in);
}

/*
 * TCG_DIFF_FORM=NAME generates only the forms named NAME... (a prefix),
 * to look at one instruction closely.
 */
static bool form_wanted(const SseForm *f, unsigned host)
{
    static const char *only;
    static bool read;

    if (!read) {
        only = g_getenv("TCG_DIFF_FORM");
        read = true;
    }
    return (f->feat & host) == f->feat &&
           (!only || g_str_has_prefix(f->name, only));
}

void diff_gen_sse(DiffCase *c, DiffRand *r, uint64_t va, unsigned host,
                  const X86Vendor *vendor, bool code32)
{
    const SseForm *f;

    diff_m32 = code32;
    if (!g_getenv("TCG_DIFF_FORM") && diff_rn(r, 40) == 0) {
        gen_state(c, r, va);
        return;
    }
    do {
        f = &forms[diff_rn(r, G_N_ELEMENTS(forms))];
    } while (!form_wanted(f, host));
    gen_form(c, r, va, f, vendor);
}
