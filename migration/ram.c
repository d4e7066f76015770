/*
 * Precopy RAM: dirty logging of each registered region, pages sent as
 * RAM sections (zero pages as markers), loaded back on the destination.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "migration/postcopy-ram.h"
#include "migration/ram-handover.h"
#include "vmstate/ram-regions.h"
#include "migration/ram-stream.h"
#include "vmstate/vmstate.h"
#include "system/memory.h"
#include "qemu/timer.h"
#include "system/ramblock.h"

#define PAGES_PER_SECTION   256
#define RESIDENT_WINDOW     512         /* pages per hole lookup */
#define RANGES_PER_DISCARD  4096

static int64_t last_sync_ns;

MemoryRegion *ram_region_nth(unsigned i)
{
    return i < ram_regions_count() ? ram_region_at(i)->mr : NULL;
}

bool ram_region_of_host(const void *host, const char **name,
                        uint64_t *offset)
{
    const uint8_t *p = host;

    for (guint i = 0; i < ram_regions_count(); i++) {
        MemoryRegion *mr = ram_region_at(i)->mr;

        if (p >= mr->ram && p < mr->ram + mr->size) {
            *name = mr->name;
            *offset = p - mr->ram;
            return true;
        }
    }
    return false;
}

static uint64_t words(const RamRegion *r)
{
    return (r->pages + 63) / 64;
}

static bool page_is_zero(const uint8_t *p)
{
    const uint64_t *w = (const uint64_t *)p;

    for (unsigned i = 0; i < MIG_PAGE_SIZE / 8; i += 4) {
        if (w[i] | w[i + 1] | w[i + 2] | w[i + 3]) {
            return false;
        }
    }
    return true;
}

/* --- source -------------------------------------------------------------- */

bool ram_save_setup(MigStream *s, RamStats *st)
{
    GByteArray *layout = g_byte_array_new();
    bool ok;

    memset(st, 0, sizeof(*st));
    vmstate_put_le(layout, ram_regions_count(), 4);
    for (guint i = 0; i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);
        size_t len = strlen(r->mr->name);

        /* Handed over (x-ignore-shared): nothing to log, nothing to send. */
        r->handed_over = ram_handover_covers(r->mr->ram);
        r->todo = g_new0(uint64_t, words(r));
        if (!r->handed_over) {
            memory_region_set_log(r->mr, true);
            g_free(memory_region_fetch_dirty_log(r->mr));
            memset(r->todo, 0xff, words(r) * 8);
            if (r->pages % 64) {
                r->todo[words(r) - 1] = (1ull << (r->pages % 64)) - 1;
            }
            st->total += r->pages * MIG_PAGE_SIZE;
        }
        vmstate_put_le(layout, len, 1);
        g_byte_array_append(layout, (const uint8_t *)r->mr->name, len);
        vmstate_put_le(layout, r->mr->size, 8);
    }
    st->remaining = st->total;
    last_sync_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    ok = mig_section_write(s, MIG_SEC_RAM_LAYOUT, "ram", 0, 1, layout->data,
                           layout->len);
    g_byte_array_free(layout, TRUE);
    return ok;
}

void ram_save_sync(RamStats *st)
{
    uint64_t dirty = 0, remaining = 0;
    int64_t now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);

    for (guint i = 0; i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);
        uint64_t *bm;

        if (r->handed_over) {
            continue;
        }
        bm = memory_region_fetch_dirty_log(r->mr);
        for (uint64_t w = 0; w < words(r); w++) {
            uint64_t bits = bm ? bm[w] : 0;

            dirty += __builtin_popcountll(bits);
            r->todo[w] |= bits;
            remaining += __builtin_popcountll(r->todo[w]);
        }
        g_free(bm);
    }
    st->dirty_sync_count++;
    if (now > last_sync_ns) {
        st->dirty_pages_rate = dirty * NANOSECONDS_PER_SECOND /
                               (uint64_t)(now - last_sync_ns);
    }
    last_sync_ns = now;
    st->remaining = remaining * MIG_PAGE_SIZE;
}

/* Send the marked pages of r from page *next on, one section's worth. */
static bool send_section(MigStream *s, RamRegion *r, uint64_t *next,
                         RamStats *st, GByteArray *buf)
{
    unsigned n = 0;
    bool ok;

    g_byte_array_set_size(buf, 0);
    for (; *next < r->pages && n < PAGES_PER_SECTION; (*next)++) {
        uint64_t p = *next, bit = 1ull << (p % 64);
        const uint8_t *host = r->mr->ram + p * MIG_PAGE_SIZE;

        if (!(r->todo[p / 64] & bit)) {
            if (!r->todo[p / 64] && p % 64 == 0) {
                *next += 63;    /* a whole clean word */
            }
            continue;
        }
        __atomic_fetch_and(&r->todo[p / 64], ~bit, __ATOMIC_RELAXED);
        if (page_is_zero(host)) {
            vmstate_put_le(buf, p * MIG_PAGE_SIZE | MIG_PAGE_ZERO, 8);
            st->duplicate++;
        } else {
            vmstate_put_le(buf, p * MIG_PAGE_SIZE | MIG_PAGE_NORMAL, 8);
            g_byte_array_append(buf, host, MIG_PAGE_SIZE);
            st->normal++;
        }
        n++;
    }
    if (!n) {
        return true;
    }
    ok = mig_section_write(s, MIG_SEC_RAM, r->mr->name, 0, 1, buf->data,
                           buf->len);
    st->transferred += buf->len;
    st->remaining -= MIN(st->remaining, (uint64_t)n * MIG_PAGE_SIZE);
    return ok;
}

bool ram_save_pass(MigStream *s, RamStats *st,
                   bool (*throttle)(void *opaque), void *opaque)
{
    GByteArray *buf = g_byte_array_sized_new(PAGES_PER_SECTION *
                                             (MIG_PAGE_SIZE + 8));
    bool ok = true;

    for (guint i = 0; ok && i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);
        uint64_t next = r->handed_over ? r->pages : 0;

        while (ok && next < r->pages) {
            ok = send_section(s, r, &next, st, buf) &&
                 (!throttle || throttle(opaque));
        }
    }
    g_byte_array_free(buf, TRUE);
    return ok;
}

void ram_save_cleanup(void)
{
    for (guint i = 0; i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);

        if (!r->handed_over) {
            memory_region_set_log(r->mr, false);
        }
        r->handed_over = false;
        g_clear_pointer(&r->todo, g_free);
    }
}

static RamRegion *find_region(const char *name, size_t len);

/* One page as a section of its own, sent whatever its dirty bit says. */
bool ram_save_page(MigStream *s, RamStats *st, const char *name,
                   uint64_t offset)
{
    RamRegion *r = find_region(name, strlen(name));
    GByteArray *buf;
    uint64_t p = offset / MIG_PAGE_SIZE;
    bool ok;

    if (!r || p >= r->pages || !r->todo || r->handed_over) {
        return false;
    }
    buf = g_byte_array_sized_new(MIG_PAGE_SIZE + 8);
    __atomic_fetch_and(&r->todo[p / 64], ~(1ull << (p % 64)),
                       __ATOMIC_RELAXED);
    vmstate_put_le(buf, p * MIG_PAGE_SIZE | MIG_PAGE_NORMAL, 8);
    g_byte_array_append(buf, r->mr->ram + p * MIG_PAGE_SIZE, MIG_PAGE_SIZE);
    st->normal++;
    st->transferred += buf->len;
    ok = mig_section_write(s, MIG_SEC_RAM, r->mr->name, 0, 1, buf->data,
                           buf->len);
    g_byte_array_free(buf, TRUE);
    return ok;
}

/* Each run of pages still to send, as (offset, length) pairs. */
bool ram_save_discard(MigStream *s)
{
    GByteArray *buf = g_byte_array_new();
    bool ok = true;

    for (guint i = 0; ok && i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);
        unsigned n = 0;

        for (uint64_t p = 0; ok && p < r->pages;) {
            uint64_t start;

            if (!(r->todo[p / 64] & (1ull << (p % 64)))) {
                p = (!r->todo[p / 64] && p % 64 == 0) ? p + 64 : p + 1;
                continue;
            }
            for (start = p; p < r->pages &&
                 (r->todo[p / 64] & (1ull << (p % 64))); p++) {
            }
            vmstate_put_le(buf, start * MIG_PAGE_SIZE, 8);
            vmstate_put_le(buf, (p - start) * MIG_PAGE_SIZE, 8);
            if (++n == RANGES_PER_DISCARD || p >= r->pages) {
                ok = mig_section_write(s, MIG_SEC_POSTCOPY_DISCARD,
                                       r->mr->name, 0, 1, buf->data,
                                       buf->len);
                g_byte_array_set_size(buf, 0);
                n = 0;
            }
        }
        if (ok && n) {
            ok = mig_section_write(s, MIG_SEC_POSTCOPY_DISCARD, r->mr->name,
                                   0, 1, buf->data, buf->len);
            g_byte_array_set_size(buf, 0);
        }
    }
    g_byte_array_free(buf, TRUE);
    return ok;
}

/* --- destination --------------------------------------------------------- */

static RamRegion *find_region(const char *name, size_t len)
{
    for (guint i = 0; i < ram_regions_count(); i++) {
        RamRegion *r = ram_region_at(i);

        if (strlen(r->mr->name) == len && !memcmp(r->mr->name, name, len)) {
            return r;
        }
    }
    return NULL;
}

void ram_load_begin(void)
{
    for (guint i = 0; i < ram_regions_count(); i++) {
        ram_region_at(i)->seen = false;
    }
}

bool ram_load_layout(const MigSection *sec, Error **errp)
{
    VMStateReader rd = { .data = sec->payload, .len = sec->len };
    uint64_t count, len, size;

    if (!vmstate_get_le(&rd, 4, &count)) {
        goto short_layout;
    }
    if (count != ram_regions_count()) {
        error_setg(errp, "the stream has %" PRIu64 " RAM regions, this "
                   "machine %u", count, ram_regions_count());
        return false;
    }
    for (uint64_t i = 0; i < count; i++) {
        const char *name;
        RamRegion *r;

        if (!vmstate_get_le(&rd, 1, &len) || rd.len - rd.pos < len) {
            goto short_layout;
        }
        name = (const char *)rd.data + rd.pos;
        rd.pos += len;
        if (!vmstate_get_le(&rd, 8, &size)) {
            goto short_layout;
        }
        r = find_region(name, len);
        if (!r) {
            error_setg(errp, "RAM region '%.*s' of the stream does not exist "
                       "here", (int)len, name);
            return false;
        }
        if (size != r->mr->size) {
            error_setg(errp, "RAM region '%s' has %" PRIu64 " bytes in the "
                       "stream, %" PRIu64 " here", r->mr->name, size,
                       r->mr->size);
            return false;
        }
        r->seen = true;
    }
    if (rd.pos == rd.len) {
        return true;
    }
short_layout:
    error_setg(errp, "the RAM layout section is malformed");
    return false;
}

/*
 * Destination: which pages of a window of a region hold data. A zero
 * marker for a page that holds none needs nothing, and reading the page
 * to check would allocate it where RAM is shared memory (a memfd, a
 * share=on file): a read fault there fills the page cache, so a mostly
 * empty guest would arrive whole. For such a region the file's holes
 * (SEEK_DATA/SEEK_HOLE, which count swapped-out pages as data) answer
 * for RESIDENT_WINDOW pages at a time; anywhere else the page is asked
 * (an anonymous page read before it was written maps the zero page).
 */
typedef struct DataWindow {
    const uint8_t *base;        /* NULL: nothing asked yet */
    uint64_t pages;
    bool data[RESIDENT_WINDOW];
} DataWindow;

static void window_fill(DataWindow *w, const RAMBlock *rb, uint64_t lo)
{
    uint64_t hi = lo + w->pages * MIG_PAGE_SIZE;
    off_t pos = lo;

    memset(w->data, 0, sizeof(w->data));
    while ((uint64_t)pos < hi) {
        off_t d = lseek(rb->fd, pos, SEEK_DATA), h;

        if (d < 0) {
            if (errno != ENXIO) {       /* no hole support: ask each page */
                memset(w->data, 1, sizeof(w->data));
            }
            return;
        }
        if ((uint64_t)d >= hi) {
            return;
        }
        h = lseek(rb->fd, d, SEEK_HOLE);
        if (h < 0) {
            memset(w->data, 1, sizeof(w->data));
            return;
        }
        for (uint64_t p = (d - lo) / MIG_PAGE_SIZE;
             p < w->pages && lo + p * MIG_PAGE_SIZE < (uint64_t)h; p++) {
            w->data[p] = true;
        }
        pos = h;
    }
}

static bool page_holds_data(DataWindow *w, const MemoryRegion *mr,
                            const uint8_t *host)
{
    if (!w->base || host < w->base ||
        host >= w->base + w->pages * MIG_PAGE_SIZE) {
        uint64_t first = (uint64_t)(host - mr->ram) / MIG_PAGE_SIZE;
        uint64_t total = mr->size / MIG_PAGE_SIZE, offset;
        RAMBlock *rb;

        first -= first % RESIDENT_WINDOW;
        w->base = mr->ram + first * MIG_PAGE_SIZE;
        w->pages = MIN(total - first, RESIDENT_WINDOW);
        rb = ram_block_from_host(w->base, &offset);
        if (rb && rb->fd >= 0 && (rb->flags & RAM_SHARED)) {
            window_fill(w, rb, offset);
        } else {
            memset(w->data, 1, sizeof(w->data));
        }
    }
    return w->data[(host - w->base) / MIG_PAGE_SIZE];
}

static void page_now_holds_data(DataWindow *w, const uint8_t *host)
{
    if (w->base && host >= w->base &&
        host < w->base + w->pages * MIG_PAGE_SIZE) {
        w->data[(host - w->base) / MIG_PAGE_SIZE] = true;
    }
}

bool ram_load_pages(const MigSection *sec, Error **errp)
{
    VMStateReader rd = { .data = sec->payload, .len = sec->len };
    RamRegion *r = find_region(sec->name, strlen(sec->name));
    DataWindow win = { 0 };

    if (!r || !r->seen) {
        error_setg(errp, "RAM section for region '%s', which the layout did "
                   "not describe", sec->name);
        return false;
    }
    if (ram_handover_covers(r->mr->ram)) {
        error_setg(errp, "RAM section for region '%s', whose memory was "
                   "handed over", r->mr->name);
        return false;
    }
    while (rd.pos < rd.len) {
        uint64_t word, offset, flags;
        uint8_t *host;

        if (!vmstate_get_le(&rd, 8, &word)) {
            goto bad;
        }
        offset = word & ~MIG_PAGE_FLAGS;
        flags = word & MIG_PAGE_FLAGS;
        if (offset % MIG_PAGE_SIZE || r->mr->size < MIG_PAGE_SIZE ||
            offset > r->mr->size - MIG_PAGE_SIZE) {
            error_setg(errp, "RAM region '%s': page offset %#" PRIx64
                       " is outside its %#" PRIx64 " bytes", r->mr->name,
                       offset, r->mr->size);
            return false;
        }
        host = r->mr->ram + offset;
        if (postcopy_incoming_listening()) {
            /* Registered: only userfaultfd may fill a page (never touch). */
            const uint8_t *data = rd.data + rd.pos;

            if (flags == MIG_PAGE_NORMAL && rd.len - rd.pos < MIG_PAGE_SIZE) {
                goto bad;
            }
            if (flags != MIG_PAGE_ZERO && flags != MIG_PAGE_NORMAL) {
                error_setg(errp, "RAM region '%s': page %#" PRIx64 " has "
                           "unknown flags %#" PRIx64, r->mr->name, offset,
                           flags);
                return false;
            }
            if (!postcopy_place_page(host, flags == MIG_PAGE_NORMAL ? data :
                                     NULL, errp)) {
                return false;
            }
            rd.pos += flags == MIG_PAGE_NORMAL ? MIG_PAGE_SIZE : 0;
        } else if (flags == MIG_PAGE_ZERO) {
            if (page_holds_data(&win, r->mr, host) && !page_is_zero(host)) {
                memset(host, 0, MIG_PAGE_SIZE);
            }
        } else if (flags == MIG_PAGE_NORMAL) {
            if (rd.len - rd.pos < MIG_PAGE_SIZE) {
                goto bad;
            }
            memcpy(host, rd.data + rd.pos, MIG_PAGE_SIZE);
            page_now_holds_data(&win, host);
            rd.pos += MIG_PAGE_SIZE;
        } else {
            error_setg(errp, "RAM region '%s': page %#" PRIx64 " has unknown "
                       "flags %#" PRIx64, r->mr->name, offset, flags);
            return false;
        }
    }
    return true;
bad:
    error_setg(errp, "RAM region '%s': a page is cut short", r->mr->name);
    return false;
}

bool ram_load_discard(const MigSection *sec, Error **errp)
{
    VMStateReader rd = { .data = sec->payload, .len = sec->len };
    RamRegion *r = find_region(sec->name, strlen(sec->name));
    RAMBlock *rb;
    uint64_t base;

    if (!r || !r->seen) {
        error_setg(errp, "postcopy discard for region '%s', which the layout "
                   "did not describe", sec->name);
        return false;
    }
    rb = ram_block_from_host(r->mr->ram, &base);
    while (rd.pos < rd.len) {
        uint64_t offset, len;

        if (!vmstate_get_le(&rd, 8, &offset) ||
            !vmstate_get_le(&rd, 8, &len)) {
            error_setg(errp, "postcopy discard for '%s' is malformed",
                       r->mr->name);
            return false;
        }
        if (offset % MIG_PAGE_SIZE || len % MIG_PAGE_SIZE ||
            offset > r->mr->size || len > r->mr->size - offset) {
            error_setg(errp, "postcopy discard [%#" PRIx64 ", +%#" PRIx64
                       ") is outside RAM region '%s'", offset, len,
                       r->mr->name);
            return false;
        }
        if (rb ? !ram_block_discard_range(rb, base + offset, len, errp)
               : madvise(r->mr->ram + offset, len, MADV_DONTNEED) < 0) {
            if (!rb) {
                error_setg_errno(errp, errno, "postcopy discard in '%s'",
                                 r->mr->name);
            }
            return false;
        }
    }
    return true;
}

bool ram_load_complete(Error **errp)
{
    for (guint i = 0; i < ram_regions_count(); i++) {
        if (!ram_region_at(i)->seen) {
            error_setg(errp, "the stream has no RAM layout");
            return false;
        }
    }
    return true;
}
