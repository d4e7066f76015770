/*
 * The cache of decoded blocks. A block is found by its key (rip, CS
 * base, the decode-relevant hflags, and the guest-physical pages its
 * code came from) through a global hash table; each vCPU keeps a small
 * jump cache in front of it (cpu-exec.c).
 *
 * Memory: blocks are bump-allocated in chunks mapped as they are needed,
 * up to the -accel tcg,tb-size bound; when it is reached everything is
 * dropped at once (simple, and QEMU does the same).
 *
 * Self-modifying code: each guest-physical page that holds decoded code
 * has a PageDesc listing its blocks and a bitmap of the bytes they came
 * from. Writes to such a page (the MMU's slow path: code pages never get
 * a fast-path write tag) land in tb_invalidate_phys_range(); blocks whose
 * bytes were written are unlinked and their handlers replaced by a stub
 * that leaves the block, so a block that rewrites itself finishes the
 * current instruction and stops.
 *
 * Threads: the vCPU thread decodes and looks up without the big lock;
 * DMA and qtest writes invalidate from other threads. One mutex guards
 * the hash table, the page descriptors and the allocator. Block memory
 * is only reused after a full flush, which happens between blocks on the
 * vCPU thread or with the vCPUs stopped, so a block being run or a
 * pointer held across the mutex stays readable.
 */
#include <inttypes.h>
#include <string.h>
#include <sys/mman.h>

#include "target/i386/tcg/tb.h"
#include "disas/disas.h"
#include "qemu/log.h"
#include "system/tcg.h"

#define TB_HASH_BITS        15
#define TB_HASH_SIZE        (1u << TB_HASH_BITS)
#define TB_CHUNK_SIZE       (1u << 20)
/* A counting filter in front of the page table: most pages hold no code. */
#define CODE_FILTER_BITS    16
#define CODE_FILTER_SIZE    (1u << CODE_FILTER_BITS)

typedef struct PageDesc {
    uint64_t page;              /* guest-physical page address: the key */
    GPtrArray *tbs;
    bool bitmap_stale;          /* rebuild before use */
    uint64_t bitmap[X86_PAGE_SIZE / 64];
} PageDesc;

typedef struct TBChunk {
    uint8_t *base;
    size_t size;
} TBChunk;

static struct {
    GMutex lock;
    uint64_t limit;             /* the tb-size bound in bytes */
    uint64_t mapped;            /* bytes of chunks mapped */
    GArray *chunks;             /* of TBChunk */
    uint8_t *cur;
    size_t left;
    TranslationBlock **hash;
    GHashTable *pages;          /* &PageDesc.page -> PageDesc */
    GPtrArray *jmp_caches;      /* by vCPU index */
    uint16_t filter[CODE_FILTER_SIZE];
    uint64_t ntbs, nflushes, ninvalidated;
} tbc;

uint64_t tb_generation;

/* Blocks decoded from device memory run once and are not kept. */
static union {
    TranslationBlock tb;
    uint8_t bytes[sizeof(TranslationBlock) +
                  (TB_MAX_INSNS + 1) * sizeof(Insn)];
} oneoff;

static DecodedBlock decode_buf;

static void page_desc_free(gpointer p)
{
    PageDesc *pd = p;

    g_ptr_array_free(pd->tbs, true);
    g_free(pd);
}

static void tbc_init_locked(void)
{
    if (tbc.hash) {
        return;
    }
    if (!tbc.limit) {
        tbc.limit = (uint64_t)TCG_TB_SIZE_DEFAULT_MIB << 20;
    }
    tbc.hash = g_new0(TranslationBlock *, TB_HASH_SIZE);
    tbc.chunks = g_array_new(false, false, sizeof(TBChunk));
    tbc.pages = g_hash_table_new_full(g_int64_hash, g_int64_equal, NULL,
                                      page_desc_free);
    tbc.jmp_caches = g_ptr_array_new_with_free_func(g_free);
}

static void (*code_page_notify)(uint64_t paddr);

void tb_set_code_page_notify(void (*notify)(uint64_t paddr))
{
    code_page_notify = notify;
}

bool tb_cache_init(uint64_t bytes, Error **errp)
{
    g_mutex_lock(&tbc.lock);
    tbc.limit = MAX(bytes, (uint64_t)TB_CHUNK_SIZE);
    tbc_init_locked();
    g_mutex_unlock(&tbc.lock);
    return true;
}

static unsigned filter_index(uint64_t page)
{
    return (page >> 12) & (CODE_FILTER_SIZE - 1);
}

static unsigned tb_hash(uint64_t phys_pc, uint64_t pc, uint32_t flags)
{
    uint64_t h = (phys_pc ^ (pc << 17) ^ ((uint64_t)flags << 48)) *
                 0x9e3779b97f4a7c15ull;

    return h >> (64 - TB_HASH_BITS);
}

static uint64_t tb_phys_pc(const TranslationBlock *tb)
{
    return tb->phys[0] | (tb->lin & ~X86_PAGE_MASK);
}

/* --- flush ------------------------------------------------------------- */

static void flush_locked(void)
{
    for (guint i = 0; i < tbc.chunks->len; i++) {
        TBChunk *c = &g_array_index(tbc.chunks, TBChunk, i);

        munmap(c->base, c->size);
    }
    g_array_set_size(tbc.chunks, 0);
    tbc.mapped = 0;
    tbc.cur = NULL;
    tbc.left = 0;
    memset(tbc.hash, 0, TB_HASH_SIZE * sizeof(*tbc.hash));
    g_hash_table_remove_all(tbc.pages);
    memset(tbc.filter, 0, sizeof(tbc.filter));
    tbc.nflushes++;
    /* Jump caches and links notice the new generation. */
    __atomic_add_fetch(&tb_generation, 1, __ATOMIC_SEQ_CST);
}

void tb_flush_all(void)
{
    g_mutex_lock(&tbc.lock);
    if (tbc.hash) {
        flush_locked();
    }
    g_mutex_unlock(&tbc.lock);
}

void tb_cache_cleanup(void)
{
    g_mutex_lock(&tbc.lock);
    if (tbc.hash) {
        flush_locked();
        g_free(tbc.hash);
        tbc.hash = NULL;
        g_array_free(tbc.chunks, true);
        g_hash_table_destroy(tbc.pages);
        g_ptr_array_free(tbc.jmp_caches, true);
    }
    tbc.limit = 0;
    g_mutex_unlock(&tbc.lock);
}

/* Room for size bytes; flushes everything when the bound is reached. */
static void *tb_alloc_locked(size_t size)
{
    void *p;

    size = (size + TB_ALIGN - 1) & ~(size_t)(TB_ALIGN - 1);
    if (size > tbc.left) {
        size_t chunk = MIN((uint64_t)TB_CHUNK_SIZE, tbc.limit);
        TBChunk c;

        if (tbc.mapped + chunk > tbc.limit) {
            flush_locked();
        }
        c.size = chunk;
        c.base = mmap(NULL, chunk, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c.base == MAP_FAILED) {
            return NULL;
        }
        g_array_append_val(tbc.chunks, c);
        tbc.mapped += chunk;
        tbc.cur = c.base;
        tbc.left = chunk;
    }
    p = tbc.cur;
    tbc.cur += size;
    tbc.left -= size;
    return p;
}

/* --- code pages -------------------------------------------------------- */

static void tb_range_in_page(const TranslationBlock *tb, uint64_t page,
                             unsigned *start, unsigned *end)
{
    if (tb->phys[0] == page) {
        *start = tb->start0;
        *end = tb->end0;
    } else {
        *start = 0;
        *end = tb->end1;
    }
}

static void bitmap_set_range(uint64_t *bm, unsigned start, unsigned end)
{
    for (unsigned i = start; i < end; i++) {
        bm[i / 64] |= 1ull << (i % 64);
    }
}

static bool bitmap_any(const uint64_t *bm, unsigned start, unsigned end)
{
    for (unsigned i = start; i < end; i++) {
        if (bm[i / 64] & (1ull << (i % 64))) {
            return true;
        }
    }
    return false;
}

static void page_bitmap_rebuild(PageDesc *pd)
{
    memset(pd->bitmap, 0, sizeof(pd->bitmap));
    for (guint i = 0; i < pd->tbs->len; i++) {
        unsigned s, e;

        tb_range_in_page(g_ptr_array_index(pd->tbs, i), pd->page, &s, &e);
        bitmap_set_range(pd->bitmap, s, e);
    }
    pd->bitmap_stale = false;
}

/* Register tb with its page; true if the page had no code before. */
static bool page_add_tb_locked(uint64_t page, TranslationBlock *tb)
{
    PageDesc *pd = g_hash_table_lookup(tbc.pages, &page);
    bool fresh = !pd;
    unsigned s, e;

    if (!pd) {
        pd = g_new0(PageDesc, 1);
        pd->page = page;
        pd->tbs = g_ptr_array_new();
        g_hash_table_insert(tbc.pages, &pd->page, pd);
        __atomic_add_fetch(&tbc.filter[filter_index(page)], 1,
                           __ATOMIC_SEQ_CST);
    }
    g_ptr_array_add(pd->tbs, tb);
    tb_range_in_page(tb, page, &s, &e);
    if (!pd->bitmap_stale) {
        bitmap_set_range(pd->bitmap, s, e);
    }
    return fresh;
}

static void page_remove_tb_locked(uint64_t page, TranslationBlock *tb)
{
    PageDesc *pd = g_hash_table_lookup(tbc.pages, &page);

    if (!pd) {
        return;
    }
    g_ptr_array_remove_fast(pd->tbs, tb);
    pd->bitmap_stale = true;
    if (pd->tbs->len == 0) {
        /* The page stops being code: fast-path writes may come back. */
        __atomic_sub_fetch(&tbc.filter[filter_index(page)], 1,
                           __ATOMIC_SEQ_CST);
        g_hash_table_remove(tbc.pages, &page);
    }
}

static void tb_invalidate_locked(TranslationBlock *tb)
{
    unsigned h = tb_hash(tb_phys_pc(tb), tb->pc, tb->flags);
    TranslationBlock **pp;

    if (!tb->valid) {
        return;
    }
    tb->valid = false;
    for (pp = &tbc.hash[h]; *pp; pp = &(*pp)->hash_next) {
        if (*pp == tb) {
            *pp = tb->hash_next;
            break;
        }
    }
    for (unsigned i = 0; i < tb->npages; i++) {
        page_remove_tb_locked(tb->phys[i], tb);
    }
    /* A vCPU inside this block leaves it after its current instruction. */
    for (unsigned i = 0; i < tb->ninsns; i++) {
        __atomic_store_n(&tb->insns[i].fn, op_killed, __ATOMIC_RELAXED);
    }
    tbc.ninvalidated++;
}

bool tb_page_has_code(uint64_t paddr)
{
    uint64_t page = paddr & X86_PAGE_MASK;
    bool has;

    if (!__atomic_load_n(&tbc.filter[filter_index(page)], __ATOMIC_ACQUIRE)) {
        return false;
    }
    g_mutex_lock(&tbc.lock);
    has = tbc.pages && g_hash_table_lookup(tbc.pages, &page);
    g_mutex_unlock(&tbc.lock);
    return has;
}

void tb_invalidate_phys_range(uint64_t paddr, uint64_t len)
{
    uint64_t end = paddr + len;

    if (!len) {
        return;
    }
    if (end < paddr) {
        end = UINT64_MAX;
    }
    for (uint64_t page = paddr & X86_PAGE_MASK; page < end;
         page += X86_PAGE_SIZE) {
        PageDesc *pd;
        unsigned s, e;

        if (!__atomic_load_n(&tbc.filter[filter_index(page)],
                             __ATOMIC_ACQUIRE)) {
            if (page + X86_PAGE_SIZE < page) {
                break;
            }
            continue;
        }
        g_mutex_lock(&tbc.lock);
        pd = tbc.pages ? g_hash_table_lookup(tbc.pages, &page) : NULL;
        if (pd) {
            s = MAX(paddr, page) - page;
            e = MIN(end - page, (uint64_t)X86_PAGE_SIZE);
            if (pd->bitmap_stale) {
                page_bitmap_rebuild(pd);
            }
            if (bitmap_any(pd->bitmap, s, e)) {
                /* Copy: invalidation edits (and may free) the list. */
                GPtrArray *hit = g_ptr_array_new();

                for (guint i = 0; i < pd->tbs->len; i++) {
                    TranslationBlock *tb = g_ptr_array_index(pd->tbs, i);
                    unsigned ts, te;

                    tb_range_in_page(tb, page, &ts, &te);
                    if (ts < e && s < te) {
                        g_ptr_array_add(hit, tb);
                    }
                }
                for (guint i = 0; i < hit->len; i++) {
                    tb_invalidate_locked(g_ptr_array_index(hit, i));
                }
                g_ptr_array_free(hit, true);
            }
        }
        g_mutex_unlock(&tbc.lock);
        if (page + X86_PAGE_SIZE < page) {
            break;
        }
    }
}

/* --- lookup and decode ------------------------------------------------- */

TBJmpCache *tb_jmp_cache_get(X86CPU *cpu)
{
    TBJmpCache *jc;

    g_mutex_lock(&tbc.lock);
    tbc_init_locked();
    if (tbc.jmp_caches->len <= cpu->index) {
        g_ptr_array_set_size(tbc.jmp_caches, cpu->index + 1);
    }
    jc = g_ptr_array_index(tbc.jmp_caches, cpu->index);
    if (!jc) {
        jc = g_new0(TBJmpCache, 1);
        jc->generation = tb_generation;
        g_ptr_array_index(tbc.jmp_caches, cpu->index) = jc;
    }
    g_mutex_unlock(&tbc.lock);
    return jc;
}

/* The guest-physical page of a linear code address (may raise #PF). */
static uint64_t code_page(CPUX86State *env, uint64_t lin)
{
    TLBEntry *e = x86_tlb_entry(env, lin);
    uint8_t *host;

    if (e->tag_fetch == (lin & X86_PAGE_MASK)) {
        return x86_tlb_extra(env, e)->paddr;
    }
    return x86_translate(env, lin, MMU_FETCH, &host) & X86_PAGE_MASK;
}

static uint64_t second_page(const TranslationBlock *tb)
{
    uint64_t lin = (tb->lin & X86_PAGE_MASK) + X86_PAGE_SIZE;

    return (tb->flags & HF_CS64_MASK) ? lin : (uint32_t)lin;
}

/* Does tb's code still come from the pages it was decoded from? */
bool tb_pages_match(CPUX86State *env, const TranslationBlock *tb)
{
    if (code_page(env, tb->lin) != tb->phys[0]) {
        return false;
    }
    return tb->npages < 2 || code_page(env, second_page(tb)) == tb->phys[1];
}

static void tb_fill(TranslationBlock *tb, const DecodedBlock *db,
                    uint64_t lin)
{
    tb->pc = db->pc;
    tb->cs_base = db->cs_base;
    tb->lin = lin;
    tb->flags = db->flags;
    tb->ninsns = db->n;
    tb->npages = db->npages;
    tb->phys[0] = db->phys[0];
    tb->phys[1] = db->npages > 1 ? db->phys[1] : 0;
    tb->map_gen = 0;                /* x86_tlb_gen starts at 1 */
    tb->start0 = db->start0;
    tb->end0 = db->end0;
    tb->end1 = db->end1;
    tb->hash_next = NULL;
    tb->link[0] = tb->link[1] = NULL;
    memcpy(tb->insns, db->insns, (db->n + 1) * sizeof(Insn));
}

/* The bytes of an instruction the decoder has just read (RAM only). */
static unsigned fetch_for_log(CPUX86State *env, uint64_t lin, uint8_t *buf,
                              unsigned len)
{
    unsigned n = 0;

    while (n < len) {
        uint8_t *host = NULL;
        unsigned in_page = X86_PAGE_SIZE - ((lin + n) & ~X86_PAGE_MASK);

        x86_translate(env, lin + n, MMU_FETCH, &host);
        if (!host) {
            break;
        }
        in_page = MIN(in_page, len - n);
        memcpy(buf + n, host, in_page);
        n += in_page;
    }
    return n;
}

/*
 * -d in_asm: each decoded instruction with its address, bytes and, where
 * the build has capstone, its disassembly.
 */
static void log_block(CPUX86State *env, const DecodedBlock *db,
                      uint64_t lin)
{
    unsigned bits = db->flags & HF_CS64_MASK ? 64 :
                    db->flags & HF_CS32_MASK ? 32 : 16;
    GString *line = g_string_new(NULL);

    qemu_log("IN: 0x%016" PRIx64 " (cs base 0x%" PRIx64 ", flags 0x%x, "
             "%u instructions)\n", lin, db->cs_base, (unsigned)db->flags,
             (unsigned)db->n);
    for (unsigned i = 0; i < db->n; i++) {
        uint64_t at = lin + (int16_t)db->insns[i].off;
        uint8_t bytes[16];
        unsigned len = db->insns[i].len, got;

        if (bits != 64) {
            at = (uint32_t)at;
        }
        got = fetch_for_log(env, at, bytes, MIN(len, sizeof(bytes)));
        g_string_printf(line, "0x%016" PRIx64 ":  ", at);
        for (unsigned k = 0; k < got; k++) {
            g_string_append_printf(line, "%02x ", bytes[k]);
        }
        while (line->len < 20 + 3 * 11) {
            g_string_append_c(line, ' ');
        }
        if (got != len ||
            disas_x86_one(bytes, got, db->pc + (int16_t)db->insns[i].off,
                          bits, line) != len) {
            g_string_append_printf(line, "(%u bytes)", len);
        }
        qemu_log("%s\n", line->str);
    }
    qemu_log("\n");
    g_string_free(line, true);
}

static TranslationBlock *tb_gen(CPUX86State *env, uint64_t lin,
                                uint32_t tb_flags)
{
    DecodedBlock *db = &decode_buf;
    TranslationBlock *tb;
    size_t size;
    bool fresh[2] = { false, false };
    unsigned h;

    x86_decode_block(env, db,
                     (tb_flags & TB_FLAG_SINGLE) ? 1 : TB_MAX_INSNS);
    db->flags |= tb_flags;
    if (qemu_loglevel_mask(LOG_IN_ASM)) {
        log_block(env, db, lin);
    }
    size = sizeof(TranslationBlock) + (db->n + 1) * sizeof(Insn);
    if (!db->cacheable) {
        tb = &oneoff.tb;
        tb_fill(tb, db, lin);
        tb->cached = false;
        tb->valid = false;
        return tb;
    }
    g_mutex_lock(&tbc.lock);
    tb = tb_alloc_locked(size);
    if (!tb) {
        g_mutex_unlock(&tbc.lock);
        qemu_log_mask(LOG_GUEST_ERROR, "tcg: cannot map block cache memory; "
                      "running the block uncached\n");
        tb = &oneoff.tb;
        tb_fill(tb, db, lin);
        tb->cached = false;
        tb->valid = false;
        return tb;
    }
    tb_fill(tb, db, lin);
    tb->cached = true;
    tb->valid = true;
    h = tb_hash(tb_phys_pc(tb), tb->pc, tb->flags);
    tb->hash_next = tbc.hash[h];
    tbc.hash[h] = tb;
    for (unsigned i = 0; i < tb->npages; i++) {
        fresh[i] = page_add_tb_locked(tb->phys[i], tb);
    }
    tbc.ntbs++;
    g_mutex_unlock(&tbc.lock);
    if (fresh[0] || fresh[1]) {
        /*
         * No vCPU may keep a fast-path write tag for a code page; this
         * one may just have got one while fetching the code, the others
         * are the accelerator's to tell.
         */
        for (unsigned i = 0; i < tb->npages; i++) {
            if (fresh[i] && code_page_notify) {
                code_page_notify(tb->phys[i]);
            }
        }
        x86_tlb_flush_page(env, lin);
        if (tb->npages > 1) {
            x86_tlb_flush_page(env, second_page(tb));
        }
    }
    return tb;
}

TranslationBlock *tb_find(CPUX86State *env, uint64_t lin, uint32_t tb_flags)
{
    uint64_t pc = env->rip, cs_base = env->segs[R_CS].base;
    uint32_t flags = (env->hflags & HF_DECODE_MASK) | tb_flags;
    uint64_t gen = __atomic_load_n(&x86_tlb_gen, __ATOMIC_RELAXED);
    uint64_t phys0 = code_page(env, lin);
    TranslationBlock *tb;
    unsigned h = tb_hash(phys0 | (lin & ~X86_PAGE_MASK), pc, flags);

    g_mutex_lock(&tbc.lock);
    tbc_init_locked();
    for (tb = tbc.hash[h]; tb; tb = tb->hash_next) {
        if (tb->pc == pc && tb->cs_base == cs_base && tb->flags == flags &&
            tb->phys[0] == phys0) {
            break;
        }
    }
    g_mutex_unlock(&tbc.lock);
    /* The second page is translated without the lock (it may fault). */
    if (tb && (tb->npages < 2 ||
               code_page(env, second_page(tb)) == tb->phys[1])) {
        tb->map_gen = gen;
        return tb;
    }
    return tb_gen(env, lin, tb_flags);
}

void tb_link(TranslationBlock *from, TranslationBlock *to)
{
    if (from->link[0] == to || from->link[1] == to) {
        return;
    }
    if (from->link[0] && from->link[0]->valid) {
        from->link[1] = from->link[0];
    }
    from->link[0] = to;
}

/* For tests and -d: what the cache holds and has done. */
void tb_cache_stats(uint64_t *ntbs, uint64_t *nflushes,
                    uint64_t *ninvalidated, uint64_t *mapped)
{
    g_mutex_lock(&tbc.lock);
    *ntbs = tbc.ntbs;
    *nflushes = tbc.nflushes;
    *ninvalidated = tbc.ninvalidated;
    *mapped = tbc.mapped;
    g_mutex_unlock(&tbc.lock);
}
