/*
 * qtest for virtio-net-pci through libqvirtio, with the test at the other
 * end of a -netdev socket (it listens, the emulator connects) or of a
 * -netdev user: frames both ways, the backend paused while the guest
 * has no buffers (the test's socket fills up, nothing is lost), offered
 * features, checksum completion, link down/up with the config status
 * and interrupt, the control queue (RX modes, MAC table,
 * NIC_RX_FILTER_CHANGED, query-rx-filter, VQ_PAIRS_SET), malformed
 * chains breaking the device, DHCP from slirp and a hostfwd SYN.
 * The -netdev tap cases are in virtio-net-tap-test.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "virtio-net-rig.h"


static void rig_start(Rig *r, uint64_t features)
{
    rig_init(r, NULL, NULL, features);
}

static bool read_full(int fd, void *buf, size_t len, int timeout_ms)
{
    uint8_t *p = buf;

    while (len) {
        struct pollfd pfd = { .fd = fd, .events = POLLIN };
        ssize_t n;

        if (poll(&pfd, 1, timeout_ms) <= 0) {
            return false;
        }
        n = read(fd, p, len);
        if (n <= 0) {
            return false;
        }
        p += n;
        len -= n;
    }
    return true;
}

/* One frame from the socket: its length, or -1 when none came. */
static ssize_t sock_recv_frame(Rig *r, uint8_t *buf, size_t size,
                               int timeout_ms)
{
    uint8_t l[4];
    uint32_t len;

    if (!read_full(r->fd, l, 4, timeout_ms)) {
        return -1;
    }
    len = (uint32_t)l[0] << 24 | l[1] << 16 | l[2] << 8 | l[3];
    g_assert_cmpuint(len, <=, size);
    g_assert_true(read_full(r->fd, buf, len, 2000));
    return len;
}

static void sock_send_frame(Rig *r, const uint8_t *frame, size_t len)
{
    uint8_t l[4] = { len >> 24, len >> 16, len >> 8, len };

    g_assert_cmpint(write(r->fd, l, 4), ==, 4);
    g_assert_cmpint(write(r->fd, frame, len), ==, (ssize_t)len);
}

static void test_features(void)
{
    Rig r;
    uint64_t f;

    rig_init(&r, NULL, NULL, 0);
    f = qvirtio_get_features(&r.dev);
    g_assert_cmphex(f & BASE_FEATURES, ==, BASE_FEATURES);
    /* No vnet header on the backend: nothing it would have to carry. */
    g_assert_cmphex(f & (F_GUEST_CSUM | F_GUEST_TSO4 | F_HOST_TSO4 |
                         F_HOST_TSO6 | F_MQ), ==, 0);
    /*
     * What was not offered is dropped (FEATURES_OK stays); bad/tx-gso
     * shows a GSO packet is refused even after asking for HOST_TSO4.
     */
    g_assert_true(qvirtio_negotiate(&r.dev, BASE_FEATURES | F_HOST_TSO4));
    /* Config: the MAC, LINK_UP, one queue pair; three queues. */
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device, 4), ==,
                    0xab005452);
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 4, 2), ==,
                    0xefcd);
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 6, 2), ==,
                    1);
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 8, 2), ==,
                    1);
    g_assert_cmpuint(qpci_bar_read(r.s, &r.dev.bar, 0x12, 2), ==, 3);
    /* Class: Ethernet controller. */
    g_assert_cmphex(qpci_config_readw(r.s, r.dev.devfn, 0x0a), ==, 0x0200);
    rig_end(&r);
}

static void test_tx(void)
{
    Rig r;
    uint8_t frame[60], got[2048];

    rig_start(&r, BASE_FEATURES);
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 1);
    tx_frame(&r, NULL, frame, sizeof(frame));
    g_assert_cmpint(sock_recv_frame(&r, got, sizeof(got), 2000), ==, 60);
    g_assert_cmpmem(got, 60, frame, 60);
    rig_end(&r);
}

/* NEEDS_CSUM: the device fills in the checksum at csum_start+offset. */
static void test_tx_csum(void)
{
    Rig r;
    uint8_t frame[101], got[2048], hdr[HDR_LEN] = { 1 };
    uint32_t sum = 0;
    unsigned start = 34, off = 6;

    rig_start(&r, BASE_FEATURES);
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 7);
    frame[start + off] = 0x12;          /* the pseudo-header sum */
    frame[start + off + 1] = 0x34;
    hdr[6] = start;
    hdr[8] = off;
    for (unsigned i = start; i < sizeof(frame); i += 2) {
        sum += frame[i] << 8 | (i + 1 < sizeof(frame) ? frame[i + 1] : 0);
    }
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    sum = ~sum & 0xffff;
    tx_frame(&r, hdr, frame, sizeof(frame));
    g_assert_cmpint(sock_recv_frame(&r, got, sizeof(got), 2000), ==,
                    sizeof(frame));
    g_assert_cmphex(got[start + off] << 8 | got[start + off + 1], ==, sum);
    g_assert_cmpmem(got, start + off, frame, start + off);
    rig_end(&r);
}

static void check_rx(Rig *r, uint64_t buf, const uint8_t *frame, size_t len)
{
    uint8_t got[RX_BUF_LEN];
    uint32_t ulen;

    g_assert_true(wait_used(r, &r->rx, NULL, &ulen));
    g_assert_cmpuint(ulen, ==, HDR_LEN + len);
    qtest_memread(r->s, buf, got, HDR_LEN + len);
    /* No offload flags, no GSO, num_buffers 1. */
    g_assert_cmphex(got[0] | got[1], ==, 0);
    g_assert_cmphex(got[10] | got[11] << 8, ==, 1);
    g_assert_cmpmem(got + HDR_LEN, len, frame, len);
}

static void test_rx(void)
{
    Rig r;
    uint8_t frame[200];
    uint64_t buf;

    rig_start(&r, BASE_FEATURES);
    buf = rx_post(&r, RX_BUF_LEN);
    make_frame(frame, sizeof(frame), MAC, 3);
    sock_send_frame(&r, frame, sizeof(frame));
    check_rx(&r, buf, frame, sizeof(frame));
    rig_end(&r);
}

/*
 * Without guest buffers the backend stops reading: the test's socket
 * fills up (it would not if the emulator read and dropped), and once
 * buffers come every frame arrives, in order.
 */
static void test_rx_backpressure(void)
{
    enum { FRAME = 1400 };
    Rig r;
    uint8_t frame[FRAME + 4];
    size_t sent = 0;
    unsigned frames = 0;
    int flags;

    rig_start(&r, BASE_FEATURES);
    flags = fcntl(r.fd, F_GETFL);
    fcntl(r.fd, F_SETFL, flags | O_NONBLOCK);
    for (size_t off = 0;;) {
        ssize_t n;

        if (!off) {
            frame[0] = 0;
            frame[1] = 0;
            frame[2] = FRAME >> 8;
            frame[3] = FRAME & 0xff;
            make_frame(frame + 4, FRAME, MAC, frames);
        }
        n = send(r.fd, frame + off, sizeof(frame) - off, MSG_DONTWAIT);
        if (n < 0 && errno == EAGAIN) {
            /* Give the emulator time to read more, if it still reads. */
            struct pollfd pfd = { .fd = r.fd, .events = POLLOUT };

            if (poll(&pfd, 1, 300) == 0) {
                break;
            }
            continue;
        }
        g_assert_cmpint(n, >, 0);
        sent += n;
        off += n;
        if (off == sizeof(frame)) {
            off = 0;
            frames++;
        }
        g_assert_cmpuint(sent, <, 256u << 20);  /* never read all */
    }
    g_test_message("socket full after %u frames", frames);
    g_assert_cmpuint(frames, >, 2);
    fcntl(r.fd, F_SETFL, flags);
    /* The first three frames, in order, nothing dropped. */
    for (unsigned i = 0; i < 3; i++) {
        uint64_t buf = rx_post(&r, RX_BUF_LEN);

        make_frame(frame, FRAME, MAC, i);
        check_rx(&r, buf, frame, FRAME);
    }
    rig_end(&r);
}

static void test_link(void)
{
    Rig r;
    uint8_t frame[60], got[2048];
    JsonNode *rsp;

    rig_start(&r, BASE_FEATURES);
    g_assert_cmphex(qvirtio_read_isr(&r.dev), ==, 0);
    rsp = qtest_qmp(r.s, "{\"execute\": \"set_link\", \"arguments\": "
                    "{\"name\": \"nic0\", \"up\": false}}");
    g_assert_false(qtest_qmp_has_error(rsp));
    json_node_unref(rsp);
    /* A config interrupt, LINK_UP clear. */
    g_assert_cmphex(qvirtio_read_isr(&r.dev) & 2, ==, 2);
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 6, 2), ==,
                    0);
    /* While down, TX is dropped. */
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 9);
    tx_frame(&r, NULL, frame, sizeof(frame));
    g_assert_cmpint(sock_recv_frame(&r, got, sizeof(got), 200), ==, -1);
    rsp = qtest_qmp(r.s, "{\"execute\": \"set_link\", \"arguments\": "
                    "{\"name\": \"nic0\", \"up\": true}}");
    json_node_unref(rsp);
    g_assert_cmphex(qvirtio_read_isr(&r.dev) & 2, ==, 2);
    g_assert_cmphex(qpci_bar_read(r.s, &r.dev.bar, r.dev.device + 6, 2), ==,
                    1);
    tx_frame(&r, NULL, frame, sizeof(frame));
    g_assert_cmpint(sock_recv_frame(&r, got, sizeof(got), 2000), ==, 60);
    /* An unknown name is DeviceNotFound. */
    rsp = qtest_qmp(r.s, "{\"execute\": \"set_link\", \"arguments\": "
                    "{\"name\": \"nope\", \"up\": true}}");
    g_assert_true(qtest_qmp_has_error(rsp));
    json_node_unref(rsp);
    rig_end(&r);
}

static JsonObject *rx_filter(Rig *r)
{
    JsonNode *rsp = qtest_qmp(r->s, "{\"execute\": \"query-rx-filter\", "
                              "\"arguments\": {\"name\": \"nic0\"}}");
    JsonArray *a = json_object_get_array_member(
        json_node_get_object(rsp), "return");
    JsonObject *o = json_object_ref(json_array_get_object_element(a, 0));

    json_node_unref(rsp);
    return o;
}

static void test_ctrl_rx_filter(void)
{
    static const uint8_t off = 0, on = 1;
    /* One unicast entry, one multicast entry. */
    static const uint8_t table[] = {
        1, 0, 0, 0, 0x52, 0x54, 0x00, 0x11, 0x22, 0x33,
        1, 0, 0, 0, 0x01, 0x00, 0x5e, 0x00, 0x00, 0x01,
    };
    Rig r;
    uint8_t frame[64];
    uint64_t buf;
    JsonObject *o;
    JsonNode *ev;

    rig_start(&r, BASE_FEATURES);
    o = rx_filter(&r);
    g_assert_true(json_object_get_boolean_member(o, "promiscuous"));
    g_assert_cmpstr(json_object_get_string_member(o, "main-mac"), ==, MAC);
    json_object_unref(o);
    /* Promiscuous off: the event, then only our MAC and the table. */
    g_assert_cmpuint(ctrl_cmd(&r, 0, 0, &off, 1), ==, 0);
    ev = qtest_qmp_eventwait_ref(r.s, "NIC_RX_FILTER_CHANGED");
    g_assert_cmpstr(json_object_get_string_member(
                        qdict_get_qdict(ev, "data"), "name"), ==, "nic0");
    json_node_unref(ev);
    g_assert_cmpuint(ctrl_cmd(&r, 1, 0, table, sizeof(table)), ==, 0);
    g_assert_cmpuint(ctrl_cmd(&r, 0, 5, &on, 1), ==, 0);   /* no bcast */
    o = rx_filter(&r);
    g_assert_false(json_object_get_boolean_member(o, "promiscuous"));
    g_assert_false(json_object_get_boolean_member(o, "broadcast-allowed"));
    g_assert_cmpstr(json_array_get_string_element(
                        json_object_get_array_member(o, "unicast-table"), 0),
                    ==, "52:54:00:11:22:33");
    g_assert_cmpstr(json_array_get_string_element(
                        json_object_get_array_member(o, "multicast-table"),
                        0), ==, "01:00:5e:00:00:01");
    json_object_unref(o);
    buf = rx_post(&r, RX_BUF_LEN);
    /* Filtered: another host, broadcast, an unlisted multicast. */
    make_frame(frame, sizeof(frame), "52:54:00:00:00:01", 1);
    sock_send_frame(&r, frame, sizeof(frame));
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 2);
    sock_send_frame(&r, frame, sizeof(frame));
    make_frame(frame, sizeof(frame), "01:00:5e:00:00:02", 3);
    sock_send_frame(&r, frame, sizeof(frame));
    /* Received: the table's unicast entry. */
    make_frame(frame, sizeof(frame), "52:54:00:11:22:33", 4);
    sock_send_frame(&r, frame, sizeof(frame));
    check_rx(&r, buf, frame, sizeof(frame));
    buf = rx_post(&r, RX_BUF_LEN);
    make_frame(frame, sizeof(frame), "01:00:5e:00:00:01", 5);
    sock_send_frame(&r, frame, sizeof(frame));
    check_rx(&r, buf, frame, sizeof(frame));
    /* Unknown class: ERR; VQ_PAIRS_SET without MQ: ERR. */
    g_assert_cmpuint(ctrl_cmd(&r, 99, 0, &on, 1), ==, 1);
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\1\0", 2), ==, 1);
    /* A new MAC address. */
    g_assert_cmpuint(ctrl_cmd(&r, 1, 1, "\x52\x54\x00\x01\x02\x03", 6), ==,
                     0);
    o = rx_filter(&r);
    g_assert_cmpstr(json_object_get_string_member(o, "main-mac"), ==,
                    "52:54:00:01:02:03");
    json_object_unref(o);
    rig_end(&r);
}

static void test_mq(void)
{
    Rig r;

    rig_init(&r, NULL, ",mq=on,vectors=4", BASE_FEATURES | F_MQ);
    g_assert_cmphex(qvirtio_get_features(&r.dev) & F_MQ, ==, F_MQ);
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\1\0", 2), ==, 0);
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\2\0", 2), ==, 1);
    g_assert_cmpuint(ctrl_cmd(&r, 4, 0, "\0\0", 2), ==, 1);
    rig_end(&r);
}

/* Each malformed request must break the device, nothing else. */
typedef void BadRequest(Rig *r);

static void bad_tx_writable(Rig *r)
{
    uint64_t b = buf_alloc(r, 64);
    uint16_t head = qvirtqueue_add(&r->dev, &r->tx, b, 64, true, false);

    qvirtqueue_kick(&r->dev, &r->tx, head);
}

static void bad_tx_short(Rig *r)
{
    uint64_t b = buf_alloc(r, 64);
    uint16_t head = qvirtqueue_add(&r->dev, &r->tx, b, 8, false, false);

    qvirtqueue_kick(&r->dev, &r->tx, head);
}

static void bad_tx_gso(Rig *r)
{
    uint64_t b = buf_alloc(r, 128);
    uint16_t head;

    qtest_memset(r->s, b, 0, 128);
    qtest_writeb(r->s, b + 1, 1);       /* GSO_TCPV4 */
    head = qvirtqueue_add(&r->dev, &r->tx, b, 128, false, false);
    qvirtqueue_kick(&r->dev, &r->tx, head);
}

static void bad_tx_csum(Rig *r)
{
    uint64_t b = buf_alloc(r, 128);
    uint16_t head;

    qtest_memset(r->s, b, 0, 128);
    qtest_writeb(r->s, b, 1);           /* NEEDS_CSUM */
    qtest_writew(r->s, b + 6, 200);     /* beyond the packet */
    head = qvirtqueue_add(&r->dev, &r->tx, b, 128, false, false);
    qvirtqueue_kick(&r->dev, &r->tx, head);
}

static void bad_tx_outside_ram(Rig *r)
{
    qvirtqueue_set_desc(&r->dev, &r->tx, 0, 0x7ffffff000ull, 64, 0, 0);
    qvirtqueue_kick(&r->dev, &r->tx, 0);
}

static void bad_rx_readonly(Rig *r)
{
    uint64_t b = buf_alloc(r, RX_BUF_LEN);
    uint16_t head = qvirtqueue_add(&r->dev, &r->rx, b, RX_BUF_LEN, false,
                                   false);
    uint8_t frame[60];

    qvirtqueue_kick(&r->dev, &r->rx, head);
    make_frame(frame, sizeof(frame), MAC, 0);
    sock_send_frame(r, frame, sizeof(frame));
}

static void bad_ctrl_no_ack(Rig *r)
{
    uint64_t b = buf_alloc(r, 8);
    uint16_t head = qvirtqueue_add(&r->dev, &r->ctrl, b, 8, false, false);

    qvirtqueue_kick(&r->dev, &r->ctrl, head);
}

static void test_bad(const void *data)
{
    BadRequest *bad = (BadRequest *)data;
    Rig r;
    uint8_t frame[60], got[2048];

    rig_start(&r, BASE_FEATURES | F_HOST_TSO4);
    bad(&r);
    for (int i = 0; i < 2000 &&
         !(qvirtio_get_status(&r.dev) & QVIRTIO_NEEDS_RESET); i++) {
        g_usleep(1000);
    }
    g_assert_cmphex(qvirtio_get_status(&r.dev) & QVIRTIO_NEEDS_RESET, ==,
                    QVIRTIO_NEEDS_RESET);
    /* Reset and use it again. */
    r.next_buf = RAM_BUFS + 0x10000;
    qalloc_init(&r.alloc, 0x100000, 0x1000000);
    g_assert_true(qvirtio_negotiate(&r.dev, BASE_FEATURES));
    qvirtqueue_setup(&r.dev, &r.rx, &r.alloc, 0, 0);
    qvirtqueue_setup(&r.dev, &r.tx, &r.alloc, 1, 0);
    qvirtqueue_setup(&r.dev, &r.ctrl, &r.alloc, 2, 0);
    qvirtio_set_driver_ok(&r.dev);
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 1);
    tx_frame(&r, NULL, frame, sizeof(frame));
    g_assert_cmpint(sock_recv_frame(&r, got, sizeof(got), 2000), ==, 60);
    rig_end(&r);
}

/* -netdev socket,udp=: one datagram per frame, both ways. */
static void test_udp(void)
{
    struct sockaddr_in emu = { .sin_family = AF_INET,
                               .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    g_autofree char *netdev = NULL;
    uint8_t frame[300], got[2048];
    int test_port, emu_port, probe;
    uint64_t buf;
    Rig r;

    probe = listen_loopback(SOCK_DGRAM, &emu_port);
    close(probe);
    probe = listen_loopback(SOCK_DGRAM, &test_port);
    netdev = g_strdup_printf("socket,id=n0,udp=127.0.0.1:%d,"
                             "localaddr=127.0.0.1:%d", test_port, emu_port);
    rig_init(&r, netdev, NULL, BASE_FEATURES);
    make_frame(frame, sizeof(frame), "ff:ff:ff:ff:ff:ff", 11);
    tx_frame(&r, NULL, frame, sizeof(frame));
    {
        struct pollfd pfd = { .fd = probe, .events = POLLIN };

        g_assert_cmpint(poll(&pfd, 1, 2000), ==, 1);
    }
    g_assert_cmpint(recv(probe, got, sizeof(got), 0), ==, sizeof(frame));
    g_assert_cmpmem(got, sizeof(frame), frame, sizeof(frame));
    buf = rx_post(&r, RX_BUF_LEN);
    make_frame(frame, sizeof(frame), MAC, 12);
    emu.sin_port = htons(emu_port);
    g_assert_cmpint(sendto(probe, frame, sizeof(frame), 0,
                           (struct sockaddr *)&emu, sizeof(emu)), ==,
                    sizeof(frame));
    check_rx(&r, buf, frame, sizeof(frame));
    close(probe);
    rig_end(&r);
}

/* --- -netdev user (slirp) --- */

/* A DHCPDISCOVER from MAC, as a broadcast frame; returns its length. */
static size_t dhcp_discover(uint8_t *f)
{
    static const uint8_t mac[6] = { 0x52, 0x54, 0x00, 0xab, 0xcd, 0xef };
    uint8_t *ip = f + 14, *udp = ip + 20, *bootp = udp + 8;
    size_t bootp_len = 240 + 4, udp_len = 8 + bootp_len;
    uint16_t c;

    memset(f, 0, 14 + 20 + udp_len);
    memset(f, 0xff, 6);
    memcpy(f + 6, mac, 6);
    f[12] = 0x08;
    ip[0] = 0x45;
    ip[2] = (20 + udp_len) >> 8;
    ip[3] = (20 + udp_len) & 0xff;
    ip[8] = 64;
    ip[9] = 17;
    memset(ip + 16, 0xff, 4);
    c = ip_csum(ip, 20);
    ip[10] = c >> 8;
    ip[11] = c;
    udp[1] = 68;
    udp[3] = 67;
    udp[4] = udp_len >> 8;
    udp[5] = udp_len & 0xff;
    bootp[0] = 1;               /* BOOTREQUEST */
    bootp[1] = 1;
    bootp[2] = 6;
    memcpy(bootp + 4, "\x12\x34\x56\x78", 4);
    memcpy(bootp + 28, mac, 6);
    memcpy(bootp + 236, "\x63\x82\x53\x63", 4);
    memcpy(bootp + 240, "\x35\x01\x01\xff", 4);   /* DISCOVER, end */
    return 14 + 20 + udp_len;
}

/* Wait for a received frame accepted by match; copies it to out. */
static bool rx_wait_match(Rig *r, bool (*match)(const uint8_t *, size_t),
                          uint8_t *out)
{
    for (int tries = 0; tries < 20; tries++) {
        uint64_t buf = rx_post(r, RX_BUF_LEN);
        uint32_t len;

        if (!wait_used(r, &r->rx, NULL, &len)) {
            return false;
        }
        g_assert_cmpuint(len, >=, HDR_LEN);
        qtest_memread(r->s, buf + HDR_LEN, out, len - HDR_LEN);
        if (match(out, len - HDR_LEN)) {
            return true;
        }
    }
    return false;
}

static bool is_dhcp_offer(const uint8_t *f, size_t len)
{
    const uint8_t *bootp = f + 14 + 20 + 8;

    return len >= 14 + 20 + 8 + 243 && f[12] == 0x08 && f[13] == 0 &&
           f[14 + 9] == 17 && f[14 + 20 + 1] == 67 && bootp[0] == 2 &&
           !memcmp(bootp + 4, "\x12\x34\x56\x78", 4) &&
           bootp[240] == 0x35 && bootp[242] == 2;
}

static void user_dhcp(Rig *r)
{
    uint8_t frame[600], got[RX_BUF_LEN];
    size_t len = dhcp_discover(frame);

    tx_frame(r, NULL, frame, len);
    g_assert_true(rx_wait_match(r, is_dhcp_offer, got));
    /* yiaddr: the first DHCP address of the default network. */
    g_assert_cmpmem(got + 14 + 20 + 8 + 16, 4, "\x0a\x00\x02\x0f", 4);
}

static void test_user_dhcp(void)
{
    Rig r;

    rig_init(&r, "user,id=n0,restrict=on,ipv6=off", NULL, BASE_FEATURES);
    user_dhcp(&r);
    rig_end(&r);
}

/* -nic and the legacy -net nic -net user (a hub) reach slirp too. */
static void test_user_dhcp_cmdline(const void *data)
{
    Rig r;

    rig_init(&r, data, NULL, BASE_FEATURES);
    user_dhcp(&r);
    rig_end(&r);
}

static bool is_syn_to_22(const uint8_t *f, size_t len)
{
    const uint8_t *tcp = f + 14 + 20;

    return len >= 14 + 20 + 20 && f[12] == 0x08 && f[14 + 9] == 6 &&
           !memcmp(f + 14 + 16, "\x0a\x00\x02\x0f", 4) &&
           tcp[2] == 0 && tcp[3] == 22 && (tcp[13] & 0x02);
}

/* A host connection to the hostfwd port reaches the guest as a SYN. */
static void test_user_hostfwd(void)
{
    struct sockaddr_in a = { .sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    g_autofree char *netdev = NULL;
    uint8_t got[RX_BUF_LEN];
    int port, probe, c;
    Rig r;

    probe = listen_loopback(SOCK_STREAM, &port);
    close(probe);
    netdev = g_strdup_printf("user,id=n0,hostfwd=tcp:127.0.0.1:%d-:22",
                             port);
    rig_init(&r, netdev, NULL, BASE_FEATURES);
    user_dhcp(&r);              /* slirp learns the guest's MAC */
    c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    a.sin_port = htons(port);
    g_assert_true(connect(c, (struct sockaddr *)&a, sizeof(a)) == 0 ||
                  errno == EINPROGRESS);
    g_assert_true(rx_wait_match(&r, is_syn_to_22, got));
    close(c);
    rig_end(&r);
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        BadRequest *fn;
    } bad[] = {
        { "tx-writable", bad_tx_writable },
        { "tx-short-header", bad_tx_short },
        { "tx-gso", bad_tx_gso },
        { "tx-csum-beyond", bad_tx_csum },
        { "tx-outside-ram", bad_tx_outside_ram },
        { "rx-readonly", bad_rx_readonly },
        { "ctrl-no-ack", bad_ctrl_no_ack },
    };

    g_test_init(&argc, &argv, NULL);
    qtest_add_func("/virtio-net/features", test_features);
    qtest_add_func("/virtio-net/tx", test_tx);
    qtest_add_func("/virtio-net/tx-csum", test_tx_csum);
    qtest_add_func("/virtio-net/rx", test_rx);
    qtest_add_func("/virtio-net/rx-backpressure", test_rx_backpressure);
    qtest_add_func("/virtio-net/link", test_link);
    qtest_add_func("/virtio-net/ctrl-rx-filter", test_ctrl_rx_filter);
    qtest_add_func("/virtio-net/mq", test_mq);
    qtest_add_func("/virtio-net/udp", test_udp);
    for (size_t i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree char *path = g_strdup_printf("/virtio-net/bad/%s",
                                                bad[i].name);

        qtest_add_data_func(path, bad[i].fn, test_bad);
    }
    qtest_add_func("/virtio-net/user/dhcp", test_user_dhcp);
    qtest_add_func("/virtio-net/user/hostfwd", test_user_hostfwd);
    qtest_add_data_func("/virtio-net/user/nic",
                        "-nic user,model=virtio-net-pci,mac=" MAC,
                        test_user_dhcp_cmdline);
    qtest_add_data_func("/virtio-net/user/legacy-net",
                        "-net nic,model=virtio,macaddr=" MAC " -net user",
                        test_user_dhcp_cmdline);
    return g_test_run();
}
