/*
 * The qtest line parser, fed directly: every malformed line gets one
 * ERR or FAIL reply and the server keeps going.
 */
#include <string.h>

#include "qemu/timer.h"
#include "system/memory.h"
#include "system/qtest.h"

static GPtrArray *replies;

static void collect(const char *line, void *opaque)
{
    g_ptr_array_add(replies, g_strdup(line));
}

static uint8_t ram[64 * 1024];
static MemoryRegion ram_mr;

static void setup(void)
{
    qemu_clock_set_manual(true);
    memset(ram, 0, sizeof(ram));
    memory_region_init_ram_ptr(&ram_mr, "test-ram", sizeof(ram), ram);
    g_assert_true(address_space_map_region(&address_space_memory, &ram_mr,
                                           0x1000, NULL));
    replies = g_ptr_array_new_with_free_func(g_free);
}

static void teardown(void)
{
    memory_region_finalize(&ram_mr);
    g_ptr_array_free(replies, TRUE);
}

/* Feed one chunk and return the single reply it produced. */
static const char *feed(QTestServer *s, const char *text)
{
    guint before = replies->len;

    qtest_server_feed(s, (const uint8_t *)text, strlen(text));
    g_assert_cmpuint(replies->len, ==, before + 1);
    return g_ptr_array_index(replies, replies->len - 1);
}

static void test_happy_path(void)
{
    QTestServer *s;

    setup();
    s = qtest_server_new_detached(collect, NULL);
    g_assert_cmpstr(feed(s, "endianness\n"), ==, "OK little");
    g_assert_cmpstr(feed(s, "writel 0x1000 0x12345678\n"), ==, "OK");
    g_assert_cmpstr(feed(s, "readl 0x1000\n"), ==, "OK 0x0000000012345678");
    g_assert_cmpstr(feed(s, "readw 0x1002\n"), ==, "OK 0x0000000000001234");
    g_assert_cmpstr(feed(s, "read 0x1000 4\n"), ==, "OK 0x78563412");
    g_assert_cmpstr(feed(s, "write 0x1004 2 0xbeef\n"), ==, "OK");
    g_assert_cmpstr(feed(s, "readw 0x1004\n"), ==, "OK 0x000000000000efbe");
    g_assert_cmpstr(feed(s, "b64write 0x1010 3 YWJj\n"), ==, "OK");
    g_assert_cmpstr(feed(s, "b64read 0x1010 3\n"), ==, "OK YWJj");
    g_assert_cmpstr(feed(s, "memset 0x1020 4 0x5a\n"), ==, "OK");
    g_assert_cmpstr(feed(s, "readl 0x1020\n"), ==, "OK 0x000000005a5a5a5a");
    /* Nothing at address 0: reads are all-ones. */
    g_assert_cmpstr(feed(s, "readb 0x0\n"), ==, "OK 0x00000000000000ff");
    g_assert_cmpstr(feed(s, "inb 0x80\n"), ==, "OK 0x00ff");
    g_assert_cmpstr(feed(s, "clock_step 100\n"), ==, "OK 100");
    g_assert_cmpstr(feed(s, "clock_set 50\n"), ==, "OK 100");
    g_assert_cmpstr(feed(s, "clock_set 1000\n"), ==, "OK 1000");
    qtest_server_free(s);
    teardown();
}

static void test_split_lines(void)
{
    QTestServer *s;

    setup();
    s = qtest_server_new_detached(collect, NULL);
    /* A command may arrive in pieces, several may share one chunk. */
    qtest_server_feed(s, (const uint8_t *)"endian", 6);
    g_assert_cmpuint(replies->len, ==, 0);
    qtest_server_feed(s, (const uint8_t *)"ness\r\nendianness\n", 18);
    g_assert_cmpuint(replies->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(replies, 0), ==, "OK little");
    qtest_server_free(s);
    teardown();
}

static const struct {
    const char *line;
    const char *reply;
} bad_lines[] = {
    { "foo\n", "FAIL Unknown command 'foo'" },
    { "outb\n", "ERR wrong number of arguments for 'outb'" },
    { "outb 1 2 3\n", "ERR wrong number of arguments for 'outb'" },
    { "outb 0xzz 1\n", "ERR invalid number" },
    { "outb 0x10000 1\n", "ERR port address out of range" },
    { "inb -1\n", "ERR invalid number" },
    { "readl 99999999999999999999\n", "ERR invalid number" },
    { "writeq 0x1000 x\n", "ERR invalid number" },
    { "read 0x1000 99999999999\n",
      "ERR size 99999999999 is over the limit of 67108864 bytes" },
    { "read 0xffffffffffffffff 2\n", "ERR address range wraps around" },
    { "write 0x1000 2 1234\n", "ERR data must start with 0x" },
    { "write 0x1000 1 0x1234\n", "ERR data does not match the size" },
    { "write 0x1000 2 0xzz\n", "ERR invalid hex digit" },
    { "b64write 0x1000 4 !!!!\n", "ERR invalid base64 data" },
    { "memset 0x1000 4\n", "ERR wrong number of arguments for 'memset'" },
    { "clock_step abc\n", "ERR invalid number" },
    { "clock_step\n", "FAIL No timer is pending" },
    { "clock_set\n", "ERR wrong number of arguments for 'clock_set'" },
    { "irq_intercept_in nowhere\n", "FAIL Unknown device" },
    { "set_irq_in nowhere x 0 1\n", "FAIL Unknown device" },
    { "endianness extra\n", "ERR wrong number of arguments for "
      "'endianness'" },
};

static void test_bad_lines(void)
{
    QTestServer *s;

    setup();
    s = qtest_server_new_detached(collect, NULL);
    for (size_t i = 0; i < G_N_ELEMENTS(bad_lines); i++) {
        g_assert_cmpstr(feed(s, bad_lines[i].line), ==, bad_lines[i].reply);
    }
    /* And it still works. */
    g_assert_cmpstr(feed(s, "endianness\n"), ==, "OK little");
    qtest_server_free(s);
    teardown();
}

static void test_empty_lines_and_garbage(void)
{
    QTestServer *s;
    char junk[4096];

    setup();
    s = qtest_server_new_detached(collect, NULL);
    qtest_server_feed(s, (const uint8_t *)"\n\n", 2);
    g_assert_cmpuint(replies->len, ==, 0);
    for (size_t i = 0; i < sizeof(junk); i++) {
        junk[i] = (char)(i * 7 + 1) == '\n' ? 'x' : (char)(i * 7 + 1);
    }
    junk[sizeof(junk) - 1] = '\n';
    qtest_server_feed(s, (const uint8_t *)junk, sizeof(junk));
    g_assert_cmpuint(replies->len, ==, 1);
    g_assert_true(g_str_has_prefix(g_ptr_array_index(replies, 0),
                                   "FAIL Unknown command"));
    qtest_server_free(s);
    teardown();
}

/* Smaller limits (the fuzzer's) trip where the defaults would not. */
static void test_limits(void)
{
    QTestServer *s;
    char line[80];

    setup();
    s = qtest_server_new_detached(collect, NULL);
    qtest_server_set_limits(s, 32, 8);
    g_assert_cmpstr(feed(s, "read 0x1000 8\n"), ==,
                    "OK 0x0000000000000000");
    g_assert_cmpstr(feed(s, "read 0x1000 9\n"), ==,
                    "ERR size 9 is over the limit of 8 bytes");
    g_assert_cmpstr(feed(s, "write 0x1000 33 0x\n"), ==,
                    "ERR data does not match the size");
    memset(line, 'x', sizeof(line) - 1);
    line[sizeof(line) - 1] = '\0';
    g_assert_cmpstr(feed(s, line), ==, "ERR line longer than 32 bytes");
    /* The rest of that line is dropped, the next one is read. */
    qtest_server_feed(s, (const uint8_t *)"xx\n", 3);
    g_assert_cmpstr(feed(s, "endianness\n"), ==, "OK little");
    g_assert_cmpuint(replies->len, ==, 5);
    qtest_server_free(s);
    teardown();
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/qtest-parser/happy-path", test_happy_path);
    g_test_add_func("/qtest-parser/split-lines", test_split_lines);
    g_test_add_func("/qtest-parser/bad-lines", test_bad_lines);
    g_test_add_func("/qtest-parser/garbage", test_empty_lines_and_garbage);
    g_test_add_func("/qtest-parser/limits", test_limits);
    return g_test_run();
}
