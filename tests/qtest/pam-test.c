/*
 * qtest for the i440FX's legacy memory windows: the firmware ROM at the
 * top of 4 GiB and at 0xe0000 (isa-bios), the PAM registers 0x59-0x5f
 * switching 0xc0000-0xfffff between it (PCI) and RAM with their read and
 * write enables, SMRAM's D_OPEN at 0xa0000, and a reset that brings the
 * ROM back. The BIOS is a file of known bytes given with -bios.
 */
#include <string.h>
#include <unistd.h>

#include <glib.h>

#include "libqtest.h"

#define BIOS_SIZE       0x20000         /* 128 KiB: all of it at 0xe0000 */
#define PAM0            0x59
#define SMRAM           0x72
#define F_SEG           0xf0000
#define C_SEG           0xc0000
#define A_SEG           0xa0000

static char *bios_path;

/* Byte i of the test BIOS: a pattern no RAM holds by chance. */
static uint8_t bios_byte(uint64_t i)
{
    return (uint8_t)(i * 7 + 0x5a);
}

static void write_bios(void)
{
    g_autofree uint8_t *buf = g_malloc(BIOS_SIZE);
    GError *err = NULL;
    int fd = g_file_open_tmp("pam-test-XXXXXX.bin", &bios_path, &err);

    g_assert_no_error(err);
    for (unsigned i = 0; i < BIOS_SIZE; i++) {
        buf[i] = bios_byte(i);
    }
    g_assert_cmpint(write(fd, buf, BIOS_SIZE), ==, BIOS_SIZE);
    close(fd);
}

static QTestState *start(void)
{
    return qtest_initf("-machine pc -bios %s", bios_path);
}

/* Config mechanism #1, host bridge 00.0. */
static void host_write(QTestState *s, uint8_t reg, uint8_t v)
{
    qtest_outl(s, 0xcf8, 0x80000000u | (reg & 0xfc));
    qtest_outb(s, 0xcfc + (reg & 3), v);
}

static uint8_t host_read(QTestState *s, uint8_t reg)
{
    qtest_outl(s, 0xcf8, 0x80000000u | (reg & 0xfc));
    return qtest_inb(s, 0xcfc + (reg & 3));
}

/* The ROM byte that isa-bios shows at addr (0xe0000-0xfffff). */
static uint8_t rom_at(uint64_t addr)
{
    return bios_byte(addr - (0x100000 - BIOS_SIZE));
}

static void test_rom_mapped(void)
{
    QTestState *s = start();

    /* The same bytes at the top of 4 GiB and below 1 MiB. */
    g_assert_cmphex(qtest_readb(s, 0xfffffff0), ==, bios_byte(BIOS_SIZE - 16));
    g_assert_cmphex(qtest_readb(s, 0x100000000ULL - BIOS_SIZE), ==,
                    bios_byte(0));
    g_assert_cmphex(qtest_readb(s, 0xffff0), ==, rom_at(0xffff0));
    g_assert_cmphex(qtest_readb(s, 0xe0000), ==, rom_at(0xe0000));
    /* ROM: writes vanish, in both places. */
    qtest_writeb(s, 0xffff0, ~rom_at(0xffff0));
    qtest_writeb(s, 0xfffffff0, ~bios_byte(BIOS_SIZE - 16));
    g_assert_cmphex(qtest_readb(s, 0xffff0), ==, rom_at(0xffff0));
    g_assert_cmphex(qtest_readb(s, 0xfffffff0), ==,
                    bios_byte(BIOS_SIZE - 16));
    /* Reset values: PAM all PCI, SMRAM 0x02. */
    for (int i = 0; i < 7; i++) {
        g_assert_cmphex(host_read(s, PAM0 + i), ==, 0);
    }
    g_assert_cmphex(host_read(s, SMRAM), ==, 0x02);
    qtest_quit(s);
}

/* The F segment (PAM0's high nibble) through its four modes. */
static void test_pam_modes(void)
{
    QTestState *s = start();
    uint64_t a = F_SEG + 0x1234;

    /* 11: RAM, read and write. */
    host_write(s, PAM0, 0x30);
    g_assert_cmphex(host_read(s, PAM0), ==, 0x30);
    g_assert_cmphex(qtest_readb(s, a), ==, 0);
    qtest_writeb(s, a, 0xa5);
    g_assert_cmphex(qtest_readb(s, a), ==, 0xa5);
    /* 01: RAM read-only, writes go to PCI (nowhere). */
    host_write(s, PAM0, 0x10);
    g_assert_cmphex(qtest_readb(s, a), ==, 0xa5);
    qtest_writeb(s, a, 0x3c);
    g_assert_cmphex(qtest_readb(s, a), ==, 0xa5);
    /* 10: reads from PCI (the ROM), writes to RAM. */
    host_write(s, PAM0, 0x20);
    g_assert_cmphex(qtest_readb(s, a), ==, rom_at(a));
    g_assert_cmphex(qtest_readl(s, a), ==,
                    rom_at(a) | rom_at(a + 1) << 8 | rom_at(a + 2) << 16 |
                    (uint32_t)rom_at(a + 3) << 24);
    qtest_writeb(s, a, 0x77);
    g_assert_cmphex(qtest_readb(s, a), ==, rom_at(a));
    host_write(s, PAM0, 0x30);
    g_assert_cmphex(qtest_readb(s, a), ==, 0x77);
    /* 00: the ROM again; RAM keeps what was written. */
    host_write(s, PAM0, 0x00);
    g_assert_cmphex(qtest_readb(s, a), ==, rom_at(a));
    host_write(s, PAM0, 0x10);
    g_assert_cmphex(qtest_readb(s, a), ==, 0x77);
    /* The E segment is PAM5/PAM6: still the ROM. */
    g_assert_cmphex(qtest_readb(s, 0xe0000), ==, rom_at(0xe0000));
    qtest_quit(s);
}

/* Each 16 KiB segment from 0xc0000 follows its own nibble. */
static void test_pam_segments(void)
{
    QTestState *s = start();

    /* PCI has nothing at 0xc0000 on this machine: all ones. */
    g_assert_cmphex(qtest_readb(s, C_SEG), ==, 0xff);
    /* PAM1's low nibble: 0xc0000-0xc3fff; its high one 0xc4000-. */
    host_write(s, PAM0 + 1, 0x03);
    qtest_writeb(s, C_SEG, 0x11);
    qtest_writeb(s, C_SEG + 0x4000, 0x22);
    g_assert_cmphex(qtest_readb(s, C_SEG), ==, 0x11);
    g_assert_cmphex(qtest_readb(s, C_SEG + 0x3fff), ==, 0);
    g_assert_cmphex(qtest_readb(s, C_SEG + 0x4000), ==, 0xff);
    /* PAM6's high nibble: 0xec000-0xeffff, the ROM's bytes until RAM. */
    g_assert_cmphex(qtest_readb(s, 0xec000), ==, rom_at(0xec000));
    host_write(s, PAM0 + 6, 0x30);
    g_assert_cmphex(qtest_readb(s, 0xec000), ==, 0);
    g_assert_cmphex(qtest_readb(s, 0xebfff), ==, rom_at(0xebfff));
    qtest_quit(s);
}

/* D_OPEN shows RAM at 0xa0000; closed, the PCI (VGA) window is there. */
static void test_smram(void)
{
    QTestState *s = start();

    qtest_writeb(s, A_SEG, 0x5a);
    g_assert_cmphex(qtest_readb(s, A_SEG), ==, 0xff);
    host_write(s, SMRAM, 0x42);
    g_assert_cmphex(host_read(s, SMRAM), ==, 0x42);
    g_assert_cmphex(qtest_readb(s, A_SEG), ==, 0);
    qtest_writeb(s, A_SEG + 0x1ffff, 0x5a);
    g_assert_cmphex(qtest_readb(s, A_SEG + 0x1ffff), ==, 0x5a);
    host_write(s, SMRAM, 0x02);
    g_assert_cmphex(qtest_readb(s, A_SEG + 0x1ffff), ==, 0xff);
    /* Bits 2:0 (C_BASE_SEG) are read-only. */
    host_write(s, SMRAM, 0x05);
    g_assert_cmphex(host_read(s, SMRAM), ==, 0x02);
    qtest_quit(s);
}

/* system_reset clears PAM and SMRAM: the firmware's ROM is seen again. */
static void test_reset(void)
{
    QTestState *s = start();
    JsonNode *r;

    host_write(s, PAM0, 0x30);
    host_write(s, SMRAM, 0x42);
    qtest_writeb(s, 0xffff0, 0xee);
    g_assert_cmphex(qtest_readb(s, 0xffff0), ==, 0xee);
    r = qtest_qmp(s, "{\"execute\": \"system_reset\"}");
    g_assert_false(qtest_qmp_has_error(r));
    json_node_unref(r);
    qtest_qmp_eventwait(s, "RESET");
    g_assert_cmphex(host_read(s, PAM0), ==, 0);
    g_assert_cmphex(host_read(s, SMRAM), ==, 0x02);
    g_assert_cmphex(qtest_readb(s, 0xffff0), ==, rom_at(0xffff0));
    /* The shadow RAM kept its bytes. */
    host_write(s, PAM0, 0x10);
    g_assert_cmphex(qtest_readb(s, 0xffff0), ==, 0xee);
    qtest_quit(s);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    write_bios();
    qtest_add_func("/pam/rom-mapped", test_rom_mapped);
    qtest_add_func("/pam/modes", test_pam_modes);
    qtest_add_func("/pam/segments", test_pam_segments);
    qtest_add_func("/pam/smram", test_smram);
    qtest_add_func("/pam/reset", test_reset);
    ret = g_test_run();
    unlink(bios_path);
    g_free(bios_path);
    return ret;
}
