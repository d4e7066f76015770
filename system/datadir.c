/*
 * Where firmware and option ROMs are found: the directories of -L, in
 * the order given, then the firmware path Debian's QEMU 7.2 was built
 * with (/usr/share/qemu, /usr/share/seabios, /usr/lib/ipxe/qemu).
 * As in QEMU, a readable file of that name in the current directory
 * comes first; a name with a slash in it is a path, not searched.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "system/datadir.h"

static const char *const builtin_dirs[] = {
    "/usr/share/qemu",
    "/usr/share/seabios",
    "/usr/lib/ipxe/qemu",
};

static GPtrArray *user_dirs;

void qemu_add_data_dir(const char *dir)
{
    if (!user_dirs) {
        user_dirs = g_ptr_array_new_with_free_func(g_free);
    }
    for (guint i = 0; i < user_dirs->len; i++) {
        if (!strcmp(g_ptr_array_index(user_dirs, i), dir)) {
            return;
        }
    }
    g_ptr_array_add(user_dirs, g_strdup(dir));
}

void qemu_data_dirs_reset(void)
{
    if (user_dirs) {
        g_ptr_array_free(user_dirs, TRUE);
        user_dirs = NULL;
    }
}

static const char *data_dir_at(guint i)
{
    guint n = user_dirs ? user_dirs->len : 0;

    if (i < n) {
        return g_ptr_array_index(user_dirs, i);
    }
    i -= n;
    return i < G_N_ELEMENTS(builtin_dirs) ? builtin_dirs[i] : NULL;
}

char *qemu_find_file(const char *name)
{
    const char *dir;

    if (!name || !*name) {
        return NULL;
    }
    /* QEMU's order: the name as it is (from the current directory) first. */
    if (access(name, R_OK) == 0) {
        return g_strdup(name);
    }
    if (strchr(name, '/')) {
        return NULL;
    }
    for (guint i = 0; (dir = data_dir_at(i)); i++) {
        char *path = g_build_filename(dir, name, NULL);

        if (access(path, R_OK) == 0) {
            return path;
        }
        g_free(path);
    }
    return NULL;
}

void qemu_print_data_dirs(void)
{
    const char *dir;

    for (guint i = 0; (dir = data_dir_at(i)); i++) {
        printf("%s\n", dir);
    }
}
