/*
 * Debian's Linux on virtio-net and -netdev user under the software CPU:
 * the guest (tests/guest/linux/net-init.sh as /init) loads virtio_net
 * with failover and net_failover from the kernel package, gets
 * 10.0.2.15 from slirp's DHCP (busybox udhcpc), fetches a file with
 * busybox wget from the HTTP server this test runs on 127.0.0.1,
 * reached through the gateway 10.0.2.2, and serves a page with busybox
 * httpd, which the test fetches through hostfwd; the same through an
 * e1000 (the e1000 module). Then two guests on a -netdev socket wire
 * (listen=, connect=): one fetches the other's page.
 *
 * Skipped with the reason without the fetched guest.
 * LINUX_BOOT_TIMEOUT (seconds, default 300) bounds the boot.
 */
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "qemu-vm.h"

#define DEFAULT_TIMEOUT_S   300
#define HOST_BODY           "hello from the host over slirp"
#define GUEST_BODY          "served by the guest"

static int listen_loopback(int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(bind(fd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    g_assert_cmpint(listen(fd, 4), ==, 0);
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&a, &len), ==, 0);
    *port = ntohs(a.sin_port);
    return fd;
}

/* A one-request HTTP/1.0 server: whatever is asked, HOST_BODY. */
static gpointer http_serve_one(gpointer opaque)
{
    int lfd = GPOINTER_TO_INT(opaque);
    int fd = accept(lfd, NULL, NULL);
    GString *req = g_string_new(NULL);
    g_autofree char *rsp = NULL;
    char buf[512];
    ssize_t n;

    if (fd < 0) {
        return NULL;
    }
    while (!strstr(req->str, "\r\n\r\n") &&
           (n = read(fd, buf, sizeof(buf))) > 0) {
        g_string_append_len(req, buf, n);
    }
    rsp = g_strdup_printf("HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n"
                          "Content-Length: %zu\r\n\r\n%s",
                          strlen(HOST_BODY), HOST_BODY);
    if (write(fd, rsp, strlen(rsp)) < 0) {
        g_test_message("http server: write: %s", g_strerror(errno));
    }
    close(fd);
    return g_string_free(req, FALSE);
}

/* GET / from 127.0.0.1:port; the whole response. */
static char *http_get(int port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
                             .sin_port = htons(port) };
    static const char req[] = "GET / HTTP/1.0\r\n\r\n";
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct timeval tv = { .tv_sec = 60 };
    GString *rsp = g_string_new(NULL);
    char buf[512];
    ssize_t n;

    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
        write(fd, req, strlen(req)) == (ssize_t)strlen(req)) {
        while ((n = read(fd, buf, sizeof(buf))) > 0) {
            g_string_append_len(rsp, buf, n);
        }
    }
    close(fd);
    return g_string_free(rsp, FALSE);
}

static bool wait_line(QemuVm *vm, const char *text, unsigned timeout_s)
{
    g_autofree char *serial = NULL;

    for (unsigned i = 0; i < timeout_s * 10; i++) {
        if (vm_serial_count(vm, text)) {
            return true;
        }
        if (vm_exited(vm)) {
            break;
        }
        g_usleep(100000);
    }
    serial = vm_serial(vm);
    g_test_message("serial log:\n%s\nstderr:\n%s", serial, vm_stderr(vm));
    return false;
}

/*
 * The kernel with the initrd, "append" after the console, on netdev
 * through a NIC of model.
 */
static QemuVm *start_guest(const char *kernel, const char *initrd,
                           const char *append, const char *netdev,
                           const char *model, const char *mac)
{
    g_autofree char *cmdline = g_strdup_printf("console=ttyS0 panic=-1 %s",
                                               append);
    g_autofree char *nic = g_strdup_printf("%s,netdev=n0,mac=%s", model,
                                           mac);
    GPtrArray *args;
    QemuVm *vm;

    args = vm_args_new("-accel tcg -M pc -m 512M -display none -no-reboot");
    vm_args_add(args, "-kernel");
    vm_args_add(args, kernel);
    vm_args_add(args, "-initrd");
    vm_args_add(args, initrd);
    vm_args_add(args, "-append");
    vm_args_add(args, cmdline);
    vm_args_add(args, "-netdev");
    vm_args_add(args, netdev);
    vm_args_add(args, "-device");
    vm_args_add(args, nic);
    vm = vm_start(args, VM_QMP);
    g_ptr_array_free(args, TRUE);
    return vm;
}

/*
 * The kernel and an initrd with the modules and net-init.sh as /init in
 * a new *dir; false (the test skipped) without tcg or the guest.
 */
static bool prepare_guest(char **kernel, char **dir, char **initrd)
{
    g_autofree char *modules = NULL;

    if (!vm_require_accel("tcg")) {
        return false;
    }
    *kernel = vm_require_linux_guest("vmlinux");
    modules = *kernel ? vm_require_linux_guest("modules.cpio") : NULL;
    if (!modules) {
        return false;
    }
    *dir = g_dir_make_tmp("linux-net-XXXXXX", NULL);
    *initrd = vm_linux_initrd(*dir, (const char *const[]) {
                                  modules, NET_INIT_CPIO, NULL });
    return true;
}

/* A DHCP lease, a fetch from the host and a page served through hostfwd. */
static void test_user_net(const void *model)
{
    g_autofree char *kernel = NULL, *dir = NULL;
    g_autofree char *initrd = NULL, *append = NULL, *netdev = NULL;
    g_autofree char *request = NULL, *page = NULL, *serial = NULL;
    int http_port, fwd_port, lfd, probe;
    unsigned timeout = vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S);
    GThread *server;
    QemuVm *vm;

    if (!strcmp(model, "e1000")) {
        g_autofree char *list = vm_require_linux_guest("MODULES");
        g_autofree char *mods = NULL;

        if (list && g_file_get_contents(list, &mods, NULL, NULL) &&
            !strstr(mods, "e1000")) {
            g_test_skip("the guest has no e1000 module: rerun "
                        "scripts/fetch-linux-guest.sh");
            return;
        }
    }
    if (!prepare_guest(&kernel, &dir, &initrd)) {
        return;
    }
    lfd = listen_loopback(&http_port);
    probe = listen_loopback(&fwd_port);
    close(probe);
    server = g_thread_new("http", http_serve_one, GINT_TO_POINTER(lfd));
    append = g_strdup_printf("http_port=%d", http_port);
    netdev = g_strdup_printf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:8080",
                             fwd_port);
    vm = start_guest(kernel, initrd, append, netdev, model,
                     "52:54:00:12:34:56");
    g_assert_true(wait_line(vm, "init: net serving", timeout));
    serial = vm_serial(vm);
    g_assert_nonnull(strstr(serial,
                            "init: net lease 10.0.2.15 router 10.0.2.2"));
    g_assert_nonnull(strstr(serial, "init: net got " HOST_BODY));
    request = g_thread_join(server);
    g_assert_nonnull(request);
    g_assert_true(g_str_has_prefix(request, "GET /hello HTTP/1."));
    /* The guest's httpd through hostfwd. */
    page = http_get(fwd_port);
    g_assert_nonnull(strstr(page, "200 OK"));
    g_assert_nonnull(strstr(page, GUEST_BODY));
    vm_quit(vm);
    vm_free(vm);
    close(lfd);
    g_unlink(initrd);
    g_rmdir(dir);
}

/*
 * Two guests on one wire: A listens, B connects (-netdev socket); B
 * fetches A's page over it.
 */
static void test_socket_pair(void)
{
    g_autofree char *kernel = NULL, *dir = NULL;
    g_autofree char *initrd = NULL, *listen_nd = NULL, *connect_nd = NULL;
    g_autofree char *serial = NULL;
    unsigned timeout = vm_linux_boot_timeout_s(DEFAULT_TIMEOUT_S);
    int port, probe;
    QemuVm *a, *b;

    if (!prepare_guest(&kernel, &dir, &initrd)) {
        return;
    }
    probe = listen_loopback(&port);
    close(probe);
    listen_nd = g_strdup_printf("socket,id=n0,listen=127.0.0.1:%d", port);
    connect_nd = g_strdup_printf("socket,id=n0,connect=127.0.0.1:%d", port);
    a = start_guest(kernel, initrd, "static_ip=10.0.3.1", listen_nd,
                    "virtio-net-pci", "52:54:00:00:03:01");
    b = start_guest(kernel, initrd, "static_ip=10.0.3.2 peer_ip=10.0.3.1",
                    connect_nd, "virtio-net-pci", "52:54:00:00:03:02");
    g_assert_true(wait_line(b, "init: net serving", timeout));
    serial = vm_serial(b);
    if (!strstr(serial, "init: net peer says " GUEST_BODY)) {
        g_autofree char *serial_a = vm_serial(a);

        g_test_message("B:\n%s\nA:\n%s", serial, serial_a);
    }
    g_assert_nonnull(strstr(serial, "init: net peer says " GUEST_BODY));
    vm_quit(b);
    vm_quit(a);
    vm_free(b);
    vm_free(a);
    g_unlink(initrd);
    g_rmdir(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_data_func("/linux/tcg/virtio-net-user", "virtio-net-pci",
                         test_user_net);
    g_test_add_data_func("/linux/tcg/e1000-user", "e1000", test_user_net);
    g_test_add_func("/linux/tcg/virtio-net-socket-pair", test_socket_pair);
    return g_test_run();
}
