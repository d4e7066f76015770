/*
 * The software CPU's migratable state: every register the interpreter
 * keeps (general, segment, control, debug, MSRs, x87/SSE, the TSC and
 * its deadline, pending INIT/SIPI/NMI), as a field table. The decoded
 * blocks and the TLBs are caches: dropped after a load.
 */
#include <stddef.h>

#include "vmstate/vmstate.h"
#include "target/i386/cpu-state.h"
#include "target/i386/tb-cache.h"
#include "ops.h"

#define CC_OP_LIMIT     (CC_OP(CC_K_MUL, OT_Q) + 1)
/* The bits of interrupt_request that are state, not a kick. */
#define CPU_INTERRUPT_STATE (CPU_INTERRUPT_HARD | CPU_INTERRUPT_NMI | \
                             CPU_INTERRUPT_INIT | CPU_INTERRUPT_SIPI)

static const VMStateDescription vmstate_segment = {
    .name = "segment",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U16(SegmentCache, selector),
        VMSTATE_U64(SegmentCache, base),
        VMSTATE_U32(SegmentCache, limit),
        VMSTATE_U32(SegmentCache, flags, VMS_RANGE(0, 0x00ffff00)),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_desc_table = {
    .name = "desc-table",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U64(DescTable, base),
        VMSTATE_U32(DescTable, limit, VMS_RANGE(0, 0xffff)),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_fpreg = {
    .name = "fpreg",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U64(X86FPReg, mant),
        VMSTATE_U16(X86FPReg, sexp),
        VMSTATE_END
    },
};

static bool x86_cpu_post_load(void *opaque, unsigned version, Error **errp)
{
    X86CPU *cpu = opaque;
    CPUX86State *env = &cpu->env;

    /* A kick (the pause before saving) is no state: dropped. */
    if (env->interrupt_request & ~(CPU_INTERRUPT_STATE | CPU_INTERRUPT_EXIT)) {
        error_setg(errp, "field 'interrupt_request': bits %#x are not "
                   "interrupt requests", env->interrupt_request);
        return false;
    }
    if (env->eflags & ~0x3f7fd7u) {
        error_setg(errp, "field 'eflags': reserved bits set in %#x",
                   env->eflags);
        return false;
    }
    env->interrupt_request &= CPU_INTERRUPT_STATE;
    env->eflags |= EFLAGS_FIXED;
    env->exception_index = -1;
    env->exit_reason = X86_CPU_EXIT_NONE;
    /* Mode bits follow CR0/CR4/EFER/CS/SS; the others travel. */
    x86_update_hflags(env);
    x86_tlb_flush(env, true);
    tb_flush_all();
    return true;
}

static const VMStateDescription vmstate_x86_cpu = {
    .name = "cpu",
    .version = 1,
    .minimum_version = 1,
    .post_load = x86_cpu_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_U64_ARRAY(X86CPU, env.regs, 16),
        VMSTATE_U64(X86CPU, env.rip),
        VMSTATE_U64(X86CPU, env.cc_dst),
        VMSTATE_U64(X86CPU, env.cc_src),
        VMSTATE_U64(X86CPU, env.cc_src2),
        VMSTATE_U32(X86CPU, env.cc_op, VMS_RANGE(0, CC_OP_LIMIT - 1)),
        VMSTATE_U32(X86CPU, env.eflags),
        VMSTATE_U32(X86CPU, env.hflags),
        VMSTATE_STRUCT_ARRAY(X86CPU, env.segs, X86_NUM_SEGS, SegmentCache,
                             vmstate_segment),
        VMSTATE_STRUCT(X86CPU, env.ldt, SegmentCache, vmstate_segment),
        VMSTATE_STRUCT(X86CPU, env.tr, SegmentCache, vmstate_segment),
        VMSTATE_STRUCT(X86CPU, env.gdt, DescTable, vmstate_desc_table),
        VMSTATE_STRUCT(X86CPU, env.idt, DescTable, vmstate_desc_table),
        VMSTATE_U64_ARRAY(X86CPU, env.cr, 5),
        VMSTATE_U64_ARRAY(X86CPU, env.dr, 8),
        VMSTATE_U64(X86CPU, env.efer),
        VMSTATE_U64(X86CPU, env.star),
        VMSTATE_U64(X86CPU, env.lstar),
        VMSTATE_U64(X86CPU, env.cstar),
        VMSTATE_U64(X86CPU, env.fmask),
        VMSTATE_U64(X86CPU, env.kernel_gs_base),
        VMSTATE_U64(X86CPU, env.sysenter_cs),
        VMSTATE_U64(X86CPU, env.sysenter_esp),
        VMSTATE_U64(X86CPU, env.sysenter_eip),
        VMSTATE_U64(X86CPU, env.pat),
        VMSTATE_U64(X86CPU, env.tsc_aux),
        VMSTATE_U64(X86CPU, env.misc_enable),
        VMSTATE_U64(X86CPU, env.apic_base),
        VMSTATE_U64(X86CPU, env.mtrr_def_type),
        VMSTATE_U64_ARRAY(X86CPU, env.mtrr_fixed, 11),
        VMSTATE_U64_ARRAY(X86CPU, env.mtrr_var, 16),
        VMSTATE_I64(X86CPU, env.tsc_offset),
        VMSTATE_U64(X86CPU, env.tsc_deadline),
        VMSTATE_STRUCT_ARRAY(X86CPU, env.fpregs, 8, X86FPReg, vmstate_fpreg),
        VMSTATE_UINT(X86CPU, env.fpstt, VMS_RANGE(0, 7)),
        VMSTATE_U16(X86CPU, env.fpus),
        VMSTATE_U16(X86CPU, env.fpuc),
        VMSTATE_U8_ARRAY(X86CPU, env.fptags, 8, VMS_RANGE(0, 1)),
        VMSTATE_U16(X86CPU, env.fpop, VMS_RANGE(0, 0x7ff)),
        VMSTATE_U64(X86CPU, env.fpip),
        VMSTATE_U64(X86CPU, env.fpdp),
        VMSTATE_U16(X86CPU, env.fpcs),
        VMSTATE_U16(X86CPU, env.fpds),
        VMSTATE_BUFFER(X86CPU, env.xmm),
        VMSTATE_U32(X86CPU, env.mxcsr, VMS_RANGE(0, MXCSR_MASK)),
        VMSTATE_U64(X86CPU, env.xcr0),
        VMSTATE_U32(X86CPU, env.interrupt_request),
        VMSTATE_U32(X86CPU, env.sipi_vector, VMS_RANGE(0, 0xff)),
        VMSTATE_U64(X86CPU, icount),
        VMSTATE_BOOL(X86CPU, stopped),
        VMSTATE_END
    },
};

const VMStateDescription *x86_cpu_vmstate(void)
{
    return &vmstate_x86_cpu;
}
