#!/usr/bin/python3
"""Writes SOURCE (any picture Pillow reads) as a Hamamatsu VMS slide in OUTDIR/slide.vms, as a scanner does: COLS x ROWS
JPEGs (quality 90, 4:4:4, a restart marker every 32 MCUs, by cjpeg), a map JPEG at 1/8 scale, and the optimisation file
(`.opt`: where each MCU row starts, 40-byte little-endian records, every JPEG's rows in turn) without which OpenSlide
must scan a JPEG's restart markers from its start before it can read far into it; for bench/slide-serve.sh.
Usage: make-vms.py SOURCE OUTDIR COLS ROWS"""
import os
import subprocess
import sys

from PIL import Image

Image.MAX_IMAGE_PIXELS = None


def cjpeg(image, path):
    ppm = path + ".ppm"
    image.save(ppm)
    subprocess.run(["cjpeg", "-quality", "90", "-sample", "1x1", "-restart", "32B", "-outfile", path, ppm], check=True)
    os.remove(ppm)


def row_starts(path, runs_per_row):
    """The file offsets where each MCU row's entropy data starts: after the SOS segment for the first, after the
    restart marker that ends the previous row for the others (OpenSlide checks that marker)."""
    data = open(path, "rb").read()
    sos = data.index(b"\xff\xda")
    start = sos + 2 + int.from_bytes(data[sos + 2:sos + 4], "big")
    markers = []
    position = start
    while True:
        position = data.find(b"\xff", position)
        if position < 0 or position + 1 >= len(data):
            break
        if 0xD0 <= data[position + 1] <= 0xD7:
            markers.append(position + 2)
        position += 2
    return [start] + [markers[row * runs_per_row - 1] for row in range(1, len(markers) // runs_per_row + 1)]


def records(offsets):
    return b"".join(offset.to_bytes(8, "little") + bytes(32) for offset in offsets)


def main():
    source, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    whole = Image.open(source).convert("RGB")
    width, height = whole.width // cols, whole.height // rows
    lines = ["[Virtual Microscope Specimen]", "NoLayers=1", f"NoJpegColumns={cols}", f"NoJpegRows={rows}", "MapFile=slide_map.jpg",
             "OptimisationFile=slide.opt",
             "SourceLens=20", f"PhysicalWidth={whole.width * 450}", f"PhysicalHeight={whole.height * 450}"]
    for row in range(rows):
        for col in range(cols):
            name = f"slide({col},{row}).jpg"
            cjpeg(whole.crop((col * width, row * height, (col + 1) * width, (row + 1) * height)), os.path.join(out, name))
            lines.append(f"ImageFile({col},{row})={name}")
    cjpeg(whole.resize((whole.width // 8, whole.height // 8), Image.BOX), os.path.join(out, "slide_map.jpg"))
    optimisation = b""
    for row in range(rows):
        for col in range(cols):
            # 8-pixel MCUs (4:4:4), a restart marker every 32 of them.
            optimisation += records(row_starts(os.path.join(out, f"slide({col},{row}).jpg"), width // 8 // 32))
    with open(os.path.join(out, "slide.opt"), "wb") as opt:
        opt.write(optimisation)
    with open(os.path.join(out, "slide.vms"), "w") as key_file:
        key_file.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
