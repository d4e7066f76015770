/* The virtio-net qtests' rig (virtio-net-rig.h). */
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "virtio-net-rig.h"

int listen_loopback(int type, int *port)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

    g_assert_cmpint(fd, >=, 0);
    g_assert_cmpint(bind(fd, (struct sockaddr *)&a, sizeof(a)), ==, 0);
    if (type == SOCK_STREAM) {
        g_assert_cmpint(listen(fd, 1), ==, 0);
    }
    g_assert_cmpint(getsockname(fd, (struct sockaddr *)&a, &len), ==, 0);
    *port = ntohs(a.sin_port);
    return fd;
}

void rig_init(Rig *r, const char *netdev, const char *dev_opts,
              uint64_t features)
{
    g_autofree char *args = NULL, *sock = NULL;
    int port = 0;

    r->listen_fd = r->fd = -1;
    if (!netdev) {
        r->listen_fd = listen_loopback(SOCK_STREAM, &port);
        sock = g_strdup_printf("socket,id=n0,connect=127.0.0.1:%d", port);
        netdev = sock;
    }
    if (netdev[0] == '-') {
        /* A whole network command line (-nic, -net). */
        args = g_strdup_printf("-nodefaults %s", netdev);
    } else {
        args = g_strdup_printf("-nodefaults -netdev %s -device "
                               "virtio-net-pci,netdev=n0,id=nic0,mac=" MAC
                               "%s", netdev, dev_opts ? dev_opts : "");
    }
    qpci_alloc_reset();
    r->s = qtest_init(args);
    if (sock) {
        r->fd = accept4(r->listen_fd, NULL, NULL, SOCK_CLOEXEC);
        g_assert_cmpint(r->fd, >=, 0);
    }
    qalloc_init(&r->alloc, 0x100000, 0x1000000);
    r->next_buf = RAM_BUFS;
    g_assert_true(qvirtio_pci_find(r->s, NET_DEVICE_ID, &r->dev));
    if (!features) {
        return;
    }
    g_assert_true(qvirtio_negotiate(&r->dev, features));
    qvirtqueue_setup(&r->dev, &r->rx, &r->alloc, 0, 0);
    qvirtqueue_setup(&r->dev, &r->tx, &r->alloc, 1, 0);
    qvirtqueue_setup(&r->dev, &r->ctrl, &r->alloc, 2, 0);
    qvirtio_set_driver_ok(&r->dev);
}

void rig_end(Rig *r)
{
    qtest_quit(r->s);
    if (r->fd >= 0) {
        close(r->fd);
    }
    if (r->listen_fd >= 0) {
        close(r->listen_fd);
    }
}

bool wait_used(Rig *r, QVirtQueue *vq, uint32_t *id, uint32_t *len)
{
    for (int i = 0; i < 3000; i++) {
        if (qvirtqueue_get_buf(&r->dev, vq, id, len)) {
            return true;
        }
        g_usleep(1000);
    }
    return false;
}

uint64_t buf_alloc(Rig *r, size_t len)
{
    uint64_t a = r->next_buf;

    r->next_buf += (len + 63) & ~63ull;
    return a;
}

/* Send one frame (header of zeros but flags/gso) through TX queue vq. */
void tx_frame_on(Rig *r, QVirtQueue *vq, const uint8_t *hdr,
                 const uint8_t *frame, size_t len)
{
    static const uint8_t zero_hdr[HDR_LEN];
    uint64_t h = buf_alloc(r, HDR_LEN), d = buf_alloc(r, len);
    uint16_t head;
    uint32_t ulen;

    qtest_memwrite(r->s, h, hdr ? hdr : zero_hdr, HDR_LEN);
    qtest_memwrite(r->s, d, frame, len);
    head = qvirtqueue_add(&r->dev, vq, h, HDR_LEN, false, true);
    qvirtqueue_add(&r->dev, vq, d, len, false, false);
    qvirtqueue_kick(&r->dev, vq, head);
    g_assert_true(wait_used(r, vq, NULL, &ulen));
}

void tx_frame(Rig *r, const uint8_t *hdr, const uint8_t *frame,
              size_t len)
{
    tx_frame_on(r, &r->tx, hdr, frame, len);
}

/* Post one writable receive buffer on vq; returns its guest address. */
uint64_t rx_post_on(Rig *r, QVirtQueue *vq, uint32_t len)
{
    uint64_t a = buf_alloc(r, len);
    uint16_t head;

    qtest_memset(r->s, a, 0xee, len);
    head = qvirtqueue_add(&r->dev, vq, a, len, true, false);
    qvirtqueue_kick(&r->dev, vq, head);
    return a;
}

uint64_t rx_post(Rig *r, uint32_t len)
{
    return rx_post_on(r, &r->rx, len);
}

void make_frame(uint8_t *f, size_t len, const char *dst, uint8_t tag)
{
    static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0x99, 0x99, 0x99 };

    for (int i = 0; i < 6; i++) {
        f[i] = strtoul(dst + 3 * i, NULL, 16);
    }
    memcpy(f + 6, src, 6);
    f[12] = 0x88;
    f[13] = 0xb5;               /* local experimental ethertype */
    for (size_t i = 14; i < len; i++) {
        f[i] = tag + i;
    }
}

/* A control command: class, cmd, data; returns the ack. */
uint8_t ctrl_cmd(Rig *r, uint8_t cls, uint8_t cmd, const void *data,
                 size_t len)
{
    uint64_t h = buf_alloc(r, 2), d = buf_alloc(r, len + 1);
    uint64_t ack = buf_alloc(r, 1);
    uint8_t hdr[2] = { cls, cmd };
    uint16_t head;

    qtest_memwrite(r->s, h, hdr, 2);
    qtest_writeb(r->s, ack, 0xff);
    head = qvirtqueue_add(&r->dev, &r->ctrl, h, 2, false, true);
    if (len) {
        qtest_memwrite(r->s, d, data, len);
        qvirtqueue_add(&r->dev, &r->ctrl, d, len, false, true);
    }
    qvirtqueue_add(&r->dev, &r->ctrl, ack, 1, true, false);
    qvirtqueue_kick(&r->dev, &r->ctrl, head);
    g_assert_true(wait_used(r, &r->ctrl, NULL, NULL));
    return qtest_readb(r->s, ack);
}

uint16_t ip_csum(const uint8_t *p, size_t len)
{
    uint32_t sum = 0;

    for (size_t i = 0; i < len; i += 2) {
        sum += p[i] << 8 | p[i + 1];
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return ~sum;
}
