/*
 * The virtio-net qtests' rig (virtio-net-test, virtio-net-tap-test): the
 * emulator with one virtio-net-pci on a netdev, driven by libqvirtio,
 * and the helpers both files send and receive frames with.
 */
#ifndef VIRTIO_NET_RIG_H
#define VIRTIO_NET_RIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "libqvirtio.h"

#define NET_DEVICE_ID   0x1041
#define HDR_LEN         12
#define RAM_BUFS        0x200000ull
#define RX_BUF_LEN      2048
#define MAC             "52:54:00:ab:cd:ef"

#define F_CSUM          (1ULL << 0)
#define F_GUEST_CSUM    (1ULL << 1)
#define F_CTRL_GUEST_OFFLOADS (1ULL << 2)
#define F_MAC           (1ULL << 5)
#define F_GUEST_TSO4    (1ULL << 7)
#define F_GUEST_TSO6    (1ULL << 8)
#define F_GUEST_ECN     (1ULL << 9)
#define F_HOST_TSO4     (1ULL << 11)
#define F_HOST_TSO6     (1ULL << 12)
#define F_HOST_ECN      (1ULL << 13)
#define OFFLOADS        (F_GUEST_CSUM | F_GUEST_TSO4 | F_GUEST_TSO6 | \
                         F_GUEST_ECN | F_HOST_TSO4 | F_HOST_TSO6 | \
                         F_HOST_ECN | F_CTRL_GUEST_OFFLOADS)
#define F_MRG_RXBUF     (1ULL << 15)
#define F_STATUS        (1ULL << 16)
#define F_CTRL_VQ       (1ULL << 17)
#define F_CTRL_RX       (1ULL << 18)
#define F_MQ            (1ULL << 22)
#define F_CTRL_MAC_ADDR (1ULL << 23)
#define BASE_FEATURES   (QVIRTIO_F_VERSION_1 | F_MAC | F_STATUS | F_CTRL_VQ | \
                         F_CTRL_RX | F_CTRL_MAC_ADDR | F_CSUM)

typedef struct Rig {
    QTestState *s;
    QVirtioDev dev;
    QVirtQueue rx, tx, ctrl;
    QVirtQueue rx1, tx1;        /* the second pair (mq) */
    QGuestAlloc alloc;
    int listen_fd, fd;          /* the test's end of -netdev socket */
    uint64_t next_buf;
} Rig;

/* A socket of type on 127.0.0.1 (listening if a stream), its port. */
int listen_loopback(int type, int *port);
/*
 * The emulator with -netdev netdev (NULL: socket to the test; "-..." a
 * whole network command line) and the NIC; with features, negotiated
 * and queues 0-2 set up.
 */
void rig_init(Rig *r, const char *netdev, const char *dev_opts,
              uint64_t features);
void rig_end(Rig *r);
/* A used buffer of vq within 3 s. */
bool wait_used(Rig *r, QVirtQueue *vq, uint32_t *id, uint32_t *len);
/* Guest memory for buffers, never reused within a rig. */
uint64_t buf_alloc(Rig *r, size_t len);
/* Send one frame with the header hdr (NULL: zeros) through a TX queue. */
void tx_frame_on(Rig *r, QVirtQueue *vq, const uint8_t *hdr,
                 const uint8_t *frame, size_t len);
void tx_frame(Rig *r, const uint8_t *hdr, const uint8_t *frame,
              size_t len);
/* Post one writable receive buffer; its guest address. */
uint64_t rx_post_on(Rig *r, QVirtQueue *vq, uint32_t len);
uint64_t rx_post(Rig *r, uint32_t len);
/* A frame to dst (a MAC string) of ethertype 0x88b5, bytes by tag. */
void make_frame(uint8_t *f, size_t len, const char *dst, uint8_t tag);
/* A control command: class, cmd, data; the ack. */
uint8_t ctrl_cmd(Rig *r, uint8_t cls, uint8_t cmd, const void *data,
                 size_t len);
/* The Internet checksum of p (0 over a block with a right one). */
uint16_t ip_csum(const uint8_t *p, size_t len);

#endif
