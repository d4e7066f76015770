/*
 * qtest for isa-debugcon: bytes written to its port reach the chardev
 * (a file here), a read returns the readback value.
 */
#include <unistd.h>

#include <glib.h>

#include "libqtest.h"

static void test_debugcon(void)
{
    g_autofree char *path = NULL;
    g_autofree char *got = NULL;
    int fd = g_file_open_tmp("debugcon-XXXXXX.txt", &path, NULL);
    QTestState *s;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    s = qtest_initf("-machine pc -chardev file,id=dbg,path=%s "
                    "-device isa-debugcon,iobase=0x402,chardev=dbg", path);
    qtest_outb(s, 0x402, 'o');
    qtest_outb(s, 0x402, 'k');
    g_assert_cmphex(qtest_inb(s, 0x402), ==, 0xe9);
    qtest_quit(s);
    g_assert_true(g_file_get_contents(path, &got, NULL, NULL));
    g_assert_cmpstr(got, ==, "ok");
    unlink(path);

    /* QEMU 7.2's words. */
    qtest_assert_start_error("-machine pc -device isa-debugcon",
                             "qemu-system-x86_64: -device isa-debugcon: "
                             "Can't create debugcon device, empty char "
                             "device\n");
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/debugcon/write", test_debugcon);
    return g_test_run();
}
