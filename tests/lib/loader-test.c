/*
 * Shared helpers of the loader unit tests.
 */
#include "loader-test.h"

char *tmp_dir;

/* --- guest RAM as a buffer --- */


bool test_ram_write(void *opaque, uint64_t addr, const void *buf,
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


void boot_init(Boot *b, uint64_t ram_size)
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

void boot_free(Boot *b)
{
    x86_boot_state_free(&b->st);
    x86_boot_fw_cfg_free(&b->fw);
    g_free(b->ram.ram);
    if (b->err) {
        error_free(b->err);
    }
}

bool boot_load(Boot *b)
{
    return x86_boot_load_kernel(&b->cfg, &b->mem, &b->st, &b->fw, &b->err);
}

void boot_ok(Boot *b)
{
    bool ok = boot_load(b);

    if (!ok) {
        g_test_message("unexpected error: %s", error_get_pretty(b->err));
    }
    g_assert_true(ok);
    g_assert_null(b->err);
}

/* The load fails with exactly msg (PATH stands for the kernel's path). */
void boot_fails(Boot *b, const char *msg)
{
    g_autofree char *want = NULL;
    GString *s = g_string_new(msg);

    g_string_replace(s, "PATH", b->cfg.kernel_filename, 0);
    want = g_string_free(s, false);
    g_assert_false(boot_load(b));
    g_assert_nonnull(b->err);
    g_assert_cmpstr(error_get_pretty(b->err), ==, want);
}

uint32_t ram_l(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr + 4, <=, b->ram.size);
    return x86_boot_ldl(b->ram.ram + addr);
}

uint64_t ram_q(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr + 8, <=, b->ram.size);
    return x86_boot_ldq(b->ram.ram + addr);
}

const char *ram_str(Boot *b, uint64_t addr)
{
    g_assert_cmpuint(addr, <, b->ram.size);
    g_assert_nonnull(memchr(b->ram.ram + addr, 0, b->ram.size - addr));
    return (const char *)b->ram.ram + addr;
}

bool ram_all(Boot *b, uint64_t addr, uint64_t len, uint8_t v)
{
    uint64_t i;

    for (i = 0; i < len; i++) {
        if (b->ram.ram[addr + i] != v) {
            return false;
        }
    }
    return true;
}

const X86BootRange *find_range(Boot *b, const char *what,
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

uint32_t fw_i32(Boot *b, uint16_t key)
{
    const X86BootFwCfgItem *it = x86_boot_fw_cfg_find(&b->fw, key);

    g_assert_nonnull(it);
    g_assert_cmpuint(it->len, ==, 4);
    return x86_boot_ldl(it->data);
}

/* --- files --- */

char *write_file(const char *name, const void *data, size_t len)
{
    char *path = g_build_filename(tmp_dir, name, NULL);
    GError *gerr = NULL;

    g_assert_true(g_file_set_contents(path, data, len, &gerr));
    return path;
}

char *write_pattern_file(const char *name, size_t len, uint8_t seed)
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

void put_mb_header(uint8_t *p, uint32_t flags)
{
    x86_boot_stl(p, MULTIBOOT_HEADER_MAGIC);
    x86_boot_stl(p + 4, flags);
    x86_boot_stl(p + 8, -(MULTIBOOT_HEADER_MAGIC + flags));
}

/* --- multiboot ELF32 images --- */



ElfSpec elf_spec_default(void)
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

void put_phdr(uint8_t *ph, uint32_t off, uint32_t vaddr,
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

char *write_mb_elf(const char *name, const ElfSpec *s)
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



AoutSpec aout_spec_default(void)
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

char *write_mb_aout(const char *name, const AoutSpec *s)
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

int loader_test_run(void)
{
    int ret;

    tmp_dir = g_dir_make_tmp("test-loaders-XXXXXX", NULL);
    g_assert_nonnull(tmp_dir);
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
