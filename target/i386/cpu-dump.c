/*
 * A vCPU's registers as QEMU's "info registers" prints them, for the
 * internal-error diagnostics of every accelerator (target/i386/cpu.h).
 */
#include <inttypes.h>

#include "target/i386/cpu-state.h"

static void dump_segment(GString *out, const char *name,
                         const X86SegmentDump *s)
{
    g_string_append_printf(out, "%-3s=%04x %016" PRIx64 " %08x %08x\n",
                           name, s->selector, s->base, s->limit, s->flags);
}

void x86_cpu_dump(const X86CPUDump *d, GString *out)
{
    static const char *const segs[6] = { "ES", "CS", "SS", "DS", "FS", "GS" };
    const uint64_t *r = d->regs;

    /* RAX RBX RCX RDX / RSI RDI RBP RSP: encoding order is A C D B. */
    g_string_append_printf(out,
        "RAX=%016" PRIx64 " RBX=%016" PRIx64 " RCX=%016" PRIx64
        " RDX=%016" PRIx64 "\n"
        "RSI=%016" PRIx64 " RDI=%016" PRIx64 " RBP=%016" PRIx64
        " RSP=%016" PRIx64 "\n"
        "R8 =%016" PRIx64 " R9 =%016" PRIx64 " R10=%016" PRIx64
        " R11=%016" PRIx64 "\n"
        "R12=%016" PRIx64 " R13=%016" PRIx64 " R14=%016" PRIx64
        " R15=%016" PRIx64 "\n"
        "RIP=%016" PRIx64 " RFL=%08" PRIx64 "\n",
        r[0], r[3], r[1], r[2], r[6], r[7], r[5], r[4],
        r[8], r[9], r[10], r[11], r[12], r[13], r[14], r[15],
        d->rip, d->rflags);
    for (unsigned i = 0; i < 6; i++) {
        dump_segment(out, segs[i], &d->segs[i]);
    }
    dump_segment(out, "LDT", &d->ldt);
    dump_segment(out, "TR", &d->tr);
    g_string_append_printf(out, "GDT=     %016" PRIx64 " %08x\n",
                           d->gdt_base, d->gdt_limit);
    g_string_append_printf(out, "IDT=     %016" PRIx64 " %08x\n",
                           d->idt_base, d->idt_limit);
    g_string_append_printf(out,
        "CR0=%08" PRIx64 " CR2=%016" PRIx64 " CR3=%016" PRIx64
        " CR4=%08" PRIx64 "\n"
        "EFER=%016" PRIx64 " APIC_BASE=%016" PRIx64 "\n",
        d->cr0, d->cr2, d->cr3, d->cr4, d->efer, d->apic_base);
}

static X86SegmentDump env_segment(const SegmentCache *s)
{
    return (X86SegmentDump) {
        .selector = s->selector, .base = s->base, .limit = s->limit,
        .flags = s->flags,
    };
}

void x86_cpu_dump_state(CPUX86State *env, GString *out)
{
    X86CPUDump d = {
        .rip = env->rip, .rflags = x86_get_eflags(env),
        .ldt = env_segment(&env->ldt), .tr = env_segment(&env->tr),
        .gdt_base = env->gdt.base, .gdt_limit = env->gdt.limit,
        .idt_base = env->idt.base, .idt_limit = env->idt.limit,
        .cr0 = env->cr[0], .cr2 = env->cr[2], .cr3 = env->cr[3],
        .cr4 = env->cr[4], .efer = env->efer, .apic_base = env->apic_base,
    };

    memcpy(d.regs, env->regs, sizeof(d.regs));
    for (unsigned i = 0; i < X86_NUM_SEGS; i++) {
        d.segs[i] = env_segment(&env->segs[i]);
    }
    x86_cpu_dump(&d, out);
}
