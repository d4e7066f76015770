/*
 * -add-fd's descriptor sets and qemu_open("/dev/fdset/N"): a name opens
 * as a dup of the set's descriptor with the access mode asked for.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu/fdset.h"

static void test_fdset(void)
{
    char *dir = g_dir_make_tmp("test-fdset-XXXXXX", NULL);
    char *path = g_build_filename(dir, "log", NULL);
    int wfd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0600);
    int rfd = open(path, O_RDONLY);
    Error *err = NULL;
    char *text;
    int fd;

    g_assert_true(fdset_add_fd(rfd, 1, NULL, &err));
    /* The original is closed; the set holds a dup. */
    g_assert_cmpint(fcntl(rfd, F_GETFD), <, 0);
    g_assert_true(fdset_add_fd(wfd, 1, "serial0-source", &err));
    g_assert_null(err);

    fd = qemu_open("/dev/fdset/1", O_WRONLY | O_CREAT | O_APPEND, 0666);
    g_assert_cmpint(fd, >=, 0);
    g_assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
    g_assert_cmpint(write(fd, "hello\n", 6), ==, 6);
    close(fd);
    fd = qemu_open("/dev/fdset/1", O_RDONLY, 0);
    g_assert_cmpint(fd, >=, 0);
    close(fd);
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_cmpstr(text, ==, "hello\n");
    g_free(text);

    errno = 0;
    g_assert_cmpint(qemu_open("/dev/fdset/1", O_RDWR, 0), ==, -1);
    g_assert_cmpint(errno, ==, EACCES);
    g_assert_cmpint(qemu_open("/dev/fdset/2", O_WRONLY, 0), ==, -1);
    g_assert_cmpint(errno, ==, EACCES);
    g_assert_cmpint(qemu_open("/dev/fdset/x", O_WRONLY, 0), ==, -1);
    g_assert_cmpint(errno, ==, EINVAL);
    /* Other names are plain open(2)s. */
    fd = qemu_open(path, O_RDONLY, 0);
    g_assert_cmpint(fd, >=, 0);
    close(fd);

    g_assert_false(fdset_add_fd(1, 0, NULL, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "fd cannot be a standard I/O stream");
    error_free(err);
    err = NULL;
    g_assert_false(fdset_add_fd(999, 0, NULL, &err));
    g_assert_cmpstr(error_get_pretty(err), ==,
                    "error duplicating fd: Bad file descriptor");
    error_free(err);

    fdsets_cleanup();
    g_unlink(path);
    g_rmdir(dir);
    g_free(path);
    g_free(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/fdset/open", test_fdset);
    return g_test_run();
}
