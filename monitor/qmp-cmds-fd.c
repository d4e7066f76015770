/*
 * getfd and closefd: descriptors a QMP client sends over its unix socket
 * (SCM_RIGHTS, with the bytes of the getfd command) kept under a name
 * until a user takes it (migrate "fd:NAME") or closefd drops it. The
 * names are shared by all monitors of the process.
 */
#include <unistd.h>

#include <glib.h>

#include "monitor/monitor.h"
#include "qapi/qapi-commands.h"

static GHashTable *named_fds;          /* name -> fd + 1 */
static CharBackend *receiving;          /* the chardev of the command */

void monitor_fd_set_source(CharBackend *be)
{
    receiving = be;
}

static void close_fd(gpointer p)
{
    close(GPOINTER_TO_INT(p) - 1);
}

bool qmp_getfd(const q_obj_getfd_arg *args, JsonNode **ret, Error **errp)
{
    int fd = receiving ? qemu_chr_fe_get_msgfd(receiving) : -1;

    if (fd < 0) {
        error_setg(errp, "No file descriptor supplied via SCM_RIGHTS");
        return false;
    }
    if (g_ascii_isdigit(args->fdname[0])) {
        close(fd);
        error_setg(errp, "Parameter 'fdname' expects a name not starting "
                   "with a digit");
        return false;
    }
    if (!named_fds) {
        named_fds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                          close_fd);
    }
    /* A name given again gets the new descriptor; the old one is closed. */
    g_hash_table_insert(named_fds, g_strdup(args->fdname),
                        GINT_TO_POINTER(fd + 1));
    return true;
}

bool qmp_closefd(const q_obj_closefd_arg *args, JsonNode **ret,
                 Error **errp)
{
    if (!named_fds || !g_hash_table_remove(named_fds, args->fdname)) {
        error_setg(errp, "File descriptor named '%s' not found",
                   args->fdname);
        return false;
    }
    return true;
}

int monitor_fd_take(const char *name)
{
    gpointer key, value;

    if (!named_fds ||
        !g_hash_table_steal_extended(named_fds, name, &key, &value)) {
        return -1;
    }
    g_free(key);
    return GPOINTER_TO_INT(value) - 1;
}

void monitor_fds_cleanup(void)
{
    g_clear_pointer(&named_fds, g_hash_table_destroy);
}
