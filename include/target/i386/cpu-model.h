/*
 * A CPU model as QOM shows it: every feature flag of a CPUID table as a
 * boolean property, and the identity fields (family, model, stepping,
 * vendor, model-id, levels) as QEMU's x86 CPU types name them. Serves
 * qom-list/qom-get on the vCPUs and query-cpu-model-expansion.
 */
#ifndef TARGET_I386_CPU_MODEL_H
#define TARGET_I386_CPU_MODEL_H

#include <stdbool.h>
#include <stdint.h>

#include "qom/object.h"
#include "target/i386/cpu.h"

#define X86_CPU_MODEL_FEATURES_MAX  256

typedef struct X86CPUModelInfo {
    bool feature[X86_CPU_MODEL_FEATURES_MAX];  /* by x86_cpu_feature_at() */
    uint32_t family, model, stepping;
    uint32_t level, xlevel, xlevel2;
    char vendor[13];
    char model_id[49];
} X86CPUModelInfo;

/* The feature table in order: canonical names first, aliases after. */
unsigned x86_cpu_feature_count(void);
const X86CPUFeature *x86_cpu_feature_at(unsigned i);
/* Whether entry i only repeats an earlier entry's bit (an alias). */
bool x86_cpu_feature_is_alias(unsigned i);

/* Read the model back from a CPUID table. */
void x86_cpu_model_info(const X86CPUIDEntry *table, unsigned n,
                        X86CPUModelInfo *info);

/*
 * The read-only properties over an X86CPUModelInfo (the object's state):
 * one bool per feature name, aliases included, then the identity fields.
 */
const Property *x86_cpu_model_props(void);

/*
 * query-cpu-model-expansion's "props": static lists each feature once
 * (canonical names) with the identity fields a "base" model needs; full
 * lists every property of the model's type.
 */
JsonObject *x86_cpu_model_expand(const X86CPUModelInfo *info, bool full);

#endif
