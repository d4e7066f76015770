/*
 * The multiboot v1 loader (hw/i386/multiboot.c): ELF32 and a.out-kludge
 * images, the information structure, modules, and every rejected image.
 * Helpers: loader-test.c.
 */
#include "loader-test.h"

/* --- multiboot tests --- */

static void test_mb_find_header(void)
{
    uint8_t *img = g_malloc0(16384);

    g_assert_cmpint(multiboot_find_header(img, 16384), ==, -1);
    /* The last place a 12-byte header fits in the first 8 KiB. */
    put_mb_header(img + 8180, 0);
    g_assert_cmpint(multiboot_find_header(img, 16384), ==, 8180);
    memset(img, 0, 16384);
    put_mb_header(img + 8192, 0);
    g_assert_cmpint(multiboot_find_header(img, 16384), ==, -1);
    /* 32-bit aligned only. */
    memset(img, 0, 16384);
    put_mb_header(img + 0x102, 0);
    g_assert_cmpint(multiboot_find_header(img, 16384), ==, -1);
    /* Bad checksum, then a good header further on. */
    memset(img, 0, 16384);
    put_mb_header(img + 0x100, 0);
    img[0x108] ^= 1;
    put_mb_header(img + 0x200, 0x10000);
    g_assert_cmpint(multiboot_find_header(img, 16384), ==, 0x200);
    /* A file shorter than a header. */
    g_assert_cmpint(multiboot_find_header(img, 8), ==, -1);
    g_free(img);
}

/* The information EBX points to, wherever it is. */
static void check_mb_info_common(Boot *b, uint32_t ram_size)
{
    uint64_t mbi = b->st.rbx;
    uint64_t mmap = ram_l(b, mbi + 48);
    unsigned i;

    g_assert_cmpuint(b->st.mode, ==, X86_BOOT_MODE_PROTECTED32);
    g_assert_cmphex(b->st.rax, ==, 0x2BADB002);
    g_assert_cmphex(b->st.cr0 & (X86_CR0_PE | X86_CR0_PG), ==, X86_CR0_PE);
    g_assert_cmphex(b->st.efer, ==, 0);
    g_assert_cmphex(b->st.rflags, ==, 0x2);
    g_assert_cmphex(b->st.cs.selector, ==, 0x08);
    g_assert_cmphex(b->st.cs.base, ==, 0);
    g_assert_cmphex(b->st.cs.limit, ==, 0xffffffff);
    g_assert_cmpuint(b->st.cs.db, ==, 1);
    g_assert_cmpuint(b->st.cs.l, ==, 0);
    g_assert_cmphex(b->st.cs.type, ==, 0xb);
    g_assert_cmphex(b->st.ds.selector, ==, 0x10);
    g_assert_cmphex(b->st.ss.selector, ==, 0x10);
    g_assert_cmphex(b->st.ds.limit, ==, 0xffffffff);
    g_assert_cmphex(b->st.gdt_base, ==, MULTIBOOT_GDT_ADDR);
    g_assert_cmphex(ram_q(b, MULTIBOOT_GDT_ADDR + 8), ==,
                    0x00cf9b000000ffffULL);
    g_assert_cmphex(ram_q(b, MULTIBOOT_GDT_ADDR + 16), ==,
                    0x00cf93000000ffffULL);

    g_assert_cmphex(ram_l(b, mbi + 0), ==, 0x24f);
    g_assert_cmpuint(ram_l(b, mbi + 4), ==, 639);   /* up to the EBDA */
    g_assert_cmpuint(ram_l(b, mbi + 8), ==, (ram_size - MIB) / 1024);
    g_assert_cmphex(ram_l(b, mbi + 12), ==, 0x8000ffff);
    g_assert_cmpstr(ram_str(b, ram_l(b, mbi + 64)), ==, "qemu");

    /* The memory map is the e820, 24-byte entries with size 20. */
    g_assert_cmpuint(ram_l(b, mbi + 44), ==, 4 * 24);
    for (i = 0; i < 4; i++) {
        uint64_t e = mmap + i * 24;

        g_assert_cmpuint(ram_l(b, e), ==, 20);
        g_assert_cmphex(ram_q(b, e + 4), ==, b->e820[i].addr);
        g_assert_cmphex(ram_q(b, e + 12), ==, b->e820[i].len);
        g_assert_cmpuint(ram_l(b, e + 20), ==, b->e820[i].type);
    }
}

/* ...at QEMU's addresses, where the kernel leaves them free. */
static void check_mb_info_qemu(Boot *b, uint32_t ram_size)
{
    g_assert_cmphex(b->st.rbx, ==, MULTIBOOT_INFO_ADDR);
    g_assert_cmphex(ram_l(b, MULTIBOOT_INFO_ADDR + 48), ==,
                    MULTIBOOT_MMAP_ADDR);
    check_mb_info_common(b, ram_size);
}

static void test_mb_elf(void)
{
    ElfSpec s = elf_spec_default();
    g_autofree char *path = write_mb_elf("mb-elf", &s);
    g_autofree char *want_cmdline = g_strdup_printf("%s ", path);
    const X86BootRange *r;
    Boot b;

    boot_init(&b, 32 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    check_mb_info_qemu(&b, 32 * MIB);
    g_assert_cmphex(b.st.rip, ==, ELF_TEXT_PADDR + 0x10);

    /* Segments at p_paddr, BSS zeroed, nothing written around them. */
    g_assert_cmphex(ram_l(&b, ELF_TEXT_PADDR), ==, MULTIBOOT_HEADER_MAGIC);
    g_assert_true(ram_all(&b, ELF_TEXT_PADDR + 12, ELF_TEXT_SIZE - 12,
                          0xab));
    g_assert_true(ram_all(&b, ELF_TEXT_PADDR + ELF_TEXT_SIZE,
                          ELF_DATA_PADDR - ELF_TEXT_PADDR - ELF_TEXT_SIZE,
                          0xee));
    g_assert_true(ram_all(&b, ELF_DATA_PADDR, ELF_DATA_FILESZ, 0xcd));
    g_assert_true(ram_all(&b, ELF_DATA_PADDR + ELF_DATA_FILESZ,
                          ELF_DATA_MEMSZ - ELF_DATA_FILESZ, 0));
    /* Without modules the strings follow the BSS's last page directly. */
    g_assert_cmpstr(ram_str(&b, ELF_DATA_PADDR + ELF_DATA_MEMSZ), ==,
                    want_cmdline);

    /* No modules; the command line is "<path> " (empty -append). */
    g_assert_cmpuint(ram_l(&b, MULTIBOOT_INFO_ADDR + 20), ==, 0);
    /* Module list right after the kernel's last page, as in QEMU. */
    g_assert_cmphex(ram_l(&b, MULTIBOOT_INFO_ADDR + 24), ==, 0x204000);
    g_assert_cmpstr(ram_str(&b, ram_l(&b, MULTIBOOT_INFO_ADDR + 16)), ==,
                    want_cmdline);

    r = find_range(&b, "kernel", 0);
    g_assert_nonnull(r);
    g_assert_cmphex(r->addr, ==, ELF_TEXT_PADDR);
    g_assert_cmphex(r->len, ==, ELF_TEXT_SIZE);
    r = find_range(&b, "kernel", 1);
    g_assert_nonnull(r);
    g_assert_cmphex(r->addr, ==, ELF_DATA_PADDR);
    g_assert_cmphex(r->len, ==, ELF_DATA_MEMSZ);
    g_assert_nonnull(find_range(&b, "multiboot information", 0));
    g_assert_nonnull(find_range(&b, "multiboot memory map", 0));
    g_assert_null(find_range(&b, "multiboot module", 0));
    g_assert_cmpuint(b.st.warnings->len, ==, 0);
    boot_free(&b);
}

static void test_mb_elf_entry_translation(void)
{
    ElfSpec s = elf_spec_default();
    g_autofree char *path = NULL;
    Boot b;

    /* Linked high, loaded low: the entry moves with the segment. */
    s.text_vaddr = 0xc0200000;
    s.entry = 0xc0200040;
    path = write_mb_elf("mb-elf-high", &s);
    boot_init(&b, 32 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_cmphex(b.st.rip, ==, ELF_TEXT_PADDR + 0x40);
    boot_free(&b);
}

static void test_mb_aout(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = write_mb_aout("mb-aout", &s);
    const X86BootRange *r;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.kernel_cmdline = "console=ttyS0 smp=2";
    boot_ok(&b);
    check_mb_info_qemu(&b, 16 * MIB);
    g_assert_cmphex(b.st.rip, ==, AOUT_ENTRY);
    /* File offset 0 lands at load_addr: header_addr - load_addr = 0x40. */
    g_assert_cmphex(ram_l(&b, AOUT_LOAD + AOUT_HDR_OFF), ==,
                    MULTIBOOT_HEADER_MAGIC);
    g_assert_true(ram_all(&b, AOUT_LOAD, AOUT_HDR_OFF, 0x5a));
    /* Up to load_end_addr only, then BSS to bss_end_addr. */
    g_assert_true(ram_all(&b, AOUT_LOAD + AOUT_LOAD_SIZE,
                          AOUT_BSS_END - AOUT_LOAD - AOUT_LOAD_SIZE, 0));
    /* Strings start at the page after the BSS; the file's tail is not
     * loaded anywhere. */
    g_assert_cmphex(b.ram.ram[AOUT_BSS_END], ==, '/');
    g_assert_null(memmem(b.ram.ram, b.ram.size, "\x77\x77\x77\x77", 4));
    r = find_range(&b, "kernel", 0);
    g_assert_cmphex(r->addr, ==, AOUT_LOAD);
    g_assert_cmphex(r->len, ==, AOUT_BSS_END - AOUT_LOAD);
    {
        g_autofree char *want = g_strdup_printf("%s console=ttyS0 smp=2",
                                                path);
        g_assert_cmpstr(ram_str(&b, ram_l(&b, MULTIBOOT_INFO_ADDR + 16)),
                        ==, want);
    }
    boot_free(&b);
}

static void test_mb_aout_no_load_end(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = NULL;
    Boot b;

    /* load_end_addr 0: the rest of the file; bss_end_addr 0: no BSS. */
    s.load_end = 0;
    s.bss_end = 0;
    path = write_mb_aout("mb-aout-whole", &s);
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_true(ram_all(&b, AOUT_LOAD + AOUT_LOAD_SIZE,
                          AOUT_FILE_SIZE - AOUT_LOAD_SIZE, 0x77));
    g_assert_cmphex(find_range(&b, "kernel", 0)->len, ==, AOUT_FILE_SIZE);
    boot_free(&b);
}

static void test_mb_modules(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = write_mb_aout("mb-mods", &s);
    g_autofree char *m1 = write_pattern_file("mod1", 5000, 1);
    g_autofree char *m2 = write_pattern_file("mo,d2", 3, 9);
    g_autofree char *m3 = write_pattern_file("mod3", 0, 0);
    g_autofree char *spec = g_strdup_printf("%s arg1 arg2,%s/mo,,d2 x=1,,2,"
                                            "%s", m1, tmp_dir, m3);
    g_autofree char *s1 = g_strdup_printf("%s arg1 arg2", m1);
    g_autofree char *s2 = g_strdup_printf("%s x=1,2", m2);
    uint32_t mods, start, prev_end = 0;
    const char *want_str[3] = { s1, s2, m3 };
    const size_t want_len[3] = { 5000, 3, 0 };
    unsigned i;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = spec;
    b.cfg.kernel_cmdline = "k";
    boot_ok(&b);
    g_assert_cmpuint(ram_l(&b, MULTIBOOT_INFO_ADDR + 20), ==, 3);
    mods = ram_l(&b, MULTIBOOT_INFO_ADDR + 24);
    /* After the kernel (BSS included), page aligned. */
    g_assert_cmphex(mods, ==, AOUT_BSS_END);
    for (i = 0; i < 3; i++) {
        uint32_t m = mods + i * 16;
        g_autofree char *mp = NULL;
        gchar *data;
        gsize len;

        start = ram_l(&b, m);
        g_assert_cmphex(start & 0xfff, ==, 0);
        g_assert_cmphex(start, >=, prev_end);
        g_assert_cmphex(ram_l(&b, m + 4), ==, start + want_len[i]);
        g_assert_cmpstr(ram_str(&b, ram_l(&b, m + 8)), ==, want_str[i]);
        g_assert_cmpuint(ram_l(&b, m + 12), ==, 0);
        mp = i == 1 ? g_strdup(m2) : g_strdup(i == 0 ? m1 : m3);
        g_assert_true(g_file_get_contents(mp, &data, &len, NULL));
        g_assert_cmpmem(b.ram.ram + start, want_len[i], data, len);
        g_free(data);
        prev_end = start + want_len[i];
    }
    /*
     * Strings as QEMU 7.2 lays them out (checked against it): module
     * strings, "<kernel> <append>", then "qemu" at an offset that counts
     * the raw -initrd text and one spare byte.
     */
    {
        g_autofree char *kcmd = g_strdup_printf("%s k", path);
        uint32_t strings = mods + 3 * 16;

        g_assert_cmphex(ram_l(&b, mods + 8), ==, strings);
        g_assert_cmphex(ram_l(&b, MULTIBOOT_INFO_ADDR + 16), ==,
                        strings + strlen(s1) + 1 + strlen(s2) + 1 +
                        strlen(m3) + 1);
        g_assert_cmpstr(ram_str(&b, ram_l(&b, MULTIBOOT_INFO_ADDR + 16)),
                        ==, kcmd);
        g_assert_cmphex(ram_l(&b, MULTIBOOT_INFO_ADDR + 64), ==,
                        strings + strlen(path) + 1 + strlen("k") + 1 +
                        strlen(spec) + 1);
    }
    /* The first module starts on the page after the strings. */
    g_assert_cmphex(ram_l(&b, mods), ==, AOUT_BSS_END + 0x1000);
    g_assert_cmphex(ram_l(&b, mods + 16), ==, AOUT_BSS_END + 0x3000);
    g_assert_nonnull(find_range(&b, "multiboot module", 2));
    boot_free(&b);
}

static void test_mb_fw_cfg(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = write_mb_aout("mb-fw", &s);
    g_autofree char *m1 = write_pattern_file("fwmod", 100, 3);
    const X86BootFwCfgItem *kd, *id;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = m1;
    boot_ok(&b);
    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_ENTRY), ==, AOUT_ENTRY);
    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_ADDR), ==, AOUT_LOAD);
    /* Kernel + BSS (2 pages), strings page, module page. */
    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_SIZE), ==, 0x4000);
    kd = x86_boot_fw_cfg_find(&b.fw, FW_CFG_KERNEL_DATA);
    g_assert_cmpuint(kd->len, ==, 0x4000);
    /* The blob holds what was written to the guest's load area. */
    g_assert_cmpmem(kd->data, 0x2000, b.ram.ram + AOUT_LOAD, 0x2000);
    g_assert_cmpmem((uint8_t *)kd->data + 0x2000, 0x40,
                    b.ram.ram + AOUT_LOAD + 0x2000, 0x40);
    g_assert_cmpmem((uint8_t *)kd->data + 0x3000, 100,
                    b.ram.ram + AOUT_LOAD + 0x3000, 100);
    g_assert_true(ram_all(&b, AOUT_LOAD + 0x3000 + 100, 0xf9c, 0xee));
    g_assert_cmphex(fw_i32(&b, FW_CFG_INITRD_ADDR), ==, MULTIBOOT_INFO_ADDR);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_INITRD_SIZE), ==, 88);
    id = x86_boot_fw_cfg_find(&b.fw, FW_CFG_INITRD_DATA);
    g_assert_cmpmem(id->data, id->len, b.ram.ram + MULTIBOOT_INFO_ADDR, 88);
    boot_free(&b);
}

/*
 * A kernel linked low, over QEMU's 0x9000-0x95ff: an a.out image loaded
 * at 0x8000-0xa86b (0x400 bytes of file, then BSS), as in the issue.
 */
#define LOW_LOAD        0x8000
#define LOW_END         0xa86c          /* bss_end_addr */

static AoutSpec low_aout_spec(uint32_t load, uint32_t bss_end)
{
    AoutSpec s = aout_spec_default();

    s.load_addr = load;
    s.header_addr = load + AOUT_HDR_OFF;
    s.load_end = load + AOUT_LOAD_SIZE;
    s.bss_end = bss_end;
    s.entry = load + 0x80;
    return s;
}

static bool overlaps(uint64_t a, uint64_t alen, uint64_t b, uint64_t blen)
{
    return a < b + blen && b < a + alen;
}

/* Every address the information gives lies outside [lo, lo + len). */
static void check_mb_info_outside(Boot *b, uint64_t lo, uint64_t len)
{
    uint64_t mbi = b->st.rbx;
    uint32_t nmods = ram_l(b, mbi + 20), mods = ram_l(b, mbi + 24);
    unsigned i;

    g_assert_false(overlaps(mbi, 88, lo, len));
    g_assert_false(overlaps(ram_l(b, mbi + 48), ram_l(b, mbi + 44), lo,
                            len));
    g_assert_false(overlaps(ram_l(b, mbi + 16),
                            strlen(ram_str(b, ram_l(b, mbi + 16))) + 1,
                            lo, len));
    g_assert_false(overlaps(ram_l(b, mbi + 64), 5, lo, len));
    g_assert_false(overlaps(mods, nmods * 16, lo, len));
    for (i = 0; i < nmods; i++) {
        uint32_t str = ram_l(b, mods + i * 16 + 8);

        g_assert_false(overlaps(str, strlen(ram_str(b, str)) + 1, lo, len));
    }
}

/* The kernel's bytes as the a.out image and BSS make them. */
static void check_low_kernel(Boot *b, uint32_t load, uint32_t end)
{
    g_assert_true(ram_all(b, load, AOUT_HDR_OFF, 0x5a));
    g_assert_cmphex(ram_l(b, load + AOUT_HDR_OFF), ==,
                    MULTIBOOT_HEADER_MAGIC);
    g_assert_true(ram_all(b, load + AOUT_HDR_OFF + 32,
                          AOUT_LOAD_SIZE - AOUT_HDR_OFF - 32, 0x5a));
    g_assert_true(ram_all(b, load + AOUT_LOAD_SIZE,
                          end - load - AOUT_LOAD_SIZE, 0));
}

static void test_mb_low_kernel(void)
{
    AoutSpec s = low_aout_spec(LOW_LOAD, LOW_END);
    g_autofree char *path = write_mb_aout("mb-low", &s);
    g_autofree char *want = g_strdup_printf("%s console=ttyS0", path);
    const X86BootFwCfgItem *id;
    uint64_t mbi;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.kernel_cmdline = "console=ttyS0";
    boot_ok(&b);
    g_assert_cmphex(b.st.rip, ==, LOW_LOAD + 0x80);
    /*
     * The kernel intact, and beside it an intact information structure:
     * moved with its map and strings to the first free place from
     * 0x9000 up, here just after the kernel's BSS.
     */
    check_low_kernel(&b, LOW_LOAD, LOW_END);
    check_mb_info_common(&b, 16 * MIB);
    check_mb_info_outside(&b, LOW_LOAD, LOW_END - LOW_LOAD);
    mbi = b.st.rbx;
    g_assert_cmphex(ram_l(&b, mbi + 48), ==, 0xa870);
    g_assert_cmphex(mbi, ==, 0xa870 + 0x500);
    g_assert_cmpuint(ram_l(&b, mbi + 20), ==, 0);
    g_assert_cmphex(ram_l(&b, mbi + 24), ==, mbi + 88);
    g_assert_cmpstr(ram_str(&b, ram_l(&b, mbi + 16)), ==, want);
    g_assert_cmpstr(ram_str(&b, ram_l(&b, mbi + 64)), ==, "qemu");
    /*
     * fw_cfg: the load area as QEMU's, the structure at its new address
     * with the module list and strings after it.
     */
    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_ADDR), ==, LOW_LOAD);
    g_assert_cmphex(fw_i32(&b, FW_CFG_INITRD_ADDR), ==, mbi);
    id = x86_boot_fw_cfg_find(&b.fw, FW_CFG_INITRD_DATA);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_INITRD_SIZE), ==, id->len);
    g_assert_cmpuint(id->len, >, 88 + strlen(want));
    g_assert_cmpmem(id->data, id->len, b.ram.ram + mbi, id->len);
    boot_free(&b);
}

static void test_mb_low_kernel_modules(void)
{
    AoutSpec s = low_aout_spec(LOW_LOAD, LOW_END);
    g_autofree char *path = write_mb_aout("mb-low-mods", &s);
    g_autofree char *m1 = write_pattern_file("lowmod1", 5000, 7);
    g_autofree char *m2 = write_pattern_file("lowmod2", 300, 8);
    g_autofree char *spec = g_strdup_printf("%s a=1,%s", m1, m2);
    g_autofree char *s1 = g_strdup_printf("%s a=1", m1);
    const char *want_str[2] = { s1, m2 };
    const char *files[2] = { m1, m2 };
    uint32_t mods;
    unsigned i;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = spec;
    boot_ok(&b);
    check_low_kernel(&b, LOW_LOAD, LOW_END);
    check_mb_info_common(&b, 16 * MIB);
    check_mb_info_outside(&b, LOW_LOAD, LOW_END - LOW_LOAD);
    mods = ram_l(&b, b.st.rbx + 24);
    g_assert_cmpuint(ram_l(&b, b.st.rbx + 20), ==, 2);
    for (i = 0; i < 2; i++) {
        uint32_t start = ram_l(&b, mods + i * 16);
        uint32_t end = ram_l(&b, mods + i * 16 + 4);
        gchar *data;
        gsize len;

        /* Modules where QEMU puts them: after the load area's pages. */
        g_assert_cmphex(start, ==, i == 0 ? 0xc000 : 0xe000);
        g_assert_true(g_file_get_contents(files[i], &data, &len, NULL));
        g_assert_cmpuint(end - start, ==, len);
        g_assert_cmpmem(b.ram.ram + start, len, data, len);
        g_free(data);
        g_assert_cmpstr(ram_str(&b, ram_l(&b, mods + i * 16 + 8)), ==,
                        want_str[i]);
        check_mb_info_outside(&b, start, end - start);
    }
    boot_free(&b);
}

/*
 * Only the strings' page collides (the kernel ends below 0x9000, its
 * next page is QEMU's map): map and structure keep QEMU's addresses and
 * the strings follow them.
 */
static void test_mb_low_kernel_tail(void)
{
    AoutSpec s = low_aout_spec(LOW_LOAD, 0x8a6c);
    g_autofree char *path = write_mb_aout("mb-low-tail", &s);
    g_autofree char *want = g_strdup_printf("%s ", path);
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    check_low_kernel(&b, LOW_LOAD, 0x8a6c);
    check_mb_info_qemu(&b, 16 * MIB);
    g_assert_cmphex(ram_l(&b, MULTIBOOT_INFO_ADDR + 24), ==,
                    MULTIBOOT_INFO_ADDR + 88);
    g_assert_cmpstr(ram_str(&b, ram_l(&b, MULTIBOOT_INFO_ADDR + 16)), ==,
                    want);
    boot_free(&b);
}

/*
 * A kernel over all of low memory: the information goes above 1 MiB;
 * with no RAM there either, the load fails with one line.
 */
static void test_mb_low_memory_full(void)
{
    AoutSpec s = low_aout_spec(0x1000, 0x9fc00);
    g_autofree char *path = write_mb_aout("mb-low-full", &s);
    g_autofree char *want = NULL;
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    check_low_kernel(&b, 0x1000, 0x9fc00);
    check_mb_info_common(&b, 16 * MIB);
    g_assert_cmphex(b.st.rbx, ==, MIB + 0x500);
    boot_free(&b);

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.e820_entries = 3;             /* no RAM from 1 MiB */
    /* Map area, structure, "<path> " and "qemu" with their NULs. */
    want = g_strdup_printf("PATH: no room in guest RAM for the multiboot "
                           "information (0x%zx bytes) beside the kernel "
                           "and its modules",
                           (size_t)0x500 + 88 + strlen(path) + 2 + 5);
    boot_fails(&b, want);
    boot_free(&b);
}

static void test_mb_vbe_warning(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = NULL;
    Boot b;

    s.flags |= 0x4;
    path = write_mb_aout("mb-vbe", &s);
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_cmpuint(b.st.warnings->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(b.st.warnings, 0), ==,
                    "multiboot knows VBE. we don't");
    boot_free(&b);
}

static void mb_elf_error(ElfSpec *s, uint64_t ram, const char *msg)
{
    g_autofree char *path = write_mb_elf("mb-elf-bad", s);
    Boot b;

    boot_init(&b, ram);
    b.cfg.kernel_filename = path;
    boot_fails(&b, msg);
    boot_free(&b);
}

static void mb_aout_error(AoutSpec *s, const char *msg)
{
    g_autofree char *path = write_mb_aout("mb-aout-bad", s);
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_fails(&b, msg);
    boot_free(&b);
}

static void test_mb_errors(void)
{
    ElfSpec e;
    AoutSpec a;

    e = elf_spec_default();
    e.class = 2;
    mb_elf_error(&e, 32 * MIB,
                 "PATH: Cannot load x86-64 image, give a 32bit one.");
    e = elf_spec_default();
    e.machine = 62;
    mb_elf_error(&e, 32 * MIB,
                 "PATH: Cannot load x86-64 image, give a 32bit one.");
    e = elf_spec_default();
    e.machine = 40;
    mb_elf_error(&e, 32 * MIB, "PATH: Error while loading elf kernel: not "
                 "a little-endian ELF32 i386 image");
    /* Segments beyond RAM. */
    e = elf_spec_default();
    mb_elf_error(&e, 2 * MIB, "kernel at 0x200000-0x2007ff is outside "
                 "guest RAM");
    /* Over the boot GDT, which does not move. */
    e = elf_spec_default();
    e.text_paddr = 0x400;
    e.text_vaddr = 0x400;
    e.entry = 0x400;
    mb_elf_error(&e, 32 * MIB, "kernel at 0x400-0xbff overlaps boot GDT at "
                 "0x500-0x517");
    /* Segments overlapping each other. */
    e = elf_spec_default();
    e.data_paddr = ELF_TEXT_PADDR + 0x400;
    mb_elf_error(&e, 32 * MIB, "kernel at 0x200400-0x2033ff overlaps "
                 "kernel at 0x200000-0x2007ff");
    /* Truncated: in a segment, and in the program headers. */
    e = elf_spec_default();
    e.file_size = ELF_FILE_SIZE - 1;
    mb_elf_error(&e, 32 * MIB, "PATH: file is truncated (segment 1 ends at "
                 "byte 6400, file has 6399)");
    e = elf_spec_default();
    e.data_offset = 0xfffffff0;
    mb_elf_error(&e, 32 * MIB, "PATH: file is truncated (segment 1 ends at "
                 "byte 4294967536, file has 6400)");

    a = aout_spec_default();
    a.load_addr = a.header_addr + 4;
    mb_aout_error(&a, "PATH: invalid load_addr address");
    a = aout_spec_default();
    a.load_addr = a.header_addr - AOUT_HDR_OFF - 4;
    mb_aout_error(&a, "PATH: invalid header_addr address");
    a = aout_spec_default();
    a.load_end = 1;
    mb_aout_error(&a, "PATH: invalid load_end_addr address");
    a = aout_spec_default();
    a.bss_end = a.load_end - 1;
    mb_aout_error(&a, "PATH: invalid bss_end_addr address");
    a = aout_spec_default();
    a.load_end = AOUT_LOAD + AOUT_FILE_SIZE + 1;
    a.bss_end = 0;
    mb_aout_error(&a, "PATH: file is truncated (load_end_addr needs byte "
                  "1537, file has 1536)");
    a = aout_spec_default();
    a.load_addr = 0xffffff00;
    a.header_addr = 0xffffff40;
    mb_aout_error(&a, "PATH: invalid load_end_addr address");
    a.load_end = 0;
    mb_aout_error(&a, "PATH: kernel does not fit in address space");
    a = aout_spec_default();
    a.load_addr = 0x3000000;
    a.header_addr = 0x3000040;
    a.load_end = 0x3000400;
    a.bss_end = 0;
    mb_aout_error(&a, "kernel at 0x3000000-0x30003ff is outside guest RAM");
}

static void test_mb_not_elf(void)
{
    uint8_t img[256] = { 0 };
    g_autofree char *path = NULL;
    Boot b;

    put_mb_header(img + 16, 0);
    path = write_file("mb-raw", img, sizeof(img));
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_fails(&b, "PATH: Error while loading elf kernel: not an ELF file, "
               "and the multiboot header has no load addresses (flags bit "
               "16 clear)");
    boot_free(&b);
}

static void test_mb_missing_module(void)
{
    AoutSpec s = aout_spec_default();
    g_autofree char *path = write_mb_aout("mb-miss", &s);
    g_autofree char *m1 = write_pattern_file("okmod", 10, 1);
    g_autofree char *spec = g_strdup_printf("%s,%s/nomod arg", m1, tmp_dir);
    g_autofree char *want = g_strdup_printf("Failed to open file '%s/nomod': "
                                            "No such file or directory",
                                            tmp_dir);
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = spec;
    boot_fails(&b, want);
    boot_free(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/loaders/multiboot/find-header", test_mb_find_header);
    g_test_add_func("/loaders/multiboot/elf", test_mb_elf);
    g_test_add_func("/loaders/multiboot/elf-entry-translation",
                    test_mb_elf_entry_translation);
    g_test_add_func("/loaders/multiboot/aout", test_mb_aout);
    g_test_add_func("/loaders/multiboot/aout-whole-file",
                    test_mb_aout_no_load_end);
    g_test_add_func("/loaders/multiboot/modules", test_mb_modules);
    g_test_add_func("/loaders/multiboot/fw-cfg", test_mb_fw_cfg);
    g_test_add_func("/loaders/multiboot/low-kernel", test_mb_low_kernel);
    g_test_add_func("/loaders/multiboot/low-kernel-modules",
                    test_mb_low_kernel_modules);
    g_test_add_func("/loaders/multiboot/low-kernel-strings",
                    test_mb_low_kernel_tail);
    g_test_add_func("/loaders/multiboot/low-memory-full",
                    test_mb_low_memory_full);
    g_test_add_func("/loaders/multiboot/vbe-warning", test_mb_vbe_warning);
    g_test_add_func("/loaders/multiboot/errors", test_mb_errors);
    g_test_add_func("/loaders/multiboot/not-elf", test_mb_not_elf);
    g_test_add_func("/loaders/multiboot/missing-module",
                    test_mb_missing_module);
    return loader_test_run();
}
