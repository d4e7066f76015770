/*
 * The command line, parsed and validated into plain structs. Nothing
 * here is runtime state: vl.c fills a VmConfig, the build steps read it.
 */
#ifndef SYSTEM_VM_CONFIG_H
#define SYSTEM_VM_CONFIG_H

#include <stdbool.h>
#include <stdint.h>

#include "qemu/error.h"
#include "qemu/option.h"

typedef enum KernelIrqchip {
    KERNEL_IRQCHIP_DEFAULT,
    KERNEL_IRQCHIP_ON,
    KERNEL_IRQCHIP_OFF,
    KERNEL_IRQCHIP_SPLIT,
} KernelIrqchip;

/* An option as the user wrote it, for errors reported after parsing. */
typedef struct CmdlineItem {
    Location loc;
    QemuOpts *opts;
} CmdlineItem;

typedef struct MachineOptions {
    QemuOpts *opts;             /* every -machine, merged in order */
    Location loc;               /* the last -machine */
    char *type;                 /* NULL: the default machine */
    char *accel;                /* -machine accel=, or NULL */
    char *memory_backend;
    KernelIrqchip kernel_irqchip;
    bool dump_guest_core;
    bool mem_merge;
    bool acpi;                  /* acpi=on|auto (default), off; -no-acpi */
    bool usb;                   /* usb=on is refused: no USB yet */
} MachineOptions;

typedef struct SmpOptions {
    bool given;
    unsigned cpus, maxcpus, sockets, cores, threads;
    Location loc;
} SmpOptions;

typedef struct MemoryOptions {
    bool given;                 /* -m on the command line */
    uint64_t size;              /* bytes; 0: the machine's default */
    uint64_t maxmem;
    uint64_t slots;
    char *mem_path;
    bool mem_prealloc;
    Location loc;
} MemoryOptions;

typedef struct CpuOptions {
    char *model;                /* NULL: the accelerator's default */
    GPtrArray *features;        /* "+x2apic", "-pdpe1gb", "pmu=off" */
    Location loc;
} CpuOptions;

typedef struct BootOptions {
    char *order, *once, *splash;
    bool menu, strict;
    uint64_t splash_time, reboot_timeout;
    bool splash_time_set, reboot_timeout_set;
} BootOptions;

typedef enum RtcBase {
    RTC_BASE_UTC,
    RTC_BASE_LOCALTIME,
    RTC_BASE_DATETIME,
} RtcBase;

typedef struct RtcOptions {
    RtcBase base;
    int64_t base_time;          /* seconds since the epoch, for DATETIME */
    char *clock;                /* host | rt | vm */
    bool driftfix_slew;
} RtcOptions;

/*
 * QEMU's default devices of a machine, each dropped by -nodefaults or by
 * the options that stand in for it (what the machine then makes of them
 * is its own business: "none" has no serial port).
 */
typedef struct DefaultDevices {
    bool serial;                /* -serial */
    bool monitor;               /* -monitor, -mon, -qmp[-pretty], mon: */
    bool vga;                   /* -vga (there is no graphics card yet) */
} DefaultDevices;

typedef struct VmConfig {
    MachineOptions machine;
    GPtrArray *accels;          /* of CmdlineItem, key "accel" = name */
    CpuOptions cpu;
    SmpOptions smp;
    MemoryOptions memory;
    GPtrArray *objects;         /* of CmdlineItem, key "qom-type" */
    GPtrArray *devices;         /* of CmdlineItem, key "driver" */
    GPtrArray *drives;          /* of CmdlineItem: -drive */
    GPtrArray *blockdevs;       /* of CmdlineItem: -blockdev */
    GPtrArray *globals;         /* of CmdlineItem: driver, property, value */
    GPtrArray *chardevs;        /* of CmdlineItem, key "backend" */
    GPtrArray *serials;         /* of CmdlineItem, key "path": the spec */
    GPtrArray *monitors;        /* of CmdlineItem: -mon */
    /*
     * -monitor, -qmp, -qmp-pretty, in order, of CmdlineItem: "path" the
     * spec, "mode" readline or control, "pretty" on|off
     */
    GPtrArray *compat_monitors;
    GPtrArray *netdevs;         /* of CmdlineItem, key "type": -netdev */
    GPtrArray *nics;            /* of CmdlineItem, key "type": -nic */
    GPtrArray *nets;            /* of CmdlineItem, key "type": -net */
    CmdlineItem *qtest;         /* -qtest spec, key "path" */
    /* -action, -no-reboot, -no-shutdown merged; located at the first */
    CmdlineItem *action;
    char *qtest_log;
    char *kernel, *initrd, *append;
    char *bios;                 /* -bios, or NULL: the machine's default */
    GPtrArray *smbios;          /* of char *: -smbios, each checked */
    Location kernel_loc;
    char *incoming;
    Location incoming_loc;
    BootOptions boot;
    RtcOptions rtc;
    bool nographic;
    bool nodefaults;
    bool snapshot;                  /* -snapshot: every -drive snapshot=on */
    DefaultDevices defaults;    /* final once cmdline_parse() returns */
    bool display_none;
    bool daemonize;
    char *pidfile;
    char *debug_threads_name;
    bool debug_threads;
    char *process_name;
} VmConfig;

void vm_config_init(VmConfig *cfg);
void vm_config_free(VmConfig *cfg);
CmdlineItem *cmdline_item_new(QemuOpts *opts);
void cmdline_item_free(gpointer item);

/* Option parsers, each a pure function of its argument. */
bool smp_parse(const char *arg, SmpOptions *smp, Error **errp);
bool smp_finalize(SmpOptions *smp, const char *machine, unsigned max_cpus,
                  Error **errp);
bool memory_parse(const char *arg, MemoryOptions *mem, Error **errp);
bool uuid_parse(const char *str, uint8_t uuid[16], Error **errp);
/* The -cpu models, as -cpu help lists them. */
extern const char *const vm_cpu_models[];
bool cpu_parse(const char *arg, CpuOptions *cpu, Error **errp);
bool boot_parse(const char *arg, BootOptions *boot, Error **errp);
bool rtc_parse(const char *arg, RtcOptions *rtc, Error **errp);
/* The guest's starting second for -rtc base=utc|localtime|DATE at now. */
int64_t rtc_options_start(const RtcOptions *rtc, int64_t now);
bool global_parse(const char *arg, QemuOpts **out, Error **errp);
bool object_check(const QemuOpts *opts, GPtrArray *objects, Error **errp);

/*
 * An option argument in JSON ({"id": "a", "share": true}) as the
 * QemuOpts of its key=value form; libvirt writes -audiodev (and, when
 * the schema says so, -object and -device) this way.
 */
QemuOpts *qemu_opts_from_json(const char *json, Error **errp);
/* The same from a parsed object (object-add's arguments). */
typedef struct _JsonObject JsonObject;
QemuOpts *qemu_opts_from_json_object(JsonObject *obj, Error **errp);

#endif
