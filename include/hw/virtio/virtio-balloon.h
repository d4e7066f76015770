/*
 * virtio-balloon's page handling, apart from the device (fuzz target):
 * what the guest hands over, checked page by page and discarded through
 * ram_block_discard_range().
 */
#ifndef HW_VIRTIO_VIRTIO_BALLOON_H
#define HW_VIRTIO_VIRTIO_BALLOON_H

#include <stdbool.h>
#include <stdint.h>

#include "hw/virtio/virtio.h"

/*
 * An inflate (or deflate) element: le32 PFNs of 4 KiB pages in its
 * readable buffers. PFNs that are not guest RAM in as are logged and
 * skipped; inflated pages are discarded. Returns the bytes discarded.
 */
uint64_t virtio_balloon_page_list(AddressSpace *as,
                                  const VirtQueueElement *elem, bool inflate);
/* A free page report: each writable buffer is discarded. */
uint64_t virtio_balloon_report(const VirtQueueElement *elem);

#endif
