/*
 * The big lock (BQL). Device models are not thread safe: whoever touches
 * a device, the machine's run state or the monitor holds it.
 *
 * Under an accelerator with vCPU threads (kvm), the main thread takes it
 * once (bql_init_main_loop()) and keeps it, dropping it only while glib
 * polls for events; vCPU threads take it around each PIO/MMIO dispatch.
 * Under qtest there is one thread and the lock is never taken.
 */
#ifndef SYSTEM_CPUS_H
#define SYSTEM_CPUS_H

#include <stdbool.h>

#include <glib.h>

void bql_lock(void);
void bql_unlock(void);
/* True when this thread holds the lock. */
bool bql_locked(void);
/* Wait on cond with the lock released, as g_cond_wait. */
void bql_cond_wait(GCond *cond);

/*
 * The main thread takes the lock and keeps it, releasing it only while
 * the glib main context polls. bql_fini_main_loop() undoes it (at exit,
 * after the vCPU threads are gone).
 */
void bql_init_main_loop(void);
void bql_fini_main_loop(void);

#endif
