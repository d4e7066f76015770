/*
 * x86 disassembly through capstone (AT&T syntax, as QEMU's logs). Used by
 * the logs only: never on a path the guest's speed depends on.
 *
 * The build compiles against capstone's header but does not link the
 * library: libcapstone.so.4 is 6.5 MB of text and tables, and under
 * -overcommit mem-lock=on everything mapped is locked, so it is opened
 * with dlopen() the first time something asks for disassembly (-d in_asm
 * under tcg), with one handle per mode. If it cannot be opened, one line
 * says so and the log keeps giving the bytes alone.
 */
#include "config-host.h"
#include "disas/disas.h"

#if CONFIG_CAPSTONE
#include <dlfcn.h>
#include <capstone/capstone.h>

#include "qemu/error.h"

/* The soname of the major version the header describes (cs_insn's layout). */
#define CAPSTONE_SONAME "libcapstone.so." G_STRINGIFY(CS_API_MAJOR)

typedef struct Capstone {
    __typeof__(cs_version) *cs_version;
    __typeof__(cs_open) *cs_open;
    __typeof__(cs_option) *cs_option;
    __typeof__(cs_disasm) *cs_disasm;
    __typeof__(cs_free) *cs_free;
    csh handles[3];                     /* 16-, 32-, 64-bit code */
    char *why;                          /* set when it could not be loaded */
} Capstone;

static Capstone cs;

static bool capstone_sym(void *lib, const char *name, void **fn)
{
    *fn = dlsym(lib, name);
    if (!*fn) {
        cs.why = g_strdup_printf("%s has no %s", CAPSTONE_SONAME, name);
        return false;
    }
    return true;
}

static bool capstone_load(void)
{
    static const cs_mode modes[3] = { CS_MODE_16, CS_MODE_32, CS_MODE_64 };
    void *lib;
    int major, minor;

    lib = dlopen(CAPSTONE_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        cs.why = g_strdup(dlerror());
        return false;
    }
    if (!capstone_sym(lib, "cs_version", (void **)&cs.cs_version) ||
        !capstone_sym(lib, "cs_open", (void **)&cs.cs_open) ||
        !capstone_sym(lib, "cs_option", (void **)&cs.cs_option) ||
        !capstone_sym(lib, "cs_disasm", (void **)&cs.cs_disasm) ||
        !capstone_sym(lib, "cs_free", (void **)&cs.cs_free)) {
        dlclose(lib);
        return false;
    }
    cs.cs_version(&major, &minor);
    if (major != CS_API_MAJOR) {
        cs.why = g_strdup_printf("%s is capstone %d.%d, the build has "
                                 "capstone %d's header", CAPSTONE_SONAME,
                                 major, minor, CS_API_MAJOR);
        dlclose(lib);
        return false;
    }
    for (unsigned i = 0; i < 3; i++) {
        if (cs.cs_open(CS_ARCH_X86, modes[i], &cs.handles[i])
            != CS_ERR_OK) {
            cs.handles[i] = 0;
        } else {
            cs.cs_option(cs.handles[i], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
        }
    }
    /* Kept open for the rest of the run: the handles live in it. */
    return true;
}

/* Loads the library on the first call; whether it is there. */
static bool capstone_get(void)
{
    static gsize state;                 /* 0 unknown, 1 loaded, 2 missing */

    if (g_once_init_enter(&state)) {
        g_once_init_leave(&state, capstone_load() ? 1 : 2);
    }
    return state == 1;
}

bool disas_available(void)
{
    return capstone_get();
}

unsigned disas_x86_one(const uint8_t *code, size_t len, uint64_t addr,
                       unsigned bits, GString *out)
{
    static gsize reported;
    unsigned i = bits == 16 ? 0 : bits == 32 ? 1 : 2;
    cs_insn *insn;
    unsigned size;

    if (!capstone_get()) {
        if (g_once_init_enter(&reported)) {
            warn_report("-d in_asm: disassembly needs %s (Debian: "
                        "libcapstone%d): %s; the log gives the bytes only",
                        CAPSTONE_SONAME, CS_API_MAJOR, cs.why);
            g_once_init_leave(&reported, 1);
        }
        return 0;
    }
    /* One caller at a time: the log is written by the one tcg thread. */
    if (!cs.handles[i] ||
        cs.cs_disasm(cs.handles[i], code, len, addr, 1, &insn) != 1) {
        return 0;
    }
    size = insn->size;
    g_string_append(out, insn->mnemonic);
    if (insn->op_str[0]) {
        g_string_append_printf(out, " %s", insn->op_str);
    }
    cs.cs_free(insn, 1);
    return size;
}

#else

bool disas_available(void)
{
    return false;
}

unsigned disas_x86_one(const uint8_t *code, size_t len, uint64_t addr,
                       unsigned bits, GString *out)
{
    return 0;
}

#endif
