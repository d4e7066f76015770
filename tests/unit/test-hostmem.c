/*
 * Host memory backends and the RAM teardown policy: the decision for
 * every row of the table, the syscalls behind it on real files, size and
 * alignment checks, hugetlbfs page sizes and preallocation failures.
 * Tests that need a mount of their own (tmpfs with a size limit,
 * hugetlbfs) run as root and are skipped with the reason otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <glib.h>

#include "qemu/log.h"
#include "qom/object.h"
#include "system/hostmem.h"
#include "system/os-posix.h"

#define MiB (1024 * 1024)

static const HostMemoryDefaults defaults = { .merge = true, .dump = true };

static HostMemoryBackend *backend_try(const char *arg, Error **errp)
{
    QemuOpts *opts = qemu_opts_parse(arg, "qom-type", errp);
    HostMemoryBackend *be;

    g_assert_nonnull(opts);
    be = host_memory_backend_create(opts, &defaults, errp);
    qemu_opts_free(opts);
    return be;
}

static HostMemoryBackend *backend_new(const char *fmt, ...)
    G_GNUC_PRINTF(1, 2);

static HostMemoryBackend *backend_new(const char *fmt, ...)
{
    Error *err = NULL;
    HostMemoryBackend *be;
    va_list ap;
    char *arg;

    va_start(ap, fmt);
    arg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    be = backend_try(arg, &err);
    if (err) {
        g_error("%s: %s", arg, error_get_pretty(err));
    }
    g_free(arg);
    return be;
}

/* Creating the backend must fail with exactly msg. */
static void backend_fails(const char *arg, const char *msg)
{
    Error *err = NULL;

    g_assert_null(backend_try(arg, &err));
    g_assert_nonnull(err);
    g_assert_cmpstr(error_get_pretty(err), ==, msg);
    error_free(err);
}

static void cleanup(void)
{
    host_memory_backends_cleanup();
    object_cleanup();
}

static char *make_tmpdir(void)
{
    char *dir = g_dir_make_tmp("test-hostmem-XXXXXX", NULL);

    g_assert_nonnull(dir);
    return dir;
}

static unsigned dir_entries(const char *path)
{
    GDir *d = g_dir_open(path, 0, NULL);
    unsigned n = 0;

    g_assert_nonnull(d);
    while (g_dir_read_name(d)) {
        n++;
    }
    g_dir_close(d);
    return n;
}

static void fill(RAMBlock *rb, uint8_t byte)
{
    memset(rb->host, byte, rb->size);
}

static bool file_all(const char *path, uint8_t byte, size_t len)
{
    gchar *data;
    gsize n;
    bool ok;

    g_assert_true(g_file_get_contents(path, &data, &n, NULL));
    ok = n >= len;
    for (gsize i = 0; ok && i < len; i++) {
        ok = (uint8_t)data[i] == byte;
    }
    g_free(data);
    return ok;
}

/* The policy, row by row; the fd is never touched. */
static void test_policy_table(void)
{
    static const struct {
        int fd;
        uint32_t flags;
        RamDiscardAction action;
    } rows[] = {
        /* anonymous, private or share=on */
        { -1, 0, RAM_DISCARD_UNMAP },
        { -1, RAM_SHARED, RAM_DISCARD_UNMAP },
        /* memfd (share=on by default, or off) */
        { 3, RAM_TEMPORARY | RAM_SHARED, RAM_DISCARD_TRUNCATE },
        { 3, RAM_TEMPORARY, RAM_DISCARD_TRUNCATE },
        /* a temporary file in a mem-path directory, with discard-data */
        { 3, RAM_TEMPORARY | RAM_SHARED | RAM_DISCARD,
          RAM_DISCARD_TRUNCATE },
        /* ... exported: a peer maps it */
        { 3, RAM_TEMPORARY | RAM_SHARED | RAM_EXPORTED,
          RAM_DISCARD_KEEP_EXPORTED },
        /* named file, share=on, discard-data=on */
        { 3, RAM_FILE | RAM_SHARED | RAM_DISCARD, RAM_DISCARD_PUNCH_HOLE },
        { 3, RAM_FILE | RAM_SHARED | RAM_DISCARD | RAM_EXPORTED,
          RAM_DISCARD_KEEP_EXPORTED },
        /* named file, share=on, discard-data=off */
        { 3, RAM_FILE | RAM_SHARED, RAM_DISCARD_KEEP },
        /* named file, share=off: private copy-on-write */
        { 3, RAM_FILE, RAM_DISCARD_UNMAP },
        { 3, RAM_FILE | RAM_DISCARD, RAM_DISCARD_UNMAP },
        /* read-only: nothing was written */
        { 3, RAM_FILE | RAM_SHARED | RAM_DISCARD | RAM_READONLY,
          RAM_DISCARD_UNMAP },
    };

    for (size_t i = 0; i < G_N_ELEMENTS(rows); i++) {
        RAMBlock rb = { .fd = rows[i].fd, .flags = rows[i].flags };

        g_assert_cmpint(ram_block_discard_action(&rb), ==, rows[i].action);
    }
}

static void test_policy_exported_flag(void)
{
    RAMBlock rb = { .fd = 3, .flags = RAM_TEMPORARY | RAM_SHARED };

    ram_block_set_exported(&rb, true);
    g_assert_cmpint(ram_block_discard_action(&rb), ==,
                    RAM_DISCARD_KEEP_EXPORTED);
    ram_block_set_exported(&rb, false);
    g_assert_cmpint(ram_block_discard_action(&rb), ==, RAM_DISCARD_TRUNCATE);
}

/* memfd: the page cache is dropped (size 0) before the last close. */
static void test_teardown_memfd(void)
{
    HostMemoryBackend *be = backend_new("memory-backend-memfd,id=m,size=4M,"
                                        "seal=off");
    struct stat st;
    int fd;

    fill(be->ram, 0x5a);
    fd = dup(be->ram->fd);
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 4 * MiB);
    cleanup();
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 0);
    g_assert_cmpint(st.st_blocks, ==, 0);
    close(fd);
}

/* A sealed memfd cannot shrink; its pages are punched out instead. */
/*
 * Deferred: the emulator's exit hands the truncate to a child
 * (system/ram-discard.c). Before the child runs nothing is discarded;
 * once it has exited, the memfd is empty.
 */
static void test_teardown_deferred(void)
{
    HostMemoryBackend *be;
    struct stat st;
    int fd, status;
    pid_t child;

    ram_discard_set_deferred(true);
    be = backend_new("memory-backend-memfd,id=m,size=4M,seal=off");
    fill(be->ram, 0x5a);
    fd = dup(be->ram->fd);
    cleanup();
    /* Queued, not done: the contents are still there. */
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 4 * MiB);
    ram_discard_run_deferred();
    ram_discard_set_deferred(false);
    child = waitpid(-1, &status, 0);
    g_assert_cmpint(child, >, 0);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 0);
    g_assert_cmpint(st.st_blocks, ==, 0);
    close(fd);
}

static void test_teardown_memfd_sealed(void)
{
    HostMemoryBackend *be = backend_new("memory-backend-memfd,id=m,size=4M");
    struct stat st;
    int fd;

    fill(be->ram, 0x5a);
    fd = dup(be->ram->fd);
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_blocks, >=, 4 * MiB / 512);
    cleanup();
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 4 * MiB);
    g_assert_cmpint(st.st_blocks, ==, 0);
    close(fd);
}

/*
 * Exported: a child maps the memfd, the parent writes, tears down and
 * closes everything; the child must still read the guest's data.
 */
static void test_teardown_exported(void)
{
    HostMemoryBackend *be = backend_new("memory-backend-memfd,id=m,size=4M,"
                                        "seal=off");
    int go[2], status;
    pid_t pid;

    g_assert_cmpint(pipe(go), ==, 0);
    pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        uint8_t *p = mmap(NULL, 4 * MiB, PROT_READ, MAP_SHARED,
                          be->ram->fd, 0);
        char c;
        int bad = 0;

        close(go[1]);
        if (p == MAP_FAILED || read(go[0], &c, 1) != 1) {
            _exit(2);
        }
        /* The parent has torn down and closed its fd by now. */
        for (size_t i = 0; i < 4 * MiB; i += 4096) {
            bad += p[i] != 0xa5;
        }
        _exit(bad ? 1 : 0);
    }
    close(go[0]);
    fill(be->ram, 0xa5);
    ram_block_set_exported(be->ram, true);
    cleanup();
    g_assert_cmpint(write(go[1], "x", 1), ==, 1);
    close(go[1]);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    g_assert_true(WIFEXITED(status));
    g_assert_cmpint(WEXITSTATUS(status), ==, 0);
}

/* write_bytes / cancelled_write_bytes of this process, or false. */
static bool self_io(uint64_t *written, uint64_t *cancelled)
{
    gchar *text = NULL;
    bool ok = g_file_get_contents("/proc/self/io", &text, NULL, NULL);
    const char *w = ok ? strstr(text, "\nwrite_bytes: ") : NULL;
    const char *c = ok ? strstr(text, "cancelled_write_bytes: ") : NULL;

    ok = w && c;
    if (ok) {
        *written = g_ascii_strtoull(w + strlen("\nwrite_bytes: "), NULL, 10);
        *cancelled = g_ascii_strtoull(c + strlen("cancelled_write_bytes: "),
                                      NULL, 10);
    }
    g_free(text);
    return ok;
}

/*
 * An exported named file with discard-data=on (no command line exports
 * one yet, so in process): query-memdev's words say keep (exported), the
 * page cache holds the 4 MiB written, and the -d guest_ram line at
 * teardown says so, by the emulator, while /proc/self/io shows nothing
 * cancelled: the peer keeps every dirty byte.
 */
static void test_teardown_exported_report(void)
{
    char *dir = g_strdup("test-hostmem-exp-XXXXXX");
    char *file, *logpath, *log = NULL, *expect;
    HostMemoryBackend *be;
    RamTeardownInfo info;
    OsCacheStat cs;
    uint64_t w0, c0, w1, c1;
    int err;

    /* In the build directory: /tmp may be tmpfs, which has no writeback. */
    g_assert_nonnull(g_mkdtemp(dir));
    file = g_build_filename(dir, "ram", NULL);
    logpath = g_build_filename(dir, "log", NULL);
    be = backend_new("memory-backend-file,id=x,size=4M,mem-path=%s,share=on,"
                     "discard-data=on", file);
    if (!self_io(&w0, &c0)) {
        g_test_skip("/proc/self/io is unavailable");
        goto out;
    }
    fill(be->ram, 0x77);
    ram_block_set_exported(be->ram, true);
    ram_block_teardown_info(be->ram, &info);
    g_assert_cmpstr(info.backing, ==, "file");
    g_assert_cmpstr(info.action, ==, "keep");
    g_assert_cmpstr(info.reason, ==, "exported");
    g_assert_null(info.method);
    err = os_cachestat(be->ram->fd, &cs);
    if (err == -ENOSYS) {
        g_test_skip("this kernel lacks cachestat(2) (Linux 6.5+)");
        goto out;
    }
    g_assert_cmpint(err, ==, 0);
    g_assert_cmpuint(cs.resident, ==, 4 * MiB);
    g_assert_cmpuint(cs.dirty, ==, 4 * MiB);

    qemu_loglevel = LOG_GUEST_RAM;
    g_assert_true(qemu_log_set_file(logpath, NULL));
    cleanup();
    be = NULL;
    qemu_log_close();
    qemu_loglevel = 0;
    g_assert_true(self_io(&w1, &c1));
    g_assert_cmpuint(w1 - w0, >=, 4 * MiB);
    g_assert_cmpuint(c1 - c0, ==, 0);
    g_assert_true(g_file_get_contents(logpath, &log, NULL, NULL));
    expect = g_strdup_printf("guest_ram: 'x' file: keep (exported): "
                             "4194304 dirty, 4194304 resident bytes of page "
                             "cache left to write back by the emulator "
                             "(pid %d)\n", (int)getpid());
    g_assert_nonnull(strstr(log, expect));
    g_free(expect);
out:
    if (be) {
        cleanup();
    }
    unlink(file);
    unlink(logpath);
    rmdir(dir);
    g_free(log);
    g_free(logpath);
    g_free(file);
    g_free(dir);
}

/* mem-path=DIR: the file is unlinked at creation and gone after. */
static void test_teardown_temp_file(void)
{
    char *dir = make_tmpdir();
    HostMemoryBackend *be = backend_new("memory-backend-file,id=t,size=4M,"
                                        "mem-path=%s,share=on", dir);
    struct stat st;
    int fd;

    g_assert_cmpuint(dir_entries(dir), ==, 0);
    g_assert_true(be->ram->flags & RAM_TEMPORARY);
    fill(be->ram, 0x5a);
    fd = dup(be->ram->fd);
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_nlink, ==, 0);
    cleanup();
    g_assert_cmpint(fstat(fd, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 0);
    g_assert_cmpint(st.st_blocks, ==, 0);
    close(fd);
    g_assert_cmpuint(dir_entries(dir), ==, 0);
    g_assert_cmpint(rmdir(dir), ==, 0);
    g_free(dir);
}

/* share=on,discard-data=on: a hole, the size kept, no blocks left. */
static void test_teardown_punch_hole(void)
{
    char *dir = make_tmpdir();
    char *path = g_build_filename(dir, "ram", NULL);
    HostMemoryBackend *be = backend_new("memory-backend-file,id=f,size=4M,"
                                        "mem-path=%s,share=on,"
                                        "discard-data=on", path);
    struct stat st;

    fill(be->ram, 0x5a);
    cleanup();
    g_assert_cmpint(stat(path, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 4 * MiB);
    g_assert_cmpint(st.st_blocks, ==, 0);
    g_assert_true(file_all(path, 0, 4 * MiB));
    unlink(path);
    rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* share=on,discard-data=off: the user asked for the contents. */
static void test_teardown_keep(void)
{
    char *dir = make_tmpdir();
    char *path = g_build_filename(dir, "ram", NULL);
    HostMemoryBackend *be = backend_new("memory-backend-file,id=f,size=4M,"
                                        "mem-path=%s,share=on", path);

    fill(be->ram, 0x5a);
    cleanup();
    g_assert_true(file_all(path, 0x5a, 4 * MiB));
    unlink(path);
    rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* share=off: private copy-on-write, the file never sees the writes. */
static void test_teardown_private(void)
{
    char *dir = make_tmpdir();
    char *path = g_build_filename(dir, "ram", NULL);
    HostMemoryBackend *be;

    g_assert_true(g_file_set_contents(path, "", 0, NULL));
    be = backend_new("memory-backend-file,id=f,size=4M,mem-path=%s", path);
    fill(be->ram, 0x5a);
    cleanup();
    g_assert_true(file_all(path, 0, 4 * MiB));
    unlink(path);
    rmdir(dir);
    g_free(path);
    g_free(dir);
}

/* A longer file keeps its size; a missing one is created. */
static void test_file_sizes(void)
{
    char *dir = make_tmpdir();
    char *path = g_build_filename(dir, "ram", NULL);
    struct stat st;
    int fd;

    backend_new("memory-backend-file,id=f,size=4M,mem-path=%s,share=on",
                path);
    cleanup();
    g_assert_cmpint(stat(path, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 4 * MiB);
    fd = open(path, O_RDWR);
    g_assert_cmpint(ftruncate(fd, 8 * MiB), ==, 0);
    close(fd);
    backend_new("memory-backend-file,id=f,size=4M,mem-path=%s,share=on",
                path);
    cleanup();
    g_assert_cmpint(stat(path, &st), ==, 0);
    g_assert_cmpint(st.st_size, ==, 8 * MiB);
    unlink(path);
    rmdir(dir);
    g_free(path);
    g_free(dir);
}

static void test_readonly(void)
{
    char *dir = make_tmpdir();
    char *path = g_build_filename(dir, "ram", NULL);
    char *arg = g_strdup_printf("memory-backend-file,id=f,size=4M,"
                                "mem-path=%s,readonly=on", path);
    char *msg = g_strdup_printf("can't open backing store %s for guest RAM: "
                                "No such file or directory", path);
    HostMemoryBackend *be;
    char *small;

    backend_fails(arg, msg);
    g_assert_true(g_file_set_contents(path, "x", 1, NULL));
    small = g_strdup_printf("memory-backend-file,id=f,size=4M,mem-path=%s,"
                            "readonly=on", path);
    backend_fails(small, "backing store size 0x1 does not match 'size' "
                  "option 0x400000");
    g_assert_true(truncate(path, 4 * MiB) == 0);
    be = backend_new("%s", arg);
    g_assert_true(be->ram->flags & RAM_READONLY);
    g_assert_cmpint(be->ram->host[0], ==, 'x');
    cleanup();
    unlink(path);
    rmdir(dir);
    g_free(small);
    g_free(msg);
    g_free(arg);
    g_free(path);
    g_free(dir);
}

static void test_size_checks(void)
{
    Error *err = NULL;

    backend_fails("memory-backend-ram,id=r", "can't create backend with "
                  "size 0");
    backend_fails("memory-backend-memfd,id=r,size=0", "can't create backend "
                  "with size 0");
    backend_fails("memory-backend-ram,id=r,size=4097", "backend size 0x1001 "
                  "is not aligned to the page size 0x1000");
    backend_fails("memory-backend-memfd,id=r,size=2048", "memory size 0x800 "
                  "must be equal to or larger than page size 0x1000");
    backend_fails("memory-backend-file,id=f,size=4M,mem-path=/tmp,align=3M",
                  "alignment 0x300000 must be a power of two");
    backend_fails("memory-backend-file,id=f,size=4M,mem-path=/tmp,"
                  "align=2K", "alignment 0x800 must be multiples of page "
                  "size 0x1000");
    /* Against a 2 MiB hugepage, without needing hugetlbfs. */
    g_assert_true(host_memory_check_size(4 * MiB, 2 * MiB, 2 * MiB, NULL));
    g_assert_false(host_memory_check_size(3 * MiB, 0, 2 * MiB, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "backend size 0x300000 is "
                    "not aligned to the hugepage size 0x200000");
    error_free_or_abort(&err);
    g_assert_false(host_memory_check_size(4 * MiB, 1 * MiB, 2 * MiB, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "alignment 0x100000 must be "
                    "multiples of page size 0x200000");
    error_free_or_abort(&err);
    cleanup();
}

/* align=: the mapping starts on the boundary asked for. */
static void test_align(void)
{
    HostMemoryBackend *be = backend_new("memory-backend-file,id=f,size=4M,"
                                        "mem-path=/tmp,align=64M");

    g_assert_cmpuint((uintptr_t)be->ram->host % (64 * MiB), ==, 0);
    cleanup();
}

static void test_properties(void)
{
    HostMemoryDefaults d = { .merge = false, .dump = false,
                             .prealloc = true, .prealloc_threads = 3 };
    QemuOpts *opts;
    HostMemoryBackend *ram, *memfd, *file;
    Error *err = NULL;

    ram = backend_new("memory-backend-ram,id=r,size=4M");
    memfd = backend_new("memory-backend-memfd,id=m,size=4M");
    file = backend_new("memory-backend-file,id=f,size=4M,mem-path=/tmp");
    g_assert_false(ram->share);
    g_assert_true(memfd->share);
    g_assert_true(memfd->seal);
    g_assert_false(file->share);
    g_assert_false(file->discard_data);
    g_assert_true(ram->merge && ram->dump && ram->reserve);
    g_assert_cmpuint(ram->prealloc_threads, ==, 1);
    g_assert_cmpstr(ram->policy, ==, "default");
    g_assert_true(host_memory_backend_find("m") == memfd);
    g_assert_null(host_memory_backend_find("x"));
    g_assert_nonnull(object_resolve_path("/objects/f", NULL));
    g_assert_null(host_memory_backend_machine_ram());
    g_assert_true(host_memory_backend_set_machine(memfd, NULL));
    g_assert_true(host_memory_backend_machine_ram() == memfd->ram);
    g_assert_false(host_memory_backend_set_machine(memfd, &err));
    g_assert_cmpstr(error_get_pretty(err), ==, "memory backend m can't be "
                    "used multiple times.");
    error_free_or_abort(&err);
    cleanup();
    g_assert_null(host_memory_backend_machine_ram());

    /* -machine mem-merge=off,dump-guest-core=off and -mem-prealloc. */
    opts = qemu_opts_parse("memory-backend-memfd,id=m,size=4M,dump=on",
                           "qom-type", NULL);
    memfd = host_memory_backend_create(opts, &d, &err);
    qemu_opts_free(opts);
    g_assert_null(err);
    g_assert_false(memfd->merge);
    g_assert_true(memfd->dump);
    g_assert_true(memfd->prealloc);
    g_assert_cmpuint(memfd->prealloc_threads, ==, 3);
    cleanup();

    backend_fails("memory-backend-ram,id=r,size=4M,prealloc-threads=0",
                  "property 'prealloc-threads' of memory-backend-ram "
                  "doesn't take value '0'");
    backend_fails("memory-backend-ram,id=r,size=4M,policy=bind",
                  "policy 'bind' is not supported: this build has no NUMA "
                  "binding; only 'default' is");
    backend_fails("memory-backend-ram,id=r,size=4M,policy=foo",
                  "Parameter 'policy' does not accept value 'foo'");
    backend_fails("memory-backend-ram,id=r,size=4M,host-nodes=0",
                  "host-nodes '0' is not supported: this build has no NUMA "
                  "binding; leave it unset");
    backend_fails("memory-backend-file,id=f,size=4M", "mem-path property "
                  "not set");
    backend_fails("memory-backend-memfd,id=m,size=4M,hugetlb=on,"
                  "hugetlbsize=3M", "hugetlbsize 0x300000 is not a power of "
                  "two");
    /* A failed backend leaves no trace in the tree. */
    g_assert_null(object_resolve_path("/objects/r", NULL));
    cleanup();
}

/* Prealloc across threads populates every page. */
static void test_prealloc_threads(void)
{
    HostMemoryBackend *be = backend_new("memory-backend-memfd,id=m,size=8M,"
                                        "prealloc=on,prealloc-threads=4");
    unsigned char vec[8 * MiB / 4096];

    g_assert_cmpint(mincore(be->ram->host, 8 * MiB, vec), ==, 0);
    for (size_t i = 0; i < sizeof(vec); i++) {
        g_assert_cmpint(vec[i] & 1, ==, 1);
    }
    cleanup();
}

/* Mount fstype at a new directory; NULL (and a skip) when we cannot. */
static char *mount_tmp(const char *fstype, const char *data)
{
    char *dir;

    if (geteuid() != 0) {
        g_test_skip("needs root to mount a file system of its own");
        return NULL;
    }
    dir = make_tmpdir();
    if (mount("none", dir, fstype, 0, data) < 0) {
        char *why = g_strdup_printf("cannot mount %s: %s", fstype,
                                    strerror(errno));

        g_test_skip(why);
        g_free(why);
        rmdir(dir);
        g_free(dir);
        return NULL;
    }
    return dir;
}

static void unmount_tmp(char *dir)
{
    g_assert_cmpint(umount2(dir, MNT_DETACH), ==, 0);
    g_assert_cmpint(rmdir(dir), ==, 0);
    g_free(dir);
}

/*
 * A 1 MiB tmpfs cannot hold 4 MiB: a clear error naming the backend,
 * and no file left, temporary or created by the backend.
 */
static void test_prealloc_tmpfs_full(void)
{
    char *dir = mount_tmp("tmpfs", "size=1M");
    char *arg, *named;

    if (!dir) {
        return;
    }
    arg = g_strdup_printf("memory-backend-file,id=p,size=4M,mem-path=%s,"
                          "share=on,prealloc=on", dir);
    backend_fails(arg, "memory backend 'p': preallocation failed: the "
                  "backing store is full (out of hugepages, or no space "
                  "left in its file system)");
    g_assert_cmpuint(dir_entries(dir), ==, 0);
    named = g_strdup_printf("memory-backend-file,id=p,size=4M,"
                            "mem-path=%s/ram,share=on,prealloc=on,"
                            "prealloc-threads=2", dir);
    backend_fails(named, "memory backend 'p': preallocation failed: the "
                  "backing store is full (out of hugepages, or no space "
                  "left in its file system)");
    g_assert_cmpuint(dir_entries(dir), ==, 0);
    cleanup();
    unmount_tmp(dir);
    g_free(named);
    g_free(arg);
}

static long read_nr_hugepages(void)
{
    gchar *s;
    long n;

    if (!g_file_get_contents("/proc/sys/vm/nr_hugepages", &s, NULL, NULL)) {
        return -1;
    }
    n = atol(s);
    g_free(s);
    return n;
}

static bool write_nr_hugepages(long n)
{
    /* Not g_file_set_contents(): /proc takes no rename. */
    FILE *f = fopen("/proc/sys/vm/nr_hugepages", "w");
    bool ok = f && fprintf(f, "%ld\n", n) > 0;

    if (f && fclose(f) != 0) {
        ok = false;
    }
    return ok && read_nr_hugepages() == n;
}

/* hugetlbfs: the page size from statfs, checks against it, prealloc. */
static void test_hugetlbfs(void)
{
    char *dir = mount_tmp("hugetlbfs", NULL);
    long saved;
    char *arg;
    int fd;

    if (!dir) {
        return;
    }
    fd = open(dir, O_RDONLY | O_DIRECTORY);
    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpuint(ram_fd_page_size(fd), >, getpagesize());
    g_assert_cmpuint(ram_fd_page_size(fd), ==, 2 * MiB);
    close(fd);
    arg = g_strdup_printf("memory-backend-file,id=h,size=3M,mem-path=%s",
                          dir);
    backend_fails(arg, "backend size 0x300000 is not aligned to the "
                  "hugepage size 0x200000");
    g_free(arg);

    saved = read_nr_hugepages();
    if (saved < 0 || !write_nr_hugepages(saved + 2)) {
        g_test_message("cannot reserve hugepages: prealloc not tested");
    } else {
        HostMemoryBackend *be;

        /* Two pages fit; reserve=off defers the failure to prealloc. */
        be = backend_new("memory-backend-file,id=h,size=4M,mem-path=%s,"
                         "share=on,prealloc=on", dir);
        g_assert_cmpuint(be->ram->page_size, ==, 2 * MiB);
        fill(be->ram, 0x5a);
        cleanup();
        arg = g_strdup_printf("memory-backend-file,id=h,size=%ldM,"
                              "mem-path=%s,share=on,prealloc=on,"
                              "reserve=off", 2 * (saved + 4), dir);
        backend_fails(arg, "memory backend 'h': preallocation failed: the "
                      "backing store is full (out of hugepages, or no "
                      "space left in its file system)");
        g_free(arg);
        g_assert_cmpuint(dir_entries(dir), ==, 0);
        g_assert_true(write_nr_hugepages(saved));
    }
    cleanup();
    unmount_tmp(dir);
}

int main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/hostmem/policy/table", test_policy_table);
    g_test_add_func("/hostmem/policy/exported-flag",
                    test_policy_exported_flag);
    g_test_add_func("/hostmem/teardown/memfd", test_teardown_memfd);
    g_test_add_func("/hostmem/teardown/deferred", test_teardown_deferred);
    g_test_add_func("/hostmem/teardown/memfd-sealed",
                    test_teardown_memfd_sealed);
    g_test_add_func("/hostmem/teardown/exported", test_teardown_exported);
    g_test_add_func("/hostmem/teardown/exported-report",
                    test_teardown_exported_report);
    g_test_add_func("/hostmem/teardown/temp-file", test_teardown_temp_file);
    g_test_add_func("/hostmem/teardown/punch-hole", test_teardown_punch_hole);
    g_test_add_func("/hostmem/teardown/keep", test_teardown_keep);
    g_test_add_func("/hostmem/teardown/private", test_teardown_private);
    g_test_add_func("/hostmem/file/sizes", test_file_sizes);
    g_test_add_func("/hostmem/file/readonly", test_readonly);
    g_test_add_func("/hostmem/file/align", test_align);
    g_test_add_func("/hostmem/size-checks", test_size_checks);
    g_test_add_func("/hostmem/properties", test_properties);
    g_test_add_func("/hostmem/prealloc/threads", test_prealloc_threads);
    g_test_add_func("/hostmem/prealloc/tmpfs-full",
                    test_prealloc_tmpfs_full);
    g_test_add_func("/hostmem/hugetlbfs", test_hugetlbfs);
    return g_test_run();
}
