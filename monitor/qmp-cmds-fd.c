/*
 * getfd and closefd: descriptors a QMP client sends over its unix socket
 * (SCM_RIGHTS, with the bytes of the getfd command) kept under a name
 * until a user takes it (migrate "fd:NAME") or closefd drops it. Each
 * monitor has its own names, as in QEMU: another monitor neither sees
 * nor takes them, and they outlive a client's reconnection to the same
 * monitor.
 */
#include <unistd.h>

#include <glib.h>

#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"

struct MonitorFds {
    GHashTable *named;                  /* name -> fd + 1 */
};

static CharBackend *receiving;          /* the chardev of the command */
static MonitorFds *issuing;             /* its monitor's names */

static void close_fd(gpointer p)
{
    close(GPOINTER_TO_INT(p) - 1);
}

MonitorFds *monitor_fds_new(void)
{
    MonitorFds *fds = g_new0(MonitorFds, 1);

    fds->named = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       close_fd);
    return fds;
}

void monitor_fds_free(MonitorFds *fds)
{
    if (fds) {
        g_hash_table_destroy(fds->named);
        g_free(fds);
    }
}

void monitor_fd_set_source(CharBackend *be, MonitorFds *fds)
{
    receiving = be;
    issuing = fds;
}

bool qmp_getfd(const q_obj_getfd_arg *args, JsonNode **ret, Error **errp)
{
    int fd = receiving ? qemu_chr_fe_get_msgfd(receiving) : -1;

    if (fd < 0 || !issuing) {
        if (fd >= 0) {
            close(fd);
        }
        error_setg(errp, "No file descriptor supplied via SCM_RIGHTS");
        return false;
    }
    if (g_ascii_isdigit(args->fdname[0])) {
        close(fd);
        error_setg(errp, "Parameter 'fdname' expects a name not starting "
                   "with a digit");
        return false;
    }
    /* A name given again gets the new descriptor; the old one is closed. */
    g_hash_table_insert(issuing->named, g_strdup(args->fdname),
                        GINT_TO_POINTER(fd + 1));
    return true;
}

bool qmp_closefd(const q_obj_closefd_arg *args, JsonNode **ret,
                 Error **errp)
{
    if (!issuing || !g_hash_table_remove(issuing->named, args->fdname)) {
        error_setg(errp, "File descriptor named '%s' not found",
                   args->fdname);
        return false;
    }
    return true;
}

int monitor_fd_take(const char *name)
{
    gpointer key, value;

    if (!issuing ||
        !g_hash_table_steal_extended(issuing->named, name, &key, &value)) {
        return -1;
    }
    g_free(key);
    return GPOINTER_TO_INT(value) - 1;
}
