/*
 * Unit tests for the command-line parsers that fill a VmConfig
 * (system/vm-config.c) and for -overcommit (overcommit_parse in
 * system/vl.c). Each parser is a pure function of its argument, so
 * every accepted and rejected form is checked here without a VM.
 */
#include <stdint.h>
#include <string.h>

#include <glib.h>

#include "qemu/error.h"
#include "qemu/option.h"
#include <glib/gstdio.h>

#include "system/secret.h"
#include "system/system.h"
#include "system/vm-config.h"

#define SIZE_MESSAGE(name) \
    "Parameter '" name "' expects a non-negative number below 2^64; " \
    "optional suffix k, M, G, T, P or E means kilo-, mega-, giga-, " \
    "tera-, peta- and exabytes"
#define MEM_LOCK_MESSAGE \
    "parameter 'mem-lock' expects one of 'on', 'off', 'on-fault'"
#define ZERO_TOPOLOGY_MESSAGE \
    "Invalid CPU topology: CPU topology parameters must be greater " \
    "than zero"

/* The error must exist and read exactly msg; it is freed here. */
static void assert_error(Error *err, const char *msg)
{
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
}

/* -overcommit */

static void overcommit_ok(const char *arg, MlockState *lock, bool *pm)
{
    Error *err = NULL;

    g_assert_true(overcommit_parse(arg, lock, pm, &err));
    g_assert_null(err);
}

/* A rejected argument must leave both outputs as they were. */
static void overcommit_fails(const char *arg, const char *msg)
{
    static const struct {
        MlockState lock;
        bool pm;
    } before[] = {
        { MLOCK_OFF, false }, { MLOCK_ON, true }, { MLOCK_ON_FAULT, false },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(before); i++) {
        MlockState lock = before[i].lock;
        bool pm = before[i].pm;
        Error *err = NULL;

        g_assert_false(overcommit_parse(arg, &lock, &pm, &err));
        assert_error(err, msg);
        g_assert_cmpint(lock, ==, before[i].lock);
        g_assert_cmpint(pm, ==, before[i].pm);
    }
}

static void test_overcommit_mem_lock(void)
{
    static const struct {
        const char *arg;
        MlockState from, want;
    } cases[] = {
        { "mem-lock=on", MLOCK_OFF, MLOCK_ON },
        { "mem-lock=off", MLOCK_ON, MLOCK_OFF },
        { "mem-lock=on-fault", MLOCK_OFF, MLOCK_ON_FAULT },
        { "mem-lock=on-fault", MLOCK_ON, MLOCK_ON_FAULT },
        { "mem-lock=off", MLOCK_ON_FAULT, MLOCK_OFF },
        { "mem-lock=on", MLOCK_ON_FAULT, MLOCK_ON },
        /* The boolean spellings QEMU accepts for on and off */
        { "mem-lock=yes", MLOCK_OFF, MLOCK_ON },
        { "mem-lock=true", MLOCK_OFF, MLOCK_ON },
        { "mem-lock=no", MLOCK_ON, MLOCK_OFF },
        { "mem-lock=false", MLOCK_ON_FAULT, MLOCK_OFF },
        /* A bare key is key=on */
        { "mem-lock", MLOCK_OFF, MLOCK_ON },
        /* Repeated in one argument, the last one counts */
        { "mem-lock=on,mem-lock=off", MLOCK_OFF, MLOCK_OFF },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        MlockState lock = cases[i].from;
        bool pm = false;

        overcommit_ok(cases[i].arg, &lock, &pm);
        g_assert_cmpint(lock, ==, cases[i].want);
        /* cpu-pm was not named, so it must not move */
        g_assert_false(pm);
    }
}

static void test_overcommit_cpu_pm(void)
{
    static const struct {
        const char *arg;
        bool from, want;
    } cases[] = {
        { "cpu-pm=on", false, true },
        { "cpu-pm=off", true, false },
        { "cpu-pm=yes", false, true },
        { "cpu-pm=no", true, false },
        { "cpu-pm", false, true },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(cases); i++) {
        MlockState lock = MLOCK_ON_FAULT;
        bool pm = cases[i].from;

        overcommit_ok(cases[i].arg, &lock, &pm);
        g_assert_cmpint(pm, ==, cases[i].want);
        g_assert_cmpint(lock, ==, MLOCK_ON_FAULT);
    }
}

static void test_overcommit_both(void)
{
    MlockState lock = MLOCK_OFF;
    bool pm = false;

    overcommit_ok("mem-lock=on-fault,cpu-pm=on", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON_FAULT);
    g_assert_true(pm);

    overcommit_ok("cpu-pm=off,mem-lock=on", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON);
    g_assert_false(pm);
}

static void test_overcommit_empty(void)
{
    MlockState lock = MLOCK_ON_FAULT;
    bool pm = true;

    overcommit_ok("", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON_FAULT);
    g_assert_true(pm);

    lock = MLOCK_OFF;
    pm = false;
    overcommit_ok("", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_OFF);
    g_assert_false(pm);
}

static void test_overcommit_accumulate(void)
{
    /* -overcommit mem-lock=on -overcommit cpu-pm=on */
    MlockState lock = MLOCK_OFF;
    bool pm = false;

    overcommit_ok("mem-lock=on", &lock, &pm);
    overcommit_ok("cpu-pm=on", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON);
    g_assert_true(pm);

    overcommit_ok("mem-lock=on-fault", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON_FAULT);
    g_assert_true(pm);

    overcommit_ok("cpu-pm=off", &lock, &pm);
    g_assert_cmpint(lock, ==, MLOCK_ON_FAULT);
    g_assert_false(pm);
}

static void test_overcommit_bad_mem_lock(void)
{
    static const char *const bad[] = {
        "mem-lock=x", "mem-lock=", "mem-lock=ON", "mem-lock=onfault",
        "mem-lock=on_fault", "mem-lock=on-fault2", "mem-lock=1",
        /* Nothing is applied when any part of the argument is bad */
        "cpu-pm=on,mem-lock=x", "mem-lock=x,cpu-pm=on",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        overcommit_fails(bad[i], MEM_LOCK_MESSAGE);
    }
}

static void test_overcommit_bad_cpu_pm(void)
{
    overcommit_fails("cpu-pm=x", "Parameter 'cpu-pm' expects 'on' or 'off'");
    overcommit_fails("cpu-pm=on-fault",
                     "Parameter 'cpu-pm' expects 'on' or 'off'");
    overcommit_fails("mem-lock=on,cpu-pm=x",
                     "Parameter 'cpu-pm' expects 'on' or 'off'");
}

static void test_overcommit_unknown_key(void)
{
    overcommit_fails("foo=on", "Invalid parameter 'foo'");
    overcommit_fails("foo", "Invalid parameter 'foo'");
    overcommit_fails("mem-lock=on,foo=1", "Invalid parameter 'foo'");
    overcommit_fails("mem_lock=on", "Invalid parameter 'mem_lock'");
}

static void test_overcommit_syntax(void)
{
    overcommit_fails(",mem-lock=on", "Invalid parameter ''");
    overcommit_fails("=on", "Expected parameter name before '='");
}

static void test_mlock_state(void)
{
    g_assert_false(should_mlock(MLOCK_OFF));
    g_assert_false(is_mlock_on_fault(MLOCK_OFF));
    g_assert_true(should_mlock(MLOCK_ON));
    g_assert_false(is_mlock_on_fault(MLOCK_ON));
    g_assert_true(should_mlock(MLOCK_ON_FAULT));
    g_assert_true(is_mlock_on_fault(MLOCK_ON_FAULT));
}

/* -smp */

typedef struct SmpWant {
    unsigned cpus, maxcpus, sockets, cores, threads;
} SmpWant;

static void smp_ok(const char *arg, SmpWant want)
{
    SmpOptions smp = { 0 };
    Error *err = NULL;

    g_assert_true(smp_parse(arg, &smp, &err));
    g_assert_null(err);
    g_assert_true(smp.given);
    g_assert_true(smp_finalize(&smp, "pc", 255, &err));
    g_assert_null(err);
    g_assert_cmpuint(smp.cpus, ==, want.cpus);
    g_assert_cmpuint(smp.maxcpus, ==, want.maxcpus);
    g_assert_cmpuint(smp.sockets, ==, want.sockets);
    g_assert_cmpuint(smp.cores, ==, want.cores);
    g_assert_cmpuint(smp.threads, ==, want.threads);
}

static void smp_parse_fails(const char *arg, const char *msg)
{
    SmpOptions smp = { 0 };
    Error *err = NULL;

    g_assert_false(smp_parse(arg, &smp, &err));
    assert_error(err, msg);
    g_assert_false(smp.given);
}

static void smp_finalize_fails(const char *arg, unsigned max_cpus,
                               const char *msg)
{
    SmpOptions smp = { 0 };
    Error *err = NULL;

    g_assert_true(smp_parse(arg, &smp, &err));
    g_assert_null(err);
    g_assert_false(smp_finalize(&smp, "pc", max_cpus, &err));
    assert_error(err, msg);
}

static void test_smp_cpus(void)
{
    /* Since QEMU 6.2 the missing level is cores, not sockets */
    smp_ok("4", (SmpWant){ 4, 4, 1, 4, 1 });
    smp_ok("cpus=4", (SmpWant){ 4, 4, 1, 4, 1 });
    smp_ok("1", (SmpWant){ 1, 1, 1, 1, 1 });
}

static void test_smp_sockets(void)
{
    smp_ok("cpus=4,sockets=2", (SmpWant){ 4, 4, 2, 2, 1 });
    smp_ok("4,sockets=2", (SmpWant){ 4, 4, 2, 2, 1 });
    /* Cores given: sockets are what is left */
    smp_ok("8,cores=2", (SmpWant){ 8, 8, 4, 2, 1 });
    /* Sockets and cores given: threads are what is left */
    smp_ok("8,sockets=2,cores=2", (SmpWant){ 8, 8, 2, 2, 2 });
    smp_ok("8,sockets=2,cores=2,threads=2", (SmpWant){ 8, 8, 2, 2, 2 });
    smp_ok("8,threads=2", (SmpWant){ 8, 8, 1, 4, 2 });
}

static void test_smp_topology_only(void)
{
    /* Without cpus and maxcpus, the product is the count */
    smp_ok("sockets=2,cores=3", (SmpWant){ 6, 6, 2, 3, 1 });
    smp_ok("threads=2", (SmpWant){ 2, 2, 1, 1, 2 });
}

static void test_smp_maxcpus(void)
{
    /* Hotpluggable CPUs: the topology covers maxcpus, not cpus */
    smp_ok("cpus=4,maxcpus=8", (SmpWant){ 4, 8, 1, 8, 1 });
    smp_ok("maxcpus=8", (SmpWant){ 8, 8, 1, 8, 1 });
    smp_ok("2,maxcpus=8,sockets=2", (SmpWant){ 2, 8, 2, 4, 1 });
}

static void test_smp_product(void)
{
    smp_finalize_fails("cpus=4,sockets=2,cores=3", 255,
                       "Invalid CPU topology: product of the hierarchy "
                       "must match maxcpus: sockets (2) * cores (3) * "
                       "threads (0) != maxcpus (4)");
    smp_finalize_fails("8,sockets=2,cores=2,threads=1", 255,
                       "Invalid CPU topology: product of the hierarchy "
                       "must match maxcpus: sockets (2) * cores (2) * "
                       "threads (1) != maxcpus (8)");
}

static void test_smp_maxcpus_below_cpus(void)
{
    smp_finalize_fails("cpus=8,maxcpus=4", 255,
                       "Invalid CPU topology: maxcpus must be equal to or "
                       "greater than smp: sockets (1) * cores (4) * "
                       "threads (1) == maxcpus (4) < smp_cpus (8)");
}

static void test_smp_machine_max(void)
{
    smp_finalize_fails("300", 255, "Invalid SMP CPUs 300. The max CPUs "
                       "supported by machine 'pc' is 255");
    /* maxcpus, not cpus, is what the machine must hold */
    smp_finalize_fails("2,maxcpus=16", 8, "Invalid SMP CPUs 16. The max "
                       "CPUs supported by machine 'pc' is 8");
    smp_ok("255", (SmpWant){ 255, 255, 1, 255, 1 });
}

static void test_smp_unexpected(void)
{
    smp_parse_fails("4,foo=1", "Parameter 'smp.foo' is unexpected");
    smp_parse_fails("4,clusters=1", "Parameter 'smp.clusters' is unexpected");
    /* A later bare word is a flag key, not a count */
    smp_parse_fails("4,8", "Parameter 'smp.8' is unexpected");
}

static void test_smp_not_integer(void)
{
    smp_parse_fails("four", "Parameter 'smp.cpus' expects integer");
    smp_parse_fails("4x", "Parameter 'smp.cpus' expects integer");
    smp_parse_fails("-1", "Parameter 'smp.cpus' expects integer");
    smp_parse_fails("4,cores=", "Parameter 'smp.cores' expects integer");
    smp_parse_fails("4,threads=1.5",
                    "Parameter 'smp.threads' expects integer");
    smp_parse_fails("4294967296", "Parameter 'smp.cpus' expects integer");
    smp_parse_fails("4,maxcpus=on", "Parameter 'smp.maxcpus' expects integer");
}

static void test_smp_zero(void)
{
    smp_parse_fails("4,sockets=0", ZERO_TOPOLOGY_MESSAGE);
    smp_parse_fails("4,cores=0", ZERO_TOPOLOGY_MESSAGE);
    smp_parse_fails("4,threads=0", ZERO_TOPOLOGY_MESSAGE);
    smp_parse_fails("4,dies=0",
                    "dies not supported by this machine's CPU topology");
}

static void test_smp_zero_cpus(void)
{
    /*
     * QEMU (hw/core/machine-smp.c): "explicit configuration like
     * cpus=0 is not allowed"; the rule covers cpus and maxcpus too.
     */
    smp_parse_fails("0", ZERO_TOPOLOGY_MESSAGE);
    smp_parse_fails("cpus=0,sockets=1", ZERO_TOPOLOGY_MESSAGE);
    smp_parse_fails("4,maxcpus=0", ZERO_TOPOLOGY_MESSAGE);
}

static void test_smp_dies(void)
{
    smp_parse_fails("4,dies=2",
                    "dies not supported by this machine's CPU topology");
    /* One die per socket is what a PC has, so it may be spelled out */
    smp_ok("4,dies=1", (SmpWant){ 4, 4, 1, 4, 1 });
}

/* -m */

static void memory_ok(const char *arg, MemoryOptions *mem)
{
    Error *err = NULL;

    g_assert_true(memory_parse(arg, mem, &err));
    g_assert_null(err);
    g_assert_true(mem->given);
}

/* A rejected -m leaves the previous one in force. */
static void memory_fails(const char *arg, const char *msg)
{
    MemoryOptions mem = { 0 };
    Error *err = NULL;

    memory_ok("2G", &mem);
    g_assert_false(memory_parse(arg, &mem, &err));
    assert_error(err, msg);
    g_assert_cmpuint(mem.size, ==, UINT64_C(2) << 30);
    g_assert_cmpuint(mem.slots, ==, 0);
    g_assert_cmpuint(mem.maxmem, ==, 0);
}

static void test_memory_size(void)
{
    MemoryOptions mem = { 0 };

    /* A plain number is MiB, as -m has always meant */
    memory_ok("512", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(512) << 20);
    memory_ok("size=1G", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(1) << 30);
    memory_ok("1.5G", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(3) << 29);
    memory_ok("size=2048", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(2) << 30);
    memory_ok("1M", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(1) << 20);
    g_assert_cmpuint(mem.slots, ==, 0);
    g_assert_cmpuint(mem.maxmem, ==, 0);
}

static void test_memory_hotplug(void)
{
    MemoryOptions mem = { 0 };

    memory_ok("1G,slots=2,maxmem=4G", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(1) << 30);
    g_assert_cmpuint(mem.slots, ==, 2);
    g_assert_cmpuint(mem.maxmem, ==, UINT64_C(4) << 30);

    /* maxmem equal to size is allowed */
    memory_ok("size=1G,slots=1,maxmem=1G", &mem);
    g_assert_cmpuint(mem.maxmem, ==, UINT64_C(1) << 30);
}

static void test_memory_slots_without_maxmem(void)
{
    memory_fails("1G,slots=2", "slots specified but no max-size");
}

static void test_memory_maxmem_below_size(void)
{
    memory_fails("4G,slots=2,maxmem=1G",
                 "invalid value of maxmem: maximum memory size "
                 "(0x40000000) must be at least the initial memory size "
                 "(0x100000000)");
}

static void test_memory_last_wins(void)
{
    /* -m 1G -m 2G */
    MemoryOptions mem = { 0 };

    memory_ok("1G", &mem);
    memory_ok("2G", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(2) << 30);

    /* A later -m without size keeps the size already given */
    memory_ok("slots=4,maxmem=8G", &mem);
    g_assert_cmpuint(mem.size, ==, UINT64_C(2) << 30);
    g_assert_cmpuint(mem.slots, ==, 4);
}

static void test_memory_too_small(void)
{
    memory_fails("512K", "memory size 0x80000 is less than 1 MiB");
    memory_fails("size=0.5", "memory size 0x80000 is less than 1 MiB");
    memory_fails("1B", "memory size 0x1 is less than 1 MiB");
}

static void test_memory_invalid(void)
{
    memory_fails("12Q", SIZE_MESSAGE("size"));
    memory_fails("size=", SIZE_MESSAGE("size"));
    memory_fails("1G,maxmem=4Q,slots=1", SIZE_MESSAGE("maxmem"));
    memory_fails("1G,slots=x,maxmem=4G", "Parameter 'slots' expects a number");
    memory_fails("1G,foo=1", "Invalid parameter 'foo'");
    memory_fails("16E", "Value '16E' is out of range for parameter 'size'");
    /* The MiB default unit overflows sooner than bytes would */
    memory_fails("17592186044416",
                 "Value '17592186044416' is out of range for parameter "
                 "'size'");
}

/* -uuid */

static void test_uuid_valid(void)
{
    static const uint8_t want[16] = {
        0xc0, 0xe9, 0xee, 0x1f, 0x5f, 0x3b, 0x4e, 0x0a,
        0x8b, 0x1d, 0x2a, 0x3b, 0x4c, 0x5d, 0x6e, 0x7f,
    };
    uint8_t uuid[16] = { 0 };
    Error *err = NULL;

    g_assert_true(uuid_parse("c0e9ee1f-5f3b-4e0a-8b1d-2a3b4c5d6e7f", uuid,
                             &err));
    g_assert_null(err);
    g_assert_cmpmem(uuid, 16, want, 16);

    /* Upper case hex is the same UUID */
    memset(uuid, 0, sizeof(uuid));
    g_assert_true(uuid_parse("C0E9EE1F-5F3B-4E0A-8B1D-2A3B4C5D6E7F", uuid,
                             &err));
    g_assert_cmpmem(uuid, 16, want, 16);
}

static void test_uuid_invalid(void)
{
    static const char *const bad[] = {
        "",
        "c0e9ee1f",
        "c0e9ee1f5f3b4e0a8b1d2a3b4c5d6e7f",
        "c0e9ee1f-5f3b-4e0a-8b1d-2a3b4c5d6e7",
        "c0e9ee1f-5f3b-4e0a-8b1d-2a3b4c5d6e7f0",
        "c0e9ee1g-5f3b-4e0a-8b1d-2a3b4c5d6e7f",
        "c0e9ee1f5-f3b-4e0a-8b1d-2a3b4c5d6e7f",
        "c0e9ee1f_5f3b_4e0a_8b1d_2a3b4c5d6e7f",
        "{0e9ee1f-5f3b-4e0a-8b1d-2a3b4c5d6e7}",
        " c0e9ee1f-5f3b-4e0a-8b1d-2a3b4c5d6e7",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        uint8_t uuid[16] = { 0 };
        Error *err = NULL;

        g_assert_false(uuid_parse(bad[i], uuid, &err));
        assert_error(err, "failed to parse UUID string: wrong format");
        /* Nothing half-parsed reaches the caller */
        g_assert_cmpuint(uuid[0], ==, 0);
    }
}

/* -cpu */

static void test_cpu_model_features(void)
{
    VmConfig cfg;
    Error *err = NULL;

    vm_config_init(&cfg);
    g_assert_true(cpu_parse("qemu64,+x2apic,-pdpe1gb,pmu=off", &cfg.cpu,
                            &err));
    g_assert_null(err);
    g_assert_cmpstr(cfg.cpu.model, ==, "qemu64");
    g_assert_cmpuint(cfg.cpu.features->len, ==, 3);
    g_assert_cmpstr(g_ptr_array_index(cfg.cpu.features, 0), ==, "+x2apic");
    g_assert_cmpstr(g_ptr_array_index(cfg.cpu.features, 1), ==, "-pdpe1gb");
    g_assert_cmpstr(g_ptr_array_index(cfg.cpu.features, 2), ==, "pmu=off");

    /* A later -cpu replaces the model and its features */
    g_assert_true(cpu_parse("host", &cfg.cpu, &err));
    g_assert_cmpstr(cfg.cpu.model, ==, "host");
    g_assert_cmpuint(cfg.cpu.features->len, ==, 0);

    g_assert_true(cpu_parse("max,migratable=no", &cfg.cpu, &err));
    g_assert_cmpstr(cfg.cpu.model, ==, "max");
    g_assert_cmpuint(cfg.cpu.features->len, ==, 1);
    g_assert_null(err);
    vm_config_free(&cfg);
}

static void test_cpu_invalid(void)
{
    static const struct {
        const char *arg, *msg;
    } bad[] = {
        { "", "CPU model name is missing" },
        { ",+x2apic", "CPU model name is missing" },
        { "qemu64,+", "Invalid CPU feature '+'" },
        { "qemu64,-", "Invalid CPU feature '-'" },
        { "qemu64,=on", "Invalid CPU feature '=on'" },
        { "qemu64,+x2apic,", "Invalid CPU feature ''" },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        VmConfig cfg;
        Error *err = NULL;

        vm_config_init(&cfg);
        g_assert_false(cpu_parse(bad[i].arg, &cfg.cpu, &err));
        assert_error(err, bad[i].msg);
        vm_config_free(&cfg);
    }
}

/* -boot */

static void boot_ok(const char *arg, BootOptions *boot)
{
    Error *err = NULL;

    g_assert_true(boot_parse(arg, boot, &err));
    g_assert_null(err);
}

static void boot_fails(const char *arg, const char *msg)
{
    VmConfig cfg;
    Error *err = NULL;

    vm_config_init(&cfg);
    g_assert_false(boot_parse(arg, &cfg.boot, &err));
    assert_error(err, msg);
    vm_config_free(&cfg);
}

static void test_boot_order(void)
{
    VmConfig cfg;

    vm_config_init(&cfg);
    /* QEMU's default: floppy, hard disk, CD-ROM */
    g_assert_cmpstr(cfg.boot.order, ==, "cad");
    boot_ok("dc", &cfg.boot);
    g_assert_cmpstr(cfg.boot.order, ==, "dc");
    boot_ok("order=n", &cfg.boot);
    g_assert_cmpstr(cfg.boot.order, ==, "n");
    g_assert_null(cfg.boot.once);

    boot_ok("once=d", &cfg.boot);
    g_assert_cmpstr(cfg.boot.once, ==, "d");
    /* once= does not change the permanent order */
    g_assert_cmpstr(cfg.boot.order, ==, "n");
    vm_config_free(&cfg);
}

static void test_boot_flags(void)
{
    VmConfig cfg;

    vm_config_init(&cfg);
    boot_ok("menu=on,strict=on,splash=/tmp/logo.bmp,splash-time=5000",
            &cfg.boot);
    g_assert_true(cfg.boot.menu);
    g_assert_true(cfg.boot.strict);
    g_assert_cmpstr(cfg.boot.splash, ==, "/tmp/logo.bmp");
    g_assert_cmpuint(cfg.boot.splash_time, ==, 5000);
    g_assert_false(cfg.boot.reboot_timeout_set);

    boot_ok("menu=off", &cfg.boot);
    g_assert_false(cfg.boot.menu);
    /* Untouched keys keep what an earlier -boot set */
    g_assert_true(cfg.boot.strict);
    g_assert_cmpstr(cfg.boot.order, ==, "cad");
    vm_config_free(&cfg);

    /* splash-time=0 is a value the firmware must see, not "unset". */
    vm_config_init(&cfg);
    g_assert_false(cfg.boot.splash_time_set);
    boot_ok("splash-time=0", &cfg.boot);
    g_assert_true(cfg.boot.splash_time_set);
    vm_config_free(&cfg);
}

static void test_boot_reboot_timeout(void)
{
    static const struct {
        const char *arg;
        int64_t want;
    } good[] = {
        { "reboot-timeout=-1", -1 },
        { "reboot-timeout=0", 0 },
        { "reboot-timeout=1000", 1000 },
        { "reboot-timeout=65535", 65535 },
    };
    /* QEMU 7.2 tells a value out of range from one that is no integer. */
    static const char *const bad[] = {
        "reboot-timeout=65536", "reboot-timeout=-2",
    };
    static const char *const not_integer[] = {
        "reboot-timeout=abc", "reboot-timeout=", "reboot-timeout=10s",
        "reboot-timeout=99999999999999999999",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(good); i++) {
        VmConfig cfg;

        vm_config_init(&cfg);
        boot_ok(good[i].arg, &cfg.boot);
        g_assert_true(cfg.boot.reboot_timeout_set);
        g_assert_cmpint((int64_t)cfg.boot.reboot_timeout, ==, good[i].want);
        vm_config_free(&cfg);
    }
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        boot_fails(bad[i], "reboot timeout is invalid,it should be a "
                   "value between -1 and 65535");
    }
    for (size_t i = 0; i < G_N_ELEMENTS(not_integer); i++) {
        boot_fails(not_integer[i],
                   "Parameter 'boot.reboot-timeout' expects integer");
    }
}

static void test_boot_invalid(void)
{
    boot_fails("foo=1", "Parameter 'boot.foo' is unexpected");
    boot_fails("c,foo", "Parameter 'boot.foo' is unexpected");
    /* QEMU 7.2's messages, word for word */
    boot_fails("order=z", "Invalid boot device 'z'");
    boot_fails("once=C", "Invalid boot device 'C'");
    boot_fails("order=cdc", "Boot device 'c' was given twice");
    boot_fails("menu=maybe", "Parameter 'boot.menu' expects 'on' or 'off'");
    boot_fails("strict=2", "Parameter 'boot.strict' expects 'on' or 'off'");
    boot_fails("splash-time=x", "Parameter 'boot.splash-time' expects "
               "integer");
    boot_fails("splash-time=65536", "splash-time is invalid,it should be "
               "a value between 0 and 65535");
    boot_fails("splash-time=-1", "splash-time is invalid,it should be "
               "a value between 0 and 65535");
}

/* -rtc */

static void rtc_ok(const char *arg, RtcOptions *rtc)
{
    Error *err = NULL;

    g_assert_true(rtc_parse(arg, rtc, &err));
    g_assert_null(err);
}

static void rtc_fails(const char *arg, const char *msg)
{
    RtcOptions rtc = { .base = RTC_BASE_LOCALTIME, .base_time = 42 };
    Error *err = NULL;

    g_assert_false(rtc_parse(arg, &rtc, &err));
    assert_error(err, msg);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_LOCALTIME);
    g_assert_cmpint(rtc.base_time, ==, 42);
    g_free(rtc.clock);
}

static void test_rtc_base(void)
{
    RtcOptions rtc = { 0 };

    rtc_ok("base=localtime", &rtc);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_LOCALTIME);
    rtc_ok("base=utc", &rtc);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_UTC);
    rtc_ok("clock=vm,driftfix=slew", &rtc);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_UTC);
    g_assert_cmpstr(rtc.clock, ==, "vm");
    g_assert_true(rtc.driftfix_slew);
    rtc_ok("clock=host,driftfix=none", &rtc);
    g_assert_cmpstr(rtc.clock, ==, "host");
    g_assert_false(rtc.driftfix_slew);
    rtc_ok("clock=rt", &rtc);
    g_assert_cmpstr(rtc.clock, ==, "rt");
    g_free(rtc.clock);
}

static void test_rtc_datetime(void)
{
    RtcOptions rtc = { 0 };

    /* A date is midnight UTC, independent of the host's time zone */
    rtc_ok("base=2006-06-17", &rtc);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_DATETIME);
    g_assert_cmpint(rtc.base_time, ==, 1150502400);

    rtc_ok("base=2006-06-17T16:01:21", &rtc);
    g_assert_cmpint(rtc.base, ==, RTC_BASE_DATETIME);
    g_assert_cmpint(rtc.base_time, ==, 1150560081);

    rtc_ok("base=1970-01-01T00:00:00", &rtc);
    g_assert_cmpint(rtc.base_time, ==, 0);

    rtc_ok("base=2000-02-29", &rtc);
    g_assert_cmpint(rtc.base_time, ==, 951782400);
    g_free(rtc.clock);
}

static void test_rtc_invalid(void)
{
    static const char *const bad_dates[] = {
        "base=yesterday", "base=2006-13-01", "base=2006-06-32",
        "base=2006-02-30", "base=2006-06-17T25:00:00", "base=2006-06-17x",
        "base=2006-06-17T16:01", "base=", "base=UTC",
    };

    for (size_t i = 0; i < G_N_ELEMENTS(bad_dates); i++) {
        rtc_fails(bad_dates[i], "invalid datetime format; valid formats: "
                  "'2006-06-17T16:01:21' or '2006-06-17'");
    }
    rtc_fails("clock=wall", "invalid option value 'wall'");
    rtc_fails("driftfix=fast", "invalid option value 'fast'");
    rtc_fails("foo=1", "Invalid parameter 'foo'");
    /* -rtc has no implied key: "utc" alone is an unknown flag */
    rtc_fails("utc", "Invalid parameter 'utc'");
}

/* -global */

static void global_ok(const char *arg, const char *driver,
                      const char *property, const char *value)
{
    QemuOpts *opts = NULL;
    Error *err = NULL;

    g_assert_true(global_parse(arg, &opts, &err));
    g_assert_null(err);
    g_assert_nonnull(opts);
    g_assert_cmpstr(qemu_opt_get(opts, "driver"), ==, driver);
    g_assert_cmpstr(qemu_opt_get(opts, "property"), ==, property);
    g_assert_cmpstr(qemu_opt_get(opts, "value"), ==, value);
    qemu_opts_free(opts);
}

static void global_fails(const char *arg, const char *msg)
{
    QemuOpts *opts = NULL;
    Error *err = NULL;

    g_assert_false(global_parse(arg, &opts, &err));
    assert_error(err, msg);
    g_assert_null(opts);
}

static void test_global_short(void)
{
    global_ok("kvm-pit.lost_tick_policy=discard", "kvm-pit",
              "lost_tick_policy", "discard");
    /* The value is taken verbatim: no ",," unescaping, '=' allowed */
    global_ok("isa-debugcon.chardev=a,b", "isa-debugcon", "chardev", "a,b");
    global_ok("cfi.name=x=y", "cfi", "name", "x=y");
    global_ok("drv.prop=", "drv", "prop", "");
    /* The first dot ends the driver name */
    global_ok("a.b.c=1", "a", "b.c", "1");
}

static void test_global_long(void)
{
    global_ok("driver=kvm-pit,property=lost_tick_policy,value=discard",
              "kvm-pit", "lost_tick_policy", "discard");
    global_ok("value=a,,b,property=p,driver=d.x", "d.x", "p", "a,b");
}

static void test_global_invalid(void)
{
    global_fails("foo", "Invalid parameter 'foo'");
    global_fails("drv.prop", "Invalid parameter 'drv.prop'");
    global_fails(".prop=1", "Invalid parameter '.prop'");
    global_fails("drv.=1", "Invalid parameter 'drv.'");
    global_fails("driver=d,property=p,value=v,foo=1",
                 "Invalid parameter 'foo'");
    global_fails("driver=d,property=p", "Parameter 'value' is missing");
    global_fails("driver=d,value=v", "Parameter 'property' is missing");
    global_fails("property=p,value=v", "Parameter 'driver' is missing");
    global_fails("", "Parameter 'driver' is missing");
}

/* -object */

/* Parse like -object (implied qom-type) and check against cfg. */
static bool object_try(VmConfig *cfg, const char *arg, Error **errp)
{
    QemuOpts *opts = qemu_opts_parse(arg, "qom-type", errp);

    g_assert_nonnull(opts);
    if (!object_check(opts, cfg->objects, errp)) {
        qemu_opts_free(opts);
        return false;
    }
    g_ptr_array_add(cfg->objects, cmdline_item_new(opts));
    return true;
}

static void object_ok(VmConfig *cfg, const char *arg)
{
    Error *err = NULL;

    g_assert_true(object_try(cfg, arg, &err));
    g_assert_null(err);
}

static void object_fails(const char *arg, const char *msg)
{
    VmConfig cfg;
    Error *err = NULL;

    vm_config_init(&cfg);
    g_assert_false(object_try(&cfg, arg, &err));
    assert_error(err, msg);
    g_assert_cmpuint(cfg.objects->len, ==, 0);
    vm_config_free(&cfg);
}

static void test_object_valid(void)
{
    VmConfig cfg;

    vm_config_init(&cfg);
    object_ok(&cfg, "memory-backend-ram,id=ram0,size=1G");
    object_ok(&cfg, "qom-type=memory-backend-ram,id=r1,size=1G,share=on,"
              "prealloc=off,merge=no,dump=false,policy=bind,host-nodes=0");
    object_ok(&cfg, "memory-backend-file,id=file0,size=1G,"
              "mem-path=/dev/hugepages,,x,share=on,discard-data=on,"
              "align=2M,readonly=off,pmem=off");
    object_ok(&cfg, "memory-backend-memfd,id=m.0_a-b,size=2G,hugetlb=on,"
              "hugetlbsize=2M,seal=on");
    g_assert_cmpuint(cfg.objects->len, ==, 4);
    g_assert_cmpstr(qemu_opt_get(((CmdlineItem *)
                                  g_ptr_array_index(cfg.objects, 2))->opts,
                                 "mem-path"), ==, "/dev/hugepages,x");
    vm_config_free(&cfg);
}

static void test_object_missing_type(void)
{
    object_fails("id=ram0,size=1G", "Parameter 'qom-type' is missing");
    object_fails("", "Parameter 'qom-type' is missing");
}

static void test_object_unknown_type(void)
{
    object_fails("memory-backend-foo,id=x",
                 "Parameter 'qom-type' does not accept value "
                 "'memory-backend-foo'");
    object_fails("iothread,id=io0",
                 "Parameter 'qom-type' does not accept value 'iothread'");
}

static void test_object_id(void)
{
    object_fails("memory-backend-ram,size=1G", "Parameter 'id' is missing");
    object_fails("memory-backend-ram,id=0ram",
                 "Parameter 'id' expects an identifier");
    object_fails("memory-backend-ram,id=", "Parameter 'id' expects an "
                 "identifier");
    object_fails("memory-backend-ram,id=ram/0",
                 "Parameter 'id' expects an identifier");
    object_fails("memory-backend-ram,id=_ram",
                 "Parameter 'id' expects an identifier");
}

static void test_object_duplicate_id(void)
{
    VmConfig cfg;
    Error *err = NULL;

    vm_config_init(&cfg);
    object_ok(&cfg, "memory-backend-ram,id=ram0,size=1G");
    /* Ids share one namespace, whatever the type */
    g_assert_false(object_try(&cfg, "memory-backend-memfd,id=ram0,size=1G",
                              &err));
    assert_error(err, "attempt to add duplicate property 'ram0' to object "
                 "(type 'container')");
    g_assert_cmpuint(cfg.objects->len, ==, 1);
    vm_config_free(&cfg);
}

static void test_object_foreign_key(void)
{
    object_fails("memory-backend-ram,id=r,size=1G,mem-path=/tmp",
                 "Property 'memory-backend-ram.mem-path' not found");
    object_fails("memory-backend-file,id=f,size=1G,mem-path=/tmp,hugetlb=on",
                 "Property 'memory-backend-file.hugetlb' not found");
    object_fails("memory-backend-memfd,id=m,size=1G,readonly=on",
                 "Property 'memory-backend-memfd.readonly' not found");
    object_fails("memory-backend-ram,id=r,size=1G,foo=1",
                 "Property 'memory-backend-ram.foo' not found");
}

static void test_object_bad_value(void)
{
    object_fails("memory-backend-ram,id=r,size=1G,share=maybe",
                 "Parameter 'share' expects 'on' or 'off'");
    object_fails("memory-backend-ram,id=r,size=1G,prealloc=1",
                 "Parameter 'prealloc' expects 'on' or 'off'");
    object_fails("memory-backend-ram,id=r,size=12Q", SIZE_MESSAGE("size"));
    object_fails("memory-backend-ram,id=r,size=1G,prealloc-threads=x",
                 "Parameter 'prealloc-threads' expects a number");
}

/* -object secret: the property check, then the secret itself. */
static void test_object_secret(void)
{
    static const char *const ok[] = {
        "secret,id=s0,data=letmein",
        "secret,id=s1,format=base64,data=bGV0bWVpbg==",
        "secret,id=s2,file=@FILE@",
        "secret,id=s3,format=raw,file=@FILE@",
    };
    char *dir = g_dir_make_tmp("test-secret-XXXXXX", NULL);
    char *file = g_build_filename(dir, "key", NULL);
    const uint8_t *data;
    Error *err = NULL;
    size_t len;

    g_assert_true(g_file_set_contents(file, "filekey", -1, NULL));
    for (size_t i = 0; i < G_N_ELEMENTS(ok); i++) {
        char **parts = g_strsplit(ok[i], "@FILE@", -1);
        char *arg = g_strjoinv(file, parts);
        QemuOpts *opts = qemu_opts_parse(arg, "qom-type", &err);
        VmConfig cfg;

        vm_config_init(&cfg);
        object_ok(&cfg, arg);
        g_assert_true(secret_create(opts, &err));
        g_assert_null(err);
        qemu_opts_free(opts);
        vm_config_free(&cfg);
        g_strfreev(parts);
        g_free(arg);
    }
    data = secret_lookup("s0", &len, &err);
    g_assert_cmpmem(data, len, "letmein", 7);
    data = secret_lookup("s1", &len, &err);
    g_assert_cmpmem(data, len, "letmein", 7);
    data = secret_lookup("s3", &len, &err);
    g_assert_cmpmem(data, len, "filekey", 7);
    g_assert_null(secret_lookup("s9", &len, &err));
    assert_error(err, "No secret with id 's9'");
    err = NULL;
    object_fails("secret,id=s4,data=x,size=1",
                 "Property 'secret.size' not found");
    {
        static const struct {
            const char *arg, *msg;
        } bad[] = {
            { "secret,id=b0", "Either 'file' or 'data' must be provided" },
            { "secret,id=b1,data=x,file=/etc/hostname",
              "'data' and 'file' are mutually exclusive" },
            { "secret,id=b2,data=x,format=hex",
              "Parameter 'format' does not accept value 'hex'" },
            { "secret,id=b3,data=a*b,format=base64",
              "Base64 data contains invalid characters" },
            { "secret,id=b4,file=/nonexistent/key",
              "Unable to read /nonexistent/key: Failed to open file "
              "\u201c/nonexistent/key\u201d: No such file or directory" },
        };

        for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
            QemuOpts *opts = qemu_opts_parse(bad[i].arg, "qom-type", &err);

            g_assert_false(secret_create(opts, &err));
            assert_error(err, bad[i].msg);
            err = NULL;
            qemu_opts_free(opts);
        }
    }
    secrets_cleanup();
    g_unlink(file);
    g_rmdir(dir);
    g_free(file);
    g_free(dir);
}

/* The JSON form of an option argument, as libvirt writes -audiodev. */
static void test_opts_from_json(void)
{
    Error *err = NULL;
    QemuOpts *opts = qemu_opts_from_json(
        "{\"id\": \"a1\", \"driver\": \"none\", \"size\": 1048576, "
        "\"share\": true, \"dump\": false}", &err);

    g_assert_null(err);
    g_assert_cmpstr(qemu_opt_get(opts, "id"), ==, "a1");
    g_assert_cmpstr(qemu_opt_get(opts, "driver"), ==, "none");
    g_assert_cmpstr(qemu_opt_get(opts, "size"), ==, "1048576");
    g_assert_cmpstr(qemu_opt_get(opts, "share"), ==, "on");
    g_assert_cmpstr(qemu_opt_get(opts, "dump"), ==, "off");
    qemu_opts_free(opts);
    g_assert_null(qemu_opts_from_json("{\"a\": [1]}", &err));
    assert_error(err, "Parameter 'a' expects a string, number or boolean");
    err = NULL;
    g_assert_null(qemu_opts_from_json("[1]", &err));
    assert_error(err, "JSON argument must be an object");
    err = NULL;
    g_assert_null(qemu_opts_from_json("{\"a\": ", &err));
    g_assert_true(g_str_has_prefix(error_get_pretty(err),
                                   "JSON parse error, "));
    error_free(err);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);

    g_test_add_func("/overcommit/mem-lock", test_overcommit_mem_lock);
    g_test_add_func("/overcommit/cpu-pm", test_overcommit_cpu_pm);
    g_test_add_func("/overcommit/both", test_overcommit_both);
    g_test_add_func("/overcommit/empty", test_overcommit_empty);
    g_test_add_func("/overcommit/accumulate", test_overcommit_accumulate);
    g_test_add_func("/overcommit/bad-mem-lock", test_overcommit_bad_mem_lock);
    g_test_add_func("/overcommit/bad-cpu-pm", test_overcommit_bad_cpu_pm);
    g_test_add_func("/overcommit/unknown-key", test_overcommit_unknown_key);
    g_test_add_func("/overcommit/syntax", test_overcommit_syntax);
    g_test_add_func("/overcommit/mlock-state", test_mlock_state);

    g_test_add_func("/memory/size", test_memory_size);
    g_test_add_func("/memory/hotplug", test_memory_hotplug);
    g_test_add_func("/memory/slots-without-maxmem",
                    test_memory_slots_without_maxmem);
    g_test_add_func("/memory/maxmem-below-size",
                    test_memory_maxmem_below_size);
    g_test_add_func("/memory/last-wins", test_memory_last_wins);
    g_test_add_func("/memory/too-small", test_memory_too_small);
    g_test_add_func("/memory/invalid", test_memory_invalid);

    g_test_add_func("/uuid/valid", test_uuid_valid);
    g_test_add_func("/uuid/invalid", test_uuid_invalid);

    g_test_add_func("/cpu/model-features", test_cpu_model_features);
    g_test_add_func("/cpu/invalid", test_cpu_invalid);

    g_test_add_func("/boot/order", test_boot_order);
    g_test_add_func("/boot/flags", test_boot_flags);
    g_test_add_func("/boot/reboot-timeout", test_boot_reboot_timeout);
    g_test_add_func("/boot/invalid", test_boot_invalid);

    g_test_add_func("/rtc/base", test_rtc_base);
    g_test_add_func("/rtc/datetime", test_rtc_datetime);
    g_test_add_func("/rtc/invalid", test_rtc_invalid);

    g_test_add_func("/global/short", test_global_short);
    g_test_add_func("/global/long", test_global_long);
    g_test_add_func("/global/invalid", test_global_invalid);

    g_test_add_func("/object/valid", test_object_valid);
    g_test_add_func("/object/missing-type", test_object_missing_type);
    g_test_add_func("/object/unknown-type", test_object_unknown_type);
    g_test_add_func("/object/id", test_object_id);
    g_test_add_func("/object/duplicate-id", test_object_duplicate_id);
    g_test_add_func("/object/foreign-key", test_object_foreign_key);
    g_test_add_func("/object/bad-value", test_object_bad_value);

    g_test_add_func("/smp/cpus", test_smp_cpus);
    g_test_add_func("/smp/sockets", test_smp_sockets);
    g_test_add_func("/smp/topology-only", test_smp_topology_only);
    g_test_add_func("/smp/maxcpus", test_smp_maxcpus);
    g_test_add_func("/smp/product", test_smp_product);
    g_test_add_func("/smp/maxcpus-below-cpus", test_smp_maxcpus_below_cpus);
    g_test_add_func("/smp/machine-max", test_smp_machine_max);
    g_test_add_func("/smp/unexpected", test_smp_unexpected);
    g_test_add_func("/smp/not-integer", test_smp_not_integer);
    g_test_add_func("/smp/zero", test_smp_zero);
    g_test_add_func("/smp/dies", test_smp_dies);
    g_test_add_func("/smp/zero-cpus", test_smp_zero_cpus);
    g_test_add_func("/object/secret", test_object_secret);
    g_test_add_func("/opts/from-json", test_opts_from_json);

    return g_test_run();
}
