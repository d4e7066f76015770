/*
 * qcow2 compressed clusters, read side: a cluster compressed with raw
 * deflate (zlib, window 2^12, no header, as QEMU writes it) or as a
 * zstd frame (compression_type=zstd). The compressed bytes are rounded
 * up to whole sectors, so whatever follows the stream is ignored; the
 * output must fill the cluster exactly.
 */
#include <errno.h>
#include <string.h>

#include <zlib.h>

#include "block/qcow2.h"
#include "config-host.h"

#if HAVE_ZSTD
#include <zstd.h>
#endif

static int inflate_raw(const uint8_t *src, size_t src_len, uint8_t *dst,
                       size_t dst_len)
{
    z_stream strm;
    int ret;

    memset(&strm, 0, sizeof(strm));
    if (inflateInit2(&strm, -12) != Z_OK) {
        return -EIO;
    }
    strm.next_in = (Bytef *)src;
    strm.avail_in = src_len;
    strm.next_out = dst;
    strm.avail_out = dst_len;
    ret = inflate(&strm, Z_FINISH);
    inflateEnd(&strm);
    if ((ret == Z_STREAM_END || ret == Z_BUF_ERROR) && strm.avail_out == 0) {
        return 0;
    }
    return -EIO;
}

#if HAVE_ZSTD
static int zstd_decompress(const uint8_t *src, size_t src_len, uint8_t *dst,
                           size_t dst_len)
{
    ZSTD_DCtx *dctx = ZSTD_createDCtx();
    ZSTD_inBuffer in = { src, src_len, 0 };
    ZSTD_outBuffer out = { dst, dst_len, 0 };
    int ret = 0;

    if (!dctx) {
        return -ENOMEM;
    }
    while (out.pos < out.size) {
        size_t in_pos = in.pos, out_pos = out.pos;
        size_t r = ZSTD_decompressStream(dctx, &out, &in);

        if (ZSTD_isError(r) || (in.pos == in_pos && out.pos == out_pos)) {
            ret = -EIO;     /* damaged, or ended short of a cluster */
            break;
        }
    }
    ZSTD_freeDCtx(dctx);
    return ret;
}
#endif

bool qcow2_compression_supported(int type)
{
    return type == QCOW2_COMPRESSION_ZLIB ||
           (HAVE_ZSTD && type == QCOW2_COMPRESSION_ZSTD);
}

int qcow2_decompress(int type, const uint8_t *src, size_t src_len,
                     uint8_t *dst, size_t dst_len)
{
    switch (type) {
    case QCOW2_COMPRESSION_ZLIB:
        return inflate_raw(src, src_len, dst, dst_len);
#if HAVE_ZSTD
    case QCOW2_COMPRESSION_ZSTD:
        return zstd_decompress(src, src_len, dst, dst_len);
#endif
    default:
        return -ENOTSUP;
    }
}
