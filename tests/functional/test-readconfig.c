/*
 * -readconfig as scripts use it: a config file builds the same VM as the
 * command line it stands for, a broken file gives QEMU 7.2's one located
 * line, the default file is read unless -no-user-config, and -boot and
 * -machine none -cpu fail as QEMU 7.2 does. Where Debian's QEMU 7.2 is
 * installed the error lines are compared with its own.
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config-host.h"
#include "qemu-vm.h"

#define QEMU_REFERENCE "/usr/bin/qemu-system-x86_64"

static char *tmpdir;

static char *write_file(const char *name, const char *text)
{
    char *path = g_build_filename(tmpdir, name, NULL);

    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    return path;
}

/* Run bin with argv words; returns the exit status, *err its stderr. */
static int run_bin(const char *bin, const char *const *words, char **err)
{
    GPtrArray *argv = g_ptr_array_new();
    char *out;
    int status;

    g_ptr_array_add(argv, (char *)bin);
    for (size_t i = 0; words[i]; i++) {
        g_ptr_array_add(argv, (char *)words[i]);
    }
    g_ptr_array_add(argv, NULL);
    g_assert_true(g_spawn_sync(NULL, (char **)argv->pdata, NULL,
                               G_SPAWN_STDIN_FROM_DEV_NULL, NULL, NULL, &out,
                               err, &status, NULL));
    g_free(out);
    g_ptr_array_free(argv, TRUE);
    return status;
}

/*
 * Broken files: exit status 1 and one line, located FILE:LINE at the
 * last key line read so far (no location before the first), exactly as
 * QEMU 7.2 prints it.
 */
static const struct {
    const char *text;
    const char *line;       /* after "qemu-system-x86_64:" */
} bad_files[] = {
    { "[foo]\n  a = \"b\"\n", "F:2: There is no option group 'foo'" },
    { "[foo]\n", " There is no option group 'foo'" },
    { "[foo]\n\n\n[name]\n  guest = \"a\"\n",
      " There is no option group 'foo'" },
    { "[name]\n  guest = \"a\"\n[foo]\n",
      "F:2: There is no option group 'foo'" },
    { "[name ]\n  guest = \"a\"\n", "F:2: There is no option group 'name '" },
    { "[memory]\n  bogus = \"x\"\n", "F:2: Invalid parameter 'bogus'" },
    { "[memory]\n  bogus = \"x\"\n\n# c\n  size = \"1G\"\n\n[name]\n"
      "  guest = \"a\"\n", "F:5: Invalid parameter 'bogus'" },
    { "[name]\n  guest = \"a\"\n  bogus = \"b\"\n",
      "F:3: Invalid parameter 'bogus'" },
    /* A word alone is a key with an empty value; no quotes, no value. */
    { "[name]\n  guest = \"a\"\nxx\n", "F:3: Invalid parameter 'xx'" },
    { "[name]\n guest=\"a\"\n", "F:2: Invalid parameter 'guest=\"a\"'" },
    { "[name \"x\"]\n  guest = \"a\"\n", "F:2: Invalid parameter 'id'" },
    { "garbage\n", "F:1: no group defined" },
    { "\n  [name]\n  guest = \"a\"\n", "F:2: no group defined" },
    { " # not a comment\n", "F:1: no group defined" },
    { "[name]\n  guest = \"a\"\n  \n", "F:3: parse error" },
    { "[chardev]\n  backend = \"null\"\n", "F:2: chardev: no id specified" },
    { "[chardev \"c\"]\n  backend = \"bogus\"\n",
      "F:2: 'bogus' is not a valid char driver name" },
    { "[device]\n  driver = \"nope\"\n",
      "F:2: 'nope' is not a valid device model name" },
    { "[netdev \"n0\"]\n  type = \"bogus\"\n",
      "F:2: Parameter 'type' does not accept value 'bogus'" },
    { "[object \"o0\"]\n  qom-type = \"bogus\"\n",
      "F:2: Parameter 'qom-type' does not accept value 'bogus'" },
    { "[mon]\n  chardev = \"nope\"\n", "F:2: chardev \"nope\" not found" },
    { "[accel]\n  accel = \"bogus\"\n", "F:2: invalid accelerator bogus" },
    { "[msg]\n  timestamp = \"bogus\"\n",
      "F:2: Parameter 'timestamp' expects 'on' or 'off'" },
};

static void test_bad_file(gconstpointer data)
{
    size_t i = GPOINTER_TO_SIZE(data);
    char *file = write_file("bad.cfg", bad_files[i].text);
    const char *words[] = {
        "-readconfig", file, "-nodefaults", "-display", "none", "-S",
        "-machine", "none", NULL,
    };
    GString *want = g_string_new("qemu-system-x86_64:");
    const char *line = bad_files[i].line;
    char *err;
    int status;

    if (line[0] == 'F') {
        g_string_append(want, file);
        line++;
    }
    g_string_append_printf(want, "%s\n", line);
    status = run_bin(qemu_binary(), words, &err);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, want->str);
    g_free(err);
    if (access(QEMU_REFERENCE, X_OK) == 0) {
        status = run_bin(QEMU_REFERENCE, words, &err);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_cmpstr(err, ==, want->str);
        g_free(err);
    }
    g_string_free(want, TRUE);
    g_free(file);
}

/* Lines QEMU 7.2 prints too, word for word, for command lines. */
static const struct {
    const char *args;
    const char *line;
} bad_cmdlines[] = {
    { "-readconfig /nonexistent -machine none",
      "-readconfig /nonexistent: Could not open '/nonexistent': No such "
      "file or directory" },
    { "-writeconfig -", "-writeconfig: invalid option" },
};

static void test_bad_cmdline(gconstpointer data)
{
    size_t i = GPOINTER_TO_SIZE(data);
    char **words = g_strsplit(bad_cmdlines[i].args, " ", -1);
    char *want = g_strdup_printf("qemu-system-x86_64: %s\n",
                                 bad_cmdlines[i].line);
    const char *bins[] = { qemu_binary(), QEMU_REFERENCE };

    for (size_t b = 0; b < G_N_ELEMENTS(bins); b++) {
        char *err;
        int status;

        if (b && access(QEMU_REFERENCE, X_OK)) {
            continue;
        }
        status = run_bin(bins[b], (const char *const *)words, &err);
        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_cmpstr(err, ==, want);
        g_free(err);
    }
    g_free(want);
    g_strfreev(words);
}

/*
 * Errors our binary reports at its option, with QEMU 7.2's message (7.2
 * reports these later, without the option).
 */
static const struct {
    const char *args;
    const char *line;
} boot_errors[] = {
    { "-boot order=z", "-boot order=z: Invalid boot device 'z'" },
    { "-boot once=q", "-boot once=q: Invalid boot device 'q'" },
    { "-boot order=cc", "-boot order=cc: Boot device 'c' was given twice" },
    { "-boot menu=maybe", "-boot menu=maybe: Parameter 'boot.menu' expects "
      "'on' or 'off'" },
    { "-boot strict=2", "-boot strict=2: Parameter 'boot.strict' expects "
      "'on' or 'off'" },
    { "-boot bogus=1", "-boot bogus=1: Parameter 'boot.bogus' is "
      "unexpected" },
    { "-boot reboot-timeout=70000", "-boot reboot-timeout=70000: reboot "
      "timeout is invalid,it should be a value between -1 and 65535" },
    { "-boot reboot-timeout=abc", "-boot reboot-timeout=abc: Parameter "
      "'boot.reboot-timeout' expects integer" },
    { "-boot splash-time=70000", "-boot splash-time=70000: splash-time is "
      "invalid,it should be a value between 0 and 65535" },
    /* The pc's checks: its BIOS knows three devices, a to d and n. */
    { "-M pc -accel qtest -boot order=cdna", "Too many boot devices for PC" },
    { "-M pc -accel qtest -boot order=e", "Invalid boot device for PC: 'e'" },
    { "-M pc -accel qtest -boot order=c,once=e",
      "Invalid boot device for PC: 'e'" },
    /* QEMU 7.2's none machine takes its vCPU's APIC ID from -cpu only. */
    { "-M none -cpu qemu64", "-cpu qemu64: apic-id property was not "
      "initialized properly" },
    { "-M none -cpu qemu64,apic-id=4294967295", "-cpu qemu64,apic-id="
      "4294967295: apic-id property was not initialized properly" },
    { "-M none -cpu qemu64,apic-id=x", "-cpu qemu64,apic-id=x: can't apply "
      "global qemu64-x86_64-cpu.apic-id=x: Parameter 'apic-id' expects "
      "uint64" },
    { "-M none -cpu qemu64,apic-id=-1", "-cpu qemu64,apic-id=-1: can't "
      "apply global qemu64-x86_64-cpu.apic-id=-1: Parameter 'apic-id' "
      "expects uint32_t" },
};

static void test_boot_error(gconstpointer data)
{
    size_t i = GPOINTER_TO_SIZE(data);
    char *args = g_strdup_printf("-display none -nodefaults %s",
                                 boot_errors[i].args);
    char *want = g_strdup_printf("qemu-system-x86_64: %s\n",
                                 boot_errors[i].line);
    char *out, *err;
    int status = qemu_run(args, &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, want);
    g_free(args);
    g_free(want);
    g_free(out);
    g_free(err);
}

/*
 * The replies that show the VM's shape, with what differs from run to
 * run left out: thread IDs and the test harness's QMP socket directory.
 */
static char *vm_shape(QemuVm *vm)
{
    static const char *const cmds[] = {
        "{\"execute\": \"query-cpus-fast\"}",
        "{\"execute\": \"query-memory-size-summary\"}",
        "{\"execute\": \"query-name\"}",
        "{\"execute\": \"query-chardev\"}",
        "{\"execute\": \"query-block\"}",
        "{\"execute\": \"qom-list\", \"arguments\": "
        "{\"path\": \"/machine/peripheral\"}}",
    };
    GRegex *tid = g_regex_new("\"thread-id\":[0-9]+,?|/tmp/qemu-vm-[^/]*/",
                              0, 0, NULL);
    GString *shape = g_string_new(NULL);

    for (size_t i = 0; i < G_N_ELEMENTS(cmds); i++) {
        JsonNode *r = vm_qmp(vm, "%s", cmds[i]);
        char *s = json_to_string(r, FALSE);
        char *t = g_regex_replace_literal(tid, s, -1, 0, "", 0, NULL);

        g_assert_nonnull(strstr(t, "{\"return\":"));
        g_string_append_printf(shape, "%s\n", t);
        g_free(t);
        g_free(s);
        json_node_unref(r);
    }
    g_regex_unref(tid);
    return g_string_free(shape, FALSE);
}

/*
 * A file with machine, memory, smp, name, chardev, drive and device
 * groups builds the VM its command line builds (under tcg, stopped, so
 * the vCPUs exist), and the QMP replies say so.
 */
static void test_same_vm(void)
{
    char *kernel = vm_guest_kit("cpubench.elf");
    char *img = g_build_filename(tmpdir, "disk.img", NULL);
    char *cfgtext, *file, *a, *b;
    QemuVm *vm;

    if (!kernel) {
        g_test_skip("the guest kit's cpubench.elf was not built");
        g_free(img);
        return;
    }
    g_assert_true(g_file_set_contents(img, "", 0, NULL));
    g_assert_cmpint(truncate(img, 1 << 20), ==, 0);
    cfgtext = g_strdup_printf(
        "# the VM of test_same_vm\n"
        "[machine]\n  type = \"pc\"\n  accel = \"tcg\"\n\n"
        "[memory]\n  size = \"256M\"\n\n"
        "[smp-opts]\n  cpus = \"2\"\n\n"
        "[name]\n  guest = \"vm1\"\n\n"
        "[chardev \"c0\"]\n  backend = \"null\"\n\n"
        "[drive \"d0\"]\n  if = \"none\"\n  file = \"%s\"\n"
        "  format = \"raw\"\n\n"
        "[device \"v0\"]\n  driver = \"virtio-blk-pci\"\n  drive = \"d0\"\n",
        img);
    file = write_file("vm.cfg", cfgtext);
    vm = vm_startf(VM_QMP, "-nodefaults -display none -S -kernel %s "
                   "-readconfig %s", kernel, file);
    a = vm_shape(vm);
    vm_quit(vm);
    vm_free(vm);
    vm = vm_startf(VM_QMP, "-nodefaults -display none -S -kernel %s "
                   "-M pc,accel=tcg -m 256M -smp 2 -name vm1 "
                   "-chardev null,id=c0 "
                   "-drive if=none,id=d0,file=%s,format=raw "
                   "-device virtio-blk-pci,drive=d0,id=v0", kernel, img);
    b = vm_shape(vm);
    vm_quit(vm);
    vm_free(vm);
    g_assert_cmpstr(a, ==, b);
    /* ...and it is the VM asked for, not two identical defaults. */
    g_assert_nonnull(strstr(a, "\"cpu-index\":1,"));
    g_assert_nonnull(strstr(a, "\"base-memory\":268435456"));
    g_assert_nonnull(strstr(a, "{\"name\":\"vm1\"}"));
    g_assert_nonnull(strstr(a, "\"label\":\"c0\""));
    g_assert_nonnull(strstr(a, "\"device\":\"d0\""));
    g_assert_nonnull(strstr(a, "\"name\":\"v0\""));
    g_free(a);
    g_free(b);
    g_free(file);
    g_free(cfgtext);
    g_free(img);
    g_free(kernel);
}

/* A file is read at its place: a later option overrides it, and back. */
static void test_order(void)
{
    char *file = write_file("name.cfg",
                            "[name]\n  guest = \"from,file\"\n");
    const char *const forms[][2] = {
        { "-readconfig %s -name cmdline", "cmdline" },
        { "-name cmdline -readconfig %s", "from,file" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(forms); i++) {
        char *args = g_strdup_printf(forms[i][0], file);
        QemuVm *vm = vm_startf(VM_QMP, "-M none -display none -nodefaults "
                               "%s", args);
        JsonNode *r = vm_qmp_return(vm, "query-name");

        g_assert_cmpstr(json_object_get_string_member(
                            json_node_get_object(r), "name"), ==,
                        forms[i][1]);
        json_node_unref(r);
        vm_quit(vm);
        vm_free(vm);
        g_free(args);
    }
    g_free(file);
}

/*
 * CONFDIR/qemu.conf is read before the command line unless
 * -no-user-config. The file is put there in a private mount namespace
 * (a tmpfs over CONFDIR's parent), so the host's tree is not touched.
 */
static void test_user_config(void)
{
    char *parent = g_path_get_dirname(CONFIG_QEMU_CONFDIR);
    const char *bin = qemu_binary();
    char *script, *out, *err;
    int status;
    GError *gerr = NULL;
    char *argv[] = { (char *)"unshare", (char *)"-m", (char *)"sh",
                     (char *)"-c", NULL, NULL };

    char *unshare = g_find_program_in_path("unshare");

    if (getuid() != 0 || !g_file_test(parent, G_FILE_TEST_IS_DIR) ||
        !unshare) {
        g_test_skip("needs root, unshare and the directory "
                    "above " CONFIG_QEMU_CONFDIR);
        g_free(unshare);
        g_free(parent);
        return;
    }
    g_free(unshare);
    script = g_strdup_printf(
        "mount --make-rprivate / && mount -t tmpfs none %s && "
        "mkdir -p %s && printf '[foo]\\n' > %s/qemu.conf || exit 99; "
        "%s -version >/dev/null; echo \"default=$?\"; "
        "%s -no-user-config -version >/dev/null; echo \"skipped=$?\"",
        parent, CONFIG_QEMU_CONFDIR, CONFIG_QEMU_CONFDIR, bin, bin);
    argv[4] = script;
    g_assert_true(g_spawn_sync(NULL, argv, NULL, G_SPAWN_SEARCH_PATH, NULL,
                               NULL, &out, &err, &status, &gerr));
    g_assert_no_error(gerr);
    if (WIFEXITED(status) && WEXITSTATUS(status) == 99) {
        g_test_skip("cannot mount a tmpfs in a new mount namespace");
    } else {
        g_assert_cmpstr(out, ==, "default=1\nskipped=0\n");
        g_assert_cmpstr(err, ==,
                        "qemu-system-x86_64: There is no option group "
                        "'foo'\n");
    }
    g_free(out);
    g_free(err);
    g_free(script);
    g_free(parent);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmpdir = g_dir_make_tmp("test-readconfig-XXXXXX", NULL);
    g_assert_nonnull(tmpdir);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_files); i++) {
        char *path = g_strdup_printf("/readconfig/bad-file/%02zu", i);

        g_test_add_data_func(path, GSIZE_TO_POINTER(i), test_bad_file);
        g_free(path);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cmdlines); i++) {
        char *path = g_strdup_printf("/readconfig/bad-cmdline/%02zu", i);

        g_test_add_data_func(path, GSIZE_TO_POINTER(i), test_bad_cmdline);
        g_free(path);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(boot_errors); i++) {
        char *path = g_strdup_printf("/readconfig/boot-error/%02zu", i);

        g_test_add_data_func(path, GSIZE_TO_POINTER(i), test_boot_error);
        g_free(path);
    }
    g_test_add_func("/readconfig/same-vm", test_same_vm);
    g_test_add_func("/readconfig/order", test_order);
    g_test_add_func("/readconfig/user-config", test_user_config);
    ret = g_test_run();
    {
        char *cmd = g_strdup_printf("rm -rf %s", tmpdir);

        g_assert_true(g_spawn_command_line_sync(cmd, NULL, NULL, NULL,
                                                NULL));
        g_free(cmd);
    }
    g_free(tmpdir);
    return ret;
}
