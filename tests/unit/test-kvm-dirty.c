/*
 * KVM memory slots follow the memory API (accel/kvm/kvm-all.c's memory
 * listener), and dirty logging reads KVM's log: a tiny 64-bit guest on
 * a 2 MiB RAM region writes two pages and leaves through an OUT.
 *
 *   - its writes reach the RAM (the region got a slot when mapped);
 *   - a device region put over one page at run time splits the slot:
 *     the guest's write there comes back as an MMIO exit, and once the
 *     device is gone it is RAM again;
 *   - with logging on, the guest's writes are in the fetched log and a
 *     write through the host pointer (which KVM cannot see) is not,
 *     while one through address_space_rw (DMA) is; fetching clears.
 *
 * Skipped where /dev/kvm cannot be used.
 */
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <linux/kvm.h>

#include <glib.h>

#include "hw/boards.h"
#include "system/accel.h"
#include "system/kvm.h"
#include "system/memory.h"
#include "system/vm-config.h"

#define RAM_SIZE    (2u << 20)
#define CODE        0x1000u
#define PML4        0x2000u
#define PDPT        0x3000u
#define PD          0x4000u
#define PAGE_A      0x10000u
#define PAGE_B      0x13000u
#define PAGE_HOST   0x50000u
#define PAGE_DMA    0x60000u

/* mov byte [PAGE_A], 1; mov byte [PAGE_B], 2; out 0xf4, al */
static const uint8_t guest_code[] = {
    0xc6, 0x04, 0x25, 0x00, 0x00, 0x01, 0x00, 0x01,
    0xc6, 0x04, 0x25, 0x00, 0x30, 0x01, 0x00, 0x02,
    0xe6, 0xf4,
};

static struct {
    uint8_t *ram;
    MemoryRegion ram_mr;
    int vcpu;
    struct kvm_run *run;
    size_t run_size;
} t = { .vcpu = -1 };

static uint64_t dev_read(void *opaque, uint64_t addr, unsigned size)
{
    return 0;
}

static void dev_write(void *opaque, uint64_t addr, uint64_t value,
                      unsigned size)
{
}

static const MemoryRegionOps dev_ops = { .read = dev_read,
                                         .write = dev_write };

static struct kvm_segment segment(uint16_t sel, uint8_t type, bool code)
{
    return (struct kvm_segment) {
        .base = 0, .limit = 0xffffffff, .selector = sel, .type = type,
        .present = 1, .s = 1, .g = 1, .l = code, .db = !code,
    };
}

/* Long mode, CPL 0, the first 2 MiB identity-mapped by one large page. */
static bool vcpu_setup(void)
{
    struct kvm_sregs sregs;
    int mmap_size;

    t.vcpu = ioctl(kvm_get_vm_fd(), KVM_CREATE_VCPU, 0);
    mmap_size = ioctl(kvm_get_fd(), KVM_GET_VCPU_MMAP_SIZE, 0);
    if (t.vcpu < 0 || mmap_size <= 0) {
        return false;
    }
    t.run_size = mmap_size;
    t.run = mmap(NULL, t.run_size, PROT_READ | PROT_WRITE, MAP_SHARED,
                 t.vcpu, 0);
    if (t.run == MAP_FAILED || ioctl(t.vcpu, KVM_GET_SREGS, &sregs) < 0) {
        return false;
    }
    /* Accessed and dirty already: the tables stay out of the log. */
    *(uint64_t *)(t.ram + PML4) = PDPT | 0x23;
    *(uint64_t *)(t.ram + PDPT) = PD | 0x23;
    *(uint64_t *)(t.ram + PD) = 0xe3;
    memcpy(t.ram + CODE, guest_code, sizeof(guest_code));
    sregs.cs = segment(8, 11, true);
    sregs.ds = sregs.es = sregs.fs = sregs.gs = sregs.ss =
        segment(16, 3, false);
    sregs.cr0 = 0x80000011;         /* PG, ET, PE */
    sregs.cr3 = PML4;
    sregs.cr4 = 0x20;               /* PAE */
    sregs.efer = 0x500;             /* LMA, LME */
    return ioctl(t.vcpu, KVM_SET_SREGS, &sregs) == 0;
}

/* Run the guest from the start to its first exit. */
static uint32_t vcpu_run(void)
{
    struct kvm_regs regs = { .rip = CODE, .rflags = 2, .rsp = 0x8000 };

    g_assert_cmpint(ioctl(t.vcpu, KVM_SET_REGS, &regs), ==, 0);
    while (ioctl(t.vcpu, KVM_RUN, 0) < 0) {
        g_assert_cmpint(errno, ==, EINTR);
    }
    return t.run->exit_reason;
}

static bool dirty(const uint64_t *bm, uint64_t paddr)
{
    uint64_t page = paddr / MEMORY_DIRTY_PAGE_SIZE;

    return bm[page / 64] & (1ull << (page % 64));
}

static void test_kvm_slots_and_log(void)
{
    VmConfig cfg = { 0 };
    MachineState ms = { .cfg = &cfg };
    Error *err = NULL;
    MemoryRegion dev;
    uint64_t *bm;
    uint8_t one = 1;

    if (!accel_find("kvm")->init(&ms, NULL, &err)) {
        g_test_skip(error_get_pretty(err));
        error_free(err);
        return;
    }
    t.ram = mmap(NULL, RAM_SIZE, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    g_assert_true(t.ram != MAP_FAILED);
    memory_region_init_ram_ptr(&t.ram_mr, "ram", RAM_SIZE, t.ram);
    g_assert_true(address_space_map_region(&address_space_memory, &t.ram_mr,
                                           0, NULL));
    if (!vcpu_setup()) {
        g_test_skip("cannot set up a KVM vCPU here");
        goto out;
    }
    /* The region got its slot without anyone asking. */
    g_assert_cmpuint(vcpu_run(), ==, KVM_EXIT_IO);
    g_assert_cmpuint(t.run->io.port, ==, 0xf4);
    g_assert_cmpuint(t.ram[PAGE_A], ==, 1);
    g_assert_cmpuint(t.ram[PAGE_B], ==, 2);

    /* A device over page B: the slot is split around it. */
    memory_region_init_io(&dev, "dev", &dev_ops, NULL, 0x1000);
    g_assert_true(memory_region_add_subregion(
        address_space_root(&address_space_memory), PAGE_B, &dev, 1, NULL));
    t.ram[PAGE_A] = t.ram[PAGE_B] = 0;
    g_assert_cmpuint(vcpu_run(), ==, KVM_EXIT_MMIO);
    g_assert_cmphex(t.run->mmio.phys_addr, ==, PAGE_B);
    g_assert_true(t.run->mmio.is_write);
    g_assert_cmpuint(t.ram[PAGE_A], ==, 1);
    g_assert_cmpuint(t.ram[PAGE_B], ==, 0);
    /* ... and joined again when it goes. */
    memory_region_finalize(&dev);
    g_assert_cmpuint(vcpu_run(), ==, KVM_EXIT_IO);
    g_assert_cmpuint(t.ram[PAGE_B], ==, 2);

    /* Dirty logging: KVM's log for the vCPU, ours for DMA. */
    memory_region_set_log(&t.ram_mr, true);
    bm = memory_region_fetch_dirty_log(&t.ram_mr);
    g_free(bm);
    g_assert_cmpuint(vcpu_run(), ==, KVM_EXIT_IO);
    t.ram[PAGE_HOST] = 1;
    address_space_rw(&address_space_memory, PAGE_DMA, &one, 1, true);
    bm = memory_region_fetch_dirty_log(&t.ram_mr);
    g_assert_true(dirty(bm, PAGE_A));
    g_assert_true(dirty(bm, PAGE_B));
    g_assert_true(dirty(bm, PAGE_DMA));
    g_assert_false(dirty(bm, PAGE_HOST));
    g_assert_false(dirty(bm, PAGE_A + 0x1000));
    g_free(bm);
    bm = memory_region_fetch_dirty_log(&t.ram_mr);
    g_assert_false(dirty(bm, PAGE_A));
    g_assert_false(dirty(bm, PAGE_DMA));
    g_free(bm);
    /* Stopped: no log, and the guest still runs. */
    memory_region_set_log(&t.ram_mr, false);
    g_assert_null(memory_region_fetch_dirty_log(&t.ram_mr));
    g_assert_cmpuint(vcpu_run(), ==, KVM_EXIT_IO);

out:
    if (t.run && t.run != MAP_FAILED) {
        munmap(t.run, t.run_size);
    }
    if (t.vcpu >= 0) {
        close(t.vcpu);
    }
    memory_region_finalize(&t.ram_mr);
    accel_find("kvm")->cleanup();
    memory_cleanup();
    munmap(t.ram, RAM_SIZE);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/kvm/memory-slots-and-dirty-log",
                    test_kvm_slots_and_log);
    return g_test_run();
}
