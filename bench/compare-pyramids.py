#!/usr/bin/env python3
"""Compares two Deep Zoom pyramids: same geometry, and the PSNR between their full-resolution levels.

Usage: compare-pyramids.py A B    (A and B are pyramid paths without .dzi: A.dzi and A_files/ must exist)
Decodes every tile of the top level of both (or a seeded sample of SAMPLE tiles, env, default 400) and prints
one line: levels, tiles per pyramid, and PSNR in dB over the compared pixels.
"""
import os
import random
import re
import sys

import numpy as np
from PIL import Image


def describe(path):
    text = open(path + ".dzi").read()
    get = lambda key: re.search(key + r'\s*=\s*"([^"]+)"', text).group(1)
    return int(get("Width")), int(get("Height")), int(get("TileSize")), int(get("Overlap")), get("Format")


def main():
    a, b = sys.argv[1], sys.argv[2]
    da, db = describe(a), describe(b)
    if da[:4] != db[:4]:
        print(f"geometry differs: {da} vs {db}")
        sys.exit(1)
    width, height, tile, _, _ = da
    top = max(width, height).bit_length() - (1 if (max(width, height) & (max(width, height) - 1)) == 0 else 0)
    levels_a = sorted(int(n) for n in os.listdir(a + "_files"))
    levels_b = sorted(int(n) for n in os.listdir(b + "_files"))
    count = lambda p: sum(len(files) for _, _, files in os.walk(p + "_files"))
    cols, rows = -(-width // tile), -(-height // tile)
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    sample = int(os.environ.get("SAMPLE", "400"))
    if sample and len(cells) > sample:
        cells = random.Random(1).sample(cells, sample)
    squared, pixels = 0.0, 0
    for c, r in cells:
        ta = np.asarray(Image.open(f"{a}_files/{top}/{c}_{r}.{da[4]}").convert("RGB"), dtype=np.float64)
        tb = np.asarray(Image.open(f"{b}_files/{top}/{c}_{r}.{db[4]}").convert("RGB"), dtype=np.float64)
        if ta.shape != tb.shape:
            print(f"tile {top}/{c}_{r} differs in size: {ta.shape} vs {tb.shape}")
            sys.exit(1)
        squared += float(((ta - tb) ** 2).sum())
        pixels += ta.size
    mse = squared / max(pixels, 1)
    psnr = float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)
    print(f"levels {len(levels_a)} / {len(levels_b)}, tiles {count(a)} / {count(b)}, "
          f"PSNR of level {top} over {len(cells)} tiles: {psnr:.2f} dB")


if __name__ == "__main__":
    main()
