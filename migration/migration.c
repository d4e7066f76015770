/*
 * Live migration: the QMP commands, the outgoing thread (precopy RAM,
 * the switch-over, the device state) and the incoming thread (load, then
 * run or exit 1). Status changes, events and run-state changes happen
 * with the big lock; the transfer itself runs without it.
 *
 * Source:  setup -> active (passes over dirty RAM) -> [pre-switchover]
 *          -> device -> completed (run state postmigrate), or failed /
 *          cancelling -> cancelled (the VM runs on). With postcopy-ram,
 *          migrate-start-postcopy turns active into postcopy-active: the
 *          VM stops for good, its state goes over, the rest of RAM
 *          follows (asked-for pages first) -> completed, or failed (the
 *          VM stays stopped: the destination ran it).
 * Destination: inmigrate -> active -> completed (runs, or paused with
 *          -S), or failed: one line on stderr and exit status 1. In
 *          postcopy it runs from postcopy-active on (postcopy-ram.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "migration/migration.h"
#include "migration/postcopy-ram.h"
#include "migration/ram-handover.h"
#include "migration/ram-stream.h"
#include "migration/savevm.h"
#include "migration/stream.h"
#include "migration/transport.h"
#include "qapi/qapi-visit.h"
#include "qapi/qapi-commands.h"
#include "qapi/qapi-types.h"
#include "qemu/timer.h"
#include "system/cpus.h"
#include "system/runstate.h"

#define DEFAULT_MAX_BANDWIDTH   (128ull << 20)  /* bytes/s, as QEMU */
#define DEFAULT_DOWNTIME_MS     300
#define MAX_DOWNTIME_MS         2000000
#define THROTTLE_SLICE_NS       (100 * 1000 * 1000ll)

typedef struct MigrationState {
    MigrationStatus status;
    MigChannel ch;
    MigStream *stream;
    GThread *thread;
    int cancel_pipe[2];         /* [0] polled by the stream, [1] written */
    bool cancel;
    bool continue_requested;
    GCond continue_cond;
    RamStats ram;
    int64_t start_ns, end_ns, setup_ns, downtime_ms, expected_downtime_ms;
    double mbps;
    uint64_t pages_per_second;
    int64_t slice_start_ns;     /* bandwidth limit: the current window */
    uint64_t slice_start_bytes;
    uint64_t window_bw;         /* the max-bandwidth it started with */
    char *error;
    bool was_running;
    bool postcopy_requested;    /* migrate-start-postcopy came */
    bool postcopy;              /* past the postcopy switch-over */
    bool handover_unsure;       /* cancelled awaiting the destination's ack */
} MigrationState;

static MigrationState out = { .cancel_pipe = { -1, -1 } };

static struct {
    MigrationStatus status;
    MigChannel ch;
    GThread *thread;
    int cancel_pipe[2];
    bool deferred;              /* -incoming defer, migrate-incoming due */
    bool started;
    bool postcopy;              /* running since postcopy's RUN */
} in = { .cancel_pipe = { -1, -1 } };

static bool caps[MIGRATION_CAPABILITY__MAX];
static uint64_t max_bandwidth = DEFAULT_MAX_BANDWIDTH;
static uint64_t max_postcopy_bandwidth;     /* 0: no limit, as QEMU */
static uint64_t downtime_limit_ms = DEFAULT_DOWNTIME_MS;

static int64_t now_ns(void)
{
    return qemu_clock_get_ns(QEMU_CLOCK_REALTIME);
}

static void set_status(MigrationStatus *where, MigrationStatus status)
{
    *where = status;
    if (caps[MIGRATION_CAPABILITY_EVENTS]) {
        qapi_event_send_migration(status);
    }
}

static bool cancel_pipe_open(int p[2], Error **errp)
{
    if (p[0] >= 0) {
        return true;
    }
    if (pipe2(p, O_CLOEXEC) < 0) {
        error_setg_errno(errp, errno, "cannot make a pipe");
        return false;
    }
    return true;
}

static void cancel_pipe_close(int p[2])
{
    for (int i = 0; i < 2; i++) {
        if (p[i] >= 0) {
            close(p[i]);
            p[i] = -1;
        }
    }
}

static void cancel_pipe_kick(int p[2])
{
    if (p[1] >= 0 && write(p[1], "x", 1) < 0) {
        /* Already kicked: the pipe holds a byte. */
    }
}

static bool out_active(void)
{
    switch (out.status) {
    case MIGRATION_STATUS_SETUP:
    case MIGRATION_STATUS_ACTIVE:
    case MIGRATION_STATUS_PRE_SWITCHOVER:
    case MIGRATION_STATUS_DEVICE:
    case MIGRATION_STATUS_CANCELLING:
    case MIGRATION_STATUS_POSTCOPY_ACTIVE:
        return true;
    default:
        return false;
    }
}

/* --- outgoing -------------------------------------------------------- */

static bool out_postcopy_due(MigrationState *m)
{
    return __atomic_load_n(&m->postcopy_requested, __ATOMIC_ACQUIRE) &&
           !__atomic_load_n(&m->cancel, __ATOMIC_ACQUIRE);
}

/*
 * Wait wait_ns before the next section; in postcopy, serve the
 * destination's page requests meanwhile (they are never held back).
 */
static bool out_wait(MigrationState *m, int64_t wait_ns)
{
    if (m->postcopy) {
        return postcopy_source_serve(m->stream, &m->ram, wait_ns / 1000);
    }
    if (wait_ns) {
        g_usleep(wait_ns / 1000);
    }
    return true;
}

/*
 * After each RAM section: stop when cancelled (or, in precopy, when
 * postcopy was asked for), and keep what was sent since the window
 * began within max-bandwidth (max-postcopy-bandwidth once in postcopy;
 * a token bucket holding at most one 100 ms slice of credit). A new
 * limit starts a new window.
 */
static bool out_throttle(void *opaque)
{
    MigrationState *m = opaque;

    for (;;) {
        uint64_t bw = __atomic_load_n(m->postcopy ? &max_postcopy_bandwidth
                                      : &max_bandwidth, __ATOMIC_RELAXED);
        int64_t t = now_ns(), elapsed, wait_ns;
        uint64_t sent, allowed;

        if (__atomic_load_n(&m->cancel, __ATOMIC_ACQUIRE) ||
            (!m->postcopy && out_postcopy_due(m))) {
            return false;
        }
        if (!out_wait(m, 0)) {
            return false;
        }
        if (!bw) {
            return true;        /* 0: no limit */
        }
        if (bw != m->window_bw) {
            m->window_bw = bw;
            m->slice_start_ns = t;
            m->slice_start_bytes = m->stream->bytes;
        }
        elapsed = t - m->slice_start_ns;
        sent = m->stream->bytes - m->slice_start_bytes;
        allowed = (uint64_t)((double)bw * (elapsed + THROTTLE_SLICE_NS) /
                             1e9);
        if (sent <= allowed) {
            return true;
        }
        wait_ns = (int64_t)((double)(sent - allowed) * 1e9 / bw);
        if (!out_wait(m, MAX(MIN(wait_ns, THROTTLE_SLICE_NS), 1000000))) {
            return false;
        }
    }
}

static void out_fail(MigrationState *m, const char *why)
{
    if (!m->error) {
        m->error = g_strdup(why);
    }
}

/* With the big lock held: wait for migrate-continue (or a cancel). */
static void out_pause_before_switchover(MigrationState *m)
{
    set_status(&m->status, MIGRATION_STATUS_PRE_SWITCHOVER);
    while (!m->continue_requested && !m->cancel) {
        bql_cond_wait(&m->continue_cond);
    }
    m->continue_requested = false;
}

/*
 * RAM handed over: done only once the destination has loaded it all
 * (without its word it exited, and the guest runs on here). A cancel
 * meanwhile leaves it unknown whether the destination runs the guest:
 * then it never runs here again.
 */
static bool out_wait_ack(MigrationState *m)
{
    bool cancelled;

    bql_unlock();
    if (mig_stream_wait_ack(m->stream, &cancelled)) {
        bql_lock();
        return true;
    }
    bql_lock();
    m->handover_unsure = cancelled;
    out_fail(m, cancelled ? "cancelled while the destination loaded the "
             "state; it may run the guest, so this side does not" :
             "the destination did not load the state (see its log)");
    return false;
}

/* The last dirty pages, the state sections and the end marker. */
static bool out_complete(MigrationState *m)
{
    Error *err = NULL;

    set_status(&m->status, MIGRATION_STATUS_DEVICE);
    /*
     * Block requests complete (their data lands in guest RAM, so before
     * the last sync) and the images are flushed: nothing is in flight
     * when the devices are saved, and the destination reads it all.
     */
    if (!runstate_drain(&err)) {
        out_fail(m, error_get_pretty(err));
        error_free(err);
        return false;
    }
    /* Flushed: the destination may take the image locks after its load. */
    runstate_inactivate_images();
    ram_save_sync(&m->ram);
    if (!ram_save_pass(m->stream, &m->ram, NULL, NULL)) {
        out_fail(m, "writing RAM failed");
        return false;
    }
    if (!savevm_save_state(m->stream, &err)) {
        out_fail(m, error_get_pretty(err));
        error_free(err);
        return false;
    }
    if (!mig_section_write(m->stream, MIG_SEC_END, "", 0, 0, NULL, 0) ||
        !mig_stream_flush(m->stream)) {
        out_fail(m, "writing the end of the stream failed");
        return false;
    }
    return !ram_handover_count() || out_wait_ack(m);
}

/*
 * With the big lock and the VM stopped: the switch-over, then (without
 * the lock) the rest of RAM with the requests first, then the end.
 */
static bool out_postcopy(MigrationState *m, int64_t stop_ns)
{
    Error *err = NULL;
    bool ok;

    m->postcopy = true;         /* from here on the VM is the destination's */
    /* As before a precopy's last pass: nothing in flight, images flushed. */
    if (!runstate_drain(&err)) {
        out_fail(m, error_get_pretty(err));
        error_free(err);
        return false;
    }
    runstate_inactivate_images();
    ram_save_sync(&m->ram);
    if (!postcopy_source_start(m->ch.fd, &err) ||
        !postcopy_save_switchover(m->stream, &err)) {
        out_fail(m, error_get_pretty(err));
        error_free(err);
        postcopy_source_stop();
        return false;
    }
    m->downtime_ms = (now_ns() - stop_ns) / 1000000;
    m->slice_start_ns = now_ns();
    m->slice_start_bytes = m->stream->bytes;
    m->window_bw = max_postcopy_bandwidth;
    set_status(&m->status, MIGRATION_STATUS_POSTCOPY_ACTIVE);
    bql_unlock();
    ok = ram_save_pass(m->stream, &m->ram, out_throttle, m) &&
         mig_section_write(m->stream, MIG_SEC_END, "", 0, 0, NULL, 0) &&
         mig_stream_flush(m->stream);
    if (!ok) {
        const char *why = postcopy_source_error();
        char *msg = g_strdup_printf("postcopy: %s", m->cancel ? "cancelled: "
                                    "the destination cannot go on" :
                                    why ? why : "writing to the destination "
                                    "failed");

        out_fail(m, msg);
        g_free(msg);
    } else {
        m->ram.remaining = 0;
    }
    postcopy_source_stop();
    bql_lock();
    return ok;
}

/* x-ignore-shared: hand the shared RAM over instead of sending it. */
static bool out_handover(MigrationState *m)
{
    Error *err = NULL;

    if (!ram_handover_save(m->stream, &err)) {
        out_fail(m, error_get_pretty(err));
        error_free(err);
        return false;
    }
    return true;
}

/*
 * Take the image locks (with the big lock); false, having said why, when
 * another process holds one: the VM then stays paused, as QEMU leaves it,
 * and `cont` tries again.
 */
static bool activate_images(const char *what)
{
    Error *err = NULL;

    if (runstate_activate_images(&err)) {
        return true;
    }
    error_report("%s: %s", what, error_get_pretty(err));
    error_free(err);
    return false;
}

static gpointer out_thread(gpointer opaque)
{
    MigrationState *m = opaque;
    bool ok;

    bql_lock();
    ok = mig_stream_write_header(m->stream) &&
         (!caps[MIGRATION_CAPABILITY_X_IGNORE_SHARED] ||
          out_handover(m)) &&
         ram_save_setup(m->stream, &m->ram) &&
         (!caps[MIGRATION_CAPABILITY_POSTCOPY_RAM] ||
          mig_section_write(m->stream, MIG_SEC_POSTCOPY_ADVISE, "postcopy",
                            0, 1, NULL, 0));
    m->setup_ns = now_ns() - m->start_ns;
    if (ok) {
        set_status(&m->status, MIGRATION_STATUS_ACTIVE);
    }
    bql_unlock();

    m->slice_start_ns = now_ns();
    m->slice_start_bytes = m->stream->bytes;
    m->window_bw = max_bandwidth;
    while (ok) {
        int64_t pass_start = now_ns(), pass_ns;
        uint64_t pass_bytes = m->stream->bytes, bw;
        uint64_t pages = m->ram.normal + m->ram.duplicate;

        bql_lock();
        if (caps[MIGRATION_CAPABILITY_EVENTS]) {
            qapi_event_send_migration_pass(m->ram.dirty_sync_count + 1);
        }
        bql_unlock();
        ok = ram_save_pass(m->stream, &m->ram, out_throttle, m);
        if (out_postcopy_due(m)) {
            ok = !m->stream->error;
            break;
        }
        if (!ok) {
            break;
        }
        bql_lock();
        ram_save_sync(&m->ram);
        bql_unlock();
        pass_ns = MAX(now_ns() - pass_start, 1);
        pass_bytes = m->stream->bytes - pass_bytes;
        bw = (uint64_t)((double)pass_bytes * 1e9 / pass_ns);
        bw = MAX(max_bandwidth ? MIN(bw, max_bandwidth) : bw, 1);
        m->mbps = (double)pass_bytes * 8 * 1000 / pass_ns;
        m->pages_per_second = (m->ram.normal + m->ram.duplicate - pages) *
                              1000000000ull / pass_ns;
        m->expected_downtime_ms = m->ram.remaining * 1000 / bw;
        if ((uint64_t)m->expected_downtime_ms <= downtime_limit_ms ||
            out_postcopy_due(m)) {
            break;
        }
    }

    bql_lock();
    if (ok && !m->cancel) {
        int64_t stop_ns = now_ns();

        m->was_running = runstate_is_running();
        vm_stop(RUN_STATE_FINISH_MIGRATE);
        if (caps[MIGRATION_CAPABILITY_PAUSE_BEFORE_SWITCHOVER]) {
            out_pause_before_switchover(m);
        }
        if (out_postcopy_due(m)) {
            ok = out_postcopy(m, stop_ns);
        } else {
            ok = !m->cancel && out_complete(m);
            m->downtime_ms = (now_ns() - stop_ns) / 1000000;
        }
    } else {
        ok = false;
    }
    ram_save_cleanup();
    ram_handover_save_end(ok);
    m->end_ns = now_ns();
    /* The destination sees the end of the stream now, whatever happened. */
    mig_channel_close(&m->ch);
    if (ok) {
        set_status(&m->status, MIGRATION_STATUS_COMPLETED);
        runstate_set(RUN_STATE_POSTMIGRATE);
    } else if (m->postcopy || m->handover_unsure) {
        /* The destination ran the VM: never run it here again. */
        set_status(&m->status, MIGRATION_STATUS_FAILED);
        runstate_set(RUN_STATE_POSTMIGRATE);
    } else {
        if (m->cancel) {
            set_status(&m->status, MIGRATION_STATUS_CANCELLED);
        } else {
            out_fail(m, m->stream->error ? "writing to the destination "
                     "failed" : "migration failed");
            set_status(&m->status, MIGRATION_STATUS_FAILED);
        }
        if (!activate_images("the source could not take its image locks "
                             "back")) {
            m->was_running = false;     /* paused: `cont` tries again */
        }
        if (m->was_running && runstate_get() == RUN_STATE_FINISH_MIGRATE) {
            vm_start();
        } else if (runstate_get() == RUN_STATE_FINISH_MIGRATE) {
            runstate_set(RUN_STATE_PAUSED);
        }
    }
    bql_unlock();
    return NULL;
}

/* Join a finished thread and free what the last migration held. */
static void out_reap(void)
{
    if (out.thread) {
        bool locked = bql_locked();

        if (locked) {
            bql_unlock();
        }
        g_thread_join(out.thread);
        if (locked) {
            bql_lock();
        }
        out.thread = NULL;
    }
    mig_channel_close(&out.ch);
    g_clear_pointer(&out.stream, g_free);
    cancel_pipe_close(out.cancel_pipe);
}

bool qmp_migrate(const q_obj_migrate_arg *args, JsonNode **ret,
                 Error **errp)
{
    if (args->has_resume && args->resume) {
        error_setg(errp, "postcopy recovery is not supported");
        return false;
    }
    if (out_active()) {
        error_setg(errp, "There's a migration process in progress");
        return false;
    }
    if (runstate_get() == RUN_STATE_INMIGRATE) {
        error_setg(errp, "Guest is waiting for an incoming migration");
        return false;
    }
    if (!savevm_check_migratable(errp)) {
        return false;
    }
    out_reap();
    g_clear_pointer(&out.error, g_free);
    if (!cancel_pipe_open(out.cancel_pipe, errp)) {
        return false;
    }
    mig_channel_init(&out.ch);
    if (!mig_channel_connect(&out.ch, args->uri, errp)) {
        cancel_pipe_close(out.cancel_pipe);
        return false;
    }
    out.stream = g_new(MigStream, 1);
    mig_stream_init(out.stream, out.ch.fd, out.cancel_pipe[0]);
    out.cancel = false;
    out.continue_requested = false;
    out.postcopy_requested = out.postcopy = out.handover_unsure = false;
    out.start_ns = now_ns();
    out.end_ns = 0;
    out.downtime_ms = 0;
    out.expected_downtime_ms = 0;
    out.mbps = 0;
    memset(&out.ram, 0, sizeof(out.ram));
    set_status(&out.status, MIGRATION_STATUS_SETUP);
    out.thread = g_thread_new("migration", out_thread, &out);
    return true;
}

bool qmp_migrate_start_postcopy(JsonNode **ret, Error **errp)
{
    if (!caps[MIGRATION_CAPABILITY_POSTCOPY_RAM]) {
        error_setg(errp, "Enable postcopy with migrate_set_capability before "
                   "the start of migration");
        return false;
    }
    if (out.status == MIGRATION_STATUS_NONE) {
        error_setg(errp, "Postcopy must be started after migration has been "
                   "started");
        return false;
    }
    __atomic_store_n(&out.postcopy_requested, true, __ATOMIC_RELEASE);
    return true;
}

bool migration_postcopy_ram(void)
{
    return caps[MIGRATION_CAPABILITY_POSTCOPY_RAM];
}

bool migration_ignore_shared(void)
{
    return caps[MIGRATION_CAPABILITY_X_IGNORE_SHARED];
}

bool qmp_migrate_cancel(JsonNode **ret, Error **errp)
{
    if (!out_active()) {
        return true;
    }
    __atomic_store_n(&out.cancel, true, __ATOMIC_RELEASE);
    if (out.status != MIGRATION_STATUS_CANCELLING) {
        set_status(&out.status, MIGRATION_STATUS_CANCELLING);
    }
    cancel_pipe_kick(out.cancel_pipe);
    g_cond_broadcast(&out.continue_cond);
    return true;
}

bool qmp_migrate_continue(const q_obj_migrate_continue_arg *args,
                          JsonNode **ret, Error **errp)
{
    if (out.status != args->state) {
        error_setg(errp, "Migration not in expected state: %s",
                   MigrationStatus_lookup[out.status]);
        return false;
    }
    out.continue_requested = true;
    g_cond_broadcast(&out.continue_cond);
    return true;
}

static MigrationStats *ram_stats(const RamStats *r, double mbps,
                                 uint64_t pps)
{
    MigrationStats *s = g_new0(MigrationStats, 1);

    s->transferred = r->transferred;
    s->remaining = r->remaining;
    s->total = r->total;
    s->duplicate = r->duplicate;
    s->normal = r->normal;
    s->normal_bytes = r->normal * MIG_PAGE_SIZE;
    s->dirty_pages_rate = r->dirty_pages_rate;
    s->mbps = mbps;
    s->dirty_sync_count = r->dirty_sync_count;
    s->pages_per_second = pps;
    s->postcopy_requests = r->postcopy_requests;
    return s;
}

bool qmp_query_migrate(JsonNode **ret, Error **errp)
{
    MigrationInfo *info = g_new0(MigrationInfo, 1);
    MigrationStatus st = out.status;

    if (st == MIGRATION_STATUS_NONE && in.status != MIGRATION_STATUS_NONE) {
        info->has_status = true;
        info->status = in.status;
    } else if (st != MIGRATION_STATUS_NONE) {
        info->has_status = true;
        info->status = st;
        if (st != MIGRATION_STATUS_SETUP) {
            info->ram = ram_stats(&out.ram, out.mbps, out.pages_per_second);
        }
        info->has_total_time = true;
        info->total_time = ((out.end_ns ? out.end_ns : now_ns()) -
                            out.start_ns) / 1000000;
        info->has_setup_time = true;
        info->setup_time = out.setup_ns / 1000000;
        if (st == MIGRATION_STATUS_COMPLETED) {
            info->has_downtime = true;
            info->downtime = out.downtime_ms;
        } else if (out_active()) {
            info->has_expected_downtime = true;
            info->expected_downtime = out.expected_downtime_ms;
        }
        if (st == MIGRATION_STATUS_FAILED && out.error) {
            info->error_desc = g_strdup(out.error);
        }
    }
    *ret = qapi_out_MigrationInfo(info);
    qapi_free_MigrationInfo(info);
    return true;
}

/* --- capabilities and parameters ------------------------------------ */

bool qmp_query_migrate_capabilities(JsonNode **ret, Error **errp)
{
    MigrationCapabilityStatusList *list = NULL;

    for (int i = MIGRATION_CAPABILITY__MAX - 1; i >= 0; i--) {
        MigrationCapabilityStatus *st = g_new0(MigrationCapabilityStatus, 1);
        MigrationCapabilityStatusList *l = g_new0(
            MigrationCapabilityStatusList, 1);

        st->capability = i;
        st->state = caps[i];
        l->value = st;
        l->next = list;
        list = l;
    }
    *ret = qapi_out_MigrationCapabilityStatusList(list);
    qapi_free_MigrationCapabilityStatusList(list);
    return true;
}

bool qmp_migrate_set_capabilities(
    const q_obj_migrate_set_capabilities_arg *args, JsonNode **ret,
    Error **errp)
{
    if (out_active()) {
        error_setg(errp, "There's a migration process in progress");
        return false;
    }
    for (const MigrationCapabilityStatusList *l = args->capabilities; l;
         l = l->next) {
        caps[l->value->capability] = l->value->state;
    }
    return true;
}

bool qmp_query_migrate_parameters(JsonNode **ret, Error **errp)
{
    MigrationParameters p = {
        .has_max_bandwidth = true, .max_bandwidth = max_bandwidth,
        .has_downtime_limit = true, .downtime_limit = downtime_limit_ms,
        .has_max_postcopy_bandwidth = true,
        .max_postcopy_bandwidth = max_postcopy_bandwidth,
    };

    *ret = qapi_out_MigrationParameters(&p);
    return true;
}

bool qmp_migrate_set_parameters(const q_obj_migrate_set_parameters_arg *args,
                                JsonNode **ret, Error **errp)
{
    if (args->has_downtime_limit && args->downtime_limit > MAX_DOWNTIME_MS) {
        error_setg(errp, "Parameter 'downtime_limit' expects an integer in "
                   "the range of 0 to %d milliseconds", MAX_DOWNTIME_MS);
        return false;
    }
    if (args->has_max_bandwidth && args->max_bandwidth > SIZE_MAX) {
        error_setg(errp, "Parameter 'max_bandwidth' expects an integer in "
                   "the range of 0 to %zu bytes/second", SIZE_MAX);
        return false;
    }
    if (args->has_max_postcopy_bandwidth &&
        args->max_postcopy_bandwidth > SIZE_MAX) {
        error_setg(errp, "Parameter 'max-postcopy-bandwidth' expects an "
                   "integer in the range of 0 to %zu bytes/second", SIZE_MAX);
        return false;
    }
    if (args->has_downtime_limit) {
        downtime_limit_ms = args->downtime_limit;
    }
    if (args->has_max_postcopy_bandwidth) {
        __atomic_store_n(&max_postcopy_bandwidth,
                         args->max_postcopy_bandwidth, __ATOMIC_RELAXED);
    }
    if (args->has_max_bandwidth) {
        __atomic_store_n(&max_bandwidth, args->max_bandwidth,
                         __ATOMIC_RELAXED);
    }
    return true;
}

/* --- incoming --------------------------------------------------------- */

static gpointer in_thread(gpointer opaque)
{
    MigStream *s = g_new(MigStream, 1);
    Error *err = NULL;
    bool ok = mig_channel_accept(&in.ch, in.cancel_pipe[0], &err);

    if (ok) {
        bql_lock();
        set_status(&in.status, MIGRATION_STATUS_ACTIVE);
        bql_unlock();
        mig_stream_init(s, in.ch.fd, in.cancel_pipe[0]);
        ok = savevm_load_stream(s, &err);
    }
    bql_lock();
    if (ok && in.postcopy) {
        set_status(&in.status, MIGRATION_STATUS_COMPLETED);
    } else if (ok) {
        set_status(&in.status, MIGRATION_STATUS_COMPLETED);
        if (activate_images("the destination could not take the image "
                            "locks") && runstate_autostart()) {
            vm_start();
        } else {
            runstate_set(RUN_STATE_PAUSED);
        }
    } else if (qemu_shutdown_requested() == SHUTDOWN_CAUSE_NONE) {
        error_report("load of migration failed: %s", error_get_pretty(err));
        set_status(&in.status, MIGRATION_STATUS_FAILED);
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_ERROR, 1);
    }
    error_free(err);
    bql_unlock();
    mig_stream_close_fds(s);
    g_free(s);
    return NULL;
}

/* Postcopy's RUN, with the big lock: run on while the rest comes. */
void migration_incoming_postcopy_run(void)
{
    in.postcopy = true;
    set_status(&in.status, MIGRATION_STATUS_POSTCOPY_ACTIVE);
    if (activate_images("the destination could not take the image locks") &&
        runstate_autostart()) {
        vm_start();
    } else {
        runstate_set(RUN_STATE_PAUSED);
    }
}

static bool in_start(const char *uri, Error **errp)
{
    if (!cancel_pipe_open(in.cancel_pipe, errp)) {
        return false;
    }
    mig_channel_init(&in.ch);
    if (!mig_channel_listen(&in.ch, uri, errp)) {
        return false;
    }
    in.started = true;
    in.deferred = false;
    set_status(&in.status, MIGRATION_STATUS_SETUP);
    in.thread = g_thread_new("migration-incoming", in_thread, NULL);
    return true;
}

bool migration_incoming_start(const char *uri, bool autostart,
                              Error **errp)
{
    runstate_set_autostart(autostart);
    runstate_set(RUN_STATE_INMIGRATE);
    return in_start(uri, errp);
}

void migration_incoming_defer(bool autostart)
{
    runstate_set_autostart(autostart);
    in.deferred = true;
    runstate_set(RUN_STATE_INMIGRATE);
}

bool qmp_migrate_incoming(const q_obj_migrate_incoming_arg *args,
                          JsonNode **ret, Error **errp)
{
    if (!in.deferred) {
        error_setg(errp, in.started ? "The incoming migration has already "
                   "been started" : "'-incoming' was not specified on the "
                   "command line");
        return false;
    }
    return in_start(args->uri, errp);
}

void migration_cleanup(void)
{
    bool locked = bql_locked();

    if (out.thread) {
        __atomic_store_n(&out.cancel, true, __ATOMIC_RELEASE);
        cancel_pipe_kick(out.cancel_pipe);
        g_cond_broadcast(&out.continue_cond);
    }
    out_reap();
    g_clear_pointer(&out.error, g_free);
    if (in.thread) {
        cancel_pipe_kick(in.cancel_pipe);
        if (locked) {
            bql_unlock();
        }
        g_thread_join(in.thread);
        if (locked) {
            bql_lock();
        }
        in.thread = NULL;
    }
    mig_channel_close(&in.ch);
    cancel_pipe_close(in.cancel_pipe);
    in.started = in.deferred = false;
}
