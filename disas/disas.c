/*
 * x86 disassembly through capstone (AT&T syntax, as QEMU's logs), one
 * handle per mode made on first use. Used by the logs only: never on a
 * path the guest's speed depends on.
 */
#include "config-host.h"
#include "disas/disas.h"

#if CONFIG_CAPSTONE
#include <capstone/capstone.h>

static csh handle_for(unsigned bits)
{
    static csh handles[3];
    static bool tried[3];
    unsigned i = bits == 16 ? 0 : bits == 32 ? 1 : 2;

    if (!tried[i]) {
        cs_mode mode = bits == 16 ? CS_MODE_16 :
                       bits == 32 ? CS_MODE_32 : CS_MODE_64;

        tried[i] = true;
        if (cs_open(CS_ARCH_X86, mode, &handles[i]) != CS_ERR_OK) {
            handles[i] = 0;
        } else {
            cs_option(handles[i], CS_OPT_SYNTAX, CS_OPT_SYNTAX_ATT);
        }
    }
    return handles[i];
}

bool disas_available(void)
{
    return true;
}

unsigned disas_x86_one(const uint8_t *code, size_t len, uint64_t addr,
                       unsigned bits, GString *out)
{
    csh h = handle_for(bits);
    cs_insn *insn;
    unsigned size;

    if (!h || cs_disasm(h, code, len, addr, 1, &insn) != 1) {
        return 0;
    }
    size = insn->size;
    g_string_append(out, insn->mnemonic);
    if (insn->op_str[0]) {
        g_string_append_printf(out, " %s", insn->op_str);
    }
    cs_free(insn, 1);
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
