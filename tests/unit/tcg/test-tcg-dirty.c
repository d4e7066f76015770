/*
 * Dirty logging under the software CPU: while a RAM region is logged the
 * soft MMU installs no fast-path write tags for it, so every vCPU write
 * takes the slow path and marks its page, the second write to a page as
 * much as the first; without logging the write tags come back.
 */
#include <glib.h>

#include "system/memory.h"
#include "tcg-harness.h"

#define PAGE_A  (TH_DATA + 0x3000)
#define PAGE_B  (TH_DATA + 0x5000)

/* mov [rdi], al; mov [rsi + 0xff8], rax; hlt */
static const uint8_t code[] = {
    0x88, 0x07, 0x48, 0x89, 0x86, 0xf8, 0x0f, 0x00, 0x00, 0xf4,
};

static void run_writes(TcgHarness *h)
{
    h->env->rip = TH_CODE;
    h->env->regs[R_EDI] = PAGE_A + 0x10;
    h->env->regs[R_ESI] = PAGE_B;
    h->env->regs[R_EAX] = 0x1122334455667788ull;
    th_run(h, 100);
    g_assert_cmphex(h->env->rip, ==, TH_CODE + sizeof(code));
}

static bool dirty(const uint64_t *bm, uint64_t paddr)
{
    uint64_t page = paddr / MEMORY_DIRTY_PAGE_SIZE;

    return bm[page / 64] & (1ull << (page % 64));
}

static unsigned ndirty(const uint64_t *bm)
{
    unsigned n = 0;

    for (size_t i = 0; i < TH_RAM_SIZE / MEMORY_DIRTY_PAGE_SIZE / 64; i++) {
        n += __builtin_popcountll(bm[i]);
    }
    return n;
}

static bool write_tag(TcgHarness *h, uint64_t va)
{
    return x86_tlb_entry(h->env, va)->tag_write == (va & X86_PAGE_MASK);
}

static void test_tcg_dirty(void)
{
    TcgHarness *h = th_get();
    MemoryRegion *ram = address_space_lookup(&address_space_memory, 0);
    uint64_t *bm;

    g_assert_nonnull(ram);
    th_set_mode(h, TH_LONG);
    th_write(h, TH_CODE, code, sizeof(code));
    /* Unlogged: the writes (and A/D bits) get the pages write tags. */
    run_writes(h);
    g_assert_true(write_tag(h, PAGE_A));
    g_assert_true(write_tag(h, PAGE_B));

    memory_region_set_log(ram, true);
    /* What the tcg accelerator's listener does on log_start. */
    x86_tlb_invalidate_phys(h->env, 0, TH_RAM_SIZE, true);
    g_assert_false(write_tag(h, PAGE_A));
    run_writes(h);
    g_assert_false(write_tag(h, PAGE_A));
    g_assert_false(write_tag(h, PAGE_B));
    bm = memory_region_fetch_dirty_log(ram);
    g_assert_true(dirty(bm, PAGE_A));
    g_assert_true(dirty(bm, PAGE_B + 0xff8));
    /* The A/D bits were set already: only the two data pages. */
    g_assert_cmpuint(ndirty(bm), ==, 2);
    g_free(bm);
    /* Again, with the TLB as the last run left it. */
    run_writes(h);
    bm = memory_region_fetch_dirty_log(ram);
    g_assert_true(dirty(bm, PAGE_A));
    g_assert_true(dirty(bm, PAGE_B + 0xff8));
    g_assert_cmpuint(ndirty(bm), ==, 2);
    g_free(bm);
    /* DMA into the logged region marks it too. */
    address_space_write_sized(&address_space_memory, TH_DATA + 0x9000, 1, 1);
    bm = memory_region_fetch_dirty_log(ram);
    g_assert_true(dirty(bm, TH_DATA + 0x9000));
    g_assert_cmpuint(ndirty(bm), ==, 1);
    g_free(bm);

    memory_region_set_log(ram, false);
    g_assert_null(memory_region_fetch_dirty_log(ram));
    run_writes(h);
    run_writes(h);
    g_assert_true(write_tag(h, PAGE_A));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tcg/dirty-log", test_tcg_dirty);
    return g_test_run();
}
