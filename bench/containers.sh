#!/usr/bin/env bash
# One file per pyramid: `tiler slice` to a folder, to an SZI and to a pyramidal TIFF, against `vips dzsave` (folder
# and .szi) and `vips tiffsave --tile --pyramid --compression jpeg`, in one run, on the same 32768² JPEG; then copying
# each result (`cp -r`, a stand-in for uploading it); then serving the folder, the SZI and the TIFF with `tiler serve`
# against nginx on the folder, alternately, with wrk on 127.0.0.1 (the cases of serve-vs-nginx.sh).
#
# Usage: bench/containers.sh [SECONDS] [ROUNDS]   (serving: default 8 s per measurement, 3 rounds, medians and the
#        median and spread of the rounds' ratios reported; slicing: SLICE_ROUNDS rounds, each tool once a round, the
#        two runs of every ratio with a goal back to back, who goes first alternating; medians and every round's ratios;
#        copying: once, the last round's outputs)
# Env:   BENCH_DIR (default .bench-data), SIZE (32768), CACHE_MB (64), CONNECTIONS (64), SETTLE_SECONDS (6, see lib.sh),
#        SLICE_ROUNDS (3), SERVE_ONLY (1: no slicing or copying, serve what the last run left in BENCH_DIR/containers).
#
# Every tool writes 256-px tiles, overlap 0, JPEG quality 85 4:2:0. The machine may be shared: quote the spread.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-3}
SLICE_ROUNDS=${SLICE_ROUNDS:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data}
SIZE=${SIZE:-32768}
CACHE_MB=${CACHE_MB:-64}
CONNECTIONS=${CONNECTIONS:-64}

scripts/setup libvips-tools time nginx-light wrk
swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR"
INPUT="$BENCH_DIR/sample-$SIZE.jpg"
[ -s "$INPUT" ] || "$TILER" sample "$INPUT" --size "${SIZE}x${SIZE}" --quality 90 --subsampling 444 --quiet
source bench/lib.sh
OUT="$BENCH_DIR/containers"
mkdir -p "$OUT"

ROOT="$OUT/serve-root"
if [ "${SERVE_ONLY:-0}" = 1 ]; then
    [ -s "$ROOT/folder.dzi" ] && [ -s "$ROOT/packed.szi" ] && [ -s "$ROOT/stored.tif" ] ||
        { echo "SERVE_ONLY: no earlier run's outputs in $ROOT" >&2; exit 1; }
else
# ---- slicing ---------------------------------------------------------------------------------------------------------
cat "$INPUT" >/dev/null # the page cache warm for every tool
rm -f "$BENCH_DIR"/containers-*.times
slice() {
    local name=$1
    shift
    measure "containers-$name" "$OUT/$name" "$@"
}
names=(tiler-folder vips-folder tiler-szi vips-szi tiler-tiff vips-tiff)
for round in $(seq "$SLICE_ROUNDS"); do
    # Every ratio with a goal is of two runs back to back: vips .szi, Tiler SZI, Tiler folder, Tiler TIFF, vips
    # tiffsave (then vips' folder, which has no goal here), the whole order reversed every other round, so no tool
    # always goes first of its pair. The machine's speed drifts by ±10 % over a minute; runs apart by one other tool's
    # run compare better than runs apart by three.
    if ((round % 2)); then order=(3 2 0 4 5 1); else order=(1 5 4 0 2 3); fi
    for index in "${order[@]}"; do
        case ${names[$index]} in
        tiler-folder) slice tiler-folder "$TILER" slice "$INPUT" -o "$OUT/tiler-folder" --name img --quality 85 --quiet ;;
        vips-folder) slice vips-folder vips dzsave "$INPUT" "$OUT/vips-folder/img" --tile-size 256 --overlap 0 --suffix ".jpg[Q=85]" ;;
        tiler-szi) slice tiler-szi "$TILER" slice "$INPUT" -o "$OUT/tiler-szi/img.szi" --quality 85 --quiet ;;
        vips-szi) slice vips-szi vips dzsave "$INPUT" "$OUT/vips-szi/img.szi" --tile-size 256 --overlap 0 --suffix ".jpg[Q=85]" ;;
        tiler-tiff) slice tiler-tiff "$TILER" slice "$INPUT" -o "$OUT/tiler-tiff/img.tif" --quality 85 --quiet ;;
        vips-tiff) slice vips-tiff vips tiffsave "$INPUT" "$OUT/vips-tiff/img.tif" --tile --tile-width 256 --tile-height 256 \
            --pyramid --compression jpeg --Q 85 --bigtiff ;;
        esac
    done
done

echo "slicing a ${SIZE}² JPEG, $SLICE_ROUNDS rounds (tiler and vips alternating per output; medians, peak RSS the largest); $(nproc) cores;"
echo "$(vips --version); tiler release build"
echo
echo "| output | tool | wall s (median) | wall s by round | cpu s (median) | peak MiB | files | MiB on disk | cp -r s |"
echo "|---|---|---|---|---|---|---|---|---|"
declare -A wall rss walls
for name in "${names[@]}"; do
    times="$BENCH_DIR/containers-$name.times"
    walls[$name]=$(cut -d' ' -f1 "$times" | paste -sd' ')
    wall[$name]=$(cut -d' ' -f1 "$times" | median)
    cpu=$(cut -d' ' -f2 "$times" | median)
    rss[$name]=$(cut -d' ' -f3 "$times" | sort -n | tail -1)
    files=$(find "$OUT/$name" -type f | wc -l)
    disk=$(du -sm "$OUT/$name" | cut -f1)
    rm -rf "$OUT/copy"
    sync
    sleep "${SETTLE_SECONDS:-6}"
    copy=$(/usr/bin/time -f "%e" cp -r "$OUT/$name" "$OUT/copy" 2>&1 >/dev/null | tail -1)
    rm -rf "$OUT/copy"
    printf '| %s | %s | %.2f | %s | %.2f | %.0f | %d | %d | %.2f |\n' "${name#*-}" "${name%%-*}" "${wall[$name]}" "${walls[$name]}" "$cpu" \
        "$((rss[$name] / 1024))" "$files" "$disk" "$copy"
done
echo
ratio() { awk -v a="${wall[$1]}" -v b="${wall[$2]}" 'BEGIN { printf "%.2fx", a / b }'; }
rounds() { paste -d' ' <(tr ' ' '\n' <<<"${walls[$1]}") <(tr ' ' '\n' <<<"${walls[$2]}") | awk '{ printf "%.2f ", $1 / $2 }'; }
# by_round A B: the median of the rounds' A ÷ B, then every round's.
by_round() {
    local every
    every=$(rounds "$1" "$2")
    printf '%s (%s)' "$(tr ' ' '\n' <<<"$every" | grep . | median)" "${every% }"
}
echo "wall ratios of the medians: tiler SZI ÷ vips .szi $(ratio tiler-szi vips-szi) (goal ≤ 0.4), tiler TIFF ÷ vips tiffsave" \
    "$(ratio tiler-tiff vips-tiff) (goal ≤ 0.65), tiler SZI ÷ tiler folder $(ratio tiler-szi tiler-folder), tiler TIFF ÷" \
    "tiler folder $(ratio tiler-tiff tiler-folder) (goals ≤ 1)"
echo "median of the rounds' ratios (every round's): SZI ÷ vips .szi $(by_round tiler-szi vips-szi); TIFF ÷ vips tiffsave" \
    "$(by_round tiler-tiff vips-tiff); SZI ÷ folder $(by_round tiler-szi tiler-folder); TIFF ÷ folder $(by_round tiler-tiff tiler-folder)"
echo "peak RSS: tiler SZI $((rss[tiler-szi] / 1024)) MiB vs vips $((rss[vips-szi] / 1024)); tiler TIFF" \
    "$((rss[tiler-tiff] / 1024)) MiB vs vips $((rss[vips-tiff] / 1024))"

rm -rf "$ROOT"
mkdir -p "$ROOT"
mv "$OUT/tiler-folder/img.dzi" "$ROOT/folder.dzi"
mv "$OUT/tiler-folder/img_files" "$ROOT/folder_files"
mv "$OUT/tiler-szi/img.szi" "$ROOT/packed.szi"
mv "$OUT/tiler-tiff/img.tif" "$ROOT/stored.tif"
fi

# ---- serving ---------------------------------------------------------------------------------------------------------
TOP=$("$TILER" info "$INPUT" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["pyramid"]["maxLevel"])')
GRID=$(((SIZE + 255) / 256))
FITS=$((TOP - 2)) FITS_GRID=$(((SIZE / 4 + 255) / 256))

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
NGINX_PORT=18083
write_nginx_conf "$NGINX_PORT"
nginx -c "$WORK/nginx.conf"
TILER_PORT=$(start_tiler tiler "$TILER" --cache-mb "$CACHE_MB")
cat "$ROOT/packed.szi" "$ROOT/stored.tif" >/dev/null
declare -A results
# measure_serve SERVER(nginx|folder|packed|stored) CASE(a|b|c)
measure_serve() {
    local server=$1 case=$2 port=$TILER_PORT name=$1
    [ "$server" = nginx ] && port=$NGINX_PORT name=folder
    export SERVER=$server
    case $case in
        a) results[$server-a]+="$(wrk_run "$port" "/images/${name}_files/$FITS/3_3.jpg")"$'\n' ;;
        b) results[$server-b]+="$(PREFIX=/images/${name}_files LEVEL=$FITS COLS=$FITS_GRID ROWS=$FITS_GRID wrk_run "$port" bench/wrk/random-tiles.lua)"$'\n' ;;
        c) results[$server-c]+="$(PREFIX=/images/${name}_files LEVEL=$TOP COLS=$GRID ROWS=$GRID wrk_run "$port" bench/wrk/random-tiles.lua)"$'\n' ;;
    esac
}
SERVERS="nginx folder packed stored"
for round in $(seq "$ROUNDS"); do
    # The order of the servers turns by one each round, so none always follows the same one.
    read -ra order <<<"$SERVERS"
    shift_by=$(((round - 1) % ${#order[@]}))
    order=("${order[@]:shift_by}" "${order[@]:0:shift_by}")
    for case in a b c; do
        for server in "${order[@]}"; do measure_serve "$server" "$case"; done
    done
done

echo
echo "serving (wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s × $ROUNDS rounds, medians; tiler --cache-mb $CACHE_MB; level $FITS fits" \
    "the cache, level $TOP does not)"
echo
echo "| case | server | req/s | p50 ms | p99 ms | ÷ tiler folder (medians) | ÷ tiler folder, median of rounds (range) | ÷ nginx |"
echo "|---|---|---|---|---|---|---|---|"
label() { case $1 in a) echo "one hot tile" ;; b) echo "random tiles, level $FITS (in cache)" ;; c) echo "random tiles, level $TOP (beyond cache)" ;; esac; }
for case in a b c; do
    folder=$(cut -d' ' -f1 <<<"${results[folder-$case]}" | median)
    nginx=$(cut -d' ' -f1 <<<"${results[nginx-$case]}" | median)
    for server in $SERVERS; do
        rows=${results[$server-$case]}
        rate=$(cut -d' ' -f1 <<<"$rows" | median)
        p50=$(cut -d' ' -f2 <<<"$rows" | median)
        p99=$(cut -d' ' -f3 <<<"$rows" | median)
        # Each round's ratio is of two measurements of the same round, at most three measurements apart.
        ratios=$(paste -d' ' <(cut -d' ' -f1 <<<"$rows") <(cut -d' ' -f1 <<<"${results[folder-$case]}") |
            awk 'NF == 2 && $2 > 0 { printf "%.4f\n", $1 / $2 }')
        spread=$(sort -n <<<"$ratios" | awk 'NR == 1 { min = $1 } { max = $1 } END { printf "%.2f–%.2f", min, max }')
        printf '| %s | %s | %.0f | %.3f | %.3f | %.2fx | %.2fx (%s) | %.2fx |\n' "$(label "$case")" "$server" "$rate" "$p50" "$p99" \
            "$(awk -v a="$rate" -v b="$folder" 'BEGIN { print a / b }')" "$(median <<<"$ratios")" "$spread" \
            "$(awk -v a="$rate" -v b="$nginx" 'BEGIN { print a / b }')"
    done
done
echo
echo "servers: nginx = nginx on the folder; folder, packed (.szi), stored (.tif) = one tiler serve on one ROOT holding all three;" \
    "their order turning by one each round"
