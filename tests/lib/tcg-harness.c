/*
 * The software-CPU test bench (see tcg-harness.h).
 */
#include <string.h>
#include <sys/mman.h>

#include "target/i386/tb-cache.h"
#include "system/memory.h"
#include "tcg-harness.h"

#define PT_POOL_START   0x8000u
#define PT_POOL_END     0x10000u
#define PTE_P           1ull
#define PTE_W           2ull
#define PTE_PS          0x80ull

static TcgHarness bench;
static MemoryRegion ram_mr;

static uint64_t ld64(TcgHarness *h, uint64_t pa)
{
    uint64_t v;

    memcpy(&v, h->ram + pa, 8);
    return v;
}

static void st64(TcgHarness *h, uint64_t pa, uint64_t v)
{
    memcpy(h->ram + pa, &v, 8);
}

static uint64_t pt_alloc(TcgHarness *h)
{
    uint64_t pa = h->pt_next;

    g_assert_cmpuint(pa, <, PT_POOL_END);
    h->pt_next += X86_PAGE_SIZE;
    memset(h->ram + pa, 0, X86_PAGE_SIZE);
    return pa;
}

/* The table an entry points to, made when missing. */
static uint64_t pt_next_level(TcgHarness *h, uint64_t entry_pa)
{
    uint64_t e = ld64(h, entry_pa);

    if (!(e & PTE_P)) {
        e = pt_alloc(h) | PTE_P | PTE_W;
        st64(h, entry_pa, e);
    }
    g_assert_false(e & PTE_PS);
    return e & 0xffffffffff000ull;
}

void th_map(TcgHarness *h, uint64_t va, uint64_t pa, uint64_t len)
{
    for (uint64_t off = 0; off < len; off += X86_PAGE_SIZE) {
        uint64_t v = va + off;
        uint64_t pdpt = pt_next_level(h, h->pml4 + ((v >> 39) & 511) * 8);
        uint64_t pd = pt_next_level(h, pdpt + ((v >> 30) & 511) * 8);
        uint64_t pt = pt_next_level(h, pd + ((v >> 21) & 511) * 8);

        st64(h, pt + ((v >> 12) & 511) * 8, (pa + off) | PTE_P | PTE_W);
    }
    x86_tlb_flush(h->env, true);
}

void th_write(TcgHarness *h, uint64_t pa, const void *p, size_t n)
{
    memcpy(h->ram + pa, p, n);
    tb_invalidate_phys_range(pa, n);
}

static void build_tables(TcgHarness *h)
{
    static const uint64_t gdt[] = {
        0,
        0x00209a0000000000ull,          /* 0x08 64-bit code */
        0x00cf92000000ffffull,          /* 0x10 flat data */
        0x00cf9a000000ffffull,          /* 0x18 32-bit code */
        0x00009a010000ffffull,          /* 0x20 16-bit code at 64 KiB */
        0x000092000000ffffull,          /* 0x28 16-bit data */
    };
    uint64_t pdpt, pd;

    memcpy(h->ram + TH_GDT, gdt, sizeof(gdt));
    for (int v = 0; v < 256; v++) {
        uint64_t off = TH_HANDLERS + 16 * v;
        uint64_t lo = (off & 0xffff) | ((uint64_t)TH_SEL_CODE64 << 16) |
                      (0x8e00ull << 32) | ((off >> 16) << 48);

        h->ram[off] = 0xf4;                             /* hlt */
        st64(h, TH_IDT64 + 16 * v, lo);
        st64(h, TH_IDT64 + 16 * v + 8, off >> 32);
        st64(h, TH_IDT32 + 8 * v, (off & 0xffff) |
             ((uint64_t)TH_SEL_CODE32 << 16) | (0x8e00ull << 32) |
             ((off >> 16) << 48));
        /* Real-mode IVT: offset:segment 0. */
        h->ram[4 * v] = off & 0xff;
        h->ram[4 * v + 1] = off >> 8;
        h->ram[4 * v + 2] = 0;
        h->ram[4 * v + 3] = 0;
    }
    /* Long mode: identity map of the first 32 MiB with 2 MiB pages. */
    h->pt_next = PT_POOL_START;
    h->pml4 = pt_alloc(h);
    pdpt = pt_alloc(h);
    pd = pt_alloc(h);
    st64(h, h->pml4, pdpt | PTE_P | PTE_W);
    st64(h, pdpt, pd | PTE_P | PTE_W);
    for (uint64_t i = 0; i < TH_RAM_SIZE >> 21; i++) {
        st64(h, pd + i * 8, (i << 21) | PTE_P | PTE_W | PTE_PS);
    }
}

TcgHarness *th_get(void)
{
    TcgHarness *h = &bench;
    Error *err = NULL;

    if (h->cpu) {
        return h;
    }
    h->ram = mmap(NULL, TH_RAM_SIZE, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    g_assert(h->ram != MAP_FAILED);
    memory_region_init_ram_ptr(&ram_mr, "tcg-test-ram", TH_RAM_SIZE, h->ram);
    if (!address_space_map_region(&address_space_memory, &ram_mr, 0, &err)) {
        g_error("cannot map test RAM: %s", error_get_pretty(err));
    }
    g_assert_true(tb_cache_init(64u << 20, NULL));
    h->cpu = g_new0(X86CPU, 1);
    h->env = &h->cpu->env;
    h->env->cpu = h->cpu;
    x86_cpu_reset_state(h->cpu, true);
    build_tables(h);
    return h;
}

static SegmentCache seg(uint16_t sel, uint64_t base, uint32_t limit,
                        uint32_t flags)
{
    return (SegmentCache) { .selector = sel, .base = base, .limit = limit,
                            .flags = flags };
}

void th_set_mode(TcgHarness *h, THMode mode)
{
    CPUX86State *env = h->env;
    const uint32_t data = DESC_P_MASK | DESC_S_MASK | DESC_W_MASK |
                          DESC_A_MASK;
    const uint32_t code = DESC_P_MASK | DESC_S_MASK | DESC_CS_MASK |
                          DESC_R_MASK | DESC_A_MASK;
    uint32_t cflags, dflags;
    uint16_t csel, dsel;

    memset(env->regs, 0, sizeof(env->regs));
    env->regs[R_ESP] = TH_STACK;
    env->rip = TH_CODE;
    env->hflags &= ~(HF_HALTED_MASK | HF_INHIBIT_IRQ_MASK);
    env->exception_index = -1;
    env->gdt = (DescTable) { .base = TH_GDT, .limit = 6 * 8 - 1 };
    env->ldt = seg(0, 0, 0, 0);
    env->tr = seg(0, 0, 0xffff, DESC_P_MASK | (11u << DESC_TYPE_SHIFT));
    env->cr[2] = 0;
    env->cr[3] = 0;
    env->cr[4] = 0;
    env->efer = 0;
    switch (mode) {
    case TH_LONG:
    case TH_COMPAT32:
        /* The FPU and SSE as a 64-bit OS runs its processes. */
        env->cr[0] = CR0_PE_MASK | CR0_PG_MASK | CR0_ET_MASK | CR0_NE_MASK |
                     CR0_MP_MASK;
        env->cr[3] = h->pml4;
        env->cr[4] = CR4_PAE_MASK | CR4_OSFXSR_MASK | CR4_OSXMMEXCPT_MASK;
        env->efer = EFER_LME | EFER_LMA | EFER_NXE | EFER_SCE;
        env->idt = (DescTable) { .base = TH_IDT64, .limit = 256 * 16 - 1 };
        if (mode == TH_LONG) {
            csel = TH_SEL_CODE64;
            cflags = code | DESC_L_MASK | DESC_G_MASK;
        } else {
            csel = TH_SEL_CODE32;
            cflags = code | DESC_B_MASK | DESC_G_MASK;
        }
        dsel = TH_SEL_DATA;
        dflags = data | DESC_B_MASK | DESC_G_MASK;
        break;
    case TH_PROT32:
    case TH_PROT16:
        env->cr[0] = CR0_PE_MASK | CR0_ET_MASK | CR0_NE_MASK;
        env->idt = (DescTable) { .base = TH_IDT32, .limit = 256 * 8 - 1 };
        if (mode == TH_PROT32) {
            csel = TH_SEL_CODE32;
            cflags = code | DESC_B_MASK | DESC_G_MASK;
            dsel = TH_SEL_DATA;
            dflags = data | DESC_B_MASK | DESC_G_MASK;
        } else {
            csel = TH_SEL_CODE16;
            cflags = code;
            dsel = TH_SEL_DATA16;
            dflags = data;
            env->rip = 0;
        }
        break;
    default:
        env->cr[0] = CR0_ET_MASK;
        env->idt = (DescTable) { .base = 0, .limit = 0x3ff };
        csel = TH_CODE16 >> 4;
        cflags = code;
        dsel = 0;
        dflags = data;
        env->rip = 0;
        break;
    }
    if (mode == TH_REAL || mode == TH_PROT16) {
        uint64_t base = mode == TH_REAL ? (uint64_t)csel << 4 : TH_CODE16;

        env->segs[R_CS] = seg(csel, base, 0xffff, cflags);
        for (int s = 0; s < X86_NUM_SEGS; s++) {
            if (s != R_CS) {
                env->segs[s] = seg(dsel, 0, 0xffff, dflags);
            }
        }
        /* The stack below the page tables, in the first 64 KiB. */
        env->regs[R_ESP] = 0x7ff0;
    } else {
        env->segs[R_CS] = seg(csel, 0, 0xffffffffu, cflags);
        for (int s = 0; s < X86_NUM_SEGS; s++) {
            if (s != R_CS) {
                env->segs[s] = seg(dsel, 0, 0xffffffffu, dflags);
            }
        }
    }
    x86_set_eflags(env, EFLAGS_FIXED, ~0u);
    x86_tlb_flush(env, true);
    x86_update_hflags(env);
}

uint64_t th_run(TcgHarness *h, uint64_t budget)
{
    uint64_t executed;

    h->env->hflags &= ~HF_HALTED_MASK;
    x86_cpu_exec(h->cpu, budget, &executed);
    return executed;
}
