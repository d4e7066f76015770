/*
 * virtio-serial-pci (virtio 1.x, 5.3, "console device") and the ports
 * that plug into its bus: virtconsole and virtserialport. The device
 * itself is internal to hw/virtio/virtio-serial.c; what is here is the
 * control-message entry the fuzz target (tests/fuzz) drives.
 */
#ifndef HW_VIRTIO_VIRTIO_SERIAL_H
#define HW_VIRTIO_VIRTIO_SERIAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct VirtIOSerial VirtIOSerial;

/*
 * A device with max_ports ports, every one present but without a
 * chardev (port 0 a console), multiport negotiated and DRIVER_OK, on no
 * transport; control replies queue up inside (bounded).
 */
VirtIOSerial *virtio_serial_new_unplugged(unsigned max_ports);
void virtio_serial_free_unplugged(VirtIOSerial *s);
/* One message the driver sent on the control transmit queue. */
void virtio_serial_control_message(VirtIOSerial *s, const uint8_t *msg,
                                   size_t len);
/* Has the device marked itself broken (and been reset since)? */
bool virtio_serial_broken(const VirtIOSerial *s);
void virtio_serial_reset(VirtIOSerial *s);

#endif
