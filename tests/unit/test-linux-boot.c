/*
 * The bzImage loader (hw/i386/linux-boot.c): boot_params, the 64-bit entry
 * state, page tables, initrd placement, and every rejected image.
 */
#include "loader-test.h"

/* --- bzImage --- */

#define BZ_SETUP_SECTS  4
#define BZ_SETUP_SIZE   ((BZ_SETUP_SECTS + 1) * 512)
#define BZ_PROT_SIZE    0x3000
#define BZ_PREF         0x1000000
#define BZ_INIT_SIZE    0x400000

typedef struct BzSpec {
    uint16_t version;
    uint8_t setup_sects;
    uint8_t jump;               /* header length - 2 */
    uint16_t boot_flag;
    uint8_t loadflags;
    uint16_t xloadflags;
    uint32_t syssize;
    uint32_t initrd_addr_max;
    uint32_t cmdline_size;
    uint64_t pref_address;
    uint32_t init_size;
    size_t file_size;
} BzSpec;

static BzSpec bz_spec_default(void)
{
    BzSpec s = {
        .version = 0x020f,
        .setup_sects = BZ_SETUP_SECTS,
        .jump = 0x66,           /* ends at 0x268 */
        .boot_flag = 0xaa55,
        .loadflags = 0x01,
        .xloadflags = 0x01,
        .syssize = BZ_PROT_SIZE / 16,
        .initrd_addr_max = 0x7fffffff,
        .cmdline_size = 2047,
        .pref_address = BZ_PREF,
        .init_size = BZ_INIT_SIZE,
        .file_size = BZ_SETUP_SIZE + BZ_PROT_SIZE,
    };
    return s;
}

static char *write_bzimage(const char *name, const BzSpec *s)
{
    size_t full = BZ_SETUP_SIZE + BZ_PROT_SIZE;
    uint8_t *f = g_malloc0(MAX(full, s->file_size));
    char *path;
    size_t i;

    for (i = BZ_SETUP_SIZE; i < full; i++) {
        f[i] = 0x30 + i % 61;
    }
    f[0x1f1] = s->setup_sects;
    x86_boot_stl(f + 0x1f4, s->syssize);
    f[0x1fe] = s->boot_flag;
    f[0x1ff] = s->boot_flag >> 8;
    f[0x200] = 0xeb;
    f[0x201] = s->jump;
    memcpy(f + 0x202, "HdrS", 4);
    f[0x206] = s->version;
    f[0x207] = s->version >> 8;
    f[0x211] = s->loadflags;
    x86_boot_stl(f + 0x214, 0x100000);
    x86_boot_stl(f + 0x22c, s->initrd_addr_max);
    x86_boot_stl(f + 0x230, 0x200000);
    f[0x234] = 1;
    f[0x236] = s->xloadflags;
    x86_boot_stl(f + 0x238, s->cmdline_size);
    x86_boot_stq(f + 0x258, s->pref_address);
    x86_boot_stl(f + 0x260, s->init_size);
    f[0x2a0] = 0x99;            /* setup code, beyond the header */
    path = write_file(name, f, s->file_size);
    g_free(f);
    return path;
}

static void check_identity_map(Boot *b, uint64_t va)
{
    uint64_t pml4e = ram_q(b, b->st.cr3 + ((va >> 39) & 511) * 8);
    uint64_t pdpte, pde;

    g_assert_cmphex(pml4e & 3, ==, 3);
    pdpte = ram_q(b, (pml4e & ~0xfffULL) + ((va >> 30) & 511) * 8);
    g_assert_cmphex(pdpte & 0x83, ==, 3);
    pde = ram_q(b, (pdpte & ~0xfffULL) + ((va >> 21) & 511) * 8);
    g_assert_cmphex(pde & 0x83, ==, 0x83);
    g_assert_cmphex((pde & ~0x1fffffULL) | (va & 0x1fffff), ==, va);
}

static void test_linux_boot_params(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = write_bzimage("bz", &s);
    uint64_t bp = LINUX_BOOT_PARAMS_ADDR;
    g_autofree uint8_t *file = NULL;
    gsize flen;
    unsigned i;
    Boot b;

    g_assert_true(g_file_get_contents(path, (gchar **)&file, &flen, NULL));
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.kernel_cmdline = "console=ttyS0 root=/dev/vda";
    b.cfg.acpi_rsdp_addr = 0xf5a30;
    boot_ok(&b);

    /* Zeroed, then the file's setup header, then the loader's fields. */
    g_assert_true(ram_all(&b, bp, 0x70, 0));
    g_assert_cmphex(ram_q(&b, bp + 0x70), ==, 0xf5a30);
    g_assert_cmphex(b.ram.ram[bp + 0x1ef], ==, 0);   /* sentinel */
    g_assert_cmpmem(b.ram.ram + bp + 0x1f1, 0x210 - 0x1f1,
                    file + 0x1f1, 0x210 - 0x1f1);
    g_assert_cmphex(b.ram.ram[bp + 0x210], ==, 0xb0);
    g_assert_cmphex(b.ram.ram[bp + 0x211], ==, 0x81);
    g_assert_cmphex(ram_l(&b, bp + 0x214), ==, BZ_PREF);
    g_assert_cmphex(ram_l(&b, bp + 0x218), ==, 0);
    g_assert_cmphex(ram_l(&b, bp + 0x21c), ==, 0);
    g_assert_cmphex(x86_boot_lduw(b.ram.ram + bp + 0x224), ==, 0xfe00);
    g_assert_cmphex(ram_l(&b, bp + 0x228), ==, 0x20000);
    g_assert_cmpmem(b.ram.ram + bp + 0x22c, 0x268 - 0x22c,
                    file + 0x22c, 0x268 - 0x22c);
    /* The setup code after the header is not part of boot_params. */
    g_assert_cmphex(b.ram.ram[bp + 0x2a0], ==, 0);
    g_assert_cmpstr(ram_str(&b, 0x20000), ==, "console=ttyS0 root=/dev/vda");

    g_assert_cmpuint(b.ram.ram[bp + 0x1e8], ==, 4);
    for (i = 0; i < 4; i++) {
        uint64_t e = bp + 0x2d0 + i * 20;

        g_assert_cmphex(ram_q(&b, e), ==, b.e820[i].addr);
        g_assert_cmphex(ram_q(&b, e + 8), ==, b.e820[i].len);
        g_assert_cmpuint(ram_l(&b, e + 16), ==, b.e820[i].type);
    }
    g_assert_true(ram_all(&b, bp + 0x2d0 + 4 * 20, 20, 0));
    g_assert_cmpuint(b.st.warnings->len, ==, 0);
    boot_free(&b);
}

static void test_linux_entry_state(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = write_bzimage("bz-entry", &s);
    g_autofree uint8_t *file = NULL;
    const X86BootRange *r;
    gsize flen;
    Boot b;

    g_assert_true(g_file_get_contents(path, (gchar **)&file, &flen, NULL));
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);

    g_assert_cmpuint(b.st.mode, ==, X86_BOOT_MODE_LONG64);
    g_assert_cmphex(b.st.rip, ==, BZ_PREF + 0x200);
    g_assert_cmphex(b.st.rsi, ==, LINUX_BOOT_PARAMS_ADDR);
    g_assert_cmphex(b.st.rsp, ==, 0x8ff0);
    g_assert_cmphex(b.st.rflags, ==, 0x2);
    g_assert_cmphex(b.st.rbx | b.st.rbp | b.st.rdi, ==, 0);
    g_assert_cmphex(b.st.cr0, ==, 0x80000011);
    g_assert_cmphex(b.st.cr3, ==, 0x9000);
    g_assert_cmphex(b.st.cr4, ==, 0x20);
    g_assert_cmphex(b.st.efer, ==, 0x500);
    g_assert_cmphex(b.st.cs.selector, ==, 0x10);
    g_assert_cmpuint(b.st.cs.l, ==, 1);
    g_assert_cmpuint(b.st.cs.db, ==, 0);
    g_assert_cmphex(b.st.ds.selector, ==, 0x18);
    g_assert_cmphex(b.st.es.selector, ==, 0x18);
    g_assert_cmphex(b.st.ss.selector, ==, 0x18);
    g_assert_cmphex(b.st.ss.type, ==, 0x3);
    g_assert_cmphex(b.st.gdt_base, ==, 0x500);
    g_assert_cmphex(b.st.gdt_limit, ==, 31);
    g_assert_cmphex(ram_q(&b, 0x510), ==, 0x00af9b000000ffffULL);
    g_assert_cmphex(ram_q(&b, 0x518), ==, 0x00cf93000000ffffULL);
    g_assert_cmphex(b.st.tr.type, ==, 0xb);

    /* The protected-mode kernel at pref_address; init_size reserved. */
    g_assert_cmpmem(b.ram.ram + BZ_PREF, BZ_PROT_SIZE,
                    file + BZ_SETUP_SIZE, BZ_PROT_SIZE);
    g_assert_cmphex(b.ram.ram[BZ_PREF + BZ_PROT_SIZE], ==, 0xee);
    r = find_range(&b, "kernel", 0);
    g_assert_cmphex(r->addr, ==, BZ_PREF);
    g_assert_cmphex(r->len, ==, BZ_INIT_SIZE);
    g_assert_nonnull(find_range(&b, "boot page tables", 0));
    g_assert_nonnull(find_range(&b, "boot_params", 0));
    g_assert_null(find_range(&b, "initrd", 0));
    /* The empty command line is an empty string. */
    g_assert_cmpstr(ram_str(&b, 0x20000), ==, "");
    boot_free(&b);
}

static void test_linux_page_tables(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = write_bzimage("bz-pt", &s);
    Boot b;
    unsigned i;

    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_cmphex(ram_q(&b, 0x9000), ==, 0xa003);
    g_assert_true(ram_all(&b, 0x9008, 0xff8, 0));
    for (i = 0; i < 4; i++) {
        g_assert_cmphex(ram_q(&b, 0xa000 + i * 8), ==,
                        (0xb000 + i * 0x1000) | 3);
    }
    g_assert_true(ram_all(&b, 0xa020, 0xfe0, 0));
    g_assert_cmphex(ram_q(&b, 0xb000), ==, 0x83);
    check_identity_map(&b, 0);
    check_identity_map(&b, LINUX_BOOT_PARAMS_ADDR);
    check_identity_map(&b, BZ_PREF + 0x200);
    check_identity_map(&b, 0x3ffff000);
    check_identity_map(&b, 0x40000000);
    check_identity_map(&b, 0xfffff000);
    g_assert_cmphex(ram_q(&b, 0xb000 + 2047 * 8), ==,
                    0xffe00000ULL | 0x83);
    boot_free(&b);
}

static void test_linux_initrd(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = write_bzimage("bz-initrd", &s);
    g_autofree char *rd = write_pattern_file("initrd", 10000, 5);
    g_autofree uint8_t *data = NULL;
    uint64_t want = ((64 * MIB - 1) - 10000) & ~0xfffULL;
    gsize len;
    Boot b;

    g_assert_true(g_file_get_contents(rd, (gchar **)&data, &len, NULL));
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = rd;
    boot_ok(&b);
    g_assert_cmphex(ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x218), ==, want);
    g_assert_cmpuint(ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x21c), ==, 10000);
    g_assert_cmpmem(b.ram.ram + want, 10000, data, len);
    g_assert_cmphex(find_range(&b, "initrd", 0)->addr, ==, want);
    boot_free(&b);

    /* initrd_addr_max below the top of RAM wins. */
    s.initrd_addr_max = 0x1ffffff;
    g_free(path);
    path = write_bzimage("bz-initrd-max", &s);
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = rd;
    boot_ok(&b);
    g_assert_cmphex(ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x218), ==,
                    (0x1ffffff - 10000) & ~0xfff);
    boot_free(&b);

    /* XLF_CAN_BE_LOADED_ABOVE_4G: only RAM limits it (as in QEMU). */
    s.xloadflags = 0x03;
    g_free(path);
    path = write_bzimage("bz-initrd-4g", &s);
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = rd;
    boot_ok(&b);
    g_assert_cmphex(ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x218), ==, want);
    boot_free(&b);
}

static void test_linux_load_address(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = NULL;
    Boot b;

    /* No preference: QEMU's 1 MiB. Protocol 2.12: no RSDP field. */
    s.pref_address = 0;
    s.version = 0x020c;
    path = write_bzimage("bz-low", &s);
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.acpi_rsdp_addr = 0xf5a30;
    boot_ok(&b);
    g_assert_cmphex(b.st.rip, ==, 0x100200);
    g_assert_cmphex(ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x214), ==, 0x100000);
    g_assert_cmphex(ram_q(&b, LINUX_BOOT_PARAMS_ADDR + 0x70), ==, 0);
    g_assert_cmphex(b.ram.ram[0x100000], ==, 0x30 + BZ_SETUP_SIZE % 61);
    boot_free(&b);

    /* setup_sects 0 means 4. */
    s = bz_spec_default();
    s.setup_sects = 0;
    g_free(path);
    path = write_bzimage("bz-sects0", &s);
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_cmphex(b.ram.ram[BZ_PREF], ==, 0x30 + BZ_SETUP_SIZE % 61);
    boot_free(&b);
}

static void test_linux_fw_cfg(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = write_bzimage("bz-fw", &s);
    g_autofree char *rd = write_pattern_file("fw-initrd", 4096, 7);
    g_autofree uint8_t *file = NULL;
    const X86BootFwCfgItem *it;
    gsize flen;
    Boot b;

    g_assert_true(g_file_get_contents(path, (gchar **)&file, &flen, NULL));
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = rd;
    b.cfg.kernel_cmdline = "quiet";
    boot_ok(&b);
    g_assert_cmpuint(b.fw.count, ==, 12);
    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_ADDR), ==, BZ_PREF);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_KERNEL_SIZE), ==, BZ_PROT_SIZE);
    it = x86_boot_fw_cfg_find(&b.fw, FW_CFG_KERNEL_DATA);
    g_assert_cmpmem(it->data, it->len, file + BZ_SETUP_SIZE, BZ_PROT_SIZE);
    g_assert_cmphex(fw_i32(&b, FW_CFG_INITRD_ADDR), ==,
                    ram_l(&b, LINUX_BOOT_PARAMS_ADDR + 0x218));
    g_assert_cmpuint(fw_i32(&b, FW_CFG_INITRD_SIZE), ==, 4096);
    it = x86_boot_fw_cfg_find(&b.fw, FW_CFG_INITRD_DATA);
    g_assert_cmpuint(it->len, ==, 4096);
    g_assert_cmphex(fw_i32(&b, FW_CFG_CMDLINE_ADDR), ==, 0x20000);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_CMDLINE_SIZE), ==, 6);
    it = x86_boot_fw_cfg_find(&b.fw, FW_CFG_CMDLINE_DATA);
    g_assert_cmpmem(it->data, it->len, "quiet", 6);
    g_assert_cmphex(fw_i32(&b, FW_CFG_SETUP_ADDR), ==, 0x10000);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_SETUP_SIZE), ==, BZ_SETUP_SIZE);
    it = x86_boot_fw_cfg_find(&b.fw, FW_CFG_SETUP_DATA);
    g_assert_cmpuint(it->len, ==, BZ_SETUP_SIZE);
    /* The setup code carries the patched header, the rest as in the file. */
    g_assert_cmphex(((uint8_t *)it->data)[0x210], ==, 0xb0);
    g_assert_cmphex(x86_boot_ldl((uint8_t *)it->data + 0x228), ==, 0x20000);
    g_assert_cmpmem((uint8_t *)it->data + 0x268, BZ_SETUP_SIZE - 0x268,
                    file + 0x268, BZ_SETUP_SIZE - 0x268);
    boot_free(&b);

    /* Without an fw_cfg request, no copies are made. */
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    g_assert_true(x86_boot_load_kernel(&b.cfg, &b.mem, &b.st, NULL, &b.err));
    boot_free(&b);
}

static void test_linux_cmdline_warning(void)
{
    BzSpec s = bz_spec_default();
    g_autofree char *path = NULL;
    g_autofree char *w = NULL;
    Boot b;

    s.cmdline_size = 4;
    path = write_bzimage("bz-cmd", &s);
    boot_init(&b, 64 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.kernel_cmdline = "12345";
    boot_ok(&b);
    g_assert_cmpstr(ram_str(&b, 0x20000), ==, "12345");
    w = g_strdup_printf("%s: the kernel reads at most 4 bytes of the 5-byte "
                        "command line", path);
    g_assert_cmpuint(b.st.warnings->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(b.st.warnings, 0), ==, w);
    boot_free(&b);
}

static void bz_error(BzSpec *s, uint64_t ram, const char *initrd,
                     const char *cmdline, const char *msg)
{
    g_autofree char *path = write_bzimage("bz-bad", s);
    Boot b;

    boot_init(&b, ram);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = initrd;
    b.cfg.kernel_cmdline = cmdline;
    boot_fails(&b, msg);
    boot_free(&b);
}

static void test_linux_file_errors(void)
{
    g_autofree char *missing = g_build_filename(tmp_dir, "nothere", NULL);
    g_autofree char *empty = write_file("empty", "", 0);
    g_autofree char *zeros = NULL;
    uint8_t *z = g_malloc0(9000);
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = missing;
    boot_fails(&b, "could not open kernel file 'PATH': No such file or "
               "directory");
    boot_free(&b);

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = tmp_dir;
    boot_fails(&b, "could not open kernel file 'PATH': Is a directory");
    boot_free(&b);

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = empty;
    boot_fails(&b, "could not load kernel 'PATH': file is empty");
    boot_free(&b);

    zeros = write_file("zeros", z, 9000);
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = zeros;
    boot_fails(&b, "PATH: not a bzImage (no HdrS signature), not a "
               "multiboot kernel (no multiboot header in the first 8 KiB) "
               "and not a PVH ELF (no Xen PHYS32_ENTRY note)");
    boot_free(&b);
    g_free(z);

    /* The loader called directly on a non-bzImage. */
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = "raw";
    g_assert_false(linux_boot_load(&b.cfg, (const uint8_t *)"abc", 3,
                                   &b.mem, &b.st, NULL, &b.err));
    g_assert_cmpstr(error_get_pretty(b.err), ==,
                    "raw: not a bzImage (no HdrS signature)");
    boot_free(&b);
}

static void test_linux_header_errors(void)
{
    BzSpec s;

    s = bz_spec_default();
    s.boot_flag = 0x55aa;
    bz_error(&s, 64 * MIB, NULL, NULL,
             "PATH: not a bzImage (no 0xAA55 boot signature at 0x1fe)");
    s = bz_spec_default();
    s.version = 0x020b;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: Linux boot protocol 2.11 is "
             "too old; the 64-bit entry needs 2.12 or later");
    s = bz_spec_default();
    s.version = 0x0105;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: Linux boot protocol 1.05 is "
             "too old; the 64-bit entry needs 2.12 or later");
    s = bz_spec_default();
    s.jump = 0x40;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: invalid kernel header (it "
             "ends at 0x242; protocol 2.12 needs 0x268)");
    s = bz_spec_default();
    s.loadflags = 0;
    bz_error(&s, 64 * MIB, NULL, NULL,
             "PATH: not a bzImage (LOADED_HIGH not set in loadflags)");
    s = bz_spec_default();
    s.xloadflags = 0x02;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: kernel has no 64-bit entry "
             "point (XLF_KERNEL_64 not set in xloadflags)");
}

static void test_linux_truncated(void)
{
    BzSpec s;

    /* In the setup header. */
    s = bz_spec_default();
    s.file_size = 0x240;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated (setup "
             "header ends at byte 616, file has 576)");
    /* In the setup code. */
    s = bz_spec_default();
    s.file_size = 0x800;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated (setup "
             "code ends at byte 2560, file has 2048)");
    /* setup_sects at its maximum, far beyond the file. */
    s = bz_spec_default();
    s.setup_sects = 255;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated (setup "
             "code ends at byte 131072, file has 14848)");
    /* In the protected-mode kernel (syssize). */
    s = bz_spec_default();
    s.file_size = BZ_SETUP_SIZE + BZ_PROT_SIZE - 16;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated "
             "(protected-mode kernel ends at byte 14848, file has 14832)");
    s = bz_spec_default();
    s.syssize = 0xffffffff;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated "
             "(protected-mode kernel ends at byte 68719479280, file has "
             "14848)");
    /* Nothing after the setup code. */
    s = bz_spec_default();
    s.syssize = 0;
    s.file_size = BZ_SETUP_SIZE;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: file is truncated "
             "(protected-mode kernel ends at byte 2561, file has 2560)");
}

static void test_linux_placement_errors(void)
{
    g_autofree char *big = g_build_filename(tmp_dir, "big-initrd", NULL);
    g_autofree char *mid = write_pattern_file("mid-initrd", 2 * MIB, 1);
    g_autofree char *small = write_pattern_file("small-initrd", 8192, 1);
    g_autofree char *nofile = g_build_filename(tmp_dir, "no-initrd", NULL);
    g_autofree char *msg = NULL;
    g_autofree char *longcmd = g_strnfill(0x10000, 'x');
    BzSpec s;
    FILE *f;

    /* A sparse 64 MiB file: never read, rejected on its size. */
    f = fopen(big, "w");
    g_assert_nonnull(f);
    g_assert_cmpint(ftruncate(fileno(f), 64 * MIB), ==, 0);
    fclose(f);

    s = bz_spec_default();
    bz_error(&s, 64 * MIB, big, NULL, "initrd is too large, cannot "
             "support.(max: 67108863, need 67108864)");
    s = bz_spec_default();
    s.initrd_addr_max = 0x1fff;
    bz_error(&s, 64 * MIB, small, NULL, "initrd is too large, cannot "
             "support.(max: 8191, need 8192)");
    /* Fits under the limit but not above the kernel's init_size. */
    s = bz_spec_default();
    s.init_size = 0x2f00000;
    bz_error(&s, 64 * MIB, mid, NULL, "initrd at 0x3dff000-0x3ffefff "
             "overlaps kernel at 0x1000000-0x3efffff");
    s = bz_spec_default();
    msg = g_strdup_printf("error reading initrd %s: No such file or "
                          "directory", nofile);
    bz_error(&s, 64 * MIB, nofile, NULL, msg);
    /* The kernel's preferred place is beyond RAM. */
    s = bz_spec_default();
    bz_error(&s, 16 * MIB, NULL, NULL,
             "kernel at 0x1000000-0x13fffff is outside guest RAM");
    s = bz_spec_default();
    s.pref_address = 0xfff00000;
    bz_error(&s, 64 * MIB, NULL, NULL, "PATH: kernel at 0xfff00000 "
             "(0x400000 bytes) does not fit below 4 GiB");
    s = bz_spec_default();
    bz_error(&s, 64 * MIB, NULL, longcmd, "kernel command line is too long "
             "(65536 bytes, at most 65535)");
}

static void test_e820_helpers(void)
{
    X86BootE820Entry e[3] = {
        { 0x100000, 0x1f00000, E820_RAM },
        { 0, 0xa0000, E820_RAM },
        { 0x2000000, 0x1000000, E820_RAM },     /* unsorted, contiguous */
    };
    X86BootConfig cfg = { .e820 = e, .e820_entries = 3 };

    g_assert_cmphex(x86_boot_e820_high_ram_end(&cfg), ==, 0x3000000);
    g_assert_cmphex(x86_boot_e820_low_ram_size(&cfg), ==, 0xa0000);
    e[2].addr = 0x2001000;                      /* a hole stops it */
    g_assert_cmphex(x86_boot_e820_high_ram_end(&cfg), ==, 0x2000000);
    e[0].type = E820_RESERVED;
    g_assert_cmphex(x86_boot_e820_high_ram_end(&cfg), ==, 0x100000);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/loaders/e820", test_e820_helpers);
    g_test_add_func("/loaders/linux/boot-params", test_linux_boot_params);
    g_test_add_func("/loaders/linux/entry-state", test_linux_entry_state);
    g_test_add_func("/loaders/linux/page-tables", test_linux_page_tables);
    g_test_add_func("/loaders/linux/initrd", test_linux_initrd);
    g_test_add_func("/loaders/linux/load-address", test_linux_load_address);
    g_test_add_func("/loaders/linux/fw-cfg", test_linux_fw_cfg);
    g_test_add_func("/loaders/linux/cmdline-warning",
                    test_linux_cmdline_warning);
    g_test_add_func("/loaders/linux/file-errors", test_linux_file_errors);
    g_test_add_func("/loaders/linux/header-errors",
                    test_linux_header_errors);
    g_test_add_func("/loaders/linux/truncated", test_linux_truncated);
    g_test_add_func("/loaders/linux/placement-errors",
                    test_linux_placement_errors);
    return loader_test_run();
}
