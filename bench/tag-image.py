#!/usr/bin/env python3
"""Copies a PNG or JPEG, adding an ICC profile (PNG iCCP / JPEG APP2) or an EXIF orientation (PNG eXIf / JPEG APP1)
right after the header, streaming the rest: the pixels stay byte for byte the same.

Usage: bench/tag-image.py INPUT OUTPUT (--icc PROFILE | --orientation N)"""
import shutil
import struct
import sys
import zlib


def png_chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def exif(orientation):
    return b"II*\x00\x08\x00\x00\x00\x01\x00" + struct.pack("<HHIHH", 0x0112, 3, 1, orientation, 0) + b"\x00\x00\x00\x00"


def main():
    source, target, option, value = sys.argv[1:5]
    with open(source, "rb") as src, open(target, "wb") as out:
        head = src.read(33 if source.endswith(".png") else 2)
        out.write(head)
        if head.startswith(b"\x89PNG"):
            if option == "--icc":
                out.write(png_chunk(b"iCCP", b"profile\x00\x00" + zlib.compress(open(value, "rb").read())))
            else:
                out.write(png_chunk(b"eXIf", exif(int(value))))
        else:
            if option == "--icc":
                payload = b"ICC_PROFILE\x00\x01\x01" + open(value, "rb").read()
                marker = b"\xff\xe2"
            else:
                payload = b"Exif\x00\x00" + exif(int(value))
                marker = b"\xff\xe1"
            out.write(marker + struct.pack(">H", len(payload) + 2) + payload)
        shutil.copyfileobj(src, out, 1 << 20)


main()
