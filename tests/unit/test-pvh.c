/*
 * The PVH loader (hw/i386/pvh.c): the Xen entry note, start_info, the
 * memory map, the entry state, and every rejected image.
 */
#include "loader-test.h"

/* --- PVH --- */

#define PVH_T_ENTRY     0x200010u
#define PVH_T_SEG1      0x200000u       /* 0x1000 file bytes, 0x3000 mem */
#define PVH_T_SEG2      0x400000u       /* 0x800 file bytes, no BSS */
#define PVH_T_PHOFF     0x40
#define PVH_T_NOTES     0x100
#define PVH_T_DATA1     0x200
#define PVH_T_DATA2     0x1200
#define PVH_T_SIZE      0x1a00

typedef struct PvhSpec {
    bool is64;
    bool note;                  /* the PHYS32_ENTRY note is there */
    uint32_t note_desc_size;    /* 4 or 8; 0: as the class has it */
    uint32_t seg1_paddr, seg1_filesz, seg1_memsz;
    bool mb_header;             /* a multiboot header at DATA1 too */
    size_t truncate;            /* 0: the whole file */
} PvhSpec;

static PvhSpec pvh_spec_default(bool is64)
{
    PvhSpec s = {
        .is64 = is64, .note = true,
        .seg1_paddr = PVH_T_SEG1, .seg1_filesz = 0x1000,
        .seg1_memsz = 0x3000,
    };
    return s;
}

static void put_pvh_phdr(uint8_t *ph, bool is64, uint32_t type,
                         uint64_t off, uint64_t paddr, uint64_t filesz,
                         uint64_t memsz)
{
    x86_boot_stl(ph, type);
    if (is64) {
        x86_boot_stq(ph + 8, off);
        /* The kernel's virtual address differs: only p_paddr counts. */
        x86_boot_stq(ph + 16, 0xffffffff80000000ULL + paddr);
        x86_boot_stq(ph + 24, paddr);
        x86_boot_stq(ph + 32, filesz);
        x86_boot_stq(ph + 40, memsz);
    } else {
        x86_boot_stl(ph + 4, off);
        x86_boot_stl(ph + 8, 0xc0000000u + paddr);
        x86_boot_stl(ph + 12, paddr);
        x86_boot_stl(ph + 16, filesz);
        x86_boot_stl(ph + 20, memsz);
    }
}

/* A Xen note: "Xen\0", then desc padded to 4 bytes; returns its size. */
static size_t put_xen_note(uint8_t *p, uint32_t type, const void *desc,
                           uint32_t descsz)
{
    x86_boot_stl(p, 4);
    x86_boot_stl(p + 4, descsz);
    x86_boot_stl(p + 8, type);
    memcpy(p + 12, "Xen", 4);
    memcpy(p + 16, desc, descsz);
    return 16 + ((descsz + 3) & ~3u);
}

static char *write_pvh_elf(const char *name, const PvhSpec *s)
{
    uint8_t *f = g_malloc0(PVH_T_SIZE);
    unsigned phsize = s->is64 ? 56 : 32;
    uint32_t descsz = s->note_desc_size ? s->note_desc_size
                                        : (s->is64 ? 8 : 4);
    uint8_t entry[8];
    size_t notes = 0, i;
    char *path;

    memcpy(f, "\x7f" "ELF", 4);
    f[4] = s->is64 ? 2 : 1;
    f[5] = 1;
    f[6] = 1;
    f[16] = 2;                                  /* ET_EXEC */
    f[18] = s->is64 ? 62 : 3;
    if (s->is64) {
        x86_boot_stq(f + 24, 0xffffffff81000000ULL);
        x86_boot_stq(f + 32, PVH_T_PHOFF);
        f[52] = 64;
        f[54] = 56;
        f[56] = 3;
    } else {
        x86_boot_stl(f + 24, 0xc0200000u);
        x86_boot_stl(f + 28, PVH_T_PHOFF);
        f[40] = 52;
        f[42] = 32;
        f[44] = 3;
    }

    /* Another Xen note first, as in Linux: the loader must skip it. */
    notes += put_xen_note(f + PVH_T_NOTES, 6, "linux", 6);
    if (s->note) {
        x86_boot_stq(entry, PVH_T_ENTRY);
        notes += put_xen_note(f + PVH_T_NOTES + notes,
                              XEN_ELFNOTE_PHYS32_ENTRY, entry, descsz);
    }

    put_pvh_phdr(f + PVH_T_PHOFF, s->is64, 4, PVH_T_NOTES, 0, notes, notes);
    put_pvh_phdr(f + PVH_T_PHOFF + phsize, s->is64, 1, PVH_T_DATA1,
                 s->seg1_paddr, s->seg1_filesz, s->seg1_memsz);
    put_pvh_phdr(f + PVH_T_PHOFF + 2 * phsize, s->is64, 1, PVH_T_DATA2,
                 PVH_T_SEG2, 0x800, 0x800);
    for (i = PVH_T_DATA1; i < PVH_T_SIZE; i++) {
        f[i] = 0x11 + i * 3;
    }
    if (s->mb_header) {
        put_mb_header(f + PVH_T_DATA1, 0);
    }
    path = write_file(name, f, s->truncate ? s->truncate : PVH_T_SIZE);
    g_free(f);
    return path;
}

static void test_pvh_find_entry(void)
{
    PvhSpec s = pvh_spec_default(true);
    g_autofree char *p64 = write_pvh_elf("pvh64", &s);
    g_autofree char *pnone = NULL;
    g_autofree char *p32 = NULL;
    g_autofree char *pbad = NULL;
    gchar *data;
    gsize len;
    uint32_t entry = 0;

    g_assert_true(g_file_get_contents(p64, &data, &len, NULL));
    g_assert_true(pvh_find_entry((uint8_t *)data, len, &entry));
    g_assert_cmphex(entry, ==, PVH_T_ENTRY);
    /* Cut inside the notes: no entry, no crash. */
    g_assert_false(pvh_find_entry((uint8_t *)data, PVH_T_NOTES + 20,
                                  &entry));
    g_assert_false(pvh_find_entry((uint8_t *)"abc", 3, &entry));
    g_free(data);

    s.note = false;
    pnone = write_pvh_elf("pvh64-none", &s);
    g_assert_true(g_file_get_contents(pnone, &data, &len, NULL));
    g_assert_false(pvh_find_entry((uint8_t *)data, len, &entry));
    g_free(data);

    s = pvh_spec_default(false);
    p32 = write_pvh_elf("pvh32", &s);
    g_assert_true(g_file_get_contents(p32, &data, &len, NULL));
    entry = 0;
    g_assert_true(pvh_find_entry((uint8_t *)data, len, &entry));
    g_assert_cmphex(entry, ==, PVH_T_ENTRY);
    g_free(data);

    /* A descriptor of neither 4 nor 8 bytes names no entry. */
    s.note_desc_size = 2;
    pbad = write_pvh_elf("pvh32-bad", &s);
    g_assert_true(g_file_get_contents(pbad, &data, &len, NULL));
    g_assert_false(pvh_find_entry((uint8_t *)data, len, &entry));
    g_free(data);
}

static void check_pvh_state(Boot *b)
{
    X86BootState *st = &b->st;

    g_assert_cmpint(st->mode, ==, X86_BOOT_MODE_PROTECTED32);
    g_assert_cmphex(st->rip, ==, PVH_T_ENTRY);
    g_assert_cmphex(st->rbx, ==, PVH_START_INFO_ADDR);
    g_assert_cmphex(st->cr0, ==, X86_CR0_PE | X86_CR0_ET);
    g_assert_cmphex(st->cr4, ==, 0);
    g_assert_cmphex(st->efer, ==, 0);
    g_assert_cmphex(st->rflags, ==, X86_RFLAGS_FIXED);
    g_assert_cmphex(st->cs.selector, ==, PVH_SEL_CODE32);
    g_assert_cmphex(st->cs.type, ==, 0xb);
    g_assert_cmpuint(st->cs.db, ==, 1);
    g_assert_cmpuint(st->cs.l, ==, 0);
    g_assert_cmphex(st->cs.limit, ==, 0xffffffff);
    g_assert_cmphex(st->ds.selector, ==, PVH_SEL_DATA);
    g_assert_cmphex(st->ss.type, ==, 0x3);
    g_assert_cmphex(st->tr.type, ==, 0xb);
    g_assert_cmphex(st->tr.limit, ==, 0x67);
    g_assert_cmphex(st->gdt_base, ==, PVH_GDT_ADDR);
    g_assert_cmphex(st->gdt_limit, ==, 23);
    g_assert_cmphex(ram_q(b, PVH_GDT_ADDR), ==, 0);
    g_assert_cmphex(ram_q(b, PVH_GDT_ADDR + 8), ==, 0x00cf9b000000ffffULL);
    g_assert_cmphex(ram_q(b, PVH_GDT_ADDR + 16), ==, 0x00cf93000000ffffULL);
}

static void check_pvh_segments(Boot *b)
{
    uint64_t i;

    for (i = 0; i < 0x1000; i++) {
        g_assert_cmphex(b->ram.ram[PVH_T_SEG1 + i], ==,
                        (uint8_t)(0x11 + (PVH_T_DATA1 + i) * 3));
    }
    g_assert_true(ram_all(b, PVH_T_SEG1 + 0x1000, 0x2000, 0));
    g_assert_true(ram_all(b, PVH_T_SEG1 + 0x3000, 0x10, 0xee));
    g_assert_cmphex(b->ram.ram[PVH_T_SEG2 + 0x7ff], ==,
                    (uint8_t)(0x11 + (PVH_T_DATA2 + 0x7ff) * 3));
}

static void test_pvh_elf64(void)
{
    PvhSpec s = pvh_spec_default(true);
    g_autofree char *path = write_pvh_elf("pvh64-boot", &s);
    g_autofree char *initrd = write_pattern_file("pvh-initrd", 0x2345, 9);
    const X86BootRange *r;
    const X86BootFwCfgItem *it;
    uint64_t si = PVH_START_INFO_ADDR, initrd_addr;
    unsigned i;
    Boot b;

    boot_init(&b, 32 * MIB);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = initrd;
    b.cfg.kernel_cmdline = "console=ttyS0 dirty=4";
    b.cfg.acpi_rsdp_addr = 0xf0000;
    boot_ok(&b);

    check_pvh_state(&b);
    check_pvh_segments(&b);

    g_assert_cmphex(ram_l(&b, si + PVH_SI_MAGIC), ==, 0x336ec578);
    g_assert_cmpuint(ram_l(&b, si + PVH_SI_VERSION), ==, 1);
    g_assert_cmphex(ram_l(&b, si + PVH_SI_FLAGS), ==, 0);
    g_assert_cmpuint(ram_l(&b, si + PVH_SI_NR_MODULES), ==, 1);
    g_assert_cmphex(ram_q(&b, si + PVH_SI_MODLIST_PADDR), ==,
                    PVH_MODLIST_ADDR);
    g_assert_cmphex(ram_q(&b, si + PVH_SI_CMDLINE_PADDR), ==,
                    PVH_CMDLINE_ADDR);
    g_assert_cmpstr(ram_str(&b, PVH_CMDLINE_ADDR), ==,
                    "console=ttyS0 dirty=4");
    g_assert_cmphex(ram_q(&b, si + PVH_SI_RSDP_PADDR), ==, 0xf0000);
    g_assert_cmphex(ram_q(&b, si + PVH_SI_MEMMAP_PADDR), ==,
                    PVH_MEMMAP_ADDR);
    g_assert_cmpuint(ram_l(&b, si + PVH_SI_MEMMAP_ENTRIES), ==, 4);
    g_assert_cmphex(ram_l(&b, si + 52), ==, 0);

    /* The memory map is the board's e820, entry for entry. */
    for (i = 0; i < 4; i++) {
        uint64_t m = PVH_MEMMAP_ADDR + i * PVH_MEMMAP_ENTRY_SIZE;

        g_assert_cmphex(ram_q(&b, m), ==, b.e820[i].addr);
        g_assert_cmphex(ram_q(&b, m + 8), ==, b.e820[i].len);
        g_assert_cmpuint(ram_l(&b, m + 16), ==, b.e820[i].type);
        g_assert_cmpuint(ram_l(&b, m + 20), ==, 0);
    }

    /* The initrd: the one module, page aligned at the top of RAM. */
    initrd_addr = ram_q(&b, PVH_MODLIST_ADDR);
    g_assert_cmphex(initrd_addr, ==, (32 * MIB - 0x2345) & ~0xfffULL);
    g_assert_cmphex(ram_q(&b, PVH_MODLIST_ADDR + 8), ==, 0x2345);
    g_assert_cmphex(ram_q(&b, PVH_MODLIST_ADDR + 16), ==, 0);
    g_assert_cmphex(b.ram.ram[initrd_addr + 0x100], ==,
                    (uint8_t)(9 + 0x100 * 7));
    r = find_range(&b, "initrd", 0);
    g_assert_nonnull(r);
    g_assert_cmphex(r->addr, ==, initrd_addr);
    r = find_range(&b, "kernel", 1);
    g_assert_nonnull(r);
    g_assert_cmphex(r->addr, ==, PVH_T_SEG2);

    g_assert_cmphex(fw_i32(&b, FW_CFG_KERNEL_ENTRY), ==, PVH_T_ENTRY);
    g_assert_cmphex(fw_i32(&b, FW_CFG_CMDLINE_ADDR), ==, PVH_CMDLINE_ADDR);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_CMDLINE_SIZE), ==, 22);
    g_assert_cmphex(fw_i32(&b, FW_CFG_INITRD_ADDR), ==, initrd_addr);
    g_assert_cmpuint(fw_i32(&b, FW_CFG_INITRD_SIZE), ==, 0x2345);
    it = x86_boot_fw_cfg_find(&b.fw, FW_CFG_INITRD_DATA);
    g_assert_nonnull(it);
    g_assert_cmpmem(it->data, it->len, b.ram.ram + initrd_addr, 0x2345);
    g_assert_cmpuint(b.st.warnings->len, ==, 0);
    boot_free(&b);
}

static void test_pvh_elf32(void)
{
    PvhSpec s = pvh_spec_default(false);
    g_autofree char *path = write_pvh_elf("pvh32-boot", &s);
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    check_pvh_state(&b);
    check_pvh_segments(&b);
    g_assert_cmpuint(ram_l(&b, PVH_START_INFO_ADDR + PVH_SI_NR_MODULES), ==,
                     0);
    g_assert_cmphex(ram_q(&b, PVH_START_INFO_ADDR + PVH_SI_MODLIST_PADDR),
                    ==, 0);
    g_assert_cmphex(ram_q(&b, PVH_START_INFO_ADDR + PVH_SI_RSDP_PADDR), ==,
                    0);
    /* No -append: an empty command line, still a valid string. */
    g_assert_cmpstr(ram_str(&b, PVH_CMDLINE_ADDR), ==, "");
    g_assert_null(x86_boot_fw_cfg_find(&b.fw, FW_CFG_INITRD_DATA));
    boot_free(&b);
}

/* An ELF32 with both a multiboot header and the PVH note: QEMU's order. */
static void test_pvh_multiboot_wins(void)
{
    PvhSpec s = pvh_spec_default(false);
    g_autofree char *path = NULL;
    Boot b;

    s.mb_header = true;
    path = write_pvh_elf("pvh-mb", &s);
    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = path;
    boot_ok(&b);
    g_assert_cmphex(b.st.rax, ==, MULTIBOOT_BOOTLOADER_MAGIC);
    g_assert_cmphex(b.st.rbx, ==, MULTIBOOT_INFO_ADDR);
    boot_free(&b);
}

static void pvh_error(PvhSpec *s, uint64_t ram, const char *initrd,
                      const char *msg)
{
    g_autofree char *path = write_pvh_elf("pvh-err", s);
    Boot b;

    boot_init(&b, ram);
    b.cfg.kernel_filename = path;
    b.cfg.initrd_filename = initrd;
    boot_fails(&b, msg);
    /* Nothing was written: the start_info area keeps its old bytes. */
    g_assert_true(ram_all(&b, PVH_START_INFO_ADDR, PVH_START_INFO_SIZE,
                          0xee));
    boot_free(&b);
}

static void test_pvh_errors(void)
{
    g_autofree char *missing = g_build_filename(tmp_dir, "no-initrd", NULL);
    g_autofree char *big = NULL;
    g_autofree char *want = NULL;
    PvhSpec s;

    s = pvh_spec_default(true);
    s.seg1_filesz = 0x4000;
    pvh_error(&s, 16 * MIB, NULL, "PATH: Error while loading elf kernel: "
              "segment 1 has p_filesz 0x4000 above p_memsz 0x3000");

    s = pvh_spec_default(true);
    s.truncate = 0x1000;
    pvh_error(&s, 16 * MIB, NULL, "PATH: file is truncated (segment 1 "
              "ends at byte 4608, file has 4096)");

    s = pvh_spec_default(false);
    s.seg1_paddr = 0xfffff000u;
    pvh_error(&s, 16 * MIB, NULL, "PATH: segment 1 at 0xfffff000 "
              "(0x3000 bytes) does not fit below 4 GiB");

    s = pvh_spec_default(true);
    s.seg1_paddr = 0x1000000u;
    pvh_error(&s, 16 * MIB, NULL, "kernel at 0x1000000-0x1002fff is "
              "outside guest RAM");

    s = pvh_spec_default(true);
    s.seg1_paddr = 0x6000u;
    pvh_error(&s, 16 * MIB, NULL, "kernel at 0x6000-0x8fff overlaps PVH "
              "start info at 0x6000-0x605f");

    s = pvh_spec_default(true);
    want = g_strdup_printf("could not load initial ram disk '%s': No such "
                           "file or directory", missing);
    pvh_error(&s, 16 * MIB, missing, want);
    g_free(want);

    /* An initrd that only fits by overlapping the kernel. */
    big = write_pattern_file("pvh-big-initrd", 4 * MIB - 0x1000, 1);
    s = pvh_spec_default(true);
    want = g_strdup_printf("initrd '%s' (%zu bytes) does not fit between "
                           "the kernel (ends at 0x400800) and the end of "
                           "low RAM (0x600000)", big,
                           (size_t)(4 * MIB - 0x1000));
    pvh_error(&s, 6 * MIB, big, want);

    /* An x86-64 ELF without the note (and no multiboot header). */
    s = pvh_spec_default(true);
    s.note = false;
    pvh_error(&s, 16 * MIB, NULL, "PATH: not a bzImage (no HdrS "
              "signature), not a multiboot kernel (no multiboot header in "
              "the first 8 KiB) and not a PVH ELF (no Xen PHYS32_ENTRY "
              "note)");
}

/* pvh_load() itself: 0 and no write for an image without the note. */
static void test_pvh_not_pvh(void)
{
    Boot b;

    boot_init(&b, 16 * MIB);
    b.cfg.kernel_filename = "raw";
    g_assert_cmpint(pvh_load(&b.cfg, (const uint8_t *)"\x7f" "ELF", 4,
                             &b.mem, &b.st, NULL, &b.err), ==, 0);
    g_assert_null(b.err);
    g_assert_cmpuint(b.st.ranges->len, ==, 0);
    boot_free(&b);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/loaders/pvh/find-entry", test_pvh_find_entry);
    g_test_add_func("/loaders/pvh/elf64", test_pvh_elf64);
    g_test_add_func("/loaders/pvh/elf32", test_pvh_elf32);
    g_test_add_func("/loaders/pvh/multiboot-wins", test_pvh_multiboot_wins);
    g_test_add_func("/loaders/pvh/errors", test_pvh_errors);
    g_test_add_func("/loaders/pvh/not-pvh", test_pvh_not_pvh);
    return loader_test_run();
}
