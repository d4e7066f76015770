/*
 * Image locking: a device's permissions published as QEMU's byte locks
 * on the image (byte 100 + n "uses", 200 + n "does not share"), seen
 * in /proc/locks, refusing a second writer or reader between two of
 * our processes, and between ours and Debian's QEMU (the real peer,
 * when it is installed). share-rw=on and file.locking=off let a second
 * user in; a drive no device uses holds no lock.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "libqtest.h"

#define PEER_QEMU   "/usr/bin/qemu-system-x86_64"
#define WRITER      "-drive file=%s,format=raw,if=none,id=d0%s " \
                    "-device virtio-blk-pci,drive=d0%s"

static char *make_image(void)
{
    char *path = g_strdup("/tmp/block-lock-XXXXXX");
    int fd = mkstemp(path);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 1 << 20), ==, 0);
    close(fd);
    return path;
}

/*
 * The bytes locked on path's inode, by anyone, as a bitmap of 100..103
 * (bits 0..3) and 200..203 (bits 8..11).
 */
static unsigned locked_bytes(const char *path)
{
    g_autofree char *text = NULL;
    g_auto(GStrv) lines = NULL;
    g_autofree char *inode = NULL;
    struct stat st;
    unsigned bits = 0;

    g_assert_cmpint(stat(path, &st), ==, 0);
    inode = g_strdup_printf(":%lu ", (unsigned long)st.st_ino);
    g_assert_true(g_file_get_contents("/proc/locks", &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        const char *at = strstr(*l, inode);
        unsigned long first, last;

        if (!at || sscanf(at + strlen(inode), "%lu %lu", &first,
                          &last) != 2) {
            continue;
        }
        for (unsigned long b = first; b <= last; b++) {
            if (b >= 100 && b < 104) {
                bits |= 1u << (b - 100);
            } else if (b >= 200 && b < 204) {
                bits |= 1u << (b - 200 + 8);
            }
        }
    }
    return bits;
}

/* A second one of ours, expected to exit 1 with message. */
static void expect_refused(const char *args, const char *message)
{
    g_autofree char *full = g_strdup_printf("-nodefaults %s", args);
    QTestState *s = qtest_init_without_qmp_handshake(full);
    int status = qtest_wait_exit(s);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(qtest_stderr(s), ==, message);
    qtest_quit(s);
}

static char *refusal(const char *device_args, const char *what,
                     const char *img)
{
    return g_strdup_printf("qemu-system-x86_64: %s: Failed to get %s lock\n"
                           "Is another process using the image [%s]?\n",
                           device_args, what, img);
}

static void test_published(void)
{
    g_autofree char *img = make_image();
    QTestState *s;

    s = qtest_initf("-nodefaults " WRITER, img, "", "");
    /* uses consistent read and write; does not share write */
    g_assert_cmphex(locked_bytes(img), ==, 0x003 | 0x200);
    qtest_quit(s);
    g_assert_cmphex(locked_bytes(img), ==, 0);

    s = qtest_initf("-nodefaults " WRITER, img, ",readonly=on", "");
    g_assert_cmphex(locked_bytes(img), ==, 0x001 | 0x200);
    qtest_quit(s);

    s = qtest_initf("-nodefaults " WRITER, img, "", ",share-rw=on");
    g_assert_cmphex(locked_bytes(img), ==, 0x003);
    qtest_quit(s);

    /* No device: no permission, no lock. */
    s = qtest_initf("-nodefaults -drive file=%s,format=raw,if=none,id=d0",
                    img);
    g_assert_cmphex(locked_bytes(img), ==, 0);
    qtest_quit(s);
    unlink(img);
}

static void test_second_user(void)
{
    g_autofree char *img = make_image();
    g_autofree char *w = g_strdup_printf(WRITER, img, "", "");
    g_autofree char *r = g_strdup_printf(WRITER, img, ",readonly=on", "");
    g_autofree char *dev = g_strdup("-device virtio-blk-pci,drive=d0");
    g_autofree char *msg_w = refusal(dev, "\"write\"", img);
    g_autofree char *msg_r = refusal(dev, "shared \"write\"", img);
    QTestState *s = qtest_initf("-nodefaults %s", w);

    expect_refused(w, msg_w);
    expect_refused(r, msg_r);
    qtest_quit(s);

    /* A reader first: a writer is refused, a second reader is not. */
    s = qtest_initf("-nodefaults %s", r);
    expect_refused(w, msg_w);
    qtest_quit(qtest_initf("-nodefaults %s", r));
    qtest_quit(s);
    unlink(img);
}

static void test_share_rw_and_off(void)
{
    g_autofree char *img = make_image();
    QTestState *a, *b;

    a = qtest_initf("-nodefaults " WRITER, img, "", ",share-rw=on");
    b = qtest_initf("-nodefaults " WRITER, img, "", ",share-rw=on");
    qtest_quit(b);
    qtest_quit(a);

    a = qtest_initf("-nodefaults " WRITER, img, "", "");
    b = qtest_initf("-nodefaults " WRITER, img, ",file.locking=off", "");
    g_assert_cmphex(locked_bytes(img), ==, 0x003 | 0x200);
    qtest_quit(b);
    qtest_quit(a);
    unlink(img);
}

static bool peer_available(void)
{
    if (!g_file_test(PEER_QEMU, G_FILE_TEST_IS_EXECUTABLE)) {
        g_test_skip("no " PEER_QEMU " (Debian's qemu-system-x86)");
        return false;
    }
    return true;
}

/* Debian's QEMU with args, stopped (-S); NULL argv tail from args. */
static GPid peer_start(const char *args, int *err_fd)
{
    g_autofree char *cmd = g_strdup_printf(PEER_QEMU " -M pc -accel tcg "
                                           "-S -display none -nodefaults "
                                           "-monitor none %s", args);
    g_auto(GStrv) argv = NULL;
    GError *error = NULL;
    GPid pid;

    g_assert_true(g_shell_parse_argv(cmd, NULL, &argv, NULL));
    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                           NULL, &pid, NULL, NULL, err_fd,
                                           &error));
    return pid;
}

static void test_peer_holds(void)
{
    g_autofree char *img = make_image();
    g_autofree char *w = g_strdup_printf(WRITER, img, "", "");
    g_autofree char *msg = NULL;
    int err_fd, status;
    GPid pid;

    if (!peer_available()) {
        return;
    }
    pid = peer_start(w, &err_fd);
    /* Wait until it has opened the image and taken its locks. */
    for (int i = 0; i < 1000 && locked_bytes(img) != (0x003 | 0x200); i++) {
        g_usleep(10000);
    }
    g_assert_cmphex(locked_bytes(img), ==, 0x003 | 0x200);
    msg = refusal("-device virtio-blk-pci,drive=d0", "\"write\"", img);
    expect_refused(w, msg);
    kill(pid, SIGTERM);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    close(err_fd);
    unlink(img);
}

static void test_ours_holds(void)
{
    g_autofree char *img = make_image();
    g_autofree char *w = g_strdup_printf(WRITER, img, "", "");
    g_autofree char *text = NULL;
    g_autofree char *msg = NULL;
    QTestState *s;
    GString *err = g_string_new(NULL);
    char buf[512];
    int err_fd, status;
    ssize_t n;
    GPid pid;

    if (!peer_available()) {
        g_string_free(err, true);
        return;
    }
    s = qtest_initf("-nodefaults %s", w);
    pid = peer_start(w, &err_fd);
    while ((n = read(err_fd, buf, sizeof(buf))) > 0) {
        g_string_append_len(err, buf, n);
    }
    close(err_fd);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    text = g_string_free(err, false);
    msg = refusal("-device virtio-blk-pci,drive=d0", "\"write\"", img);
    g_assert_cmpstr(text, ==, msg);
    qtest_quit(s);
    unlink(img);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("block-lock/published", test_published);
    qtest_add_func("block-lock/second-user", test_second_user);
    qtest_add_func("block-lock/share-rw-and-locking-off",
                   test_share_rw_and_off);
    qtest_add_func("block-lock/peer-qemu-holds", test_peer_holds);
    qtest_add_func("block-lock/ours-holds-peer-qemu", test_ours_holds);
    return g_test_run();
}
