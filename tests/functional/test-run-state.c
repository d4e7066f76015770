/*
 * The run states on the pc machine, once for each accelerator
 * (/run-state/kvm/... where /dev/kvm works, else skipped with the
 * reason; /run-state/tcg/...): -S then cont, stop and cont (with the STOP
 * and RESUME events, and not one byte of output while stopped), QMP
 * quit, system_reset (the guest starts over; query-cpus-fast still lists
 * the -smp CPUs), SIGTERM, query-cpus-fast with a topology and the vCPU
 * threads' names, "info registers" of a running VM, the reset a
 * triple fault causes without -no-reboot, and the none machine's one
 * vCPU.
 *
 * The guests are tiny multiboot images (qemu-vm.h): "X\n" then idle, or
 * the ticker ('X' once, then '.' forever); the triple fault is the guest
 * kit's program.
 */
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

static char *tmpdir;
static char *idle_guest;            /* "X\n", then hlt */
static char *ticker_guest;          /* "X", then '.' forever */

static const char *const accels[] = { "kvm", "tcg" };

static QemuVm *start(const char *accel, const char *extra,
                     const char *kernel)
{
    return vm_startf(VM_QMP, "-M pc -accel %s -display none -nodefaults %s "
                     "-kernel %s", accel, extra, kernel);
}

static void assert_status(QemuVm *vm, const char *want)
{
    char *st = vm_status(vm);

    g_assert_cmpstr(st, ==, want);
    g_free(st);
}

/* -S: nothing runs until cont. */
static void test_start_paused(gconstpointer data)
{
    const char *accel = data;
    char *s;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-S", idle_guest);
    assert_status(vm, "prelaunch");
    g_usleep(200 * 1000);
    s = vm_serial(vm);
    g_assert_cmpstr(s, ==, "");
    g_free(s);
    vm_qmp_ok(vm, "cont");
    g_assert_true(vm_wait_serial(vm, "X\n", 1));
    assert_status(vm, "running");
    vm_quit(vm);
    vm_free(vm);
}

/* Stopped means stopped: not one more byte until cont. */
static void test_stop_cont(gconstpointer data)
{
    const char *accel = data;
    size_t n;
    unsigned dots;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "", ticker_guest);
    g_assert_true(vm_wait_serial(vm, ".", 3));
    vm_qmp_ok(vm, "stop");
    g_assert_true(vm_wait_event(vm, "STOP"));
    assert_status(vm, "paused");
    n = vm_serial_len(vm);
    dots = vm_serial_count(vm, ".");
    g_usleep(300 * 1000);
    g_assert_cmpuint(vm_serial_len(vm), ==, n);
    vm_qmp_ok(vm, "cont");
    g_assert_true(vm_wait_event(vm, "RESUME"));
    g_assert_true(vm_wait_serial(vm, ".", dots + 3));
    assert_status(vm, "running");
    vm_quit(vm);
    vm_free(vm);
}

/* What query-cpus-fast returns, as an array. */
static JsonArray *query_cpus(QemuVm *vm, JsonNode **ret)
{
    *ret = vm_qmp_return(vm, "query-cpus-fast");
    g_assert_true(JSON_NODE_HOLDS_ARRAY(*ret));
    return json_node_get_array(*ret);
}

/* CPU i of n is /machine/unattached/device[i], and there are no more. */
static void assert_cpu_paths(JsonArray *cpus, unsigned n)
{
    g_assert_cmpuint(json_array_get_length(cpus), ==, n);
    for (unsigned i = 0; i < n; i++) {
        JsonObject *cpu = json_array_get_object_element(cpus, i);
        char *path = g_strdup_printf("/machine/unattached/device[%u]", i);

        g_assert_cmpstr(json_object_get_string_member(cpu, "qom-path"), ==,
                        path);
        g_assert_cmpstr(json_object_get_string_member(cpu, "target"), ==,
                        "x86_64");
        g_free(path);
    }
}

/* After a reset the guest starts over from its first line. */
static void test_system_reset(gconstpointer data)
{
    const char *accel = data;
    JsonNode *ret;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-smp 2", idle_guest);
    g_assert_true(vm_wait_serial(vm, "X\n", 1));
    g_assert_cmpuint(vm_serial_count(vm, "X"), ==, 1);
    vm_qmp_ok(vm, "system_reset");
    g_assert_true(vm_wait_event(vm, "RESET"));
    g_assert_true(vm_wait_serial(vm, "X\n", 2));
    g_assert_cmpuint(vm_serial_count(vm, "X"), ==, 2);
    assert_status(vm, "running");
    assert_cpu_paths(query_cpus(vm, &ret), 2);
    json_node_unref(ret);
    vm_quit(vm);
    vm_free(vm);
}

static void test_sigterm(gconstpointer data)
{
    const char *accel = data;
    int status;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-smp 2", ticker_guest);
    g_assert_true(vm_wait_serial(vm, ".", 3));
    kill(vm_pid(vm), SIGTERM);
    status = vm_wait(vm, 0);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_true(g_str_has_prefix(vm_stderr(vm), "qemu-system-x86_64: "
                                   "terminating on signal 15 from pid "));
    vm_free(vm);
}

/* True if one of pid's threads is called name. */
static bool has_thread(pid_t pid, const char *name)
{
    char *task = g_strdup_printf("/proc/%d/task", (int)pid);
    char *want = g_strdup_printf("%s\n", name);
    GDir *dir = g_dir_open(task, 0, NULL);
    const char *t;
    bool found = false;

    g_assert_nonnull(dir);
    while ((t = g_dir_read_name(dir))) {
        char *f = g_strdup_printf("%s/%s/comm", task, t);
        char *c = NULL;

        if (g_file_get_contents(f, &c, NULL, NULL) && !strcmp(c, want)) {
            found = true;
        }
        g_free(c);
        g_free(f);
    }
    g_dir_close(dir);
    g_free(want);
    g_free(task);
    return found;
}

/*
 * -smp 4 in 2 sockets: four CPUs with their topology, and the vCPU
 * threads named as QEMU names them (one per vCPU under kvm, one for all
 * under tcg).
 */
static void test_query_cpus(gconstpointer data)
{
    const char *accel = data;
    JsonNode *ret;
    JsonArray *cpus;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-smp 4,sockets=2,cores=2 -name vm,debug-threads=on",
               idle_guest);
    cpus = query_cpus(vm, &ret);
    assert_cpu_paths(cpus, 4);
    for (unsigned i = 0; i < 4; i++) {
        JsonObject *props = json_object_get_object_member(
            json_array_get_object_element(cpus, i), "props");

        g_assert_cmpint(json_object_get_int_member(props, "socket-id"), ==,
                        i / 2);
        if (!strcmp(accel, "kvm")) {
            char *name = g_strdup_printf("CPU %u/KVM", i);

            g_assert_true(has_thread(vm_pid(vm), name));
            g_free(name);
        }
    }
    if (!strcmp(accel, "tcg")) {
        g_assert_true(has_thread(vm_pid(vm), "ALL CPUs/TCG"));
    }
    json_node_unref(ret);
    vm_quit(vm);
    vm_free(vm);
}

static JsonNode *cpu_prop(QemuVm *vm, const char *prop)
{
    JsonNode *r = vm_qmp(vm, "{\"execute\": \"qom-get\", \"arguments\": "
                         "{\"path\": \"/machine/unattached/device[1]\", "
                         "\"property\": \"%s\"}}", prop);
    JsonNode *ret = json_object_dup_member(json_node_get_object(r),
                                           "return");

    g_assert_nonnull(ret);
    json_node_unref(r);
    return ret;
}

/*
 * What libvirt reads back from a running vCPU (qom-list, then qom-get of
 * each feature): the CPUID the guest sees, with -cpu's changes, as
 * QEMU's property names.
 */
static void test_cpu_properties(gconstpointer data)
{
    const char *accel = data;
    JsonNode *ret, *v;
    JsonArray *list;
    bool found = false;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-smp 2 -cpu qemu64,-mmx,vendor=GenuineIntel",
               idle_guest);
    ret = vm_qmp(vm, "{\"execute\": \"qom-list\", \"arguments\": "
                 "{\"path\": \"/machine/unattached/device[1]\"}}");
    list = json_object_get_array_member(json_node_get_object(ret), "return");
    for (guint i = 0; i < json_array_get_length(list); i++) {
        JsonObject *p = json_array_get_object_element(list, i);

        if (!strcmp(json_object_get_string_member(p, "name"), "sse2")) {
            g_assert_cmpstr(json_object_get_string_member(p, "type"), ==,
                            "bool");
            found = true;
        }
    }
    g_assert_true(found);
    json_node_unref(ret);
    v = cpu_prop(vm, "sse2");
    g_assert_true(json_node_get_boolean(v));
    json_node_unref(v);
    v = cpu_prop(vm, "mmx");
    g_assert_false(json_node_get_boolean(v));
    json_node_unref(v);
    v = cpu_prop(vm, "family");
    g_assert_cmpint(json_node_get_int(v), ==, 15);
    json_node_unref(v);
    v = cpu_prop(vm, "vendor");
    g_assert_cmpstr(json_node_get_string(v), ==, "GenuineIntel");
    json_node_unref(v);
    v = cpu_prop(vm, "model-id");
    g_assert_cmpstr(json_node_get_string(v), ==,
                    "QEMU Virtual CPU version 2.5+");
    json_node_unref(v);
    vm_quit(vm);
    vm_free(vm);
}

/* HMP's text for command-line (g_free it). */
static char *hmp(QemuVm *vm, const char *command_line)
{
    JsonNode *r = vm_qmp(vm, "{\"execute\": \"human-monitor-command\", "
                         "\"arguments\": {\"command-line\": \"%s\"}}",
                         command_line);
    JsonObject *o = json_node_get_object(r);
    char *out;

    g_assert_true(json_object_has_member(o, "return"));
    out = g_strdup(json_object_get_string_member(o, "return"));
    json_node_unref(r);
    return out;
}

/*
 * "info registers" while the guest runs: vCPU 0's registers in QEMU's
 * layout, every vCPU's with -a, and the VM runs on afterwards.
 */
static void test_info_registers(gconstpointer data)
{
    const char *accel = data;
    char *out;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = start(accel, "-smp 2", ticker_guest);
    g_assert_true(vm_wait_serial(vm, "X", 1));
    out = hmp(vm, "info registers");
    g_assert_true(g_pattern_match_simple("RAX=*RIP=*CS =*CR0=*EFER=*",
                                         out));
    g_assert_null(strstr(out, "CPU#"));
    g_free(out);
    out = hmp(vm, "info registers -a");
    g_assert_true(g_pattern_match_simple("\r\nCPU#0\r\nRAX=*\r\nCPU#1\r\n"
                                         "RAX=*", out));
    g_free(out);
    assert_status(vm, "running");
    vm_quit(vm);
    vm_free(vm);
}

/* Without -no-reboot a triple fault resets the machine: it runs again. */
static void test_triple_fault_resets(gconstpointer data)
{
    const char *accel = data;
    const char *line = "triple-fault: loading an empty IDT";
    char *kernel;
    QemuVm *vm;

    if (!vm_require_accel(accel) ||
        !(kernel = vm_require_guest_kit("triple-fault.elf"))) {
        return;
    }
    vm = start(accel, "-m 512M", kernel);
    for (int i = 0; i < VM_TIMEOUT_MS / 10 &&
                    vm_serial_count(vm, line) < 3 && !vm_exited(vm); i++) {
        g_usleep(10 * 1000);
    }
    if (vm_exited(vm) && !strcmp(accel, "kvm") &&
        strstr(vm_stderr(vm), "KVM internal error")) {
        /* kvm_pvm may report the shutdown as an internal error instead. */
        g_test_skip("this host's KVM reports the triple fault as an "
                    "internal error, not a shutdown");
        vm_free(vm);
        g_free(kernel);
        return;
    }
    g_assert_cmpuint(vm_serial_count(vm, line), >=, 3);
    assert_status(vm, "running");
    vm_quit(vm);
    vm_free(vm);
    g_free(kernel);
}

/*
 * inject-nmi (and HMP nmi) reach the guest's NMI handler, through the
 * accelerator's NMI op: the guest halts with interrupts off, so nothing
 * else can wake it.
 */
static void test_inject_nmi(gconstpointer data)
{
    const char *accel = data;
    char *kernel, *out;
    QemuVm *vm;

    if (!vm_require_accel(accel) ||
        !(kernel = vm_require_guest_kit("nmi.elf"))) {
        return;
    }
    vm = start(accel, "", kernel);
    g_assert_true(vm_wait_serial(vm, "nmi: waiting", 1));
    g_assert_cmpuint(vm_serial_count(vm, "nmi: received"), ==, 0);
    vm_qmp_ok(vm, "inject-nmi");
    g_assert_true(vm_wait_serial(vm, "nmi: received 1", 1));
    out = hmp(vm, "nmi");
    g_assert_cmpstr(out, ==, "");
    g_free(out);
    g_assert_true(vm_wait_serial(vm, "nmi: received 2", 1));
    assert_status(vm, "running");
    vm_quit(vm);
    vm_free(vm);
    g_free(kernel);
}

/*
 * -machine none -cpu qemu64,apic-id=0: one vCPU and no memory, as QEMU
 * 7.2 makes it (compared with Debian's over QMP): query-cpus-fast lists
 * it without props (the machine has no CPU slots). Under tcg it runs
 * (fetching what no memory gives) and takes cont; KVM cannot enter it,
 * and with -no-shutdown the VM stays in internal-error, where cont wants
 * a reset, as QEMU's always does (this emulator exits without it). The
 * machine without -cpu has no vCPU.
 */
static void test_machine_none_cpu(gconstpointer data)
{
    const char *accel = data;
    bool kvm = !strcmp(accel, "kvm");
    JsonNode *ret;
    JsonArray *cpus;
    JsonObject *cpu;
    char *err;
    QemuVm *vm;

    if (!vm_require_accel(accel)) {
        return;
    }
    vm = vm_startf(VM_QMP, "-M none -accel %s -display none -nodefaults "
                   "-cpu qemu64,apic-id=0%s", accel,
                   kvm ? " -no-shutdown" : "");
    ret = vm_qmp_return(vm, "query-cpus-fast");
    cpus = json_node_get_array(ret);
    g_assert_cmpuint(json_array_get_length(cpus), ==, 1);
    cpu = json_array_get_object_element(cpus, 0);
    g_assert_cmpint(json_object_get_int_member(cpu, "cpu-index"), ==, 0);
    g_assert_cmpstr(json_object_get_string_member(cpu, "qom-path"), ==,
                    "/machine/unattached/device[0]");
    g_assert_cmpstr(json_object_get_string_member(cpu, "target"), ==,
                    "x86_64");
    g_assert_true(json_object_has_member(cpu, "thread-id"));
    g_assert_false(json_object_has_member(cpu, "props"));
    json_node_unref(ret);
    if (kvm) {
        g_assert_true(vm_wait_status(vm, "internal-error", 10));
        err = vm_qmp_error(vm, "cont");
        g_assert_cmpstr(err, ==, "Resetting the Virtual Machine is required");
        g_free(err);
        g_assert_nonnull(strstr(vm_stderr(vm), "RIP=000000000000fff0"));
    } else {
        assert_status(vm, "running");
        vm_qmp_ok(vm, "cont");
        g_usleep(100 * 1000);
        assert_status(vm, "running");
    }
    vm_quit(vm);
    vm_free(vm);

    vm = vm_startf(VM_QMP, "-M none -accel %s -display none -nodefaults",
                   accel);
    ret = vm_qmp_return(vm, "query-cpus-fast");
    g_assert_cmpuint(json_array_get_length(json_node_get_array(ret)), ==, 0);
    json_node_unref(ret);
    vm_quit(vm);
    vm_free(vm);
}

static void add_cases(const char *name, GTestDataFunc fn)
{
    for (size_t i = 0; i < G_N_ELEMENTS(accels); i++) {
        char *path = g_strdup_printf("/run-state/%s/%s", accels[i], name);

        g_test_add_data_func(path, accels[i], fn);
        g_free(path);
    }
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-run-state-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);
    idle_guest = vm_tiny_guest(tmpdir, "idle.bin", &vm_code_print_x,
                               &vm_code_idle, NULL);
    ticker_guest = vm_tiny_guest(tmpdir, "ticker.bin", &vm_code_ticker,
                                 NULL);
    add_cases("start-paused", test_start_paused);
    add_cases("stop-cont", test_stop_cont);
    add_cases("system-reset", test_system_reset);
    add_cases("sigterm", test_sigterm);
    add_cases("query-cpus-fast", test_query_cpus);
    add_cases("cpu-properties", test_cpu_properties);
    add_cases("info-registers", test_info_registers);
    add_cases("triple-fault-resets", test_triple_fault_resets);
    add_cases("inject-nmi", test_inject_nmi);
    add_cases("machine-none-cpu", test_machine_none_cpu);
    ret = g_test_run();
    g_unlink(idle_guest);
    g_unlink(ticker_guest);
    g_rmdir(tmpdir);
    g_free(idle_guest);
    g_free(ticker_guest);
    g_free(tmpdir);
    return ret;
}
