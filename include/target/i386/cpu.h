/*
 * The x86-64 CPU as the guest sees it: the CPU models (-cpu host, max,
 * qemu64 with +feature/-feature), the CPUID table of each vCPU (APIC IDs
 * and topology leaves from -smp), and the values a reset leaves in MSRs.
 * Shared by the accelerators: nothing here talks to KVM; the KVM code
 * hands in what KVM_GET_SUPPORTED_CPUID offers and installs the result.
 */
#ifndef TARGET_I386_CPU_H
#define TARGET_I386_CPU_H

#include <stdbool.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"

/* Flags of an entry, as KVM's kvm_cpuid_entry2 has them. */
#define X86_CPUID_FLAG_INDEXED      (1u << 0)   /* index is significant */

#define X86_CPUID_MAX_ENTRIES       256

/* Register of a CPUID leaf. */
enum { X86_R_EAX, X86_R_EBX, X86_R_ECX, X86_R_EDX };

typedef struct X86CPUIDEntry {
    uint32_t function;
    uint32_t index;
    uint32_t flags;                     /* X86_CPUID_FLAG_* */
    uint32_t regs[4];                   /* X86_R_* */
} X86CPUIDEntry;

typedef enum X86CPUModelKind {
    X86_CPU_MODEL_HOST,                 /* what the accelerator offers */
    X86_CPU_MODEL_MAX,                  /* under KVM the same as host */
    X86_CPU_MODEL_QEMU64,               /* QEMU's portable default */
} X86CPUModelKind;

typedef struct X86CPUFeature {
    const char *name;
    uint32_t function, index;
    uint8_t reg, bit;
} X86CPUFeature;

/* A validated -cpu MODEL[,+feat|-feat|feat=on|off]... */
typedef struct X86CPUDef {
    X86CPUModelKind kind;
    const char *name;                   /* static: "host", ... */
    GPtrArray *on, *off;                /* of const X86CPUFeature * */
    char vendor[13];                    /* vendor=, or "" for the model's */
    uint32_t apic_id;                   /* apic-id=, or ..._UNASSIGNED */
} X86CPUDef;

/* QEMU's "not set" value of the apic-id property. */
#define X86_CPU_APIC_ID_UNASSIGNED  UINT32_MAX

typedef struct X86CPUTopology {
    unsigned sockets, cores, threads;   /* each at least 1 */
    /*
     * One vCPU whose APIC ID is given, not counted from the topology
     * (QEMU's none machine: -cpu's apic-id).
     */
    bool apic_id_given;
    uint32_t apic_id;
} X86CPUTopology;

/* An MSR index and its value. */
typedef struct X86CPUMsr {
    uint32_t index;
    uint64_t value;
} X86CPUMsr;

#define MSR_IA32_TSC                0x00000010
#define MSR_IA32_APICBASE           0x0000001b
#define MSR_IA32_APICBASE_BSP       (1ull << 8)
#define MSR_IA32_APICBASE_ENABLE    (1ull << 11)
#define MSR_IA32_APICBASE_BASE      0xfee00000ull
#define MSR_IA32_SYSENTER_CS        0x00000174
#define MSR_IA32_SYSENTER_ESP       0x00000175
#define MSR_IA32_SYSENTER_EIP       0x00000176
#define MSR_IA32_MISC_ENABLE        0x000001a0
#define MSR_IA32_MISC_ENABLE_FAST_STRING    (1ull << 0)
#define MSR_PAT                     0x00000277
#define MSR_PAT_RESET               0x0007040600070406ull
#define MSR_STAR                    0xc0000081
#define MSR_LSTAR                   0xc0000082
#define MSR_CSTAR                   0xc0000083
#define MSR_FMASK                   0xc0000084
#define MSR_KERNEL_GS_BASE          0xc0000102
#define MSR_TSC_AUX                 0xc0000103

#define X86_CPU_RESET_MSRS_MAX      16

/*
 * Check the model and the feature list (cfg->cpu); model NULL is the
 * default (host). Unknown models or features give QEMU's errors.
 */
bool x86_cpu_def_init(X86CPUDef *def, const char *model,
                      const GPtrArray *features, Error **errp);
void x86_cpu_def_free(X86CPUDef *def);

/* The feature with this name (QEMU's spellings and aliases), or NULL. */
const X86CPUFeature *x86_cpu_feature_find(const char *name);

/* Socket, core and thread of a CPU index, and its APIC ID. */
void x86_cpu_topo_ids(const X86CPUTopology *topo, unsigned cpu_index,
                      unsigned *socket, unsigned *core, unsigned *thread);
uint32_t x86_cpu_apic_id(const X86CPUTopology *topo, unsigned cpu_index);
/* -smp's sockets, cores and threads, each at least 1. */
X86CPUTopology x86_cpu_topology(unsigned sockets, unsigned cores,
                                unsigned threads);
/*
 * For a board whose one vCPU takes its APIC ID from -cpu's apic-id
 * (QEMU's none machine): that ID into topo, or QEMU's error when
 * apic-id was not given.
 */
bool x86_cpu_topology_given_apic_id(X86CPUTopology *topo,
                                    const X86CPUDef *def, Error **errp);
struct CPUState;
/* A vCPU record's APIC ID and topology IDs from its index. */
void x86_cpu_state_init(struct CPUState *cs, const X86CPUTopology *topo);

/*
 * The CPUID table of vCPU cpu_index: the model applied to what the
 * accelerator supports, then the APIC ID and the topology written into
 * leaves 0x1, 0x4, 0xB, 0x1F (when the host has it) and AMD's
 * 0x80000008. Returns the number of entries in out. With warnings, the
 * requested features the host lacks are added there in QEMU's words.
 */
unsigned x86_cpu_build_cpuid(const X86CPUDef *def, const X86CPUTopology *topo,
                             unsigned cpu_index,
                             const X86CPUIDEntry *supported,
                             unsigned nsupported, X86CPUIDEntry *out,
                             unsigned max_out, GPtrArray *warnings);

/* The entry for function/index in a table, or NULL. */
X86CPUIDEntry *x86_cpuid_find(X86CPUIDEntry *table, unsigned n,
                              uint32_t function, uint32_t index);

/* The MSR values after a power-on reset; returns how many. */
unsigned x86_cpu_reset_msrs(bool bsp, X86CPUMsr *out, unsigned max);

/*
 * The registers of a stopped vCPU in QEMU's "info registers" layout,
 * printed by the KVM and tcg diagnostics alike (target/i386/cpu-dump.c).
 * Segment flags are the descriptor's bits 8-23 in place.
 */
typedef struct X86SegmentDump {
    uint16_t selector;
    uint64_t base;
    uint32_t limit, flags;
} X86SegmentDump;

typedef struct X86CPUDump {
    uint64_t regs[16];                  /* RAX, RCX, ... in encoding order */
    uint64_t rip, rflags;
    X86SegmentDump segs[6];             /* ES, CS, SS, DS, FS, GS */
    X86SegmentDump ldt, tr;
    uint64_t gdt_base, idt_base;
    uint32_t gdt_limit, idt_limit;
    uint64_t cr0, cr2, cr3, cr4, efer, apic_base;
} X86CPUDump;

void x86_cpu_dump(const X86CPUDump *d, GString *out);

#endif
