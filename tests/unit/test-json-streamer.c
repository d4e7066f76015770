/*
 * The JSON stream splitter: values cut right whatever the chunking,
 * errors reported once and followed by resynchronisation, limits
 * holding memory down.
 */
#include <string.h>

#include <glib.h>

#include "monitor/json-streamer.h"

/* What the streamer emitted: "V:<text>" per value, "E:<message>". */
static void collect(void *opaque, const char *json, size_t len,
                    const char *error)
{
    GPtrArray *out = opaque;

    if (json) {
        g_assert_cmpuint(strlen(json), ==, len);
        g_ptr_array_add(out, g_strdup_printf("V:%s", json));
    } else {
        g_assert_nonnull(error);
        g_ptr_array_add(out, g_strdup_printf("E:%s", error));
    }
}

static GPtrArray *results_new(void)
{
    return g_ptr_array_new_with_free_func(g_free);
}

/* Feed text in chunks of chunk bytes (0: all at once), then flush. */
static GPtrArray *split(const char *text, size_t len, size_t chunk)
{
    GPtrArray *out = results_new();
    JsonStreamer *s = json_streamer_new(collect, out);

    if (!chunk) {
        chunk = len ? len : 1;
    }
    for (size_t i = 0; i < len; i += chunk) {
        json_streamer_feed(s, text + i, MIN(chunk, len - i));
    }
    json_streamer_flush(s);
    json_streamer_free(s);
    return out;
}

static void assert_results(GPtrArray *got, const char *const *want)
{
    guint n = 0;

    while (want[n]) {
        g_assert_cmpuint(n, <, got->len);
        g_assert_cmpstr(g_ptr_array_index(got, n), ==, want[n]);
        n++;
    }
    g_assert_cmpuint(got->len, ==, n);
}

static void check_split(const char *text, const char *const *want)
{
    size_t len = strlen(text);
    static const size_t chunks[] = { 0, 1, 2, 3, 7, 64 };

    for (size_t i = 0; i < G_N_ELEMENTS(chunks); i++) {
        GPtrArray *got = split(text, len, chunks[i]);

        assert_results(got, want);
        g_ptr_array_unref(got);
    }
}

static void test_values(void)
{
    static const char *const want[] = {
        "V:{\"execute\": \"qmp_capabilities\"}",
        "V:[1, 2, {\"a\": []}]",
        "V:\"str\"",
        "V:42",
        "V:true",
        "V:null",
        "V:-1.5e3",
        NULL,
    };

    check_split("{\"execute\": \"qmp_capabilities\"}\n"
                "  [1, 2, {\"a\": []}]\r\n\t\"str\" 42 true\nnull -1.5e3",
                want);
}

static void test_nested(void)
{
    static const char *const want[] = {
        "V:{\"a\": {\"b\": [[{}], {\"c\": [1, [2, [3]]]}]}}",
        "V:[[[]]]",
        NULL,
    };

    check_split("{\"a\": {\"b\": [[{}], {\"c\": [1, [2, [3]]]}]}}[[[]]]",
                want);
}

static void test_strings(void)
{
    static const char *const want[] = {
        "V:{\"a\": \"}{][\\\"\\\\\", \"b\": \"\\\"}\"}",
        "V:\"{not an object}\"",
        "V:[\"]\", \"\\\\\"]",
        "V:{\"utf8\": \"h\xc3\xa9\"}",
        NULL,
    };

    check_split("{\"a\": \"}{][\\\"\\\\\", \"b\": \"\\\"}\"}"
                "\"{not an object}\"[\"]\", \"\\\\\"]"
                "{\"utf8\": \"h\xc3\xa9\"}", want);
}

/* Random chunkings of the same text give the same values. */
static void test_random_chunks(void)
{
    const char *text =
        "{\"execute\": \"qom-get\", \"arguments\": {\"path\": \"/machine\","
        " \"property\": \"type\"}, \"id\": {\"x\": [\"}\", 1]}}\n"
        "[\"\\\"\", {\"a\": \"\\\\\"}] 12 {} [] \"\\u0041\" false ";
    size_t len = strlen(text);
    GPtrArray *whole = split(text, len, 0);

    g_assert_cmpuint(whole->len, ==, 7);
    for (int round = 0; round < 200; round++) {
        GPtrArray *got = results_new();
        JsonStreamer *s = json_streamer_new(collect, got);

        for (size_t i = 0; i < len;) {
            /* not inside MIN(), which evaluates its arguments twice */
            size_t r = g_test_rand_int_range(1, 9);
            size_t n = MIN(r, len - i);

            json_streamer_feed(s, text + i, n);
            i += n;
        }
        json_streamer_flush(s);
        json_streamer_free(s);
        g_assert_cmpuint(got->len, ==, whole->len);
        for (guint i = 0; i < got->len; i++) {
            g_assert_cmpstr(g_ptr_array_index(got, i), ==,
                            g_ptr_array_index(whole, i));
        }
        g_ptr_array_unref(got);
    }
    g_ptr_array_unref(whole);
}

static void test_garbage(void)
{
    static const char *const want[] = {
        "E:JSON parse error, stray '@'",
        "V:{\"a\": 1}",
        "E:JSON parse error, expecting value",
        "E:JSON parse error, expecting value",
        "V:[2]",
        "E:JSON parse error, expecting value",
        "V:{\"b\": 3}",
        NULL,
    };

    /* '@' and the rest of its line are skipped up to the newline. */
    check_split("@foo bar\n{\"a\": 1}}]\n[2],{\"b\": 3}", want);
}

static void test_error_inside_value(void)
{
    static const char *const want[] = {
        "E:JSON parse error, stray '#'",
        "E:JSON parse error, expecting value",
        "V:{\"ok\": true}",
        NULL,
    };

    /* The partial value goes; recovery stops at the closing brace. */
    check_split("{\"a\": [1, #junk}\n{\"ok\": true}", want);
}

static void test_invalid_bytes(void)
{
    static const char *const want[] = {
        "E:JSON parse error, stray '\"xy\xff'",
        "V:{\"b\": 1}",
        "E:JSON parse error, stray '\x01'",
        "V:{\"c\": 2}",
        "E:JSON parse error, stray '\"line\n'",
        "E:JSON parse error, expecting value",
        "V:{\"d\": 3}",
        "E:JSON parse error, stray '\x80'",
        "V:[4]",
        NULL,
    };

    /*
     * 0xFF resets mid-value; a raw control byte in a string is an error,
     * after which the rest of the line, up to its '}', is skipped.
     */
    check_split("{\"a\": \"xy\xff{\"b\": 1}"
                "\x01{\"c\": 2}"
                "{\"s\": \"line\nbreak\"}\n{\"d\": 3}"
                "\x80\x81 [4]", want);
}

/*
 * QEMU's single-quoted strings come out as JSON strings: '"' escaped,
 * "\\'" unescaped, the other escapes kept.
 */
static void test_single_quotes(void)
{
    static const char *const want[] = {
        "V:{\"execute\":\"query-status\"}",
        "V:{\"id\": \"a\\\"b\", \"it\": \"it's\"}",
        "V:[\"\\u00e9\\n\\\\\", \"x\"]",
        "V:\"dq it's\"",
        "V:\"}{\"",
        NULL,
    };

    check_split("{'execute':'query-status'}"
                "{'id': 'a\"b', \"it\": 'it\\'s'}"
                "['\\u00e9\\n\\\\', \"x\"]"
                "\"dq it\\'s\" '}{'", want);
}

/*
 * A lexical error names the token as QEMU's lexer has it, bad byte
 * included, once; the next value comes through on its own.
 */
static void test_error_token(void)
{
    static const char *const want[] = {
        "E:JSON parse error, stray ''bad \xff'",
        "V:{\"execute\": \"query-status\"}",
        "E:JSON parse error, stray '\"qu\x01'",
        "E:JSON parse error, expecting value",
        "E:JSON parse error, stray ''x\xfe'",
        "V:[1]",
        NULL,
    };

    check_split("{'bad \xff{\"execute\": \"query-status\"}"
                "{\"execute\":\"qu\x01it\"}\n"
                "{\"id\": 'x\xfe[1]", want);
}

/* Escapes are checked when the value is complete: one error instead. */
static void test_bad_escapes(void)
{
    static const char *const want[] = {
        "E:JSON parse error, invalid escape sequence in string",
        "E:JSON parse error, invalid escape sequence in string",
        "E:JSON parse error, \\u00zz is not a valid Unicode character",
        "E:JSON parse error, \\u0\" is not a valid Unicode character",
        "E:JSON parse error, \\u12\\n is not a valid Unicode character",
        "V:[\"\\u00E9\\/\"]",
        NULL,
    };

    check_split("{'bad \\q'}{\"bad \\q\"}['\\u00zz!']"
                "[\"\\u0\"]  [\"\\u12\\n\"] [\"\\u00E9\\/\"]", want);
}

static void test_pending_literal(void)
{
    GPtrArray *got = results_new();
    JsonStreamer *s = json_streamer_new(collect, got);

    json_streamer_feed(s, "123", 3);
    g_assert_cmpuint(got->len, ==, 0);
    json_streamer_feed(s, "45 ", 3);
    g_assert_cmpuint(got->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(got, 0), ==, "V:12345");
    json_streamer_feed(s, "tru", 3);
    json_streamer_flush(s);
    g_assert_cmpuint(got->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(got, 1), ==, "V:tru");
    json_streamer_feed(s, "{\"a\": ", 6);
    json_streamer_flush(s);
    g_assert_cmpuint(got->len, ==, 3);
    g_assert_cmpstr(g_ptr_array_index(got, 2), ==,
                    "E:JSON parse error, premature end of input");
    /* reset is silent and forgets the partial value */
    json_streamer_feed(s, "{\"a\": [", 7);
    json_streamer_reset(s);
    json_streamer_feed(s, "[]", 2);
    g_assert_cmpuint(got->len, ==, 4);
    g_assert_cmpstr(g_ptr_array_index(got, 3), ==, "V:[]");
    json_streamer_free(s);
    g_ptr_array_unref(got);
}

static void test_depth_limit(void)
{
    GString *text = g_string_new(NULL);
    GPtrArray *got;

    /* 1024 levels are fine... */
    for (int i = 0; i < 1024; i++) {
        g_string_append_c(text, '[');
    }
    for (int i = 0; i < 1024; i++) {
        g_string_append_c(text, ']');
    }
    got = split(text->str, text->len, 0);
    g_assert_cmpuint(got->len, ==, 1);
    g_assert_cmpuint(strlen(g_ptr_array_index(got, 0)), ==, 2 + 2048);
    g_ptr_array_unref(got);

    /* ...1025 are not: one error, the rest of the value is swallowed. */
    g_string_truncate(text, 0);
    for (int i = 0; i < 5000; i++) {
        g_string_append(text, "{\"a\":[");
    }
    for (int i = 0; i < 5000; i++) {
        g_string_append(text, "]}");
    }
    g_string_append(text, "{\"next\": 1}");
    got = split(text->str, text->len, 0);
    g_assert_cmpuint(got->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(got, 0), ==,
                    "E:JSON nesting depth limit exceeded");
    g_assert_cmpstr(g_ptr_array_index(got, 1), ==, "V:{\"next\": 1}");
    g_ptr_array_unref(got);
    g_string_free(text, TRUE);
}

static void test_token_limit(void)
{
    GPtrArray *got = results_new();
    JsonStreamer *s = json_streamer_new(collect, got);
    GString *text = g_string_new("[");

    json_streamer_set_limits(s, 0, 0, 100);
    for (int i = 0; i < 200; i++) {
        g_string_append(text, "1,");
    }
    g_string_append(text, "1] [1, 2]");
    json_streamer_feed(s, text->str, text->len);
    g_assert_cmpuint(got->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(got, 0), ==,
                    "E:JSON token count limit exceeded");
    g_assert_cmpstr(g_ptr_array_index(got, 1), ==, "V:[1, 2]");
    json_streamer_free(s);
    g_ptr_array_unref(got);
    g_string_free(text, TRUE);
}

/*
 * A 10 MB value against a 1 MiB limit: one error, and the buffer never
 * holds more than the limit (GString rounds up to a power of two).
 */
static void test_size_limit(void)
{
    const size_t limit = 1 << 20;
    GPtrArray *got = results_new();
    JsonStreamer *s = json_streamer_new(collect, got);
    char chunk[4096];
    size_t peak = 0;

    json_streamer_set_limits(s, limit, 0, 0);
    memset(chunk, 'x', sizeof(chunk));
    json_streamer_feed(s, "{\"blob\": \"", 10);
    for (size_t fed = 0; fed < 10 * 1000 * 1000; fed += sizeof(chunk)) {
        json_streamer_feed(s, chunk, sizeof(chunk));
        peak = MAX(peak, json_streamer_buffered(s));
    }
    json_streamer_feed(s, "\"}\n{\"after\": 1}", 15);
    g_assert_cmpuint(peak, <=, 2 * limit);
    g_assert_cmpuint(json_streamer_buffered(s), <=, 64 * 1024);
    g_assert_cmpuint(got->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(got, 0), ==,
                    "E:JSON token size limit exceeded");
    g_assert_cmpstr(g_ptr_array_index(got, 1), ==, "V:{\"after\": 1}");
    json_streamer_free(s);
    g_ptr_array_unref(got);
}

/* Under the (default, 64 MiB) limit a 10 MB value passes, then is freed. */
static void test_big_value(void)
{
    size_t n = 10 * 1000 * 1000;
    char *text = g_malloc(n + 3);
    GPtrArray *got = results_new();
    JsonStreamer *s = json_streamer_new(collect, got);

    text[0] = '"';
    memset(text + 1, 'y', n);
    text[n + 1] = '"';
    text[n + 2] = 0;
    for (size_t i = 0; i < n + 2; i += 65536) {
        json_streamer_feed(s, text + i, MIN((size_t)65536, n + 2 - i));
    }
    g_assert_cmpuint(got->len, ==, 1);
    g_assert_cmpuint(strlen(g_ptr_array_index(got, 0)), ==, n + 4);
    g_assert_cmpuint(json_streamer_buffered(s), <=, 64 * 1024);
    json_streamer_free(s);
    g_ptr_array_unref(got);
    g_free(text);
}

/* A top-level string over the limit is skipped to its closing quote. */
static void test_size_limit_scalar(void)
{
    GPtrArray *got = results_new();
    JsonStreamer *s = json_streamer_new(collect, got);
    char big[300];

    memset(big, 'z', sizeof(big));
    json_streamer_set_limits(s, 100, 0, 0);
    json_streamer_feed(s, "\"", 1);
    json_streamer_feed(s, big, sizeof(big));
    json_streamer_feed(s, "\\\"\" [1]", 7);
    g_assert_cmpuint(got->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(got, 0), ==,
                    "E:JSON token size limit exceeded");
    g_assert_cmpstr(g_ptr_array_index(got, 1), ==, "V:[1]");
    json_streamer_free(s);
    g_ptr_array_unref(got);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/json-streamer/values", test_values);
    g_test_add_func("/json-streamer/nested", test_nested);
    g_test_add_func("/json-streamer/strings", test_strings);
    g_test_add_func("/json-streamer/random-chunks", test_random_chunks);
    g_test_add_func("/json-streamer/garbage", test_garbage);
    g_test_add_func("/json-streamer/error-inside-value",
                    test_error_inside_value);
    g_test_add_func("/json-streamer/invalid-bytes", test_invalid_bytes);
    g_test_add_func("/json-streamer/single-quotes", test_single_quotes);
    g_test_add_func("/json-streamer/error-token", test_error_token);
    g_test_add_func("/json-streamer/bad-escapes", test_bad_escapes);
    g_test_add_func("/json-streamer/pending-literal", test_pending_literal);
    g_test_add_func("/json-streamer/depth-limit", test_depth_limit);
    g_test_add_func("/json-streamer/token-limit", test_token_limit);
    g_test_add_func("/json-streamer/size-limit", test_size_limit);
    g_test_add_func("/json-streamer/size-limit-scalar",
                    test_size_limit_scalar);
    g_test_add_func("/json-streamer/big-value", test_big_value);
    return g_test_run();
}
