/*
 * A KVM vCPU's migratable state, read with the KVM_GET_* ioctls when the
 * VM is saved and put back with KVM_SET_* when it is loaded, before the
 * vCPU runs again:
 *   regs       KVM_GET_REGS: general registers, RIP, RFLAGS
 *   sregs      KVM_GET_SREGS: segments, GDT/IDT, CR0-4, CR8, EFER, the
 *              APIC base, the interrupt KVM holds to inject
 *   fpu/xsave  KVM_GET_XSAVE (x87, SSE, AVX...) where KVM has
 *              KVM_CAP_XSAVE, KVM_GET_FPU always (the fallback)
 *   xcr0       KVM_GET_XCRS (KVM_CAP_XCRS)
 *   msrs       the list below, each where this KVM reads it for the vCPU:
 *              TSC, SYSENTER, PAT, syscall MSRs, TSC_AUX, kvmclock's
 *              system-time and wall-clock, the PV MSRs, MTRRs, the TSC
 *              deadline (put after the LAPIC, whose timer mode it needs)
 *   lapic      KVM_GET_LAPIC: the in-kernel local APIC's registers
 *   events     KVM_GET_VCPU_EVENTS (KVM_CAP_VCPU_EVENTS): the exception,
 *              interrupt and NMI being delivered, the interrupt shadow
 *   mp_state   KVM_GET_MP_STATE: running, halted, waiting for SIPI
 *   debugregs  KVM_GET_DEBUGREGS (KVM_CAP_DEBUGREGS): DR0-3, DR6, DR7
 * A part the source's KVM lacked is not put; one the source had and this
 * KVM lacks refuses the stream. Loading checks what a guest could not
 * have set (reserved bits, vectors, booleans) and names the field.
 */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

#include "accel/kvm/kvm-cpu-state.h"
#include "accel/kvm/kvm-int.h"
#include "vmstate/vmstate.h"

#define RFLAGS_FIXED        0x2ull
#define RFLAGS_DEFINED      0x3f7fd7ull     /* SDM vol. 1, 3.4.3 */
/* EFER: SCE, LME, LMA, NXE, SVME, LMSLE, FFXSR, TCE, AutoIBRS. */
#define EFER_DEFINED        0x20fd01ull
#define APIC_BASE_RESERVED  0x2ffull        /* bits 0-7 and 9 */
#define MXCSR_DEFINED       0x2ffffu        /* AMD's MM bit 17 too */
#define XSAVE_MXCSR         24              /* byte offsets in the area */
#define XSAVE_XCOMP_BV      520
#define XSAVE_HDR_END       576

/* Applied after the LAPIC: the timer's mode must be deadline by then. */
#define MSR_F_LATE          (1u << 0)
/* A guest-physical address KVM writes to when set: not put when 0. */
#define MSR_F_GPA           (1u << 1)

static const struct {
    uint32_t index;
    const char *name;
    unsigned flags;
} kvm_cpu_msrs[] = {
    { 0x00000010, "tsc" },
    { 0x0000003b, "tsc_adjust" },
    { 0x00000048, "spec_ctrl" },
    { 0x00000174, "sysenter_cs" },
    { 0x00000175, "sysenter_esp" },
    { 0x00000176, "sysenter_eip" },
    { 0x0000017a, "mcg_status" },
    { 0x000001a0, "misc_enable" },
    { 0x00000277, "pat" },
    { 0xc0000081, "star" },
    { 0xc0000082, "lstar" },
    { 0xc0000083, "cstar" },
    { 0xc0000084, "fmask" },
    { 0xc0000102, "kernel_gs_base" },
    { 0xc0000103, "tsc_aux" },
    /* kvmclock, old and new numbers; async PF's interrupt before enable */
    { 0x00000011, "kvm_wall_clock", MSR_F_GPA },
    { 0x00000012, "kvm_system_time" },
    { 0x4b564d00, "kvm_wall_clock_new", MSR_F_GPA },
    { 0x4b564d01, "kvm_system_time_new" },
    { 0x4b564d06, "kvm_async_pf_int" },
    { 0x4b564d02, "kvm_async_pf_en" },
    { 0x4b564d03, "kvm_steal_time" },
    { 0x4b564d04, "kvm_pv_eoi_en" },
    { 0x4b564d05, "kvm_poll_control" },
    { 0x000002ff, "mtrr_def_type" },
    { 0x00000250, "mtrr_fix64k_00000" },
    { 0x00000258, "mtrr_fix16k_80000" },
    { 0x00000259, "mtrr_fix16k_a0000" },
    { 0x00000268, "mtrr_fix4k_c0000" },
    { 0x00000269, "mtrr_fix4k_c8000" },
    { 0x0000026a, "mtrr_fix4k_d0000" },
    { 0x0000026b, "mtrr_fix4k_d8000" },
    { 0x0000026c, "mtrr_fix4k_e0000" },
    { 0x0000026d, "mtrr_fix4k_e8000" },
    { 0x0000026e, "mtrr_fix4k_f0000" },
    { 0x0000026f, "mtrr_fix4k_f8000" },
    { 0x00000200, "mtrr_physbase0" }, { 0x00000201, "mtrr_physmask0" },
    { 0x00000202, "mtrr_physbase1" }, { 0x00000203, "mtrr_physmask1" },
    { 0x00000204, "mtrr_physbase2" }, { 0x00000205, "mtrr_physmask2" },
    { 0x00000206, "mtrr_physbase3" }, { 0x00000207, "mtrr_physmask3" },
    { 0x00000208, "mtrr_physbase4" }, { 0x00000209, "mtrr_physmask4" },
    { 0x0000020a, "mtrr_physbase5" }, { 0x0000020b, "mtrr_physmask5" },
    { 0x0000020c, "mtrr_physbase6" }, { 0x0000020d, "mtrr_physmask6" },
    { 0x0000020e, "mtrr_physbase7" }, { 0x0000020f, "mtrr_physmask7" },
    { 0x000006e0, "tsc_deadline", MSR_F_LATE },
};
G_STATIC_ASSERT(G_N_ELEMENTS(kvm_cpu_msrs) == KVM_CPU_NR_MSRS);

typedef struct {
    struct kvm_msrs hdr;
    struct kvm_msr_entry e[KVM_CPU_NR_MSRS];
} KVMMsrBuf;

static bool cpu_ioctl(const KVMCPUState *st, unsigned long req, void *arg,
                      const char *field, const char *name, Error **errp)
{
    if (ioctl(st->fd, req, arg) < 0) {
        error_setg_errno(errp, errno, "field '%s': %s failed", field, name);
        return false;
    }
    return true;
}

/* Each MSR KVM reads: KVM stops at the first it lacks, skip it, go on. */
static bool get_msrs(KVMCPUState *st, Error **errp)
{
    KVMMsrBuf m;
    unsigned done = 0;

    st->msrs_present = 0;
    while (done < KVM_CPU_NR_MSRS) {
        int ret;

        memset(&m, 0, sizeof(m));
        m.hdr.nmsrs = KVM_CPU_NR_MSRS - done;
        for (unsigned i = done; i < KVM_CPU_NR_MSRS; i++) {
            m.e[i - done].index = kvm_cpu_msrs[i].index;
        }
        ret = ioctl(st->fd, KVM_GET_MSRS, &m);
        if (ret < 0) {
            error_setg_errno(errp, errno, "field 'msrs': KVM_GET_MSRS failed");
            return false;
        }
        for (int i = 0; i < ret; i++) {
            st->msrs[done + i] = m.e[i].data;
            st->msrs_present |= 1ull << (done + i);
        }
        done += ret + 1;            /* msrs[done + ret] is not there */
    }
    return true;
}

/* The present MSRs with (late) or without MSR_F_LATE. */
static bool put_msrs(const KVMCPUState *st, bool late, Error **errp)
{
    KVMMsrBuf m = { 0 };
    unsigned at[KVM_CPU_NR_MSRS], n = 0;
    int ret;

    for (unsigned i = 0; i < KVM_CPU_NR_MSRS; i++) {
        bool is_late = kvm_cpu_msrs[i].flags & MSR_F_LATE;

        if (!(st->msrs_present & (1ull << i)) || is_late != late ||
            ((kvm_cpu_msrs[i].flags & MSR_F_GPA) && !st->msrs[i])) {
            continue;
        }
        m.e[n].index = kvm_cpu_msrs[i].index;
        m.e[n].data = st->msrs[i];
        at[n++] = i;
    }
    if (!n) {
        return true;
    }
    m.hdr.nmsrs = n;
    ret = ioctl(st->fd, KVM_SET_MSRS, &m);
    if (ret < 0) {
        error_setg_errno(errp, errno, "field 'msrs': KVM_SET_MSRS failed");
        return false;
    }
    if ((unsigned)ret < n) {
        unsigned i = at[ret];

        error_setg(errp, "field 'msrs[%u]': this KVM refuses MSR %s (%#x) "
                   "= %#" PRIx64, i, kvm_cpu_msrs[i].name,
                   kvm_cpu_msrs[i].index, (uint64_t)st->msrs[i]);
        return false;
    }
    return true;
}

bool kvm_cpu_state_get(KVMCPUState *st, Error **errp)
{
    struct kvm_xcrs xcrs = { 0 };

    st->has_xsave = kvm_check_cap(KVM_CAP_XSAVE) > 0;
    st->has_xcr0 = false;
    st->has_events = kvm_check_cap(KVM_CAP_VCPU_EVENTS) > 0;
    st->has_debugregs = kvm_check_cap(KVM_CAP_DEBUGREGS) > 0;
    memset(st->xsave, 0, sizeof(st->xsave));
    memset(&st->events, 0, sizeof(st->events));
    memset(&st->debugregs, 0, sizeof(st->debugregs));
    st->xcr0 = 0;
    if (!cpu_ioctl(st, KVM_GET_REGS, &st->regs, "regs", "KVM_GET_REGS",
                   errp) ||
        !cpu_ioctl(st, KVM_GET_SREGS, &st->sregs, "sregs", "KVM_GET_SREGS",
                   errp) ||
        !cpu_ioctl(st, KVM_GET_FPU, &st->fpu, "fpu", "KVM_GET_FPU", errp) ||
        (st->has_xsave &&
         !cpu_ioctl(st, KVM_GET_XSAVE, st->xsave, "xsave", "KVM_GET_XSAVE",
                    errp)) ||
        !get_msrs(st, errp) ||
        !cpu_ioctl(st, KVM_GET_LAPIC, &st->lapic, "lapic", "KVM_GET_LAPIC",
                   errp) ||
        (st->has_events &&
         !cpu_ioctl(st, KVM_GET_VCPU_EVENTS, &st->events, "events",
                    "KVM_GET_VCPU_EVENTS", errp)) ||
        !cpu_ioctl(st, KVM_GET_MP_STATE, &st->mp_state, "mp_state",
                   "KVM_GET_MP_STATE", errp) ||
        (st->has_debugregs &&
         !cpu_ioctl(st, KVM_GET_DEBUGREGS, &st->debugregs, "debugregs",
                    "KVM_GET_DEBUGREGS", errp))) {
        return false;
    }
    if (kvm_check_cap(KVM_CAP_XCRS) > 0) {
        if (!cpu_ioctl(st, KVM_GET_XCRS, &xcrs, "xcr0", "KVM_GET_XCRS",
                       errp)) {
            return false;
        }
        for (unsigned i = 0; i < xcrs.nr_xcrs && i < KVM_MAX_XCRS; i++) {
            if (xcrs.xcrs[i].xcr == 0) {
                st->has_xcr0 = true;
                st->xcr0 = xcrs.xcrs[i].value;
            }
        }
    }
    /* Only what the set ioctl takes back. */
    st->events.flags &= KVM_VCPUEVENT_VALID_NMI_PENDING |
                        KVM_VCPUEVENT_VALID_SIPI_VECTOR |
                        KVM_VCPUEVENT_VALID_SHADOW;
    return true;
}

/* What the source had and this KVM has not: refused, naming the part. */
static bool check_caps(const KVMCPUState *st, Error **errp)
{
    static const struct {
        size_t offset;
        int cap;
        const char *field, *name;
    } parts[] = {
        { offsetof(KVMCPUState, has_xsave), KVM_CAP_XSAVE, "has_xsave",
          "KVM_CAP_XSAVE" },
        { offsetof(KVMCPUState, has_xcr0), KVM_CAP_XCRS, "has_xcr0",
          "KVM_CAP_XCRS" },
        { offsetof(KVMCPUState, has_events), KVM_CAP_VCPU_EVENTS,
          "has_events", "KVM_CAP_VCPU_EVENTS" },
        { offsetof(KVMCPUState, has_debugregs), KVM_CAP_DEBUGREGS,
          "has_debugregs", "KVM_CAP_DEBUGREGS" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(parts); i++) {
        bool had = *(const bool *)((const uint8_t *)st + parts[i].offset);

        if (had && kvm_check_cap(parts[i].cap) <= 0) {
            error_setg(errp, "field '%s': the source's KVM had %s, this one "
                       "has not", parts[i].field, parts[i].name);
            return false;
        }
    }
    return true;
}

static uint32_t lapic_reg(const KVMCPUState *st, unsigned off)
{
    uint32_t v;

    memcpy(&v, st->lapic.regs + off, sizeof(v));
    return v;
}

static uint64_t xsave_u64(const KVMCPUState *st, unsigned off)
{
    uint64_t v;

    memcpy(&v, (const uint8_t *)st->xsave + off, sizeof(v));
    return v;
}

/* Values no guest can set; KVM would refuse most, this says which. */
static bool check_values(const KVMCPUState *st, Error **errp)
{
    const uint8_t *x = (const uint8_t *)st->xsave;
    uint32_t mxcsr;

    if ((st->regs.rflags & ~RFLAGS_DEFINED) ||
        !(st->regs.rflags & RFLAGS_FIXED)) {
        error_setg(errp, "field 'regs.rflags': %#llx has reserved bits "
                   "wrong", st->regs.rflags);
        return false;
    }
    if (st->sregs.cr0 >> 32) {
        error_setg(errp, "field 'sregs.cr0': reserved bits set in %#llx",
                   st->sregs.cr0);
        return false;
    }
    if (st->sregs.efer & ~EFER_DEFINED) {
        error_setg(errp, "field 'sregs.efer': reserved bits set in %#llx",
                   st->sregs.efer);
        return false;
    }
    if (st->sregs.apic_base & APIC_BASE_RESERVED) {
        error_setg(errp, "field 'sregs.apic_base': reserved bits set in "
                   "%#llx", st->sregs.apic_base);
        return false;
    }
    if (st->has_xsave) {
        memcpy(&mxcsr, x + XSAVE_MXCSR, sizeof(mxcsr));
        if (mxcsr & ~MXCSR_DEFINED) {
            error_setg(errp, "field 'xsave': MXCSR %#x has reserved bits",
                       mxcsr);
            return false;
        }
        if (xsave_u64(st, XSAVE_XCOMP_BV)) {
            error_setg(errp, "field 'xsave': a compacted area (XCOMP_BV "
                       "%#" PRIx64 ")", xsave_u64(st, XSAVE_XCOMP_BV));
            return false;
        }
        for (unsigned off = XSAVE_XCOMP_BV + 8; off < XSAVE_HDR_END; off++) {
            if (x[off]) {
                error_setg(errp, "field 'xsave': reserved header byte %u "
                           "is not 0", off);
                return false;
            }
        }
        /*
         * XSTATE_BV is not checked against XCR0: KVM keeps the guest's
         * state in the host's layout (SSE even where XCR0 is x87 only)
         * and refuses components it does not support itself.
         */
    }
    if (st->has_xcr0 && !(st->xcr0 & 1)) {
        error_setg(errp, "field 'xcr0': %#" PRIx64 " without x87 state",
                   st->xcr0);
        return false;
    }
    if (st->msrs_present >> KVM_CPU_NR_MSRS) {
        error_setg(errp, "field 'msrs_present': bits past the %u MSRs in "
                   "%#" PRIx64, KVM_CPU_NR_MSRS, st->msrs_present);
        return false;
    }
    if (lapic_reg(st, KVM_LAPIC_LVR) != st->lapic_version) {
        error_setg(errp, "field 'lapic.regs': version register %#x, this "
                   "LAPIC's is %#x", lapic_reg(st, KVM_LAPIC_LVR),
                   st->lapic_version);
        return false;
    }
    if (st->events.flags & ~(KVM_VCPUEVENT_VALID_NMI_PENDING |
                             KVM_VCPUEVENT_VALID_SIPI_VECTOR |
                             KVM_VCPUEVENT_VALID_SHADOW)) {
        error_setg(errp, "field 'events.flags': unknown flags in %#x",
                   st->events.flags);
        return false;
    }
    if ((st->debugregs.dr6 >> 32) || (st->debugregs.dr7 >> 32)) {
        error_setg(errp, "field 'debugregs': DR6 %#llx or DR7 %#llx has "
                   "upper bits set", st->debugregs.dr6, st->debugregs.dr7);
        return false;
    }
    return true;
}

bool kvm_cpu_state_put(KVMCPUState *st, Error **errp)
{
    struct kvm_xcrs xcrs = {
        .nr_xcrs = 1, .xcrs[0] = { .xcr = 0, .value = st->xcr0 },
    };

    if (!check_caps(st, errp) || !check_values(st, errp)) {
        return false;
    }
    /*
     * QEMU's order where it matters: the APIC base (in sregs) before the
     * LAPIC, the LAPIC before the TSC deadline and the MP state.
     */
    return cpu_ioctl(st, KVM_SET_REGS, &st->regs, "regs", "KVM_SET_REGS",
                     errp) &&
           cpu_ioctl(st, KVM_SET_SREGS, &st->sregs, "sregs", "KVM_SET_SREGS",
                     errp) &&
           (!st->has_xcr0 ||
            cpu_ioctl(st, KVM_SET_XCRS, &xcrs, "xcr0", "KVM_SET_XCRS",
                      errp)) &&
           (st->has_xsave
            ? cpu_ioctl(st, KVM_SET_XSAVE, st->xsave, "xsave",
                        "KVM_SET_XSAVE", errp)
            : cpu_ioctl(st, KVM_SET_FPU, &st->fpu, "fpu", "KVM_SET_FPU",
                        errp)) &&
           put_msrs(st, false, errp) &&
           cpu_ioctl(st, KVM_SET_LAPIC, &st->lapic, "lapic", "KVM_SET_LAPIC",
                     errp) &&
           put_msrs(st, true, errp) &&
           (!st->has_events ||
            cpu_ioctl(st, KVM_SET_VCPU_EVENTS, &st->events, "events",
                      "KVM_SET_VCPU_EVENTS", errp)) &&
           cpu_ioctl(st, KVM_SET_MP_STATE, &st->mp_state, "mp_state",
                     "KVM_SET_MP_STATE", errp) &&
           (!st->has_debugregs ||
            cpu_ioctl(st, KVM_SET_DEBUGREGS, &st->debugregs, "debugregs",
                      "KVM_SET_DEBUGREGS", errp));
}

/* --- the table -------------------------------------------------------- */

static int kvm_cpu_pre_save(void *opaque)
{
    KVMCPUState *st = opaque;
    Error *err = NULL;

    if (!kvm_vcpu_before_save(st->vcpu, &err) ||
        !kvm_cpu_state_get(st, &err)) {
        warn_report("kvm-cpu instance %u: %s", st->index,
                    error_get_pretty(err));
        error_free(err);
        return -1;
    }
    return 0;
}

static bool kvm_cpu_post_load(void *opaque, unsigned version, Error **errp)
{
    KVMCPUState *st = opaque;

    if (!kvm_cpu_state_put(st, errp)) {
        return false;
    }
    kvm_vcpu_after_load(st->vcpu);
    return true;
}

static const VMStateDescription vmstate_kvm_segment = {
    .name = "kvm-segment",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_ULL(struct kvm_segment, base),
        VMSTATE_U32(struct kvm_segment, limit),
        VMSTATE_U16(struct kvm_segment, selector),
        VMSTATE_U8(struct kvm_segment, type, VMS_RANGE(0, 15)),
        VMSTATE_U8(struct kvm_segment, present, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, dpl, VMS_RANGE(0, 3)),
        VMSTATE_U8(struct kvm_segment, db, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, s, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, l, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, g, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, avl, VMS_RANGE(0, 1)),
        VMSTATE_U8(struct kvm_segment, unusable, VMS_RANGE(0, 1)),
        VMSTATE_END
    },
};

static const VMStateDescription vmstate_kvm_dtable = {
    .name = "kvm-dtable",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_ULL(struct kvm_dtable, base),
        VMSTATE_U16(struct kvm_dtable, limit),
        VMSTATE_END
    },
};

#define SEG(f)  VMSTATE_STRUCT(KVMCPUState, sregs.f, struct kvm_segment, \
                               vmstate_kvm_segment)
#define B01     VMS_RANGE(0, 1)

static const VMStateDescription vmstate_kvm_cpu = {
    .name = "kvm-cpu",
    .version = 1,
    .minimum_version = 1,
    .pre_save = kvm_cpu_pre_save,
    .post_load = kvm_cpu_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_ULL(KVMCPUState, regs.rax),
        VMSTATE_ULL(KVMCPUState, regs.rbx),
        VMSTATE_ULL(KVMCPUState, regs.rcx),
        VMSTATE_ULL(KVMCPUState, regs.rdx),
        VMSTATE_ULL(KVMCPUState, regs.rsi),
        VMSTATE_ULL(KVMCPUState, regs.rdi),
        VMSTATE_ULL(KVMCPUState, regs.rsp),
        VMSTATE_ULL(KVMCPUState, regs.rbp),
        VMSTATE_ULL(KVMCPUState, regs.r8),
        VMSTATE_ULL(KVMCPUState, regs.r9),
        VMSTATE_ULL(KVMCPUState, regs.r10),
        VMSTATE_ULL(KVMCPUState, regs.r11),
        VMSTATE_ULL(KVMCPUState, regs.r12),
        VMSTATE_ULL(KVMCPUState, regs.r13),
        VMSTATE_ULL(KVMCPUState, regs.r14),
        VMSTATE_ULL(KVMCPUState, regs.r15),
        VMSTATE_ULL(KVMCPUState, regs.rip),
        VMSTATE_ULL(KVMCPUState, regs.rflags),
        SEG(cs), SEG(ds), SEG(es), SEG(fs), SEG(gs), SEG(ss), SEG(tr),
        SEG(ldt),
        VMSTATE_STRUCT(KVMCPUState, sregs.gdt, struct kvm_dtable,
                       vmstate_kvm_dtable),
        VMSTATE_STRUCT(KVMCPUState, sregs.idt, struct kvm_dtable,
                       vmstate_kvm_dtable),
        VMSTATE_ULL(KVMCPUState, sregs.cr0),
        VMSTATE_ULL(KVMCPUState, sregs.cr2),
        VMSTATE_ULL(KVMCPUState, sregs.cr3),
        VMSTATE_ULL(KVMCPUState, sregs.cr4),
        VMSTATE_ULL(KVMCPUState, sregs.cr8, VMS_RANGE(0, 15)),
        VMSTATE_ULL(KVMCPUState, sregs.efer),
        VMSTATE_ULL(KVMCPUState, sregs.apic_base),
        VMSTATE_ULL_ARRAY(KVMCPUState, sregs.interrupt_bitmap,
                          (KVM_NR_INTERRUPTS + 63) / 64),
        VMSTATE_BOOL(KVMCPUState, has_xsave),
        VMSTATE_BUFFER(KVMCPUState, fpu.fpr),
        VMSTATE_U16(KVMCPUState, fpu.fcw),
        VMSTATE_U16(KVMCPUState, fpu.fsw),
        VMSTATE_U8(KVMCPUState, fpu.ftwx),
        VMSTATE_U16(KVMCPUState, fpu.last_opcode, VMS_RANGE(0, 0x7ff)),
        VMSTATE_ULL(KVMCPUState, fpu.last_ip),
        VMSTATE_ULL(KVMCPUState, fpu.last_dp),
        VMSTATE_BUFFER(KVMCPUState, fpu.xmm),
        VMSTATE_U32(KVMCPUState, fpu.mxcsr, VMS_RANGE(0, MXCSR_DEFINED)),
        VMSTATE_BUFFER(KVMCPUState, xsave),
        VMSTATE_BOOL(KVMCPUState, has_xcr0),
        VMSTATE_U64(KVMCPUState, xcr0),
        VMSTATE_U64(KVMCPUState, msrs_present),
        VMSTATE_U64_ARRAY(KVMCPUState, msrs, KVM_CPU_NR_MSRS),
        VMSTATE_BUFFER(KVMCPUState, lapic.regs),
        VMSTATE_BOOL(KVMCPUState, has_events),
        VMSTATE_U8(KVMCPUState, events.exception.injected, B01),
        VMSTATE_U8(KVMCPUState, events.exception.nr, VMS_RANGE(0, 31)),
        VMSTATE_U8(KVMCPUState, events.exception.has_error_code, B01),
        VMSTATE_U8(KVMCPUState, events.exception.pending, B01),
        VMSTATE_U32(KVMCPUState, events.exception.error_code),
        VMSTATE_U8(KVMCPUState, events.interrupt.injected, B01),
        VMSTATE_U8(KVMCPUState, events.interrupt.nr),
        VMSTATE_U8(KVMCPUState, events.interrupt.soft, B01),
        VMSTATE_U8(KVMCPUState, events.interrupt.shadow, VMS_RANGE(0, 3)),
        VMSTATE_U8(KVMCPUState, events.nmi.injected, B01),
        /* One being delivered and one latched: KVM's count goes to 2. */
        VMSTATE_U8(KVMCPUState, events.nmi.pending, VMS_RANGE(0, 2)),
        VMSTATE_U8(KVMCPUState, events.nmi.masked, B01),
        VMSTATE_U32(KVMCPUState, events.sipi_vector, VMS_RANGE(0, 255)),
        VMSTATE_U32(KVMCPUState, events.flags),
        VMSTATE_U32(KVMCPUState, mp_state,
                    VMS_RANGE(KVM_MP_STATE_RUNNABLE,
                              KVM_MP_STATE_SIPI_RECEIVED)),
        VMSTATE_BOOL(KVMCPUState, has_debugregs),
        VMSTATE_ULL_ARRAY(KVMCPUState, debugregs.db, 4),
        VMSTATE_ULL(KVMCPUState, debugregs.dr6),
        VMSTATE_ULL(KVMCPUState, debugregs.dr7),
        VMSTATE_END
    },
};

const VMStateDescription *kvm_cpu_vmstate(void)
{
    return &vmstate_kvm_cpu;
}
