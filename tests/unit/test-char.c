/*
 * Unit tests for the chardev layer (chardev/): each backend driven from a
 * real glib main loop, the frontend contract (events, can_read flow
 * control, bounded output), the mux escapes, the shorthand parser and
 * QEMU's error messages. Every wait is bounded: a hang is a failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <termios.h>
#include <unistd.h>

#include <glib.h>
#include <glib/gstdio.h>

#include "chardev/char.h"

#define WAIT_USEC (5 * G_USEC_PER_SEC)

/* Spin the main loop until cond holds; fail after WAIT_USEC. */
#define WAIT_FOR(cond)                                                   \
    do {                                                                 \
        gint64 end_ = g_get_monotonic_time() + WAIT_USEC;                \
        while (!(cond) && g_get_monotonic_time() < end_) {               \
            if (!g_main_context_iteration(NULL, FALSE)) {                \
                g_usleep(1000);                                          \
            }                                                            \
        }                                                                \
        g_assert_true(cond);                                             \
    } while (0)

/* Run the main loop for a while, for "nothing happens" checks. */
static void spin(int ms)
{
    gint64 end = g_get_monotonic_time() + ms * 1000;

    while (g_get_monotonic_time() < end) {
        if (!g_main_context_iteration(NULL, FALSE)) {
            g_usleep(1000);
        }
    }
}

/* A frontend that records what it sees. */
typedef struct TestFe {
    CharBackend be;
    GString *got;
    int room;               /* what can_read returns */
    int max_chunk;          /* largest single read delivered */
    int opened, closed, breaks, mux_in, mux_out;
} TestFe;

static int fe_can_read(void *opaque)
{
    return ((TestFe *)opaque)->room;
}

static void fe_read(void *opaque, const uint8_t *buf, int size)
{
    TestFe *fe = opaque;

    g_assert_cmpint(size, <=, fe->room);
    g_string_append_len(fe->got, (const char *)buf, size);
    fe->max_chunk = MAX(fe->max_chunk, size);
}

static void fe_event(void *opaque, ChrEvent event)
{
    TestFe *fe = opaque;

    switch (event) {
    case CHR_EVENT_OPENED:
        fe->opened++;
        break;
    case CHR_EVENT_CLOSED:
        fe->closed++;
        break;
    case CHR_EVENT_BREAK:
        fe->breaks++;
        break;
    case CHR_EVENT_MUX_IN:
        fe->mux_in++;
        break;
    case CHR_EVENT_MUX_OUT:
        fe->mux_out++;
        break;
    }
}

static void fe_attach(TestFe *fe, Chardev *chr)
{
    Error *err = NULL;

    memset(fe, 0, sizeof(*fe));
    fe->got = g_string_new(NULL);
    fe->room = 4096;
    g_assert_true(qemu_chr_fe_init(&fe->be, chr, &err));
    g_assert_null(err);
    qemu_chr_fe_set_handlers(&fe->be, fe_can_read, fe_read, fe_event, fe);
}

static void fe_free(TestFe *fe)
{
    qemu_chr_fe_deinit(&fe->be);
    g_string_free(fe->got, TRUE);
}

static int fe_puts(TestFe *fe, const char *s)
{
    return qemu_chr_fe_write(&fe->be, (const uint8_t *)s, strlen(s));
}

static void assert_error(Error *err, const char *msg)
{
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
}

static Chardev *chr_ok(const char *args)
{
    Error *err = NULL;
    QemuOpts *opts = qemu_opts_parse(args, "backend", &err);
    Chardev *chr;

    g_assert_null(err);
    chr = qemu_chr_new_from_opts(opts, &err);
    if (err) {
        g_test_message("%s: %s", args, error_get_pretty(err));
    }
    g_assert_null(err);
    g_assert_nonnull(chr);
    qemu_opts_free(opts);
    return chr;
}

static void chr_fails(const char *args, const char *msg)
{
    Error *err = NULL;
    QemuOpts *opts = qemu_opts_parse(args, "backend", &err);

    g_assert_null(err);
    g_assert_null(qemu_chr_new_from_opts(opts, &err));
    assert_error(err, msg);
    qemu_opts_free(opts);
}

static void assert_filename(Chardev *chr, const char *expect)
{
    char *name = qemu_chr_get_filename(chr);

    g_assert_cmpstr(name, ==, expect);
    g_free(name);
}

static char *tmp_dir;

static char *tmp_path(const char *name)
{
    return g_build_filename(tmp_dir, name, NULL);
}

/* --- test-side sockets ---------------------------------------------------- */

static int unix_connect(const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    g_assert_cmpint(fd, >=, 0);
    g_strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static int unix_listen(const char *path)
{
    struct sockaddr_un sun = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    g_strlcpy(sun.sun_path, path, sizeof(sun.sun_path));
    g_assert_cmpint(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), ==, 0);
    g_assert_cmpint(listen(fd, 1), ==, 0);
    return fd;
}

static int tcp_socket_on(int port, struct sockaddr_in *sin)
{
    memset(sin, 0, sizeof(*sin));
    sin->sin_family = AF_INET;
    sin->sin_port = htons(port);
    sin->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
}

static int tcp_port_of(int fd)
{
    struct sockaddr_in sin;
    socklen_t len = sizeof(sin);

    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&sin, &len), ==, 0);
    return ntohs(sin.sin_port);
}

/* A free port: bind port 0, note the number, let it go. */
static int tcp_free_port(void)
{
    struct sockaddr_in sin;
    int fd = tcp_socket_on(0, &sin);
    int port;

    g_assert_cmpint(bind(fd, (struct sockaddr *)&sin, sizeof(sin)), ==, 0);
    port = tcp_port_of(fd);
    close(fd);
    return port;
}

static int tcp_connect(int port)
{
    struct sockaddr_in sin;
    int fd = tcp_socket_on(port, &sin);

    if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

static void send_all(int fd, const char *s)
{
    g_assert_cmpint(send(fd, s, strlen(s), MSG_NOSIGNAL), ==, strlen(s));
}

/* Read until expect has arrived (spinning the loop), then compare. */
static void recv_expect(int fd, const char *expect)
{
    GString *got = g_string_new(NULL);
    gint64 end = g_get_monotonic_time() + WAIT_USEC;
    size_t want = strlen(expect);

    while (got->len < want && g_get_monotonic_time() < end) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        char buf[256];

        g_main_context_iteration(NULL, FALSE);
        if (poll(&pfd, 1, 1) == 1) {
            ssize_t n = read(fd, buf, MIN(sizeof(buf), want - got->len));

            g_assert_cmpint(n, >, 0);
            g_string_append_len(got, buf, n);
        }
    }
    g_assert_cmpstr(got->str, ==, expect);
    g_string_free(got, TRUE);
}

/* Peer sees EOF within the time limit. */
static void recv_eof(int fd)
{
    gint64 end = g_get_monotonic_time() + WAIT_USEC;

    for (;;) {
        char c;
        ssize_t n = recv(fd, &c, 1, MSG_DONTWAIT);

        if (n == 0) {
            return;
        }
        g_assert_true(n < 0 && errno == EAGAIN);
        g_assert_cmpint(g_get_monotonic_time(), <, end);
        spin(1);
    }
}

/* --- null, file, pipe, stdio ---------------------------------------------- */

static void test_null(void)
{
    Chardev *chr = chr_ok("null,id=n0");
    TestFe fe;

    g_assert_false(qemu_chr_is_connected(chr));
    fe_attach(&fe, chr);
    g_assert_true(qemu_chr_is_connected(chr));
    g_assert_true(qemu_chr_fe_backend_connected(&fe.be));
    g_assert_cmpint(fe_puts(&fe, "discarded"), ==, 9);
    assert_filename(chr, "null");
    g_assert_cmpstr(qemu_chr_get_id(chr), ==, "n0");
    g_assert_false(qemu_chr_is_mux(chr));
    g_assert_true(qemu_chr_find("n0") == chr);
    fe_free(&fe);
    g_assert_false(qemu_chr_is_connected(chr));
    qemu_chr_cleanup_all();
    g_assert_null(qemu_chr_find("n0"));
}

static void test_file_write(void)
{
    char *path = tmp_path("out.txt");
    char *args = g_strdup_printf("file,id=f0,path=%s", path);
    char *contents;
    Chardev *chr;
    TestFe fe;

    g_file_set_contents(path, "old contents\n", -1, NULL);
    chr = chr_ok(args);
    fe_attach(&fe, chr);
    g_assert_cmpint(fe.opened, ==, 1);
    g_assert_cmpint(qemu_chr_fe_printf(&fe.be, "hello %d\n", 42), ==, 9);
    assert_filename(chr, "file");
    fe_free(&fe);
    qemu_chr_cleanup_all();
    /* Without append=on the file starts empty. */
    g_assert_true(g_file_get_contents(path, &contents, NULL, NULL));
    g_assert_cmpstr(contents, ==, "hello 42\n");
    g_free(contents);
    g_free(args);
    g_free(path);
}

static void test_file_append(void)
{
    char *path = tmp_path("append.txt");
    char *args = g_strdup_printf("file,id=f1,path=%s,append=on", path);
    char *contents;
    TestFe fe;

    g_file_set_contents(path, "line1\n", -1, NULL);
    fe_attach(&fe, chr_ok(args));
    fe_puts(&fe, "line2\n");
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_assert_true(g_file_get_contents(path, &contents, NULL, NULL));
    g_assert_cmpstr(contents, ==, "line1\nline2\n");
    g_free(contents);
    g_free(args);
    g_free(path);
}

static void test_file_errors(void)
{
    chr_fails("file,id=f2", "chardev: file: no filename given");
    chr_fails("file,id=f2,path=/nonexistent-dir/x",
              "Could not open '/nonexistent-dir/x': "
              "No such file or directory");
    chr_fails("file,id=f2,path=/tmp/x,append=maybe",
              "Parameter 'append' expects 'on' or 'off'");
    g_assert_null(qemu_chr_find("f2"));
}

static void test_pipe_in_out(void)
{
    char *base = tmp_path("pipe");
    char *in = g_strdup_printf("%s.in", base);
    char *out = g_strdup_printf("%s.out", base);
    char *args = g_strdup_printf("pipe,id=p0,path=%s", base);
    int fd_in, fd_out;
    TestFe fe;

    g_assert_cmpint(mkfifo(in, 0600), ==, 0);
    g_assert_cmpint(mkfifo(out, 0600), ==, 0);
    fe_attach(&fe, chr_ok(args));
    fd_in = open(in, O_WRONLY | O_NONBLOCK);
    fd_out = open(out, O_RDONLY | O_NONBLOCK);
    g_assert_cmpint(fd_in, >=, 0);
    g_assert_cmpint(fd_out, >=, 0);

    g_assert_cmpint(write(fd_in, "to-guest", 8), ==, 8);
    WAIT_FOR(fe.got->len == 8);
    g_assert_cmpstr(fe.got->str, ==, "to-guest");

    g_assert_cmpint(fe_puts(&fe, "to-host"), ==, 7);
    recv_expect(fd_out, "to-host");

    close(fd_in);
    close(fd_out);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    unlink(in);
    unlink(out);
    g_free(args);
    g_free(in);
    g_free(out);
    g_free(base);
}

static void test_pipe_single(void)
{
    char *path = tmp_path("single");
    char *args = g_strdup_printf("pipe,id=p1,path=%s", path);
    char *contents;
    TestFe fe;

    /* No P.in/P.out: P itself, here a plain file, is used both ways. */
    g_file_set_contents(path, "", 0, NULL);
    fe_attach(&fe, chr_ok(args));
    fe.room = 0;
    qemu_chr_fe_accept_input(&fe.be);
    fe_puts(&fe, "both-ways");
    assert_filename(qemu_chr_find("p1"), "pipe");
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_assert_true(g_file_get_contents(path, &contents, NULL, NULL));
    g_assert_cmpstr(contents, ==, "both-ways");
    g_free(contents);

    chr_fails("pipe,id=p2", "chardev: pipe: no filename given");
    chr_fails("pipe,id=p2,path=/nonexistent-dir/p",
              "Could not open '/nonexistent-dir/p': "
              "No such file or directory");
    g_free(args);
    g_free(path);
}

static void test_stdio(void)
{
    int saved_in = dup(0), saved_out = dup(1);
    int in[2], out[2];
    Error *err = NULL;
    TestFe fe;

    /* Swap pipes in for stdin/stdout: the TAP stream must stay clean. */
    g_assert_cmpint(pipe(in), ==, 0);
    g_assert_cmpint(pipe(out), ==, 0);
    fflush(stdout);
    dup2(in[0], 0);
    dup2(out[1], 1);

    fe_attach(&fe, chr_ok("stdio,id=s0,signal=off"));
    g_assert_null(qemu_chr_new("s1", "stdio", &err));
    assert_error(err, "cannot use stdio by multiple character devices");
    g_assert_cmpint(write(in[1], "key", 3), ==, 3);
    WAIT_FOR(fe.got->len == 3);
    g_assert_cmpstr(fe.got->str, ==, "key");
    fe_puts(&fe, "screen");
    recv_expect(out[0], "screen");
    assert_filename(qemu_chr_find("s0"), "stdio");
    fe_free(&fe);
    qemu_chr_cleanup_all();

    dup2(saved_in, 0);
    dup2(saved_out, 1);
    close(saved_in);
    close(saved_out);
    close(in[0]);
    close(in[1]);
    close(out[0]);
    close(out[1]);
    g_assert_false(fcntl(1, F_GETFL) & O_NONBLOCK);
}

/* --- sockets ---------------------------------------------------------------- */

static void test_unix_server_reconnect(void)
{
    char *path = tmp_path("srv.sock");
    char *args = g_strdup_printf("socket,id=u0,path=%s,server=on,wait=off",
                                 path);
    char *name;
    Chardev *chr;
    TestFe fe;
    int c1, c2;

    chr = chr_ok(args);
    fe_attach(&fe, chr);
    name = g_strdup_printf("disconnected:unix:%s,server=on", path);
    assert_filename(chr, name);
    g_free(name);
    g_assert_cmpint(fe.opened, ==, 0);
    /* Nobody there: output is discarded, not queued. */
    g_assert_cmpint(fe_puts(&fe, "lost"), ==, 4);

    c1 = unix_connect(path);
    g_assert_cmpint(c1, >=, 0);
    WAIT_FOR(fe.opened == 1);
    name = g_strdup_printf("unix:%s,server=on", path);
    assert_filename(chr, name);
    g_free(name);
    send_all(c1, "ping");
    WAIT_FOR(fe.got->len == 4);
    g_assert_cmpstr(fe.got->str, ==, "ping");
    fe_puts(&fe, "pong");
    recv_expect(c1, "pong");

    close(c1);
    WAIT_FOR(fe.closed == 1);

    c2 = unix_connect(path);
    g_assert_cmpint(c2, >=, 0);
    WAIT_FOR(fe.opened == 2);
    send_all(c2, "again");
    WAIT_FOR(fe.got->len == 9);
    g_assert_cmpstr(fe.got->str, ==, "pingagain");
    fe_puts(&fe, "ok");
    recv_expect(c2, "ok");
    close(c2);
    WAIT_FOR(fe.closed == 2);

    fe_free(&fe);
    qemu_chr_cleanup_all();
    /* The server's socket file goes with it. */
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
    g_free(args);
    g_free(path);
}

static void test_unix_server_stale_file(void)
{
    char *path = tmp_path("stale.sock");
    char *args = g_strdup_printf("socket,id=u1,path=%s,server=on,wait=off",
                                 path);
    int fd = unix_listen(path);

    /* Left behind by a crashed run: bind must still succeed. */
    close(fd);
    g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));
    chr_ok(args);
    qemu_chr_cleanup_all();
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
    g_free(args);
    g_free(path);
}

static gpointer connect_later(gpointer opaque)
{
    const char *path = opaque;

    /* Keep trying until the server under test has bound its socket. */
    for (int i = 0; i < 5000; i++) {
        int fd = unix_connect(path);

        if (fd >= 0) {
            return GINT_TO_POINTER(fd);
        }
        g_usleep(1000);
    }
    return GINT_TO_POINTER(-1);
}

static void test_unix_server_wait(void)
{
    char *path = tmp_path("wait.sock");
    char *args = g_strdup_printf("socket,id=u2,path=%s,server=on", path);
    GThread *client = g_thread_new("client", connect_later, path);
    Chardev *chr;
    TestFe fe;
    int fd;

    /* Blocks until the client thread connects. */
    chr = chr_ok(args);
    fd = GPOINTER_TO_INT(g_thread_join(client));
    g_assert_cmpint(fd, >=, 0);
    /* The frontend comes later and must still hear OPENED. */
    fe_attach(&fe, chr);
    g_assert_cmpint(fe.opened, ==, 1);
    send_all(fd, "hi");
    WAIT_FOR(fe.got->len == 2);
    close(fd);
    WAIT_FOR(fe.closed == 1);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_unix_client(void)
{
    char *path = tmp_path("cli.sock");
    char *args = g_strdup_printf("socket,id=u3,path=%s", path);
    char *name;
    int lfd = unix_listen(path), peer;
    Chardev *chr;
    TestFe fe;

    chr = chr_ok(args);
    peer = accept(lfd, NULL, NULL);
    g_assert_cmpint(peer, >=, 0);
    fe_attach(&fe, chr);
    g_assert_cmpint(fe.opened, ==, 1);
    name = g_strdup_printf("unix:%s", path);
    assert_filename(chr, name);
    g_free(name);

    send_all(peer, "from-server");
    WAIT_FOR(fe.got->len == 11);
    fe_puts(&fe, "from-client");
    recv_expect(peer, "from-client");

    close(peer);
    WAIT_FOR(fe.closed == 1);
    name = g_strdup_printf("disconnected:unix:%s", path);
    assert_filename(chr, name);
    g_free(name);
    g_assert_cmpint(fe_puts(&fe, "dropped"), ==, 7);

    fe_free(&fe);
    qemu_chr_cleanup_all();
    /* Not ours: a client leaves the server's socket file alone. */
    g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));
    close(lfd);
    unlink(path);
    g_free(args);
    g_free(path);
}

static void test_unix_client_refused(void)
{
    char *path = tmp_path("nobody.sock");
    char *args = g_strdup_printf("socket,id=u4,path=%s", path);
    char *msg = g_strdup_printf("Failed to connect to '%s': "
                                "No such file or directory", path);

    chr_fails(args, msg);
    g_free(msg);
    g_free(args);
    g_free(path);
}

static void test_tcp_server(void)
{
    int port = tcp_free_port(), cport, c;
    char *args = g_strdup_printf("socket,id=t0,host=127.0.0.1,port=%d,"
                                 "server=on,wait=off,nodelay=on", port);
    char *name;
    Chardev *chr;
    TestFe fe;

    chr = chr_ok(args);
    fe_attach(&fe, chr);
    name = g_strdup_printf("disconnected:tcp:127.0.0.1:%d,server=on", port);
    assert_filename(chr, name);
    g_free(name);

    c = tcp_connect(port);
    g_assert_cmpint(c, >=, 0);
    cport = tcp_port_of(c);
    WAIT_FOR(fe.opened == 1);
    name = g_strdup_printf("tcp:127.0.0.1:%d,server=on <-> 127.0.0.1:%d",
                           port, cport);
    assert_filename(chr, name);
    g_free(name);

    send_all(c, "abc");
    WAIT_FOR(fe.got->len == 3);
    fe_puts(&fe, "xyz");
    recv_expect(c, "xyz");
    close(c);
    WAIT_FOR(fe.closed == 1);

    c = tcp_connect(port);
    WAIT_FOR(fe.opened == 2);
    close(c);
    WAIT_FOR(fe.closed == 2);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
}

static void test_tcp_client(void)
{
    struct sockaddr_in sin;
    int lfd = tcp_socket_on(0, &sin), port, peer;
    Error *err = NULL;
    char *args;
    Chardev *chr;
    TestFe fe;

    g_assert_cmpint(bind(lfd, (struct sockaddr *)&sin, sizeof(sin)), ==, 0);
    g_assert_cmpint(listen(lfd, 1), ==, 0);
    port = tcp_port_of(lfd);
    args = g_strdup_printf("tcp:127.0.0.1:%d,nodelay=on", port);
    chr = qemu_chr_new("t1", args, &err);
    g_assert_null(err);
    g_assert_nonnull(chr);
    peer = accept(lfd, NULL, NULL);
    fe_attach(&fe, chr);
    g_assert_cmpint(fe.opened, ==, 1);
    send_all(peer, "q");
    WAIT_FOR(fe.got->len == 1);
    fe_puts(&fe, "r");
    recv_expect(peer, "r");
    close(peer);
    WAIT_FOR(fe.closed == 1);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    close(lfd);
    g_free(args);
}

static void test_second_client_waits(void)
{
    char *path = tmp_path("one.sock");
    char *args = g_strdup_printf("socket,id=u5,path=%s,server=on,wait=off",
                                 path);
    TestFe fe;
    int c1, c2;

    fe_attach(&fe, chr_ok(args));
    c1 = unix_connect(path);
    WAIT_FOR(fe.opened == 1);
    /* The second one sits in the backlog; its bytes wait with it. */
    c2 = unix_connect(path);
    g_assert_cmpint(c2, >=, 0);
    send_all(c2, "second");
    spin(50);
    g_assert_cmpint(fe.opened, ==, 1);
    g_assert_cmpstr(fe.got->str, ==, "");
    fe_puts(&fe, "for-c1");
    recv_expect(c1, "for-c1");

    close(c1);
    WAIT_FOR(fe.closed == 1 && fe.opened == 2);
    WAIT_FOR(fe.got->len == 6);
    g_assert_cmpstr(fe.got->str, ==, "second");
    close(c2);
    WAIT_FOR(fe.closed == 2);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_frontend_disconnect(void)
{
    char *path = tmp_path("kick.sock");
    char *args = g_strdup_printf("socket,id=u6,path=%s,server=on,wait=off",
                                 path);
    TestFe fe;
    int c1, c2;

    fe_attach(&fe, chr_ok(args));
    c1 = unix_connect(path);
    WAIT_FOR(fe.opened == 1);
    qemu_chr_fe_disconnect(&fe.be);
    g_assert_cmpint(fe.closed, ==, 1);
    recv_eof(c1);
    close(c1);
    c2 = unix_connect(path);
    WAIT_FOR(fe.opened == 2);
    close(c2);
    WAIT_FOR(fe.closed == 2);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_client_reset(void)
{
    char *path = tmp_path("reset.sock");
    char *args = g_strdup_printf("socket,id=u7,path=%s,server=on,wait=off",
                                 path);
    TestFe fe;
    int c;

    fe_attach(&fe, chr_ok(args));
    c = unix_connect(path);
    WAIT_FOR(fe.opened == 1);
    /* Half a line of garbage, then gone. */
    send_all(c, "\xff\xfe garbage without newl");
    close(c);
    WAIT_FOR(fe.closed == 1);
    g_assert_true(g_str_has_suffix(fe.got->str, "without newl"));
    /* Writing after the peer vanished neither blocks nor fails. */
    for (int i = 0; i < 100; i++) {
        g_assert_cmpint(fe_puts(&fe, "still here\n"), ==, 11);
    }
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_backpressure(void)
{
    char *path = tmp_path("slow.sock");
    char *args = g_strdup_printf("socket,id=u8,path=%s,server=on,wait=off",
                                 path);
    static uint8_t chunk[4096];
    size_t offered = 0, accepted = 0;
    gint64 start;
    bool short_write = false;
    TestFe fe;
    int c, sz = 4096;

    fe_attach(&fe, chr_ok(args));
    c = unix_connect(path);
    /* A small receive buffer, so the kernel cannot hide the problem. */
    setsockopt(c, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
    WAIT_FOR(fe.opened == 1);

    start = g_get_monotonic_time();
    while (offered < 10 * 1024 * 1024) {
        int n = qemu_chr_fe_write(&fe.be, chunk, sizeof(chunk));

        g_assert_cmpint(n, >=, 0);
        g_assert_cmpint(n, <=, sizeof(chunk));
        short_write |= n < (int)sizeof(chunk);
        offered += sizeof(chunk);
        accepted += n;
        if (offered % (256 * 1024) == 0) {
            g_main_context_iteration(NULL, FALSE);
        }
    }
    /* Never blocked: 10 MiB of offers take far less than the timeout. */
    g_assert_cmpint(g_get_monotonic_time() - start, <, WAIT_USEC);
    g_assert_true(short_write);
    /* What was accepted is the socket buffers plus at most the limit. */
    g_assert_cmpuint(accepted, <, 4 * 1024 * 1024);
    g_assert_cmpuint(accepted, >=, CHR_OUTPUT_LIMIT);

    close(c);
    WAIT_FOR(fe.closed == 1);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_can_read_flow_control(void)
{
    char *path = tmp_path("flow.sock");
    char *args = g_strdup_printf("socket,id=u9,path=%s,server=on,wait=off",
                                 path);
    TestFe fe;
    int c;

    fe_attach(&fe, chr_ok(args));
    fe.room = 0;
    qemu_chr_fe_accept_input(&fe.be);
    c = unix_connect(path);
    WAIT_FOR(fe.opened == 1);
    send_all(c, "0123456789");
    spin(50);
    g_assert_cmpuint(fe.got->len, ==, 0);

    /* Room for 3 at a time: never more than that in one read. */
    fe.room = 3;
    qemu_chr_fe_accept_input(&fe.be);
    WAIT_FOR(fe.got->len == 10);
    g_assert_cmpstr(fe.got->str, ==, "0123456789");
    g_assert_cmpint(fe.max_chunk, ==, 3);

    /* A peer that leaves while the frontend takes nothing is noticed. */
    fe.room = 0;
    qemu_chr_fe_accept_input(&fe.be);
    close(c);
    WAIT_FOR(fe.closed == 1);
    c = unix_connect(path);
    WAIT_FOR(fe.opened == 2);
    close(c);
    WAIT_FOR(fe.closed == 2);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_socket_errors(void)
{
    chr_fails("socket,id=e0", "chardev: socket: no host given");
    chr_fails("socket,id=e0,host=127.0.0.1",
              "chardev: socket: no port given");
    chr_fails("socket,id=e0,path=/tmp/x.sock,wait=off",
              "'wait' option is incompatible with socket in client "
              "connect mode");
    chr_fails("socket,id=e0,path=/tmp/x.sock,server=on,reconnect=1",
              "'reconnect' option is incompatible with socket in server "
              "listen mode");
    chr_fails("socket,id=e0,path=/tmp/x.sock,reconnect=2",
              "chardev: socket: 'reconnect' is not supported");
    chr_fails("socket,id=e0,path=/nonexistent-dir/s,server=on,wait=off",
              "Failed to bind socket to /nonexistent-dir/s: "
              "No such file or directory");
    chr_fails("socket,id=e0,path=/tmp/x.sock,telnet=on",
              "Invalid parameter 'telnet'");
    g_assert_null(qemu_chr_find("e0"));
}

/*
 * fd=N: a listening socket made and connected to before the chardev
 * exists, as libvirt passes the monitor's; the file stays (not ours).
 */
static void test_unix_server_inherited_fd(void)
{
    char *path = tmp_path("inh.sock");
    int lfd = unix_listen(path);
    int c1 = unix_connect(path);
    char *args = g_strdup_printf("socket,id=u9,fd=%d,server=on,wait=off",
                                 lfd);
    char *name;
    Chardev *chr;
    TestFe fe;

    g_assert_cmpint(c1, >=, 0);
    chr = chr_ok(args);
    fe_attach(&fe, chr);
    WAIT_FOR(fe.opened == 1);
    name = g_strdup_printf("unix:%s,server=on", path);
    assert_filename(chr, name);
    g_free(name);
    send_all(c1, "hi");
    WAIT_FOR(fe.got->len == 2);
    fe_puts(&fe, "ho");
    recv_expect(c1, "ho");
    close(c1);
    WAIT_FOR(fe.closed == 1);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_assert_true(g_file_test(path, G_FILE_TEST_EXISTS));
    g_assert_cmpint(fcntl(lfd, F_GETFD), <, 0);     /* closed with it */
    unlink(path);
    g_free(args);
    g_free(path);
}

static void test_socket_fd_errors(void)
{
    int pipefd[2];
    char *path = tmp_path("nl.sock");
    int lfd = unix_listen(path);
    char *args;
    char msg[128];

    g_assert_cmpint(pipe(pipefd), ==, 0);
    args = g_strdup_printf("socket,id=e1,fd=%d,server=on", pipefd[0]);
    g_snprintf(msg, sizeof(msg), "File descriptor '%d' is not a stream "
               "socket", pipefd[0]);
    chr_fails(args, msg);
    g_free(args);
    args = g_strdup_printf("socket,id=e1,fd=%d", lfd);
    g_snprintf(msg, sizeof(msg), "File descriptor '%d' is a listening "
               "socket, but server=off", lfd);
    chr_fails(args, msg);
    g_free(args);
    chr_fails("socket,id=e1,fd=999,server=on",
              "Parameter 'fd' expects an open file descriptor number; "
              "'999' is not");
    chr_fails("socket,id=e1,fd=x,server=on",
              "Parameter 'fd' expects an open file descriptor number; "
              "'x' is not");
    args = g_strdup_printf("socket,id=e1,fd=%d,path=/tmp/y,server=on", lfd);
    chr_fails(args, "chardev: socket: 'fd' cannot be used with 'path', "
              "'host' or 'port'");
    g_free(args);
    close(pipefd[0]);
    close(pipefd[1]);
    close(lfd);
    unlink(path);
    g_free(path);
}

/* logfile=: a copy of the output, truncated or appended to. */
static void test_logfile(void)
{
    char *path = tmp_path("chr.log");
    char *args = g_strdup_printf("null,id=l0,logfile=%s", path);
    char *text;
    TestFe fe;

    fe_attach(&fe, chr_ok(args));
    fe_puts(&fe, "one ");
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    args = g_strdup_printf("pty,id=l1,logfile=%s,logappend=on", path);
    fe_attach(&fe, chr_ok(args));
    fe_puts(&fe, "two");
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_cmpstr(text, ==, "one two");
    g_free(text);
    g_free(args);
    args = g_strdup_printf("null,id=l2,logfile=%s", path);
    fe_attach(&fe, chr_ok(args));
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_cmpstr(text, ==, "");
    g_free(text);
    chr_fails("null,id=l3,logfile=/nonexistent-dir/log",
              "Unable to open logfile /nonexistent-dir/log: No such file or "
              "directory");
    g_unlink(path);
    g_free(args);
    g_free(path);
}

/* pty: a terminal whose slave side a reader (virsh console) opens. */
static void test_pty(void)
{
    Chardev *chr = chr_ok("pty,id=p0");
    char *name = qemu_chr_get_filename(chr);
    struct termios tty;
    TestFe fe;
    int fd;

    g_assert_true(g_str_has_prefix(name, "pty:/dev/pts/"));
    fe_attach(&fe, chr);
    /* Output before anyone reads waits in the terminal. */
    fe_puts(&fe, "early ");
    fd = open(name + 4, O_RDWR | O_NOCTTY);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(tcgetattr(fd, &tty), ==, 0);
    g_assert_false(tty.c_lflag & (ICANON | ECHO));      /* raw */
    fe_puts(&fe, "out\n");
    recv_expect(fd, "early out\n");
    g_assert_cmpint(write(fd, "in", 2), ==, 2);
    WAIT_FOR(fe.got->len == 2);
    g_assert_cmpstr(fe.got->str, ==, "in");
    close(fd);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(name);
}

/* --- mux ----------------------------------------------------------------- */

static int exit_requests;

static void count_exit(void)
{
    exit_requests++;
}

static void test_mux_focus(void)
{
    char *path = tmp_path("mux.sock");
    char *spec = g_strdup_printf("mon:unix:%s,server=on,wait=off", path);
    Error *err = NULL;
    Chardev *mux;
    TestFe mon, serial;
    int c;

    mux = qemu_chr_new("serial0", spec, &err);
    g_assert_null(err);
    g_assert_true(qemu_chr_is_mux(mux));
    assert_filename(mux, "mux");
    g_assert_nonnull(qemu_chr_find("serial0-base"));

    /* The monitor comes first; the serial port, last, takes the focus. */
    fe_attach(&mon, mux);
    fe_attach(&serial, mux);
    g_assert_cmpint(mon.be.tag, ==, 0);
    g_assert_cmpint(serial.be.tag, ==, 1);
    g_assert_cmpint(mon.mux_in, ==, 1);
    g_assert_cmpint(mon.mux_out, ==, 1);
    g_assert_cmpint(serial.mux_in, ==, 1);

    c = unix_connect(path);
    WAIT_FOR(mon.opened == 1 && serial.opened == 1);

    send_all(c, "ls\n");
    WAIT_FOR(serial.got->len == 3);
    g_assert_cmpstr(mon.got->str, ==, "");

    send_all(c, "\x01" "c" "info\n");
    WAIT_FOR(mon.got->len == 5);
    g_assert_cmpstr(mon.got->str, ==, "info\n");
    g_assert_cmpint(serial.mux_out, ==, 1);
    g_assert_cmpint(mon.mux_in, ==, 2);

    /* Ctrl-a Ctrl-a is a literal Ctrl-a; Ctrl-a b a break. */
    send_all(c, "\x01\x01" "\x01" "b");
    WAIT_FOR(mon.got->len == 6 && mon.breaks == 1);
    g_assert_cmpint(mon.got->str[5], ==, 0x01);
    g_assert_cmpint(serial.breaks, ==, 0);

    send_all(c, "\x01" "c" "z");
    WAIT_FOR(serial.got->len == 4);
    g_assert_cmpstr(serial.got->str, ==, "ls\nz");

    /* Output from both frontends lands on the one socket. */
    fe_puts(&serial, "guest ");
    fe_puts(&mon, "(qemu) ");
    recv_expect(c, "guest (qemu) ");

    send_all(c, "\x01" "h");
    recv_expect(c, "\n\rC-a h    print this help\n\r");

    close(c);
    WAIT_FOR(mon.closed == 1 && serial.closed == 1);
    fe_free(&serial);
    fe_free(&mon);
    qemu_chr_cleanup_all();
    g_assert_false(g_file_test(path, G_FILE_TEST_EXISTS));
    g_free(spec);
    g_free(path);
}

static void test_mux_exit_and_timestamps(void)
{
    char *path = tmp_path("muxx.sock");
    char *args = g_strdup_printf("socket,id=m1,path=%s,server=on,wait=off,"
                                 "mux=on", path);
    TestFe fe;
    GString *got = g_string_new(NULL);
    int c;

    fe_attach(&fe, chr_ok(args));
    c = unix_connect(path);
    WAIT_FOR(fe.opened == 1);

    /* Without a hook, Ctrl-a x does nothing. */
    chr_mux_exit_hook = NULL;
    send_all(c, "\x01" "x" "a");
    WAIT_FOR(fe.got->len == 1);
    chr_mux_exit_hook = count_exit;
    send_all(c, "\x01" "x");
    WAIT_FOR(exit_requests == 1);
    recv_expect(c, "QEMU: Terminated\n\r");
    chr_mux_exit_hook = NULL;

    /* Ctrl-a t: lines start with "[hh:mm:ss.mmm] " after a newline. */
    send_all(c, "\x01" "t" "b");
    WAIT_FOR(fe.got->len == 2);
    fe_puts(&fe, "one\ntwo");
    recv_expect(c, "one\n[00:00:00.000] two");
    g_string_free(got, TRUE);

    close(c);
    WAIT_FOR(fe.closed == 1);
    fe_free(&fe);
    qemu_chr_cleanup_all();
    g_free(args);
    g_free(path);
}

static void test_mux_limits(void)
{
    Chardev *mux = chr_ok("null,id=m2,mux=on");
    TestFe fe[5];
    CharBackend extra;
    Error *err = NULL;

    for (int i = 0; i < 4; i++) {
        fe_attach(&fe[i], mux);
    }
    g_assert_false(qemu_chr_fe_init(&extra, mux, &err));
    assert_error(err, "too many uses of multiplexed chardev 'm2' "
                 "(maximum is 4)");
    /* The chardev below belongs to the mux. */
    err = NULL;
    g_assert_false(qemu_chr_fe_init(&extra, qemu_chr_find("m2-base"), &err));
    assert_error(err, "Device 'm2-base' is in use");
    for (int i = 3; i >= 0; i--) {
        fe_free(&fe[i]);
    }
    qemu_chr_cleanup_all();
}

/* --- registry and errors ----------------------------------------------- */

static void collect_id(Chardev *chr, void *opaque)
{
    g_string_append_printf(opaque, "%s ", qemu_chr_get_id(chr));
}

static void test_foreach_order(void)
{
    GString *ids = g_string_new(NULL);

    chr_ok("null,id=zz");
    chr_ok("null,id=aa,mux=on");
    chr_ok("null,id=mm");
    qemu_chr_foreach(collect_id, ids);
    g_assert_cmpstr(ids->str, ==, "zz aa-base aa mm ");
    g_string_free(ids, TRUE);
    qemu_chr_cleanup_all();
}

static void test_errors(void)
{
    CharBackend a, b;
    Error *err = NULL;
    Chardev *chr;

    chr_fails("null", "chardev: no id specified");
    chr_fails("id=x", "chardev: \"x\" missing backend");
    chr_fails("foo,id=x", "'foo' is not a valid char driver name");
    chr_fails("null,id=x,path=/tmp", "Invalid parameter 'path'");
    chr_fails("null,id=x,mux=sometimes",
              "Parameter 'mux' expects 'on' or 'off'");

    chr = chr_ok("null,id=dup");
    chr_fails("null,id=dup", "attempt to add duplicate property 'dup' to "
              "object (type 'container')");
    chr_ok("null,id=dup2-base");
    chr_fails("null,id=dup2,mux=on", "attempt to add duplicate property "
              "'dup2-base' to object (type 'container')");
    g_assert_null(qemu_chr_find("dup2"));

    g_assert_true(qemu_chr_fe_init(&a, chr, &err));
    g_assert_false(qemu_chr_fe_init(&b, chr, &err));
    assert_error(err, "Device 'dup' is in use");
    /* Once the first lets go, the chardev is free again. */
    qemu_chr_fe_deinit(&a);
    err = NULL;
    g_assert_true(qemu_chr_fe_init(&b, chr, &err));
    qemu_chr_fe_deinit(&b);
    g_assert_false(qemu_chr_fe_backend_connected(&b));
    qemu_chr_cleanup_all();
}

/* --- shorthands ---------------------------------------------------------- */

static void assert_compat(const char *spec, const char *expect)
{
    Error *err = NULL;
    QemuOpts *opts = qemu_chr_parse_compat("c0", spec, &err);
    char *s;

    g_assert_null(err);
    g_assert_nonnull(opts);
    s = qemu_opts_to_string(opts);
    g_assert_cmpstr(s, ==, expect);
    g_free(s);
    qemu_opts_free(opts);
}

static void assert_compat_fails(const char *spec)
{
    Error *err = NULL;
    char *msg = g_strdup_printf("'%s' is not a valid char driver", spec);

    g_assert_null(qemu_chr_parse_compat("c0", spec, &err));
    assert_error(err, msg);
    err = NULL;
    g_assert_null(qemu_chr_new("c0", spec, &err));
    g_assert_nonnull(err);
    error_free(err);
    g_free(msg);
}

static void test_compat_forms(void)
{
    assert_compat("null", "id=c0,backend=null");
    assert_compat("stdio", "id=c0,backend=stdio");
    assert_compat("pty", "id=c0,backend=pty");
    assert_compat("file:/tmp/a,b", "id=c0,backend=file,path=/tmp/a,,b");
    assert_compat("pipe:/tmp/p", "id=c0,backend=pipe,path=/tmp/p");
    assert_compat("unix:/tmp/s,server=on,wait=off",
                  "id=c0,backend=socket,path=/tmp/s,server=on,wait=off");
    assert_compat("unix:/tmp/s,server,nowait=on",
                  "id=c0,backend=socket,path=/tmp/s,server=on,nowait=on");
    assert_compat("tcp:localhost:4444,server=on,wait=off",
                  "id=c0,backend=socket,host=localhost,port=4444,"
                  "server=on,wait=off");
    assert_compat("tcp::4444,server=on",
                  "id=c0,backend=socket,host=,port=4444,server=on");
    assert_compat("tcp:[::1]:4444", "id=c0,backend=socket,host=::1,port=4444");
    assert_compat("mon:stdio",
                  "id=c0,mux=on,signal=off,backend=stdio");
    assert_compat("mon:unix:/tmp/m,server=on",
                  "id=c0,mux=on,backend=socket,path=/tmp/m,server=on");
}

static void test_compat_errors(void)
{
    assert_compat_fails("vc");
    assert_compat_fails("pty:/tmp/x");
    assert_compat_fails("udp:127.0.0.1:4444");
    assert_compat_fails("telnet::4444,server=on");
    assert_compat_fails("foo");
    assert_compat_fails("tcp:4444");
    assert_compat_fails("mon:vc");
}

static void test_new_special(void)
{
    Error *err = NULL;
    Chardev *chr;

    g_assert_null(qemu_chr_new("serial0", "none", &err));
    g_assert_null(err);
    chr = qemu_chr_new("n1", "null", &err);
    g_assert_null(err);
    g_assert_true(qemu_chr_new("other", "chardev:n1", &err) == chr);
    g_assert_null(qemu_chr_new("other", "chardev:missing", &err));
    assert_error(err, "Chardev 'missing' not found");
    qemu_chr_cleanup_all();
}

static void remove_tmp_dir(void)
{
    GDir *dir = g_dir_open(tmp_dir, 0, NULL);
    const char *name;

    while (dir && (name = g_dir_read_name(dir))) {
        char *path = tmp_path(name);

        g_unlink(path);
        g_free(path);
    }
    if (dir) {
        g_dir_close(dir);
    }
    g_rmdir(tmp_dir);
}

int main(int argc, char **argv)
{
    int ret;

    g_test_init(&argc, &argv, NULL);
    /* As the emulator's main loop does: a dead peer is EPIPE, not death. */
    signal(SIGPIPE, SIG_IGN);
    tmp_dir = g_dir_make_tmp("test-char-XXXXXX", NULL);
    g_assert_nonnull(tmp_dir);

    g_test_add_func("/char/null", test_null);
    g_test_add_func("/char/file/write", test_file_write);
    g_test_add_func("/char/file/append", test_file_append);
    g_test_add_func("/char/file/errors", test_file_errors);
    g_test_add_func("/char/pipe/in-out", test_pipe_in_out);
    g_test_add_func("/char/pipe/single", test_pipe_single);
    g_test_add_func("/char/stdio", test_stdio);
    g_test_add_func("/char/socket/unix-server-reconnect",
                    test_unix_server_reconnect);
    g_test_add_func("/char/socket/unix-server-stale-file",
                    test_unix_server_stale_file);
    g_test_add_func("/char/socket/unix-server-wait", test_unix_server_wait);
    g_test_add_func("/char/socket/unix-client", test_unix_client);
    g_test_add_func("/char/socket/unix-client-refused",
                    test_unix_client_refused);
    g_test_add_func("/char/socket/tcp-server", test_tcp_server);
    g_test_add_func("/char/socket/tcp-client", test_tcp_client);
    g_test_add_func("/char/socket/second-client-waits",
                    test_second_client_waits);
    g_test_add_func("/char/socket/frontend-disconnect",
                    test_frontend_disconnect);
    g_test_add_func("/char/socket/client-reset", test_client_reset);
    g_test_add_func("/char/socket/backpressure", test_backpressure);
    g_test_add_func("/char/socket/can-read-flow-control",
                    test_can_read_flow_control);
    g_test_add_func("/char/socket/errors", test_socket_errors);
    g_test_add_func("/char/socket/unix-server-inherited-fd",
                    test_unix_server_inherited_fd);
    g_test_add_func("/char/socket/fd-errors", test_socket_fd_errors);
    g_test_add_func("/char/pty", test_pty);
    g_test_add_func("/char/logfile", test_logfile);
    g_test_add_func("/char/mux/focus", test_mux_focus);
    g_test_add_func("/char/mux/exit-and-timestamps",
                    test_mux_exit_and_timestamps);
    g_test_add_func("/char/mux/limits", test_mux_limits);
    g_test_add_func("/char/registry/foreach-order", test_foreach_order);
    g_test_add_func("/char/errors", test_errors);
    g_test_add_func("/char/compat/forms", test_compat_forms);
    g_test_add_func("/char/compat/errors", test_compat_errors);
    g_test_add_func("/char/compat/none-and-chardev", test_new_special);

    ret = g_test_run();
    remove_tmp_dir();
    g_free(tmp_dir);
    return ret;
}
