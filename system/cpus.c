/*
 * The big lock and the main loop's part in it (see include/system/cpus.h).
 *
 * The main loop keeps the lock except while it sleeps in poll(): glib
 * calls the context's poll function with its own lock dropped, so wrapping
 * it is the one place where the main thread waits for events, and every
 * dispatch (chardev input, QMP commands, timers, signals, requests acted
 * on by main_loop_should_exit()) runs with the lock held.
 */
#include "system/cpus.h"

static GMutex bql;
static __thread bool bql_held;
static GPollFunc saved_poll;

void bql_lock(void)
{
    g_mutex_lock(&bql);
    bql_held = true;
}

void bql_unlock(void)
{
    bql_held = false;
    g_mutex_unlock(&bql);
}

bool bql_locked(void)
{
    return bql_held;
}

void bql_cond_wait(GCond *cond)
{
    bql_held = false;
    g_cond_wait(cond, &bql);
    bql_held = true;
}

static gint bql_poll(GPollFD *fds, guint nfds, gint timeout)
{
    gint ret;

    bql_unlock();
    ret = saved_poll(fds, nfds, timeout);
    bql_lock();
    return ret;
}

void bql_init_main_loop(void)
{
    if (saved_poll) {
        return;
    }
    bql_lock();
    saved_poll = g_main_context_get_poll_func(NULL);
    g_main_context_set_poll_func(NULL, bql_poll);
}

void bql_fini_main_loop(void)
{
    if (!saved_poll) {
        return;
    }
    g_main_context_set_poll_func(NULL, saved_poll);
    saved_poll = NULL;
    bql_unlock();
}
