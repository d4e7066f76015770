/*
 * Shared helpers of the loader unit tests (test-multiboot.c,
 * test-linux-boot.c, test-pvh.c): guest RAM as a buffer, one boot under
 * test, and kernel images built byte by byte.
 */
#ifndef TESTS_UNIT_LOADER_TEST_H
#define TESTS_UNIT_LOADER_TEST_H

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

/* The temporary directory the tests write their images to. */
extern char *tmp_dir;

typedef struct TestRam {
    uint8_t *ram;
    uint64_t size;
} TestRam;

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

bool test_ram_write(void *opaque, uint64_t addr, const void *buf,
                    uint64_t len);
void boot_init(Boot *b, uint64_t ram_size);
void boot_free(Boot *b);
bool boot_load(Boot *b);
void boot_ok(Boot *b);
void boot_fails(Boot *b, const char *msg);
uint32_t ram_l(Boot *b, uint64_t addr);
uint64_t ram_q(Boot *b, uint64_t addr);
const char *ram_str(Boot *b, uint64_t addr);
bool ram_all(Boot *b, uint64_t addr, uint64_t len, uint8_t v);
const X86BootRange *find_range(Boot *b, const char *what,
                               unsigned nth);
uint32_t fw_i32(Boot *b, uint16_t key);
char *write_file(const char *name, const void *data, size_t len);
char *write_pattern_file(const char *name, size_t len, uint8_t seed);
void put_mb_header(uint8_t *p, uint32_t flags);
ElfSpec elf_spec_default(void);
void put_phdr(uint8_t *ph, uint32_t off, uint32_t vaddr,
              uint32_t paddr, uint32_t filesz, uint32_t memsz,
              uint32_t flags);
char *write_mb_elf(const char *name, const ElfSpec *s);
AoutSpec aout_spec_default(void);
char *write_mb_aout(const char *name, const AoutSpec *s);

/* g_test_run() inside a fresh temporary directory, removed after. */
int loader_test_run(void);

#endif
