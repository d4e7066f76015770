/*
 * The command line as a user meets it: -version, -help, one clear line
 * and exit status 1 for every malformed command line, orderly exits on
 * signals, -pidfile and -daemonize.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "qemu-vm.h"

static const char *options_names_file;

static void test_version(void)
{
    char *out, *err;
    int status = qemu_run("-version", &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    /* libvirt reads the version from exactly this prefix. */
    g_assert_true(g_str_has_prefix(out, "QEMU emulator version "));
    g_assert_cmpstr(err, ==, "");
    g_free(out);
    g_free(err);
}

/* True when word stands in text as a whole word ("-hda/-hdb" has two). */
static bool has_word(const char *text, const char *word)
{
    size_t len = strlen(word);

    for (const char *p = strstr(text, word); p; p = strstr(p + 1, word)) {
        bool start = p == text || g_ascii_isspace(p[-1]) || p[-1] == '/';
        char after = p[len];

        if (start && (after == '\0' || g_ascii_isspace(after) ||
                      after == '[' || after == ',' || after == '/')) {
            return true;
        }
    }
    return false;
}

static void test_help_lists_every_option(void)
{
    char *out, *err, *names;
    char **list;
    int status = qemu_run("-help", &out, &err);
    int count = 0;

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_true(g_file_get_contents(options_names_file, &names, NULL, NULL));
    list = g_strsplit(names, "\n", -1);
    for (char **n = list; *n; n++) {
        if (**n) {
            if (!has_word(out, *n)) {
                g_test_message("-help does not mention %s", *n);
                g_test_fail();
            }
            count++;
        }
    }
    /* The table from qemu-options.hx must not be empty or truncated. */
    g_assert_cmpint(count, >=, 40);
    g_strfreev(list);
    g_free(names);
    g_free(out);
    g_free(err);
}

/* QEMU 7.2 lists -action's keys on stdout and exits with status 1. */
static void test_action_help(void)
{
    char *out, *err;
    int status = qemu_run("-action help", &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(out, ==, "action options:\n  panic=<str>\n"
                    "  reboot=<str>\n  shutdown=<str>\n"
                    "  watchdog=<str>\n");
    g_assert_cmpstr(err, ==, "");
    g_free(out);
    g_free(err);
}

static void test_help_listings(void)
{
    static const struct {
        const char *args;
        const char *expect;
    } cases[] = {
        { "-machine help", "none                 empty machine" },
        { "-machine help", "pc                   Standard PC" },
        { "-accel help", "kvm\n" },
        { "-cpu help", "x86 qemu64" },
        { "-d help", "guest_errors" },
        { "-object help", "memory-backend-memfd" },
        { "-vga help", "none                 no graphic card\n" },
        /* QEMU 7.2's lines, verbatim. */
        { "-device help",
          "name \"pci-testdev\", bus PCI, desc \"PCI Test Device\"\n" },
        { "-device pci-testdev,help",
          "pci-testdev options:\n"
          "  acpi-index=<uint32>    -  (default: 0)\n"
          "  addr=<int32>           - Slot and optional function number, "
          "example: 06.0 or 06 (default: -1)\n"
          "  failover_pair_id=<str>\n"
          "  membar=<size>          -  (default: 0)\n"
          "  multifunction=<bool>   - on/off (default: false)\n"
          "  rombar=<uint32>        -  (default: 1)\n"
          "  romfile=<str>\n"
          "  romsize=<uint32>       -  (default: 4294967295)\n"
          "  x-pcie-extcap-init=<bool> - on/off (default: true)\n"
          "  x-pcie-lnksta-dllla=<bool> - on/off (default: true)\n" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        char *out;
        int status = qemu_run(cases[i].args, &out, NULL);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 0);
        if (!strstr(out, cases[i].expect)) {
            g_test_message("%s: missing '%s' in:\n%s", cases[i].args,
                           cases[i].expect, out);
            g_test_fail();
        }
        g_free(out);
    }
}

/*
 * Every option name QEMU 7.2's qemu-system-x86_64 knows (its option
 * table, found by asking the binary about each name), aliases included.
 */
static const char *const qemu72_options[] = {
    "D", "L", "M", "S", "accel", "acpitable", "action", "add-fd", "append",
    "async-teardown", "audio", "audio-help", "audiodev", "bios", "blockdev",
    "boot", "cdrom", "chardev", "chroot", "compat", "cpu", "d", "daemonize",
    "debugcon", "device", "dfilter", "display", "drive", "dtb",
    "dump-vmstate", "echr", "enable-kvm", "enable-sync-profile", "fda",
    "fdb", "fsdev", "full-screen", "fw_cfg", "g", "gdb", "global", "h",
    "hda", "hdb", "hdc", "hdd", "help", "icount", "incoming", "initrd",
    "iscsi", "k", "kernel", "loadvm", "m", "machine", "mem-path",
    "mem-prealloc", "mon", "monitor", "msg", "mtdblock", "name", "net",
    "netdev", "nic", "no-acpi", "no-fd-bootchk", "no-hpet", "no-reboot",
    "no-shutdown", "no-user-config", "nodefaults", "nographic", "numa",
    "object", "old-param", "only-migratable", "option-rom", "overcommit",
    "parallel", "pflash", "pidfile", "plugin", "portrait", "preconfig",
    "prom-env", "qmp", "qmp-pretty", "qtest", "qtest-log", "readconfig",
    "rotate", "rtc", "runas", "s", "sandbox", "sd", "seed", "semihosting",
    "semihosting-config", "serial", "set", "singlestep", "smbios", "smp",
    "snapshot", "spice", "tpmdev", "trace", "usb", "usbdevice", "uuid",
    "version", "vga", "virtfs", "vnc", "watchdog-action", "win2k-hack",
    "xen-attach", "xen-domid", "xen-domid-restrict",
};

/*
 * None of them is an "invalid option": the first pass over the words
 * passes over a known name (and its argument, if it takes one) and
 * stops at the unknown word after it.
 */
static void test_qemu72_options_known(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(qemu72_options); i++) {
        const char *name = qemu72_options[i];
        char *args = g_strdup_printf("-%s -zz-unknown -zz-unknown", name);
        char *err;
        int status = qemu_run(args, NULL, &err);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        if (strcmp(err, "qemu-system-x86_64: -zz-unknown: invalid "
                   "option\n")) {
            g_test_message("-%s: %s", name, err);
            g_test_fail();
        }
        g_free(err);
        g_free(args);
    }
}

/*
 * Each malformed command line gives exit status 1 and exactly one line
 * on stderr. The wording follows QEMU's where QEMU has one.
 */
static const struct {
    const char *args;
    const char *line;
} bad_cmdlines[] = {
    { "-foo", "-foo: invalid option" },
    /* Known to QEMU 7.2, not built yet: one generic refusal. */
    { "-M none -numa node", "-numa node: not supported yet" },
    { "-M none -loadvm s1", "-loadvm s1: not supported yet" },
    { "-M none -s", "-s: not supported yet" },
    /* QEMU 7.2 has them for other targets only, and says so. */
    { "-M none -g 800x600", "-g 800x600: Option not supported for this "
      "target" },
    { "-M none -semihosting", "-semihosting: Option not supported for "
      "this target" },
    { "-M none -vga std", "-vga std: VGA type 'std' is not supported yet; "
      "only 'none' is" },
    { "-M none -vga foo", "unknown vga type: foo" },
    { "--foo", "--foo: invalid option" },
    { "-version --foo", "--foo: invalid option" },
    { "-m", "-m: requires an argument" },
    { "disk.img", "disk.img: disk images given without an option are not "
      "supported" },
    { "-M none -m abc", "-m abc: Parameter 'size' expects a non-negative "
      "number below 2^64; optional suffix k, M, G, T, P or E means kilo-, "
      "mega-, giga-, tera-, peta- and exabytes" },
    { "-M none -m 99999999999999999999", "-m 99999999999999999999: Value "
      "'99999999999999999999' is out of range for parameter 'size'" },
    { "-M none -m 16E", "-m 16E: Value '16E' is out of range for parameter "
      "'size'" },
    { "-M none -m size=1G,foo=1", "-m size=1G,foo=1: Invalid parameter "
      "'foo'" },
    { "-M none -m 1G,slots=2", "-m 1G,slots=2: slots specified but no "
      "max-size" },
    { "-M none -m 1G,maxmem=512M,slots=1", "-m 1G,maxmem=512M,slots=1: "
      "invalid value of maxmem: maximum memory size (0x20000000) must be at "
      "least the initial memory size (0x40000000)" },
    { "-machine foo", "-machine foo: unsupported machine type 'foo'; use "
      "-machine help to list supported machines" },
    { "-machine none,foo=bar", "-machine none,foo=bar: Property "
      "'none-machine.foo' not found" },
    { "-M none -M dump-guest-core=x", "-M dump-guest-core=x: Parameter "
      "'dump-guest-core' expects 'on' or 'off'" },
    { "-M none,kernel-irqchip=maybe", "-M none,kernel-irqchip=maybe: "
      "Parameter 'kernel-irqchip' expects 'on', 'off' or 'split'" },
    { "-M none,accel=foo", "-M none,accel=foo: invalid accelerator foo" },
    { "-M none -accel foo", "-accel foo: invalid accelerator foo" },
    { "-M none -accel kvm,foo=1", "-accel kvm,foo=1: Property "
      "'kvm-accel.foo' not found" },
    { "-M none -accel tcg,thread=foo", "-accel tcg,thread=foo: Invalid "
      "'thread' setting foo" },
    { "-M none,accel=kvm -accel kvm", "The -accel and \"-machine accel=\" "
      "options are incompatible" },
    { "-M none -accel kvm -machine accel=kvm", "The -accel and \"-machine "
      "accel=\" options are incompatible" },
    /* -enable-kvm is -machine accel=kvm, as in QEMU 7.2. */
    { "-M none -enable-kvm -accel kvm", "The -accel and \"-machine "
      "accel=\" options are incompatible" },
    { "-M none -accel tcg -enable-kvm", "The -accel and \"-machine "
      "accel=\" options are incompatible" },
    { "-M none -smp abc", "-smp abc: Parameter 'smp.cpus' expects integer" },
    { "-M none -smp foo=1", "-smp foo=1: Parameter 'smp.foo' is unexpected" },
    { "-M none -smp 2", "-smp 2: Invalid SMP CPUs 2. The max CPUs supported "
      "by machine 'none' is 1" },
    { "-M none -smp cpus=4,maxcpus=2", "-smp cpus=4,maxcpus=2: Invalid CPU "
      "topology: maxcpus must be equal to or greater than smp: sockets (1) "
      "* cores (2) * threads (1) == maxcpus (2) < smp_cpus (4)" },
    { "-M none -overcommit mem-lock=maybe", "-overcommit mem-lock=maybe: "
      "parameter 'mem-lock' expects one of 'on', 'off', 'on-fault'" },
    { "-M none -overcommit mem-lock=", "-overcommit mem-lock=: parameter "
      "'mem-lock' expects one of 'on', 'off', 'on-fault'" },
    { "-M none -overcommit mem-lock=on,foo=1", "-overcommit "
      "mem-lock=on,foo=1: Invalid parameter 'foo'" },
    { "-M none -overcommit cpu-pm=x", "-overcommit cpu-pm=x: Parameter "
      "'cpu-pm' expects 'on' or 'off'" },
    { "-M none -uuid xyz", "-uuid xyz: failed to parse UUID string: wrong "
      "format" },
    { "-M none -name guest=a,foo=1", "-name guest=a,foo=1: Invalid "
      "parameter 'foo'" },
    { "-M none -name debug-threads=x", "-name debug-threads=x: Parameter "
      "'debug-threads' expects 'on' or 'off'" },
    { "-M none -object foo", "-object foo: Parameter 'qom-type' does not "
      "accept value 'foo'" },
    { "-M none -object memory-backend-ram", "-object memory-backend-ram: "
      "Parameter 'id' is missing" },
    { "-M none -cpu foo", "-cpu foo: unable to find CPU model 'foo'" },
    { "-M none -display foo", "-display foo: Parameter 'type' does not "
      "accept value 'foo'" },
    { "-M none -display gtk", "-display gtk: Display 'gtk' is not "
      "available" },
    { "-M none -sandbox on,spawn=maybe", "-sandbox on,spawn=maybe: invalid "
      "argument for spawn" },
    { "-M none -sandbox on,obsolete=children", "-sandbox on,obsolete="
      "children: invalid argument for obsolete" },
    { "-M none -global foo", "-global foo: Invalid parameter 'foo'" },
    { "-M none -d foo", "-d foo: unknown log item 'foo'; '-d help' lists "
      "them" },
    { "-M none -msg timestamp=x", "-msg timestamp=x: Parameter 'timestamp' "
      "expects 'on' or 'off'" },
    { "-M none -rtc base=xx", "-rtc base=xx: invalid datetime format; valid "
      "formats: '2006-06-17T16:01:21' or '2006-06-17'" },
    { "-M none -boot foo=1", "-boot foo=1: Parameter 'boot.foo' is "
      "unexpected" },
    { "-M none -audio foo", "-audio foo: audio driver 'foo' is not "
      "available; only 'none' is" },
    { "-M none -chardev null", "-chardev null: chardev: no id specified" },
    { "-M none -object {\"qom-type\":\"secret\",\"id\":\"s\",\"data\":"
      "\"x\",\"bogus\":1}", "-object {\"qom-type\":\"secret\",\"id\":"
      "\"s\",\"data\":\"x\",\"bogus\":1}: Property 'secret.bogus' not "
      "found" },
    { "-M none -device {\"driver\":\"isa-serial\",\"chardev\":[1]}",
      "-device {\"driver\":\"isa-serial\",\"chardev\":[1]}: Parameter "
      "'chardev' expects a string, number or boolean" },
    { "-M none -add-fd set=0,fd=99", "-add-fd set=0,fd=99: error "
      "duplicating fd: Bad file descriptor" },
    { "-M none -add-fd set=0", "-add-fd set=0: fd option is required and "
      "must be non-negative" },
    { "-M none -chardev file,id=c0,path=/dev/fdset/3", "-chardev file,id=c0,"
      "path=/dev/fdset/3: Could not open '/dev/fdset/3': Permission "
      "denied" },
    { "-M none -audiodev driver=none", "-audiodev driver=none: Parameter "
      "'id' is missing" },
    { "-M none -audiodev none,id=a,foo=1", "-audiodev none,id=a,foo=1: "
      "Parameter 'foo' is unexpected" },
    { "-M none -audiodev {\"id\":\"a\",\"driver\":\"alsa\"}",
      "-audiodev {\"id\":\"a\",\"driver\":\"alsa\"}: Parameter 'driver' "
      "does not accept value 'alsa'" },
    { "-M none,usb=on", "-M none,usb=on: USB is not available in this "
      "release yet; usb=off is the only value" },
    { "-M none,acpi=on", "-M none,acpi=on: Property 'none-machine.acpi' "
      "not found" },
    { "-M pc,acpi=maybe", "-M pc,acpi=maybe: Parameter 'acpi' does not "
      "accept value 'maybe'" },
    { "-M none -object secret,id=s0", "-object secret,id=s0: Either 'file' "
      "or 'data' must be provided" },
    { "-M none -object secret,id=s0,data=x,format=hex",
      "-object secret,id=s0,data=x,format=hex: Parameter 'format' does not "
      "accept value 'hex'" },
    { "-M none -mon chardev=c,mode=x", "-mon chardev=c,mode=x: unknown "
      "monitor mode 'x'" },
    { "-M none -pidfile /nonexistent/dir/pid", "cannot create PID file: "
      "Could not create '/nonexistent/dir/pid': No such file or directory" },
    { "-M none -D /nonexistent/dir/log", "-D /nonexistent/dir/log: cannot "
      "open log file '/nonexistent/dir/log': No such file or directory" },
    { "-M none -serial foo", "-serial foo: 'foo' is not a valid char "
      "driver" },
    { "-M none -chardev socket,id=c", "-chardev socket,id=c: chardev: "
      "socket: no host given" },
    { "-M none -mon chardev=nope", "-mon chardev=nope: chardev \"nope\" "
      "not found" },
    { "-M none -qmp foo", "-qmp foo: 'foo' is not a valid char driver" },
    { "-M none -device foo", "-device foo: 'foo' is not a valid device "
      "model name" },
    /*
     * -action values are checked after the whole command line, and QEMU
     * 7.2 names the first -action, -no-reboot or -no-shutdown.
     */
    { "-M none -action panic=bogus", "-action panic=bogus: Parameter "
      "'panic' does not accept value 'bogus'" },
    { "-M none -action panic=none -action watchdog=exit-failure",
      "-action panic=none: Parameter 'watchdog' does not accept value "
      "'exit-failure'" },
    { "-M none -no-reboot -action shutdown=reset", "-no-reboot: Parameter "
      "'shutdown' does not accept value 'reset'" },
    { "-action panic=bogus -M nope", "-action panic=bogus: Parameter "
      "'panic' does not accept value 'bogus'" },
    { "-M none -action foo=bar", "-action foo=bar: Invalid parameter "
      "'foo'" },
    /* Buses, with QEMU's wording (-M none has no ISA bus). */
    { "-M none -device isa-debug-exit,bus=isa.0", "-device "
      "isa-debug-exit,bus=isa.0: Bus 'isa.0' not found" },
    { "-M pc -accel qtest -device isa-debug-exit,bus=main-system-bus",
      "-device isa-debug-exit,bus=main-system-bus: Device 'isa-debug-exit' "
      "can't go on System bus" },
    /* Memory backends, with QEMU's wording where QEMU has one. */
    { "-M none -object memory-backend-ram,id=m,size=0", "-object "
      "memory-backend-ram,id=m,size=0: can't create backend with size 0" },
    { "-M none -object memory-backend-ram,id=m,size=1G,prealloc-threads=0",
      "-object memory-backend-ram,id=m,size=1G,prealloc-threads=0: property "
      "'prealloc-threads' of memory-backend-ram doesn't take value '0'" },
    { "-M none -object memory-backend-ram,id=m,size=1G,policy=bind",
      "-object memory-backend-ram,id=m,size=1G,policy=bind: policy 'bind' "
      "is not supported: this build has no NUMA binding; only 'default' "
      "is" },
    { "-M none -object memory-backend-file,id=m,size=1G", "-object "
      "memory-backend-file,id=m,size=1G: mem-path property not set" },
    { "-M none -object memory-backend-file,id=m,size=1G,"
      "mem-path=/nonexistent/dir/f", "-object memory-backend-file,id=m,"
      "size=1G,mem-path=/nonexistent/dir/f: can't open backing store "
      "/nonexistent/dir/f for guest RAM: No such file or directory" },
    { "-M none -object memory-backend-file,id=m,size=1G,mem-path=/tmp,"
      "align=3M", "-object memory-backend-file,id=m,size=1G,mem-path=/tmp,"
      "align=3M: alignment 0x300000 must be a power of two" },
    { "-M none -object memory-backend-memfd,id=m,size=1000", "-object "
      "memory-backend-memfd,id=m,size=1000: memory size 0x3e8 must be "
      "equal to or larger than page size 0x1000" },
    { "-M none -machine memory-backend=nope", "Memory backend 'nope' not "
      "found" },
    { "-M none -m 64M -object memory-backend-ram,id=m,size=32M -machine "
      "memory-backend=m", "Machine memory size does not match the size of "
      "the memory backend" },
    { "-M none -m 64M -mem-path /tmp -object memory-backend-ram,id=m,"
      "size=64M -machine memory-backend=m", "'-mem-path' can't be used "
      "together with '-machine memory-backend'" },
    /*
     * Checked before guest RAM exists: RAM that could not even be set up
     * (a missing -mem-path folder) would be the error otherwise, after
     * preallocating it all when it could be.
     */
    { "-M pc -accel qtest -m 64G -mem-prealloc -mem-path /nonexistent/dir "
      "-device nonexistent", "-device nonexistent: 'nonexistent' is not a "
      "valid device model name" },
    { "-M pc -accel qtest -m 64G -mem-prealloc -mem-path /nonexistent/dir "
      "-serial foo:bar", "-serial foo:bar: 'foo:bar' is not a valid char "
      "driver" },
    { "-M pc -accel qtest -m 64G -mem-prealloc -mem-path /nonexistent/dir "
      "-chardev file,id=c,path=/nonexistent/x", "-chardev file,id=c,"
      "path=/nonexistent/x: Could not open '/nonexistent/x': No such file "
      "or directory" },
    { "-M pc -accel qtest -m 64G -mem-prealloc -mem-path /nonexistent/dir "
      "-drive file=/nonexistent,format=raw,if=none", "-drive "
      "file=/nonexistent,format=raw,if=none: Could not open '/nonexistent': "
      "No such file or directory" },
    { "-M pc -accel qtest -m 64G -mem-prealloc -mem-path /nonexistent/dir",
      "-mem-path /nonexistent/dir: can't open backing store "
      "/nonexistent/dir for guest RAM: No such file or directory" },
    { "-M none -kernel /nonexistent", "-kernel /nonexistent: machine 'none' "
      "cannot load a kernel in this release yet" },
    { "-M none -incoming bogus:x", "-incoming bogus:x: unknown migration "
      "protocol: bogus:x" },
    { "-M none -nographic -daemonize", "-nographic cannot be used with "
      "-daemonize" },
    /* The pc's default serial and parallel ports would still use stdio. */
    { "-M pc -accel qtest -nographic -daemonize -qmp null",
      "-nographic cannot be used with -daemonize" },
    { "-M pc -accel qtest -append x", "-append only allowed with -kernel "
      "option" },
    { "-M pc -accel qtest -initrd /dev/null", "-initrd only allowed with "
      "-kernel option" },
    { "-M none -machine pit=off", "-machine pit=off: Property "
      "'none-machine.pit' not found" },
};

static void test_bad_cmdline(gconstpointer data)
{
    size_t i = GPOINTER_TO_SIZE(data);
    char *args = g_strdup_printf("-display none %s", bad_cmdlines[i].args);
    char *expect = g_strdup_printf("qemu-system-x86_64: %s\n",
                                   bad_cmdlines[i].line);
    char *out, *err;
    int status = qemu_run(args, &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, expect);
    g_assert_cmpstr(out, ==, "");
    g_free(args);
    g_free(expect);
    g_free(out);
    g_free(err);
}

/* The binary's accelerator: kvm where it works, qtest otherwise. */
static const char *test_accel(void)
{
    return access("/dev/kvm", R_OK | W_OK) == 0 ? "kvm" : "qtest";
}

static void test_signal(gconstpointer data)
{
    int sig = GPOINTER_TO_INT(data);
    char *args = g_strdup_printf("-M none -display none -accel %s",
                                 test_accel());
    int err_fd, status;
    pid_t pid = qemu_spawn(args, &err_fd);
    char *err, *expect;

    g_assert_true(qemu_wait_signals_ready(pid, 10000));
    kill(pid, sig);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    err = read_all_fd(err_fd);
    /* QEMU exits 0 after a termination signal, naming the sender. */
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    expect = g_strdup_printf("qemu-system-x86_64: terminating on signal %d "
                             "from pid %d (", sig, (int)getpid());
    g_assert_true(g_str_has_prefix(err, expect));
    g_assert_nonnull(strchr(err, ')'));
    g_assert_cmpint(strchr(err, '\n') - err, ==, strlen(err) - 1);
    g_free(expect);
    g_free(err);
    g_free(args);
}

static char *make_tmpdir(void)
{
    GError *gerr = NULL;
    char *dir = g_dir_make_tmp("qemu-test-XXXXXX", &gerr);

    g_assert_no_error(gerr);
    return dir;
}

static void test_pidfile(void)
{
    char *dir = make_tmpdir();
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *args = g_strdup_printf("-M none -display none -accel %s "
                                 "-pidfile %s", test_accel(), pidfile);
    int err_fd, status;
    pid_t pid = qemu_spawn(args, &err_fd);
    char *contents, *expect;

    g_assert_true(qemu_wait_signals_ready(pid, 10000));
    g_assert_true(g_file_get_contents(pidfile, &contents, NULL, NULL));
    expect = g_strdup_printf("%d\n", (int)pid);
    g_assert_cmpstr(contents, ==, expect);
    /* A second instance must not take over a pidfile that is in use. */
    {
        char *err2;
        int st2 = qemu_run(args, NULL, &err2);

        g_assert_cmpint(WEXITSTATUS(st2), ==, 1);
        g_assert_true(strstr(err2, "cannot create PID file: Cannot lock "
                             "pid file") != NULL);
        g_free(err2);
    }
    kill(pid, SIGTERM);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_false(g_file_test(pidfile, G_FILE_TEST_EXISTS));
    g_free(read_all_fd(err_fd));
    g_free(contents);
    g_free(expect);
    g_free(args);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
}

static void test_daemonize(gconstpointer data)
{
    const char *extra = data;
    char *dir = make_tmpdir();
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *args = g_strdup_printf("-M none -display none -accel %s "
                                 "-daemonize -pidfile %s %s", test_accel(),
                                 pidfile, extra);
    char *out, *err, *contents;
    int status = qemu_run(args, &out, &err);
    pid_t daemon;

    /* The parent returns only once the daemon is fully set up. */
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_cmpstr(err, ==, "");
    g_assert_true(g_file_get_contents(pidfile, &contents, NULL, NULL));
    daemon = atoi(contents);
    g_assert_cmpint(daemon, >, 1);
    g_assert_cmpint(kill(daemon, 0), ==, 0);
    g_assert_true(qemu_wait_signals_ready(daemon, 10000));
    kill(daemon, SIGTERM);
    g_assert_true(wait_pid_gone(daemon, 10000));
    g_assert_false(g_file_test(pidfile, G_FILE_TEST_EXISTS));
    g_free(contents);
    g_free(out);
    g_free(err);
    g_free(args);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
}

static void test_daemonize_failure(void)
{
    char *dir = make_tmpdir();
    char *pidfile = g_build_filename(dir, "vm.pid", NULL);
    char *args = g_strdup_printf("-M none -display none -daemonize "
                                 "-pidfile %s -accel %s -incoming bogus:x",
                                 pidfile, test_accel());
    char *err;
    int status = qemu_run(args, NULL, &err);

    /* The daemon failed after the fork: the parent reports it. */
    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_cmpstr(err, ==, "qemu-system-x86_64: -incoming bogus:x: unknown "
                    "migration protocol: bogus:x\n");
    g_assert_false(g_file_test(pidfile, G_FILE_TEST_EXISTS));
    g_free(err);
    g_free(args);
    g_free(pidfile);
    rmdir(dir);
    g_free(dir);
}

static void test_msg_timestamp(void)
{
    char *err;
    int status = qemu_run("-msg timestamp=on -name guest=vm1 "
                          "-msg timestamp=on,guest-name=on -d foo", NULL, &err);
    GRegex *re = g_regex_new("^\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\."
                             "\\d{6}Z vm1 qemu-system-x86_64: -d foo: "
                             "unknown log item 'foo'; '-d help' lists "
                             "them\n$", 0, 0, NULL);

    g_assert_cmpint(WEXITSTATUS(status), ==, 1);
    g_assert_true(g_regex_match(re, err, 0, NULL));
    g_regex_unref(re);
    g_free(err);
}

/*
 * Start with args and a QMP monitor on stdio, ask query-kvm, quit.
 * Returns what query-kvm says of "enabled" after checking the emulator
 * answered and exited with status 0.
 */
static bool qmp_query_kvm_enabled(const char *args)
{
    static const char cmds[] = "{\"execute\": \"qmp_capabilities\"}\n"
                               "{\"execute\": \"query-kvm\"}\n"
                               "{\"execute\": \"quit\"}\n";
    char *cmdline = g_strdup_printf("%s -display none %s -qmp stdio",
                                    qemu_binary(), args);
    char **argv = g_strsplit(cmdline, " ", -1);
    GError *gerr = NULL;
    int in_fd, out_fd, status;
    GPid pid;
    char *out;
    bool enabled;

    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                           NULL, &pid, &in_fd, &out_fd, NULL,
                                           &gerr));
    g_assert_no_error(gerr);
    g_assert_cmpint(write(in_fd, cmds, strlen(cmds)), ==, strlen(cmds));
    close(in_fd);
    out = read_all_fd(out_fd);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    enabled = strstr(out, "{\"return\": {\"enabled\": true") != NULL;
    g_assert_true(enabled ||
                  strstr(out, "{\"return\": {\"enabled\": false") != NULL);
    g_strfreev(argv);
    g_free(cmdline);
    g_free(out);
    return enabled;
}

/*
 * -enable-kvm is -machine accel=kvm (QEMU 7.2): it goes with -machine
 * accel=, and the later of the two wins. -enable-kvm -machine accel=qtest
 * needs no KVM and would be refused if -enable-kvm were -accel kvm.
 */
static void test_enable_kvm_is_machine_accel(void)
{
    g_assert_false(qmp_query_kvm_enabled("-M none -enable-kvm "
                                         "-machine accel=qtest"));
    if (access("/dev/kvm", R_OK | W_OK) != 0) {
        g_test_skip("/dev/kvm cannot be opened: the KVM cases need it");
        return;
    }
    g_assert_true(qmp_query_kvm_enabled("-M none -machine accel=kvm "
                                        "-enable-kvm"));
    g_assert_true(qmp_query_kvm_enabled("-M none -machine accel=qtest "
                                        "-enable-kvm"));
}

/*
 * -nographic: the serial console and the monitor share stdio; Ctrl-a h
 * prints the escape help and Ctrl-a x ends the emulator (status 0).
 */
static void test_nographic_escapes(void)
{
    char *argv[] = { (char *)qemu_binary(), (char *)"-M", (char *)"pc",
                     (char *)"-accel", (char *)"qtest", (char *)"-nographic",
                     NULL };
    GError *gerr = NULL;
    int in_fd, out_fd, status;
    GPid pid;
    char *out;

    g_assert_true(g_spawn_async_with_pipes(NULL, argv, NULL,
                                           G_SPAWN_DO_NOT_REAP_CHILD, NULL,
                                           NULL, &pid, &in_fd, &out_fd, NULL,
                                           &gerr));
    g_assert_no_error(gerr);
    g_assert_true(qemu_wait_signals_ready(pid, 10000));
    g_assert_cmpint(write(in_fd, "\001h", 2), ==, 2);
    g_usleep(200 * 1000);
    g_assert_cmpint(write(in_fd, "\001x", 2), ==, 2);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    close(in_fd);
    out = read_all_fd(out_fd);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_nonnull(strstr(out, "C-a x    exit emulator"));
    g_assert_nonnull(strstr(out, "QEMU: Terminated"));
    g_free(out);
}

/*
 * -sandbox on, as libvirt asks for it: a seccomp filter is installed on
 * every thread (the kernel counts it in /proc/PID/status), the VM keeps
 * working, and quit still exits 0 (the teardown's helper fork is
 * refused, not fatal). Skipped in builds without libseccomp.
 */
static void test_sandbox(void)
{
    QemuVm *vm;
    char *path, *status, *line, *state;

    /* -sandbox is handled before -machine help exits. */
    if (qemu_run("-sandbox on -machine help", NULL, NULL) != 0) {
        g_test_skip("built without libseccomp");
        return;
    }
    vm = vm_startf(VM_QMP, "-M pc -accel qtest -display none -sandbox "
                   "on,obsolete=deny,elevateprivileges=deny,spawn=deny,"
                   "resourcecontrol=deny");
    path = g_strdup_printf("/proc/%d/status", (int)vm_pid(vm));
    g_assert_true(g_file_get_contents(path, &status, NULL, NULL));
    line = strstr(status, "\nSeccomp:");
    g_assert_nonnull(line);
    g_assert_true(g_str_has_prefix(line, "\nSeccomp:\t2\n"));
    g_assert_null(strstr(status, "Seccomp_filters:\t0"));
    state = vm_status(vm);
    g_assert_cmpstr(state, ==, "running");
    g_free(state);
    vm_quit(vm);
    vm_free(vm);
    g_free(status);
    g_free(path);
}

/*
 * The JSON forms of -object, -device and -audiodev, as libvirt writes
 * them: the same objects and devices as their key=value forms.
 */
static void test_json_forms(void)
{
    QemuVm *vm = vm_startf(VM_QMP, "-M pc,memory-backend=pc.ram -accel qtest "
        "-display none -m 64 "
        "-object {\"qom-type\":\"memory-backend-ram\",\"id\":\"pc.ram\","
        "\"size\":67108864,\"share\":true} "
        "-object {\"qom-type\":\"secret\",\"id\":\"k0\",\"data\":\"x\"} "
        "-device {\"driver\":\"isa-debug-exit\",\"id\":\"dbg\","
        "\"iobase\":1281} "
        "-audiodev {\"id\":\"audio1\",\"driver\":\"none\"}");
    JsonNode *ret = vm_qmp_return(vm, "query-memdev");
    JsonObject *m = json_array_get_object_element(json_node_get_array(ret),
                                                  0);
    JsonNode *r;

    g_assert_cmpstr(json_object_get_string_member(m, "id"), ==, "pc.ram");
    g_assert_cmpint(json_object_get_int_member(m, "size"), ==, 64 << 20);
    g_assert_true(json_object_get_boolean_member(m, "share"));
    json_node_unref(ret);
    r = vm_qmp(vm, "{\"execute\": \"qom-get\", \"arguments\": "
               "{\"path\": \"/machine/peripheral/dbg\", "
               "\"property\": \"iobase\"}}");
    g_assert_cmpint(json_object_get_int_member(json_node_get_object(r),
                                               "return"), ==, 1281);
    json_node_unref(r);
    r = vm_qmp(vm, "{\"execute\": \"qom-list\", \"arguments\": "
               "{\"path\": \"/objects/k0\"}}");
    g_assert_true(json_object_has_member(json_node_get_object(r), "return"));
    json_node_unref(r);
    vm_quit(vm);
    vm_free(vm);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    options_names_file = g_getenv("QEMU_OPTIONS_NAMES");
    if (!options_names_file) {
        options_names_file = QEMU_OPTIONS_NAMES;
    }
    g_test_add_func("/cmdline/version", test_version);
    g_test_add_func("/cmdline/help/every-option", test_help_lists_every_option);
    g_test_add_func("/cmdline/help/action", test_action_help);
    g_test_add_func("/cmdline/help/listings", test_help_listings);
    g_test_add_func("/cmdline/qemu72-options-known",
                    test_qemu72_options_known);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_cmdlines); i++) {
        char *path = g_strdup_printf("/cmdline/bad/%02zu", i);

        g_test_add_data_func(path, GSIZE_TO_POINTER(i), test_bad_cmdline);
        g_free(path);
    }
    g_test_add_data_func("/cmdline/signal/term", GINT_TO_POINTER(SIGTERM),
                         test_signal);
    g_test_add_data_func("/cmdline/signal/int", GINT_TO_POINTER(SIGINT),
                         test_signal);
    g_test_add_data_func("/cmdline/signal/hup", GINT_TO_POINTER(SIGHUP),
                         test_signal);
    g_test_add_func("/cmdline/pidfile", test_pidfile);
    g_test_add_data_func("/cmdline/daemonize/ok", "", test_daemonize);
    /* libvirt's probe: -nographic with every default removed. */
    g_test_add_data_func("/cmdline/daemonize/nographic-nodefaults",
                         "-nodefaults -nographic", test_daemonize);
    g_test_add_func("/cmdline/daemonize/failure", test_daemonize_failure);
    g_test_add_func("/cmdline/msg/timestamp", test_msg_timestamp);
    g_test_add_func("/cmdline/sandbox", test_sandbox);
    g_test_add_func("/cmdline/json-forms", test_json_forms);
    g_test_add_func("/cmdline/nographic/escapes", test_nographic_escapes);
    g_test_add_func("/cmdline/accel/enable-kvm",
                    test_enable_kvm_is_machine_accel);
    return g_test_run();
}
