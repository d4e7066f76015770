#!/usr/bin/env python3
"""Extract the uncompressed ELF vmlinux from an x86 bzImage.

The setup header says where the compressed payload is (payload_offset and
payload_length, boot protocol 2.08+, relative to the protected-mode code
that follows the setup sectors); its first bytes say how it is compressed.
Usage: extract-vmlinux.py BZIMAGE OUT
"""
import lzma
import struct
import subprocess
import sys
import zlib


def fail(msg):
    sys.exit("extract-vmlinux.py: " + msg)


def decompress(payload):
    if payload.startswith(b"\xfd7zXZ\x00"):
        # The build appends the uncompressed size: stop at the stream end.
        return lzma.LZMADecompressor(format=lzma.FORMAT_XZ).decompress(payload)
    if payload.startswith(b"\x28\xb5\x2f\xfd"):
        # zstd(1) rejects the 4-byte size trailer: cut it off first.
        for data in (payload[:-4], payload):
            r = subprocess.run(["zstd", "-dcq"], input=data,
                               stdout=subprocess.PIPE,
                               stderr=subprocess.DEVNULL)
            if r.returncode == 0:
                return r.stdout
        fail("zstd could not decompress the payload")
    if payload.startswith(b"\x1f\x8b"):
        return zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(payload)
    fail("unknown payload compression (magic %s)" % payload[:6].hex())


def main():
    if len(sys.argv) != 3:
        fail("usage: extract-vmlinux.py BZIMAGE OUT")
    with open(sys.argv[1], "rb") as f:
        img = f.read()
    if len(img) < 0x250 or img[0x202:0x206] != b"HdrS":
        fail("%s is not a bzImage (no HdrS)" % sys.argv[1])
    version = struct.unpack_from("<H", img, 0x206)[0]
    if version < 0x208:
        fail("boot protocol %x has no payload fields" % version)
    setup_sects = img[0x1f1] or 4
    off, length = struct.unpack_from("<II", img, 0x248)
    start = (setup_sects + 1) * 512 + off
    payload = img[start:start + length]
    if len(payload) != length:
        fail("payload runs past the end of the file")
    elf = decompress(payload)
    if elf[:4] != b"\x7fELF":
        fail("the payload is not an ELF file")
    with open(sys.argv[2], "wb") as f:
        f.write(elf)


main()
