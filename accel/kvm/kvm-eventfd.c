/*
 * KVM's GSI routes, irqfds and ioeventfds: the notifications that skip
 * the exit to userspace.
 *
 * The route table (KVM_SET_GSI_ROUTING replaces it whole, so it is kept
 * here): QEMU's PC routes for GSI 0-23 (the PIC pair and the IOAPIC),
 * then one MSI route per message a device signals through an irqfd,
 * GSI 24 and up. A device writes the irqfd's eventfd and KVM raises the
 * message in the in-kernel APICs (KVM_CAP_IRQFD).
 *
 * ioeventfds: the memory API's (memory_region_add_eventfd()) become
 * KVM_IOEVENTFDs as the regions holding them appear in the guest's
 * memory or I/O space (listener callbacks below, called from the
 * listeners of kvm-all.c); a vCPU's write there signals the eventfd in
 * the kernel and the vCPU goes on without an exit.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/ioctl.h>

#include <linux/kvm.h>

#include "hw/boards.h"
#include "accel/kvm/kvm-int.h"
#include "system/kvm.h"
#include "system/memory.h"

#define KVM_IOAPIC_PINS     24
#define KVM_MSI_ROUTES_MAX  1024

typedef struct KVMMsiRoute {
    bool used;
    uint64_t addr;
    uint32_t data;
} KVMMsiRoute;

static struct kvm_irq_routing_entry pc_routes[48];
static unsigned nr_pc_routes;
static KVMMsiRoute msi_routes[KVM_MSI_ROUTES_MAX];

static unsigned msi_route_gsi(int route)
{
    return KVM_IOAPIC_PINS + route;
}

/* The whole table to KVM. */
static int kvm_routes_commit(void)
{
    struct kvm_irq_routing *r;
    unsigned n = nr_pc_routes;
    int ret;

    r = g_malloc0(sizeof(*r) + (nr_pc_routes + KVM_MSI_ROUTES_MAX) *
                  sizeof(r->entries[0]));
    memcpy(r->entries, pc_routes, nr_pc_routes * sizeof(pc_routes[0]));
    for (int i = 0; i < KVM_MSI_ROUTES_MAX; i++) {
        if (msi_routes[i].used) {
            r->entries[n].gsi = msi_route_gsi(i);
            r->entries[n].type = KVM_IRQ_ROUTING_MSI;
            r->entries[n].u.msi.address_lo = (uint32_t)msi_routes[i].addr;
            r->entries[n].u.msi.address_hi = msi_routes[i].addr >> 32;
            r->entries[n].u.msi.data = msi_routes[i].data;
            n++;
        }
    }
    r->nr = n;
    ret = ioctl(kvm_get_vm_fd(), KVM_SET_GSI_ROUTING, r);
    g_free(r);
    return ret < 0 ? -errno : 0;
}

/*
 * QEMU's PC routing: GSI n reaches PIC pin n (not 2, the cascade) and
 * IOAPIC pin n, except that GSI 0 (ISA IRQ 0, the PIT) reaches IOAPIC
 * pin isa0_pin when the board's MADT says so (hw/i386/kvm/ioapic.c).
 */
bool kvm_routes_init_pc(unsigned isa0_pin, Error **errp)
{
    unsigned n = 0;
    int ret;

    memset(pc_routes, 0, sizeof(pc_routes));
    for (unsigned gsi = 0; gsi < 16; gsi++) {
        if (gsi == 2) {
            continue;           /* the cascade */
        }
        pc_routes[n].gsi = gsi;
        pc_routes[n].type = KVM_IRQ_ROUTING_IRQCHIP;
        pc_routes[n].u.irqchip.irqchip = gsi < 8 ? KVM_IRQCHIP_PIC_MASTER
                                                 : KVM_IRQCHIP_PIC_SLAVE;
        pc_routes[n].u.irqchip.pin = gsi & 7;
        n++;
    }
    for (unsigned gsi = 0; gsi < KVM_IOAPIC_PINS; gsi++) {
        if (isa0_pin && gsi == isa0_pin) {
            continue;           /* GSI 0 has its pin */
        }
        pc_routes[n].gsi = gsi;
        pc_routes[n].type = KVM_IRQ_ROUTING_IRQCHIP;
        pc_routes[n].u.irqchip.irqchip = KVM_IRQCHIP_IOAPIC;
        pc_routes[n].u.irqchip.pin = gsi == 0 ? isa0_pin : gsi;
        n++;
    }
    nr_pc_routes = n;
    ret = kvm_routes_commit();
    if (ret < 0) {
        error_setg_errno(errp, -ret, "KVM_SET_GSI_ROUTING");
        return false;
    }
    return true;
}

bool kvm_irqchip_route_isa0(unsigned pin, Error **errp)
{
    if (pin >= KVM_IOAPIC_PINS) {
        error_setg(errp, "IOAPIC pin %u does not exist", pin);
        return false;
    }
    return kvm_routes_init_pc(pin, errp);
}

static int kvm_irqfd(int fd, int route, bool assign)
{
    struct kvm_irqfd irqfd = {
        .fd = fd,
        .gsi = msi_route_gsi(route),
        .flags = assign ? 0 : KVM_IRQFD_FLAG_DEASSIGN,
    };

    return ioctl(kvm_get_vm_fd(), KVM_IRQFD, &irqfd) < 0 ? -errno : 0;
}

int kvm_msi_irqfd_add(uint64_t addr, uint32_t data, int fd)
{
    int route, ret;

    if (nr_pc_routes == 0 || !kvm_check_cap(KVM_CAP_IRQFD) ||
        !kvm_check_cap(KVM_CAP_IRQ_ROUTING)) {
        return -ENOSYS;
    }
    for (route = 0; route < KVM_MSI_ROUTES_MAX; route++) {
        if (!msi_routes[route].used) {
            break;
        }
    }
    if (route == KVM_MSI_ROUTES_MAX ||
        msi_route_gsi(route) >= (unsigned)kvm_check_cap(KVM_CAP_IRQ_ROUTING)) {
        return -ENOSPC;
    }
    msi_routes[route] = (KVMMsiRoute) { true, addr, data };
    ret = kvm_routes_commit();
    if (ret == 0) {
        ret = kvm_irqfd(fd, route, true);
    }
    if (ret < 0) {
        msi_routes[route].used = false;
        kvm_routes_commit();
        return ret;
    }
    return route;
}

/* A route of a VM that is gone (teardown order) is nothing to update. */
static bool msi_route_live(int route)
{
    return route >= 0 && route < KVM_MSI_ROUTES_MAX &&
           msi_routes[route].used && kvm_get_vm_fd() >= 0;
}

int kvm_msi_irqfd_update(int route, uint64_t addr, uint32_t data)
{
    if (!msi_route_live(route)) {
        return -EINVAL;
    }
    if (msi_routes[route].addr == addr && msi_routes[route].data == data) {
        return 0;
    }
    msi_routes[route].addr = addr;
    msi_routes[route].data = data;
    return kvm_routes_commit();
}

void kvm_msi_irqfd_del(int route, int fd)
{
    if (!msi_route_live(route)) {
        return;
    }
    kvm_irqfd(fd, route, false);
    msi_routes[route].used = false;
    kvm_routes_commit();
}

void kvm_routes_cleanup(void)
{
    memset(msi_routes, 0, sizeof(msi_routes));
    nr_pc_routes = 0;
}

/* --- ioeventfds ----------------------------------------------------------- */

bool kvm_has_ioeventfds(void)
{
    return kvm_check_cap(KVM_CAP_IOEVENTFD) &&
           kvm_check_cap(KVM_CAP_IOEVENTFD_ANY_LENGTH);
}

static void kvm_ioeventfd(uint64_t addr, const MemoryRegionIoeventfd *e,
                          bool pio, bool assign)
{
    struct kvm_ioeventfd k = {
        .datamatch = e->match_data ? e->data : 0,
        .addr = addr,
        .len = e->size,
        .fd = e->fd,
        .flags = (pio ? KVM_IOEVENTFD_FLAG_PIO : 0) |
                 (e->match_data ? KVM_IOEVENTFD_FLAG_DATAMATCH : 0) |
                 (assign ? 0 : KVM_IOEVENTFD_FLAG_DEASSIGN),
    };

    /* Refused, the writes keep exiting to the region's ops. */
    if (ioctl(kvm_get_vm_fd(), KVM_IOEVENTFD, &k) < 0 && assign) {
        warn_report("KVM_IOEVENTFD at %s 0x%" PRIx64 " (%u bytes): %s",
                    pio ? "port" : "address", addr, e->size,
                    g_strerror(errno));
    }
}

/* The memory and I/O listeners' (kvm-all.c): which space says which bus. */
void kvm_eventfd_add(MemoryListener *l, uint64_t addr,
                     const MemoryRegionIoeventfd *e)
{
    kvm_ioeventfd(addr, e, l->as == &address_space_io, true);
}

void kvm_eventfd_del(MemoryListener *l, uint64_t addr,
                     const MemoryRegionIoeventfd *e)
{
    kvm_ioeventfd(addr, e, l->as == &address_space_io, false);
}
