/*
 * KVM accelerator: the /dev/kvm handle, the VM, its memory slots and the
 * PC's in-kernel interrupt controllers and PIT. The vCPUs are in
 * kvm-cpus.c.
 *
 * Memory slots follow the flat view of address_space_memory through a
 * memory listener registered when the VM is created: each RAM range that
 * appears gets a slot (read-only for ROM where KVM offers it), one that
 * goes loses it, a move is both; device ranges stay unslotted and come
 * back as MMIO exits. Dirty logging sets KVM_MEM_LOG_DIRTY_PAGES on the
 * slots of a logged region and log_sync moves KVM_GET_DIRTY_LOG into the
 * region's bitmap.
 *
 * Migration: the VM's clock (KVM_GET_CLOCK, the time kvmclock counts
 * from) is the accelerator's VM-wide section "kvmclock"; the PIC pair,
 * the IOAPIC and the PIT travel with their fronts in hw/i386/kvm/, which
 * read and write them through kvm_irqchip_get/set and kvm_pit_get/set.
 */
#include <cpuid.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "hw/boards.h"
#include "accel/kvm/kvm-int.h"
#include "vmstate/vmstate.h"
#include "system/accel.h"
#include "system/kvm.h"
#include "system/memory.h"
#include "system/runstate.h"
#include "system/system.h"

/*
 * QEMU's addresses for the pages VMX needs for real mode (an identity
 * page table and a TSS, three pages); the e820 map reserves them.
 */
#define KVM_IDENTITY_BASE   0xfeffc000ULL
#define KVM_TSS_BASE        (KVM_IDENTITY_BASE + 0x1000)
/* Slots are in pages of the host's base size. */
#define KVM_PAGE_SIZE       4096u

/* A user memory slot: a page-aligned RAM range of the flat view. */
typedef struct KVMSlot {
    bool used;
    uint32_t flags;             /* KVM_MEM_* */
    uint64_t start;             /* guest-physical */
    uint64_t size;
    uint8_t *host;
    MemoryRegion *mr;           /* whose RAM it is ... */
    uint64_t offset;            /* ... from this offset */
} KVMSlot;

typedef struct KVMState {
    int fd;
    int vmfd;
    char *accel_irqchip;        /* -accel kvm,kernel-irqchip= */
    KernelIrqchip machine_irqchip;
    bool irqchip;               /* KVM_CREATE_IRQCHIP done */
    bool pit;                   /* KVM_CREATE_PIT2 done */
    /*
     * Indexed by slot number, grown as slots are used: KVM offers
     * thousands, a machine uses a handful, and what is allocated is
     * locked under mem-lock=on.
     */
    KVMSlot *slots;
    unsigned slots_len;         /* entries allocated */
    unsigned nr_slots;          /* KVM_CAP_NR_MEMSLOTS */
    struct kvm_irqchip reset_chips[3];  /* PIC master, slave, IOAPIC */
    struct kvm_pit_state2 reset_pit;
} KVMState;

static KVMState kvm_state = { .fd = -1, .vmfd = -1 };

static const QemuOptDesc kvm_props[] = {
    { "kernel-irqchip", QEMU_OPT_STRING },
    { NULL },
};

/* Capabilities without which this emulator cannot run a guest. */
static const struct {
    int cap;
    const char *name;
} kvm_required_caps[] = {
    { KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
    { KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP" },
    { KVM_CAP_SET_TSS_ADDR, "KVM_CAP_SET_TSS_ADDR" },
    { KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },
};

static int kvm_check_extension(int fd, int cap)
{
    int ret = ioctl(fd, KVM_CHECK_EXTENSION, cap);

    return ret < 0 ? 0 : ret;
}

/*
 * -overcommit cpu-pm=on: let the guest run HLT, MWAIT, PAUSE (and C-state
 * instructions) without exiting, as far as this host's KVM allows; as
 * QEMU does, what the host cannot offer (MWAIT on many hosts) is left
 * out. Only a KVM that allows none of them is an error.
 */
static bool kvm_disable_pm_exits(int vmfd, Error **errp)
{
    int wanted = KVM_X86_DISABLE_EXITS_HLT | KVM_X86_DISABLE_EXITS_MWAIT |
                 KVM_X86_DISABLE_EXITS_PAUSE | KVM_X86_DISABLE_EXITS_CSTATE;
    int have = kvm_check_extension(vmfd, KVM_CAP_X86_DISABLE_EXITS);
    struct kvm_enable_cap cap = { .cap = KVM_CAP_X86_DISABLE_EXITS };

    if (!(have & (KVM_X86_DISABLE_EXITS_HLT | KVM_X86_DISABLE_EXITS_MWAIT |
                  KVM_X86_DISABLE_EXITS_PAUSE))) {
        error_setg(errp, "-overcommit cpu-pm=on: this host's KVM cannot "
                   "leave HLT, MWAIT or PAUSE to the guest "
                   "(KVM_CAP_X86_DISABLE_EXITS offers 0x%x)", have);
        return false;
    }
    cap.args[0] = have & wanted;
    if (ioctl(vmfd, KVM_ENABLE_CAP, &cap) < 0) {
        error_setg_errno(errp, errno, "-overcommit cpu-pm=on: "
                         "KVM_ENABLE_CAP(KVM_CAP_X86_DISABLE_EXITS)");
        return false;
    }
    return true;
}

static MemoryListener kvm_memory_listener;
static MemoryListener kvm_io_listener;

static void kvm_accel_cleanup(void)
{
    memory_listener_unregister(&kvm_io_listener);
    memory_listener_unregister(&kvm_memory_listener);
    kvm_routes_cleanup();
    g_clear_pointer(&kvm_state.slots, g_free);
    kvm_state.slots_len = 0;
    kvm_state.nr_slots = 0;
    g_clear_pointer(&kvm_state.accel_irqchip, g_free);
    kvm_state.irqchip = kvm_state.pit = false;
    if (kvm_state.vmfd >= 0) {
        close(kvm_state.vmfd);
    }
    if (kvm_state.fd >= 0) {
        close(kvm_state.fd);
    }
    kvm_state.vmfd = kvm_state.fd = -1;
}

static bool kvm_accel_init(MachineState *ms, const QemuOpts *props,
                           Error **errp)
{
    int ret;

    if (props && qemu_opt_get(props, "kernel-irqchip")) {
        kvm_state.accel_irqchip = g_strdup(qemu_opt_get(props,
                                                        "kernel-irqchip"));
    }
    kvm_state.machine_irqchip = ms->cfg->machine.kernel_irqchip;
    kvm_state.fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (kvm_state.fd < 0) {
        error_setg_errno(errp, errno, "Could not access KVM kernel module");
        return false;
    }
    ret = ioctl(kvm_state.fd, KVM_GET_API_VERSION, 0);
    if (ret != KVM_API_VERSION) {
        error_setg(errp, "KVM API version %d is not supported (need %d)",
                   ret, KVM_API_VERSION);
        goto fail;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(kvm_required_caps); i++) {
        if (!kvm_check_extension(kvm_state.fd, kvm_required_caps[i].cap)) {
            error_setg(errp, "kvm does not support %s, which this "
                       "emulator requires", kvm_required_caps[i].name);
            goto fail;
        }
    }
    do {
        kvm_state.vmfd = ioctl(kvm_state.fd, KVM_CREATE_VM, 0);
    } while (kvm_state.vmfd < 0 && errno == EINTR);
    if (kvm_state.vmfd < 0) {
        error_setg_errno(errp, errno, "ioctl(KVM_CREATE_VM) failed");
        goto fail;
    }
    if (enable_cpu_pm && !kvm_disable_pm_exits(kvm_state.vmfd, errp)) {
        goto fail;
    }
    /* KVM's own minimum when it does not say (KVM_USER_MEM_SLOTS was 32). */
    kvm_state.nr_slots = kvm_check_extension(kvm_state.vmfd,
                                             KVM_CAP_NR_MEMSLOTS);
    if (!kvm_state.nr_slots) {
        kvm_state.nr_slots = 32;
    }
    memory_listener_register(&kvm_memory_listener, &address_space_memory);
    memory_listener_register(&kvm_io_listener, &address_space_io);
    return true;

fail:
    kvm_accel_cleanup();
    return false;
}

bool kvm_enabled(void)
{
    return kvm_state.vmfd >= 0;
}

int kvm_get_fd(void)
{
    return kvm_state.fd;
}

int kvm_get_vm_fd(void)
{
    return kvm_state.vmfd;
}

int kvm_check_cap(int cap)
{
    return kvm_check_extension(kvm_state.vmfd >= 0 ? kvm_state.vmfd
                                                   : kvm_state.fd, cap);
}

void kvm_set_irq(int gsi, int level)
{
    struct kvm_irq_level irq = { .irq = gsi, .level = level };

    if (ioctl(kvm_state.vmfd, KVM_IRQ_LINE, &irq) < 0) {
        warn_report("KVM_IRQ_LINE(%d, %d): %s", gsi, level,
                    g_strerror(errno));
    }
}

static bool kvm_irqchip_allowed(Error **errp)
{
    const char *s = kvm_state.accel_irqchip;
    KernelIrqchip k = kvm_state.machine_irqchip;

    if (s) {
        if (!strcmp(s, "split")) {
            k = KERNEL_IRQCHIP_SPLIT;
        } else if (!strcmp(s, "off")) {
            k = KERNEL_IRQCHIP_OFF;
        } else if (!strcmp(s, "on")) {
            k = KERNEL_IRQCHIP_ON;
        } else {
            error_setg(errp, "Parameter 'kernel-irqchip' expects 'on', "
                       "'off' or 'split'");
            return false;
        }
    }
    /* Both need the userspace PIC/IOAPIC that come with the software CPU. */
    if (k == KERNEL_IRQCHIP_OFF) {
        error_setg(errp, "kernel-irqchip=off is not supported yet");
        return false;
    }
    if (k == KERNEL_IRQCHIP_SPLIT) {
        error_setg(errp, "kernel-irqchip=split is not supported yet");
        return false;
    }
    return true;
}

bool kvm_irqchip_create(Error **errp)
{
    uint64_t identity = KVM_IDENTITY_BASE;

    if (kvm_state.irqchip) {
        return true;
    }
    if (!kvm_irqchip_allowed(errp)) {
        return false;
    }
    if (kvm_check_cap(KVM_CAP_SET_IDENTITY_MAP_ADDR) &&
        ioctl(kvm_state.vmfd, KVM_SET_IDENTITY_MAP_ADDR, &identity) < 0) {
        error_setg_errno(errp, errno, "KVM_SET_IDENTITY_MAP_ADDR");
        return false;
    }
    if (ioctl(kvm_state.vmfd, KVM_SET_TSS_ADDR, (unsigned long)KVM_TSS_BASE)
        < 0) {
        error_setg_errno(errp, errno, "KVM_SET_TSS_ADDR");
        return false;
    }
    if (ioctl(kvm_state.vmfd, KVM_CREATE_IRQCHIP) < 0) {
        error_setg_errno(errp, errno, "Could not create the in-kernel "
                         "irqchip (KVM_CREATE_IRQCHIP)");
        return false;
    }
    kvm_state.irqchip = true;
    if (!kvm_routes_init_pc(0, errp)) {
        return false;
    }
    for (int i = 0; i < 3; i++) {
        kvm_state.reset_chips[i].chip_id = i;
        if (ioctl(kvm_state.vmfd, KVM_GET_IRQCHIP,
                  &kvm_state.reset_chips[i]) < 0) {
            error_setg_errno(errp, errno, "KVM_GET_IRQCHIP");
            return false;
        }
    }
    return true;
}

bool kvm_pit_create(bool discard, Error **errp)
{
    struct kvm_pit_config cfg = { .flags = KVM_PIT_SPEAKER_DUMMY };

    if (!kvm_check_cap(KVM_CAP_PIT2) ||
        ioctl(kvm_state.vmfd, KVM_CREATE_PIT2, &cfg) < 0) {
        error_setg_errno(errp, errno, "Create kernel PIT failed");
        return false;
    }
    kvm_state.pit = true;
    /* lost_tick_policy=discard: ticks the guest missed are dropped. */
    if (discard) {
        struct kvm_reinject_control rc = { .pit_reinject = 0 };

        if (!kvm_check_cap(KVM_CAP_REINJECT_CONTROL) ||
            ioctl(kvm_state.vmfd, KVM_REINJECT_CONTROL, &rc) < 0) {
            error_setg(errp, "Can't disable in-kernel PIT reinjection");
            return false;
        }
    }
    if (ioctl(kvm_state.vmfd, KVM_GET_PIT2, &kvm_state.reset_pit) < 0) {
        error_setg_errno(errp, errno, "KVM_GET_PIT2");
        return false;
    }
    return true;
}

void kvm_pit_reset(void)
{
    if (kvm_state.pit &&
        ioctl(kvm_state.vmfd, KVM_SET_PIT2, &kvm_state.reset_pit) < 0) {
        warn_report("KVM_SET_PIT2: %s", g_strerror(errno));
    }
}

bool kvm_irqchip_get(struct kvm_irqchip *chip, Error **errp)
{
    if (!kvm_state.irqchip ||
        ioctl(kvm_state.vmfd, KVM_GET_IRQCHIP, chip) < 0) {
        error_setg_errno(errp, kvm_state.irqchip ? errno : ENODEV,
                         "KVM_GET_IRQCHIP of chip %u", chip->chip_id);
        return false;
    }
    return true;
}

bool kvm_irqchip_set(const struct kvm_irqchip *chip, Error **errp)
{
    if (!kvm_state.irqchip ||
        ioctl(kvm_state.vmfd, KVM_SET_IRQCHIP, chip) < 0) {
        error_setg_errno(errp, kvm_state.irqchip ? errno : ENODEV,
                         "KVM_SET_IRQCHIP of chip %u", chip->chip_id);
        return false;
    }
    return true;
}

const struct kvm_irqchip *kvm_irqchip_reset_state(unsigned chip_id)
{
    return kvm_state.irqchip && chip_id < 3 ? &kvm_state.reset_chips[chip_id]
                                            : NULL;
}

bool kvm_pit_get(struct kvm_pit_state2 *pit, Error **errp)
{
    if (!kvm_state.pit || ioctl(kvm_state.vmfd, KVM_GET_PIT2, pit) < 0) {
        error_setg_errno(errp, kvm_state.pit ? errno : ENODEV,
                         "KVM_GET_PIT2");
        return false;
    }
    return true;
}

bool kvm_pit_set(const struct kvm_pit_state2 *pit, Error **errp)
{
    if (!kvm_state.pit || ioctl(kvm_state.vmfd, KVM_SET_PIT2, pit) < 0) {
        error_setg_errno(errp, kvm_state.pit ? errno : ENODEV,
                         "KVM_SET_PIT2");
        return false;
    }
    return true;
}

void kvm_pc_reset_irqchip(void)
{
    for (int i = 0; kvm_state.irqchip && i < 3; i++) {
        if (ioctl(kvm_state.vmfd, KVM_SET_IRQCHIP,
                  &kvm_state.reset_chips[i]) < 0) {
            warn_report("KVM_SET_IRQCHIP: %s", g_strerror(errno));
        }
    }
}

/* --- the clock, migration's "kvmclock" --------------------------------- */

typedef struct KVMClockState {
    bool valid;                 /* the source's KVM has KVM_CAP_ADJUST_CLOCK */
    uint64_t clock;             /* ns, what kvmclock reads */
} KVMClockState;

static KVMClockState kvm_clock;

static int kvm_clock_pre_save(void *opaque)
{
    KVMClockState *c = opaque;
    struct kvm_clock_data data = { 0 };

    c->valid = kvm_check_cap(KVM_CAP_ADJUST_CLOCK) > 0;
    c->clock = 0;
    if (!c->valid) {
        return 0;
    }
    if (ioctl(kvm_state.vmfd, KVM_GET_CLOCK, &data) < 0) {
        warn_report("kvmclock: KVM_GET_CLOCK: %s", g_strerror(errno));
        return -1;
    }
    c->clock = data.clock;
    return 0;
}

static bool kvm_clock_post_load(void *opaque, unsigned version, Error **errp)
{
    KVMClockState *c = opaque;
    struct kvm_clock_data data = { .clock = c->clock };

    if (!c->valid) {
        return true;            /* the clock runs from this VM's start */
    }
    if (kvm_check_cap(KVM_CAP_ADJUST_CLOCK) <= 0) {
        error_setg(errp, "field 'clock': this KVM cannot set the clock "
                   "(no KVM_CAP_ADJUST_CLOCK)");
        return false;
    }
    if (ioctl(kvm_state.vmfd, KVM_SET_CLOCK, &data) < 0) {
        error_setg_errno(errp, errno, "field 'clock': KVM_SET_CLOCK to "
                         "%" PRIu64 " ns failed", c->clock);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_kvm_clock = {
    .name = "kvmclock",
    .version = 1,
    .minimum_version = 1,
    .pre_save = kvm_clock_pre_save,
    .post_load = kvm_clock_post_load,
    .fields = (const VMStateField[]) {
        VMSTATE_BOOL(KVMClockState, valid),
        VMSTATE_U64(KVMClockState, clock),
        VMSTATE_END
    },
};

const VMStateDescription *kvm_vm_vmstate(void)
{
    return &vmstate_kvm_clock;
}

void *kvm_vm_state(void)
{
    return &kvm_clock;
}

/* --- memory slots ------------------------------------------------------- */

/*
 * Guest RAM that KVM cannot map would come back as MMIO exits to
 * nothing: a listener cannot fail its caller, so the VM ends (status 1)
 * with the reason, before it runs when this happens at start-up.
 */
static void kvm_slot_failed(void)
{
    qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
}

static bool kvm_set_slot(unsigned id, const KVMSlot *slot, uint64_t size)
{
    struct kvm_userspace_memory_region reg = {
        .slot = id,
        .flags = slot->flags,
        .guest_phys_addr = slot->start,
        .memory_size = size,
        .userspace_addr = (uintptr_t)slot->host,
    };

    if (ioctl(kvm_state.vmfd, KVM_SET_USER_MEMORY_REGION, &reg) < 0) {
        error_report("KVM_SET_USER_MEMORY_REGION for '%s' at 0x%" PRIx64
                     " (0x%" PRIx64 " bytes): %s", slot->mr->name,
                     slot->start, size, g_strerror(errno));
        kvm_slot_failed();
        return false;
    }
    return true;
}

/*
 * The slot a RAM section would get: its whole host pages. False for
 * what cannot be slotted (devices, ROM without KVM_CAP_READONLY_MEM, no
 * whole page); those accesses exit as MMIO.
 */
static bool kvm_section_slot(const MemoryRegionSection *s, KVMSlot *slot)
{
    uint64_t start = s->offset_within_address_space;
    uint64_t end = start + s->size;
    uint64_t mask = ~(uint64_t)(KVM_PAGE_SIZE - 1);
    uint64_t astart = (start + KVM_PAGE_SIZE - 1) & mask;
    uint64_t aend = end & mask;

    if (!s->mr->ram || aend <= astart) {
        return false;
    }
    if (s->readonly && !kvm_check_cap(KVM_CAP_READONLY_MEM)) {
        return false;
    }
    *slot = (KVMSlot) {
        .used = true,
        .flags = s->readonly ? KVM_MEM_READONLY
                             : (s->log ? KVM_MEM_LOG_DIRTY_PAGES : 0),
        .start = astart,
        .size = aend - astart,
        .mr = s->mr,
        .offset = s->offset_within_region + (astart - start),
    };
    slot->host = s->mr->ram + slot->offset;
    return ((uintptr_t)slot->host & (KVM_PAGE_SIZE - 1)) == 0;
}

static KVMSlot *kvm_slot_of(const MemoryRegionSection *s, unsigned *id)
{
    KVMSlot want;

    if (!kvm_section_slot(s, &want)) {
        return NULL;
    }
    for (unsigned i = 0; i < kvm_state.slots_len; i++) {
        KVMSlot *slot = &kvm_state.slots[i];

        if (slot->used && slot->start == want.start &&
            slot->size == want.size) {
            *id = i;
            return slot;
        }
    }
    return NULL;
}

/* A free slot number, growing the table up to KVM's limit; -1: none. */
static int kvm_free_slot(void)
{
    unsigned old = kvm_state.slots_len;

    for (unsigned i = 0; i < old; i++) {
        if (!kvm_state.slots[i].used) {
            return i;
        }
    }
    if (old >= kvm_state.nr_slots) {
        return -1;
    }
    kvm_state.slots_len = MIN(MAX(16u, old * 2), kvm_state.nr_slots);
    kvm_state.slots = g_renew(KVMSlot, kvm_state.slots, kvm_state.slots_len);
    memset(&kvm_state.slots[old], 0,
           (kvm_state.slots_len - old) * sizeof(KVMSlot));
    return old;
}

static void kvm_region_add(MemoryListener *l, const MemoryRegionSection *s)
{
    KVMSlot want;
    int i;

    if (!kvm_section_slot(s, &want)) {
        return;
    }
    i = kvm_free_slot();
    if (i >= 0) {
        if (kvm_set_slot(i, &want, want.size)) {
            kvm_state.slots[i] = want;
        }
        return;
    }
    error_report("kvm offers %u memory slots, the machine needs more "
                 "(for '%s' at 0x%" PRIx64 ")", kvm_state.nr_slots,
                 s->mr->name, want.start);
    kvm_slot_failed();
}

static void kvm_region_del(MemoryListener *l, const MemoryRegionSection *s)
{
    unsigned id;
    KVMSlot *slot = kvm_slot_of(s, &id);

    if (slot) {
        kvm_set_slot(id, slot, 0);
        memset(slot, 0, sizeof(*slot));
    }
}

static void kvm_log_change(const MemoryRegionSection *s, bool log)
{
    unsigned id;
    KVMSlot *slot = kvm_slot_of(s, &id);

    if (!slot || (slot->flags & KVM_MEM_READONLY)) {
        return;
    }
    slot->flags = log ? KVM_MEM_LOG_DIRTY_PAGES : 0;
    kvm_set_slot(id, slot, slot->size);
}

static void kvm_log_start(MemoryListener *l, const MemoryRegionSection *s)
{
    kvm_log_change(s, true);
}

static void kvm_log_stop(MemoryListener *l, const MemoryRegionSection *s)
{
    kvm_log_change(s, false);
}

/* What the guest wrote since the last call, into the region's bitmap. */
static void kvm_log_sync(MemoryListener *l, const MemoryRegionSection *s)
{
    unsigned id;
    KVMSlot *slot = kvm_slot_of(s, &id);
    uint64_t pages, *bitmap;
    struct kvm_dirty_log log = { 0 };

    if (!slot || !(slot->flags & KVM_MEM_LOG_DIRTY_PAGES)) {
        return;
    }
    pages = slot->size / KVM_PAGE_SIZE;
    bitmap = g_new0(uint64_t, (pages + 63) / 64);
    log.slot = id;
    log.dirty_bitmap = bitmap;
    if (ioctl(kvm_state.vmfd, KVM_GET_DIRTY_LOG, &log) < 0) {
        error_report("KVM_GET_DIRTY_LOG for '%s': %s", slot->mr->name,
                     g_strerror(errno));
        /* Unknown: everything may have been written. */
        memset(bitmap, 0xff, (pages + 63) / 64 * 8);
    }
    for (uint64_t w = 0; w < (pages + 63) / 64; w++) {
        for (uint64_t bits = bitmap[w]; bits; bits &= bits - 1) {
            uint64_t page = w * 64 + __builtin_ctzll(bits);

            if (page < pages) {
                memory_region_set_dirty(slot->mr, slot->offset +
                                        page * KVM_PAGE_SIZE,
                                        KVM_PAGE_SIZE);
            }
        }
    }
    g_free(bitmap);
}

static MemoryListener kvm_memory_listener = {
    .region_add = kvm_region_add,
    .region_del = kvm_region_del,
    .log_start = kvm_log_start,
    .log_stop = kvm_log_stop,
    .log_sync = kvm_log_sync,
    .eventfd_add = kvm_eventfd_add,
    .eventfd_del = kvm_eventfd_del,
};

/* Port I/O has no slots, only ioeventfds. */
static MemoryListener kvm_io_listener = {
    .eventfd_add = kvm_eventfd_add,
    .eventfd_del = kvm_eventfd_del,
};

/*
 * QEMU's host model names the host's CPU (model-id); KVM may leave the
 * brand leaves out or empty (this host's kvm_pvm does), so they are
 * taken from the host's own CPUID where the host has them.
 */
static void add_host_brand(X86CPUIDEntry **t, unsigned *n)
{
    unsigned max = 0, ebx, ecx, edx;

    __cpuid(0x80000000, max, ebx, ecx, edx);
    for (uint32_t fn = 0x80000002; fn <= 0x80000004 && fn <= max; fn++) {
        X86CPUIDEntry *e = x86_cpuid_find(*t, *n, fn, 0);
        uint32_t r[4];

        if (e && (e->regs[0] | e->regs[1] | e->regs[2] | e->regs[3])) {
            continue;
        }
        if (!e) {
            *t = g_renew(X86CPUIDEntry, *t, *n + 1);
            e = &(*t)[(*n)++];
            *e = (X86CPUIDEntry) { .function = fn };
        }
        __cpuid(fn, r[0], r[1], r[2], r[3]);
        memcpy(e->regs, r, sizeof(r));
    }
}

bool kvm_get_supported_cpuid(X86CPUIDEntry **out, unsigned *n, Error **errp)
{
    struct kvm_cpuid2 *c = NULL;
    unsigned nent = 64;
    int ret;

    /* KVM says E2BIG until the buffer is large enough. */
    for (;;) {
        c = g_realloc(c, sizeof(*c) + nent * sizeof(c->entries[0]));
        memset(c, 0, sizeof(*c));
        c->nent = nent;
        ret = ioctl(kvm_state.fd, KVM_GET_SUPPORTED_CPUID, c);
        if (ret == 0 || errno != E2BIG || nent >= 4096) {
            break;
        }
        nent *= 2;
    }
    if (ret < 0) {
        error_setg_errno(errp, errno, "KVM_GET_SUPPORTED_CPUID");
        g_free(c);
        return false;
    }
    *n = c->nent;
    *out = g_new0(X86CPUIDEntry, c->nent);
    for (unsigned i = 0; i < c->nent; i++) {
        const struct kvm_cpuid_entry2 *e = &c->entries[i];

        (*out)[i] = (X86CPUIDEntry) {
            .function = e->function, .index = e->index,
            .flags = (e->flags & KVM_CPUID_FLAG_SIGNIFCANT_INDEX)
                     ? X86_CPUID_FLAG_INDEXED : 0,
            .regs = { e->eax, e->ebx, e->ecx, e->edx },
        };
    }
    g_free(c);
    add_host_brand(out, n);
    return true;
}

/* The fronts of the in-kernel devices (hw/i386/kvm/). */
static const char *const kvm_device_types[] = {
    "ioapic", "kvm-ioapic",
    "isa-pit", "kvm-pit",
    NULL,
};

static const AccelClass kvm_accel_class = {
    .name = "kvm",
    .ops = &kvm_accel_ops,
    .irqchip_in_kernel = true,
    .device_types = kvm_device_types,
    .reserved_base = KVM_IDENTITY_BASE,
    .reserved_size = KVM_TSS_BASE + 3 * 0x1000 - KVM_IDENTITY_BASE,
    .props = kvm_props,
    .init = kvm_accel_init,
    .cleanup = kvm_accel_cleanup,
};

ACCEL_CLASS_REGISTER(kvm_accel_class, 1)
