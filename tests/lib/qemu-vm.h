/*
 * The functional tests' one helper for running the emulator binary:
 *
 *   one-shot runs    qemu_run("-version", &out, &err): stdout and stderr
 *                    captured, the wait status returned
 *   a VM             vm_start(args, flags): the binary with args plus
 *                    "-serial stdio" (COM1 captured in a file), stderr in
 *                    a file, with VM_QMP a QMP monitor (libqmp) already
 *                    negotiated; then wait for serial output, QMP
 *                    commands and events, signals, the exit status
 *   guests           tiny multiboot images made from a few instructions,
 *                    the guest kit's programs (tests/guest), KVM's
 *                    availability
 *
 * Waits are bounded by VM_TIMEOUT_MS (or the timeout given); a VM that
 * will not exit is killed, and one gets SIGKILL if the test dies.
 */
#ifndef TESTS_QEMU_VM_H
#define TESTS_QEMU_VM_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include <glib.h>
#include <json-glib/json-glib.h>

#define VM_TIMEOUT_MS       20000

/* ---- one-shot runs ------------------------------------------------------ */

/* $QTEST_QEMU_BINARY, or the binary of this build. */
const char *qemu_binary(void);

/*
 * Run the emulator with the space-separated args (no quoting; use
 * qemu_run_argv for arguments with spaces) and wait for it; stdout and
 * stderr are captured. Returns the wait status.
 */
int qemu_run(const char *args, char **out, char **err);
int qemu_run_argv(char **argv, char **out, char **err);

/* Start it in the background, stdin from /dev/null, stderr to a pipe. */
pid_t qemu_spawn(const char *args, int *stderr_fd);
/* Wait until pid blocks SIGTERM, i.e. its main loop can take signals. */
bool qemu_wait_signals_ready(pid_t pid, int timeout_ms);
/* Read everything from fd until EOF and close it. */
char *read_all_fd(int fd);

/* A field of /proc/PID/status in KiB ("VmRSS"), or -1. */
long proc_status_kb(pid_t pid, const char *field);
/* Wait until pid is gone (it is not our child). */
bool wait_pid_gone(pid_t pid, int timeout_ms);

/* ---- guests ------------------------------------------------------------- */

/* True if /dev/kvm can be opened read-write by this process. */
bool vm_kvm_usable(void);
/* The same, but skip the running test with the reason when it cannot. */
bool vm_require_kvm(void);
/*
 * True if accel ("kvm" or "tcg") can run here; skips the running test
 * with the reason when it cannot.
 */
bool vm_require_accel(const char *accel);

/* The guest kit's program (GUEST_DIR/name), or NULL if it was not built. */
char *vm_guest_kit(const char *name);
/* The same, but skip the running test when the kit was not built. */
char *vm_require_guest_kit(const char *name);

/*
 * A file of the Linux guest (scripts/fetch-linux-guest.sh: "vmlinux",
 * "bzImage", "initramfs.cpio") in $LINUX_GUEST_DIR or build/guest-linux;
 * NULL, with the running test skipped and the reason, when it is not
 * there.
 */
char *vm_require_linux_guest(const char *name);
/*
 * dir/initrd.cpio: the Linux guest's initramfs with the archives extra
 * (a NULL-terminated list of paths, or NULL) appended; the kernel unpacks
 * them in order. The guest must be there (vm_require_linux_guest()).
 */
char *vm_linux_initrd(const char *dir, const char *const *extra);
/* $LINUX_BOOT_TIMEOUT (seconds) if set, else dflt. */
unsigned vm_linux_boot_timeout_s(unsigned dflt);

/* A piece of 32-bit code (no paging) for a tiny multiboot guest. */
typedef struct VmCode {
    const uint8_t *bytes;
    size_t size;
} VmCode;

/* Prints 'X' and a newline on COM1. */
extern const VmCode vm_code_print_x;
/* cli; hlt forever. */
extern const VmCode vm_code_idle;
/* 'X' once (so a reset shows as a second 'X'), then '.' forever. */
extern const VmCode vm_code_ticker;

/*
 * Write dir/name, a multiboot a.out-kludge image (loaded at 1 MiB, entry
 * right after the header) of the pieces given, in order, up to a NULL.
 * Returns the path.
 */
char *vm_tiny_guest(const char *dir, const char *name, const VmCode *first,
                    ...) G_GNUC_NULL_TERMINATED;

/* ---- a VM --------------------------------------------------------------- */

/* Words of a command line: added one by one, or split on spaces. */
GPtrArray *vm_args_new(const char *words);
void vm_args_add(GPtrArray *args, const char *word);
void vm_args_split(GPtrArray *args, const char *words);

typedef enum VmFlags {
    VM_QMP = 1,             /* a QMP monitor, negotiated by vm_start */
    VM_AS_NOBODY = 2,       /* run as uid/gid 65534 (without VM_QMP) */
} VmFlags;

typedef struct QemuVm QemuVm;

/*
 * Start the binary with args (not taken) + "-serial stdio" (+ the QMP
 * monitor). Fails the test if QMP does not come up.
 */
QemuVm *vm_start(GPtrArray *args, unsigned flags);
/* The same with space-separated words (printf format). */
QemuVm *vm_startf(unsigned flags, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
pid_t vm_pid(QemuVm *vm);

/* What the guest printed on COM1 so far. */
char *vm_serial(QemuVm *vm);
size_t vm_serial_len(QemuVm *vm);
unsigned vm_serial_count(QemuVm *vm, const char *text);
/* Wait until text was printed count times; false after VM_TIMEOUT_MS. */
bool vm_wait_serial(QemuVm *vm, const char *text, unsigned count);
/* What the emulator printed on stderr so far (valid until the next call). */
const char *vm_stderr(QemuVm *vm);

/*
 * QMP: send the command (printf-style JSON) and return the reply
 * ({"return": ...} or {"error": ...}); events meanwhile are queued.
 */
JsonNode *vm_qmp(QemuVm *vm, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
/*
 * {"execute": cmd}, or cmd itself when it is a whole JSON command ("{...}");
 * the reply must be a "return", not an "error".
 */
void vm_qmp_ok(QemuVm *vm, const char *cmd);
/* The same, returning the reply's "return" member (json_node_unref it). */
JsonNode *vm_qmp_return(QemuVm *vm, const char *cmd);
/* The same command that must fail: its error's "desc" (g_free it). */
char *vm_qmp_error(QemuVm *vm, const char *cmd);
/* query-status's "status". */
char *vm_status(QemuVm *vm);
/* Poll query-status until its status is want: false after timeout_s. */
bool vm_wait_status(QemuVm *vm, const char *want, int timeout_s);
/* query-migrate's "status" ("none" before any migration); g_free it. */
char *vm_migrate_status(QemuVm *vm);
/*
 * Poll query-migrate until its status is want: false after timeout_s, or
 * at once when the migration ended failed or cancelled and want is not
 * that end (the status is then in the test log).
 */
bool vm_wait_migrate_status(QemuVm *vm, const char *want, int timeout_s);
/* Wait for the event (queued or new); false after the timeout. */
bool vm_wait_event(QemuVm *vm, const char *event);
/* The same, returning the event's "data" as JSON text (NULL: none came). */
char *vm_wait_event_data(QemuVm *vm, const char *event);

/* True once the process has exited; it stays a zombie (waitid WNOWAIT). */
bool vm_exited(QemuVm *vm);
/* Wait until it has exited, without reaping; false after timeout_ms. */
bool vm_wait_zombie(QemuVm *vm, int timeout_ms);
/*
 * Reap it within timeout_s (0: VM_TIMEOUT_MS), else SIGKILL it and
 * return -1; otherwise its wait status.
 */
int vm_wait(QemuVm *vm, unsigned timeout_s);
/* QMP quit; the process must exit with status 0. */
void vm_quit(QemuVm *vm);
/*
 * A Linux guest migrated mid-boot: it must go on to init's poweroff and
 * exit 0 without booting again (no "Linux version" line); its console
 * and stderr are printed when not.
 */
void vm_expect_linux_resumed_poweroff(QemuVm *vm);
/* Kill it if it still runs, remove its files. */
void vm_free(QemuVm *vm);

/* A run from start to exit. status is the wait status, -1: timed out. */
typedef struct VmRun {
    int status;
    char *serial;
    char *err;
} VmRun;

VmRun vm_run(GPtrArray *args, unsigned flags, unsigned timeout_s);
void vm_run_free(VmRun *r);
/*
 * Assert that the run's serial output holds each of lines (NULL ends
 * them; the log and the missing line are reported) and that the
 * emulator exited with status 0.
 */
void vm_run_expect_lines(const VmRun *r, const char *const *lines);

/*
 * The guest kit's migrate program, migrated: its scans in src's serial
 * output then dst's must count 1, 2, 3... without a gap or a repeat (a
 * line may be cut by the switch-over: the halves join), with no BAD, at
 * least min_dst_scans of them on dst, and the ticks must keep growing.
 */
void vm_check_migrate_scans(const char *src, const char *dst,
                            unsigned min_dst_scans);
/* A TCP port on 127.0.0.1 nobody listens on now. */
int vm_free_tcp_port(void);

/* CRC32C (Castagnoli), as the migration stream's sections carry it. */
uint32_t vm_crc32c(const uint8_t *p, size_t len);

#endif
