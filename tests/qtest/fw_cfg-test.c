/*
 * qtest for fw_cfg on the PC: every standard item through the data
 * port, the file directory, and DMA (read, skip, select, errors).
 */
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "hw/nvram/fw_cfg.h"
#include "libqfw.h"
#include "libqtest.h"

/* The DMA address register's low half (FW_CFG_IO_DMA: the high half). */
#define FW_CFG_DMA_LO       (FW_CFG_IO_DMA + 4)

/* Guest RAM used for DMA: the access structure and the buffer. */
#define DMA_ACCESS          0x10000
#define DMA_BUF             0x20000

static void fw_cfg_select(QTestState *s, uint16_t key)
{
    qtest_outw(s, FW_CFG_IO_BASE, key);
}

static void fw_cfg_read_data(QTestState *s, void *buf, size_t len)
{
    uint8_t *p = buf;

    for (size_t i = 0; i < len; i++) {
        p[i] = qtest_inb(s, FW_CFG_IO_DATA);
    }
}

static void fw_cfg_get(QTestState *s, uint16_t key, void *buf, size_t len)
{
    fw_cfg_select(s, key);
    fw_cfg_read_data(s, buf, len);
}

static uint16_t fw_cfg_get_u16(QTestState *s, uint16_t key)
{
    uint16_t v;

    fw_cfg_get(s, key, &v, sizeof(v));
    return GUINT16_FROM_LE(v);
}

static uint32_t fw_cfg_get_u32(QTestState *s, uint16_t key)
{
    uint32_t v;

    fw_cfg_get(s, key, &v, sizeof(v));
    return GUINT32_FROM_LE(v);
}

static uint64_t fw_cfg_get_u64(QTestState *s, uint16_t key)
{
    uint64_t v;

    fw_cfg_get(s, key, &v, sizeof(v));
    return GUINT64_FROM_LE(v);
}

/*
 * Find a file in the directory: returns its size and sets *select, or
 * returns -1 when the file is absent.
 */
static int64_t fw_cfg_get_file(QTestState *s, const char *name, void *buf,
                               size_t len)
{
    uint16_t select;
    int64_t size = qfw_cfg_find_file(s, name, &select);

    if (size >= 0) {
        fw_cfg_get(s, select, buf, MIN((size_t)size, len));
    }
    return size;
}

/* Run one DMA access structure at DMA_ACCESS; returns its control word. */
static uint32_t fw_cfg_dma(QTestState *s, uint32_t control, uint32_t length,
                           uint64_t address)
{
    struct {
        uint32_t control;
        uint32_t length;
        uint64_t address;
    } a = {
        GUINT32_TO_BE(control), GUINT32_TO_BE(length),
        GUINT64_TO_BE(address),
    };
    uint64_t at = DMA_ACCESS;

    qtest_memwrite(s, DMA_ACCESS, &a, sizeof(a));
    /* The address register is big-endian, like the guest's writes. */
    qtest_outl(s, FW_CFG_IO_DMA, GUINT32_TO_BE((uint32_t)(at >> 32)));
    qtest_outl(s, FW_CFG_DMA_LO, GUINT32_TO_BE((uint32_t)at));
    qtest_memread(s, DMA_ACCESS, &a.control, sizeof(a.control));
    return GUINT32_FROM_BE(a.control);
}

static void test_fw_cfg_signature(void)
{
    QTestState *s = qtest_init("-machine pc");
    char buf[5] = { 0 };

    /* After reset the signature is selected. */
    fw_cfg_read_data(s, buf, 4);
    g_assert_cmpstr(buf, ==, "QEMU");
    fw_cfg_get(s, FW_CFG_SIGNATURE, buf, 4);
    g_assert_cmpstr(buf, ==, "QEMU");
    qtest_quit(s);
}

static void test_fw_cfg_id(void)
{
    QTestState *s = qtest_init("-machine pc");

    /* Traditional interface and DMA. */
    g_assert_cmpuint(fw_cfg_get_u32(s, FW_CFG_ID), ==, 3);
    qtest_quit(s);
}

static void test_fw_cfg_uuid(void)
{
    static const uint8_t uuid[16] = {
        0x46, 0x00, 0xcb, 0x32, 0x38, 0xec, 0x4b, 0x2f,
        0x8a, 0xcb, 0x81, 0xc6, 0xea, 0x54, 0xf2, 0xd8,
    };
    static const uint8_t zero[16];
    QTestState *s;
    uint8_t buf[16];

    s = qtest_init("-machine pc -uuid 4600cb32-38ec-4b2f-8acb-81c6ea54f2d8");
    fw_cfg_get(s, FW_CFG_UUID, buf, 16);
    g_assert_true(memcmp(buf, uuid, 16) == 0);
    qtest_quit(s);

    s = qtest_init("-machine pc");
    fw_cfg_get(s, FW_CFG_UUID, buf, 16);
    g_assert_true(memcmp(buf, zero, 16) == 0);
    qtest_quit(s);
}

static void test_fw_cfg_ram_size(void)
{
    static const struct {
        const char *args;
        uint64_t size;
    } cases[] = {
        { "-machine pc", 128ull << 20 },
        { "-machine pc -m 256M", 256ull << 20 },
        { "-machine pc -m 5G", 5ull << 30 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        QTestState *s = qtest_init(cases[i].args);

        g_assert_cmpuint(fw_cfg_get_u64(s, FW_CFG_RAM_SIZE), ==,
                         cases[i].size);
        qtest_quit(s);
    }
}

static void test_fw_cfg_nographic(void)
{
    QTestState *s = qtest_init("-machine pc");

    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_NOGRAPHIC), ==, 0);
    qtest_quit(s);

    s = qtest_init("-machine pc -nographic -serial null");
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_NOGRAPHIC), ==, 1);
    qtest_quit(s);
}

static void test_fw_cfg_cpus(void)
{
    QTestState *s = qtest_init("-machine pc");

    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_NB_CPUS), ==, 1);
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_MAX_CPUS), ==, 1);
    qtest_quit(s);

    s = qtest_init("-machine pc -smp 2,maxcpus=4");
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_NB_CPUS), ==, 2);
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_MAX_CPUS), ==, 4);
    qtest_quit(s);

    /*
     * As QEMU, max_cpus is one more than the highest APIC ID: 3 cores
     * take 2 bits, so CPU 5 (socket 1, core 2) has APIC ID 6.
     */
    s = qtest_init("-machine pc -smp 1,maxcpus=6,sockets=2,cores=3");
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_NB_CPUS), ==, 1);
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_MAX_CPUS), ==, 7);
    qtest_quit(s);
}

static void test_fw_cfg_numa(void)
{
    QTestState *s = qtest_init("-machine pc -smp 2,maxcpus=4");
    uint64_t words[6];

    /* No nodes, then one word per CPU slot, then nothing. */
    memset(words, 0xaa, sizeof(words));
    fw_cfg_get(s, FW_CFG_NUMA, words, sizeof(words));
    for (int i = 0; i < 6; i++) {
        g_assert_cmpuint(words[i], ==, 0);
    }
    /* Exactly 1 + max_cpus words: after skipping them the item ends. */
    g_assert_cmpuint(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT |
                                   FW_CFG_DMA_CTL_SKIP |
                                   (FW_CFG_NUMA << 16), 40, 0), ==, 0);
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 0);
    qtest_quit(s);
}

static void test_fw_cfg_boot_menu(void)
{
    QTestState *s = qtest_init("-machine pc");

    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_BOOT_MENU), ==, 0);
    qtest_quit(s);

    s = qtest_init("-machine pc -boot menu=on");
    g_assert_cmpuint(fw_cfg_get_u16(s, FW_CFG_BOOT_MENU), ==, 1);
    qtest_quit(s);
}

static void test_fw_cfg_file_dir(void)
{
    QTestState *s = qtest_init("-machine pc");
    uint32_t count;
    char prev[57] = "";
    uint16_t select;

    fw_cfg_select(s, FW_CFG_FILE_DIR);
    fw_cfg_read_data(s, &count, sizeof(count));
    count = GUINT32_FROM_BE(count);
    g_assert_cmpuint(count, >=, 2);
    for (uint32_t i = 0; i < count; i++) {
        struct {
            uint32_t size;
            uint16_t select;
            uint16_t reserved;
            char name[57];
        } f = { 0 };

        fw_cfg_read_data(s, &f, 64);
        /* Sorted by name, selectors in that order from 0x20. */
        g_assert_cmpuint(GUINT16_FROM_BE(f.select), ==,
                         FW_CFG_FILE_FIRST + i);
        g_assert_cmpint(strcmp(prev, f.name), <, 0);
        memcpy(prev, f.name, sizeof(prev));
    }
    /* Past the end of the directory the data port reads zeros. */
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 0);

    /* No bootable device: QEMU's bootorder is present and empty. */
    g_assert_cmpint(qfw_cfg_find_file(s, "bootorder", &select), ==, 0);
    g_assert_cmpint(qfw_cfg_find_file(s, "etc/boot-fail-wait", &select), ==,
                    4);
    g_assert_cmpint(qfw_cfg_find_file(s, "etc/boot-menu-wait", &select), ==,
                    -1);
    qtest_quit(s);
}

static void test_fw_cfg_reboot_timeout(void)
{
    QTestState *s = qtest_init("-machine pc -boot reboot-timeout=1000");
    uint32_t rt = 0;

    g_assert_cmpint(fw_cfg_get_file(s, "etc/boot-fail-wait", &rt,
                                    sizeof(rt)), ==, 4);
    g_assert_cmpuint(GUINT32_FROM_LE(rt), ==, 1000);
    qtest_quit(s);

    /* Not given, or -1: "don't reboot". */
    s = qtest_init("-machine pc");
    g_assert_cmpint(fw_cfg_get_file(s, "etc/boot-fail-wait", &rt,
                                    sizeof(rt)), ==, 4);
    g_assert_cmpuint(GUINT32_FROM_LE(rt), ==, UINT32_MAX);
    qtest_quit(s);

    s = qtest_init("-machine pc -boot reboot-timeout=-1");
    g_assert_cmpint(fw_cfg_get_file(s, "etc/boot-fail-wait", &rt,
                                    sizeof(rt)), ==, 4);
    g_assert_cmpuint(GUINT32_FROM_LE(rt), ==, UINT32_MAX);
    qtest_quit(s);
}

/* A pvpanic device's port, for firmware: "etc/pvpanic-port", LE16. */
static void test_fw_cfg_pvpanic_port(void)
{
    QTestState *s = qtest_init("-machine pc -device pvpanic,ioport=0x540");
    uint16_t port = 0;

    g_assert_cmpint(fw_cfg_get_file(s, "etc/pvpanic-port", &port,
                                    sizeof(port)), ==, 2);
    g_assert_cmphex(GUINT16_FROM_LE(port), ==, 0x540);
    qtest_quit(s);

    s = qtest_init("-machine pc");
    g_assert_cmpint(fw_cfg_get_file(s, "etc/pvpanic-port", &port,
                                    sizeof(port)), ==, -1);
    qtest_quit(s);
}

static void test_fw_cfg_splash_time(void)
{
    QTestState *s = qtest_init("-machine pc -boot menu=on,splash-time=12");
    uint16_t st = 0;

    g_assert_cmpint(fw_cfg_get_file(s, "etc/boot-menu-wait", &st,
                                    sizeof(st)), ==, 2);
    g_assert_cmpuint(GUINT16_FROM_LE(st), ==, 12);
    qtest_quit(s);
}

/* A 1 MiB raw image for the disks that get a bootindex. */
static char *fw_cfg_disk_image(void)
{
    char *path = g_build_filename(g_get_tmp_dir(), "fw_cfg-XXXXXX", NULL);
    int fd = g_mkstemp(path);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(ftruncate(fd, 1 << 20), ==, 0);
    close(fd);
    return path;
}

/*
 * The bootorder file holds want and its NUL; an empty list has no bytes
 * at all.
 */
static void fw_cfg_assert_bootorder(QTestState *s, const char *want)
{
    char buf[4097] = "";
    int64_t size = fw_cfg_get_file(s, "bootorder", buf, sizeof(buf) - 1);
    size_t len = strlen(want);

    g_assert_cmpstr(buf, ==, want);
    g_assert_cmpint(size, ==, len ? len + 1 : 0);
}

/*
 * bootorder lists the devices with a bootindex by index, each as its
 * firmware path (QEMU 7.2's bytes), NUL-terminated; -boot strict=on
 * ends it with HALT. A reset rebuilds it (-boot once= resets too).
 */
static void test_fw_cfg_bootorder(void)
{
    static const struct {
        const char *args;
        const char *bootorder;
    } cases[] = {
        { "-device virtio-blk-pci,drive=d0,addr=4,bootindex=1 "
          "-netdev user,id=n0 "
          "-device virtio-net-pci,netdev=n0,addr=3,bootindex=0",
          "/pci@i0cf8/ethernet@3/ethernet-phy@0\n"
          "/pci@i0cf8/scsi@4/disk@0,0" },
        { "-device virtio-blk-pci,drive=d0,addr=4,bootindex=1 "
          "-boot strict=on,once=d",
          "/pci@i0cf8/scsi@4/disk@0,0\nHALT" },
        /* Slot and function in hex; a device without bootindex is out. */
        { "-device virtio-blk-pci,drive=d0,addr=0xa.3,multifunction=on,"
          "bootindex=5 -device virtio-blk-pci,drive=d1,addr=5",
          "/pci@i0cf8/scsi@a,3/disk@0,0" },
        /* Negative: not bootable, and strict adds nothing to nothing. */
        { "-device virtio-blk-pci,drive=d0,bootindex=-2 -boot strict=on",
          "" },
    };
    char *img0 = fw_cfg_disk_image(), *img1 = fw_cfg_disk_image();

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        QTestState *s = qtest_initf("-machine pc -nodefaults "
                                    "-drive if=none,id=d0,format=raw,file=%s "
                                    "-drive if=none,id=d1,format=raw,file=%s "
                                    "%s", img0, img1, cases[i].args);
        JsonNode *r;

        fw_cfg_assert_bootorder(s, cases[i].bootorder);
        /* Rebuilt at reset (for devices plugged meanwhile), the same. */
        r = qtest_qmp(s, "{\"execute\": \"system_reset\"}");
        g_assert_false(qtest_qmp_has_error(r));
        json_node_unref(r);
        qtest_qmp_eventwait(s, "RESET");
        fw_cfg_assert_bootorder(s, cases[i].bootorder);
        qtest_quit(s);
    }
    unlink(img0);
    unlink(img1);
    g_free(img0);
    g_free(img1);
}

static void test_fw_cfg_bootorder_duplicate(void)
{
    char *img = fw_cfg_disk_image();
    char *args = g_strdup_printf("-machine pc "
                                 "-drive if=none,id=d0,format=raw,file=%s "
                                 "-device virtio-blk-pci,drive=d0,bootindex=2 "
                                 "-netdev user,id=n0 "
                                 "-device virtio-net-pci,netdev=n0,"
                                 "bootindex=2", img);

    qtest_assert_start_error(args, "qemu-system-x86_64: -device "
                             "virtio-net-pci,netdev=n0,bootindex=2: The "
                             "bootindex 2 has already been used\n");
    g_free(args);
    unlink(img);
    g_free(img);
}

static void test_fw_cfg_past_end(void)
{
    QTestState *s = qtest_init("-machine pc");
    uint8_t buf[8];

    /* A 4-byte item reads as zeros once exhausted. */
    fw_cfg_get(s, FW_CFG_SIGNATURE, buf, 8);
    g_assert_true(memcmp(buf, "QEMU\0\0\0\0", 8) == 0);
    /* Unknown and out-of-range selectors read as zeros. */
    fw_cfg_get(s, 0x1f, buf, 4);
    g_assert_true(memcmp(buf, "\0\0\0\0", 4) == 0);
    fw_cfg_get(s, 0x3fff, buf, 4);
    g_assert_true(memcmp(buf, "\0\0\0\0", 4) == 0);
    /* Data port writes are ignored; selecting restarts at offset 0. */
    fw_cfg_select(s, FW_CFG_SIGNATURE);
    qtest_inb(s, FW_CFG_IO_DATA);
    qtest_outb(s, FW_CFG_IO_DATA, 0x55);
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 'E');
    fw_cfg_get(s, FW_CFG_SIGNATURE, buf, 1);
    g_assert_cmpuint(buf[0], ==, 'Q');
    qtest_quit(s);
}

static void test_fw_cfg_dma_signature(void)
{
    QTestState *s = qtest_init("-machine pc");
    char sig[9] = { 0 };

    for (int i = 0; i < 8; i++) {
        sig[i] = qtest_inb(s, FW_CFG_IO_DMA + i);
    }
    g_assert_cmpstr(sig, ==, "QEMU CFG");
    g_assert_cmphex(qtest_inl(s, FW_CFG_IO_DMA), ==,
                    GUINT32_FROM_BE(0x51454d55));
    g_assert_cmphex(qtest_inl(s, FW_CFG_DMA_LO), ==,
                    GUINT32_FROM_BE(0x20434647));
    qtest_quit(s);
}

static void test_fw_cfg_dma_read(void)
{
    QTestState *s = qtest_init("-machine pc -boot reboot-timeout=1000");
    uint8_t buf[16];
    uint16_t select;
    uint32_t rt;

    /* Select and read the signature; past its end DMA fills zeros. */
    qtest_memset(s, DMA_BUF, 0xaa, sizeof(buf));
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  (FW_CFG_SIGNATURE << 16), 8, DMA_BUF),
                    ==, 0);
    qtest_memread(s, DMA_BUF, buf, sizeof(buf));
    g_assert_true(memcmp(buf, "QEMU\0\0\0\0\xaa", 9) == 0);

    /* A file, by the selector found in the directory. */
    g_assert_cmpint(qfw_cfg_find_file(s, "etc/boot-fail-wait", &select), ==,
                    4);
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  ((uint32_t)select << 16), 4, DMA_BUF),
                    ==, 0);
    qtest_memread(s, DMA_BUF, &rt, sizeof(rt));
    g_assert_cmpuint(GUINT32_FROM_LE(rt), ==, 1000);

    /* A read without SELECT continues from the current offset. */
    fw_cfg_select(s, FW_CFG_SIGNATURE);
    qtest_inb(s, FW_CFG_IO_DATA);
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_READ, 2, DMA_BUF), ==, 0);
    qtest_memread(s, DMA_BUF, buf, 2);
    g_assert_true(memcmp(buf, "EM", 2) == 0);
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 'U');
    qtest_quit(s);
}

static void test_fw_cfg_dma_skip(void)
{
    QTestState *s = qtest_init("-machine pc");
    uint8_t buf[4];

    /* SELECT + SKIP moves the offset without touching memory. */
    qtest_memset(s, DMA_BUF, 0xaa, sizeof(buf));
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_SKIP |
                                  (FW_CFG_SIGNATURE << 16), 2, DMA_BUF),
                    ==, 0);
    qtest_memread(s, DMA_BUF, buf, sizeof(buf));
    g_assert_true(memcmp(buf, "\xaa\xaa\xaa\xaa", 4) == 0);
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 'M');

    /* SELECT alone only selects. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | (FW_CFG_ID << 16), 4,
                               DMA_BUF), ==, 0);
    g_assert_cmpuint(qtest_inb(s, FW_CFG_IO_DATA), ==, 3);
    qtest_quit(s);
}

static void test_fw_cfg_dma_errors(void)
{
    QTestState *s = qtest_init("-machine pc");
    uint32_t control;

    /* No item is writable. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT |
                                  FW_CFG_DMA_CTL_WRITE |
                                  (FW_CFG_SIGNATURE << 16), 4, DMA_BUF),
                    ==, FW_CFG_DMA_CTL_ERROR);
    /* A buffer beyond RAM (128 MiB here) is an error. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  (FW_CFG_SIGNATURE << 16), 4,
                               0xfffffff0000ull), ==, FW_CFG_DMA_CTL_ERROR);
    /* So is a buffer wrapping around the top of the address space. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  (FW_CFG_SIGNATURE << 16), 0x100,
                               UINT64_MAX - 0x10), ==, FW_CFG_DMA_CTL_ERROR);
    /* A huge length past the end of an item is clamped by memory. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  (FW_CFG_SIGNATURE << 16), 0xffffffff,
                               0x7ff0000), ==, FW_CFG_DMA_CTL_ERROR);
    /* No operation bits: nothing happens, control is cleared. */
    g_assert_cmphex(fw_cfg_dma(s, 0, 4, DMA_BUF), ==, 0);

    /* An access structure outside memory: nothing to report into. */
    qtest_outl(s, FW_CFG_IO_DMA, GUINT32_TO_BE(0xfff));
    qtest_outl(s, FW_CFG_DMA_LO, GUINT32_TO_BE(0));
    /* The device is still fine afterwards. */
    g_assert_cmphex(fw_cfg_dma(s, FW_CFG_DMA_CTL_SELECT | FW_CFG_DMA_CTL_READ |
                                  (FW_CFG_SIGNATURE << 16), 4, DMA_BUF),
                    ==, 0);
    qtest_memread(s, DMA_BUF, &control, 4);
    g_assert_true(memcmp(&control, "QEMU", 4) == 0);
    qtest_quit(s);
}

/* A whole fw_cfg file, g_malloc'ed; NULL when absent. */
/* What a firmware's linker/loader does with the files, at these places. */
typedef struct LoadedFile {
    const char *name;
    uint8_t *data;
    size_t len;
    uint64_t addr;
} LoadedFile;

static LoadedFile *loaded_find(LoadedFile *f, size_t n, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        if (!strncmp(f[i].name, name, 56)) {
            return &f[i];
        }
    }
    g_assert_not_reached();
}

static uint32_t le32_at(const uint8_t *p)
{
    return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t le64_at(const uint8_t *p)
{
    return le32_at(p) | (uint64_t)le32_at(p + 4) << 32;
}

static uint8_t sum8(const uint8_t *p, size_t len)
{
    uint8_t sum = 0;

    while (len--) {
        sum += *p++;
    }
    return sum;
}

static void run_table_loader(const uint8_t *cmds, size_t len,
                             LoadedFile *f, size_t n)
{
    g_assert_cmpuint(len % 128, ==, 0);
    g_assert_cmpuint(len, >, 0);
    for (const uint8_t *c = cmds; c < cmds + len; c += 128) {
        const char *a = (const char *)c + 4, *b = (const char *)c + 60;
        LoadedFile *dst = loaded_find(f, n, a), *src;
        uint32_t off;

        switch (le32_at(c)) {
        case 1:         /* ALLOCATE: addr chosen by the test, aligned */
            g_assert_cmpuint(dst->addr % le32_at(c + 60), ==, 0);
            g_assert_cmpuint(c[64], ==, strcmp(a, "etc/acpi/rsdp") ? 1 : 2);
            break;
        case 2: {       /* ADD_POINTER */
            uint64_t v = 0;

            src = loaded_find(f, n, b);
            off = le32_at(c + 116);
            g_assert_true(c[120] == 4 || c[120] == 8);
            g_assert_cmpuint(off + c[120], <=, dst->len);
            memcpy(&v, dst->data + off, c[120]);
            v = GUINT64_FROM_LE(v) + src->addr;
            v = GUINT64_TO_LE(v);
            memcpy(dst->data + off, &v, c[120]);
            break;
        }
        case 3:         /* ADD_CHECKSUM */
            off = le32_at(c + 60);
            g_assert_cmpuint(le32_at(c + 64) + le32_at(c + 68), <=,
                             dst->len);
            dst->data[off] -= sum8(dst->data + le32_at(c + 64),
                                   le32_at(c + 68));
            break;
        default:
            g_assert_not_reached();
        }
    }
}

/* The table at guest address addr in the tables file, checked. */
static const uint8_t *acpi_table_at(LoadedFile *t, uint64_t addr,
                                    const char *sig)
{
    const uint8_t *p;

    g_assert_cmpuint(addr, >=, t->addr);
    g_assert_cmpuint(addr - t->addr + 36, <=, t->len);
    p = t->data + (addr - t->addr);
    g_assert_cmpmem(p, 4, sig, 4);
    if (strcmp(sig, "FACS")) {
        g_assert_cmpuint(addr - t->addr + le32_at(p + 4), <=, t->len);
        g_assert_cmpuint(sum8(p, le32_at(p + 4)), ==, 0);
    }
    return p;
}

/*
 * Without -kernel the firmware gets the ACPI tables as QEMU gives them:
 * etc/acpi/tables and etc/acpi/rsdp, placed and linked by the commands of
 * etc/table-loader. Run them as SeaBIOS does and check the result.
 */
static void test_fw_cfg_acpi_loader(void)
{
    QTestState *s = qtest_init("-machine pc -smp 2");
    LoadedFile f[2] = {
        { .name = "etc/acpi/tables", .addr = 0x7fe0000 },
        { .name = "etc/acpi/rsdp", .addr = 0xf5a40 },
    };
    const uint8_t *rsdt, *xsdt, *fadt;
    size_t cmds_len;
    uint8_t *cmds = qfw_cfg_load_file(s, "etc/table-loader", &cmds_len);

    g_assert_nonnull(cmds);
    for (int i = 0; i < 2; i++) {
        f[i].data = qfw_cfg_load_file(s, f[i].name, &f[i].len);
        g_assert_nonnull(f[i].data);
    }
    g_assert_cmpuint(f[1].len, ==, 36);
    run_table_loader(cmds, cmds_len, f, 2);

    g_assert_cmpmem(f[1].data, 8, "RSD PTR ", 8);
    g_assert_cmpuint(sum8(f[1].data, 20), ==, 0);
    g_assert_cmpuint(sum8(f[1].data, 36), ==, 0);
    rsdt = acpi_table_at(&f[0], le32_at(f[1].data + 16), "RSDT");
    xsdt = acpi_table_at(&f[0], le64_at(f[1].data + 24), "XSDT");
    fadt = acpi_table_at(&f[0], le32_at(rsdt + 36), "FACP");
    g_assert_true(fadt == acpi_table_at(&f[0], le64_at(xsdt + 36), "FACP"));
    acpi_table_at(&f[0], le32_at(rsdt + 40), "APIC");
    acpi_table_at(&f[0], le64_at(xsdt + 44), "APIC");
    acpi_table_at(&f[0], le32_at(fadt + 36), "FACS");
    acpi_table_at(&f[0], le32_at(fadt + 40), "DSDT");
    g_assert_cmpuint(le64_at(fadt + 140), ==, le32_at(fadt + 40));
    g_free(cmds);
    g_free(f[0].data);
    g_free(f[1].data);
    qtest_quit(s);

    /* -machine acpi=off: no tables for the firmware either. */
    s = qtest_init("-machine pc,acpi=off");
    g_assert_null(qfw_cfg_load_file(s, "etc/table-loader", &cmds_len));
    g_assert_null(qfw_cfg_load_file(s, "etc/acpi/tables", &cmds_len));
    qtest_quit(s);
}

/* The firmware's etc/e820 is QEMU's: RAM as it is, no reservations. */
static void test_fw_cfg_e820_firmware(void)
{
    static const struct {
        const char *args;
        uint64_t map[2][3];
        size_t n;
    } cases[] = {
        { "-machine pc -m 256M", { { 0, 256 << 20, 1 } }, 1 },
        { "-machine pc -m 4G", { { 0, 3ULL << 30, 1 },
                                 { 1ULL << 32, 1ULL << 30, 1 } }, 2 },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        QTestState *s = qtest_init(cases[i].args);
        size_t len;
        uint8_t *e820 = qfw_cfg_load_file(s, "etc/e820", &len);

        g_assert_nonnull(e820);
        g_assert_cmpuint(len, ==, cases[i].n * 20);
        for (size_t j = 0; j < cases[i].n; j++) {
            g_assert_cmphex(le64_at(e820 + j * 20), ==, cases[i].map[j][0]);
            g_assert_cmphex(le64_at(e820 + j * 20 + 8), ==,
                            cases[i].map[j][1]);
            g_assert_cmpuint(le32_at(e820 + j * 20 + 16), ==,
                             cases[i].map[j][2]);
        }
        g_free(e820);
        qtest_quit(s);
    }
}

/* The string number n of the structure at p (1-based), or NULL. */
static const char *smbios_string(const uint8_t *p, unsigned n)
{
    const char *s = (const char *)p + p[1];

    if (!n) {
        return NULL;
    }
    while (--n) {
        s += strlen(s) + 1;
    }
    return s;
}

/* The structure after p: its formatted area, then its strings. */
static const uint8_t *smbios_next(const uint8_t *p)
{
    const uint8_t *s = p + p[1];

    while (s[0] || s[1]) {
        s++;
    }
    return s + 2;
}

/*
 * The firmware's SMBIOS files as QEMU 7.2's: a 2.8 entry point that
 * counts the structures, then types 1, 3, 4 per socket, 16, 17, 19 per
 * RAM range, 32 and 127 with QEMU's strings; -smbios type=1 and type=0.
 */
static void test_fw_cfg_smbios(void)
{
    QTestState *s = qtest_init("-machine pc -m 256M -smp 2,sockets=2 "
                               "-uuid 4600cb32-38ec-4b2f-8acb-81c6ea54f2d8");
    size_t alen, tlen;
    uint8_t *anchor = qfw_cfg_load_file(s, "etc/smbios/smbios-anchor", &alen);
    uint8_t *tables = qfw_cfg_load_file(s, "etc/smbios/smbios-tables", &tlen);
    const uint8_t *p, *end;
    unsigned count = 0, type4 = 0;
    size_t max = 0;
    char types[32] = "";

    g_assert_nonnull(anchor);
    g_assert_nonnull(tables);
    g_assert_cmpuint(alen, ==, 31);
    g_assert_cmpmem(anchor, 4, "_SM_", 4);
    g_assert_cmpmem(anchor + 16, 5, "_DMI_", 5);
    g_assert_cmpuint(anchor[6], ==, 2);
    g_assert_cmpuint(anchor[7], ==, 8);
    g_assert_cmpuint(anchor[22] | anchor[23] << 8, ==, tlen);
    for (p = tables, end = tables + tlen; p < end; p = smbios_next(p)) {
        size_t len = smbios_next(p) - p;

        count++;
        max = MAX(max, len);
        g_snprintf(types + strlen(types), sizeof(types) - strlen(types),
                   "%s%u", *types ? "," : "", p[0] == 4 ? 4 : p[0]);
        switch (p[0]) {
        case 1:
            g_assert_cmpstr(smbios_string(p, p[4]), ==, "QEMU");
            g_assert_cmpstr(smbios_string(p, p[5]), ==,
                            "Standard PC (i440FX + PIIX, 1996)");
            g_assert_cmpstr(smbios_string(p, p[6]), ==, "pc-i440fx-7.2");
            /* SMBIOS's UUID: the first three fields little-endian. */
            g_assert_cmphex(p[8], ==, 0x32);
            g_assert_cmphex(p[11], ==, 0x46);
            g_assert_cmphex(p[16], ==, 0x8a);
            break;
        case 4:
            g_assert_cmpstr(smbios_string(p, p[4]), ==,
                            type4 ? "CPU 1" : "CPU 0");
            g_assert_cmphex(p[2] | p[3] << 8, ==, 0x400 + type4);
            type4++;
            break;
        case 17:
            g_assert_cmpuint(p[12] | p[13] << 8, ==, 256);     /* MiB */
            g_assert_cmpstr(smbios_string(p, p[16]), ==, "DIMM 0");
            break;
        case 19:
            g_assert_cmphex(le32_at(p + 8), ==, 256 * 1024 - 1);  /* KiB */
            break;
        }
    }
    g_assert_true(p == end);
    g_assert_cmpstr(types, ==, "1,3,4,4,16,17,19,32,127");
    g_assert_cmpuint(anchor[28] | anchor[29] << 8, ==, count);
    g_assert_cmpuint(anchor[8] | anchor[9] << 8, ==, max);
    g_free(anchor);
    g_free(tables);
    qtest_quit(s);

    s = qtest_init("-machine pc -smbios type=1,manufacturer=ACME,serial=42 "
                   "-smbios type=0,vendor=V,version=1.2,release=3.4");
    tables = qfw_cfg_load_file(s, "etc/smbios/smbios-tables", &tlen);
    g_assert_cmpuint(tables[0], ==, 0);
    g_assert_cmpstr(smbios_string(tables, tables[4]), ==, "V");
    g_assert_cmpstr(smbios_string(tables, tables[5]), ==, "1.2");
    g_assert_cmpuint(tables[20], ==, 3);
    g_assert_cmpuint(tables[21], ==, 4);
    p = smbios_next(tables);
    g_assert_cmpuint(p[0], ==, 1);
    g_assert_cmpstr(smbios_string(p, p[4]), ==, "ACME");
    g_assert_cmpstr(smbios_string(p, p[7]), ==, "42");
    g_free(tables);
    qtest_quit(s);
}

static const QTestStartError smbios_errors[] = {
    { "-smbios type=1,foo=bar",
      "qemu-system-x86_64: -smbios type=1,foo=bar: Invalid parameter "
      "'foo'\n" },
    { "-smbios type=9", "qemu-system-x86_64: -smbios type=9: Don't know "
      "how to build fields for SMBIOS type 9\n" },
    { "-smbios foo=1", "qemu-system-x86_64: -smbios foo=1: Must specify "
      "type= or file=\n" },
    { "-smbios type=0,release=x", "qemu-system-x86_64: -smbios "
      "type=0,release=x: Invalid release\n" },
    { "-smbios type=1,uuid=zz", "qemu-system-x86_64: -smbios "
      "type=1,uuid=zz: Invalid UUID\n" },
    { "-smbios type=0,uefi=maybe", "qemu-system-x86_64: -smbios "
      "type=0,uefi=maybe: Parameter 'uefi' expects 'on' or 'off'\n" },
};

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    qtest_add_func("fw_cfg/signature", test_fw_cfg_signature);
    qtest_add_func("fw_cfg/id", test_fw_cfg_id);
    qtest_add_func("fw_cfg/uuid", test_fw_cfg_uuid);
    qtest_add_func("fw_cfg/ram_size", test_fw_cfg_ram_size);
    qtest_add_func("fw_cfg/nographic", test_fw_cfg_nographic);
    qtest_add_func("fw_cfg/cpus", test_fw_cfg_cpus);
    qtest_add_func("fw_cfg/numa", test_fw_cfg_numa);
    qtest_add_func("fw_cfg/boot_menu", test_fw_cfg_boot_menu);
    qtest_add_func("fw_cfg/file_dir", test_fw_cfg_file_dir);
    qtest_add_func("fw_cfg/reboot_timeout", test_fw_cfg_reboot_timeout);
    qtest_add_func("fw_cfg/splash_time", test_fw_cfg_splash_time);
    qtest_add_func("fw_cfg/bootorder", test_fw_cfg_bootorder);
    qtest_add_func("fw_cfg/bootorder/duplicate",
                   test_fw_cfg_bootorder_duplicate);
    qtest_add_func("fw_cfg/past_end", test_fw_cfg_past_end);
    qtest_add_func("fw_cfg/dma/signature", test_fw_cfg_dma_signature);
    qtest_add_func("fw_cfg/dma/read", test_fw_cfg_dma_read);
    qtest_add_func("fw_cfg/dma/skip", test_fw_cfg_dma_skip);
    qtest_add_func("fw_cfg/dma/errors", test_fw_cfg_dma_errors);
    qtest_add_func("fw_cfg/pvpanic-port", test_fw_cfg_pvpanic_port);
    qtest_add_func("fw_cfg/acpi-table-loader", test_fw_cfg_acpi_loader);
    qtest_add_func("fw_cfg/e820-firmware", test_fw_cfg_e820_firmware);
    qtest_add_func("fw_cfg/smbios", test_fw_cfg_smbios);
    qtest_add_start_errors("fw_cfg/smbios-error", smbios_errors,
                           G_N_ELEMENTS(smbios_errors));

    return g_test_run();
}
