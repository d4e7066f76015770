/*
 * The decoder against an independent one: random byte sequences (the
 * random-code fuzzer's kind) decoded by the software CPU's decoder and
 * by capstone, in 64-, 32- and 16-bit code; where ours decodes an
 * instruction (not #UD), both must agree on its length. Capstone's
 * opinion where ours raises #UD is not checked (it knows instruction
 * sets CPUID does not offer here), nor the instructions it rejects.
 *
 * Left out in 64-bit code: an operand-size prefix on near branches,
 * push imm and ret imm16. AMD honours it on near branches (16-bit
 * target) where Intel ignores it, so the length is the vendor's choice,
 * and capstone 4 also reads an imm32 for 66 68 and for c2 with REX.W or
 * 66, which take an imm16 on both vendors. In every mode: 66 with f2 or
 * f3 (bnd/rep) on a near branch, where capstone 4 drops the 66.
 *
 * Skipped when the build has no capstone. DECODE_ORACLE_CASES sets the
 * number of cases per mode (default 100000), DECODE_ORACLE_SEED the
 * seed.
 */
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>

#include <glib.h>

#include "disas/disas.h"
#include "target/i386/tcg/ops.h"
#include "tcg-harness.h"

#define CODE_BYTES  16

typedef struct OracleMode {
    const char *name;
    THMode mode;
    unsigned bits;
} OracleMode;

static const OracleMode modes[] = {
    { "64", TH_LONG, 64 },
    { "32", TH_PROT32, 32 },
    { "16", TH_PROT16, 16 },
};

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = g_getenv(name);

    return v ? g_ascii_strtoull(v, NULL, 0) : def;
}

/* Random bytes, with prefixes and escape bytes more often than chance. */
static void random_code(GRand *r, uint8_t *code)
{
    static const uint8_t common[] = {
        0x66, 0x67, 0xf2, 0xf3, 0xf0, 0x2e, 0x3e, 0x26, 0x36, 0x64, 0x65,
        0x0f, 0x0f, 0x0f, 0x48, 0x41, 0x4c, 0x38, 0x3a,
    };

    for (unsigned i = 0; i < CODE_BYTES; i++) {
        code[i] = g_rand_int(r);
        if (i < 4 && g_rand_int_range(r, 0, 3) == 0) {
            code[i] = common[g_rand_int_range(r, 0, G_N_ELEMENTS(common))];
        }
    }
}

/* Whether code is one of the 64-bit forms the header leaves out. */
static bool vendor_or_capstone_quirk(const uint8_t *code, unsigned bits)
{
    bool p66 = false, rep = false, rex_w = false, branch;
    unsigned i = 0;

    for (; i < CODE_BYTES; i++) {
        uint8_t b = code[i];

        if ((b & 0xf0) == 0x40) {
            rex_w = b & 8;              /* a REX counts when last */
            continue;
        }
        if (!(b == 0x66 || b == 0x67 || b == 0xf0 || b == 0xf2 ||
              b == 0xf3 || b == 0x26 || b == 0x2e || b == 0x36 ||
              b == 0x3e || b == 0x64 || b == 0x65)) {
            break;
        }
        p66 |= b == 0x66;
        rep |= b == 0xf2 || b == 0xf3;
        rex_w = false;
    }
    if (i + 1 >= CODE_BYTES || !(p66 || rex_w)) {
        return false;
    }
    branch = code[i] == 0xe8 || code[i] == 0xe9 ||
             (code[i] == 0x0f && (code[i + 1] & 0xf0) == 0x80);
    if (branch && p66 && rep) {
        return true;
    }
    if (bits != 64) {
        return false;
    }
    return (code[i] == 0xc2 && (p66 || rex_w)) ||
           (p66 && (branch || code[i] == 0x68));
}

/* Our length of the instruction at the harness's rip, 0 for none (#UD). */
static unsigned our_length(TcgHarness *h)
{
    static DecodedBlock db;

    if (setjmp(h->env->jmp_env)) {
        return 0;                       /* a fetch fault: not a length */
    }
    x86_decode_block(h->env, &db, 1);
    if (db.n != 1 || db.insns[0].fn == op_ud || db.insns[0].fn == op_gp0) {
        return 0;
    }
    return db.insns[0].len;
}

static void test_lengths(gconstpointer data)
{
    const OracleMode *m = data;
    uint64_t cases = env_u64("DECODE_ORACLE_CASES", 100000);
    uint64_t seed = env_u64("DECODE_ORACLE_SEED", 1);
    TcgHarness *h = th_get();
    uint64_t compared = 0, failures = 0;
    GRand *r = g_rand_new_with_seed((guint32)seed);
    uint64_t pa = m->mode == TH_PROT16 ? TH_CODE16 : TH_CODE;

    if (!disas_available()) {
        g_test_skip("built without capstone (libcapstone-dev)");
        return;
    }
    for (uint64_t i = 0; i < cases && failures < 20; i++) {
        uint8_t code[CODE_BYTES];
        g_autoptr(GString) text = g_string_new(NULL);
        unsigned ours, theirs;

        random_code(r, code);
        th_set_mode(h, m->mode);
        th_write(h, pa, code, sizeof(code));
        ours = our_length(h);
        if (!ours) {
            continue;
        }
        theirs = disas_x86_one(code, sizeof(code), h->env->rip, m->bits,
                               text);
        if (!theirs || vendor_or_capstone_quirk(code, m->bits)) {
            continue;
        }
        compared++;
        if (theirs != ours) {
            GString *hex = g_string_new(NULL);

            for (unsigned k = 0; k < sizeof(code); k++) {
                g_string_append_printf(hex, " %02x", code[k]);
            }
            g_test_message("%s-bit:%s: ours %u bytes, capstone %u (%s)",
                           m->name, hex->str, ours, theirs,
                           text->str);
            g_string_free(hex, true);
            failures++;
        }
    }
    g_rand_free(r);
    g_test_message("%s-bit code: %" G_GUINT64_FORMAT " cases, %"
                   G_GUINT64_FORMAT " compared, %" G_GUINT64_FORMAT
                   " length mismatches (seed %" G_GUINT64_FORMAT ")",
                   m->name, cases, compared, failures, seed);
    g_assert_cmpuint(failures, ==, 0);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (unsigned i = 0; i < G_N_ELEMENTS(modes); i++) {
        g_autofree char *path = g_strdup_printf("/tcg/decode-oracle/%s-bit",
                                                modes[i].name);

        g_test_add_data_func(path, &modes[i], test_lengths);
    }
    return g_test_run();
}
