/*
 * libFuzzer target: the source's reader of the postcopy return path
 * (postcopy_request_parse in migration/postcopy-ram.c) on the bytes a
 * destination could send, taken message by message as the reader does.
 * Each request it accepts must encode back to the same bytes. A crash,
 * UB, or a parse that takes more than it was given is a bug; a refusal
 * is the expected answer.
 */
#include <stdlib.h>
#include <string.h>

#include "migration/postcopy-ram.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    size_t pos = 0;

    while (pos < size) {
        PostcopyRequest req;
        uint8_t again[POSTCOPY_REQ_MAX];
        Error *err = NULL;
        ssize_t used = postcopy_request_parse(data + pos, size - pos, &req,
                                              &err);

        if (used < 0) {
            error_free(err);
            break;
        }
        if (used == 0) {
            break;              /* the rest is a message cut short */
        }
        if ((size_t)used > size - pos ||
            postcopy_request_encode(again, req.name, req.offset) !=
            (size_t)used || memcmp(again, data + pos, used)) {
            abort();
        }
        pos += used;
    }
    return 0;
}
