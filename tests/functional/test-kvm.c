/*
 * Guests under KVM on the pc machine: multiboot boot, serial output and
 * isa-debug-exit status, SMP, -S/cont, stop/cont, system_reset, SIGTERM,
 * the internal-error path, RAM above 4 GiB, and the loader's errors.
 *
 * Two kinds of guests: tiny multiboot images this file writes itself
 * (a.out kludge, 32-bit code, no paging: a few instructions each, so
 * slow emulation of unpaged code does not matter), and the guest kit's
 * programs from tests/guest (GUEST_DIR) where they were built.
 * Every case is skipped, never passed, where /dev/kvm cannot be opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-run.h"

#define MB_MAGIC            0x1BADB002u
#define MB_AOUT_KLUDGE      0x00010000u
#define MB_LOAD_ADDR        0x100000u
#define MB_HEADER_SIZE      32
#define GUEST_PASS_STATUS   1       /* (GUEST_PASS << 1) | 1 */
#define TIMEOUT_MS          20000

static char *tmpdir;

static bool kvm_usable(void)
{
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        g_test_skip("no /dev/kvm (or no access to it): KVM tests skipped");
        return false;
    }
    close(fd);
    return true;
}

/* --- tiny guests -------------------------------------------------------- */

static const uint8_t code_print_x[] = {
    0x66, 0xba, 0xf8, 0x03,             /* mov $0x3f8, %dx */
    0xb0, 'X', 0xee,                    /* mov $'X', %al; out %al, %dx */
    0xb0, '\n', 0xee,                   /* mov $'\n', %al; out %al, %dx */
};
/* isa-debug-exit with 0x2a: status (0x2a << 1) | 1 = 85 */
static const uint8_t code_exit42[] = { 0xb0, 0x2a, 0xe6, 0xf4 };
static const uint8_t code_idle[] = {
    0xfa, 0xf4, 0xeb, 0xfd,             /* cli; 1: hlt; jmp 1b */
};
/* Execute from an address nothing backs: KVM cannot emulate that. */
static const uint8_t code_exec_mmio[] = {
    0xb8, 0x00, 0x00, 0x00, 0xe0,       /* mov $0xe0000000, %eax */
    0xff, 0xe0,                         /* jmp *%eax */
};
/* An IDT of limit 0, then #UD: #GP, #DF, shutdown. */
static const uint8_t code_triple_fault[] = {
    0x0f, 0x01, 0x1d, 0x00, 0x10, 0x00, 0x00,   /* lidt 0x1000 */
    0x0f, 0x0b,                                 /* ud2 */
};
/* Print '.' forever, with a pause between dots. */
static const uint8_t code_ticker[] = {
    0x66, 0xba, 0xf8, 0x03,             /* mov $0x3f8, %dx */
    0xb0, '.', 0xee,                    /* 1: mov $'.', %al; out %al, %dx */
    0xb9, 0x00, 0x10, 0x00, 0x00,       /* mov $0x1000, %ecx */
    0xe2, 0xfe,                         /* 2: loop 2b */
    0xeb, 0xf4,                         /* jmp 1b */
};

static void put32(GByteArray *b, uint32_t v)
{
    uint8_t le[4] = { v, v >> 8, v >> 16, v >> 24 };

    g_byte_array_append(b, le, 4);
}

/* Write a multiboot a.out-kludge image of the code pieces; returns path. */
static char *make_guest(const char *name, const uint8_t *const *parts,
                        const size_t *sizes)
{
    GByteArray *code = g_byte_array_new();
    GByteArray *img = g_byte_array_new();
    char *path = g_build_filename(tmpdir, name, NULL);
    uint32_t end;

    for (int i = 0; parts[i]; i++) {
        g_byte_array_append(code, parts[i], sizes[i]);
    }
    end = MB_LOAD_ADDR + MB_HEADER_SIZE + code->len;
    put32(img, MB_MAGIC);
    put32(img, MB_AOUT_KLUDGE);
    put32(img, -(MB_MAGIC + MB_AOUT_KLUDGE));
    put32(img, MB_LOAD_ADDR);           /* header_addr */
    put32(img, MB_LOAD_ADDR);           /* load_addr */
    put32(img, end);                    /* load_end_addr */
    put32(img, end);                    /* bss_end_addr */
    put32(img, MB_LOAD_ADDR + MB_HEADER_SIZE);  /* entry */
    g_byte_array_append(img, code->data, code->len);
    g_assert_true(g_file_set_contents(path, (char *)img->data, img->len,
                                      NULL));
    g_byte_array_free(code, TRUE);
    g_byte_array_free(img, TRUE);
    return path;
}

#define GUEST(name, ...) \
    make_guest(name, (const uint8_t *const[]){ __VA_ARGS__, NULL }, \
               (const size_t[]){ GUEST_SIZES(__VA_ARGS__) })
#define GUEST_SIZES(...) GUEST_SIZES_(__VA_ARGS__, 0, 0, 0)
#define GUEST_SIZES_(a, b, c, ...) sizeof(a), sizeof(b), sizeof(c)

static char *guest_kit(const char *name)
{
    char *path = g_build_filename(GUEST_DIR, name, NULL);

    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_free(path);
        return NULL;
    }
    return path;
}

/* --- running the emulator ---------------------------------------------- */

typedef struct Vm {
    GPid pid;
    int err_fd;
    int qmp;
    char *serial;
    char *qmp_path;
    GString *events;
    GString *rx;
} Vm;

static const char *const common_args =
    "-M pc -accel kvm -display none -nodefaults "
    "-device isa-debug-exit,iobase=0xf4,iosize=0x4";

/* Run to completion (append may hold spaces); serial and stderr kept. */
static int run_guest_append(const char *extra, const char *kernel,
                            const char *append, char **serial, char **err)
{
    char *ser = g_build_filename(tmpdir, "serial.out", NULL);
    char *args = g_strdup_printf("%s %s -serial file:%s %s -kernel %s",
                                 qemu_binary(), common_args, ser, extra,
                                 kernel);
    char **words = g_strsplit(args, " ", -1);
    GPtrArray *argv = g_ptr_array_new();
    int status;

    for (char **w = words; *w; w++) {
        if (**w) {
            g_ptr_array_add(argv, *w);
        }
    }
    if (append) {
        g_ptr_array_add(argv, (char *)"-append");
        g_ptr_array_add(argv, (char *)append);
    }
    g_ptr_array_add(argv, NULL);
    g_unlink(ser);
    status = qemu_run_argv((char **)argv->pdata, NULL, err);
    g_ptr_array_free(argv, TRUE);
    g_strfreev(words);
    if (serial) {
        if (!g_file_get_contents(ser, serial, NULL, NULL)) {
            *serial = g_strdup("");
        }
    }
    g_free(args);
    g_free(ser);
    return status;
}

static int run_guest(const char *extra, const char *kernel, char **serial,
                     char **err)
{
    return run_guest_append(extra, kernel, NULL, serial, err);
}

static void vm_start_args(Vm *vm, const char *extra, const char *kernel)
{
    char *args;
    char **argv;
    GError *gerr = NULL;
    struct sockaddr_un addr = { .sun_family = AF_UNIX };

    memset(vm, 0, sizeof(*vm));
    vm->serial = g_build_filename(tmpdir, "vm-serial.out", NULL);
    vm->qmp_path = g_build_filename(tmpdir, "qmp.sock", NULL);
    g_unlink(vm->serial);
    g_unlink(vm->qmp_path);
    args = g_strdup_printf("%s %s -serial file:%s -qmp unix:%s,server=on,"
                           "wait=off %s -kernel %s", qemu_binary(),
                           common_args, vm->serial, vm->qmp_path, extra,
                           kernel);
    argv = g_strsplit(args, " ", -1);
    /* Drop the empty words double spaces leave. */
    for (int r = 0, w = 0; ; r++) {
        if (argv[r] && !*argv[r]) {
            g_free(argv[r]);
            continue;
        }
        argv[w++] = argv[r];
        if (!argv[r]) {
            break;
        }
    }
    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                           NULL, &vm->pid, NULL, NULL,
                                           &vm->err_fd, &gerr));
    g_assert_no_error(gerr);
    g_strfreev(argv);
    g_free(args);

    vm->events = g_string_new(NULL);
    vm->rx = g_string_new(NULL);
    g_strlcpy(addr.sun_path, vm->qmp_path, sizeof(addr.sun_path));
    vm->qmp = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    for (int i = 0; ; i++) {
        if (connect(vm->qmp, (struct sockaddr *)&addr, sizeof(addr)) == 0) {
            break;
        }
        g_assert_cmpint(i, <, TIMEOUT_MS / 10);
        g_usleep(10 * 1000);
    }
}

/* One line from QMP; events are kept in vm->events. */
static char *qmp_line(Vm *vm)
{
    char buf[4096];

    for (;;) {
        char *nl = strchr(vm->rx->str, '\n');
        ssize_t n;

        if (nl) {
            char *line = g_strndup(vm->rx->str, nl - vm->rx->str);

            g_string_erase(vm->rx, 0, nl - vm->rx->str + 1);
            if (strstr(line, "\"event\"")) {
                g_string_append_printf(vm->events, "%s\n", line);
                g_free(line);
                continue;
            }
            return line;
        }
        n = read(vm->qmp, buf, sizeof(buf));
        if (n <= 0) {
            return NULL;
        }
        g_string_append_len(vm->rx, buf, n);
    }
}

static char *qmp(Vm *vm, const char *cmd)
{
    char *msg = g_strdup_printf("{\"execute\": \"%s\"}\n", cmd);

    g_assert_cmpint(write(vm->qmp, msg, strlen(msg)), ==, strlen(msg));
    g_free(msg);
    return qmp_line(vm);
}

static void qmp_ok(Vm *vm, const char *cmd)
{
    char *r = qmp(vm, cmd);

    g_assert_nonnull(r);
    g_assert_nonnull(strstr(r, "\"return\""));
    g_free(r);
}

static void vm_qmp_init(Vm *vm)
{
    char *greeting = qmp_line(vm);

    g_assert_nonnull(strstr(greeting, "QMP"));
    g_free(greeting);
    qmp_ok(vm, "qmp_capabilities");
}

static char *vm_status(Vm *vm)
{
    char *r = qmp(vm, "query-status");
    char *p = strstr(r, "\"status\"");
    char *s;

    g_assert_nonnull(p);
    p = strchr(p + 8, '"') + 1;
    s = g_strndup(p, strchr(p, '"') - p);
    g_free(r);
    return s;
}

static char *serial_text(Vm *vm)
{
    char *s = NULL;

    if (!g_file_get_contents(vm->serial, &s, NULL, NULL)) {
        s = g_strdup("");
    }
    return s;
}

static bool wait_serial(Vm *vm, const char *text, int count)
{
    for (int i = 0; i < TIMEOUT_MS / 10; i++) {
        char *s = serial_text(vm);
        int found = 0;

        for (char *p = s; (p = strstr(p, text)); p += strlen(text)) {
            found++;
        }
        g_free(s);
        if (found >= count) {
            return true;
        }
        g_usleep(10 * 1000);
    }
    return false;
}

static bool wait_event(Vm *vm, const char *event)
{
    char *want = g_strdup_printf("\"event\": \"%s\"", event);
    char *r;
    bool found;

    /* Events arrive between replies: poll with a cheap command. */
    for (int i = 0; i < TIMEOUT_MS / 10; i++) {
        found = strstr(vm->events->str, want) != NULL;
        if (found) {
            break;
        }
        r = qmp(vm, "query-status");
        g_free(r);
        g_usleep(10 * 1000);
    }
    g_free(want);
    return found;
}

/* Wait for the process; returns the wait status and stderr. */
static int vm_wait(Vm *vm, char **err)
{
    int status;

    g_assert_cmpint(waitpid(vm->pid, &status, 0), ==, vm->pid);
    if (err) {
        *err = read_all_fd(vm->err_fd);
    } else {
        g_free(read_all_fd(vm->err_fd));
    }
    close(vm->qmp);
    g_string_free(vm->events, TRUE);
    g_string_free(vm->rx, TRUE);
    g_unlink(vm->qmp_path);
    g_free(vm->qmp_path);
    g_free(vm->serial);
    return status;
}

static void vm_quit(Vm *vm)
{
    int status;

    qmp_ok(vm, "quit");
    status = vm_wait(vm, NULL);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

/* --- tests -------------------------------------------------------------- */

static void test_debug_exit(void)
{
    char *k, *serial, *err;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("exit42.bin", code_print_x, code_exit42);
    status = run_guest("-m 128M", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, (0x2a << 1) | 1);
    g_assert_cmpstr(serial, ==, "X\n");
    g_assert_cmpstr(err, ==, "");
    g_free(serial);
    g_free(err);
    g_free(k);
}

/* The guest kit's hello: the loader's handover, as QEMU 7.2 gives it. */
static void test_hello(void)
{
    char *k, *serial, *err, *expect;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = guest_kit("hello.elf");
    if (!k) {
        g_test_skip("tests/guest programs not built");
        return;
    }
    status = run_guest_append("-m 512M", k, "foo bar", &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    /* Recorded from Debian's QEMU 7.2 with the same options. */
    g_assert_true(g_file_get_contents(GUEST_SRC_DIR "/expected/hello.kvm.txt",
                                      &expect, NULL, NULL));
    g_assert_cmpstr(serial, ==, expect);
    g_free(expect);
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_smp(gconstpointer data)
{
    int cpus = GPOINTER_TO_INT(data);
    char *k, *serial, *args, *line;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = guest_kit("smp.elf");
    if (!k) {
        g_test_skip("tests/guest programs not built");
        return;
    }
    args = g_strdup_printf("-m 512M -smp %d", cpus);
    status = run_guest(args, k, &serial, NULL);
    line = g_strdup_printf("smp: cpus: %d/%d\n", cpus, cpus);
    g_assert_nonnull(strstr(serial, line));
    g_assert_nonnull(strstr(serial, "smp: PASS\n"));
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    g_free(line);
    g_free(args);
    g_free(serial);
    g_free(k);
}

static void test_query_cpus(void)
{
    char *k, *r;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("idle.bin", code_print_x, code_idle);
    vm_start_args(&vm, "-smp 4,sockets=2,cores=2 -name vm,debug-threads=on",
                  k);
    vm_qmp_init(&vm);
    r = qmp(&vm, "query-cpus-fast");
    for (int i = 0; i < 4; i++) {
        char *path = g_strdup_printf("\"qom-path\": \"/machine/unattached/"
                                     "device[%d]\"", i);
        char *comm = g_strdup_printf("/proc/%d/task", vm.pid);
        GDir *dir = g_dir_open(comm, 0, NULL);
        const char *t;
        bool named = false;
        char *want = g_strdup_printf("CPU %d/KVM\n", i);

        g_assert_nonnull(strstr(r, path));
        while ((t = g_dir_read_name(dir))) {
            char *f = g_strdup_printf("%s/%s/comm", comm, t);
            char *c = NULL;

            if (g_file_get_contents(f, &c, NULL, NULL) && !strcmp(c, want)) {
                named = true;
            }
            g_free(c);
            g_free(f);
        }
        g_assert_true(named);
        g_dir_close(dir);
        g_free(want);
        g_free(comm);
        g_free(path);
    }
    g_assert_nonnull(strstr(r, "\"socket-id\": 1"));
    g_assert_nonnull(strstr(r, "\"target\": \"x86_64\""));
    g_assert_null(strstr(r, "device[4]"));
    g_free(r);
    vm_quit(&vm);
    g_free(k);
}

static void test_start_paused(void)
{
    char *k, *s, *st;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("idle.bin", code_print_x, code_idle);
    vm_start_args(&vm, "-S", k);
    vm_qmp_init(&vm);
    st = vm_status(&vm);
    g_assert_cmpstr(st, ==, "prelaunch");
    g_free(st);
    g_usleep(200 * 1000);
    s = serial_text(&vm);
    g_assert_cmpstr(s, ==, "");
    g_free(s);
    qmp_ok(&vm, "cont");
    g_assert_true(wait_serial(&vm, "X\n", 1));
    st = vm_status(&vm);
    g_assert_cmpstr(st, ==, "running");
    g_free(st);
    vm_quit(&vm);
    g_free(k);
}

static void test_stop_cont(void)
{
    char *k, *a, *b, *st;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("ticker.bin", code_ticker);
    vm_start_args(&vm, "", k);
    vm_qmp_init(&vm);
    g_assert_true(wait_serial(&vm, ".", 3));
    qmp_ok(&vm, "stop");
    g_assert_true(wait_event(&vm, "STOP"));
    st = vm_status(&vm);
    g_assert_cmpstr(st, ==, "paused");
    g_free(st);
    a = serial_text(&vm);
    g_usleep(300 * 1000);
    b = serial_text(&vm);
    /* Stopped means stopped: not one more byte. */
    g_assert_cmpuint(strlen(a), ==, strlen(b));
    qmp_ok(&vm, "cont");
    g_assert_true(wait_event(&vm, "RESUME"));
    g_assert_true(wait_serial(&vm, ".", strlen(b) + 3));
    g_free(a);
    g_free(b);
    vm_quit(&vm);
    g_free(k);
}

static void test_system_reset(void)
{
    char *k;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("idle.bin", code_print_x, code_idle);
    vm_start_args(&vm, "", k);
    vm_qmp_init(&vm);
    g_assert_true(wait_serial(&vm, "X\n", 1));
    qmp_ok(&vm, "system_reset");
    g_assert_true(wait_event(&vm, "RESET"));
    g_assert_true(wait_serial(&vm, "X\n", 2));
    vm_quit(&vm);
    g_free(k);
}

static void test_sigterm(void)
{
    char *k, *err;
    int status;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("ticker.bin", code_ticker);
    vm_start_args(&vm, "-smp 2", k);
    vm_qmp_init(&vm);
    g_assert_true(wait_serial(&vm, ".", 3));
    kill(vm.pid, SIGTERM);
    status = vm_wait(&vm, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_nonnull(strstr(err, "terminating on signal 15"));
    g_free(err);
    g_free(k);
}

static void test_internal_error(void)
{
    char *k, *err, *serial;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("exec-mmio.bin", code_print_x, code_exec_mmio);
    status = run_guest("", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(serial, ==, "X\n");
    g_assert_nonnull(strstr(err, "KVM internal error. Suberror: 1\n"));
    g_assert_nonnull(strstr(err, "RIP=00000000e0000000"));
    g_assert_nonnull(strstr(err, "CR0="));
    g_assert_nonnull(strstr(err, "EFER="));
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_internal_error_no_shutdown(void)
{
    char *k, *st;
    Vm vm;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("exec-mmio.bin", code_print_x, code_exec_mmio);
    vm_start_args(&vm, "-no-shutdown", k);
    vm_qmp_init(&vm);
    /* The error may come before QMP is connected: poll the state. */
    for (int i = 0; ; i++) {
        st = vm_status(&vm);
        if (!strcmp(st, "internal-error")) {
            break;
        }
        g_assert_cmpint(i, <, TIMEOUT_MS / 10);
        g_free(st);
        g_usleep(10 * 1000);
    }
    g_free(st);
    /* A reset brings the guest back. */
    qmp_ok(&vm, "system_reset");
    qmp_ok(&vm, "cont");
    g_assert_true(wait_serial(&vm, "X\n", 2));
    vm_quit(&vm);
    g_free(k);
}

static void test_triple_fault(void)
{
    char *k, *err, *serial;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("triple.bin", code_print_x, code_triple_fault);
    status = run_guest("-no-reboot", k, &serial, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpstr(serial, ==, "X\n");
    /* kvm_pvm may report the shutdown as an internal error instead. */
    if (WEXITSTATUS(status) == 1) {
        g_assert_nonnull(strstr(err, "KVM internal error"));
    } else {
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        g_assert_cmpstr(err, ==, "");
    }
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_high_ram(void)
{
    char *k, *serial;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = guest_kit("dirty.elf");
    if (!k) {
        g_test_skip("tests/guest programs not built");
        return;
    }
    status = run_guest_append("-m 5G", k, "dirty=16 dirty_high=64", &serial,
                              NULL);
    g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
    g_assert_nonnull(strstr(serial, "dirty_high: 64 MiB verified\n"));
    g_free(serial);
    g_free(k);
}

/*
 * -overcommit cpu-pm=on leaves HLT, MWAIT and PAUSE to the guest as far
 * as KVM allows (here: HLT and PAUSE); the timer guest, which waits in
 * HLT for its interrupts, must still get every one of them.
 */
static void test_cpu_pm(void)
{
    char *k, *serial, *err;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = guest_kit("timer.elf");
    if (!k) {
        g_test_skip("tests/guest programs not built");
        return;
    }
    status = run_guest("-overcommit cpu-pm=on", k, &serial, &err);
    if (WEXITSTATUS(status) == 1 && strstr(err, "cpu-pm=on: this host")) {
        /* A KVM without KVM_CAP_X86_DISABLE_EXITS: the clear error. */
        g_test_skip("this host's KVM cannot disable HLT/MWAIT/PAUSE exits");
    } else {
        g_assert_cmpint(WEXITSTATUS(status), ==, GUEST_PASS_STATUS);
        g_assert_nonnull(strstr(serial, "timer: PASS\n"));
    }
    g_free(serial);
    g_free(err);
    g_free(k);
}

static void test_options(void)
{
    char *k, *serial, *err;
    int status;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("exit42.bin", code_print_x, code_exit42);
    const char *const ok_args[] = {
        "-machine pit=off",
        "-global kvm-pit.lost_tick_policy=discard",
        "-cpu qemu64,+x2apic,-sse4a",
        "-cpu max",
        "-smp 3,sockets=1,cores=3,threads=1",
        "-m 512M -smp 2,threads=2",
    };
    for (size_t i = 0; i < G_N_ELEMENTS(ok_args); i++) {
        status = run_guest(ok_args[i], k, &serial, &err);
        g_assert_cmpint(WEXITSTATUS(status), ==, (0x2a << 1) | 1);
        g_assert_cmpstr(serial, ==, "X\n");
        g_free(serial);
        g_free(err);
    }
    g_free(k);
}

static const struct {
    const char *args;
    const char *line;
} bad_cmdlines[] = {
    { "-M pc -accel kvm -display none", "qemu-system-x86_64: no firmware "
      "yet: use -kernel to boot a multiboot or Linux kernel\n" },
    { "-M pc,kernel-irqchip=off -accel kvm -display none -kernel KERNEL",
      "qemu-system-x86_64: kernel-irqchip=off is not supported yet\n" },
    { "-M pc -accel kvm,kernel-irqchip=off -display none -kernel KERNEL",
      "qemu-system-x86_64: kernel-irqchip=off is not supported yet\n" },
    { "-M pc -accel kvm -display none -cpu qemu64,+nosuchfeature "
      "-kernel KERNEL", "qemu-system-x86_64: -cpu qemu64,+nosuchfeature: "
      "Property 'qemu64-x86_64-cpu.nosuchfeature' not found\n" },
    { "-M pc -accel kvm -display none -kernel /nonexistent",
      "qemu-system-x86_64: could not open kernel file '/nonexistent': "
      "No such file or directory\n" },
};

static void test_bad_cmdline(void)
{
    char *k, *out, *err;

    if (!kvm_usable()) {
        return;
    }
    k = GUEST("exit42.bin", code_print_x, code_exit42);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cmdlines); i++) {
        char **parts = g_strsplit(bad_cmdlines[i].args, "KERNEL", -1);
        char *args = g_strjoinv(k, parts);
        int status = qemu_run(args, &out, &err);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_cmpstr(err, ==, bad_cmdlines[i].line);
        g_free(out);
        g_free(err);
        g_free(args);
        g_strfreev(parts);
    }
    g_free(k);
}

/* Each broken bzImage gets one line of error and status 1. */
static void test_bzimage_errors(void)
{
    char *dir = tmpdir;
    char *trunc = g_build_filename(dir, "truncated.bzImage", NULL);
    char *junk = g_build_filename(dir, "junk.bin", NULL);
    char *missing = g_build_filename(dir, "missing.bzImage", NULL);
    uint8_t hdr[0x260] = { 0 };
    const char *files[] = { trunc, junk, missing };

    if (!kvm_usable()) {
        return;
    }
    /* A setup header that claims more setup sectors than the file has. */
    hdr[0x1f1] = 30;
    memcpy(&hdr[0x202], "HdrS", 4);
    hdr[0x206] = 0x0f;
    hdr[0x207] = 0x02;
    hdr[0x1fe] = 0x55;
    hdr[0x1ff] = 0xaa;
    g_assert_true(g_file_set_contents(trunc, (char *)hdr, sizeof(hdr),
                                      NULL));
    g_assert_true(g_file_set_contents(junk, "not a kernel at all\n", -1,
                                      NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(files); i++) {
        char *args = g_strdup_printf("%s -kernel %s", common_args, files[i]);
        char *err;
        int status = qemu_run(args, NULL, &err);

        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_true(g_str_has_prefix(err, "qemu-system-x86_64: "));
        g_assert_nonnull(strstr(err, files[i]));
        /* exactly one line */
        g_assert_true(g_str_has_suffix(err, "\n"));
        g_assert_true(strchr(err, '\n') == err + strlen(err) - 1);
        g_free(err);
        g_free(args);
    }
    g_free(trunc);
    g_free(junk);
    g_free(missing);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-kvm-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);
    g_test_add_func("/kvm/boot/debug-exit", test_debug_exit);
    g_test_add_func("/kvm/boot/multiboot-hello", test_hello);
    g_test_add_data_func("/kvm/smp/1", GINT_TO_POINTER(1), test_smp);
    g_test_add_data_func("/kvm/smp/4", GINT_TO_POINTER(4), test_smp);
    g_test_add_func("/kvm/smp/query-cpus-fast", test_query_cpus);
    g_test_add_func("/kvm/run/start-paused", test_start_paused);
    g_test_add_func("/kvm/run/stop-cont", test_stop_cont);
    g_test_add_func("/kvm/run/system-reset", test_system_reset);
    g_test_add_func("/kvm/run/sigterm", test_sigterm);
    g_test_add_func("/kvm/error/internal-error", test_internal_error);
    g_test_add_func("/kvm/error/internal-error-no-shutdown",
                    test_internal_error_no_shutdown);
    g_test_add_func("/kvm/error/triple-fault", test_triple_fault);
    g_test_add_func("/kvm/memory/above-4g", test_high_ram);
    g_test_add_func("/kvm/options/accepted", test_options);
    g_test_add_func("/kvm/options/cpu-pm", test_cpu_pm);
    g_test_add_func("/kvm/options/rejected", test_bad_cmdline);
    g_test_add_func("/kvm/loader/bzimage-errors", test_bzimage_errors);
    ret = g_test_run();
    {
        GDir *d = g_dir_open(tmpdir, 0, NULL);
        const char *n;

        while (d && (n = g_dir_read_name(d))) {
            char *p = g_build_filename(tmpdir, n, NULL);

            g_unlink(p);
            g_free(p);
        }
        if (d) {
            g_dir_close(d);
        }
        g_rmdir(tmpdir);
    }
    return ret;
}
