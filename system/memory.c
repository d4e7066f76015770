/*
 * The memory API: regions in a tree (containers, priorities, aliases),
 * the flat view each address space renders from it, the listeners told
 * about its changes, dirty logging, and access dispatch (see
 * include/system/memory.h for the rules).
 *
 * A flat view is a sorted array of ranges, rebuilt whole on every change
 * and swapped in; lookups binary-search it as they searched the region
 * list before. Lookups may run without the big lock (the software CPU's
 * thread), so they count themselves in as->users and an old view is
 * freed only by a later change that finds no lookup in progress.
 * Lookups copy the range they found: no view is held across a device
 * call, which may itself change the map.
 */
#include <string.h>

#include "qemu/log.h"
#include "system/memory.h"

/* Alias chains and nested containers deeper than this are not rendered. */
#define MEMORY_MAX_DEPTH    16

typedef struct FlatRange {
    uint64_t start;
    uint64_t last;              /* inclusive: a range may end at 2^64 - 2 */
    MemoryRegion *mr;           /* RAM or device */
    uint64_t offset;            /* offset in mr of start */
    bool readonly;
    bool log;
} FlatRange;

typedef struct FlatView {
    unsigned n;
    FlatRange r[];
} FlatView;

struct AddressSpace {
    const char *name;
    uint64_t size;              /* one past the highest address */
    MemoryRegion root;
    FlatView *view;             /* NULL: nothing mapped */
    GPtrArray *retired;         /* old views a lookup may still read */
    unsigned users;             /* lookups in progress */
    GPtrArray *listeners;
};

AddressSpace address_space_memory = { "memory", UINT64_MAX };
AddressSpace address_space_io = { "I/O", 0x10000 };

static AddressSpace *const address_spaces[] = {
    &address_space_memory, &address_space_io,
};

static uint64_t generation;
/* memory_region_transaction_begin() nesting; a change waits for commit. */
static unsigned transaction_depth;
static bool transaction_pending;

static const char *const root_names[] = { "system", "io" };

/* --- regions ----------------------------------------------------------- */

static void region_init(MemoryRegion *mr, const char *name, uint64_t size)
{
    memset(mr, 0, sizeof(*mr));
    mr->name = g_strdup(name);
    mr->size = size;
    mr->enabled = true;
}

void memory_region_init_io(MemoryRegion *mr, const char *name,
                           const MemoryRegionOps *ops, void *opaque,
                           uint64_t size)
{
    region_init(mr, name, size);
    mr->ops = ops;
    mr->opaque = opaque;
}

void memory_region_init_ram_ptr(MemoryRegion *mr, const char *name,
                                uint64_t size, void *host)
{
    region_init(mr, name, size);
    mr->ram = host;
}

void memory_region_init_container(MemoryRegion *mr, const char *name,
                                  uint64_t size)
{
    region_init(mr, name, size);
    mr->is_container = true;
    mr->subregions = g_ptr_array_new();
}

void memory_region_init_alias(MemoryRegion *mr, const char *name,
                              MemoryRegion *target, uint64_t offset,
                              uint64_t size)
{
    region_init(mr, name, size);
    mr->alias = target;
    mr->alias_offset = offset;
}

MemoryRegion *address_space_root(AddressSpace *as)
{
    if (!as->root.name) {
        size_t i = as == &address_space_memory ? 0 : 1;

        memory_region_init_container(&as->root, root_names[i], as->size);
    }
    return &as->root;
}

static AddressSpace *space_of_root(const MemoryRegion *mr)
{
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        if (mr == &address_spaces[i]->root) {
            return address_spaces[i];
        }
    }
    return NULL;
}

static uint64_t region_last(const MemoryRegion *mr)
{
    uint64_t last = mr->addr + mr->size - 1;

    return last < mr->addr ? UINT64_MAX : last;
}

static void memory_update(void);

/* Where an error names a container: the address space for a root. */
static char *container_desc(MemoryRegion *container)
{
    AddressSpace *as = space_of_root(container);

    return as ? g_strdup_printf("the %s address space", as->name)
              : g_strdup_printf("'%s'", container->name);
}

bool memory_region_add_subregion(MemoryRegion *container, uint64_t offset,
                                 MemoryRegion *sub, int priority,
                                 Error **errp)
{
    GPtrArray *subs = container->subregions;
    uint64_t last = offset + sub->size - 1;
    g_autofree char *where = container_desc(container);
    guint i;

    g_assert(container->is_container);
    if (sub->container) {
        error_setg(errp, "region '%s' is already in '%s'", sub->name,
                   sub->container->name);
        return false;
    }
    if (sub->size == 0 || last < offset || last > container->size - 1) {
        error_setg(errp, "region '%s' [0x%" G_GINT64_MODIFIER "x, +0x%"
                   G_GINT64_MODIFIER "x] does not fit %s", sub->name,
                   offset, sub->size, where);
        return false;
    }
    for (i = 0; i < subs->len; i++) {
        MemoryRegion *other = g_ptr_array_index(subs, i);

        if (other->priority == priority && !other->is_container &&
            !sub->is_container && other->addr <= last &&
            offset <= region_last(other)) {
            error_setg(errp, "region '%s' at 0x%" G_GINT64_MODIFIER "x "
                       "overlaps '%s' at 0x%" G_GINT64_MODIFIER "x in %s",
                       sub->name, offset, other->name, other->addr, where);
            return false;
        }
    }
    /* Highest priority first; of equal ones the newest first (it wins). */
    for (i = 0; i < subs->len; i++) {
        MemoryRegion *other = g_ptr_array_index(subs, i);

        if (other->priority <= priority) {
            break;
        }
    }
    sub->container = container;
    sub->addr = offset;
    sub->priority = priority;
    g_ptr_array_insert(subs, i, sub);
    memory_update();
    return true;
}

void memory_region_del_subregion(MemoryRegion *container,
                                 MemoryRegion *sub)
{
    g_assert(sub->container == container);
    g_ptr_array_remove(container->subregions, sub);
    sub->container = NULL;
    memory_update();
}

void memory_region_set_enabled(MemoryRegion *mr, bool enabled)
{
    if (mr->enabled != enabled) {
        mr->enabled = enabled;
        memory_update();
    }
}

void memory_region_set_readonly(MemoryRegion *mr, bool readonly)
{
    if (mr->readonly != readonly) {
        mr->readonly = readonly;
        memory_update();
    }
}

void memory_region_set_address(MemoryRegion *mr, uint64_t offset)
{
    if (mr->addr != offset) {
        mr->addr = offset;
        memory_update();
    }
}

void memory_region_set_alias_offset(MemoryRegion *mr, uint64_t offset)
{
    g_assert(mr->alias);
    if (mr->alias_offset != offset) {
        mr->alias_offset = offset;
        memory_update();
    }
}

void memory_region_finalize(MemoryRegion *mr)
{
    if (mr->container) {
        memory_region_del_subregion(mr->container, mr);
    }
    if (mr->subregions) {
        for (guint i = 0; i < mr->subregions->len; i++) {
            MemoryRegion *sub = g_ptr_array_index(mr->subregions, i);

            sub->container = NULL;
        }
        g_ptr_array_free(mr->subregions, true);
        mr->subregions = NULL;
    }
    g_clear_pointer(&mr->dirty, g_free);
    mr->log = false;
    g_clear_pointer(&mr->ioeventfds, g_array_unref);
    g_clear_pointer(&mr->name, g_free);
}

bool address_space_map_region(AddressSpace *as, MemoryRegion *mr,
                              uint64_t addr, Error **errp)
{
    return memory_region_add_subregion(address_space_root(as), addr, mr, 0,
                                       errp);
}

void address_space_unmap_region(MemoryRegion *mr)
{
    if (mr->container) {
        memory_region_del_subregion(mr->container, mr);
    }
}

/* --- flat views --------------------------------------------------------- */

typedef struct ViewBuilder {
    GArray *ranges;             /* of FlatRange, sorted, disjoint */
} ViewBuilder;

/* Index of the first range that ends at or above addr. */
static guint ranges_search(const FlatRange *r, guint n, uint64_t addr)
{
    guint lo = 0, hi = n;

    while (lo < hi) {
        guint mid = (lo + hi) / 2;

        if (r[mid].last < addr) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    return lo;
}

/* Show mr (from offset off at start) where [start, last] has nothing yet. */
static void view_fill(ViewBuilder *b, uint64_t start, uint64_t last,
                      MemoryRegion *mr, uint64_t off, bool readonly)
{
    GArray *a = b->ranges;
    guint i = ranges_search((FlatRange *)a->data, a->len, start);
    uint64_t at = start;

    for (;;) {
        FlatRange *r = i < a->len ? &g_array_index(a, FlatRange, i) : NULL;
        FlatRange fr;

        if (r && r->start <= at) {
            /* Taken by something of higher priority. */
            if (r->last >= last) {
                return;
            }
            at = r->last + 1;
            i++;
            continue;
        }
        fr = (FlatRange) {
            .start = at,
            .last = r && r->start <= last ? r->start - 1 : last,
            .mr = mr,
            .offset = off + (at - start),
            .readonly = readonly || mr->readonly,
            .log = mr->log,
        };
        g_array_insert_val(a, i, fr);
        i++;
        if (fr.last == last) {
            return;
        }
        at = fr.last + 1;
    }
}

/*
 * Render the part of mr from offset off on into [start, last] of the
 * address space, below whatever is already there. A read-only alias
 * or container makes the RAM it shows read-only (QEMU's PAM "ROM").
 */
static void render(ViewBuilder *b, MemoryRegion *mr, uint64_t start,
                   uint64_t last, uint64_t off, unsigned depth,
                   bool readonly)
{
    if (!mr->enabled || depth > MEMORY_MAX_DEPTH || off >= mr->size) {
        return;
    }
    if (last - start > mr->size - off - 1) {
        last = start + (mr->size - off - 1);
    }
    if (mr->alias) {
        if (off + mr->alias_offset >= off) {
            render(b, mr->alias, start, last, off + mr->alias_offset,
                   depth + 1, readonly || mr->readonly);
        }
        return;
    }
    if (mr->is_container) {
        uint64_t wlast = off + (last - start);

        for (guint i = 0; i < mr->subregions->len; i++) {
            MemoryRegion *sub = g_ptr_array_index(mr->subregions, i);
            uint64_t s = MAX(sub->addr, off);
            uint64_t e = MIN(region_last(sub), wlast);

            if (s <= e) {
                render(b, sub, start + (s - off), start + (e - off),
                       s - sub->addr, depth + 1, readonly || mr->readonly);
            }
        }
        return;
    }
    if (mr->ram || mr->ops) {
        view_fill(b, start, last, mr, off, readonly);
    }
}

static FlatView *view_build(AddressSpace *as)
{
    ViewBuilder b = { g_array_new(false, false, sizeof(FlatRange)) };
    MemoryRegion *root = address_space_root(as);
    FlatView *v;

    render(&b, root, 0, root->size - 1, 0, 0, false);
    v = g_malloc(sizeof(*v) + b.ranges->len * sizeof(FlatRange));
    v->n = b.ranges->len;
    if (v->n) {
        /* An empty GArray's data is NULL, which memcpy may not take. */
        memcpy(v->r, b.ranges->data, v->n * sizeof(FlatRange));
    }
    g_array_free(b.ranges, true);
    return v;
}

/*
 * The range holding addr, copied; else false, with *next the start of
 * the first range above addr (false there too when there is none).
 */
static bool view_find(AddressSpace *as, uint64_t addr, FlatRange *out,
                      uint64_t *next, bool *has_next)
{
    FlatView *v;
    bool found = false;
    guint i;

    __atomic_fetch_add(&as->users, 1, __ATOMIC_SEQ_CST);
    v = __atomic_load_n(&as->view, __ATOMIC_SEQ_CST);
    if (has_next) {
        *has_next = false;
    }
    if (v) {
        i = ranges_search(v->r, v->n, addr);
        if (i < v->n && v->r[i].start <= addr) {
            *out = v->r[i];
            found = true;
        } else if (i < v->n && has_next) {
            *next = v->r[i].start;
            *has_next = true;
        }
    }
    __atomic_fetch_sub(&as->users, 1, __ATOMIC_RELEASE);
    return found;
}

static MemoryRegionSection section_of(AddressSpace *as, const FlatRange *r)
{
    return (MemoryRegionSection) {
        .mr = r->mr,
        .as = as,
        .offset_within_region = r->offset,
        .offset_within_address_space = r->start,
        .size = r->last - r->start + 1,
        .readonly = r->readonly,
        .log = r->log,
    };
}

static bool same_range(const FlatRange *a, const FlatRange *b)
{
    return a->start == b->start && a->last == b->last && a->mr == b->mr &&
           a->offset == b->offset && a->readonly == b->readonly;
}

typedef enum ListenerCall {
    CALL_ADD, CALL_DEL, CALL_LOG_START, CALL_LOG_STOP, CALL_LOG_SYNC,
} ListenerCall;

/* Where ioeventfd e of s->mr is in s's space, if s shows it whole. */
static bool eventfd_addr(const MemoryRegionSection *s,
                         const MemoryRegionIoeventfd *e, uint64_t *addr)
{
    uint64_t len = e->size ? e->size : 1;

    if (e->offset < s->offset_within_region ||
        e->offset + len > s->offset_within_region + s->size) {
        return false;
    }
    *addr = s->offset_within_address_space +
            (e->offset - s->offset_within_region);
    return true;
}

static void call_eventfd(MemoryListener *l, bool add,
                         const MemoryRegionSection *s,
                         const MemoryRegionIoeventfd *e)
{
    void (*fn)(MemoryListener *, uint64_t, const MemoryRegionIoeventfd *) =
        add ? l->eventfd_add : l->eventfd_del;
    uint64_t addr;

    if (fn && eventfd_addr(s, e, &addr)) {
        fn(l, addr, e);
    }
}

static void section_eventfds(MemoryListener *l, bool add,
                             const MemoryRegionSection *s)
{
    GArray *fds = s->mr->ioeventfds;

    for (guint i = 0; fds && i < fds->len; i++) {
        call_eventfd(l, add, s, &g_array_index(fds, MemoryRegionIoeventfd,
                                               i));
    }
}

static void call_listener(MemoryListener *l, ListenerCall what,
                          const MemoryRegionSection *s)
{
    void (*fn)(MemoryListener *, const MemoryRegionSection *) = NULL;

    switch (what) {
    case CALL_ADD:
        fn = l->region_add;
        break;
    case CALL_DEL:
        fn = l->region_del;
        break;
    case CALL_LOG_START:
        fn = l->log_start;
        break;
    case CALL_LOG_STOP:
        fn = l->log_stop;
        break;
    case CALL_LOG_SYNC:
        fn = l->log_sync;
        break;
    }
    if (what == CALL_DEL) {
        section_eventfds(l, false, s);
    }
    if (fn) {
        fn(l, s);
    }
    if (what == CALL_ADD) {
        section_eventfds(l, true, s);
    }
}

static void call_listeners(AddressSpace *as, ListenerCall what,
                           const FlatRange *r)
{
    MemoryRegionSection s = section_of(as, r);

    for (guint i = 0; as->listeners && i < as->listeners->len; i++) {
        call_listener(g_ptr_array_index(as->listeners, i), what, &s);
    }
}

/*
 * Tell the listeners what changed from old to new: every range that went
 * first (KVM frees the slots), then those that came and the log changes
 * of those that stayed.
 */
static void view_diff(AddressSpace *as, const FlatView *old,
                      const FlatView *new)
{
    unsigned no = old ? old->n : 0, nn = new ? new->n : 0;

    for (int adding = 0; adding < 2; adding++) {
        unsigned i = 0, j = 0;

        while (i < no || j < nn) {
            const FlatRange *o = i < no ? &old->r[i] : NULL;
            const FlatRange *n = j < nn ? &new->r[j] : NULL;

            if (o && n && same_range(o, n)) {
                if (adding && o->log != n->log) {
                    call_listeners(as, n->log ? CALL_LOG_START
                                              : CALL_LOG_STOP, n);
                }
                i++;
                j++;
            } else if (o && (!n || o->start <= n->start)) {
                if (!adding) {
                    call_listeners(as, CALL_DEL, o);
                }
                i++;
            } else {
                if (adding) {
                    call_listeners(as, CALL_ADD, n);
                }
                j++;
            }
        }
    }
}

static bool view_equal(const FlatView *a, const FlatView *b)
{
    unsigned na = a ? a->n : 0, nb = b ? b->n : 0;

    if (na != nb) {
        return false;
    }
    for (unsigned i = 0; i < na; i++) {
        if (!same_range(&a->r[i], &b->r[i]) || a->r[i].log != b->r[i].log) {
            return false;
        }
    }
    return true;
}

/* Free the old views no lookup can still be reading. */
static void views_reclaim(AddressSpace *as)
{
    if (as->retired && as->retired->len &&
        __atomic_load_n(&as->users, __ATOMIC_SEQ_CST) == 0) {
        g_ptr_array_set_size(as->retired, 0);
    }
}

static void address_space_update(AddressSpace *as)
{
    FlatView *old = as->view, *new = view_build(as);

    if (view_equal(old, new)) {
        g_free(new);
        views_reclaim(as);
        return;
    }
    __atomic_store_n(&as->view, new, __ATOMIC_SEQ_CST);
    __atomic_fetch_add(&generation, 1, __ATOMIC_SEQ_CST);
    view_diff(as, old, new);
    if (old) {
        if (!as->retired) {
            as->retired = g_ptr_array_new_with_free_func(g_free);
        }
        g_ptr_array_add(as->retired, old);
    }
    views_reclaim(as);
}

/*
 * Every change re-renders both spaces: an alias in one may look into a
 * region that is not in any, and the views that did not change cost a
 * render and a comparison, no listener call.
 */
static void memory_update(void)
{
    if (transaction_depth) {
        transaction_pending = true;
        return;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        address_space_update(address_spaces[i]);
    }
}

void memory_region_transaction_begin(void)
{
    transaction_depth++;
}

void memory_region_transaction_commit(void)
{
    g_assert(transaction_depth > 0);
    if (--transaction_depth == 0 && transaction_pending) {
        transaction_pending = false;
        memory_update();
    }
}

uint64_t memory_generation(void)
{
    return __atomic_load_n(&generation, __ATOMIC_SEQ_CST);
}

MemoryRegion *address_space_lookup(AddressSpace *as, uint64_t addr)
{
    FlatRange r;

    return view_find(as, addr, &r, NULL, NULL) ? r.mr : NULL;
}

bool address_space_find(AddressSpace *as, uint64_t addr,
                        MemoryRegionSection *s)
{
    FlatRange r;

    if (!view_find(as, addr, &r, NULL, NULL)) {
        return false;
    }
    *s = section_of(as, &r);
    return true;
}

/* --- ioeventfds --------------------------------------------------------- */

/* Tell every listener where the ranges showing mr show e. */
static void eventfd_changed(MemoryRegion *mr, const MemoryRegionIoeventfd *e,
                            bool add)
{
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        AddressSpace *as = address_spaces[i];
        FlatView *v = as->view;

        for (unsigned j = 0; v && j < v->n; j++) {
            MemoryRegionSection s = section_of(as, &v->r[j]);

            for (guint k = 0; s.mr == mr && as->listeners &&
                              k < as->listeners->len; k++) {
                call_eventfd(g_ptr_array_index(as->listeners, k), add, &s,
                             e);
            }
        }
    }
}

void memory_region_add_eventfd(MemoryRegion *mr, uint64_t offset,
                               unsigned size, bool match_data,
                               uint64_t data, int fd)
{
    MemoryRegionIoeventfd e = { offset, size, match_data, data, fd };

    g_assert(mr->ops && (size || !match_data));
    if (!mr->ioeventfds) {
        mr->ioeventfds = g_array_new(false, false, sizeof(e));
    }
    g_array_append_val(mr->ioeventfds, e);
    eventfd_changed(mr, &e, true);
}

void memory_region_del_eventfd(MemoryRegion *mr, uint64_t offset,
                               unsigned size, bool match_data,
                               uint64_t data, int fd)
{
    GArray *fds = mr->ioeventfds;

    for (guint i = 0; fds && i < fds->len; i++) {
        MemoryRegionIoeventfd e = g_array_index(fds, MemoryRegionIoeventfd,
                                                i);

        if (e.offset == offset && e.size == size && e.fd == fd &&
            e.match_data == match_data && (!match_data || e.data == data)) {
            g_array_remove_index(fds, i);
            eventfd_changed(mr, &e, false);
            return;
        }
    }
}

/* --- listeners ---------------------------------------------------------- */

static void replay(MemoryListener *l, ListenerCall what)
{
    AddressSpace *as = l->as;
    FlatView *v = as->view;

    for (unsigned i = 0; v && i < v->n; i++) {
        MemoryRegionSection s = section_of(as, &v->r[i]);

        call_listener(l, what, &s);
    }
}

void memory_listener_register(MemoryListener *l, AddressSpace *as)
{
    g_assert(!l->as);
    if (!as->listeners) {
        as->listeners = g_ptr_array_new();
    }
    g_ptr_array_add(as->listeners, l);
    l->as = as;
    replay(l, CALL_ADD);
}

void memory_listener_unregister(MemoryListener *l)
{
    if (!l->as) {
        return;
    }
    replay(l, CALL_DEL);
    g_ptr_array_remove(l->as->listeners, l);
    l->as = NULL;
}

/* --- dirty logging ------------------------------------------------------ */

static size_t dirty_words(const MemoryRegion *mr)
{
    uint64_t pages = (mr->size + MEMORY_DIRTY_PAGE_SIZE - 1) /
                     MEMORY_DIRTY_PAGE_SIZE;

    return (pages + 63) / 64;
}

void memory_region_set_log(MemoryRegion *mr, bool log)
{
    g_return_if_fail(mr->ram);
    if (mr->log == log) {
        return;
    }
    /* The bitmap stays until finalize: a vCPU may be marking it. */
    if (log && !mr->dirty) {
        mr->dirty = g_new0(uint64_t, dirty_words(mr));
    }
    __atomic_store_n(&mr->log, log, __ATOMIC_SEQ_CST);
    memory_update();
}

void memory_region_set_dirty(MemoryRegion *mr, uint64_t offset,
                             uint64_t len)
{
    uint64_t first, last;

    if (!len || !__atomic_load_n(&mr->log, __ATOMIC_RELAXED) ||
        !mr->dirty || offset >= mr->size) {
        return;
    }
    if (len > mr->size - offset) {
        len = mr->size - offset;
    }
    first = offset / MEMORY_DIRTY_PAGE_SIZE;
    last = (offset + len - 1) / MEMORY_DIRTY_PAGE_SIZE;
    for (uint64_t p = first; p <= last; p++) {
        __atomic_fetch_or(&mr->dirty[p / 64], 1ull << (p % 64),
                          __ATOMIC_RELAXED);
    }
}

uint64_t *memory_region_fetch_dirty_log(MemoryRegion *mr)
{
    size_t words;
    uint64_t *out;

    if (!mr->log) {
        return NULL;
    }
    /* What the accelerators logged on their side first (KVM's slots). */
    for (size_t a = 0; a < G_N_ELEMENTS(address_spaces); a++) {
        AddressSpace *as = address_spaces[a];
        FlatView *v = as->view;

        for (unsigned i = 0; v && i < v->n; i++) {
            if (v->r[i].mr == mr) {
                call_listeners(as, CALL_LOG_SYNC, &v->r[i]);
            }
        }
    }
    words = dirty_words(mr);
    out = g_new(uint64_t, words);
    for (size_t i = 0; i < words; i++) {
        out[i] = __atomic_exchange_n(&mr->dirty[i], 0, __ATOMIC_SEQ_CST);
    }
    return out;
}

/* RAM of range r was written at addr other than by a vCPU. */
static void ram_stored(AddressSpace *as, const FlatRange *r, uint64_t addr,
                       uint64_t len)
{
    memory_region_set_dirty(r->mr, r->offset + (addr - r->start), len);
    for (guint i = 0; as->listeners && i < as->listeners->len; i++) {
        MemoryListener *l = g_ptr_array_index(as->listeners, i);

        if (l->ram_written) {
            l->ram_written(l, addr, len);
        }
    }
}

void address_space_ram_written(AddressSpace *as, uint64_t addr,
                               uint64_t len)
{
    while (len > 0) {
        FlatRange r;
        uint64_t next, chunk;
        bool has_next;

        if (view_find(as, addr, &r, &next, &has_next)) {
            chunk = MIN(len - 1, r.last - addr) + 1;
            if (r.mr->ram) {
                ram_stored(as, &r, addr, chunk);
            }
        } else if (has_next && next - addr < len) {
            chunk = next - addr;
        } else {
            return;
        }
        addr += chunk;
        len -= chunk;
    }
}

/* --- access dispatch ---------------------------------------------------- */

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
static uint64_t dev_read(MemoryRegion *mr, uint64_t offset, unsigned size,
                         MemTxAttrs attrs)
{
    const MemoryRegionOps *ops = mr->ops;

    return ops->read_with_attrs
           ? ops->read_with_attrs(mr->opaque, offset, size, attrs)
           : ops->read(mr->opaque, offset, size);
}

static void dev_write(MemoryRegion *mr, uint64_t offset, uint64_t value,
                      unsigned size, MemTxAttrs attrs)
{
    const MemoryRegionOps *ops = mr->ops;

    if (ops->write_with_attrs) {
        ops->write_with_attrs(mr->opaque, offset, value, size, attrs);
    } else {
        ops->write(mr->opaque, offset, value, size);
    }
}

static uint64_t io_read(MemoryRegion *mr, uint64_t offset, unsigned size,
                        MemTxAttrs attrs)
{
    const MemoryRegionOps *ops = mr->ops;
    unsigned step = size;
    uint64_t value = 0;

    if (!ops->read && !ops->read_with_attrs) {
        return 0;
    }
    if (step > impl_max(ops)) {
        step = impl_max(ops);
    }
    if (step < impl_min(ops)) {
        unsigned w = impl_min(ops);
        uint64_t base = offset & ~(uint64_t)(w - 1);
        uint64_t v = dev_read(mr, base, w, attrs);
        unsigned shift = (offset - base) * 8;

        v >>= shift;
        return size == 8 ? v : v & ((1ull << (size * 8)) - 1);
    }
    for (unsigned done = 0; done < size; done += step) {
        uint64_t v = dev_read(mr, offset + done, step, attrs);

        if (step < 8) {
            v &= (1ull << (step * 8)) - 1;
        }
        value |= v << (done * 8);
    }
    return value;
}

static void io_write(MemoryRegion *mr, uint64_t offset, uint64_t value,
                     unsigned size, MemTxAttrs attrs)
{
    const MemoryRegionOps *ops = mr->ops;
    unsigned step = size;

    if (!ops->write && !ops->write_with_attrs) {
        return;
    }
    if (step > impl_max(ops)) {
        step = impl_max(ops);
    }
    if (step < impl_min(ops)) {
        /* Widen: the device only sees whole words; bytes outside are 0. */
        unsigned w = impl_min(ops);
        uint64_t base = offset & ~(uint64_t)(w - 1);

        dev_write(mr, base, value << ((offset - base) * 8), w, attrs);
        return;
    }
    for (unsigned done = 0; done < size; done += step) {
        uint64_t v = value >> (done * 8);

        if (step < 8) {
            v &= (1ull << (step * 8)) - 1;
        }
        dev_write(mr, offset + done, v, step, attrs);
    }
}

/* Does [addr, addr + size) lie in r? */
static bool in_range(const FlatRange *r, uint64_t addr, uint64_t size)
{
    return size - 1 <= r->last - addr;
}

uint64_t address_space_read_sized(AddressSpace *as, uint64_t addr,
                                  unsigned size)
{
    return address_space_read_sized_attrs(as, addr, size,
                                          MEMTXATTRS_UNSPECIFIED);
}

/*
 * The RAM or device region mr shows at offset addr, and *off the offset
 * in it: as the flat view would, but for a region that need not be in
 * any address space (the PCI memory space behind the PAM's reads).
 */
static MemoryRegion *region_resolve(MemoryRegion *mr, uint64_t addr,
                                    uint64_t *off, unsigned depth)
{
    if (!mr->enabled || depth > MEMORY_MAX_DEPTH || addr >= mr->size) {
        return NULL;
    }
    if (mr->alias) {
        if (addr + mr->alias_offset < addr) {
            return NULL;
        }
        return region_resolve(mr->alias, addr + mr->alias_offset, off,
                              depth + 1);
    }
    if (mr->is_container) {
        for (guint i = 0; i < mr->subregions->len; i++) {
            MemoryRegion *sub = g_ptr_array_index(mr->subregions, i);
            MemoryRegion *leaf;

            if (addr < sub->addr || addr > region_last(sub)) {
                continue;
            }
            leaf = region_resolve(sub, addr - sub->addr, off, depth + 1);
            if (leaf) {
                return leaf;
            }
        }
        return NULL;
    }
    if (!mr->ram && !mr->ops) {
        return NULL;
    }
    *off = addr;
    return mr;
}

uint64_t memory_region_read_sized(MemoryRegion *mr, uint64_t addr,
                                  unsigned size)
{
    uint64_t off, value = 0;
    MemoryRegion *leaf = region_resolve(mr, addr, &off, 0);

    if (leaf && size <= leaf->size - off) {
        if (leaf->ram) {
            memcpy(&value, leaf->ram + off, size);
            return value;
        }
        if (access_valid(leaf, off, size)) {
            return io_read(leaf, off, size, MEMTXATTRS_UNSPECIFIED);
        }
    }
    if (size == 1) {
        return 0xff;        /* nothing there, or a device refusing bytes */
    }
    for (unsigned i = 0; i < size; i++) {
        value |= memory_region_read_sized(mr, addr + i, 1) << (i * 8);
    }
    return value;
}

uint64_t address_space_read_sized_attrs(AddressSpace *as, uint64_t addr,
                                        unsigned size, MemTxAttrs attrs)
{
    FlatRange r;
    bool found = view_find(as, addr, &r, NULL, NULL);
    uint64_t offset, value = 0;

    if (found && r.mr->ram && in_range(&r, addr, size)) {
        memcpy(&value, r.mr->ram + r.offset + (addr - r.start), size);
        return value;
    }
    if (!found || r.mr->ram) {
        /* Nothing there (or a RAM-straddling access): byte by byte. */
        for (unsigned i = 0; i < size; i++) {
            uint8_t b;

            address_space_rw(as, addr + i, &b, 1, false);
            value |= (uint64_t)b << (i * 8);
        }
        return value;
    }
    offset = r.offset + (addr - r.start);
    if (!in_range(&r, addr, size) || !access_valid(r.mr, offset, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "invalid %u-byte read of '%s' at "
                      "0x%" G_GINT64_MODIFIER "x (%s)\n", size, r.mr->name,
                      addr, as->name);
        return size == 8 ? UINT64_MAX : (1ull << (size * 8)) - 1;
    }
    return io_read(r.mr, offset, size, attrs);
}

void address_space_write_sized(AddressSpace *as, uint64_t addr,
                               uint64_t value, unsigned size)
{
    address_space_write_sized_attrs(as, addr, value, size,
                                    MEMTXATTRS_UNSPECIFIED);
}

void address_space_write_sized_attrs(AddressSpace *as, uint64_t addr,
                                     uint64_t value, unsigned size,
                                     MemTxAttrs attrs)
{
    FlatRange r;
    bool found = view_find(as, addr, &r, NULL, NULL);
    uint64_t offset;

    if (found && r.mr->ram && in_range(&r, addr, size)) {
        if (!r.readonly) {
            memcpy(r.mr->ram + r.offset + (addr - r.start), &value, size);
            ram_stored(as, &r, addr, size);
        }
        return;
    }
    if (!found || r.mr->ram) {
        for (unsigned i = 0; i < size; i++) {
            uint8_t b = value >> (i * 8);

            address_space_rw(as, addr + i, &b, 1, true);
        }
        return;
    }
    offset = r.offset + (addr - r.start);
    if (!in_range(&r, addr, size) || !access_valid(r.mr, offset, size)) {
        qemu_log_mask(LOG_GUEST_ERROR, "invalid %u-byte write of '%s' at "
                      "0x%" G_GINT64_MODIFIER "x (%s)\n", size, r.mr->name,
                      addr, as->name);
        return;
    }
    io_write(r.mr, offset, value, size, attrs);
}

bool address_space_rw(AddressSpace *as, uint64_t addr, void *buf,
                      uint64_t len, bool is_write)
{
    uint8_t *p = buf;
    bool ok = true;

    while (len > 0) {
        FlatRange r;
        uint64_t next, chunk;
        bool has_next;

        if (!view_find(as, addr, &r, &next, &has_next)) {
            /* Up to the next range, or the end of the request. */
            uint64_t gap = has_next && next - addr < len ? next - addr : len;

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
            uint8_t *host = r.mr->ram ? r.mr->ram + r.offset +
                                        (addr - r.start) : NULL;

            chunk = MIN(len - 1, r.last - addr) + 1;
            if (host) {
                if (!is_write) {
                    memcpy(p, host, chunk);
                } else if (!r.readonly) {
                    memcpy(host, p, chunk);
                    ram_stored(as, &r, addr, chunk);
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
    uint64_t last;

    if (len == 0) {
        return;
    }
    last = addr + len - 1 < addr ? UINT64_MAX : addr + len - 1;
    for (;;) {
        FlatRange r;
        uint64_t next, end;
        bool has_next;

        if (!view_find(as, addr, &r, &next, &has_next)) {
            if (!has_next || next > last) {
                return;
            }
            addr = next;
            continue;
        }
        end = MIN(last, r.last);
        if (r.mr->ram) {
            if (!r.readonly) {
                memset(r.mr->ram + r.offset + (addr - r.start), value,
                       end - addr + 1);
                ram_stored(as, &r, addr, end - addr + 1);
            }
        } else {
            for (uint64_t a = addr; ; a++) {
                address_space_write_sized(as, a, value, 1);
                if (a == end) {
                    break;
                }
            }
        }
        if (end == last) {
            return;
        }
        addr = end + 1;
    }
}

void *address_space_ram_ptr(AddressSpace *as, uint64_t addr, uint64_t len)
{
    FlatRange r;

    if (!view_find(as, addr, &r, NULL, NULL) || !r.mr->ram ||
        (len && !in_range(&r, addr, len))) {
        return NULL;
    }
    return r.mr->ram + r.offset + (addr - r.start);
}

/* --- info mtree and teardown -------------------------------------------- */

static gint by_address(gconstpointer a, gconstpointer b)
{
    const MemoryRegion *x = *(MemoryRegion *const *)a;
    const MemoryRegion *y = *(MemoryRegion *const *)b;

    if (x->addr != y->addr) {
        return x->addr < y->addr ? -1 : 1;
    }
    return y->priority - x->priority;
}

static void mtree_region(GString *out, MemoryRegion *mr, uint64_t base,
                         unsigned level)
{
    uint64_t start = base + mr->addr;
    uint64_t last = mr->size == UINT64_MAX ? UINT64_MAX
                                           : start + mr->size - 1;
    const char *kind = mr->ram ? (mr->readonly ? "rom" : "ram") : "i/o";

    g_string_append_printf(out, "%*s%016" G_GINT64_MODIFIER "x-%016"
                           G_GINT64_MODIFIER "x (prio %d, %s): ",
                           2 * level + 2, "", start, last, mr->priority, kind);
    if (mr->alias) {
        g_string_append_printf(out, "alias %s @%s %016" G_GINT64_MODIFIER
                               "x-%016" G_GINT64_MODIFIER "x", mr->name,
                               mr->alias->name, mr->alias_offset,
                               mr->alias_offset + mr->size - 1);
    } else {
        g_string_append(out, mr->name);
    }
    g_string_append(out, mr->enabled ? "\n" : " [disabled]\n");
    if (mr->subregions && mr->subregions->len && level < MEMORY_MAX_DEPTH) {
        GPtrArray *sorted = g_ptr_array_copy(mr->subregions, NULL, NULL);

        g_ptr_array_sort(sorted, by_address);
        for (guint i = 0; i < sorted->len; i++) {
            mtree_region(out, g_ptr_array_index(sorted, i), start,
                         level + 1);
        }
        g_ptr_array_free(sorted, true);
    }
}

void memory_info_mtree(GString *out)
{
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        AddressSpace *as = address_spaces[i];

        g_string_append_printf(out, "%saddress-space: %s\n", i ? "\n" : "",
                               as->name);
        mtree_region(out, address_space_root(as), 0, 0);
    }
}

void memory_cleanup(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        AddressSpace *as = address_spaces[i];
        GPtrArray *subs = as->root.subregions;

        while (subs && subs->len) {
            address_space_unmap_region(g_ptr_array_index(subs,
                                                         subs->len - 1));
        }
    }
    for (size_t i = 0; i < G_N_ELEMENTS(address_spaces); i++) {
        AddressSpace *as = address_spaces[i];

        memory_region_finalize(&as->root);
        g_clear_pointer(&as->view, g_free);
        if (as->listeners && !as->listeners->len) {
            g_clear_pointer(&as->listeners, g_ptr_array_unref);
        }
        g_clear_pointer(&as->retired, g_ptr_array_unref);
    }
}
