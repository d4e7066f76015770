/*
 * Clocks and timers, run from the glib main loop.
 *
 * The virtual clock: under qtest it is manual (qtest_clock_warp moves
 * it); otherwise it is the host monotonic clock minus the time the VM
 * spent paused.
 */
#include <time.h>

#include <glib.h>

#include "qemu/timer.h"

struct QEMUTimer {
    QEMUClockType type;
    int64_t expire;                 /* -1 when not pending */
    QEMUTimerCB *cb;
    void *opaque;
};

/* Pending timers per clock, sorted by expiry. */
static GList *active[QEMU_CLOCK_MAX];

static bool vclock_manual;
static int64_t vclock_manual_ns;
static bool vclock_running;
static int64_t vclock_offset;       /* virtual = monotonic - offset */
static int64_t vclock_stopped_at;

/* Nanoseconds (g_get_monotonic_time() has only microseconds). */
static int64_t monotonic_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int64_t qemu_clock_get_ns(QEMUClockType type)
{
    switch (type) {
    case QEMU_CLOCK_REALTIME:
        return monotonic_ns();
    case QEMU_CLOCK_HOST:
        return g_get_real_time() * 1000;
    case QEMU_CLOCK_VIRTUAL:
    default:
        if (vclock_manual) {
            return vclock_manual_ns;
        }
        return vclock_running ? monotonic_ns() - vclock_offset
                              : vclock_stopped_at;
    }
}

QEMUTimer *timer_new_ns(QEMUClockType type, QEMUTimerCB *cb, void *opaque)
{
    QEMUTimer *t = g_new0(QEMUTimer, 1);

    t->type = type;
    t->cb = cb;
    t->opaque = opaque;
    t->expire = -1;
    return t;
}

void timer_free(QEMUTimer *t)
{
    if (t) {
        timer_del(t);
        g_free(t);
    }
}

static gint compare_expiry(gconstpointer a, gconstpointer b)
{
    const QEMUTimer *ta = a, *tb = b;

    return ta->expire < tb->expire ? -1 : ta->expire > tb->expire;
}

void timer_mod(QEMUTimer *t, int64_t expire_ns)
{
    timer_del(t);
    t->expire = expire_ns < 0 ? 0 : expire_ns;
    active[t->type] = g_list_insert_sorted(active[t->type], t,
                                           compare_expiry);
    /*
     * The main loop's own thread computes the next timeout before it
     * polls again: only another thread has to wake it (an eventfd write
     * per packet when slirp re-arms its timers).
     */
    if (!g_main_context_is_owner(NULL)) {
        g_main_context_wakeup(NULL);
    }
}

void timer_del(QEMUTimer *t)
{
    if (t->expire >= 0) {
        active[t->type] = g_list_remove(active[t->type], t);
        t->expire = -1;
    }
}

bool timer_pending(const QEMUTimer *t)
{
    return t->expire >= 0;
}

int64_t timer_expire_ns(const QEMUTimer *t)
{
    return t && t->expire >= 0 ? t->expire : -1;
}

static bool clock_ticking(QEMUClockType type)
{
    return type != QEMU_CLOCK_VIRTUAL || (!vclock_manual && vclock_running);
}

int64_t qemu_clock_deadline_ns(QEMUClockType type)
{
    QEMUTimer *t;
    int64_t delta;

    if (!active[type]) {
        return -1;
    }
    t = active[type]->data;
    delta = t->expire - qemu_clock_get_ns(type);
    return delta < 0 ? 0 : delta;
}

/* Fire timers of a clock whose expiry is at or before now. */
static bool run_timers_until(QEMUClockType type, int64_t now)
{
    bool ran = false;

    while (active[type]) {
        QEMUTimer *t = active[type]->data;

        if (t->expire > now) {
            break;
        }
        timer_del(t);
        t->cb(t->opaque);
        ran = true;
    }
    return ran;
}

void qemu_clock_set_manual(bool manual)
{
    vclock_manual = manual;
}

void qtest_clock_warp(int64_t dest_ns)
{
    /* Step to each timer in turn so callbacks see their own time. */
    while (active[QEMU_CLOCK_VIRTUAL]) {
        QEMUTimer *t = active[QEMU_CLOCK_VIRTUAL]->data;

        if (t->expire > dest_ns) {
            break;
        }
        if (t->expire > vclock_manual_ns) {
            vclock_manual_ns = t->expire;
        }
        run_timers_until(QEMU_CLOCK_VIRTUAL, vclock_manual_ns);
    }
    if (dest_ns > vclock_manual_ns) {
        vclock_manual_ns = dest_ns;
    }
}

void qemu_clock_enable_virtual(bool running)
{
    if (running == vclock_running) {
        return;
    }
    if (running) {
        vclock_offset = monotonic_ns() - vclock_stopped_at;
    } else {
        vclock_stopped_at = monotonic_ns() - vclock_offset;
    }
    vclock_running = running;
    g_main_context_wakeup(NULL);
}

void qemu_clock_set_virtual_stopped(int64_t ns)
{
    if (vclock_manual) {
        vclock_manual_ns = ns;
    } else if (!vclock_running) {
        vclock_stopped_at = ns;
    }
}

/* A GSource whose timeout is the nearest deadline of any ticking clock. */
static int64_t nearest_deadline_ns(void)
{
    int64_t best = -1;

    for (int c = 0; c < QEMU_CLOCK_MAX; c++) {
        int64_t d;

        if (!clock_ticking(c)) {
            continue;
        }
        d = qemu_clock_deadline_ns(c);
        if (d >= 0 && (best < 0 || d < best)) {
            best = d;
        }
    }
    return best;
}

static gboolean timer_source_prepare(GSource *source, gint *timeout)
{
    int64_t d = nearest_deadline_ns();

    if (d < 0) {
        *timeout = -1;
        return FALSE;
    }
    /* Round up so we never wake before the deadline and spin. */
    *timeout = d > (int64_t)G_MAXINT * 1000000 ? G_MAXINT
                                                : (gint)((d + 999999) / 1000000);
    return d == 0;
}

static gboolean timer_source_check(GSource *source)
{
    return nearest_deadline_ns() == 0;
}

/* Run the expired timers of a clock that is ticking; true if any ran. */
static bool qemu_clock_run_timers(QEMUClockType type)
{
    if (!clock_ticking(type)) {
        return false;
    }
    return run_timers_until(type, qemu_clock_get_ns(type));
}

static gboolean timer_source_dispatch(GSource *source, GSourceFunc cb,
                                      gpointer data)
{
    for (int c = 0; c < QEMU_CLOCK_MAX; c++) {
        qemu_clock_run_timers(c);
    }
    return G_SOURCE_CONTINUE;
}

static GSourceFuncs timer_source_funcs = {
    .prepare = timer_source_prepare,
    .check = timer_source_check,
    .dispatch = timer_source_dispatch,
};

static GSource *timer_source;

void qemu_timers_attach_main_loop(void)
{
    if (!timer_source) {
        timer_source = g_source_new(&timer_source_funcs, sizeof(GSource));
        g_source_attach(timer_source, NULL);
    }
}

void qemu_timers_detach_main_loop(void)
{
    if (timer_source) {
        g_source_destroy(timer_source);
        g_source_unref(timer_source);
        timer_source = NULL;
    }
}
