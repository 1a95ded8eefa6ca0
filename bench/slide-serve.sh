#!/usr/bin/env bash
# Serving a whole-slide image in place through OpenSlide, against the same slide served the other ways, in one run,
# alternating (wrk -t2 -c$CONNECTIONS, seeded random tiles: every server gets the same requests):
#   tiler-slide   `tiler serve` on a Hamamatsu VMS slide of a SIZE² picture (bench/make-vms.py: 4 × 4 JPEGs with restart
#                 markers and an optimisation file), read in place with OpenSlide (default cache: the hot tile)
#   tiler-slide-cold  the same with `--cache-mb 0`: every tile is made (encoded) per request, no tile kept — the
#                 levels OpenSlide makes from the VMS's JPEGs (1/1, 1/2, 1/4, 1/8) read by Tiler's own restart-interval
#                 reader (RestartJPEGGrid: the same pixels, one decode a region) through a 32 MiB cache of decoded
#                 256-px blocks (SlideBlockCache), the map's levels through OpenSlide; dzg's decoded pixels are cached
#                 the same way, in OpenSlide's own tile cache (32 MiB a handle)
#   tiler-folder  `tiler serve` on the same slide sliced to a folder by `tiler slice` (through the same reader)
#   dzg           python3-openslide's DeepZoomGenerator over the same slide (bench/slide-dzg-server.py: one handle,
#                 Python's threading HTTP server, as openslide-python's deepzoom_server.py), JPEG quality 85 as Tiler's
# Cases: (a) one hot tile (cached by tiler); (b) random tiles of the finest level; (c) random tiles two levels down
# (OpenSlide's level 2: the JPEGs at 1/4 through libjpeg's DCT scaling, for both); (d) random tiles one level down (1/2).
# OpenSlide's 32 MiB cache (ARGB, 256 KiB a tile) holds about half of (c)'s 256 tiles, an eighth of (d)'s 1,024 and
# a thirty-second of (b)'s 4,096; Tiler's (RGB, 192 KiB a block) two thirds, a sixth, a twenty-fourth: under random
# requests (c) is partly cache hits for both, (b) and (d) mostly decoding. The slide's files are read once
# before the rounds, so both servers read them from the page cache. The machine may be shared: every round's ratio is
# printed, not only the medians. Goals (issue 32): (b), (c) tiler-slide-cold ≥ 3× dzg; (a) tiler-slide ≈
# tiler-folder.
#
# Usage: bench/slide-serve.sh [SECONDS] [ROUNDS]      (default 8 s, 3 rounds; medians and every round's ratio)
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_PER=${1:-8}
ROUNDS=${2:-3}
BENCH_DIR=${BENCH_DIR:-.bench-data/slide-serve}
SIZE=${SIZE:-16384}
CONNECTIONS=${CONNECTIONS:-64}

scripts/setup wrk
source bench/lib.sh
swift build -c release --product tiler >/dev/null
TILER="$(swift build -c release --show-bin-path)/tiler"
mkdir -p "$BENCH_DIR"
DATA="$(cd "$BENCH_DIR" && pwd)"
SOURCE="$DATA/picture-$SIZE.jpg"
SLIDE_ROOT="$DATA/slide-root"
FOLDER_ROOT="$DATA/folder-root"
[ -s "$SOURCE" ] || "$TILER" sample "$SOURCE" --size "${SIZE}x${SIZE}" --quiet
[ -s "$SLIDE_ROOT/img/slide.vms" ] || /usr/bin/python3 bench/make-vms.py "$SOURCE" "$SLIDE_ROOT/img" 4 4
[ -s "$FOLDER_ROOT/img.dzi" ] || "$TILER" slice "$SLIDE_ROOT/img/slide.vms" -o "$FOLDER_ROOT" --name img --quiet --force
TOP=$("$TILER" info "$SOURCE" --json | /usr/bin/python3 -c 'import json,sys; print(json.load(sys.stdin)["pyramid"]["maxLevel"])')
GRID=$(( (SIZE + 255) / 256 ))
GRID2=$(( (SIZE / 4 + 255) / 256 ))
GRID1=$(( (SIZE / 2 + 255) / 256 ))

WORK=$(mktemp -d)
trap 'kill $(cat "$WORK"/*.pid 2>/dev/null) 2>/dev/null || true; rm -rf "$WORK"' EXIT
declare -A ports prefix
ROOT=$SLIDE_ROOT
ports[tiler-slide]=$(start_tiler tiler-slide "$TILER")
ports[tiler-slide-cold]=$(start_tiler tiler-slide-cold "$TILER" --cache-mb 0)
ROOT=$FOLDER_ROOT
ports[tiler-folder]=$(start_tiler tiler-folder "$TILER")
DZG_PORT=18093
/usr/bin/python3 bench/slide-dzg-server.py "$SLIDE_ROOT/img/slide.vms" "$DZG_PORT" 85 >"$WORK/dzg.out" 2>"$WORK/dzg.err" &
echo $! >"$WORK/dzg.pid"
for _ in $(seq 100); do grep -q "listening" "$WORK/dzg.out" 2>/dev/null && break; sleep 0.1; done
ports[dzg]=$DZG_PORT
prefix=([tiler-slide]=/images/img/slide_files [tiler-slide-cold]=/images/img/slide_files [tiler-folder]=/images/img_files
    [dzg]=/images/img_files)
curl -fsS "http://127.0.0.1:${ports[tiler-slide]}/api/images" | grep -q '"vendor":"hamamatsu"' || { echo "tiler does not serve the slide" >&2; exit 1; }
# The same tile from each server, to say what is compared: sizes and a decoded difference.
for server in tiler-slide tiler-folder dzg; do
    curl -fsS "http://127.0.0.1:${ports[$server]}${prefix[$server]}/$TOP/3_3.jpg" -o "$WORK/$server.jpg"
done

cat "$SLIDE_ROOT"/img/* >/dev/null

run() { if [ "$1" = "$DZG_PORT" ]; then ALLOW_ERRORS=1 wrk_run "$@"; else wrk_run "$@"; fi; }
declare -A results
for round in $(seq "$ROUNDS"); do
    for server in tiler-slide tiler-folder; do
        results[$server-a]+="$(run "${ports[$server]}" "${prefix[$server]}/$TOP/3_3.jpg")"$'\n'
    done
    for server in tiler-slide-cold tiler-folder dzg; do
        results[$server-b]+="$(PREFIX=${prefix[$server]} LEVEL=$TOP COLS=$GRID ROWS=$GRID run "${ports[$server]}" bench/wrk/random-tiles.lua)"$'\n'
        results[$server-c]+="$(PREFIX=${prefix[$server]} LEVEL=$((TOP - 2)) COLS=$GRID2 ROWS=$GRID2 run "${ports[$server]}" bench/wrk/random-tiles.lua)"$'\n'
        results[$server-d]+="$(PREFIX=${prefix[$server]} LEVEL=$((TOP - 1)) COLS=$GRID1 ROWS=$GRID1 run "${ports[$server]}" bench/wrk/random-tiles.lua)"$'\n'
    done
done

echo "wrk -t2 -c$CONNECTIONS, ${SECONDS_PER}s per measurement, $ROUNDS rounds, servers back to back; medians. $(nproc) cores;"
echo "a ${SIZE}² picture as a Hamamatsu VMS (4 × 4 JPEGs); OpenSlide $(/usr/bin/python3 -c 'import openslide; print(openslide.__library_version__)')"
echo
echo "| case | server | req/s (2xx) | p50 ms | p99 ms | errors | ÷ dzg | ÷ tiler-folder |"
echo "|---|---|---|---|---|---|---|---|"
for case in a b c d; do
    label=$(case $case in a) echo "(a) one hot tile" ;; b) echo "(b) random level-$TOP tiles" ;; c) echo "(c) random level-$((TOP - 2)) tiles" ;;
        d) echo "(d) random level-$((TOP - 1)) tiles" ;; esac)
    dzg_data=${results[dzg-$case]:-0}
    dzg_rps=$(cut -d' ' -f1 <<<"${dzg_data%$'\n'}" | median)
    folder_rps=$(cut -d' ' -f1 <<<"${results[tiler-folder-$case]%$'\n'}" | median)
    for server in tiler-slide tiler-slide-cold tiler-folder dzg; do
        data=${results[$server-$case]:-}
        [ -n "$data" ] || continue
        rps=$(cut -d' ' -f1 <<<"${data%$'\n'}" | median)
        p50=$(cut -d' ' -f2 <<<"${data%$'\n'}" | median)
        p99=$(cut -d' ' -f3 <<<"${data%$'\n'}" | median)
        errors=$(cut -d' ' -f4 <<<"${data%$'\n'}" | awk '{ s += $1 } END { print s + 0 }')
        vs_dzg=$([ "$case" != a ] && [ "$server" != dzg ] && awk -v t="$rps" -v n="$dzg_rps" 'BEGIN { printf "%.1fx", t / n }' || true)
        vs_folder=$([ "$server" != tiler-folder ] && awk -v t="$rps" -v n="$folder_rps" 'BEGIN { printf "%.2fx", t / n }' || true)
        printf '| %s | %s | %.0f | %s | %s | %s | %s | %s |\n' "$label" "$server" "$rps" "$p50" "$p99" "$errors" "$vs_dzg" "$vs_folder"
    done
done
echo
ratios() { paste -d' ' <(cut -d' ' -f1 <<<"${results[$1]%$'\n'}") <(cut -d' ' -f1 <<<"${results[$2]%$'\n'}") | awk '{ printf "%.2f ", $1 / $2 }'; }
echo "(a) tiler-slide ÷ tiler-folder by round: $(ratios tiler-slide-a tiler-folder-a)"
echo "(b) tiler-slide-cold ÷ dzg by round: $(ratios tiler-slide-cold-b dzg-b)"
echo "(c) tiler-slide-cold ÷ dzg by round: $(ratios tiler-slide-cold-c dzg-c)"
echo "(d) tiler-slide-cold ÷ dzg by round: $(ratios tiler-slide-cold-d dzg-d)"
echo "tile $TOP/3_3 bytes: tiler-slide $(stat -c %s "$WORK/tiler-slide.jpg"), tiler-folder $(stat -c %s "$WORK/tiler-folder.jpg"), dzg $(stat -c %s "$WORK/dzg.jpg")"
