/*
 * KVM accelerator: the /dev/kvm handle and the VM.
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/kvm.h>

#include "system/accel.h"
#include "system/kvm.h"
#include "system/system.h"

typedef struct KVMState {
    int fd;
    int vmfd;
} KVMState;

static KVMState kvm_state = { .fd = -1, .vmfd = -1 };

static const QemuOptDesc kvm_props[] = {
    { "kernel-irqchip", QEMU_OPT_STRING },
    { NULL },
};

/* Capabilities without which this emulator cannot run a guest. */
static const struct {
    int cap;
    const char *name;
} kvm_required_caps[] = {
    { KVM_CAP_USER_MEMORY, "KVM_CAP_USER_MEMORY" },
    { KVM_CAP_IRQCHIP, "KVM_CAP_IRQCHIP" },
    { KVM_CAP_SET_TSS_ADDR, "KVM_CAP_SET_TSS_ADDR" },
    { KVM_CAP_EXT_CPUID, "KVM_CAP_EXT_CPUID" },
};

static int kvm_check_extension(int fd, int cap)
{
    int ret = ioctl(fd, KVM_CHECK_EXTENSION, cap);

    return ret < 0 ? 0 : ret;
}

static bool kvm_disable_pm_exits(int vmfd, Error **errp)
{
    int want = KVM_X86_DISABLE_EXITS_HLT | KVM_X86_DISABLE_EXITS_MWAIT |
               KVM_X86_DISABLE_EXITS_PAUSE;
    int have = kvm_check_extension(vmfd, KVM_CAP_X86_DISABLE_EXITS);
    struct kvm_enable_cap cap = { .cap = KVM_CAP_X86_DISABLE_EXITS };

    if ((have & want) != want) {
        error_setg(errp, "-overcommit cpu-pm=on: this host's KVM cannot "
                   "leave HLT, MWAIT and PAUSE to the guest "
                   "(KVM_CAP_X86_DISABLE_EXITS offers 0x%x)", have);
        return false;
    }
    cap.args[0] = want;
    if (ioctl(vmfd, KVM_ENABLE_CAP, &cap) < 0) {
        error_setg_errno(errp, errno, "-overcommit cpu-pm=on: "
                         "KVM_ENABLE_CAP(KVM_CAP_X86_DISABLE_EXITS)");
        return false;
    }
    return true;
}

static void kvm_accel_cleanup(void)
{
    if (kvm_state.vmfd >= 0) {
        close(kvm_state.vmfd);
    }
    if (kvm_state.fd >= 0) {
        close(kvm_state.fd);
    }
    kvm_state.vmfd = kvm_state.fd = -1;
}

static bool kvm_accel_init(MachineState *ms, const QemuOpts *props,
                           Error **errp)
{
    int ret;

    (void)ms;
    (void)props;
    kvm_state.fd = open("/dev/kvm", O_RDWR | O_CLOEXEC);
    if (kvm_state.fd < 0) {
        error_setg_errno(errp, errno, "Could not access KVM kernel module");
        return false;
    }
    ret = ioctl(kvm_state.fd, KVM_GET_API_VERSION, 0);
    if (ret != KVM_API_VERSION) {
        error_setg(errp, "KVM API version %d is not supported (need %d)",
                   ret, KVM_API_VERSION);
        goto fail;
    }
    for (size_t i = 0; i < G_N_ELEMENTS(kvm_required_caps); i++) {
        if (!kvm_check_extension(kvm_state.fd, kvm_required_caps[i].cap)) {
            error_setg(errp, "kvm does not support %s, which this "
                       "emulator requires", kvm_required_caps[i].name);
            goto fail;
        }
    }
    do {
        kvm_state.vmfd = ioctl(kvm_state.fd, KVM_CREATE_VM, 0);
    } while (kvm_state.vmfd < 0 && errno == EINTR);
    if (kvm_state.vmfd < 0) {
        error_setg_errno(errp, errno, "ioctl(KVM_CREATE_VM) failed");
        goto fail;
    }
    if (enable_cpu_pm && !kvm_disable_pm_exits(kvm_state.vmfd, errp)) {
        goto fail;
    }
    return true;

fail:
    kvm_accel_cleanup();
    return false;
}

bool kvm_enabled(void)
{
    return kvm_state.vmfd >= 0;
}

int kvm_get_fd(void)
{
    return kvm_state.fd;
}

int kvm_get_vm_fd(void)
{
    return kvm_state.vmfd;
}

const AccelClass kvm_accel_class = {
    .name = "kvm",
    .props = kvm_props,
    .init = kvm_accel_init,
    .cleanup = kvm_accel_cleanup,
};
