/*
 * The memory API (system/memory.c): priorities where regions overlap,
 * containers, aliases, enable/disable and moves at run time, the
 * listener calls each change makes (ioeventfds following their region),
 * dirty logging of writes that are not a vCPU's, and the access-size
 * rules of device regions.
 *
 * Everything is placed in address_space_memory above 16 MiB and taken
 * out again by each test (memory_cleanup()), so the tests do not see
 * each other.
 */
#include <string.h>

#include <glib.h>

#include "system/memory.h"

#define BASE        UINT64_C(0x1000000)
#define RAM_SIZE    UINT64_C(0x10000)

static uint8_t ram[RAM_SIZE], ram2[RAM_SIZE];

/* A device that records its accesses. */
static GString *io_log;

static uint64_t dev_read(void *opaque, uint64_t addr, unsigned size)
{
    g_string_append_printf(io_log, "%s r%u@%" G_GINT64_MODIFIER "x ",
                           (const char *)opaque, size, addr);
    return 0x11223344u >> (8 * (addr & 3));
}

static void dev_write(void *opaque, uint64_t addr, uint64_t value,
                      unsigned size)
{
    g_string_append_printf(io_log, "%s w%u@%" G_GINT64_MODIFIER "x=%"
                           G_GINT64_MODIFIER "x ", (const char *)opaque,
                           size, addr, value);
}

static const MemoryRegionOps dev_ops = {
    .read = dev_read,
    .write = dev_write,
    .valid.max_access_size = 4,
};

/* Valid for 1..4 bytes, implemented one byte at a time. */
static const MemoryRegionOps byte_ops = {
    .read = dev_read,
    .write = dev_write,
    .valid.max_access_size = 4,
    .impl.max_access_size = 1,
};

/* Only aligned 4-byte accesses. */
static const MemoryRegionOps long_ops = {
    .read = dev_read,
    .write = dev_write,
    .valid.min_access_size = 4,
    .valid.max_access_size = 4,
};

static void setup(void)
{
    memset(ram, 0, sizeof(ram));
    memset(ram2, 0, sizeof(ram2));
    io_log = g_string_new(NULL);
}

static void teardown(void)
{
    memory_cleanup();
    g_string_free(io_log, true);
}

static const char *name_at(uint64_t addr)
{
    MemoryRegion *mr = address_space_lookup(&address_space_memory, addr);

    return mr ? mr->name : "-";
}

static uint8_t rd8(uint64_t addr)
{
    return address_space_read_sized(&address_space_memory, addr, 1);
}

/* --- overlaps and priorities ------------------------------------------- */

static void test_priority(void)
{
    MemoryRegion r, dev, dev2, c;
    MemoryRegion *root = address_space_root(&address_space_memory);
    Error *err = NULL;

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_io(&dev, "dev", &dev_ops, "dev", 0x1000);
    memory_region_init_io(&dev2, "dev2", &dev_ops, "dev2", 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    /* Equal priority overlapping: refused, as address_space_map_region. */
    g_assert_false(memory_region_add_subregion(root, BASE + 0x4000, &dev, 0,
                                               &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "region 'dev' at 0x1004000 "
                    "overlaps 'ram' at 0x1000000 in the memory address "
                    "space");
    g_clear_pointer(&err, error_free);
    g_assert_null(dev.container);
    /* Higher priority: wins where it overlaps. */
    g_assert_true(memory_region_add_subregion(root, BASE + 0x4000, &dev, 1,
                                              NULL));
    g_assert_cmpstr(name_at(BASE + 0x3fff), ==, "ram");
    g_assert_cmpstr(name_at(BASE + 0x4000), ==, "dev");
    g_assert_cmpstr(name_at(BASE + 0x4fff), ==, "dev");
    g_assert_cmpstr(name_at(BASE + 0x5000), ==, "ram");
    /* RAM on both sides is still RAM at the right offsets. */
    ram[0x5000] = 0x5a;
    g_assert_cmphex(rd8(BASE + 0x5000), ==, 0x5a);
    g_assert_null(address_space_ram_ptr(&address_space_memory, BASE + 0x3000,
                                        0x2000));
    g_assert_true(address_space_ram_ptr(&address_space_memory, BASE + 0x5000,
                                        0x1000) == &ram[0x5000]);
    /* The device sees offsets in itself. */
    address_space_write_sized(&address_space_memory, BASE + 0x4010, 7, 4);
    g_assert_cmpstr(io_log->str, ==, "dev w4@10=7 ");
    g_assert_cmphex(ram[0x4010], ==, 0);
    /* A lower priority region under both shows nowhere they are. */
    g_assert_true(memory_region_add_subregion(root, BASE + 0x4800, &dev2, -1,
                                              NULL));
    g_assert_cmpstr(name_at(BASE + 0x4800), ==, "dev");
    g_assert_cmpstr(name_at(BASE + 0x5800), ==, "ram");
    memory_region_del_subregion(root, &dev);
    g_assert_cmpstr(name_at(BASE + 0x4000), ==, "ram");
    /* A container may overlap anything of its priority. */
    memory_region_init_container(&c, "c", 0x2000);
    g_assert_true(memory_region_add_subregion(root, BASE + 0x8000, &c, 0,
                                              NULL));
    /* ... and being empty, hides nothing. */
    g_assert_cmpstr(name_at(BASE + 0x8000), ==, "ram");
    /* Not twice, and not beyond the address space. */
    g_assert_false(memory_region_add_subregion(root, BASE, &c, 5, &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "already in 'system'"));
    g_clear_pointer(&err, error_free);
    g_assert_false(memory_region_add_subregion(root, UINT64_MAX - 0xfff,
                                               &dev, 1, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "region 'dev' "
                    "[0xfffffffffffff000, +0x1000] does not fit the memory "
                    "address space");
    g_clear_pointer(&err, error_free);
    memory_region_finalize(&c);
    memory_region_finalize(&dev2);
    memory_region_finalize(&dev);
    memory_region_finalize(&r);
    teardown();
}

/* --- containers --------------------------------------------------------- */

static void test_container(void)
{
    MemoryRegion c, r, dev, inner;
    MemoryRegion *root = address_space_root(&address_space_memory);
    Error *err = NULL;

    setup();
    memory_region_init_container(&c, "pci", 0x100000);
    memory_region_init_ram_ptr(&r, "bar-ram", RAM_SIZE, ram);
    memory_region_init_io(&dev, "bar-io", &dev_ops, "bar", 0x1000);
    /* Filled before it is placed: nothing shows until then. */
    g_assert_true(memory_region_add_subregion(&c, 0x20000, &r, 0,
                                              NULL));
    g_assert_true(memory_region_add_subregion(&c, 0x40000, &dev, 0,
                                              NULL));
    g_assert_cmpstr(name_at(BASE + 0x20000), ==, "-");
    g_assert_true(memory_region_add_subregion(root, BASE, &c, 0,
                                              NULL));
    g_assert_cmpstr(name_at(BASE + 0x1ffff), ==, "-");
    g_assert_cmpstr(name_at(BASE + 0x20000), ==, "bar-ram");
    g_assert_cmpstr(name_at(BASE + 0x40fff), ==, "bar-io");
    ram[1] = 0x42;
    g_assert_cmphex(rd8(BASE + 0x20001), ==, 0x42);
    address_space_read_sized(&address_space_memory, BASE + 0x40004, 1);
    g_assert_cmpstr(io_log->str, ==, "bar r1@4 ");
    /* Offsets within a container are checked against it. */
    memory_region_init_io(&inner, "inner", &dev_ops, "inner", 0x1000);
    g_assert_false(memory_region_add_subregion(&c, 0xff800, &inner, 0,
                                               &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "does not fit 'pci'"));
    g_clear_pointer(&err, error_free);
    g_assert_false(memory_region_add_subregion(&c, 0x20800, &inner, 0,
                                               &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "region 'inner' at 0x20800 "
                    "overlaps 'bar-ram' at 0x20000 in 'pci'");
    g_clear_pointer(&err, error_free);
    /* Moving the container moves what it holds. */
    memory_region_set_address(&c, BASE + 0x100000);
    g_assert_cmpstr(name_at(BASE + 0x20000), ==, "-");
    g_assert_cmpstr(name_at(BASE + 0x120001), ==, "bar-ram");
    g_assert_cmphex(rd8(BASE + 0x120001), ==, 0x42);
    /* A subregion larger than what is left of the container is clipped. */
    memory_region_set_address(&r, 0xf8000);
    g_assert_cmpstr(name_at(BASE + 0x1f8000), ==, "bar-ram");
    g_assert_cmpstr(name_at(BASE + 0x1fffff), ==, "bar-ram");
    g_assert_cmpstr(name_at(BASE + 0x200000), ==, "-");
    /* Taking the container out takes everything in it. */
    memory_region_del_subregion(root, &c);
    g_assert_cmpstr(name_at(BASE + 0x140000), ==, "-");
    memory_region_finalize(&inner);
    memory_region_finalize(&c);
    g_assert_null(r.container);
    memory_region_finalize(&dev);
    memory_region_finalize(&r);
    teardown();
}

/* --- aliases ------------------------------------------------------------ */

static void test_alias(void)
{
    MemoryRegion r, a, c, hole;
    MemoryRegion *root = address_space_root(&address_space_memory);

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    /* The RAM itself is in no address space: only the windows show it. */
    memory_region_init_alias(&a, "window", &r, 0x8000, 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &a,
                                           BASE + 0x200000, NULL));
    ram[0x8000] = 1;
    ram[0x8fff] = 2;
    g_assert_cmphex(rd8(BASE + 0x200000), ==, 1);
    g_assert_cmphex(rd8(BASE + 0x200fff), ==, 2);
    g_assert_cmpstr(name_at(BASE + 0x200000), ==, "ram");
    g_assert_cmpstr(name_at(BASE + 0x201000), ==, "-");
    /* Writes through the window land in the region. */
    address_space_write_sized(&address_space_memory, BASE + 0x200010,
                              0xabcd, 2);
    g_assert_cmphex(ram[0x8010], ==, 0xcd);
    g_assert_cmphex(ram[0x8011], ==, 0xab);
    /* The window slides. */
    memory_region_set_alias_offset(&a, 0);
    ram[0] = 9;
    g_assert_cmphex(rd8(BASE + 0x200000), ==, 9);
    /* An alias of a container, as the PC's PCI hole looks into PCI. */
    memory_region_init_container(&c, "pci", 0x100000);
    memory_region_init_io(&hole, "bar", &dev_ops, "bar", 0x1000);
    g_assert_true(memory_region_add_subregion(&c, 0x3000, &hole, 0,
                                              NULL));
    memory_region_finalize(&a);
    memory_region_init_alias(&a, "pci-hole", &c, 0x2000, 0x4000);
    g_assert_true(memory_region_add_subregion(root, BASE, &a, 0,
                                              NULL));
    g_assert_cmpstr(name_at(BASE), ==, "-");
    g_assert_cmpstr(name_at(BASE + 0x1000), ==, "bar");
    address_space_read_sized(&address_space_memory, BASE + 0x1008, 4);
    g_assert_cmpstr(io_log->str, ==, "bar r4@8 ");
    /* The alias follows changes inside what it looks into. */
    memory_region_set_address(&hole, 0x5000);
    g_assert_cmpstr(name_at(BASE + 0x1000), ==, "-");
    g_assert_cmpstr(name_at(BASE + 0x3000), ==, "bar");
    memory_region_set_address(&hole, 0x6000);
    g_assert_cmpstr(name_at(BASE + 0x3000), ==, "-");
    memory_region_finalize(&a);
    memory_region_finalize(&hole);
    memory_region_finalize(&c);
    memory_region_finalize(&r);
    teardown();
}

/* --- enable, disable, move ---------------------------------------------- */

static void test_enable_move(void)
{
    MemoryRegion r, bar;
    MemoryRegion *root = address_space_root(&address_space_memory);

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_io(&bar, "bar", &dev_ops, "bar", 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    memory_region_set_enabled(&bar, false);
    g_assert_true(memory_region_add_subregion(root, BASE + 0x2000, &bar, 1,
                                              NULL));
    g_assert_cmpstr(name_at(BASE + 0x2000), ==, "ram");
    memory_region_set_enabled(&bar, true);
    g_assert_cmpstr(name_at(BASE + 0x2000), ==, "bar");
    /* A guest moves its BAR around: the RAM under it comes back. */
    memory_region_set_address(&bar, BASE + 0x6000);
    g_assert_cmpstr(name_at(BASE + 0x2000), ==, "ram");
    g_assert_cmpstr(name_at(BASE + 0x6000), ==, "bar");
    /* ... even out of the RAM, and onto another region's spot. */
    memory_region_set_address(&bar, BASE + RAM_SIZE - 0x800);
    g_assert_cmpstr(name_at(BASE + RAM_SIZE - 0x801), ==, "ram");
    g_assert_cmpstr(name_at(BASE + RAM_SIZE), ==, "bar");
    g_assert_cmpstr(name_at(BASE + RAM_SIZE + 0x7ff), ==, "bar");
    /* Disabled RAM reads as all-ones like any hole. */
    memory_region_set_enabled(&r, false);
    ram[0x10] = 0;
    g_assert_cmphex(rd8(BASE + 0x10), ==, 0xff);
    g_assert_false(address_space_rw(&address_space_memory, BASE, ram2, 4,
                                    false));
    memory_region_set_enabled(&r, true);
    g_assert_cmphex(rd8(BASE + 0x10), ==, 0);
    /* Equal priorities may overlap by a move: the later-added wins. */
    memory_region_set_address(&bar, BASE + 0x1000);
    memory_region_set_enabled(&bar, false);
    memory_region_del_subregion(root, &bar);
    g_assert_true(memory_region_add_subregion(root, BASE + RAM_SIZE, &bar, 0,
                                              NULL));
    memory_region_set_address(&bar, BASE + 0x1000);
    memory_region_set_enabled(&bar, true);
    g_assert_cmpstr(name_at(BASE + 0x1000), ==, "bar");
    memory_region_finalize(&bar);
    memory_region_finalize(&r);
    teardown();
}

/* --- listeners ---------------------------------------------------------- */

typedef struct Recorder {
    MemoryListener l;
    GString *calls;
} Recorder;

static void record(MemoryListener *l, const char *what,
                   const MemoryRegionSection *s)
{
    Recorder *r = (Recorder *)l;

    g_string_append_printf(r->calls, "%s %" G_GINT64_MODIFIER "x-%"
                           G_GINT64_MODIFIER "x %s+%" G_GINT64_MODIFIER "x%s"
                           "\n", what,
                           s->offset_within_address_space - BASE,
                           s->offset_within_address_space - BASE +
                           s->size - 1, s->mr->name, s->offset_within_region,
                           s->log ? " log" : "");
}

static void rec_add(MemoryListener *l, const MemoryRegionSection *s)
{
    record(l, "add", s);
}

static void rec_del(MemoryListener *l, const MemoryRegionSection *s)
{
    record(l, "del", s);
}

static void rec_log_start(MemoryListener *l, const MemoryRegionSection *s)
{
    record(l, "log_start", s);
}

static void rec_log_stop(MemoryListener *l, const MemoryRegionSection *s)
{
    record(l, "log_stop", s);
}

static void rec_ram_written(MemoryListener *l, uint64_t addr, uint64_t len)
{
    Recorder *r = (Recorder *)l;

    g_string_append_printf(r->calls, "written %" G_GINT64_MODIFIER "x+%"
                           G_GINT64_MODIFIER "x\n", addr - BASE, len);
}

/* What the recorder saw since the last call. */
static char *calls_take(Recorder *r)
{
    char *s = g_strdup(r->calls->str);

    g_string_truncate(r->calls, 0);
    return s;
}

#define assert_calls(r, want)                                          \
    do {                                                               \
        g_autofree char *got_ = calls_take(r);                         \
        g_assert_cmpstr(got_, ==, want);                               \
    } while (0)

static void test_listener(void)
{
    Recorder rec = {
        .l = {
            .region_add = rec_add, .region_del = rec_del,
            .log_start = rec_log_start, .log_stop = rec_log_stop,
        },
        .calls = g_string_new(NULL),
    };
    MemoryRegion r, bar;
    MemoryRegion *root = address_space_root(&address_space_memory);

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_io(&bar, "bar", &dev_ops, "bar", 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    /* Registering replays what is there. */
    memory_listener_register(&rec.l, &address_space_memory);
    assert_calls(&rec, "add 0-ffff ram+0\n");
    /* A BAR over the RAM: the RAM range goes, its pieces come back. */
    g_assert_true(memory_region_add_subregion(root, BASE + 0x4000, &bar, 1,
                                              NULL));
    assert_calls(&rec, "del 0-ffff ram+0\n"
                       "add 0-3fff ram+0\n"
                       "add 4000-4fff bar+0\n"
                       "add 5000-ffff ram+5000\n");
    /* A move is dels, then adds; what did not change is not told. */
    memory_region_set_address(&bar, BASE + 0x8000);
    assert_calls(&rec, "del 0-3fff ram+0\n"
                       "del 4000-4fff bar+0\n"
                       "del 5000-ffff ram+5000\n"
                       "add 0-7fff ram+0\n"
                       "add 8000-8fff bar+0\n"
                       "add 9000-ffff ram+9000\n");
    memory_region_set_address(&bar, BASE + 0x8000);
    memory_region_set_enabled(&bar, true);
    assert_calls(&rec, "");
    /* Logging starts and stops on the RAM's ranges, not the device's. */
    memory_region_set_log(&r, true);
    assert_calls(&rec, "log_start 0-7fff ram+0 log\n"
                       "log_start 9000-ffff ram+9000 log\n");
    /* A range that appears while logging says so. */
    memory_region_set_enabled(&bar, false);
    assert_calls(&rec, "del 0-7fff ram+0 log\n"
                       "del 8000-8fff bar+0\n"
                       "del 9000-ffff ram+9000 log\n"
                       "add 0-ffff ram+0 log\n");
    memory_region_set_log(&r, false);
    assert_calls(&rec, "log_stop 0-ffff ram+0\n");
    /* Unregistering takes everything away. */
    memory_listener_unregister(&rec.l);
    assert_calls(&rec, "del 0-ffff ram+0\n");
    memory_region_finalize(&r);
    assert_calls(&rec, "");
    memory_region_finalize(&bar);
    g_string_free(rec.calls, true);
    teardown();
}

static void rec_eventfd(MemoryListener *l, const char *what, uint64_t addr,
                        const MemoryRegionIoeventfd *e)
{
    Recorder *r = (Recorder *)l;

    g_string_append_printf(r->calls, "%s %" G_GINT64_MODIFIER "x/%u fd %d",
                           what, addr - BASE, e->size, e->fd);
    if (e->match_data) {
        g_string_append_printf(r->calls, " =%" G_GINT64_MODIFIER "x",
                               e->data);
    }
    g_string_append_c(r->calls, '\n');
}

static void rec_eventfd_add(MemoryListener *l, uint64_t addr,
                            const MemoryRegionIoeventfd *e)
{
    rec_eventfd(l, "eventfd_add", addr, e);
}

static void rec_eventfd_del(MemoryListener *l, uint64_t addr,
                            const MemoryRegionIoeventfd *e)
{
    rec_eventfd(l, "eventfd_del", addr, e);
}

/*
 * An ioeventfd is told where its region is seen: added while mapped,
 * moved with a BAR (del before the range goes, add after it comes),
 * gone while hidden, and only where the range shows it whole.
 */
static void test_eventfd(void)
{
    Recorder rec = {
        .l = { .eventfd_add = rec_eventfd_add,
               .eventfd_del = rec_eventfd_del },
        .calls = g_string_new(NULL),
    };
    MemoryRegion bar, notify, cover;
    MemoryRegion *root = address_space_root(&address_space_memory);

    setup();
    memory_region_init_container(&bar, "bar", 0x4000);
    memory_region_init_io(&notify, "notify", &dev_ops, "notify", 0x1000);
    g_assert_true(memory_region_add_subregion(&bar, 0x3000, &notify, 0,
                                              NULL));
    /* Before the region is mapped anywhere: nothing to tell. */
    memory_region_add_eventfd(&notify, 4, 0, false, 0, 7);
    memory_listener_register(&rec.l, &address_space_memory);
    assert_calls(&rec, "");
    g_assert_true(address_space_map_region(&address_space_memory, &bar, BASE,
                                           NULL));
    assert_calls(&rec, "eventfd_add 3004/0 fd 7\n");
    /* Added while mapped: at once. */
    memory_region_add_eventfd(&notify, 8, 2, true, 0x5a, 8);
    assert_calls(&rec, "eventfd_add 3008/2 fd 8 =5a\n");
    memory_region_set_address(&bar, BASE + 0x10000);
    assert_calls(&rec, "eventfd_del 3004/0 fd 7\n"
                       "eventfd_del 3008/2 fd 8 =5a\n"
                       "eventfd_add 13004/0 fd 7\n"
                       "eventfd_add 13008/2 fd 8 =5a\n");
    /* Covered by a higher-priority region: not seen, so not there. */
    memory_region_init_io(&cover, "cover", &dev_ops, "cover", 0x6);
    g_assert_true(memory_region_add_subregion(root, BASE + 0x13006, &cover,
                                              1, NULL));
    assert_calls(&rec, "eventfd_del 13004/0 fd 7\n"
                       "eventfd_del 13008/2 fd 8 =5a\n"
                       "eventfd_add 13004/0 fd 7\n");
    /* A write the listener did not take still reaches the ops. */
    address_space_write_sized(&address_space_memory, BASE + 0x1300c, 0, 2);
    g_assert_cmpstr(io_log->str, ==, "notify w2@c=0 ");
    memory_region_finalize(&cover);
    assert_calls(&rec, "eventfd_del 13004/0 fd 7\n"
                       "eventfd_add 13004/0 fd 7\n"
                       "eventfd_add 13008/2 fd 8 =5a\n");
    /* del matches the data too. */
    memory_region_del_eventfd(&notify, 8, 2, true, 0x5b, 8);
    assert_calls(&rec, "");
    memory_region_del_eventfd(&notify, 8, 2, true, 0x5a, 8);
    assert_calls(&rec, "eventfd_del 13008/2 fd 8 =5a\n");
    memory_region_set_enabled(&bar, false);
    assert_calls(&rec, "eventfd_del 13004/0 fd 7\n");
    memory_listener_unregister(&rec.l);
    memory_region_finalize(&notify);
    memory_region_finalize(&bar);
    g_string_free(rec.calls, true);
    teardown();
}

static void test_ram_written(void)
{
    Recorder rec = {
        .l = { .ram_written = rec_ram_written },
        .calls = g_string_new(NULL),
    };
    MemoryRegion r, dev;
    uint8_t buf[4] = { 1, 2, 3, 4 };

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_io(&dev, "dev", &dev_ops, "dev", 0x1000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    g_assert_true(address_space_map_region(&address_space_memory, &dev,
                                           BASE + RAM_SIZE, NULL));
    memory_listener_register(&rec.l, &address_space_memory);
    address_space_rw(&address_space_memory, BASE + 0x10, buf, 4, true);
    /* Only the mapped part of a fill. */
    address_space_set(&address_space_memory, BASE + 0xfffe, 0, 4);
    address_space_write_sized(&address_space_memory, BASE + 0x20, 1, 2);
    address_space_ram_written(&address_space_memory, BASE + 0x30, 8);
    /* Reads, and writes to devices, are not RAM written. */
    address_space_rw(&address_space_memory, BASE + 0x10, buf, 4, false);
    address_space_write_sized(&address_space_memory, BASE + RAM_SIZE, 1, 1);
    assert_calls(&rec, "written 10+4\n"
                       "written fffe+2\n"
                       "written 20+2\n"
                       "written 30+8\n");
    memory_listener_unregister(&rec.l);
    memory_region_finalize(&dev);
    memory_region_finalize(&r);
    g_string_free(rec.calls, true);
    teardown();
}

/* --- dirty logging of writes that are not a vCPU's ---------------------- */

static bool page_dirty(const uint64_t *bitmap, unsigned page)
{
    return bitmap[page / 64] & (1ull << (page % 64));
}

static unsigned pages_dirty(const uint64_t *bitmap, size_t words)
{
    unsigned n = 0;

    for (size_t i = 0; i < words; i++) {
        n += __builtin_popcountll(bitmap[i]);
    }
    return n;
}

static void test_dirty_log(void)
{
    MemoryRegion r, a;
    uint8_t buf[0x2000] = { 0 };
    size_t words = RAM_SIZE / MEMORY_DIRTY_PAGE_SIZE / 64 + 1;
    uint64_t *bm;

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_alias(&a, "alias", &r, 0xc000, 0x4000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    g_assert_true(address_space_map_region(&address_space_memory, &a,
                                           BASE + 0x100000, NULL));
    /* Not logging: nothing to fetch. */
    g_assert_null(memory_region_fetch_dirty_log(&r));
    address_space_write_sized(&address_space_memory, BASE, 1, 1);
    memory_region_set_log(&r, true);
    bm = memory_region_fetch_dirty_log(&r);
    g_assert_cmpuint(pages_dirty(bm, words), ==, 0);
    g_free(bm);
    /* Each writer marks the pages it touched. */
    address_space_write_sized(&address_space_memory, BASE + 0x1ffe, 1, 4);
    address_space_rw(&address_space_memory, BASE + 0x4800, buf, 0x1000,
                     true);
    address_space_set(&address_space_memory, BASE + 0x7000, 0, 1);
    /* Through the alias: the region's page, not the alias's. */
    address_space_write_sized(&address_space_memory, BASE + 0x100000, 1, 1);
    /* Reads mark nothing. */
    address_space_rw(&address_space_memory, BASE + 0x9000, buf, 0x2000,
                     false);
    bm = memory_region_fetch_dirty_log(&r);
    g_assert_true(page_dirty(bm, 1) && page_dirty(bm, 2));
    g_assert_true(page_dirty(bm, 4) && page_dirty(bm, 5));
    g_assert_true(page_dirty(bm, 7));
    g_assert_true(page_dirty(bm, 0xc));
    g_assert_cmpuint(pages_dirty(bm, words), ==, 6);
    g_free(bm);
    /* Fetching cleared it. */
    bm = memory_region_fetch_dirty_log(&r);
    g_assert_cmpuint(pages_dirty(bm, words), ==, 0);
    g_free(bm);
    /* Host-pointer writers say what they wrote. */
    memset(ram + 0x3000, 1, 16);
    address_space_ram_written(&address_space_memory, BASE + 0x3000, 16);
    bm = memory_region_fetch_dirty_log(&r);
    g_assert_true(page_dirty(bm, 3));
    g_assert_cmpuint(pages_dirty(bm, words), ==, 1);
    g_free(bm);
    memory_region_set_log(&r, false);
    address_space_write_sized(&address_space_memory, BASE, 1, 1);
    g_assert_null(memory_region_fetch_dirty_log(&r));
    memory_region_finalize(&a);
    memory_region_finalize(&r);
    teardown();
}

/* --- access sizes (as before the tree) ---------------------------------- */

static void test_access_sizes(void)
{
    MemoryRegion b, l, r;
    MemoryRegion *root = address_space_root(&address_space_memory);

    setup();
    memory_region_init_io(&b, "b", &byte_ops, "b", 0x100);
    memory_region_init_io(&l, "l", &long_ops, "l", 0x100);
    g_assert_true(address_space_map_region(&address_space_memory, &b, BASE,
                                           NULL));
    g_assert_true(address_space_map_region(&address_space_memory, &l,
                                           BASE + 0x100, NULL));
    /* Wider than impl: split little-endian into what it implements. */
    address_space_write_sized(&address_space_memory, BASE + 4, 0x0a0b0c0d,
                              4);
    g_assert_cmpstr(io_log->str, ==, "b w1@4=d b w1@5=c b w1@6=b b w1@7=a ");
    g_string_truncate(io_log, 0);
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 2, 2), ==, 0x1122);
    g_assert_cmpstr(io_log->str, ==, "b r1@2 b r1@3 ");
    g_string_truncate(io_log, 0);
    /* Misaligned where the device does not take it: refused. */
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 1, 2), ==, 0xffff);
    g_assert_cmpstr(io_log->str, ==, "");
    g_string_truncate(io_log, 0);
    /* Wider than valid: refused, reads all-ones. */
    g_assert_cmphex(address_space_read_sized(&address_space_memory, BASE, 8),
                    ==, UINT64_MAX);
    /* Narrower than valid, or misaligned: refused. */
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 0x100, 1), ==, 0xff);
    address_space_write_sized(&address_space_memory, BASE + 0x102, 1, 4);
    g_assert_cmpstr(io_log->str, ==, "");
    address_space_write_sized(&address_space_memory, BASE + 0x104, 5, 4);
    g_assert_cmpstr(io_log->str, ==, "l w4@4=5 ");
    g_string_truncate(io_log, 0);
    /* Past the end of the device: refused. */
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 0xfe, 4), ==,
                    0xffffffffu);
    /*
     * A device partly hidden by a higher-priority region is not accessed
     * across its visible edge.
     */
    memory_region_init_ram_ptr(&r, "cover", 0x80, ram);
    g_assert_true(memory_region_add_subregion(root, BASE + 0x180, &r, 1,
                                              NULL));
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 0x17c, 4), ==,
                    0x11223344);
    g_assert_cmphex(address_space_read_sized(&address_space_memory,
                                             BASE + 0x180, 4), ==, 0);
    g_assert_cmpstr(io_log->str, ==, "l r4@7c ");
    memory_region_finalize(&r);
    memory_region_finalize(&l);
    memory_region_finalize(&b);
    teardown();
}

/* --- access attributes ------------------------------------------------- */

/* Reads give who asked: the vCPU's index + 1, or 0 for nobody. */
static uint64_t who_read(void *opaque, uint64_t addr, unsigned size,
                         MemTxAttrs attrs)
{
    return attrs.from_cpu ? attrs.cpu_index + 1 : 0;
}

static void who_write(void *opaque, uint64_t addr, uint64_t value,
                      unsigned size, MemTxAttrs attrs)
{
    g_string_append_printf(io_log, "w%u=%u ",
                           attrs.from_cpu ? attrs.cpu_index + 1 : 0,
                           (unsigned)value);
}

static const MemoryRegionOps who_ops = {
    .read_with_attrs = who_read,
    .write_with_attrs = who_write,
    .valid = { .min_access_size = 1, .max_access_size = 4 },
    .impl = { .min_access_size = 4, .max_access_size = 4 },
};

/* A device that answers per CPU (the APIC page) sees each access's maker. */
static void test_attrs(void)
{
    MemoryRegion w;

    setup();
    memory_region_init_io(&w, "who", &who_ops, NULL, 0x100);
    g_assert_true(address_space_map_region(&address_space_memory, &w, BASE,
                                           NULL));
    g_assert_cmpuint(address_space_read_sized_attrs(&address_space_memory,
                                                    BASE, 4,
                                                    MEMTXATTRS_CPU(2)),
                     ==, 3);
    g_assert_cmpuint(address_space_read_sized(&address_space_memory, BASE,
                                              4), ==, 0);
    /* Widened accesses keep them. */
    g_assert_cmpuint(address_space_read_sized_attrs(&address_space_memory,
                                                    BASE, 1,
                                                    MEMTXATTRS_CPU(0)),
                     ==, 1);
    address_space_write_sized_attrs(&address_space_memory, BASE, 7, 4,
                                    MEMTXATTRS_CPU(1));
    address_space_write_sized(&address_space_memory, BASE, 8, 4);
    g_assert_cmpstr(io_log->str, ==, "w2=7 w0=8 ");
    memory_region_finalize(&w);
    teardown();
}

/* --- info mtree --------------------------------------------------------- */

static void test_mtree(void)
{
    MemoryRegion r, c, bar, a;
    MemoryRegion *root = address_space_root(&address_space_memory);
    GString *out;

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_container(&c, "pci", 0x100000);
    memory_region_init_io(&bar, "bar", &dev_ops, "bar", 0x1000);
    memory_region_init_alias(&a, "hole", &c, 0x1000, 0x2000);
    g_assert_true(address_space_map_region(&address_space_memory, &r, BASE,
                                           NULL));
    g_assert_true(memory_region_add_subregion(&c, 0x2000, &bar, 0,
                                              NULL));
    g_assert_true(memory_region_add_subregion(root, BASE + 0x200000, &c, -1,
                                              NULL));
    g_assert_true(memory_region_add_subregion(root, BASE + 0x8000, &a, 1,
                                              NULL));
    memory_region_set_enabled(&bar, false);
    out = g_string_new(NULL);
    memory_info_mtree(out);
    g_assert_cmpstr(out->str, ==,
        "address-space: memory\n"
        "  0000000000000000-ffffffffffffffff (prio 0, i/o): system\n"
        "    0000000001000000-000000000100ffff (prio 0, ram): ram\n"
        "    0000000001008000-0000000001009fff (prio 1, i/o): alias hole "
        "@pci 0000000000001000-0000000000002fff\n"
        "    0000000001200000-00000000012fffff (prio -1, i/o): pci\n"
        "      0000000001202000-0000000001202fff (prio 0, i/o): bar "
        "[disabled]\n"
        "\n"
        "address-space: I/O\n"
        "  0000000000000000-000000000000ffff (prio 0, i/o): io\n");
    g_string_free(out, true);
    memory_region_finalize(&a);
    memory_region_finalize(&bar);
    memory_region_finalize(&c);
    memory_region_finalize(&r);
    teardown();
}

/*
 * A read-only alias shows RAM that the guest cannot write (the PAM's
 * "ROM" mode); listeners see the range read-only; changes inside a
 * transaction reach them once, at commit; memory_region_read_sized()
 * reads a tree that is mapped nowhere.
 */
static void test_readonly_transaction(void)
{
    Recorder rec = {
        .l = { .region_add = rec_add, .region_del = rec_del },
        .calls = g_string_new(NULL),
    };
    MemoryRegion r, ro, c, bar;
    MemoryRegionSection sec;

    setup();
    memory_region_init_ram_ptr(&r, "ram", RAM_SIZE, ram);
    memory_region_init_alias(&ro, "rom-window", &r, 0, 0x1000);
    memory_region_set_readonly(&ro, true);
    g_assert_true(address_space_map_region(&address_space_memory, &ro, BASE,
                                           NULL));
    ram[0x10] = 0x5a;
    g_assert_cmphex(rd8(BASE + 0x10), ==, 0x5a);
    address_space_write_sized(&address_space_memory, BASE + 0x10, 1, 1);
    g_assert_cmphex(ram[0x10], ==, 0x5a);
    g_assert_true(address_space_find(&address_space_memory, BASE, &sec));
    g_assert_true(sec.readonly);
    memory_region_set_readonly(&ro, false);
    address_space_write_sized(&address_space_memory, BASE + 0x10, 1, 1);
    g_assert_cmphex(ram[0x10], ==, 1);

    /* Two changes in a transaction: the listener hears of the result. */
    memory_listener_register(&rec.l, &address_space_memory);
    assert_calls(&rec, "add 0-fff ram+0\n");
    memory_region_transaction_begin();
    memory_region_set_readonly(&ro, true);
    memory_region_set_alias_offset(&ro, 0x1000);
    memory_region_set_alias_offset(&ro, 0x2000);
    assert_calls(&rec, "");
    memory_region_transaction_commit();
    assert_calls(&rec, "del 0-fff ram+0\nadd 0-fff ram+2000\n");
    g_assert_true(address_space_find(&address_space_memory, BASE, &sec));
    g_assert_true(sec.readonly);
    memory_listener_unregister(&rec.l);

    /* A container mapped nowhere, read through the API. */
    memory_region_init_container(&c, "pci", 0x100000);
    memory_region_init_io(&bar, "bar", &dev_ops, "bar", 0x1000);
    g_assert_true(memory_region_add_subregion(&c, 0x3000, &bar, 0, NULL));
    ram[0x2004] = 0x77;
    memory_region_finalize(&ro);
    memory_region_init_alias(&ro, "ram-in-pci", &r, 0x2000, 0x1000);
    g_assert_true(memory_region_add_subregion(&c, 0x8000, &ro, 0, NULL));
    g_assert_cmphex(memory_region_read_sized(&c, 0x8004, 1), ==, 0x77);
    g_assert_cmphex(memory_region_read_sized(&c, 0x0, 4), ==, 0xffffffff);
    memory_region_read_sized(&c, 0x3008, 4);
    g_assert_cmpstr(io_log->str, ==, "bar r4@8 ");
    memory_region_finalize(&ro);
    memory_region_finalize(&bar);
    memory_region_finalize(&c);
    memory_region_finalize(&r);
    g_string_free(rec.calls, true);
    teardown();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/memory/priority", test_priority);
    g_test_add_func("/memory/container", test_container);
    g_test_add_func("/memory/alias", test_alias);
    g_test_add_func("/memory/enable-move", test_enable_move);
    g_test_add_func("/memory/listener", test_listener);
    g_test_add_func("/memory/eventfd", test_eventfd);
    g_test_add_func("/memory/ram-written", test_ram_written);
    g_test_add_func("/memory/dirty-log", test_dirty_log);
    g_test_add_func("/memory/access-sizes", test_access_sizes);
    g_test_add_func("/memory/mtree", test_mtree);
    g_test_add_func("/memory/attrs", test_attrs);
    g_test_add_func("/memory/readonly-transaction",
                    test_readonly_transaction);
    return g_test_run();
}
