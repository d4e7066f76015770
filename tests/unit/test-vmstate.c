/*
 * The field-table interpreter and the stream framing: save/load round
 * trips, versions, subsections, range and hook checks that name the
 * field, truncation, and the CRC32C every section carries.
 */
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "hw/qdev.h"
#include "migration/stream.h"
#include "vmstate/vmstate.h"
#include "qemu/timer.h"
#include "target/i386/cpu-state.h"

typedef struct Inner {
    uint16_t a;
    uint64_t b;
} Inner;

typedef struct Dev {
    uint8_t u8;
    uint16_t u16;
    uint32_t u32;
    uint64_t u64;
    bool flag;
    int32_t neg;
    uint8_t buf[5];
    uint32_t arr[3];
    Inner in[2];
    Inner *ptr;
    QEMUTimer *timer;
    uint32_t added_v2;          /* in version 2 only */
    uint8_t sub_val;            /* the subsection's */
    bool sub_needed;
    int post_loads;
} Dev;

static bool odd_only(void *opaque, const VMStateField *f, Error **errp)
{
    Dev *d = opaque;

    if (!(d->u16 & 1)) {
        error_setg(errp, "%u is even", d->u16);
        return false;
    }
    return true;
}

static const VMStateDescription vmstate_inner = {
    .name = "inner",
    .version = 1,
    .fields = (const VMStateField[]) {
        VMSTATE_U16(Inner, a, VMS_RANGE(0, 1000)),
        VMSTATE_U64(Inner, b),
        VMSTATE_END
    },
};

static bool sub_needed(void *opaque)
{
    return ((Dev *)opaque)->sub_needed;
}

static const VMStateDescription vmstate_sub = {
    .name = "dev/sub",
    .version = 1,
    .minimum_version = 1,
    .needed = sub_needed,
    .fields = (const VMStateField[]) {
        VMSTATE_U8(Dev, sub_val, VMS_RANGE(1, 9)),
        VMSTATE_END
    },
};

static bool dev_post_load(void *opaque, unsigned version, Error **errp)
{
    Dev *d = opaque;

    d->post_loads++;
    d->sub_needed = d->sub_val != 0;
    return true;
}

static const VMStateDescription vmstate_dev = {
    .name = "dev",
    .version = 2,
    .minimum_version = 1,
    .post_load = dev_post_load,
    .subsections = (const VMStateDescription *const[]) { &vmstate_sub, NULL },
    .fields = (const VMStateField[]) {
        VMSTATE_U8(Dev, u8),
        VMSTATE_U16(Dev, u16, .check = odd_only),
        VMSTATE_U32(Dev, u32),
        VMSTATE_U64(Dev, u64),
        VMSTATE_BOOL(Dev, flag),
        VMSTATE_I32(Dev, neg),
        VMSTATE_BUFFER(Dev, buf),
        VMSTATE_U32_ARRAY(Dev, arr, 3, VMS_RANGE(0, 100)),
        VMSTATE_STRUCT_ARRAY(Dev, in, 2, Inner, vmstate_inner),
        VMSTATE_STRUCT_POINTER(Dev, ptr, Inner, vmstate_inner),
        VMSTATE_TIMER(Dev, timer),
        VMSTATE_U32(Dev, added_v2, VMS_SINCE(2)),
        VMSTATE_END
    },
};

static Inner ptr_a, ptr_b;

static void dev_init(Dev *d, Inner *ptr)
{
    memset(d, 0, sizeof(*d));
    d->ptr = ptr;
    d->timer = timer_new_ns(QEMU_CLOCK_VIRTUAL, NULL, NULL);
}

static void dev_fill(Dev *d)
{
    d->u8 = 0xab;
    d->u16 = 0x1235;
    d->u32 = 0xdeadbeef;
    d->u64 = 0x0123456789abcdefull;
    d->flag = true;
    d->neg = -5;
    memcpy(d->buf, "hello", 5);
    d->arr[0] = 1;
    d->arr[1] = 50;
    d->arr[2] = 100;
    d->in[0] = (Inner){ 7, 8 };
    d->in[1] = (Inner){ 999, 1ull << 63 };
    *d->ptr = (Inner){ 3, 4 };
    timer_mod(d->timer, 123456789);
    d->added_v2 = 42;
    d->sub_val = 5;
    d->sub_needed = true;
}

static void dev_free(Dev *d)
{
    timer_free(d->timer);
}

static GByteArray *save(Dev *d)
{
    GByteArray *out = g_byte_array_new();

    g_assert_true(vmstate_save(&vmstate_dev, d, out));
    return out;
}

static void test_round_trip(void)
{
    Dev a, b;
    GByteArray *out;
    Error *err = NULL;
    char *field = NULL;

    dev_init(&a, &ptr_a);
    dev_init(&b, &ptr_b);
    dev_fill(&a);
    g_assert_false(vmstate_equal(&vmstate_dev, &a, &b, &field));
    g_assert_cmpstr(field, ==, "u8");
    g_free(field);
    out = save(&a);
    g_assert_true(vmstate_load(&vmstate_dev, &b, 2, out->data, out->len,
                               "dev instance 0", &err));
    g_assert_null(err);
    g_assert_cmpint(b.post_loads, ==, 1);
    g_assert_true(vmstate_equal(&vmstate_dev, &a, &b, &field));
    g_assert_null(field);
    g_assert_cmpint(ptr_b.a, ==, 3);
    g_assert_cmpint(timer_expire_ns(b.timer), ==, 123456789);
    /* A difference deep inside is named by its path. */
    b.in[1].b ^= 1;
    g_assert_false(vmstate_equal(&vmstate_dev, &a, &b, &field));
    g_assert_cmpstr(field, ==, "in[1].b");
    g_free(field);
    g_byte_array_free(out, TRUE);
    dev_free(&a);
    dev_free(&b);
}

static void test_no_subsection(void)
{
    Dev a, b;
    GByteArray *out;
    Error *err = NULL;

    dev_init(&a, &ptr_a);
    dev_init(&b, &ptr_b);
    dev_fill(&a);
    a.sub_needed = false;
    a.sub_val = 0;
    out = save(&a);
    g_assert_true(vmstate_load(&vmstate_dev, &b, 2, out->data, out->len,
                               "dev", &err));
    g_assert_cmpint(b.sub_val, ==, 0);
    g_byte_array_free(out, TRUE);
    dev_free(&a);
    dev_free(&b);
}

/* Load out (modified at byte pos by xor) and expect msg. */
static void expect_error(GByteArray *out, size_t len, const char *msg)
{
    Dev b;
    Error *err = NULL;

    dev_init(&b, &ptr_b);
    g_assert_false(vmstate_load(&vmstate_dev, &b, 2, out->data, len,
                                "dev instance 0", &err));
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
    dev_free(&b);
}

static void test_checks(void)
{
    Dev a;
    GByteArray *out;

    dev_init(&a, &ptr_a);
    dev_fill(&a);
    a.arr[1] = 101;
    out = save(&a);
    expect_error(out, out->len, "dev instance 0: field 'arr[1]': value 101 is "
                 "out of range 0..100");
    g_byte_array_free(out, TRUE);

    a.arr[1] = 1;
    a.u16 = 2;
    out = save(&a);
    expect_error(out, out->len, "dev instance 0: field 'u16': 2 is even");
    g_byte_array_free(out, TRUE);

    a.u16 = 3;
    a.in[1].a = 1001;
    out = save(&a);
    expect_error(out, out->len, "dev instance 0: field 'in[1].a': value 1001 "
                 "is out of range 0..1000");
    g_byte_array_free(out, TRUE);

    a.in[1].a = 1;
    a.sub_val = 10;
    out = save(&a);
    expect_error(out, out->len, "dev instance 0: field 'sub_val': value 10 "
                 "is out of range 1..9");
    g_byte_array_free(out, TRUE);

    a.sub_val = 1;
    out = save(&a);
    /* The bool is the 16th byte: 1 + 2 + 4 + 8. */
    out->data[15] = 2;
    expect_error(out, out->len, "dev instance 0: field 'flag': 2 is not a "
                 "boolean");
    out->data[15] = 1;
    expect_error(out, 10, "dev instance 0: field 'u64': state ends early");
    g_byte_array_append(out, (const uint8_t *)"x", 1);
    expect_error(out, out->len, "dev instance 0: 1 bytes after the last "
                 "field");
    g_byte_array_free(out, TRUE);
    dev_free(&a);
}

static void test_versions(void)
{
    Dev a, b;
    GByteArray *out;
    Error *err = NULL;

    dev_init(&a, &ptr_a);
    dev_init(&b, &ptr_b);
    dev_fill(&a);
    out = save(&a);
    g_assert_false(vmstate_load(&vmstate_dev, &b, 3, out->data, out->len,
                                "dev instance 0", &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "dev instance 0: state version "
                    "3 is not supported (1..2)");
    error_free(err);
    err = NULL;
    /* Version 1 has no added_v2: 4 bytes fewer are read. */
    g_assert_false(vmstate_load(&vmstate_dev, &b, 1, out->data, out->len,
                                "dev instance 0", &err));
    error_free(err);
    g_byte_array_free(out, TRUE);
    dev_free(&a);
    dev_free(&b);
}

static void test_table_check(void)
{
    char *why = NULL;

    g_assert_true(vmstate_check_table(&vmstate_dev, sizeof(Dev), &why));
    g_assert_false(vmstate_check_table(&vmstate_dev, 8, &why));
    g_assert_nonnull(strstr(why, "lies outside"));
    g_free(why);
}

static void test_crc32c(void)
{
    /* The check value of CRC-32C (RFC 3720 B.4). */
    g_assert_cmphex(mig_crc32c(0, "123456789", 9), ==, 0xe3069283);
    g_assert_cmphex(mig_crc32c(mig_crc32c(0, "1234", 4), "56789", 5), ==,
                    0xe3069283);
}

/* Framing: sections through a pipe, then damaged copies. */
static void test_sections(void)
{
    int p[2];
    MigStream w, r;
    MigSection sec;
    Error *err = NULL;
    uint8_t payload[100];
    char *data;
    gsize len;

    g_assert_cmpint(pipe(p), ==, 0);
    memset(payload, 0x5a, sizeof(payload));
    mig_stream_init(&w, p[1], -1);
    g_assert_true(mig_stream_write_header(&w));
    g_assert_true(mig_section_write(&w, MIG_SEC_STATE, "dev", 3, 2, payload,
                                    sizeof(payload)));
    g_assert_true(mig_section_write(&w, MIG_SEC_END, "", 0, 0, NULL, 0));
    g_assert_true(mig_stream_flush(&w));
    close(p[1]);
    mig_stream_init(&r, p[0], -1);
    g_assert_true(mig_stream_read_header(&r, &err));
    g_assert_true(mig_section_read(&r, &sec, 0, "header", &err));
    g_assert_cmpint(sec.kind, ==, MIG_SEC_STATE);
    g_assert_cmpstr(sec.name, ==, "dev");
    g_assert_cmpint(sec.instance, ==, 3);
    g_assert_cmpint(sec.version, ==, 2);
    g_assert_cmpint(sec.len, ==, sizeof(payload));
    g_free(sec.payload);
    g_assert_true(mig_section_read(&r, &sec, 1, "dev", &err));
    g_assert_cmpint(sec.kind, ==, MIG_SEC_END);
    g_free(sec.payload);
    g_assert_false(mig_section_read(&r, &sec, 2, "end", &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "the stream ends at section 2 "
                    "(after 'end'), before its end marker");
    error_free(err);
    err = NULL;
    close(p[0]);

    /* A flipped payload bit fails the checksum. */
    g_assert_cmpint(pipe(p), ==, 0);
    mig_stream_init(&w, p[1], -1);
    g_assert_true(mig_section_write(&w, MIG_SEC_STATE, "dev", 0, 1, payload,
                                    sizeof(payload)));
    g_assert_true(mig_stream_flush(&w));
    close(p[1]);
    data = g_malloc(200);
    len = read(p[0], data, 200);
    close(p[0]);
    /* Header: kind, name length, "dev", instance, version, length. */
    g_assert_cmpint(len, ==, 17 + sizeof(payload) + 4);
    data[19] ^= 4;
    g_assert_cmpint(pipe(p), ==, 0);
    g_assert_cmpint(write(p[1], data, len), ==, (gssize)len);
    close(p[1]);
    mig_stream_init(&r, p[0], -1);
    g_assert_false(mig_section_read(&r, &sec, 0, "header", &err));
    g_assert_nonnull(strstr(error_get_pretty(err), "section 0 ('dev' "
                            "instance 0) is corrupt: checksum"));
    error_free(err);
    err = NULL;
    close(p[0]);
    g_free(data);

    /* Foreign and future headers. */
    g_assert_cmpint(pipe(p), ==, 0);
    g_assert_cmpint(write(p[1], "QEVM\0\0\0\3XMIG\2\0\0\0", 16), ==, 16);
    close(p[1]);
    mig_stream_init(&r, p[0], -1);
    g_assert_false(mig_stream_read_header(&r, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "this is a QEMU migration "
                    "stream (magic QEVM), not one of this emulator's");
    error_free(err);
    err = NULL;
    g_assert_false(mig_stream_read_header(&r, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "stream version 2 is newer "
                    "than this release's 1");
    error_free(err);
    close(p[0]);
}

static void check_class(const DeviceClass *dc, void *opaque)
{
    unsigned *n = opaque;
    char *why = NULL;

    if (!dc->vmsd) {
        return;
    }
    if (!vmstate_check_table(dc->vmsd, dc->instance_size, &why)) {
        g_error("%s: %s", dc->name, why);
    }
    g_assert_cmpuint(dc->vmsd->version, >=, dc->vmsd->minimum_version);
    (*n)++;
}

/* Every device's table and the vCPU's lie inside their structs. */
static void test_device_tables(void)
{
    unsigned n = 0;
    char *why = NULL;

    device_class_foreach(check_class, &n);
    /* The pc machine's devices, i440FX/PIIX3 and isa-debug-exit. */
    g_assert_cmpuint(n, >=, 13);
    g_assert_true(vmstate_check_table(x86_cpu_vmstate(), sizeof(X86CPU),
                                      &why));
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/vmstate/round-trip", test_round_trip);
    g_test_add_func("/vmstate/no-subsection", test_no_subsection);
    g_test_add_func("/vmstate/checks", test_checks);
    g_test_add_func("/vmstate/versions", test_versions);
    g_test_add_func("/vmstate/table-check", test_table_check);
    g_test_add_func("/vmstate/device-tables", test_device_tables);
    g_test_add_func("/stream/crc32c", test_crc32c);
    g_test_add_func("/stream/sections", test_sections);
    return g_test_run();
}
