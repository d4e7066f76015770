/*
 * The block layer's worker threads (include/block/thread-pool.h): a
 * GThreadPool runs the work; finished jobs queue up and an eventfd wakes
 * the main loop, which runs their completions.
 */
#include <errno.h>
#include <stdint.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <glib.h>
#include <glib-unix.h>

#include "block/thread-pool.h"
#include "system/main-loop.h"

#define THREAD_POOL_MAX_WORKERS 8

typedef struct ThreadPoolJob {
    ThreadPoolWork *work;
    ThreadPoolDone *done;
    void *opaque;
    int ret;
} ThreadPoolJob;

static GThreadPool *workers;
static GAsyncQueue *finished;       /* of ThreadPoolJob * */
static int wake_fd = -1;
static guint wake_source;
static unsigned pending;            /* submitted, completion not yet run */

static void run_job(gpointer data, gpointer user_data)
{
    ThreadPoolJob *job = data;
    uint64_t one = 1;

    job->ret = job->work(job->opaque);
    g_async_queue_push(finished, job);
    while (write(wake_fd, &one, sizeof(one)) < 0 && errno == EINTR) {
    }
}

static void complete(ThreadPoolJob *job)
{
    pending--;
    job->done(job->opaque, job->ret);
    g_free(job);
}

static gboolean on_wake(gint fd, GIOCondition cond, gpointer data)
{
    uint64_t count;
    ThreadPoolJob *job;

    while (read(fd, &count, sizeof(count)) < 0 && errno == EINTR) {
    }
    while ((job = g_async_queue_try_pop(finished))) {
        complete(job);
    }
    return G_SOURCE_CONTINUE;
}

void thread_pool_submit(ThreadPoolWork *work, ThreadPoolDone *done,
                        void *opaque)
{
    ThreadPoolJob *job = g_new0(ThreadPoolJob, 1);

    if (!workers) {
        finished = g_async_queue_new();
        wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
        g_assert(wake_fd >= 0);
        wake_source = main_loop_add_fd(wake_fd, G_IO_IN, on_wake, NULL);
        workers = g_thread_pool_new(run_job, NULL, THREAD_POOL_MAX_WORKERS,
                                    FALSE, NULL);
    }
    job->work = work;
    job->done = done;
    job->opaque = opaque;
    pending++;
    g_thread_pool_push(workers, job, NULL);
}

void thread_pool_drain(void)
{
    while (pending) {
        complete(g_async_queue_pop(finished));
    }
}

void thread_pool_cleanup(void)
{
    if (!workers) {
        return;
    }
    thread_pool_drain();
    g_thread_pool_free(workers, FALSE, TRUE);
    g_source_remove(wake_source);
    close(wake_fd);
    g_async_queue_unref(finished);
    workers = NULL;
    finished = NULL;
    wake_fd = -1;
}
