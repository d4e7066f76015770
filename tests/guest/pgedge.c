/*
 * pgedge: paging edge cases, on page tables of its own under PML4 slot 2
 * (virtual 0x10000000000): a page table of 4 KiB pages and a 2 MiB page
 * over physical RAM at 8-16 MiB.
 *   - 4 KiB and 2 MiB translations land where the entries point;
 *   - the CPU sets A in every entry it walks and D in the leaf it writes;
 *   - a changed mapping is seen after INVLPG (4 KiB and 2 MiB pages),
 *     after a CR3 reload, and for a global page after INVLPG or a
 *     CR4.PGE toggle (stale entries are never asserted: only what the
 *     architecture guarantees once a flush happened);
 *   - CR0.WP: a CPL 0 write to a read-only page faults with WP=1 and
 *     succeeds with WP=0; a CPL 3 one faults either way;
 *   - U/S: CPL 3 reads and writes of supervisor pages (error 0x5/0x7),
 *     a supervisor PDE above a user PTE;
 *   - NX (EFER.NXE): fetches from an XD page at CPL 0 and 3 (0x11, 0x15),
 *     a fetch from a not-present page (0x10), and one that works;
 *   - reserved bits: bit 13 of a 2 MiB PDE, bit 7 of a PML4E, XD with
 *     NXE off (error 0x9, 0xb for a write, 0xd at CPL 3);
 *   - non-canonical addresses: #GP(0) for a CPL 0 write and a CPL 3
 *     read, while canonical unmapped ones at either edge raise #PF.
 * rsvd=off skips the reserved-bit faults, the one place where QEMU 7.2's
 * TCG differs from hardware: it reports them without P (0x8, not 0x9).
 */
#include "trial.h"

const char guest_name[] = "pgedge";

#define PML4_SLOT   2
#define VBASE       ((uint64_t)PML4_SLOT << 39)     /* 0x10000000000 */
#define V4K(i)      (VBASE + (uint64_t)(i) * 4096)  /* PD entry 0 */
#define V2M         (VBASE + 2 * MiB)               /* PD entry 1 */
#define PHYS_2M_A   (8 * MiB)
#define PHYS_2M_B   (10 * MiB)
#define PHYS_4K     (12 * MiB)                      /* 16 pages */
#define NPAGES      16
#define PATTERN     0x5047000000000000ul            /* "PG" | address */

#define PTE_ACCESSED    (1ull << 5)
#define PTE_DIRTY       (1ull << 6)
#define PTE_GLOBAL      (1ull << 8)
#define PTE_XD          (1ull << 63)
#define PTE_ADDR        0x000ffffffffff000ull
#define PTE_USER_RW     (PTE_PRESENT | PTE_WRITE | PTE_USER)

/* Volatile: the CPU writes A and D behind the compiler's back. */
extern uint64_t boot_pml4[512];
static volatile uint64_t *const pml4 = boot_pml4;
static volatile uint64_t pdpt[512] __attribute__((aligned(4096)));
static volatile uint64_t pd[512] __attribute__((aligned(4096)));
static volatile uint64_t pt[512] __attribute__((aligned(4096)));
static unsigned n;                      /* exceptions expected so far */

/* Physical page i of the 4 KiB pool; its first word names it. */
static uint64_t phys4k(unsigned i)
{
    return PHYS_4K + (uint64_t)i * 4096;
}

static uint64_t peek(uint64_t va)
{
    return *(volatile uint64_t *)va;
}

static void poke(uint64_t va, uint64_t v)
{
    *(volatile uint64_t *)va = v;
}

static void flush_all(void)
{
    write_cr3(read_cr3());
}

static void setup_tables(void)
{
    for (unsigned i = 0; i < NPAGES; i++) {
        poke(phys4k(i), PATTERN | phys4k(i));
    }
    for (uint64_t off = 0; off < 2 * MiB; off += 4096) {
        poke(PHYS_2M_A + off, PATTERN | (PHYS_2M_A + off));
        poke(PHYS_2M_B + off, PATTERN | (PHYS_2M_B + off));
    }
    pml4[PML4_SLOT] = (uintptr_t)pdpt | PTE_USER_RW;
    pdpt[0] = (uintptr_t)pd | PTE_USER_RW;
    pd[0] = (uintptr_t)pt | PTE_USER_RW;
    pd[1] = PHYS_2M_A | PTE_LARGE | PTE_USER_RW;
    flush_all();
}

/* --- translations ----------------------------------------------------- */

static void check_translations(void)
{
    /* Page i of the window maps pool page i ^ 5: nothing is identity. */
    for (unsigned i = 0; i < NPAGES; i++) {
        pt[i] = phys4k(i ^ 5) | PTE_USER_RW;
    }
    flush_all();
    for (unsigned i = 0; i < NPAGES; i++) {
        if (peek(V4K(i)) != (PATTERN | phys4k(i ^ 5))) {
            guest_fail("4 KiB page 0x%lx reads 0x%lx, expected 0x%lx",
                       V4K(i), peek(V4K(i)), PATTERN | phys4k(i ^ 5));
        }
    }
    printf("pgedge: 4 KiB pages: 0x%lx maps 0x%lx ... 0x%lx maps 0x%lx\n",
           V4K(0), phys4k(5), V4K(NPAGES - 1), phys4k((NPAGES - 1) ^ 5));

    uint64_t off = 0x123000;
    if (peek(V2M + off) != (PATTERN | (PHYS_2M_A + off))) {
        guest_fail("2 MiB page: 0x%lx reads 0x%lx", V2M + off,
                   peek(V2M + off));
    }
    printf("pgedge: 2 MiB page: 0x%lx maps 0x%lx\n", V2M + off,
           PHYS_2M_A + off);
}

/* --- accessed and dirty ----------------------------------------------- */

static const char *ad(uint64_t e)
{
    static const char *const s[] = { "--", "A-", "-D", "AD" };

    return s[((e & PTE_ACCESSED) ? 1 : 0) | ((e & PTE_DIRTY) ? 2 : 0)];
}

static void clear_ad(volatile uint64_t *e)
{
    *e &= ~(PTE_ACCESSED | PTE_DIRTY);
}

static void check_accessed_dirty(void)
{
    volatile uint64_t *pml4e = &pml4[PML4_SLOT];

    clear_ad(pml4e);
    clear_ad(&pdpt[0]);
    clear_ad(&pd[0]);
    clear_ad(&pt[3]);
    flush_all();
    (void)peek(V4K(3));
    printf("pgedge: after a read: PML4E %s PDPTE %s PDE %s PTE %s\n",
           ad(*pml4e), ad(pdpt[0]), ad(pd[0]), ad(pt[3]));
    if ((*pml4e & pdpt[0] & pd[0] & pt[3] & PTE_ACCESSED) == 0 ||
        (pt[3] & PTE_DIRTY)) {
        guest_fail("A/D after a read");
    }
    poke(V4K(3) + 8, 1);
    printf("pgedge: after a write: PTE %s\n", ad(pt[3]));
    if (!(pt[3] & PTE_DIRTY)) {
        guest_fail("D after a write");
    }

    clear_ad(&pd[1]);
    flush_all();
    (void)peek(V2M + 0x4000);
    printf("pgedge: 2 MiB page after a read: PDE %s\n", ad(pd[1]));
    poke(V2M + 0x4008, 1);
    printf("pgedge: 2 MiB page after a write: PDE %s\n", ad(pd[1]));
    if ((pd[1] & (PTE_ACCESSED | PTE_DIRTY)) !=
        (PTE_ACCESSED | PTE_DIRTY)) {
        guest_fail("A/D of a 2 MiB page");
    }
}

/* --- flushes ---------------------------------------------------------- */

/* Load va (filling the TLB), remap it, flush with fn, expect the new. */
static void remap_and_flush(const char *what, uint64_t va,
                            volatile uint64_t *entry,
                            uint64_t new_entry, uint64_t want,
                            void (*flush)(uint64_t))
{
    (void)peek(va);
    *entry = new_entry;
    flush(va);
    if (peek(va) != want) {
        guest_fail("%s: 0x%lx reads 0x%lx, expected 0x%lx", what, va,
                   peek(va), want);
    }
    printf("pgedge: %s: 0x%lx now reads 0x%lx\n", what, va, want);
}

static void flush_invlpg(uint64_t va)
{
    invlpg(va);
}

static void flush_cr3(uint64_t va)
{
    flush_all();
}

static void flush_pge_toggle(uint64_t va)
{
    uint64_t cr4 = read_cr4();

    write_cr4(cr4 & ~CR4_PGE);
    write_cr4(cr4);
}

/* INVLPG of any address inside a 2 MiB page drops the whole page. */
static void flush_invlpg_2m_inside(uint64_t va)
{
    invlpg((va & ~(2 * MiB - 1)) + 0x1ff000);
}

static void check_flushes(void)
{
    uint64_t v = V4K(7);

    remap_and_flush("invlpg, 4 KiB page", v, &pt[7],
                    phys4k(0) | PTE_USER_RW, PATTERN | phys4k(0),
                    flush_invlpg);
    remap_and_flush("cr3 reload, 4 KiB page", v, &pt[7],
                    phys4k(1) | PTE_USER_RW, PATTERN | phys4k(1), flush_cr3);
    remap_and_flush("invlpg, 2 MiB page", V2M + 0x5000, &pd[1],
                    PHYS_2M_B | PTE_LARGE | PTE_USER_RW,
                    PATTERN | (PHYS_2M_B + 0x5000), flush_invlpg_2m_inside);
    remap_and_flush("cr3 reload, 2 MiB page", V2M + 0x5000, &pd[1],
                    PHYS_2M_A | PTE_LARGE | PTE_USER_RW,
                    PATTERN | (PHYS_2M_A + 0x5000), flush_cr3);

    write_cr4(read_cr4() | CR4_PGE);
    pt[7] = phys4k(2) | PTE_USER_RW | PTE_GLOBAL;
    flush_all();
    remap_and_flush("global page, invlpg", v, &pt[7],
                    phys4k(3) | PTE_USER_RW | PTE_GLOBAL,
                    PATTERN | phys4k(3), flush_invlpg);
    remap_and_flush("global page, CR4.PGE toggled", v, &pt[7],
                    phys4k(4) | PTE_USER_RW | PTE_GLOBAL,
                    PATTERN | phys4k(4), flush_pge_toggle);
    /* Leave no global entry behind for the tests that remap pt[7]. */
    pt[7] = phys4k(7) | PTE_USER_RW;
    write_cr4(read_cr4() & ~CR4_PGE);
    flush_all();
}

/* --- CR0.WP and U/S --------------------------------------------------- */

uint64_t target;                        /* the user trials' address */

static uint64_t u_read(uint64_t arg)
{
    return TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
}

static uint64_t u_write(uint64_t arg)
{
    return TRIAL("movq target(%%rip), %%rax", "movq %%rax, (%%rax)", "rax");
}

static void check_pf(const char *what, uint64_t at, uint64_t error,
                     uint64_t cr2)
{
    expect_pf(what, ++n, error, cr2, at);
    printf("pgedge: #PF %s: error 0x%lx\n", what, seen.error);
}

static void check_wp_us(void)
{
    uint64_t v = V4K(9), at;

    pt[9] = phys4k(9) | PTE_PRESENT | PTE_USER;     /* read-only */
    flush_all();
    target = v + 0x10;
    at = TRIAL("movq target(%%rip), %%rax", "movq %%rax, (%%rax)", "rax");
    check_pf("cpl 0 write, read-only, CR0.WP=1", at, PF_ERR_P | PF_ERR_W,
             v + 0x10);

    write_cr0(read_cr0() & ~CR0_WP);
    poke(v + 0x10, 0x77);
    if (peek(phys4k(9) + 0x10) != 0x77) {
        guest_fail("CR0.WP=0: the write did not land");
    }
    printf("pgedge: cpl 0 write, read-only, CR0.WP=0: done\n");
    at = run_user(u_write, 0);
    check_pf("cpl 3 write, read-only, CR0.WP=0", at,
             PF_ERR_P | PF_ERR_W | PF_ERR_U, v + 0x10);
    write_cr0(read_cr0() | CR0_WP);

    pt[9] = phys4k(9) | PTE_PRESENT | PTE_WRITE;    /* supervisor */
    flush_all();
    at = run_user(u_read, 0);
    check_pf("cpl 3 read, supervisor page", at, PF_ERR_P | PF_ERR_U,
             v + 0x10);
    at = run_user(u_write, 0);
    check_pf("cpl 3 write, supervisor page", at,
             PF_ERR_P | PF_ERR_W | PF_ERR_U, v + 0x10);
    if (peek(v + 0x10) != 0x77) {
        guest_fail("cpl 0 read of a supervisor page");
    }

    /* U/S is the AND of every level: a supervisor PDE hides user PTEs. */
    pt[9] = phys4k(9) | PTE_USER_RW;
    pd[0] &= ~PTE_USER;
    flush_all();
    at = run_user(u_read, 0);
    check_pf("cpl 3 read, user PTE under a supervisor PDE", at,
             PF_ERR_P | PF_ERR_U, v + 0x10);
    pd[0] |= PTE_USER;
    flush_all();
    if (run_user(u_read, 0) == 0 || seen.count != n) {
        guest_fail("cpl 3 read of a user page faulted");
    }
    printf("pgedge: cpl 3 read of the page made user again: done\n");
}

/* --- NX --------------------------------------------------------------- */

static void call_trial(const char *what, uint64_t fn, uint64_t error)
{
    /* The call pushed a return address before the fetch faulted. */
    asm volatile("leaq 2f(%%rip), %%r11\n\t"
                 "movq %%r11, resume_rip(%%rip)\n\t"
                 "movq %%rsp, %%rdx\n\t"
                 "call *%0\n"
                 "2:\tmovq %%rdx, %%rsp"
                 : : "r"(fn) : "rax", "rdx", "r11", "memory", "cc");
    check_pf(what, fn, error, fn);
}

static uint64_t u_call(uint64_t arg)
{
    asm volatile("leaq 2f(%%rip), %%r11\n\t"
                 "movq %%r11, resume_rip(%%rip)\n\t"
                 "movq %%rsp, %%rdx\n\t"
                 "call *%0\n"
                 "2:\tmovq %%rdx, %%rsp"
                 : : "r"(target) : "rax", "rdx", "r11", "memory", "cc");
    return target;
}

static void check_nx(void)
{
    uint64_t code = V4K(10), ok;
    uint8_t *page = (uint8_t *)(uintptr_t)phys4k(10);

    wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_NXE);
    page[0] = 0xb8;                     /* movl $0x600d, %eax */
    memcpy(page + 1, &(uint32_t){ 0x600d }, 4);
    page[5] = 0xc3;                     /* ret */

    pt[10] = phys4k(10) | PTE_USER_RW;
    pt[11] = 0;
    flush_all();
    asm volatile("call *%1" : "=a"(ok) : "r"(code) : "rcx", "rdx", "rsi",
                 "rdi", "r8", "r9", "r10", "r11", "memory", "cc");
    if ((uint32_t)ok != 0x600d) {
        guest_fail("fetch from an executable 4 KiB page: eax 0x%lx", ok);
    }
    printf("pgedge: call into an executable 4 KiB page: done\n");

    pt[10] |= PTE_XD;
    flush_all();
    call_trial("cpl 0 fetch, XD page", code, PF_ERR_P | PF_ERR_ID);
    target = code;
    run_user(u_call, 0);
    expect_pf("cpl 3 fetch, XD page", ++n, PF_ERR_P | PF_ERR_U | PF_ERR_ID,
              code, code);
    printf("pgedge: #PF cpl 3 fetch, XD page: error 0x%lx\n", seen.error);
    call_trial("cpl 0 fetch, not present", V4K(11), PF_ERR_ID);
    pt[10] &= ~PTE_XD;
    flush_all();
}

/* --- reserved bits ---------------------------------------------------- */

static void check_reserved(void)
{
    uint64_t at;

    /* Bits 20:13 of a 2 MiB PDE must be zero. */
    pd[1] = PHYS_2M_A | PTE_LARGE | PTE_USER_RW | (1ull << 13);
    flush_all();
    target = V2M + 0x40;
    at = TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
    check_pf("read, bit 13 of a 2 MiB PDE", at, PF_ERR_P | PF_ERR_RSVD,
             V2M + 0x40);
    at = TRIAL("movq target(%%rip), %%rax", "movq %%rax, (%%rax)", "rax");
    check_pf("write, bit 13 of a 2 MiB PDE", at,
             PF_ERR_P | PF_ERR_W | PF_ERR_RSVD, V2M + 0x40);
    at = run_user(u_read, 0);
    check_pf("cpl 3 read, bit 13 of a 2 MiB PDE", at,
             PF_ERR_P | PF_ERR_U | PF_ERR_RSVD, V2M + 0x40);
    pd[1] = PHYS_2M_A | PTE_LARGE | PTE_USER_RW;

    /* PS is reserved in a PML4E. */
    pml4[PML4_SLOT] |= PTE_LARGE;
    flush_all();
    target = V4K(2) + 0x18;
    at = TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
    pml4[PML4_SLOT] &= ~PTE_LARGE;
    check_pf("read, PS in a PML4E", at, PF_ERR_P | PF_ERR_RSVD,
             V4K(2) + 0x18);

    /* With EFER.NXE off, XD is a reserved bit. */
    wrmsr(MSR_EFER, rdmsr(MSR_EFER) & ~EFER_NXE);
    pt[2] |= PTE_XD;
    flush_all();
    at = TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
    pt[2] &= ~PTE_XD;
    flush_all();
    check_pf("read, XD with EFER.NXE off", at, PF_ERR_P | PF_ERR_RSVD,
             V4K(2) + 0x18);
}

/* --- canonical addresses ---------------------------------------------- */

static void check_canonical(void)
{
    uint64_t at;

    at = TRIAL("movabsq $0x8000000000000000, %%rax", "movq %%rax, (%%rax)",
               "rax");
    expect_exc("cpl 0 write, non-canonical", ++n, VEC_GP, 0, at);
    printf("pgedge: #GP cpl 0 write to 0x8000000000000000: error 0x%lx\n",
           seen.error);
    target = 0xffff7ffffffff000ul;
    at = run_user(u_read, 0);
    expect_exc("cpl 3 read, non-canonical", ++n, VEC_GP, 0, at);
    printf("pgedge: #GP cpl 3 read of 0x%lx: error 0x%lx\n", target,
           seen.error);

    /* The last canonical bytes below and above the hole are only
     * unmapped. */
    target = 0x00007ffffffffff8ul;
    at = TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
    check_pf("read of 0x7ffffffffff8", at, 0, target);
    target = 0xffff800000000000ul;
    at = TRIAL("movq target(%%rip), %%rax", "movq (%%rax), %%rax", "rax");
    check_pf("read of 0xffff800000000000", at, 0, target);
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    idt_set_handler(VEC_GP, on_trial_exception);
    idt_set_handler(VEC_PF, on_trial_exception);
    setup_tables();
    check_translations();
    check_accessed_dirty();
    check_flushes();
    check_wp_us();
    check_nx();
    if (option_on(mb, "rsvd")) {
        check_reserved();
    } else {
        printf("pgedge: reserved-bit faults skipped (rsvd=off)\n");
    }
    check_canonical();
    printf("pgedge: %u exceptions caught and resumed\n", n);
    guest_pass();
}
