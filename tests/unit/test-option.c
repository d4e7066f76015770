/*
 * Unit tests for the QEMU-style option parser (util/qemu-option.c):
 * "key=value" lists, booleans, numbers and sizes as -m and -object
 * take them.
 */
#include <errno.h>
#include <stdint.h>

#include <glib.h>

#include "qemu/error.h"
#include "qemu/option.h"

#define SIZE_MESSAGE(name) \
    "Parameter '" name "' expects a non-negative number below 2^64; " \
    "optional suffix k, M, G, T, P or E means kilo-, mega-, giga-, " \
    "tera-, peta- and exabytes"

/* The error must exist and read exactly msg; it is freed here. */
static void assert_error(Error *err, const char *msg)
{
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
}

/* Parse and expect success, so each test reads as its input. */
static QemuOpts *parse_ok(const char *params, const char *implied_key)
{
    Error *err = NULL;
    QemuOpts *opts = qemu_opts_parse(params, implied_key, &err);

    g_assert_null(err);
    g_assert_nonnull(opts);
    return opts;
}

static void parse_fails(const char *params, const char *implied_key,
                        const char *msg)
{
    Error *err = NULL;

    g_assert_null(qemu_opts_parse(params, implied_key, &err));
    assert_error(err, msg);
}

static void test_implied_key(void)
{
    /* -machine pc,accel=kvm: the bare first word is the machine type */
    QemuOpts *opts = parse_ok("pc,accel=kvm", "type");

    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opts_nth(opts, 0)->name, ==, "type");
    g_assert_cmpstr(qemu_opts_nth(opts, 0)->value, ==, "pc");
    g_assert_cmpstr(qemu_opt_get(opts, "accel"), ==, "kvm");
    qemu_opts_free(opts);

    /* An explicit key in first place is not taken as the implied value */
    opts = parse_ok("accel=kvm,type=q35", "type");
    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opt_get(opts, "type"), ==, "q35");
    g_assert_cmpstr(qemu_opt_get(opts, "accel"), ==, "kvm");
    qemu_opts_free(opts);

    /* Only the first word is implied; a later bare word is a flag */
    opts = parse_ok("pc,usb", "type");
    g_assert_cmpstr(qemu_opt_get(opts, "type"), ==, "pc");
    g_assert_cmpstr(qemu_opt_get(opts, "usb"), ==, "on");
    qemu_opts_free(opts);
}

static void test_no_implied_key(void)
{
    /* Without an implied key the first bare word is itself a flag */
    QemuOpts *opts = parse_ok("utc,clock=host", NULL);

    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opts_nth(opts, 0)->name, ==, "utc");
    g_assert_cmpstr(qemu_opt_get(opts, "utc"), ==, "on");
    g_assert_cmpstr(qemu_opt_get(opts, "clock"), ==, "host");
    qemu_opts_free(opts);
}

static void test_escaped_comma(void)
{
    /* ",," is how a file name with a comma reaches -object mem-path= */
    QemuOpts *opts = parse_ok("path=a,,b,x=1", NULL);

    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opt_get(opts, "path"), ==, "a,b");
    g_assert_cmpstr(qemu_opt_get(opts, "x"), ==, "1");
    qemu_opts_free(opts);

    /* In the implied value too, and at the end of a value */
    opts = parse_ok("a,,b,,,c=d,,", "path");
    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opt_get(opts, "path"), ==, "a,b,");
    g_assert_cmpstr(qemu_opt_get(opts, "c"), ==, "d,");
    qemu_opts_free(opts);
}

static void test_bare_key(void)
{
    QemuOpts *opts = parse_ok("type=pc,dump-guest-core", "type");

    g_assert_cmpstr(qemu_opt_get(opts, "dump-guest-core"), ==, "on");
    qemu_opts_free(opts);
}

static void test_bool(void)
{
    static const struct {
        const char *str;
        bool value;
    } cases[] = {
        { "on", true }, { "yes", true }, { "true", true },
        { "off", false }, { "no", false }, { "false", false },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        Error *err = NULL;
        bool b = !cases[i].value;

        g_assert_true(qemu_parse_bool("x", cases[i].str, &b, &err));
        g_assert_null(err);
        g_assert_cmpint(b, ==, cases[i].value);
    }
}

static void test_bool_invalid(void)
{
    /* QEMU's spelling is exact: no case folding, no numbers */
    static const char *const bad[] = { "", "1", "0", "ON", "On", "maybe" };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        Error *err = NULL;
        bool b = true;

        g_assert_false(qemu_parse_bool("x", bad[i], &b, &err));
        assert_error(err, "Parameter 'x' expects 'on' or 'off'");
        /* A failed parse must not clobber the caller's default */
        g_assert_true(b);
    }
}

static void test_typed_getters(void)
{
    QemuOpts *opts = parse_ok("b=off,n=0x10,s=2M", NULL);
    Error *err = NULL;
    bool b = true, absent_b = true;
    uint64_t n = 0, s = 0, absent_n = 7;

    g_assert_true(qemu_opt_get_bool(opts, "b", &b, &err));
    g_assert_false(b);
    g_assert_true(qemu_opt_get_number(opts, "n", &n, &err));
    g_assert_cmpuint(n, ==, 16);
    g_assert_true(qemu_opt_get_size(opts, "s", &s, &err));
    g_assert_cmpuint(s, ==, 2 << 20);
    /* Absent keys keep the preset default */
    g_assert_true(qemu_opt_get_bool(opts, "nob", &absent_b, &err));
    g_assert_true(absent_b);
    g_assert_true(qemu_opt_get_number(opts, "non", &absent_n, &err));
    g_assert_cmpuint(absent_n, ==, 7);
    g_assert_null(err);
    qemu_opts_free(opts);

    opts = parse_ok("b=maybe", NULL);
    g_assert_false(qemu_opt_get_bool(opts, "b", &b, &err));
    assert_error(err, "Parameter 'b' expects 'on' or 'off'");
    qemu_opts_free(opts);
}

static void test_last_wins(void)
{
    /* -machine accel=tcg,accel=kvm: the later value overrides */
    QemuOpts *opts = parse_ok("accel=tcg,accel=kvm", NULL);

    g_assert_cmpuint(qemu_opts_count(opts), ==, 2);
    g_assert_cmpstr(qemu_opt_get(opts, "accel"), ==, "kvm");
    g_assert_null(qemu_opt_get(opts, "missing"));
    qemu_opts_free(opts);
}

static void test_merge(void)
{
    /* -machine pc,accel=tcg -machine accel=kvm,usb=off */
    QemuOpts *dst = qemu_opts_new();
    QemuOpts *first = parse_ok("pc,accel=tcg", "type");
    QemuOpts *second = parse_ok("accel=kvm,usb=off", "type");

    qemu_opts_merge(dst, first);
    qemu_opts_merge(dst, second);
    g_assert_cmpuint(qemu_opts_count(dst), ==, 4);
    g_assert_cmpstr(qemu_opt_get(dst, "type"), ==, "pc");
    g_assert_cmpstr(qemu_opt_get(dst, "accel"), ==, "kvm");
    g_assert_cmpstr(qemu_opt_get(dst, "usb"), ==, "off");
    /* The sources are copied, not moved */
    g_assert_cmpuint(qemu_opts_count(second), ==, 2);
    qemu_opts_free(first);
    qemu_opts_free(second);
    g_assert_cmpstr(qemu_opt_get(dst, "accel"), ==, "kvm");
    qemu_opts_free(dst);
}

static void test_to_string(void)
{
    QemuOpts *opts = parse_ok("a,,b,x=1,,2,flag", "path");
    char *str = qemu_opts_to_string(opts);
    QemuOpts *again;

    /* Commas are escaped again and a flag is spelled out */
    g_assert_cmpstr(str, ==, "path=a,,b,x=1,,2,flag=on");
    again = parse_ok(str, NULL);
    g_assert_cmpuint(qemu_opts_count(again), ==, 3);
    g_assert_cmpstr(qemu_opt_get(again, "path"), ==, "a,b");
    g_assert_cmpstr(qemu_opt_get(again, "x"), ==, "1,2");
    g_assert_cmpstr(qemu_opt_get(again, "flag"), ==, "on");
    g_free(str);
    qemu_opts_free(again);
    qemu_opts_free(opts);

    opts = qemu_opts_new();
    str = qemu_opts_to_string(opts);
    g_assert_cmpstr(str, ==, "");
    g_free(str);
    qemu_opts_free(opts);
}

static void test_empty_key(void)
{
    parse_fails("=x", NULL, "Expected parameter name before '='");
    parse_fails("=x", "type", "Expected parameter name before '='");
    parse_fails("a=1,=x", NULL, "Expected parameter name before '='");
}

static void test_leading_comma(void)
{
    QemuOpts *opts;

    parse_fails(",a=1", NULL, "Invalid parameter ''");
    parse_fails(",a=1", "type", "Invalid parameter ''");
    parse_fails(",", NULL, "Invalid parameter ''");

    /* One trailing comma is tolerated, as in QEMU */
    opts = parse_ok("a=1,", NULL);
    g_assert_cmpuint(qemu_opts_count(opts), ==, 1);
    g_assert_cmpstr(qemu_opt_get(opts, "a"), ==, "1");
    qemu_opts_free(opts);
}

static void test_empty_string(void)
{
    QemuOpts *opts = parse_ok("", "type");

    g_assert_cmpuint(qemu_opts_count(opts), ==, 0);
    g_assert_null(qemu_opts_nth(opts, 0));
    qemu_opts_free(opts);
}

static const QemuOptDesc test_desc[] = {
    { "str", QEMU_OPT_STRING },
    { "flag", QEMU_OPT_BOOL },
    { "num", QEMU_OPT_NUMBER },
    { "size", QEMU_OPT_SIZE },
    { NULL },
};

static void validate_fails(const char *params, const char *msg)
{
    QemuOpts *opts = parse_ok(params, NULL);
    Error *err = NULL;

    g_assert_false(qemu_opts_validate(opts, test_desc, &err));
    assert_error(err, msg);
    qemu_opts_free(opts);
}

static void test_validate_unknown(void)
{
    validate_fails("str=x,foo=1", "Invalid parameter 'foo'");
    validate_fails("foo", "Invalid parameter 'foo'");
}

static void test_validate_types(void)
{
    QemuOpts *opts = parse_ok("str=anything,flag,num=42,size=1G", NULL);
    Error *err = NULL;

    g_assert_true(qemu_opts_validate(opts, test_desc, &err));
    g_assert_null(err);
    qemu_opts_free(opts);

    validate_fails("flag=maybe", "Parameter 'flag' expects 'on' or 'off'");
    validate_fails("num=12k", "Parameter 'num' expects a number");
    validate_fails("num=-1", "Parameter 'num' expects a number");
    validate_fails("size=12Q", SIZE_MESSAGE("size"));
    validate_fails("size=16E",
                   "Value '16E' is out of range for parameter 'size'");
}

static void test_find_unknown(void)
{
    QemuOpts *opts = parse_ok("str=1,bar=2,baz=3", NULL);

    /* The first unknown key, in command-line order */
    g_assert_cmpstr(qemu_opts_find_unknown(opts, test_desc), ==, "bar");
    qemu_opts_free(opts);

    opts = parse_ok("str=1,flag=on", NULL);
    g_assert_null(qemu_opts_find_unknown(opts, test_desc));
    qemu_opts_free(opts);
}

/* Expect qemu_strtosz to accept str with value want. */
static void size_ok(const char *str, uint64_t unit, uint64_t want)
{
    uint64_t v = 0xdeadbeef;

    g_assert_cmpint(qemu_strtosz(str, unit, &v), ==, 0);
    g_assert_cmpuint(v, ==, want);
}

/* Expect qemu_strtosz to fail with ret and leave *value alone. */
static void size_fails(const char *str, int ret)
{
    uint64_t v = 0xdeadbeef;

    g_assert_cmpint(qemu_strtosz(str, 1, &v), ==, ret);
    g_assert_cmpuint(v, ==, 0xdeadbeef);
}

static void test_size_bytes(void)
{
    size_ok("0", 1, 0);
    size_ok("1", 1, 1);
    size_ok("4096", 1, 4096);
    size_ok("00012", 1, 12);
}

static void test_size_default_unit(void)
{
    /* -m 512 means MiB: the unit applies only without a suffix */
    size_ok("512", 1 << 20, UINT64_C(512) << 20);
    size_ok("512K", 1 << 20, UINT64_C(512) << 10);
    size_ok("2B", 1 << 20, 2);
}

static void test_size_suffixes(void)
{
    static const struct {
        char suffix;
        unsigned shift;
    } units[] = {
        { 'B', 0 }, { 'K', 10 }, { 'M', 20 }, { 'G', 30 },
        { 'T', 40 }, { 'P', 50 }, { 'E', 60 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(units); i++) {
        char upper[8], lower[8];

        g_snprintf(upper, sizeof(upper), "3%c", units[i].suffix);
        g_snprintf(lower, sizeof(lower), "3%c",
                   g_ascii_tolower(units[i].suffix));
        size_ok(upper, 1, UINT64_C(3) << units[i].shift);
        size_ok(lower, 1, UINT64_C(3) << units[i].shift);
    }
}

static void test_size_fraction(void)
{
    size_ok("1.5G", 1, UINT64_C(3) << 29);
    size_ok("0.5k", 1, 512);
    size_ok("1.5", 1 << 20, UINT64_C(3) << 19);
    size_ok("1.0M", 1, 1 << 20);
}

static void test_size_fraction_of_byte(void)
{
    /*
     * QEMU's do_strtosz: "When a fraction is present, a scale is
     * required" - 1.5 bytes is an error, not silently 1 byte.
     */
    size_fails("1.5", -EINVAL);
    size_fails("1.5B", -EINVAL);
}

static void test_size_fraction_overflow(void)
{
    /*
     * 15.9999999999999999999E is 2^64 less a tenth of a byte: it does
     * not fit once rounded, and must never wrap around to 0.
     */
    size_fails("15.9999999999999999999E", -ERANGE);
    size_fails("15.99999999999999999999999999E", -ERANGE);
}

static void test_size_hex(void)
{
    size_ok("0x1000", 1, 0x1000);
    size_ok("0X1f", 1, 0x1f);
    size_ok("0xffffffffffffffff", 1, UINT64_MAX);
    size_fails("0x", -EINVAL);
    size_fails("0x1.8", -EINVAL);
    size_fails("0x10000000000000000", -ERANGE);
}

static void test_size_invalid(void)
{
    static const char *const bad[] = {
        "abc", "12Q", "1.", "-1", "", " 1", "1G2", "1 G", "1GB", ".5G",
        "+1", "G",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        size_fails(bad[i], -EINVAL);
    }
}

static void test_size_overflow(void)
{
    size_fails("16E", -ERANGE);
    size_fails("99999999999999999999", -ERANGE);
    size_fails("18446744073709551616", -ERANGE);
    size_fails("17179869184G", -ERANGE);
    size_fails("16384P", -ERANGE);
}

static void test_size_max(void)
{
    size_ok("15E", 1, UINT64_C(15) << 60);
    size_ok("17179869183G", 1, UINT64_C(17179869183) << 30);
    /* UINT64_MAX itself fits: the digit loop must not reject it early */
    size_ok("18446744073709551615", 1, UINT64_MAX);
    size_ok("18446744073709551610", 1, UINT64_MAX - 5);
}

static void test_size_messages(void)
{
    Error *err = NULL;
    uint64_t v = 0;

    g_assert_true(qemu_parse_size("size", "2G", 1, &v, &err));
    g_assert_null(err);
    g_assert_cmpuint(v, ==, UINT64_C(2) << 30);

    g_assert_false(qemu_parse_size("size", "12Q", 1, &v, &err));
    assert_error(err, SIZE_MESSAGE("size"));
    err = NULL;
    g_assert_false(qemu_parse_size("maxmem", "", 1, &v, &err));
    assert_error(err, SIZE_MESSAGE("maxmem"));
    err = NULL;
    g_assert_false(qemu_parse_size("size", "16E", 1, &v, &err));
    assert_error(err, "Value '16E' is out of range for parameter 'size'");
    err = NULL;
    /* The default unit can push a plain number out of range */
    g_assert_false(qemu_parse_size("size", "17179869184", 1 << 30, &v,
                                   &err));
    assert_error(err,
                 "Value '17179869184' is out of range for parameter 'size'");
    g_assert_cmpuint(v, ==, UINT64_C(2) << 30);
}

static void test_number(void)
{
    Error *err = NULL;
    uint64_t v = 0;

    g_assert_true(qemu_parse_number("n", "0", &v, &err));
    g_assert_cmpuint(v, ==, 0);
    g_assert_true(qemu_parse_number("n", "42", &v, &err));
    g_assert_cmpuint(v, ==, 42);
    g_assert_true(qemu_parse_number("n", "0x1F", &v, &err));
    g_assert_cmpuint(v, ==, 31);
    g_assert_true(qemu_parse_number("n", "18446744073709551615", &v, &err));
    g_assert_cmpuint(v, ==, UINT64_MAX);
    g_assert_null(err);
}

static void test_number_invalid(void)
{
    static const char *const bad[] = { "", "abc", "-1", " 1", "1k", "1.5" };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        Error *err = NULL;
        uint64_t v = 7;

        g_assert_false(qemu_parse_number("n", bad[i], &v, &err));
        assert_error(err, "Parameter 'n' expects a number");
        g_assert_cmpuint(v, ==, 7);
    }
}

static void test_number_range(void)
{
    Error *err = NULL;
    uint64_t v = 7;

    g_assert_false(qemu_parse_number("slots", "18446744073709551616", &v,
                                     &err));
    assert_error(err, "Value '18446744073709551616' is out of range for "
                 "parameter 'slots'");
    g_assert_cmpuint(v, ==, 7);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    g_test_add_func("/option/implied-key", test_implied_key);
    g_test_add_func("/option/no-implied-key", test_no_implied_key);
    g_test_add_func("/option/escaped-comma", test_escaped_comma);
    g_test_add_func("/option/bare-key", test_bare_key);
    g_test_add_func("/option/bool", test_bool);
    g_test_add_func("/option/bool-invalid", test_bool_invalid);
    g_test_add_func("/option/typed-getters", test_typed_getters);
    g_test_add_func("/option/last-wins", test_last_wins);
    g_test_add_func("/option/merge", test_merge);
    g_test_add_func("/option/to-string", test_to_string);
    g_test_add_func("/option/empty-key", test_empty_key);
    g_test_add_func("/option/leading-comma", test_leading_comma);
    g_test_add_func("/option/empty-string", test_empty_string);
    g_test_add_func("/option/validate-unknown", test_validate_unknown);
    g_test_add_func("/option/validate-types", test_validate_types);
    g_test_add_func("/option/find-unknown", test_find_unknown);

    g_test_add_func("/number/decimal-hex", test_number);
    g_test_add_func("/number/invalid", test_number_invalid);
    g_test_add_func("/number/out-of-range", test_number_range);

    g_test_add_func("/size/bytes", test_size_bytes);
    g_test_add_func("/size/default-unit", test_size_default_unit);
    g_test_add_func("/size/suffixes", test_size_suffixes);
    g_test_add_func("/size/fraction", test_size_fraction);
    g_test_add_func("/size/hex", test_size_hex);
    g_test_add_func("/size/invalid", test_size_invalid);
    g_test_add_func("/size/overflow", test_size_overflow);
    g_test_add_func("/size/messages", test_size_messages);
    /* Each of these once caught a bug in qemu_strtosz. */
    g_test_add_func("/size/max", test_size_max);
    g_test_add_func("/size/fraction-of-byte", test_size_fraction_of_byte);
    g_test_add_func("/size/fraction-overflow", test_size_fraction_overflow);

    return g_test_run();
}
