/*
 * Running the emulator from the functional tests (qemu-vm.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib/gstdio.h>

#include "libqmp.h"
#include "qemu-vm.h"

#define UID_NOBODY          65534
#define MB_MAGIC            0x1BADB002u
#define MB_AOUT_KLUDGE      0x00010000u
#define MB_LOAD_ADDR        0x100000u
#define MB_HEADER_SIZE      32

const char *qemu_binary(void)
{
    const char *env = g_getenv("QTEST_QEMU_BINARY");

    return env ? env : QEMU_BINARY;
}

int qemu_run_argv(char **argv, char **out, char **err)
{
    GError *gerr = NULL;
    int status = -1;
    char *o = NULL, *e = NULL;

    if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_STDIN_FROM_DEV_NULL, NULL,
                      NULL, &o, &e, &status, &gerr)) {
        g_error("cannot run %s: %s", argv[0], gerr->message);
    }
    if (out) {
        *out = o;
    } else {
        g_free(o);
    }
    if (err) {
        *err = e;
    } else {
        g_free(e);
    }
    return status;
}

static char **build_argv(const char *args)
{
    char **words = g_strsplit_set(args, " ", -1);
    GPtrArray *argv = g_ptr_array_new();

    g_ptr_array_add(argv, g_strdup(qemu_binary()));
    for (char **w = words; *w; w++) {
        if (**w) {
            g_ptr_array_add(argv, g_strdup(*w));
        }
    }
    g_ptr_array_add(argv, NULL);
    g_strfreev(words);
    return (char **)g_ptr_array_free(argv, FALSE);
}

int qemu_run(const char *args, char **out, char **err)
{
    char **argv = build_argv(args);
    int status = qemu_run_argv(argv, out, err);

    g_strfreev(argv);
    return status;
}

pid_t qemu_spawn(const char *args, int *stderr_fd)
{
    char **argv = build_argv(args);
    GError *gerr = NULL;
    GPid pid;

    if (!g_spawn_async_with_pipes(NULL, argv, NULL,
                                  G_SPAWN_DO_NOT_REAP_CHILD |
                                  G_SPAWN_STDIN_FROM_DEV_NULL,
                                  NULL, NULL, &pid, NULL, NULL, stderr_fd,
                                  &gerr)) {
        g_error("cannot run %s: %s", argv[0], gerr->message);
    }
    g_strfreev(argv);
    return pid;
}

bool qemu_wait_signals_ready(pid_t pid, int timeout_ms)
{
    char *path = g_strdup_printf("/proc/%d/status", (int)pid);
    bool ready = false;

    for (int waited = 0; waited < timeout_ms && !ready; waited += 5) {
        char *contents = NULL;
        char *blk;

        if (g_file_get_contents(path, &contents, NULL, NULL) &&
            (blk = strstr(contents, "SigBlk:"))) {
            unsigned long long mask = strtoull(blk + 7, NULL, 16);

            ready = mask & (1ull << (SIGTERM - 1));
        }
        g_free(contents);
        if (!ready) {
            g_usleep(5000);
        }
    }
    g_free(path);
    return ready;
}

char *read_all_fd(int fd)
{
    GString *s = g_string_new(NULL);
    char buf[4096];
    ssize_t n;

    while ((n = read(fd, buf, sizeof(buf))) > 0 || (n < 0 && errno == EINTR)) {
        if (n > 0) {
            g_string_append_len(s, buf, n);
        }
    }
    close(fd);
    return g_string_free(s, FALSE);
}

long proc_status_kb(pid_t pid, const char *field)
{
    char *path = g_strdup_printf("/proc/%d/status", (int)pid);
    char *contents = NULL;
    long value = -1;

    if (g_file_get_contents(path, &contents, NULL, NULL)) {
        char *key = g_strdup_printf("\n%s:", field);
        char *p = strstr(contents, key);

        if (p) {
            value = strtol(p + strlen(key), NULL, 10);
        }
        g_free(key);
    }
    g_free(contents);
    g_free(path);
    return value;
}

bool wait_pid_gone(pid_t pid, int timeout_ms)
{
    for (int waited = 0; waited < timeout_ms; waited += 5) {
        if (kill(pid, 0) < 0 && errno == ESRCH) {
            return true;
        }
        g_usleep(5000);
    }
    return false;
}

/* ---- guests ------------------------------------------------------------- */

bool vm_kvm_usable(void)
{
    int fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);

    if (fd < 0) {
        return false;
    }
    close(fd);
    return true;
}

bool vm_require_kvm(void)
{
    if (!vm_kvm_usable()) {
        g_test_skip("no /dev/kvm (or no access to it): KVM tests skipped");
        return false;
    }
    return true;
}

bool vm_require_accel(const char *accel)
{
    return strcmp(accel, "kvm") != 0 || vm_require_kvm();
}

char *vm_guest_kit(const char *name)
{
    char *path = g_build_filename(GUEST_DIR, name, NULL);

    if (!g_file_test(path, G_FILE_TEST_EXISTS)) {
        g_free(path);
        return NULL;
    }
    return path;
}

char *vm_require_guest_kit(const char *name)
{
    char *path = vm_guest_kit(name);

    if (!path) {
        g_test_skip("tests/guest programs not built");
    }
    return path;
}

/* $LINUX_GUEST_DIR lets several build trees share one fetched guest. */
static const char *linux_guest_dir(void)
{
    const char *env = g_getenv("LINUX_GUEST_DIR");

    return env ? env : LINUX_GUEST_DIR;
}

char *vm_require_linux_guest(const char *name)
{
    char *path = g_build_filename(linux_guest_dir(), name, NULL);

    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) {
        g_autofree char *why = g_strdup_printf(
            "no %s in %s: run scripts/fetch-linux-guest.sh", name,
            linux_guest_dir());

        g_test_skip(why);
        g_free(path);
        return NULL;
    }
    return path;
}

char *vm_linux_initrd(const char *dir, const char *const *extra)
{
    g_autofree char *base = vm_require_linux_guest("initramfs.cpio");
    char *out = g_build_filename(dir, "initrd.cpio", NULL);
    GString *all = g_string_new(NULL);
    const char *part = base;

    for (unsigned i = 0; part; part = extra ? extra[i++] : NULL) {
        g_autofree char *data = NULL;
        gsize len;

        g_assert_true(g_file_get_contents(part, &data, &len, NULL));
        g_string_append_len(all, data, len);
    }
    g_assert_true(g_file_set_contents(out, all->str, all->len, NULL));
    g_string_free(all, true);
    return out;
}

unsigned vm_linux_boot_timeout_s(unsigned dflt)
{
    const char *s = g_getenv("LINUX_BOOT_TIMEOUT");
    int v = s ? atoi(s) : 0;

    return v > 0 ? (unsigned)v : dflt;
}

static const uint8_t code_print_x[] = {
    0x66, 0xba, 0xf8, 0x03,             /* mov $0x3f8, %dx */
    0xb0, 'X', 0xee,                    /* mov $'X', %al; out %al, %dx */
    0xb0, '\n', 0xee,                   /* mov $'\n', %al; out %al, %dx */
};
static const uint8_t code_idle[] = {
    0xfa, 0xf4, 0xeb, 0xfd,             /* cli; 1: hlt; jmp 1b */
};
static const uint8_t code_ticker[] = {
    0x66, 0xba, 0xf8, 0x03,             /* mov $0x3f8, %dx */
    0xb0, 'X', 0xee,                    /* mov $'X', %al; out %al, %dx */
    0xb0, '.', 0xee,                    /* 1: mov $'.', %al; out %al, %dx */
    0xb9, 0x00, 0x00, 0x01, 0x00,       /* mov $0x10000, %ecx */
    0xe2, 0xfe,                         /* 2: loop 2b */
    0xeb, 0xf4,                         /* jmp 1b */
};

const VmCode vm_code_print_x = { code_print_x, sizeof(code_print_x) };
const VmCode vm_code_idle = { code_idle, sizeof(code_idle) };
const VmCode vm_code_ticker = { code_ticker, sizeof(code_ticker) };

static void put32(GByteArray *b, uint32_t v)
{
    uint8_t le[4] = { v, v >> 8, v >> 16, v >> 24 };

    g_byte_array_append(b, le, 4);
}

char *vm_tiny_guest(const char *dir, const char *name, const VmCode *first,
                    ...)
{
    GByteArray *code = g_byte_array_new();
    GByteArray *img = g_byte_array_new();
    char *path = g_build_filename(dir, name, NULL);
    uint32_t end;
    va_list ap;

    va_start(ap, first);
    for (const VmCode *c = first; c; c = va_arg(ap, const VmCode *)) {
        g_byte_array_append(code, c->bytes, c->size);
    }
    va_end(ap);
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

/* ---- a VM --------------------------------------------------------------- */

struct QemuVm {
    pid_t pid;
    bool reaped;
    int status;
    char *dir;                  /* serial, stderr, QMP socket */
    char *serial_path;
    char *stderr_path;
    char *stderr_text;
    QMPClient *qmp;
};

GPtrArray *vm_args_new(const char *words)
{
    GPtrArray *args = g_ptr_array_new_with_free_func(g_free);

    if (words) {
        vm_args_split(args, words);
    }
    return args;
}

void vm_args_add(GPtrArray *args, const char *word)
{
    g_ptr_array_add(args, g_strdup(word));
}

void vm_args_split(GPtrArray *args, const char *words)
{
    char **w = g_strsplit(words, " ", -1);

    for (char **p = w; *p; p++) {
        if (**p) {
            vm_args_add(args, *p);
        }
    }
    g_strfreev(w);
}

static char *slurp(const char *path)
{
    char *s = NULL;

    if (!g_file_get_contents(path, &s, NULL, NULL)) {
        s = g_strdup("");
    }
    return s;
}

/* Abort the test with what the emulator printed. */
static void G_GNUC_NORETURN vm_fail(QemuVm *vm, const char *why)
{
    g_error("%s; emulator stderr:\n%s", why, vm_stderr(vm));
}

static int connect_unix(const char *path)
{
    struct sockaddr_un addr = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    g_assert_cmpint(fd, >=, 0);
    g_strlcpy(addr.sun_path, path, sizeof(addr.sun_path));
    for (int waited = 0; connect(fd, (struct sockaddr *)&addr,
                                 sizeof(addr)) < 0; waited += 10) {
        if (waited >= VM_TIMEOUT_MS) {
            close(fd);
            return -1;
        }
        g_usleep(10 * 1000);
    }
    return fd;
}

QemuVm *vm_start(GPtrArray *args, unsigned flags)
{
    QemuVm *vm = g_new0(QemuVm, 1);
    GPtrArray *argv = g_ptr_array_new_with_free_func(g_free);
    char *qmp_path = NULL;
    int ser_fd, err_fd, null_fd;

    /* A vanished emulator must fail a write, not kill the test. */
    signal(SIGPIPE, SIG_IGN);
    g_assert_false((flags & VM_QMP) && (flags & VM_AS_NOBODY));
    vm->dir = g_dir_make_tmp("qemu-vm-XXXXXX", NULL);
    g_assert_nonnull(vm->dir);
    vm->serial_path = g_build_filename(vm->dir, "serial.out", NULL);
    vm->stderr_path = g_build_filename(vm->dir, "stderr.out", NULL);
    vm_args_add(argv, qemu_binary());
    for (guint i = 0; i < args->len; i++) {
        vm_args_add(argv, g_ptr_array_index(args, i));
    }
    vm_args_split(argv, "-serial stdio");
    if (flags & VM_QMP) {
        qmp_path = g_build_filename(vm->dir, "qmp.sock", NULL);
        vm_args_add(argv, "-qmp");
        g_ptr_array_add(argv, g_strdup_printf("unix:%s,server=on,wait=off",
                                              qmp_path));
    }
    g_ptr_array_add(argv, NULL);
    if (g_getenv("QTEST_LOG")) {
        char *cmdline = g_strjoinv(" ", (char **)argv->pdata);

        fprintf(stderr, "starting: %s\n", cmdline);
        g_free(cmdline);
    }

    /*
     * Serial and stderr go to files the parent opened, so a child
     * running as another user still writes them.
     */
    ser_fd = open(vm->serial_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0600);
    err_fd = open(vm->stderr_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                  0600);
    null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    g_assert_cmpint(ser_fd, >=, 0);
    g_assert_cmpint(err_fd, >=, 0);
    g_assert_cmpint(null_fd, >=, 0);
    /* Our emulator reads every QMP reply back against the schema. */
    g_setenv("QEMU_QMP_CHECK_RETURNS", "1", FALSE);
    vm->pid = fork();
    g_assert_cmpint(vm->pid, >=, 0);
    if (vm->pid == 0) {
        dup2(null_fd, 0);
        dup2(ser_fd, 1);
        dup2(err_fd, 2);
        if ((flags & VM_AS_NOBODY) &&
            (setgroups(0, NULL) || setgid(UID_NOBODY) ||
             setuid(UID_NOBODY))) {
            _exit(126);
        }
        /* Do not outlive a test that crashed (set after setuid). */
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execv(argv->pdata[0], (char **)argv->pdata);
        _exit(127);
    }
    close(ser_fd);
    close(err_fd);
    close(null_fd);
    g_ptr_array_free(argv, TRUE);

    if (flags & VM_QMP) {
        int fd = connect_unix(qmp_path);
        char *why = NULL;

        g_free(qmp_path);
        if (fd < 0) {
            vm_fail(vm, "no QMP socket");
        }
        vm->qmp = qmp_client_new(fd, VM_TIMEOUT_MS);
        if (!qmp_client_handshake(vm->qmp, &why)) {
            vm_fail(vm, why);
        }
    }
    return vm;
}

QemuVm *vm_startf(unsigned flags, const char *fmt, ...)
{
    va_list ap;
    char *words;
    GPtrArray *args;
    QemuVm *vm;

    va_start(ap, fmt);
    words = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    args = vm_args_new(words);
    vm = vm_start(args, flags);
    g_ptr_array_free(args, TRUE);
    g_free(words);
    return vm;
}

pid_t vm_pid(QemuVm *vm)
{
    return vm->pid;
}

char *vm_serial(QemuVm *vm)
{
    return slurp(vm->serial_path);
}

size_t vm_serial_len(QemuVm *vm)
{
    char *s = vm_serial(vm);
    size_t n = strlen(s);

    g_free(s);
    return n;
}

unsigned vm_serial_count(QemuVm *vm, const char *text)
{
    char *s = vm_serial(vm);
    unsigned n = 0;

    for (char *p = s; (p = strstr(p, text)); p += strlen(text)) {
        n++;
    }
    g_free(s);
    return n;
}

bool vm_wait_serial(QemuVm *vm, const char *text, unsigned count)
{
    for (int waited = 0; waited < VM_TIMEOUT_MS; waited += 10) {
        if (vm_serial_count(vm, text) >= count) {
            return true;
        }
        g_usleep(10 * 1000);
    }
    return false;
}

const char *vm_stderr(QemuVm *vm)
{
    g_free(vm->stderr_text);
    vm->stderr_text = slurp(vm->stderr_path);
    return vm->stderr_text;
}

JsonNode *vm_qmp(QemuVm *vm, const char *fmt, ...)
{
    va_list ap;
    char *cmd, *why = NULL;
    JsonNode *reply;

    g_assert_nonnull(vm->qmp);
    va_start(ap, fmt);
    cmd = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    reply = qmp_client_command(vm->qmp, cmd, &why);
    g_free(cmd);
    if (!reply) {
        vm_fail(vm, why);
    }
    return reply;
}

JsonNode *vm_qmp_return(QemuVm *vm, const char *cmd)
{
    JsonNode *reply = cmd[0] == '{' ? vm_qmp(vm, "%s", cmd)
                                    : vm_qmp(vm, "{\"execute\": \"%s\"}", cmd);
    JsonNode *ret = json_object_get_member(json_node_get_object(reply),
                                           "return");

    if (!ret) {
        char *text = json_to_string(reply, FALSE);

        g_error("%s: %s", cmd, text);
    }
    ret = json_node_ref(ret);
    json_node_unref(reply);
    return ret;
}

void vm_qmp_ok(QemuVm *vm, const char *cmd)
{
    json_node_unref(vm_qmp_return(vm, cmd));
}

char *vm_qmp_error(QemuVm *vm, const char *cmd)
{
    JsonNode *reply = cmd[0] == '{' ? vm_qmp(vm, "%s", cmd)
                                    : vm_qmp(vm, "{\"execute\": \"%s\"}", cmd);
    JsonObject *o = json_node_get_object(reply);
    JsonObject *e = json_object_has_member(o, "error")
                    ? json_object_get_object_member(o, "error") : NULL;
    char *desc;

    if (!e) {
        char *text = json_to_string(reply, FALSE);

        g_error("%s succeeded: %s", cmd, text);
    }
    desc = g_strdup(json_object_get_string_member(e, "desc"));
    json_node_unref(reply);
    return desc;
}

char *vm_migrate_status(QemuVm *vm)
{
    JsonNode *r = vm_qmp_return(vm, "query-migrate");
    char *st = g_strdup(json_object_get_string_member_with_default(
                        json_node_get_object(r), "status", "none"));

    json_node_unref(r);
    return st;
}

bool vm_wait_migrate_status(QemuVm *vm, const char *want, int timeout_s)
{
    for (int i = 0; i < timeout_s * 20; i++) {
        g_autofree char *st = vm_migrate_status(vm);

        if (!strcmp(st, want)) {
            return true;
        }
        if (!strcmp(st, "failed") || !strcmp(st, "cancelled")) {
            g_test_message("migration ended %s", st);
            return false;
        }
        g_usleep(50 * 1000);
    }
    return false;
}

char *vm_status(QemuVm *vm)
{
    JsonNode *ret = vm_qmp_return(vm, "query-status");
    char *status = g_strdup(json_object_get_string_member(
        json_node_get_object(ret), "status"));

    json_node_unref(ret);
    g_assert_nonnull(status);
    return status;
}

bool vm_wait_status(QemuVm *vm, const char *want, int timeout_s)
{
    for (int i = 0; i < timeout_s * 20; i++) {
        g_autofree char *st = vm_status(vm);

        if (!strcmp(st, want)) {
            return true;
        }
        g_usleep(50 * 1000);
    }
    return false;
}

char *vm_wait_event_data(QemuVm *vm, const char *event)
{
    char *why = NULL, *text;
    JsonNode *node;
    JsonObject *o;

    g_assert_nonnull(vm->qmp);
    node = qmp_client_eventwait(vm->qmp, event, &why);
    if (!node) {
        g_test_message("waiting for %s: %s", event, why);
        g_free(why);
        return NULL;
    }
    o = json_node_get_object(node);
    text = json_object_has_member(o, "data") ?
           json_to_string(json_object_get_member(o, "data"), FALSE) :
           g_strdup("{}");
    json_node_unref(node);
    return text;
}

bool vm_wait_event(QemuVm *vm, const char *event)
{
    char *data = vm_wait_event_data(vm, event);
    bool came = data != NULL;

    g_free(data);
    return came;
}

bool vm_exited(QemuVm *vm)
{
    siginfo_t info = { 0 };

    if (vm->reaped) {
        return true;
    }
    while (waitid(P_PID, vm->pid, &info, WEXITED | WNOWAIT | WNOHANG) < 0) {
        g_assert_cmpint(errno, ==, EINTR);
    }
    return info.si_pid == vm->pid;
}

bool vm_wait_zombie(QemuVm *vm, int timeout_ms)
{
    for (int waited = 0; !vm_exited(vm); waited++) {
        if (waited >= timeout_ms) {
            return false;
        }
        g_usleep(1000);
    }
    return true;
}

int vm_wait(QemuVm *vm, unsigned timeout_s)
{
    int64_t timeout_ms = timeout_s ? timeout_s * 1000ll : VM_TIMEOUT_MS;

    if (vm->reaped) {
        return vm->status;
    }
    for (int64_t waited = 0; ; waited += 10) {
        if (waitpid(vm->pid, &vm->status, WNOHANG) == vm->pid) {
            break;
        }
        if (waited >= timeout_ms) {
            kill(vm->pid, SIGKILL);
            waitpid(vm->pid, NULL, 0);
            vm->status = -1;
            break;
        }
        g_usleep(10 * 1000);
    }
    vm->reaped = true;
    return vm->status;
}

void vm_quit(QemuVm *vm)
{
    int status;

    vm_qmp_ok(vm, "quit");
    status = vm_wait(vm, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        g_test_message("after quit: wait status 0x%x, stderr:\n%s", status,
                       vm_stderr(vm));
    }
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

void vm_free(QemuVm *vm)
{
    if (!vm->reaped) {
        kill(vm->pid, SIGKILL);
        waitpid(vm->pid, NULL, 0);
    }
    qmp_client_free(vm->qmp);
    g_unlink(vm->serial_path);
    g_unlink(vm->stderr_path);
    {
        char *sock = g_build_filename(vm->dir, "qmp.sock", NULL);

        g_unlink(sock);
        g_free(sock);
    }
    g_rmdir(vm->dir);
    g_free(vm->dir);
    g_free(vm->serial_path);
    g_free(vm->stderr_path);
    g_free(vm->stderr_text);
    g_free(vm);
}

VmRun vm_run(GPtrArray *args, unsigned flags, unsigned timeout_s)
{
    QemuVm *vm = vm_start(args, flags);
    VmRun r;

    r.status = vm_wait(vm, timeout_s);
    r.serial = vm_serial(vm);
    r.err = g_strdup(vm_stderr(vm));
    vm_free(vm);
    return r;
}

void vm_run_free(VmRun *r)
{
    g_free(r->serial);
    g_free(r->err);
}

void vm_run_expect_lines(const VmRun *r, const char *const *lines)
{
    for (unsigned i = 0; lines[i]; i++) {
        if (!strstr(r->serial, lines[i])) {
            g_test_message("serial log:\n%s\nstderr:\n%s", r->serial,
                           r->err);
            g_test_message("missing: %s", lines[i]);
        }
        g_assert_nonnull(strstr(r->serial, lines[i]));
    }
    g_assert_true(WIFEXITED(r->status));
    g_assert_cmpint(WEXITSTATUS(r->status), ==, 0);
}

void vm_expect_linux_resumed_poweroff(QemuVm *vm)
{
    int status = vm_wait(vm, vm_linux_boot_timeout_s(120));
    char *out = vm_serial(vm);

    if (!WIFEXITED(status) || WEXITSTATUS(status) ||
        !strstr(out, "Power down")) {
        g_test_message("destination serial:\n%s\nstderr:\n%s", out,
                       vm_stderr(vm));
    }
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_nonnull(strstr(out, "init: poweroff"));
    g_assert_nonnull(strstr(out, "reboot: Power down"));
    g_assert_null(strstr(out, "Linux version"));
    g_free(out);
}

void vm_check_migrate_scans(const char *src, const char *dst,
                            unsigned min_dst_scans)
{
    char *all = g_strconcat(src, dst, NULL);
    char **lines = g_strsplit(all, "\n", -1);
    unsigned next = 1, last_lapic = 0, last_pit = 0, scans_dst = 0;
    unsigned dst_lapic = 0, dst_pit = 0;  /* on its first line */
    size_t src_len = strlen(src), pos = 0;

    g_assert_null(strstr(all, "BAD"));
    /*
     * The last element follows the last newline: a line the destination
     * may still be writing ("pit=44" of pit=4471), so never a scan.
     */
    for (char **l = lines; *l && l[1]; l++) {
        unsigned n, lapic, pit;

        if (sscanf(*l, "migrate: scan %u ok lapic=%u pit=%u", &n, &lapic,
                   &pit) == 3) {
            if (n != next || lapic < last_lapic || pit < last_pit) {
                g_test_message("source serial (its end):\n%s\n"
                               "destination serial (its start):\n%.400s",
                               src_len > 400 ? src + src_len - 400 : src,
                               dst);
            }
            g_assert_cmpuint(n, ==, next);
            g_assert_cmpuint(lapic, >=, last_lapic);
            g_assert_cmpuint(pit, >=, last_pit);
            next++;
            last_lapic = lapic;
            last_pit = pit;
            if (pos >= src_len && !scans_dst++) {
                dst_lapic = lapic;
                dst_pit = pit;
            }
        }
        pos += strlen(*l) + 1;
    }
    g_assert_cmpuint(scans_dst, >=, min_dst_scans);
    /* The destination's LAPIC timer and PIT tick as the source's did. */
    g_assert_cmpuint(last_lapic, >, dst_lapic);
    g_assert_cmpuint(last_pit, >, dst_pit);
    g_strfreev(lines);
    g_free(all);
}

int vm_free_tcp_port(void)
{
    struct sockaddr_in sa = { .sin_family = AF_INET,
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(sa);
    int fd = socket(AF_INET, SOCK_STREAM, 0), port;

    g_assert_cmpint(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), ==, 0);
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&sa, &len), ==, 0);
    port = ntohs(sa.sin_port);
    close(fd);
    return port;
}

uint32_t vm_crc32c(const uint8_t *p, size_t len)
{
    uint32_t crc = ~0u;

    while (len--) {
        crc ^= *p++;
        for (int k = 0; k < 8; k++) {
            crc = crc & 1 ? (crc >> 1) ^ 0x82f63b78u : crc >> 1;
        }
    }
    return ~crc;
}
