/*
 * qtest for virtio-balloon-pci through libqvirtio, with the emulator's
 * own memory as the kernel counts it (/proc/PID/status VmRSS, VmLck):
 * the test dirties guest pages with qtest memset, inflates the balloon
 * with their PFNs (or reports them free), and the emulator's RSS must
 * drop by them under -overcommit mem-lock=off, on and on-fault, with
 * VmLck unchanged (the pages are unlocked, discarded and locked again on
 * fault: without that, madvise fails on locked pages and RSS stays).
 * Also: QMP balloon/query-balloon and BALLOON_CHANGE, num_pages and
 * actual in the config, deflate, statistics through qom-get/qom-set of
 * guest-stats(-polling-interval), and PFNs outside RAM (ignored, logged,
 * the device keeps working).
 */
#include <string.h>

#include "libqvirtio.h"

#define BALLOON_DEVICE_ID   0x1045
#define RAM_MB              256
#define PAGES_ADDR          0x1000000ull    /* the PFN lists */
#define DIRTY_ADDR          0x4000000ull    /* 64 MiB the test dirties */
#define DIRTY_LEN           (64ull << 20)
#define F_STATS_VQ          (1ull << 1)
#define F_DEFLATE_ON_OOM    (1ull << 2)
#define F_REPORTING         (1ull << 5)

enum { Q_INFLATE, Q_DEFLATE, Q_STATS, Q_REPORTING, Q_MAX };

typedef struct Rig {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue vq[Q_MAX];
    QGuestAlloc alloc;
} Rig;

static void rig_start(Rig *r, const char *mem_lock, const char *dev_opts,
                      uint64_t features)
{
    unsigned nvqs = (features & F_REPORTING) ? 4 : 3;

    memset(r, 0, sizeof(*r));
    qpci_alloc_reset();
    r->s = qtest_initf("-nodefaults -m %d -overcommit mem-lock=%s "
                       "-device virtio-balloon-pci,id=balloon0%s", RAM_MB,
                       mem_lock, dev_opts);
    qalloc_init(&r->alloc, 0x100000, PAGES_ADDR);
    g_assert_true(qvirtio_pci_find(r->s, BALLOON_DEVICE_ID, &r->dev));
    g_assert_true(qvirtio_negotiate(&r->dev, QVIRTIO_F_VERSION_1 | features));
    for (unsigned i = 0; i < nvqs; i++) {
        qvirtqueue_setup(&r->dev, &r->vq[i], &r->alloc, i, 0);
    }
    qvirtio_set_driver_ok(&r->dev);
}

/* A /proc/PID/status figure of the emulator, in KiB. */
static uint64_t status_kib(Rig *r, const char *key)
{
    g_autofree char *path = g_strdup_printf("/proc/%d/status",
                                            (int)qtest_pid(r->s));
    g_autofree char *text = NULL;
    const char *line;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    line = strstr(text, key);
    g_assert_nonnull(line);
    return g_ascii_strtoull(line + strlen(key) + 1, NULL, 10);
}

static void wait_used(Rig *r, QVirtQueue *vq)
{
    for (int i = 0; !qvirtqueue_get_buf(&r->dev, vq, NULL, NULL); i++) {
        g_assert_cmpint(i, <, 5000);
        g_usleep(1000);
    }
}

/* Send n PFNs from first on, one buffer, and wait for it to be used. */
static void push_pfns(Rig *r, unsigned q, const uint32_t *pfns, unsigned n)
{
    uint16_t head;

    qtest_memwrite(r->s, PAGES_ADDR, pfns, n * 4ull);
    head = qvirtqueue_add(&r->dev, &r->vq[q], PAGES_ADDR, n * 4, false,
                          false);
    qvirtqueue_kick(&r->dev, &r->vq[q], head);
    wait_used(r, &r->vq[q]);
}

static void push_range(Rig *r, unsigned q, uint64_t addr, uint64_t len)
{
    g_autofree uint32_t *pfns = g_new(uint32_t, len >> 12);

    for (uint64_t i = 0; i < len >> 12; i++) {
        pfns[i] = (uint32_t)((addr >> 12) + i);
    }
    push_pfns(r, q, pfns, len >> 12);
}

static bool needs_reset(Rig *r)
{
    return qvirtio_get_status(&r->dev) & QVIRTIO_NEEDS_RESET;
}

/* At least 90% of what the guest gave back left the process. */
static void assert_returned(uint64_t before_kib, uint64_t after_kib,
                            uint64_t len)
{
    g_test_message("VmRSS %" G_GUINT64_FORMAT " -> %" G_GUINT64_FORMAT
                   " KiB", before_kib, after_kib);
    g_assert_cmpuint(after_kib, <, before_kib);
    g_assert_cmpuint(before_kib - after_kib, >=, len / 1024 * 9 / 10);
}

/*
 * Without MLOCK_ONFAULT (-Dmcl_onfault=disabled, Linux < 4.4) locked
 * memory that is discarded is locked again whole, so nothing comes back
 * (docs/overcommit.md); such a build also refuses mem-lock=on-fault,
 * which is how the test tells.
 */
static bool have_lock_on_fault(void)
{
    static int known = -1;

    if (known < 0) {
        g_autofree char *cmd = g_strdup_printf(
            "echo '{\"execute\": \"qmp_capabilities\"}"
            "{\"execute\": \"quit\"}' | %s -machine none -accel qtest "
            "-display none -overcommit mem-lock=on-fault -qmp stdio "
            ">/dev/null 2>&1", g_getenv("QTEST_QEMU_BINARY"));
        char *argv[] = { (char *)"sh", (char *)"-c", cmd, NULL };
        int status = -1;

        g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH,
                                   NULL, NULL, NULL, NULL, &status, NULL));
        known = g_spawn_check_wait_status(status, NULL);
    }
    return known;
}

static bool skip_locked(const char *mode)
{
    if (strcmp(mode, "off") && !have_lock_on_fault()) {
        g_test_skip("this build locks discarded memory again whole "
                    "(no MLOCK_ONFAULT): nothing comes back under mem-lock");
        return true;
    }
    return false;
}

/*
 * VmLck counts locked mappings, resident or not: it must not lose the
 * discarded range (64 MiB without the relock). The emulator's own heap
 * may grow a little meanwhile, and is locked too.
 */
static void assert_lock_kept(uint64_t before_kib, uint64_t now_kib)
{
    g_assert_cmpuint(now_kib + 1024, >=, before_kib);
    g_assert_cmpuint(now_kib, <=, before_kib + 8192);
}

/*
 * Dirty 64 MiB, inflate by its PFNs: RSS drops, VmLck stays; the pages
 * read as zeros; deflated and written again they come back.
 */
static void test_inflate(const void *data)
{
    const char *mode = data;
    bool locked = strcmp(mode, "off") != 0;
    uint64_t rss0, rss1, lck0 = 0, lck1;
    Rig r;

    if (skip_locked(mode)) {
        return;
    }
    rig_start(&r, mode, "", F_STATS_VQ);
    /* One page more, to see that the neighbour keeps its contents. */
    qtest_memset(r.s, DIRTY_ADDR, 0x5a, DIRTY_LEN + 4096);
    rss0 = status_kib(&r, "VmRSS");
    if (locked) {
        lck0 = status_kib(&r, "VmLck");
        if (!lck0) {
            /* An ASan build: its mlockall() interceptor does nothing. */
            g_test_skip("the emulator locked nothing (ASan build?)");
            qtest_quit(r.s);
            return;
        }
        g_assert_cmpuint(lck0, >=, RAM_MB * 1024);
    }
    push_range(&r, Q_INFLATE, DIRTY_ADDR, DIRTY_LEN);
    rss1 = status_kib(&r, "VmRSS");
    assert_returned(rss0, rss1, DIRTY_LEN);
    if (locked) {
        lck1 = status_kib(&r, "VmLck");
        assert_lock_kept(lck0, lck1);
    }
    g_assert_cmphex(qtest_readb(r.s, DIRTY_ADDR), ==, 0);
    g_assert_cmphex(qtest_readb(r.s, DIRTY_ADDR + DIRTY_LEN - 1), ==, 0);
    g_assert_cmphex(qtest_readb(r.s, DIRTY_ADDR + DIRTY_LEN), ==, 0x5a);
    g_assert_false(needs_reset(&r));

    /* Deflate: the guest may use them again, and they come back. */
    push_range(&r, Q_DEFLATE, DIRTY_ADDR, DIRTY_LEN);
    qtest_memset(r.s, DIRTY_ADDR, 0x33, DIRTY_LEN);
    g_assert_cmpuint(status_kib(&r, "VmRSS"), >=,
                     rss1 + DIRTY_LEN / 1024 * 9 / 10);
    if (locked) {
        assert_lock_kept(lck0, status_kib(&r, "VmLck"));
    }
    g_assert_false(needs_reset(&r));
    qtest_quit(r.s);
}

/* Free page reporting: each writable buffer is a free range to drop. */
static void test_report(const void *data)
{
    const char *mode = data;
    uint64_t rss0, rss1, half = DIRTY_LEN / 2;
    uint16_t head;
    Rig r;

    if (skip_locked(mode)) {
        return;
    }
    rig_start(&r, mode, ",free-page-reporting=on", F_REPORTING);
    g_assert_true(qvirtio_get_features(&r.dev) & F_REPORTING);
    qtest_memset(r.s, DIRTY_ADDR, 0x5a, DIRTY_LEN);
    rss0 = status_kib(&r, "VmRSS");
    /* Two 32 MiB ranges in one report, as the driver sends them. */
    head = qvirtqueue_add(&r.dev, &r.vq[Q_REPORTING], DIRTY_ADDR, half,
                          true, true);
    qvirtqueue_add(&r.dev, &r.vq[Q_REPORTING], DIRTY_ADDR + half, half,
                   true, false);
    qvirtqueue_kick(&r.dev, &r.vq[Q_REPORTING], head);
    wait_used(&r, &r.vq[Q_REPORTING]);
    rss1 = status_kib(&r, "VmRSS");
    assert_returned(rss0, rss1, DIRTY_LEN);
    if (strcmp(mode, "off") && status_kib(&r, "VmLck")) {
        g_assert_cmpuint(status_kib(&r, "VmLck"), >=, RAM_MB * 1024);
    }
    g_assert_cmphex(qtest_readb(r.s, DIRTY_ADDR + half), ==, 0);
    g_assert_false(needs_reset(&r));
    qtest_quit(r.s);
}

/* PFNs outside guest RAM are skipped; the device keeps working. */
static void test_bad_pfns(void)
{
    static const uint32_t bad[] = {
        0xffffffff,             /* far above RAM */
        0xfee00,                /* the local APIC */
        (RAM_MB << 20) >> 12,   /* the first page after RAM */
        0xfffff,                /* the BIOS ROM's last page */
    };
    Rig r;

    rig_start(&r, "off", "", 0);
    push_pfns(&r, Q_INFLATE, bad, G_N_ELEMENTS(bad));
    g_assert_false(needs_reset(&r));
    /* A list that is not whole PFNs: the tail is ignored. */
    qtest_writel(r.s, DIRTY_ADDR, 0x5a5a5a5a);
    {
        uint32_t pfn = DIRTY_ADDR >> 12;
        uint16_t head;

        qtest_memwrite(r.s, PAGES_ADDR, &pfn, 4);
        head = qvirtqueue_add(&r.dev, &r.vq[Q_INFLATE], PAGES_ADDR, 6,
                              false, false);
        qvirtqueue_kick(&r.dev, &r.vq[Q_INFLATE], head);
        wait_used(&r, &r.vq[Q_INFLATE]);
    }
    g_assert_cmphex(qtest_readl(r.s, DIRTY_ADDR), ==, 0);
    g_assert_false(needs_reset(&r));
    /* Still works. */
    push_range(&r, Q_INFLATE, DIRTY_ADDR, 0x10000);
    g_assert_false(needs_reset(&r));
    qtest_quit(r.s);
}

static int64_t query_actual(Rig *r)
{
    JsonNode *rep = qtest_qmp(r->s, "{\"execute\": \"query-balloon\"}");
    int64_t v = json_object_get_int_member(qdict_get_qdict(rep, "return"),
                                           "actual");

    json_node_unref(rep);
    return v;
}

static void test_target_and_actual(void)
{
    Rig r;
    JsonNode *rep, *ev;
    uint8_t gen;

    rig_start(&r, "off", ",deflate-on-oom=on", F_DEFLATE_ON_OOM);
    g_assert_true(qvirtio_get_features(&r.dev) & F_DEFLATE_ON_OOM);
    g_assert_true(qvirtio_get_features(&r.dev) & F_STATS_VQ);
    g_assert_false(qvirtio_get_features(&r.dev) & F_REPORTING);
    g_assert_cmpuint(qvirtio_config_readl(&r.dev, 0), ==, 0);
    g_assert_cmpint(query_actual(&r), ==, RAM_MB << 20);

    gen = qvirtio_config_generation(&r.dev);
    rep = qtest_qmp(r.s, "{\"execute\": \"balloon\", \"arguments\": "
                    "{\"value\": %d}}", 64 << 20);
    g_assert_false(qtest_qmp_has_error(rep));
    json_node_unref(rep);
    /* num_pages: what the guest should give, in 4 KiB pages. */
    g_assert_cmpuint(qvirtio_config_readl(&r.dev, 0), ==,
                     (RAM_MB - 64) << 8);
    g_assert_cmpuint(qvirtio_config_generation(&r.dev), !=, gen);
    /* Above the RAM size: nothing to give. */
    rep = qtest_qmp(r.s, "{\"execute\": \"balloon\", \"arguments\": "
                    "{\"value\": %lld}}", 1ll << 40);
    g_assert_false(qtest_qmp_has_error(rep));
    json_node_unref(rep);
    g_assert_cmpuint(qvirtio_config_readl(&r.dev, 0), ==, 0);
    rep = qtest_qmp(r.s, "{\"execute\": \"balloon\", \"arguments\": "
                    "{\"value\": 0}}");
    g_assert_cmpstr(json_object_get_string_member(
                        qdict_get_qdict(rep, "error"), "desc"), ==,
                    "Parameter 'target' expects a size");
    json_node_unref(rep);

    /* The driver says it holds 1000 pages: an event and the new size. */
    qvirtio_config_writel(&r.dev, 4, 1000);
    ev = qtest_qmp_eventwait_ref(r.s, "BALLOON_CHANGE");
    g_assert_cmpint(json_object_get_int_member(qdict_get_qdict(ev, "data"),
                                               "actual"), ==,
                    (RAM_MB << 20) - 1000 * 4096ll);
    json_node_unref(ev);
    g_assert_cmpuint(qvirtio_config_readl(&r.dev, 4), ==, 1000);
    g_assert_cmpint(query_actual(&r), ==, (RAM_MB << 20) - 1000 * 4096ll);
    /*
     * At most one event a second: a change within it is held back and
     * sent (the latest) when the second is over.
     */
    qvirtio_config_writel(&r.dev, 4, 2000);
    qvirtio_config_writel(&r.dev, 4, 3000);
    g_assert_cmpint(query_actual(&r), ==, (RAM_MB << 20) - 3000 * 4096ll);
    qtest_clock_step(r.s, 999000000ll);
    rep = qtest_qmp(r.s, "{\"execute\": \"query-balloon\"}");
    json_node_unref(rep);
    qtest_clock_step(r.s, 2000000ll);
    ev = qtest_qmp_eventwait_ref(r.s, "BALLOON_CHANGE");
    g_assert_cmpint(json_object_get_int_member(qdict_get_qdict(ev, "data"),
                                               "actual"), ==,
                    (RAM_MB << 20) - 3000 * 4096ll);
    json_node_unref(ev);
    /* HMP: sizes in MiB. */
    {
        g_autofree char *info = qtest_hmp(r.s, "info balloon");
        g_autofree char *set = qtest_hmp(r.s, "balloon 200");
        g_autofree char *bad = qtest_hmp(r.s, "balloon x");

        g_assert_cmpstr(info, ==, "balloon: actual=244\r\n");
        g_assert_cmpstr(set, ==, "");
        g_assert_cmpuint(qvirtio_config_readl(&r.dev, 0), ==,
                         (RAM_MB - 200) << 8);
        g_assert_cmpstr(bad, ==, "invalid char 'x' in expression\r\n"
                        "Try \"help balloon\" for more information\r\n");
        g_free(qtest_hmp(r.s, "balloon %d", 1 << 20));  /* all of it */
    }
    /* num_pages is the device's: a driver write does not change it. */
    qvirtio_config_writel(&r.dev, 0, 77);
    g_assert_cmpuint(qvirtio_config_readl(&r.dev, 0), ==, 0);
    qtest_quit(r.s);
}

static void test_no_balloon(void)
{
    QTestState *s = qtest_init("-nodefaults");
    static const char *const cmds[] = {
        "{\"execute\": \"balloon\", \"arguments\": {\"value\": 1048576}}",
        "{\"execute\": \"query-balloon\"}",
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(cmds); i++) {
        JsonNode *rep = qtest_qmp(s, "%s", cmds[i]);
        JsonObject *err = qdict_get_qdict(rep, "error");

        g_assert_nonnull(err);
        g_assert_cmpstr(json_object_get_string_member(err, "class"), ==,
                        "DeviceNotActive");
        g_assert_cmpstr(json_object_get_string_member(err, "desc"), ==,
                        "No balloon device has been activated");
        json_node_unref(rep);
    }
    {
        g_autofree char *out = qtest_hmp(s, "info balloon");

        g_assert_cmpstr(out, ==, "Error: No balloon device has been "
                        "activated\r\n");
    }
    qtest_quit(s);
}

static JsonNode *qom_get(Rig *r, const char *prop)
{
    return qtest_qmp(r->s, "{\"execute\": \"qom-get\", \"arguments\": "
                     "{\"path\": \"/machine/peripheral/balloon0\", "
                     "\"property\": \"%s\"}}", prop);
}

/* One statistics buffer: (le16 tag, le64 value) pairs. */
static void push_stats(Rig *r, uint64_t free_mem)
{
    uint8_t buf[20];
    uint16_t tag;
    uint64_t v;
    uint16_t head;

    tag = 4;                            /* free memory */
    memcpy(buf, &tag, 2);
    memcpy(buf + 2, &free_mem, 8);
    tag = 0x7777;                       /* unknown: ignored */
    v = 1;
    memcpy(buf + 10, &tag, 2);
    memcpy(buf + 12, &v, 8);
    qtest_memwrite(r->s, PAGES_ADDR, buf, sizeof(buf));
    head = qvirtqueue_add(&r->dev, &r->vq[Q_STATS], PAGES_ADDR, sizeof(buf),
                          false, false);
    qvirtqueue_kick(&r->dev, &r->vq[Q_STATS], head);
}

static void test_stats(void)
{
    Rig r;
    JsonNode *rep;
    JsonObject *o, *stats;

    rig_start(&r, "off", "", F_STATS_VQ);
    rep = qtest_qmp(r.s, "{\"execute\": \"qom-set\", \"arguments\": "
                    "{\"path\": \"/machine/peripheral/balloon0\", "
                    "\"property\": \"guest-stats-polling-interval\", "
                    "\"value\": -1}}");
    g_assert_cmpstr(json_object_get_string_member(
                        qdict_get_qdict(rep, "error"), "desc"), ==,
                    "timer value must be greater than zero");
    json_node_unref(rep);
    rep = qtest_qmp(r.s, "{\"execute\": \"qom-set\", \"arguments\": "
                    "{\"path\": \"/machine/peripheral/balloon0\", "
                    "\"property\": \"guest-stats-polling-interval\", "
                    "\"value\": 2}}");
    g_assert_false(qtest_qmp_has_error(rep));
    json_node_unref(rep);
    rep = qom_get(&r, "guest-stats-polling-interval");
    g_assert_cmpint(json_node_get_int(json_object_get_member(
                        json_node_get_object(rep), "return")), ==, 2);
    json_node_unref(rep);

    push_stats(&r, 123456789);
    for (int i = 0;; i++) {
        g_assert_cmpint(i, <, 5000);
        rep = qom_get(&r, "guest-stats");
        o = qdict_get_qdict(rep, "return");
        stats = json_object_get_object_member(o, "stats");
        if (json_object_get_int_member(stats, "stat-free-memory") ==
            123456789) {
            break;
        }
        json_node_unref(rep);
        g_usleep(1000);
    }
    g_assert_cmpint(json_object_get_int_member(stats, "stat-swap-in"), ==,
                    -1);
    g_assert_cmpint(json_object_get_int_member(o, "last-update"), >, 0);
    json_node_unref(rep);
    /* The device holds the buffer until the period is up. */
    g_usleep(20000);
    g_assert_false(qvirtqueue_get_buf(&r.dev, &r.vq[Q_STATS], NULL, NULL));
    qtest_clock_step(r.s, 2000000000ll);
    wait_used(&r, &r.vq[Q_STATS]);
    /* The driver's refill is taken again. */
    push_stats(&r, 42);
    for (int i = 0;; i++) {
        int64_t v;

        g_assert_cmpint(i, <, 5000);
        rep = qom_get(&r, "guest-stats");
        v = json_object_get_int_member(json_object_get_object_member(
                qdict_get_qdict(rep, "return"), "stats"),
                "stat-free-memory");
        json_node_unref(rep);
        if (v == 42) {
            break;
        }
        g_usleep(1000);
    }
    g_assert_false(needs_reset(&r));
    qtest_quit(r.s);
}

int main(int argc, char **argv)
{
    static const char *const modes[] = { "off", "on", "on-fault" };

    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(modes); i++) {
        g_autofree char *inflate = g_strdup_printf(
            "/virtio-balloon/inflate/mem-lock-%s", modes[i]);
        g_autofree char *report = g_strdup_printf(
            "/virtio-balloon/free-page-report/mem-lock-%s", modes[i]);

        qtest_add_data_func(inflate, modes[i], test_inflate);
        qtest_add_data_func(report, modes[i], test_report);
    }
    qtest_add_func("/virtio-balloon/bad-pfns", test_bad_pfns);
    qtest_add_func("/virtio-balloon/target-actual", test_target_and_actual);
    qtest_add_func("/virtio-balloon/no-balloon", test_no_balloon);
    qtest_add_func("/virtio-balloon/stats", test_stats);
    return g_test_run();
}
