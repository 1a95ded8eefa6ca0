#!/usr/bin/env python3
"""What bench/titiler.sh computes in Python (Debian's /usr/bin/python3: the standard library, and Pillow for `compare`):

    titiler-prepare.py georef W H ZOOM
        where a W × H picture goes in EPSG:3857 so that its pixels are exactly the tiles of WebMercatorQuad zoom ZOOM:
        the pixel size is that zoom's resolution and the top-left corner a tile corner (tile X0, Y0: east of 0° and
        north of the equator). Prints "ULX ULY LRX LRY X0 Y0" (the first four for gdal_translate -a_ullr).
    titiler-prepare.py lists OUT ROUNDS COLS ROWS SEED ZOOM X0 Y0 TITILER_QUERY TILER_PREFIX LEVEL EXT
        the tile URLs of both servers, as wrk's bench/wrk/url-list.lua reads them: the COLS × ROWS whole tiles of the
        picture, in one seeded random order, cut into ROUNDS disjoint parts, part i written twice — OUT/titiler.i
        (/cog/tiles/WebMercatorQuad/ZOOM/X0+c/Y0+r.jpg?TITILER_QUERY) and OUT/tiler.i (TILER_PREFIX/LEVEL/c_r.EXT) —
        so that in each round both servers are asked for the same pixels and no tile is asked for in two rounds; and
        OUT/titiler.warm, OUT/tiler.warm: the tiles of the zoom (level) below, to open the file and the connections
        before measuring without reading a measured tile. Prints how many tiles each round's part holds.
    titiler-prepare.py compare A.jpg B.jpg
        the mean absolute difference of two tiles' pixels (0–255), after checking both are 256 × 256 JPEGs: that the
        two servers' tiles of one position show the same part of the picture (two JPEG generations: a few units).
"""
import math
import os
import random
import sys

EARTH_RADIUS = 6378137.0
HALF_WORLD = math.pi * EARTH_RADIUS  # WebMercatorQuad's extent is ±HALF_WORLD on both axes
TILE = 256


def georef(width, height, zoom):
    tiles = 2 ** zoom
    cols, rows = math.ceil(width / TILE), math.ceil(height / TILE)
    if cols > tiles // 2 or rows > tiles // 2:
        sys.exit(f"titiler-prepare: {width} x {height} does not fit a quarter of zoom {zoom}'s world: raise ZOOM")
    resolution = 2 * HALF_WORLD / (TILE * tiles)
    x0, y0 = tiles // 2, tiles // 2 - 2 * math.ceil(rows / 2)  # even, as the warm-up's coarser tiles want
    ulx = -HALF_WORLD + x0 * TILE * resolution
    uly = HALF_WORLD - y0 * TILE * resolution
    print(f"{ulx:.10f} {uly:.10f} {ulx + width * resolution:.10f} {uly - height * resolution:.10f} {x0} {y0}")


def lists(out, rounds, cols, rows, seed, zoom, x0, y0, query, prefix, level, ext):
    positions = [(c, r) for r in range(rows) for c in range(cols)]
    random.Random(seed).shuffle(positions)
    part = len(positions) // rounds
    if part == 0:
        sys.exit(f"titiler-prepare: {len(positions)} tiles cannot be cut into {rounds} rounds")

    def write(name, tiles, z, tx, ty, lv):
        with open(os.path.join(out, "titiler." + name), "w") as f:
            f.writelines(f"/cog/tiles/WebMercatorQuad/{z}/{tx + c}/{ty + r}.jpg?{query}\n" for c, r in tiles)
        with open(os.path.join(out, "tiler." + name), "w") as f:
            f.writelines(f"{prefix}/{lv}/{c}_{r}.{ext}\n" for c, r in tiles)

    for i in range(rounds):
        write(str(i + 1), positions[i * part:(i + 1) * part], zoom, x0, y0, level)
    # The zoom below: X0 and Y0 are even (the picture's corner is at a tile corner of every coarser zoom too).
    warm = [(c, r) for r in range(rows // 2) for c in range(cols // 2)]
    write("warm", warm, zoom - 1, x0 // 2, y0 // 2, level - 1)
    print(part)


def compare(a, b):
    from PIL import Image, ImageChops, ImageStat

    images = []
    for path in (a, b):
        image = Image.open(path)
        if image.format != "JPEG" or image.size != (TILE, TILE):
            sys.exit(f"titiler-prepare: {path} is a {image.format} of {image.size[0]} x {image.size[1]}, not a 256 x 256 JPEG")
        images.append(image.convert("RGB"))
    difference = ImageStat.Stat(ImageChops.difference(*images)).mean
    print(f"{sum(difference) / len(difference):.3f}")


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "georef":
        georef(*map(int, args))
    elif command == "lists":
        out, rounds, cols, rows, seed, zoom, x0, y0, query, prefix, level, ext = args
        lists(out, int(rounds), int(cols), int(rows), int(seed), int(zoom), int(x0), int(y0), query, prefix, int(level), ext)
    elif command == "compare":
        compare(*args)
    else:
        sys.exit(__doc__)
