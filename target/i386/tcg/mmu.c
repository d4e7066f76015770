/*
 * The soft MMU of the software CPU: page walks (32-bit with PSE-36, PAE
 * and 4-level paging), the per-vCPU TLB and the slow paths of guest
 * memory accesses (Intel SDM vol. 3A chapter 4, AMD APM vol. 2
 * chapter 5).
 *
 * The TLB caches, per 4 KiB virtual page, the host address of RAM and
 * which access kinds may use it directly (cpu-state.h). A tag is only
 * installed for what the walk allowed at fill time:
 *  - write tags only when the page is writable, already dirty (so the
 *    first write still goes through the walk and sets D), plain RAM,
 *    holds no decoded code (writes to code pages must invalidate it) and
 *    is not dirty-logged (the slow path marks the log), so the fast path
 *    never has to look at the log;
 *  - device regions get no tags: every access goes to the device with
 *    the big lock held; ROM gets read and fetch tags, its writes vanish.
 * Rights filled at CPL 0-2 can exceed CPL 3's (supervisor pages, writes
 * with CR0.WP clear), so CPL 3 has a TLB of its own (QEMU's MMU indexes):
 * x86_tlb_entry() picks one by the CPL in hflags, and a privilege change
 * flushes nothing; a flush, invlpg or a map change applies to both.
 * Entries of global pages survive a CR3 load while CR4.PGE is set;
 * invlpg also drops every entry of a large page.
 *
 * The memory map can change under a running vCPU (a BAR moves, logging
 * starts): the accelerator's memory listener then drops the tags of the
 * pages concerned (x86_tlb_invalidate_phys(), from any thread: only the
 * tags are cleared, the host pointer a racing access may use stays
 * valid), and a fill that looked the page up across such a change drops
 * what it installed (memory_generation()).
 */
#include <string.h>

#include "qemu/log.h"
#include "system/memory.h"
#include "target/i386/tcg/sys-internal.h"

#define PG_PRESENT      (1ull << 0)
#define PG_RW           (1ull << 1)
#define PG_USER         (1ull << 2)
#define PG_ACCESSED     (1ull << 5)
#define PG_DIRTY        (1ull << 6)
#define PG_PSE          (1ull << 7)
#define PG_GLOBAL       (1ull << 8)
#define PG_NX           (1ull << 63)

/* Physical-address bits above MAXPHYADDR in 64-bit entries (51:40). */
#define PG_PHYS_RSVD    (((1ull << 52) - 1) & ~X86_PHYS_MASK)
#define PG_ADDR_MASK    (X86_PHYS_MASK & ~0xfffull)
/* PAE PDPTEs (not long mode): bits 2:1 and 8:5 are reserved, and NX. */
#define PG_PDPTE_RSVD   (0x1e6ull | PG_PHYS_RSVD | PG_NX)
/* Bits 20:13 of a 2 MiB PDE, 29:13 of a 1 GiB PDPTE (PAT is bit 12). */
#define PG_2M_RSVD      0x1fe000ull
/* 32-bit paging, 4 MiB PDE: bits 20:13 are PA 39:32, bit 21 reserved. */
#define PG_4M_RSVD      (1ull << 21)

/* --- physical memory ------------------------------------------------- */

/* Writes the CPU makes to RAM keep the decoded code of the page valid. */
static void ram_written(uint64_t paddr, unsigned size)
{
    uint64_t last = paddr + size - 1;

    if (tb_page_has_code(paddr & X86_PAGE_MASK) ||
        ((last ^ paddr) & X86_PAGE_MASK && tb_page_has_code(last &
                                                            X86_PAGE_MASK))) {
        tb_invalidate_phys_range(paddr, size);
    }
}

/* This vCPU's accesses: devices that answer per CPU (the APIC) see who. */
static MemTxAttrs cpu_attrs(CPUX86State *env)
{
    return MEMTXATTRS_CPU(env->cpu->index);
}

/* For paddr in s: whether s holds size bytes from there. */
static bool section_holds(const MemoryRegionSection *s, uint64_t paddr,
                          uint64_t size)
{
    return size - 1 <= s->size - 1 - (paddr - s->offset_within_address_space);
}

static uint8_t *section_host(const MemoryRegionSection *s, uint64_t paddr)
{
    return s->mr->ram + s->offset_within_region +
           (paddr - s->offset_within_address_space);
}

/*
 * The section of address_space_memory holding paddr. The RAM section
 * last found is kept while the memory map stays the same
 * (memory_generation()): page walks, TLB fills and the slow paths look
 * up the same few sections over and over, and a lookup of the map
 * costs two atomic operations.
 */
static __thread struct {
    bool valid;
    uint64_t generation;
    MemoryRegionSection s;
} last_ram;

static bool phys_find(uint64_t paddr, MemoryRegionSection *s)
{
    uint64_t gen = memory_generation();

    if (last_ram.valid && last_ram.generation == gen &&
        paddr - last_ram.s.offset_within_address_space < last_ram.s.size) {
        *s = last_ram.s;
        return true;
    }
    if (!address_space_find(&address_space_memory, paddr, s)) {
        return false;
    }
    if (s->mr->ram) {
        /* gen was read first: a change since then is seen next time. */
        last_ram.s = *s;
        last_ram.generation = gen;
        last_ram.valid = true;
    }
    return true;
}

/* A naturally sized access to guest-physical memory: RAM, ROM, device. */
static uint64_t phys_ld(uint64_t paddr, unsigned size, MemTxAttrs attrs)
{
    MemoryRegionSection s;
    uint64_t v = 0;
    bool taken;

    if (phys_find(paddr, &s) && s.mr->ram && section_holds(&s, paddr, size)) {
        memcpy(&v, section_host(&s, paddr), size);
        return v;
    }
    taken = x86_bql_acquire();
    v = address_space_read_sized_attrs(&address_space_memory, paddr, size,
                                       attrs);
    x86_bql_release(taken);
    return v;
}

/* RAM of section s was written at paddr: the log and decoded code. */
static void ram_stored(const MemoryRegionSection *s, uint64_t paddr,
                       unsigned size)
{
    if (s->log) {
        memory_region_set_dirty(s->mr, s->offset_within_region +
                                (paddr - s->offset_within_address_space),
                                size);
    }
    ram_written(paddr, size);
}

static void phys_st(uint64_t paddr, uint64_t v, unsigned size,
                    MemTxAttrs attrs)
{
    MemoryRegionSection s;
    bool taken;

    if (phys_find(paddr, &s) && s.mr->ram &&
        section_holds(&s, paddr, size)) {
        if (!s.readonly) {
            memcpy(section_host(&s, paddr), &v, size);
            ram_stored(&s, paddr, size);
        }
        return;
    }
    taken = x86_bql_acquire();
    address_space_write_sized_attrs(&address_space_memory, paddr, v, size,
                                    attrs);
    x86_bql_release(taken);
}

/* A paging-structure entry (4 or 8 bytes). */
static uint64_t pt_read(uint64_t paddr, unsigned size)
{
    return phys_ld(paddr, size, MEMTXATTRS_UNSPECIFIED);
}

/* Set A/D bits the way the hardware does: an atomic OR in RAM. */
static void pt_set_bits(uint64_t paddr, unsigned size, uint64_t bits)
{
    MemoryRegionSection s;
    void *host;

    if (!phys_find(paddr, &s) ||
        !s.mr->ram || s.readonly || !section_holds(&s, paddr, size)) {
        return;         /* tables outside RAM: no A/D updates */
    }
    host = section_host(&s, paddr);
    if (size == 8) {
        __atomic_fetch_or((uint64_t *)host, bits, __ATOMIC_SEQ_CST);
    } else {
        __atomic_fetch_or((uint32_t *)host, (uint32_t)bits,
                          __ATOMIC_SEQ_CST);
    }
    ram_stored(&s, paddr, size);
}

/* --- page walk ------------------------------------------------------- */

typedef struct WalkLevel {
    uint64_t paddr;             /* where the entry is */
    uint64_t entry;
    bool has_accessed;          /* PAE PDPTEs have no A bit */
} WalkLevel;

bool x86_page_walk(CPUX86State *env, uint64_t vaddr, MMUAccess access,
                   bool user, X86PageWalk *walk, uint32_t *error_code)
{
    uint64_t cr0 = env->cr[0], cr4 = env->cr[4];
    bool pae = cr4 & CR4_PAE_MASK;
    bool nxe = pae && (env->efer & EFER_NXE);
    uint64_t nx_rsvd = nxe ? 0 : PG_NX;
    uint32_t err = (access == MMU_WRITE ? PG_ERROR_W_MASK : 0) |
                   (user ? PG_ERROR_U_MASK : 0) |
                   (access == MMU_FETCH && nxe ? PG_ERROR_I_D_MASK : 0);
    WalkLevel lv[4];
    unsigned n = 0, esize = pae ? 8 : 4;
    bool rw = true, us = true, nx = false;
    uint64_t e, page_size, paddr;

    if (!(cr0 & CR0_PG_MASK)) {
        *walk = (X86PageWalk) {
            .paddr = vaddr, .page_size = X86_PAGE_SIZE, .writable = true,
            .user = true, .executable = true, .dirty = true,
        };
        return true;
    }

#define LEVEL(addr, rsvd, with_a)                                       \
    do {                                                                \
        lv[n].paddr = (addr);                                           \
        lv[n].has_accessed = (with_a);                                  \
        e = lv[n].entry = pt_read(lv[n].paddr, esize);                  \
        n++;                                                            \
        if (!(e & PG_PRESENT)) {                                        \
            goto not_present;                                           \
        }                                                               \
        if (e & (rsvd)) {                                               \
            goto reserved;                                              \
        }                                                               \
    } while (0)
#define RIGHTS()                                                        \
    do {                                                                \
        rw &= !!(e & PG_RW);                                            \
        us &= !!(e & PG_USER);                                          \
        nx |= nxe && (e & PG_NX);                                       \
    } while (0)

    if (pae) {
        uint64_t base;

        if (env->hflags & HF_LMA_MASK) {
            LEVEL((env->cr[3] & PG_ADDR_MASK) + ((vaddr >> 39) & 511) * 8,
                  PG_PHYS_RSVD | nx_rsvd | PG_PSE, true);
            RIGHTS();
            /* 1 GiB pages are not offered (no pdpe1gb): PS is reserved. */
            LEVEL((e & PG_ADDR_MASK) + ((vaddr >> 30) & 511) * 8,
                  PG_PHYS_RSVD | nx_rsvd | PG_PSE, true);
            RIGHTS();
            base = e & PG_ADDR_MASK;
        } else {
            LEVEL((env->cr[3] & 0xffffffe0ull) + ((vaddr >> 30) & 3) * 8,
                  PG_PDPTE_RSVD, false);
            base = e & PG_ADDR_MASK;
        }
        LEVEL(base + ((vaddr >> 21) & 511) * 8, PG_PHYS_RSVD | nx_rsvd,
              true);
        RIGHTS();
        if (e & PG_PSE) {
            if (e & PG_2M_RSVD) {
                goto reserved;
            }
            page_size = 2 << 20;
            paddr = (e & X86_PHYS_MASK & ~(page_size - 1)) |
                    (vaddr & (page_size - 1));
        } else {
            LEVEL((e & PG_ADDR_MASK) + ((vaddr >> 12) & 511) * 8,
                  PG_PHYS_RSVD | nx_rsvd, true);
            RIGHTS();
            page_size = X86_PAGE_SIZE;
            paddr = (e & PG_ADDR_MASK) | (vaddr & 0xfff);
        }
    } else {
        LEVEL((env->cr[3] & 0xfffff000ull) + ((vaddr >> 22) & 1023) * 4, 0,
              true);
        RIGHTS();
        if ((e & PG_PSE) && (cr4 & CR4_PSE_MASK)) {
            if (e & PG_4M_RSVD) {
                goto reserved;
            }
            page_size = 4 << 20;
            /* PSE-36: PDE bits 20:13 are physical address bits 39:32. */
            paddr = (e & 0xffc00000ull) | (((e >> 13) & 0xff) << 32) |
                    (vaddr & (page_size - 1));
        } else {
            LEVEL((e & 0xfffff000ull) + ((vaddr >> 12) & 1023) * 4, 0, true);
            RIGHTS();
            page_size = X86_PAGE_SIZE;
            paddr = (e & 0xfffff000ull) | (vaddr & 0xfff);
        }
    }
#undef LEVEL
#undef RIGHTS

    /* e is the leaf. Rights are the most restrictive of all levels. */
    if (user && !us) {
        goto protection;
    }
    if (access == MMU_WRITE && !rw && (user || (cr0 & CR0_WP_MASK))) {
        goto protection;
    }
    if (access == MMU_FETCH && nx) {
        goto protection;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t bits = 0;

        if (lv[i].has_accessed && !(lv[i].entry & PG_ACCESSED)) {
            bits |= PG_ACCESSED;
        }
        if (i == n - 1 && access == MMU_WRITE && !(lv[i].entry & PG_DIRTY)) {
            bits |= PG_DIRTY;
        }
        if (bits) {
            pt_set_bits(lv[i].paddr, esize, bits);
            lv[i].entry |= bits;
        }
    }
    *walk = (X86PageWalk) {
        .paddr = paddr,
        .page_size = page_size,
        .writable = rw || (!user && !(cr0 & CR0_WP_MASK)),
        .user = us,
        .executable = !nx,
        .dirty = lv[n - 1].entry & PG_DIRTY,
        .global = (lv[n - 1].entry & PG_GLOBAL) && (cr4 & CR4_PGE_MASK),
    };
    return true;

not_present:
    *error_code = err;
    return false;
reserved:
    *error_code = err | PG_ERROR_P_MASK | PG_ERROR_RSVD_MASK;
    return false;
protection:
    *error_code = err | PG_ERROR_P_MASK;
    return false;
}

/* --- TLB --------------------------------------------------------------- */

static void tlb_entry_clear(CPUX86State *env, TLBEntry *e)
{
    TLBExtra *x = x86_tlb_extra(env, e);

    e->tag_read = e->tag_write = e->tag_fetch = TLB_INVALID;
    e->addend = 0;
    x->host = NULL;
    x->large_vmask = 0;
    x->large_vbase = 0;
    x->global = false;
}

uint64_t x86_tlb_gen = 1;

static void tlb_gen_bump(void)
{
    __atomic_fetch_add(&x86_tlb_gen, 1, __ATOMIC_RELAXED);
}

/* TLB t holds an entry of x's large page: widen the range to scan. */
static void tlb_large_add(CPUX86State *env, unsigned t, const TLBExtra *x)
{
    uint64_t lo = x->large_vbase, hi = x->large_vbase | ~x->large_vmask;

    if (!env->tlb_large[t]) {
        env->tlb_large_lo[t] = lo;
        env->tlb_large_hi[t] = hi;
        env->tlb_large[t] = true;
        return;
    }
    env->tlb_large_lo[t] = MIN(env->tlb_large_lo[t], lo);
    env->tlb_large_hi[t] = MAX(env->tlb_large_hi[t], hi);
}

void x86_tlb_flush(CPUX86State *env, bool include_global)
{
    tlb_gen_bump();
    for (unsigned t = 0; t < 2; t++) {
        env->tlb_large[t] = false;
        for (unsigned i = 0; i < TLB_SIZE; i++) {
            TLBExtra *x = &env->tlb_extra[t][i];

            if (include_global || !x->global) {
                tlb_entry_clear(env, &env->tlb[t][i]);
            }
            if (x->large_vmask) {
                tlb_large_add(env, t, x);
            }
        }
    }
}

void x86_tlb_invalidate_phys(CPUX86State *env, uint64_t paddr,
                             uint64_t len, bool writes_only)
{
    uint64_t first = paddr & X86_PAGE_MASK;
    uint64_t last = (len && paddr + len - 1 >= paddr) ? paddr + len - 1
                                                       : UINT64_MAX;

    tlb_gen_bump();
    for (unsigned i = 0; i < 2 * TLB_SIZE; i++) {
        TLBEntry *e = &env->tlb[i / TLB_SIZE][i % TLB_SIZE];
        uint64_t page = __atomic_load_n(&x86_tlb_extra(env, e)->paddr,
                                        __ATOMIC_RELAXED);

        if (page < first || page > last) {
            continue;
        }
        __atomic_store_n(&e->tag_write, TLB_INVALID, __ATOMIC_RELAXED);
        if (!writes_only) {
            __atomic_store_n(&e->tag_read, TLB_INVALID, __ATOMIC_RELAXED);
            __atomic_store_n(&e->tag_fetch, TLB_INVALID, __ATOMIC_RELAXED);
        }
    }
}

void x86_tlb_flush_page(CPUX86State *env, uint64_t vaddr)
{
    unsigned idx = (vaddr >> 12) & (TLB_SIZE - 1);

    tlb_gen_bump();
    for (unsigned t = 0; t < 2; t++) {
        tlb_entry_clear(env, &env->tlb[t][idx]);
        if (!env->tlb_large[t] || vaddr < env->tlb_large_lo[t] ||
            vaddr > env->tlb_large_hi[t]) {
            continue;
        }
        /* Entries made from a large page sit at other indexes too. */
        for (unsigned i = 0; i < TLB_SIZE; i++) {
            TLBExtra *x = &env->tlb_extra[t][i];

            if (x->large_vmask &&
                (vaddr & x->large_vmask) == x->large_vbase) {
                tlb_entry_clear(env, &env->tlb[t][i]);
            }
        }
    }
}

G_NORETURN static void raise_page_fault(CPUX86State *env, uint64_t vaddr,
                                        uint32_t error_code)
{
    env->cr[2] = vaddr;
    qemu_log_mask(LOG_INT, "#PF at 0x%" G_GINT64_MODIFIER "x error 0x%x "
                  "rip 0x%" G_GINT64_MODIFIER "x\n", vaddr, error_code,
                  env->rip);
    x86_raise_exception_err(env, EXCP0E_PAGE, error_code);
}

/*
 * In long mode a linear address must be canonical: #GP(0) otherwise
 * (#SS(0) for stack accesses on hardware; the slow path cannot tell).
 * Tags are only installed for canonical pages, so fast paths never see
 * one that is not.
 */
static void check_canonical(CPUX86State *env, uint64_t vaddr)
{
    if ((env->hflags & HF_LMA_MASK) && !x86_is_canonical(vaddr)) {
        x86_raise_exception_err(env, EXCP0D_GPF, 0);
    }
}

/* Walk for vaddr and install its TLB entry, or raise #PF. */
static TLBEntry *tlb_fill(CPUX86State *env, uint64_t vaddr, MMUAccess access)
{
    uint64_t page = vaddr & X86_PAGE_MASK;
    TLBEntry *e = x86_tlb_entry(env, vaddr);
    TLBExtra *x = x86_tlb_extra(env, e);
    X86PageWalk w;
    MemoryRegionSection s;
    uint64_t ppage, gen;
    uint32_t err;

    check_canonical(env, vaddr);
    if (!x86_page_walk(env, vaddr, access, x86_cpl(env) == 3, &w, &err)) {
        raise_page_fault(env, vaddr, err);
    }
    ppage = w.paddr & X86_PAGE_MASK;
    tlb_entry_clear(env, e);
    x->paddr = ppage;
    x->global = w.global;
    if (w.page_size > X86_PAGE_SIZE) {
        x->large_vmask = ~(w.page_size - 1);
        x->large_vbase = vaddr & x->large_vmask;
        tlb_large_add(env, e >= env->tlb[1], x);
    }
    /* The map is read without the big lock; see the head comment. */
    gen = memory_generation();
    if (phys_find(ppage, &s) && s.mr->ram &&
        section_holds(&s, ppage, X86_PAGE_SIZE)) {
        x->host = section_host(&s, ppage);
        e->addend = (uintptr_t)x->host - (uintptr_t)page;
        e->tag_read = page;
        if (w.executable) {
            e->tag_fetch = page;
        }
        if (!s.readonly && !s.log && w.writable && w.dirty &&
            !tb_page_has_code(ppage)) {
            e->tag_write = page;
        }
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (memory_generation() != gen) {
            e->tag_read = e->tag_write = e->tag_fetch = TLB_INVALID;
        }
    }
    return e;
}

static uint64_t *tag_of(TLBEntry *e, MMUAccess access)
{
    switch (access) {
    case MMU_WRITE:
        return &e->tag_write;
    case MMU_FETCH:
        return &e->tag_fetch;
    default:
        return &e->tag_read;
    }
}

/* Translate within one page at the current CPL (fills the TLB). */
static uint64_t translate(CPUX86State *env, uint64_t vaddr,
                          MMUAccess access)
{
    TLBEntry *e = x86_tlb_entry(env, vaddr);
    uint64_t page = vaddr & X86_PAGE_MASK;

    if (*tag_of(e, access) != page) {
        /*
         * A hit of another kind is not enough: the walk checks this
         * kind's rights and sets D for writes.
         */
        e = tlb_fill(env, vaddr, access);
    }
    return x86_tlb_extra(env, e)->paddr | (vaddr & ~X86_PAGE_MASK);
}

uint64_t x86_translate(CPUX86State *env, uint64_t vaddr, MMUAccess access,
                       uint8_t **host)
{
    uint64_t paddr = translate(env, vaddr, access);
    TLBEntry *e = x86_tlb_entry(env, vaddr);
    TLBExtra *x = x86_tlb_extra(env, e);
    uint64_t page = vaddr & X86_PAGE_MASK;

    *host = NULL;
    if (*tag_of(e, access) == page ||
        (access != MMU_WRITE && x->host &&
         x->paddr == (paddr & X86_PAGE_MASK))) {
        /*
         * Tagged for this kind, or RAM without a tag of this kind (NX
         * pages are never fetched).
         */
        *host = x->host + (vaddr & ~X86_PAGE_MASK);
    }
    return paddr;
}

/* --- slow paths -------------------------------------------------------- */

static bool crosses_page(uint64_t vaddr, unsigned size)
{
    return (vaddr & ~X86_PAGE_MASK) + size > X86_PAGE_SIZE;
}

uint64_t x86_ld_slow(CPUX86State *env, uint64_t vaddr, unsigned size,
                     MMUAccess access)
{
    uint64_t v = 0;

    if (crosses_page(vaddr, size)) {
        /* Byte by byte: the first page's fault comes first. */
        for (unsigned i = 0; i < size; i++) {
            v |= x86_ld_slow(env, vaddr + i, 1, access) << (8 * i);
        }
        return v;
    }
    return phys_ld(translate(env, vaddr, access), size, cpu_attrs(env));
}

void x86_st_slow(CPUX86State *env, uint64_t vaddr, uint64_t value,
                 unsigned size)
{
    if (crosses_page(vaddr, size)) {
        /*
         * Both pages must be writable before any byte is written; a
         * fault on the second reports its first byte (CR2).
         */
        translate(env, vaddr, MMU_WRITE);
        translate(env, (vaddr + size - 1) & X86_PAGE_MASK, MMU_WRITE);
        for (unsigned i = 0; i < size; i++) {
            x86_st_slow(env, vaddr + i, value >> (8 * i), 1);
        }
        return;
    }
    phys_st(translate(env, vaddr, MMU_WRITE), value, size, cpu_attrs(env));
}

/*
 * Implicit supervisor accesses. Below CPL 3 they are ordinary accesses
 * of the current privilege; at CPL 3 the rights differ from the TLB's,
 * so they walk the tables every time and leave the TLB alone.
 */
static uint64_t kernel_translate(CPUX86State *env, uint64_t vaddr,
                                 MMUAccess access)
{
    X86PageWalk w;
    uint32_t err;

    if (x86_cpl(env) < 3) {
        return translate(env, vaddr, access);
    }
    check_canonical(env, vaddr);
    if (!x86_page_walk(env, vaddr, access, false, &w, &err)) {
        raise_page_fault(env, vaddr, err);
    }
    return w.paddr;
}

uint64_t x86_ld_kernel(CPUX86State *env, uint64_t vaddr, unsigned size)
{
    uint64_t v = 0;

    if (crosses_page(vaddr, size)) {
        for (unsigned i = 0; i < size; i++) {
            v |= x86_ld_kernel(env, vaddr + i, 1) << (8 * i);
        }
        return v;
    }
    return phys_ld(kernel_translate(env, vaddr, MMU_READ), size,
                   cpu_attrs(env));
}

void x86_st_kernel(CPUX86State *env, uint64_t vaddr, uint64_t value,
                   unsigned size)
{
    if (crosses_page(vaddr, size)) {
        kernel_translate(env, vaddr, MMU_WRITE);
        kernel_translate(env, (vaddr + size - 1) & X86_PAGE_MASK, MMU_WRITE);
        for (unsigned i = 0; i < size; i++) {
            x86_st_kernel(env, vaddr + i, value >> (8 * i), 1);
        }
        return;
    }
    phys_st(kernel_translate(env, vaddr, MMU_WRITE), value, size,
            cpu_attrs(env));
}
