/*
 * Address spaces and access dispatch (see include/system/memory.h for
 * the access-size rules).
 */
#include <string.h>

#include "qemu/log.h"
#include "system/memory.h"
#include "system/tcg.h"

struct AddressSpace {
    const char *name;
    uint64_t size;              /* one past the highest address */
    GPtrArray *regions;         /* sorted by addr, non-overlapping */
};

AddressSpace address_space_memory = { "memory", UINT64_MAX, NULL };
AddressSpace address_space_io = { "I/O", 0x10000, NULL };

void memory_region_init_io(MemoryRegion *mr, const char *name,
                           const MemoryRegionOps *ops, void *opaque,
                           uint64_t size)
{
    memset(mr, 0, sizeof(*mr));
    mr->name = g_strdup(name);
    mr->ops = ops;
    mr->opaque = opaque;
    mr->size = size;
}

void memory_region_init_ram_ptr(MemoryRegion *mr, const char *name,
                                uint64_t size, void *host)
{
    memset(mr, 0, sizeof(*mr));
    mr->name = g_strdup(name);
    mr->ram = host;
    mr->size = size;
}

void memory_region_finalize(MemoryRegion *mr)
{
    if (mr->as) {
        address_space_unmap_region(mr);
    }
    g_clear_pointer(&mr->name, g_free);
}

/* Guest RAM changed under the software CPU: its decoded code goes. */
static void ram_written(AddressSpace *as, uint64_t addr, uint64_t len)
{
    if (as == &address_space_memory && tcg_enabled()) {
        tcg_ram_written(addr, len);
    }
}

static GPtrArray *regions_of(AddressSpace *as)
{
    if (!as->regions) {
        as->regions = g_ptr_array_new();
    }
    return as->regions;
}

/* Index of the first region that ends above addr. */
static guint first_region_above(AddressSpace *as, uint64_t addr)
{
    GPtrArray *r = regions_of(as);
    guint lo = 0, hi = r->len;

    while (lo < hi) {
        guint mid = (lo + hi) / 2;
        MemoryRegion *mr = g_ptr_array_index(r, mid);

        if (mr->addr + mr->size - 1 < addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

bool address_space_map_region(AddressSpace *as, MemoryRegion *mr,
                              uint64_t addr, Error **errp)
{
    GPtrArray *r = regions_of(as);
    guint i;
    uint64_t last;

    if (mr->size == 0 || addr + mr->size - 1 < addr ||
        addr + mr->size - 1 > as->size - 1) {
        error_setg(errp, "region '%s' [0x%" G_GINT64_MODIFIER "x, +0x%"
                   G_GINT64_MODIFIER "x] does not fit the %s address space",
                   mr->name, addr, mr->size, as->name);
        return false;
    }
    last = addr + mr->size - 1;
    i = first_region_above(as, addr);
    if (i < r->len) {
        MemoryRegion *other = g_ptr_array_index(r, i);

        if (other->addr <= last) {
            error_setg(errp, "region '%s' at 0x%" G_GINT64_MODIFIER "x "
                       "overlaps '%s' at 0x%" G_GINT64_MODIFIER "x in the "
                       "%s address space", mr->name, addr, other->name,
                       other->addr, as->name);
            return false;
        }
    }
    mr->as = as;
    mr->addr = addr;
    g_ptr_array_insert(r, i, mr);
    return true;
}

void address_space_unmap_region(MemoryRegion *mr)
{
    if (mr->as) {
        g_ptr_array_remove(mr->as->regions, mr);
        mr->as = NULL;
    }
}

MemoryRegion *address_space_lookup(AddressSpace *as, uint64_t addr)
{
    GPtrArray *r = regions_of(as);
    guint i = first_region_above(as, addr);

    if (i < r->len) {
        MemoryRegion *mr = g_ptr_array_index(r, i);

        if (mr->addr <= addr) {
            return mr;
        }
    }
    return NULL;
}

static unsigned valid_min(const MemoryRegionOps *ops)
{
    return ops->valid.min_access_size ? ops->valid.min_access_size : 1;
}

static unsigned valid_max(const MemoryRegionOps *ops)
{
    return ops->valid.max_access_size ? ops->valid.max_access_size : 4;
}

static unsigned impl_min(const MemoryRegionOps *ops)
{
    return ops->impl.min_access_size ? ops->impl.min_access_size : 1;
}

static unsigned impl_max(const MemoryRegionOps *ops)
{
    if (ops->impl.max_access_size) {
        return ops->impl.max_access_size;
    }
    return valid_max(ops) < 4 ? valid_max(ops) : 4;
}

static bool access_valid(MemoryRegion *mr, uint64_t offset, unsigned size)
{
    const MemoryRegionOps *ops = mr->ops;

    if (size < valid_min(ops) || size > valid_max(ops)) {
        return false;
    }
    if (!ops->valid.unaligned && (offset & (size - 1))) {
        return false;
    }
    return offset + size <= mr->size;
}

/*
 * Call the device in pieces it implements: an access wider than impl
 * max is split little-endian; a narrower one is widened and shifted.
 */
static uint64_t io_read(MemoryRegion *mr, uint64_t offset, unsigned size)
{
    const MemoryRegionOps *ops = mr->ops;
    unsigned step = size;
    uint64_t value = 0;

    if (!ops->read) {
        return 0;
    }
    if (step > impl_max(ops)) {
        step = impl_max(ops);
    }
    if (step < impl_min(ops)) {
        unsigned w = impl_min(ops);
        uint64_t base = offset & ~(uint64_t)(w - 1);
        uint64_t v = ops->read(mr->opaque, base, w);
        unsigned shift = (offset - base) * 8;

        v >>= shift;
        return size == 8 ? v : v & ((1ull << (size * 8)) - 1);
    }
    for (unsigned done = 0; done < size; done += step) {
        uint64_t v = ops->read(mr->opaque, offset + done, step);

        if (step < 8) {
            v &= (1ull << (step * 8)) - 1;
        }
        value |= v << (done * 8);
    }
    return value;
}

static void io_write(MemoryRegion *mr, uint64_t offset, uint64_t value,
                     unsigned size)
{
    const MemoryRegionOps *ops = mr->ops;
    unsigned step = size;

    if (!ops->write) {
        return;
    }
    if (step > impl_max(ops)) {
        step = impl_max(ops);
    }
    if (step < impl_min(ops)) {
        /* Widen: the device only sees whole words; bytes outside are 0. */
        unsigned w = impl_min(ops);
        uint64_t base = offset & ~(uint64_t)(w - 1);

        ops->write(mr->opaque, base, value << ((offset - base) * 8), w);
        return;
    }
    for (unsigned done = 0; done < size; done += step) {
        uint64_t v = value >> (done * 8);

        if (step < 8) {
            v &= (1ull << (step * 8)) - 1;
        }
        ops->write(mr->opaque, offset + done, v, step);
    }
}

uint64_t address_space_read_sized(AddressSpace *as, uint64_t addr,
                                  unsigned size)
{
    MemoryRegion *mr = address_space_lookup(as, addr);
    uint64_t offset, value = 0;

    if (mr && mr->ram && addr - mr->addr + size <= mr->size) {
        memcpy(&value, mr->ram + (addr - mr->addr), size);
        return value;
    }
    if (!mr || mr->ram) {
        /* Nothing there (or a RAM-straddling access): byte by byte. */
        for (unsigned i = 0; i < size; i++) {
            uint8_t b;

            address_space_rw(as, addr + i, &b, 1, false);
            value |= (uint64_t)b << (i * 8);
        }
        return value;
    }
    offset = addr - mr->addr;
    if (!access_valid(mr, offset, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "invalid %u-byte read of '%s' at "
                      "0x%" G_GINT64_MODIFIER "x (%s)\n", size, mr->name,
                      addr, as->name);
        return size == 8 ? UINT64_MAX : (1ull << (size * 8)) - 1;
    }
    return io_read(mr, offset, size);
}

void address_space_write_sized(AddressSpace *as, uint64_t addr,
                               uint64_t value, unsigned size)
{
    MemoryRegion *mr = address_space_lookup(as, addr);
    uint64_t offset;

    if (mr && mr->ram && addr - mr->addr + size <= mr->size) {
        if (!mr->readonly) {
            memcpy(mr->ram + (addr - mr->addr), &value, size);
            ram_written(as, addr, size);
        }
        return;
    }
    if (!mr || mr->ram) {
        for (unsigned i = 0; i < size; i++) {
            uint8_t b = value >> (i * 8);

            address_space_rw(as, addr + i, &b, 1, true);
        }
        return;
    }
    offset = addr - mr->addr;
    if (!access_valid(mr, offset, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "invalid %u-byte write of '%s' at "
                      "0x%" G_GINT64_MODIFIER "x (%s)\n", size, mr->name,
                      addr, as->name);
        return;
    }
    io_write(mr, offset, value, size);
}

bool address_space_rw(AddressSpace *as, uint64_t addr, void *buf,
                      uint64_t len, bool is_write)
{
    uint8_t *p = buf;
    bool ok = true;

    while (len > 0) {
        MemoryRegion *mr = address_space_lookup(as, addr);
        uint64_t chunk;

        if (!mr) {
            /* Up to the next region, or the end of the request. */
            GPtrArray *r = regions_of(as);
            guint i = first_region_above(as, addr);
            uint64_t gap = len;

            if (i < r->len) {
                MemoryRegion *next = g_ptr_array_index(r, i);

                if (next->addr - addr < gap) {
                    gap = next->addr - addr;
                }
            }
            qemu_log_mask(LOG_GUEST_ERROR, "%s of %" G_GINT64_MODIFIER "u "
                          "bytes at unassigned 0x%" G_GINT64_MODIFIER "x "
                          "(%s)\n", is_write ? "write" : "read", gap, addr,
                          as->name);
            if (!is_write) {
                memset(p, 0xff, gap);
            }
            ok = false;
            chunk = gap;
        } else {
            uint64_t off = addr - mr->addr;

            chunk = mr->size - off;
            if (chunk > len) {
                chunk = len;
            }
            if (mr->ram) {
                if (!is_write) {
                    memcpy(p, mr->ram + off, chunk);
                } else if (!mr->readonly) {
                    memcpy(mr->ram + off, p, chunk);
                    ram_written(as, addr, chunk);
                }
            } else {
                for (uint64_t i = 0; i < chunk; i++) {
                    if (is_write) {
                        address_space_write_sized(as, addr + i, p[i], 1);
                    } else {
                        p[i] = address_space_read_sized(as, addr + i, 1);
                    }
                }
            }
        }
        p += chunk;
        addr += chunk;
        len -= chunk;
        if (addr == 0) {
            break;          /* wrapped around the top of the space */
        }
    }
    return ok;
}

void address_space_set(AddressSpace *as, uint64_t addr, uint8_t value,
                       uint64_t len)
{
    GPtrArray *r = regions_of(as);
    uint64_t last;

    if (len == 0) {
        return;
    }
    last = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
    for (guint i = first_region_above(as, addr); i < r->len; i++) {
        MemoryRegion *mr = g_ptr_array_index(r, i);
        uint64_t start = MAX(addr, mr->addr);
        uint64_t end = MIN(last, mr->addr + mr->size - 1);

        if (mr->addr > last) {
            break;
        }
        if (mr->ram) {
            if (!mr->readonly) {
                memset(mr->ram + (start - mr->addr), value, end - start + 1);
                ram_written(as, start, end - start + 1);
            }
            continue;
        }
        for (uint64_t a = start; ; a++) {
            address_space_write_sized(as, a, value, 1);
            if (a == end) {
                break;
            }
        }
    }
}

void *address_space_ram_ptr(AddressSpace *as, uint64_t addr, uint64_t len)
{
    MemoryRegion *mr = address_space_lookup(as, addr);

    if (!mr || !mr->ram || len > mr->size - (addr - mr->addr)) {
        return NULL;
    }
    return mr->ram + (addr - mr->addr);
}

void address_space_foreach(AddressSpace *as,
                           void (*fn)(MemoryRegion *mr, void *opaque),
                           void *opaque)
{
    GPtrArray *r = regions_of(as);

    for (guint i = 0; i < r->len; i++) {
        fn(g_ptr_array_index(r, i), opaque);
    }
}

static void mtree_line(MemoryRegion *mr, void *opaque)
{
    GString *out = opaque;
    const char *kind = mr->ram ? (mr->readonly ? "rom" : "ram") : "i/o";

    g_string_append_printf(out, "  %016" G_GINT64_MODIFIER "x-%016"
                           G_GINT64_MODIFIER "x (prio 0, %s): %s\n",
                           mr->addr, mr->addr + mr->size - 1, kind, mr->name);
}

void memory_info_mtree(GString *out)
{
    g_string_append(out, "address-space: memory\n"
                    "  0000000000000000-ffffffffffffffff (prio 0, i/o): "
                    "system\n");
    address_space_foreach(&address_space_memory, mtree_line, out);
    g_string_append(out, "\naddress-space: I/O\n"
                    "  0000000000000000-000000000000ffff (prio 0, i/o): io\n");
    address_space_foreach(&address_space_io, mtree_line, out);
}

void memory_cleanup(void)
{
    AddressSpace *spaces[] = { &address_space_memory, &address_space_io };

    for (size_t s = 0; s < G_N_ELEMENTS(spaces); s++) {
        GPtrArray *r = spaces[s]->regions;

        while (r && r->len) {
            address_space_unmap_region(g_ptr_array_index(r, r->len - 1));
        }
        if (r) {
            g_ptr_array_free(r, TRUE);
            spaces[s]->regions = NULL;
        }
    }
}
