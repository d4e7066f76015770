/*
 * Debian's Linux with virtio-serial and virtio-rng under the software
 * CPU: the kernel's own virtio_console and virtio_rng modules, loaded by
 * the /init of linux-vport-init.sh (VPORT_INIT_CPIO, laid over the
 * busybox initramfs). The guest must find a virtserialport named
 * org.qemu.guest_agent.0 (/sys/class/virtio-ports/vportNpM/name), read
 * the line the test wrote into the port's socket before the guest was
 * even up (it waited in the socket) and send it back; write to hvc0,
 * the virtconsole, whose chardev is a file; and see virtio_rng in
 * hw_random's rng_available, reading 16 bytes of /dev/hwrng from an
 * rng-random backend.
 *
 * Skipped with the reason without the fetched guest.
 * LINUX_BOOT_TIMEOUT (seconds, default 300) bounds the boot.
 */
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300

typedef struct Agent {
    int listen_fd;
    unsigned timeout_s;
    GString *got;               /* what the guest sent back */
} Agent;

/* The host end of the port: send a line, collect the answer. */
static gpointer agent_thread(gpointer opaque)
{
    Agent *a = opaque;
    struct pollfd p = { .fd = a->listen_fd, .events = POLLIN };
    int fd;

    if (poll(&p, 1, 30000) != 1) {
        return NULL;
    }
    fd = accept(a->listen_fd, NULL, NULL);
    if (fd < 0) {
        return NULL;
    }
    if (write(fd, "ping from the host\n", 19) != 19) {
        close(fd);
        return NULL;
    }
    while (!strchr(a->got->str, '\n')) {
        struct pollfd q = { .fd = fd, .events = POLLIN };
        char buf[256];
        ssize_t n;

        if (poll(&q, 1, a->timeout_s * 1000) != 1) {
            break;
        }
        n = read(fd, buf, sizeof(buf));
        if (n <= 0) {
            break;
        }
        g_string_append_len(a->got, buf, n);
    }
    close(fd);
    return NULL;
}

static void test_virtio_serial_rng(void)
{
    static const char *const lines[] = {
        "init: vport /dev/vport",
        "name org.qemu.guest_agent.0",
        "init: vport got ping from the host",
        "init: rng available virtio_rng.0",
        "init: hwrng 16 bytes",
        "init: poweroff",
        NULL,
    };
    g_autofree char *kernel = NULL, *modules = NULL, *dir = NULL;
    g_autofree char *initrd = NULL, *sock = NULL, *hvc = NULL;
    g_autofree char *chardevs = NULL, *hvc_out = NULL;
    g_auto(GStrv) log = NULL;
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    Agent agent = { .got = g_string_new(NULL) };
    GPtrArray *args;
    GThread *thread;
    VmRun run;

    if (!vm_require_accel("tcg")) {
        return;
    }
    kernel = vm_require_linux_guest("vmlinux");
    modules = kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return;
    }
    dir = g_dir_make_tmp("linux-vser-XXXXXX", NULL);
    sock = g_build_filename(dir, "agent.sock", NULL);
    hvc = g_build_filename(dir, "hvc0.log", NULL);
    g_assert_cmpuint(strlen(sock), <, sizeof(sa.sun_path));
    strcpy(sa.sun_path, sock);
    agent.listen_fd = socket(AF_UNIX, SOCK_STREAM, 0);
    g_assert_cmpint(bind(agent.listen_fd, (struct sockaddr *)&sa,
                         sizeof(sa)), ==, 0);
    g_assert_cmpint(listen(agent.listen_fd, 1), ==, 0);
    agent.timeout_s = vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S);
    thread = g_thread_new("agent", agent_thread, &agent);

    initrd = vm_linux_initrd(dir, (const char *const[]) { modules,
                                                          VPORT_INIT_CPIO,
                                                          NULL });
    args = vm_args_new("-accel tcg -M pc -m 512M -display none -no-reboot");
    vm_args_add(args, "-append");
    vm_args_add(args, "console=ttyS0 panic=-1");
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    chardevs = g_strdup_printf(
        "-chardev socket,id=ga,path=%s -chardev file,id=hvc,path=%s "
        "-device virtio-serial-pci -device virtconsole,chardev=hvc "
        "-device virtserialport,chardev=ga,name=org.qemu.guest_agent.0 "
        "-object rng-random,id=rng0,filename=/dev/urandom "
        "-device virtio-rng-pci,rng=rng0", sock, hvc);
    vm_args_split(args, chardevs);
    run = vm_run(args, 0, agent.timeout_s);
    g_ptr_array_free(args, TRUE);
    g_thread_join(thread);

    /* The guest's findings, for the log. */
    log = g_strsplit(run.serial, "\n", -1);
    for (char **l = log; *l; l++) {
        if (g_str_has_prefix(*l, "init: ")) {
            g_test_message("%s", g_strchomp(*l));
        }
    }
    vm_run_expect_lines(&run, lines);
    /* Host bytes in, guest bytes out, through one virtserialport. */
    g_assert_cmpstr(agent.got->str, ==, "guest echo: ping from the host\n");
    g_assert_true(g_file_get_contents(hvc, &hvc_out, NULL, NULL));
    g_assert_nonnull(strstr(hvc_out, "hello from hvc0"));

    vm_run_free(&run);
    g_string_free(agent.got, TRUE);
    close(agent.listen_fd);
    g_unlink(sock);
    g_unlink(hvc);
    g_unlink(initrd);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/linux/tcg/virtio-serial-rng", test_virtio_serial_rng);
    return g_test_run();
}
