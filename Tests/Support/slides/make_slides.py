#!/usr/bin/python3
"""Writes the whole-slide images the slide tests serve into OUTDIR, in formats whose layout OpenSlide documents:

- vms/slide.vms: a Hamamatsu VMS slide (a key file, 2 x 2 JPEGs with restart markers made by cjpeg (4:4:4), a map JPEG and a
  macro image), 1024 x 768 pixels;
- vms-broken/slide.vms: the same with one of its JPEGs missing;
- planes.tiff: a generic tiled pyramidal TIFF (tifffile, Deflate) with separate colour planes: OpenSlide reads it,
  Tiler's own TIFF reader does not, 1024 x 1024 pixels;
- alpha.tiff: the same kind of TIFF with an alpha channel (a gradient, a transparent band), 512 x 512 pixels, for the
  compositing of OpenSlide's premultiplied pixels over the background;
- mirax/slide.mrxs: a 3DHistech MIRAX slide laid out as OpenSlide's MIRAX page and its reader describe (Slidedat.ini,
  Index.dat, one Data0000.dat of JPEG images), 4 x 4 camera images of 256 pixels with only six of them scanned (a sparse
  slide: the rest is transparent, shown in IMAGE_FILL_COLOR_BGR, a dark blue), three levels, 1024 x 1024 pixels;
- pyramid.svs: an Aperio SVS of two resolutions (tifffile, Deflate) with a thumbnail, a label and a macro image: the TIFF
  source serves its tiles, OpenSlide its label and macro;
- icc.svs: an Aperio SVS of one resolution, one colour (220, 40, 40), tagged with colord's SwappedRedAndGreen.icc
  (OpenSlide reads it, and ignores the profile);
- labelled.svs: an Aperio SVS of one resolution (tifffile, Deflate) with a thumbnail, a label and a macro image, laid
  out as OpenSlide's Aperio page describes (the label and macro named on their description's second line).

Usage: make_slides.py OUTDIR (run with Debian's /usr/bin/python3: Pillow, tifffile).
"""
import io
import os
import shutil
import struct
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


def write_planes_tiff(path, whole, alpha=None, resolution=None):
    levels = [numpy.asarray(whole if alpha is None else Image.merge("RGBA", (*whole.split(), alpha)))]
    while levels[-1].shape[1] > 256:
        image = Image.fromarray(levels[-1])
        levels.append(numpy.asarray(image.resize(((image.width + 1) // 2, (image.height + 1) // 2), Image.BOX)))
    with tifffile.TiffWriter(path) as tiff:
        for index, level in enumerate(levels):
            tiff.write(
                numpy.moveaxis(level, 2, 0), tile=(256, 256), compression="zlib", photometric="rgb", planarconfig="separate",
                subfiletype=1 if index else 0, extrasamples=None if alpha is None else ("unassalpha",),
                **({} if resolution is None or index else {"resolution": (resolution, resolution), "resolutionunit": "CENTIMETER"}))


MIRAX_ID = "0123456789abcdef0123456789abcdef"
# The scanned camera images (column, row): bounds 256, 256, 768 x 512.
MIRAX_SCANNED = [(column, row) for row in (1, 2) for column in (1, 2, 3)]
MIRAX_FILL = (0x30, 0x60, 0x90)


def write_mirax(folder):
    """A MIRAX slide without a position buffer or overlaps (OpenSlide then places image (x, y) at (256 x, 256 y)); level
    n + 1's images are level n's shrunk by 2 and concatenated 2 x 2, each one present where any scanned image lies."""
    data_folder = os.path.join(folder, "slide")
    os.makedirs(data_folder, exist_ok=True)
    side, across, levels = 256, 4, 3
    canvas = Image.new("RGB", (side * across, side * across), MIRAX_FILL)
    scan = picture(side * across, side * across, 21)
    for column, row in MIRAX_SCANNED:
        box = (column * side, row * side, (column + 1) * side, (row + 1) * side)
        canvas.paste(scan.crop(box), box)
    data = bytearray(b"01.02" + MIRAX_ID.encode() + b"000" + bytes(256))
    records = []  # per level: (image index, offset, length, file number)
    for level in range(levels):
        concat = 1 << level
        shrunk = canvas.resize((canvas.width // concat, canvas.height // concat), Image.BOX)
        items = []
        for row in range(0, across, concat):
            for column in range(0, across, concat):
                if not any(column <= x < column + concat and row <= y < row + concat for x, y in MIRAX_SCANNED):
                    continue
                left, top = column // concat * side, row // concat * side
                buffer = io.BytesIO()
                shrunk.crop((left, top, left + side, top + side)).save(buffer, "JPEG", quality=95, subsampling=0)
                items.append((row * across + column, len(data), len(buffer.getvalue()), 0))
                data += buffer.getvalue()
        records.append(items)
    with open(os.path.join(data_folder, "Data0000.dat"), "wb") as data_file:
        data_file.write(data)
    # Index.dat: version and slide id, the hierarchical and nonhierarchical roots (pointers to tables of one pointer per
    # VAL), each level's record (0, pointer to its first page), pages of (count, next, items): the first page empty.
    index = bytearray(b"01.02" + MIRAX_ID.encode())
    hier_root = len(index)
    index += bytes(8)
    table = len(index)
    index += bytes(4 * levels)
    struct.pack_into("<ii", index, hier_root, table, len(index))
    for level, items in enumerate(records):
        record = len(index)
        struct.pack_into("<i", index, table + 4 * level, record)
        index += struct.pack("<ii", 0, record + 8)
        index += struct.pack("<ii", 0, record + 16)
        index += struct.pack("<ii", len(items), 0)
        for item in items:
            index += struct.pack("<iiii", *item)
    with open(os.path.join(data_folder, "Index.dat"), "wb") as index_file:
        index_file.write(index)
    fill_bgr = MIRAX_FILL[2] << 16 | MIRAX_FILL[1] << 8 | MIRAX_FILL[0]
    lines = ["[GENERAL]", "SLIDE_VERSION=01.03", f"SLIDE_ID={MIRAX_ID}", f"IMAGENUMBER_X={across}", f"IMAGENUMBER_Y={across}",
             "OBJECTIVE_MAGNIFICATION=20", "CameraImageDivisionsPerSide=1", "", "[HIERARCHICAL]", "HIER_COUNT=1", "NONHIER_COUNT=0",
             "INDEXFILE=Index.dat", "HIER_0_NAME=Slide zoom level", f"HIER_0_COUNT={levels}"]
    for level in range(levels):
        lines += [f"HIER_0_VAL_{level}=ZoomLevel_{level}", f"HIER_0_VAL_{level}_SECTION=LAYER_0_LEVEL_{level}_SECTION"]
    lines += ["", "[DATAFILE]", "FILE_COUNT=1", "FILE_0=Data0000.dat"]
    for level in range(levels):
        lines += ["", f"[LAYER_0_LEVEL_{level}_SECTION]", f"IMAGE_CONCAT_FACTOR={0 if level == 0 else 1}", "OVERLAP_X=0", "OVERLAP_Y=0",
                  f"MICROMETER_PER_PIXEL_X={0.25 * (1 << level)}", f"MICROMETER_PER_PIXEL_Y={0.25 * (1 << level)}",
                  f"IMAGE_FILL_COLOR_BGR={fill_bgr}", f"DIGITIZER_WIDTH={side}", f"DIGITIZER_HEIGHT={side}", "IMAGE_FORMAT=JPEG"]
    with open(os.path.join(data_folder, "Slidedat.ini"), "w") as slidedat:
        slidedat.write("\n".join(lines) + "\n")
    with open(os.path.join(folder, "slide.mrxs"), "w") as key_file:
        key_file.write(f"[GENERAL]\nSLIDE_ID={MIRAX_ID}\n")



def write_labelled_svs(path, whole):
    description = "Aperio Image Library v11.2.1\r\n{}x{} (256x256) -|AppMag = 20|MPP = 0.2500".format(whole.width, whole.height)
    with tifffile.TiffWriter(path) as tiff:
        tiff.write(numpy.asarray(whole), tile=(256, 256), compression="zlib", photometric="rgb", description=description, metadata=None)
        tiff.write(numpy.asarray(whole.resize((whole.width // 8, whole.height // 8))), photometric="rgb", description=description, metadata=None)
        label = picture(240, 120, 11)
        ImageDraw.Draw(label).rectangle([20, 40, 220, 80], fill=(255, 255, 255))
        tiff.write(numpy.asarray(label), photometric="rgb", description="Aperio Image Library v11.2.1\nlabel 240x120", metadata=None)
        tiff.write(numpy.asarray(picture(400, 150, 13)), photometric="rgb", description="Aperio Image Library v11.2.1\nmacro 400x150", metadata=None)


def write_aperio_pyramid(path, whole):
    """An Aperio SVS as scanners write them: the full resolution (tiled), the thumbnail (stripped), a reduced resolution
    (tiled), then the label and the macro (stripped, named on their description's second line)."""
    def description(image):
        return "Aperio Image Library v12.0.5\r\n{}x{} [0,0 {}x{}] (256x256) JPEG/RGB Q=70|AppMag = 40|MPP = 0.2500".format(
            whole.width, whole.height, image.width, image.height)
    reduced = whole.resize((whole.width // 4, whole.height // 4), Image.BOX)
    thumbnail = whole.resize((whole.width // 16, whole.height // 16), Image.BOX)
    with tifffile.TiffWriter(path) as tiff:
        tiff.write(numpy.asarray(whole), tile=(256, 256), compression="zlib", photometric="rgb", description=description(whole), metadata=None)
        tiff.write(numpy.asarray(thumbnail), photometric="rgb", description=description(thumbnail), metadata=None)
        tiff.write(numpy.asarray(reduced), tile=(256, 256), compression="zlib", photometric="rgb", description=description(reduced), metadata=None)
        label = picture(240, 120, 17)
        ImageDraw.Draw(label).rectangle([20, 40, 220, 80], fill=(255, 255, 255))
        tiff.write(numpy.asarray(label), photometric="rgb", description="Aperio Image Library v12.0.5\nlabel 240x120", metadata=None, subfiletype=1)
        tiff.write(
            numpy.asarray(picture(400, 150, 19)), photometric="rgb", description="Aperio Image Library v12.0.5\nmacro 400x150", metadata=None,
            subfiletype=9)


def write_icc_svs(path):
    description = "Aperio Image Library v11.2.1\r\n512x384 (256x256) -|AppMag = 20|MPP = 0.5000"
    with open("/usr/share/color/icc/colord/SwappedRedAndGreen.icc", "rb") as f:
        profile = f.read()
    solid = numpy.zeros((384, 512, 3), numpy.uint8)
    solid[...] = (220, 40, 40)
    with tifffile.TiffWriter(path) as tiff:
        tiff.write(solid, tile=(256, 256), compression="zlib", photometric="rgb", description=description, metadata=None,
                   extratags=[(34675, 7, len(profile), profile, True)])


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    whole = picture(1024, 768, 3)
    write_vms(os.path.join(out, "vms"), whole)
    shutil.copytree(os.path.join(out, "vms"), os.path.join(out, "vms-broken"), dirs_exist_ok=True)
    os.remove(os.path.join(out, "vms-broken", "slide(1,1).jpg"))
    # Whole tiles only: OpenSlide 3.4.1 reads partial edge tiles of separate-plane TIFFs wrongly (libtiff's RGBA
    # interface warns "Raster width of 256 shall not be larger than image width").
    # 40,000 pixels per centimetre: 0.25 µm a pixel, which OpenSlide reports only as tiff.XResolution.
    write_planes_tiff(os.path.join(out, "planes.tiff"), picture(1024, 1024, 5), resolution=40000)
    ramp = numpy.tile(numpy.arange(512, dtype=numpy.uint16) // 2, (512, 1)).astype(numpy.uint8)
    ramp[200:260, :] = 0
    write_planes_tiff(os.path.join(out, "alpha.tiff"), picture(512, 512, 15), Image.fromarray(ramp, "L"))
    write_labelled_svs(os.path.join(out, "labelled.svs"), picture(700, 500, 9))
    write_aperio_pyramid(os.path.join(out, "pyramid.svs"), picture(2048, 1536, 21))
    write_icc_svs(os.path.join(out, "icc.svs"))
    write_mirax(os.path.join(out, "mirax"))


if __name__ == "__main__":
    main()
