/*
 * Identity map with 2 MiB pages.  entry.S mapped the first GiB (the part
 * it has to do before paging, slowly on emulating hosts); the rest of the
 * 4 GiB and any RAM above it are mapped here, natively.
 */
#include "guest.h"

#define PD_POOL_PAGES   32      /* 32 GiB of 2 MiB pages beyond the first */
#define PAGE_2M         (2 * MiB)

extern uint64_t boot_pml4[512], boot_pdpt[512], boot_pd[512];

static uint64_t pd_pool[PD_POOL_PAGES][512] __attribute__((aligned(4096)));
static unsigned pd_pool_used;

static void flush_tlb(void)
{
    uint64_t cr3;

    asm volatile("mov %%cr3, %0; mov %0, %%cr3" : "=r"(cr3) : : "memory");
}

/* The PDE for addr, making its page directory if asked to. */
static uint64_t *pde_of(uint64_t addr, bool alloc)
{
    uint64_t *pdpte = &boot_pdpt[(addr >> 30) & 511];

    if (addr >= 512 * GiB) {
        return NULL;                    /* would need a second PDPT */
    }
    if (!(*pdpte & PTE_PRESENT)) {
        if (!alloc || pd_pool_used == PD_POOL_PAGES) {
            return NULL;
        }
        *pdpte = (uintptr_t)pd_pool[pd_pool_used++] | PTE_PRESENT | PTE_WRITE |
                 PTE_USER;
    }
    uint64_t *pd = (uint64_t *)(uintptr_t)(*pdpte & ~0xfffull);
    return &pd[(addr >> 21) & 511];
}

bool paging_map(uint64_t base, uint64_t size, uint64_t flags)
{
    uint64_t end = base + size;

    for (uint64_t a = base & ~(PAGE_2M - 1); a < end; a += PAGE_2M) {
        uint64_t *pde = pde_of(a, true);
        if (!pde) {
            return false;
        }
        *pde = a | flags | PTE_LARGE;
    }
    flush_tlb();
    return true;
}

void paging_set_flags(uint64_t addr, uint64_t flags)
{
    uint64_t *pde = pde_of(addr, false);

    *pde = (addr & ~(PAGE_2M - 1)) | flags | PTE_LARGE;
    flush_tlb();
}

void paging_init(void)
{
    paging_map(1 * GiB, 3 * GiB, PTE_KERNEL_RW);
    /* The APICs and the BIOS live in the top 32 MiB: keep them uncached. */
    paging_map(4 * GiB - 32 * MiB, 32 * MiB, PTE_KERNEL_RW | PTE_PCD | PTE_PWT);
}
