/*
 * A pool of worker threads for blocking I/O: a job's work runs in a
 * worker, its completion in the main loop (with the big lock, as every
 * device callback), so devices never block a vCPU or the main loop.
 */
#ifndef BLOCK_THREAD_POOL_H
#define BLOCK_THREAD_POOL_H

/* Runs in a worker thread: no device state, no guest memory map changes. */
typedef int ThreadPoolWork(void *opaque);
/* Runs in the main loop with ret = what work returned. */
typedef void ThreadPoolDone(void *opaque, int ret);

void thread_pool_submit(ThreadPoolWork *work, ThreadPoolDone *done,
                        void *opaque);
/* Wait for every submitted job and run its completion (reset, exit). */
void thread_pool_drain(void);
/* Drain and stop the workers (at exit). */
void thread_pool_cleanup(void);

#endif
