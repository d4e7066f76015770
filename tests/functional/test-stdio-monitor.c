/*
 * The human monitor on stdio, as a user at a terminal drives it through
 * pipes: -nographic -serial mon:stdio (the guest's console and the
 * monitor multiplexed, Ctrl-a c to switch, Ctrl-a x to quit) and
 * -monitor stdio, with their errors; and the default devices these
 * options and -nodefaults drop.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu-vm.h"

typedef struct Term {
    GPid pid;
    int in_fd, out_fd, err_fd;
    GString *out;
} Term;

static void term_start(Term *t, const char *args)
{
    g_autofree char *cmd = g_strdup_printf("%s %s", qemu_binary(), args);
    g_auto(GStrv) argv = NULL;
    GError *gerr = NULL;

    g_assert_true(g_shell_parse_argv(cmd, NULL, &argv, &gerr));
    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                           NULL, &t->pid, &t->in_fd,
                                           &t->out_fd, &t->err_fd, &gerr));
    g_assert_no_error(gerr);
    fcntl(t->out_fd, F_SETFL, fcntl(t->out_fd, F_GETFL) | O_NONBLOCK);
    t->out = g_string_new(NULL);
}

/* Read stdout until it holds text after offset from, or 20 s pass. */
static bool term_wait(Term *t, size_t from, const char *text)
{
    gint64 deadline = g_get_monotonic_time() + 20 * G_USEC_PER_SEC;

    while (!strstr(t->out->str + MIN(from, t->out->len), text)) {
        struct pollfd p = { .fd = t->out_fd, .events = POLLIN };
        char buf[4096];
        ssize_t n;

        if (g_get_monotonic_time() > deadline) {
            g_test_message("no \"%s\" in: %s", text, t->out->str);
            return false;
        }
        if (poll(&p, 1, 100) <= 0) {
            continue;
        }
        n = read(t->out_fd, buf, sizeof(buf));
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
            g_test_message("stdout closed; no \"%s\" in: %s", text,
                           t->out->str);
            return false;
        }
        if (n > 0) {
            g_string_append_len(t->out, buf, n);
        }
    }
    return true;
}

static void term_type(Term *t, const char *keys)
{
    g_assert_cmpint(write(t->in_fd, keys, strlen(keys)), ==, strlen(keys));
}

/* Wait for the exit; the exit status, and stderr in *err. */
static int term_finish(Term *t, char **err)
{
    int status;

    g_assert_cmpint(waitpid(t->pid, &status, 0), ==, t->pid);
    close(t->in_fd);
    fcntl(t->out_fd, F_SETFL, fcntl(t->out_fd, F_GETFL) & ~O_NONBLOCK);
    g_autofree char *rest = read_all_fd(t->out_fd);
    g_string_append(t->out, rest);
    *err = read_all_fd(t->err_fd);
    g_spawn_close_pid(t->pid);
    return status;
}

static void term_free(Term *t)
{
    g_string_free(t->out, TRUE);
}

/*
 * The most common headless line: the guest's console on the terminal,
 * Ctrl-a c to the monitor and back, Ctrl-a x to quit.
 */
static void test_serial_mon_stdio(void)
{
    g_autofree char *kernel = vm_require_guest_kit("hello.elf");
    g_autofree char *args = NULL;
    g_autofree char *err = NULL;
    Term t;
    size_t mark;
    int status;

    if (!kernel) {
        return;
    }
    args = g_strdup_printf("-M pc -accel tcg -m 128 -nographic "
                           "-serial mon:stdio -kernel %s", kernel);
    term_start(&t, args);
    /* The guest's output passes through the mux while it has the focus. */
    g_assert_true(term_wait(&t, 0, "hello: PASS\n"));
    mark = t.out->len;
    term_type(&t, "\001c");
    g_assert_true(term_wait(&t, mark, "(qemu) "));
    mark = t.out->len;
    term_type(&t, "info status\r");
    g_assert_true(term_wait(&t, mark, "VM status: running\r\n(qemu) "));
    /* Back on the console: typed text goes to the guest, not the monitor. */
    term_type(&t, "\001c");
    mark = t.out->len;
    term_type(&t, "info status\r");
    term_type(&t, "\001x");
    g_assert_true(term_wait(&t, mark, "QEMU: Terminated"));
    status = term_finish(&t, &err);
    g_assert_null(strstr(t.out->str + mark, "VM status"));
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_cmpstr(err, ==, "");
    /* One monitor banner: the default monitor is not made beside it. */
    g_assert_nonnull(strstr(t.out->str, "QEMU 7.2.0 monitor"));
    g_assert_null(strstr(strstr(t.out->str, "QEMU 7.2.0 monitor") + 1,
                         "QEMU 7.2.0 monitor"));
    term_free(&t);
}

/* -monitor stdio: the prompt, a command's answer, quit. */
static void test_monitor_stdio(gconstpointer data)
{
    g_autofree char *err = NULL;
    Term t;
    int status;

    term_start(&t, data);
    g_assert_true(term_wait(&t, 0, "(qemu) "));
    term_type(&t, "info status\r");
    g_assert_true(term_wait(&t, 0, "VM status: paused (prelaunch)\r\n(qemu) "));
    term_type(&t, "quit\r");
    status = term_finish(&t, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_cmpstr(err, ==, "");
    term_free(&t);
}

/* -monitor none: no monitor at all, not even -nographic's default one. */
static void test_monitor_none(void)
{
    g_autofree char *err = NULL;
    Term t;
    int status;

    term_start(&t, "-M none -accel qtest -nographic -monitor none "
               "-qmp stdio -S");
    g_assert_true(term_wait(&t, 0, "{\"QMP\":"));
    term_type(&t, "{\"execute\": \"qmp_capabilities\"}\n"
              "{\"execute\": \"quit\"}\n");
    status = term_finish(&t, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_null(strstr(t.out->str, "(qemu)"));
    g_assert_nonnull(strstr(t.out->str, "\"host-qmp-quit\""));
    term_free(&t);
}

/* QMP on stdio: the replies to commands, after qmp_capabilities. */
static char *qmp_stdio(const char *args, const char *commands)
{
    g_autofree char *cmdline = g_strdup_printf("-accel qtest -S -qmp stdio "
                                               "%s", args);
    g_autofree char *err = NULL;
    Term t;
    int status;
    char *out;

    term_start(&t, cmdline);
    g_assert_true(term_wait(&t, 0, "{\"QMP\":"));
    term_type(&t, "{\"execute\": \"qmp_capabilities\"}\n");
    term_type(&t, commands);
    term_type(&t, "{\"execute\": \"quit\"}\n");
    status = term_finish(&t, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_cmpstr(err, ==, "");
    out = g_strdup(t.out->str);
    term_free(&t);
    return out;
}

/*
 * The pc's default serial port is there unless -nodefaults; -vga none
 * and -no-fd-bootchk are accepted (no graphics card or floppy yet) and
 * drop nothing else.
 */
static void test_nodefaults(void)
{
    static const char query[] = "{\"execute\": \"query-chardev\"}\n";
    g_autofree char *with = qmp_stdio("-M pc -display none -vga none "
                                      "-no-fd-bootchk", query);
    g_autofree char *without = qmp_stdio("-M pc -display none -nodefaults",
                                         query);
    g_autofree char *nographic = qmp_stdio("-M pc -nographic -nodefaults",
                                           query);

    g_assert_nonnull(strstr(with, "\"label\": \"serial0\""));
    g_assert_null(strstr(without, "\"label\": \"serial0\""));
    g_assert_nonnull(strstr(without, "\"label\": \"compat_monitor0\""));
    /* -nographic -nodefaults: neither the serial port nor the monitor. */
    g_assert_null(strstr(nographic, "\"label\": \"serial0\""));
    g_assert_null(strstr(nographic, "(qemu)"));
    g_assert_null(strstr(nographic, "\"label\": \"compat_monitor1\""));
}

static const struct {
    const char *args, *line;
} bad_monitors[] = {
    /* As QEMU: stdio for both a serial port and the default monitor. */
    { "-nographic -serial stdio", "-serial stdio: cannot use stdio by "
      "multiple character devices" },
    { "-monitor stdio -serial stdio", "-serial stdio: cannot use stdio by "
      "multiple character devices" },
    { "-monitor foo:bar", "-monitor foo:bar: 'foo:bar' is not a valid char "
      "driver" },
    { "-monitor chardev:nope", "-monitor chardev:nope: chardev \"nope\" not "
      "found" },
};

static void test_bad_monitor(gconstpointer data)
{
    size_t i = GPOINTER_TO_SIZE(data);
    g_autofree char *args = g_strdup_printf("-M none -accel qtest "
                                            "-display none %s",
                                            bad_monitors[i].args);
    g_autofree char *expect = g_strdup_printf("qemu-system-x86_64: %s\n",
                                              bad_monitors[i].line);
    g_autofree char *out = NULL, *err = NULL;
    int status = qemu_run(args, &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, expect);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/stdio-monitor/serial-mon-stdio", test_serial_mon_stdio);
    g_test_add_data_func("/stdio-monitor/monitor-stdio",
                         "-M none -accel qtest -display none -S "
                         "-monitor stdio", test_monitor_stdio);
    /* -nographic's default monitor gives way to -monitor's. */
    g_test_add_data_func("/stdio-monitor/nographic-monitor-stdio",
                         "-M pc -accel qtest -nographic -S -serial null "
                         "-monitor stdio", test_monitor_stdio);
    g_test_add_data_func("/stdio-monitor/chardev",
                         "-M none -accel qtest -display none -S "
                         "-chardev stdio,id=c0 -monitor chardev:c0",
                         test_monitor_stdio);
    g_test_add_func("/stdio-monitor/monitor-none", test_monitor_none);
    g_test_add_func("/stdio-monitor/nodefaults", test_nodefaults);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_monitors); i++) {
        g_autofree char *path = g_strdup_printf("/stdio-monitor/bad/%zu", i);

        g_test_add_data_func(path, GSIZE_TO_POINTER(i), test_bad_monitor);
    }
    return g_test_run();
}
