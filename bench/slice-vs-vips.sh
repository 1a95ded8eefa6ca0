#!/usr/bin/env bash
# Slicing benchmark: `tiler slice` against libvips `dzsave`, alternately, in one run, on the same inputs.
#
# Usage: bench/slice-vs-vips.sh [RUNS]       (default 3 runs of each tool per input; medians are reported)
# Env:   BENCH_DIR (default .bench-data) holds the generated inputs and outputs; JPEG_SIZE (32768), PNG_SIZE (16384).
#
# Inputs are deterministic photo-like pictures made by `tiler sample` (JPEG quality 90 4:4:4, PNG zlib level 6),
# generated once and reused. Both tools write the same tiles from both inputs: 256 px, overlap 0, JPEG quality 85
# with 4:2:0 chroma (vips' default below quality 90, and tiler's). Outputs go to BENCH_DIR on the same disk.
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
JPEG_SIZE=${JPEG_SIZE:-32768}
PNG_SIZE=${PNG_SIZE:-16384}

scripts/setup libvips-tools time python3-numpy python3-pil
swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR"
JPEG="$BENCH_DIR/sample-$JPEG_SIZE.jpg"
PNG="$BENCH_DIR/sample-$PNG_SIZE.png"
[ -s "$JPEG" ] || "$TILER" sample "$JPEG" --size "${JPEG_SIZE}x${JPEG_SIZE}" --quality 90 --subsampling 444
[ -s "$PNG" ] || "$TILER" sample "$PNG" --size "${PNG_SIZE}x${PNG_SIZE}"

source bench/lib.sh


run_input() {
    local label=$1 input=$2 suffix=$3 tilerformat=$4
    rm -f "$BENCH_DIR"/{vips,tiler}-"$label".times
    cat "$input" >/dev/null # warm the page cache for both
    for run in $(seq "$RUNS"); do
        measure "vips-$label" "$BENCH_DIR/out-vips-$label" vips dzsave "$input" "$BENCH_DIR/out-vips-$label/img" \
            --tile-size 256 --overlap 0 --suffix "$suffix"
        measure "tiler-$label" "$BENCH_DIR/out-tiler-$label" "$TILER" slice "$input" -o "$BENCH_DIR/out-tiler-$label" \
            --name img --tile-size 256 --overlap 0 --format "$tilerformat" --quality 85 --quiet
    done
    local row=""
    for tool in vips tiler; do
        local f="$BENCH_DIR/$tool-$label.times"
        local wall cpu rss tiles bytes
        wall=$(cut -d' ' -f1 "$f" | median)
        cpu=$(cut -d' ' -f2 "$f" | median)
        rss=$(cut -d' ' -f3 "$f" | median)
        tiles=$(find "$BENCH_DIR/out-$tool-$label/img_files" -mindepth 2 -type f | wc -l)
        bytes=$(du -sb "$BENCH_DIR/out-$tool-$label/img_files" | cut -f1)
        printf '| %-5s | %-6s | %7.2f | %7.2f | %8.0f | %6d | %6.0f |\n' "$label" "$tool" "$wall" "$cpu" "$((rss / 1024))" "$tiles" "$((bytes / 1048576))"
        eval "${tool}_wall=$wall ${tool}_cpu=$cpu ${tool}_rss=$rss"
    done
    # shellcheck disable=SC2154
    awk -v tw="$tiler_wall" -v vw="$vips_wall" -v tc="$tiler_cpu" -v vc="$vips_cpu" -v tr="$tiler_rss" -v vr="$vips_rss" -v l="$label" \
        'BEGIN { printf "| %-5s | ratio  | %6.2fx | %6.2fx | %7.2fx |        |        |\n", l, tw / vw, tc / vc, tr / vr }'
    /usr/bin/python3 bench/compare-pyramids.py "$BENCH_DIR/out-vips-$label/img" "$BENCH_DIR/out-tiler-$label/img" | sed "s/^/  $label: /"
}

echo "runs per tool: $RUNS (medians); $(nproc) cores; $(vips --version); tiler release build"
echo
echo "| input | tool   | wall s  | cpu s   | peak MiB | tiles  | MiB out |"
echo "|-------|--------|---------|---------|----------|--------|---------|"
run_input jpeg "$JPEG" ".jpg[Q=85]" jpg
run_input png "$PNG" ".jpg[Q=85]" jpg
