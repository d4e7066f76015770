/*
 * The firmware search path: -L directories come first, in their order,
 * then the built-in ones; a name with a slash is a path.
 */
#include <stdio.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "system/datadir.h"

typedef struct {
    char *a, *b;
} Dirs;

static void dirs_setup(Dirs *d, gconstpointer unused)
{
    d->a = g_dir_make_tmp("datadir-a-XXXXXX", NULL);
    d->b = g_dir_make_tmp("datadir-b-XXXXXX", NULL);
    g_assert_nonnull(d->a);
    g_assert_nonnull(d->b);
}

static void rm_file(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);

    g_unlink(p);
    g_free(p);
}

static void dirs_teardown(Dirs *d, gconstpointer unused)
{
    rm_file(d->a, "fw.bin");
    rm_file(d->b, "fw.bin");
    rm_file(d->b, "only-b.bin");
    g_rmdir(d->a);
    g_rmdir(d->b);
    g_free(d->a);
    g_free(d->b);
    qemu_data_dirs_reset();
}

static void put(const char *dir, const char *name)
{
    char *p = g_build_filename(dir, name, NULL);

    g_assert_true(g_file_set_contents(p, "x", 1, NULL));
    g_free(p);
}

static void test_order(Dirs *d, gconstpointer unused)
{
    char *want, *got;

    put(d->a, "fw.bin");
    put(d->b, "fw.bin");
    put(d->b, "only-b.bin");
    qemu_add_data_dir(d->a);
    qemu_add_data_dir(d->b);

    want = g_build_filename(d->a, "fw.bin", NULL);
    got = qemu_find_file("fw.bin");
    g_assert_cmpstr(got, ==, want);
    g_free(want);
    g_free(got);

    want = g_build_filename(d->b, "only-b.bin", NULL);
    got = qemu_find_file("only-b.bin");
    g_assert_cmpstr(got, ==, want);
    g_free(want);
    g_free(got);

    g_assert_null(qemu_find_file("no-such-firmware.bin"));
    g_assert_null(qemu_find_file(""));
}

static void test_path(Dirs *d, gconstpointer unused)
{
    char *p, *got;

    put(d->b, "only-b.bin");
    p = g_build_filename(d->b, "only-b.bin", NULL);
    /* A path is taken as it is, and not looked up in the -L dirs. */
    got = qemu_find_file(p);
    g_assert_cmpstr(got, ==, p);
    g_free(got);
    g_free(p);
    g_assert_null(qemu_find_file("./only-b.bin"));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add("/datadir/order", Dirs, NULL, dirs_setup, test_order,
               dirs_teardown);
    g_test_add("/datadir/path", Dirs, NULL, dirs_setup, test_path,
               dirs_teardown);
    return g_test_run();
}
