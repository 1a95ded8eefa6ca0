#!/usr/bin/python3
"""Writes the whole-slide images the slide tests serve into OUTDIR, in formats whose layout OpenSlide documents:

- vms/slide.vms: a Hamamatsu VMS slide (a key file, 2 x 2 JPEGs with restart markers made by cjpeg (4:4:4), a map JPEG and a
  macro image), 1024 x 768 pixels;
- vms-broken/slide.vms: the same with one of its JPEGs missing;
- planes.tiff: a generic tiled pyramidal TIFF (tifffile, Deflate) with separate colour planes: OpenSlide reads it,
  Tiler's own TIFF reader does not, 1024 x 1024 pixels;
- alpha.tiff: the same kind of TIFF with an alpha channel (a gradient, a transparent band), 512 x 512 pixels, for the
  compositing of OpenSlide's premultiplied pixels over the background;
- labelled.svs: an Aperio SVS of one resolution (tifffile, Deflate) with a thumbnail, a label and a macro image, laid
  out as OpenSlide's Aperio page describes (the label and macro named on their description's second line).

Usage: make_slides.py OUTDIR (run with Debian's /usr/bin/python3: Pillow, tifffile).
"""
import os
import shutil
import subprocess
import sys

import numpy
import tifffile
from PIL import Image, ImageDraw


def picture(width, height, seed):
    """A deterministic picture with edges and gradients in every part."""
    y, x = numpy.mgrid[0:height, 0:width]
    r = (x * 255 // max(1, width - 1)).astype(numpy.uint8)
    g = (y * 255 // max(1, height - 1)).astype(numpy.uint8)
    b = (((x // 37 + y // 29 + seed) % 2) * 160 + 40).astype(numpy.uint8)
    image = Image.fromarray(numpy.dstack([r, g, b]), "RGB")
    draw = ImageDraw.Draw(image)
    for i in range(12):
        cx, cy = (i * 211 + seed * 17) % width, (i * 137 + seed * 31) % height
        draw.ellipse([cx - 40, cy - 30, cx + 40, cy + 30], fill=((i * 70) % 256, 255 - i * 20, (i * 40) % 256))
    return image


def cjpeg(image, path, restart):
    ppm = path + ".ppm"
    image.save(ppm)
    # 4:4:4 with a restart marker every 8 MCUs: with cjpeg's default 4:2:0, OpenSlide 3.4.1 fails on level 0 of a VMS
    # ("Corrupt JPEG data: found marker 0xd9 instead of RST0").
    options = ["-sample", "1x1", "-restart", "8B"] if restart else []
    subprocess.run(["cjpeg", "-quality", "95", *options, "-outfile", path, ppm], check=True)
    os.remove(ppm)


def write_vms(folder, whole):
    os.makedirs(folder, exist_ok=True)
    cols, rows = 2, 2
    tile_w, tile_h = whole.width // cols, whole.height // rows
    lines = [
        "[Virtual Microscope Specimen]",
        "NoLayers=1",
        f"NoJpegColumns={cols}",
        f"NoJpegRows={rows}",
        "MapFile=slide_map.jpg",
        "MacroImage=slide_macro.jpg",
        "SourceLens=20",
        "PhysicalWidth=460800",
        "PhysicalHeight=345600",
    ]
    for row in range(rows):
        for col in range(cols):
            name = f"slide({col},{row}).jpg"
            cjpeg(whole.crop((col * tile_w, row * tile_h, (col + 1) * tile_w, (row + 1) * tile_h)), os.path.join(folder, name), True)
            lines.append(f"ImageFile({col},{row})={name}")
    cjpeg(whole.resize((whole.width // 4, whole.height // 4), Image.BOX), os.path.join(folder, "slide_map.jpg"), True)
    picture(300, 100, 7).save(os.path.join(folder, "slide_macro.jpg"), quality=90)
    with open(os.path.join(folder, "slide.vms"), "w") as key_file:
        key_file.write("\n".join(lines) + "\n")


def write_planes_tiff(path, whole, alpha=None):
    levels = [numpy.asarray(whole if alpha is None else Image.merge("RGBA", (*whole.split(), alpha)))]
    while levels[-1].shape[1] > 256:
        image = Image.fromarray(levels[-1])
        levels.append(numpy.asarray(image.resize(((image.width + 1) // 2, (image.height + 1) // 2), Image.BOX)))
    with tifffile.TiffWriter(path) as tiff:
        for index, level in enumerate(levels):
            tiff.write(
                numpy.moveaxis(level, 2, 0), tile=(256, 256), compression="zlib", photometric="rgb", planarconfig="separate",
                subfiletype=1 if index else 0, extrasamples=None if alpha is None else ("unassalpha",))


def write_labelled_svs(path, whole):
    description = "Aperio Image Library v11.2.1\r\n{}x{} (256x256) -|AppMag = 20|MPP = 0.2500".format(whole.width, whole.height)
    with tifffile.TiffWriter(path) as tiff:
        tiff.write(numpy.asarray(whole), tile=(256, 256), compression="zlib", photometric="rgb", description=description, metadata=None)
        tiff.write(numpy.asarray(whole.resize((whole.width // 8, whole.height // 8))), photometric="rgb", description=description, metadata=None)
        label = picture(240, 120, 11)
        ImageDraw.Draw(label).rectangle([20, 40, 220, 80], fill=(255, 255, 255))
        tiff.write(numpy.asarray(label), photometric="rgb", description="Aperio Image Library v11.2.1\nlabel 240x120", metadata=None)
        tiff.write(numpy.asarray(picture(400, 150, 13)), photometric="rgb", description="Aperio Image Library v11.2.1\nmacro 400x150", metadata=None)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    whole = picture(1024, 768, 3)
    write_vms(os.path.join(out, "vms"), whole)
    shutil.copytree(os.path.join(out, "vms"), os.path.join(out, "vms-broken"), dirs_exist_ok=True)
    os.remove(os.path.join(out, "vms-broken", "slide(1,1).jpg"))
    # Whole tiles only: OpenSlide 3.4.1 reads partial edge tiles of separate-plane TIFFs wrongly (libtiff's RGBA
    # interface warns "Raster width of 256 shall not be larger than image width").
    write_planes_tiff(os.path.join(out, "planes.tiff"), picture(1024, 1024, 5))
    ramp = numpy.tile(numpy.arange(512, dtype=numpy.uint16) // 2, (512, 1)).astype(numpy.uint8)
    ramp[200:260, :] = 0
    write_planes_tiff(os.path.join(out, "alpha.tiff"), picture(512, 512, 15), Image.fromarray(ramp, "L"))
    write_labelled_svs(os.path.join(out, "labelled.svs"), picture(700, 500, 9))


if __name__ == "__main__":
    main()
