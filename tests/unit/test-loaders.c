/*
 * Unit tests of the x86 kernel loaders (hw/i386/multiboot.c,
 * hw/i386/linux-boot.c, hw/i386/pvh.c, hw/i386/x86-boot.c). Kernel
 * images are built here byte by byte, written to a temporary directory,
 * and loaded into a plain buffer standing in for guest RAM; the tests
 * then read back what the guest would see: segments, BSS, the multiboot
 * information and memory map, boot_params, page tables, the PVH
 * start_info and memory map, the entry state, fw_cfg items, and the
 * exact message of every rejected image.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "hw/i386/linux-boot.h"
#include "hw/i386/multiboot.h"
#include "hw/i386/pvh.h"
#include "hw/i386/x86-boot.h"
#include "hw/nvram/fw_cfg.h"

#define MIB             0x100000ULL

static char *tmp_dir;

/* --- guest RAM as a buffer --- */

typedef struct TestRam {
    uint8_t *ram;
    uint64_t size;
} TestRam;

static bool test_ram_write(void *opaque, uint64_t addr, const void *buf,
                           uint64_t len)
{
    TestRam *r = opaque;

    if (addr > r->size || len > r->size - addr) {
        return false;
    }
    if (buf) {
        memcpy(r->ram + addr, buf, len);
    } else {
        memset(r->ram + addr, 0, len);
    }
    return true;
}

/* One boot under test: RAM, the PC's e820 for it, config and results. */
typedef struct Boot {
    TestRam ram;
    GuestMemory mem;
    X86BootE820Entry e820[4];
    X86BootConfig cfg;
    X86BootState st;
    X86BootFwCfg fw;
    Error *err;
} Boot;

static void boot_init(Boot *b, uint64_t ram_size)
{
    memset(b, 0, sizeof(*b));
    b->ram.size = ram_size;
    b->ram.ram = g_malloc(ram_size);
    /* Stale contents, so zeroing (BSS) is visible. */
    memset(b->ram.ram, 0xee, ram_size);
    b->mem.write = test_ram_write;
    b->mem.opaque = &b->ram;
    /* The PC's map: EBDA and BIOS reserved, RAM from 1 MiB. */
    b->e820[0] = (X86BootE820Entry){ 0, 0x9fc00, E820_RAM };
    b->e820[1] = (X86BootE820Entry){ 0x9fc00, 0x400, E820_RESERVED };
    b->e820[2] = (X86BootE820Entry){ 0xf0000, 0x10000, E820_RESERVED };
    b->e820[3] = (X86BootE820Entry){ MIB, ram_size - MIB, E820_RAM };
    b->cfg.e820 = b->e820;
    b->cfg.e820_entries = 4;
    x86_boot_state_init(&b->st);
}

static void boot_free(Boot *b)
{
    x86_boot_state_free(&b->st);
    x86_boot_fw_cfg_free(&b->fw);
    g_free(b->ram.ram);
    if (b->err) {
        error_free(b->err);
    }
}

static bool boot_load(Boot *b)
{
    return x86_boot_load_kernel(&b->cfg, &b->mem, &b->st, &b->fw, &b->err);
}

static void boot_ok(Boot *b)
{
    bool ok = boot_load(b);

    if (!ok) {
        g_test_message("unexpected error: %s", error_get_pretty(b->err));
    }
    g_assert_true(ok);
    g_assert_null(b->err);
}

/* The load fails with exactly msg (PATH stands for the kernel's path). */
static void boot_fails(Boot *b, const char *msg)
{
    g_autofree char *want = NULL;
    GString *s = g_string_new(msg);

    g_string_replace(s, "PATH", b->cfg.kernel_filename, 0);
    want = g_string_free(s, false);
    g_assert_false(boot_load(b));
    g_assert_nonnull(b->err);
    g_assert_cmpstr(error_get_pretty(b->err), ==, want);
}

static uint32_t ram_l(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr + 4, <=, b->ram.size);
    return x86_boot_ldl(b->ram.ram + addr);
}

static uint64_t ram_q(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr + 8, <=, b->ram.size);
    return x86_boot_ldq(b->ram.ram + addr);
}

static const char *ram_str(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr, <, b->ram.size);
    g_assert_nonnull(memchr(b->ram.ram + addr, 0, b->ram.size - addr));
    return (const char *)b->ram.ram + addr;
}

static bool ram_all(Boot *b, uint64_t addr, uint64_t len, uint8_t v)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        if (b->ram.ram[addr + i] != v) {
            return false;
        }
    }
    return true;
}

static const X86BootRange *find_range(Boot *b, const char *what,
                                      unsigned nth)
{
    unsigned i;

    for (i = 0; i < b->st.ranges->len; i++) {
        const X86BootRange *r = &g_array_index(b->st.ranges, X86BootRange,
                                               i);
        if (!strcmp(r->what, what) && nth-- == 0) {
            return r;
        }
    }
    return NULL;
}

static uint32_t fw_i32(Boot *b, uint16_t key)
{
    const X86BootFwCfgItem *it = x86_boot_fw_cfg_find(&b->fw, key);

    g_assert_nonnull(it);
    g_assert_cmpuint(it->len, ==, 4);
    return x86_boot_ldl(it->data);
}

/* --- files --- */

static char *write_file(const char *name, const void *data, size_t len)
{
    char *path = g_build_filename(tmp_dir, name, NULL);
    GError *gerr = NULL;

    g_assert_true(g_file_set_contents(path, data, len, &gerr));
    return path;
}

static char *write_pattern_file(const char *name, size_t len, uint8_t seed)
{
    uint8_t *data = g_malloc(len ? len : 1);
    char *path;
    size_t i;

    for (i = 0; i < len; i++) {
        data[i] = seed + i * 7;
    }
    path = write_file(name, data, len);
    g_free(data);
    return path;
}

static void put_mb_header(uint8_t *p, uint32_t flags)
{
    x86_boot_stl(p, MULTIBOOT_HEADER_MAGIC);
    x86_boot_stl(p + 4, flags);
    x86_boot_stl(p + 8, -(MULTIBOOT_HEADER_MAGIC + flags));
}

/* --- multiboot ELF32 images --- */

#define ELF_TEXT_OFF    0x1000
#define ELF_TEXT_SIZE   0x800
#define ELF_DATA_OFF    0x1800
#define ELF_DATA_FILESZ 0x100
#define ELF_DATA_MEMSZ  0x3000
#define ELF_FILE_SIZE   0x1900
#define ELF_TEXT_PADDR  0x200000
#define ELF_DATA_PADDR  0x201000

typedef struct ElfSpec {
    uint32_t text_vaddr, text_paddr, data_paddr;
    uint32_t entry;
    uint8_t class;              /* 1 or 2 */
    uint16_t machine;
    uint32_t mb_flags;
    size_t file_size;           /* cut the file here (truncation tests) */
    uint32_t data_offset;
} ElfSpec;

static ElfSpec elf_spec_default(void)
{
    ElfSpec s = {
        .text_vaddr = ELF_TEXT_PADDR,
        .text_paddr = ELF_TEXT_PADDR,
        .data_paddr = ELF_DATA_PADDR,
        .entry = ELF_TEXT_PADDR + 0x10,
        .class = 1,
        .machine = 3,
        .mb_flags = 0x3,        /* page-align modules, memory info */
        .file_size = ELF_FILE_SIZE,
        .data_offset = ELF_DATA_OFF,
    };
    return s;
}

static void put_phdr(uint8_t *ph, uint32_t off, uint32_t vaddr,
                     uint32_t paddr, uint32_t filesz, uint32_t memsz,
                     uint32_t flags)
{
    x86_boot_stl(ph + 0, 1);            /* PT_LOAD */
    x86_boot_stl(ph + 4, off);
    x86_boot_stl(ph + 8, vaddr);
    x86_boot_stl(ph + 12, paddr);
    x86_boot_stl(ph + 16, filesz);
    x86_boot_stl(ph + 20, memsz);
    x86_boot_stl(ph + 24, flags);
    x86_boot_stl(ph + 28, 0x1000);
}

static char *write_mb_elf(const char *name, const ElfSpec *s)
{
    uint8_t *f = g_malloc0(ELF_FILE_SIZE);
    char *path;

    memcpy(f, "\x7f" "ELF", 4);
    f[4] = s->class;
    f[5] = 1;                           /* little endian */
    f[6] = 1;
    x86_boot_stl(f + 16, 2 | (s->machine << 16));  /* ET_EXEC, e_machine */
    x86_boot_stl(f + 20, 1);
    x86_boot_stl(f + 24, s->entry);
    x86_boot_stl(f + 28, 52);                       /* e_phoff */
    f[40] = 52;                                     /* e_ehsize */
    f[42] = 32;                                     /* e_phentsize */
    f[44] = 3;                                      /* e_phnum */
    put_phdr(f + 52, ELF_TEXT_OFF, s->text_vaddr, s->text_paddr,
             ELF_TEXT_SIZE, ELF_TEXT_SIZE, 5);      /* R+X */
    put_phdr(f + 84, s->data_offset, s->data_paddr, s->data_paddr,
             ELF_DATA_FILESZ, ELF_DATA_MEMSZ, 6);   /* R+W, with BSS */
    x86_boot_stl(f + 116, 4);                       /* PT_NOTE: skipped */
    memset(f + ELF_TEXT_OFF, 0xab, ELF_TEXT_SIZE);
    memset(f + ELF_DATA_OFF, 0xcd, ELF_DATA_FILESZ);
    put_mb_header(f + ELF_TEXT_OFF, s->mb_flags);
    path = write_file(name, f, s->file_size);
    g_free(f);
    return path;
}

/* --- multiboot a.out-kludge images --- */

#define AOUT_HDR_OFF    0x40
#define AOUT_LOAD       0x100000
#define AOUT_LOAD_SIZE  0x400
#define AOUT_FILE_SIZE  0x600
#define AOUT_BSS_END    0x102000
#define AOUT_ENTRY      0x100080

typedef struct AoutSpec {
    uint32_t header_addr, load_addr, load_end, bss_end, entry;
    uint32_t flags;
    size_t file_size;
} AoutSpec;

static AoutSpec aout_spec_default(void)
{
    AoutSpec s = {
        .header_addr = AOUT_LOAD + AOUT_HDR_OFF,
        .load_addr = AOUT_LOAD,
        .load_end = AOUT_LOAD + AOUT_LOAD_SIZE,
        .bss_end = AOUT_BSS_END,
        .entry = AOUT_ENTRY,
        .flags = 0x10003,
        .file_size = AOUT_FILE_SIZE,
    };
    return s;
}

static char *write_mb_aout(const char *name, const AoutSpec *s)
{
    uint8_t *f = g_malloc(AOUT_FILE_SIZE);
    uint8_t *h = f + AOUT_HDR_OFF;
    char *path;
    size_t i;

    for (i = 0; i < AOUT_FILE_SIZE; i++) {
        f[i] = i < AOUT_LOAD_SIZE ? 0x5a : 0x77;    /* 0x77: not loaded */
    }
    put_mb_header(h, s->flags);
    x86_boot_stl(h + 12, s->header_addr);
    x86_boot_stl(h + 16, s->load_addr);
    x86_boot_stl(h + 20, s->load_end);
    x86_boot_stl(h + 24, s->bss_end);
    x86_boot_stl(h + 28, s->entry);
    path = write_file(name, f, s->file_size);
    g_free(f);
    return path;
}

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

static void check_mb_info_common(Boot *b, uint32_t ram_size)
{
    uint64_t mbi = MULTIBOOT_INFO_ADDR;
    unsigned i;

    g_assert_cmpuint(b->st.mode, ==, X86_BOOT_MODE_PROTECTED32);
    g_assert_cmphex(b->st.rax, ==, 0x2BADB002);
    g_assert_cmphex(b->st.rbx, ==, mbi);
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
    g_assert_cmphex(ram_l(b, mbi + 48), ==, MULTIBOOT_MMAP_ADDR);
    g_assert_cmpuint(ram_l(b, mbi + 44), ==, 4 * 24);
    for (i = 0; i < 4; i++) {
        uint64_t e = MULTIBOOT_MMAP_ADDR + i * 24;

        g_assert_cmpuint(ram_l(b, e), ==, 20);
        g_assert_cmphex(ram_q(b, e + 4), ==, b->e820[i].addr);
        g_assert_cmphex(ram_q(b, e + 12), ==, b->e820[i].len);
        g_assert_cmpuint(ram_l(b, e + 20), ==, b->e820[i].type);
    }
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
    check_mb_info_common(&b, 32 * MIB);
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
    check_mb_info_common(&b, 16 * MIB);
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
    /* Over the multiboot structures QEMU keeps at 0x9000. */
    e = elf_spec_default();
    e.text_paddr = 0x8c00;
    e.text_vaddr = 0x8c00;
    e.entry = 0x8c00;
    mb_elf_error(&e, 32 * MIB, "kernel at 0x8c00-0x93ff overlaps "
                 "multiboot memory map at 0x9000-0x905f");
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
    int ret;

    g_test_init(&argc, &argv, NULL);
    tmp_dir = g_dir_make_tmp("test-loaders-XXXXXX", NULL);
    g_assert_nonnull(tmp_dir);

    g_test_add_func("/loaders/e820", test_e820_helpers);
    g_test_add_func("/loaders/multiboot/find-header", test_mb_find_header);
    g_test_add_func("/loaders/multiboot/elf", test_mb_elf);
    g_test_add_func("/loaders/multiboot/elf-entry-translation",
                    test_mb_elf_entry_translation);
    g_test_add_func("/loaders/multiboot/aout", test_mb_aout);
    g_test_add_func("/loaders/multiboot/aout-whole-file",
                    test_mb_aout_no_load_end);
    g_test_add_func("/loaders/multiboot/modules", test_mb_modules);
    g_test_add_func("/loaders/multiboot/fw-cfg", test_mb_fw_cfg);
    g_test_add_func("/loaders/multiboot/vbe-warning", test_mb_vbe_warning);
    g_test_add_func("/loaders/multiboot/errors", test_mb_errors);
    g_test_add_func("/loaders/multiboot/not-elf", test_mb_not_elf);
    g_test_add_func("/loaders/multiboot/missing-module",
                    test_mb_missing_module);
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
    g_test_add_func("/loaders/pvh/find-entry", test_pvh_find_entry);
    g_test_add_func("/loaders/pvh/elf64", test_pvh_elf64);
    g_test_add_func("/loaders/pvh/elf32", test_pvh_elf32);
    g_test_add_func("/loaders/pvh/multiboot-wins", test_pvh_multiboot_wins);
    g_test_add_func("/loaders/pvh/errors", test_pvh_errors);
    g_test_add_func("/loaders/pvh/not-pvh", test_pvh_not_pvh);

    ret = g_test_run();

    /* Remove what the tests wrote (files only, no subdirectories). */
    {
        GDir *d = g_dir_open(tmp_dir, 0, NULL);
        const char *name;

        while (d && (name = g_dir_read_name(d))) {
            g_autofree char *p = g_build_filename(tmp_dir, name, NULL);
            g_unlink(p);
        }
        if (d) {
            g_dir_close(d);
        }
        g_rmdir(tmp_dir);
        g_free(tmp_dir);
    }
    return ret;
}
