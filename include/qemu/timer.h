/*
 * Clocks and timers. QEMU_CLOCK_VIRTUAL is guest time: it runs only
 * while the VM runs, and under qtest it moves only with clock_step and
 * clock_set. Timer callbacks run in the main loop with the big lock.
 */
#ifndef QEMU_TIMER_H
#define QEMU_TIMER_H

#include <stdbool.h>
#include <stdint.h>

#define NANOSECONDS_PER_SECOND 1000000000LL

typedef enum QEMUClockType {
    QEMU_CLOCK_REALTIME,    /* host monotonic, always runs */
    QEMU_CLOCK_VIRTUAL,     /* guest time */
    QEMU_CLOCK_HOST,        /* host wall clock (for the RTC) */
    QEMU_CLOCK_MAX,
} QEMUClockType;

typedef void QEMUTimerCB(void *opaque);
typedef struct QEMUTimer QEMUTimer;

int64_t qemu_clock_get_ns(QEMUClockType type);

QEMUTimer *timer_new_ns(QEMUClockType type, QEMUTimerCB *cb, void *opaque);
void timer_free(QEMUTimer *t);
/* Fire cb once the clock reaches expire_ns (absolute). */
void timer_mod(QEMUTimer *t, int64_t expire_ns);
void timer_del(QEMUTimer *t);
bool timer_pending(const QEMUTimer *t);
/* The absolute expiry of an armed timer, -1 when not armed (or NULL). */
int64_t timer_expire_ns(const QEMUTimer *t);

/* Nanoseconds until the clock's next timer, or -1 when none is armed. */
int64_t qemu_clock_deadline_ns(QEMUClockType type);

/*
 * Virtual clock control. Under qtest the clock is manual: it stands
 * still until qtest_clock_warp() moves it, firing the timers it passes
 * in order. Otherwise it follows the host monotonic clock while the VM
 * runs and stops while it is paused.
 */
void qemu_clock_set_manual(bool manual);
void qtest_clock_warp(int64_t dest_ns);
void qemu_clock_enable_virtual(bool running);
/*
 * Set where the stopped virtual clock stands (an incoming migration
 * takes the source's guest time); nothing while it runs.
 */
void qemu_clock_set_virtual_stopped(int64_t ns);

/* Main loop hook: a GSource that runs due timers of every clock. */
void qemu_timers_attach_main_loop(void);
void qemu_timers_detach_main_loop(void);

#endif
