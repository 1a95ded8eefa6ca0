#!/usr/bin/env python3
"""Compares two Deep Zoom pyramids: same geometry, and the PSNR between their full-resolution levels.

Usage: compare-pyramids.py A B    (A and B are pyramid paths without .dzi: A.dzi and A_files/ must exist)
Decodes the tiles of the full-resolution level and of the level three below it in both (a seeded sample of SAMPLE
tiles, env, default 400; 0 for all) and prints one line: levels, tiles per pyramid, and PSNR in dB per level.
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
    # libvips also writes vips-properties.xml into NAME_files; only the numbered folders are levels.
    levels = lambda p: sorted(int(n) for n in os.listdir(p + "_files") if n.isdigit())
    levels_a, levels_b = levels(a), levels(b)
    count = lambda p: sum(len(os.listdir(f"{p}_files/{level}")) for level in levels(p))
    results = [psnr(a, b, da[4], db[4], level, width, height, tile, top) for level in (top, top - 3) if level >= 0]
    print(f"levels {len(levels_a)} / {len(levels_b)}, tiles {count(a)} / {count(b)}, "
          + ", ".join(f"PSNR of level {level} over {n} tiles: {value:.2f} dB" for level, n, value in results))


def psnr(a, b, ext_a, ext_b, level, width, height, tile, top):
    """PSNR in dB between the two pyramids' tiles of one level (all, or a seeded sample of SAMPLE)."""
    scale = 2 ** (top - level)
    level_width, level_height = -(-width // scale), -(-height // scale)
    cols, rows = -(-level_width // tile), -(-level_height // tile)
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    sample = int(os.environ.get("SAMPLE", "400"))
    if sample and len(cells) > sample:
        cells = random.Random(1).sample(cells, sample)
    squared, pixels = 0.0, 0
    for c, r in cells:
        ta = np.asarray(Image.open(f"{a}_files/{level}/{c}_{r}.{ext_a}").convert("RGB"), dtype=np.float64)
        tb = np.asarray(Image.open(f"{b}_files/{level}/{c}_{r}.{ext_b}").convert("RGB"), dtype=np.float64)
        if ta.shape != tb.shape:
            print(f"tile {level}/{c}_{r} differs in size: {ta.shape} vs {tb.shape}")
            sys.exit(1)
        squared += float(((ta - tb) ** 2).sum())
        pixels += ta.size
    mse = squared / max(pixels, 1)
    return level, len(cells), float("inf") if mse == 0 else 10 * np.log10(255 ** 2 / mse)


if __name__ == "__main__":
    main()
