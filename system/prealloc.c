/*
 * Preallocation of guest RAM (prealloc=on, -mem-prealloc): fault in
 * every page before the guest runs, so running out of hugepages or of
 * tmpfs space is an error at startup rather than a SIGBUS later.
 *
 * MADV_POPULATE_WRITE (Linux 5.14) reports such failures as errors;
 * older kernels get one touched byte per page, with SIGBUS caught.
 * The work is split across short-lived threads that all finish before
 * any vCPU exists.
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>

#include <glib.h>

#include "config-host.h"
#include "system/ramblock.h"

#if !HAVE_MADV_POPULATE_WRITE
/* Old headers: the kernel's values; an old kernel answers EINVAL. */
#define MADV_POPULATE_READ 22
#define MADV_POPULATE_WRITE 23
#endif

typedef struct PreallocJob {
    uint8_t *start;
    size_t len;
    size_t page_size;
    bool readonly;
    int err;                    /* 0 or errno */
} PreallocJob;

/* volatile: the compiler must not drop stores only the handler reads. */
static __thread sigjmp_buf *volatile touch_env;

static void prealloc_sigbus(int sig, siginfo_t *info, void *ctx)
{
    if (touch_env) {
        siglongjmp(*touch_env, 1);
    }
    /* Not ours: let the default action happen. */
    signal(SIGBUS, SIG_DFL);
    raise(SIGBUS);
}

/* One byte per page; a SIGBUS means the backing store has no room. */
static int touch_pages(PreallocJob *job)
{
    sigjmp_buf env;
    volatile size_t off = 0;

    if (sigsetjmp(env, 1)) {
        touch_env = NULL;
        return EFAULT;
    }
    touch_env = &env;
    for (; off < job->len; off += job->page_size) {
        volatile uint8_t *p = job->start + off;
        uint8_t v = *p;

        if (!job->readonly) {
            *p = v;
        }
    }
    touch_env = NULL;
    return 0;
}

static gpointer prealloc_thread(gpointer opaque)
{
    PreallocJob *job = opaque;
    int advice = job->readonly ? MADV_POPULATE_READ : MADV_POPULATE_WRITE;
    int ret;

    do {
        ret = madvise(job->start, job->len, advice);
    } while (ret < 0 && (errno == EINTR || errno == EAGAIN));
    if (ret == 0) {
        job->err = 0;
    } else if (errno == EINVAL) {
        /* A kernel older than 5.14: touch the pages instead. */
        job->err = touch_pages(job);
    } else {
        job->err = errno;
    }
    return NULL;
}

int ram_block_prealloc(RAMBlock *rb, unsigned nthreads)
{
    size_t pages = rb->size / rb->page_size;
    struct sigaction sa = { 0 }, old_sa;
    PreallocJob *jobs;
    GThread **threads;
    size_t done = 0;
    int err = 0;

    nthreads = MAX(1, MIN(nthreads, pages));
    jobs = g_new0(PreallocJob, nthreads);
    threads = g_new0(GThread *, nthreads);
    sa.sa_sigaction = prealloc_sigbus;
    sa.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &sa, &old_sa);
    for (unsigned i = 0; i < nthreads; i++) {
        size_t n = pages / nthreads + (i < pages % nthreads);

        jobs[i].start = rb->host + done * rb->page_size;
        jobs[i].len = n * rb->page_size;
        jobs[i].page_size = rb->page_size;
        jobs[i].readonly = rb->flags & RAM_READONLY;
        done += n;
        /* The last job runs here, so one thread means no thread at all. */
        if (i + 1 < nthreads) {
            threads[i] = g_thread_try_new("prealloc", prealloc_thread,
                                          &jobs[i], NULL);
        }
        if (!threads[i]) {
            prealloc_thread(&jobs[i]);
        }
    }
    for (unsigned i = 0; i < nthreads; i++) {
        if (threads[i]) {
            g_thread_join(threads[i]);
        }
        if (jobs[i].err && !err) {
            err = jobs[i].err;
        }
    }
    sigaction(SIGBUS, &old_sa, NULL);
    g_free(threads);
    g_free(jobs);
    return -err;
}
