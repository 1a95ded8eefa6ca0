#!/usr/bin/python3
"""Writes what OpenSlide itself (python3-openslide over libopenslide) makes of a slide, for the slide tests to compare
Tiler's tiles with: OUTDIR/L/C_R.png for every Deep Zoom tile of DeepZoomGenerator (256-pixel tiles, overlap 0, the
whole slide, not limited to its bounds), and OUTDIR/properties.json.

Usage: slide_reference.py SLIDE OUTDIR
"""
import json
import os
import sys

import openslide
from openslide.deepzoom import DeepZoomGenerator


def main():
    path, out = sys.argv[1], sys.argv[2]
    slide = openslide.OpenSlide(path)
    generator = DeepZoomGenerator(slide, tile_size=256, overlap=0, limit_bounds=False)
    for level in range(generator.level_count):
        os.makedirs(os.path.join(out, str(level)), exist_ok=True)
        columns, rows = generator.level_tiles[level]
        for column in range(columns):
            for row in range(rows):
                generator.get_tile(level, (column, row)).save(os.path.join(out, str(level), f"{column}_{row}.png"))
    with open(os.path.join(out, "properties.json"), "w") as properties:
        json.dump(dict(slide.properties), properties)


if __name__ == "__main__":
    main()
