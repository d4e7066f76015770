/*
 * qcow2's table caches (L2 tables, refcount blocks): whole clusters as
 * on disk, least recently used out first. Changes are written through
 * by their users, so an entry is never dirty and eviction is free.
 * cache-clean-interval: entries unused for that long give their memory
 * back (checked as the cache is used, like QEMU's timer would).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "block/qcow2.h"
#include "qemu/timer.h"

void qcow2_cache_init(Qcow2State *s, Qcow2Cache *c, unsigned entries)
{
    uint64_t bytes = (uint64_t)entries << s->cluster_bits;

    c->size = entries;
    /* Untouched pages cost nothing until a table lands in them. */
    c->buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                  MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (c->buf == MAP_FAILED) {
        c->buf = NULL;
        c->size = 0;
    }
    c->bytes = bytes;
    c->offset = g_new0(uint64_t, entries);
    c->lru = g_new0(uint64_t, entries);
    c->used = g_new0(bool, entries);
    c->last_clean_ns = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

void qcow2_cache_destroy(Qcow2Cache *c)
{
    if (c->buf) {
        munmap(c->buf, c->bytes);
    }
    g_free(c->offset);
    g_free(c->lru);
    g_free(c->used);
    memset(c, 0, sizeof(*c));
}

static uint8_t *entry(Qcow2State *s, Qcow2Cache *c, unsigned i)
{
    return c->buf + ((uint64_t)i << s->cluster_bits);
}

/* Entries unused since the last clean give their pages back. */
static void maybe_clean(Qcow2State *s, Qcow2Cache *c)
{
    int64_t now;

    /* The clock is read once every 256 uses, not on every lookup. */
    if (!s->clean_interval_ns || (c->tick & 255)) {
        return;
    }
    now = qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
    if (now - c->last_clean_ns < s->clean_interval_ns) {
        return;
    }
    for (unsigned i = 0; i < c->size; i++) {
        if (c->offset[i] && !c->used[i]) {
            c->offset[i] = 0;
            if (s->cluster_size >= 4096) {
                madvise(entry(s, c, i), s->cluster_size, MADV_DONTNEED);
            }
        }
        c->used[i] = false;
    }
    c->last_clean_ns = now;
}

static int lookup(Qcow2Cache *c, uint64_t offset)
{
    for (unsigned i = 0; i < c->size; i++) {
        if (c->offset[i] == offset) {
            return i;
        }
    }
    return -1;
}

static unsigned victim(Qcow2Cache *c)
{
    unsigned best = 0;

    for (unsigned i = 0; i < c->size; i++) {
        if (!c->offset[i]) {
            return i;
        }
        if (c->lru[i] < c->lru[best]) {
            best = i;
        }
    }
    return best;
}

static void touch(Qcow2Cache *c, unsigned i)
{
    c->lru[i] = ++c->tick;
    c->used[i] = true;
}

int qcow2_cache_get(Qcow2State *s, Qcow2Cache *c, uint64_t offset,
                    uint8_t **table)
{
    int i, ret;

    if (!c->size) {
        return -ENOMEM;
    }
    maybe_clean(s, c);
    i = lookup(c, offset);
    if (i < 0) {
        i = victim(c);
        c->offset[i] = 0;
        ret = qcow2_pread(s, offset, entry(s, c, i), s->cluster_size);
        if (ret < 0) {
            return ret;
        }
        c->offset[i] = offset;
    }
    touch(c, i);
    *table = entry(s, c, i);
    return 0;
}

uint8_t *qcow2_cache_get_empty(Qcow2State *s, Qcow2Cache *c,
                               uint64_t offset)
{
    int i = lookup(c, offset);

    if (i < 0) {
        i = victim(c);
        c->offset[i] = offset;
    }
    touch(c, i);
    memset(entry(s, c, i), 0, s->cluster_size);
    return entry(s, c, i);
}

void qcow2_cache_forget(Qcow2Cache *c, uint64_t offset)
{
    int i = lookup(c, offset);

    if (i >= 0) {
        c->offset[i] = 0;
    }
}
