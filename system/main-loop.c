/*
 * Main loop. Termination signals arrive through a signalfd so that the
 * sender's pid can be reported, as QEMU does, and so that a signal that
 * lands during start-up (say during mlockall) is handled once the loop
 * runs instead of killing the process half-built.
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include <glib.h>
#include <glib-unix.h>

#include "qemu/error.h"
#include "system/main-loop.h"
#include "system/os-posix.h"
#include "system/runstate.h"

static int signal_fd = -1;
static guint signal_watch;

guint main_loop_add_fd(int fd, GIOCondition cond, GUnixFDSourceFunc fn,
                       gpointer opaque)
{
    GSource *src = g_unix_fd_source_new(fd, cond);
    guint id;

    g_source_set_callback(src, (GSourceFunc)(void (*)(void))fn, opaque,
                          NULL);
    g_source_set_can_recurse(src, TRUE);
    id = g_source_attach(src, NULL);
    g_source_unref(src);
    return id;
}

static void main_loop_wakeup(void)
{
    g_main_context_wakeup(NULL);
}

static gboolean signal_ready(gint fd, GIOCondition cond, gpointer opaque)
{
    struct signalfd_siginfo info;
    char *name;

    while (read(fd, &info, sizeof(info)) == sizeof(info)) {
        name = os_process_name(info.ssi_pid);
        error_report("terminating on signal %u from pid %u (%s)",
                     info.ssi_signo, info.ssi_pid, name);
        g_free(name);
        qemu_system_shutdown_request(SHUTDOWN_CAUSE_HOST_SIGNAL, 0);
    }
    return G_SOURCE_CONTINUE;
}

bool qemu_init_main_loop(Error **errp)
{
    sigset_t set;

    sigemptyset(&set);
    sigaddset(&set, SIGTERM);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGHUP);
    if (pthread_sigmask(SIG_BLOCK, &set, NULL) != 0) {
        error_setg(errp, "cannot block termination signals");
        return false;
    }
    signal_fd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
    if (signal_fd < 0) {
        error_setg_errno(errp, errno, "signalfd");
        return false;
    }
    /* A write to a closed socket must fail with EPIPE, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    signal_watch = g_unix_fd_add(signal_fd, G_IO_IN, signal_ready, NULL);
    runstate_set_notify(main_loop_wakeup);
    return true;
}

int qemu_main_loop(void)
{
    while (!main_loop_should_exit()) {
        g_main_context_iteration(NULL, TRUE);
    }
    return qemu_shutdown_exit_status();
}

void qemu_main_loop_cleanup(void)
{
    if (signal_watch) {
        g_source_remove(signal_watch);
        signal_watch = 0;
    }
    if (signal_fd >= 0) {
        close(signal_fd);
        signal_fd = -1;
    }
}
