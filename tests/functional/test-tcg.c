/*
 * The software CPU (-accel tcg) against the guest kit and against KVM.
 *
 * Every case of tests/guest/cases.txt (the one list of guest programs and
 * their command lines, which tests/guest/record-expected.sh records
 * from) runs under -accel tcg: its serial
 * output must equal the expected file recorded from QEMU 7.2 (CASE.tcg.txt
 * where QEMU's TCG and KVM differ, else CASE.txt, else CASE.kvm.txt: the
 * software CPU must then do what KVM does) and its exit status must be
 * the program's (1 after "NAME: PASS", 0 for the triple fault with
 * -no-reboot). (Filling the block cache is tested in test-tcg-ops.)
 * Where /dev/kvm works, the cases QEMU ran under KVM run under -accel kvm
 * too, and must give their kvm expected output, identical to tcg's where
 * the recorded files are the same. hello linked at 0x8000 must give
 * hello's output under both (QEMU 7.2 loads it over its multiboot
 * information; the loader here moves the information instead). Then the
 * accelerator selection
 * (-machine accel=tcg, the kvm:tcg fallback with KVM unusable, -accel
 * help, the property errors). (The run states under tcg and kvm are
 * test-run-state's.)
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"


/* --- the case list ----------------------------------------------------- */

typedef struct GuestCase {
    char *name;
    unsigned timeout_s;             /* QEMU's, from the recording */
    bool qemu_kvm;                  /* recorded under KVM */
    GPtrArray *args;                /* after the common part */
} GuestCase;

static GPtrArray *cases;            /* of GuestCase * */
static GHashTable *tcg_serial;      /* case name -> serial under tcg */

/* The file's $build (the built guest programs) and $src. */
static char *expand(const char *word)
{
    char **p = g_strsplit(word, "$build", -1);
    char *a = g_strjoinv(GUEST_DIR, p), *b;

    g_strfreev(p);
    p = g_strsplit(a, "$src", -1);
    b = g_strjoinv(GUEST_SRC_DIR, p);
    g_strfreev(p);
    g_free(a);
    return b;
}

/*
 * One line of tests/guest/cases.txt (its header says more):
 *   NAME | TIMEOUT | ACCELS | ARGS
 * ARGS are split on spaces; in the word after -append '+' is a space;
 * everything after -initrd is one word ("path args,path").
 */
static GuestCase *parse_case(const char *line)
{
    char **f = g_strsplit(line, "|", 4);
    GuestCase *c;
    char **words;

    if (g_strv_length(f) != 4) {
        g_strfreev(f);
        return NULL;
    }
    for (unsigned i = 0; i < 4; i++) {
        g_strstrip(f[i]);
    }
    c = g_new0(GuestCase, 1);
    c->name = g_strdup(f[0]);
    c->timeout_s = atoi(f[1]);
    c->qemu_kvm = strstr(f[2], "kvm") != NULL;
    c->args = g_ptr_array_new_with_free_func(g_free);
    words = g_strsplit(f[3], " ", -1);
    for (unsigned i = 0; words[i]; i++) {
        if (!*words[i]) {
            continue;
        }
        if (i > 0 && !strcmp(words[i - 1], "-append")) {
            g_strdelimit(words[i], "+", ' ');
        }
        if (!strcmp(words[i], "-initrd") && words[i + 1]) {
            char *rest = g_strjoinv(" ", words + i + 1);

            g_ptr_array_add(c->args, g_strdup("-initrd"));
            g_ptr_array_add(c->args, expand(rest));
            g_free(rest);
            break;
        }
        g_ptr_array_add(c->args, expand(words[i]));
    }
    g_strfreev(words);
    g_strfreev(f);
    return c;
}

static void load_cases(void)
{
    char *text, **lines;

    cases = g_ptr_array_new();
    g_assert_true(g_file_get_contents(GUEST_SRC_DIR "/cases.txt", &text,
                                      NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (char **l = lines; *l; l++) {
        char *s = g_strstrip(*l);
        GuestCase *c;

        if (!*s || *s == '#') {
            continue;
        }
        c = parse_case(s);
        if (!c) {
            g_error("tests/guest/cases.txt: not NAME | TIMEOUT | ACCELS | "
                    "ARGS: '%s'", s);
        }
        g_ptr_array_add(cases, c);
    }
    g_strfreev(lines);
    g_free(text);
    /* The kit had 10 cases when this test was written. */
    g_assert_cmpuint(cases->len, >=, 10);
}

/* The recorded output for accel: its own file, else the shared one. */
static char *expected_path(const char *name, const char *accel)
{
    const char *other = !strcmp(accel, "tcg") ? "kvm" : NULL;
    const char *const tries[] = { accel, "", other };

    for (unsigned i = 0; i < G_N_ELEMENTS(tries); i++) {
        char *p;

        if (!tries[i]) {
            continue;
        }
        p = g_strdup_printf("%s/expected/%s%s%s.txt", GUEST_SRC_DIR, name,
                            *tries[i] ? "." : "", tries[i]);
        if (g_file_test(p, G_FILE_TEST_EXISTS)) {
            return p;
        }
        g_free(p);
    }
    return NULL;
}

/* isa-debug-exit status 0 after "NAME: PASS"; else the reset path's 0. */
static int expected_status(const char *expected)
{
    const char *pass = strstr(expected, ": PASS\n");

    return pass && !pass[strlen(": PASS\n")] ? 1 : 0;
}

static bool guests_built(void)
{
    if (!g_file_test(GUEST_DIR "/hello.elf", G_FILE_TEST_EXISTS)) {
        g_test_skip("tests/guest programs not built");
        return false;
    }
    return true;
}

/* --- running ----------------------------------------------------------- */

typedef VmRun Run;

static void run_free(Run *r)
{
    vm_run_free(r);
}

/*
 * Run the emulator with args (after the binary) to its end or the
 * timeout (status -1); COM1 and stderr are captured.
 */
static Run run_argv(GPtrArray *args, unsigned timeout_s, bool as_nobody)
{
    return vm_run(args, as_nobody ? VM_AS_NOBODY : 0, timeout_s);
}

static GPtrArray *case_args(const GuestCase *c, const char *accel)
{
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    const char *common[] = {
        "-M", "pc", "-display", "none", "-nodefaults", "-no-reboot",
        "-device", "isa-debug-exit,iobase=0xf4,iosize=0x4", "-accel",
    };

    for (unsigned i = 0; i < G_N_ELEMENTS(common); i++) {
        g_ptr_array_add(a, g_strdup(common[i]));
    }
    g_ptr_array_add(a, g_strdup(accel));
    for (guint i = 0; i < c->args->len; i++) {
        g_ptr_array_add(a, g_strdup(g_ptr_array_index(c->args, i)));
    }
    return a;
}

/* The interpreter may be slower than QEMU's TCG: give it room. */
static unsigned tcg_timeout(const GuestCase *c)
{
    return c->timeout_s * 4 + 30;
}

static Run run_case(const GuestCase *c, const char *accel)
{
    GPtrArray *a = case_args(c, accel);
    Run r = run_argv(a, tcg_timeout(c), false);

    g_ptr_array_free(a, TRUE);
    return r;
}

static void assert_run(const GuestCase *c, const Run *r, const char *accel,
                       const char *expected)
{
    if (r->status == -1) {
        g_test_message("%s under %s timed out; serial so far:\n%s\n"
                       "stderr:\n%s", c->name, accel, r->serial, r->err);
    } else if (!WIFEXITED(r->status) ||
               WEXITSTATUS(r->status) != expected_status(expected) ||
               strcmp(r->serial, expected)) {
        g_test_message("%s under %s: status 0x%x, stderr:\n%s", c->name,
                       accel, r->status, r->err);
    }
    g_assert_cmpint(r->status, !=, -1);
    g_assert_cmpstr(r->serial, ==, expected);
    g_assert_true(WIFEXITED(r->status));
    g_assert_cmpint(WEXITSTATUS(r->status), ==, expected_status(expected));
}

static void test_guest(gconstpointer data)
{
    const GuestCase *c = data;
    char *path, *expected;
    Run r;

    if (!guests_built()) {
        return;
    }
    path = expected_path(c->name, "tcg");
    g_assert_nonnull(path);
    g_assert_true(g_file_get_contents(path, &expected, NULL, NULL));
    r = run_case(c, "tcg");
    assert_run(c, &r, "tcg", expected);
    g_hash_table_replace(tcg_serial, g_strdup(c->name), g_strdup(r.serial));
    run_free(&r);
    g_free(expected);
    g_free(path);
}

static void test_kvm_vs_tcg(gconstpointer data)
{
    const GuestCase *c = data;
    char *kvm_path, *tcg_path, *expected, *tcg_out;
    Run r;

    if (!guests_built()) {
        return;
    }
    if (!vm_kvm_usable()) {
        g_test_skip("no usable /dev/kvm: the KVM half is skipped");
        return;
    }
    kvm_path = expected_path(c->name, "kvm");
    tcg_path = expected_path(c->name, "tcg");
    g_assert_true(g_file_get_contents(kvm_path, &expected, NULL, NULL));
    r = run_case(c, "kvm");
    assert_run(c, &r, "kvm", expected);
    if (!strcmp(kvm_path, tcg_path)) {
        tcg_out = g_strdup(g_hash_table_lookup(tcg_serial, c->name));
        if (!tcg_out) {
            Run t = run_case(c, "tcg");

            tcg_out = g_strdup(t.serial);
            run_free(&t);
        }
        g_assert_cmpstr(r.serial, ==, tcg_out);
        g_free(tcg_out);
    }
    run_free(&r);
    g_free(expected);
    g_free(kvm_path);
    g_free(tcg_path);
}

/*
 * hello linked at 0x8000, over where QEMU 7.2 puts the multiboot
 * information (0x9000-0x95ff; QEMU loads the kernel over it): the guest
 * must get the handover hello gets, wherever the loader moved it.
 */
static void test_multiboot_low(gconstpointer data)
{
    const char *accel = data;
    const GuestCase *hello = NULL;
    GuestCase c = { .name = (char *)"hello-low" };
    char *path, *want, *expected;
    GString *exp;
    Run r;

    if (!guests_built()) {
        return;
    }
    if (!strcmp(accel, "kvm") && !vm_kvm_usable()) {
        g_test_skip("no usable /dev/kvm: the KVM half is skipped");
        return;
    }
    for (guint i = 0; i < cases->len && !hello; i++) {
        GuestCase *h = g_ptr_array_index(cases, i);

        hello = !strcmp(h->name, "hello") ? h : NULL;
    }
    g_assert_nonnull(hello);
    c.timeout_s = hello->timeout_s;
    c.args = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; i < hello->args->len; i++) {
        const char *w = g_ptr_array_index(hello->args, i);

        g_ptr_array_add(c.args, g_str_has_suffix(w, "/hello.elf")
                        ? g_strdup(GUEST_DIR "/hello-low.elf") : g_strdup(w));
    }
    path = expected_path("hello", accel);
    g_assert_true(g_file_get_contents(path, &expected, NULL, NULL));
    exp = g_string_new(expected);
    g_string_replace(exp, "kernel hello.elf ", "kernel hello-low.elf ", 0);
    want = g_string_free(exp, FALSE);
    g_assert_cmpstr(want, !=, expected);
    r = run_case(&c, accel);
    assert_run(&c, &r, accel, want);
    run_free(&r);
    g_ptr_array_free(c.args, TRUE);
    g_free(want);
    g_free(expected);
    g_free(path);
}

/* --- accelerator selection --------------------------------------------- */

static GuestCase *find_case(const char *name)
{
    for (guint i = 0; i < cases->len; i++) {
        GuestCase *c = g_ptr_array_index(cases, i);

        if (!strcmp(c->name, name)) {
            return c;
        }
    }
    g_assert_not_reached();
}

/* hello under the given accelerator words; returns the run. */
static Run run_hello(const char *const *accel_args, bool as_nobody)
{
    const GuestCase *c = find_case("hello");
    GPtrArray *a = g_ptr_array_new_with_free_func(g_free);
    Run r;

    g_ptr_array_add(a, g_strdup("-display"));
    g_ptr_array_add(a, g_strdup("none"));
    g_ptr_array_add(a, g_strdup("-nodefaults"));
    g_ptr_array_add(a, g_strdup("-device"));
    g_ptr_array_add(a, g_strdup("isa-debug-exit,iobase=0xf4,iosize=0x4"));
    for (; *accel_args; accel_args++) {
        g_ptr_array_add(a, g_strdup(*accel_args));
    }
    for (guint i = 0; i < c->args->len; i++) {
        g_ptr_array_add(a, g_strdup(g_ptr_array_index(c->args, i)));
    }
    r = run_argv(a, tcg_timeout(c), as_nobody);
    g_ptr_array_free(a, TRUE);
    return r;
}

static char *hello_tcg_expected(void)
{
    char *path = expected_path("hello", "tcg"), *s;

    g_assert_true(g_file_get_contents(path, &s, NULL, NULL));
    g_free(path);
    return s;
}

static void test_machine_accel(void)
{
    char *expected;
    Run r;

    if (!guests_built()) {
        return;
    }
    expected = hello_tcg_expected();
    r = run_hello((const char *[]) { "-M", "pc,accel=tcg", NULL }, false);
    g_assert_cmpstr(r.serial, ==, expected);
    g_assert_cmpint(WEXITSTATUS(r.status), ==, 1);
    g_assert_cmpstr(r.err, ==, "");
    run_free(&r);
    g_free(expected);
}

/*
 * kvm:tcg falls back to tcg when KVM cannot be used. Made honestly: as
 * root the emulator runs as uid nobody, which may not open /dev/kvm
 * (mode 0600 root); as another user KVM must already be unusable.
 */
static void test_kvm_fallback(gconstpointer data)
{
    const char *how = data;
    const char *m_accel[] = { "-M", "pc,accel=kvm:tcg", NULL };
    const char *accel2[] = { "-M", "pc", "-accel", "kvm", "-accel", "tcg",
                             NULL };
    const char *none[] = { "-M", "pc", NULL };
    bool as_nobody = geteuid() == 0;
    struct stat st;
    char *expected;
    Run r;

    if (!guests_built()) {
        return;
    }
    if (!as_nobody && vm_kvm_usable()) {
        g_test_skip("KVM works for this user and only root can take it "
                    "away (by running the emulator as nobody)");
        return;
    }
    if (as_nobody && stat("/dev/kvm", &st) == 0 && (st.st_mode & 0006)) {
        g_test_skip("/dev/kvm is open to every user here");
        return;
    }
    expected = hello_tcg_expected();
    r = run_hello(!strcmp(how, "machine") ? m_accel :
                  !strcmp(how, "default") ? none : accel2, as_nobody);
    if (WIFEXITED(r.status) && WEXITSTATUS(r.status) == 126) {
        g_test_skip("cannot switch to uid nobody");
    } else {
        g_assert_cmpstr(r.serial, ==, expected);
        g_assert_cmpint(WEXITSTATUS(r.status), ==, 1);
        if (!strcmp(how, "default")) {
            /* Nobody asked for kvm: tcg runs without a word. */
            g_assert_cmpstr(r.err, ==, "");
        } else {
            /* The failed kvm is reported as a warning, then tcg runs. */
            g_assert_true(g_str_has_prefix(r.err, "qemu-system-x86_64: "));
            g_assert_nonnull(strstr(r.err, "failed to initialize kvm"));
        }
    }
    run_free(&r);
    g_free(expected);
}

/* -d cpu_reset, in_asm and tcg_stats under tcg (to stderr without -D). */
static void test_log_items(void)
{
    Run r;
    guint64 count;
    const char *p;

    if (!guests_built()) {
        return;
    }
    r = run_hello((const char *[]) { "-M", "pc", "-accel", "tcg", "-d",
                                     "cpu_reset,in_asm,tcg_stats", NULL },
                  false);
    g_assert_cmpint(WEXITSTATUS(r.status), ==, 1);
    /* The BSP starts at the multiboot entry with the magic in EAX. */
    g_assert_nonnull(strstr(r.err, "CPU#0 reset:\nRAX=000000002badb002 "));
    /* The first block decoded is the one at the entry point. */
    g_assert_nonnull(strstr(r.err, "IN: 0x000000000010000c ("));
    p = strstr(r.err, " instructions retired by 1 vCPU(s)\n");
    g_assert_nonnull(p);
    while (p > r.err && g_ascii_isdigit(p[-1])) {
        p--;
    }
    count = g_ascii_strtoull(p, NULL, 10);
    /* hello runs tens of thousands of instructions, not millions. */
    g_assert_cmpuint(count, >, 1000);
    g_assert_cmpuint(count, <, 100000000);
    run_free(&r);
}

static void test_accel_help(void)
{
    char *out, *err;
    int status = qemu_run("-accel help", &out, &err);

    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_true(g_str_has_prefix(out, "Accelerators supported in QEMU "
                                        "binary:\ntcg\nkvm\n"));
    g_free(out);
    g_free(err);
}

static const struct {
    const char *args, *line;
} bad_accel[] = {
    { "-M none -accel tcg,thread=foo",
      "qemu-system-x86_64: -accel tcg,thread=foo: Invalid 'thread' setting "
      "foo\n" },
    { "-M none -accel tcg,tb-size=abc",
      "qemu-system-x86_64: -accel tcg,tb-size=abc: Parameter 'tb-size' "
      "expects uint64\n" },
    { "-M none -accel tcg,tb-size=5000000000",
      "qemu-system-x86_64: -accel tcg,tb-size=5000000000: Parameter "
      "'tb-size' expects uint32_t\n" },
    { "-M none -accel tcg,foo=1",
      "qemu-system-x86_64: -accel tcg,foo=1: Property 'tcg-accel.foo' not "
      "found\n" },
    { "-M pc -accel tcg -cpu host -display none -kernel /dev/null",
      "qemu-system-x86_64: CPU model 'host' requires KVM or HVF\n" },
};

static void test_accel_errors(void)
{
    for (size_t i = 0; i < G_N_ELEMENTS(bad_accel); i++) {
        char *err;
        int status = qemu_run(bad_accel[i].args, NULL, &err);

        g_assert_true(WIFEXITED(status));
        g_assert_cmpint(WEXITSTATUS(status), ==, 1);
        g_assert_cmpstr(err, ==, bad_accel[i].line);
        g_free(err);
    }
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    tcg_serial = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                       g_free);
    load_cases();
    for (guint i = 0; i < cases->len; i++) {
        GuestCase *c = g_ptr_array_index(cases, i);
        char *p = g_strdup_printf("/tcg/guest/%s", c->name);

        g_test_add_data_func(p, c, test_guest);
        g_free(p);
    }
    for (guint i = 0; i < cases->len; i++) {
        GuestCase *c = g_ptr_array_index(cases, i);
        char *p;

        if (!c->qemu_kvm) {
            continue;
        }
        p = g_strdup_printf("/tcg/kvm-vs-tcg/%s", c->name);
        g_test_add_data_func(p, c, test_kvm_vs_tcg);
        g_free(p);
    }
    g_test_add_data_func("/tcg/multiboot-linked-low/tcg", "tcg",
                         test_multiboot_low);
    g_test_add_data_func("/tcg/multiboot-linked-low/kvm", "kvm",
                         test_multiboot_low);
    g_test_add_func("/tcg/accel/machine-accel", test_machine_accel);
    g_test_add_data_func("/tcg/accel/fallback-machine-kvm-tcg", "machine",
                         test_kvm_fallback);
    g_test_add_data_func("/tcg/accel/fallback-accel-kvm-accel-tcg", "accel",
                         test_kvm_fallback);
    g_test_add_data_func("/tcg/accel/default-without-kvm", "default",
                         test_kvm_fallback);
    g_test_add_func("/tcg/log-items", test_log_items);
    g_test_add_func("/tcg/accel/help", test_accel_help);
    g_test_add_func("/tcg/accel/errors", test_accel_errors);
    ret = g_test_run();
    g_hash_table_destroy(tcg_serial);
    return ret;
}
