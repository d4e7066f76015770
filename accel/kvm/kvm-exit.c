/*
 * KVM exits (see kvm-exit.h). The kvm_run layouts are those of
 * Documentation/virt/kvm/api.rst, "The kvm_run structure".
 */
#include <inttypes.h>
#include <string.h>

#include "accel/kvm/kvm-exit.h"
#include "target/i386/cpu.h"

static uint64_t load_le(const uint8_t *p, unsigned size)
{
    uint64_t v = 0;

    for (unsigned i = 0; i < size; i++) {
        v |= (uint64_t)p[i] << (8 * i);
    }
    return v;
}

static void store_le(uint8_t *p, uint64_t v, unsigned size)
{
    for (unsigned i = 0; i < size; i++) {
        p[i] = v >> (8 * i);
    }
}

/* "rep ins/outs" comes as count items of size bytes in the run page. */
static void handle_pio(struct kvm_run *run, const KVMExitBus *bus)
{
    uint8_t *data = (uint8_t *)run + run->io.data_offset;
    unsigned size = run->io.size;

    for (uint32_t i = 0; i < run->io.count; i++, data += size) {
        if (run->io.direction == KVM_EXIT_IO_OUT) {
            bus->pio_write(bus->opaque, run->io.port, load_le(data, size),
                           size);
        } else {
            store_le(data, bus->pio_read(bus->opaque, run->io.port, size),
                     size);
        }
    }
}

/* Sizes that are not 1, 2, 4 or 8 (SSE moves) go byte by byte. */
static void handle_mmio(struct kvm_run *run, const KVMExitBus *bus)
{
    uint64_t addr = run->mmio.phys_addr;
    uint32_t len = MIN(run->mmio.len, (uint32_t)sizeof(run->mmio.data));
    uint8_t *data = run->mmio.data;
    bool natural = len == 1 || len == 2 || len == 4 || len == 8;
    unsigned step = natural ? len : 1;

    for (uint32_t off = 0; off < len; off += step) {
        if (run->mmio.is_write) {
            bus->mmio_write(bus->opaque, addr + off,
                            load_le(data + off, step), step);
        } else {
            store_le(data + off,
                     bus->mmio_read(bus->opaque, addr + off, step), step);
        }
    }
}

KVMExitAction kvm_handle_exit(struct kvm_run *run, const KVMExitBus *bus)
{
    switch (run->exit_reason) {
    case KVM_EXIT_IO:
        handle_pio(run, bus);
        return KVM_EXIT_ACTION_RUN;
    case KVM_EXIT_MMIO:
        handle_mmio(run, bus);
        return KVM_EXIT_ACTION_RUN;
    case KVM_EXIT_IRQ_WINDOW_OPEN:
    case KVM_EXIT_INTR:
        return KVM_EXIT_ACTION_RUN;
    case KVM_EXIT_HLT:
        return KVM_EXIT_ACTION_HALT;
    case KVM_EXIT_SHUTDOWN:
        return KVM_EXIT_ACTION_RESET;
    case KVM_EXIT_SYSTEM_EVENT:
        switch (run->system_event.type) {
        case KVM_SYSTEM_EVENT_RESET:
            return KVM_EXIT_ACTION_RESET;
        case KVM_SYSTEM_EVENT_SHUTDOWN:
            return KVM_EXIT_ACTION_POWEROFF;
        default:
            return KVM_EXIT_ACTION_ERROR;
        }
    default:
        /* INTERNAL_ERROR, FAIL_ENTRY, DEBUG, ... and the unknown. */
        return KVM_EXIT_ACTION_ERROR;
    }
}

const char *kvm_exit_reason_name(uint32_t reason)
{
    static const char *const names[] = {
        [KVM_EXIT_UNKNOWN] = "KVM_EXIT_UNKNOWN",
        [KVM_EXIT_EXCEPTION] = "KVM_EXIT_EXCEPTION",
        [KVM_EXIT_IO] = "KVM_EXIT_IO",
        [KVM_EXIT_HYPERCALL] = "KVM_EXIT_HYPERCALL",
        [KVM_EXIT_DEBUG] = "KVM_EXIT_DEBUG",
        [KVM_EXIT_HLT] = "KVM_EXIT_HLT",
        [KVM_EXIT_MMIO] = "KVM_EXIT_MMIO",
        [KVM_EXIT_IRQ_WINDOW_OPEN] = "KVM_EXIT_IRQ_WINDOW_OPEN",
        [KVM_EXIT_SHUTDOWN] = "KVM_EXIT_SHUTDOWN",
        [KVM_EXIT_FAIL_ENTRY] = "KVM_EXIT_FAIL_ENTRY",
        [KVM_EXIT_INTR] = "KVM_EXIT_INTR",
        [KVM_EXIT_SET_TPR] = "KVM_EXIT_SET_TPR",
        [KVM_EXIT_TPR_ACCESS] = "KVM_EXIT_TPR_ACCESS",
        [KVM_EXIT_NMI] = "KVM_EXIT_NMI",
        [KVM_EXIT_INTERNAL_ERROR] = "KVM_EXIT_INTERNAL_ERROR",
        [KVM_EXIT_SYSTEM_EVENT] = "KVM_EXIT_SYSTEM_EVENT",
    };

    if (reason < G_N_ELEMENTS(names) && names[reason]) {
        return names[reason];
    }
    return "unknown";
}

static const char *suberror_name(uint32_t suberror)
{
    switch (suberror) {
    case KVM_INTERNAL_ERROR_EMULATION:
        return "emulation failure";
    case KVM_INTERNAL_ERROR_SIMUL_EX:
        return "exception while delivering an exception";
    case KVM_INTERNAL_ERROR_DELIVERY_EV:
        return "exit while delivering an event";
    default:
        return NULL;
    }
}

void kvm_exit_describe(const struct kvm_run *run, GString *out)
{
    switch (run->exit_reason) {
    case KVM_EXIT_INTERNAL_ERROR: {
        const char *what = suberror_name(run->internal.suberror);
        uint32_t ndata = MIN(run->internal.ndata,
                             (uint32_t)G_N_ELEMENTS(run->internal.data));

        /* QEMU's wording, which scripts grep for. */
        g_string_append_printf(out, "KVM internal error. Suberror: %u\n",
                               run->internal.suberror);
        for (uint32_t i = 0; i < ndata; i++) {
            g_string_append_printf(out, "extra data[%u]: 0x%016" PRIx64 "\n",
                                   i, (uint64_t)run->internal.data[i]);
        }
        if (what) {
            g_string_append_printf(out, "%s\n", what);
        }
        break;
    }
    case KVM_EXIT_FAIL_ENTRY:
        g_string_append_printf(out, "KVM: entry failed, hardware error "
                               "0x%" PRIx64 "\n", (uint64_t)
                               run->fail_entry.hardware_entry_failure_reason);
        break;
    default:
        g_string_append_printf(out, "KVM: unexpected exit reason %u (%s)\n",
                               run->exit_reason,
                               kvm_exit_reason_name(run->exit_reason));
        break;
    }
}

static X86SegmentDump dump_segment(const struct kvm_segment *s)
{
    return (X86SegmentDump) {
        .selector = s->selector, .base = s->base, .limit = s->limit,
        .flags = (s->type << 8) | (s->s << 12) | (s->dpl << 13) |
                 (s->present << 15) | (s->avl << 20) | (s->l << 21) |
                 (s->db << 22) | (s->g << 23),
    };
}

void kvm_dump_registers(const struct kvm_regs *r, const struct kvm_sregs *s,
                        GString *out)
{
    const X86CPUDump d = {
        .regs = {
            r->rax, r->rcx, r->rdx, r->rbx, r->rsp, r->rbp, r->rsi, r->rdi,
            r->r8, r->r9, r->r10, r->r11, r->r12, r->r13, r->r14, r->r15,
        },
        .rip = r->rip, .rflags = r->rflags,
        .segs = {
            dump_segment(&s->es), dump_segment(&s->cs), dump_segment(&s->ss),
            dump_segment(&s->ds), dump_segment(&s->fs), dump_segment(&s->gs),
        },
        .ldt = dump_segment(&s->ldt), .tr = dump_segment(&s->tr),
        .gdt_base = s->gdt.base, .gdt_limit = s->gdt.limit,
        .idt_base = s->idt.base, .idt_limit = s->idt.limit,
        .cr0 = s->cr0, .cr2 = s->cr2, .cr3 = s->cr3, .cr4 = s->cr4,
        .efer = s->efer, .apic_base = s->apic_base,
    };

    x86_cpu_dump(&d, out);
}
