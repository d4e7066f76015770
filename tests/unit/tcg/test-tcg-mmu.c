/*
 * The software CPU's soft MMU (target/i386/tcg/mmu.c): page walks in each
 * paging form, A/D bits, U/S, R/W with CR0.WP, NX, reserved bits, #PF
 * error codes and CR2, large and global pages, invlpg, and the slow
 * paths: page-crossing accesses, ROM writes, device regions under the
 * big lock. Page tables are written by hand into a RAM region.
 *
 * Facts come from the Intel SDM vol. 3A chapter 4 ("Paging"): entry
 * layouts (4.3, 4.4.2, 4.5.4), access rights (4.6) and the #PF error
 * code (4.7).
 */
#include <setjmp.h>
#include <string.h>

#include <glib.h>

#include "system/cpus.h"
#include "system/memory.h"
#include "target/i386/cpu-state.h"
#include "target/i386/tcg/sys-internal.h"

#define RAM_SIZE    (16u << 20)
#define ROM_BASE    0x2000000ull
#define ROM_SIZE    0x10000ull
#define IO_BASE     0x3000000ull

/* Entry bits (SDM 4.3, 4.5). */
#define P       0x001ull
#define RW      0x002ull
#define US      0x004ull
#define A       0x020ull
#define D       0x040ull
#define PS      0x080ull
#define G       0x100ull
#define NX      (1ull << 63)

/* #PF error code bits (SDM 4.7). */
#define E_P     0x01u
#define E_W     0x02u
#define E_U     0x04u
#define E_RSVD  0x08u
#define E_ID    0x10u

static uint8_t *ram;
static uint8_t rom_data[ROM_SIZE];
static MemoryRegion ram_mr, rom_mr, io_mr;
static X86CPU *cpu;
static CPUX86State *env;

/* The test device: remembers the last access and whether the lock was held. */
static struct {
    uint64_t addr, value;
    unsigned size;
    bool write, locked;
    unsigned count;
} io;

static uint64_t io_read(void *opaque, uint64_t addr, unsigned size)
{
    io = (typeof(io)) { .addr = addr, .size = size, .locked = bql_locked(),
                        .count = io.count + 1 };
    return 0x1122334455667788ull >> (8 * (8 - size)) ^ addr;
}

static void io_write(void *opaque, uint64_t addr, uint64_t value,
                     unsigned size)
{
    io = (typeof(io)) { .addr = addr, .value = value, .size = size,
                        .write = true, .locked = bql_locked(),
                        .count = io.count + 1 };
}

static const MemoryRegionOps io_ops = {
    .read = io_read,
    .write = io_write,
    .valid = { .min_access_size = 1, .max_access_size = 8 },
    .impl = { .min_access_size = 1, .max_access_size = 8 },
};

static void put64(uint64_t pa, uint64_t v)
{
    memcpy(ram + pa, &v, 8);
}

static uint64_t get64(uint64_t pa)
{
    uint64_t v;

    memcpy(&v, ram + pa, 8);
    return v;
}

static void put32(uint64_t pa, uint32_t v)
{
    memcpy(ram + pa, &v, 4);
}

static uint32_t get32(uint64_t pa)
{
    uint32_t v;

    memcpy(&v, ram + pa, 4);
    return v;
}

enum { MODE_NONE, MODE_32, MODE_PAE, MODE_LONG };

/* A fresh CPU in a paging mode at a CPL, tables at 0x10000. */
static void reset_cpu(int mode, int cpl)
{
    memset(cpu, 0, sizeof(*cpu));
    env->cpu = cpu;
    memset(ram, 0, 0x100000);
    x86_tlb_flush(env, true);
    env->cr[0] = CR0_PE_MASK | CR0_ET_MASK |
                 (mode != MODE_NONE ? CR0_PG_MASK | CR0_WP_MASK : 0);
    env->cr[3] = 0x10000;
    env->cr[4] = mode == MODE_32 ? CR4_PSE_MASK :
                 mode != MODE_NONE ? CR4_PAE_MASK : 0;
    env->efer = mode == MODE_LONG ? EFER_LME | EFER_LMA | EFER_NXE : 0;
    x86_set_hflags(env, cpl | HF_PE_MASK |
                   (mode != MODE_NONE ? HF_PG_MASK : 0) |
                   (mode == MODE_LONG ? HF_LMA_MASK | HF_CS64_MASK : 0));
}

/* 4-level tables: PML4 0x10000, PDPT 0x11000, PD 0x12000, PT 0x13000. */
static void map_long_4k(uint64_t va, uint64_t pa, uint64_t flags)
{
    put64(0x10000 + ((va >> 39) & 511) * 8, 0x11000 | P | RW | US);
    put64(0x11000 + ((va >> 30) & 511) * 8, 0x12000 | P | RW | US);
    put64(0x12000 + ((va >> 21) & 511) * 8, 0x13000 | P | RW | US);
    put64(0x13000 + ((va >> 12) & 511) * 8, pa | flags);
}

static void map_long_2m(uint64_t va, uint64_t pa, uint64_t flags)
{
    put64(0x10000 + ((va >> 39) & 511) * 8, 0x11000 | P | RW | US);
    put64(0x11000 + ((va >> 30) & 511) * 8, 0x12000 | P | RW | US);
    put64(0x12000 + ((va >> 21) & 511) * 8, pa | flags | PS);
}

static bool walk(uint64_t va, MMUAccess acc, bool user, X86PageWalk *w,
                 uint32_t *err)
{
    *err = 0xdead;
    return x86_page_walk(env, va, acc, user, w, err);
}

/* An access through the slow path: -1, or the vector it raised. */
static int try_load(uint64_t va, unsigned size, MMUAccess acc, uint64_t *v)
{
    if (setjmp(env->jmp_env)) {
        return env->exception_index;
    }
    *v = x86_ld_slow(env, va, size, acc);
    return -1;
}

static int try_store(uint64_t va, unsigned size, uint64_t v)
{
    if (setjmp(env->jmp_env)) {
        return env->exception_index;
    }
    x86_st_slow(env, va, v, size);
    return -1;
}

static void test_no_paging(void)
{
    X86PageWalk w;
    uint32_t err;
    uint64_t v;

    reset_cpu(MODE_NONE, 0);
    g_assert_true(walk(0x123456, MMU_WRITE, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x123456);
    put32(0x5000, 0xcafef00d);
    g_assert_cmpint(try_load(0x5000, 4, MMU_READ, &v), ==, -1);
    g_assert_cmphex(v, ==, 0xcafef00d);
}

static void test_32bit_4k_accessed_dirty(void)
{
    X86PageWalk w;
    uint32_t err;

    reset_cpu(MODE_32, 0);
    /* va 0x00403000 -> pa 0x7000: PDE 1 at 0x10004, PT at 0x20000. */
    put32(0x10004, 0x20000 | P | RW | US);
    put32(0x20000 + 3 * 4, 0x7000 | P | RW | US);
    g_assert_true(walk(0x00403abc, MMU_READ, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x7abc);
    g_assert_cmphex(w.page_size, ==, 0x1000);
    g_assert_cmphex(get32(0x10004) & (A | D), ==, A);
    g_assert_cmphex(get32(0x2000c) & (A | D), ==, A);
    g_assert_false(w.dirty);
    g_assert_true(walk(0x00403abc, MMU_WRITE, false, &w, &err));
    /* D only in the leaf (SDM 4.8). */
    g_assert_cmphex(get32(0x10004) & D, ==, 0);
    g_assert_cmphex(get32(0x2000c) & D, ==, D);
    g_assert_true(w.dirty);
}

static void test_32bit_pse36(void)
{
    X86PageWalk w;
    uint32_t err;

    reset_cpu(MODE_32, 0);
    /* A 4 MiB page at 0x12_0040_0000: PDE bits 20:13 = PA 39:32. */
    put32(0x10000 + 2 * 4, 0x00400000 | (0x12u << 13) | P | RW | PS);
    g_assert_true(walk(0x00812345, MMU_READ, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x1200412345ull);
    g_assert_cmphex(w.page_size, ==, 4u << 20);
    /* Bit 21 is reserved in a 4 MiB PDE with 40 address bits. */
    put32(0x10000 + 2 * 4, 0x00400000 | (1u << 21) | P | RW | PS);
    g_assert_false(walk(0x00812345, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
    /* Without CR4.PSE the PS bit is ignored: the PDE points to a table. */
    env->cr[4] = 0;
    put32(0x10000 + 2 * 4, 0x20000 | P | RW | PS);
    put32(0x20000 + 0x12 * 4, 0x9000 | P | RW);
    g_assert_true(walk(0x00812345, MMU_READ, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x9345);
}

static void test_pae(void)
{
    X86PageWalk w;
    uint32_t err;

    reset_cpu(MODE_PAE, 0);
    /* PDPTE 1 (1-2 GiB) -> PD 0x11000; PDE 3 a 2 MiB page. */
    put64(0x10008, 0x11000 | P);
    put64(0x11000 + 3 * 8, 0x800000 | P | RW | PS);
    g_assert_true(walk(0x40600010, MMU_READ, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x800010);
    g_assert_cmphex(w.page_size, ==, 2u << 20);
    /* Reserved bits of a PAE PDPTE (bit 1 here; R/W is not there). */
    put64(0x10008, 0x11000 | P | RW);
    g_assert_false(walk(0x40600010, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
    /* NX without EFER.NXE is a reserved bit. */
    put64(0x10008, 0x11000 | P);
    put64(0x11000 + 3 * 8, 0x800000 | P | RW | PS | NX);
    g_assert_false(walk(0x40600010, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
    /* Bits 20:13 of a 2 MiB PDE are reserved. */
    put64(0x11000 + 3 * 8, 0x800000 | (1ull << 13) | P | RW | PS);
    g_assert_false(walk(0x40600010, MMU_WRITE, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_W | E_RSVD);
}

static void test_long_4k_and_2m(void)
{
    X86PageWalk w;
    uint32_t err;
    uint64_t va = 0x00007f1234567000ull, v;

    reset_cpu(MODE_LONG, 0);
    map_long_4k(va, 0x45000, P | RW | US);
    g_assert_true(walk(va + 0x89, MMU_READ, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x45089);
    put64(0x45088, 0x0123456789abcdefull);
    g_assert_cmpint(try_load(va + 0x88, 8, MMU_READ, &v), ==, -1);
    g_assert_cmphex(v, ==, 0x0123456789abcdefull);

    reset_cpu(MODE_LONG, 0);
    map_long_2m(0xffffffff80000000ull, 0x400000, P | RW | G);
    g_assert_true(walk(0xffffffff80123456ull, MMU_FETCH, false, &w, &err));
    g_assert_cmphex(w.paddr, ==, 0x523456);
    g_assert_cmphex(w.page_size, ==, 2u << 20);
    g_assert_false(w.global);               /* CR4.PGE is clear */
    env->cr[4] |= CR4_PGE_MASK;
    g_assert_true(walk(0xffffffff80123456ull, MMU_READ, false, &w, &err));
    g_assert_true(w.global);
}

static void test_long_reserved(void)
{
    X86PageWalk w;
    uint32_t err;
    uint64_t va = 0x1000;

    reset_cpu(MODE_LONG, 0);
    map_long_4k(va, 0x45000, P | RW);
    /* A physical address bit above MAXPHYADDR (40). */
    put64(0x13008, (1ull << 45) | 0x45000 | P | RW);
    g_assert_false(walk(va, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
    /* PS in a PML4E, and 1 GiB pages (not offered) in a PDPTE. */
    map_long_4k(va, 0x45000, P | RW);
    put64(0x10000, 0x11000 | P | RW | PS);
    g_assert_false(walk(va, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
    put64(0x10000, 0x11000 | P | RW);
    put64(0x11000, 0x40000000 | P | RW | PS);
    g_assert_false(walk(va, MMU_FETCH, true, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD | E_U | E_ID);
    /* NX with NXE clear is reserved. */
    map_long_4k(va, 0x45000, P | RW | NX);
    env->efer &= ~(uint64_t)EFER_NXE;
    g_assert_false(walk(va, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_RSVD);
}

static void test_not_present_codes(void)
{
    X86PageWalk w;
    uint32_t err;

    reset_cpu(MODE_LONG, 3);
    g_assert_false(walk(0x8000000000ull, MMU_READ, false, &w, &err));
    g_assert_cmphex(err, ==, 0);
    g_assert_false(walk(0x8000000000ull, MMU_WRITE, false, &w, &err));
    g_assert_cmphex(err, ==, E_W);
    g_assert_false(walk(0x8000000000ull, MMU_READ, true, &w, &err));
    g_assert_cmphex(err, ==, E_U);
    /* I/D only with NXE (or SMEP). */
    g_assert_false(walk(0x8000000000ull, MMU_FETCH, true, &w, &err));
    g_assert_cmphex(err, ==, E_U | E_ID);
    env->efer &= ~(uint64_t)EFER_NXE;
    g_assert_false(walk(0x8000000000ull, MMU_FETCH, true, &w, &err));
    g_assert_cmphex(err, ==, E_U);
}

static void test_rights(void)
{
    X86PageWalk w;
    uint32_t err;
    uint64_t va = 0x30000000;

    reset_cpu(MODE_LONG, 0);
    /* Supervisor-only in the PDE, user in the PTE: the PDE wins. */
    map_long_4k(va, 0x46000, P | RW | US);
    put64(0x12000 + ((va >> 21) & 511) * 8, 0x13000 | P | RW);
    g_assert_true(walk(va, MMU_READ, false, &w, &err));
    g_assert_false(w.user);
    g_assert_false(walk(va, MMU_READ, true, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_U);

    /* Read-only: CR0.WP decides for supervisor writes. */
    map_long_4k(va, 0x46000, P | US);
    g_assert_false(walk(va + 0x123, MMU_WRITE, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_W);
    g_assert_false(walk(va + 0x123, MMU_WRITE, true, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_W | E_U);
    env->cr[0] &= ~(uint64_t)CR0_WP_MASK;
    g_assert_true(walk(va + 0x123, MMU_WRITE, false, &w, &err));
    g_assert_true(w.writable);
    g_assert_false(walk(va + 0x123, MMU_WRITE, true, &w, &err));

    /* NX anywhere in the walk forbids fetches, not reads. */
    env->cr[0] |= CR0_WP_MASK;
    map_long_4k(va, 0x46000, P | RW | US);
    put64(0x11000 + ((va >> 30) & 511) * 8, 0x12000 | P | RW | US | NX);
    g_assert_true(walk(va, MMU_READ, true, &w, &err));
    g_assert_false(w.executable);
    g_assert_false(walk(va, MMU_FETCH, true, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_U | E_ID);
    g_assert_false(walk(va, MMU_FETCH, false, &w, &err));
    g_assert_cmphex(err, ==, E_P | E_ID);
}

static void test_page_fault_raised(void)
{
    uint64_t v;

    reset_cpu(MODE_LONG, 3);
    map_long_4k(0x30000000, 0x46000, P | US);       /* read-only */
    g_assert_cmpint(try_store(0x30000123, 4, 1), ==, EXCP0E_PAGE);
    g_assert_cmphex(env->error_code, ==, E_P | E_W | E_U);
    g_assert_cmphex(env->cr[2], ==, 0x30000123);
    g_assert_cmpint(try_load(0x8000000010ull, 8, MMU_READ, &v), ==,
                    EXCP0E_PAGE);
    g_assert_cmphex(env->error_code, ==, E_U);
    g_assert_cmphex(env->cr[2], ==, 0x8000000010ull);
}

static void test_tlb_tags(void)
{
    uint64_t va = 0x40000000, v;
    TLBEntry *e;

    reset_cpu(MODE_LONG, 0);
    e = x86_tlb_entry(env, va);
    map_long_4k(va, 0x47000, P | RW);
    /* A read fills read and fetch tags; no write tag while D is clear. */
    g_assert_cmpint(try_load(va, 4, MMU_READ, &v), ==, -1);
    g_assert_cmphex(e->tag_read, ==, va);
    g_assert_cmphex(e->tag_fetch, ==, va);
    g_assert_cmphex(e->tag_write, ==, TLB_INVALID);
    g_assert_cmphex(get64(0x13000 + ((va >> 12) & 511) * 8) & D, ==, 0);
    /* The fast path then needs no walk. */
    put32(0x47010, 0x600dcafe);
    g_assert_cmphex(x86_ldl(env, va + 0x10), ==, 0x600dcafe);
    /* The first write sets D through the walk, then gets a tag. */
    x86_stl(env, va + 0x20, 0x12345678);
    g_assert_cmphex(get64(0x13000 + ((va >> 12) & 511) * 8) & D, ==, D);
    g_assert_cmphex(e->tag_write, ==, va);
    g_assert_cmphex(get32(0x47020), ==, 0x12345678);

    /* A changed mapping is not seen until invlpg. */
    map_long_4k(va, 0x48000, P | RW | D);
    put32(0x48010, 0xbbbbbbbb);
    g_assert_cmphex(x86_ldl(env, va + 0x10), ==, 0x600dcafe);
    x86_tlb_flush_page(env, va);
    g_assert_cmphex(x86_ldl(env, va + 0x10), ==, 0xbbbbbbbb);
}

static void test_tlb_global_and_large(void)
{
    uint64_t big = 0xffffffff80000000ull, v;
    uint64_t small = 0x40000000;
    uint64_t low = 0xffff800000200000ull;   /* another PD slot */

    reset_cpu(MODE_LONG, 0);
    env->cr[4] |= CR4_PGE_MASK;
    map_long_2m(big, 0x400000, P | RW | G);
    g_assert_cmpint(try_load(big + 0x5000, 8, MMU_READ, &v), ==, -1);
    g_assert_cmpint(try_load(big + 0x7000, 8, MMU_READ, &v), ==, -1);
    /* Tables for the small page live elsewhere: PML4 slot 0. */
    put64(0x10000, 0x14000 | P | RW);
    put64(0x14000 + 1 * 8, 0x15000 | P | RW);
    put64(0x15000, 0x16000 | P | RW);
    put64(0x16000, 0x49000 | P | RW);
    g_assert_cmpint(try_load(small, 8, MMU_READ, &v), ==, -1);

    /* A CR3 load keeps global entries only. */
    x86_tlb_flush(env, false);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    big + 0x5000);
    g_assert_cmphex(x86_tlb_entry(env, small)->tag_read, ==, TLB_INVALID);

    /* invlpg anywhere in a large page drops all of its 4 KiB entries. */
    x86_tlb_flush_page(env, big + 0x1fff00);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    TLB_INVALID);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x7000)->tag_read, ==,
                    TLB_INVALID);

    /*
     * CPL 3 has a TLB of its own (mmu.c): the supervisor's entries do
     * not reach it, and survive the trip.
     */
    g_assert_cmpint(try_load(big + 0x5000, 8, MMU_READ, &v), ==, -1);
    env->segs[R_CS].flags = DESC_P_MASK | DESC_S_MASK | DESC_CS_MASK |
                            DESC_L_MASK | (3u << DESC_DPL_SHIFT);
    env->segs[R_SS].flags = DESC_P_MASK | DESC_S_MASK | DESC_W_MASK |
                            (3u << DESC_DPL_SHIFT);
    x86_update_hflags(env);
    g_assert_cmpint(env->hflags & HF_CPL_MASK, ==, 3);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    TLB_INVALID);
    /* ... and the supervisor page now faults. */
    g_assert_cmpint(try_load(big + 0x5000, 8, MMU_READ, &v), ==,
                    EXCP0E_PAGE);
    g_assert_cmphex(env->error_code, ==, E_P | E_U);
    /* Back at CPL 0 the entry is still there: no flush either way. */
    env->segs[R_CS].flags &= ~DESC_DPL_MASK;
    env->segs[R_SS].flags &= ~DESC_DPL_MASK;
    x86_update_hflags(env);
    g_assert_cmpint(env->hflags & HF_CPL_MASK, ==, 0);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    big + 0x5000);

    /* Also with no flush between the fill and the invlpg. */
    reset_cpu(MODE_LONG, 0);
    map_long_2m(big, 0x400000, P | RW);
    g_assert_cmpint(try_load(big + 0x5000, 8, MMU_READ, &v), ==, -1);
    x86_tlb_flush_page(env, big + 0x1fff00);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    TLB_INVALID);

    /*
     * invlpg looks for large pages' entries only in the range they span
     * (mmu.c): one filled after another far above it widens the range.
     */
    reset_cpu(MODE_LONG, 0);
    map_long_2m(big, 0x400000, P | RW);
    map_long_2m(low, 0x600000, P | RW);
    g_assert_cmpint(try_load(big + 0x5000, 8, MMU_READ, &v), ==, -1);
    g_assert_cmpint(try_load(low + 0x3000, 8, MMU_READ, &v), ==, -1);
    x86_tlb_flush_page(env, low + 0x1000);
    g_assert_cmphex(x86_tlb_entry(env, low + 0x3000)->tag_read, ==,
                    TLB_INVALID);
    g_assert_cmphex(x86_tlb_entry(env, big + 0x5000)->tag_read, ==,
                    big + 0x5000);
}

static void test_cross_page(void)
{
    uint64_t v;

    reset_cpu(MODE_LONG, 0);
    map_long_4k(0x50000000, 0x4a000, P | RW | D);
    map_long_4k(0x50001000, 0x4c000, P | RW | D);    /* not contiguous */
    put32(0x4affe, 0x2211);
    put32(0x4c000, 0x4433);
    g_assert_cmpint(try_load(0x50000ffe, 4, MMU_READ, &v), ==, -1);
    g_assert_cmphex(v, ==, 0x44332211);
    g_assert_cmpint(try_store(0x50000ffd, 8, 0x8877665544332211ull), ==, -1);
    g_assert_cmphex(get32(0x4affc) >> 8, ==, 0x332211);
    g_assert_cmphex(get32(0x4c000), ==, 0x77665544);

    /* The second page is read-only: nothing of the store lands. */
    map_long_4k(0x50001000, 0x4c000, P | D);
    x86_tlb_flush(env, true);
    put32(0x4affc, 0);
    g_assert_cmpint(try_store(0x50000ffe, 4, 0xffffffff), ==, EXCP0E_PAGE);
    g_assert_cmphex(env->cr[2], ==, 0x50001000);
    g_assert_cmphex(env->error_code, ==, E_P | E_W);
    g_assert_cmphex(get32(0x4affc), ==, 0);
}

static void test_rom_and_device(void)
{
    uint64_t v;

    reset_cpu(MODE_NONE, 0);
    rom_data[0x10] = 0x5a;
    g_assert_cmpint(try_load(ROM_BASE + 0x10, 1, MMU_READ, &v), ==, -1);
    g_assert_cmphex(v, ==, 0x5a);
    g_assert_cmpint(try_store(ROM_BASE + 0x10, 1, 0xa5), ==, -1);
    g_assert_cmphex(rom_data[0x10], ==, 0x5a);
    g_assert_cmphex(x86_tlb_entry(env, ROM_BASE)->tag_write, ==,
                    TLB_INVALID);

    /* Device regions: every access reaches the device, under the lock. */
    io.count = 0;
    g_assert_cmpint(try_store(IO_BASE + 0x20, 4, 0xfeedbeef), ==, -1);
    g_assert_true(io.write);
    g_assert_true(io.locked);
    g_assert_cmphex(io.addr, ==, 0x20);
    g_assert_cmphex(io.value, ==, 0xfeedbeef);
    g_assert_cmpuint(io.size, ==, 4);
    g_assert_cmpint(try_load(IO_BASE + 0x28, 8, MMU_READ, &v), ==, -1);
    g_assert_false(io.write);
    g_assert_true(io.locked);
    g_assert_cmpuint(io.size, ==, 8);
    g_assert_cmphex(x86_tlb_entry(env, IO_BASE)->tag_read, ==, TLB_INVALID);
    g_assert_cmphex(v, ==, 0x1122334455667788ull ^ 0x28);
    g_assert_cmpuint(io.count, ==, 2);
    g_assert_false(bql_locked());
}

static void test_kernel_access_at_cpl3(void)
{
    uint64_t va = 0x60000000, v;

    reset_cpu(MODE_LONG, 3);
    map_long_4k(va, 0x4d000, P | RW);               /* supervisor only */
    put64(0x4d040, 0x1234);
    g_assert_cmphex(x86_ld_kernel(env, va + 0x40, 8), ==, 0x1234);
    x86_st_kernel(env, va + 0x48, 0x5678, 8);
    g_assert_cmphex(get64(0x4d048), ==, 0x5678);
    /* Nothing for CPL 3 to use was left in the TLB. */
    g_assert_cmphex(x86_tlb_entry(env, va)->tag_read, ==, TLB_INVALID);
    g_assert_cmpint(try_load(va + 0x40, 8, MMU_READ, &v), ==, EXCP0E_PAGE);
}

int main(int argc, char **argv)
{
    Error *err = NULL;
    int ret;

    g_test_init(&argc, &argv, NULL);
    ram = g_malloc0(RAM_SIZE);
    memory_region_init_ram_ptr(&ram_mr, "ram", RAM_SIZE, ram);
    memory_region_init_ram_ptr(&rom_mr, "rom", ROM_SIZE, rom_data);
    rom_mr.readonly = true;
    memory_region_init_io(&io_mr, "testdev", &io_ops, NULL, 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &ram_mr,
                                           0, &err));
    g_assert_true(address_space_map_region(&address_space_memory, &rom_mr,
                                           ROM_BASE, &err));
    g_assert_true(address_space_map_region(&address_space_memory, &io_mr,
                                           IO_BASE, &err));
    cpu = g_new0(X86CPU, 1);
    env = &cpu->env;

    g_test_add_func("/tcg-mmu/walk/no-paging", test_no_paging);
    g_test_add_func("/tcg-mmu/walk/32bit-accessed-dirty",
                    test_32bit_4k_accessed_dirty);
    g_test_add_func("/tcg-mmu/walk/32bit-pse36", test_32bit_pse36);
    g_test_add_func("/tcg-mmu/walk/pae", test_pae);
    g_test_add_func("/tcg-mmu/walk/long-4k-2m", test_long_4k_and_2m);
    g_test_add_func("/tcg-mmu/walk/long-reserved", test_long_reserved);
    g_test_add_func("/tcg-mmu/walk/not-present", test_not_present_codes);
    g_test_add_func("/tcg-mmu/walk/rights", test_rights);
    g_test_add_func("/tcg-mmu/access/page-fault", test_page_fault_raised);
    g_test_add_func("/tcg-mmu/tlb/tags", test_tlb_tags);
    g_test_add_func("/tcg-mmu/tlb/global-large-cpl3",
                    test_tlb_global_and_large);
    g_test_add_func("/tcg-mmu/access/cross-page", test_cross_page);
    g_test_add_func("/tcg-mmu/access/rom-device", test_rom_and_device);
    g_test_add_func("/tcg-mmu/access/kernel-at-cpl3",
                    test_kernel_access_at_cpl3);
    ret = g_test_run();
    memory_cleanup();
    memory_region_finalize(&ram_mr);
    memory_region_finalize(&rom_mr);
    memory_region_finalize(&io_mr);
    g_free(cpu);
    g_free(ram);
    return ret;
}
