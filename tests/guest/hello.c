/*
 * hello: prints what the multiboot loader handed over (EAX, the info
 * structure, the memory map, cmdline and modules) so a test can compare
 * it with what the loader should have built.  Addresses chosen by the
 * loader (info, cmdline, module placement) are not printed; module
 * contents are, as a size and an FNV-1a hash.
 */
#include "guest.h"

const char guest_name[] = "hello";

static uint32_t fnv1a(const uint8_t *p, size_t n)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++) {
        h = (h ^ p[i]) * 16777619u;
    }
    return h;
}

/* "<path> <args>": print the path's basename and the rest apart. */
static void print_cmdline(const char *what, const char *cmdline)
{
    const char *base = cmdline, *p = cmdline;

    for (; *p && *p != ' '; p++) {
        if (*p == '/') {
            base = p + 1;
        }
    }
    printf("hello: %s ", what);
    for (const char *q = base; q < p; q++) {
        serial_putc(*q);
    }
    while (*p == ' ') {
        p++;
    }
    printf(" args \"%s\"\n", p);
}

static bool print_mmap(struct mb_info *mb)
{
    uintptr_t p = mb->mmap_addr, end = p + mb->mmap_length;
    bool low_ram = false;

    while (p < end) {
        struct mb_mmap_entry *e = (struct mb_mmap_entry *)p;
        printf("hello: mmap 0x%016lx-0x%016lx type %u\n",
               e->addr, e->addr + e->len - 1, e->type);
        if (e->type == MB_MEMORY_AVAILABLE && e->addr <= MiB &&
            e->addr + e->len > MiB) {
            low_ram = true;
        }
        p += e->size + 4;
    }
    return low_ram;
}

void guest_main(uint32_t magic, struct mb_info *mb)
{
    const uint32_t needed = MB_INFO_MEMORY | MB_INFO_CMDLINE | MB_INFO_MEM_MAP;

    printf("hello: guest kit hello, multiboot v1, long mode\n");
    printf("hello: magic 0x%x\n", magic);
    printf("hello: flags 0x%x\n", mb->flags);
    if ((mb->flags & needed) != needed) {
        guest_fail("flags 0x%x lack memory, cmdline or mmap", mb->flags);
    }
    printf("hello: mem_lower %u KiB mem_upper %u KiB\n",
           mb->mem_lower, mb->mem_upper);
    if (!print_mmap(mb)) {
        guest_fail("no available RAM at 1 MiB in the memory map");
    }
    if (mb->flags & MB_INFO_LOADER_NAME) {
        printf("hello: boot loader \"%s\"\n",
               (const char *)(uintptr_t)mb->boot_loader_name);
    }
    print_cmdline("kernel", (const char *)(uintptr_t)mb->cmdline);
    if (mb->flags & MB_INFO_MODS) {
        struct mb_module *m = (struct mb_module *)(uintptr_t)mb->mods_addr;
        printf("hello: modules %u\n", mb->mods_count);
        for (uint32_t i = 0; i < mb->mods_count; i++) {
            uint32_t size = m[i].mod_end - m[i].mod_start;
            print_cmdline("module", (const char *)(uintptr_t)m[i].cmdline);
            printf("hello: module %u size %u fnv1a 0x%08x%s\n", i, size,
                   fnv1a((const uint8_t *)(uintptr_t)m[i].mod_start, size),
                   m[i].mod_start & 0xfff ? " unaligned" : "");
        }
    }
    guest_pass();
}
