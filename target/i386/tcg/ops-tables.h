/*
 * The handler tables the decoder picks from (ops-*.c define them): rows
 * of X86Handler, a handler with what the decoder's passes know of it.
 * Indexes: an operand form (F_*), an operation in encoding order, and
 * the operand size (OT_*); a row without fn marks a combination that
 * does not exist.
 */
#ifndef TARGET_I386_OPS_TABLES_H
#define TARGET_I386_OPS_TABLES_H

#include "target/i386/tcg/ops.h"
#include "target/i386/tcg/helper.h"

/* Operand forms of two-operand instructions. */
enum { F_RR, F_RM, F_MR, F_RI, F_MI, F_NUM };

/* nop (ops-system.c) */
extern const X86Handler x86_nop;

/* ops-alu.c */
extern const X86Handler x86_alu_fn[F_NUM][8][4];
extern const X86Handler x86_test_fn[F_NUM][4];
extern const X86Handler x86_unary_fn[2][4][4];     /* [mem][inc,dec,not,neg] */
enum {
    FL_CLC, FL_STC, FL_CMC, FL_CLD, FL_STD, FL_LAHF, FL_SAHF, FL_SALC,
    FL_DAA, FL_DAS, FL_AAA, FL_AAS, FL_AAM, FL_AAD, FL_NUM
};
extern const X86Handler x86_flag_fn[FL_NUM];

/* ops-mov.c */
extern const X86Handler x86_mov_fn[F_NUM][4];
extern const X86Handler x86_movx_fn[2][2][3][4];   /* [mem][sign][sot][dot] */
extern const X86Handler x86_lea_fn[4];
extern const X86Handler x86_xchg_fn[2][4];         /* [mem][ot] */
extern const X86Handler x86_cmov_r_fn[16][4];   /* [condition][size] */
extern const X86Handler x86_cmov_m_fn[4];
extern const X86Handler x86_setcc_r_fn[16];     /* [condition] */
extern const X86Handler x86_setcc_m_fn;
extern const X86Handler x86_bswap_fn[4];
extern const X86Handler x86_movbe_fn[2];           /* load, store */
extern const X86Handler x86_moffs_fn[2];           /* load, store */
extern const X86Handler x86_cmpxchg_fn[2];
extern const X86Handler x86_xadd_fn[2];
extern const X86Handler x86_cmpxchg8b_fn[2];       /* 8b, 16b */
extern const X86Handler x86_cbw_fn, x86_cwd_fn, x86_xlat_fn;

/* ops-shift.c */
extern const X86Handler x86_shift_fn[2][8][4];     /* [mem][op][ot] */
extern const X86Handler x86_dshift_fn[2];

/* ops-muldiv.c */
extern const X86Handler x86_muldiv_fn[2][4][4];    /* [mem][mul..idiv][ot] */
extern const X86Handler x86_imul_fn[2][4];

/* ops-bit.c */
extern const X86Handler x86_bt_fn[2][4];           /* [mem][bt..btc] */
enum { SCAN_BSF, SCAN_BSR, SCAN_TZCNT, SCAN_LZCNT, SCAN_POPCNT };
extern const X86Handler x86_scan_fn[2];

/* ops-string.c */
enum { STR_MOVS, STR_CMPS, STR_STOS, STR_LODS, STR_SCAS, STR_INS,
       STR_OUTS, STR_NUM };
extern const X86Handler x86_string_fn[STR_NUM][4];

/* ops-stack.c */
enum { PUSH_R64, PUSH_R32, PUSH_R, PUSH_I, PUSH_M, PUSH_NUM };
extern const X86Handler x86_push_fn[PUSH_NUM];
extern const X86Handler x86_pop_fn[PUSH_NUM];
enum {
    STK_OP_PUSHA, STK_OP_POPA, STK_OP_PUSHF, STK_OP_POPF, STK_OP_ENTER,
    STK_OP_LEAVE, STK_OP_PUSH_SREG, STK_OP_POP_SREG, STK_OP_NUM
};
extern const X86Handler x86_stack_fn[STK_OP_NUM];

/* ops-control.c */
extern const X86Handler x86_jcc_fn[16];
enum {
    BR_JMP, BR_JMP_R, BR_JMP_M, BR_CALL64, BR_CALL, BR_CALL_R, BR_CALL_M,
    BR_RET64, BR_RET,
    BR_JMP_IN, BR_CALL64_IN, BR_CALL_IN,    /* followed by the decoder */
    BR_NUM
};
extern const X86Handler x86_branch_fn[BR_NUM];
enum { LOOP_NE, LOOP_E, LOOP_LOOP, LOOP_JCXZ };
extern const X86Handler x86_loop_fn;
enum {
    FAR_LJMP_I, FAR_LJMP_M, FAR_LCALL_I, FAR_LCALL_M, FAR_LRET, FAR_IRET,
    FAR_INT, FAR_INTO, FAR_NUM
};
extern const X86Handler x86_far_fn[FAR_NUM];

/*
 * ops-fused.c: an ALU operation with the jcc after it
 * ([op][form][ot][the jcc's condition]; none for jp/jnp).
 */
enum { FUSE_CMP, FUSE_SUB, FUSE_ADD, FUSE_AND, FUSE_TEST, FUSE_NUM };
extern const X86Handler x86_fused_fn[FUSE_NUM][F_NUM][4][16];
/*
 * Loop ends: add or sub (register or immediate source) to a register,
 * then a pair of compare or test on registers: [add 0, sub 1][add's
 * form: 0 F_RR, 1 F_RI][cmp 0, test 1][its form, the same][ot - OT_L]
 * [the jcc's condition]; none for jp/jnp.
 */
extern const X86Handler x86_fused3_fn[2][2][2][2][2][16];

/* ops-system.c */
enum {
    SYS_IN, SYS_OUT, SYS_HLT, SYS_CLI, SYS_STI, SYS_CPUID, SYS_RDTSC,
    SYS_RDTSCP, SYS_RDPMC, SYS_RDMSR, SYS_WRMSR, SYS_MOV_FROM_CR,
    SYS_MOV_TO_CR, SYS_MOV_FROM_DR, SYS_MOV_TO_DR, SYS_LGDT, SYS_SGDT,
    SYS_GRP6, SYS_LAR_LSL, SYS_SMSW, SYS_LMSW, SYS_CLTS, SYS_INVLPG,
    SYS_SWAPGS, SYS_SYSCALL, SYS_SYSRET, SYS_SYSENTER, SYS_SYSEXIT,
    SYS_WBINVD, SYS_PAUSE, SYS_MOV_TO_SREG, SYS_MOV_FROM_SREG, SYS_LXS,
    SYS_CLFLUSH, SYS_BOUND, SYS_ARPL, SYS_XGETBV, SYS_XSETBV, SYS_NUM
};
extern const X86Handler x86_sys_fn[SYS_NUM];

#endif
