#!/usr/bin/env bash
# TIFF input and WebP output: `tiler slice` against libvips `dzsave`, alternately, in one run.
#
# Usage: bench/tiff-webp-vs-vips.sh [RUNS]     (default 3 runs of each tool per case; medians are reported)
# Env:   BENCH_DIR (default .bench-data); TIFF_SIZE (32768): the side of the two TIFFs; WEBP_SIZE (8192): the side of
#        the WebP-against-JPEG comparison (its PSNR check holds the source in memory once, in Python).
#
# Part 1, goal: tiler at most half of dzsave's wall time and at most its peak memory, on
#   - a TIFF_SIZE² tiled (256²) JPEG-compressed TIFF (Q90), and
#   - a TIFF_SIZE² striped LZW-compressed BigTIFF,
# both made once with `vips tiffsave` from `tiler sample`'s deterministic photo-like picture. Both tools write the
# same JPEG Q85 4:2:0 tiles, 256 px, overlap 0.
# Part 2: the same WEBP_SIZE² source sliced by tiler to JPEG and to WebP tiles at the same --quality, alternately:
# total bytes, wall and CPU time, and PSNR of the full-resolution level against the source (bench/pyramid-psnr.py).
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
TIFF_SIZE=${TIFF_SIZE:-32768}
WEBP_SIZE=${WEBP_SIZE:-8192}

scripts/setup libvips-tools time python3-numpy python3-pil
swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR"
SAMPLE="$BENCH_DIR/sample-$TIFF_SIZE.jpg"
TILED="$BENCH_DIR/tiled-jpeg-$TIFF_SIZE.tif"
STRIPED="$BENCH_DIR/striped-lzw-$TIFF_SIZE.btf"
SMALL="$BENCH_DIR/sample-$WEBP_SIZE.png"
[ -s "$SAMPLE" ] || "$TILER" sample "$SAMPLE" --size "${TIFF_SIZE}x${TIFF_SIZE}" --quality 90 --subsampling 444
[ -s "$TILED" ] || vips tiffsave "$SAMPLE" "$TILED" --tile --tile-width 256 --tile-height 256 --compression jpeg --Q 90
[ -s "$STRIPED" ] || vips tiffsave "$SAMPLE" "$STRIPED" --compression lzw --bigtiff
[ -s "$SMALL" ] || "$TILER" sample "$SMALL" --size "${WEBP_SIZE}x${WEBP_SIZE}"

source bench/lib.sh


# summary NAME LABEL: one table row from NAME.times and the pyramid in out-NAME; sets NAME_wall/_cpu/_rss/_bytes.
summary() {
    local name=$1 label=$2 f="$BENCH_DIR/$1.times" wall cpu rss tiles bytes
    wall=$(cut -d' ' -f1 "$f" | median)
    cpu=$(cut -d' ' -f2 "$f" | median)
    rss=$(cut -d' ' -f3 "$f" | median)
    tiles=$(find "$BENCH_DIR/out-$name/img_files" -mindepth 2 -type f ! -name '*.xml' | wc -l)
    bytes=$(find "$BENCH_DIR/out-$name/img_files" -mindepth 2 -type f ! -name '*.xml' -printf '%s\n' | awk '{ s += $1 } END { print s }')
    printf '| %-24s | %7.2f | %7.2f | %8.0f | %6d | %8.1f |\n' "$label" "$wall" "$cpu" "$((rss / 1024))" "$tiles" "$(echo "$bytes / 1048576" | bc -l)"
    eval "${name//-/_}_wall=$wall ${name//-/_}_cpu=$cpu ${name//-/_}_rss=$rss ${name//-/_}_bytes=$bytes"
}

tiff_case() {
    local label=$1 input=$2
    rm -f "$BENCH_DIR"/{vips,tiler}-"$label".times
    cat "$input" >/dev/null # warm the page cache for both
    for run in $(seq "$RUNS"); do
        if [ $((run % 2)) = 1 ]; then order="vips tiler"; else order="tiler vips"; fi
        for tool in $order; do
            if [ "$tool" = vips ]; then
                measure "vips-$label" "$BENCH_DIR/out-vips-$label" vips dzsave "$input" "$BENCH_DIR/out-vips-$label/img" \
                    --tile-size 256 --overlap 0 --suffix ".jpg[Q=85]"
            else
                measure "tiler-$label" "$BENCH_DIR/out-tiler-$label" "$TILER" slice "$input" -o "$BENCH_DIR/out-tiler-$label" \
                    --name img --tile-size 256 --overlap 0 --format jpg --quality 85 --quiet
            fi
        done
    done
    # Decoding alone, no pyramid: what any tool that reads the file through libtiff pays before slicing. It writes no
    # files, so it needs no pause after emptying the output folder.
    rm -f "$BENCH_DIR/decode-$label.times"
    for _ in $(seq "$RUNS"); do SETTLE_SECONDS=0 measure "decode-$label" "$BENCH_DIR/out-decode" "$TILER" info --verify "$input"; done
    summary "vips-$label" "$label: vips dzsave"
    summary "tiler-$label" "$label: tiler slice"
    local v=${label//-/_}
    eval "tw=\$tiler_${v}_wall vw=\$vips_${v}_wall tc=\$tiler_${v}_cpu vc=\$vips_${v}_cpu tr=\$tiler_${v}_rss vr=\$vips_${v}_rss"
    # shellcheck disable=SC2154
    awk -v tw="$tw" -v vw="$vw" -v tc="$tc" -v vc="$vc" -v tr="$tr" -v vr="$vr" -v l="$label" 'BEGIN {
        printf "| %-24s | %6.2fx | %6.2fx | %7.2fx |        |          |  goal wall <= 0.50x: %s, peak <= 1.00x: %s\n",
            l ": tiler/vips", tw / vw, tc / vc, tr / vr, (tw / vw <= 0.5 ? "met" : "NOT met"), (tr / vr <= 1 ? "met" : "NOT met") }'
    local dw dc cores
    dw=$(cut -d' ' -f1 "$BENCH_DIR/decode-$label.times" | median)
    dc=$(cut -d' ' -f2 "$BENCH_DIR/decode-$label.times" | median)
    cores=$(nproc)
    # shellcheck disable=SC2154
    awk -v dw="$dw" -v dc="$dc" -v vw="$vw" -v tc="$tc" -v n="$cores" -v l="$label" 'BEGIN {
        printf "  %s: decoding alone (tiler info --verify) %.2f s wall, %.2f s CPU: on %d cores at least %.2f s = %.2fx dzsave'"'"'s wall;\n", l, dw, dc, n, dc / n, dc / n / vw
        printf "  %s: tiler'"'"'s whole CPU on %d cores at least %.2f s = %.2fx dzsave'"'"'s wall (decoding %.0f%% of it)\n", l, n, tc / n, tc / n / vw, 100 * dc / tc }'
}

webp_case() {
    local quality=$1
    rm -f "$BENCH_DIR"/{jpg,webp}-q"$quality".times
    for run in $(seq "$RUNS"); do
        if [ $((run % 2)) = 1 ]; then order="jpg webp"; else order="webp jpg"; fi
        for format in $order; do
            measure "$format-q$quality" "$BENCH_DIR/out-$format-q$quality" "$TILER" slice "$SMALL" -o "$BENCH_DIR/out-$format-q$quality" \
                --name img --tile-size 256 --format "$format" --quality "$quality" --quiet
        done
    done
    for format in jpg webp; do
        summary "$format-q$quality" "$format Q$quality"
        echo "  $format Q$quality: PSNR of the full-resolution level against the source: $(/usr/bin/python3 bench/pyramid-psnr.py "$BENCH_DIR/out-$format-q$quality/img.dzi" "$SMALL") dB"
    done
    local jb jw
    eval "jb=\$jpg_q${quality}_bytes wb=\$webp_q${quality}_bytes jw=\$jpg_q${quality}_cpu ww=\$webp_q${quality}_cpu"
    # shellcheck disable=SC2154
    awk -v jb="$jb" -v wb="$wb" -v jw="$jw" -v ww="$ww" -v q="$quality" 'BEGIN {
        printf "  Q%s: WebP bytes %.2fx JPEG bytes, WebP CPU %.2fx JPEG CPU\n", q, wb / jb, ww / jw }'
}

echo "runs per case: $RUNS (medians, order alternating); $(nproc) cores; $(vips --version); tiler release build"
echo
echo "| case                     | wall s  | cpu s   | peak MiB | tiles  | MiB out  |"
echo "|--------------------------|---------|---------|----------|--------|----------|"
tiff_case tiled-jpeg "$TILED"
tiff_case striped-lzw "$STRIPED"
echo
echo "WebP against JPEG tiles of the same ${WEBP_SIZE}² pyramid (tiler slice, same --quality):"
echo "| case                     | wall s  | cpu s   | peak MiB | tiles  | MiB out  |"
echo "|--------------------------|---------|---------|----------|--------|----------|"
webp_case 85
webp_case 75
