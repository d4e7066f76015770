/*
 * Postcopy RAM (see postcopy-ram.h): the source's return path reader and
 * its switch-over; the destination's userfaultfd, fault thread, page
 * placement, and the mem-lock unlock/relock around them.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/userfaultfd.h>
#include <poll.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "migration/postcopy-ram.h"
#include "migration/savevm.h"
#include "vmstate/vmstate.h"
#include "qemu/log.h"
#include "system/cpus.h"
#include "system/memory.h"
#include "system/os-posix.h"
#include "system/system.h"

/* --- return path messages ------------------------------------------- */

ssize_t postcopy_request_parse(const uint8_t *buf, size_t len,
                               PostcopyRequest *req, Error **errp)
{
    size_t name_len;

    if (len < 2) {
        return 0;
    }
    if (buf[0] != POSTCOPY_REQ_PAGE) {
        error_setg(errp, "the return path sent unknown message %u", buf[0]);
        return -1;
    }
    name_len = buf[1];
    if (len < 2 + name_len + 8) {
        return 0;
    }
    memcpy(req->name, buf + 2, name_len);
    req->name[name_len] = 0;
    if (strlen(req->name) != name_len) {
        error_setg(errp, "the return path sent a region name with a NUL");
        return -1;
    }
    req->offset = 0;
    for (int i = 7; i >= 0; i--) {
        req->offset = req->offset << 8 | buf[2 + name_len + i];
    }
    if (req->offset % MIG_PAGE_SIZE) {
        error_setg(errp, "the return path asked for unaligned offset %#"
                   PRIx64 " of '%s'", req->offset, req->name);
        return -1;
    }
    return 2 + name_len + 8;
}

size_t postcopy_request_encode(uint8_t *buf, const char *name,
                               uint64_t offset)
{
    size_t name_len = MIN(strlen(name), 255);

    buf[0] = POSTCOPY_REQ_PAGE;
    buf[1] = name_len;
    memcpy(buf + 2, name, name_len);
    for (int i = 0; i < 8; i++) {
        buf[2 + name_len + i] = offset >> (8 * i);
    }
    return 2 + name_len + 8;
}

/* Wait for fd or stop_fd; false when stop_fd fired or poll failed. */
static bool wait_readable(int fd, int stop_fd)
{
    struct pollfd p[2] = {
        { .fd = fd, .events = POLLIN },
        { .fd = stop_fd, .events = POLLIN },
    };

    for (;;) {
        int n = poll(p, 2, -1);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        return n > 0 && !p[1].revents;
    }
}

static bool stop_pipe_open(int p[2], Error **errp)
{
    if (pipe2(p, O_CLOEXEC) < 0) {
        error_setg_errno(errp, errno, "cannot make a pipe");
        return false;
    }
    return true;
}

static void stop_thread(GThread **thread, int p[2])
{
    if (*thread) {
        if (write(p[1], "x", 1) < 0) {
            /* the thread sees the closed pipe just as well */
        }
        g_thread_join(*thread);
        *thread = NULL;
    }
    for (int i = 0; i < 2; i++) {
        if (p[i] >= 0) {
            close(p[i]);
            p[i] = -1;
        }
    }
}

/* --- source --------------------------------------------------------- */

static struct {
    int fd;                     /* a dup of the migration socket */
    int stop[2];
    GThread *thread;
    GAsyncQueue *requests;      /* of PostcopyRequest * */
    bool broken;                /* malformed message or read error */
    char *error;
} src = { .fd = -1, .stop = { -1, -1 } };

/* The return path is gone or spoke nonsense: wake the sender. */
static void return_path_broken(const char *why)
{
    src.error = g_strdup(why);
    __atomic_store_n(&src.broken, true, __ATOMIC_RELEASE);
    g_async_queue_push(src.requests, g_new0(PostcopyRequest, 1));
}

static gpointer return_path_thread(gpointer opaque)
{
    uint8_t buf[4096];
    size_t have = 0;

    while (wait_readable(src.fd, src.stop[0])) {
        ssize_t n = read(src.fd, buf + have, sizeof(buf) - have), used;
        size_t pos = 0;

        if (n < 0 && (errno == EINTR || errno == EAGAIN)) {
            continue;
        }
        if (n <= 0) {
            /*
             * The destination closed: it has the end marker (and the
             * sender no longer asks), or it is gone.
             */
            return_path_broken("the destination closed the connection");
            return NULL;
        }
        have += n;
        for (;;) {
            PostcopyRequest *req = g_new(PostcopyRequest, 1);
            Error *err = NULL;

            used = postcopy_request_parse(buf + pos, have - pos, req, &err);
            if (used <= 0) {
                g_free(req);
                if (used < 0) {
                    return_path_broken(error_get_pretty(err));
                    error_free(err);
                    return NULL;
                }
                break;
            }
            g_async_queue_push(src.requests, req);
            pos += used;
        }
        memmove(buf, buf + pos, have - pos);
        have -= pos;
    }
    return NULL;
}

bool postcopy_source_start(int fd, Error **errp)
{
    src.fd = dup(fd);
    if (src.fd < 0) {
        error_setg_errno(errp, errno, "cannot open the return path");
        return false;
    }
    if (!stop_pipe_open(src.stop, errp)) {
        close(src.fd);
        src.fd = -1;
        return false;
    }
    src.broken = false;
    g_clear_pointer(&src.error, g_free);
    src.requests = g_async_queue_new_full(g_free);
    src.thread = g_thread_new("postcopy-return", return_path_thread, NULL);
    return true;
}

bool postcopy_source_serve(MigStream *s, RamStats *st, int64_t wait_us)
{
    PostcopyRequest *req;
    bool served = false, ok = true;

    req = wait_us > 0 ? g_async_queue_timeout_pop(src.requests, wait_us)
                      : g_async_queue_try_pop(src.requests);
    while (req && ok) {
        if (__atomic_load_n(&src.broken, __ATOMIC_ACQUIRE)) {
            g_free(req);
            return false;
        }
        ok = ram_save_page(s, st, req->name, req->offset);
        st->postcopy_requests++;
        served = true;
        g_free(req);
        req = g_async_queue_try_pop(src.requests);
    }
    g_free(req);
    if (served && ok) {
        ok = mig_stream_flush(s);      /* the destination waits for it */
    }
    return ok && !__atomic_load_n(&src.broken, __ATOMIC_ACQUIRE);
}

const char *postcopy_source_error(void)
{
    return __atomic_load_n(&src.broken, __ATOMIC_ACQUIRE) ? src.error : NULL;
}

void postcopy_source_stop(void)
{
    stop_thread(&src.thread, src.stop);
    if (src.fd >= 0) {
        close(src.fd);
        src.fd = -1;
    }
    g_clear_pointer(&src.requests, g_async_queue_unref);
}

bool postcopy_save_switchover(MigStream *s, Error **errp)
{
    if (!mig_section_write(s, MIG_SEC_POSTCOPY_LISTEN, "postcopy", 0, 1,
                           NULL, 0) ||
        !ram_save_discard(s)) {
        error_setg(errp, "writing the postcopy switch-over failed");
        return false;
    }
    if (!savevm_save_state(s, errp)) {
        return false;
    }
    if (!mig_section_write(s, MIG_SEC_POSTCOPY_RUN, "postcopy", 0, 1, NULL,
                           0) ||
        !mig_stream_flush(s)) {
        error_setg(errp, "writing the postcopy switch-over failed");
        return false;
    }
    return true;
}

/* --- destination ---------------------------------------------------- */

/* The page being placed, page-aligned (only the incoming thread). */
static uint8_t bounce[MIG_PAGE_SIZE] __attribute__((aligned(4096)));

static struct {
    bool advised, listening, running, unlocked;
    int uffd;
    int fd;                     /* the migration socket: requests go here */
    int stop[2];
    GThread *thread;
    bool zeropage;              /* UFFDIO_ZEROPAGE on every region */
} dst = { .uffd = -1, .fd = -1, .stop = { -1, -1 } };

static bool send_all(int fd, const uint8_t *p, size_t len)
{
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

static gpointer fault_thread(gpointer opaque)
{
    struct uffd_msg msg[16];
    bool rp_ok = true;

    while (wait_readable(dst.uffd, dst.stop[0])) {
        ssize_t n = read(dst.uffd, msg, sizeof(msg));

        if (n < 0) {
            if (errno == EINTR || errno == EAGAIN) {
                continue;
            }
            break;
        }
        for (size_t i = 0; i < n / sizeof(msg[0]); i++) {
            uint8_t req[POSTCOPY_REQ_MAX];
            const char *name;
            uint64_t offset, addr;

            if (msg[i].event != UFFD_EVENT_PAGEFAULT) {
                continue;
            }
            addr = msg[i].arg.pagefault.address & ~(uint64_t)(MIG_PAGE_SIZE -
                                                             1);
            if (!ram_region_of_host((void *)(uintptr_t)addr, &name,
                                    &offset)) {
                continue;
            }
            /* After the end of the stream the source is gone: no matter. */
            rp_ok = rp_ok && send_all(dst.fd, req,
                                      postcopy_request_encode(req, name,
                                                              offset));
        }
    }
    return NULL;
}

static bool check_socket(int fd, Error **errp)
{
    int type;
    socklen_t len = sizeof(type);

    if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) < 0 ||
        type != SOCK_STREAM) {
        error_setg(errp, "postcopy needs a return path: the incoming "
                   "migration must come over a socket (unix:, tcp:, fd:)");
        return false;
    }
    return true;
}

static bool uffd_open(Error **errp)
{
    struct uffdio_api api = { .api = UFFD_API };

    dst.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
    if (dst.uffd < 0) {
        error_setg_errno(errp, errno, "postcopy: userfaultfd failed%s",
                         errno == EPERM ? " (needs CAP_SYS_PTRACE or "
                         "vm.unprivileged_userfaultfd=1)" : "");
        return false;
    }
    if (ioctl(dst.uffd, UFFDIO_API, &api) < 0) {
        error_setg_errno(errp, errno, "postcopy: UFFDIO_API failed");
        return false;
    }
    dst.zeropage = true;
    for (unsigned i = 0; ; i++) {
        MemoryRegion *mr = ram_region_nth(i);
        struct uffdio_register reg;

        if (!mr) {
            break;
        }
        reg = (struct uffdio_register) {
            .range = { .start = (uintptr_t)mr->ram, .len = mr->size },
            .mode = UFFDIO_REGISTER_MODE_MISSING,
        };
        if (ioctl(dst.uffd, UFFDIO_REGISTER, &reg) < 0) {
            error_setg_errno(errp, errno, "postcopy: cannot register RAM "
                             "region '%s' with userfaultfd", mr->name);
            return false;
        }
        if (!(reg.ioctls & (1ull << _UFFDIO_COPY))) {
            error_setg(errp, "postcopy: userfaultfd cannot copy into RAM "
                       "region '%s'", mr->name);
            return false;
        }
        if (!(reg.ioctls & (1ull << _UFFDIO_ZEROPAGE))) {
            dst.zeropage = false;
        }
    }
    return true;
}

static const char *mem_lock_name(void)
{
    return is_mlock_on_fault(mlock_state) ? "on-fault" : "on";
}

/* LISTEN: unlock, register, start the fault thread. */
static bool incoming_listen(int fd, Error **errp)
{
    if (!dst.advised) {
        error_setg(errp, "postcopy switch-over without the advice");
        return false;
    }
    if (should_mlock(mlock_state)) {
        /* Locked pages are populated: userfaultfd would never see them. */
        int ret = os_munlock();

        if (ret < 0) {
            error_setg_errno(errp, -ret, "postcopy: munlockall failed");
            return false;
        }
        dst.unlocked = true;
        qemu_log_mask(LOG_GUEST_RAM, "guest_ram: postcopy: munlockall "
                      "before userfaultfd (mem-lock=%s)\n", mem_lock_name());
    }
    dst.fd = fd;
    if (!uffd_open(errp) || !stop_pipe_open(dst.stop, errp)) {
        return false;
    }
    dst.listening = true;
    dst.thread = g_thread_new("postcopy-fault", fault_thread, NULL);
    return true;
}

bool postcopy_incoming_section(int fd, const MigSection *sec, Error **errp)
{
    switch (sec->kind) {
    case MIG_SEC_POSTCOPY_ADVISE:
        if (!migration_postcopy_ram()) {
            error_setg(errp, "the source enabled postcopy-ram, this "
                       "destination did not (migrate-set-capabilities)");
            return false;
        }
        dst.advised = check_socket(fd, errp);
        return dst.advised;
    case MIG_SEC_POSTCOPY_LISTEN:
        return incoming_listen(fd, errp);
    case MIG_SEC_POSTCOPY_DISCARD:
        if (!dst.listening) {
            error_setg(errp, "postcopy discard before the switch-over");
            return false;
        }
        return ram_load_discard(sec, errp);
    default:    /* MIG_SEC_POSTCOPY_RUN */
        if (!dst.listening) {
            error_setg(errp, "postcopy run before the switch-over");
            return false;
        }
        bql_lock();
        if (!savevm_load_end(errp)) {
            bql_unlock();
            return false;
        }
        dst.running = true;
        migration_incoming_postcopy_run();
        bql_unlock();
        return true;
    }
}

bool postcopy_incoming_listening(void)
{
    return dst.listening;
}

bool postcopy_incoming_running(void)
{
    return dst.running;
}

bool postcopy_place_page(uint8_t *host, const uint8_t *data, Error **errp)
{
    int ret;

    if (data || !dst.zeropage) {
        struct uffdio_copy c = {
            .dst = (uintptr_t)host,
            .src = (uintptr_t)bounce,
            .len = MIG_PAGE_SIZE,
        };

        if (data) {
            memcpy(bounce, data, MIG_PAGE_SIZE);
        } else {
            memset(bounce, 0, MIG_PAGE_SIZE);
        }
        ret = ioctl(dst.uffd, UFFDIO_COPY, &c);
    } else {
        struct uffdio_zeropage z = {
            .range = { .start = (uintptr_t)host, .len = MIG_PAGE_SIZE },
        };

        ret = ioctl(dst.uffd, UFFDIO_ZEROPAGE, &z);
    }
    if (ret < 0 && errno == EEXIST) {
        /* Placed already (pushed and asked for): wake any waiter. */
        struct uffdio_range r = { (uintptr_t)host, MIG_PAGE_SIZE };

        ioctl(dst.uffd, UFFDIO_WAKE, &r);
        return true;
    }
    if (ret < 0) {
        error_setg_errno(errp, errno, "postcopy: placing the page at %p "
                         "failed", host);
        return false;
    }
    return true;
}

bool postcopy_incoming_end(bool relock, Error **errp)
{
    bool unlocked = dst.unlocked;
    int ret;

    stop_thread(&dst.thread, dst.stop);
    if (dst.uffd >= 0) {
        close(dst.uffd);        /* unregisters; wakes whoever still waits */
        dst.uffd = -1;
    }
    dst.fd = -1;
    dst.advised = dst.listening = dst.running = dst.unlocked = false;
    if (!unlocked || !relock) {
        return true;
    }
    ret = os_relock(is_mlock_on_fault(mlock_state));
    if (ret < 0) {
        char *why = os_mlock_explain(ret);

        error_setg(errp, "postcopy: mem-lock=%s after postcopy: %s",
                   mem_lock_name(), why);
        g_free(why);
        return false;
    }
    qemu_log_mask(LOG_GUEST_RAM, "guest_ram: postcopy ended: mlockall"
                  "(MCL_CURRENT|MCL_FUTURE%s) again (mem-lock=%s)\n",
                  is_mlock_on_fault(mlock_state) &&
                  !g_strcmp0(getenv("QEMU_TEST_RELOCK_NO_ONFAULT"), "1") ?
                  ", test: without MCL_ONFAULT" :
                  is_mlock_on_fault(mlock_state) ? "|MCL_ONFAULT" : "",
                  mem_lock_name());
    return true;
}
