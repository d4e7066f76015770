/*
 * x86 CPU models, CPUID tables and reset MSRs (see target/i386/cpu.h).
 *
 * The CPUID values follow the Intel SDM vol. 2A "CPUID" and AMD's
 * APM vol. 3 appendix E; model definitions and feature names are QEMU's,
 * so that "-cpu qemu64,+x2apic" means the same here as there.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "system/cpus.h"
#include "target/i386/boot-state.h"
#include "target/i386/cpu.h"
#include "target/i386/cpu-model.h"
#include "target/i386/vendor.h"

#define R_EAX X86_R_EAX
#define R_EBX X86_R_EBX
#define R_ECX X86_R_ECX
#define R_EDX X86_R_EDX

#define LEAF_VENDOR         0x00000000
#define LEAF_FEATURES       0x00000001
#define LEAF_CACHE          0x00000004
#define LEAF_EXT_FEATURES   0x00000007
#define LEAF_PMU            0x0000000a
#define LEAF_TOPOLOGY       0x0000000b
#define LEAF_XSAVE          0x0000000d
#define LEAF_TOPOLOGY_V2    0x0000001f
#define LEAF_KVM_FEATURES   0x40000001
#define LEAF_EXT_MAX        0x80000000
#define LEAF_EXT_FEAT       0x80000001
#define LEAF_BRAND_FIRST    0x80000002
#define LEAF_ADDR_SIZES     0x80000008

/* Leaf 1 */
#define CPUID_1_EDX_HTT     (1u << 28)
#define CPUID_1_ECX_X2APIC  (1u << 21)
#define CPUID_1_ECX_XSAVE   (1u << 26)
#define CPUID_1_ECX_HYPERV  (1u << 31)

/* Leaf 0xB / 0x1F level types (ECX bits 15:8) */
#define TOPO_LEVEL_INVALID  0
#define TOPO_LEVEL_SMT      1
#define TOPO_LEVEL_CORE     2

#define F(n, fn, idx, r, b) { n, fn, idx, r, b }

/* QEMU's names, with the aliases it accepts. */
static const X86CPUFeature x86_features[] = {
    /* CPUID.01H:EDX */
    F("fpu", 1, 0, R_EDX, 0), F("vme", 1, 0, R_EDX, 1),
    F("de", 1, 0, R_EDX, 2), F("pse", 1, 0, R_EDX, 3),
    F("tsc", 1, 0, R_EDX, 4), F("msr", 1, 0, R_EDX, 5),
    F("pae", 1, 0, R_EDX, 6), F("mce", 1, 0, R_EDX, 7),
    F("cx8", 1, 0, R_EDX, 8), F("apic", 1, 0, R_EDX, 9),
    F("sep", 1, 0, R_EDX, 11), F("mtrr", 1, 0, R_EDX, 12),
    F("pge", 1, 0, R_EDX, 13), F("mca", 1, 0, R_EDX, 14),
    F("cmov", 1, 0, R_EDX, 15), F("pat", 1, 0, R_EDX, 16),
    F("pse36", 1, 0, R_EDX, 17), F("pn", 1, 0, R_EDX, 18),
    F("clflush", 1, 0, R_EDX, 19), F("ds", 1, 0, R_EDX, 21),
    F("acpi", 1, 0, R_EDX, 22), F("mmx", 1, 0, R_EDX, 23),
    F("fxsr", 1, 0, R_EDX, 24), F("sse", 1, 0, R_EDX, 25),
    F("sse2", 1, 0, R_EDX, 26), F("ss", 1, 0, R_EDX, 27),
    F("ht", 1, 0, R_EDX, 28), F("tm", 1, 0, R_EDX, 29),
    F("ia64", 1, 0, R_EDX, 30), F("pbe", 1, 0, R_EDX, 31),
    /* CPUID.01H:ECX */
    F("pni", 1, 0, R_ECX, 0), F("sse3", 1, 0, R_ECX, 0),
    F("pclmulqdq", 1, 0, R_ECX, 1), F("pclmuldq", 1, 0, R_ECX, 1),
    F("dtes64", 1, 0, R_ECX, 2), F("monitor", 1, 0, R_ECX, 3),
    F("ds-cpl", 1, 0, R_ECX, 4), F("vmx", 1, 0, R_ECX, 5),
    F("smx", 1, 0, R_ECX, 6), F("est", 1, 0, R_ECX, 7),
    F("tm2", 1, 0, R_ECX, 8), F("ssse3", 1, 0, R_ECX, 9),
    F("cid", 1, 0, R_ECX, 10), F("fma", 1, 0, R_ECX, 12),
    F("cx16", 1, 0, R_ECX, 13), F("xtpr", 1, 0, R_ECX, 14),
    F("pdcm", 1, 0, R_ECX, 15), F("pcid", 1, 0, R_ECX, 17),
    F("dca", 1, 0, R_ECX, 18), F("sse4.1", 1, 0, R_ECX, 19),
    F("sse4-1", 1, 0, R_ECX, 19), F("sse4.2", 1, 0, R_ECX, 20),
    F("sse4-2", 1, 0, R_ECX, 20), F("x2apic", 1, 0, R_ECX, 21),
    F("movbe", 1, 0, R_ECX, 22), F("popcnt", 1, 0, R_ECX, 23),
    F("tsc-deadline", 1, 0, R_ECX, 24), F("aes", 1, 0, R_ECX, 25),
    F("xsave", 1, 0, R_ECX, 26), F("osxsave", 1, 0, R_ECX, 27),
    F("avx", 1, 0, R_ECX, 28), F("f16c", 1, 0, R_ECX, 29),
    F("rdrand", 1, 0, R_ECX, 30), F("hypervisor", 1, 0, R_ECX, 31),
    /* CPUID.06H:EAX */
    F("arat", 6, 0, R_EAX, 2),
    /* CPUID.07H.0:EBX */
    F("fsgsbase", 7, 0, R_EBX, 0), F("tsc-adjust", 7, 0, R_EBX, 1),
    F("bmi1", 7, 0, R_EBX, 3), F("hle", 7, 0, R_EBX, 4),
    F("avx2", 7, 0, R_EBX, 5), F("smep", 7, 0, R_EBX, 7),
    F("bmi2", 7, 0, R_EBX, 8), F("erms", 7, 0, R_EBX, 9),
    F("invpcid", 7, 0, R_EBX, 10), F("rtm", 7, 0, R_EBX, 11),
    F("mpx", 7, 0, R_EBX, 14), F("avx512f", 7, 0, R_EBX, 16),
    F("avx512dq", 7, 0, R_EBX, 17), F("rdseed", 7, 0, R_EBX, 18),
    F("adx", 7, 0, R_EBX, 19), F("smap", 7, 0, R_EBX, 20),
    F("avx512ifma", 7, 0, R_EBX, 21), F("clflushopt", 7, 0, R_EBX, 23),
    F("clwb", 7, 0, R_EBX, 24), F("avx512pf", 7, 0, R_EBX, 26),
    F("avx512er", 7, 0, R_EBX, 27), F("avx512cd", 7, 0, R_EBX, 28),
    F("sha-ni", 7, 0, R_EBX, 29), F("avx512bw", 7, 0, R_EBX, 30),
    F("avx512vl", 7, 0, R_EBX, 31),
    /* CPUID.07H.0:ECX */
    F("avx512vbmi", 7, 0, R_ECX, 1), F("umip", 7, 0, R_ECX, 2),
    F("pku", 7, 0, R_ECX, 3), F("waitpkg", 7, 0, R_ECX, 5),
    F("avx512vbmi2", 7, 0, R_ECX, 6), F("gfni", 7, 0, R_ECX, 8),
    F("vaes", 7, 0, R_ECX, 9), F("vpclmulqdq", 7, 0, R_ECX, 10),
    F("avx512vnni", 7, 0, R_ECX, 11), F("avx512bitalg", 7, 0, R_ECX, 12),
    F("avx512-vpopcntdq", 7, 0, R_ECX, 14), F("la57", 7, 0, R_ECX, 16),
    F("rdpid", 7, 0, R_ECX, 22), F("cldemote", 7, 0, R_ECX, 25),
    F("movdiri", 7, 0, R_ECX, 27), F("movdir64b", 7, 0, R_ECX, 28),
    /* CPUID.07H.0:EDX */
    F("fsrm", 7, 0, R_EDX, 4), F("md-clear", 7, 0, R_EDX, 10),
    F("serialize", 7, 0, R_EDX, 14), F("spec-ctrl", 7, 0, R_EDX, 26),
    F("stibp", 7, 0, R_EDX, 27), F("arch-capabilities", 7, 0, R_EDX, 29),
    F("ssbd", 7, 0, R_EDX, 31),
    /* CPUID.0DH.1:EAX */
    F("xsaveopt", 0xd, 1, R_EAX, 0), F("xsavec", 0xd, 1, R_EAX, 1),
    F("xgetbv1", 0xd, 1, R_EAX, 2), F("xsaves", 0xd, 1, R_EAX, 3),
    /* CPUID.40000001H:EAX, KVM's paravirtual features */
    F("kvmclock", LEAF_KVM_FEATURES, 0, R_EAX, 0),
    F("kvm-nopiodelay", LEAF_KVM_FEATURES, 0, R_EAX, 1),
    F("kvm-mmu", LEAF_KVM_FEATURES, 0, R_EAX, 2),
    F("kvm-asyncpf", LEAF_KVM_FEATURES, 0, R_EAX, 4),
    F("kvm-steal-time", LEAF_KVM_FEATURES, 0, R_EAX, 5),
    F("kvm-pv-eoi", LEAF_KVM_FEATURES, 0, R_EAX, 6),
    F("kvm-pv-unhalt", LEAF_KVM_FEATURES, 0, R_EAX, 7),
    F("kvm-pv-tlb-flush", LEAF_KVM_FEATURES, 0, R_EAX, 9),
    F("kvm-pv-ipi", LEAF_KVM_FEATURES, 0, R_EAX, 11),
    F("kvm-poll-control", LEAF_KVM_FEATURES, 0, R_EAX, 12),
    F("kvm-pv-sched-yield", LEAF_KVM_FEATURES, 0, R_EAX, 13),
    F("kvm-asyncpf-int", LEAF_KVM_FEATURES, 0, R_EAX, 14),
    F("kvm-msi-ext-dest-id", LEAF_KVM_FEATURES, 0, R_EAX, 15),
    F("kvmclock-stable-bit", LEAF_KVM_FEATURES, 0, R_EAX, 24),
    /* CPUID.80000001H:EDX */
    F("syscall", LEAF_EXT_FEAT, 0, R_EDX, 11),
    F("nx", LEAF_EXT_FEAT, 0, R_EDX, 20), F("xd", LEAF_EXT_FEAT, 0, R_EDX, 20),
    F("mmxext", LEAF_EXT_FEAT, 0, R_EDX, 22),
    F("fxsr-opt", LEAF_EXT_FEAT, 0, R_EDX, 25),
    F("ffxsr", LEAF_EXT_FEAT, 0, R_EDX, 25),
    F("pdpe1gb", LEAF_EXT_FEAT, 0, R_EDX, 26),
    F("rdtscp", LEAF_EXT_FEAT, 0, R_EDX, 27),
    F("lm", LEAF_EXT_FEAT, 0, R_EDX, 29), F("i64", LEAF_EXT_FEAT, 0, R_EDX, 29),
    F("3dnowext", LEAF_EXT_FEAT, 0, R_EDX, 30),
    F("3dnow", LEAF_EXT_FEAT, 0, R_EDX, 31),
    /* CPUID.80000001H:ECX */
    F("lahf-lm", LEAF_EXT_FEAT, 0, R_ECX, 0),
    F("cmp-legacy", LEAF_EXT_FEAT, 0, R_ECX, 1),
    F("svm", LEAF_EXT_FEAT, 0, R_ECX, 2),
    F("extapic", LEAF_EXT_FEAT, 0, R_ECX, 3),
    F("cr8legacy", LEAF_EXT_FEAT, 0, R_ECX, 4),
    F("abm", LEAF_EXT_FEAT, 0, R_ECX, 5),
    F("sse4a", LEAF_EXT_FEAT, 0, R_ECX, 6),
    F("misalignsse", LEAF_EXT_FEAT, 0, R_ECX, 7),
    F("3dnowprefetch", LEAF_EXT_FEAT, 0, R_ECX, 8),
    F("osvw", LEAF_EXT_FEAT, 0, R_ECX, 9),
    F("ibs", LEAF_EXT_FEAT, 0, R_ECX, 10),
    F("xop", LEAF_EXT_FEAT, 0, R_ECX, 11),
    F("skinit", LEAF_EXT_FEAT, 0, R_ECX, 12),
    F("wdt", LEAF_EXT_FEAT, 0, R_ECX, 13),
    F("lwp", LEAF_EXT_FEAT, 0, R_ECX, 15),
    F("fma4", LEAF_EXT_FEAT, 0, R_ECX, 16),
    F("tce", LEAF_EXT_FEAT, 0, R_ECX, 17),
    F("tbm", LEAF_EXT_FEAT, 0, R_ECX, 21),
    F("topoext", LEAF_EXT_FEAT, 0, R_ECX, 22),
    F("perfctr-core", LEAF_EXT_FEAT, 0, R_ECX, 23),
    F("perfctr-nb", LEAF_EXT_FEAT, 0, R_ECX, 24),
    /* CPUID.80000007H:EDX */
    F("invtsc", 0x80000007, 0, R_EDX, 8),
};

/*
 * qemu64 (QEMU's builtin definition): an AMD-flavoured 64-bit CPU with
 * the SSE2 baseline; under KVM QEMU also turns x2apic on and svm off.
 */
#define QEMU64_LEVEL        0xd
#define QEMU64_XLEVEL       0x8000000a
#define QEMU64_SIGNATURE    0x00060fb1  /* family 15, model 107, stepping 1 */
#define QEMU64_1_EDX        0x078bfbfdu /* PPRO + mtrr mca pse36 clflush */
#define QEMU64_1_ECX        ((1u << 0) | (1u << 13) | CPUID_1_ECX_X2APIC)
#define QEMU64_E1_EDX       ((1u << 11) | (1u << 20) | (1u << 29))
#define QEMU64_E1_ECX       (1u << 0)
/* Leaf 1 EDX bits AMD mirrors into 0x80000001 EDX. */
#define AMD_EDX_ALIASES     0x0183f3ffu
#define QEMU64_BRAND        "QEMU Virtual CPU version 2.5+"

static const char *const model_names[] = {
    [X86_CPU_MODEL_HOST] = "host",
    [X86_CPU_MODEL_MAX] = "max",
    [X86_CPU_MODEL_QEMU64] = "qemu64",
};

static bool name_eq(const char *a, const char *b)
{
    /* QEMU takes "_" and "-" alike in feature names. */
    for (; *a && *b; a++, b++) {
        char ca = *a == '_' ? '-' : *a;
        char cb = *b == '_' ? '-' : *b;

        if (ca != cb) {
            return false;
        }
    }
    return *a == *b;
}

const X86CPUFeature *x86_cpu_feature_find(const char *name)
{
    for (size_t i = 0; i < G_N_ELEMENTS(x86_features); i++) {
        if (name_eq(x86_features[i].name, name)) {
            return &x86_features[i];
        }
    }
    return NULL;
}

unsigned x86_cpu_feature_count(void)
{
    return G_N_ELEMENTS(x86_features);
}

const X86CPUFeature *x86_cpu_feature_at(unsigned i)
{
    g_assert(i < G_N_ELEMENTS(x86_features));
    return &x86_features[i];
}

bool x86_cpu_feature_is_alias(unsigned i)
{
    const X86CPUFeature *f = x86_cpu_feature_at(i);

    for (unsigned j = 0; j < i; j++) {
        const X86CPUFeature *g = &x86_features[j];

        if (g->function == f->function && g->index == f->index &&
            g->reg == f->reg && g->bit == f->bit) {
            return true;
        }
    }
    return false;
}

static bool add_feature(X86CPUDef *def, const char *name, bool on,
                        Error **errp)
{
    const X86CPUFeature *f = x86_cpu_feature_find(name);

    if (!f) {
        error_setg(errp, "Property '%s-x86_64-cpu.%s' not found", def->name,
                   name);
        return false;
    }
    /* The last word on a feature wins. */
    g_ptr_array_remove(on ? def->off : def->on, (gpointer)f);
    g_ptr_array_add(on ? def->on : def->off, (gpointer)f);
    return true;
}

/*
 * apic-id=N as QEMU's global property takes it: a number in any base
 * strtoull knows, within 32 bits. Every board but none overrides it with
 * the topology's ID, as QEMU's do.
 */
static bool parse_apic_id(X86CPUDef *def, const char *value, Error **errp)
{
    const char *digits = value[0] == '-' ? value + 1 : value;
    char *end;
    guint64 v;

    errno = 0;
    v = g_ascii_strtoull(digits, &end, 0);
    if (!g_ascii_isdigit(digits[0]) || *end || errno == EINVAL) {
        error_setg(errp, "can't apply global %s-x86_64-cpu.apic-id=%s: "
                   "Parameter 'apic-id' expects uint64", def->name, value);
        return false;
    }
    if (digits != value || errno == ERANGE || v > UINT32_MAX) {
        error_setg(errp, "can't apply global %s-x86_64-cpu.apic-id=%s: "
                   "Parameter 'apic-id' expects uint32_t", def->name, value);
        return false;
    }
    def->apic_id = v;
    return true;
}

bool x86_cpu_def_init(X86CPUDef *def, const char *model,
                      const GPtrArray *features, Error **errp)
{
    int kind = -1;

    memset(def, 0, sizeof(*def));
    for (int i = 0; i < (int)G_N_ELEMENTS(model_names); i++) {
        if (!model || !strcmp(model, model_names[i])) {
            kind = i;
            break;
        }
    }
    if (kind < 0) {
        error_setg(errp, "unable to find CPU model '%s'", model);
        return false;
    }
    def->kind = kind;
    def->name = model_names[kind];
    def->apic_id = X86_CPU_APIC_ID_UNASSIGNED;
    def->on = g_ptr_array_new();
    def->off = g_ptr_array_new();
    for (guint i = 0; features && i < features->len; i++) {
        const char *f = g_ptr_array_index(features, i);
        const char *eq = strchr(f, '=');
        bool ok;

        if (f[0] == '+' || f[0] == '-') {
            ok = add_feature(def, f + 1, f[0] == '+', errp);
        } else if (eq) {
            char *name = g_strndup(f, eq - f);

            if (!strcmp(name, "apic-id")) {
                ok = parse_apic_id(def, eq + 1, errp);
            } else if (!strcmp(name, "vendor")) {
                /* QEMU's wording, with the empty type name it prints. */
                ok = strlen(eq + 1) == X86_VENDOR_STRING_LEN;
                if (ok) {
                    memcpy(def->vendor, eq + 1, X86_VENDOR_STRING_LEN + 1);
                } else {
                    error_setg(errp, "Property '.vendor' doesn't take "
                               "value '%s'", eq + 1);
                }
            } else if (!strcmp(eq + 1, "on") || !strcmp(eq + 1, "off")) {
                ok = add_feature(def, name, !strcmp(eq + 1, "on"), errp);
            } else {
                error_setg(errp, "Property '%s-x86_64-cpu.%s' doesn't take "
                           "value '%s'", def->name, name, eq + 1);
                ok = false;
            }
            g_free(name);
        } else {
            ok = add_feature(def, f, true, errp);
        }
        if (!ok) {
            x86_cpu_def_free(def);
            return false;
        }
    }
    return true;
}

void x86_cpu_def_free(X86CPUDef *def)
{
    if (def->on) {
        g_ptr_array_free(def->on, true);
    }
    if (def->off) {
        g_ptr_array_free(def->off, true);
    }
    def->on = def->off = NULL;
}

X86CPUTopology x86_cpu_topology(unsigned sockets, unsigned cores,
                                unsigned threads)
{
    return (X86CPUTopology) {
        .sockets = MAX(sockets, 1u),
        .cores = MAX(cores, 1u),
        .threads = MAX(threads, 1u),
    };
}

bool x86_cpu_topology_given_apic_id(X86CPUTopology *topo,
                                    const X86CPUDef *def, Error **errp)
{
    /* QEMU's realize refuses the unset value, given or not. */
    if (def->apic_id == X86_CPU_APIC_ID_UNASSIGNED) {
        error_setg(errp, "apic-id property was not initialized properly");
        return false;
    }
    topo->apic_id_given = true;
    topo->apic_id = def->apic_id;
    return true;
}

void x86_cpu_state_init(CPUState *cs, const X86CPUTopology *topo)
{
    cs->apic_id = x86_cpu_apic_id(topo, cs->index);
    x86_cpu_topo_ids(topo, cs->index, &cs->socket, &cs->core, &cs->thread);
    cs->no_topology = topo->apic_id_given;
}

/* Bits needed to number count items (QEMU's apicid_bitwidth_for_count). */
static unsigned id_bits(unsigned count)
{
    unsigned bits = 0;

    while ((1u << bits) < count) {
        bits++;
    }
    return bits;
}

void x86_cpu_topo_ids(const X86CPUTopology *topo, unsigned cpu_index,
                      unsigned *socket, unsigned *core, unsigned *thread)
{
    *thread = cpu_index % topo->threads;
    *core = (cpu_index / topo->threads) % topo->cores;
    *socket = cpu_index / (topo->threads * topo->cores);
}

uint32_t x86_cpu_apic_id(const X86CPUTopology *topo, unsigned cpu_index)
{
    unsigned smt = id_bits(topo->threads), core = id_bits(topo->cores);
    unsigned s, c, t;

    if (topo->apic_id_given) {
        return topo->apic_id;
    }
    x86_cpu_topo_ids(topo, cpu_index, &s, &c, &t);
    return (s << (core + smt)) | (c << smt) | t;
}

X86CPUIDEntry *x86_cpuid_find(X86CPUIDEntry *table, unsigned n,
                              uint32_t function, uint32_t index)
{
    for (unsigned i = 0; i < n; i++) {
        if (table[i].function == function &&
            (!(table[i].flags & X86_CPUID_FLAG_INDEXED) ||
             table[i].index == index)) {
            return &table[i];
        }
    }
    return NULL;
}

static const char *const reg_names[] = { "EAX", "EBX", "ECX", "EDX" };

static void feature_warning(GPtrArray *warnings, const X86CPUFeature *f)
{
    char leaf[24];

    if (f->function & 0x80000000u || f->function & 0x40000000u) {
        g_snprintf(leaf, sizeof(leaf), "CPUID.%08XH", f->function);
    } else if (f->index) {
        g_snprintf(leaf, sizeof(leaf), "CPUID.%02XH_%u", f->function,
                   f->index);
    } else {
        g_snprintf(leaf, sizeof(leaf), "CPUID.%02XH", f->function);
    }
    g_ptr_array_add(warnings, g_strdup_printf(
        "host doesn't support requested feature: %s:%s.%s [bit %u]", leaf,
        reg_names[f->reg], f->name, f->bit));
}

static bool entry_is_amd(X86CPUIDEntry *t, unsigned n)
{
    X86CPUIDEntry *v = x86_cpuid_find(t, n, LEAF_VENDOR, 0);

    /* "AuthenticAMD" or Hygon's "HygonGenuine" */
    return v && (v->regs[R_EBX] == 0x68747541 ||
                 v->regs[R_EBX] == 0x6f677948);
}

/* Turn the supported table into qemu64's, keeping what KVM adds. */
static unsigned apply_qemu64(X86CPUIDEntry *t, unsigned n)
{
    unsigned out = 0;

    for (unsigned i = 0; i < n; i++) {
        X86CPUIDEntry e = t[i];
        uint32_t fn = e.function;

        if ((fn < 0x40000000 && fn > QEMU64_LEVEL) ||
            (fn >= 0x80000000 && fn > QEMU64_XLEVEL)) {
            continue;
        }
        switch (fn) {
        case LEAF_VENDOR:
            e.regs[R_EAX] = QEMU64_LEVEL;
            e.regs[R_EBX] = 0x68747541;             /* "Auth" */
            e.regs[R_EDX] = 0x69746e65;             /* "enti" */
            e.regs[R_ECX] = 0x444d4163;             /* "cAMD" */
            break;
        case LEAF_FEATURES:
            e.regs[R_EAX] = QEMU64_SIGNATURE;
            e.regs[R_EBX] &= 0x0000ff00;            /* CLFLUSH line size */
            e.regs[R_ECX] &= QEMU64_1_ECX | CPUID_1_ECX_HYPERV;
            e.regs[R_EDX] &= QEMU64_1_EDX;
            break;
        case LEAF_EXT_MAX:
            e.regs[R_EAX] = QEMU64_XLEVEL;
            e.regs[R_EBX] = 0x68747541;
            e.regs[R_EDX] = 0x69746e65;
            e.regs[R_ECX] = 0x444d4163;
            break;
        case LEAF_EXT_FEAT:
            e.regs[R_EAX] = QEMU64_SIGNATURE;
            e.regs[R_EBX] = 0;
            e.regs[R_EDX] &= QEMU64_E1_EDX | (QEMU64_1_EDX & AMD_EDX_ALIASES);
            e.regs[R_ECX] &= QEMU64_E1_ECX;
            break;
        case LEAF_BRAND_FIRST:
        case LEAF_BRAND_FIRST + 1:
        case LEAF_BRAND_FIRST + 2: {
            char brand[48] = QEMU64_BRAND;

            memcpy(e.regs, brand + 16 * (fn - LEAF_BRAND_FIRST), 16);
            break;
        }
        case LEAF_EXT_FEATURES:
        case LEAF_PMU:
        case LEAF_XSAVE:
        case 6:
        case 0x80000007:
            /* qemu64 has none of these features. */
            memset(e.regs, 0, sizeof(e.regs));
            if (fn == LEAF_EXT_FEATURES && e.index == 0) {
                e.regs[R_EAX] = 0;
            }
            break;
        default:
            break;
        }
        t[out++] = e;
    }
    return out;
}

/* Which features the model asks for by default (qemu64's bits). */
static bool model_wants(const X86CPUDef *def, const X86CPUFeature *f)
{
    if (def->kind != X86_CPU_MODEL_QEMU64) {
        return false;
    }
    if (f->function == LEAF_FEATURES) {
        return (f->reg == R_EDX ? QEMU64_1_EDX : QEMU64_1_ECX) &
               (1u << f->bit);
    }
    if (f->function == LEAF_EXT_FEAT) {
        return (f->reg == R_EDX ? QEMU64_E1_EDX : QEMU64_E1_ECX) &
               (1u << f->bit);
    }
    return false;
}

/*
 * Leaf 0xd follows leaf 1's XSAVE bit: all zeros without it; with it on
 * a model that had none (qemu64,+xsave), the legacy components the
 * model has, x87 and SSE (576 bytes), as QEMU sizes it.
 */
static void fix_xsave_leaf(X86CPUIDEntry *out, unsigned n,
                           const X86CPUIDEntry *supported,
                           unsigned nsupported)
{
    X86CPUIDEntry *f = x86_cpuid_find(out, n, LEAF_FEATURES, 0);
    X86CPUIDEntry *x = x86_cpuid_find(out, n, LEAF_XSAVE, 0);
    const X86CPUIDEntry *s = x86_cpuid_find((X86CPUIDEntry *)supported,
                                            nsupported, LEAF_XSAVE, 0);

    if (!f || !x) {
        return;
    }
    if (!(f->regs[R_ECX] & CPUID_1_ECX_XSAVE)) {
        for (unsigned i = 0; i < n; i++) {
            if (out[i].function == LEAF_XSAVE) {
                memset(out[i].regs, 0, sizeof(out[i].regs));
            }
        }
        return;
    }
    if (!x->regs[R_EAX] && s) {
        x->regs[R_EAX] = s->regs[R_EAX] & 3;    /* x87, SSE */
        x->regs[R_EBX] = x->regs[R_ECX] = 576;
        x->regs[R_EDX] = 0;
    }
}

static void set_topology_leaf(X86CPUIDEntry *out, unsigned *n,
                              unsigned max_out, uint32_t fn,
                              const X86CPUTopology *topo, uint32_t apic_id)
{
    unsigned smt = id_bits(topo->threads), core = id_bits(topo->cores);
    /* Subleaf 0: threads of a core; 1: logical CPUs of a package. */
    const uint32_t shift[2] = { smt, smt + core };
    const uint32_t count[2] = { topo->threads, topo->threads * topo->cores };
    const uint32_t type[2] = { TOPO_LEVEL_SMT, TOPO_LEVEL_CORE };

    for (uint32_t sub = 0; sub < 3 && *n < max_out; sub++) {
        X86CPUIDEntry *e = &out[(*n)++];

        e->function = fn;
        e->index = sub;
        e->flags = X86_CPUID_FLAG_INDEXED;
        e->regs[R_EAX] = sub < 2 ? shift[sub] : 0;
        e->regs[R_EBX] = sub < 2 ? count[sub] : 0;
        e->regs[R_ECX] = sub | ((sub < 2 ? type[sub] : TOPO_LEVEL_INVALID)
                                << 8);
        e->regs[R_EDX] = apic_id;
    }
}

unsigned x86_cpu_build_cpuid(const X86CPUDef *def, const X86CPUTopology *topo,
                             unsigned cpu_index,
                             const X86CPUIDEntry *supported,
                             unsigned nsupported, X86CPUIDEntry *out,
                             unsigned max_out, GPtrArray *warnings)
{
    uint32_t apic_id = x86_cpu_apic_id(topo, cpu_index);
    unsigned per_pkg = topo->threads * topo->cores;
    bool has_v2 = false;
    X86CPUIDEntry *e;
    unsigned n = 0;

    /* The topology leaves are rebuilt below. */
    for (unsigned i = 0; i < nsupported && n < max_out; i++) {
        if (supported[i].function == LEAF_TOPOLOGY) {
            continue;
        }
        if (supported[i].function == LEAF_TOPOLOGY_V2) {
            has_v2 = true;
            continue;
        }
        out[n++] = supported[i];
    }
    if (def->kind == X86_CPU_MODEL_QEMU64) {
        n = apply_qemu64(out, n);
        has_v2 = false;
    }
    if (warnings) {
        for (size_t i = 0; i < G_N_ELEMENTS(x86_features); i++) {
            const X86CPUFeature *f = &x86_features[i];
            bool asked = model_wants(def, f) ||
                         g_ptr_array_find(def->on, f, NULL);
            const X86CPUIDEntry *s = x86_cpuid_find(
                (X86CPUIDEntry *)supported, nsupported, f->function,
                f->index);

            if (asked && !g_ptr_array_find(def->off, f, NULL) &&
                (!s || !(s->regs[f->reg] & (1u << f->bit))) &&
                (i == 0 || x86_features[i - 1].function != f->function ||
                 x86_features[i - 1].reg != f->reg ||
                 x86_features[i - 1].bit != f->bit)) {
                feature_warning(warnings, f);
            }
        }
    }
    /* +feat only where supported (as QEMU without enforce); -feat always. */
    for (guint i = 0; i < def->on->len; i++) {
        const X86CPUFeature *f = g_ptr_array_index(def->on, i);
        const X86CPUIDEntry *s = x86_cpuid_find(
            (X86CPUIDEntry *)supported, nsupported, f->function, f->index);

        e = x86_cpuid_find(out, n, f->function, f->index);
        if (e && s) {
            e->regs[f->reg] |= s->regs[f->reg] & (1u << f->bit);
        }
    }
    for (guint i = 0; i < def->off->len; i++) {
        const X86CPUFeature *f = g_ptr_array_index(def->off, i);

        e = x86_cpuid_find(out, n, f->function, f->index);
        if (e) {
            e->regs[f->reg] &= ~(1u << f->bit);
        }
    }

    fix_xsave_leaf(out, n, supported, nsupported);

    if (def->vendor[0]) {
        /* QEMU puts vendor= in both vendor leaves. */
        e = x86_cpuid_find(out, n, LEAF_VENDOR, 0);
        if (e) {
            x86_vendor_put(e->regs, def->vendor);
        }
        e = x86_cpuid_find(out, n, LEAF_EXT_MAX, 0);
        if (e) {
            x86_vendor_put(e->regs, def->vendor);
        }
    }

    e = x86_cpuid_find(out, n, LEAF_FEATURES, 0);
    if (e) {
        e->regs[R_EBX] &= 0x0000ffff;
        e->regs[R_EBX] |= apic_id << 24;
        e->regs[R_EDX] &= ~CPUID_1_EDX_HTT;
        if (per_pkg > 1) {
            e->regs[R_EBX] |= MIN(per_pkg, 255u) << 16;
            e->regs[R_EDX] |= CPUID_1_EDX_HTT;
        }
    }
    /* Deterministic cache parameters: who shares each cache. */
    for (unsigned i = 0; i < n; i++) {
        uint32_t *eax = &out[i].regs[R_EAX];
        unsigned level = (*eax >> 5) & 7;

        if (out[i].function != LEAF_CACHE || !(*eax & 0x1f)) {
            continue;
        }
        *eax &= 0x3ff;
        *eax |= ((1u << id_bits(topo->cores)) - 1) << 26;
        *eax |= ((level <= 2 ? (1u << id_bits(topo->threads))
                             : (1u << id_bits(per_pkg))) - 1) << 14;
    }
    set_topology_leaf(out, &n, max_out, LEAF_TOPOLOGY, topo, apic_id);
    if (has_v2) {
        set_topology_leaf(out, &n, max_out, LEAF_TOPOLOGY_V2, topo, apic_id);
    }
    if (entry_is_amd(out, n)) {
        e = x86_cpuid_find(out, n, LEAF_ADDR_SIZES, 0);
        if (e) {
            e->regs[R_ECX] = (id_bits(per_pkg) << 12) | (per_pkg - 1);
        }
        e = x86_cpuid_find(out, n, LEAF_EXT_FEAT, 0);
        if (e && per_pkg > 1) {
            e->regs[R_ECX] |= 1u << 1;              /* CmpLegacy */
        }
    }
    return n;
}

unsigned x86_cpu_reset_msrs(bool bsp, X86CPUMsr *out, unsigned max)
{
    const X86CPUMsr msrs[] = {
        { MSR_IA32_APICBASE, MSR_IA32_APICBASE_BASE |
          MSR_IA32_APICBASE_ENABLE | (bsp ? MSR_IA32_APICBASE_BSP : 0) },
        { MSR_IA32_TSC, 0 },
        { MSR_IA32_MISC_ENABLE, MSR_IA32_MISC_ENABLE_FAST_STRING },
        { MSR_PAT, MSR_PAT_RESET },
        { MSR_IA32_SYSENTER_CS, 0 },
        { MSR_IA32_SYSENTER_ESP, 0 },
        { MSR_IA32_SYSENTER_EIP, 0 },
        { MSR_STAR, 0 },
        { MSR_LSTAR, 0 },
        { MSR_CSTAR, 0 },
        { MSR_FMASK, 0 },
        { MSR_KERNEL_GS_BASE, 0 },
        { MSR_TSC_AUX, 0 },
    };
    unsigned n = MIN(max, G_N_ELEMENTS(msrs));

    memcpy(out, msrs, n * sizeof(*out));
    return n;
}

/* --- the boot state (include/target/i386/boot-state.h) --- */

void x86_boot_state_init(X86BootState *st)
{
    memset(st, 0, sizeof(*st));
    st->ranges = g_array_new(false, true, sizeof(X86BootRange));
    st->warnings = g_ptr_array_new_with_free_func(g_free);
}

void x86_boot_state_free(X86BootState *st)
{
    if (st->ranges) {
        g_array_free(st->ranges, true);
        st->ranges = NULL;
    }
    if (st->warnings) {
        g_ptr_array_free(st->warnings, true);
        st->warnings = NULL;
    }
}
