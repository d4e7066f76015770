/*
 * -sandbox on: QEMU's seccomp groups, as a deny list over an allow-all
 * filter (libseccomp). A group switched to "deny" loses these calls:
 *
 *   obsolete (deny by default)  system calls no current program needs
 *   elevateprivileges           set*id and friends; "children" instead
 *                               sets no_new_privs, for processes started
 *                               later
 *   spawn                       fork, vfork, execve(at), clone without
 *                               CLONE_THREAD or CLONE_VM (a process of
 *                               its own memory; a clone sharing ours, a
 *                               thread or the sanitizers' leak checker,
 *                               can start no program without execve);
 *                               clone3 says ENOSYS so that glibc makes
 *                               threads with clone
 *   resourcecontrol             priorities, scheduler and affinity
 *                               (a build with sanitizers keeps
 *                               sched_getaffinity, which their runtime
 *                               calls for each new thread)
 *
 * A denied call kills the process (SIGSYS), as in QEMU, except spawn and
 * resourcecontrol, which fail with EPERM: the teardown's discard helper
 * is a fork whose failure the emulator handles (it discards in process
 * instead), and QEMU also answers resourcecontrol calls with EPERM.
 * Installed after -daemonize, which needs fork and setsid.
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/prctl.h>

#include "config-host.h"
#include "system/seccomp.h"

#if HAVE_SECCOMP
#include <seccomp.h>
#endif

typedef enum SandboxGroup {
    SANDBOX_OBSOLETE,
    SANDBOX_PRIVILEGES,
    SANDBOX_SPAWN,
    SANDBOX_RESOURCES,
    SANDBOX__MAX,
} SandboxGroup;

const QemuOptDesc sandbox_opts[] = {
    { "enable", QEMU_OPT_BOOL },
    { "obsolete", QEMU_OPT_STRING },
    { "elevateprivileges", QEMU_OPT_STRING },
    { "spawn", QEMU_OPT_STRING },
    { "resourcecontrol", QEMU_OPT_STRING },
    { NULL },
};

/* The key of each group, and whether it has "children". */
static const struct {
    const char *key;
    bool deny_default;
    bool children;
} groups[SANDBOX__MAX] = {
    [SANDBOX_OBSOLETE] = { "obsolete", true, false },
    [SANDBOX_PRIVILEGES] = { "elevateprivileges", false, true },
    [SANDBOX_SPAWN] = { "spawn", false, false },
    [SANDBOX_RESOURCES] = { "resourcecontrol", false, false },
};

static struct {
    bool enable;
    bool deny[SANDBOX__MAX];
    bool no_new_privs;
} sandbox;

bool seccomp_parse(const QemuOpts *opts, bool *enable, Error **errp)
{
    if (!qemu_opt_get_bool(opts, "enable", &sandbox.enable, errp)) {
        return false;
    }
    for (int g = 0; g < SANDBOX__MAX; g++) {
        const char *v = qemu_opt_get(opts, groups[g].key);

        sandbox.deny[g] = groups[g].deny_default;
        if (!v) {
            continue;
        }
        if (!strcmp(v, "deny") || !strcmp(v, "allow")) {
            sandbox.deny[g] = !strcmp(v, "deny");
        } else if (groups[g].children && !strcmp(v, "children")) {
            sandbox.no_new_privs = true;
        } else {
            error_setg(errp, "invalid argument for %s", groups[g].key);
            return false;
        }
    }
    *enable = sandbox.enable;
    return true;
}

bool seccomp_available(void)
{
    return HAVE_SECCOMP;
}

#if HAVE_SECCOMP
static const struct {
    const char *name;
    SandboxGroup group;
} denied[] = {
    /* obsolete */
    { "readdir", SANDBOX_OBSOLETE }, { "_sysctl", SANDBOX_OBSOLETE },
    { "bdflush", SANDBOX_OBSOLETE }, { "create_module", SANDBOX_OBSOLETE },
    { "get_kernel_syms", SANDBOX_OBSOLETE },
    { "query_module", SANDBOX_OBSOLETE }, { "sgetmask", SANDBOX_OBSOLETE },
    { "ssetmask", SANDBOX_OBSOLETE }, { "sysfs", SANDBOX_OBSOLETE },
    { "uselib", SANDBOX_OBSOLETE }, { "ustat", SANDBOX_OBSOLETE },
    { "vm86", SANDBOX_OBSOLETE }, { "vm86old", SANDBOX_OBSOLETE },
    /* elevateprivileges */
    { "setuid", SANDBOX_PRIVILEGES }, { "setgid", SANDBOX_PRIVILEGES },
    { "setpgid", SANDBOX_PRIVILEGES }, { "setsid", SANDBOX_PRIVILEGES },
    { "setreuid", SANDBOX_PRIVILEGES }, { "setregid", SANDBOX_PRIVILEGES },
    { "setresuid", SANDBOX_PRIVILEGES },
    { "setresgid", SANDBOX_PRIVILEGES },
    { "setfsuid", SANDBOX_PRIVILEGES }, { "setfsgid", SANDBOX_PRIVILEGES },
    /* spawn (clone and clone3 are filtered apart) */
    { "fork", SANDBOX_SPAWN }, { "vfork", SANDBOX_SPAWN },
    { "execve", SANDBOX_SPAWN }, { "execveat", SANDBOX_SPAWN },
    /* resourcecontrol */
    { "getpriority", SANDBOX_RESOURCES },
    { "setpriority", SANDBOX_RESOURCES },
    { "sched_setparam", SANDBOX_RESOURCES },
    { "sched_getparam", SANDBOX_RESOURCES },
    { "sched_setscheduler", SANDBOX_RESOURCES },
    { "sched_getscheduler", SANDBOX_RESOURCES },
    { "sched_setaffinity", SANDBOX_RESOURCES },
    { "sched_getaffinity", SANDBOX_RESOURCES },
    { "sched_get_priority_max", SANDBOX_RESOURCES },
    { "sched_get_priority_min", SANDBOX_RESOURCES },
};

static uint32_t group_action(SandboxGroup g)
{
    return g == SANDBOX_SPAWN || g == SANDBOX_RESOURCES
           ? SCMP_ACT_ERRNO(EPERM) : SCMP_ACT_KILL_PROCESS;
}

static int add_rules(scmp_filter_ctx ctx)
{
    int rc = 0;

    for (size_t i = 0; i < G_N_ELEMENTS(denied) && rc == 0; i++) {
        int nr = seccomp_syscall_resolve_name(denied[i].name);

        /* Calls this architecture does not have cannot be made anyway. */
        if (HAVE_SANITIZERS && !strcmp(denied[i].name, "sched_getaffinity")) {
            /* The sanitizers' runtime asks it of every thread it starts. */
            continue;
        }
        if (sandbox.deny[denied[i].group] && nr != __NR_SCMP_ERROR) {
            rc = seccomp_rule_add(ctx, group_action(denied[i].group), nr, 0);
        }
    }
    if (rc == 0 && sandbox.deny[SANDBOX_SPAWN]) {
        rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EPERM), SCMP_SYS(clone),
                              1, SCMP_A0(SCMP_CMP_MASKED_EQ,
                                         CLONE_THREAD | CLONE_VM, 0));
        if (rc == 0) {
            rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
                                  SCMP_SYS(clone3), 0);
        }
    }
    return rc;
}

bool seccomp_install(Error **errp)
{
    scmp_filter_ctx ctx;
    int rc;

    if (!sandbox.enable) {
        return true;
    }
    if (sandbox.no_new_privs && prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
        error_setg_errno(errp, errno, "failed to set no_new_privs");
        return false;
    }
    ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (!ctx) {
        error_setg(errp, "failed to initialize seccomp context");
        return false;
    }
    /* Every thread, including those that exist already. */
    rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1);
    if (rc == 0) {
        rc = add_rules(ctx);
    }
    if (rc == 0) {
        rc = seccomp_load(ctx);
    }
    seccomp_release(ctx);
    if (rc < 0) {
        error_setg_errno(errp, -rc, "failed to install seccomp syscall "
                         "filter in the kernel");
        return false;
    }
    return true;
}
#else
bool seccomp_install(Error **errp)
{
    if (sandbox.enable) {
        error_setg(errp, "seccomp support is disabled");
        return false;
    }
    return true;
}
#endif
