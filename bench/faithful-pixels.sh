#!/usr/bin/env bash
# What orientation and colour management cost: `tiler slice` of the same stored pixels with and without an EXIF
# orientation, and with and without an Adobe RGB (1998) profile, alternating in one run (release build).
#
# Usage: bench/faithful-pixels.sh [RUNS]     (default 3 runs of each case; medians are reported)
# Env:   BENCH_DIR (default .bench-data), SIZE (default 16384: a SIZE² PNG and a SIZE² JPEG made by `tiler sample`).
#
# Goals (issue 15): converting Adobe RGB costs at most 15% more wall time than the same pixels untagged. Orientation 6
# (90°) and 3 (180°) are reported, not bounded: they copy the stored pixels through a temporary file first.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-16384}

scripts/setup time colord-data
swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
PROFILE=/usr/share/color/icc/colord/AdobeRGB1998.icc
mkdir -p "$BENCH_DIR"
for ext in png jpg; do
    base="$BENCH_DIR/pixels-$SIZE.$ext"
    [ -s "$base" ] || "$TILER" sample "$base" --size "${SIZE}x${SIZE}" --quiet
    [ -s "$BENCH_DIR/adobe-$SIZE.$ext" ] || /usr/bin/python3 bench/tag-image.py "$base" "$BENCH_DIR/adobe-$SIZE.$ext" --icc "$PROFILE"
    for o in 3 6; do
        [ -s "$BENCH_DIR/orient$o-$SIZE.$ext" ] || /usr/bin/python3 bench/tag-image.py "$base" "$BENCH_DIR/orient$o-$SIZE.$ext" --orientation $o
    done
done

source bench/lib.sh

# slice_once CASE INPUT: one slice, wall seconds and peak KiB appended to $BENCH_DIR/CASE.times
slice_once() {
    local out="$BENCH_DIR/out-fp"
    rm -rf "$out"
    mkdir -p "$out"
    sync
    /usr/bin/time -f "%e %M" -o "$BENCH_DIR/.time" "$TILER" slice "$2" -o "$out" --name img --quiet || exit 1
    cat "$BENCH_DIR/.time" >>"$BENCH_DIR/$1.times"
}


# compare LABEL BASE-CASE OTHER-CASE...: medians and each case's ratio to the base
report() {
    local label=$1 base=$2
    shift 2
    local base_wall
    base_wall=$(cut -d' ' -f1 "$BENCH_DIR/$base.times" | median)
    for case in "$base" "$@"; do
        local wall rss
        wall=$(cut -d' ' -f1 "$BENCH_DIR/$case.times" | median)
        rss=$(cut -d' ' -f2 "$BENCH_DIR/$case.times" | median)
        awk -v l="$label" -v c="$case" -v w="$wall" -v b="$base_wall" -v r="$rss" \
            'BEGIN { printf "| %-4s | %-16s | %7.2f | %6.3fx | %8.0f |\n", l, c, w, w / b, r / 1024 }'
    done
}

echo "SIZE ${SIZE}², $RUNS runs per case alternating (medians), $(nproc) cores, release build"
echo
echo "| in   | case             | wall s  | ratio   | peak MiB |"
echo "|------|------------------|---------|---------|----------|"
for ext in png jpg; do
    rm -f "$BENCH_DIR"/{untagged,adobe-rgb,orient-6,orient-3}-$ext.times
    cat "$BENCH_DIR/pixels-$SIZE.$ext" "$BENCH_DIR/adobe-$SIZE.$ext" >/dev/null
    for run in $(seq "$RUNS"); do
        # Alternate, and swap who goes first each round.
        if ((run % 2)); then
            slice_once "untagged-$ext" "$BENCH_DIR/pixels-$SIZE.$ext"
            slice_once "adobe-rgb-$ext" "$BENCH_DIR/adobe-$SIZE.$ext"
            slice_once "orient-6-$ext" "$BENCH_DIR/orient6-$SIZE.$ext"
            slice_once "orient-3-$ext" "$BENCH_DIR/orient3-$SIZE.$ext"
        else
            slice_once "orient-3-$ext" "$BENCH_DIR/orient3-$SIZE.$ext"
            slice_once "orient-6-$ext" "$BENCH_DIR/orient6-$SIZE.$ext"
            slice_once "adobe-rgb-$ext" "$BENCH_DIR/adobe-$SIZE.$ext"
            slice_once "untagged-$ext" "$BENCH_DIR/pixels-$SIZE.$ext"
        fi
    done
    report "$ext" "untagged-$ext" "adobe-rgb-$ext" "orient-6-$ext" "orient-3-$ext"
done
rm -rf "$BENCH_DIR/out-fp"
