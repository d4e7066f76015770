/*
 * libFuzzer target: the control messages a driver sends to virtio-serial
 * (hw/virtio/virtio-serial.c). The first byte picks the number of ports
 * (1..16); then records follow, each a length byte and that many bytes
 * of message (length 0xff: the driver resets the device). A device that
 * broke itself is reset before the next record, as a driver would. The
 * replies queue inside the device, which must keep them bounded; a
 * crash, a leak, UB or a hang is a bug.
 */
#include <glib.h>

#include "hw/virtio/virtio-serial.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VirtIOSerial *s;
    size_t i = 1;

    if (size < 1) {
        return 0;
    }
    s = virtio_serial_new_unplugged(1 + data[0] % 16);
    while (i < size) {
        size_t len = data[i++];

        if (len == 0xff) {
            virtio_serial_reset(s);
            continue;
        }
        len = MIN(len, size - i);
        virtio_serial_control_message(s, data + i, len);
        i += len;
        if (virtio_serial_broken(s)) {
            virtio_serial_reset(s);
        }
    }
    virtio_serial_free_unplugged(s);
    return 0;
}
