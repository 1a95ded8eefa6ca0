#!/usr/bin/python3
"""Writes SOURCE (any picture Pillow reads) as a Hamamatsu VMS slide in OUTDIR/slide.vms: COLS x ROWS JPEGs (quality
90, 4:4:4, a restart marker every 8 MCUs, by cjpeg) and a map JPEG at 1/8 scale, as the slide tests' make_slides.py
does; for bench/slide-serve.sh. Usage: make-vms.py SOURCE OUTDIR COLS ROWS"""
import os
import subprocess
import sys

from PIL import Image

Image.MAX_IMAGE_PIXELS = None


def cjpeg(image, path):
    ppm = path + ".ppm"
    image.save(ppm)
    subprocess.run(["cjpeg", "-quality", "90", "-sample", "1x1", "-restart", "8B", "-outfile", path, ppm], check=True)
    os.remove(ppm)


def main():
    source, out, cols, rows = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
    os.makedirs(out, exist_ok=True)
    whole = Image.open(source).convert("RGB")
    width, height = whole.width // cols, whole.height // rows
    lines = ["[Virtual Microscope Specimen]", "NoLayers=1", f"NoJpegColumns={cols}", f"NoJpegRows={rows}", "MapFile=slide_map.jpg",
             "SourceLens=20", f"PhysicalWidth={whole.width * 450}", f"PhysicalHeight={whole.height * 450}"]
    for row in range(rows):
        for col in range(cols):
            name = f"slide({col},{row}).jpg"
            cjpeg(whole.crop((col * width, row * height, (col + 1) * width, (row + 1) * height)), os.path.join(out, name))
            lines.append(f"ImageFile({col},{row})={name}")
    cjpeg(whole.resize((whole.width // 8, whole.height // 8), Image.BOX), os.path.join(out, "slide_map.jpg"))
    with open(os.path.join(out, "slide.vms"), "w") as key_file:
        key_file.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
