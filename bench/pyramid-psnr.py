#!/usr/bin/env python3
"""PSNR (dB, RGB, 8-bit) of a pyramid's full-resolution level against its source image.

Usage: bench/pyramid-psnr.py PYRAMID.dzi SOURCE-IMAGE

Reads every tile of the top level (any format Pillow opens: jpg, png, webp), places it over the source and
accumulates the squared error. Memory: the source image once (use sources Pillow can hold, e.g. 8192²).
"""
import math
import os
import re
import sys

import numpy as np
from PIL import Image

Image.MAX_IMAGE_PIXELS = None


def main():
    dzi, source_path = sys.argv[1], sys.argv[2]
    text = open(dzi).read()
    tile = int(re.search(r'TileSize="(\d+)"', text).group(1))
    fmt = re.search(r'Format="(\w+)"', text).group(1)
    width = int(re.search(r'Width="(\d+)"', text).group(1))
    height = int(re.search(r'Height="(\d+)"', text).group(1))
    level = math.ceil(math.log2(max(width, height)))
    folder = os.path.join(os.path.splitext(dzi)[0] + "_files", str(level))
    source = np.asarray(Image.open(source_path).convert("RGB"), dtype=np.int32)
    squared, count = 0, 0
    for row in range((height + tile - 1) // tile):
        for column in range((width + tile - 1) // tile):
            pixels = np.asarray(Image.open(os.path.join(folder, f"{column}_{row}.{fmt}")).convert("RGB"), dtype=np.int32)
            y, x = row * tile, column * tile
            reference = source[y : y + pixels.shape[0], x : x + pixels.shape[1]]
            squared += int(((pixels - reference) ** 2).sum())
            count += pixels.size
    mse = squared / count
    print("inf" if mse == 0 else f"{10 * math.log10(255 * 255 / mse):.2f}")


main()
